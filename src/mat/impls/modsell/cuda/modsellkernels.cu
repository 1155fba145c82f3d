/*
   CUDA kernels of the modified Sliced ELLPACK format (Wikberg (2024), sections 3.1-3.2).
   One thread block per slice, one thread per row (or a few: MSImageView.lanes, for wide rows); the slice's
   window of x is loaded into shared memory first, then each thread walks its row's interleaved slots. A permuted image
   works in its own numbering: a kernel gathers x into it first (a random read per row), the
   product writes its result in that numbering (coalesced), and a last kernel brings y back
   by a gather through the inverse permutation (a random read per row: on an H100 a random
   8-byte write per row instead cost 1.21 ms against 0.82 ms for the product on 10.4 M rows).
   The default instead (-mat_modsell_permute_chunk > 0) is the bucketed product: x scattered into
   buckets of image rows, the product reading inside one bucket and writing y into buckets of user
   rows, a gather inside one bucket (modsellcuda.h, MSPermBuckets; the passes in permbucket.cu).
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/modsellcuda.h>

/* Where the product reads x and writes y (a compile-time flag of ms_mult_kernel):
     MS_MULT_PLAIN:   x, y, yin in the image's numbering (the unpermuted product, and the permuted one after a gather)
     MS_MULT_BUCKET:  x is the bucketed x (modsellcuda.h, MSPermBuckets): image row r's own value at x[qx[r]], an
                      off-slice code c > 0 at x[qx[c - 1]] (a dependent load); row r's result to y[py[r]] (py NULL:
                      y[r]); no yin (pass (c) adds it)
     MS_MULT_RECODED: the same with codes already rewritten to positions of x (MSPermBuckets.bcols): an off-slice
                      code c > 0 at x[c - 1] */
#define MS_MULT_PLAIN   0
#define MS_MULT_BUCKET  1
#define MS_MULT_RECODED 2

template <int PERM>
__device__ __forceinline__ int ms_mult_own_pos(int r, const int *__restrict__ qx)
{
  return PERM == MS_MULT_PLAIN ? r : __ldg(qx + r);
}

template <int PERM>
__device__ __forceinline__ int ms_mult_col_pos(int c, const int *__restrict__ qx)
{
  return PERM == MS_MULT_BUCKET ? __ldg(qx + (c - 1)) : c - 1;
}

/* The slots k0, k0 + kstep, ... (< w) of one row added to sum, in that order; entries |= the row has an entry (padding
   codes are 0) */
template <bool LOCAL, bool INPLACE_SKIP, int PERM>
__device__ __forceinline__ double ms_mult_row(const int *__restrict__ cp, const double *__restrict__ vp, int sh, int k0, int kstep, int w, const double *xs, const double *__restrict__ x, const int *__restrict__ qx, double sum, int &entries)
{
#pragma unroll 4
  for (int k = k0; k < w; k += kstep) {
    const int    c = __ldg(cp + (long long)k * sh);
    const double v = __ldg(vp + (long long)k * sh);
    double       xv;
    if (LOCAL && c < 0) xv = xs[-c - 1];
    else xv = c > 0 ? __ldg(x + ms_mult_col_pos<PERM>(c, qx)) : 0.0;
    if (INPLACE_SKIP) entries |= (c != 0);
    sum += v * xv;
  }
  return sum;
}

/* x, y, yin in the image's numbering (MS_MULT_PLAIN), or as PERM says; the sum of a row is formed in the same order
   by every variant. One block of sh threads per slice (slist: the slices to do), one thread per row: the diagonal term,
   then the row's slots in order. */
