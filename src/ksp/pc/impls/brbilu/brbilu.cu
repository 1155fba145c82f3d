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

#define BRB_WARPS   4                /* warps (blocks of the ordering) per thread block of a colour phase */
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

/* one warp per block of colour c: levels in order, the rows of a level on the lanes. A row reads the rows of its lower
   entries (lower levels of its block, earlier colours) and writes only its own slots and pivot. */
__global__ static void __launch_bounds__(BRB_THREADS) brb_factor_kernel(const MSBRBLayout *__restrict__ lay, int c, const int *__restrict__ dmap, const double *__restrict__ csrvals, double alpha, double pivtol, double *work, double *d, MSBRBStatus *status)
{
  const int lane = threadIdx.x & 31, j = blockIdx.x * BRB_WARPS + (threadIdx.x >> 5);

  if (j >= lay->nb[c]) return; /* the whole warp */
  {
    const int b = lay->boff[c] + j, g1 = lay->lstart[b + 1];

    for (int g = lay->lstart[b]; g < g1; g++) {
      const int r1 = lay->lptr[g + 1];
      for (int s = lay->lptr[g] + lane; s < r1; s += 32)
        if (MSBRBFactorRow(lay, s, dmap, csrvals, alpha, pivtol, work, d)) atomicMin(&status->badrow, (unsigned long long)lay->sperm[s]);
      __syncwarp(); /* the level's rows are final for the next level's lanes */
    }
  }
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

/* forward substitution of colour c, one warp per block, levels in order: y_s = b[sperm[s]] - sum_lower l y_col.
   y is read with coherent loads: rows of earlier levels were written by lanes of this warp (before a __syncwarp()),
   rows of earlier colours by earlier launches. */
template <typename T>
__global__ static void __launch_bounds__(BRB_THREADS) brb_forward_kernel(const MSBRBLayout lay, int c, const T *__restrict__ v, const double *__restrict__ b, double *y)
{
  const int lane = threadIdx.x & 31, j = blockIdx.x * BRB_WARPS + (threadIdx.x >> 5);

  if (j >= lay.nb[c]) return; /* the whole warp */
  const int *__restrict__ col             = lay.col;
  const int *__restrict__ sperm           = lay.sperm;
  const unsigned short *__restrict__ nlv  = lay.nl;
  const int                          blk  = lay.boff[c] + j;
  const int                          r0   = __ldg(lay.rstart + blk), R = __ldg(lay.rstart + blk + 1) - r0;
  const int                          g1   = __ldg(lay.lstart + blk + 1);
  const long long                    sb   = lay.soff[c] + (long long)(r0 - lay.roff[c]) * lay.W[c] - r0; /* slot of (row s, k): sb + s + k R */
  for (int g = __ldg(lay.lstart + blk); g < g1; g++) {
    const int r1 = __ldg(lay.lptr + g + 1);
    for (int s = __ldg(lay.lptr + g) + lane; s < r1; s += 32) {
      const long long base = sb + s;
      const int       nl   = __ldg(nlv + s);
      double          acc  = __ldg(b + __ldg(sperm + s));
      for (int k = 0; k < nl; k++) acc -= (double)__ldg(v + base + (long long)k * R) * y[__ldg(col + base + (long long)k * R)];
      y[s] = acc;
    }
    __syncwarp();
  }
}

/* backward substitution of colour c, one warp per block, levels in reverse: y_s = dinv_s y_s - sum_upper u~ y_col,
   x[sperm[s]] = y_s */
template <typename T>
__global__ static void __launch_bounds__(BRB_THREADS) brb_backward_kernel(const MSBRBLayout lay, int c, const T *__restrict__ v, const T *__restrict__ dinv, double *y, double *x)
{
  const int lane = threadIdx.x & 31, j = blockIdx.x * BRB_WARPS + (threadIdx.x >> 5);

  if (j >= lay.nb[c]) return; /* the whole warp */
  const int *__restrict__ col             = lay.col;
  const int *__restrict__ sperm           = lay.sperm;
  const unsigned short *__restrict__ nlv  = lay.nl;
  const int                          W    = lay.W[c];
  const int                          blk  = lay.boff[c] + j;
  const int                          r0   = __ldg(lay.rstart + blk), R = __ldg(lay.rstart + blk + 1) - r0;
  const int                          g0   = __ldg(lay.lstart + blk);
  const long long                    sb   = lay.soff[c] + (long long)(r0 - lay.roff[c]) * W - r0;
  for (int g = __ldg(lay.lstart + blk + 1) - 1; g >= g0; g--) {
    const int r1 = __ldg(lay.lptr + g + 1);
    for (int s = __ldg(lay.lptr + g) + lane; s < r1; s += 32) {
      const long long base = sb + s;
      double          acc  = (double)__ldg(dinv + s) * y[s];
      for (int k = __ldg(nlv + s); k < W; k++) {
        const int cc = __ldg(col + base + (long long)k * R);
        if (cc < 0) break;
        acc -= (double)__ldg(v + base + (long long)k * R) * y[cc];
      }
      y[s]                = acc;
      x[__ldg(sperm + s)] = acc;
    }
    __syncwarp();
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

template <typename T>
static int brb_apply(const MSBRBLayout *lay, const T *v, const T *dinv, const double *b, double *x, double *y, cudaStream_t st)
{
  cudaError_t err;

  for (int c = 0; c < lay->ncolors; c++) {
    if (!lay->nb[c]) continue;
    brb_forward_kernel<T><<<brb_grid(lay->nb[c], BRB_WARPS), BRB_THREADS, 0, st>>>(*lay, c, v, b, y);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  for (int c = lay->ncolors - 1; c >= 0; c--) {
    if (!lay->nb[c]) continue;
    brb_backward_kernel<T><<<brb_grid(lay->nb[c], BRB_WARPS), BRB_THREADS, 0, st>>>(*lay, c, v, dinv, y, x);
    if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  }
  return 0;
}

MS_BRB_APPLY(MSBRBApply_CUDA)
{
  if (single) return brb_apply<float>(lay, (const float *)fvals, (const float *)fdinv, b, x, y, (cudaStream_t)stream);
  return brb_apply<double>(lay, (const double *)fvals, (const double *)fdinv, b, x, y, (cudaStream_t)stream);
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

const MSBRBKernels MSBRBKernels_CUDA = {"CUDA", MSBRBMultiprocessors_CUDA, MSBRBFactor_CUDA, MSBRBConvert_CUDA, MSBRBApply_CUDA, MSBRBSlots_CUDA, MSBRBGridPerm_CUDA, MSBRBLevels_CUDA, MSBRBStorage_CUDA};
