#!/bin/bash
# session 14, device call F: bench/gamgab on lap7 256^3, 3 rounds, events per type (-log_view -log_view_gpu_time)
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B $B/bin/bench/gamgab > $OUT/build.log 2>&1 || tail -5 $OUT/build.log
G=$B/bin/bench/gamgab
timeout 520 $G -problem jump -jump 1 -dim 3 -n 256 -rounds 3 -log_view -log_view_gpu_time > $OUT/ab-lap256-events.txt 2>&1
grep -E "^[0-9] |^#|agree|converged" $OUT/ab-lap256-events.txt
awk '/--- Event Stage [23]/{s=$5} s && /^(PCSetUp |PCGAMG|MatAssemblyEnd|ModSELL|MatConvert|MatCUSPARSCopyTo|MatAXPY|MatTranspose|MatMatMultSym|MatPtAPSym|MatPtAPNum|GAMG|PCGAMGCreateG|KSPSolve|MatMult )/{print s, substr($0,1,62)}' $OUT/ab-lap256-events.txt | head -80
gzip $OUT/ab-lap256-events.txt
echo "total $((SECONDS-T0)) s"
