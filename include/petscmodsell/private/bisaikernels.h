/*
   Kernels of PCBISAI (block incomplete sparse approximate inverses of block incomplete factors, Ma et al. (2021)),
   declared once (see mskernels.h for the conventions): the host reference (src/ksp/pc/impls/bisai/bisai_reference.c)
   and the CUDA implementation (bisai.cu) define each signature and compute the same function (the same sums in the
   same order; they differ only by the contraction of multiply-adds; the patterns are the same integers); the glue
   (bisai.c) calls them through MSBISAIKernels. Every step of the setup runs on the backend: the symbolic phase from
   the operator's CSR (block pattern, ISAI patterns, column views), the numeric phase (values, checks, factorization,
   approximate inverses).

   Block sparse row (BSR) storage: nb block rows of bs x bs blocks (bs <= MS_BISAI_MAXBS); block row i holds the
   blocks rowptr[i] .. rowptr[i+1]-1, block columns cols[] sorted ascending; block p's entries at
   vals[p*bs*bs + r*bs + c] (row-major). rowidx[p] is the block row of block p (the COO row index). A pattern is a BSR
   matrix without values. Row pointers are built in two calls: a count call writes the counts of the rows into
   ptr[1..n] (ptr[0] untouched), the scan kernel turns them into offsets, then the fill call writes the columns.

   The block incomplete factors of the local diagonal block A share A's block pattern (with every diagonal block
   present) in one BSR array F: the strictly lower blocks are L's (L has unit diagonal blocks, not stored), the
   diagonal and upper blocks are U's. Dinv[i*bs*bs ...] is the explicit inverse of U's diagonal block i (of its
   symmetric part in the symmetric variant, whose factors are A ~ L D L^T, D = diag(U), U = D L^T).

   The approximate inverses M_L (pattern S(|L|^k), lower) and M_U (pattern S(|U|^k), upper) are BSR matrices; their
   setup walks them by block columns (the column view): column j holds the block rows rowidx[colptr[j]] .. (ascending,
   the diagonal first for M_L and last for M_U), and pos[] the index of each of these blocks in M's BSR storage.
   Column j of M_L solves the small block triangular system L(J,J) X = E_j (J its pattern rows, E_j the identity block
   in the row of j), column j of M_U solves U(J,J) X = E_j (Ma et al. (2021), equation 7): L M_L = I and U M_U = I
   hold on the patterns. The symmetric variant replaces M_U by H = G^T D^-1 (G = M_L): M^-1 = G^T D^-1 G.
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

/* out = S^-1 for S = (B + B^T) / 2 (bs x bs, row-major) by the Cholesky factorization S = C C^T: returns 1 when S is
   not positive definite (a pivot not above 1e-14 times S's largest diagonal entry, or not finite), then out is zero.
   out is symmetric (computed as Y^T Y, Y = C^-1). The symmetric variant's D blocks. */
MS_BISAI_HD int MSBISAIInvertBlockSPD(int bs, const double *B, double *out)
{
  double c[MS_BISAI_MAXBS * MS_BISAI_MAXBS], y[MS_BISAI_MAXBS * MS_BISAI_MAXBS], dmax = 0.0;
  int    bad = 0;

  for (int r = 0; r < bs; r++)
    for (int k = 0; k < bs; k++) c[r * bs + k] = 0.5 * (B[r * bs + k] + B[k * bs + r]);
  for (int r = 0; r < bs; r++)
    if (!(c[r * bs + r] <= dmax)) dmax = c[r * bs + r]; /* a NaN wins */
  if (!(dmax > 0.0) || !isfinite(dmax)) bad = 1;
  for (int j = 0; j < bs && !bad; j++) { /* C (lower) over c's lower triangle */
    double d = c[j * bs + j];

    for (int k = 0; k < j; k++) d -= c[j * bs + k] * c[j * bs + k];
    if (!(d > 1e-14 * dmax) || !isfinite(d)) {
      bad = 1;
      break;
    }
    d              = sqrt(d);
    c[j * bs + j] = d;
    for (int i = j + 1; i < bs; i++) {
      double s = c[i * bs + j];
      for (int k = 0; k < j; k++) s -= c[i * bs + k] * c[j * bs + k];
      c[i * bs + j] = s / d;
    }
  }
  if (bad) {
    for (int e = 0; e < bs * bs; e++) out[e] = 0.0;
    return 1;
  }
  for (int j = 0; j < bs; j++) /* Y = C^-1, lower: column j by forward substitution */
    for (int i = 0; i < bs; i++) {
      double s = (i == j) ? 1.0 : 0.0;
      if (i < j) {
        y[i * bs + j] = 0.0;
        continue;
      }
      for (int k = j; k < i; k++) s -= c[i * bs + k] * y[k * bs + j];
      y[i * bs + j] = s / c[i * bs + i];
    }
  for (int r = 0; r < bs; r++) /* out = Y^T Y */
    for (int k = r; k < bs; k++) {
      double s = 0.0;
      for (int t = k; t < bs; t++) s += y[t * bs + r] * y[t * bs + k];
      out[r * bs + k] = s;
      out[k * bs + r] = s;
    }
  return 0;
}

