#!/bin/bash
# session 24, call b: issue 13's table of every preconditioner on one GPU (bench/composition.sh table: PETSc's ex45 at
# 128^3, PCMG on 129^3) and point-block Jacobi on PETSc's snes ex19 (300^2, 4 fields), modsell against aijcusparse.
source bench/device-env.sh || exit 1
ex=$PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials
mpicc -O2 -I"$PETSC_DIR/include" "$ex/ex45.c" -o "$B/ex45" -Wl,-rpath,"$PETSC_DIR/lib" -L"$PETSC_DIR/lib" -lpetsc -lm || exit 1
timeout $((585-(SECONDS-T0))) bash bench/composition.sh $OUT/table table ex19; echo "== composition rc=$? at $((SECONDS-T0)) s"
