/*
   Registration of every petsc-modsell type, for -dll_append and for applications that link the library.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/localityimpl.h>
#include <petscmodsell/private/kspmsimpl.h>

static PetscBool PetscModSELLPackageInitialized = PETSC_FALSE;
static PetscBool PetscModSELLLoading            = PETSC_FALSE; /* PETSc loads the library (-dll_append): inside PetscInitialize(), after its registries exist */

/*@C
  PetscModSELLFinalizePackage - Called from `PetscFinalize()` to forget that the package was initialized

  Level: developer

.seealso: `PetscModSELLInitializePackage()`
@*/
PetscErrorCode PetscModSELLFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscModSELLPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscModSELLInitializePackage - Registers the petsc-modsell matrix and preconditioner types and log events

  Not Collective

  Level: beginner

  Notes:
  Called automatically when the library is loaded with `-dll_append libpetscmodsell.so`, and by
  `MatCreateModSELL()`. An application that links the library and selects the types from the options
  database calls it once after `PetscInitialize()`. Called before `PetscInitialize()` or after `PetscFinalize()` it
  registers nothing, prints why on stderr and returns `PETSC_ERR_ORDER`.

.seealso: `MATMODSELL`, `PCRUIZ`
@*/
PetscErrorCode PetscModSELLInitializePackage(void)
{
  /* before PetscInitialize() (or after PetscFinalize()) nothing can be registered: the registries do not exist yet
     and PETSc's error handling is not set up, so say so on stderr and return the error code */
  if ((!PetscInitializeCalled && !PetscModSELLLoading) || PetscFinalizeCalled) {
    (void)fprintf(stderr, "PetscModSELLInitializePackage() was called %s: call it after PetscInitialize() and before PetscFinalize() (or load the library with -dll_append, which calls it)\n", PetscFinalizeCalled ? "after PetscFinalize()" : "before PetscInitialize()");
    return PETSC_ERR_ORDER;
  }
  PetscFunctionBegin;
  if (PetscModSELLPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscModSELLPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(PCInitializePackage());
  PetscCall(MatRegister(MATSEQAIJMODSELL, MatCreate_SeqAIJModSELL));
  PetscCall(MatRegister(MATMPIAIJMODSELL, MatCreate_MPIAIJModSELL));
  PetscCall(MatRegisterRootName(MATMODSELL, MATSEQAIJMODSELL, MATMPIAIJMODSELL));
  /* the same types under a name that begins with "aij": PETSc's DMDA makes its interpolation matrices (PCMG) of the
     DM's matrix type only for such names (else MATAIJ, on the host) */
  PetscCall(MatRegisterRootName(MATAIJMODSELL, MATSEQAIJMODSELL, MATMPIAIJMODSELL));
  /* factorizations (seq/factor.c): SeqAIJ's by default (PCILU, PCBJACOBI's sub-solves with vectors of any type,
     VecCreate()'s included); with CUDA also -pc_factor_mat_solver_type cusparse: aijcusparse's factors of the matrix's
     cuSPARSE view (CUDA vectors) */
  {
    const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};
    for (size_t i = 0; i < sizeof(ftypes) / sizeof(ftypes[0]); i++) {
      PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQAIJMODSELL, ftypes[i], MatGetFactor_SeqAIJModSELL_PETSc));
#if defined(PETSC_HAVE_CUDA)
      PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, MATSEQAIJMODSELL, ftypes[i], MatGetFactor_SeqAIJModSELL_CUSPARSE));
#endif
    }
  }
  PetscCall(PetscLogEventRegister("ModSELLBuild", MAT_CLASSID, &MATMODSELL_ImageBuild));
  PetscCall(PetscLogEventRegister("ModSELLValues", MAT_CLASSID, &MATMODSELL_ImageValues));
  PetscCall(PetscLogEventRegister("ModSELLUpload", MAT_CLASSID, &MATMODSELL_Upload));
  PetscCall(PetscLogEventRegister("ModSELLView", MAT_CLASSID, &MATMODSELL_View)); /* making a cuSPARSE view (its device CSR is uploaded at its first device use) */
  PetscCall(PetscLogEventRegister("ModSELLGraph", MAT_CLASSID, &MATMODSELL_Graph)); /* PCGAMG's graph made on the GPU (MatCreateGraph()) */
  PetscCall(PetscLogEventRegister("ModSELLPartition", MAT_CLASSID, &MATMODSELL_Partition));
  PetscCall(PetscModSELLRegisterPCs_Private());
  PetscCall(PetscModSELLRegisterKSPs_Private()); /* src/ksp/ksp/interface/kspregis.c */
  {
    PetscReal limit = 0;
    PetscBool set;

    PetscCall(PetscOptionsGetReal(NULL, NULL, "-modsell_device_alloc_limit", &limit, &set));
    if (set) PetscCall(MSDeviceSetAllocLimit((double)limit));
  }
  PetscCall(PetscRegisterFinalize(PetscModSELLFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PetscDLLibraryAppend() when PETSc loads libpetscmodsell.so (-dll_append) */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscmodsell(void)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscModSELLLoading = PETSC_TRUE; /* PetscInitializeCalled is set at the end of PetscInitialize(), after the libraries are loaded */
  ierr                = PetscModSELLInitializePackage();
  PetscModSELLLoading = PETSC_FALSE;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
