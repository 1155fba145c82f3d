#!/bin/bash
# session 14, device call C: the changed CUDA tests (ex1 FVM cases, ex3 conversions from aijcusparse); bench/gamglevels
# with the finest operator swapped to MATMODSELL in the same hierarchy (alternated)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 280 make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm* tests_mat-ex3_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log
grep "^not ok" $B/tests/test__tap.log | head -10
grep -h "NO\b\|NO (" $B/tests/tests/ksp/runex1_cuda_fvm*/*.out 2>/dev/null | head -5
echo "check $((SECONDS-T0)) s"
make BUILD=$B $B/bin/bench/gamglevels > $OUT/build-bench.log 2>&1 || tail -5 $OUT/build-bench.log
G=$B/bin/bench/gamglevels
O="-reps 20 -samples 5 -rounds 2 -swap_finest modsell -min_rows 1000000000 -ksp_max_it 100"
echo "== lap7 (jump 1) 256^3"; timeout 150 $G -problem jump -jump 1 -dim 3 -n 256 $O 2>&1 | tee $OUT/gl-lap256.txt
echo "== fvm 120 tet structured"; timeout 100 $G -problem fvm -n 120 -cell tet -permute 0 $O 2>&1 | tee $OUT/gl-fvm120s.txt
echo "== fvm 120 tet random"; timeout 110 $G -problem fvm -n 120 -cell tet -permute 1 $O 2>&1 | tee $OUT/gl-fvm120r.txt
echo "total $((SECONDS-T0)) s"
