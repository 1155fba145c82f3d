/*
   The mod-SELL image's data and internal functions, private to src/mat/impls/modsell (the format and the interface the
   rest of the tree uses: include/petscmodsell/private/modsellimpl.h). Outside this directory an image is opaque: it is
   created from a request (MSImageCreate()), set up with the operations of one memory (MSImageSetUp() with
   MSImageOps_Reference or MSImageOps_CUDA) and read through its layout (MSImageGetLayout()) and kernel view.

     image.c          the object: creation from a request, a change of request, setup (a new pattern or new values),
                      layout, statistics
     imageordering.c  the row ordering of a new pattern: MATMODSELL_ORDERING_AUTO's choice, RCM, bricks, partition
     imagebuild.c     the host and device builds from the CSR, the value refreshes, the permutation in either memory,
                      the arrays of either memory freed
     imageproduct.c   the settings of the product (threads per row, permute chunk), the products, diagonal and kernel
                      views in either memory, the bucketed permuted product, and the tables of operations
                      (MSImageOps_Reference, MSImageOps_CUDA)
   Each file uses only those listed after it (and image.c all of them).
*/
#pragma once

#include <petscmodsell/private/modsellimpl.h>

/* Threads per row of the GPU product when not set (-mat_modsell_row_lanes 0; MSImageRowLanes()): the largest power of two
   K with at least MS_ROW_LANES_SLOTS slots of the mean slice width per thread, K rows' threads in a block of at most
   1024 (K <= 1024 / sh) and m K <= MS_ROW_LANES_THREADS (about 1.5 times the threads an H100 holds at once): more
   threads per row only while the rows alone would leave the GPU idle. H100, 2026-11-25
   (docs/results/2026-11-25-h100-wide-rows), 27-point Laplacian and 3 coupled fields (81 nonzeros per row): 13.8 k rows
   of 27 entries 1.64x aijcusparse with K = 4 against 0.84x with one thread per row; 12.3 k rows of 81 entries 1.22x
   with K = 8 against 0.39x; from 262 k rows on one thread per row is the fastest */
#define MS_ROW_LANES_SLOTS   4
#define MS_ROW_LANES_THREADS 393216

struct _n_MSImage {
  /* what the image is asked to be (MSImageCreate(), MSImageSetRequest()), and the settings of its product, which do not
     change the layout */
  MSImageRequest req;
  PetscInt       lanes_asked;    /* threads per row of the product (0: from the mean slice width, MSImageRowLanes()) */
  PetscInt       permute_chunk;  /* rows per bucket of the permuted product on the GPU (0: x and y gathered through the
                                    permutation by separate kernels) */
  PetscBool      permute_recode; /* developer: a copy of the column codes rewritten to positions of the bucketed x */
  PetscBool      block_rows;     /* developer: the block layout's GPU product with one thread per block row */

  /* what the image was built from */
  PetscObjectId    id;
  PetscObjectState nzstate;   /* nonzero state of the source when the pattern was built */
  PetscObjectState hoststate; /* object state of the source matching the host values */
  PetscObjectState devstate;  /* object state of the source matching the device values */
  PetscBool        built;     /* the layout and the permutation are set for the current pattern and request */

  /* the layout of the current pattern (MSImageGetLayout()) */
  MSImageLayout lay;
  /* MATMODSELL_ORDERING_AUTO's statistics of the matrix's own order (imageordering.c) */
  PetscInt64 nat_local, nat_off; /* off-diagonal entries in their row's slice in the natural order, all (-1: not computed) */
  PetscInt   nat_stride;         /* those were counted on one slice in nat_stride (1: every slice) */
  PetscInt64 nat_span, nat_nspan; /* the rows spanned by the columns of the sampled slices with an off-diagonal entry,
                                     summed, and those slices */
  PetscBool  nat_windowed;        /* natural chosen for the window of x (MS_AUTO_WINDOW), not the slices */
  /* the permutation */
  PetscInt  *perm;      /* m, new -> old, or NULL (identity; with bricks or a partition: not computed on the host yet) */
  PetscBool  bricks;    /* the bricks ordering applies: perm is computed where it is needed (host:
                           MSImageEnsureHostPerm(), device: by a kernel) */
  MSBricks   bk;        /* its columns (msbricks.h) */
  PetscBool  partition; /* the partition ordering applies: perm is computed where the image is first built (host or
                           device: MSLocalityPerm() with the table of that memory, the same function); the other memory
                           gets a copy */
  PetscObjectId      perm_id; /* the pattern perm was computed for */
  PetscObjectState   perm_nzstate;
  MatModSELLOrdering perm_ordering; /* the ordering and the partition's block height perm was computed for */
  PetscInt           perm_sh;
  PetscInt           psh; /* the partition's block height */

