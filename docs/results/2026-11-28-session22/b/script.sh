#!/bin/bash
# session 22, call b (one H100): bench/vcycle again on the FVM problem (10.4 M tetrahedra, structured numbering), now
# with the first solve after each setup timed apart from the later ones, and each hierarchy's live device memory (the
# stream-ordered pool trimmed before reading it). The first attempt of this call (with -log_view's flamegraph, and the
# random numbering after it) printed nothing in 527 s (its output buffered and lost at the timeout): this one
# line-buffered, without the flamegraph, the structured numbering only.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/bench/vcycle > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout 200 stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 > $OUT/vcycle-permute0.txt 2>&1
echo "== permute 0 at $((SECONDS-T0)) s"; grep -v "^[0-9] " $OUT/vcycle-permute0.txt | head -20
echo total $((SECONDS-T0))
