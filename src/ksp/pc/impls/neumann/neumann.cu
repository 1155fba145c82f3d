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
#include <petscmodsell/private/msdevarrays.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

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

/* The restriction, one pass over the subdomains' rows (and list entries) in subdomain order: thread block
   blockIdx.x = j * nchunk + q adds the items q * MS_NEU_CHUNK .. (q + 1) * MS_NEU_CHUNK - 1 of subdomain j (its rows
   first, then its list entries) and writes its block reduction to work[j * nchunk + q] (0 past the subdomain's items:
   every block writes, no early exit before the barriers); then one warp per subdomain adds its chunks in order. No
   atomics: the same inputs give the same sums. MODE 0: a; 1: a - b; 2: a - w b. */
template <bool ORDER, int MODE>
__global__ void __launch_bounds__(256) neu_restrict_chunk_kernel(MSNeuDefl D, const double *__restrict__ a, const double *__restrict__ b, bool list, int nchunk, double *__restrict__ work)
{
  __shared__ double red[33];
  const int         j = (int)(blockIdx.x / (unsigned)nchunk), q = (int)(blockIdx.x - (unsigned)j * (unsigned)nchunk);
  const int         r0 = D.off[j], nr = D.off[j + 1] - r0, l0 = list ? D.xoff[j] : 0, nl = list ? D.xoff[j + 1] - l0 : 0;
  const long long   beg = (long long)q * MS_NEU_CHUNK, end = beg + MS_NEU_CHUNK < (long long)nr + nl ? beg + MS_NEU_CHUNK : (long long)nr + nl;
  const long long   rend = end < nr ? end : nr;
  double            sum  = 0.0;

  for (long long i = beg + threadIdx.x; i < rend; i += blockDim.x) {
    const int o = ORDER ? D.order[r0 + i] : r0 + (int)i;
    double    v = a[o];

    if (MODE == 1) v -= b[o];
    else if (MODE == 2) v -= D.w[o] * b[o];
    sum += v;
  }
  for (long long i = (beg > nr ? beg : nr) + threadIdx.x; i < end; i += blockDim.x) {
    const long long e = l0 + (i - nr);
    sum -= D.xval[e] * b[D.xrow[e]];
  }
  sum = ms_block_reduce<MSOpSum>(sum, red);
  if (threadIdx.x == 0) work[(long long)j * nchunk + q] = sum;
}

__global__ void neu_restrict_final_kernel(int nsub, int nchunk, const double *__restrict__ work, double *__restrict__ out)
{
  const int lane = threadIdx.x & 31;

  for (long long j = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; j < nsub; j += ((long long)gridDim.x * blockDim.x) >> 5) { /* warp-uniform */
    double sum = 0.0;

    for (int q = lane; q < nchunk; q += 32) sum += work[j * nchunk + q];
    sum = ms_warp_reduce<MSOpSum>(sum);
    if (lane == 0) out[j] = sum;
  }
}

template <bool ORDER>
static void neu_restrict_launch(const MSNeuDefl *D, const double *a, const double *b, bool list, int mode, int nchunk, cudaStream_t st)
{
  const unsigned nb = (unsigned)((long long)D->nsub * nchunk);

  if (mode == 0) neu_restrict_chunk_kernel<ORDER, 0><<<nb, 256, 0, st>>>(*D, a, b, list, nchunk, D->work);
  else if (mode == 1) neu_restrict_chunk_kernel<ORDER, 1><<<nb, 256, 0, st>>>(*D, a, b, list, nchunk, D->work);
  else neu_restrict_chunk_kernel<ORDER, 2><<<nb, 256, 0, st>>>(*D, a, b, list, nchunk, D->work);
}

extern "C" MS_NEU_RESTRICT(MSNeuRestrict_CUDA)
{
  cudaStream_t    st     = (cudaStream_t)stream;
  const long long nchunk = MS_NEU_NCHUNKS((long long)D->maxitems);
  const bool      list   = zta && b && D->xoff;
  const int       mode   = !b ? 0 : (zta && D->w ? 2 : 1);
  cudaError_t     err;

  if (D->nsub <= 0) return (int)cudaSuccess;
  if (!D->work || !D->off || D->maxitems < 0 || (long long)D->nsub * nchunk > 2147483647LL) return (int)cudaErrorInvalidValue;
  if (D->order) neu_restrict_launch<true>(D, a, b, list, mode, (int)nchunk, st);
  else neu_restrict_launch<false>(D, a, b, list, mode, (int)nchunk, st);
  if ((err = cudaGetLastError()) != cudaSuccess) return (int)err;
  neu_restrict_final_kernel<<<ms_grid(32LL * D->nsub, 256), 256, 0, st>>>(D->nsub, (int)nchunk, D->work, out);
  return (int)cudaGetLastError();
}