template <bool DIAG, bool LOCAL, bool ADD, int PERM>
__global__ void __launch_bounds__(1024) ms_mult_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *__restrict__ x, const double *yin, double ys, double *y, const int *__restrict__ qx, const int *__restrict__ py, const int *__restrict__ slist)
{
  extern __shared__ double xs[];
  const int  sh    = blockDim.x, t = threadIdx.x, s = slist ? __ldg(slist + blockIdx.x) : blockIdx.x;
  const int  r     = s * sh + t;
  const bool valid = r < m;
  double     sum   = 0.0;
  int        entries = 0;

  static_assert(PERM == MS_MULT_PLAIN || !ADD, "the permuted variants add yin in their last pass");
  if (DIAG || LOCAL) {
    const double xr = valid ? x[ms_mult_own_pos<PERM>(r, qx)] : 0.0;
    if (LOCAL) {
      xs[t] = xr;
      __syncthreads();
    }
    if (DIAG && valid) sum = diag[r] * xr;
  }
  const long long beg = sliceptr[s];
  const int       w   = valid ? (int)((sliceptr[s + 1] - beg) / sh) : 0; /* padding rows of the last slice do nothing */
  /* y += A x in place without a diagonal (an MPI matrix's off-diagonal block, whose rows mostly have no entry): a row
     without entries is left alone, so that an empty slice moves nothing but its two slice pointers */
  constexpr bool INPLACE_SKIP = ADD && !DIAG && !LOCAL && PERM == MS_MULT_PLAIN;
  const bool     inplace      = INPLACE_SKIP && yin == y;
  if (inplace && w == 0) return;
  sum = ms_mult_row<LOCAL, INPLACE_SKIP, PERM>(cols + beg + t, vals + beg + t, sh, 0, 1, w, xs, x, qx, sum, entries);
  if (PERM == MS_MULT_PLAIN) {
    if (valid && !(inplace && !entries)) y[r] = ADD ? yin[r] + ys * sum : sum;
  } else if (valid) y[py ? __ldg(py + r) : r] = sum;
}

/* The same product with `lanes` consecutive threads per row (a power of two, 2 to 32; MSImageView.lanes): lane j takes
   the row's slots j, j + lanes, ..., lane 0 starts from the diagonal term, and the lanes' sums are added by a tree
   (__shfl_down_sync: lane j += lane j + off, off = lanes/2, ..., 1), the order the reference product
   (MSImageOps_Reference) follows. A block has min(sh lanes, 1024) threads and walks the slice's rows in passes of
   blockDim / lanes rows; the rows of a warp are
   consecutive, and a warp's rows lie all inside or all outside the slice (sh is a multiple of 32), so every thread
   of a warp takes part in its shuffles. */
template <bool DIAG, bool LOCAL, bool ADD, int PERM>
__global__ void __launch_bounds__(1024) ms_mult_lanes_kernel(int m, int sh, int lanes, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *__restrict__ x, const double *yin, double ys, double *y, const int *__restrict__ qx, const int *__restrict__ py, const int *__restrict__ slist)
{
  extern __shared__ double xs[];
  const int       s    = slist ? __ldg(slist + blockIdx.x) : blockIdx.x;
  const int       lane = threadIdx.x & (lanes - 1), step = blockDim.x / lanes;
  const long long beg  = sliceptr[s];
  const int       wsl  = (int)((sliceptr[s + 1] - beg) / sh);
  constexpr bool  INPLACE_SKIP = ADD && !DIAG && !LOCAL && PERM == MS_MULT_PLAIN;
  const bool      inplace      = INPLACE_SKIP && yin == y;

  static_assert(PERM == MS_MULT_PLAIN || !ADD, "the permuted variants add yin in their last pass");
  if (inplace && wsl == 0) return; /* the whole block */
  if (LOCAL) {
    for (int t = threadIdx.x; t < sh; t += blockDim.x) {
      const int r = s * sh + t;
      xs[t]       = r < m ? x[ms_mult_own_pos<PERM>(r, qx)] : 0.0;
    }
    __syncthreads();
  }
  for (int t = threadIdx.x / lanes; t < sh; t += step) {
    const int  r       = s * sh + t;
    const bool valid   = r < m;
    double     sum     = 0.0;
    int        entries = 0;

    if (DIAG && valid && lane == 0) sum = diag[r] * (LOCAL ? xs[t] : x[ms_mult_own_pos<PERM>(r, qx)]);
    sum = ms_mult_row<LOCAL, INPLACE_SKIP, PERM>(cols + beg + t, vals + beg + t, sh, lane, lanes, valid ? wsl : 0, xs, x, qx, sum, entries);
    for (int off = lanes / 2; off > 0; off /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, off, lanes);
      if (INPLACE_SKIP) entries |= __shfl_down_sync(0xffffffffu, entries, off, lanes);
    }
    if (lane == 0 && valid) {
      if (PERM == MS_MULT_PLAIN) {
        if (!(inplace && !entries)) y[r] = ADD ? yin[r] + ys * sum : sum;
      } else y[py ? __ldg(py + r) : r] = sum;
    }
  }
}

