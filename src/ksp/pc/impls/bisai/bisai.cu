/*
   CUDA kernels of PCBISAI (Ma et al. (2021)): the whole setup on the GPU (block pattern, ISAI patterns and column
   views, values, checks, block ILU(0) exact or by fixed-point sweeps, the block-ISAI columns, one warp per block
   column as in the paper's section 3.2) and the apply's products. See include/petscmodsell/private/bisaikernels.h for
   the notation; the host reference (bisai_reference.c) computes the same functions (the same integers, the same sums
   in the same order).

   Every function queues its work on the stream it is given and synchronizes nothing; temporaries (CUB's and the
   pattern product's) are stream-ordered allocations (msdevarrays.cuh). It returns the first CUDA error.

   The exact block ILU(0) (ilu_exact) runs the reference's row-order algorithm in one launch, without level sets: the
   warps take block rows in increasing order from a counter (atomicAdd), and a warp spins on the done flag of each row
   k its row reads (the lower blocks' columns, all smaller than its own row) before reading row k. The smallest row
   not done is held by a running warp that waits for nothing, so the launch always progresses (a row is taken only by
   a warp that runs). A finished row's values and inverse are made visible by a fence of every lane, then the flag is
   set; a waiting warp reads other rows' values through L2 (__ldcg), never through a possibly stale L1 line.

   Block-ISAI column kernel (isai_lower / isai_upper): warp w of the grid takes block column j. The warp keeps the
   solved block X_p of the current step in shared memory (bs*bs doubles per warp) and its lanes own the scalar
   entries (q, r, c) of the remaining right-hand sides, bs*bs lanes per block of the column (lanes stride over them
   when the column has more than 32 / (bs*bs) blocks below or above): lane (q, r, c) finds block (J_q, J_p) of the
   factor by a binary search in F's block row J_q (the small triangular system is never stored: Ma et al. (2021), 3.2,
   second strategy) and subtracts row r of it times column c of X_p. The right-hand sides live in M itself (global
   memory), written and read by the same warp, ordered by __syncwarp().
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/msdevarrays.cuh>
#include <petscmodsell/private/bisaikernels.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cusparse.h>

#define BISAI_WARPS 4 /* warps per thread block of the warp-per-row and warp-per-column kernels */
#define BISAI_TRY(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) return (int)e_; \
  } while (0)

/* the sum of a per-thread count over the warp, added to *out by lane 0 (every lane of the warp calls it) */
__device__ __forceinline__ void bisai_warp_count(unsigned long long n, unsigned long long *out)
{
  for (int off = 16; off > 0; off /= 2) n += __shfl_down_sync(0xffffffffu, n, off);
  if ((threadIdx.x & 31) == 0 && n) atomicAdd(out, n);
}

static inline unsigned bisai_warp_grid(long long n)
{
  return ms_grid((n + BISAI_WARPS - 1) / BISAI_WARPS, 1);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* symbolic                                                                                                     */

__global__ void bisai_scan_finish_kernel(int n, const long long *__restrict__ incl, int *__restrict__ ptr, long long *total)
{
  const long long tot = n > 0 ? incl[n - 1] : 0;

  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i <= n; i += (long long)gridDim.x * blockDim.x) {
    if (i == 0) {
      ptr[0] = 0;
      *total = tot;
    } else ptr[i] = (int)(incl[i - 1] < 0x7fffffffLL ? incl[i - 1] : 0);
  }
}

__global__ void bisai_widen_kernel(int n, const int *__restrict__ in, long long *__restrict__ out)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) out[i] = in[i];
}

extern "C" MS_BISAI_SCAN(MSBISAIScan_CUDA)
{
  cudaStream_t   st = (cudaStream_t)stream;
  MSDeviceArrays tmp(st);
  long long     *wide, *incl;

  BISAI_TRY(tmp.get(&wide, n));
  BISAI_TRY(tmp.get(&incl, n));
  if (n > 0) {
    bisai_widen_kernel<<<ms_grid(n, 256), 256, 0, st>>>(n, ptr + 1, wide);
    BISAI_TRY(cudaGetLastError());
    BISAI_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::InclusiveSum(t, b, wide, incl, n, st); }));
  }
  bisai_scan_finish_kernel<<<ms_grid((long long)n + 1, 256), 256, 0, st>>>(n, incl, ptr, total);
  return (int)cudaGetLastError();
}

__global__ void bisai_block_count_kernel(int nb, int bs, const int *__restrict__ ai, const int *__restrict__ aj, int *__restrict__ rowptr)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) rowptr[i + 1] = MSBISAIBlockRow(bs, i, ai, aj, 0, NULL, NULL, NULL);
}

extern "C" MS_BISAI_BLOCK_COUNT(MSBISAIBlockCount_CUDA)
{
  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (nb <= 0) return (int)cudaSuccess;
  bisai_block_count_kernel<<<ms_grid(nb, 128), 128, 0, (cudaStream_t)stream>>>(nb, bs, ai, aj, rowptr);
  return (int)cudaGetLastError();
}

