#!/bin/bash
# session 25, call e: the grid ordering's transposition through shared memory (working tree: a block's b read along the
# brick's x-lines into a buffer, then into storage order; x the reverse) against the scattered copies through sperm
# (the same tree built with -DBRB_NO_TR=1, HEAD ce485a0's path); the TR kernels' register bound: 7 blocks (default,
# 72 registers), 6 (80), none (96 for the fused kernel). CUDA brbilu tests and sanitizers on the default, one
# application on the magnetron (two rounds alternated), ex45 256^3 (TR, NO_TR, CG + Jacobi sellcuda) once each.
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
flags=("" "-DBRB_TR_MINB=6" "-DBRB_TR_MINB=0" "-DBRB_NO_TR=1")
EXR=bin/src/ksp/pc/impls/brbilu/tests/ex1
for i in 1 2 3; do
  d=/tmp/bv$i
  rm -rf $d && cp -a $B $d && rm -f $d/obj/src/ksp/pc/impls/brbilu/brbilu.cu.o $d/lib/libpetscmodsell.so $d/$EXR
  (make BUILD=$d NVCCFLAGS="${flags[$i]}" lib $d/$EXR > $d.log 2>&1; echo "v$i build rc=$?" >> $d.log) &
done
mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
timeout 80 make BUILD=$B -j12 check search='src_ksp_pc_impls_brbilu_tests-ex1_cuda*' > $OUT/check-brbilu.log 2>&1; echo "brbilu check rc=$? at $((SECONDS-T0)) s"; tail -1 $OUT/check-brbilu.log; grep "^not ok" $B/tests/test__tap.log | head
wait; for i in 1 2 3; do tail -1 /tmp/bv$i.log; done
EX1=$B/$EXR
for tool in memcheck racecheck; do
  timeout 25 compute-sanitizer --tool $tool $EX1 -test compare -compare_tol 1e-5 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -pc_brbilu_blocks 4,4,4 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|relative" | head -3
  echo "$tool at $((SECONDS-T0)) s"
done
for r in 1 2; do for i in 0 1 2 3; do
  if [ $i = 0 ]; then L=$B; else L=/tmp/bv$i; fi
  timeout 40 $L/$EXR -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu > $OUT/mag-v$i-$r.log 2>&1
  echo "v$i (${flags[$i]:-default}) round $r: $(grep -E '^bench: (iterations|apply)' $OUT/mag-v$i-$r.log | tr '\n' ' ' | cut -c1-230) [$((SECONDS-T0)) s]"
done; done
e45() { # TAG LIBDIR MAT options
  local tag=$1 lib=$2 t=$3; shift 3
  local f=$OUT/ex45-$tag.log
  timeout 60 $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append $lib/lib/libpetscmodsell.so "$@" -ksp_converged_reason -log_view -log_view_gpu_time > $f 2>&1
  echo "ex45 $tag: its $(grep -m1 -oE 'iterations [0-9]+' $f | awk '{print $2}') PCSetUp $(awk '/^PCSetUp /{print $4; exit}' $f) KSPSolve $(awk '/^KSPSolve /{print $4; exit}' $f) ModSELLUpload $(awk '/^ModSELLUpload /{print $4; exit}' $f) PCApply $(awk '/^PCApply /{print $2, $4; exit}' $f) [$((SECONDS-T0)) s]"
}
[ $((SECONDS-T0)) -lt 300 ] && e45 tr $B aijmodsell -ksp_type cg -pc_type brbilu
[ $((SECONDS-T0)) -lt 325 ] && e45 notr /tmp/bv3 aijmodsell -ksp_type cg -pc_type brbilu
[ $((SECONDS-T0)) -lt 350 ] && e45 jacobi-sellcuda $B sellcuda -ksp_type cg -pc_type jacobi
echo total $((SECONDS-T0))
