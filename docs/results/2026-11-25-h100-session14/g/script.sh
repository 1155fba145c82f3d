#!/bin/bash
# session 14, device call G: issue 13's preconditioners on the FVM problem (1.57 M tetrahedra, random numbering), CG,
# MATMODSELL against aijcusparse alternated in one process (bench/gamgab, 2 rounds each after a warm-up at n = 16)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/gamgab > $OUT/build.log 2>&1 || tail -5 $OUT/build.log
G=$B/bin/bench/gamgab
P="-problem fvm -n 64 -cell tet -permute 1 -rounds 2 -warmup_n 16 -ksp_max_it 5000"
while read -r name opts; do
  echo "== $name: $opts"
  timeout 100 $G $P $opts > $OUT/t-$name.txt 2>&1; echo "rc $?"
  grep -E "agree|converged|^# (means|aijcusparse /)" $OUT/t-$name.txt
done <<'CFG'
gamg -pc_type gamg
gamg_unsmoothed -pc_type gamg -pc_gamg_agg_nsmooths 0
gamg_threshold -pc_type gamg -pc_gamg_threshold 0.01
gamg_jacobi -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type jacobi -mg_levels_ksp_max_it 2
gamg_bjsmooth -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type bjsmooth
jacobi -pc_type jacobi
pbjacobi -pc_type pbjacobi
bjacobi_ilu -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type cusparse
icc -pc_type icc -pc_factor_mat_solver_type cusparse
CFG
cd $OUT && tar czf tables.tgz t-*.txt && rm -f t-*.txt
echo "total $((SECONDS-T0)) s"
