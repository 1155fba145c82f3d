#!/bin/bash
# session 20, call f (one GPU): the harness's CUDA cases of the two programs changed this session (bench/ex45periter,
# examples/fvm/fvmpoisson), then bench/composition.sh fvm: FVM 10.4 M tetrahedra, structured numbering, CG + GAMG,
# aijcusparse against modsell (warm-up round, 2 timed rounds, setup and per iteration from fvmpoisson's tables).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout 150 make -j16 BUILD=$B check search='bench_ex45periter*,examples_fvm*' > $OUT/harness.log 2>&1
echo "harness rc $? at $((SECONDS-T0)) s"; grep -E "^ *not ok|passed|failed" $OUT/harness.log | tail -5
FVM_NUMBERINGS=structured:0 FVM_REPEAT=${FVM_REPEAT:-2} timeout $((560-(SECONDS-T0))) bash bench/composition.sh $OUT/comp fvm 2>&1 | tail -14
echo total $((SECONDS-T0))
