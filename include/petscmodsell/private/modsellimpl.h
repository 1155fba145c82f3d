/*
   Private interface of petsc-modsell: the mod-SELL image of a sequential AIJ block, and the MATMODSELL types.

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

   The block layout (a request with bs > 1: a square block of mb = m / bs block rows, bs from 2 to MS_BLOCK_MAX; the
   matrix's own product of a MATMODSELL matrix with a block size, never a preconditioner's image): slices of sh block
   rows (sh bs scalar rows, one GPU thread each), natural order, one column code per block:
     - block slot (s, k, q) = sliceptr[s] + k*sh + q holds the k-th off-diagonal block of block row s*sh+q: a bs x bs
       block with at least one entry in the CSR, its missing entries stored as zeros;
     - cols[slot]: 0 = padding; c+1 = block column c; -(p+1) = block row s*sh+p of the same slice, whose x is read from
       the slice's shared-memory window (local_cols);
     - vals[bs*bs*sliceptr[s] + (k*bs + j)*sh*bs + t] = entry (t % bs, j) of the block in slot (s, k, t / bs), t the
       scalar row in the slice: for each k and j the sh bs threads of a slice read consecutive values;
     - diag[(s*bs + j)*sh*bs + t] = entry (t % bs, j) of the diagonal block of block row s*sh + t/bs (diag_apart: the
       modsell encoding; the plain one keeps the diagonal blocks in the slots);
     - csr2slot[k]: the position of CSR entry k in vals (>= 0), or -(its position in diag + 1).
   Bytes of a product: (8 bs^2 + 4) per block slot, 8 bs per row for the diagonal blocks, 16 per row for x and y.

   An image is created from a request (MSImageRequest: encoding, slice height, ordering, the grid of the rows) and is
   opaque outside src/mat/impls/modsell (its data: imageimpl.h there). Its operations in one memory form a table,
   MSImageOps_Reference (host) or MSImageOps_CUDA (device), which a caller chooses once (a matrix at MatBindToCPU(),
   a preconditioner at its setup) and calls from then on: setup, kernel view, product, diagonal. Both compute the same
   function, each row's terms added in the same order; tests compare them with MatMult_SeqAIJ.
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

/* The default slice height of an image */
#define MS_SLICE_HEIGHT_DEFAULT 128
/* The partition ordering of a matrix whose slice height is a default: compact blocks of MS_SLICE_HEIGHT_PARTITION rows
   (PCBJSMOOTH's default blocks: with 8 inner Chebyshev sweeps, FVM tetrahedra 10.4 M randomly numbered, H100,
   2026-11-24: 728 CG iterations against 877 with 512, the same time per iteration), in slices of
   MS_SLICE_HEIGHT_PARTITION_SLICES rows for the matrix's own products (halves of the blocks: the product with slices of
   1024 is 1-4% slower, and halves keep as many edges inside as blocks of 512: 0.828 on the CPU's FVM tetrahedra);
   commits e97a49d and 38efcb5, not under docs/results */
#define MS_SLICE_HEIGHT_PARTITION        1024
#define MS_SLICE_HEIGHT_PARTITION_SLICES 512
/* Default rows per bucket of the bucketed permuted product on the GPU (-mat_modsell_permute_chunk): 2^20 rows, 8.4 MB of
   doubles, whose x and y values should stay in the GPU's L2 cache (H100: 50 MB; on the H100 at 10.4 M rows 2^20 gave
   0.595 ms, 2^21 0.604, 2^22 0.718, one bucket 0.891; 2026-11-24, commit a295f25, not under docs/results) */
#define MS_PERMUTE_CHUNK_DEFAULT 1048576

typedef struct _n_MSImage *MSImage;

/* What an image is asked to be. MSImageRequestSetDefaults() gives the plain request: the modsell encoding, slices of
   MS_SLICE_HEIGHT_DEFAULT rows, the natural order, no grid, explicit partition heights, and the automatic ordering's
   rules of an image for products */
