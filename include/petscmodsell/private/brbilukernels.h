/*
   Kernels of PCBRBILU, declared once (see mskernels.h for the conventions): the host reference
   (src/ksp/pc/impls/brbilu/brbilu_reference.c) and the CUDA implementation (brbilu.cu) define each signature and
   compute the same function (the same operations in the same order: results agree to the last bit up to the
   compilers' contraction of multiply-adds); the glue (brbilu.c) calls them through MSBRBKernels.

   Storage of the factors (Shioya (2022), section 5.3.3 adapted to one warp per block). The local rows are ordered by the
   block ordering of brbordering.h: colour by colour, in a colour block by block, in a block in its own order (the
   logical order, i.e. the ILU elimination order). Colour c has nb[c] blocks (blocks boff[c] .. boff[c+1]-1); block b
   holds the storage rows rstart[b] .. rstart[b+1]-1 (R_b rows, no padding rows: the storage rows of a block are its
   logical positions, rearranged). Inside a block the rows are stored by level (wavefront): the level of a row is
   1 + the largest level of the rows of its block it is coupled to (either direction) and that come earlier in the
   logical order, 0 if none; rows of one level are independent in the factorization and in both substitutions (forward:
   a row reads only lower levels; backward, levels in reverse: only higher ones). Level g (levels numbered block by
   block: block b has levels lstart[b] .. lstart[b+1]-1) holds the storage rows lptr[g] .. lptr[g+1]-1; inside a level
   the rows keep the logical order. Each row of colour c has W[c] slots; slot k of the p-th storage row of block b is
       soff[c] + (rstart[b] - roff[c]) * W[c] + k * R_b + p        (slot-major inside the block, stride R_b),
   so that the lanes of a warp, one row of a level each, read consecutive addresses at each step. A row's slots hold
   its off-diagonal entries in the logical order of their columns: first nl[s] strictly lower ones (columns eliminated
   before the row), then the upper ones, then padding (col -1). col[slot] is the column as a storage row.

   The preconditioner is M = (I + L) D (I + U~): slot values are l_ik (lower) and u~_ij = u_ij / d_i (upper); dinv[s]
   = 1 / d_s. Symmetric variant (IC-type): the upper slot (i, j) holds l_ji, the same number as the lower slot (j, i),
   so that M = (I + L) D (I + L)^T exactly, in the factor precision.

   Factors are float (single) or double; vectors double.
*/
#pragma once

#include <petscmodsell/private/mskernels.h>
#include <string.h>
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MS_BRB_MAXCOLORS 64   /* colours of a block colouring the kernels accept */
#define MS_BRB_TBUF_MAX  1536 /* the largest buffer of a block (doubles) the GPU's apply takes in shared memory (4 warps a
                                 thread block: 48 KiB); larger bricks take the scattered copies */

#define MS_BRB_ILU   0 /* ILU(0): dropped fill discarded */
#define MS_BRB_MILU  1 /* MILU(0): dropped fill added to the pivot */
#define MS_BRB_RMILU 2 /* relaxed: alpha times the dropped fill */
#define MS_BRB_PMILU 3 /* perturbed: the diagonal times (1 + zeta h^2) first, then MILU */

#define MS_BRB_BAD_NONE (~0ULL)

/* A grid ordering (brbordering.h) as the layout kernels see it: the process's box (x fastest) and its bricks per axis */
typedef struct {
  int box[3], nblk[3];
} MSBRBGrid;

