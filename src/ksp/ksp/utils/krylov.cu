/*
   CUDA kernels of the device-resident Krylov methods (include/petscmodsell/private/krylovkernels.h), on the stream
   given; the same functions as krylov_reference.c.

   Every kernel reads sc->done first and returns at once when it is set (the whole grid alike: only the last block of
   a kernel's reduction writes it, after every block has read it). A reduction (kr_reduce) is finished in the same
   kernel: each block adds its threads' terms (warp shuffles, then the warps), thread 0 stores the block's sums and
   counts the block in its group's counter; the last block of a group adds the group's partial sums in block order,
   the last group adds the groups' sums in group order, stores the totals in sc->sum[slot...] and runs the step's
   finish (MSKrylovFinish()) on one thread, on a copy of the scalars in registers (one load of them, one store); every
   counter it used is zeroed again for the next kernel (and the next replay of a CUDA graph). The order of the additions
   is fixed by the grid, not by the blocks' timing: the results are the same at every run.
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/modsellcuda.h>
#include <petscmodsell/private/krylovkernels.h>

/* grid of the pointwise kernels: grid-stride loops over at most MS_KRYLOV_BLOCKS blocks (one reduction group) */
static inline unsigned kr_grid(int n)
{
  long long nb = ((long long)n + MS_KRYLOV_THREADS - 1) / MS_KRYLOV_THREADS;
  return (unsigned)(nb < 1 ? 1 : (nb > MS_KRYLOV_BLOCKS ? MS_KRYLOV_BLOCKS : nb));
}

/* NS sums over the thread block at once (each added in the order of ms_block_reduce(): the warps' trees, then warp 0's
   tree over the warps), two barriers for all of them; every thread gets the sums. scratch: 33 NS doubles. */
template <int NS>
__device__ __forceinline__ void kr_block_sum(double (&v)[NS], double *scratch)
{
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;

#pragma unroll
  for (int j = 0; j < NS; j++) v[j] = ms_warp_reduce<MSOpSum>(v[j]);
  __syncthreads(); /* scratch may still be read by an earlier call */
  if (lane == 0) {
#pragma unroll
    for (int j = 0; j < NS; j++) scratch[wid * NS + j] = v[j];
  }
  __syncthreads();
  if (wid == 0) {
#pragma unroll
    for (int j = 0; j < NS; j++) {
      double t = lane < nw ? scratch[lane * NS + j] : 0.0;
      t = ms_warp_reduce<MSOpSum>(t);
      if (lane == 0) scratch[32 * NS + j] = t;
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < NS; j++) v[j] = scratch[32 * NS + j];
}

/* the step's finish on one thread, on a copy of the scalars in registers and local memory: their members are read
   with independent loads at once and written back at once, instead of a global round trip for each access of the
   scalar code (whose stores through sc could alias its later loads) */
__device__ __forceinline__ void kr_finish(const MSKrylovReduce &red, int nsums, const double *sums)
{
  if (!red.finish) {
    for (int j = 0; j < nsums; j++) red.sc->sum[red.slot + j] = sums[j];
  } else {
    MSKrylovScalars l = *red.sc;

    for (int j = 0; j < nsums; j++) l.sum[red.slot + j] = sums[j];
    MSKrylovFinish(red.finish, &l, red.hist);
    *red.sc = l;
  }
}

/* the reduction of NS values over the grid and the finish (see above); every thread of every block calls it */
template <int NS>
__device__ __forceinline__ void kr_reduce(double (&v)[NS], const MSKrylovReduce &red)
{
  __shared__ double   scratch[33 * NS];
  __shared__ unsigned last;
  const unsigned      nb = gridDim.x, b = blockIdx.x, G = MS_KRYLOV_GROUP;
  const unsigned      ng = (nb + G - 1) / G, g = b / G, gbeg = g * G, gsz = min(G, nb - gbeg);
  double             *part  = red.partial;
  double             *gpart = red.partial + (size_t)MS_KRYLOV_NSUMS * (size_t)red.nblocks;

  kr_block_sum<NS>(v, scratch);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int j = 0; j < NS; j++) part[(size_t)b * NS + j] = v[j];
    __threadfence();
    last = atomicAdd(&red.count[g], 1u) == gsz - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
#pragma unroll
  for (int j = 0; j < NS; j++) {
    double s = 0.0;
    for (unsigned k = threadIdx.x; k < gsz; k += blockDim.x) s += __ldcg(part + (size_t)(gbeg + k) * NS + j);
    v[j] = s;
  }
  kr_block_sum<NS>(v, scratch);
  if (ng > 1) { /* the groups' sums */
    if (threadIdx.x == 0) {
#pragma unroll
      for (int j = 0; j < NS; j++) gpart[(size_t)g * NS + j] = v[j];
      red.count[g] = 0;
      __threadfence();
      last = atomicAdd(&red.count[MS_KRYLOV_MAXGROUPS], 1u) == ng - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
#pragma unroll
    for (int j = 0; j < NS; j++) {
      double s = 0.0;
      for (unsigned k = threadIdx.x; k < ng; k += blockDim.x) s += __ldcg(gpart + (size_t)k * NS + j);
      v[j] = s;
    }
    kr_block_sum<NS>(v, scratch);
    if (threadIdx.x == 0) red.count[MS_KRYLOV_MAXGROUPS] = 0;
  } else if (threadIdx.x == 0) red.count[g] = 0;
  if (threadIdx.x == 0) kr_finish(red, NS, v);
}

/* ---------------------------------------------------------------------------------------------------------- */
template <int ND>
__global__ void kr_dot_kernel(int n, MSKrylovDots d, MSKrylovReduce red)
{
  double v[ND];

  if (red.sc->done) return;
#pragma unroll
  for (int j = 0; j < ND; j++) v[j] = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
#pragma unroll
    for (int j = 0; j < ND; j++) v[j] += d.x[j][i] * d.y[j][i];
  }
  kr_reduce<ND>(v, red);
}

extern "C" MS_KRYLOV_DOT(MSKrylovDot_CUDA)
{
  const unsigned nb = kr_grid(n);
  cudaStream_t   st = (cudaStream_t)stream;

  if ((int)nb > red->nblocks) return (int)cudaErrorInvalidValue;
  switch (d->ndot) {
  case 1:
    kr_dot_kernel<1><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *d, *red);
    break;
  case 2:
    kr_dot_kernel<2><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *d, *red);
    break;
  case 3:
    kr_dot_kernel<3><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *d, *red);
    break;
  case 4:
    kr_dot_kernel<4><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *d, *red);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

/* the sums by value (several processes: their sums added over the processes), then the finish */
struct KrSums {
  double v[MS_KRYLOV_NSUMS];
};

__global__ void kr_finish_kernel(MSKrylovReduce red, int nsums, KrSums sums)
{
  kr_finish(red, nsums, sums.v);
}

extern "C" MS_KRYLOV_FINISH(MSKrylovFinish_CUDA)
{
  KrSums none = {};

  kr_finish_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(*red, 0, none);
  return (int)cudaGetLastError();
}

