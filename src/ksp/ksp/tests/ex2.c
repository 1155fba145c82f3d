static char help[] = "Kernel tests of the device Krylov kernels (krylovkernels.h): every kernel of the host reference is compared\n\
with a direct computation, and with -cuda (a PETSc with CUDA) every CUDA kernel with the reference on the same inputs\n\
(and the fused products with the matrix's own device product, bit for bit: in the user's numbering and, for a\n\
permuted image, in the image's numbering as a solve in it runs them).\n\
Every output array is filled with a poison value (the bytes 0x7f) before a kernel runs, so that an entry a kernel\n\
forgot to write is caught; with the done flag set, every kernel must leave every array and the scalars as they were.\n\
The reduction's counters must be zero again after every kernel. The products run on random mod-SELL images\n\
(natural, RCM and partition orderings, one or several threads per row, more slices than one reduction group).\n\
Options: -m <1000> rows, -sh <32> slice height, -ordering natural|rcm|partition, -lanes <0> (threads per row; 0 automatic),\n\
  -seed <1>, -cuda (also the CUDA kernels).\n";

#include <petscmodsell/private/kspmsimpl.h>
#include <mstest.h>
#include <math.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define POISON 0x7f

typedef struct {
  PetscInt    m, sh, lanes;
  PetscBool   cuda;
  MSTestCSR   csr;
  Mat         A;
  MSImage     img;
  MSImageView hv, dv;   /* the image's views (vectors in the user's numbering) */
  MSImageView hvi, dvi; /* the same without the permutation: vectors in the image's numbering (as a solve in it) */
  PetscInt   *iperm;    /* a permuted image: the image row of each user row (host) */
  PetscInt    nfail;
  /* the reductions' work: host (reference) and device */
  MSKrylovScalars *dsc;
  double          *hpart, *dpart, *hhist, *dhist;
  unsigned int    *hcount, *dcount;
  int              nblocks;
} Ctx;

/* ---------------------------------------------------------------------------------------------------------- */
/* host/device buffers (as src/ksp/pc/tests/ex2.c)                                                              */

typedef struct {
  double *h, *d, *back; /* host (reference), device, the device's result read back */
  size_t  n;
} Buf;

static PetscErrorCode BufCreate(Ctx *c, size_t n, const double *src, Buf *b)
{
  PetscFunctionBegin;
  b->n = n;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &b->h));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &b->back));
  if (src) PetscCall(PetscArraycpy(b->h, src, n));
  else memset(b->h, POISON, sizeof(double) * PetscMax(n, 1));
  b->d = NULL;
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCallCUDA(cudaMalloc((void **)&b->d, sizeof(double) * PetscMax(n, 1)));
    if (src) PetscCallCUDA(cudaMemcpy(b->d, src, sizeof(double) * n, cudaMemcpyHostToDevice));
    else PetscCallCUDA(cudaMemset(b->d, POISON, sizeof(double) * PetscMax(n, 1)));
  }
#else
  (void)c;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PETSC_UNUSED PetscErrorCode BufDownload(Ctx *c, Buf *b)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCallCUDA(cudaMemcpy(b->back, b->d, sizeof(double) * b->n, cudaMemcpyDeviceToHost));
  }
#else
  (void)c;
  (void)b;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BufDestroy(Buf *b)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(b->h));
  PetscCall(PetscFree(b->back));
#if defined(PETSC_HAVE_CUDA)
  if (b->d) PetscCallCUDA(cudaFree(b->d));
#endif
  b->d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max relative difference (scale max(|b|, floor)); NaN or poison counts as infinite */
static PetscReal RelDiff(const double *a, const double *b, PetscInt n, double floor)
{
  PetscReal d = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    const double s = PetscMax(PetscAbsReal(b[i]), floor), e = PetscAbsReal(a[i] - b[i]) / s;
    if (!(e <= d)) d = PetscIsNanReal(e) ? PETSC_INFINITY : e;
  }
  return d;
}