/* the layout (host scalars and the backend's arrays) */
typedef struct {
  int       ncolors;
  int       nb[MS_BRB_MAXCOLORS];       /* blocks of colour c */
  int       W[MS_BRB_MAXCOLORS];        /* slots per row of colour c */
  int       boff[MS_BRB_MAXCOLORS + 1]; /* first block (blocks numbered colour by colour) */
  long long roff[MS_BRB_MAXCOLORS + 1]; /* first storage row of colour c (= rstart[boff[c]]) */
  long long soff[MS_BRB_MAXCOLORS + 1]; /* first slot of colour c: soff[c + 1] = soff[c] + (roff[c + 1] - roff[c]) * W[c] */
  /* backend memory */
  const int            *rstart; /* nblocks + 1: first storage row of each block */
  const int            *lstart; /* nblocks + 1: first level of each block */
  const int            *lptr;   /* levels + 1: first storage row of each level */
  const int            *sperm;  /* storage row -> local user row */
  const int            *col;    /* slot -> column as a storage row (-1: padding) */
  const unsigned short *nl;     /* strictly lower entries of each storage row */
  /* A grid ordering on the GPU (tbuf > 0; else 0): the apply moves a block's right-hand side and solution between the
     user's order and the storage order through a buffer of tbuf doubles per block in shared memory, the user's side
     read and written along the brick's x-lines (MS_BRB_BUFFER_PLACES); the host reference's apply ignores it */
  MSBRBGrid             grid;
  int                   tbuf; /* the largest P wy wz of a brick (wx x wy x wz points, P = wx rounded up to even) */
  const int            *bid;  /* nblocks: the brick of block b (grid.nblk numbering) */
  const unsigned short *tpos; /* storage row s -> its point's place in the block's buffer, ix + P (iy + wy iz) */
} MSBRBLayout;

/* Result of a factorization: the smallest local user row whose pivot failed the test (MS_BRB_BAD_NONE: none) and the
   smallest ratio d_i / a_ii of a pivot to its (unperturbed) diagonal entry as MSBRBRatioKey() orders it (all bits
   set: no row) */
typedef struct {
  unsigned long long badrow;
  unsigned long long minkey;
} MSBRBStatus;

/* a double as an unsigned key of the same order (NaN below everything): keys compare as the doubles do */
static inline unsigned long long MSBRBRatioKey(double r)
{
  unsigned long long b;

  if (r != r) return 0;
  memcpy(&b, &r, sizeof(b));
  return (b >> 63) ? ~b : (b | (1ULL << 63));
}

/* the double of a key (MSBRBRatioKey()'s inverse; 0 gives NaN) */
static inline double MSBRBRatioFromKey(unsigned long long k)
{
  double r;

  if (!k) return (double)NAN;
  k = (k >> 63) ? (k & ~(1ULL << 63)) : ~k;
  memcpy(&r, &k, sizeof(r));
  return r;
}

/* The number of streaming multiprocessors of the current device (the block-count rule of Shioya (2022), section 5.3.4);
   the reference gives 132 (an H100 SXM), so that a host setup picks the blocks an H100 would */
#define MS_BRB_MULTIPROCESSORS(name) int name(int *nsm)

/* Numeric factorization: work[slot] = csrvals[map[slot]] (map -1: padding), d[s] = csrvals[dmap[s]] (-1: a missing
   diagonal, 0) times pertfac (a perturbation or a shift of the diagonal); then, colour by colour (one warp per block
   on the GPU, its levels in order, the rows of a level at once; the reference: storage rows in order), row i of the
   ILU(0) family (Algorithms 6-9 of Shioya (2022), in the row form):
     for each lower entry k of row i in order: l_ik = a_ik / d_k; for each upper entry (k, j) of row k:
        j == i: d_i -= l_ik u_kj;  j an entry of row i: a_ij -= l_ik u_kj;  else drop += l_ik u_kj
     d_i -= alpha * drop
   The pivot test: the ratio d_i / a_ii (a_ii unperturbed) must be finite and above pivtol, i.e. the pivot has the sign
   of its diagonal entry and |d_i| > pivtol |a_ii| (ILU(0) of an M- or H-matrix keeps every pivot's sign; a pivot of
   the other sign makes M indefinite where A is definite, or M^-1 useless: relaxed MILU on a convection-dominated
   operator). A row that fails it is recorded in status (the smallest local user row; the factorization goes on);
   status also gets the smallest ratio. work holds l_ik and u_ij (not yet divided by d_i) afterwards. */
