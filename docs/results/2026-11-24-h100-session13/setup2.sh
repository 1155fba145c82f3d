# source .carry/setup2.sh: PETSc with CUDA from the carried tarball, the plugin in build-cuda/, ex45 and ex2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=
[ -f $PETSC_DIR/include/petscconf.h ] || { mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache; }
B=$PWD/build-cuda
make BUILD=$B -j24 lib > /tmp/setup-build.log 2>&1 || tail -30 /tmp/setup-build.log
ex=$PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials
[ -x $B/ex45 ] || mpicc -O2 -I$PETSC_DIR/include $ex/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
[ -x $B/ex2 ] || mpicc -O2 -I$PETSC_DIR/include $ex/ex2.c -o $B/ex2 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
