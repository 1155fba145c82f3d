#!/bin/bash
# session 10, device call A: where CG + bjsmooth's iteration goes on the FVM 10.4 M (GPU event times, nsys kernels),
# and what compact blocks (bricks of 4^3 structured cells, 384 rows) would give: the headroom of the partition
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
cp .carry/exp10/fvmmesh-brick.h examples/fvm/fvmmesh.h   # FVM_BRICK=b numbers structured cells by bricks of b^3 (scratch)
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s10a; mkdir -p $S
gen() { timeout 150 $F -n 120 -cell tet -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen rnd -permute 1 & gen nat -permute 0 & FVM_BRICK=4 gen brick -permute 0 & wait
ls -la $S
T0=$SECONDS
run() { # NAME FILE OPTIONS...
  timeout 120 $F -read_system $S/$2.bin "${@:3}" > $OUT/$1.txt 2>&1; echo "== $1 ($((SECONDS-T0)) s)"; grep -E "aijcusparse|aijmodsell" $OUT/$1.txt | cut -c1-200
}
run rnd-gpu rnd -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 1 -log_view_gpu_time -log_view :$OUT/rnd-gpu-logview.txt
grep -E "^(MatMult|PCApply|VecTDot|VecNorm|VecAXPY|VecAYPX|KSPSolve|PCBJSmooth)" $OUT/rnd-gpu-logview.txt
run nat-gpu nat -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 1 -log_view_gpu_time -log_view :$OUT/nat-gpu-logview.txt
grep -E "^(MatMult|PCApply|VecTDot|VecNorm|VecAXPY|VecAYPX|KSPSolve|PCBJSmooth)" $OUT/nat-gpu-logview.txt
run brick384 brick -configs aijcusparse:jacobi,modsell:bjsmooth -mat_modsell_ordering natural -pc_bjsmooth_block_size 384 -repeat 2
run brick512 brick -configs modsell:bjsmooth -mat_modsell_ordering natural -repeat 2
run rnd-its3 rnd -configs modsell:bjsmooth -pc_bjsmooth_inner_its 3 -repeat 2
run rnd-its8 rnd -configs modsell:bjsmooth -pc_bjsmooth_inner_its 8 -repeat 2
if command -v nsys > /dev/null; then
  timeout 150 nsys profile -o $S/rnd --force-overwrite true --stats=true $F -read_system $S/rnd.bin -configs modsell:bjsmooth -warmup 0 -repeat 1 -ksp_max_it 300 > $OUT/rnd-nsys.txt 2>&1
  grep -A30 "cuda_gpu_kern_sum" $OUT/rnd-nsys.txt | cut -c1-220 | head -34
fi
echo "total $((SECONDS-T0)) s"
