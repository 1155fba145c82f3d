#!/bin/bash
# session 21, call b (the same H100 as call a): issue 13's figures in one run: bench/composition.sh fvm (FVM 10.4 M
# tetrahedra, structured numbering, CG + GAMG, aijcusparse against modsell, 2 timed rounds after a warm-up), then
# bench/composition.sh ex45it with 2 alternated rounds (PETSc's ex45 at 256^3, CG + GAMG, solver setup and one
# iteration).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
FVM_NUMBERINGS=structured:0 FVM_REPEAT=2 timeout 240 bash bench/composition.sh $OUT/fvm fvm 2>&1 | tail -14
echo "fvm at $((SECONDS-T0)) s"
EX45_ROUNDS=2 timeout $((585-(SECONDS-T0))) bash bench/composition.sh $OUT/ex45 ex45it 2>&1 | tail -8
echo total $((SECONDS-T0))
