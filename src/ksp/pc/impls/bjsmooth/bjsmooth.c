/*
   PCBJSMOOTH: block Jacobi smoother / preconditioner on the slices of the mod-SELL image
   (paper 000, chapter 4: equations 4.8-4.9, 4.14, 4.15 and section 4.3.1).

   Blocks are the slices (sh consecutive image rows) of the mod-SELL image of the local diagonal block
   of the operator: MATMODSELL's own image when it stores the diagonal apart with in-slice (negative)
   column codes and has the requested slice height, else an image this PC builds (any AIJ operator).
   One outer iteration, for every block l at once (synchronous: reads x^(k), writes x^(k+1) to another
   array; asynchronous: one array, blocks see what other blocks have written):
       rl   = b_l - sum_j A_lj x_j - A_ll x_l    (the off-block and off-process entries, eq. 4.8)
       y    ~ A_ll^-1 rl  (inner sweeps from y = 0: Jacobi, warp-serialised GS/SGS (eq. 4.14), or CG)
       x_l <- x_l + y                               (eq. 4.9)
   On several processes the blocks are local to each process; the off-process entries use the ghost
   values of x at the start of the outer iteration (block Jacobi across processes).

   PCApply: z = M^-1 r is the result of -pc_bjsmooth_its outer iterations from z = 0.
   PCApplyRichardson: its * (-pc_bjsmooth_its) outer iterations from the given guess, on the GPU without
   host work per sweep (the tolerances are not tested: the given number of iterations is run, like PCSOR).

   Host (reference) and device (bjsmooth.cu) compute the same function; see bjsmoothcuda.h.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/bjsmoothcuda.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

static PetscLogEvent PC_BJSmoothSweep = 0, PC_BJSmoothApply = 0;

typedef enum {
  PCBJSMOOTH_INNER_JACOBI = MS_BJS_INNER_JACOBI,
  PCBJSMOOTH_INNER_GS     = MS_BJS_INNER_GS,
  PCBJSMOOTH_INNER_SGS    = MS_BJS_INNER_SGS,
  PCBJSMOOTH_INNER_CG     = MS_BJS_INNER_CG
} PCBJSmoothInner;
static const char *const PCBJSmoothInners[] = {"jacobi", "gs", "sgs", "cg", "PCBJSmoothInner", "PCBJSMOOTH_INNER_", NULL};

/* what kind of operator M^-1 the settings give (for PCView and the manual page) */
typedef enum {
  BJS_KIND_SPD,       /* symmetric, positive definite for every SPD operator */
  BJS_KIND_SPD_COND,  /* symmetric; positive definite when the iteration converges (e.g. diagonally dominant operators) */
  BJS_KIND_NONSYM,    /* linear, not symmetric */
  BJS_KIND_NONLINEAR  /* depends nonlinearly on r: needs a flexible Krylov method */
} BJSKind;

typedef struct {
  /* options */
  PetscInt        bs; /* block size = slice height; 0: the operator's (MATMODSELL) or 128 */
  PCBJSmoothInner inner;
  PetscInt        inner_its, its;
  PetscReal       inner_rtol;
  PetscBool       async, force_global;

  /* the last setup */
  PetscBool        device, mpi, own_image, setup;
  PetscInt         sh, nloc, nblocks;
  MSImage          own[2], imgd, imgo;
  PetscBool        use_shared;
  size_t           smem, smem_needed, smem_optin;
  PetscObjectId    matid, aoid;
  PetscObjectState matnz;
  Vec              ghost, offp, work;
  VecScatter       scat;
  PCMSStage        stage; /* device copies of vectors given in host memory */

  /* host work arrays (one block) */
  PetscScalar *hw;
  int         *hlc;
  PetscInt    *hnnb;
  void        *d_status;

  /* zero-guess Jacobi path (device): the compact in-slice block, nloc x m (MSBJSCUDAExtractLocal) */
  short    *d_zlc;
  double   *d_zlv, *d_zdinv;
  PetscInt  zm, zloc; /* the sizes allocated */
  PetscBool zfast;    /* zero-guess sweeps use it */
} PC_BJSmooth;

/* ---------------------------------------------------------------------------------------------- */
/* host reference: the same arithmetic, in the same order, as bjs_sweep_kernel in bjsmooth.cu       */

typedef struct {
  MSImage      img;
  PetscInt     sh, nloc, inner_its;
  int          inner;
  PetscReal    rtol;
  PetscBool    shared;
  PetscScalar *xs, *rl, *y, *s, *p, *q, *d, *lv; /* sh each (lv: nloc*sh) */
  int         *lc;                               /* nloc*sh: in-slice neighbour of the j-th local entry of row t */
  PetscInt    *nnb;                              /* sh: local entries per row */
} BJSHost;

/* sum of the in-slice off-diagonal entries of row t of slice s times v (the window of the slice) */
static inline PetscScalar BJSLocalOff(const BJSHost *h, PetscInt s, PetscInt t, const PetscScalar *v)
{
  PetscScalar sum = 0.0;

  if (h->shared) {
    for (PetscInt j = 0; j < h->nnb[t]; j++) sum += h->lv[j * h->sh + t] * v[h->lc[j * h->sh + t]];
  } else {
    const MSImage    img = h->img;
    const PetscInt64 beg = img->sliceptr[s];
    const PetscInt   w   = (PetscInt)((img->sliceptr[s + 1] - beg) / h->sh);

    for (PetscInt k = 0; k < w; k++) {
      const PetscInt64 slot = beg + (PetscInt64)k * h->sh + t;
      const int        c    = img->cols[slot];
      if (c < 0) sum += img->vals[slot] * v[-c - 1];
    }
  }
  return sum;
}

/* the squared residual norm of the local system at y (rows 0..nr-1) */
static PetscReal BJSLocalResidual2(const BJSHost *h, PetscInt s, PetscInt nr)
{
  PetscReal nrm = 0.0;

  for (PetscInt t = 0; t < nr; t++) {
    const PetscScalar res = (h->rl[t] - BJSLocalOff(h, s, t, h->y)) - h->d[t] * h->y[t];
    nrm += res * res;
  }
  return nrm;
}

