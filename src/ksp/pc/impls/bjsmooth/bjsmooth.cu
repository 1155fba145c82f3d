/*
   CUDA kernels of PCBJSMOOTH (see include/petscmodsell/private/bjsmoothkernels.h for the function computed; the
   host reference bjsmooth_reference.c computes the same).
   One thread block per slice of the mod-SELL image, one thread per row, modelled on the SpMV kernel
   (src/mat/impls/modsell/cuda/modsellkernels.cu): the slice's window of x in shared memory, each thread
   walking its row's interleaved slots. The local system (Wikberg (2024), section 4.3.1) stays in the block:
   the right-hand side in registers, the in-slice coefficients in shared memory (ELLPACK, eq. 4.15) or,
   in the fallback, read again from the image in global memory; the inner sweeps exchange the iterate
   through the shared window.
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/bjsmoothkernels.h>
#include <petscmodsell/private/modsellcuda.h>

#define BJS_RED MS_BJS_RED

/* sum over the block, returned to every thread (the scratch is reused: the leading barrier protects it) */
__device__ static inline double bjs_block_sum(double v, double *red)
{
  return ms_block_reduce<MSOpSum>(v, red);
}

/* in-slice off-diagonal part of row t times the window v */
template <bool SHARED>
__device__ static inline double bjs_local_off(int t, int sh, int nn, const double *lv, const int *lc, const int *__restrict__ cols, const double *__restrict__ vals, long long beg, int w, const double *v)
{
  double sum = 0.0;
  if (SHARED) {
    for (int j = 0; j < nn; j++) sum += lv[j * sh + t] * v[lc[j * sh + t]];
  } else {
    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * sh + t;
      const int       c    = __ldg(cols + slot);
      if (c < 0) sum += __ldg(vals + slot) * v[-c - 1];
    }
  }
  return sum;
}

/* qx: where image row r's values of b, offp and xin lie (NULL: at r; a permuted image: perm, or the bucket positions
   of MSPermBuckets with the inputs scattered into their buckets), and where an off-slice code c's value of xin lies
   (qx[c - 1]); py: where row r's result goes (NULL: r; perm, or the bucket position of its user row) */
