/*
   CUDA layout of PCBRBILU (brbilukernels.h: MS_BRB_GRID_PERM, MS_BRB_LEVELS, MS_BRB_STORAGE): the same arrays as the
   host reference (brbilu_reference.c), bit for bit, from the device CSR, with nothing proportional to the rows on the
   host. Work on the given stream; temporaries stream-ordered (cudaMallocAsync / cudaFreeAsync); no synchronisation
   (the glue reads the level pass's MSBRBLevelInfo back once).

   Kernels (m rows, nb blocks; one warp per block where a block's rows depend on each other):
     grid perm  one warp per block: the rows of its brick, x fastest (MSBRBGridBrick / MSBRBGridRowAt, shared with
                the reference);
     positions  one thread per position: pos[perm[p]] = p;
     levels     one warp per block: the block's positions in chunks of 32 (a lane per row, in logical order). A row
                reads its entries once: counts (lower, upper, off-diagonal), the coupling test, and its couplings to
                earlier rows of the block: to rows of earlier chunks, whose levels are final (pulled: lev[q] + 1), and
                to rows of its own chunk (a bit mask); its upper entries into its own chunk give the transposed masks
                (32 ballots), the couplings a_qp of an earlier row q. Inside the chunk the levels are then the least
                fixed point of lev = max(pulled, lev[pred] + 1): rounds over a shared array, from the pulled values up,
                until no lane changes (__any_sync; at most the chunk's depth + 1 rounds, each monotone: exactly the
                longest chain). Then each row pushes lev + 1 to its later coupled rows in later chunks (atomicMax; only
                this warp writes its block's levels), __syncwarp() before the next chunk, which starts from the pushed
                values. Per warp: the block's level count, and atomics into the info (W per colour, sums, flag);
     flops      one thread per position: 1 + 2 nu[q] per lower entry (nu of rows of other blocks: a second pass);
     lstart     an exclusive sum (CUB) of the blocks' level counts;
     storage    one warp per block: a histogram of its rows' levels (__match_any_sync: one atomic per level and
                chunk), an exclusive scan over its levels (lptr, and the cursors), then a stable counting sort: the
                positions in chunks of 32, a row's rank among the chunk's rows of its level from __match_any_sync, the
                cursor advanced by the level's leader after a __syncwarp().
   Lanes past a block's end take part in every warp operation (full masks) with values that change nothing. Arrays a
   kernel writes and reads back are read with ordinary loads (never __ldg); __syncwarp() orders them among the lanes.

   The graph ordering's block graph (MS_BRB_BLOCK_EDGES) and permutation (MS_BRB_GRAPH_PERM):
     blocks     one thread per partition row: blk[lperm[p]] = p / sh;
     pairs      one thread per row, twice (count, then write at the row's offset, an exclusive sum between): the other
                blocks of its entries, without repeats (the first BRBL_ROWBLK kept in a local array, any more written
                as they come), as keys min nb + max; the entry counts by warp sums;
     edges      a radix sort of the keys (the bits of nb^2 only) and a selection of the distinct ones (CUB); one
                synchronisation, for the number of pairs;
     perm       one warp per block, as the grid's;
     inner      (MS_BRB_INNER_ORDER) one thread per block: the greedy colouring of the block's rows and their order by
                colour (MSBRBInnerOrderBlock(), the reference's function).
*/
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <petscmodsell/private/brbilukernels.h>

#define BRBL_WARPS   4                 /* warps (blocks of the ordering) per thread block */
#define BRBL_THREADS (32 * BRBL_WARPS) /* threads per thread block of the warp-per-block kernels */
#define BRBL_BS      256               /* threads per thread block of the thread-per-row kernels */
#define BRBL_FULL    0xffffffffu
#define BRBL_LAUNCH(kernel, blocks, threads, st, ...) kernel<<<(blocks), (threads), 0, (st)>>>(__VA_ARGS__)
#define BRBL_TRY(call) \
  do { \
    err = (call); \
    if (err != cudaSuccess) goto done; \
  } while (0)

