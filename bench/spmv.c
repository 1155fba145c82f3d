static char help[] = "SpMV benchmark: times MatMult() for aij (CPU), aijcusparse, sellcuda and MATMODSELL variants on one matrix.\n\
\n\
One run loads or generates one matrix, optionally permutes it (every format sees the same stored\n\
matrix), then for each format of -formats converts it with MatConvert(), creates its vectors with\n\
MatCreateVecs() (so GPU formats get GPU vectors), checks y = A x against the aij (CPU) product and\n\
times -reps products, -samples times. Effective bandwidth is counted the same way for every\n\
format: 12 bytes per nonzero (value + 32-bit column index) + 8 bytes per row (y) + 8 bytes per\n\
column (x), i.e. 12 nnz + 16 n for a square matrix, whatever the format really moves.\n\
\n\
-formats is a comma-separated list of FORMAT[:KEY=V1/V2/...]... items; lists expand to every\n\
combination. FORMAT: aij (the CPU reference, no conversion), aijcusparse, sellcuda, modsell, or any\n\
other MatType. Keys of modsell: sh (slice height), kernel (modsell|sell), ordering (natural|rcm|bricks|partition|...),\n\
layout (auto|scalar|blocks|cusparse: -mat_modsell_layout; blocks needs a matrix with a block size, e.g. a PETSc binary\n\
file with its .info file giving -matload_block_size),\n\
chunk (rows per bucket of the permuted product on the GPU, 0: separate gathers; -mat_modsell_permute_chunk),\n\
lanes (threads per row of the GPU product, 0: automatic; -mat_modsell_row_lanes);\n\
of sellcuda: sh (-mat_sell_slice_height). Example:\n\
  -formats aij,aijcusparse,sellcuda,modsell:sh=32/128/512:kernel=modsell/sell:ordering=natural/rcm\n\
Formats that need CUDA are skipped (with a message) when PETSc has no CUDA.\n\n";

/*
   Timing: by default the clock (PetscTime) is read around a loop of -reps products, after a device
   synchronization at both ends (cudaDeviceSynchronize() for device formats, and an MPI barrier), so
   the time per product includes launch overheads as an application sees them. With -flush each
   product is preceded by a VecDot of two -flush_n vectors (of the format's vector type) to evict the
   caches, as in Wikberg (2024), section 3.3; the product alone is then timed with CUDA events (device
   formats) or PetscTime (host formats). The time reported is the median over -samples loops (the
   minimum is reported too); -budget caps the time spent timing one format by lowering -reps.

   The "copy bandwidth" is measured in the same run, timed the same way: VecCopy of two -copy_n
   vectors of the device (and/or host) vector type, counting 16 bytes per entry (read + write).
*/

#include <petscmodsell.h>
#include <petsctime.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif
#include <string.h>
#include <time.h>
#include "../examples/problems/mmread.h"

#define MAX_VARIANTS 1024
#define MAX_SAMPLES  1000
#define MS_NORDERINGS 8 /* at most this many orderings in one ordering= list */

typedef enum {
  FMT_AIJ,
  FMT_AIJCUSPARSE,
  FMT_SELLCUDA,
  FMT_MODSELL,
  FMT_OTHER
} FormatKind;

typedef struct {
  char       format[64]; /* as written in -formats */
  FormatKind kind;
  PetscInt   sh;       /* slice height; -1: the type's default */
  PetscInt   kernel;   /* MatModSELLKernel; -1: default */
  PetscInt   ordering; /* MatModSELLOrdering; -1: default */
  PetscInt   chunk;    /* permute chunk; -1: default (not named in the variant's label) */
  PetscInt   lanes;    /* threads per row; -1: default (not named in the variant's label) */
  PetscInt   layout;   /* MatModSELLLayout; -1: default (not named in the variant's label) */
  char       variant[128];
  /* results */
  PetscBool      ran, device, wrong, hasinfo;
  char           skipped[256];
  char           vectype[64];
  PetscInt       reps;
  PetscReal      convert_ms, setup_ms, med_ms, min_ms, gpulog_ms, relerr, padding, local;
  MatModSELLInfo info;
} Variant;

typedef enum {
  PROBLEM_LAP7,
  PROBLEM_LAP27,
  PROBLEM_FILE
} Problem;
static const char *const Problems[] = {"lap7", "lap27", "file", "Problem", "PROBLEM_", NULL};

typedef enum {
  PERMUTE_NONE,
  PERMUTE_RCM,
  PERMUTE_RANDOM
} Permute;
static const char *const Permutes[] = {"none", "rcm", "random", "Permute", "PERMUTE_", NULL};

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt size, rank;
  PetscInt    reps, samples, warmup, flush_n, copy_n;
  PetscReal   budget, tol;
  PetscBool   timings, flush, gpulog, fresh;
  PetscLogEvent ev_mult;
  Vec         x0, yref; /* host reference input and aij product */
  PetscReal   scale;    /* ||A||_inf ||x0||_inf: the size of y's rounding errors */
  PetscReal   copy_host, copy_device; /* GB/s, 0 when not measured */
  PetscInt    ms_sh0, ms_k0, ms_o0, ms_c0, ms_l0, ms_lay0; /* settings of a freshly converted MATMODSELL: what an unset key means */
  PetscBool   ms_sh_opt;                   /* ms_sh0 came from -mat_modsell_slice_height (else: the automatic default) */
} Ctx;

/* ------------------------------------------------------------------------------------------------ */
/* Device synchronization and the clock                                                              */

static PetscErrorCode Sync(Ctx *ctx, PetscBool device)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (device) PetscCallCUDA(cudaDeviceSynchronize());
#else
  (void)device;
