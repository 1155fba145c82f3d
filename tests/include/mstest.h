/*
   Helpers shared by the tests (not a test itself): tests/include is on the include path of every test program
   (config/test.mk, MS_TEST_CPPFLAGS). This file: the one deterministic random number generator (splitmix64: a
   sequence, MSTestRng, and a stateless hash of an integer, MSTestHashUniform()), and the MATMODSELL matrix tests'
   CSR generators and product comparisons (tests/mat). mstestpc.h adds the preconditioner tests' matrix builders
   and their solve-and-report helper.

   Every rank builds the same global matrix (deterministic integer random numbers, identical on every
   rank and every machine) as a CSR, then inserts its own rows. Matrix kinds (-kind):
     lap2d        5-point Laplacian on -nx x -ny, symmetric perturbed values, SPD
     lap3d        7-point Laplacian on -nx x -ny x -nz, symmetric perturbed values, SPD
     unstructured -n random points in the unit square, symmetrized -k nearest neighbours graph,
                  numbered in random (generation) order; SPD graph Laplacian plus a shift
     random       -n rows, -ncols columns (default -n), random sparsity (about -nzr per row) and
                  random values, nonsymmetric
     edge         -n rows of mixed special rows: empty rows, diagonal-only rows, an explicitly stored
                  zero diagonal, rows without a diagonal, a row of -dense_row entries (thousands),
                  a column present in many rows, and ordinary banded rows with far entries
   Rows (and columns) are split over the processes by -row_weights w0,w1,... (one integer weight
   per process, 0 gives a process no rows), else PETSC_DECIDE.
*/
#pragma once

#include <petscmodsell.h>

typedef struct {
  PetscInt     nrows, ncols;
  PetscInt    *ia, *ja; /* global CSR, columns sorted and unique in each row */
  PetscScalar *va;
  /* statistics of the edge cases (counted over all rows) */
  PetscInt nempty, ndiagonly, nzerodiag, nnodiag, maxrow;
} MSTestCSR;

/* ------------------------------------------------------------------ deterministic random numbers */
typedef struct {
  unsigned long long s;
} MSTestRng;

#define MSTEST_GOLDEN 0x9E3779B97F4A7C15ULL /* splitmix64's increment */

