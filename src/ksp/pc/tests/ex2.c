static char help[] = "Kernel tests of the preconditioners' kernel tables: every kernel of the host reference against a direct\n\
computation from the matrix where one exists, and with -cuda (a PETSc with CUDA) every CUDA kernel against the\n\
reference on the same inputs. Every output array is filled with a poison value (the bytes 0x7f) before a kernel runs,\n\
so that an entry a kernel forgot to write is caught. -table:\n\
  image    the pattern, ruiz and bjsmooth tables (mskernels.h, ruizkernels.h, bjsmoothkernels.h) on random mod-SELL\n\
           images: -m <1000> rows, -sh <32> slice height, -ordering natural|rcm, -seed <1>;\n\
  brbilu   brbilukernels.h on an ordering made here: -brb_ordering grid (-brb_box nx,ny,nz, -brb_blocks bx,by,bz) or\n\
           graph (-brb_block_rows, -brb_permute), the matrix of mstest.h (-kind, sizes) changed by\n\
           -brb_dirichlet_rows, -brb_empty_rows n, -brb_extra k; also the shared layer's CSR check (mskernels.h,\n\
           MS_CHECK_CSR) on that matrix and on a copy with a NaN, a negative diagonal entry, a one-sided coupling;\n\
  bisai    bisaikernels.h on a block matrix made here (its CSR, random and symmetric values): -bisai_nb <60>\n\
           block rows, -bisai_bs <3>;\n\
  neumann  neumannkernels.h (the deflation kernels) on the matrix of mstest.h (-kind, sizes) with -nsub subdomains\n\
           of -sub_kind contiguous|permuted|scattered, E's first column -coff, -direct <bool> (the O(nsub m) checks).\n";

#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/ruizkernels.h>
#include <petscmodsell/private/bjsmoothkernels.h>
#include <petscmodsell/private/brbilukernels.h>
#include <petscmodsell/private/bisaikernels.h>
#include <petscmodsell/private/neumannkernels.h>
#include <mstest.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define POISON 0x7f

static PetscBool use_cuda = PETSC_FALSE; /* also the CUDA kernels (-cuda) */
static PetscInt  nfail    = 0;           /* checks that failed */

typedef struct {
  PetscInt     m, n, sh;
  PetscBool    square;
  MSTestCSR    csr; /* the matrix, user numbering */
  Mat          A;
  MSImage      img;
  MSImageView  hv, dv; /* host and device views of the same image */
  PetscInt    *iperm;  /* image row of each user row */
} Ctx;

/* ---------------------------------------------------------------------------------------------------------- */
/* host/device buffers                                                                                          */

typedef struct {
  void  *h, *d; /* host copy (reference, or the device result read back) and device array */
  size_t bytes;
} Buf;

static PetscErrorCode BufCreate(size_t bytes, Buf *b)
{
  PetscFunctionBegin;
  b->bytes = PetscMax(bytes, (size_t)8);
  PetscCall(PetscMalloc(b->bytes, &b->h));
  memset(b->h, POISON, b->bytes);
  b->d = NULL;
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda) {
    PetscCallCUDA(cudaMalloc(&b->d, b->bytes));
    PetscCallCUDA(cudaMemset(b->d, POISON, b->bytes));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an input: the same values on the host and the device */
static PetscErrorCode BufInput(size_t bytes, const void *src, Buf *b)
{
  PetscFunctionBegin;
  PetscCall(BufCreate(bytes, b));
  if (bytes) memcpy(b->h, src, bytes);
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && bytes) PetscCallCUDA(cudaMemcpy(b->d, src, bytes, cudaMemcpyHostToDevice));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* the device result into dst (host) */
static PetscErrorCode BufDownload(Buf *b, void *dst)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemcpy(dst, b->d, b->bytes, cudaMemcpyDeviceToHost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the first n bytes of the device array equal the host's, bit for bit */
static PetscErrorCode BufSame(Buf *b, size_t n, PetscBool *same)
{
  void *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc(b->bytes, &t));
  PetscCall(BufDownload(b, t));
  *same = (PetscBool)(!n || !memcmp(t, b->h, n));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max_i |d_i - h_i| / max(max_i |h_i|, tiny) over the first n doubles of the device (d) and host (h) arrays */
static PetscErrorCode BufRelDiff(Buf *b, PetscInt n, PetscReal *rel)
{
  double   *t;
  PetscReal dmax = 0, ymax = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc(b->bytes, &t));
  PetscCall(BufDownload(b, t));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal e = PetscAbsReal(t[i] - ((double *)b->h)[i]);
    dmax = (e <= dmax) ? dmax : (PetscIsNanReal(e) ? PETSC_INFINITY : e);
    ymax = PetscMax(ymax, PetscAbsReal(((double *)b->h)[i]));
  }
  *rel = dmax / PetscMax(ymax, 1e-300);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode BufDestroy(Buf *b)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(b->h));
#if defined(PETSC_HAVE_CUDA)
  if (b->d) PetscCallCUDA(cudaFree(b->d));
#endif
  b->d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max relative difference of a and b over n entries (scale: max(|b|, floor)); NaN or poison counts as infinite */
static PetscReal RelDiff(const double *a, const double *b, PetscInt n, double floor)
{
  PetscReal d = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    const double s = PetscMax(PetscAbsReal(b[i]), floor), e = PetscAbsReal(a[i] - b[i]) / s;
    if (!(e <= d)) d = PetscIsNanReal(e) ? PETSC_INFINITY : e;
  }
  return d;
}

