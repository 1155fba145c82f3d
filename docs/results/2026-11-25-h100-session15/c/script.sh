#!/bin/bash
# session 15, device call C: threads per row (-mat_modsell_row_lanes) of the product; natural vs partition on wide rows;
# the new kernel under compute-sanitizer; tests/mat's CUDA cases
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 >> $OUT/device.txt
make BUILD=$B $B/bin/bench/spmv > /dev/null 2>&1 || echo build failed
S=$B/bin/bench/spmv
run() { echo "== $*"; $S -reps 200 -samples 5 -budget 0.5 -copy_n 16777216 -csv $OUT/spmv.csv "$@" 2>&1 | sed -n '/-- summary/,$p'; }
F="aijcusparse,sellcuda,modsell,modsell:ordering=natural/partition:lanes=1/2/4/8/16"
for n in 24 64 100 160; do run -problem lap27 -n $n -formats $F; done
for n in 16 28 44 70 110; do run -problem lap27 -n $n -dof 3 -formats $F; done
for n in 24 64 160; do run -problem lap7 -n $n -formats aijcusparse,modsell; done
echo "spmv done $((SECONDS-T0)) s"
timeout 200 make BUILD=$B -j8 check search='tests_mat-ex1_cuda_lanes* tests_mat-ex6* bench-spmv*' > $OUT/check1.log 2>&1; tail -1 $OUT/check1.log
for tool in memcheck racecheck synccheck; do
  timeout 120 make BUILD=$B -j4 check search='tests_mat-ex1_cuda_lanes' WRAPPER="compute-sanitizer --tool $tool --error-exitcode 9" > $OUT/san-$tool.log 2>&1; echo "$tool: $(tail -1 $OUT/san-$tool.log)"
done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $B/tests/tests/mat/runex1_cuda_lanes*/*.err 2>/dev/null | sort | uniq -c | head
echo "total $((SECONDS-T0)) s"