__global__ void bisai_block_fill_kernel(int nb, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ rowptr, int *__restrict__ cols, int *__restrict__ rowidx, int *__restrict__ diag, int *__restrict__ map)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) {
    (void)MSBISAIBlockRow(bs, i, ai, aj, rowptr[i], cols + rowptr[i], diag + i, map);
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) rowidx[p] = i;
  }
}

extern "C" MS_BISAI_BLOCK_FILL(MSBISAIBlockFill_CUDA)
{
  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (nb <= 0) return (int)cudaSuccess;
  bisai_block_fill_kernel<<<ms_grid(nb, 128), 128, 0, (cudaStream_t)stream>>>(nb, bs, ai, aj, rowptr, cols, rowidx, diag, map);
  return (int)cudaGetLastError();
}

__global__ void bisai_pattern_part_kernel(int nb, const int *__restrict__ rowptr, const int *__restrict__ cols, const int *__restrict__ diag, int lower, int *__restrict__ prp, int *__restrict__ pcols)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) {
    const int lo = lower ? rowptr[i] : diag[i], hi = lower ? diag[i] + 1 : rowptr[i + 1];

    if (!pcols) prp[i + 1] = hi - lo;
    else
      for (int p = lo; p < hi; p++) pcols[prp[i] + p - lo] = cols[p];
  }
}

extern "C" MS_BISAI_PATTERN_PART(MSBISAIPatternPart_CUDA)
{
  if (nb <= 0) return (int)cudaSuccess;
  bisai_pattern_part_kernel<<<ms_grid(nb, 256), 256, 0, (cudaStream_t)stream>>>(nb, rowptr, cols, diag, lower, prp, pcols);
  return (int)cudaGetLastError();
}

/* the candidates of row i of P T: their number (len), or the candidates themselves at key + off[i] */
__global__ void bisai_power_expand_kernel(int nb, const int *__restrict__ prp, const int *__restrict__ pcols, const int *__restrict__ trp, const int *__restrict__ tcols, int *__restrict__ len, const long long *__restrict__ off, int *__restrict__ key)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) {
    long long n = 0;

    for (int p = prp[i]; p < prp[i + 1]; p++) {
      const int j = pcols[p];
      if (key)
        for (int q = trp[j]; q < trp[j + 1]; q++) key[off[i] + n + q - trp[j]] = tcols[q];
      n += trp[j + 1] - trp[j];
    }
    if (!key) len[i] = (int)n;
  }
}

/* the distinct columns of each sorted segment: their number (qrp[i+1]), or the columns at qcols + qrp[i] */
__global__ void bisai_power_unique_kernel(int nb, const long long *__restrict__ off, const int *__restrict__ key, int *__restrict__ qrp, int *__restrict__ qcols)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) {
    const long long lo = off[i], hi = off[i + 1];
    int             n  = 0;

    for (long long e = lo; e < hi; e++)
      if (e == lo || key[e] != key[e - 1]) {
        if (qcols) qcols[qrp[i] + n] = key[e];
        n++;
      }
    if (!qcols) qrp[i + 1] = n;
  }
}

__global__ void bisai_offsets_kernel(int nb, const long long *__restrict__ incl, long long *__restrict__ off)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i <= nb; i += (long long)gridDim.x * blockDim.x) off[i] = i == 0 ? 0 : incl[i - 1];
}

extern "C" MS_BISAI_PATTERN_POWER(MSBISAIPatternPower_CUDA)
{
  cudaStream_t   st = (cudaStream_t)stream;
  MSDeviceArrays tmp(st);
  int           *len, *keys, *sorted;
  long long     *wide, *incl, *off, total = 0;

  if (nb <= 0) return (int)cudaSuccess;
  BISAI_TRY(tmp.get(&len, nb));
  BISAI_TRY(tmp.get(&wide, nb));
  BISAI_TRY(tmp.get(&incl, nb));
  BISAI_TRY(tmp.get(&off, (long long)nb + 1));
  bisai_power_expand_kernel<<<ms_grid(nb, 256), 256, 0, st>>>(nb, prp, pcols, trp, tcols, len, NULL, NULL);
  BISAI_TRY(cudaGetLastError());
  bisai_widen_kernel<<<ms_grid(nb, 256), 256, 0, st>>>(nb, len, wide);
  BISAI_TRY(cudaGetLastError());
  BISAI_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::InclusiveSum(t, b, wide, incl, nb, st); }));
  bisai_offsets_kernel<<<ms_grid((long long)nb + 1, 256), 256, 0, st>>>(nb, incl, off);
  BISAI_TRY(cudaGetLastError());
  BISAI_TRY(cudaMemcpyAsync(&total, off + nb, sizeof(long long), cudaMemcpyDeviceToHost, st));
  BISAI_TRY(cudaStreamSynchronize(st)); /* the size of the expansion */
  if (total >= 0x7fffffffLL) return (int)cudaErrorInvalidValue;
  BISAI_TRY(tmp.get(&keys, total));
  BISAI_TRY(tmp.get(&sorted, total));
  bisai_power_expand_kernel<<<ms_grid(nb, 256), 256, 0, st>>>(nb, prp, pcols, trp, tcols, NULL, off, keys);
  BISAI_TRY(cudaGetLastError());
  if (total > 0) BISAI_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceSegmentedSort::SortKeys(t, b, keys, sorted, (int)total, nb, off, off + 1, st); }));
  bisai_power_unique_kernel<<<ms_grid(nb, 256), 256, 0, st>>>(nb, off, sorted, qrp, qcols);
  return (int)cudaGetLastError();
}

