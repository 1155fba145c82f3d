/*
   CUDA kernels of PCBRBILU (see include/petscmodsell/private/brbilukernels.h for the storage and the functions;
   brbilu_reference.c computes the same). One warp per block of the colour being processed: the warp walks the levels
   (wavefronts) of its block in order (forward, factorization) or in reverse (backward); the rows of one level are
   independent and go to the 32 lanes (several passes when a level has more than 32 rows), __syncwarp() between
   levels. A block's rows are stored by level and its slots slot-major (stride: the block's row count), so the lanes
   read consecutive addresses. The values of earlier levels are read back from global memory, written by lanes of the
   same warp: __syncwarp() orders memory among the participating lanes, and those arrays are read with ordinary
   (coherent) loads, never __ldg. Each row computes what the reference computes for it, in the same order.
   Colour phases are consecutive launches on the stream (the only synchronisation between them). The row operations
   of the factorization are the header's (MSBRBGatherRow, MSBRBFactorRow), shared with the reference. The layout
   (ordering, levels, storage rows) is built by brbilu_layout.cu.
*/
#include <cuda_runtime.h>
#include <petscmodsell/private/brbilukernels.h>

/* Launch shape (compile-time, NVCCFLAGS=-D...; the same function whatever they are): BRB_WARPS warps (blocks of the
   ordering) per thread block of a colour phase; BRB_MINB, when defined, the minimum resident thread blocks given to
   __launch_bounds__ of the substitution kernels (registers capped); BRB_XU the rows a lane scatters at once into the
   user's order after the backward walk. One application on the magnetron (H100, 2026-11-28,
   docs/brbilu.md): 4 warps
   0.709 ms, 2 warps 0.709, 8 warps 0.724; BRB_MINB 8 (64 registers, spills) 0.769, BRB_MINB 1 (94-96 registers)
   0.721-0.735; BRB_XU 4 0.697-0.698 against 2 (ptxas: the same registers). */
#ifndef BRB_WARPS
  #define BRB_WARPS 4
#endif
#ifdef BRB_MINB
  #define BRB_SUBST_BOUNDS __launch_bounds__(BRB_THREADS, BRB_MINB)
#else
  #define BRB_SUBST_BOUNDS __launch_bounds__(BRB_THREADS)
#endif
#ifndef BRB_XU
  #define BRB_XU 4
#endif
#ifndef BRB_TU
  #define BRB_TU 4 /* grid orderings: the points a lane moves at once into the buffer and out of it before the forward walk */
#endif
#define BRB_THREADS (32 * BRB_WARPS) /* threads per thread block of a colour phase */

static inline unsigned brb_grid(long long n, int threads)
{
  return (unsigned)((n + threads - 1) / threads);
}

/* The setup kernels walk rows by the header's helpers, which take the layout by address: they read it from a copy in
   global memory (a kernel parameter whose address is taken would be copied to every thread's local memory) */
__global__ static void brb_gather_kernel(const MSBRBLayout *__restrict__ lay, const int *__restrict__ map, const int *__restrict__ dmap, const double *__restrict__ csrvals, double pertfac, double *work, double *d)
{
  const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= lay->roff[lay->ncolors]) return;
  MSBRBGatherRow(lay, s, map, dmap, csrvals, pertfac, work, d);
}

/* MSBRBRatioKey() on the device */
static __device__ __forceinline__ unsigned long long brb_ratio_key(double r)
{
  const unsigned long long b = (unsigned long long)__double_as_longlong(r);

  if (r != r) return 0ULL;
  return (b >> 63) ? ~b : (b | (1ULL << 63));
}

/* one warp per block of colour c: levels in order, the rows of a level on the lanes. A row reads the rows of its lower
   entries (lower levels of its block, earlier colours) and writes only its own slots and pivot. The smallest pivot
   ratio of the block: a warp minimum, one atomic per warp when it lowers the stored one. */