/* threads per block of the product: sh rows of `lanes` threads, at most 1024 (the block then walks its slice in
   passes) */
static inline int ms_mult_threads(int sh, int lanes)
{
  return sh * lanes < 1024 ? sh * lanes : 1024;
}

/* ys: y = yin + ys A x where yin is given (1, or -1 for a residual: both exact, so ys = 1 gives the plain sum's bits) */
template <bool DIAG, bool LOCAL, bool ADD, int PERM>
static void launch_mult_any(int m, int sh, int lanes, int nblocks, const long long *sliceptr, const int *cols, const double *vals, const double *diag, const double *x, const double *yin, double ys, double *y, const int *qx, const int *py, const int *slist, cudaStream_t st)
{
  const size_t smem = LOCAL ? (size_t)sh * sizeof(double) : 0;
  if (lanes == 1) ms_mult_kernel<DIAG, LOCAL, ADD, PERM><<<nblocks, sh, smem, st>>>(m, sliceptr, cols, vals, diag, x, yin, ys, y, qx, py, slist);
  else ms_mult_lanes_kernel<DIAG, LOCAL, ADD, PERM><<<nblocks, ms_mult_threads(sh, lanes), smem, st>>>(m, sh, lanes, sliceptr, cols, vals, diag, x, yin, ys, y, qx, py, slist);
}

template <bool DIAG, bool LOCAL>
static void launch_mult(int m, int sh, int lanes, int nslices, const long long *sliceptr, const int *cols, const double *vals, const double *diag, const double *x, const double *yin, double ys, double *y, cudaStream_t st)
{
  if (yin) launch_mult_any<DIAG, LOCAL, true, MS_MULT_PLAIN>(m, sh, lanes, nslices, sliceptr, cols, vals, diag, x, yin, ys, y, nullptr, nullptr, nullptr, st);
  else launch_mult_any<DIAG, LOCAL, false, MS_MULT_PLAIN>(m, sh, lanes, nslices, sliceptr, cols, vals, diag, x, yin, 1.0, y, nullptr, nullptr, nullptr, st);
}

/* the product of the bucketed permutation: x read through qx, y written through py (NULL: in the image numbering) */
template <bool DIAG, bool LOCAL>
static void launch_mult_bucket(bool recoded, int m, int sh, int lanes, int nslices, const long long *sliceptr, const int *cols, const double *vals, const double *diag, const double *x, double *y, const int *qx, const int *py, cudaStream_t st)
{
  if (recoded) launch_mult_any<DIAG, LOCAL, false, MS_MULT_RECODED>(m, sh, lanes, nslices, sliceptr, cols, vals, diag, x, nullptr, 1.0, y, qx, py, nullptr, st);
  else launch_mult_any<DIAG, LOCAL, false, MS_MULT_BUCKET>(m, sh, lanes, nslices, sliceptr, cols, vals, diag, x, nullptr, 1.0, y, qx, py, nullptr, st);
}

__global__ void ms_gather_kernel(int m, const int *__restrict__ perm, const double *__restrict__ x, double *__restrict__ xp)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) xp[r] = x[perm[r]];
}

/* y[i] = (yin ? yin[i] + ys yp[iperm[i]] : yp[iperm[i]]): the image's result back in the user's numbering */
__global__ void ms_unpermute_kernel(int m, const int *__restrict__ iperm, const double *__restrict__ yp, const double *yin, double ys, double *y)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    const double v = yp[iperm[i]];
    y[i]           = yin ? yin[i] + ys * v : v;
  }
}

/* the bucketed permuted product (modsellcuda.h): (a) x into its buckets (K > 1), (b) the product through qx and py,
   (c) y back from its buckets, yin added */