template <int INNER, bool SHARED, bool ASYNC>
__global__ void __launch_bounds__(1024) bjs_sweep_kernel(int m, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const int *__restrict__ qx, const int *__restrict__ py, int nloc, int inner_its, double rtol, const double *__restrict__ cheb, int zero, const double *__restrict__ b, const double *__restrict__ offp, const double *xin, double *xout)
{
  extern __shared__ double smem[];
  const int  sh = blockDim.x, t = threadIdx.x, s = blockIdx.x;
  const int  r     = s * sh + t;
  const bool valid = r < m;
  const int  o     = valid ? (qx ? __ldg(qx + r) : r) : 0;
  double    *win   = smem;                   /* sh: x window, then the inner iterate (or CG direction) */
  double    *red   = smem + sh;              /* BJS_RED */
  double    *lv    = smem + sh + BJS_RED;    /* nloc * sh (SHARED) */
  int       *lc    = (int *)(lv + (size_t)nloc * sh);
  double     xi    = 0.0;

  (void)lv;
  (void)lc;
  if (!zero && valid) xi = ASYNC ? __ldcg(xin + o) : xin[o];
  win[t] = xi;
  __syncthreads();

  /* local right-hand side (eq. 4.8) and the local matrix */
  const long long beg = sliceptr[s];
  const int       w   = valid ? (int)((sliceptr[s + 1] - beg) / sh) : 0;
  const double    d   = valid ? diag[r] : 1.0;
  const double    di  = 1.0 / d; /* the sweeps multiply by the inverse (one division per row, not per sweep) */
  double          acc = 0.0;
  int             nn  = 0;
  if (valid) {
    acc = b[o];
    if (offp) acc -= offp[o];
    if (!zero) acc -= d * xi;
    /* from a zero guess (the preconditioner's case) only the in-slice values are needed: the others are
       not read, so the pass moves the column codes and the local block instead of the whole image */
#pragma unroll 4
    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * sh + t;
      const int       c    = __ldg(cols + slot);
      if (c < 0) {
        const double v = __ldg(vals + slot);
        if (SHARED) {
          lc[nn * sh + t] = -c - 1;
          lv[nn * sh + t] = v;
        }
        nn++;
        if (!zero) acc -= v * win[-c - 1];
      } else if (c > 0 && !zero) {
        const int j = qx ? __ldg(qx + (c - 1)) : c - 1; /* MS_CODE_COL() (qx = perm), or the bucket position */
        acc -= __ldg(vals + slot) * (ASYNC ? __ldcg(xin + j) : __ldg(xin + j));
      }
    }
  }
  const double rl = acc;
  double       y  = 0.0;
  __syncthreads(); /* the x window has been read */

  if (INNER == MS_BJS_INNER_CG) {
    double p = rl, res = rl;
    win[t]   = p;
    double rr = bjs_block_sum(rl * rl, red);
    const double tol2 = rtol * rtol * rr;
    for (int it = 0; it < inner_its; it++) {
      if (rr == 0.0 || (rtol > 0.0 && rr <= tol2)) break;
      const double q  = d * p + bjs_local_off<SHARED>(t, sh, nn, lv, lc, cols, vals, beg, w, win);
      const double pq = bjs_block_sum(p * q, red);
      if (!(pq > 0.0)) break;
      const double alpha = rr / pq;
      y += alpha * p;
      res -= alpha * q;
      const double rrn  = bjs_block_sum(res * res, red);
      const double beta = rrn / rr;
      rr                = rrn;
      p                 = res + beta * p;
      win[t]            = p;
      __syncthreads();
    }
  } else {
    double tol2 = 0.0;
    win[t]      = 0.0;
    if (rtol > 0.0) tol2 = rtol * rtol * bjs_block_sum(rl * rl, red);
    else __syncthreads();
    if (INNER == MS_BJS_INNER_JACOBI) {
      for (int it = 0; it < inner_its; it++) {
        const double sm = bjs_local_off<SHARED>(t, sh, nn, lv, lc, cols, vals, beg, w, win);
        if (rtol > 0.0) {
          const double res = (rl - sm) - d * y;
          if (bjs_block_sum(valid ? res * res : 0.0, red) <= tol2) break;
        }
        const double yn = (rl - sm) * di;
        __syncthreads();
        win[t] = yn;
        y      = yn;
        __syncthreads();
      }
    } else if (INNER == MS_BJS_INNER_CHEBY) { /* bjsmoothkernels.h, MSBJSChebTable(): the reference's order of operations */
      double yp   = 0.0; /* y_{j-1} */
      int    done = 0;
      for (int it = 0; it < inner_its; it++) {
        const double sm = bjs_local_off<SHARED>(t, sh, nn, lv, lc, cols, vals, beg, w, win);
        if (rtol > 0.0) {
          const double res = (rl - sm) - d * y;
          if (bjs_block_sum(valid ? res * res : 0.0, red) <= tol2) break;
        }
        const double res = (rl - sm) * di - y;
        const double yn  = __ldg(cheb + 3 * it) * (__ldg(cheb + 3 * it + 1) * res + y - yp) + yp;
        yp               = y;
        __syncthreads();
        win[t] = yn;
        y      = yn;
        __syncthreads();
        done = it + 1;
      }
      if (done) y *= __ldg(cheb + 3 * (done - 1) + 2);
    } else { /* warp-serialised Gauss-Seidel (eq. 4.14): warps in order, Jacobi inside a warp */
      const int nw = sh >> 5, wid = t >> 5;
      /* the group g of 32 rows takes a Jacobi step with the newest values of the others */
      auto group = [&](int g) {
        if (wid == g) {
          const double sm = bjs_local_off<SHARED>(t, sh, nn, lv, lc, cols, vals, beg, w, win);
          const double yn = (rl - sm) * di;
          __syncwarp();
          win[t] = yn;
          y      = yn;
        }
        __syncthreads();
      };
      for (int it = 0; it < inner_its; it++) {
        for (int g = 0; g < nw; g++) group(g);
        if (INNER == MS_BJS_INNER_SGS)
          for (int g = nw - 1; g >= 0; g--) group(g);
        if (rtol > 0.0) {
          const double sm  = bjs_local_off<SHARED>(t, sh, nn, lv, lc, cols, vals, beg, w, win);
          const double res = (rl - sm) - d * y;
          if (bjs_block_sum(valid ? res * res : 0.0, red) <= tol2) break;
        }
      }
    }
  }
  if (valid) {
    xout[py ? __ldg(py + r) : r] = xi + y; /* eq. 4.9 */
    if (ASYNC) __threadfence();
  }
}

