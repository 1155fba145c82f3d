#!/bin/bash
# session 13, device call C: the final PCBRBILU substitution (32-bit slot offsets) against HEAD's: CUDA tests,
# magnetron apply, ex45 256^3 CG + brbilu; then ex45 256^3 CG + GAMG, aijcusparse and modsell alternated (plain
# -log_view: KSPSetUp holds GAMG's setup, KSPSolve the solve), two rounds
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
grep -iE " error" /tmp/setup-build.log | head -5
E=bin/src/ksp/pc/impls/brbilu/tests/ex1
mkdir -p /tmp/old && tar xzf .carry/head.tar.gz -C /tmp/old
(cd /tmp/old && make BUILD=/tmp/old/build -j12 lib > /tmp/old-build.log 2>&1 && make BUILD=/tmp/old/build /tmp/old/build/$E >> /tmp/old-build.log 2>&1) &
make BUILD=$B $B/$E > /dev/null 2>&1
wait; tail -1 /tmp/old-build.log
echo "build $((SECONDS-T0)) s"
timeout 150 make BUILD=$B -j16 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool $B/$E -test compare -compare_tol 1e-5 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -pc_brbilu_blocks 2,2,2 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | head -2
done
lib() { case $1 in old) echo /tmp/old/build ;; new) echo $B ;; esac; }
for r in 1 2; do
  for v in old new; do
    L=$(lib $v)
    $L/$E -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/mag-$v-$r.log 2>&1
    echo "magnetron cg $v round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-$v-$r.log | tr '\n' ' ' | cut -c1-300)"
  done
done
for r in 1 2; do
  for v in old new; do
    L=$(lib $v); f=$OUT/ex45-$v-$r.log
    $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append $L/lib/libpetscmodsell.so -ksp_type cg -pc_type brbilu -ksp_converged_reason -log_view > $f 2>&1
    echo "ex45 256 cg brbilu modsell $v round $r: $(grep -o 'iterations [0-9]*' $f | head -1) $(grep -E '^(KSPSolve) ' $f | awk '{printf "%s %s ", $1, $4}')"
  done
done
echo "brbilu $((SECONDS-T0)) s"
for t in aijcusparse modsell modsell aijcusparse; do
  f=$OUT/gamg-$t-$SECONDS.log
  timeout 110 $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -dm_vec_type cuda -dm_mat_type $t -dll_append $B/lib/libpetscmodsell.so -ksp_converged_reason -log_view > $f 2>&1
  echo "ex45 256 cg gamg $t: $(grep -o 'iterations [0-9]*' $f | head -1) $(grep -E '^(KSPSetUp|KSPSolve) |^Time \(sec\)' $f | awk '{printf "%s %s ", $1, ($1=="Time" ? $3 : $4)}') ($((SECONDS-T0)) s)"
done
gzip -f $OUT/*.log
echo "total $((SECONDS-T0)) s"