static int ms_mult_bucketed(const MSImageView *img, const MSPermBuckets *pb, const double *x, const double *yin, double ys, double *y, double *work, cudaStream_t st)
{
  const int        m = img->m, sh = img->sh, nslices = img->nslices, ln = img->lanes;
  const long long *sliceptr = img->sliceptr;
  const double    *vals = img->vals, *diag = img->diag;
  const bool       d = diag != nullptr, l = img->local_cols != 0, rc = pb->bcols != nullptr;
  const int       *cols = rc ? pb->bcols : img->cols;
  const int       *qx, *py, *qy;
  const double    *xi;
  double          *yo = work + m;
  int              e;

  if (pb->nbuckets > 1) {
    if (!pb->px || !pb->qx || !pb->py || !pb->qy) return (int)cudaErrorInvalidValue;
    if ((e = MSCUDABucketScatter(m, pb->px, x, work, st))) return e;
    xi = work;
    qx = pb->qx;
    py = pb->py;
    qy = pb->qy;
  } else { /* one bucket: px and py are the identity */
    xi = x;
    qx = img->perm;
    py = nullptr;
    qy = img->iperm;
  }
  if (d && l) launch_mult_bucket<true, true>(rc, m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yo, qx, py, st);
  else if (d) launch_mult_bucket<true, false>(rc, m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yo, qx, py, st);
  else if (l) launch_mult_bucket<false, true>(rc, m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yo, qx, py, st);
  else launch_mult_bucket<false, false>(rc, m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yo, qx, py, st);
  if ((e = (int)cudaGetLastError())) return e;
  return MSCUDABucketGatherSigned(m, qy, yo, yin, ys, y, st);
}

extern "C" int MSCUDAMult(const MSImageView *img, const MSPermBuckets *pb, const double *x, const double *yin, double *y, double *work, void *stream)
{
  cudaStream_t     st = (cudaStream_t)stream;
  const int        m = img->m, sh = img->sh, nslices = img->nslices, ln = img->lanes;
  const long long *sliceptr = img->sliceptr;
  const int       *cols     = img->cols;
  const double    *vals = img->vals, *diag = img->diag;
  const bool       d = diag != nullptr, l = img->local_cols != 0, p = img->perm != nullptr;
  const double    *xi = x, *yi = yin;
  const double     ys = img->negate ? -1.0 : 1.0;
  double          *yo = y;

  if (m <= 0 || nslices <= 0) return (int)cudaSuccess;
  if (ln < 1 || ln > 32 || (ln & (ln - 1))) return (int)cudaErrorInvalidValue;
  if (p) {
    if (!img->perm_cols || !img->iperm || !work) return (int)cudaErrorInvalidValue;
    if (pb && pb->chunk > 0) return ms_mult_bucketed(img, pb, x, yin, ys, y, work, st);
    /* x into the image numbering, the product into work + m */
    ms_gather_kernel<<<(m + 255) / 256, 256, 0, st>>>(m, img->perm, x, work);
    xi = work;
    yi = nullptr;
    yo = work + m;
  }
  if (!p && !d && !l && yin && yin == y && img->nzslices) { /* in place, only the slices with an entry */
    if (img->nnzslices > 0) launch_mult_any<false, false, true, MS_MULT_PLAIN>(m, sh, ln, img->nnzslices, sliceptr, cols, vals, diag, x, yin, ys, y, nullptr, nullptr, img->nzslices, st);
    return (int)cudaGetLastError();
  }
  if (d && l) launch_mult<true, true>(m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yi, ys, yo, st);
  else if (d) launch_mult<true, false>(m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yi, ys, yo, st);
  else if (l) launch_mult<false, true>(m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yi, ys, yo, st);
  else launch_mult<false, false>(m, sh, ln, nslices, sliceptr, cols, vals, diag, xi, yi, ys, yo, st);
  if (p) ms_unpermute_kernel<<<(m + 255) / 256, 256, 0, st>>>(m, img->iperm, work + m, yin, ys, y);
  return (int)cudaGetLastError();
}

