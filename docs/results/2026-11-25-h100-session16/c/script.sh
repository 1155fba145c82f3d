#!/bin/bash
# session 16, device call C: the stuck kernel is cuSPARSE's reduce_by_key in cusparseSpGEMM_compute (GAMG's PtAP),
# call B. Which of the test's three setups (ref warm-up, modsell, ref), with or without MATMODSELL, and memcheck.
T0=$SECONDS
pkill -9 -x ex1; pkill -9 -f compute-sanitizer
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs_neumann' > $OUT/build.log 2>&1; tail -1 $OUT/build.log
gcc -shared -fPIC -O1 -o /tmp/libbt.so .carry/btpreload.c || echo "no preload"
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -use_gpu_aware_mpi 0 -mg_levels_pc_type bjsmooth -no_signal_handler"
# phase(name, runs, limit, extra args): runs 4 at a time; the first run past 10 s is diagnosed, then every run is killed
phase() {
  local name=$1 runs=$2 lim=$3; shift 3; local s0=$SECONDS nst=0 i
  rm -f /tmp/stop; pkill -9 -x ex1
  for i in $(seq 1 $runs); do
    ( s=$SECONDS; LD_PRELOAD=/tmp/libbt.so timeout -k 2 30 $E $A "$@" > /tmp/$name$i.out 2>&1; echo "$name run $i rc $? $((SECONDS-s)) s" >> $OUT/runs.txt ) &
    if [ $((i % 4)) = 0 ]; then
      while [ $(jobs -r | wc -l) -gt 0 ]; do
        sleep 1
        for p in $(pgrep -x ex1); do
          et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 10 ] || continue
          nst=$((nst+1))
          if [ $nst = 1 ]; then
            { echo "=== $name: pid $p after ${et} s"; nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader
              kill -USR2 $p; sleep 1
              timeout -k 2 40 cuda-gdb -p $p -batch -ex "info cuda kernels" -ex "thread 1" -ex "bt" 2>&1 | grep -E "^#|Invocation|^\*" | head -60; } >> $OUT/stuck.txt 2>&1
          fi
          kill -9 $p
        done
        [ $((SECONDS-s0)) -gt $lim ] && { pkill -9 -x ex1; break; }
      done
      [ $nst -gt 0 ] && break
    fi
  done
  sleep 2; pkill -9 -x ex1
  echo "$name: stuck $nst of $i started, $((SECONDS-s0)) s" | tee -a $OUT/runs.txt
  for f in /tmp/$name*.out; do grep -q SIGUSR2 $f && { echo "== $f"; sed -n '/SIGUSR2/,$p' $f | head -60; }; done >> $OUT/traces.txt
}
phase base 12 100
phase refonly 12 100 -test_mat_type aijcusparse
# resolve the frames of the executable and of the plugin
grep -ohE "^[^ ]+\((\+|[A-Za-z_][A-Za-z0-9_.]*\+)0x[0-9a-f]+\)" $OUT/traces.txt 2>/dev/null | grep -v "libcuda\|libc.so" | sort -u > /tmp/frames.txt
while read fr; do mod=${fr%%(*}; off=${fr#*(}; off=${off%)}; case $off in +*) a=$(addr2line -f -C -i -e $mod ${off#+} 2>/dev/null | tr '\n' ' ');; *) a="";; esac; echo "$fr $a"; done < /tmp/frames.txt > $OUT/frames.txt
echo "phases $((SECONDS-T0)) s"
# memcheck on 4 runs at once of the base case
for i in 1 2 3 4; do ( timeout -k 2 150 compute-sanitizer --tool memcheck --error-exitcode 9 $E ${A% -no_signal_handler} > /tmp/mc$i.out 2>&1; echo "memcheck $i rc $? $(grep -m1 'ERROR SUMMARY' /tmp/mc$i.out)" >> $OUT/runs.txt ) & done
while [ $(jobs -r | wc -l) -gt 0 ] && [ $((SECONDS-T0)) -lt 520 ]; do sleep 2; done
pkill -9 -f compute-sanitizer; pkill -9 -x ex1
for i in 1 2 3 4; do grep -q "Invalid\|Program hit\|Error" /tmp/mc$i.out 2>/dev/null && { grep -m2 -B2 -A14 "Invalid\|Program hit" /tmp/mc$i.out; break; }; done > $OUT/memcheck.txt
cat $OUT/runs.txt; cat $OUT/stuck.txt; cat $OUT/frames.txt | head -40; head -30 $OUT/memcheck.txt
echo "total $((SECONDS-T0)) s"
