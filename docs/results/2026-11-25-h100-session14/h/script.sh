#!/bin/bash
# session 14, device call H: every *cuda* harness test on the final tree
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 530 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log
grep "^not ok" $B/tests/test__tap.log | head -20
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
