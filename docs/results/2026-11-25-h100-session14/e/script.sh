#!/bin/bash
# session 14, device call E: bench/gamgab - CG + GAMG on aijcusparse and on MATMODSELL alternated in one process
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/gamgab > $OUT/build.log 2>&1 || tail -5 $OUT/build.log
G=$B/bin/bench/gamgab
echo "build $((SECONDS-T0)) s"
echo "== lap7 (jump 1) 256^3"; timeout 330 $G -problem jump -jump 1 -dim 3 -n 256 -rounds 2 2>&1 | tee $OUT/ab-lap256.txt
echo "lap $((SECONDS-T0)) s"
echo "== fvm 120 tet structured"; timeout 200 $G -problem fvm -n 120 -cell tet -permute 0 -rounds 2 2>&1 | tee $OUT/ab-fvm120s.txt
echo "total $((SECONDS-T0)) s"
