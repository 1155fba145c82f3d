#!/bin/bash
# session 25, call a: the brbilu substitution with the other colours' values prefetched into L2 before a block's walk
# and the grid ordering's host perm made on demand (working tree) against session 24's HEAD 7569ef5
# (.carry/old.tar.gz, built beside it): the CUDA brbilu tests, A/B of one application on the magnetron (ex1 -test
# bench, CG, symmetric variant, single factors), then PETSc's ex45 at 256^3 (CG + brbilu single on a MATMODSELL
# operator, old and new alternated, with CG + Jacobi on sellcuda and aijcusparse and BiCGSTAB + ILU(0) cuSPARSE in
# the same run), compute-sanitizer on two compare cases at the end if time is left.
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
mkdir -p /tmp/old && tar xzf .carry/old.tar.gz -C /tmp/old
(cd /tmp/old && make BUILD=/tmp/old/build -j12 lib > /tmp/old-build.log 2>&1 && make BUILD=/tmp/old/build /tmp/old/build/bin/src/ksp/pc/impls/brbilu/tests/ex1 >> /tmp/old-build.log 2>&1; echo "old build rc=$?" >> /tmp/old-build.log) &
mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
timeout 90 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check.log 2>&1; echo "check rc=$? at $((SECONDS-T0)) s"; tail -2 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
wait; tail -1 /tmp/old-build.log; echo "old built at $((SECONDS-T0)) s"
for r in 1 2; do for v in old new; do
  if [ $v = old ]; then L=/tmp/old/build; else L=$B; fi
  timeout 40 $L/bin/src/ksp/pc/impls/brbilu/tests/ex1 -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/mag-$v-$r.log 2>&1
  echo "magnetron $v round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-$v-$r.log | tr '\n' ' ' | cut -c1-300) [$((SECONDS-T0)) s]"
done; done
mkdir -p $OUT/ex45
e45() { # TAG LIB MAT options
  local tag=$1 lib=$2 t=$3; shift 3
  local f=$OUT/ex45/$tag.log
  timeout 60 $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append $lib/lib/libpetscmodsell.so "$@" -ksp_converged_reason -ksp_view -log_view -log_view_gpu_time > $f 2>&1
  echo "ex45 $tag: its $(grep -m1 -oE 'iterations [0-9]+' $f | awk '{print $2}') PCSetUp $(awk '/^PCSetUp /{print $4; exit}' $f) KSPSolve $(awk '/^KSPSolve /{print $4; exit}' $f) ModSELLUpload $(awk '/^ModSELLUpload /{print $4; exit}' $f) PCApply $(awk '/^PCApply /{print $2, $4; exit}' $f) | $(grep -m1 'setup time' $f | sed 's/^ *//') [$((SECONDS-T0)) s]"
}
BRB="-ksp_type cg -pc_type brbilu -pc_brbilu_factor_precision single"
e45 warmup $B aijcusparse -ksp_type cg -pc_type jacobi > /dev/null
e45 brb-old-1 /tmp/old/build aijmodsell $BRB
e45 brb-new-1 $B aijmodsell $BRB
e45 jacobi-sellcuda $B sellcuda -ksp_type cg -pc_type jacobi
e45 jacobi-aijcusparse $B aijcusparse -ksp_type cg -pc_type jacobi
[ $((SECONDS-T0)) -lt 420 ] && e45 brb-new-2 $B aijmodsell $BRB
[ $((SECONDS-T0)) -lt 440 ] && e45 brb-old-2 /tmp/old/build aijmodsell $BRB
[ $((SECONDS-T0)) -lt 460 ] && e45 ilu0-cusparse $B aijcusparse -ksp_type bcgs -pc_type ilu -pc_factor_mat_solver_type cusparse
EX1=$B/bin/src/ksp/pc/impls/brbilu/tests/ex1
for tool in memcheck racecheck synccheck; do
  [ $((SECONDS-T0)) -gt 520 ] && break
  timeout 25 compute-sanitizer --tool $tool $EX1 -test compare -compare_tol 1e-5 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -pc_brbilu_blocks 2,2,2 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | head -2
  echo "$tool at $((SECONDS-T0)) s"
done
echo total $((SECONDS-T0))
