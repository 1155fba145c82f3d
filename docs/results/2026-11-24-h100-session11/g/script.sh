#!/bin/bash
# session 11, device call G: the GPU tests that failed in call F, tests/mat CUDA again, then make demo (README)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 300 make BUILD=$B -j16 check search='tests_mat-*cuda*' > $OUT/check-mat.log 2>&1; echo "mat rc=$?"; tail -1 $OUT/check-mat.log; grep "^not ok" $B/tests/test__tap.log | head
timeout 120 make BUILD=$B -j16 check search='tests_loading-*cuda*' > $OUT/check-loading.log 2>&1; echo "loading rc=$?"; tail -1 $OUT/check-loading.log; grep "^not ok" $B/tests/test__tap.log | head
echo "tests $((SECONDS-T0)) s"
timeout 200 make BUILD=$B demo > $OUT/demo.txt 2>&1; echo "demo rc=$?"; cat $OUT/demo.txt | cut -c1-230
echo "total $((SECONDS-T0)) s"
