#!/bin/bash
# session 20, call g (the same one-GPU machine as f, run as one command line): bench/composition.sh fvm with 4 timed
# rounds: FVM 10.4 M tetrahedra, structured numbering, CG + GAMG, aijcusparse against modsell.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_DIR=$HOME/.cache/petsc-modsell/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"
[ -d $PETSC_DIR ] || { mkdir -p $HOME/.cache/petsc-modsell && tar xJf .carry/petsc-cuda.tar.xz -C $HOME/.cache/petsc-modsell; }
make BUILD=$PWD/build-cuda -j32 lib > /dev/null 2>&1
BUILD=$PWD/build-cuda FVM_NUMBERINGS=structured:0 FVM_REPEAT=4 timeout 400 bash bench/composition.sh $OUT/comp fvm 2>&1 | tail -14
