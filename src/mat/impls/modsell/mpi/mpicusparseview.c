/*
   The cuSPARSE view of a MATMPIAIJMODSELL matrix (PETSc with CUDA): a MATMPIAIJCUSPARSE matrix made, collectively,
   at the first operation that needs it, by MatCreateMPIAIJWithSplitArrays() on

   - the diagonal block's host CSR arrays (shared, no copy);
   - the off-diagonal block's host row offsets and values (shared) and a COPY of its column indices: PETSc's
     constructor takes them in global numbering and compacts them, in place, to the view's own ghost numbering at
     assembly (the same sorted ghost columns as the matrix's garray; the copy then equals the block's indices).

   The view keeps its own device CSR of both blocks, ghost vector and scatter. It is brought up to date before every
   use: after a change of values its blocks' device values are marked stale (aijcusparse copies them at its next
   device use, same pattern), after a change of the nonzero pattern or of the host arrays (or of garray) it is made
   again. Whether to make it again is decided collectively (one MPI_Allreduce of two ints per use), since making it is
   collective. Through it, in PETSc's (MPI)aijcusparse code and with public interfaces only:

   - MatMultTranspose() and MatMultTransposeAdd() (PCMG's and PCGAMG's restriction on several
     processes; MPIAIJ's operation ran the blocks' own, through the blocks' sequential views: two views' memory; the
     add in place, see below);
   - the MatProduct family when every operand is MATMPIAIJMODSELL or MATMPIAIJCUSPARSE, none bound to the CPU: MPIAIJ's
     device backend (MatProductSetFromOptions_MPIAIJBACKEND: AB, AtB, PtAP by COO on the GPU; the others MPIAIJ's
     host code on the views, as for aijcusparse), the result MATMPIAIJCUSPARSE; the phases are wrapped by the
     sequential type's wrappers (seq/cusparseview.c), which swap in the views, refresh them before a numeric phase
     and give the result the MatAXPY operation below;
   - MatAXPY() of such a result with a MATMPIAIJMODSELL X: MPIAIJ's MatAXPY (aijcusparse's) with X replaced by its view,
     so that SAME_NONZERO_PATTERN adds the blocks on the GPU (SUBSET and DIFFERENT take MPIAIJ's host code, as they do
     for two aijcusparse matrices).

   Memory per process: device CSR of both blocks, (nnz_d + nnz_o) (sizeof(PetscScalar) + 4) + 8 (m + 1) bytes, and the
   ghost vector, nghost sizeof(PetscScalar) (also on the host); the host copy of the off-diagonal column indices,
   nnz_o sizeof(PetscInt), and the view's garray, nghost sizeof(PetscInt). -mat_view ::ascii_info prints the sums.
*/
#include <petscmodsell/private/modsellimpl.h>

#if defined(PETSC_HAVE_CUDA)

PetscErrorCode MatMPIAIJModSELLDestroyCUSPARSE_Private(Mat A)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  if (!mm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatDestroy(&mm->cs.view)); /* before the column indices it shares */
  PetscCall(PetscFree(mm->cs.ojcopy));
  mm->cs.bytes      = 0;
  mm->cs.host_bytes = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The view, up to date (collective): made on first use, made again when the nonzero pattern, the host arrays or the
   ghost columns changed on any process, its blocks' device values marked stale when the values changed */
