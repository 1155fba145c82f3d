/*
   CUDA kernels of PCRUIZ: Ruiz equilibration (Wikberg (2024), section 5.4, Algorithm 4) on the mod-SELL
   image, and the diagonal application. See include/petscmodsell/private/ruizkernels.h for the notation; the host
   reference (ruiz_reference.c) computes the same function.

   The paper's calc_sums / scale_kern pair becomes one kernel per image and sweep: the matrix is never
   modified, so instead of rescaling the entries (scale_kern) each pass reads a_ij and the current
   inverse scalings and computes the norms of the rows of D_r^-1 A D_c^-1 on the fly; the new scalings
   go to a second buffer (the caller swaps them). As in the SpMV kernel, one thread block handles one
   slice and the slice's window of the column scalings sits in shared memory, so in-slice columns
   (negative codes) read it from there. The deviation max |1 - norm| (the paper's max_deviation_kern +
   reduce) is reduced in the same kernel: a block reduction and one atomicMax per block on the bits of a
   nonnegative double, and is only computed on checking passes.

   Nonsymmetric mode needs the column norms too: each thread adds (|a_ij| sr_i)^p to the column's
   accumulation with atomics, first in a shared-memory window for in-slice columns (flushed with one
   global atomic per column and block), directly in global memory for the others. For p = infinity
   the accumulation is a max (atomicMax on the bits), which is order independent: device and host agree
   bitwise. For p = 1, 2 the sums by atomics depend on the order of arrival: they agree with the host to
   rounding. Row sums run in a fixed order (diagonal, then the slots in order) with explicitly rounded
   operations (no fused multiply-add), the order of the host reference.
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/ruizkernels.h>

template <int P>
__device__ __forceinline__ double rz_pw(double v)
{
  return P == MS_RUIZ_P2 ? __dmul_rn(v, v) : v;
}

/* combine an accumulation with a term; for p = infinity a max that propagates NaN */
template <int P>
__device__ __forceinline__ double rz_comb(double acc, double t)
{
  if (P == MS_RUIZ_PINF) return (t > acc || t != t) ? t : acc;
  return __dadd_rn(acc, t);
}

template <int P>
__device__ __forceinline__ double rz_root(double a)
{
  return P == MS_RUIZ_P2 ? __dsqrt_rn(a) : a;
}

/* atomic accumulation (global or shared memory); terms are >= 0 (or NaN), so for p = infinity the
   order of the bits of the doubles is the order of their values */
template <int P>
__device__ __forceinline__ void rz_atomic_comb(double *addr, double t)
{
  if (P == MS_RUIZ_PINF) atomicMax((unsigned long long *)addr, (unsigned long long)__double_as_longlong(t));
  else atomicAdd(addr, t);
}

/* block reduction of the deviation into status->dev (every thread of the block calls it) */
__device__ __forceinline__ void rz_block_dev(double d, double *scratch, unsigned long long *dev)
{
  d = ms_block_reduce<MSOpMaxNaN>(d, scratch);
  if (threadIdx.x == 0 && d != 0.0) ms_atomic_max_nonneg(dev, d);
}

__device__ __forceinline__ unsigned long long rz_key(int i, int code)
{
  return (unsigned long long)i * 4ULL + (unsigned long long)code;
}