/* |a_ii| of row i of a CSR matrix (columns ascending), 0 when not stored */
MS_BISAI_HD double MSBISAIDiagAbs(const int *ai, const int *aj, const double *aa, int i)
{
  const int f = MSBISAIFind(aj, ai[i], ai[i + 1], i);
  return f < 0 ? 0.0 : fabs(aa[f]);
}

/* whether entry e = a_ij of row i differs from a_ji (0 when not stored) by more than symtol times the larger of |a_ij|,
   |a_ji| and sqrt(|a_ii| |a_jj|) (di = |a_ii|): the entries of a symmetric assembly summed in another order, or
   cancelled to rounding, are equal to this tolerance */
MS_BISAI_HD int MSBISAIAsymmetric(int m, const int *ai, const int *aj, const double *aa, int i, int e, double di, double symtol)
{
  const int j = aj[e];
  double    v = aa[e], w = 0.0, scale;

  if (j < 0 || j >= m) return 0;
  {
    const int f = MSBISAIFind(aj, ai[j], ai[j + 1], i);
    if (f >= 0) w = aa[f];
  }
  scale = fmax(fmax(fabs(v), fabs(w)), sqrt(di * MSBISAIDiagAbs(ai, aj, aa, j)));
  return !(fabs(v - w) <= symtol * scale); /* a_ji not finite: asymmetric (its own row reports it as not finite) */
}

/* Block row i of the block pattern of a CSR matrix (columns ascending in each row): the block columns of its bs rows
   and i itself, merged; returns their number. With cols (not NULL) writes them ascending and *diagpos = base + the
   position of i; with map, map[e] = (base + the position of aj[e] / bs) bs^2 + (row % bs) bs + aj[e] % bs for each
   entry e of the bs rows. */
MS_BISAI_HD int MSBISAIBlockRow(int bs, int i, const int *ai, const int *aj, int base, int *cols, int *diagpos, int *map)
{
  int e[MS_BISAI_MAXBS], end[MS_BISAI_MAXBS], n = 0, dpending = 1;

  for (int r = 0; r < bs; r++) {
    e[r]   = ai[i * bs + r];
    end[r] = ai[i * bs + r + 1];
  }
  for (;;) {
    int c = dpending ? i : -1;

    for (int r = 0; r < bs; r++)
      if (e[r] < end[r] && (c < 0 || aj[e[r]] / bs < c)) c = aj[e[r]] / bs;
    if (c < 0) break;
    if (c == i) {
      dpending = 0;
      if (cols) *diagpos = base + n;
    }
    if (cols) cols[n] = c;
    for (int r = 0; r < bs; r++)
      for (; e[r] < end[r] && aj[e[r]] / bs == c; e[r]++)
        if (map) map[e[r]] = (base + n) * bs * bs + r * bs + aj[e[r]] % bs;
    n++;
  }
  return n;
}

#define MS_BISAI_NONE 0x7f7f7f7f /* "no such row" (the byte pattern 0x7f the CUDA version memsets) */

/* What the setup kernels report, in the backend's memory (one struct; the kernels take pointers to its fields) */
typedef struct {
  int                bad;      /* invert_diag, ilu_exact: the smallest failing block row, MS_BISAI_NONE */
  int                check[2]; /* check: the smallest row with a non-finite entry, with an asymmetric entry */
  int                pad;
  long long          total;    /* scan: the sum of the counts */
  unsigned long long products; /* ilu_exact, ilu_residual, isai_*: bs x bs block products done */
} MSBISAIStatus;

/* ---------------------------------------------------------------------------------------------------------------
   Symbolic phase (once per nonzero pattern of the operator, block size and level)
   --------------------------------------------------------------------------------------------------------------- */

/* ptr[0] = 0 and ptr[i+1] = ptr[i] + (the count in ptr[i+1] on entry), i < n; *total = the sum in 64 bits (backend
   memory); when it is 2^31 or more ptr is undefined (the glue raises the error) */
#define MS_BISAI_SCAN(name) int name(int n, int *ptr, long long *total, void *stream)

