/*
   CUDA locality partition (localitykernels.h): the same permutation as locality_reference.c, bit for bit. Every
   per-node decision is one of the header's MS_LOCALITY_HD functions, which the reference calls too; what differs is
   how the arrays are built (sorts and prefix sums here, loops there), and the results are the same sets and sums.

   Work on the given stream, allocations stream-ordered (cudaMallocAsync / cudaFreeAsync); the host reads a few
   sizes (a synchronization each: the input's entry count, per matching round the pairs matched, per level the
   coarse node and entry counts, per refinement round the candidates and the swaps) and orders the coarsest graph
   (MSLocalityOrderCoarse(), host code shared with the reference).

   Steps (m rows, E entries of the level-0 graph, sums over the levels of nodes N* and entries E*):
     level 0   the rows of the entries, a stable radix sort of the E_in input entries by column (the transpose,
               rows ascending), per row the union of its row and its column (two passes: count, fill);
     a level   per round: pick (reads the node's entries and its neighbours' match and size), match; contraction:
               leaders, a prefix sum (coarse ids), the children's entries gathered per coarse node with their coarse
               ids, a segmented sort by coarse id, a count of the distinct ids, a prefix sum, the fill;
     ordering  the coarsest graph to the host, Cuthill-McKee there, the coarse starts back;
     top-down  per level one kernel: each coarse node's two children (their pull reads their entries);
     refine    per round: best other block of every row (reads its entries twice at most), candidates compacted
               (prefix sum), two stable radix sorts (gain, then block pair), the pairing (binary searches), swaps;
     last      perm[pos[u]] = u (and iperm = pos).
*/
#include <petscmodsell/private/localitykernels.h>
#include <petscmodsell/private/msdevarrays.cuh>
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <vector>
#include <climits>

#define MSL_BS 256
#define MSL_TRY(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) return e_; \
  } while (0)
#define MSL_LAUNCH(kernel, n, ...) \
  do { \
    kernel<<<msl_grid(n), MSL_BS, 0, st>>>(__VA_ARGS__); \
    MSL_TRY(cudaGetLastError()); \
  } while (0)
#define MSL_GSTRIDE(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)
/* a warp-uniform grid-stride loop (for warp-aggregated counts): every lane of a warp runs the same iterations */
#define MSL_GSTRIDE_UNIFORM(base, n) for (long long base = (long long)blockIdx.x * blockDim.x; base < (n); base += (long long)gridDim.x * blockDim.x)

static unsigned msl_grid(long long n)
{
  long long nb = (n + MSL_BS - 1) / MSL_BS;
  if (nb > 65535LL * 32) nb = 65535LL * 32;
  return (unsigned)(nb < 1 ? 1 : nb);
}

static int msl_bits(unsigned long long x) /* bits to hold 0..x */
{
  int b = 0;
  while (x) {
    b++;
    x >>= 1;
  }
  return b ? b : 1;
}


template <class T>
static cudaError_t msl_read(T *h, const T *d, cudaStream_t st)
{
  MSL_TRY(cudaMemcpyAsync(h, d, sizeof(T), cudaMemcpyDeviceToHost, st));
  return cudaStreamSynchronize(st);
}

/* exclusive prefix sum of in[0..n) into out[0..n) (out[n-1] + in[n-1] = total when in[n-1] is the 0 appended) */
template <class Tin, class Tout>
static cudaError_t msl_scan(const Tin *in, Tout *out, long long n, cudaStream_t st)
{
  return ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, in, out, n, st); });
}

