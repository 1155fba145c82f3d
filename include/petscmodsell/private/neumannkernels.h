/*
   Kernels of PCNEUMANN, declared once (see mskernels.h for the conventions): the host reference
   (src/ksp/pc/impls/neumann/neumann_reference.c) and the CUDA implementation (neumann.cu) define each signature and
   compute the same function (the deflation's setup sums bit for bit, in one canonical order; the restriction's
   subdomain sums up to the order of the additions); the glue (neumann.c) calls them through MSNeuKernels.

   Notation (Gupta, van Gijzen and Vuik (2011), eq. 8, 15, 16): A = L + D + U on the local diagonal block Ad (L strictly lower, U strictly upper
   in the user's row numbering), the scaled operator A~ = D^-1/2 A D^-1/2 = I + L~ + U~ (L~ = D^-1/2 L D^-1/2). The
   kernels never form A~: with dinv = D^-1 (user row order),
       D^-1/2 L~ = (D^-1 L) D^-1/2,
   so every power of L~ between two half scalings is a power of G_L = D^-1 L, and
       Neu1: D^-1/2 (I - U~)(I - L~) D^-1/2         = (I - G_U)(I - G_L) D^-1
       Neu2: D^-1/2 (I - U~ + U~^2)(I - L~ + L~^2) D^-1/2 = (I - G_U + G_U^2)(I - G_L + G_L^2) D^-1
   (U~ = L~^T for a symmetric operator: the paper's K^T K). Each term is one pass of the kernel tri over a split copy
   (MSNeuSplit) of one scaled triangle, G_L = D^-1 L or G_U = D^-1 U, built once per setup from the image:
       y[o] = bb[o] - sum_{c in part(o)} g_oc xx[c],   g_oc = dinv[o] a_oc,
       bb[o] = scale_b ? dinv[o] b[o] : b[o],   xx[c] = scale_x ? dinv[c] x[c] : x[c],
   part(o) the user columns c < o (MS_PART_LOWER) or c > o (MS_PART_UPPER) of user row o's off-diagonal entries.
   Neu1 is tri(L, b=r*, x=r*) then tri(U, b=p, x=p); Neu2 evaluates each factor by Horner, P x = x - G (x - G x):
   tri(L, r*, r*) -> t; tri(L, r*, t) -> p; tri(U, p, p) -> t; tri(U, p, t) -> z (r*: r read with scale 1/d).
   y must not alias x (x is read at the neighbours); y may alias b.

   The split copy: the image's slices and row order (image row r = s sh + t, user row perm[r]), each row's kept
   entries in image slot order, slot k of image row r at ptr[s] + k sh + t for k < (ptr[s+1] - ptr[s]) / sh (the
   slice's width: the most kept entries of its rows), the local user column and g_oc; the slots past a row's entries
   (and the padding rows of the last slice) hold the row's own column (0 in the padding rows of the
   last slice) and value 0. A pass reads
   only its triangle's entries (the image holds both, and a pass over it reads the other half for nothing).
   Built by split_width (the width of every slice, read back to compute ptr on the host) and split_fill.
*/
#pragma once

#include <petscmodsell/private/mskernels.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MS_NEU_BAD_NONE (~0ULL)

/* Setup status, in the backend's memory */
typedef struct {
  unsigned long long badrow; /* smallest local (user) row whose diagonal entry is missing, not positive or not finite */
  unsigned long long lnorm;  /* bits of ||L~||_inf = max_o sum_{c<o} |a_oc| sqrt(dinv_o dinv_c) (a nonnegative double or NaN) */
} MSNeuStatus;

/* dinv[o] = 1 / diag (0 where the diagonal is not positive and finite, recorded in status->badrow); resets the status */
#define MS_NEU_DIAG(name) int name(const MSImageView *img, double *dinv, MSNeuStatus *status, void *stream)
/* status->lnorm = ||L~||_inf of the scaled strictly lower part (dinv from diag) */
#define MS_NEU_LNORM(name) int name(const MSImageView *img, const double *dinv, MSNeuStatus *status, void *stream)
/* a split copy of one scaled triangle (see above); cols and vals written by split_fill, read by tri */
typedef struct {
  int              m, sh, nslices;
  const int       *perm; /* user row of image row r (NULL: the identity) */
  const long long *ptr;  /* nslices + 1 slot offsets */
  int             *cols;
  double          *vals;
} MSNeuSplit;

