/*
   The layer shared by the petsc-modsell preconditioners: see include/petscmodsell/private/pcmsimpl.h.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/localityimpl.h>
#include <petsc/private/vecimpl.h>
#include <ctype.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* ---------------------------------------------------------------------------------------------------------- */
/* the operator                                                                                                 */

/* "PCRUIZ" for a PC of type "ruiz" */
static PetscErrorCode PCMSName(PC pc, char name[32])
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, 32, "PC%s", ((PetscObject)pc)->type_name ? ((PetscObject)pc)->type_name : ""));
  for (char *c = name; *c; c++) *c = (char)toupper((unsigned char)*c);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCMSOperatorCheck(PC pc, PCMSOperator *op, Mat A, PetscBool *ismpi)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)pc);
  PetscBool isseq, same;
  PetscInt  M, N, m, n, mmax;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, ismpi));
  PetscCheck(isseq || *ismpi, comm, PETSC_ERR_SUP, "%s needs an AIJ-family matrix (aij, aijcusparse, modsell, ...) to build the preconditioner from, not a matrix of type %s: use -mat_type aij or modsell, or MatConvert()", op->name, ((PetscObject)A)->type_name);
  PetscCheck(A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "%s: the matrix must be assembled (MatAssemblyBegin/End) before the preconditioner is set up", op->name);
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetLocalSize(A, &m, &n));
  same = (PetscBool)(m == n); /* collective, so that no process goes on alone */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, comm));
  PetscCheck(M == N && same, comm, PETSC_ERR_ARG_SIZ, "%s needs a square operator with equal row and column layouts: it is %" PetscInt_FMT " x %" PetscInt_FMT " and its local rows and columns differ on some process", op->name, M, N);
  mmax = m; /* the kernels index a process's rows with 32-bit integers */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &mmax, 1, MPIU_INT, MPI_MAX, comm));
  PetscCheck(mmax < PETSC_INT32_MAX, comm, PETSC_ERR_SUP, "%s: a process holds %" PetscInt_FMT " rows of the operator; at most %d per process fit the 32-bit row indices of its kernels: use more MPI processes", op->name, mmax, PETSC_INT32_MAX - 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether an image has the ordering a request asks for (an automatic ordering qualifies by its choice) */
static PetscBool PCMSImageOrderingQualifies(const MSImageLayout *mi, const PCMSImageRequest *req)
{
  return (PetscBool)(req->ordering == PCMS_ORDERING_ANY || mi->ordering == req->ordering || (mi->ordering == MATMODSELL_ORDERING_AUTO && req->ordering != MATMODSELL_ORDERING_AUTO && mi->applied == req->ordering));
}

static PetscBool PCMSImageQualifies(const MSImageLayout *mi, const PCMSImageRequest *req)
{
  if (req->encoding == PCMS_ENCODING_MODSELL && mi->m && !(mi->diag_apart && mi->local_cols)) return PETSC_FALSE;
  if (req->encoding == PCMS_ENCODING_PLAIN && (mi->diag_apart || mi->local_cols)) return PETSC_FALSE;
  if (req->sh && mi->sh != req->sh) return PETSC_FALSE;
  return PCMSImageOrderingQualifies(mi, req);
}

/* The default slice height of a preconditioner that works on the slices of an image as blocks (PCBJSMOOTH: larger
   blocks take fewer outer iterations at the same cost per iteration: H100, 2026-11-24, commit
   d1494d9, not under docs/results) */
#define MS_SLICE_HEIGHT_SLICE_PC 512

/* What a preconditioner that works on the slices as blocks asks of an image where the heights are defaults: slices of
   MS_SLICE_HEIGHT_SLICE_PC rows, of MS_SLICE_HEIGHT_PARTITION under the partition ordering (its blocks: the same blocks
   whatever the operator's type), bricks for a DMDA operator under MATMODSELL_ORDERING_AUTO and no window rule (the
   slices are blocks, not only windows of x) */
static PetscErrorCode PCMSSliceDefaults(MSImageRequest *d)
{
  PetscFunctionBegin;
  PetscCall(MSImageRequestSetDefaults(d));
  d->sh              = MS_SLICE_HEIGHT_SLICE_PC;
  d->partition_block = MS_SLICE_HEIGHT_PARTITION;
  d->partition_sh    = MS_SLICE_HEIGHT_PARTITION;
  d->auto_bricks     = PETSC_TRUE;
  d->auto_window     = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image of block B: the MATMODSELL image when it qualifies, else the layer's own one */
static PetscErrorCode PCMSGetImage(PCMSOperator *op, Mat B, PetscInt which, MSImage *img)
{
  const PCMSImageRequest  *req   = &op->req[which];
  const MSImageOps        *iops  = PCMSKernels(op, MSImageOps);
  const PetscBool          plain = (PetscBool)(req->encoding == PCMS_ENCODING_PLAIN);
  const MatModSELLOrdering ord   = req->ordering != PCMS_ORDERING_ANY ? req->ordering : (which == 0 && req->slices ? MATMODSELL_ORDERING_AUTO : MATMODSELL_ORDERING_NATURAL);
  const MSImageLayout     *ml    = NULL;
  MSImage                  mi;
  MSImageRequest           ir;
  PetscInt                 sh;
  PetscBool                autosh;

  PetscFunctionBegin;
  if (req->encoding == PCMS_ENCODING_NONE) {
    PetscCall(MSImageDestroy(&op->own[which]));
    *img = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (req->slices) PetscCall(PCMSSliceDefaults(&ir));
  else PetscCall(MSImageRequestSetDefaults(&ir));
  if (which == 0) PetscCall(MatSeqAIJModSELLSetImageDefaults(B, req->slices ? &ir : NULL)); /* before its image is built */
  PetscCall(MatSeqAIJModSELLGetImage(B, iops, &mi));
  if (mi) PetscCall(MSImageGetLayout(mi, &ml));
  if (mi && PCMSImageQualifies(ml, req)) {
    PetscCall(MSImageDestroy(&op->own[which]));
    *img = mi;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (which == 0) op->own_image = PETSC_TRUE;
  /* a slice-based preconditioner's default height is automatic as a MATMODSELL operator's is: a partition ordering
     takes MS_SLICE_HEIGHT_PARTITION, so that the blocks are the same whatever the operator's type; the MATMODSELL
     image's height is kept unless the request asks for another ordering than the image's */
  if (mi && !PCMSImageOrderingQualifies(ml, req)) mi = NULL;
  autosh = (PetscBool)(!req->sh && !mi && req->slices);
  sh     = req->sh ? req->sh : (mi ? ml->sh : (req->slices ? MS_SLICE_HEIGHT_SLICE_PC : 0));
  ir.kernel   = plain ? MATMODSELL_KERNEL_SELL : MATMODSELL_KERNEL_MODSELL;
  ir.ordering = ord;
  if (sh) ir.sh = sh;
  if (!autosh) ir.partition_block = ir.partition_sh = 0; /* a height given: the partition's blocks and slices too */
  if (ord == MATMODSELL_ORDERING_AUTO || ord == MATMODSELL_ORDERING_BRICKS) {
    DM       dm;
    PCMSGrid grid;

    PetscCall(MatGetDM(op->A, &dm));
    PetscCall(PCMSGetGrid(dm, &grid));
    PetscCall(PetscArraycpy(ir.box, grid.box, 4));
  }
  if (!op->own[which]) PetscCall(MSImageCreate(&ir, &op->own[which]));
  else PetscCall(MSImageSetRequest(op->own[which], &ir));
  PetscCall(MSImageSetUp(op->own[which], B, iops));
  *img = op->own[which];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCMSOperatorFreeStructure(PCMSOperator *op)
{
  PetscFunctionBegin;
  PetscCall(MSImageDestroy(&op->own[0]));
  PetscCall(MSImageDestroy(&op->own[1]));
  PetscCall(VecScatterDestroy(&op->scat));
  PetscCall(VecDestroy(&op->ghost));
  PetscCall(VecDestroy(&op->stage.in));
  PetscCall(VecDestroy(&op->stage.out));
  op->img[0] = op->img[1] = NULL;
  op->A = op->Ad = op->Ao = NULL;
  op->id = op->aoid = 0;
  op->nzstate       = 0;
  op->nghost        = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorReset(PCMSOperator *op)
{
  PetscFunctionBegin;
  PetscCall(PCMSOperatorFreeStructure(op));
  op->rebuilt = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorSetUp(PC pc, PCMSOperator *op, const PCMSImageRequest *diagreq, const PCMSImageRequest *offreq)
{
  Mat             A = pc->pmat, Ad, Ao = NULL;
  const PetscInt *garray = NULL;
  PetscBool       ismpi, device, rebuild;
  PetscMemType    mt;
  PetscObjectId   id, aoid = 0;
  PetscInt        m;

  PetscFunctionBegin;
  PetscCall(PCMSName(pc, op->name));
  PetscCall(PCMSOperatorCheck(pc, op, A, &ismpi));
  PetscCall(MatGetCurrentMemType(A, &mt));
  device = (PetscBool)PetscMemTypeDevice(mt);
  if (ismpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    PetscCall(PetscObjectGetId((PetscObject)Ao, &aoid));
  } else Ad = A;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  rebuild = (PetscBool)(!op->id || id != op->id || A->nonzerostate != op->nzstate || aoid != op->aoid || device != op->device || ismpi != op->mpi);
  if (rebuild) PetscCall(PCMSOperatorFreeStructure(op));
  op->rebuilt   = rebuild;
  op->device    = device;
  op->mpi       = ismpi;
  op->own_image = PETSC_FALSE;
  op->A         = A;
  op->Ad        = Ad;
  op->Ao        = Ao;
  op->req[0]    = *diagreq;
  op->req[1]    = *offreq;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetOwnershipRange(A, &op->rstart, NULL));
  op->m = m;
  PetscCall(PCMSGetImage(op, Ad, 0, &op->img[0]));
  if (ismpi) PetscCall(PCMSGetImage(op, Ao, 1, &op->img[1]));
  if (op->img[0]) {
    const MSImageLayout *l;

    PetscCall(MSImageGetLayout(op->img[0], &l));
    PetscCheck(l->m == m && l->n == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the image of the diagonal block has the wrong size", op->name);
    PetscCheck(diagreq->encoding != PCMS_ENCODING_MODSELL || !m || (l->diag_apart && l->local_cols), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the image of the diagonal block has the wrong encoding", op->name);
  }
  if (rebuild && ismpi && offreq->encoding != PCMS_ENCODING_NONE) { /* the ghost exchange of a PC that reads Ao */
    IS  from;
    Vec tmpl;

    PetscCall(MatGetLocalSize(Ao, NULL, &op->nghost));
    PetscCall(PCMSCreateVec(op, PETSC_COMM_SELF, op->nghost, &op->ghost));
    PetscCall(PCMSCreateVec(op, PetscObjectComm((PetscObject)pc), m, &tmpl));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, op->nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(VecScatterCreate(tmpl, from, op->ghost, NULL, &op->scat));
    PetscCall(ISDestroy(&from));
    PetscCall(VecDestroy(&tmpl));
  }
  op->id      = id;
  op->nzstate = A->nonzerostate;
  op->aoid    = aoid;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorDescribe(PCMSOperator *op, const char **where, const char **image)
{
  PetscFunctionBegin;
  if (where) *where = op->device ? "GPU" : "host";
  if (image) *image = !op->img[0] ? "the operator's CSR" : op->own_image ? "the PC's own mod-SELL image of the operator" : "the MATMODSELL image of the operator";
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorGetView(PCMSOperator *op, PetscInt which, MSImageView *v)
{
  PetscFunctionBegin;
  PetscCheck(op->img[which], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "%s: the operator's image %" PetscInt_FMT " is not set up", op->name, which);
  PetscCall(PCMSKernels(op, MSImageOps)->getview(op->img[which], (PetscBool)(which == 0), v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSImageMult(PCMSOperator *op, MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PCMSKernels(op, MSImageOps)->mult(img, x, yin, 1.0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSImageSetUp(PCMSOperator *op, Mat A, MSImage *img)
{
  PetscFunctionBegin;
  if (!*img) PetscCall(MSImageCreate(NULL, img));
  PetscCall(MSImageSetUp(*img, A, PCMSKernels(op, MSImageOps)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorGetPermBuckets(PCMSOperator *op, const MSImageView *v, MSPermBuckets *pb, PetscBool *has)
{
  PetscFunctionBegin;
  PetscCall(PCMSKernels(op, MSImageOps)->permbuckets(op->img[0], v, pb, has));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorLocalityPerm(PCMSOperator *op, const PCMSCSR *csr, PetscInt bs, int *perm)
{
  void *stream;

  PetscFunctionBegin;
  PetscCall(PCMSGetStream(op, &stream));
  PetscCall(MSLocalityPerm(PCMSKernels(op, MSLocalityKernels), op->m, csr->ai, csr->aj, csr->aa, bs, perm, NULL, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorAnalyse(PC pc, PCMSOperator *op, const PCMSCSR *csr, PetscBool symmetry, PCMSAnalysis *an)
{
  const MSCheckKernels *k = PCMSKernels(op, MSCheckKernels);
  MPI_Comm              comm = PetscObjectComm((PetscObject)pc);
  PCMSBuffer            buf  = {0};
  MSCSRCheck            ck;
  PetscInt64            first[6], cnt[3];
  PetscReal             maxdd;
  void                 *stream;
  int                   err;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(an, sizeof(*an)));
  PetscCheck(csr->m == op->m && (!csr->m || (csr->aj && csr->aa)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the check needs Ad's CSR with columns and values", op->name);
  PetscCall(PCMSBufferEnsure(op, &buf, sizeof(MSCSRCheck), "the check's result"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = k->check(csr->m, csr->ai, csr->aj, csr->aa, (int)symmetry, (MSCSRCheck *)buf.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, k->backend, "check", 0));
  PetscCall(PCMSReadBack(op, &ck, buf.ptr, sizeof(ck)));
  PetscCall(PCMSBufferDestroy(&buf));
  {
    const unsigned long long f[6] = {ck.nonfinite, ck.nodiag, ck.negdiag, ck.posoff, ck.notdd, ck.asym};

    for (PetscInt i = 0; i < 6; i++) first[i] = f[i] == MS_CHECK_NONE ? -1 : (PetscInt64)f[i];
  }
  PetscCall(PCMSFirstBad(pc, op, 1, 6, first, first));
  cnt[0] = (PetscInt64)ck.nposoff;
  cnt[1] = (PetscInt64)ck.nnotdd;
  cnt[2] = (PetscInt64)ck.nasym;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, 3, MPIU_INT64, MPI_SUM, comm));
  {
    double d;

    PetscCall(PetscMemcpy(&d, &ck.maxdd, sizeof(d)));
    maxdd = (PetscReal)d;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &maxdd, 1, MPIU_REAL, MPIU_MAX, comm));
  an->nonfinite        = first[0];
  an->nodiag           = first[1];
  an->negdiag          = first[2];
  an->posoff           = first[3];
  an->notdd            = first[4];
  an->asym             = first[5];
  an->nposoff          = cnt[0];
  an->nnotdd           = cnt[1];
  an->nasym            = cnt[2];
  an->maxdd            = maxdd;
  an->checked_symmetry = symmetry;
  an->symmetric        = (PetscBool)(symmetry && an->asym < 0);
  an->mmatrix          = (PetscBool)(an->nodiag < 0 && an->negdiag < 0 && an->posoff < 0 && an->notdd < 0 && an->nonfinite < 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSGetGrid(DM dm, PCMSGrid *grid)
{
  PetscBool isda;
  PetscInt  nx, ny, nz;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(grid, sizeof(*grid)));
  if (!dm) {
    grid->why = "the operator has no DM";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) {
    grid->why = "the operator's DM is not a DMDA";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMDAGetInfo(dm, &grid->dim, NULL, NULL, NULL, NULL, NULL, NULL, &grid->box[3], NULL, NULL, NULL, NULL, &grid->stencil));
  PetscCall(DMDAGetCorners(dm, NULL, NULL, NULL, &nx, &ny, &nz));
  grid->box[0] = nx;
  grid->box[1] = grid->dim > 1 ? ny : 1;
  grid->box[2] = grid->dim > 2 ? nz : 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* vectors and the ghost exchange                                                                               */

PetscErrorCode PCMSCreateVec(PCMSOperator *op, MPI_Comm comm, PetscInt n, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VecSetType(*v, op->device ? VECCUDA : VECSTANDARD));
#else
  (void)op;
  PetscCall(VecSetType(*v, VECSTANDARD));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSGhostBegin(PCMSOperator *op, Vec x, Vec ghost)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(op->scat, x, ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSGhostEnd(PCMSOperator *op, Vec x, Vec ghost)
{
  PetscFunctionBegin;
  PetscCall(VecScatterEnd(op->scat, x, ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSGhostReverseBegin(PCMSOperator *op, Vec ghost, Vec x, InsertMode im)
{
  PetscFunctionBegin;
  PetscCheck(im == ADD_VALUES || im == MAX_VALUES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the reverse ghost exchange adds or takes the maximum", op->name);
  PetscCall(VecScatterBegin(op->scat, ghost, x, im, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSGhostReverseEnd(PCMSOperator *op, Vec ghost, Vec x, InsertMode im)
{
  PetscFunctionBegin;
  PetscCall(VecScatterEnd(op->scat, ghost, x, im, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecIsDevice(Vec v, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool bound;

    /* PETSc's device vector types provide getarrayandmemtype (a host vector, or one bound to the CPU, does not) */
    PetscCall(VecBoundToCPU(v, &bound));
    *dev = (PetscBool)(!bound && v->ops->getarrayandmemtype != NULL);
  }
#else
  (void)v;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSStageIn(PCMSOperator *op, PetscInt which, Vec v, PetscBool copy, Vec *use)
{
  PetscBool dev;
  Vec      *sv = which ? &op->stage.out : &op->stage.in;

  PetscFunctionBegin;
  *use = v;
  if (!op->device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMSVecIsDevice(v, &dev));
  if (dev) PetscFunctionReturn(PETSC_SUCCESS);
  if (*sv) { /* keep it while the layout matches */
    PetscBool same;

    PetscCall(PetscLayoutCompare((*sv)->map, v->map, &same));
    if (!same) PetscCall(VecDestroy(sv));
  }
  if (!*sv) {
    PetscCall(VecCreate(PetscObjectComm((PetscObject)v), sv));
    PetscCall(VecSetLayout(*sv, v->map));
    PetscCall(VecSetType(*sv, VECCUDA));
  }
  if (copy) PetscCall(VecCopy(v, *sv));
  *use = *sv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSStageOut(Vec v, Vec use)
{
  PetscFunctionBegin;
  if (use != v) PetscCall(VecCopy(use, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecGetArray(PCMSOperator *op, Vec v, PetscMemoryAccessMode mode, PetscScalar **a)
{
  PetscMemType mt = PETSC_MEMTYPE_HOST;

  PetscFunctionBegin;
  *a = NULL;
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  if (op->device) {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)a, &mt));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecGetArrayWriteAndMemType(v, a, &mt));
    else PetscCall(VecGetArrayAndMemType(v, a, &mt));
    if (!PetscMemTypeDevice(mt)) {
      PetscCall(PCMSVecRestoreArray(op, v, mode, a));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a vector of type %s in host memory reached a GPU kernel (it should have been copied to the device first)", op->name, ((PetscObject)v)->type_name);
    }
  } else {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecGetArrayRead(v, (const PetscScalar **)a));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecGetArrayWrite(v, a));
    else PetscCall(VecGetArray(v, a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecRestoreArray(PCMSOperator *op, Vec v, PetscMemoryAccessMode mode, PetscScalar **a)
{
  PetscFunctionBegin;
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  if (op->device) {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecRestoreArrayReadAndMemType(v, (const PetscScalar **)a));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecRestoreArrayWriteAndMemType(v, a));
    else PetscCall(VecRestoreArrayAndMemType(v, a));
  } else {
    if (mode == PETSC_MEMORY_ACCESS_READ) PetscCall(VecRestoreArrayRead(v, (const PetscScalar **)a));
    else if (mode == PETSC_MEMORY_ACCESS_WRITE) PetscCall(VecRestoreArrayWrite(v, a));
    else PetscCall(VecRestoreArray(v, a));
  }
  *a = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecGetArrayRead(PCMSOperator *op, Vec v, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(PCMSVecGetArray(op, v, PETSC_MEMORY_ACCESS_READ, (PetscScalar **)a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSVecRestoreArrayRead(PCMSOperator *op, Vec v, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(PCMSVecRestoreArray(op, v, PETSC_MEMORY_ACCESS_READ, (PetscScalar **)a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* backend memory and kernel launches                                                                          */

PetscErrorCode PCMSBufferDestroy(PCMSBuffer *buf)
{
  PetscFunctionBegin;
  if (buf->device) {
#if defined(PETSC_HAVE_CUDA)
    if (buf->ptr) PetscCallCUDA(cudaFree(buf->ptr));
#endif
  } else PetscCall(PetscFree(buf->ptr));
  buf->ptr    = NULL;
  buf->bytes  = 0;
  buf->device = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSBufferEnsure(PCMSOperator *op, PCMSBuffer *buf, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  if (buf->ptr && buf->bytes >= bytes && buf->device == op->device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMSBufferDestroy(buf));
  bytes = PetscMax(bytes, (size_t)1);
  if (op->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(MSDeviceMalloc(&buf->ptr, bytes, what));
#endif
  } else PetscCall(PetscCalloc(bytes, &buf->ptr));
  buf->bytes  = bytes;
  buf->device = op->device;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSGetStream(PCMSOperator *op, void **stream)
{
  PetscFunctionBegin;
  *stream = NULL;
#if defined(PETSC_HAVE_CUDA)
  if (op->device) {
    cudaStream_t s;

    PetscCall(PetscGetCurrentCUDAStream(&s));
    *stream = (void *)s;
  }
#else
  (void)op;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSSynchronize(PCMSOperator *op)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (op->device) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
#else
  (void)op;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSBufferUpload(PCMSOperator *op, PCMSBuffer *buf, const void *src, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PCMSBufferEnsure(op, buf, bytes, what));
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  if (op->device) {
#if defined(PETSC_HAVE_CUDA)
    void *stream;

    PetscCall(PCMSGetStream(op, &stream));
    PetscCall(MSCopyHostToDevice(buf->ptr, src, bytes, stream)); /* host-synchronous */
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
#endif
  } else PetscCall(PetscMemcpy(buf->ptr, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSUploadInt(PCMSOperator *op, PCMSBuffer *buf, const PetscInt *src, PetscInt64 n, const char *what)
{
  PetscFunctionBegin;
  if (sizeof(PetscInt) == sizeof(int)) PetscCall(PCMSBufferUpload(op, buf, src, sizeof(int) * (size_t)n, what));
  else {
    int *h;

    PetscCall(PetscMalloc1(PetscMax(n, 1), &h));
    for (PetscInt64 i = 0; i < n; i++) h[i] = (int)src[i];
    PetscCall(PCMSBufferUpload(op, buf, h, sizeof(int) * (size_t)n, what)); /* host-synchronous: h may go */
    PetscCall(PetscFree(h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSIntArray(PCMSOperator *op, const PetscInt *src, PetscInt64 n, PCMSBuffer *tmp, const char *what, const int **dst)
{
  PetscFunctionBegin;
  if (!op->device && sizeof(PetscInt) == sizeof(int)) {
    *dst = (const int *)src;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSUploadInt(op, tmp, src, n, what));
  *dst = (const int *)tmp->ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSBufferGetHostArray(PCMSOperator *op, PCMSBuffer *buf, size_t bytes, const char *what, void **scratch, void **host)
{
  PetscFunctionBegin;
  PetscCall(PCMSBufferEnsure(op, buf, bytes, what));
  if (!op->device) {
    *host = buf->ptr;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!*scratch) PetscCall(PetscMalloc(PetscMax(bytes, (size_t)1), scratch));
  *host = *scratch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSBufferCommit(PCMSOperator *op, PCMSBuffer *buf, const void *host, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  if (host != buf->ptr) PetscCall(PCMSBufferUpload(op, buf, host, bytes, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorGetCSR(PCMSOperator *op, PetscBool cols, PetscBool vals, PCMSCSR *csr)
{
  PetscInt  n;
  PetscBool done;
  char      what[2][64];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(csr, sizeof(*csr)));
  PetscCall(MatGetRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &csr->hi, &csr->hj, &done));
  PetscCheck(done && n == op->m, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: needs the CSR structure of the local diagonal block (type %s)", op->name, ((PetscObject)op->Ad)->type_name);
  PetscCheck((PetscInt64)csr->hi[n] < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: the local diagonal block has %" PetscInt64_FMT " entries; the kernels take fewer than 2^31 per process: use more processes", op->name, (PetscInt64)csr->hi[n]);
  csr->m   = (int)n;
  csr->nnz = (int)csr->hi[n];
  if (op->device) { /* aijcusparse's own device arrays, a MATMODSELL's device image expanded there, else copies */
    PetscCall(PCMSOperatorDeviceCSR(op, csr->tmp, &csr->ai, cols ? &csr->aj : NULL, vals ? &csr->aa : NULL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscSNPrintf(what[0], sizeof(what[0]), "%s's copy of the row starts", op->name));
  PetscCall(PetscSNPrintf(what[1], sizeof(what[1]), "%s's copy of the columns", op->name));
  PetscCall(PCMSIntArray(op, csr->hi, n + 1, &csr->tmp[0], what[0], &csr->ai));
  if (cols) PetscCall(PCMSIntArray(op, csr->hj, csr->nnz, &csr->tmp[1], what[1], &csr->aj));
  if (vals) {
    PetscCall(MatSeqAIJGetArrayRead(op->Ad, &csr->ha));
    csr->aa = (const double *)csr->ha;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorRestoreCSR(PCMSOperator *op, PCMSCSR *csr)
{
  PetscInt  n = op->m;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(PCMSSynchronize(op)); /* the kernels and copies that read the arrays have finished */
  for (PetscInt k = 0; k < 3; k++) PetscCall(PCMSBufferDestroy(&csr->tmp[k]));
  if (csr->ha) PetscCall(MatSeqAIJRestoreArrayRead(op->Ad, &csr->ha));
  PetscCall(MatRestoreRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &csr->hi, &csr->hj, &done));
  PetscCall(PetscMemzero(csr, sizeof(*csr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSOperatorDeviceCSR(PCMSOperator *op, PCMSBuffer tmp[3], const int **ai, const int **aj, const double **aa)
{
  const PetscInt *hi, *hj;
  PetscInt        n, nnz;
  PetscBool       done;
  char            what[3][64];

  PetscFunctionBegin;
  PetscCheck(op->device, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the device CSR of a host operator", op->name);
  PetscCall(MatGetRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &hi, &hj, &done));
  PetscCheck(done && n == op->m, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: needs the CSR structure of the local diagonal block (type %s)", op->name, ((PetscObject)op->Ad)->type_name);
  nnz = hi[n];
  PetscCheck((PetscInt64)nnz < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: the local diagonal block has %" PetscInt64_FMT " entries; the kernels take fewer than 2^31 per process: use more processes", op->name, (PetscInt64)nnz);
#if defined(PETSC_HAVE_CUDA)
  {
    const PetscInt *di = NULL, *dj = NULL;
    PetscScalar    *da = NULL;
    PetscMemType    mt     = PETSC_MEMTYPE_HOST;
    PetscInt        nempty = 0;
    PetscBool       cusparse;

    PetscCall(PetscObjectTypeCompare((PetscObject)op->Ad, MATSEQAIJCUSPARSE, &cusparse));
    if (cusparse && sizeof(PetscInt) == sizeof(int)) {
      for (PetscInt o = 0; o < n; o++) nempty += hi[o + 1] == hi[o];
      if (n && !nempty) PetscCall(MatSeqAIJGetCSRAndMemType(op->Ad, &di, &dj, aa ? &da : NULL, &mt));
    }
    if (PetscMemTypeDevice(mt)) {
      PetscCall(PetscInfo(op->Ad, "%s: the diagonal block's CSR from its device arrays (aijcusparse)\n", op->name));
      *ai = (const int *)di;
      if (aj) *aj = (const int *)dj;
      if (aa) *aa = (const double *)da;
      PetscCall(MatRestoreRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &hi, &hj, &done));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(PetscSNPrintf(what[0], sizeof(what[0]), "%s's copy of the row starts", op->name));
  PetscCall(PetscSNPrintf(what[1], sizeof(what[1]), "%s's copy of the columns", op->name));
  PetscCall(PetscSNPrintf(what[2], sizeof(what[2]), "%s's copy of the values", op->name));
  PetscCall(PCMSUploadInt(op, &tmp[0], hi, n + 1, what[0]));
  *ai = (const int *)tmp[0].ptr;
  if (aj) PetscCall(PCMSBufferEnsure(op, &tmp[1], sizeof(int) * (size_t)PetscMax(nnz, 1), what[1]));
  if (aa) PetscCall(PCMSBufferEnsure(op, &tmp[2], sizeof(double) * (size_t)PetscMax(nnz, 1), what[2]));
  /* a MATSEQAIJMODSELL whose device image holds the pattern: columns and values rebuilt there */
  PetscCall(MatSeqAIJModSELLGetDeviceCSR(op->Ad, *ai, aj ? (int *)tmp[1].ptr : NULL, aa ? (double *)tmp[2].ptr : NULL, &done));
  PetscCall(PetscInfo(op->Ad, "%s: the diagonal block's CSR %s\n", op->name, done ? "rebuilt from its device image (MATMODSELL): only the row starts copied" : "copied from the host"));
  if (!done) {
    if (aj) PetscCall(PCMSUploadInt(op, &tmp[1], hj, nnz, what[1]));
    if (aa) {
      const PetscScalar *v;

      PetscCall(MatSeqAIJGetArrayRead(op->Ad, &v));
      PetscCall(PCMSBufferUpload(op, &tmp[2], v, sizeof(double) * (size_t)nnz, what[2]));
      PetscCall(MatSeqAIJRestoreArrayRead(op->Ad, &v));
    }
  }
  if (aj) *aj = (const int *)tmp[1].ptr;
  if (aa) *aa = (const double *)tmp[2].ptr;
  PetscCall(MatRestoreRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &hi, &hj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSReadBack(PCMSOperator *op, void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  if (op->device) {
#if defined(PETSC_HAVE_CUDA)
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
#endif
  } else PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSKernelBegin(PCMSOperator *op, void **stream)
{
  PetscFunctionBegin;
  PetscCall(PCMSGetStream(op, stream));
  if (op->device) PetscCall(PetscLogGpuTimeBegin());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSComposeMethods(PC pc, PetscInt n, const PCMSMethod methods[], PetscBool set)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscObjectComposeFunction((PetscObject)pc, methods[i].name, set ? methods[i].fn : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSKernelEnd(PCMSOperator *op, int err, const char *backend, const char *kernel, PetscLogDouble flops)
{
  PetscFunctionBegin;
  if (op->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "%s: the %s kernel %s failed: %s (%s)", op->name, backend, kernel, cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
#endif
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(flops));
  } else {
    PetscCheck(err != MS_KERNEL_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "%s: the %s kernel %s could not allocate its work arrays", op->name, backend, kernel);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the %s kernel %s failed with code %d (an argument out of range)", op->name, backend, kernel, err);
    PetscCall(PetscLogFlops(flops));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* errors                                                                                                       */

PetscErrorCode PCMSFirstBad(PC pc, PCMSOperator *op, PetscInt ncodes, PetscInt n, const PetscInt64 local[], PetscInt64 global[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) global[i] = local[i] < 0 ? PETSC_INT64_MAX : (local[i] / ncodes + op->rstart) * ncodes + local[i] % ncodes;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, global, (PetscMPIInt)n, MPIU_INT64, MPI_MIN, PetscObjectComm((PetscObject)pc)));
  for (PetscInt i = 0; i < n; i++)
    if (global[i] == PETSC_INT64_MAX) global[i] = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCMSErrorDiagonal(PC pc, PetscInt row, const char *need, const char *todo)
{
  Mat                A = pc->pmat;
  MPI_Comm           comm = PetscObjectComm((PetscObject)pc);
  PetscInt           rstart, rend, ncols;
  const PetscInt    *cols;
  const PetscScalar *vals;
  PetscReal          loc[2] = {0.0, 0.0}, glob[2];
  char               name[32];

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  if (row >= rstart && row < rend) { /* the owner looks the entry up on the host */
    PetscCall(MatGetRow(A, row, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++)
      if (cols[k] == row) {
        loc[0] = PetscRealPart(vals[k]);
        loc[1] = 1.0;
      }
    PetscCall(MatRestoreRow(A, row, &ncols, &cols, &vals));
  }
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(PCMSName(pc, name));
  PetscCheck(glob[1] > 0.0, comm, PETSC_ERR_ARG_WRONG, "%s: row %" PetscInt_FMT " of the operator has no diagonal entry: %s; %s", name, row, need, todo);
  SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s: row %" PetscInt_FMT " of the operator has the diagonal entry %g, which is not positive: %s; %s", name, row, (double)glob[0], need, todo);
}
