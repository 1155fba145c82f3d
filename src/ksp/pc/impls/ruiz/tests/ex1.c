static char help[] = "PCRUIZ: the scaling against a dense Ruiz iteration computed here, unit norms of the scaled\n\
operator, the application (z = Dc^-1 Dr^-1 r, symmetric left/right parts), a value-only change of the\n\
operator (recomputed scaling, images reused) and the error cases.\n\
Options: -kind spd|nonsym (2D stencil on -nx x -ny, rows and columns scaled by factors 10^[-sexp,sexp]),\n\
-sexp <3>, -empty_rank <r> (process r owns no row), -flag_symmetric <true> (set MAT_SYMMETRIC on the spd matrix), -error none|zero_row|zero_col|nan|\n\
negdiag|nodiag|dense|notsetup|options (a bad -pc_ruiz_* value)|held (a new setup while the scaling from PCRuizGetScaling() is held), -bad <row> (the offending row or column, default N/2), -expect_device <bool> (checked when given),\n\
-pc_ruiz_* (read by the PC; the reference reads the same options with the same defaults).\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <mstestpc.h> /* tests/include: MSTestHashUniform(), MSTestScaleFactor(), MSTestLaplacianRow(), MSTestVecSetHash() */

typedef enum {
  KIND_SPD,
  KIND_NONSYM
} Kind;
static const char *const Kinds[] = {"spd", "nonsym", "Kind", "KIND_", NULL};

typedef enum {
  ERR_NONE,
  ERR_ZERO_ROW,
  ERR_ZERO_COL,
  ERR_NAN,
  ERR_NEGDIAG,
  ERR_NODIAG,
  ERR_DENSE,
  ERR_NOTSETUP,
  ERR_OPTIONS,
  ERR_HELD
} ErrKind;
static const char *const ErrKinds[] = {"none", "zero_row", "zero_col", "nan", "negdiag", "nodiag", "dense", "notsetup", "options", "held", "ErrKind", "ERR_", NULL};

typedef struct {
  Kind      kind;
  ErrKind   error;
  PetscInt  nx, ny, N, bad;
  PetscReal sexp;
  PetscInt  variant; /* changes the values, not the pattern */
} Ctx;

/* row i of the matrix: 5-point stencil (MSTestLaplacianRow()'s pattern, no boundary rows), values K_ij scaled as
   R_i K_ij C_j; every number an integer hash (MSTestHashUniform()) of the row, column and variant */
static void GetRow(const Ctx *c, PetscInt i, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  const unsigned int v  = 1000003u * (unsigned)c->variant;
  const PetscReal    Ri = MSTestScaleFactor(c->sexp, 3 * i + v);
  MSTestStencilRow   r;
  PetscInt           n = 0;

  MSTestLaplacianRow(c->nx, c->ny, 1, NULL, i, &r); /* the diagonal, then -x, +x, -y, +y */
  for (PetscInt k = 0; k < r.n; k++) {
    const PetscInt j = r.cols[k];
    PetscReal      kij, Cj;

    if (r.dir[k] == MSTEST_DIAG) {
      if (c->error == ERR_NODIAG && i == c->bad) continue;
      kij = 4.0 + MSTestHashUniform(7 * i + v);
      if (c->error == ERR_NEGDIAG && i == c->bad) kij = -kij;
    } else {
      const PetscInt lo = PetscMin(i, j), hi = PetscMax(i, j);
      kij = -(1.0 + 0.5 * MSTestHashUniform((unsigned long long)lo * 131071ULL + (unsigned long long)hi + v)); /* symmetric part */
      if (c->kind == KIND_NONSYM) {                                                                             /* central convection, varying speed */
        const PetscReal b = 2.0 * MSTestHashUniform(11 * i + v);
        kij += (r.dir[k] == MSTEST_XP || r.dir[k] == MSTEST_YP) ? b : -b;
      }
    }
    Cj      = c->kind == KIND_SPD ? MSTestScaleFactor(c->sexp, 3 * j + v) : MSTestScaleFactor(c->sexp, 3 * j + 1 + v);
    cols[n] = j;
    vals[n] = Ri * kij * Cj;
    if ((c->error == ERR_ZERO_ROW && i == c->bad) || (c->error == ERR_ZERO_COL && j == c->bad)) vals[n] = 0.0;
    if (c->error == ERR_NAN && i == c->bad && r.dir[k] == MSTEST_XP) vals[n] = NAN;
    n++;
  }
  *nc = n;
}