typedef struct {
  MatModSELLKernel   kernel;          /* MATMODSELL_KERNEL_MODSELL: the diagonal apart and in-slice columns coded
                                         (square blocks); MATMODSELL_KERNEL_SELL: plain Sliced ELLPACK */
  PetscInt           sh;              /* slice height: a multiple of 32, at most 1024 */
  MatModSELLOrdering ordering;        /* row ordering (square blocks); MATMODSELL_ORDERING_AUTO: chosen from the pattern */
  PetscInt           box[4];          /* the local box of the DMDA of the rows, nx, ny, nz points and dof (all 0: none):
                                         MATMODSELL_ORDERING_BRICKS needs it */
  PetscInt           partition_block; /* under the partition ordering: compact blocks of this many rows (0: sh) ... */
  PetscInt           partition_sh;    /* ... in slices of max(sh, partition_sh) rows (0: sh) */
  PetscBool          auto_bricks;     /* the slices serve as blocks of a preconditioner: MATMODSELL_ORDERING_AUTO takes
                                         bricks when the box holds the block's rows, else keeps the natural order only when
                                         its slices are nearly as compact as the partition's blocks */
  PetscBool          auto_window;     /* MATMODSELL_ORDERING_AUTO keeps the natural order when each slice's columns lie in
                                         a narrow window of rows, which the product's reads of x find in the caches */
  PetscInt           bs;              /* 1 (or 0): the scalar layout; 2 to MS_BLOCK_MAX: the block layout (natural order,
                                         sh block rows per slice, at most 1024 / bs rounded down to a multiple of 32) */
} MSImageRequest;

/* The layout of an image's current pattern (what MSImageSetUp() built) */
typedef struct {
  PetscInt           m, n, nnz;   /* rows, columns and entries of the block */
  PetscInt           sh, nslices; /* slice height in use, slices */
  PetscBool          diag_apart;  /* the diagonal in an array of its own (square blocks, modsell encoding) */
  PetscBool          local_cols;  /* in-slice columns coded as negative offsets (the same blocks) */
  MatModSELLOrdering ordering;    /* the ordering asked for (MATMODSELL_ORDERING_AUTO: chosen from the pattern) */
  MatModSELLOrdering applied;     /* the ordering applied */
  PetscInt           brick[3];    /* the bricks ordering applied: its brick in points per direction (else 0) */
  PetscReal          auto_natural, auto_compact; /* MATMODSELL_ORDERING_AUTO's statistics: the fraction of the off-diagonal
                                                    entries in their row's slice in the natural order, and (slices that are
                                                    a preconditioner's blocks) the estimate of that fraction for compact
                                                    blocks; -1: not computed */
  PetscBool          counted;     /* the counts below are set (by whichever build ran) */
  PetscInt64         nslots, noffdiag, nlocal; /* off-diagonal slots (padding included), off-diagonal entries, those in
                                                  their row's slice */
  PetscInt           maxwidth;    /* the widest slice */
  PetscInt           lastw;       /* the width of the last slice (its padding rows past m read no slot) */
  PetscInt           bs;          /* 1: scalar layout; > 1: block layout, where sh, nslots, noffdiag, nlocal and maxwidth
                                     count block rows and blocks */
} MSImageLayout;

/* The operations of an image in one memory: MSImageOps_Reference (host) and, PETSc with CUDA, MSImageOps_CUDA (device
   arrays, work on PETSc's current stream, GPU time and flops logged). Vectors are in the user's row order. */
typedef struct {
  const char  *backend; /* "reference", "CUDA" */
  PetscMemType mtype;
  /* the image's arrays for A's current pattern, with the values of A's object state (MSImageSetUp() calls it) */
  PetscErrorCode (*setup)(MSImage, Mat, PetscObjectState);
  /* the kernel view; diag_block: the block is its process's square diagonal block (its columns are local rows) */
  PetscErrorCode (*getview)(MSImage, PetscBool, MSImageView *);
  /* y = yin + ys A x (yin NULL: y = A x; yin may be y; ys = 1, or -1 for the residual yin - A x, the same bits as y = A
     x then yin - y) */
  PetscErrorCode (*mult)(MSImage, const PetscScalar *, const PetscScalar *, PetscScalar, PetscScalar *);
  /* d = the diagonal (an image with the diagonal apart) */
  PetscErrorCode (*getdiagonal)(MSImage, PetscScalar *);
  /* the bucketed permutation of the permuted product (modsellcuda.h, MSPermBuckets) for the view v: *has PETSC_FALSE
     when there is none (on the host; no permutation, or permute chunk 0), else *pb describes it (px..qy NULL with one
     bucket). Built on the current stream when missing (a device allocation then: call it at setup too, not only in an
     application), once per device build or change of the chunk; the device product uses it. */
  PetscErrorCode (*permbuckets)(MSImage, const MSImageView *, MSPermBuckets *, PetscBool *);
} MSImageOps;

PETSC_EXTERN const MSImageOps MSImageOps_Reference;
#if defined(PETSC_HAVE_CUDA)
PETSC_EXTERN const MSImageOps MSImageOps_CUDA;
#endif

