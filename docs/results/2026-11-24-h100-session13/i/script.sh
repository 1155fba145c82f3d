#!/bin/bash
# session 13, device call I: tests/ksp/ex1's CUDA cases with the FVM problem (new) and the DMDA ones
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 400 make BUILD=$B -j16 check search='tests_ksp-ex1_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
for t in $(grep "^not ok" $B/tests/test__tap.log | grep -v "diff-" | awk '{print $3}' | head -4); do echo "== $t"; grep -A12 "$t" $OUT/check.log | head -14; done
grep -E "^# .*(NO|iterations agree|copies)" $OUT/check.log | head -20
echo "total $((SECONDS-T0)) s"