PetscErrorCode MatMPIAIJModSELLGetCUSPARSE_Private(Mat A, Mat *V)
{
  Mat_MPIAIJModSELL *mm   = (Mat_MPIAIJModSELL *)A->spptr;
  MSMPICUSPARSEView *cv   = &mm->cs;
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ad, Ao;
  const PetscInt    *garray, *ai, *aj, *oi, *oj;
  PetscScalar       *aa, *oa;
  PetscMemType       mtd, mto;
  PetscObjectState   s, sd, so;
  int                loc[2], glob[2];

  PetscFunctionBegin;
  PetscCheck(A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "MATMPIAIJMODSELL: assemble the matrix before this operation");
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &ai, &aj, &aa, &mtd));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &oi, &oj, &oa, &mto));
  loc[0] = (!cv->view || cv->nzstate != A->nonzerostate || cv->dnzstate != Ad->nonzerostate || cv->onzstate != Ao->nonzerostate || cv->ai != ai || cv->aj != aj || cv->aa != aa || cv->oi != oi || cv->oj != oj || cv->oa != oa || cv->garray != garray) ? 1 : 0;
  loc[1] = (PetscMemTypeHost(mtd) && PetscMemTypeHost(mto)) ? 0 : 1;
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPI_INT, MPI_MAX, comm));
  PetscCheck(!glob[1], comm, PETSC_ERR_PLIB, "MATMPIAIJMODSELL: the CSR arrays of a block are not in host memory");
  PetscCall(PetscObjectStateGet((PetscObject)A, &s));
  PetscCall(PetscObjectStateGet((PetscObject)Ad, &sd));
  PetscCall(PetscObjectStateGet((PetscObject)Ao, &so));
  if (glob[0]) {
    const PetscInt m = A->rmap->n, nzd = ai[m], nzo = oi[m];
    Mat            W, Wo;
    PetscInt      *ojg;
    PetscOptions   o;
    size_t         bytes[2], sum[2];

    PetscCall(PetscLogEventBegin(MATMODSELL_View, A, 0, 0, 0));
    PetscCall(MatMPIAIJModSELLDestroyCUSPARSE_Private(A));
    PetscCall(PetscMalloc1(nzo, &ojg));
    for (PetscInt k = 0; k < nzo; k++) ojg[k] = garray[oj[k]]; /* global numbering (sorted in each row, as oj) */
    PetscCall(MSViewOptionsPush_Private(&o));
    PetscCall(MatCreateMPIAIJWithSplitArrays(comm, m, A->cmap->n, A->rmap->N, A->cmap->N, (PetscInt *)ai, (PetscInt *)aj, aa, (PetscInt *)oi, ojg, oa, &W));
    PetscCall(MSViewOptionsPop_Private(&o));
    PetscCall(MatSetBlockSizesFromMats(W, A, A));
    PetscCall(MatConvert(W, MATMPIAIJCUSPARSE, MAT_INPLACE_MATRIX, &W));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)W, ((PetscObject)A)->prefix));
    PetscCall(PetscObjectAppendOptionsPrefix((PetscObject)W, "modsell_cusparse_"));
    PetscCall(MatMPIAIJGetSeqAIJ(W, NULL, &Wo, NULL));
    cv->view       = W;
    cv->ojcopy     = ojg;
    cv->nzstate    = A->nonzerostate;
    cv->dnzstate   = Ad->nonzerostate;
    cv->onzstate   = Ao->nonzerostate;
    cv->ai         = ai;
    cv->aj         = aj;
    cv->aa         = aa;
    cv->oi         = oi;
    cv->oj         = oj;
    cv->oa         = oa;
    cv->garray     = garray;
    cv->bytes      = (size_t)(nzd + nzo) * (sizeof(PetscScalar) + sizeof(int)) + 2 * (size_t)(m + 1) * sizeof(int) + (size_t)Wo->cmap->n * sizeof(PetscScalar);
    cv->host_bytes = (size_t)nzo * sizeof(PetscInt) + (size_t)Wo->cmap->n * (sizeof(PetscInt) + sizeof(PetscScalar));
    bytes[0]       = cv->bytes;
    bytes[1]       = cv->host_bytes;
    PetscCallMPI(MPIU_Allreduce(bytes, sum, 2, MPIU_SIZE_T, MPI_SUM, comm));
    PetscCall(PetscInfo(A, "MATMPIAIJMODSELL: made the cuSPARSE view (all processes: %zu bytes of device CSR and ghost values, %zu bytes of host column indices and ghost values)\n", sum[0], sum[1]));
    PetscCall(PetscLogEventEnd(MATMODSELL_View, A, 0, 0, 0));
  } else if (s != cv->state || sd != cv->dstate || so != cv->ostate) {
    Mat Wd, Wo;

    PetscCall(MatMPIAIJGetSeqAIJ(cv->view, &Wd, &Wo, NULL));
    Wd->offloadmask = PETSC_OFFLOAD_CPU; /* aijcusparse copies the values (same pattern) at its next device use */
    Wo->offloadmask = PETSC_OFFLOAD_CPU;
    PetscCall(PetscObjectStateIncrease((PetscObject)Wd));
    PetscCall(PetscObjectStateIncrease((PetscObject)Wo));
    PetscCall(PetscObjectStateIncrease((PetscObject)cv->view));
  }
  cv->state  = s;
  cv->dstate = sd;
  cv->ostate = so;
  *V         = cv->view;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The part of MatView() (ASCII info formats): the view's memory summed over the processes (collective) */