__global__ static void __launch_bounds__(BRB_THREADS) brb_factor_kernel(const MSBRBLayout *__restrict__ lay, int c, const int *__restrict__ dmap, const double *__restrict__ csrvals, double alpha, double pivtol, double *work, double *d, MSBRBStatus *status)
{
  const int          lane = threadIdx.x & 31, j = blockIdx.x * BRB_WARPS + (threadIdx.x >> 5);
  unsigned long long mk   = ~0ULL;

  if (j >= lay->nb[c]) return; /* the whole warp */
  {
    const int b = lay->boff[c] + j, g1 = lay->lstart[b + 1];

    for (int g = lay->lstart[b]; g < g1; g++) {
      const int r1 = lay->lptr[g + 1];
      for (int s = lay->lptr[g] + lane; s < r1; s += 32) {
        double                   r;
        const int                bad = MSBRBFactorRow(lay, s, dmap, csrvals, alpha, pivtol, work, d, &r);
        const unsigned long long k   = brb_ratio_key(r);

        mk = k < mk ? k : mk;
        if (bad) atomicMin(&status->badrow, (unsigned long long)lay->sperm[s]);
      }
      __syncwarp(); /* the level's rows are final for the next level's lanes */
    }
  }
  for (int off = 16; off; off >>= 1) {
    const unsigned long long o = __shfl_xor_sync(0xffffffffu, mk, off);
    mk                         = o < mk ? o : mk;
  }
  if (lane == 0 && mk < *(volatile unsigned long long *)&status->minkey) atomicMin(&status->minkey, mk);
}

template <typename T>
__global__ static void brb_convert_kernel(const MSBRBLayout *__restrict__ play, int symmetric, const double *__restrict__ work, const double *__restrict__ d, T *fvals, T *fdinv)
{
  const MSBRBLayout &lay = *play;
  const long long    s   = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long          slot0;
  int                stride, w;

  if (s >= lay.roff[lay.ncolors]) return;
  const double di = 1.0 / d[s];
  MSBRBRow(&lay, s, &slot0, &stride, &w);
  for (int k = 0; k < w; k++) {
    const long long slot = slot0 + (long long)k * stride;
    const int       c    = lay.col[slot];
    double          v;

    if (c < 0) v = 0.0;
    else if (k < lay.nl[s]) v = work[slot];
    else if (symmetric) {
      long long j0;
      int       js, jw;

      v = 0.0;
      MSBRBRow(&lay, c, &j0, &js, &jw);
      for (int q = 0; q < lay.nl[c]; q++)
        if (lay.col[j0 + (long long)q * js] == (int)s) {
          v = work[j0 + (long long)q * js];
          break;
        }
    } else v = work[slot] * di;
    fvals[slot] = (T)v;
  }
  fdinv[s] = (T)di;
}

/* The substitutions walk a block's rows in chunks: the rows lptr[g] + 32 t .. of level g, one per lane. What a chunk
   reads besides the y of other rows (its rows' counts, right-hand sides or diagonals, permutation, columns and factor
   values: the first BRB_PF slots of each row in registers) does not depend on the chunk's level, so it is loaded for
   the next chunk while the present one waits for its gathers of y: after a level's __syncwarp() a lane waits for one
   round of gathers, not for a chain of dependent loads. The sums keep the slot order (the reference's function). */
#define BRB_PF 6

/* The permutation to and from the user's order, outside the level walk: before the forward walk a block's rows get
   y_s = b[sperm[s]] (TOUSER false), after the backward walk x[sperm[s]] = y_s (TOUSER true), the rows r0 .. r0+R-1
   taken 32 U at a time with U loads of a lane in flight. Inside the walk these were one scattered access per row
   and level step, waited for at every level; with the independent slot loads of brb_bload one application on the
   magnetron went from 0.778 to 0.709 ms (H100, 2026-11-28, docs/brbilu.md); the values are
   the same. */
template <int U, bool TOUSER>
static __device__ __forceinline__ void brb_block_perm(const int *__restrict__ sperm, int r0, int R, int lane, const double *src, double *dst)
{
  for (int t = r0 + lane; t < r0 + R; t += 32 * U) {
    int    q[U];
    double u[U];
#pragma unroll
    for (int k = 0; k < U; k++) q[k] = t + 32 * k < r0 + R ? __ldg(sperm + t + 32 * k) : -1;
#pragma unroll
    for (int k = 0; k < U; k++)
      if (q[k] >= 0) u[k] = TOUSER ? src[t + 32 * k] : __ldg(src + q[k]);
#pragma unroll
    for (int k = 0; k < U; k++)
      if (q[k] >= 0) dst[TOUSER ? q[k] : t + 32 * k] = u[k];
  }
}

