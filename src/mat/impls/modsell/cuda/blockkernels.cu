/*
   CUDA kernels of the block layout of a mod-SELL image (modsellimpl.h, "block layout"): the build from a device CSR
   (widths, prefix sum, fill: the slots of MSImageBuildHostBlocks() on the host), the product and the diagonal.

   The product runs one thread per scalar row and one thread block per slice of sh block rows (sh bs threads): for each
   block slot k the bs threads of a block row read the slot's one column code (a broadcast inside the warp), the bs
   threads x bs columns read bs values each (for each k and column j the slice's threads read consecutive addresses),
   and the block's bs entries of x: once for the bs rows of the block. A block column in the slice's own block rows is
   read from the slice's window of x in shared memory, as the scalar layout's in-slice columns are. Bytes per product:
   (8 bs^2 + 4) per block slot, 8 bs per row (the diagonal block), 16 per row (x, y): for 3 x 3 blocks 8.4 per stored
   entry against 12 for one column index per entry.
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/modsellcuda.h>
#include <cub/device/device_scan.cuh>
#include <climits>

/* the distinct block columns of block row br's bs rows, in increasing order: next() gives the next one (-1 at the end)
   and advances the rows' cursors past it; the entries of the block it returns are [beg[i], p[i]) of row i */
struct MSBlockRowWalk {
  int p[MS_BLOCK_MAX], end[MS_BLOCK_MAX], beg[MS_BLOCK_MAX], bs;
  __device__ MSBlockRowWalk(const int *ai, int br, int bs_) : bs(bs_)
  {
    for (int i = 0; i < MS_BLOCK_MAX; i++) {
      p[i] = end[i] = beg[i] = 0;
      if (i < bs) {
        p[i]   = ai[br * bs + i];
        end[i] = ai[br * bs + i + 1];
      }
    }
  }
  __device__ int next(const int *aj)
  {
    int bc = INT_MAX;
    for (int i = 0; i < MS_BLOCK_MAX && i < bs; i++)
      if (p[i] < end[i]) bc = min(bc, aj[p[i]] / bs);
    if (bc == INT_MAX) return -1;
    for (int i = 0; i < MS_BLOCK_MAX && i < bs; i++) {
      beg[i] = p[i];
      while (p[i] < end[i] && aj[p[i]] / bs == bc) p[i]++;
    }
    return bc;
  }
};

/* one thread per block row, a thread block of sh per slice: the slice's width (its block row with the most off-diagonal
   blocks) */
__global__ void ms_bwidth_kernel(int mb, int bs, const int *__restrict__ ai, const int *__restrict__ aj, int dapart, long long *slicelen, unsigned long long *stats)
{
  __shared__ int wmax[32];
  __shared__ unsigned long long wsum[32];
  const int          sh = blockDim.x, q = threadIdx.x, s = blockIdx.x, br = s * sh + q;
  int                c  = 0;
  unsigned long long n  = 0;

  if (br < mb) {
    MSBlockRowWalk wk(ai, br, bs);
    for (int bc; (bc = wk.next(aj)) >= 0;)
      if (!(dapart && bc == br)) c++;
  }
  n = (unsigned long long)c;
  for (int off = 16; off > 0; off /= 2) {
    c = max(c, __shfl_down_sync(0xffffffffu, c, off));
    n += __shfl_down_sync(0xffffffffu, n, off);
  }
  if ((q & 31) == 0) {
    wmax[q >> 5] = c;
    wsum[q >> 5] = n;
  }
  __syncthreads();
  if (q == 0) {
    int                w = 0;
    unsigned long long t = 0;
    for (int i = 0; i < (sh + 31) / 32; i++) {
      w = max(w, wmax[i]);
      t += wsum[i];
    }
    slicelen[s] = (long long)w * sh;
    if (t) atomicAdd(&stats[0], t);
    atomicMax(&stats[1], (unsigned long long)w);
  }
}

