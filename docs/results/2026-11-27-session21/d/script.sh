#!/bin/bash
# session 21, call d (one H100): PETSc's ex45 at 256^3, CG + GAMG, every event's stack (-log_view ascii_flamegraph,
# events timed on the GPU), aijcusparse then modsell: where modsell's setup and V-cycle differ (call c: MatScale
# 0.418 s against 0.007 s, PCApply 0.457 s against 0.441 s though the finest MatMult is faster).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/bench/ex45periter > /dev/null 2>&1
echo "ready at $((SECONDS-T0))"; nvidia-smi -L; L=$B/lib/libpetscmodsell.so
for t in aijcusparse modsell; do
  timeout -k 5 110 $B/bin/bench/ex45periter -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_type cg -pc_type gamg -ksp_rtol 1e-30 -periter_its 2,5,20 \
    -dm_vec_type cuda -dm_mat_type $t -dll_append $L -log_view :$OUT/fg-$t.txt:ascii_flamegraph -log_view_gpu_time > $OUT/gamg-$t.log 2>&1
  echo "== $t at $((SECONDS-T0)) s"; grep -E "^(setup|solver setup|per iteration)" $OUT/gamg-$t.log
done
echo total $((SECONDS-T0))
