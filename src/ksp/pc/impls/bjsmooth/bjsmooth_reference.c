/*
   Host reference of the PCBJSMOOTH kernels (include/petscmodsell/private/bjsmoothkernels.h): the same arithmetic,
   in the same order, as bjsmooth.cu (block reductions excepted; in asynchronous mode the host visits the blocks in
   order, each seeing all earlier blocks' updates: block Gauss-Seidel).
*/
#include <petscmodsell/private/bjsmoothkernels.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* one block's work arrays */
typedef struct {
  const MSImageView *img;
  int                sh, nloc, inner_its, inner, shared;
  double             rtol;
  const double      *cheb; /* inner Chebyshev's table */
  double            *xs, *rl, *y, *s, *p, *q, *d, *lv; /* sh each (lv: nloc*sh) */
  int               *lc;                               /* nloc*sh: in-slice neighbour of the j-th local entry of row t */
  int               *nnb;                              /* sh: local entries per row */
} BJSBlock;

static int BJSBlockCreate(BJSBlock *h, const MSImageView *img, int inner, int inner_its, double rtol, const double *cheb, int nloc, int shared)
{
  const size_t sh = (size_t)img->sh, nl = (size_t)(nloc > 0 ? nloc : 1);

  h->img       = img;
  h->sh        = img->sh;
  h->nloc      = nloc;
  h->inner     = inner;
  h->inner_its = inner_its;
  h->rtol      = rtol;
  h->cheb      = cheb;
  h->shared    = shared;
  h->xs        = (double *)malloc(sizeof(double) * (7 * sh + nl * sh));
  h->lc        = (int *)malloc(sizeof(int) * (nl * sh + sh));
  if (!h->xs || !h->lc) {
    free(h->xs);
    free(h->lc);
    return MS_KERNEL_ERR_MEM;
  }
  h->rl  = h->xs + sh;
  h->y   = h->xs + 2 * sh;
  h->s   = h->xs + 3 * sh;
  h->p   = h->xs + 4 * sh;
  h->q   = h->xs + 5 * sh;
  h->d   = h->xs + 6 * sh;
  h->lv  = h->xs + 7 * sh;
  h->nnb = h->lc + nl * sh;
  return 0;
}

static void BJSBlockDestroy(BJSBlock *h)
{
  free(h->xs);
  free(h->lc);
}

/* sum of the in-slice off-diagonal entries of row t of slice s times v (the window of the slice) */
static inline double BJSLocalOff(const BJSBlock *h, int s, int t, const double *v)
{
  double sum = 0.0;

  if (h->shared) {
    for (int j = 0; j < h->nnb[t]; j++) sum += h->lv[j * h->sh + t] * v[h->lc[j * h->sh + t]];
  } else {
    const MSImageView *img = h->img;
    const long long    beg = img->sliceptr[s];
    const int          w   = (int)((img->sliceptr[s + 1] - beg) / h->sh);

    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * h->sh + t;
      const int       c    = img->cols[slot];
      if (c < 0) sum += img->vals[slot] * v[-c - 1];
    }
  }
  return sum;
}

/* the squared residual norm of the local system at y (rows 0..nr-1) */
static double BJSLocalResidual2(const BJSBlock *h, int s, int nr)
{
  double nrm = 0.0;

  for (int t = 0; t < nr; t++) {
    const double res = (h->rl[t] - BJSLocalOff(h, s, t, h->y)) - h->d[t] * h->y[t];
    nrm += res * res;
  }
  return nrm;
}

static void BJSGSPass(BJSBlock *h, int s, int nr, int backward)
{
  const int ng = (h->sh + MS_BJS_WARP - 1) / MS_BJS_WARP;

  for (int gg = 0; gg < ng; gg++) {
    const int g = backward ? ng - 1 - gg : gg, t0 = g * MS_BJS_WARP, t1 = t0 + MS_BJS_WARP < nr ? t0 + MS_BJS_WARP : nr;
    for (int t = t0; t < t1; t++) h->s[t] = BJSLocalOff(h, s, t, h->y); /* Jacobi inside a warp */
    for (int t = t0; t < t1; t++) h->y[t] = (h->rl[t] - h->s[t]) * (1.0 / h->d[t]);
  }
}

