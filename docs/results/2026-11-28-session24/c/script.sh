#!/bin/bash
# session 24, call c: the brbilu substitution with the user-order permutation moved out of the level walk and the
# backward's independent column loads (working tree) against HEAD's (.carry/head.tar.gz, built beside it): the CUDA
# brbilu tests (backends compared), then A/B of one application on the magnetron (239 x 239 x 119, CG, symmetric
# variant, single factors; ex1 -test bench), rounds alternated. 
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
mkdir -p /tmp/old && tar xzf .carry/head.tar.gz -C /tmp/old
(cd /tmp/old && make BUILD=/tmp/old/build -j12 lib > /tmp/old-build.log 2>&1 && make BUILD=/tmp/old/build /tmp/old/build/bin/src/ksp/pc/impls/brbilu/tests/ex1 >> /tmp/old-build.log 2>&1; echo "old build rc=$?" >> /tmp/old-build.log) &
timeout 75 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check.log 2>&1; echo "check rc=$? at $((SECONDS-T0)) s"; tail -3 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
wait; tail -1 /tmp/old-build.log; echo "old built at $((SECONDS-T0)) s"
for r in 1 2; do for v in old new; do
  [ $((SECONDS-T0)) -gt 190 ] && break 2
  if [ $v = old ]; then L=/tmp/old/build; else L=$B; fi
  timeout 40 $L/bin/src/ksp/pc/impls/brbilu/tests/ex1 -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/mag-$v-$r.log 2>&1
  echo "magnetron $v round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-$v-$r.log | tr '\n' ' ' | cut -c1-300) [$((SECONDS-T0)) s]"
done; done
echo total $((SECONDS-T0))
