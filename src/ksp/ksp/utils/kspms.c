/*
   The layer shared by the device-resident Krylov methods (KSPCGDEVICE, KSPBCGSDEVICE, KSPGMRESDEVICE): see
   include/petscmodsell/private/kspmsimpl.h for what a method gets and krylovkernels.h for the kernels.

   Design.
   PETSc's Krylov methods run each vector operation as its own kernel and bring every inner product back to the host,
   which waits for it: three waits and about nine launches per CG iteration, and a pass over memory per operation.
   Here a solve is planned once (KSPMSSolveBegin()), then its iterations are queued without waiting:
     - the scalars of the method (alpha, beta, rho, norms, ...) stay in the backend's memory (MSKrylovScalars) and are
       computed there, by the last thread block of the kernel that completes their sums (one pass: the block partial
       sums and the final addition in one kernel, krylov.cu), which also runs the breakdown checks and the convergence
       test of KSPConvergedDefault() and sets `done`; every later kernel is a no-op, so the iteration that met the test
       is the one reported, with its solution;
     - the vector work of an iteration is fused: a pointwise preconditioner (PCNONE, PCJACOBI, PCRUIZ) is applied inside
       the update of x and r, which also forms the sums of the next norm and of r.z; a MATSEQAIJMODSELL operator's product
       carries p.Ap in its epilogue (any threads per row), and the method may form its vector updates inside it (the
       product recomputes them at the neighbours' rows from the previous vectors). Other preconditioners and operators
       are applied by PETSc between the kernels (still without a host wait);
     - a permuted image (orderings partition, rcm, bricks) with a fused preconditioner: the solve runs in the image's
       numbering, b, x and the PC's diagonal gathered into it at the start and x scattered back at the end, so that the
       product reads the image's column codes (in its numbering) directly and fuses as an unpermuted one;
     - the host learns that the solve stopped by reading the status every k steps (k = 1, 2, 4, ... up to
       -ksp_device_check_max) while the next block runs; at most one block of no-op steps is queued after the stop;
     - a plan whose steps are kernels only is captured as CUDA graphs of 1, 2, 4, ... steps and replayed;
     - several processes: as few MPI_Allreduce() per step as the method allows (CG's single-reduction form: one;
       BiCGSTAB's merged form: two; GMRES: its dots, then its norm), the local sums read through pinned host memory
       with the status, the global ones given to the finish kernel as its arguments;
     - monitors or another convergence test: the host reads the status after every step, calls them with the
       arguments the method's PETSc counterpart gives them, and the step completes with the host's reason (host test
       mode, in -ksp_view).
   The reference backend (host kernels) runs the same plan with host arrays: the CPU tests exercise the same logic.
*/
#include <petscmodsell/private/kspmsimpl.h>
#include <petscmodsell/private/pcmsimpl.h> /* PCMSVecIsDevice() */
#include <petsc/private/vecimpl.h>
#include <petsc/private/pcimpl.h>
#include <stddef.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

PetscLogEvent KSPMS_SetUp = 0, KSPMS_Iterations = 0;

/* the kernels' constants are PETSc's values */
_Static_assert(MS_KRYLOV_CONVERGED_RTOL == (int)KSP_CONVERGED_RTOL && MS_KRYLOV_CONVERGED_ATOL == (int)KSP_CONVERGED_ATOL && MS_KRYLOV_CONVERGED_ITS == (int)KSP_CONVERGED_ITS && MS_KRYLOV_CONVERGED_NEG_CURVE == (int)KSP_CONVERGED_NEG_CURVE && MS_KRYLOV_CONVERGED_HAPPY_BREAKDOWN == (int)KSP_CONVERGED_HAPPY_BREAKDOWN, "converged reasons");
_Static_assert(MS_KRYLOV_DIVERGED_ITS == (int)KSP_DIVERGED_ITS && MS_KRYLOV_DIVERGED_DTOL == (int)KSP_DIVERGED_DTOL && MS_KRYLOV_DIVERGED_BREAKDOWN == (int)KSP_DIVERGED_BREAKDOWN && MS_KRYLOV_DIVERGED_BREAKDOWN_BICG == (int)KSP_DIVERGED_BREAKDOWN_BICG && MS_KRYLOV_DIVERGED_INDEFINITE_PC == (int)KSP_DIVERGED_INDEFINITE_PC && MS_KRYLOV_DIVERGED_NANORINF == (int)KSP_DIVERGED_NANORINF && MS_KRYLOV_DIVERGED_INDEFINITE_MAT == (int)KSP_DIVERGED_INDEFINITE_MAT, "diverged reasons");
_Static_assert(MS_KRYLOV_NORM_NONE == (int)KSP_NORM_NONE && MS_KRYLOV_NORM_PRECONDITIONED == (int)KSP_NORM_PRECONDITIONED && MS_KRYLOV_NORM_UNPRECONDITIONED == (int)KSP_NORM_UNPRECONDITIONED && MS_KRYLOV_NORM_NATURAL == (int)KSP_NORM_NATURAL, "norm types");

/* the status: the leading members of MSKrylovScalars the host reads during a solve */
#define KSPMS_STATUS_BYTES offsetof(MSKrylovScalars, rtol)

#if defined(PETSC_HAVE_CUDA)
  #define KSPMSKernels(dev)   ((dev) ? &MSKrylovKernels_CUDA : &MSKrylovKernels_Reference)
  #define KSPMSNSKernels(dev) ((dev) ? &MSKrylovNSKernels_CUDA : &MSKrylovNSKernels_Reference)
  #define KSPMSImageOps(dev)  ((dev) ? &MSImageOps_CUDA : &MSImageOps_Reference)
#else
  #define KSPMSKernels(dev)   (&MSKrylovKernels_Reference)
  #define KSPMSNSKernels(dev) (&MSKrylovNSKernels_Reference)
  #define KSPMSImageOps(dev)  (&MSImageOps_Reference)
#endif

/* ---------------------------------------------------------------------------------------------------------- */
/* backend memory                                                                                               */

static PetscErrorCode KSPMSMalloc(KSPMS *ms, size_t bytes, const char *what, void **p)
{
  PetscFunctionBegin;
  bytes = PetscMax(bytes, (size_t)8);
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(MSDeviceMalloc(p, bytes, what));
    PetscCallCUDA(cudaMemset(*p, 0, bytes));
#endif
  } else PetscCall(PetscCalloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPMSFree(PetscBool device, void *p)
{
  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  if (device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCallCUDA(cudaFree(p));
#endif
  } else PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst (backend) <- src (host), queued on PETSc's stream (src may be reused on return) */
static PetscErrorCode KSPMSCopyIn(KSPMS *ms, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream)); /* src is pageable and may change on return */
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
#endif
  } else PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst (host) <- src (backend) after the work queued before */
