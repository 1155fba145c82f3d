#!/bin/bash
# session 14, device call B: tests/ksp/ex1's two TODO cases run as the harness runs them (times, monitors);
# bench/gamglevels with the finest operator swapped (same hierarchy, alternated)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/gamglevels $B/tests/tests/ksp/ex1 > $OUT/build.log 2>&1 || make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs_neumann*' >> $OUT/build.log 2>&1
ls -la $B/tests/tests/ksp/ex1 $B/bin/bench/gamglevels | awk '{print $5, $9}'
E=$B/tests/tests/ksp/ex1
H="-ref_mat_type aijcusparse -check_copies -use_gpu_aware_mpi 0 -problem fvm -n 8 -cell tet -ksp_type cg -ksp_rtol 1e-8 -pc_type gamg -mg_levels_ksp_type richardson"
echo "== ruiz TODO case"
S=$SECONDS; timeout 100 $E $H -mg_levels_pc_type ruiz -ksp_converged_reason -log_view > $OUT/ruiz.log 2>&1; echo "rc $? $((SECONDS-S)) s"
grep -E "converged|agree|copies|^KSPSolve|^PCApply |^PCSetUp |^PCRuiz|^MatMult |Time \(sec\)" $OUT/ruiz.log | cut -c1-120 | head -30
echo "== brbilu TODO case"
S=$SECONDS; timeout 100 $E $H -ksp_type gmres -mg_levels_pc_type brbilu -ksp_converged_reason -ksp_monitor > $OUT/brbilu.log 2>&1; echo "rc $? $((SECONDS-S)) s"
grep -E "converged|agree|copies" $OUT/brbilu.log; awk '/KSP Residual/{n++} /KSP Residual/ && (n%50==0){print}' $OUT/brbilu.log | head -30
echo "diag $((SECONDS-T0)) s"
G=$B/bin/bench/gamglevels
O="-reps 20 -samples 5 -rounds 3 -swap_finest modsell -min_rows 1000000000"
echo "== lap7 (jump 1) 256^3"; timeout 170 $G -problem jump -jump 1 -dim 3 -n 256 $O 2>&1 | tee $OUT/gl-lap256.txt
echo "== fvm 120 tet structured"; timeout 120 $G -problem fvm -n 120 -cell tet -permute 0 $O 2>&1 | tee $OUT/gl-fvm120s.txt
echo "== fvm 120 tet random"; timeout 120 $G -problem fvm -n 120 -cell tet -permute 1 $O 2>&1 | tee $OUT/gl-fvm120r.txt
echo "total $((SECONDS-T0)) s"
