#!/bin/bash
# session 20, call c (one GPU): issue 12's setup + solve with the application's own insertion apart.
# (1) fvmpoisson 10.4 M tetrahedra, structured and random numbering, aijcusparse + jacobi against modsell + bjsmooth
#     (defaults), warm-up round + 2 timed rounds; the new second table leaves out the insertion (matrix creation and
#     MatSetValues of the generated rows).
# (2) PETSc's ex45 at 256^3 through bench/ex45periter, solved to rtol 1e-8: KSPSetUp split by its events (DMCreateMat and
#     ex45's Set values are the application's; MatAssemblyEnd and PCSetUp the solver's), the first (cold) solve and a
#     second one; aijcusparse + jacobi, modsell + bjsmooth, modsell + jacobi, two rounds in alternated order.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1
make BUILD=$B $B/bin/bench/ex45periter $B/bin/examples/fvm/fvmpoisson > $OUT/build.log 2>&1 || tail $OUT/build.log
echo "ready at $((SECONDS-T0))"; nvidia-smi -L; L=$B/lib/libpetscmodsell.so
for p in 0 1; do
  timeout 200 $B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -permute $p -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 2 -dll_append $L > $OUT/fvm-permute$p.txt 2>&1
  echo "fvm permute $p rc $? at $((SECONDS-T0)) s"; grep -E "configuration|\+ (jacobi|bjsmooth)|insertion" $OUT/fvm-permute$p.txt
done
P=$B/bin/bench/ex45periter
run() { # tag options...
  local tag=$1; shift
  timeout -k 5 120 $P -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_type cg -ksp_rtol 1e-8 -periter_its 20000,20000,20001 \
    -dm_vec_type cuda -dll_append $L -log_view "$@" > $OUT/ex45-$tag.log 2>&1
  echo "== ex45 $tag rc $?"; grep -E "^(setup|solver setup|solve)" $OUT/ex45-$tag.log
}
for r in 1 2; do
  if [ $r = 1 ]; then order="aj mb mj"; else order="mj mb aj"; fi
  for c in $order; do
    case $c in
      aj) run aijcusparse-jacobi-r$r -dm_mat_type aijcusparse -pc_type jacobi ;;
      mb) run modsell-bjsmooth-r$r -dm_mat_type modsell -pc_type bjsmooth ;;
      mj) run modsell-jacobi-r$r -dm_mat_type modsell -pc_type jacobi ;;
    esac
  done
done
tar czf $OUT/ex45-logs.tar.gz -C $OUT $(cd $OUT && ls ex45-*.log) && rm $OUT/ex45-*.log
echo total $((SECONDS-T0))
