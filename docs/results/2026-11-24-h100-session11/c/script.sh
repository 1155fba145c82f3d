#!/bin/bash
# session 11, device call C: where modsell's setup goes on the structured numbering (per-configuration stages), and
# the random numbering again (a second run of call B's comparison, plus blocks of 1024 with 8 sweeps)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s11b; mkdir -p $S
gen() { [ -f $S/$1.bin ] || timeout 150 $F -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen rnd -n 120 -cell tet -permute 1 & gen nat -n 120 -cell tet -permute 0 & wait
echo "gen $((SECONDS-T0)) s"
run() { # NAME FILE OPTIONS...
  timeout 170 $F -read_system $S/$2.bin "${@:3}" > $OUT/$1.txt 2>&1; echo "== $1 ($((SECONDS-T0)) s)"; grep -E "aijcusparse|aijmodsell|^  setup:" $OUT/$1.txt | cut -c1-200
}
stages() { # LOGVIEW CONFIGS...
  for st in "${@:2}"; do
    echo "-- stage $st"; awk -v s="--- Event Stage [0-9]+: $st\$" '$0 ~ s {f=1; next} /--- Event Stage/ {f=0} f && /^(MatAssemblyEnd|ModSELL|MatCUSPARSCopyTo|KSPSetUp|PCSetUp|MatMult |MatGetDiagonal|KSPSolve|PCApply|PCBJSmooth|MatGetRowIJ|MatConvert)/' $1 | awk '{print $1, $2, $4}' | tr '\n' ';'; echo
  done
}
run nat nat -configs aijcusparse:jacobi,modsell:bjsmooth,modsell:jacobi -repeat 2 -log_view_gpu_time -log_view :$OUT/nat-logview.txt
stages $OUT/nat-logview.txt aijcusparse:jacobi modsell:bjsmooth modsell:jacobi
run rnd rnd -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 2 -log_view_gpu_time -log_view :$OUT/rnd-logview.txt
stages $OUT/rnd-logview.txt aijcusparse:jacobi modsell:bjsmooth
run rnd-1024-8 rnd -configs modsell:bjsmooth -mat_modsell_slice_height 1024 -pc_bjsmooth_inner_its 8 -repeat 2
echo "total $((SECONDS-T0)) s"
