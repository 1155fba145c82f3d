/*
   Helpers shared by the preconditioner tests and tutorials (src/ksp/pc/tests, src/ksp/pc/impls/<pc>/tests and
   tutorials): matrices built row by row by each process for its own rows, with every number computed from
   integer hashes (MSTestHashUniform(), mstest.h), so that every process count and every machine builds the same
   matrix; and a solve-and-report helper that prints only what holds on any correct build (converged or not,
   true residual within a tolerance or not), never an iteration count or a residual, which depend on the
   summation order (BLAS, process count, host or GPU).

     MSTestLaplacianRow()           row of the 5-point (nz = 1) or 7-point Laplacian of a grid, natural or
                                    permuted numbering, with the direction of each entry
     MSTestLaplacianSetValues()     sets the rows a process owns (a callback may change each row) and assembles
     MSTestCreateLaplacian()        creates, preallocates and fills such a matrix, -mat_type honoured
     MSTestRandomPermutation()      a random numbering (like a randomly numbered unstructured mesh)
     MSTestRandomGraphLaplacianAdd() graph Laplacian of a random graph with long-range edges (SPD with a shift)
     MSTestScaleFactor() ...        row and column scaling factors spread over 10^[-sexp, sexp]
     MSTestVecSetHash()             a vector of hash values (the same on any process count)
     MSTestRelativeResidual()       ||b - A x|| / ||b||
     MSTestSolveReport()            KSPSolve() and one line: converged or not, true residual within a tolerance
*/
#pragma once

#include <mstest.h>
#include <petscksp.h>

/* ------------------------------------------------------------------ stencil rows */
/* the direction of an entry of a stencil row */
typedef enum {
  MSTEST_DIAG,
  MSTEST_XM, /* x - 1 */
  MSTEST_XP, /* x + 1 */
  MSTEST_YM,
  MSTEST_YP,
  MSTEST_ZM,
  MSTEST_ZP
} MSTestDir;

typedef struct {
  PetscInt    nx, ny, nz; /* the grid */
  PetscInt    x, y, z;    /* the point of this row */
  PetscInt    point;      /* its natural number x + nx (y + ny z) */
  PetscInt    row;        /* its row: perm[point], or point */
  PetscInt    n;          /* entries: the diagonal first, then the neighbours -x, +x, -y, +y, -z, +z present */
  PetscInt    cols[7];
  PetscScalar vals[7];
  MSTestDir   dir[7];
} MSTestStencilRow;

/* changes a row before it is set (values, or entries removed with MSTestStencilRowRemove()) */
typedef PetscErrorCode (*MSTestStencilRowFn)(MSTestStencilRow *, void *);

/* Row `point` of the Laplacian on the nx x ny x nz grid with Dirichlet boundaries: nz = 1 the 5-point stencil
   (diagonal 4), else the 7-point one (diagonal 6), off-diagonals -1 (SPD). perm (NULL: natural numbering) numbers
   the points: the row of a point p is perm[p], and so are its columns. */
static inline void MSTestLaplacianRow(PetscInt nx, PetscInt ny, PetscInt nz, const PetscInt perm[], PetscInt point, MSTestStencilRow *r)
{
  const PetscInt  x = point % nx, y = (point / nx) % ny, z = point / (nx * ny);
  const PetscInt  nb[6]  = {x > 0 ? point - 1 : -1, x < nx - 1 ? point + 1 : -1, y > 0 ? point - nx : -1, y < ny - 1 ? point + nx : -1, z > 0 ? point - nx * ny : -1, z < nz - 1 ? point + nx * ny : -1};
  const MSTestDir dirs[6] = {MSTEST_XM, MSTEST_XP, MSTEST_YM, MSTEST_YP, MSTEST_ZM, MSTEST_ZP};

  r->nx      = nx;
  r->ny      = ny;
  r->nz      = nz;
  r->x       = x;
  r->y       = y;
  r->z       = z;
  r->point   = point;
  r->row     = perm ? perm[point] : point;
  r->cols[0] = r->row;
  r->vals[0] = nz > 1 ? 6.0 : 4.0;
  r->dir[0]  = MSTEST_DIAG;
  r->n       = 1;
  for (PetscInt k = 0; k < 6; k++) {
    if (nb[k] < 0) continue;
    r->cols[r->n] = perm ? perm[nb[k]] : nb[k];
    r->vals[r->n] = -1.0;
    r->dir[r->n]  = dirs[k];
    r->n++;
  }
}

/* removes entry k of a row */
static inline void MSTestStencilRowRemove(MSTestStencilRow *r, PetscInt k)
{
  for (PetscInt q = k; q < r->n - 1; q++) {
    r->cols[q] = r->cols[q + 1];
    r->vals[q] = r->vals[q + 1];
    r->dir[q]  = r->dir[q + 1];
  }
  r->n--;
}

