#!/bin/bash
# session 18, call b (the same 4-GPU machine, warm after call a): tests/mat/ex1 cuda_lanes_3 alone (call a's one
# failure, a timeout), then bench/scaling.sh halo (2 and 4 processes, five exchanges), then periter with the IPC halo
# and -mat_modsell_overlap 0 as further modsell rows (the call's 600 s ran out during periter's 2-process warm-up).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=; B=$PWD/build-cuda; T0=$SECONDS
(time PETSC_OPTIONS="-use_gpu_aware_mpi 0" timeout 150 make BUILD=$B -j8 TIMEOUT=140 check search='tests_mat-ex1_cuda_lanes_3') 2>&1 | tail -8
export BUILD=$B
STEP_BUDGET=150 RUN_TIMEOUT=60 bash bench/scaling.sh $OUT/scaling halo 2>&1 | tail -30; echo "halo at $((SECONDS-T0))"
ALL_GPUS=1 MINE_VARIANTS="-mat_modsell_ipc_halo;-mat_modsell_overlap 0" MAT_SELL=" " ITS_B=600 STEP_BUDGET=$((560-(SECONDS-T0))) RUN_TIMEOUT=60 bash bench/scaling.sh $OUT/scaling periter 2>&1 | tail -30
echo total $((SECONDS-T0))