static void BJSGSPass(BJSHost *h, PetscInt s, PetscInt nr, PetscBool backward)
{
  const PetscInt ng = (h->sh + MS_BJS_WARP - 1) / MS_BJS_WARP;

  for (PetscInt gg = 0; gg < ng; gg++) {
    const PetscInt g = backward ? ng - 1 - gg : gg, t0 = g * MS_BJS_WARP, t1 = PetscMin(t0 + MS_BJS_WARP, nr);
    for (PetscInt t = t0; t < t1; t++) h->s[t] = BJSLocalOff(h, s, t, h->y); /* Jacobi inside a warp */
    for (PetscInt t = t0; t < t1; t++) h->y[t] = (h->rl[t] - h->s[t]) * (1.0 / h->d[t]);
  }
}

/* inner solve of A_ll y = rl from y = 0 */
static void BJSInnerHost(BJSHost *h, PetscInt s, PetscInt nr)
{
  PetscReal rr0 = 0.0, tol2;

  for (PetscInt t = 0; t < nr; t++) {
    h->y[t] = 0.0;
    rr0 += h->rl[t] * h->rl[t];
  }
  tol2 = h->rtol * h->rtol * rr0;
  switch (h->inner) {
  case MS_BJS_INNER_JACOBI:
    for (PetscInt it = 0; it < h->inner_its; it++) {
      for (PetscInt t = 0; t < nr; t++) h->s[t] = BJSLocalOff(h, s, t, h->y);
      if (h->rtol > 0.0) {
        PetscReal nrm = 0.0;
        for (PetscInt t = 0; t < nr; t++) {
          const PetscScalar res = (h->rl[t] - h->s[t]) - h->d[t] * h->y[t];
          nrm += res * res;
        }
        if (nrm <= tol2) break;
      }
      for (PetscInt t = 0; t < nr; t++) h->y[t] = (h->rl[t] - h->s[t]) * (1.0 / h->d[t]);
    }
    break;
  case MS_BJS_INNER_GS:
  case MS_BJS_INNER_SGS:
    for (PetscInt it = 0; it < h->inner_its; it++) {
      BJSGSPass(h, s, nr, PETSC_FALSE);
      if (h->inner == MS_BJS_INNER_SGS) BJSGSPass(h, s, nr, PETSC_TRUE);
      if (h->rtol > 0.0 && BJSLocalResidual2(h, s, nr) <= tol2) break;
    }
    break;
  default: { /* CG */
    PetscReal rr = rr0;
    for (PetscInt t = 0; t < nr; t++) h->p[t] = h->rl[t];
    /* h->s holds the residual */
    for (PetscInt t = 0; t < nr; t++) h->s[t] = h->rl[t];
    for (PetscInt it = 0; it < h->inner_its; it++) {
      PetscReal pq = 0.0, rrn = 0.0, alpha, beta;

      if (rr == 0.0 || (h->rtol > 0.0 && rr <= tol2)) break;
      for (PetscInt t = 0; t < nr; t++) {
        h->q[t] = h->d[t] * h->p[t] + BJSLocalOff(h, s, t, h->p);
        pq += h->p[t] * h->q[t];
      }
      if (!(pq > 0.0)) break;
      alpha = rr / pq;
      for (PetscInt t = 0; t < nr; t++) {
        h->y[t] += alpha * h->p[t];
        h->s[t] -= alpha * h->q[t];
        rrn += h->s[t] * h->s[t];
      }
      beta = rrn / rr;
      rr   = rrn;
      for (PetscInt t = 0; t < nr; t++) h->p[t] = h->s[t] + beta * h->p[t];
    }
  }
  }
}

/* One outer sweep over the slices; xin == xout (in place) only in asynchronous mode (then the slices
   are visited in order: block Gauss-Seidel) or when zero */
static void BJSSweepHost(BJSHost *h, PetscBool zero, const PetscScalar *b, const PetscScalar *offp, const PetscScalar *xin, PetscScalar *xout)
{
  const MSImage  img = h->img;
  const PetscInt sh = h->sh, m = img->m;

  for (PetscInt s = 0; s < img->nslices; s++) {
    const PetscInt   first = s * sh, nr = PetscMin(sh, m - first);
    const PetscInt64 beg   = img->sliceptr[s];
    const PetscInt   w     = (PetscInt)((img->sliceptr[s + 1] - beg) / sh);

    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o = img->perm ? img->perm[first + t] : first + t;
      h->xs[t]         = zero ? 0.0 : xin[o];
    }
    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o   = img->perm ? img->perm[first + t] : first + t;
      PetscScalar    acc = b[o];
      PetscInt       nn  = 0;

      h->d[t] = img->diag[first + t];
      if (offp) acc -= offp[o];
      if (!zero) acc -= h->d[t] * h->xs[t];
      for (PetscInt k = 0; k < w; k++) {
        const PetscInt64 slot = beg + (PetscInt64)k * sh + t;
        const int        c    = img->cols[slot];
        const PetscScalar v   = img->vals[slot];
        if (c < 0) {
          if (h->shared) {
            h->lc[nn * sh + t] = -c - 1;
            h->lv[nn * sh + t] = v;
          }
          nn++;
          if (!zero) acc -= v * h->xs[-c - 1];
        } else if (c > 0 && !zero) acc -= v * xin[c - 1];
      }
      h->nnb[t] = nn;
      h->rl[t]  = acc;
    }
    BJSInnerHost(h, s, nr);
    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o = img->perm ? img->perm[first + t] : first + t;
      xout[o]          = h->xs[t] + h->y[t];
    }
  }
}

/* flops of one outer sweep (approximate for the inner methods with a tolerance: the maximum) */
static PetscLogDouble BJSSweepFlops(PC_BJSmooth *jac, PetscBool zero)
{
  const MSImage        img = jac->imgd;
  const PetscLogDouble m   = (PetscLogDouble)img->m, nz = (PetscLogDouble)img->nnz;
  const PetscLogDouble loc = img->stats ? (PetscLogDouble)img->nlocal : (PetscLogDouble)jac->nloc * m;
  PetscLogDouble       f   = (zero ? 0.0 : 2.0 * nz) + m; /* rhs and the final update */
  PetscLogDouble       sweep;

  switch (jac->inner) {
  case PCBJSMOOTH_INNER_JACOBI:
    sweep = 2.0 * loc + 2.0 * m;
    break;
  case PCBJSMOOTH_INNER_GS:
    sweep = 2.0 * loc + 2.0 * m;
    break;
  case PCBJSMOOTH_INNER_SGS:
    sweep = 4.0 * loc + 4.0 * m;
    break;
  default:
    sweep = 2.0 * loc + 12.0 * m;
  }
  return f + sweep * (PetscLogDouble)jac->inner_its;
}

