/*
   The cuSPARSE view of a MATSEQAIJMODSELL matrix (PETSc with CUDA): a MATSEQAIJCUSPARSE matrix that shares the
   matrix's host CSR arrays (no host copy) and keeps its own device CSR, made at the first operation that needs it
   and brought up to date before every use (values copied again after a change of the matrix's values, the view
   made again after a change of its nonzero pattern). Through it the operations that MATMODSELL does not implement
   with its own image run on the GPU in PETSc's aijcusparse code, as they do for an aijcusparse matrix:

   - MatMultTranspose() and MatMultTransposeAdd() (PCMG's and PCGAMG's restriction; the latter in place: aijcusparse's
     own with distinct y and z is wrong in PETSc 3.26.1, see MatMultTransposeAdd_SeqAIJModSELL());
   - the MatProduct family (AB, AtB, ABt, PtAP, RARt, ABC) when every operand is MATSEQAIJMODSELL or
     MATSEQAIJCUSPARSE: the result is MATSEQAIJCUSPARSE (PCGAMG's and PCMG's Galerkin coarse operators);
   - the point-block Jacobi setups (PCPBJACOBI, PCVPBJACOBI take their CUDA path for a cuSPARSE block diagonal);
   - the cusparse factorizations (-pc_factor_mat_solver_type cusparse: ILU, ICC, LU, Cholesky), which factor the view.

   The products' wrappers (operands swapped for their views, the numeric phase refreshing them, the result's MatAXPY)
   also serve MATMPIAIJMODSELL and its MPI view (mpi/mpicusparseview.c).

   Memory: the device CSR, nnz (8 + 4) + 4 (m + 1) bytes (-mat_view ::ascii_info reports it once the view exists).
   A matrix bound to the CPU keeps SeqAIJ's host operations.
*/
#include <petscmodsell/private/modsellimpl.h>

#if defined(PETSC_HAVE_CUDA)

/* The views wrap the host CSR with MatCreateSeqAIJWithArrays() / MatCreateMPIAIJWithSplitArrays(), whose assembly
   scans the rows for inodes (SeqAIJ's default) that the views never use: aijcusparse turns them off when the view is
   converted, after the scan. While the wrapper is made, a private options database with -mat_no_inode is the default
   one (PetscOptionsPush()): SeqAIJ's creation reads it, the user's database is untouched. */
PetscErrorCode MSViewOptionsPush_Private(PetscOptions *o)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsCreate(o));
  PetscCall(PetscOptionsSetValue(*o, "-mat_no_inode", "1"));
  PetscCall(PetscOptionsPush(*o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSViewOptionsPop_Private(PetscOptions *o)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The view, up to date: made on first use, made again when the nonzero pattern or the host arrays changed, its
   device values marked stale when the matrix's values changed (aijcusparse copies them at its next device use) */
PetscErrorCode MatSeqAIJModSELLGetCUSPARSE_Private(Mat A, Mat *S)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  const PetscInt    *ai, *aj;
  PetscScalar       *aa;
  PetscMemType       mt;
  PetscObjectState   state;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MATSEQAIJMODSELL: assemble the matrix before this operation");
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mt));
  PetscCheck(PetscMemTypeHost(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL: the CSR arrays are not in host memory");
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (ms->cs.view && (ms->cs.nzstate != A->nonzerostate || ms->cs.ai != ai || ms->cs.aj != aj || ms->cs.aa != aa)) PetscCall(MatDestroy(&ms->cs.view));
  if (!ms->cs.view) {
    Mat          V;
    PetscOptions o;

    PetscCall(PetscLogEventBegin(MATMODSELL_View, A, 0, 0, 0));
    PetscCall(MSViewOptionsPush_Private(&o));
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, A->rmap->n, A->cmap->n, (PetscInt *)ai, (PetscInt *)aj, aa, &V));
    PetscCall(MSViewOptionsPop_Private(&o));
    PetscCall(MatSetBlockSizesFromMats(V, A, A));
    PetscCall(MatConvert(V, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &V));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)V, ((PetscObject)A)->prefix));
    PetscCall(PetscObjectAppendOptionsPrefix((PetscObject)V, "modsell_cusparse_"));
    ms->cs.view    = V;
    ms->cs.nzstate = A->nonzerostate;
    ms->cs.ai      = ai;
    ms->cs.aj      = aj;
    ms->cs.aa      = aa;
    ms->cs.state   = state;
    ms->cs.bytes   = (size_t)ai[A->rmap->n] * (sizeof(PetscScalar) + sizeof(int)) + (size_t)(A->rmap->n + 1) * sizeof(int);
    PetscCall(PetscInfo(A, "MATSEQAIJMODSELL: made the cuSPARSE view (%zu bytes of device CSR)\n", ms->cs.bytes));
    PetscCall(PetscLogEventEnd(MATMODSELL_View, A, 0, 0, 0));
  } else if (state != ms->cs.state) {
    ms->cs.view->offloadmask = PETSC_OFFLOAD_CPU; /* aijcusparse copies the values (same pattern) at its next device use */
    PetscCall(PetscObjectStateIncrease((PetscObject)ms->cs.view));
    ms->cs.state = state;
  }
  *S = ms->cs.view;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ transposes */
