# session 12, second 2-GPU call: halo parts with the overlapped product, ex45 fixed iterations (weak + strong), GPU tests
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
make BUILD=$B -j24 $B/bin/bench/halo > /tmp/halo-build.log 2>&1 || tail -20 /tmp/halo-build.log
lib=$B/lib/libpetscmodsell.so
cat > /tmp/bind.sh << 'B2'
#!/bin/sh
r=${OMPI_COMM_WORLD_LOCAL_RANK:-0}; CUDA_VISIBLE_DEVICES=$((r % 2)); export CUDA_VISIBLE_DEVICES; exec "$@"
B2
chmod +x /tmp/bind.sh
O=$OUT; mkdir -p $O
T0=$(date +%s)
for o in "modsell -mat_modsell_overlap 1" "aijcusparse" "modsell -mat_modsell_overlap 0" "sellcuda"; do
  timeout 60 mpiexec -n 2 /tmp/bind.sh $B/bin/bench/halo -n 256 -dm_mat_type $o -dm_vec_type cuda -reps 100 -samples 3 -use_gpu_aware_mpi 0 2>&1 | grep -v "^$" | grep -v "^\[" | head -4 >> $O/halo.txt
done
echo "halo: $(( $(date +%s) - T0 )) s" >> $O/halo.txt
ex45() { # np its mat grid...
  local np=$1 its=$2 mat=$3; shift 3
  timeout 60 mpiexec -n $np /tmp/bind.sh $B/ex45 -da_grid_x $1 -da_grid_y $2 -da_grid_z $3 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -ksp_max_it $its -dm_mat_type $mat -dm_vec_type cuda -dll_append $lib -use_gpu_aware_mpi 0 -ksp_converged_reason -log_view > /tmp/ex45-$np-$its-$mat-$3.log 2>&1
  echo "ex45 np $np grid $1x$2x$3 its $its $mat KSPSolve $(awk '$1=="KSPSolve"{print $4}' /tmp/ex45-$np-$its-$mat-$3.log) MatMult $(awk '$1=="MatMult"{print $4}' /tmp/ex45-$np-$its-$mat-$3.log) $(grep -m1 -o 'iterations [0-9]*' /tmp/ex45-$np-$its-$mat-$3.log)"
}
T0=$(date +%s)
{
ex45 1 20 modsell 256 256 256; ex45 2 20 modsell 256 256 512
for r in 1; do for t in modsell aijcusparse sellcuda; do
  ex45 1 100 $t 256 256 256; ex45 1 700 $t 256 256 256
  ex45 2 100 $t 256 256 512; ex45 2 700 $t 256 256 512
done; done
for t in modsell aijcusparse; do ex45 2 100 $t 256 256 256; ex45 2 700 $t 256 256 256; done
echo "ex45: $(( $(date +%s) - T0 )) s"
} > $O/ex45fixed.txt 2>&1
tar czf $O/logs.tar.gz -C /tmp $(cd /tmp && ls ex45-*.log)
T0=$(date +%s)
timeout 200 make BUILD=$B -j8 check search='tests_mat-ex1_cuda_*' > $O/tests.txt 2>&1
timeout 120 make BUILD=$B -j8 check search='tests_ksp-ex2_cuda*' >> $O/tests.txt 2>&1
grep -E "passed|^not ok|# FAIL" $O/tests.txt | tail; echo "tests: $(( $(date +%s) - T0 )) s"
cat $O/halo.txt $O/ex45fixed.txt