#define MS_BRB_FACTOR(name) \
  int name(const MSBRBLayout *lay, const int *map, const int *dmap, const double *csrvals, double alpha, double pertfac, double pivtol, double *work, double *d, MSBRBStatus *status, void *stream)

/* Factors in their precision from the factorization's output: dinv[s] = 1 / d[s]; lower slots l_ik; upper slots
   u_ij / d_i, or (symmetric) l_ji looked up in row j. single: fvals, fdinv are float, else double. */
#define MS_BRB_CONVERT(name) int name(const MSBRBLayout *lay, int single, int symmetric, const double *work, const double *d, void *fvals, void *fdinv, void *stream)

/* x = M^-1 b, b and x in the user's order (local rows), y: the storage-ordered work vector (roff[ncolors] doubles).
   Forward, colours in order, a block's levels in order: y_s = b[sperm[s]] - sum_lower l y_col; backward, colours in
   reverse, a block's levels in reverse: y_s = dinv_s y_s - sum_upper u~ y_col, x[sperm[s]] = y_s (the sums in slot
   order). One warp per block and colour phase on the GPU, the rows of a level on its lanes; the reference runs the
   storage rows in order (forward) and in reverse (backward), the same function. */
#define MS_BRB_APPLY(name) int name(const MSBRBLayout *lay, int single, const void *fvals, const void *fdinv, const double *b, double *x, double *y, void *stream)

/* The slots of the layout from the CSR structure of the local diagonal block (the last pass of the symbolic setup;
   lay->rstart, lay->sperm are set, lay->col, lay->nl are not read): for every storage row s, o = sperm[s], its
   off-diagonal entries e (aj[e] != o) in the logical order of their columns (pos: local row -> logical position; an
   entry's rank is the number of the row's other off-diagonal entries with a smaller position) go to the slots
   col[slot0 + rank stride] = stor[aj[e]] (stor: local row -> storage row) and map[...] = e, the row's remaining slots are
   padding (-1, -1); nl[s] = the entries with pos < pos[o], dmap[s] = the diagonal entry (-1: none). ai, aj, pos, stor in
   the backend's memory, as int. */
#define MS_BRB_SLOTS(name) int name(const MSBRBLayout *lay, const int *ai, const int *aj, const int *pos, const int *stor, int *col, int *map, unsigned short *nl, int *dmap, void *stream)

/* What the level pass found (MS_BRB_LEVELS), in the backend's memory: the host reads it back in one copy */
typedef struct {
  unsigned long long nlower, nupper;      /* off-diagonal entries whose column comes earlier / later (logical order) */
  unsigned long long ffi;                 /* the factorization's flops but 2 per row: 1 + 2 nu_k per lower entry (i, k) */
  int                W[MS_BRB_MAXCOLORS]; /* the most off-diagonal entries of a row of colour c */
  int                bad;                 /* 1: an entry couples two blocks of one colour */
  int                nlev;                /* levels of all blocks: lstart[nblocks] */
  int                maxl;                /* the most levels of one block */
  int                pad;
} MSBRBLevelInfo;

/* The layout of an ordering (the symbolic setup before the slots), in three steps that the host path and the GPU path
   run alike; both backends give the same arrays, bit for bit. The ordering is given by lay's host fields ncolors,
   nb, boff, roff (colour c holds the logical positions roff[c] .. roff[c+1]-1, m = roff[ncolors]) and lay->rstart
   (backend memory: block b holds the positions rstart[b] .. rstart[b+1]-1), perm (logical position -> local row),
   and for a grid ordering grid and bid (bid[b] = ix + bx (iy + by iz), the brick of block b; backend memory). ai, aj:
   the CSR structure of the local diagonal block (int, backend memory, columns < m); arrays are int. */