template <int INNER, bool SHARED>
static void bjs_launch(const MSImageView *img, const int *qx, const int *py, int inner_its, double rtol, const double *cheb, int nloc, size_t smem, int zero, int async, const double *b, const double *offp, const double *xin, double *xout, cudaStream_t st)
{
  if (async) bjs_sweep_kernel<INNER, SHARED, true><<<img->nslices, img->sh, smem, st>>>(img->m, img->sliceptr, img->cols, img->vals, img->diag, qx, py, nloc, inner_its, rtol, cheb, zero, b, offp, xin, xout);
  else bjs_sweep_kernel<INNER, SHARED, false><<<img->nslices, img->sh, smem, st>>>(img->m, img->sliceptr, img->cols, img->vals, img->diag, qx, py, nloc, inner_its, rtol, cheb, zero, b, offp, xin, xout);
}

extern "C" MS_BJS_SWEEP(MSBJSSweep_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  const int    m  = img->m;
  /* the bucketed permutation (not in asynchronous mode: there xin is xout, read while other blocks write it) */
  const bool   bk = MS_BJS_BUCKETED(img, pb, work) && !async;
  const int   *qx = bk ? pb->qx : img->perm, *py = bk ? pb->py : img->perm;
  double      *yo = bk ? work : xout;
  const double *bi = b, *oi = offp, *xi = xin;
  int          err;

  if (m <= 0 || img->nslices <= 0) return (int)cudaSuccess;
  if (bk) { /* b, offp, xin into their buckets: work + m, + 2m, ... (work: the results in their buckets) */
    double *w = work + m;
    if ((err = MSCUDABucketScatter(m, pb->px, b, w, stream))) return err;
    bi = w;
    w += m;
    if (offp) {
      if ((err = MSCUDABucketScatter(m, pb->px, offp, w, stream))) return err;
      oi = w;
      w += m;
    }
    if (!zero) {
      if ((err = MSCUDABucketScatter(m, pb->px, xin, w, stream))) return err;
      xi = w;
    }
  }
  switch (inner) {
#define BJS_CASE(I) \
  case I: \
    if (use_shared) bjs_launch<I, true>(img, qx, py, inner_its, inner_rtol, cheb, nloc, smem, zero, async, bi, oi, xi, yo, st); \
    else bjs_launch<I, false>(img, qx, py, inner_its, inner_rtol, cheb, nloc, smem, zero, async, bi, oi, xi, yo, st); \
    break;
    BJS_CASE(MS_BJS_INNER_JACOBI)
    BJS_CASE(MS_BJS_INNER_GS)
    BJS_CASE(MS_BJS_INNER_SGS)
    BJS_CASE(MS_BJS_INNER_CHEBY)
    BJS_CASE(MS_BJS_INNER_CG)
#undef BJS_CASE
  default:
    return (int)cudaErrorInvalidValue;
  }
  if ((err = (int)cudaGetLastError())) return err;
  return bk ? MSCUDABucketGather(m, pb->qy, work, NULL, xout, stream) : (int)cudaSuccess;
}