extern "C" MS_KRYLOV_FINISH_SUMS(MSKrylovFinishSums_CUDA)
{
  KrSums v = {};

  if (nsums < 0 || red->slot < 0 || red->slot + nsums > MS_KRYLOV_NSUMS) return (int)cudaErrorInvalidValue;
  for (int j = 0; j < nsums; j++) v.v[j] = sums[j];
  kr_finish_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(*red, nsums, v);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The products: one block per slice of min(sh lanes, 1024) threads, `lanes` consecutive threads per row (1, 2, 4, ...,
   32: MSImageView.lanes), each row's sum in the order of the matrix's own product (modsellkernels.cu: lane 0 starts
   from the diagonal term, lane j takes the slots j, j + lanes, ..., the lanes' sums added by a tree), so that y has
   the bits of MSCUDAMult()'s product of the same x. First the block forms x on the slice's own rows (what the product
   reads there: x itself, or the fused method's update) into shared memory, then walks the rows in passes of
   blockDim / lanes; a column outside the slice is formed from the same inputs with the same operations (xf()), so that
   it has the bits the neighbour's own block formed. The rows of a warp lie all inside or all outside the slice (sh is
   a multiple of 32): every thread of a warp takes part in its shuffles. */

/* the column reads of a row's slots k0, k0 + kstep, ... (< w) added to sum in that order (ms_mult_row()) */
template <bool LOCAL, class XF>
__device__ __forceinline__ double kr_row(const int *__restrict__ cp, const double *__restrict__ vp, int sh, int k0, int kstep, int w, const double *xs, const XF &xf, double sum)
{
#pragma unroll 4
  for (int k = k0; k < w; k += kstep) {
    const int    c = __ldg(cp + (long long)k * sh);
    const double a = __ldg(vp + (long long)k * sh);
    double       xv;
    if (LOCAL && c < 0) xv = xs[-c - 1];
    else xv = c > 0 ? xf(c - 1) : 0.0;
    sum += a * xv;
  }
  return sum;
}

/* the sum of row t of slice s (lane 0 gets it; valid: the row exists) */
template <bool DIAG, bool LOCAL, class XF>
__device__ __forceinline__ double kr_row_sum(int s, int t, int sh, int lane, int lanes, bool valid, int wsl, long long beg, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *xs, const XF &xf)
{
  double sum = 0.0;

  if (DIAG && valid && lane == 0) sum = diag[s * sh + t] * xs[t];
  sum = kr_row<LOCAL>(cols + beg + t, vals + beg + t, sh, lane, lanes, valid ? wsl : 0, xs, xf, sum);
  for (int off = lanes / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, lanes);
  return sum;
}

/* p = z + b p, the same operation wherever it is formed */
__device__ __forceinline__ double kr_dir(double z, double p, double b)
{
  return __fma_rn(b, p, z);
}

/* y = A x with x . y in the epilogue; DIR: x is not stored but formed as z + b pold wherever it is read (the slice's
   rows, stored to pnew, and the neighbours') */
template <bool DIAG, bool LOCAL, bool DIR>
__global__ void __launch_bounds__(1024) kr_mult_dot_kernel(int m, int sh, int lanes, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *__restrict__ x, const double *__restrict__ pold, double *__restrict__ pnew, double *__restrict__ y, MSKrylovReduce red)
{
  extern __shared__ double xs[];
  const int s = blockIdx.x, lane = threadIdx.x & (lanes - 1), step = blockDim.x / lanes;
  double    b = 0.0, v[1] = {0.0};

  if (red.sc->done) return;
  if (DIR) b = red.sc->s[MS_CG_B];
  for (int t = threadIdx.x; t < sh; t += blockDim.x) {
    const int r  = s * sh + t;
    double    xr = 0.0;
    if (r < m) {
      xr = DIR ? kr_dir(x[r], pold[r], b) : x[r];
      if (DIR) pnew[r] = xr;
    }
    xs[t] = xr;
  }
  __syncthreads();
  {
    const long long beg = sliceptr[s];
    const int       wsl = (int)((sliceptr[s + 1] - beg) / sh);
    const auto      xf  = [=](int c) { return DIR ? kr_dir(__ldg(x + c), __ldg(pold + c), b) : __ldg(x + c); };

    for (int t = threadIdx.x / lanes; t < sh; t += step) {
      const int    r = s * sh + t;
      const bool   valid = r < m;
      const double sum   = kr_row_sum<DIAG, LOCAL>(s, t, sh, lane, lanes, valid, wsl, beg, cols, vals, diag, xs, xf);
      if (lane == 0 && valid) {
        y[r] = sum;
        v[0] += xs[t] * sum;
      }
    }
  }
  kr_reduce<1>(v, red);
}

/* the fused kernels' launch: whether they apply (an image read in its own numbering, the grid within the reduction's
   capacity) */
static bool kr_fused_product(const MSImageView *A, const MSKrylovReduce *red)
{
  const int ns = A->nslices, sh = A->sh, l = A->lanes;
  return !A->perm && l >= 1 && l <= 32 && !(l & (l - 1)) && ns <= red->nblocks && ns <= MS_KRYLOV_GROUP * MS_KRYLOV_MAXGROUPS && sh >= 32 && sh <= 1024 && sh % 32 == 0;
}

/* threads per block: sh rows of `lanes` threads, at most 1024 (the block then walks its slice in passes) */
static inline int kr_threads(const MSImageView *A)
{
  return A->sh * A->lanes < 1024 ? A->sh * A->lanes : 1024;
}

template <bool DIR>
static void kr_launch_mult_dot(const MSImageView *A, const double *x, const double *pold, double *pnew, double *y, const MSKrylovReduce *red, cudaStream_t st)
{
  const int    m = A->m, sh = A->sh, ns = A->nslices, ln = A->lanes, nt = kr_threads(A);
  const bool   d = A->diag != nullptr, l = A->local_cols != 0;
  const size_t smem = (size_t)sh * sizeof(double);

  if (d && l) kr_mult_dot_kernel<true, true, DIR><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
  else if (d) kr_mult_dot_kernel<true, false, DIR><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
  else if (l) kr_mult_dot_kernel<false, true, DIR><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
  else kr_mult_dot_kernel<false, false, DIR><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
}

extern "C" MS_KRYLOV_CG_DIRECTION_MULT_DOT(MSKrylovCGDirectionMultDot_CUDA)
{
  if (A->m <= 0 || A->nslices <= 0) { /* the (empty) sum and the finish */
    MSKrylovDots dt = {1, {z}, {z}};
    return MSKrylovDot_CUDA(0, &dt, red, stream);
  }
  if (!kr_fused_product(A, red) || pnew == pold) return (int)cudaErrorInvalidValue;
  kr_launch_mult_dot<true>(A, z, pold, pnew, w, red, (cudaStream_t)stream);
  return (int)cudaGetLastError();
}

extern "C" MS_KRYLOV_MULT_DOT(MSKrylovMultDot_CUDA)
{
  MSKrylovDots dt = {1, {x}, {y}};
  int          e;

  if (A->m <= 0 || A->nslices <= 0) return MSKrylovDot_CUDA(0, &dt, red, stream); /* the (empty) sum and the finish */
  if (kr_fused_product(A, red)) {
    kr_launch_mult_dot<false>(A, x, nullptr, nullptr, y, red, (cudaStream_t)stream);
    return (int)cudaGetLastError();
  }
  /* a permuted image in the user's numbering: the matrix's own product, then the dot */
  if ((e = MSCUDAMult(A, pb, x, NULL, y, work, stream))) return e;
  return MSKrylovDot_CUDA(A->m, &dt, red, stream);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* the single reduction's step in one kernel */

/* the step's new w, r and z of a row from its r, s, w (and d) of the previous step: the same operations on the row's
   own block and wherever a neighbour reads it */
template <int PC>
__device__ __forceinline__ double kr_sr_z(double r, double s, double w, double d, double a, double b, double &rn, double &wn)
{
  wn = __fma_rn(b, w, s);   /* s + b w */
  rn = __fma_rn(-a, wn, r); /* r - a wn */
  return PC == MS_KRYLOV_PC_DIAG ? __dmul_rn(d, rn) : rn;
}

template <int PC, bool NORMR, bool DIAG, bool LOCAL>
__global__ void __launch_bounds__(1024) kr_cg_sr_kernel(int m, int sh, int lanes, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, MSKrylovCGSRVecs v, MSKrylovReduce red)
{
  extern __shared__ double zs[]; /* zn on the slice's rows, then p */
  double                  *ps = zs + sh;
  const int                s = blockIdx.x, lane = threadIdx.x & (lanes - 1), step = blockDim.x / lanes;
  const double *__restrict__ r0 = v.r;
  const double *__restrict__ s0 = v.s;
  const double *__restrict__ w0 = v.w;
  const double *__restrict__ d0 = v.d;
  double sums[5] = {0.0, 0.0, 0.0, 0.0, 0.0}; /* nn, zr, zw, zs, ps */

  if (red.sc->done) return;
  const double a = red.sc->s[MS_CG_ALPHA], b = red.sc->s[MS_CG_B];
  for (int t = threadIdx.x; t < sh; t += blockDim.x) {
    const int r  = s * sh + t;
    double    zn = 0.0, pn = 0.0;
    if (r < m) {
      const double ro = r0[r], dr = PC == MS_KRYLOV_PC_DIAG ? d0[r] : 1.0;
      const double zo = PC == MS_KRYLOV_PC_DIAG ? __dmul_rn(dr, ro) : ro; /* z of the previous step, as it formed it */
      double       rn, wn;

      pn     = kr_dir(zo, v.p[r], b);
      zn     = kr_sr_z<PC>(ro, s0[r], w0[r], dr, a, b, rn, wn);
      v.x[r] = __fma_rn(a, pn, v.x[r]);
      v.p[r] = pn;
      v.rn[r] = rn;
      v.wn[r] = wn;
      sums[0] += NORMR ? rn * rn : zn * zn;
      sums[1] += zn * rn;
      sums[2] += zn * wn;
    }
    zs[t] = zn;
    ps[t] = pn;
  }
  __syncthreads();
  {
    const long long beg = sliceptr[s];
    const int       wsl = (int)((sliceptr[s + 1] - beg) / sh);
    const auto      xf  = [=](int c) {
      double rn, wn;
      return kr_sr_z<PC>(__ldg(r0 + c), __ldg(s0 + c), __ldg(w0 + c), PC == MS_KRYLOV_PC_DIAG ? __ldg(d0 + c) : 1.0, a, b, rn, wn);
    };

    for (int t = threadIdx.x / lanes; t < sh; t += step) {
      const int    r = s * sh + t;
      const bool   valid = r < m;
      const double sum   = kr_row_sum<DIAG, LOCAL>(s, t, sh, lane, lanes, valid, wsl, beg, cols, vals, diag, zs, xf);
      if (lane == 0 && valid) {
        v.sn[r] = sum;
        sums[3] += zs[t] * sum;
        sums[4] += ps[t] * sum;
      }
    }
  }
  kr_reduce<5>(sums, red);
}

template <int PC, bool NORMR>
static void kr_launch_cg_sr(const MSImageView *A, const MSKrylovCGSRVecs *v, const MSKrylovReduce *red, cudaStream_t st)
{
  const int    m = A->m, sh = A->sh, ns = A->nslices, ln = A->lanes, nt = kr_threads(A);
  const bool   d = A->diag != nullptr, l = A->local_cols != 0;
  const size_t smem = 2 * (size_t)sh * sizeof(double);

  if (d && l) kr_cg_sr_kernel<PC, NORMR, true, true><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
  else if (d) kr_cg_sr_kernel<PC, NORMR, true, false><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
  else if (l) kr_cg_sr_kernel<PC, NORMR, false, true><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
  else kr_cg_sr_kernel<PC, NORMR, false, false><<<ns, nt, smem, st>>>(m, sh, ln, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
}

extern "C" MS_KRYLOV_CG_SR_MULT(MSKrylovCGSRMult_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if (v->pc != MS_KRYLOV_PC_NONE && v->pc != MS_KRYLOV_PC_DIAG) return (int)cudaErrorInvalidValue;
  if (v->rn == v->r || v->wn == v->w || v->sn == v->s) return (int)cudaErrorInvalidValue;
  if (A->m <= 0 || A->nslices <= 0) { /* the (empty) sums and the finish */
    const double zero[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    return MSKrylovFinishSums_CUDA(5, zero, red, stream);
  }
  if (!kr_fused_product(A, red)) return (int)cudaErrorInvalidValue;
  if (v->pc == MS_KRYLOV_PC_DIAG) {
    if (v->norm_r) kr_launch_cg_sr<MS_KRYLOV_PC_DIAG, true>(A, v, red, st);
    else kr_launch_cg_sr<MS_KRYLOV_PC_DIAG, false>(A, v, red, st);
  } else {
    if (v->norm_r) kr_launch_cg_sr<MS_KRYLOV_PC_NONE, true>(A, v, red, st);
    else kr_launch_cg_sr<MS_KRYLOV_PC_NONE, false>(A, v, red, st);
  }
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
__global__ void kr_permute_kernel(int n, const int *__restrict__ perm, int dir, const double *__restrict__ x, double *__restrict__ y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (dir == MS_KRYLOV_TO_IMAGE) y[i] = x[perm[i]];
    else y[perm[i]] = x[i];
  }
}

extern "C" MS_KRYLOV_PERMUTE(MSKrylovPermute_CUDA)
{
  if (n <= 0) return (int)cudaSuccess;
  if (x == y || !perm || (dir != MS_KRYLOV_TO_IMAGE && dir != MS_KRYLOV_TO_USER)) return (int)cudaErrorInvalidValue;
  kr_permute_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(n, perm, dir, x, y);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
__global__ void kr_cg_direction_kernel(int n, const double *__restrict__ z, double *__restrict__ p, const MSKrylovScalars *sc)
{
  if (sc->done) return;
  const double b = sc->s[MS_CG_B];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = z[i] + b * p[i];
}

extern "C" MS_KRYLOV_CG_DIRECTION(MSKrylovCGDirection_CUDA)
{
  if (n <= 0) return (int)cudaSuccess;
  kr_cg_direction_kernel<<<kr_grid(n), MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, z, p, sc);
  return (int)cudaGetLastError();
}

/* z_i = B r_i and its terms of the sums */
template <int PC, bool NORMR>
__device__ __forceinline__ double kr_z(const MSKrylovCGVecs &v, int i, double r, double &nn, double &zr)
{
  double z = r;
  if (PC == MS_KRYLOV_PC_DIAG) {
    z      = v.d[i] * r;
    v.z[i] = z;
  } else if (PC == MS_KRYLOV_PC_APPLIED) z = v.z[i];
  nn += NORMR ? r * r : z * z;
  zr += z * r;
  return z;
}

/* the sums: nn, zr, and with the single reduction zw */
template <int PC, bool SR, bool RED, bool NORMR>
__global__ void kr_cg_update_kernel(int n, MSKrylovCGVecs v, const MSKrylovScalars *sc, MSKrylovReduce red)
{
  constexpr int NS       = SR ? 3 : 2;
  double        sums[NS] = {};

  if (sc->done) return;
  const double a = sc->s[MS_CG_ALPHA], b = sc->s[MS_CG_B];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double p = v.p[i], w = v.w[i], r = v.r[i];
    if (SR) {
      const double z = PC == MS_KRYLOV_PC_NONE ? r : v.z[i];
      p              = z + b * p;
      w              = v.s[i] + b * w;
      v.p[i]         = p;
      v.w[i]         = w;
    }
    v.x[i] = v.x[i] + a * p;
    r      = r - a * w;
    v.r[i] = r;
    if (RED) {
      const double z = kr_z<PC, NORMR>(v, i, r, sums[0], sums[1]);
      if (SR) sums[NS - 1] += z * w; /* zw */
    }
  }
  if (RED) kr_reduce<NS>(sums, red);
}

template <int PC, bool SR>
static void kr_launch_update(int n, const MSKrylovCGVecs *v, const MSKrylovScalars *sc, const MSKrylovReduce *red, cudaStream_t st)
{
  const unsigned       nb = kr_grid(n);
  const MSKrylovReduce r0 = {nullptr, nullptr, nullptr, nullptr, 0, 0, 0};

  if (PC == MS_KRYLOV_PC_APPLIED) kr_cg_update_kernel<PC, SR, false, false><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *v, sc, r0);
  else if (v->norm_r) kr_cg_update_kernel<PC, SR, true, true><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *v, sc, *red);
  else kr_cg_update_kernel<PC, SR, true, false><<<nb, MS_KRYLOV_THREADS, 0, st>>>(n, *v, sc, *red);
}

extern "C" MS_KRYLOV_CG_UPDATE(MSKrylovCGUpdate_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const bool   sr = v->s != nullptr;

  if ((v->pc == MS_KRYLOV_PC_APPLIED) != (red == nullptr)) return (int)cudaErrorInvalidValue; /* sums need z */
  if (red && (int)kr_grid(n) > red->nblocks) return (int)cudaErrorInvalidValue;
  if (n <= 0 && !red) return (int)cudaSuccess;
  switch (v->pc) {
  case MS_KRYLOV_PC_NONE:
    if (sr) kr_launch_update<MS_KRYLOV_PC_NONE, true>(n, v, sc, red, st);
    else kr_launch_update<MS_KRYLOV_PC_NONE, false>(n, v, sc, red, st);
    break;
  case MS_KRYLOV_PC_DIAG:
    if (sr) kr_launch_update<MS_KRYLOV_PC_DIAG, true>(n, v, sc, red, st);
    else kr_launch_update<MS_KRYLOV_PC_DIAG, false>(n, v, sc, red, st);
    break;
  case MS_KRYLOV_PC_APPLIED:
    if (sr) kr_launch_update<MS_KRYLOV_PC_APPLIED, true>(n, v, sc, red, st);
    else kr_launch_update<MS_KRYLOV_PC_APPLIED, false>(n, v, sc, red, st);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

template <int PC, bool NORMR>
__global__ void kr_cg_residual_kernel(int n, MSKrylovCGVecs v, MSKrylovReduce red)
{
  double sums[2] = {0.0, 0.0};

  if (red.sc->done) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) kr_z<PC, NORMR>(v, i, v.r[i], sums[0], sums[1]);
  kr_reduce<2>(sums, red);
}

template <int PC>
static void kr_launch_residual(int n, const MSKrylovCGVecs *v, const MSKrylovReduce *red, cudaStream_t st)
{
  if (v->norm_r) kr_cg_residual_kernel<PC, true><<<kr_grid(n), MS_KRYLOV_THREADS, 0, st>>>(n, *v, *red);
  else kr_cg_residual_kernel<PC, false><<<kr_grid(n), MS_KRYLOV_THREADS, 0, st>>>(n, *v, *red);
}

extern "C" MS_KRYLOV_CG_RESIDUAL(MSKrylovCGResidual_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if ((int)kr_grid(n) > red->nblocks) return (int)cudaErrorInvalidValue;
  switch (v->pc) {
  case MS_KRYLOV_PC_NONE:
    kr_launch_residual<MS_KRYLOV_PC_NONE>(n, v, red, st);
    break;
  case MS_KRYLOV_PC_DIAG:
    kr_launch_residual<MS_KRYLOV_PC_DIAG>(n, v, red, st);
    break;
  case MS_KRYLOV_PC_APPLIED:
    kr_launch_residual<MS_KRYLOV_PC_APPLIED>(n, v, red, st);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

extern "C" const MSKrylovKernels MSKrylovKernels_CUDA = {"cuda", MSKrylovDot_CUDA, MSKrylovFinish_CUDA, MSKrylovFinishSums_CUDA, MSKrylovMultDot_CUDA, MSKrylovCGDirection_CUDA, MSKrylovCGDirectionMultDot_CUDA, MSKrylovCGUpdate_CUDA, MSKrylovCGResidual_CUDA, MSKrylovCGSRMult_CUDA, MSKrylovPermute_CUDA};

/* ---------------------------------------------------------------------------------------------------------- */
/* BiCGSTAB and GMRES                                                                                           */

/* The fused products of BiCGSTAB and GMRES run one thread per row (kr_row_sum1()): an image of several threads per
   row (MSImageView.lanes > 1), like a permuted image in the user's numbering, is multiplied by the matrix's own product
   (MSCUDAMult()) with a pointwise pass around it. An image read in its own numbering (perm NULL: the layer's
   image-order plan) fuses like an unpermuted one. */
static bool kr_ns_fused_product(const MSImageView *A, const MSKrylovReduce *red)
{
  return A->lanes == 1 && kr_fused_product(A, red);
}

/* the input of a product at column c: sc x_c, times dr_c on the right (a right preconditioner's diagonal) */
struct KrGather {
  const double *x, *dr;
  double        sc;
  __device__ __forceinline__ double operator()(int c) const
  {
    const double v = sc * __ldg(x + c);
    return dr ? __ldg(dr + c) * v : v;
  }
};

/* the sum of row r of slice s (one thread per row; LOCAL: the rows' own inputs in xs[], staged by the caller), in the
   order of ms_mult_kernel: the diagonal term, then the slots in order */
template <bool DIAG, bool LOCAL, class F>
__device__ __forceinline__ double kr_row_sum1(const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, int s, int t, int sh, int r, bool valid, double xr, const double *xs, const F &f)
{
  double          sum = (DIAG && valid) ? diag[r] * xr : 0.0;
  const long long beg = sliceptr[s];
  const int       w   = valid ? (int)((sliceptr[s + 1] - beg) / sh) : 0;
  const int      *cp  = cols + beg + t;
  const double   *vp  = vals + beg + t;

#pragma unroll 4
  for (int k = 0; k < w; k++) {
    const int    c = __ldg(cp + (long long)k * sh);
    const double a = __ldg(vp + (long long)k * sh);
    double       xv;
    if (LOCAL && c < 0) xv = xs[-c - 1];
    else xv = c > 0 ? f(c - 1) : 0.0;
    sum += a * xv;
  }
  return sum;
}

/* a dot operand at row r: the registers of x (before its scaling) and y when the pointer names them */
__device__ __forceinline__ double kr_operand(const double *p, const double *x, double xv, const double *y, double yv, int r)
{
  return p == x ? xv : (p == y ? yv : p[r]);
}

/* y = dl .* (A (dr .* x)) and the dots, one block per slice */
template <bool DIAG, bool LOCAL, int ND>
__global__ void __launch_bounds__(1024) kr_msd_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *x, const double *dr, const double *dl, double *y, MSKrylovDots d, MSKrylovReduce red)
{
  extern __shared__ double xs[];
  const int      sh = blockDim.x, t = threadIdx.x, s = blockIdx.x, r = s * sh + t;
  const bool     valid = r < m;
  const KrGather f     = {x, dr, 1.0};
  double         xraw = 0.0, xr = 0.0, sum, yv, v[ND];

  if (red.sc->done) return;
  if (valid) {
    xraw = x[r];
    xr   = dr ? dr[r] * xraw : xraw;
  }
  if (LOCAL) {
    xs[t] = xr;
    __syncthreads();
  }
  sum = kr_row_sum1<DIAG, LOCAL>(sliceptr, cols, vals, diag, s, t, sh, r, valid, xr, xs, f);
  yv  = (dl && valid) ? dl[r] * sum : sum;
  if (valid) y[r] = yv;
#pragma unroll
  for (int j = 0; j < ND; j++) v[j] = valid ? kr_operand(d.x[j], x, xraw, y, yv, r) * kr_operand(d.y[j], x, xraw, y, yv, r) : 0.0;
  kr_reduce<ND>(v, red);
}

/* v = d .* u (or u), the dots (v read from the registers) */
template <int ND>
__global__ void kr_scale_dots_kernel(int n, const double *u, const double *dg, double *vv, MSKrylovDots d, MSKrylovReduce red)
{
  double v[ND];

  if (red.sc->done) return;
#pragma unroll
  for (int j = 0; j < ND; j++) v[j] = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double vi = dg ? dg[i] * u[i] : u[i];
    if (dg || vv != u) vv[i] = vi;
#pragma unroll
    for (int j = 0; j < ND; j++) v[j] += kr_operand(d.x[j], nullptr, 0.0, vv, vi, i) * kr_operand(d.y[j], nullptr, 0.0, vv, vi, i);
  }
  kr_reduce<ND>(v, red);
}

template <int ND>
static void kr_launch_scale_dots(int n, const double *u, const double *dg, double *v, const MSKrylovDots *d, const MSKrylovReduce *red, cudaStream_t st)
{
  kr_scale_dots_kernel<ND><<<kr_grid(n), MS_KRYLOV_THREADS, 0, st>>>(n, u, dg, v, *d, *red);
}

extern "C" MS_KRYLOV_SCALE_DOTS(MSKrylovScaleDots_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;

  if ((int)kr_grid(n) > red->nblocks) return (int)cudaErrorInvalidValue;
  switch (dt->ndot) {
  case 1:
    kr_launch_scale_dots<1>(n, u, d, v, dt, red, st);
    break;
  case 2:
    kr_launch_scale_dots<2>(n, u, d, v, dt, red, st);
    break;
  case 3:
    kr_launch_scale_dots<3>(n, u, d, v, dt, red, st);
    break;
  case 4:
    kr_launch_scale_dots<4>(n, u, d, v, dt, red, st);
    break;
  default:
    return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

template <int ND>
static void kr_launch_msd(const MSImageView *A, const double *x, const double *dr, const double *dl, double *y, const MSKrylovDots *d, const MSKrylovReduce *red, cudaStream_t st)
{
  const int    m = A->m, sh = A->sh, ns = A->nslices;
  const bool   dg = A->diag != nullptr, l = A->local_cols != 0;
  const size_t smem = l ? (size_t)sh * sizeof(double) : 0;

  if (dg && l) kr_msd_kernel<true, true, ND><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, dr, dl, y, *d, *red);
  else if (dg) kr_msd_kernel<true, false, ND><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, dr, dl, y, *d, *red);
  else if (l) kr_msd_kernel<false, true, ND><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, dr, dl, y, *d, *red);
  else kr_msd_kernel<false, false, ND><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, dr, dl, y, *d, *red);
}

__global__ void kr_scale_kernel(int n, const double *x, const double *dr, double *y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = dr[i] * x[i];
}

extern "C" MS_KRYLOV_MULT_SCALE_DOTS(MSKrylovMultScaleDots_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const double *in = x;
  int           e;

  if (d->ndot < 1 || d->ndot > MS_KRYLOV_MAXDOTS) return (int)cudaErrorInvalidValue;
  if (A->m <= 0 || A->nslices <= 0) return MSKrylovScaleDots_CUDA(0, y, nullptr, y, d, red, stream); /* the (empty) sums and the finish */
  if (kr_ns_fused_product(A, red)) {
    switch (d->ndot) {
    case 1:
      kr_launch_msd<1>(A, x, dr, dl, y, d, red, st);
      break;
    case 2:
      kr_launch_msd<2>(A, x, dr, dl, y, d, red, st);
      break;
    case 3:
      kr_launch_msd<3>(A, x, dr, dl, y, d, red, st);
      break;
    default:
      kr_launch_msd<4>(A, x, dr, dl, y, d, red, st);
      break;
    }
    return (int)cudaGetLastError();
  }
  /* a permuted image, or several threads per row: dr .* x, the matrix's own product, then dl and the dots */
  if (dr) {
    if (!tmp || tmp == x || tmp == y) return (int)cudaErrorInvalidValue;
    kr_scale_kernel<<<kr_grid(A->m), MS_KRYLOV_THREADS, 0, st>>>(A->m, x, dr, tmp);
    in = tmp;
  }
  if ((e = MSCUDAMult(A, pb, in, NULL, y, work, stream))) return e;
  return MSKrylovScaleDots_CUDA(A->m, y, dl, y, d, red, stream);
}

/* ---- BiCGSTAB's pointwise kernels ---- */
__global__ void kr_bcgs_direction_kernel(int n, MSKrylovBCGSVecs v, const MSKrylovScalars *sc)
{
  if (sc->done) return;
  const double b = sc->s[MS_BCGS_BETA], c = -sc->s[MS_BCGS_OMEGAOLD] * b;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double p = v.r[i] + c * v.v[i] + b * v.p[i];
    v.p[i]         = p;
    if (v.tr) v.tr[i] = v.d[i] * p;
  }
}

