/*
   CUDA kernels of the modified Sliced ELLPACK format (paper 000, sections 3.1-3.2).
   One thread block per slice, one thread per row; the slice's window of x is loaded into
   shared memory first, then each thread walks its row's interleaved slots.
*/
#include <cuda_runtime.h>
#include <petscmodsell/private/modsellcuda.h>

template <bool DIAG, bool LOCAL, bool PERM, bool ADD>
__global__ void __launch_bounds__(1024) ms_mult_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const int *__restrict__ perm, const double *__restrict__ x, const double *yin, double *y)
{
  extern __shared__ double xs[];
  const int  sh    = blockDim.x, t = threadIdx.x, s = blockIdx.x;
  const int  r     = s * sh + t;
  const bool valid = r < m;
  const int  orow  = valid ? (PERM ? perm[r] : r) : 0;
  double     sum   = 0.0;

  if (DIAG || LOCAL) {
    const double xr = valid ? x[orow] : 0.0;
    if (LOCAL) {
      xs[t] = xr;
      __syncthreads();
    }
    if (DIAG && valid) sum = diag[r] * xr;
  }
  const long long beg = sliceptr[s];
  const int       w   = (int)((sliceptr[s + 1] - beg) / sh);
  const int      *cp  = cols + beg + t;
  const double   *vp  = vals + beg + t;
#pragma unroll 4
  for (int k = 0; k < w; k++) {
    const int    c = __ldg(cp + (long long)k * sh);
    const double v = __ldg(vp + (long long)k * sh);
    double       xv;
    if (LOCAL && c < 0) xv = xs[-c - 1];
    else xv = c > 0 ? __ldg(x + (c - 1)) : 0.0;
    sum += v * xv;
  }
  if (valid) y[orow] = ADD ? yin[orow] + sum : sum;
}

template <bool DIAG, bool LOCAL, bool PERM>
static void launch_mult(int m, int sh, int nslices, const long long *sliceptr, const int *cols, const double *vals, const double *diag, const int *perm, const double *x, const double *yin, double *y, cudaStream_t st)
{
  const size_t smem = LOCAL ? (size_t)sh * sizeof(double) : 0;
  if (yin) ms_mult_kernel<DIAG, LOCAL, PERM, true><<<nslices, sh, smem, st>>>(m, sliceptr, cols, vals, diag, perm, x, yin, y);
  else ms_mult_kernel<DIAG, LOCAL, PERM, false><<<nslices, sh, smem, st>>>(m, sliceptr, cols, vals, diag, perm, x, yin, y);
}

extern "C" int MSCUDAMult(int m, int sh, int nslices, const long long *sliceptr, const int *cols, const double *vals, const double *diag, const int *perm, int local_cols, const double *x, const double *yin, double *y, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  if (m <= 0 || nslices <= 0) return (int)cudaSuccess;
  const bool d = diag != nullptr, l = local_cols != 0, p = perm != nullptr;
  if (d && l && p) launch_mult<true, true, true>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else if (d && l) launch_mult<true, true, false>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else if (d && p) launch_mult<true, false, true>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else if (d) launch_mult<true, false, false>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else if (l && p) launch_mult<false, true, true>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else if (l) launch_mult<false, true, false>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else if (p) launch_mult<false, false, true>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  else launch_mult<false, false, false>(m, sh, nslices, sliceptr, cols, vals, diag, perm, x, yin, y, st);
  return (int)cudaGetLastError();
}

__global__ void ms_scatter_kernel(long long nnz, const long long *__restrict__ csr2slot, const double *__restrict__ a, double *__restrict__ vals, double *__restrict__ diag)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nnz; i += (long long)gridDim.x * blockDim.x) {
    const long long s = csr2slot[i];
    if (s >= 0) vals[s] = a[i];
    else diag[-s - 1] = a[i];
  }
}

extern "C" int MSCUDAScatterValues(long long nnz, const long long *csr2slot, const double *a, double *vals, double *diag, void *stream)
{
  if (nnz <= 0) return (int)cudaSuccess;
  long long nb = (nnz + 255) / 256;
  if (nb > 65535LL * 32) nb = 65535LL * 32;
  ms_scatter_kernel<<<(unsigned)nb, 256, 0, (cudaStream_t)stream>>>(nnz, csr2slot, a, vals, diag);
  return (int)cudaGetLastError();
}

__global__ void ms_getdiag_kernel(int m, const double *__restrict__ diag, const int *__restrict__ perm, double *__restrict__ d)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) d[perm ? perm[r] : r] = diag[r];
}

extern "C" int MSCUDAGetDiagonal(int m, const double *diag, const int *perm, double *d, void *stream)
{
  if (m <= 0) return (int)cudaSuccess;
  ms_getdiag_kernel<<<(m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(m, diag, perm, d);
  return (int)cudaGetLastError();
}
