#!/bin/bash
# session 17, call d (4 GPUs): tests/mat/ex9's CUDA cases with R A R^T against host copies; then ex45 CG + Jacobi per
# iteration on 1 and 4 GPUs (bench/scaling.sh periter, NPS="1 4", modsell and aijcusparse, 100 and 600 iterations).
T0=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cache=$HOME/.cache/petsc-modsell; export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=
mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
B=$PWD/build-cuda
make BUILD=$B -j16 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "lib built at $((SECONDS-T0)) s"
PETSC_OPTIONS="-use_gpu_aware_mpi 0" timeout 120 make BUILD=$B -j16 check search='tests_mat-ex9_cuda*' > $OUT/check.log 2>&1
echo "ex9 harness rc $? at $((SECONDS-T0)) s: $(grep -E 'passed' $OUT/check.log | tail -1)"; grep -A6 'not ok' $OUT/check.log | head -30
export BUILD=$B
NPS="1 4" MAT_SELL=" " ITS_B=600 STEP_BUDGET=$((500 - (SECONDS-T0))) RUN_TIMEOUT=60 bash bench/scaling.sh $OUT/scaling periter 2>&1 | tail -25
echo "total $((SECONDS-T0)) s"
