#!/bin/bash
# session 11, device call I: the final tree: every *cuda* harness test, then make demo (the README's table)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 380 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1; echo "check rc=$?"; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
echo "tests $((SECONDS-T0)) s"
timeout 190 make BUILD=$B demo > $OUT/demo.txt 2>&1; echo "demo rc=$?"; grep -E "seqaij|device:" $OUT/demo.txt | cut -c1-200
echo "total $((SECONDS-T0)) s"