static unsigned brbl_grid(long long n, int per)
{
  return (unsigned)((n + per - 1) / per);
}

/* a device copy of the layout, freed in stream order after the kernels that read it */
static cudaError_t brbl_layout_copy(const MSBRBLayout *lay, MSBRBLayout **dlay, cudaStream_t st)
{
  cudaError_t err = cudaMallocAsync((void **)dlay, sizeof(MSBRBLayout), st);
  if (err != cudaSuccess) {
    *dlay = NULL;
    return err;
  }
  /* from pageable memory: the call returns once *lay has been read */
  return cudaMemcpyAsync(*dlay, lay, sizeof(MSBRBLayout), cudaMemcpyHostToDevice, st);
}

/* the grid ordering's perm: one warp per block */
__global__ static void __launch_bounds__(BRBL_THREADS) brbl_gridperm_kernel(int nblocks, MSBRBGrid g, const int *__restrict__ rstart, const int *__restrict__ bid, int *__restrict__ perm)
{
  const int lane = threadIdx.x & 31, b = blockIdx.x * BRBL_WARPS + (threadIdx.x >> 5);
  int       lo[3], hi[3];

  if (b >= nblocks) return; /* the whole warp */
  {
    const int      r0 = rstart[b];
    const unsigned R  = (unsigned)(rstart[b + 1] - r0);

    MSBRBGridBrick(&g, bid[b], lo, hi);
    for (unsigned t = lane; t < R; t += 32) perm[r0 + (int)t] = MSBRBGridRowAt(&g, lo, hi, (int)t);
  }
}

__global__ static void brbl_pos_kernel(int m, const int *__restrict__ perm, int *__restrict__ pos)
{
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (p < m) pos[perm[p]] = (int)p;
}

/* the levels of a block, one warp per block (see the top of the file); lev is written and read back by this warp's
   lanes (ordinary loads), nu and nlevb only written */
