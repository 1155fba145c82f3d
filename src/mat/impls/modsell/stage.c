/*
   The CUDA vectors that stand for vectors in host memory in the device operations of both MATMODSELL types (PETSc with
   CUDA): aijcusparse refuses vectors in host memory, the matrix's device operations take them (VecCreate() without
   -vec_type cuda, as PETSc's tutorials make them) through work vectors of the matrix, made at the first such use and kept
   until the matrix is destroyed, the values copied in before the operation and the result copied out after it.
*/
#include <petscmodsell/private/modsellimpl.h>

#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

/* *work, a CUDA vector of A's rows (rows) or columns, made at its first use */
PetscErrorCode MatModSELLStageVecGet_Private(Mat A, Vec *work, PetscBool rows)
{
  PetscFunctionBegin;
  if (!*work) {
    PetscCall(VecCreate(PetscObjectComm((PetscObject)A), work));
    PetscCall(VecSetLayout(*work, rows ? A->rmap : A->cmap));
    PetscCall(VecSetType(*work, VECCUDA));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst <- the local values of src (either in host or device memory) */
static PetscErrorCode MSVecCopyLocal(Vec src, Vec dst)
{
  const PetscScalar *a;
  PetscScalar       *d;
  PetscMemType       ma, md;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayReadAndMemType(src, &a, &ma));
  PetscCall(VecGetArrayWriteAndMemType(dst, &d, &md));
  if (n) PetscCallCUDA(cudaMemcpy(d, a, (size_t)n * sizeof(PetscScalar), cudaMemcpyDefault));
  if (PetscMemTypeHost(ma) && PetscMemTypeDevice(md)) PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(PetscScalar)));
  if (PetscMemTypeDevice(ma) && PetscMemTypeHost(md)) PetscCall(PetscLogGpuToCpu((PetscLogDouble)n * sizeof(PetscScalar)));
  PetscCall(VecRestoreArrayWriteAndMemType(dst, &d));
  PetscCall(VecRestoreArrayReadAndMemType(src, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLStageVecIn_Private(Mat A, Vec *work, PetscBool rows, Vec v, Vec src, Vec *dv)
{
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  if (cuda) {
    *dv = v;
    if (src && src != v) PetscCall(VecCopy(src, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatModSELLStageVecGet_Private(A, work, rows));
  *dv = *work;
  if (src) PetscCall(MSVecCopyLocal(src, *dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLStageVecOut_Private(Vec v, Vec dv)
{
  PetscFunctionBegin;
  if (dv != v) PetscCall(MSVecCopyLocal(dv, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
