/*
    KSPCGDEVICE: the conjugate gradient method of KSPCG (src/ksp/ksp/impls/cg/cg.c) with its iterations on the device.

    The same mathematics as KSPSolve_CG (Hestenes and Stiefel, 1952): left preconditioning, the preconditioned,
    unpreconditioned, natural and no norm, a nonzero initial guess, the breakdowns of cg.c (beta = 0, a sign change of
    r.z: an indefinite preconditioner; p.Ap zero or changing sign: an indefinite matrix) and KSPConvergedDefault().
    What differs is where it runs: the scalars (alpha, beta, p.Ap, the norm) are computed on the device by the
    kernels that reduce them, the convergence test too, and the host only reads a done flag every few iterations
    (src/ksp/ksp/utils/kspms.c, the shared layer). One iteration of the standard form on one process is
        p = z + b p                                   cg_direction
        w = A p, p.w, alpha                           mult_dot (one kernel for a MATSEQAIJMODSELL operator)
        x += alpha p, r -= alpha w, z = B r, the norm and r.z, the test, b      cg_update (a pointwise B)
    with PCApply() and a second reduction (cg_residual) after cg_update for other preconditioners. With the product
    and the PC fused, the first two are one kernel (cg_direction_mult_dot): the product forms z + b p wherever it reads
    p, from the previous p, and stores the new p in a second vector (the two alternate): two kernels per iteration.

    With several processes (or -ksp_cgdevice_single_reduction) the iteration is a single-reduction form, as
    KSPSolve_CG_SingleReduction (Chronopoulos and Gear, 1989) with s = A z and w = A p by its recurrence:
        p = z + b p, w = s + b w, x += alpha p, r -= alpha w, z = B r, the norm, r.z, z.w   (one pass: cg_update)
        s = A z, z.s, p.s; the five sums added over the processes in one MPI_Allreduce()
    With a MATSEQAIJMODSELL operator and a pointwise PC on one process the whole step is one kernel (cg_sr_mult): the
    product forms z = B r at the neighbours' rows from their r, s, w of the previous step (which therefore alternate
    between two vectors each, like p above), so that an iteration reads the matrix and each vector once in one launch.
    The next p.Ap = z.s + b (z.w + p.s) + b^2 p.Ap_old is expanded exactly (Chronopoulos and Gear's
    z.s - b^2 p.Ap_old assumes a symmetric A; this expansion does not, so that operators symmetric only in their interior,
    such as PETSc's ex45 with its Dirichlet rows, run as with KSPCG). Both forms give the iterates of KSPCG in exact
    arithmetic.

    This file is the glue: the layer (kspmsimpl.h) supplies the vectors, the reductions, the loop and the logging; the
    kernels (krylovkernels.h) come as a table, host reference (krylov_reference.c) or CUDA (krylov.cu).
*/
#include <petscmodsell/private/kspmsimpl.h> /*I "petscksp.h" I*/

typedef struct {
  KSPMS     ms;      /* the layer: the first member */
  PetscBool sr_opt;  /* -ksp_cgdevice_single_reduction */
  PetscBool dir_opt; /* -ksp_cgdevice_fuse_direction */
  PetscBool sr;      /* the single-reduction form ran in the last solve */
  PetscBool dir;     /* p = z + b p formed inside the product's kernel (two vectors for p, alternately old and new) */
  PetscBool srk;     /* the single reduction's step in one kernel (r, w, s alternate between two vectors each) */
  PetscInt  p;       /* the vector that holds the current p (CGD_P or CGD_P2) */
  PetscInt  par;     /* srk: 0 when r, w, s are in CGD_R, CGD_W, CGD_S, 1 when in CGD_R2, CGD_W2, CGD_S2 */
} KSP_CGDevice;

/* the work vectors */
#define CGD_R  (KSPMS_WORK + 0)
#define CGD_Z  (KSPMS_WORK + 1)
#define CGD_P  (KSPMS_WORK + 2)
#define CGD_W  (KSPMS_WORK + 3)
#define CGD_S  (KSPMS_WORK + 4) /* single reduction: A z */
#define CGD_P2 (KSPMS_WORK + 4) /* standard form with the fused direction: the other p */
#define CGD_R2 (KSPMS_WORK + 5) /* the single reduction's step in one kernel: the other r, w, s */
#define CGD_W2 (KSPMS_WORK + 6)
#define CGD_S2 (KSPMS_WORK + 7)

