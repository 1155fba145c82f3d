#!/bin/bash
# session 23, call a (one H100): PCGAMG's graph of a MATSEQAIJMODSELL matrix made on the GPU (seq/graph.c, cuda/graph.cu)
# (1) harness: tests/mat/ex10 (the graph against SeqAIJ's, bit for bit; CUDA cases check the GPU path ran), the CUDA
#     GAMG cases of tests/ksp/ex1 (same iterations as aijcusparse, no more copies), bench/vcycle's test;
# (2) compute-sanitizer memcheck, racecheck, synccheck on tests/mat/ex10 (nonsymmetric pattern, empty rows);
# (3) bench/vcycle, FVM 10.4 M tetrahedra, structured numbering, 3 setup rounds per type alternated: setup and per iteration;
# (4) if time is left: the same setup with -mat_modsell_graph_device 0 (SeqAIJ's host graph), 2 rounds.
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
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/tests/mat/ex10 -vec_type cuda -kind edge -n 900 -dense_row 600 -filter -1 -expect_device 1 > $OUT/cs-$tool.txt 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|FAIL' $OUT/cs-$tool.txt | tr '\n' ' ')"
done
echo "sanitizers at $((SECONDS-T0)) s"
left=$((L-(SECONDS-T0))); timeout $left stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 -setup_rounds 3 > $OUT/vcycle.txt 2>&1
echo "== vcycle at $((SECONDS-T0)) s"; grep -E "setup|per iteration|first|memory|levels" $OUT/vcycle.txt | head -20
left=$((L-(SECONDS-T0))); [ $left -gt 80 ] && timeout $left stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 -setup_rounds 2 -rounds 1 -samples 1 -mat_modsell_graph_device 0 > $OUT/vcycle-hostgraph.txt 2>&1
echo "== host graph at $((SECONDS-T0)) s"; grep -E "setup" $OUT/vcycle-hostgraph.txt | head
echo total $((SECONDS-T0))
