/*
   PCRUIZ: Ruiz equilibration (Wikberg (2024), section 5.4, Algorithm 4) used as a diagonal preconditioner.

   Setup finds inverse scalings sr = D_r^-1, sc = D_c^-1 (sr = sc = D^-1 in symmetric mode) such that the
   rows (and columns) of B = D_r^-1 A D_c^-1 have unit p-norm, by the Ruiz iteration
       n_i = ||B_i,:||_p,  c_j = ||B_:,j||_p,   sr_i <- sr_i / sqrt(n_i),  sc_j <- sc_j / sqrt(c_j)
   (symmetric mode: rows only, one scaling). The operator is never modified: every sweep reads a_ij
   from the mod-SELL image (MATMODSELL's own image, or one the PC layer builds for other AIJ operators) and
   computes |a_ij| sr_i sc_j on the fly. Sweep k measures the deviation max |1 - norm| of the scaling
   D_k (on checking sweeps: the first, every check_every-th and the max_it-th) and produces D_{k+1};
   the iteration stops at the first checking sweep whose deviation is <= tol (or at sweep max_it) and
   keeps D_k: the reported deviation is exactly that of the returned scaling. Sweeps = passes over
   the matrix; the scaling was updated sweeps - 1 times.

   Apply: z = sr .* sc .* r (D^-2 r, or D_c^-1 D_r^-1 r); PCApplySymmetricLeft/Right: D_r^-1, D_c^-1.

   MPI: A = [Ad | Ao] on each process (the PC layer's split). Each sweep sends the column scalings to the
   ghost vector (overlapped with the pass over Ad), the pass over Ad leaves partial row accumulations that
   the pass over Ao finishes; in nonsymmetric mode the column accumulations of Ao (ghost columns) are sent
   back to their owners (ADD, or MAX for p = infinity).

   This file is the glue: the PC layer (pcmsimpl.h) supplies the operator, its images, vectors and the ghost
   exchange; the kernels (ruizkernels.h) come as a table, host reference (ruiz_reference.c) or CUDA (ruiz.cu),
   chosen once per setup.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/ruizkernels.h>
#include <petsctime.h>

static PetscLogEvent PC_RuizSweep = 0, PC_RuizCheck = 0, PC_RuizApply = 0;

typedef struct {
  /* options */
  NormType   norm;
  PetscReal  tol;
  PetscInt   max_it, check_every;
  PetscBool3 symmetric_opt;

  /* what the last setup did */
  PetscBool      symmetric, symmetric_auto, converged;
  PetscInt       sweeps;
  PetscReal      deviation;
  PetscLogDouble setup_time;
  PetscInt       nsetups;

  PCMSOperator         op;     /* the operator, its blocks, images and ghost exchange (PC layer) */
  const MSRuizKernels *k;      /* the kernels of the backend the operator lives on */
  PCMSBuffer           status; /* MSRuizStatus in the backend's memory */

  /* vectors, kept while the operator keeps its structure and the mode */
  Vec s[2];   /* inverse row scaling (symmetric: the only one), double buffered */
  Vec c[2];   /* inverse column scaling (nonsymmetric) */
  Vec racc;   /* partial row accumulations (MPI) */
  Vec cacc;   /* column accumulations (nonsymmetric) */
  Vec cghost; /* column accumulations of the ghost columns (nonsymmetric, MPI) */

  /* the result */
  Vec       isr, isc; /* inverse scalings D_r^-1, D_c^-1 (references to s[], c[]) */
  Vec       w;        /* isr .* isc: the preconditioner (nonsymmetric mode; symmetric applies isr twice) */
  Vec       Dr, Dc;   /* D_r, D_c (Dc == Dr in symmetric mode), computed on request (PCRuizGetScaling()) */
  PetscBool dr_valid; /* Dr, Dc hold the reciprocals of the current isr, isc */
} PC_Ruiz;

/* the norms PCRUIZ equilibrates in (-pc_ruiz_norm offers only these), in the order of PCRuizNorms[] */
static const char *const PCRuizNorms[]     = {"1", "2", "infinity"};
static const NormType    PCRuizNormTypes[] = {NORM_1, NORM_2, NORM_INFINITY};

static inline int PCRuizPCode(NormType t)
{
  return t == NORM_1 ? MS_RUIZ_P1 : (t == NORM_2 ? MS_RUIZ_P2 : MS_RUIZ_PINF);
}

static const char *PCRuizNormName(NormType t)
{
  return t == NORM_1 ? "1" : (t == NORM_2 ? "2" : "infinity");
}

/* flops of one pass over an image: per stored entry |a| * s (and the square for p = 2) and the
   accumulation, once for the rows and once more for the columns; per finished row root, product,
   square root, division and deviation */
static PetscLogDouble PCRuizPassFlops(const MSImageLayout *img, int p, PetscBool cols, PetscBool finish)
{
  const PetscLogDouble nz = (PetscLogDouble)img->noffdiag + (img->diag_apart ? (PetscLogDouble)img->m : 0.0);
  const PetscLogDouble fe = p == MS_RUIZ_P2 ? 3.0 : 2.0;
  return nz * fe * (cols ? 2.0 : 1.0) + (finish ? 5.0 * (PetscLogDouble)img->m : 0.0);
}

/* One pass over the rows of image which (0: Ad, 1: Ao). vsc may equal vsr (symmetric mode); a NULL vsr, vsc is
   the unit scaling (the first sweep); vacc_in, vacc_out, vsr_new, vcolacc may be NULL. */
