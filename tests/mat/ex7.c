static char help[] = "Locality partition (localityimpl.h) of each process's diagonal block: the blocks are a permutation of the rows,\n\
of sh rows each (the last one the rest), counted connected or not (checked here independently), the block colouring is\n\
proper; prints the fraction of the graph's edges inside a block against inside a slice of the natural numbering.\n\
Matrices from tests/include/mstest.h (-kind ..., see MSTestGenerate), -shuffle: number the rows (and columns) randomly,\n\
-sh <128> rows per block. Quality checks (what any correct build gives on the graph of the test, with a margin):\n\
-max_disconnected <1>: at most this fraction of the blocks not connected, -min_inside <0>: at least this fraction of\n\
the edges inside a block. -backend reference|cuda: also run that kernel table (localitykernels.h) on the block's CSR\n\
and on built-in graphs (pieces of several components with empty and diagonal-only rows, m < sh, one row, no row),\n\
outputs poisoned before, and compare its permutation, inverse permutation and counts with the reference bit for bit;\n\
with cuda also the glue MSLocalityPerm() on the CUDA table.\n";

#include <petscmodsell/private/localityimpl.h>
#include <petscmodsell/private/localitykernels.h>
#include <mstest.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define POISON 0x7f

/* the symmetric random renumbering of a square CSR: row i becomes p[i] */
static PetscErrorCode Shuffle(MSTestCSR *A)
{
  MSTestRng rng = {12345};
  MSTestCOO coo = {0};
  PetscInt *p, n = A->nrows;

  PetscFunctionBegin;
  PetscCheck(A->nrows == A->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-shuffle needs a square matrix");
  PetscCall(PetscMalloc1(n, &p));
  for (PetscInt i = 0; i < n; i++) p[i] = i;
  for (PetscInt i = n - 1; i > 0; i--) {
    const PetscInt j = MSTestRngInt(&rng, i + 1), t = p[i];
    p[i]             = p[j];
    p[j]             = t;
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = A->ia[i]; k < A->ia[i + 1]; k++) PetscCall(MSTestCOOAdd(&coo, p[i], p[A->ja[k]], A->va[k]));
  PetscCall(MSTestCSRDestroy(A));
  PetscCall(MSTestCOOToCSR(&coo, n, n, A));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt Find(PetscInt *parent, PetscInt x)
{
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/* checks the partition of the square block Ad against its pattern; returns the number of failed checks */
static PetscErrorCode Check(Mat Ad, MSLocality loc, PetscInt *nfail, PetscInt *ndisc, PetscReal *fin, PetscReal *fnat)
{
  const PetscInt *ai, *aj;
  PetscInt        m, *blk, *parent, *root, sh = loc->sh;
  PetscInt64      e = 0, ein = 0, enat = 0;
  PetscBool       done;

  PetscFunctionBegin;
  *nfail = 0;
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(PetscMalloc3(PetscMax(m, 1), &blk, PetscMax(m, 1), &parent, PetscMax(m, 1), &root));
  for (PetscInt i = 0; i < m; i++) blk[i] = -1;
  for (PetscInt r = 0; r < m; r++) { /* a permutation, blocks of sh rows */
    const PetscInt v = loc->perm[r];
    if (v < 0 || v >= m || blk[v] >= 0) (*nfail)++;
    else blk[v] = r / sh;
  }
  if (loc->nblocks != (m + sh - 1) / sh) (*nfail)++;
  if (!*nfail) {
    /* connectivity inside each block: union-find over the edges inside blocks (the pattern symmetrised) */
    for (PetscInt i = 0; i < m; i++) parent[i] = i;
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        const PetscInt j = aj[k];
        if (j == i) continue;
        e++;
        enat += i / sh == j / sh;
        if (blk[i] != blk[j]) {
          if (loc->color[blk[i]] == loc->color[blk[j]]) (*nfail)++; /* the colouring must be proper */
          continue;
        }
        ein++;
        parent[Find(parent, i)] = Find(parent, j);
      }
    *ndisc = 0;
    for (PetscInt b = 0; b < loc->nblocks; b++) {
      const PetscInt lo = b * sh, hi = PetscMin(lo + sh, m), r0 = Find(parent, loc->perm[lo]);
      PetscBool      conn = PETSC_TRUE;
      for (PetscInt r = lo + 1; r < hi; r++)
        if (Find(parent, loc->perm[r]) != r0) conn = PETSC_FALSE;
      *ndisc += !conn;
    }
    if (*ndisc != loc->ndisconnected) (*nfail)++;
    for (PetscInt b = 0; b < loc->nblocks; b++)
      if (loc->color[b] < 0 || loc->color[b] >= loc->ncolors) (*nfail)++;
    if (loc->bipartite && loc->ncolors > 2) (*nfail)++;
  }
  *fin  = e ? (PetscReal)ein / (PetscReal)e : 0.0;
  *fnat = e ? (PetscReal)enat / (PetscReal)e : 0.0;
  PetscCall(PetscFree3(blk, parent, root));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one run of a kernel table on a host CSR (copied to the device for cuda), outputs poisoned before */
static PetscErrorCode RunTable(const char *backend, int m, const int *ai, const int *aj, const double *aa, int sh, int *perm, int *iperm, MSLocalityInfo *info, PetscBool glue, int *gperm)
{
  PetscBool cuda;

  PetscFunctionBegin;
  memset(perm, POISON, sizeof(int) * (size_t)PetscMax(m, 1));
  memset(iperm, POISON, sizeof(int) * (size_t)PetscMax(m, 1));
  memset(info, POISON, sizeof(*info));
  PetscCall(PetscStrcmp(backend, "cuda", &cuda));
  if (!cuda) {
    int err = MSLocalityKernels_Reference.partition(m, ai, aj, aa, sh, perm, iperm, info, NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "The reference partition failed with code %d", err);
  } else {
#if defined(PETSC_HAVE_CUDA)
    int         *d_ai, *d_aj, *d_perm, *d_iperm, err;
    double      *d_aa = NULL;
    const size_t nnz = (size_t)ai[m];
    cudaStream_t stream;

    PetscCallCUDA(cudaMalloc((void **)&d_ai, sizeof(int) * ((size_t)m + 1)));
    PetscCallCUDA(cudaMalloc((void **)&d_aj, sizeof(int) * PetscMax(nnz, 1)));
    PetscCallCUDA(cudaMalloc((void **)&d_perm, sizeof(int) * (size_t)PetscMax(m, 1)));
    PetscCallCUDA(cudaMalloc((void **)&d_iperm, sizeof(int) * (size_t)PetscMax(m, 1)));
    PetscCallCUDA(cudaMemcpy(d_ai, ai, sizeof(int) * ((size_t)m + 1), cudaMemcpyHostToDevice));
    if (nnz) PetscCallCUDA(cudaMemcpy(d_aj, aj, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    if (aa) {
      PetscCallCUDA(cudaMalloc((void **)&d_aa, sizeof(double) * PetscMax(nnz, 1)));
      if (nnz) PetscCallCUDA(cudaMemcpy(d_aa, aa, sizeof(double) * nnz, cudaMemcpyHostToDevice));
    }
    PetscCallCUDA(cudaMemset(d_perm, POISON, sizeof(int) * (size_t)PetscMax(m, 1)));
    PetscCallCUDA(cudaMemset(d_iperm, POISON, sizeof(int) * (size_t)PetscMax(m, 1)));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    err = MSLocalityKernels_CUDA.partition(m, d_ai, d_aj, d_aa, sh, d_perm, d_iperm, info, stream);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "The CUDA partition failed: %s", cudaGetErrorString((cudaError_t)err));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCallCUDA(cudaMemcpy(perm, d_perm, sizeof(int) * (size_t)m, cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(iperm, d_iperm, sizeof(int) * (size_t)m, cudaMemcpyDeviceToHost));
    if (glue) { /* the glue on PETSc's stream, without the inverse */
      memset(gperm, POISON, sizeof(int) * (size_t)PetscMax(m, 1));
      PetscCallCUDA(cudaMemset(d_perm, POISON, sizeof(int) * (size_t)PetscMax(m, 1)));
      PetscCall(MSLocalityPerm(&MSLocalityKernels_CUDA, m, d_ai, d_aj, d_aa, sh, d_perm, NULL, stream));
      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCallCUDA(cudaMemcpy(gperm, d_perm, sizeof(int) * (size_t)m, cudaMemcpyDeviceToHost));
    }
    PetscCallCUDA(cudaFree(d_ai));
    PetscCallCUDA(cudaFree(d_aj));
    PetscCallCUDA(cudaFree(d_perm));
    PetscCallCUDA(cudaFree(d_iperm));
    if (d_aa) PetscCallCUDA(cudaFree(d_aa));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-backend cuda needs a PETSc configured with CUDA");
#endif
  }
  if (glue && !cuda) memcpy(gperm, perm, sizeof(int) * (size_t)PetscMax(m, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the reference and the backend on one CSR: the same permutation, inverse and counts; appends a line to the synchronized output */
static PetscErrorCode Compare(MPI_Comm comm, const char *name, const char *backend, int m, const int *ai, const int *aj, const double *aa, int sh, PetscInt *nfail)
{
  int           *p0, *q0, *p1, *q1, *g1;
  MSLocalityInfo i0, i1;
  PetscBool      same;

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(PetscMax(m, 1), &p0, PetscMax(m, 1), &q0, PetscMax(m, 1), &p1, PetscMax(m, 1), &q1, PetscMax(m, 1), &g1));
  PetscCall(RunTable("reference", m, ai, aj, aa, sh, p0, q0, &i0, PETSC_FALSE, NULL));
  PetscCall(RunTable(backend, m, ai, aj, aa, sh, p1, q1, &i1, PETSC_TRUE, g1));
  same = (PetscBool)(!memcmp(p0, p1, sizeof(int) * (size_t)m) && !memcmp(q0, q1, sizeof(int) * (size_t)m) && !memcmp(p0, g1, sizeof(int) * (size_t)m) && i0.levels == i1.levels && i0.rounds == i1.rounds && i0.ncoarse == i1.ncoarse && i0.nedges0 == i1.nedges0 &&
                     i0.nedgescoarse == i1.nedgescoarse && i0.nedgesall == i1.nedgesall && i0.nnodesall == i1.nnodesall && i0.refinerounds == i1.refinerounds && i0.nswaps == i1.nswaps);
  for (int r = 0; r < m && same; r++) same = (PetscBool)(p0[r] >= 0 && p0[r] < m && q0[p0[r]] == r);
  if (!same) (*nfail)++;
  PetscCall(PetscSynchronizedPrintf(comm, "  %s: %d rows, blocks of %d: %d levels, %d matching rounds, coarsest graph %d nodes, %d refinement rounds, %lld rows swapped; %s\n", name, m, sh, i0.levels, i0.rounds, i0.ncoarse, i0.refinerounds, i0.nswaps, same ? "same permutation" : "NOT THE SAME PERMUTATION"));
  PetscCall(PetscFree5(p0, q0, p1, q1, g1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* built-in graph: pieces (a 6x5x4 grid, a 7x7 grid, a path of 30), 9 empty rows and 4 diagonal-only rows, numbered randomly */
static PetscErrorCode Pieces(int *m, int **ai, int **aj)
{
  const int n = 120 + 49 + 30 + 13;
  MSTestRng rng = {777};
  PetscBool *a;
  int       *p, k = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n * n, &a));
  PetscCall(PetscMalloc1(n, &p));
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    const int j = (int)MSTestRngInt(&rng, i + 1), t = p[i];
    p[i]        = p[j];
    p[j]        = t;
  }
#define EDGE(u, v) \
  do { \
    a[p[u] * n + p[v]] = PETSC_TRUE; \
    a[p[v] * n + p[u]] = PETSC_TRUE; \
  } while (0)
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 5; y++)
      for (int x = 0; x < 6; x++) {
        const int u = (z * 5 + y) * 6 + x;
        EDGE(u, u);
        if (x) EDGE(u, u - 1);
        if (y) EDGE(u, u - 6);
        if (z) EDGE(u, u - 30);
      }
  for (int y = 0; y < 7; y++)
    for (int x = 0; x < 7; x++) {
      const int u = 120 + y * 7 + x;
      if (x) EDGE(u, u - 1);
      if (y) EDGE(u, u - 7);
    }
  for (int i = 1; i < 30; i++) EDGE(169 + i, 169 + i - 1);
  for (int i = 0; i < 4; i++) EDGE(199 + i, 199 + i);
#undef EDGE
  PetscCall(PetscMalloc1(n + 1, ai));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) k += a[i * n + j];
  PetscCall(PetscMalloc1(k + 1, aj));
  (*ai)[0] = 0;
  for (int i = 0, w = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      if (a[i * n + j]) (*aj)[w++] = j;
    (*ai)[i + 1] = w;
  }
  *m = n;
  PetscCall(PetscFree(a));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* built-in graph: the 7-point pattern of an nx x ny x nz grid, natural numbering */
static PetscErrorCode Grid(int nx, int ny, int nz, int *m, int **ai, int **aj)
{
  const int n = nx * ny * nz;
  int       w = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, ai));
  PetscCall(PetscMalloc1(7 * n + 1, aj));
  (*ai)[0] = 0;
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        const int u = (z * ny + y) * nx + x;
        if (z) (*aj)[w++] = u - nx * ny;
        if (y) (*aj)[w++] = u - nx;
        if (x) (*aj)[w++] = u - 1;
        (*aj)[w++] = u;
        if (x < nx - 1) (*aj)[w++] = u + 1;
        if (y < ny - 1) (*aj)[w++] = u + nx;
        if (z < nz - 1) (*aj)[w++] = u + nx * ny;
        (*ai)[u + 1] = w;
      }
  *m = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* values of an anisotropic 7-point operator on Grid()'s pattern: -1 along x, -eps along y and z, the diagonal the sum
   of the magnitudes (SPD) */
static PetscErrorCode AnisoValues(int nx, int ny, int m, const int *ai, const int *aj, double eps, double **aa)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ai[m] + 1, aa));
  for (int u = 0; u < m; u++) {
    double d = 0;
    int    kd = -1;

    for (int k = ai[u]; k < ai[u + 1]; k++) {
      const int dist = aj[k] > u ? aj[k] - u : u - aj[k];

      if (!dist) {
        kd = k;
        continue;
      }
      (*aa)[k] = dist == 1 ? -1.0 : -eps;
      d += dist == 1 ? 1.0 : eps;
    }
    if (kd >= 0) (*aa)[kd] = d;
  }
  (void)nx;
  (void)ny;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the fraction of sum |a_ij| (i != j) between rows of one block of sh rows of perm (new -> old) */
static PetscErrorCode CouplingInside(int m, const int *ai, const int *aj, const double *aa, int sh, const int *perm, double *f)
{
  int   *blk;
  double in = 0, all = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(m, 1), &blk));
  for (int r = 0; r < m; r++) blk[perm[r]] = r / sh;
  for (int u = 0; u < m; u++)
    for (int k = ai[u]; k < ai[u + 1]; k++) {
      if (aj[k] == u) continue;
      all += PetscAbsReal(aa[k]);
      if (blk[aj[k]] == blk[u]) in += PetscAbsReal(aa[k]);
    }
  *f = all > 0 ? in / all : 0;
  PetscCall(PetscFree(blk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MSTestCSR   csr;
  Mat         A, Ad;
  MSLocality  loc;
  PetscInt    sh = 128, nfail, ndisc = 0;
  PetscReal   fin, fnat, maxdisc = 1.0, mininside = 0.0;
  PetscBool   shuffle = PETSC_FALSE, ismpi, hasbackend;
  PetscMPIInt rank;
  char        backend[16] = "reference";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sh", &sh, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-shuffle", &shuffle, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_disconnected", &maxdisc, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-min_inside", &mininside, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-backend", backend, sizeof(backend), &hasbackend));
  if (hasbackend) {
    PetscBool cuda, ref;

    PetscCall(PetscStrcmp(backend, "cuda", &cuda));
    PetscCall(PetscStrcmp(backend, "reference", &ref));
    PetscCheck(cuda || ref, comm, PETSC_ERR_ARG_WRONG, "-backend %s: give reference or cuda", backend);
#if defined(PETSC_HAVE_CUDA)
    if (cuda) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
#else
    PetscCheck(!cuda, comm, PETSC_ERR_SUP, "-backend cuda needs a PETSc configured with CUDA");
#endif
  }
  PetscCall(MSTestGenerate(comm, &csr));
  if (shuffle) PetscCall(Shuffle(&csr));
  PetscCall(MSTestCreateMat(comm, &csr, MATAIJ, &A));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  else Ad = A;
  PetscCall(MSLocalityCompute(Ad, sh, &loc));
  PetscCall(Check(Ad, loc, &nfail, &ndisc, &fin, &fnat));
  if (loc->nblocks && (PetscReal)loc->ndisconnected > maxdisc * (PetscReal)loc->nblocks) nfail++;
  if (loc->nedges && fin < mininside) nfail++;
  PetscCall(PetscSynchronizedPrintf(comm, "[%d] %" PetscInt_FMT " rows, %" PetscInt_FMT " blocks of %" PetscInt_FMT ", %" PetscInt_FMT " components; blocks not connected: %" PetscInt_FMT "; colours %" PetscInt_FMT " (%s); edges inside a block %.3f, inside a slice of the natural numbering %.3f; checks: %s\n", rank, loc->m, loc->nblocks, sh, loc->ncomponents, loc->ndisconnected, loc->ncolors, loc->bipartite ? "bipartite" : "greedy",
                                    (double)fin, (double)fnat, nfail ? "FAILED" : "ok"));
  if (hasbackend) { /* the kernel table against the reference on this block, then (rank 0) on the built-in graphs */
    const PetscInt    *ai, *aj;
    const PetscScalar *aa;
    PetscInt           m;
    PetscBool          done;
    int               *ai32, *aj32;

    PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
    PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
    PetscCall(PetscMalloc2(m + 1, &ai32, PetscMax(ai[m], 1), &aj32));
    for (PetscInt i = 0; i <= m; i++) ai32[i] = (int)ai[i];
    for (PetscInt k = 0; k < ai[m]; k++) aj32[k] = (int)aj[k];
    {
      PetscInt nr = m; /* MatRestoreRowIJ() may reset the count */

      PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
    }
    PetscCall(Compare(comm, "this block", backend, (int)m, ai32, aj32, (const double *)aa, (int)sh, &nfail));
    PetscCall(Compare(comm, "this block, pattern only", backend, (int)m, ai32, aj32, NULL, (int)sh, &nfail));
    PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
    PetscCall(PetscFree2(ai32, aj32));
    if (rank == 0) {
      int n, *gi, *gj, zero = 0, one_ai[2] = {0, 1}, one_aj[1] = {0};

      PetscCall(Pieces(&n, &gi, &gj));
      PetscCall(Compare(comm, "pieces, empty rows", backend, n, gi, gj, NULL, 32, &nfail));
      PetscCall(PetscFree(gi));
      PetscCall(PetscFree(gj));
      PetscCall(Grid(3, 3, 3, &n, &gi, &gj));
      PetscCall(Compare(comm, "m < sh", backend, n, gi, gj, NULL, 64, &nfail));
      PetscCall(PetscFree(gi));
      PetscCall(PetscFree(gj));
      PetscCall(Compare(comm, "one row", backend, 1, one_ai, one_aj, NULL, 32, &nfail));
      PetscCall(Compare(comm, "no rows", backend, 0, &zero, &zero, NULL, 32, &nfail));
      { /* strengths: on an anisotropic grid the blocks follow the strong couplings (x lines) when the values are given */
        double *ga, fv, fp;
        int    *p, *q;
        MSLocalityInfo inf;

        PetscCall(Grid(16, 16, 16, &n, &gi, &gj));
        PetscCall(AnisoValues(16, 16, n, gi, gj, 0.01, &ga));
        PetscCall(Compare(comm, "anisotropic grid, values", backend, n, gi, gj, ga, 64, &nfail));
        PetscCall(PetscMalloc2(n, &p, n, &q));
        PetscCall(RunTable("reference", n, gi, gj, ga, 64, p, q, &inf, PETSC_FALSE, NULL));
        PetscCall(CouplingInside(n, gi, gj, ga, 64, p, &fv));
        PetscCall(RunTable("reference", n, gi, gj, NULL, 64, p, q, &inf, PETSC_FALSE, NULL));
        PetscCall(CouplingInside(n, gi, gj, ga, 64, p, &fp));
        if (!(fv > fp + 0.1)) nfail++;
        PetscCall(PetscSynchronizedPrintf(comm, "  anisotropic grid 16^3 (couplings 1 along x, 0.01 across), blocks of 64: coupling inside a block %s with the values than with the pattern alone\n", fv > fp + 0.1 ? "larger by more than 0.1" : "NOT LARGER by 0.1"));
        PetscCall(PetscInfo(NULL, "coupling inside: values %g, pattern %g\n", fv, fp));
        PetscCall(PetscFree2(p, q));
        PetscCall(PetscFree(ga));
        PetscCall(PetscFree(gi));
        PetscCall(PetscFree(gj));
      }
    }
    PetscCall(PetscSynchronizedPrintf(comm, "[%d] %s\n", rank, nfail ? "SOME CHECKS FAILED" : "all checks passed"));
  }
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscCall(MSLocalityDestroy(&loc));
  PetscCall(MatDestroy(&A));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: lap3d
     args: -kind lap3d -nx 20 -ny 20 -nz 20 -sh 64 -max_disconnected 0.25 -min_inside 0.65 -shuffle {{0 1}separate output}
   test:
     suffix: unstructured
     args: -kind unstructured -n 3000 -sh 128 -max_disconnected 0.5 -min_inside 0.9
   test:
     suffix: unstructured_3
     nsize: 3
     args: -kind unstructured -n 3000 -sh 32 -row_weights 2,0,3
   test:
     suffix: edge
     args: -kind edge -n 2500 -sh 64
   test:
     suffix: random_nonsym_2
     nsize: 2
     args: -kind random -n 900 -nzr 4 -sh 32

   # the reference table against itself (determinism, every output written): the expected outputs of the CUDA tests
   testset:
     args: -backend reference
     test:
       suffix: compare_lap3d
       args: -kind lap3d -nx 40 -ny 40 -nz 40 -sh 128 -shuffle -max_disconnected 0.3 -min_inside 0.7
       output_file: output/ex7_compare_lap3d.out
     test:
       suffix: compare_unstructured
       args: -kind unstructured -n 3000 -sh 128 -max_disconnected 0.5 -min_inside 0.9
       output_file: output/ex7_compare_unstructured.out
     test:
       suffix: compare_random_2
       nsize: 2
       args: -kind random -n 900 -nzr 4 -sh 32
       output_file: output/ex7_compare_random_2.out
     test:
       suffix: compare_edge
       args: -kind edge -n 2500 -sh 64
       output_file: output/ex7_compare_edge.out

   # the CUDA table against the reference, bit for bit (and the glue MSLocalityPerm() on it)
   testset:
     requires: cuda
     args: -backend cuda
     test:
       suffix: cuda_lap3d
       args: -kind lap3d -nx 40 -ny 40 -nz 40 -sh 128 -shuffle -max_disconnected 0.3 -min_inside 0.7
       output_file: output/ex7_compare_lap3d.out
     test:
       suffix: cuda_unstructured
       args: -kind unstructured -n 3000 -sh 128 -max_disconnected 0.5 -min_inside 0.9
       output_file: output/ex7_compare_unstructured.out
     test:
       suffix: cuda_random_2
       nsize: 2
       args: -kind random -n 900 -nzr 4 -sh 32
       output_file: output/ex7_compare_random_2.out
     test:
       suffix: cuda_edge
       args: -kind edge -n 2500 -sh 64
       output_file: output/ex7_compare_edge.out

TEST*/