  /* host image */
  PetscBool    host_pattern; /* host arrays hold the current pattern */
  PetscInt64  *sliceptr;     /* nslices+1 */
  int         *cols;         /* nslots */
  PetscScalar *vals;         /* nslots */
  PetscScalar *diag;         /* m, or NULL */
  PetscInt64  *csr2slot;     /* nnz, built when first needed */
  int         *hperm32;      /* perm as 32-bit integers for the host kernel view (64-bit PetscInt only) */
  PetscScalar *xwork;        /* m: x gathered into the image numbering by a host product (permuted images) */

  /* device image (CUDA) */
  PetscBool dev_pattern; /* device arrays hold the current pattern */
  void     *d_sliceptr, *d_cols, *d_vals, *d_diag, *d_perm, *d_csr2slot, *d_csrvals;
  void     *d_xwork;    /* 2 m: x and y in the image numbering, for a product (permuted images) */
  void     *d_iperm;    /* m: old -> new (permuted images) */
  void     *d_nzslices; /* the slices with an entry (MSImageView's nzslices), made at the first in-place device product
                           y += A x of an image without diagonal, in-slice codes or permutation */
  PetscInt  nnzslices;
  size_t    dev_bytes;

  /* the bucketed permuted product on the GPU (MSImageOps_CUDA's mult; modsellcuda.h, MSPermBuckets): set up at the
     first permuted product after each device build or change of the permute chunk, freed with the device image */
  PetscBool pb_ready;    /* the arrays below match the device image and the settings */
  PetscInt  pb_nbuckets; /* ceil(m / chunk) */
  void     *d_pbuckets;  /* 4 m ints px, qx, py, qy (more than one bucket; else none are needed) */
  void     *d_pbcols;    /* nslots ints: the recoded column codes (permute_recode) */
  size_t    pb_bytes;    /* device bytes of the two (counted in dev_bytes too) */
};

/* image.c: two requests give the same layout */
PETSC_INTERN PetscBool MSImageRequestEqual(const MSImageRequest *, const MSImageRequest *);
/* image.c: MatModSELLGetInfo() of the image; its statistics, building the host image only when no image exists */
PETSC_INTERN PetscErrorCode MSImageGetInfo(MSImage, MatModSELLInfo *);
PETSC_INTERN PetscErrorCode MSImageEnsureStats(MSImage, Mat);
/* The device image holds A's current pattern with the values of an earlier state (its next device setup would upload
   the values again); PETSC_FALSE when there is no device image of this pattern, or its values are current */
PETSC_INTERN PetscErrorCode MSImageDeviceValuesStale(MSImage, Mat, PetscBool *);
/* The device image holds A's current pattern (its values may be of an earlier state) */
PETSC_INTERN PetscErrorCode MSImageDevicePatternCurrent(MSImage, Mat, PetscBool *);

/* imageordering.c: the ordering of a new pattern (sizes m, n and nnz set): MATMODSELL_ORDERING_AUTO's choice, the slice
   height under it, the permutation (RCM now, bricks and partition where first needed) */
PETSC_INTERN PetscErrorCode MSImageOrderingPrepare(MSImage, Mat);
/* perm (new -> old) of the bricks ordering on the host */
PETSC_INTERN PetscErrorCode MSImageBricksPermHost(MSImage);

/* imagebuild.c: the arrays of either memory (FreePermBuckets: those of the bucketed permuted product alone, the image
   stays), and the permutation's host copy */
PETSC_INTERN PetscErrorCode MSImageFreeHost(MSImage);
PETSC_INTERN PetscErrorCode MSImageFreeDevice(MSImage);
PETSC_INTERN PetscErrorCode MSImageFreePermBuckets(MSImage);
PETSC_INTERN PetscErrorCode MSImageEnsureHostPerm(MSImage);
/* the setup of the tables: the image of A's current pattern with the values of object state 'state' */
PETSC_INTERN PetscErrorCode MSImageSetUp_Host(MSImage, Mat, PetscObjectState);

/* imageproduct.c: the settings of the product (they do not change the layout); threads summing one row of the product
   (1 before the image is built): a function of the image's shape only, so that the host and device products of an image
   add in the same order */
PETSC_INTERN PetscErrorCode MSImageSetPermuteChunk(MSImage, PetscInt, PetscBool);

PETSC_INTERN PetscInt       MSImageRowLanes(MSImage);

#if defined(PETSC_HAVE_CUDA)
PETSC_INTERN PetscErrorCode MSImageSetUp_CUDA(MSImage, Mat, PetscObjectState);
/* The CSR columns and values (either may be NULL) of the matrix of a set-up device image, ai given (modsellcuda.h,
   MSCUDAImageCSR()); queued on PETSc's current stream */
PETSC_INTERN PetscErrorCode MSImageGetDeviceCSR(MSImage, const int *, int *, double *);
#endif