__global__ void bisai_transpose_count_kernel(int nb, const int *__restrict__ rp, const int *__restrict__ cols, int *__restrict__ rowof, int *__restrict__ colcnt)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x)
    for (int p = rp[i]; p < rp[i + 1]; p++) {
      rowof[p] = i;
      atomicAdd(&colcnt[cols[p] + 1], 1);
    }
}

__global__ void bisai_iota_kernel(int n, int *__restrict__ a)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = i;
}

__global__ void bisai_gather_kernel(int n, const int *__restrict__ idx, const int *__restrict__ src, int *__restrict__ dst)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[idx[i]];
}

extern "C" MS_BISAI_PATTERN_TRANSPOSE(MSBISAIPatternTranspose_CUDA)
{
  cudaStream_t   st = (cudaStream_t)stream;
  MSDeviceArrays tmp(st);
  int           *rowof, *iota, *keys, bits = 1;

  if (nb <= 0) return (int)cudaSuccess;
  while (bits < 31 && (1 << bits) < nb) bits++;
  BISAI_TRY(tmp.get(&rowof, nnz));
  BISAI_TRY(tmp.get(&iota, nnz));
  BISAI_TRY(tmp.get(&keys, nnz));
  BISAI_TRY(cudaMemsetAsync(colptr, 0, sizeof(int) * ((size_t)nb + 1), st));
  bisai_transpose_count_kernel<<<ms_grid(nb, 256), 256, 0, st>>>(nb, rp, cols, rowof, colptr);
  BISAI_TRY(cudaGetLastError());
  {
    long long *tot;
    BISAI_TRY(tmp.get(&tot, 1));
    int err = MSBISAIScan_CUDA(nb, colptr, tot, stream); /* the counts are below nnz: no overflow */
    if (err) return err;
  }
  if (nnz <= 0) return (int)cudaSuccess;
  bisai_iota_kernel<<<ms_grid(nnz, 256), 256, 0, st>>>(nnz, iota);
  BISAI_TRY(cudaGetLastError());
  /* stable by column: the blocks of a column keep their row-major order, so rows ascend */
  BISAI_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, cols, keys, (const int *)iota, pos, nnz, 0, bits, st); }));
  bisai_gather_kernel<<<ms_grid(nnz, 256), 256, 0, st>>>(nnz, pos, rowof, rowidx);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* numeric                                                                                                      */

/* one thread per row: the first non-finite entry's row and the first asymmetric entry's row by atomicMin */
__global__ void bisai_check_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, double symtol, int *out)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
    const double di        = MSBISAIDiagAbs(ai, aj, aa, i);
    bool         nonfinite = false, asym = false;

    for (int e = ai[i]; e < ai[i + 1]; e++) {
      if (!isfinite(aa[e])) {
        nonfinite = true;
        continue;
      }
      if (symtol < 0.0 || asym) continue;
      if (MSBISAIAsymmetric(m, ai, aj, aa, i, e, di, symtol)) asym = true;
    }
    if (nonfinite) atomicMin(&out[0], i);
    if (asym) atomicMin(&out[1], i);
  }
}

extern "C" MS_BISAI_CHECK(MSBISAICheck_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  BISAI_TRY(cudaMemsetAsync(out, 0x7f, 2 * sizeof(int), st)); /* MS_BISAI_NONE */
  if (m <= 0) return (int)cudaSuccess;
  bisai_check_kernel<<<ms_grid(m, 256), 256, 0, st>>>(m, ai, aj, aa, symtol, out);
  return (int)cudaGetLastError();
}

__global__ void bisai_values_kernel(int nnz, const int *__restrict__ map, const double *__restrict__ aa, double *__restrict__ A)
{
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < nnz; e += gridDim.x * blockDim.x) A[map[e]] = aa[e];
}

extern "C" MS_BISAI_VALUES(MSBISAIValues_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (nvals > 0) BISAI_TRY(cudaMemsetAsync(A, 0, sizeof(double) * (size_t)nvals, st));
  if (nnz <= 0) return (int)cudaSuccess;
  bisai_values_kernel<<<ms_grid(nnz, 256), 256, 0, st>>>(nnz, map, aa, A);
  return (int)cudaGetLastError();
}

__global__ void bisai_shift_kernel(int nb, int bs, const int *__restrict__ diag, double factor, double *__restrict__ A)
{
  const long long n = (long long)nb * bs;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int i = (int)(id / bs), r = (int)(id % bs);
    A[(size_t)diag[i] * bs * bs + (size_t)r * bs + r] *= factor;
  }
}

extern "C" MS_BISAI_SHIFT(MSBISAIShift_CUDA)
{
  const long long n = (long long)nb * bs;

  if (n <= 0) return (int)cudaSuccess;
  bisai_shift_kernel<<<ms_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(nb, bs, diag, factor, A);
  return (int)cudaGetLastError();
}

