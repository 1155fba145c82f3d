#!/bin/bash
# session 16, device call D: does the contents of fresh cudaMalloc memory decide the reduce_by_key hang? The no-modsell
# variant (-test_mat_type aijcusparse) 12 times each: as is, every cudaMalloc'd block zeroed, filled with 0xff.
# Then compute-sanitizer initcheck on two runs.
T0=$SECONDS
pkill -9 -x ex1; pkill -9 -f compute-sanitizer
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
[ -x $B/tests/tests/ksp/ex1 ] || make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs_neumann' > $OUT/build.log 2>&1
gcc -shared -fPIC -O1 -o /tmp/libfill.so .carry/fillpreload.c -ldl || echo "no fill preload"
E=$B/tests/tests/ksp/ex1
ldd $PETSC_DIR/lib/libpetsc.so | grep -E "cudart|cusparse" | tee -a $OUT/runs.txt
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -test_mat_type aijcusparse -use_gpu_aware_mpi 0 -no_signal_handler"
batch() { # name runs fill pctype
  local name=$1 runs=$2 fill=$3 pct=$4 s0=$SECONDS nst=0 nok=0 i
  for i in $(seq 1 $runs); do
    ( if [ "$fill" = none ]; then timeout -k 2 30 $E $A -mg_levels_pc_type $pct > /tmp/$name$i.out 2>&1
      else MS_FILL=$fill LD_PRELOAD=/tmp/libfill.so timeout -k 2 30 $E $A -mg_levels_pc_type $pct > /tmp/$name$i.out 2>&1; fi ) &
    if [ $((i % 4)) = 0 ] || [ $i = $runs ]; then
      local b0=$SECONDS
      while [ $(jobs -r | wc -l) -gt 0 ]; do
        sleep 1
        for p in $(pgrep -x ex1); do et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 12 ] && { kill -9 $p; nst=$((nst+1)); }; done
        [ $((SECONDS-b0)) -gt 40 ] && { pkill -9 -x ex1; break; }
      done
    fi
  done
  sleep 1; pkill -9 -x ex1
  nok=$(grep -l "agree with their host references: yes" /tmp/$name*.out 2>/dev/null | wc -l)
  echo "$name (fill $fill, levels $pct): $runs runs, $nok agreed, $nst stuck (killed), $((SECONDS-s0)) s" | tee -a $OUT/runs.txt
}
batch ctl 12 none bjsmooth
batch zero 12 0 bjsmooth
batch ff 12 255 bjsmooth
batch zero2 12 0 bjsmooth
batch ffjac 8 255 jacobi
echo "batches $((SECONDS-T0)) s"
for i in 1 2; do ( timeout -k 2 200 compute-sanitizer --tool initcheck $E $A -mg_levels_pc_type bjsmooth > /tmp/ic$i.out 2>&1; echo "initcheck $i rc $? $(grep -m1 'ERROR SUMMARY' /tmp/ic$i.out)" >> $OUT/runs.txt ) & done
while [ $(jobs -r | wc -l) -gt 0 ] && [ $((SECONDS-T0)) -lt 540 ]; do sleep 2; done
pkill -9 -f compute-sanitizer; pkill -9 -x ex1
for i in 1 2; do grep -m4 -A8 "Uninitialized" /tmp/ic$i.out; done | head -80 > $OUT/initcheck.txt
cat $OUT/runs.txt; head -60 $OUT/initcheck.txt
echo "total $((SECONDS-T0)) s"
