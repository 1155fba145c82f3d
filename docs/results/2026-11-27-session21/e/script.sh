#!/bin/bash
# session 21, call e (one H100): (1) the CUDA cases of tests/mat/ex2 (MatDiagonalScale() in one pass, 53b47ad);
# (2) the FVM problem's CG + GAMG (10.4 M tetrahedra, structured numbering), 2 timed rounds, every event's stack with
# its GPU time per configuration (-log_view ascii_flamegraph -log_view_gpu_time): where the V-cycle takes back the
# finest level's faster product (call c: 0.98x per iteration).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/examples/fvm/fvmpoisson > /dev/null 2>&1
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout 100 make -j16 BUILD=$B check search='tests/mat/ex2_cuda*' > $OUT/harness.log 2>&1; grep -E "^# (success|failed)|not ok" $OUT/harness.log | head
echo "harness at $((SECONDS-T0)) s"
timeout $((560-(SECONDS-T0))) $B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -permute 0 -configs aijcusparse:gamg,modsell:gamg -ref aijcusparse:gamg -repeat 2 \
  -log_view :$OUT/fg-fvm.txt:ascii_flamegraph -log_view_gpu_time > $OUT/fvm.txt 2>&1
grep -E "configuration|gamg" $OUT/fvm.txt | head -12
echo total $((SECONDS-T0))
