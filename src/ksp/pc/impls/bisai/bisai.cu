/*
   CUDA kernels of PCBISAI (Ma et al. (2021)): block ILU(0) fixed-point sweeps, inversion of the diagonal blocks, the
   block-ISAI columns (one warp per block column, paper section 3.2) and the BSR product of the apply. See
   include/petscmodsell/private/bisaikernels.h for the notation; the host reference (bisai_reference.c) computes the
   same function with the same sums in the same order.

   Every kernel runs on the stream it is given, synchronizes nothing and returns cudaGetLastError().

   Block-ISAI column kernel (isai_lower / isai_upper): warp w of the grid takes block column j. The warp keeps the
   solved block X_p of the current step in shared memory (bs*bs doubles per warp) and its lanes own the scalar
   entries (q, r, c) of the remaining right-hand sides, bs*bs lanes per block of the column (lanes stride over them
   when the column has more than 32 / (bs*bs) blocks below or above): lane (q, r, c) finds block (J_q, J_p) of the
   factor by a binary search in F's block row J_q (the small triangular system is never stored: Ma et al. (2021), 3.2,
   second strategy) and subtracts row r of it times column c of X_p. The right-hand sides live in M itself (global
   memory), written and read by the same warp, ordered by __syncwarp().
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/bisaikernels.h>
#include <cusparse.h>

#define BISAI_WARPS 4 /* warps per thread block of the column kernels */



__global__ void bisai_invert_diag_kernel(int nb, int bs, const int *__restrict__ diag, const double *__restrict__ F, double *__restrict__ Dinv, int *bad)
{
  const size_t bs2 = (size_t)bs * bs;

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x)
    if (MSBISAIInvertBlock(bs, F + (size_t)diag[i] * bs2, Dinv + (size_t)i * bs2)) atomicMin(bad, i);
}

extern "C" MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;

  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  err = cudaMemsetAsync(bad, 0x7f, sizeof(int), st); /* MS_BISAI_NONE */
  if (err != cudaSuccess || nb <= 0) return (int)err;
  bisai_invert_diag_kernel<<<ms_grid(nb, 128), 128, 0, st>>>(nb, bs, diag, F, Dinv, bad);
  return (int)cudaGetLastError();
}

/* one thread per scalar entry (p, r, c) of the pattern */
__global__ void bisai_ilu_residual_kernel(int bs, int nnzb, const int *__restrict__ rowptr, const int *__restrict__ rowidx, const int *__restrict__ cols, const double *__restrict__ A, const double *__restrict__ F, double *__restrict__ S)
{
  const int       bs2 = bs * bs;
  const long long n   = (long long)nnzb * bs2;

  for (long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x; id < n; id += (long long)gridDim.x * blockDim.x) {
    const int p = (int)(id / bs2), e = (int)(id % bs2), r = e / bs, c = e % bs;
    const int i = rowidx[p], j = cols[p], kmax = i < j ? i : j;
    double    s = 0.0;

    for (int q = rowptr[i]; q < rowptr[i + 1] && cols[q] < kmax; q++) {
      const int k = cols[q], f = MSBISAIFind(cols, rowptr[k], rowptr[k + 1], j);
      if (f < 0) continue;
      for (int t = 0; t < bs; t++) s += F[(size_t)q * bs2 + r * bs + t] * F[(size_t)f * bs2 + t * bs + c];
    }
    S[id] = A[id] - s;
  }
}

extern "C" MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_CUDA)
{
  const long long n = (long long)nnzb * bs * bs;

  if (n <= 0) return (int)cudaSuccess;
  bisai_ilu_residual_kernel<<<ms_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(bs, nnzb, rowptr, rowidx, cols, A, F, S);
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

/* rhs_q -= F(J_q, J_p) X_p for the blocks q in [q0, q1) of the column, X_p in xs (shared); the warp's lanes stride
   over the scalar entries */
__device__ __forceinline__ void bisai_column_update(int bs, int lane, int q0, int q1, int beg, int jp, const int *__restrict__ frowptr, const int *__restrict__ fcols, const double *__restrict__ F, const int *__restrict__ rowidx, const int *__restrict__ pos, const double *xs, double *M)
{
  const int bs2 = bs * bs;

  for (int e = lane; e < (q1 - q0) * bs2; e += 32) {
    const int q = q0 + e / bs2, el = e % bs2, r = el / bs, c = el % bs;
    const int jq = rowidx[beg + q], f = MSBISAIFind(fcols, frowptr[jq], frowptr[jq + 1], jp);
    double    s  = 0.0;

    if (f < 0) continue;
    for (int t = 0; t < bs; t++) s += F[(size_t)f * bs2 + r * bs + t] * xs[t * bs + c];
    M[(size_t)pos[beg + q] * bs2 + el] -= s;
  }
}

__global__ void __launch_bounds__(32 * BISAI_WARPS) bisai_isai_lower_kernel(int nb, int bs, const int *__restrict__ frowptr, const int *__restrict__ fcols, const double *__restrict__ F, const int *__restrict__ colptr, const int *__restrict__ rowidx, const int *__restrict__ pos, double *M)
{
  __shared__ double xs_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  const int         lane = threadIdx.x % 32, w = threadIdx.x / 32, bs2 = bs * bs;
  double           *xs   = xs_all[w];

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
      bisai_column_update(bs, lane, p + 1, n, beg, rowidx[beg + p], frowptr, fcols, F, rowidx, pos, xs, M);
      __syncwarp();
    }
  }
}