PETSC_EXTERN PetscErrorCode MSImageRequestSetDefaults(MSImageRequest *);
/* An image of this request (NULL: MSImageRequestSetDefaults()'s); nothing is built until MSImageSetUp() */
PETSC_EXTERN PetscErrorCode MSImageCreate(const MSImageRequest *, MSImage *);
PETSC_EXTERN PetscErrorCode MSImageDestroy(MSImage *);
/* Another request: the next setup builds the image again when its layout changes (a partitioned image whose heights are
   the partition's keeps its layout, and a new layout keeps the partition when only the slice height changed) */
PETSC_EXTERN PetscErrorCode MSImageSetRequest(MSImage, const MSImageRequest *);
/* Bring the image of a (square or rectangular) SeqAIJ-family matrix up to date in the memory of ops: its layout is made
   again when the matrix's nonzero state (or identity) changed, else only the values are refreshed */
PETSC_EXTERN PetscErrorCode MSImageSetUp(MSImage, Mat, const MSImageOps *);
/* Threads per row of the GPU product (0: from the mean slice width); the layout does not change */
PETSC_EXTERN PetscErrorCode MSImageSetRowLanes(MSImage, PetscInt);
/* The layout of the current pattern, valid until the next setup */
PETSC_EXTERN PetscErrorCode MSImageGetLayout(MSImage, const MSImageLayout **);

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
/* MATMODSELL_ORDERING_BRICKS (msbricks.h): the columns of a box of nx x ny x nz points with dof rows each (box[4]) for
   slices of sh rows, and the bricks in points per direction (the widest parts, the layers of a slice) */
PETSC_EXTERN PetscErrorCode MSBricksSetUp(const PetscInt[4], PetscInt, MSBricks *, PetscInt[3]);
/* Validate a slice height; errors say what is allowed */
PETSC_EXTERN PetscErrorCode MSCheckSliceHeight(MPI_Comm, PetscInt);

/* The MATSEQAIJMODSELL private data (A->spptr) */
/*   its settings, a struct that a MATMPIAIJMODSELL matrix has too (and passes on to its blocks) */
typedef struct {
  PetscInt           sh;       /* slice height: a multiple of 32, at most 1024 (not set: the image's default) */
  PetscBool          sh_set;   /* sh was given (MatModSELLSetSliceHeight()) */
  MatModSELLKernel   kernel;   /* SpMV kernel (and layout) */
  MatModSELLOrdering ordering; /* row ordering inside the image */
  PetscBool          eager;    /* set up the device image at final assembly */
  PetscInt           permute_chunk;  /* rows per bucket of the permuted product on the GPU (0: separate gathers) */
  PetscBool          permute_recode; /* developer (-mat_modsell_permute_recode): recoded column codes instead of the
                                        dependent load of the bucketed product */
  PetscInt           row_lanes;      /* threads per row of the GPU product (-mat_modsell_row_lanes; 0: automatic) */
  PetscBool          graph_device;   /* MatCreateGraph() (PCGAMG's graph) on the GPU (-mat_modsell_graph_device) */
  MatModSELLLayout   layout;         /* the product's layout (-mat_modsell_layout; MATMODSELL_LAYOUT_AUTO: MSLayoutChoose()) */
  PetscBool          block_rows;     /* developer (-mat_modsell_block_rows): the block layout's GPU product with one thread
                                        per block row instead of one per row (the same sums in the same order) */
} MatModSELLSettings;

/* The layout of a MATSEQAIJMODSELL matrix's own product (MatMult(), MatMultAdd(), MatResidual(), MatGetDiagonal()),
   chosen once per pattern and settings (seq/aijmodsell.c) by MSLayoutChoose() (layout.c) from the counts of the images'
   builds: bytes per product of the scalar image, of the block image (a block size from 2 to MS_BLOCK_MAX) and of
   cuSPARSE's CSR, over the fractions of the bandwidth each reached (docs/matrix.md, "The product's layout"). The
   preconditioners and the device Krylov layer always read the scalar image (MatSeqAIJModSELLGetImage()). */
