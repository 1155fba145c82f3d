/*
   The device layer of petsc-modsell (CUDA only, included by the .cu files): what every kernel on a mod-SELL
   image shares, written once.
     - MSSliceRow: where a thread of a slice kernel is (one thread block per slice, one thread per row);
     - ms_slice_width / ms_slot: the interleaved slots of a row;
     - ms_load_window: the slice's window of a vector in shared memory (the in-slice columns read it);
     - warp and block reductions with a combining operation (sum, max propagating NaN, min, max);
     - ms_grid: grid size of a grid-stride loop;
     - ms_atomic_max_nonneg: atomic max of nonnegative doubles through their bits.
   The kernel-side image is MSImageView (mskernels.h), the same struct the host reference kernels read.
*/
#pragma once

#include <cuda_runtime.h>
#include <petscmodsell/private/mskernels.h>

/* ---------------------------------------------------------------------------------------------------------- */
/* position of a thread in a slice kernel launched as <<<img.nslices, img.sh>>>                                 */
struct MSSliceRow {
  int  s, t, r; /* slice, row in the slice, image row */
  bool valid;   /* r < m (the last slice is padded) */
  int  o;       /* user row perm[r] (0 when not valid) */
};

__device__ __forceinline__ MSSliceRow ms_slice_row(const MSImageView &img)
{
  MSSliceRow p;
  p.s     = blockIdx.x;
  p.t     = threadIdx.x;
  p.r     = p.s * img.sh + p.t;
  p.valid = p.r < img.m;
  p.o     = p.valid ? (img.perm ? img.perm[p.r] : p.r) : 0;
  return p;
}

/* slots per row of slice s (0 for the padding rows of the last slice when valid is false) */
__device__ __forceinline__ int ms_slice_width(const MSImageView &img, int s, bool valid, long long *beg)
{
  *beg = img.sliceptr[s];
  return valid ? (int)((img.sliceptr[s + 1] - *beg) / img.sh) : 0;
}

/* the slice's window: win[t] = x[o] (0 for padding rows), then a barrier */
__device__ __forceinline__ void ms_load_window(double *win, const MSSliceRow &p, const double *x, double unit)
{
  win[p.t] = p.valid ? (x ? x[p.o] : unit) : 0.0;
  __syncthreads();
}

/* ---------------------------------------------------------------------------------------------------------- */
/* reductions                                                                                                   */
struct MSOpSum {
  template <class T>
  __device__ __forceinline__ static T apply(T a, T b) { return a + b; }
  template <class T>
  __device__ __forceinline__ static T identity() { return T(0); }
};
/* max that propagates NaN (a deviation that is NaN must win) */
struct MSOpMaxNaN {
  __device__ __forceinline__ static double apply(double a, double b) { return (a > b || a != a) ? a : b; }
  template <class T>
  __device__ __forceinline__ static T identity() { return T(0); }
};
struct MSOpMax {
  template <class T>
  __device__ __forceinline__ static T apply(T a, T b) { return a > b ? a : b; }
  template <class T>
  __device__ __forceinline__ static T identity() { return T(0); }
};
struct MSOpMin {
  template <class T>
  __device__ __forceinline__ static T apply(T a, T b) { return a < b ? a : b; }
  template <class T>
  __device__ __forceinline__ static T identity() { return ~T(0); } /* unsigned keys: all bits set = none */
};

/* reduction over a warp; lane 0 holds the result */
template <class Op, class T>
__device__ __forceinline__ T ms_warp_reduce(T v)
{
  for (int off = 16; off > 0; off >>= 1) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

/* reduction over the thread block (blockDim.x a multiple of 32, at most 1024), every thread calls it; the
   result is returned to every thread. scratch: 33 T in shared memory, reused by later calls (the leading
   barrier protects it). */
template <class Op, class T>
__device__ __forceinline__ T ms_block_reduce(T v, T *scratch)
{
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = ms_warp_reduce<Op>(v);
  __syncthreads();
  if (lane == 0) scratch[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < nw ? scratch[lane] : Op::template identity<T>();
    v = ms_warp_reduce<Op>(v);
    if (lane == 0) scratch[32] = v;
  }
  __syncthreads();
  return scratch[32];
}

/* atomic max of a nonnegative double (or NaN, whose bits exceed those of every finite double) through its bits;
   only when it raises the stored maximum: unconditional atomics on one address serialise in L2 */
__device__ __forceinline__ void ms_atomic_max_nonneg(unsigned long long *addr, double v)
{
  const unsigned long long bits = (unsigned long long)__double_as_longlong(v);
  if (bits > *(volatile unsigned long long *)addr) atomicMax(addr, bits);
}

/* grid of a grid-stride loop over n items with blocks of bs threads */
static inline unsigned ms_grid(long long n, int bs)
{
  long long nb = (n + bs - 1) / bs;
  if (nb > 65535LL * 32) nb = 65535LL * 32;
  return (unsigned)(nb < 1 ? 1 : nb);
}
