/*
   Public interface of MATMODSELL shared by the sequential and parallel types.
*/
#include <petscmodsell/private/modsellimpl.h>
#include <petscdmda.h>

/*MC
   MATMODSELL - MATMODSELL = "modsell" - the modified Sliced ELLPACK matrix type. It is `MATSEQAIJMODSELL`
   on one process and `MATMPIAIJMODSELL` on several, like `MATAIJ`.

   Options Database Keys:
+  -mat_type modsell                      - use this type (`-dm_mat_type modsell` for matrices made by a `DM`)
.  -mat_modsell_slice_height <128>        - rows per slice (a multiple of 32, at most 1024; default 128, 512 when
                                             `PCBJSMOOTH` works on the image or the partition ordering applies, 1024
                                             when both)
.  -mat_modsell_layout <auto,scalar,blocks,cusparse> - the product's layout: the scalar image, bs x bs blocks (a
                                             matrix with a block size of 2 to 8), the cuSPARSE view, or chosen from the
                                             matrix (default; `MatModSELLSetLayout()`)
.  -mat_modsell_kernel <modsell,sell>     - modified SELL or plain SELL SpMV kernel
.  -mat_modsell_ordering <natural,rcm,bricks,partition> - row ordering inside the format (bricks: matrices of a `DMDA`)
.  -mat_modsell_permute_chunk <1048576>   - rows per bucket of the permuted product on the GPU (0: separate gathers)
.  -mat_modsell_row_lanes <0>             - threads summing one row in the GPU product: 1, 2, 4, ..., 32, or 0 for the
                                             smallest power of two that leaves each at most 16 slots of the mean slice
                                             width (wide rows: more threads per row)
-  -mat_modsell_graph_device <true>       - make `PCGAMG`'s graph (`MatCreateGraph()`) on the GPU, the same graph as
                                             `MATSEQAIJ`'s host code (PETSc with CUDA, one process's matrix, block size 1)

   Level: beginner

   Note:
   A matrix with a block size (`MatSetBlockSize()`, e.g. 3 for elasticity) of 2 to 8 is multiplied in bs x bs blocks when
   that moves fewer bytes than the scalar image: one column index per block, the missing entries of a block stored as
   zeros (`MatModSELLSetLayout()`); `MatView()` with `PETSC_VIEWER_ASCII_INFO` says which layout the product takes and
   why.

.seealso: `MATSEQAIJMODSELL`, `MATMPIAIJMODSELL`, `MatCreateModSELL()`, `MatModSELLSetLayout()`
M*/

