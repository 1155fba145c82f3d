static char help[] = "modsell_solve.py in C: a MATMODSELL matrix (the 2D 5-point Laplacian, -n 32) solved with CG and a plugin\n\
preconditioner (-pc_type, bjsmooth); prints the matrix type, convergence, the true residual and the error.\n\
Load the plugin with -dll_append <path>/libpetscmodsell.so, as the Python script does.\n\n";

/*
   The C twin of examples/python/modsell_solve.py: the same matrix, right-hand side, solver and printed lines,
   so that the harness checks the petsc4py script against it (one expected output for both). Like the script,
   it registers nothing itself: the types come from -dll_append.
*/
#include <petscksp.h>

int main(int argc, char **argv)
{
  Mat       A;
  Vec       xstar, b, x, r;
  KSP       ksp;
  PC        pc;
  PetscInt  n = 32, N, lo, hi;
  PetscReal rtol, relres, err, nb, nx;
  char      mattype[256] = "modsell";
  MatType   mt;
  KSPType   kt;
  PCType    pt;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mattype, sizeof(mattype), NULL));
  N = n * n;

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, mattype));
  PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 4, NULL));
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt row = lo; row < hi; row++) {
    const PetscInt i = row % n, j = row / n;
    PetscCall(MatSetValue(A, row, row, 4.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, row, row - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, row, row + 1, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(A, row, row - n, -1.0, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(A, row, row + n, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  PetscCall(MatCreateVecs(A, &xstar, &b));
  for (PetscInt row = lo; row < hi; row++) PetscCall(VecSetValue(xstar, row, PetscCosReal((PetscReal)row), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(xstar));
  PetscCall(VecAssemblyEnd(xstar));
  PetscCall(MatMult(A, xstar, b));
  PetscCall(VecDuplicate(b, &x));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, "bjsmooth"));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 5000));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));

  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &relres));
  PetscCall(VecNorm(b, NORM_2, &nb));
  relres /= nb;
  PetscCall(VecAXPY(x, -1.0, xstar));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecNorm(xstar, NORM_2, &nx));
  err /= nx;
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatGetType(A, &mt));
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(PCGetType(pc, &pt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix: %s, %" PetscInt_FMT " rows (5-point Laplacian, %" PetscInt_FMT " x %" PetscInt_FMT ")\n", mt, N, n, n));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP %s + PC %s: converged: %s\n", kt, pt, reason > 0 ? "yes" : "NO"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "true residual ||b - A x|| / ||b|| <= 2 rtol: %s\n", relres <= 2 * rtol ? "yes" : "NO"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error ||x - x*|| / ||x*|| < 1e-4: %s\n", err < 1e-4 ? "yes" : "NO"));

  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xstar));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: double !complex

  # the C program and the petsc4py script print the same lines: one expected output for both, per preconditioner
  # (the plugin from -dll_append in both; 1 and 2 processes)

  testset:
    args: -dll_append ${PETSCMODSELL_LIB} -pc_type bjsmooth
    output_file: output/modsell_solve_bjsmooth.out
    test:
      suffix: bjsmooth
    test:
      suffix: bjsmooth_petsc4py
      requires: petsc4py
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/modsell_solve.py ${args}

  testset:
    args: -dll_append ${PETSCMODSELL_LIB} -pc_type ruiz
    output_file: output/modsell_solve_ruiz.out
    test:
      suffix: ruiz
    test:
      suffix: ruiz_petsc4py
      requires: petsc4py
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/modsell_solve.py ${args}

  testset:
    args: -dll_append ${PETSCMODSELL_LIB} -pc_type brbilu
    output_file: output/modsell_solve_brbilu.out
    test:
      suffix: brbilu
    test:
      suffix: brbilu_petsc4py
      requires: petsc4py
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/modsell_solve.py ${args}

  testset:
    nsize: 2
    args: -dll_append ${PETSCMODSELL_LIB} -pc_type bisai
    output_file: output/modsell_solve_bisai_2.out
    test:
      suffix: bisai_2
    test:
      suffix: bisai_2_petsc4py
      requires: petsc4py
      command: ${mpiexec} -n 2 ${PETSCMODSELL_PYTHON} @SRCDIR@/modsell_solve.py ${args}

  testset:
    nsize: 2
    args: -dll_append ${PETSCMODSELL_LIB} -pc_type neumann
    output_file: output/modsell_solve_neumann_2.out
    test:
      suffix: neumann_2
    test:
      suffix: neumann_2_petsc4py
      requires: petsc4py
      command: ${mpiexec} -n 2 ${PETSCMODSELL_PYTHON} @SRCDIR@/modsell_solve.py ${args}

TEST*/
