/*
    KSPGMRESDEVICE: the restarted GMRES(m) method of KSPGMRES (src/ksp/ksp/impls/gmres/gmres.c) with its iterations on the
    device.

    The same mathematics as KSPSolve_GMRES and KSPGMRESCycle (Saad and Schultz, 1986): left and right preconditioning,
    the preconditioned (left) and unpreconditioned (right) norms and no norm, a nonzero initial guess, restarts every m
    iterations (-ksp_gmres_restart, default 30) with the true residual, the breakdown test at a restart
    (-ksp_gmres_breakdown_tolerance), the happy breakdown (-ksp_gmres_haptol), classical Gram-Schmidt with the refinement
    of KSPOrthogonalizationClassicalGramSchmidt() (never, if needed, always: -ksp_orthogonalization_cgs_refinement_type),
    the Givens rotations of KSPGMRESUpdateHessenberg(), the least-squares solution of KSPGMRESBuildSoln() and its
    breakdown, KSPConvergedDefault() and the order in which gmres.c logs the residual history and calls the monitors.
    The Hessenberg matrix, the rotations, the residual estimate and the least-squares solution live in device memory
    and are computed there by the kernels that reduce their sums; the convergence test too; the host reads a done flag
    every few iterations (src/ksp/ksp/utils/kspms.c, the shared layer).

    The basis is one array of m + 1 vectors; a basis vector is stored as it was formed, w, with its scale sig = 1 / ||w||
    (VecNormalize()'s) kept on the device and applied wherever the vector is read: the same numbers as gmres.c's
    normalized vectors without a pass to scale them. One iteration with the fused product and PC is
        w = K (sig_k V[k])                                           gmres_mult (K = B A or A B, a pointwise B inside)
        h_j = V[j] . w for j <= k, one pass over w and the k + 1 vectors     gmres_mdot
        w = w - sum_j h_j V[j], ||w||, the Hessenberg column, the rotations, the residual estimate, the test    gmres_maxpy
    (with the refinement, a second gmres_mdot and gmres_maxpy, which do nothing unless it is needed). At the end of a
    cycle the finish solves the small triangular system; the update x += V y (x += B V y on the right) and the restart's
    residual B (b - A x) run in the next step's kernels (gmres_update, gmres_residual), which do nothing in other steps,
    so that every step queues the same kernels (CUDA graphs) and the host never waits for the device to learn where a
    cycle ends. Other preconditioners run PCApplyBAorAB(), other operators MatMult() (then the host follows the
    cycle: m iterations, then the restart).

    With several processes: MatMult(), and one MPI_Allreduce() of the k + 1 dots and one of the norm per iteration (as
    KSPGMRES), through pinned host memory.

    This file is the glue: the layer (kspmsimpl.h) supplies the vectors, the reductions, the loop and the logging; the
    kernels (krylovkernels.h) come as a table, host reference (krylov_reference.c) or CUDA (krylov.cu).
*/
#include <petscmodsell/private/kspmsimpl.h> /*I "petscksp.h" I*/

_Static_assert(MS_KRYLOV_DIVERGED_NULL == (int)KSP_DIVERGED_NULL, "KSP_DIVERGED_NULL");
_Static_assert((int)KSP_ORTHOGONALIZATION_CGS_REFINE_NEVER == 0 && (int)KSP_ORTHOGONALIZATION_CGS_REFINE_IFNEEDED == 1 && (int)KSP_ORTHOGONALIZATION_CGS_REFINE_ALWAYS == 2, "CGS refinement types");

typedef struct {
  KSPMS     ms; /* the layer: the first member */
  PetscInt  max_k;
  PetscReal haptol, breakdowntol;

  /* the plan of the last solve */
  PetscBool fused;  /* the fused product and PC: every step queues the same kernels */
  PetscInt  hpos;   /* the host's count of the iterations of the cycle (MatMult() and PCApply() of the basis vectors) */
  PetscInt  m;      /* the restart of the last solve */
  double   *V, *aux, *partial, *tmp;
  PetscBool insolve; /* between KSPMSSolveBegin() and the update of the cycle that stopped the solve */
} KSP_GMRESDevice;

#define GMRES_DEFAULT_MAXK 30

/* the work vectors */
#define GMD_T  (KSPMS_WORK + 0)
#define GMD_T2 (KSPMS_WORK + 1)
#define GMD_PK (KSPMS_WORK + 2) /* placed on the basis vector k (MatMult(), PCApply()) */
#define GMD_PW (KSPMS_WORK + 3) /* placed on the basis vector k + 1 */

