#!/bin/bash
# session 20, call d (one GPU): make demo (the README's table, now with the table without the insertion), then
# bench/composition.sh ex45it, 2 rounds: PETSc's ex45 at 256^3, CG + GAMG, KSPSetUp split into ex45's own matrix
# creation and insertion and the solver's setup (bench/ex45periter's new lines), one iteration.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout 200 make BUILD=$B demo > $OUT/demo.txt 2>&1; echo "demo rc $? at $((SECONDS-T0)) s"; grep -vE "^(mpicc|nvcc|make)" $OUT/demo.txt | tail -22
EX45_ROUNDS=2 timeout $((570-(SECONDS-T0))) bash bench/composition.sh $OUT/comp ex45it 2>&1 | tail -6
echo total $((SECONDS-T0))