__global__ void bisai_invert_diag_kernel(int nb, int bs, int spd, const int *__restrict__ diag, const double *__restrict__ F, double *__restrict__ Dinv, int *bad)
{
  const size_t bs2 = (size_t)bs * bs;

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) {
    const double *B = F + (size_t)diag[i] * bs2;
    double       *D = Dinv + (size_t)i * bs2;

    if (spd ? MSBISAIInvertBlockSPD(bs, B, D) : MSBISAIInvertBlock(bs, B, D)) atomicMin(bad, i);
  }
}

extern "C" MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  BISAI_TRY(cudaMemsetAsync(bad, 0x7f, sizeof(int), st)); /* MS_BISAI_NONE */
  if (nb <= 0) return (int)cudaSuccess;
  bisai_invert_diag_kernel<<<ms_grid(nb, 128), 128, 0, st>>>(nb, bs, spd, diag, F, Dinv, bad);
  return (int)cudaGetLastError();
}

/* the exact block ILU(0), one warp per block row taken in increasing order (see the top of the file) */
__global__ void __launch_bounds__(32 * BISAI_WARPS) bisai_ilu_exact_kernel(int nb, int bs, int spd, const int *__restrict__ rowptr, const int *__restrict__ cols, const int *__restrict__ diag, double *F, double *Dinv, int *done, int *ticket, int *bad, unsigned long long *products)
{
  __shared__ double  lik_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  const int          lane = threadIdx.x & 31, bs2 = bs * bs;
  double            *lik  = lik_all[threadIdx.x >> 5];
  unsigned long long n    = 0;

  for (;;) {
    int i = 0;

    if (lane == 0) i = atomicAdd(ticket, 1);
    i = __shfl_sync(0xffffffffu, i, 0);
    if (i >= nb) break;
    const int beg = rowptr[i], end = rowptr[i + 1], dg = diag[i];
    for (int p = beg; p < dg; p++) {
      const int k = cols[p], q0 = diag[k] + 1, q1 = rowptr[k + 1];

      if (lane == 0) {
        while (*(volatile int *)&done[k] == 0) __nanosleep(64);
        __threadfence();
        n++; /* the product L(i,k) = F(i,k) Dinv(k) */
      }
      __syncwarp();
      for (int e = lane; e < bs2; e += 32) {
        const int r = e / bs, c = e % bs;
        double    s = 0.0;
        for (int t = 0; t < bs; t++) s += F[(size_t)p * bs2 + r * bs + t] * __ldcg(Dinv + (size_t)k * bs2 + t * bs + c);
        lik[e] = s;
      }
      __syncwarp();
      for (int e = lane; e < bs2; e += 32) F[(size_t)p * bs2 + e] = lik[e];
      /* F(i,j) -= L(i,k) F(k,j) for the blocks j > k of row k that row i has (distinct j: no two lanes write one entry) */
      for (int e = lane; e < (q1 - q0) * bs2; e += 32) {
        const int q = q0 + e / bs2, el = e % bs2, r = el / bs, c = el % bs;
        const int pj = MSBISAIFind(cols, beg, end, cols[q]);
        double    s  = 0.0;

        if (pj < 0) continue;
        for (int t = 0; t < bs; t++) s += lik[r * bs + t] * __ldcg(F + (size_t)q * bs2 + t * bs + c);
        F[(size_t)pj * bs2 + el] -= s;
        if (el == 0) n++;
      }
      __syncwarp();
    }
    if (lane == 0 && (spd ? MSBISAIInvertBlockSPD(bs, F + (size_t)dg * bs2, Dinv + (size_t)i * bs2) : MSBISAIInvertBlock(bs, F + (size_t)dg * bs2, Dinv + (size_t)i * bs2))) atomicMin(bad, i);
    __threadfence(); /* every lane's writes of row i (and lane 0's inverse) visible to the device ... */
    __syncwarp();
    if (lane == 0) atomicExch(&done[i], 1); /* ... before the flag */
  }
  bisai_warp_count(n, products);
}

extern "C" MS_BISAI_ILU_EXACT(MSBISAIILUExact_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  int          dev, sms, per = 0;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  BISAI_TRY(cudaMemsetAsync(bad, 0x7f, sizeof(int), st)); /* MS_BISAI_NONE */
  BISAI_TRY(cudaMemsetAsync(products, 0, sizeof(*products), st));
  if (nb <= 0) return (int)cudaSuccess;
  BISAI_TRY(cudaMemsetAsync(work, 0, sizeof(int) * ((size_t)nb + 1), st)); /* the done flags and the counter */
  BISAI_TRY(cudaMemcpyAsync(F, A, sizeof(double) * bs * bs * (size_t)nnzb, cudaMemcpyDeviceToDevice, st));
  BISAI_TRY(cudaGetDevice(&dev));
  BISAI_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  BISAI_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, bisai_ilu_exact_kernel, 32 * BISAI_WARPS, 0));
  {
    /* no more warps than block rows, no more thread blocks than can run at once (more would only wait) */
    long long g = ((long long)nb + BISAI_WARPS - 1) / BISAI_WARPS, cap = (long long)sms * (per > 0 ? per : 1);

    bisai_ilu_exact_kernel<<<(unsigned)(g < cap ? g : cap), 32 * BISAI_WARPS, 0, st>>>(nb, bs, spd, rowptr, cols, diag, F, Dinv, work, work + nb, bad, products);
  }
  return (int)cudaGetLastError();
}

