/*
   The layer shared by the petsc-modsell preconditioners: see include/petscmodsell/private/pcmsimpl.h.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petsc/private/vecimpl.h>

PetscErrorCode PCMSVecIsDevice(Vec v, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool bound;

    /* PETSc's device vector types provide getarrayandmemtype (a host vector, or one bound to the CPU, does not) */
    PetscCall(VecBoundToCPU(v, &bound));
    *dev = (PetscBool)(!bound && v->ops->getarrayandmemtype != NULL);
  }
#else
  (void)v;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSStageIn(PCMSStage *st, PetscInt which, Vec v, PetscBool copy, Vec *use)
{
  PetscBool dev;
  Vec      *sv = which ? &st->out : &st->in;

  PetscFunctionBegin;
  PetscCall(PCMSVecIsDevice(v, &dev));
  if (dev) {
    *use = v;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (*sv) { /* keep it while the layout matches */
    PetscBool same;

    PetscCall(PetscLayoutCompare((*sv)->map, v->map, &same));
    if (!same) PetscCall(VecDestroy(sv));
  }
  if (!*sv) {
    PetscCall(VecCreate(PetscObjectComm((PetscObject)v), sv));
    PetscCall(VecSetLayout(*sv, v->map));
    PetscCall(VecSetType(*sv, VECCUDA));
  }
  if (copy) PetscCall(VecCopy(v, *sv));
  *use = *sv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSStageOut(Vec v, Vec use)
{
  PetscFunctionBegin;
  if (use != v) PetscCall(VecCopy(use, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSStageDestroy(PCMSStage *st)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&st->in));
  PetscCall(VecDestroy(&st->out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecGetArray(PC pc, Vec v, PetscBool device, PetscMemoryAccessMode mode, PetscScalar **a)
{
  PetscMemType mt = PETSC_MEMTYPE_HOST;

  PetscFunctionBegin;
  if (device) {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)a, &mt));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecGetArrayWriteAndMemType(v, a, &mt));
    else PetscCall(VecGetArrayAndMemType(v, a, &mt));
    if (!PetscMemTypeDevice(mt)) {
      PetscCall(PCMSVecRestoreArray(v, PETSC_TRUE, mode, a));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a vector of type %s in host memory reached a GPU kernel (it should have been copied to the device first)", ((PetscObject)pc)->type_name, ((PetscObject)v)->type_name);
    }
  } else {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecGetArrayRead(v, (const PetscScalar **)a));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecGetArrayWrite(v, a));
    else PetscCall(VecGetArray(v, a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecRestoreArray(Vec v, PetscBool device, PetscMemoryAccessMode mode, PetscScalar **a)
{
  PetscFunctionBegin;
  if (device) {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecRestoreArrayReadAndMemType(v, (const PetscScalar **)a));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecRestoreArrayWriteAndMemType(v, a));
    else PetscCall(VecRestoreArrayAndMemType(v, a));
  } else {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecRestoreArrayRead(v, (const PetscScalar **)a));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecRestoreArrayWrite(v, a));
    else PetscCall(VecRestoreArray(v, a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