/* the inner tolerance test of Jacobi and Chebyshev: ||rl - A_ll y||^2 <= tol2, with h->s the in-slice sums at y */
static int BJSConverged(const BJSBlock *h, int nr, double tol2)
{
  double nrm = 0.0;

  for (int t = 0; t < nr; t++) {
    const double res = (h->rl[t] - h->s[t]) - h->d[t] * h->y[t];
    nrm += res * res;
  }
  return nrm <= tol2;
}

/* inner solve of A_ll y = rl from y = 0 */
static void BJSInner(BJSBlock *h, int s, int nr)
{
  double rr0 = 0.0, tol2;

  for (int t = 0; t < nr; t++) {
    h->y[t] = 0.0;
    rr0 += h->rl[t] * h->rl[t];
  }
  tol2 = h->rtol * h->rtol * rr0;
  switch (h->inner) {
  case MS_BJS_INNER_JACOBI:
    for (int it = 0; it < h->inner_its; it++) {
      for (int t = 0; t < nr; t++) h->s[t] = BJSLocalOff(h, s, t, h->y);
      if (h->rtol > 0.0 && BJSConverged(h, nr, tol2)) break;
      for (int t = 0; t < nr; t++) h->y[t] = (h->rl[t] - h->s[t]) * (1.0 / h->d[t]);
    }
    break;
  case MS_BJS_INNER_CHEBY: { /* h->p holds y_{j-1} (bjsmoothkernels.h, MSBJSChebTable()) */
    int done = 0;

    for (int t = 0; t < nr; t++) h->p[t] = 0.0;
    for (int it = 0; it < h->inner_its; it++) {
      const double w = h->cheb[3 * it], g = h->cheb[3 * it + 1];

      for (int t = 0; t < nr; t++) h->s[t] = BJSLocalOff(h, s, t, h->y);
      if (h->rtol > 0.0 && BJSConverged(h, nr, tol2)) break;
      for (int t = 0; t < nr; t++) {
        const double r = (h->rl[t] - h->s[t]) * (1.0 / h->d[t]) - h->y[t], yp = h->p[t];
        h->p[t]        = h->y[t];
        h->y[t]        = w * (g * r + h->y[t] - yp) + yp;
      }
      done = it + 1;
    }
    if (done) {
      const double sc = h->cheb[3 * (done - 1) + 2];
      for (int t = 0; t < nr; t++) h->y[t] *= sc;
    }
  } break;
  case MS_BJS_INNER_GS:
  case MS_BJS_INNER_SGS:
    for (int it = 0; it < h->inner_its; it++) {
      BJSGSPass(h, s, nr, 0);
      if (h->inner == MS_BJS_INNER_SGS) BJSGSPass(h, s, nr, 1);
      if (h->rtol > 0.0 && BJSLocalResidual2(h, s, nr) <= tol2) break;
    }
    break;
  default: { /* CG; h->s holds the residual */
    double rr = rr0;
    for (int t = 0; t < nr; t++) {
      h->p[t] = h->rl[t];
      h->s[t] = h->rl[t];
    }
    for (int it = 0; it < h->inner_its; it++) {
      double pq = 0.0, rrn = 0.0, alpha, beta;

      if (rr == 0.0 || (h->rtol > 0.0 && rr <= tol2)) break;
      for (int t = 0; t < nr; t++) {
        h->q[t] = h->d[t] * h->p[t] + BJSLocalOff(h, s, t, h->p);
        pq += h->p[t] * h->q[t];
      }
      if (!(pq > 0.0)) break;
      alpha = rr / pq;
      for (int t = 0; t < nr; t++) {
        h->y[t] += alpha * h->p[t];
        h->s[t] -= alpha * h->q[t];
        rrn += h->s[t] * h->s[t];
      }
      beta = rrn / rr;
      rr   = rrn;
      for (int t = 0; t < nr; t++) h->p[t] = h->s[t] + beta * h->p[t];
    }
  }
  }
}

