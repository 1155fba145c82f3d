#!/bin/bash
# session 11, device call D (instrumented scratch build): where modsell's MatAssemblyEnd goes
source .carry/setup2.sh >/dev/null 2>&1; B=$PWD/build-cuda
make BUILD=$B -j16 $B/bin/examples/fvm/fvmpoisson 2>&1 | grep -iE " error" | tail -3
F=$B/bin/examples/fvm/fvmpoisson; S=/tmp/s11b; mkdir -p $S
gen() { [ -f $S/$1.bin ] || timeout 150 $F -write_system $S/$1.bin -mat_type aij -compare 0 -ksp_max_it 1 "${@:2}" > /dev/null 2>&1; }
gen nat -n 120 -cell tet -permute 0 & gen rnd -n 120 -cell tet -permute 1 & wait
MS_TIMING=1 timeout 100 $F -read_system $S/nat.bin -configs modsell:jacobi,aijcusparse:jacobi -repeat 1 2>&1 | grep -E "MSTIMING|aijmodsell|aijcusparse|setup:" | cut -c1-200
MS_TIMING=1 timeout 100 $F -read_system $S/rnd.bin -configs modsell:jacobi -repeat 1 2>&1 | grep -E "MSTIMING|aijmodsell|setup:" | cut -c1-200