/* perm of a grid ordering from its description, as BRBOrderingCreateGrid() makes it: block b's brick (x0..x1-1, y0..,
   z0.., x0 = ix box[0] / nblk[0], ...) lexicographic, x fastest, local row i + box[0] (j + box[1] k) */
#define MS_BRB_GRID_PERM(name) int name(const MSBRBLayout *lay, const MSBRBGrid *grid, const int *bid, int *perm, void *stream)

/* The level pass. Writes pos[perm[p]] = p; lev[p], the level of the row at logical position p: the longest chain of
   rows of its block that ends there, each row coupled to the next (a_ij or a_ji nonzero) and earlier in the logical
   order (0: no earlier coupled row of its block), i.e. the least fixed point of lev[p] = max(0, lev[q] + 1 over the
   coupled q < p of the block); nu[p] the row's upper entries (columns at later positions, any block); lstart[b] the
   first level of block b (levels numbered block by block: an exclusive sum of the blocks' level counts,
   lstart[nblocks] all levels); info. A row's level, counts and flops do not depend on the order rows are visited in
   (the reference walks a grid ordering's rows in their own order, streaming through the CSR; the GPU one warp per
   block). grid, bid: NULL for a graph ordering. */
#define MS_BRB_LEVELS(name) \
  int name(const MSBRBLayout *lay, const MSBRBGrid *grid, const int *bid, const int *ai, const int *aj, const int *perm, int *pos, int *lev, int *nu, int *lstart, MSBRBLevelInfo *info, void *stream)

/* The storage rows (lay->lstart set too): inside each block its rows by level, in logical order inside a level (a
   stable counting sort): lptr[g] the first storage row of level g (lptr[nlev] = m), sperm[s] the local row of storage
   row s, stor its inverse. cur: scratch of at least nlev ints (may be the level pass's nu). */
#define MS_BRB_STORAGE(name) int name(const MSBRBLayout *lay, const int *perm, const int *lev, int *cur, int *lptr, int *sperm, int *stor, void *stream)

/* The places of a grid ordering's storage rows in their block's buffer (lay: rstart, sperm, grid, bid set): the row of
   brick lo .. hi-1 at point (lo[0] + ix, lo[1] + iy, lo[2] + iz) goes to tpos[s] = ix + P (iy + wy iz), wy = hi[1] -
   lo[1], P = hi[0] - lo[0] rounded up to even (between neighbouring storage rows the buffer's stride P - 1 is odd: a
   half-warp's doubles fall in distinct shared-memory banks) */
#define MS_BRB_BUFFER_PLACES(name) int name(const MSBRBLayout *lay, unsigned short *tpos, void *stream)

/* What MS_BRB_BLOCK_EDGES found (backend memory; the host reads it back in one copy) */
typedef struct {
  long long nkeys;    /* edges of the block graph (written: the first min(nkeys, cap)) */
  long long noff;     /* off-diagonal entries of the CSR */
  long long ninblock; /* of those, the ones inside a block */
} MSBRBEdgeInfo;

/* The block graph of a locality partition (the graph ordering, before its colouring): lperm[new] = old (m ints, the
   partition: block b holds the new rows b sh .. min((b + 1) sh, m) - 1, nb = ceil(m / sh) blocks); blk[o] = the block
   of local row o (written, m ints); keys (ascending, without repeats): b nb + c for every pair of blocks b < c joined
   by an off-diagonal entry a_ij (i in one, j in the other, either way round), the first min(nkeys, cap) of them; info
   the counts. A caller that gets nkeys > cap calls again with a larger buffer. ai, aj: the CSR structure (int). */
#define MS_BRB_BLOCK_EDGES(name) int name(int m, const int *ai, const int *aj, const int *lperm, int sh, int *blk, unsigned long long *keys, long long cap, MSBRBEdgeInfo *info, void *stream)

/* perm of a graph ordering (lay: rstart and the host fields set): block b (the blocks numbered colour by colour) is
   block bid[b] of the partition, its rows in the partition's order: perm[rstart[b] + t] = lperm[bid[b] sh + t] */
