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

/* ------------------------------------------------------------------------------------------------------------
   The CSR check shared by the preconditioners (PCMSOperatorAnalyse(), pcmsimpl.h): one pass over the rows of a square
   block in CSR form (ai[m+1], aj: columns of a row ascending, as SeqAIJ keeps them; aa: values; 32-bit, in the
   backend's memory) telling what a method needs to know before it factorizes or inverts:
     nonfinite  the first row with an entry that is not finite (NaN, Inf);
     nodiag     the first row without a diagonal entry, or with a zero one;
     negdiag    the first row whose diagonal entry is negative;
     posoff     the first row with a positive off-diagonal entry, a_ij > MS_CHECK_POS_EPS |a_ii| (nposoff: such rows);
     notdd      the first row that is not weakly diagonally dominant, sum_{j != i} |a_ij| > (1 + MS_CHECK_DD_EPS)
                |a_ii| (nnotdd: such rows; rows without a nonzero diagonal are counted under nodiag only);
     maxdd      max over the rows of sum_{j != i} |a_ij| / |a_ii| (rows with a nonzero diagonal), as the bits of
                the non-negative double (0: no such row);
     asym       (symmetry != 0 only) the first row with an entry a_ij whose transpose differs: |a_ij - a_ji| >
                MS_CHECK_SYM_EPS (|a_ij| + |a_ji|) + MS_CHECK_SYM_ABS |a_ii| (a_ji = 0 when absent; nasym: such rows).
   A positive diagonal, off-diagonal entries <= 0 and weak diagonal dominance in every row is what an M-matrix of a
   discretised diffusion looks like (the operators modified ILU was designed for). "First" is the smallest local row
   (MS_CHECK_NONE: none); the per-row tests are MSCheckCSRRow(), shared by both backends, so that the result is the
   same bit for bit whatever the order the rows are visited in.
   ------------------------------------------------------------------------------------------------------------ */
#define MS_CHECK_NONE    (~0ULL)
#define MS_CHECK_POS_EPS 1e-12 /* off-diagonal entries up to this times |a_ii| count as not positive (rounding) */
#define MS_CHECK_DD_EPS  1e-8  /* relative slack of the diagonal dominance test (zero row sums up to rounding) */
#define MS_CHECK_SYM_EPS 1e-10 /* relative difference of a_ij and a_ji accepted as symmetric */
#define MS_CHECK_SYM_ABS 1e-14 /* ... plus this times |a_ii| (entries that cancelled to rounding residues) */

typedef struct {
  unsigned long long nonfinite, nodiag, negdiag, posoff, notdd, asym; /* first rows */
  unsigned long long nposoff, nnotdd, nasym;                          /* rows */
  unsigned long long maxdd;                                           /* bits of a non-negative double */
} MSCSRCheck;

#define MS_CHECK_ROW_NONFINITE 1
#define MS_CHECK_ROW_NODIAG    2
#define MS_CHECK_ROW_NEGDIAG   4
#define MS_CHECK_ROW_POSOFF    8
#define MS_CHECK_ROW_NOTDD     16
#define MS_CHECK_ROW_ASYM      32

#if defined(__CUDACC__)
  #define MS_CHECK_HD static __host__ __device__ __forceinline__
#else
  #define MS_CHECK_HD static inline
#endif

/* the entry of row j in column i (0 when absent): binary search of the ascending columns */
MS_CHECK_HD double MSCheckCSREntry(const int *ai, const int *aj, const double *aa, int j, int i)
{
  int lo = ai[j], hi = ai[j + 1] - 1;

  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2, c = aj[mid];

    if (c == i) return aa[mid];
    if (c < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0.0;
}

/* the tests of row i (MS_CHECK_ROW_* bits) and its sum_{j != i} |a_ij| / |a_ii| in *dd (0 without a nonzero diagonal) */
MS_CHECK_HD int MSCheckCSRRow(int i, const int *ai, const int *aj, const double *aa, int symmetry, double *dd)
{
  const int e0 = ai[i], e1 = ai[i + 1];
  double    d = 0.0, ad, off = 0.0;
  int       flags = 0, hasd = 0;

  for (int e = e0; e < e1; e++) {
    const double a = aa[e];

    if (!(a - a == 0.0)) flags |= MS_CHECK_ROW_NONFINITE;
    if (aj[e] == i) {
      d    = a;
      hasd = 1;
    }
  }
  ad = d < 0 ? -d : d;
  for (int e = e0; e < e1; e++) {
    const double a = aa[e];

    if (aj[e] == i) continue;
    off += a < 0 ? -a : a;
    if (a > MS_CHECK_POS_EPS * ad) flags |= MS_CHECK_ROW_POSOFF;
    if (symmetry) {
      const double t = MSCheckCSREntry(ai, aj, aa, aj[e], i), x = a - t;

      if ((x < 0 ? -x : x) > MS_CHECK_SYM_EPS * ((a < 0 ? -a : a) + (t < 0 ? -t : t)) + MS_CHECK_SYM_ABS * ad) flags |= MS_CHECK_ROW_ASYM;
    }
  }
  *dd = 0.0;
  if (!hasd || d == 0.0) flags |= MS_CHECK_ROW_NODIAG;
  else {
    if (d < 0) flags |= MS_CHECK_ROW_NEGDIAG;
    if (off > (1.0 + MS_CHECK_DD_EPS) * ad) flags |= MS_CHECK_ROW_NOTDD;
    if (off - off == 0.0 && ad - ad == 0.0) *dd = off / ad;
  }
  return flags;
}

#define MS_CHECK_CSR(name) int name(int m, const int *ai, const int *aj, const double *aa, int symmetry, MSCSRCheck *info, void *stream)

typedef struct {
  const char *backend;
  MS_CHECK_CSR((*check));
} MSCheckKernels;

MS_CHECK_CSR(MSCheckCSR_Reference);
MS_KERNEL_EXTERN const MSCheckKernels MSCheckKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_CHECK_CSR(MSCheckCSR_CUDA);
MS_KERNEL_EXTERN const MSCheckKernels MSCheckKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