/* c = Einv g: one warp per row of the process's block of E^-1 (blocks of 4 warps: more blocks than SMs at 512 rows) */
__global__ void __launch_bounds__(128) neu_coarse_kernel(int nl, int nt, const double *__restrict__ Einv, const double *__restrict__ g, double *__restrict__ c)
{
  const int lane = threadIdx.x & 31;

  for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; i < nl; i += ((long long)gridDim.x * blockDim.x) >> 5) {
    const double *row = Einv + i * nt;
    double        sum = 0.0;

#pragma unroll 4
    for (int j = lane; j < nt; j += 32) sum += row[j] * g[j];
    sum = ms_warp_reduce<MSOpSum>(sum);
    if (lane == 0) c[i] = sum;
  }
}

extern "C" MS_NEU_COARSE(MSNeuCoarse_CUDA)
{
  if (nl <= 0) return (int)cudaSuccess;
  neu_coarse_kernel<<<ms_grid(32LL * nl, 128), 128, 0, (cudaStream_t)stream>>>(nl, nt, Einv, g, c);
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

/* ---------------------------------------------------------------------------------------------------------- */
/* deflation setup: subdomains, their order, E = Z^T A Z and Z^T A (neumannkernels.h)                           */
/*                                                                                                              */
/* galerkin, deterministic and in the canonical order of the header (the reference adds in the same order, so     */
/* the two agree bit for bit), no atomics on doubles:                                                           */
/*   1. one key per entry a_oc, (sub[o] << cb) | c (32 bits when they fit, else 64), with its value;             */
/*   2. a stable radix sort of the pairs (the entries of a pair (j, c) keep their CSR order: rows ascending);     */
/*   3. the runs of equal keys (cub run-length encoding, a prefix sum of the counts), one thread per run adds its  */
/*      entries in order: S(j, c); zw[c] = S(sub[c], c) (a column has one run in its own subdomain), the others    */
/*      flagged, compacted by a prefix sum of the flags (the list, already in (j, c) order), xoff by binary search;*/
/*   4. E: the runs' keys j * nsub + sub[c], a stable radix sort of (key, S), run-length encoding, one warp per     */
/*      distinct (j, k) adds its S in order as 32 lanes and a shuffle tree.                                      */
/* The host reads two sizes (runs, distinct (j, k)): a synchronization each. Memory: about 2 (key + 8) bytes per  */
/* entry for the sort (double buffers) and 32 bytes per run.                                                     */
/* ---------------------------------------------------------------------------------------------------------- */
#define NEU_TRY(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) return e_; \
  } while (0)


static int neu_bits(unsigned long long x) /* bits to hold 0..x (at least 1) */
{
  int b = 0;
  while (x) {
    b++;
    x >>= 1;
  }
  return b ? b : 1;
}

template <class T>
static cudaError_t neu_read(T *h, const T *d, cudaStream_t st)
{
  NEU_TRY(cudaMemcpyAsync(h, d, sizeof(T), cudaMemcpyDeviceToHost, st));
  return cudaStreamSynchronize(st);
}

