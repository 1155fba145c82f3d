#!/bin/bash
# session 26, call c: HEAD 87fa70d + ex1 -test bench's device memory kept by PCSetUp() (cudaMemGetInfo() after minus
# before, every configuration: cuSPARSE's ILU(0), GAMG and brbilu measured the same way); bench/brbilu.sh's magnetron
# step again (a second round of call a's timings on another machine).
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
timeout $((570 - (SECONDS - T0))) bench/brbilu.sh $OUT/bench magnetron
echo "bench rc=$? at $((SECONDS-T0)) s"
tar czf $OUT/magnetron-runs.tar.gz -C $OUT/bench runs && rm -rf $OUT/bench/runs