/* whether every entry was written (none holds the poison pattern) */
static PetscBool Written(const double *a, PetscInt n)
{
  unsigned long long poison;
  memset(&poison, POISON, sizeof(poison));
  for (PetscInt i = 0; i < n; i++)
    if (!memcmp(&a[i], &poison, sizeof(poison))) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode Report(const char *what, PetscBool ok)
{
  PetscFunctionBegin;
  if (!ok) nfail++;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %s\n", what, ok ? "ok" : "FAILED"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the matrix: a random band (in-slice couplings) plus far entries, positive dominant diagonal                  */

static PetscErrorCode Generate(Ctx *c, PetscInt seed)
{
  MSTestCOO coo = {0};
  MSTestRng rng = {(unsigned long long)seed * 1000003ULL};

  PetscFunctionBegin;
  for (PetscInt i = 0; i < c->m; i++) {
    PetscReal sum = 0.0;
    PetscInt  nb  = MSTestRngInt(&rng, 7); /* 0..6 off-diagonal entries: some rows have none */
    for (PetscInt k = 0; k < nb; k++) {
      const PetscBool far = (PetscBool)(MSTestRngInt(&rng, 4) == 0);
      PetscInt        j   = far ? MSTestRngInt(&rng, c->n) : i + MSTestRngInt(&rng, 9) - 4;
      PetscScalar     v   = -(0.1 + MSTestRngUniform(&rng));
      if (j < 0 || j >= c->n || j == i) continue;
      PetscCall(MSTestCOOAdd(&coo, i, j, v));
      sum += PetscAbsScalar(v);
    }
    if (c->square) PetscCall(MSTestCOOAdd(&coo, i, i, 1.0 + sum + MSTestRngUniform(&rng)));
  }
  PetscCall(MSTestCOOToCSR(&coo, c->m, c->n, &c->csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUpImage(Ctx *c, PetscBool modsell, MatModSELLOrdering ord)
{
  PetscFunctionBegin;
  PetscCall(MSTestCreateMat(PETSC_COMM_SELF, &c->csr, MATSEQAIJ, &c->A));
  {
    MSImageRequest req;

    PetscCall(MSImageRequestSetDefaults(&req));
    req.sh       = c->sh;
    req.kernel   = modsell ? MATMODSELL_KERNEL_MODSELL : MATMODSELL_KERNEL_SELL;
    req.ordering = ord;
    PetscCall(MSImageCreate(&req, &c->img));
  }
  PetscCall(MSImageSetUp(c->img, c->A, &MSImageOps_Reference));
  PetscCall(MSImageOps_Reference.getview(c->img, PETSC_TRUE, &c->hv));
  PetscCall(PetscMalloc1(c->m, &c->iperm));
  for (PetscInt r = 0; r < c->m; r++) c->iperm[c->hv.perm ? c->hv.perm[r] : r] = r;
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda) {
    PetscCall(MSImageSetUp(c->img, c->A, &MSImageOps_CUDA));
    PetscCall(MSImageOps_CUDA.getview(c->img, PETSC_TRUE, &c->dv));
    PetscCall(MSImageOps_Reference.getview(c->img, PETSC_TRUE, &c->hv)); /* unchanged by the device setup */
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DestroyImage(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(MSImageDestroy(&c->img));
  PetscCall(MatDestroy(&c->A));
  PetscCall(PetscFree(c->iperm));
  PetscCall(MSTestCSRDestroy(&c->csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the in-slice position of column j of user row o, or -1 when it is not in the slice (or is the diagonal) */
static PetscInt InSlice(Ctx *c, PetscInt o, PetscInt j)
{
  const PetscInt r = c->iperm[o], rj = c->square ? c->iperm[j] : -1;
  if (!c->square || j == o || rj / c->sh != r / c->sh) return -1;
  return rj % c->sh;
}

static void RandomVector(PetscInt n, unsigned long long key, double lo, double hi, double *v)
{
  for (PetscInt i = 0; i < n; i++) v[i] = lo + (hi - lo) * MSTestHashUniform(key * 7919ULL + (unsigned long long)i);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* pattern kernels                                                                                              */

static int PairCmp(const void *a, const void *b)
{
  const double *x = (const double *)a, *y = (const double *)b;
  return x[0] < y[0] ? -1 : (x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : (x[1] > y[1])));
}

static PetscErrorCode TestExtractLocal(Ctx *c, int part, const char *name)
{
  const PetscInt m = c->m, nloc = MS_PATTERN_MAXLOC;
  Buf            lc, lv, dinv;
  PetscBool      ok = PETSC_TRUE;
  int            err;
  char           what[128];

  PetscFunctionBegin;
  PetscCall(BufCreate(sizeof(short) * nloc * m, &lc));
  PetscCall(BufCreate(sizeof(double) * nloc * m, &lv));
  PetscCall(BufCreate(sizeof(double) * m, &dinv));
  err = MSPatternKernels_Reference.extract_local(&c->hv, (int)nloc, part, (short *)lc.h, (double *)lv.h, (double *)dinv.h, NULL);
  ok  = (PetscBool)(err == 0);
  for (PetscInt r = 0; ok && r < m; r++) { /* the kept entries as sorted (position, value) pairs, both ways */
    const PetscInt o = c->hv.perm ? c->hv.perm[r] : r, t = r % c->sh;
    double         want[2 * 16], got[2 * 16];
    PetscInt       nw = 0, ng = 0;

    for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++) {
      const PetscInt q = InSlice(c, o, c->csr.ja[k]);
      if (q < 0 || (part == MS_PART_LOWER && q >= t) || (part == MS_PART_UPPER && q <= t)) continue;
      want[2 * nw]     = (double)q;
      want[2 * nw + 1] = c->csr.va[k];
      nw++;
    }
    for (PetscInt j = 0; j < nloc; j++) {
      const short  q = ((short *)lc.h)[j * m + r];
      const double v = ((double *)lv.h)[j * m + r];
      if (q >= 0 && q < c->sh) {
        got[2 * ng]     = (double)q;
        got[2 * ng + 1] = v;
        ng++;
      } else if (q != -1 || v != 0.0) ok = PETSC_FALSE; /* poison, or padding not cleared */
    }
    qsort(want, (size_t)nw, 2 * sizeof(double), PairCmp);
    qsort(got, (size_t)ng, 2 * sizeof(double), PairCmp);
    if (nw != ng || memcmp(want, got, sizeof(double) * 2 * nw)) ok = PETSC_FALSE;
    if (((double *)dinv.h)[r] != 1.0 / c->hv.diag[r]) ok = PETSC_FALSE;
  }
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    short  *dlc;
    double *dlv, *ddinv;

    err = MSPatternKernels_CUDA.extract_local(&c->dv, (int)nloc, part, (short *)lc.d, (double *)lv.d, (double *)dinv.d, NULL);
    ok  = (PetscBool)(err == 0);
    PetscCall(PetscMalloc3(nloc * m, &dlc, nloc * m, &dlv, m, &ddinv));
    PetscCall(BufDownload(&lc, dlc));
    PetscCall(BufDownload(&lv, dlv));
    PetscCall(BufDownload(&dinv, ddinv));
    /* the host and device images are built apart: the same entries per row, possibly in another slot order */
    for (PetscInt r = 0; ok && r < m; r++) {
      double a[2 * 16], b[2 * 16];
      for (PetscInt j = 0; j < nloc; j++) {
        a[2 * j]     = ((short *)lc.h)[j * m + r];
        a[2 * j + 1] = ((double *)lv.h)[j * m + r];
        b[2 * j]     = dlc[j * m + r];
        b[2 * j + 1] = dlv[j * m + r];
      }
      qsort(a, (size_t)nloc, 2 * sizeof(double), PairCmp);
      qsort(b, (size_t)nloc, 2 * sizeof(double), PairCmp);
      if (memcmp(a, b, sizeof(double) * 2 * nloc) || ddinv[r] != ((double *)dinv.h)[r]) ok = PETSC_FALSE;
    }
    PetscCall(PetscFree3(dlc, dlv, ddinv));
  }
#endif
  PetscCall(PetscSNPrintf(what, sizeof(what), "pattern extract_local %s", name));
  PetscCall(Report(what, ok));
  PetscCall(BufDestroy(&lc));
  PetscCall(BufDestroy(&lv));
  PetscCall(BufDestroy(&dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Ruiz kernels                                                                                                 */

static double RzTerm(int p, double v)
{
  return p == MS_RUIZ_P2 ? v * v : v;
}

static double RzComb(int p, double a, double t)
{
  return p == MS_RUIZ_PINF ? PetscMax(a, t) : a + t;
}

static PetscErrorCode TestRuizRowPass(Ctx *c, int p, PetscBool unit, PetscBool cols, PetscBool finish, PetscBool accin)
{
  const PetscInt m = c->m, n = c->n;
  double        *sr, *sc, *ain, *racc, *rnew, *rcol, dev = 0.0, devbits;
  Buf            bsr, bsc, bain, bout, bnew, bcol, bst;
  MSRuizStatus   st0 = {0, MS_RUIZ_BAD_NONE, MS_RUIZ_BAD_NONE}, hst;
  PetscBool      ok;
  int            err;
  char           what[160];

  PetscFunctionBegin;
  PetscCall(PetscMalloc6(m, &sr, n, &sc, m, &ain, m, &racc, m, &rnew, n, &rcol));
  RandomVector(m, 11, 0.5, 2.0, sr);
  RandomVector(n, 13, 0.5, 2.0, sc);
  RandomVector(m, 17, 0.0, 1.0, ain);
  if (!c->square) unit = PETSC_FALSE;
  /* direct: the row accumulations over the CSR, the column accumulations, the new scalings and the deviation */
  for (PetscInt j = 0; j < n; j++) rcol[j] = 0.0;
  for (PetscInt o = 0; o < m; o++) {
    const double sro = unit ? 1.0 : sr[o];
    double       acc = accin ? ain[o] : 0.0;
    for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++) {
      const PetscInt j = c->csr.ja[k];
      const double   v = PetscAbsReal(c->csr.va[k]);
      acc              = RzComb(p, acc, RzTerm(p, v * (unit ? 1.0 : sc[j])));
      rcol[j]          = RzComb(p, rcol[j], RzTerm(p, v * sro));
    }
    racc[o] = acc;
    if (finish) {
      const double nr = sro * (p == MS_RUIZ_P2 ? PetscSqrtReal(acc) : acc);
      rnew[o]         = sro / PetscSqrtReal(nr);
      dev             = PetscMax(dev, PetscAbsReal(1.0 - nr));
    }
  }
  PetscCall(BufInput(sizeof(double) * m, sr, &bsr));
  PetscCall(BufInput(sizeof(double) * n, sc, &bsc));
  PetscCall(BufInput(sizeof(double) * m, ain, &bain));
  PetscCall(BufCreate(sizeof(double) * m, &bout));
  PetscCall(BufCreate(sizeof(double) * m, &bnew));
  PetscCall(BufCreate(sizeof(double) * n, &bcol));
  memset(bcol.h, 0, sizeof(double) * n); /* an accumulation: starts from zero */
  PetscCall(BufInput(sizeof(st0), &st0, &bst));
#define RZ_ARGS(B, V) \
  &(V), p, unit ? NULL : (const double *)bsr.B, unit ? NULL : (const double *)bsc.B, accin ? (const double *)bain.B : NULL, finish ? NULL : (double *)bout.B, finish ? (double *)bnew.B : NULL, cols ? (double *)bcol.B : NULL, 1, 1, 0, (MSRuizStatus *)bst.B, NULL
  err = MSRuizKernels_Reference.row_pass(RZ_ARGS(h, c->hv));
  ok  = (PetscBool)(err == 0);
  if (finish) ok = (PetscBool)(ok && RelDiff((double *)bnew.h, rnew, m, 1e-300) < 1e-13);
  else ok = (PetscBool)(ok && RelDiff((double *)bout.h, racc, m, 1e-300) < 1e-13);
  if (cols) ok = (PetscBool)(ok && RelDiff((double *)bcol.h, rcol, n, 1e-300) < 1e-13);
  hst = *(MSRuizStatus *)bst.h;
  memcpy(&devbits, &hst.dev, sizeof(double));
  if (finish) ok = (PetscBool)(ok && PetscAbsReal(devbits - dev) <= 1e-13 * PetscMax(dev, 1.0));
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    double      *d;
    MSRuizStatus dst;

    PetscCallCUDA(cudaMemset(bcol.d, 0, sizeof(double) * n));
    err = MSRuizKernels_CUDA.row_pass(RZ_ARGS(d, c->dv));
    ok  = (PetscBool)(err == 0);
    PetscCall(PetscMalloc1(PetscMax(m, n), &d));
    PetscCall(BufDownload(finish ? &bnew : &bout, d));
    ok = (PetscBool)(ok && RelDiff(d, finish ? (double *)bnew.h : (double *)bout.h, m, 1e-300) < 1e-13);
    if (cols) {
      PetscCall(BufDownload(&bcol, d));
      ok = (PetscBool)(ok && RelDiff(d, (double *)bcol.h, n, 1e-300) < 1e-13);
    }
    PetscCall(BufDownload(&bst, &dst));
    {
      double ddev;
      memcpy(&ddev, &dst.dev, sizeof(ddev));
      ok = (PetscBool)(ok && (!finish || PetscAbsReal(ddev - devbits) <= 1e-13 * PetscMax(devbits, 1.0)) && dst.badrow == hst.badrow);
    }
    PetscCall(PetscFree(d));
  }
#endif
#undef RZ_ARGS
  PetscCall(PetscSNPrintf(what, sizeof(what), "ruiz row_pass p=%s%s%s%s%s", p == MS_RUIZ_P1 ? "1" : (p == MS_RUIZ_P2 ? "2" : "inf"), unit ? " unit" : "", cols ? " cols" : "", finish ? " finish" : " partial", accin ? " acc_in" : ""));
  PetscCall(Report(what, ok));
  PetscCall(BufDestroy(&bsr));
  PetscCall(BufDestroy(&bsc));
  PetscCall(BufDestroy(&bain));
  PetscCall(BufDestroy(&bout));
  PetscCall(BufDestroy(&bnew));
  PetscCall(BufDestroy(&bcol));
  PetscCall(BufDestroy(&bst));
  PetscCall(PetscFree6(sr, sc, ain, racc, rnew, rcol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestRuizVectorKernels(Ctx *c, int p)
{
  const PetscInt n = c->m;
  double        *sc, *cacc, *want, *x, *y2;
  Buf            bsc, bcacc, bnew, bst, bx, by;
  MSRuizStatus   st0 = {0, MS_RUIZ_BAD_NONE, MS_RUIZ_BAD_NONE};
  PetscBool      ok;
  int            err;
  char           what[128];

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(n, &sc, n, &cacc, n, &want, n, &x, n, &y2));
  RandomVector(n, 19, 0.5, 2.0, sc);
  RandomVector(n, 23, 0.1, 3.0, cacc);
  RandomVector(n, 29, -1.0, 1.0, x);
  for (PetscInt j = 0; j < n; j++) {
    const double cj = sc[j] * (p == MS_RUIZ_P2 ? PetscSqrtReal(cacc[j]) : cacc[j]);
    want[j]         = sc[j] / PetscSqrtReal(cj);
  }
  PetscCall(BufInput(sizeof(double) * n, sc, &bsc));
  PetscCall(BufInput(sizeof(double) * n, cacc, &bcacc));
  PetscCall(BufCreate(sizeof(double) * n, &bnew));
  PetscCall(BufInput(sizeof(st0), &st0, &bst));
  err = MSRuizKernels_Reference.col_pass((int)n, p, (const double *)bsc.h, (const double *)bcacc.h, (double *)bnew.h, 1, 1, (MSRuizStatus *)bst.h, NULL);
  ok  = (PetscBool)(err == 0 && RelDiff((double *)bnew.h, want, n, 1e-300) < 1e-14);
  err = MSRuizKernels_Reference.reset_status((MSRuizStatus *)bst.h, 1, NULL);
  ok  = (PetscBool)(ok && !err && ((MSRuizStatus *)bst.h)->dev == 0 && ((MSRuizStatus *)bst.h)->badcol == MS_RUIZ_BAD_NONE);
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    MSRuizStatus dst;

    err = MSRuizKernels_CUDA.col_pass((int)n, p, (const double *)bsc.d, (const double *)bcacc.d, (double *)bnew.d, 1, 1, (MSRuizStatus *)bst.d, NULL);
    PetscCall(BufDownload(&bnew, y2));
    ok  = (PetscBool)(err == 0 && RelDiff(y2, (double *)bnew.h, n, 1e-300) == 0.0);
    err = MSRuizKernels_CUDA.reset_status((MSRuizStatus *)bst.d, 1, NULL);
    PetscCall(BufDownload(&bst, &dst));
    ok = (PetscBool)(ok && !err && dst.dev == 0 && dst.badrow == MS_RUIZ_BAD_NONE && dst.badcol == MS_RUIZ_BAD_NONE);
  }
#endif
  PetscCall(PetscSNPrintf(what, sizeof(what), "ruiz col_pass and reset_status p=%s", p == MS_RUIZ_P1 ? "1" : (p == MS_RUIZ_P2 ? "2" : "inf")));
  PetscCall(Report(what, ok));
  /* pointwise: y = a .* x and y = a .* (a .* x) */
  for (int square = 0; square < 2; square++) {
    PetscCall(BufInput(sizeof(double) * n, x, &bx));
    PetscCall(BufCreate(sizeof(double) * n, &by));
    for (PetscInt i = 0; i < n; i++) want[i] = square ? sc[i] * (sc[i] * x[i]) : sc[i] * x[i];
    err = MSRuizKernels_Reference.pointwise((int)n, (const double *)bsc.h, square, (const double *)bx.h, (double *)by.h, NULL);
    ok  = (PetscBool)(err == 0 && RelDiff((double *)by.h, want, n, 1e-300) == 0.0);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      err = MSRuizKernels_CUDA.pointwise((int)n, (const double *)bsc.d, square, (const double *)bx.d, (double *)by.d, NULL);
      PetscCall(BufDownload(&by, y2));
      ok = (PetscBool)(err == 0 && RelDiff(y2, want, n, 1e-300) == 0.0);
    }
#endif
    PetscCall(Report(square ? "ruiz pointwise square" : "ruiz pointwise", ok));
    PetscCall(BufDestroy(&bx));
    PetscCall(BufDestroy(&by));
  }
  PetscCall(BufDestroy(&bsc));
  PetscCall(BufDestroy(&bcacc));
  PetscCall(BufDestroy(&bnew));
  PetscCall(BufDestroy(&bst));
  PetscCall(PetscFree5(sc, cacc, want, x, y2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* PCBJSMOOTH kernels                                                                                           */

/* the largest count of in-slice entries of a row */
static PetscInt MaxLocal(Ctx *c)
{
  PetscInt mx = 0;
  for (PetscInt o = 0; o < c->m; o++) {
    PetscInt cnt = 0;
    for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++) cnt += InSlice(c, o, c->csr.ja[k]) >= 0;
    mx = PetscMax(mx, cnt);
  }
  return mx;
}

/* direct: one outer sweep with inner_its Jacobi sweeps (sync), or (hi > 0) Chebyshev sweeps on [lo, hi] written
   in the other classical form (Golub and Varga's semi-iteration: y_1 = gamma z_0, y_{k+1} = w_{k+1} (gamma z_k + y_k -
   y_{k-1}) + y_{k-1}, z_k = D^-1 (rl - A_ll y_k), gamma = 2 / (hi + lo), mu = (hi - lo) / (hi + lo), w_2 = 1 / (1 -
   mu^2 / 2), w_{k+1} = 1 / (1 - mu^2 w_k / 4)), then scaled by T_k / (T_k + 1) (bjsmoothkernels.h); x = 0 when zero */
static void DirectSweep(Ctx *c, PetscInt its, double lo, double hi, PetscBool zero, const double *b, const double *offp, const double *x, double *xout)
{
  const PetscInt m = c->m;
  double        *rl = (double *)malloc(sizeof(double) * 4 * m), *y = rl + m, *yn = rl + 2 * m, *yp = rl + 3 * m;
  const double   gamma = hi > 0.0 ? 2.0 / (hi + lo) : 1.0, mu = hi > 0.0 ? (hi - lo) / (hi + lo) : 0.0;
  double         w = 1.0;

  for (PetscInt o = 0; o < m; o++) {
    double acc = b[o] - offp[o], d = 0.0;
    for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++)
      if (c->csr.ja[k] == o) d = c->csr.va[k];
    if (!zero) {
      acc -= d * x[o];
      for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++)
        if (c->csr.ja[k] != o) acc -= c->csr.va[k] * x[c->csr.ja[k]];
    }
    rl[o] = acc;
    y[o]  = 0.0;
    yp[o] = 0.0;
  }
  for (PetscInt it = 0; it < its; it++) {
    if (hi > 0.0) w = it == 0 ? 1.0 : (it == 1 ? 1.0 / (1.0 - 0.5 * mu * mu) : 1.0 / (1.0 - 0.25 * mu * mu * w));
    for (PetscInt o = 0; o < m; o++) {
      double sm = 0.0, d = 0.0;
      for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++) {
        if (c->csr.ja[k] == o) d = c->csr.va[k];
        else if (InSlice(c, o, c->csr.ja[k]) >= 0) sm += c->csr.va[k] * y[c->csr.ja[k]];
      }
      if (hi > 0.0) yn[o] = w * (gamma * ((rl[o] - sm) / d - y[o]) + y[o] - yp[o]) + yp[o];
      else yn[o] = (rl[o] - sm) * (1.0 / d);
    }
    for (PetscInt o = 0; o < m; o++) {
      yp[o] = y[o];
      y[o]  = yn[o];
    }
  }
  if (hi > 0.0 && its > 0) { /* the scale T_k(sigma) / (T_k(sigma) + 1), T_k = cosh(k acosh(sigma)) */
    const double tk = cosh((double)its * acosh((hi + lo) / (hi - lo)));
    for (PetscInt o = 0; o < m; o++) y[o] *= tk / (tk + 1.0);
  }
  for (PetscInt o = 0; o < m; o++) xout[o] = (zero ? 0.0 : x[o]) + y[o];
  free(rl);
}

/* 1 + max over rows of sum of |in-slice off-diagonal entries| / diagonal: the Gershgorin bound of the analysis */
static double GershgorinBound(Ctx *c)
{
  double mx = 0.0;
  for (PetscInt o = 0; o < c->m; o++) {
    double g = 0.0, d = 0.0;
    for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++) {
      if (c->csr.ja[k] == o) d = c->csr.va[k];
      else if (InSlice(c, o, c->csr.ja[k]) >= 0) g += PetscAbsReal(c->csr.va[k]);
    }
    if (d > 0.0) mx = PetscMax(mx, g / d);
  }
  return 1.0 + mx;
}

#if defined(PETSC_HAVE_CUDA)
/* the bucketed permutation of the device image's permuted product (modsellcuda.h) with buckets of chunk rows: its
   arrays in arr (device), described by *pb */
static PetscErrorCode BucketsBuild(Ctx *c, int chunk, Buf *arr, MSPermBuckets *pb)
{
  const int m = (int)c->m;
  int      *a;

  PetscFunctionBegin;
  PetscCall(BufCreate(4 * sizeof(int) * (size_t)m, arr));
  a = (int *)arr->d;
  PetscCallCUDA((cudaError_t)MSCUDAPermBucketsBuild(m, chunk, c->dv.perm, c->dv.iperm, a, a + m, a + 2 * m, a + 3 * m, NULL));
  PetscCall(PetscMemzero(pb, sizeof(*pb)));
  pb->chunk    = chunk;
  pb->nbuckets = (m + chunk - 1) / chunk;
  pb->px       = a;
  pb->qx       = a + m;
  pb->py       = a + 2 * m;
  pb->qy       = a + 3 * m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the device array of bout holds exactly want (bit for bit) */
static PetscErrorCode SameBits(Buf *bout, const double *want, PetscInt m, PetscBool *same)
{
  double *got;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(bout->bytes / sizeof(double) + 1, &got));
  PetscCall(BufDownload(bout, got));
  *same = (PetscBool)!memcmp(got, want, sizeof(double) * (size_t)m);
  PetscCall(PetscFree(got));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the symmetry kernel's result computed from the CSR: every nonzero in-slice entry of the slices s % stride == 0 against
   its transpose (MSBJSSymmetryTest(), bjsmoothkernels.h) */
static void SymmetryDirect(Ctx *c, int stride, MSBJSSymmetry *want)
{
  memset(want, 0, sizeof(*want));
  want->firstrow = MS_BJS_BAD_NONE;
  for (PetscInt o = 0; o < c->m; o++) {
    if ((c->iperm[o] / c->sh) % stride) continue;
    for (PetscInt k = c->csr.ia[o]; k < c->csr.ia[o + 1]; k++) {
      const PetscInt j = c->csr.ja[k];
      double         u = 0.0, d = 0.0;
      int            qc = 0, f;

      if (InSlice(c, o, j) < 0 || c->csr.va[k] == 0.0) continue;
      for (PetscInt e = c->csr.ia[j]; e < c->csr.ia[j + 1]; e++) {
        if (c->csr.ja[e] == o) u = c->csr.va[e];
        if (InSlice(c, j, c->csr.ja[e]) >= 0 && c->csr.va[e] != 0.0) qc = 1;
      }
      for (PetscInt e = c->csr.ia[o]; e < c->csr.ia[o + 1]; e++)
        if (c->csr.ja[e] == o) d = c->csr.va[e];
      f = MSBJSSymmetryTest(c->csr.va[k], u, d, qc);
      want->nchecked++;
      if (f == 2) want->ndecoupled++;
      if (f == 1) {
        want->nasym++;
        if ((unsigned long long)o < want->firstrow) want->firstrow = (unsigned long long)o;
      }
    }
  }
}

/* the symmetry kernel on c's image (every slice, one in three) against SymmetryDirect(), the CUDA one against the
   reference; the counts must agree, and the verdict be the one expected */
static PetscErrorCode TestBJSSymmetryImage(Ctx *c, const char *what, int expect) /* 0: not symmetric, 1: symmetric, 2: but for decoupled rows */
{
  Buf bst;

  PetscFunctionBegin;
  PetscCall(BufCreate(sizeof(MSBJSSymmetry), &bst));
  for (int stride = 1; stride <= 3; stride += 2) {
    MSBJSSymmetry want, got;
    PetscBool     ok;
    int           err;
    char          name[128];

    SymmetryDirect(c, stride, &want);
    memset(bst.h, POISON, bst.bytes);
    err = MSBJSKernels_Reference.symmetry(&c->hv, stride, (MSBJSSymmetry *)bst.h, NULL);
    got = *(MSBJSSymmetry *)bst.h;
    ok  = (PetscBool)(!err && !memcmp(&got, &want, sizeof(got)) && want.nchecked > 0 && (expect ? want.nasym == 0 && (expect == 2) == (want.ndecoupled > 0) : want.nasym > 0));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      MSBJSSymmetry dst;
      PetscCallCUDA(cudaMemset(bst.d, POISON, bst.bytes));
      err = MSBJSKernels_CUDA.symmetry(&c->dv, stride, (MSBJSSymmetry *)bst.d, NULL);
      PetscCall(BufDownload(&bst, &dst));
      ok = (PetscBool)(!err && !memcmp(&dst, &want, sizeof(dst)));
    }
#endif
    PetscCall(PetscSNPrintf(name, sizeof(name), "bjsmooth symmetry %s, one slice in %d (%s)", what, stride, want.nasym ? "not symmetric" : (want.ndecoupled ? "symmetric but for decoupled rows" : "symmetric")));
    PetscCall(Report(name, ok));
  }
  PetscCall(BufDestroy(&bst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symmetry kernel on c's random matrix (not symmetric), on its symmetric part (A + A^T) / 2, and on that part with
   every third row reduced to its diagonal (rows decoupled: one-sided couplings that the kernel sets apart) */
static PetscErrorCode TestBJSSymmetry(Ctx *c, MatModSELLOrdering ord)
{
  PetscFunctionBegin;
  PetscCall(TestBJSSymmetryImage(c, "random", 0));
  for (int dec = 0; dec < 2; dec++) {
    Ctx       s = {0};
    MSTestCOO coo = {0};

    s.m = s.n = c->m;
    s.sh      = c->sh;
    s.square  = PETSC_TRUE;
    for (PetscInt i = 0; i < c->m; i++)
      for (PetscInt k = c->csr.ia[i]; k < c->csr.ia[i + 1]; k++) {
        const PetscInt j = c->csr.ja[k];
        if (dec && i % 3 == 0 && j != i) continue; /* row i: its diagonal only */
        PetscCall(MSTestCOOAdd(&coo, i, j, i == j ? c->csr.va[k] : 0.5 * c->csr.va[k]));
        if (j != i && !(dec && j % 3 == 0)) PetscCall(MSTestCOOAdd(&coo, j, i, 0.5 * c->csr.va[k]));
      }
    PetscCall(MSTestCOOToCSR(&coo, s.m, s.n, &s.csr));
    PetscCall(SetUpImage(&s, PETSC_TRUE, ord));
    PetscCall(TestBJSSymmetryImage(&s, dec ? "(A + A^T) / 2, every third row decoupled" : "(A + A^T) / 2", 1 + dec));
    PetscCall(DestroyImage(&s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBJS(Ctx *c)
{
  const PetscInt m = c->m, nloc = MaxLocal(c);
  double        *b, *offp, *x, *want, *d;
  Buf            bb, boff, bx, bout, bst, lc, lv, dinv, tab;
  MSBJSStatus    hst;
  PetscBool      ok;
  int            err, use_shared;
  size_t         smem, need, optin;
  const char    *names[] = {"jacobi", "gs", "sgs", "cg", "chebyshev"};
  double         hi, lo, gersh;
#if defined(PETSC_HAVE_CUDA)
  Buf           pbarr = {0}, bwork = {0};
  MSPermBuckets pb;
  const int     chunk = 37; /* many buckets, the last one partial */
  PetscBool     bucketed = (PetscBool)(use_cuda && c->dv.perm && c->m > chunk);
#endif

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (bucketed) {
    PetscCall(BucketsBuild(c, chunk, &pbarr, &pb));
    PetscCall(BufCreate(sizeof(double) * MS_BJS_BUCKET_WORK(c->m, PETSC_TRUE, PETSC_FALSE), &bwork));
  }
#endif
  PetscCall(PetscMalloc5(m, &b, m, &offp, m, &x, m, &want, m, &d));
  RandomVector(m, 31, -1.0, 1.0, b);
  RandomVector(m, 37, -0.5, 0.5, offp);
  RandomVector(m, 41, -1.0, 1.0, x);
  /* analyze */
  PetscCall(BufCreate(sizeof(MSBJSStatus), &bst));
  err = MSBJSKernels_Reference.analyze(&c->hv, (MSBJSStatus *)bst.h, NULL);
  hst = *(MSBJSStatus *)bst.h;
  PetscCall(PetscMemcpy(&gersh, &hst.gersh, sizeof(gersh)));
  hi = GershgorinBound(c);
  lo = hi / 20.0;
  ok = (PetscBool)(err == 0 && hst.maxloc == (unsigned long long)nloc && hst.badrow == MS_BJS_BAD_NONE && hst.badval == MS_BJS_BAD_NONE && PetscAbsReal(1.0 + gersh - hi) <= 1e-14 * hi);
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    MSBJSStatus dst;
    err = MSBJSKernels_CUDA.analyze(&c->dv, (MSBJSStatus *)bst.d, NULL);
    PetscCall(BufDownload(&bst, &dst));
    ok = (PetscBool)(err == 0 && dst.maxloc == hst.maxloc && dst.badrow == hst.badrow && dst.badval == hst.badval && dst.gersh == hst.gersh);
  }
#endif
  PetscCall(Report("bjsmooth analyze", ok));
  PetscCall(BufDestroy(&bst));

  { /* inner chebyshev's coefficients for 3 sweeps on [hi / 20, hi] */
    double h[MS_BJS_CHEB_TABLE(3)];
    MSBJSChebTable(lo, hi, 3, h);
    PetscCall(BufInput(sizeof(h), h, &tab));
  }
  PetscCall(BufInput(sizeof(double) * m, b, &bb));
  PetscCall(BufInput(sizeof(double) * m, offp, &boff));
  PetscCall(BufInput(sizeof(double) * m, x, &bx));
  /* sweeps: jacobi and chebyshev against the direct computation, every inner method against the reference on the device */
  for (int inner = MS_BJS_INNER_JACOBI; inner <= MS_BJS_INNER_CHEBY; inner++) {
    for (int zero = 0; zero < 2; zero++) {
      for (int shared = 0; shared < 2; shared++) {
        char what[128];

        PetscCall(BufCreate(sizeof(double) * m, &bout));
        err = MSBJSKernels_Reference.configure((int)c->sh, (int)nloc, inner, !shared, &use_shared, &smem, &need, &optin);
        ok  = (PetscBool)(err == 0 && use_shared == shared);
        err = MSBJSKernels_Reference.sweep(&c->hv, NULL, inner, 3, 0.0, inner == MS_BJS_INNER_CHEBY ? (const double *)tab.h : NULL, (int)nloc, use_shared, smem, zero, 0, (const double *)bb.h, (const double *)boff.h, zero ? NULL : (const double *)bx.h, (double *)bout.h, NULL, NULL);
        ok  = (PetscBool)(ok && err == 0);
        if (inner == MS_BJS_INNER_JACOBI || inner == MS_BJS_INNER_CHEBY) {
          DirectSweep(c, 3, inner == MS_BJS_INNER_CHEBY ? lo : 0.0, inner == MS_BJS_INNER_CHEBY ? hi : 0.0, (PetscBool)zero, b, offp, x, want);
          ok = (PetscBool)(ok && RelDiff((double *)bout.h, want, m, 1.0) < (inner == MS_BJS_INNER_CHEBY ? 1e-12 : 1e-13));
        } else ok = (PetscBool)(ok && Written((double *)bout.h, m) && RelDiff((double *)bout.h, (double *)bout.h, m, 1.0) == 0.0); /* every entry written, finite */
#if defined(PETSC_HAVE_CUDA)
        if (use_cuda && ok) {
          err = MSBJSKernels_CUDA.configure((int)c->sh, (int)nloc, inner, !shared, &use_shared, &smem, &need, &optin);
          ok  = (PetscBool)(err == 0);
          err = MSBJSKernels_CUDA.sweep(&c->dv, NULL, inner, 3, 0.0, inner == MS_BJS_INNER_CHEBY ? (const double *)tab.d : NULL, (int)nloc, use_shared, smem, zero, 0, (const double *)bb.d, (const double *)boff.d, zero ? NULL : (const double *)bx.d, (double *)bout.d, NULL, NULL);
          PetscCall(BufDownload(&bout, d));
          ok = (PetscBool)(ok && err == 0 && RelDiff(d, (double *)bout.h, m, 1.0) < (inner == MS_BJS_INNER_CG ? 1e-10 : 1e-13));
          if (bucketed && ok) { /* through the buckets: the same arithmetic, the same bits */
            PetscBool same;
            PetscCallCUDA(cudaMemset(bout.d, POISON, bout.bytes));
            err = MSBJSKernels_CUDA.sweep(&c->dv, &pb, inner, 3, 0.0, inner == MS_BJS_INNER_CHEBY ? (const double *)tab.d : NULL, (int)nloc, use_shared, smem, zero, 0, (const double *)bb.d, (const double *)boff.d, zero ? NULL : (const double *)bx.d, (double *)bout.d, (double *)bwork.d, NULL);
            PetscCall(SameBits(&bout, d, m, &same));
            ok = (PetscBool)(err == 0 && same);
            if (!ok) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  the bucketed sweep (buckets of %d rows) differs from the sweep through perm\n", chunk));
          }
        }
#endif
        PetscCall(PetscSNPrintf(what, sizeof(what), "bjsmooth sweep inner %s%s, coefficients %s", names[inner], zero ? " from zero" : "", shared ? "apart" : "from the image"));
        PetscCall(Report(what, ok));
        PetscCall(BufDestroy(&bout));
      }
    }
  }
  /* zero_jacobi on the compact block against the sweep from zero (the same arithmetic) */
  if (nloc >= 1 && nloc <= MS_PATTERN_MAXLOC) {
    PetscCall(BufCreate(sizeof(short) * nloc * m, &lc));
    PetscCall(BufCreate(sizeof(double) * nloc * m, &lv));
    PetscCall(BufCreate(sizeof(double) * m, &dinv));
    PetscCall(BufCreate(sizeof(double) * m, &bout));
    err = MSPatternKernels_Reference.extract_local(&c->hv, (int)nloc, MS_PART_ALL, (short *)lc.h, (double *)lv.h, (double *)dinv.h, NULL);
    ok  = (PetscBool)(err == 0);
    for (int cheb = 0; cheb < 2; cheb++) { /* inner jacobi, then chebyshev */
      const double zlo = cheb ? lo : 0.0, zhi = cheb ? hi : 0.0; /* the direct computation's interval */

      ok = (PetscBool)(err == 0);
      err = MSBJSKernels_Reference.zero_jacobi(&c->hv, NULL, (int)nloc, (const short *)lc.h, (const double *)lv.h, (const double *)dinv.h, 3, cheb ? (const double *)tab.h : NULL, (const double *)bb.h, (const double *)boff.h, (double *)bout.h, NULL, NULL);
      DirectSweep(c, 3, zlo, zhi, PETSC_TRUE, b, offp, x, want);
      ok = (PetscBool)(ok && err == 0 && RelDiff((double *)bout.h, want, m, 1.0) < 1e-12);
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        err = MSPatternKernels_CUDA.extract_local(&c->dv, (int)nloc, MS_PART_ALL, (short *)lc.d, (double *)lv.d, (double *)dinv.d, NULL);
        ok  = (PetscBool)(err == 0);
        /* without a work array (a permuted image: written through perm) and with one (written in the image's order and
           gathered back through iperm): the same function */
        for (int w = 0; w < 2 && ok; w++) {
          Buf work;
          PetscCall(BufCreate(sizeof(double) * m, &work));
          err = MSBJSKernels_CUDA.zero_jacobi(&c->dv, NULL, (int)nloc, (const short *)lc.d, (const double *)lv.d, (const double *)dinv.d, 3, cheb ? (const double *)tab.d : NULL, (const double *)bb.d, (const double *)boff.d, (double *)bout.d, w ? (double *)work.d : NULL, NULL);
          PetscCall(BufDownload(&bout, d));
          ok = (PetscBool)(ok && err == 0 && RelDiff(d, (double *)bout.h, m, 1.0) < 1e-13);
          PetscCall(BufDestroy(&work));
        }
        /* through the buckets (b and offp scattered, y written into its buckets and gathered back), with and without
           offp: the same bits as through perm */
        for (int o = 0; o < 2 && ok && bucketed; o++) {
          const double *off = o ? (const double *)boff.d : NULL;
          double       *want;
          PetscBool     same;

          PetscCall(PetscMalloc1(m, &want));
          err = MSBJSKernels_CUDA.zero_jacobi(&c->dv, NULL, (int)nloc, (const short *)lc.d, (const double *)lv.d, (const double *)dinv.d, 3, cheb ? (const double *)tab.d : NULL, (const double *)bb.d, off, (double *)bout.d, NULL, NULL);
          PetscCall(BufDownload(&bout, d));
          PetscCall(PetscArraycpy(want, d, m));
          PetscCallCUDA(cudaMemset(bout.d, POISON, bout.bytes));
          err = err ? err : MSBJSKernels_CUDA.zero_jacobi(&c->dv, &pb, (int)nloc, (const short *)lc.d, (const double *)lv.d, (const double *)dinv.d, 3, cheb ? (const double *)tab.d : NULL, (const double *)bb.d, off, (double *)bout.d, (double *)bwork.d, NULL);
          PetscCall(SameBits(&bout, want, m, &same));
          ok = (PetscBool)(err == 0 && same);
          if (!ok) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  the bucketed zero_jacobi (buckets of %d rows%s) differs from the one through perm\n", chunk, o ? ", offp" : ""));
          PetscCall(PetscFree(want));
        }
      }
#endif
      PetscCall(Report(cheb ? "bjsmooth zero_jacobi chebyshev" : "bjsmooth zero_jacobi", ok));
    }
    PetscCall(BufDestroy(&lc));
    PetscCall(BufDestroy(&lv));
    PetscCall(BufDestroy(&dinv));
    PetscCall(BufDestroy(&bout));
  }
  PetscCall(BufDestroy(&tab));
  PetscCall(BufDestroy(&bb));
  PetscCall(BufDestroy(&boff));
  PetscCall(BufDestroy(&bx));
#if defined(PETSC_HAVE_CUDA)
  if (bucketed) {
    PetscCall(BufDestroy(&pbarr));
    PetscCall(BufDestroy(&bwork));
  }
#endif
  PetscCall(PetscFree5(b, offp, x, want, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* PCBRBILU's kernels (brbilukernels.h)                                                                        */

/* An ordering as PCBRBILU's glue hands it to the kernels (brbordering.h), made here: a grid ordering of the box
   nx x ny x nz (bricks red/black by the parity of ix + iy + iz, lexicographic inside a brick and among the bricks of a
   colour) or a graph ordering (blocks of -brb_block_rows consecutive rows of the identity or of a random
   permutation, coloured greedily so that blocks of one colour are not coupled) */
typedef struct {
  PetscBool grid;
  int       m, nb, ncolors, box[3], nblk[3];
  int      *perm, *bstart, *cstart, *bid, *color; /* color: of each block */
  int      *lperm, sh;                            /* graph: the partition (new -> old), block q its rows q sh .. */
} BRBTestOrdering;

static PetscErrorCode BRBTestOrderingDestroy(BRBTestOrdering *o)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(o->perm));
  PetscCall(PetscFree(o->bstart));
  PetscCall(PetscFree(o->cstart));
  PetscCall(PetscFree(o->bid));
  PetscCall(PetscFree(o->color));
  PetscCall(PetscFree(o->lperm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BRBTestOrderingGrid(const int box[3], const int nblk[3], BRBTestOrdering *o)
{
  int nb = 1, b = 0;

  PetscFunctionBegin;
  o->grid = PETSC_TRUE;
  o->m    = box[0] * box[1] * box[2];
  for (int a = 0; a < 3; a++) {
    o->box[a]  = box[a];
    o->nblk[a] = PetscMax(1, PetscMin(nblk[a], box[a]));
    nb *= o->nblk[a];
  }
  o->nb      = nb;
  o->ncolors = nb > 1 ? 2 : 1;
  PetscCall(PetscMalloc1(PetscMax(o->m, 1), &o->perm));
  PetscCall(PetscMalloc1(nb + 1, &o->bstart));
  PetscCall(PetscMalloc1(3, &o->cstart));
  PetscCall(PetscMalloc1(nb, &o->bid));
  PetscCall(PetscMalloc1(nb, &o->color));
  o->bstart[0] = 0;
  for (int c = 0; c < o->ncolors; c++) {
    o->cstart[c] = b;
    for (int iz = 0; iz < o->nblk[2]; iz++)
      for (int iy = 0; iy < o->nblk[1]; iy++)
        for (int ix = 0; ix < o->nblk[0]; ix++) {
          int lo[3], hi[3], t[3] = {ix, iy, iz}, p = o->bstart[b];

          if ((ix + iy + iz) % o->ncolors != c) continue;
          for (int a = 0; a < 3; a++) {
            lo[a] = t[a] * box[a] / o->nblk[a];
            hi[a] = (t[a] + 1) * box[a] / o->nblk[a];
          }
          for (int k = lo[2]; k < hi[2]; k++)
            for (int j = lo[1]; j < hi[1]; j++)
              for (int i = lo[0]; i < hi[0]; i++) o->perm[p++] = i + box[0] * (j + box[1] * k);
          o->bid[b]        = ix + o->nblk[0] * (iy + o->nblk[1] * iz);
          o->color[b]      = c;
          o->bstart[b + 1] = p;
          b++;
        }
  }
  o->cstart[o->ncolors] = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int BRBTestPairCmp(const void *a, const void *b)
{
  const int *x = (const int *)a, *y = (const int *)b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : (x[1] > y[1]));
}

static PetscErrorCode BRBTestOrderingGraph(const MSTestCSR *A, int brows, PetscBool permute, BRBTestOrdering *o)
{
  const int m = (int)A->nrows, nb = (m + brows - 1) / brows;
  int      *p0, *blk, *col0, *pairs, npairs = 0, used[MS_BRB_MAXCOLORS + 1], b = 0;

  PetscFunctionBegin;
  o->grid = PETSC_FALSE;
  o->m    = m;
  o->nb   = nb;
  PetscCall(PetscMalloc4(PetscMax(m, 1), &p0, PetscMax(m, 1), &blk, PetscMax(nb, 1), &col0, 4 * PetscMax(A->ia[m], 1), &pairs));
  for (int i = 0; i < m; i++) p0[i] = i;
  if (permute) { /* Fisher-Yates with the test generator */
    MSTestRng rng = {29};
    for (int i = m - 1; i > 0; i--) {
      const int k = (int)MSTestRngInt(&rng, i + 1), t = p0[i];
      p0[i]         = p0[k];
      p0[k]         = t;
    }
  }
  for (int q = 0; q < m; q++) blk[p0[q]] = q / brows;
  /* the block graph (both directions), then greedy colours in block order: the smallest colour of no coupled block
     coloured before */
  for (int r = 0; r < m; r++)
    for (PetscInt e = A->ia[r]; e < A->ia[r + 1]; e++) {
      const int br = blk[r], bc = blk[A->ja[e]];
      if (br == bc) continue;
      pairs[2 * npairs]     = br;
      pairs[2 * npairs + 1] = bc;
      npairs++;
      pairs[2 * npairs]     = bc;
      pairs[2 * npairs + 1] = br;
      npairs++;
    }
  qsort(pairs, (size_t)npairs, 2 * sizeof(int), BRBTestPairCmp);
  o->ncolors = 0;
  for (int c = 0, k = 0; c < nb; c++) {
    for (int u = 0; u <= MS_BRB_MAXCOLORS; u++) used[u] = 0;
    for (; k < npairs && pairs[2 * k] == c; k++)
      if (pairs[2 * k + 1] < c) used[col0[pairs[2 * k + 1]]] = 1;
    col0[c] = 0;
    while (used[col0[c]]) col0[c]++;
    PetscCheck(col0[c] < MS_BRB_MAXCOLORS, PETSC_COMM_SELF, PETSC_ERR_SUP, "more than %d colours: use larger blocks", MS_BRB_MAXCOLORS);
    o->ncolors = PetscMax(o->ncolors, col0[c] + 1);
  }
  PetscCall(PetscMalloc1(PetscMax(m, 1), &o->perm));
  PetscCall(PetscMalloc1(nb + 1, &o->bstart));
  PetscCall(PetscMalloc1(o->ncolors + 1, &o->cstart));
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &o->bid));
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &o->color));
  o->bstart[0] = 0;
  for (int c = 0; c < o->ncolors; c++) {
    o->cstart[c] = b;
    for (int c0 = 0; c0 < nb; c0++) {
      int p = o->bstart[b];

      if (col0[c0] != c) continue;
      for (int q = c0 * brows; q < PetscMin(m, (c0 + 1) * brows); q++) o->perm[p++] = p0[q];
      o->bid[b]        = c0;
      o->color[b]      = c;
      o->bstart[b + 1] = p;
      b++;
    }
  }
  o->cstart[o->ncolors] = b;
  o->sh                 = brows;
  PetscCall(PetscMalloc1(PetscMax(m, 1), &o->lperm));
  PetscCall(PetscArraycpy(o->lperm, p0, m));
  PetscCall(PetscFree4(p0, blk, col0, pairs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the layout's host fields of an ordering (as PCBRBILU's glue sets them) */
static void BRBTestLayoutInit(const BRBTestOrdering *o, MSBRBLayout *lay)
{
  memset(lay, 0, sizeof(*lay));
  lay->ncolors = o->ncolors;
  for (int c = 0; c < o->ncolors; c++) {
    lay->nb[c]   = o->cstart[c + 1] - o->cstart[c];
    lay->boff[c] = o->cstart[c];
    lay->roff[c] = o->bstart[o->cstart[c]];
  }
  lay->boff[o->ncolors] = o->nb;
  lay->roff[o->ncolors] = o->m;
  if (o->grid)
    for (int a = 0; a < 3; a++) {
      lay->grid.box[a]  = o->box[a];
      lay->grid.nblk[a] = o->nblk[a];
    }
}

/* The test matrix: mstest.h's (-kind, sizes), then -brb_dirichlet_rows (the rows of the box's boundary points become
   identity rows, their neighbours keep the coupling: a pattern that is not symmetric), -brb_empty_rows n (the rows
   with i + 2 j + 3 k = 1 mod n emptied), -brb_extra k (k random couplings a_ij = a_ji = -0.01 added) */
static PetscErrorCode BRBTestMatrix(const int box[3], MSTestCSR *A)
{
  MSTestCSR T;
  MSTestCOO coo = {0};
  PetscBool drows = PETSC_FALSE;
  PetscInt  empty = 0, extra = 0;
  MSTestRng rng = {53};

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-brb_dirichlet_rows", &drows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-brb_empty_rows", &empty, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-brb_extra", &extra, NULL));
  PetscCall(MSTestGenerate(PETSC_COMM_SELF, &T));
  PetscCheck(T.nrows == T.ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "a square matrix");
  PetscCheck(!(drows || empty) || (PetscInt)box[0] * box[1] * box[2] == T.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-brb_dirichlet_rows and -brb_empty_rows need -brb_box with as many points as rows");
  for (PetscInt r = 0; r < T.nrows; r++) {
    const int i = box[0] ? (int)(r % box[0]) : 0, j = box[0] ? (int)((r / box[0]) % box[1]) : 0, k = box[0] ? (int)(r / ((PetscInt)box[0] * box[1])) : 0;

    if (empty > 0 && (i + 2 * j + 3 * k) % empty == 1) continue;
    if (drows && (i == 0 || j == 0 || i == box[0] - 1 || j == box[1] - 1 || (box[2] > 1 && (k == 0 || k == box[2] - 1)))) {
      PetscCall(MSTestCOOAdd(&coo, r, r, 1.0));
      continue;
    }
    for (PetscInt e = T.ia[r]; e < T.ia[r + 1]; e++) PetscCall(MSTestCOOAdd(&coo, r, T.ja[e], T.va[e]));
  }
  for (PetscInt q = 0; q < extra; q++) {
    const PetscInt i = MSTestRngInt(&rng, T.nrows), j = MSTestRngInt(&rng, T.nrows);
    if (i == j) continue;
    PetscCall(MSTestCOOAdd(&coo, i, j, -0.01));
    PetscCall(MSTestCOOAdd(&coo, j, i, -0.01));
  }
  PetscCall(MSTestCOOToCSR(&coo, T.nrows, T.ncols, A));
  PetscCall(MSTestCSRDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the first n ints (or unsigned shorts) of the reference's array h equal those of the direct computation */
static PetscBool SameInts(const void *h, const void *want, size_t bytes)
{
  return (PetscBool)!memcmp(h, want, bytes);
}

/* M = (I + L) D (I + U~) of the converted double factors (nonsymmetric, or symmetric: upper slot (i, j) holds l_ji),
   row s of it into acc (storage numbering; mark: the columns touched, reset by the caller) */
static void BRBTestMRow(const MSBRBLayout *lay, const double *fv, const double *fdinv, long long s, double *acc, double *aabs, int *touched, int *nt)
{
  long long s0;
  int       st, w;

  MSBRBRow(lay, s, &s0, &st, &w);
  /* k = s itself (L_ss = 1): d_s (I + U~) row s */
  {
    const double d = 1.0 / fdinv[s];
    acc[s] += d;
    aabs[s] += PetscAbsReal(d);
    touched[(*nt)++] = (int)s;
    for (int q = lay->nl[s]; q < w; q++) {
      const long long sl = s0 + (long long)q * st;
      const int       j  = lay->col[sl];
      if (j < 0) break;
      acc[j] += d * fv[sl];
      aabs[j] += PetscAbsReal(d * fv[sl]);
      touched[(*nt)++] = j;
    }
  }
  for (int q = 0; q < lay->nl[s]; q++) { /* k < s: l_sk d_k (I + U~) row k */
    const long long sl = s0 + (long long)q * st;
    const int       k  = lay->col[sl];
    const double    lk = fv[sl] / fdinv[k];
    long long       k0;
    int             kst, kw;

    acc[k] += lk;
    aabs[k] += PetscAbsReal(lk);
    touched[(*nt)++] = k;
    MSBRBRow(lay, k, &k0, &kst, &kw);
    for (int r = lay->nl[k]; r < kw; r++) {
      const long long kl = k0 + (long long)r * kst;
      const int       j  = lay->col[kl];
      if (j < 0) break;
      acc[j] += lk * fv[kl];
      aabs[j] += PetscAbsReal(lk * fv[kl]);
      touched[(*nt)++] = j;
    }
  }
}

/* The factorizations ilu, milu, rmilu (alpha 0.95), pmilu (zeta h^2 0.01) on the layout, converted to double and to
   single factors, nonsymmetric and symmetric, and applied: against what they compute (ilu: M = A on A's pattern; milu and
   pmilu: M has the row sums of A, its diagonal scaled for pmilu; every double apply: M x = b with M = (I + L) D (I + U~)
   of the stored factors), the CUDA kernels against the reference (to 1e-12; single factors 1e-6), on a grid ordering
   also the GPU's apply through the blocks' buffers. A pivot failure must be found at the same row by both. */
static PetscErrorCode BRBTestFactors(const BRBTestOrdering *o, const MSBRBLayout *lay, const MSBRBLayout *layd, const int *ai, const int *aj, const double *aa, Buf *bmap, Buf *bdmap, Buf *baa, Buf *bplaces)
{
  const char     *names[] = {"ilu", "milu", "rmilu", "pmilu"};
  const double    alphas[] = {0.0, 1.0, 0.95, 1.0}, pertfacs[] = {1.0, 1.0, 1.0, 1.01};
  const int       m = o->m;
  const long long nslots = lay->soff[lay->ncolors];
  double         *bvec, *acc, *aabs, *xs;
  int            *touched, *stor, wmax = 0;
  Buf             bwork, bd, bst, bfv, bfd, by, bb, bx;

  PetscFunctionBegin;
  for (int c = 0; c < lay->ncolors; c++) wmax = PetscMax(wmax, lay->W[c]);
  PetscCall(PetscMalloc6(PetscMax(m, 1), &bvec, PetscMax(m, 1), &acc, PetscMax(m, 1), &aabs, PetscMax(m, 1), &xs, (wmax + 1) * (wmax + 1) + 1, &touched, PetscMax(m, 1), &stor));
  for (int s = 0; s < m; s++) {
    stor[lay->sperm[s]] = s;
    acc[s]              = 0;
    aabs[s]             = 0;
  }
  RandomVector(m, 61, -1.0, 1.0, bvec);
  PetscCall(BufInput(sizeof(double) * PetscMax(m, 1), bvec, &bb));
  PetscCall(BufCreate(sizeof(double) * PetscMax(nslots, 1), &bwork));
  PetscCall(BufCreate(sizeof(double) * PetscMax(m, 1), &bd));
  PetscCall(BufCreate(sizeof(MSBRBStatus), &bst));
  PetscCall(BufCreate(sizeof(double) * PetscMax(nslots, 1), &bfv));
  PetscCall(BufCreate(sizeof(double) * PetscMax(m, 1), &bfd));
  PetscCall(BufCreate(sizeof(double) * PetscMax(m, 1), &by));
  PetscCall(BufCreate(sizeof(double) * PetscMax(m, 1), &bx));
  for (int t = 0; t < 4; t++) {
    MSBRBStatus st;
    PetscBool   ok;
    int         err;
    char        what[160];

    err = MSBRBKernels_Reference.factor(lay, (const int *)bmap->h, (const int *)bdmap->h, aa, alphas[t], pertfacs[t], 1e-8, (double *)bwork.h, (double *)bd.h, (MSBRBStatus *)bst.h, NULL);
    st  = *(MSBRBStatus *)bst.h;
    ok  = (PetscBool)!err;
    { /* the smallest ratio d_s / a_ss, and the first row failing the test (the ratio not above 1e-8) */
      const int         *dm = (const int *)bdmap->h;
      const double      *dd = (const double *)bd.h;
      unsigned long long mk = MS_BRB_BAD_NONE, fb = MS_BRB_BAD_NONE;

      for (int s = 0; s < m; s++) {
        const double r = dd[s] / (dm[s] >= 0 ? aa[dm[s]] : 0.0);

        if (MSBRBRatioKey(r) < mk) mk = MSBRBRatioKey(r);
        if (!(r - r == 0.0 && r > 1e-8) && (unsigned long long)lay->sperm[s] < fb) fb = (unsigned long long)lay->sperm[s];
      }
      ok = (PetscBool)(ok && st.minkey == mk && st.badrow == fb);
    }
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      MSBRBStatus dst;
      PetscReal   r1, r2;

      err = MSBRBKernels_CUDA.factor(layd, (const int *)bmap->d, (const int *)bdmap->d, (const double *)baa->d, alphas[t], pertfacs[t], 1e-8, (double *)bwork.d, (double *)bd.d, (MSBRBStatus *)bst.d, NULL);
      PetscCall(BufDownload(&bst, &dst));
      ok = (PetscBool)(!err && dst.badrow == st.badrow && (dst.minkey == st.minkey || PetscAbsReal(MSBRBRatioFromKey(dst.minkey) - MSBRBRatioFromKey(st.minkey)) <= 1e-12 * PetscAbsReal(MSBRBRatioFromKey(st.minkey))));
      if (ok && st.badrow == MS_BRB_BAD_NONE) {
        PetscCall(BufRelDiff(&bwork, nslots, &r1));
        PetscCall(BufRelDiff(&bd, m, &r2));
        ok = (PetscBool)(r1 <= 1e-12 && r2 <= 1e-12);
      }
    }
#else
    (void)layd;
    (void)baa;
    (void)bplaces;
#endif
    if (st.badrow != MS_BRB_BAD_NONE) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "brbilu factor %s: a pivot failed (row %llu), the smallest ratio d / a_ii found", names[t], st.badrow));
      PetscCall(Report(what, ok));
      continue;
    }
    for (int sym = 0; sym < 2; sym++)
      for (int single = 0; single < 2; single++) {
        err = MSBRBKernels_Reference.convert(lay, single, sym, (const double *)bwork.h, (const double *)bd.h, bfv.h, bfd.h, NULL);
        ok  = (PetscBool)(ok && !err);
        err = MSBRBKernels_Reference.apply(lay, single, bfv.h, bfd.h, (const double *)bb.h, (double *)bx.h, (double *)by.h, NULL);
        ok  = (PetscBool)(ok && !err && Written((double *)bx.h, m));
        if (!single) {
          const double *fv = (const double *)bfv.h, *fd = (const double *)bfd.h, *x = (const double *)bx.h;
          const int    *sperm = lay->sperm, *dmap = (const int *)bdmap->h;

          for (int s = 0; s < m; s++) xs[s] = x[sperm[s]];
          for (long long s = 0; s < m && ok; s++) {
            const int r = sperm[s];
            double    mx = 0, mxa = 0, rs = 0, rsa = 0, ars = 0;
            int       nt = 0;

            BRBTestMRow(lay, fv, fd, s, acc, aabs, touched, &nt);
            if (t == 0 && !sym) /* ilu: M = A on A's pattern */
              for (int e = ai[r]; e < ai[r + 1]; e++) {
                const int j = stor[aj[e]];
                ok = (PetscBool)(ok && PetscAbsReal(acc[j] - aa[e]) <= 1e-12 * PetscMax(aabs[j], PetscAbsReal(aa[e])));
              }
            for (int k = 0; k < nt; k++) { /* each column once */
              const int j = touched[k];
              if (aabs[j] < 0) continue;
              mx += acc[j] * xs[j];
              mxa += PetscAbsReal(acc[j] * xs[j]);
              rs += acc[j];
              rsa += aabs[j];
              aabs[j] = -1 - aabs[j]; /* done (kept for the pattern check) */
            }
            ok = (PetscBool)(ok && PetscAbsReal(mx - bvec[r]) <= 1e-12 * PetscMax(mxa, PetscAbsReal(bvec[r]))); /* M x = b */
            if (!sym) {
              for (int e = ai[r]; e < ai[r + 1]; e++) ars += aa[e] * (e == dmap[s] ? pertfacs[t] : 1.0);
              if (t == 1 || t == 3) ok = (PetscBool)(ok && PetscAbsReal(rs - ars) <= 1e-12 * rsa); /* milu, pmilu: row sums */
            }
            for (int k = 0; k < nt; k++) {
              acc[touched[k]]  = 0;
              aabs[touched[k]] = 0;
            }
          }
        }
#if defined(PETSC_HAVE_CUDA)
        if (use_cuda && ok) {
          const PetscReal tol = single ? 1e-6 : 1e-12;
          PetscReal       r[3];
          MSBRBLayout     lt = *layd;

          err = MSBRBKernels_CUDA.convert(layd, single, sym, (const double *)bwork.d, (const double *)bd.d, bfv.d, bfd.d, NULL);
          ok  = (PetscBool)!err;
          if (!single) {
            PetscCall(BufRelDiff(&bfv, nslots, &r[0]));
            PetscCall(BufRelDiff(&bfd, m, &r[1]));
            ok = (PetscBool)(ok && r[0] <= tol && r[1] <= tol);
          }
          for (int tr = 0; tr < (o->grid ? 2 : 1) && ok; tr++) { /* the scattered copies, then (grid) through the buffers */
            if (tr) {
              int w[3];
              for (int a = 0; a < 3; a++) w[a] = (lt.grid.box[a] + lt.grid.nblk[a] - 1) / lt.grid.nblk[a];
              lt.tbuf = (w[0] + (w[0] & 1)) * w[1] * w[2];
              lt.tpos = (const unsigned short *)bplaces->d;
              if (lt.tbuf > MSBRBKernels_CUDA.tbuf_max) break;
            }
            PetscCallCUDA(cudaMemset(bx.d, POISON, bx.bytes));
            err = MSBRBKernels_CUDA.apply(&lt, single, bfv.d, bfd.d, (const double *)bb.d, (double *)bx.d, (double *)by.d, NULL);
            PetscCall(BufRelDiff(&bx, m, &r[2]));
            ok = (PetscBool)(!err && r[2] <= tol);
          }
        }
#endif
      }
    PetscCall(PetscSNPrintf(what, sizeof(what), "brbilu factor, convert (double, single; nonsymmetric, symmetric), apply: %s", names[t]));
    PetscCall(Report(what, ok));
  }
  {
    Buf *all[] = {&bwork, &bd, &bst, &bfv, &bfd, &by, &bb, &bx};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PetscCall(BufDestroy(all[i]));
  }
  PetscCall(PetscFree6(bvec, acc, aabs, xs, touched, stor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR check of the shared layer (mskernels.h, MS_CHECK_CSR) on the matrix (ai, aj, aa) against a direct
   computation here: the first offending rows, the counts, the largest off-diagonal to diagonal ratio; with -cuda the
   CUDA kernel against the reference, bit for bit */
static PetscErrorCode TestCSRCheck(int m, const int *ai, const int *aj, const double *aa, const char *what)
{
  MSCSRCheck want, got;
  double     maxdd = 0;
  Buf        bai, baj, baa, bck;
  PetscBool  ok;
  char       msg[200];
  int        err;

  PetscFunctionBegin;
  memset(&want, 0, sizeof(want));
  want.nonfinite = want.nodiag = want.negdiag = want.posoff = want.notdd = want.asym = MS_CHECK_NONE;
  for (int i = 0; i < m; i++) {
    double d = 0, off = 0;
    int    hasd = 0, nf = 0, pos = 0, asym = 0;

    for (int e = ai[i]; e < ai[i + 1]; e++) {
      if (PetscIsInfOrNanReal(aa[e])) nf = 1;
      if (aj[e] == i) {
        d    = aa[e];
        hasd = 1;
      }
    }
    for (int e = ai[i]; e < ai[i + 1]; e++) {
      double t = 0;

      if (aj[e] == i) continue;
      off += PetscAbsReal(aa[e]);
      pos = pos || aa[e] > 1e-12 * PetscAbsReal(d);
      for (int f = ai[aj[e]]; f < ai[aj[e] + 1]; f++)
        if (aj[f] == i) t = aa[f];
      asym = asym || PetscAbsReal(aa[e] - t) > 1e-10 * (PetscAbsReal(aa[e]) + PetscAbsReal(t)) + 1e-14 * PetscAbsReal(d);
    }
    if (nf && want.nonfinite == MS_CHECK_NONE) want.nonfinite = (unsigned long long)i;
    if ((!hasd || d == 0) && want.nodiag == MS_CHECK_NONE) want.nodiag = (unsigned long long)i;
    if (hasd && d < 0 && want.negdiag == MS_CHECK_NONE) want.negdiag = (unsigned long long)i;
    if (pos) {
      if (want.posoff == MS_CHECK_NONE) want.posoff = (unsigned long long)i;
      want.nposoff++;
    }
    if (hasd && d != 0 && off > (1 + 1e-8) * PetscAbsReal(d)) {
      if (want.notdd == MS_CHECK_NONE) want.notdd = (unsigned long long)i;
      want.nnotdd++;
    }
    if (asym) {
      if (want.asym == MS_CHECK_NONE) want.asym = (unsigned long long)i;
      want.nasym++;
    }
    if (hasd && d != 0 && !nf) maxdd = PetscMax(maxdd, off / PetscAbsReal(d));
  }
  memcpy(&want.maxdd, &maxdd, sizeof(maxdd));
  PetscCall(BufInput(sizeof(int) * (m + 1), ai, &bai));
  PetscCall(BufInput(sizeof(int) * PetscMax(ai[m], 1), aj, &baj));
  PetscCall(BufInput(sizeof(double) * PetscMax(ai[m], 1), aa, &baa));
  PetscCall(BufCreate(sizeof(MSCSRCheck), &bck));
  err = MSCheckKernels_Reference.check(m, (const int *)bai.h, (const int *)baj.h, (const double *)baa.h, 1, (MSCSRCheck *)bck.h, NULL);
  got = *(MSCSRCheck *)bck.h;
  ok  = (PetscBool)(!err && !memcmp(&got, &want, sizeof(want)));
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    PetscBool okd;

    err = MSCheckKernels_CUDA.check(m, (const int *)bai.d, (const int *)baj.d, (const double *)baa.d, 1, (MSCSRCheck *)bck.d, NULL);
    PetscCall(BufSame(&bck, sizeof(MSCSRCheck), &okd));
    ok = (PetscBool)(!err && okd);
  }
#endif
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "check (shared layer) of %s: non-finite entries, diagonals, signs, diagonal dominance, symmetry", what));
  PetscCall(Report(msg, ok));
  PetscCall(BufDestroy(&bai));
  PetscCall(BufDestroy(&baj));
  PetscCall(BufDestroy(&baa));
  PetscCall(BufDestroy(&bck));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int BRBTestKeyCmp(const void *a, const void *b)
{
  const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return x < y ? -1 : (x > y);
}

static PetscErrorCode TestBRBILU(void)
{
  const char        *ords[] = {"grid", "graph"};
  PetscInt           ordk = 0, nbox = 3, nblk3 = 3, brows = 37, n3[3] = {0, 0, 0}, b3[3] = {2, 2, 2};
  PetscBool          permute = PETSC_FALSE, ok, okd;
  MSTestCSR          A;
  BRBTestOrdering    o = {0};
  MSBRBLayout        lay, layd;
  MSBRBGrid          grid;
  MSBRBLevelInfo     info, dinfo;
  int                box[3] = {0, 1, 1}, nblk[3], m, nb, nnz, *ai, *aj, *pos, *lev, *nu, *lstart, *lptr, *sperm, *stor, *col, *map, *dmap, err;
  unsigned short    *nl;
  double            *aa;
  long long          nslots = 0;
  Buf                bai, baj, baa, bbid, bperm, brstart, bgperm, bpos, blev, bnu, blstart, binfo, bcur, blptr, bsperm, bstor, bcol, bmap, bnl, bdmap, bplaces;
  const MSBRBKernels *R = &MSBRBKernels_Reference;
#if defined(PETSC_HAVE_CUDA)
  const MSBRBKernels *C = &MSBRBKernels_CUDA;
#endif

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetEList(NULL, NULL, "-brb_ordering", ords, 2, &ordk, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-brb_box", n3, &nbox, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-brb_blocks", b3, &nblk3, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-brb_block_rows", &brows, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-brb_permute", &permute, NULL));
  for (PetscInt a = 0; a < 3; a++) {
    if (a < nbox && n3[a] > 0) box[a] = (int)n3[a];
    nblk[a] = a < nblk3 ? (int)b3[a] : 1;
  }
  PetscCall(BRBTestMatrix(box, &A));
  m = (int)A.nrows;
  if (ordk == 0) {
    PetscCheck(box[0] * box[1] * box[2] == m, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-brb_ordering grid: -brb_box nx,ny,nz with as many points as rows");
    PetscCall(BRBTestOrderingGrid(box, nblk, &o));
    for (int a = 0; a < 3; a++) {
      grid.box[a]  = o.box[a];
      grid.nblk[a] = o.nblk[a];
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "brbilu: grid ordering of %d x %d x %d points, %d x %d x %d bricks, %d colours\n", box[0], box[1], box[2], o.nblk[0], o.nblk[1], o.nblk[2], o.ncolors));
  } else {
    PetscCall(BRBTestOrderingGraph(&A, (int)brows, permute, &o));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "brbilu: graph ordering, %d blocks of %d rows%s, %d colours\n", o.nb, (int)brows, permute ? " of a random permutation" : "", o.ncolors));
  }
  nb  = o.nb;
  nnz = (int)A.ia[m];
  PetscCall(PetscMalloc3(m + 1, &ai, PetscMax(nnz, 1), &aj, PetscMax(nnz, 1), &aa));
  for (int i = 0; i <= m; i++) ai[i] = (int)A.ia[i];
  for (int e = 0; e < nnz; e++) {
    aj[e] = (int)A.ja[e];
    aa[e] = PetscRealPart(A.va[e]);
  }
  PetscCall(BufInput(sizeof(int) * (m + 1), ai, &bai));
  PetscCall(BufInput(sizeof(int) * PetscMax(nnz, 1), aj, &baj));
  PetscCall(BufInput(sizeof(double) * PetscMax(nnz, 1), aa, &baa));
  PetscCall(BufInput(sizeof(int) * PetscMax(nb, 1), o.bid, &bbid));
  PetscCall(BufInput(sizeof(int) * (nb + 1), o.bstart, &brstart));
  PetscCall(BufInput(sizeof(int) * PetscMax(m, 1), o.perm, &bperm));
  BRBTestLayoutInit(&o, &lay);
  lay.rstart = (const int *)brstart.h;
  layd        = lay;
  layd.rstart = (const int *)brstart.d;

  /* the grid ordering's perm */
  if (o.grid) {
    PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bgperm));
    err = R->gridperm(&lay, &grid, (const int *)bbid.h, (int *)bgperm.h, NULL);
    ok  = (PetscBool)(!err && SameInts(bgperm.h, o.perm, sizeof(int) * m));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      err = C->gridperm(&layd, &grid, (const int *)bbid.d, (int *)bgperm.d, NULL);
      PetscCall(BufSame(&bgperm, sizeof(int) * m, &okd));
      ok = (PetscBool)(!err && okd);
    }
#endif
    PetscCall(Report("brbilu gridperm: the bricks' rows, x fastest", ok));
    PetscCall(BufDestroy(&bgperm));
  }

  /* the shared check on the matrix, and on a copy with a positive coupling made one-sided, a negative diagonal entry
     and a NaN */
  PetscCall(TestCSRCheck(m, ai, aj, aa, "the matrix"));
  if (nnz > 2) {
    double *bb;

    PetscCall(PetscMalloc1(nnz, &bb));
    PetscCall(PetscArraycpy(bb, aa, nnz));
    for (int r = m / 3, done = 0; r < m && !done; r++)
      for (int e = ai[r]; e < ai[r + 1]; e++)
        if (aj[e] != r) {
          bb[e] = 0.5;
          done  = 1;
          break;
        }
    for (int r = m / 2, done = 0; r < m && !done; r++)
      for (int e = ai[r]; e < ai[r + 1]; e++)
        if (aj[e] == r) {
          bb[e] = -bb[e];
          done  = 1;
        }
    bb[2 * nnz / 3] = NAN;
    PetscCall(TestCSRCheck(m, ai, aj, bb, "a changed copy"));
    PetscCall(PetscFree(bb));
  }

  /* the graph ordering: the block graph of the partition and the ordering's perm */
  if (!o.grid) {
    const unsigned long long nbq = (unsigned long long)((m + o.sh - 1) / o.sh);
    unsigned long long      *want;
    long long                nwant = 0, noff = 0, nin = 0;
    int                     *blk;
    Buf                      bblk, bkeys, blperm, binf, bgp;
    MSBRBEdgeInfo            inf;

    PetscCall(PetscMalloc2(PetscMax(nnz, 1), &want, PetscMax(m, 1), &blk));
    for (int p = 0; p < m; p++) blk[o.lperm[p]] = p / o.sh;
    for (int r = 0; r < m; r++)
      for (int e = ai[r]; e < ai[r + 1]; e++) {
        const int b = blk[r], c = blk[aj[e]];

        if (aj[e] == r) continue;
        noff++;
        if (b == c) nin++;
        else want[nwant++] = b < c ? (unsigned long long)b * nbq + (unsigned long long)c : (unsigned long long)c * nbq + (unsigned long long)b;
      }
    qsort(want, (size_t)nwant, sizeof(*want), BRBTestKeyCmp);
    {
      long long u = 0;

      for (long long k = 0; k < nwant; k++)
        if (!k || want[k] != want[k - 1]) want[u++] = want[k];
      nwant = u;
    }
    PetscCall(BufInput(sizeof(int) * PetscMax(m, 1), o.lperm, &blperm));
    PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bblk));
    PetscCall(BufCreate(sizeof(MSBRBEdgeInfo), &binf));
    for (int pass = 0; pass < 2; pass++) { /* a buffer too small (half the edges), then large enough */
      const long long cap = pass ? nwant : nwant / 2;

      PetscCall(BufCreate(sizeof(unsigned long long) * (size_t)PetscMax(cap, 1), &bkeys));
      err = R->blockedges(m, (const int *)bai.h, (const int *)baj.h, (const int *)blperm.h, o.sh, (int *)bblk.h, (unsigned long long *)bkeys.h, cap, (MSBRBEdgeInfo *)binf.h, NULL);
      inf = *(MSBRBEdgeInfo *)binf.h;
      ok  = (PetscBool)(!err && inf.nkeys == nwant && inf.noff == noff && inf.ninblock == nin && SameInts(bkeys.h, want, sizeof(*want) * (size_t)cap) && SameInts(bblk.h, blk, sizeof(int) * (size_t)m));
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        MSBRBEdgeInfo dinf;

        err = C->blockedges(m, (const int *)bai.d, (const int *)baj.d, (const int *)blperm.d, o.sh, (int *)bblk.d, (unsigned long long *)bkeys.d, cap, (MSBRBEdgeInfo *)binf.d, NULL);
        PetscCall(BufDownload(&binf, &dinf));
        PetscCall(BufSame(&bkeys, sizeof(*want) * (size_t)cap, &okd));
        ok = (PetscBool)(!err && okd && dinf.nkeys == inf.nkeys && dinf.noff == inf.noff && dinf.ninblock == inf.ninblock);
        PetscCall(BufSame(&bblk, sizeof(int) * (size_t)m, &okd));
        ok = (PetscBool)(ok && okd);
      }
#endif
      PetscCall(Report(pass ? "brbilu blockedges: the partition's block graph, ascending, distinct" : "brbilu blockedges: a buffer too small gets the first edges and their number", ok));
      PetscCall(BufDestroy(&bkeys));
    }
    PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bgp));
    err = R->graphperm(&lay, (const int *)blperm.h, o.sh, (const int *)bbid.h, (int *)bgp.h, NULL);
    ok  = (PetscBool)(!err && SameInts(bgp.h, o.perm, sizeof(int) * m));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      err = C->graphperm(&layd, (const int *)blperm.d, o.sh, (const int *)bbid.d, (int *)bgp.d, NULL);
      PetscCall(BufSame(&bgp, sizeof(int) * m, &okd));
      ok = (PetscBool)(!err && okd);
    }
#endif
    PetscCall(Report("brbilu graphperm: the blocks' rows in the partition's order, colour by colour", ok));
    { /* the inner ordering "colors": a greedy colouring of each block's rows in the order of perm, computed here by
         searching the earlier rows of the block, then the rows by colour */
      int *want2, *col;
      Buf  bin, bwork;

      PetscCall(PetscMalloc2(PetscMax(m, 1), &want2, PetscMax(m, 1), &col));
      for (int b = 0, w = 0; b < nb; b++) {
        int maxc = -1;

        for (int p = o.bstart[b]; p < o.bstart[b + 1]; p++) {
          const int r = o.perm[p];
          int       c = 0, taken = 1;

          while (taken) {
            taken = 0;
            for (int q = o.bstart[b]; q < p && !taken; q++)
              if (col[q] == c)
                for (int e = ai[r]; e < ai[r + 1] && !taken; e++) taken = aj[e] == o.perm[q];
            c += taken;
          }
          col[p] = c;
          maxc   = PetscMax(maxc, c);
        }
        for (int c = 0; c <= maxc; c++)
          for (int p = o.bstart[b]; p < o.bstart[b + 1]; p++)
            if (col[p] == c) want2[w++] = o.perm[p];
      }
      PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bin));
      PetscCall(BufCreate(sizeof(int) * 2 * PetscMax(m, 1), &bwork));
      err = R->innerorder(&lay, (const int *)bai.h, (const int *)baj.h, (const int *)bperm.h, (int *)bwork.h, (int *)bin.h, NULL);
      ok  = (PetscBool)(!err && SameInts(bin.h, want2, sizeof(int) * m));
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        err = C->innerorder(&layd, (const int *)bai.d, (const int *)baj.d, (const int *)bperm.d, (int *)bwork.d, (int *)bin.d, NULL);
        PetscCall(BufSame(&bin, sizeof(int) * m, &okd));
        ok = (PetscBool)(!err && okd);
      }
#endif
      PetscCall(Report("brbilu innerorder: a block's rows by a greedy colouring of its graph", ok));
      PetscCall(BufDestroy(&bin));
      PetscCall(BufDestroy(&bwork));
      PetscCall(PetscFree2(want2, col));
    }
    PetscCall(BufDestroy(&bgp));
    PetscCall(BufDestroy(&blperm));
    PetscCall(BufDestroy(&bblk));
    PetscCall(BufDestroy(&binf));
    PetscCall(PetscFree2(want, blk));
  }

  /* levels: against the longest chains, counts and flops computed here */
  PetscCall(PetscMalloc6(PetscMax(m, 1), &pos, PetscMax(m, 1), &lev, PetscMax(m, 1), &nu, nb + 1, &lstart, PetscMax(m, 1), &sperm, PetscMax(m, 1), &stor));
  {
    int           *blk, *tr, *tp, *cnt, bad = 0, maxl = 0;
    MSBRBLevelInfo want;

    memset(&want, 0, sizeof(want));
    PetscCall(PetscMalloc4(PetscMax(m, 1), &blk, m + 1, &tp, PetscMax(nnz, 1), &tr, m + 1, &cnt));
    for (int p = 0; p < m; p++) pos[o.perm[p]] = p;
    for (int b = 0; b < nb; b++)
      for (int p = o.bstart[b]; p < o.bstart[b + 1]; p++) blk[p] = b;
    /* the transposed pattern (rows coupled to o from above: a_qo) */
    for (int i = 0; i <= m; i++) tp[i] = 0;
    for (int e = 0; e < nnz; e++) tp[aj[e] + 1]++;
    for (int i = 0; i < m; i++) tp[i + 1] += tp[i];
    for (int i = 0; i <= m; i++) cnt[i] = tp[i];
    for (int r = 0; r < m; r++)
      for (int e = ai[r]; e < ai[r + 1]; e++) tr[cnt[aj[e]]++] = r;
    for (int p = 0; p < m; p++) { /* logical order: every earlier coupled row of the block is final */
      const int r = o.perm[p];
      int       w = 0, c = o.color[blk[p]];

      lev[p] = 0;
      nu[p]  = 0;
      for (int e = ai[r]; e < ai[r + 1]; e++) {
        const int q = pos[aj[e]];
        if (aj[e] == r) continue;
        w++;
        if (q < p) want.nlower++;
        else {
          want.nupper++;
          nu[p]++;
        }
        if (blk[q] != blk[p] && o.color[blk[q]] == c) bad = 1;
        if (blk[q] == blk[p] && q < p) lev[p] = PetscMax(lev[p], lev[q] + 1);
      }
      for (int e = tp[r]; e < tp[r + 1]; e++) {
        const int q = pos[tr[e]];
        if (tr[e] != r && blk[q] == blk[p] && q < p) lev[p] = PetscMax(lev[p], lev[q] + 1);
      }
      want.W[c] = PetscMax(want.W[c], w);
    }
    for (int p = 0; p < m; p++) {
      const int r = o.perm[p];
      for (int e = ai[r]; e < ai[r + 1]; e++)
        if (aj[e] != r && pos[aj[e]] < p) want.ffi += 1 + 2 * (unsigned long long)nu[pos[aj[e]]];
    }
    lstart[0] = 0;
    for (int b = 0; b < nb; b++) {
      int l = 0;
      for (int p = o.bstart[b]; p < o.bstart[b + 1]; p++) l = PetscMax(l, lev[p] + 1);
      lstart[b + 1] = lstart[b] + l;
      maxl          = PetscMax(maxl, l);
    }
    want.bad  = bad;
    want.nlev = lstart[nb];
    want.maxl = maxl;
    PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bpos));
    PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &blev));
    PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bnu));
    PetscCall(BufCreate(sizeof(int) * (nb + 1), &blstart));
    PetscCall(BufCreate(sizeof(MSBRBLevelInfo), &binfo));
    err = R->levels(&lay, o.grid ? &grid : NULL, (const int *)bbid.h, (const int *)bai.h, (const int *)baj.h, (const int *)bperm.h, (int *)bpos.h, (int *)blev.h, (int *)bnu.h, (int *)blstart.h, (MSBRBLevelInfo *)binfo.h, NULL);
    info = *(MSBRBLevelInfo *)binfo.h;
    ok   = (PetscBool)(!err && info.bad == want.bad);
    if (!want.bad) {
      ok = (PetscBool)(ok && info.nlower == want.nlower && info.nupper == want.nupper && info.ffi == want.ffi && info.nlev == want.nlev && info.maxl == want.maxl);
      for (int c = 0; c < o.ncolors; c++) ok = (PetscBool)(ok && info.W[c] == want.W[c]);
      ok = (PetscBool)(ok && SameInts(bpos.h, pos, sizeof(int) * m) && SameInts(blev.h, lev, sizeof(int) * m) && SameInts(bnu.h, nu, sizeof(int) * m) && SameInts(blstart.h, lstart, sizeof(int) * (nb + 1)));
    }
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscBool s[4] = {PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE};
      err = C->levels(&layd, o.grid ? &grid : NULL, (const int *)bbid.d, (const int *)bai.d, (const int *)baj.d, (const int *)bperm.d, (int *)bpos.d, (int *)blev.d, (int *)bnu.d, (int *)blstart.d, (MSBRBLevelInfo *)binfo.d, NULL);
      PetscCall(BufDownload(&binfo, &dinfo));
      if (!want.bad) {
        PetscCall(BufSame(&bpos, sizeof(int) * m, &s[0]));
        PetscCall(BufSame(&blev, sizeof(int) * m, &s[1]));
        PetscCall(BufSame(&bnu, sizeof(int) * m, &s[2]));
        PetscCall(BufSame(&blstart, sizeof(int) * (nb + 1), &s[3]));
        ok = (PetscBool)(!err && !memcmp(&dinfo, &info, sizeof(info)) && s[0] && s[1] && s[2] && s[3]);
      } else ok = (PetscBool)(!err && dinfo.bad == info.bad);
    }