/* The device operations (aijmodsell_cuda.c, installed unless the matrix is bound to the CPU): through the view, which
   needs CUDA vectors; a vector in host memory is staged through a CUDA work vector of the matrix
   (MatModSELLStageVecIn_Private()). MPIAIJ gives a block its parallel vectors: only their local values are used. */
PetscErrorCode MatMultTranspose_SeqAIJModSELL(Mat A, Vec x, Vec y)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  Vec                xs, ys;
  Mat                S;

  PetscFunctionBegin;
  PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[1], PETSC_TRUE, x, x, &xs));
  PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[0], PETSC_FALSE, y, NULL, &ys));
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &S));
  PetscCall((*S->ops->multtranspose)(S, xs, ys)); /* the operation: a block's vectors may be parallel */
  PetscCall(MatModSELLStageVecOut_Private(y, ys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = y + A^T x through the view (PCMG's restriction of an interpolation given as a restriction) as z = y, then z += A^T
   x in place: PETSc 3.26.1's aijcusparse transposed product-and-add with distinct y and z is wrong
   (MatMultAddKernel_SeqAIJCUSPARSE, transposed branch: z taken write-only, then the SpMV with beta = 1 adds z's old
   device values, then y; tests/ksp/ex1 -view_levels showed it on an H100); the in-place form (y == z: z read, beta =
   1) is correct */
PetscErrorCode MatMultTransposeAdd_SeqAIJModSELL(Mat A, Vec x, Vec y, Vec z)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  Vec                xs, zs;
  Mat                S;

  PetscFunctionBegin;
  PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[1], PETSC_TRUE, x, x, &xs));
  PetscCall(MatModSELLStageVecIn_Private(A, &ms->stage[0], PETSC_FALSE, z, y, &zs));
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &S));
  PetscCall((*S->ops->multtransposeadd)(S, xs, zs, zs));
  PetscCall(MatModSELLStageVecOut_Private(z, zs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -------------------------------------------------------------------------------------------- block diagonal */
/* PCPBJACOBI and PCVPBJACOBI invert the diagonal blocks of the matrix they are given and take their CUDA path when it
   is an aijcusparse matrix: they get the view (a reference the caller destroys), whose diagonal blocks are the
   matrix's */
PetscErrorCode MatGetBlockDiagonal_SeqAIJModSELL(Mat A, Mat *D)
{
  Mat S;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &S));
  PetscCall(PetscObjectReference((PetscObject)S));
  *D = S;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------- products */
/* Replace the MATSEQAIJMODSELL and MATMPIAIJMODSELL operands of the product C by their views (saved[] keeps them; no
   reference counts change), and put them back. The MPI view is collective: every process swaps the same operands. */
static PetscErrorCode MSProductSwapIn(Mat C, Mat saved[3])
{
  Mat_Product *p      = C->product;
  Mat         *ops[3] = {&p->A, &p->B, &p->C};

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    PetscBool ms = PETSC_FALSE, mpims = PETSC_FALSE;

    saved[i] = *ops[i];
    if (*ops[i]) PetscCall(PetscObjectTypeCompare((PetscObject)*ops[i], MATSEQAIJMODSELL, &ms));
    if (*ops[i] && !ms) PetscCall(PetscObjectTypeCompare((PetscObject)*ops[i], MATMPIAIJMODSELL, &mpims));
    if (ms) PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(saved[i], ops[i]));
    else if (mpims) PetscCall(MatMPIAIJModSELLGetCUSPARSE_Private(saved[i], ops[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void MSProductSwapOut(Mat C, Mat saved[3])
{
  C->product->A = saved[0];
  C->product->B = saved[1];
  C->product->C = saved[2];
}

/* The product's data while the views compute it: the inner implementation's data, destroy and numeric phase (the
   product keeps this in its data slot, so that nothing is composed on the result) */
typedef struct {
  void              *data;
  PetscCtxDestroyFn *destroy;
  PetscErrorCode (*numeric)(Mat);
  PetscObjectId mpiview[3]; /* the MPI views the symbolic phase ran on (0: not a MATMPIAIJMODSELL operand) */
} MSProductCtx;

/* MPIAIJ's product data (MPIAIJBACKEND's intermediate products) hold the blocks of the MPI views of the symbolic phase:
   a view made again since (a new nonzero pattern, or the host arrays moved) cannot be used by the numeric phase. The
   views are made collectively, so every process sees the same. */
static PetscErrorCode MSProductRecordMPIViews(Mat C, Mat saved[3], MSProductCtx *ctx, PetscBool check)
{
  Mat_Product *p      = C->product;
  Mat          ops[3] = {p->A, p->B, p->C};

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    PetscBool     mpims = PETSC_FALSE;
    PetscObjectId id    = 0;

    if (saved[i]) PetscCall(PetscObjectTypeCompare((PetscObject)saved[i], MATMPIAIJMODSELL, &mpims));
    if (mpims) PetscCall(PetscObjectGetId((PetscObject)ops[i], &id));
    if (check) PetscCheck(id == ctx->mpiview[i], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "MATMPIAIJMODSELL product: the nonzero pattern (or the arrays) of an operand changed since the symbolic phase; make the product again with MAT_INITIAL_MATRIX");
    else ctx->mpiview[i] = id;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSProductCtxDestroy(void *arg) /* called with the address of the data slot */
{
  void        **ptr = (void **)arg;
  MSProductCtx *ctx = (MSProductCtx *)*ptr;

  PetscFunctionBegin;
  if (ctx && ctx->destroy) PetscCall((*ctx->destroy)(&ctx->data));
  PetscCall(PetscFree(ctx));
  *ptr = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_SeqAIJModSELL_View(Mat C)
{
  Mat_Product   *p   = C->product;
  MSProductCtx  *ctx = (MSProductCtx *)p->data;
  Mat            saved[3];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(ctx && p->destroy == MSProductCtxDestroy && ctx->numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL product without its numeric phase");
  PetscCall(MSProductSwapIn(C, saved));
  ierr = MSProductRecordMPIViews(C, saved, ctx, PETSC_TRUE);
  if (ierr) {
    MSProductSwapOut(C, saved);
    PetscCall(ierr);
  }
  p->data    = ctx->data;
  p->destroy = ctx->destroy;
  ierr       = (*ctx->numeric)(C);
  /* an inner numeric phase may install itself again (PETSc's ABC_Basic does, for PtAP and RARt): keep it as the
     inner phase, and this wrapper as the product's (else a MAT_REUSE_MATRIX product ran the inner phase on this
     wrapper's data: garbage Galerkin operators in PCMG's second set-up) */
  if (C->ops->productnumeric && C->ops->productnumeric != MatProductNumeric_SeqAIJModSELL_View) ctx->numeric = C->ops->productnumeric;
  C->ops->productnumeric = MatProductNumeric_SeqAIJModSELL_View;
  ctx->data    = p->data;
  ctx->destroy = p->destroy;
  p->data      = ctx;
  p->destroy   = MSProductCtxDestroy;
  MSProductSwapOut(C, saved);
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------ MatAXPY() on a product's result */
/* PCGAMG smooths its prolongator with MatAYPX(A P, alpha, P, SUBSET_NONZERO_PATTERN): A P is a product's result
   (MATSEQAIJCUSPARSE, computed on the views) and P has the operator's type. MatAXPY() calls the destination's
   operation only for two matrices of one type or of one MatAXPY operation; otherwise PETSc's generic MatAXPY_Basic()
   adds row by row through MatSetValues() on the host (the product's values brought back from the GPU and sent again:
   4.3 s against aijcusparse's 1.0 s in GAMG's smoothing at 256^3, H100, 2026-11-24, commit 4004666, not under
   docs/results). So a product's result gets MATSEQAIJMODSELL's MatAXPY operation (the first MATSEQAIJMODSELL operand's), which comes here: aijcusparse's
   operation, with a MATSEQAIJMODSELL X replaced by its view (csrgeam on the GPU, or aijcusparse's host fallback when
   either matrix is bound to the CPU). */
static PetscErrorCode (*MSCUSPARSEAXPY)(Mat, PetscScalar, Mat, MatStructure) = NULL; /* aijcusparse's (one function) */

PetscErrorCode MatAXPY_SeqAIJModSELL_OnCUSPARSE(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscErrorCode (*mine)(Mat, PetscScalar, Mat, MatStructure) = Y->ops->axpy;
  PetscBool      iscs, isms;
  Mat            Xv = X;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQAIJCUSPARSE, &iscs));
  PetscCheck(iscs && MSCUSPARSEAXPY, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL's MatAXPY on a matrix of type %s that is not the result of a product", ((PetscObject)Y)->type_name);
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJMODSELL, &isms));
  if (isms && !X->boundtocpu && !Y->boundtocpu && !X->structure_only) PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(X, &Xv));
  Y->ops->axpy = MSCUSPARSEAXPY; /* aijcusparse adds on the GPU only when both operations are its own */
  ierr         = (*MSCUSPARSEAXPY)(Y, a, Xv, str);
  if (Y->ops->axpy == MSCUSPARSEAXPY) Y->ops->axpy = mine;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Give a product's MATSEQAIJCUSPARSE result the MatAXPY operation of its MATSEQAIJMODSELL operands (above) */
static PetscErrorCode MSProductResultTakeAXPY(Mat C, Mat saved[3])
{
  PetscBool iscs;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJCUSPARSE, &iscs));
  if (iscs) { /* an MPI result: the first MATMPIAIJMODSELL operand's operation (mpi/mpicusparseview.c) */
    for (int i = 0; i < 3; i++) {
      PetscBool isms = PETSC_FALSE;

      if (saved[i]) PetscCall(PetscObjectTypeCompare((PetscObject)saved[i], MATMPIAIJMODSELL, &isms));
      if (!isms) continue;
      PetscCall(MatMPIAIJModSELLResultTakeAXPY_Private(C, saved[i]));
      break;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &iscs));
  if (!iscs || !C->ops->axpy) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < 3; i++) {
    PetscBool isms = PETSC_FALSE;

    if (saved[i]) PetscCall(PetscObjectTypeCompare((PetscObject)saved[i], MATSEQAIJMODSELL, &isms));
    if (!isms) continue;
    if (C->ops->axpy != saved[i]->ops->axpy) {
      if (!MSCUSPARSEAXPY) MSCUSPARSEAXPY = C->ops->axpy;
      PetscCheck(C->ops->axpy == MSCUSPARSEAXPY, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL product: unexpected MatAXPY operation on its MATSEQAIJCUSPARSE result");
      C->ops->axpy = saved[i]->ops->axpy;
    }
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The symbolic phase: aijcusparse's, chosen again on the views (nothing is kept from MatProductSetFromOptions()), then
   its data and numeric phase are wrapped */
static PetscErrorCode MatProductSymbolic_SeqAIJModSELL_View(Mat C)
{
  Mat_Product   *p = C->product;
  Mat            saved[3];
  MSProductCtx  *ctx = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MSProductSwapIn(C, saved));
  ierr = (*p->A->ops->productsetfromoptions)(C);
  if (!ierr && C->ops->productsymbolic) ierr = (*C->ops->productsymbolic)(C);
  if (!ierr) ierr = PetscNew(&ctx);
  if (!ierr) ierr = MSProductRecordMPIViews(C, saved, ctx, PETSC_FALSE);
  MSProductSwapOut(C, saved);
  if (ierr) PetscCall(PetscFree(ctx));
  PetscCall(ierr);
  PetscCall(MSProductResultTakeAXPY(C, saved));
  PetscCheck(C->ops->productnumeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL product: aijcusparse gave no numeric phase");
  ctx->data              = p->data;
  ctx->destroy           = p->destroy;
  ctx->numeric           = C->ops->productnumeric;
  p->data                = ctx;
  p->destroy             = MSProductCtxDestroy;
  C->ops->productsymbolic = MatProductSymbolic_SeqAIJModSELL_View;
  C->ops->productnumeric  = MatProductNumeric_SeqAIJModSELL_View;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatProductSetFromOptions() when an operand is MATSEQAIJMODSELL (its operation, and "MatProductSetFromOptions_anytype_C"
   for mixed types): on the GPU through the views when every operand is MATSEQAIJMODSELL or MATSEQAIJCUSPARSE and none
   is bound to the CPU (a structure-only product, PCGAMG's graph, stays on the host as for aijcusparse); else
   SeqAIJ's products */
PetscErrorCode MatProductSetFromOptions_SeqAIJModSELL(Mat C)
{
  Mat_Product *p      = C->product;
  Mat          ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL}, ms = NULL;
  PetscBool    dev    = (PetscBool)!C->structure_only;

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    PetscBool isms, iscs;

    if (!ops[i]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)ops[i], MATSEQAIJMODSELL, &isms));
    PetscCall(PetscObjectTypeCompare((PetscObject)ops[i], MATSEQAIJCUSPARSE, &iscs));
    if (isms && !ms) ms = ops[i];
    if ((!isms && !iscs) || ops[i]->boundtocpu) dev = PETSC_FALSE;
    if (isms && ((Mat_SeqAIJModSELL *)ops[i]->spptr)->block) dev = PETSC_FALSE; /* a block of an MPI matrix: MPIAIJ's products read the host arrays of their results */
  }
  PetscCheck(ms, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatProductSetFromOptions_SeqAIJModSELL() without a MATSEQAIJMODSELL operand");
  if (!dev) { /* SeqAIJ's host products (the saved operation of the first MATSEQAIJMODSELL operand) */
    PetscCall((*((Mat_SeqAIJModSELL *)ms->spptr)->parent.productsetfromoptions)(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatProductSetFromOptions_ModSELL_OnViews(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's MatProductSetFromOptions() on the views of the operands (the caller has decided that every operand is
   (MPI)AIJMODSELL or (MPI)AIJCUSPARSE, none bound to the CPU), its symbolic phase wrapped */
PetscErrorCode MatProductSetFromOptions_ModSELL_OnViews(Mat C)
{
  Mat_Product   *p = C->product;
  Mat            saved[3];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MSProductSwapIn(C, saved));
  ierr = (*p->A->ops->productsetfromoptions)(C); /* aijcusparse's, on the views */
  MSProductSwapOut(C, saved);
  PetscCall(ierr);
  if (C->ops->productsymbolic) C->ops->productsymbolic = MatProductSymbolic_SeqAIJModSELL_View;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
