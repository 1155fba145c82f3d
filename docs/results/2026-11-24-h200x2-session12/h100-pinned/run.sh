# session 12, H100: the halo through pinned host buffers: sanitizer, halo parts (2 processes share the GPU), every *cuda* test
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
make BUILD=$B -j16 $B/bin/bench/halo $B/bin/tests/mat/ex1 > /tmp/b.log 2>&1 || tail -20 /tmp/b.log
O=$OUT
timeout 60 mpiexec -n 3 compute-sanitizer --tool memcheck --print-limit 5 $B/bin/tests/mat/ex1 -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,1024 -vec_type cuda -use_gpu_aware_mpi 0 2>&1 | grep -E "ERROR SUMMARY|configurations|rror" | sort | uniq -c | head -6 | tee $O/sanitizer.txt
for o in "modsell" "modsell -mat_modsell_pinned_halo 0" "modsell -mat_modsell_overlap 0" "aijcusparse"; do
  timeout 60 mpiexec -n 2 $B/bin/bench/halo -n 160 -dm_mat_type $o -dm_vec_type cuda -reps 100 -samples 3 -use_gpu_aware_mpi 0 2>&1 | grep -v "^$" | head -4 | sed "s/^/[$o] /" >> $O/halo.txt
done
cat $O/halo.txt; echo "before tests $((SECONDS-T0)) s"
timeout 360 make BUILD=$B -j16 check search='*cuda*' > $O/check.log 2>&1; echo "check rc=$?"; tail -1 $O/check.log; grep "^not ok" $B/tests/test__tap.log | head
tail -3 $O/check.log > $O/check-summary.txt; grep "^not ok" $B/tests/test__tap.log >> $O/check-summary.txt
echo "total $((SECONDS-T0)) s"