template <int INNER>
static cudaError_t bjs_raise_limit(int bytes)
{
  cudaError_t err;
  if ((err = cudaFuncSetAttribute(bjs_sweep_kernel<INNER, true, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))) return err;
  return cudaFuncSetAttribute(bjs_sweep_kernel<INNER, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

extern "C" MS_BJS_CONFIGURE(MSBJSConfigure_CUDA)
{
  const size_t base = ((size_t)sh + BJS_RED) * sizeof(double);
  const size_t need = base + (size_t)nloc * sh * (sizeof(double) + sizeof(int));
  int          dev, optin = 0;
  cudaError_t  err;

  *smem_needed = need;
  if ((err = cudaGetDevice(&dev))) return (int)err;
  if ((err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev))) return (int)err;
  *smem_optin = (size_t)optin;
  if (!force_global && need <= (size_t)optin) {
    *use_shared = 1;
    *smem       = need;
    if (need > 48 * 1024) { /* beyond the default limit: opt in (Wikberg (2024), after eq. 4.15). The limit is the kernel's,
                               shared by every PCBJSMOOTH (e.g. one per GAMG level): raised to the device's opt-in
                               maximum, so that a later configuration needing less does not lower it under an earlier
                               one's launches (a level's sweep then failed with "invalid argument") */
      switch (inner) {
      case MS_BJS_INNER_JACOBI:
        err = bjs_raise_limit<MS_BJS_INNER_JACOBI>(optin);
        break;
      case MS_BJS_INNER_GS:
        err = bjs_raise_limit<MS_BJS_INNER_GS>(optin);
        break;
      case MS_BJS_INNER_SGS:
        err = bjs_raise_limit<MS_BJS_INNER_SGS>(optin);
        break;
      case MS_BJS_INNER_CHEBY:
        err = bjs_raise_limit<MS_BJS_INNER_CHEBY>(optin);
        break;
      default:
        err = bjs_raise_limit<MS_BJS_INNER_CG>(optin);
      }
      if (err) return (int)err;
    }
  } else { /* the fallback: coefficients read from global memory, only the window and the scratch shared */
    *use_shared = 0;
    *smem       = base;
  }
  return (int)cudaSuccess;
}

/* one thread per image row: in-slice entries of the row (max over rows), the smallest user row whose
   diagonal entry is not positive and the smallest user row holding a non-finite value */
__global__ void bjs_analyze_kernel(int m, int sh, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const int *__restrict__ perm, MSBJSStatus *status)
{
  const int          r   = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int       cnt = 0;
  unsigned long long bad = MS_BJS_BAD_NONE, badv = MS_BJS_BAD_NONE;
  double             g   = 0.0; /* sum of |in-slice entries| / diagonal */
  if (r < m) {
    const int       s = r / sh, t = r - s * sh;
    const long long beg = sliceptr[s];
    const int       w   = (int)((sliceptr[s + 1] - beg) / sh);
    bool            fin = diag ? isfinite(diag[r]) : true;
    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * sh + t;
      if (cols[slot] < 0) {
        cnt++;
        g += fabs(vals[slot]);
      }
      if (!isfinite(vals[slot])) fin = false;
    }
    g = diag && diag[r] > 0.0 && isfinite(diag[r]) ? g / diag[r] : 0.0;
    if (!isfinite(g)) g = 0.0; /* a non-finite value: reported as badval */
    if (diag && !(diag[r] > 0.0)) bad = (unsigned long long)(perm ? perm[r] : r);
    if (!fin) badv = (unsigned long long)(perm ? perm[r] : r);
  }
  cnt  = ms_warp_reduce<MSOpMax>(cnt);
  bad  = ms_warp_reduce<MSOpMin>(bad);
  badv = ms_warp_reduce<MSOpMin>(badv);
  g    = ms_warp_reduce<MSOpMax>(g);
  if ((threadIdx.x & 31) == 0) {
    if (g > 0.0) atomicMax(&status->gersh, (unsigned long long)__double_as_longlong(g)); /* nonnegative: bits order as values */
    if (cnt) atomicMax(&status->maxloc, (unsigned long long)cnt);
    if (bad != MS_BJS_BAD_NONE) atomicMin(&status->badrow, bad);
    if (badv != MS_BJS_BAD_NONE) atomicMin(&status->badval, badv);
  }
}

extern "C" MS_BJS_ANALYZE(MSBJSAnalyze_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;
  if ((err = cudaMemsetAsync(&status->maxloc, 0, sizeof(unsigned long long), st))) return (int)err;
  if ((err = cudaMemsetAsync(&status->badrow, 0xff, 2 * sizeof(unsigned long long), st))) return (int)err;
  if ((err = cudaMemsetAsync(&status->gersh, 0, sizeof(unsigned long long), st))) return (int)err;
  if (img->m <= 0) return (int)cudaSuccess;
  bjs_analyze_kernel<<<(img->m + 255) / 256, 256, 0, st>>>(img->m, img->sh, img->sliceptr, img->cols, img->vals, img->diag, img->perm, status);
  return (int)cudaGetLastError();
}

/* one thread block per sampled slice (slice blockIdx.x * stride), one thread per row: each nonzero in-slice entry against
   its transpose, found by scanning the other row's slots (the same scan and test as MSBJSSymmetry_Reference) */
