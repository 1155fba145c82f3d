/*
   Private interface of petsc-modsell: the mod-SELL image of a sequential AIJ block.

   The image (Wikberg (2024), section 3.2) of an m x n block with slice height sh:
     - rows are grouped in nslices = ceil(m/sh) slices of sh rows (the last one padded);
       with a row permutation perm (new -> old), image row r holds matrix row perm[r];
     - diag[r]: the diagonal entry of image row r (when diag_apart), else diagonal entries
       are stored in the slots like any other entry;
     - slot (s, k, t) = sliceptr[s] + k*sh + t holds the k-th off-diagonal of row s*sh+t
       (interleaved, so consecutive threads read consecutive addresses);
     - cols[slot]: 0 = padding; c+1 = column c, in the image numbering when the image is permuted
       (user column perm[c]: a product gathers x into that numbering once, xp[r] = x[perm[r]], and
       reads xp[c]; the neighbours of a compact slice are then near in memory), else in the user's;
       -(q+1) = column perm[s*sh+q], read from the slice's shared-memory window of x
       (only when local_cols and the block is square);
     - csr2slot[k] for CSR entry k: the slot (>= 0) or -(r+1) for the diagonal of image row r.
   The same function is computed on the host (MSImageMultHost) and on the device
   (MSImageMultDevice); tests compare both with MatMult_SeqAIJ.
*/
#pragma once

#include <petscmodsell.h>
#include <petsc/private/matimpl.h>
#include <petscmodsell/private/mskernels.h>
#include <petscmodsell/private/modsellcuda.h> /* MSPermBuckets (plain C) */

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "petsc-modsell supports PETSc configured with real double-precision scalars only"
#endif

PETSC_EXTERN PetscLogEvent MATMODSELL_ImageBuild, MATMODSELL_ImageValues, MATMODSELL_Upload, MATMODSELL_View, MATMODSELL_Graph;

/* Default slice heights: of an image, and of the image a slice-based preconditioner (PCBJSMOOTH) uses as its blocks
   (larger blocks take fewer outer iterations at the same cost per iteration: docs/locality.md) */
#define MS_SLICE_HEIGHT_DEFAULT  128
#define MS_SLICE_HEIGHT_SLICE_PC 512
/* A partition ordering whose height is a default: its blocks have MS_SLICE_HEIGHT_PARTITION rows, and its image slices
   of MS_SLICE_HEIGHT_PARTITION rows under a slice-based preconditioner (PCBJSMOOTH's blocks: with 8 inner Chebyshev
   sweeps, FVM tetrahedra 10.4 M randomly numbered, H100: 728 CG iterations against 877 with 512, the same time per
   iteration), else of MS_SLICE_HEIGHT_SLICE_PC (the product with slices of 1024 is 1-4% slower; halves of the blocks
   keep as many edges inside as blocks of 512: 0.828 on the CPU's FVM tetrahedra); H100, 2026-11-24, docs/locality.md */
#define MS_SLICE_HEIGHT_PARTITION 1024
/* Default rows per bucket of the bucketed permuted product on the GPU (-mat_modsell_permute_chunk): 2^20 rows, 8.4 MB of
   doubles, whose x and y values should stay in the GPU's L2 cache (H100: 50 MB; on the H100 at 10.4 M rows 2^20 gave
   0.595 ms, 2^21 0.604, 2^22 0.718, one bucket 0.891, docs/locality.md) */
#define MS_PERMUTE_CHUNK_DEFAULT 1048576
/* Threads per row of the GPU product when not set (-mat_modsell_row_lanes 0; MSImageRowLanes()): the largest power of two
   K with at least MS_ROW_LANES_SLOTS slots of the mean slice width per thread, K rows' threads in a block of at most
   1024 (K <= 1024 / sh) and m K <= MS_ROW_LANES_THREADS (about 1.5 times the threads an H100 holds at once): more
   threads per row only while the rows alone would leave the GPU idle. H100, 27-point Laplacian and 3 coupled fields
   (81 nonzeros per row), H100, 2026-11-25 (docs/results/2026-11-25-h100-wide-rows): 13.8 k rows of 27 entries 1.64x aijcusparse with K = 4
   against 0.84x with one thread per row; 12.3 k rows of 81 entries 1.22x with K = 8 against 0.39x; from 262 k rows on
   one thread per row is the fastest */
