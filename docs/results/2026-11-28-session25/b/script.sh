#!/bin/bash
# session 25, call b: the shared layer's device CSR (a MATMODSELL operator's image expanded on the GPU) and the grid
# ordering's host perm on demand (HEAD 285123e) against session 24's HEAD 7569ef5 (.carry/old.tar.gz, built beside
# it): the CUDA tests of brbilu and neumann, which source the PC's setup used (-info), compute-sanitizer on the new
# kernel, then PETSc's ex45 at 256^3 (CG + brbilu single on a MATMODSELL operator, old and new alternated, double
# factors, CG + Jacobi on sellcuda and aijcusparse and BiCGSTAB + ILU(0) cuSPARSE in the same run).
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
mkdir -p /tmp/old && tar xzf .carry/old.tar.gz -C /tmp/old
(cd /tmp/old && make BUILD=/tmp/old/build -j8 lib > /tmp/old-build.log 2>&1; echo "old build rc=$?" >> /tmp/old-build.log) &
mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
timeout 110 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check-brbilu.log 2>&1; echo "brbilu check rc=$? at $((SECONDS-T0)) s"; tail -1 $OUT/check-brbilu.log; grep "^not ok" $B/tests/test__tap.log | head
timeout 100 make BUILD=$B -j12 check search='src_ksp_pc_impls_neumann_tests-ex1_cuda*' > $OUT/check-neumann.log 2>&1; echo "neumann check rc=$? at $((SECONDS-T0)) s"; tail -1 $OUT/check-neumann.log; grep "^not ok" $B/tests/test__tap.log | head
EX1=$B/bin/src/ksp/pc/impls/brbilu/tests/ex1
$EX1 -test compare -compare_tol 1e-11 -pc_brbilu_factor_precision double -da_grid_x 20 -da_grid_y 18 -da_grid_z 16 -pc_brbilu_blocks 4,3,2 -dirichlet_rows -gpu_mat_type aijmodsell -operator_mult -info 2>&1 | grep -E "diagonal block's CSR|compare" | head -4
for tool in memcheck racecheck; do
  timeout 30 compute-sanitizer --tool $tool $EX1 -test compare -compare_tol 1e-11 -pc_brbilu_factor_precision double -da_grid_x 20 -da_grid_y 18 -da_grid_z 16 -pc_brbilu_blocks 4,3,2 -dirichlet_rows -gpu_mat_type aijmodsell -operator_mult 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | head -2
  echo "$tool at $((SECONDS-T0)) s"
done
wait; tail -1 /tmp/old-build.log
mkdir -p $OUT/ex45
e45() { # TAG LIB MAT options
  local tag=$1 lib=$2 t=$3; shift 3
  local f=$OUT/ex45/$tag.log
  timeout 60 $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append $lib/lib/libpetscmodsell.so "$@" -ksp_converged_reason -ksp_view -log_view -log_view_gpu_time > $f 2>&1
  echo "ex45 $tag: its $(grep -m1 -oE 'iterations [0-9]+' $f | awk '{print $2}') PCSetUp $(awk '/^PCSetUp /{print $4; exit}' $f) KSPSolve $(awk '/^KSPSolve /{print $4; exit}' $f) ModSELLUpload $(awk '/^ModSELLUpload /{print $4; exit}' $f) PCApply $(awk '/^PCApply /{print $2, $4; exit}' $f) | $(grep -m1 'setup time' $f | sed 's/^ *//') [$((SECONDS-T0)) s]"
}
BRB="-ksp_type cg -pc_type brbilu"
e45 warmup $B aijcusparse -ksp_type cg -pc_type jacobi > /dev/null
e45 brb-old-1 /tmp/old/build aijmodsell $BRB -pc_brbilu_factor_precision single
e45 brb-new-1 $B aijmodsell $BRB -pc_brbilu_factor_precision single
e45 jacobi-sellcuda $B sellcuda -ksp_type cg -pc_type jacobi
e45 brb-new-double $B aijmodsell $BRB -pc_brbilu_factor_precision double
e45 jacobi-aijcusparse $B aijcusparse -ksp_type cg -pc_type jacobi
[ $((SECONDS-T0)) -lt 450 ] && e45 brb-new-2 $B aijmodsell $BRB -pc_brbilu_factor_precision single
[ $((SECONDS-T0)) -lt 470 ] && e45 ilu0-cusparse $B aijcusparse -ksp_type bcgs -pc_type ilu -pc_factor_mat_solver_type cusparse
[ $((SECONDS-T0)) -lt 500 ] && e45 brb-old-2 /tmp/old/build aijmodsell $BRB -pc_brbilu_factor_precision single
[ $((SECONDS-T0)) -lt 530 ] && e45 jacobi-sellcuda-2 $B sellcuda -ksp_type cg -pc_type jacobi
echo total $((SECONDS-T0))