__global__ void bjs_symmetry_kernel(int m, int sh, int stride, const long long *__restrict__ sliceptr, const int *__restrict__ cols, const double *__restrict__ vals, const double *__restrict__ diag, const int *__restrict__ perm, MSBJSSymmetry *out)
{
  const int          s = blockIdx.x * stride, t = threadIdx.x, r = s * sh + t;
  unsigned long long nchk = 0, nasym = 0, ndec = 0, first = MS_BJS_BAD_NONE;
  if (r < m) {
    const long long beg = sliceptr[s];
    const int       w   = (int)((sliceptr[s + 1] - beg) / sh);
    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * sh + t;
      const int       c    = __ldg(cols + slot);
      const double    v    = __ldg(vals + slot);
      if (c >= 0 || v == 0.0) continue;
      const int q  = -c - 1;
      double    u  = 0.0;
      int       qc = 0;
      for (int k2 = 0; k2 < w; k2++) {
        const long long slot2 = beg + (long long)k2 * sh + q;
        const int       c2    = __ldg(cols + slot2);
        if (c2 >= 0) continue;
        const double v2 = __ldg(vals + slot2);
        if (v2 != 0.0) qc = 1;
        if (c2 == -(t + 1)) u = v2;
      }
      const int f = MSBJSSymmetryTest(v, u, diag[r], qc);
      nchk++;
      if (f == 2) ndec++;
      else if (f == 1) {
        nasym++;
        first = (unsigned long long)(perm ? perm[r] : r);
      }
    }
  }
  nchk  = ms_warp_reduce<MSOpSum>(nchk);
  nasym = ms_warp_reduce<MSOpSum>(nasym);
  ndec  = ms_warp_reduce<MSOpSum>(ndec);
  first = ms_warp_reduce<MSOpMin>(first);
  if ((threadIdx.x & 31) == 0) {
    if (nchk) atomicAdd(&out->nchecked, nchk);
    if (nasym) atomicAdd(&out->nasym, nasym);
    if (ndec) atomicAdd(&out->ndecoupled, ndec);
    if (first != MS_BJS_BAD_NONE) atomicMin(&out->firstrow, first);
  }
}

extern "C" MS_BJS_SYMMETRY(MSBJSSymmetry_CUDA)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  err;
  if (stride < 1) return (int)cudaErrorInvalidValue;
  if ((err = cudaMemsetAsync(out, 0, 3 * sizeof(unsigned long long), st))) return (int)err;
  if ((err = cudaMemsetAsync(&out->firstrow, 0xff, sizeof(unsigned long long), st))) return (int)err;
  if (img->m <= 0 || !img->local_cols || !img->diag) return (int)cudaSuccess;
  bjs_symmetry_kernel<<<(img->nslices + stride - 1) / stride, img->sh, 0, st>>>(img->m, img->sh, stride, img->sliceptr, img->cols, img->vals, img->diag, img->perm, out);
  return (int)cudaGetLastError();
}

/* inner jacobi (or Chebyshev: CHEB) from x = 0: the row's in-slice entries in registers, the iterate exchanged through a
   shared window; sm and y computed exactly as in bjs_sweep_kernel (same order of the terms, the same
   inverse diagonal). The window is double-buffered: sweep it writes buffer it % 2 and reads it after one
   barrier; the other buffer was last read in sweep it - 1, which every thread finished before that
   barrier, so one barrier per sweep suffices. */
