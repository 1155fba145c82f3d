/*
   petsc-modsell: a PETSc plugin with the modified Sliced ELLPACK matrix format (MATMODSELL)
   and GPU preconditioners built on it.

   Load it into an unmodified PETSc application with
       -dll_append /path/to/libpetscmodsell.so
   or link the library and call PetscModSELLInitializePackage() after PetscInitialize().
*/
#pragma once

#include <petscmat.h>
#include <petscksp.h>

/* Matrix types. MATMODSELL is a root name: it resolves to MATSEQAIJMODSELL on one process
   and MATMPIAIJMODSELL on several, like MATAIJ. */
#define MATMODSELL       "modsell"
#define MATAIJMODSELL    "aijmodsell" /* the same root under a name PETSc's DMDA treats as AIJ: with -dm_mat_type aijmodsell
                                         the DMDA's interpolation matrices (PCMG) are MATMODSELL too, on the GPU */
#define MATSEQAIJMODSELL "seqaijmodsell"
#define MATMPIAIJMODSELL "mpiaijmodsell"

/* Preconditioner types */
#define PCRUIZ     "ruiz"
#define PCBJSMOOTH "bjsmooth"
#define PCNEUMANN  "neumann"
#define PCBRBILU   "brbilu"
#define PCBISAI    "bisai"

/*E
   MatModSELLKernel - the SpMV kernel (and so the storage layout) used by `MATMODSELL`

   Values:
+  `MATMODSELL_KERNEL_MODSELL` - modified SELL: diagonal stored apart, in-slice columns read from a shared-memory copy of x (default)
-  `MATMODSELL_KERNEL_SELL`    - plain Sliced ELLPACK (Wikberg (2024), section 3.1): every column read from global memory

   Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetKernel()`
E*/
typedef enum {
  MATMODSELL_KERNEL_MODSELL,
  MATMODSELL_KERNEL_SELL
} MatModSELLKernel;
PETSC_EXTERN const char *const MatModSELLKernels[];

/*E
   MatModSELLOrdering - row ordering used inside a `MATMODSELL` image (vectors stay in the user's ordering)

   Values:
+  `MATMODSELL_ORDERING_NATURAL` - the matrix's own row order
.  `MATMODSELL_ORDERING_RCM`     - reverse Cuthill-McKee order of the local diagonal block
.  `MATMODSELL_ORDERING_PARTITION` - compact blocks of one slice height of nearby rows of the local diagonal block's
                                   graph (no `DM` needed; for randomly numbered unstructured meshes)
.  `MATMODSELL_ORDERING_BRICKS`  - for a matrix from `DMCreateMatrix()` on a `DMDA`: the grid points of each
                                   process's box taken brick by brick (bricks of about one slice height of rows),
                                   so that a slice is a compact brick of the grid rather than part of a grid line
-  `MATMODSELL_ORDERING_AUTO`    - (default) chosen per process from the matrix: bricks for a `DMDA` matrix that a
                                   slice-based preconditioner (`PCBJSMOOTH`) works on; else natural when the matrix's
                                   order is already local (the off-diagonal entries of the diagonal block that lie in
                                   their row's slice are at least 15% more than a random numbering gives, sh/m, or 50%;
                                   counted on every slice, or on one slice in k, evenly spaced, above 2048 slices),
                                   partition when it is not; natural for a block of one slice or less. `MatView()` with
                                   `PETSC_VIEWER_ASCII_INFO` says what was chosen and why

   Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetOrdering()`
E*/
typedef enum {
  MATMODSELL_ORDERING_NATURAL,
  MATMODSELL_ORDERING_RCM,
  MATMODSELL_ORDERING_BRICKS,
  MATMODSELL_ORDERING_PARTITION,
  MATMODSELL_ORDERING_AUTO
} MatModSELLOrdering;
PETSC_EXTERN const char *const MatModSELLOrderings[];