#define MS_BRB_GRAPH_PERM(name) int name(const MSBRBLayout *lay, const int *lperm, int sh, const int *bid, int *perm, void *stream)

/* The rows of each block of a graph ordering by colours of the block's own graph (the inner ordering "colors"): perm
   (logical position -> local row; lay: rstart and the host fields set) in, out the same rows with every block's rows
   ordered by their colour, a greedy colouring in the order of perm (a row's colour is the smallest one none of the
   earlier rows of the block in its entries has), in the order of perm inside a colour (MSBRBInnerOrderBlock()).
   work: 2 m ints of scratch (positions, colours). A block's levels are then at most its colours. */
#define MS_BRB_INNER_ORDER(name) int name(const MSBRBLayout *lay, const int *ai, const int *aj, const int *perm, int *work, int *out, void *stream)

#if defined(__CUDACC__)
  #define MS_BRB_HD __host__ __device__
#else
  #define MS_BRB_HD
#endif

/* the block of storage row s and its colour */
static inline MS_BRB_HD int MSBRBBlock(const MSBRBLayout *lay, long long s, int *color)
{
  int c = 0, lo, hi;

  while (c + 1 < lay->ncolors && s >= lay->roff[c + 1]) c++;
  lo = lay->boff[c];
  hi = lay->boff[c + 1] - 1; /* the last block b of colour c with rstart[b] <= s */
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (lay->rstart[mid] <= s) lo = mid;
    else hi = mid - 1;
  }
  *color = c;
  return lo;
}

/* the first slot of storage row s, the stride between its slots and their number */
static inline MS_BRB_HD void MSBRBRow(const MSBRBLayout *lay, long long s, long long *slot0, int *stride, int *w)
{
  int       c;
  const int b = MSBRBBlock(lay, s, &c), r0 = lay->rstart[b];

  *slot0  = lay->soff[c] + (long long)(r0 - lay->roff[c]) * lay->W[c] + (s - r0);
  *stride = lay->rstart[b + 1] - r0;
  *w      = lay->W[c];
}

/* the brick of grid block id (bid[]): the points lo[a] .. hi[a]-1 along axis a */
static inline MS_BRB_HD void MSBRBGridBrick(const MSBRBGrid *g, int id, int lo[3], int hi[3])
{
  const int t[3] = {id % g->nblk[0], (id / g->nblk[0]) % g->nblk[1], id / (g->nblk[0] * g->nblk[1])};

  for (int a = 0; a < 3; a++) {
    lo[a] = (int)((long long)t[a] * g->box[a] / g->nblk[a]);
    hi[a] = (int)((long long)(t[a] + 1) * g->box[a] / g->nblk[a]);
  }
}

/* the local row of the t-th point (x fastest) of the brick lo .. hi-1 */
static inline MS_BRB_HD int MSBRBGridRowAt(const MSBRBGrid *g, const int lo[3], const int hi[3], int t)
{
  const int wx = hi[0] - lo[0], wy = hi[1] - lo[1], u = t / wx;

  return lo[0] + t % wx + g->box[0] * (lo[1] + u % wy + g->box[1] * (lo[2] + u / wy));
}

/* The inner ordering "colors" of block b (MS_BRB_INNER_ORDER): pos[perm[p]] = p set for the block's rows, col scratch
   (by position). The colouring sees a row's own entries (a_ij); where the pattern is not symmetric an a_ji alone may join
   two rows of one colour, which the levels then order (a block's levels stay correct, there may be more of them).
   Colours below 64 by a bit mask, above by a search. */
