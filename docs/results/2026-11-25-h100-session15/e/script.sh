#!/bin/bash
# session 15, device call E: every *cuda* harness test at make -j16 (GPU_JOBS=4) on the tree with the threads per row;
# racecheck on a small wide-row SpMV (every lane count)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/spmv > /dev/null 2>&1 || echo build failed
mkdir -p /tmp/rc
timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 --log-file /tmp/rc/%p.log $B/bin/bench/spmv -problem lap27 -n 6 -dof 3 -formats modsell:sh=32/128:lanes=1/2/8/16/32,modsell:ordering=partition:lanes=4 -timings 0 > $OUT/racecheck-spmv.txt 2>&1
echo "racecheck spmv exit $?: $(cat /tmp/rc/*.log | grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' | head -3)"; tail -2 $OUT/racecheck-spmv.txt
( timeout 450 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1 )
tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
grep -A8 "Wall clock" $OUT/check.log
( cd $B/tests && tar czf $OUT/counts.tgz counts )
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
