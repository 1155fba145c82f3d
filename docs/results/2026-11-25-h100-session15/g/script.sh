#!/bin/bash
# session 15, device call G: GAMG's coarse levels converted to MATMODSELL again, now with threads per row (session 14,
# call a: 0.08-0.71x per product, one thread per row): the per-level products and the solve with converted coarse levels
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/gamglevels > $OUT/build-bench.log 2>&1 || tail -5 $OUT/build-bench.log
G=$B/bin/bench/gamglevels
echo "== lap7 (jump 1) 256^3"; timeout 230 $G -problem jump -jump 1 -dim 3 -n 256 -reps 20 -samples 5 -rounds 2 2>&1 | tee $OUT/gamglevels-lap256.txt
echo "== fvm 120 tet structured"; timeout 230 $G -problem fvm -n 120 -cell tet -permute 0 -reps 20 -samples 5 -rounds 2 2>&1 | tee $OUT/gamglevels-fvm120.txt
echo "total $((SECONDS-T0)) s"
