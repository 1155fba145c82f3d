# session 12, first 2-GPU call: halo parts, ex45 at fixed iterations (weak, differenced), 1 and 2 processes
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
make BUILD=$B -j24 $B/bin/bench/halo > /tmp/halo-build.log 2>&1 || tail -20 /tmp/halo-build.log
nvidia-smi -L; which nsys ncu 2>&1 | head -2
lib=$B/lib/libpetscmodsell.so
cat > /tmp/bind.sh << 'B2'
#!/bin/sh
r=${OMPI_COMM_WORLD_LOCAL_RANK:-0}; CUDA_VISIBLE_DEVICES=$((r % 2)); export CUDA_VISIBLE_DEVICES; exec "$@"
B2
chmod +x /tmp/bind.sh
O=$OUT; mkdir -p $O
{
for np in 2 1; do for t in modsell aijcusparse sellcuda modsell aijcusparse; do
  mpiexec -n $np /tmp/bind.sh $B/bin/bench/halo -n 256 -dm_mat_type $t -dm_vec_type cuda -reps 200 -samples 5 -use_gpu_aware_mpi 0 2>&1 | grep -v "^$"
done; done
} > $O/halo.txt 2>&1
cat $O/halo.txt
ex45() { # np its mat
  local g="256 256 256"; [ $1 = 2 ] && g="256 256 512"; set -- $1 $2 $3 $g
  mpiexec -n $1 /tmp/bind.sh $B/ex45 -da_grid_x $4 -da_grid_y $5 -da_grid_z $6 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -ksp_max_it $2 -dm_mat_type $3 -dm_vec_type cuda -dll_append $lib -use_gpu_aware_mpi 0 -ksp_converged_reason -log_view > /tmp/ex45-$1-$2-$3.log 2>&1
  echo "ex45 np $1 its $2 $3 KSPSolve $(awk '$1=="KSPSolve"{print $4}' /tmp/ex45-$1-$2-$3.log) $(grep -m1 -o 'iterations [0-9]*' /tmp/ex45-$1-$2-$3.log)"
}
{
for np in 1 2; do ex45 $np 20 modsell; ex45 $np 20 aijcusparse; done
for np in 1 2; do for r in 1 2; do for t in modsell aijcusparse sellcuda; do ex45 $np 100 $t; ex45 $np 700 $t; done; done; done
} > $O/ex45fixed.txt 2>&1
cat $O/ex45fixed.txt
tar czf $O/logs.tar.gz -C /tmp $(cd /tmp && ls ex45-*.log)
