#!/bin/bash
# session 13, device call J: PCBJSMOOTH's shared-memory limit raised to the device's opt-in maximum; tests/ksp/ex1
# CUDA (FVM cases included) and PCBJSMOOTH's CUDA tests
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 make BUILD=$B -j16 check search='tests_ksp-ex1_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -10
timeout 300 make BUILD=$B -j16 check search='src_ksp_pc_impls_bjsmooth*cuda*' > $OUT/check2.log 2>&1; tail -1 $OUT/check2.log; grep "^not ok" $B/tests/test__tap.log | head -10
grep -A8 "^not ok" $OUT/check.log | grep "PETSC ERROR: [A-Z]" | head -5
echo "total $((SECONDS-T0)) s"
