static char help[] = "Kernel tests of the preconditioners' kernel tables (mskernels.h, ruizkernels.h, bjsmoothkernels.h) on random\n\
mod-SELL images: every kernel of the host reference is compared with a direct computation from the matrix's CSR and,\n\
with -cuda (a PETSc with CUDA), every CUDA kernel with the reference on the same image. Every output array is filled\n\
with a poison value (the bytes 0x7f) before a kernel runs, so that an entry a kernel forgot to write is caught.\n\
Options: -m <1000> rows, -sh <32> slice height, -ordering natural|rcm, -seed <1>, -cuda (also the CUDA kernels).\n";

#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/ruizkernels.h>
#include <petscmodsell/private/bjsmoothkernels.h>
#include <mstest.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define POISON 0x7f

typedef struct {
  PetscInt     m, n, sh;
  PetscBool    cuda, square;
  MSTestCSR    csr; /* the matrix, user numbering */
  Mat          A;
  MSImage      img;
  MSImageView  hv, dv; /* host and device views of the same image */
  PetscInt    *iperm;  /* image row of each user row */
  PetscInt     nfail;
} Ctx;

/* ---------------------------------------------------------------------------------------------------------- */
/* host/device buffers                                                                                          */

typedef struct {
  void  *h, *d; /* host copy (reference, or the device result read back) and device array */
  size_t bytes;
} Buf;

static PetscErrorCode BufCreate(Ctx *c, size_t bytes, Buf *b)
{
  PetscFunctionBegin;
  b->bytes = PetscMax(bytes, (size_t)8);
  PetscCall(PetscMalloc(b->bytes, &b->h));
  memset(b->h, POISON, b->bytes);
  b->d = NULL;
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCallCUDA(cudaMalloc(&b->d, b->bytes));
    PetscCallCUDA(cudaMemset(b->d, POISON, b->bytes));
  }
#else
  (void)c;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an input: the same values on the host and the device */
static PetscErrorCode BufInput(Ctx *c, size_t bytes, const void *src, Buf *b)
{
  PetscFunctionBegin;
  PetscCall(BufCreate(c, bytes, b));
  memcpy(b->h, src, bytes);
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) PetscCallCUDA(cudaMemcpy(b->d, src, bytes, cudaMemcpyHostToDevice));
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

