#!/bin/bash
# session 22, call a (one H100): bench/vcycle on the FVM problem (10.4 M tetrahedra), CG + GAMG set up on aijcusparse
# and on MATMODSELL in one process, both hierarchies kept: the hierarchies' levels and types, 4 alternated solves per
# type, then every part of the V-cycle (each level's product, smoother, residual, restriction, interpolation, the coarse
# solve, one PCApply) timed with the two types alternated sample by sample. Structured numbering (issue 13's figure:
# 0.98x per iteration in session 21's call c), then random numbering.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/bench/vcycle > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
for perm in 0 1; do # -clear_products (default): the two hierarchies without the products' reuse data (both with it did not fit)
  timeout $((560-(SECONDS-T0))) $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute $perm > $OUT/vcycle-permute$perm.txt 2>&1
  echo "== permute $perm at $((SECONDS-T0)) s"; cat $OUT/vcycle-permute$perm.txt
done
echo total $((SECONDS-T0))
