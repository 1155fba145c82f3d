#!/bin/bash
# session 11, device call J: the cuSPARSE views made without SeqAIJ's inode scan: GPU tests of the views (mat ex9 CUDA,
# ksp ex1 CUDA), then PETSc's ex45 256^3 CG + GAMG, aijcusparse against modsell (bench/composition.sh ex45, GPU_TIME=1)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
grep -iE " error" /tmp/setup-build.log | head -5
timeout 200 make BUILD=$B -j16 check search='tests_mat-ex9*cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log
timeout 200 make BUILD=$B -j16 check search='tests_ksp-ex1*cuda*' >> $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
echo "tests $((SECONDS-T0)) s"
GPU_TIME=1 timeout 330 bash bench/composition.sh $OUT/comp ex45 > /dev/null 2>&1
cat $OUT/comp/composition.log | cut -c1-260
grep -E "^### |^(PCSetUp|ModSELLView|PCGAMG Opt|MatCUSPARSCopyTo) " $OUT/comp/logs.txt | awk '{print $1, $2, $3, $4}' | head -20
echo "total $((SECONDS-T0)) s"