/* one thread per scalar entry (p, r, c) of the pattern */
__global__ void bisai_ilu_residual_kernel(int bs, int nnzb, const int *__restrict__ rowptr, const int *__restrict__ rowidx, const int *__restrict__ cols, const double *__restrict__ A, const double *__restrict__ F, double *__restrict__ S, unsigned long long *products)
{
  const int          bs2 = bs * bs;
  const long long    n   = (long long)nnzb * bs2;
  unsigned long long cnt = 0;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int p = (int)(id / bs2), e = (int)(id % bs2), r = e / bs, c = e % bs;
    const int i = rowidx[p], j = cols[p], kmax = i < j ? i : j;
    double    s = 0.0;

    for (int q = rowptr[i]; q < rowptr[i + 1] && cols[q] < kmax; q++) {
      const int k = cols[q], f = MSBISAIFind(cols, rowptr[k], rowptr[k + 1], j);
      if (f < 0) continue;
      for (int t = 0; t < bs; t++) s += F[(size_t)q * bs2 + r * bs + t] * F[(size_t)f * bs2 + t * bs + c];
      if (e == 0) cnt++;
    }
    S[id] = A[id] - s;
  }
  if (products) bisai_warp_count(cnt, products);
}

extern "C" MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_CUDA)
{
  const long long n  = (long long)nnzb * bs * bs;
  cudaStream_t    st = (cudaStream_t)stream;

  if (products) BISAI_TRY(cudaMemsetAsync(products, 0, sizeof(*products), st));
  if (n <= 0) return (int)cudaSuccess;
  bisai_ilu_residual_kernel<<<ms_grid(n, 256), 256, 0, st>>>(bs, nnzb, rowptr, rowidx, cols, A, F, S, products);
  return (int)cudaGetLastError();
}

__global__ void bisai_ilu_update_kernel(int bs, int nnzb, const int *__restrict__ rowidx, const int *__restrict__ cols, const double *__restrict__ S, const double *__restrict__ Dinv, double *__restrict__ F)
{
  const int       bs2 = bs * bs;
  const long long n   = (long long)nnzb * bs2;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int p = (int)(id / bs2), e = (int)(id % bs2), r = e / bs, c = e % bs;
    const int i = rowidx[p], j = cols[p];
    double    v;

    if (i > j) {
      v = 0.0;
      if (Dinv)
        for (int t = 0; t < bs; t++) v += S[(size_t)p * bs2 + r * bs + t] * Dinv[(size_t)j * bs2 + t * bs + c];
    } else v = S[id];
    F[id] = v;
  }
}

extern "C" MS_BISAI_ILU_UPDATE(MSBISAIILUUpdate_CUDA)
{
  const long long n = (long long)nnzb * bs * bs;

  if (n <= 0) return (int)cudaSuccess;
  bisai_ilu_update_kernel<<<ms_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(bs, nnzb, rowidx, cols, S, Dinv, F);
  return (int)cudaGetLastError();
}

/* the diagonal blocks' symmetric parts (one thread per block row), then U(i,j) = D_i L(j,i)^T (one thread per block
   row i and entry (r, c), over the row's upper blocks) */
__global__ void bisai_ic_diag_kernel(int nb, int bs, const int *__restrict__ diag, double *__restrict__ F)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x) {
    double *D = F + (size_t)diag[i] * bs * bs;
    for (int r = 0; r < bs; r++)
      for (int c = r + 1; c < bs; c++) D[r * bs + c] = D[c * bs + r] = 0.5 * (D[r * bs + c] + D[c * bs + r]);
  }
}

__global__ void bisai_ic_upper_kernel(int nb, int bs, const int *__restrict__ rowptr, const int *__restrict__ cols, const int *__restrict__ diag, double *F)
{
  const int       bs2 = bs * bs;
  const long long n   = (long long)nb * bs2;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int     i = (int)(id / bs2), e = (int)(id % bs2), r = e / bs, c = e % bs;
    const double *D = F + (size_t)diag[i] * bs2;

    for (int p = diag[i] + 1; p < rowptr[i + 1]; p++) {
      const int j = cols[p], f = MSBISAIFind(cols, rowptr[j], diag[j], i);
      double    s = 0.0;
      if (f >= 0)
        for (int t = 0; t < bs; t++) s += D[r * bs + t] * F[(size_t)f * bs2 + c * bs + t];
      F[(size_t)p * bs2 + e] = s;
    }
  }
}

extern "C" MS_BISAI_IC_UPPER(MSBISAIICUpper_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (nb <= 0) return (int)cudaSuccess;
  bisai_ic_diag_kernel<<<ms_grid(nb, 128), 128, 0, st>>>(nb, bs, diag, F);
  BISAI_TRY(cudaGetLastError());
  bisai_ic_upper_kernel<<<ms_grid((long long)nb * bs * bs, 128), 128, 0, st>>>(nb, bs, rowptr, cols, diag, F);
  return (int)cudaGetLastError();
}

