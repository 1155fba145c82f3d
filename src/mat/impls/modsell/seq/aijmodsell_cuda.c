/*
   MATSEQAIJMODSELL's device operations (PETSc with CUDA), installed by MatSeqAIJModSELLSetBackendOps() unless the matrix
   is bound to the CPU (as aijcusparse's MatBindToCPU() swaps its operations): the products and the diagonal of the
   device image (MSImageOps_CUDA), the transposed products of the cuSPARSE view (cusparseview.c).

   Where the matrix computes is decided once, never by the vectors: aijcusparse refuses vectors in host memory, these
   operations take them (VecCreate() without -vec_type cuda, as PETSc's tutorials make them). Such a vector is staged
   through a CUDA work vector of the matrix (stage.c): its values copied in before the operation, the result copied out
   after it; the operation itself is the same. A vector in device memory is used as it is: the staging costs the
   products on CUDA vectors nothing.
*/
#include "../imageimpl.h"

#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

/* The device array of a vector's array a (memory type mt) for an image operation: a itself in device memory, else the
   device array of the work vector *work (of A's rows or columns), a's values copied in when in */
typedef struct {
  Vec          w; /* the work vector standing for the vector (NULL: its own array) */
  PetscScalar *d;
  PetscInt     n;
} MSStage;

