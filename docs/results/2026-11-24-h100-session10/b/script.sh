#!/bin/bash
# session 10, device call B: where modsell's setup goes on the demo mesh (4.1 M hex, random numbering): one configuration per
# process, -log_view per configuration (assembly, image events, first product); modsell with ordering natural too
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s10b; mkdir -p $S
timeout 150 $F -n 160 -write_system $S/demo.bin -mat_type aij -compare 0 -ksp_max_it 1 > /dev/null 2>&1
for round in 1 2; do
for c in aijcusparse:jacobi modsell:jacobi modsell:jacobi:natural; do
  o=; case $c in *:natural) o="-mat_modsell_ordering natural"; c=${c%:natural};; esac
  n=$(echo "$c$o" | tr ': ' '__')
  timeout 100 $F -read_system $S/demo.bin -configs $c $o -repeat 3 -log_view :$OUT/lv-$n-$round.txt > $OUT/run-$n-$round.txt 2>&1
  echo "== $c $o (round $round)"; grep -E "aijcusparse|aijmodsell|setup: " $OUT/run-$n-$round.txt | cut -c1-200
  grep -E "^(MatAssemblyEnd|ModSELL|MatCUSPARSCopyTo|KSPSetUp|PCSetUp|MatMult |MatGetRowIJ|VecSet|MatZeroEntries) " $OUT/lv-$n-$round.txt | cut -c1-60
done; done