PetscErrorCode MatMPIAIJModSELLViewCUSPARSE_Private(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  PetscBool          iascii;
  PetscViewerFormat  format;
  size_t             bytes[2], sum[2];

  PetscFunctionBegin;
  if (!mm->cs.view) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (!iascii || (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL)) PetscFunctionReturn(PETSC_SUCCESS);
  bytes[0] = mm->cs.bytes;
  bytes[1] = mm->cs.host_bytes;
  PetscCallMPI(MPIU_Allreduce(bytes, sum, 2, MPIU_SIZE_T, MPI_SUM, PetscObjectComm((PetscObject)A)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  cuSPARSE view (transposed products, MatProduct): %zu bytes of device CSR and ghost values, %zu bytes of host column indices and ghost values (all processes)\n", sum[0], sum[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --------------------------------------------------------------------------------------------- block diagonal */
/* PCPBJACOBI and PCVPBJACOBI invert the diagonal blocks of the local rows and take their CUDA path only when the matrix
   they are given is an aijcusparse matrix; MPIAIJ has no such operation, so on several processes they applied on the
   host (five host-device copies an iteration instead of two: tests/ksp/ex1 cuda_np3_pbjacobi, H200, 2026-11-27). They
   get the diagonal block's cuSPARSE view (a reference the caller destroys): its diagonal blocks are the process's,
   its block sizes the matrix's. (Not the MPI view: PETSc 3.26.1's MATMPIAIJCUSPARSE makes its diagonal block without
   the matrix's block size, and PCPBJACOBI with block size > 1 then reads past the inverted blocks.) */
PetscErrorCode MatGetBlockDiagonal_MPIAIJModSELL(Mat A, Mat *D)
{
  Mat       Ad;
  PetscBool isms;

  PetscFunctionBegin;
  *D = NULL;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQAIJMODSELL, &isms));
  if (!isms || A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS); /* the PCs' host path on the matrix itself */
  PetscCall(MatGetBlockDiagonal_SeqAIJModSELL(Ad, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ transposes */
/* The device operations (installed unless the matrix is bound to the CPU: MatBindToCPU_MPIAIJModSELL()): through the
   MPI view, which needs CUDA vectors; a vector in host memory is staged through a CUDA work vector of the matrix */
PetscErrorCode MatMultTranspose_MPIAIJModSELL(Mat A, Vec x, Vec y)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  Vec                xs, ys;
  Mat                V;

  PetscFunctionBegin;
  PetscCall(MatModSELLStageVecIn_Private(A, &mm->stage[1], PETSC_TRUE, x, x, &xs));
  PetscCall(MatModSELLStageVecIn_Private(A, &mm->stage[0], PETSC_FALSE, y, NULL, &ys));
  PetscCall(MatMPIAIJModSELLGetCUSPARSE_Private(A, &V));
  PetscCall((*V->ops->multtranspose)(V, xs, ys));
  PetscCall(MatModSELLStageVecOut_Private(y, ys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = y + A^T x through the view as z = y, then z += A^T x in place (MatMultTransposeAdd_SeqAIJModSELL(): MPIAIJ's
   MatMultTransposeAdd would hit aijcusparse's defect with distinct y and z in the diagonal block) */
PetscErrorCode MatMultTransposeAdd_MPIAIJModSELL(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  Vec                xs, zs;
  Mat                V;

  PetscFunctionBegin;
  PetscCall(MatModSELLStageVecIn_Private(A, &mm->stage[1], PETSC_TRUE, x, x, &xs));
  PetscCall(MatModSELLStageVecIn_Private(A, &mm->stage[0], PETSC_FALSE, z, y, &zs));
  PetscCall(MatMPIAIJModSELLGetCUSPARSE_Private(A, &V));
  PetscCall((*V->ops->multtransposeadd)(V, xs, zs, zs));
  PetscCall(MatModSELLStageVecOut_Private(z, zs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------- products */
/* Whether the options ask for this product on the host: MPIAIJ's device backend's options (-matmatmult_backend_cpu,
   -mattransposematmult_backend_cpu, -matptap_backend_cpu for MatMatMult(), MatTransposeMatMult(), MatPtAP(); else
   -mat_product_algorithm_backend_cpu). Read here, not by MPIAIJCUSPARSE on the views: MPIAIJ's host PtAP on the views
   ended in a segmentation fault on 3 processes (H100, 2026-11-25), while MPIAIJ's host products on MATMPIAIJMODSELL
   itself are the ones every build without CUDA runs */
static PetscErrorCode MSProductWantsHost(Mat C, PetscBool *host)
{
  Mat_Product *p    = C->product;
  const char  *opt = NULL, *title = NULL;

  PetscFunctionBegin;
  *host = PETSC_FALSE;
  switch (p->type) {
  case MATPRODUCT_AB:
    opt   = p->api_user ? "-matmatmult_backend_cpu" : "-mat_product_algorithm_backend_cpu";
    title = p->api_user ? "MatMatMult" : "MatProduct_AB";
    break;
  case MATPRODUCT_AtB:
    opt   = p->api_user ? "-mattransposematmult_backend_cpu" : "-mat_product_algorithm_backend_cpu";
    title = p->api_user ? "MatTransposeMatMult" : "MatProduct_AtB";
    break;
  case MATPRODUCT_PtAP:
    opt   = p->api_user ? "-matptap_backend_cpu" : "-mat_product_algorithm_backend_cpu";
    title = p->api_user ? "MatPtAP" : "MatProduct_PtAP";
    break;
  default:
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscOptionsBegin(PetscObjectComm((PetscObject)C), ((PetscObject)C)->prefix, title, "Mat");
  PetscCall(PetscOptionsBool(opt, "Use CPU code", title, *host, host, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatProductSetFromOptions() when an operand is MATMPIAIJMODSELL (its operation, and "MatProductSetFromOptions_anytype_C"
   for mixed types): on the GPU through the views when the product is one that MPIAIJ's device backend runs there (AB,
   AtB, PtAP), every operand is MATMPIAIJMODSELL or MATMPIAIJCUSPARSE, none is bound to the CPU, the product is not
   structure-only (PCGAMG's graph, on the host as for aijcusparse) and the options do not ask for the host
   (MSProductWantsHost()); else MPIAIJ's products when every operand is of the MPIAIJ family (what the type did
   before, and does without CUDA; the result then has the first operand's type), else nothing (PETSc's own fallbacks,
   e.g. a dense B). The other products (ABt, RARt, ABC) would be MPIAIJ's host code on the views as well, the path that
   crashed for PtAP, so they run on the matrix itself */
PetscErrorCode MatProductSetFromOptions_MPIAIJModSELL(Mat C)
{
  Mat_Product *p      = C->product;
  Mat          ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL}, ms = NULL;
  PetscBool    dev = (PetscBool)(!C->structure_only && (p->type == MATPRODUCT_AB || p->type == MATPRODUCT_AtB || p->type == MATPRODUCT_PtAP)), allaij = PETSC_TRUE;

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    PetscBool isms, iscs, isaij;

    if (!ops[i]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)ops[i], MATMPIAIJMODSELL, &isms));
    PetscCall(PetscObjectTypeCompare((PetscObject)ops[i], MATMPIAIJCUSPARSE, &iscs));
    PetscCall(PetscObjectTypeCompare((PetscObject)ops[i], MATMPIAIJ, &isaij));
    if (isms && !ms) ms = ops[i];
    if ((!isms && !iscs) || ops[i]->boundtocpu) dev = PETSC_FALSE;
    if (!isms && !iscs && !isaij) allaij = PETSC_FALSE;
  }
  PetscCheck(ms, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatProductSetFromOptions_MPIAIJModSELL() without a MATMPIAIJMODSELL operand");
  if (dev) {
    PetscBool host;

    PetscCall(MSProductWantsHost(C, &host));
    dev = (PetscBool)!host;
  }
  if (dev) PetscCall(MatProductSetFromOptions_ModSELL_OnViews(C));
  else if (allaij) PetscCall((*((Mat_MPIAIJModSELL *)ms->spptr)->parent.productsetfromoptions)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------ MatAXPY() on a product's result */
static PetscErrorCode (*MSMPICUSPARSEAXPY)(Mat, PetscScalar, Mat, MatStructure) = NULL; /* MPIAIJCUSPARSE's (MPIAIJ's) */

/* A product's MATMPIAIJCUSPARSE result C gets the MatAXPY operation of X, its first MATMPIAIJMODSELL operand: MatAXPY()
   calls the destination's operation only for two matrices of one type or one operation, else PETSc's generic
   MatAXPY_Basic() (row by row on the host, even for the same pattern) */
PetscErrorCode MatMPIAIJModSELLResultTakeAXPY_Private(Mat C, Mat X)
{
  PetscFunctionBegin;
  if (!C->ops->axpy || C->ops->axpy == X->ops->axpy) PetscFunctionReturn(PETSC_SUCCESS);
  if (!MSMPICUSPARSEAXPY) MSMPICUSPARSEAXPY = C->ops->axpy;
  PetscCheck(C->ops->axpy == MSMPICUSPARSEAXPY, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIAIJMODSELL product: unexpected MatAXPY operation on its MATMPIAIJCUSPARSE result");
  C->ops->axpy = X->ops->axpy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y: such a result (MATMPIAIJCUSPARSE carrying MATMPIAIJMODSELL's operation): MPIAIJCUSPARSE's operation with a
   MATMPIAIJMODSELL X replaced by its view (same pattern: the blocks added by aijcusparse on the GPU) */
PetscErrorCode MatAXPY_MPIAIJModSELL_OnCUSPARSE(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscErrorCode (*mine)(Mat, PetscScalar, Mat, MatStructure) = Y->ops->axpy;
  PetscBool      iscs, isms;
  Mat            Xv = X;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATMPIAIJCUSPARSE, &iscs));
  PetscCheck(iscs && MSMPICUSPARSEAXPY, PetscObjectComm((PetscObject)Y), PETSC_ERR_PLIB, "MATMPIAIJMODSELL's MatAXPY on a matrix of type %s that is not the result of a product", ((PetscObject)Y)->type_name);
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATMPIAIJMODSELL, &isms));
  if (isms && !X->boundtocpu && !Y->boundtocpu && !X->structure_only) PetscCall(MatMPIAIJModSELLGetCUSPARSE_Private(X, &Xv));
  Y->ops->axpy = MSMPICUSPARSEAXPY;
  ierr         = (*MSMPICUSPARSEAXPY)(Y, a, Xv, str);
  if (Y->ops->axpy == MSMPICUSPARSEAXPY) Y->ops->axpy = mine; /* also after MatHeaderMerge() (a new pattern) */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
