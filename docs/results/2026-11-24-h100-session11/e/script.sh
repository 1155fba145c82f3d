#!/bin/bash
# session 11, device call E: the tree with the strength-weighted partition, partition blocks of 1024 with automatic
# sweeps (8) and no inode scan for MATMODSELL on CUDA: FVM 10.4 M (random, structured), make-demo mesh, ex45 256^3
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 | cut -c1-80; git status --short | grep -v "^??" | head -20
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson $B/bin/bench/spmv 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s11e; mkdir -p $S
gen() { timeout 150 $F -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen rnd -n 120 -cell tet -permute 1 & gen nat -n 120 -cell tet -permute 0 & gen demo -n 160 & wait
echo "gen $((SECONDS-T0)) s"
timeout 100 $B/bin/bench/spmv -file $S/rnd.bin -name fvm-random -formats aijcusparse,modsell -modsell_fresh > $OUT/spmv-rnd.txt 2>&1
sed -n '/^-- summary/,$p' $OUT/spmv-rnd.txt | cut -c1-160
run() { # NAME FILE OPTIONS...
  timeout 170 $F -read_system $S/$2.bin "${@:3}" > $OUT/$1.txt 2>&1; echo "== $1 ($((SECONDS-T0)) s)"; grep -E "aijcusparse|aijmodsell|^  setup:" $OUT/$1.txt | cut -c1-200
}
run rnd rnd -configs aijcusparse:jacobi,modsell:bjsmooth,modsell:jacobi -repeat 2
run nat nat -configs aijcusparse:jacobi,modsell:bjsmooth,modsell:jacobi -repeat 2
run demo demo -configs aijcusparse:jacobi,modsell:jacobi,modsell:bjsmooth -repeat 2
run demo2 demo -repeat 2
n=256; lib=$B/lib/libpetscmodsell.so
for o in "-pc_type bjsmooth -dm_mat_type modsell" "-pc_type jacobi -dm_mat_type aijcusparse"; do
  E="$B/ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -ksp_rtol 1e-8 -dm_vec_type cuda -dll_append $lib $o"
  timeout 60 $E > /dev/null 2>&1; timeout 60 $E -ksp_converged_reason -log_view > $OUT/ex45.txt 2>&1
  echo "ex45 $n^3 $o: $(grep -m1 -oE 'iterations [0-9]+' $OUT/ex45.txt) KSPSolve $(awk '/^KSPSolve /{print $4}' $OUT/ex45.txt) s, total $(awk '/^Time \(sec\):/{print $3}' $OUT/ex45.txt) s"
done
echo "total $((SECONDS-T0)) s"
