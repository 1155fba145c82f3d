#!/bin/bash
# session 15, device call H: where the small coarse levels' ~0.07 ms per product goes (bench/gamglevels, lap7 128^3):
# the default conversion against the natural ordering, slices of 32, and 32 threads per row
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/gamglevels > $OUT/build-bench.log 2>&1 || tail -5 $OUT/build-bench.log
G=$B/bin/bench/gamglevels
for v in "" "-mat_modsell_ordering natural" "-mat_modsell_ordering natural -mat_modsell_slice_height 32" "-mat_modsell_ordering natural -mat_modsell_row_lanes 32" "-mat_modsell_ordering natural -mat_modsell_kernel sell"; do
  echo "== lap7 128^3 $v"; timeout 100 $G -problem jump -jump 1 -dim 3 -n 128 -reps 50 -samples 5 -rounds 1 $v 2>&1 | grep -E "^[0-9]|per iteration"
done
echo "total $((SECONDS-T0)) s"