/* whether every entry still holds the poison (nothing was written) */
static PetscBool IsPoison(const double *a, PetscInt n)
{
  unsigned long long poison;
  memset(&poison, POISON, sizeof(poison));
  for (PetscInt i = 0; i < n; i++)
    if (memcmp(&a[i], &poison, sizeof(poison))) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PETSC_UNUSED PetscBool Same(const double *a, const double *b, PetscInt n)
{
  return (PetscBool)!memcmp(a, b, sizeof(double) * (size_t)n);
}

/* one line per test: the reference's check and, with -cuda, the CUDA kernel's against the reference (the same output
   with and without -cuda) */
static PetscErrorCode Report(Ctx *c, const char *what, PetscBool okref, PetscBool okcuda)
{
  PetscFunctionBegin;
  if (!okref || !okcuda) c->nfail++;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %s\n", what, okref && okcuda ? "ok" : "FAILED"));
  if (!okref || !okcuda) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  the %s\n", !okref ? "reference" : "CUDA kernel"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void RandomVector(PetscInt n, unsigned long long key, double lo, double hi, double *v)
{
  for (PetscInt i = 0; i < n; i++) v[i] = lo + (hi - lo) * MSTestHashUniform(key * 7919ULL + (unsigned long long)i);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the scalars and the reduction work                                                                           */

static void ScalarsInit(MSKrylovScalars *h, int normtype)
{
  memset(h, 0, sizeof(*h));
  h->rtol     = 1e-5;
  h->atol     = 1e-50;
  h->divtol   = 1e4;
  h->snorm    = -1.0;
  h->max_it   = 100;
  h->chknorm  = -1;
  h->normtype = normtype;
  h->maxhist  = 8;
  h->its      = 3;
  h->i        = 2;
  for (int j = 0; j < MS_KRYLOV_NSCALARS; j++) h->s[j] = 0.25 + 0.125 * j;
  h->s[MS_CG_ALPHA] = 0.37;
  h->s[MS_CG_B]     = 0.61;
}

static PetscErrorCode WorkCreate(Ctx *c, int nblocks)
{
  const size_t np = (size_t)MS_KRYLOV_NSUMS * (size_t)(nblocks + MS_KRYLOV_MAXGROUPS);

  PetscFunctionBegin;
  c->nblocks = nblocks;
  PetscCall(PetscCalloc1(np, &c->hpart));
  PetscCall(PetscCalloc1(MS_KRYLOV_MAXGROUPS + 1, &c->hcount));
  PetscCall(PetscCalloc1(8, &c->hhist));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCallCUDA(cudaMalloc((void **)&c->dsc, sizeof(MSKrylovScalars)));
    PetscCallCUDA(cudaMalloc((void **)&c->dpart, sizeof(double) * np));
    PetscCallCUDA(cudaMalloc((void **)&c->dcount, sizeof(unsigned int) * (MS_KRYLOV_MAXGROUPS + 1)));
    PetscCallCUDA(cudaMemset(c->dcount, 0, sizeof(unsigned int) * (MS_KRYLOV_MAXGROUPS + 1)));
    PetscCallCUDA(cudaMalloc((void **)&c->dhist, sizeof(double) * 8));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WorkDestroy(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(c->hpart));
  PetscCall(PetscFree(c->hcount));
  PetscCall(PetscFree(c->hhist));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCallCUDA(cudaFree(c->dsc));
    PetscCallCUDA(cudaFree(c->dpart));
    PetscCallCUDA(cudaFree(c->dcount));
    PetscCallCUDA(cudaFree(c->dhist));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the reduce descriptors of both backends on scalars h (host: *hsc, device: a copy of *hsc uploaded) */
static PetscErrorCode Reduces(Ctx *c, MSKrylovScalars *hsc, int slot, int finish, MSKrylovReduce *hr, MSKrylovReduce *dr)
{
  PetscFunctionBegin;
  hr->sc      = hsc;
  hr->hist    = c->hhist;
  hr->partial = c->hpart;
  hr->count   = c->hcount;
  hr->nblocks = c->nblocks;
  hr->slot    = slot;
  hr->finish  = finish;
  *dr         = *hr;
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    dr->sc      = c->dsc;
    dr->hist    = c->dhist;
    dr->partial = c->dpart;
    dr->count   = c->dcount;
    PetscCallCUDA(cudaMemcpy(c->dsc, hsc, sizeof(*hsc), cudaMemcpyHostToDevice));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device scalars read back, and whether the counters are all zero again */
static PetscErrorCode DeviceScalars(Ctx *c, MSKrylovScalars *dsc, PetscBool *zero)
{
  PetscFunctionBegin;
  *zero = PETSC_TRUE;
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    unsigned int *cnt;

    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCallCUDA(cudaMemcpy(dsc, c->dsc, sizeof(*dsc), cudaMemcpyDeviceToHost));
    PetscCall(PetscMalloc1(MS_KRYLOV_MAXGROUPS + 1, &cnt));
    PetscCallCUDA(cudaMemcpy(cnt, c->dcount, sizeof(unsigned int) * (MS_KRYLOV_MAXGROUPS + 1), cudaMemcpyDeviceToHost));
    for (int g = 0; g <= MS_KRYLOV_MAXGROUPS; g++)
      if (cnt[g]) *zero = PETSC_FALSE;
    PetscCall(PetscFree(cnt));
  }
#else
  (void)c;
  (void)dsc;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scalars of the two backends agree: the integers exactly, the numbers to 1e-12 */
static PetscBool ScalarsAgree(const MSKrylovScalars *a, const MSKrylovScalars *b)
{
  if (a->done != b->done || a->reason != b->reason || a->its != b->its || a->awaiting != b->awaiting || a->nhist != b->nhist || a->i != b->i) return PETSC_FALSE;
  if (RelDiff(a->sum, b->sum, MS_KRYLOV_NSUMS, 1e-300) > 1e-12 || RelDiff(a->s, b->s, MS_KRYLOV_NSCALARS, 1e-300) > 1e-12) return PETSC_FALSE;
  if (RelDiff(&a->rnorm, &b->rnorm, 1, 1e-300) > 1e-12 || RelDiff(&a->rnorm0, &b->rnorm0, 1, 1e-300) > 1e-12 || RelDiff(&a->ttol, &b->ttol, 1, 1e-300) > 1e-12) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the image                                                                                                    */

static PetscErrorCode Generate(Ctx *c, PetscInt seed)
{
  MSTestCOO coo = {0};
  MSTestRng rng = {(unsigned long long)seed * 1000003ULL};

  PetscFunctionBegin;
  for (PetscInt i = 0; i < c->m; i++) {
    PetscReal sum = 0.0;
    PetscInt  nb  = MSTestRngInt(&rng, 9); /* 0..8 off-diagonal entries */
    for (PetscInt k = 0; k < nb; k++) {
      const PetscBool far = (PetscBool)(MSTestRngInt(&rng, 4) == 0);
      PetscInt        j   = far ? MSTestRngInt(&rng, c->m) : i + MSTestRngInt(&rng, 9) - 4;
      PetscScalar     v   = -(0.1 + MSTestRngUniform(&rng));
      if (j < 0 || j >= c->m || j == i) continue;
      PetscCall(MSTestCOOAdd(&coo, i, j, v));
      sum += PetscAbsScalar(v);
    }
    if (MSTestRngInt(&rng, 10)) PetscCall(MSTestCOOAdd(&coo, i, i, 1.0 + sum + MSTestRngUniform(&rng))); /* some rows without a diagonal */
  }
  PetscCall(MSTestCOOToCSR(&coo, c->m, c->m, &c->csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetUpImage(Ctx *c, MatModSELLOrdering ord)
{
  PetscFunctionBegin;
  PetscCall(MSTestCreateMat(PETSC_COMM_SELF, &c->csr, MATSEQAIJ, &c->A));
  {
    MSImageRequest req;

    PetscCall(MSImageRequestSetDefaults(&req));
    req.sh       = c->sh;
    req.kernel   = MATMODSELL_KERNEL_MODSELL;
    req.ordering = ord;
    PetscCall(MSImageCreate(&req, &c->img));
  }
  PetscCall(MSImageSetRowLanes(c->img, c->lanes));
  PetscCall(MSImageSetUp(c->img, c->A, &MSImageOps_Reference));
  PetscCall(MSImageOps_Reference.getview(c->img, PETSC_FALSE, &c->hv));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCall(MSImageSetUp(c->img, c->A, &MSImageOps_CUDA));
    PetscCall(MSImageOps_CUDA.getview(c->img, PETSC_FALSE, &c->dv));
    PetscCall(MSImageOps_Reference.getview(c->img, PETSC_FALSE, &c->hv));
  }
#endif
  c->hvi       = c->hv;
  c->dvi       = c->dv;
  c->hvi.perm  = c->dvi.perm = NULL;
  c->hvi.iperm = c->dvi.iperm = NULL;
  if (c->hv.perm) {
    PetscCall(PetscMalloc1(c->m, &c->iperm));
    for (PetscInt r = 0; r < c->m; r++) c->iperm[c->hv.perm[r]] = r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x in the image's numbering (x and y indexed by image rows), from the CSR */
static void ImageCSRMult(Ctx *c, const double *x, double *y)
{
  for (PetscInt r = 0; r < c->m; r++) {
    const PetscInt i = c->hv.perm ? c->hv.perm[r] : r;
    double         t = 0.0;

    for (PetscInt k = c->csr.ia[i]; k < c->csr.ia[i + 1]; k++) t += c->csr.va[k] * x[c->iperm ? c->iperm[c->csr.ja[k]] : c->csr.ja[k]];
    y[r] = t;
  }
}

/* the matrix's own device product (MSImageOps_CUDA.mult, in the user's numbering) of x given in the image's numbering,
   read back in the image's numbering: the bits a fused product in the image's numbering must reproduce */
static PETSC_UNUSED PetscErrorCode DeviceImageMult(Ctx *c, const double *x, double *y)
{
#if defined(PETSC_HAVE_CUDA)
  const PetscInt m = c->m;
  const int     *perm = c->hv.perm;
  Buf            xu, yu;
  double        *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &t));
  for (PetscInt r = 0; r < m; r++) t[perm ? perm[r] : r] = x[r];
  PetscCall(BufCreate(c, m, t, &xu));
  PetscCall(BufCreate(c, m, NULL, &yu));
  PetscCall(MSImageOps_CUDA.mult(c->img, xu.d, NULL, 1.0, yu.d));
  PetscCall(BufDownload(c, &yu));
  for (PetscInt r = 0; r < m; r++) y[r] = yu.back[perm ? perm[r] : r];
  PetscCall(BufDestroy(&xu));
  PetscCall(BufDestroy(&yu));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  (void)c;
  (void)x;
  (void)y;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CUDA");
#endif
}

/* ---------------------------------------------------------------------------------------------------------- */
/* kernels                                                                                                      */

#if defined(PETSC_HAVE_CUDA)
  #define CUDA_CALL(c, call) \
    do { \
      if ((c)->cuda) PetscCallCUDA((cudaError_t)(call)); \
    } while (0)
#else
  #define CUDA_CALL(c, call) (void)0
#endif

/* ndot dots in one pass into sum[slot...]; with one dot the CG p.Ap finish on it */
static PetscErrorCode TestDot(Ctx *c, PetscInt n, int ndot)
{
  MSKrylovScalars h, d;
  MSKrylovReduce  hr, dr;
  MSKrylovDots    hd, dd;
  Buf             v[MS_KRYLOV_MAXDOTS + 1];
  double         *vv[MS_KRYLOV_MAXDOTS + 1], s[MS_KRYLOV_MAXDOTS] = {0.0};
  const int       slot = ndot == 1 ? MS_CG_SUM_PW : 1;
  PetscBool       zero, okr = PETSC_TRUE, okc = PETSC_TRUE;
  char            what[128];

  PetscFunctionBegin;
  for (int j = 0; j <= ndot; j++) { /* x_j = v[j], y_j = v[j + 1] */
    PetscCall(PetscMalloc1(PetscMax(n, 1), &vv[j]));
    RandomVector(n, 11 + (unsigned long long)j, 0.5, 1.5, vv[j]); /* x.y > 0: p.Ap of an SPD operator */
    PetscCall(BufCreate(c, n, vv[j], &v[j]));
  }
  for (int j = 0; j < ndot; j++)
    for (PetscInt i = 0; i < n; i++) s[j] += vv[j][i] * vv[j + 1][i];
  hd.ndot = dd.ndot = ndot;
  for (int j = 0; j < ndot; j++) {
    hd.x[j] = v[j].h;
    hd.y[j] = v[j + 1].h;
    dd.x[j] = v[j].d;
    dd.y[j] = v[j + 1].d;
  }
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  PetscCall(Reduces(c, &h, slot, ndot == 1 ? MS_KRYLOV_FINISH_CG_DPI : MS_KRYLOV_FINISH_NONE, &hr, &dr));
  PetscCall(MSKrylovKernels_Reference.dot((int)n, &hd, &hr, NULL));
  PetscCall(PetscSNPrintf(what, sizeof(what), "dot, %d in one pass, n = %" PetscInt_FMT ", against the direct sums%s", ndot, n, ndot > 1 ? "" : (n ? ", alpha = beta / p.Ap" : ", p.Ap = 0 stops")));
  okr = (PetscBool)(RelDiff(&h.sum[slot], s, ndot, 1e-300) < 1e-12 || (!n && h.sum[slot] == 0.0));
  if (ndot == 1 && n) okr = (PetscBool)(okr && !h.done && h.s[MS_CG_DPI] == h.sum[MS_CG_SUM_PW] && h.s[MS_CG_ALPHA] == h.s[MS_CG_BETA] / h.s[MS_CG_DPI]);
  if (ndot == 1 && !n) okr = (PetscBool)(okr && h.done && h.reason == MS_KRYLOV_DIVERGED_INDEFINITE_MAT);
  if (c->cuda) {
    CUDA_CALL(c, MSKrylovKernels_CUDA.dot((int)n, &dd, &dr, NULL));
    PetscCall(DeviceScalars(c, &d, &zero));
    okc = (PetscBool)(ScalarsAgree(&h, &d) && zero);
  }
  PetscCall(Report(c, what, okr, okc));
  for (int j = 0; j <= ndot; j++) {
    PetscCall(BufDestroy(&v[j]));
    PetscCall(PetscFree(vv[j]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x and sum = x.y against the CSR */
static PetscErrorCode TestMultDot(Ctx *c, PetscBool done)
{
  const PetscInt  m = c->m;
  MSKrylovScalars h, h0;
  MSKrylovReduce  hr, dr;
  Buf             x, y, work;
  double         *xv, *yref, s = 0.0;
  PetscBool       ok, okc = PETSC_TRUE;
  char            what[160];

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(m, &xv, m, &yref));
  RandomVector(m, 21, -1.0, 1.0, xv);
  for (PetscInt i = 0; i < m; i++) {
    yref[i] = 0.0;
    for (PetscInt k = c->csr.ia[i]; k < c->csr.ia[i + 1]; k++) yref[i] += c->csr.va[k] * xv[c->csr.ja[k]];
    s += xv[i] * yref[i];
  }
  PetscCall(BufCreate(c, m, xv, &x));
  PetscCall(BufCreate(c, m, NULL, &y));
  PetscCall(BufCreate(c, 2 * m, NULL, &work));
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  h.done = done;
  h0     = h;
  PetscCall(Reduces(c, &h, MS_CG_SUM_PW, MS_KRYLOV_FINISH_CG_DPI, &hr, &dr));
  PetscCall(MSKrylovKernels_Reference.mult_dot(&c->hv, NULL, x.h, y.h, work.h, &hr, NULL));
  if (!done) ok = (PetscBool)(RelDiff(y.h, yref, m, 1.0) < 1e-13 && RelDiff(&h.sum[MS_CG_SUM_PW], &s, 1, 1e-300) < 1e-12);
  else ok = (PetscBool)(!memcmp(&h, &h0, sizeof(h)) && IsPoison(y.h, m)); /* nothing written */
  PetscCall(PetscSNPrintf(what, sizeof(what), "mult_dot%s (%s image, %d thread(s) per row, %d slices) against the CSR", done ? " after done" : "", c->hv.perm ? "permuted" : "unpermuted", c->hv.lanes, c->hv.nslices));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    MSKrylovScalars d;
    MSPermBuckets   pb;
    PetscBool       has, zero;

    PetscCall(MSImageOps_CUDA.permbuckets(c->img, &c->dv, &pb, &has));
    CUDA_CALL(c, MSKrylovKernels_CUDA.mult_dot(&c->dv, has ? &pb : NULL, x.d, y.d, work.d, &dr, NULL));
    PetscCall(DeviceScalars(c, &d, &zero));
    PetscCall(BufDownload(c, &y));
    if (!done) { /* y to rounding of the reference, and with the bits of the matrix's own device product (the same order of the terms) */
      Buf ym;

      PetscCall(BufCreate(c, m, NULL, &ym));
      PetscCall(MSImageOps_CUDA.mult(c->img, x.d, NULL, 1.0, ym.d));
      PetscCall(BufDownload(c, &ym));
      okc = (PetscBool)(ScalarsAgree(&h, &d) && zero && RelDiff(y.back, y.h, m, 1.0) < 1e-13 && Same(y.back, ym.back, m));
      PetscCall(BufDestroy(&ym));
    }
    else okc = (PetscBool)(ScalarsAgree(&h0, &d) && zero && IsPoison(y.back, m));
  }
#endif
  PetscCall(Report(c, what, ok, okc));
  PetscCall(BufDestroy(&x));
  PetscCall(BufDestroy(&y));
  PetscCall(BufDestroy(&work));
  PetscCall(PetscFree2(xv, yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x and sum = x.y in a permuted image's numbering (the view without its permutation, as a solve in that
   numbering runs it) against the CSR; the CUDA product with the bits of the matrix's own device product */
static PetscErrorCode TestMultDotImage(Ctx *c)
{
  const PetscInt  m = c->m;
  MSKrylovScalars h;
  MSKrylovReduce  hr, dr;
  Buf             x, y;
  double         *xv, *yref, s = 0.0;
  PetscBool       ok, okc = PETSC_TRUE;
  char            what[160];

  PetscFunctionBegin;
  if (!c->hv.perm) PetscFunctionReturn(PETSC_SUCCESS); /* the same as TestMultDot() */
  PetscCall(PetscMalloc2(m, &xv, m, &yref));
  RandomVector(m, 23, -1.0, 1.0, xv);
  ImageCSRMult(c, xv, yref);
  for (PetscInt i = 0; i < m; i++) s += xv[i] * yref[i];
  PetscCall(BufCreate(c, m, xv, &x));
  PetscCall(BufCreate(c, m, NULL, &y));
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  PetscCall(Reduces(c, &h, MS_CG_SUM_PW, MS_KRYLOV_FINISH_CG_DPI, &hr, &dr));
  PetscCall(MSKrylovKernels_Reference.mult_dot(&c->hvi, NULL, x.h, y.h, NULL, &hr, NULL));
  ok = (PetscBool)(RelDiff(y.h, yref, m, 1.0) < 1e-13 && RelDiff(&h.sum[MS_CG_SUM_PW], &s, 1, 1e-300) < 1e-12);
  PetscCall(PetscSNPrintf(what, sizeof(what), "mult_dot in the image's numbering (%d thread(s) per row, %d slices) against the CSR", c->hv.lanes, c->hv.nslices));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    MSKrylovScalars d;
    PetscBool       zero;
    double         *ym;

    CUDA_CALL(c, MSKrylovKernels_CUDA.mult_dot(&c->dvi, NULL, x.d, y.d, NULL, &dr, NULL));
    PetscCall(DeviceScalars(c, &d, &zero));
    PetscCall(BufDownload(c, &y));
    PetscCall(PetscMalloc1(m, &ym));
    PetscCall(DeviceImageMult(c, xv, ym));
    okc = (PetscBool)(ScalarsAgree(&h, &d) && zero && RelDiff(y.back, y.h, m, 1.0) < 1e-13 && Same(y.back, ym, m));
    PetscCall(PetscFree(ym));
  }
#else
  (void)dr;
#endif
  PetscCall(Report(c, what, ok, okc));
  PetscCall(BufDestroy(&x));
  PetscCall(BufDestroy(&y));
  PetscCall(PetscFree2(xv, yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* pnew = z + b pold, w = A pnew, sum = pnew.w against the CSR, in the image's numbering (the numbering of a solve with
   this kernel: the user's for an unpermuted image) */
static PetscErrorCode TestDirectionMultDot(Ctx *c, PetscBool done)
{
  const PetscInt  m = c->m;
  MSKrylovScalars h, h0;
  MSKrylovReduce  hr, dr;
  Buf             z, po, pn, w;
  double         *zv, *pov, *pref, *wref, s = 0.0;
  PetscBool       ok, okc = PETSC_TRUE;
  char            what[160];

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(m, &zv, m, &pov, m, &pref, m, &wref));
  RandomVector(m, 51, -1.0, 1.0, zv);
  RandomVector(m, 52, -1.0, 1.0, pov);
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  h.done = done;
  h0     = h;
  for (PetscInt i = 0; i < m; i++) pref[i] = zv[i] + h.s[MS_CG_B] * pov[i];
  ImageCSRMult(c, pref, wref);
  for (PetscInt i = 0; i < m; i++) s += pref[i] * wref[i];
  PetscCall(BufCreate(c, m, zv, &z));
  PetscCall(BufCreate(c, m, pov, &po));
  PetscCall(BufCreate(c, m, NULL, &pn));
  PetscCall(BufCreate(c, m, NULL, &w));
  PetscCall(Reduces(c, &h, MS_CG_SUM_PW, MS_KRYLOV_FINISH_CG_DPI, &hr, &dr));
  PetscCall(MSKrylovKernels_Reference.cg_direction_mult_dot(&c->hvi, z.h, po.h, pn.h, w.h, &hr, NULL));
  if (!done) ok = (PetscBool)(RelDiff(pn.h, pref, m, 1.0) < 1e-15 && RelDiff(w.h, wref, m, 1.0) < 1e-13 && RelDiff(&h.sum[MS_CG_SUM_PW], &s, 1, 1e-300) < 1e-12);
  else ok = (PetscBool)(!memcmp(&h, &h0, sizeof(h)) && IsPoison(pn.h, m) && IsPoison(w.h, m));
  PetscCall(PetscSNPrintf(what, sizeof(what), "cg_direction_mult_dot%s (%s, %d thread(s) per row) against the CSR", done ? " after done" : "", c->hv.perm ? "in the permuted image's numbering" : "unpermuted image", c->hv.lanes));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    MSKrylovScalars d;
    PetscBool       zero;

    CUDA_CALL(c, MSKrylovKernels_CUDA.cg_direction_mult_dot(&c->dvi, z.d, po.d, pn.d, w.d, &dr, NULL));
    PetscCall(DeviceScalars(c, &d, &zero));
    PetscCall(BufDownload(c, &pn));
    PetscCall(BufDownload(c, &w));
    if (!done) { /* w to rounding of the reference, and with the bits of the matrix's own device product of the new p */
      double *ym;

      PetscCall(PetscMalloc1(m, &ym));
      PetscCall(DeviceImageMult(c, pn.back, ym));
      okc = (PetscBool)(ScalarsAgree(&h, &d) && zero && RelDiff(pn.back, pn.h, m, 1.0) < 1e-15 && RelDiff(w.back, w.h, m, 1.0) < 1e-13 && Same(w.back, ym, m));
      PetscCall(PetscFree(ym));
    } else okc = (PetscBool)(ScalarsAgree(&h0, &d) && zero && IsPoison(pn.back, m) && IsPoison(w.back, m));
  }
#else
  (void)dr;
#endif
  PetscCall(Report(c, what, ok, okc));
  PetscCall(BufDestroy(&z));
  PetscCall(BufDestroy(&po));
  PetscCall(BufDestroy(&pn));
  PetscCall(BufDestroy(&w));
  PetscCall(PetscFree4(zv, pov, pref, wref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the single reduction's step in one kernel (cg_sr_mult), in the image's numbering, against a direct computation; the
   CUDA kernel against the reference, its s with the bits of the matrix's own device product of its z (the product formed
   z at the neighbours' rows as their blocks formed it) */
static PetscErrorCode TestCGSRMult(Ctx *c, int pc, int norm_r, PetscBool done)
{
  const PetscInt   m = c->m, diag = pc == MS_KRYLOV_PC_DIAG;
  MSKrylovScalars  h, h0;
  MSKrylovReduce   hr, dr;
  MSKrylovCGSRVecs hv, dv;
  Buf              in[6], out[3];
  double          *v[6], *ref[5], *zn, sref[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  PetscBool        ok, okc = PETSC_TRUE;
  char             what[200];

  PetscFunctionBegin;
  for (int j = 0; j < 6; j++) { /* x p r w s d */
    PetscCall(PetscMalloc1(m, &v[j]));
    RandomVector(m, 61 + (unsigned long long)j, j == 5 ? 0.5 : -1.0, j == 5 ? 2.0 : 1.0, v[j]);
  }
  for (int j = 0; j < 5; j++) PetscCall(PetscMalloc1(m, &ref[j])); /* x p rn wn sn */
  PetscCall(PetscMalloc1(m, &zn));
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  h.done = done;
  h0     = h;
  {
    const double a = h.s[MS_CG_ALPHA], b = h.s[MS_CG_B];

    for (PetscInt i = 0; i < m; i++) {
      const double zo = diag ? v[5][i] * v[2][i] : v[2][i], pn = zo + b * v[1][i], wn = v[4][i] + b * v[3][i], rn = v[2][i] - a * wn;

      zn[i]     = diag ? v[5][i] * rn : rn;
      ref[0][i] = v[0][i] + a * pn;
      ref[1][i] = pn;
      ref[2][i] = rn;
      ref[3][i] = wn;
      sref[0] += norm_r ? rn * rn : zn[i] * zn[i];
      sref[1] += zn[i] * rn;
      sref[2] += zn[i] * wn;
    }
    ImageCSRMult(c, zn, ref[4]);
    for (PetscInt i = 0; i < m; i++) {
      sref[3] += zn[i] * ref[4][i];
      sref[4] += ref[1][i] * ref[4][i];
    }
  }
  for (int j = 0; j < 6; j++) PetscCall(BufCreate(c, m, v[j], &in[j]));
  for (int j = 0; j < 3; j++) PetscCall(BufCreate(c, m, NULL, &out[j]));
  PetscCall(PetscMemzero(&hv, sizeof(hv)));
  hv.x      = in[0].h;
  hv.p      = in[1].h;
  hv.r      = in[2].h;
  hv.w      = in[3].h;
  hv.s      = in[4].h;
  hv.d      = diag ? in[5].h : NULL;
  hv.rn     = out[0].h;
  hv.wn     = out[1].h;
  hv.sn     = out[2].h;
  hv.pc     = pc;
  hv.norm_r = norm_r;
  dv        = hv;
  dv.x      = in[0].d;
  dv.p      = in[1].d;
  dv.r      = in[2].d;
  dv.w      = in[3].d;
  dv.s      = in[4].d;
  dv.d      = diag ? in[5].d : NULL;
  dv.rn     = out[0].d;
  dv.wn     = out[1].d;
  dv.sn     = out[2].d;
  PetscCall(Reduces(c, &h, MS_CG_SUM_NN, MS_KRYLOV_FINISH_CGSR_STEP, &hr, &dr));
  PetscCall(MSKrylovKernels_Reference.cg_sr_mult(&c->hvi, &hv, &hr, NULL));
  if (!done) ok = (PetscBool)(RelDiff(in[0].h, ref[0], m, 1.0) < 1e-14 && RelDiff(in[1].h, ref[1], m, 1.0) < 1e-14 && RelDiff(out[0].h, ref[2], m, 1.0) < 1e-14 && RelDiff(out[1].h, ref[3], m, 1.0) < 1e-14 && RelDiff(out[2].h, ref[4], m, 1.0) < 1e-13 && RelDiff(h.sum, sref, 5, 1e-300) < 1e-12);
  else ok = (PetscBool)(!memcmp(&h, &h0, sizeof(h)) && Same(in[0].h, v[0], m) && Same(in[1].h, v[1], m) && IsPoison(out[0].h, m) && IsPoison(out[1].h, m) && IsPoison(out[2].h, m));
  PetscCall(PetscSNPrintf(what, sizeof(what), "cg_sr_mult%s (PC %s, %s, %s, %d thread(s) per row) against the CSR", done ? " after done" : "", diag ? "diagonal" : "none", norm_r ? "r.r" : "z.z", c->hv.perm ? "in the permuted image's numbering" : "unpermuted image", c->hv.lanes));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    MSKrylovScalars d;
    PetscBool       zero;

    CUDA_CALL(c, MSKrylovKernels_CUDA.cg_sr_mult(&c->dvi, &dv, &dr, NULL));
    PetscCall(DeviceScalars(c, &d, &zero));
    for (int j = 0; j < 2; j++) PetscCall(BufDownload(c, &in[j]));
    for (int j = 0; j < 3; j++) PetscCall(BufDownload(c, &out[j]));
    if (!done) {
      double *ym;

      okc = (PetscBool)(ScalarsAgree(&h, &d) && zero && RelDiff(in[0].back, in[0].h, m, 1.0) < 1e-15 && RelDiff(in[1].back, in[1].h, m, 1.0) < 1e-15 && RelDiff(out[0].back, out[0].h, m, 1.0) < 1e-15 && RelDiff(out[1].back, out[1].h, m, 1.0) < 1e-15 && RelDiff(out[2].back, out[2].h, m, 1.0) < 1e-13);
      for (PetscInt i = 0; i < m; i++) zn[i] = diag ? v[5][i] * out[0].back[i] : out[0].back[i]; /* the kernel's z */
      PetscCall(PetscMalloc1(m, &ym));
      PetscCall(DeviceImageMult(c, zn, ym));
      okc = (PetscBool)(okc && Same(out[2].back, ym, m));
      PetscCall(PetscFree(ym));
    } else okc = (PetscBool)(ScalarsAgree(&h0, &d) && zero && Same(in[0].back, v[0], m) && Same(in[1].back, v[1], m) && IsPoison(out[0].back, m) && IsPoison(out[1].back, m) && IsPoison(out[2].back, m));
  }
#else
  (void)dr;
  (void)dv;
#endif
  PetscCall(Report(c, what, ok, okc));
  for (int j = 0; j < 6; j++) {
    PetscCall(BufDestroy(&in[j]));
    PetscCall(PetscFree(v[j]));
  }
  for (int j = 0; j < 3; j++) PetscCall(BufDestroy(&out[j]));
  for (int j = 0; j < 5; j++) PetscCall(PetscFree(ref[j]));
  PetscCall(PetscFree(zn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = x gathered into a permutation's numbering and scattered back (a random permutation of n entries) */
static PetscErrorCode TestPermute(Ctx *c, PetscInt n)
{
  MSTestRng rng = {977ULL};
  int      *perm, *dperm PETSC_UNUSED = NULL; /* the permutation on the GPU (-cuda) */
  double   *xv, *ref;
  Buf       x, y;
  PetscBool ok = PETSC_TRUE, okc = PETSC_TRUE;
  char      what[128];

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(PetscMax(n, 1), &perm, PetscMax(n, 1), &xv, PetscMax(n, 1), &ref));
  for (PetscInt i = 0; i < n; i++) perm[i] = (int)i;
  for (PetscInt i = n - 1; i > 0; i--) { /* Fisher-Yates */
    const PetscInt j = MSTestRngInt(&rng, i + 1);
    const int      t = perm[i];
    perm[i]          = perm[j];
    perm[j]          = t;
  }
  RandomVector(n, 71, -1.0, 1.0, xv);
  PetscCall(BufCreate(c, n, xv, &x));
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    PetscCallCUDA(cudaMalloc((void **)&dperm, sizeof(int) * PetscMax(n, 1)));
    PetscCallCUDA(cudaMemcpy(dperm, perm, sizeof(int) * n, cudaMemcpyHostToDevice));
  }
#endif
  for (int dir = MS_KRYLOV_TO_IMAGE; dir <= MS_KRYLOV_TO_USER; dir++) {
    for (PetscInt i = 0; i < n; i++) {
      if (dir == MS_KRYLOV_TO_IMAGE) ref[i] = xv[perm[i]];
      else ref[perm[i]] = xv[i];
    }
    PetscCall(BufCreate(c, n, NULL, &y));
    PetscCall(MSKrylovKernels_Reference.permute((int)n, perm, dir, x.h, y.h, NULL));
    ok = Same(y.h, ref, n);
    if (c->cuda) {
      CUDA_CALL(c, MSKrylovKernels_CUDA.permute((int)n, dperm, dir, x.d, y.d, NULL));
      PetscCall(BufDownload(c, &y));
      okc = Same(y.back, ref, n);
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "permute %s, n = %" PetscInt_FMT, dir == MS_KRYLOV_TO_IMAGE ? "into the image's numbering" : "back to the user's", n));
    PetscCall(Report(c, what, ok, okc));
    PetscCall(BufDestroy(&y));
  }
#if defined(PETSC_HAVE_CUDA)
  if (dperm) PetscCallCUDA(cudaFree(dperm));
#endif
  PetscCall(BufDestroy(&x));
  PetscCall(PetscFree3(perm, xv, ref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p = z + b p */
static PetscErrorCode TestDirection(Ctx *c, PetscBool done)
{
  const PetscInt  m = c->m;
  MSKrylovScalars h;
  Buf             z, p;
  double         *zv, *pv, *pref;
  PetscBool       ok = PETSC_TRUE, okr;
  char            what[128];

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m, &zv, m, &pv, m, &pref));
  RandomVector(m, 31, -1.0, 1.0, zv);
  RandomVector(m, 32, -1.0, 1.0, pv);
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  h.done = done;
  for (PetscInt i = 0; i < m; i++) pref[i] = done ? pv[i] : zv[i] + h.s[MS_CG_B] * pv[i];
  PetscCall(BufCreate(c, m, zv, &z));
  PetscCall(BufCreate(c, m, pv, &p));
  PetscCall(MSKrylovKernels_Reference.cg_direction((int)m, z.h, p.h, &h, NULL));
  PetscCall(PetscSNPrintf(what, sizeof(what), "cg_direction%s", done ? " after done" : ""));
  okr = (PetscBool)(RelDiff(p.h, pref, m, 1.0) < 1e-15);
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    MSKrylovScalars *dsc = c->dsc;

    PetscCallCUDA(cudaMemcpy(dsc, &h, sizeof(h), cudaMemcpyHostToDevice));
    CUDA_CALL(c, MSKrylovKernels_CUDA.cg_direction((int)m, z.d, p.d, dsc, NULL));
    PetscCall(BufDownload(c, &p));
    ok = (PetscBool)(RelDiff(p.back, p.h, m, 1.0) < 1e-15);
  }
#endif
  PetscCall(Report(c, what, okr, ok));
  PetscCall(BufDestroy(&z));
  PetscCall(BufDestroy(&p));
  PetscCall(PetscFree3(zv, pv, pref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cg_update (and cg_residual with update = false) in every mode */
static PetscErrorCode TestUpdate(Ctx *c, PetscBool update, int pc, PetscBool sr, int norm_r, PetscBool done)
{
  const PetscInt  m = c->m;
  const PetscBool sums = (PetscBool)(!update || pc != MS_KRYLOV_PC_APPLIED);
  MSKrylovScalars h, d, h0;
  MSKrylovReduce  hr, dr;
  MSKrylovCGVecs  hv, dv;
  Buf             x, r, p, w, s, z, dg;
  double         *v[7], *ref[5], sref[3] = {0.0, 0.0, 0.0};
  PetscBool       zero, ok, okr;
  char            what[200];

  PetscFunctionBegin;
  for (int j = 0; j < 7; j++) {
    PetscCall(PetscMalloc1(m, &v[j]));
    RandomVector(m, 41 + (unsigned long long)j, j == 6 ? 0.5 : -1.0, j == 6 ? 2.0 : 1.0, v[j]); /* x r p w s z d */
  }
  for (int j = 0; j < 5; j++) PetscCall(PetscMalloc1(m, &ref[j])); /* x r p w z */
  ScalarsInit(&h, MS_KRYLOV_NORM_PRECONDITIONED);
  h.done = done;
  h0     = h;
  {
    const double a = h.s[MS_CG_ALPHA], b = h.s[MS_CG_B];
    for (PetscInt i = 0; i < m; i++) {
      double xi = v[0][i], ri = v[1][i], pi = v[2][i], wi = v[3][i], zi;
      if (update) {
        if (sr) {
          pi = (pc == MS_KRYLOV_PC_NONE ? ri : v[5][i]) + b * pi;
          wi = v[4][i] + b * wi;
        }
        xi = xi + a * pi;
        ri = ri - a * wi;
      }
      zi = pc == MS_KRYLOV_PC_DIAG ? v[6][i] * ri : (pc == MS_KRYLOV_PC_NONE ? ri : v[5][i]);
      if (sums) {
        sref[0] += norm_r ? ri * ri : zi * zi;
        sref[1] += zi * ri;
        sref[2] += zi * wi; /* the single reduction's z.w */
      }
      ref[0][i] = done ? v[0][i] : xi;
      ref[1][i] = done ? v[1][i] : ri;
      ref[2][i] = done ? v[2][i] : pi;
      ref[3][i] = done ? v[3][i] : wi;
      ref[4][i] = zi;
    }
  }
  PetscCall(BufCreate(c, m, v[0], &x));
  PetscCall(BufCreate(c, m, v[1], &r));
  PetscCall(BufCreate(c, m, v[2], &p));
  PetscCall(BufCreate(c, m, v[3], &w));
  PetscCall(BufCreate(c, m, v[4], &s));
  PetscCall(BufCreate(c, m, pc == MS_KRYLOV_PC_DIAG ? NULL : v[5], &z)); /* written by the kernel: poisoned */
  PetscCall(BufCreate(c, m, v[6], &dg));
  if (pc == MS_KRYLOV_PC_DIAG && sr) { /* the recurrences read the previous z: give it */
    PetscCall(PetscArraycpy(z.h, v[5], m));
#if defined(PETSC_HAVE_CUDA)
    if (c->cuda) PetscCallCUDA(cudaMemcpy(z.d, v[5], sizeof(double) * m, cudaMemcpyHostToDevice));
#endif
  }
  PetscCall(PetscMemzero(&hv, sizeof(hv)));
  hv.x      = x.h;
  hv.r      = r.h;
  hv.p      = p.h;
  hv.w      = w.h;
  hv.s      = sr ? s.h : NULL;
  hv.z      = pc == MS_KRYLOV_PC_NONE ? NULL : z.h;
  hv.d      = pc == MS_KRYLOV_PC_DIAG ? dg.h : NULL;
  hv.pc     = pc;
  hv.norm_r = norm_r;
  dv        = hv;
  dv.x      = x.d;
  dv.r      = r.d;
  dv.p      = p.d;
  dv.w      = w.d;
  dv.s      = sr ? s.d : NULL;
  dv.z      = pc == MS_KRYLOV_PC_NONE ? NULL : z.d;
  dv.d      = pc == MS_KRYLOV_PC_DIAG ? dg.d : NULL;
  PetscCall(Reduces(c, &h, MS_CG_SUM_NN, MS_KRYLOV_FINISH_NONE, &hr, &dr));
  if (update) PetscCall(MSKrylovKernels_Reference.cg_update((int)m, &hv, &h, sums ? &hr : NULL, NULL));
  else PetscCall(MSKrylovKernels_Reference.cg_residual((int)m, &hv, &hr, NULL));
  ok = (PetscBool)(RelDiff(x.h, ref[0], m, 1.0) < 1e-14 && RelDiff(r.h, ref[1], m, 1.0) < 1e-14 && RelDiff(p.h, ref[2], m, 1.0) < 1e-14 && RelDiff(w.h, ref[3], m, 1.0) < 1e-14);
  if (pc == MS_KRYLOV_PC_DIAG && sums && !done) ok = (PetscBool)(ok && RelDiff(z.h, ref[4], m, 1.0) < 1e-14);
  if (sums && !done) ok = (PetscBool)(ok && RelDiff(h.sum, sref, update && sr ? 3 : 2, 1e-300) < 1e-12);
  if (done) ok = (PetscBool)(ok && !memcmp(&h, &h0, sizeof(h)) && (pc != MS_KRYLOV_PC_DIAG || sr || IsPoison(z.h, m)));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s%s (PC %s%s%s)", update ? "cg_update" : "cg_residual", done ? " after done" : "", pc == MS_KRYLOV_PC_NONE ? "none" : (pc == MS_KRYLOV_PC_DIAG ? "diagonal" : "applied"), sr ? ", single reduction" : "", norm_r ? ", r.r" : ", z.z"));
  okr = ok;
  ok  = PETSC_TRUE;
#if defined(PETSC_HAVE_CUDA)
  if (c->cuda) {
    if (update) CUDA_CALL(c, MSKrylovKernels_CUDA.cg_update((int)m, &dv, dr.sc, sums ? &dr : NULL, NULL));
    else CUDA_CALL(c, MSKrylovKernels_CUDA.cg_residual((int)m, &dv, &dr, NULL));
    PetscCall(DeviceScalars(c, &d, &zero));
    PetscCall(BufDownload(c, &x));
    PetscCall(BufDownload(c, &r));
    PetscCall(BufDownload(c, &p));
    PetscCall(BufDownload(c, &w));
    PetscCall(BufDownload(c, &z));
    ok = (PetscBool)(zero && ScalarsAgree(&h, &d) && RelDiff(x.back, x.h, m, 1.0) < 1e-15 && RelDiff(r.back, r.h, m, 1.0) < 1e-15 && RelDiff(p.back, p.h, m, 1.0) < 1e-15 && RelDiff(w.back, w.h, m, 1.0) < 1e-15);
    if (pc == MS_KRYLOV_PC_DIAG && sums && !done) ok = (PetscBool)(ok && RelDiff(z.back, z.h, m, 1.0) < 1e-15);
    if (done && pc == MS_KRYLOV_PC_DIAG && !sr) ok = (PetscBool)(ok && IsPoison(z.back, m)); /* nothing written */
  }
#else
  (void)d;
  (void)zero;
  (void)dr;
  (void)dv;
#endif
  PetscCall(Report(c, what, okr, ok));
  PetscCall(BufDestroy(&x));
  PetscCall(BufDestroy(&r));
  PetscCall(BufDestroy(&p));
  PetscCall(BufDestroy(&w));
  PetscCall(BufDestroy(&s));
  PetscCall(BufDestroy(&z));
  PetscCall(BufDestroy(&dg));
  for (int j = 0; j < 7; j++) PetscCall(PetscFree(v[j]));
  for (int j = 0; j < 5; j++) PetscCall(PetscFree(ref[j]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the finishes on given sums: the reference's scalars against cg.c's arithmetic written out here, the CUDA finish
   kernel against the reference */
static PetscErrorCode TestFinish(Ctx *c)
{
  struct {
    const char *name;
    int         code, normtype, its, hostcheck;
    double      sums[5], beta, betaold, dpi;
    int         reason; /* expected */
  } t[] = {
    {"CG start, converged at 0 (zero norm)", MS_KRYLOV_FINISH_CG_START, MS_KRYLOV_NORM_PRECONDITIONED, 0, 0, {0.0, 0.0, 0.0}, 0, 0, 0, MS_KRYLOV_CONVERGED_ATOL},
    {"CG start, iterating", MS_KRYLOV_FINISH_CG_START, MS_KRYLOV_NORM_PRECONDITIONED, 0, 0, {4.0, 3.0, 0.0}, 0, 0, 0, MS_KRYLOV_CONVERGED_ITERATING},
    {"CG start, NaN norm", MS_KRYLOV_FINISH_CG_START, MS_KRYLOV_NORM_UNPRECONDITIONED, 0, 0, {NAN, 3.0, 0.0}, 0, 0, 0, MS_KRYLOV_DIVERGED_NANORINF},
    {"CG start, host test", MS_KRYLOV_FINISH_CG_START, MS_KRYLOV_NORM_PRECONDITIONED, 0, 1, {4.0, 3.0, 0.0}, 0, 0, 0, MS_KRYLOV_CONVERGED_ITERATING},
    {"CG p.Ap zero", MS_KRYLOV_FINISH_CG_DPI, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {0.0, 0.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_DIVERGED_INDEFINITE_MAT},
    {"CG p.Ap changes sign", MS_KRYLOV_FINISH_CG_DPI, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {0.0, 0.0, -1.0}, 2.0, 3.0, 1.0, MS_KRYLOV_DIVERGED_INDEFINITE_MAT},
    {"CG p.Ap", MS_KRYLOV_FINISH_CG_DPI, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {0.0, 0.0, 2.5}, 2.0, 3.0, 1.0, MS_KRYLOV_CONVERGED_ITERATING},
    {"CG step, r.z changes sign", MS_KRYLOV_FINISH_CG_STEP, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {4.0, -3.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_DIVERGED_INDEFINITE_PC},
    {"CG step, r.z zero", MS_KRYLOV_FINISH_CG_STEP, MS_KRYLOV_NORM_UNPRECONDITIONED, 3, 0, {4.0, 0.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_CONVERGED_ATOL},
    {"CG step, natural norm", MS_KRYLOV_FINISH_CG_STEP, MS_KRYLOV_NORM_NATURAL, 3, 0, {4.0, 3.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_CONVERGED_ITERATING},
    {"CG step, diverged (dtol)", MS_KRYLOV_FINISH_CG_STEP, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {1e12, 3.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_DIVERGED_DTOL},
    {"CG step, converged (rtol)", MS_KRYLOV_FINISH_CG_STEP, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {1e-14, 3.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_CONVERGED_RTOL},
    {"CG step, max_it", MS_KRYLOV_FINISH_CG_STEP, MS_KRYLOV_NORM_PRECONDITIONED, 100, 0, {4.0, 3.0, 0.0}, 2.0, 3.0, 1.0, MS_KRYLOV_DIVERGED_ITS},
    {"CG single reduction step", MS_KRYLOV_FINISH_CGSR_STEP, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {4.0, 3.0, 7.0, -0.5, -0.25}, 2.0, 3.0, 1.0, MS_KRYLOV_CONVERGED_ITERATING},
    {"CG single reduction step, indefinite matrix", MS_KRYLOV_FINISH_CGSR_STEP, MS_KRYLOV_NORM_PRECONDITIONED, 3, 0, {4.0, 3.0, -7.0, -0.5, -0.25}, 2.0, 3.0, 1.0, MS_KRYLOV_DIVERGED_INDEFINITE_MAT},
  };

  PetscFunctionBegin;
  for (size_t j = 0; j < sizeof(t) / sizeof(t[0]); j++) {
    MSKrylovScalars h, d, h0s[1];
    MSKrylovReduce  hr, dr;
    PetscBool       ok, zero, okc = PETSC_TRUE;
    char            what[160];

    ScalarsInit(&h, t[j].normtype);
    h.rnorm0           = 2.0; /* of iteration 0 */
    h.ttol             = 1e-5 * 2.0;
    h.its              = t[j].its;
    h.i                = t[j].its - 1;
    h.hostcheck        = t[j].hostcheck;
    h.s[MS_CG_BETA]    = t[j].beta;
    h.s[MS_CG_BETAOLD] = t[j].betaold;
    h.s[MS_CG_DPI]     = t[j].dpi;
    h.s[MS_CG_DELTA]   = 5.0;
    h0s[0] = h; /* without the sums */
    for (int k = 0; k < 5; k++) h.sum[k] = t[j].sums[k];
    PetscCall(Reduces(c, &h, 0, t[j].code, &hr, &dr));
    PetscCall(MSKrylovKernels_Reference.finish(&hr, NULL));
    ok = (PetscBool)(h.reason == t[j].reason && h.done == (t[j].reason != 0));
    if (t[j].hostcheck) ok = (PetscBool)(ok && h.awaiting && h.nhist == 0);
    if (t[j].code == MS_KRYLOV_FINISH_CG_DPI && !h.done) ok = (PetscBool)(ok && h.s[MS_CG_ALPHA] == t[j].beta / t[j].sums[2] && h.s[MS_CG_BETAOLD] == t[j].beta);
    if (t[j].code == MS_KRYLOV_FINISH_CG_STEP && !h.done) ok = (PetscBool)(ok && h.its == t[j].its + 1 && h.s[MS_CG_B] == h.s[MS_CG_BETA] / h.s[MS_CG_BETAOLD] && h.nhist == 1);
    if (t[j].code == MS_KRYLOV_FINISH_CGSR_STEP && !h.done) ok = (PetscBool)(ok && h.s[MS_CG_DPI] == 7.0 + 1.0 * (-0.5 + -0.25) + 1.0 * 1.0 * 1.0 && h.s[MS_CG_ALPHA] == 3.0 / h.s[MS_CG_DPI] && h.s[MS_CG_DPIOLD] == 1.0);
    PetscCall(PetscSNPrintf(what, sizeof(what), "finish: %s (%s)", t[j].name, h.reason >= 0 ? (h.reason ? KSPConvergedReasons[h.reason] : "iterating") : KSPConvergedReasons[h.reason]));
    if (c->cuda) {
      CUDA_CALL(c, MSKrylovKernels_CUDA.finish(&dr, NULL));
      PetscCall(DeviceScalars(c, &d, &zero));
      okc = ScalarsAgree(&h, &d);
    }
    { /* the same finish given the sums by value (several processes: the sums added over them) */
      MSKrylovScalars h2 = h0s[0];

      PetscCall(Reduces(c, &h2, 0, t[j].code, &hr, &dr));
      PetscCall(MSKrylovKernels_Reference.finish_sums(5, t[j].sums, &hr, NULL));
      ok = (PetscBool)(ok && !memcmp(&h2, &h, sizeof(h)));
      if (c->cuda) {
        CUDA_CALL(c, MSKrylovKernels_CUDA.finish_sums(5, t[j].sums, &dr, NULL));
        PetscCall(DeviceScalars(c, &d, &zero));
        okc = (PetscBool)(okc && ScalarsAgree(&h, &d));
      }
    }
    PetscCall(Report(c, what, ok, okc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx                c    = {0};
  PetscInt           seed = 1;
  MatModSELLOrdering ord  = MATMODSELL_ORDERING_NATURAL;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  c.m  = 1000;
  c.sh = 32;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Device Krylov kernel tests", NULL);
  PetscCall(PetscOptionsInt("-m", "rows", NULL, c.m, &c.m, NULL));
  PetscCall(PetscOptionsInt("-sh", "slice height", NULL, c.sh, &c.sh, NULL));
  PetscCall(PetscOptionsInt("-lanes", "threads per row of the product (0: automatic)", NULL, c.lanes, &c.lanes, NULL));
  PetscCall(PetscOptionsEnum("-ordering", "image ordering (natural, rcm)", NULL, MatModSELLOrderings, (PetscEnum)ord, (PetscEnum *)&ord, NULL));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-cuda", "also the CUDA kernels", NULL, c.cuda, &c.cuda, NULL));
  PetscOptionsEnd();
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!c.cuda, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-cuda needs a PETSc configured with CUDA");
#else
  if (c.cuda) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
#endif
  PetscCall(Generate(&c, seed));
  PetscCall(SetUpImage(&c, ord));
  PetscCall(WorkCreate(&c, PetscMax(MS_KRYLOV_BLOCKS, c.hv.nslices)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " rows, slice height %" PetscInt_FMT ", %s ordering: the reference kernels against direct computations (with -cuda also the CUDA kernels against the reference)\n", c.m, c.sh, MatModSELLOrderings[ord]));
  PetscCall(TestFinish(&c));
  for (int nd = 1; nd <= MS_KRYLOV_MAXDOTS; nd++) PetscCall(TestDot(&c, c.m, nd));
  PetscCall(TestDot(&c, 3 * MS_KRYLOV_BLOCKS * MS_KRYLOV_THREADS + 17, 1)); /* every block has work and loops */
  PetscCall(TestDot(&c, 3 * MS_KRYLOV_BLOCKS * MS_KRYLOV_THREADS + 17, 3));
  PetscCall(TestDot(&c, 0, 1));
  PetscCall(TestMultDot(&c, PETSC_FALSE));
  PetscCall(TestMultDot(&c, PETSC_TRUE));
  PetscCall(TestMultDotImage(&c));
  PetscCall(TestDirection(&c, PETSC_FALSE));
  PetscCall(TestDirection(&c, PETSC_TRUE));
  PetscCall(TestDirectionMultDot(&c, PETSC_FALSE));
  PetscCall(TestDirectionMultDot(&c, PETSC_TRUE));
  for (int pc = MS_KRYLOV_PC_NONE; pc <= MS_KRYLOV_PC_APPLIED; pc++)
    for (int sr = 0; sr < 2; sr++)
      for (int nr = 0; nr < 2; nr++) {
        if (pc == MS_KRYLOV_PC_APPLIED && nr) continue; /* no sums */
        PetscCall(TestUpdate(&c, PETSC_TRUE, pc, (PetscBool)sr, nr, PETSC_FALSE));
      }
  PetscCall(TestUpdate(&c, PETSC_TRUE, MS_KRYLOV_PC_DIAG, PETSC_FALSE, 0, PETSC_TRUE));
  PetscCall(TestUpdate(&c, PETSC_TRUE, MS_KRYLOV_PC_DIAG, PETSC_TRUE, 0, PETSC_TRUE));
  for (int pc = MS_KRYLOV_PC_NONE; pc <= MS_KRYLOV_PC_APPLIED; pc++)
    for (int nr = 0; nr < 2; nr++) PetscCall(TestUpdate(&c, PETSC_FALSE, pc, PETSC_FALSE, nr, PETSC_FALSE));
  for (int pc = MS_KRYLOV_PC_NONE; pc <= MS_KRYLOV_PC_DIAG; pc++)
    for (int nr = 0; nr < 2; nr++) PetscCall(TestCGSRMult(&c, pc, nr, PETSC_FALSE));
  PetscCall(TestCGSRMult(&c, MS_KRYLOV_PC_DIAG, 0, PETSC_TRUE));
  PetscCall(TestPermute(&c, c.m));
  PetscCall(TestPermute(&c, 0));
  PetscCall(WorkDestroy(&c));
  PetscCall(PetscFree(c.iperm));
  PetscCall(MSImageDestroy(&c.img));
  PetscCall(MatDestroy(&c.A));
  PetscCall(MSTestCSRDestroy(&c.csr));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", c.nfail ? "SOME KERNELS FAILED" : "all kernels agree"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
     requires: !complex !single
     test:
       suffix: 1
       args: -sh 32
     test:
       suffix: 1_rcm
       args: -sh 32 -ordering rcm
     test:
       suffix: 1_lanes
       args: -sh 64 -lanes 4 -m 777
     test:
       suffix: groups
       args: -sh 32 -m 70000
     test:
       suffix: partition_lanes
       args: -sh 64 -lanes 2 -m 2000 -ordering partition
     test:
       suffix: rcm_lanes
       args: -sh 64 -lanes 4 -m 777 -ordering rcm

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
       suffix: cuda_1_lanes
       args: -sh 64 -lanes 4 -m 777
       output_file: output/ex2_1_lanes.out
     test:
       suffix: cuda_groups
       args: -sh 32 -m 70000
       output_file: output/ex2_groups.out
     test:
       suffix: cuda_partition_lanes
       args: -sh 64 -lanes 2 -m 2000 -ordering partition
       output_file: output/ex2_partition_lanes.out
     test:
       suffix: cuda_rcm_lanes
       args: -sh 64 -lanes 4 -m 777 -ordering rcm
       output_file: output/ex2_rcm_lanes.out

TEST*/