extern "C" int MSCUDABlockBuildSlicePtr(int mb, int bs, int sh, int nslices, const int *ai, const int *aj, int dapart, long long *sliceptr, unsigned long long *stats, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;
  long long   *slicelen = nullptr;
  void        *tmp      = nullptr;
  size_t       tmpbytes = 0;

  if (bs < 2 || bs > MS_BLOCK_MAX || sh < 32 || sh % 32 || sh * bs > 1024) return (int)cudaErrorInvalidValue;
  if ((err = cudaMemsetAsync(sliceptr, 0, sizeof(long long), st))) return (int)err;
  if (nslices <= 0) return (int)cudaSuccess;
  if ((err = cudaMallocAsync((void **)&slicelen, (size_t)nslices * sizeof(long long), st))) return (int)err;
  ms_bwidth_kernel<<<nslices, sh, 0, st>>>(mb, bs, ai, aj, dapart, slicelen, stats);
  if ((err = cudaGetLastError())) return (int)err;
  if ((err = cub::DeviceScan::InclusiveSum(tmp, tmpbytes, slicelen, sliceptr + 1, nslices, st))) return (int)err;
  if ((err = cudaMallocAsync(&tmp, tmpbytes, st))) return (int)err;
  if ((err = cub::DeviceScan::InclusiveSum(tmp, tmpbytes, slicelen, sliceptr + 1, nslices, st))) return (int)err;
  if ((err = cudaFreeAsync(tmp, st))) return (int)err;
  return (int)cudaFreeAsync(slicelen, st);
}

/* one thread per block row: its blocks in increasing block column, as MSImageBlockWalk() takes them on the host */
__global__ void ms_bfill_kernel(int mb, int bs, int sh, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, int dapart, int local, const long long *__restrict__ sliceptr, int write_image, int *__restrict__ cols, double *__restrict__ vals, double *__restrict__ diag, long long *__restrict__ csr2slot, unsigned long long *stats)
{
  const int br     = blockIdx.x * blockDim.x + threadIdx.x;
  int       nlocal = 0;

  if (br < mb) {
    const int       s = br / sh, q = br - s * sh, T = sh * bs;
    const long long beg = sliceptr[s], vbeg = (long long)bs * bs * beg;
    MSBlockRowWalk  wk(ai, br, bs);
    int             k = 0;

    for (int bc; (bc = wk.next(aj)) >= 0;) {
      if (dapart && bc == br) {
        for (int i = 0; i < MS_BLOCK_MAX && i < bs; i++)
          for (int e = wk.beg[i]; e < wk.p[i]; e++) {
            const long long pos = (long long)(s * bs + aj[e] % bs) * T + q * bs + i;
            if (write_image) diag[pos] = aa[e];
            if (csr2slot) csr2slot[e] = -(pos + 1);
          }
        continue;
      }
      if (write_image) {
        const long long slot = beg + (long long)k * sh + q;
        if (local && bc >= s * sh && bc < min((s + 1) * sh, mb)) {
          cols[slot] = -(bc - s * sh) - 1;
          nlocal++;
        } else cols[slot] = bc + 1;
      }
      for (int i = 0; i < MS_BLOCK_MAX && i < bs; i++)
        for (int e = wk.beg[i]; e < wk.p[i]; e++) {
          const long long pos = vbeg + (long long)(k * bs + aj[e] % bs) * T + q * bs + i;
          if (write_image) vals[pos] = aa[e];
          if (csr2slot) csr2slot[e] = pos;
        }
      k++;
    }
  }
  if (write_image) {
    for (int off = 16; off > 0; off /= 2) nlocal += __shfl_down_sync(0xffffffffu, nlocal, off);
    if ((threadIdx.x & 31) == 0 && nlocal) atomicAdd(&stats[2], (unsigned long long)nlocal);
  }
}

extern "C" int MSCUDABlockFill(int mb, int bs, int sh, const int *ai, const int *aj, const double *aa, int dapart, int local, const long long *sliceptr, long long nslots, int write_image, int *cols, double *vals, double *diag, long long *csr2slot, unsigned long long *stats, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;

  if (bs < 2 || bs > MS_BLOCK_MAX || sh < 32 || sh * bs > 1024) return (int)cudaErrorInvalidValue;
  if (mb <= 0) return (int)cudaSuccess;
  if (write_image) { /* padding and the missing entries of the blocks are zeros */
    const int nslices = (mb + sh - 1) / sh;
    if (nslots > 0 && (err = cudaMemsetAsync(cols, 0, (size_t)nslots * sizeof(int), st))) return (int)err;
    if (nslots > 0 && (err = cudaMemsetAsync(vals, 0, (size_t)nslots * bs * bs * sizeof(double), st))) return (int)err;
    if (dapart && (err = cudaMemsetAsync(diag, 0, (size_t)nslices * sh * bs * bs * sizeof(double), st))) return (int)err;
  }
  ms_bfill_kernel<<<(mb + 255) / 256, 256, 0, st>>>(mb, bs, sh, ai, aj, aa, dapart, local, sliceptr, write_image, cols, vals, diag, csr2slot, stats);
  return (int)cudaGetLastError();
}