MS_BJS_SWEEP(MSBJSSweep_Reference)
{
  const int sh = img->sh, m = img->m;
  BJSBlock  h;
  int       err;

  (void)smem;
  (void)async; /* in place (xin == xout): the slices are visited in order */
  (void)pb;    /* data movement of the CUDA version only */
  (void)work;
  (void)stream;
  if ((err = BJSBlockCreate(&h, img, inner, inner_its, inner_rtol, cheb, nloc, use_shared))) return err;
  for (int s = 0; s < img->nslices; s++) {
    const int       first = s * sh, nr = sh < m - first ? sh : m - first;
    const long long beg   = img->sliceptr[s];
    const int       w     = (int)((img->sliceptr[s + 1] - beg) / sh);

    for (int t = 0; t < nr; t++) {
      const int o = img->perm ? img->perm[first + t] : first + t;
      h.xs[t]     = zero ? 0.0 : xin[o];
    }
    for (int t = 0; t < nr; t++) {
      const int o   = img->perm ? img->perm[first + t] : first + t;
      double    acc = b[o];
      int       nn  = 0;

      h.d[t] = img->diag[first + t];
      if (offp) acc -= offp[o];
      if (!zero) acc -= h.d[t] * h.xs[t];
      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];
        const double    v    = img->vals[slot];
        if (c < 0) {
          if (h.shared) {
            h.lc[nn * sh + t] = -c - 1;
            h.lv[nn * sh + t] = v;
          }
          nn++;
          if (!zero) acc -= v * h.xs[-c - 1];
        } else if (c > 0 && !zero) acc -= v * xin[MS_CODE_COL(img, c)];
      }
      h.nnb[t] = nn;
      h.rl[t]  = acc;
    }
    BJSInner(&h, s, nr);
    for (int t = 0; t < nr; t++) {
      const int o = img->perm ? img->perm[first + t] : first + t;
      xout[o]     = h.xs[t] + h.y[t];
    }
  }
  BJSBlockDestroy(&h);
  return 0;
}

MS_BJS_ZERO_JACOBI(MSBJSZeroJacobi_Reference)
{
  const int sh = img->sh, m = img->m;
  double   *y, *win, *rl, *dd;

  (void)pb; /* data movement of the CUDA version only */
  (void)work;
  (void)stream;
  if (m <= 0) return 0;
  if (nloc < 1 || nloc > MS_PATTERN_MAXLOC) return MS_KERNEL_ERR_ARG;
  y = (double *)malloc(sizeof(double) * 4 * (size_t)sh);
  if (!y) return MS_KERNEL_ERR_MEM;
  win = y + sh;
  rl  = y + 2 * sh;
  dd  = y + 3 * sh; /* Chebyshev: y_{j-1} */
  for (int s = 0; s < img->nslices; s++) {
    const int first = s * sh, nr = sh < m - first ? sh : m - first;

    for (int t = 0; t < nr; t++) {
      const int o = img->perm ? img->perm[first + t] : first + t;
      rl[t]       = b[o];
      if (offp) rl[t] -= offp[o];
      /* the first sweep from y = 0 has no in-slice sum */
      dd[t] = 0.0; /* y_{-1}, then y_{j-1} */
      if (cheb) y[t] = inner_its > 0 ? cheb[0] * (cheb[1] * (rl[t] * dinv[first + t]) + 0.0 - 0.0) + 0.0 : 0.0;
      else y[t] = inner_its > 0 ? rl[t] * dinv[first + t] : 0.0;
    }
    for (int it = 1; it < inner_its; it++) {
      for (int t = 0; t < nr; t++) win[t] = y[t];
      for (int t = 0; t < nr; t++) {
        const int r  = first + t;
        double    sm = 0.0;
        for (int j = 0; j < nloc; j++) {
          const int q = lc[(size_t)j * m + r];
          if (q >= 0) sm += lv[(size_t)j * m + r] * win[q];
        }
        if (cheb) {
          y[t]  = cheb[3 * it] * (cheb[3 * it + 1] * ((rl[t] - sm) * dinv[r] - win[t]) + win[t] - dd[t]) + dd[t];
          dd[t] = win[t];
        } else y[t] = (rl[t] - sm) * dinv[r];
      }
    }
    if (cheb && inner_its > 0) {
      const double sc = cheb[3 * (inner_its - 1) + 2];
      for (int t = 0; t < nr; t++) y[t] *= sc;
    }
    for (int t = 0; t < nr; t++) xout[img->perm ? img->perm[first + t] : first + t] = y[t];
  }
  free(y);
  return 0;
}