/* splitmix64's output function */
static inline unsigned long long MSTestMix64(unsigned long long z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
/* the next number of the sequence */
static inline unsigned long long MSTestRngNext(MSTestRng *r)
{
  return MSTestMix64(r->s += MSTEST_GOLDEN);
}
/* 53 random bits as a double in [0,1), exactly representable, so identical everywhere */
static inline double MSTestUnit(unsigned long long z)
{
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}
/* uniform in [0,1) */
static inline double MSTestRngUniform(MSTestRng *r)
{
  return MSTestUnit(MSTestRngNext(r));
}
/* Stateless: the first number of the sequence seeded so that its state is key * golden + 0x632BE59BD9B4E019, i.e. a
   hash of the integer key. For values that every process computes on its own, in any order (a matrix entry from
   its row and column, a vector entry from its global index). */
static inline unsigned long long MSTestHash64(unsigned long long key)
{
  MSTestRng r = {key * MSTEST_GOLDEN + (0x632BE59BD9B4E019ULL - MSTEST_GOLDEN)};
  return MSTestRngNext(&r);
}
/* uniform in [0,1) from an integer key */
static inline double MSTestHashUniform(unsigned long long key)
{
  return MSTestUnit(MSTestHash64(key));
}
static inline PetscInt MSTestRngInt(MSTestRng *r, PetscInt n)
{
  return (PetscInt)(MSTestRngNext(r) % (unsigned long long)n);
}
/* symmetric hash of an unordered pair, in [0,1) */
static inline double MSTestPairHash(PetscInt i, PetscInt j)
{
  MSTestRng r;
  PetscInt  a = PetscMin(i, j), b = PetscMax(i, j);
  r.s = 0x1234567ULL + (unsigned long long)a * 1000003ULL + (unsigned long long)b * 998244353ULL;
  (void)MSTestRngNext(&r);
  return MSTestRngUniform(&r);
}

/* ------------------------------------------------------------------ COO -> CSR */
typedef struct {
  PetscInt    i, j;
  PetscScalar v;
} MSTestTriplet;

typedef struct {
  MSTestTriplet *t;
  PetscCount     n, cap;
} MSTestCOO;

static inline PetscErrorCode MSTestCOOAdd(MSTestCOO *c, PetscInt i, PetscInt j, PetscScalar v)
{
  PetscFunctionBegin;
  if (c->n == c->cap) {
    MSTestTriplet *t;
    PetscCount     cap = c->cap ? 2 * c->cap : 1024;
    PetscCall(PetscMalloc1(cap, &t));
    if (c->n) PetscCall(PetscArraycpy(t, c->t, c->n));
    PetscCall(PetscFree(c->t));
    c->t   = t;
    c->cap = cap;
  }
  c->t[c->n].i = i;
  c->t[c->n].j = j;
  c->t[c->n].v = v;
  c->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline int MSTestTripletCmp(const void *a, const void *b)
{
  const MSTestTriplet *x = (const MSTestTriplet *)a, *y = (const MSTestTriplet *)b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  return 0;
}

/* sorts, sums duplicates (keeps explicit zeros), frees the COO */
static inline PetscErrorCode MSTestCOOToCSR(MSTestCOO *c, PetscInt nrows, PetscInt ncols, MSTestCSR *A)
{
  PetscCount k, nu = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(A, sizeof(*A)));
  A->nrows = nrows;
  A->ncols = ncols;
  if (c->n) qsort(c->t, (size_t)c->n, sizeof(MSTestTriplet), MSTestTripletCmp);
  for (k = 0; k < c->n; k++) {
    if (nu && c->t[nu - 1].i == c->t[k].i && c->t[nu - 1].j == c->t[k].j) c->t[nu - 1].v += c->t[k].v;
    else c->t[nu++] = c->t[k];
  }
  PetscCall(PetscCalloc1(nrows + 1, &A->ia));
  PetscCall(PetscMalloc1(nu + 1, &A->ja));
  PetscCall(PetscMalloc1(nu + 1, &A->va));
  for (k = 0; k < nu; k++) {
    PetscCheck(c->t[k].i >= 0 && c->t[k].i < nrows && c->t[k].j >= 0 && c->t[k].j < ncols, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test generator made an entry out of range");
    A->ia[c->t[k].i + 1]++;
    A->ja[k] = c->t[k].j;
    A->va[k] = c->t[k].v;
  }
  for (PetscInt i = 0; i < nrows; i++) A->ia[i + 1] += A->ia[i];
  PetscCall(PetscFree(c->t));
  c->n = c->cap = 0;
  /* statistics */
  for (PetscInt i = 0; i < nrows; i++) {
    PetscInt  len = A->ia[i + 1] - A->ia[i];
    PetscBool hasdiag = PETSC_FALSE, zerodiag = PETSC_FALSE;
    for (PetscInt e = A->ia[i]; e < A->ia[i + 1]; e++)
      if (A->ja[e] == i) {
        hasdiag  = PETSC_TRUE;
        zerodiag = (PetscBool)(A->va[e] == 0.0);
      }
    A->maxrow = PetscMax(A->maxrow, len);
    if (!len) A->nempty++;
    if (len == 1 && hasdiag) A->ndiagonly++;
    if (zerodiag) A->nzerodiag++;
    if (len && !hasdiag) A->nnodiag++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode MSTestCSRDestroy(MSTestCSR *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->ia));
  PetscCall(PetscFree(A->ja));
  PetscCall(PetscFree(A->va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ generators */
/* Laplacian on a (nx, ny, nz) grid (nz = 1: 2D). Off-diagonals -(1 + 0.25 h) with a symmetric hash h,
   the diagonal the sum of the magnitudes plus 1 per missing neighbour (Dirichlet): SPD. */
static inline PetscErrorCode MSTestGenLaplacian(PetscInt nx, PetscInt ny, PetscInt nz, PetscBool perturb, MSTestCSR *A)
{
  MSTestCOO      c   = {0};
  const PetscInt N   = nx * ny * nz;
  const PetscInt nnb = nz > 1 ? 6 : 4;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const PetscInt row = i + nx * (j + ny * k);
        PetscInt       nb[6], cnt = 0;
        PetscScalar    d = 0.0;
        if (i > 0) nb[cnt++] = row - 1;
        if (i < nx - 1) nb[cnt++] = row + 1;
        if (j > 0) nb[cnt++] = row - nx;
        if (j < ny - 1) nb[cnt++] = row + nx;
        if (nz > 1 && k > 0) nb[cnt++] = row - nx * ny;
        if (nz > 1 && k < nz - 1) nb[cnt++] = row + nx * ny;
        for (PetscInt q = 0; q < cnt; q++) {
          const PetscScalar w = 1.0 + (perturb ? 0.25 * MSTestPairHash(row, nb[q]) : 0.0);
          PetscCall(MSTestCOOAdd(&c, row, nb[q], -w));
          d += w;
        }
        PetscCall(MSTestCOOAdd(&c, row, row, d + (PetscScalar)(nnb - cnt)));
      }
  PetscCall(MSTestCOOToCSR(&c, N, N, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n random points in the unit square (random numbering), k nearest neighbours, symmetrized */
static inline PetscErrorCode MSTestGenUnstructured(PetscInt n, PetscInt k, unsigned long long seed, MSTestCSR *A)
{
  MSTestCOO  c   = {0};
  MSTestRng  rng = {seed};
  double    *px, *py, *bd;
  PetscInt  *bj;
  PetscScalar *diag;

  PetscFunctionBegin;
  k = PetscMin(k, n - 1);
  PetscCall(PetscMalloc4(n, &px, n, &py, k + 1, &bd, k + 1, &bj));
  PetscCall(PetscCalloc1(n, &diag));
  for (PetscInt i = 0; i < n; i++) {
    px[i] = MSTestRngUniform(&rng);
    py[i] = MSTestRngUniform(&rng);
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscInt nb = 0;
    for (PetscInt j = 0; j < n; j++) {
      double   d;
      PetscInt q;
      if (j == i) continue;
      d = (px[i] - px[j]) * (px[i] - px[j]) + (py[i] - py[j]) * (py[i] - py[j]);
      if (nb == k && d >= bd[k - 1]) continue;
      /* insertion into the sorted list of the k best (ties: smaller index first) */
      q = nb < k ? nb++ : k - 1;
      while (q > 0 && bd[q - 1] > d) {
        bd[q] = bd[q - 1];
        bj[q] = bj[q - 1];
        q--;
      }
      bd[q] = d;
      bj[q] = j;
    }
    for (PetscInt q = 0; q < nb; q++) {
      /* both directions; duplicates (mutual neighbours) are merged below by taking half of each */
      const PetscScalar w = 0.5 * (0.5 + MSTestPairHash(i, bj[q]));
      PetscCall(MSTestCOOAdd(&c, i, bj[q], -w));
      PetscCall(MSTestCOOAdd(&c, bj[q], i, -w));
      diag[i] += w;
      diag[bj[q]] += w;
    }
  }
  for (PetscInt i = 0; i < n; i++) PetscCall(MSTestCOOAdd(&c, i, i, diag[i] + 0.05));
  PetscCall(PetscFree4(px, py, bd, bj));
  PetscCall(PetscFree(diag));
  PetscCall(MSTestCOOToCSR(&c, n, n, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* random sparsity and values, nonsymmetric, possibly rectangular */
/* (dominant: every row gets a diagonal entry larger than the sum of the magnitudes of the others) */
static inline PetscErrorCode MSTestGenRandom(PetscInt n, PetscInt ncols, PetscInt nzr, PetscBool dominant, unsigned long long seed, MSTestCSR *A)
{
  MSTestCOO c   = {0};
  MSTestRng rng = {seed};

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt cnt   = MSTestRngInt(&rng, 2 * nzr + 1);
    const PetscCount first = c.n;
    if (i < ncols && MSTestRngUniform(&rng) < 0.8) PetscCall(MSTestCOOAdd(&c, i, i, 2.0 + MSTestRngUniform(&rng)));
    for (PetscInt q = 0; q < cnt; q++) {
      /* half the entries near the diagonal, half anywhere */
      PetscInt j;
      if (MSTestRngUniform(&rng) < 0.5) {
        j = i * ncols / n + MSTestRngInt(&rng, 41) - 20; /* (PetscMin/PetscMax are macros: no calls inside) */
        j = PetscMin(ncols - 1, PetscMax(0, j));
      } else j = MSTestRngInt(&rng, ncols);
      PetscCall(MSTestCOOAdd(&c, i, j, 2.0 * MSTestRngUniform(&rng) - 1.0));
    }
    if (dominant && i < ncols) {
      PetscScalar sum = 1.0;
      for (PetscCount e = first; e < c.n; e++) sum += PetscAbsScalar(c.t[e].v);
      PetscCall(MSTestCOOAdd(&c, i, i, sum));
    }
  }
  PetscCall(MSTestCOOToCSR(&c, n, ncols, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the edge cases, all in one matrix */
static inline PetscErrorCode MSTestGenEdge(PetscInt n, PetscInt dense, unsigned long long seed, MSTestCSR *A)
{
  MSTestCOO      c    = {0};
  MSTestRng      rng  = {seed};
  const PetscInt drow = n / 3; /* the dense row */

  PetscFunctionBegin;
  dense = PetscMin(dense, n);
  for (PetscInt i = 0; i < n; i++) {
    if (i == drow) { /* a row of `dense` entries spread over the columns, diagonal included */
      for (PetscInt q = 0; q < dense; q++) {
        const PetscInt j = (PetscInt)(((PetscInt64)q * n) / dense);
        PetscCall(MSTestCOOAdd(&c, i, j, 2.0 * MSTestRngUniform(&rng) - 1.0));
      }
      PetscCall(MSTestCOOAdd(&c, i, i, 1.0));
    } else if (i % 37 == 3) { /* empty row */
    } else if (i % 41 == 5) {   /* diagonal only */
      PetscCall(MSTestCOOAdd(&c, i, i, 1.0 + MSTestRngUniform(&rng)));
    } else if (i % 43 == 7) { /* explicitly stored zero diagonal, with off-diagonals */
      PetscCall(MSTestCOOAdd(&c, i, i, 0.0));
      if (i > 0) PetscCall(MSTestCOOAdd(&c, i, i - 1, 2.0 * MSTestRngUniform(&rng) - 1.0));
      if (i < n - 1) PetscCall(MSTestCOOAdd(&c, i, i + 1, 2.0 * MSTestRngUniform(&rng) - 1.0));
    } else if (i % 47 == 11) { /* no diagonal: off-diagonals only, one of them far away */
      if (i > 1) PetscCall(MSTestCOOAdd(&c, i, i - 2, 2.0 * MSTestRngUniform(&rng) - 1.0));
      PetscCall(MSTestCOOAdd(&c, i, MSTestRngInt(&rng, n), 2.0 * MSTestRngUniform(&rng) - 1.0));
      if (MSTestRngInt(&rng, n) == i) PetscCall(MSTestCOOAdd(&c, i, (i + 1) % n, 1.0)); /* never the diagonal */
    } else { /* ordinary: band of random width, a far entry now and then, the wide column 0 */
      const PetscInt w = MSTestRngInt(&rng, 6);
      PetscCall(MSTestCOOAdd(&c, i, i, 3.0 + MSTestRngUniform(&rng)));
      for (PetscInt q = 1; q <= w; q++) {
        if (i - q >= 0) PetscCall(MSTestCOOAdd(&c, i, i - q, 2.0 * MSTestRngUniform(&rng) - 1.0));
        if (i + q < n) PetscCall(MSTestCOOAdd(&c, i, i + q, 2.0 * MSTestRngUniform(&rng) - 1.0));
      }
      if (MSTestRngUniform(&rng) < 0.2) PetscCall(MSTestCOOAdd(&c, i, MSTestRngInt(&rng, n), 2.0 * MSTestRngUniform(&rng) - 1.0));
      if (i % 3 == 0) PetscCall(MSTestCOOAdd(&c, i, 0, 0.5));
    }
  }
  PetscCall(MSTestCOOToCSR(&c, n, n, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads -kind and the size options; prints a one-line description of the matrix on rank 0 */
static inline PetscErrorCode MSTestGenerate(MPI_Comm comm, MSTestCSR *A)
{
  const char *kinds[] = {"lap2d", "lap3d", "unstructured", "random", "edge"};
  PetscInt    kind = 0, nx = 12, ny = 11, nz = 7, n = 1000, ncols = -1, k = 6, nzr = 5, dense = 2100;
  PetscInt    seed    = 7;
  PetscBool   perturb = PETSC_TRUE, dominant = PETSC_FALSE;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "MATMODSELL test matrix", NULL);
  PetscCall(PetscOptionsEList("-kind", "matrix kind", NULL, kinds, 5, kinds[kind], &kind, NULL));
  PetscCall(PetscOptionsInt("-nx", "grid points in x", NULL, nx, &nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "grid points in y", NULL, ny, &ny, NULL));
  PetscCall(PetscOptionsInt("-nz", "grid points in z", NULL, nz, &nz, NULL));
  PetscCall(PetscOptionsBool("-perturb", "perturb the Laplacian's values", NULL, perturb, &perturb, NULL));
  PetscCall(PetscOptionsInt("-n", "rows (unstructured, random, edge)", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-ncols", "columns (random)", NULL, ncols, &ncols, NULL));
  PetscCall(PetscOptionsInt("-k", "neighbours (unstructured)", NULL, k, &k, NULL));
  PetscCall(PetscOptionsInt("-nzr", "mean off-diagonal entries per row (random)", NULL, nzr, &nzr, NULL));
  PetscCall(PetscOptionsBool("-dominant", "make the rows diagonally dominant (random)", NULL, dominant, &dominant, NULL));
  PetscCall(PetscOptionsInt("-dense_row", "entries of the dense row (edge)", NULL, dense, &dense, NULL));
  PetscCall(PetscOptionsInt("-seed", "generator seed", NULL, seed, &seed, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 1 && nx >= 1 && ny >= 1 && nz >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "test sizes must be positive");
  switch (kind) {
  case 0:
    PetscCall(MSTestGenLaplacian(nx, ny, 1, perturb, A));
    break;
  case 1:
    PetscCall(MSTestGenLaplacian(nx, ny, nz, perturb, A));
    break;
  case 2:
    PetscCall(MSTestGenUnstructured(n, k, (unsigned long long)seed, A));
    break;
  case 3:
    PetscCall(MSTestGenRandom(n, ncols > 0 ? ncols : n, nzr, dominant, (unsigned long long)seed, A));
    break;
  default:
    PetscCall(MSTestGenEdge(n, dense, (unsigned long long)seed, A));
  }
  PetscCall(PetscPrintf(comm, "matrix %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros, widest row %" PetscInt_FMT ", empty rows %" PetscInt_FMT ", diagonal-only rows %" PetscInt_FMT ", zero diagonals %" PetscInt_FMT ", rows without diagonal %" PetscInt_FMT "\n", kinds[kind], A->nrows, A->ncols, A->ia[A->nrows], A->maxrow, A->nempty, A->ndiagonly, A->nzerodiag, A->nnodiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Local sizes from -row_weights (one weight per process), else PETSC_DECIDE */
static inline PetscErrorCode MSTestSplit(MPI_Comm comm, PetscInt N, PetscInt *nlocal)
{
  PetscMPIInt size, rank;
  PetscInt    w[64], nw = 64;
  PetscBool   flg;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-row_weights", w, &nw, &flg));
  *nlocal = PETSC_DECIDE;
  if (flg) {
    PetscInt64 tot = 0, below = 0;
    PetscCheck(nw == size, comm, PETSC_ERR_ARG_SIZ, "-row_weights needs one weight per process: %" PetscInt_FMT " given for %d processes", nw, size);
    for (PetscInt r = 0; r < nw; r++) {
      PetscCheck(w[r] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-row_weights must be nonnegative");
      tot += w[r];
      if (r < rank) below += w[r];
    }
    PetscCheck(tot > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-row_weights must not all be zero");
    *nlocal = (PetscInt)(((below + w[rank]) * N) / tot - (below * N) / tot);
  } else PetscCall(PetscSplitOwnership(comm, nlocal, &N));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* prints the local row counts, rank by rank */
static inline PetscErrorCode MSTestPrintSplit(Mat A)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscInt    m, n;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(PetscSynchronizedPrintf(comm, "[%d] local rows %" PetscInt_FMT ", local columns %" PetscInt_FMT "\n", rank, m, n));
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Preallocates (any AIJ-like type, type already set) and inserts the local rows */
static inline PetscErrorCode MSTestPreallocate(Mat A, const MSTestCSR *csr)
{
  PetscInt rs, re, cs, ce, *dnnz, *onnz;
  PetscLayout rmap, cmap;

  PetscFunctionBegin;
  PetscCall(MatGetLayouts(A, &rmap, &cmap));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutSetUp(cmap));
  PetscCall(PetscLayoutGetRange(rmap, &rs, &re));
  PetscCall(PetscLayoutGetRange(cmap, &cs, &ce));
  PetscCall(PetscCalloc2(re - rs + 1, &dnnz, re - rs + 1, &onnz));
  for (PetscInt i = rs; i < re; i++)
    for (PetscInt e = csr->ia[i]; e < csr->ia[i + 1]; e++) {
      if (csr->ja[e] >= cs && csr->ja[e] < ce) dnnz[i - rs]++;
      else onnz[i - rs]++;
    }
  PetscCall(MatXAIJSetPreallocation(A, 1, dnnz, onnz, NULL, NULL));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sets the local rows of the matrix from csr with values scale*va (the pattern of csr) and assembles */
static inline PetscErrorCode MSTestFill(Mat A, const MSTestCSR *csr, PetscScalar scale)
{
  PetscInt     rs, re;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(PetscMalloc1(csr->maxrow + 1, &v));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt len = csr->ia[i + 1] - csr->ia[i];
    for (PetscInt e = 0; e < len; e++) v[e] = scale * csr->va[csr->ia[i] + e];
    PetscCall(MatSetValues(A, 1, &i, len, csr->ja + csr->ia[i], v, INSERT_VALUES));
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Creates an assembled matrix of the given type (NULL: MATMODSELL, then MatSetFromOptions()) */
static inline PetscErrorCode MSTestCreateMat(MPI_Comm comm, const MSTestCSR *csr, MatType type, Mat *A)
{
  PetscInt m, n;

  PetscFunctionBegin;
  PetscCall(MSTestSplit(comm, csr->nrows, &m));
  PetscCall(MSTestSplit(comm, csr->ncols, &n));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, csr->nrows, csr->ncols));
  PetscCall(MatSetType(*A, type ? type : MATMODSELL));
  if (!type) PetscCall(MatSetFromOptions(*A));
  PetscCall(MSTestPreallocate(*A, csr));
  PetscCall(MSTestFill(*A, csr, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Right (x) and left (y) vectors of B: MatCreateVecs(), or with -vec_type given, VecSetFromOptions() */
static inline PetscErrorCode MSTestCreateVecs(Mat B, Vec *x, Vec *y)
{
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(B, x, y));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-vec_type", &flg));
  if (flg) {
    if (x) PetscCall(VecSetFromOptions(*x));
    if (y) PetscCall(VecSetFromOptions(*y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode MSTestIsModSELL(Mat B, PetscBool *is)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, is, MATSEQAIJMODSELL, MATMPIAIJMODSELL, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* err <= tol*scale, and err a number */
static inline PetscErrorCode MSTestCheck(MPI_Comm comm, const char *label, const char *op, Vec y, Vec yref, PetscReal scale, PetscReal tol, PetscInt *nfail)
{
  PetscReal err;
  Vec       d;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(yref, &d));
  PetscCall(VecCopy(y, d));
  PetscCall(VecAXPY(d, -1.0, yref));
  PetscCall(VecNorm(d, NORM_INFINITY, &err));
  PetscCall(VecDestroy(&d));
  if (PetscIsInfOrNanReal(err) || err > tol * scale) {
    (*nfail)++;
    PetscCall(PetscPrintf(comm, "FAIL %s: %s differs from AIJ: error %g > %g\n", label, op, (double)err, (double)(tol * scale)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether B's GPU products are reproducible bit for bit: those of an image (the scalar or block layout) are; those of the
   cuSPARSE view (MATMODSELL_LAYOUT_CUSPARSE, or processes of different layouts) are cuSPARSE's SpMV, whose default CSR
   algorithm does not promise the same bits from run to run. B not a MATMODSELL type: yes */
static inline PetscErrorCode MSTestImageProduct(Mat B, PetscBool *image)
{
  PetscBool      isms;
  MatModSELLInfo info;

  PetscFunctionBegin;
  *image = PETSC_TRUE;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &isms, MATSEQAIJMODSELL, MATMPIAIJMODSELL, ""));
  if (!isms) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatModSELLGetInfo(B, &info));
  *image = (PetscBool)(info.layout == MATMODSELL_LAYOUT_SCALAR || info.layout == MATMODSELL_LAYOUT_BLOCKS);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compares B (MATMODSELL) with the reference A (AIJ) for MatMult (twice, different x), MatMultAdd
   (w != y and w == y), MatMultTranspose, MatMultTransposeAdd (both ways) and MatGetDiagonal
   (exactly). Vectors follow B's default vector type. */
static inline PetscErrorCode MSTestCompareProducts(Mat A, Mat B, PetscRandom rnd, PetscReal tol, const char *label, PetscInt *nfail)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)B);
  Vec       x, y, yref, w, u, z, zref, v;
  PetscReal nA, nA1, nx, nw, nu, nv;
  PetscInt  M, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatNorm(A, NORM_INFINITY, &nA));
  PetscCall(MatNorm(A, NORM_1, &nA1));
  PetscCall(MSTestCreateVecs(B, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &u));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &zref));
  PetscCall(VecDuplicate(x, &v));

  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecNorm(x, NORM_INFINITY, &nx));
    PetscCall(VecSet(y, -7.0)); /* the product must overwrite it */
    PetscCall(MatMult(B, x, y));
    PetscCall(MatMult(A, x, yref));
    PetscCall(MSTestCheck(comm, label, pass ? "MatMult (again)" : "MatMult", y, yref, nA * nx, tol, nfail));
  }
  PetscCall(VecSetRandom(w, rnd));
  PetscCall(VecNorm(w, NORM_INFINITY, &nw));
  PetscCall(MatMultAdd(A, x, w, yref));
  PetscCall(VecSet(y, -7.0));
  PetscCall(MatMultAdd(B, x, w, y));
  PetscCall(MSTestCheck(comm, label, "MatMultAdd (w != y)", y, yref, nA * nx + nw, tol, nfail));
  PetscCall(VecCopy(w, y));
  PetscCall(MatMultAdd(B, x, y, y));
  PetscCall(MSTestCheck(comm, label, "MatMultAdd (w == y)", y, yref, nA * nx + nw, tol, nfail));
  /* MatResidual(): w - B x against AIJ's, and bit for bit against what PETSc does without the operation (MatMult(),
     then VecAYPX() with -1): MATSEQAIJMODSELL forms it in one pass from the same row sums */
  PetscCall(MatResidual(A, w, x, yref));
  PetscCall(VecSet(y, -7.0));
  PetscCall(MatResidual(B, w, x, y));
  PetscCall(MSTestCheck(comm, label, "MatResidual", y, yref, nA * nx + nw, tol, nfail));
  {
    PetscBool same, image;

    PetscCall(MatMult(B, x, u));
    PetscCall(VecAYPX(u, -1.0, w));
    PetscCall(VecEqual(u, y, &same));
    PetscCall(MSTestImageProduct(B, &image)); /* the cuSPARSE view's product: MatMult() itself may differ in its bits */
    if (!same && image) {
      (*nfail)++;
      PetscCall(PetscPrintf(comm, "FAIL %s: MatResidual differs from MatMult and VecAYPX (bit for bit)\n", label));
    }
  }

  PetscCall(VecSetRandom(u, rnd));
  PetscCall(VecNorm(u, NORM_INFINITY, &nu));
  PetscCall(MatMultTranspose(A, u, zref));
  PetscCall(MatMultTranspose(B, u, z));
  PetscCall(MSTestCheck(comm, label, "MatMultTranspose", z, zref, nA1 * nu, tol, nfail));
  PetscCall(VecSetRandom(v, rnd));
  PetscCall(VecNorm(v, NORM_INFINITY, &nv));
  PetscCall(MatMultTransposeAdd(A, u, v, zref));
  PetscCall(MatMultTransposeAdd(B, u, v, z));
  PetscCall(MSTestCheck(comm, label, "MatMultTransposeAdd (v != z)", z, zref, nA1 * nu + nv, tol, nfail));
  PetscCall(VecCopy(v, z));
  PetscCall(MatMultTransposeAdd(B, u, z, z));
  PetscCall(MSTestCheck(comm, label, "MatMultTransposeAdd (v == z)", z, zref, nA1 * nu + nv, tol, nfail));

  if (M == N) { /* the diagonal: a copy, so exactly equal */
    PetscCall(VecSet(y, -7.0));
    PetscCall(MatGetDiagonal(B, y));
    PetscCall(MatGetDiagonal(A, yref));
    PetscCall(MSTestCheck(comm, label, "MatGetDiagonal", y, yref, 0.0, 0.0, nfail));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zref));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* only MatMult, for the update tests */
static inline PetscErrorCode MSTestCompareMult(Mat A, Mat B, PetscRandom rnd, PetscReal tol, const char *label, PetscInt *nfail)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)B);
  Vec       x, y, yref;
  PetscReal nA, nx;

  PetscFunctionBegin;
  PetscCall(MatNorm(A, NORM_INFINITY, &nA));
  PetscCall(MSTestCreateVecs(B, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecSet(y, -7.0));
  PetscCall(MatMult(B, x, y));
  PetscCall(MatMult(A, x, yref));
  PetscCall(MSTestCheck(comm, label, "MatMult", y, yref, nA * nx, tol, nfail));
  {
    PetscInt M, N;
    PetscCall(MatGetSize(A, &M, &N));
    if (M == N) {
      PetscCall(MatGetDiagonal(B, y));
      PetscCall(MatGetDiagonal(A, yref));
      PetscCall(MSTestCheck(comm, label, "MatGetDiagonal", y, yref, 0.0, 0.0, nfail));
    }
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode MSTestRandomCreate(MPI_Comm comm, PetscRandom *rnd)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscRandomCreate(comm, rnd));
  PetscCall(PetscRandomSetInterval(*rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(*rnd, 1234 + (unsigned long)rank));
  PetscCall(PetscRandomSeed(*rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}