#endif
    PetscCall(Report(want.bad ? "brbilu levels: two blocks of one colour coupled, found" : "brbilu levels: positions, longest chains, upper counts, level starts, counts, widths, flops", ok));
    PetscCall(PetscFree4(blk, tp, tr, cnt));
    if (want.bad) goto finish;
  }

  /* storage rows: a block's rows by level, in logical order inside a level (a stable counting sort) */
  PetscCall(PetscMalloc1(lstart[nb] + 1, &lptr));
  for (int b = 0, s = 0; b < nb; b++)
    for (int g = lstart[b]; g < lstart[b + 1]; g++) {
      lptr[g] = s;
      for (int p = o.bstart[b]; p < o.bstart[b + 1]; p++)
        if (lev[p] == g - lstart[b]) {
          sperm[s]         = o.perm[p];
          stor[o.perm[p]] = s++;
        }
    }
  lptr[lstart[nb]] = m;
  lay.lstart       = (const int *)blstart.h;
  layd.lstart      = (const int *)blstart.d;
  PetscCall(BufInput(sizeof(int) * PetscMax(m, 1), nu, &bcur)); /* the kernel's scratch: a copy of nu */
  PetscCall(BufCreate(sizeof(int) * (lstart[nb] + 1), &blptr));
  PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bsperm));
  PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bstor));
  err = R->storage(&lay, (const int *)bperm.h, (const int *)blev.h, (int *)bcur.h, (int *)blptr.h, (int *)bsperm.h, (int *)bstor.h, NULL);
  ok  = (PetscBool)(!err && SameInts(blptr.h, lptr, sizeof(int) * (lstart[nb] + 1)) && SameInts(bsperm.h, sperm, sizeof(int) * m) && SameInts(bstor.h, stor, sizeof(int) * m));
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    PetscBool s[3];
    err = C->storage(&layd, (const int *)bperm.d, (const int *)blev.d, (int *)bcur.d, (int *)blptr.d, (int *)bsperm.d, (int *)bstor.d, NULL);
    PetscCall(BufSame(&blptr, sizeof(int) * (lstart[nb] + 1), &s[0]));
    PetscCall(BufSame(&bsperm, sizeof(int) * m, &s[1]));
    PetscCall(BufSame(&bstor, sizeof(int) * m, &s[2]));
    ok = (PetscBool)(!err && s[0] && s[1] && s[2]);
  }
