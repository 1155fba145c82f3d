#!/bin/bash
# session 11, device call B: FVM 10.4 M tetrahedra (random and structured numbering) and the demo mesh with the
# strength-weighted partition; per-configuration log stages on the demo mesh (setup breakdown)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson $B/bin/bench/spmv 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s11b; mkdir -p $S
gen() { timeout 150 $F -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen rnd -n 120 -cell tet -permute 1 & gen nat -n 120 -cell tet -permute 0 & gen demo -n 160 & wait
echo "gen $((SECONDS-T0)) s"
timeout 100 $B/bin/bench/spmv -file $S/rnd.bin -name fvm-random -formats aijcusparse,modsell -modsell_fresh > $OUT/spmv-rnd.txt 2>&1
sed -n '/^-- summary/,$p' $OUT/spmv-rnd.txt | cut -c1-160
run() { # NAME FILE OPTIONS...
  timeout 170 $F -read_system $S/$2.bin "${@:3}" > $OUT/$1.txt 2>&1; echo "== $1 ($((SECONDS-T0)) s)"; grep -E "aijcusparse|aijmodsell|^  setup:" $OUT/$1.txt | cut -c1-200
}
run rnd rnd -configs aijcusparse:jacobi,modsell:bjsmooth,modsell:jacobi -repeat 2
run nat nat -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 2
run demo demo -configs aijcusparse:jacobi,modsell:jacobi,modsell:bjsmooth -repeat 2 -log_view_gpu_time -log_view :$OUT/demo-logview.txt
for st in aijcusparse:jacobi modsell:jacobi modsell:bjsmooth; do
  echo "-- stage $st"; awk -v s="--- Event Stage [0-9]+: $st\$" '$0 ~ s {f=1; next} /--- Event Stage/ {f=0} f && /^(MatAssemblyEnd|MatAssemblyBegin|ModSELL|MatCUSPARSCopyTo|KSPSetUp|PCSetUp|MatMult |MatGetDiagonal|VecSet|MatSetValues|MatZeroEntries|MatSeqAIJCUSPARSE|KSPSolve|PCApply)/' $OUT/demo-logview.txt | awk "{print \$1, \$2, \$4}"
done
echo "total $((SECONDS-T0)) s"