__global__ static void __launch_bounds__(BRBL_THREADS) brbl_levels_kernel(const MSBRBLayout *__restrict__ lay, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ perm, const int *__restrict__ pos, int *lev, int *__restrict__ nu, int *__restrict__ nlevb, MSBRBLevelInfo *info)
{
  __shared__ int sh[BRBL_WARPS][32];
  const int      lane = threadIdx.x & 31, wid = threadIdx.x >> 5, b = blockIdx.x * BRBL_WARPS + wid, nc = lay->ncolors;
  int           *s    = sh[wid];
  int            c = 0, r0, r1, wmax = 0, lmax = -1, bad = 0;
  long long      rc0, rc1;
  unsigned long long slo = 0, sup = 0;

  if (b >= lay->boff[nc]) return; /* the whole warp */
  while (c + 1 < nc && b >= lay->boff[c + 1]) c++;
  r0  = lay->rstart[b];
  r1  = lay->rstart[b + 1];
  rc0 = lay->roff[c];
  rc1 = lay->roff[c + 1];
  for (unsigned p = (unsigned)r0 + lane; p < (unsigned)r1; p += 32) lev[p] = 0;
  __syncwarp();
  for (unsigned p0 = (unsigned)r0; p0 < (unsigned)r1; p0 += 32) { /* warp-uniform */
    const int  p   = (int)(p0 + lane);
    const bool act = p0 + lane < (unsigned)r1;
    unsigned   low = 0, upm = 0, pred;
    int        ext = 0, e0 = 0, e1 = 0, cur;

    if (act) {
      const int o = perm[p];
      int       nlo = 0, nup = 0;

      e0  = ai[o];
      e1  = ai[o + 1];
      ext = lev[p]; /* pushed by rows of earlier chunks */
      for (int e = e0; e < e1; e++) {
        const int  q  = pos[aj[e]];
        const bool lo = q < p, up = q > p, in = q >= r0 && q < r1;

        nlo += lo;
        nup += up;
        bad |= !in && q >= rc0 && q < rc1; /* two blocks of one colour coupled */
        if (lo && in) {
          if ((unsigned)q >= p0) low |= 1u << ((unsigned)q - p0); /* a row of this chunk */
          else ext = max(ext, lev[q] + 1);                         /* final */
        } else if (up && in && (unsigned)q - p0 < 32u) upm |= 1u << ((unsigned)q - p0);
      }
      wmax = max(wmax, nlo + nup);
      slo += (unsigned long long)nlo;
      sup += (unsigned long long)nup;
      nu[p] = nup;
    }
    /* pred: the lanes of earlier rows of this chunk coupled to this one, either direction */
    pred = low;
    if (__any_sync(BRBL_FULL, upm != 0))
      for (int j = 0; j < 32; j++) {
        const unsigned bj = __ballot_sync(BRBL_FULL, (upm >> j) & 1u);
        if (lane == j) pred |= bj;
      }
    cur     = ext;
    s[lane] = cur;
    __syncwarp();
    for (;;) {
      int  nv = ext;
      bool changed;

      for (unsigned t = pred; t; t &= t - 1) nv = max(nv, s[__ffs((int)t) - 1] + 1);
      changed = nv != cur;
      __syncwarp();
      s[lane] = nv;
      cur     = nv;
      __syncwarp();
      if (!__any_sync(BRBL_FULL, changed)) break;
    }
    if (act) {
      lev[p] = cur;
      lmax   = max(lmax, cur);
      for (int e = e0; e < e1; e++) { /* push to later chunks */
        const int q = pos[aj[e]];
        if (q < r1 && (long long)q >= (long long)p0 + 32) atomicMax(lev + q, cur + 1);
      }
    }
    __syncwarp();
  }
  for (int off = 16; off; off >>= 1) {
    wmax = max(wmax, __shfl_xor_sync(BRBL_FULL, wmax, off));
    lmax = max(lmax, __shfl_xor_sync(BRBL_FULL, lmax, off));
    slo += __shfl_xor_sync(BRBL_FULL, slo, off);
    sup += __shfl_xor_sync(BRBL_FULL, sup, off);
  }
  bad = __any_sync(BRBL_FULL, bad);
  if (lane == 0) {
    nlevb[b] = lmax + 1;
    if (wmax) atomicMax(&info->W[c], wmax);
    if (slo) atomicAdd(&info->nlower, slo);
    if (sup) atomicAdd(&info->nupper, sup);
    if (bad) atomicOr(&info->bad, 1);
    if (lmax >= 0) atomicMax(&info->maxl, lmax + 1);
  }
}

/* the factorization's flops: 1 + 2 nu[q] per lower entry; every thread of a warp takes part in the reduction */
__global__ static void brbl_flops_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ perm, const int *__restrict__ pos, const int *__restrict__ nu, MSBRBLevelInfo *info)
{
  const long long    p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long f = 0;

  if (p < m) {
    const int o = perm[p], e1 = ai[o + 1];

    for (int e = ai[o]; e < e1; e++) {
      const int q = pos[aj[e]];
      if (q < p) f += 1 + 2 * (unsigned long long)nu[q];
    }
  }
  for (int off = 16; off; off >>= 1) f += __shfl_xor_sync(BRBL_FULL, f, off);
  if ((threadIdx.x & 31) == 0 && f) atomicAdd(&info->ffi, f);
}

__global__ static void brbl_total_kernel(int nblocks, const int *__restrict__ lstart, MSBRBLevelInfo *info)
{
  info->nlev = lstart[nblocks];
}