/* the first position i in [0, n) with v[i] >= key (n when none) */
template <class K>
__device__ __forceinline__ long long neu_lower_bound(const K *v, long long n, K key)
{
  long long lo = 0, hi = n;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (v[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

#define NEU_GSTRIDE(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

__global__ void neu_blocks_kernel(int m, const int *__restrict__ perm, int bs, int *__restrict__ sub)
{
  NEU_GSTRIDE(r, m)
  {
    const int o = perm ? perm[r] : (int)r;
    sub[o] = (int)(r / bs);
  }
}

extern "C" MS_NEU_BLOCKS(MSNeuBlocks_CUDA)
{
  if (bs < 1) return (int)cudaErrorInvalidValue;
  if (m <= 0) return (int)cudaSuccess;
  neu_blocks_kernel<<<ms_grid(m, 256), 256, 0, (cudaStream_t)stream>>>(m, perm, bs, sub);
  return (int)cudaGetLastError();
}

__global__ void neu_iota_kernel(int n, int *__restrict__ v)
{
  NEU_GSTRIDE(i, n) v[i] = (int)i;
}

/* off[j] = the first position of subdomain j in the sorted subdomains (j = 0..nsub) */
__global__ void neu_offsets_kernel(int m, const unsigned *__restrict__ ssub, int nsub, int *__restrict__ off)
{
  NEU_GSTRIDE(j, (long long)nsub + 1) off[j] = (int)neu_lower_bound<unsigned>(ssub, m, (unsigned)j);
}

extern "C" MS_NEU_ORDER(MSNeuOrder_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  MSDeviceArrays     mem(st);
  unsigned    *ssub;
  int         *iota;

  if (nsub < 0) return (int)cudaErrorInvalidValue;
  if (m <= 0) return (int)cudaMemsetAsync(off, 0, sizeof(int) * ((size_t)nsub + 1), st);
  if (!order) { /* sub nondecreasing */
    neu_offsets_kernel<<<ms_grid((long long)nsub + 1, 256), 256, 0, st>>>(m, (const unsigned *)sub, nsub, off);
    return (int)cudaGetLastError();
  }
  NEU_TRY(mem.get(&ssub, m));
  NEU_TRY(mem.get(&iota, m));
  neu_iota_kernel<<<ms_grid(m, 256), 256, 0, st>>>(m, iota);
  NEU_TRY(cudaGetLastError());
  { /* stable: the rows of a subdomain stay ascending */
    const int bits = neu_bits(nsub > 0 ? (unsigned long long)(nsub - 1) : 0ULL);
    NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, (const unsigned *)sub, ssub, (const int *)iota, order, m, 0, bits, st); }));
  }
  neu_offsets_kernel<<<ms_grid((long long)nsub + 1, 256), 256, 0, st>>>(m, ssub, nsub, off);
  return (int)cudaGetLastError();
}

/* warp-uniform loop over the rows: the entries whose column's subdomain is not the row's, a warp sum, one atomic
   (integers: exact) */
__global__ void neu_cut_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ sub, unsigned long long *ncut)
{
  const int lane = threadIdx.x & 31;

  for (long long base = blockIdx.x * (long long)blockDim.x + (threadIdx.x - lane); base < m; base += (long long)gridDim.x * blockDim.x) {
    const long long    o   = base + lane;
    unsigned long long cnt = 0;

    if (o < m) {
      const int so = sub[o];
      for (int e = ai[o]; e < ai[o + 1]; e++) cnt += sub[aj[e]] != so;
    }
    cnt = ms_warp_reduce<MSOpSum>(cnt);
    if (lane == 0 && cnt) atomicAdd(ncut, cnt);
  }
}

extern "C" MS_NEU_CUT(MSNeuCut_CUDA)
{
  cudaStream_t st  = (cudaStream_t)stream;
  cudaError_t  err = cudaMemsetAsync(ncut, 0, sizeof(*ncut), st);

  if (err != cudaSuccess || A->m <= 0) return (int)err;
  neu_cut_kernel<<<ms_grid(A->m, 256), 256, 0, st>>>(A->m, A->ai, A->aj, sub, (unsigned long long *)ncut);
  return (int)cudaGetLastError();
}

template <class K>
__global__ void neu_keys_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, const int *__restrict__ sub, int cb, K *__restrict__ keys, double *__restrict__ vals)
{
  NEU_GSTRIDE(o, m)
  {
    const K j = (K)(unsigned)sub[o] << cb;

    for (int e = ai[o]; e < ai[o + 1]; e++) {
      keys[e] = j | (K)(unsigned)aj[e];
      vals[e] = aa[e];
    }
  }
}

/* run r: S(j, c) adds the run's values in order; its E key j * nsub + sub[c]; zw and the list flag */
template <class K>
__global__ void neu_runs_kernel(int nruns, const K *__restrict__ ukeys, const int *__restrict__ starts, const int *__restrict__ counts, const double *__restrict__ vals, const int *__restrict__ sub, int cb, int nsub, double *__restrict__ S, unsigned *__restrict__ key2, int *__restrict__ flag, double *__restrict__ zw)
{
  NEU_GSTRIDE(r, nruns)
  {
    const K   u = ukeys[r];
    const int j = (int)(u >> cb), c = (int)(u & (((K)1 << cb) - 1)), k = sub[c], beg = starts[r], end = beg + counts[r];
    double    sum = 0.0;

    for (int i = beg; i < end; i++) sum += vals[i];
    S[r]    = sum;
    key2[r] = (unsigned)j * (unsigned)nsub + (unsigned)k;
    if (flag) {
      flag[r] = k != j;
      if (k == j) zw[c] = sum;
    }
  }
}

