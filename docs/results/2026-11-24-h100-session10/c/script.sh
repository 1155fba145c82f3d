#!/bin/bash
# session 10, device call C: PCBJSMOOTH with blocks of 1024 rows and 8 inner sweeps against the defaults (512, 5)
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson $B/bin/bench/spmv 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s10c; mkdir -p $S
gen() { timeout 150 $F -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen rnd -n 120 -cell tet -permute 1 & gen nat -n 120 -cell tet -permute 0 & gen demo -n 160 & wait
T0=$SECONDS
timeout 100 $B/bin/bench/spmv -file $S/rnd.bin -name fvm-random -formats aijcusparse,modsell:sh=512,modsell:sh=1024 -modsell_fresh > $OUT/spmv-rnd.txt 2>&1
sed -n '/^-- summary/,$p' $OUT/spmv-rnd.txt
run() { # NAME FILE OPTIONS...
  timeout 150 $F -read_system $S/$2.bin "${@:3}" > $OUT/$1.txt 2>&1; echo "== $1 ($((SECONDS-T0)) s)"; grep -E "aijcusparse|aijmodsell" $OUT/$1.txt | cut -c1-200
}
X="-mat_modsell_slice_height 1024 -pc_bjsmooth_inner_its"
run rnd-base rnd -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 2
run rnd-1024-8 rnd -configs modsell:bjsmooth $X 8 -repeat 2
run rnd-1024-6 rnd -configs modsell:bjsmooth $X 6 -repeat 2
run rnd-1024-10 rnd -configs modsell:bjsmooth $X 10 -repeat 2
run rnd-512-8 rnd -configs modsell:bjsmooth -pc_bjsmooth_inner_its 8 -repeat 2
run nat-base nat -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 2
run nat-1024-8 nat -configs modsell:bjsmooth -pc_bjsmooth_block_size 1024 -pc_bjsmooth_inner_its 8 -repeat 2
run demo-base demo -configs aijcusparse:jacobi,modsell:jacobi,modsell:bjsmooth -repeat 2
run demo-1024-8 demo -configs modsell:bjsmooth $X 8 -repeat 2
n=256; lib=$B/lib/libpetscmodsell.so
for o in "" "-pc_bjsmooth_block_size 1024 -pc_bjsmooth_inner_its 8"; do
  E="$B/ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type bjsmooth -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append $lib $o"
  timeout 60 $E > /dev/null 2>&1; timeout 60 $E -ksp_converged_reason -log_view > $OUT/ex45.txt 2>&1
  echo "ex45 $n^3 bjsmooth $o: $(grep -m1 -oE 'iterations [0-9]+' $OUT/ex45.txt) KSPSolve $(awk '/^KSPSolve /{print $4}' $OUT/ex45.txt) s"
done
echo "total $((SECONDS-T0)) s"
