/*
   Registration of the petsc-modsell Krylov methods and of their layer's events (called by
   PetscModSELLInitializePackage()).
*/
#include <petscmodsell/private/kspmsimpl.h>

PETSC_INTERN PetscErrorCode KSPCreate_CGDevice(KSP);    /* src/ksp/ksp/impls/cgdevice/cgdevice.c */
PETSC_INTERN PetscErrorCode KSPCreate_BCGSDevice(KSP);  /* src/ksp/ksp/impls/bcgsdevice/bcgsdevice.c */
PETSC_INTERN PetscErrorCode KSPCreate_GMRESDevice(KSP); /* src/ksp/ksp/impls/gmresdevice/gmresdevice.c */

PetscErrorCode PetscModSELLRegisterKSPs_Private(void)
{
  PetscFunctionBegin;
  PetscCall(KSPInitializePackage());
  PetscCall(KSPRegister(KSPCGDEVICE, KSPCreate_CGDevice));
  PetscCall(KSPRegister(KSPBCGSDEVICE, KSPCreate_BCGSDevice));
  PetscCall(KSPRegister(KSPGMRESDEVICE, KSPCreate_GMRESDevice));
  /* the device Krylov layer (src/ksp/ksp/utils/kspms.c): the plan of a solve (vectors staged, the pointwise PC's
     diagonal, the memory); the start and the iterations (GPU time and flops of their kernels and graphs) */
  PetscCall(PetscLogEventRegister("KSPDeviceSetUp", KSP_CLASSID, &KSPMS_SetUp));
  PetscCall(PetscLogEventRegister("KSPDeviceIter", KSP_CLASSID, &KSPMS_Iterations));
  PetscFunctionReturn(PETSC_SUCCESS);
}
