#!/bin/bash
# session 23, call b (the H100 of call a): the device graph after the fixes of call a (absolute values only when
# scaling; the test's event log on), then GAMG's setup by phases on the FVM problem.
# (1) harness: tests/mat/ex10 (every case), the CUDA GAMG cases of tests/ksp/ex1, bench/vcycle's tests;
# (2) compute-sanitizer memcheck, racecheck, synccheck on tests/mat/ex10 (nonsymmetric pattern, empty rows);
# (3) bench/vcycle, FVM 10.4 M tetrahedra, structured numbering, 4 setup rounds per type alternated, each setup's GAMG
#     phases from the event log (-setup_parts), then the solves (2 rounds).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS; L=560
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }; export BUILD=$B
make BUILD=$B -j8 $B/bin/bench/vcycle $B/bin/tests/mat/ex10 > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout 200 make -j16 BUILD=$B check search='tests/mat/ex10*,tests/ksp/ex1_cuda*gamg*,bench/vcycle*' > $OUT/harness.log 2>&1
grep -E "passed|not ok" $OUT/harness.log | head -20; echo "harness at $((SECONDS-T0)) s"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/tests/mat/ex10 -kind edge -n 900 -dense_row 600 -filter -1 -expect_device 1 > $OUT/cs-$tool.txt 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|FAIL' $OUT/cs-$tool.txt | tr '\n' ' ')"
done
echo "sanitizers at $((SECONDS-T0)) s"
left=$((L-(SECONDS-T0))); timeout $left stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 -setup_rounds 4 -setup_parts -rounds 2 > $OUT/vcycle.txt 2>&1
echo "== vcycle at $((SECONDS-T0)) s"; grep -E "setup|phases|per iteration|first|memory|levels" $OUT/vcycle.txt | head -24
echo total $((SECONDS-T0))
