/*
   Kernels of PCRUIZ, declared once (see mskernels.h for the conventions): the host reference
   (src/ksp/pc/impls/ruiz/ruiz_reference.c) and the CUDA implementation (ruiz.cu) define each signature and
   compute the same function; the glue (ruiz.c) calls them through MSRuizKernels.

   Notation (Wikberg (2024), section 5.4, Algorithm 4, written with inverse scalings): sr, sc are the inverse row and
   column scalings (D_r^-1, D_c^-1; both D^-1 in symmetric mode), the scaled entry is b_ij = |a_ij| sr_i sc_j,
   and for p = 1, 2, infinity the row and column accumulations are
       acc_i  = sum_j (|a_ij| sc_j)^p   (max_j for p = infinity),  ||b_i,:||_p = sr_i * root(acc_i)
       cacc_j = sum_i (|a_ij| sr_i)^p   (max_i for p = infinity),  ||b_:,j||_p = sc_j * root(cacc_j)
   with root = sqrt for p = 2 and the identity otherwise. A norm n updates its scaling s <- s / sqrt(n)
   (D <- sqrt(R) D) and contributes |1 - n| to the deviation. A NULL sr or sc is the unit scaling.

   Row sums run in a fixed order (diagonal, then the slots in order) with explicitly rounded operations: host
   and device agree bitwise on them. Column sums (nonsymmetric mode) are accumulated by atomics on the device:
   for p = 1, 2 they agree with the host to rounding; for p = infinity (a max) bitwise.
*/
#pragma once

#include <petscmodsell/private/mskernels.h>

#ifdef __cplusplus
extern "C" {
#endif

/* p codes */
#define MS_RUIZ_P1   1
#define MS_RUIZ_P2   2
#define MS_RUIZ_PINF 0

/* error codes in the 'bad' keys: key = index * 4 + code, the smallest key wins */
#define MS_RUIZ_BAD_NONFINITE 0 /* a row (column) with a non-finite norm: an Inf/NaN entry */
#define MS_RUIZ_BAD_ZERO      1 /* a zero row (column) */
#define MS_RUIZ_BAD_DIAG      2 /* symmetric mode: missing, zero or negative diagonal entry */
#define MS_RUIZ_BAD_NONE      (~0ULL)

/* Status of a setup, in the backend's memory: the deviation max |1 - norm| (the bits of a nonnegative double, or
   of NaN) and the first offending local row and column keys */
typedef struct {
  unsigned long long dev;
  unsigned long long badrow;
  unsigned long long badcol;
} MSRuizStatus;

/* One pass over the rows of one image (img->diag_block: the square diagonal block).
     acc_in   NULL or a partial row accumulation to combine with
     acc_out  non-NULL: store the (partial) accumulation and stop there; NULL: finish the row,
              sr_new[i] = sr[i] / sqrt(n_i), and when check != 0 fold |1 - n_i| into status->dev
     colacc   NULL or the column accumulation (indexed like sc) to add this block's terms to
     first    first pass: record non-finite or zero rows (when finishing) and, with checkdiag on a diagonal
              block, rows whose diagonal entry is missing or not positive, into status->badrow */
#define MS_RUIZ_ROW_PASS(name) \
  int name(const MSImageView *img, int p, const double *sr, const double *sc, const double *acc_in, double *acc_out, double *sr_new, double *colacc, int check, int first, int checkdiag, MSRuizStatus *status, void *stream)
/* Finish the n columns: c_j = sc_j * root(cacc_j), sc_new_j = sc_j / sqrt(c_j); check: fold |1 - c_j| into
   status->dev; first: record non-finite or zero columns into status->badcol */
#define MS_RUIZ_COL_PASS(name) int name(int n, int p, const double *sc, const double *cacc, double *sc_new, int check, int first, MSRuizStatus *status, void *stream)
/* status->dev = 0 and, when first, the bad keys = MS_RUIZ_BAD_NONE */
#define MS_RUIZ_RESET_STATUS(name) int name(MSRuizStatus *status, int first, void *stream)
/* y[i] = a[i] * x[i], or a[i] * (a[i] * x[i]) when square (the symmetric mode's D^-2 from D^-1) */
#define MS_RUIZ_POINTWISE(name) int name(int n, const double *a, int square, const double *x, double *y, void *stream)

typedef struct {
  const char *backend;
  MS_RUIZ_ROW_PASS((*row_pass));
  MS_RUIZ_COL_PASS((*col_pass));
  MS_RUIZ_RESET_STATUS((*reset_status));
  MS_RUIZ_POINTWISE((*pointwise));
} MSRuizKernels;

MS_RUIZ_ROW_PASS(MSRuizRowPass_Reference);
MS_RUIZ_COL_PASS(MSRuizColPass_Reference);
MS_RUIZ_RESET_STATUS(MSRuizResetStatus_Reference);
MS_RUIZ_POINTWISE(MSRuizPointwise_Reference);
MS_KERNEL_EXTERN const MSRuizKernels MSRuizKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_RUIZ_ROW_PASS(MSRuizRowPass_CUDA);
MS_RUIZ_COL_PASS(MSRuizColPass_CUDA);
MS_RUIZ_RESET_STATUS(MSRuizResetStatus_CUDA);
MS_RUIZ_POINTWISE(MSRuizPointwise_CUDA);
MS_KERNEL_EXTERN const MSRuizKernels MSRuizKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