static PetscErrorCode PCRuizRowPass(PC pc, PetscInt which, Vec vsr, Vec vsc, Vec vacc_in, Vec vacc_out, Vec vsr_new, Vec vcolacc, PetscBool check, PetscBool first, PetscBool checkdiag)
{
  PC_Ruiz             *jac = (PC_Ruiz *)pc->data;
  PCMSOperator        *op  = &jac->op;
  const int            p   = PCRuizPCode(jac->norm);
  const PetscScalar   *sr, *sc, *acc_in;
  PetscScalar         *acc_out, *sr_new, *colacc;
  MSImageView          v;
  const MSImageLayout *lay;
  void                *stream;
  int                  err;

  PetscFunctionBegin;
  PetscCheck(vacc_out || vsr_new, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCRUIZ: a pass must store partial sums or new scalings");
  PetscCall(PCMSVecGetArrayRead(op, vsr, &sr));
  if (vsc != vsr) PetscCall(PCMSVecGetArrayRead(op, vsc, &sc));
  else sc = sr;
  PetscCall(PCMSVecGetArrayRead(op, vacc_in, &acc_in));
  PetscCall(PCMSVecGetArray(op, vacc_out, PETSC_MEMORY_ACCESS_WRITE, &acc_out));
  PetscCall(PCMSVecGetArray(op, vsr_new, PETSC_MEMORY_ACCESS_WRITE, &sr_new));
  PetscCall(PCMSVecGetArray(op, vcolacc, PETSC_MEMORY_ACCESS_READ_WRITE, &colacc));
  PetscCall(PCMSOperatorGetView(op, which, &v));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->row_pass(&v, p, sr, sc, acc_in, acc_out, sr_new, colacc, (int)check, (int)first, (int)checkdiag, (MSRuizStatus *)jac->status.ptr, stream);
  PetscCall(MSImageGetLayout(op->img[which], &lay));
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "row_pass", PCRuizPassFlops(lay, p, (PetscBool)(vcolacc != NULL), (PetscBool)(vacc_out == NULL))));
  PetscCall(PCMSVecRestoreArrayRead(op, vsr, &sr));
  if (vsc != vsr) PetscCall(PCMSVecRestoreArrayRead(op, vsc, &sc));
  PetscCall(PCMSVecRestoreArrayRead(op, vacc_in, &acc_in));
  PetscCall(PCMSVecRestoreArray(op, vacc_out, PETSC_MEMORY_ACCESS_WRITE, &acc_out));
  PetscCall(PCMSVecRestoreArray(op, vsr_new, PETSC_MEMORY_ACCESS_WRITE, &sr_new));
  PetscCall(PCMSVecRestoreArray(op, vcolacc, PETSC_MEMORY_ACCESS_READ_WRITE, &colacc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizColPass(PC pc, Vec vsc, Vec vcacc, Vec vsc_new, PetscBool check, PetscBool first)
{
  PC_Ruiz           *jac = (PC_Ruiz *)pc->data;
  PCMSOperator      *op  = &jac->op;
  const PetscScalar *sc, *cacc;
  PetscScalar       *sc_new;
  PetscInt           n;
  void              *stream;
  int                err;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(vsc_new, &n));
  PetscCall(PCMSVecGetArrayRead(op, vsc, &sc));
  PetscCall(PCMSVecGetArrayRead(op, vcacc, &cacc));
  PetscCall(PCMSVecGetArray(op, vsc_new, PETSC_MEMORY_ACCESS_WRITE, &sc_new));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->col_pass((int)n, PCRuizPCode(jac->norm), sc, cacc, sc_new, (int)check, (int)first, (MSRuizStatus *)jac->status.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "col_pass", 5.0 * n));
  PetscCall(PCMSVecRestoreArrayRead(op, vsc, &sc));
  PetscCall(PCMSVecRestoreArrayRead(op, vcacc, &cacc));
  PetscCall(PCMSVecRestoreArray(op, vsc_new, PETSC_MEMORY_ACCESS_WRITE, &sc_new));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizResetStatus(PC pc, PetscBool first)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;
  void    *stream;
  int      err;

  PetscFunctionBegin;
  PetscCall(PCMSBufferEnsure(&jac->op, &jac->status, sizeof(MSRuizStatus), "PCRUIZ's status"));
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  err = jac->k->reset_status((MSRuizStatus *)jac->status.ptr, (int)first, stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "reset_status", 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors found by the first sweep: the smallest global key over the processes names the first offending row
   (then column); every process raises the same error */
static PetscErrorCode PCRuizValidate(PC pc, const MSRuizStatus *st)
{
  PC_Ruiz   *jac  = (PC_Ruiz *)pc->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);
  PetscInt64 loc[2], glob[2], row, col;

  PetscFunctionBegin;
  loc[0] = st->badrow == MS_RUIZ_BAD_NONE ? -1 : (PetscInt64)st->badrow;
  loc[1] = st->badcol == MS_RUIZ_BAD_NONE ? -1 : (PetscInt64)st->badcol;
  PetscCall(PCMSFirstBad(pc, &jac->op, 4, 2, loc, glob));
  row = glob[0];
  col = glob[1];
  if (row >= 0) {
    switch ((int)(row % 4)) {
    case MS_RUIZ_BAD_NONFINITE:
      SETERRQ(comm, PETSC_ERR_FP, "PCRUIZ: row %" PetscInt_FMT " of the operator has a non-finite %s-norm: it holds an Inf or NaN entry (or entries too large for the p-th power in double precision); fix the assembly of the matrix", (PetscInt)(row / 4), PCRuizNormName(jac->norm));
    case MS_RUIZ_BAD_ZERO:
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCRUIZ: row %" PetscInt_FMT " of the operator is zero (no nonzero entry): no diagonal scaling gives it unit norm and the operator is singular; fix the assembly of the matrix", (PetscInt)(row / 4));
    default:
      PetscCall(PCMSErrorDiagonal(pc, (PetscInt)(row / 4), "symmetric Ruiz scaling needs a positive diagonal (an SPD operator)", "use -pc_ruiz_symmetric false for independent row and column scalings, or scale the system by -1 if it is negative definite"));
    }
  }
  if (col >= 0) {
    PetscCheck(col % 4 != MS_RUIZ_BAD_NONFINITE, comm, PETSC_ERR_FP, "PCRUIZ: column %" PetscInt_FMT " of the operator has a non-finite %s-norm (entries too large for the p-th power in double precision); rescale the system", (PetscInt)(col / 4), PCRuizNormName(jac->norm));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCRUIZ: column %" PetscInt_FMT " of the operator is zero (no nonzero entry): no diagonal scaling gives it unit norm and the operator is singular; fix the assembly of the matrix", (PetscInt)(col / 4));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scaling handed out by PCRuizGetScaling() must be returned before it changes */
static PetscErrorCode PCRuizCheckScalingFree(PC pc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;
  PetscInt lr = 0, lc = 0;

  PetscFunctionBegin;
  if (jac->Dr) PetscCall(VecLockGet(jac->Dr, &lr));
  if (jac->Dc) PetscCall(VecLockGet(jac->Dc, &lc));
  PetscCheck(!lr && !lc, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the scaling from PCRuizGetScaling() is still held: call PCRuizRestoreScaling() before the preconditioner is set up again or reset");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Free the vectors (they depend on the operator's structure and the mode) */
static PetscErrorCode PCRuizFreeVecs(PC pc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCRuizCheckScalingFree(pc));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&jac->s[i]));
    PetscCall(VecDestroy(&jac->c[i]));
  }
  PetscCall(VecDestroy(&jac->racc));
  PetscCall(VecDestroy(&jac->cacc));
  PetscCall(VecDestroy(&jac->cghost));
  PetscCall(VecDestroy(&jac->w));
  PetscCall(VecDestroy(&jac->Dr));
  PetscCall(VecDestroy(&jac->Dc));
  jac->isr = jac->isc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizCreateVecs(PC pc)
{
  PC_Ruiz      *jac  = (PC_Ruiz *)pc->data;
  PCMSOperator *op   = &jac->op;
  MPI_Comm      comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(PCMSCreateVec(op, comm, op->m, &jac->s[i]));
    if (!jac->symmetric) PetscCall(PCMSCreateVec(op, comm, op->m, &jac->c[i]));
  }
  if (!jac->symmetric) { /* symmetric mode applies D^-2 from D^-1 itself: no product vector */
    PetscCall(PCMSCreateVec(op, comm, op->m, &jac->w));
    PetscCall(PCMSCreateVec(op, comm, op->m, &jac->cacc));
  }
  if (op->mpi) {
    PetscCall(PCMSCreateVec(op, comm, op->m, &jac->racc));
    if (!jac->symmetric) PetscCall(VecDuplicate(op->ghost, &jac->cghost));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Ruiz(PC pc)
{
  PC_Ruiz               *jac  = (PC_Ruiz *)pc->data;
  PCMSOperator          *op   = &jac->op;
  MPI_Comm               comm = PetscObjectComm((PetscObject)pc);
  const PCMSImageRequest dreq = {PCMS_ENCODING_ANY, 0, PCMS_ORDERING_ANY}, oreq = {PCMS_ENCODING_PLAIN, 0, PCMS_ORDERING_ANY};
  PetscBool              symmetric, symauto = PETSC_FALSE, mpi;
  PetscInt               cur = 0;
  PetscLogDouble         t0, t1;
  MSRuizStatus           st;

  PetscFunctionBegin;
  PetscCall(PCRuizCheckScalingFree(pc));
  PetscCall(PetscTime(&t0));
  /* mode */
  if (jac->symmetric_opt == PETSC_BOOL3_UNKNOWN) {
    PetscBool set, flg;

    symauto   = PETSC_TRUE;
    symmetric = PETSC_FALSE;
    PetscCall(MatIsSymmetricKnown(pc->pmat, &set, &flg));
    if (set && flg) symmetric = PETSC_TRUE;
    if (!symmetric) {
      PetscCall(MatIsSPDKnown(pc->pmat, &set, &flg));
      if (set && flg) symmetric = PETSC_TRUE;
    }
  } else symmetric = (PetscBool)(jac->symmetric_opt == PETSC_BOOL3_TRUE);

  /* the operator (checked, split, images up to date); the vectors are rebuilt with its structure or the mode */
  PetscCall(PCMSOperatorSetUp(pc, op, &dreq, &oreq));
  jac->k = PCMSKernels(op, MSRuizKernels);
  mpi    = op->mpi;
  if (op->rebuilt || symmetric != jac->symmetric || !jac->s[0]) {
    PetscCall(PCRuizFreeVecs(pc));
    jac->symmetric = symmetric;
    PetscCall(PCRuizCreateVecs(pc));
  }
  jac->symmetric_auto = symauto;

  /* the Ruiz iteration, from D_0 = I: on one process the first sweep takes the unit scalings as NULL
     vectors (nothing to set or read); with several the ghost exchange needs them stored */
  if (mpi) {
    PetscCall(VecSet(jac->s[0], 1.0));
    if (!symmetric) PetscCall(VecSet(jac->c[0], 1.0));
  }
  for (PetscInt k = 0;; k++) {
    const PetscBool first = (PetscBool)(k == 0);
    const PetscBool check = (PetscBool)(first || k % jac->check_every == 0 || k >= jac->max_it);
    const PetscBool unit  = (PetscBool)(first && !mpi);
    Vec             sr = unit ? NULL : jac->s[cur], sr_new = jac->s[1 - cur];
    Vec             sc = unit ? NULL : (symmetric ? sr : jac->c[cur]);

    PetscCall(PetscLogEventBegin(PC_RuizSweep, pc, 0, 0, 0));
    if (check) PetscCall(PCRuizResetStatus(pc, first));
    if (mpi) PetscCall(PCMSGhostBegin(op, sc, op->ghost));
    if (!symmetric) {
      PetscCall(VecZeroEntries(jac->cacc));
      if (mpi) PetscCall(VecZeroEntries(jac->cghost));
    }
    PetscCall(PCRuizRowPass(pc, 0, sr, sc, NULL, mpi ? jac->racc : NULL, mpi ? NULL : sr_new, symmetric ? NULL : jac->cacc, check, first, symmetric));
    if (mpi) {
      PetscCall(PCMSGhostEnd(op, sc, op->ghost));
      PetscCall(PCRuizRowPass(pc, 1, sr, op->ghost, jac->racc, NULL, sr_new, symmetric ? NULL : jac->cghost, check, first, PETSC_FALSE));
    }
    if (!symmetric) {
      if (mpi) {
        const InsertMode im = jac->norm == NORM_INFINITY ? MAX_VALUES : ADD_VALUES;
        PetscCall(PCMSGhostReverseBegin(op, jac->cghost, jac->cacc, im));
        PetscCall(PCMSGhostReverseEnd(op, jac->cghost, jac->cacc, im));
      }
      PetscCall(PCRuizColPass(pc, sc, jac->cacc, jac->c[1 - cur], check, first));
    }
    PetscCall(PetscLogEventEnd(PC_RuizSweep, pc, 0, 0, 0));
    if (check) {
      PetscReal dev;

      PetscCall(PetscLogEventBegin(PC_RuizCheck, pc, 0, 0, 0));
      PetscCall(PCMSReadBack(op, &st, jac->status.ptr, sizeof(st))); /* the iteration's only device -> host transfer */
      if (first) PetscCall(PCRuizValidate(pc, &st));
      PetscCall(PetscMemcpy(&dev, &st.dev, sizeof(dev)));
      if (PetscIsNanReal(dev)) dev = PETSC_INFINITY;
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dev, 1, MPIU_REAL, MPIU_MAX, comm));
      PetscCall(PetscLogEventEnd(PC_RuizCheck, pc, 0, 0, 0));
      PetscCall(PetscInfo(pc, "Ruiz sweep %" PetscInt_FMT ": deviation %g\n", k, (double)dev));
      if (dev <= jac->tol || k >= jac->max_it) {
        if (unit) { /* D_0 = I is kept: store it */
          PetscCall(VecSet(jac->s[cur], 1.0));
          if (!symmetric) PetscCall(VecSet(jac->c[cur], 1.0));
        }
        jac->sweeps    = k + 1;
        jac->deviation = dev;
        jac->converged = (PetscBool)(dev <= jac->tol);
        break;
      }
    }
    cur = 1 - cur;
  }
  if (!jac->converged) PetscCall(PetscInfo(pc, "Ruiz scaling did not reach the tolerance %g in %" PetscInt_FMT " sweeps: deviation %g\n", (double)jac->tol, jac->max_it, (double)jac->deviation));

  /* the result: D_r^-1, D_c^-1, their product; D_r, D_c themselves only when asked for */
  jac->isr = jac->s[cur];
  jac->isc = symmetric ? jac->s[cur] : jac->c[cur];
  if (!symmetric) PetscCall(VecPointwiseMult(jac->w, jac->isr, jac->isc));
  jac->dr_valid = PETSC_FALSE;
  PetscCall(PCMSSynchronize(op)); /* for an honest setup time */
  PetscCall(PetscTime(&t1));
  jac->setup_time = t1 - t0;
  jac->nsetups++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = a .* x, or y = a .* a .* x (square: the symmetric mode's D^-2 from D^-1), where the PC computes (vectors in
   host memory are staged to the device for a GPU setup) */
static PetscErrorCode PCRuizDiagonalApply(PC pc, Vec a, PetscBool square, Vec x, Vec y)
{
  PC_Ruiz           *jac = (PC_Ruiz *)pc->data;
  PCMSOperator      *op  = &jac->op;
  const PetscScalar *xa, *aa;
  PetscScalar       *ya;
  PetscInt           n;
  Vec                xu, yu;
  void              *stream;
  int                err;

  PetscFunctionBegin;
  PetscCheck(a, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the preconditioner is not set up");
  PetscCall(PetscLogEventBegin(PC_RuizApply, pc, x, y, 0));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(PCMSStageIn(op, 0, x, PETSC_TRUE, &xu));
  PetscCall(PCMSStageIn(op, 1, y, PETSC_FALSE, &yu));
  PetscCall(PCMSVecGetArrayRead(op, a, &aa));
  PetscCall(PCMSVecGetArrayRead(op, xu, &xa));
  PetscCall(PCMSVecGetArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->pointwise((int)n, aa, (int)square, xa, ya, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pointwise", (PetscLogDouble)(square ? 2 * n : n)));
  PetscCall(PCMSVecRestoreArrayRead(op, a, &aa));
  PetscCall(PCMSVecRestoreArrayRead(op, xu, &xa));
  PetscCall(PCMSVecRestoreArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  PetscCall(PCMSStageOut(y, yu));
  PetscCall(PetscLogEventEnd(PC_RuizApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_Ruiz(PC pc, Vec x, Vec y)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  /* symmetric mode: z = D^-1 (D^-1 r) from the one scaling vector (no product vector to store) */
  if (jac->symmetric) PetscCall(PCRuizDiagonalApply(pc, jac->isr, PETSC_TRUE, x, y));
  else PetscCall(PCRuizDiagonalApply(pc, jac->w, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_Ruiz(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCRuizDiagonalApply(pc, ((PC_Ruiz *)pc->data)->isr, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_Ruiz(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCRuizDiagonalApply(pc, ((PC_Ruiz *)pc->data)->isc, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_Ruiz(PC pc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCRuizFreeVecs(pc));
  PetscCall(PCMSOperatorReset(&jac->op));
  PetscCall(PCMSBufferDestroy(&jac->status));
  jac->nsetups = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_Ruiz(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_Ruiz   *jac = (PC_Ruiz *)pc->data;
  PetscReal  tol = jac->tol;
  PetscInt   it = jac->max_it, every = jac->check_every, inorm = 0;
  PetscBool3 sym = jac->symmetric_opt;
  PetscBool  flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Ruiz equilibration options");
  for (PetscInt k = 0; k < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(PCRuizNormTypes); k++)
    if (PCRuizNormTypes[k] == jac->norm) inorm = k;
  PetscCall(PetscOptionsEList("-pc_ruiz_norm", "p-norm the rows (and columns) of the scaled operator are equilibrated in", "PCRuizSetNorm", PCRuizNorms, (PetscInt)PETSC_STATIC_ARRAY_LENGTH(PCRuizNorms), PCRuizNorms[inorm], &inorm, &flg));
  if (flg) PetscCall(PCRuizSetNorm(pc, PCRuizNormTypes[inorm]));
  PetscCall(PetscOptionsBoundedReal("-pc_ruiz_tol", "Stop when the largest deviation |1 - norm| of a row (or column) of the scaled operator is at most this (0: run all -pc_ruiz_max_it sweeps)", "PCRuizSetTolerances", tol, &tol, NULL, 0.0));
  PetscCall(PetscOptionsBoundedInt("-pc_ruiz_max_it", "Maximum number of updates of the scaling", "PCRuizSetTolerances", it, &it, NULL, 0));
  PetscCall(PCRuizSetTolerances(pc, tol, it));
  PetscCall(PetscOptionsBoundedInt("-pc_ruiz_check_every", "Compute the deviation (one device-to-host read) every this many sweeps", "PCRuizSetCheckEvery", every, &every, &flg, 1));
  if (flg) PetscCall(PCRuizSetCheckEvery(pc, every));
  PetscCall(PetscOptionsBool3("-pc_ruiz_symmetric", "Symmetric scaling D^-1 A D^-1 (true), row and column scalings Dr^-1 A Dc^-1 (false), or symmetric when the matrix is flagged symmetric or SPD (auto)", "PCRuizSetSymmetric", sym, &sym, &flg));
  if (flg) PetscCall(PCRuizSetSymmetric(pc, sym));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_Ruiz(PC pc, PetscViewer viewer)
{
  PC_Ruiz    *jac = (PC_Ruiz *)pc->data;
  PetscBool   isascii;
  const char *where, *image;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  Ruiz equilibration in the %s-norm, tolerance %g on max |1 - norm|, at most %" PetscInt_FMT " sweeps, deviation checked every %" PetscInt_FMT " sweeps\n", PCRuizNormName(jac->norm), (double)jac->tol, jac->max_it, jac->check_every));
  if (!jac->nsetups) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  mode: %s (not set up yet)\n", jac->symmetric_opt == PETSC_BOOL3_UNKNOWN ? "auto" : (jac->symmetric_opt == PETSC_BOOL3_TRUE ? "symmetric" : "nonsymmetric")));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSOperatorDescribe(&jac->op, &where, &image));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  mode: %s%s\n", jac->symmetric ? "symmetric, D^-1 A D^-1, apply z = D^-2 r" : "nonsymmetric, Dr^-1 A Dc^-1, apply z = Dc^-1 Dr^-1 r", jac->symmetric_auto ? (jac->symmetric ? " (auto: the matrix is flagged symmetric)" : " (auto: the matrix is not flagged symmetric)") : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  sweeps: %" PetscInt_FMT ", final deviation %g (%s)\n", jac->sweeps, (double)jac->deviation, jac->converged ? "converged" : "tolerance not reached"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  setup: %g s on the %s, reading %s\n", (double)jac->setup_time, jac->op.device ? "device" : "host", image));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* public interface                                                                                */

static PetscErrorCode PCRuizSetNorm_Ruiz(PC pc, NormType type)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  jac->norm = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizSetNorm - Sets the p-norm in which `PCRUIZ` equilibrates the rows (and columns) of the operator

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `NORM_1`, `NORM_2` (default) or `NORM_INFINITY`

  Options Database Key:
. -pc_ruiz_norm <1,2,infinity> - the norm

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetNorm()`, `PCRuizSetTolerances()`
@*/
PetscErrorCode PCRuizSetNorm(PC pc, NormType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscCheck(type == NORM_1 || type == NORM_2 || type == NORM_INFINITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ equilibrates in the 1-, 2- or infinity-norm (NORM_1, NORM_2, NORM_INFINITY), not norm type %d", (int)type);
  PetscTryMethod(pc, "PCRuizSetNorm_C", (PC, NormType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetNorm_Ruiz(PC pc, NormType *type)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  *type = jac->norm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetNorm - Gets the p-norm in which `PCRUIZ` equilibrates

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - `NORM_1`, `NORM_2` or `NORM_INFINITY`

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizSetNorm()`
@*/
PetscErrorCode PCRuizGetNorm(PC pc, NormType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCRuizGetNorm_C", (PC, NormType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizSetTolerances_Ruiz(PC pc, PetscReal tol, PetscInt max_it)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  if (tol == (PetscReal)PETSC_DETERMINE) jac->tol = 1e-8;
  else if (tol != (PetscReal)PETSC_CURRENT) jac->tol = tol;
  if (max_it == PETSC_DETERMINE) jac->max_it = 100;
  else if (max_it != PETSC_CURRENT) jac->max_it = max_it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizSetTolerances - Sets when the Ruiz iteration of `PCRUIZ` stops

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
. tol    - stop when max |1 - norm| over the rows (and columns) of the scaled operator is at most this (0: run all
           `max_it` sweeps); `PETSC_CURRENT` keeps the current value, `PETSC_DETERMINE` restores the default 1e-8
- max_it - at most this many updates of the scaling; `PETSC_CURRENT` keeps it, `PETSC_DETERMINE` restores the default 100

  Options Database Keys:
+ -pc_ruiz_tol <1e-8>   - the tolerance
- -pc_ruiz_max_it <100> - the most updates

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetTolerances()`, `PCRuizSetCheckEvery()`, `PCRuizGetConvergence()`
@*/
PetscErrorCode PCRuizSetTolerances(PC pc, PetscReal tol, PetscInt max_it)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, tol, 2);
  PetscValidLogicalCollectiveInt(pc, max_it, 3);
  PetscCheck(tol >= 0.0 || tol == (PetscReal)PETSC_CURRENT || tol == (PetscReal)PETSC_DETERMINE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: the tolerance %g must be nonnegative (0 runs all the sweeps)", (double)tol);
  PetscCheck(max_it >= 0 || max_it == PETSC_CURRENT || max_it == PETSC_DETERMINE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: the most updates of the scaling, %" PetscInt_FMT ", must be nonnegative", max_it);
  PetscTryMethod(pc, "PCRuizSetTolerances_C", (PC, PetscReal, PetscInt), (pc, tol, max_it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetTolerances_Ruiz(PC pc, PetscReal *tol, PetscInt *max_it)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  if (tol) *tol = jac->tol;
  if (max_it) *max_it = jac->max_it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetTolerances - Gets when the Ruiz iteration of `PCRUIZ` stops

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ tol    - the tolerance on max |1 - norm|, or `NULL`
- max_it - the most updates of the scaling, or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizSetTolerances()`
@*/
PetscErrorCode PCRuizGetTolerances(PC pc, PetscReal *tol, PetscInt *max_it)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizGetTolerances_C", (PC, PetscReal *, PetscInt *), (pc, tol, max_it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizSetCheckEvery_Ruiz(PC pc, PetscInt every)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  jac->check_every = every;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizSetCheckEvery - Sets how often `PCRUIZ` computes the deviation of its scaling (one device-to-host read of one
  number on the GPU); the first and the last sweep are always checked

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- every - check every this many sweeps (at least 1; default 5)

  Options Database Key:
. -pc_ruiz_check_every <5> - the interval

  Level: advanced

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetCheckEvery()`, `PCRuizSetTolerances()`
@*/
PetscErrorCode PCRuizSetCheckEvery(PC pc, PetscInt every)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, every, 2);
  PetscCheck(every >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: the deviation is checked every %" PetscInt_FMT " sweeps: give at least 1", every);
  PetscTryMethod(pc, "PCRuizSetCheckEvery_C", (PC, PetscInt), (pc, every));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetCheckEvery_Ruiz(PC pc, PetscInt *every)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  *every = jac->check_every;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetCheckEvery - Gets how often `PCRUIZ` computes the deviation of its scaling

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. every - the interval in sweeps

  Level: advanced

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizSetCheckEvery()`
@*/
PetscErrorCode PCRuizGetCheckEvery(PC pc, PetscInt *every)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(every, 2);
  PetscUseMethod(pc, "PCRuizGetCheckEvery_C", (PC, PetscInt *), (pc, every));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizSetSymmetric_Ruiz(PC pc, PetscBool3 symmetric)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  jac->symmetric_opt = symmetric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizSetSymmetric - Sets whether `PCRUIZ` computes one symmetric scaling or independent row and column scalings

  Logically Collective

  Input Parameters:
+ pc        - the preconditioner context
- symmetric - `PETSC_BOOL3_TRUE`: D^-1 A D^-1; `PETSC_BOOL3_FALSE`: D_r^-1 A D_c^-1; `PETSC_BOOL3_UNKNOWN` (default):
              symmetric when the matrix is flagged symmetric or SPD (`MatSetOption()`)

  Options Database Key:
. -pc_ruiz_symmetric <true,false,auto> - the mode

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetSymmetric()`, `MatSetOption()`
@*/
PetscErrorCode PCRuizSetSymmetric(PC pc, PetscBool3 symmetric)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, symmetric, 2);
  PetscCheck(symmetric == PETSC_BOOL3_TRUE || symmetric == PETSC_BOOL3_FALSE || symmetric == PETSC_BOOL3_UNKNOWN, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: the symmetric mode is PETSC_BOOL3_TRUE, PETSC_BOOL3_FALSE or PETSC_BOOL3_UNKNOWN (auto), not %d", (int)symmetric);
  PetscTryMethod(pc, "PCRuizSetSymmetric_C", (PC, PetscBool3), (pc, symmetric));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetSymmetric_Ruiz(PC pc, PetscBool3 *symmetric, PetscBool *used)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  if (symmetric) *symmetric = jac->symmetric_opt;
  if (used) *used = (PetscBool)(jac->nsetups && jac->symmetric);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetSymmetric - Gets the mode set with `PCRuizSetSymmetric()` and, after a setup, the mode used

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ symmetric - the mode set (`PETSC_BOOL3_UNKNOWN`: auto), or `NULL`
- used      - whether the last setup computed a symmetric scaling (`PETSC_FALSE` before the first setup), or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizSetSymmetric()`
@*/
PetscErrorCode PCRuizGetSymmetric(PC pc, PetscBool3 *symmetric, PetscBool *used)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizGetSymmetric_C", (PC, PetscBool3 *, PetscBool *), (pc, symmetric, used));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetScaling_Ruiz(PC pc, Vec *Dr, Vec *Dc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups && jac->isr, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the scaling is computed by the setup: call PCSetUp() (or KSPSetUp()) first");
  if (!jac->dr_valid) {
    PetscCall(PCRuizCheckScalingFree(pc));
    if (!jac->Dr) PetscCall(VecDuplicate(jac->isr, &jac->Dr));
    if (!jac->symmetric && !jac->Dc) PetscCall(VecDuplicate(jac->isc, &jac->Dc));
    PetscCall(VecCopy(jac->isr, jac->Dr));
    PetscCall(VecReciprocal(jac->Dr));
    if (!jac->symmetric) {
      PetscCall(VecCopy(jac->isc, jac->Dc));
      PetscCall(VecReciprocal(jac->Dc));
    }
    jac->dr_valid = PETSC_TRUE;
  }
  if (Dr) {
    *Dr = jac->Dr;
    PetscCall(VecLockReadPush(*Dr));
  }
  if (Dc) {
    *Dc = jac->symmetric ? jac->Dr : jac->Dc;
    PetscCall(VecLockReadPush(*Dc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetScaling - Gets read access to the diagonal scalings computed by a `PCRUIZ` preconditioner

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ Dr - the row scaling D_r (the scaled operator is D_r^-1 A D_c^-1), or `NULL`
- Dc - the column scaling D_c (the same vector as `Dr` in symmetric mode), or `NULL`

  Level: intermediate

  Notes:
  The vectors belong to the preconditioner and are locked for reading (`VecLockReadPush()`) until
  `PCRuizRestoreScaling()`: do not destroy or change them. They hold the result of the last `PCSetUp()`; a new setup or
  `PCReset()` while they are held is an error. They live where the preconditioner ran (device vectors for a GPU
  operator).

  The preconditioner applies z = D_c^-1 D_r^-1 r (z = D^-2 r in symmetric mode).

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizRestoreScaling()`, `PCJACOBI`, `PCRuizGetConvergence()`
@*/
PetscErrorCode PCRuizGetScaling(PC pc, Vec *Dr, Vec *Dc)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizGetScaling_C", (PC, Vec *, Vec *), (pc, Dr, Dc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizRestoreScaling_Ruiz(PC pc, Vec *Dr, Vec *Dc)
{
  PetscFunctionBegin;
  (void)pc;
  if (Dr && *Dr) {
    PetscCall(VecLockReadPop(*Dr));
    *Dr = NULL;
  }
  if (Dc && *Dc) {
    PetscCall(VecLockReadPop(*Dc));
    *Dc = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizRestoreScaling - Returns the scalings obtained with `PCRuizGetScaling()`

  Not Collective

  Input Parameters:
+ pc - the preconditioner context
. Dr - the row scaling, or `NULL` (when it was not asked for)
- Dc - the column scaling, or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetScaling()`
@*/
PetscErrorCode PCRuizRestoreScaling(PC pc, Vec *Dr, Vec *Dc)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizRestoreScaling_C", (PC, Vec *, Vec *), (pc, Dr, Dc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetConvergence_Ruiz(PC pc, PetscInt *sweeps, PetscReal *deviation, PetscBool *converged, PetscLogDouble *time)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the scaling is computed by the setup: call PCSetUp() (or KSPSetUp()) first");
  if (sweeps) *sweeps = jac->sweeps;
  if (deviation) *deviation = jac->deviation;
  if (converged) *converged = jac->converged;
  if (time) *time = jac->setup_time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetConvergence - Gets how the last setup of a `PCRUIZ` preconditioner went

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ sweeps    - passes over the matrix (the scaling was updated sweeps - 1 times), or `NULL`
. deviation - max |1 - norm| over the rows (and columns) of the scaled operator with the returned scaling, or `NULL`
. converged - whether the deviation is at most the tolerance `-pc_ruiz_tol`, or `NULL`
- time      - wall time of the setup in seconds (device work included), or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetScaling()`, `PCRuizSetTolerances()`
@*/
PetscErrorCode PCRuizGetConvergence(PC pc, PetscInt *sweeps, PetscReal *deviation, PetscBool *converged, PetscLogDouble *time)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizGetConvergence_C", (PC, PetscInt *, PetscReal *, PetscBool *, PetscLogDouble *), (pc, sweeps, deviation, converged, time));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the methods of the public Set/Get functions (PetscTryMethod, PetscUseMethod) */
static const PCMSMethod PCRuizMethods[] = {
  {"PCRuizSetNorm_C", (PetscErrorCodeFn *)PCRuizSetNorm_Ruiz},
  {"PCRuizGetNorm_C", (PetscErrorCodeFn *)PCRuizGetNorm_Ruiz},
  {"PCRuizSetTolerances_C", (PetscErrorCodeFn *)PCRuizSetTolerances_Ruiz},
  {"PCRuizGetTolerances_C", (PetscErrorCodeFn *)PCRuizGetTolerances_Ruiz},
  {"PCRuizSetCheckEvery_C", (PetscErrorCodeFn *)PCRuizSetCheckEvery_Ruiz},
  {"PCRuizGetCheckEvery_C", (PetscErrorCodeFn *)PCRuizGetCheckEvery_Ruiz},
  {"PCRuizSetSymmetric_C", (PetscErrorCodeFn *)PCRuizSetSymmetric_Ruiz},
  {"PCRuizGetSymmetric_C", (PetscErrorCodeFn *)PCRuizGetSymmetric_Ruiz},
  {"PCRuizGetScaling_C", (PetscErrorCodeFn *)PCRuizGetScaling_Ruiz},
  {"PCRuizRestoreScaling_C", (PetscErrorCodeFn *)PCRuizRestoreScaling_Ruiz},
  {"PCRuizGetConvergence_C", (PetscErrorCodeFn *)PCRuizGetConvergence_Ruiz},
};

static PetscErrorCode PCDestroy_Ruiz(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_Ruiz(pc));
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCRuizMethods), PCRuizMethods, PETSC_FALSE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCRUIZ - "ruiz" - Ruiz equilibration used as a diagonal preconditioner (Wikberg (2024), section 5.4,
   Algorithm 4), computed on the GPU when the operator's vectors live there

   Options Database Keys:
+  -pc_ruiz_norm <2>                      - the p-norm of the rows (and columns): 1, 2 or infinity
.  -pc_ruiz_tol <1e-8>                    - stop when max |1 - norm| over the rows (and columns) of the scaled operator is at most this
.  -pc_ruiz_max_it <100>                  - at most this many updates of the scaling
.  -pc_ruiz_check_every <5>               - compute the deviation (one device-to-host read of one number) every this many sweeps
-  -pc_ruiz_symmetric <true,false,auto>   - symmetric scaling D^-1 A D^-1, row and column scalings D_r^-1 A D_c^-1, or
                                            symmetric when the matrix is flagged symmetric or SPD (`MatSetOption()`) (default auto)

   Level: intermediate

   Notes:
   The setup iterates the scalings without changing the matrix. In symmetric mode it finds D such that the rows
   (and so the columns) of D^-1 A D^-1 have unit p-norm, by D <- sqrt(R) D with R the row norms of the current
   scaled operator; in nonsymmetric mode it updates the row and column scalings the same way from the row and
   column norms of D_r^-1 A D_c^-1. The preconditioner is z = D^-2 r (z = D_c^-1 D_r^-1 r); with
   `KSPSetPCSide`(ksp, `PC_SYMMETRIC`) the Krylov method sees D_r^-1 A D_c^-1 (`PCApplySymmetricLeft()` is D_r^-1,
   `PCApplySymmetricRight()` is D_c^-1). Any positive diagonal preconditioner is SPD, so `KSPCG` may be used in
   both modes.

   Every sweep reads the operator once through its modified Sliced ELLPACK image: the `MATMODSELL` image itself, or
   an image the preconditioner builds for other AIJ matrices. On the GPU each sweep is one kernel per image block,
   with the column scalings of the slice's own rows in shared memory; the deviation is reduced on the device and
   read back only on checking sweeps. On several processes the column scalings of the off-process columns are
   exchanged every sweep. The host computes the same function.

   A zero row or column, an Inf or NaN entry, or (in symmetric mode) a missing, zero or negative diagonal entry is
   an error naming the first offending row (or column). A new setup after a change of the operator's values reuses
   the images and communication structures and recomputes the scaling from D = I.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCJACOBI`, `PCRuizGetScaling()`, `PCRuizGetConvergence()`, `PCRuizSetNorm()`, `PCRuizSetTolerances()`, `PCRuizSetCheckEvery()`, `PCRuizSetSymmetric()`, `MATMODSELL`
M*/
static PetscErrorCode PCCreate_Ruiz(PC pc)
{
  PC_Ruiz *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data           = (void *)jac;
  jac->norm          = NORM_2;
  jac->tol           = 1e-8;
  jac->max_it        = 100;
  jac->check_every   = 5;
  jac->symmetric_opt = PETSC_BOOL3_UNKNOWN;

  pc->ops->apply               = PCApply_Ruiz;
  pc->ops->applytranspose      = PCApply_Ruiz;
  pc->ops->setup               = PCSetUp_Ruiz;
  pc->ops->reset               = PCReset_Ruiz;
  pc->ops->destroy             = PCDestroy_Ruiz;
  pc->ops->setfromoptions      = PCSetFromOptions_Ruiz;
  pc->ops->view                = PCView_Ruiz;
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_Ruiz;
  pc->ops->applysymmetricright = PCApplySymmetricRight_Ruiz;
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCRuizMethods), PCRuizMethods, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registration and log events (called from PetscModSELLRegisterPCs_Private()) */
PETSC_INTERN PetscErrorCode PCRegister_Ruiz_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCRUIZ, PCCreate_Ruiz));
  PetscCall(PetscLogEventRegister("PCRuizSweep", PC_CLASSID, &PC_RuizSweep));
  PetscCall(PetscLogEventRegister("PCRuizCheck", PC_CLASSID, &PC_RuizCheck));
  PetscCall(PetscLogEventRegister("PCRuizApply", PC_CLASSID, &PC_RuizApply));
  PetscFunctionReturn(PETSC_SUCCESS);
}