template <int P, bool LOCAL, bool COLS>
__global__ void __launch_bounds__(1024) rz_rows_kernel(MSImageView img, const double *__restrict__ sr, const double *__restrict__ sc, const double *acc_in, double *acc_out, double *sr_new, double *colacc, int check, int first, int checkdiag, MSRuizStatus *st)
{
  extern __shared__ double smem[];
  __shared__ double red[33];
  double           *win  = smem;                           /* sh column scalings of the slice's own rows */
  double           *cwin = smem + (LOCAL ? blockDim.x : 0); /* sh column accumulations (COLS) */
  const MSSliceRow  p    = ms_slice_row(img);
  const int         t = p.t, s = p.s, o = p.o;
  const bool        valid = p.valid;
  const double      sro   = valid ? (sr ? sr[o] : 1.0) : 0.0; /* sr, sc NULL: the unit scaling of the first sweep */
  double            acc   = (valid && acc_in) ? acc_in[o] : 0.0, dval = 0.0;

  if (LOCAL) {
    if (COLS) cwin[t] = 0.0;
    ms_load_window(win, p, sc, 1.0);
  }
  if (valid && img.diag) {
    const double a = img.diag[p.r], v = fabs(a);
    dval = a;
    acc  = rz_comb<P>(acc, rz_pw<P>(__dmul_rn(v, LOCAL ? win[t] : (sc ? sc[o] : 1.0))));
    if (COLS) {
      if (LOCAL) rz_atomic_comb<P>(&cwin[t], rz_pw<P>(__dmul_rn(v, sro)));
      else rz_atomic_comb<P>(&colacc[o], rz_pw<P>(__dmul_rn(v, sro)));
    }
  }
  {
    /* like the SpMV kernel: the column code and the value of a slot are loaded unconditionally and the
       loop is unrolled, so that several slots' loads are in flight; a padding slot (code 0, value 0)
       contributes an exact zero to the accumulation, which leaves it unchanged (acc >= 0) */
    long long     beg;
    const int     w  = ms_slice_width(img, s, valid, &beg), sh = img.sh;
    const int    *cp = img.cols + beg + t;
    const double *vp = img.vals + beg + t;
#pragma unroll 4
    for (int k = 0; k < w; k++) {
      const int    c = __ldg(cp + (long long)k * sh);
      const double a = __ldg(vp + (long long)k * sh);
      const double v = fabs(a);
      double       scj;

      if (LOCAL && c < 0) {
        const int q = -c - 1;
        scj         = win[q];
        if (COLS) rz_atomic_comb<P>(&cwin[q], rz_pw<P>(__dmul_rn(v, sro)));
        if (img.diag_block && q == t) dval = a;
      } else if (c != 0) {
        const int j = MS_CODE_COL(&img, c); /* without LOCAL the image has no in-slice codes */
        scj         = sc ? __ldg(sc + j) : 1.0;
        if (COLS) rz_atomic_comb<P>(&colacc[j], rz_pw<P>(__dmul_rn(v, sro)));
        if (img.diag_block && j == o) dval = a;
      } else continue; /* padding */
      acc = rz_comb<P>(acc, rz_pw<P>(__dmul_rn(v, scj)));
    }
  }
  if (LOCAL && COLS) {
    __syncthreads();
    if (valid && cwin[t] != 0.0) rz_atomic_comb<P>(&colacc[o], cwin[t]);
  }
  double d = 0.0;
  if (valid) {
    if (acc_out) acc_out[o] = acc;
    else {
      const double n = __dmul_rn(sro, rz_root<P>(acc));
      sr_new[o]      = __ddiv_rn(sro, __dsqrt_rn(n));
      d              = fabs(__dadd_rn(1.0, -n));
      if (first) {
        if (!isfinite(n)) atomicMin(&st->badrow, rz_key(o, MS_RUIZ_BAD_NONFINITE));
        else if (n == 0.0) atomicMin(&st->badrow, rz_key(o, MS_RUIZ_BAD_ZERO));
      }
    }
    if (first && checkdiag && img.diag_block && !(dval > 0.0)) atomicMin(&st->badrow, rz_key(o, MS_RUIZ_BAD_DIAG));
  }
  if (check && !acc_out) rz_block_dev(d, red, &st->dev);
}

template <int P, bool LOCAL, bool COLS>
static void rz_launch_rows(const MSImageView *img, const double *sr, const double *sc, const double *acc_in, double *acc_out, double *sr_new, double *colacc, int check, int first, int checkdiag, MSRuizStatus *st, cudaStream_t stream)
{
  const size_t smem = (size_t)img->sh * sizeof(double) * ((LOCAL ? 1 : 0) + (LOCAL && COLS ? 1 : 0));
  rz_rows_kernel<P, LOCAL, COLS><<<img->nslices, img->sh, smem, stream>>>(*img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, st);
}