static PetscErrorCode KSPMSCopyOut(KSPMS *ms, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  ms->nreads++;
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    cudaStream_t stream;
    void        *pin = (char *)ms->pinned + 2 * sizeof(MSKrylovScalars);

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    if (bytes <= sizeof(MSKrylovScalars)) { /* through pinned memory */
      PetscCallCUDA(cudaMemcpyAsync(pin, src, bytes, cudaMemcpyDeviceToHost, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream));
      PetscCall(PetscMemcpy(dst, pin, bytes));
    } else {
      PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream));
    }
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
#endif
  } else PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPMSFreeGraphs(KSPMS *ms)
{
  PetscFunctionBegin;
  for (PetscInt g = 0; g < KSPMS_MAXGRAPH; g++) {
#if defined(PETSC_HAVE_CUDA)
    if (ms->gexec[g]) PetscCallCUDA(cudaGraphExecDestroy((cudaGraphExec_t)ms->gexec[g]));
#endif
    ms->gexec[g]    = NULL;
    ms->gflops[g]   = 0.0;
    ms->gkernels[g] = 0;
    ms->gnodes[g]   = 0;
  }
  PetscCall(PetscMemzero(&ms->gsig, sizeof(ms->gsig)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the backend memory (kept while the backend is the same) */
static PetscErrorCode KSPMSFreeMemory(KSPMS *ms)
{
  const PetscBool dev = ms->device;

  PetscFunctionBegin;
  PetscCall(KSPMSFreeGraphs(ms));
  PetscCall(KSPMSFree(dev, ms->sc));
  PetscCall(KSPMSFree(dev, ms->partial));
  PetscCall(KSPMSFree(dev, ms->count));
  PetscCall(KSPMSFree(dev, ms->hist));
  PetscCall(KSPMSFree(dev, ms->xwork));
  for (PetscInt w = 0; w < KSPMS_MAXWORK; w++) {
    PetscCall(KSPMSFree(dev, ms->work[w]));
    ms->work[w]       = NULL;
    ms->work_bytes[w] = 0;
  }
  ms->sc          = NULL;
  ms->partial     = NULL;
  ms->count       = NULL;
  ms->hist        = NULL;
  ms->xwork       = NULL;
  ms->nblocks     = 0;
  ms->hist_bytes  = 0;
  ms->xwork_bytes = 0;
#if defined(PETSC_HAVE_CUDA)
  if (ms->pinned) PetscCallCUDA(cudaFreeHost(ms->pinned));
  if (ms->pinned_array) PetscCallCUDA(cudaFreeHost(ms->pinned_array));
  for (int e = 0; e < 2; e++)
    if (ms->ev[e]) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)ms->ev[e]));
  if (ms->cstream) PetscCallCUDA(cudaStreamDestroy((cudaStream_t)ms->cstream));
#endif
  ms->pinned  = NULL;
  ms->pinned_array       = NULL;
  ms->pinned_array_bytes = 0;
  ms->ev[0]   = ms->ev[1] = NULL;
  ms->cstream = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSReset(KSPMS *ms)
{
  PetscFunctionBegin;
  PetscCall(KSPMSFreeMemory(ms));
  for (PetscInt i = KSPMS_DIAG; i < KSPMS_MAXVEC; i++) PetscCall(VecDestroy(&ms->vec[i]));
  ms->vec[KSPMS_X] = ms->vec[KSPMS_B] = NULL;
  PetscCall(PetscMemzero(ms->arr, sizeof(ms->arr)));
  PetscCall(VecDestroy(&ms->sx));
  PetscCall(VecDestroy(&ms->sb));
  PetscCall(VecDestroy(&ms->ones));
  PetscCall(VecDestroy(&ms->udiag));
  PetscCall(VecDestroy(&ms->pdiag));
  PetscCall(VecDestroy(&ms->ivec[0]));
  PetscCall(VecDestroy(&ms->ivec[1]));
  ms->uvec[0] = ms->uvec[1] = NULL;
  ms->diag_valid = PETSC_FALSE;
  ms->img        = NULL;
  ms->image      = PETSC_FALSE;
  ms->planned    = PETSC_FALSE;
  ms->cached     = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* vectors                                                                                                      */

/* the array of v in the backend's memory (Get and Restore: the pointer stays valid, the vector's state is increased
   unless readonly and its valid copy is the backend's) */
static PetscErrorCode KSPMSVecArray(KSPMS *ms, Vec v, PetscBool readonly, PetscScalar **arr)
{
  PetscMemType mt = PETSC_MEMTYPE_HOST;
  PetscScalar *a  = NULL;

  PetscFunctionBegin;
  if (ms->device) {
    if (readonly) {
      PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)&a, &mt));
      *arr = a;
      PetscCall(VecRestoreArrayReadAndMemType(v, (const PetscScalar **)&a));
    } else {
      PetscCall(VecGetArrayAndMemType(v, &a, &mt));
      *arr = a;
      PetscCall(VecRestoreArrayAndMemType(v, &a));
    }
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A vector of type %s in host memory reached the device-resident Krylov kernels", ((PetscObject)v)->type_name);
  } else {
    if (readonly) {
      PetscCall(VecGetArrayRead(v, (const PetscScalar **)&a));
      *arr = a;
      PetscCall(VecRestoreArrayRead(v, (const PetscScalar **)&a));
    } else {
      PetscCall(VecGetArray(v, &a));
      *arr = a;
      PetscCall(VecRestoreArray(v, &a));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ms->arr[i] <- the array of vec[i] in the backend's memory */
static PetscErrorCode KSPMSFetch(KSPMS *ms, PetscInt i)
{
  PetscFunctionBegin;
  ms->arr[i] = NULL;
  if (ms->vec[i]) PetscCall(KSPMSVecArray(ms, ms->vec[i], ms->readonly[i], &ms->arr[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSArray(KSPMS *ms, PetscInt i, PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < ms->nvec, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No vector %" PetscInt_FMT " in the device Krylov layer", i);
  if (!ms->cached) PetscCall(KSPMSFetch(ms, i));
  *a = ms->arr[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the vectors the kernels wrote: their state increased (cached norms are stale) and their backend copy valid */
static PetscErrorCode KSPMSTouch(KSPMS *ms)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < ms->nvec; i++)
    if (ms->vec[i] && !ms->readonly[i]) PetscCall(KSPMSFetch(ms, i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vec[i] <- v (a reference; NULL: none) */
static PetscErrorCode KSPMSSetVec(KSPMS *ms, PetscInt i, Vec v)
{
  PetscFunctionBegin;
  if (v) PetscCall(PetscObjectReference((PetscObject)v));
  PetscCall(VecDestroy(&ms->vec[i]));
  ms->vec[i] = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *v <- a vector like x (its layout and type), kept while it is one */
static PetscErrorCode KSPMSVecLike(Vec x, Vec *v)
{
  PetscFunctionBegin;
  if (*v) {
    PetscBool same, type;

    PetscCall(PetscLayoutCompare((*v)->map, x->map, &same));
    PetscCall(PetscObjectTypeCompare((PetscObject)*v, ((PetscObject)x)->type_name, &type));
    if (!same || !type) PetscCall(VecDestroy(v));
  }
  if (!*v) PetscCall(VecDuplicate(x, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vec[X], vec[B] (the user's vectors or device copies), the work vectors like vec[X] */
static PetscErrorCode KSPMSSetUpVectors(KSP ksp, KSPMS *ms, PetscInt nwork)
{
  Vec       x = ksp->vec_sol, b = ksp->vec_rhs;
  PetscBool xdev = PETSC_TRUE, bdev = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(KSPMS_WORK + nwork <= KSPMS_MAXVEC, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many work vectors");
  ms->staged = PETSC_FALSE;
  if (ms->device) {
    PetscCall(PCMSVecIsDevice(x, &xdev));
    PetscCall(PCMSVecIsDevice(b, &bdev));
  }
#if defined(PETSC_HAVE_CUDA)
  if (!xdev || !bdev) { /* host vectors with a device operator: device copies, one copy in and out per solve */
    Vec      *sv[2] = {&ms->sx, &ms->sb};
    Vec       uv[2] = {x, b};
    PetscBool isdev[2] = {xdev, bdev};

    for (int j = 0; j < 2; j++) {
      PetscBool same = PETSC_FALSE;

      if (isdev[j]) continue;
      if (*sv[j]) PetscCall(PetscLayoutCompare((*sv[j])->map, uv[j]->map, &same));
      if (!same) {
        PetscCall(VecDestroy(sv[j]));
        PetscCall(VecCreate(PetscObjectComm((PetscObject)uv[j]), sv[j]));
        PetscCall(VecSetLayout(*sv[j], uv[j]->map));
        PetscCall(VecSetType(*sv[j], VECCUDA));
      }
    }
    if (!xdev) {
      if (ksp->guess_zero) PetscCall(VecSet(ms->sx, 0.0));
      else PetscCall(VecCopy(x, ms->sx));
      x = ms->sx;
    }
    if (!bdev) {
      PetscCall(VecCopy(b, ms->sb));
      b = ms->sb;
    }
    ms->staged = PETSC_TRUE;
  }
#endif
  ms->vec[KSPMS_X]      = x;
  ms->vec[KSPMS_B]      = b;
  ms->readonly[KSPMS_X] = PETSC_FALSE;
  ms->readonly[KSPMS_B] = PETSC_TRUE;
  for (PetscInt j = 0; j < nwork; j++) {
    PetscCall(KSPMSVecLike(x, &ms->vec[KSPMS_WORK + j]));
    ms->readonly[KSPMS_WORK + j] = PETSC_FALSE;
  }
  for (PetscInt j = KSPMS_WORK + nwork; j < KSPMS_MAXVEC; j++) PetscCall(VecDestroy(&ms->vec[j]));
  ms->nvec = KSPMS_WORK + nwork;
  PetscCall(VecGetLocalSize(x, &ms->n));
  PetscCheck(ms->n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The device-resident Krylov methods index a process's rows with 32-bit integers: this process has %" PetscInt_FMT " rows; use more processes", ms->n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the preconditioner and the operator                                                                          */

/* a pointwise preconditioner in the kernels: PCNONE, or the diagonal of PCJACOBI / PCRUIZ taken as their application
   to a vector of ones (again after each new setup of the PC) */
static PetscErrorCode KSPMSSetUpPC(KSP ksp, KSPMS *ms, Mat A)
{
  PC           pc = ksp->pc;
  PCType       type;
  PetscBool    none, jac, ruiz;
  MatNullSpace nsp = NULL;

  PetscFunctionBegin;
  PetscCall(PCGetType(pc, &type));
  PetscCall(PetscStrcmp(type, PCNONE, &none));
  PetscCall(PetscStrcmp(type, PCJACOBI, &jac));
  PetscCall(PetscStrcmp(type, PCRUIZ, &ruiz));
  if (ksp->transpose_solve) PetscCall(MatGetTransposeNullSpace(A, &nsp));
  else PetscCall(MatGetNullSpace(A, &nsp));
  ms->pc     = MS_KRYLOV_PC_APPLIED;
  ms->pcname = NULL;
  ms->why_pc = NULL;
  if (!none && !jac && !ruiz) ms->why_pc = "its application is not pointwise";
  else if (!ms->fuse_pc_opt) ms->why_pc = "-ksp_device_fuse_pc false";
  else if (nsp) ms->why_pc = "the operator has a null space, removed after each application";
  else if (ksp->pc_side != PC_LEFT && ksp->pc_side != PC_RIGHT) ms->why_pc = "applied symmetrically";
  if (ms->why_pc) PetscFunctionReturn(PETSC_SUCCESS);
  ms->pcname = none ? PCNONE : (jac ? PCJACOBI : PCRUIZ);
  if (none) {
    ms->pc = MS_KRYLOV_PC_NONE;
    PetscCall(KSPMSSetVec(ms, KSPMS_DIAG, NULL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ms->pc = MS_KRYLOV_PC_DIAG;
  {
    Vec       x    = ms->vec[KSPMS_X], *d = &ms->udiag;
    PetscBool same = PETSC_FALSE, fresh = PETSC_FALSE;

    if (*d) {
      PetscBool sametype;

      PetscCall(PetscLayoutCompare((*d)->map, x->map, &same));
      PetscCall(PetscObjectTypeCompare((PetscObject)*d, ((PetscObject)x)->type_name, &sametype));
      same = (PetscBool)(same && sametype);
    }
    if (!same) {
      PetscCall(VecDestroy(d));
      PetscCall(VecDestroy(&ms->ones));
      PetscCall(VecDuplicate(x, d));
      PetscCall(VecDuplicate(x, &ms->ones));
      ms->diag_valid = PETSC_FALSE;
    }
    if (ms->diag_valid) {
      PetscBool st;

      PetscCall(MatStateCompare(ms->diag_state, pc->matstate, &st));
      PetscCall(PetscStrcmp(ms->diag_type, type, &same));
      fresh = (PetscBool)(st && same);
    }
    if (!fresh) {
      PetscCall(VecSet(ms->ones, 1.0));
      PetscCall(PCApply(pc, ms->ones, *d));
      ms->diag_state = pc->matstate;
      PetscCall(PetscStrncpy(ms->diag_type, type, sizeof(ms->diag_type)));
      ms->diag_valid = PETSC_TRUE;
      ms->diag_setups++;
    }
    PetscCall(KSPMSSetVec(ms, KSPMS_DIAG, *d)); /* in the image's numbering: another vector (KSPMSSetUpImageOrder()) */
    ms->readonly[KSPMS_DIAG] = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the product of a MATSEQAIJMODSELL operator from its image, in one kernel with its dot; a permuted image with a fused
   preconditioner: the solve in the image's numbering (the view without its permutation, KSPMSSetUpImageOrder()) */
static PetscErrorCode KSPMSSetUpOperator(KSP ksp, KSPMS *ms, Mat A)
{
  PetscBool            isms;
  const MSImageOps    *iops = KSPMSImageOps(ms->device);
  const MSImageLayout *lay;

  PetscFunctionBegin;
  ms->fused_op = PETSC_FALSE;
  ms->img      = NULL;
  ms->image    = PETSC_FALSE;
  ms->perm     = NULL;
  ms->bucketed = PETSC_FALSE;
  ms->why_op   = NULL;
  PetscCall(PetscMemzero(&ms->view, sizeof(ms->view)));
  PetscCall(PetscMemzero(&ms->pb, sizeof(ms->pb)));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
  if (!isms) ms->why_op = ms->mpi ? "several processes: the parallel matrix's product" : "the operator is not a MATSEQAIJMODSELL";
  else if (ksp->transpose_solve) ms->why_op = "a transposed solve";
  else if (!ms->fuse_op_opt) ms->why_op = "-ksp_device_fuse_operator false";
  else {
    MatModSELLLayout lay;

    PetscCall(MatSeqAIJModSELLGetProductLayout(A, iops, &lay)); /* the fused kernel reads the scalar image */
    if (lay == MATMODSELL_LAYOUT_BLOCKS) ms->why_op = "the operator's product uses its block layout (-mat_modsell_layout)";
  }
  if (ms->why_op) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJModSELLGetImage(A, iops, &ms->img)); /* up to date in the backend's memory */
  PetscCall(iops->getview(ms->img, PETSC_FALSE, &ms->view));
  PetscCheck(ms->view.m == ms->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The operator has %d rows, the vectors %" PetscInt_FMT, ms->view.m, ms->n);
  if (ms->view.perm && ms->image_opt && ms->pc != MS_KRYLOV_PC_APPLIED) { /* every vector in the image's numbering */
    ms->image      = PETSC_TRUE;
    ms->perm       = ms->view.perm;
    ms->view.perm  = NULL;
    ms->view.iperm = NULL;
  }
  if (!ms->image) PetscCall(iops->permbuckets(ms->img, &ms->view, &ms->pb, &ms->bucketed)); /* built now, outside any capture (none on the host) */
  if (ms->view.perm) { /* x and y in the image numbering */
    const size_t bytes = 2 * sizeof(double) * (size_t)PetscMax(ms->n, 1);

    if (ms->xwork_bytes < bytes) {
      PetscCall(KSPMSFree(ms->device, ms->xwork));
      ms->xwork = NULL;
      PetscCall(KSPMSMalloc(ms, bytes, "the permuted copies of x and y of the device Krylov product", &ms->xwork));
      ms->xwork_bytes = bytes;
    }
  }
  PetscCall(MSImageGetLayout(ms->img, &lay));
  ms->opflops  = 2.0 * (PetscLogDouble)lay->nnz + (PetscLogDouble)ms->n;
  ms->fused_op = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = x between the user's numbering and the image's (dir MS_KRYLOV_TO_IMAGE or MS_KRYLOV_TO_USER) */
static PetscErrorCode KSPMSPermute(KSPMS *ms, Vec x, Vec y, int dir)
{
  PetscScalar *xa, *ya;
  void        *stream;
  int          err;

  PetscFunctionBegin;
  PetscCall(KSPMSVecArray(ms, x, PETSC_TRUE, &xa));
  PetscCall(KSPMSVecArray(ms, y, PETSC_FALSE, &ya));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->k->permute((int)ms->n, ms->perm, dir, xa, ya, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "permute", 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solve in the permuted image's numbering: x and b gathered into the layer's vectors, which the method iterates on
   (vec[X], vec[B]), the fused PC's diagonal too (its gather: 20 bytes per row once per solve, as cheap as a vector
   copy, instead of a cache of it keyed on the permutation) */
static PetscErrorCode KSPMSSetUpImageOrder(KSP ksp, KSPMS *ms)
{
  PetscFunctionBegin;
  if (!ms->image) PetscFunctionReturn(PETSC_SUCCESS);
  for (int j = 0; j < 2; j++) {
    ms->uvec[j] = ms->vec[KSPMS_X + j];
    PetscCall(KSPMSVecLike(ms->uvec[j], &ms->ivec[j]));
  }
  if (ksp->guess_zero) PetscCall(VecZeroEntries(ms->ivec[0]));
  else PetscCall(KSPMSPermute(ms, ms->uvec[0], ms->ivec[0], MS_KRYLOV_TO_IMAGE));
  PetscCall(KSPMSPermute(ms, ms->uvec[1], ms->ivec[1], MS_KRYLOV_TO_IMAGE));
  ms->vec[KSPMS_X] = ms->ivec[0];
  ms->vec[KSPMS_B] = ms->ivec[1];
  if (ms->pc == MS_KRYLOV_PC_DIAG) {
    PetscCall(KSPMSVecLike(ms->udiag, &ms->pdiag));
    PetscCall(KSPMSPermute(ms, ms->udiag, ms->pdiag, MS_KRYLOV_TO_IMAGE));
    PetscCall(KSPMSSetVec(ms, KSPMS_DIAG, ms->pdiag));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solution in the user's numbering: scattered from the image's, then copied to the user's host vector when staged */
static PetscErrorCode KSPMSSolutionOut(KSP ksp, KSPMS *ms)
{
  PetscFunctionBegin;
  if (ms->image) PetscCall(KSPMSPermute(ms, ms->ivec[0], ms->uvec[0], MS_KRYLOV_TO_USER));
  if (ms->staged) PetscCall(VecCopy(ms->image ? ms->uvec[0] : ms->vec[KSPMS_X], ksp->vec_sol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the solve                                                                                                    */

static PetscErrorCode KSPMSSetUpMemory(KSP ksp, KSPMS *ms)
{
  PetscInt nblocks = MS_KRYLOV_BLOCKS, maxhist = 0;

  PetscFunctionBegin;
  if (ms->fused_op) nblocks = PetscMax(nblocks, (PetscInt)ms->view.nslices);
  PetscCheck(nblocks <= (PetscInt)MS_KRYLOV_GROUP * MS_KRYLOV_MAXGROUPS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The operator's image has %" PetscInt_FMT " slices: the device Krylov reductions take at most %d blocks", nblocks, MS_KRYLOV_GROUP * MS_KRYLOV_MAXGROUPS);
  if (!ms->sc) PetscCall(KSPMSMalloc(ms, sizeof(MSKrylovScalars), "the scalars of the device Krylov solve", (void **)&ms->sc));
  if (!ms->count) PetscCall(KSPMSMalloc(ms, sizeof(unsigned int) * (MS_KRYLOV_MAXGROUPS + 1), "the counters of the device Krylov reductions", (void **)&ms->count));
  if (nblocks > ms->nblocks) {
    PetscCall(KSPMSFree(ms->device, ms->partial));
    ms->partial = NULL;
    PetscCall(KSPMSMalloc(ms, sizeof(double) * MS_KRYLOV_NSUMS * (size_t)(nblocks + MS_KRYLOV_MAXGROUPS), "the partial sums of the device Krylov reductions", (void **)&ms->partial));
    ms->nblocks = nblocks;
  }
  if (ksp->res_hist && !ms->host_check) maxhist = (PetscInt)PetscMin((PetscCount)PetscMax(ksp->max_it, ms->max_steps) + 1, ksp->res_hist_max - ksp->res_hist_len);
  maxhist = PetscMax(PetscMin(maxhist, PETSC_INT32_MAX - 1), 0);
  if (maxhist && sizeof(double) * (size_t)maxhist > ms->hist_bytes) {
    PetscCall(KSPMSFree(ms->device, ms->hist));
    ms->hist = NULL;
    PetscCall(KSPMSMalloc(ms, sizeof(double) * (size_t)maxhist, "the residual history of the device Krylov solve", (void **)&ms->hist));
    ms->hist_bytes = sizeof(double) * (size_t)maxhist;
  }
  ms->maxhist = maxhist;
#if defined(PETSC_HAVE_CUDA)
  if (ms->device) {
    if (!ms->pinned) PetscCallCUDA(cudaMallocHost(&ms->pinned, 3 * sizeof(MSKrylovScalars)));
    for (int e = 0; e < 2; e++)
      if (!ms->ev[e]) PetscCallCUDA(cudaEventCreateWithFlags((cudaEvent_t *)&ms->ev[e], cudaEventDisableTiming));
    if (ms->graph && !ms->cstream) PetscCallCUDA(cudaStreamCreateWithFlags((cudaStream_t *)&ms->cstream, cudaStreamNonBlocking));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPConvergedDefault()'s parameters, and the norm of the right-hand side it compares with for a nonzero initial guess
   (computed here as it computes it) */
static PetscErrorCode KSPMSSetUpScalars(KSP ksp, KSPMS *ms)
{
  MSKrylovScalars        *h    = &ms->hsc;
  KSPConvergedDefaultCtx *cctx = ksp->converged == KSPConvergedDefault ? (KSPConvergedDefaultCtx *)ksp->cnvP : NULL;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  h->rtol           = (double)ksp->rtol;
  h->atol           = (double)ksp->abstol;
  h->divtol         = (double)ksp->divtol;
  h->max_it         = (int)PetscMin(ksp->max_it, (PetscInt)PETSC_INT32_MAX - 1);
  h->min_it         = (int)PetscMin(ksp->min_it, (PetscInt)PETSC_INT32_MAX - 1);
  h->chknorm        = (int)PetscMax(PetscMin(ksp->chknorm, (PetscInt)PETSC_INT32_MAX - 1), -1);
  h->normtype       = (int)ksp->normtype;
  h->convmaxits     = cctx ? (int)cctx->convmaxits : 0;
  h->mininitialrtol = cctx ? (int)cctx->mininitialrtol : 0;
  h->hostcheck      = (int)ms->host_check;
  h->negcurve       = (int)ksp->converged_neg_curve;
  h->maxhist        = (int)ms->maxhist;
  h->snorm          = -1.0;
  if (!ms->host_check && cctx && ksp->normtype != KSP_NORM_NONE && !ksp->guess_zero && !cctx->initialrtol) {
    PetscReal snorm = 0.0;
    Vec       b     = ms->vec[KSPMS_B], z = ms->vec[KSPMS_WORK];

    if (ksp->normtype == KSP_NORM_UNPRECONDITIONED || ksp->pc_side == PC_RIGHT) PetscCall(VecNorm(b, NORM_2, &snorm));
    else {
      PetscCall(KSP_PCApply(ksp, b, z));
      if (ksp->normtype == KSP_NORM_PRECONDITIONED) PetscCall(VecNorm(z, NORM_2, &snorm));
      else {
        PetscScalar d;

        PetscCall(VecDot(b, z, &d));
        snorm = PetscSqrtReal(PetscAbsScalar(d));
      }
    }
    h->snorm = (double)snorm;
  }
  PetscCall(KSPMSCopyIn(ms, ms->sc, h, sizeof(*h)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSSolveBegin(KSP ksp, KSPMS *ms, const KSPMSMethod *meth)
{
  Mat         A, P;
  PetscMPIInt size;
  PetscBool   dev = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSPMS_SetUp, ksp, 0, 0, 0));
  PetscCall(PCGetOperators(ksp->pc, &A, &P));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  ms->mpi = (PetscBool)(size > 1);
#if defined(PETSC_HAVE_CUDA)
  {
    PetscMemType mt;

    PetscCall(MatGetCurrentMemType(A, &mt));
    dev = (PetscBool)PetscMemTypeDevice(mt);
    if (!dev && !A->ops->getcurrentmemtype) PetscCall(PCMSVecIsDevice(ksp->vec_sol, &dev)); /* a matrix-free operator given device vectors */
  }
#endif
  if (ms->planned && dev != ms->device) { /* another backend: its memory and vectors anew */
    PetscCall(KSPMSFreeMemory(ms));
    for (PetscInt i = KSPMS_DIAG; i < KSPMS_MAXVEC; i++) PetscCall(VecDestroy(&ms->vec[i]));
    PetscCall(VecDestroy(&ms->udiag));
    PetscCall(VecDestroy(&ms->pdiag));
    PetscCall(VecDestroy(&ms->ivec[0]));
    PetscCall(VecDestroy(&ms->ivec[1]));
    ms->diag_valid = PETSC_FALSE;
  }
  ms->device        = dev;
  ms->graph_pairs   = PETSC_FALSE;
  ms->k             = KSPMSKernels(dev);
  ms->kn            = KSPMSNSKernels(dev);
  ms->stop          = PETSC_FALSE;
  ms->cached        = PETSC_FALSE;
  ms->nsteps        = 0;
  ms->npolls        = 0;
  ms->nreads        = 0;
  ms->nwasted       = 0;
  ms->kmax_used     = 0;
  ms->ngraph_launch = 0;
  ms->ncaptures     = 0;
  ms->nkernels      = 0;
  ms->step_kernels  = 0;
  ms->step_count    = 0;
  ms->graph_nodes   = 0;
  ms->graph_steps   = 0;
  PetscCall(KSPMSSetUpVectors(ksp, ms, meth->nwork));
  PetscCall(KSPMSSetUpPC(ksp, ms, A));
  PetscCall(KSPMSSetUpOperator(ksp, ms, A));
  ms->host_check = (PetscBool)(ksp->converged != KSPConvergedDefault || ksp->numbermonitors > 0);
  ms->why_host   = ksp->numbermonitors > 0 ? "monitors are set" : (ms->host_check ? "the convergence test is not KSPConvergedDefault()" : NULL);
  ms->why_graph  = NULL;
  if (!ms->device) ms->why_graph = "the iterations run on the host";
  else if (!ms->graph_opt) ms->why_graph = "-ksp_device_graph false";
  else if (ms->mpi) ms->why_graph = "several processes: each step waits for its MPI_Allreduce()";
  else if (ms->host_check) ms->why_graph = "the host tests every step";
  else if (!ms->fused_op) ms->why_graph = "the operator's product is MatMult()";
  else if (ms->pc == MS_KRYLOV_PC_APPLIED) ms->why_graph = "the preconditioner is applied by PCApply()";
  ms->graph = (PetscBool)!ms->why_graph;
  PetscCall(KSPMSSetUpMemory(ksp, ms));
  PetscCall(KSPMSSetUpScalars(ksp, ms));
  PetscCall(KSPMSSetUpImageOrder(ksp, ms));
  ms->planned = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(KSPMS_SetUp, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* kernels, reductions                                                                                          */

PetscErrorCode KSPMSKernelBegin(KSPMS *ms, void **stream)
{
  PetscFunctionBegin;
  *stream = NULL;
  if (ms->capturing) {
    *stream = ms->cstream;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(PETSC_HAVE_CUDA)
  if (ms->device) {
    cudaStream_t s;

    PetscCall(PetscGetCurrentCUDAStream(&s));
    *stream = (void *)s;
    PetscCall(PetscLogGpuTimeBegin());
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSKernelEnd(KSPMS *ms, int err, const char *kernel, PetscLogDouble flops)
{
  PetscFunctionBegin;
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "The %s kernel %s of the device Krylov solve failed: %s (%s)", ms->k->backend, kernel, cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
#endif
    ms->nkernels++;
    if (ms->capturing) ms->capture_flops += flops;
    else {
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(PetscLogGpuFlops(flops));
    }
  } else {
    PetscCheck(err != MS_KERNEL_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "The %s kernel %s of the device Krylov solve could not allocate its work arrays", ms->k->backend, kernel);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The %s kernel %s of the device Krylov solve failed with code %d (an argument out of range)", ms->k->backend, kernel, err);
    ms->nkernels++;
    PetscCall(PetscLogFlops(flops));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSReduceTarget(KSPMS *ms, int slot, int finish, MSKrylovReduce *red)
{
  PetscFunctionBegin;
  PetscCheck(slot >= 0 && slot < MS_KRYLOV_NSUMS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Sum slot %d out of range", slot);
  red->sc      = ms->sc;
  red->hist    = ms->maxhist ? ms->hist : NULL;
  red->partial = ms->partial;
  red->count   = ms->count;
  red->nblocks = (int)ms->nblocks;
  red->slot    = slot;
  red->finish  = ms->mpi ? MS_KRYLOV_FINISH_NONE : finish;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the status (ms->hsc up to the sums) read after the queued work */
static PetscErrorCode KSPMSReadStatus(KSPMS *ms)
{
  PetscFunctionBegin;
  PetscCall(KSPMSCopyOut(ms, &ms->hsc, ms->sc, KSPMS_STATUS_BYTES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSReadScalars(KSPMS *ms)
{
  PetscFunctionBegin;
  PetscCall(KSPMSCopyOut(ms, &ms->hsc, ms->sc, sizeof(MSKrylovScalars)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPMSRunFinish(KSPMS *ms, int finish)
{
  MSKrylovReduce red;
  void          *stream;
  int            err;

  PetscFunctionBegin;
  PetscCall(KSPMSReduceTarget(ms, 0, finish, &red));
  red.finish = finish;
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->k->finish(&red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "finish", 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSAllreduce(KSP ksp, KSPMS *ms, PetscInt nsums, int finish)
{
  PetscFunctionBegin;
  if (!ms->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(nsums > 0 && nsums <= MS_KRYLOV_NSUMS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " sums", nsums);
  PetscCall(KSPMSReadStatus(ms)); /* the local sums, and the status of the finish before */
  if (ms->hsc.done) {             /* every process sees it at the same step (the finishes are computed from the same sums) */
    ms->stop = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, ms->hsc.sum, (PetscMPIInt)nsums, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)ksp)));
  { /* the global sums go to the finish kernel as its arguments: no copy to the device before it */
    MSKrylovReduce red;
    void          *stream;
    int            err;

    PetscCall(KSPMSReduceTarget(ms, 0, finish, &red));
    red.finish = finish;
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->k->finish_sums((int)nsums, ms->hsc.sum, &red, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "finish", 0.0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSDots(KSPMS *ms, PetscInt ndot, const PetscInt x[], const PetscInt y[], int slot, int finish)
{
  MSKrylovReduce red;
  MSKrylovDots   d;
  void          *stream;
  int            err;

  PetscFunctionBegin;
  PetscCheck(ndot >= 1 && ndot <= MS_KRYLOV_MAXDOTS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " dots in one kernel", ndot);
  PetscCall(PetscMemzero(&d, sizeof(d)));
  d.ndot = (int)ndot;
  for (PetscInt j = 0; j < ndot; j++) {
    PetscScalar *a = NULL, *b = NULL;

    PetscCall(KSPMSArray(ms, x[j], &a));
    PetscCall(KSPMSArray(ms, y[j], &b));
    d.x[j] = a;
    d.y[j] = b;
  }
  PetscCall(KSPMSReduceTarget(ms, slot, finish, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->k->dot((int)ms->n, &d, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "dot", 2.0 * ndot * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSDot(KSPMS *ms, PetscInt x, PetscInt y, int slot, int finish)
{
  PetscFunctionBegin;
  PetscCall(KSPMSDots(ms, 1, &x, &y, slot, finish));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSMultDot(KSP ksp, KSPMS *ms, PetscInt x, PetscInt y, int slot, int finish)
{
  PetscFunctionBegin;
  if (ms->fused_op) {
    MSKrylovReduce red;
    PetscScalar   *xa, *ya;
    void          *stream;
    int            err;

    PetscCall(KSPMSArray(ms, x, &xa));
    PetscCall(KSPMSArray(ms, y, &ya));
    PetscCall(KSPMSReduceTarget(ms, slot, finish, &red));
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->k->mult_dot(&ms->view, ms->bucketed ? &ms->pb : NULL, xa, ya, (double *)ms->xwork, &red, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "mult_dot", ms->opflops));
  } else {
    Mat A;

    PetscCall(PCGetOperators(ksp->pc, &A, NULL));
    PetscCall(KSP_MatMult(ksp, A, ms->vec[x], ms->vec[y]));
    PetscCall(KSPMSDot(ms, x, y, slot, finish));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSPCApply(KSP ksp, KSPMS *ms, PetscInt r, PetscInt z)
{
  PetscFunctionBegin;
  PetscCall(KSP_PCApply(ksp, ms->vec[r], ms->vec[z]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSInitialResidual(KSP ksp, KSPMS *ms, PetscInt r)
{
  Mat A;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  if (!ksp->guess_zero) {
    if (ms->image) PetscCall(KSPMSMultDot(ksp, ms, KSPMS_X, r, MS_KRYLOV_NSUMS - 1, MS_KRYLOV_FINISH_NONE)); /* its dot is not used */
    else PetscCall(KSP_MatMult(ksp, A, ms->vec[KSPMS_X], ms->vec[r]));
    PetscCall(VecAYPX(ms->vec[r], -1.0, ms->vec[KSPMS_B]));
  } else PetscCall(VecCopy(ms->vec[KSPMS_B], ms->vec[r]));
  PetscCall(VecFlag(ms->vec[r], ksp->reason == KSP_DIVERGED_PC_FAILED));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* for BiCGSTAB and GMRES: the method's arrays, its scalars, array reductions, placed arrays                    */

PetscErrorCode KSPMSGetWork(KSPMS *ms, PetscInt id, size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscCheck(id >= 0 && id < KSPMS_MAXWORK, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Work array %" PetscInt_FMT " of the device Krylov layer", id);
  if (ms->work_bytes[id] < bytes || !ms->work[id]) {
    PetscCall(KSPMSFree(ms->device, ms->work[id]));
    ms->work[id] = NULL;
    PetscCall(KSPMSMalloc(ms, bytes, "the work arrays of the device Krylov method", &ms->work[id]));
    ms->work_bytes[id] = bytes;
  }
  *p = ms->work[id];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSSetAux(KSPMS *ms, double *aux)
{
  PetscFunctionBegin;
  ms->hsc.aux = aux;
  PetscCall(KSPMSCopyIn(ms, &ms->sc->aux, &aux, sizeof(aux)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSSetScalars(KSPMS *ms, PetscInt first, PetscInt n, const PetscReal v[])
{
  PetscFunctionBegin;
  PetscCheck(first >= 0 && n >= 0 && first + n <= MS_KRYLOV_NSCALARS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Scalars %" PetscInt_FMT " to %" PetscInt_FMT, first, first + n);
  for (PetscInt j = 0; j < n; j++) ms->hsc.s[first + j] = (double)v[j];
  if (n) PetscCall(KSPMSCopyIn(ms, &ms->sc->s[first], &ms->hsc.s[first], sizeof(double) * (size_t)n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSAllreduceArray(KSP ksp, KSPMS *ms, double *arr, PetscInt n, int finish)
{
  double *h;

  PetscFunctionBegin;
  if (!ms->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPMSReadStatus(ms));
  if (ms->hsc.done) {
    ms->stop = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    cudaStream_t stream;
    const size_t bytes = sizeof(double) * (size_t)PetscMax(n, 1);

    if (ms->pinned_array_bytes < bytes) {
      if (ms->pinned_array) PetscCallCUDA(cudaFreeHost(ms->pinned_array));
      ms->pinned_array = NULL;
      PetscCallCUDA(cudaMallocHost(&ms->pinned_array, bytes));
      ms->pinned_array_bytes = bytes;
    }
    h = (double *)ms->pinned_array;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(h, arr, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(sizeof(double) * (size_t)n)));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, h, (PetscMPIInt)n, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)ksp)));
    PetscCallCUDA(cudaMemcpyAsync(arr, h, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, stream)); /* h is not written
                                                                                                          before the next read */
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(sizeof(double) * (size_t)n)));
#endif
  } else {
    h = arr;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, h, (PetscMPIInt)n, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)ksp)));
  }
  PetscCall(KSPMSRunFinish(ms, finish));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSCopyToHost(KSPMS *ms, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(KSPMSCopyOut(ms, dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool KSPMSStopped(KSPMS *ms)
{
  if (ms->stop) return PETSC_TRUE;
  return (PetscBool)((ms->device || ms->read_late) ? ms->hsc.done != 0 : ms->sc->done != 0);
}

PetscErrorCode KSPMSPermuteVec(KSPMS *ms, Vec x, Vec y, int dir)
{
  PetscFunctionBegin;
  PetscCheck(dir == MS_KRYLOV_TO_IMAGE || dir == MS_KRYLOV_TO_USER, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Direction %d", dir);
  if (ms->image) PetscCall(KSPMSPermute(ms, x, y, dir));
  else PetscCall(VecCopy(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSPlaceArray(KSPMS *ms, Vec v, PetscScalar *a)
{
  PetscFunctionBegin;
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(VecCUDAPlaceArray(v, a));
#endif
  } else PetscCall(VecPlaceArray(v, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSResetArray(KSPMS *ms, Vec v)
{
  PetscFunctionBegin;
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(VecCUDAResetArray(v));
#endif
  } else PetscCall(VecResetArray(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the loop                                                                                                     */

#if defined(PETSC_HAVE_CUDA)
/* the key of what the graphs read */
static PetscErrorCode KSPMSGetSignature(KSPMS *ms, KSPMSSignature *s)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  for (PetscInt i = 0; i < ms->nvec; i++) s->arr[i] = ms->arr[i];
  s->sc      = ms->sc;
  s->partial = ms->partial;
  s->count   = ms->count;
  s->hist    = ms->maxhist ? ms->hist : NULL;
  s->xwork   = ms->xwork;
  s->stream  = ms->cstream;
  s->view    = ms->view;
  s->pb      = ms->pb;
  s->n       = ms->n;
  s->nblocks = ms->nblocks;
  s->pc      = ms->pc;
  for (int j = 0; j < 4; j++) s->key[j] = ms->key[j];
  for (int w = 0; w < KSPMS_MAXWORK; w++) s->work[w] = ms->work[w];
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* nb steps (a power of two) as a CUDA graph: captured at its first use for this signature, then replayed */
static PetscErrorCode KSPMSGraphBlock(KSP ksp, KSPMS *ms, const KSPMSMethod *meth, PetscInt nb)
{
#if defined(PETSC_HAVE_CUDA)
  KSPMSSignature sig;
  PetscInt       g = 0;
  cudaStream_t   stream;
  PetscBool      same;

  PetscFunctionBegin;
  while (((PetscInt)1 << (g + 1)) <= nb) g++;
  PetscCheck(((PetscInt)1 << g) == nb && g < KSPMS_MAXGRAPH, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A graph of %" PetscInt_FMT " steps", nb);
  PetscCall(KSPMSGetSignature(ms, &sig));
  PetscCall(PetscMemcmp(&sig, &ms->gsig, sizeof(sig), &same));
  if (!same) {
    PetscCall(KSPMSFreeGraphs(ms));
    ms->gsig = sig;
  }
  if (!ms->gexec[g]) {
    cudaStream_t    cs = (cudaStream_t)ms->cstream;
    cudaGraph_t     graph;
    cudaGraphExec_t exec;
    cudaError_t     cerr;
    PetscErrorCode  ierr  = PETSC_SUCCESS;
    const PetscInt  k0    = ms->nkernels;
    size_t          nodes = 0;

    ms->capture_flops = 0.0;
    PetscCallCUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    ms->capturing = PETSC_TRUE;
    for (PetscInt j = 0; j < nb && !ierr; j++) ierr = (*meth->step)(ksp);
    ms->capturing = PETSC_FALSE;
    cerr          = cudaStreamEndCapture(cs, &graph);
    PetscCall(ierr);
    PetscCallCUDA(cerr);
    cerr = cudaGraphGetNodes(graph, NULL, &nodes);
    if (cerr == cudaSuccess) cerr = cudaGraphInstantiateWithFlags(&exec, graph, 0);
    PetscCallCUDA(cudaGraphDestroy(graph));
    PetscCallCUDA(cerr);
    ms->gexec[g]    = (void *)exec;
    ms->gflops[g]   = ms->capture_flops;
    ms->gkernels[g] = ms->nkernels - k0;
    ms->gnodes[g]   = (PetscInt)nodes;
    ms->nkernels    = k0; /* counted at each launch */
    ms->ncaptures++;
  }
  ms->nkernels += ms->gkernels[g];
  ms->step_kernels += ms->gkernels[g];
  ms->step_count += nb;
  if (nb >= ms->graph_steps) {
    ms->graph_steps = nb;
    ms->graph_nodes = ms->gnodes[g];
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaGraphLaunch((cudaGraphExec_t)ms->gexec[g], stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(ms->gflops[g]));
  ms->ngraph_launch++;
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  (void)ksp;
  (void)meth;
  (void)nb;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "CUDA graphs need PETSc configured with CUDA (%p)", (void *)ms);
#endif
}

/* the status copied to host slot s after the queued work (device: without waiting, an event marks it) */
static PetscErrorCode KSPMSPollBegin(KSPMS *ms, int s)
{
  PetscFunctionBegin;
  ms->npolls++;
  if (!ms->device) ms->late_done[s] = ms->sc->done; /* read at the poll's end with -ksp_device_read_late */
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync((char *)ms->pinned + (size_t)s * sizeof(MSKrylovScalars), ms->sc, KSPMS_STATUS_BYTES, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaEventRecord((cudaEvent_t)ms->ev[s], stream));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPMSPollEnd(KSPMS *ms, int s, PetscBool *done)
{
  PetscFunctionBegin;
  if (ms->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)ms->ev[s]));
    *done = (PetscBool)(((MSKrylovScalars *)ms->pinned)[s].done != 0);
#endif
  } else *done = (PetscBool)((ms->read_late ? ms->late_done[s] : ms->sc->done) != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step launched (its kernels counted) */
static PetscErrorCode KSPMSStep(KSP ksp, KSPMS *ms, const KSPMSMethod *meth)
{
  const PetscInt k0 = ms->nkernels;

  PetscFunctionBegin;
  PetscCall((*meth->step)(ksp));
  ms->step_kernels += ms->nkernels - k0;
  ms->step_count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPMSBlock(KSP ksp, KSPMS *ms, const KSPMSMethod *meth, PetscInt nb)
{
  PetscFunctionBegin;
  if (ms->graph && (!ms->graph_pairs || nb % 2 == 0)) PetscCall(KSPMSGraphBlock(ksp, ms, meth, nb));
  else
    for (PetscInt j = 0; j < nb; j++) PetscCall(KSPMSStep(ksp, ms, meth));
  ms->nsteps += nb;
  ms->kmax_used = PetscMax(ms->kmax_used, nb);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host test: after a step that stopped at its norm, the monitors and the test as the method's PETSc counterpart calls
   them, then the post: awaiting 1 (KSPCG, KSPBCGS, a GMRES cycle's start): log, monitors, test; awaiting 2 (a GMRES
   iteration): the test, the post, then the log and the monitors if the post says so (logafter). A step that stopped
   the solve without awaiting the test may still ask for them (logafter). */
static PetscErrorCode KSPMSHostMonitor(KSP ksp, KSPMS *ms)
{
  PetscFunctionBegin;
  ksp->its   = ms->hsc.its;
  ksp->rnorm = (PetscReal)ms->hsc.rnorm;
  if (ksp->numbermonitors) { /* the monitors may read the solution */
    PetscCall(KSPMSTouch(ms));
    PetscCall(KSPMSSolutionOut(ksp, ms));
  }
  PetscCall(KSPLogResidualHistory(ksp, ksp->rnorm));
  PetscCall(KSPMonitor(ksp, ksp->its, ksp->rnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPMSHostTest(KSP ksp, KSPMS *ms, const KSPMSMethod *meth)
{
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  int                hr, mode;

  PetscFunctionBegin;
  PetscCall(KSPMSReadScalars(ms));
  if (ms->hsc.done || !ms->hsc.awaiting) {
    if (ms->hsc.done && ms->hsc.logafter) PetscCall(KSPMSHostMonitor(ksp, ms));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mode       = ms->hsc.awaiting;
  ksp->its   = ms->hsc.its;
  ksp->rnorm = (PetscReal)ms->hsc.rnorm;
  if (mode == 1) PetscCall(KSPMSHostMonitor(ksp, ms));
  PetscCall((*ksp->converged)(ksp, ksp->its, ksp->rnorm, &reason, ksp->cnvP));
  hr = (int)reason;
  PetscCall(KSPMSCopyIn(ms, &ms->sc->host_reason, &hr, sizeof(hr)));
  PetscCall(KSPMSRunFinish(ms, meth->post));
  PetscCall(KSPMSReadStatus(ms));
  if (mode == 2 && ms->hsc.logafter) PetscCall(KSPMSHostMonitor(ksp, ms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSRun(KSP ksp, KSPMS *ms, const KSPMSMethod *meth)
{
  const PetscInt limit = PetscMax(PetscMax(ksp->max_it, ms->max_steps), 1); /* the loops of PETSc's methods run at least once */

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSPMS_Iterations, ksp, 0, 0, 0));
  ms->cached = PETSC_FALSE;
  PetscCall((*meth->start)(ksp));
  if (ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED && !ms->mpi) { /* steps of kernels only: the arrays fetched once */
    for (PetscInt i = 0; i < ms->nvec; i++) PetscCall(KSPMSFetch(ms, i));
    ms->cached = PETSC_TRUE;
  }
  if (ms->host_check) {
    PetscCall(KSPMSHostTest(ksp, ms, meth));
    for (PetscInt j = 0; j <= limit && !ms->hsc.done && !ms->stop; j++) {
      PetscCall(KSPMSStep(ksp, ms, meth));
      ms->nsteps++;
      PetscCall(KSPMSHostTest(ksp, ms, meth));
    }
  } else if (ms->mpi) { /* the status comes with each step's sums, one step late */
    for (PetscInt j = 0; j <= limit && !ms->stop; j++) {
      PetscCall(KSPMSStep(ksp, ms, meth));
      if (!ms->stop) ms->nsteps++;
    }
  } else {
    /* blocks of k = 1, 2, 4, ... steps up to check_max; on the device the flag of block j is read while block j + 1
       runs. A step with MatMult() or PCApply() costs them even after the stop: the flag is read after every step. */
    const PetscInt  kmax  = ms->cached ? ms->check_max : 1;
    const PetscBool ahead = (PetscBool)(ms->device || ms->read_late);
    PetscInt        launched = 0, k = 1;
    int             slot = 0, pending = -1;

    while (launched < limit) {
      PetscInt  nb = PetscMin(k, limit - launched);
      PetscBool done = PETSC_FALSE;

      if (ms->graph)
        while (nb & (nb - 1)) nb &= nb - 1; /* a power of two */
      PetscCall(KSPMSBlock(ksp, ms, meth, nb));
      launched += nb;
      PetscCall(KSPMSPollBegin(ms, slot));
      if (!ahead) pending = slot;
      if (pending >= 0) {
        PetscCall(KSPMSPollEnd(ms, pending, &done));
        if (done) {
          if (ahead) ms->nwasted = nb; /* at most: the block queued after the one whose flag said done */
          break;
        }
      }
      if (ahead) {
        pending = slot;
        slot ^= 1;
      }
      k = PetscMin(2 * k, kmax);
    }
  }
  PetscCall(PetscLogEventEnd(KSPMS_Iterations, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSSolveEnd(KSP ksp, KSPMS *ms)
{
  const MSKrylovScalars *h = &ms->hsc;

  PetscFunctionBegin;
  PetscCall(KSPMSReadScalars(ms));
  ms->cached = PETSC_FALSE;
  PetscCall(KSPMSTouch(ms));
  PetscCall(KSPMSSolutionOut(ksp, ms));
  ksp->its    = h->its;
  ksp->rnorm  = (PetscReal)h->rnorm;
  ksp->reason = (KSPConvergedReason)h->reason;
  if (!ms->host_check) {
    ksp->rnorm0 = (PetscReal)h->rnorm0;
    ksp->ttol   = (PetscReal)h->ttol;
  }
  if (h->nhist > 0 && ksp->res_hist) { /* the device's residual history */
    const PetscCount nh = PetscMin((PetscCount)h->nhist, ksp->res_hist_max - ksp->res_hist_len);

    if (nh > 0) PetscCall(KSPMSCopyOut(ms, ksp->res_hist + ksp->res_hist_len, ms->hist, sizeof(double) * (size_t)nh));
    ksp->res_hist_len += nh;
  }
  PetscCheck(ksp->reason, PetscObjectComm((PetscObject)ksp), PETSC_ERR_PLIB, "The device Krylov solve ended without a reason");
  if (ksp->reason == KSP_DIVERGED_NANORINF) { /* as KSPCheckNorm()/KSPCheckDot(): a failed PC says so */
    PCFailedReason pcreason;

    PetscCall(PCReduceFailedReason(ksp->pc));
    PetscCall(PCGetFailedReason(ksp->pc, &pcreason));
    PetscCall(VecFlag(ksp->vec_sol, pcreason));
    if (pcreason) ksp->reason = KSP_DIVERGED_PC_FAILED;
  }
  PetscCall(PetscInfo(ksp, "%s: %s at iteration %" PetscInt_FMT ", residual norm %g (%" PetscInt_FMT " steps queued, %" PetscInt_FMT " host reads)\n", ms->device ? "GPU" : "host", KSPConvergedReasons[ksp->reason], ksp->its, (double)ksp->rnorm, ms->nsteps, ms->nreads + ms->npolls));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the KSP's interface                                                                                          */

PetscErrorCode KSPMSCheckOperator(KSP ksp, const char type[])
{
  Mat       A;
  PetscInt  M, N, m, n;
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetLocalSize(A, &m, &n));
  same = (PetscBool)(m == n);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)ksp)));
  PetscCheck(M == N && same, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_SIZ, "%s needs a square operator with equal row and column layouts: it is %" PetscInt_FMT " x %" PetscInt_FMT "%s; use a least-squares method (KSPLSQR) for a rectangular one", type, M, N, M == N ? " and its local rows and columns differ on some process" : "");
  PetscCheck(!ksp->calc_sings, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "%s does not estimate singular values or eigenvalues (KSPSetComputeSingularValues(), -ksp_view_singularvalues): use the method's host KSP type", type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDeviceSetUseGraph_MS(KSP ksp, PetscBool flg)
{
  KSPMS *ms = (KSPMS *)ksp->data;

  PetscFunctionBegin;
  if (ms->graph_opt != flg) PetscCall(KSPMSFreeGraphs(ms));
  ms->graph_opt = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDeviceGetUseGraph_MS(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((KSPMS *)ksp->data)->graph_opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDeviceSetCheckMax_MS(KSP ksp, PetscInt kmax)
{
  PetscFunctionBegin;
  PetscCheck(kmax >= 1 && kmax <= ((PetscInt)1 << (KSPMS_MAXGRAPH - 1)), PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "The most steps between two reads of the done flag must be between 1 and %d, not %" PetscInt_FMT, 1 << (KSPMS_MAXGRAPH - 1), kmax);
  ((KSPMS *)ksp->data)->check_max = kmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDeviceGetCheckMax_MS(KSP ksp, PetscInt *kmax)
{
  PetscFunctionBegin;
  *kmax = ((KSPMS *)ksp->data)->check_max;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDeviceSetFusion_MS(KSP ksp, PetscBool pc, PetscBool op)
{
  KSPMS *ms = (KSPMS *)ksp->data;

  PetscFunctionBegin;
  ms->fuse_pc_opt = pc;
  ms->fuse_op_opt = op;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDeviceGetFusion_MS(KSP ksp, PetscBool *pc, PetscBool *op)
{
  KSPMS *ms = (KSPMS *)ksp->data;

  PetscFunctionBegin;
  if (pc) *pc = ms->fuse_pc_opt;
  if (op) *op = ms->fuse_op_opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetUp_MS(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPMSCheckOperator(ksp, ((KSPMS *)ksp->data)->type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const KSPMSComposed[] = {"KSPDeviceSetUseGraph_C", "KSPDeviceGetUseGraph_C", "KSPDeviceSetCheckMax_C", "KSPDeviceGetCheckMax_C", "KSPDeviceSetFusion_C", "KSPDeviceGetFusion_C"};

PetscErrorCode KSPMSInitialize(KSP ksp, KSPMS *ms, const char type[])
{
  PetscFunctionBegin;
  PetscCheck((void *)ms == ksp->data, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The KSPMS must be the first member of the method's data");
  ms->type                = type;
  ksp->ops->setup         = KSPSetUp_MS;
  ksp->ops->buildresidual = KSPBuildResidualDefault;
  ms->graph_opt           = PETSC_TRUE;
  ms->check_max           = 32;
  ms->fuse_pc_opt         = PETSC_TRUE;
  ms->fuse_op_opt         = PETSC_TRUE;
  ms->image_opt           = PETSC_TRUE;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[0], KSPDeviceSetUseGraph_MS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[1], KSPDeviceGetUseGraph_MS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[2], KSPDeviceSetCheckMax_MS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[3], KSPDeviceGetCheckMax_MS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[4], KSPDeviceSetFusion_MS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[5], KSPDeviceGetFusion_MS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSDestroy(KSP ksp, PetscInt n, const char *const composed[])
{
  PetscFunctionBegin;
  PetscCall(KSPMSReset((KSPMS *)ksp->data));
  for (size_t i = 0; i < sizeof(KSPMSComposed) / sizeof(KSPMSComposed[0]); i++) PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPMSComposed[i], NULL));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscObjectComposeFunction((PetscObject)ksp, composed[i], NULL));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSSetFromOptions(KSP ksp, KSPMS *ms, PetscOptionItems PetscOptionsObject)
{
  PetscBool flg, pc = ms->fuse_pc_opt, op = ms->fuse_op_opt, graph = ms->graph_opt;
  PetscInt  kmax = ms->check_max;

  PetscFunctionBegin;
  PetscCall(PetscOptionsBool("-ksp_device_graph", "Replay blocks of iterations as CUDA graphs when every step is a kernel (a MATSEQAIJMODSELL operator, a pointwise PC, one process, no monitor)", "KSPDeviceSetUseGraph", graph, &graph, &flg));
  if (flg) PetscCall(KSPDeviceSetUseGraph(ksp, graph));
  PetscCall(PetscOptionsBoundedInt("-ksp_device_check_max", "The most iterations between two host reads of the done flag (the reads come after 1, 2, 4, ... iterations up to this; a larger value waits less, and queues up to this many no-op iterations after convergence)", "KSPDeviceSetCheckMax", kmax, &kmax, &flg, 1));
  if (flg) PetscCall(KSPDeviceSetCheckMax(ksp, kmax));
  PetscCall(PetscOptionsBool("-ksp_device_fuse_pc", "Apply PCNONE, PCJACOBI and PCRUIZ inside the iteration's kernels (false: PCApply() between kernels)", "KSPDeviceSetFusion", pc, &pc, NULL));
  PetscCall(PetscOptionsBool("-ksp_device_fuse_operator", "Multiply by a MATSEQAIJMODSELL operator with its dot in the same kernel (false: MatMult(), then a dot kernel)", "KSPDeviceSetFusion", op, &op, NULL));
  PetscCall(KSPDeviceSetFusion(ksp, pc, op));
  PetscCall(PetscOptionsBool("-ksp_device_read_late", "On the host (reference kernels): read the done flag as on the device, one step after it was set, for testing the steps queued after the stop", "KSPCGDEVICE", ms->read_late, &ms->read_late, NULL));
  PetscCall(PetscOptionsBool("-ksp_device_image_order", "With a permuted MATSEQAIJMODSELL image (orderings partition, rcm, bricks) and a fused PC, run the solve in the image's numbering (false: the matrix's permuted product, then a dot kernel)", "KSPCGDEVICE", ms->image_opt, &ms->image_opt, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPMSView(KSP ksp, KSPMS *ms, PetscViewer viewer)
{
  PetscFunctionBegin;
  (void)ksp;
  if (!ms->planned) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  device-resident iterations: planned at each solve (none yet); CUDA graphs %s, host reads every 1 to %" PetscInt_FMT " iterations\n", ms->graph_opt ? "allowed" : "off", ms->check_max));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  device-resident iterations: %s (%s kernels)%s\n", ms->device ? "on the GPU" : "on the host", ms->k->backend, ms->staged ? "; host vectors staged to the device once per solve" : ""));
  if (ms->pc != MS_KRYLOV_PC_APPLIED) PetscCall(PetscViewerASCIIPrintf(viewer, "  preconditioner: %s fused into the iteration's kernels%s\n", ms->pcname, ms->pc == MS_KRYLOV_PC_DIAG ? " (its diagonal)" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  preconditioner: PCApply() between kernels (not fused: %s)\n", ms->why_pc));
  if (ms->fused_op && ms->op_text) PetscCall(PetscViewerASCIIPrintf(viewer, "  operator: MATSEQAIJMODSELL image product %s%s\n", ms->op_text, ms->image ? (ms->pc == MS_KRYLOV_PC_DIAG ? "; its image is permuted: the solve runs in the image's numbering (b, x and the preconditioner's diagonal gathered into it once per solve)" : "; its image is permuted: the solve runs in the image's numbering (b, x gathered into it once per solve)") : ""));
  else if (ms->fused_op && ms->image) PetscCall(PetscViewerASCIIPrintf(viewer, "  operator: MATSEQAIJMODSELL image product with the dot in its epilogue (one kernel); its image is permuted: the solve runs in the image's numbering (b, x%s gathered into it once per solve)\n", ms->pc == MS_KRYLOV_PC_DIAG ? " and the preconditioner's diagonal" : ""));
  else if (ms->fused_op) PetscCall(PetscViewerASCIIPrintf(viewer, "  operator: MATSEQAIJMODSELL image product with the dot in %s\n", !ms->view.perm ? "its epilogue (one kernel)" : "a kernel after it (a permuted image in the user's numbering: the matrix's own product)"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  operator: MatMult(), then a dot kernel (%s)\n", ms->why_op));
  if (ms->host_check) PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence test: on the host after every iteration (%s: one host read per iteration)\n", ms->why_host));
  else if (ms->mpi && ms->nallreduce > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence test: KSPConvergedDefault() on the device; the done flag read with each reduction's sums (%" PetscInt_FMT " MPI_Allreduce() per iteration)\n", ms->nallreduce));
  else if (ms->mpi) PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence test: KSPConvergedDefault() on the device; the done flag read with each iteration's sums (one MPI_Allreduce() per iteration)\n"));
  else if (ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED) PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence test: KSPConvergedDefault() on the device; the host reads the done flag after 1, 2, 4, ... up to %" PetscInt_FMT " iterations\n", ms->check_max));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence test: KSPConvergedDefault() on the device; the host reads the done flag after every iteration%s\n", (ms->device || ms->read_late) ? ", one iteration ahead" : ""));
  if (ms->graph) PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA graphs: on, blocks of up to %" PetscInt_FMT " iterations replayed\n", ms->check_max));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA graphs: off (%s)\n", ms->why_graph));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " iterations queued, %" PetscInt_FMT " host reads of the status, %" PetscInt_FMT " graph launches (%" PetscInt_FMT " captured)\n", ms->nsteps, ms->npolls + ms->nreads, ms->ngraph_launch, ms->ncaptures));
  if (ms->step_count) {
    char per[32], graph[96] = "";

    if (ms->step_kernels % ms->step_count == 0) PetscCall(PetscSNPrintf(per, sizeof(per), "%" PetscInt_FMT, ms->step_kernels / ms->step_count));
    else PetscCall(PetscSNPrintf(per, sizeof(per), "%.2f", (double)ms->step_kernels / (double)ms->step_count));
    if (ms->graph_steps) PetscCall(PetscSNPrintf(graph, sizeof(graph), "; the graph of %" PetscInt_FMT " iterations has %" PetscInt_FMT " nodes", ms->graph_steps, ms->graph_nodes));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  kernel calls per iteration: %s of this layer%s%s\n", per, ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED ? "" : " (MatMult() and PCApply() not counted)", graph));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* public functions                                                                                             */

/*@
  KSPDeviceSetUseGraph - Sets whether a device-resident Krylov method (`KSPCGDEVICE`, `KSPBCGSDEVICE`, `KSPGMRESDEVICE`)
  replays its iterations as CUDA graphs when it can

  Logically Collective

  Input Parameters:
+ ksp - the `KSP`
- flg - `PETSC_TRUE` (default) to use CUDA graphs

  Options Database Key:
. -ksp_device_graph <bool> - use CUDA graphs

  Level: advanced

  Note:
  Graphs are used when every step of the iteration is a kernel: a `MATSEQAIJMODSELL` operator on the GPU, `PCNONE`,
  `PCJACOBI` or `PCRUIZ`, one process, and no monitor or custom convergence test. A block of 1, 2, 4, ... iterations is
  captured once and replayed; `-ksp_view` says whether graphs ran. Other methods ignore the call.

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPBCGSDEVICE`, `KSPGMRESDEVICE`, `KSPDeviceGetUseGraph()`, `KSPDeviceSetCheckMax()`
@*/
PetscErrorCode KSPDeviceSetUseGraph(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPDeviceSetUseGraph_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDeviceGetUseGraph - Gets whether a device-resident Krylov method may use CUDA graphs

  Not Collective

  Input Parameter:
. ksp - the `KSP` (of a device-resident type such as `KSPCGDEVICE`)

  Output Parameter:
. flg - whether CUDA graphs may be used

  Level: advanced

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPDeviceSetUseGraph()`
@*/
PetscErrorCode KSPDeviceGetUseGraph(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPDeviceGetUseGraph_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDeviceSetCheckMax - Sets the most iterations a device-resident Krylov method runs between two host reads of its
  done flag

  Logically Collective

  Input Parameters:
+ ksp  - the `KSP`
- kmax - at least 1, at most 2048 (default 32)

  Options Database Key:
. -ksp_device_check_max <kmax> - the most iterations between two reads

  Level: advanced

  Note:
  The convergence test runs on the device at every iteration; the host only reads whether the solve stopped, after
  1, 2, 4, ... iterations up to `kmax`, while the next block of iterations runs. Iterations queued after the one that
  stopped the solve do nothing (their kernels return at once): the iteration count, the residual norm and the solution
  are those of the iteration that met the test. A larger `kmax` means fewer host waits and a longer tail of no-op
  iterations (at most `kmax`). With several processes the flag comes with every iteration's sums and `kmax` is not used.

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPBCGSDEVICE`, `KSPGMRESDEVICE`, `KSPDeviceGetCheckMax()`, `KSPDeviceSetUseGraph()`
@*/
PetscErrorCode KSPDeviceSetCheckMax(KSP ksp, PetscInt kmax)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, kmax, 2);
  PetscTryMethod(ksp, "KSPDeviceSetCheckMax_C", (KSP, PetscInt), (ksp, kmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDeviceGetCheckMax - Gets the most iterations between two host reads of the done flag

  Not Collective

  Input Parameter:
. ksp - the `KSP` (of a device-resident type such as `KSPCGDEVICE`)

  Output Parameter:
. kmax - the most iterations between two reads

  Level: advanced

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPDeviceSetCheckMax()`
@*/
PetscErrorCode KSPDeviceGetCheckMax(KSP ksp, PetscInt *kmax)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(kmax, 2);
  PetscUseMethod(ksp, "KSPDeviceGetCheckMax_C", (KSP, PetscInt *), (ksp, kmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDeviceSetFusion - Sets whether a device-resident Krylov method applies a pointwise preconditioner inside its
  kernels and multiplies a `MATSEQAIJMODSELL` operator with the dot in the product's kernel

  Logically Collective

  Input Parameters:
+ ksp - the `KSP`
. pc  - fuse `PCNONE`, `PCJACOBI` and `PCRUIZ` (default `PETSC_TRUE`); else `PCApply()` runs between the kernels
- op  - fuse the `MATSEQAIJMODSELL` product and its dot (default `PETSC_TRUE`); else `MatMult()` and a dot kernel

  Options Database Keys:
+ -ksp_device_fuse_pc <bool>       - fuse the pointwise preconditioners
- -ksp_device_fuse_operator <bool> - fuse the product and its dot

  Level: developer

  Note:
  Both paths compute the same iterates up to rounding; the unfused ones serve comparisons.

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPBCGSDEVICE`, `KSPGMRESDEVICE`, `KSPDeviceGetFusion()`
@*/
PetscErrorCode KSPDeviceSetFusion(KSP ksp, PetscBool pc, PetscBool op)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, pc, 2);
  PetscValidLogicalCollectiveBool(ksp, op, 3);
  PetscTryMethod(ksp, "KSPDeviceSetFusion_C", (KSP, PetscBool, PetscBool), (ksp, pc, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDeviceGetFusion - Gets whether a device-resident Krylov method fuses the pointwise preconditioners and the
  `MATSEQAIJMODSELL` product with its dot

  Not Collective

  Input Parameter:
. ksp - the `KSP` (of a device-resident type such as `KSPCGDEVICE`)

  Output Parameters:
+ pc - whether the pointwise preconditioners are fused (may be `NULL`)
- op - whether the product and its dot are fused (may be `NULL`)

  Level: developer

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPDeviceSetFusion()`
@*/
PetscErrorCode KSPDeviceGetFusion(KSP ksp, PetscBool *pc, PetscBool *op)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscUseMethod(ksp, "KSPDeviceGetFusion_C", (KSP, PetscBool *, PetscBool *), (ksp, pc, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}