#endif
  PetscCall(Report("brbilu storage: a block's rows by level, stable", ok));
  lay.lptr   = (const int *)blptr.h;
  lay.sperm  = (const int *)bsperm.h;
  layd.lptr  = (const int *)blptr.d;
  layd.sperm = (const int *)bsperm.d;

  /* slots: every row's off-diagonal entries in the logical order of their columns, then padding */
  for (int c = 0; c < o.ncolors; c++) {
    lay.W[c]    = info.W[c];
    lay.soff[c] = nslots;
    nslots += (long long)(lay.roff[c + 1] - lay.roff[c]) * info.W[c];
  }
  lay.soff[o.ncolors] = nslots;
  for (int c = 0; c <= o.ncolors; c++) {
    layd.W[c]    = lay.W[c];
    layd.soff[c] = lay.soff[c];
  }
  PetscCall(PetscMalloc4(PetscMax(nslots, 1), &col, PetscMax(nslots, 1), &map, PetscMax(m, 1), &nl, PetscMax(m, 1), &dmap));
  for (long long k = 0; k < nslots; k++) col[k] = map[k] = -1;
  for (int b = 0; b < nb; b++) {
    const int c = o.color[b], r0 = o.bstart[b], R_b = o.bstart[b + 1] - r0;
    for (int s = r0; s < r0 + R_b; s++) {
      const int r = sperm[s];
      nl[s]       = 0;
      dmap[s]     = -1;
      for (int e = ai[r]; e < ai[r + 1]; e++) {
        int rank = 0;
        if (aj[e] == r) {
          dmap[s] = e;
          continue;
        }
        for (int f = ai[r]; f < ai[r + 1]; f++) rank += aj[f] != r && pos[aj[f]] < pos[aj[e]];
        col[lay.soff[c] + (long long)(r0 - lay.roff[c]) * lay.W[c] + (long long)rank * R_b + (s - r0)] = stor[aj[e]];
        map[lay.soff[c] + (long long)(r0 - lay.roff[c]) * lay.W[c] + (long long)rank * R_b + (s - r0)] = e;
        nl[s] += pos[aj[e]] < pos[r];
      }
    }
  }
  PetscCall(BufCreate(sizeof(int) * PetscMax(nslots, 1), &bcol));
  PetscCall(BufCreate(sizeof(int) * PetscMax(nslots, 1), &bmap));
  PetscCall(BufCreate(sizeof(unsigned short) * PetscMax(m, 1), &bnl));
  PetscCall(BufCreate(sizeof(int) * PetscMax(m, 1), &bdmap));
  err = R->slots(&lay, (const int *)bai.h, (const int *)baj.h, (const int *)bpos.h, (const int *)bstor.h, (int *)bcol.h, (int *)bmap.h, (unsigned short *)bnl.h, (int *)bdmap.h, NULL);
  ok  = (PetscBool)(!err && SameInts(bcol.h, col, sizeof(int) * nslots) && SameInts(bmap.h, map, sizeof(int) * nslots) && SameInts(bnl.h, nl, sizeof(unsigned short) * m) && SameInts(bdmap.h, dmap, sizeof(int) * m));
  { /* the row function the GPU runs (MSBRBSlotsRow) */
    int            *c2, *m2, *d2;
    unsigned short *n2;

    PetscCall(PetscMalloc4(PetscMax(nslots, 1), &c2, PetscMax(nslots, 1), &m2, PetscMax(m, 1), &n2, PetscMax(m, 1), &d2));
    for (long long s = 0; s < m; s++) MSBRBSlotsRow(&lay, s, ai, aj, pos, stor, c2, m2, n2, d2);
    ok = (PetscBool)(ok && SameInts(c2, col, sizeof(int) * nslots) && SameInts(m2, map, sizeof(int) * nslots) && SameInts(n2, nl, sizeof(unsigned short) * m) && SameInts(d2, dmap, sizeof(int) * m));
    PetscCall(PetscFree4(c2, m2, n2, d2));
  }
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    PetscBool s[4];
    err = C->slots(&layd, (const int *)bai.d, (const int *)baj.d, (const int *)bpos.d, (const int *)bstor.d, (int *)bcol.d, (int *)bmap.d, (unsigned short *)bnl.d, (int *)bdmap.d, NULL);
    PetscCall(BufSame(&bcol, sizeof(int) * nslots, &s[0]));
    PetscCall(BufSame(&bmap, sizeof(int) * nslots, &s[1]));
    PetscCall(BufSame(&bnl, sizeof(unsigned short) * m, &s[2]));
    PetscCall(BufSame(&bdmap, sizeof(int) * m, &s[3]));
    ok = (PetscBool)(!err && s[0] && s[1] && s[2] && s[3]);
  }
