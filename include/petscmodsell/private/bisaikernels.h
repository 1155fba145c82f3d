/*
   Kernels of PCBISAI (block incomplete sparse approximate inverse of block ILU(0) factors, Ma et al. (2021)), declared once
   (see mskernels.h for the conventions): the host reference (src/ksp/pc/impls/bisai/bisai_reference.c) and the CUDA
   implementation (bisai.cu) define each signature and compute the same function (the same sums in the same order;
   they differ only by the contraction of multiply-adds); the glue (bisai.c) calls them through MSBISAIKernels.

   Block sparse row (BSR) storage: nb block rows of bs x bs blocks (bs <= MS_BISAI_MAXBS); block row i holds the
   blocks rowptr[i] .. rowptr[i+1]-1, block columns cols[] sorted ascending; block p's entries at
   vals[p*bs*bs + r*bs + c] (row-major). rowidx[p] is the block row of block p (the COO row index).

   The block ILU(0) factors of the local diagonal block A share A's block pattern (with every diagonal block present)
   in one BSR array F: the strictly lower blocks are L's (L has unit diagonal blocks, not stored), the diagonal and
   upper blocks are U's. Dinv[i*bs*bs ...] is the explicit inverse of U's diagonal block i.

   The approximate inverses M_L (pattern S(|L|^k), lower) and M_U (pattern S(|U|^k), upper) are BSR matrices; their
   setup walks them by block columns: column j holds the block rows rowidx[colptr[j]] .. (ascending, the diagonal
   first for M_L and last for M_U), and pos[] the index of each of these blocks in M's BSR storage. Column j of M_L
   solves the small block triangular system L(J,J) X = E_j (J its pattern rows, E_j the identity block in the row of
   j), column j of M_U solves U(J,J) X = E_j (Ma et al. (2021), equation 7): L M_L = I and U M_U = I hold on the patterns.
*/
#pragma once

#include <math.h>

#include <petscmodsell/private/mskernels.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MS_BISAI_MAXBS 8

/* Helpers of both backends, one definition (the reference and the CUDA kernels run the same steps) */
#if defined(__CUDACC__)
  #define MS_BISAI_HD static __host__ __device__ __forceinline__
#else
  #define MS_BISAI_HD static inline
#endif

/* position of block column col in cols[lo, hi) (sorted), or -1 */
MS_BISAI_HD int MSBISAIFind(const int *cols, int lo, int hi, int col)
{
  const int end = hi;

  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (cols[mid] < col) lo = mid + 1;
    else hi = mid;
  }
  return (lo < end && cols[lo] == col) ? lo : -1;
}

/* out = B^-1 (bs x bs, row-major, bs <= MS_BISAI_MAXBS) by Gauss-Jordan with partial pivoting; returns 1 when B is
   singular (a pivot zero, not finite, or below 1e-14 max |B|), then out is zero */
MS_BISAI_HD int MSBISAIInvertBlock(int bs, const double *B, double *out)
{
  double a[MS_BISAI_MAXBS * MS_BISAI_MAXBS], inv[MS_BISAI_MAXBS * MS_BISAI_MAXBS], maxabs = 0.0;
  int    singular = 0;

  for (int e = 0; e < bs * bs; e++) {
    a[e]   = B[e];
    inv[e] = (e / bs == e % bs) ? 1.0 : 0.0;
    if (fabs(B[e]) > maxabs || B[e] != B[e]) maxabs = fabs(B[e]);
  }
  for (int c = 0; c < bs && !singular; c++) {
    int    piv = c;
    double d;

    for (int r = c + 1; r < bs; r++)
      if (fabs(a[r * bs + c]) > fabs(a[piv * bs + c])) piv = r;
    if (!(fabs(a[piv * bs + c]) > 1e-14 * maxabs) || !isfinite(a[piv * bs + c]) || !isfinite(maxabs)) {
      singular = 1;
      break;
    }
    if (piv != c)
      for (int t = 0; t < bs; t++) {
        double w = a[c * bs + t];
        a[c * bs + t]   = a[piv * bs + t];
        a[piv * bs + t] = w;
        w                 = inv[c * bs + t];
        inv[c * bs + t]   = inv[piv * bs + t];
        inv[piv * bs + t] = w;
      }
    d = 1.0 / a[c * bs + c];
    for (int t = 0; t < bs; t++) {
      a[c * bs + t] *= d;
      inv[c * bs + t] *= d;
    }
    for (int r = 0; r < bs; r++) {
      const double f = a[r * bs + c];
      if (r == c || f == 0.0) continue;
      for (int t = 0; t < bs; t++) {
        a[r * bs + t] -= f * a[c * bs + t];
        inv[r * bs + t] -= f * inv[c * bs + t];
      }
    }
  }
  for (int e = 0; e < bs * bs; e++) out[e] = singular ? 0.0 : inv[e];
  return singular;
}
#define MS_BISAI_NONE  0x7f7f7f7f /* "no singular block" (the byte pattern 0x7f the CUDA version memsets) */

/* Dinv[i] = U(i,i)^-1 (the block at F[diag[i]]) by Gauss-Jordan elimination with partial pivoting; a block whose
   pivot is zero, not finite or below 1e-14 times its largest entry is singular: its Dinv is set to zero and *bad
   (reset to MS_BISAI_NONE by the kernel) becomes the smallest such block row. */
