static char help[] = "Every device-resident Krylov method of the plugin against PETSc's method it reproduces (KSPCGDEVICE against\n\
KSPCG, KSPBCGSDEVICE against KSPBCGS, KSPGMRESDEVICE against KSPGMRES), like SLEPc's src/eps/tests/test1.c for the EPS types: a table of (device method, PETSc's method, the problems\n\
it applies to). Both KSPs share one PC object (the same preconditioner applications) and the options database\n\
(-mat_type, -pc_*, -ksp_norm_type, ...). Only what holds on any correct build is printed: the same reason, the\n\
iteration counts within 1%+1 of each other (BiCGSTAB's, sensitive to the order of sums, within 15%+2), the true relative residual below a bound; numbers only when a check fails.\n\
  -test compare (default): for every problem of a method and every PC of -pcs: a solve, then a solve after new\n\
        values of the matrix (D A D, the same pattern: the fused PC's diagonal must be taken again);\n\
  -test reasons: every convergence and divergence reason of KSPConvergedDefault() and of the method's breakdowns,\n\
        the norm types and the initial-norm variants; the residual histories and monitors against PETSc's;\n\
  -test errors: bad input (a rectangular operator, right preconditioning, singular value estimates, a breakdown\n\
        with -ksp_error_if_not_converged): the error and its message;\n\
  -test view: one solve with -ksp_view (filtered in the harness: what ran where);\n\
  -test procs: the method on the communicator's processes against the same on one process (iterations within 1%+1).\n\
Options: -methods <list> (default all), -problems <list> (default the method's), -pcs <list> (default the method's),\n\
  -guess zero|nonzero, -ksp_pc_side left|right (both KSPs),\n\
  -host_vectors (b and x from VecCreate() in host memory), -rtol <1e-8>, -rtol_true <1e-6>, -resolve <true>,\n\
  -show_counts (the numbers behind each line: for a person, never in an expected output).\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <math.h>
#include <mstestpc.h> /* tests/include: MSTestCreateLaplacian(), MSTestVecSetHash(), MSTestRelativeResidual() */

/* ------------------------------------------------------------------------------------------------------------ */
/* the table: one row per device method (the BiCGSTAB and GMRES methods add theirs)                               */
typedef struct {
  const char *type;     /* the device method */
  const char *ref;      /* PETSc's method it reproduces */
  const char *problems; /* the problems it applies to */
  const char *pcs;      /* the preconditioners of -test compare without -pcs */
} Method;

static const Method Methods[] = {
  {KSPCGDEVICE, KSPCG, "lap2d,lap3d,block3,dirichlet", "none,jacobi,ruiz,bjsmooth,brbilu,neumann,gamg,bjacobi"},
  {KSPBCGSDEVICE, KSPBCGS, "nonsym,convdiff3d,blockns,lap3d", "none,jacobi,ruiz,bjsmooth,brbilu,neumann,bisai,gamg,bjacobi"},
  {KSPGMRESDEVICE, KSPGMRES, "nonsym,convdiff3d,blockns,lap2d", "none,jacobi,ruiz,bjsmooth,brbilu,neumann,bisai,gamg,bjacobi"},
};

/* ------------------------------------------------------------------------------------------------------------ */
/* problems                                                                                                       */
typedef enum {
  PROB_LAP2D,  /* 5-point Laplacian, 37 x 23 (SPD) */
  PROB_LAP3D,  /* 7-point Laplacian, 13 x 11 x 9 (SPD) */
  PROB_BLOCK3, /* three coupled fields on a 15 x 11 grid: L (x) B, B SPD 3 x 3, block size 3 (SPD) */
  PROB_NONSYM, /* 5-point convection-diffusion, 31 x 29 (nonsymmetric, diagonally dominant) */
  PROB_NEGDEF, /* minus the 5-point Laplacian, 21 x 19 (negative definite) */
  PROB_INDEF,  /* the 5-point Laplacian shifted by -1.2, 21 x 19 (symmetric indefinite) */
  PROB_ZERODIAG, /* tridiag(1, 0, 1), 40 rows (symmetric, zero diagonal) */
  PROB_SCALED,   /* the 5-point Laplacian 21 x 19 scaled as D A D, D spread over 10^[-2, 2] (SPD) */
  PROB_DIRICHLET, /* the 7-point Laplacian 13 x 11 x 9 with its boundary rows replaced by identity rows, as PETSc's ex45: the
                    interior rows keep their couplings to the boundary points (nonsymmetric, CG converges on it) */
  PROB_CONVDIFF3D, /* 7-point convection-diffusion, 12 x 11 x 10 (nonsymmetric) */
  PROB_BLOCKNS,    /* three coupled fields on a 15 x 11 grid: L (x) B with L the convection-diffusion operator and B a
                      nonsymmetric 3 x 3 block, block size 3 */
  PROB_DIAG2,      /* 2 I, 60 rows: BiCGSTAB's s = 0 after the first half-step (the exact solution x + alpha p) */
  PROB_DIAG12,     /* diag(1, 2, 1, 2, ...), 60 rows: a Krylov space of dimension 2 (GMRES's happy breakdown) */
  PROB_RHOZERO,    /* 4 copies of a 3 x 3 block whose BiCGSTAB has r1.r0 = 0 exactly for b = e3 (a zero rho) */
  PROB_SINGULAR    /* 4 copies of a singular 3 x 3 block with t = A s = 0, s != 0 for b = e1 (a singular preconditioned
                      operator for BiCGSTAB; a zero rotation and a zero Hessenberg diagonal for GMRES) */
} ProblemKind;
static const char *const ProblemNames[] = {"lap2d", "lap3d", "block3", "nonsym", "negdef", "indef", "zerodiag", "scaled", "dirichlet", "convdiff3d", "blockns", "diag2", "diag12", "rhozero", "singular"};

/* the 3 x 3 blocks and right-hand sides of PROB_RHOZERO and PROB_SINGULAR (found by an exact search: the breakdown holds
   in rational and in floating-point arithmetic) */
static const PetscScalar RhoZeroBlock[3][3] = {{1, -1, -1}, {3, 3, -1}, {0, 0, -1}}, RhoZeroRhs[3] = {0, 0, 1};
static const PetscScalar SingularBlock[3][3] = {{-1, 0, 1}, {-1, 0, -1}, {0, 0, 0}}, SingularRhs[3] = {1, 0, 0};

