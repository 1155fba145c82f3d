#!/bin/bash
# session 15, device call D: the defaults after the change (automatic threads per row, the window rule of auto):
# wide-row matrices and the FVM matrices against aijcusparse and sellcuda; compute-sanitizer on the lanes kernel
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 >> $OUT/device.txt
make BUILD=$B $B/bin/bench/spmv $B/bin/examples/fvm/fvmpoisson > /dev/null 2>&1 || echo build failed
S=$B/bin/bench/spmv
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report hazard"
  mkdir -p /tmp/cs-$tool
  timeout 150 make BUILD=$B -j8 check TIMEOUT=300 search='bench-spmv_lap27_dof3* tests_mat-ex1_cuda_lanes' WRAPPER="compute-sanitizer --tool $tool $extra --error-exitcode 9 --print-limit 5 --log-file /tmp/cs-$tool/%p.log" > $OUT/san-$tool.log 2>&1
  echo "$tool: $(tail -1 $OUT/san-$tool.log); $(ls /tmp/cs-$tool | wc -l) processes, $(grep -L -E 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors' /tmp/cs-$tool/*.log | wc -l) with errors or no summary"
done
echo "sanitizers done $((SECONDS-T0)) s"
run() { echo "== $*"; $S -reps 200 -samples 5 -budget 0.5 -copy_n 16777216 -csv $OUT/spmv.csv -formats aijcusparse,sellcuda,modsell "$@" 2>&1 | sed -n '/-- summary/,$p' | grep -E "^(aijcusparse|sellcuda|modsell)"; }
for n in 24 64 100 160; do run -problem lap27 -n $n; done
for n in 16 28 44 70 110; do run -problem lap27 -n $n -dof 3; done
for n in 24 64 160; do run -problem lap7 -n $n; done
$B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -write_system /tmp/fvm.bin -mat_type aij -compare 0 -ksp_max_it 1 > /dev/null 2>&1
$B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -permute 0 -write_system /tmp/fvmnat.bin -mat_type aij -compare 0 -ksp_max_it 1 > /dev/null 2>&1
run -file /tmp/fvm.bin -name fvm-random
run -file /tmp/fvmnat.bin -name fvm-structured
echo "total $((SECONDS-T0)) s"
