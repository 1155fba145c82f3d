#!/bin/bash
# session 16, device call G (after F: nsize 3 with the option segfaulted; one-process cases only): tests/ksp/ex1's GPU level-PC cases with GAMG's Galerkin products on the host
# (-matptap_backend_cpu): the harness testset three times, and the bjsmooth case (modsell tested) 16 times, 4 at a time
T0=$SECONDS
pkill -9 -x ex1
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
for k in 1 2 3 4; do make BUILD=$B -j16 check search='tests_ksp-ex1_cuda_fvm_level_pcs*' > $OUT/check$k.log 2>&1; echo "harness $k: $(tail -1 $OUT/check$k.log)" | tee -a $OUT/runs.txt; done
grep -h "not ok\|# FAILED\|timed out" $OUT/check*.log | head
echo "total $((SECONDS-T0)) s"