/* A grid ordering's block on the GPU (lay.tbuf > 0): its brick (first point's local row, widths) and the pitch P of its
   buffer in shared memory (wx rounded up to even: between the storage order's neighbouring rows, which differ by one
   in y and -1 in x, the buffer's stride P - 1 is odd, so that a half-warp's doubles fall in distinct banks) */
struct brb_brick {
  int base, wx, wy, P;
};

static __device__ __forceinline__ brb_brick brb_brick_of(const MSBRBLayout &lay, int blk)
{
  const MSBRBGrid g = lay.grid;
  int             lo[3], hi[3];
  brb_brick       k;

  MSBRBGridBrick(&g, __ldg(lay.bid + blk), lo, hi);
  k.wx   = hi[0] - lo[0];
  k.wy   = hi[1] - lo[1];
  k.P    = k.wx + (k.wx & 1);
  k.base = lo[0] + g.box[0] * (lo[1] + g.box[1] * lo[2]);
  return k;
}

/* Between the user's order and a block's buffer, along the brick's x-lines (consecutive lanes, consecutive points of a
   line: the user's side in whole sectors but at the lines' ends): TOUSER false buf[place] = src[user row], true
   dst[user row] = buf[place]; U points a lane in flight. The scattered b[sperm[s]] / x[sperm[s]] of brb_block_perm
   took 32 L1 wavefronts a warp access (H100, 2026-11-28). */
template <int U, bool TOUSER>
static __device__ __forceinline__ void brb_brick_lines(const brb_brick &k, int box0, int box1, int R, int lane, const double *src, double *dst, double *buf)
{
  const int a = 32 / k.wx, bb = 32 - a * k.wx;
  int       ix = lane % k.wx, iy = lane / k.wx, iz = iy / k.wy;

  iy -= iz * k.wy;
  for (int t0 = lane; t0 < R; t0 += 32 * U) {
    int    ui[U], si[U];
    double v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      ui[u] = k.base + ix + box0 * (iy + box1 * iz);
      si[u] = ix + k.P * (iy + k.wy * iz);
      ix += bb;
      iy += a;
      if (ix >= k.wx) {
        ix -= k.wx;
        iy++;
      }
      while (iy >= k.wy) {
        iy -= k.wy;
        iz++;
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++)
      if (t0 + 32 * u < R) v[u] = TOUSER ? buf[si[u]] : src[ui[u]];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (t0 + 32 * u < R) {
        if (TOUSER) dst[ui[u]] = v[u];
        else buf[si[u]] = v[u];
      }
  }
}

/* Between a block's buffer and its storage-ordered y (coalesced): TOY true y_s = buf[tpos[s]], false buf[tpos[s]] = y_s */
template <int U, bool TOY>
static __device__ __forceinline__ void brb_buf_storage(const unsigned short *__restrict__ tpos, int r0, int R, int lane, double *buf, double *y)
{
  for (int t = r0 + lane; t < r0 + R; t += 32 * U) {
    int    q[U];
    double v[U];
#pragma unroll
    for (int u = 0; u < U; u++) q[u] = t + 32 * u < r0 + R ? (int)__ldg(tpos + t + 32 * u) : -1;
#pragma unroll
    for (int u = 0; u < U; u++)
      if (q[u] >= 0) v[u] = TOY ? buf[q[u]] : y[t + 32 * u];
#pragma unroll
    for (int u = 0; u < U; u++)
      if (q[u] >= 0) {
        if (TOY) y[t + 32 * u] = v[u];
        else buf[q[u]] = v[u];
      }
  }
}

/* the chunk after the rows s0 .. of level g (r1: the level's end) in direction dir; false past the block's last level
   (gend); *sync: the next chunk starts a new level */
static __device__ __forceinline__ bool brb_next_chunk(const int *__restrict__ lptr, int gend, int dir, int *g, int *s0, int *r1, bool *sync)
{
  *s0 += 32;
  *sync = false;
  if (*s0 < *r1) return true;
  *g += dir;
  if (*g == gend) return false;
  *s0   = __ldg(lptr + *g);
  *r1   = __ldg(lptr + *g + 1);
  *sync = true;
  return true;
}

