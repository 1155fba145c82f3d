/*
   Registration of the petsc-modsell preconditioners (called by PetscModSELLInitializePackage()).
*/
#include <petscmodsell/private/modsellimpl.h>

PetscErrorCode PetscModSELLRegisterPCs_Private(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}
