#!/bin/bash
# session 15, device call J: tests/ksp/ex1 cuda_fvm_level_pcs with bjsmooth on one process timed out at 60 s in call i
# (and in session 14's call h) while the whole testset usually takes 7-8 s: 40 runs, 4 at a time, 40 s limit each;
# a run past 25 s gets host backtraces (cuda-gdb) and its kernels
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs' > $OUT/build.log 2>&1; tail -1 $OUT/build.log
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -use_gpu_aware_mpi 0 -mg_levels_pc_type bjsmooth"
one() { local s=$SECONDS; timeout 40 $E $A > /tmp/lp$1.out 2>&1; echo "run $1 rc $? $((SECONDS-s)) s $(diff -q /tmp/lp$1.out tests/ksp/output/ex1_level_pcs.out > /dev/null && echo same || echo DIFF)"; }
probe() {
  while true; do
    sleep 5
    for p in $(pgrep -f "tests/ksp/ex1 -problem"); do
      et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 25 ] || continue
      [ -f /tmp/probed.$p ] && continue; touch /tmp/probed.$p
      { echo "=== pid $p after ${et} s"; for t in /proc/$p/task/*; do echo "  task ${t##*/} state $(awk '{print $3}' $t/stat) cpu $(awk '{print $14+$15}' $t/stat)"; done
        timeout 30 cuda-gdb -p $p -batch -ex "info cuda kernels" -ex "thread apply all bt 25" 2>&1 | grep -vE "^\[New Thread|warning:" | head -150; } >> $OUT/stuck.txt 2>&1
    done
  done
}
probe & PP=$!
for i in $(seq 1 40); do one $i & if [ $((i % 4)) = 0 ]; then wait $(jobs -p | grep -v "^$PP$") 2>/dev/null; fi; done
wait $(jobs -p | grep -v "^$PP$") 2>/dev/null
kill $PP 2>/dev/null
[ -f $OUT/stuck.txt ] && head -120 $OUT/stuck.txt
echo "total $((SECONDS-T0)) s"
