#!/bin/bash
# session 16, device call F: tests/ksp/ex1's GPU level-PC cases with GAMG's Galerkin products on the host
# (-matptap_backend_cpu): the harness testset three times, and the bjsmooth case (modsell tested) 16 times, 4 at a time
T0=$SECONDS
pkill -9 -x ex1
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for k in 1 2 3 4; do make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs*' > $OUT/check$k.log 2>&1; echo "harness $k: $(tail -1 $OUT/check$k.log)" | tee -a $OUT/runs.txt; done
grep -h "not ok\|# FAILED\|timed out" $OUT/check*.log | head
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -use_gpu_aware_mpi 0 -matptap_backend_cpu -mg_levels_pc_type bjsmooth"
nst=0; s0=$SECONDS
for i in $(seq 1 16); do
  ( timeout -k 2 30 $E $A > /tmp/f$i.out 2>&1 ) &
  if [ $((i % 4)) = 0 ]; then b0=$SECONDS; while [ $(jobs -r | wc -l) -gt 0 ]; do sleep 1
    for p in $(pgrep -x ex1); do et=$(ps -o etimes= -p $p | tr -d ' '); [ -n "$et" ] && [ "$et" -gt 12 ] && { kill -9 $p; nst=$((nst+1)); }; done
    [ $((SECONDS-b0)) -gt 40 ] && break; done; fi
done
nok=$(grep -l "agree with their host references: yes" /tmp/f*.out | wc -l)
echo "bjsmooth, modsell tested, -matptap_backend_cpu: 16 runs, $nok agreed, $nst stuck, $((SECONDS-s0)) s" | tee -a $OUT/runs.txt
echo "total $((SECONDS-T0)) s"
