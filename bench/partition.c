static char help[] = "Locality partition benchmark (localityimpl.h, localitykernels.h): the 7-point pattern of an n x n x n grid,\n\
numbered randomly, as a SeqAIJ matrix; times the device partition MSLocalityPerm() on the CUDA table (permutation and its inverse, on\n\
PETSc's stream, after one untimed warm-up call) and, with -host, the host reference table; prints the rows, the\n\
times, what the device path did (levels, entries of all levels, refinement), the blocks not connected and the fraction\n\
of the graph's edges inside a block.\n\
Options: -n <218> (218^3 = 10.4 M rows), -sh <128> rows per block, -seed <1> of the numbering, -reps <3> timed device\n\
calls (minimum and median reported), -device <1> (with CUDA), -host <0>, -timings <1> (0: print no time, for tests),\n\
-values <1> (0: the pattern alone, no strengths).\n";

#include <petscmodsell/private/localityimpl.h>
#include <petscmodsell/private/localitykernels.h>
#include <petsctime.h>
#include <mstest.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* the randomly numbered 7-point grid: row p[u] of the matrix is grid point u */
static PetscErrorCode Generate(PetscInt n, PetscInt seed, Mat *A)
{
  const PetscInt m = n * n * n;
  MSTestRng      rng = {(unsigned long long)seed};
  PetscInt      *p, *pinv, *ai, *aj;
  PetscScalar   *aa;

  PetscFunctionBegin;
  PetscCheck(n >= 1 && (PetscInt64)n * n * n * 7 < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": give 1 to 668 (fewer than 2^31 entries)", n);
  PetscCall(PetscMalloc2(m, &p, m, &pinv));
  for (PetscInt u = 0; u < m; u++) p[u] = u;
  for (PetscInt u = m - 1; u > 0; u--) {
    const PetscInt j = MSTestRngInt(&rng, u + 1), t = p[u];
    p[u]             = p[j];
    p[j]             = t;
  }
  for (PetscInt u = 0; u < m; u++) pinv[p[u]] = u;
  PetscCall(PetscMalloc1(m + 1, &ai));
  PetscCall(PetscMalloc1(7 * m, &aj));
  PetscCall(PetscMalloc1(7 * m, &aa));
  ai[0] = 0;
  for (PetscInt r = 0; r < m; r++) { /* row r = grid point u: its neighbours' rows, ascending */
    const PetscInt u = pinv[r], x = u % n, y = (u / n) % n, z = u / (n * n);
    PetscInt       c[7], k = 0;

    c[k++] = r;
    if (x > 0) c[k++] = p[u - 1];
    if (x < n - 1) c[k++] = p[u + 1];
    if (y > 0) c[k++] = p[u - n];
    if (y < n - 1) c[k++] = p[u + n];
    if (z > 0) c[k++] = p[u - n * n];
    if (z < n - 1) c[k++] = p[u + n * n];
    for (PetscInt a = 1; a < k; a++) {
      const PetscInt t = c[a];
      PetscInt       b = a - 1;
      while (b >= 0 && c[b] > t) {
        c[b + 1] = c[b];
        b--;
      }
      c[b + 1] = t;
    }
    for (PetscInt a = 0; a < k; a++) {
      aj[ai[r] + a] = c[a];
      aa[ai[r] + a] = c[a] == r ? 6.0 : -1.0;
    }
    ai[r + 1] = ai[r] + k;
  }
  PetscCall(PetscFree2(p, pinv));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, m, m, m, m));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* blocks not connected and the fraction of the off-diagonal entries inside a block, for perm (new -> old) */
