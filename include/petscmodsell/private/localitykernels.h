/*
   Kernels of the locality partition (localityimpl.h), declared once (see mskernels.h for the conventions): the host
   reference (src/mat/impls/modsell/locality_reference.c) and the CUDA implementation (cuda/locality.cu) compute the
   same permutation, bit for bit (integer arithmetic only, every tie broken the same way); the glue (locality.c)
   calls them through MSLocalityKernels.

   partition(m, ai, aj, aa, sh, perm, iperm, info, stream): the new order of the rows of a square m x m matrix (a
   32-bit CSR ai[m+1], aj[ai[m]] in the backend's memory; the columns of a row ascending without repeats, as in SeqAIJ;
   its values aa[ai[m]], or NULL for the pattern alone) such that consecutive runs of sh rows of the new order (block
   b: new rows b*sh .. b*sh+sh-1) are compact sets of strongly coupled nearby rows of the symmetrised graph.
   perm[new] = old and, when iperm is not NULL, iperm[old] = new (backend's memory). info (host memory, may be NULL)
   receives what the computation did.

   The algorithm (multilevel parallel matching; every step is a function of the previous one's result only, so
   that a parallel implementation computes the same thing):
     level 0:   the pattern symmetrised without its diagonal, every node of size 1 (one row); the weight of an edge
                {i, j} the sum over its directions present in the pattern of 1 + the entry's strength
                (MSLocalityStrength(): K |a_ij| / (|a_ii| + |a_jj|) rounded down, at most K; 0 without values), so
                that strongly coupled rows are matched first: on the FVM tetrahedra blocks of the pattern alone split
                the strongly coupled cells apart (H100, 2026-11-24, commit e97a49d; not under docs/results); K = MSLocalityStrengthScale(), 64,
                less when the weights could overflow 32-bit sums;
     a level:   rounds of handshake matching: every node not matched yet picks its best neighbour not matched yet
                (MSLocalityPick(): the most weight per product of the sizes, then a hash of the pair, then the
                smaller id, one strict order of the edges, so that mutual picks are locally dominant edges and a
                round matches at least one edge when some edge joins two unmatched nodes); mutual picks are
                matched. After MS_LOCALITY_ROUNDS rounds (or a round that matched nothing) the pairs are
                contracted: coarse ids by a prefix sum over the leaders (a node unmatched or the smaller of its
                pair), sizes added, the coarse edges the union of the children's mapped to coarse ids with their
                weights summed;
                until a level matches nothing (one node per connected component) or MS_LOCALITY_MAXLEVELS levels.
                Aggregates are not limited to sh rows: a whole hierarchy orders the rows better than aggregates of at
                most sh rows ordered by Cuthill-McKee (tests/mat/ex7 on the CPU, randomly numbered 7-point grids and kNN
                meshes: fewer disconnected blocks, more edges inside; 2026-11-24, commit 4ae6fc3);
     ordering:  the coarsest graph by Cuthill-McKee (MSLocalityOrderCoarse(), host code that both backends call:
                a pseudo-peripheral start in each component, components by their smallest node, neighbours by
                degree then id);
     top-down:  one level at a time, an aggregate's rows are its first child's rows, then its second's; the first
                child is the one with more weight to the aggregate placed just before its parent than to the one
                just after, then more weight to aggregates placed before than after (MSLocalityPull()); equal: the
                leader first. Then rows are numbered: new = the position given by the hierarchy;
     blocks:    block b = new rows b*sh .. b*sh+sh-1 (the last block the rest);
     refine:    MS_LOCALITY_REFINE_ROUNDS rounds (fewer when a round swaps nothing): every row with a neighbour in
                another block names the block it has most weight to and the gain of moving there
                (MSLocalityBestBlock()); for each pair of blocks the k-th best candidate of one direction trades
                places with the k-th best of the other when their gains minus twice their common edge are positive.
                Block sizes stay exactly sh.
   Return: 0, or an error code (MS_KERNEL_ERR_* for the reference, cudaError_t for CUDA; a bad argument, a column
   out of range, a row not ascending: MS_KERNEL_ERR_ARG / cudaErrorInvalidValue).
*/
#pragma once