/* one lane's row of a chunk: s (valid: s is a row of the chunk), p = s - r0 its place in the block, n slots to sum
   (the first BRB_PF in registers), acc: the forward right-hand side (y_s, copied from b[sperm[s]] before the walk) or
   the backward dinv_s y_s; k0: its first slot to sum (0 forward, nl backward). Slots are addressed from the block's
   first slot (cb, vb: col and v at slot (r0, 0)) by the 32-bit offset p + k R (one application 0.4-1.5% faster than
   64-bit slot numbers: H100, 2026-11-24, docs/brbilu.md). */
template <typename T>
struct brb_chunk {
  int    s, p, n, k0;
  bool   valid;
  double acc;
  int    cols[BRB_PF];
  T      vals[BRB_PF];
};

/* forward: the lower slots 0 .. nl-1 */
template <typename T>
static __device__ __forceinline__ void brb_fload(brb_chunk<T> *ch, int s, int r0, int r1, int R, const unsigned short *__restrict__ nlv, const int *__restrict__ cb, const T *__restrict__ vb, const double *y)
{
  ch->s     = s;
  ch->p     = s - r0;
  ch->valid = s < r1;
  ch->n     = 0;
  ch->k0    = 0;
  if (!ch->valid) return;
  ch->n   = __ldg(nlv + s);
  ch->acc = y[s];
#pragma unroll
  for (int k = 0; k < BRB_PF; k++)
    if (k < ch->n) {
      ch->cols[k] = __ldg(cb + ch->p + k * R);
      ch->vals[k] = __ldg(vb + ch->p + k * R);
    }
}

/* backward: the upper slots nl .. up to the first padding slot (col -1) or W; y[s] was written by the forward launches
   and is not written in this launch before row s itself */
template <typename T>
static __device__ __forceinline__ void brb_bload(brb_chunk<T> *ch, int s, int r0, int r1, int R, int W, const unsigned short *__restrict__ nlv, const int *__restrict__ cb, const T *__restrict__ vb, const T *__restrict__ dinv, const double *y)
{
  ch->s     = s;
  ch->p     = s - r0;
  ch->valid = s < r1;
  ch->n     = 0;
  if (ch->valid) {
    const int nl = __ldg(nlv + s);
    int       n  = 0, cc[BRB_PF];

    ch->k0  = nl;
    ch->acc = (double)__ldg(dinv + s) * y[s];
    /* every slot's column and value loaded independently, then counted up to the first padding slot (loading slot
       k + 1 only once slot k's column was known made a chain of up to W dependent loads) */
#pragma unroll
    for (int k = 0; k < BRB_PF; k++) {
      cc[k] = -1;
      if (nl + k < W) {
        cc[k]       = __ldg(cb + ch->p + (nl + k) * R);
        ch->vals[k] = __ldg(vb + ch->p + (nl + k) * R);
      }
    }
#pragma unroll
    for (int k = 0; k < BRB_PF; k++)
      if (n == k && cc[k] >= 0) {
        ch->cols[k] = cc[k];
        n++;
      }
    /* more than BRB_PF upper slots: the count of the rest (read again in the sum) */
    if (n == BRB_PF)
      for (int k = nl + BRB_PF; k < W && __ldg(cb + ch->p + k * R) >= 0; k++) n++;
    ch->n = n;
  }
}

/* the gathers of a chunk's y (the first BRB_PF slots) */
template <typename T>
static __device__ __forceinline__ void brb_gather(const brb_chunk<T> *ch, const double *y, double yv[BRB_PF])
{
#pragma unroll
  for (int k = 0; k < BRB_PF; k++)
    if (k < ch->n) yv[k] = y[ch->cols[k]];
}

/* the row's sum (slots k0 .. k0+n-1 in order) */
template <typename T>
static __device__ __forceinline__ double brb_sum(const brb_chunk<T> *ch, const double *yv, int R, const int *__restrict__ cb, const T *__restrict__ vb, const double *y)
{
  double acc = ch->acc;
#pragma unroll
  for (int k = 0; k < BRB_PF; k++)
    if (k < ch->n) acc -= (double)ch->vals[k] * yv[k];
  for (int k = BRB_PF; k < ch->n; k++) {
    const int o = ch->p + (ch->k0 + k) * R;
    acc -= (double)__ldg(vb + o) * y[__ldg(cb + o)];
  }
  return acc;
}

