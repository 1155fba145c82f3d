/*
   Host reference of the PCNEUMANN kernels (include/petscmodsell/private/neumannkernels.h): the same arithmetic as
   neumann.cu, row by row in image order (a row's sum: the slots in order); the deflation's subdomain sums in row
   order (the device's atomics add in another order: the two agree to rounding).
*/
#include <petscmodsell/private/neumannkernels.h>
#include <math.h>
#include <string.h>

/* the user column of slot code c of image row s*sh + t (c != 0) */
static inline int NeuCol(const MSImageView *img, int s, int c)
{
  if (c < 0) {
    const int q = s * img->sh + (-c - 1);
    return img->perm ? img->perm[q] : q;
  }
  return MS_CODE_COL(img, c);
}

MS_NEU_DIAG(MSNeuDiag_Reference)
{
  (void)stream;
  if (!img->diag && img->m) return MS_KERNEL_ERR_ARG; /* the image must have the diagonal apart */
  status->badrow = MS_NEU_BAD_NONE;
  status->lnorm  = 0;
  for (int r = 0; r < img->m; r++) {
    const int    o = img->perm ? img->perm[r] : r;
    const double d = img->diag[r];

    if (d > 0.0 && isfinite(d)) dinv[o] = 1.0 / d;
    else {
      dinv[o] = 0.0;
      if ((unsigned long long)o < status->badrow) status->badrow = (unsigned long long)o;
    }
  }
  return 0;
}

MS_NEU_LNORM(MSNeuLNorm_Reference)
{
  const int sh = img->sh, m = img->m;

  (void)stream;
  if (sh <= 0) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const long long beg = img->sliceptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), nr = sh < m - s * sh ? sh : m - s * sh;

    for (int t = 0; t < nr; t++) {
      const int          r = s * sh + t, o = img->perm ? img->perm[r] : r;
      double             sum = 0.0, v;
      unsigned long long bits;

      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];
        int             col;

        if (!c) continue;
        col = NeuCol(img, s, c);
        if (col < o) sum += fabs(img->vals[slot]) * sqrt(dinv[col]);
      }
      v = sum * sqrt(dinv[o]);
      memcpy(&bits, &v, sizeof(bits));
      if (v != 0.0 && bits > status->lnorm) status->lnorm = bits;
    }
  }
  return 0;
}

/* whether user column col of user row o belongs to part */
static inline int NeuKeep(int part, int col, int o)
{
  return part == MS_PART_LOWER ? col < o : col > o;
}

MS_NEU_SPLIT_WIDTH(MSNeuSplitWidth_Reference)
{
  const int sh = img->sh, m = img->m;

  (void)stream;
  if (sh <= 0 || (part != MS_PART_LOWER && part != MS_PART_UPPER)) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const long long beg = img->sliceptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), nr = sh < m - s * sh ? sh : m - s * sh;
    int             wmax = 0;

    for (int t = 0; t < nr; t++) {
      const int r = s * sh + t, o = img->perm ? img->perm[r] : r;
      int       cnt = 0;

      for (int k = 0; k < w; k++) {
        const int c = img->cols[beg + (long long)k * sh + t];
        if (c && NeuKeep(part, NeuCol(img, s, c), o)) cnt++;
      }
      if (cnt > wmax) wmax = cnt;
    }
    width[s] = wmax;
  }
  return 0;
}

MS_NEU_SPLIT_FILL(MSNeuSplitFill_Reference)
{
  const int sh = img->sh, m = img->m;

  (void)stream;
  if (sh <= 0 || sh != S->sh || img->nslices != S->nslices || (part != MS_PART_LOWER && part != MS_PART_UPPER)) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const long long beg = img->sliceptr[s], sbeg = S->ptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), sw = (int)((S->ptr[s + 1] - sbeg) / sh);

    for (int t = 0; t < sh; t++) {
      const int r = s * sh + t, valid = r < m, o = valid ? (img->perm ? img->perm[r] : r) : 0;
      int       n = 0;

      for (int k = 0; valid && k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];
        int             col;

        if (!c) continue;
        col = NeuCol(img, s, c);
        if (!NeuKeep(part, col, o)) continue;
        if (n >= sw) return MS_KERNEL_ERR_ARG; /* the widths do not match the image */
        S->cols[sbeg + (long long)n * sh + t] = col;
        S->vals[sbeg + (long long)n * sh + t] = dinv[o] * img->vals[slot];
        n++;
      }
      for (; n < sw; n++) {
        S->cols[sbeg + (long long)n * sh + t] = o;
        S->vals[sbeg + (long long)n * sh + t] = 0.0;
      }
    }
  }
  return 0;
}

MS_NEU_TRI(MSNeuTri_Reference)
{
  const int sh = S->sh, m = S->m;

  (void)stream;
  if (sh <= 0 || x == y) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < S->nslices; s++) {
    const long long beg = S->ptr[s];
    const int       w = (int)((S->ptr[s + 1] - beg) / sh), nr = sh < m - s * sh ? sh : m - s * sh;

    for (int t = 0; t < nr; t++) {
      const int r = s * sh + t, o = S->perm ? S->perm[r] : r;
      double    sum = 0.0;

      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       col  = S->cols[slot];

        sum += S->vals[slot] * (scale_x ? dinv[col] * x[col] : x[col]);
      }
      y[o] = (scale_b ? dinv[o] * b[o] : b[o]) - sum;
    }
  }
  return 0;
}

MS_NEU_RESTRICT(MSNeuRestrict_Reference)
{
  (void)stream;
  for (int j = 0; j < nsub; j++) out[j] = 0.0;
  for (int o = 0; o < m; o++) {
    if (sub[o] < 0 || sub[o] >= nsub) return MS_KERNEL_ERR_ARG;
    out[sub[o]] += b ? a[o] - (w ? w[o] * b[o] : b[o]) : a[o];
  }
  for (int e = 0; b && e < nx; e++) {
    if (xsub[e] < 0 || xsub[e] >= nsub || xrow[e] < 0 || xrow[e] >= m) return MS_KERNEL_ERR_ARG;
    out[xsub[e]] -= xval[e] * b[xrow[e]];
  }
  return 0;
}

MS_NEU_COARSE(MSNeuCoarse_Reference)
{
  (void)stream;
  for (int i = 0; i < nl; i++) {
    double sum = 0.0;
    for (int j = 0; j < nt; j++) sum += Einv[(long long)i * nt + j] * g[j];
    c[i] = sum;
  }
  return 0;
}

MS_NEU_PROLONG(MSNeuProlong_Reference)
{
  (void)stream;
  for (int o = 0; o < m; o++) z[o] = y[o] + c[sub[o]];
  return 0;
}

MS_NEU_SCALE(MSNeuScale_Reference)
{
  (void)stream;
  for (int o = 0; o < m; o++) y[o] = dinv[o] * x[o];
  return 0;
}

const MSNeuKernels MSNeuKernels_Reference = {"reference", MSNeuDiag_Reference, MSNeuLNorm_Reference, MSNeuSplitWidth_Reference, MSNeuSplitFill_Reference, MSNeuTri_Reference, MSNeuRestrict_Reference, MSNeuCoarse_Reference, MSNeuProlong_Reference, MSNeuScale_Reference};