/* The block pattern of the diagonal block (m = nb bs rows, CSR ai/aj, columns ascending in each row): block row i
   holds the block columns aj/bs of its bs rows and i itself (the diagonal block, kept even when none of its
   entries is stored). count: rowptr[i+1] = their number; fill: cols (ascending), rowidx, diag[i] = the position of
   block (i,i), map[e] = the index in a BSR value array of CSR entry e (p bs^2 + (row % bs) bs + col % bs). One merge
   of the bs sorted rows per block row (one thread per block row on the GPU). */
#define MS_BISAI_BLOCK_COUNT(name) int name(int nb, int bs, const int *ai, const int *aj, int *rowptr, void *stream)
#define MS_BISAI_BLOCK_FILL(name)  int name(int nb, int bs, const int *ai, const int *aj, const int *rowptr, int *cols, int *rowidx, int *diag, int *map, void *stream)

/* The lower (lower = 1: columns <= i) or upper (columns >= i) part of a block pattern with its diagonal (diag[i] the
   position of (i,i)): count (pcols NULL: prp[i+1] = the row's count) or fill (prp scanned) */
#define MS_BISAI_PATTERN_PART(name) int name(int nb, const int *rowptr, const int *cols, const int *diag, int lower, int *prp, int *pcols, void *stream)

/* The pattern of the product of two patterns, Q = S(P T): row i of Q is the union of the rows T(j), j in P(i), columns
   ascending; count (qcols NULL: qrp[i+1]) or fill (qrp scanned). The GPU expands the pairs, sorts each row's
   segment and keeps one of each column; the reference marks them: the same integers. */
#define MS_BISAI_PATTERN_POWER(name) int name(int nb, const int *prp, const int *pcols, const int *trp, const int *tcols, int *qrp, int *qcols, void *stream)

/* The column view of a pattern (nnz blocks): colptr (nb + 1), rowidx[t] the block row of the t-th block of the
   columns' order (rows ascending in each column), pos[t] its index in the pattern's row-major storage */
#define MS_BISAI_PATTERN_TRANSPOSE(name) int name(int nb, int nnz, const int *rp, const int *cols, int *colptr, int *rowidx, int *pos, void *stream)

/* ---------------------------------------------------------------------------------------------------------------
   Numeric phase (every setup)
   --------------------------------------------------------------------------------------------------------------- */

/* Checks of the operator's diagonal block (m rows, CSR ai/aj/aa, columns ascending in each row), one pass:
   out[0] = the smallest row with an entry that is not finite, out[1] = with symtol >= 0 the smallest row i holding a
   finite entry a_ij that MSBISAIAsymmetric() finds asymmetric, MS_BISAI_NONE when there is none (symtol < 0:
   out[1] = MS_BISAI_NONE, not checked). */
#define MS_BISAI_CHECK(name) int name(int m, const int *ai, const int *aj, const double *aa, double symtol, int *out, void *stream)

/* The BSR values of the diagonal block: A (nvals doubles) zeroed, then A[map[e]] = aa[e], e < nnz */
#define MS_BISAI_VALUES(name) int name(int nnz, const int *map, const double *aa, long long nvals, double *A, void *stream)

/* The diagonal entries of the diagonal blocks of A multiplied by factor, in place: the shifted operator of a retried
   symmetric factorization (A + alpha diag(A), factor = 1 + alpha) */
#define MS_BISAI_SHIFT(name) int name(int nb, int bs, const int *diag, double factor, double *A, void *stream)

/* Dinv[i] = the inverse of the block at F[diag[i]]: spd = 0 by Gauss-Jordan elimination with partial pivoting
   (MSBISAIInvertBlock(): a block whose pivot is zero, not finite or below 1e-14 times its largest entry is singular),
   spd = 1 the inverse of its symmetric part by Cholesky (MSBISAIInvertBlockSPD(): a block that is not positive
   definite fails); a failed block's Dinv is zero and *bad (reset by the kernel) becomes the smallest such block row,
   else MS_BISAI_NONE. */
#define MS_BISAI_INVERT_DIAG(name) int name(int nb, int bs, int spd, const int *diag, const double *F, double *Dinv, int *bad, void *stream)

/* The exact block ILU(0) on the pattern in row order (IKJ): for each block row i, for its lower blocks k ascending,
   L(i,k) = F(i,k) Dinv(k), then F(i,j) -= L(i,k) F(k,j) for the blocks j > k of row k that row i has; then Dinv(i) as
   invert_diag (spd). F starts as A. On the GPU one warp factors one block row, the rows taken in increasing order
   from a counter, a row waiting (spinning) until the rows it reads are done: the same operations in the same order
   as the reference (no level sets). *bad: the smallest block row whose diagonal block fails (MS_BISAI_NONE); F and
   Dinv are undefined after a failure (the reference stops there). *products (reset by the kernel) = the block
   products. nnzb = rowptr[nb]. work: nb + 1 ints (the CUDA kernel's done flags and counter; the reference's column
   positions). */
