static char help[] = "Regression tests of MATMODSELL: operations that replace or wrap matrix operations.\n\
MatIsSymmetric() on several processes extracts submatrices (MatCreateSubMatrices()), which install their own\n\
destroy operation on a MATSEQAIJMODSELL; assembly must keep it (-malloc_dump reports a leak otherwise).\n\n";

#include <petscmodsell.h>

int main(int argc, char **argv)
{
  Mat       A;
  PetscInt  n = 40, rs, re;
  PetscBool sym;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(A, MATMODSELL));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 3, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatIsSymmetric(A, 0.0, &sym));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "symmetric: %s\n", sym ? "yes" : "no"));
  PetscCall(MatSetValue(A, rs, rs, 3.0, ADD_VALUES)); /* a value change after the submatrices existed */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatIsSymmetric(A, 0.0, &sym));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "symmetric after a diagonal change: %s\n", sym ? "yes" : "no"));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: issymmetric
     nsize: 2
     args: -malloc_dump

   test:
     suffix: issymmetric_3
     nsize: 3
     args: -malloc_dump -mat_modsell_slice_height 32
     output_file: output/ex1_issymmetric.out

TEST*/
