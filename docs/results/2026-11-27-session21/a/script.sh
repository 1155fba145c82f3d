#!/bin/bash
# session 21, call a (one H100): issue 12's figures in one run on one machine: bench/locality.sh spmv cg (FVM 10.4 M
# tetrahedra, random and structured numbering: SpMV of every format; CG aijcusparse + jacobi, modsell + jacobi,
# modsell + bjsmooth with fvmpoisson's two tables), ex45 256^3 setup + first solve (bench/ex45periter, aijcusparse +
# jacobi and modsell + bjsmooth, one round), make demo.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH= PETSC_OPTIONS="-use_gpu_aware_mpi 0"; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j32 lib > /dev/null 2>&1; export BUILD=$B
make BUILD=$B $B/bin/bench/ex45periter > /dev/null 2>&1
echo "ready at $((SECONDS-T0))"; nvidia-smi -L; L=$B/lib/libpetscmodsell.so
timeout 200 bash bench/locality.sh $OUT/loc spmv cg 2>&1 | grep -E "^-- |modsell|aijcusparse|sellcuda|insertion|configuration" | head -40
echo "locality at $((SECONDS-T0)) s"
for c in "aijcusparse jacobi" "modsell bjsmooth"; do
  set -- $c
  timeout -k 5 100 $B/bin/bench/ex45periter -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_type cg -ksp_rtol 1e-8 -periter_its 20000,20000,20001 \
    -dm_vec_type cuda -dll_append $L -log_view -dm_mat_type $1 -pc_type $2 > $OUT/ex45-$1-$2.log 2>&1
  echo "== ex45 $1 + $2"; grep -E "^(solver setup|solve 0)" $OUT/ex45-$1-$2.log
done
echo "ex45 at $((SECONDS-T0)) s"
[ $((SECONDS-T0)) -lt 420 ] && { timeout 150 make BUILD=$B demo > $OUT/demo.txt 2>&1; grep -E "^  seqaij" $OUT/demo.txt; }
echo total $((SECONDS-T0))