/* warp-aggregated count */
__device__ __forceinline__ void msl_count(bool flag, unsigned long long *cnt)
{
  const unsigned mask = __ballot_sync(0xffffffffu, flag);
  if ((threadIdx.x & 31) == 0 && mask) atomicAdd(cnt, (unsigned long long)__popc(mask));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* level 0                                                                                                        */

__global__ void msl_rows(int m, int nnz, const int *__restrict__ ai, const int *__restrict__ aj, int *__restrict__ rowof, int *__restrict__ bad)
{
  MSL_GSTRIDE(i, m)
  {
    const int a = ai[i], ae = ai[i + 1];
    if (a < 0 || ae < a || ae > nnz || (i == 0 && a != 0)) {
      atomicExch(bad, 1);
      continue;
    }
    for (int k = a; k < ae; k++) {
      rowof[k] = (int)i;
      if (aj[k] < 0 || aj[k] >= m || (k > a && aj[k] <= aj[k - 1])) atomicExch(bad, 1);
    }
  }
}

/* ti[j] = the first position of column j in the sorted keys (ti[m] = nnz) */
__global__ void msl_tptr(long long nnz, int m, const int *__restrict__ keys, long long *__restrict__ ti)
{
  MSL_GSTRIDE(p, nnz + 1)
  {
    const int prev = p ? keys[p - 1] : -1, cur = p < nnz ? keys[p] : m;
    for (int j = prev + 1; j <= cur; j++) ti[j] = p;
  }
}

/* the diagonal's magnitude of every row (0: none) */
__global__ void msl_diag(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, double *__restrict__ dg)
{
  MSL_GSTRIDE(i, m)
  {
    double d = 0;
    for (int k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] == (int)i) d = aa[k] < 0 ? -aa[k] : aa[k];
    dg[i] = d;
  }
}

/* the strength of every entry (MSLocalityStrength()) */
__global__ void msl_strength(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, const double *__restrict__ dg, int K, int *__restrict__ hw)
{
  MSL_GSTRIDE(i, m)
  {
    const double di = dg[i];
    for (int k = ai[i]; k < ai[i + 1]; k++) hw[k] = MSLocalityStrength(aa[k], di, dg[aj[k]], K);
  }
}

/* the transpose's rows and strengths from the entries' sorted indices */
__global__ void msl_tgather(long long nnz, const int *__restrict__ tidx, const int *__restrict__ rowof, const int *__restrict__ hw, int *__restrict__ trow, int *__restrict__ thw)
{
  MSL_GSTRIDE(p, nnz)
  {
    const int k = tidx[p];
    trow[p]     = rowof[k];
    thw[p]      = hw[k];
  }
}

__global__ void msl_iota(long long n, int *__restrict__ a)
{
  MSL_GSTRIDE(i, n) a[i] = (int)i;
}

/* the union of row i and column i without i: counts (xj == NULL) or entries at xi[i]; an edge weighs the sum over its
   directions present of 1 + the entry's strength (hw: the entries', thw: the transpose's; NULL: 0) */
__global__ void msl_sym(int m, const int *__restrict__ ai, const int *__restrict__ aj, const long long *__restrict__ ti, const int *__restrict__ trow, const int *__restrict__ hw, const int *__restrict__ thw, long long *__restrict__ cnt, const long long *__restrict__ xi, int *__restrict__ xj, int *__restrict__ xw)
{
  MSL_GSTRIDE(ii, m)
  {
    const int i = (int)ii;
    int       a = ai[i], ae = ai[i + 1];
    long long b = ti[i], be = ti[i + 1], w = xj ? xi[i] : 0;

    while (a < ae || b < be) {
      int j, wt;

      if (a < ae && aj[a] == i) {
        a++;
        continue;
      }
      if (b < be && trow[b] == i) {
        b++;
        continue;
      }
      if (b >= be || (a < ae && aj[a] < trow[b])) {
        wt = 1 + (hw ? hw[a] : 0);
        j  = aj[a++];
      } else if (a >= ae || trow[b] < aj[a]) {
        wt = 1 + (thw ? thw[b] : 0);
        j  = trow[b++];
      } else {
        wt = 2 + (hw ? hw[a] + thw[b] : 0);
        j  = aj[a++];
        b++;
      }
      if (xj) {
        xj[w] = j;
        xw[w] = wt;
      }
      w++;
    }
    if (!xj) cnt[i] = w;
  }
  if (!xj && blockIdx.x == 0 && threadIdx.x == 0) cnt[m] = 0;
}