extern "C" MS_KRYLOV_BCGS_DIRECTION(MSKrylovBCGSDirection_CUDA)
{
  if (n <= 0) return (int)cudaSuccess;
  kr_bcgs_direction_kernel<<<kr_grid(n), MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, *v, sc);
  return (int)cudaGetLastError();
}

__global__ void kr_bcgs_s_kernel(int n, MSKrylovBCGSVecs v, MSKrylovReduce red)
{
  double ss[1] = {0.0};

  if (red.sc->done) return;
  const double a = -red.sc->s[MS_BCGS_ALPHA];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double s = a * v.v[i] + v.r[i];
    v.s[i]         = s;
    ss[0] += s * s;
    if (v.tr) v.tr[i] = v.d[i] * s;
  }
  kr_reduce<1>(ss, red);
}

extern "C" MS_KRYLOV_BCGS_S(MSKrylovBCGSS_CUDA)
{
  if ((int)kr_grid(n) > red->nblocks) return (int)cudaErrorInvalidValue;
  kr_bcgs_s_kernel<<<kr_grid(n), MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, *v, *red);
  return (int)cudaGetLastError();
}

template <bool MERGED>
__global__ void kr_bcgs_update_kernel(int n, MSKrylovBCGSVecs v, MSKrylovReduce red)
{
  double sums[MERGED ? 1 : 2];

  if (red.sc->done) return;
  const double a = red.sc->s[MS_BCGS_ALPHA], w = red.sc->s[MS_BCGS_OMEGA], bn = red.sc->s[MS_BCGS_BETANEXT], c = -w * bn;
#pragma unroll
  for (int j = 0; j < (MERGED ? 1 : 2); j++) sums[j] = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double r = -w * v.t[i] + v.s[i], p = v.p[i];
    v.x[i]         = a * p + w * v.s[i] + v.x[i];
    v.r[i]         = r;
    sums[0] += r * r;
    if (!MERGED) sums[MERGED ? 0 : 1] += r * v.rp[i];
    else {
      const double pn = r + c * v.v[i] + bn * p;
      v.p[i]          = pn;
      if (v.tr) v.tr[i] = v.d[i] * pn;
    }
  }
  kr_reduce<MERGED ? 1 : 2>(sums, red);
}

