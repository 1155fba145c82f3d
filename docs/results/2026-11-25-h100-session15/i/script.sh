#!/bin/bash
# session 15, device call I: every *cuda* harness test at make -j16 (GPU_JOBS=4) on the session's final code
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
( timeout 500 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1 )
tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
grep -A8 "Wall clock" $OUT/check.log
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
