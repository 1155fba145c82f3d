/*
   CUDA kernels of PCRUIZ (src/ksp/pc/impls/ruiz/ruiz.cu), called by the C glue in ruiz.c.
   Plain C interface: raw device pointers and a stream (cudaStream_t passed as void *), no PETSc
   types. Every function returns the cudaError_t of its launch (0 = cudaSuccess) and none of them
   synchronizes the stream. The host reference in ruiz.c computes the same function.

   Notation (paper 000, section 5.4, Algorithm 4, written with inverse scalings): sr, sc are the
   inverse row and column scalings (D_r^-1, D_c^-1; both D^-1 in symmetric mode), the scaled entry is
   b_ij = |a_ij| sr_i sc_j, and for p = 1, 2, infinity the row and column accumulations are
       acc_i  = sum_j (|a_ij| sc_j)^p   (max_j for p = infinity),  ||b_i,:||_p = sr_i * root(acc_i)
       cacc_j = sum_i (|a_ij| sr_i)^p   (max_i for p = infinity),  ||b_:,j||_p = sc_j * root(cacc_j)
   with root = sqrt for p = 2 and the identity otherwise. A norm n updates its scaling s <- s / sqrt(n)
   (D <- sqrt(R) D) and contributes |1 - n| to the deviation.
*/
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* p codes */
#define MS_RUIZ_P1   1
#define MS_RUIZ_P2   2
#define MS_RUIZ_PINF 0

/* error codes in the 'bad' keys: key = index * 4 + code, the smallest key wins (atomicMin) */
#define MS_RUIZ_BAD_NONFINITE 0 /* a row (column) with a non-finite norm: an Inf/NaN entry */
#define MS_RUIZ_BAD_ZERO      1 /* a zero row (column) */
#define MS_RUIZ_BAD_DIAG      2 /* symmetric mode: missing, zero or negative diagonal entry */
#define MS_RUIZ_BAD_NONE      (~0ULL)

/* One mod-SELL image (see modsellimpl.h), device arrays */
typedef struct {
  int              m, sh, nslices;
  const long long *sliceptr;
  const int       *cols;
  const double    *vals;
  const double    *diag;       /* NULL: the diagonal is stored in the slots */
  const int       *perm;       /* NULL: identity */
  int              local_cols; /* negative column codes present (square block): shared-memory window */
  int              diag_block; /* the square diagonal block: columns are local rows */
} MSRuizCUDAImage;

/* Device status of a setup: deviation (max |1 - norm|, as the bits of a nonnegative double) and the
   first offending row and column keys */
typedef struct {
  unsigned long long dev;
  unsigned long long badrow;
  unsigned long long badcol;
} MSRuizCUDAStatus;

/* One pass over the rows of one image: one thread block per slice, one thread per row, the slice's
   window of sc (and of the column accumulation) in shared memory as in the SpMV kernel.
     acc_in   NULL or a partial row accumulation to combine with (user row order)
     acc_out  non-NULL: store the (partial) accumulation and stop there; NULL: finish the row,
              sr_new[i] = sr[i] / sqrt(n_i), and when check != 0 fold |1 - n_i| into status->dev
     colacc   NULL or the column accumulation (indexed like sc) to add this block's terms to
     first    first pass: record non-finite or zero rows (when finishing) and, with checkdiag on a
              diagonal block, rows whose diagonal entry is missing or not positive, into status->badrow */
int MSRuizCUDARowPass(const MSRuizCUDAImage *img, int p, const double *sr, const double *sc, const double *acc_in, double *acc_out, double *sr_new, double *colacc, int check, int first, int checkdiag, MSRuizCUDAStatus *status, void *stream);

/* Finish the n columns: c_j = sc_j * root(cacc_j), sc_new_j = sc_j / sqrt(c_j); check: fold |1 - c_j| into
   status->dev; first: record non-finite or zero columns into status->badcol */
int MSRuizCUDAColPass(int n, int p, const double *sc, const double *cacc, double *sc_new, int check, int first, MSRuizCUDAStatus *status, void *stream);

/* status->dev = 0 and, when first, the bad keys = MS_RUIZ_BAD_NONE */
int MSRuizCUDAResetStatus(MSRuizCUDAStatus *status, int first, void *stream);

/* y[i] = a[i] * x[i] (the preconditioner application) */
int MSRuizCUDAPointwiseMult(int n, const double *a, int square, const double *x, double *y, void *stream);

#ifdef __cplusplus
}
#endif
