#!/bin/bash
# session 13, device call B: PCBRBILU substitution A/B/C: HEAD (old), 32-bit slot offsets + warp-uniform stop of the
# unrolled slot loops (new), 32-bit offsets only (nonmax: -DBRB_NMAX=0); magnetron apply and solve, ex45 256^3 CG
# + brbilu on MATMODSELL; ncu instruction counts of the substitution kernels
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
grep -iE " error" /tmp/setup-build.log | head -5
E=bin/src/ksp/pc/impls/brbilu/tests/ex1
mkdir -p /tmp/old && tar xzf .carry/head.tar.gz -C /tmp/old
(cd /tmp/old && make BUILD=/tmp/old/build -j12 lib > /tmp/old-build.log 2>&1 && make BUILD=/tmp/old/build /tmp/old/build/$E >> /tmp/old-build.log 2>&1) &
make BUILD=$B $B/$E > /dev/null 2>&1
cp -a $B /tmp/nonmax && touch src/ksp/pc/impls/brbilu/brbilu.cu && make BUILD=/tmp/nonmax NVCCFLAGS=-DBRB_NMAX=0 lib /tmp/nonmax/$E > /tmp/nonmax-build.log 2>&1 || tail -5 /tmp/nonmax-build.log
wait; tail -1 /tmp/old-build.log
echo "build $((SECONDS-T0)) s"
timeout 150 make BUILD=$B -j16 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
lib() { case $1 in old) echo /tmp/old/build ;; new) echo $B ;; nonmax) echo /tmp/nonmax ;; esac; }
for r in 1 2; do
  for v in old new nonmax; do
    L=$(lib $v)
    $L/$E -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/mag-$v-$r.log 2>&1
    echo "magnetron cg $v round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-$v-$r.log | tr '\n' ' ' | cut -c1-300)"
  done
done
for r in 1 2; do
  for v in old new nonmax; do
    L=$(lib $v); f=$OUT/ex45-$v-$r.log
    $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append $L/lib/libpetscmodsell.so -ksp_type cg -pc_type brbilu -ksp_converged_reason -log_view > $f 2>&1
    echo "ex45 256 cg brbilu modsell $v round $r: $(grep -o 'iterations [0-9]*' $f | head -1) $(grep -E '^(KSPSolve|PCApply|PCSetUp) ' $f | awk '{printf "%s %s ", $1, $4}')"
  done
done
echo "bench $((SECONDS-T0)) s"
for v in old new; do
  L=$(lib $v)
  timeout 150 ncu --kernel-name regex:brb_subst --launch-skip 30 --launch-count 3 --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum $L/$E -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/ncu-$v.txt 2>&1
  echo "ncu $v:"; grep -E "brb_subst|gpu__time|inst_executed|warps_active|issue_active|dram__bytes" $OUT/ncu-$v.txt | sed 's/  */ /g' | cut -c1-150
done
gzip -f $OUT/*.log
echo "total $((SECONDS-T0)) s"