template <int P>
static void rz_launch_rows_p(const MSImageView *img, const double *sr, const double *sc, const double *acc_in, double *acc_out, double *sr_new, double *colacc, int check, int first, int checkdiag, MSRuizStatus *st, cudaStream_t stream)
{
  const bool local = img->local_cols != 0, cols = colacc != nullptr;
  if (local && cols) rz_launch_rows<P, true, true>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, st, stream);
  else if (local) rz_launch_rows<P, true, false>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, st, stream);
  else if (cols) rz_launch_rows<P, false, true>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, st, stream);
  else rz_launch_rows<P, false, false>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, st, stream);
}

extern "C" MS_RUIZ_ROW_PASS(MSRuizRowPass_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  if (img->m <= 0 || img->nslices <= 0) return (int)cudaSuccess;
  if (img->sh <= 0 || img->sh > 1024 || img->sh % 32) return (int)cudaErrorInvalidValue;
  switch (p) {
  case MS_RUIZ_P1:
    rz_launch_rows_p<MS_RUIZ_P1>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, status, st);
    break;
  case MS_RUIZ_P2:
    rz_launch_rows_p<MS_RUIZ_P2>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, status, st);
    break;
  case MS_RUIZ_PINF:
    rz_launch_rows_p<MS_RUIZ_PINF>(img, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, status, st);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

template <int P>
__global__ void __launch_bounds__(256) rz_cols_kernel(int n, const double *__restrict__ sc, const double *__restrict__ cacc, double *sc_new, int check, int first, MSRuizStatus *st)
{
  __shared__ double red[33];
  double            d = 0.0;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
    const double scj = sc ? sc[j] : 1.0, c = __dmul_rn(scj, rz_root<P>(cacc[j]));
    sc_new[j]        = __ddiv_rn(scj, __dsqrt_rn(c));
    d                = MSOpMaxNaN::apply(d, fabs(__dadd_rn(1.0, -c)));
    if (first) {
      if (!isfinite(c)) atomicMin(&st->badcol, rz_key(j, MS_RUIZ_BAD_NONFINITE));
      else if (c == 0.0) atomicMin(&st->badcol, rz_key(j, MS_RUIZ_BAD_ZERO));
    }
  }
  if (check) rz_block_dev(d, red, &st->dev);
}

extern "C" MS_RUIZ_COL_PASS(MSRuizColPass_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  if (n <= 0) return (int)cudaSuccess;
  switch (p) {
  case MS_RUIZ_P1:
    rz_cols_kernel<MS_RUIZ_P1><<<ms_grid(n, 256), 256, 0, st>>>(n, sc, cacc, sc_new, check, first, status);
    break;
  case MS_RUIZ_P2:
    rz_cols_kernel<MS_RUIZ_P2><<<ms_grid(n, 256), 256, 0, st>>>(n, sc, cacc, sc_new, check, first, status);
    break;
  case MS_RUIZ_PINF:
    rz_cols_kernel<MS_RUIZ_PINF><<<ms_grid(n, 256), 256, 0, st>>>(n, sc, cacc, sc_new, check, first, status);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

extern "C" MS_RUIZ_RESET_STATUS(MSRuizResetStatus_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;

  err = cudaMemsetAsync(&status->dev, 0, sizeof(status->dev), st);
  if (err == cudaSuccess && first) err = cudaMemsetAsync(&status->badrow, 0xff, 2 * sizeof(unsigned long long), st);
  return (int)err;
}

template <bool SQUARE>
__global__ void rz_pointwise_kernel(int n, const double *__restrict__ a, const double *__restrict__ x, double *__restrict__ y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = SQUARE ? a[i] * (a[i] * x[i]) : a[i] * x[i];
}

extern "C" MS_RUIZ_POINTWISE(MSRuizPointwise_CUDA)
{
  if (n <= 0) return (int)cudaSuccess;
  if (square) rz_pointwise_kernel<true><<<ms_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(n, a, x, y);
  else rz_pointwise_kernel<false><<<ms_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(n, a, x, y);
  return (int)cudaGetLastError();
}

extern "C" const MSRuizKernels MSRuizKernels_CUDA = {"cuda", MSRuizRowPass_CUDA, MSRuizColPass_CUDA, MSRuizResetStatus_CUDA, MSRuizPointwise_CUDA};