MS_BJS_ANALYZE(MSBJSAnalyze_Reference)
{
  double gersh = 0.0;

  (void)stream;
  status->maxloc = 0;
  status->badrow = status->badval = MS_BJS_BAD_NONE;
  for (int r = 0; r < img->m; r++) {
    const int          s = r / img->sh, t = r - s * img->sh, o = img->perm ? img->perm[r] : r;
    const long long    beg = img->sliceptr[s];
    const int          w   = (int)((img->sliceptr[s + 1] - beg) / img->sh);
    unsigned long long nn  = 0;
    int                fin = img->diag ? isfinite(img->diag[r]) : 1;

    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * img->sh + t;
      if (img->cols[slot] < 0) nn++;
      if (!isfinite(img->vals[slot])) fin = 0;
    }
    if (nn > status->maxloc) status->maxloc = nn;
    if (img->diag && img->diag[r] > 0.0 && isfinite(img->diag[r])) {
      double g = 0.0;
      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * img->sh + t;
        if (img->cols[slot] < 0) g += fabs(img->vals[slot]);
      }
      g /= img->diag[r];
      if (g > gersh) gersh = g;
    }
    if (img->diag && !(img->diag[r] > 0.0) && (unsigned long long)o < status->badrow) status->badrow = (unsigned long long)o;
    if (!fin && (unsigned long long)o < status->badval) status->badval = (unsigned long long)o;
  }
  if (!isfinite(gersh)) gersh = 0.0; /* a non-finite value: reported as badval */
  memcpy(&status->gersh, &gersh, sizeof(gersh));
  return 0;
}

/* Each sampled slice's in-slice entries first gathered row by row (the nonzero ones, with their column), so that the
   transpose of an entry is looked for among the entries of one row, not in all the slots of its slice (the CUDA kernel
   scans the slots: the same entries, the same result) */
MS_BJS_SYMMETRY(MSBJSSymmetry_Reference)
{
  int    *lq = NULL, *cnt = NULL, cap = 0;
  double *lv = NULL;

  (void)stream;
  memset(out, 0, sizeof(*out));
  out->firstrow = MS_BJS_BAD_NONE;
  if (stride < 1) return MS_KERNEL_ERR_ARG;
  if (!img->local_cols || !img->diag) return 0;
  for (int s = 0; s < img->nslices; s += stride) {
    const int       sh  = img->sh;
    const long long beg = img->sliceptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), nr = img->m - s * sh < sh ? img->m - s * sh : sh;

    if (w > cap) { /* row t's entries at t*w .. t*w + cnt[t] - 1 */
      free(lq);
      free(lv);
      free(cnt);
      cap = w;
      lq  = (int *)malloc(sizeof(int) * (size_t)sh * (size_t)cap);
      lv  = (double *)malloc(sizeof(double) * (size_t)sh * (size_t)cap);
      cnt = (int *)malloc(sizeof(int) * (size_t)sh);
      if (!lq || !lv || !cnt) {
        free(lq);
        free(lv);
        free(cnt);
        return MS_KERNEL_ERR_MEM;
      }
    }
    for (int t = 0; t < nr; t++) {
      cnt[t] = 0;
      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];

        if (c < 0 && img->vals[slot] != 0.0) {
          lq[t * w + cnt[t]] = -c - 1;
          lv[t * w + cnt[t]] = img->vals[slot];
          cnt[t]++;
        }
      }
    }
    for (int t = 0; t < nr; t++) {
      const int r = s * sh + t;

      for (int j = 0; j < cnt[t]; j++) {
        const int q = lq[t * w + j];
        double    u = 0.0;
        int       f;

        for (int i = 0; i < cnt[q]; i++)
          if (lq[q * w + i] == t) u = lv[q * w + i];
        f = MSBJSSymmetryTest(lv[t * w + j], u, img->diag[r], cnt[q] > 0);
        out->nchecked++;
        if (f == 2) out->ndecoupled++;
        else if (f == 1) {
          const unsigned long long o = (unsigned long long)(img->perm ? img->perm[r] : r);

          out->nasym++;
          if (o < out->firstrow) out->firstrow = o;
        }
      }
    }
  }
  free(lq);
  free(lv);
  free(cnt);
  return 0;
}

MS_BJS_CONFIGURE(MSBJSConfigure_Reference)
{
  const size_t base = ((size_t)sh + MS_BJS_RED) * sizeof(double);

  (void)inner;
  *smem_needed = base + (size_t)nloc * sh * (sizeof(double) + sizeof(int));
  *smem_optin  = 0;
  *use_shared  = !force_global;
  *smem        = *use_shared ? *smem_needed : base;
  return 0;
}

const MSBJSKernels MSBJSKernels_Reference = {"reference", MSBJSAnalyze_Reference, MSBJSSymmetry_Reference, MSBJSConfigure_Reference, MSBJSSweep_Reference, MSBJSZeroJacobi_Reference, 0};