static PetscErrorCode MSStageBegin(Mat A, Vec *work, PetscBool rows, const PetscScalar *a, PetscMemType mt, PetscBool in, MSStage *s)
{
  PetscFunctionBegin;
  s->w = NULL;
  s->d = (PetscScalar *)a;
  s->n = 0;
  if (PetscMemTypeDevice(mt)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatModSELLStageVecGet_Private(A, work, rows));
  s->w = *work;
  PetscCall(VecGetLocalSize(s->w, &s->n));
  PetscCall(VecCUDAGetArrayWrite(s->w, &s->d));
  if (in && s->n) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(s->d, a, (size_t)s->n * sizeof(PetscScalar), cudaMemcpyHostToDevice, stream)); /* a is read on return */
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)s->n * sizeof(PetscScalar)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the end of a staged vector: its result copied out to a when out */
static PetscErrorCode MSStageEnd(MSStage *s, PetscScalar *a, PetscBool out)
{
  PetscFunctionBegin;
  if (!s->w) PetscFunctionReturn(PETSC_SUCCESS);
  if (out && s->n) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(a, s->d, (size_t)s->n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)s->n * sizeof(PetscScalar)));
  }
  PetscCall(VecCUDARestoreArrayWrite(s->w, &s->d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = w + ys A x through the cuSPARSE view (the layout MATMODSELL_LAYOUT_CUSPARSE): aijcusparse's MatMult() or
   MatMultAdd(), the residual w - A x as MatMult() then y = w - y (a work vector when w is y); vectors in host memory
   staged through the matrix's CUDA work vectors. A block of an MPI matrix gets its parallel vectors: the view's
   operations use their local values. */
static PetscErrorCode MatMultAddCUSPARSE_SeqAIJModSELL(Mat A, Vec xx, Vec ww, PetscScalar ys, Vec yy)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  Vec                xs, ws = NULL, yv, t;
  Mat                S;

  PetscFunctionBegin;
  PetscCheck(ys == 1.0 || ys == -1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The sign of the product must be 1 or -1, not %g", (double)PetscRealPart(ys));
  PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[0], PETSC_FALSE, xx, xx, &xs));
  if (ww && ww != yy) PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[2], PETSC_TRUE, ww, ww, &ws));
  PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[1], PETSC_TRUE, yy, ww == yy ? yy : NULL, &yv));
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &S));
  if (!ww) PetscCall((*S->ops->mult)(S, xs, yv));
  else if (ys == 1.0) PetscCall((*S->ops->multadd)(S, xs, ww == yy ? yv : ws, yv));
  else { /* y = w - A x on the local values (the vectors may be of different types: cuBLAS on their arrays) */
    cublasHandle_t     h;
    const PetscScalar *wa;
    PetscScalar       *ya;
    PetscInt           n;
    PetscBLASInt       bn;
    const PetscScalar  one = 1.0, mone = -1.0;

    if (ww == yy) {
      PetscCall(MatModSELLStageVecGet_Private(A, &ms->stage[2], PETSC_TRUE));
      t = ms->stage[2];
    } else t = yv;
    PetscCall((*S->ops->mult)(S, xs, t)); /* A x */
    PetscCall(VecGetLocalSize(yv, &n));
    PetscCall(PetscBLASIntCast(n, &bn));
    PetscCall(PetscCUBLASGetHandle(&h));
    PetscCall(VecCUDAGetArray(yv, &ya));
    if (ww == yy) { /* y += -(A x) */
      PetscCall(VecCUDAGetArrayRead(t, &wa));
      PetscCallCUBLAS(cublasDaxpy(h, bn, &mone, wa, 1, ya, 1));
      PetscCall(VecCUDARestoreArrayRead(t, &wa));
    } else { /* y = -(A x) + w */
      PetscCall(VecCUDAGetArrayRead(ws, &wa));
      PetscCallCUBLAS(cublasDscal(h, bn, &mone, ya, 1));
      PetscCallCUBLAS(cublasDaxpy(h, bn, &one, wa, 1, ya, 1));
      PetscCall(VecCUDARestoreArrayRead(ws, &wa));
    }
    PetscCall(VecCUDARestoreArray(yv, &ya));
    PetscCall(PetscLogGpuFlops(2.0 * n));
  }
  PetscCall(MatModSELLStageVecOut_Private(yy, yv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = w + ys A x on the device image of the product's layout (w NULL: y = A x; ys = 1, or -1 for the residual w - A x),
   or through the cuSPARSE view */
static PetscErrorCode MatMultAddKernel_SeqAIJModSELL_CUDA(Mat A, Vec xx, Vec ww, PetscScalar ys, Vec yy)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  MSImage            img;
  const PetscScalar *x, *w = NULL;
  PetscScalar       *y;
  PetscMemType       mx, mw = PETSC_MEMTYPE_DEVICE, my;
  MSStage            sx, sw, sy;

  PetscFunctionBegin;
  PetscCheck(xx != yy, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "x and y must be different vectors");
  PetscCall(MatSeqAIJModSELLProductImage_Private(A, ms->iops, &img));
  if (!img) {
    PetscCall(MatMultAddCUSPARSE_SeqAIJModSELL(A, xx, ww, ys, yy));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayReadAndMemType(xx, &x, &mx));
  if (ww && ww != yy) PetscCall(VecGetArrayReadAndMemType(ww, &w, &mw));
  if (ww == yy) PetscCall(VecGetArrayAndMemType(yy, &y, &my));
  else PetscCall(VecGetArrayWriteAndMemType(yy, &y, &my));
  PetscCall(MSStageBegin(A, &ms->stage[0], PETSC_FALSE, x, mx, PETSC_TRUE, &sx));
  PetscCall(MSStageBegin(A, &ms->stage[1], PETSC_TRUE, y, my, (PetscBool)(ww == yy), &sy));
  PetscCall(MSStageBegin(A, &ms->stage[2], PETSC_TRUE, w, mw, PETSC_TRUE, &sw));
  PetscCall(ms->iops->mult(img, sx.d, ww ? (ww == yy ? sy.d : sw.d) : NULL, ys, sy.d));
  PetscCall(MSStageEnd(&sw, NULL, PETSC_FALSE));
  PetscCall(MSStageEnd(&sy, y, PETSC_TRUE));
  PetscCall(MSStageEnd(&sx, NULL, PETSC_FALSE));
  PetscCall(VecRestoreArrayReadAndMemType(xx, &x));
  if (ww && ww != yy) PetscCall(VecRestoreArrayReadAndMemType(ww, &w));
  if (ww == yy) PetscCall(VecRestoreArrayAndMemType(yy, &y));
  else PetscCall(VecRestoreArrayWriteAndMemType(yy, &y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_SeqAIJModSELL_CUDA(Mat A, Vec v)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  MSImage            img;
  PetscScalar       *d;
  PetscMemType       mt;
  PetscBool          stale;
  MSStage            sd;

  PetscFunctionBegin;
  /* the diagonal is kept apart only by the modsell kernel's square diagonal blocks; and when the device image holds the
     values of an earlier state (e.g. MatCreateSubMatrix() increases the state of the new matrix once more after its
     assembly made the image), the diagonal comes from the host's values, as aijcusparse takes it where its values are,
     instead of uploading all values for it (PCFIELDSPLIT's splits with -ksp_type preonly and PCJACOBI never multiply);
     a product uploads them when it needs them */
  if (ms->settings.kernel != MATMODSELL_KERNEL_MODSELL || ms->offdiag_block || A->rmap->n != A->cmap->n) stale = PETSC_TRUE;
  else PetscCall(MatSeqAIJModSELLProductValuesStale_Private(A, ms->iops, &stale)); /* the cuSPARSE view's product too */
  if (stale) {
    PetscCall((*ms->parent.getdiagonal)(A, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayWriteAndMemType(v, &d, &mt));
  PetscCall(MatSeqAIJModSELLProductImage_Private(A, ms->iops, &img));
  PetscCall(MSStageBegin(A, &ms->stage[1], PETSC_TRUE, d, mt, PETSC_FALSE, &sd));
  PetscCall(ms->iops->getdiagonal(img, sd.d));
  PetscCall(MSStageEnd(&sd, d, PETSC_TRUE));
  PetscCall(VecRestoreArrayWriteAndMemType(v, &d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLSetDeviceOps_Private(Mat A)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  ms->iops                 = &MSImageOps_CUDA;
  ms->multadd              = MatMultAddKernel_SeqAIJModSELL_CUDA;
  A->ops->getdiagonal      = MatGetDiagonal_SeqAIJModSELL_CUDA;
  A->ops->multtranspose    = MatMultTranspose_SeqAIJModSELL;
  A->ops->multtransposeadd = MatMultTransposeAdd_SeqAIJModSELL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