/* width[s] = the most entries of part (MS_PART_LOWER or MS_PART_UPPER) in one row of slice s, s < img->nslices */
#define MS_NEU_SPLIT_WIDTH(name) int name(const MSImageView *img, int part, int *width, void *stream)
/* S->cols, S->vals from the image (S->ptr from the widths; S->m, sh, nslices, perm those of the image) */
#define MS_NEU_SPLIT_FILL(name) int name(const MSImageView *img, int part, const double *dinv, const MSNeuSplit *S, void *stream)
/* one term (see above): y = bb - G xx on the split copy S of G = G_L or G_U */
#define MS_NEU_TRI(name) int name(const MSNeuSplit *S, const double *dinv, const double *b, int scale_b, const double *x, int scale_x, double *y, void *stream)

/* y = dinv .* x (the type jacobi: the series truncated after its first term) */
#define MS_NEU_SCALE(name) int name(int m, const double *dinv, const double *x, double *y, void *stream)

/* ------------------------------------------------------------------------------------------------------------
   Deflation (Gupta, van Gijzen and Vuik (2011), section 4): Z piecewise constant on the nsub local subdomains, sub[o] the subdomain of local
   row o (0 <= sub[o] < nsub).

   Setup (once per setup, where the PC computes; docs/neumann.md):
     blocks:   sub[perm ? perm[r] : r] = r / bs, r < m (perm: a locality partition, new -> old; NULL: consecutive rows)
     order:    order = the local rows sorted by (sub[o], o) (a stable sort by subdomain), off[j] the position of the
               first row of subdomain j (off[nsub] = m; empty subdomains allowed); order NULL: sub is nondecreasing
               (the identity order), only off is computed
     cut:      *ncut = the entries a_oc of the diagonal block with sub[c] != sub[o] (a bound on the list below)
     galerkin: from the diagonal block's CSR (MSNeuCSR, columns the local rows), E's rows of this process,
                 E[j * nt + coff + k] = sum_{sub[o] = j, sub[c] = k} a_oc   (j < nsub; the rest of the nsub x nt
               array zeroed: the other processes' columns are added by the glue), and with Z not NULL Z^T A,
                 S(j, c) = sum_{sub[o] = j} a_oc,   Z->zw[c] = S(sub[c], c),
                 the list (Z->xrow, Z->xval) = (c, S(j, c)) for the pairs j != sub[c] with an entry, sorted by (j, c),
                 Z->xoff[j] its first entry of subdomain j (xoff[nsub] = *Z->nx, written to backend memory).
               The sums are in a canonical order that both backends follow exactly, so that their E, zw and list
               agree bit for bit and a repeated setup gives the same E: S(j, c) adds the a_oc in increasing o; E[j, k]
               adds the S(j, c), c in increasing order, as 32 lanes (lane l the terms l, l + 32, ..., in order) and
               the lanes by the tree (l, l + 16), (l, l + 8), (l, l + 4), (l, l + 2), (l, l + 1) (a warp's shuffle
               reduction). The CUDA kernel gets this order by stable radix sorts of (j, c) and (j, k) keys (no atomics
               on doubles); the reference by stable counting sorts.

   Per apply:
     restrict: out[j] = sum_{i = off[j]}^{off[j+1]-1} (a[o] - w[o] b[o])  (o = order ? order[i] : i)
                        - sum_{e = xoff[j]}^{xoff[j+1]-1} xval[e] b[xrow[e]]
               (b NULL: 0; w NULL: 1; xoff NULL: no list; out overwritten). With b = y and Z^T A (w = zw and the
               list) this is Z^T (r - A y) without forming A y. CUDA: one thread block per chunk of MS_NEU_CHUNK
               items (rows, then list entries) of one subdomain, a block reduction into work[], then one warp per
               subdomain adds its chunks (deterministic, no atomics). maxitems >= the most rows plus list entries of
               one subdomain; work holds nsub * MS_NEU_NCHUNKS(maxitems) doubles (unused by the reference).
     coarse:   c[i] = sum_j Einv[i * nt + j] g[j], i < nl   (the process's nl rows of the dense E^-1, row-major)
     prolong:  z[o] = y[o] + c[sub[o]]                       (z may alias y)
   ------------------------------------------------------------------------------------------------------------ */
#define MS_NEU_CHUNK          2048
#define MS_NEU_NCHUNKS(items) (((items) + MS_NEU_CHUNK - 1) / MS_NEU_CHUNK > 0 ? ((items) + MS_NEU_CHUNK - 1) / MS_NEU_CHUNK : 1)

/* the diagonal block as a CSR (columns ascending in each row, each at most once), in the backend's memory */
typedef struct {
  int           m, nnz;
  const int    *ai, *aj;
  const double *aa;
} MSNeuCSR;