#define MS_BISAI_ILU_EXACT(name) \
  int name(int nb, int bs, int nnzb, int spd, const int *rowptr, const int *cols, const int *diag, const double *A, double *F, double *Dinv, int *work, int *bad, unsigned long long *products, void *stream)

/* One fixed-point (ParILU) sweep on the blocks, Jacobi style: every new value from the previous sweep's F.
   residual: S(i,j) = A(i,j) - sum_{k < min(i,j), (i,k), (k,j) in the pattern} F(i,k) F(k,j)   (k ascending);
             products (not NULL: reset, then the block products counted)
   update:   F(i,j) = S(i,j) Dinv(j) for i > j, S(i,j) for i <= j; with Dinv NULL: F(i,j) = 0 for i > j
             (the initial guess L = I, U = triu(A) when S = A). */
#define MS_BISAI_ILU_RESIDUAL(name) \
  int name(int bs, int nnzb, const int *rowptr, const int *rowidx, const int *cols, const double *A, const double *F, double *S, unsigned long long *products, void *stream)
#define MS_BISAI_ILU_UPDATE(name) int name(int bs, int nnzb, const int *rowidx, const int *cols, const double *S, const double *Dinv, double *F, void *stream)

/* The symmetric variant's U = D L^T from the factors' lower part: F(i,i) = its symmetric part D_i, and for the upper
   blocks j > i of row i, F(i,j) = D_i F(j,i)^T (zero when block (j,i) is not in the pattern). So U = D L^T holds to
   one rounding whatever produced F (exact factorization, sweeps, a pattern that is not symmetric). */
#define MS_BISAI_IC_UPPER(name) int name(int nb, int bs, const int *rowptr, const int *cols, const int *diag, double *F, void *stream)

/* The approximate inverses, one block column j per warp (CUDA) or loop iteration (host), column-oriented forward
   (lower) or backward (upper) substitution on the blocks of the column's pattern; the blocks of the small system are
   read from F (binary search of block (J_q, J_p) in F's row J_q), never stored. M's values are written at pos[].
   products (not NULL: reset, then counted): the blocks of the small systems found. */
#define MS_BISAI_ISAI_LOWER(name) \
  int name(int nb, int bs, const int *frowptr, const int *fcols, const double *F, const int *colptr, const int *rowidx, const int *pos, double *M, unsigned long long *products, void *stream)
#define MS_BISAI_ISAI_UPPER(name) \
  int name(int nb, int bs, const int *frowptr, const int *fcols, const double *F, const double *Dinv, const int *colptr, const int *rowidx, const int *pos, double *M, unsigned long long *products, void *stream)

/* The symmetric variant's second factor: H = G^T D^-1, G = M_L (the approximate inverse of L, BSR) read through its
   column view (block t < nnz of the view is G's block pos[t] in block row rowidx[t]), so that H is the BSR matrix with
   rowptr = the view's colptr and cols = rowidx: H[t] = G[pos[t]]^T Dinv[rowidx[t]]. The apply z = H (G r) is then
   z = G^T D^-1 G r. */
#define MS_BISAI_ISAI_TRANSPOSE(name) int name(int bs, int nnz, const int *rowidx, const int *pos, const double *G, const double *Dinv, double *H, void *stream)

/* ---------------------------------------------------------------------------------------------------------------
   Apply
   --------------------------------------------------------------------------------------------------------------- */

/* y = M x (add = 0) or y += M x (add = 1) for a BSR matrix M (one thread per scalar row on the GPU); y must not alias x */
#define MS_BISAI_BSR_MULT(name) int name(int nb, int bs, const int *rowptr, const int *cols, const double *vals, const double *x, int add, double *y, void *stream)

/* y = b - T x, T = L (lower = 1: the identity plus F's strictly lower blocks) or U (lower = 0: F's diagonal and upper
   blocks): the residual of a triangular system, for the probe of the setup and the Richardson steps of the apply
   (y_{s+1} = y_s + M (b - T y_s)); y must not alias x */
#define MS_BISAI_FACTOR_RESIDUAL(name) \
  int name(int nb, int bs, int lower, const int *rowptr, const int *cols, const int *diag, const double *F, const double *b, const double *x, double *y, void *stream)