/*@
  MatCreateModSELL - Creates a `MATMODSELL` sparse matrix, preallocated like `MatCreateAIJ()`

  Collective

  Input Parameters:
+ comm  - MPI communicator
. m     - number of local rows (or `PETSC_DECIDE`)
. n     - number of local columns (or `PETSC_DECIDE`)
. M     - number of global rows (or `PETSC_DETERMINE`)
. N     - number of global columns (or `PETSC_DETERMINE`)
. d_nz  - nonzeros per row in the diagonal block
. d_nnz - nonzeros in each row of the diagonal block, or `NULL`
. o_nz  - nonzeros per row in the off-diagonal block
- o_nnz - nonzeros in each row of the off-diagonal block, or `NULL`

  Output Parameter:
. A - the matrix

  Level: intermediate

.seealso: `MATMODSELL`, `MatCreateAIJ()`
@*/
PetscErrorCode MatCreateModSELL(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetType(*A, MATMODSELL));
  PetscCall(MatSeqAIJSetPreallocation(*A, d_nz, d_nnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, d_nz, d_nnz, o_nz, o_nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The settings of A, or NULL when A is not a MATMODSELL matrix */
static PetscErrorCode MatModSELLQuerySettings(Mat A, MatModSELLSettings **s)
{
  PetscErrorCode (*f)(Mat, MatModSELLSettings **) = NULL;

  PetscFunctionBegin;
  *s = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatModSELLGetSettings_C", &f));
  if (f) PetscCall((*f)(A, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The settings of A; A not a MATMODSELL matrix is an error */
static PetscErrorCode MatModSELLGetSettings(Mat A, MatModSELLSettings **s)
{
  PetscFunctionBegin;
  PetscUseMethod(A, "MatModSELLGetSettings_C", (Mat, MatModSELLSettings **), (A, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetDefaults_Private(MatModSELLSettings *s)
{
  PetscFunctionBegin;
  s->sh       = MS_SLICE_HEIGHT_DEFAULT;
  s->sh_set   = PETSC_FALSE;
  s->kernel   = MATMODSELL_KERNEL_MODSELL;
  s->ordering = MATMODSELL_ORDERING_AUTO;
  s->eager    = PETSC_TRUE;
  s->permute_chunk  = MS_PERMUTE_CHUNK_DEFAULT;
  s->permute_recode = PETSC_FALSE;
  s->row_lanes      = 0;
  s->graph_device   = PETSC_TRUE;
  s->layout         = MATMODSELL_LAYOUT_AUTO;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetSliceHeight_Private(Mat A, MatModSELLSettings *s, PetscInt sh)
{
  PetscFunctionBegin;
  if (sh == PETSC_DECIDE) { /* back to the automatic default (a MATSEQAIJMODSELL matrix's image defaults' height) */
    s->sh     = MS_SLICE_HEIGHT_DEFAULT;
    s->sh_set = PETSC_FALSE;
  } else {
    PetscCall(MSCheckSliceHeight(PetscObjectComm((PetscObject)A), sh));
    s->sh     = sh;
    s->sh_set = PETSC_TRUE;
  }
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetKernel_Private(Mat A, MatModSELLSettings *s, MatModSELLKernel k)
{
  PetscFunctionBegin;
  PetscCheck(k == MATMODSELL_KERNEL_MODSELL || k == MATMODSELL_KERNEL_SELL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MATMODSELL kernel %d: use MATMODSELL_KERNEL_MODSELL or MATMODSELL_KERNEL_SELL", (int)k);
  s->kernel = k;
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetOrdering_Private(Mat A, MatModSELLSettings *s, MatModSELLOrdering o)
{
  PetscFunctionBegin;
  PetscCheck(o >= MATMODSELL_ORDERING_NATURAL && o <= MATMODSELL_ORDERING_AUTO, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MATMODSELL ordering %d: use MATMODSELL_ORDERING_AUTO (the default), NATURAL, RCM, BRICKS or PARTITION", (int)o);
  s->ordering = o;
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetEager_Private(Mat A, MatModSELLSettings *s, PetscBool eager)
{
  PetscFunctionBegin;
  s->eager = eager;
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetPermuteChunk_Private(Mat A, MatModSELLSettings *s, PetscInt chunk)
{
  PetscFunctionBegin;
  PetscCheck(chunk >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid MATMODSELL permute chunk %" PetscInt_FMT ": it must be 0 (the permuted product gathers x and y through the permutation in separate kernels) or a positive number of rows per bucket (default %d, the rows whose x and y values should stay in the GPU's L2 cache)", chunk, MS_PERMUTE_CHUNK_DEFAULT);
  s->permute_chunk = chunk;
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetRowLanes_Private(Mat A, MatModSELLSettings *s, PetscInt lanes)
{
  PetscFunctionBegin;
  PetscCheck(lanes >= 0 && lanes <= 32 && !(lanes & (lanes - 1)), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid -mat_modsell_row_lanes %" PetscInt_FMT ": give 0 (automatic, from the mean row width) or a power of two from 1 to 32 threads per row", lanes);
  s->row_lanes = lanes;
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsSetLayout_Private(Mat A, MatModSELLSettings *s, MatModSELLLayout l)
{
  PetscFunctionBegin;
  PetscCheck(l >= MATMODSELL_LAYOUT_AUTO && l <= MATMODSELL_LAYOUT_CUSPARSE, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown MATMODSELL layout %d: use MATMODSELL_LAYOUT_AUTO (the default), SCALAR, BLOCKS or CUSPARSE", (int)l);
  s->layout = l;
  PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The public MatModSELLSet...() and MatModSELLGet...() functions call these through the functions composed on a
   MATMODSELL matrix of either type (MatModSELLComposeSetGet_Private()), on its settings: for each setting N (of type T,
   the settings' field f) MatModSELLSetN_ModSELL(), which validates and applies it (MatModSELLSettingsSetN_Private()),
   and MatModSELLGetN_ModSELL() */
#define MS_SETTING(N, T, f) \
  static PetscErrorCode MatModSELLSet##N##_ModSELL(Mat A, T v) \
  { \
    MatModSELLSettings *s; \
\
    PetscFunctionBegin; \
    PetscCall(MatModSELLGetSettings(A, &s)); \
    PetscCall(MatModSELLSettingsSet##N##_Private(A, s, v)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  } \
  static PetscErrorCode MatModSELLGet##N##_ModSELL(Mat A, T *v) \
  { \
    MatModSELLSettings *s; \
\
    PetscFunctionBegin; \
    PetscCall(MatModSELLGetSettings(A, &s)); \
    *v = s->f; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
MS_SETTING(SliceHeight, PetscInt, sh)
MS_SETTING(Kernel, MatModSELLKernel, kernel)
MS_SETTING(Ordering, MatModSELLOrdering, ordering)
MS_SETTING(PermuteChunk, PetscInt, permute_chunk)
MS_SETTING(RowLanes, PetscInt, row_lanes)
MS_SETTING(Layout, MatModSELLLayout, layout)
#undef MS_SETTING

PetscErrorCode MatModSELLComposeSetGet_Private(Mat B, PetscBool set)
{
  PetscFunctionBegin;
#define MS_COMPOSE_SETGET(N) \
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLSet" #N "_C", set ? MatModSELLSet##N##_ModSELL : NULL)); \
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLGet" #N "_C", set ? MatModSELLGet##N##_ModSELL : NULL));
  MS_COMPOSE_SETGET(SliceHeight)
  MS_COMPOSE_SETGET(Kernel)
  MS_COMPOSE_SETGET(Ordering)
  MS_COMPOSE_SETGET(PermuteChunk)
  MS_COMPOSE_SETGET(RowLanes)
  MS_COMPOSE_SETGET(Layout)
#undef MS_COMPOSE_SETGET
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLSettingsCopy_Private(const MatModSELLSettings *from, Mat B)
{
  MatModSELLSettings *to;

  PetscFunctionBegin;
  PetscCall(MatModSELLQuerySettings(B, &to));
  if (!to) PetscFunctionReturn(PETSC_SUCCESS);
  *to = *from;
  PetscTryMethod(B, "MatModSELLApplySettings_C", (Mat), (B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetSliceHeight - Sets the number of rows per slice of a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A  - the matrix
- sh - rows per slice: a multiple of 32 (the warp size), at most 1024; or `PETSC_DECIDE` for the default

  Options Database Key:
. -mat_modsell_slice_height <sh> - the slice height

  Level: intermediate

  Notes:
  The slice height is the CUDA thread-block size of the SpMV kernel and the size of the window of x
  kept in shared memory. Changing it rebuilds the format at the next product.

  The default is 128 rows, 512 when a slice-based preconditioner (`PCBJSMOOTH`) works on the matrix's image or when the
  partition ordering applies (a randomly numbered mesh under `MATMODSELL_ORDERING_AUTO`). The partition makes compact
  blocks of 1024 strongly coupled rows; its image takes slices of 512 (halves of the blocks: the product is up to 4%
  faster than with 1024), and of 1024 when `PCBJSMOOTH` works on it (its blocks, with 8 inner sweeps), made again from
  the same partition when the preconditioner comes after the image built at assembly.

.seealso: `MATMODSELL`, `MatModSELLGetSliceHeight()`
@*/
PetscErrorCode MatModSELLSetSliceHeight(Mat A, PetscInt sh)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, sh, 2);
  PetscTryMethod(A, "MatModSELLSetSliceHeight_C", (Mat, PetscInt), (A, sh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetSliceHeight - Gets the number of rows per slice of a `MATMODSELL` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. sh - rows per slice, as set, or the default (128; 512 when a slice-based preconditioner such as `PCBJSMOOTH` works
       on the matrix; see the note for the partition ordering)

  Level: intermediate

  Note:
  Without a height set, an image in the partition ordering (`MATMODSELL_ORDERING_PARTITION`, the choice of
  `MATMODSELL_ORDERING_AUTO` for a randomly numbered mesh) takes slices of 512 rows, of 1024 under a slice-based
  preconditioner: `MatModSELLGetInfo()` gives the height in use.

.seealso: `MATMODSELL`, `MatModSELLSetSliceHeight()`, `MatModSELLGetInfo()`
@*/
PetscErrorCode MatModSELLGetSliceHeight(Mat A, PetscInt *sh)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(sh, 2);
  PetscUseMethod(A, "MatModSELLGetSliceHeight_C", (Mat, PetscInt *), (A, sh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetKernel - Chooses the SpMV kernel (and layout) of a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A - the matrix
- k - `MATMODSELL_KERNEL_MODSELL` (default) or `MATMODSELL_KERNEL_SELL` (plain Sliced ELLPACK, for comparison)

  Options Database Key:
. -mat_modsell_kernel <modsell,sell> - the kernel

  Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLKernel`
@*/
PetscErrorCode MatModSELLSetKernel(Mat A, MatModSELLKernel k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, k, 2);
  PetscTryMethod(A, "MatModSELLSetKernel_C", (Mat, MatModSELLKernel), (A, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetKernel - Gets the SpMV kernel of a `MATMODSELL` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. k - the kernel

  Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetKernel()`
@*/
PetscErrorCode MatModSELLGetKernel(Mat A, MatModSELLKernel *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(k, 2);
  PetscUseMethod(A, "MatModSELLGetKernel_C", (Mat, MatModSELLKernel *), (A, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetOrdering - Sets the row ordering used inside a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A - the matrix
- o - `MATMODSELL_ORDERING_NATURAL`, `MATMODSELL_ORDERING_RCM`, `MATMODSELL_ORDERING_BRICKS` or `MATMODSELL_ORDERING_PARTITION`

  Options Database Key:
. -mat_modsell_ordering <natural,rcm,bricks,partition> - the ordering

  Level: intermediate

  Notes:
  The permutation is applied inside the format and fused into the kernels: vectors stay in the
  user's ordering. On several processes it reorders the rows of each diagonal block.

  `MATMODSELL_ORDERING_BRICKS` needs a matrix created by `DMCreateMatrix()` on a `DMDA` (the grid is taken
  from it). Each process's box of grid points is cut into bricks of bx x by x bz points, about a slice
  height of rows each (slice height 512 and one degree of freedom: 8 x 8 x 8; 128: 8 x 4 x 4; the
  x extent is doubled first, then y, then z, while the brick fits in the box), the bricks taken in
  lexicographic order and the points of a brick lexicographically, the degrees of freedom of a point
  together. A slice is then a compact brick: with the 7-point stencil most couplings of a row are
  inside its slice (read from shared memory by the SpMV), and `PCBJSMOOTH`'s blocks, which are the slices,
  are subdomains rather than pieces of grid lines.

.seealso: `MATMODSELL`, `MatModSELLOrdering`
@*/
PetscErrorCode MatModSELLSetOrdering(Mat A, MatModSELLOrdering o)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, o, 2);
  PetscTryMethod(A, "MatModSELLSetOrdering_C", (Mat, MatModSELLOrdering), (A, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetOrdering - Gets the row ordering used inside a `MATMODSELL` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. o - the ordering

  Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetOrdering()`
@*/
PetscErrorCode MatModSELLGetOrdering(Mat A, MatModSELLOrdering *o)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(o, 2);
  PetscUseMethod(A, "MatModSELLGetOrdering_C", (Mat, MatModSELLOrdering *), (A, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetPermuteChunk - Sets the bucket, in rows, of the permuted product of a `MATMODSELL` matrix on the GPU

  Logically Collective

  Input Parameters:
+ A     - the matrix
- chunk - rows per bucket (default 1048576 = 2^20), or 0 for the separate gathers

  Options Database Key:
. -mat_modsell_permute_chunk <chunk> - the bucket

  Level: advanced

  Notes:
  With a row ordering that permutes the rows (`MATMODSELL_ORDERING_RCM`, `MATMODSELL_ORDERING_BRICKS`,
  `MATMODSELL_ORDERING_PARTITION`) the image works in its own numbering and a product moves x into it and y out of it.
  With chunk 0 each is a gather through the permutation: a random read per row, which on a randomly numbered mesh
  costs more than the product itself. With chunk C > 0 each moves in two steps through buckets of C rows: x is
  scattered into the buckets of its image rows (a sequential read), the product reads its values inside one bucket and
  writes its results into the buckets of their user rows, and a last pass gathers y inside one bucket (a sequential
  write). Choose C so that a bucket of x and y values (8 C bytes each) stays in the GPU's L2 cache: the default, 16.8 MB,
  suits an H100 (50 MB). With C at least the local number of rows there is one bucket and the product reads x through
  the permutation itself. Every choice gives the same result bit for bit. Changing it keeps the format; the index
  arrays (16 bytes per row, counted in `MatModSELLInfo`'s device bytes) are made again at the next product on the GPU.
  Host products are not affected.

.seealso: `MATMODSELL`, `MatModSELLGetPermuteChunk()`, `MatModSELLSetOrdering()`
@*/
PetscErrorCode MatModSELLSetPermuteChunk(Mat A, PetscInt chunk)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, chunk, 2);
  PetscTryMethod(A, "MatModSELLSetPermuteChunk_C", (Mat, PetscInt), (A, chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetPermuteChunk - Gets the bucket, in rows, of the permuted product of a `MATMODSELL` matrix on the GPU

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. chunk - rows per bucket (0: separate gathers)

  Level: advanced

.seealso: `MATMODSELL`, `MatModSELLSetPermuteChunk()`
@*/
PetscErrorCode MatModSELLGetPermuteChunk(Mat A, PetscInt *chunk)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(chunk, 2);
  PetscUseMethod(A, "MatModSELLGetPermuteChunk_C", (Mat, PetscInt *), (A, chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetRowLanes - Sets how many GPU threads sum one row in the product of a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A     - the matrix
- lanes - threads per row: 1, 2, 4, 8, 16 or 32; or 0 (the default) to choose from the matrix

  Options Database Key:
. -mat_modsell_row_lanes <lanes> - threads per row

  Level: advanced

  Notes:
  The product gives each row of a slice `lanes` consecutive threads: thread j adds the row's stored entries j,
  j + lanes, ..., and the threads' sums are added pairwise. One thread per row keeps a slice's loads coalesced and
  needs no reduction, which suits rows of a few entries; rows of tens of entries (27-point stencils, systems of several
  fields per grid point) leave too few threads to hide the memory latency, on small matrices above all. With 0, each
  image (the diagonal and off-diagonal blocks of each process) takes the smallest power of two that leaves each thread
  at most 16 slots of its mean slice width. The storage does not change; the host product adds the terms in the same
  order, so that host and GPU products of the same image agree to rounding. -mat_view ::ascii_info names the choice
  when it is more than one.

.seealso: `MATMODSELL`, `MatModSELLGetRowLanes()`, `MatModSELLGetInfo()`
@*/
PetscErrorCode MatModSELLSetRowLanes(Mat A, PetscInt lanes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, lanes, 2);
  PetscTryMethod(A, "MatModSELLSetRowLanes_C", (Mat, PetscInt), (A, lanes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetRowLanes - Gets the setting of the threads per row of the GPU product of a `MATMODSELL` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. lanes - threads per row as set (0: chosen from the matrix; `MatModSELLGetInfo()` gives the choice)

  Level: advanced

.seealso: `MATMODSELL`, `MatModSELLSetRowLanes()`
@*/
PetscErrorCode MatModSELLGetRowLanes(Mat A, PetscInt *lanes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(lanes, 2);
  PetscUseMethod(A, "MatModSELLGetRowLanes_C", (Mat, PetscInt *), (A, lanes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetLayout - Sets the layout of the product of a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A - the matrix
- l - `MATMODSELL_LAYOUT_AUTO` (default), `MATMODSELL_LAYOUT_SCALAR`, `MATMODSELL_LAYOUT_BLOCKS` or
      `MATMODSELL_LAYOUT_CUSPARSE`

  Options Database Key:
. -mat_modsell_layout <auto,scalar,blocks,cusparse> - the layout

  Level: intermediate

  Notes:
  The layout applies to the matrix's own `MatMult()`, `MatMultAdd()`, `MatResidual()` and `MatGetDiagonal()` (each
  process's diagonal block; the off-process block keeps the scalar image). The preconditioners of this package always
  read the scalar image, built for them when the product uses another layout.

  `MATMODSELL_LAYOUT_BLOCKS`, for a matrix with a block size bs from 2 to 8 (`MatSetBlockSize()`, or the block size of
  a loaded or `DM` matrix), stores the matrix in bs x bs blocks: one column index per block (the missing entries of a
  block stored as zeros), the diagonal blocks apart, slices of block rows (the slice height counted in block rows, at
  most 1024 / bs threads), the natural order. For 3 x 3 blocks a product moves 8.4 bytes per stored entry instead of 12.
  Where the block layout cannot apply (block size 1 or above 8, an ordering other than natural or auto asked for, row
  lanes set) the scalar image is used, and `MatView()` says why.

  `MATMODSELL_LAYOUT_AUTO` chooses per process, once per nonzero pattern, from the counts of the images' builds: the
  bytes a product moves in the scalar image (its padding, its permutation), in the block image and in cuSPARSE's CSR,
  over the fractions of the GPU's bandwidth the kernels reached (95% for the images, 63% for cuSPARSE's CSR kernel,
  measured on an NVIDIA H200); blocks when they save at least 3% of the bytes; the cuSPARSE view when the image is not
  predicted at least 1.1 times as fast (only when no setting that shapes the image, slice height, kernel, ordering or
  row lanes, was given). `MatView()` with `PETSC_VIEWER_ASCII_INFO` prints the estimates and the choice. Without CUDA
  (or bound to the CPU) the host product uses the image the rule would take.

.seealso: `MATMODSELL`, `MatModSELLGetLayout()`, `MatModSELLLayout`, `MatModSELLGetInfo()`
@*/
PetscErrorCode MatModSELLSetLayout(Mat A, MatModSELLLayout l)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, l, 2);
  PetscTryMethod(A, "MatModSELLSetLayout_C", (Mat, MatModSELLLayout), (A, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetLayout - Gets the setting of the layout of the product of a `MATMODSELL` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. l - the layout as set (`MATMODSELL_LAYOUT_AUTO`: chosen from the matrix; `MatModSELLGetInfo()` gives the choice)

  Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetLayout()`
@*/
PetscErrorCode MatModSELLGetLayout(Mat A, MatModSELLLayout *l)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(l, 2);
  PetscUseMethod(A, "MatModSELLGetLayout_C", (Mat, MatModSELLLayout *), (A, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLGetInfo - Statistics of the mod-SELL format of an assembled `MATMODSELL` matrix (builds it if needed)

  Collective on several processes (sums over processes)

  Input Parameter:
. A - the matrix

  Output Parameter:
. info - slice height, slices, slots, padding ratio, fraction of off-diagonals read from shared memory, device bytes

  Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLInfo`
@*/
PetscErrorCode MatModSELLGetInfo(Mat A, MatModSELLInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(info, 2);
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Matrix must be assembled");
  PetscUseMethod(A, "MatModSELLGetInfo_C", (Mat, MatModSELLInfo *), (A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options shared by the sequential and parallel types; also read when the type is created, since
   not every path (DMCreateMatrix(), for one) calls MatSetFromOptions() */
PetscErrorCode MatModSELLReadOptions_Private(Mat A, PetscOptionItems PetscOptionsObject)
{
  MatModSELLSettings *s;
  PetscInt            sh;
  MatModSELLKernel    k;
  MatModSELLOrdering  o;
  PetscBool           flg, eager = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MatModSELLGetSettings(A, &s));
  sh = s->sh;
  k  = s->kernel;
  o  = s->ordering;
  PetscOptionsHeadBegin(PetscOptionsObject, "MATMODSELL options");
  PetscCall(PetscOptionsInt("-mat_modsell_slice_height", "Rows per slice: a multiple of 32, at most 1024", "MatModSELLSetSliceHeight", sh, &sh, &flg));
  if (flg) PetscCall(MatModSELLSetSliceHeight(A, sh));
  PetscCall(PetscOptionsEnum("-mat_modsell_kernel", "SpMV kernel: modsell (diagonal apart, in-slice x from shared memory) or sell (plain Sliced ELLPACK)", "MatModSELLSetKernel", MatModSELLKernels, (PetscEnum)k, (PetscEnum *)&k, &flg));
  if (flg) PetscCall(MatModSELLSetKernel(A, k));
  PetscCall(PetscOptionsEnum("-mat_modsell_ordering", "Row ordering inside the format (vectors keep the user's ordering)", "MatModSELLSetOrdering", MatModSELLOrderings, (PetscEnum)o, (PetscEnum *)&o, &flg));
  if (flg) PetscCall(MatModSELLSetOrdering(A, o));
  {
    PetscInt nt;
    PetscCall(MSUploadGetThreads(&nt));
    PetscCall(PetscOptionsInt("-mat_modsell_upload_threads", "Host threads that copy a host-assembled matrix to the GPU through pinned buffers (1: one cudaMemcpy; a setting of the process)", "MATMODSELL", nt, &nt, &flg));
    if (flg) PetscCall(MSUploadSetThreads(nt));
    PetscCall(MSUploadGetChunk(&nt));
    PetscCall(PetscOptionsInt("-mat_modsell_upload_chunk", "Bytes per pinned buffer of the threaded upload (copies of less than 4 chunks are one cudaMemcpy)", "MATMODSELL", nt, &nt, &flg));
    if (flg) PetscCall(MSUploadSetChunk(nt));
  }
  {
    PetscInt  chunk = s->permute_chunk;
    PetscBool recode = s->permute_recode, rflg;
    PetscCall(PetscOptionsInt("-mat_modsell_permute_chunk", "Rows per bucket of the permuted product on the GPU: the bucket of rows whose x and y values should stay in the GPU's L2 cache (0: x and y gathered through the permutation by separate kernels)", "MatModSELLSetPermuteChunk", chunk, &chunk, &flg));
    if (flg) PetscCall(MatModSELLSetPermuteChunk(A, chunk));
    /* developer: the bucketed product reads recoded column codes (a copy of the codes) instead of a dependent load */
    PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_modsell_permute_recode", &recode, &rflg));
    if (rflg && recode != s->permute_recode) {
      s->permute_recode = recode;
      PetscTryMethod(A, "MatModSELLApplySettings_C", (Mat), (A));
    }
  }
  {
    PetscInt lanes = s->row_lanes;
    PetscCall(PetscOptionsInt("-mat_modsell_row_lanes", "Threads summing one row in the GPU product: a power of two from 1 to 32 (0: from the mean row width, one thread per row up to 16 slots)", "MatModSELLSetRowLanes", lanes, &lanes, &flg));
    if (flg) PetscCall(MatModSELLSetRowLanes(A, lanes));
  }
  {
    PetscBool br = s->block_rows;
    /* developer: the block layout's GPU product with one thread per block row (read like -mat_modsell_permute_recode) */
    PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_modsell_block_rows", &br, &flg));
    if (flg) s->block_rows = br;
  }
  {
    MatModSELLLayout l = s->layout;
    PetscCall(PetscOptionsEnum("-mat_modsell_layout", "Layout of the product: auto (from the matrix), scalar (one column index per nonzero), blocks (bs x bs blocks of a matrix with a block size of 2 to 8), cusparse (the cuSPARSE view)", "MatModSELLSetLayout", MatModSELLLayouts, (PetscEnum)l, (PetscEnum *)&l, &flg));
    if (flg) PetscCall(MatModSELLSetLayout(A, l));
  }
  {
    PetscBool gd = s->graph_device;
    PetscCall(PetscOptionsBool("-mat_modsell_graph_device", "Make PCGAMG's graph (MatCreateGraph()) on the GPU from the cuSPARSE view's CSR, the same graph as SeqAIJ's host code (PETSc with CUDA; one process's matrix, block size 1)", "MATMODSELL", gd, &gd, &flg));
    if (flg) s->graph_device = gd; /* read when the graph is made: nothing to apply */
  }
  PetscCall(PetscOptionsBool("-mat_modsell_eager_setup", "Build the GPU image at final assembly (when vectors are CUDA vectors) instead of at the first product", "MATMODSELL", eager, &eager, &flg));
  if (flg) PetscCall(MatModSELLSettingsSetEager_Private(A, s, eager));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Why MATMODSELL_ORDERING_AUTO chose o (the rule of MSImageChooseOrdering(), imageordering.c; bricks: it would have
   taken bricks on a DMDA grid) */
static const char *MatModSELLOrderingReason_Private(MatModSELLOrdering o, PetscReal natfrac, PetscBool bricks, PetscBool windowed)
{
  switch (o) {
  case MATMODSELL_ORDERING_BRICKS:
    return "a DMDA matrix under a slice-based preconditioner: slices are bricks of the grid";
  case MATMODSELL_ORDERING_PARTITION:
    return "the matrix's order is not local: compact blocks of its graph";
  case MATMODSELL_ORDERING_NATURAL:
    if (natfrac < 0) return "blocks of at most one slice, or rectangular";
    if (windowed) return "the matrix's order is already local: few columns in their row's slice, but each slice's columns lie in a narrow window of rows";
    return bricks ? "the matrix's order is already local, no DMDA grid" : "the matrix's order is already local";
  default:
    return "";
  }
}

/* The MATMODSELL part of MatView() of both types, after the parent type's: with an ASCII info format, the settings
   (with the ordering the format applies) and statistics of the format; bricks: the automatic ordering takes bricks on a
   DMDA grid (the image's request) */
PetscErrorCode MatModSELLView_Private(Mat A, PetscViewer viewer, PetscBool bricks, const char *why)
{
  MatModSELLSettings *s;
  MatModSELLInfo      info;
  PetscBool           iascii;
  PetscViewerFormat   format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatModSELLGetSettings(A, &s));
  PetscCall(MatModSELLGetInfo(A, &info));
  {
    char line[512] = "", frac[320] = "", height[64];
    if (s->ordering == MATMODSELL_ORDERING_AUTO) {
      if (info.natural_local_fraction >= 0) {
        char sampled[64] = "", window[96] = "";

        if (info.natural_local_stride > 1) PetscCall(PetscSNPrintf(sampled, sizeof(sampled), " (counted on one slice in %" PetscInt_FMT ")", info.natural_local_stride));
        if (info.natural_windowed) PetscCall(PetscSNPrintf(window, sizeof(window), ", and a slice's columns span %.0f rows on average", (double)info.natural_window));
        PetscCall(PetscSNPrintf(frac, sizeof(frac), "; in the matrix's order %.1f%% of the off-diagonal entries of the diagonal block lie in their row's slice%s%s", 100.0 * (double)info.natural_local_fraction, sampled, window));
      }
      if (info.ordering == MATMODSELL_ORDERING_AUTO) PetscCall(PetscSNPrintf(line, sizeof(line), ": chosen per process, not the same on all%s", frac));
      else PetscCall(PetscSNPrintf(line, sizeof(line), ": %s (%s%s)", MatModSELLOrderings[info.ordering], MatModSELLOrderingReason_Private(info.ordering, info.natural_local_fraction, bricks, info.natural_windowed), frac));
    }
    if (info.slice_height_min == info.slice_height) PetscCall(PetscSNPrintf(height, sizeof(height), "%" PetscInt_FMT, info.slice_height));
    else PetscCall(PetscSNPrintf(height, sizeof(height), "%" PetscInt_FMT " to %" PetscInt_FMT " (per process)", info.slice_height_min, info.slice_height));
    PetscCall(PetscViewerASCIIPrintf(viewer, "MATMODSELL: kernel %s, slice height %s, ordering %s%s\n", MatModSELLKernels[s->kernel], height, MatModSELLOrderings[s->ordering], line));
  }
  { /* the product's layout */
    char        lay[128];
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    if (info.layout == MATMODSELL_LAYOUT_BLOCKS) PetscCall(PetscSNPrintf(lay, sizeof(lay), "%" PetscInt_FMT "x%" PetscInt_FMT " blocks (slices of %" PetscInt_FMT " block rows, block density %.2f)", info.block_size, info.block_size, info.slice_height, (double)info.block_density));
    else if (info.layout == MATMODSELL_LAYOUT_CUSPARSE) PetscCall(PetscStrncpy(lay, "cuSPARSE view (on the host, or bound to the CPU: the image the rule prefers)", sizeof(lay)));
    else if (info.layout == MATMODSELL_LAYOUT_SCALAR) PetscCall(PetscStrncpy(lay, "scalar image", sizeof(lay)));
    else PetscCall(PetscStrncpy(lay, "chosen per process, not the same on all", sizeof(lay)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  layout of the product (-mat_modsell_layout %s): %s\n", MatModSELLLayouts[s->layout], lay));
    if (why && why[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "    %s%s\n", size > 1 ? "process 0: " : "", why));
  }
  if (info.block_size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  slices %" PetscInt_FMT ", widest slice %" PetscInt_FMT " blocks, off-diagonal block slots %" PetscInt64_FMT " for %" PetscInt64_FMT " off-diagonal blocks (padding ratio %.3f)\n", info.nslices, info.max_width, info.nslots, info.noffdiag, (double)info.padding_ratio));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  slices %" PetscInt_FMT ", widest slice %" PetscInt_FMT ", off-diagonal slots %" PetscInt64_FMT " for %" PetscInt64_FMT " off-diagonal nonzeros (padding ratio %.3f)\n", info.nslices, info.max_width, info.nslots, info.noffdiag, (double)info.padding_ratio));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  off-diagonals read from shared memory: %.1f%%, device bytes %zu\n", 100.0 * (double)info.local_fraction, info.device_bytes));
  if (info.row_lanes > 1) { /* one thread per row everywhere, the format's usual product: nothing to say */
    if (info.row_lanes_min == info.row_lanes) PetscCall(PetscViewerASCIIPrintf(viewer, "  threads summing each row on the GPU: %" PetscInt_FMT " (%s)\n", info.row_lanes, s->row_lanes ? "-mat_modsell_row_lanes" : "from the mean slice width"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  threads summing each row on the GPU: %" PetscInt_FMT " to %" PetscInt_FMT " (per process, from the mean slice width)\n", info.row_lanes_min, info.row_lanes));
  }
  if (info.ordering != MATMODSELL_ORDERING_NATURAL) { /* a permuted image (on some process) */
    if (s->permute_chunk > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  permuted product on the GPU: buckets of %" PetscInt_FMT " rows%s, device bytes %zu of their index arrays\n", s->permute_chunk, s->permute_recode ? " (recoded column codes)" : "", info.permute_bytes));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  permuted product on the GPU: x and y gathered through the permutation (permute chunk 0)\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The start of a conversion between a MATMODSELL type and its parent type: MAT_REUSE_MATRIX copies the values into
   *newmat and is all there is to do (*done); MAT_INITIAL_MATRIX converts a duplicate of A, MAT_INPLACE_MATRIX A itself */
/* The conversions to this type from the other AIJ subclasses (prefix "seq" or "mpi"), whose conversion PETSc does not
   know (MatConvert() would take MatConvert_Basic(), a MatSetValues() per entry): MatConvert() looks for
   "MatConvert_<source type>_<target type>_C" on a matrix of the target type, under the target's type name and under
   "modsell" */
PetscErrorCode MatModSELLComposeConvertFromOthers_Private(Mat B, const char prefix[], PetscErrorCode (*conv)(Mat, MatType, MatReuse, Mat *), PetscBool set)
{
  const char *const others[] = {"aijcusparse", "aijhipsparse", "aijkokkos", "aijperm", "aijsell", "aijmkl"};

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(others); i++) {
    char name[128];

    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s%s_%saijmodsell_C", prefix, others[i], prefix));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, set ? conv : NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s%s_modsell_C", prefix, others[i]));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, set ? conv : NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLConvertBegin_Private(Mat A, MatReuse reuse, Mat *newmat, PetscBool *done)
{
  PetscFunctionBegin;
  *done = (PetscBool)(reuse == MAT_REUSE_MATRIX);
  if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
  else if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, newmat));
  else *newmat = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of making B (a MATSEQAIJ or MATMPIAIJ with its MATMODSELL data and operations) a MATMODSELL type: the type
   name, CUDA vectors when PETSc has CUDA, and the options, which apply from creation on */
PetscErrorCode MatModSELLSetType_Private(Mat B, MatType type)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECCUDA, &B->defaultvectype));
  B->boundtocpu = PETSC_FALSE; /* a device type: PETSc marks every new matrix bound to the CPU */
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, type));
  PetscObjectOptionsBegin((PetscObject)B);
  PetscCall(MatModSELLReadOptions_Private(B, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of making B a parent type (host vectors, bound to the CPU like every host matrix) again */
PetscErrorCode MatModSELLResetType_Private(Mat B, MatType type)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
#if defined(PETSC_HAVE_DEVICE)
  B->boundtocpu = PETSC_TRUE;
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatModSELLGetDMDABox_Private(Mat A, PetscInt box[4])
{
  PetscObject dm = NULL;
  PetscBool   isda;
  PetscInt    dim, dof, nx, ny, nz;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(box, 4));
  PetscCall(PetscObjectQuery((PetscObject)A, "__PETSc_dm", &dm)); /* MatGetDM() */
  if (!dm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare(dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDAGetInfo((DM)dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners((DM)dm, NULL, NULL, NULL, &nx, &ny, &nz));
  box[0] = nx;
  box[1] = dim > 1 ? ny : 1;
  box[2] = dim > 2 ? nz : 1;
  box[3] = dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_ModSELL_Same_Private(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  (void)type;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  else if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, *B, DIFFERENT_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}
