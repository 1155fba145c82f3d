static char help[] = "Calling PetscModSELLInitializePackage() in the wrong order is an error, not a silent corruption.\n\n";

/*
   An application that links libpetscmodsell calls PetscModSELLInitializePackage() after PetscInitialize(). Called
   before it (or after PetscFinalize()) the function registers nothing and returns PETSC_ERR_ORDER with a message on
   stderr; the program then runs normally (PETSc reports no corrupted memory at exit, -malloc_debug in debug builds).
*/
#include <petscmodsell.h>

int main(int argc, char **argv)
{
  PetscErrorCode before, after, again;
  PetscBool      found;
  MatType        type;
  Mat            A;

  before = PetscModSELLInitializePackage(); /* too early: stderr says so */
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "before PetscInitialize(): %s\n", before == PETSC_ERR_ORDER ? "PETSC_ERR_ORDER" : "not an ordering error"));
  after = PetscModSELLInitializePackage();
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after PetscInitialize(): %s\n", after == PETSC_SUCCESS ? "success" : "an error"));
  /* the types are registered now */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, 4, 4, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(A, MATMODSELL));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscStrbeginswith(type, "seqaijmodsell", &found));
  if (!found) PetscCall(PetscStrbeginswith(type, "mpiaijmodsell", &found));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MATMODSELL registered: %s\n", found ? "yes" : "no"));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  again = PetscModSELLInitializePackage(); /* too late */
  if (again != PETSC_ERR_ORDER) return 1;
  return 0;
}

/*TEST

   # stderr and stdout together: the message names the mistake and the remedy
   test:
      suffix: order
      args: -malloc_debug
      filter: Error: cat

TEST*/
