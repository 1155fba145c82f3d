/*
   Host reference kernels of PCBRBILU (see include/petscmodsell/private/brbilukernels.h for the storage and the
   functions): the colour phases in order and, inside a phase, the blocks one after the other (on the GPU they run
   at once: blocks of one colour are independent). Plain C on raw pointers.
*/
#include <petscmodsell/private/brbilukernels.h>
#include <stdlib.h>

MS_BRB_MULTIPROCESSORS(MSBRBMultiprocessors_Reference)
{
  *nsm = 132; /* an H100 SXM: a host setup picks the blocks the GPU setup picks there */
  return 0;
}

MS_BRB_FACTOR(MSBRBFactor_Reference)
{
  const long long ns = lay->roff[lay->ncolors];

  (void)stream;
  status->badrow = MS_BRB_BAD_NONE;
  for (long long s = 0; s < ns; s++)
    if (lay->sperm[s] >= 0) MSBRBGatherRow(lay, s, map, dmap, csrvals, pertfac, work, d);
  for (int c = 0; c < lay->ncolors; c++)
    for (int j = 0; j < lay->nb[c]; j++) {
      const int len = lay->blen[lay->boff[c] + j];
      for (int t = 0; t < len; t++) {
        const long long s = lay->roff[c] + (long long)t * lay->nb[c] + j;
        if (MSBRBFactorRow(lay, s, dmap, csrvals, alpha, pivtol, work, d)) {
          const unsigned long long o = (unsigned long long)lay->sperm[s];
          if (o < status->badrow) status->badrow = o;
        }
      }
    }
  return 0;
}

/* row j's lower slot holding column i (-1: none) */
static long long MSBRBFindLower(const MSBRBLayout *lay, long long j, long long i)
{
  long long j0;
  int       js, jw;

  MSBRBRow(lay, j, &j0, &js, &jw);
  for (int k = 0; k < lay->nl[j]; k++)
    if (lay->col[j0 + (long long)k * js] == (int)i) return j0 + (long long)k * js;
  return -1;
}

MS_BRB_CONVERT(MSBRBConvert_Reference)
{
  const long long ns = lay->roff[lay->ncolors];

  (void)stream;
  for (long long s = 0; s < ns; s++) {
    long long slot0;
    int       stride, w;
    double    di;

    if (lay->sperm[s] < 0) continue;
    di = 1.0 / d[s];
    MSBRBRow(lay, s, &slot0, &stride, &w);
    for (int k = 0; k < w; k++) {
      const long long slot = slot0 + (long long)k * stride;
      const int       c    = lay->col[slot];
      double          v;

      if (c < 0) v = 0.0;
      else if (k < lay->nl[s]) v = work[slot];
      else if (symmetric) {
        const long long lo = MSBRBFindLower(lay, c, s);
        v                  = lo >= 0 ? work[lo] : 0.0;
      } else v = work[slot] * di;
      if (single) ((float *)fvals)[slot] = (float)v;
      else ((double *)fvals)[slot] = v;
    }
    if (single) ((float *)fdinv)[s] = (float)di;
    else ((double *)fdinv)[s] = di;
  }
  return 0;
}

#define MS_BRB_SWEEPS(T) \
  do { \
    const T *v = (const T *)fvals, *dv = (const T *)fdinv; \
    for (int c = 0; c < lay->ncolors; c++) \
      for (int j = 0; j < lay->nb[c]; j++) { \
        const int len = lay->blen[lay->boff[c] + j]; \
        for (int t = 0; t < len; t++) { \
          const long long s = lay->roff[c] + (long long)t * lay->nb[c] + j; \
          const long long base = lay->soff[c] + (long long)t * lay->W[c] * lay->nb[c] + j; \
          const int       nl = lay->nl[s], st = lay->nb[c]; \
          double          acc = b[lay->sperm[s]]; \
          for (int k = 0; k < nl; k++) acc -= (double)v[base + (long long)k * st] * y[lay->col[base + (long long)k * st]]; \
          y[s] = acc; \
        } \
      } \
    for (int c = lay->ncolors - 1; c >= 0; c--) \
      for (int j = 0; j < lay->nb[c]; j++) { \
        const int len = lay->blen[lay->boff[c] + j]; \
        for (int t = len - 1; t >= 0; t--) { \
          const long long s = lay->roff[c] + (long long)t * lay->nb[c] + j; \
          const long long base = lay->soff[c] + (long long)t * lay->W[c] * lay->nb[c] + j; \
          const int       W = lay->W[c], st = lay->nb[c]; \
          double          acc = (double)dv[s] * y[s]; \
          for (int k = lay->nl[s]; k < W; k++) { \
            const int cc = lay->col[base + (long long)k * st]; \
            if (cc < 0) break; \
            acc -= (double)v[base + (long long)k * st] * y[cc]; \
          } \
          y[s]             = acc; \
          x[lay->sperm[s]] = acc; \
        } \
      } \
  } while (0)

MS_BRB_APPLY(MSBRBApply_Reference)
{
  (void)stream;
  if (single) MS_BRB_SWEEPS(float);
  else MS_BRB_SWEEPS(double);
  return 0;
}

const MSBRBKernels MSBRBKernels_Reference = {"reference", MSBRBMultiprocessors_Reference, MSBRBFactor_Reference, MSBRBConvert_Reference, MSBRBApply_Reference};