#endif
  PetscCall(Report("brbilu slots: the entries in the logical order of their columns, padding, lower counts, diagonals", ok));
  lay.col  = (const int *)bcol.h;
  lay.nl   = (const unsigned short *)bnl.h;
  layd.col = (const int *)bcol.d;
  layd.nl  = (const unsigned short *)bnl.d;

  /* a grid ordering's places in its blocks' buffers */
  if (o.grid) {
    unsigned short *want;

    lay.bid  = (const int *)bbid.h;
    layd.bid = (const int *)bbid.d;
    PetscCall(PetscMalloc1(PetscMax(m, 1), &want));
    for (int b = 0; b < nb; b++) {
      int lo[3], hi[3];
      MSBRBGridBrick(&grid, o.bid[b], lo, hi);
      for (int s = o.bstart[b]; s < o.bstart[b + 1]; s++) {
        const int r = sperm[s], i = r % box[0] - lo[0], j = (r / box[0]) % box[1] - lo[1], k = r / (box[0] * box[1]) - lo[2], wx = hi[0] - lo[0];
        want[s] = (unsigned short)(i + (wx + (wx & 1)) * (j + (hi[1] - lo[1]) * k));
      }
    }
    PetscCall(BufCreate(sizeof(unsigned short) * PetscMax(m, 1), &bplaces));
    err = R->places(&lay, (unsigned short *)bplaces.h, NULL);
    ok  = (PetscBool)(!err && SameInts(bplaces.h, want, sizeof(unsigned short) * m));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      err = C->places(&layd, (unsigned short *)bplaces.d, NULL);
      PetscCall(BufSame(&bplaces, sizeof(unsigned short) * m, &okd));
      ok = (PetscBool)(!err && okd);
    }
#endif
    PetscCall(Report("brbilu places: a storage row's point in its block's buffer", ok));
    PetscCall(PetscFree(want));
  }

  /* the factorizations, their conversion and the apply */
  PetscCall(BRBTestFactors(&o, &lay, &layd, ai, aj, aa, &bmap, &bdmap, &baa, &bplaces));
  if (o.grid) PetscCall(BufDestroy(&bplaces));
  {
    Buf *all[] = {&bcur, &blptr, &bsperm, &bstor, &bcol, &bmap, &bnl, &bdmap};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PetscCall(BufDestroy(all[i]));
  }
  PetscCall(PetscFree(lptr));
  PetscCall(PetscFree4(col, map, nl, dmap));
finish:
  {
    Buf *all[] = {&bai, &baj, &baa, &bbid, &bperm, &brstart, &bpos, &blev, &bnu, &blstart, &binfo};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PetscCall(BufDestroy(all[i]));
  }
  (void)okd;
  (void)dinfo;
  PetscCall(PetscFree6(pos, lev, nu, lstart, sperm, stor));
  PetscCall(PetscFree3(ai, aj, aa));
  PetscCall(BRBTestOrderingDestroy(&o));
  PetscCall(MSTestCSRDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* PCBISAI's kernels (bisaikernels.h)                                                                          */

/* The test matrix: nb block rows of bs x bs blocks; block row i couples to i - 1, i, i + 1 and, for every third i, to
   a far block row f and back (the block pattern is symmetric); inside an off-diagonal block the entries (r, c) with
   (r + c + i + j) % 3 != 0 are stored (partial blocks), the diagonal blocks are full. The CSR (m = nb bs rows) has
   values that are random (A) or symmetric (S: the pair's hash), both with a dominant diagonal 4 bs; S is symmetric
   positive definite. The block row nb / 2 of the CSR "holed" has no entry in its diagonal block (the block pattern
   keeps it). */
typedef struct {
  int     nb, bs, m, hole;
  int    *bcnt, (*bcol)[8]; /* block columns of each block row (sorted), at most 8 */
  int    *ai, *aj, *hai, *haj, nnz, hnnz; /* the CSR, and the holed one */
  double *aa, *sa, *haa;                  /* values: random, symmetric; of the holed one */
} BISAITest;

static int BISAITestStored(int i, int j, int r, int c)
{
  return i == j || (r + c + i + j) % 3 != 0;
}

static double BISAITestValue(int row, int col, int bs, PetscBool sym)
{
  const double v = sym ? MSTestPairHash(row, col) - 0.5 : MSTestHashUniform((unsigned long long)row * 7919ULL + (unsigned long long)col) - 0.5;
  return row == col ? 4.0 * bs + v : v;
}

static PetscErrorCode BISAITestCreate(int nb, int bs, BISAITest *t)
{
  MSTestRng rng = {71};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  t->nb   = nb;
  t->bs   = bs;
  t->m    = nb * bs;
  t->hole = nb / 2;
  PetscCall(PetscCalloc2(nb, &t->bcnt, nb, &t->bcol));
  for (int i = 0; i < nb; i++) {
    t->bcol[i][t->bcnt[i]++] = i;
    if (i > 0) t->bcol[i][t->bcnt[i]++] = i - 1;
    if (i < nb - 1) t->bcol[i][t->bcnt[i]++] = i + 1;
  }
  for (int i = 0; i < nb && nb > 4; i += 3) { /* far pairs, both ways, at most 8 blocks a row */
    const int f = (int)MSTestRngInt(&rng, nb);
    PetscBool have = PETSC_FALSE;
    for (int a = 0; a < t->bcnt[i]; a++) have = (PetscBool)(have || t->bcol[i][a] == f);
    if (have || t->bcnt[i] == 8 || t->bcnt[f] == 8) continue;
    t->bcol[i][t->bcnt[i]++] = f;
    t->bcol[f][t->bcnt[f]++] = i;
  }
  for (int i = 0; i < nb; i++) /* sorted */
    for (int a = 1; a < t->bcnt[i]; a++)
      for (int b = a; b > 0 && t->bcol[i][b] < t->bcol[i][b - 1]; b--) {
        const int w          = t->bcol[i][b];
        t->bcol[i][b]     = t->bcol[i][b - 1];
        t->bcol[i][b - 1] = w;
      }
  for (int holed = 0; holed < 2; holed++) {
    int *ai, *aj, n = 0;

    PetscCall(PetscMalloc2(t->m + 1, &ai, (size_t)t->m * 8 * bs, &aj));
    ai[0] = 0;
    for (int row = 0; row < t->m; row++) {
      const int i = row / bs, r = row % bs;
      for (int a = 0; a < t->bcnt[i]; a++) {
        const int j = t->bcol[i][a];
        if (holed && i == t->hole && j == i) continue;
        for (int c = 0; c < bs; c++)
          if (BISAITestStored(i, j, r, c)) aj[n++] = j * bs + c;
      }
      ai[row + 1] = n;
    }
    if (holed) {
      t->hai  = ai;
      t->haj  = aj;
      t->hnnz = n;
    } else {
      t->ai  = ai;
      t->aj  = aj;
      t->nnz = n;
    }
  }
  PetscCall(PetscMalloc3(t->nnz, &t->aa, t->nnz, &t->sa, t->hnnz, &t->haa));
  for (int row = 0; row < t->m; row++) {
    for (int e = t->ai[row]; e < t->ai[row + 1]; e++) {
      t->aa[e] = BISAITestValue(row, t->aj[e], bs, PETSC_FALSE);
      t->sa[e] = BISAITestValue(row, t->aj[e], bs, PETSC_TRUE);
    }
    for (int e = t->hai[row]; e < t->hai[row + 1]; e++) t->haa[e] = BISAITestValue(row, t->haj[e], bs, PETSC_FALSE);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BISAITestDestroy(BISAITest *t)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(t->bcnt, t->bcol));
  PetscCall(PetscFree2(t->ai, t->aj));
  PetscCall(PetscFree2(t->hai, t->haj));
  PetscCall(PetscFree3(t->aa, t->sa, t->haa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
  #define BISAI_SYNC() PetscCallCUDA(cudaDeviceSynchronize())
#else
  #define BISAI_SYNC() (void)0
#endif

/* the status struct of the kernels, in both memories */
#define BISAIStatusH(b) ((MSBISAIStatus *)(b).h)
#if defined(PETSC_HAVE_CUDA)
  #define BISAIStatusD(b, field) ((void *)((char *)(b).d + offsetof(MSBISAIStatus, field)))
static PetscErrorCode BISAIStatusDownload(Buf *b, MSBISAIStatus *st)
{
  PetscFunctionBegin;
  PetscCall(BufDownload(b, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* a pattern in both memories: rows, columns, and the column view; the level-1 part it was made from */
typedef struct {
  int nnz, tnnz;
  Buf rp, cols, colptr, rowidx, pos, trp, tcols;
} BISAIPat;

static PetscErrorCode BISAIPatDestroy(BISAIPat *p)
{
  PetscFunctionBegin;
  PetscCall(BufDestroy(&p->rp));
  PetscCall(BufDestroy(&p->cols));
  PetscCall(BufDestroy(&p->colptr));
  PetscCall(BufDestroy(&p->rowidx));
  PetscCall(BufDestroy(&p->pos));
  PetscCall(BufDestroy(&p->trp));
  PetscCall(BufDestroy(&p->tcols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scan kernel in memory dev and its total */
static PetscErrorCode BISAIScanTotal(const MSBISAIKernels *K, int dev, int n, Buf *ptr, Buf *st, int *total)
{
  int err;

  PetscFunctionBegin;
  if (!dev) {
    err    = K->scan(n, (int *)ptr->h, &BISAIStatusH(*st)->total, NULL);
    *total = (int)BISAIStatusH(*st)->total;
  }
#if defined(PETSC_HAVE_CUDA)
  else {
    MSBISAIStatus s;
    err = K->scan(n, (int *)ptr->d, (long long *)BISAIStatusD(*st, total), NULL);
    PetscCall(BISAIStatusDownload(st, &s));
    *total = (int)s.total;
  }
#else
  else err = 1;
#endif
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "scan failed: %d", err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define BISAI_MEM(b, dev) ((dev) ? (b).d : (b).h)

/* M = the lower or upper part (with the diagonal) of F's pattern raised to the level (1 or 2) by the pattern kernels,
   with its column view, in memory dev; the buffers are created by the host run (dev = 0) and reused by the device run */
static PetscErrorCode BISAIPatternOf(const MSBISAIKernels *K, int dev, int nb, Buf *rp, Buf *cols, Buf *diag, int lower, int level, Buf *st, BISAIPat *M)
{
  Buf *Prp = level == 1 ? &M->rp : &M->trp, *Pcols = level == 1 ? &M->cols : &M->tcols;
  int  err, n;

  PetscFunctionBegin;
  if (!dev) PetscCall(BufCreate(sizeof(int) * (nb + 1), Prp));
  err = K->pattern_part(nb, (const int *)BISAI_MEM(*rp, dev), (const int *)BISAI_MEM(*cols, dev), (const int *)BISAI_MEM(*diag, dev), lower, (int *)BISAI_MEM(*Prp, dev), NULL, NULL);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pattern_part failed: %d", err);
  PetscCall(BISAIScanTotal(K, dev, nb, Prp, st, &n));
  if (!dev) PetscCall(BufCreate(sizeof(int) * n, Pcols));
  err = K->pattern_part(nb, (const int *)BISAI_MEM(*rp, dev), (const int *)BISAI_MEM(*cols, dev), (const int *)BISAI_MEM(*diag, dev), lower, (int *)BISAI_MEM(*Prp, dev), (int *)BISAI_MEM(*Pcols, dev), NULL);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pattern_part failed: %d", err);
  if (!dev) M->tnnz = M->nnz = n;
  if (level == 2) {
    if (!dev) PetscCall(BufCreate(sizeof(int) * (nb + 1), &M->rp));
    err = K->pattern_power(nb, (const int *)BISAI_MEM(M->trp, dev), (const int *)BISAI_MEM(M->tcols, dev), (const int *)BISAI_MEM(M->trp, dev), (const int *)BISAI_MEM(M->tcols, dev), (int *)BISAI_MEM(M->rp, dev), NULL, NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pattern_power failed: %d", err);
    PetscCall(BISAIScanTotal(K, dev, nb, &M->rp, st, &n));
    if (!dev) {
      PetscCall(BufCreate(sizeof(int) * n, &M->cols));
      M->nnz = n;
    }
    err = K->pattern_power(nb, (const int *)BISAI_MEM(M->trp, dev), (const int *)BISAI_MEM(M->tcols, dev), (const int *)BISAI_MEM(M->trp, dev), (const int *)BISAI_MEM(M->tcols, dev), (int *)BISAI_MEM(M->rp, dev), (int *)BISAI_MEM(M->cols, dev), NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pattern_power failed: %d", err);
  }
  if (!dev) {
    PetscCall(BufCreate(sizeof(int) * (nb + 1), &M->colptr));
    PetscCall(BufCreate(sizeof(int) * M->nnz, &M->rowidx));
    PetscCall(BufCreate(sizeof(int) * M->nnz, &M->pos));
  }
  err = K->pattern_transpose(nb, M->nnz, (const int *)BISAI_MEM(M->rp, dev), (const int *)BISAI_MEM(M->cols, dev), (int *)BISAI_MEM(M->colptr, dev), (int *)BISAI_MEM(M->rowidx, dev), (int *)BISAI_MEM(M->pos, dev), NULL);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pattern_transpose failed: %d", err);
  BISAI_SYNC();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* block (i, j) of a BSR array with the host pattern rp/cols, or NULL */
static const double *BISAIBlockOf(const int *rp, const int *cols, int bs, const double *vals, int i, int j)
{
  const int p = MSBISAIFind(cols, rp[i], rp[i + 1], j);
  return p < 0 ? NULL : vals + (size_t)p * bs * bs;
}

/* C (+)= sign A B, bs x bs row-major (B transposed when tb); |A| |B| into Cabs */
static void BISAIGemm(int bs, const double *A, const double *B, PetscBool tb, double sign, double *C, double *Cabs)
{
  for (int r = 0; r < bs; r++)
    for (int c = 0; c < bs; c++) {
      double s = 0, sa = 0;
      for (int k = 0; k < bs; k++) {
        const double b = tb ? B[c * bs + k] : B[k * bs + c];
        s += A[r * bs + k] * b;
        sa += PetscAbsReal(A[r * bs + k] * b);
      }
      C[r * bs + c] += sign * s;
      if (Cabs) Cabs[r * bs + c] += sa;
    }
}

/* max over the entries of |got - want| / max(scale, floor) */
static PetscReal BISAIErr(long long n, const double *got, const double *want, const double *scale, double floor)
{
  PetscReal e = 0;
  for (long long k = 0; k < n; k++) {
    const PetscReal d = PetscAbsReal(got[k] - want[k]) / PetscMax(scale ? scale[k] : 0.0, floor);
    e = (d <= e) ? e : (PetscIsNanReal(d) ? PETSC_INFINITY : d);
  }
  return e;
}

/* the pattern of a CSR's rows by the count/scan/fill kernels of table K in memory d (0 host, 1 device) */
static PetscErrorCode BISAIBuildBlockPattern(const MSBISAIKernels *K, int dev, int nb, int bs, Buf *ai, Buf *aj, Buf *rp, Buf *cols, Buf *rowidx, Buf *diag, Buf *map, Buf *status, int *nnzb)
{
  int err;

  PetscFunctionBegin;
  if (!dev) {
    err = K->block_count(nb, bs, (const int *)ai->h, (const int *)aj->h, (int *)rp->h, NULL);
    err = err ? err : K->scan(nb, (int *)rp->h, &BISAIStatusH(*status)->total, NULL);
    *nnzb = (int)BISAIStatusH(*status)->total;
    err   = err ? err : K->block_fill(nb, bs, (const int *)ai->h, (const int *)aj->h, (const int *)rp->h, (int *)cols->h, (int *)rowidx->h, (int *)diag->h, (int *)map->h, NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the reference's block pattern kernels failed: %d", err);
  }
#if defined(PETSC_HAVE_CUDA)
  else {
    MSBISAIStatus st;

    err = K->block_count(nb, bs, (const int *)ai->d, (const int *)aj->d, (int *)rp->d, NULL);
    err = err ? err : K->scan(nb, (int *)rp->d, (long long *)BISAIStatusD(*status, total), NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "the CUDA block pattern kernels failed: %d", err);
    PetscCall(BISAIStatusDownload(status, &st));
    *nnzb = (int)st.total;
    err   = K->block_fill(nb, bs, (const int *)ai->d, (const int *)aj->d, (const int *)rp->d, (int *)cols->d, (int *)rowidx->d, (int *)diag->d, (int *)map->d, NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "the CUDA block_fill kernel failed: %d", err);
    PetscCallCUDA(cudaDeviceSynchronize());
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* device result of buf against its host reference: ints bit for bit (dbl = 0) or doubles to a relative tol */
static PetscErrorCode BISAICompare(Buf *b, long long n, int dbl, PetscReal tol, PetscBool *ok)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && *ok) {
    if (dbl) {
      PetscReal rd;
      PetscCall(BufRelDiff(b, (PetscInt)n, &rd));
      *ok = (PetscBool)(rd <= tol);
    } else PetscCall(BufSame(b, (size_t)n * sizeof(int), ok));
  }
#else
  (void)b;
  (void)n;
  (void)dbl;
  (void)tol;
  (void)ok;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
  #define BISAI_D(b) ((b).d)
#else
  #define BISAI_D(b) NULL
#endif
/* run a kernel call on the reference (host buffers) and, with -cuda, on CUDA (device buffers): CALL(K, H) where H
   selects .h or .d */
#define BISAI_RUN(CALL) \
  do { \
    int err_ = CALL(R, h); \
    PetscCheck(!err_, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference kernel failed: %d", err_); \
    if (use_cuda) { \
      err_ = CALL(C, d); \
      PetscCheck(!err_, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA kernel failed: %d", err_); \
      BISAI_SYNC(); \
    } \
  } while (0)
#define BISAI_ST(K, H, field) ((K) == R ? (void *)&BISAIStatusH(bst)->field : BISAI_STD(field))
#if defined(PETSC_HAVE_CUDA)
  #define BISAI_STD(field) BISAIStatusD(bst, field)
#else
  #define BISAI_STD(field) NULL
#endif

static PetscErrorCode TestBISAI(void)
{
  PetscInt              nbo = 60, bso = 3;
  BISAITest             t;
  const MSBISAIKernels *R = &MSBISAIKernels_Reference, *C = NULL;
  PetscBool             ok;
  int                   bs, bs2, nb, m, nnzb, hnnzb;
  MSBISAIStatus         dst; /* the device status, read back */
  Buf                   bai, baj, bhai, bhaj, baa, bsa, brp, bcols, bridx, bdiag, bmap, bhrp, bhcols, bhridx, bhdiag, bhmap, bst;
  Buf                   bA, bS, bF, bFs, bD, bDs, bwork;
  double               *want, *wabs;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  C = &MSBISAIKernels_CUDA;
#endif
  (void)C;
  (void)dst;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bisai_nb", &nbo, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bisai_bs", &bso, NULL));
  PetscCheck(bso >= 1 && bso <= MS_BISAI_MAXBS && nbo >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bisai_bs 1 to %d, -bisai_nb >= 1", MS_BISAI_MAXBS);
  PetscCall(BISAITestCreate((int)nbo, (int)bso, &t));
  nb  = t.nb;
  bs  = t.bs;
  bs2 = bs * bs;
  m   = t.m;
  PetscCall(BufInput(sizeof(int) * (m + 1), t.ai, &bai));
  PetscCall(BufInput(sizeof(int) * t.nnz, t.aj, &baj));
  PetscCall(BufInput(sizeof(int) * (m + 1), t.hai, &bhai));
  PetscCall(BufInput(sizeof(int) * t.hnnz, t.haj, &bhaj));
  PetscCall(BufInput(sizeof(double) * t.nnz, t.aa, &baa));
  PetscCall(BufInput(sizeof(double) * t.nnz, t.sa, &bsa));
  PetscCall(BufCreate(sizeof(MSBISAIStatus), &bst));

  /* 1. the block pattern of the holed CSR, and of the full one (the same blocks, another map) */
  {
    Buf *rp[2] = {&bhrp, &brp}, *cols[2] = {&bhcols, &bcols}, *ridx[2] = {&bhridx, &bridx}, *dg[2] = {&bhdiag, &bdiag}, *mp[2] = {&bhmap, &bmap}, *ai[2] = {&bhai, &bai}, *aj[2] = {&bhaj, &baj};
    int  nz[2];

    for (int f = 0; f < 2; f++) {
      const int *cai = f ? t.ai : t.hai, *caj = f ? t.aj : t.haj, cnnz = f ? t.nnz : t.hnnz;
      int        dn = -1, cnt = 0;

      PetscCall(BufCreate(sizeof(int) * (nb + 1), rp[f]));
      PetscCall(BufCreate(sizeof(int) * nb * 8, cols[f]));
      PetscCall(BufCreate(sizeof(int) * nb * 8, ridx[f]));
      PetscCall(BufCreate(sizeof(int) * nb, dg[f]));
      PetscCall(BufCreate(sizeof(int) * cnnz, mp[f]));
      PetscCall(BISAIBuildBlockPattern(R, 0, nb, bs, ai[f], aj[f], rp[f], cols[f], ridx[f], dg[f], mp[f], &bst, &nz[f]));
      /* direct: block (i, j) is in the pattern when j = i or one of its entries is stored */
      ok = PETSC_TRUE;
      for (int i = 0; i < nb && ok; i++) {
        int n = 0;
        for (int a = 0; a < t.bcnt[i]; a++) {
          const int j   = t.bcol[i][a];
          PetscBool any = (PetscBool)(j == i);
          for (int r = 0; r < bs && !any; r++)
            for (int c = 0; c < bs && !any; c++) any = (PetscBool)BISAITestStored(i, j, r, c);
          if (!any) continue;
          ok = (PetscBool)(ok && ((int *)cols[f]->h)[cnt + n] == j && ((int *)ridx[f]->h)[cnt + n] == i && (j != i || ((int *)dg[f]->h)[i] == cnt + n));
          n++;
        }
        ok = (PetscBool)(ok && ((int *)rp[f]->h)[i] == cnt && ((int *)rp[f]->h)[i + 1] == cnt + n);
        cnt += n;
      }
      ok = (PetscBool)(ok && nz[f] == cnt && ((int *)rp[f]->h)[0] == 0);
      for (int row = 0; row < m && ok; row++)
        for (int e = cai[row]; e < cai[row + 1]; e++) {
          const int i = row / bs, p = MSBISAIFind((int *)cols[f]->h, ((int *)rp[f]->h)[i], ((int *)rp[f]->h)[i + 1], caj[e] / bs);
          ok = (PetscBool)(ok && p >= 0 && ((int *)mp[f]->h)[e] == p * bs2 + (row % bs) * bs + caj[e] % bs);
        }
      (void)dn;
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        int dnz;
        PetscCall(BISAIBuildBlockPattern(C, 1, nb, bs, ai[f], aj[f], rp[f], cols[f], ridx[f], dg[f], mp[f], &bst, &dnz));
        ok = (PetscBool)(dnz == nz[f]);
        PetscCall(BISAICompare(rp[f], nb + 1, 0, 0, &ok));
        PetscCall(BISAICompare(cols[f], nz[f], 0, 0, &ok));
        PetscCall(BISAICompare(ridx[f], nz[f], 0, 0, &ok));
        PetscCall(BISAICompare(dg[f], nb, 0, 0, &ok));
        PetscCall(BISAICompare(mp[f], cnnz, 0, 0, &ok));
      }
#endif
      PetscCall(Report(f ? "bisai block_count, scan, block_fill: the block pattern and the map of a CSR" : "bisai block_count, scan, block_fill: a diagonal block without entries kept", ok));
    }
    hnnzb = nz[0];
    nnzb  = nz[1];
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bisai: %d block rows of %d x %d blocks, %d nonzero blocks\n", nb, bs, bs, nnzb));
  PetscCall(PetscMalloc2((size_t)nnzb * bs2 + m, &want, (size_t)nnzb * bs2 + m, &wabs));
  (void)hnnzb;

  /* 2. values: the random A and the symmetric S */
  PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &bA));
  PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &bS));
  {
#define CALL_VALUES(K, H) K->values(t.nnz, (const int *)bmap.H, (const double *)baa.H, (long long)nnzb * bs2, (double *)bA.H, NULL)
#define CALL_VALUES_S(K, H) K->values(t.nnz, (const int *)bmap.H, (const double *)bsa.H, (long long)nnzb * bs2, (double *)bS.H, NULL)
    BISAI_RUN(CALL_VALUES);
    BISAI_RUN(CALL_VALUES_S);
    for (long long v = 0; v < (long long)nnzb * bs2; v++) want[v] = 0;
    for (int e = 0; e < t.nnz; e++) want[((int *)bmap.h)[e]] = t.aa[e];
    ok = (PetscBool)(BISAIErr((long long)nnzb * bs2, (double *)bA.h, want, NULL, 1.0) == 0);
    for (int e = 0; e < t.nnz; e++) want[((int *)bmap.h)[e]] = t.sa[e];
    ok = (PetscBool)(ok && BISAIErr((long long)nnzb * bs2, (double *)bS.h, want, NULL, 1.0) == 0);
    PetscCall(BISAICompare(&bA, (long long)nnzb * bs2, 1, 0, &ok));
    PetscCall(BISAICompare(&bS, (long long)nnzb * bs2, 1, 0, &ok));
    PetscCall(Report("bisai values: the BSR values of a CSR", ok));
  }

  /* 3. check: the first non-finite row, the first asymmetric row (brute force) */
  {
    int asym = MS_BISAI_NONE, nanrow = m > 17 ? 17 : m - 1, got[2];

    for (int row = 0; row < m && asym == MS_BISAI_NONE; row++) {
      const double di = MSBISAIDiagAbs(t.ai, t.aj, t.aa, row);
      for (int e = t.ai[row]; e < t.ai[row + 1]; e++)
        if (MSBISAIAsymmetric(m, t.ai, t.aj, t.aa, row, e, di, 1e-10)) {
          asym = row;
          break;
        }
    }
    for (int pass = 0; pass < 3; pass++) { /* A, S, A with a NaN */
      Buf    *vals = pass == 1 ? &bsa : &baa;
      double *keep = NULL;

      if (pass == 2) {
        PetscCall(PetscMalloc1(t.nnz, &keep));
        PetscCall(PetscArraycpy(keep, t.aa, t.nnz));
        t.aa[t.ai[nanrow + 1] - 1] = (double)NAN;
        PetscCall(BufDestroy(&baa));
        PetscCall(BufInput(sizeof(double) * t.nnz, t.aa, &baa));
        vals = &baa;
      }
#define CALL_CHECK(K, H) K->check(m, (const int *)bai.H, (const int *)baj.H, (const double *)vals->H, 1e-10, (int *)BISAI_ST(K, H, check), NULL)
      BISAI_RUN(CALL_CHECK);
      got[0] = BISAIStatusH(bst)->check[0];
      got[1] = BISAIStatusH(bst)->check[1];
      if (pass == 0) ok = (PetscBool)(got[0] == MS_BISAI_NONE && got[1] == asym && asym != MS_BISAI_NONE);
      else if (pass == 1) ok = (PetscBool)(got[0] == MS_BISAI_NONE && got[1] == MS_BISAI_NONE);
      else ok = (PetscBool)(got[0] == nanrow);
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        PetscCall(BISAIStatusDownload(&bst, &dst));
        ok = (PetscBool)(dst.check[0] == got[0] && dst.check[1] == got[1]);
      }
#endif
      PetscCall(Report(pass == 0 ? "bisai check: the first asymmetric row" : pass == 1 ? "bisai check: a symmetric matrix" : "bisai check: the row of a NaN", ok));
      if (keep) {
        PetscCall(PetscArraycpy(t.aa, keep, t.nnz));
        PetscCall(PetscFree(keep));
        PetscCall(BufDestroy(&baa));
        PetscCall(BufInput(sizeof(double) * t.nnz, t.aa, &baa));
      }
    }
  }

  /* 4. shift: the diagonal entries of the diagonal blocks times 1.5 */
  {
    Buf b;

    PetscCall(BufInput(sizeof(double) * nnzb * bs2, bA.h, &b));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) PetscCallCUDA(cudaMemcpy(b.d, bA.d, sizeof(double) * nnzb * bs2, cudaMemcpyDeviceToDevice));
#endif
#define CALL_SHIFT(K, H) K->shift(nb, bs, (const int *)bdiag.H, 1.5, (double *)b.H, NULL)
    BISAI_RUN(CALL_SHIFT);
    PetscCall(PetscArraycpy(want, (double *)bA.h, (size_t)nnzb * bs2));
    for (int i = 0; i < nb; i++)
      for (int r = 0; r < bs; r++) want[(size_t)((int *)bdiag.h)[i] * bs2 + r * bs + r] *= 1.5;
    ok = (PetscBool)(BISAIErr((long long)nnzb * bs2, (double *)b.h, want, NULL, 1.0) == 0);
    PetscCall(BISAICompare(&b, (long long)nnzb * bs2, 1, 0, &ok));
    PetscCall(Report("bisai shift: the diagonal of the diagonal blocks scaled", ok));
    PetscCall(BufDestroy(&b));
  }

  /* 5. invert_diag: Dinv(i) B(i, i) = I (spd: of B's symmetric part, Dinv symmetric); the first failing block found */
  PetscCall(BufCreate(sizeof(double) * nb * bs2, &bD));
  for (int spd = 0; spd < 2; spd++)
    for (int sing = 0; sing < 2; sing++) {
      Buf b, *src = spd ? &bS : &bA;

      PetscCall(BufInput(sizeof(double) * nnzb * bs2, src->h, &b));
      if (sing && nb > 7) /* block rows 7 and 3 (3 the smallest): a zero row; a block negated (spd) or zeroed */
        for (int e = 0; e < bs2; e++) {
          double *B7 = (double *)b.h + (size_t)((int *)bdiag.h)[7] * bs2, *B3 = (double *)b.h + (size_t)((int *)bdiag.h)[3] * bs2;
          if (e < bs) B7[e] = 0.0;
          B3[e] = spd ? -B3[e] : 0.0;
        }
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda) PetscCallCUDA(cudaMemcpy(b.d, b.h, sizeof(double) * nnzb * bs2, cudaMemcpyHostToDevice));
      if (use_cuda) PetscCallCUDA(cudaMemset(bD.d, POISON, bD.bytes));
#endif
      memset(bD.h, POISON, bD.bytes);
#define CALL_INV(K, H) K->invert_diag(nb, bs, spd, (const int *)bdiag.H, (const double *)b.H, (double *)bD.H, (int *)BISAI_ST(K, H, bad), NULL)
      BISAI_RUN(CALL_INV);
      ok = (PetscBool)(BISAIStatusH(bst)->bad == (sing && nb > 7 ? 3 : MS_BISAI_NONE) && Written((double *)bD.h, nb * bs2));
      for (int i = 0; i < nb && ok; i++) {
        double P[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Id[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Bs[MS_BISAI_MAXBS * MS_BISAI_MAXBS];
        const double *B = (double *)b.h + (size_t)((int *)bdiag.h)[i] * bs2, *Di = (double *)bD.h + (size_t)i * bs2;

        if (sing && (i == 3 || i == 7)) {
          if (i == 3) ok = (PetscBool)(BISAIErr(bs2, Di, Id, NULL, 1.0) == 0); /* zero */
          continue;
        }
        for (int e = 0; e < bs2; e++) Bs[e] = spd ? 0.5 * (B[e] + B[(e % bs) * bs + e / bs]) : B[e];
        BISAIGemm(bs, Di, Bs, PETSC_FALSE, 1.0, P, NULL);
        for (int e = 0; e < bs2; e++) Id[e] = e / bs == e % bs;
        ok = (PetscBool)(BISAIErr(bs2, P, Id, NULL, 1.0) <= 1e-13);
        for (int e = 0; e < bs2 && spd; e++) ok = (PetscBool)(ok && Di[e] == Di[(e % bs) * bs + e / bs]);
      }
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        PetscCall(BISAIStatusDownload(&bst, &dst));
        ok = (PetscBool)(dst.bad == BISAIStatusH(bst)->bad);
      }
#endif
      PetscCall(BISAICompare(&bD, (long long)nb * bs2, 1, 1e-12, &ok));
      PetscCall(Report(spd ? (sing ? "bisai invert_diag (spd): the first block that is not positive definite found" : "bisai invert_diag (spd): Dinv(i) sym(S(i, i)) = I, Dinv symmetric") : (sing ? "bisai invert_diag: the first singular block found" : "bisai invert_diag: Dinv(i) A(i, i) = I"), ok));
      PetscCall(BufDestroy(&b));
    }

  /* 6. ilu_exact: L U = A on the pattern (A random; spd: S, with D's inverses symmetric), the products counted; the
     first singular block found */
  PetscCall(BufCreate(sizeof(int) * (nb + 1), &bwork));
  PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &bF));
  PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &bFs));
  PetscCall(BufCreate(sizeof(double) * nb * bs2, &bDs));
  for (int spd = 0; spd < 2; spd++) {
    Buf               *src = spd ? &bS : &bA, *F = spd ? &bFs : &bF, *D = spd ? &bDs : &bD;
    unsigned long long prod;

#define CALL_ILU(K, H) K->ilu_exact(nb, bs, nnzb, spd, (const int *)brp.H, (const int *)bcols.H, (const int *)bdiag.H, (const double *)src->H, (double *)F->H, (double *)D->H, (int *)bwork.H, (int *)BISAI_ST(K, H, bad), (unsigned long long *)BISAI_ST(K, H, products), NULL)
    BISAI_RUN(CALL_ILU);
    prod = BISAIStatusH(bst)->products;
    ok   = (PetscBool)(BISAIStatusH(bst)->bad == MS_BISAI_NONE && prod >= (unsigned long long)(nnzb - nb) / 2);
    for (int i = 0; i < nb && ok; i++)
      for (int p = ((int *)brp.h)[i]; p < ((int *)brp.h)[i + 1]; p++) {
        const int j = ((int *)bcols.h)[p];
        double    LU[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, LUa[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0};
        for (int q = ((int *)brp.h)[i]; q < ((int *)brp.h)[i + 1]; q++) { /* L(i, k) U(k, j), k <= min(i, j), L(i, i) = I */
          const int     k   = ((int *)bcols.h)[q];
          const double *Ukj = BISAIBlockOf((int *)brp.h, (int *)bcols.h, bs, (double *)F->h, k, j);
          if (k > PetscMin(i, j) || !Ukj) continue;
          if (k == i)
            for (int e = 0; e < bs2; e++) {
              LU[e] += Ukj[e];
              LUa[e] += PetscAbsReal(Ukj[e]);
            }
          else BISAIGemm(bs, (double *)F->h + (size_t)q * bs2, Ukj, PETSC_FALSE, 1.0, LU, LUa);
        }
        ok = (PetscBool)(ok && BISAIErr(bs2, LU, (double *)src->h + (size_t)p * bs2, LUa, 1e-300) <= 1e-13);
      }
    for (int i = 0; i < nb * bs2 && ok && spd; i++) ok = (PetscBool)(((double *)D->h)[i] == ((double *)D->h)[(i / bs2) * bs2 + (i % bs) * bs + (i % bs2) / bs]);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscCall(BISAIStatusDownload(&bst, &dst));
      ok = (PetscBool)(dst.bad == MS_BISAI_NONE && dst.products == prod);
    }
#endif
    PetscCall(BISAICompare(F, (long long)nnzb * bs2, 1, 1e-12, &ok));
    PetscCall(BISAICompare(D, (long long)nb * bs2, 1, 1e-12, &ok));
    PetscCall(Report(spd ? "bisai ilu_exact (spd): L U = S on the pattern, the inverses of D symmetric" : "bisai ilu_exact: L U = A on the pattern", ok));
  }
  if (nb > 3) { /* block row 3 zero: U(3, 3) = 0 */
    Buf b, Fz, Dz;

    PetscCall(BufInput(sizeof(double) * nnzb * bs2, bA.h, &b));
    for (int p = ((int *)brp.h)[3]; p < ((int *)brp.h)[4]; p++)
      for (int e = 0; e < bs2; e++) ((double *)b.h)[(size_t)p * bs2 + e] = 0.0;
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) PetscCallCUDA(cudaMemcpy(b.d, b.h, sizeof(double) * nnzb * bs2, cudaMemcpyHostToDevice));
#endif
    PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &Fz));
    PetscCall(BufCreate(sizeof(double) * nb * bs2, &Dz));
#define CALL_ILUZ(K, H) K->ilu_exact(nb, bs, nnzb, 0, (const int *)brp.H, (const int *)bcols.H, (const int *)bdiag.H, (const double *)b.H, (double *)Fz.H, (double *)Dz.H, (int *)bwork.H, (int *)BISAI_ST(K, H, bad), (unsigned long long *)BISAI_ST(K, H, products), NULL)
    BISAI_RUN(CALL_ILUZ);
    ok = (PetscBool)(BISAIStatusH(bst)->bad == 3);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscCall(BISAIStatusDownload(&bst, &dst));
      ok = (PetscBool)(dst.bad == 3);
    }
#endif
    PetscCall(Report("bisai ilu_exact: the first singular block of U found", ok));
    PetscCall(BufDestroy(&b));
    PetscCall(BufDestroy(&Fz));
    PetscCall(BufDestroy(&Dz));
  }

  /* 7. ilu_residual (with its products) and ilu_update against their formulas, on the exact factors and on the
     initial guess */
  {
    Buf bR;

    PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &bR));