#include <petscmodsell/private/mskernels.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
  #define MS_LOCALITY_HD static __host__ __device__ __forceinline__
#else
  #define MS_LOCALITY_HD static inline
#endif

#define MS_LOCALITY_ROUNDS        4  /* matching rounds per level at most */
#define MS_LOCALITY_MAXLEVELS     64 /* levels at most (a star's centre takes one leaf per level) */
#define MS_LOCALITY_REFINE_ROUNDS 4  /* refinement rounds at most */
#define MS_LOCALITY_STRENGTH      64 /* levels of an entry's strength (the level-0 weights) at most */

/* what one partition did (host memory) */
typedef struct {
  int       levels;       /* contractions done */
  int       rounds;       /* matching rounds, all levels */
  int       ncoarse;      /* nodes (aggregates) of the coarsest graph */
  long long nedges0;      /* entries of the level-0 graph (each direction counted) */
  long long nedgescoarse; /* entries of the coarsest graph */
  long long nedgesall;    /* entries of all the levels' graphs together */
  long long nnodesall;    /* nodes of all the levels together */
  int       refinerounds; /* refinement rounds */
  long long nswaps;       /* rows that traded places, in pairs, all rounds */
} MSLocalityInfo;

#define MS_LOCALITY_PARTITION(name) int name(int m, const int *ai, const int *aj, const double *aa, int sh, int *perm, int *iperm, MSLocalityInfo *info, void *stream)

typedef struct {
  const char *backend;
  int         device; /* the arrays are in device memory, the work is queued on the stream given (its GPU time logged) */
  MS_LOCALITY_PARTITION((*partition));
} MSLocalityKernels;

/* the strength levels K for nnz input entries: MS_LOCALITY_STRENGTH, or less so that the weights of all the entries,
   each at most 1 + K, sum below 2^31 (every level's weights are sums of level 0's, and MSLocalityPull() needs a
   total weight below 2^31); 0 (the pattern alone) above 2^30 entries */
MS_LOCALITY_HD int MSLocalityStrengthScale(long long nnz)
{
  const long long k = nnz > 0 ? 2147483647LL / nnz - 1 : MS_LOCALITY_STRENGTH;

  return k < 0 ? 0 : (k > MS_LOCALITY_STRENGTH ? MS_LOCALITY_STRENGTH : (int)k);
}

/* the strength of the entry a of row i, column j (|di|, |dj|: the magnitudes of the two diagonal entries) in 0..K:
   K |a| / (|di| + |dj|) rounded down, K when that is larger, not a number or the diagonals are 0 (a product and a
   quotient, each rounded once in IEEE double: the same on the host and the GPU) */
MS_LOCALITY_HD int MSLocalityStrength(double a, double di, double dj, int K)
{
  const double q = ((double)K * (a < 0 ? -a : a)) / (di + dj);

  return q >= 0 && q < (double)K ? (int)q : K;
}

