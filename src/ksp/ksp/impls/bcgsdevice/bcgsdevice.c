/*
    KSPBCGSDEVICE: the BiCGSTAB method of KSPBCGS (src/ksp/ksp/impls/bcgs/bcgs.c) with its iterations on the device.

    The same mathematics as KSPSolve_BCGS (van der Vorst, 1992): left and right preconditioning, the preconditioned (left)
    and unpreconditioned (right) norms and no norm, a nonzero initial guess (with right preconditioning the iteration runs
    on the preconditioned variable from a zero guess and the guess is added at the end, as bcgs.c), the breakdowns of
    bcgs.c (v.rp = 0; t = 0 with s != 0; rho = 0, found after the test of the pass that used it) and its exact solution
    when t = s = 0 (x + alpha p, the norm 0), KSPConvergedDefault(). The scalars (rho, alpha, omega, beta, the norms)
    are computed on the device by the kernels that reduce them, the convergence test too; the host reads a done flag
    every few iterations (src/ksp/ksp/utils/kspms.c, the shared layer). One pass of the standard form is
        p = r + beta (p - omega v)                                      bcgs_direction
        v = K p, v.rp, alpha                                            mult_scale_dots (one kernel for a MATSEQAIJMODSELL)
        s = r - alpha v, t = K s, s.t, t.t, s.s, omega                  bcgs_s_mult (s formed where the product reads it)
        x = x + alpha p + omega s, r = s - omega t, r.r, r.rp, the test, rho, beta    bcgs_update
    where K = B A (left) or A B (right) and a pointwise B (PCNONE, PCJACOBI, PCRUIZ) is applied inside the product's
    kernel: four kernels. Other operators: bcgs_s, MatMult() and kernels around it that apply the pointwise B and form
    the dots; other preconditioners: PCApplyBAorAB() and a dot kernel.

    Merged reductions (by default with several processes; -ksp_bcgsdevice_merged_reductions): the update forms the
    next p in the same pass (p = r + beta' (p - omega v)), for which rho' = r.rp of the new r is obtained from the sums of
    the product t = K s as s.rp - omega t.rp (r = s - omega t exactly); r.r is reduced by the update and added over the
    processes together with v.rp of the next product. Two reductions per pass (the two dependent inner products of
    BiCGSTAB: v.rp, then s.t and t.t), and one vector pass less than the standard form. The same iterates in exact
    arithmetic; rho is then a sum of two products instead of one dot, so an exactly zero rho is not detected exactly.

    This file is the glue: the layer (kspmsimpl.h) supplies the vectors, the reductions, the loop and the logging; the
    kernels (krylovkernels.h) come as a table, host reference (krylov_reference.c) or CUDA (krylov.cu).
*/
#include <petscmodsell/private/kspmsimpl.h> /*I "petscksp.h" I*/

typedef struct {
  KSPMS     ms;         /* the layer: the first member */
  PetscBool merged_opt; /* -ksp_bcgsdevice_merged_reductions */
  PetscBool merged_set; /* merged_opt was set (else: merged on several processes only) */
  PetscBool merged;     /* the merged form ran in the last solve */
  Vec       guess;      /* right preconditioning with a nonzero guess: the guess (added at the end, as bcgs.c) */
} KSP_BCGSDevice;

/* the work vectors */
#define BCD_R  (KSPMS_WORK + 0)
#define BCD_RP (KSPMS_WORK + 1)
#define BCD_V  (KSPMS_WORK + 2)
#define BCD_T  (KSPMS_WORK + 3)
#define BCD_S  (KSPMS_WORK + 4)
#define BCD_P  (KSPMS_WORK + 5)
#define BCD_W  (KSPMS_WORK + 6) /* a right diagonal's d .* p or d .* s before MatMult(); PCApplyBAorAB()'s work; the
                                   fallback product's d .* x */

/* the right preconditioner's diagonal is applied by the kernels that form p and s (the operator is MatMult()) */
static inline PetscBool BCGSDeviceFormsTr(KSP ksp, KSPMS *ms)
{
  return (PetscBool)(ms->pc == MS_KRYLOV_PC_DIAG && ksp->pc_side == PC_RIGHT && !ms->fused_op);
}