/* forward substitution of block j of colour c by one warp, levels in order: y_s = b[sperm[s]] - sum_lower l y_col.
   y is read with coherent loads: rows of earlier levels were written by lanes of this warp (before a __syncwarp()),
   rows of earlier colours by earlier launches. */
template <typename T, bool TR>
static __device__ __forceinline__ void brb_forward_block(const MSBRBLayout &lay, int c, int j, int lane, const T *__restrict__ v, const double *__restrict__ b, double *y, double *buf)
{
  const int *__restrict__ sperm          = lay.sperm;
  const int *__restrict__ lptr           = lay.lptr;
  const unsigned short *__restrict__ nlv = lay.nl;
  const int                          blk = lay.boff[c] + j;
  const int                          r0 = __ldg(lay.rstart + blk), R = __ldg(lay.rstart + blk + 1) - r0;
  const int                          g1 = __ldg(lay.lstart + blk + 1);
  const long long                    sb = lay.soff[c] + (long long)(r0 - lay.roff[c]) * lay.W[c]; /* slot of (row r0, 0) */
  const int *__restrict__ cb             = lay.col + sb;
  const T *__restrict__ vb               = v + sb;
  int                                g  = __ldg(lay.lstart + blk), s0, r1;
  bool                               more, sync;
  brb_chunk<T>                       cur, nxt;

  if (g >= g1) return; /* a block with no rows */
  if (TR) { /* y = b in storage order through the buffer: the brick's x-lines in, then the storage order out */
    brb_brick_lines<BRB_TU, false>(brb_brick_of(lay, blk), lay.grid.box[0], lay.grid.box[1], R, lane, b, nullptr, buf);
    __syncwarp();
    brb_buf_storage<BRB_TU, true>(lay.tpos, r0, R, lane, buf, y);
  } else brb_block_perm<8, false>(sperm, r0, R, lane, b, y); /* y = b in storage order; the walk reads it back */
  __syncwarp();
  s0 = __ldg(lptr + g);
  r1 = __ldg(lptr + g + 1);
  brb_fload(&cur, s0 + lane, r0, r1, R, nlv, cb, vb, y);
  do {
    double yv[BRB_PF];

    brb_gather(&cur, y, yv);
    more = brb_next_chunk(lptr, g1, 1, &g, &s0, &r1, &sync);
    if (more) brb_fload(&nxt, s0 + lane, r0, r1, R, nlv, cb, vb, y);
    if (cur.valid) y[cur.s] = brb_sum(&cur, yv, R, cb, vb, y);
    cur = nxt;
    if (sync) __syncwarp(); /* the level's rows are final for the next level's lanes */
  } while (more);
}

/* backward substitution of block j of colour c by one warp, levels in reverse: y_s = dinv_s y_s - sum_upper u~ y_col,
   x[sperm[s]] = y_s */
template <typename T, bool TR>
static __device__ __forceinline__ void brb_backward_block(const MSBRBLayout &lay, int c, int j, int lane, const T *__restrict__ v, const T *__restrict__ dinv, double *y, double *x, double *buf)
{
  const int *__restrict__ sperm          = lay.sperm;
  const int *__restrict__ lptr           = lay.lptr;
  const unsigned short *__restrict__ nlv = lay.nl;
  const int                          W   = lay.W[c];
  const int                          blk = lay.boff[c] + j;
  const int                          r0 = __ldg(lay.rstart + blk), R = __ldg(lay.rstart + blk + 1) - r0;
  const int                          g0 = __ldg(lay.lstart + blk);
  const long long                    sb = lay.soff[c] + (long long)(r0 - lay.roff[c]) * W;
  const int *__restrict__ cb             = lay.col + sb;
  const T *__restrict__ vb               = v + sb;
  int                                g  = __ldg(lay.lstart + blk + 1) - 1, s0, r1;
  bool                               more, sync;
  brb_chunk<T>                       cur, nxt;

  if (g < g0) return; /* a block with no rows */
  s0 = __ldg(lptr + g);
  r1 = __ldg(lptr + g + 1);
  brb_bload(&cur, s0 + lane, r0, r1, R, W, nlv, cb, vb, dinv, y);
  do {
    double yv[BRB_PF];

    brb_gather(&cur, y, yv);
    more = brb_next_chunk(lptr, g0 - 1, -1, &g, &s0, &r1, &sync);
    if (more) brb_bload(&nxt, s0 + lane, r0, r1, R, W, nlv, cb, vb, dinv, y);
    if (cur.valid) y[cur.s] = brb_sum(&cur, yv, R, cb, vb, y);
    cur = nxt;
    if (sync) __syncwarp();
  } while (more);
  __syncwarp();
  if (TR) { /* x in user order through the buffer: the storage order in, the brick's x-lines out */
    brb_buf_storage<BRB_XU, false>(lay.tpos, r0, R, lane, buf, y);
    __syncwarp();
    brb_brick_lines<BRB_XU, true>(brb_brick_of(lay, blk), lay.grid.box[0], lay.grid.box[1], R, lane, nullptr, x, buf);
  } else brb_block_perm<BRB_XU, true>(sperm, r0, R, lane, y, x); /* x in user order (BRB_XU rows a lane in flight: 8 raise the fused kernel's registers) */
}