typedef struct {
  PetscBool        valid;
  PetscObjectId    id;       /* the matrix and pattern it was made for */
  PetscObjectState nzstate;
  MSImageRequest   req;      /* the scalar image's request it was made with */
  MatModSELLLayout asked;    /* the setting it was made with */
  PetscInt         lanes;    /* the row lanes setting it was made with */
  MatModSELLLayout layout;   /* MATMODSELL_LAYOUT_SCALAR, _BLOCKS or _CUSPARSE: the product with CUDA */
  MatModSELLLayout host;     /* _SCALAR or _BLOCKS: the product on the host (bound to the CPU, PETSc without CUDA) */
  PetscInt         bs;       /* the matrix's block size (1: none) */
  PetscReal        bytes[3]; /* estimated bytes per product: scalar image, block image (0: no block image), cuSPARSE */
  PetscReal        speed;    /* predicted speed of the image over cuSPARSE (time over time; 0: not estimated) */
  PetscReal        density;  /* nonzeros over the entries of the stored blocks (block image; else 0) */
  char             why[320]; /* what was chosen and why, for -mat_view ::ascii_info and -info */
} MSLayoutChoice;

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
  MSImage            img;  /* the scalar image: the preconditioners', and the product's unless the layout says otherwise */
  MSImage            bimg; /* the block image (block layout), or NULL */
  MSLayoutChoice     choice;
  const MSImageOps  *iops; /* the image's operations in the memory the matrix computes in (MatBindToCPU()) */
  PetscErrorCode (*multadd)(Mat, Vec, Vec, PetscScalar, Vec); /* y = w + ys A x there (w may be NULL or y; ys 1 or -1) */
  MSCUSPARSEView     cs;
  MatModSELLSettings settings;
  MSImageRequest     defaults;      /* what the settings leave open (a slice height not set, the partition's heights,
                                       MATMODSELL_ORDERING_AUTO's rules): the matrix's own, or those a caller of the
                                       image asked for (MatSeqAIJModSELLSetImageDefaults()) */
  PetscBool          offdiag_block; /* the off-process block of an MPI matrix: plain encoding, natural order */
  PetscBool          block;         /* a block of an MPI matrix (its parent does the eager upload) */
  PetscInt           box[4];        /* MATMODSELL_ORDERING_BRICKS: the DMDA box of the rows (from the matrix's DM or its MPI matrix's) */
  Vec                stage[3];      /* the device operations' CUDA vectors standing for vectors in host memory: of the
                                       columns (x), of the rows (y, w); made at the first such use (stage.c) */
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
  Vec                stage[2]; /* the device operations' CUDA vectors standing for vectors in host memory: of the columns
                                  and of the rows (MatModSELLStageVecIn_Private()) */
  struct _MatOps     parent;
  PetscErrorCode (*prealloc)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]);
} Mat_MPIAIJModSELL;

/* The settings of either type, one code for both (modsell.c). A MATMODSELL matrix composes "MatModSELLGetSettings_C",
   (Mat, MatModSELLSettings **), which gives the address of its settings, and "MatModSELLApplySettings_C", (Mat), which
   the setters call after a change (an MPI matrix passes its settings on to its blocks); and the functions behind the
   public MatModSELLSet...() and MatModSELLGet...() ("MatModSELLSetSliceHeight_C", ...: MatModSELLComposeSetGet_Private(),
   set PETSC_FALSE removes them). The setters validate the value (the errors of the public MatModSELLSet...() functions)
   before they change anything. */
PETSC_INTERN PetscErrorCode MatModSELLComposeSetGet_Private(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetDefaults_Private(MatModSELLSettings *);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetSliceHeight_Private(Mat, MatModSELLSettings *, PetscInt);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetKernel_Private(Mat, MatModSELLSettings *, MatModSELLKernel);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetOrdering_Private(Mat, MatModSELLSettings *, MatModSELLOrdering);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetEager_Private(Mat, MatModSELLSettings *, PetscBool);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetPermuteChunk_Private(Mat, MatModSELLSettings *, PetscInt);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetRowLanes_Private(Mat, MatModSELLSettings *, PetscInt);
PETSC_INTERN PetscErrorCode MatModSELLSettingsSetLayout_Private(Mat, MatModSELLSettings *, MatModSELLLayout);
/* Give B, when it is a MATMODSELL matrix, these settings (and apply them): operations that make a new matrix of the
   type (MatDuplicate(), a new result) or rebuild one (MatHeaderMerge()) would otherwise leave it the defaults */
PETSC_INTERN PetscErrorCode MatModSELLSettingsCopy_Private(const MatModSELLSettings *, Mat);
/* Options shared by the sequential and parallel types (-mat_modsell_*) */
PETSC_INTERN PetscErrorCode MatModSELLReadOptions_Private(Mat, PetscOptionItems);
/* Code shared by the two types' operations (modsell.c): the MATMODSELL part of MatView() (ordering: the one applied);
   the start of a MatConvert() between a MATMODSELL type and its parent type (done: nothing more to do); the end of
   making a matrix a MATMODSELL type (vector type, options) or its parent type again */
PETSC_INTERN PetscErrorCode MatModSELLView_Private(Mat, PetscViewer, PetscBool, const char *);
PETSC_INTERN PetscErrorCode MatModSELLConvertBegin_Private(Mat, MatReuse, Mat *, PetscBool *);
PETSC_INTERN PetscErrorCode MatModSELLComposeConvertFromOthers_Private(Mat, const char[], PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), PetscBool);
PETSC_INTERN PetscErrorCode MatModSELLSetType_Private(Mat, MatType);
PETSC_INTERN PetscErrorCode MatModSELLResetType_Private(Mat, MatType);