extern "C" MS_KRYLOV_BCGS_UPDATE(MSKrylovBCGSUpdate_CUDA)
{
  if ((int)kr_grid(n) > red->nblocks) return (int)cudaErrorInvalidValue;
  if (merged) kr_bcgs_update_kernel<true><<<kr_grid(n), MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, *v, *red);
  else kr_bcgs_update_kernel<false><<<kr_grid(n), MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, *v, *red);
  return (int)cudaGetLastError();
}

/* s = r - alpha v formed wherever it is read (the row's own value, stored, and its neighbours': one fma, the same bits) */
struct KrSGather {
  const double *r, *v, *dr;
  double        a; /* -alpha */
  __device__ __forceinline__ double operator()(int c) const
  {
    const double s = __fma_rn(a, __ldg(v + c), __ldg(r + c));
    return dr ? __ldg(dr + c) * s : s;
  }
};

template <bool DIAG, bool LOCAL, bool MERGED>
__global__ void __launch_bounds__(1024) kr_bcgs_s_mult_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, MSKrylovBCGSVecs v, const double *dl, MSKrylovReduce red)
{
  extern __shared__ double xs[];
  const int  sh = blockDim.x, t = threadIdx.x, s = blockIdx.x, r = s * sh + t;
  const bool valid = r < m;
  double     si = 0.0, xr = 0.0, sum, ti, vals5[5];

  if (red.sc->done) return;
  const KrSGather f = {v.r, v.v, v.d, -red.sc->s[MS_BCGS_ALPHA]};
  if (valid) {
    si     = __fma_rn(f.a, v.v[r], v.r[r]);
    v.s[r] = si;
    xr     = v.d ? v.d[r] * si : si;
  }
  if (LOCAL) {
    xs[t] = xr;
    __syncthreads();
  }
  sum = kr_row_sum1<DIAG, LOCAL>(sliceptr, cols, vals, diag, s, t, sh, r, valid, xr, xs, f);
  ti  = (dl && valid) ? dl[r] * sum : sum;
  if (valid) v.t[r] = ti;
  {
    const double rp = (MERGED && valid) ? v.rp[r] : 0.0;
    vals5[0]        = valid ? si * ti : 0.0;
    vals5[1]        = valid ? ti * ti : 0.0;
    vals5[2]        = si * rp;
    vals5[3]        = ti * rp;
    vals5[4]        = valid ? si * si : 0.0;
  }
  kr_reduce<5>(vals5, red);
}