/* Z^T A as the restriction reads it (outputs of galerkin, in the backend's memory) */
typedef struct {
  double    *zw;   /* m */
  int       *xrow; /* cap */
  double    *xval; /* cap */
  int       *xoff; /* nsub + 1 */
  long long  cap;  /* room in xrow, xval (from cut) */
  long long *nx;   /* the list's length (one value) */
} MSNeuZtA;

/* the deflation's layout as the restriction reads it */
typedef struct {
  int           m, nsub, maxitems;
  const int    *order, *off;        /* rows by subdomain (order NULL: the identity) */
  const double *w;                  /* zw (NULL: 1) */
  const int    *xoff, *xrow;        /* the list (xoff NULL: none) */
  const double *xval;
  double       *work;               /* nsub * MS_NEU_NCHUNKS(maxitems) doubles (CUDA) */
} MSNeuDefl;

#define MS_NEU_BLOCKS(name)   int name(int m, const int *perm, int bs, int *sub, void *stream)
#define MS_NEU_ORDER(name)    int name(int m, const int *sub, int nsub, int *order, int *off, void *stream)
#define MS_NEU_CUT(name)      int name(const MSNeuCSR *A, const int *sub, long long *ncut, void *stream)
#define MS_NEU_GALERKIN(name) int name(const MSNeuCSR *A, const int *sub, int nsub, int nt, int coff, double *E, const MSNeuZtA *Z, void *stream)
#define MS_NEU_RESTRICT(name) int name(const MSNeuDefl *D, const double *a, const double *b, int zta, double *out, void *stream)
#define MS_NEU_COARSE(name)   int name(int nl, int nt, const double *Einv, const double *g, double *c, void *stream)
#define MS_NEU_PROLONG(name)  int name(int m, const int *sub, const double *c, const double *y, double *z, void *stream)

typedef struct {
  const char *backend;
  MS_NEU_DIAG((*diag));
  MS_NEU_LNORM((*lnorm));
  MS_NEU_SPLIT_WIDTH((*split_width));
  MS_NEU_SPLIT_FILL((*split_fill));
  MS_NEU_TRI((*tri));
  MS_NEU_RESTRICT((*restrict_));
  MS_NEU_COARSE((*coarse));
  MS_NEU_PROLONG((*prolong));
  MS_NEU_SCALE((*scale));
  MS_NEU_BLOCKS((*blocks));
  MS_NEU_ORDER((*order));
  MS_NEU_CUT((*cut));
  MS_NEU_GALERKIN((*galerkin));
  int restrict_work; /* restrict_ sums by chunks through MSNeuDefl.work: the CUDA one does, the reference needs none */
} MSNeuKernels;

MS_NEU_DIAG(MSNeuDiag_Reference);
MS_NEU_LNORM(MSNeuLNorm_Reference);
MS_NEU_SPLIT_WIDTH(MSNeuSplitWidth_Reference);
MS_NEU_SPLIT_FILL(MSNeuSplitFill_Reference);
MS_NEU_TRI(MSNeuTri_Reference);
MS_NEU_RESTRICT(MSNeuRestrict_Reference);
MS_NEU_COARSE(MSNeuCoarse_Reference);
MS_NEU_PROLONG(MSNeuProlong_Reference);
MS_NEU_SCALE(MSNeuScale_Reference);
MS_NEU_BLOCKS(MSNeuBlocks_Reference);
MS_NEU_ORDER(MSNeuOrder_Reference);
MS_NEU_CUT(MSNeuCut_Reference);
MS_NEU_GALERKIN(MSNeuGalerkin_Reference);
MS_KERNEL_EXTERN const MSNeuKernels MSNeuKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_NEU_DIAG(MSNeuDiag_CUDA);
MS_NEU_LNORM(MSNeuLNorm_CUDA);
MS_NEU_SPLIT_WIDTH(MSNeuSplitWidth_CUDA);
MS_NEU_SPLIT_FILL(MSNeuSplitFill_CUDA);
MS_NEU_TRI(MSNeuTri_CUDA);
MS_NEU_RESTRICT(MSNeuRestrict_CUDA);
MS_NEU_COARSE(MSNeuCoarse_CUDA);
MS_NEU_PROLONG(MSNeuProlong_CUDA);
MS_NEU_SCALE(MSNeuScale_CUDA);
MS_NEU_BLOCKS(MSNeuBlocks_CUDA);
MS_NEU_ORDER(MSNeuOrder_CUDA);
MS_NEU_CUT(MSNeuCut_CUDA);
MS_NEU_GALERKIN(MSNeuGalerkin_CUDA);
MS_KERNEL_EXTERN const MSNeuKernels MSNeuKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
