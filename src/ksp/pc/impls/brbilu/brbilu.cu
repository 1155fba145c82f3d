/*
   CUDA kernels of PCBRBILU (see include/petscmodsell/private/brbilukernels.h for the storage and the functions;
   brbilu_reference.c computes the same). One thread per block of the colour being processed (paper 004, section
   5.3): thread j walks the rows of the j-th block of the colour in order (the substitution and the factorization
   are sequential inside a block); at step t the threads of a warp read consecutive storage rows and slots
   (coalesced). Colour phases are consecutive launches on the stream (the only synchronisation between them).
   The row operations of the factorization are the header's (MSBRBGatherRow, MSBRBFactorRow), shared with the
   reference.
*/
#include <cuda_runtime.h>
#include <petscmodsell/private/brbilukernels.h>

#define BRB_THREADS 64 /* threads (blocks of the ordering) per thread block of a colour phase */

static inline unsigned brb_grid(long long n, int threads)
{
  return (unsigned)((n + threads - 1) / threads);
}

/* The setup kernels walk rows by the header's helpers, which take the layout by address: they read it from a copy in
   global memory (a kernel parameter whose address is taken would be copied to every thread's local memory) */
__global__ static void brb_gather_kernel(const MSBRBLayout *__restrict__ lay, const int *__restrict__ map, const int *__restrict__ dmap, const double *__restrict__ csrvals, double pertfac, double *work, double *d)
{
  const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= lay->roff[lay->ncolors] || lay->sperm[s] < 0) return;
  MSBRBGatherRow(lay, s, map, dmap, csrvals, pertfac, work, d);
}

__global__ static void brb_factor_kernel(const MSBRBLayout *__restrict__ lay, int c, const int *__restrict__ dmap, const double *__restrict__ csrvals, double alpha, double pivtol, double *work, double *d, MSBRBStatus *status)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= lay->nb[c]) return;
  const int len = lay->blen[lay->boff[c] + j];
  for (int t = 0; t < len; t++) {
    const long long s = lay->roff[c] + (long long)t * lay->nb[c] + j;
    if (MSBRBFactorRow(lay, s, dmap, csrvals, alpha, pivtol, work, d)) atomicMin(&status->badrow, (unsigned long long)lay->sperm[s]);
  }
}

template <typename T>
__global__ static void brb_convert_kernel(const MSBRBLayout *__restrict__ play, int symmetric, const double *__restrict__ work, const double *__restrict__ d, T *fvals, T *fdinv)
{
  const MSBRBLayout &lay = *play;
  const long long    s   = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long          slot0;
  int                stride, w;

  if (s >= lay.roff[lay.ncolors] || lay.sperm[s] < 0) return;
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

/* forward substitution of colour c: y_s = b[sperm[s]] - sum_lower l y_col */
template <typename T>
__global__ static void brb_forward_kernel(const MSBRBLayout lay, int c, const T *__restrict__ v, const double *__restrict__ b, double *y)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= lay.nb[c]) return;
  const int           len = lay.blen[lay.boff[c] + j], st = lay.nb[c], W = lay.W[c];
  const int *__restrict__ col   = lay.col;
  const int *__restrict__ sperm = lay.sperm;
  const unsigned short *__restrict__ nlv = lay.nl;
  for (int t = 0; t < len; t++) {
    const long long s    = lay.roff[c] + (long long)t * st + j;
    const long long base = lay.soff[c] + (long long)t * W * st + j;
    const int       nl   = __ldg(nlv + s);
    double          acc  = __ldg(b + __ldg(sperm + s));
    for (int k = 0; k < nl; k++) acc -= (double)__ldg(v + base + (long long)k * st) * y[__ldg(col + base + (long long)k * st)];
    y[s] = acc;
  }
}

/* backward substitution of colour c (rows of a block in reverse): y_s = dinv_s y_s - sum_upper u~ y_col, x[sperm[s]] = y_s */
template <typename T>
__global__ static void brb_backward_kernel(const MSBRBLayout lay, int c, const T *__restrict__ v, const T *__restrict__ dinv, double *y, double *x)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= lay.nb[c]) return;
  const int           len = lay.blen[lay.boff[c] + j], st = lay.nb[c], W = lay.W[c];
  const int *__restrict__ col   = lay.col;
  const int *__restrict__ sperm = lay.sperm;
  const unsigned short *__restrict__ nlv = lay.nl;
  for (int t = len - 1; t >= 0; t--) {
    const long long s    = lay.roff[c] + (long long)t * st + j;
    const long long base = lay.soff[c] + (long long)t * W * st + j;
    double          acc  = (double)__ldg(dinv + s) * y[s];
    for (int k = __ldg(nlv + s); k < W; k++) {
      const int cc = __ldg(col + base + (long long)k * st);
      if (cc < 0) break;
      acc -= (double)__ldg(v + base + (long long)k * st) * y[cc];
    }
    y[s]                  = acc;
    x[__ldg(sperm + s)]   = acc;
  }
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

  err = cudaMemsetAsync(status, 0xff, sizeof(MSBRBStatus), st); /* badrow = MS_BRB_BAD_NONE */
  if (err != cudaSuccess) return (int)err;
  if (ns <= 0) return 0;
  if ((err = brb_layout_copy(lay, &dlay, st)) != cudaSuccess) return (int)err;
  brb_gather_kernel<<<brb_grid(ns, 256), 256, 0, st>>>(dlay, map, dmap, csrvals, pertfac, work, d);
  err = cudaGetLastError();
  for (int c = 0; c < lay->ncolors && err == cudaSuccess; c++) {
    if (!lay->nb[c]) continue;
    brb_factor_kernel<<<brb_grid(lay->nb[c], BRB_THREADS), BRB_THREADS, 0, st>>>(dlay, c, dmap, csrvals, alpha, pivtol, work, d, status);
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

template <typename T>
static int brb_apply(const MSBRBLayout *lay, const T *v, const T *dinv, const double *b, double *x, double *y, cudaStream_t st)
{
  cudaError_t err;

  for (int c = 0; c < lay->ncolors; c++) {
    if (!lay->nb[c]) continue;
    brb_forward_kernel<T><<<brb_grid(lay->nb[c], BRB_THREADS), BRB_THREADS, 0, st>>>(*lay, c, v, b, y);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  for (int c = lay->ncolors - 1; c >= 0; c--) {
    if (!lay->nb[c]) continue;
    brb_backward_kernel<T><<<brb_grid(lay->nb[c], BRB_THREADS), BRB_THREADS, 0, st>>>(*lay, c, v, dinv, y, x);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  return 0;
}

MS_BRB_APPLY(MSBRBApply_CUDA)
{
  if (single) return brb_apply<float>(lay, (const float *)fvals, (const float *)fdinv, b, x, y, (cudaStream_t)stream);
  return brb_apply<double>(lay, (const double *)fvals, (const double *)fdinv, b, x, y, (cudaStream_t)stream);
}

const MSBRBKernels MSBRBKernels_CUDA = {"CUDA", MSBRBMultiprocessors_CUDA, MSBRBFactor_CUDA, MSBRBConvert_CUDA, MSBRBApply_CUDA};
