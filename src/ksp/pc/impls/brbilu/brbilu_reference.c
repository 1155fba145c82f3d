/*
   Host reference kernels of PCBRBILU (see include/petscmodsell/private/brbilukernels.h for the storage and the
   functions): the levels one after the other (levels are numbered colour by colour, block by block, so that every
   row comes after the rows it depends on), in order (forward, factorization) or in reverse (backward); each row's
   operations are the same as on the GPU (where the blocks of a colour and the rows of a level run at once), so the
   function is the same. The rows of one level are run in the order opposite to the logical one (forward and
   factorization: last row first; backward: first row first), the order in which a dependency between two rows of
   one level, which the GPU's lanes would race on, changes the result: the tests against PETSc's ILU(0) catch it.
   The layout (MS_BRB_GRID_PERM, MS_BRB_LEVELS, MS_BRB_STORAGE) is what the host setup ran before the GPU got its own
   (brbilu_layout.cu), on one thread: one pass over the CSR and a counting sort per block.
   Plain C on raw pointers.
*/
#include <petscmodsell/private/brbilukernels.h>
#include <stdlib.h>
#include <string.h>

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
  status->minkey = MS_BRB_BAD_NONE;
  for (long long s = 0; s < ns; s++) MSBRBGatherRow(lay, s, map, dmap, csrvals, pertfac, work, d);
  for (int g = 0; g < lay->lstart[lay->boff[lay->ncolors]]; g++)
    for (long long s = lay->lptr[g + 1] - 1; s >= lay->lptr[g]; s--) {
      double                   r;
      const int                bad = MSBRBFactorRow(lay, s, dmap, csrvals, alpha, pivtol, work, d, &r);
      const unsigned long long key = MSBRBRatioKey(r);

      if (key < status->minkey) status->minkey = key;
      if (bad) {
        const unsigned long long o = (unsigned long long)lay->sperm[s];
        if (o < status->badrow) status->badrow = o;
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

MS_BRB_GRID_PERM(MSBRBGridPerm_Reference)
{
  (void)stream;
  for (int b = 0; b < lay->boff[lay->ncolors]; b++) {
    const int r0 = lay->rstart[b], R = lay->rstart[b + 1] - r0;
    int       lo[3], hi[3];

    MSBRBGridBrick(grid, bid[b], lo, hi);
    for (int t = 0; t < R; t++) perm[r0 + t] = MSBRBGridRowAt(grid, lo, hi, t);
  }
  return 0;
}

/* what the level pass sums */
typedef struct {
  unsigned long long ffi, nlower, nupper;
  int                bad;
} MSBRBSums;

/* The level pass for row o at logical position p of the block of positions r0 .. r1-1, whose colour holds the
   positions rc0 .. rc1-1 (arrays by position): its level is pulled from its earlier coupled rows of the block (final:
   they came before it) and pushed to its later ones; nu[p] its upper count. Returns the number of off-diagonal entries,
   the level in *lp. Without branches: the outcome of each test changes from entry to entry (block faces, colours);
   lev[] and nu[] are initialised, so the loads whose values are masked read defined values.
   The flops need the upper count of each lower row. natural = 0: the rows are visited in logical order, every lower
   row is done. natural = 1 (a grid ordering visited in the rows' own order): a lower row cc > o of another block is
   not done yet; its share is deferred: counted in nu[q] until that row comes (nu[] of a row not done yet holds the
   count of the rows waiting for it), which then adds 2 nu x that count. */
static inline int MSBRBLevelRow(int o, int p, int r0, int r1, long long rc0, long long rc1, int natural, const int *ai, const int *aj, const int *pos, int *lev, int *nu, int *tq, int *td, MSBRBSums *sum, int *lp)
{
  const int          e1 = ai[o + 1], wait = nu[p];
  int                nlo = 0, nup = 0, nin = 0, nd = 0, l = lev[p], bad = 0;
  unsigned long long ffi = 0;

  for (int e = ai[o]; e < e1; e++) {
    const int cc = aj[e], q = pos[cc];
    const int lo = q < p, up = q > p, in = (unsigned)(q - r0) < (unsigned)(r1 - r0), dn = natural ? cc < o : 1;
    const int pl = (lev[q] + 1) & -(lo & in); /* pulled from an earlier row of the block */

    l = pl > l ? pl : l;
    ffi += (unsigned long long)(lo & dn) * (1 + 2 * (unsigned long long)nu[q]) + (unsigned long long)(lo & !dn); /* a division, a multiply-add per upper entry of that row */
    td[nd] = q; /* a lower row not done: deferred */
    nd += lo & !dn;
    nlo += lo;
    nup += up;
    tq[nin] = q; /* a later row of the block: pushed below */
    nin += in & up;
    bad |= !in & ((unsigned long long)(q - rc0) < (unsigned long long)(rc1 - rc0)); /* two blocks of one colour coupled */
  }
  lev[p] = l;
  for (int t = 0; t < nin; t++) lev[tq[t]] = lev[tq[t]] > l + 1 ? lev[tq[t]] : l + 1;
  for (int t = 0; t < nd; t++) nu[td[t]]++;
  ffi += 2 * (unsigned long long)nup * (unsigned long long)wait;
  nu[p] = nup;
  sum->ffi += ffi;
  sum->nlower += (unsigned long long)nlo;
  sum->nupper += (unsigned long long)nup;
  sum->bad |= bad;
  *lp = l;
  return nlo + nup;
}

/* On one host thread, one pass over the CSR: grid orderings take the rows in their own order, streaming through the
   CSR (inside a brick the logical order is the rows' order, and a level depends only on rows of its brick; the brick
   of (i, j, k) from per-axis tables), graph orderings block by block in logical order. */
MS_BRB_LEVELS(MSBRBLevels_Reference)
{
  const int nc = lay->ncolors, nbk = lay->boff[nc], m = (int)lay->roff[nc];
  int       maxrow = 0, nlev = 0, maxl = 0, *tq, *nlevb = lstart;
  MSBRBSums sum = {0, 0, 0, 0};

  (void)stream;
  memset(info, 0, sizeof(*info));
  for (int p = 0; p < m; p++) pos[perm[p]] = p;
  for (int o = 0; o < m; o++) maxrow = ai[o + 1] - ai[o] > maxrow ? ai[o + 1] - ai[o] : maxrow;
  if (m) {
    memset(lev, 0, sizeof(int) * (size_t)m);
    memset(nu, 0, sizeof(int) * (size_t)m);
  }
  for (int b = 0; b <= nbk; b++) nlevb[b] = 0;
  tq = (int *)malloc(2 * sizeof(int) * (size_t)(maxrow + 1));
  if (!tq) return MS_KERNEL_ERR_MEM;
  if (grid) {
    const int *box = grid->box, *nblk = grid->nblk;
    int       *ax, *binv, *bc, o = 0;

    ax = (int *)malloc(sizeof(int) * (size_t)(box[0] + box[1] + box[2] + 3 * nbk + 1));
    if (!ax) {
      free(tq);
      return MS_KERNEL_ERR_MEM;
    }
    binv = ax + box[0] + box[1] + box[2];
    bc   = binv + nbk;
    for (int a = 0, off = 0; a < 3; off += box[a], a++)
      for (int t = 0; t < nblk[a]; t++)
        for (int i = (int)((long long)t * box[a] / nblk[a]); i < (int)((long long)(t + 1) * box[a] / nblk[a]); i++) ax[off + i] = t;
    for (int c = 0; c < nc; c++)
      for (int b = lay->boff[c]; b < lay->boff[c + 1]; b++) {
        binv[bid[b]] = b;
        bc[b]        = c;
      }
    for (int k = 0; k < box[2]; k++)
      for (int j = 0; j < box[1]; j++) {
        const int yz = nblk[0] * (ax[box[0] + j] + nblk[1] * ax[box[0] + box[1] + k]);

        for (int i = 0; i < box[0]; i++, o++) {
          const int b = binv[ax[i] + yz], c = bc[b];
          int       w, lp;

          w          = MSBRBLevelRow(o, pos[o], lay->rstart[b], lay->rstart[b + 1], lay->roff[c], lay->roff[c + 1], 1, ai, aj, pos, lev, nu, tq, tq + maxrow + 1, &sum, &lp);
          info->W[c] = w > info->W[c] ? w : info->W[c];
          nlevb[b]   = lp + 1 > nlevb[b] ? lp + 1 : nlevb[b];
        }
      }
    free(ax);
  } else {
    for (int c = 0; c < nc; c++)
      for (int b = lay->boff[c]; b < lay->boff[c + 1]; b++)
        for (int p = lay->rstart[b]; p < lay->rstart[b + 1]; p++) {
          int w, lp;

          w          = MSBRBLevelRow(perm[p], p, lay->rstart[b], lay->rstart[b + 1], lay->roff[c], lay->roff[c + 1], 0, ai, aj, pos, lev, nu, tq, tq + maxrow + 1, &sum, &lp);
          info->W[c] = w > info->W[c] ? w : info->W[c];
          nlevb[b]   = lp + 1 > nlevb[b] ? lp + 1 : nlevb[b];
        }
  }
  free(tq);
  for (int b = 0; b < nbk; b++) { /* the level counts (in lstart) -> the first level of each block */
    const int L = nlevb[b];

    lstart[b] = nlev;
    nlev += L;
    maxl = L > maxl ? L : maxl;
  }
  lstart[nbk]  = nlev;
  info->nlower = sum.nlower;
  info->nupper = sum.nupper;
  info->ffi    = sum.ffi;
  info->bad    = sum.bad;
  info->nlev   = nlev;
  info->maxl   = maxl;
  return 0;
}

/* per block a counting sort by level (cur[lstart[b] ..]: the counts, then the cursors) */
MS_BRB_STORAGE(MSBRBStorage_Reference)
{
  const int nbk = lay->boff[lay->ncolors];

  (void)stream;
  for (int b = 0; b < nbk; b++) {
    const int r0 = lay->rstart[b], r1 = lay->rstart[b + 1], g0 = lay->lstart[b], L = lay->lstart[b + 1] - g0;
    int      *cnt = cur + g0, run = r0;

    for (int l = 0; l < L; l++) cnt[l] = 0;
    for (int p = r0; p < r1; p++) cnt[lev[p]]++;
    for (int l = 0; l < L; l++) {
      const int t = cnt[l];

      lptr[g0 + l] = run;
      cnt[l]       = run;
      run += t;
    }
    for (int p = r0; p < r1; p++) {
      const int s = cnt[lev[p]]++;

      sperm[s]      = perm[p];
      stor[perm[p]] = s;
    }
  }
  lptr[lay->lstart[nbk]] = (int)lay->roff[lay->ncolors];
  return 0;
}

/* the places of the storage rows in their block's buffer: the CUDA version's function, which the reference's apply
   does not need (its table's tbuf_max is 0); the kernel tests compare the two */
MS_BRB_BUFFER_PLACES(MSBRBBufferPlaces_Reference)
{
  const int box0 = lay->grid.box[0], box1 = lay->grid.box[1];

  (void)stream;
  for (int b = 0; b < lay->boff[lay->ncolors]; b++) {
    int lo[3], hi[3], wx, wy, P, base;

    MSBRBGridBrick(&lay->grid, lay->bid[b], lo, hi);
    wx   = hi[0] - lo[0];
    wy   = hi[1] - lo[1];
    P    = wx + (wx & 1);
    base = lo[0] + box0 * (lo[1] + box1 * lo[2]);
    for (int s = lay->rstart[b]; s < lay->rstart[b + 1]; s++) {
      const int q = lay->sperm[s] - base, ix = q % box0, rr = q / box0, iy = rr % box1, iz = rr / box1;

      tpos[s] = (unsigned short)(ix + P * (iy + wy * iz));
    }
  }
  return 0;
}

/* the blocks of a row o other than its own (b), without repeats, into oth (n of them); the partition's pairs
   (min, max) of the row's entries across blocks are these */
static int MSBRBRowBlocks(int o, const int *ai, const int *aj, const int *blk, int *oth, long long *noff, long long *nin)
{
  const int b = blk[o];
  int       n = 0;

  for (int e = ai[o]; e < ai[o + 1]; e++) {
    const int c = blk[aj[e]];
    int       k = 0;

    if (aj[e] == o) continue;
    (*noff)++;
    if (c == b) {
      (*nin)++;
      continue;
    }
    while (k < n && oth[k] != c) k++;
    if (k == n) oth[n++] = c;
  }
  return n;
}

static int MSBRBKeyCmp(const void *a, const void *b)
{
  const unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return x < y ? -1 : (x > y);
}

MS_BRB_BLOCK_EDGES(MSBRBBlockEdges_Reference)
{
  const long long nb = m > 0 ? (m + (long long)sh - 1) / sh : 0;
  long long       npairs = 0, nu = 0, noff = 0, nin = 0;
  int             maxrow = 0, *oth;
  unsigned long long *pk;

  (void)stream;
  if (m < 0 || sh < 1) return MS_KERNEL_ERR_ARG;
  for (int p = 0; p < m; p++) blk[lperm[p]] = p / sh;
  for (int o = 0; o < m; o++) {
    maxrow = ai[o + 1] - ai[o] > maxrow ? ai[o + 1] - ai[o] : maxrow;
    npairs += ai[o + 1] - ai[o];
  }
  oth = (int *)malloc(sizeof(int) * (size_t)(maxrow + 1));
  pk  = (unsigned long long *)malloc(sizeof(unsigned long long) * (size_t)(npairs + 1));
  if (!oth || !pk) {
    free(oth);
    free(pk);
    return MS_KERNEL_ERR_MEM;
  }
  npairs = 0;
  for (int o = 0; o < m; o++) {
    const int b = blk[o], n = MSBRBRowBlocks(o, ai, aj, blk, oth, &noff, &nin);

    for (int k = 0; k < n; k++) pk[npairs++] = b < oth[k] ? (unsigned long long)b * (unsigned long long)nb + (unsigned long long)oth[k] : (unsigned long long)oth[k] * (unsigned long long)nb + (unsigned long long)b;
  }
  qsort(pk, (size_t)npairs, sizeof(*pk), MSBRBKeyCmp);
  for (long long k = 0; k < npairs; k++) {
    if (k && pk[k] == pk[k - 1]) continue;
    if (nu < cap) keys[nu] = pk[k];
    nu++;
  }
  info->nkeys    = nu;
  info->noff     = noff;
  info->ninblock = nin;
  free(oth);
  free(pk);
  return 0;
}

MS_BRB_GRAPH_PERM(MSBRBGraphPerm_Reference)
{
  (void)stream;
  for (int b = 0; b < lay->boff[lay->ncolors]; b++) {
    const int       r0 = lay->rstart[b], R = lay->rstart[b + 1] - r0;
    const long long q0 = (long long)bid[b] * sh;

    for (int t = 0; t < R; t++) perm[r0 + t] = lperm[q0 + t];
  }
  return 0;
}

MS_BRB_INNER_ORDER(MSBRBInnerOrder_Reference)
{
  const int m = (int)lay->roff[lay->ncolors];
  int      *pos = work, *col = work + m;

  (void)stream;
  for (int p = 0; p < m; p++) pos[perm[p]] = p;
  for (int b = 0; b < lay->boff[lay->ncolors]; b++) MSBRBInnerOrderBlock(lay, b, ai, aj, perm, pos, col, out);
  return 0;
}

const MSBRBKernels MSBRBKernels_Reference = {"reference", 0, MSBRBMultiprocessors_Reference, MSBRBFactor_Reference, MSBRBConvert_Reference, MSBRBApply_Reference, MSBRBSlots_Reference, MSBRBGridPerm_Reference, MSBRBLevels_Reference, MSBRBStorage_Reference, MSBRBBufferPlaces_Reference, MSBRBBlockEdges_Reference, MSBRBGraphPerm_Reference, MSBRBInnerOrder_Reference};
