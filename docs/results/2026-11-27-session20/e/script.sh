#!/bin/bash
# session 20, call e (one GPU): bench/composition.sh ex45it, 2 more rounds (call d's protocol): ex45 256^3 CG + GAMG,
# the solver setup (KSPSetUp less ex45's DMCreateMat and MatSetValues) and one iteration.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
EX45_ROUNDS=2 timeout $((570-(SECONDS-T0))) bash bench/composition.sh $OUT/comp ex45it 2>&1 | tail -4
echo total $((SECONDS-T0))