#define MS_ROW_LANES_SLOTS   4
#define MS_ROW_LANES_THREADS 393216

typedef struct _n_MSImage *MSImage;
struct _n_MSImage {
  /* settings (set before the first MSImageSetUp) */
  PetscInt           sh;         /* slice height in use: multiple of 32, at most 1024 (sh_asked, or
                                    MS_SLICE_HEIGHT_PARTITION for the partition ordering when sh_auto) */
  PetscInt           sh_asked;   /* slice height asked for (MSImageSetSliceHeight()) */
  PetscBool          sh_auto;    /* sh_asked is a default, not the user's: the partition ordering takes slices of
                                    MS_SLICE_HEIGHT_PARTITION (its blocks, PCBJSMOOTH's default blocks) */
  PetscBool          diag_apart; /* store the diagonal in diag[] (square blocks only) */
  PetscBool          local_cols; /* encode in-slice columns as negative codes (square blocks only) */
  MatModSELLOrdering ordering;   /* row ordering inside the image (square blocks only), as asked */
  PetscBool          slice_pc;   /* MATMODSELL_ORDERING_AUTO: a slice-based preconditioner uses the image */
  PetscInt           box[4];     /* MATMODSELL_ORDERING_BRICKS: the local grid box nx, ny, nz, dof of the DMDA (0: none) */
  PetscInt           lanes_asked; /* threads per row of the product (0: from the mean slice width, MSImageRowLanes()) */

  /* what the image was built from */
  PetscObjectId    id;
  PetscObjectState nzstate;   /* nonzero state of the source when the pattern was built */
  PetscObjectState hoststate; /* object state of the source matching the host values */
  PetscObjectState devstate;  /* object state of the source matching the device values */
  PetscBool        built;     /* sizes, flags and permutation are set for the current pattern */

  /* effective layout of the current pattern */
  MatModSELLOrdering applied;  /* the ordering applied (MATMODSELL_ORDERING_AUTO's choice) */
  const char        *why;      /* MATMODSELL_ORDERING_AUTO: why (a phrase for MatView()) */
  PetscInt64         nat_local, nat_off; /* auto: off-diagonal entries in their row's slice in the natural order, all (-1: not computed) */
  PetscInt           nat_stride;         /* auto: those were counted on one slice in nat_stride (1: every slice) */
  PetscInt64         nat_span, nat_nspan; /* auto: the rows spanned by the columns of the sampled slices with an
                                             off-diagonal entry, summed, and those slices */
  PetscBool          nat_windowed;       /* auto chose natural for the window of x (MS_AUTO_WINDOW), not the slices */
  PetscInt   m, n, nslices, nnz;
  PetscBool  dapart, local; /* diag_apart / local_cols as applied (square blocks only) */
  PetscInt  *perm;          /* m, new -> old, or NULL (identity; with bricks: not computed on the host yet) */
  PetscBool  bricks;        /* the bricks ordering applies: perm is computed where it is needed (host: MSImageEnsureHostPerm(), device: by a kernel) */
  PetscBool  partition;     /* the partition ordering applies: perm is computed where the image is first built (host:
                               MSLocalityPermHost(), device: MSLocalityPermDevice(), the same function); the other
                               memory gets a copy */
  PetscInt   brick[3];      /* its brick, in points per direction */
  PetscObjectId    perm_id; /* the pattern perm was computed for */
  PetscObjectState perm_nzstate;
  MatModSELLOrdering perm_ordering; /* the ordering and the partition's block height perm was computed for */
  PetscInt           perm_sh;
  PetscInt           psh; /* the partition's block height: sh, or MS_SLICE_HEIGHT_PARTITION when sh_auto */
  /* statistics (set by whichever builder ran) */
  PetscBool  stats;
  PetscInt   maxwidth;
  PetscInt64 nslots, noffdiag, nlocal;

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
  void     *d_xwork; /* 2 m: x and y in the image numbering, for a product (permuted images) */
  void     *d_iperm; /* m: old -> new (permuted images) */
  void     *d_nzslices; /* the slices with an entry (MSImageView's nzslices), made at the first in-place device product
                           y += A x of an image without diagonal, in-slice codes or permutation */
  PetscInt  nnzslices;
  size_t    dev_bytes;

