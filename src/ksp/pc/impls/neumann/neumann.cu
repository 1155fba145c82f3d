/*
   CUDA kernels of PCNEUMANN (include/petscmodsell/private/neumannkernels.h): the truncated Neumann-series terms on the
   mod-SELL image of the local diagonal block, the setup analysis (inverse diagonal, first bad row, ||L~||_inf) and the
   deflation's small kernels. The host reference (neumann_reference.c) computes the same function.

   split_width / split_fill: one thread block per slice of the image, one thread per row, the slice's user row numbers
   in shared memory (for the in-slice, negative codes); each entry is kept when its user column is below
   (MS_PART_LOWER) or above (MS_PART_UPPER) the row's user number. tri: one thread per row of the split copy (the
   SpMV's layout: consecutive threads read consecutive slots), only the triangle's entries, user columns read from x
   (and dinv when scale_x) in global memory (docs/neumann.md discusses the bytes).
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/neumannkernels.h>

/* ---------------------------------------------------------------------------------------------------------- */
/* setup analysis                                                                                               */

__global__ void neu_diag_kernel(MSImageView img, double *__restrict__ dinv, unsigned long long *badrow)
{
  __shared__ unsigned long long red[33];
  unsigned long long            bad = MS_NEU_BAD_NONE;

  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < img.m; r += (long long)gridDim.x * blockDim.x) {
    const int    o = img.perm ? img.perm[r] : (int)r;
    const double d = img.diag[r];

    if (d > 0.0 && isfinite(d)) dinv[o] = 1.0 / d;
    else {
      dinv[o] = 0.0;
      if ((unsigned long long)o < bad) bad = (unsigned long long)o;
    }
  }
  bad = ms_block_reduce<MSOpMin>(bad, red);
  if (threadIdx.x == 0 && bad != MS_NEU_BAD_NONE) atomicMin(badrow, bad);
}

extern "C" MS_NEU_DIAG(MSNeuDiag_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;

  err = cudaMemsetAsync(&status->badrow, 0xff, sizeof(status->badrow), st);
  if (err == cudaSuccess) err = cudaMemsetAsync(&status->lnorm, 0, sizeof(status->lnorm), st);
  if (err != cudaSuccess) return (int)err;
  if (img->m <= 0) return (int)cudaSuccess;
  if (!img->diag) return (int)cudaErrorInvalidValue;
  neu_diag_kernel<<<ms_grid(img->m, 256), 256, 0, st>>>(*img, dinv, &status->badrow);
  return (int)cudaGetLastError();
}

__global__ void __launch_bounds__(1024) neu_lnorm_kernel(MSImageView img, const double *__restrict__ dinv, unsigned long long *lnorm)
{
  extern __shared__ double smem[];
  __shared__ double        red[33];
  double                  *swin = smem;                            /* sqrt(dinv) of the slice's rows */
  int                     *orow = (int *)(smem + blockDim.x);       /* their user numbers */
  const MSSliceRow         p    = ms_slice_row(img);
  long long                beg;
  const int                w = ms_slice_width(img, p.s, p.valid, &beg);
  double                   sum = 0.0, v;

  orow[p.t] = p.valid ? p.o : -1;
  swin[p.t] = p.valid ? sqrt(dinv[p.o]) : 0.0;
  __syncthreads();
  for (int k = 0; k < w; k++) {
    const long long slot = beg + (long long)k * img.sh + p.t;
    const int       c    = img.cols[slot];
    int             col;
    double          sc;

    if (!c) continue;
    if (c < 0) {
      col = orow[-c - 1];
      sc  = swin[-c - 1];
    } else {
      col = MS_CODE_COL(&img, c);
      sc  = sqrt(dinv[col]);
    }
    if (col < p.o) sum += fabs(img.vals[slot]) * sc;
  }
  v = p.valid ? sum * swin[p.t] : 0.0;
  v = ms_block_reduce<MSOpMaxNaN>(v, red);
  if (threadIdx.x == 0 && v != 0.0) ms_atomic_max_nonneg(lnorm, v);
}

