#!/bin/bash
# session 26, call d (tree bd97b3b: no PC change since 87fa70d): ex45 256^3, the thinnest margin of call b (CG + brbilu
# single on a MATMODSELL operator against CG + Jacobi on sellcuda, 2.09x) in three rounds, the configurations
# alternated after a warm-up run, CG + Jacobi aijcusparse too; setup + solve counted as bench/brbilu.sh does
# (PCSetUp + KSPSolve + ModSELLUpload, -log_view_gpu_time).
source bench/device-env.sh || exit 1
mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
mkdir -p $OUT/ex45
e45() { # TAG MAT options
  local tag=$1 t=$2; shift 2
  local f=$OUT/ex45/$tag.log
  timeout 60 $B/ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append $B/lib/libpetscmodsell.so "$@" -ksp_converged_reason -log_view -log_view_gpu_time > $f 2>&1
  local su so up
  su=$(awk '/^PCSetUp /{print $4; exit}' $f); so=$(awk '/^KSPSolve /{print $4; exit}' $f); up=$(awk '/^ModSELLUpload /{print $4; exit}' $f)
  echo "ex45 $tag: its $(grep -m1 -oE 'iterations [0-9]+' $f | awk '{print $2}') PCSetUp $su KSPSolve $so ModSELLUpload ${up:-0} total $(awk -v a=${su:-0} -v b=${so:-0} -v c=${up:-0} 'BEGIN{printf "%.4f", a+b+c}') [$((SECONDS-T0)) s]"
}
e45 warmup aijcusparse -ksp_type cg -pc_type jacobi > /dev/null
for r in 1 2 3; do
  [ $((SECONDS-T0)) -lt 480 ] || break
  e45 brbilu-$r aijmodsell -ksp_type cg -pc_type brbilu
  e45 sellcuda-$r sellcuda -ksp_type cg -pc_type jacobi
  e45 aijcusparse-$r aijcusparse -ksp_type cg -pc_type jacobi
done
echo total $((SECONDS-T0))