__global__ void msl_fill(long long n, int *__restrict__ a, int v)
{
  MSL_GSTRIDE(i, n) a[i] = v;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* matching and contraction                                                                                       */

__global__ void msl_pick(int n, const long long *__restrict__ xi, const int *__restrict__ xj, const int *__restrict__ xw, const int *__restrict__ sz, const int *__restrict__ match, int *__restrict__ pick)
{
  MSL_GSTRIDE(u, n) pick[u] = MSLocalityPick((int)u, xi, xj, xw, sz, match);
}

__global__ void msl_match(int n, const int *__restrict__ pick, int *__restrict__ match, unsigned long long *__restrict__ cnt)
{
  MSL_GSTRIDE_UNIFORM(base, n)
  {
    const long long u  = base + threadIdx.x;
    bool            mt = false;

    if (u < n) {
      const int v = pick[u];
      if (v >= 0 && pick[v] == (int)u) {
        match[u] = v;
        mt       = true;
      }
    }
    msl_count(mt, cnt);
  }
}

__global__ void msl_lead(int n, const int *__restrict__ match, int *__restrict__ lead)
{
  MSL_GSTRIDE(u, n + 1) lead[u] = u < n && (match[u] < 0 || u < match[u]);
}

__global__ void msl_cid(int n, const int *__restrict__ match, const int *__restrict__ sz, int *__restrict__ cid, int *__restrict__ c0, int *__restrict__ c1, int *__restrict__ csz)
{
  MSL_GSTRIDE(uu, n)
  {
    const int u = (int)uu, v = match[u];
    if (v < 0 || u < v) {
      const int k = cid[u];
      c0[k]       = u;
      c1[k]       = v;
      csz[k]      = sz[u] + (v >= 0 ? sz[v] : 0);
    } else cid[u] = cid[v]; /* a leader's id is final after the scan */
  }
}

__global__ void msl_ccnt(int nc, const int *__restrict__ c0, const int *__restrict__ c1, const long long *__restrict__ xi, long long *__restrict__ cnt)
{
  MSL_GSTRIDE(k, nc + 1)
  {
    if (k == nc) cnt[k] = 0;
    else cnt[k] = (xi[c0[k] + 1] - xi[c0[k]]) + (c1[k] >= 0 ? xi[c1[k] + 1] - xi[c1[k]] : 0);
  }
}

/* the children's entries of coarse node k with coarse ids (INT_MAX for k itself, sorted last and dropped) */
__global__ void msl_gather(int nc, const int *__restrict__ c0, const int *__restrict__ c1, const long long *__restrict__ xi, const int *__restrict__ xj, const int *__restrict__ xw, const int *__restrict__ cid, const long long *__restrict__ toff, int *__restrict__ tk, int *__restrict__ tv)
{
  MSL_GSTRIDE(kk, nc)
  {
    const int k = (int)kk;
    long long w = toff[k];
    for (int h = 0; h < 2; h++) {
      const int x = h ? c1[k] : c0[k];
      if (x < 0) continue;
      for (long long e = xi[x]; e < xi[x + 1]; e++, w++) {
        const int d = cid[xj[e]];
        tk[w]       = d == k ? INT_MAX : d;
        tv[w]       = xw[e];
      }
    }
  }
}

/* distinct coarse neighbours of each sorted segment: counts (xj == NULL) or entries with summed weights at cxi[k] */
__global__ void msl_reduce(int nc, const long long *__restrict__ toff, const int *__restrict__ tk, const int *__restrict__ tv, long long *__restrict__ cnt, const long long *__restrict__ cxi, int *__restrict__ cxj, int *__restrict__ cxw)
{
  MSL_GSTRIDE(k, nc + 1)
  {
    long long w = 0, o = cxj ? cxi[k] : 0;
    if (k == nc) {
      if (!cxj) cnt[k] = 0;
      continue;
    }
    for (long long e = toff[k]; e < toff[k + 1] && tk[e] != INT_MAX; e++) {
      if (e > toff[k] && tk[e] == tk[e - 1]) {
        if (cxj) cxw[o + w - 1] += tv[e];
        continue;
      }
      if (cxj) {
        cxj[o + w] = tk[e];
        cxw[o + w] = tv[e];
      }
      w++;
    }
    if (!cxj) cnt[k] = w;
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* top-down, refinement, result                                                                                   */

__global__ void msl_place(int nc, const int *__restrict__ c0, const int *__restrict__ c1, const int *__restrict__ csz, const long long *__restrict__ xi, const int *__restrict__ xj, const int *__restrict__ xw, const int *__restrict__ cid, const int *__restrict__ sz, const int *__restrict__ cstart, int *__restrict__ start)
{
  MSL_GSTRIDE(kk, nc)
  {
    const int k = (int)kk;
    int       a = c0[k], b = c1[k];
    if (b >= 0) {
      if (MSLocalityPull(b, k, xi, xj, xw, cid, cstart, csz) > MSLocalityPull(a, k, xi, xj, xw, cid, cstart, csz)) {
        const int t = a;
        a           = b;
        b           = t;
      }
      start[b] = cstart[k] + sz[a];
    }
    start[a] = cstart[k];
  }
}

/* gains lie in [-MSL_GOFF, MSL_GOFF] (at most MS_LOCALITY_REFINE_MAXDEG edges of weight at most 2 (1 + K)): key
   MSL_GOFF - g sorts them descending */
#define MSL_GOFF (2 * MS_LOCALITY_REFINE_MAXDEG * (1 + MS_LOCALITY_STRENGTH))

__global__ void msl_cand(int n, const long long *__restrict__ xi, const int *__restrict__ xj, const int *__restrict__ xw, const int *__restrict__ pos, int sh, int *__restrict__ flag, int *__restrict__ cb, int *__restrict__ cg)
{
  MSL_GSTRIDE(uu, n + 1)
  {
    int B = 0, g = 0;
    if (uu == n) {
      flag[n] = 0;
      continue;
    }
    flag[uu] = MSLocalityBestBlock((int)uu, xi, xj, xw, pos, sh, &B, &g);
    cb[uu]   = B;
    cg[uu]   = g;
  }
}

__global__ void msl_cand_keys(int n, const int *__restrict__ flag, const int *__restrict__ idx, const int *__restrict__ pos, int sh, long long nb, const int *__restrict__ cb, const int *__restrict__ cg, unsigned long long *__restrict__ keyp, unsigned *__restrict__ keyg, int *__restrict__ cu, int *__restrict__ iota)
{
  MSL_GSTRIDE(uu, n)
  {
    if (!flag[uu]) continue;
    const int                i = idx[uu], own = pos[uu] / sh, B = cb[uu];
    const unsigned long long lo = (unsigned long long)(own < B ? own : B), hi = (unsigned long long)(own < B ? B : own);
    keyp[i] = (lo * (unsigned long long)nb + hi) * 2ULL + (own > B ? 1ULL : 0ULL);
    keyg[i] = (unsigned)(MSL_GOFF - cg[uu]);
    cu[i]   = (int)uu;
    iota[i] = i;
  }
}

__global__ void msl_gather_keys(int nc, const int *__restrict__ ord, const unsigned long long *__restrict__ keyp, unsigned long long *__restrict__ out)
{
  MSL_GSTRIDE(k, nc) out[k] = keyp[ord[k]];
}

__device__ __forceinline__ int msl_lower_bound(const unsigned long long *a, int n, unsigned long long x)
{
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* the k-th of a block pair's lo -> hi candidates trades places with its k-th hi -> lo one when both gain */
__global__ void msl_pair(int nc, const unsigned long long *__restrict__ sp, const int *__restrict__ ord, const int *__restrict__ cu, const int *__restrict__ cg, const long long *__restrict__ xi, const int *__restrict__ xj, const int *__restrict__ xw, int *__restrict__ pos, unsigned long long *__restrict__ cnt)
{
  MSL_GSTRIDE_UNIFORM(base, nc)
  {
    const long long k  = base + threadIdx.x;
    bool            sw = false;

    if (k < nc && !(sp[k] & 1ULL)) {
      const int s0 = msl_lower_bound(sp, nc, sp[k]), s1 = msl_lower_bound(sp, nc, sp[k] + 1), e1 = msl_lower_bound(sp, nc, sp[k] + 2);
      const int r  = (int)k - s0;
      if (s1 + r < e1) {
        const int u = cu[ord[k]], v = cu[ord[s1 + r]];
        if (cg[u] + cg[v] - 2 * MSLocalityEdgeWeight(u, v, xi, xj, xw) > 0) {
          const int t = pos[u];
          pos[u]      = pos[v];
          pos[v]      = t;
          sw          = true;
        }
      }
    }
    msl_count(sw, cnt);
  }
}

__global__ void msl_final(int m, const int *__restrict__ pos, int *__restrict__ perm, int *__restrict__ iperm)
{
  MSL_GSTRIDE(u, m)
  {
    perm[pos[u]] = (int)u;
    if (iperm) iperm[u] = pos[u];
  }
}

/* ------------------------------------------------------------------------------------------------------------ */

struct MSLLevel {
  int        n = 0;
  long long  nnz = 0;
  long long *xi = nullptr;
  int       *xj = nullptr, *xw = nullptr, *sz = nullptr, *cid = nullptr, *c0 = nullptr, *c1 = nullptr;
};

static cudaError_t msl_partition(int m, const int *ai, const int *aj, const double *aa, int sh, int *perm, int *iperm, MSLocalityInfo *inf, cudaStream_t st)
{
  MSDeviceArrays              A(st);
  std::vector<MSLLevel> lev(1);
  unsigned long long   *dcnt, hcnt;
  int                  *match, *pick, *start, *cstart;
  int                   nl = 1;

  MSL_TRY(A.get(&dcnt, 1));
  /* level 0 */
  {
    MSLLevel  &l = lev[0];
    int        ann, bad = 0, *rowof, *dbad, *tkeys, *trow, *hw = nullptr, *thw = nullptr;
    long long *ti, *cnt;

    MSL_TRY(msl_read(&ann, ai + m, st));
    if (ann < 0) return cudaErrorInvalidValue;
    MSL_TRY(A.get(&rowof, ann));
    MSL_TRY(A.get(&dbad, 1));
    MSL_TRY(cudaMemsetAsync(dbad, 0, sizeof(int), st));
    MSL_LAUNCH(msl_rows, m, m, ann, ai, aj, rowof, dbad);
    MSL_TRY(msl_read(&bad, dbad, st));
    if (bad) return cudaErrorInvalidValue;
    MSL_TRY(A.get(&tkeys, ann));
    MSL_TRY(A.get(&trow, ann));
    if (aa) { /* strengths: sort the entries' indices, then gather their rows and strengths */
      double *dg;
      int    *idx, *tidx;

      MSL_TRY(A.get(&dg, m));
      MSL_TRY(A.get(&hw, ann));
      MSL_TRY(A.get(&thw, ann));
      MSL_LAUNCH(msl_diag, m, m, ai, aj, aa, dg);
      MSL_LAUNCH(msl_strength, m, m, ai, aj, aa, dg, MSLocalityStrengthScale(ann), hw);
      A.put(dg);
      MSL_TRY(A.get(&idx, ann));
      MSL_TRY(A.get(&tidx, ann));
      MSL_LAUNCH(msl_iota, ann, (long long)ann, idx);
      {
        const int bits = msl_bits((unsigned long long)m);
        MSL_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, aj, tkeys, idx, tidx, (long long)ann, 0, bits, st); }));
      }
      A.put(idx);
      MSL_LAUNCH(msl_tgather, ann, (long long)ann, tidx, rowof, hw, trow, thw);
      A.put(tidx);
    } else {
      const int bits = msl_bits((unsigned long long)m);
      MSL_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, aj, tkeys, rowof, trow, (long long)ann, 0, bits, st); }));
    }
    A.put(rowof);
    MSL_TRY(A.get(&ti, (long long)m + 1));
    MSL_LAUNCH(msl_tptr, (long long)ann + 1, (long long)ann, m, tkeys, ti);
    A.put(tkeys);
    MSL_TRY(A.get(&cnt, (long long)m + 1));
    MSL_TRY(A.get(&l.xi, (long long)m + 1));
    MSL_LAUNCH(msl_sym, m, m, ai, aj, ti, trow, hw, thw, cnt, nullptr, nullptr, nullptr);
    MSL_TRY(msl_scan(cnt, l.xi, (long long)m + 1, st));
    A.put(cnt);
    MSL_TRY(msl_read(&l.nnz, l.xi + m, st));
    MSL_TRY(A.get(&l.xj, l.nnz));
    MSL_TRY(A.get(&l.xw, l.nnz));
    MSL_LAUNCH(msl_sym, m, m, ai, aj, ti, trow, hw, thw, nullptr, l.xi, l.xj, l.xw);
    A.put(ti);
    A.put(trow);
    if (hw) A.put(hw);
    if (thw) A.put(thw);
    MSL_TRY(A.get(&l.sz, m));
    MSL_LAUNCH(msl_fill, m, (long long)m, l.sz, 1);
    l.n          = m;
    inf->nedges0 = l.nnz;
  }
  MSL_TRY(A.get(&match, m));
  MSL_TRY(A.get(&pick, m));
  /* coarsen until a level matches nothing */
  for (;;) {
    MSLLevel f = lev[nl - 1];
    long long nmatched = 0;

    inf->nnodesall += f.n;
    inf->nedgesall += f.nnz;
    if (nl > MS_LOCALITY_MAXLEVELS) break;
    MSL_LAUNCH(msl_fill, f.n, (long long)f.n, match, -1);
    for (int r = 0; r < MS_LOCALITY_ROUNDS; r++) {
      inf->rounds++;
      MSL_TRY(cudaMemsetAsync(dcnt, 0, sizeof(*dcnt), st));
      MSL_LAUNCH(msl_pick, f.n, f.n, f.xi, f.xj, f.xw, f.sz, match, pick);
      MSL_LAUNCH(msl_match, f.n, f.n, pick, match, dcnt);
      MSL_TRY(msl_read(&hcnt, dcnt, st));
      nmatched += (long long)hcnt;
      if (!hcnt) break;
    }
    if (!nmatched) break;
    {
      MSLLevel   c;
      int       *lead, *tk, *tv, *tk2, *tv2;
      long long *toff, *cnt;

      MSL_TRY(A.get(&lead, (long long)f.n + 1));
      MSL_TRY(A.get(&f.cid, (long long)f.n + 1));
      MSL_LAUNCH(msl_lead, (long long)f.n + 1, f.n, match, lead);
      MSL_TRY(msl_scan(lead, f.cid, (long long)f.n + 1, st));
      A.put(lead);
      MSL_TRY(msl_read(&c.n, f.cid + f.n, st));
      MSL_TRY(A.get(&c.c0, c.n));
      MSL_TRY(A.get(&c.c1, c.n));
      MSL_TRY(A.get(&c.sz, c.n));
      MSL_LAUNCH(msl_cid, f.n, f.n, match, f.sz, f.cid, c.c0, c.c1, c.sz);
      lev[nl - 1].cid = f.cid;
      /* entries: the children's, by coarse id, summed */
      MSL_TRY(A.get(&toff, (long long)c.n + 1));
      MSL_TRY(A.get(&cnt, (long long)c.n + 1));
      MSL_LAUNCH(msl_ccnt, (long long)c.n + 1, c.n, c.c0, c.c1, f.xi, cnt);
      MSL_TRY(msl_scan(cnt, toff, (long long)c.n + 1, st)); /* toff[c.n] = f.nnz */
      MSL_TRY(A.get(&tk, f.nnz));
      MSL_TRY(A.get(&tv, f.nnz));
      MSL_TRY(A.get(&tk2, f.nnz));
      MSL_TRY(A.get(&tv2, f.nnz));
      MSL_LAUNCH(msl_gather, c.n, c.n, c.c0, c.c1, f.xi, f.xj, f.xw, f.cid, toff, tk, tv);
      if (f.nnz > 0) MSL_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceSegmentedSort::SortPairs(t, b, tk, tk2, tv, tv2, f.nnz, (long long)c.n, toff, toff + 1, st); }));
      A.put(tk);
      A.put(tv);
      MSL_TRY(A.get(&c.xi, (long long)c.n + 1));
      MSL_LAUNCH(msl_reduce, (long long)c.n + 1, c.n, toff, tk2, tv2, cnt, nullptr, nullptr, nullptr);
      MSL_TRY(msl_scan(cnt, c.xi, (long long)c.n + 1, st));
      MSL_TRY(msl_read(&c.nnz, c.xi + c.n, st));
      MSL_TRY(A.get(&c.xj, c.nnz));
      MSL_TRY(A.get(&c.xw, c.nnz));
      MSL_LAUNCH(msl_reduce, (long long)c.n + 1, c.n, toff, tk2, tv2, nullptr, c.xi, c.xj, c.xw);
      A.put(tk2);
      A.put(tv2);
      A.put(toff);
      A.put(cnt);
      lev.push_back(c);
      nl++;
    }
  }
  inf->levels       = nl - 1;
  inf->ncoarse      = lev[nl - 1].n;
  inf->nedgescoarse = lev[nl - 1].nnz;
  /* the coarsest graph, ordered on the host */
  MSL_TRY(A.get(&start, m));
  MSL_TRY(A.get(&cstart, m));
  {
    const MSLLevel        &t = lev[nl - 1];
    std::vector<long long> hxi((size_t)t.n + 1);
    std::vector<int>       hxj((size_t)t.nnz + 1), hsz((size_t)t.n + 1), order((size_t)t.n + 1), hstart((size_t)t.n + 1);
    int                    pos = 0, err;

    MSL_TRY(cudaMemcpyAsync(hxi.data(), t.xi, ((size_t)t.n + 1) * sizeof(long long), cudaMemcpyDeviceToHost, st));
    if (t.nnz) MSL_TRY(cudaMemcpyAsync(hxj.data(), t.xj, (size_t)t.nnz * sizeof(int), cudaMemcpyDeviceToHost, st));
    MSL_TRY(cudaMemcpyAsync(hsz.data(), t.sz, (size_t)t.n * sizeof(int), cudaMemcpyDeviceToHost, st));
    MSL_TRY(cudaStreamSynchronize(st));
    if ((err = MSLocalityOrderCoarse(t.n, hxi.data(), hxj.data(), order.data()))) return err == MS_KERNEL_ERR_MEM ? cudaErrorMemoryAllocation : cudaErrorUnknown;
    for (int k = 0; k < t.n; k++) {
      hstart[order[k]] = pos;
      pos += hsz[order[k]];
    }
    MSL_TRY(cudaMemcpyAsync(cstart, hstart.data(), (size_t)t.n * sizeof(int), cudaMemcpyHostToDevice, st));
    MSL_TRY(cudaStreamSynchronize(st)); /* hstart goes out of scope */
  }
  for (int L = nl - 2; L >= 0; L--) {
    const MSLLevel &l = lev[L], &c = lev[L + 1];
    int            *tmp;

    MSL_LAUNCH(msl_place, c.n, c.n, c.c0, c.c1, c.sz, l.xi, l.xj, l.xw, l.cid, l.sz, cstart, start);
    tmp    = cstart;
    cstart = start;
    start  = tmp;
  }
  /* refinement on level 0 (cstart: the position of every row) */
  {
    const MSLLevel     &l  = lev[0];
    const long long     nb = ((long long)m + sh - 1) / sh;
    const int           pbits = msl_bits((unsigned long long)((nb - 1) * nb + nb - 1) * 2ULL + 1ULL), gbits = msl_bits(2 * MSL_GOFF);
    int                *flag, *idx, *cb, *cg;
    unsigned long long *keyp;
    unsigned           *keyg;

    MSL_TRY(A.get(&flag, (long long)m + 1));
    MSL_TRY(A.get(&idx, (long long)m + 1));
    MSL_TRY(A.get(&cb, m));
    MSL_TRY(A.get(&cg, m));
    MSL_TRY(A.get(&keyp, m));
    MSL_TRY(A.get(&keyg, m));
    for (int r = 0; r < MS_LOCALITY_REFINE_ROUNDS; r++) {
      int                 nc;
      int                *cu, *iota, *ord1, *ord2;
      unsigned           *keyg1;
      unsigned long long *sp1, *sp2;

      inf->refinerounds++;
      MSL_LAUNCH(msl_cand, (long long)m + 1, m, l.xi, l.xj, l.xw, cstart, sh, flag, cb, cg);
      MSL_TRY(msl_scan(flag, idx, (long long)m + 1, st));
      MSL_TRY(msl_read(&nc, idx + m, st));
      hcnt = 0;
      if (nc > 0) {
        MSL_TRY(A.get(&cu, nc));
        MSL_TRY(A.get(&iota, nc));
        MSL_TRY(A.get(&ord1, nc));
        MSL_TRY(A.get(&ord2, nc));
        MSL_TRY(A.get(&keyg1, nc));
        MSL_TRY(A.get(&sp1, nc));
        MSL_TRY(A.get(&sp2, nc));
        MSL_LAUNCH(msl_cand_keys, m, m, flag, idx, cstart, sh, nb, cb, cg, keyp, keyg, cu, iota);
        /* (block pair, direction, gain descending, row): stable sorts by the gain, then by the pair (rows ascending before) */
        MSL_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, keyg, keyg1, iota, ord1, (long long)nc, 0, gbits, st); }));
        MSL_LAUNCH(msl_gather_keys, nc, nc, ord1, keyp, sp1);
        MSL_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, sp1, sp2, ord1, ord2, (long long)nc, 0, pbits, st); }));
        MSL_TRY(cudaMemsetAsync(dcnt, 0, sizeof(*dcnt), st));
        MSL_LAUNCH(msl_pair, nc, nc, sp2, ord2, cu, cg, l.xi, l.xj, l.xw, cstart, dcnt);
        MSL_TRY(msl_read(&hcnt, dcnt, st));
        A.put(cu);
        A.put(iota);
        A.put(ord1);
        A.put(ord2);
        A.put(keyg1);
        A.put(sp1);
        A.put(sp2);
      }
      inf->nswaps += (long long)hcnt;
      if (!hcnt) break;
    }
  }
  MSL_LAUNCH(msl_final, m, m, cstart, perm, iperm);
  return cudaGetLastError();
}

extern "C" MS_LOCALITY_PARTITION(MSLocalityPartition_CUDA)
{
  MSLocalityInfo inf = {};
  cudaError_t    err;

  if (m < 0 || sh < 1 || (m > 0 && (!ai || !aj || !perm))) return (int)cudaErrorInvalidValue;
  if (m == 0) {
    if (info) *info = inf;
    return (int)cudaSuccess;
  }
  err = msl_partition(m, ai, aj, aa, sh, perm, iperm, &inf, (cudaStream_t)stream);
  if (err == cudaSuccess && info) *info = inf;
  return (int)err;
}

extern "C" const MSLocalityKernels MSLocalityKernels_CUDA = {"cuda", 1, MSLocalityPartition_CUDA};
