#!/bin/bash
# session 11, device call A: build, the CUDA partition against the reference bit for bit (tests/mat/ex7 cuda), the
# sanitizer on it, the partition's time at 10.4 M rows with and without the strengths
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
echo "build $((SECONDS-T0)) s"; ls $B/lib
make BUILD=$B -j16 $B/bin/bench/partition $B/bin/tests/mat/ex7 $B/bin/examples/fvm/fvmpoisson 2>&1 | grep -iE " error|warning" | head
make BUILD=$B -j16 check search='tests_mat-ex7*' > $OUT/ex7.txt 2>&1; tail -3 $OUT/ex7.txt; grep "^not ok" $B/tests/test__tap.log | head
echo "tests $((SECONDS-T0)) s"
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/tests/mat/ex7 -kind unstructured -n 3000 -sh 128 -backend cuda > $OUT/cs-$tool.txt 2>&1; echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|checks passed|FAILED' $OUT/cs-$tool.txt | tr '\n' ' ')"
done
echo "sanitizer $((SECONDS-T0)) s"
for v in 0 1; do timeout 150 $B/bin/bench/partition -n 218 -sh 512 -values $v 2>&1 | tail -4; done
echo "total $((SECONDS-T0)) s"
