/*
   CUDA kernels of petsc-modsell. Plain C interface: raw device pointers and a stream
   (cudaStream_t passed as void *), no PETSc types, so the .cu files compile with nvcc alone.
   Every function returns a cudaError_t value (0 = cudaSuccess) from the launch; none of
   them synchronizes the stream.
*/
#pragma once

#include <petscmodsell/private/mskernels.h>
#include <petscmodsell/private/msbricks.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
   The bucketed permutation of a permuted image's product (m rows, C = chunk rows per bucket, K = ceil(m / C) buckets;
   perm: image row -> user row, iperm its inverse). Bucket b of x holds the user rows j whose image row iperm[j] lies in
   [bC, min(m, (b+1)C)), in increasing j: px[j] = bC + (its rank among them), and qx[r] = px[perm[r]] is where image row
   r's x value lies. Bucket b of y holds the image rows r whose user row perm[r] lies in [bC, ...), in increasing r:
   py[r], and qy[j] = py[iperm[j]]. A product is then
     (a) inter[px[j]] = x[j]                   (MSCUDABucketScatter: sequential read, K write frontiers)
     (b) the slices read x through qx (own value inter[qx[r]], an off-slice code c > 0 inter[qx[c - 1]]: inside one
         bucket, L2-resident) and write their row r to yout[py[r]] (K write frontiers)
     (c) y[j] = (yin ? yin[j] : 0) + yout[qy[j]]   (MSCUDABucketGather: an L2-local gather, sequential write)
   With K == 1 no array is needed: px, py are the identity, inter = x, qx = perm, qy = iperm.
*/
typedef struct {
  int        chunk;          /* C > 0 (C >= m: one bucket) */
  int        nbuckets;       /* K */
  const int *px, *qx, *py, *qy; /* m each; NULL when K == 1 */
  const int *bcols;          /* NULL, or the image's column codes with every c > 0 replaced by qx[c - 1] + 1 (qx = perm
                                when K == 1): the product then reads inter[c - 1] with no dependent load */
} MSPermBuckets;

/* y[perm[r]] = (yin ? yin[perm[r]] : 0) + diag[r]*x[perm[r]] + sum_k vals[slot]*x(cols[slot]) over the slices of
   the image (see modsellimpl.h for the encoding); diag, perm, yin may be NULL; img->negate (with yin): the row's sum
   subtracted from yin instead (the residual yin - A x, the same bits as the product followed by yin - y).
   img->local_cols != 0: negative codes read the slice's x window from shared memory. A permuted image (perm, perm_cols; img->iperm required):
     pb NULL (or pb->chunk == 0): x is first gathered into work (the image numbering), which the product reads; the
       product goes to work + m and comes back by a gather through img->iperm;
     pb: the bucketed product above, inter = work (K > 1), yout = work + m.
   Either way every row's sum is formed in the same order: the results are the same bit for bit. work: 2 m doubles
   (not used without perm: may be NULL). */
int MSCUDAMult(const MSImageView *img, const MSPermBuckets *pb, const double *x, const double *yin, double *y, double *work, void *stream);

/* The arrays of MSPermBuckets for m rows, chunk C (1 <= C < m): px, qx, py, qy (m ints each, device) from perm and
   iperm (stable radix sorts by bucket on the stream; stream-ordered temporaries of 4 m ints); exported for the kernel
   tests (src/ksp/pc/tests/ex2) */
MS_KERNEL_EXTERN int MSCUDAPermBucketsBuild(int m, int chunk, const int *perm, const int *iperm, int *px, int *qx, int *py, int *qy, void *stream);
/* bcols[s] = cols[s] > 0 ? qx[cols[s] - 1] + 1 : cols[s] for the nslots slots of an image */
int MSCUDAPermBucketsRecode(long long nslots, const int *cols, const int *qx, int *bcols, void *stream);
/* pass (a): inter[px[j]] = x[j], j < m */
int MSCUDABucketScatter(int m, const int *px, const double *x, double *inter, void *stream);
/* pass (c): y[j] = (yin ? yin[j] : 0) + yout[qy[j]], j < m (yin may be y) */
int MSCUDABucketGather(int m, const int *qy, const double *yout, const double *yin, double *y, void *stream);
/* the same with y[j] = yin[j] + ys yout[qy[j]] where yin is given (ys = 1 or -1: exact) */
int MSCUDABucketGatherSigned(int m, const int *qy, const double *yout, const double *yin, double ys, double *y, void *stream);

/* vals[csr2slot[k]] = a[k] (csr2slot[k] >= 0) or diag[-csr2slot[k]-1] = a[k] */
int MSCUDAScatterValues(long long nnz, const long long *csr2slot, const double *a, double *vals, double *diag, void *stream);

/* d[perm[r]] = diag[r] */
int MSCUDAGetDiagonal(int m, const double *diag, const int *perm, double *d, void *stream);

/* Device build of the image from a device CSR (32-bit indices; ai[m] = nnz).
   Step 1: slice widths and their prefix sum: sliceptr[0..nslices]; stats[0] += rows that have a
   diagonal entry (when dapart), stats[1] = max slice width. stats must be zeroed by the caller.
   Uses temporary device memory (stream-ordered allocation). */