/* storage rows, one warp per block (see the top of the file); cur is written and read back by this warp's lanes */
__global__ static void __launch_bounds__(BRBL_THREADS) brbl_storage_kernel(const MSBRBLayout *__restrict__ lay, const int *__restrict__ perm, const int *__restrict__ lev, int *cur, int *__restrict__ lptr, int *__restrict__ sperm, int *__restrict__ stor)
{
  const int      lane = threadIdx.x & 31, b = blockIdx.x * BRBL_WARPS + (threadIdx.x >> 5), nb = lay->boff[lay->ncolors];
  const unsigned lt   = (1u << lane) - 1u; /* the lanes below this one */
  int            r0, r1, g0, g1, carry;

  if (b >= nb) return; /* the whole warp */
  r0 = lay->rstart[b];
  r1 = lay->rstart[b + 1];
  g0 = lay->lstart[b];
  g1 = lay->lstart[b + 1];
  for (unsigned g = (unsigned)g0 + lane; g < (unsigned)g1; g += 32) cur[g] = 0;
  __syncwarp();
  /* the rows per level */
  for (unsigned p0 = (unsigned)r0; p0 < (unsigned)r1; p0 += 32) {
    const bool     act   = p0 + lane < (unsigned)r1;
    const int      l     = act ? lev[p0 + lane] : -1 - lane; /* past the end: a value of its own */
    const unsigned peers = __match_any_sync(BRBL_FULL, l);

    if (act && !(peers & lt)) atomicAdd(cur + g0 + l, __popc(peers));
  }
  __syncwarp();
  /* exclusive scan: the first storage row of each level, and the cursors */
  carry = r0;
  for (unsigned gb = (unsigned)g0; gb < (unsigned)g1; gb += 32) {
    const unsigned g = gb + lane;
    const int      v = g < (unsigned)g1 ? cur[g] : 0;
    int            x = v;

    for (int off = 1; off < 32; off <<= 1) {
      const int y = __shfl_up_sync(BRBL_FULL, x, off);
      if (lane >= off) x += y;
    }
    if (g < (unsigned)g1) {
      lptr[g] = carry + x - v;
      cur[g]  = carry + x - v;
    }
    carry += __shfl_sync(BRBL_FULL, x, 31);
  }
  if (b == nb - 1 && lane == 0) lptr[g1] = r1; /* lptr[nlev] = m */
  __syncwarp();
  /* stable counting sort: chunk by chunk, a row's rank among the chunk's rows of its level by lane */
  for (unsigned p0 = (unsigned)r0; p0 < (unsigned)r1; p0 += 32) {
    const bool     act   = p0 + lane < (unsigned)r1;
    const int      l     = act ? lev[p0 + lane] : -1 - lane;
    const unsigned peers = __match_any_sync(BRBL_FULL, l);
    int            base  = 0;

    if (act) {
      const int o = perm[p0 + lane], s = (base = cur[g0 + l]) + __popc(peers & lt);

      sperm[s] = o;
      stor[o]  = s;
    }
    __syncwarp(); /* every lane of the level has read its cursor */
    if (act && !(peers & lt)) cur[g0 + l] = base + __popc(peers);
    __syncwarp();
  }
}

MS_BRB_GRID_PERM(MSBRBGridPerm_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    nb = lay->boff[lay->ncolors];

  if (nb <= 0) return 0;
  BRBL_LAUNCH(brbl_gridperm_kernel, brbl_grid(nb, BRBL_WARPS), BRBL_THREADS, st, nb, *grid, lay->rstart, bid, perm);
  return (int)cudaGetLastError();
}

