#!/bin/bash
# session 15, device call F: one thread per row back on its own kernel (the lanes kernel only for lanes > 1): narrow-row
# products against aijcusparse and sellcuda in the same run as the wide-row ones; tests/mat's CUDA cases and spmv's tests
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/spmv $B/bin/examples/fvm/fvmpoisson > /dev/null 2>&1 || echo build failed
S=$B/bin/bench/spmv
run() { echo "== $*"; $S -reps 200 -samples 5 -budget 0.5 -copy_n 16777216 -csv $OUT/spmv.csv -formats aijcusparse,sellcuda,modsell "$@" 2>&1 | sed -n '/-- summary/,$p' | grep -E "^(aijcusparse|sellcuda|modsell)"; }
for n in 24 64 160; do run -problem lap7 -n $n; done
for n in 24 160; do run -problem lap27 -n $n; done
for n in 16 28 110; do run -problem lap27 -n $n -dof 3; done
$B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -write_system /tmp/fvm.bin -mat_type aij -compare 0 -ksp_max_it 1 > /dev/null 2>&1
$B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -permute 0 -write_system /tmp/fvmnat.bin -mat_type aij -compare 0 -ksp_max_it 1 > /dev/null 2>&1
run -file /tmp/fvm.bin -name fvm-random
run -file /tmp/fvmnat.bin -name fvm-structured
echo "spmv done $((SECONDS-T0)) s"
timeout 200 make BUILD=$B -j16 check search='tests_mat-*cuda* bench-spmv* tests_ksp-ex2_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
echo "total $((SECONDS-T0)) s"
