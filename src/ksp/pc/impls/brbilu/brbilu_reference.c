/*
   Host reference kernels of PCBRBILU (see include/petscmodsell/private/brbilukernels.h for the storage and the
   functions): the levels one after the other (levels are numbered colour by colour, block by block, so that every
   row comes after the rows it depends on), in order (forward, factorization) or in reverse (backward); each row's
   operations are the same as on the GPU (where the blocks of a colour and the rows of a level run at once), so the
   function is the same. The rows of one level are run in the order opposite to the logical one (forward and
   factorization: last row first; backward: first row first), the order in which a dependency between two rows of
   one level, which the GPU's lanes would race on, changes the result: the tests against PETSc's ILU(0) catch it.
   Plain C on raw pointers.
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
  for (long long s = 0; s < ns; s++) MSBRBGatherRow(lay, s, map, dmap, csrvals, pertfac, work, d);
  for (int g = 0; g < lay->lstart[lay->boff[lay->ncolors]]; g++)
    for (long long s = lay->lptr[g + 1] - 1; s >= lay->lptr[g]; s--)
      if (MSBRBFactorRow(lay, s, dmap, csrvals, alpha, pivtol, work, d)) {
        const unsigned long long o = (unsigned long long)lay->sperm[s];
        if (o < status->badrow) status->badrow = o;
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
    const T  *v = (const T *)fvals, *dv = (const T *)fdinv; \
    const int nlev = lay->lstart[lay->boff[lay->ncolors]]; \
    for (int g = 0; g < nlev; g++) \
      for (long long s = lay->lptr[g + 1] - 1; s >= lay->lptr[g]; s--) { \
        long long slot0; \
        int       st, w; \
        const int nl  = lay->nl[s]; \
        double    acc = b[lay->sperm[s]]; \
        MSBRBRow(lay, s, &slot0, &st, &w); \
        for (int k = 0; k < nl; k++) acc -= (double)v[slot0 + (long long)k * st] * y[lay->col[slot0 + (long long)k * st]]; \
        y[s] = acc; \
      } \
    for (int g = nlev - 1; g >= 0; g--) \
      for (long long s = lay->lptr[g]; s < lay->lptr[g + 1]; s++) { \
        long long slot0; \
        int       st, w; \
        double    acc = (double)dv[s] * y[s]; \
        MSBRBRow(lay, s, &slot0, &st, &w); \
        for (int k = lay->nl[s]; k < w; k++) { \
          const int cc = lay->col[slot0 + (long long)k * st]; \
          if (cc < 0) break; \
          acc -= (double)v[slot0 + (long long)k * st] * y[cc]; \
        } \
        y[s]             = acc; \
        x[lay->sperm[s]] = acc; \
      } \
  } while (0)

MS_BRB_APPLY(MSBRBApply_Reference)
{
  (void)stream;
  if (single) MS_BRB_SWEEPS(float);
  else MS_BRB_SWEEPS(double);
  return 0;
}

/* The same arrays as MSBRBSlotsRow() (the GPU's row function, which ranks every entry against the others), built
   block by block with an insertion of each of the row's entries by logical position as it is read: fewer operations on
   the host. The entries' positions are distinct, so both give the same order; the tests comparing the two backends'
   applications compare these arrays. */
MS_BRB_SLOTS(MSBRBSlots_Reference)
{
  int maxw = 0, *tp, *ts, *tk;

  (void)stream;
  for (int c = 0; c < lay->ncolors; c++) maxw = lay->W[c] > maxw ? lay->W[c] : maxw;
  tp = (int *)malloc(3 * sizeof(int) * (size_t)(maxw + 1));
  if (!tp) return MS_KERNEL_ERR_MEM;
  ts = tp + maxw + 1;
  tk = ts + maxw + 1;
  for (int c = 0; c < lay->ncolors; c++) {
    const int W = lay->W[c];

    for (int b = lay->boff[c]; b < lay->boff[c + 1]; b++) {
      const int       r0 = lay->rstart[b], R = lay->rstart[b + 1] - r0;
      const long long base = lay->soff[c] + (long long)(r0 - lay->roff[c]) * W;

      for (int s = r0; s < r0 + R; s++) {
        const int       o = lay->sperm[s], p = pos[o];
        const long long slot0 = base + (s - r0);
        int             w = 0, nlo = 0, dm = -1;

        for (int e = ai[o]; e < ai[o + 1]; e++) {
          const int cc = aj[e];
          int       q, j = w;

          if (cc == o) {
            dm = e;
            continue;
          }
          q = pos[cc];
          nlo += q < p;
          while (j > 0 && tp[j - 1] > q) {
            tp[j] = tp[j - 1];
            ts[j] = ts[j - 1];
            tk[j] = tk[j - 1];
            j--;
          }
          tp[j] = q;
          ts[j] = stor[cc];
          tk[j] = e;
          w++;
        }
        for (int k = 0; k < w; k++) {
          col[slot0 + (long long)k * R] = ts[k];
          map[slot0 + (long long)k * R] = tk[k];
        }
        for (int k = w; k < W; k++) {
          col[slot0 + (long long)k * R] = -1;
          map[slot0 + (long long)k * R] = -1;
        }
        nl[s]   = (unsigned short)nlo;
        dmap[s] = dm;
      }
    }
  }
  free(tp);
  return 0;
}

const MSBRBKernels MSBRBKernels_Reference = {"reference", MSBRBMultiprocessors_Reference, MSBRBFactor_Reference, MSBRBConvert_Reference, MSBRBApply_Reference, MSBRBSlots_Reference};