/* a symmetric 32-bit hash of the unordered pair {a, b} (tie-break of equal scores) */
MS_LOCALITY_HD unsigned MSLocalityPairHash(int a, int b)
{
  unsigned x = (unsigned)(a < b ? a : b), y = (unsigned)(a < b ? b : a), h;

  h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

/* whether, at node u, the edge to v (weight w, size sv) beats the edge to b (weight wb, size sb): the score
   w / (su * sv) compared exactly (su cancels), then the pair's hash, then the smaller neighbour */
MS_LOCALITY_HD int MSLocalityBetter(int u, int v, int w, int sv, int b, int wb, int sb)
{
  const long long l = (long long)w * sb, r = (long long)wb * sv;
  unsigned        hv, hb;

  if (l != r) return l > r;
  hv = MSLocalityPairHash(u, v);
  hb = MSLocalityPairHash(u, b);
  if (hv != hb) return hv > hb;
  return v < b;
}

/* the pick of node u in a matching round: its best neighbour not matched yet (-1: none) */
MS_LOCALITY_HD int MSLocalityPick(int u, const long long *xi, const int *xj, const int *xw, const int *sz, const int *match)
{
  int b = -1, wb = 0, sb = 1;

  if (match[u] >= 0) return -1;
  for (long long k = xi[u]; k < xi[u + 1]; k++) {
    const int v = xj[k];

    if (match[v] >= 0) continue;
    if (b < 0 || MSLocalityBetter(u, v, xw[k], sz[v], b, wb, sb)) {
      b  = v;
      wb = xw[k];
      sb = sz[v];
    }
  }
  return b;
}

/* the pull of node x (a child of the coarse node k) towards the front: (weight of its edges to the coarse node placed
   just before k minus to the one placed just after) * 2^32 + (weight to coarse nodes placed before k minus after);
   cstart, csz: the start and size of every coarse node (the second term is below 2^31 in magnitude: a total weight) */
MS_LOCALITY_HD long long MSLocalityPull(int x, int k, const long long *xi, const int *xj, const int *xw, const int *cid, const int *cstart, const int *csz)
{
  long long p = 0, q = 0;

  for (long long e = xi[x]; e < xi[x + 1]; e++) {
    const int d = cid[xj[e]];

    if (d == k) continue;
    p += cstart[d] < cstart[k] ? xw[e] : -xw[e];
    if (cstart[d] + csz[d] == cstart[k]) q += xw[e];
    else if (cstart[d] == cstart[k] + csz[k]) q -= xw[e];
  }
  return q * 4294967296LL + p;
}

/* refinement: the other block B that node u has the most weight to (the smallest id among equals) and the gain
   g = weight(B) - weight(own block) of moving u there; 0 when u has no other block or more than
   MS_LOCALITY_REFINE_MAXDEG neighbours */
#define MS_LOCALITY_REFINE_MAXDEG 64
MS_LOCALITY_HD int MSLocalityBestBlock(int u, const long long *xi, const int *xj, const int *xw, const int *pos, int sh, int *B, int *g)
{
  const int own = pos[u] / sh;
  int       in = 0, best = -1, wbest = 0;

  if (xi[u + 1] - xi[u] > MS_LOCALITY_REFINE_MAXDEG) return 0;
  for (long long e = xi[u]; e < xi[u + 1]; e++) {
    const int b = pos[xj[e]] / sh;
    int       w = 0, seen = 0;

    if (b == own) {
      in += xw[e];
      continue;
    }
    for (long long f = xi[u]; f < e && !seen; f++) seen = pos[xj[f]] / sh == b;
    if (seen) continue;
    for (long long f = e; f < xi[u + 1]; f++)
      if (pos[xj[f]] / sh == b) w += xw[f];
    if (best < 0 || w > wbest || (w == wbest && b < best)) {
      best  = b;
      wbest = w;
    }
  }
  if (best < 0) return 0;
  *B = best;
  *g = wbest - in;
  return 1;
}

/* the weight of the edge u-v (0: none) */
MS_LOCALITY_HD int MSLocalityEdgeWeight(int u, int v, const long long *xi, const int *xj, const int *xw)
{
  for (long long e = xi[u]; e < xi[u + 1]; e++)
    if (xj[e] == v) return xw[e];
  return 0;
}

/* Cuthill-McKee order of a (coarse) graph, host memory: xi[n+1] (64-bit offsets), xj (neighbour lists, any order,
   without repeats or self); order[k] = the node placed k-th. Shared by both backends (the CUDA one copies the
   coarsest graph to the host). Returns 0 or MS_KERNEL_ERR_MEM. */
int MSLocalityOrderCoarse(int n, const long long *xi, const int *xj, int *order);

MS_LOCALITY_PARTITION(MSLocalityPartition_Reference);
MS_KERNEL_EXTERN const MSLocalityKernels MSLocalityKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_LOCALITY_PARTITION(MSLocalityPartition_CUDA);
MS_KERNEL_EXTERN const MSLocalityKernels MSLocalityKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