#define CALL_RES(K, H) K->ilu_residual(bs, nnzb, (const int *)brp.H, (const int *)bridx.H, (const int *)bcols.H, (const double *)bA.H, (const double *)bF.H, (double *)bR.H, (unsigned long long *)BISAI_ST(K, H, products), NULL)
    BISAI_RUN(CALL_RES);
    for (int p = 0; p < nnzb; p++) {
      const int i = ((int *)bridx.h)[p], j = ((int *)bcols.h)[p];
      for (int e = 0; e < bs2; e++) {
        want[(size_t)p * bs2 + e] = ((double *)bA.h)[(size_t)p * bs2 + e];
        wabs[(size_t)p * bs2 + e] = PetscAbsReal(want[(size_t)p * bs2 + e]);
      }
      for (int q = ((int *)brp.h)[i]; q < ((int *)brp.h)[i + 1]; q++) {
        const int     k   = ((int *)bcols.h)[q];
        const double *Fkj = BISAIBlockOf((int *)brp.h, (int *)bcols.h, bs, (double *)bF.h, k, j);
        if (k < PetscMin(i, j) && Fkj) BISAIGemm(bs, (double *)bF.h + (size_t)q * bs2, Fkj, PETSC_FALSE, -1.0, want + (size_t)p * bs2, wabs + (size_t)p * bs2);
      }
    }
    ok = (PetscBool)(BISAIErr((long long)nnzb * bs2, (double *)bR.h, want, wabs, 1e-300) <= 1e-13);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscCall(BISAIStatusDownload(&bst, &dst));
      ok = (PetscBool)(dst.products == BISAIStatusH(bst)->products);
    }
#endif
    PetscCall(BISAICompare(&bR, (long long)nnzb * bs2, 1, 1e-12, &ok));
    PetscCall(Report("bisai ilu_residual: S = A - sum F(i, k) F(k, j)", ok));
    for (int guess = 0; guess < 2; guess++) { /* F(i, j) = S(i, j) Dinv(j) below the diagonal (0 with no Dinv), S(i, j) else */
      Buf bU;

      PetscCall(BufCreate(sizeof(double) * nnzb * bs2, &bU));
#define CALL_UPD(K, H) K->ilu_update(bs, nnzb, (const int *)bridx.H, (const int *)bcols.H, (const double *)bR.H, guess ? NULL : (const double *)bD.H, (double *)bU.H, NULL)
      BISAI_RUN(CALL_UPD);
      for (int p = 0; p < nnzb; p++) {
        const int i = ((int *)bridx.h)[p], j = ((int *)bcols.h)[p];
        for (int e = 0; e < bs2; e++) {
          want[(size_t)p * bs2 + e] = i > j ? 0.0 : ((double *)bR.h)[(size_t)p * bs2 + e];
          wabs[(size_t)p * bs2 + e] = PetscAbsReal(want[(size_t)p * bs2 + e]);
        }
        if (i > j && !guess) BISAIGemm(bs, (double *)bR.h + (size_t)p * bs2, (double *)bD.h + (size_t)j * bs2, PETSC_FALSE, 1.0, want + (size_t)p * bs2, wabs + (size_t)p * bs2);
      }
      ok = (PetscBool)(BISAIErr((long long)nnzb * bs2, (double *)bU.h, want, wabs, 1e-300) <= 1e-13);
      PetscCall(BISAICompare(&bU, (long long)nnzb * bs2, 1, 1e-12, &ok));
      PetscCall(Report(guess ? "bisai ilu_update: the initial guess L = I, U = triu(S)" : "bisai ilu_update: F = S Dinv below the diagonal, S on and above", ok));
      PetscCall(BufDestroy(&bU));
    }
    PetscCall(BufDestroy(&bR));
  }

  /* 8. ic_upper on S's factors: the diagonal blocks symmetric, U(i, j) = D_i L(j, i)^T */
  {
    Buf b;

    PetscCall(BufInput(sizeof(double) * nnzb * bs2, bFs.h, &b));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) PetscCallCUDA(cudaMemcpy(b.d, bFs.d, sizeof(double) * nnzb * bs2, cudaMemcpyDeviceToDevice));