MS_BRB_LEVELS(MSBRBLevels_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    nc = lay->ncolors, nb = lay->boff[nc], m = (int)lay->roff[nc];
  MSBRBLayout *dlay  = NULL;
  int         *nlevb = NULL;
  void        *tmp   = NULL;
  size_t       bytes = 0;
  cudaError_t  err, ferr;

  (void)grid; /* the rows are visited block by block */
  (void)bid;
  BRBL_TRY(cudaMemsetAsync(info, 0, sizeof(*info), st));
  BRBL_TRY(brbl_layout_copy(lay, &dlay, st));
  BRBL_TRY(cudaMallocAsync((void **)&nlevb, sizeof(int) * ((size_t)nb + 1), st));
  BRBL_TRY(cudaMemsetAsync(nlevb + nb, 0, sizeof(int), st));
  if (m > 0) {
    BRBL_LAUNCH(brbl_pos_kernel, brbl_grid(m, BRBL_BS), BRBL_BS, st, m, perm, pos);
    BRBL_TRY(cudaGetLastError());
  }
  if (nb > 0) {
    BRBL_LAUNCH(brbl_levels_kernel, brbl_grid(nb, BRBL_WARPS), BRBL_THREADS, st, dlay, ai, aj, perm, pos, lev, nu, nlevb, info);
    BRBL_TRY(cudaGetLastError());
  }
  if (m > 0) {
    BRBL_LAUNCH(brbl_flops_kernel, brbl_grid(m, BRBL_BS), BRBL_BS, st, m, ai, aj, perm, pos, nu, info);
    BRBL_TRY(cudaGetLastError());
  }
  BRBL_TRY(cub::DeviceScan::ExclusiveSum(NULL, bytes, nlevb, lstart, nb + 1, st));
  BRBL_TRY(cudaMallocAsync(&tmp, bytes ? bytes : 1, st));
  BRBL_TRY(cub::DeviceScan::ExclusiveSum(tmp, bytes, nlevb, lstart, nb + 1, st));
  BRBL_LAUNCH(brbl_total_kernel, 1, 1, st, nb, lstart, info);
  BRBL_TRY(cudaGetLastError());
done:
  if (tmp && (ferr = cudaFreeAsync(tmp, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  if (nlevb && (ferr = cudaFreeAsync(nlevb, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  if (dlay && (ferr = cudaFreeAsync(dlay, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  return (int)err;
}

MS_BRB_STORAGE(MSBRBStorage_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    nb = lay->boff[lay->ncolors];
  MSBRBLayout *dlay = NULL;
  cudaError_t  err, ferr;

  if (nb <= 0) return 0;
  BRBL_TRY(brbl_layout_copy(lay, &dlay, st));
  BRBL_LAUNCH(brbl_storage_kernel, brbl_grid(nb, BRBL_WARPS), BRBL_THREADS, st, dlay, perm, lev, cur, lptr, sperm, stor);
  BRBL_TRY(cudaGetLastError());
done:
  if (dlay && (ferr = cudaFreeAsync(dlay, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  return (int)err;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the graph ordering: block graph and permutation                                                             */

#define BRBL_ROWBLK 16 /* other blocks of a row kept to drop repeats (more are written as they come, repeats and all) */

__global__ static void brbl_blk_kernel(int m, const int *__restrict__ lperm, int sh, int *__restrict__ blk)
{
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (p < m) blk[lperm[p]] = (int)(p / sh);
}

/* EMIT false: cnt[o] = the row's keys, and the entry counts; true: the keys at pk[off[o]] .. */
template <bool EMIT>
__global__ static void brbl_pairs_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ blk, unsigned long long nb, int *__restrict__ cnt, const int *__restrict__ off, unsigned long long *__restrict__ pk, MSBRBEdgeInfo *info)
{
  const long long    o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long noff = 0, nin = 0;

  if (o < m) {
    const int b = blk[o], e1 = ai[o + 1];
    int       oth[BRBL_ROWBLK], n = 0, w = EMIT ? off[o] : 0;

    for (int e = ai[o]; e < e1; e++) {
      const int j = aj[e];
      const int kn = n < BRBL_ROWBLK ? n : BRBL_ROWBLK;
      int       c, k = 0;

      if (j == (int)o) continue;
      noff++;
      c = blk[j];
      if (c == b) {
        nin++;
        continue;
      }
      while (k < kn && oth[k] != c) k++;
      if (k < kn) continue; /* a repeat */
      if (n < BRBL_ROWBLK) oth[n] = c;
      n++;
      if (EMIT) pk[w++] = b < c ? (unsigned long long)b * nb + (unsigned long long)c : (unsigned long long)c * nb + (unsigned long long)b;
    }
    if (!EMIT) cnt[o] = n;
  }
  if (!EMIT) {
    for (int s = 16; s; s >>= 1) {
      noff += __shfl_xor_sync(BRBL_FULL, noff, s);
      nin += __shfl_xor_sync(BRBL_FULL, nin, s);
    }
    if ((threadIdx.x & 31) == 0) {
      if (noff) atomicAdd((unsigned long long *)&info->noff, noff);
      if (nin) atomicAdd((unsigned long long *)&info->ninblock, nin);
    }
  }
}

/* the first min(*nsel, cap) distinct keys to the caller's buffer, and their number */
__global__ static void brbl_keys_kernel(long long n, const unsigned long long *__restrict__ src, const long long *__restrict__ nsel, unsigned long long *__restrict__ keys, long long cap, MSBRBEdgeInfo *info)
{
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x, ns = *nsel;

  if (k == 0) info->nkeys = ns;
  if (k < n && k < ns && k < cap) keys[k] = src[k];
}

MS_BRB_BLOCK_EDGES(MSBRBBlockEdges_CUDA)
{
  cudaStream_t             st = (cudaStream_t)stream;
  const unsigned long long nb = m > 0 ? ((unsigned long long)m + (unsigned long long)sh - 1) / (unsigned long long)sh : 0;
  int                     *cnt = NULL, total = 0, endbit = 1;
  unsigned long long      *pk = NULL, *sorted = NULL;
  long long               *nsel = NULL;
  void                    *tmp = NULL;
  size_t                   bytes = 0, b2 = 0;
  cudaError_t              err, ferr;

  if (m < 0 || sh < 1) return (int)cudaErrorInvalidValue;
  BRBL_TRY(cudaMemsetAsync(info, 0, sizeof(*info), st));
  if (m == 0) return 0;
  while (endbit < 64 && (nb * nb) >> endbit) endbit++;
  BRBL_TRY(cudaMallocAsync((void **)&cnt, sizeof(int) * ((size_t)m + 1), st));
  BRBL_LAUNCH(brbl_blk_kernel, brbl_grid(m, BRBL_BS), BRBL_BS, st, m, lperm, sh, blk);
  BRBL_TRY(cudaGetLastError());
  BRBL_LAUNCH(brbl_pairs_kernel<false>, brbl_grid(m, BRBL_BS), BRBL_BS, st, m, ai, aj, blk, nb, cnt, NULL, NULL, info);
  BRBL_TRY(cudaGetLastError());
  BRBL_TRY(cudaMemsetAsync(cnt + m, 0, sizeof(int), st));
  BRBL_TRY(cub::DeviceScan::ExclusiveSum(NULL, bytes, cnt, cnt, m + 1, st));
  BRBL_TRY(cudaMallocAsync(&tmp, bytes ? bytes : 1, st));
  BRBL_TRY(cub::DeviceScan::ExclusiveSum(tmp, bytes, cnt, cnt, m + 1, st));
  BRBL_TRY(cudaMemcpyAsync(&total, cnt + m, sizeof(int), cudaMemcpyDeviceToHost, st));
  BRBL_TRY(cudaStreamSynchronize(st)); /* the number of pairs sizes the sort */
  BRBL_TRY(cudaFreeAsync(tmp, st));
  tmp = NULL;
  BRBL_TRY(cudaMallocAsync((void **)&nsel, sizeof(long long), st));
  BRBL_TRY(cudaMemsetAsync(nsel, 0, sizeof(long long), st));
  if (total > 0) {
    BRBL_TRY(cudaMallocAsync((void **)&pk, sizeof(unsigned long long) * (size_t)total, st));
    BRBL_TRY(cudaMallocAsync((void **)&sorted, sizeof(unsigned long long) * (size_t)total, st));
    BRBL_LAUNCH(brbl_pairs_kernel<true>, brbl_grid(m, BRBL_BS), BRBL_BS, st, m, ai, aj, blk, nb, NULL, cnt, pk, info);
    BRBL_TRY(cudaGetLastError());
    bytes = 0;
    BRBL_TRY(cub::DeviceRadixSort::SortKeys(NULL, bytes, pk, sorted, total, 0, endbit, st));
    BRBL_TRY(cub::DeviceSelect::Unique(NULL, b2, sorted, pk, nsel, total, st));
    bytes = bytes > b2 ? bytes : b2;
    BRBL_TRY(cudaMallocAsync(&tmp, bytes ? bytes : 1, st));
    BRBL_TRY(cub::DeviceRadixSort::SortKeys(tmp, bytes, pk, sorted, total, 0, endbit, st));
    BRBL_TRY(cub::DeviceSelect::Unique(tmp, bytes, sorted, pk, nsel, total, st));
  }
  BRBL_LAUNCH(brbl_keys_kernel, brbl_grid(total > 0 ? total : 1, BRBL_BS), BRBL_BS, st, (long long)total, pk, nsel, keys, cap, info);
  BRBL_TRY(cudaGetLastError());
done:
  if (tmp && (ferr = cudaFreeAsync(tmp, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  if (pk && (ferr = cudaFreeAsync(pk, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  if (sorted && (ferr = cudaFreeAsync(sorted, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  if (nsel && (ferr = cudaFreeAsync(nsel, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  if (cnt && (ferr = cudaFreeAsync(cnt, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  return (int)err;
}

/* the graph ordering's perm: one warp per block */
__global__ static void __launch_bounds__(BRBL_THREADS) brbl_graphperm_kernel(int nblocks, const int *__restrict__ rstart, const int *__restrict__ lperm, int sh, const int *__restrict__ bid, int *__restrict__ perm)
{
  const int lane = threadIdx.x & 31, b = blockIdx.x * BRBL_WARPS + (threadIdx.x >> 5);

  if (b >= nblocks) return; /* the whole warp */
  {
    const int       r0 = rstart[b], R = rstart[b + 1] - r0;
    const long long q0 = (long long)bid[b] * sh;

    for (int t = lane; t < R; t += 32) perm[r0 + t] = lperm[q0 + t];
  }
}

MS_BRB_GRAPH_PERM(MSBRBGraphPerm_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    nb = lay->boff[lay->ncolors];

  if (nb <= 0) return 0;
  BRBL_LAUNCH(brbl_graphperm_kernel, brbl_grid(nb, BRBL_WARPS), BRBL_THREADS, st, nb, lay->rstart, lperm, sh, bid, perm);
  return (int)cudaGetLastError();
}

/* the inner ordering "colors": one thread per block (the greedy colouring is sequential inside a block: a block of ~100
   rows is a few hundred reads) */
__global__ static void brbl_inner_kernel(const MSBRBLayout *__restrict__ lay, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ perm, const int *__restrict__ pos, int *col, int *__restrict__ out)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;

  if (b < lay->boff[lay->ncolors]) MSBRBInnerOrderBlock(lay, b, ai, aj, perm, pos, col, out);
}

MS_BRB_INNER_ORDER(MSBRBInnerOrder_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    nb = lay->boff[lay->ncolors], m = (int)lay->roff[lay->ncolors];
  MSBRBLayout *dlay = NULL;
  cudaError_t  err, ferr;

  if (nb <= 0 || m <= 0) return 0;
  BRBL_TRY(brbl_layout_copy(lay, &dlay, st));
  BRBL_LAUNCH(brbl_pos_kernel, brbl_grid(m, BRBL_BS), BRBL_BS, st, m, perm, work);
  BRBL_TRY(cudaGetLastError());
  BRBL_LAUNCH(brbl_inner_kernel, brbl_grid(nb, 64), 64, st, dlay, ai, aj, perm, work, work + m, out);
  BRBL_TRY(cudaGetLastError());
done:
  if (dlay && (ferr = cudaFreeAsync(dlay, st)) != cudaSuccess && err == cudaSuccess) err = ferr;
  return (int)err;
}