extern "C" MS_NEU_LNORM(MSNeuLNorm_CUDA)
{
  if (img->m <= 0 || img->nslices <= 0) return (int)cudaSuccess;
  if (img->sh <= 0 || img->sh > 1024 || img->sh % 32) return (int)cudaErrorInvalidValue;
  neu_lnorm_kernel<<<img->nslices, img->sh, (size_t)img->sh * (sizeof(double) + sizeof(int)), (cudaStream_t)stream>>>(*img, dinv, &status->lnorm);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the split copies of the scaled triangles and one term y = bb - G xx                                          */

/* user column of the slot code c != 0 of a thread's row (orow: the slice's user row numbers in shared memory) */
__device__ __forceinline__ int neu_col(const MSImageView &img, const int *orow, int c)
{
  return c < 0 ? orow[-c - 1] : MS_CODE_COL(&img, c);
}

__device__ __forceinline__ bool neu_keep(bool lower, int col, int o)
{
  return lower ? col < o : col > o;
}

template <bool LOWER>
__global__ void __launch_bounds__(1024) neu_split_width_kernel(MSImageView img, int *__restrict__ width)
{
  extern __shared__ int orow[]; /* the slice's user row numbers */
  __shared__ int        red[33];
  const MSSliceRow      p = ms_slice_row(img);
  long long             beg;
  const int             w   = ms_slice_width(img, p.s, p.valid, &beg);
  int                   cnt = 0;

  orow[p.t] = p.valid ? p.o : -1;
  __syncthreads();
  for (int k = 0; k < w; k++) {
    const int c = img.cols[beg + (long long)k * img.sh + p.t];
    if (c && neu_keep(LOWER, neu_col(img, orow, c), p.o)) cnt++;
  }
  cnt = ms_block_reduce<MSOpMax>(cnt, red);
  if (threadIdx.x == 0) width[p.s] = cnt;
}

extern "C" MS_NEU_SPLIT_WIDTH(MSNeuSplitWidth_CUDA)
{
  const size_t smem = (size_t)img->sh * sizeof(int);
  cudaStream_t st   = (cudaStream_t)stream;

  if (img->m <= 0 || img->nslices <= 0) return (int)cudaSuccess;
  if (img->sh <= 0 || img->sh > 1024 || img->sh % 32) return (int)cudaErrorInvalidValue;
  if (part == MS_PART_LOWER) neu_split_width_kernel<true><<<img->nslices, img->sh, smem, st>>>(*img, width);
  else if (part == MS_PART_UPPER) neu_split_width_kernel<false><<<img->nslices, img->sh, smem, st>>>(*img, width);
  else return (int)cudaErrorInvalidValue;
  return (int)cudaGetLastError();
}

/* one thread block per slice, one thread per row (the padding rows of the last slice included: they fill their slots
   with zeros); each row copies its kept entries in slot order, scaled by dinv of the row, and pads its slots */
template <bool LOWER>
__global__ void __launch_bounds__(1024) neu_split_fill_kernel(MSImageView img, const double *__restrict__ dinv, MSNeuSplit S)
{
  extern __shared__ int orow[];
  const MSSliceRow      p = ms_slice_row(img);
  long long             beg;
  const int             w    = ms_slice_width(img, p.s, p.valid, &beg);
  const long long       sbeg = S.ptr[p.s];
  const int             sw   = (int)((S.ptr[p.s + 1] - sbeg) / S.sh);
  const double          di   = p.valid ? dinv[p.o] : 0.0;
  int                   n    = 0;

  orow[p.t] = p.valid ? p.o : -1;
  __syncthreads();
  for (int k = 0; k < w; k++) {
    const long long slot = beg + (long long)k * img.sh + p.t;
    const int       c    = img.cols[slot];
    int             col;

    if (!c) continue;
    col = neu_col(img, orow, c);
    if (!neu_keep(LOWER, col, p.o) || n >= sw) continue; /* n < sw always when the widths come from this image */
    S.cols[sbeg + (long long)n * S.sh + p.t] = col;
    S.vals[sbeg + (long long)n * S.sh + p.t] = di * img.vals[slot];
    n++;
  }
  for (; n < sw; n++) {
    S.cols[sbeg + (long long)n * S.sh + p.t] = p.o;
    S.vals[sbeg + (long long)n * S.sh + p.t] = 0.0;
  }
}

extern "C" MS_NEU_SPLIT_FILL(MSNeuSplitFill_CUDA)
{
  const size_t smem = (size_t)img->sh * sizeof(int);
  cudaStream_t st   = (cudaStream_t)stream;

  if (img->m <= 0 || img->nslices <= 0) return (int)cudaSuccess;
  if (img->sh <= 0 || img->sh > 1024 || img->sh % 32 || S->sh != img->sh || S->nslices != img->nslices) return (int)cudaErrorInvalidValue;
  if (part == MS_PART_LOWER) neu_split_fill_kernel<true><<<img->nslices, img->sh, smem, st>>>(*img, dinv, *S);
  else if (part == MS_PART_UPPER) neu_split_fill_kernel<false><<<img->nslices, img->sh, smem, st>>>(*img, dinv, *S);
  else return (int)cudaErrorInvalidValue;
  return (int)cudaGetLastError();
}

/* one thread per image row r (s = r / sh, t = r % sh): consecutive threads read consecutive slots of their slice */
template <bool SCALE_X>
__global__ void neu_tri_kernel(MSNeuSplit S, const double *__restrict__ dinv, const double *b, int scale_b, const double *__restrict__ x, double *y)
{
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < S.m; r += (long long)gridDim.x * blockDim.x) {
    const int       ri = (int)r, s = ri / S.sh, t = ri - s * S.sh, o = S.perm ? S.perm[ri] : ri; /* r < m < 2^31 */
    const long long beg = S.ptr[s];
    const int       w   = (int)((S.ptr[s + 1] - beg) / S.sh);
    double          sum = 0.0;

    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * S.sh + t;
      const int       col  = S.cols[slot];
      sum += S.vals[slot] * (SCALE_X ? dinv[col] * x[col] : x[col]);
    }
    y[o] = (scale_b ? dinv[o] * b[o] : b[o]) - sum;
  }
}

