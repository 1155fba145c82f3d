#!/bin/bash
# session 23, call e: the graph's copy to the host through the upload's threads and pinned buffers (MSCopyDeviceToHost):
# (1) tests/mat/ex10 (every case) on the GPU; (2) PETSc's ex45 at 256^3 through bench/ex45periter, one round.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }; export BUILD=$B
make BUILD=$B -j8 $B/bin/bench/ex45periter $B/bin/tests/mat/ex10 > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"; nvidia-smi -L; echo "ready at $((SECONDS-T0))"
timeout 60 make -j16 BUILD=$B check search='tests/mat/ex10*' > $OUT/harness.log 2>&1; grep -E "passed|not ok" $OUT/harness.log | head
left=$((440-(SECONDS-T0))); echo "ex45it with $left s left"
EX45_ROUNDS=1 timeout $left bash bench/composition.sh $OUT/ex45 ex45it; echo "== ex45it rc=$? at $((SECONDS-T0)) s"
grep -E "^(ModSELLGraph|ModSELLView|PCGAMG Squ l00|PCSetUp) |^###|^solver setup" $OUT/ex45/logs.txt
echo total $((SECONDS-T0))