static PetscErrorCode Report(Ctx *c, const char *what, PetscBool ok)
{
  PetscFunctionBegin;
  if (!ok) c->nfail++;
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
  if (c->cuda) {
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
  PetscCall(BufCreate(c, sizeof(short) * nloc * m, &lc));
  PetscCall(BufCreate(c, sizeof(double) * nloc * m, &lv));
  PetscCall(BufCreate(c, sizeof(double) * m, &dinv));
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
  if (c->cuda && ok) {
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
  PetscCall(Report(c, what, ok));
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
  PetscCall(BufInput(c, sizeof(double) * m, sr, &bsr));
  PetscCall(BufInput(c, sizeof(double) * n, sc, &bsc));
  PetscCall(BufInput(c, sizeof(double) * m, ain, &bain));
  PetscCall(BufCreate(c, sizeof(double) * m, &bout));
  PetscCall(BufCreate(c, sizeof(double) * m, &bnew));
  PetscCall(BufCreate(c, sizeof(double) * n, &bcol));
  memset(bcol.h, 0, sizeof(double) * n); /* an accumulation: starts from zero */
  PetscCall(BufInput(c, sizeof(st0), &st0, &bst));
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
  if (c->cuda && ok) {
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
  PetscCall(Report(c, what, ok));
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
  PetscCall(BufInput(c, sizeof(double) * n, sc, &bsc));
  PetscCall(BufInput(c, sizeof(double) * n, cacc, &bcacc));
  PetscCall(BufCreate(c, sizeof(double) * n, &bnew));
  PetscCall(BufInput(c, sizeof(st0), &st0, &bst));
  err = MSRuizKernels_Reference.col_pass((int)n, p, (const double *)bsc.h, (const double *)bcacc.h, (double *)bnew.h, 1, 1, (MSRuizStatus *)bst.h, NULL);
  ok  = (PetscBool)(err == 0 && RelDiff((double *)bnew.h, want, n, 1e-300) < 1e-14);
  err = MSRuizKernels_Reference.reset_status((MSRuizStatus *)bst.h, 1, NULL);
  ok  = (PetscBool)(ok && !err && ((MSRuizStatus *)bst.h)->dev == 0 && ((MSRuizStatus *)bst.h)->badcol == MS_RUIZ_BAD_NONE);
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda && ok) {
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
  PetscCall(Report(c, what, ok));
  /* pointwise: y = a .* x and y = a .* (a .* x) */
  for (int square = 0; square < 2; square++) {
    PetscCall(BufInput(c, sizeof(double) * n, x, &bx));
    PetscCall(BufCreate(c, sizeof(double) * n, &by));
    for (PetscInt i = 0; i < n; i++) want[i] = square ? sc[i] * (sc[i] * x[i]) : sc[i] * x[i];
    err = MSRuizKernels_Reference.pointwise((int)n, (const double *)bsc.h, square, (const double *)bx.h, (double *)by.h, NULL);
    ok  = (PetscBool)(err == 0 && RelDiff((double *)by.h, want, n, 1e-300) == 0.0);
#if defined(PETSC_HAVE_CUDA)
    if (c->cuda && ok) {
      err = MSRuizKernels_CUDA.pointwise((int)n, (const double *)bsc.d, square, (const double *)bx.d, (double *)by.d, NULL);
      PetscCall(BufDownload(&by, y2));
      ok = (PetscBool)(err == 0 && RelDiff(y2, want, n, 1e-300) == 0.0);
    }
#endif
    PetscCall(Report(c, square ? "ruiz pointwise square" : "ruiz pointwise", ok));
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
  PetscCall(BufCreate(c, 4 * sizeof(int) * (size_t)m, arr));
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
  PetscBool     bucketed = (PetscBool)(c->cuda && c->dv.perm && c->m > chunk);
#endif

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (bucketed) {
    PetscCall(BucketsBuild(c, chunk, &pbarr, &pb));
    PetscCall(BufCreate(c, sizeof(double) * MS_BJS_BUCKET_WORK(c->m, PETSC_TRUE, PETSC_FALSE), &bwork));
  }
#endif
  PetscCall(PetscMalloc5(m, &b, m, &offp, m, &x, m, &want, m, &d));
  RandomVector(m, 31, -1.0, 1.0, b);
  RandomVector(m, 37, -0.5, 0.5, offp);
  RandomVector(m, 41, -1.0, 1.0, x);
  /* analyze */
  PetscCall(BufCreate(c, sizeof(MSBJSStatus), &bst));
  err = MSBJSKernels_Reference.analyze(&c->hv, (MSBJSStatus *)bst.h, NULL);
  hst = *(MSBJSStatus *)bst.h;
  PetscCall(PetscMemcpy(&gersh, &hst.gersh, sizeof(gersh)));
  hi = GershgorinBound(c);
  lo = hi / 20.0;
  ok = (PetscBool)(err == 0 && hst.maxloc == (unsigned long long)nloc && hst.badrow == MS_BJS_BAD_NONE && hst.badval == MS_BJS_BAD_NONE && PetscAbsReal(1.0 + gersh - hi) <= 1e-14 * hi);
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda && ok) {
    MSBJSStatus dst;
    err = MSBJSKernels_CUDA.analyze(&c->dv, (MSBJSStatus *)bst.d, NULL);
    PetscCall(BufDownload(&bst, &dst));
    ok = (PetscBool)(err == 0 && dst.maxloc == hst.maxloc && dst.badrow == hst.badrow && dst.badval == hst.badval && dst.gersh == hst.gersh);
  }
#endif
  PetscCall(Report(c, "bjsmooth analyze", ok));
  PetscCall(BufDestroy(&bst));

  { /* inner chebyshev's coefficients for 3 sweeps on [hi / 20, hi] */
    double h[MS_BJS_CHEB_TABLE(3)];
    MSBJSChebTable(lo, hi, 3, h);
    PetscCall(BufInput(c, sizeof(h), h, &tab));
  }
  PetscCall(BufInput(c, sizeof(double) * m, b, &bb));
  PetscCall(BufInput(c, sizeof(double) * m, offp, &boff));
  PetscCall(BufInput(c, sizeof(double) * m, x, &bx));
  /* sweeps: jacobi and chebyshev against the direct computation, every inner method against the reference on the device */
  for (int inner = MS_BJS_INNER_JACOBI; inner <= MS_BJS_INNER_CHEBY; inner++) {
    for (int zero = 0; zero < 2; zero++) {
      for (int shared = 0; shared < 2; shared++) {
        char what[128];

        PetscCall(BufCreate(c, sizeof(double) * m, &bout));
        err = MSBJSKernels_Reference.configure((int)c->sh, (int)nloc, inner, !shared, &use_shared, &smem, &need, &optin);
        ok  = (PetscBool)(err == 0 && use_shared == shared);
        err = MSBJSKernels_Reference.sweep(&c->hv, NULL, inner, 3, 0.0, inner == MS_BJS_INNER_CHEBY ? (const double *)tab.h : NULL, (int)nloc, use_shared, smem, zero, 0, (const double *)bb.h, (const double *)boff.h, zero ? NULL : (const double *)bx.h, (double *)bout.h, NULL, NULL);
        ok  = (PetscBool)(ok && err == 0);
        if (inner == MS_BJS_INNER_JACOBI || inner == MS_BJS_INNER_CHEBY) {
          DirectSweep(c, 3, inner == MS_BJS_INNER_CHEBY ? lo : 0.0, inner == MS_BJS_INNER_CHEBY ? hi : 0.0, (PetscBool)zero, b, offp, x, want);
          ok = (PetscBool)(ok && RelDiff((double *)bout.h, want, m, 1.0) < (inner == MS_BJS_INNER_CHEBY ? 1e-12 : 1e-13));
        } else ok = (PetscBool)(ok && Written((double *)bout.h, m) && RelDiff((double *)bout.h, (double *)bout.h, m, 1.0) == 0.0); /* every entry written, finite */
#if defined(PETSC_HAVE_CUDA)
        if (c->cuda && ok) {
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
        PetscCall(Report(c, what, ok));
        PetscCall(BufDestroy(&bout));
      }
    }
  }
  /* zero_jacobi on the compact block against the sweep from zero (the same arithmetic) */
  if (nloc >= 1 && nloc <= MS_PATTERN_MAXLOC) {
    PetscCall(BufCreate(c, sizeof(short) * nloc * m, &lc));
    PetscCall(BufCreate(c, sizeof(double) * nloc * m, &lv));
    PetscCall(BufCreate(c, sizeof(double) * m, &dinv));
    PetscCall(BufCreate(c, sizeof(double) * m, &bout));
    err = MSPatternKernels_Reference.extract_local(&c->hv, (int)nloc, MS_PART_ALL, (short *)lc.h, (double *)lv.h, (double *)dinv.h, NULL);
    ok  = (PetscBool)(err == 0);
    for (int cheb = 0; cheb < 2; cheb++) { /* inner jacobi, then chebyshev */
      const double zlo = cheb ? lo : 0.0, zhi = cheb ? hi : 0.0; /* the direct computation's interval */

      ok = (PetscBool)(err == 0);
      err = MSBJSKernels_Reference.zero_jacobi(&c->hv, NULL, (int)nloc, (const short *)lc.h, (const double *)lv.h, (const double *)dinv.h, 3, cheb ? (const double *)tab.h : NULL, (const double *)bb.h, (const double *)boff.h, (double *)bout.h, NULL, NULL);
      DirectSweep(c, 3, zlo, zhi, PETSC_TRUE, b, offp, x, want);
      ok = (PetscBool)(ok && err == 0 && RelDiff((double *)bout.h, want, m, 1.0) < 1e-12);
#if defined(PETSC_HAVE_CUDA)
      if (c->cuda && ok) {
        err = MSPatternKernels_CUDA.extract_local(&c->dv, (int)nloc, MS_PART_ALL, (short *)lc.d, (double *)lv.d, (double *)dinv.d, NULL);
        ok  = (PetscBool)(err == 0);
        /* without a work array (a permuted image: written through perm) and with one (written in the image's order and
           gathered back through iperm): the same function */
        for (int w = 0; w < 2 && ok; w++) {
          Buf work;
          PetscCall(BufCreate(c, sizeof(double) * m, &work));
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
      PetscCall(Report(c, cheb ? "bjsmooth zero_jacobi chebyshev" : "bjsmooth zero_jacobi", ok));
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

int main(int argc, char **argv)
{
  Ctx                c   = {0};
  PetscInt           seed = 1, nslot = 0;
  MatModSELLOrdering ord = MATMODSELL_ORDERING_NATURAL;
  const int          ps[3] = {MS_RUIZ_P1, MS_RUIZ_P2, MS_RUIZ_PINF};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  c.m  = 1000;
  c.sh = 32;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Kernel tests", NULL);
  PetscCall(PetscOptionsInt("-m", "rows", NULL, c.m, &c.m, NULL));
  PetscCall(PetscOptionsInt("-sh", "slice height", NULL, c.sh, &c.sh, NULL));
  PetscCall(PetscOptionsEnum("-ordering", "image ordering (natural, rcm)", NULL, MatModSELLOrderings, (PetscEnum)ord, (PetscEnum *)&ord, NULL));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-cuda", "also the CUDA kernels", NULL, c.cuda, &c.cuda, NULL));
  PetscOptionsEnd();
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!c.cuda, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-cuda needs a PETSc configured with CUDA");
#else
  if (c.cuda) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
#endif

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
  PetscCall(DestroyImage(&c));

  /* a rectangular off-process block: plain encoding */
  c.n      = c.m / 2 + 7;
  c.square = PETSC_FALSE;
  PetscCall(Generate(&c, seed + 1));
  PetscCall(SetUpImage(&c, PETSC_FALSE, MATMODSELL_ORDERING_NATURAL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "rectangular image: %" PetscInt_FMT " x %" PetscInt_FMT ", plain encoding\n", c.m, c.n));
  for (int k = 0; k < 3; k++) PetscCall(TestRuizRowPass(&c, ps[k], PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE));
  PetscCall(DestroyImage(&c));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", c.nfail ? "SOME KERNELS FAILED" : "all kernels agree"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
     requires: !complex !single
     output_file: output/ex2_1.out
     test:
       suffix: 1
       args: -sh 32
     test:
       suffix: 1_rcm
       args: -sh 32 -ordering rcm
       output_file: output/ex2_1_rcm.out
     test:
       suffix: 1_sh128
       args: -sh 128 -m 777
       output_file: output/ex2_1_sh128.out

   testset:
     requires: cuda !complex !single
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

TEST*/