  /* the bucketed permuted product on the GPU (MSImageMultDevice(); modsellcuda.h, MSPermBuckets): set up at the first
     permuted product after each device build or change of these settings, freed with the device image */
  PetscInt  permute_chunk;  /* rows per bucket (0: x and y gathered through the permutation by separate kernels) */
  PetscBool permute_recode; /* developer: a copy of the column codes rewritten to positions of the bucketed x */
  PetscBool pb_ready;       /* the arrays below match the device image and these settings */
  PetscInt  pb_nbuckets;    /* ceil(m / chunk) */
  void     *d_pbuckets;     /* 4 m ints px, qx, py, qy (more than one bucket; else none are needed) */
  void     *d_pbcols;       /* nslots ints: the recoded column codes (permute_recode) */
  size_t    pb_bytes;       /* device bytes of the two (counted in dev_bytes too) */
};

PETSC_EXTERN PetscErrorCode MSImageCreate(MSImage *);
PETSC_EXTERN PetscErrorCode MSImageDestroy(MSImage *);
PETSC_EXTERN PetscErrorCode MSImageSetSliceHeight(MSImage, PetscInt);
PETSC_EXTERN PetscErrorCode MSImageSetSliceHeightAuto(MSImage, PetscInt, PetscBool);
/* The bucket of the permuted product on the GPU (0: separate gathers) and the developer's recoding switch; a change
   drops the bucket arrays, not the image */
PETSC_EXTERN PetscErrorCode MSImageSetPermuteChunk(MSImage, PetscInt, PetscBool);
/* Threads per row of the product (0: automatic, MSImageRowLanes()); the layout does not depend on it */
PETSC_EXTERN PetscErrorCode MSImageSetRowLanes(MSImage, PetscInt);
PETSC_EXTERN PetscInt       MSImageRowLanes(MSImage);
/* Bring the image of a (square or rectangular) SeqAIJ-family matrix up to date, on the host
   (mtype PETSC_MEMTYPE_HOST) or on the device (PETSC_MEMTYPE_DEVICE): rebuilds the pattern
   when the matrix's nonzero state (or identity) changed, else refreshes only the values. */
PETSC_EXTERN PetscErrorCode MSImageSetUp(MSImage, Mat, PetscMemType);
/* The device image holds A's current pattern with the values of an earlier state (MSImageSetUp() would upload the
   values again; PETSC_FALSE when there is no device image for this pattern, or its values are current) */