/* rhs_q -= F(J_q, J_p) X_p for the blocks q in [q0, q1) of the column, X_p in xs (shared); the warp's lanes stride
   over the scalar entries; *cnt counts the blocks found (entry 0 of each) */
__device__ __forceinline__ void bisai_column_update(int bs, int lane, int q0, int q1, int beg, int jp, const int *__restrict__ frowptr, const int *__restrict__ fcols, const double *__restrict__ F, const int *__restrict__ rowidx, const int *__restrict__ pos, const double *xs, double *M, unsigned long long *cnt)
{
  const int bs2 = bs * bs;

  for (int e = lane; e < (q1 - q0) * bs2; e += 32) {
    const int q = q0 + e / bs2, el = e % bs2, r = el / bs, c = el % bs;
    const int jq = rowidx[beg + q], f = MSBISAIFind(fcols, frowptr[jq], frowptr[jq + 1], jp);
    double    s  = 0.0;

    if (f < 0) continue;
    for (int t = 0; t < bs; t++) s += F[(size_t)f * bs2 + r * bs + t] * xs[t * bs + c];
    M[(size_t)pos[beg + q] * bs2 + el] -= s;
    if (el == 0) (*cnt)++;
  }
}

__global__ void __launch_bounds__(32 * BISAI_WARPS) bisai_isai_lower_kernel(int nb, int bs, const int *__restrict__ frowptr, const int *__restrict__ fcols, const double *__restrict__ F, const int *__restrict__ colptr, const int *__restrict__ rowidx, const int *__restrict__ pos, double *M, unsigned long long *products)
{
  __shared__ double  xs_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  const int          lane = threadIdx.x % 32, w = threadIdx.x / 32, bs2 = bs * bs;
  double            *xs   = xs_all[w];
  unsigned long long cnt  = 0;

  for (int j = blockIdx.x * BISAI_WARPS + w; j < nb; j += gridDim.x * BISAI_WARPS) {
    const int beg = colptr[j], n = colptr[j + 1] - beg;

    for (int e = lane; e < n * bs2; e += 32) {
      const int q = e / bs2, el = e % bs2;
      M[(size_t)pos[beg + q] * bs2 + el] = (q == 0 && el / bs == el % bs) ? 1.0 : 0.0;
    }
    __syncwarp();
    for (int p = 0; p < n; p++) {
      for (int e = lane; e < bs2; e += 32) xs[e] = M[(size_t)pos[beg + p] * bs2 + e]; /* X_p is final */
      __syncwarp();
      bisai_column_update(bs, lane, p + 1, n, beg, rowidx[beg + p], frowptr, fcols, F, rowidx, pos, xs, M, &cnt);
      __syncwarp();
    }
  }
  if (products) bisai_warp_count(cnt, products);
}

__global__ void __launch_bounds__(32 * BISAI_WARPS) bisai_isai_upper_kernel(int nb, int bs, const int *__restrict__ frowptr, const int *__restrict__ fcols, const double *__restrict__ F, const double *__restrict__ Dinv, const int *__restrict__ colptr, const int *__restrict__ rowidx, const int *__restrict__ pos, double *M, unsigned long long *products)
{
  __shared__ double  xs_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  __shared__ double  rhs_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  const int          lane = threadIdx.x % 32, w = threadIdx.x / 32, bs2 = bs * bs;
  double            *xs = xs_all[w], *rhs = rhs_all[w];
  unsigned long long cnt = 0;

  for (int j = blockIdx.x * BISAI_WARPS + w; j < nb; j += gridDim.x * BISAI_WARPS) {
    const int beg = colptr[j], n = colptr[j + 1] - beg;

    for (int e = lane; e < n * bs2; e += 32) {
      const int q = e / bs2, el = e % bs2;
      M[(size_t)pos[beg + q] * bs2 + el] = (q == n - 1 && el / bs == el % bs) ? 1.0 : 0.0;
    }
    __syncwarp();
    for (int p = n - 1; p >= 0; p--) {
      const int jp = rowidx[beg + p];
      double   *x  = M + (size_t)pos[beg + p] * bs2;

      for (int e = lane; e < bs2; e += 32) rhs[e] = x[e];
      __syncwarp();
      for (int e = lane; e < bs2; e += 32) { /* X_p = U(J_p,J_p)^-1 rhs_p */
        const int r = e / bs, c = e % bs;
        double    s = 0.0;
        for (int t = 0; t < bs; t++) s += Dinv[(size_t)jp * bs2 + r * bs + t] * rhs[t * bs + c];
        xs[e] = s;
        x[e]  = s;
      }
      if (lane == 0) cnt++;
      __syncwarp();
      bisai_column_update(bs, lane, 0, p, beg, jp, frowptr, fcols, F, rowidx, pos, xs, M, &cnt);
      __syncwarp();
    }
  }
  if (products) bisai_warp_count(cnt, products);
}

