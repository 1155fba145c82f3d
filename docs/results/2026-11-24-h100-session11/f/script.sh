#!/bin/bash
# session 11, device call F: the GPU harness tests (every *cuda* variant) on the session's tree
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 540 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1; echo "rc=$?"
tail -3 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
echo "total $((SECONDS-T0)) s"
