#!/bin/bash
# session 13, device call E: PCBRBILU substitution occupancy: __launch_bounds__(128, m) with m = 1 (the tree's
# default), 8 (64 registers), 10 (48 registers, spills); magnetron apply and ex45 256^3 CG + brbilu, two rounds
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
E=bin/src/ksp/pc/impls/brbilu/tests/ex1
make BUILD=$B $B/$E > /dev/null 2>&1
for m in 8 10; do
  cp -a $B /tmp/m$m && touch src/ksp/pc/impls/brbilu/brbilu.cu && make BUILD=/tmp/m$m NVCCFLAGS=-DBRB_SUBST_MIN_BLOCKS=$m lib /tmp/m$m/$E > /tmp/m$m.log 2>&1 || tail -5 /tmp/m$m.log
done
echo "build $((SECONDS-T0)) s"
timeout 120 make BUILD=/tmp/m8 -j16 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda_compare*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log
lib() { case $1 in m1) echo $B ;; *) echo /tmp/$1 ;; esac; }
for r in 1 2; do
  for v in m1 m8 m10; do
    L=$(lib $v)
    $L/$E -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > /tmp/mag.log 2>&1
    echo "magnetron cg $v round $r: $(grep -E '^bench: (iterations|apply)' /tmp/mag.log | tr '\n' ' ' | cut -c1-200)"
  done
done
for r in 1 2; do
  for v in m1 m8 m10; do
    L=$(lib $v); f=/tmp/ex45.log
    $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append $L/lib/libpetscmodsell.so -ksp_type cg -pc_type brbilu -ksp_converged_reason -log_view > $f 2>&1
    echo "ex45 256 cg brbilu modsell $v round $r: $(grep -o 'iterations [0-9]*' $f | head -1) $(grep -E '^KSPSolve ' $f | awk '{printf "%s %s ", $1, $4}')"
  done
done
echo "total $((SECONDS-T0)) s"
