#!/bin/bash
# session 16, device call B: call A found the stuck run with the GPU at 100% (a kernel spinning) and the process
# deaf to SIGTERM. Now: 16 runs, 4 at a time, SIGKILL after 40 s; a run past 12 s gets two SIGUSR2 host backtraces
# and cuda-gdb's kernel list and main-thread backtrace, then SIGKILL. Then compute-sanitizer memcheck on 8 runs.
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs_neumann' > $OUT/build.log 2>&1; tail -1 $OUT/build.log
gcc -shared -fPIC -O1 -o /tmp/libbt.so .carry/btpreload.c || echo "no preload"
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -use_gpu_aware_mpi 0 -mg_levels_pc_type bjsmooth -no_signal_handler"
one() { local s=$SECONDS; LD_PRELOAD=/tmp/libbt.so timeout -k 3 40 $E $A > /tmp/lp$1.out 2>&1; echo "run $1 rc $? $((SECONDS-s)) s $(grep -c 'agree with their host references: yes' /tmp/lp$1.out)"; }
probe() {
  while true; do
    sleep 2
    for p in $(pgrep -x ex1); do
      et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 12 ] || continue
      [ -f /tmp/probed.$p ] && continue; touch /tmp/probed.$p
      { echo "=== pid $p after ${et} s $(cat /proc/$p/cmdline | tr '\0' ' ' | cut -c1-60)"; for t in /proc/$p/task/*; do c=$(awk '{print $14+$15}' $t/stat); [ "$c" -gt 50 ] && echo "  task ${t##*/} $(cat $t/comm) state $(awk '{print $3}' $t/stat) cpu $c"; done
        nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader
        for k in 1 2; do kill -USR2 $p; sleep 1; done
        timeout -k 3 60 cuda-gdb -p $p -batch -ex "info cuda kernels" -ex "thread 1" -ex "bt 30" 2>&1 | grep -vE "^\[New |^\[Thread .* exited|warning:" | head -60
        kill -9 $p; } >> $OUT/stuck.txt 2>&1
    done
  done
}
pkill -9 -x ex1; sleep 1
probe & PP=$!
pids=()
for i in $(seq 1 16); do one $i & pids+=($!); if [ $((i % 4)) = 0 ]; then wait "${pids[@]}"; pids=(); fi; done
wait "${pids[@]}" 2>/dev/null
for f in /tmp/lp*.out; do grep -q "SIGUSR2" $f && { echo "=== $f"; cat $f; } ; done > $OUT/traces.txt
grep -ohE "^[^ ]+\((\+|[A-Za-z_][A-Za-z0-9_.]*\+)0x[0-9a-f]+\)" $OUT/traces.txt | sort | uniq -c | sort -rn | head -60 > /tmp/frames.txt
while read n fr; do mod=${fr%%(*}; off=${fr#*(}; off=${off%)}; case $off in +*) a=$(addr2line -f -C -e $mod ${off#+} 2>/dev/null | head -1);; *) a="";; esac; echo "$n $fr $a"; done < /tmp/frames.txt > $OUT/frames.txt
head -100 $OUT/stuck.txt; echo; head -50 $OUT/frames.txt
echo "probe phase $((SECONDS-T0)) s"
# memcheck: 8 runs, 4 at a time
ms() { timeout -k 3 150 compute-sanitizer --tool memcheck --error-exitcode 9 $E ${A% -no_signal_handler} > /tmp/mc$1.out 2>&1; echo "memcheck $1 rc $? $(grep -c 'agree with their host references: yes' /tmp/mc$1.out) $(grep -m1 'ERROR SUMMARY' /tmp/mc$1.out)"; }
pids=(); for i in 1 2 3 4 5 6 7 8; do ms $i & pids+=($!); if [ $((i % 4)) = 0 ]; then wait "${pids[@]}"; pids=(); fi; [ $((SECONDS-T0)) -gt 520 ] && break; done
wait "${pids[@]}" 2>/dev/null
kill $PP 2>/dev/null
for i in 1 2 3 4 5 6 7 8; do grep -q "Invalid\|Error" /tmp/mc$i.out 2>/dev/null && { grep -m3 -A12 "Invalid\|Program hit" /tmp/mc$i.out; break; }; done | tee $OUT/memcheck.txt | head -40
pkill -9 -x ex1
echo "total $((SECONDS-T0)) s"