/* the x block of a slot's column code c: c < 0 block column -c - 1 of the slice's window xs (LOCAL), c > 0 block column
   c - 1 of x, 0 (padding) zeros */
template <int BS, bool LOCAL>
__device__ __forceinline__ void ms_bxblock(int c, const double *xs, const double *__restrict__ x, double (&xb)[BS])
{
  if (LOCAL && c < 0) {
#pragma unroll
    for (int j = 0; j < BS; j++) xb[j] = xs[(-c - 1) * BS + j];
  } else if (c > 0) {
    const double *xp = x + (long long)(c - 1) * BS;
#pragma unroll
    for (int j = 0; j < BS; j++) xb[j] = __ldg(xp + j);
  } else {
#pragma unroll
    for (int j = 0; j < BS; j++) xb[j] = 0.0;
  }
}

/* One thread per scalar row r = s T + t of slice s (T = sh BS threads), row i = t % BS of block row q = t / BS of the
   slice: the diagonal block's BS terms, then the BS terms of each slot, added in that order (the host reference's) */
template <int BS, bool DIAG, bool LOCAL, bool ADD>
__global__ void __launch_bounds__(1024) ms_bmult_kernel(int m, int sh, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *__restrict__ x, const double *yin, double ys, double *y)
{
  extern __shared__ double xs[];
  const int  T = sh * BS, t = threadIdx.x, s = blockIdx.x, q = t / BS;
  const int  r     = s * T + t;
  const bool valid = r < m;
  double     sum   = 0.0;

  if (LOCAL) {
    xs[t] = valid ? x[r] : 0.0;
    __syncthreads();
  }
  if (DIAG && valid) {
    const double *dp = diag + (long long)s * BS * T + t;
#pragma unroll
    for (int j = 0; j < BS; j++) sum += __ldg(dp + (long long)j * T) * (LOCAL ? xs[q * BS + j] : x[s * T + q * BS + j]);
  }
  const long long beg = sliceptr[s];
  const int       w   = valid ? (int)((sliceptr[s + 1] - beg) / sh) : 0; /* padding block rows of the last slice: none */
  const int      *cp  = cols + beg + q;
  const double   *vp  = vals + (long long)BS * BS * beg + t;
#pragma unroll 2
  for (int k = 0; k < w; k++) {
    const int c = __ldg(cp + (long long)k * sh);
    double    xb[BS];
    ms_bxblock<BS, LOCAL>(c, xs, x, xb);
#pragma unroll
    for (int j = 0; j < BS; j++) sum += __ldg(vp + ((long long)k * BS + j) * T) * xb[j];
  }
  if (valid) y[r] = ADD ? yin[r] + ys * sum : sum;
}

/* The same sums with one thread per block row q of a slice (sh threads), its BS rows' sums in registers: the slot's
   column code and x block read once for the BS rows; the values of a (k, j) read at a stride of BS (the BS loads of a
   thread together use every byte of the sectors). Each row's terms in the same order as ms_bmult_kernel */
template <int BS, bool DIAG, bool LOCAL, bool ADD>
__global__ void __launch_bounds__(512) ms_bmult_brows_kernel(int m, int sh, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *__restrict__ x, const double *yin, double ys, double *y)
{
  extern __shared__ double xs[];
  const int  T = sh * BS, q = threadIdx.x, s = blockIdx.x;
  const int  r0    = s * T + q * BS; /* the block row's first row */
  const bool valid = r0 < m;
  double     sum[BS];

  if (LOCAL) {
    for (int t = q; t < T; t += sh) xs[t] = s * T + t < m ? x[s * T + t] : 0.0;
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < BS; i++) sum[i] = 0.0;
  if (DIAG && valid) {
    const double *dp = diag + (long long)s * BS * T + q * BS;
#pragma unroll
    for (int j = 0; j < BS; j++) {
      const double xj = LOCAL ? xs[q * BS + j] : x[r0 + j];
#pragma unroll
      for (int i = 0; i < BS; i++) sum[i] += __ldg(dp + (long long)j * T + i) * xj;
    }
  }
  const long long beg = sliceptr[s];
  const int       w   = valid ? (int)((sliceptr[s + 1] - beg) / sh) : 0;
  const int      *cp  = cols + beg + q;
  const double   *vp  = vals + (long long)BS * BS * beg + q * BS;
#pragma unroll 2
  for (int k = 0; k < w; k++) {
    const int c = __ldg(cp + (long long)k * sh);
    double    xb[BS];
    ms_bxblock<BS, LOCAL>(c, xs, x, xb);
#pragma unroll
    for (int j = 0; j < BS; j++) {
      const double *vj = vp + ((long long)k * BS + j) * T;
#pragma unroll
      for (int i = 0; i < BS; i++) sum[i] += __ldg(vj + i) * xb[j];
    }
  }
  if (valid) {
#pragma unroll
    for (int i = 0; i < BS; i++) y[r0 + i] = ADD ? yin[r0 + i] + ys * sum[i] : sum[i];
  }
}

