/*
   CUDA kernels of PCBJSMOOTH (src/ksp/pc/impls/bjsmooth/bjsmooth.cu), called by the C glue in bjsmooth.c.
   Plain C interface: raw device pointers and a stream (cudaStream_t passed as void *), no PETSc types.
   Every function returns the cudaError_t of its launch (0 = cudaSuccess); none synchronizes the stream.
   The host reference in bjsmooth.c computes the same function (up to the order of the additions in
   the block reductions of inner CG and of the inner tolerance test).

   One outer sweep (paper 000, equations 4.8-4.9, section 4.3.1): one thread block per slice l of the
   mod-SELL image of the local diagonal block, one thread per row t (image row r = l*sh + t, user row
   o = perm[r]):
     x_t  = zero ? 0 : xin[o]                                (kept in a register, window xs[] in shared memory)
     rl_t = b[o] - offp[o] - d_t x_t - sum_slots v * (c < 0 ? xs[-c-1] : xin[c-1])
     the local system A_ll y = rl (entries with negative codes and the diagonal) is solved approximately
     from y = 0 by inner_its sweeps of the inner method (stopping early when the block residual
     ||rl - A_ll y||_2 <= inner_rtol ||rl||_2, inner_rtol > 0); Jacobi and Gauss-Seidel updates multiply
     by 1 / d_t, computed once per row,
     xout[o] = x_t + y_t.
   Inner methods: Jacobi; warp-serialised Gauss-Seidel (warps of 32 rows in order, Jacobi inside a warp,
   equation 4.14), forward (GS) or forward then backward (SGS); CG.
   The in-slice coefficients are kept in shared memory (ELLPACK, nloc per row, paper eq. 4.15) when they
   fit, else read from the image in global memory at every inner sweep (the fallback).
*/
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MS_BJS_INNER_JACOBI 0
#define MS_BJS_INNER_GS     1
#define MS_BJS_INNER_SGS    2
#define MS_BJS_INNER_CG     3

#define MS_BJS_WARP     32
#define MS_BJS_RED      64 /* doubles of reduction scratch in shared memory */
#define MS_BJS_BAD_NONE (~0ULL)

/* The mod-SELL image of the local diagonal block (diagonal apart, in-slice negative codes), device arrays */
typedef struct {
  int              m, sh, nslices;
  const long long *sliceptr;
  const int       *cols;
  const double    *vals;
  const double    *diag;
  const int       *perm; /* NULL: identity */
} MSBJSCUDAImage;

/* Setup analysis: the largest number of in-slice off-diagonal entries of a row (nloc), the smallest local
   row (user numbering) whose diagonal entry is not positive (or not finite) and the smallest local row
   holding a non-finite value (Inf or NaN) among its stored entries. img->diag may be NULL (an image without
   the diagonal apart, e.g. the off-process block: only the values are checked). */
typedef struct {
  unsigned long long maxloc;
  unsigned long long badrow; /* MS_BJS_BAD_NONE when none */
  unsigned long long badval; /* MS_BJS_BAD_NONE when none */
} MSBJSCUDAStatus;

/* Resets *status and computes it on the stream (the caller reads it back once) */
int MSBJSCUDAAnalyze(const MSBJSCUDAImage *img, MSBJSCUDAStatus *status, void *stream);

/* Shared memory of the sweep kernel for this slice height, nloc and inner method (paper eq. 4.15 plus the
   reduction scratch): with the coefficients in shared memory when they fit (raising the kernel's limit
   with cudaFuncSetAttribute up to the device's opt-in maximum) and force_global == 0, else without them.
   Outputs: use_shared (1: coefficients in shared memory), smem (bytes per block to launch with),
   smem_needed (bytes the shared variant needs), smem_optin (the device's opt-in limit). */
int MSBJSCUDAConfigure(int sh, int nloc, int inner, int force_global, int *use_shared, size_t *smem, size_t *smem_needed, size_t *smem_optin);

/* One outer sweep over all slices (see above). offp may be NULL (no off-process part); zero != 0: the
   current iterate is zero (xin is not read); async != 0: xin == xout is allowed, blocks read whatever
   values other blocks have written and publish their own with a memory fence (block-asynchronous). */
int MSBJSCUDASweep(const MSBJSCUDAImage *img, int inner, int inner_its, double inner_rtol, int nloc, int use_shared, size_t smem, int zero, int async, const double *b, const double *offp, const double *xin, double *xout, void *stream);

/* The zero-guess Jacobi path (the preconditioner's PCApply and the first sweep of a smoother from zero, inner
   jacobi with a fixed count): with x = 0 a sweep needs only b, the diagonal and the in-slice entries, so
   the setup copies the latter into a compact ELLPACK array (MSBJSCUDAExtractLocal: lc[j*m + r] = the
   in-slice column q < sh of the j-th in-slice entry of image row r, in slot order, as a 16-bit integer, or
   -1 past the row's count; lv[j*m + r] its value; dinv[r] = 1 / diag[r]; j < nloc <= MS_BJS_ZERO_MAXLOC)
   and MSBJSCUDAZeroJacobi reads those instead of the image: the same arithmetic, in the same order, as
   MSBJSCUDASweep with zero != 0, inner jacobi and inner_rtol == 0 (xout[o] = y after inner_its sweeps
   from y = 0; every sweep multiplies by the inverse diagonal 1 / diag, computed as the sweep kernel does). */
#define MS_BJS_ZERO_MAXLOC 8
int MSBJSCUDAExtractLocal(const MSBJSCUDAImage *img, int nloc, short *lc, double *lv, double *dinv, void *stream);
int MSBJSCUDAZeroJacobi(const MSBJSCUDAImage *img, int nloc, const short *lc, const double *lv, const double *dinv, int inner_its, const double *b, const double *offp, double *xout, void *stream);

#ifdef __cplusplus
}
#endif