/* layout.c: the product's layout (MSLayoutChoice) from the scalar image's layout and statistics (NULL: not built, the
   blocks sufficing), the block image's (NULL: none; then why_no_blocks says why, or NULL for a matrix of block size 1),
   the matrix's nonzeros and the settings */
PETSC_INTERN PetscErrorCode MSLayoutChoose(MSImage, MSImage, const char *, PetscInt, const MatModSELLSettings *, PetscBool, MSLayoutChoice *);
/* the block image (set up) moves fewer bytes than any scalar image could: the scalar one need not be built to choose */
PETSC_INTERN PetscBool MSLayoutBlocksSuffice(MSImage);
/* The block size of the block layout for the request's slice height: block rows per slice */
PETSC_INTERN PetscInt MSBlockSliceHeight(PetscInt, PetscInt);
/* The image of the product of A (a MATSEQAIJMODSELL matrix) up to date in the memory of ops: *img NULL when the product
   is the cuSPARSE view's (with CUDA ops only) */
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLProductImage_Private(Mat, const MSImageOps *, MSImage *);
/* The layout of the product of a MATSEQAIJMODSELL matrix in the memory of ops (chosen now if needed) */
PETSC_EXTERN PetscErrorCode MatSeqAIJModSELLGetProductLayout(Mat, const MSImageOps *, MatModSELLLayout *);
/* The device values of the product's image are of an earlier state (PETSC_TRUE too for the cuSPARSE view's product) */
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLProductValuesStale_Private(Mat, const MSImageOps *, PetscBool *);

/* The up-to-date image of a MATSEQAIJMODSELL matrix in the memory of ops (NULL if A is another type); _Private: A is one */
PETSC_EXTERN PetscErrorCode MatSeqAIJModSELLGetImage(Mat, const MSImageOps *, MSImage *);
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLImage_Private(Mat, const MSImageOps *, MSImage *);
/* What a caller of the image of a MATSEQAIJMODSELL matrix (nothing for another type) asks for where the matrix's settings
   leave the choice: the slice height when none is set (and the partition's heights then), and
   MATMODSELL_ORDERING_AUTO's rules (defaults->sh, partition_block, partition_sh, auto_bricks, auto_window); NULL: the
   matrix's own. Kept for the matrix's products too, until the next call; before the image is built for the caller */
PETSC_EXTERN PetscErrorCode MatSeqAIJModSELLSetImageDefaults(Mat, const MSImageRequest *);
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
/* seq/aijmodsell_cuda.c: the device operations of a MATSEQAIJMODSELL matrix (MatBindToCPU(A, PETSC_FALSE)) */
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLSetDeviceOps_Private(Mat);
/* stage.c: the CUDA vector that stands for a vector in host memory in a device operation of either type. Get: *work, a
   CUDA vector of A's rows (rows) or columns, made at its first use; In: v itself when it is a CUDA vector, else *work,
   with the local values of src (NULL: none) copied in; Out: v's values copied back from it */
PETSC_INTERN PetscErrorCode MatModSELLStageVecGet_Private(Mat, Vec *, PetscBool);
PETSC_INTERN PetscErrorCode MatModSELLStageVecIn_Private(Mat, Vec *, PetscBool, Vec, Vec, Vec *);
PETSC_INTERN PetscErrorCode MatModSELLStageVecOut_Private(Vec, Vec);
/* seq/cusparseview.c: the up-to-date view (a borrowed reference) and the operations that use it */
PETSC_INTERN PetscErrorCode MatSeqAIJModSELLGetCUSPARSE_Private(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatMultTranspose_SeqAIJModSELL(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_SeqAIJModSELL(Mat, Vec, Vec, Vec);
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
