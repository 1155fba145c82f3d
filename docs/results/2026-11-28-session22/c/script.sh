#!/bin/bash
# session 22, call c (one H100): MatResidual() of MATSEQAIJMODSELL in one pass (the new signed kernels):
# (1) the CUDA cases of tests/mat/ex1 (every product variant; MatResidual() against AIJ and bit for bit against
#     MatMult() + VecAYPX()) and of tests/mat/ex2;
# (2) compute-sanitizer memcheck, racecheck, synccheck on tests/mat/ex1 (plain, lanes, partition-permuted, bucketed);
# (3) bench/vcycle on the FVM problem (10.4 M tetrahedra), structured numbering, 3 setup rounds per type alternated (the
#     first a warm-up): the setup, the residual part and the time per iteration after the change (call b: residual
#     0.398 ms against the product's 0.253 ms, 1.114x per iteration); then random numbering if time is left.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS; L=440
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B -j4 $B/bin/bench/vcycle $B/bin/tests/mat/ex1 > /dev/null 2>&1
source bench/provenance.sh; echo "$(date -u +%F) $(ms_provenance $PWD)"
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
timeout 150 make -j16 BUILD=$B check search='tests/mat/ex1_cuda*,tests/mat/ex2_cuda*' > $OUT/harness.log 2>&1
grep -E "^# (success|failed)|not ok" $OUT/harness.log | head -20; echo "harness at $((SECONDS-T0)) s"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/tests/mat/ex1 -vec_type cuda -kind unstructured -n 700 -k 30 -slice_heights 32 -orderings natural,partition -lanes 1,4 -exact_chunk0 -mat_modsell_permute_chunk 37 > $OUT/cs-$tool.txt 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|^OK|FAILED' $OUT/cs-$tool.txt | tr '\n' ' ')"
done
echo "sanitizers at $((SECONDS-T0)) s"
for perm in 0 1; do
  left=$((L-(SECONDS-T0))); [ $left -gt 40 ] || break
  sr=3; [ $perm = 0 ] || sr=1
  timeout $left stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute $perm -setup_rounds $sr > $OUT/vcycle-permute$perm.txt 2>&1
  echo "== permute $perm at $((SECONDS-T0)) s"; grep -v "^[0-9] " $OUT/vcycle-permute$perm.txt | grep -E "^(per|first|#|mult|residual|smooth|pcapply) " | grep -E "per iteration|first|memory|setup|^(mult|residual|smooth|pcapply) +5"
done
echo total $((SECONDS-T0))