template <class K>
__global__ void neu_list_kernel(int nruns, const K *__restrict__ ukeys, const int *__restrict__ flag, const int *__restrict__ pos, const double *__restrict__ S, int cb, long long cap, int *__restrict__ xrow, double *__restrict__ xval)
{
  NEU_GSTRIDE(r, nruns)
  {
    if (flag[r] && pos[r] < cap) {
      xrow[pos[r]] = (int)(ukeys[r] & (((K)1 << cb) - 1));
      xval[pos[r]] = S[r];
    }
  }
}

/* xoff[j] = the list position of the first run of subdomain j (j < nsub), xoff[nsub] = *nx = the list's length */
template <class K>
__global__ void neu_xoff_kernel(int nruns, const K *__restrict__ ukeys, const int *__restrict__ pos, int cb, int nsub, int *__restrict__ xoff, long long *nx)
{
  NEU_GSTRIDE(j, (long long)nsub + 1)
  {
    if (j == nsub) {
      xoff[j] = pos[nruns];
      *nx     = pos[nruns];
    } else xoff[j] = pos[neu_lower_bound<K>(ukeys, nruns, (K)j << cb)];
  }
}

/* one warp per distinct (j, k): its values in order as 32 lanes, the shuffle tree; E[j, coff + k] */
__global__ void neu_segsum_kernel(int nseg, const unsigned *__restrict__ ukey2, const int *__restrict__ starts, const int *__restrict__ counts, const double *__restrict__ vals, int nsub, int nt, int coff, double *__restrict__ E)
{
  const int lane = threadIdx.x & 31;

  for (long long s = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; s < nseg; s += ((long long)gridDim.x * blockDim.x) >> 5) { /* warp-uniform */
    const int beg = starts[s], n = counts[s];
    double    sum = 0.0;

    for (int i = lane; i < n; i += 32) sum += vals[beg + i];
    sum = ms_warp_reduce<MSOpSum>(sum);
    if (lane == 0) {
      const unsigned key = ukey2[s], j = key / (unsigned)nsub, k = key - j * (unsigned)nsub;
      E[(long long)j * nt + coff + k] = sum;
    }
  }
}

