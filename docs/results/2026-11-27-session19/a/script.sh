#!/bin/bash
# session 19, call a (4 GPUs of one host): the whole CUDA suite with the CUDA IPC halo on for every multi-process
# test (PETSC_OPTIONS=-mat_modsell_ipc_halo), spread over the 4 GPUs (GPU_DEVICES, config/gpuslot.sh), GPU_JOBS = 3 x GPUs.
T0=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cache=$HOME/.cache/petsc-modsell; export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
B=$PWD/build-cuda
make BUILD=$B -j48 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "lib built at $((SECONDS-T0)) s"
ng=$(nvidia-smi -L | wc -l); devs=$(seq -s ' ' 0 $((ng-1)))
PETSC_OPTIONS="-use_gpu_aware_mpi 0 -mat_modsell_ipc_halo" timeout -k 5 $((580 - (SECONDS-T0))) make BUILD=$B -j40 GPU_JOBS=$((3*ng)) GPU_DEVICES="$devs" check search='*cuda*' > $OUT/check.log 2>&1
echo "harness rc $? at $((SECONDS-T0)) s: $(grep -E 'passed|failed' $OUT/check.log | tail -2 | tr '\n' ' ')"
grep -c '^ *ok' $OUT/check.log; grep -c 'not ok' $OUT/check.log; grep -A10 'not ok' $OUT/check.log | head -120
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
