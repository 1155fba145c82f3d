#!/bin/bash
# session 22, call b (one H100): bench/vcycle again on the FVM problem (10.4 M tetrahedra), now with the first solve
# after each setup timed apart from the later ones and each in a log stage of its own (-log_view flamegraph: what the
# first solve does beyond its iterations, per type), and each hierarchy's live device memory (the stream-ordered pool
# trimmed before reading it). Structured numbering with the flamegraph, then random numbering without it.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/bench/vcycle > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout $((560-(SECONDS-T0))) $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 -log_view :$OUT/fg-permute0.txt:ascii_flamegraph > $OUT/vcycle-permute0.txt 2>&1
echo "== permute 0 at $((SECONDS-T0)) s"; grep -v "^[0-9] " $OUT/vcycle-permute0.txt | head -20
timeout $((560-(SECONDS-T0))) $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 1 > $OUT/vcycle-permute1.txt 2>&1
echo "== permute 1 at $((SECONDS-T0)) s"; grep -v "^[0-9] " $OUT/vcycle-permute1.txt | head -20
echo total $((SECONDS-T0))
