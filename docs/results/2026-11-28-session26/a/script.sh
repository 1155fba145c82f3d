#!/bin/bash
# session 26, call a (HEAD 87fa70d): the CUDA harness cases of brbilu (the new cuda_modsell_image_source among them),
# then bench/brbilu.sh's magnetron step (239 x 239 x 119, every configuration, GAMG included); call b runs its ex45 step
# on the same machine kept warm.
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm &
timeout 100 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check-brbilu.log 2>&1; echo "brbilu check rc=$? at $((SECONDS-T0)) s"; tail -1 $OUT/check-brbilu.log; grep "^not ok" $B/tests/test__tap.log | head; grep -c "^ok" $B/tests/test__tap.log
grep -A3 "cuda_modsell_image_source" $B/tests/test__tap.log | head -4
wait
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,clocks.max.mem --format=csv,noheader
timeout $((570 - (SECONDS - T0))) bench/brbilu.sh $OUT/bench magnetron
echo "bench rc=$? at $((SECONDS-T0)) s"
tar czf $OUT/magnetron-runs.tar.gz -C $OUT/bench runs && rm -rf $OUT/bench/runs
