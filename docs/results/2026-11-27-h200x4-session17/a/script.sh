#!/bin/bash
# session 17, call a: the first run on 4 GPUs of one host. Build; bench/scaling.sh halo (2 and 4 processes: PETSc's
# scatter, the matrix's pinned buffers, no overlap, mpiaijcusparse) and periter (ex45 CG + Jacobi per iteration,
# weak 256^3 per GPU and strong 256^3, on 1, 2, 4 GPUs, modsell / aijcusparse / sellcuda in the same run).
T0=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cache=$HOME/.cache/petsc-modsell; export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=
mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
nvidia-smi topo -m > $OUT/topo.txt 2>&1
B=$PWD/build-cuda
make BUILD=$B -j16 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "lib built at $((SECONDS-T0)) s"
export BUILD=$B
STEP_BUDGET=120 RUN_TIMEOUT=60 bash bench/scaling.sh $OUT/scaling halo
echo "halo done at $((SECONDS-T0)) s"
STEP_BUDGET=$((540 - (SECONDS-T0))) RUN_TIMEOUT=60 bash bench/scaling.sh $OUT/scaling periter
echo "total $((SECONDS-T0)) s"
