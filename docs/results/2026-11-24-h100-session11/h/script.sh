#!/bin/bash
# session 11, device call H: partition blocks of 1024 always, image slices of 512 without a slice-based PC (1024 under
# PCBJSMOOTH, the partition kept through the rebuild): GPU tests, SpMV, FVM random/structured, demo mesh
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 200 make BUILD=$B -j16 check search='tests_mat-ex8*' > $OUT/check.log 2>&1; tail -1 $OUT/check.log
timeout 200 make BUILD=$B -j16 check search='*bjsmooth*cuda*' >> $OUT/check.log 2>&1; tail -1 $OUT/check.log; grep "^not ok" $B/tests/test__tap.log | head
echo "tests $((SECONDS-T0)) s"
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson $B/bin/bench/spmv 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s11h; mkdir -p $S
gen() { timeout 150 $F -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen rnd -n 120 -cell tet -permute 1 & gen nat -n 120 -cell tet -permute 0 & wait
timeout 100 $B/bin/bench/spmv -file $S/rnd.bin -name fvm-random -formats aijcusparse,modsell,modsell:sh=1024 -modsell_fresh > $OUT/spmv-rnd.txt 2>&1
sed -n '/^-- summary/,$p' $OUT/spmv-rnd.txt | cut -c1-160
run() { # NAME FILE OPTIONS...
  timeout 170 $F -read_system $S/$2.bin "${@:3}" > $OUT/$1.txt 2>&1; echo "== $1 ($((SECONDS-T0)) s)"; grep -E "aijcusparse|aijmodsell|^  setup:" $OUT/$1.txt | cut -c1-200
}
run rnd rnd -configs aijcusparse:jacobi,modsell:bjsmooth,modsell:jacobi -repeat 2 -log_view :$OUT/rnd-logview.txt
for st in modsell:bjsmooth modsell:jacobi; do echo "-- stage $st: $(awk -v s="--- Event Stage [0-9]+: $st\$" '$0 ~ s {f=1; next} /--- Event Stage/ {f=0} f && /^(ModSELL|MatAssemblyEnd)/' $OUT/rnd-logview.txt | awk '{print $1, $2}' | tr '\n' ';')"; done
run nat nat -configs aijcusparse:jacobi,modsell:bjsmooth,modsell:jacobi -repeat 2
echo "total $((SECONDS-T0)) s"
