#!/bin/bash
# session 19, call d (several GPUs of one host): the CUDA IPC halo when each rank sees only its own GPU
# (CUDA_VISIBLE_DEVICES per rank: the handles cannot be mapped, every process must keep the other exchange) and when
# every rank sees every GPU (IPC across GPUs), tests/mat/ex1's unstructured 3-process case checked against its
# expected output in both, with -info's lines of the exchange; then ex45 CG + Jacobi on 2 processes each way.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; make BUILD=$B -j48 lib > /dev/null 2>&1; make BUILD=$B $B/bin/bench/ex45periter > $OUT/build.log 2>&1 || tail $OUT/build.log
PETSC_OPTIONS="-use_gpu_aware_mpi 0" make BUILD=$B check search='tests_mat-ex1_cuda_ipc_halo_unstructured_3' > $OUT/harness.log 2>&1; grep -E '^ *(not )?ok' $OUT/harness.log
ng=$(nvidia-smi -L | wc -l); echo "ready at $((SECONDS-T0)), $ng GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c)"
cat > own.sh <<'W'
#!/bin/bash
export CUDA_VISIBLE_DEVICES=$((OMPI_COMM_WORLD_LOCAL_RANK % NG)); exec "$@"
W
chmod +x own.sh; export NG=$ng
args="-kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024 -mat_modsell_ipc_halo 1 -use_gpu_aware_mpi 0"
for how in own all; do
  w=; [ $how = own ] && w=./own.sh
  timeout 120 mpiexec -n 3 $w $B/tests/tests/mat/ex1 $args -info :mat > $OUT/ex1-$how.log 2>&1; echo "ex1 visible=$how rc $?"
  grep -v '^\[' $OUT/ex1-$how.log | diff - tests/mat/output/ex1_unstructured_3.out > $OUT/ex1-$how.diff && echo "  output equals tests/mat/output/ex1_unstructured_3.out" || { echo "  output DIFFERS:"; head -20 $OUT/ex1-$how.diff; }
  grep -h "IPC" $OUT/ex1-$how.log | sort | uniq -c | head -8
done
for how in own all; do
  w=; [ $how = own ] && w=./own.sh
  for ipc in 0 1; do
    timeout 120 mpiexec -n 2 $w $B/bin/bench/ex45periter -da_grid_x 128 -da_grid_y 128 -da_grid_z 256 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -periter_its 20,100,600 -dm_mat_type modsell -dm_vec_type cuda -dll_append $B/lib/libpetscmodsell.so -use_gpu_aware_mpi 0 -mat_modsell_ipc_halo $ipc -info :mat > $OUT/ex45-$how-ipc$ipc.log 2>&1
    echo "ex45periter 2 processes visible=$how ipc=$ipc rc $?: $(grep -E '^(solve 6|per iteration)' $OUT/ex45-$how-ipc$ipc.log | tr '\n' ' ')"; grep -h "IPC" $OUT/ex45-$how-ipc$ipc.log | sort | uniq -c | head -4
  done
done
echo total $((SECONDS-T0))
