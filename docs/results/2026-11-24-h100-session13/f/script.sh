#!/bin/bash
# session 13, device call F: every *cuda* harness test on the session's final code (with the MPI product's view line
# and its two new tests in tests/mat/ex1)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
grep -iE " error" /tmp/setup-build.log | head -5
timeout 100 make BUILD=$B -j16 check search='tests_mat-ex1_cuda_view*' > $OUT/view.log 2>&1; tail -1 $OUT/view.log; grep -E "^not ok|^#" $B/tests/test__tap.log | head -20
timeout 420 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
echo "total $((SECONDS-T0)) s"
