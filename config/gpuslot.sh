#!/bin/bash
# config/gpuslot.sh PREFIX N COMMAND [ARGS...]: runs COMMAND while holding one of N slots (flock on the files
# PREFIX0 ... PREFIX<N-1>), so that at most N such commands run at once, whatever make's -j.
#
# make check runs the tests that use the GPU through it (GPU_JOBS, config/test.mk): processes sharing one GPU
# without MPS time-slice it, and each waits for its kernels by spinning on a core, so that a test that takes 2 s alone
# took over 60 s among the ~40 GPU processes of `make -j16 check` (docs/reliability.md). N <= 0 or no flock: no limit.
# MS_GPU_DEVICES (make check GPU_DEVICES='0 1 2 3', or 0,1,2,3): a machine with several GPUs; slot i's command sees only the
# device number i mod (their count) through CUDA_VISIBLE_DEVICES, so that N slots share the GPUs evenly. Unset or
# empty: the command sees every device, as before.
prefix=$1 n=$2
shift 2
if [ "${n:-0}" -le 0 ] 2> /dev/null || ! command -v flock > /dev/null; then exec "$@"; fi
while :; do
  for ((i = 0; i < n; i++)); do
    exec 8> "$prefix$i"
    if flock -n 8; then
      if [ -n "${MS_GPU_DEVICES// /}" ]; then
        read -r -a devs <<< "${MS_GPU_DEVICES//,/ }"
        export CUDA_VISIBLE_DEVICES=${devs[i % ${#devs[@]}]}
      fi
      "$@" 8>&-          # the command does not inherit the lock: it ends with this shell
      exit $?
    fi
  done
  exec 8>&-
  sleep 0.3
done
