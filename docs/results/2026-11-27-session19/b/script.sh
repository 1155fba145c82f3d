#!/bin/bash
# session 19, call b (the same 4-GPU machine as a): ex45 CG + Jacobi per iteration (bench/ex45periter through
# bench/scaling.sh periter) on 1, 2 and 4 GPUs, weak and strong: modsell defaults, modsell -mat_modsell_ipc_halo,
# aijcusparse; every rank sees every GPU (ALL_GPUS=1: CUDA IPC needs it).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; [ -f $B/lib/libpetscmodsell.so ] || make BUILD=$B -j48 lib > /dev/null 2>&1
echo "ready at $((SECONDS-T0))"; nvidia-smi -L | head -4; export BUILD=$B
NPS="1 2 4" ALL_GPUS=1 MINE_VARIANTS="-mat_modsell_ipc_halo" MAT_SELL=" " ITS_B=600 STEP_BUDGET=$((540-(SECONDS-T0))) RUN_TIMEOUT=60 timeout 570 bash bench/scaling.sh $OUT/scaling periter 2>&1 | tail -45
echo total $((SECONDS-T0))