extern "C" MS_NEU_TRI(MSNeuTri_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (S->m <= 0 || S->nslices <= 0) return (int)cudaSuccess;
  if (S->sh <= 0 || x == y) return (int)cudaErrorInvalidValue;
  if (scale_x) neu_tri_kernel<true><<<ms_grid(S->m, 256), 256, 0, st>>>(*S, dinv, b, scale_b, x, y);
  else neu_tri_kernel<false><<<ms_grid(S->m, 256), 256, 0, st>>>(*S, dinv, b, scale_b, x, y);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* deflation                                                                                                    */

/* Subdomain sums: consecutive items mostly share their subdomain (rows: consecutive rows; the list of Z^T A's other
   entries: sorted by subdomain), so a warp whose 32 items all belong to one subdomain adds them by shuffles and issues
   one atomic; other warps add lane by lane. Every lane of a warp runs every iteration (the loop bound is uniform per
   warp), as the shuffles need. LIST: item e is -xval[e] b[xrow[e]] in subdomain xsub[e]; else row o, a[o] - w[o] b[o]. */
template <bool LIST>
__global__ void neu_restrict_kernel(int n, const int *__restrict__ sub, const double *__restrict__ a, const double *__restrict__ b, const double *__restrict__ w, const int *__restrict__ xrow, const double *__restrict__ xval, double *out)
{
  const int       lane   = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;

  for (long long base = blockIdx.x * (long long)blockDim.x + (threadIdx.x - lane); base < n; base += stride) {
    const long long i     = base + lane;
    const bool      valid = i < n;
    const int       j     = valid ? sub[i] : -1;
    double          v     = 0.0;

    if (valid) {
      if (LIST) v = -xval[i] * b[xrow[i]];
      else v = b ? a[i] - (w ? w[i] * b[i] : b[i]) : a[i];
    }
    const int  j0   = __shfl_sync(0xffffffffu, j, 0);
    const bool same = __all_sync(0xffffffffu, !valid || j == j0);

    if (same) {
      v = ms_warp_reduce<MSOpSum>(v);
      if (lane == 0) atomicAdd(&out[j0], v);
    } else if (valid) atomicAdd(&out[j], v);
  }
}

extern "C" MS_NEU_RESTRICT(MSNeuRestrict_CUDA)
{
  cudaStream_t st  = (cudaStream_t)stream;
  cudaError_t  err = cudaMemsetAsync(out, 0, (size_t)nsub * sizeof(double), st);

  if (err != cudaSuccess) return (int)err;
  if (m > 0) {
    neu_restrict_kernel<false><<<ms_grid(m, 256), 256, 0, st>>>(m, sub, a, b, w, NULL, NULL, out);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  if (b && nx > 0) {
    neu_restrict_kernel<true><<<ms_grid(nx, 256), 256, 0, st>>>(nx, xsub, NULL, b, NULL, xrow, xval, out);
    err = cudaGetLastError();
  }
  return (int)err;
}

/* c = Einv g: one warp per row of the process's block of E^-1 */
__global__ void neu_coarse_kernel(int nl, int nt, const double *__restrict__ Einv, const double *__restrict__ g, double *__restrict__ c)
{
  const int lane = threadIdx.x & 31;

  for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; i < nl; i += ((long long)gridDim.x * blockDim.x) >> 5) {
    const double *row = Einv + i * nt;
    double        sum = 0.0;

    for (int j = lane; j < nt; j += 32) sum += row[j] * g[j];
    sum = ms_warp_reduce<MSOpSum>(sum);
    if (lane == 0) c[i] = sum;
  }
}

extern "C" MS_NEU_COARSE(MSNeuCoarse_CUDA)
{
  if (nl <= 0) return (int)cudaSuccess;
  neu_coarse_kernel<<<ms_grid(32LL * nl, 256), 256, 0, (cudaStream_t)stream>>>(nl, nt, Einv, g, c);
  return (int)cudaGetLastError();
}

__global__ void neu_prolong_kernel(int m, const int *__restrict__ sub, const double *__restrict__ c, const double *y, double *z)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) z[i] = y[i] + c[sub[i]];
}

extern "C" MS_NEU_PROLONG(MSNeuProlong_CUDA)
{
  if (m <= 0) return (int)cudaSuccess;
  neu_prolong_kernel<<<ms_grid(m, 256), 256, 0, (cudaStream_t)stream>>>(m, sub, c, y, z);
  return (int)cudaGetLastError();
}

__global__ void neu_scale_kernel(int m, const double *__restrict__ dinv, const double *x, double *y)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) y[i] = dinv[i] * x[i];
}

extern "C" MS_NEU_SCALE(MSNeuScale_CUDA)
{
  if (m <= 0) return (int)cudaSuccess;
  neu_scale_kernel<<<ms_grid(m, 256), 256, 0, (cudaStream_t)stream>>>(m, dinv, x, y);
  return (int)cudaGetLastError();
}

extern "C" const MSNeuKernels MSNeuKernels_CUDA = {"cuda", MSNeuDiag_CUDA, MSNeuLNorm_CUDA, MSNeuSplitWidth_CUDA, MSNeuSplitFill_CUDA, MSNeuTri_CUDA, MSNeuRestrict_CUDA, MSNeuCoarse_CUDA, MSNeuProlong_CUDA, MSNeuScale_CUDA};
