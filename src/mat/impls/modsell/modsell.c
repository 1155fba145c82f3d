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
.  -mat_modsell_slice_height <128>        - rows per slice (a multiple of 32, at most 1024)
.  -mat_modsell_kernel <modsell,sell>     - modified SELL or plain SELL SpMV kernel
-  -mat_modsell_ordering <natural,rcm,bricks> - row ordering inside the format (bricks: matrices of a `DMDA`)

   Level: beginner

.seealso: `MATSEQAIJMODSELL`, `MATMPIAIJMODSELL`, `MatCreateModSELL()`
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

/*@
  MatModSELLSetSliceHeight - Sets the number of rows per slice of a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A  - the matrix
- sh - rows per slice: a multiple of 32 (the warp size), at most 1024

  Options Database Key:
. -mat_modsell_slice_height <sh> - the slice height

  Level: intermediate

  Note:
  The slice height is the CUDA thread-block size of the SpMV kernel and the size of the window of x
  kept in shared memory. Changing it rebuilds the format at the next product.

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
. sh - rows per slice

  Level: intermediate

.seealso: `MATMODSELL`, `MatModSELLSetSliceHeight()`
@*/
PetscErrorCode MatModSELLGetSliceHeight(Mat A, PetscInt *sh)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(sh, 2);
  PetscUseMethod(A, "MatModSELLGetSettings_C", (Mat, PetscInt *, MatModSELLKernel *, MatModSELLOrdering *), (A, sh, NULL, NULL));
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
  PetscUseMethod(A, "MatModSELLGetSettings_C", (Mat, PetscInt *, MatModSELLKernel *, MatModSELLOrdering *), (A, NULL, k, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatModSELLSetOrdering - Sets the row ordering used inside a `MATMODSELL` matrix

  Logically Collective

  Input Parameters:
+ A - the matrix
- o - `MATMODSELL_ORDERING_NATURAL`, `MATMODSELL_ORDERING_RCM` or `MATMODSELL_ORDERING_BRICKS`

  Options Database Key:
. -mat_modsell_ordering <natural,rcm,bricks> - the ordering

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
  PetscUseMethod(A, "MatModSELLGetSettings_C", (Mat, PetscInt *, MatModSELLKernel *, MatModSELLOrdering *), (A, NULL, NULL, o));
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

/* Whether a preconditioner working on operator A should run on the device: PETSc has CUDA, the
   operator's default vectors are CUDA vectors (aijcusparse, modsell) and it is not bound to the CPU
   (PCGAMG binds small coarse-grid operators, and so their vectors, to the CPU) */
PetscErrorCode PetscModSELLUseDevice(Mat A, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    VecType vt;

    if (A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatGetVecType(A, &vt));
    PetscCall(PetscStrbeginswith(vt, VECCUDA, dev));
    if (!*dev) PetscCall(PetscStrbeginswith(vt, VECSEQCUDA, dev));
    if (!*dev) PetscCall(PetscStrbeginswith(vt, VECMPICUDA, dev));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal entry of global row 'row' of A (collective: the owner looks it up on the host), for the
   preconditioners' error messages; found is false when the row stores no diagonal entry */
PetscErrorCode PetscModSELLGetDiagonalEntry(Mat A, PetscInt row, PetscReal *val, PetscBool *found)
{
  PetscInt           rstart, rend, ncols;
  const PetscInt    *cols;
  const PetscScalar *vals;
  PetscReal          loc[2] = {0.0, 0.0}, glob[2];

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  if (row >= rstart && row < rend) {
    PetscCall(MatGetRow(A, row, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++)
      if (cols[k] == row) {
        loc[0] = PetscRealPart(vals[k]);
        loc[1] = 1.0;
      }
    PetscCall(MatRestoreRow(A, row, &ncols, &cols, &vals));
  }
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)A)));
  *val   = glob[0];
  *found = (PetscBool)(glob[1] > 0.0);
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