template <bool MERGED>
static void kr_launch_bcgs_s_mult(const MSImageView *A, const MSKrylovBCGSVecs *v, const double *dl, const MSKrylovReduce *red, cudaStream_t st)
{
  const int    m = A->m, sh = A->sh, ns = A->nslices;
  const bool   dg = A->diag != nullptr, l = A->local_cols != 0;
  const size_t smem = l ? (size_t)sh * sizeof(double) : 0;

  if (dg && l) kr_bcgs_s_mult_kernel<true, true, MERGED><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, dl, *red);
  else if (dg) kr_bcgs_s_mult_kernel<true, false, MERGED><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, dl, *red);
  else if (l) kr_bcgs_s_mult_kernel<false, true, MERGED><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, dl, *red);
  else kr_bcgs_s_mult_kernel<false, false, MERGED><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, dl, *red);
}

extern "C" MS_KRYLOV_BCGS_S_MULT(MSKrylovBCGSSMult_CUDA)
{
  cudaStream_t     st = (cudaStream_t)stream;
  MSKrylovBCGSVecs vs = *v;
  MSKrylovReduce   rs = *red;
  MSKrylovDots     d;
  int              e;

  if (A->m > 0 && A->nslices > 0 && kr_ns_fused_product(A, red)) {
    if (merged) kr_launch_bcgs_s_mult<true>(A, v, dl, red, st);
    else kr_launch_bcgs_s_mult<false>(A, v, dl, red, st);
    return (int)cudaGetLastError();
  }
  /* s and s.s (tr = d .* s in tmp), the matrix's own product, then dl and the dots with the finish */
  if (v->d && !tmp) return (int)cudaErrorInvalidValue;
  vs.tr     = v->d ? tmp : nullptr;
  rs.slot   = red->slot + 4;
  rs.finish = MS_KRYLOV_FINISH_NONE;
  if ((e = MSKrylovBCGSS_CUDA(A->m, &vs, &rs, stream))) return e;
  if (A->m > 0 && A->nslices > 0 && (e = MSCUDAMult(A, pb, v->d ? tmp : v->s, NULL, v->t, work, stream))) return e;
  d.ndot = merged ? 4 : 2;
  d.x[0] = v->s, d.y[0] = v->t, d.x[1] = v->t, d.y[1] = v->t, d.x[2] = v->s, d.y[2] = v->rp, d.x[3] = v->t, d.y[3] = v->rp;
  return MSKrylovScaleDots_CUDA(A->m, v->t, dl, v->t, &d, red, stream);
}

