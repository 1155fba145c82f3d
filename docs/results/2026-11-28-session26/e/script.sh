#!/bin/bash
# session 26, call e: the review's change (the layout's device copy of the bricks moved into the apply's buffer instead
# of a second upload): the CUDA brbilu harness cases, compute-sanitizer memcheck on the buffer path (24^3, 4x4x4
# bricks), -info of the buffer's setup, one magnetron bench (CG, default factors) for the application's time.
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
timeout 110 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check-brbilu.log 2>&1; echo "brbilu check rc=$? at $((SECONDS-T0)) s"; tail -1 $OUT/check-brbilu.log; grep "^not ok" $B/tests/test__tap.log | head
EX1=$B/bin/src/ksp/pc/impls/brbilu/tests/ex1
timeout 40 compute-sanitizer --tool memcheck $EX1 -test compare -compare_tol 1e-5 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -pc_brbilu_blocks 4,4,4 2>&1 | grep -E "ERROR SUMMARY|^[^=]" | head -4
$EX1 -test compare -compare_tol 1e-5 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -pc_brbilu_blocks 2,2,2 -info :pc 2>&1 | grep -E "through sperm|^[^[]" | head -4
timeout 60 $EX1 -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijmodsell -ksp_type cg -pc_type brbilu 2>&1 | grep "^bench"
echo total $((SECONDS-T0))