#define MS_BISAI_INVERT_DIAG(name) int name(int nb, int bs, const int *diag, const double *F, double *Dinv, int *bad, void *stream)

/* One fixed-point (ParILU) sweep on the blocks, Jacobi style: every new value from the previous sweep's F.
   residual: S(i,j) = A(i,j) - sum_{k < min(i,j), (i,k), (k,j) in the pattern} F(i,k) F(k,j)   (k ascending)
   update:   F(i,j) = S(i,j) Dinv(j) for i > j, S(i,j) for i <= j; with Dinv NULL: F(i,j) = 0 for i > j
             (the initial guess L = I, U = triu(A) when S = A). */
#define MS_BISAI_ILU_RESIDUAL(name) int name(int bs, int nnzb, const int *rowptr, const int *rowidx, const int *cols, const double *A, const double *F, double *S, void *stream)
#define MS_BISAI_ILU_UPDATE(name)   int name(int bs, int nnzb, const int *rowidx, const int *cols, const double *S, const double *Dinv, double *F, void *stream)

/* The approximate inverses, one block column j per warp (CUDA) or loop iteration (host), column-oriented forward
   (lower) or backward (upper) substitution on the blocks of the column's pattern; the blocks of the small system are
   read from F (binary search of block (J_q, J_p) in F's row J_q), never stored. M's values are written at pos[]. */
#define MS_BISAI_ISAI_LOWER(name) \
  int name(int nb, int bs, const int *frowptr, const int *fcols, const double *F, const int *colptr, const int *rowidx, const int *pos, double *M, void *stream)
#define MS_BISAI_ISAI_UPPER(name) \
  int name(int nb, int bs, const int *frowptr, const int *fcols, const double *F, const double *Dinv, const int *colptr, const int *rowidx, const int *pos, double *M, void *stream)

/* y = M x for a BSR matrix M (one thread per scalar row on the GPU) */
#define MS_BISAI_BSR_MULT(name) int name(int nb, int bs, const int *rowptr, const int *cols, const double *vals, const double *x, double *y, void *stream)

/* y = M x by a vendor library's BSR product on the same arrays (blocks stored by rows; on the GPU cuSPARSE's
   cusparseDbsrmv()), for the comparison with bsr_mult (-pc_bisai_spmv cusparse). *ctx holds the library's handle and
   matrix descriptor, created by the first call (nb = 0 only creates it) and freed by MS_BISAI_LIBRARY_DESTROY. Returns
   0, a CUDA error code (> 0), or minus the library's status (a cusparseStatus_t). */
#define MS_BISAI_BSR_MULT_LIBRARY(name) int name(void **ctx, int nb, int bs, int nnzb, const int *rowptr, const int *cols, const double *vals, const double *x, double *y, void *stream)
#define MS_BISAI_LIBRARY_DESTROY(name)  int name(void **ctx)

typedef struct {
  const char *backend;
  MS_BISAI_INVERT_DIAG((*invert_diag));
  MS_BISAI_ILU_RESIDUAL((*ilu_residual));
  MS_BISAI_ILU_UPDATE((*ilu_update));
  MS_BISAI_ISAI_LOWER((*isai_lower));
  MS_BISAI_ISAI_UPPER((*isai_upper));
  MS_BISAI_BSR_MULT((*bsr_mult));
  /* the library's product (NULL: the backend has none, as the reference) */
  const char *library;
  MS_BISAI_BSR_MULT_LIBRARY((*bsr_mult_library));
  MS_BISAI_LIBRARY_DESTROY((*library_destroy));
  int library_min_bs; /* the smallest block size it takes (cusparseDbsrmv() failed on 1 x 1 blocks: CUDA 13.0, an
                         H100, 2026-11-24) */
} MSBISAIKernels;

/* The exact block ILU(0) in row order (IKJ), host only: F from the values A on the pattern (rowptr, cols, diag: the
   position of each diagonal block), Dinv the inverses of U's diagonal blocks; returns MS_BISAI_NONE in *bad, or the
   first block row whose diagonal block of U is singular (the factorization stops there). Exported for the kernel tests
   (src/ksp/pc/tests/ex2.c). */
MS_KERNEL_EXTERN int MSBISAIILUExact_Reference(int nb, int bs, const int *rowptr, const int *cols, const int *diag, const double *A, double *F, double *Dinv, int *bad);

MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_Reference);
MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_Reference);
MS_BISAI_ILU_UPDATE(MSBISAIILUUpdate_Reference);
MS_BISAI_ISAI_LOWER(MSBISAIISAILower_Reference);
MS_BISAI_ISAI_UPPER(MSBISAIISAIUpper_Reference);
MS_BISAI_BSR_MULT(MSBISAIBSRMult_Reference);
MS_KERNEL_EXTERN const MSBISAIKernels MSBISAIKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_CUDA);
MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_CUDA);
MS_BISAI_ILU_UPDATE(MSBISAIILUUpdate_CUDA);
MS_BISAI_ISAI_LOWER(MSBISAIISAILower_CUDA);
MS_BISAI_ISAI_UPPER(MSBISAIISAIUpper_CUDA);
MS_BISAI_BSR_MULT(MSBISAIBSRMult_CUDA);
MS_BISAI_BSR_MULT_LIBRARY(MSBISAIBSRMultCusparse_CUDA);
MS_BISAI_LIBRARY_DESTROY(MSBISAICusparseDestroy_CUDA);
MS_KERNEL_EXTERN const MSBISAIKernels MSBISAIKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
