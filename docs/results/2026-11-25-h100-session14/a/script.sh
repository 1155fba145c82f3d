#!/bin/bash
# session 14, device call A: level-PC check on the GPU (diagnoses tests/ksp/ex1's two TODO cases), GAMG levels bench
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 2>/dev/null | tee -a $OUT/device.txt
timeout 200 make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log
grep "^not ok" $B/tests/test__tap.log | head -10
grep -h "agree with their host" $B/tests/tests/ksp/runex1_cuda_fvm_level_pcs*/*.out 2>/dev/null | grep NO | head
echo "check $((SECONDS-T0)) s"
E=$B/tests/tests/ksp/ex1
D="-problem fvm -n 8 -cell tet -ksp_rtol 1e-8 -ref_mat_type aijcusparse -pc_type gamg -mg_levels_ksp_type richardson"
for pc in brbilu ruiz; do
  echo "== $pc per level (device vs host)"
  kt=cg; [ $pc = brbilu ] && kt=gmres
  timeout 60 $E $D -ksp_type $kt -mg_levels_pc_type $pc -setup_only -check_level_pcs -info :ksp 2>&1 | grep -E "check_level|agree" | head -12
  echo "== $pc solve, 40 its, monitor"
  timeout 60 $E $D -ksp_type $kt -mg_levels_pc_type $pc -ksp_max_it 40 -ksp_monitor -test_mat_type aijcusparse 2>&1 | awk 'NR<=6||/converged|agree|rror/' | head -20
done
echo "diag $((SECONDS-T0)) s"
make BUILD=$B $B/bin/bench/gamglevels > $OUT/build-bench.log 2>&1 || tail -5 $OUT/build-bench.log
G=$B/bin/bench/gamglevels
echo "== lap7 (jump 1) 256^3"; timeout 200 $G -problem jump -jump 1 -dim 3 -n 256 -reps 20 -samples 5 -rounds 2 2>&1 | tee $OUT/gamglevels-lap256.txt
echo "bench1 $((SECONDS-T0)) s"
echo "== fvm 120 tet structured"; timeout 200 $G -problem fvm -n 120 -cell tet -permute 0 -reps 20 -samples 5 -rounds 2 2>&1 | tee $OUT/gamglevels-fvm120.txt
echo "total $((SECONDS-T0)) s"
