#!/bin/bash
# session 21, call c (one H100): where modsell's GAMG setup loses on an H100 (call b: solver setup 0.90x / 0.92x):
# PETSc's ex45 at 256^3 through bench/ex45periter with -log_view_gpu_time (events timed), aijcusparse then modsell;
# then the FVM problem's CG + GAMG (bench/composition.sh fvm, one timed round after a warm-up).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/bench/ex45periter > /dev/null 2>&1
echo "ready at $((SECONDS-T0))"; nvidia-smi -L; L=$B/lib/libpetscmodsell.so; mkdir -p $OUT/ex45
for t in aijcusparse modsell; do
  timeout -k 5 100 $B/bin/bench/ex45periter -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_type cg -pc_type gamg -ksp_rtol 1e-30 -periter_its 2,5,20 \
    -dm_vec_type cuda -dm_mat_type $t -dll_append $L -log_view -log_view_gpu_time > $OUT/ex45/gamg-$t.log 2>&1
  echo "== $t at $((SECONDS-T0)) s"; grep -E "^(setup|solver setup|per iteration)" $OUT/ex45/gamg-$t.log
done
FVM_NUMBERINGS=structured:0 FVM_REPEAT=1 timeout $((575-(SECONDS-T0))) bash bench/composition.sh $OUT/fvm fvm 2>&1 | tail -14
echo total $((SECONDS-T0))