/*E
   MatModSELLLayout - the layout of the product of a `MATMODSELL` matrix (each process's diagonal block)

   Values:
+  `MATMODSELL_LAYOUT_AUTO`     - (default) chosen per process from the counts of the images' builds: the bytes a product
                                  moves in each layout over the fraction of the GPU's bandwidth each reaches (see
                                  `MatModSELLSetLayout()`)
.  `MATMODSELL_LAYOUT_SCALAR`   - the mod-SELL image, one column index per nonzero
.  `MATMODSELL_LAYOUT_BLOCKS`   - for a matrix with a block size from 2 to 8 (`MatSetBlockSize()`): slices of block rows,
                                  one column index per bs x bs block (missing entries of a block stored as zeros), the
                                  diagonal blocks apart; natural order
-  `MATMODSELL_LAYOUT_CUSPARSE` - the matrix's cuSPARSE view (PETSc's `MATSEQAIJCUSPARSE` product on the same CSR), where
                                  the image cannot be faster (PETSc with CUDA; the host product then uses the best image)

   Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetLayout()`
E*/
typedef enum {
  MATMODSELL_LAYOUT_AUTO,
  MATMODSELL_LAYOUT_SCALAR,
  MATMODSELL_LAYOUT_BLOCKS,
  MATMODSELL_LAYOUT_CUSPARSE
} MatModSELLLayout;
PETSC_EXTERN const char *const MatModSELLLayouts[];

/*S
   MatModSELLInfo - statistics of the mod-SELL image of a (local) matrix block

   Level: intermediate
S*/
typedef struct {
  PetscInt   slice_height;   /* rows per slice (on several processes the largest) */
  PetscInt   nslices;        /* number of slices */
  PetscInt64 nslots;         /* stored off-diagonal slots, padding included */
  PetscInt64 noffdiag;       /* off-diagonal nonzeros (stored in slots) */
  PetscInt64 nlocal;         /* off-diagonal nonzeros whose column lies in the row's own slice */
  PetscInt   max_width;      /* widest slice (slots per row) */
  PetscReal  padding_ratio;  /* nslots / noffdiag (1 = no padding) */
  PetscReal  local_fraction; /* nlocal / noffdiag: fraction read from shared memory */
  size_t     device_bytes;   /* bytes of the device copy (0 when none) */
  MatModSELLOrdering ordering; /* the ordering applied (the choice of MATMODSELL_ORDERING_AUTO; on several processes
                                  MATMODSELL_ORDERING_AUTO when the processes chose differently) */
  PetscReal  natural_local_fraction; /* off-diagonal entries of the diagonal block(s) in their row's slice in the
                                        matrix's own order, over those entries (what MATMODSELL_ORDERING_AUTO looks at;
                                        -1 when it was not computed) */
  PetscInt   natural_local_stride; /* that fraction was counted on one slice in this many, evenly spaced (1: every slice;
                                      blocks of more than 2048 slices are sampled) */
  size_t     permute_bytes; /* of device_bytes: the index arrays of the bucketed permuted product on the GPU
                               (MatModSELLSetPermuteChunk(); 0 until the first permuted product on the GPU) */
  PetscInt   slice_height_min; /* rows per slice, the smallest over the processes (slice_height on one process;
                                  without a height set, the partition ordering takes slices of 512, of 1024 under a
                                  slice-based preconditioner) */
  PetscInt   row_lanes;        /* threads summing one row in the GPU product (-mat_modsell_row_lanes), the largest over
                                  the processes' diagonal blocks */
  PetscInt   row_lanes_min;    /* the smallest (row_lanes on one process) */
  PetscReal  natural_window;   /* rows spanned by the columns of a slice in the matrix's own order, on average over the
                                  sampled slices (what MATMODSELL_ORDERING_AUTO also looks at; -1 when not computed) */
  PetscBool  natural_windowed; /* MATMODSELL_ORDERING_AUTO kept the natural order for that window (on some process),
                                  the slices' own columns being too few */
  MatModSELLLayout layout;     /* the product's layout on the GPU (MATMODSELL_LAYOUT_AUTO when the processes differ); with
                                  MATMODSELL_LAYOUT_BLOCKS the counts above are of blocks and block rows (slice_height,
                                  nslots, noffdiag, nlocal, max_width) */
  PetscInt   block_size;       /* the blocks' size of the block layout (1: scalar) */
  PetscReal  block_density;    /* block layout: nonzeros over the entries of the stored blocks (1: full blocks; else 0) */
  PetscReal  bytes_image;      /* estimated bytes moved by one product of the image in use, and ... */
  PetscReal  bytes_cusparse;   /* ... by cuSPARSE's CSR product (sums over the processes) */
} MatModSELLInfo;