extern "C" int MSCUDAUnpermute(int m, const int *iperm, const double *yp, const double *yin, double *y, void *stream)
{
  if (m <= 0) return (int)cudaSuccess;
  ms_unpermute_kernel<<<(m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(m, iperm, yp, yin, 1.0, y);
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
  ms_scatter_kernel<<<ms_grid(nnz, 256), 256, 0, (cudaStream_t)stream>>>(nnz, csr2slot, a, vals, diag);
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

/* ---------------------------------------------------------------------------------------------
   Device build of the image (setup stays on the GPU): widths per slice, prefix sum, fill.
   --------------------------------------------------------------------------------------------- */
#include <cub/device/device_scan.cuh>

__device__ static inline int ms_row_count(const int *ai, const int *aj, int o, int dapart, int *hasdiag)
{
  int c = ai[o + 1] - ai[o];
  *hasdiag = 0;
  if (dapart) {
    for (int e = ai[o]; e < ai[o + 1]; e++)
      if (aj[e] == o) {
        *hasdiag = 1;
        c--;
        break;
      }
  }
  return c;
}

/* one block of sh threads per slice: slicelen[s] = (max off-diagonal count in the slice) * sh */
__global__ void ms_width_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ perm, int dapart, long long *__restrict__ slicelen, unsigned long long *stats)
{
  __shared__ int wmax[32], wdiag[32];
  const int sh = blockDim.x, t = threadIdx.x, s = blockIdx.x, r = s * sh + t;
  int       c = 0, hd = 0;
  if (r < m) c = ms_row_count(ai, aj, perm ? perm[r] : r, dapart, &hd);
  for (int off = 16; off > 0; off /= 2) {
    c = max(c, __shfl_down_sync(0xffffffffu, c, off));
    hd += __shfl_down_sync(0xffffffffu, hd, off);
  }
  if ((t & 31) == 0) {
    wmax[t >> 5]  = c;
    wdiag[t >> 5] = hd;
  }
  __syncthreads();
  if (t == 0) {
    int w = 0, d = 0;
    for (int i = 0; i < sh / 32; i++) {
      w = max(w, wmax[i]);
      d += wdiag[i];
    }
    slicelen[s] = (long long)w * sh;
    if (d) atomicAdd(&stats[0], (unsigned long long)d);
    atomicMax(&stats[1], (unsigned long long)w);
  }
}

extern "C" int MSCUDABuildSlicePtr(int m, int sh, int nslices, const int *ai, const int *aj, const int *perm, int dapart, long long *sliceptr, unsigned long long *stats, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;
  long long   *slicelen = nullptr;
  void        *tmp      = nullptr;
  size_t       tmpbytes = 0;

  if ((err = cudaMemsetAsync(sliceptr, 0, sizeof(long long), st))) return (int)err;
  if (nslices <= 0) return (int)cudaSuccess;
  if ((err = cudaMallocAsync((void **)&slicelen, (size_t)nslices * sizeof(long long), st))) return (int)err;
  ms_width_kernel<<<nslices, sh, 0, st>>>(m, ai, aj, perm, dapart, slicelen, stats);
  if ((err = cudaGetLastError())) return (int)err;
  if ((err = cub::DeviceScan::InclusiveSum(tmp, tmpbytes, slicelen, sliceptr + 1, nslices, st))) return (int)err;
  if ((err = cudaMallocAsync(&tmp, tmpbytes, st))) return (int)err;
  if ((err = cub::DeviceScan::InclusiveSum(tmp, tmpbytes, slicelen, sliceptr + 1, nslices, st))) return (int)err;
  if ((err = cudaFreeAsync(tmp, st))) return (int)err;
  return (int)cudaFreeAsync(slicelen, st);
}

/* one thread per image row, padding rows of the last slice included (their slots get code 0) */
__global__ void ms_fill_kernel(int m, int sh, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, const int *__restrict__ perm, const int *__restrict__ iperm, int dapart, int local, const long long *__restrict__ sliceptr, int write_image, int *__restrict__ cols, double *__restrict__ vals, double *__restrict__ diag, long long *__restrict__ csr2slot, unsigned long long *stats)
{
  const int r      = blockIdx.x * blockDim.x + threadIdx.x;
  const int mpad   = ((m + sh - 1) / sh) * sh;
  int       nlocal = 0;
  if (r < mpad) {
    const int       s = r / sh, t = r - s * sh, first = s * sh, o = r < m ? (perm ? perm[r] : r) : 0;
    const long long beg = sliceptr[s];
    const int       w   = (int)((sliceptr[s + 1] - beg) / sh);
    const int       e0 = r < m ? ai[o] : 0, e1 = r < m ? ai[o + 1] : 0;
    int             k   = 0;
    double          d   = 0.0;
    for (int e = e0; e < e1; e++) {
      const int c = aj[e];
      if (dapart && c == o) {
        if (write_image) d = aa[e];
        if (csr2slot) csr2slot[e] = -(long long)(r + 1);
      } else {
        const long long slot = beg + (long long)k * sh + t;
        k++;
        if (write_image) {
          const int cp = iperm ? iperm[c] : c; /* the column in the image numbering */
          int       code;
          if (local && cp >= first && cp < first + sh) {
            code = -(cp - first) - 1;
            nlocal++;
          } else code = cp + 1;
          cols[slot] = code;
          vals[slot] = aa[e];
        }
        if (csr2slot) csr2slot[e] = slot;
      }
    }
    if (write_image) {
      for (; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        cols[slot]           = 0;
        vals[slot]           = 0.0;
      }
      if (dapart && r < m) diag[r] = d;
    }
  }
  if (write_image) {
    for (int off = 16; off > 0; off /= 2) nlocal += __shfl_down_sync(0xffffffffu, nlocal, off);
    if ((threadIdx.x & 31) == 0 && nlocal) atomicAdd(&stats[2], (unsigned long long)nlocal);
  }
}

extern "C" int MSCUDAFill(int m, int sh, const int *ai, const int *aj, const double *aa, const int *perm, const int *iperm, int dapart, int local, const long long *sliceptr, int write_image, int *cols, double *vals, double *diag, long long *csr2slot, unsigned long long *stats, void *stream)
{
  if (m <= 0) return (int)cudaSuccess;
  const int mpad = ((m + sh - 1) / sh) * sh;
  ms_fill_kernel<<<(mpad + 255) / 256, 256, 0, (cudaStream_t)stream>>>(m, sh, ai, aj, aa, perm, iperm, dapart, local, sliceptr, write_image, cols, vals, diag, csr2slot, stats);
  return (int)cudaGetLastError();
}

/* one thread per user row o: its image row's slots (codes decoded as MSCUDAFill() made them), the diagonal apart put
   back before the first larger column */
__global__ void ms_image_csr_kernel(MSImageView v, const int *__restrict__ ai, int *__restrict__ aj, double *__restrict__ aa)
{
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= v.m) return;
  const int       r = v.perm ? v.iperm[o] : o, s = r / v.sh, t = r - s * v.sh, first = s * v.sh;
  const long long beg = v.sliceptr[s];
  const int       w = (int)((v.sliceptr[s + 1] - beg) / v.sh);
  int             e = ai[o], n = 0;
  while (n < w && v.cols[beg + (long long)n * v.sh + t]) n++; /* padding (code 0) only after a row's entries */
  bool dpend = v.diag && ai[o + 1] - e > n;
  for (int k = 0; k < n; k++) {
    const long long slot = beg + (long long)k * v.sh + t;
    const int       code = v.cols[slot], cp = code > 0 ? code - 1 : first - code - 1, c = v.perm_cols ? v.perm[cp] : cp;
    if (dpend && c > o) {
      if (aj) aj[e] = o;
      if (aa) aa[e] = v.diag[r];
      e++;
      dpend = false;
    }
    if (aj) aj[e] = c;
    if (aa) aa[e] = v.vals[slot];
    e++;
  }
  if (dpend) {
    if (aj) aj[e] = o;
    if (aa) aa[e] = v.diag[r];
  }
}

