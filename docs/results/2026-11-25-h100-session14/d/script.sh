#!/bin/bash
# session 14, device call D: does tests/ksp/ex1 cuda_fvm_gamg_neumann (one process) hang or crawl? 24 runs, 8 at a time,
# host backtraces of any still running after 20 s; then bench/gamglevels at 256^3 with the direct conversion
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/tests/tests/ksp/ex1 $B/bin/bench/gamglevels > $OUT/build.log 2>&1 || { make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_gamg_neumann*' >> $OUT/build.log 2>&1; make BUILD=$B $B/bin/bench/gamglevels >> $OUT/build.log 2>&1; }
which gdb cuda-gdb 2>/dev/null
E=$B/tests/tests/ksp/ex1
H="-ref_mat_type aijcusparse -check_copies -use_gpu_aware_mpi 0 -problem fvm -n 8 -cell tet -ksp_type cg -ksp_rtol 1e-8 -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type neumann -mg_levels_pc_neumann_warn 0"
mkdir -p $OUT/rep
for batch in 1 2 3; do
  pids=""
  for k in 1 2 3 4 5 6 7 8; do
    ( S=$(date +%s.%N); timeout 45 $E $H > $OUT/rep/b$batch-$k.log 2>&1; rc=$?; echo "rc $rc $(echo "$(date +%s.%N) - $S" | bc) s" >> $OUT/rep/b$batch-$k.log ) &
    pids="$pids $!"
  done
  sleep 20
  for p in $(pgrep -f "tests/ksp/ex1 -ref_mat_type"); do
    echo "== still running after 20 s: pid $p" >> $OUT/rep/stuck.txt
    timeout 20 gdb -p $p -batch -ex "thread apply all bt 25" >> $OUT/rep/stuck.txt 2>&1
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv >> $OUT/rep/stuck.txt
  done
  wait
done
grep -h "^rc" $OUT/rep/b*.log | sort | uniq -c | sort -rn | head -30
grep -L "iterations agree: yes" $OUT/rep/b*.log | head
[ -f $OUT/rep/stuck.txt ] && grep -c "still running" $OUT/rep/stuck.txt && grep -E "^#[0-9]+ " $OUT/rep/stuck.txt | awk '{$1=""; $2=""; print}' | sort | uniq -c | sort -rn | head -40
echo "repro $((SECONDS-T0)) s"
G=$B/bin/bench/gamglevels
O="-reps 20 -samples 5 -rounds 2 -swap_finest modsell -min_rows 1000000000 -ksp_max_it 100"
echo "== lap7 (jump 1) 256^3"; timeout 150 $G -problem jump -jump 1 -dim 3 -n 256 $O 2>&1 | tee $OUT/gl-lap256.txt
echo "total $((SECONDS-T0)) s"
cd $OUT && tar czf rep.tgz rep && rm -rf rep
