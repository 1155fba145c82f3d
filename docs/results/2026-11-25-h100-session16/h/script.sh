#!/bin/bash
# session 16, device call H: every *cuda* harness test (GPU_JOBS default 4) after the level-PC cases' change
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout -k 5 560 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1; echo "rc $?"
tail -1 $OUT/check.log; grep -h "^not ok\|timed out" $OUT/check.log | head -20
grep -A3 "Wall clock" $OUT/check.log
gzip -9 $OUT/check.log
echo "total $((SECONDS-T0)) s"