PETSC_EXTERN PetscErrorCode PetscModSELLInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscModSELLFinalizePackage(void);

PETSC_EXTERN PetscErrorCode MatCreateModSELL(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatModSELLSetSliceHeight(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatModSELLGetSliceHeight(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatModSELLSetKernel(Mat, MatModSELLKernel);
PETSC_EXTERN PetscErrorCode MatModSELLGetKernel(Mat, MatModSELLKernel *);
PETSC_EXTERN PetscErrorCode MatModSELLSetOrdering(Mat, MatModSELLOrdering);
PETSC_EXTERN PetscErrorCode MatModSELLGetOrdering(Mat, MatModSELLOrdering *);
PETSC_EXTERN PetscErrorCode MatModSELLGetInfo(Mat, MatModSELLInfo *);
PETSC_EXTERN PetscErrorCode MatModSELLSetPermuteChunk(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatModSELLGetPermuteChunk(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatModSELLSetRowLanes(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatModSELLGetRowLanes(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatModSELLSetLayout(Mat, MatModSELLLayout);
PETSC_EXTERN PetscErrorCode MatModSELLGetLayout(Mat, MatModSELLLayout *);

/* PCRUIZ */
PETSC_EXTERN PetscErrorCode PCRuizSetNorm(PC, NormType);
PETSC_EXTERN PetscErrorCode PCRuizGetNorm(PC, NormType *);
PETSC_EXTERN PetscErrorCode PCRuizSetTolerances(PC, PetscReal, PetscInt);
PETSC_EXTERN PetscErrorCode PCRuizGetTolerances(PC, PetscReal *, PetscInt *);
PETSC_EXTERN PetscErrorCode PCRuizSetCheckEvery(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCRuizGetCheckEvery(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCRuizSetSymmetric(PC, PetscBool3);
PETSC_EXTERN PetscErrorCode PCRuizGetSymmetric(PC, PetscBool3 *, PetscBool *);
PETSC_EXTERN PetscErrorCode PCRuizGetScaling(PC, Vec *, Vec *);
PETSC_EXTERN PetscErrorCode PCRuizRestoreScaling(PC, Vec *, Vec *);
PETSC_EXTERN PetscErrorCode PCRuizGetConvergence(PC, PetscInt *, PetscReal *, PetscBool *, PetscLogDouble *);

/*E
   PCBJSmoothInner - the method `PCBJSMOOTH` runs inside each block

   Values:
+  `PCBJSMOOTH_INNER_JACOBI` - Jacobi sweeps
.  `PCBJSMOOTH_INNER_GS`     - warp-serialised forward Gauss-Seidel: the 32-row groups of a block in order, Jacobi inside a group
.  `PCBJSMOOTH_INNER_SGS`    - a forward then a backward such sweep
.  `PCBJSMOOTH_INNER_CG`     - conjugate gradients on the block
.  `PCBJSMOOTH_INNER_CHEBYSHEV` - Chebyshev iteration on the interval [hi / ratio, hi] of the block's D^-1 A, hi a Gershgorin bound
                                  (`PCBJSmoothSetChebyshevRatio()`): Jacobi's cost per sweep, fewer outer iterations
-  `PCBJSMOOTH_INNER_AUTO`      - (default) chosen at setup from the operator: chebyshev when its blocks are symmetric,
                                  else gs, or sgs under a Krylov method that needs a symmetric preconditioner (`KSPCG`)

   Level: intermediate

.seealso: `PCBJSMOOTH`, `PCBJSmoothSetInner()`
E*/
typedef enum {
  PCBJSMOOTH_INNER_JACOBI,
  PCBJSMOOTH_INNER_GS,
  PCBJSMOOTH_INNER_SGS,
  PCBJSMOOTH_INNER_CG,
  PCBJSMOOTH_INNER_CHEBYSHEV,
  PCBJSMOOTH_INNER_AUTO
} PCBJSmoothInner;
PETSC_EXTERN const char *const PCBJSmoothInners[];

/* PCBJSMOOTH */
PETSC_EXTERN PetscErrorCode PCBJSmoothSetBlockSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetBlockSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCBJSmoothSetInner(PC, PCBJSmoothInner, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetInner(PC, PCBJSmoothInner *, PetscInt *, PetscReal *);
PETSC_EXTERN PetscErrorCode PCBJSmoothSetChebyshevRatio(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetChebyshevRatio(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCBJSmoothSetIterations(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetIterations(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCBJSmoothSetAsync(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetAsync(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCBJSmoothSetGlobalCoefficients(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetGlobalCoefficients(PC, PetscBool *);
/* PCBJSmoothSetOrdering(): the blocks come from the operator's image (a MATMODSELL operator's, else the PC's own image
   in the automatic ordering) */
#define PCBJSMOOTH_ORDERING_OPERATOR ((MatModSELLOrdering)-1)
PETSC_EXTERN PetscErrorCode PCBJSmoothSetOrdering(PC, MatModSELLOrdering);
PETSC_EXTERN PetscErrorCode PCBJSmoothGetOrdering(PC, MatModSELLOrdering *);

/*E
   PCBRBILUType - the factorization of `PCBRBILU`

   Values:
+  `PCBRBILU_ILU`   - ILU(0): fill outside the pattern of the operator dropped
.  `PCBRBILU_MILU`  - modified ILU(0): the dropped fill added to the pivot (M has the operator's row sums)
.  `PCBRBILU_RMILU` - relaxed modified ILU(0): alpha times the dropped fill (alpha 0.95)
.  `PCBRBILU_PMILU` - perturbed modified ILU(0): the diagonal times 1 + zeta h^2, then modified ILU(0)
-  `PCBRBILU_AUTO`  - (default) chosen from the operator at every setup: rmilu on an M-matrix-like operator, else ilu;
                      ilu when rmilu meets a bad pivot, then ilu with a growing diagonal shift

   Level: intermediate

.seealso: `PCBRBILU`, `PCBRBILUSetType()`
E*/
typedef enum {
  PCBRBILU_ILU,
  PCBRBILU_MILU,
  PCBRBILU_RMILU,
  PCBRBILU_PMILU,
  PCBRBILU_AUTO
} PCBRBILUType;
PETSC_EXTERN const char *const PCBRBILUTypes[];

/*E
   PCBRBILUPrecision - the precision the factors of `PCBRBILU` are stored in

   Level: intermediate

.seealso: `PCBRBILU`, `PCBRBILUSetFactorPrecision()`
E*/
typedef enum {
  PCBRBILU_PRECISION_SINGLE,
  PCBRBILU_PRECISION_DOUBLE
} PCBRBILUPrecision;
PETSC_EXTERN const char *const PCBRBILUPrecisions[];

/*E
   PCBRBILUOrderingType - how `PCBRBILU` makes its blocks: auto (grid on a DMDA operator, else graph), grid (bricks of
   the DMDA box, red-black), graph (the locality partition and its colouring)

   Level: advanced

.seealso: `PCBRBILU`, `PCBRBILUSetOrdering()`
E*/
typedef enum {
  PCBRBILU_ORDERING_AUTO,
  PCBRBILU_ORDERING_GRID,
  PCBRBILU_ORDERING_GRAPH
} PCBRBILUOrderingType;
PETSC_EXTERN const char *const PCBRBILUOrderingTypes[];

/*E
   PCBRBILUInnerOrdering - the order of the rows inside a block of a graph ordering of `PCBRBILU` (the elimination
   order inside the block)

   Values:
+  `PCBRBILU_INNER_COLORS`    - (default) colour by colour of a greedy colouring of the block's own graph: a block has
                                as many levels (wavefronts) as colours, a few, and a GPU warp takes a level's rows at once
-  `PCBRBILU_INNER_PARTITION` - the locality partition's order: an ILU closer to one in a natural order (fewer
                                iterations), but levels of about two rows: a warp walks the block nearly row by row

   Level: advanced

.seealso: `PCBRBILU`, `PCBRBILUSetInnerOrdering()`, `PCBRBILUSetOrdering()`
E*/
typedef enum {
  PCBRBILU_INNER_COLORS,
  PCBRBILU_INNER_PARTITION
} PCBRBILUInnerOrdering;
PETSC_EXTERN const char *const PCBRBILUInnerOrderings[];

/* PCBRBILU */
PETSC_EXTERN PetscErrorCode PCBRBILUSetType(PC, PCBRBILUType);
PETSC_EXTERN PetscErrorCode PCBRBILUGetType(PC, PCBRBILUType *);
PETSC_EXTERN PetscErrorCode PCBRBILUSetRelaxation(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCBRBILUSetPerturbation(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCBRBILUSetFactorPrecision(PC, PCBRBILUPrecision);
PETSC_EXTERN PetscErrorCode PCBRBILUSetPivotTolerance(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCBRBILUSetOrdering(PC, PCBRBILUOrderingType);
PETSC_EXTERN PetscErrorCode PCBRBILUSetBlocks(PC, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode PCBRBILUSetBlockRows(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBRBILUSetSymmetric(PC, PetscBool3);
PETSC_EXTERN PetscErrorCode PCBRBILUGetOrdering(PC, IS *);
PETSC_EXTERN PetscErrorCode PCBRBILUGetStatistics(PC, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode PCBRBILUSetShift(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCBRBILUGetShift(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCBRBILUGetFactorization(PC, PCBRBILUType *, PetscReal *, PetscBool *);
PETSC_EXTERN PetscErrorCode PCBRBILUSetInnerOrdering(PC, PCBRBILUInnerOrdering);
PETSC_EXTERN PetscErrorCode PCBRBILUGetInnerOrdering(PC, PCBRBILUInnerOrdering *);

/*E
   PCBISAIVariant - the factorization `PCBISAI` approximates

   Values:
+  `PCBISAI_VARIANT_AUTO` - `PCBISAI_VARIANT_IC` when the operator is symmetric (marked so, or measured at the setup)
                            and its diagonal blocks are positive definite, else `PCBISAI_VARIANT_ILU`
.  `PCBISAI_VARIANT_ILU`  - block ILU(0) A ~ L U, M^-1 = M_U M_L (not symmetric)
-  `PCBISAI_VARIANT_IC`   - block IC(0) A ~ L D L^T, M^-1 = G^T D^-1 G with G ~ L^-1 (symmetric positive definite:
                            for `KSPCG`)

   Level: intermediate

.seealso: `PCBISAI`, `PCBISAISetVariant()`
E*/
typedef enum {
  PCBISAI_VARIANT_AUTO,
  PCBISAI_VARIANT_ILU,
  PCBISAI_VARIANT_IC
} PCBISAIVariant;
PETSC_EXTERN const char *const PCBISAIVariants[];

/*E
   PCBISAIILUType - how `PCBISAI` computes its block incomplete factors

   Values:
+  `PCBISAI_ILU_EXACT`  - in row order where the preconditioner runs (on the GPU one warp per block row, each row
                          starting when the rows it depends on are done)
-  `PCBISAI_ILU_SWEEPS` - by fixed-point sweeps (ParILU-style, Jacobi updates) where the preconditioner runs

   Level: intermediate

.seealso: `PCBISAI`, `PCBISAISetILUType()`
E*/
typedef enum {
  PCBISAI_ILU_EXACT,
  PCBISAI_ILU_SWEEPS
} PCBISAIILUType;
PETSC_EXTERN const char *const PCBISAIILUTypes[];

/*E
   PCBISAISpMVType - which kernel applies `PCBISAI`'s approximate inverses (two block sparse products) on the GPU

   Values:
+  `PCBISAI_SPMV_OWN`      - the plugin's BSR kernel (one thread per scalar row)
-  `PCBISAI_SPMV_CUSPARSE` - cuSPARSE's `cusparseDbsrmv()` on the same BSR arrays (for comparison)

   Level: intermediate

   Note:
   Both compute the same products; without a GPU (or when the operator stays on the host) the host kernel runs
   whatever is chosen.

.seealso: `PCBISAI`, `PCBISAISetSpMVType()`
E*/
typedef enum {
  PCBISAI_SPMV_OWN,
  PCBISAI_SPMV_CUSPARSE
} PCBISAISpMVType;
PETSC_EXTERN const char *const PCBISAISpMVTypes[];

/* PCBISAI */
PETSC_EXTERN PetscErrorCode PCBISAISetVariant(PC, PCBISAIVariant);
PETSC_EXTERN PetscErrorCode PCBISAIGetVariant(PC, PCBISAIVariant *);
PETSC_EXTERN PetscErrorCode PCBISAISetBlockSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBISAIGetBlockSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCBISAISetSteps(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBISAIGetSteps(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCBISAISetShift(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCBISAIGetShift(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCBISAISetLevel(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBISAIGetLevel(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCBISAISetILUType(PC, PCBISAIILUType);
PETSC_EXTERN PetscErrorCode PCBISAIGetILUType(PC, PCBISAIILUType *);
PETSC_EXTERN PetscErrorCode PCBISAISetILUSweeps(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCBISAIGetILUSweeps(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCBISAIGetFactors(PC, Mat *, Mat *, Mat *, Mat *);
PETSC_EXTERN PetscErrorCode PCBISAISetSpMVType(PC, PCBISAISpMVType);
PETSC_EXTERN PetscErrorCode PCBISAIGetSpMVType(PC, PCBISAISpMVType *);

/*E
   PCNeumannType - the preconditioner `PCNEUMANN` applies (Gupta, van Gijzen and Vuik (2011)), on the diagonally scaled operator
   D^-1/2 A D^-1/2 = I + L~ + L~^T

   Values:
+  `PCNEUMANN_NEU1` - truncated Neumann series (I - L~^T)(I - L~) (eq. 15)
.  `PCNEUMANN_NEU2` - (I - L~^T + L~^T^2)(I - L~ + L~^2) (eq. 16, default)
.  `PCNEUMANN_IP`     - scaled Incomplete Poisson (I - L~)(I - L~^T), stored explicitly with a drop tolerance (eq. 7)
-  `PCNEUMANN_JACOBI` - D^-1 (the series' first term; with deflation the paper's "diag" DPCG, for comparisons)

   Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetType()`
E*/
typedef enum {
  PCNEUMANN_NEU1,
  PCNEUMANN_NEU2,
  PCNEUMANN_IP,
  PCNEUMANN_JACOBI
} PCNeumannType;
PETSC_EXTERN const char *const PCNeumannTypes[];

/* PCNEUMANN */
PETSC_EXTERN PetscErrorCode PCNeumannSetType(PC, PCNeumannType);
PETSC_EXTERN PetscErrorCode PCNeumannGetType(PC, PCNeumannType *);
PETSC_EXTERN PetscErrorCode PCNeumannSetIPDrop(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCNeumannGetIPDrop(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCNeumannSetDeflation(PC, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode PCNeumannGetDeflation(PC, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode PCNeumannGetLowerNorm(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCNeumannGetSubdomains(PC, IS *);
PETSC_EXTERN PetscErrorCode PCNeumannGetCoarseMatrix(PC, Mat *);

/* Krylov methods whose iterations run on the device (the scalars stay there, the vector work is fused, the host reads
   a done flag every few iterations): one option away from PETSc's methods (-ksp_type cgdevice for cg, bcgsdevice for
   bcgs, gmresdevice for gmres) */
#define KSPCGDEVICE    "cgdevice"
#define KSPBCGSDEVICE  "bcgsdevice"
#define KSPGMRESDEVICE "gmresdevice"

PETSC_EXTERN PetscErrorCode KSPDeviceSetUseGraph(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPDeviceGetUseGraph(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPDeviceSetCheckMax(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPDeviceGetCheckMax(KSP, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPDeviceSetFusion(KSP, PetscBool, PetscBool);
PETSC_EXTERN PetscErrorCode KSPDeviceGetFusion(KSP, PetscBool *, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPCGDeviceSetSingleReduction(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPCGDeviceGetSingleReduction(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPBCGSDeviceSetMergedReductions(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPBCGSDeviceGetMergedReductions(KSP, PetscBool *);