extern "C" MS_BISAI_ISAI_LOWER(MSBISAIISAILower_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (products) BISAI_TRY(cudaMemsetAsync(products, 0, sizeof(*products), st));
  if (nb <= 0) return (int)cudaSuccess;
  bisai_isai_lower_kernel<<<bisai_warp_grid(nb), 32 * BISAI_WARPS, 0, st>>>(nb, bs, frowptr, fcols, F, colptr, rowidx, pos, M, products);
  return (int)cudaGetLastError();
}

extern "C" MS_BISAI_ISAI_UPPER(MSBISAIISAIUpper_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (products) BISAI_TRY(cudaMemsetAsync(products, 0, sizeof(*products), st));
  if (nb <= 0) return (int)cudaSuccess;
  bisai_isai_upper_kernel<<<bisai_warp_grid(nb), 32 * BISAI_WARPS, 0, st>>>(nb, bs, frowptr, fcols, F, Dinv, colptr, rowidx, pos, M, products);
  return (int)cudaGetLastError();
}

/* H = G^T D^-1 by columns of G: one thread per scalar entry (t, r, c) of H */
__global__ void bisai_isai_transpose_kernel(int bs, int nnz, const int *__restrict__ rowidx, const int *__restrict__ pos, const double *__restrict__ G, const double *__restrict__ Dinv, double *__restrict__ H)
{
  const int       bs2 = bs * bs;
  const long long n   = (long long)nnz * bs2;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int     t = (int)(id / bs2), e = (int)(id % bs2), r = e / bs, c = e % bs;
    const double *g = G + (size_t)pos[t] * bs2, *d = Dinv + (size_t)rowidx[t] * bs2;
    double        s = 0.0;

    for (int k = 0; k < bs; k++) s += g[k * bs + r] * d[k * bs + c];
    H[id] = s;
  }
}

extern "C" MS_BISAI_ISAI_TRANSPOSE(MSBISAIISAITranspose_CUDA)
{
  const long long n = (long long)nnz * bs * bs;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (n <= 0) return (int)cudaSuccess;
  bisai_isai_transpose_kernel<<<ms_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(bs, nnz, rowidx, pos, G, Dinv, H);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* apply                                                                                                        */

/* y = M x or y += M x: one thread per scalar row (block row i, row r of its blocks); the bs threads of a block row
   read the bs rows of each block, bs*bs consecutive doubles together */
template <int BS>
__global__ void bisai_bsr_mult_kernel(int nb, int bsrt, const int *__restrict__ rowptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ x, int add, double *__restrict__ y)
{
  const int       bs = BS ? BS : bsrt, bs2 = bs * bs;
  const long long n  = (long long)nb * bs;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int i = (int)(id / bs), r = (int)(id % bs);
    double    s = 0.0;

    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) {
      const double *v  = vals + (size_t)p * bs2 + r * bs;
      const double *xc = x + (size_t)cols[p] * bs;
#pragma unroll
      for (int c = 0; c < (BS ? BS : MS_BISAI_MAXBS); c++)
        if (BS || c < bs) s += v[c] * xc[c];
    }
    y[id] = add ? y[id] + s : s;
  }
}

extern "C" MS_BISAI_BSR_MULT(MSBISAIBSRMult_CUDA)
{
  const long long n  = (long long)nb * bs;
  cudaStream_t    st = (cudaStream_t)stream;
  const unsigned  g  = ms_grid(n, 256);

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (n <= 0) return (int)cudaSuccess;
  switch (bs) {
  case 1: bisai_bsr_mult_kernel<1><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, add, y); break;
  case 2: bisai_bsr_mult_kernel<2><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, add, y); break;
  case 3: bisai_bsr_mult_kernel<3><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, add, y); break;
  case 4: bisai_bsr_mult_kernel<4><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, add, y); break;
  case 5: bisai_bsr_mult_kernel<5><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, add, y); break;
  default: bisai_bsr_mult_kernel<0><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, add, y); break;
  }
  return (int)cudaGetLastError();
}

/* y = b - T x: one thread per scalar row, the row's blocks of the lower (with the unit diagonal) or upper part of F */
template <int BS>
__global__ void bisai_factor_residual_kernel(int nb, int bsrt, int lower, const int *__restrict__ rowptr, const int *__restrict__ cols, const int *__restrict__ diag, const double *__restrict__ F, const double *__restrict__ b, const double *__restrict__ x, double *__restrict__ y)
{
  const int       bs = BS ? BS : bsrt, bs2 = bs * bs;
  const long long n  = (long long)nb * bs;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int i = (int)(id / bs), r = (int)(id % bs), lo = lower ? rowptr[i] : diag[i], hi = lower ? diag[i] : rowptr[i + 1];
    double    s = lower ? x[id] : 0.0;

    for (int p = lo; p < hi; p++) {
      const double *v  = F + (size_t)p * bs2 + r * bs;
      const double *xc = x + (size_t)cols[p] * bs;
#pragma unroll
      for (int c = 0; c < (BS ? BS : MS_BISAI_MAXBS); c++)
        if (BS || c < bs) s += v[c] * xc[c];
    }
    y[id] = b[id] - s;
  }
}

