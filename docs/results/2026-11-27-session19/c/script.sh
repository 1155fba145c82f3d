#!/bin/bash
# session 19, call c (the 4-GPU machine of a and b, GPU 0 only): issue 13's ex45 256^3 CG + GAMG setup and one
# iteration (bench/composition.sh ex45it, 3 rounds alternated); issue 12's FVM 10.4 M structured tetrahedra, CG +
# bjsmooth with the defaults and with -pc_bjsmooth_ordering partition, against aijcusparse + Jacobi.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUDA_VISIBLE_DEVICES=0; cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=; T0=$SECONDS
[ -d $PETSC_DIR ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda; [ -f $B/lib/libpetscmodsell.so ] || make BUILD=$B -j48 lib > /dev/null 2>&1
echo "ready at $((SECONDS-T0))"; export BUILD=$B
EX45_ROUNDS=3 timeout 300 bash bench/composition.sh $OUT/comp ex45it 2>&1 | tail -25
echo "ex45it done at $((SECONDS-T0))"
make BUILD=$B $B/bin/examples/fvm/fvmpoisson > /dev/null 2>&1
for o in "" "-pc_bjsmooth_ordering partition"; do
  [ $((SECONDS-T0)) -lt 420 ] || { echo "skipped fvm '$o': budget"; continue; }
  timeout $((575-(SECONDS-T0))) $B/bin/examples/fvm/fvmpoisson -n 120 -cell tet -permute 0 -configs aijcusparse:jacobi,modsell:bjsmooth -repeat 2 -use_gpu_aware_mpi 0 $o > $OUT/fvm${o:+-partition}.txt 2>&1
  echo "fvm '$o' rc $? at $((SECONDS-T0))"; tail -14 $OUT/fvm${o:+-partition}.txt
done
echo total $((SECONDS-T0))