PETSC_EXTERN PetscErrorCode MSImageDeviceValuesStale(MSImage, Mat, PetscBool *);
/* The device image holds A's current pattern (its values may be of an earlier state) */
PETSC_EXTERN PetscErrorCode MSImageDevicePatternCurrent(MSImage, Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MSImageGetInfo(MSImage, MatModSELLInfo *);
PETSC_EXTERN PetscErrorCode MSImageEnsureStats(MSImage, Mat);
/* MATMODSELL_ORDERING_BRICKS: the brick (points per direction) for a box nx, ny, nz, dof and slice height */
PETSC_EXTERN PetscErrorCode MSImageBrickSize(const PetscInt[4], PetscInt, PetscInt[3]);
/* y = yin + A x (yin may be NULL or equal to y); x, y in the user's ordering */
PETSC_EXTERN PetscErrorCode MSImageMultHost(MSImage, const PetscScalar *, const PetscScalar *, PetscScalar *);
/* y = yin + ys A x (ys = 1 or -1; yin may be y; ys = -1: the residual yin - A x, the same bits as y = A x then yin - y) */
PETSC_EXTERN PetscErrorCode MSImageMultSignedHost(MSImage, const PetscScalar *, const PetscScalar *, PetscScalar, PetscScalar *);
PETSC_EXTERN PetscErrorCode MSImageGetDiagonalHost(MSImage, PetscScalar *);
/* The kernel-side view of the host (PETSC_MEMTYPE_HOST) or device image, set up for that memory type; diag_block:
   the block is its process's square diagonal block (its columns are local rows) */
PETSC_EXTERN PetscErrorCode MSImageGetView(MSImage, PetscMemType, PetscBool, MSImageView *);
#if defined(PETSC_HAVE_CUDA)
PETSC_EXTERN PetscErrorCode MSImageMultDevice(MSImage, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_EXTERN PetscErrorCode MSImageMultSignedDevice(MSImage, const PetscScalar *, const PetscScalar *, PetscScalar, PetscScalar *);
PETSC_EXTERN PetscErrorCode MSImageGetDiagonalDevice(MSImage, PetscScalar *);
/* The bucketed permutation of the permuted product (modsellcuda.h, MSPermBuckets) for the device view v of img: *has
   PETSC_FALSE when there is none (no permutation, or permute chunk 0), else *pb describes it (px..qy NULL with one
   bucket). The arrays are built on the current stream when missing (a device allocation then: call it at setup too,
   not only inside an application), once per device build or change of the chunk; MSImageMultDevice() uses it. */
PETSC_EXTERN PetscErrorCode MSImageGetPermBucketsDevice(MSImage, const MSImageView *, MSPermBuckets *, PetscBool *);
/* The CSR columns and values (either may be NULL) of the matrix of a set-up device image, ai given (modsellcuda.h,
   MSCUDAImageCSR()); queued on PETSc's current stream */
PETSC_EXTERN PetscErrorCode MSImageGetDeviceCSR(MSImage, const int *, int *, double *);
#endif
/* Host-to-device copy of a large host array by several threads through pinned buffers (upload.c); stream
   is a cudaStream_t: work queued on it before is waited for, and the data is on the device on return */
PETSC_INTERN PetscErrorCode MSUploadSetThreads(PetscInt);
PETSC_INTERN PetscErrorCode MSUploadGetThreads(PetscInt *);
PETSC_INTERN PetscErrorCode MSUploadSetChunk(PetscInt);
PETSC_INTERN PetscErrorCode MSUploadGetChunk(PetscInt *);
/* -modsell_device_alloc_limit: device requests above this many bytes fail as if the GPU were out of memory */
PETSC_INTERN PetscErrorCode MSDeviceSetAllocLimit(double);
#if defined(PETSC_HAVE_CUDA)
PETSC_INTERN PetscErrorCode MSCopyHostToDevice(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MSCopyDeviceToHost(void *, const void *, size_t, void *);
/* cudaMalloc / cudaMallocAsync (stream: a cudaStream_t) whose failure is a PETSC_ERR_MEM error naming the bytes and
   what (e.g. "the values of the mod-SELL image"); *ptr is NULL after a failure */
PETSC_INTERN PetscErrorCode MSDeviceMalloc(void **, size_t, const char *);
PETSC_INTERN PetscErrorCode MSDeviceMallocAsync(void **, size_t, const char *, void *);
#endif
/* Validate a slice height; errors say what is allowed */
PETSC_EXTERN PetscErrorCode MSCheckSliceHeight(MPI_Comm, PetscInt);

/* The MATSEQAIJMODSELL private data (A->spptr) */
/*   its settings, a struct that a MATMPIAIJMODSELL matrix has too (and passes on to its blocks) */
typedef struct {
  PetscInt           sh;       /* slice height: a multiple of 32, at most 1024 */
  PetscBool          sh_set;   /* sh was given (MatModSELLSetSliceHeight()); else it follows slice_pc */
  MatModSELLKernel   kernel;   /* SpMV kernel (and layout) */
  MatModSELLOrdering ordering; /* row ordering inside the image */
  PetscBool          eager;    /* set up the device image at final assembly */
  PetscBool          slice_pc; /* a slice-based preconditioner works on the matrix's image (MATMODSELL_ORDERING_AUTO
                                  then takes bricks for a DMDA matrix, and the slice height MS_SLICE_HEIGHT_SLICE_PC unless
                                  one was given): MatModSELLSetSlicePreconditioner_Private() */
  PetscInt           permute_chunk;  /* rows per bucket of the permuted product on the GPU (0: separate gathers) */
  PetscBool          permute_recode; /* developer (-mat_modsell_permute_recode): recoded column codes instead of the
                                        dependent load of the bucketed product */
  PetscInt           row_lanes;      /* threads per row of the GPU product (-mat_modsell_row_lanes; 0: automatic) */
  PetscBool          graph_device;   /* MatCreateGraph() (PCGAMG's graph) on the GPU (-mat_modsell_graph_device) */
} MatModSELLSettings;

/* The cuSPARSE view of a MATSEQAIJMODSELL matrix (seq/cusparseview.c, PETSc with CUDA): a MATSEQAIJCUSPARSE matrix on
   the matrix's host CSR arrays, for the operations PETSc's aijcusparse code does on the GPU (transposed products,
   MatProduct, point-block Jacobi, cusparse factors) */
typedef struct {
  Mat                view;           /* NULL until first needed */
  PetscObjectState   state, nzstate; /* of the matrix when the view's values and pattern were taken */
  const PetscInt    *ai, *aj;        /* the host arrays it shares (made again when they move) */
  const PetscScalar *aa;
  size_t             bytes; /* its device CSR */
} MSCUSPARSEView;

typedef struct {
  MSImage            img;
  MSCUSPARSEView     cs;
  MatModSELLSettings settings;
  PetscBool          offdiag_block; /* the off-process block of an MPI matrix: plain encoding, natural order */
  PetscBool          block;         /* a block of an MPI matrix (its parent does the eager upload) */
  PetscInt           box[4];        /* MATMODSELL_ORDERING_BRICKS: the DMDA box of the rows (from the matrix's DM or its MPI matrix's) */
  struct _MatOps     parent;        /* the SeqAIJ operations overridden by this type */
} Mat_SeqAIJModSELL;

/* The cuSPARSE view of a MATMPIAIJMODSELL matrix (mpi/mpicusparseview.c, PETSc with CUDA): a MATMPIAIJCUSPARSE matrix
   made by MatCreateMPIAIJWithSplitArrays() on the host CSR arrays of the diagonal block and on the row offsets and
   values of the off-diagonal block; the off-diagonal block's column indices are a copy (PETSc's constructor takes
   them in global numbering and compacts them in place at assembly). Made collectively on first need. */
typedef struct {
  Mat                view;                   /* NULL until first needed */
  PetscObjectState   state, dstate, ostate;  /* of the matrix and of its blocks when the view's values were taken */
  PetscObjectState   nzstate, dnzstate, onzstate; /* nonzero states when the view was made */
  const PetscInt    *ai, *aj, *oi, *oj, *garray; /* the host arrays it was made from (made again when they move) */
  const PetscScalar *aa, *oa;
  PetscInt          *ojcopy;     /* the off-diagonal block's column indices, owned here (local numbering after assembly) */
  size_t             bytes;      /* on this process: device CSR of both blocks and the ghost vector */
  size_t             host_bytes; /* on this process: ojcopy */
} MSMPICUSPARSEView;

/* The MATMPIAIJMODSELL private data (A->spptr) */
/* The halo exchange of MATMPIAIJMODSELL's own device product (mpiaijmodsell.c): the diagonal block's product runs on a
   second stream while the exchange runs on PETSc's */
typedef struct {
  PetscBool          overlap; /* -mat_modsell_overlap (default true) */
  PetscBool          read;    /* the option was read */
  VecScatter         scat;    /* x's ghost values into ghost: the communication of MPIAIJ's own product */
  Vec                ghost;
  Mat                Ao;      /* the off-diagonal block and nonzero state scat was made for */
  PetscObjectState   nzstate;
  PetscDeviceContext side;    /* a non-blocking stream on the device of PETSc's current context */
  /* the order of the launches: the exchange starts before the diagonal block's kernel when it packs the values to send
     with a kernel (launched after the diagonal block's kernel, which fills the GPU, the pack kernel waits for its
     blocks: the whole exchange then follows the diagonal block's product); else the diagonal block's kernel first */
  PetscBool3 exfirst_opt; /* -mat_modsell_overlap_exchange_first (unknown: decided from the send list) */
  PetscBool  exfirst;     /* the order used */
  PetscInt   sstart;      /* the send list is x[sstart, sstart + its length) (-1: not contiguous: a pack kernel) */
  /* the exchange through pinned host buffers when MPI is not CUDA-aware (PETSc's VecScatter goes through pageable
     memory): the send and receive lists of scat's PetscSF, on the device */
  PetscBool    pinned;         /* -mat_modsell_pinned_halo (default false) */
  PetscBool    own;            /* the lists below are set up for scat (false: scat is used) */
  PetscMPIInt  nsend, nrecv;   /* processes */
  PetscMPIInt *sranks, *rranks, tag;
  PetscInt    *soff, *roff;    /* nsend + 1, nrecv + 1 offsets into the buffers */
  int         *d_sidx, *d_ridx; /* the entries of x to send; the ghost entries received (NULL: in order) */
  double      *d_sbuf, *d_rbuf, *h_sbuf, *h_rbuf;
  MPI_Request *reqs;
  /* the exchange through CUDA IPC (-mat_modsell_ipc_halo, mpi/mpihaloipc.c): on the lists above, every neighbour a
     process of this node; each process packs into its own device send buffer, which its receivers have mapped, and
     each receiver copies its part device to device. Ordered by interprocess events, one small message per neighbour
     and direction per product (no host copy, no stream synchronization) */
  PetscBool    ipc_opt;     /* -mat_modsell_ipc_halo (default true) */
  PetscBool    ipc;         /* set up and in use */
  PetscBool    ipc_pending; /* a product's messages are outstanding: wait for the receivers before packing again */
  PetscMPIInt  tag_ready, tag_done;
  double      *d_isbuf;                  /* this process's exported send buffer (soff[nsend] values) */
  void        *ev_ready, *ev_done;       /* cudaEvent_t, interprocess: after the pack; after this process's copies */
  const double **peer;                   /* per source: its send buffer, mapped, at this process's part */
  void        **peer_base;               /* per source: the mapped base (cudaIpcCloseMemHandle()) */
  void        **peer_ready, **peer_done; /* per source: its ev_ready; per destination: its ev_done (opened) */
  MPI_Request *irq;                      /* nsend ready sends, nrecv ready receives, nrecv done sends, nsend done receives */
  PetscMPIInt *ibuf;                     /* nrecv + nsend ints received */
} MSMPIHalo;

typedef struct {
  MatModSELLSettings settings; /* passed on to the blocks */
  MSMPICUSPARSEView  cs;
  MSMPIHalo          halo;
  struct _MatOps     parent;
  PetscErrorCode (*prealloc)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]);
} Mat_MPIAIJModSELL;

/* The settings of either type, one code for both (modsell.c). A MATMODSELL matrix composes "MatModSELLGetSettings_C",
   (Mat, MatModSELLSettings **), which gives the address of its settings, and may compose "MatModSELLApplySettings_C",
   (Mat), which the setters call after a change (an MPI matrix passes its settings on to its blocks). The setters
   validate the value (the errors of the public MatModSELLSet...() functions) before they change anything. */
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetDefaults_Private(MatModSELLSettings *);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetSliceHeight_Private(Mat, MatModSELLSettings *, PetscInt);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetKernel_Private(Mat, MatModSELLSettings *, MatModSELLKernel);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetOrdering_Private(Mat, MatModSELLSettings *, MatModSELLOrdering);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetEager_Private(Mat, MatModSELLSettings *, PetscBool);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetPermuteChunk_Private(Mat, MatModSELLSettings *, PetscInt);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetRowLanes_Private(Mat, MatModSELLSettings *, PetscInt);
/* Tell a MATMODSELL matrix (nothing for another type) that a slice-based preconditioner works on its image, before
   the image is built for it: MATMODSELL_ORDERING_AUTO takes that into account */
PETSC_EXTERN PetscErrorCode MatModSELLSetSlicePreconditioner_Private(Mat, PetscBool);
/* Give B, when it is a MATMODSELL matrix, these settings (and apply them): operations that make a new matrix of the
   type (MatDuplicate(), a new result) or rebuild one (MatHeaderMerge()) would otherwise leave it the defaults */
PETSC_INTERN PetscErrorCode MatModSELLSettingsCopy_Private(const MatModSELLSettings *, Mat);
/* Options shared by the sequential and parallel types (-mat_modsell_*) */
PETSC_INTERN PetscErrorCode MatModSELLReadOptions_Private(Mat, PetscOptionItems);
/* Code shared by the two types' operations (modsell.c): the MATMODSELL part of MatView() (ordering: the one applied);
   the start of a MatConvert() between a MATMODSELL type and its parent type (done: nothing more to do); the end of
   making a matrix a MATMODSELL type (vector type, options) or its parent type again */
PETSC_INTERN PetscErrorCode MatModSELLView_Private(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatModSELLConvertBegin_Private(Mat, MatReuse, Mat *, PetscBool *);
PETSC_INTERN PetscErrorCode MatModSELLComposeConvertFromOthers_Private(Mat, const char[], PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), PetscBool);
PETSC_INTERN PetscErrorCode MatModSELLSetType_Private(Mat, MatType);
PETSC_INTERN PetscErrorCode MatModSELLResetType_Private(Mat, MatType);

/* Get the up-to-date image of a MATSEQAIJMODSELL matrix (or NULL if A is another type) */
PETSC_EXTERN PetscErrorCode MatSeqAIJModSELLGetImage(Mat, PetscMemType, MSImage *);
/* A's CSR columns and values (either may be NULL; 32-bit) on the device, rebuilt from its device image with no copy
   from the host, given A's row starts ai on the device; *done PETSC_FALSE (nothing written) unless A is a
   MATSEQAIJMODSELL whose device image holds its current pattern (values refreshed first when A changed since) */
PETSC_EXTERN PetscErrorCode MatSeqAIJModSELLGetDeviceCSR(Mat, const int *, int *, double *, PetscBool *);
/* The device image now when the matrix will meet CUDA vectors (owner: A, or the MPI matrix A is a block of) */
PETSC_EXTERN PetscErrorCode MatSeqAIJModSELLEagerSetUp(Mat, Mat);
/* Convert a SeqAIJ matrix (assembled or only preallocated) in place */
PETSC_EXTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJModSELL(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_SeqAIJModSELL_SeqAIJ(Mat, MatType, MatReuse, Mat *);
/* MatConvert() of a MATMODSELL matrix to the generic name "modsell": nothing to convert (PETSc's own
   same-type test compares the concrete type name) */
PETSC_INTERN PetscErrorCode MatConvert_ModSELL_Same_Private(Mat, MatType, MatReuse, Mat *);
PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJModSELL(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJModSELL(Mat);

/* seq/factor.c: factorizations (MATSOLVERPETSC; MATSOLVERCUSPARSE on the cuSPARSE view); taking the matrix's composed
   functions off another matrix (a factor that copied them) */
PETSC_INTERN PetscErrorCode MatGetFactor_SeqAIJModSELL_PETSc(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLUncompose_Private(Mat);

#if defined(PETSC_HAVE_CUDA)
/* seq/cusparseview.c: the up-to-date view (a borrowed reference) and the operations that use it */
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLGetCUSPARSE_Private(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatMultTranspose_SeqAIJModSELL(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_SeqAIJModSELL(Mat, Vec, Vec, Vec);
/* the views' shared pieces (seq/cusparseview.c): x and y are both CUDA vectors; z = y + V^T x on a cuSPARSE view V in
   place (PETSc 3.26.1's aijcusparse MatMultTransposeAdd() with distinct y and z adds z's old values) */
PETSC_INTERN PetscErrorCode MSVecsAreCUDA(Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MSViewMultTransposeAdd(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatGetBlockDiagonal_SeqAIJModSELL(Mat, Mat *);
/* seq/graph.c: PCGAMG's graph on the GPU from the view's device CSR (SeqAIJ's graph, bit for bit) */
PETSC_INTERN PetscErrorCode MatCreateGraph_SeqAIJModSELL(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_SeqAIJModSELL(Mat);
PETSC_INTERN PetscErrorCode MatAXPY_SeqAIJModSELL_OnCUSPARSE(Mat, PetscScalar, Mat, MatStructure);
PETSC_INTERN PetscErrorCode MatGetFactor_SeqAIJModSELL_CUSPARSE(Mat, MatFactorType, Mat *);
/* the products' wrappers, shared with the MPI type: aijcusparse's product chosen on the operands' views (every
   MATSEQAIJMODSELL and MATMPIAIJMODSELL operand replaced by its view), its symbolic and numeric phases wrapped */
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_ModSELL_OnViews(Mat);
/* mpi/mpicusparseview.c: the up-to-date MPI view (a borrowed reference; collective), freeing it, and the operations
   that use it */
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLGetCUSPARSE_Private(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLDestroyCUSPARSE_Private(Mat);
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLViewCUSPARSE_Private(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatMultTranspose_MPIAIJModSELL(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatGetBlockDiagonal_MPIAIJModSELL(Mat, Mat *);
/* mpi/mpihaloipc.c: the halo exchange through CUDA IPC (collective setup: false on every process when any cannot) */
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLHaloSetUpIPC(Mat, MSMPIHalo *);
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLHaloFreeIPC(MSMPIHalo *);
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLHaloExchangeIPCBegin(Mat, MSMPIHalo *, Vec);
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLHaloExchangeIPCEnd(Mat, MSMPIHalo *);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_MPIAIJModSELL(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_MPIAIJModSELL(Mat);
PETSC_INTERN PetscErrorCode MatAXPY_MPIAIJModSELL_OnCUSPARSE(Mat, PetscScalar, Mat, MatStructure);
/* a product's MATMPIAIJCUSPARSE result C gets X's MatAXPY operation (X: its first MATMPIAIJMODSELL operand) */
PETSC_INTERN PetscErrorCode MatMPIAIJModSELLResultTakeAXPY_Private(Mat, Mat);
#endif

/* The local box (nx, ny, nz points, dof per point) of the DMDA a matrix was created from (DMCreateMatrix());
   all zero when the matrix has no DMDA */
PETSC_INTERN PetscErrorCode MatModSELLGetDMDABox_Private(Mat, PetscInt[4]);
#if defined(PETSC_HAVE_CUDA)
/* the cuSPARSE views' wrapping constructors without SeqAIJ's inode scan (cusparseview.c) */
PETSC_INTERN PetscErrorCode MSViewOptionsPush_Private(PetscOptions *);
PETSC_INTERN PetscErrorCode MSViewOptionsPop_Private(PetscOptions *);
#endif
