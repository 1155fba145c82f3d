#!/bin/bash
# session 23, call f (the final code, 92fe60e's tree): issue 13's GAMG figures in one run: bench/vcycle on the FVM problem
# (10.4 M tetrahedra, structured numbering, 2 setup rounds per type alternated with the GAMG phases, 2 timed solves),
# then PETSc's ex45 at 256^3 through bench/ex45periter (one round).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }; export BUILD=$B
make BUILD=$B -j8 $B/bin/bench/ex45periter $B/bin/bench/vcycle > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"; nvidia-smi -L; echo "ready at $((SECONDS-T0))"
timeout 110 stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 -setup_rounds 2 -setup_parts -rounds 2 -samples 3 > $OUT/vcycle.txt 2>&1
echo "== vcycle rc=$? at $((SECONDS-T0)) s"; grep -E "setup|phases|per iteration|first|memory|levels" $OUT/vcycle.txt | head -16
left=$((265-(SECONDS-T0))); echo "ex45it with $left s left"
EX45_ROUNDS=1 timeout $left bash bench/composition.sh $OUT/ex45 ex45it; echo "== ex45it rc=$? at $((SECONDS-T0)) s"
echo total $((SECONDS-T0))
