#!/bin/bash
# session 13, device call A: GPU tests of bb61bad's halo refactor (mat ex1, ksp ex2 CUDA) and of the brbilu cross pass
# (brbilu CUDA tests, sanitizer), then A/B of the substitution: HEAD's library (old) against the working tree (new)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
grep -iE " error" /tmp/setup-build.log | head -5
# the old library (HEAD) in its own tree
mkdir -p /tmp/old && tar xzf .carry/head.tar.gz -C /tmp/old
(cd /tmp/old && make BUILD=/tmp/old/build -j24 lib > /tmp/old-build.log 2>&1 && make BUILD=/tmp/old/build /tmp/old/build/bin/src/ksp/pc/impls/brbilu/tests/ex1 >> /tmp/old-build.log 2>&1) &
make BUILD=$B $B/bin/src/ksp/pc/impls/brbilu/tests/ex1 > /dev/null 2>&1
echo "build $((SECONDS-T0)) s"
timeout 250 make BUILD=$B -j16 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
timeout 200 make BUILD=$B -j16 check search='tests_mat-ex1_cuda*' >> $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
timeout 200 make BUILD=$B -j16 check search='tests_ksp-ex2_cuda*' >> $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
echo "tests $((SECONDS-T0)) s"
EX1=$B/bin/src/ksp/pc/impls/brbilu/tests/ex1
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool $EX1 -test compare -compare_tol 1e-11 -pc_brbilu_factor_precision double -problem fvm -n 10 -pc_brbilu_type rmilu 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|compare" | head -3
  timeout 120 compute-sanitizer --tool $tool $EX1 -test compare -compare_tol 1e-5 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -pc_brbilu_blocks 2,2,2 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|compare" | head -3
done
echo "sanitizer $((SECONDS-T0)) s"
wait
tail -2 /tmp/old-build.log
OLD=/tmp/old/build
# A/B: magnetron apply (ex1 bench: one application timed, and setup + solve), then ex45 256^3 CG + brbilu on MATMODSELL
for r in 1 2; do
  for v in old new; do
    if [ $v = old ]; then L=$OLD; else L=$B; fi
    for ks in "cg -pc_brbilu_symmetric" "bcgs"; do
      $L/bin/src/ksp/pc/impls/brbilu/tests/ex1 -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type $ks -pc_type brbilu > $OUT/mag-$v-${ks%% *}-$r.log 2>&1
      echo "magnetron $v ${ks%% *} round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-$v-${ks%% *}-$r.log | tr '\n' ' ' | cut -c1-330)"
    done
  done
done
for r in 1 2; do
  for v in old new; do
    if [ $v = old ]; then L=$OLD; else L=$B; fi
    f=$OUT/ex45-$v-$r.log
    $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append $L/lib/libpetscmodsell.so -ksp_type cg -pc_type brbilu -ksp_converged_reason -log_view > $f 2>&1
    echo "ex45 256 cg brbilu modsell $v round $r: $(grep -o 'iterations [0-9]*' $f | head -1) $(awk '$1=="PCSetUp"||$1=="KSPSolve"||$1=="PCApply"||$1=="ModSELLUpload"{printf "%s %s ", $1, $4}' $f)"
  done
done
gzip -f $OUT/*.log
echo "total $((SECONDS-T0)) s"
