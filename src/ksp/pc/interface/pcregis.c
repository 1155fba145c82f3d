/*
   Registration of the petsc-modsell preconditioners (called by PetscModSELLInitializePackage()).
*/
#include <petscmodsell/private/pcmsimpl.h>

PETSC_INTERN PetscErrorCode PCRegister_Ruiz_Private(void); /* src/ksp/pc/impls/ruiz/ruiz.c */
PETSC_INTERN PetscErrorCode PCRegister_BJSmooth_Private(void); /* src/ksp/pc/impls/bjsmooth/bjsmooth.c */
PETSC_INTERN PetscErrorCode PCRegister_BRBILU_Private(void); /* src/ksp/pc/impls/brbilu/brbilu.c */
PETSC_INTERN PetscErrorCode PCRegister_BISAI_Private(void); /* src/ksp/pc/impls/bisai/bisai.c */
PETSC_INTERN PetscErrorCode PCRegister_Neumann_Private(void); /* src/ksp/pc/impls/neumann/neumann.c */

PetscErrorCode PetscModSELLRegisterPCs_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister_Ruiz_Private());
  PetscCall(PCRegister_BJSmooth_Private());
  PetscCall(PCRegister_BRBILU_Private());
  PetscCall(PCRegister_BISAI_Private());
  PetscCall(PCRegister_Neumann_Private());
  PetscFunctionReturn(PETSC_SUCCESS);
}