/* one warp per block of colour c: the forward substitution (FWD), the backward one (BWD), or both (the last colour: its
   backward phase reads only its own block's y, which the same warp has just written; __syncwarp() orders them) */
template <typename T, bool FWD, bool BWD, bool TR>
static __device__ __forceinline__ void brb_subst(const MSBRBLayout &lay, int c, const T *__restrict__ v, const T *__restrict__ dinv, const double *__restrict__ b, double *y, double *x)
{
  extern __shared__ double brb_tbuf[]; /* TR: tbuf doubles per warp */
  const int lane = threadIdx.x & 31, j = blockIdx.x * BRB_WARPS + (threadIdx.x >> 5);
  double   *buf  = TR ? brb_tbuf + (threadIdx.x >> 5) * lay.tbuf : nullptr;

  if (j >= lay.nb[c]) return; /* the whole warp */
  if (FWD) brb_forward_block<T, TR>(lay, c, j, lane, v, b, y, buf);
  if (FWD && BWD) __syncwarp();
  if (BWD) brb_backward_block<T, TR>(lay, c, j, lane, v, dinv, y, x, buf);
}

template <typename T, bool FWD, bool BWD, bool TR>
__global__ static void BRB_SUBST_BOUNDS brb_subst_kernel(const MSBRBLayout lay, int c, const T *__restrict__ v, const T *__restrict__ dinv, const double *__restrict__ b, double *y, double *x)
{
  brb_subst<T, FWD, BWD, TR>(lay, c, v, dinv, b, y, x);
}

/* Single factors through the shared-memory buffer, registers bounded: without a bound ptxas gave the fused kernel 96
   registers (20 resident warps a multiprocessor), with 7 blocks 72 and spills (one application on the magnetron 0.679,
   0.732 ms), with 6 blocks 80 (24 warps; 24 bytes spilled by the fused kernel): 0.670 ms against 0.697 ms for the
   scattered copies (H100, 2026-11-28, docs/brbilu.md). Double factors take the
   unbounded kernel (not measured). */
#ifndef BRB_TR_MINB
  #define BRB_TR_MINB 6
#endif
#if BRB_TR_MINB > 0
  #define BRB_TR_BOUNDS __launch_bounds__(BRB_THREADS, BRB_TR_MINB)
#else
  #define BRB_TR_BOUNDS __launch_bounds__(BRB_THREADS)
#endif
template <bool FWD, bool BWD>
__global__ static void BRB_TR_BOUNDS brb_subst_trf_kernel(const MSBRBLayout lay, int c, const float *__restrict__ v, const float *__restrict__ dinv, const double *__restrict__ b, double *y, double *x)
{
  brb_subst<float, FWD, BWD, true>(lay, c, v, dinv, b, y, x);
}

/* one launch of a colour phase */
template <typename T, bool FWD, bool BWD, bool TR>
static void brb_launch(const MSBRBLayout *lay, int c, size_t sm, const T *v, const T *dinv, const double *b, double *x, double *y, cudaStream_t st)
{
  const unsigned nblk = brb_grid(lay->nb[c], BRB_WARPS);

  if constexpr (TR && sizeof(T) == sizeof(float)) brb_subst_trf_kernel<FWD, BWD><<<nblk, BRB_THREADS, sm, st>>>(*lay, c, v, dinv, b, y, x);
  else brb_subst_kernel<T, FWD, BWD, TR><<<nblk, BRB_THREADS, sm, st>>>(*lay, c, v, dinv, b, y, x);
}

