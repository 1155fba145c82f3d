#!/bin/bash
# session 13, device call D: PCBRBILU block size on the GPU (paper 004's 32 x 6 blocks per multiprocessor was made for a
# thread per block; the kernels run a warp per block): -pc_brbilu_min_block_rows 64 (the default rule) .. 8192 on
# ex45 256^3 CG + brbilu (MATMODSELL) and the magnetron (CG, symmetric), two rounds; ex45 CG + Jacobi baselines
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
E=bin/src/ksp/pc/impls/brbilu/tests/ex1
make BUILD=$B $B/$E > /dev/null 2>&1
echo "build $((SECONDS-T0)) s"
$B/ex45 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -dm_mat_type modsell -dm_vec_type cuda -dll_append $B/lib/libpetscmodsell.so -ksp_type cg -pc_type jacobi > /dev/null 2>&1
for t in aijcusparse sellcuda modsell; do
  f=$OUT/ex45-jacobi-$t.log
  $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append $B/lib/libpetscmodsell.so -ksp_type cg -pc_type jacobi -ksp_converged_reason -log_view > $f 2>&1
  echo "ex45 256 cg jacobi $t: $(grep -o 'iterations [0-9]*' $f | head -1) $(grep -E '^KSPSolve ' $f | awk '{printf "%s %s ", $1, $4}')"
done
for r in 1 2; do
  for m in 64 1024 2048 4096 8192; do
    f=$OUT/ex45-brb-$m-$r.log
    $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append $B/lib/libpetscmodsell.so -ksp_type cg -pc_type brbilu -pc_brbilu_min_block_rows $m -ksp_converged_reason -log_view -ksp_view > $f 2>&1
    echo "ex45 256 cg brbilu min_block_rows $m round $r: $(grep -o 'iterations [0-9]*' $f | head -1) $(grep -E '^KSPSolve ' $f | awk '{printf "%s %s ", $1, $4}') $(grep -o '[0-9]* x [0-9]* x [0-9]* blocks' $f | head -1) $(grep -o 'setup time [0-9.e-]* s' $f | head -1)"
  done
done
echo "ex45 $((SECONDS-T0)) s"
for r in 1 2; do
  for m in 64 512 1024 2048 4096; do
    f=$OUT/mag-$m-$r.log
    $B/$E -test bench -problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric -pc_type brbilu -pc_brbilu_min_block_rows $m -ksp_view > $f 2>&1
    echo "magnetron cg min_block_rows $m round $r: $(grep -E '^bench: (iterations|apply)' $f | tr '\n' ' ' | cut -c1-200) $(grep -o '[0-9]* x [0-9]* x [0-9]* blocks' $f | head -1)"
  done
done
rm -f $OUT/mag-*.log
(cd $OUT && tar czf logs.tgz *.log && rm -f *.log)
echo "total $((SECONDS-T0)) s"
