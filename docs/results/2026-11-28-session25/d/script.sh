#!/bin/bash
# session 25, call d: HEAD (the shared layer's device CSR, the grid perm on demand, the backward scatter 4 rows a lane)
# at PETSc's ex45 256^3 in one run: CG + brbilu single (twice) and double on a MATMODSELL operator, CG + Jacobi on
# sellcuda (twice) and aijcusparse, BiCGSTAB + ILU(0) cuSPARSE; brbilu single also with -mat_modsell_upload_threads 16
# and 4 (the operator's upload, default 8); the CUDA brbilu tests first.
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
timeout 100 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check-brbilu.log 2>&1; echo "brbilu check rc=$? at $((SECONDS-T0)) s"; tail -1 $OUT/check-brbilu.log; grep "^not ok" $B/tests/test__tap.log | head
mkdir -p $OUT/ex45
e45() { # TAG MAT options
  local tag=$1 t=$2; shift 2
  local f=$OUT/ex45/$tag.log
  timeout 60 $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append $B/lib/libpetscmodsell.so "$@" -ksp_converged_reason -ksp_view -log_view -log_view_gpu_time > $f 2>&1
  echo "ex45 $tag: its $(grep -m1 -oE 'iterations [0-9]+' $f | awk '{print $2}') PCSetUp $(awk '/^PCSetUp /{print $4; exit}' $f) KSPSolve $(awk '/^KSPSolve /{print $4; exit}' $f) ModSELLUpload $(awk '/^ModSELLUpload /{print $4; exit}' $f) PCApply $(awk '/^PCApply /{print $2, $4; exit}' $f) | $(grep -m1 -oE 'device memory per unknown: [0-9.]+ bytes' $f) [$((SECONDS-T0)) s]"
}
BRB="-ksp_type cg -pc_type brbilu"
e45 warmup aijcusparse -ksp_type cg -pc_type jacobi > /dev/null
e45 brb-single-1 aijmodsell $BRB -pc_brbilu_factor_precision single
e45 jacobi-sellcuda-1 sellcuda -ksp_type cg -pc_type jacobi
e45 brb-single-ut16 aijmodsell $BRB -pc_brbilu_factor_precision single -mat_modsell_upload_threads 16
e45 jacobi-aijcusparse aijcusparse -ksp_type cg -pc_type jacobi
e45 brb-double aijmodsell $BRB -pc_brbilu_factor_precision double
e45 ilu0-cusparse aijcusparse -ksp_type bcgs -pc_type ilu -pc_factor_mat_solver_type cusparse
[ $((SECONDS-T0)) -lt 480 ] && e45 brb-single-2 aijmodsell $BRB -pc_brbilu_factor_precision single
[ $((SECONDS-T0)) -lt 505 ] && e45 jacobi-sellcuda-2 sellcuda -ksp_type cg -pc_type jacobi
[ $((SECONDS-T0)) -lt 530 ] && e45 brb-single-ut4 aijmodsell $BRB -pc_brbilu_factor_precision single -mat_modsell_upload_threads 4
echo total $((SECONDS-T0))