static PetscErrorCode KSPBCGSDeviceGetVecs(KSP ksp, MSKrylovBCGSVecs *v)
{
  KSPMS       *ms = &((KSP_BCGSDevice *)ksp->data)->ms;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  PetscCall(KSPMSArray(ms, KSPMS_X, &v->x));
  PetscCall(KSPMSArray(ms, BCD_R, &v->r));
  PetscCall(KSPMSArray(ms, BCD_P, &v->p));
  PetscCall(KSPMSArray(ms, BCD_V, &v->v));
  PetscCall(KSPMSArray(ms, BCD_S, &v->s));
  PetscCall(KSPMSArray(ms, BCD_T, &v->t));
  PetscCall(KSPMSArray(ms, BCD_RP, &a));
  v->rp = a;
  if (BCGSDeviceFormsTr(ksp, ms)) {
    PetscCall(KSPMSArray(ms, BCD_W, &v->tr));
    PetscCall(KSPMSArray(ms, KSPMS_DIAG, &a));
    v->d = a;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sums of the dots x[j] . y[j] into slot, slot + 1, ... and the finish (with several processes: none, then
   KSPMSAllreduce() by the caller) */
static PetscErrorCode BCGSDeviceDots(KSPMS *ms, PetscInt ndot, const PetscInt x[], const PetscInt y[], MSKrylovDots *d)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  d->ndot = (int)ndot;
  for (PetscInt j = 0; j < ndot; j++) {
    PetscScalar *a, *b;

    PetscCall(KSPMSArray(ms, x[j], &a));
    PetscCall(KSPMSArray(ms, y[j], &b));
    d->x[j] = a;
    d->y[j] = b;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* out = K in (K = B A on the left, A B on the right) and the dots into slot...: one kernel with the fused product and
   PC; MatMult() and a kernel that applies a pointwise PC and forms the dots; else PCApplyBAorAB() and a dot kernel. With
   a right pointwise PC and MatMult(), the kernel that formed `in` wrote d .* in to BCD_W. */
static PetscErrorCode KSPBCGSDeviceApplyK(KSP ksp, PetscInt in, PetscInt out, PetscInt ndot, const PetscInt dx[], const PetscInt dy[], int slot, int finish)
{
  KSPMS         *ms = &((KSP_BCGSDevice *)ksp->data)->ms;
  const PetscBool left = (PetscBool)(ksp->pc_side != PC_RIGHT);
  MSKrylovDots   d;
  MSKrylovReduce red;
  PetscScalar   *x, *y, *dg = NULL, *w;
  void          *stream;
  int            err;
  Mat            A;

  PetscFunctionBegin;
  PetscCall(BCGSDeviceDots(ms, ndot, dx, dy, &d));
  PetscCall(KSPMSReduceTarget(ms, slot, finish, &red));
  if (ms->pc == MS_KRYLOV_PC_DIAG) PetscCall(KSPMSArray(ms, KSPMS_DIAG, &dg));
  if (ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED) {
    PetscCall(KSPMSArray(ms, in, &x));
    PetscCall(KSPMSArray(ms, out, &y));
    PetscCall(KSPMSArray(ms, BCD_W, &w));
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->kn->mult_scale_dots(&ms->view, ms->bucketed ? &ms->pb : NULL, x, left ? NULL : dg, left ? dg : NULL, y, w, (double *)ms->xwork, &d, &red, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "mult_scale_dots", ms->opflops + (dg ? 1.0 : 0.0) * ms->n + 2.0 * ndot * ms->n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  if (ms->pc == MS_KRYLOV_PC_APPLIED) PetscCall(KSP_PCApplyBAorAB(ksp, ms->vec[in], ms->vec[out], ms->vec[BCD_W]));
  else if (left && dg) PetscCall(KSP_MatMult(ksp, A, ms->vec[in], ms->vec[BCD_W])); /* then out = d .* w in the kernel */
  else PetscCall(KSP_MatMult(ksp, A, ms->vec[left || !dg ? in : BCD_W], ms->vec[out]));
  PetscCall(KSPMSArray(ms, out, &y));
  PetscCall(KSPMSArray(ms, BCD_W, &w));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->scale_dots((int)ms->n, left && dg ? w : y, left ? dg : NULL, y, &d, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "scale_dots", (left && dg ? 1.0 : 0.0) * ms->n + 2.0 * ndot * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPBCGSDeviceDirection(KSP ksp)
{
  KSPMS           *ms = &((KSP_BCGSDevice *)ksp->data)->ms;
  MSKrylovBCGSVecs v;
  void            *stream;
  int              err;

  PetscFunctionBegin;
  PetscCall(KSPBCGSDeviceGetVecs(ksp, &v));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->bcgs_direction((int)ms->n, &v, ms->sc, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "bcgs_direction", (v.tr ? 5.0 : 4.0) * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPBCGSDeviceS(KSP ksp)
{
  KSPMS           *ms = &((KSP_BCGSDevice *)ksp->data)->ms;
  MSKrylovBCGSVecs v;
  MSKrylovReduce   red;
  void            *stream;
  int              err;

  PetscFunctionBegin;
  PetscCall(KSPBCGSDeviceGetVecs(ksp, &v));
  PetscCall(KSPMSReduceTarget(ms, MS_BCGS_SUM_SS, MS_KRYLOV_FINISH_NONE, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->bcgs_s((int)ms->n, &v, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "bcgs_s", (v.tr ? 5.0 : 4.0) * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the fused plan: s = r - alpha v formed inside the product t = K s (one kernel), s.t, t.t, (merged: s.rp, t.rp), s.s */
static PetscErrorCode KSPBCGSDeviceSMult(KSP ksp, int finish)
{
  KSP_BCGSDevice  *bc   = (KSP_BCGSDevice *)ksp->data;
  KSPMS           *ms   = &bc->ms;
  const PetscBool  left = (PetscBool)(ksp->pc_side != PC_RIGHT);
  MSKrylovBCGSVecs v;
  MSKrylovReduce   red;
  PetscScalar     *dg = NULL, *w;
  void            *stream;
  int              err;

  PetscFunctionBegin;
  PetscCall(KSPBCGSDeviceGetVecs(ksp, &v));
  if (ms->pc == MS_KRYLOV_PC_DIAG) PetscCall(KSPMSArray(ms, KSPMS_DIAG, &dg));
  v.tr = NULL;
  v.d  = left ? NULL : dg; /* the right diagonal */
  PetscCall(KSPMSArray(ms, BCD_W, &w));
  PetscCall(KSPMSReduceTarget(ms, MS_BCGS_SUM_ST, finish, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->bcgs_s_mult(&ms->view, ms->bucketed ? &ms->pb : NULL, &v, left ? dg : NULL, (int)bc->merged, w, (double *)ms->xwork, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "bcgs_s_mult", ms->opflops + (dg ? 5.0 : 4.0) * ms->n + (bc->merged ? 10.0 : 6.0) * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPBCGSDeviceUpdate(KSP ksp, int finish)
{
  KSP_BCGSDevice  *bc = (KSP_BCGSDevice *)ksp->data;
  KSPMS           *ms = &bc->ms;
  MSKrylovBCGSVecs v;
  MSKrylovReduce   red;
  void            *stream;
  int              err;

  PetscFunctionBegin;
  PetscCall(KSPBCGSDeviceGetVecs(ksp, &v));
  PetscCall(KSPMSReduceTarget(ms, MS_BCGS_SUM_RR, finish, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->bcgs_update((int)ms->n, &v, (int)bc->merged, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "bcgs_update", (bc->merged ? 12.0 + (v.tr ? 1.0 : 0.0) : 10.0) * ms->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bcgs.c before its loop: R = B (b - A x) (left) or b - A x (right), ||R|| and rho = R.R in one sum, RP = R, P = V = 0
   (the merged form: P = R and the first v = K p with v.rp); right preconditioning with a nonzero guess: the guess kept,
   x = 0 */
static PetscErrorCode KSPBCGSDeviceStart(KSP ksp)
{
  KSP_BCGSDevice *bc   = (KSP_BCGSDevice *)ksp->data;
  KSPMS          *ms   = &bc->ms;
  const PetscBool left = (PetscBool)(ksp->pc_side != PC_RIGHT);
  const PetscInt  r    = BCD_R, rr[1] = {BCD_R};
  MSKrylovDots    d;
  MSKrylovReduce  red;
  PetscScalar    *u, *out, *dg = NULL;
  void           *stream;
  int             err;

  PetscFunctionBegin;
  PetscCall(KSPMSInitialResidual(ksp, ms, left && ms->pc != MS_KRYLOV_PC_NONE ? BCD_T : BCD_R)); /* b - A x */
  if (!left && !ksp->guess_zero) {
    if (!bc->guess) PetscCall(VecDuplicate(ms->vec[KSPMS_X], &bc->guess));
    PetscCall(VecCopy(ms->vec[KSPMS_X], bc->guess));
    PetscCall(VecSet(ms->vec[KSPMS_X], 0.0));
  }
  if (left && ms->pc == MS_KRYLOV_PC_APPLIED) PetscCall(KSP_PCApply(ksp, ms->vec[BCD_T], ms->vec[BCD_R]));
  if (left && ms->pc == MS_KRYLOV_PC_DIAG) PetscCall(KSPMSArray(ms, KSPMS_DIAG, &dg));
  PetscCall(KSPMSArray(ms, left && ms->pc == MS_KRYLOV_PC_DIAG ? BCD_T : BCD_R, &u));
  PetscCall(KSPMSArray(ms, BCD_R, &out));
  PetscCall(BCGSDeviceDots(ms, 1, rr, rr, &d));
  PetscCall(KSPMSReduceTarget(ms, MS_BCGS_SUM_RR, MS_KRYLOV_FINISH_BCGS_START, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->scale_dots((int)ms->n, u, dg, out, &d, &red, stream); /* R = d .* T (left pointwise PC), R.R */
  PetscCall(KSPMSKernelEnd(ms, err, "scale_dots", (dg ? 3.0 : 2.0) * ms->n));
  PetscCall(VecCopy(ms->vec[r], ms->vec[BCD_RP]));
  PetscCall(VecZeroEntries(ms->vec[BCD_V]));
  PetscCall(KSPMSAllreduce(ksp, ms, MS_BCGS_SUM_RR + 1, MS_KRYLOV_FINISH_BCGS_START));
  if (!bc->merged) PetscCall(VecZeroEntries(ms->vec[BCD_P]));
  else if (!KSPMSStopped(ms)) { /* the first pass's p = r + beta (0 - omega 0) = r, v = K p, v.rp, alpha */
    const PetscInt vx[1] = {BCD_V}, vy[1] = {BCD_RP};

    PetscCall(VecCopy(ms->vec[r], ms->vec[BCD_P]));
    if (BCGSDeviceFormsTr(ksp, ms)) PetscCall(VecPointwiseMult(ms->vec[BCD_W], ms->vec[KSPMS_DIAG], ms->vec[BCD_P]));
    PetscCall(KSPBCGSDeviceApplyK(ksp, BCD_P, BCD_V, 1, vx, vy, MS_BCGS_SUM_D1, MS_KRYLOV_FINISH_BCGS_D1));
    PetscCall(KSPMSAllreduce(ksp, ms, MS_BCGS_SUM_D1 + 1, MS_KRYLOV_FINISH_BCGS_D1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one pass of bcgs.c's loop */
static PetscErrorCode KSPBCGSDeviceStep(KSP ksp)
{
  KSPMS         *ms    = &((KSP_BCGSDevice *)ksp->data)->ms;
  const PetscInt vx[1] = {BCD_V}, vy[1] = {BCD_RP}, tx[2] = {BCD_S, BCD_T}, ty[2] = {BCD_T, BCD_T};

  PetscFunctionBegin;
  PetscCall(KSPBCGSDeviceDirection(ksp)); /* p <- r + beta (p - omega v) */
  PetscCall(KSPBCGSDeviceApplyK(ksp, BCD_P, BCD_V, 1, vx, vy, MS_BCGS_SUM_D1, MS_KRYLOV_FINISH_BCGS_D1)); /* v <- K p, v.rp, alpha */
  PetscCall(KSPMSAllreduce(ksp, ms, MS_BCGS_SUM_D1 + 1, MS_KRYLOV_FINISH_BCGS_D1));
  if (ms->stop) PetscFunctionReturn(PETSC_SUCCESS);
  if (ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED) PetscCall(KSPBCGSDeviceSMult(ksp, MS_KRYLOV_FINISH_BCGS_OMEGA)); /* s, t <- K s, s.t, t.t, s.s, omega */
  else {
    PetscCall(KSPBCGSDeviceS(ksp));                                                                             /* s <- r - alpha v, s.s */
    PetscCall(KSPBCGSDeviceApplyK(ksp, BCD_S, BCD_T, 2, tx, ty, MS_BCGS_SUM_ST, MS_KRYLOV_FINISH_BCGS_OMEGA)); /* t <- K s, s.t, t.t, omega */
  }
  PetscCall(KSPMSAllreduce(ksp, ms, MS_KRYLOV_NSUMS, MS_KRYLOV_FINISH_BCGS_OMEGA));
  if (ms->stop) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPBCGSDeviceUpdate(ksp, MS_KRYLOV_FINISH_BCGS_STEP)); /* x, r, r.r, r.rp, the test, rho, beta */
  PetscCall(KSPMSAllreduce(ksp, ms, MS_BCGS_SUM_RRP + 1, MS_KRYLOV_FINISH_BCGS_STEP));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one pass of the merged form: the second half of pass i and the first half of pass i + 1 */
static PetscErrorCode KSPBCGSDeviceStepMerged(KSP ksp)
{
  KSPMS         *ms    = &((KSP_BCGSDevice *)ksp->data)->ms;
  const PetscInt vx[1] = {BCD_V}, vy[1] = {BCD_RP}, tx[4] = {BCD_S, BCD_T, BCD_S, BCD_T}, ty[4] = {BCD_T, BCD_T, BCD_RP, BCD_RP};

  PetscFunctionBegin;
  if (ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED) PetscCall(KSPBCGSDeviceSMult(ksp, MS_KRYLOV_FINISH_BCGSM_OMEGA)); /* s, t <- K s, s.t, t.t, s.rp, t.rp, s.s */
  else {
    PetscCall(KSPBCGSDeviceS(ksp));                                                                              /* s <- r - alpha v, s.s */
    PetscCall(KSPBCGSDeviceApplyK(ksp, BCD_S, BCD_T, 4, tx, ty, MS_BCGS_SUM_ST, MS_KRYLOV_FINISH_BCGSM_OMEGA)); /* t <- K s, s.t, t.t, s.rp, t.rp */
  }
  PetscCall(KSPMSAllreduce(ksp, ms, MS_KRYLOV_NSUMS, MS_KRYLOV_FINISH_BCGSM_OMEGA));
  if (ms->stop) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPBCGSDeviceUpdate(ksp, MS_KRYLOV_FINISH_NONE)); /* x, r, p of the next pass, r.r */
  PetscCall(KSPBCGSDeviceApplyK(ksp, BCD_P, BCD_V, 1, vx, vy, MS_BCGS_SUM_D1, MS_KRYLOV_FINISH_BCGSM_STEP)); /* v <- K p, v.rp: the test of pass i, alpha of pass i + 1 */
  PetscCall(KSPMSAllreduce(ksp, ms, MS_BCGS_SUM_RR + 1, MS_KRYLOV_FINISH_BCGSM_STEP));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const KSPMSMethod KSPBCGSDeviceStandard = {"BiCGSTAB", KSPBCGSDeviceStart, KSPBCGSDeviceStep, MS_KRYLOV_FINISH_BCGS_POST, 7};
static const KSPMSMethod KSPBCGSDeviceMerged   = {"BiCGSTAB, merged reductions", KSPBCGSDeviceStart, KSPBCGSDeviceStepMerged, MS_KRYLOV_FINISH_BCGSM_POST, 7};

static PetscErrorCode KSPSolve_BCGSDevice(KSP ksp)
{
  KSP_BCGSDevice        *bc = (KSP_BCGSDevice *)ksp->data;
  KSPMS                 *ms = &bc->ms;
  const MSKrylovScalars *h  = &ms->hsc;
  PetscMPIInt            size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  bc->merged     = bc->merged_set ? bc->merged_opt : (PetscBool)(size > 1);
  ms->key[0]     = bc->merged;
  ms->key[1]     = ksp->normtype;
  ms->key[2]     = ksp->pc_side;
  ms->max_steps  = 0;
  PetscCall(VecDestroy(&bc->guess));
  PetscCall(KSPMSSolveBegin(ksp, ms, bc->merged ? &KSPBCGSDeviceMerged : &KSPBCGSDeviceStandard));
  ms->nallreduce = bc->merged ? 2 : 3;
  if (ms->pc == MS_KRYLOV_PC_APPLIED) ms->op_text = "(the matrix's MatMult(), inside PCApplyBAorAB(): the preconditioner is not fused), then a dot kernel";
  else if (!ms->view.perm && ms->view.lanes == 1) ms->op_text = "with the preconditioner's diagonal and the dots of its result in one kernel";
  else if (ms->view.perm) ms->op_text = "with the preconditioner's diagonal and the dots in a kernel after it (a permuted image in the user's numbering: the matrix's own product)";
  else ms->op_text = "with the preconditioner's diagonal and the dots in a kernel after it (several threads per row: the matrix's own product)";
  PetscCall(KSPMSRun(ksp, ms, bc->merged ? &KSPBCGSDeviceMerged : &KSPBCGSDeviceStandard));
  PetscCall(KSPMSReadScalars(ms));
  if (h->reason != KSP_DIVERGED_NANORINF) { /* bcgs.c returns at once from KSPCheckNorm() and KSPCheckDot() */
    if (ksp->pc_side == PC_RIGHT && h->s[MS_BCGS_INLOOP] != 0.0) { /* KSPUnwindPreconditioner() */
      if (ms->image) { /* x in the image's numbering: the fused PC's diagonal (in that numbering) applied to it */
        if (ms->pc == MS_KRYLOV_PC_DIAG) PetscCall(VecPointwiseMult(ms->vec[KSPMS_X], ms->vec[KSPMS_DIAG], ms->vec[KSPMS_X]));
      } else {
        PetscCall(KSP_PCApply(ksp, ms->vec[KSPMS_X], ms->vec[BCD_T]));
        PetscCall(VecCopy(ms->vec[BCD_T], ms->vec[KSPMS_X]));
      }
    }
    if (bc->guess) PetscCall(VecAXPY(ms->vec[KSPMS_X], 1.0, bc->guess));
  }
  PetscCall(KSPMSSolveEnd(ksp, ms));
  /* bcgs.c's errors with -ksp_error_if_not_converged */
  if (ksp->errorifnotconverged) {
    PetscCheck(ksp->reason != KSP_DIVERGED_BREAKDOWN || h->s[MS_BCGS_WHY] != 2.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has failed due to singular preconditioned operator");
    PetscCheck(ksp->reason != KSP_DIVERGED_BREAKDOWN, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve breakdown due to zero inner product");
    PetscCheck(ksp->reason != KSP_DIVERGED_NANORINF, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has not converged due to infinity or NaN norm or inner product");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bcgs.c's KSPBuildSolution_BCGS(): with right preconditioning the iterate is B x (+ the guess); during a solve the
   layer has put x in ksp->vec_sol (the user's numbering), the guess is kept in the solve's (KSPMSPermuteVec()) */
static PetscErrorCode KSPBuildSolution_BCGSDevice(KSP ksp, Vec v, Vec *V)
{
  KSP_BCGSDevice *bc = (KSP_BCGSDevice *)ksp->data;

  PetscFunctionBegin;
  if (ksp->pc_side == PC_RIGHT) {
    PetscCheck(v, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "Not working with right preconditioner");
    PetscCall(KSP_PCApply(ksp, ksp->vec_sol, v));
    if (bc->guess && bc->ms.image) {
      Vec g;

      PetscCall(VecDuplicate(bc->guess, &g));
      PetscCall(KSPMSPermuteVec(&bc->ms, bc->guess, g, MS_KRYLOV_TO_USER));
      PetscCall(VecAXPY(v, 1.0, g));
      PetscCall(VecDestroy(&g));
    } else if (bc->guess) PetscCall(VecAXPY(v, 1.0, bc->guess));
    *V = v;
  } else {
    if (v) {
      PetscCall(VecCopy(ksp->vec_sol, v));
      *V = v;
    } else *V = ksp->vec_sol;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_BCGSDevice(KSP ksp)
{
  KSP_BCGSDevice *bc = (KSP_BCGSDevice *)ksp->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&bc->guess));
  PetscCall(KSPMSReset(&bc->ms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const KSPBCGSDeviceComposed[] = {"KSPBCGSDeviceSetMergedReductions_C", "KSPBCGSDeviceGetMergedReductions_C"};

static PetscErrorCode KSPDestroy_BCGSDevice(KSP ksp)
{
  KSP_BCGSDevice *bc = (KSP_BCGSDevice *)ksp->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&bc->guess));
  PetscCall(KSPMSDestroy(ksp, PETSC_STATIC_ARRAY_LENGTH(KSPBCGSDeviceComposed), KSPBCGSDeviceComposed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_BCGSDevice(KSP ksp, PetscViewer viewer)
{
  KSP_BCGSDevice *bc = (KSP_BCGSDevice *)ksp->data;
  PetscBool       isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (bc->ms.planned) PetscCall(PetscViewerASCIIPrintf(viewer, "  variant: %s\n", bc->merged ? "merged reductions (rho from the sums of t = K s, the next p formed with x and r): two reductions per iteration" : "standard (KSPSolve_BCGS): three reductions per iteration, all finished on the device"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  variant: %s\n", bc->merged_set ? (bc->merged_opt ? "merged reductions" : "standard") : "standard on one process, merged reductions on several"));
  PetscCall(KSPMSView(ksp, &bc->ms, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_BCGSDevice(KSP ksp, PetscOptionItems PetscOptionsObject)
{
  KSP_BCGSDevice *bc = (KSP_BCGSDevice *)ksp->data;
  PetscBool       flg, merged = bc->merged_opt;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP BCGS device options");
  PetscCall(PetscOptionsBool("-ksp_bcgsdevice_merged_reductions", "Two reductions per iteration (rho from the sums of t = K s, the next p formed with x and r); default: on several processes only", "KSPBCGSDeviceSetMergedReductions", merged, &merged, &flg));
  if (flg) PetscCall(KSPBCGSDeviceSetMergedReductions(ksp, merged));
  PetscCall(KSPMSSetFromOptions(ksp, &bc->ms, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPBCGSDeviceSetMergedReductions_BCGSDevice(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  ((KSP_BCGSDevice *)ksp->data)->merged_opt = flg;
  ((KSP_BCGSDevice *)ksp->data)->merged_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPBCGSDeviceGetMergedReductions_BCGSDevice(KSP ksp, PetscBool *flg)
{
  KSP_BCGSDevice *bc = (KSP_BCGSDevice *)ksp->data;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  *flg = bc->merged_set ? bc->merged_opt : (PetscBool)(size > 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPBCGSDeviceSetMergedReductions - Sets whether `KSPBCGSDEVICE` runs the form of BiCGSTAB with two reductions per
  iteration

  Logically Collective

  Input Parameters:
+ ksp - the `KSP` of type `KSPBCGSDEVICE`
- flg - `PETSC_TRUE` for the merged form

  Options Database Key:
. -ksp_bcgsdevice_merged_reductions <bool> - the merged form

  Level: intermediate

  Notes:
  BiCGSTAB has two dependent inner products per iteration (v.rp, then s.t and t.t); `KSPBCGS` computes four reductions
  (rho = r.rp, v.rp, s.t with t.t, and the norm). The merged form obtains the next rho as s.rp - omega t.rp from the sums
  of the second product and adds the new residual's norm together with the next v.rp: two global reductions per
  iteration, and the next direction formed in the same pass as x and r. By default `KSPBCGSDEVICE` runs it on several
  processes, and the standard form (the arithmetic of `KSPBCGS`, its reductions finished on the device) on one. Both
  forms give the same iterates in exact arithmetic; in floating point rho differs by rounding, to which BiCGSTAB's
  iteration count is sensitive on ill-conditioned problems (as it is to the order of the sums of a product).

  The standard form on several processes adds its three reductions over the processes separately (three `MPI_Allreduce()`
  per iteration).

.seealso: [](ch_ksp), `KSPBCGSDEVICE`, `KSPBCGS`, `KSPBCGSDeviceGetMergedReductions()`
@*/
PetscErrorCode KSPBCGSDeviceSetMergedReductions(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPBCGSDeviceSetMergedReductions_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPBCGSDeviceGetMergedReductions - Gets whether `KSPBCGSDEVICE` runs the merged form of BiCGSTAB (on the process count of
  its communicator)

  Not Collective

  Input Parameter:
. ksp - the `KSP` of type `KSPBCGSDEVICE`

  Output Parameter:
. flg - whether the merged form was asked for

  Level: intermediate

.seealso: [](ch_ksp), `KSPBCGSDEVICE`, `KSPBCGSDeviceSetMergedReductions()`
@*/
PetscErrorCode KSPBCGSDeviceGetMergedReductions(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPBCGSDeviceGetMergedReductions_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   KSPBCGSDEVICE - The BiCGSTAB method of `KSPBCGS` with its iterations on the device: the scalars (rho, alpha, omega,
   beta, the residual norm) stay in device memory and are computed there, the vector work of an iteration is fused into
   a few kernels, and the convergence test runs on the device; the host reads a done flag every few iterations. On a
   host operator the same iteration runs on the CPU (reference kernels).

   Options Database Keys:
+  -ksp_bcgsdevice_merged_reductions <bool> - two reductions per iteration (default: on several processes only)
.  -ksp_device_graph <bool>                 - replay blocks of iterations as CUDA graphs when every step is a kernel (default true)
.  -ksp_device_check_max <k>                - the most iterations between two host reads of the done flag (default 32)
.  -ksp_device_read_late <bool>        - a test option without a GPU: the done flag of a step read after the next step is queued, as on the device (default false)
.  -ksp_device_fuse_pc <bool>               - apply `PCNONE`, `PCJACOBI`, `PCRUIZ` inside the kernels (default true)
-  -ksp_device_fuse_operator <bool>         - the `MATSEQAIJMODSELL` product with its preconditioner and dots in one kernel (default true)

   Level: beginner

   Notes:
   The same method as `KSPBCGS` (`KSPSolve_BCGS`): left and right preconditioning, the norm types
   `KSP_NORM_PRECONDITIONED` (left, default), `KSP_NORM_UNPRECONDITIONED` (right) and `KSP_NORM_NONE`, a nonzero initial
   guess, the convergence test and reasons of `KSPConvergedDefault()`, `KSP_DIVERGED_BREAKDOWN` when v.rp = 0, when
   t = 0 but s is not, or when rho = 0 (reported after the test of the iteration that used it, as `KSPBCGS`), the exact
   solution x + alpha p when t = s = 0 (`KSP_CONVERGED_RTOL` with the norm 0), `KSP_DIVERGED_NANORINF` for an infinite
   or NaN norm or inner product. The iterates are those of `KSPBCGS` up to rounding. `KSPGetIterationNumber()`,
   `KSPGetResidualNorm()` and the residual history are those of the iteration that stopped the solve, with its solution.

   What is fused: `PCNONE`, `PCJACOBI` (any `-pc_jacobi_type`) and `PCRUIZ` are diagonal, taken once per setup of the
   preconditioner and applied inside the product's kernel (K = B A on the left, A B on the right); the product of a
   `MATSEQAIJMODSELL` operator forms the dots of its result (v.rp; s.t, t.t and s.s) in its epilogue, and the product
   t = K s forms s = r - alpha v itself where it reads it; the update of x and r forms the norm and the next rho. An
   iteration is four kernels (three with merged reductions). Any other preconditioner runs `PCApplyBAorAB()`, any other
   operator `MatMult()` between the kernels, still without host waits. With a `MATSEQAIJMODSELL` operator and a fused preconditioner on one process, blocks of
   iterations are replayed as CUDA graphs.

   Several processes: the merged form by default (`KSPBCGSDeviceSetMergedReductions()`), two `MPI_Allreduce()` per
   iteration through pinned host memory; the product is the matrix's `MatMult()`.

   Monitors (`-ksp_monitor`) or a convergence test other than `KSPConvergedDefault()` make the host read the scalars
   after every iteration and call them as `KSPBCGS` does; `-ksp_view` shows how the test ran, where the iterations ran,
   what was fused and whether graphs ran. Vectors in host memory with a GPU operator are copied to the device once per
   solve, and the solution back.

   Not supported: symmetric preconditioning (as `KSPBCGS`), singular value estimates, complex numbers.

.seealso: [](ch_ksp), `KSPBCGS`, `KSPBCGSDeviceSetMergedReductions()`, `KSPCGDEVICE`, `KSPGMRESDEVICE`, `KSPDeviceSetUseGraph()`,
          `KSPDeviceSetCheckMax()`, `KSPDeviceSetFusion()`, `MATMODSELL`, `PCJACOBI`, `PCRUIZ`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_BCGSDevice(KSP ksp)
{
  KSP_BCGSDevice *bc;

  PetscFunctionBegin;
  PetscCall(PetscNew(&bc));
  ksp->data = (void *)bc;
  PetscCall(KSPMSInitialize(ksp, &bc->ms, "KSPBCGSDEVICE"));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_RIGHT, 1));
  ksp->ops->solve          = KSPSolve_BCGSDevice;
  ksp->ops->reset          = KSPReset_BCGSDevice;
  ksp->ops->destroy        = KSPDestroy_BCGSDevice;
  ksp->ops->view           = KSPView_BCGSDevice;
  ksp->ops->setfromoptions = KSPSetFromOptions_BCGSDevice;
  ksp->ops->buildsolution  = KSPBuildSolution_BCGSDevice;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPBCGSDeviceSetMergedReductions_C", KSPBCGSDeviceSetMergedReductions_BCGSDevice));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPBCGSDeviceGetMergedReductions_C", KSPBCGSDeviceGetMergedReductions_BCGSDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}