/* z: r itself for PCNONE (not stored), else its own vector */
static inline PetscInt CGDeviceZ(KSPMS *ms)
{
  return ms->pc == MS_KRYLOV_PC_NONE ? CGD_R : CGD_Z;
}

static PetscErrorCode KSPCGDeviceGetVecs(KSP ksp, MSKrylovCGVecs *v)
{
  KSP_CGDevice *cg = (KSP_CGDevice *)ksp->data;
  KSPMS        *ms = &cg->ms;
  PetscScalar  *a;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  PetscCall(KSPMSArray(ms, KSPMS_X, &v->x));
  PetscCall(KSPMSArray(ms, CGD_R, &v->r));
  PetscCall(KSPMSArray(ms, cg->p, &v->p));
  PetscCall(KSPMSArray(ms, CGD_W, &v->w));
  if (cg->sr) {
    PetscCall(KSPMSArray(ms, CGD_S, &a));
    v->s = a;
  }
  if (ms->pc != MS_KRYLOV_PC_NONE) PetscCall(KSPMSArray(ms, CGD_Z, &v->z));
  if (ms->pc == MS_KRYLOV_PC_DIAG) {
    PetscCall(KSPMSArray(ms, KSPMS_DIAG, &a));
    v->d = a;
  }
  v->pc     = ms->pc;
  v->norm_r = (int)(ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = B r (pointwise: in the kernel; else z given) and the sums nn, zr, with the finish */
static PetscErrorCode KSPCGDeviceResidual(KSP ksp, int finish)
{
  KSPMS         *ms = &((KSP_CGDevice *)ksp->data)->ms;
  MSKrylovCGVecs v;
  MSKrylovReduce red;
  void          *stream;
  int            err;

  PetscFunctionBegin;
  PetscCall(KSPCGDeviceGetVecs(ksp, &v));
  PetscCall(KSPMSReduceTarget(ms, MS_CG_SUM_NN, finish, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->k->cg_residual((int)ms->n, &v, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "cg_residual", (ms->pc == MS_KRYLOV_PC_DIAG ? 5.0 : 4.0) * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x += alpha p, r -= alpha w (single reduction: p, w from their recurrences first); a fused preconditioner: z = B r
   and the sums with the finish; else no sums (PCApply() and KSPCGDeviceResidual() follow) */
static PetscErrorCode KSPCGDeviceUpdate(KSP ksp, int finish)
{
  KSP_CGDevice  *cg = (KSP_CGDevice *)ksp->data;
  KSPMS         *ms = &cg->ms;
  const PetscBool sums = (PetscBool)(ms->pc != MS_KRYLOV_PC_APPLIED);
  MSKrylovCGVecs v;
  MSKrylovReduce red;
  void          *stream;
  int            err;

  PetscFunctionBegin;
  PetscCall(KSPCGDeviceGetVecs(ksp, &v));
  if (sums) PetscCall(KSPMSReduceTarget(ms, MS_CG_SUM_NN, finish, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->k->cg_update((int)ms->n, &v, ms->sc, sums ? &red : NULL, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "cg_update", (4.0 + (cg->sr ? 4.0 : 0.0) + (sums ? (ms->pc == MS_KRYLOV_PC_DIAG ? 5.0 : 4.0) + (cg->sr ? 2.0 : 0.0) : 0.0)) * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the single reduction: s = A z and the dots z.s, p.s of the step, and z.w unless the update's pass formed it (zw), then
   (with several processes after the five sums were added over them) the finish: with a fused product z.s comes from its
   epilogue, else from a dot kernel after MatMult() */
static PetscErrorCode KSPCGDeviceSDots(KSP ksp, int finish, PetscBool zw)
{
  KSPMS         *ms = &((KSP_CGDevice *)ksp->data)->ms;
  const PetscInt z  = CGDeviceZ(ms);
  const PetscInt x3[3] = {z, z, CGD_P}, y3[3] = {CGD_W, CGD_S, CGD_S}; /* z.w, z.s, p.s (the single reduction keeps p in CGD_P) */

  PetscFunctionBegin;
  if (ms->fused_op) {
    PetscCall(KSPMSMultDot(ksp, ms, z, CGD_S, MS_CG_SUM_ZS, MS_KRYLOV_FINISH_NONE));
    if (zw) PetscCall(KSPMSDot(ms, CGD_P, CGD_S, MS_CG_SUM_PS, finish));
    else PetscCall(KSPMSDots(ms, 3, x3, y3, MS_CG_SUM_ZW, finish)); /* z.s again with z.w, p.s (the start, a PC applied) */
  } else {
    Mat A;

    PetscCall(PCGetOperators(ksp->pc, &A, NULL));
    PetscCall(KSP_MatMult(ksp, A, ms->vec[z], ms->vec[CGD_S]));
    if (zw) PetscCall(KSPMSDots(ms, 2, x3 + 1, y3 + 1, MS_CG_SUM_ZS, finish));
    else PetscCall(KSPMSDots(ms, 3, x3, y3, MS_CG_SUM_ZW, finish));
  }
  PetscCall(KSPMSAllreduce(ksp, ms, 5, finish));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cg.c before its loop: r = b - A x, z = B r, the norm, the test at iteration 0, beta = z.r */
static PetscErrorCode KSPCGDeviceStart(KSP ksp)
{
  KSP_CGDevice *cg = (KSP_CGDevice *)ksp->data;
  KSPMS        *ms = &cg->ms;

  PetscFunctionBegin;
  PetscCall(KSPMSInitialResidual(ksp, ms, CGD_R)); /* r <- b - A x */
  cg->p      = CGD_P;
  cg->par    = 0;
  ms->key[3] = cg->srk ? cg->par : cg->p;
  PetscCall(VecZeroEntries(ms->vec[CGD_P])); /* the first p = z + 0 p */
  if (cg->sr) PetscCall(VecZeroEntries(ms->vec[CGD_W]));
  if (ms->pc == MS_KRYLOV_PC_APPLIED) PetscCall(KSPMSPCApply(ksp, ms, CGD_R, CGD_Z)); /* z <- B r */
  if (!cg->sr) PetscCall(KSPCGDeviceResidual(ksp, MS_KRYLOV_FINISH_CG_START));
  else {
    PetscCall(KSPCGDeviceResidual(ksp, MS_KRYLOV_FINISH_NONE));
    PetscCall(KSPCGDeviceSDots(ksp, MS_KRYLOV_FINISH_CGSR_START, PETSC_FALSE)); /* s <- A z, z.s (z.w = p.s = 0) */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one pass of cg.c's loop */
static PetscErrorCode KSPCGDeviceStep(KSP ksp)
{
  KSP_CGDevice  *cg = (KSP_CGDevice *)ksp->data;
  KSPMS         *ms = &cg->ms;
  PetscScalar   *z, *p;
  void          *stream;
  int            err;

  PetscFunctionBegin;
  PetscCall(KSPMSArray(ms, CGDeviceZ(ms), &z));
  PetscCall(KSPMSArray(ms, cg->p, &p));
  if (cg->dir) { /* p <- z + b p into the other vector, w <- A p, dpi <- p.w, alpha: one kernel */
    const PetscInt pnew = cg->p == CGD_P ? CGD_P2 : CGD_P;
    PetscScalar   *pn, *w;
    MSKrylovReduce red;

    PetscCall(KSPMSArray(ms, pnew, &pn));
    PetscCall(KSPMSArray(ms, CGD_W, &w));
    PetscCall(KSPMSReduceTarget(ms, MS_CG_SUM_PW, MS_KRYLOV_FINISH_CG_DPI, &red));
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->k->cg_direction_mult_dot(&ms->view, z, p, pn, w, &red, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "cg_direction_mult_dot", 2.0 * ms->n + ms->opflops));
    cg->p      = pnew;
    ms->key[3] = pnew; /* the vector of p at the start of the next step: the graphs hold an even number of steps */
  } else {
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->k->cg_direction((int)ms->n, z, p, ms->sc, stream); /* p <- z + b p */
    PetscCall(KSPMSKernelEnd(ms, err, "cg_direction", 2.0 * ms->n));
    PetscCall(KSPMSMultDot(ksp, ms, cg->p, CGD_W, MS_CG_SUM_PW, MS_KRYLOV_FINISH_CG_DPI)); /* w <- A p, dpi <- p.w, alpha */
  }
  if (ms->pc != MS_KRYLOV_PC_APPLIED) PetscCall(KSPCGDeviceUpdate(ksp, MS_KRYLOV_FINISH_CG_STEP)); /* x, r, z, the norm, the test */
  else {
    PetscCall(KSPCGDeviceUpdate(ksp, MS_KRYLOV_FINISH_NONE));
    PetscCall(KSPMSPCApply(ksp, ms, CGD_R, CGD_Z));
    PetscCall(KSPCGDeviceResidual(ksp, MS_KRYLOV_FINISH_CG_STEP));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one pass of KSPSolve_CG_SingleReduction's loop in one kernel: p, w, x, r, z, s = A z and the five sums; r, w, s from
   one pair of vectors into the other */
static PetscErrorCode KSPCGDeviceStepSRKernel(KSP ksp)
{
  KSP_CGDevice    *cg = (KSP_CGDevice *)ksp->data;
  KSPMS           *ms = &cg->ms;
  const PetscInt   o[3] = {CGD_R, CGD_W, CGD_S}, t[3] = {CGD_R2, CGD_W2, CGD_S2};
  const PetscInt  *in = cg->par ? t : o, *out = cg->par ? o : t;
  MSKrylovCGSRVecs v;
  MSKrylovReduce   red;
  PetscScalar     *a;
  void            *stream;
  int              err;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&v, sizeof(v)));
  PetscCall(KSPMSArray(ms, KSPMS_X, &v.x));
  PetscCall(KSPMSArray(ms, CGD_P, &v.p));
  PetscCall(KSPMSArray(ms, in[0], &a));
  v.r = a;
  PetscCall(KSPMSArray(ms, in[1], &a));
  v.w = a;
  PetscCall(KSPMSArray(ms, in[2], &a));
  v.s = a;
  PetscCall(KSPMSArray(ms, out[0], &v.rn));
  PetscCall(KSPMSArray(ms, out[1], &v.wn));
  PetscCall(KSPMSArray(ms, out[2], &v.sn));
  if (ms->pc == MS_KRYLOV_PC_DIAG) {
    PetscCall(KSPMSArray(ms, KSPMS_DIAG, &a));
    v.d = a;
  }
  v.pc     = ms->pc;
  v.norm_r = (int)(ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  PetscCall(KSPMSReduceTarget(ms, MS_CG_SUM_NN, MS_KRYLOV_FINISH_CGSR_STEP, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->k->cg_sr_mult(&ms->view, &v, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "cg_sr_mult", (18.0 + (ms->pc == MS_KRYLOV_PC_DIAG ? 2.0 : 0.0)) * ms->n + ms->opflops));
  cg->par    = !cg->par;
  ms->key[3] = cg->par; /* the vectors of r, w, s at the start of the next step: the graphs hold an even number of steps */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one pass of KSPSolve_CG_SingleReduction's loop */
static PetscErrorCode KSPCGDeviceStepSR(KSP ksp)
{
  KSP_CGDevice *cg = (KSP_CGDevice *)ksp->data;
  KSPMS        *ms = &cg->ms;

  PetscFunctionBegin;
  if (cg->srk) PetscCall(KSPCGDeviceStepSRKernel(ksp));
  else if (ms->pc != MS_KRYLOV_PC_APPLIED) {
    PetscCall(KSPCGDeviceUpdate(ksp, MS_KRYLOV_FINISH_NONE));                   /* p, w, x, r, z, nn, zr, zw */
    PetscCall(KSPCGDeviceSDots(ksp, MS_KRYLOV_FINISH_CGSR_STEP, PETSC_TRUE)); /* s <- A z, z.s, p.s */
  } else {
    PetscCall(KSPCGDeviceUpdate(ksp, MS_KRYLOV_FINISH_NONE));
    PetscCall(KSPMSPCApply(ksp, ms, CGD_R, CGD_Z));
    PetscCall(KSPCGDeviceResidual(ksp, MS_KRYLOV_FINISH_NONE));
    PetscCall(KSPCGDeviceSDots(ksp, MS_KRYLOV_FINISH_CGSR_STEP, PETSC_FALSE)); /* s <- A z, z.w, z.s, p.s */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const KSPMSMethod KSPCGDeviceStandard = {"CG", KSPCGDeviceStart, KSPCGDeviceStep, MS_KRYLOV_FINISH_CG_POST, 5};
static const KSPMSMethod KSPCGDeviceSingle   = {"CG, single reduction", KSPCGDeviceStart, KSPCGDeviceStepSR, MS_KRYLOV_FINISH_CGSR_POST, 5};
/* one process: room for the step in one kernel (its second r, w, s) */
static const KSPMSMethod KSPCGDeviceSingleOne = {"CG, single reduction", KSPCGDeviceStart, KSPCGDeviceStepSR, MS_KRYLOV_FINISH_CGSR_POST, 8};

static PetscErrorCode KSPSolve_CGDevice(KSP ksp)
{
  KSP_CGDevice          *cg = (KSP_CGDevice *)ksp->data;
  KSPMS                 *ms = &cg->ms;
  const MSKrylovScalars *h  = &ms->hsc;
  const KSPMSMethod     *meth;
  PetscMPIInt            size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  cg->sr     = (PetscBool)(cg->sr_opt || size > 1);
  meth       = cg->sr ? (size > 1 ? &KSPCGDeviceSingle : &KSPCGDeviceSingleOne) : &KSPCGDeviceStandard;
  ms->key[0] = cg->sr;
  ms->key[1] = ksp->normtype;
  PetscCall(KSPMSSolveBegin(ksp, ms, meth));
  /* the vector updates inside the product's kernel: a MATSEQAIJMODSELL image the fused product takes (read in its own
     numbering: unpermuted, or the solve in a permuted image's), and a plan of kernels only (the product and PC fused):
     the standard form's direction, or the single reduction's whole step */
  cg->dir         = (PetscBool)(cg->dir_opt && ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED && !ms->view.perm && !ms->mpi);
  cg->srk         = (PetscBool)(cg->dir && cg->sr);
  cg->dir         = (PetscBool)(cg->dir && !cg->sr);
  ms->graph_pairs = (PetscBool)(cg->dir || cg->srk);
  ms->key[2]      = cg->dir + 2 * cg->srk;
  PetscCall(KSPMSRun(ksp, ms, meth));
  PetscCall(KSPMSSolveEnd(ksp, ms));
  /* cg.c's errors with -ksp_error_if_not_converged */
  if (ksp->errorifnotconverged) {
    PetscCheck(ksp->reason != KSP_DIVERGED_INDEFINITE_PC, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Diverged due to indefinite preconditioner, beta %g, betaold %g", h->s[MS_CG_BETA], h->s[MS_CG_BETAOLD]);
    PetscCheck(ksp->reason != KSP_DIVERGED_INDEFINITE_MAT, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Diverged due to indefinite matrix, dpi %g, dpiold %g", h->s[MS_CG_DPI], h->s[MS_CG_DPIOLD]);
    PetscCheck(ksp->reason != KSP_DIVERGED_NANORINF, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has not converged due to infinity or NaN norm or inner product");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_CGDevice(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPMSReset(&((KSP_CGDevice *)ksp->data)->ms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const KSPCGDeviceComposed[] = {"KSPCGDeviceSetSingleReduction_C", "KSPCGDeviceGetSingleReduction_C"};

static PetscErrorCode KSPDestroy_CGDevice(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPMSDestroy(ksp, PETSC_STATIC_ARRAY_LENGTH(KSPCGDeviceComposed), KSPCGDeviceComposed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_CGDevice(KSP ksp, PetscViewer viewer)
{
  KSP_CGDevice *cg = (KSP_CGDevice *)ksp->data;
  PetscBool     isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (cg->ms.planned) PetscCall(PetscViewerASCIIPrintf(viewer, "  variant: %s%s\n", cg->sr ? "single reduction (s = A z, w = s + b w, as Chronopoulos and Gear): one reduction per iteration" : "standard (KSPSolve_CG): two reductions per iteration, both finished on the device", cg->dir ? "; p = z + b p formed in the product's kernel (two kernels per iteration)" : (cg->srk ? "; the whole step in the product's kernel (one kernel per iteration)" : "")));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  variant: %s\n", cg->sr_opt ? "single reduction" : "standard on one process, single reduction on several"));
  PetscCall(KSPMSView(ksp, &cg->ms, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_CGDevice(KSP ksp, PetscOptionItems PetscOptionsObject)
{
  KSP_CGDevice *cg = (KSP_CGDevice *)ksp->data;
  PetscBool     flg, sr = cg->sr_opt;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP CG device options");
  PetscCall(PetscOptionsBool("-ksp_cgdevice_single_reduction", "The single-reduction form (Chronopoulos and Gear) also on one process (always on several)", "KSPCGDeviceSetSingleReduction", sr, &sr, &flg));
  if (flg) PetscCall(KSPCGDeviceSetSingleReduction(ksp, sr));
  PetscCall(PetscOptionsBool("-ksp_cgdevice_fuse_direction", "Fuse the vector updates into the MATSEQAIJMODSELL product's kernel (fused product and PC, one process): the standard form's p = z + b p (two kernels per iteration instead of three), the single reduction's whole step (one kernel per iteration instead of two)", "KSPCGDEVICE", cg->dir_opt, &cg->dir_opt, NULL));
  PetscCall(KSPMSSetFromOptions(ksp, &cg->ms, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPCGDeviceSetSingleReduction_CGDevice(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  ((KSP_CGDevice *)ksp->data)->sr_opt = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPCGDeviceGetSingleReduction_CGDevice(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((KSP_CGDevice *)ksp->data)->sr_opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPCGDeviceSetSingleReduction - Sets whether `KSPCGDEVICE` runs the single-reduction form of CG on one process

  Logically Collective

  Input Parameters:
+ ksp - the `KSP` of type `KSPCGDEVICE`
- flg - `PETSC_TRUE` for the single-reduction form

  Options Database Key:
. -ksp_cgdevice_single_reduction <bool> - the single-reduction form

  Level: intermediate

  Notes:
  On several processes `KSPCGDEVICE` always runs the single-reduction form (Chronopoulos and Gear, as
  `KSPCGUseSingleReduction()` of `KSPCG`): one global reduction per iteration (of z.Az, r.z, the norm and two more
  inner products). On one process the standard form of `KSPCG` runs by default, both of its reductions finished on the
  device: with a `MATSEQAIJMODSELL` operator and `PCNONE`, `PCJACOBI` or `PCRUIZ` an iteration is two kernels. The
  single-reduction form on one process makes such an iteration one kernel, which also reads one vector less (the
  product forms z = B r at the neighbours' rows itself): fewer launches and reductions, which matters most on small
  problems. Both forms give the same iterates in exact arithmetic; the single reduction forms A p by a recurrence,
  whose rounding may change the iteration count slightly.

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPCGUseSingleReduction()`, `KSPCGDeviceGetSingleReduction()`
@*/
PetscErrorCode KSPCGDeviceSetSingleReduction(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPCGDeviceSetSingleReduction_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPCGDeviceGetSingleReduction - Gets whether `KSPCGDEVICE` runs the single-reduction form of CG on one process

  Not Collective

  Input Parameter:
. ksp - the `KSP` of type `KSPCGDEVICE`

  Output Parameter:
. flg - whether the single-reduction form was asked for

  Level: intermediate

.seealso: [](ch_ksp), `KSPCGDEVICE`, `KSPCGDeviceSetSingleReduction()`
@*/
PetscErrorCode KSPCGDeviceGetSingleReduction(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPCGDeviceGetSingleReduction_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   KSPCGDEVICE - The preconditioned conjugate gradient method of `KSPCG` with its iterations on the device: the scalars
   (alpha, beta, p.Ap, the residual norm) stay in device memory and are computed there, the vector work of an iteration
   is fused into a few kernels, and the convergence test runs on the device; the host reads a done flag every few
   iterations. On a host operator the same iteration runs on the CPU (reference kernels).

   Options Database Keys:
+  -ksp_cgdevice_single_reduction <bool> - the single-reduction form on one process too (always on several)
.  -ksp_device_graph <bool>              - replay blocks of iterations as CUDA graphs when every step is a kernel (default true)
.  -ksp_device_check_max <k>             - the most iterations between two host reads of the done flag (default 32)
.  -ksp_device_read_late <bool>        - a test option without a GPU: the done flag of a step read after the next step is queued, as on the device (default false)
.  -ksp_cgdevice_fuse_direction <bool>   - the vector updates inside the `MATSEQAIJMODSELL` product's kernel (default true)
.  -ksp_device_fuse_pc <bool>            - apply `PCNONE`, `PCJACOBI`, `PCRUIZ` inside the kernels (default true)
.  -ksp_device_fuse_operator <bool>      - the `MATSEQAIJMODSELL` product with its dot in one kernel (default true)
-  -ksp_device_image_order <bool>        - a permuted image's solve in the image's numbering (default true)

   Level: beginner

   Notes:
   The same method as `KSPCG` (`KSPSolve_CG`): left preconditioning only, the norm types `KSP_NORM_PRECONDITIONED`
   (default), `KSP_NORM_UNPRECONDITIONED`, `KSP_NORM_NATURAL` and `KSP_NORM_NONE`, a nonzero initial guess, the
   convergence test and reasons of `KSPConvergedDefault()` (rtol, atol, divtol, max_it, the initial residual norm
   variants, `-ksp_min_it`, `-ksp_check_norm_iteration`), `KSP_CONVERGED_ATOL` when r.z = 0,
   `KSP_DIVERGED_INDEFINITE_PC` when r.z changes sign, `KSP_DIVERGED_INDEFINITE_MAT` when p.Ap is zero or changes sign
   (`KSP_CONVERGED_NEG_CURVE` with `KSPSetConvergedNegativeCurvature()`), `KSP_DIVERGED_NANORINF` for an infinite or
   NaN norm or inner product. The iterates are those of `KSPCG` up to rounding. `KSPGetIterationNumber()`,
   `KSPGetResidualNorm()` and the residual history are those of the iteration that stopped the solve, with its
   solution: iterations queued after it do nothing.

   What is fused: `PCNONE`, `PCJACOBI` (any `-pc_jacobi_type`) and `PCRUIZ` are diagonal, taken once per setup of the
   preconditioner and applied in the kernel that updates x and r and forms the norm and r.z; the product of a
   `MATSEQAIJMODSELL` operator (any threads per row) carries p.Ap in its epilogue and forms the new direction
   p = z + b p itself: an iteration is then two kernels (one with `-ksp_cgdevice_single_reduction`). When the
   matrix's image is permuted (the orderings partition, rcm, bricks) the solve runs in the image's numbering: b, x and
   the diagonal are gathered into it once per solve and x is scattered back, so that the product reads the image as
   it is. Any other preconditioner is applied with `PCApply()` and any other operator with `MatMult()` between the
   kernels, still without host waits. With a `MATSEQAIJMODSELL` operator and a fused preconditioner on one process,
   blocks of iterations are replayed as CUDA graphs.

   Several processes: the single-reduction form (Chronopoulos and Gear, 1989; `KSPCGUseSingleReduction()`): one
   `MPI_Allreduce()` of five numbers per iteration, read through pinned host memory; the product is the matrix's
   `MatMult()`, the preconditioner fused as on one process.

   Monitors (`-ksp_monitor`) or a convergence test other than `KSPConvergedDefault()` make the host read the
   scalars after every iteration and call them as `KSPCG` does; `-ksp_view` shows which way the test ran, where the
   iterations ran, what was fused and whether graphs ran. Vectors in host memory (`VecCreate()` without a device type)
   with a GPU operator are copied to the device once per solve, and the solution back.

   Not supported: right or symmetric preconditioning (as `KSPCG`), the trust-region and objective options of
   `KSPCG`, singular value estimates (`KSPSetComputeSingularValues()`), complex numbers.

.seealso: [](ch_ksp), `KSPCG`, `KSPCGUseSingleReduction()`, `KSPCGDeviceSetSingleReduction()`, `KSPDeviceSetUseGraph()`,
          `KSPDeviceSetCheckMax()`, `KSPDeviceSetFusion()`, `MATMODSELL`, `PCJACOBI`, `PCRUIZ`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_CGDevice(KSP ksp)
{
  KSP_CGDevice *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  ksp->data = (void *)cg;
  PetscCall(KSPMSInitialize(ksp, &cg->ms, "KSPCGDEVICE"));
  cg->dir_opt = PETSC_TRUE;
  cg->p       = CGD_P;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->solve          = KSPSolve_CGDevice;
  ksp->ops->reset          = KSPReset_CGDevice;
  ksp->ops->destroy        = KSPDestroy_CGDevice;
  ksp->ops->view           = KSPView_CGDevice;
  ksp->ops->setfromoptions = KSPSetFromOptions_CGDevice;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPCGDeviceSetSingleReduction_C", KSPCGDeviceSetSingleReduction_CGDevice));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPCGDeviceGetSingleReduction_C", KSPCGDeviceGetSingleReduction_CGDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}
