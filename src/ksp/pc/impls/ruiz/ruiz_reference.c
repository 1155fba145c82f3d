/*
   Host reference of the PCRUIZ kernels (include/petscmodsell/private/ruizkernels.h): the same arithmetic, in the
   same order, as ruiz.cu (row sums: the diagonal, then the slots in order; every product and sum rounded on its
   own, as the device's __dmul_rn/__dadd_rn: build without floating-point contraction on targets with FMA).
*/
#include <petscmodsell/private/ruizkernels.h>
#include <math.h>
#include <string.h>

static inline double RzPw(int p, double v)
{
  return p == MS_RUIZ_P2 ? v * v : v;
}

/* combine an accumulation with a term; for p = infinity a max that propagates NaN */
static inline double RzComb(int p, double acc, double t)
{
  if (p == MS_RUIZ_PINF) return (t > acc || t != t) ? t : acc;
  return acc + t;
}

static inline double RzRoot(int p, double a)
{
  return p == MS_RUIZ_P2 ? sqrt(a) : a;
}

/* the deviation as the bits of a nonnegative double (or NaN): their order is the order of the values */
static inline void RzDev(MSRuizStatus *st, double d)
{
  unsigned long long bits;

  memcpy(&bits, &d, sizeof(bits));
  if (d != 0.0 && bits > st->dev) st->dev = bits;
}

static inline void RzBad(unsigned long long *key, int i, int code)
{
  const unsigned long long k = (unsigned long long)i * 4ULL + (unsigned long long)code;
  if (k < *key) *key = k;
}

MS_RUIZ_ROW_PASS(MSRuizRowPass_Reference)
{
  const int sh = img->sh, m = img->m, diagblock = img->diag_block;

  (void)stream;
  if (sh <= 0) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const int       first_row = s * sh, nr = sh < m - first_row ? sh : m - first_row;
    const long long beg       = img->sliceptr[s];
    const int       w         = (int)((img->sliceptr[s + 1] - beg) / sh);

    for (int t = 0; t < nr; t++) {
      const int r = first_row + t, o = img->perm ? img->perm[r] : r;
      double    acc = acc_in ? acc_in[o] : 0.0, dval = 0.0;

      if (img->diag) {
        const double a = img->diag[r], v = fabs(a);
        dval = a;
        acc  = RzComb(p, acc, RzPw(p, v * (sc ? sc[o] : 1.0)));
        if (colacc) colacc[o] = RzComb(p, colacc[o], RzPw(p, v * (sr ? sr[o] : 1.0)));
      }
      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];
        int             j;
        double          a, v;

        if (!c) continue;
        a = img->vals[slot];
        v = fabs(a);
        if (c < 0) {
          const int q = -c - 1;
          j           = img->perm ? img->perm[first_row + q] : first_row + q;
          if (diagblock && q == t) dval = a;
        } else {
          j = MS_CODE_COL(img, c);
          if (diagblock && j == o) dval = a;
        }
        acc = RzComb(p, acc, RzPw(p, v * (sc ? sc[j] : 1.0)));
        if (colacc) colacc[j] = RzComb(p, colacc[j], RzPw(p, v * (sr ? sr[o] : 1.0)));
      }
      if (acc_out) acc_out[o] = acc;
      else {
        const double sro = sr ? sr[o] : 1.0, n = sro * RzRoot(p, acc);
        sr_new[o]        = sro / sqrt(n);
        if (check) RzDev(status, fabs(1.0 - n));
        if (first) {
          if (!isfinite(n)) RzBad(&status->badrow, o, MS_RUIZ_BAD_NONFINITE);
          else if (n == 0.0) RzBad(&status->badrow, o, MS_RUIZ_BAD_ZERO);
        }
      }
      if (first && checkdiag && diagblock && !(dval > 0.0)) RzBad(&status->badrow, o, MS_RUIZ_BAD_DIAG);
    }
  }
  return 0;
}

MS_RUIZ_COL_PASS(MSRuizColPass_Reference)
{
  (void)stream;
  for (int j = 0; j < n; j++) {
    const double scj = sc ? sc[j] : 1.0, c = scj * RzRoot(p, cacc[j]);
    sc_new[j]        = scj / sqrt(c);
    if (check) RzDev(status, fabs(1.0 - c));
    if (first) {
      if (!isfinite(c)) RzBad(&status->badcol, j, MS_RUIZ_BAD_NONFINITE);
      else if (c == 0.0) RzBad(&status->badcol, j, MS_RUIZ_BAD_ZERO);
    }
  }
  return 0;
}

MS_RUIZ_RESET_STATUS(MSRuizResetStatus_Reference)
{
  (void)stream;
  status->dev = 0;
  if (first) status->badrow = status->badcol = MS_RUIZ_BAD_NONE;
  return 0;
}

MS_RUIZ_POINTWISE(MSRuizPointwise_Reference)
{
  (void)stream;
  if (square)
    for (int i = 0; i < n; i++) y[i] = a[i] * (a[i] * x[i]);
  else
    for (int i = 0; i < n; i++) y[i] = a[i] * x[i];
  return 0;
}

const MSRuizKernels MSRuizKernels_Reference = {"reference", MSRuizRowPass_Reference, MSRuizColPass_Reference, MSRuizResetStatus_Reference, MSRuizPointwise_Reference};
