#!/bin/bash
# session 20, call a (4 GPUs of one host): (1) the GPU test cases changed in session 19 (the IPC default's halo cases,
# GAMG + neumann with host Galerkin products) through the harness; (2) where a strong-scaling CG + Jacobi iteration of
# ex45 goes: bench/ex45periter (one iteration = (T_B - T_A) / (B - A), no assembly) for four configurations (modsell
# defaults, modsell -ksp_cg_single_reduction, modsell -ksp_norm_type natural, aijcusparse) at
#   lat1  64^3 on 1 process (262 k rows: an iteration is its fixed costs: launches, the reductions' synchronizations)
#   lat4  64^3 on 4 processes
#   one   256^3 on 1 process
#   part4 256 x 128 x 128 on 1 process (the rows of one process of the 4-process strong step)
#   str4  256^3 on 4 processes
#   part2 256 x 256 x 128 on 1 process, str2 256^3 on 2 processes
# every rank sees every GPU (PETSc takes the node-local rank mod 4), configurations alternated within each size.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j48 lib > /dev/null 2>&1; make BUILD=$B $B/bin/bench/ex45periter > $OUT/build.log 2>&1 || tail $OUT/build.log
echo "ready at $((SECONDS-T0))"; nvidia-smi -L
PETSC_OPTIONS="-use_gpu_aware_mpi 0" timeout 240 make -j32 BUILD=$B check GPU_JOBS=12 GPU_DEVICES='0 1 2 3' \
  search='tests_mat-ex1_cuda_*halo*,tests_ksp-ex1_cuda_fvm_gamg_neumann*,tests_ksp-ex2_cuda_jacobi_halo*' > $OUT/harness.log 2>&1
echo "harness rc $? at $((SECONDS-T0)) s"; grep -E '^ *(not )?ok|# (passed|failed|todo|skip)|FAILED|Summary' $OUT/harness.log | tail -30
P=$B/bin/bench/ex45periter; L=$B/lib/libpetscmodsell.so; tsv=$OUT/periter.tsv; mkdir -p $OUT/logs
printf 'size\tnp\tgrid\tconfig\tper_it_ms\n' > $tsv
run() { # size np gx gy gz its config...
  local size=$1 np=$2 gx=$3 gy=$4 gz=$5 its=$6; shift 6; local cfg="$*" tag f
  tag=$(echo "$cfg" | tr -c 'A-Za-z0-9_\n' '_'); f=$OUT/logs/$size-np$np-$tag.log
  timeout -k 5 120 mpiexec -n $np $P -da_grid_x $gx -da_grid_y $gy -da_grid_z $gz -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 \
    -periter_its $its -dm_vec_type cuda -dll_append $L -use_gpu_aware_mpi 0 -log_view $cfg > $f 2>&1
  printf '%s\t%s\t%sx%sx%s\t%s\t%s\n' $size $np $gx $gy $gz "$cfg" "$(awk '/^per iteration:/ { print $3 }' $f)" | tee -a $tsv
}
cfgs=("-dm_mat_type modsell" "-dm_mat_type aijcusparse" "-dm_mat_type modsell -ksp_cg_single_reduction" "-dm_mat_type modsell -ksp_norm_type natural")
for c in "${cfgs[@]}"; do run lat1 1 64 64 64 20,200,2200 $c; done
for c in "${cfgs[@]}"; do run lat4 4 64 64 64 20,200,2200 $c; done
for c in "${cfgs[@]}"; do run part4 1 256 128 128 20,100,1100 $c; done
for c in "${cfgs[@]}"; do run str4 4 256 256 256 20,100,1100 $c; done
for c in "${cfgs[@]}"; do run one 1 256 256 256 20,100,600 $c; done
for c in "${cfgs[@]:0:3}"; do run part2 1 256 256 128 20,100,600 $c; done
for c in "${cfgs[@]:0:3}"; do run str2 2 256 256 256 20,100,600 $c; done
echo "periter done at $((SECONDS-T0)) s"
[ $((SECONDS-T0)) -lt 480 ] && run str4t 4 256 256 256 20,100,600 -dm_mat_type modsell -log_view_gpu_time
[ $((SECONDS-T0)) -lt 510 ] && run part4t 1 256 128 128 20,100,600 -dm_mat_type modsell -log_view_gpu_time
grep -h "IPC\|exchange" $OUT/logs/str4-np4-_dm_mat_type_modsell.log | head -3
echo total $((SECONDS-T0))