extern "C" MS_BISAI_FACTOR_RESIDUAL(MSBISAIFactorResidual_CUDA)
{
  const long long n  = (long long)nb * bs;
  cudaStream_t    st = (cudaStream_t)stream;
  const unsigned  g  = ms_grid(n, 256);

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (n <= 0) return (int)cudaSuccess;
  switch (bs) {
  case 1: bisai_factor_residual_kernel<1><<<g, 256, 0, st>>>(nb, bs, lower, rowptr, cols, diag, F, b, x, y); break;
  case 2: bisai_factor_residual_kernel<2><<<g, 256, 0, st>>>(nb, bs, lower, rowptr, cols, diag, F, b, x, y); break;
  case 3: bisai_factor_residual_kernel<3><<<g, 256, 0, st>>>(nb, bs, lower, rowptr, cols, diag, F, b, x, y); break;
  case 4: bisai_factor_residual_kernel<4><<<g, 256, 0, st>>>(nb, bs, lower, rowptr, cols, diag, F, b, x, y); break;
  case 5: bisai_factor_residual_kernel<5><<<g, 256, 0, st>>>(nb, bs, lower, rowptr, cols, diag, F, b, x, y); break;
  default: bisai_factor_residual_kernel<0><<<g, 256, 0, st>>>(nb, bs, lower, rowptr, cols, diag, F, b, x, y); break;
  }
  return (int)cudaGetLastError();
}

/* cuSPARSE's BSR product on the same arrays, for comparison (-pc_bisai_spmv cusparse) */
typedef struct {
  cusparseHandle_t   handle;
  cusparseMatDescr_t descr;
} MSBISAICusparse;

extern "C" MS_BISAI_LIBRARY_DESTROY(MSBISAICusparseDestroy_CUDA)
{
  MSBISAICusparse *c = (MSBISAICusparse *)*ctx;
  cusparseStatus_t s = CUSPARSE_STATUS_SUCCESS, t = CUSPARSE_STATUS_SUCCESS;

  if (!c) return 0;
  if (c->descr) s = cusparseDestroyMatDescr(c->descr);
  if (c->handle) t = cusparseDestroy(c->handle);
  free(c);
  *ctx = NULL;
  return s != CUSPARSE_STATUS_SUCCESS ? -(int)s : -(int)t;
}

extern "C" MS_BISAI_BSR_MULT_LIBRARY(MSBISAIBSRMultCusparse_CUDA)
{
  MSBISAICusparse *c     = (MSBISAICusparse *)*ctx;
  const double     alpha = 1.0, beta = add ? 1.0 : 0.0;
  cusparseStatus_t s;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (!c) {
    c = (MSBISAICusparse *)calloc(1, sizeof(*c));
    if (!c) return (int)cudaErrorMemoryAllocation;
    *ctx = c;
    if ((s = cusparseCreate(&c->handle)) != CUSPARSE_STATUS_SUCCESS) return -(int)s;
    if ((s = cusparseCreateMatDescr(&c->descr)) != CUSPARSE_STATUS_SUCCESS) return -(int)s;
    if ((s = cusparseSetMatType(c->descr, CUSPARSE_MATRIX_TYPE_GENERAL)) != CUSPARSE_STATUS_SUCCESS) return -(int)s;
    if ((s = cusparseSetMatIndexBase(c->descr, CUSPARSE_INDEX_BASE_ZERO)) != CUSPARSE_STATUS_SUCCESS) return -(int)s;
  }
  if (nb <= 0) return (int)cudaSuccess; /* nb = 0: only create the context (the setup does, outside the iterations) */
  if ((s = cusparseSetStream(c->handle, (cudaStream_t)stream)) != CUSPARSE_STATUS_SUCCESS) return -(int)s;
  s = cusparseDbsrmv(c->handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, nb, nb, nnzb, &alpha, c->descr, vals, rowptr, cols, bs, x, &beta, y);
  if (s != CUSPARSE_STATUS_SUCCESS) return -(int)s;
  return (int)cudaGetLastError();
}

extern "C" const MSBISAIKernels MSBISAIKernels_CUDA = {"cuda",
                                                       MSBISAIScan_CUDA,
                                                       MSBISAIBlockCount_CUDA,
                                                       MSBISAIBlockFill_CUDA,
                                                       MSBISAIPatternPart_CUDA,
                                                       MSBISAIPatternPower_CUDA,
                                                       MSBISAIPatternTranspose_CUDA,
                                                       MSBISAICheck_CUDA,
                                                       MSBISAIValues_CUDA,
                                                       MSBISAIShift_CUDA,
                                                       MSBISAIInvertDiag_CUDA,
                                                       MSBISAIILUExact_CUDA,
                                                       MSBISAIILUResidual_CUDA,
                                                       MSBISAIILUUpdate_CUDA,
                                                       MSBISAIICUpper_CUDA,
                                                       MSBISAIISAILower_CUDA,
                                                       MSBISAIISAIUpper_CUDA,
                                                       MSBISAIISAITranspose_CUDA,
                                                       MSBISAIBSRMult_CUDA,
                                                       MSBISAIFactorResidual_CUDA,
                                                       "cuSPARSE",
                                                       MSBISAIBSRMultCusparse_CUDA,
                                                       MSBISAICusparseDestroy_CUDA,
                                                       2};
