# session 12, H100: the overlapped MPI product and the nonzero-slice off-diagonal product: tests, sanitizer, halo parts (2 processes share the GPU)
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
make BUILD=$B -j16 $B/bin/bench/halo $B/bin/tests/mat/ex1 > /tmp/b.log 2>&1 || tail -20 /tmp/b.log
O=$OUT; mkdir -p $O
T0=$(date +%s)
timeout 150 make BUILD=$B -j8 check search='tests_mat-ex1_cuda_*' > $O/tests.txt 2>&1; grep -E "passed|^not ok" $O/tests.txt | tail -3
timeout 200 make BUILD=$B -j8 check search='tests_ksp-ex2_cuda*' >> $O/tests.txt 2>&1; grep -E "passed|^not ok" $O/tests.txt | tail -3
echo "tests $(( $(date +%s) - T0 )) s"
for tool in memcheck racecheck synccheck; do
  timeout 120 mpiexec -n 2 compute-sanitizer --tool $tool --print-limit 5 $B/bin/tests/mat/ex1 -kind edge -n 2500 -slice_heights 32,1024 -row_weights 1,3 -vec_type cuda -use_gpu_aware_mpi 0 2>&1 | grep -E "ERROR SUMMARY|Hazard|Error|configurations|failed" | sort | uniq -c | head -5
done > $O/sanitizer.txt 2>&1
cat $O/sanitizer.txt
for o in "modsell -mat_modsell_overlap 1" "modsell -mat_modsell_overlap 0" "aijcusparse"; do
  timeout 60 mpiexec -n 2 $B/bin/bench/halo -n 160 -dm_mat_type $o -dm_vec_type cuda -reps 100 -samples 3 -use_gpu_aware_mpi 0 2>&1 | grep -v "^$" | head -4 >> $O/halo.txt
done
cat $O/halo.txt