static PetscErrorCode BuildMatrix(const Ctx *c, Mat A)
{
  PetscInt    rstart, rend, nc, cols[5];
  PetscScalar vals[5];

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    GetRow(c, i, &nc, cols, vals);
    PetscCall(MatSetValues(A, 1, &i, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal PNorm(int p, PetscInt n, const PetscReal *v)
{
  PetscReal s = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal a = PetscAbsReal(v[i]);
    if (p == 1) s += a;
    else if (p == 2) s += a * a;
    else s = PetscMax(s, a);
  }
  return p == 2 ? PetscSqrtReal(s) : s;
}

/* Algorithm 4 of Wikberg (2024) (and its row-and-column version) on the dense matrix, written directly:
   norms of the rows (columns) of the explicitly scaled matrix, D <- sqrt(norms) D. Sweep k measures the
   deviation of D_k on sweeps 0, check_every, 2 check_every, ... and max_it and stops when it is <= tol. */
static PetscErrorCode DenseRuiz(PetscInt N, const PetscReal *A, int p, PetscBool sym, PetscReal tol, PetscInt maxit, PetscInt ce, PetscReal *Dr, PetscReal *Dc, PetscInt *sweeps, PetscReal *dev)
{
  PetscReal *sr, *sc, *rn, *cn, *v;

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(N, &sr, N, &sc, N, &rn, N, &cn, N, &v));
  for (PetscInt i = 0; i < N; i++) sr[i] = sc[i] = 1.0;
  for (PetscInt k = 0;; k++) {
    PetscReal d = 0.0;
    for (PetscInt i = 0; i < N; i++) {
      for (PetscInt j = 0; j < N; j++) v[j] = A[i * N + j] * sr[i] * sc[j];
      rn[i] = PNorm(p, N, v);
      d     = PetscMax(d, PetscAbsReal(1.0 - rn[i]));
    }
    if (!sym) {
      for (PetscInt j = 0; j < N; j++) {
        for (PetscInt i = 0; i < N; i++) v[i] = A[i * N + j] * sr[i] * sc[j];
        cn[j] = PNorm(p, N, v);
        d     = PetscMax(d, PetscAbsReal(1.0 - cn[j]));
      }
    }
    if ((k % ce == 0 || k >= maxit) && (d <= tol || k >= maxit)) {
      *sweeps = k + 1;
      *dev    = d;
      break;
    }
    for (PetscInt i = 0; i < N; i++) sr[i] /= PetscSqrtReal(rn[i]);
    if (sym) {
      for (PetscInt i = 0; i < N; i++) sc[i] = sr[i];
    } else {
      for (PetscInt j = 0; j < N; j++) sc[j] /= PetscSqrtReal(cn[j]);
    }
  }
  for (PetscInt i = 0; i < N; i++) {
    Dr[i] = 1.0 / sr[i];
    Dc[i] = 1.0 / sc[i];
  }
  PetscCall(PetscFree5(sr, sc, rn, cn, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every process gets the whole vector */
static PetscErrorCode GatherAll(Vec v, PetscReal *all)
{
  VecScatter         sc;
  Vec                seq;
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecScatterCreateToAll(v, &sc, &seq));
  PetscCall(VecScatterBegin(sc, v, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, v, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetSize(seq, &n));
  PetscCall(VecGetArrayRead(seq, &a));
  for (PetscInt i = 0; i < n; i++) all[i] = PetscRealPart(a[i]);
  PetscCall(VecRestoreArrayRead(seq, &a));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&seq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal MaxRelDiff(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal d = 0.0;
  for (PetscInt i = 0; i < n; i++) d = PetscMax(d, PetscAbsReal(a[i] - b[i]) / PetscAbsReal(b[i]));
  return d;
}

/* Compare the PC's scaling with the dense iteration; check the norms of the scaled operator */
static PetscErrorCode CheckScaling(const Ctx *c, Mat A, PC pc, int p, PetscBool sym, PetscReal tol, PetscInt maxit, PetscInt ce, const char *when)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)A);
  PetscInt   N = c->N, sweeps, nc, cols[5], rstart, rend;
  PetscReal *dense, *Drr, *Dcr, *Dr, *Dc, dev, rdiff, cdiff, rowdev = 0.0, coldev = 0.0, *cnorms;
  PetscScalar vals[5];
  Vec        vDr, vDc, l, r;
  Mat        B;

  PetscFunctionBegin;
  PetscCall(PetscCalloc6(N * N, &dense, N, &Drr, N, &Dcr, N, &Dr, N, &Dc, N, &cnorms));
  for (PetscInt i = 0; i < N; i++) {
    GetRow(c, i, &nc, cols, vals);
    for (PetscInt k = 0; k < nc; k++) dense[i * N + cols[k]] = PetscRealPart(vals[k]);
  }
  PetscCall(DenseRuiz(N, dense, p, sym, tol, maxit, ce, Drr, Dcr, &sweeps, &dev));
  PetscCall(PCRuizGetScaling(pc, &vDr, &vDc));
  PetscCall(GatherAll(vDr, Dr));
  PetscCall(GatherAll(vDc, Dc));
  rdiff = MaxRelDiff(N, Dr, Drr);
  cdiff = MaxRelDiff(N, Dc, Dcr);
  PetscCall(PetscPrintf(comm, "%s: dense Ruiz reference: %" PetscInt_FMT " sweeps, deviation %s tol\n", when, sweeps, dev <= tol ? "<=" : ">"));
  {
    PetscInt  pcsweeps;
    PetscReal pcdev;
    PetscBool pcconv;

    PetscCall(PCRuizGetConvergence(pc, &pcsweeps, &pcdev, &pcconv, NULL));
    PetscCall(PetscPrintf(comm, "%s: PCRuizGetConvergence: same sweeps: %s, same deviation (1e-6 relative): %s, converged flag right: %s\n", when, pcsweeps == sweeps ? "yes" : "NO", PetscAbsReal(pcdev - dev) <= 1e-6 * dev + 1e-15 ? "yes" : "NO", pcconv == (PetscBool)(dev <= tol) ? "yes" : "NO"));
    if (pcsweeps != sweeps || PetscAbsReal(pcdev - dev) > 1e-6 * dev + 1e-15) PetscCall(PetscPrintf(comm, "  PC: %" PetscInt_FMT " sweeps, deviation %g; reference %g\n", pcsweeps, (double)pcdev, (double)dev));
  }
  PetscCall(PetscPrintf(comm, "%s: Dr agrees with the reference to 1e-9 relative: %s\n", when, rdiff <= 1e-9 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "%s: Dc agrees with the reference to 1e-9 relative: %s\n", when, cdiff <= 1e-9 ? "yes" : "NO"));
  if (rdiff > 1e-9 || cdiff > 1e-9) PetscCall(PetscPrintf(comm, "  max relative differences %g %g\n", (double)rdiff, (double)cdiff));

  /* B = Dr^-1 A Dc^-1 explicitly; its row and column p-norms */
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(VecDuplicate(vDr, &l));
  PetscCall(VecDuplicate(vDc, &r));
  PetscCall(VecCopy(vDr, l));
  PetscCall(VecReciprocal(l));
  PetscCall(VecCopy(vDc, r));
  PetscCall(VecReciprocal(r));
  PetscCall(MatDiagonalScale(B, l, r));
  PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscScalar *bv;
    PetscInt           bn;
    PetscReal          rv[5];

    PetscCall(MatGetRow(B, i, &bn, NULL, &bv));
    for (PetscInt k = 0; k < bn; k++) rv[k] = PetscRealPart(bv[k]);
    rowdev = PetscMax(rowdev, PetscAbsReal(1.0 - PNorm(p, bn, rv)));
    PetscCall(MatRestoreRow(B, i, &bn, NULL, &bv));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &rowdev, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(MatGetColumnNorms(B, p == 1 ? NORM_1 : (p == 2 ? NORM_2 : NORM_INFINITY), cnorms));
  for (PetscInt j = 0; j < N; j++) coldev = PetscMax(coldev, PetscAbsReal(1.0 - cnorms[j]));
  /* the norms of the explicitly scaled operator deviate from 1 by the reference's final deviation (<= tol when it converged) */
  {
    const PetscReal bound = dev * (1.0 + 1e-6) + 1e-13, maxdev = PetscMax(rowdev, coldev);
    PetscCall(PetscPrintf(comm, "%s: rows and columns of Dr^-1 A Dc^-1 have unit %s-norm up to the final deviation: %s\n", when, p == 0 ? "infinity" : (p == 1 ? "1" : "2"), maxdev <= bound ? "yes" : "NO"));
    if (maxdev > bound) PetscCall(PetscPrintf(comm, "  deviations rows %g columns %g, reference %g\n", (double)rowdev, (double)coldev, (double)dev));
  }

  /* the application: z = Dc^-1 Dr^-1 x; symmetric parts Dr^-1 x, Dc^-1 x */
  {
    Vec       x, z, e;
    PetscReal nrm[3], nx;

    PetscCall(VecDuplicate(vDr, &x));
    PetscCall(VecDuplicate(vDr, &z));
    PetscCall(VecDuplicate(vDr, &e));
    PetscCall(MSTestVecSetHash(x, 1, 12345, -1.0, 1.0));
    PetscCall(VecNorm(x, NORM_INFINITY, &nx));
    PetscCall(PCApply(pc, x, z));
    PetscCall(VecPointwiseMult(e, x, l));
    PetscCall(VecPointwiseMult(e, e, r));
    PetscCall(VecAXPY(e, -1.0, z));
    PetscCall(VecNorm(e, NORM_INFINITY, &nrm[0]));
    PetscCall(VecNorm(z, NORM_INFINITY, &nx));
    nrm[0] /= nx;
    PetscCall(PCApplySymmetricLeft(pc, x, z));
    PetscCall(VecPointwiseMult(e, x, l));
    PetscCall(VecAXPY(e, -1.0, z));
    PetscCall(VecNorm(e, NORM_INFINITY, &nrm[1]));
    PetscCall(VecNorm(z, NORM_INFINITY, &nx));
    nrm[1] /= nx;
    PetscCall(PCApplySymmetricRight(pc, x, z));
    PetscCall(VecPointwiseMult(e, x, r));
    PetscCall(VecAXPY(e, -1.0, z));
    PetscCall(VecNorm(e, NORM_INFINITY, &nrm[2]));
    PetscCall(VecNorm(z, NORM_INFINITY, &nx));
    nrm[2] /= nx;
    PetscCall(PetscPrintf(comm, "%s: PCApply = Dc^-1 Dr^-1, PCApplySymmetricLeft = Dr^-1, PCApplySymmetricRight = Dc^-1: %s\n", when, nrm[0] < 1e-14 && nrm[1] < 1e-14 && nrm[2] < 1e-14 ? "yes" : "NO"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&e));
  }
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(PCRuizRestoreScaling(pc, &vDr, &vDc));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree6(dense, Drr, Dcr, Dr, Dc, cnorms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EventCount(const char *name, int *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  Ctx       c;
  Mat       A;
  PC        pc;
  NormType  norm = NORM_2;
  PetscReal tol  = 1e-8;
  PetscInt  maxit = 100, ce = 5, empty_rank = -1, mloc = PETSC_DECIDE;
  PetscBool flagsym = PETSC_TRUE, sym, expect_device = PETSC_FALSE, check_device = PETSC_FALSE, device;
  PetscMemType mt;
  PetscBool3 symopt = PETSC_BOOL3_UNKNOWN;
  int        p, builds0, builds1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* event counts: the value-only update must not rebuild images */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.kind  = KIND_SPD;
  c.error = ERR_NONE;
  c.nx    = 12;
  c.ny    = 10;
  c.sexp  = 3.0;
  c.bad   = -1;
  PetscOptionsBegin(comm, NULL, "PCRUIZ test options", NULL);
  PetscCall(PetscOptionsEnum("-kind", "matrix", NULL, Kinds, (PetscEnum)c.kind, (PetscEnum *)&c.kind, NULL));
  PetscCall(PetscOptionsEnum("-error", "error case", NULL, ErrKinds, (PetscEnum)c.error, (PetscEnum *)&c.error, NULL));
  PetscCall(PetscOptionsInt("-nx", "grid", NULL, c.nx, &c.nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "grid", NULL, c.ny, &c.ny, NULL));
  PetscCall(PetscOptionsReal("-sexp", "scaling factors 10^[-sexp,sexp]", NULL, c.sexp, &c.sexp, NULL));
  PetscCall(PetscOptionsInt("-bad", "offending row", NULL, c.bad, &c.bad, NULL));
  PetscCall(PetscOptionsBool("-flag_symmetric", "set MAT_SYMMETRIC on the spd matrix", NULL, flagsym, &flagsym, NULL));
  PetscCall(PetscOptionsInt("-empty_rank", "this process gets no rows", NULL, empty_rank, &empty_rank, NULL));
  PetscCall(PetscOptionsBool("-expect_device", "check that the PC runs on the device (true) or on the host (false)", NULL, expect_device, &expect_device, &check_device));
  /* the PC's options, with its defaults, for the reference */
  PetscCall(PetscOptionsEnum("-pc_ruiz_norm", "norm", NULL, NormTypes, (PetscEnum)norm, (PetscEnum *)&norm, NULL));
  PetscCall(PetscOptionsReal("-pc_ruiz_tol", "tol", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsInt("-pc_ruiz_max_it", "max_it", NULL, maxit, &maxit, NULL));
  PetscCall(PetscOptionsInt("-pc_ruiz_check_every", "check_every", NULL, ce, &ce, NULL));
  PetscCall(PetscOptionsBool3("-pc_ruiz_symmetric", "symmetric", NULL, symopt, &symopt, NULL));
  PetscOptionsEnd();
  c.N = c.nx * c.ny;
  if (c.bad < 0) c.bad = c.N / 2;
  p = norm == NORM_1 ? 1 : (norm == NORM_2 ? 2 : 0);

  PetscCall(MatCreate(comm, &A));
  if (empty_rank >= 0) {
    PetscMPIInt rank, size;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCheck(size > 1, comm, PETSC_ERR_ARG_WRONG, "-empty_rank needs several processes");
    if (rank == empty_rank) mloc = 0;
    else {
      const PetscMPIInt k = rank < empty_rank ? rank : rank - 1;
      mloc                = c.N / (size - 1) + (k < c.N % (size - 1) ? 1 : 0);
    }
  }
  PetscCall(MatSetSizes(A, mloc, mloc, c.N, c.N));
  if (c.error == ERR_DENSE) PetscCall(MatSetType(A, MATDENSE));
  else PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 4, NULL));
  PetscCall(MatSetUp(A));
  PetscCall(BuildMatrix(&c, A));
  if (c.kind == KIND_SPD && flagsym) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  sym = symopt == PETSC_BOOL3_UNKNOWN ? (PetscBool)(c.kind == KIND_SPD && flagsym) : (PetscBool)(symopt == PETSC_BOOL3_TRUE);

  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCRUIZ));
  if (c.error != ERR_OPTIONS) PetscCall(PCSetFromOptions(pc));

  if (c.error != ERR_NONE) {
    PetscErrorCode ierr;
    const char    *text, *specific;
    Vec            Dr;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    if (c.error == ERR_NOTSETUP) ierr = PCRuizGetScaling(pc, &Dr, NULL);
    else if (c.error == ERR_OPTIONS) ierr = PCSetFromOptions(pc);
    else if (c.error == ERR_HELD) { /* the vectors handed out are locked: a new setup must not overwrite them */
      PetscCall(PCSetUp(pc));
      PetscCall(PCRuizGetScaling(pc, &Dr, NULL));
      PetscCall(MatScale(A, 2.0));
      ierr = PCSetUp(pc);
      PetscCall(PCRuizRestoreScaling(pc, &Dr, NULL));
    }
    else ierr = PCSetUp(pc);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(comm, "error case %s: %s\n", ErrKinds[c.error], ierr ? "raised" : "NOT raised"));
    if (ierr) PetscCall(PetscPrintf(comm, "  [%s] %s\n", text, specific));
    PetscCall(PCDestroy(&pc));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }

  PetscCall(MatGetCurrentMemType(A, &mt)); /* the PCs compute on the device when their operator does */
  device = (PetscBool)PetscMemTypeDevice(mt);
  PetscCheck(!check_device || device == expect_device, comm, PETSC_ERR_PLIB, "The preconditioner runs on the %s, expected the %s", device ? "device" : "host", expect_device ? "device" : "host");
  PetscCall(PCSetUp(pc));
  PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(CheckScaling(&c, A, pc, p, sym, tol, maxit, ce, "initial"));

  /* a value-only change: the same pattern, other values; PCSetUp recomputes, reusing the images */
  c.variant = 1;
  PetscCall(EventCount("ModSELLBuild", &builds0));
  PetscCall(BuildMatrix(&c, A));
  if (c.kind == KIND_SPD && flagsym) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PCSetUp(pc));
  PetscCall(EventCount("ModSELLBuild", &builds1));
  PetscCall(CheckScaling(&c, A, pc, p, sym, tol, maxit, ce, "after a value-only change"));
  PetscCall(PetscPrintf(comm, "after a value-only change: no image was rebuilt: %s\n", builds1 == builds0 ? "yes" : "NO"));

  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # The scaling against the dense reference, the norms of the scaled operator, the application and a
   # value-only change; the GPU variants (-expect_device asserts the device path) share the outputs.
   testset:
     filter: grep -E "initial|after|Ruiz|mode:|sweeps:" | sed -e "s|final deviation [^ ]*|final deviation DEV|"
     args: -nx 12 -ny 10
     test:
       suffix: spd_1
       nsize: {{1 3}}
       args: -pc_ruiz_norm 1
     test:
       # converged at the first check: the scaling kept is D_0 = I (on one process never stored by a sweep)
       suffix: first_sweep
       nsize: {{1 3}}
       args: -pc_ruiz_tol 1e10 -pc_ruiz_symmetric {{true false}separate output}
     test:
       suffix: spd_2
       nsize: {{1 3}}
       args: -pc_ruiz_norm 2
     test:
       suffix: spd_inf
       nsize: {{1 3}}
       args: -pc_ruiz_norm infinity
     test:
       # the 1- and 2-norm row-and-column iterations converge slowly on PDE matrices (see docs/ruiz.md)
       suffix: nonsym_1
       nsize: {{1 3}}
       args: -kind nonsym -pc_ruiz_norm 1 -pc_ruiz_tol 1e-2 -pc_ruiz_max_it 1000
     test:
       suffix: nonsym_2
       nsize: {{1 3}}
       args: -kind nonsym -pc_ruiz_tol 1e-2 -pc_ruiz_max_it 1000
     test:
       suffix: nonsym_inf
       nsize: {{1 3}}
       args: -kind nonsym -pc_ruiz_norm infinity
     test:
       # a process without rows
       suffix: empty_rank
       nsize: 3
       args: -empty_rank 1 -mat_type {{aij modsell}} -kind {{spd nonsym}separate output} -pc_ruiz_tol 1e-2 -pc_ruiz_max_it 1000
     test:
       # the symmetric matrix, not flagged: auto chooses the row-and-column scaling
       suffix: spd_unflagged
       args: -flag_symmetric false
     test:
       # MATMODSELL's own image: RCM order, plain SELL kernel (diagonal in the slots), slices of 32 rows
       suffix: spd_modsell
       nsize: {{1 3}}
       args: -mat_type modsell -mat_modsell_slice_height 32 -mat_modsell_ordering {{natural rcm}} -mat_modsell_kernel {{modsell sell}}
       output_file: output/ex1_spd_2.out
     test:
       suffix: nonsym_modsell
       nsize: {{1 3}}
       args: -kind nonsym -pc_ruiz_tol 1e-2 -pc_ruiz_max_it 1000 -mat_type modsell -mat_modsell_slice_height 32 -mat_modsell_ordering {{natural rcm}} -mat_modsell_kernel {{modsell sell}}
       output_file: output/ex1_nonsym_2.out
     test:
       suffix: nonsym_inf_modsell
       nsize: {{1 3}}
       args: -kind nonsym -pc_ruiz_norm infinity -mat_type modsell -mat_modsell_slice_height 32 -mat_modsell_ordering rcm
       output_file: output/ex1_nonsym_inf.out
     test:
       # deviation checked every sweep, tighter tolerance
       suffix: tight
       nsize: {{1 3}}
       args: -pc_ruiz_check_every 1 -pc_ruiz_tol 1e-13
     test:
       # max_it reached: the deviation reported is that of the returned scaling
       suffix: maxit
       args: -kind nonsym -pc_ruiz_max_it 3 -pc_ruiz_tol 0
     test:
       suffix: cuda_first_sweep_sym
       requires: cuda
       args: -expect_device -mat_type modsell -pc_ruiz_tol 1e10 -pc_ruiz_symmetric true
       output_file: output/ex1_first_sweep_pc_ruiz_symmetric-true.out
     test:
       suffix: cuda_first_sweep_nonsym
       requires: cuda
       args: -expect_device -mat_type modsell -pc_ruiz_tol 1e10 -pc_ruiz_symmetric false
       output_file: output/ex1_first_sweep_pc_ruiz_symmetric-false.out
     test:
       suffix: cuda_spd_1
       requires: cuda
       nsize: {{1 3}}
       args: -expect_device -mat_type modsell -mat_modsell_slice_height 32 -mat_modsell_ordering {{natural rcm}} -pc_ruiz_norm 1
       output_file: output/ex1_spd_1.out
     test:
       suffix: cuda_spd_2
       requires: cuda
       nsize: {{1 3}}
       args: -expect_device -mat_type {{modsell aijcusparse}} -mat_modsell_slice_height 32
       output_file: output/ex1_spd_2.out
     test:
       suffix: cuda_spd_inf
       requires: cuda
       nsize: {{1 3}}
       args: -expect_device -mat_type modsell -mat_modsell_kernel {{modsell sell}} -pc_ruiz_norm infinity
       output_file: output/ex1_spd_inf.out
     test:
       suffix: cuda_nonsym_1
       requires: cuda
       nsize: {{1 3}}
       args: -expect_device -kind nonsym -mat_type modsell -mat_modsell_slice_height 32 -pc_ruiz_norm 1 -pc_ruiz_tol 1e-2 -pc_ruiz_max_it 1000
       output_file: output/ex1_nonsym_1.out
     test:
       suffix: cuda_nonsym_2
       requires: cuda
       nsize: {{1 3}}
       args: -expect_device -kind nonsym -pc_ruiz_tol 1e-2 -pc_ruiz_max_it 1000 -mat_type {{modsell aijcusparse}} -mat_modsell_slice_height 32 -mat_modsell_ordering rcm
       output_file: output/ex1_nonsym_2.out
     test:
       suffix: cuda_nonsym_inf
       requires: cuda
       nsize: {{1 3}}
       args: -expect_device -kind nonsym -mat_type modsell -pc_ruiz_norm infinity
       output_file: output/ex1_nonsym_inf.out

   # error cases: the message names the first offending row (global numbering), on 1 and 3 processes
   testset:
     args: -nx 6 -ny 5
     test:
       suffix: err_zero_row
       nsize: {{1 3}}
       args: -error zero_row -bad 17
     test:
       suffix: err_zero_col
       nsize: {{1 3}}
       args: -error zero_col -bad 22 -kind nonsym
     test:
       suffix: err_nan
       nsize: {{1 3}}
       args: -error nan -bad 13 -pc_ruiz_norm {{1 2 infinity}separate output}
     test:
       suffix: err_negdiag
       nsize: {{1 3}}
       args: -error negdiag -bad 17
     test:
       suffix: err_nodiag
       nsize: {{1 3}}
       args: -error nodiag -bad 3 -pc_ruiz_symmetric true -kind nonsym
     test:
       suffix: err_dense
       args: -error dense
     test:
       suffix: err_notsetup
       args: -error notsetup
     test:
       suffix: err_held
       nsize: {{1 3}}
       args: -error held
     # an error inside PCSetFromOptions() leaves PETSc's options title allocated (PetscOptionsBegin() of
     # pcset.c, 28 bytes; PETSc's own bounded options do the same): -malloc_dump 0, and not under valgrind,
     # which reports that block as lost
     test:
       suffix: err_options
       requires: !defined(PETSCTEST_VALGRIND)
       args: -error options -pc_ruiz_norm {{frobenius 1_and_2}separate output} -malloc_dump 0
     test:
       suffix: err_check_every
       requires: !defined(PETSCTEST_VALGRIND)
       args: -error options -pc_ruiz_check_every 0 -malloc_dump 0
     test:
       suffix: err_tol
       requires: !defined(PETSCTEST_VALGRIND)
       args: -error options -pc_ruiz_tol -1 -malloc_dump 0
     test:
       suffix: cuda_err_zero_row
       requires: cuda
       nsize: {{1 3}}
       args: -mat_type modsell -error zero_row -bad 17
       output_file: output/ex1_err_zero_row.out
     test:
       suffix: cuda_err_negdiag
       requires: cuda
       nsize: {{1 3}}
       args: -mat_type modsell -error negdiag -bad 17
       output_file: output/ex1_err_negdiag.out
     test:
       suffix: cuda_err_nan
       requires: cuda
       nsize: {{1 3}}
       args: -mat_type aijcusparse -error nan -bad 13
       output_file: output/ex1_err_nan_pc_ruiz_norm-2.out

TEST*/