extern "C" int MSCUDAImageCSR(const MSImageView *v, const int *ai, int *aj, double *aa, void *stream)
{
  if (v->m <= 0) return (int)cudaSuccess;
  if (v->perm && !v->iperm) return (int)cudaErrorInvalidValue;
  ms_image_csr_kernel<<<(v->m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(*v, ai, aj, aa);
  return (int)cudaGetLastError();
}

/* one thread per new row r: MSBricksOld() (msbricks.h), as MSImageBricksPermHost() on the host */
__global__ void ms_bricks_perm_kernel(int m, MSBricks k, int *__restrict__ perm, int *__restrict__ iperm)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m) return;
  const int o = MSBricksOld(&k, r);
  perm[r]     = o;
  if (iperm) iperm[o] = r;
}

extern "C" int MSCUDABricksPerm(int m, const MSBricks *k, int *perm, int *iperm, void *stream)
{
  if (m <= 0) return (int)cudaSuccess;
  ms_bricks_perm_kernel<<<(m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(m, *k, perm, iperm);
  return (int)cudaGetLastError();
}

__global__ void ms_inverse_perm_kernel(int m, const int *__restrict__ perm, int *__restrict__ iperm)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) iperm[perm[r]] = r;
}

extern "C" int MSCUDAInversePerm(int m, const int *perm, int *iperm, void *stream)
{
  if (m <= 0) return (int)cudaSuccess;
  ms_inverse_perm_kernel<<<(m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(m, perm, iperm);
  return (int)cudaGetLastError();
}
