/*
   The kernel layer of petsc-modsell: what a kernel sees, in plain C (no PETSc types), so that the same
   declarations serve the host reference kernels (*_ref.c, compiled with the PETSc C compiler) and the CUDA
   kernels (*.cu, compiled by nvcc alone).

   The split follows Ginkgo (core / reference / device): for each method a header declares every kernel's
   signature once, as a macro MS_<METHOD>_<KERNEL>(name); the reference file defines name##_Reference and the
   CUDA file name##_CUDA with that signature, and each fills a table of function pointers (MS<Method>Kernels).
   The PETSc glue (the PC's .c file) picks the table once at setup (PCMSKernels(), like PETSc's pbjacobi swaps
   pc->ops) and never branches on the backend afterwards. Kernel tests (src/ksp/pc/tests/ex2.c) run both tables
   on the same random images and compare.

   Conventions of every kernel:
     - arrays are in the backend's memory (host for _Reference, device for _CUDA); stream is a cudaStream_t for
       _CUDA (work is queued on it, nothing synchronizes) and ignored by _Reference;
     - the return value is 0 on success, else an error code: a cudaError_t for _CUDA, MS_KERNEL_ERR_* for
       _Reference (the glue turns it into a PETSc error naming the kernel, PCMSCheckKernel());
     - vectors are in the user's row order; images are read through an MSImageView.
*/
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* exported from the library (the kernel tests call the tables), whatever the default visibility */
#if defined(__GNUC__)
  #define MS_KERNEL_EXTERN extern __attribute__((visibility("default")))
#else
  #define MS_KERNEL_EXTERN extern
#endif

/* error codes of the reference kernels (CUDA kernels return cudaError_t values) */
#define MS_KERNEL_ERR_MEM 1001 /* a host work array could not be allocated */
#define MS_KERNEL_ERR_ARG 1002 /* an argument out of range */

/*
   One mod-SELL image (see modsellimpl.h for the format) as a kernel reads it: host or device arrays.
     slot (s, k, t) = sliceptr[s] + k*sh + t holds the k-th off-diagonal entry of image row r = s*sh + t;
     cols[slot]: 0 padding, -(q+1) the slice's own row q (only when local_cols), c+1 column c: of the image numbering
                 (image row c, user column perm[c]) when perm_cols, else of the user numbering; MS_CODE_COL() gives the
                 user column either way;
     diag[r]: the diagonal apart (NULL: stored in the slots); perm[r]: the user row of image row r (NULL: identity).
   A product with a permuted image gathers x into the image numbering once (one read per row), so that the window of
   a slice and its neighbours' values are contiguous, and scatters y once (see MSCUDAMult()).
*/
typedef struct {
  int              m, n, sh, nslices;
  const long long *sliceptr;
  const int       *cols;
  const double    *vals;
  const double    *diag;
  const int       *perm;
  int              local_cols; /* negative (in-slice) column codes present: square block */
  int              diag_block; /* the square diagonal block of its process: columns are local rows */
  int              perm_cols;  /* positive codes are columns of the image numbering (a permuted square block) */
  const int       *iperm;      /* iperm[o]: the image row of user row o (NULL: not set up) */
  const int       *nzslices;   /* the nnzslices slices with an entry, increasing (NULL: not set up); an unpermuted image
                                  without diagonal or in-slice codes (an MPI matrix's off-diagonal block) multiplies
                                  y += A x in place on these slices only (MSCUDAMult()) */
  int              nnzslices;
  int              lanes; /* threads summing one row in the GPU product (1, 2, 4, ..., 32; MSImageRowLanes()); the
                             reference product adds the row's terms in the same order (MSImageOps_Reference) */
  int              negate; /* y = yin - A x instead of yin + A x where yin is given (MatResidual()); 0 by default */
  int              bs;     /* 0 or 1: the scalar layout above, which every preconditioner's kernel reads. 2 to
                              MS_BLOCK_MAX: the block layout of a matrix's own product (modsellimpl.h, "block layout"):
                              sh block rows per slice, cols[] codes of block columns (c+1) and in-slice block rows
                              (-(q+1)), vals[] bs x bs per slot, diag[] the diagonal blocks; read by MSImageOps' product
                              and diagonal only, never by a preconditioner (they get scalar images) */
  int              brows;  /* block layout, GPU product: one thread per block row (its bs sums) instead of per row */
} MSImageView;

/* the largest block size of the block layout (a slice of sh block rows runs sh bs threads, at most 1024) */
#define MS_BLOCK_MAX 8

/* the user column of a positive code c of the image (cols[] entry > 0) */
#define MS_CODE_COL(img, c) ((img)->perm_cols ? (img)->perm[(c) - 1] : (c) - 1)

/* ------------------------------------------------------------------------------------------------------------
   Pattern kernels shared by the preconditioners (bjsmooth's zero-guess path now; the block ILU and ISAI
   factorizations next): the in-slice block of an image (the entries with negative codes) as a compact ELLPACK
   array of nloc entries per image row, column-major over rows (entry j of image row r at j*m + r):
     lc[j*m + r] = the in-slice column q < sh of the j-th kept in-slice entry of row r (slot order), -1 past the
                   row's count; lv[j*m + r] its value (0 past the count);
     dinv[r]     = 1 / diag[r] (NULL: not computed).
   part selects the entries: MS_PART_ALL, MS_PART_LOWER (q < t: strictly lower in the slice), MS_PART_UPPER (q > t).
   A row with more than nloc kept entries is an error (MS_KERNEL_ERR_ARG / cudaErrorInvalidValue is not detected
   on the device: the caller passes nloc >= the analysed maximum).
   ------------------------------------------------------------------------------------------------------------ */
#define MS_PART_ALL   0
#define MS_PART_LOWER 1
#define MS_PART_UPPER 2
#define MS_PATTERN_MAXLOC 8 /* widest compact block (16-bit column codes: sh <= 32768) */

#define MS_PATTERN_EXTRACT_LOCAL(name) int name(const MSImageView *img, int nloc, int part, short *lc, double *lv, double *dinv, void *stream)

typedef struct {
  const char *backend;
  MS_PATTERN_EXTRACT_LOCAL((*extract_local));
} MSPatternKernels;

MS_PATTERN_EXTRACT_LOCAL(MSPatternExtractLocal_Reference);
MS_KERNEL_EXTERN const MSPatternKernels MSPatternKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_PATTERN_EXTRACT_LOCAL(MSPatternExtractLocal_CUDA);
MS_KERNEL_EXTERN const MSPatternKernels MSPatternKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
