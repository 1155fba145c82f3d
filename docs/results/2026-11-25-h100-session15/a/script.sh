#!/bin/bash
# session 15, device call A: every *cuda* harness test at make -j16 with GPU_JOBS=4 (at most four GPU tests at a
# time; config/gpuslot.sh); test processes running past 50 s are listed (matched by their cwd), counts kept
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 >> $OUT/device.txt
( timeout 540 make BUILD=$B -j16 check search='*cuda*' GPU_JOBS=${GJ:-4} > $OUT/check.log 2>&1 ) &
declare -A seen
while [ $((SECONDS-T0)) -lt 560 ]; do
  sleep 10
  echo "$((SECONDS-T0)) s: load $(cut -d' ' -f1 /proc/loadavg) gpu $(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader) procs $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l)" >> $OUT/monitor.txt
  for p in $(ps -eo pid,etimes --no-headers | awk '$2>50 {print $1}'); do
    [ -n "${seen[$p]}" ] && continue
    case "$(readlink /proc/$p/cwd)" in *build-cuda/tests*) ;; *) continue ;; esac
    case "$(tr '\0' ' ' < /proc/$p/cmdline)" in *mpiexec*|*petsc_harness*|*bash*|*make*) continue ;; esac
    seen[$p]=1
    echo "=== pid $p after $((SECONDS-T0)) s: $(readlink /proc/$p/cwd) $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-250) cpu $(awk '{print $14+$15}' /proc/$p/stat)" >> $OUT/stuck.txt
  done
  pgrep -f "make BUILD=$B" > /dev/null || break
done
wait
grep -c . $B/tests/selected $B/tests/selected-gpu
tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head -20
grep -A8 "Wall clock" $OUT/check.log
[ -f $OUT/stuck.txt ] && cat $OUT/stuck.txt | cut -c1-300
tail -5 $OUT/monitor.txt
( cd $B/tests && tar czf $OUT/counts.tgz counts )
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
