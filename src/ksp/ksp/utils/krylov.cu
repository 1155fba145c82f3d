/*
   CUDA kernels of the device-resident Krylov methods (include/petscmodsell/private/krylovkernels.h), on the stream
   given; the same functions as krylov_reference.c.

   Every kernel reads sc->done first and returns at once when it is set (the whole grid alike: only the last block of
   a kernel's reduction writes it, after every block has read it). A reduction (kr_reduce) is finished in the same
   kernel: each block adds its threads' terms (warp shuffles, then the warps), thread 0 stores the block's sums and
   counts the block in its group's counter; the last block of a group adds the group's partial sums in block order,
   the last group adds the groups' sums in group order, stores the totals in sc->sum[slot...] and runs the step's
   finish (MSKrylovFinish()) on one thread; every counter it used is zeroed again for the next kernel (and the next
   replay of a CUDA graph). The order of the additions is fixed by the grid, not by the blocks' timing: the results are
   the same at every run.
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

/* the reduction of NS values over the grid and the finish (see above); every thread of every block calls it */
template <int NS>
__device__ __forceinline__ void kr_reduce(double (&v)[NS], const MSKrylovReduce &red)
{
  __shared__ double   scratch[33];
  __shared__ unsigned last;
  const unsigned      nb = gridDim.x, b = blockIdx.x, G = MS_KRYLOV_GROUP;
  const unsigned      ng = (nb + G - 1) / G, g = b / G, gbeg = g * G, gsz = min(G, nb - gbeg);
  double             *part  = red.partial;
  double             *gpart = red.partial + (size_t)MS_KRYLOV_NSUMS * (size_t)red.nblocks;

#pragma unroll
  for (int j = 0; j < NS; j++) v[j] = ms_block_reduce<MSOpSum>(v[j], scratch);
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
    v[j] = ms_block_reduce<MSOpSum>(s, scratch);
  }
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
      v[j] = ms_block_reduce<MSOpSum>(s, scratch);
    }
    if (threadIdx.x == 0) red.count[MS_KRYLOV_MAXGROUPS] = 0;
  } else if (threadIdx.x == 0) red.count[g] = 0;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int j = 0; j < NS; j++) red.sc->sum[red.slot + j] = v[j];
    if (red.finish) MSKrylovFinish(red.finish, red.sc, red.hist);
  }
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

__global__ void kr_finish_kernel(MSKrylovReduce red)
{
  MSKrylovFinish(red.finish, red.sc, red.hist);
}

extern "C" MS_KRYLOV_FINISH(MSKrylovFinish_CUDA)
{
  kr_finish_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(*red);
  return (int)cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* y = A x with x . y in the epilogue: one block of sh threads per slice, one thread per row, the row's sum in the
   order of ms_mult_kernel (modsellkernels.cu: the diagonal term, then the slots in order), so that y has the bits of
   MSCUDAMult()'s product; an unpermuted image with one thread per row (MSImageView.lanes == 1). DIR: x is not stored
   but formed as z + b pold wherever it is read (the row's own value, stored to pnew, and the neighbours'). */
template <bool DIAG, bool LOCAL, bool DIR>
__global__ void __launch_bounds__(1024) kr_mult_dot_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const double *__restrict__ x, const double *__restrict__ pold, double *__restrict__ pnew, double *__restrict__ y, MSKrylovReduce red)
{
  extern __shared__ double xs[];
  const int  sh = blockDim.x, t = threadIdx.x, s = blockIdx.x, r = s * sh + t;
  const bool valid = r < m;
  double     sum = 0.0, xr = 0.0, b = 0.0, v[1];

  if (red.sc->done) return;
  if (DIR) b = red.sc->s[MS_CG_B];
  if (valid) {
    xr = DIR ? x[r] + b * pold[r] : x[r];
    if (DIR) pnew[r] = xr;
  }
  if (LOCAL) {
    xs[t] = xr;
    __syncthreads();
  }
  if (DIAG && valid) sum = diag[r] * xr;
  {
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
      else if (DIR) xv = c > 0 ? __ldg(x + (c - 1)) + b * __ldg(pold + (c - 1)) : 0.0;
      else xv = c > 0 ? __ldg(x + (c - 1)) : 0.0;
      sum += a * xv;
    }
  }
  if (valid) y[r] = sum;
  v[0] = valid ? xr * sum : 0.0;
  kr_reduce<1>(v, red);
}

/* the fused kernel's launch: whether it applies (an unpermuted image, one thread per row, the grid within the
   reduction's capacity), and the launch on the image's encoding */
static bool kr_fused_product(const MSImageView *A, const MSKrylovReduce *red)
{
  const int ns = A->nslices, sh = A->sh;
  return !A->perm && A->lanes == 1 && ns <= red->nblocks && ns <= MS_KRYLOV_GROUP * MS_KRYLOV_MAXGROUPS && sh >= 32 && sh <= 1024 && sh % 32 == 0;
}

template <bool DIR>
static void kr_launch_mult_dot(const MSImageView *A, const double *x, const double *pold, double *pnew, double *y, const MSKrylovReduce *red, cudaStream_t st)
{
  const int    m = A->m, sh = A->sh, ns = A->nslices;
  const bool   d = A->diag != nullptr, l = A->local_cols != 0;
  const size_t smem = l ? (size_t)sh * sizeof(double) : 0;

  if (d && l) kr_mult_dot_kernel<true, true, DIR><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
  else if (d) kr_mult_dot_kernel<true, false, DIR><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
  else if (l) kr_mult_dot_kernel<false, true, DIR><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
  else kr_mult_dot_kernel<false, false, DIR><<<ns, sh, smem, st>>>(m, A->sliceptr, A->cols, A->vals, A->diag, x, pold, pnew, y, *red);
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
  /* a permuted image, or several threads per row: the matrix's own product, then the dot */
  if ((e = MSCUDAMult(A, pb, x, NULL, y, work, stream))) return e;
  return MSKrylovDot_CUDA(A->m, &dt, red, stream);
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
__device__ __forceinline__ void kr_z(const MSKrylovCGVecs &v, int i, double r, double &nn, double &zr)
{
  double z = r;
  if (PC == MS_KRYLOV_PC_DIAG) {
    z      = v.d[i] * r;
    v.z[i] = z;
  } else if (PC == MS_KRYLOV_PC_APPLIED) z = v.z[i];
  nn += NORMR ? r * r : z * z;
  zr += z * r;
}

template <int PC, bool SR, bool RED, bool NORMR>
__global__ void kr_cg_update_kernel(int n, MSKrylovCGVecs v, const MSKrylovScalars *sc, MSKrylovReduce red)
{
  double sums[2] = {0.0, 0.0};

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
    if (RED) kr_z<PC, NORMR>(v, i, r, sums[0], sums[1]);
  }
  if (RED) kr_reduce<2>(sums, red);
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

extern "C" const MSKrylovKernels MSKrylovKernels_CUDA = {"cuda", MSKrylovDot_CUDA, MSKrylovFinish_CUDA, MSKrylovMultDot_CUDA, MSKrylovCGDirection_CUDA, MSKrylovCGDirectionMultDot_CUDA, MSKrylovCGUpdate_CUDA, MSKrylovCGResidual_CUDA};
