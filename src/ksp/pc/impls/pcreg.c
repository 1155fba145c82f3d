/*
   Registration of the petsc-modsell preconditioners (called by PetscModSELLInitializePackage()).
*/
#include <petscmodsell/private/modsellimpl.h>

PETSC_INTERN PetscErrorCode PCRegister_Ruiz_Private(void); /* src/ksp/pc/impls/ruiz/ruiz.c */

PetscErrorCode PetscModSELLRegisterPCs_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister_Ruiz_Private());
  PetscFunctionReturn(PETSC_SUCCESS);
}
