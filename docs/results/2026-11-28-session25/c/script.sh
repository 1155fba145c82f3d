#!/bin/bash
# session 25, call c: launch-shape variants of the brbilu substitution kernels (compile-time macros of brbilu.cu, the
# same function), one application on the magnetron (239 x 239 x 119, CG, symmetric variant, single factors; ex1 -test
# bench), every variant once per round, two rounds: v0 the default (4 warps a thread block, ptxas's registers: 72 / 72 /
# 64), v1 __launch_bounds__(128, 8) (64 registers, spills), v2 __launch_bounds__(128, 1) (94 / 96 / 80 registers),
# v3 8 warps a thread block, v4 2 warps, v5 the backward scatter to the user's order with 4 rows a lane in flight.
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
flags=("" "-DBRB_MINB=8" "-DBRB_MINB=1" "-DBRB_WARPS=8" "-DBRB_WARPS=2" "-DBRB_XU=4")
EXR=bin/src/ksp/pc/impls/brbilu/tests/ex1
for i in 1 2 3 4 5; do
  d=/tmp/bv$i
  rm -rf $d && cp -a $B $d && rm -f $d/obj/src/ksp/pc/impls/brbilu/brbilu.cu.o $d/lib/libpetscmodsell.so $d/$EXR
  (make BUILD=$d NVCCFLAGS="${flags[$i]}" lib $d/$EXR > $d.log 2>&1; echo "v$i build rc=$?" >> $d.log) &
done
wait; for i in 1 2 3 4 5; do tail -1 /tmp/bv$i.log; done; echo "built at $((SECONDS-T0)) s"
for r in 1 2; do for i in 0 1 2 3 4 5; do
  if [ $i = 0 ]; then L=$B; else L=/tmp/bv$i; fi
  timeout 40 $L/$EXR -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/mag-v$i-$r.log 2>&1
  echo "v$i (${flags[$i]:-default}) round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-v$i-$r.log | tr '\n' ' ' | cut -c1-260) [$((SECONDS-T0)) s]"
done; done
echo total $((SECONDS-T0))