/* tpos of a grid ordering (one warp per block): a storage row's point (sperm, the brick's local row) at ix + P (iy + wy iz) */
__global__ static void __launch_bounds__(BRB_THREADS) brb_tpos_kernel(const MSBRBLayout lay, int nblocks, unsigned short *tpos)
{
  const int lane = threadIdx.x & 31, blk = blockIdx.x * BRB_WARPS + (threadIdx.x >> 5);

  if (blk >= nblocks) return;
  const brb_brick k  = brb_brick_of(lay, blk);
  const int       r0 = __ldg(lay.rstart + blk), R = __ldg(lay.rstart + blk + 1) - r0, box0 = lay.grid.box[0], box1 = lay.grid.box[1];
  for (int p = lane; p < R; p += 32) {
    const int q = __ldg(lay.sperm + r0 + p) - k.base, ix = q % box0, rr = q / box0, iy = rr % box1, iz = rr / box1;
    tpos[r0 + p] = (unsigned short)(ix + k.P * (iy + k.wy * iz));
  }
}

MS_BRB_BUFFER_PLACES(MSBRBBufferPlaces_CUDA)
{
  const int nb = lay->boff[lay->ncolors];

  if (!nb) return 0;
  brb_tpos_kernel<<<brb_grid(nb, BRB_WARPS), BRB_THREADS, 0, (cudaStream_t)stream>>>(*lay, nb, tpos);
  return (int)cudaGetLastError();
}

MS_BRB_MULTIPROCESSORS(MSBRBMultiprocessors_CUDA)
{
  int         dev;
  cudaError_t err = cudaGetDevice(&dev);

  if (err == cudaSuccess) err = cudaDeviceGetAttribute(nsm, cudaDevAttrMultiProcessorCount, dev);
  return (int)err;
}

/* a device copy of the layout, freed in stream order after the kernels that read it */
static cudaError_t brb_layout_copy(const MSBRBLayout *lay, MSBRBLayout **dlay, cudaStream_t st)
{
  cudaError_t err = cudaMallocAsync((void **)dlay, sizeof(MSBRBLayout), st);
  if (err != cudaSuccess) return err;
  /* from pageable memory: the call returns once *lay has been read */
  return cudaMemcpyAsync(*dlay, lay, sizeof(MSBRBLayout), cudaMemcpyHostToDevice, st);
}

MS_BRB_FACTOR(MSBRBFactor_CUDA)
{
  cudaStream_t    st = (cudaStream_t)stream;
  const long long ns = lay->roff[lay->ncolors];
  MSBRBLayout    *dlay = NULL;
  cudaError_t     err;

  err = cudaMemsetAsync(status, 0xff, sizeof(MSBRBStatus), st); /* badrow = minkey = MS_BRB_BAD_NONE */
  if (err != cudaSuccess) return (int)err;
  if (ns <= 0) return 0;
  if ((err = brb_layout_copy(lay, &dlay, st)) != cudaSuccess) return (int)err;
  brb_gather_kernel<<<brb_grid(ns, 256), 256, 0, st>>>(dlay, map, dmap, csrvals, pertfac, work, d);
  err = cudaGetLastError();
  for (int c = 0; c < lay->ncolors && err == cudaSuccess; c++) {
    if (!lay->nb[c]) continue;
    brb_factor_kernel<<<brb_grid(lay->nb[c], BRB_WARPS), BRB_THREADS, 0, st>>>(dlay, c, dmap, csrvals, alpha, pivtol, work, d, status);
    err = cudaGetLastError();
  }
  {
    const cudaError_t ferr = cudaFreeAsync(dlay, st);
    if (err == cudaSuccess) err = ferr;
  }
  return (int)err;
}