static PetscErrorCode Quality(Mat A, PetscInt sh, const PetscInt *perm, PetscInt *ndisc, PetscReal *fin)
{
  const PetscInt *ai, *aj;
  PetscInt        m, *iperm, *queue, *mark;
  PetscInt64      e = 0, ein = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(PetscMalloc3(m, &iperm, m, &queue, m, &mark));
  for (PetscInt r = 0; r < m; r++) {
    iperm[perm[r]] = r;
    mark[r]        = 0;
  }
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i) {
        e++;
        ein += iperm[i] / sh == iperm[aj[k]] / sh;
      }
  *ndisc = 0;
  for (PetscInt lo = 0; lo < m; lo += sh) { /* the pattern is symmetric: a search over the block's rows */
    const PetscInt b = lo / sh, hi = PetscMin(lo + sh, m);
    PetscInt       head = 0, tail = 0;

    queue[tail++]  = perm[lo];
    mark[perm[lo]] = 1;
    while (head < tail) {
      const PetscInt v = queue[head++];
      for (PetscInt k = ai[v]; k < ai[v + 1]; k++)
        if (!mark[aj[k]] && iperm[aj[k]] / sh == b) {
          mark[aj[k]]   = 1;
          queue[tail++] = aj[k];
        }
    }
    *ndisc += tail != hi - lo;
  }
  *fin = e ? (PetscReal)ein / (PetscReal)e : 0;
  PetscCall(PetscFree3(iperm, queue, mark));
  {
    PetscInt nr = m;

    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static int CmpReal(const void *a, const void *b)
{
  const PetscLogDouble x = *(const PetscLogDouble *)a, y = *(const PetscLogDouble *)b;
  return x < y ? -1 : x > y;
}
#endif

static PetscErrorCode PrintInfo(const char *who, const MSLocalityInfo *inf)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d levels (%lld nodes, %lld entries in all), %d matching rounds, coarsest graph %d nodes (%lld entries), level-0 entries %lld, %d refinement rounds, %lld rows swapped\n", who, inf->levels, inf->nnodesall, inf->nedgesall, inf->rounds, inf->ncoarse, inf->nedgescoarse, inf->nedges0, inf->refinerounds, inf->nswaps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A;
  PetscInt  n = 218, sh = 128, seed = 1, reps = 3, m, nnz, ndisc;
  PetscBool host = PETSC_FALSE, device = PETSC_FALSE, timings = PETSC_TRUE, values = PETSC_TRUE;
  PetscInt *hperm = NULL, *dperm = NULL;
  PetscReal fin;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
#if defined(PETSC_HAVE_CUDA)
  device = PETSC_TRUE;
#endif
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Partition benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-sh", "rows per block", NULL, sh, &sh, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the random numbering", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed device runs", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsBool("-device", "time the device partition", NULL, device, &device, NULL));
  PetscCall(PetscOptionsBool("-host", "time the host partition", NULL, host, &host, NULL));
  PetscCall(PetscOptionsBool("-timings", "print times", NULL, timings, &timings, NULL));
  PetscCall(PetscOptionsBool("-values", "weigh the graph by the entries' strengths (as the image does)", NULL, values, &values, NULL));
  PetscOptionsEnd();
  PetscCheck(sh >= 1 && reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-sh and -reps must be positive");
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!device, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-device needs a PETSc configured with CUDA");
#endif
  PetscCall(Generate(n, seed, &A));
  PetscCall(MatGetSize(A, &m, NULL));
  {
    MatInfo info;

    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    nnz = (PetscInt)info.nz_used;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "partition benchmark: 7-point grid %" PetscInt_FMT "^3, randomly numbered (seed %" PetscInt_FMT "): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros; blocks of %" PetscInt_FMT ": %" PetscInt_FMT "\n", n, seed, m, nnz, sh, (m + sh - 1) / sh));

#if defined(PETSC_HAVE_CUDA)
  if (device) {
    const PetscInt *ai, *aj;
    PetscBool       done;
    int            *d_ai, *d_aj, *d_perm, *d_iperm, *p32;
    double         *d_aa = NULL;
    PetscLogDouble *t;
    cudaStream_t    stream;
    MSLocalityInfo  inf;

    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    PetscCall(PetscGetCurrentCUDAStream(&stream)); /* PETSc's device context: its memory pool keeps what it allocated */
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
    PetscCallCUDA(cudaMalloc((void **)&d_ai, sizeof(int) * ((size_t)m + 1)));
    PetscCallCUDA(cudaMalloc((void **)&d_aj, sizeof(int) * (size_t)nnz));
    PetscCallCUDA(cudaMalloc((void **)&d_perm, sizeof(int) * (size_t)m));
    PetscCallCUDA(cudaMalloc((void **)&d_iperm, sizeof(int) * (size_t)m));
    if (sizeof(PetscInt) == sizeof(int)) {
      PetscCallCUDA(cudaMemcpy(d_ai, ai, sizeof(int) * ((size_t)m + 1), cudaMemcpyHostToDevice));
      PetscCallCUDA(cudaMemcpy(d_aj, aj, sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
    } else {
      int *c;

      PetscCall(PetscMalloc1(PetscMax(m + 1, nnz), &c));
      for (PetscInt i = 0; i <= m; i++) c[i] = (int)ai[i];
      PetscCallCUDA(cudaMemcpy(d_ai, c, sizeof(int) * ((size_t)m + 1), cudaMemcpyHostToDevice));
      for (PetscInt k = 0; k < nnz; k++) c[k] = (int)aj[k];
      PetscCallCUDA(cudaMemcpy(d_aj, c, sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
      PetscCall(PetscFree(c));
    }
    {
      PetscInt nr = m;

      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
    }
    if (values) {
      const PetscScalar *aa;

      PetscCall(MatSeqAIJGetArrayRead(A, &aa));
      PetscCallCUDA(cudaMalloc((void **)&d_aa, sizeof(double) * (size_t)PetscMax(nnz, 1)));
      PetscCallCUDA(cudaMemcpy(d_aa, aa, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
      PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
    }
    /* warm-up, and what the device path does (the table's counts) */
    {
      int err = MSLocalityKernels_CUDA.partition((int)m, d_ai, d_aj, d_aa, (int)sh, d_perm, d_iperm, &inf, stream);
      PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "The CUDA partition failed: %s", cudaGetErrorString((cudaError_t)err));
    }
    PetscCall(PetscMalloc1(reps, &t));
    for (PetscInt r = 0; r < reps; r++) {
      PetscLogDouble t0, t1;

      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCall(PetscTime(&t0));
      PetscCall(MSLocalityPerm(&MSLocalityKernels_CUDA, m, d_ai, d_aj, d_aa, sh, d_perm, d_iperm, stream));
      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCall(PetscTime(&t1));
      t[r] = t1 - t0;
    }
    qsort(t, (size_t)reps, sizeof(PetscLogDouble), CmpReal);
    PetscCall(PetscMalloc1(m, &p32));
    PetscCall(PetscMalloc1(m, &dperm));
    PetscCallCUDA(cudaMemcpy(p32, d_perm, sizeof(int) * (size_t)m, cudaMemcpyDeviceToHost));
    for (PetscInt r = 0; r < m; r++) dperm[r] = p32[r];
    PetscCall(Quality(A, sh, dperm, &ndisc, &fin));
    PetscCall(PrintInfo("device", &inf));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device: blocks not connected %" PetscInt_FMT " of %" PetscInt_FMT ", edges inside a block %.3f\n", ndisc, (m + sh - 1) / sh, (double)fin));
    if (timings) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device: partition + inverse permutation %.4f s (min of %" PetscInt_FMT "), median %.4f s, %.1f M rows/s\n", t[0], reps, t[reps / 2], (double)m / t[0] * 1e-6));
    PetscCall(PetscFree(t));
    PetscCall(PetscFree(p32));
    PetscCallCUDA(cudaFree(d_ai));
    PetscCallCUDA(cudaFree(d_aj));
    PetscCallCUDA(cudaFree(d_perm));
    PetscCallCUDA(cudaFree(d_iperm));
    if (d_aa) PetscCallCUDA(cudaFree(d_aa));
  }
#endif
  if (host) { /* the reference table on a 32-bit copy of the CSR (what MSLocalityPermHost() calls) */
    const PetscInt *ai, *aj;
    PetscBool       done;
    int            *ai32, *aj32, *p32, err;
    PetscLogDouble  t0, t1;
    MSLocalityInfo  inf;

    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
    PetscCall(PetscMalloc3(m + 1, &ai32, nnz, &aj32, m, &p32));
    for (PetscInt i = 0; i <= m; i++) ai32[i] = (int)ai[i];
    for (PetscInt k = 0; k < nnz; k++) aj32[k] = (int)aj[k];
    {
      PetscInt nr = m;

      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
    }
    {
      const PetscScalar *aa;

      PetscCall(MatSeqAIJGetArrayRead(A, &aa));
      PetscCall(PetscTime(&t0));
      err = MSLocalityKernels_Reference.partition((int)m, ai32, aj32, values ? (const double *)aa : NULL, (int)sh, p32, NULL, &inf, NULL);
      PetscCall(PetscTime(&t1));
      PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
    }
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "The host partition failed with code %d", err);
    PetscCall(PetscMalloc1(m, &hperm));
    for (PetscInt r = 0; r < m; r++) hperm[r] = p32[r];
    PetscCall(PetscFree3(ai32, aj32, p32));
    PetscCall(Quality(A, sh, hperm, &ndisc, &fin));
    PetscCall(PrintInfo("host", &inf));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "host: blocks not connected %" PetscInt_FMT " of %" PetscInt_FMT ", edges inside a block %.3f\n", ndisc, (m + sh - 1) / sh, (double)fin));
    if (timings) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "host: partition %.4f s\n", t1 - t0));
  }
  if (hperm && dperm) {
    PetscBool same;

    PetscCall(PetscArraycmp(hperm, dperm, m, &same));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device and host permutations: %s\n", same ? "the same" : "DIFFERENT"));
  }
  PetscCall(PetscFree(hperm));
  PetscCall(PetscFree(dperm));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: double !complex

  test:
    suffix: host
    args: -n 16 -sh 64 -device 0 -host -timings 0

  test:
    suffix: cuda
    requires: cuda
    args: -n 20 -sh 128 -reps 2 -host -timings 0

TEST*/