template <class K>
static cudaError_t neu_galerkin(const MSNeuCSR *A, const int *sub, int nsub, int nt, int coff, double *E, const MSNeuZtA *Z, int cb, int kb, cudaStream_t st)
{
  MSDeviceArrays  mem(st);
  const int nnz = A->nnz;
  K        *kbuf[2], *ukeys;
  double   *vbuf[2], *S, *S2[2];
  unsigned *k2[2], *ukey2;
  int      *counts, *starts, *flag = nullptr, *pos, *dn, nruns, nseg, sel;

  NEU_TRY(cudaMemsetAsync(E, 0, sizeof(double) * (size_t)nsub * (size_t)nt, st));
  if (Z) {
    NEU_TRY(cudaMemsetAsync(Z->zw, 0, sizeof(double) * (size_t)A->m, st));
    NEU_TRY(cudaMemsetAsync(Z->xoff, 0, sizeof(int) * ((size_t)nsub + 1), st));
    NEU_TRY(cudaMemsetAsync(Z->nx, 0, sizeof(*Z->nx), st));
  }
  if (nnz <= 0) return cudaSuccess;
  /* 1-2. keys, stable sort */
  NEU_TRY(mem.get(&kbuf[0], nnz));
  NEU_TRY(mem.get(&kbuf[1], nnz));
  NEU_TRY(mem.get(&vbuf[0], nnz));
  NEU_TRY(mem.get(&vbuf[1], nnz));
  neu_keys_kernel<K><<<ms_grid(A->m, 256), 256, 0, st>>>(A->m, A->ai, A->aj, A->aa, sub, cb, kbuf[0], vbuf[0]);
  NEU_TRY(cudaGetLastError());
  {
    cub::DoubleBuffer<K>      dk(kbuf[0], kbuf[1]);
    cub::DoubleBuffer<double> dv(vbuf[0], vbuf[1]);
    NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, dk, dv, nnz, 0, cb + kb, st); }));
    sel = dk.selector;
    if (dv.selector != sel) return cudaErrorUnknown; /* (keys and values move together) */
  }
  /* 3. runs */
  NEU_TRY(mem.get(&ukeys, nnz));
  NEU_TRY(mem.get(&counts, nnz));
  NEU_TRY(mem.get(&dn, 1));
  NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRunLengthEncode::Encode(t, b, kbuf[sel], ukeys, counts, dn, nnz, st); }));
  NEU_TRY(neu_read(&nruns, dn, st));
  mem.put(kbuf[0]);
  mem.put(kbuf[1]);
  mem.put(vbuf[1 - sel]);
  NEU_TRY(mem.get(&starts, nruns));
  NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, counts, starts, nruns, st); }));
  NEU_TRY(mem.get(&S, nruns));
  NEU_TRY(mem.get(&k2[0], nruns));
  if (Z) {
    NEU_TRY(mem.get(&flag, (long long)nruns + 1));
    NEU_TRY(cudaMemsetAsync(flag + nruns, 0, sizeof(int), st));
  }
  neu_runs_kernel<K><<<ms_grid(nruns, 256), 256, 0, st>>>(nruns, ukeys, starts, counts, vbuf[sel], sub, cb, nsub, S, k2[0], flag, Z ? Z->zw : nullptr);
  NEU_TRY(cudaGetLastError());
  mem.put(vbuf[sel]);
  mem.put(counts);
  mem.put(starts);
  if (Z) { /* the list: the flagged runs in order */
    NEU_TRY(mem.get(&pos, (long long)nruns + 1));
    NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, flag, pos, nruns + 1, st); }));
    neu_list_kernel<K><<<ms_grid(nruns, 256), 256, 0, st>>>(nruns, ukeys, flag, pos, S, cb, Z->cap, Z->xrow, Z->xval);
    NEU_TRY(cudaGetLastError());
    neu_xoff_kernel<K><<<ms_grid((long long)nsub + 1, 256), 256, 0, st>>>(nruns, ukeys, pos, cb, nsub, Z->xoff, Z->nx);
    NEU_TRY(cudaGetLastError());
    mem.put(pos);
    mem.put(flag);
  }
  mem.put(ukeys);
  /* 4. E */
  NEU_TRY(mem.get(&k2[1], nruns));
  NEU_TRY(mem.get(&S2[1], nruns));
  S2[0] = S;
  {
    cub::DoubleBuffer<unsigned> dk(k2[0], k2[1]);
    cub::DoubleBuffer<double>   dv(S2[0], S2[1]);
    const int                   bits = neu_bits((unsigned long long)nsub * (unsigned long long)nsub - 1ULL);
    NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRadixSort::SortPairs(t, b, dk, dv, nruns, 0, bits, st); }));
    sel = dk.selector;
    if (dv.selector != sel) return cudaErrorUnknown;
  }
  NEU_TRY(mem.get(&ukey2, nruns));
  NEU_TRY(mem.get(&counts, nruns));
  NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceRunLengthEncode::Encode(t, b, k2[sel], ukey2, counts, dn, nruns, st); }));
  NEU_TRY(neu_read(&nseg, dn, st));
  NEU_TRY(mem.get(&starts, nseg));
  NEU_TRY(ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, counts, starts, nseg, st); }));
  neu_segsum_kernel<<<ms_grid(32LL * nseg, 256), 256, 0, st>>>(nseg, ukey2, starts, counts, S2[sel], nsub, nt, coff, E);
  return cudaGetLastError();
}

extern "C" MS_NEU_GALERKIN(MSNeuGalerkin_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  int          cb, kb;

  if (A->m < 0 || A->nnz < 0 || nsub < 0 || coff < 0 || (long long)coff + nsub > nt || (long long)nsub * nsub > 4294967295LL) return (int)cudaErrorInvalidValue;
  if (A->m > 0 && nsub < 1) return (int)cudaErrorInvalidValue;
  cb = neu_bits(A->m > 0 ? (unsigned long long)(A->m - 1) : 0ULL);
  kb = neu_bits(nsub > 0 ? (unsigned long long)(nsub - 1) : 0ULL);
  if (cb + kb <= 32) return (int)neu_galerkin<unsigned>(A, sub, nsub, nt, coff, E, Z, cb, kb, st);
  return (int)neu_galerkin<unsigned long long>(A, sub, nsub, nt, coff, E, Z, cb, kb, st);
}

extern "C" const MSNeuKernels MSNeuKernels_CUDA = {"cuda", MSNeuDiag_CUDA, MSNeuLNorm_CUDA, MSNeuSplitWidth_CUDA, MSNeuSplitFill_CUDA, MSNeuTri_CUDA, MSNeuRestrict_CUDA, MSNeuCoarse_CUDA, MSNeuProlong_CUDA, MSNeuScale_CUDA, MSNeuBlocks_CUDA, MSNeuOrder_CUDA, MSNeuCut_CUDA, MSNeuGalerkin_CUDA, 1};