MS_BRB_CONVERT(MSBRBConvert_CUDA)
{
  cudaStream_t    st = (cudaStream_t)stream;
  const long long ns = lay->roff[lay->ncolors];
  MSBRBLayout    *dlay = NULL;
  cudaError_t     err;

  if (ns <= 0) return 0;
  if ((err = brb_layout_copy(lay, &dlay, st)) != cudaSuccess) return (int)err;
  if (single) brb_convert_kernel<float><<<brb_grid(ns, 256), 256, 0, st>>>(dlay, symmetric, work, d, (float *)fvals, (float *)fdinv);
  else brb_convert_kernel<double><<<brb_grid(ns, 256), 256, 0, st>>>(dlay, symmetric, work, d, (double *)fvals, (double *)fdinv);
  err = cudaGetLastError();
  {
    const cudaError_t ferr = cudaFreeAsync(dlay, st);
    if (err == cudaSuccess) err = ferr;
  }
  return (int)err;
}

/* colours in order forward, the last colour forward and backward in one launch, the others backward in reverse */
template <typename T, bool TR>
static int brb_apply(const MSBRBLayout *lay, const T *v, const T *dinv, const double *b, double *x, double *y, cudaStream_t st)
{
  const int    last = lay->ncolors - 1;
  const size_t sm   = TR ? (size_t)BRB_WARPS * (size_t)lay->tbuf * sizeof(double) : 0; /* at most 48 KiB: MS_BRB_TBUF_MAX */
  cudaError_t  err;

  for (int c = 0; c < last; c++) {
    if (!lay->nb[c]) continue;
    brb_launch<T, true, false, TR>(lay, c, sm, v, dinv, b, x, y, st);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  if (last >= 0 && lay->nb[last]) {
    brb_launch<T, true, true, TR>(lay, last, sm, v, dinv, b, x, y, st);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  for (int c = last - 1; c >= 0; c--) {
    if (!lay->nb[c]) continue;
    brb_launch<T, false, true, TR>(lay, c, sm, v, dinv, b, x, y, st);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  return 0;
}

MS_BRB_APPLY(MSBRBApply_CUDA)
{
  const cudaStream_t st = (cudaStream_t)stream;

#ifndef BRB_NO_TR
  #define BRB_NO_TR 0 /* developer: 1 takes the scattered copies through sperm whatever the ordering */
#endif
  if (lay->tbuf > 0 && !BRB_NO_TR) {
    if (single) return brb_apply<float, true>(lay, (const float *)fvals, (const float *)fdinv, b, x, y, st);
    return brb_apply<double, true>(lay, (const double *)fvals, (const double *)fdinv, b, x, y, st);
  }
  if (single) return brb_apply<float, false>(lay, (const float *)fvals, (const float *)fdinv, b, x, y, st);
  return brb_apply<double, false>(lay, (const double *)fvals, (const double *)fdinv, b, x, y, st);
}

/* one thread per storage row: consecutive threads (rows of a level) write consecutive slots */
__global__ static void brb_slots_kernel(const MSBRBLayout *__restrict__ lay, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ pos, const int *__restrict__ stor, int *col, int *map, unsigned short *nl, int *dmap)
{
  const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= lay->roff[lay->ncolors]) return;
  MSBRBSlotsRow(lay, s, ai, aj, pos, stor, col, map, nl, dmap);
}

MS_BRB_SLOTS(MSBRBSlots_CUDA)
{
  cudaStream_t    st = (cudaStream_t)stream;
  const long long ns = lay->roff[lay->ncolors];
  MSBRBLayout    *dlay = NULL;
  cudaError_t     err;

  if (ns <= 0) return 0;
  if ((err = brb_layout_copy(lay, &dlay, st)) != cudaSuccess) return (int)err;
  brb_slots_kernel<<<brb_grid(ns, 256), 256, 0, st>>>(dlay, ai, aj, pos, stor, col, map, nl, dmap);
  err = cudaGetLastError();
  {
    const cudaError_t ferr = cudaFreeAsync(dlay, st);
    if (err == cudaSuccess) err = ferr;
  }
  return (int)err;
}

const MSBRBKernels MSBRBKernels_CUDA = {"CUDA", MS_BRB_TBUF_MAX, MSBRBMultiprocessors_CUDA, MSBRBFactor_CUDA, MSBRBConvert_CUDA, MSBRBApply_CUDA, MSBRBSlots_CUDA, MSBRBGridPerm_CUDA, MSBRBLevels_CUDA, MSBRBStorage_CUDA, MSBRBBufferPlaces_CUDA, MSBRBBlockEdges_CUDA, MSBRBGraphPerm_CUDA, MSBRBInnerOrder_CUDA};
