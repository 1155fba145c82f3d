#!/bin/bash
# session 15, device call B: MatMult of modsell (defaults) against aijcusparse and sellcuda, by size and row width:
# lap7, lap27 and lap27 with 3 coupled fields (81 nonzeros per row), 14 k to 4 M rows
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
git log --oneline -1 >> $OUT/device.txt
make BUILD=$B $B/bin/bench/spmv > /dev/null 2>&1 || echo build failed
S=$B/bin/bench/spmv
run() { echo "== $*"; $S -formats aijcusparse,sellcuda,modsell -reps 200 -samples 5 -budget 1 -copy_n 16777216 -csv $OUT/spmv.csv "$@" 2>&1 | sed -n '/-- summary/,$p'; }
for n in 24 40 64 100 160; do run -problem lap7 -n $n; done
for n in 24 40 64 100 160; do run -problem lap27 -n $n; done
for n in 16 28 44 70 110; do run -problem lap27 -n $n -dof 3; done
echo "total $((SECONDS-T0)) s"