#endif
#define CALL_ICU(K, H) K->ic_upper(nb, bs, (const int *)brp.H, (const int *)bcols.H, (const int *)bdiag.H, (double *)b.H, NULL)
    BISAI_RUN(CALL_ICU);
    ok = PETSC_TRUE;
    for (int i = 0; i < nb && ok; i++) {
      const double *D = (double *)b.h + (size_t)((int *)bdiag.h)[i] * bs2, *D0 = (double *)bFs.h + (size_t)((int *)bdiag.h)[i] * bs2;
      for (int e = 0; e < bs2; e++) ok = (PetscBool)(ok && D[e] == D[(e % bs) * bs + e / bs] && PetscAbsReal(D[e] - 0.5 * (D0[e] + D0[(e % bs) * bs + e / bs])) <= 1e-15 * PetscAbsReal(D[e]));
      for (int p = ((int *)bdiag.h)[i] + 1; p < ((int *)brp.h)[i + 1] && ok; p++) {
        const int     j   = ((int *)bcols.h)[p];
        const double *Lji = BISAIBlockOf((int *)brp.h, (int *)bcols.h, bs, (double *)b.h, j, i);
        double        W[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Wa[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0};
        BISAIGemm(bs, D, Lji, PETSC_TRUE, 1.0, W, Wa);
        ok = (PetscBool)(BISAIErr(bs2, (double *)b.h + (size_t)p * bs2, W, Wa, 1e-300) <= 1e-14);
        /* and U ~ the factorization's own upper blocks (S symmetric, the pattern symmetric) */
        ok = (PetscBool)(ok && BISAIErr(bs2, (double *)bFs.h + (size_t)p * bs2, W, Wa, 1e-300) <= 1e-12);
      }
    }
    PetscCall(BISAICompare(&b, (long long)nnzb * bs2, 1, 1e-12, &ok));
    PetscCall(Report("bisai ic_upper: U = D L^T (equal to the exact factorization's U on a symmetric matrix)", ok));
    PetscCall(BufDestroy(&b));
  }

  /* 9. the patterns of the approximate inverses: the lower and upper parts (level 1), S(|T|^2) (level 2), the column
     views; against dense boolean products */
  {
    BISAIPat P[2][2]; /* [lower, upper][level 1, 2] */
    char    *T, *Q;

    PetscCall(PetscMemzero(P, sizeof(P)));
    PetscCall(PetscCalloc2((size_t)nb * nb, &T, (size_t)nb * nb, &Q));
    for (int w = 0; w < 2; w++) {
      for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) T[(size_t)i * nb + j] = 0;
      for (int p = 0; p < nnzb; p++) {
        const int i = ((int *)bridx.h)[p], j = ((int *)bcols.h)[p];
        if (w == 0 ? j <= i : j >= i) T[(size_t)i * nb + j] = 1;
      }
      for (int i = 0; i < nb; i++)
        for (int c = 0; c < nb; c++) {
          char v = 0;
          for (int j = 0; j < nb && !v; j++) v = (char)(T[(size_t)i * nb + j] && T[(size_t)j * nb + c]);
          Q[(size_t)i * nb + c] = v;
        }
      for (int lev = 1; lev <= 2; lev++) {
        BISAIPat   *M = &P[w][lev - 1];
        const char *want_ = lev == 1 ? T : Q;
        int         cnt = 0;

        PetscCall(BISAIPatternOf(R, 0, nb, &brp, &bcols, &bdiag, w == 0, lev, &bst, M));
        ok = (PetscBool)(((int *)M->rp.h)[0] == 0);
        for (int i = 0; i < nb && ok; i++) {
          for (int c = 0; c < nb; c++)
            if (want_[(size_t)i * nb + c]) {
              ok = (PetscBool)(ok && cnt < M->nnz && ((int *)M->cols.h)[cnt] == c);
              cnt++;
            }
          ok = (PetscBool)(ok && ((int *)M->rp.h)[i + 1] == cnt);
        }
        ok = (PetscBool)(ok && cnt == M->nnz);
        /* the column view: columns in order, rows ascending, pos pointing at the block */
        for (int j = 0, tt = 0; j < nb && ok; j++) {
          ok = (PetscBool)(((int *)M->colptr.h)[j] == tt);
          for (int i = 0; i < nb && ok; i++)
            if (want_[(size_t)i * nb + j]) {
              const int q = ((int *)M->pos.h)[tt];
              ok          = (PetscBool)(((int *)M->rowidx.h)[tt] == i && q >= ((int *)M->rp.h)[i] && q < ((int *)M->rp.h)[i + 1] && ((int *)M->cols.h)[q] == j);
              tt++;
            }
        }
#if defined(PETSC_HAVE_CUDA)
        if (use_cuda && ok) {
          PetscCall(BISAIPatternOf(C, 1, nb, &brp, &bcols, &bdiag, w == 0, lev, &bst, M));
          PetscCall(BISAICompare(&M->rp, nb + 1, 0, 0, &ok));
          PetscCall(BISAICompare(&M->cols, M->nnz, 0, 0, &ok));
          PetscCall(BISAICompare(&M->colptr, nb + 1, 0, 0, &ok));
          PetscCall(BISAICompare(&M->rowidx, M->nnz, 0, 0, &ok));
          PetscCall(BISAICompare(&M->pos, M->nnz, 0, 0, &ok));
        }
#endif
        PetscCall(Report(w == 0 ? (lev == 1 ? "bisai pattern_part, pattern_transpose: the lower part and its column view" : "bisai pattern_power, pattern_transpose: S(|L|^2) and its column view") : (lev == 1 ? "bisai pattern_part, pattern_transpose: the upper part and its column view" : "bisai pattern_power, pattern_transpose: S(|U|^2) and its column view"), ok));
      }
    }
    PetscCall(PetscFree2(T, Q));

    /* 10. the approximate inverses on the level-2 patterns (A's exact factors): L M_L = I, U M_U = I on the patterns */
    for (int w = 0; w < 2; w++) {
      BISAIPat          *M = &P[w][1];
      Buf                bM;
      unsigned long long prod;

      PetscCall(BufCreate(sizeof(double) * M->nnz * bs2, &bM));
#define CALL_ISAI(K, H) \
  (w == 0 ? K->isai_lower(nb, bs, (const int *)brp.H, (const int *)bcols.H, (const double *)bF.H, (const int *)M->colptr.H, (const int *)M->rowidx.H, (const int *)M->pos.H, (double *)bM.H, (unsigned long long *)BISAI_ST(K, H, products), NULL) \
          : K->isai_upper(nb, bs, (const int *)brp.H, (const int *)bcols.H, (const double *)bF.H, (const double *)bD.H, (const int *)M->colptr.H, (const int *)M->rowidx.H, (const int *)M->pos.H, (double *)bM.H, (unsigned long long *)BISAI_ST(K, H, products), NULL))
      BISAI_RUN(CALL_ISAI);
      prod = BISAIStatusH(bst)->products;
      ok   = (PetscBool)(Written((double *)bM.h, M->nnz * bs2) && prod > 0);
      for (int j = 0; j < nb && ok; j++)
        for (int a = ((int *)M->colptr.h)[j]; a < ((int *)M->colptr.h)[j + 1]; a++) { /* (T M)(i, j) = sum_k T(i, k) M(k, j), k in the column's rows */
          const int i = ((int *)M->rowidx.h)[a];
          double    Pm[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Pa[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Id[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0};

          for (int b = ((int *)M->colptr.h)[j]; b < ((int *)M->colptr.h)[j + 1]; b++) {
            const int     k   = ((int *)M->rowidx.h)[b];
            const double *Mkj = (double *)bM.h + (size_t)((int *)M->pos.h)[b] * bs2, *Tik;
            if (w == 0 ? k > i : k < i) continue;
            if (w == 0 && k == i) { /* L(i, i) = I */
              for (int e = 0; e < bs2; e++) {
                Pm[e] += Mkj[e];
                Pa[e] += PetscAbsReal(Mkj[e]);
              }
              continue;
            }
            Tik = BISAIBlockOf((int *)brp.h, (int *)bcols.h, bs, (double *)bF.h, i, k);
            if (Tik) BISAIGemm(bs, Tik, Mkj, PETSC_FALSE, 1.0, Pm, Pa);
          }
          for (int e = 0; e < bs2; e++) Id[e] = i == j && e / bs == e % bs;
          ok = (PetscBool)(BISAIErr(bs2, Pm, Id, Pa, 1.0) <= 1e-12);
        }
#if defined(PETSC_HAVE_CUDA)
      if (use_cuda && ok) {
        PetscCall(BISAIStatusDownload(&bst, &dst));
        ok = (PetscBool)(dst.products == prod);
      }
#endif
      PetscCall(BISAICompare(&bM, (long long)M->nnz * bs2, 1, 1e-12, &ok));
      PetscCall(Report(w == 0 ? "bisai isai_lower: L M_L = I on the pattern S(|L|^2)" : "bisai isai_upper: U M_U = I on the pattern S(|U|^2)", ok));

      /* 12. (on M_U) bsr_mult: y = M x, y += M x, and the library's product */
      if (w == 1) {
        Buf bx, by;

        PetscCall(BufCreate(sizeof(double) * m, &bx));
        RandomVector(m, 73, -1.0, 1.0, (double *)bx.h);
#if defined(PETSC_HAVE_CUDA)
        if (use_cuda) PetscCallCUDA(cudaMemcpy(bx.d, bx.h, sizeof(double) * m, cudaMemcpyHostToDevice));
#endif
        for (int add = 0; add < 2; add++) {
          PetscCall(BufCreate(sizeof(double) * m, &by));
          RandomVector(m, 79, -1.0, 1.0, (double *)by.h);
#if defined(PETSC_HAVE_CUDA)
          if (use_cuda) PetscCallCUDA(cudaMemcpy(by.d, by.h, sizeof(double) * m, cudaMemcpyHostToDevice));
#endif
          for (int i = 0; i < nb; i++)
            for (int r = 0; r < bs; r++) {
              double s = add ? ((double *)by.h)[i * bs + r] : 0, sa = PetscAbsReal(s);
              for (int p = ((int *)M->rp.h)[i]; p < ((int *)M->rp.h)[i + 1]; p++)
                for (int c = 0; c < bs; c++) {
                  const double v = ((double *)bM.h)[(size_t)p * bs2 + r * bs + c] * ((double *)bx.h)[((int *)M->cols.h)[p] * bs + c];
                  s += v;
                  sa += PetscAbsReal(v);
                }
              want[i * bs + r] = s;
              wabs[i * bs + r] = sa;
            }
#define CALL_MULT(K, H) K->bsr_mult(nb, bs, (const int *)M->rp.H, (const int *)M->cols.H, (const double *)bM.H, (const double *)bx.H, add, (double *)by.H, NULL)
          BISAI_RUN(CALL_MULT);
          ok = (PetscBool)(BISAIErr(m, (double *)by.h, want, wabs, 1e-300) <= 1e-14);
          PetscCall(BISAICompare(&by, m, 1, 1e-13, &ok));
#if defined(PETSC_HAVE_CUDA)
          if (use_cuda && ok && C->bsr_mult_library && bs >= C->library_min_bs) {
            void *lib = NULL;
            int   err;

            PetscCallCUDA(cudaMemcpy(by.d, by.h, sizeof(double) * m, cudaMemcpyHostToDevice)); /* y = M x (+ y0) again ... */
            if (add) {
              double *y0;
              PetscCall(PetscMalloc1(m, &y0));
              RandomVector(m, 79, -1.0, 1.0, y0);
              PetscCallCUDA(cudaMemcpy(by.d, y0, sizeof(double) * m, cudaMemcpyHostToDevice)); /* ... from y0 */
              PetscCall(PetscFree(y0));
            } else PetscCallCUDA(cudaMemset(by.d, POISON, by.bytes));
            err = C->bsr_mult_library(&lib, nb, bs, M->nnz, (const int *)M->rp.d, (const int *)M->cols.d, (const double *)bM.d, (const double *)bx.d, add, (double *)by.d, NULL);
            PetscCall(BISAICompare(&by, m, 1, 1e-13, &ok));
            ok  = (PetscBool)(ok && !err);
            err = C->library_destroy(&lib);
            ok  = (PetscBool)(ok && !err);
          }
#endif
          PetscCall(Report(add ? "bisai bsr_mult: y += M x" : "bisai bsr_mult: y = M x", ok));
          PetscCall(BufDestroy(&by));
        }
        PetscCall(BufDestroy(&bx));
      }
      PetscCall(BufDestroy(&bM));
    }

    /* 11. isai_transpose on S's symmetric factors: H[t] = G[pos[t]]^T Dinv[rowidx[t]] (G on the level-2 lower pattern) */
    {
      BISAIPat *M = &P[0][1];
      Buf       bG, bH;

      PetscCall(BufCreate(sizeof(double) * M->nnz * bs2, &bG));
      PetscCall(BufCreate(sizeof(double) * M->nnz * bs2, &bH));
#define CALL_G(K, H) K->isai_lower(nb, bs, (const int *)brp.H, (const int *)bcols.H, (const double *)bFs.H, (const int *)M->colptr.H, (const int *)M->rowidx.H, (const int *)M->pos.H, (double *)bG.H, NULL, NULL)
#define CALL_H(K, H) K->isai_transpose(bs, M->nnz, (const int *)M->rowidx.H, (const int *)M->pos.H, (const double *)bG.H, (const double *)bDs.H, (double *)bH.H, NULL)
      BISAI_RUN(CALL_G);
      BISAI_RUN(CALL_H);
      ok = PETSC_TRUE;
      for (int tt = 0; tt < M->nnz && ok; tt++) {
        double W[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Wa[MS_BISAI_MAXBS * MS_BISAI_MAXBS] = {0}, Gt[MS_BISAI_MAXBS * MS_BISAI_MAXBS];
        const double *g = (double *)bG.h + (size_t)((int *)M->pos.h)[tt] * bs2;
        for (int e = 0; e < bs2; e++) Gt[e] = g[(e % bs) * bs + e / bs];
        BISAIGemm(bs, Gt, (double *)bDs.h + (size_t)((int *)M->rowidx.h)[tt] * bs2, PETSC_FALSE, 1.0, W, Wa);
        ok = (PetscBool)(BISAIErr(bs2, (double *)bH.h + (size_t)tt * bs2, W, Wa, 1e-300) <= 1e-14);
      }
      PetscCall(BISAICompare(&bG, (long long)M->nnz * bs2, 1, 1e-12, &ok));
      PetscCall(BISAICompare(&bH, (long long)M->nnz * bs2, 1, 1e-12, &ok));
      PetscCall(Report("bisai isai_transpose: H = G^T D^-1 by G's columns", ok));
      PetscCall(BufDestroy(&bG));
      PetscCall(BufDestroy(&bH));
    }
    for (int w = 0; w < 2; w++)
      for (int l = 0; l < 2; l++) PetscCall(BISAIPatDestroy(&P[w][l]));
  }

  /* 13. factor_residual: y = b - L x (L = I + F's strictly lower blocks), y = b - U x (F's diagonal and upper blocks) */
  {
    Buf bx, bb, by;

    PetscCall(BufCreate(sizeof(double) * m, &bx));
    PetscCall(BufCreate(sizeof(double) * m, &bb));
    RandomVector(m, 83, -1.0, 1.0, (double *)bx.h);
    RandomVector(m, 89, -1.0, 1.0, (double *)bb.h);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscCallCUDA(cudaMemcpy(bx.d, bx.h, sizeof(double) * m, cudaMemcpyHostToDevice));
      PetscCallCUDA(cudaMemcpy(bb.d, bb.h, sizeof(double) * m, cudaMemcpyHostToDevice));
    }
#endif
    for (int lower = 1; lower >= 0; lower--) {
      PetscCall(BufCreate(sizeof(double) * m, &by));
      for (int i = 0; i < nb; i++)
        for (int r = 0; r < bs; r++) {
          double s = ((double *)bb.h)[i * bs + r], sa = PetscAbsReal(s);
          if (lower) {
            s -= ((double *)bx.h)[i * bs + r];
            sa += PetscAbsReal(((double *)bx.h)[i * bs + r]);
          }
          for (int p = ((int *)brp.h)[i]; p < ((int *)brp.h)[i + 1]; p++) {
            const int j = ((int *)bcols.h)[p];
            if (lower ? j >= i : j < i) continue;
            for (int c = 0; c < bs; c++) {
              const double v = ((double *)bF.h)[(size_t)p * bs2 + r * bs + c] * ((double *)bx.h)[j * bs + c];
              s -= v;
              sa += PetscAbsReal(v);
            }
          }
          want[i * bs + r] = s;
          wabs[i * bs + r] = sa;
        }
#define CALL_FRES(K, H) K->factor_residual(nb, bs, lower, (const int *)brp.H, (const int *)bcols.H, (const int *)bdiag.H, (const double *)bF.H, (const double *)bb.H, (const double *)bx.H, (double *)by.H, NULL)
      BISAI_RUN(CALL_FRES);
      ok = (PetscBool)(BISAIErr(m, (double *)by.h, want, wabs, 1e-300) <= 1e-14);
      PetscCall(BISAICompare(&by, m, 1, 1e-13, &ok));
      PetscCall(Report(lower ? "bisai factor_residual: y = b - L x" : "bisai factor_residual: y = b - U x", ok));
      PetscCall(BufDestroy(&by));
    }
    PetscCall(BufDestroy(&bx));
    PetscCall(BufDestroy(&bb));
  }

  {
    Buf *all[] = {&bai, &baj, &bhai, &bhaj, &baa, &bsa, &brp, &bcols, &bridx, &bdiag, &bmap, &bhrp, &bhcols, &bhridx, &bhdiag, &bhmap, &bst, &bA, &bS, &bF, &bFs, &bD, &bDs, &bwork};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PetscCall(BufDestroy(all[i]));
  }
  PetscCall(PetscFree2(want, wabs));
  PetscCall(BISAITestDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* PCNEUMANN's deflation kernels (neumannkernels.h)                                                             */

/* The deflation kernels blocks, order, cut, galerkin (E = Z^T A Z, Z^T A), restrict, coarse and prolong on a matrix
   of mstest.h (-kind, sizes) with -nsub subdomains of kind -sub_kind:
     contiguous  blocks of consecutive rows (kernel blocks without a permutation; order with and without the identity
                 shortcut)
     permuted    blocks of a random permutation (kernel blocks with it: as the locality partition is used)
     scattered   sub[o] = a hash of o modulo nsub (subdomains of scattered rows; empty ones when nsub > m)
   E is computed as the rows of a process whose subdomains start at column -coff of nt = coff + nsub + 2 columns (the
   columns of other processes must stay 0). The reference against a direct computation from the CSR (-direct: the
   O(nsub m) checks of galerkin), the CUDA kernels against the reference: the setup bit for bit (the canonical order of
   the sums), the per-apply kernels to 1e-12. */
static PetscErrorCode TestNeumann(void)
{
  MSTestCSR           T;
  const char         *skinds[] = {"contiguous", "permuted", "scattered"};
  PetscInt            skind = 0, nsub = 8, coff = 2, m, nnz, nt, bs, maxitems = 0, ncutd = 0;
  PetscBool           direct = PETSC_TRUE, ok;
  int                *ai, *aj, *perm = NULL, *sub, *hoff, *hxoff, err;
  double             *a, *bvec;
  MSNeuCSR            Ah, Ad;
  MSNeuZtA            Zh, Zd;
  MSNeuDefl           Dh, Dd;
  Buf                 bai, baj, baa, bperm, bsub, border, boff, bncut, bE, bE2, bzw, bxrow, bxval, bxoff, bnx, ba, bb, bout, bwork, bc, bz, bg, bEinv;
  long long           ncut, nx;
  const MSNeuKernels *R = &MSNeuKernels_Reference;
#if defined(PETSC_HAVE_CUDA)
  const MSNeuKernels *C = &MSNeuKernels_CUDA;
#endif

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsub", &nsub, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-coff", &coff, NULL));
  PetscCall(PetscOptionsGetEList(NULL, NULL, "-sub_kind", skinds, 3, &skind, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-direct", &direct, NULL));
  PetscCheck(nsub >= 1 && coff >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-nsub >= 1, -coff >= 0");
  PetscCall(MSTestGenerate(PETSC_COMM_SELF, &T));
  PetscCheck(T.nrows == T.ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "a square matrix");
  m   = T.nrows;
  nnz = T.ia[m];
  nt  = coff + nsub + 2;
  bs  = (m + nsub - 1) / nsub;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " subdomains (%s), E's columns %" PetscInt_FMT " .. %" PetscInt_FMT " of %" PetscInt_FMT "\n", nsub, skinds[skind], coff, coff + nsub - 1, nt));

  /* inputs: the CSR, a right-hand side and a vector, the permutation */
  PetscCall(PetscMalloc4(m + 1, &ai, PetscMax(nnz, 1), &aj, PetscMax(nnz, 1), &a, PetscMax(m, 1), &bvec));
  for (PetscInt i = 0; i <= m; i++) ai[i] = (int)T.ia[i];
  for (PetscInt e = 0; e < nnz; e++) {
    aj[e] = (int)T.ja[e];
    a[e]  = PetscRealPart(T.va[e]);
  }
  PetscCall(BufInput(sizeof(int) * (m + 1), ai, &bai));
  PetscCall(BufInput(sizeof(int) * nnz, aj, &baj));
  PetscCall(BufInput(sizeof(double) * nnz, a, &baa));
  Ah.m = Ad.m = (int)m;
  Ah.nnz = Ad.nnz = (int)nnz;
  Ah.ai           = (const int *)bai.h;
  Ah.aj           = (const int *)baj.h;
  Ah.aa           = (const double *)baa.h;
  Ad.ai           = (const int *)bai.d;
  Ad.aj           = (const int *)baj.d;
  Ad.aa           = (const double *)baa.d;
  {
    double *av;
    PetscCall(PetscMalloc1(PetscMax(m, 1), &av));
    for (PetscInt o = 0; o < m; o++) {
      av[o]   = 2.0 * MSTestHashUniform(3 * (unsigned long long)o + 1) - 1.0;
      bvec[o] = 2.0 * MSTestHashUniform(3 * (unsigned long long)o + 2) - 1.0;
    }
    PetscCall(BufInput(sizeof(double) * m, av, &ba));
    PetscCall(BufInput(sizeof(double) * m, bvec, &bb));
    PetscCall(PetscFree(av));
  }
  PetscCall(PetscMalloc1(PetscMax(m, 1), &sub));
  if (skind == 1) { /* a random permutation (Fisher-Yates with the test generator) */
    MSTestRng rng = {11};
    PetscCall(PetscMalloc1(PetscMax(m, 1), &perm));
    for (PetscInt i = 0; i < m; i++) perm[i] = (int)i;
    for (PetscInt i = m - 1; i > 0; i--) {
      const PetscInt k = MSTestRngInt(&rng, i + 1);
      const int      t = perm[i];
      perm[i]          = perm[k];
      perm[k]          = t;
    }
  }
  PetscCall(BufInput(perm ? sizeof(int) * m : 0, perm, &bperm));

  /* blocks */
  PetscCall(BufCreate(sizeof(int) * m, &bsub));
  if (skind == 2) {
    for (PetscInt o = 0; o < m; o++) ((int *)bsub.h)[o] = (int)(MSTestHash64((unsigned long long)o * 7 + 5) % (unsigned long long)nsub);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) PetscCallCUDA(cudaMemcpy(bsub.d, bsub.h, sizeof(int) * m, cudaMemcpyHostToDevice));
#endif
  } else {
    err = R->blocks((int)m, skind == 1 ? (const int *)bperm.h : NULL, (int)bs, (int *)bsub.h, NULL);
    ok  = (PetscBool)!err;
    for (PetscInt r = 0; r < m; r++) ok = (PetscBool)(ok && ((int *)bsub.h)[skind == 1 ? perm[r] : r] == (int)(r / bs));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscBool same;
      err = C->blocks((int)m, skind == 1 ? (const int *)bperm.d : NULL, (int)bs, (int *)bsub.d, NULL);
      PetscCall(BufSame(&bsub, sizeof(int) * m, &same));
      ok = (PetscBool)(!err && same);
    }
#endif
    PetscCall(Report("neumann blocks: sub[perm[r]] = r / bs", ok));
  }
  memcpy(sub, bsub.h, sizeof(int) * m);

  /* order (with the identity shortcut too for consecutive rows) */
  PetscCall(BufCreate(sizeof(int) * m, &border));
  PetscCall(BufCreate(sizeof(int) * (nsub + 1), &boff));
  for (PetscInt pass = 0; pass < (skind == 0 ? 2 : 1); pass++) {
    const PetscBool ident = (PetscBool)(pass == 1);
    const int      *ord = (const int *)border.h, *off = (const int *)boff.h;
    PetscInt       *cnt;

    err = R->order((int)m, (const int *)bsub.h, (int)nsub, ident ? NULL : (int *)border.h, (int *)boff.h, NULL);
    PetscCall(PetscCalloc1(nsub, &cnt));
    for (PetscInt o = 0; o < m; o++) cnt[sub[o]]++;
    ok = (PetscBool)(!err && off[0] == 0 && off[nsub] == m);
    for (PetscInt j = 0; j < nsub; j++) {
      ok = (PetscBool)(ok && off[j + 1] - off[j] == cnt[j]);
      for (PetscInt i = off[j]; !ident && i < off[j + 1]; i++) ok = (PetscBool)(ok && sub[ord[i]] == j && (i == off[j] || ord[i] > ord[i - 1]));
    }
    PetscCall(PetscFree(cnt));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscBool s1 = PETSC_TRUE, s2;
      err = C->order((int)m, (const int *)bsub.d, (int)nsub, ident ? NULL : (int *)border.d, (int *)boff.d, NULL);
      if (!ident) PetscCall(BufSame(&border, sizeof(int) * m, &s1));
      PetscCall(BufSame(&boff, sizeof(int) * (nsub + 1), &s2));
      ok = (PetscBool)(!err && s1 && s2);
    }
#endif
    PetscCall(Report(ident ? "neumann order (identity): subdomain offsets" : "neumann order: rows sorted by (subdomain, row), offsets", ok));
  }
  /* the order for the restriction below: the real one */
  err = R->order((int)m, (const int *)bsub.h, (int)nsub, (int *)border.h, (int *)boff.h, NULL);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "kernel order failed with code %d", err);
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda) {
    err = C->order((int)m, (const int *)bsub.d, (int)nsub, (int *)border.d, (int *)boff.d, NULL);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "kernel order (CUDA) failed with code %d", err);
  }
#endif

  /* cut */
  PetscCall(BufCreate(sizeof(long long), &bncut));
  err = R->cut(&Ah, (const int *)bsub.h, (long long *)bncut.h, NULL);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "kernel cut failed with code %d", err);
  ncut = *(long long *)bncut.h;
  for (PetscInt o = 0; o < m; o++)
    for (PetscInt e = ai[o]; e < ai[o + 1]; e++) ncutd += sub[aj[e]] != sub[o];
  ok = (PetscBool)(ncut == ncutd);
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) {
    PetscBool same;
    err = C->cut(&Ad, (const int *)bsub.d, (long long *)bncut.d, NULL);
    PetscCall(BufSame(&bncut, sizeof(long long), &same));
    ok = (PetscBool)(!err && same);
  }
