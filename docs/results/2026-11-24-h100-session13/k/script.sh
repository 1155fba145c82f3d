#!/bin/bash
# session 13, device call K: tests/ksp/ex1's FVM CUDA cases with the plugin's preconditioners as GAMG level smoothers
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 250 make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -10
grep -A40 "^not ok" $OUT/check.log | grep -E "PETSC ERROR: [A-Z]|both converged|iterations agree|copies" | head -12
echo "total $((SECONDS-T0)) s"