__global__ void __launch_bounds__(32 * BISAI_WARPS) bisai_isai_upper_kernel(int nb, int bs, const int *__restrict__ frowptr, const int *__restrict__ fcols, const double *__restrict__ F, const double *__restrict__ Dinv, const int *__restrict__ colptr, const int *__restrict__ rowidx, const int *__restrict__ pos, double *M)
{
  __shared__ double xs_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  __shared__ double rhs_all[BISAI_WARPS][MS_BISAI_MAXBS * MS_BISAI_MAXBS];
  const int         lane = threadIdx.x % 32, w = threadIdx.x / 32, bs2 = bs * bs;
  double           *xs = xs_all[w], *rhs = rhs_all[w];

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
      __syncwarp();
      bisai_column_update(bs, lane, 0, p, beg, jp, frowptr, fcols, F, rowidx, pos, xs, M);
      __syncwarp();
    }
  }
}

static inline unsigned bisai_warp_grid(int nb)
{
  return ms_grid(((long long)nb + BISAI_WARPS - 1) / BISAI_WARPS, 1);
}

extern "C" MS_BISAI_ISAI_LOWER(MSBISAIISAILower_CUDA)
{
  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (nb <= 0) return (int)cudaSuccess;
  bisai_isai_lower_kernel<<<bisai_warp_grid(nb), 32 * BISAI_WARPS, 0, (cudaStream_t)stream>>>(nb, bs, frowptr, fcols, F, colptr, rowidx, pos, M);
  return (int)cudaGetLastError();
}

extern "C" MS_BISAI_ISAI_UPPER(MSBISAIISAIUpper_CUDA)
{
  if (bs < 1 || bs > MS_BISAI_MAXBS) return (int)cudaErrorInvalidValue;
  if (nb <= 0) return (int)cudaSuccess;
  bisai_isai_upper_kernel<<<bisai_warp_grid(nb), 32 * BISAI_WARPS, 0, (cudaStream_t)stream>>>(nb, bs, frowptr, fcols, F, Dinv, colptr, rowidx, pos, M);
  return (int)cudaGetLastError();
}

/* y = M x: one thread per scalar row (block row i, row r of its blocks); the bs threads of a block row read the bs
   rows of each block, bs*bs consecutive doubles together */
template <int BS>
__global__ void bisai_bsr_mult_kernel(int nb, int bsrt, const int *__restrict__ rowptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ x, double *__restrict__ y)
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
    y[id] = s;
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
  case 1: bisai_bsr_mult_kernel<1><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, y); break;
  case 2: bisai_bsr_mult_kernel<2><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, y); break;
  case 3: bisai_bsr_mult_kernel<3><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, y); break;
  case 4: bisai_bsr_mult_kernel<4><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, y); break;
  case 5: bisai_bsr_mult_kernel<5><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, y); break;
  default: bisai_bsr_mult_kernel<0><<<g, 256, 0, st>>>(nb, bs, rowptr, cols, vals, x, y); break;
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
  const double     alpha = 1.0, beta = 0.0;
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

extern "C" const MSBISAIKernels MSBISAIKernels_CUDA = {"cuda", MSBISAIInvertDiag_CUDA, MSBISAIILUResidual_CUDA, MSBISAIILUUpdate_CUDA, MSBISAIISAILower_CUDA, MSBISAIISAIUpper_CUDA, MSBISAIBSRMult_CUDA, "cuSPARSE", MSBISAIBSRMultCusparse_CUDA, MSBISAICusparseDestroy_CUDA, 2};