template <int NL, bool CHEB>
__global__ void __launch_bounds__(1024, (CHEB && NL <= 4) ? 2 : 1) bjs_zero_jacobi_kernel(int m, const short *__restrict__ lcg, const double *__restrict__ lvg, const double *__restrict__ dinv, const int *__restrict__ qx, const int *__restrict__ py, int inner_its, const double *__restrict__ cheb, const double *__restrict__ b, const double *__restrict__ offp, double *__restrict__ xout)
{
  extern __shared__ double win[]; /* 2 * sh */
  const int  sh = blockDim.x, t = threadIdx.x;
  const int  r     = blockIdx.x * sh + t;
  const bool valid = r < m;
  const int  o     = valid ? (qx ? __ldg(qx + r) : r) : 0; /* where row r's b and offp lie (as in bjs_sweep_kernel) */
  double     lv[NL], rl = 0.0, di = 1.0, y = 0.0;
  int        lc[NL];

#pragma unroll
  for (int j = 0; j < NL; j++) {
    lc[j] = valid ? (int)__ldg(lcg + (size_t)j * m + r) : -1;
    lv[j] = valid ? __ldg(lvg + (size_t)j * m + r) : 0.0;
  }
  if (valid) {
    rl = b[o];
    if (offp) rl -= offp[o];
    di = dinv[r];
  }
  /* inner Chebyshev (CHEB; the reference's order of operations): y_{j-1} is the thread's own slot of the other half of
     the window, written by it in the previous sweep (and read by the others before the last barrier); 0 at first */
  if (CHEB) {
    win[t] = 0.0;
    if (inner_its > 0) y = __ldg(cheb) * (__ldg(cheb + 1) * (rl * di) + 0.0 - 0.0) + 0.0;
  } else if (inner_its > 0) y = rl * di; /* the first sweep from y = 0 has sm = 0 */
#pragma unroll 1
  for (int it = 1; it < inner_its; it++) {
    double *wb = win + (it & 1) * sh;
    double  sm = 0.0;
    wb[t]      = y;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < NL; j++)
      if (lc[j] >= 0) sm += lv[j] * wb[lc[j]];
    if (CHEB) {
      const double yp = win[((it - 1) & 1) * sh + t];
      y               = __ldg(cheb + 3 * it) * (__ldg(cheb + 3 * it + 1) * ((rl - sm) * di - y) + y - yp) + yp;
    } else y = (rl - sm) * di;
  }
  if (CHEB && inner_its > 0) y *= __ldg(cheb + 3 * (inner_its - 1) + 2);
  if (valid) xout[py ? __ldg(py + r) : r] = y; /* py NULL with a permuted image: in the image's order (gathered back) */
}

extern "C" MS_BJS_ZERO_JACOBI(MSBJSZeroJacobi_CUDA)
{
  cudaStream_t  st     = (cudaStream_t)stream;
  const int     m      = img->m;
  const size_t  smem   = 2 * (size_t)img->sh * sizeof(double);
  const bool    bk     = MS_BJS_BUCKETED(img, pb, work);              /* b, offp scattered into buckets, y into buckets */
  const bool    outimg = !bk && img->perm && img->iperm && work;       /* y in the image's order, then gathered back */
  const int    *qx     = bk ? pb->qx : img->perm;                      /* where row r's b and offp lie */
  const int    *py     = bk ? pb->py : (outimg ? NULL : img->perm);    /* where its result goes */
  double       *xo     = bk || outimg ? work : xout;
  const double *bi = b, *oi = offp;
  int           err;

  if (m <= 0 || img->nslices <= 0) return (int)cudaSuccess;
  if (nloc < 1 || nloc > MS_PATTERN_MAXLOC) return (int)cudaErrorInvalidValue; /* the cases below */
  if (bk) { /* b and offp into their buckets: work + m, work + 2m */
    if ((err = MSCUDABucketScatter(m, pb->px, b, work + m, stream))) return err;
    bi = work + m;
    if (offp) {
      if ((err = MSCUDABucketScatter(m, pb->px, offp, work + 2 * (size_t)m, stream))) return err;
      oi = work + 2 * (size_t)m;
    }
  }
  switch (nloc) {
#define BJS_ZCASE(NL) \
  case NL: \
    if (cheb) bjs_zero_jacobi_kernel<NL, true><<<img->nslices, img->sh, smem, st>>>(m, lc, lv, dinv, qx, py, inner_its, cheb, bi, oi, xo); \
    else bjs_zero_jacobi_kernel<NL, false><<<img->nslices, img->sh, smem, st>>>(m, lc, lv, dinv, qx, py, inner_its, cheb, bi, oi, xo); \
    break;
    BJS_ZCASE(1)
    BJS_ZCASE(2)
    BJS_ZCASE(3)
    BJS_ZCASE(4)
    BJS_ZCASE(5)
    BJS_ZCASE(6)
    BJS_ZCASE(7)
    BJS_ZCASE(8)
#undef BJS_ZCASE
  }
  if ((err = (int)cudaGetLastError())) return err;
  if (bk) return MSCUDABucketGather(m, pb->qy, work, NULL, xout, stream);
  return outimg ? MSCUDAUnpermute(m, img->iperm, work, NULL, xout, stream) : (int)cudaSuccess;
}

extern "C" const MSBJSKernels MSBJSKernels_CUDA = {"cuda", MSBJSAnalyze_CUDA, MSBJSSymmetry_CUDA, MSBJSConfigure_CUDA, MSBJSSweep_CUDA, MSBJSZeroJacobi_CUDA, 1};
