#!/bin/bash
# session 13, device call G: bench/brbilu.sh ex45 (256^3) on the final tree: every configuration once after a warm-up,
# setup + solve with the MATMODSELL upload counted
T0=$SECONDS
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 560 bash bench/brbilu.sh $OUT/b ex45 > /dev/null 2>&1
cut -c1-400 $OUT/b/brbilu.log
(cd $OUT/b && tar czf ../runs.tgz runs && rm -rf runs)
echo "total $((SECONDS-T0)) s"