static inline MS_BRB_HD void MSBRBInnerOrderBlock(const MSBRBLayout *lay, int b, const int *ai, const int *aj, const int *perm, const int *pos, int *col, int *out)
{
  const int r0 = lay->rstart[b], r1 = lay->rstart[b + 1];
  int       maxc = -1, w = r0;

  for (int p = r0; p < r1; p++) {
    const int          o = perm[p], e0 = ai[o], e1 = ai[o + 1];
    unsigned long long used = 0;
    int                c    = 0;

    for (int e = e0; e < e1; e++) {
      const int q = pos[aj[e]];
      if (q >= r0 && q < p && col[q] < 64) used |= 1ULL << col[q];
    }
    while (c < 64 && (used >> c) & 1ULL) c++;
    for (int taken = c == 64; taken; c += taken) { /* all of 0..63 taken: the smallest free one above */
      taken = 0;
      for (int e = e0; e < e1 && !taken; e++) {
        const int q = pos[aj[e]];
        taken       = q >= r0 && q < p && col[q] == c;
      }
    }
    col[p] = c;
    maxc   = c > maxc ? c : maxc;
  }
  for (int c = 0; c <= maxc; c++)
    for (int p = r0; p < r1; p++)
      if (col[p] == c) out[w++] = perm[p];
}

/* The operations of one row, shared by both backends so that they compute the same function */

/* the slots of storage row s (MS_BRB_SLOTS) */
static inline MS_BRB_HD void MSBRBSlotsRow(const MSBRBLayout *lay, long long s, const int *ai, const int *aj, const int *pos, const int *stor, int *col, int *map, unsigned short *nl, int *dmap)
{
  const int o = lay->sperm[s], e0 = ai[o], e1 = ai[o + 1], p = pos[o];
  long long slot0;
  int       stride, W, w = 0, nlo = 0, dm = -1;

  MSBRBRow(lay, s, &slot0, &stride, &W);
  for (int e = e0; e < e1; e++) {
    const int cc = aj[e];
    int       q, rank = 0;

    if (cc == o) {
      dm = e;
      continue;
    }
    q = pos[cc];
    for (int f = e0; f < e1; f++) rank += aj[f] != o && pos[aj[f]] < q;
    col[slot0 + (long long)rank * stride] = stor[cc];
    map[slot0 + (long long)rank * stride] = e;
    nlo += q < p;
    w++;
  }
  for (int k = w; k < W; k++) {
    col[slot0 + (long long)k * stride] = -1;
    map[slot0 + (long long)k * stride] = -1;
  }
  nl[s]   = (unsigned short)nlo;
  dmap[s] = dm;
}

/* gathers the values of storage row s (and its diagonal) from the CSR values */
static inline MS_BRB_HD void MSBRBGatherRow(const MSBRBLayout *lay, long long s, const int *map, const int *dmap, const double *csrvals, double pertfac, double *work, double *d)
{
  long long slot0;
  int       stride, w;

  MSBRBRow(lay, s, &slot0, &stride, &w);
  for (int k = 0; k < w; k++) {
    const long long slot = slot0 + (long long)k * stride;
    work[slot]           = map[slot] >= 0 ? csrvals[map[slot]] : 0.0;
  }
  d[s] = dmap[s] >= 0 ? csrvals[dmap[s]] * pertfac : 0.0;
}