/* Sets the rows of A (sized, typed, preallocated: nx ny nz rows) that this process owns to the Laplacian of
   MSTestLaplacianRow(), each row passed to fn(row, ctx) first when fn is given, and assembles A. */
static inline PetscErrorCode MSTestLaplacianSetValues(Mat A, PetscInt nx, PetscInt ny, PetscInt nz, const PetscInt perm[], MSTestStencilRowFn fn, void *ctx)
{
  const PetscInt   N = nx * ny * nz;
  PetscInt         rstart, rend, M;
  MSTestStencilRow r;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCheck(M == N, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "the matrix has %" PetscInt_FMT " rows, the grid %" PetscInt_FMT " points", M, N);
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  /* natural numbering: the points of the rows owned; permuted: every point, those whose row is owned */
  for (PetscInt p = perm ? 0 : rstart; p < (perm ? N : rend); p++) {
    if (perm && (perm[p] < rstart || perm[p] >= rend)) continue;
    MSTestLaplacianRow(nx, ny, nz, perm, p, &r);
    if (fn) PetscCall((*fn)(&r, ctx));
    PetscCall(MatSetValues(A, 1, &r.row, r.n, r.cols, r.vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Creates the Laplacian of MSTestLaplacianSetValues() on comm, rows split by PETSC_DECIDE: type (NULL: MATAIJ), then
   MatSetFromOptions() (-mat_type), AIJ preallocation. No MatSetOption(): the caller flags symmetry or SPD. */
static inline PetscErrorCode MSTestCreateLaplacian(MPI_Comm comm, PetscInt nx, PetscInt ny, PetscInt nz, const PetscInt perm[], MSTestStencilRowFn fn, void *ctx, MatType type, Mat *A)
{
  const PetscInt N = nx * ny * nz;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, type ? type : MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 7, NULL, 6, NULL));
  PetscCall(MSTestLaplacianSetValues(*A, nx, ny, nz, perm, fn, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A random permutation of 0..N-1 (Fisher-Yates on MSTestRng: the same on every process); PetscFree() it */
static inline PetscErrorCode MSTestRandomPermutation(PetscInt N, unsigned long long seed, PetscInt **perm)
{
  MSTestRng rng = {seed};

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(N, perm));
  for (PetscInt i = 0; i < N; i++) (*perm)[i] = i;
  for (PetscInt i = N - 1; i > 0; i--) {
    const PetscInt j = MSTestRngInt(&rng, i + 1), t = (*perm)[i];
    (*perm)[i]       = (*perm)[j];
    (*perm)[j]       = t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ random SPD matrices */
/* Adds (ADD_VALUES, not assembled) to the rows of A that this process owns the graph Laplacian of a random graph
   on its N rows: edges (i, i + 1) and (i, j_e(i)), e = 1, 2, 3, with j_e(i) uniform over the rows (self loops
   dropped), weight 0.1 + U in [0.1, 1.1): row i gets sum(w) on the diagonal and -w at the other end of each edge.
   Every process generates every edge and keeps those that touch its rows. A positive diagonal shift added by
   the caller makes it SPD and strictly diagonally dominant. Needs room for new entries (preallocate, or
   MAT_NEW_NONZERO_ALLOCATION_ERR false). */
static inline PetscErrorCode MSTestRandomGraphLaplacianAdd(Mat A)
{
  PetscInt rstart, rend, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = 0; i < N; i++) {
    for (PetscInt e = 0; e < 4; e++) {
      PetscInt  j = e == 0 ? i + 1 : (PetscInt)(MSTestHashUniform(4 * (unsigned long long)i + e) * N);
      PetscReal w = 0.1 + MSTestHashUniform(1000003ULL * i + 7 * e + 1);
      if (j >= N || j == i) continue;
      if (i >= rstart && i < rend) {
        PetscScalar v[2] = {w, -w};
        PetscInt    c[2] = {i, j};
        PetscCall(MatSetValues(A, 1, &i, 2, c, v, ADD_VALUES));
      }
      if (j >= rstart && j < rend) {
        PetscScalar v[2] = {w, -w};
        PetscInt    c[2] = {j, i};
        PetscCall(MatSetValues(A, 1, &j, 2, c, v, ADD_VALUES));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ row and column scaling */
/* 10^(sexp (2 U(key) - 1)): factors spread log-uniformly over [10^-sexp, 10^sexp]; 1 when sexp <= 0 */
static inline PetscReal MSTestScaleFactor(PetscReal sexp, unsigned long long key)
{
  return sexp > 0 ? PetscPowReal(10.0, sexp * (2 * MSTestHashUniform(key) - 1)) : 1.0;
}

/* Dr A Dc with Dr_i = MSTestScaleFactor(sexp, 2 i) and Dc_j = Dr_j (symmetric: D A D keeps A symmetric) or
   MSTestScaleFactor(sexp, 2 j + 1) */
typedef struct {
  PetscReal sexp;
  PetscBool symmetric;
} MSTestScaling;

static inline PetscReal MSTestRowScale(const MSTestScaling *s, PetscInt i)
{
  return MSTestScaleFactor(s->sexp, 2 * (unsigned long long)i);
}

static inline PetscReal MSTestColScale(const MSTestScaling *s, PetscInt j)
{
  if (s->symmetric) return MSTestRowScale(s, j);
  return MSTestScaleFactor(s->sexp, 2 * (unsigned long long)j + 1);
}

/* an MSTestStencilRowFn (ctx: an MSTestScaling): entry (i, j) times Dr_i Dc_j */
static inline PetscErrorCode MSTestStencilRowScale(MSTestStencilRow *r, void *ctx)
{
  const MSTestScaling *s = (const MSTestScaling *)ctx;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < r->n; k++) r->vals[k] *= MSTestRowScale(s, r->row) * MSTestColScale(s, r->cols[k]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ vectors */
/* v_i = lo + (hi - lo) U(mul i + off) for the global index i: the same vector on any number of processes */
static inline PetscErrorCode MSTestVecSetHash(Vec v, unsigned long long mul, unsigned long long off, PetscReal lo, PetscReal hi)
{
  PetscInt     rstart, rend;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &rstart, &rend));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = rstart; i < rend; i++) a[i - rstart] = lo + (hi - lo) * MSTestHashUniform(mul * (unsigned long long)i + off);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||x - y||_inf / ||y||_inf (0 when both are 0) */
static inline PetscErrorCode MSTestVecRelDiff(Vec x, Vec y, PetscReal *d)
{
  Vec       w;
  PetscReal ny;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecWAXPY(w, -1.0, y, x));
  PetscCall(VecNorm(w, NORM_INFINITY, d));
  PetscCall(VecNorm(y, NORM_INFINITY, &ny));
  if (ny > 0) *d /= ny;
  else if (*d > 0) *d = PETSC_INFINITY;
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ solve and report */
/* ||b - A x|| / ||b|| (2-norms) */
static inline PetscErrorCode MSTestRelativeResidual(Mat A, Vec b, Vec x, PetscReal *rel)
{
  Vec       r;
  PetscReal nb, nr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rel = nr / nb;
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  KSPConvergedReason reason;
  PetscInt           its;
  PetscReal          relres;    /* true relative residual ||b - A x|| / ||b|| (A: the KSP's operator) */
  PetscReal          rtol_true; /* the tolerance it was checked against */
  PetscBool          converged; /* reason > 0 */
  PetscBool          resok;     /* relres <= rtol_true (not NaN) */
} MSTestSolveInfo;

/* After KSPSolve(ksp, b, x): the outcome and the true residual, nothing printed */
static inline PetscErrorCode MSTestSolveCheck(KSP ksp, Vec b, Vec x, PetscReal rtol_true, MSTestSolveInfo *info)
{
  Mat A;

  PetscFunctionBegin;
  PetscCall(KSPGetConvergedReason(ksp, &info->reason));
  PetscCall(KSPGetIterationNumber(ksp, &info->its));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MSTestRelativeResidual(A, b, x, &info->relres));
  info->rtol_true = rtol_true;
  info->converged = (PetscBool)(info->reason > 0);
  info->resok     = (PetscBool)(info->relres <= rtol_true); /* false for NaN */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Prints '<prefix>converged, true relative residual <= <rtol_true>: yes' ('NOT converged (<reason>)', 'NO'); when
   either failed, a second line with the reason and the residual (numbers, printed only then) */
static inline PetscErrorCode MSTestSolveInfoPrint(MPI_Comm comm, const char *prefix, const MSTestSolveInfo *info)
{
  PetscFunctionBegin;
  if (info->converged) PetscCall(PetscPrintf(comm, "%sconverged, true relative residual <= %g: %s\n", prefix, (double)info->rtol_true, info->resok ? "yes" : "NO"));
  else PetscCall(PetscPrintf(comm, "%sNOT converged (%s), true relative residual <= %g: %s\n", prefix, KSPConvergedReasons[info->reason], (double)info->rtol_true, info->resok ? "yes" : "NO"));
  if (!info->converged || !info->resok) PetscCall(PetscPrintf(comm, "%s  reason %s, %" PetscInt_FMT " iterations, true relative residual %g\n", prefix, KSPConvergedReasons[info->reason], info->its, (double)info->relres));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPSolve(ksp, b, x), then MSTestSolveCheck() and MSTestSolveInfoPrint(); info may be NULL */
static inline PetscErrorCode MSTestSolveReport(KSP ksp, Vec b, Vec x, PetscReal rtol_true, const char *prefix, MSTestSolveInfo *info)
{
  MSTestSolveInfo local;

  PetscFunctionBegin;
  if (!info) info = &local;
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(MSTestSolveCheck(ksp, b, x, rtol_true, info));
  PetscCall(MSTestSolveInfoPrint(PetscObjectComm((PetscObject)ksp), prefix, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}