#endif
  if (ctx->size > 1) PetscCallMPI(MPI_Barrier(ctx->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the slowest process's elapsed time */
static PetscErrorCode MaxTime(Ctx *ctx, PetscLogDouble t, PetscReal *tmax)
{
  PetscReal tl = (PetscReal)t;

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(&tl, tmax, 1, MPIU_REAL, MPIU_MAX, ctx->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareReal(const void *a, const void *b)
{
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

static PetscReal Median(PetscInt n, const PetscReal *t)
{
  PetscReal s[MAX_SAMPLES];

  if (n <= 0) return 0.0;
  for (PetscInt i = 0; i < n; i++) s[i] = t[i];
  qsort(s, (size_t)n, sizeof(PetscReal), CompareReal);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static PetscBool VecTypeIsDevice(const char *vt)
{
  return (PetscBool)(strstr(vt, "cuda") || strstr(vt, "hip") || strstr(vt, "kokkos"));
}

/* ------------------------------------------------------------------------------------------------ */
/* Matrices                                                                                          */

/* Create an AIJ matrix from the local rows' CSR (global column indices, sorted in each row); the arrays are copied */
static PetscErrorCode MatCreateFromLocalCSR(MPI_Comm comm, PetscInt mloc, PetscInt M, PetscInt N, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, Mat *A)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) { /* wrap the arrays and copy them: much faster than inserting the rows one by one */
    Mat W;
    PetscCall(MatCreateSeqAIJWithArrays(comm, M, N, (PetscInt *)ia, (PetscInt *)ja, (PetscScalar *)a, &W));
    PetscCall(MatDuplicate(W, MAT_COPY_VALUES, A));
    PetscCall(MatDestroy(&W));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, mloc, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia, ja, a));
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ia, ja, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 3D Laplacian on an n^3 grid with homogeneous Dirichlet boundary conditions (boundary eliminated):
   7-point (6 on the diagonal, -1 to the face neighbours) or 27-point (26, -1 to all 26 neighbours),
   natural (lexicographic, x fastest) ordering, rows distributed in contiguous blocks. With dof > 1 the
   system of dof coupled fields, L (x) B with B = I + 0.1 (ones - I): dof * points nonzeros per row (e.g. 81 for
   27 points and 3 fields, the pattern of trilinear elasticity), the fields of a grid point numbered together */
static PetscErrorCode GenerateLaplacian(MPI_Comm comm, PetscInt n, PetscInt points, PetscInt dof, PetscBool blocks, Mat *A)
{
  const PetscInt64 N64 = (PetscInt64)n * n * n * dof;
  PetscInt         N, mloc, rstart = 0, *ia, *ja, nz = 0;
  PetscScalar     *a;

  PetscFunctionBegin;
  PetscCheck(n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be positive, not %" PetscInt_FMT, n);
  PetscCheck(dof >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dof must be positive, not %" PetscInt_FMT, dof);
  PetscCheck(N64 * points * dof < PETSC_INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "A %" PetscInt_FMT "^3 grid with a %" PetscInt_FMT "-point stencil and %" PetscInt_FMT " fields has too many nonzeros for this PETSc's %d-bit PetscInt", n, points, dof, (int)(8 * sizeof(PetscInt)));
  N    = (PetscInt)N64;
  mloc = PETSC_DECIDE;
  PetscCall(PetscSplitOwnership(comm, &mloc, &N));
  PetscCallMPI(MPI_Exscan(&mloc, &rstart, 1, MPIU_INT, MPI_SUM, comm));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (!rank) rstart = 0;
  }
  PetscCall(PetscMalloc1(mloc + 1, &ia));
  PetscCall(PetscMalloc1((size_t)mloc * points * dof, &ja));
  PetscCall(PetscMalloc1((size_t)mloc * points * dof, &a));
  ia[0] = 0;
  for (PetscInt r = 0; r < mloc; r++) {
    const PetscInt row = (rstart + r) / dof, f = (rstart + r) % dof, i = row % n, j = (row / n) % n, k = row / ((PetscInt64)n * n);
    for (PetscInt dk = -1; dk <= 1; dk++) {
      for (PetscInt dj = -1; dj <= 1; dj++) {
        for (PetscInt di = -1; di <= 1; di++) {
          const PetscInt nb = (di != 0) + (dj != 0) + (dk != 0);
          if (points == 7 && nb > 1) continue;
          if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || k + dk < 0 || k + dk >= n) continue;
          for (PetscInt g = 0; g < dof; g++) {
            ja[nz]  = (row + di + dj * n + dk * n * n) * dof + g;
            a[nz++] = (nb ? -1.0 : (points == 7 ? 6.0 : 26.0)) * (g == f ? 1.0 : 0.1);
          }
        }
      }
    }
    ia[r + 1] = nz;
  }
  if (blocks && dof > 1) { /* the fields of a point as a dof x dof block: the matrix's block size */
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetSizes(*A, mloc, mloc, N, N));
    PetscCall(MatSetBlockSize(*A, dof));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia, ja, a));
    PetscCall(MatMPIAIJSetPreallocationCSR(*A, ia, ja, a));
  } else PetscCall(MatCreateFromLocalCSR(comm, mloc, N, N, ia, ja, a, A));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MatrixMarket file: read on rank 0, sent to the owners of the rows */
static PetscErrorCode LoadMatrixMarket(MPI_Comm comm, const char *file, Mat *A)
{
  PetscMPIInt rank, size;
  MMCSR       c;
  PetscInt    MN[2];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMemzero(&c, sizeof(c)));
  if (!rank) {
    PetscCall(MMReadCSR(file, &c));
    MN[0] = c.m;
    MN[1] = c.n;
  }
  PetscCallMPI(MPI_Bcast(MN, 2, MPIU_INT, 0, comm));
  if (size == 1) {
    PetscCall(MatCreateFromLocalCSR(comm, MN[0], MN[0], MN[1], c.ia, c.ja, c.a, A));
  } else {
    PetscLayout  rmap, cmap;
    PetscInt     mloc, *dnnz, *onnz, *dall = NULL, *oall = NULL;
    PetscMPIInt *counts = NULL, *displs = NULL;
    const PetscInt *rr, *cr;

    PetscCall(PetscLayoutCreateFromSizes(comm, PETSC_DECIDE, MN[0], 1, &rmap));
    PetscCall(PetscLayoutCreateFromSizes(comm, PETSC_DECIDE, MN[1], 1, &cmap));
    PetscCall(PetscLayoutGetRanges(rmap, &rr));
    PetscCall(PetscLayoutGetRanges(cmap, &cr));
    mloc = rr[rank + 1] - rr[rank];
    PetscCall(PetscMalloc2(mloc, &dnnz, mloc, &onnz));
    if (!rank) {
      PetscCall(PetscMalloc4(MN[0], &dall, MN[0], &oall, size, &counts, size, &displs));
      for (PetscMPIInt p = 0; p < size; p++) {
        PetscCall(PetscMPIIntCast(rr[p + 1] - rr[p], &counts[p]));
        PetscCall(PetscMPIIntCast(rr[p], &displs[p]));
        for (PetscInt i = rr[p]; i < rr[p + 1]; i++) {
          dall[i] = oall[i] = 0;
          for (PetscInt e = c.ia[i]; e < c.ia[i + 1]; e++) {
            if (c.ja[e] >= cr[p] && c.ja[e] < cr[p + 1]) dall[i]++;
            else oall[i]++;
          }
        }
      }
    }
    PetscCallMPI(MPI_Scatterv(dall, counts, displs, MPIU_INT, dnnz, (PetscMPIInt)mloc, MPIU_INT, 0, comm));
    PetscCallMPI(MPI_Scatterv(oall, counts, displs, MPIU_INT, onnz, (PetscMPIInt)mloc, MPIU_INT, 0, comm));
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetSizes(*A, mloc, cr[rank + 1] - cr[rank], MN[0], MN[1]));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnnz, 0, onnz));
    if (!rank)
      for (PetscInt i = 0; i < MN[0]; i++) PetscCall(MatSetValues(*A, 1, &i, c.ia[i + 1] - c.ia[i], c.ja + c.ia[i], c.a + c.ia[i], INSERT_VALUES));
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    if (!rank) PetscCall(PetscFree4(dall, oall, counts, displs));
    PetscCall(PetscFree2(dnnz, onnz));
    PetscCall(PetscLayoutDestroy(&rmap));
    PetscCall(PetscLayoutDestroy(&cmap));
  }
  PetscCall(MMFreeCSR(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A PETSc binary file (MatLoad: the first object, e.g. A of a file holding A and b) or a MatrixMarket file */
static PetscErrorCode LoadMatrix(MPI_Comm comm, const char *file, Mat *A)
{
  PetscMPIInt rank;
  PetscInt    ismm = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) { /* a MatrixMarket file starts with %%MatrixMarket (any case) */
    FILE *fp = fopen(file, "r");
    char  head[16] = {0};
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open matrix file %s: %s", file, strerror(errno));
    if (fread(head, 1, 14, fp) == 14) {
      PetscBool flg;
      PetscCall(PetscStrncmp(head, "%%", 2, &flg));
      if (flg) {
        for (int i = 0; i < 14; i++) head[i] = (char)tolower((unsigned char)head[i]);
        PetscCall(PetscStrncmp(head, "%%matrixmarket", 14, &flg));
        ismm = flg ? 1 : 0;
      }
    }
    (void)fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(&ismm, 1, MPIU_INT, 0, comm));
  if (ismm) PetscCall(LoadMatrixMarket(comm, file, A));
  else {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatLoad(*A, v));
    PetscCall(PetscViewerDestroy(&v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* xorshift64*: the same random permutation on every machine for a given seed */
static PetscInt64 RandomNext(PetscInt64 *s)
{
  unsigned long long x = (unsigned long long)*s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = (PetscInt64)x;
  return (PetscInt64)((x * 2685821657736338717ULL) >> 1);
}

/* Reorder the stored matrix symmetrically (rows and columns): RCM (PETSc's MatGetOrdering) or random */
static PetscErrorCode PermuteMatrix(Mat *A, Permute p, PetscInt64 seed)
{
  IS       rp = NULL, cp = NULL;
  Mat      B;
  PetscInt m, n;

  PetscFunctionBegin;
  if (p == PERMUTE_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetSize(*A, &m, &n));
  PetscCheck(m == n, PetscObjectComm((PetscObject)*A), PETSC_ERR_SUP, "-permute needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)*A), &size));
    PetscCheck(size == 1, PetscObjectComm((PetscObject)*A), PETSC_ERR_SUP, "-permute %s runs on one process only; permute the matrix file beforehand for parallel runs", Permutes[p]);
  }
  if (p == PERMUTE_RCM) {
    PetscCall(MatGetOrdering(*A, MATORDERINGRCM, &rp, &cp));
  } else {
    PetscInt  *perm;
    PetscInt64 s = seed ? seed : 1;
    PetscCall(PetscMalloc1(m, &perm));
    for (PetscInt i = 0; i < m; i++) perm[i] = i;
    for (PetscInt i = m - 1; i > 0; i--) { /* Fisher-Yates */
      const PetscInt j = (PetscInt)(RandomNext(&s) % (i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m, perm, PETSC_OWN_POINTER, &rp));
    PetscCall(ISSetPermutation(rp));
    PetscCall(PetscObjectReference((PetscObject)rp));
    cp = rp;
  }
  PetscCall(MatPermute(*A, rp, cp, &B));
  PetscCall(ISDestroy(&rp));
  PetscCall(ISDestroy(&cp));
  PetscCall(MatDestroy(A));
  *A = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Structure statistics: longest row and the matrix bandwidth max |i - j| */
static PetscErrorCode MatrixStats(Mat A, PetscInt *maxrow, PetscInt *bw)
{
  PetscInt rstart, rend, mr = 0, b = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  {
    PetscBool       seq, done = PETSC_FALSE;
    PetscInt        m;
    const PetscInt *ia, *ja;
    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seq));
    if (seq) PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
    if (done) {
      for (PetscInt i = 0; i < m; i++) {
        mr = PetscMax(mr, ia[i + 1] - ia[i]);
        for (PetscInt e = ia[i]; e < ia[i + 1]; e++) b = PetscMax(b, PetscAbsInt(ja[e] - i));
      }
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
      rend = rstart; /* done */
    }
  }
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(A, i, &nc, &cols, NULL));
    mr = PetscMax(mr, nc);
    for (PetscInt e = 0; e < nc; e++) b = PetscMax(b, PetscAbsInt(cols[e] - i));
    PetscCall(MatRestoreRow(A, i, &nc, &cols, NULL));
  }
  PetscCallMPI(MPIU_Allreduce(&mr, maxrow, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCallMPI(MPIU_Allreduce(&b, bw, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* -formats                                                                                          */

static PetscErrorCode AddVariant(MPI_Comm comm, Variant *v, PetscInt *nv, const Variant *proto)
{
  PetscFunctionBegin;
  PetscCheck(*nv < MAX_VARIANTS, comm, PETSC_ERR_ARG_OUTOFRANGE, "-formats expands to more than %d variants", MAX_VARIANTS);
  v[*nv] = *proto;
  (*nv)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Split s at separator c into at most max pieces (modifies s) */
static PetscInt SplitString(char *s, char c, char **piece, PetscInt max)
{
  PetscInt n = 0;
  char    *p = s;

  while (n < max) {
    char *q = strchr(p, c);
    piece[n++] = p;
    if (!q) break;
    *q = 0;
    p  = q + 1;
  }
  return n;
}

static PetscErrorCode TrimString(char **s)
{
  size_t len;

  PetscFunctionBegin;
  while (**s && isspace((unsigned char)**s)) (*s)++;
  PetscCall(PetscStrlen(*s, &len));
  while (len > 0 && isspace((unsigned char)(*s)[len - 1])) (*s)[--len] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ParseFormats(MPI_Comm comm, const char *spec, Variant *v, PetscInt *nv)
{
  char    *buf, *items[MAX_VARIANTS];
  PetscInt nitems;

  PetscFunctionBegin;
  *nv = 0;
  PetscCall(PetscStrallocpy(spec, &buf));
  nitems = SplitString(buf, ',', items, MAX_VARIANTS);
  for (PetscInt it = 0; it < nitems; it++) {
    char     *parts[8], *item = items[it];
    PetscInt  nparts, shs[32], nsh = 1, kers[2], nker = 1, ords[MS_NORDERINGS], nord = 1, chunks[32], nchunk = 1, lns[32], nln = 1, lays[4], nlay = 1;
    Variant   proto;
    PetscBool flg;

    PetscCall(TrimString(&item));
    if (!item[0]) continue;
    PetscCall(PetscStrcmp(item, "none", &flg));
    if (flg) continue;
    PetscCall(PetscMemzero(&proto, sizeof(proto)));
    shs[0] = kers[0] = ords[0] = chunks[0] = lns[0] = lays[0] = -1;
    nparts                     = SplitString(item, ':', parts, 8);
    PetscCall(TrimString(&parts[0]));
    PetscCall(PetscStrncpy(proto.format, parts[0], sizeof(proto.format)));
    proto.kind = FMT_OTHER;
    {
      const char      *names[] = {"aij", "aijcusparse", "sellcuda", "modsell"};
      const FormatKind kinds[] = {FMT_AIJ, FMT_AIJCUSPARSE, FMT_SELLCUDA, FMT_MODSELL};
      for (int k = 0; k < 4; k++) {
        PetscCall(PetscStrcmp(proto.format, names[k], &flg));
        if (flg) proto.kind = kinds[k];
      }
    }
    for (PetscInt p = 1; p < nparts; p++) {
      char    *kv[2], *vals[32];
      PetscInt nkv, nvals;

      PetscCall(TrimString(&parts[p]));
      nkv = SplitString(parts[p], '=', kv, 2);
      PetscCheck(nkv == 2 && kv[1][0], comm, PETSC_ERR_ARG_WRONG, "-formats: \"%s\" in the item for %s is not KEY=VALUE[/VALUE...]", parts[p], proto.format);
      nvals = SplitString(kv[1], '/', vals, 32);
      PetscCall(PetscStrcmp(kv[0], "sh", &flg));
      if (flg) {
        PetscCheck(proto.kind == FMT_MODSELL || proto.kind == FMT_SELLCUDA, comm, PETSC_ERR_ARG_WRONG, "-formats: %s takes no slice height (sh=) key", proto.format);
        for (PetscInt i = 0; i < nvals; i++) {
          char *end;
          shs[i] = (PetscInt)strtol(vals[i], &end, 10);
          PetscCheck(end != vals[i] && !*end && shs[i] > 0, comm, PETSC_ERR_ARG_WRONG, "-formats: slice height \"%s\" for %s is not a positive integer", vals[i], proto.format);
        }
        nsh = nvals;
        continue;
      }
      PetscCall(PetscStrcmp(kv[0], "kernel", &flg));
      if (flg) {
        PetscCheck(proto.kind == FMT_MODSELL, comm, PETSC_ERR_ARG_WRONG, "-formats: only modsell takes kernel=");
        PetscCheck(nvals <= 2, comm, PETSC_ERR_ARG_WRONG, "-formats: at most two kernels (modsell/sell)");
        for (PetscInt i = 0; i < nvals; i++) {
          PetscInt k = -1;
          for (PetscInt j = 0; j < 2; j++) {
            PetscCall(PetscStrcmp(vals[i], MatModSELLKernels[j], &flg));
            if (flg) k = j;
          }
          PetscCheck(k >= 0, comm, PETSC_ERR_ARG_WRONG, "-formats: unknown modsell kernel \"%s\": modsell or sell", vals[i]);
          kers[i] = k;
        }
        nker = nvals;
        continue;
      }
      PetscCall(PetscStrcmp(kv[0], "ordering", &flg));
      if (flg) {
        PetscCheck(proto.kind == FMT_MODSELL, comm, PETSC_ERR_ARG_WRONG, "-formats: only modsell takes ordering=");
        PetscCheck(nvals <= MS_NORDERINGS, comm, PETSC_ERR_ARG_WRONG, "-formats: at most %d orderings", MS_NORDERINGS);
        for (PetscInt i = 0; i < nvals; i++) {
          PetscInt o = -1;
          for (PetscInt j = 0; MatModSELLOrderings[j + 2]; j++) { /* the names, then the enum name, prefix, NULL */
            PetscCall(PetscStrcmp(vals[i], MatModSELLOrderings[j], &flg));
            if (flg) o = j;
          }
          PetscCheck(o >= 0, comm, PETSC_ERR_ARG_WRONG, "-formats: unknown modsell ordering \"%s\": one of -mat_modsell_ordering's values", vals[i]);
          ords[i] = o;
        }
        nord = nvals;
        continue;
      }
      PetscCall(PetscStrcmp(kv[0], "chunk", &flg));
      if (flg) {
        PetscCheck(proto.kind == FMT_MODSELL, comm, PETSC_ERR_ARG_WRONG, "-formats: only modsell takes chunk=");
        for (PetscInt i = 0; i < nvals; i++) {
          char *end;
          chunks[i] = (PetscInt)strtol(vals[i], &end, 10);
          PetscCheck(end != vals[i] && !*end && chunks[i] >= 0, comm, PETSC_ERR_ARG_WRONG, "-formats: chunk \"%s\" for %s is not a nonnegative integer", vals[i], proto.format);
        }
        nchunk = nvals;
        continue;
      }
      PetscCall(PetscStrcmp(kv[0], "lanes", &flg));
      if (flg) {
        PetscCheck(proto.kind == FMT_MODSELL, comm, PETSC_ERR_ARG_WRONG, "-formats: only modsell takes lanes=");
        for (PetscInt i = 0; i < nvals; i++) {
          char *end;
          lns[i] = (PetscInt)strtol(vals[i], &end, 10);
          PetscCheck(end != vals[i] && !*end && lns[i] >= 0, comm, PETSC_ERR_ARG_WRONG, "-formats: lanes \"%s\" for %s is not a nonnegative integer", vals[i], proto.format);
        }
        nln = nvals;
        continue;
      }
      PetscCall(PetscStrcmp(kv[0], "layout", &flg));
      if (flg) {
        PetscCheck(proto.kind == FMT_MODSELL, comm, PETSC_ERR_ARG_WRONG, "-formats: only modsell takes layout=");
        PetscCheck(nvals <= 4, comm, PETSC_ERR_ARG_WRONG, "-formats: at most 4 layouts");
        for (PetscInt i = 0; i < nvals; i++) {
          PetscInt l = -1;
          for (PetscInt j = 0; j < 4; j++) {
            PetscCall(PetscStrcmp(vals[i], MatModSELLLayouts[j], &flg));
            if (flg) l = j;
          }
          PetscCheck(l >= 0, comm, PETSC_ERR_ARG_WRONG, "-formats: unknown modsell layout \"%s\": auto, scalar, blocks or cusparse", vals[i]);
          lays[i] = l;
        }
        nlay = nvals;
        continue;
      }
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "-formats: unknown key \"%s\" for %s (modsell: sh, kernel, ordering, chunk, lanes, layout; sellcuda: sh)", kv[0], proto.format);
    }
    for (PetscInt io = 0; io < nord; io++) {
      for (PetscInt ik = 0; ik < nker; ik++) {
        for (PetscInt is = 0; is < nsh; is++) {
          for (PetscInt ic = 0; ic < nchunk; ic++) {
            for (PetscInt il = 0; il < nln * nlay; il++) {
              proto.sh       = shs[is];
              proto.kernel   = kers[ik];
              proto.ordering = ords[io];
              proto.chunk    = chunks[ic];
              proto.lanes    = lns[il % nln];
              proto.layout   = lays[il / nln];
              PetscCall(AddVariant(comm, v, nv, &proto));
            }
          }
        }
      }
    }
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Measurements                                                                                      */

static PetscErrorCode CheckResult(Ctx *ctx, Vec y, PetscReal *relerr)
{
  const PetscScalar *ya, *ra;
  PetscInt           n;
  PetscReal          e = 0.0, eg;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayRead(ctx->yref, &ra));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal d = PetscAbsScalar(ya[i] - ra[i]);
    if (!(d <= e)) e = PetscIsNanReal(d) ? PETSC_INFINITY : d;
  }
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(ctx->yref, &ra));
  PetscCallMPI(MPIU_Allreduce(&e, &eg, 1, MPIU_REAL, MPIU_MAX, ctx->comm));
  *relerr = eg / (ctx->scale > 0 ? ctx->scale : 1.0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Time a repeated operation: median and minimum time (s) of one call over ctx->samples loops of reps calls.
   op(arg, i) does call i; flush (when given) runs before every call and is not timed. */
typedef PetscErrorCode (*TimedOp)(void *);

typedef struct {
  Mat B;
  Vec x, y, f1, f2;
} MultArgs;

static PetscErrorCode OpMult(void *p)
{
  MultArgs *a = (MultArgs *)p;

  PetscFunctionBegin;
  PetscCall(MatMult(a->B, a->x, a->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpCopy(void *p)
{
  MultArgs *a = (MultArgs *)p;

  PetscFunctionBegin;
  PetscCall(VecCopy(a->x, a->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeOp(Ctx *ctx, TimedOp op, void *arg, PetscBool device, PetscBool flush, Vec f1, Vec f2, PetscInt reps, PetscReal *med, PetscReal *min)
{
  PetscReal t[MAX_SAMPLES];

  PetscFunctionBegin;
  for (PetscInt s = 0; s < ctx->samples; s++) {
    PetscLogDouble t0, t1, acc = 0.0;

    if (!flush) {
      PetscCall(Sync(ctx, device));
      PetscCall(PetscTime(&t0));
      for (PetscInt r = 0; r < reps; r++) PetscCall((*op)(arg));
      PetscCall(Sync(ctx, device));
      PetscCall(PetscTime(&t1));
      acc = t1 - t0;
    } else {
#if defined(PETSC_HAVE_CUDA)
      cudaEvent_t e0 = NULL, e1 = NULL;
      if (device) {
        PetscCallCUDA(cudaEventCreate(&e0));
        PetscCallCUDA(cudaEventCreate(&e1));
      }
#endif
      for (PetscInt r = 0; r < reps; r++) {
        PetscScalar dot;
        PetscCall(VecDot(f1, f2, &dot)); /* returns to the host: the device is idle afterwards */
        PetscCall(Sync(ctx, device));
#if defined(PETSC_HAVE_CUDA)
        if (device) {
          cudaStream_t st;
          float        ms;
          PetscCall(PetscGetCurrentCUDAStream(&st));
          PetscCallCUDA(cudaEventRecord(e0, st));
          PetscCall((*op)(arg));
          PetscCallCUDA(cudaEventRecord(e1, st));
          PetscCallCUDA(cudaEventSynchronize(e1));
          PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
          acc += 1e-3 * ms;
          continue;
        }
#endif
        PetscCall(PetscTime(&t0));
        PetscCall((*op)(arg));
        PetscCall(PetscTime(&t1));
        acc += t1 - t0;
      }
#if defined(PETSC_HAVE_CUDA)
      if (device) {
        PetscCallCUDA(cudaEventDestroy(e0));
        PetscCallCUDA(cudaEventDestroy(e1));
      }
#endif
    }
    PetscCall(MaxTime(ctx, acc / reps, &t[s]));
  }
  *med = Median(ctx->samples, t);
  *min = t[0];
  for (PetscInt s = 1; s < ctx->samples; s++) *min = PetscMin(*min, t[s]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Flush vectors: two -flush_n vectors of the given vector type */
static PetscErrorCode CreateFlushVecs(Ctx *ctx, VecType vt, Vec *f1, Vec *f2)
{
  PetscFunctionBegin;
  *f1 = *f2 = NULL;
  if (!ctx->flush) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecCreate(ctx->comm, f1));
  PetscCall(VecSetSizes(*f1, ctx->flush_n, PETSC_DETERMINE));
  PetscCall(VecSetType(*f1, vt));
  PetscCall(VecDuplicate(*f1, f2));
  PetscCall(VecSet(*f1, 1.0));
  PetscCall(VecSet(*f2, 0.5));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copy bandwidth (GB/s): VecCopy of -copy_n entries per process, 16 bytes per entry (read + write) */
static PetscErrorCode MeasureCopy(Ctx *ctx, PetscBool device, PetscReal *gbps)
{
  MultArgs  a;
  VecType   vt = VECSTANDARD;
  PetscReal med, min;

  PetscFunctionBegin;
  *gbps = 0.0;
#if defined(PETSC_HAVE_CUDA)
  if (device) vt = VECCUDA;
#else
  if (device) PetscFunctionReturn(PETSC_SUCCESS);
#endif
  PetscCall(PetscMemzero(&a, sizeof(a)));
  PetscCall(VecCreate(ctx->comm, &a.x));
  PetscCall(VecSetSizes(a.x, ctx->copy_n, PETSC_DETERMINE));
  PetscCall(VecSetType(a.x, vt));
  PetscCall(VecDuplicate(a.x, &a.y));
  PetscCall(VecSet(a.x, 1.0));
  PetscCall(VecSet(a.y, 0.0));
  PetscCall(CreateFlushVecs(ctx, vt, &a.f1, &a.f2));
  {
    PetscLogDouble t0, t1;
    PetscReal      est;
    PetscInt       reps = ctx->reps, nw = PetscMax(ctx->warmup, 1);

    PetscCall(Sync(ctx, device));
    PetscCall(PetscTime(&t0));
    for (PetscInt w = 0; w < nw; w++) PetscCall(OpCopy(&a));
    PetscCall(Sync(ctx, device));
    PetscCall(PetscTime(&t1));
    PetscCall(MaxTime(ctx, (t1 - t0) / nw, &est));
    if (ctx->budget > 0 && est > 0) reps = PetscMax(3, PetscMin(ctx->reps, (PetscInt)(ctx->budget / (ctx->samples * est))));
    PetscCall(TimeOp(ctx, OpCopy, &a, device, ctx->flush, a.f1, a.f2, reps, &med, &min));
  }
  {
    PetscInt N;
    PetscCall(VecGetSize(a.x, &N));
    *gbps = 16.0 * (PetscReal)N / med * 1e-9;
  }
  PetscCall(VecDestroy(&a.x));
  PetscCall(VecDestroy(&a.y));
  PetscCall(VecDestroy(&a.f1));
  PetscCall(VecDestroy(&a.f2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fill x (any vector type) with the reference input */
static PetscErrorCode SetInput(Ctx *ctx, Vec x)
{
  PetscScalar       *xa;
  const PetscScalar *x0;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayWrite(x, &xa));
  PetscCall(VecGetArrayRead(ctx->x0, &x0));
  PetscCall(PetscArraycpy(xa, x0, n));
  PetscCall(VecRestoreArrayRead(ctx->x0, &x0));
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GpuLogTime(Ctx *ctx, PetscLogDouble *gt, PetscInt *count)
{
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  *gt    = 0.0;
  *count = 0;
  if (!ctx->gpulog) PetscFunctionReturn(PETSC_SUCCESS);
#if PetscDefined(HAVE_DEVICE)
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ctx->ev_mult, &info));
  *gt    = info.GpuTime;
  *count = info.count;
#else
  (void)info;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Convert A to the variant's format (or reuse the MATMODSELL copy *ms), check and time it */
static PetscErrorCode RunVariant(Ctx *ctx, Mat A, Variant *v, Mat *ms)
{
  Mat            B = NULL;
  MultArgs       args;
  PetscLogDouble t0, t1;
  PetscReal      tmax, err2;
  VecType        vt;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&args, sizeof(args)));
  v->relerr = 0.0;
  if ((v->kind == FMT_AIJCUSPARSE || v->kind == FMT_SELLCUDA) && !PetscDefined(HAVE_CUDA)) {
    PetscCall(PetscStrncpy(v->skipped, "PETSc was configured without CUDA", sizeof(v->skipped)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* conversion */
  PetscCall(Sync(ctx, PETSC_TRUE));
  PetscCall(PetscTime(&t0));
  switch (v->kind) {
  case FMT_AIJ:
    PetscCall(PetscObjectReference((PetscObject)A));
    B = A;
    break;
  case FMT_AIJCUSPARSE:
    PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
    break;
  case FMT_SELLCUDA: {
    char      sh[32], prev[32];
    PetscBool had = PETSC_FALSE;
    if (v->sh > 0) { /* PETSc's SELL reads its slice height from the options database when created */
      PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_sell_slice_height", prev, sizeof(prev), &had));
      PetscCall(PetscSNPrintf(sh, sizeof(sh), "%" PetscInt_FMT, v->sh));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_sell_slice_height", sh));
    }
    PetscCall(MatConvert(A, MATSELL, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatConvert(B, MATSELLCUDA, MAT_INPLACE_MATRIX, &B));
    if (v->sh > 0) {
      if (had) PetscCall(PetscOptionsSetValue(NULL, "-mat_sell_slice_height", prev));
      else PetscCall(PetscOptionsClearValue(NULL, "-mat_sell_slice_height"));
    }
  } break;
  case FMT_MODSELL:
    if (!*ms || ctx->fresh) {
      PetscCall(MatDestroy(ms));
      /* the concrete type name finds MatConvert_seqaij_seqaijmodsell_C (the root name "modsell" would not) */
      PetscCall(MatConvert(A, ctx->size == 1 ? MATSEQAIJMODSELL : MATMPIAIJMODSELL, MAT_INITIAL_MATRIX, ms));
      {
        MatModSELLKernel   k;
        MatModSELLOrdering o;
        PetscCall(MatModSELLGetSliceHeight(*ms, &ctx->ms_sh0));
        PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_modsell_slice_height", &ctx->ms_sh_opt));
        PetscCall(MatModSELLGetKernel(*ms, &k));
        PetscCall(MatModSELLGetOrdering(*ms, &o));
        ctx->ms_k0 = k;
        ctx->ms_o0 = o;
        PetscCall(MatModSELLGetPermuteChunk(*ms, &ctx->ms_c0));
        PetscCall(MatModSELLGetRowLanes(*ms, &ctx->ms_l0));
        {
          MatModSELLLayout l;
          PetscCall(MatModSELLGetLayout(*ms, &l));
          ctx->ms_lay0 = l;
        }
      }
    }
    B = *ms;
    PetscCall(PetscObjectReference((PetscObject)B));
    /* a key not given means the type's default (the matrix may be reused from another variant) */
    PetscCall(MatModSELLSetSliceHeight(B, v->sh > 0 ? v->sh : (ctx->ms_sh_opt ? ctx->ms_sh0 : PETSC_DECIDE)));
    PetscCall(MatModSELLSetKernel(B, (MatModSELLKernel)(v->kernel >= 0 ? v->kernel : ctx->ms_k0)));
    PetscCall(MatModSELLSetOrdering(B, (MatModSELLOrdering)(v->ordering >= 0 ? v->ordering : ctx->ms_o0)));
    PetscCall(MatModSELLSetPermuteChunk(B, v->chunk >= 0 ? v->chunk : ctx->ms_c0));
    PetscCall(MatModSELLSetRowLanes(B, v->lanes >= 0 ? v->lanes : ctx->ms_l0));
    PetscCall(MatModSELLSetLayout(B, (MatModSELLLayout)(v->layout >= 0 ? v->layout : ctx->ms_lay0)));
    break;
  case FMT_OTHER:
    PetscCall(MatConvert(A, v->format, MAT_INITIAL_MATRIX, &B));
    break;
  }
  PetscCall(Sync(ctx, PETSC_TRUE));
  PetscCall(PetscTime(&t1));
  PetscCall(MaxTime(ctx, t1 - t0, &tmax));
  v->convert_ms = 1e3 * tmax;

  /* the variant's label, with the settings the matrix really has */
  if (v->kind == FMT_MODSELL) {
    PetscInt           sh;
    MatModSELLKernel   k;
    MatModSELLOrdering o;
    PetscCall(MatModSELLGetSliceHeight(B, &sh));
    PetscCall(MatModSELLGetKernel(B, &k));
    PetscCall(MatModSELLGetOrdering(B, &o));
    v->sh       = sh;
    v->kernel   = k;
    v->ordering = o;
    PetscCall(PetscSNPrintf(v->variant, sizeof(v->variant), "sh=%" PetscInt_FMT ":kernel=%s:ordering=%s", sh, MatModSELLKernels[k], MatModSELLOrderings[o]));
    if (v->chunk >= 0) { /* named only when asked for */
      size_t len;
      PetscCall(MatModSELLGetPermuteChunk(B, &v->chunk));
      PetscCall(PetscStrlen(v->variant, &len));
      PetscCall(PetscSNPrintf(v->variant + len, sizeof(v->variant) - len, ":chunk=%" PetscInt_FMT, v->chunk));
    }
    if (v->lanes >= 0) { /* named only when asked for */
      size_t len;
      PetscCall(PetscStrlen(v->variant, &len));
      PetscCall(PetscSNPrintf(v->variant + len, sizeof(v->variant) - len, ":lanes=%" PetscInt_FMT, v->lanes));
    }
    if (v->layout >= 0) { /* named only when asked for */
      size_t len;
      PetscCall(PetscStrlen(v->variant, &len));
      PetscCall(PetscSNPrintf(v->variant + len, sizeof(v->variant) - len, ":layout=%s", MatModSELLLayouts[v->layout]));
    }
  } else if (v->kind == FMT_SELLCUDA) {
    if (v->sh > 0) PetscCall(PetscSNPrintf(v->variant, sizeof(v->variant), "sh=%" PetscInt_FMT, v->sh));
    else PetscCall(PetscStrncpy(v->variant, "sh=default", sizeof(v->variant)));
  } else PetscCall(PetscStrncpy(v->variant, "-", sizeof(v->variant)));

  PetscCall(MatCreateVecs(B, &args.x, &args.y));
  args.B = B;
  PetscCall(VecGetType(args.x, &vt));
  PetscCall(PetscStrncpy(v->vectype, vt, sizeof(v->vectype)));
  v->device = VecTypeIsDevice(vt);
  PetscCall(SetInput(ctx, args.x));
  PetscCall(CreateFlushVecs(ctx, vt, &args.f1, &args.f2));

  /* first product: builds what the format builds lazily (device copy, image); checked */
  PetscCall(VecSet(args.y, -777.0));
  PetscCall(Sync(ctx, v->device));
  PetscCall(PetscTime(&t0));
  PetscCall(MatMult(B, args.x, args.y));
  PetscCall(Sync(ctx, v->device));
  PetscCall(PetscTime(&t1));
  PetscCall(MaxTime(ctx, t1 - t0, &tmax));
  v->setup_ms = 1e3 * tmax;
  PetscCall(CheckResult(ctx, args.y, &v->relerr));
  if (v->kind == FMT_MODSELL) PetscCall(MatViewFromOptions(B, NULL, "-view_modsell")); /* e.g. the layout chosen and why */

  /* warm-up, which also estimates the time of a product for -budget */
  v->reps = ctx->reps;
  if (ctx->timings) {
    PetscReal est = tmax;
    if (ctx->warmup > 0) {
      PetscCall(Sync(ctx, v->device));
      PetscCall(PetscTime(&t0));
      for (PetscInt w = 0; w < ctx->warmup; w++) PetscCall(MatMult(B, args.x, args.y));
      PetscCall(Sync(ctx, v->device));
      PetscCall(PetscTime(&t1));
      PetscCall(MaxTime(ctx, (t1 - t0) / ctx->warmup, &est));
    }
    if (ctx->budget > 0 && est > 0) v->reps = PetscMax(3, PetscMin(ctx->reps, (PetscInt)(ctx->budget / (ctx->samples * est))));
    {
      PetscLogDouble g0, g1;
      PetscInt       c0, c1;
      PetscCall(GpuLogTime(ctx, &g0, &c0));
      PetscCall(TimeOp(ctx, OpMult, &args, v->device, ctx->flush, args.f1, args.f2, v->reps, &v->med_ms, &v->min_ms));
      PetscCall(GpuLogTime(ctx, &g1, &c1));
      v->med_ms *= 1e3;
      v->min_ms *= 1e3;
      v->gpulog_ms = (c1 > c0 && g1 > g0) ? 1e3 * (g1 - g0) / (c1 - c0) : 0.0;
      PetscCall(MaxTime(ctx, v->gpulog_ms, &v->gpulog_ms));
    }
  }
  /* check again, on a product that must overwrite y */
  PetscCall(VecSet(args.y, -777.0));
  PetscCall(MatMult(B, args.x, args.y));
  PetscCall(CheckResult(ctx, args.y, &err2));
  v->relerr = PetscMax(v->relerr, err2);
  if (PetscIsNanReal(err2)) v->relerr = PETSC_INFINITY;
  v->wrong = (PetscBool)!(v->relerr <= ctx->tol);

  /* format statistics */
  v->padding = v->local = -1.0;
  if (v->kind == FMT_MODSELL) {
    PetscCall(MatModSELLGetInfo(B, &v->info));
    v->hasinfo = PETSC_TRUE;
    if (v->info.slice_height != v->sh) { /* an automatic height the image changed (the partition ordering's) */
      char        rest[sizeof(v->variant)];
      const char *colon = strchr(v->variant, ':');
      PetscCall(PetscStrncpy(rest, colon ? colon : "", sizeof(rest)));
      PetscCall(PetscSNPrintf(v->variant, sizeof(v->variant), "sh=%" PetscInt_FMT "%s", v->info.slice_height, rest));
      v->sh = v->info.slice_height;
    }
    v->padding = v->info.padding_ratio;
    v->local   = v->info.local_fraction;
  } else if (v->kind == FMT_SELLCUDA && ctx->size == 1) {
    PetscErrorCode (*f)(Mat, PetscReal *) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSeqSELLGetFillRatio_C", &f));
    if (f) {
      PetscReal fill;
      PetscCall(MatSeqSELLGetFillRatio(B, &fill)); /* padded slots / all slots */
      if (fill < 1) v->padding = 1.0 / (1.0 - fill);
    }
  }
  v->ran = PETSC_TRUE;
  PetscCall(VecDestroy(&args.x));
  PetscCall(VecDestroy(&args.y));
  PetscCall(VecDestroy(&args.f1));
  PetscCall(VecDestroy(&args.f2));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* MatrixMarket self test (-test_mmread): round trips and malformed files                            */

static PetscErrorCode MMTryRead(const char *fname, const char *content, const char *what)
{
  FILE          *fp;
  MMCSR          c;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  fp = fopen(fname, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", fname);
  fputs(content, fp);
  (void)fclose(fp);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MMReadCSR(fname, &c);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text;
    const char *specific;
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-30s -> error: %s\n", what, specific));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-30s -> read %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros:", what, c.m, c.n, c.ia[c.m]));
    for (PetscInt i = 0; i < c.m; i++)
      for (PetscInt e = c.ia[i]; e < c.ia[i + 1]; e++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " (%" PetscInt_FMT ",%" PetscInt_FMT ")=%.2f", i, c.ja[e], (double)PetscRealPart(c.a[e])));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    PetscCall(MMFreeCSR(&c));
  }
  (void)remove(fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMatrixMarket(Mat A)
{
  const char *kinds[] = {"general", "symmetric", "pattern"};
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCheck(size == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "-test_mmread runs on one process");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatrixMarket round trips of the matrix:\n"));
  for (int k = 0; k < 3; k++) {
    Mat       B, P;
    PetscBool eq;
    char      fname[64];

    PetscCall(PetscSNPrintf(fname, sizeof(fname), "spmv_mmtest_%s.mtx", kinds[k]));
    PetscCall(MMWriteMat(A, fname, kinds[k]));
    PetscCall(LoadMatrix(PETSC_COMM_SELF, fname, &B));
    if (k < 2) PetscCall(MatEqual(A, B, &eq));
    else { /* pattern: compare with A's pattern, all values 1 */
      PetscScalar *a;
      MatInfo      info;
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &P));
      PetscCall(MatGetInfo(P, MAT_LOCAL, &info));
      PetscCall(MatSeqAIJGetArray(P, &a));
      for (PetscInt e = 0; e < (PetscInt)info.nz_used; e++) a[e] = 1.0;
      PetscCall(MatSeqAIJRestoreArray(P, &a));
      PetscCall(MatEqual(P, B, &eq));
      PetscCall(MatDestroy(&P));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-9s: %s\n", kinds[k], eq ? "read back equal" : "READ BACK DIFFERENT"));
    PetscCall(MatDestroy(&B));
    (void)remove(fname);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatrixMarket reader on small files:\n"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n% comment\n\n2 3 3\n1 1 1.5\n2 3 -2e0\n1 1 0.5\n", "general, duplicate summed"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n2 1 -1\n3 2 7\n", "integer symmetric"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%matrixmarket MATRIX Coordinate Pattern General\n2 2 2\n1 2\n2 1\n", "pattern, header in any case"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n", "skew-symmetric"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n2 2 3\r\n", "CRLF line ends"));
  {
    char   buf[2048];
    size_t k;
    PetscCall(PetscStrncpy(buf, "%%MatrixMarket matrix coordinate real general\n%", sizeof(buf)));
    PetscCall(PetscStrlen(buf, &k));
    for (int i = 0; i < 1000; i++) buf[k++] = 'x';
    buf[k] = 0;
    PetscCall(PetscStrlcat(buf, "\n1 1 1\n1 1 5", sizeof(buf)));
    PetscCall(MMTryRead("spmv_mm.mtx", buf, "long line, no final newline"));
  }
  PetscCall(MMTryRead("spmv_mm.mtx", "", "empty file"));
  PetscCall(MMTryRead("spmv_mm.mtx", "1 1 1\n1 1 1\n", "no header"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "dense array"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "complex field"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2\n", "short size line"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", "symmetric, not square"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 x 1\n", "non-numeric index"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2\n", "missing value"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0abc\n", "bad value"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", "integer field, real value"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.5\n", "pattern with a value"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n\n3 1 1\n", "row index out of range"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", "zero index"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n", "too few entries"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n", "too many entries"));
  PetscCall(MMTryRead("spmv_mm.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "skew-symmetric diagonal"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */

static void CsvName(char *s)
{
  for (; *s; s++)
    if (*s == ',' || *s == '"' || *s == '\n') *s = ';';
}

int main(int argc, char **argv)
{
  Ctx         ctx;
  Mat         A, ms = NULL;
  Problem     problem  = PROBLEM_LAP7;
  Permute     permute  = PERMUTE_NONE;
  PetscInt    n        = 32, dof = 1, nv = 0, maxrow, bw, M, N, seed = 42;
  PetscInt64  nnz;
  char        file[PETSC_MAX_PATH_LEN] = "", csv[PETSC_MAX_PATH_LEN] = "", name[256] = "", device[256] = "", date[64], version[128], writemtx[PETSC_MAX_PATH_LEN] = "";
  char        formats[4096] = "aij,aijcusparse,sellcuda,modsell";
  char        desc[512];
  PetscBool   flg, testmm = PETSC_FALSE, hostfmt = PETSC_FALSE, devfmt = PETSC_FALSE, dof_blocks = PETSC_FALSE;
  Variant    *v;
  PetscReal   bytes, t_cusparse = 0, t_sellcuda = 0;
  PetscInt    nwrong = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  ctx.comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(ctx.comm, &ctx.size));
  PetscCallMPI(MPI_Comm_rank(ctx.comm, &ctx.rank));
  ctx.reps    = 100;
  ctx.samples = 5;
  ctx.warmup  = 5;
  ctx.budget  = 2.0;
  ctx.tol     = 1e-12;
  ctx.timings = PETSC_TRUE;
  ctx.flush_n = 1 << 24;
  ctx.copy_n  = 1 << 25;

  PetscOptionsBegin(ctx.comm, NULL, "SpMV benchmark options", NULL);
  PetscCall(PetscOptionsEnum("-problem", "Matrix: 3D 7-point or 27-point Laplacian on an n^3 grid, or a file", NULL, Problems, (PetscEnum)problem, (PetscEnum *)&problem, NULL));
  PetscCall(PetscOptionsInt("-n", "Grid points per direction of the generated Laplacians", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-dof", "Coupled fields per grid point of the generated Laplacians (dof x points nonzeros per row)", NULL, dof, &dof, NULL));
  PetscCall(PetscOptionsBool("-dof_blocks", "The generated Laplacian of several fields has block size dof (MATMODSELL's block layout can apply)", NULL, dof_blocks, &dof_blocks, NULL));
  PetscCall(PetscOptionsString("-file", "Matrix file: PETSc binary (MatLoad, first object) or MatrixMarket coordinate (.mtx)", NULL, file, file, sizeof(file), &flg));
  if (flg && problem != PROBLEM_FILE) problem = PROBLEM_FILE;
  PetscCall(PetscOptionsString("-name", "Problem name in the output and the CSV (default: from -problem, -n, -file, -permute)", NULL, name, name, sizeof(name), NULL));
  PetscCall(PetscOptionsEnum("-permute", "Reorder the stored matrix before every format sees it: none, rcm (MatGetOrdering) or random", NULL, Permutes, (PetscEnum)permute, (PetscEnum *)&permute, NULL));
  PetscCall(PetscOptionsInt("-seed", "Seed of -permute random", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsString("-formats", "Formats and variants: FORMAT[:KEY=V1/V2...],... (see -help)", NULL, formats, formats, sizeof(formats), NULL));
  PetscCall(PetscOptionsInt("-reps", "Products per timed loop (the most; -budget may lower it)", NULL, ctx.reps, &ctx.reps, NULL));
  PetscCall(PetscOptionsInt("-samples", "Timed loops per format: the median and minimum are reported", NULL, ctx.samples, &ctx.samples, NULL));
  PetscCall(PetscOptionsInt("-warmup", "Untimed products before timing (after the first, setup, product)", NULL, ctx.warmup, &ctx.warmup, NULL));
  PetscCall(PetscOptionsReal("-budget", "Seconds of timed products per format at most (lowers -reps, at least 3); 0: no limit", NULL, ctx.budget, &ctx.budget, NULL));
  PetscCall(PetscOptionsBool("-flush", "Evict the caches between products with a VecDot of two -flush_n vectors (the product alone is timed)", NULL, ctx.flush, &ctx.flush, NULL));
  PetscCall(PetscOptionsInt("-flush_n", "Length of the flush vectors per process", NULL, ctx.flush_n, &ctx.flush_n, NULL));
  PetscCall(PetscOptionsInt("-copy_n", "Length per process of the vectors of the copy-bandwidth measurement", NULL, ctx.copy_n, &ctx.copy_n, NULL));
  PetscCall(PetscOptionsBool("-timings", "Time the products (0: only check them and print deterministic information, for tests)", NULL, ctx.timings, &ctx.timings, NULL));
  PetscCall(PetscOptionsReal("-check_tol", "Largest accepted |y - y_aij|_inf / (|A|_inf |x|_inf)", NULL, ctx.tol, &ctx.tol, NULL));
  PetscCall(PetscOptionsBool("-gpu_log", "Also report PETSc's logged GPU time of MatMult (turns on GPU time logging, which synchronizes after each kernel)", NULL, ctx.gpulog, &ctx.gpulog, NULL));
  PetscCall(PetscOptionsBool("-modsell_fresh", "Convert A anew for each modsell variant (default: convert once and change the settings)", NULL, ctx.fresh, &ctx.fresh, NULL));
  PetscCall(PetscOptionsString("-csv", "Append one row per format to this CSV file (written with a header when new)", NULL, csv, csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsString("-device_name", "Device name written in the output (default: the CUDA device's name, or cpu:<host>)", NULL, device, device, sizeof(device), NULL));
  PetscCall(PetscOptionsBool("-test_mmread", "Test the MatrixMarket reader (round trips of the matrix, malformed files) and exit", NULL, testmm, &testmm, NULL));
  PetscCall(PetscOptionsString("-write_mtx", "Write the (permuted) matrix to this MatrixMarket file (one process)", NULL, writemtx, writemtx, sizeof(writemtx), NULL));
  PetscOptionsEnd();
  PetscCheck(ctx.samples >= 1 && ctx.samples <= MAX_SAMPLES, ctx.comm, PETSC_ERR_ARG_OUTOFRANGE, "-samples must be between 1 and %d", MAX_SAMPLES);
  PetscCheck(ctx.reps >= 1, ctx.comm, PETSC_ERR_ARG_OUTOFRANGE, "-reps must be positive");
  PetscCheck(ctx.warmup >= 0, ctx.comm, PETSC_ERR_ARG_OUTOFRANGE, "-warmup must not be negative");
  PetscCheck(problem != PROBLEM_FILE || file[0], ctx.comm, PETSC_ERR_USER_INPUT, "-problem file needs -file <PETSc binary or MatrixMarket file>");

  PetscCall(PetscMalloc1(MAX_VARIANTS, &v));
  PetscCall(ParseFormats(ctx.comm, formats, v, &nv));

  /* GPU time logging must be switched on before anything is logged */
  if (ctx.gpulog) {
    PetscCall(PetscLogDefaultBegin());
    PetscCall(PetscLogGpuTime());
  }
  PetscCall(PetscLogEventGetId("MatMult", &ctx.ev_mult));

  /* device, date, versions */
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* PETSc picks the device (one per rank) before anything touches CUDA */
#endif
  if (!device[0]) {
#if defined(PETSC_HAVE_CUDA)
    struct cudaDeviceProp prop;
    int                   dev;
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
    PetscCall(PetscStrncpy(device, prop.name, sizeof(device)));
#else
    char host[128];
    PetscCall(PetscGetHostName(host, sizeof(host)));
    PetscCall(PetscSNPrintf(device, sizeof(device), "cpu:%s", host));
#endif
  }
  CsvName(device);
  {
    time_t    now = time(NULL);
    struct tm tmv;
    (void)gmtime_r(&now, &tmv);
    (void)strftime(date, sizeof(date), "%Y-%m-%dT%H:%MZ", &tmv);
  }
  PetscCall(PetscSNPrintf(version, sizeof(version), "%d.%d.%d", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR));

  /* the matrix */
  switch (problem) {
  case PROBLEM_LAP7:
  case PROBLEM_LAP27:
    PetscCall(GenerateLaplacian(ctx.comm, n, problem == PROBLEM_LAP7 ? 7 : 27, dof, dof_blocks, &A));
    if (dof > 1) PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s-point 3D Laplacian on a %" PetscInt_FMT "^3 grid (Dirichlet), %" PetscInt_FMT " coupled fields per point, lexicographic numbering", problem == PROBLEM_LAP7 ? "7" : "27", n, dof));
    else PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s-point 3D Laplacian on a %" PetscInt_FMT "^3 grid (Dirichlet), lexicographic numbering", problem == PROBLEM_LAP7 ? "7" : "27", n));
    if (!name[0]) {
      if (dof > 1) PetscCall(PetscSNPrintf(name, sizeof(name), "%s-%" PetscInt_FMT "-dof%" PetscInt_FMT, Problems[problem], n, dof));
      else PetscCall(PetscSNPrintf(name, sizeof(name), "%s-%" PetscInt_FMT, Problems[problem], n));
    }
    break;
  case PROBLEM_FILE:
    PetscCall(LoadMatrix(ctx.comm, file, &A));
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "file %s", file));
    if (!name[0]) {
      const char *b = strrchr(file, '/');
      char       *dot;
      PetscCall(PetscStrncpy(name, b ? b + 1 : file, sizeof(name)));
      dot = strrchr(name, '.');
      if (dot && dot != name) *dot = 0;
    }
    break;
  }
  if (permute != PERMUTE_NONE) {
    size_t len;
    PetscCall(PermuteMatrix(&A, permute, seed));
    PetscCall(PetscStrlen(name, &len));
    if (!strstr(name, Permutes[permute])) PetscCall(PetscSNPrintf(name + len, sizeof(name) - len, "-%s", Permutes[permute]));
  }
  CsvName(name);
  PetscCall(MatGetSize(A, &M, &N));
  {
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    nnz = (PetscInt64)info.nz_used;
  }
  PetscCall(MatrixStats(A, &maxrow, &bw));
  bytes = 12.0 * (PetscReal)nnz + 8.0 * ((PetscReal)M + (PetscReal)N);

  PetscCall(PetscPrintf(ctx.comm, "== SpMV benchmark: %s ==\n", name));
  PetscCall(PetscPrintf(ctx.comm, "matrix: %s, permutation %s\n", desc, Permutes[permute]));
  PetscCall(PetscPrintf(ctx.comm, "rows %" PetscInt_FMT ", columns %" PetscInt_FMT ", nonzeros %" PetscInt64_FMT " (%.2f per row, at most %" PetscInt_FMT "), bandwidth max|i-j| %" PetscInt_FMT "\n", M, N, nnz, M ? (double)nnz / M : 0.0, maxrow, bw));
  if (ctx.timings) {
    PetscCall(PetscPrintf(ctx.comm, "processes %d, device %s, PETSc %s, %s\n", ctx.size, device, version, date));
    PetscCall(PetscPrintf(ctx.comm, "bytes per product, 12 nnz + 8 (rows + columns): %.1f MB\n", (double)bytes * 1e-6));
    PetscCall(PetscPrintf(ctx.comm, "timing: median of %" PetscInt_FMT " loops of at most %" PetscInt_FMT " products (budget %.1f s per format)%s\n", ctx.samples, ctx.reps, (double)ctx.budget, ctx.flush ? ", caches flushed between products (product alone timed)" : ""));
  }
  if (writemtx[0]) {
    PetscCheck(ctx.size == 1, ctx.comm, PETSC_ERR_SUP, "-write_mtx runs on one process");
    PetscCall(MMWriteMat(A, writemtx, "general"));
    PetscCall(PetscPrintf(ctx.comm, "wrote %s\n", writemtx));
  }
  if (testmm) {
    PetscCall(TestMatrixMarket(A));
    nv = 0;
  }

  /* reference input and product */
  PetscCall(MatCreateVecs(A, &ctx.x0, &ctx.yref));
  {
    PetscScalar *x;
    PetscInt     rstart, rend;
    PetscReal    an, xn;
    PetscCall(VecGetOwnershipRange(ctx.x0, &rstart, &rend));
    PetscCall(VecGetArrayWrite(ctx.x0, &x));
    for (PetscInt i = rstart; i < rend; i++) x[i - rstart] = 1.0 + (PetscReal)(((PetscInt64)i * 7919) % 1009) / 1009.0; /* in [1, 2), irregular */
    PetscCall(VecRestoreArrayWrite(ctx.x0, &x));
    PetscCall(MatMult(A, ctx.x0, ctx.yref));
    PetscCall(MatNorm(A, NORM_INFINITY, &an));
    PetscCall(VecNorm(ctx.x0, NORM_INFINITY, &xn));
    ctx.scale = an * xn;
  }

  /* copy bandwidth of the memory spaces in use */
  for (PetscInt i = 0; i < nv; i++) {
    if (v[i].kind == FMT_AIJ) hostfmt = PETSC_TRUE;
    else if (v[i].kind == FMT_OTHER) {
      if (strstr(v[i].format, "cuda") || strstr(v[i].format, "hip") || strstr(v[i].format, "kokkos")) devfmt = PETSC_TRUE;
      else hostfmt = PETSC_TRUE;
    } else if (v[i].kind == FMT_MODSELL) {
      if (PetscDefined(HAVE_CUDA)) devfmt = PETSC_TRUE;
      else hostfmt = PETSC_TRUE;
    } else if (PetscDefined(HAVE_CUDA)) devfmt = PETSC_TRUE;
  }
  if (ctx.timings) {
    if (devfmt) PetscCall(MeasureCopy(&ctx, PETSC_TRUE, &ctx.copy_device));
    if (hostfmt) PetscCall(MeasureCopy(&ctx, PETSC_FALSE, &ctx.copy_host));
    if (ctx.copy_device > 0) PetscCall(PetscPrintf(ctx.comm, "copy bandwidth (VecCopy of %" PetscInt_FMT " entries per process, 16 bytes per entry): device %.1f GB/s\n", ctx.copy_n, (double)ctx.copy_device));
    if (ctx.copy_host > 0) PetscCall(PetscPrintf(ctx.comm, "copy bandwidth (VecCopy of %" PetscInt_FMT " entries per process, 16 bytes per entry): host %.1f GB/s\n", ctx.copy_n, (double)ctx.copy_host));
  }

  /* the formats */
  for (PetscInt i = 0; i < nv; i++) {
    Variant *w = &v[i];
    PetscCall(RunVariant(&ctx, A, w, &ms));
    if (w->skipped[0]) {
      PetscCall(PetscPrintf(ctx.comm, "%-12s skipped: %s\n", w->format, w->skipped));
      continue;
    }
    if (w->wrong) nwrong++;
    if (ctx.timings) {
      const PetscReal cp = w->device ? ctx.copy_device : ctx.copy_host, gbps = bytes / (w->med_ms * 1e-3) * 1e-9;
      PetscCall(PetscPrintf(ctx.comm, "%-12s %-38s %-9s convert %8.1f ms  first %8.1f ms  median %9.4f ms  min %9.4f ms  %8.1f GB/s", w->format, w->variant, w->vectype, (double)w->convert_ms, (double)w->setup_ms, (double)w->med_ms, (double)w->min_ms, (double)gbps));
      if (cp > 0) PetscCall(PetscPrintf(ctx.comm, " (%3.0f%% of %s copy)", 100.0 * (double)(gbps / cp), w->device ? "device" : "host"));
      if (w->reps < ctx.reps) PetscCall(PetscPrintf(ctx.comm, "  reps %" PetscInt_FMT, w->reps));
      if (w->gpulog_ms > 0) PetscCall(PetscPrintf(ctx.comm, "  GPU log %.4f ms", (double)w->gpulog_ms));
      if (w->hasinfo) PetscCall(PetscPrintf(ctx.comm, "  layout %s%s", MatModSELLLayouts[w->info.layout], w->info.block_size > 1 ? " (blocks)" : ""));
      PetscCall(PetscPrintf(ctx.comm, "\n"));
    }
    if (!ctx.timings) {
      PetscCall(PetscPrintf(ctx.comm, "%-12s %-38s %s", w->format, w->variant, w->wrong ? "WRONG" : "check ok"));
      if (w->hasinfo) PetscCall(PetscPrintf(ctx.comm, ", slices %" PetscInt_FMT ", widest %" PetscInt_FMT ", padding %.4f, in-slice columns %.4f", w->info.nslices, w->info.max_width, (double)w->info.padding_ratio, (double)w->info.local_fraction));
      if (w->hasinfo && w->info.row_lanes > 1) PetscCall(PetscPrintf(ctx.comm, ", threads per row %" PetscInt_FMT, w->info.row_lanes));
      if (w->hasinfo && w->info.natural_windowed) PetscCall(PetscPrintf(ctx.comm, ", auto kept the natural order (x read in a window of %.0f rows)", (double)w->info.natural_window));
      PetscCall(PetscPrintf(ctx.comm, "\n"));
    }
    if (w->wrong) PetscCall(PetscPrintf(ctx.comm, "%-12s %-38s *** WRONG RESULT: |y - y_aij|_inf / (|A|_inf |x|_inf) = %g > %g ***\n", w->format, w->variant, (double)w->relerr, (double)ctx.tol));
    if (w->kind == FMT_AIJCUSPARSE && !w->wrong && !t_cusparse) t_cusparse = w->med_ms;
    if (w->kind == FMT_SELLCUDA && !w->wrong && !t_sellcuda) t_sellcuda = w->med_ms;
  }
  PetscCall(MatDestroy(&ms));

  /* summary table and CSV */
  if (ctx.timings && nv > 0) {
    PetscCall(PetscPrintf(ctx.comm, "-- summary: %s, %" PetscInt_FMT " rows, %" PetscInt64_FMT " nonzeros, %s (ratios: time of the reference / time of the format)\n", name, M, nnz, device));
    PetscCall(PetscPrintf(ctx.comm, "%-12s %-38s %10s %10s %8s %6s %8s %8s %8s %8s %s\n", "format", "variant", "median_ms", "min_ms", "GB/s", "%copy", "vs_cusp", "vs_sell", "padding", "local", "check"));
    for (PetscInt i = 0; i < nv; i++) {
      Variant        *w = &v[i];
      const PetscReal cp = w->device ? ctx.copy_device : ctx.copy_host;
      char            r1[16] = "-", r2[16] = "-", pd[16] = "-", lc[16] = "-", pc[16] = "-";
      if (!w->ran) continue;
      if (t_cusparse > 0) PetscCall(PetscSNPrintf(r1, sizeof(r1), "%.3f", (double)(t_cusparse / w->med_ms)));
      if (t_sellcuda > 0) PetscCall(PetscSNPrintf(r2, sizeof(r2), "%.3f", (double)(t_sellcuda / w->med_ms)));
      if (w->padding > 0) PetscCall(PetscSNPrintf(pd, sizeof(pd), "%.3f", (double)w->padding));
      if (w->local >= 0) PetscCall(PetscSNPrintf(lc, sizeof(lc), "%.3f", (double)w->local));
      if (cp > 0) PetscCall(PetscSNPrintf(pc, sizeof(pc), "%.0f", 100.0 * (double)(bytes / (w->med_ms * 1e-3) * 1e-9 / cp)));
      PetscCall(PetscPrintf(ctx.comm, "%-12s %-38s %10.4f %10.4f %8.1f %6s %8s %8s %8s %8s %s\n", w->format, w->variant, (double)w->med_ms, (double)w->min_ms, (double)(bytes / (w->med_ms * 1e-3) * 1e-9), pc, r1, r2, pd, lc, w->wrong ? "WRONG" : "ok"));
    }
  }
  if (csv[0] && ctx.timings && !ctx.rank) {
    FILE *fp = fopen(csv, "a");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open -csv file %s: %s", csv, strerror(errno));
    if (ftell(fp) == 0)
      fprintf(fp, "problem,n,nnz,format,variant,time_ms,min_ms,GBps,ratio_vs_aijcusparse,ratio_vs_sellcuda,padding,local_fraction,device,date,"
                  "permute,sh,kernel,ordering,vectype,memory,reps,samples,flush,relerr,check,convert_ms,first_ms,copy_GBps,frac_of_copy,bytes_per_product,nranks,gpulog_ms,petsc,layout,block_size,est_bytes_image,est_bytes_cusparse\n");
    /* the copy measurements, as rows of their own */
    for (int d = 0; d < 2; d++) {
      const PetscReal g = d ? ctx.copy_device : ctx.copy_host;
      if (g <= 0) continue;
      fprintf(fp, "%s,%" PetscInt_FMT ",0,copy,%s,%.6f,,%.3f,,,,,%s,%s,%s,,,,,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%d,,,,,%.3f,1,%.0f,%d,,%s,,,,\n", name, ctx.copy_n * ctx.size, d ? "device" : "host", 16.0 * ctx.copy_n * ctx.size / (g * 1e9) * 1e3, (double)g, device, date, Permutes[permute], d ? "device" : "host", ctx.reps, ctx.samples, (int)ctx.flush, (double)g, 16.0 * ctx.copy_n * ctx.size, ctx.size, version);
    }
    for (PetscInt i = 0; i < nv; i++) {
      Variant        *w = &v[i];
      const PetscReal cp = w->device ? ctx.copy_device : ctx.copy_host, gbps = w->ran ? bytes / (w->med_ms * 1e-3) * 1e-9 : 0;
      char            variant[128];
      if (!w->ran) continue;
      PetscCall(PetscStrncpy(variant, w->variant, sizeof(variant)));
      CsvName(variant);
      fprintf(fp, "%s,%" PetscInt_FMT ",%" PetscInt64_FMT ",%s,%s,%.6f,%.6f,%.3f,", name, M, nnz, w->format, variant, (double)w->med_ms, (double)w->min_ms, (double)gbps);
      if (t_cusparse > 0) fprintf(fp, "%.4f", (double)(t_cusparse / w->med_ms));
      fprintf(fp, ",");
      if (t_sellcuda > 0) fprintf(fp, "%.4f", (double)(t_sellcuda / w->med_ms));
      fprintf(fp, ",");
      if (w->padding > 0) fprintf(fp, "%.4f", (double)w->padding);
      fprintf(fp, ",");
      if (w->local >= 0) fprintf(fp, "%.4f", (double)w->local);
      fprintf(fp, ",%s,%s,%s,", device, date, Permutes[permute]);
      if (w->sh > 0) fprintf(fp, "%" PetscInt_FMT, w->sh);
      fprintf(fp, ",%s,%s,%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%d,%.3e,%s,%.3f,%.3f,", w->kind == FMT_MODSELL ? MatModSELLKernels[w->kernel] : "", w->kind == FMT_MODSELL ? MatModSELLOrderings[w->ordering] : "", w->vectype, w->device ? "device" : "host", w->reps, ctx.samples, (int)ctx.flush, (double)w->relerr, w->wrong ? "WRONG" : "ok", (double)w->convert_ms, (double)w->setup_ms);
      if (cp > 0) fprintf(fp, "%.3f,%.4f", (double)cp, (double)(gbps / cp));
      else fprintf(fp, ",");
      fprintf(fp, ",%.0f,%d,", (double)bytes, ctx.size);
      if (w->gpulog_ms > 0) fprintf(fp, "%.6f", (double)w->gpulog_ms);
      fprintf(fp, ",%s,", version);
      if (w->hasinfo) fprintf(fp, "%s,%" PetscInt_FMT ",%.0f,%.0f\n", MatModSELLLayouts[w->info.layout], w->info.block_size, (double)w->info.bytes_image, (double)w->info.bytes_cusparse);
      else fprintf(fp, ",,,\n");
    }
    PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", csv);
  }
  {
    PetscInt nran = 0;
    for (PetscInt i = 0; i < nv; i++) nran += v[i].ran;
    if (nran) PetscCall(PetscPrintf(ctx.comm, "checks: %" PetscInt_FMT " of %" PetscInt_FMT " formats ok\n", nran - nwrong, nran));
  }
  if (nwrong) PetscCall(PetscPrintf(ctx.comm, "*** %" PetscInt_FMT " format(s) gave a WRONG RESULT ***\n", nwrong));

  PetscCall(VecDestroy(&ctx.x0));
  PetscCall(VecDestroy(&ctx.yref));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(v));
  PetscCall(PetscFinalize());
  return nwrong ? 1 : 0;
}

/*TEST

  build:
    requires: double !complex

  test:
    suffix: lap7
    args: -problem lap7 -n 9 -formats aij,modsell,modsell:sh=32/64:kernel=modsell/sell:ordering=natural/rcm -timings 0

  test:
    suffix: lap27_random
    args: -problem lap27 -n 6 -permute random -formats aij,modsell:sh=32/1024:ordering=natural/rcm -timings 0

  # a system of 3 coupled fields (81 nonzeros in an interior row)
  test:
    suffix: lap27_dof3
    args: -problem lap27 -n 5 -dof 3 -formats aij,modsell:sh=32/128:kernel=modsell/sell -timings 0

  # the same with block size 3: every layout of MATMODSELL's product
  test:
    suffix: lap27_dof3_blocks
    args: -problem lap27 -n 5 -dof 3 -dof_blocks -formats aij,modsell,modsell:layout=scalar/blocks/cusparse,modsell:sh=32:layout=blocks:kernel=modsell/sell -timings 0

  # MATMODSELL_ORDERING_AUTO keeps the natural order for the narrow window of x of a lexicographic grid whose slices
  # hold few of their columns (3 fields, slices of 32 rows), and not once the rows are numbered randomly
  test:
    suffix: lap27_dof3_window
    args: -problem lap27 -n 20 -dof 3 -permute {{none random}separate output} -formats aij,modsell:sh=32 -timings 0

  # the permuted product's buckets (GPU products on a CUDA build; the label names the chunk)
  test:
    suffix: lap27_random_chunk
    args: -problem lap27 -n 6 -permute random -formats aij,modsell:sh=32:ordering=rcm/partition:chunk=0/1/37/100000 -timings 0

  test:
    suffix: lap7_rcm_mpi
    nsize: 2
    args: -problem lap7 -n 7 -formats aij,modsell:sh=32:kernel=modsell/sell:ordering=natural/rcm -timings 0

  test:
    suffix: mmread
    args: -problem lap7 -n 3 -permute rcm -test_mmread -timings 0

  test:
    suffix: timed
    args: -problem lap7 -n 6 -formats aij,modsell:sh=32:kernel=modsell/sell -reps 3 -samples 2 -warmup 1 -copy_n 1000 -flush -flush_n 1000
    filter: grep -E "^checks|WRONG"

TEST*/