/* MSTestStencilRowFn of the convection-diffusion, negative and shifted problems */
static PetscErrorCode RowNonsym(MSTestStencilRow *r, void *ctx)
{
  PetscFunctionBegin;
  (void)ctx;
  for (PetscInt k = 1; k < r->n; k++) r->vals[k] = r->dir[k] == MSTEST_XM ? -1.3 : r->dir[k] == MSTEST_XP ? -0.7 : r->dir[k] == MSTEST_YM ? -1.1 : -0.9;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RowNegate(MSTestStencilRow *r, void *ctx)
{
  PetscFunctionBegin;
  (void)ctx;
  for (PetscInt k = 0; k < r->n; k++) r->vals[k] = -r->vals[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RowDirichlet(MSTestStencilRow *r, void *ctx)
{
  PetscFunctionBegin;
  (void)ctx;
  if (r->x == 0 || r->y == 0 || r->z == 0 || r->x == r->nx - 1 || r->y == r->ny - 1 || r->z == r->nz - 1)
    while (r->n > 1) MSTestStencilRowRemove(r, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RowShift(MSTestStencilRow *r, void *ctx)
{
  PetscFunctionBegin;
  r->vals[0] += *(PetscReal *)ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateBlock3(MPI_Comm comm, PetscBool nonsym, Mat *A)
{
  const PetscInt    nx = 15, ny = 11, N = 3 * nx * ny;
  const PetscScalar Bs[3][3] = {{4.0, 1.0, 0.5}, {1.0, 3.0, 1.0}, {0.5, 1.0, 5.0}}, Bn[3][3] = {{4.0, 1.5, 0.5}, {0.5, 3.0, 1.0}, {0.2, 1.2, 5.0}};
  const PetscScalar(*B)[3] = nonsym ? Bn : Bs;
  PetscInt          rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 15, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 15, NULL, 12, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt   point = row / 3, f = row % 3;
    MSTestStencilRow r;
    PetscInt         cols[15], n = 0;
    PetscScalar      vals[15];

    MSTestLaplacianRow(nx, ny, 1, NULL, point, &r);
    if (nonsym) PetscCall(RowNonsym(&r, NULL));
    for (PetscInt k = 0; k < r.n; k++)
      for (PetscInt g = 0; g < 3; g++) {
        cols[n]   = 3 * r.cols[k] + g;
        vals[n++] = r.vals[k] * B[f][g];
      }
    PetscCall(MatSetValues(*A, 1, &row, n, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* copies of a 3 x 3 block on the diagonal (PROB_RHOZERO, PROB_SINGULAR), or a diagonal matrix (PROB_DIAG2, PROB_DIAG12) */
/* an N x N MATAIJ (or the type of -mat_type) with three entries a row at most, onz of them off the process */
static PetscErrorCode CreateAIJ(MPI_Comm comm, PetscInt N, PetscInt onz, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 3, NULL, onz, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateSmall(MPI_Comm comm, ProblemKind k, Mat *A)
{
  const PetscInt N = (k == PROB_DIAG2 || k == PROB_DIAG12) ? 60 : 12;
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(CreateAIJ(comm, N, 3, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    if (k == PROB_DIAG2 || k == PROB_DIAG12) PetscCall(MatSetValue(*A, i, i, k == PROB_DIAG2 ? 2.0 : (PetscScalar)(1 + i % 2), INSERT_VALUES));
    else {
      const PetscScalar(*B)[3] = k == PROB_RHOZERO ? RhoZeroBlock : SingularBlock;
      const PetscInt    b0 = 3 * (i / 3), cols[3] = {b0, b0 + 1, b0 + 2};

      PetscCall(MatSetValues(*A, 1, &i, 3, cols, B[i % 3], INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateZeroDiag(MPI_Comm comm, Mat *A)
{
  const PetscInt N = 40;
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(CreateAIJ(comm, N, 2, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i - 1, i, i + 1};
    PetscScalar v[3] = {1.0, 0.0, 1.0};
    if (i == 0) PetscCall(MatSetValues(*A, 1, &i, 2, c + 1, v + 1, INSERT_VALUES));
    else if (i == N - 1) PetscCall(MatSetValues(*A, 1, &i, 2, c, v, INSERT_VALUES));
    else PetscCall(MatSetValues(*A, 1, &i, 3, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateProblem(MPI_Comm comm, ProblemKind k, Mat *A)
{
  PetscReal shift = -1.2;

  PetscFunctionBegin;
  switch (k) {
  case PROB_LAP2D:
    PetscCall(MSTestCreateLaplacian(comm, 37, 23, 1, NULL, NULL, NULL, NULL, A));
    break;
  case PROB_LAP3D:
    PetscCall(MSTestCreateLaplacian(comm, 13, 11, 9, NULL, NULL, NULL, NULL, A));
    break;
  case PROB_BLOCK3:
    PetscCall(CreateBlock3(comm, PETSC_FALSE, A));
    break;
  case PROB_BLOCKNS:
    PetscCall(CreateBlock3(comm, PETSC_TRUE, A));
    break;
  case PROB_CONVDIFF3D:
    PetscCall(MSTestCreateLaplacian(comm, 12, 11, 10, NULL, RowNonsym, NULL, NULL, A));
    break;
  case PROB_DIAG2:
  case PROB_DIAG12:
  case PROB_RHOZERO:
  case PROB_SINGULAR:
    PetscCall(CreateSmall(comm, k, A));
    break;
  case PROB_NONSYM:
    PetscCall(MSTestCreateLaplacian(comm, 31, 29, 1, NULL, RowNonsym, NULL, NULL, A));
    break;
  case PROB_NEGDEF:
    PetscCall(MSTestCreateLaplacian(comm, 21, 19, 1, NULL, RowNegate, NULL, NULL, A));
    break;
  case PROB_INDEF:
    PetscCall(MSTestCreateLaplacian(comm, 21, 19, 1, NULL, RowShift, &shift, NULL, A));
    break;
  case PROB_ZERODIAG:
    PetscCall(CreateZeroDiag(comm, A));
    break;
  case PROB_DIRICHLET:
    PetscCall(MSTestCreateLaplacian(comm, 13, 11, 9, NULL, RowDirichlet, NULL, NULL, A));
    break;
  case PROB_SCALED: {
    MSTestScaling sc = {2.0, PETSC_TRUE};
    PetscCall(MSTestCreateLaplacian(comm, 21, 19, 1, NULL, MSTestStencilRowScale, &sc, NULL, A));
  } break;
  }
  if (k != PROB_NONSYM && k != PROB_DIRICHLET && k != PROB_CONVDIFF3D && k != PROB_BLOCKNS && k != PROB_RHOZERO && k != PROB_SINGULAR) PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  if (k == PROB_LAP2D || k == PROB_LAP3D || k == PROB_BLOCK3 || k == PROB_SCALED || k == PROB_DIAG2 || k == PROB_DIAG12) PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* one comparison                                                                                                 */
typedef struct {
  PetscBool host_vectors, nonzero_guess;
  PetscReal rtol, rtol_true;
  PetscBool show;    /* -show_counts: the numbers of both solves after every line (not for the harness's outputs) */
  PetscBool resolve; /* -test compare: the second solve after new values (-resolve, default true) */
} Settings;

/* what a solve gave */
typedef struct {
  KSPConvergedReason reason;
  PetscInt           its;
  PetscReal          rnorm, relres;
  PetscReal          hist[512];
  PetscCount         nhist;
  PetscBool          truemon;      /* the monitor records the true residual's norm (KSPBuildResidual()) */
  PetscInt           nmon;         /* monitor calls */
  PetscReal          mon[512];     /* the norms they were given */
  PetscInt           monits[512];  /* the iterations */
} Outcome;

static PetscErrorCode Monitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  Outcome *o = (Outcome *)ctx;

  PetscFunctionBegin;
  if (o->truemon) {
    Vec r;

    PetscCall(KSPBuildResidual(ksp, NULL, NULL, &r));
    PetscCall(VecNorm(r, NORM_2, &rnorm));
    PetscCall(VecDestroy(&r));
  }
  if (o->nmon < 512) {
    o->mon[o->nmon]    = rnorm;
    o->monits[o->nmon] = it;
  }
  o->nmon++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a convergence test other than KSPConvergedDefault(): ||r|| below 1e-4 of the first norm, or max_it */
static PetscErrorCode ConvergedUser(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  PetscReal *r0 = (PetscReal *)ctx;
  PetscInt   maxit;

  PetscFunctionBegin;
  PetscCall(KSPGetTolerances(ksp, NULL, NULL, NULL, &maxit));
  if (!it) *r0 = rnorm;
  *reason = KSP_CONVERGED_ITERATING;
  if (rnorm <= 1e-4 * *r0) *reason = KSP_CONVERGED_USER;
  else if (it >= maxit) *reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  const char *name;
  ProblemKind problem;
  const char *pc;       /* the PC's type (its options from the database) */
  PetscBool   pmat_signs; /* the PC built from a diagonal matrix of alternating signs (an indefinite preconditioner) */
  PetscBool   nanrhs, zerorhs;
  PetscReal   rtol, atol, dtol;
  PetscInt    maxit, minit, chknorm;
  KSPNormType norm;   /* KSP_NORM_DEFAULT: the method's */
  PetscBool   guess;  /* a nonzero initial guess */
  PetscInt    initnorm; /* 0: default; 1: KSPConvergedDefaultSetUIRNorm(); 2: KSPConvergedDefaultSetUMIRNorm() */
  PetscBool   negcurve, monitor, usertest, convmaxits, unfused;
  PetscInt    side;     /* 0: the options' (-ksp_pc_side); 1: left; 2: right */
  PetscBool   special;  /* the problem's own right-hand side (zerodiag: e1; rhozero: e3, singular: e1 of each block) */
  PetscInt    restart;  /* GMRES: KSPGMRESSetRestart() (0: default) */
  PetscReal   haptol;   /* GMRES: KSPGMRESSetHapTol() (0: default) */
  PetscReal   brktol;   /* GMRES: KSPGMRESSetBreakdownTolerance() (0: default, < 0: 0) */
  PetscInt    cgs;      /* GMRES: 1 + KSPOrthogonalizationCGSRefinementType (0: default) */
  PetscBool   truemon;  /* the monitor records the true residual (KSPBuildSolution() during the solve) */
} Case;

/* one KSP of type 'type' on (A, P) with the shared pc, the case's settings */
static PetscErrorCode CreateKSP(Mat A, Mat P, PC pc, const char *type, const Case *c, const Settings *s, Outcome *o, PetscReal *r0, KSP *ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, P));
  if (pc) PetscCall(KSPSetPC(*ksp, pc));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPSetTolerances(*ksp, c->rtol > 0 ? c->rtol : s->rtol, c->atol > 0 ? c->atol : PETSC_CURRENT, c->dtol > 0 ? c->dtol : PETSC_CURRENT, c->maxit > 0 ? c->maxit : 2000));
  PetscCall(KSPSetFromOptions(*ksp));
  if (c->minit) PetscCall(KSPSetMinimumIterations(*ksp, c->minit));
  if (c->chknorm) PetscCall(KSPSetCheckNormIteration(*ksp, c->chknorm));
  if (c->norm != KSP_NORM_DEFAULT) PetscCall(KSPSetNormType(*ksp, c->norm));
  if (c->guess || s->nonzero_guess) PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_TRUE));
  if (c->initnorm == 1) PetscCall(KSPConvergedDefaultSetUIRNorm(*ksp));
  if (c->initnorm == 2) PetscCall(KSPConvergedDefaultSetUMIRNorm(*ksp));
  if (c->convmaxits) PetscCall(KSPConvergedDefaultSetConvergedMaxits(*ksp, PETSC_TRUE));
  if (c->negcurve) PetscCall(KSPSetConvergedNegativeCurvature(*ksp, PETSC_TRUE));
  o->truemon = c->truemon;
  if (c->monitor) PetscCall(KSPMonitorSet(*ksp, Monitor, o, NULL));
  if (c->usertest) PetscCall(KSPSetConvergenceTest(*ksp, ConvergedUser, r0, NULL));
  if (c->unfused) PetscCall(KSPDeviceSetFusion(*ksp, PETSC_FALSE, PETSC_FALSE));
  if (c->side) PetscCall(KSPSetPCSide(*ksp, c->side == 1 ? PC_LEFT : PC_RIGHT));
  if (c->restart) PetscCall(KSPGMRESSetRestart(*ksp, c->restart));
  if (c->haptol > 0) PetscCall(KSPGMRESSetHapTol(*ksp, c->haptol));
  if (c->brktol) PetscCall(KSPGMRESSetBreakdownTolerance(*ksp, PetscMax(c->brktol, 0.0)));
  if (c->cgs) PetscCall(KSPOrthogonalizationSetCGSRefinementType(*ksp, (KSPOrthogonalizationCGSRefinementType)(c->cgs - 1)));
  PetscCall(KSPSetResidualHistory(*ksp, o->hist, 512, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b, x0 (the guess) of the case */
static PetscErrorCode CreateVecs(Mat A, const Case *c, const Settings *s, Vec *b, Vec *x0)
{
  PetscFunctionBegin;
  if (s->host_vectors) {
    PetscInt m;

    PetscCall(MatGetLocalSize(A, &m, NULL));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)A), b));
    PetscCall(VecSetSizes(*b, m, PETSC_DECIDE));
    PetscCall(VecSetType(*b, VECSTANDARD));
    PetscCall(VecDuplicate(*b, x0));
  } else PetscCall(MatCreateVecs(A, x0, b));
  PetscCall(MSTestVecSetHash(*b, 7, 3, -1.0, 1.0));
  if (c->zerorhs) PetscCall(VecZeroEntries(*b));
  if (c->special) {
    PetscInt rstart, rend;

    PetscCall(VecGetOwnershipRange(*b, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscScalar v = i == 0 ? 1.0 : 0.0;

      if (c->problem == PROB_RHOZERO) v = RhoZeroRhs[i % 3];
      if (c->problem == PROB_SINGULAR) v = SingularRhs[i % 3];
      PetscCall(VecSetValue(*b, i, v, INSERT_VALUES));
    }
    PetscCall(VecAssemblyBegin(*b));
    PetscCall(VecAssemblyEnd(*b));
  }
  if (c->problem == PROB_DIAG12) PetscCall(VecScale(*b, 0.01)); /* a residual estimate below 1: GMRES finds a happy breakdown when tt < min(tt / |g|, haptol) */
  if (c->nanrhs) {
    PetscInt rstart;

    PetscCall(VecGetOwnershipRange(*b, &rstart, NULL));
    if (!rstart) PetscCall(VecSetValue(*b, 0, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(*b));
    PetscCall(VecAssemblyEnd(*b));
  }
  if (c->guess || s->nonzero_guess) PetscCall(MSTestVecSetHash(*x0, 11, 5, -0.5, 0.5));
  else PetscCall(VecZeroEntries(*x0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* copies of b and x in the operator's own vector type (MatCreateVecs()): PETSc's GPU matrices (aijcusparse, and the
   aijcusparse prolongators and coarse operators PCGAMG builds) read and write a vector's device array, so that with
   -host_vectors their products would leave a host vector's values stale (an optimized PETSc does not check the type;
   a debug build stops). The reference method and the true residual run on these copies; the device methods get the
   host vectors themselves (what -host_vectors tests: the layer's staging). */
static PetscErrorCode OperatorVecs(Mat A, Vec b, Vec x, Vec *bo, Vec *xo)
{
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, xo, bo));
  PetscCall(VecCopy(b, *bo));
  PetscCall(VecCopy(x, *xo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the true relative residual, computed in the operator's vector type */
static PetscErrorCode TrueResidual(Mat A, Vec b, Vec x, PetscReal *rel)
{
  Vec bo, xo;

  PetscFunctionBegin;
  PetscCall(OperatorVecs(A, b, x, &bo, &xo));
  PetscCall(MSTestRelativeResidual(A, bo, xo, rel));
  PetscCall(VecDestroy(&bo));
  PetscCall(VecDestroy(&xo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(KSP ksp, Mat A, Vec b, Vec x0, Outcome *o)
{
  Vec x;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x0, &x));
  PetscCall(VecCopy(x0, x));
  o->nmon = 0;
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &o->reason));
  PetscCall(KSPGetIterationNumber(ksp, &o->its));
  PetscCall(KSPGetResidualNorm(ksp, &o->rnorm));
  {
    const PetscReal *h;
    PetscInt         nh;

    PetscCall(KSPGetResidualHistory(ksp, &h, &nh));
    o->nhist = nh;
  }
  PetscCall(TrueResidual(A, b, x, &o->relres));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool ItsAgree(PetscInt a, PetscInt b)
{
  return (PetscBool)(PetscAbsInt(a - b) <= 0.01 * PetscMax(a, b) + 1);
}

/* the iteration counts of a method against PETSc's: within 1%+1, BiCGSTAB's within 15%+2: its count depends on the
   order of the sums (KSPBCGS's own count changes by up to 12% between MATAIJ and MATMODSELL, whose products add a row's
   terms in another order; a GPU's reductions add in yet another), so only a bound that holds on any correct build is
   asserted */
static PetscBool BCGSMethod(const Method *m)
{
  PetscBool bcgs;

  return (PetscBool)(!PetscStrcmp(m->type, KSPBCGSDEVICE, &bcgs) && bcgs);
}

static PetscBool MethodItsAgree(const Method *m, PetscInt a, PetscInt b)
{
  if (BCGSMethod(m)) return (PetscBool)(PetscAbsInt(a - b) <= 0.15 * PetscMax(a, b) + 2);
  return ItsAgree(a, b);
}

static const char *MethodItsText(const Method *m)
{
  return BCGSMethod(m) ? "15%+2" : "1%+1";
}

/* the first n norms of two histories agree to tol times the first (or the norm itself when it grew) */
static PetscBool SeqAgree(const PetscReal *a, const PetscReal *b, PetscCount n, PetscReal tol)
{
  for (PetscCount k = 0; k < n; k++)
    if (!(PetscAbsReal(a[k] - b[k]) <= tol * PetscMax(PetscAbsReal(a[0]), PetscAbsReal(a[k])) || (PetscIsInfOrNanReal(a[k]) && PetscIsInfOrNanReal(b[k])))) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* the comparison of two outcomes: one line (and a second with the numbers if a check failed) */
static PetscErrorCode Compare(MPI_Comm comm, const Method *m, const Case *c, const Settings *s, const char *label, const Outcome *oref, const Outcome *odev, PetscBool *pass)
{
  PetscBool same, its, res, small, hist, mon = PETSC_TRUE;
  char      rtext[64];

  PetscFunctionBegin;
  same = (PetscBool)(oref->reason == odev->reason);
  its  = MethodItsAgree(m, oref->its, odev->its);
  /* the true residual: below the bound where the case solves to the default tolerance, else as PETSc's */
  small = (PetscBool)(c->rtol <= 0 && c->atol <= 0 && c->maxit <= 0 && !c->convmaxits && !c->negcurve && !c->zerorhs && !c->usertest && odev->reason > 0);
  if (small) res = (PetscBool)(odev->relres <= s->rtol_true && oref->relres <= s->rtol_true);
  else res = (PetscBool)(PetscAbsReal(odev->relres - oref->relres) <= 1e-3 * PetscMax(PetscAbsReal(oref->relres), PetscAbsReal(odev->relres)) || (PetscIsInfOrNanReal(odev->relres) && PetscIsInfOrNanReal(oref->relres)) || (odev->reason < 0 && MethodItsAgree(m, odev->its, oref->its) && oref->its != odev->its));
  /* the histories: as long (within 1%+1, equal for equal counts), the first entries the same to rounding, the last
     residual norm close for equal counts */
  hist = (PetscBool)(MethodItsAgree(m, (PetscInt)oref->nhist, (PetscInt)odev->nhist) && (oref->its != odev->its || oref->nhist == odev->nhist) && SeqAgree(oref->hist, odev->hist, PetscMin(PetscMin(oref->nhist, odev->nhist), 5), 1e-8));
  if (oref->its == odev->its && oref->reason == odev->reason && odev->reason != KSP_DIVERGED_NANORINF && oref->nhist > 0) hist = (PetscBool)(hist && PetscAbsReal(oref->rnorm - odev->rnorm) <= 1e-3 * PetscMax(PetscAbsReal(oref->hist[0]), PetscAbsReal(oref->rnorm)));
  if (c->monitor) mon = (PetscBool)(ItsAgree(oref->nmon, odev->nmon) && SeqAgree(oref->mon, odev->mon, PetscMin(PetscMin(oref->nmon, odev->nmon), 5), 1e-8) && odev->monits[0] == 0);
  if (small) PetscCall(PetscSNPrintf(rtext, sizeof(rtext), "true relative residual <= %g", (double)s->rtol_true));
  else PetscCall(PetscSNPrintf(rtext, sizeof(rtext), "true relative residual as %s's", m->ref));
  PetscCall(PetscPrintf(comm, "%s: %s against %s: the same reason (%s): %s; iterations within %s: %s; %s: %s; residual norm and history agree: %s%s\n", label, m->type, m->ref, KSPConvergedReasons[odev->reason], same ? "yes" : "NO", MethodItsText(m), its ? "yes" : "NO", rtext, res ? "yes" : "NO", hist ? "yes" : "NO", c->monitor ? (mon ? "; monitors agree: yes" : "; monitors agree: NO") : ""));
  *pass = (PetscBool)(same && its && res && hist && mon);
  if (!*pass || s->show) PetscCall(PetscPrintf(comm, "  %s: %s %" PetscInt_FMT " iterations, residual norm %g, true %g, %" PetscCount_FMT " history entries; %s: %s %" PetscInt_FMT " iterations, residual norm %g, true %g, %" PetscCount_FMT " history entries\n", m->ref, KSPConvergedReasons[oref->reason], oref->its, (double)oref->rnorm, (double)oref->relres, oref->nhist, m->type, KSPConvergedReasons[odev->reason], odev->its, (double)odev->rnorm, (double)odev->relres, odev->nhist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NewValues(Mat);

/* PCKSP: a preconditioner that changes between applications (2 iterations of CG with Jacobi): GMRES's residual estimate
   is far from the true residual at a restart */
static PetscErrorCode SetUpInnerKSP(PC pc)
{
  PetscBool isksp;
  KSP       inner;
  PC        ipc;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCKSP, &isksp));
  if (!isksp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCKSPGetKSP(pc, &inner));
  PetscCall(KSPSetType(inner, KSPCG));
  PetscCall(KSPSetTolerances(inner, 1e-30, PETSC_CURRENT, PETSC_CURRENT, 2));
  PetscCall(KSPSetNormType(inner, KSP_NORM_NONE));
  PetscCall(KSPGetPC(inner, &ipc));
  PetscCall(PCSetType(ipc, PCJACOBI));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device method and PETSc's on the case; resolve: then both KSPs again, the same objects, after new values of the
   matrix (D A D, the same pattern: the PC is set up again, the fused PC's diagonal and the operator's image must
   follow). Returns the failed checks in *nfail. */
/* P: the pattern of A with a diagonal of alternating signs */
static PetscErrorCode CreateSignedDiagonal(Mat A, Mat *P)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, P));
  PetscCall(MatGetOwnershipRange(*P, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) PetscCall(MatSetValue(*P, i, i, (i % 7 == 3) ? -4.0 : 4.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(MPI_Comm comm, const Method *m, const Case *c, const Settings *s, const char *label, PetscBool resolve, PetscInt *nfail)
{
  Mat       A, P = NULL;
  PC        pc;
  KSP       kref, kdev;
  Vec       b, x0, bref, x0ref;
  Outcome   oref, odev;
  PetscReal r0ref = 0, r0dev = 0;
  PetscBool pass;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&oref, sizeof(oref)));
  PetscCall(PetscMemzero(&odev, sizeof(odev)));
  PetscCall(CreateProblem(comm, c->problem, &A));
  P = A;
  if (c->pmat_signs) PetscCall(CreateSignedDiagonal(A, &P)); /* PCJACOBI on it is indefinite */
  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetOperators(pc, A, P));
  if (c->pc) PetscCall(PCSetType(pc, c->pc));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(SetUpInnerKSP(pc));
  PetscCall(CreateKSP(A, P, pc, m->ref, c, s, &oref, &r0ref, &kref));
  PetscCall(CreateKSP(A, P, pc, m->type, c, s, &odev, &r0dev, &kdev));
  PetscCall(CreateVecs(A, c, s, &b, &x0));
  if (s->host_vectors) PetscCall(OperatorVecs(A, b, x0, &bref, &x0ref)); /* PETSc's method on the operator's vectors */
  else {
    PetscCall(PetscObjectReference((PetscObject)b));
    PetscCall(PetscObjectReference((PetscObject)x0));
    bref  = b;
    x0ref = x0;
  }
  PetscCall(Solve(kref, A, bref, x0ref, &oref));
  PetscCall(Solve(kdev, A, b, x0, &odev));
  PetscCall(Compare(comm, m, c, s, label, &oref, &odev, &pass));
  *nfail += !pass;
  if (resolve) {
    PetscBool set, sym;
    char      label2[160];

    PetscCall(MatIsSymmetricKnown(A, &set, &sym));
    PetscCall(NewValues(A));
    if (set && sym) { /* D A D is as symmetric as A */
      PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
      PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
    }
    PetscCall(Solve(kref, A, bref, x0ref, &oref));
    PetscCall(Solve(kdev, A, b, x0, &odev));
    PetscCall(PetscSNPrintf(label2, sizeof(label2), "%s, new values", label));
    PetscCall(Compare(comm, m, c, s, label2, &oref, &odev, &pass));
    *nfail += !pass;
  }
  PetscCall(KSPDestroy(&kref));
  PetscCall(KSPDestroy(&kdev));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&bref));
  PetscCall(VecDestroy(&x0ref));
  if (P != A) PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D A D with D in [0.5, 4] (new values, the same pattern) */
static PetscErrorCode NewValues(Mat A)
{
  Vec d;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &d, NULL));
  PetscCall(MSTestVecSetHash(d, 13, 1, 0.5, 4.0));
  PetscCall(MatDiagonalScale(A, d, d));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the index of the problem called name in ProblemNames */
static PetscErrorCode FindProblem(MPI_Comm comm, const char name[], PetscInt *k)
{
  PetscFunctionBegin;
  *k = -1;
  for (PetscInt j = 0; j < (PetscInt)(sizeof(ProblemNames) / sizeof(ProblemNames[0])); j++) {
    PetscBool eq;
    PetscCall(PetscStrcmp(name, ProblemNames[j], &eq));
    if (eq) *k = j;
  }
  PetscCheck(*k >= 0, comm, PETSC_ERR_ARG_WRONG, "Unknown problem %s", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test compare: every problem of the method, every PC of the list, then the same after new values */
static PetscErrorCode TestCompare(MPI_Comm comm, const Method *m, const Settings *s, char **problems, PetscInt nprob, char **pcs, PetscInt npc, PetscInt *nfail)
{
  PetscFunctionBegin;
  for (PetscInt p = 0; p < nprob; p++) {
    PetscInt k;

    PetscCall(FindProblem(comm, problems[p], &k));
    {
      PetscBool applies;
      PetscCall(PetscStrInList(problems[p], m->problems, ',', &applies));
      if (!applies) continue;
    }
    for (PetscInt q = 0; q < npc; q++) {
      Case c;
      char label[128];

      PetscCall(PetscMemzero(&c, sizeof(c)));
      c.problem = (ProblemKind)k;
      c.pc      = pcs[q];
      c.norm    = KSP_NORM_DEFAULT;
      PetscCall(PetscSNPrintf(label, sizeof(label), "%s, PC %s", ProblemNames[k], pcs[q]));
      PetscCall(RunCase(comm, m, &c, s, label, s->resolve, nfail));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test reasons: the reasons, norms and variants (problems and PCs fixed by the case) */
static PetscErrorCode TestReasons(MPI_Comm comm, const Method *m, const Settings *s, PetscInt *nfail)
{
  /* name, problem, pc, pmat_signs, nanrhs, zerorhs, rtol, atol, dtol, maxit, minit, chknorm, norm, guess, initnorm, negcurve, monitor, usertest, convmaxits, unfused */
  const Case cases[] = {
    {"rtol", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"rtol, PCApply() between kernels", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE},
    {"atol", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 1e-30, 1e-3, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"max_it", PROB_LAP3D, PCNONE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 7, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"max_it with -ksp_converged_maxits", PROB_LAP3D, PCNONE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 7, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE},
    {"indefinite matrix", PROB_INDEF, PCNONE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"dtol", PROB_SCALED, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 1.0, 0, 0, 0, KSP_NORM_UNPRECONDITIONED, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"negative definite", PROB_NEGDEF, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"zero p.Ap (indefinite matrix)", PROB_ZERODIAG, PCNONE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"zero p.Ap, negative curvature converges", PROB_ZERODIAG, PCNONE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"indefinite preconditioner", PROB_LAP2D, PCJACOBI, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"indefinite preconditioner, PCApply() between kernels", PROB_LAP2D, PCJACOBI, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE},
    {"NaN in the right-hand side", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"NaN in the right-hand side, unpreconditioned norm", PROB_LAP2D, PCNONE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_UNPRECONDITIONED, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"zero right-hand side", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"zero right-hand side, nonzero guess", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_TRUE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"unpreconditioned norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_UNPRECONDITIONED, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"natural norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_NATURAL, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"no norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 30, 0, 0, KSP_NORM_NONE, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"nonzero guess", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_TRUE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"nonzero guess, unpreconditioned norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_UNPRECONDITIONED, PETSC_TRUE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"nonzero guess, natural norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_NATURAL, PETSC_TRUE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"nonzero guess, initial residual norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_TRUE, 1, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"nonzero guess, least initial norm", PROB_LAP3D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_TRUE, 2, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"minimum iterations", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0.5, 0, 0, 0, 9, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"norm checked from iteration 5", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 5, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"monitor (host test)", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"user convergence test (host test)", PROB_LAP2D, PCJACOBI, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE},
    {"monitor, indefinite preconditioner", PROB_LAP2D, PCJACOBI, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 0, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
    {"monitor, max_it", PROB_LAP3D, PCNONE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0, 0, 0, 7, 0, 0, KSP_NORM_DEFAULT, PETSC_FALSE, 0, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
  };

  PetscFunctionBegin;
  for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) PetscCall(RunCase(comm, m, &cases[j], s, cases[j].name, PETSC_FALSE, nfail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test reasons for BiCGSTAB and GMRES: the cases of both, then each method's breakdowns (a case sets only what differs
   from the default: NSCASE fills the norm type) */
#define NSCASE(...) {.norm = KSP_NORM_DEFAULT, __VA_ARGS__}
static PetscErrorCode TestReasonsNS(MPI_Comm comm, const Method *m, const Settings *s, PetscInt *nfail)
{
  PetscBool  bcgs, gmres;
  const Case common[] = {
    NSCASE(.name = "rtol", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI),
    NSCASE(.name = "rtol, PCApply() between kernels", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .unfused = PETSC_TRUE),
    NSCASE(.name = "rtol, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .side = 2),
    NSCASE(.name = "rtol, right preconditioning, PCApply() between kernels", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .side = 2, .unfused = PETSC_TRUE),
    NSCASE(.name = "atol", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .rtol = 1e-30, .atol = 1e-3),
    NSCASE(.name = "max_it", .problem = PROB_CONVDIFF3D, .pc = PCNONE, .maxit = 7),
    NSCASE(.name = "max_it with -ksp_converged_maxits", .problem = PROB_CONVDIFF3D, .pc = PCNONE, .maxit = 7, .convmaxits = PETSC_TRUE),
    NSCASE(.name = "NaN in the right-hand side", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .nanrhs = PETSC_TRUE),
    NSCASE(.name = "NaN in the right-hand side, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .nanrhs = PETSC_TRUE, .side = 2),
    NSCASE(.name = "zero right-hand side", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .zerorhs = PETSC_TRUE),
    NSCASE(.name = "zero right-hand side, nonzero guess", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .zerorhs = PETSC_TRUE, .guess = PETSC_TRUE),
    NSCASE(.name = "no norm", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .maxit = 30, .norm = KSP_NORM_NONE),
    NSCASE(.name = "no norm, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .maxit = 30, .norm = KSP_NORM_NONE, .side = 2),
    NSCASE(.name = "nonzero guess", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .guess = PETSC_TRUE),
    NSCASE(.name = "nonzero guess, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .guess = PETSC_TRUE, .side = 2),
    NSCASE(.name = "nonzero guess, right preconditioning, PCApply() between kernels", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .guess = PETSC_TRUE, .side = 2, .unfused = PETSC_TRUE),
    NSCASE(.name = "nonzero guess, initial residual norm", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .guess = PETSC_TRUE, .initnorm = 1),
    NSCASE(.name = "nonzero guess, least initial norm", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .guess = PETSC_TRUE, .initnorm = 2),
    NSCASE(.name = "minimum iterations", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .rtol = 0.5, .minit = 9),
    NSCASE(.name = "norm checked from iteration 5", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .chknorm = 5),
    NSCASE(.name = "monitor (host test)", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .monitor = PETSC_TRUE),
    NSCASE(.name = "monitor, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .monitor = PETSC_TRUE, .side = 2),
    NSCASE(.name = "user convergence test (host test)", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .usertest = PETSC_TRUE),
    NSCASE(.name = "monitor, max_it", .problem = PROB_CONVDIFF3D, .pc = PCNONE, .maxit = 7, .monitor = PETSC_TRUE),
  };
  const Case bcgscases[] = {
    NSCASE(.name = "dtol", .problem = PROB_SCALED, .pc = PCJACOBI, .dtol = 2.0, .side = 2),
    NSCASE(.name = "monitor of the true residual, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .side = 2, .monitor = PETSC_TRUE, .truemon = PETSC_TRUE),
    NSCASE(.name = "zero v.rp (breakdown)", .problem = PROB_ZERODIAG, .pc = PCNONE, .special = PETSC_TRUE),
    NSCASE(.name = "zero rho (breakdown)", .problem = PROB_RHOZERO, .pc = PCNONE, .special = PETSC_TRUE),
    NSCASE(.name = "zero rho, monitor", .problem = PROB_RHOZERO, .pc = PCNONE, .special = PETSC_TRUE, .monitor = PETSC_TRUE),
    NSCASE(.name = "t = 0 with s = 0 (the exact solution x + alpha p)", .problem = PROB_DIAG2, .pc = PCNONE),
    NSCASE(.name = "t = 0 with s != 0 (a singular preconditioned operator)", .problem = PROB_SINGULAR, .pc = PCNONE, .special = PETSC_TRUE),
  };
  const Case gmrescases[] = {
    NSCASE(.name = "indefinite matrix", .problem = PROB_INDEF, .pc = PCNONE, .maxit = 50),
    NSCASE(.name = "restart 5", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5),
    NSCASE(.name = "restart 5, right preconditioning", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .side = 2),
    NSCASE(.name = "restart 5, right preconditioning, PCApply() between kernels", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .side = 2, .unfused = PETSC_TRUE),
    NSCASE(.name = "restart 5, nonzero guess", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .guess = PETSC_TRUE),
    NSCASE(.name = "restart 5, monitor", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .monitor = PETSC_TRUE),
    NSCASE(.name = "restart 5, monitor, PCApply() between kernels", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .monitor = PETSC_TRUE, .unfused = PETSC_TRUE),
    NSCASE(.name = "restart 5, monitor of the true residual", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .monitor = PETSC_TRUE, .truemon = PETSC_TRUE),
    NSCASE(.name = "restart 5, right preconditioning, monitor of the true residual", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .side = 2, .monitor = PETSC_TRUE, .truemon = PETSC_TRUE),
    NSCASE(.name = "restart 5, user convergence test", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .usertest = PETSC_TRUE),
    NSCASE(.name = "restart 5, max_it 13", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .maxit = 13),
    NSCASE(.name = "restart 5, max_it 13, monitor", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 5, .maxit = 13, .monitor = PETSC_TRUE),
    NSCASE(.name = "refinement if needed", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 8, .cgs = 2),
    NSCASE(.name = "refinement always", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 8, .cgs = 3),
    NSCASE(.name = "refinement always, PCApply() between kernels", .problem = PROB_CONVDIFF3D, .pc = PCJACOBI, .restart = 8, .cgs = 3, .unfused = PETSC_TRUE),
    NSCASE(.name = "breakdown at a restart (a preconditioner that changes)", .problem = PROB_CONVDIFF3D, .pc = PCKSP, .restart = 5),
    NSCASE(.name = "happy breakdown", .problem = PROB_DIAG12, .pc = PCNONE, .haptol = 1e-10),
    NSCASE(.name = "happy breakdown, no norm", .problem = PROB_DIAG12, .pc = PCNONE, .haptol = 1e-10, .norm = KSP_NORM_NONE),
    NSCASE(.name = "zero Hessenberg diagonal (singular operator)", .problem = PROB_SINGULAR, .pc = PCNONE, .special = PETSC_TRUE),
  };

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(m->type, KSPBCGSDEVICE, &bcgs));
  PetscCall(PetscStrcmp(m->type, KSPGMRESDEVICE, &gmres));
  for (size_t j = 0; j < sizeof(common) / sizeof(common[0]); j++) PetscCall(RunCase(comm, m, &common[j], s, common[j].name, PETSC_FALSE, nfail));
  if (bcgs)
    for (size_t j = 0; j < sizeof(bcgscases) / sizeof(bcgscases[0]); j++) PetscCall(RunCase(comm, m, &bcgscases[j], s, bcgscases[j].name, PETSC_FALSE, nfail));
  if (gmres)
    for (size_t j = 0; j < sizeof(gmrescases) / sizeof(gmrescases[0]); j++) PetscCall(RunCase(comm, m, &gmrescases[j], s, gmrescases[j].name, PETSC_FALSE, nfail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a 30 x 24 operator, assembled empty */
static PetscErrorCode CreateRectangular(MPI_Comm comm, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, 30, 24));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPSetUp() and KSPSolve() with the errors returned, unless ierr (an error raised before them) is set; then the line
   of the error case: whether an error was raised, and its message */
static PetscErrorCode SolveAndReport(MPI_Comm comm, const Method *m, const char name[], KSP ksp, Vec b, Vec x, PetscErrorCode ierr)
{
  const char *text, *specific;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (!ierr) ierr = KSPSetUp(ksp);
  if (!ierr) ierr = KSPSolve(ksp, b, x);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCall(PetscPrintf(comm, "%s, %s: %s\n", m->type, name, ierr ? "error raised" : "NO error"));
  if (ierr) PetscCall(PetscPrintf(comm, "  [%s] %s\n", text, specific));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test errors for BiCGSTAB and GMRES */
static PetscErrorCode TestErrorsNS(MPI_Comm comm, const Method *m)
{
  const char *const names[] = {"a rectangular operator", "the unpreconditioned norm with left preconditioning", "singular value estimates", "symmetric preconditioning", "a breakdown with -ksp_error_if_not_converged", "NaN right-hand side with -ksp_error_if_not_converged", "modified Gram-Schmidt", "restart 0"};
  PetscBool         gmres;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(m->type, KSPGMRESDEVICE, &gmres));
  for (PetscInt e = 0; e < (gmres ? 8 : 6); e++) {
    Mat            A;
    KSP            ksp;
    Vec            b, x;
    PetscErrorCode ierr = PETSC_SUCCESS;
    Case           c;

    PetscCall(PetscMemzero(&c, sizeof(c)));
    c.problem = e == 4 ? (gmres ? PROB_CONVDIFF3D : PROB_RHOZERO) : PROB_NONSYM;
    c.special = (PetscBool)(e == 4 && !gmres);
    c.nanrhs  = (PetscBool)(e == 5);
    if (e == 0) PetscCall(CreateRectangular(comm, &A));
    else PetscCall(CreateProblem(comm, c.problem, &A));
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, m->type));
    PetscCall(KSPSetFromOptions(ksp));
    if (e == 1) {
      PetscCall(KSPSetPCSide(ksp, PC_LEFT));
      PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    }
    if (e == 2) PetscCall(KSPSetComputeSingularValues(ksp, PETSC_TRUE));
    if (e == 3) PetscCall(KSPSetPCSide(ksp, PC_SYMMETRIC));
    if (e == 4 || e == 5) {
      PC pc;

      PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_TRUE));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, e == 4 ? (gmres ? PCKSP : PCNONE) : PCJACOBI));
      PetscCall(SetUpInnerKSP(pc));
      if (gmres && e == 4) PetscCall(KSPGMRESSetRestart(ksp, 5)); /* a breakdown at a restart */
    }
    if (e == 6) PetscCall(KSPOrthogonalizationSet(ksp, KSPOrthogonalizationModifiedGramSchmidt));
    PetscCall(MatCreateVecs(A, &x, &b));
    if (e) {
      Vec x0;
      Settings st = {PETSC_FALSE, PETSC_FALSE, 1e-8, 1e-6, PETSC_FALSE, PETSC_FALSE};

      PetscCall(VecDestroy(&b));
      PetscCall(CreateVecs(A, &c, &st, &b, &x0));
      PetscCall(VecDestroy(&x0));
    }
    if (e == 7) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = KSPGMRESSetRestart(ksp, 0);
      PetscCall(PetscPopErrorHandler());
    }
    PetscCall(SolveAndReport(comm, m, names[e], ksp, b, x, ierr));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test errors: bad input raises an error with a message saying what is wrong */
static PetscErrorCode TestErrors(MPI_Comm comm, const Method *m)
{
  const char *const names[] = {"a rectangular operator", "right preconditioning", "singular value estimates", "indefinite preconditioner with -ksp_error_if_not_converged", "NaN right-hand side with -ksp_error_if_not_converged"};

  PetscFunctionBegin;
  for (PetscInt e = 0; e < 5; e++) {
    Mat A, P = NULL;
    KSP ksp;
    Vec b, x;

    if (e == 0) PetscCall(CreateRectangular(comm, &A));
    else PetscCall(CreateProblem(comm, PROB_LAP2D, &A));
    P = A;
    if (e == 3) PetscCall(CreateSignedDiagonal(A, &P)); /* an indefinite Jacobi preconditioner */
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, A, P));
    PetscCall(KSPSetType(ksp, m->type));
    PetscCall(KSPSetFromOptions(ksp));
    if (e == 1) PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
    if (e == 2) PetscCall(KSPSetComputeSingularValues(ksp, PETSC_TRUE));
    if (e >= 3) PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_TRUE));
    if (e >= 3) {
      PC pc;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCJACOBI));
    }
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(MSTestVecSetHash(b, 7, 3, -1.0, 1.0));
    if (e == 4) {
      PetscInt rstart;
      PetscCall(VecGetOwnershipRange(b, &rstart, NULL));
      if (!rstart) PetscCall(VecSetValue(b, 0, (PetscScalar)NAN, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(b));
      PetscCall(VecAssemblyEnd(b));
    }
    PetscCall(SolveAndReport(comm, m, names[e], ksp, b, x, PETSC_SUCCESS));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    if (P != A) PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test procs: the device method on the communicator's processes against the same method on one process (each
   process solves the whole problem on PETSC_COMM_SELF): the same reason, iterations within 1% + 1 (several processes
   run the single-reduction form with MatMult() of the parallel matrix, one process the standard form or, with
   -ksp_cgdevice_single_reduction, the single reduction in one kernel) */
static PetscErrorCode TestProcs(MPI_Comm comm, const Method *m, const Settings *s, char **problems, PetscInt nprob, char **pcs, PetscInt npc, PetscInt *nfail)
{
  PetscFunctionBegin;
  for (PetscInt p = 0; p < nprob; p++) {
    PetscInt k;

    PetscCall(FindProblem(comm, problems[p], &k));
    for (PetscInt q = 0; q < npc; q++) {
      Outcome   o[2];
      Case      c;
      PetscBool pass;

      PetscCall(PetscMemzero(&c, sizeof(c)));
      PetscCall(PetscMemzero(o, sizeof(o)));
      c.problem = (ProblemKind)k;
      c.pc      = pcs[q];
      c.norm    = KSP_NORM_DEFAULT;
      for (int one = 0; one < 2; one++) { /* the communicator, then one process */
        MPI_Comm  cm = one ? PETSC_COMM_SELF : comm;
        Mat       A;
        KSP       ksp;
        PC        pc;
        Vec       b, x0;
        PetscReal r0 = 0;

        PetscCall(CreateProblem(cm, c.problem, &A));
        PetscCall(PCCreate(cm, &pc));
        PetscCall(PCSetOperators(pc, A, A));
        PetscCall(PCSetType(pc, c.pc));
        PetscCall(PCSetFromOptions(pc));
        PetscCall(CreateKSP(A, A, pc, m->type, &c, s, &o[one], &r0, &ksp));
        PetscCall(CreateVecs(A, &c, s, &b, &x0));
        PetscCall(Solve(ksp, A, b, x0, &o[one]));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(PCDestroy(&pc));
        PetscCall(VecDestroy(&b));
        PetscCall(VecDestroy(&x0));
        PetscCall(MatDestroy(&A));
      }
      { /* every process's one-process solve took the same iterations (the same problem and arithmetic) */
        PetscInt lo = o[1].its, hi = o[1].its;

        PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &lo, 1, MPIU_INT, MPI_MIN, comm));
        PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &hi, 1, MPIU_INT, MPI_MAX, comm));
        pass = (PetscBool)(o[0].reason == o[1].reason && ItsAgree(o[0].its, o[1].its) && lo == hi && o[0].relres <= s->rtol_true && o[1].relres <= s->rtol_true);
      }
      PetscCall(PetscPrintf(comm, "%s, PC %s: %s on the processes against one process: the same reason (%s): %s; iterations within 1%%+1: %s; true relative residual <= %g: %s\n", ProblemNames[k], pcs[q], m->type, KSPConvergedReasons[o[0].reason], o[0].reason == o[1].reason ? "yes" : "NO", ItsAgree(o[0].its, o[1].its) ? "yes" : "NO", (double)s->rtol_true, o[0].relres <= s->rtol_true && o[1].relres <= s->rtol_true ? "yes" : "NO"));
      if (!pass) PetscCall(PetscPrintf(comm, "  processes: %s in %" PetscInt_FMT " iterations, true %g; one process: %s in %" PetscInt_FMT " iterations, true %g\n", KSPConvergedReasons[o[0].reason], o[0].its, (double)o[0].relres, KSPConvergedReasons[o[1].reason], o[1].its, (double)o[1].relres));
      *nfail += !pass;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -test view: one solve of lap2d with the KSP's options (-ksp_view shows the plan) */
static PetscErrorCode TestView(MPI_Comm comm, const Method *m, const Settings *s)
{
  Mat  A;
  KSP  ksp;
  Vec  b, x;
  Case c;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCall(CreateProblem(comm, PROB_LAP2D, &A));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, m->type));
  PetscCall(KSPSetTolerances(ksp, s->rtol, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(CreateVecs(A, &c, s, &b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the items of the comma-separated list (16 at most), in buf */
static PetscErrorCode SplitList(const char list[], char buf[], size_t len, char *items[], PetscInt *n)
{
  char *tok, *save = NULL;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(buf, list, len));
  *n = 0;
  for (tok = strtok_r(buf, ",", &save); tok && *n < 16; tok = strtok_r(NULL, ",", &save)) items[(*n)++] = tok;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  Settings  s;
  char     *methods[16], *problems[16], *pcs[16], test[32] = "compare", guess[16] = "zero";
  PetscInt  nmeth = 16, nprob = 16, npc = 16, nfail = 0;
  PetscBool fmeth, fprob, fpc;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm            = PETSC_COMM_WORLD;
  s.host_vectors  = PETSC_FALSE;
  s.show          = PETSC_FALSE;
  s.resolve       = PETSC_TRUE;
  s.rtol          = 1e-8;
  s.rtol_true     = 1e-6;
  PetscOptionsBegin(comm, NULL, "Device Krylov methods against PETSc's", NULL);
  PetscCall(PetscOptionsString("-test", "compare, reasons, errors or view", NULL, test, test, sizeof(test), NULL));
  PetscCall(PetscOptionsStringArray("-methods", "device methods to test", NULL, methods, &nmeth, &fmeth));
  PetscCall(PetscOptionsStringArray("-problems", "problems (lap2d, lap3d, block3, nonsym)", NULL, problems, &nprob, &fprob));
  PetscCall(PetscOptionsStringArray("-pcs", "preconditioners", NULL, pcs, &npc, &fpc));
  PetscCall(PetscOptionsString("-guess", "zero or nonzero", NULL, guess, guess, sizeof(guess), NULL));
  PetscCall(PetscOptionsBool("-host_vectors", "b and x in host memory (VecCreate())", NULL, s.host_vectors, &s.host_vectors, NULL));
  PetscCall(PetscOptionsBool("-resolve", "-test compare: also the solve after new values of the matrix", NULL, s.resolve, &s.resolve, NULL));
  PetscCall(PetscOptionsBool("-show_counts", "print the iteration counts and norms of both solves (not for the harness's outputs)", NULL, s.show, &s.show, NULL));
  PetscCall(PetscOptionsReal("-rtol", "relative tolerance of the solves", NULL, s.rtol, &s.rtol, NULL));
  PetscCall(PetscOptionsReal("-rtol_true", "bound on the true relative residual", NULL, s.rtol_true, &s.rtol_true, NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrcmp(guess, "nonzero", &s.nonzero_guess));
  if (!fmeth) nmeth = 0;
  if (!fprob) nprob = 0;
  if (!fpc) npc = 0;
  for (size_t j = 0; j < sizeof(Methods) / sizeof(Methods[0]); j++) {
    const Method *m = &Methods[j];
    PetscBool     selected = (PetscBool)!fmeth, eq, cg;
    char        **pclist = pcs;
    PetscInt      npcm   = npc;
    char          pcbuf[256];
    char         *pcown[16];
    char        **plist = problems;
    PetscInt      np = nprob;
    char          buf[256];
    char         *own[16];

    for (PetscInt q = 0; q < nmeth; q++) {
      PetscCall(PetscStrcmp(methods[q], m->type, &eq));
      if (eq) selected = PETSC_TRUE;
    }
    if (!selected) continue;
    if (!fprob) { /* the method's own problems */
      PetscCall(SplitList(m->problems, buf, sizeof(buf), own, &np));
      plist = own;
    }
    if (!fpc) { /* the method's own preconditioners */
      PetscCall(SplitList(m->pcs, pcbuf, sizeof(pcbuf), pcown, &npcm));
      pclist = pcown;
    }
    PetscCall(PetscStrcmp(test, "compare", &eq));
    if (eq) PetscCall(TestCompare(comm, m, &s, plist, np, pclist, npcm, &nfail));
    PetscCall(PetscStrcmp(m->type, KSPCGDEVICE, &cg));
    PetscCall(PetscStrcmp(test, "reasons", &eq));
    if (eq) PetscCall(cg ? TestReasons(comm, m, &s, &nfail) : TestReasonsNS(comm, m, &s, &nfail));
    PetscCall(PetscStrcmp(test, "errors", &eq));
    if (eq) PetscCall(cg ? TestErrors(comm, m) : TestErrorsNS(comm, m));
    PetscCall(PetscStrcmp(test, "view", &eq));
    if (eq) PetscCall(TestView(comm, m, &s));
    PetscCall(PetscStrcmp(test, "procs", &eq));
    if (eq) PetscCall(TestProcs(comm, m, &s, plist, np, pclist, npcm, &nfail));
  }
  PetscCall(PetscPrintf(comm, "checks failed: %" PetscInt_FMT "\n", nfail));
  for (PetscInt q = 0; q < nmeth; q++) PetscCall(PetscFree(methods[q]));
  for (PetscInt q = 0; q < nprob; q++) PetscCall(PetscFree(problems[q]));
  for (PetscInt q = 0; q < npc; q++) PetscCall(PetscFree(pcs[q]));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # the methods against PETSc's on every problem and PC; one output shared by the matrix types, the process counts
   # and the GPU runs (only what holds on any correct build is printed)
   test:
     suffix: compare
     requires: double !complex
     nsize: {{1 3}}
     args: -methods cgdevice -mat_type {{aij modsell}} -pc_brbilu_symmetric -pc_neumann_warn false
     output_file: output/ex1_compare.out

   test:
     suffix: guess
     requires: double !complex
     nsize: {{1 3}}
     args: -methods cgdevice -mat_type modsell -guess nonzero -pcs none,jacobi,ruiz,gamg,bjacobi
     output_file: output/ex1_guess.out

   test:
     suffix: single_reduction
     requires: double !complex
     args: -methods cgdevice -mat_type {{aij modsell}} -ksp_cgdevice_single_reduction -pcs none,jacobi,ruiz,gamg,bjacobi
     output_file: output/ex1_guess.out

   # permuted images (the solve in the image's numbering) and several threads per row, both forms (the single reduction
   # in one kernel per iteration)
   test:
     suffix: ordering
     requires: double !complex
     args: -methods cgdevice -mat_type modsell -mat_modsell_ordering {{rcm partition}} -ksp_cgdevice_single_reduction {{0 1}} -pcs none,jacobi,ruiz,gamg,bjacobi
     output_file: output/ex1_guess.out

   test:
     suffix: lanes
     requires: double !complex
     args: -methods cgdevice -mat_type modsell -mat_modsell_row_lanes 4 -ksp_cgdevice_single_reduction {{0 1}} -pcs none,jacobi,ruiz,gamg,bjacobi
     output_file: output/ex1_guess.out

   test:
     suffix: reasons
     requires: double !complex
     nsize: {{1 2}}
     args: -methods cgdevice -test reasons -mat_type {{aij modsell}}
     output_file: output/ex1_reasons.out

   test:
     suffix: reasons_image
     requires: double !complex
     args: -methods cgdevice -test reasons -mat_type modsell -mat_modsell_ordering rcm -ksp_cgdevice_single_reduction {{0 1}}
     output_file: output/ex1_reasons.out

   # several processes against one (the same problem on PETSC_COMM_SELF on each process)
   test:
     suffix: procs
     requires: double !complex
     nsize: {{2 4}}
     args: -methods cgdevice -test procs -mat_type {{aij modsell}} -pcs none,jacobi,ruiz
     output_file: output/ex1_procs.out

   test:
     suffix: procs_sr
     requires: double !complex
     nsize: 2
     args: -methods cgdevice -test procs -mat_type modsell -ksp_cgdevice_single_reduction -pcs none,jacobi,ruiz
     output_file: output/ex1_procs.out

   test:
     suffix: errors
     requires: double !complex
     args: -methods cgdevice -test errors
     filter: sed -E -e "s/beta [-0-9.e+]+, betaold [-0-9.e+]+/beta B, betaold B/"

   testset:
     requires: double !complex
     args: -methods cgdevice -test view -ksp_view
     filter: grep -E "type: cg|variant:|device-resident|^ +preconditioner:|operator:|convergence test:|CUDA graphs:"
     test:
       suffix: view_fused
       args: -mat_type modsell -pc_type jacobi
     test:
       suffix: view_generic
       args: -mat_type aij -pc_type gamg
     test:
       suffix: view_monitor
       args: -mat_type modsell -pc_type none -ksp_monitor_short
     test:
       suffix: view_mpi
       nsize: 2
       args: -mat_type modsell -pc_type jacobi
     test:
       suffix: view_image
       args: -mat_type modsell -mat_modsell_ordering rcm -pc_type jacobi
     test:
       suffix: view_sr_kernel
       args: -mat_type modsell -pc_type jacobi -ksp_cgdevice_single_reduction

   # BiCGSTAB and GMRES against KSPBCGS and KSPGMRES: left and right preconditioning, the plugin's PCs and PETSc's on
   # nonsymmetric, block and SPD problems (brbilu's automatic variant on its own: after the new values of the matrix
   # neither method converges with it). With several processes BiCGSTAB's standard form (three reductions) against
   # KSPBCGS, its merged form (two reductions, the default there) on the problems where BiCGSTAB's iteration count is
   # not sensitive to rounding; fewer problems and PCs than on one process (the harness's time limit).
   testset:
     requires: double !complex
     args: -pc_neumann_warn false -pcs none,jacobi,ruiz,bjsmooth,neumann,bisai,gamg,bjacobi
     test:
       suffix: compare_bcgs
       args: -methods bcgsdevice -mat_type {{aij modsell}} -ksp_pc_side {{left right}}
       output_file: output/ex1_compare_bcgs.out
     test:
       suffix: compare_gmres
       args: -methods gmresdevice -mat_type {{aij modsell}} -ksp_pc_side {{left right}}
       output_file: output/ex1_compare_gmres.out

   # the host reads the done flag one step late as on the device (-ksp_device_read_late): the step queued after the
   # stop must leave what the solution's update reads; with the default restart (30) several of these solves stop at
   # the end of a cycle (PETSc's MatMult() and PCApply(): the host follows the cycle)
   test:
     suffix: read_late_gmres
     requires: double !complex
     args: -methods gmresdevice -mat_type aij -ksp_device_read_late -problems nonsym,lap2d -pcs jacobi,bjsmooth -ksp_pc_side {{left right}}
     output_file: output/ex1_read_late_gmres.out

   testset:
     requires: double !complex
     nsize: 3
     args: -mat_type modsell -ksp_pc_side {{left right}} -problems nonsym,convdiff3d -pcs none,jacobi,bisai,gamg,bjacobi
     test:
       suffix: compare_bcgs_mpi
       args: -methods bcgsdevice -ksp_bcgsdevice_merged_reductions 0
       output_file: output/ex1_compare_bcgs_mpi.out
     test:
       suffix: compare_gmres_mpi
       args: -methods gmresdevice
       output_file: output/ex1_compare_gmres_mpi.out

   test:
     suffix: merged_mpi
     requires: double !complex
     nsize: 3
     args: -methods bcgsdevice -mat_type modsell -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,bisai,gamg,bjacobi
     output_file: output/ex1_merged.out

   test:
     suffix: merged
     requires: double !complex
     args: -methods bcgsdevice -mat_type modsell -ksp_bcgsdevice_merged_reductions -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,bisai,gamg,bjacobi -ksp_pc_side {{left right}}
     output_file: output/ex1_merged.out

   test:
     suffix: brbilu_ns
     requires: double !complex
     args: -methods bcgsdevice,gmresdevice -mat_type modsell -pcs brbilu -problems nonsym,convdiff3d,lap2d,lap3d -resolve 0 -ksp_pc_side {{left right}}
     output_file: output/ex1_brbilu_ns.out

   test:
     suffix: guess_ns
     requires: double !complex
     nsize: {{1 3}}
     args: -methods bcgsdevice,gmresdevice -mat_type modsell -guess nonzero -pcs none,jacobi,gamg,bjacobi -problems convdiff3d -ksp_pc_side {{left right}} -ksp_bcgsdevice_merged_reductions 0
     output_file: output/ex1_guess_ns.out

   # BiCGSTAB and GMRES on permuted images (with a fused PC the solve in the image's numbering, with PCApply() the
   # matrix's permuted product) and on an image of several threads per row; the reasons in a permuted image's numbering
   # (the monitors of the true residual read KSPBuildSolution() in the user's numbering). In the image's numbering the
   # sums run in another order: BiCGSTAB is compared on first solves (its count on the solves after new values of the
   # matrix is sensitive to rounding), GMRES after new values too
   test:
     suffix: ordering_ns
     requires: double !complex
     args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_ordering {{rcm partition}} -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,ruiz,gamg -ksp_pc_side {{left right}}
     output_file: output/ex1_ordering_ns.out

   test:
     suffix: ordering_gmres
     requires: double !complex
     args: -methods gmresdevice -mat_type modsell -mat_modsell_ordering partition -problems nonsym,convdiff3d -pcs none,jacobi,ruiz,gamg -ksp_pc_side {{left right}}
     output_file: output/ex1_ordering_gmres.out

   test:
     suffix: lanes_ns
     requires: double !complex
     args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_row_lanes 4 -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,ruiz,gamg -ksp_pc_side {{left right}}
     output_file: output/ex1_ordering_ns.out

   test:
     suffix: reasons_ns_image
     requires: double !complex
     args: -methods bcgsdevice,gmresdevice -test reasons -mat_type modsell -mat_modsell_ordering rcm
     output_file: output/ex1_reasons_ns.out

   testset:
     requires: double !complex
     args: -test reasons
     test:
       suffix: reasons_bcgs
       args: -methods bcgsdevice -mat_type {{aij modsell}}
       output_file: output/ex1_reasons_bcgs.out
     test:
       suffix: reasons_gmres
       args: -methods gmresdevice -mat_type {{aij modsell}}
       output_file: output/ex1_reasons_gmres.out
     test:
       suffix: reasons_bcgs_mpi
       nsize: 3
       args: -methods bcgsdevice -mat_type modsell
       output_file: output/ex1_reasons_bcgs.out
     test:
       suffix: reasons_gmres_mpi
       nsize: 3
       args: -methods gmresdevice -mat_type aij
       output_file: output/ex1_reasons_gmres.out

   test:
     suffix: errors_ns
     requires: double !complex
     args: -methods bcgsdevice,gmresdevice -test errors
     filter: sed -E -e "s/formula [-0-9.e+]+ is far from the computed residual norm [-0-9.e+]+ at restart, residual norm at start of cycle [-0-9.e+]+/formula R is far from the computed residual norm R at restart, residual norm at start of cycle R/"

   testset:
     requires: double !complex
     args: -test view -ksp_view
     filter: grep -E "type: bcgs|type: gmres|restart=|variant:|device-resident|^ +preconditioner:|operator:|convergence test:|CUDA graphs:"
     test:
       suffix: view_ns_fused
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type jacobi -ksp_pc_side {{left right}}
       output_file: output/ex1_view_ns_fused.out
     test:
       suffix: view_ns_generic
       args: -methods bcgsdevice,gmresdevice -mat_type aij -pc_type gamg
     test:
       suffix: view_ns_monitor
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type none -ksp_monitor_short
     test:
       suffix: view_ns_mpi
       nsize: 2
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type jacobi
     test:
       suffix: view_ns_image
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_ordering rcm -pc_type jacobi -ksp_pc_side {{left right}}
       output_file: output/ex1_view_ns_image.out

   # GPU: aijcusparse and MATMODSELL with CUDA vectors, and host vectors staged to the device; the outputs of the host
   testset:
     requires: cuda double !complex
     test:
       suffix: cuda_compare
       nsize: {{1 3}}
       args: -methods cgdevice -mat_type {{aijcusparse modsell}} -pc_brbilu_symmetric -pc_neumann_warn false
       output_file: output/ex1_compare.out
       timeoutfactor: 4
     test:
       suffix: cuda_host_vectors
       nsize: {{1 3}}
       args: -methods cgdevice -mat_type {{aijcusparse modsell}} -host_vectors -pcs none,jacobi,ruiz,gamg,bjacobi
       output_file: output/ex1_guess.out
       timeoutfactor: 4
     test:
       suffix: cuda_guess
       args: -methods cgdevice -mat_type modsell -guess nonzero -pcs none,jacobi,ruiz,gamg,bjacobi -ksp_device_graph {{0 1}}
       output_file: output/ex1_guess.out
     test:
       suffix: cuda_reasons
       nsize: {{1 2}}
       args: -methods cgdevice -test reasons -mat_type {{aijcusparse modsell}}
       output_file: output/ex1_reasons.out
     test:
       suffix: cuda_reasons_check
       args: -methods cgdevice -test reasons -mat_type modsell -ksp_device_check_max {{1 4 2048}}
       output_file: output/ex1_reasons.out
     test:
       suffix: cuda_ordering
       args: -methods cgdevice -mat_type modsell -mat_modsell_ordering {{rcm partition}} -ksp_cgdevice_single_reduction {{0 1}} -ksp_device_graph {{0 1}} -pcs none,jacobi,ruiz,gamg,bjacobi
       output_file: output/ex1_guess.out
     test:
       suffix: cuda_ordering_host_vectors
       args: -methods cgdevice -mat_type modsell -mat_modsell_ordering partition -host_vectors -guess nonzero -pcs none,jacobi,ruiz,gamg,bjacobi
       output_file: output/ex1_guess.out
       timeoutfactor: 4
     test:
       suffix: cuda_lanes
       args: -methods cgdevice -mat_type modsell -mat_modsell_row_lanes {{2 4}} -ksp_cgdevice_single_reduction {{0 1}} -pcs none,jacobi,ruiz,gamg,bjacobi
       output_file: output/ex1_guess.out
     test:
       suffix: cuda_reasons_image
       args: -methods cgdevice -test reasons -mat_type modsell -mat_modsell_ordering rcm -ksp_cgdevice_single_reduction {{0 1}} -ksp_device_check_max {{1 32}}
       output_file: output/ex1_reasons.out
     test:
       suffix: cuda_procs
       nsize: {{2 4}}
       args: -methods cgdevice -test procs -mat_type {{aijcusparse modsell}} -pcs none,jacobi,ruiz
       output_file: output/ex1_procs.out
     test:
       suffix: cuda_procs_sr
       nsize: 2
       args: -methods cgdevice -test procs -mat_type modsell -ksp_cgdevice_single_reduction -pcs none,jacobi,ruiz
       output_file: output/ex1_procs.out

   testset:
     requires: cuda double !complex
     args: -methods cgdevice -test view -ksp_view
     filter: grep -E "type: cg|variant:|device-resident|^ +preconditioner:|operator:|convergence test:|CUDA graphs:"
     test:
       suffix: cuda_view_fused
       args: -mat_type modsell -pc_type jacobi
     test:
       suffix: cuda_view_staged
       args: -mat_type modsell -pc_type ruiz -host_vectors
     test:
       suffix: cuda_view_generic
       args: -mat_type aijcusparse -pc_type gamg
     test:
       suffix: cuda_view_monitor
       args: -mat_type modsell -pc_type none -ksp_monitor_short
     test:
       suffix: cuda_view_mpi
       nsize: 2
       args: -mat_type modsell -pc_type jacobi
     test:
       suffix: cuda_view_image
       args: -mat_type modsell -mat_modsell_ordering rcm -pc_type jacobi
     test:
       suffix: cuda_view_sr_kernel
       args: -mat_type modsell -pc_type jacobi -ksp_cgdevice_single_reduction

   # GPU, BiCGSTAB and GMRES: the outputs of the host. BiCGSTAB's iteration count is sensitive to the order of the sums
   # on some problems (the solves after the new values of the matrix): on the GPU it is compared on first solves only.
   testset:
     requires: cuda double !complex
     args: -pc_neumann_warn false -pcs none,jacobi,ruiz,bjsmooth,neumann,bisai,gamg,bjacobi
     test:
       suffix: cuda_compare_bcgs
       args: -methods bcgsdevice -mat_type {{aijcusparse modsell}} -ksp_pc_side {{left right}} -resolve 0
       output_file: output/ex1_cuda_compare_bcgs.out
     test:
       suffix: cuda_compare_gmres
       args: -methods gmresdevice -mat_type {{aijcusparse modsell}} -ksp_pc_side {{left right}}
       output_file: output/ex1_compare_gmres.out

   testset:
     requires: cuda double !complex
     nsize: 3
     args: -mat_type {{aijcusparse modsell}} -ksp_pc_side {{left right}} -problems nonsym,convdiff3d -pcs none,jacobi,bisai,gamg,bjacobi
     test:
       suffix: cuda_compare_bcgs_mpi
       args: -methods bcgsdevice -ksp_bcgsdevice_merged_reductions 0 -resolve 0
       output_file: output/ex1_cuda_compare_bcgs_mpi.out
     test:
       suffix: cuda_compare_gmres_mpi
       args: -methods gmresdevice
       output_file: output/ex1_compare_gmres_mpi.out
     test:
       suffix: cuda_merged_mpi
       args: -methods bcgsdevice -resolve 0
       output_file: output/ex1_merged.out

   testset:
     requires: cuda double !complex
     test:
       suffix: cuda_merged
       args: -methods bcgsdevice -mat_type modsell -ksp_bcgsdevice_merged_reductions -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,bisai,gamg,bjacobi -ksp_pc_side {{left right}} -ksp_device_graph {{0 1}}
       output_file: output/ex1_merged.out
     test:
       suffix: cuda_brbilu_ns
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pcs brbilu -problems nonsym,convdiff3d,lap2d,lap3d -resolve 0 -ksp_pc_side {{left right}}
       output_file: output/ex1_brbilu_ns.out
     test:
       suffix: cuda_guess_ns
       nsize: {{1 3}}
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -guess nonzero -pcs none,jacobi,gamg,bjacobi -problems convdiff3d -ksp_pc_side {{left right}} -ksp_bcgsdevice_merged_reductions 0 -ksp_device_graph {{0 1}}
       output_file: output/ex1_guess_ns.out
     test:
       suffix: cuda_host_vectors_ns
       nsize: {{1 3}}
       args: -methods bcgsdevice,gmresdevice -mat_type {{aijcusparse modsell}} -host_vectors -guess nonzero -pcs none,jacobi,gamg,bjacobi -problems convdiff3d -ksp_pc_side {{left right}} -ksp_bcgsdevice_merged_reductions 0
       output_file: output/ex1_guess_ns.out
       timeoutfactor: 4
     test:
       suffix: cuda_reasons_bcgs
       nsize: {{1 2}}
       args: -methods bcgsdevice -test reasons -mat_type {{aijcusparse modsell}}
       output_file: output/ex1_reasons_bcgs.out
     test:
       suffix: cuda_reasons_gmres
       nsize: {{1 2}}
       args: -methods gmresdevice -test reasons -mat_type {{aijcusparse modsell}}
       output_file: output/ex1_reasons_gmres.out
     test:
       suffix: cuda_reasons_ns_check
       args: -methods bcgsdevice,gmresdevice -test reasons -mat_type modsell -ksp_device_check_max {{1 4 2048}}
       output_file: output/ex1_reasons_ns.out
     test:
       suffix: cuda_reasons_ns_image
       args: -methods bcgsdevice,gmresdevice -test reasons -mat_type modsell -mat_modsell_ordering rcm -ksp_device_check_max {{1 32}}
       output_file: output/ex1_reasons_ns.out
     test:
       suffix: cuda_ordering_ns
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_ordering {{rcm partition}} -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,ruiz,gamg -ksp_pc_side {{left right}} -ksp_device_graph {{0 1}}
       output_file: output/ex1_ordering_ns.out
     test:
       suffix: cuda_lanes_ns
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_row_lanes {{2 4}} -problems nonsym,convdiff3d -resolve 0 -pcs none,jacobi,ruiz,gamg -ksp_pc_side {{left right}}
       output_file: output/ex1_ordering_ns.out
     test:
       suffix: cuda_ordering_ns_host_vectors
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_ordering partition -host_vectors -guess nonzero -problems convdiff3d -resolve 0 -pcs none,jacobi,ruiz,gamg -ksp_pc_side {{left right}} -ksp_bcgsdevice_merged_reductions 0
       output_file: output/ex1_cuda_ordering_ns_guess.out
       timeoutfactor: 4

   testset:
     requires: cuda double !complex
     args: -test view -ksp_view
     filter: grep -E "type: bcgs|type: gmres|restart=|variant:|device-resident|^ +preconditioner:|operator:|convergence test:|CUDA graphs:"
     test:
       suffix: cuda_view_ns_fused
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type jacobi -ksp_pc_side {{left right}}
       output_file: output/ex1_cuda_view_ns_fused.out
     test:
       suffix: cuda_view_ns_staged
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type ruiz -host_vectors
     test:
       suffix: cuda_view_ns_generic
       args: -methods bcgsdevice,gmresdevice -mat_type aijcusparse -pc_type gamg
     test:
       suffix: cuda_view_ns_monitor
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type none -ksp_monitor_short
     test:
       suffix: cuda_view_ns_mpi
       nsize: 2
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -pc_type jacobi
     test:
       suffix: cuda_view_ns_image
       args: -methods bcgsdevice,gmresdevice -mat_type modsell -mat_modsell_ordering rcm -pc_type jacobi -ksp_pc_side {{left right}}
       output_file: output/ex1_cuda_view_ns_image.out

TEST*/