int MSCUDABuildSlicePtr(int m, int sh, int nslices, const int *ai, const int *aj, const int *perm, int dapart, long long *sliceptr, unsigned long long *stats, void *stream);
/* Step 2: fill cols/vals/diag (when write_image) and/or csr2slot (when csr2slot != NULL);
   iperm (old -> new) is needed for the codes when perm (they are in the image numbering); stats[2] += in-slice
   (shared-memory) entries.
   Padding slots get code 0 and value 0. */
int MSCUDAFill(int m, int sh, const int *ai, const int *aj, const double *aa, const int *perm, const int *iperm, int dapart, int local, const long long *sliceptr, int write_image, int *cols, double *vals, double *diag, long long *csr2slot, unsigned long long *stats, void *stream);

/* The block layout (modsellimpl.h; cuda/blockkernels.cu), mb block rows of bs (2 to MS_BLOCK_MAX), sh block rows per
   slice (sh bs <= 1024), a device CSR of 32-bit indices (sorted columns):
   MSCUDABlockBuildSlicePtr: the slices' widths in blocks and their prefix sum, sliceptr[0..nslices]; stats[0] += the
   off-diagonal blocks (the distinct block columns of a block row's bs rows, the diagonal block left out when dapart),
   stats[1] = the widest slice (stats zeroed by the caller). Temporary device memory, stream-ordered. */
int MSCUDABlockBuildSlicePtr(int mb, int bs, int sh, int nslices, const int *ai, const int *aj, int dapart, long long *sliceptr, unsigned long long *stats, void *stream);
/* write_image: cols, vals and diag (all of it zeroed here first, padding and missing entries stay 0; nslots block slots),
   stats[2] += the in-slice blocks (local); csr2slot (may be NULL): each CSR entry's position in vals (>= 0) or
   -(position in diag + 1) */
int MSCUDABlockFill(int mb, int bs, int sh, const int *ai, const int *aj, const double *aa, int dapart, int local, const long long *sliceptr, long long nslots, int write_image, int *cols, double *vals, double *diag, long long *csr2slot, unsigned long long *stats, void *stream);
/* y = (yin ? yin + ys A x : A x) of a block view (img->bs > 1, natural order; ys = -1 when img->negate): one thread per
   scalar row, sh bs threads per slice; each row's terms added in the order of the host reference: the diagonal block's
   columns, then each slot's block columns */
int MSCUDABlockMult(const MSImageView *img, const double *x, const double *yin, double *y, void *stream);
/* d[r] = the diagonal entry of row r of a block view with the diagonal blocks apart */
int MSCUDABlockGetDiagonal(const MSImageView *img, double *d, void *stream);

/* The CSR of the matrix an image was built from (user numbering, 32-bit indices), rebuilt on the device from the
   image: ai (the matrix's row starts, device memory) given, aj and aa (either may be NULL) get every row's entries in
   the CSR's order (increasing column; a diagonal kept apart goes back to its place: a row has one when its length
   exceeds its slots). The exact arrays MSCUDAFill() read (the same entry numbering). v: a device view with iperm
   when the image is permuted. */
int MSCUDAImageCSR(const MSImageView *v, const int *ai, int *aj, double *aa, void *stream);

/* The bricks ordering (msbricks.h; MSImageBricksPermHost() computes the same on the host): perm[r] = MSBricksOld(k, r)
   (new -> old) for the m rows of the box; iperm (old -> new) too when not NULL. */
MS_KERNEL_EXTERN int MSCUDABricksPerm(int m, const MSBricks *k, int *perm, int *iperm, void *stream);
/* y[i] = (yin ? yin[i] : 0) + yp[iperm[i]]: a result in an image's numbering back in the user's, as a gather (a random
   read per row; a random write per row costs more) */
int MSCUDAUnpermute(int m, const int *iperm, const double *yp, const double *yin, double *y, void *stream);
/* iperm[perm[r]] = r */
int MSCUDAInversePerm(int m, const int *perm, int *iperm, void *stream);

/* PCGAMG's graph (cuda/graph.cu, seq/graph.c) from a device CSR of m x m (32-bit, nnz entries): |A| (absval) or A,
   plus its transpose (symmetrize: an entry in both rows summed, in one copied), scaled symmetrically by the inverse
   square roots of the absolute diagonal (scale), as SeqAIJ's MatCreateGraph() computes it (no filter). The result,
   gi (m + 1), gj, ga (gnnz entries, sorted columns), is allocated on the stream and freed by MSCUDAGraphFree();
   the work arrays are freed on return. Needs 2 nnz + m < 2^31 when symmetrize. */
int MSCUDAGraphBuild(int m, int n, const int *ai, const int *aj, const double *aa, long long nnz, int absval, int symmetrize, int scale, int **gi, int **gj, double **ga, long long *gnnz, void *stream);
int MSCUDAGraphFree(int *gi, int *gj, double *ga, void *stream);

#ifdef __cplusplus
}
#endif
