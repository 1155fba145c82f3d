#!/bin/bash
# session 20, call b (4 GPUs of one host): (1) the strong step's event times: ex45periter CG + Jacobi with
# -log_view_gpu_time on 4 processes at 256^3 and on one process with one of their parts (256 x 128 x 128), modsell;
# (2) bench/scaling.sh strong on 1, 2 and 4 GPUs: ex45 256^3 (Jacobi, bjsmooth) and the FVM problem 10.4 M
# tetrahedra (every CG configuration), modsell against mpiaijcusparse, time to solution and iterations.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j48 lib > /dev/null 2>&1; make BUILD=$B $B/bin/bench/ex45periter > $OUT/build.log 2>&1 || tail $OUT/build.log
echo "ready at $((SECONDS-T0))"; nvidia-smi -L; export BUILD=$B
P=$B/bin/bench/ex45periter; L=$B/lib/libpetscmodsell.so; mkdir -p ev
for r in "4 256 256 256" "1 256 128 128"; do
  read -r np x y z <<< "$r"
  timeout -k 5 120 mpiexec -n $np $P -da_grid_x $x -da_grid_y $y -da_grid_z $z -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -periter_its 20,100,600 \
    -dm_mat_type modsell -dm_vec_type cuda -dll_append $L -use_gpu_aware_mpi 0 -log_view -log_view_gpu_time > ev/gputime-np$np-${x}x${y}x${z}.log 2>&1
  echo "np $np ${x}x${y}x${z}: $(grep '^per iteration' ev/gputime-np$np-${x}x${y}x${z}.log)"
done
tar czf $OUT/gputime-logs.tar.gz ev
echo "events done at $((SECONDS-T0))"
PCS="jacobi:cg bjsmooth:cg" NPS="1 2 4" ALL_GPUS=1 MAT_SELL=" " STEP_BUDGET=$((440-(SECONDS-T0))) RUN_TIMEOUT=80 timeout $((585-(SECONDS-T0))) bash bench/scaling.sh $OUT/scaling strong 2>&1 | tail -60
echo total $((SECONDS-T0))