/* ---- GMRES ---- */

/* a GMRES kernel has nothing to do: after the stop, while the host's test is awaited, while a restart is due */
__device__ __forceinline__ bool kr_gm_idle(const MSKrylovScalars *sc)
{
  return sc->done || sc->awaiting || sc->s[MS_GM_RESTART] != 0.0;
}

/* column it + 1 = dl .* (A (dr .* sig[it] V[it])) */
template <bool DIAG, bool LOCAL>
__global__ void __launch_bounds__(1024) kr_gm_mult_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, MSKrylovGMRESVecs v, const MSKrylovScalars *sc)
{
  extern __shared__ double xs[];
  const int  sh = blockDim.x, t = threadIdx.x, s = blockIdx.x, r = s * sh + t;
  const bool valid = r < m;
  MSGMRESAux a;
  double     xr = 0.0, sum;

  if (kr_gm_idle(sc)) return;
  MSGMRESGetAux(sc, &a);
  const int      it = (int)sc->s[MS_GM_IT];
  const double  *u  = v.V + (long long)it * v.ld;
  double        *w  = v.V + (long long)(it + 1) * v.ld;
  const KrGather f  = {u, v.right ? v.d : nullptr, a.sig[it]};
  if (valid) xr = f(r);
  if (LOCAL) {
    xs[t] = xr;
    __syncthreads();
  }
  sum = kr_row_sum1<DIAG, LOCAL>(sliceptr, cols, vals, diag, s, t, sh, r, valid, xr, xs, f);
  if (valid) w[r] = (v.d && !v.right) ? v.d[r] * sum : sum;
}