template <int BS, bool DIAG, bool LOCAL>
static void ms_bmult_launch(const MSImageView *v, const double *x, const double *yin, double ys, double *y, cudaStream_t st)
{
  const int    T    = v->sh * BS;
  const size_t smem = LOCAL ? (size_t)T * sizeof(double) : 0;
  if (v->brows) {
    if (yin) ms_bmult_brows_kernel<BS, DIAG, LOCAL, true><<<v->nslices, v->sh, smem, st>>>(v->m, v->sh, v->sliceptr, v->cols, v->vals, v->diag, x, yin, ys, y);
    else ms_bmult_brows_kernel<BS, DIAG, LOCAL, false><<<v->nslices, v->sh, smem, st>>>(v->m, v->sh, v->sliceptr, v->cols, v->vals, v->diag, x, nullptr, 1.0, y);
    return;
  }
  if (yin) ms_bmult_kernel<BS, DIAG, LOCAL, true><<<v->nslices, T, smem, st>>>(v->m, v->sh, v->sliceptr, v->cols, v->vals, v->diag, x, yin, ys, y);
  else ms_bmult_kernel<BS, DIAG, LOCAL, false><<<v->nslices, T, smem, st>>>(v->m, v->sh, v->sliceptr, v->cols, v->vals, v->diag, x, nullptr, 1.0, y);
}

template <int BS>
static void ms_bmult_bs(const MSImageView *v, const double *x, const double *yin, double ys, double *y, cudaStream_t st)
{
  if (v->diag && v->local_cols) ms_bmult_launch<BS, true, true>(v, x, yin, ys, y, st);
  else if (v->diag) ms_bmult_launch<BS, true, false>(v, x, yin, ys, y, st);
  else ms_bmult_launch<BS, false, false>(v, x, yin, ys, y, st);
}

extern "C" int MSCUDABlockMult(const MSImageView *v, const double *x, const double *yin, double *y, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  const double ys = v->negate ? -1.0 : 1.0;

  if (v->m <= 0 || v->nslices <= 0) return (int)cudaSuccess;
  if (v->perm || v->sh * v->bs > 1024 || (v->local_cols && !v->diag)) return (int)cudaErrorInvalidValue;
  switch (v->bs) {
  case 2:
    ms_bmult_bs<2>(v, x, yin, ys, y, st);
    break;
  case 3:
    ms_bmult_bs<3>(v, x, yin, ys, y, st);
    break;
  case 4:
    ms_bmult_bs<4>(v, x, yin, ys, y, st);
    break;
  case 5:
    ms_bmult_bs<5>(v, x, yin, ys, y, st);
    break;
  case 6:
    ms_bmult_bs<6>(v, x, yin, ys, y, st);
    break;
  case 7:
    ms_bmult_bs<7>(v, x, yin, ys, y, st);
    break;
  case 8:
    ms_bmult_bs<8>(v, x, yin, ys, y, st);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

__global__ void ms_bgetdiag_kernel(int m, int T, int bs, const double *__restrict__ diag, double *__restrict__ d)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    const int s = r / T, t = r - s * T;
    d[r] = diag[(long long)(s * bs + t % bs) * T + t];
  }
}

extern "C" int MSCUDABlockGetDiagonal(const MSImageView *v, double *d, void *stream)
{
  if (v->m <= 0) return (int)cudaSuccess;
  if (!v->diag || v->bs < 2) return (int)cudaErrorInvalidValue;
  ms_bgetdiag_kernel<<<(v->m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(v->m, v->sh * v->bs, v->bs, v->diag, d);
  return (int)cudaGetLastError();
}