/* factorizes storage row s (rows it depends on are done); returns 1 when its pivot fails the test; *ratio = d_s / a_ss */
static inline MS_BRB_HD int MSBRBFactorRow(const MSBRBLayout *lay, long long s, const int *dmap, const double *csrvals, double alpha, double pivtol, double *work, double *d, double *ratio)
{
  long long slot0;
  int       stride, w, nl = lay->nl[s];
  double    di = d[s], drop = 0.0, aii = dmap[s] >= 0 ? csrvals[dmap[s]] : 0.0;

  MSBRBRow(lay, s, &slot0, &stride, &w);
  for (int k = 0; k < nl; k++) {
    const long long sk = slot0 + (long long)k * stride;
    const int       c  = lay->col[sk];
    long long       c0;
    int             cs, cw;
    const double    l = work[sk] / d[c];

    work[sk] = l;
    MSBRBRow(lay, c, &c0, &cs, &cw);
    for (int q = lay->nl[c]; q < cw; q++) {
      const long long sq = c0 + (long long)q * cs;
      const int       j  = lay->col[sq];
      int             f;

      if (j < 0) break;
      if (j == (int)s) {
        di -= l * work[sq];
        continue;
      }
      for (f = k + 1; f < w; f++) {
        const long long sf = slot0 + (long long)f * stride;
        const int       cf = lay->col[sf];
        if (cf < 0) {
          f = w;
          break;
        }
        if (cf == j) {
          work[sf] -= l * work[sq];
          break;
        }
      }
      if (f == w) drop += l * work[sq];
    }
  }
  di -= alpha * drop;
  d[s]   = di;
  *ratio = di / aii; /* a zero a_ii (an error before the factorization) gives Inf or NaN */
  return !(*ratio - *ratio == 0.0 && *ratio > pivtol);
}

typedef struct {
  const char *backend;
  int         tbuf_max; /* the largest buffer (doubles) of a grid ordering's block the apply takes (MSBRBLayout.tbuf):
                           MS_BRB_TBUF_MAX on the GPU, 0 for the reference, whose apply reads no buffer */
  MS_BRB_MULTIPROCESSORS((*multiprocessors));
  MS_BRB_FACTOR((*factor));
  MS_BRB_CONVERT((*convert));
  MS_BRB_APPLY((*apply));
  MS_BRB_SLOTS((*slots));
  MS_BRB_GRID_PERM((*gridperm));
  MS_BRB_LEVELS((*levels));
  MS_BRB_STORAGE((*storage));
  MS_BRB_BUFFER_PLACES((*places));
  MS_BRB_BLOCK_EDGES((*blockedges));
  MS_BRB_GRAPH_PERM((*graphperm));
  MS_BRB_INNER_ORDER((*innerorder));
} MSBRBKernels;

MS_BRB_MULTIPROCESSORS(MSBRBMultiprocessors_Reference);
MS_BRB_FACTOR(MSBRBFactor_Reference);
MS_BRB_CONVERT(MSBRBConvert_Reference);
MS_BRB_APPLY(MSBRBApply_Reference);
MS_BRB_SLOTS(MSBRBSlots_Reference);
MS_BRB_GRID_PERM(MSBRBGridPerm_Reference);
MS_BRB_LEVELS(MSBRBLevels_Reference);
MS_BRB_STORAGE(MSBRBStorage_Reference);
MS_BRB_BUFFER_PLACES(MSBRBBufferPlaces_Reference);
MS_BRB_BLOCK_EDGES(MSBRBBlockEdges_Reference);
MS_BRB_GRAPH_PERM(MSBRBGraphPerm_Reference);
MS_BRB_INNER_ORDER(MSBRBInnerOrder_Reference);
MS_KERNEL_EXTERN const MSBRBKernels MSBRBKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_BRB_MULTIPROCESSORS(MSBRBMultiprocessors_CUDA);
MS_BRB_FACTOR(MSBRBFactor_CUDA);
MS_BRB_CONVERT(MSBRBConvert_CUDA);
MS_BRB_APPLY(MSBRBApply_CUDA);
MS_BRB_SLOTS(MSBRBSlots_CUDA);
MS_BRB_GRID_PERM(MSBRBGridPerm_CUDA);
MS_BRB_LEVELS(MSBRBLevels_CUDA);
MS_BRB_STORAGE(MSBRBStorage_CUDA);
MS_BRB_BUFFER_PLACES(MSBRBBufferPlaces_CUDA);
MS_BRB_BLOCK_EDGES(MSBRBBlockEdges_CUDA);
MS_BRB_GRAPH_PERM(MSBRBGraphPerm_CUDA);
MS_BRB_INNER_ORDER(MSBRBInnerOrder_CUDA);
MS_KERNEL_EXTERN const MSBRBKernels MSBRBKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