/* a restart: column 0 = dl .* (b - A x), its sum of squares. It runs once per cycle and does nothing in the other
   steps: a grid of at most MS_KRYLOV_BLOCKS blocks, each over slices s = blockIdx.x, blockIdx.x + gridDim.x, ... (an
   idle launch costs little) */
template <bool DIAG, bool LOCAL>
__global__ void __launch_bounds__(1024) kr_gm_residual_kernel(int m, int nslices, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, MSKrylovGMRESVecs v, MSKrylovReduce red)
{
  extern __shared__ double xs[];
  const int      sh = blockDim.x, t = threadIdx.x;
  const KrGather f  = {v.x, nullptr, 1.0};
  double         ss[1] = {0.0};

  if (red.sc->done || red.sc->awaiting || red.sc->s[MS_GM_RESTART] == 0.0) return;
  for (int s = blockIdx.x; s < nslices; s += gridDim.x) {
    const int  r = s * sh + t;
    const bool valid = r < m;
    double     xr = valid ? v.x[r] : 0.0, sum;

    if (LOCAL) {
      __syncthreads(); /* the previous slice's values are read */
      xs[t] = xr;
      __syncthreads();
    }
    sum = kr_row_sum1<DIAG, LOCAL>(sliceptr, cols, vals, diag, s, t, sh, r, valid, xr, xs, f);
    if (valid) {
      double ri = -sum + v.b[r];
      if (v.d && !v.right) ri = v.d[r] * ri;
      v.V[r] = ri;
      ss[0] += ri * ri;
    }
  }
  kr_reduce<1>(ss, red);
}

/* the fallbacks' pointwise parts: tmp = (dr .*) sig[it] V[it]; column it + 1 = (dl .*) tmp2 */
__global__ void kr_gm_mult_in_kernel(int n, MSKrylovGMRESVecs v, double *tmp, const MSKrylovScalars *sc)
{
  MSGMRESAux a;

  if (kr_gm_idle(sc)) return;
  MSGMRESGetAux(sc, &a);
  const int     it = (int)sc->s[MS_GM_IT];
  const double *u  = v.V + (long long)it * v.ld, sg = a.sig[it];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double vi = sg * u[i];
    tmp[i]          = (v.d && v.right) ? v.d[i] * vi : vi;
  }
}

__global__ void kr_gm_mult_out_kernel(int n, MSKrylovGMRESVecs v, const double *tmp2, const MSKrylovScalars *sc)
{
  if (kr_gm_idle(sc)) return;
  const int it = (int)sc->s[MS_GM_IT];
  double   *w  = v.V + (long long)(it + 1) * v.ld;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) w[i] = (v.d && !v.right) ? v.d[i] * tmp2[i] : tmp2[i];
}

extern "C" MS_KRYLOV_GMRES_MULT(MSKrylovGMRESMult_CUDA)
{
  cudaStream_t   st = (cudaStream_t)stream;
  MSKrylovReduce red0;
  const int      m = A->m;
  int            e;

  if (m <= 0 || A->nslices <= 0) return (int)cudaSuccess;
  red0.nblocks = A->nslices;
  if (kr_ns_fused_product(A, &red0)) {
    const int    sh = A->sh, ns = A->nslices;
    const bool   dg = A->diag != nullptr, l = A->local_cols != 0;
    const size_t smem = l ? (size_t)sh * sizeof(double) : 0;

    if (dg && l) kr_gm_mult_kernel<true, true><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, sc);
    else if (dg) kr_gm_mult_kernel<true, false><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, sc);
    else if (l) kr_gm_mult_kernel<false, true><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, sc);
    else kr_gm_mult_kernel<false, false><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, *v, sc);
    return (int)cudaGetLastError();
  }
  /* a permuted image or several threads per row: the input into tmp, the matrix's product into tmp + n (the column it
     writes is known on the device only), then the column */
  if (!tmp) return (int)cudaErrorInvalidValue;
  kr_gm_mult_in_kernel<<<kr_grid(m), MS_KRYLOV_THREADS, 0, st>>>(m, *v, tmp, sc);
  if ((e = MSCUDAMult(A, pb, tmp, NULL, tmp + m, work, stream))) return e;
  kr_gm_mult_out_kernel<<<kr_grid(m), MS_KRYLOV_THREADS, 0, st>>>(m, *v, tmp + m, sc);
  return (int)cudaGetLastError();
}

/* column 0 = dl .* (b - t) (or dl .* b), its sum of squares; only when a restart is due (unless start) */
__global__ void kr_gm_residual_vec_kernel(int n, MSKrylovGMRESVecs v, const double *b, const double *t, int start, MSKrylovReduce red)
{
  double ss[1] = {0.0};

  if (!start && (red.sc->done || red.sc->awaiting || red.sc->s[MS_GM_RESTART] == 0.0)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double ri = t ? -t[i] + b[i] : b[i];
    if (v.d && !v.right) ri = v.d[i] * ri;
    v.V[i] = ri;
    ss[0] += ri * ri;
  }
  kr_reduce<1>(ss, red);
}

extern "C" MS_KRYLOV_GMRES_RESIDUAL_VEC(MSKrylovGMRESResidualVec_CUDA)
{
  if ((int)kr_grid(n) > red->nblocks) return (int)cudaErrorInvalidValue;
  kr_gm_residual_vec_kernel<<<kr_grid(n), MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, *v, b, t, start, *red);
  return (int)cudaGetLastError();
}

