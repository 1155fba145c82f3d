#!/bin/bash
# session 26, call b (HEAD 87fa70d), the machine of call a kept warm: bench/brbilu.sh's ex45 step (PETSc's unmodified
# ex45 at 256^3, every configuration, a warm-up run first, the reference again at the end, GAMG included).
source bench/device-env.sh src/ksp/pc/impls/brbilu/tests/ex1 || exit 1
[ -x $B/ex45 ] || mpicc -O2 -I$PETSC_DIR/include $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c -o $B/ex45 -Wl,-rpath,$PETSC_DIR/lib -L$PETSC_DIR/lib -lpetsc -lm
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
timeout $((580 - (SECONDS - T0))) bench/brbilu.sh $OUT/bench ex45
echo "bench rc=$? at $((SECONDS-T0)) s"
tar czf $OUT/ex45-runs.tar.gz -C $OUT/bench runs && rm -rf $OUT/bench/runs