#endif
  PetscCall(Report("neumann cut: the entries between subdomains", ok));

  /* galerkin, with Z^T A, then E alone */
  PetscCall(BufCreate(sizeof(double) * nsub * nt, &bE));
  PetscCall(BufCreate(sizeof(double) * nsub * nt, &bE2));
  PetscCall(BufCreate(sizeof(double) * m, &bzw));
  PetscCall(BufCreate(sizeof(int) * PetscMax(ncut, 1), &bxrow));
  PetscCall(BufCreate(sizeof(double) * PetscMax(ncut, 1), &bxval));
  PetscCall(BufCreate(sizeof(int) * (nsub + 1), &bxoff));
  PetscCall(BufCreate(sizeof(long long), &bnx));
  Zh.zw   = (double *)bzw.h;
  Zh.xrow = (int *)bxrow.h;
  Zh.xval = (double *)bxval.h;
  Zh.xoff = (int *)bxoff.h;
  Zh.cap  = ncut;
  Zh.nx   = (long long *)bnx.h;
  Zd      = Zh;
  Zd.zw   = (double *)bzw.d;
  Zd.xrow = (int *)bxrow.d;
  Zd.xval = (double *)bxval.d;
  Zd.xoff = (int *)bxoff.d;
  Zd.nx   = (long long *)bnx.d;
  err     = R->galerkin(&Ah, (const int *)bsub.h, (int)nsub, (int)nt, (int)coff, (double *)bE.h, &Zh, NULL);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "kernel galerkin failed with code %d", err);
  nx = *Zh.nx;
  if (direct) { /* S(j, c) = sum_{sub[o] = j} a_oc, dense, with the sums of magnitudes and the pattern */
    double   *S, *Sa, *Ed, *Ea;
    char     *mark;
    PetscBool okE = PETSC_TRUE, okz = PETSC_TRUE, okl = PETSC_TRUE;
    PetscInt  q   = 0;

    PetscCall(PetscCalloc5(nsub * m, &S, nsub * m, &Sa, nsub * m, &mark, nsub * nsub, &Ed, nsub * nsub, &Ea));
    for (PetscInt o = 0; o < m; o++)
      for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
        S[sub[o] * m + aj[e]] += a[e];
        Sa[sub[o] * m + aj[e]] += PetscAbsReal(a[e]);
        mark[sub[o] * m + aj[e]] = 1;
      }
    for (PetscInt j = 0; j < nsub; j++)
      for (PetscInt c = 0; c < m; c++) {
        Ed[j * nsub + sub[c]] += S[j * m + c];
        Ea[j * nsub + sub[c]] += Sa[j * m + c];
      }
    for (PetscInt j = 0; j < nsub; j++)
      for (PetscInt k = 0; k < nt; k++) {
        const double v = ((double *)bE.h)[j * nt + k];
        if (k < coff || k >= coff + nsub) okE = (PetscBool)(okE && v == 0.0);
        else okE = (PetscBool)(okE && PetscAbsReal(v - Ed[j * nsub + k - coff]) <= 1e-13 * Ea[j * nsub + k - coff]);
      }
    for (PetscInt c = 0; c < m; c++) okz = (PetscBool)(okz && PetscAbsReal(Zh.zw[c] - S[sub[c] * m + c]) <= 1e-13 * Sa[sub[c] * m + c]);
    for (PetscInt j = 0; j < nsub; j++) {
      okl = (PetscBool)(okl && Zh.xoff[j] == q);
      for (PetscInt c = 0; c < m; c++)
        if (mark[j * m + c] && sub[c] != j) {
          okl = (PetscBool)(okl && q < nx && Zh.xrow[q] == c && PetscAbsReal(Zh.xval[q] - S[j * m + c]) <= 1e-13 * Sa[j * m + c]);
          q++;
        }
    }
    okl = (PetscBool)(okl && Zh.xoff[nsub] == q && nx == q);
    PetscCall(Report("neumann galerkin: E = Z^T A Z (other processes' columns 0) to 1e-13", okE));
    PetscCall(Report("neumann galerkin: zw[c] = S(sub[c], c) to 1e-13", okz));
    PetscCall(Report("neumann galerkin: the list is S(j, c) for j != sub[c], in (j, c) order, to 1e-13", okl));
    PetscCall(PetscFree5(S, Sa, mark, Ed, Ea));
  }
  err = R->galerkin(&Ah, (const int *)bsub.h, (int)nsub, (int)nt, (int)coff, (double *)bE2.h, NULL, NULL);
  ok  = (PetscBool)(!err && !memcmp(bE.h, bE2.h, sizeof(double) * nsub * nt));
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && ok) { /* bit for bit: E, zw, the list; E alone; E and the list again */
    PetscBool s[7];
    int       e[3];

    e[0] = C->galerkin(&Ad, (const int *)bsub.d, (int)nsub, (int)nt, (int)coff, (double *)bE.d, &Zd, NULL);
    PetscCall(BufSame(&bE, sizeof(double) * nsub * nt, &s[0]));
    PetscCall(BufSame(&bzw, sizeof(double) * m, &s[1]));
    PetscCall(BufSame(&bnx, sizeof(long long), &s[2]));
    PetscCall(BufSame(&bxrow, sizeof(int) * nx, &s[3]));
    PetscCall(BufSame(&bxval, sizeof(double) * nx, &s[4]));
    PetscCall(BufSame(&bxoff, sizeof(int) * (nsub + 1), &s[5]));
    e[1] = C->galerkin(&Ad, (const int *)bsub.d, (int)nsub, (int)nt, (int)coff, (double *)bE2.d, NULL, NULL);
    PetscCall(BufSame(&bE2, sizeof(double) * nsub * nt, &s[6]));
    PetscCallCUDA(cudaMemset(bxval.d, POISON, bxval.bytes));
    e[2] = C->galerkin(&Ad, (const int *)bsub.d, (int)nsub, (int)nt, (int)coff, (double *)bE.d, &Zd, NULL);
    ok   = (PetscBool)(!e[0] && !e[1] && !e[2]);
    for (int k = 0; k < 7; k++) ok = (PetscBool)(ok && s[k]);
    PetscCall(BufSame(&bE, sizeof(double) * nsub * nt, &s[0]));
    PetscCall(BufSame(&bxval, sizeof(double) * nx, &s[4]));
    ok = (PetscBool)(ok && s[0] && s[4]);
  }
#endif
  PetscCall(Report("neumann galerkin: E alone equals E with Z^T A; again the same", ok));

  /* restrict: Z^T (a - A b) through Z^T A (zta), Z^T (a - b), Z^T a; against Z^T (a - A b) with a product */
  PetscCall(PetscMalloc2(nsub + 1, &hoff, nsub + 1, &hxoff));
  memcpy(hoff, boff.h, sizeof(int) * (nsub + 1));
  memcpy(hxoff, bxoff.h, sizeof(int) * (nsub + 1));
  for (PetscInt j = 0; j < nsub; j++) maxitems = PetscMax(maxitems, (PetscInt)(hoff[j + 1] - hoff[j] + hxoff[j + 1] - hxoff[j]));
  PetscCall(BufCreate(sizeof(double) * nsub, &bout));
  PetscCall(BufCreate(sizeof(double) * nsub * MS_NEU_NCHUNKS(maxitems), &bwork));
  Dh.m        = (int)m;
  Dh.nsub     = (int)nsub;
  Dh.maxitems = (int)maxitems;
  Dh.order    = skind == 0 ? NULL : (const int *)border.h;
  Dh.off      = (const int *)boff.h;
  Dh.w        = (const double *)bzw.h;
  Dh.xoff     = (const int *)bxoff.h;
  Dh.xrow     = (const int *)bxrow.h;
  Dh.xval     = (const double *)bxval.h;
  Dh.work     = NULL;
  Dd          = Dh;
  Dd.order    = skind == 0 ? NULL : (const int *)border.d;
  Dd.off      = (const int *)boff.d;
  Dd.w        = (const double *)bzw.d;
  Dd.xoff     = (const int *)bxoff.d;
  Dd.xrow     = (const int *)bxrow.d;
  Dd.xval     = (const double *)bxval.d;
  Dd.work     = (double *)bwork.d;
  (void)Zd; /* (without CUDA) */
  (void)Dd;
  for (PetscInt mode = 0; mode < 3; mode++) { /* 0: zta, 1: a - b, 2: a */
    const char *names[] = {"Z^T (a - A b) through Z^T A", "Z^T (a - b)", "Z^T a"};
    double     *ref, *mag;
    PetscReal   worst = 0;
    char        line[256];

    err = R->restrict_(&Dh, (const double *)ba.h, mode == 2 ? NULL : (const double *)bb.h, mode == 0, (double *)bout.h, NULL);
    PetscCall(PetscCalloc2(nsub, &ref, nsub, &mag));
    for (PetscInt o = 0; o < m; o++) {
      double v = ((double *)ba.h)[o], s = PetscAbsReal(v);
      if (mode == 0) {
        for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
          v -= a[e] * bvec[aj[e]];
          s += PetscAbsReal(a[e] * bvec[aj[e]]);
        }
      } else if (mode == 1) {
        v -= bvec[o];
        s += PetscAbsReal(bvec[o]);
      }
      ref[sub[o]] += v;
      mag[sub[o]] += s;
    }
    for (PetscInt j = 0; j < nsub; j++) worst = PetscMax(worst, PetscAbsReal(((double *)bout.h)[j] - ref[j]) / PetscMax(mag[j], 1e-300));
    ok = (PetscBool)(!err && worst <= 1e-12);
    PetscCall(PetscFree2(ref, mag));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscReal rel;
      err = C->restrict_(&Dd, (const double *)ba.d, mode == 2 ? NULL : (const double *)bb.d, mode == 0, (double *)bout.d, NULL);
      PetscCall(BufRelDiff(&bout, nsub, &rel));
      ok = (PetscBool)(!err && rel <= 1e-12);
    }
#endif
    PetscCall(PetscSNPrintf(line, sizeof(line), "neumann restrict: %s to 1e-12", names[mode]));
    PetscCall(Report(line, ok));
  }

  /* coarse (this process's nsub rows of a dense nt x nt matrix) and prolong */
  {
    double *Ein, *g;

    PetscCall(PetscMalloc2(nsub * nt, &Ein, nt, &g));
    for (PetscInt i = 0; i < nsub * nt; i++) Ein[i] = MSTestHashUniform(5 * (unsigned long long)i + 3) - 0.5;
    for (PetscInt j = 0; j < nt; j++) g[j] = MSTestHashUniform(5 * (unsigned long long)j + 4) - 0.5;
    PetscCall(BufInput(sizeof(double) * nsub * nt, Ein, &bEinv));
    PetscCall(BufInput(sizeof(double) * nt, g, &bg));
    PetscCall(BufCreate(sizeof(double) * nsub, &bc));
    PetscCall(BufCreate(sizeof(double) * m, &bz));
    err = R->coarse((int)nsub, (int)nt, (const double *)bEinv.h, (const double *)bg.h, (double *)bc.h, NULL);
    ok  = (PetscBool)!err;
    err = R->prolong((int)m, (const int *)bsub.h, (const double *)bc.h, (const double *)bb.h, (double *)bz.h, NULL);
    ok  = (PetscBool)(ok && !err);
    for (PetscInt i = 0; i < nsub; i++) {
      double s = 0, sa = 0;
      for (PetscInt j = 0; j < nt; j++) {
        s += Ein[i * nt + j] * g[j];
        sa += PetscAbsReal(Ein[i * nt + j] * g[j]);
      }
      ok = (PetscBool)(ok && PetscAbsReal(((double *)bc.h)[i] - s) <= 1e-13 * sa);
    }
    for (PetscInt o = 0; o < m; o++) ok = (PetscBool)(ok && ((double *)bz.h)[o] == bvec[o] + ((double *)bc.h)[sub[o]]);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda && ok) {
      PetscReal r1, r2;
      int       e1, e2;

      e1 = C->coarse((int)nsub, (int)nt, (const double *)bEinv.d, (const double *)bg.d, (double *)bc.d, NULL);
      PetscCall(BufRelDiff(&bc, nsub, &r1));
      /* prolong from the reference's c, so that the two see the same input */
      PetscCallCUDA(cudaMemcpy(bc.d, bc.h, sizeof(double) * nsub, cudaMemcpyHostToDevice));
      e2 = C->prolong((int)m, (const int *)bsub.d, (const double *)bc.d, (const double *)bb.d, (double *)bz.d, NULL);
      PetscCall(BufRelDiff(&bz, m, &r2));
      ok = (PetscBool)(!e1 && !e2 && r1 <= 1e-12 && r2 == 0.0);
    }
#endif
    PetscCall(Report("neumann coarse and prolong", ok));
    PetscCall(PetscFree2(Ein, g));
  }
  {
    Buf *all[] = {&bai, &baj, &baa, &bperm, &bsub, &border, &boff, &bncut, &bE, &bE2, &bzw, &bxrow, &bxval, &bxoff, &bnx, &ba, &bb, &bout, &bwork, &bc, &bz, &bg, &bEinv};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PetscCall(BufDestroy(all[i]));
  }
  PetscCall(PetscFree2(hoff, hxoff));
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree(sub));
  PetscCall(PetscFree4(ai, aj, a, bvec));
  PetscCall(MSTestCSRDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const char        *tables[] = {"image", "brbilu", "bisai", "neumann"};
  Ctx                c   = {0};
  PetscInt           seed = 1, nslot = 0, table = 0;
  MatModSELLOrdering ord = MATMODSELL_ORDERING_NATURAL;
  const int          ps[3] = {MS_RUIZ_P1, MS_RUIZ_P2, MS_RUIZ_PINF};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  c.m  = 1000;
  c.sh = 32;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Kernel tests", NULL);
  PetscCall(PetscOptionsEList("-table", "the kernel tables to test", NULL, tables, 4, tables[table], &table, NULL));
  PetscCall(PetscOptionsInt("-m", "rows", NULL, c.m, &c.m, NULL));
  PetscCall(PetscOptionsInt("-sh", "slice height", NULL, c.sh, &c.sh, NULL));
  PetscCall(PetscOptionsEnum("-ordering", "image ordering (natural, rcm)", NULL, MatModSELLOrderings, (PetscEnum)ord, (PetscEnum *)&ord, NULL));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-cuda", "also the CUDA kernels", NULL, use_cuda, &use_cuda, NULL));
  PetscOptionsEnd();
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!use_cuda, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-cuda needs a PETSc configured with CUDA");
#else
  if (use_cuda) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
#endif

  if (table == 1) PetscCall(TestBRBILU());
  if (table == 2) PetscCall(TestBISAI());
  if (table == 3) PetscCall(TestNeumann());
  if (table) goto done;

  /* the square diagonal block: mod-SELL encoding (diagonal apart, in-slice codes) */
  c.n      = c.m;
  c.square = PETSC_TRUE;
  PetscCall(Generate(&c, seed));
  PetscCall(SetUpImage(&c, PETSC_TRUE, ord));
  for (PetscInt o = 0; o < c.m; o++)
    for (PetscInt k = c.csr.ia[o]; k < c.csr.ia[o + 1]; k++) nslot += InSlice(&c, o, c.csr.ja[k]) >= 0;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "square image: %" PetscInt_FMT " rows, slice height %" PetscInt_FMT ", %s ordering, %" PetscInt_FMT " in-slice entries, at most %" PetscInt_FMT " in a row\n", c.m, c.sh, MatModSELLOrderings[ord], nslot, MaxLocal(&c)));
  PetscCall(TestExtractLocal(&c, MS_PART_ALL, "all"));
  PetscCall(TestExtractLocal(&c, MS_PART_LOWER, "lower"));
  PetscCall(TestExtractLocal(&c, MS_PART_UPPER, "upper"));
  for (int k = 0; k < 3; k++) {
    PetscCall(TestRuizRowPass(&c, ps[k], PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE));
    PetscCall(TestRuizRowPass(&c, ps[k], PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE));
    PetscCall(TestRuizRowPass(&c, ps[k], PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE));
    PetscCall(TestRuizVectorKernels(&c, ps[k]));
  }
  PetscCall(TestBJS(&c));
  PetscCall(TestBJSSymmetry(&c, ord));
  PetscCall(DestroyImage(&c));

  /* a rectangular off-process block: plain encoding */
  c.n      = c.m / 2 + 7;
  c.square = PETSC_FALSE;
  PetscCall(Generate(&c, seed + 1));
  PetscCall(SetUpImage(&c, PETSC_FALSE, MATMODSELL_ORDERING_NATURAL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "rectangular image: %" PetscInt_FMT " x %" PetscInt_FMT ", plain encoding\n", c.m, c.n));
  for (int k = 0; k < 3; k++) PetscCall(TestRuizRowPass(&c, ps[k], PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE));
  PetscCall(DestroyImage(&c));
done:
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", nfail ? "SOME KERNELS FAILED" : "all kernels agree"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: !complex !single

   # the pattern, ruiz and bjsmooth tables on random images
   test:
     suffix: 1
     args: -sh 32
   test:
     suffix: 1_rcm
     args: -sh 32 -ordering rcm
   test:
     suffix: 1_sh128
     args: -sh 128 -m 777

   # brbilu: grid orderings of 7-point Laplacians (Dirichlet rows: a pattern that is not symmetric; empty rows: pivots
   # that fail), of a 5-point one, graph orderings (blocks of consecutive rows, of a random permutation, of an
   # unstructured graph), and the coupling test (random couplings between blocks of one colour of a grid ordering)
   test:
     suffix: brbilu_grid
     args: -table brbilu -kind lap3d -nx 12 -ny 10 -nz 9 -brb_box 12,10,9 -brb_blocks 3,3,2 -brb_dirichlet_rows {{0 1}separate output}
   test:
     suffix: brbilu_grid_bricks
     args: -table brbilu -kind lap3d -nx 16 -ny 16 -nz 16 -brb_box 16,16,16 -brb_blocks {{1,1,1 2,2,2 4,4,3}separate output}
   test:
     suffix: brbilu_grid_2d
     args: -table brbilu -kind lap2d -nx 20 -ny 17 -brb_box 20,17,1 -brb_blocks 4,3,1
   test:
     suffix: brbilu_grid_empty_rows
     args: -table brbilu -kind lap3d -nx 10 -ny 9 -nz 8 -brb_box 10,9,8 -brb_blocks 3,2,2 -brb_empty_rows 7
   test:
     suffix: brbilu_graph
     args: -table brbilu -brb_ordering graph -kind lap3d -nx 10 -ny 9 -nz 8 -brb_block_rows 37 -brb_permute {{0 1}separate output}
   test:
     suffix: brbilu_graph_unstructured
     args: -table brbilu -brb_ordering graph -kind unstructured -n 800 -brb_block_rows 50
   test:
     suffix: brbilu_coupled
     args: -table brbilu -kind lap3d -nx 8 -ny 8 -nz 8 -brb_box 8,8,8 -brb_blocks 2,2,2 -brb_extra 20

   # bisai: block sizes 1 to 8
   test:
     suffix: bisai
     args: -table bisai -bisai_bs {{1 2 3 5 8}separate output}

   # neumann: nonsymmetric matrices (random, edge: empty rows, a dense row, rows without diagonal), subdomains of
   # consecutive rows, of a permutation, scattered (with empty subdomains when there are more subdomains than rows),
   # one subdomain (m < block size: nsub 1)
   test:
     suffix: neumann_lap
     args: -table neumann -kind lap2d -nx 12 -ny 11 -nsub {{1 7}separate output} -sub_kind {{contiguous permuted scattered}separate output}
   test:
     suffix: neumann_lap3d
     args: -table neumann -kind lap3d -nx 9 -ny 8 -nz 7 -nsub 27 -sub_kind {{contiguous permuted}separate output} -coff 0
   test:
     suffix: neumann_random
     args: -table neumann -kind random -n 1000 -nzr 5 -nsub 40 -sub_kind {{contiguous scattered}separate output}
   test:
     suffix: neumann_edge
     args: -table neumann -kind edge -n 3000 -dense_row 2100 -nsub 30 -sub_kind {{permuted scattered}separate output}
   test:
     suffix: neumann_empty
     args: -table neumann -kind random -n 50 -nzr 3 -nsub 80 -sub_kind scattered

   # GPU: the CUDA kernels against the reference on the same cases (the outputs of the host), and one case of neumann
   # large enough for the 64-bit sort keys (2.3 M rows, 2000 subdomains: 22 + 11 bits; no direct check there)
   testset:
     requires: cuda
     args: -cuda
     test:
       suffix: cuda_1
       args: -sh 32
       output_file: output/ex2_1.out
     test:
       suffix: cuda_1_rcm
       args: -sh 32 -ordering rcm
       output_file: output/ex2_1_rcm.out
     test:
       suffix: cuda_1_sh128
       args: -sh 128 -m 777
       output_file: output/ex2_1_sh128.out
     test:
       suffix: cuda_brbilu_grid
       args: -table brbilu -kind lap3d -nx 12 -ny 10 -nz 9 -brb_box 12,10,9 -brb_blocks 3,3,2 -brb_dirichlet_rows 1
       output_file: output/ex2_brbilu_grid_brb_dirichlet_rows-1.out
     test:
       suffix: cuda_brbilu_grid_bricks_111
       args: -table brbilu -kind lap3d -nx 16 -ny 16 -nz 16 -brb_box 16,16,16 -brb_blocks 1,1,1
       output_file: output/ex2_brbilu_grid_bricks_brb_blocks-1__1__1.out
     test:
       suffix: cuda_brbilu_grid_bricks_222
       args: -table brbilu -kind lap3d -nx 16 -ny 16 -nz 16 -brb_box 16,16,16 -brb_blocks 2,2,2
       output_file: output/ex2_brbilu_grid_bricks_brb_blocks-2__2__2.out
     test:
       suffix: cuda_brbilu_grid_bricks_443
       args: -table brbilu -kind lap3d -nx 16 -ny 16 -nz 16 -brb_box 16,16,16 -brb_blocks 4,4,3
       output_file: output/ex2_brbilu_grid_bricks_brb_blocks-4__4__3.out
     test:
       suffix: cuda_brbilu_grid_empty_rows
       args: -table brbilu -kind lap3d -nx 10 -ny 9 -nz 8 -brb_box 10,9,8 -brb_blocks 3,2,2 -brb_empty_rows 7
       output_file: output/ex2_brbilu_grid_empty_rows.out
     test:
       suffix: cuda_brbilu_graph
       args: -table brbilu -brb_ordering graph -kind lap3d -nx 10 -ny 9 -nz 8 -brb_block_rows 37 -brb_permute 1
       output_file: output/ex2_brbilu_graph_brb_permute-1.out
     test:
       suffix: cuda_brbilu_coupled
       args: -table brbilu -kind lap3d -nx 8 -ny 8 -nz 8 -brb_box 8,8,8 -brb_blocks 2,2,2 -brb_extra 20
       output_file: output/ex2_brbilu_coupled.out
     test:
       suffix: cuda_bisai_1
       args: -table bisai -bisai_bs 1
       output_file: output/ex2_bisai_bisai_bs-1.out
     test:
       suffix: cuda_bisai_2
       args: -table bisai -bisai_bs 2
       output_file: output/ex2_bisai_bisai_bs-2.out
     test:
       suffix: cuda_bisai_5
       args: -table bisai -bisai_bs 5
       output_file: output/ex2_bisai_bisai_bs-5.out
     test:
       suffix: cuda_bisai_8
       args: -table bisai -bisai_bs 8
       output_file: output/ex2_bisai_bisai_bs-8.out
     test:
       suffix: cuda_neumann_lap_contiguous
       args: -table neumann -kind lap2d -nx 12 -ny 11 -nsub 7 -sub_kind contiguous
       output_file: output/ex2_neumann_lap_nsub-7_sub_kind-contiguous.out
     test:
       suffix: cuda_neumann_lap_permuted
       args: -table neumann -kind lap2d -nx 12 -ny 11 -nsub 7 -sub_kind permuted
       output_file: output/ex2_neumann_lap_nsub-7_sub_kind-permuted.out
     test:
       suffix: cuda_neumann_lap_scattered
       args: -table neumann -kind lap2d -nx 12 -ny 11 -nsub 7 -sub_kind scattered
       output_file: output/ex2_neumann_lap_nsub-7_sub_kind-scattered.out
     test:
       suffix: cuda_neumann_edge_permuted
       args: -table neumann -kind edge -n 3000 -dense_row 2100 -nsub 30 -sub_kind permuted
       output_file: output/ex2_neumann_edge_sub_kind-permuted.out
     test:
       suffix: cuda_neumann_edge_scattered
       args: -table neumann -kind edge -n 3000 -dense_row 2100 -nsub 30 -sub_kind scattered
       output_file: output/ex2_neumann_edge_sub_kind-scattered.out
     test:
       suffix: cuda_neumann_empty
       args: -table neumann -kind random -n 50 -nzr 3 -nsub 80 -sub_kind scattered
       output_file: output/ex2_neumann_empty.out
     test:
       suffix: cuda_neumann_large
       args: -table neumann -kind lap2d -nx 2100 -ny 1100 -nsub 2000 -sub_kind {{contiguous permuted}separate output} -direct 0
       timeoutfactor: 4

TEST*/
