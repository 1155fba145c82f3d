# session 12, H100: every *cuda* harness test on the tree with the overlapped MPI product and the nonzero-slice off-diagonal product
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 430 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1; echo "check rc=$?"; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
tail -3 $OUT/check.log > $OUT/check-summary.txt; grep "^not ok" $B/tests/test__tap.log >> $OUT/check-summary.txt
echo "tests $((SECONDS-T0)) s"