extern "C" MS_KRYLOV_GMRES_RESIDUAL(MSKrylovGMRESResidual_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    m  = A->m;
  int          e;

  if (m <= 0 || A->nslices <= 0) return MSKrylovGMRESResidualVec_CUDA(0, v, v->b, nullptr, 0, red, stream);
  if (kr_ns_fused_product(A, red)) {
    const int    sh = A->sh, ns = A->nslices;
    const bool   dg = A->diag != nullptr, l = A->local_cols != 0;
    const size_t smem = l ? (size_t)sh * sizeof(double) : 0;

    const unsigned nb = (unsigned)(ns < MS_KRYLOV_BLOCKS ? ns : MS_KRYLOV_BLOCKS);

    if (dg && l) kr_gm_residual_kernel<true, true><<<nb, sh, smem, st>>>(m, ns, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
    else if (dg) kr_gm_residual_kernel<true, false><<<nb, sh, smem, st>>>(m, ns, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
    else if (l) kr_gm_residual_kernel<false, true><<<nb, sh, smem, st>>>(m, ns, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
    else kr_gm_residual_kernel<false, false><<<nb, sh, smem, st>>>(m, ns, A->sliceptr, A->cols, A->vals, A->diag, *v, *red);
    return (int)cudaGetLastError();
  }
  if (!tmp) return (int)cudaErrorInvalidValue;
  if ((e = MSCUDAMult(A, pb, v->x, NULL, tmp, work, stream))) return e; /* reads x only */
  return MSKrylovGMRESResidualVec_CUDA(m, v, v->b, tmp, 0, red, stream);
}

/* the multiple dots: each block accumulates up to MS_KRYLOV_GMRES_CHUNK dots at a time in registers (w read once per
   chunk), stores its block sums at partial[j nb + b]; the last block adds them over the blocks in block order, one warp
   per dot, into lhh[], and runs the finish */
__global__ void kr_gm_mdot_kernel(int n, MSKrylovGMRESVecs v, int pass, MSKrylovReduce red)
{
  constexpr int          J = MS_KRYLOV_GMRES_CHUNK;
  __shared__ double      scratch[33];
  __shared__ unsigned    last;
  const MSKrylovScalars *sc = red.sc;
  const unsigned         nb = gridDim.x;
  MSGMRESAux             a;

  if (kr_gm_idle(sc) || (pass && sc->s[MS_GM_REFINE] == 0.0)) return;
  MSGMRESGetAux(sc, &a);
  const int     it = (int)sc->s[MS_GM_IT], nv = it + 1;
  const double  sw = (pass || v.wscaled) ? 1.0 : a.sig[it];
  const double *w  = v.V + (long long)(it + 1) * v.ld;
  for (int c0 = 0; c0 < nv; c0 += J) {
    double acc[J];
#pragma unroll
    for (int j = 0; j < J; j++) acc[j] = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
      const double wi = sw * w[i];
#pragma unroll
      for (int j = 0; j < J; j++)
        if (c0 + j < nv) acc[j] += v.V[(long long)(c0 + j) * v.ld + i] * wi;
    }
#pragma unroll
    for (int j = 0; j < J; j++)
      if (c0 + j < nv) { /* uniform over the block; the vector's scale applied to the block's sum (fewer registers) */
        const double bs = ms_block_reduce<MSOpSum>(acc[j], scratch);
        if (threadIdx.x == 0) v.partial[(size_t)(c0 + j) * MS_KRYLOV_BLOCKS + blockIdx.x] = a.sig[c0 + j] * bs;
      }
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&red.count[0], 1u) == nb - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int j = wid; j <= a.m; j += nw) {
      double s = 0.0;
      if (j < nv)
        for (unsigned b = lane; b < nb; b += 32) s += __ldcg(v.partial + (size_t)j * MS_KRYLOV_BLOCKS + b);
      s = ms_warp_reduce<MSOpSum>(s);
      if (lane == 0) a.lhh[j] = s;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    red.count[0] = 0;
    __threadfence();
    if (red.finish) MSKrylovFinish(red.finish, red.sc, red.hist);
  }
}

extern "C" MS_KRYLOV_GMRES_MDOT(MSKrylovGMRESMDot_CUDA)
{
  const unsigned nb = kr_grid(n);

  if (!v->partial || v->m < 1 || v->m > MS_KRYLOV_GMRES_MAXK) return (int)cudaErrorInvalidValue;
  kr_gm_mdot_kernel<<<nb, MS_KRYLOV_THREADS, 0, (cudaStream_t)stream>>>(n, *v, pass, *red);
  return (int)cudaGetLastError();
}

/* V[it + 1] = s_w V[it + 1] - sum_j lhh[j] sig[j] V[j] and its sum of squares (the coefficients in shared memory) */
__global__ void kr_gm_maxpy_kernel(int n, MSKrylovGMRESVecs v, int pass, MSKrylovReduce red)
{
  extern __shared__ double coef[]; /* -lhh[j], sig[j] */
  const MSKrylovScalars   *sc = red.sc;
  MSGMRESAux               a;
  double                   ss[1] = {0.0};

  if (kr_gm_idle(sc) || (pass && sc->s[MS_GM_REFINE] == 0.0)) return;
  MSGMRESGetAux(sc, &a);
  const int    it = (int)sc->s[MS_GM_IT], nv = it + 1;
  const double sw = (pass || v.wscaled) ? 1.0 : a.sig[it];
  double      *w  = v.V + (long long)(it + 1) * v.ld;
  for (int j = threadIdx.x; j < nv; j += blockDim.x) {
    coef[j]          = -a.lhh[j];
    coef[a.m + 1 + j] = a.sig[j];
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double acc = sw * w[i];
    for (int j = 0; j < nv; j++) acc += coef[j] * (coef[a.m + 1 + j] * v.V[(long long)j * v.ld + i]);
    w[i] = acc;
    ss[0] += acc * acc;
  }
  kr_reduce<1>(ss, red);
}

extern "C" MS_KRYLOV_GMRES_MAXPY(MSKrylovGMRESMAXPY_CUDA)
{
  const unsigned nb = kr_grid(n);

  if ((int)nb > red->nblocks || v->m < 1 || v->m > MS_KRYLOV_GMRES_MAXK) return (int)cudaErrorInvalidValue;
  kr_gm_maxpy_kernel<<<nb, MS_KRYLOV_THREADS, sizeof(double) * 2 * (size_t)(v->m + 1), (cudaStream_t)stream>>>(n, *v, pass, *red);
  return (int)cudaGetLastError();
}

/* the update x += (dr .*) V y, t = V y, or x += t */
__global__ void kr_gm_update_kernel(int n, MSKrylovGMRESVecs v, int mode, int force, const MSKrylovScalars *sc)
{
  extern __shared__ double coef[]; /* nrs[j] and sig[j] */
  MSGMRESAux               a;

  if (sc->s[MS_GM_UPDATE] == 0.0 || (!force && (sc->done || sc->awaiting))) return;
  MSGMRESGetAux(sc, &a);
  const int ns = (int)sc->s[MS_GM_NSOL];
  for (int j = threadIdx.x; j < ns; j += blockDim.x) {
    coef[j]           = a.nrs[j];
    coef[a.m + 1 + j] = a.sig[j];
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double acc = 0.0;
    if (mode == 2) {
      v.x[i] += v.t[i];
      continue;
    }
    for (int j = 0; j < ns; j++) acc += coef[j] * (coef[a.m + 1 + j] * v.V[(long long)j * v.ld + i]);
    if (mode == 1) v.t[i] = acc;
    else v.x[i] += (v.d && v.right) ? v.d[i] * acc : acc;
  }
}

extern "C" MS_KRYLOV_GMRES_UPDATE(MSKrylovGMRESUpdate_CUDA)
{
  if (n <= 0) return (int)cudaSuccess;
  if (mode < 0 || mode > 2) return (int)cudaErrorInvalidValue;
  if (v->m < 1 || v->m > MS_KRYLOV_GMRES_MAXK) return (int)cudaErrorInvalidValue;
  kr_gm_update_kernel<<<kr_grid(n), MS_KRYLOV_THREADS, sizeof(double) * 2 * (size_t)(v->m + 1), (cudaStream_t)stream>>>(n, *v, mode, force, sc);
  return (int)cudaGetLastError();
}

extern "C" const MSKrylovNSKernels MSKrylovNSKernels_CUDA = {"cuda", MSKrylovMultScaleDots_CUDA, MSKrylovScaleDots_CUDA, MSKrylovBCGSDirection_CUDA, MSKrylovBCGSS_CUDA, MSKrylovBCGSUpdate_CUDA, MSKrylovGMRESMult_CUDA, MSKrylovGMRESResidual_CUDA, MSKrylovGMRESResidualVec_CUDA, MSKrylovGMRESMDot_CUDA, MSKrylovGMRESMAXPY_CUDA, MSKrylovGMRESUpdate_CUDA, MSKrylovBCGSSMult_CUDA};
