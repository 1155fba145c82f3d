#!/bin/bash
# session 14, device call I: the *cuda* suite again under the same load; every test process running for over 50 s
# gets host backtraces (cuda-gdb attach) and its threads' kernel wait channels, and running kernels if any
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
( timeout 470 make BUILD=$B -j16 check search='*cuda*' > $OUT/check.log 2>&1 ) &
declare -A seen
while [ $((SECONDS-T0)) -lt 480 ]; do
  sleep 10
  for p in $(ps -eo pid,etimes,args | awk '$2>50 && ($3 ~ /build-cuda\/tests\// || $3 ~ /build-cuda\/src\//) {print $1}'); do
    [ -n "${seen[$p]}" ] && continue; seen[$p]=1
    { echo "=== pid $p after $((SECONDS-T0)) s: $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-300)"
      for t in /proc/$p/task/*; do echo "  task ${t##*/} state $(awk '{print $3}' $t/stat) wchan $(cat $t/wchan 2>/dev/null) cpu $(awk '{print $14+$15}' $t/stat)"; done
      timeout 40 cuda-gdb -p $p -batch -ex "info cuda kernels" -ex "thread apply all bt 20" 2>&1 | grep -vE "^\[New Thread|warning:" | head -120
      nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
    } >> $OUT/stuck.txt 2>&1
  done
  pgrep -f "make BUILD=$B" > /dev/null || break
done
wait
tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
[ -f $OUT/stuck.txt ] && grep -c "^=== pid" $OUT/stuck.txt && grep "^=== pid" $OUT/stuck.txt | cut -c1-250
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
