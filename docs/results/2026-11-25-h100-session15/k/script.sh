#!/bin/bash
# session 15, device call K: the hang of call J again (8 runs, 4 at a time), the main thread's backtrace of a run past 12 s
# (and in session 14's call h) while the whole testset usually takes 7-8 s: 40 runs, 4 at a time, 40 s limit each;
# a run past 25 s gets host backtraces (cuda-gdb) and its kernels
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs' > $OUT/build.log 2>&1; tail -1 $OUT/build.log
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -use_gpu_aware_mpi 0 -mg_levels_pc_type bjsmooth"
one() { local s=$SECONDS; timeout 60 $E $A > /tmp/lp$1.out 2>&1; echo "run $1 rc $? $((SECONDS-s)) s $(diff -q /tmp/lp$1.out tests/ksp/output/ex1_level_pcs.out > /dev/null && echo same || echo DIFF)"; }
probe() {
  while true; do
    sleep 5
    for p in $(pgrep -f "tests/ksp/ex1 -problem"); do
      et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 12 ] || continue
      [ -f /tmp/probed.$p ] && continue; touch /tmp/probed.$p
      { echo "=== pid $p after ${et} s"; for t in /proc/$p/task/*; do echo "  task ${t##*/} state $(awk '{print $3}' $t/stat) cpu $(awk '{print $14+$15}' $t/stat)"; done
        timeout 40 cuda-gdb -p $p -batch -ex "thread 1" -ex "bt 40" 2>&1 | grep -vE "^\[(New|Thread)|warning:|exited|libthread_db" | head -60; } >> $OUT/stuck.txt 2>&1
    done
  done
}
probe & PP=$!
for i in $(seq 1 8); do one $i & if [ $((i % 4)) = 0 ]; then wait $(jobs -p | grep -v "^$PP$") 2>/dev/null; fi; done
wait $(jobs -p | grep -v "^$PP$") 2>/dev/null
kill $PP 2>/dev/null
[ -f $OUT/stuck.txt ] && head -120 $OUT/stuck.txt
echo "total $((SECONDS-T0)) s"
