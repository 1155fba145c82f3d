#!/bin/bash
# session 16, device call A: the intermittent spin of tests/ksp/ex1 cuda_fvm_level_pcs (bjsmooth, one process).
# 24 runs, 4 at a time, 60 s limit, PETSc's signal handler off; a run past 12 s gets three SIGUSR2 backtraces of its
# main thread (LD_PRELOAD .carry/btpreload.c), then a gdb backtrace; addresses resolved with addr2line
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log -1 --format=%h >> $OUT/device.txt 2>/dev/null
make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs_neumann' > $OUT/build.log 2>&1; tail -1 $OUT/build.log
gcc -shared -fPIC -O1 -o /tmp/libbt.so .carry/btpreload.c || echo "no preload"
which gdb cuda-gdb eu-stack addr2line 2>&1 | tee -a $OUT/stuck.txt
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -use_gpu_aware_mpi 0 -mg_levels_pc_type bjsmooth -no_signal_handler"
one() { local s=$SECONDS; LD_PRELOAD=/tmp/libbt.so timeout 60 $E $A > /tmp/lp$1.out 2>&1; echo "run $1 rc $? $((SECONDS-s)) s $(grep -c 'agree with their host references: yes' /tmp/lp$1.out)"; }
probe() {
  while true; do
    sleep 3
    for p in $(pgrep -f "tests/ksp/ex1 -problem" | grep -v "^$$\$"); do
      [ "$(cat /proc/$p/comm 2>/dev/null)" = ex1 ] || continue
      et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 12 ] || continue
      [ -f /tmp/probed.$p ] && continue; touch /tmp/probed.$p
      { echo "=== pid $p after ${et} s"; for t in /proc/$p/task/*; do c=$(awk '{print $14+$15}' $t/stat); [ "$c" -gt 50 ] && echo "  task ${t##*/} $(cat $t/comm) state $(awk '{print $3}' $t/stat) cpu $c"; done
        nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader
        for k in 1 2 3; do kill -USR2 $p; sleep 1; done
        cp /proc/$p/maps /tmp/maps.$p 2>/dev/null
        if command -v gdb > /dev/null; then timeout 30 gdb -p $p -batch -ex "thread 1" -ex "bt 40" 2>&1 | grep -vE "^\[New |warning:" | head -60; fi; } >> $OUT/stuck.txt 2>&1
    done
  done
}
probe & PP=$!
pids=()
for i in $(seq 1 24); do one $i & pids+=($!); if [ $((i % 4)) = 0 ]; then wait "${pids[@]}"; pids=(); fi; done
wait "${pids[@]}" 2>/dev/null
kill $PP 2>/dev/null
for f in /tmp/lp*.out; do grep -q "SIGUSR2" $f && { echo "=== $f"; cat $f; } ; done > $OUT/traces.txt
# resolve module(+0xoff) frames
grep -oE "^[^ ]+\((\+|[A-Za-z_][A-Za-z0-9_.]*\+)0x[0-9a-f]+\)" $OUT/traces.txt | sort | uniq -c | sort -rn | head -60 > /tmp/frames.txt
while read n fr; do mod=${fr%%(*}; off=${fr#*(}; off=${off%)}; case $off in +*) a=$(addr2line -f -C -e $mod ${off#+} 2>/dev/null | head -1);; *) a="";; esac; echo "$n $fr $a"; done < /tmp/frames.txt > $OUT/frames.txt
head -80 $OUT/stuck.txt; echo; cat $OUT/frames.txt | head -60
echo "total $((SECONDS-T0)) s"
