#!/bin/bash
# session 23, call c: where the graph phase of a MATMODSELL GAMG setup goes (call b: 2.2-2.6 s against aijcusparse's
# 3.0-3.5 s, where the device graph alone was expected near 0.5 s): bench/vcycle on the FVM problem (10.4 M
# tetrahedra), 2 setup rounds per type, -log_view and -info for the graph's events and messages.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }; export BUILD=$B
make BUILD=$B -j8 $B/bin/bench/vcycle > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"; nvidia-smi -L; echo "ready at $((SECONDS-T0))"
timeout 240 $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -setup_rounds 2 -rounds 1 -samples 1 -reps 1 -setup_parts -log_view -info :mat > $OUT/v.txt 2>&1; echo rc=$?
grep -E "setup round|phases|graph made|^--- Event Stage|^MatCreateGraph|^ModSELLGraph|^ModSELLView|^MatCUSPARSCopy|^ PCGAMGCreateG|^MatTranspose|^MatAXPY|^MatConvert" $OUT/v.txt | head -70
gzip $OUT/v.txt; echo total $((SECONDS-T0))