static PetscErrorCode KSPGMRESDeviceGetVecs(KSP ksp, MSKrylovGMRESVecs *v)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;
  KSPMS           *ms = &gm->ms;
  PetscScalar     *a;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  v->V  = gm->V;
  v->ld = (long long)ms->n;
  v->m  = (int)gm->m;
  PetscCall(KSPMSArray(ms, KSPMS_X, &v->x));
  PetscCall(KSPMSArray(ms, KSPMS_B, &a));
  v->b = a;
  if (ms->pc == MS_KRYLOV_PC_DIAG) {
    PetscCall(KSPMSArray(ms, KSPMS_DIAG, &a));
    v->d = a;
  }
  v->right   = (int)(ksp->pc_side == PC_RIGHT);
  v->wscaled = (int)gm->fused;
  PetscCall(KSPMSArray(ms, GMD_T2, &v->t));
  v->partial = gm->partial;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* column 0 = B (u - t) (t NULL: B u) where B is a left pointwise PC (else none; a PCApply() was done by the caller),
   its norm, the finish of a cycle's start; start: the first cycle (the kernel runs whatever the flags) */
static PetscErrorCode KSPGMRESDeviceResidualVec(KSP ksp, PetscInt u, PetscInt t, PetscBool start)
{
  KSPMS            *ms = &((KSP_GMRESDevice *)ksp->data)->ms;
  MSKrylovGMRESVecs v;
  MSKrylovReduce    red;
  PetscScalar      *ua = NULL, *ta = NULL;
  void             *stream;
  int               err;

  PetscFunctionBegin;
  PetscCall(KSPGMRESDeviceGetVecs(ksp, &v));
  if (u >= 0) PetscCall(KSPMSArray(ms, u, &ua));
  else ua = v.V; /* column 0 as it is */
  if (t >= 0) PetscCall(KSPMSArray(ms, t, &ta));
  if (u < 0) v.d = NULL;
  PetscCall(KSPMSReduceTarget(ms, MS_GM_SUM_NN, MS_KRYLOV_FINISH_GMRES_START, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->gmres_residual_vec((int)ms->n, &v, ua, ta, (int)start, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "gmres_residual_vec", 4.0 * ms->n));
  PetscCall(KSPMSAllreduce(ksp, ms, 1, MS_KRYLOV_FINISH_GMRES_START));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solution's update x += V y (B V y on the right) when it is due (force: after the solve stopped) */
static PetscErrorCode KSPGMRESDeviceUpdate(KSP ksp, PetscBool force)
{
  KSPMS            *ms = &((KSP_GMRESDevice *)ksp->data)->ms;
  MSKrylovGMRESVecs v;
  void             *stream;
  int               err;

  PetscFunctionBegin;
  PetscCall(KSPGMRESDeviceGetVecs(ksp, &v));
  if (ksp->pc_side == PC_RIGHT && ms->pc == MS_KRYLOV_PC_APPLIED) { /* t = V y, x += B t (KSPUnwindPreconditioner()) */
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->kn->gmres_update((int)ms->n, &v, 1, (int)force, ms->sc, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "gmres_update", 2.0 * ms->n * (ms->hsc.s[MS_GM_NSOL] + 1)));
    PetscCall(KSP_PCApply(ksp, ms->vec[GMD_T2], ms->vec[GMD_T]));
    PetscCall(KSPMSArray(ms, GMD_T, &v.t));
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->kn->gmres_update((int)ms->n, &v, 2, (int)force, ms->sc, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "gmres_update", (PetscLogDouble)ms->n));
  } else {
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->kn->gmres_update((int)ms->n, &v, 0, (int)force, ms->sc, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "gmres_update", 2.0 * ms->n * (ms->hsc.s[MS_GM_NSOL] + 1)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a restart: the update, then column 0 = B (b - A x) (left) or b - A x (right), its norm and the cycle's start */
static PetscErrorCode KSPGMRESDeviceRestart(KSP ksp)
{
  KSP_GMRESDevice *gm   = (KSP_GMRESDevice *)ksp->data;
  KSPMS           *ms   = &gm->ms;
  const PetscBool  left = (PetscBool)(ksp->pc_side != PC_RIGHT);

  PetscFunctionBegin;
  PetscCall(KSPGMRESDeviceUpdate(ksp, PETSC_FALSE));
  if (gm->fused) {
    MSKrylovGMRESVecs v;
    MSKrylovReduce    red;
    void             *stream;
    int               err;

    PetscCall(KSPGMRESDeviceGetVecs(ksp, &v));
    PetscCall(KSPMSReduceTarget(ms, MS_GM_SUM_NN, MS_KRYLOV_FINISH_GMRES_START, &red));
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->kn->gmres_residual(&ms->view, ms->bucketed ? &ms->pb : NULL, &v, gm->tmp, (double *)ms->xwork, &red, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "gmres_residual", ms->opflops + 4.0 * ms->n));
  } else {
    Mat A;

    PetscCall(PCGetOperators(ksp->pc, &A, NULL));
    PetscCall(KSP_MatMult(ksp, A, ms->vec[KSPMS_X], ms->vec[GMD_T]));
    if (left && ms->pc == MS_KRYLOV_PC_APPLIED) { /* B (b - A x) into column 0 by PETSc, then its norm */
      PetscCall(VecWAXPY(ms->vec[GMD_T2], -1.0, ms->vec[GMD_T], ms->vec[KSPMS_B]));
      PetscCall(KSPMSPlaceArray(ms, ms->vec[GMD_PW], gm->V));
      PetscCall(KSP_PCApply(ksp, ms->vec[GMD_T2], ms->vec[GMD_PW]));
      PetscCall(KSPMSResetArray(ms, ms->vec[GMD_PW]));
      PetscCall(KSPGMRESDeviceResidualVec(ksp, -1, -1, PETSC_FALSE));
    } else PetscCall(KSPGMRESDeviceResidualVec(ksp, KSPMS_B, GMD_T, PETSC_FALSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the first cycle's start: column 0 = B (b - A x) (left) or b - A x (right), its norm, the history, the test */
static PetscErrorCode KSPGMRESDeviceStart(KSP ksp)
{
  KSP_GMRESDevice *gm   = (KSP_GMRESDevice *)ksp->data;
  KSPMS           *ms   = &gm->ms;
  const PetscBool  left = (PetscBool)(ksp->pc_side != PC_RIGHT);

  PetscFunctionBegin;
  gm->hpos = 0;
  PetscCall(KSPMSInitialResidual(ksp, ms, GMD_T)); /* b - A x */
  if (left && ms->pc == MS_KRYLOV_PC_APPLIED) {
    PetscCall(KSPMSPlaceArray(ms, ms->vec[GMD_PW], gm->V));
    PetscCall(KSP_PCApply(ksp, ms->vec[GMD_T], ms->vec[GMD_PW]));
    PetscCall(KSPMSResetArray(ms, ms->vec[GMD_PW]));
    PetscCall(KSPGMRESDeviceResidualVec(ksp, -1, -1, PETSC_TRUE));
  } else PetscCall(KSPGMRESDeviceResidualVec(ksp, GMD_T, -1, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = K v_k into column k + 1 by PETSc's operations (MatMult(), PCApply(), PCApplyBAorAB()) on the stored v_k (its scale
   is applied by the dot and AXPY kernels) */
static PetscErrorCode KSPGMRESDeviceApplyKGeneric(KSP ksp, PetscInt k)
{
  KSP_GMRESDevice *gm   = (KSP_GMRESDevice *)ksp->data;
  KSPMS           *ms   = &gm->ms;
  const PetscBool  left = (PetscBool)(ksp->pc_side != PC_RIGHT);
  Vec              vk = ms->vec[GMD_PK], w = ms->vec[GMD_PW], t = ms->vec[GMD_T];
  Mat              A;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(KSPMSPlaceArray(ms, vk, gm->V + (size_t)k * (size_t)ms->n));
  PetscCall(KSPMSPlaceArray(ms, w, gm->V + (size_t)(k + 1) * (size_t)ms->n));
  if (ms->pc == MS_KRYLOV_PC_APPLIED) PetscCall(KSP_PCApplyBAorAB(ksp, vk, w, t));
  else if (ms->pc == MS_KRYLOV_PC_NONE) PetscCall(KSP_MatMult(ksp, A, vk, w));
  else if (left) {
    PetscCall(KSP_MatMult(ksp, A, vk, t));
    PetscCall(VecPointwiseMult(w, ms->vec[KSPMS_DIAG], t));
  } else {
    PetscCall(VecPointwiseMult(t, ms->vec[KSPMS_DIAG], vk));
    PetscCall(KSP_MatMult(ksp, A, t, w));
  }
  PetscCall(KSPMSResetArray(ms, vk));
  PetscCall(KSPMSResetArray(ms, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one Gram-Schmidt pass (pass 1: the refinement, which does nothing unless the first pass asked for it) */
static PetscErrorCode KSPGMRESDeviceOrthogonalize(KSP ksp, int pass)
{
  KSP_GMRESDevice  *gm = (KSP_GMRESDevice *)ksp->data;
  KSPMS            *ms = &gm->ms;
  MSKrylovGMRESVecs v;
  MSKrylovReduce    red;
  MSGMRESAux        a;
  void             *stream;
  int               err;
  const PetscInt    nv = PetscMin(gm->hpos, gm->m - 1) + 1; /* the vectors the pass reads (for the logged flops) */

  PetscFunctionBegin;
  PetscCall(KSPGMRESDeviceGetVecs(ksp, &v));
  PetscCall(KSPMSReduceTarget(ms, 0, pass ? MS_KRYLOV_FINISH_GMRES_DOTS2 : MS_KRYLOV_FINISH_GMRES_DOTS, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->gmres_mdot((int)ms->n, &v, pass, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "gmres_mdot", 2.0 * ms->n * nv));
  ms->hsc.s[MS_GM_MAXK] = (double)gm->m;
  ms->hsc.aux           = gm->aux;
  MSGMRESGetAux(&ms->hsc, &a);
  PetscCall(KSPMSAllreduceArray(ksp, ms, a.lhh, gm->m + 1, pass ? MS_KRYLOV_FINISH_GMRES_DOTS2 : MS_KRYLOV_FINISH_GMRES_DOTS));
  if (ms->stop) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPMSReduceTarget(ms, MS_GM_SUM_NN, pass ? MS_KRYLOV_FINISH_GMRES_NORM2 : MS_KRYLOV_FINISH_GMRES_NORM, &red));
  PetscCall(KSPMSKernelBegin(ms, &stream));
  err = ms->kn->gmres_maxpy((int)ms->n, &v, pass, &red, stream);
  PetscCall(KSPMSKernelEnd(ms, err, "gmres_maxpy", 2.0 * ms->n * (nv + 1)));
  PetscCall(KSPMSAllreduce(ksp, ms, 1, pass ? MS_KRYLOV_FINISH_GMRES_NORM2 : MS_KRYLOV_FINISH_GMRES_NORM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step: a restart when one is due, then an iteration. With the fused product and PC every step queues the same
   kernels, which find on the device whether there is a restart and which basis vector is next; else the host follows
   the cycle (m iterations, then a restart; with a host test it reads where the device is) */
static PetscErrorCode KSPGMRESDeviceStep(KSP ksp)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;
  KSPMS           *ms = &gm->ms;
  PetscBool        restart, iterate = PETSC_TRUE;
  PetscInt         k;

  PetscFunctionBegin;
  if (!gm->fused && KSPMSStopped(ms)) PetscFunctionReturn(PETSC_SUCCESS); /* no MatMult(), PCApply() after the stop */
  if (ms->host_check) { /* the status was read after the last step */
    restart = (PetscBool)(ms->hsc.s[MS_GM_RESTART] != 0.0);
    k       = (PetscInt)ms->hsc.s[MS_GM_IT];
    iterate = (PetscBool)!restart; /* the restart's test comes first */
  } else {
    restart = (PetscBool)(gm->hpos == gm->m);
    if (restart) gm->hpos = 0;
    k = gm->hpos;
  }
  if (gm->fused) {
    MSKrylovGMRESVecs v;
    void             *stream;
    int               err;

    PetscCall(KSPGMRESDeviceRestart(ksp)); /* nothing unless a restart is due */
    PetscCall(KSPGMRESDeviceGetVecs(ksp, &v));
    PetscCall(KSPMSKernelBegin(ms, &stream));
    err = ms->kn->gmres_mult(&ms->view, ms->bucketed ? &ms->pb : NULL, &v, gm->tmp, (double *)ms->xwork, ms->sc, stream);
    PetscCall(KSPMSKernelEnd(ms, err, "gmres_mult", ms->opflops + (ms->pc == MS_KRYLOV_PC_DIAG ? 2.0 : 1.0) * ms->n));
  } else {
    if (restart) {
      /* the restart's PCApply() (left) writes basis vector 0, the iteration's product basis vector 1: both are read by
         the update of a cycle that stopped the solve at its m-th iteration. On the device the host reads the done flag
         one step late (KSPMSRun()), so the status is read here, once per cycle, before they are written */
      if (!ms->host_check) PetscCall(KSPMSReadScalars(ms));
      if (KSPMSStopped(ms)) PetscFunctionReturn(PETSC_SUCCESS);
      PetscCall(KSPGMRESDeviceRestart(ksp));
    }
    if (ms->stop || !iterate) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(KSPGMRESDeviceApplyKGeneric(ksp, PetscMin(k, gm->m - 1)));
  }
  if (!ms->host_check) gm->hpos = PetscMin(k, gm->m - 1) + 1;
  PetscCall(KSPGMRESDeviceOrthogonalize(ksp, 0));
  if (ms->stop) PetscFunctionReturn(PETSC_SUCCESS);
  if (ksp->cgstype != KSP_ORTHOGONALIZATION_CGS_REFINE_NEVER) PetscCall(KSPGMRESDeviceOrthogonalize(ksp, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const KSPMSMethod KSPGMRESDeviceMethod = {"GMRES", KSPGMRESDeviceStart, KSPGMRESDeviceStep, MS_KRYLOV_FINISH_GMRES_POST, 4};

static PetscErrorCode KSPSolve_GMRESDevice(KSP ksp)
{
  KSP_GMRESDevice       *gm = (KSP_GMRESDevice *)ksp->data;
  KSPMS                 *ms = &gm->ms;
  const MSKrylovScalars *h  = &ms->hsc;
  const PetscInt         m  = gm->max_k;
  PetscReal              init[MS_KRYLOV_NSCALARS];

  PetscFunctionBegin;
  PetscCheck(ksp->orthog == KSPOrthogonalizationClassicalGramSchmidt, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSPGMRESDEVICE orthogonalizes with classical Gram-Schmidt (-ksp_orthogonalization cgs, with -ksp_orthogonalization_cgs_refinement_type for its refinement): use KSPGMRES for modified Gram-Schmidt or another orthogonalization");
  PetscCheck(m >= 1 && m <= MS_KRYLOV_GMRES_MAXK, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "KSPGMRESDEVICE takes a restart of at most %d, not %" PetscInt_FMT, MS_KRYLOV_GMRES_MAXK, m);
  gm->m         = m;
  ms->key[0]    = m;
  ms->key[1]    = ksp->normtype;
  ms->key[2]    = ksp->pc_side;
  ms->key[3]    = ksp->cgstype;
  ms->max_steps = ksp->max_it + ksp->max_it / m + 2; /* a restart may take a step of its own (a host test) */
  PetscCall(KSPMSSolveBegin(ksp, ms, &KSPGMRESDeviceMethod));
  gm->fused = (PetscBool)(ms->fused_op && ms->pc != MS_KRYLOV_PC_APPLIED);
  ms->nallreduce = ksp->cgstype == KSP_ORTHOGONALIZATION_CGS_REFINE_NEVER ? 2 : 4;
  if (ms->pc == MS_KRYLOV_PC_APPLIED) ms->op_text = "(the matrix's MatMult() on the basis vectors, with PCApply() or PCApplyBAorAB(): the preconditioner is not fused)";
  else if (!ms->view.perm && ms->view.lanes == 1) ms->op_text = "with the preconditioner's diagonal in one kernel (the dots with the basis in the next)";
  else if (ms->view.perm) ms->op_text = "with the preconditioner's diagonal in kernels around it (a permuted image in the user's numbering: the matrix's own product)";
  else ms->op_text = "with the preconditioner's diagonal in kernels around it (several threads per row: the matrix's own product)";
  PetscCall(KSPMSGetWork(ms, 0, sizeof(double) * (size_t)(m + 1) * (size_t)PetscMax(ms->n, 1), (void **)&gm->V));
  PetscCall(KSPMSGetWork(ms, 1, sizeof(double) * MS_GMRES_AUX_SIZE(m), (void **)&gm->aux));
  PetscCall(KSPMSGetWork(ms, 2, sizeof(double) * (size_t)(m + 1) * MS_KRYLOV_BLOCKS, (void **)&gm->partial));
  gm->tmp = NULL;
  if (ms->fused_op) PetscCall(KSPMSGetWork(ms, 3, sizeof(double) * 2 * (size_t)PetscMax(ms->n, 1), (void **)&gm->tmp));
  PetscCall(KSPMSSetAux(ms, gm->aux));
  for (PetscInt j = 0; j < MS_KRYLOV_NSCALARS; j++) init[j] = 0.0;
  init[MS_GM_HAPTOL]  = gm->haptol;
  init[MS_GM_BRKTOL]  = gm->breakdowntol;
  init[MS_GM_MAXK]    = (PetscReal)m;
  init[MS_GM_CGS]     = (PetscReal)ksp->cgstype;
  init[MS_GM_PREV]    = -1.0; /* ksp->rnorm's marker of the first cycle */
  init[MS_GM_RESTART] = 1.0;  /* the first cycle's start */
  PetscCall(KSPMSSetScalars(ms, 0, MS_KRYLOV_NSCALARS, init));
  gm->insolve = PETSC_TRUE;
  PetscCall(KSPMSRun(ksp, ms, &KSPGMRESDeviceMethod));
  PetscCall(KSPMSReadScalars(ms));
  if (h->s[MS_GM_UPDATE] != 0.0) PetscCall(KSPGMRESDeviceUpdate(ksp, PETSC_TRUE)); /* the cycle that stopped the solve */
  gm->insolve = PETSC_FALSE;
  PetscCall(KSPMSSolveEnd(ksp, ms));
  /* gmres.c's errors with -ksp_error_if_not_converged */
  if (ksp->errorifnotconverged) {
    PetscCheck(ksp->reason != KSP_DIVERGED_BREAKDOWN || h->s[MS_GM_WHY] != 1.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_CONV_FAILED, "Residual norm computed by GMRES recursion formula %g is far from the computed residual norm %g at restart, residual norm at start of cycle %g", h->s[MS_GM_PREV], h->s[MS_GM_RES], h->s[MS_GM_RNORM0]);
    PetscCheck(ksp->reason != KSP_DIVERGED_BREAKDOWN || h->s[MS_GM_WHY] != 2.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Reached happy break down, but convergence was not indicated. Residual norm = %g", h->s[MS_GM_RES]);
    PetscCheck(ksp->reason != KSP_DIVERGED_BREAKDOWN, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "You reached the break down in GMRES; HH(it,it) = 0");
    PetscCheck(ksp->reason != KSP_DIVERGED_NULL, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "tt == 0.0");
    PetscCheck(ksp->reason != KSP_DIVERGED_NANORINF, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has not converged due to infinity or NaN norm or inner product");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPBuildSolution() during a solve (a monitor of the true residual): the solution of the cycle so far, x + V y (x + B V y
   on the right), y the least-squares solution of the Hessenberg matrix on the device (read and solved on the host:
   gmres.c's KSPGMRESBuildSoln() through the same code); after a solve, x. The layer has put x in ksp->vec_sol (the
   user's numbering); V y is formed in the solve's numbering (the image's in the image-order plan) and brought to the
   user's (KSPMSPermuteVec()) */
static PetscErrorCode KSPBuildSolution_GMRESDevice(KSP ksp, Vec ptr, Vec *result)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;
  KSPMS           *ms = &gm->ms;
  MSKrylovScalars  h;
  MSGMRESAux       a   = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0};
  double          *aux = NULL;
  Vec              t   = NULL, vj = ms->vec[GMD_PK], sum;
  PetscInt         ns  = 0;

  PetscFunctionBegin;
  if (!ptr) {
    if (!ms->vec[GMD_T2]) { /* no solve yet */
      if (result) *result = ksp->vec_sol;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    ptr = ms->vec[GMD_T2];
  }
  PetscCall(VecCopy(ksp->vec_sol, ptr));
  if (gm->insolve && ms->planned) {
    PetscCall(KSPMSReadScalars(ms));
    h = ms->hsc;
    if (!h.done || h.s[MS_GM_UPDATE] != 0.0) { /* the cycle's update is not in x yet */
      const size_t na = MS_GMRES_AUX_SIZE(gm->m);

      PetscCall(PetscMalloc1(na, &aux));
      PetscCall(KSPMSCopyToHost(ms, aux, gm->aux, sizeof(double) * na));
      h.aux = aux;
      MSGMRESGetAux(&h, &a);
      if (h.s[MS_GM_UPDATE] != 0.0) ns = (PetscInt)h.s[MS_GM_NSOL];                              /* y of the cycle's end */
      else if (!MSGMRESBuildSoln(&h, &a) && h.s[MS_GM_UPDATE] != 0.0) ns = (PetscInt)h.s[MS_GM_NSOL]; /* y so far */
    }
  }
  if (ns > 0) {
    sum = ptr;
    if (ksp->pc_side == PC_RIGHT || ms->image) {
      PetscCall(VecDuplicate(ms->image ? ms->vec[KSPMS_X] : ptr, &t));
      PetscCall(VecZeroEntries(t));
      sum = t;
    }
    for (PetscInt j = 0; j < ns; j++) {
      PetscCall(KSPMSPlaceArray(ms, vj, gm->V + (size_t)j * (size_t)ms->n));
      PetscCall(VecAXPY(sum, (PetscScalar)(a.nrs[j] * a.sig[j]), vj));
      PetscCall(KSPMSResetArray(ms, vj));
    }
    if (ms->image) { /* V y in the user's numbering */
      Vec u;

      PetscCall(VecDuplicate(t, &u));
      PetscCall(KSPMSPermuteVec(ms, t, u, MS_KRYLOV_TO_USER));
      PetscCall(VecDestroy(&t));
      t = u;
      if (ksp->pc_side != PC_RIGHT) {
        PetscCall(VecAXPY(ptr, 1.0, t));
        PetscCall(VecDestroy(&t));
      }
    }
    if (t) {
      Vec bt;

      PetscCall(VecDuplicate(ptr, &bt));
      PetscCall(KSP_PCApply(ksp, t, bt));
      PetscCall(VecAXPY(ptr, 1.0, bt));
      PetscCall(VecDestroy(&bt));
      PetscCall(VecDestroy(&t));
    }
  }
  PetscCall(PetscFree(aux));
  if (result) *result = ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_GMRESDevice(KSP ksp)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPMSReset(&gm->ms));
  gm->V = gm->aux = gm->partial = gm->tmp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const KSPGMRESDeviceComposed[] = {"KSPGMRESSetRestart_C", "KSPGMRESGetRestart_C", "KSPGMRESSetHapTol_C", "KSPGMRESSetBreakdownTolerance_C"};

static PetscErrorCode KSPDestroy_GMRESDevice(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPMSDestroy(ksp, PETSC_STATIC_ARRAY_LENGTH(KSPGMRESDeviceComposed), KSPGMRESDeviceComposed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_GMRESDevice(KSP ksp, PetscViewer viewer)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;
  const char      *cstr[] = {"classical (unmodified) Gram-Schmidt orthogonalization with no iterative refinement", "classical (unmodified) Gram-Schmidt orthogonalization with one step of iterative refinement when needed", "classical (unmodified) Gram-Schmidt orthogonalization with one step of iterative refinement"};
  PetscBool        isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  restart=%" PetscInt_FMT ", using %s\n", gm->max_k, ksp->orthog == KSPOrthogonalizationClassicalGramSchmidt && (int)ksp->cgstype >= 0 && (int)ksp->cgstype <= 2 ? cstr[ksp->cgstype] : "an orthogonalization this method does not run"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  happy breakdown tolerance=%g\n", (double)gm->haptol));
  if (gm->ms.planned) PetscCall(PetscViewerASCIIPrintf(viewer, "  variant: %s\n", gm->fused ? "fused product and preconditioner (the dots of all basis vectors in one pass after it): every iteration queues the same kernels (the restarts' kernels do nothing in other iterations)" : "PETSc's operations on the basis vectors for the product or the preconditioner: the host follows the cycle"));
  PetscCall(KSPMSView(ksp, &gm->ms, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPGMRESSetRestart_GMRESDevice(KSP ksp, PetscInt max_k)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(max_k >= 1 && max_k <= MS_KRYLOV_GMRES_MAXK, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Restart must be positive and at most %d for KSPGMRESDEVICE, not %" PetscInt_FMT, MS_KRYLOV_GMRES_MAXK, max_k);
  gm->max_k = max_k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPGMRESGetRestart_GMRESDevice(KSP ksp, PetscInt *max_k)
{
  PetscFunctionBegin;
  *max_k = ((KSP_GMRESDevice *)ksp->data)->max_k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPGMRESSetHapTol_GMRESDevice(KSP ksp, PetscReal tol)
{
  PetscFunctionBegin;
  PetscCheck(tol >= 0.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Tolerance must be non-negative");
  ((KSP_GMRESDevice *)ksp->data)->haptol = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPGMRESSetBreakdownTolerance_GMRESDevice(KSP ksp, PetscReal tol)
{
  PetscFunctionBegin;
  if (tol == (PetscReal)PETSC_DEFAULT) tol = 0.1;
  PetscCheck(tol >= 0.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Breakdown tolerance must be non-negative");
  ((KSP_GMRESDevice *)ksp->data)->breakdowntol = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_GMRESDevice(KSP ksp, PetscOptionItems PetscOptionsObject)
{
  KSP_GMRESDevice *gm = (KSP_GMRESDevice *)ksp->data;
  PetscInt         restart;
  PetscReal        tol;
  PetscBool        flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP GMRES device options");
  PetscCall(PetscOptionsInt("-ksp_gmres_restart", "Number of Krylov search directions", "KSPGMRESSetRestart", gm->max_k, &restart, &flg));
  if (flg) PetscCall(KSPGMRESSetRestart(ksp, restart));
  PetscCall(PetscOptionsReal("-ksp_gmres_haptol", "Tolerance for exact convergence (happy breakdown)", "KSPGMRESSetHapTol", gm->haptol, &tol, &flg));
  if (flg) PetscCall(KSPGMRESSetHapTol(ksp, tol));
  PetscCall(PetscOptionsReal("-ksp_gmres_breakdown_tolerance", "Divergence breakdown tolerance during GMRES restart", "KSPGMRESSetBreakdownTolerance", gm->breakdowntol, &tol, &flg));
  if (flg) PetscCall(KSPGMRESSetBreakdownTolerance(ksp, tol));
  PetscCall(KSPMSSetFromOptions(ksp, &gm->ms, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   KSPGMRESDEVICE - The restarted GMRES method of `KSPGMRES` with its iterations on the device: the Hessenberg matrix,
   the Givens rotations, the residual estimate and the small least-squares solution stay in device memory and are
   computed there, classical Gram-Schmidt forms all the dots of an iteration in one pass over the basis, and the
   convergence test runs on the device; the host reads a done flag every few iterations. On a host operator the same
   iteration runs on the CPU (reference kernels).

   Options Database Keys:
+  -ksp_gmres_restart <m>                     - the restart (default 30), as `KSPGMRES`
.  -ksp_gmres_haptol <tol>                    - the happy breakdown tolerance (default 1e-30)
.  -ksp_gmres_breakdown_tolerance <tol>       - the breakdown test at a restart (default 0.1)
.  -ksp_orthogonalization_cgs_refinement_type <refine_never,refine_ifneeded,refine_always> - the refinement of classical Gram-Schmidt
.  -ksp_device_graph <bool>                   - replay blocks of iterations as CUDA graphs when every step is a kernel (default true)
.  -ksp_device_check_max <k>                  - the most iterations between two host reads of the done flag (default 32)
.  -ksp_device_read_late <bool>        - a test option without a GPU: the done flag of a step read after the next step is queued, as on the device (default false)
.  -ksp_device_fuse_pc <bool>                 - apply `PCNONE`, `PCJACOBI`, `PCRUIZ` inside the kernels (default true)
-  -ksp_device_fuse_operator <bool>           - the `MATSEQAIJMODSELL` product with its preconditioner in one kernel (default true)

   Level: beginner

   Notes:
   The same method as `KSPGMRES` (`KSPSolve_GMRES`): left and right preconditioning, the norm types
   `KSP_NORM_PRECONDITIONED` (left, default), `KSP_NORM_UNPRECONDITIONED` (right) and `KSP_NORM_NONE`, a nonzero initial
   guess, restarts with the true residual and `KSPGMRESSetBreakdownTolerance()`'s test there, the happy breakdown
   (`KSP_CONVERGED_HAPPY_BREAKDOWN` without a norm, else `KSP_DIVERGED_BREAKDOWN` unless the test converged),
   `KSP_DIVERGED_BREAKDOWN` for a zero diagonal of the Hessenberg matrix in the update, `KSP_DIVERGED_NULL`, the
   convergence test and reasons of `KSPConvergedDefault()`, `KSP_DIVERGED_NANORINF`, and classical Gram-Schmidt with
   `KSPOrthogonalizationSetCGSRefinementType()`'s refinement. `KSPGMRESSetRestart()`, `KSPGMRESSetHapTol()` and
   `KSPGMRESSetBreakdownTolerance()` apply. The iterates are those of `KSPGMRES` up to rounding; the residual history
   and the monitors get the norms `KSPGMRES` gives them, in its order.

   What is fused: `PCNONE`, `PCJACOBI` (any `-pc_jacobi_type`) and `PCRUIZ` are diagonal, applied inside the product's
   kernel (K = B A on the left, A B on the right) for a `MATSEQAIJMODSELL` operator; the dots of the new vector with
   all basis vectors are one pass over the basis, the orthogonalization with the norm a second; the normalization is
   not a pass of its own (the scale is applied where the vector is read). An iteration is three kernels (five with the
   refinement), the restart's two kernels doing nothing in other iterations. Any other preconditioner runs
   `PCApplyBAorAB()`, any other operator `MatMult()`, on the basis vectors in place.

   Several processes: `MatMult()`, two `MPI_Allreduce()` per iteration (the dots, the norm) as `KSPGMRES`, through pinned
   host memory.

   Monitors or a convergence test other than `KSPConvergedDefault()` make the host read the scalars after every
   iteration; `KSPBuildSolution()` during the solve (a monitor of the true residual) gives the current solution x + V y,
   as `KSPGMRES`. Not supported: modified Gram-Schmidt (`-ksp_orthogonalization mgs`), symmetric preconditioning,
   singular value and eigenvalue estimates, complex numbers.

.seealso: [](ch_ksp), `KSPGMRES`, `KSPGMRESSetRestart()`, `KSPCGDEVICE`, `KSPBCGSDEVICE`, `KSPDeviceSetUseGraph()`,
          `KSPDeviceSetCheckMax()`, `KSPDeviceSetFusion()`, `MATMODSELL`, `PCJACOBI`, `PCRUIZ`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_GMRESDevice(KSP ksp)
{
  KSP_GMRESDevice *gm;

  PetscFunctionBegin;
  PetscCall(PetscNew(&gm));
  ksp->data = (void *)gm;
  PetscCall(KSPMSInitialize(ksp, &gm->ms, "KSPGMRESDEVICE"));
  gm->max_k        = GMRES_DEFAULT_MAXK;
  gm->haptol       = 1.0e-30;
  gm->breakdowntol = 0.1;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 4));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_RIGHT, 1));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->solve          = KSPSolve_GMRESDevice;
  ksp->ops->reset          = KSPReset_GMRESDevice;
  ksp->ops->destroy        = KSPDestroy_GMRESDevice;
  ksp->ops->view           = KSPView_GMRESDevice;
  ksp->ops->setfromoptions = KSPSetFromOptions_GMRESDevice;
  ksp->ops->buildsolution  = KSPBuildSolution_GMRESDevice;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPGMRESDeviceComposed[0], KSPGMRESSetRestart_GMRESDevice));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPGMRESDeviceComposed[1], KSPGMRESGetRestart_GMRESDevice));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPGMRESDeviceComposed[2], KSPGMRESSetHapTol_GMRESDevice));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPGMRESDeviceComposed[3], KSPGMRESSetBreakdownTolerance_GMRESDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}