/* ---------------------------------------------------------------------------------------------- */
/* device glue                                                                                     */

#if defined(PETSC_HAVE_CUDA)
static void BJSFillCUDAImage(MSImage img, MSBJSCUDAImage *di)
{
  di->m        = (int)img->m;
  di->sh       = (int)img->sh;
  di->nslices  = (int)img->nslices;
  di->sliceptr = (const long long *)img->d_sliceptr;
  di->cols     = (const int *)img->d_cols;
  di->vals     = (const double *)img->d_vals;
  di->diag     = (const double *)img->d_diag;
  di->perm     = (const int *)img->d_perm;
}

/* setup only: one kernel and one read back of 24 bytes per image (see MSBJSCUDAAnalyze()) */
static PetscErrorCode PCBJSmoothAnalyzeDevice(PC_BJSmooth *jac, MSImage img, PetscInt *nloc, PetscInt *badrow, PetscInt *badval)
{
  MSBJSCUDAImage  di;
  MSBJSCUDAStatus h;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCheck(img->dev_pattern || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBJSMOOTH: the device image of the operator is not set up");
  if (!jac->d_status) PetscCall(MSDeviceMalloc(&jac->d_status, sizeof(MSBJSCUDAStatus), "PCBJSMOOTH's setup status"));
  BJSFillCUDAImage(img, &di);
  if (!img->dapart) di.diag = NULL;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA((cudaError_t)MSBJSCUDAAnalyze(&di, (MSBJSCUDAStatus *)jac->d_status, stream));
  PetscCallCUDA(cudaMemcpyAsync(&h, jac->d_status, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(h)));
  *nloc   = (PetscInt)h.maxloc;
  *badrow = h.badrow == MS_BJS_BAD_NONE ? -1 : (PetscInt)h.badrow;
  *badval = h.badval == MS_BJS_BAD_NONE ? -1 : (PetscInt)h.badval;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSweepDevice(PC_BJSmooth *jac, PetscBool zero, const PetscScalar *b, const PetscScalar *offp, const PetscScalar *xin, PetscScalar *xout)
{
  MSBJSCUDAImage di;
  cudaStream_t   stream;

  PetscFunctionBegin;
  BJSFillCUDAImage(jac->imgd, &di);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (zero && jac->zfast) PetscCallCUDA((cudaError_t)MSBJSCUDAZeroJacobi(&di, (int)jac->nloc, jac->d_zlc, jac->d_zlv, jac->d_zdinv, (int)jac->inner_its, b, offp, xout, stream));
  else PetscCallCUDA((cudaError_t)MSBJSCUDASweep(&di, (int)jac->inner, (int)jac->inner_its, (double)jac->inner_rtol, (int)jac->nloc, (int)jac->use_shared, jac->smem, (int)zero, (int)jac->async, b, offp, xin, xout, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(BJSSweepFlops(jac, zero)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* ---------------------------------------------------------------------------------------------- */

static void PCBJSmoothHostCtx(PC_BJSmooth *jac, BJSHost *h)
{
  const PetscInt sh = jac->sh;

  h->img       = jac->imgd;
  h->sh        = sh;
  h->nloc      = jac->nloc;
  h->inner     = (int)jac->inner;
  h->inner_its = jac->inner_its;
  h->rtol      = jac->inner_rtol;
  h->shared    = jac->use_shared;
  h->xs        = jac->hw;
  h->rl        = jac->hw + sh;
  h->y         = jac->hw + 2 * sh;
  h->s         = jac->hw + 3 * sh;
  h->p         = jac->hw + 4 * sh;
  h->q         = jac->hw + 5 * sh;
  h->d         = jac->hw + 6 * sh;
  h->lv        = jac->hw + 7 * sh;
  h->lc        = jac->hlc;
  h->nnb       = jac->hnnb;
}

/* One outer sweep: xout = sweep(xin) (xin ignored when zero; xin == xout in asynchronous mode) */
static PetscErrorCode PCBJSmoothSweep(PC pc, Vec b, Vec xin, Vec xout, PetscBool zero)
{
  PC_BJSmooth          *jac = (PC_BJSmooth *)pc->data;
  const PetscBool       dev = jac->device, inplace = (PetscBool)(xin == xout);
  const PetscMemoryAccessMode R = PETSC_MEMORY_ACCESS_READ, W = PETSC_MEMORY_ACCESS_WRITE, RW = PETSC_MEMORY_ACCESS_READ_WRITE;
  PetscScalar          *ba, *xi = NULL, *op = NULL, *xo;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_BJSmoothSweep, pc, b, xout, 0));
  if (jac->mpi && !zero) { /* off-process part with the ghost values of xin */
    PetscScalar *g, *o;

    PetscCall(VecScatterBegin(jac->scat, xin, jac->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(jac->scat, xin, jac->ghost, INSERT_VALUES, SCATTER_FORWARD));
    /* offp = 0 + Ao g: MSImageMult*(.., yin = NULL, ..) logs 2 nnz - m flops, negative for a sparse Ao */
    PetscCall(VecZeroEntries(jac->offp));
    PetscCall(PCMSVecGetArray(pc, jac->ghost, dev, R, &g));
    PetscCall(PCMSVecGetArray(pc, jac->offp, dev, RW, &o));
    if (dev) {
#if defined(PETSC_HAVE_CUDA)
      PetscCall(MSImageMultDevice(jac->imgo, g, o, o));
#endif
    } else PetscCall(MSImageMultHost(jac->imgo, g, o, o));
    PetscCall(PCMSVecRestoreArray(jac->ghost, dev, R, &g));
    PetscCall(PCMSVecRestoreArray(jac->offp, dev, RW, &o));
    PetscCall(PCMSVecGetArray(pc, jac->offp, dev, R, &op));
  }
  PetscCall(PCMSVecGetArray(pc, b, dev, R, &ba));
  if (inplace) PetscCall(PCMSVecGetArray(pc, xout, dev, RW, &xo));
  else {
    if (!zero) PetscCall(PCMSVecGetArray(pc, xin, dev, R, &xi));
    PetscCall(PCMSVecGetArray(pc, xout, dev, W, &xo));
  }
  if (inplace) xi = xo;
  if (dev) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(PCBJSmoothSweepDevice(jac, zero, ba, op, xi, xo));
#endif
  } else {
    BJSHost h;

    PCBJSmoothHostCtx(jac, &h);
    BJSSweepHost(&h, zero, ba, op, xi, xo);
    PetscCall(PetscLogFlops(BJSSweepFlops(jac, zero)));
  }
  PetscCall(PCMSVecRestoreArray(b, dev, R, &ba));
  if (inplace) PetscCall(PCMSVecRestoreArray(xout, dev, RW, &xo));
  else {
    if (!zero) PetscCall(PCMSVecRestoreArray(xin, dev, R, &xi));
    PetscCall(PCMSVecRestoreArray(xout, dev, W, &xo));
  }
  if (op) PetscCall(PCMSVecRestoreArray(jac->offp, dev, R, &op));
  PetscCall(PetscLogEventEnd(PC_BJSmoothSweep, pc, b, xout, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n outer iterations for A x = b from x (zero: from 0); w is a work vector like x (synchronous mode:
   the iterations alternate between x and w so that the last one lands in x). No host synchronization. */
static PetscErrorCode PCBJSmoothOuter(PC pc, Vec b, Vec x, Vec w, PetscInt n, PetscBool zero)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  Vec          in  = x;

  PetscFunctionBegin;
  PetscCheck(jac->setup, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBJSMOOTH: the preconditioner is not set up: call PCSetUp() (or KSPSetUp()) first");
  if (n <= 0) {
    if (zero) PetscCall(VecZeroEntries(x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (jac->async) {
    for (PetscInt k = 0; k < n; k++) PetscCall(PCBJSmoothSweep(pc, b, x, x, (PetscBool)(zero && k == 0)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!zero && n % 2 == 1) { /* the first sweep must not write into its own input */
    PetscCall(VecCopy(x, w));
    in = w;
  }
  for (PetscInt k = 0; k < n; k++) {
    Vec out = ((n - 1 - k) % 2 == 0) ? x : w;

    PetscCall(PCBJSmoothSweep(pc, b, in, out, (PetscBool)(zero && k == 0)));
    in = out;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The vectors the sweeps run on: r and z themselves, or (a GPU setup given vectors in host memory, e.g. from
   VecCreate() without -vec_type) device copies; work is a device vector like them */
static PetscErrorCode PCBJSmoothVecs(PC pc, Vec r, Vec z, PetscBool zin, Vec *ru, Vec *zu)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *ru = r;
  *zu = z;
  if (jac->device) {
    PetscCall(PCMSStageIn(&jac->stage, 0, r, PETSC_TRUE, ru));
    PetscCall(PCMSStageIn(&jac->stage, 1, z, zin, zu));
  }
  if (!jac->async && jac->its > 1 && !jac->work) PetscCall(VecDuplicate(*zu, &jac->work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_BJSmooth(PC pc, Vec r, Vec z)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  Vec          ru, zu;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_BJSmoothApply, pc, r, z, 0));
  PetscCall(PCBJSmoothVecs(pc, r, z, PETSC_FALSE, &ru, &zu));
  PetscCall(PCBJSmoothOuter(pc, ru, zu, jac->work, jac->its, PETSC_TRUE));
  PetscCall(PCMSStageOut(z, zu));
  PetscCall(PetscLogEventEnd(PC_BJSmoothApply, pc, r, z, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyRichardson_BJSmooth(PC pc, Vec b, Vec y, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  Vec          bu, yu;

  PetscFunctionBegin;
  (void)rtol;
  (void)abstol;
  (void)dtol;
  PetscCall(PetscLogEventBegin(PC_BJSmoothApply, pc, b, y, 0));
  PetscCall(PCBJSmoothVecs(pc, b, y, (PetscBool)!guesszero, &bu, &yu));
  if (yu != y) { /* w is in host memory like y: a device work vector instead */
    if (!jac->work) PetscCall(VecDuplicate(yu, &jac->work));
    w = jac->work;
  }
  PetscCall(PCBJSmoothOuter(pc, bu, yu, w, its * jac->its, guesszero));
  PetscCall(PCMSStageOut(y, yu));
  PetscCall(PetscLogEventEnd(PC_BJSmoothApply, pc, b, y, 0));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */

static PetscErrorCode PCBJSmoothFreeZero(PC_BJSmooth *jac)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (jac->d_zlc) PetscCallCUDA(cudaFree(jac->d_zlc));
  if (jac->d_zlv) PetscCallCUDA(cudaFree(jac->d_zlv));
  if (jac->d_zdinv) PetscCallCUDA(cudaFree(jac->d_zdinv));
#endif
  jac->d_zlc = NULL;
  jac->d_zlv   = NULL;
  jac->d_zdinv = NULL;
  jac->zm = jac->zloc = 0;
  jac->zfast          = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothFreeStructure(PC pc)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  PetscCall(MSImageDestroy(&jac->own[0]));
  PetscCall(MSImageDestroy(&jac->own[1]));
  PetscCall(VecScatterDestroy(&jac->scat));
  PetscCall(VecDestroy(&jac->ghost));
  PetscCall(VecDestroy(&jac->offp));
  PetscCall(VecDestroy(&jac->work));
  PetscCall(PCMSStageDestroy(&jac->stage));
  PetscCall(PetscFree(jac->hw));
  PetscCall(PetscFree(jac->hlc));
  PetscCall(PetscFree(jac->hnnb));
  PetscCall(PCBJSmoothFreeZero(jac));
  jac->imgd = jac->imgo = NULL;
  jac->matid = jac->aoid = 0;
  jac->matnz             = 0;
  jac->setup             = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothCreateVec(PC pc, MPI_Comm comm, PetscInt n, Vec *v)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VecSetType(*v, jac->device ? VECCUDA : VECSTANDARD));
#else
  (void)jac;
  PetscCall(VecSetType(*v, VECSTANDARD));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image of the diagonal block (which 0: diagonal apart, in-slice codes, slice height sh) or of the
   off-process block (which 1: any encoding): the MATMODSELL image when it qualifies, else our own */
static PetscErrorCode PCBJSmoothGetImage(PC pc, Mat B, PetscInt which, PetscMemType mtype, MSImage *img)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  MSImage      mi;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLGetImage(B, mtype, &mi));
  if (mi && (which == 1 || (mi->dapart && mi->local && (!jac->bs || mi->sh == jac->bs)))) {
    PetscCall(MSImageDestroy(&jac->own[which]));
    *img = mi;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (which == 0) jac->own_image = PETSC_TRUE;
  if (!jac->own[which]) {
    PetscCall(MSImageCreate(&jac->own[which]));
    if (which == 1) {
      jac->own[which]->diag_apart = PETSC_FALSE;
      jac->own[which]->local_cols = PETSC_FALSE;
    } else {
      PetscInt sh = jac->bs;
      if (!sh && mi) PetscCall(MatModSELLGetSliceHeight(B, &sh));
      if (sh) PetscCall(MSImageSetSliceHeight(jac->own[which], sh));
    }
  }
  PetscCall(MSImageSetUp(jac->own[which], B, mtype));
  *img = jac->own[which];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host twin of MSBJSCUDAAnalyze(): largest in-slice count of a row, smallest user row with a diagonal that
   is not positive, smallest user row holding a non-finite value (-1: none); diagonal checks only when the
   image stores the diagonal apart */
static void PCBJSmoothAnalyzeHost(MSImage img, PetscInt *nloc, PetscInt *badrow, PetscInt *badval)
{
  *nloc   = 0;
  *badrow = *badval = -1;
  for (PetscInt s = 0; s < img->nslices; s++) {
    const PetscInt   first = s * img->sh, nr = PetscMin(img->sh, img->m - first);
    const PetscInt64 beg   = img->sliceptr[s];
    const PetscInt   w     = (PetscInt)((img->sliceptr[s + 1] - beg) / img->sh);
    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o   = img->perm ? img->perm[first + t] : first + t;
      PetscInt       nn  = 0;
      PetscBool      fin = (PetscBool)(!img->dapart || !PetscIsInfOrNanReal(img->diag[first + t]));
      for (PetscInt k = 0; k < w; k++) {
        const PetscInt64 slot = beg + (PetscInt64)k * img->sh + t;
        if (img->cols[slot] < 0) nn++;
        if (PetscIsInfOrNanReal(img->vals[slot])) fin = PETSC_FALSE;
      }
      *nloc = PetscMax(*nloc, nn);
      if (img->dapart && !(img->diag[first + t] > 0.0) && (*badrow < 0 || o < *badrow)) *badrow = o;
      if (!fin && (*badval < 0 || o < *badval)) *badval = o;
    }
  }
}

static PetscErrorCode PCSetUp_BJSmooth(PC pc)
{
  PC_BJSmooth    *jac  = (PC_BJSmooth *)pc->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  Mat             A    = pc->pmat, Ad, Ao = NULL;
  const PetscInt *garray = NULL;
  PetscBool       isseq, ismpi, device, rebuild;
  PetscInt        M, N, m, n, nloc = 0, badrow = -1, badval = -1, rstart;
  PetscObjectId   id, aoid = 0;
  PetscMemType    mtype;
  PetscInt64      gbad;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  PetscCheck(isseq || ismpi, comm, PETSC_ERR_SUP, "PCBJSMOOTH needs an AIJ-family matrix (aij, aijcusparse, modsell, ...) to build the preconditioner from, not a matrix of type %s: use -mat_type aij or modsell, or MatConvert()", ((PetscObject)A)->type_name);
  PetscCheck(A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "PCBJSMOOTH: the matrix must be assembled (MatAssemblyBegin/End) before the preconditioner is set up");
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetLocalSize(A, &m, &n));
  {
    PetscBool same = (PetscBool)(m == n);

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, comm));
    PetscCheck(M == N && same, comm, PETSC_ERR_ARG_SIZ, "PCBJSMOOTH needs a square operator with equal row and column layouts: it is %" PetscInt_FMT " x %" PetscInt_FMT " and its local rows and columns differ on some process", M, N);
  }
  { /* the GPU kernels index a process's rows with 32-bit integers */
    PetscInt mmax = m;

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &mmax, 1, MPIU_INT, MPI_MAX, comm));
    PetscCheck(mmax < PETSC_INT32_MAX, comm, PETSC_ERR_SUP, "PCBJSMOOTH: a process holds %" PetscInt_FMT " rows of the operator; at most %d per process fit the 32-bit row indices of its kernels: use more MPI processes", mmax, PETSC_INT32_MAX - 1);
  }
  if (jac->bs) PetscCall(MSCheckSliceHeight(comm, jac->bs));
  PetscCall(PetscModSELLUseDevice(A, &device));
  mtype = device ? PETSC_MEMTYPE_DEVICE : PETSC_MEMTYPE_HOST;

  if (ismpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    PetscCall(PetscObjectGetId((PetscObject)Ao, &aoid));
  } else Ad = A;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  rebuild = (PetscBool)(!jac->matid || id != jac->matid || A->nonzerostate != jac->matnz || aoid != jac->aoid || device != jac->device || ismpi != jac->mpi);
  if (rebuild) PetscCall(PCBJSmoothFreeStructure(pc));
  jac->device    = device;
  jac->mpi       = ismpi;
  jac->own_image = PETSC_FALSE;
  if (jac->own[0] && jac->bs && jac->own[0]->sh != jac->bs) PetscCall(MSImageDestroy(&jac->own[0])); /* the block size changed */
  PetscCall(PCBJSmoothGetImage(pc, Ad, 0, mtype, &jac->imgd));
  if (ismpi) PetscCall(PCBJSmoothGetImage(pc, Ao, 1, mtype, &jac->imgo));
  PetscCheck(jac->imgd->m == m && jac->imgd->n == m && (jac->imgd->dapart || !m) && (jac->imgd->local || !m), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBJSMOOTH: the image of the diagonal block has the wrong size or encoding");
  jac->sh      = jac->imgd->sh;
  jac->nblocks = jac->imgd->nslices;
  if (rebuild && ismpi) {
    PetscInt nghost;
    IS       from;
    Vec      tmpl;

    PetscCall(MatGetLocalSize(Ao, NULL, &nghost));
    PetscCall(PCBJSmoothCreateVec(pc, PETSC_COMM_SELF, nghost, &jac->ghost));
    PetscCall(PCBJSmoothCreateVec(pc, comm, m, &jac->offp));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(PCBJSmoothCreateVec(pc, comm, m, &tmpl));
    PetscCall(VecScatterCreate(tmpl, from, jac->ghost, NULL, &jac->scat));
    PetscCall(VecDestroy(&tmpl));
    PetscCall(ISDestroy(&from));
  }
  jac->matid = id;
  jac->matnz = A->nonzerostate;
  jac->aoid  = aoid;

  /* analysis: nloc (eq. 4.15), the diagonal check and the non-finite values, on the images where they live */
  for (PetscInt which = 0; which < (ismpi ? 2 : 1); which++) {
    const MSImage img = which ? jac->imgo : jac->imgd;
    PetscInt      nl = 0, br = -1, bv = -1;

    if (device) {
#if defined(PETSC_HAVE_CUDA)
      PetscCall(PCBJSmoothAnalyzeDevice(jac, img, &nl, &br, &bv));
#endif
    } else PCBJSmoothAnalyzeHost(img, &nl, &br, &bv);
    if (!which) {
      nloc   = nl;
      badrow = br;
    }
    if (bv >= 0 && (badval < 0 || bv < badval)) badval = bv;
  }
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  gbad = badval < 0 ? PETSC_INT64_MAX : (PetscInt64)(badval + rstart);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &gbad, 1, MPIU_INT64, MPI_MIN, comm));
  PetscCheck(gbad == PETSC_INT64_MAX, comm, PETSC_ERR_FP, "PCBJSMOOTH: row %" PetscInt_FMT " of the operator holds a non-finite entry (Inf or NaN): fix the assembly of the matrix", (PetscInt)gbad);
  gbad = badrow < 0 ? PETSC_INT64_MAX : (PetscInt64)(badrow + rstart);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &gbad, 1, MPIU_INT64, MPI_MIN, comm));
  if (gbad != PETSC_INT64_MAX) {
    PetscReal d     = 0.0;
    PetscBool found = PETSC_FALSE;

    PetscCall(PetscModSELLGetDiagonalEntry(pc->pmat, (PetscInt)gbad, &d, &found));
    PetscCheck(found, comm, PETSC_ERR_ARG_WRONG, "PCBJSMOOTH: row %" PetscInt_FMT " of the operator has no diagonal entry: the block sweeps divide by the diagonal; assemble the diagonal (an SPD operator has a positive one)", (PetscInt)gbad);
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCBJSMOOTH: row %" PetscInt_FMT " of the operator has the diagonal entry %g, not positive: the block sweeps divide by the diagonal and need an SPD-like operator; scale the system by -1 if it is negative definite, or use another preconditioner", (PetscInt)gbad, (double)d);
  }
  jac->nloc = nloc;

  /* shared memory (eq. 4.15) and the fallback */
  jac->smem_needed = (size_t)jac->sh * (sizeof(PetscScalar) + (size_t)nloc * (sizeof(PetscScalar) + sizeof(int))) + MS_BJS_RED * sizeof(PetscScalar);
  jac->smem_optin  = 0;
  jac->use_shared  = (PetscBool)!jac->force_global;
  jac->smem        = jac->use_shared ? jac->smem_needed : (size_t)jac->sh * sizeof(PetscScalar) + MS_BJS_RED * sizeof(PetscScalar);
  if (device) {
#if defined(PETSC_HAVE_CUDA)
    int use_shared;

    PetscCallCUDA((cudaError_t)MSBJSCUDAConfigure((int)jac->sh, (int)nloc, (int)jac->inner, (int)jac->force_global, &use_shared, &jac->smem, &jac->smem_needed, &jac->smem_optin));
    jac->use_shared = (PetscBool)(use_shared != 0);
#endif
  }
  if (!jac->use_shared && !jac->force_global) PetscCall(PetscInfo(pc, "PCBJSMOOTH: %zu bytes of shared memory per block (slice height %" PetscInt_FMT ", %" PetscInt_FMT " in-slice entries per row) exceed the device's limit %zu: the inner sweeps read the in-slice coefficients from global memory\n", jac->smem_needed, jac->sh, nloc, jac->smem_optin));

  /* zero-guess Jacobi path: the compact in-slice block, refreshed at every setup (the values may have changed) */
  jac->zfast = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  if (device && jac->inner == PCBJSMOOTH_INNER_JACOBI && jac->inner_rtol == 0.0 && !jac->force_global && nloc > 0 && nloc <= MS_BJS_ZERO_MAXLOC && m > 0) {
    MSBJSCUDAImage di;
    cudaStream_t   stream;

    if (jac->zm != m || jac->zloc != nloc) {
      PetscCall(PCBJSmoothFreeZero(jac));
      PetscCall(MSDeviceMalloc((void **)&jac->d_zlc, (size_t)nloc * m * sizeof(short), "PCBJSMOOTH's compact in-slice columns"));
      PetscCall(MSDeviceMalloc((void **)&jac->d_zlv, (size_t)nloc * m * sizeof(double), "PCBJSMOOTH's compact in-slice values"));
      PetscCall(MSDeviceMalloc((void **)&jac->d_zdinv, (size_t)m * sizeof(double), "PCBJSMOOTH's inverse diagonal"));
      jac->zm   = m;
      jac->zloc = nloc;
    }
    BJSFillCUDAImage(jac->imgd, &di);
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA((cudaError_t)MSBJSCUDAExtractLocal(&di, (int)nloc, jac->d_zlc, jac->d_zlv, jac->d_zdinv, stream));
    jac->zfast = PETSC_TRUE;
  }
#endif

  /* host work arrays */
  PetscCall(PetscFree(jac->hw));
  PetscCall(PetscFree(jac->hlc));
  PetscCall(PetscFree(jac->hnnb));
  if (!device) {
    PetscCall(PetscMalloc1(7 * jac->sh + PetscMax(1, nloc) * jac->sh, &jac->hw));
    PetscCall(PetscMalloc1(PetscMax(1, nloc) * jac->sh, &jac->hlc));
    PetscCall(PetscMalloc1(jac->sh, &jac->hnnb));
  }
  jac->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_BJSmooth(PC pc)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBJSmoothFreeStructure(pc));
#if defined(PETSC_HAVE_CUDA)
  if (jac->d_status) PetscCallCUDA(cudaFree(jac->d_status));
#endif
  jac->d_status = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_BJSmooth(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_BJSmooth(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_BJSmooth(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  PetscInt     it;
  PetscReal    tol;
  PetscBool    flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Block Jacobi smoother (mod-SELL slices) options");
  it = jac->bs;
  PetscCall(PetscOptionsInt("-pc_bjsmooth_block_size", "Rows per block = slice height of the mod-SELL image (a multiple of 32, at most 1024; 0: the MATMODSELL operator's slice height, else 128)", "PCBJSMOOTH", it, &it, &flg));
  if (flg) {
    PetscCheck(it >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: -pc_bjsmooth_block_size %" PetscInt_FMT " must be 0 (automatic) or a multiple of 32 up to 1024", it);
    if (it) PetscCall(MSCheckSliceHeight(PetscObjectComm((PetscObject)pc), it));
    jac->bs = it;
  }
  PetscCall(PetscOptionsEnum("-pc_bjsmooth_inner", "Inner method on each block: jacobi, gs (warp-serialised forward Gauss-Seidel), sgs (forward then backward), cg", "PCBJSMOOTH", PCBJSmoothInners, (PetscEnum)jac->inner, (PetscEnum *)&jac->inner, NULL));
  it = jac->inner_its;
  PetscCall(PetscOptionsInt("-pc_bjsmooth_inner_its", "Inner sweeps (iterations) per block and outer iteration (at most, with -pc_bjsmooth_inner_rtol)", "PCBJSMOOTH", it, &it, NULL));
  PetscCheck(it >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: -pc_bjsmooth_inner_its %" PetscInt_FMT " must be at least 1", it);
  jac->inner_its = it;
  tol            = jac->inner_rtol;
  PetscCall(PetscOptionsReal("-pc_bjsmooth_inner_rtol", "Stop the inner sweeps of a block when its residual norm is at most this times its right-hand side's (0: always -pc_bjsmooth_inner_its)", "PCBJSMOOTH", tol, &tol, NULL));
  PetscCheck(tol >= 0.0 && tol < 1.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: -pc_bjsmooth_inner_rtol %g must be in [0, 1)", (double)tol);
  jac->inner_rtol = tol;
  it              = jac->its;
  PetscCall(PetscOptionsInt("-pc_bjsmooth_its", "Outer (block Jacobi) iterations per application", "PCBJSMOOTH", it, &it, NULL));
  PetscCheck(it >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: -pc_bjsmooth_its %" PetscInt_FMT " must be at least 1", it);
  jac->its = it;
  PetscCall(PetscOptionsBool("-pc_bjsmooth_async", "Block-asynchronous outer iterations (one array; blocks read what others already wrote): M^-1 becomes nonlinear", "PCBJSMOOTH", jac->async, &jac->async, NULL));
  PetscCall(PetscOptionsBool("-pc_bjsmooth_global_coefficients", "Read the in-slice coefficients from global memory in the inner sweeps (the fallback taken when they do not fit in shared memory)", "PCBJSMOOTH", jac->force_global, &jac->force_global, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static BJSKind PCBJSmoothKind(PC_BJSmooth *jac)
{
  if (jac->async || jac->inner == PCBJSMOOTH_INNER_CG || jac->inner_rtol > 0.0) return BJS_KIND_NONLINEAR;
  if (jac->inner == PCBJSMOOTH_INNER_GS) return BJS_KIND_NONSYM;
  if (jac->its % 2 == 1 && (jac->inner == PCBJSMOOTH_INNER_SGS || jac->inner_its % 2 == 1)) return jac->inner == PCBJSMOOTH_INNER_SGS ? BJS_KIND_SPD_COND : BJS_KIND_SPD;
  return BJS_KIND_SPD_COND;
}

static PetscErrorCode PCView_BJSmooth(PC pc, PetscViewer viewer)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  PetscBool    isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac->inner_rtol > 0.0) PetscCall(PetscViewerASCIIPrintf(viewer, "  outer iterations %" PetscInt_FMT " (%s), inner %s, at most %" PetscInt_FMT " sweeps, block rtol %g\n", jac->its, jac->async ? "asynchronous" : "synchronous", PCBJSmoothInners[jac->inner], jac->inner_its, (double)jac->inner_rtol));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  outer iterations %" PetscInt_FMT " (%s), inner %s, %" PetscInt_FMT " sweeps\n", jac->its, jac->async ? "asynchronous" : "synchronous", PCBJSmoothInners[jac->inner], jac->inner_its));
  switch (PCBJSmoothKind(jac)) {
  case BJS_KIND_SPD:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear, symmetric and positive definite for SPD operators: usable with CG\n"));
    break;
  case BJS_KIND_SPD_COND:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear and symmetric; positive definite when the sweeps converge (e.g. diagonally dominant SPD operators): usable with CG there\n"));
    break;
  case BJS_KIND_NONSYM:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear but not symmetric (forward sweeps only): use GMRES, BiCGStab or a flexible method, not CG\n"));
    break;
  default:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is nonlinear (%s): use a flexible method (-ksp_type fcg or fgmres)\n", jac->async ? "asynchronous updates" : (jac->inner == PCBJSMOOTH_INNER_CG ? "inner CG" : "inner tolerance")));
  }
  if (!jac->setup) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  block size %s (not set up yet)\n", jac->bs ? "set" : "automatic"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks: slices of %" PetscInt_FMT " rows of %s; at most %" PetscInt_FMT " in-slice entries per row\n", jac->sh, jac->own_image ? "the PC's own mod-SELL image of the operator" : "the MATMODSELL image of the operator", jac->nloc));
  if (jac->imgd && jac->imgd->bricks) PetscCall(PetscViewerASCIIPrintf(viewer, "  the image is ordered by bricks of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid points (-mat_modsell_ordering bricks)\n", jac->imgd->brick[0], jac->imgd->brick[1], jac->imgd->brick[2]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  on the %s; in-slice coefficients in %s memory%s\n", jac->device ? "GPU" : "host", jac->use_shared ? "shared" : "global", jac->use_shared ? "" : (jac->force_global ? " (forced)" : " (fallback: they do not fit in shared memory)")));
  if (jac->zfast) PetscCall(PetscViewerASCIIPrintf(viewer, "  sweeps from a zero guess (PCApply) read a compact copy of the in-slice entries (%" PetscInt_FMT " per row) instead of the image\n", jac->nloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCBJSMOOTH - "bjsmooth" - block Jacobi smoother and preconditioner on the slices of the modified Sliced ELLPACK
   image of the operator, with inner Jacobi, warp-serialised Gauss-Seidel or CG sweeps on each block (paper 000,
   Wikberg 2024, chapter 4, equations 4.8-4.9, 4.14, 4.15, section 4.3.1), run on the GPU when the operator's
   vectors live there

   Options Database Keys:
+  -pc_bjsmooth_block_size <0>          - rows per block = slice height of the image (multiple of 32, at most 1024); 0: the
                                          `MATMODSELL` operator's slice height, else 128
.  -pc_bjsmooth_inner <jacobi>          - inner method: jacobi, gs (warp-serialised forward Gauss-Seidel), sgs (forward then backward), cg
.  -pc_bjsmooth_inner_its <3>           - inner sweeps per block and outer iteration (at most, with a tolerance)
.  -pc_bjsmooth_inner_rtol <0>          - stop a block's inner sweeps when its residual norm is at most this times its right-hand side's
.  -pc_bjsmooth_its <1>                 - outer iterations per application
.  -pc_bjsmooth_async <false>           - block-asynchronous outer iterations (one array, a memory fence after each block's update)
-  -pc_bjsmooth_global_coefficients     - read the in-slice coefficients from global memory (the fallback path; for testing)

   Level: intermediate

   Notes:
   A block is a slice of the image of the local diagonal block: sh consecutive rows in the image's order (the natural
   order, or the `MATMODSELL` operator's ordering). For a structured grid in natural order a block is a piece of a grid
   line, which helps little; with a `MATMODSELL` operator from a `DMDA` and -mat_modsell_ordering bricks each slice is a
   brick of the grid (e.g. 8 x 8 x 8 points for -mat_modsell_slice_height 512 -pc_bjsmooth_block_size 512), and block
   Jacobi works as a subdomain method. One outer iteration solves, for every block l at once,
   A_ll y = b_l - sum_j A_lj x_j approximately from y = 0 and sets x_l <- x_l + y. On the GPU one thread block handles
   one slice: it assembles the local right-hand side (the in-slice entries, coded by negative column codes, from a
   shared-memory copy of the slice's x; the others from global memory) and the local matrix in shared memory, then
   runs the inner sweeps without leaving the kernel. The shared memory needed per block is
   sh*(8 + nloc*(8 + 4)) + 512 bytes (eq. 4.15, nloc = most in-slice entries of a row); the kernel's limit is raised with
   cudaFuncSetAttribute() up to the device's opt-in limit, and when it still does not fit the inner sweeps read the
   in-slice coefficients from the image in global memory (same results, slower). On several processes the blocks are
   local to each process and the off-process entries use the values of the previous outer iteration.

   Inner methods: jacobi; gs, warp-serialised Gauss-Seidel: the 32-row groups (warps) of a block are updated in order
   with the newest values, the rows inside a group simultaneously (Jacobi); sgs: a gs sweep then the same backwards;
   cg: conjugate gradients on the block.

   As a preconditioner M^-1 r is the result of -pc_bjsmooth_its outer iterations from zero. Which settings give an
   operator usable with `KSPCG` (`PCView()` reports it):
+  SPD for every SPD operator - one outer iteration (any odd count) with inner jacobi and an odd -pc_bjsmooth_inner_its
   (the default): M^-1 = blockdiag(p(D_l^-1 A_ll) D_l^-1) with p(t) = (1 - (1 - t)^k)/t > 0 for odd k
.  symmetric, positive definite for diagonally dominant SPD operators (Laplacians) - inner jacobi with an even count, or
   inner sgs (its symmetric splitting has P + P^T - A_ll = 2 D - N, N the couplings inside the 32-row groups), or an
   even number of outer iterations; exact inner solves give block Jacobi, SPD for SPD operators
.  linear, not symmetric - inner gs: use GMRES or BiCGStab
-  nonlinear - inner cg, any -pc_bjsmooth_inner_rtol > 0 and -pc_bjsmooth_async: M depends on r, use a flexible method
   (`KSPFCG`, `KSPFGMRES`)

   As a smoother (`KSPRICHARDSON`, e.g. `PCMG`/`PCGAMG` levels with -mg_levels_ksp_type richardson -mg_levels_pc_type
   bjsmooth) `PCApplyRichardson()` runs its times -pc_bjsmooth_its outer iterations on the GPU with no host work or
   synchronization per sweep; the Richardson tolerances are not tested (as with `PCSOR`): the given number of
   iterations is always run. With `KSPCHEBYSHEV` levels `PCApply()` is used.

   The host computes the same function as the GPU (in the same order, except the additions inside the block
   reductions of inner cg and of the inner tolerance test), except in asynchronous mode: on the host the blocks are
   visited in order, each seeing all earlier blocks' updates (block Gauss-Seidel); on the GPU which updates a block
   sees depends on the scheduling.

   A row whose diagonal entry is missing, zero, negative or not finite is an error at setup naming the row.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCJACOBI`, `PCBJACOBI`, `PCSOR`, `MATMODSELL`, `PCRUIZ`
M*/
static PetscErrorCode PCCreate_BJSmooth(PC pc)
{
  PC_BJSmooth *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data       = (void *)jac;
  jac->bs        = 0;
  jac->inner     = PCBJSMOOTH_INNER_JACOBI;
  jac->inner_its = 3;
  jac->its       = 1;

  pc->ops->apply           = PCApply_BJSmooth;
  pc->ops->applyrichardson = PCApplyRichardson_BJSmooth;
  pc->ops->setup           = PCSetUp_BJSmooth;
  pc->ops->reset           = PCReset_BJSmooth;
  pc->ops->destroy         = PCDestroy_BJSmooth;
  pc->ops->setfromoptions  = PCSetFromOptions_BJSmooth;
  pc->ops->view            = PCView_BJSmooth;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode PCRegister_BJSmooth_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCBJSMOOTH, PCCreate_BJSmooth));
  PetscCall(PetscLogEventRegister("PCBJSmoothSweep", PC_CLASSID, &PC_BJSmoothSweep));
  PetscCall(PetscLogEventRegister("PCBJSmoothApply", PC_CLASSID, &PC_BJSmoothApply));
  PetscFunctionReturn(PETSC_SUCCESS);
}