/* y = M x or y += M x by a vendor library's BSR product on the same arrays (blocks stored by rows; on the GPU
   cuSPARSE's cusparseDbsrmv()), for the comparison with bsr_mult (-pc_bisai_spmv cusparse). *ctx holds the library's
   handle and matrix descriptor, created by the first call (nb = 0 only creates it) and freed by
   MS_BISAI_LIBRARY_DESTROY. Returns 0, a CUDA error code (> 0), or minus the library's status (a cusparseStatus_t). */
#define MS_BISAI_BSR_MULT_LIBRARY(name) int name(void **ctx, int nb, int bs, int nnzb, const int *rowptr, const int *cols, const double *vals, const double *x, int add, double *y, void *stream)
#define MS_BISAI_LIBRARY_DESTROY(name)  int name(void **ctx)

typedef struct {
  const char *backend;
  /* symbolic */
  MS_BISAI_SCAN((*scan));
  MS_BISAI_BLOCK_COUNT((*block_count));
  MS_BISAI_BLOCK_FILL((*block_fill));
  MS_BISAI_PATTERN_PART((*pattern_part));
  MS_BISAI_PATTERN_POWER((*pattern_power));
  MS_BISAI_PATTERN_TRANSPOSE((*pattern_transpose));
  /* numeric */
  MS_BISAI_CHECK((*check));
  MS_BISAI_VALUES((*values));
  MS_BISAI_SHIFT((*shift));
  MS_BISAI_INVERT_DIAG((*invert_diag));
  MS_BISAI_ILU_EXACT((*ilu_exact));
  MS_BISAI_ILU_RESIDUAL((*ilu_residual));
  MS_BISAI_ILU_UPDATE((*ilu_update));
  MS_BISAI_IC_UPPER((*ic_upper));
  MS_BISAI_ISAI_LOWER((*isai_lower));
  MS_BISAI_ISAI_UPPER((*isai_upper));
  MS_BISAI_ISAI_TRANSPOSE((*isai_transpose));
  /* apply */
  MS_BISAI_BSR_MULT((*bsr_mult));
  MS_BISAI_FACTOR_RESIDUAL((*factor_residual));
  /* the library's product (NULL: the backend has none, as the reference) */
  const char *library;
  MS_BISAI_BSR_MULT_LIBRARY((*bsr_mult_library));
  MS_BISAI_LIBRARY_DESTROY((*library_destroy));
  int library_min_bs; /* the smallest block size it takes (cusparseDbsrmv() failed on 1 x 1 blocks: CUDA 13.0, an
                         H100, 2026-11-24) */
} MSBISAIKernels;

#define MS_BISAI_DECLARE(B) \
  MS_BISAI_SCAN(MSBISAIScan_##B); \
  MS_BISAI_BLOCK_COUNT(MSBISAIBlockCount_##B); \
  MS_BISAI_BLOCK_FILL(MSBISAIBlockFill_##B); \
  MS_BISAI_PATTERN_PART(MSBISAIPatternPart_##B); \
  MS_BISAI_PATTERN_POWER(MSBISAIPatternPower_##B); \
  MS_BISAI_PATTERN_TRANSPOSE(MSBISAIPatternTranspose_##B); \
  MS_BISAI_CHECK(MSBISAICheck_##B); \
  MS_BISAI_VALUES(MSBISAIValues_##B); \
  MS_BISAI_SHIFT(MSBISAIShift_##B); \
  MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_##B); \
  MS_BISAI_ILU_EXACT(MSBISAIILUExact_##B); \
  MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_##B); \
  MS_BISAI_ILU_UPDATE(MSBISAIILUUpdate_##B); \
  MS_BISAI_IC_UPPER(MSBISAIICUpper_##B); \
  MS_BISAI_ISAI_LOWER(MSBISAIISAILower_##B); \
  MS_BISAI_ISAI_UPPER(MSBISAIISAIUpper_##B); \
  MS_BISAI_ISAI_TRANSPOSE(MSBISAIISAITranspose_##B); \
  MS_BISAI_BSR_MULT(MSBISAIBSRMult_##B); \
  MS_BISAI_FACTOR_RESIDUAL(MSBISAIFactorResidual_##B); \
  MS_KERNEL_EXTERN const MSBISAIKernels MSBISAIKernels_##B

MS_BISAI_DECLARE(Reference);
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_BISAI_DECLARE(CUDA);
MS_BISAI_BSR_MULT_LIBRARY(MSBISAIBSRMultCusparse_CUDA);
MS_BISAI_LIBRARY_DESTROY(MSBISAICusparseDestroy_CUDA);
#endif

#ifdef __cplusplus
}
#endif
