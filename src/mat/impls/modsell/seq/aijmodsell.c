/*
   MATSEQAIJMODSELL: a MATSEQAIJ that keeps a modified Sliced ELLPACK image (host and device)
   of itself and uses it for MatMult, MatMultAdd, MatResidual and MatGetDiagonal.

   Storage, preallocation, MatSetValues and assembly are SeqAIJ's (the parent operations are
   saved in Mat_SeqAIJModSELL.parent); the image is rebuilt when the nonzero state changes
   and only its values are refreshed when only the object state changes.
*/
#include "../imageimpl.h"
#include <petscdm.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h>
#endif

const char *const MatModSELLKernels[]   = {"modsell", "sell", "MatModSELLKernel", "MATMODSELL_KERNEL_", NULL};
const char *const MatModSELLOrderings[] = {"natural", "rcm", "bricks", "partition", "auto", "MatModSELLOrdering", "MATMODSELL_ORDERING_", NULL};
const char *const MatModSELLLayouts[]   = {"auto", "scalar", "blocks", "cusparse", "MatModSELLLayout", "MATMODSELL_LAYOUT_", NULL};

static PetscErrorCode MatSeqAIJModSELLSetOps(Mat);

/* The matrix's own image defaults: slices of MS_SLICE_HEIGHT_DEFAULT rows, and under the partition ordering its blocks
   of MS_SLICE_HEIGHT_PARTITION rows in slices of MS_SLICE_HEIGHT_PARTITION_SLICES (halves of the blocks); the automatic
   ordering's rules of an image for products */
static PetscErrorCode MatSeqAIJModSELLOwnDefaults(MSImageRequest *d)
{
  PetscFunctionBegin;
  PetscCall(MSImageRequestSetDefaults(d));
  d->partition_block = MS_SLICE_HEIGHT_PARTITION;
  d->partition_sh    = MS_SLICE_HEIGHT_PARTITION_SLICES;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image the matrix asks for: its settings (kernel, ordering, a slice height set), the rest from the defaults (its
   own, or a caller's: MatSeqAIJModSELLSetImageDefaults()); an MPI matrix's off-process block: plain, natural order */
static PetscErrorCode MatSeqAIJModSELLImageRequest(Mat A, MSImageRequest *r)
{
  Mat_SeqAIJModSELL        *ms  = (Mat_SeqAIJModSELL *)A->spptr;
  const MatModSELLSettings *s   = &ms->settings;
  const MatModSELLOrdering  ord = ms->offdiag_block ? MATMODSELL_ORDERING_NATURAL : s->ordering;

  PetscFunctionBegin;
  *r          = ms->defaults;
  r->kernel   = ms->offdiag_block ? MATMODSELL_KERNEL_SELL : s->kernel;
  r->ordering = ord;
  if (s->sh_set) {
    r->sh              = s->sh;
    r->partition_block = 0;
    r->partition_sh    = 0;
  }
  if (ord == MATMODSELL_ORDERING_BRICKS || ord == MATMODSELL_ORDERING_AUTO) PetscCall(PetscArraycpy(r->box, ms->box, 4));
  else PetscCall(PetscArrayzero(r->box, 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Push the matrix's settings into its image (the image is built again at its next setup when its layout changes) */
static PetscErrorCode MatSeqAIJModSELLSyncSettings(Mat A)
{
  Mat_SeqAIJModSELL       *ms  = (Mat_SeqAIJModSELL *)A->spptr;
  MSImage                  img = ms->img;
  const MatModSELLOrdering ord = ms->offdiag_block ? MATMODSELL_ORDERING_NATURAL : ms->settings.ordering;
  MSImageRequest           r;

  PetscFunctionBegin;
  /* the box of the bricks ordering: looked up before the image is (re)built, not at every product (a block's box
     is set by its MPI matrix) */
  if ((ord == MATMODSELL_ORDERING_BRICKS || ord == MATMODSELL_ORDERING_AUTO) && !ms->block && (!img->built || img->req.ordering != ord)) PetscCall(MatModSELLGetDMDABox_Private(A, ms->box));
  PetscCall(MatSeqAIJModSELLImageRequest(A, &r));
  PetscCall(MSImageSetRequest(img, &r));
  /* the bucketed permuted product: a change drops its arrays, not the image */
  PetscCall(MSImageSetPermuteChunk(img, ms->settings.permute_chunk, ms->settings.permute_recode));
  PetscCall(MSImageSetRowLanes(img, ms->settings.row_lanes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLSetImageDefaults(Mat A, const MSImageRequest *defaults)
{
  Mat_SeqAIJModSELL *ms;
  PetscBool          isms;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
  if (!isms) PetscFunctionReturn(PETSC_SUCCESS);
  ms = (Mat_SeqAIJModSELL *)A->spptr;
  if (defaults) {
    PetscCall(MSCheckSliceHeight(PETSC_COMM_SELF, defaults->sh));
    ms->defaults.sh              = defaults->sh;
    ms->defaults.partition_block = defaults->partition_block;
    ms->defaults.partition_sh    = defaults->partition_sh;
    ms->defaults.auto_bricks     = defaults->auto_bricks;
    ms->defaults.auto_window     = defaults->auto_window;
  } else PetscCall(MatSeqAIJModSELLOwnDefaults(&ms->defaults));
  if (!ms->settings.sh_set) ms->settings.sh = ms->defaults.sh; /* MatModSELLGetSliceHeight(): the height asked for */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a change of the settings (MatModSELLSettingsSet*_Private()): a slice height not set is the defaults' */
static PetscErrorCode MatModSELLApplySettings_SeqAIJModSELL(Mat A)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  if (!ms->settings.sh_set) ms->settings.sh = ms->defaults.sh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image of A (a MATSEQAIJMODSELL matrix) up to date in the memory of ops */
PetscErrorCode MatSeqAIJModSELLImage_Private(Mat A, const MSImageOps *ops, MSImage *img)
{
  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix must be assembled before it is used");
  PetscCall(MatSeqAIJModSELLSyncSettings(A));
  PetscCall(MSImageSetUp(((Mat_SeqAIJModSELL *)A->spptr)->img, A, ops));
  *img = ((Mat_SeqAIJModSELL *)A->spptr)->img;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block size of the block layout of A's product, or 1 (why: the reason, "" for a matrix of block size 1) */
static PetscInt MatSeqAIJModSELLBlockCandidate(Mat A, char why[128])
{
  Mat_SeqAIJModSELL        *ms = (Mat_SeqAIJModSELL *)A->spptr;
  const MatModSELLSettings *s  = &ms->settings;
  const PetscInt            bs = A->rmap->bs;

  why[0] = 0;
  if (bs <= 1) return 1;
  if (ms->offdiag_block) (void)PetscSNPrintf(why, 128, "the off-process block");
  else if (bs > MS_BLOCK_MAX) (void)PetscSNPrintf(why, 128, "block size %" PetscInt_FMT " above %d", bs, MS_BLOCK_MAX);
  else if (A->cmap->bs != bs || A->rmap->n != A->cmap->n || A->rmap->n % bs) (void)PetscSNPrintf(why, 128, "the blocks are not square");
  else if (s->ordering != MATMODSELL_ORDERING_AUTO && s->ordering != MATMODSELL_ORDERING_NATURAL) (void)PetscSNPrintf(why, 128, "the ordering %s was asked for, the block layout keeps the natural order", MatModSELLOrderings[s->ordering]);
  else if (s->row_lanes > 1) (void)PetscSNPrintf(why, 128, "-mat_modsell_row_lanes %" PetscInt_FMT " was asked for, the block layout has one thread per row", s->row_lanes);
  else return bs;
  return 1;
}

/* The product's layout for A's current pattern and settings (ms->choice), made when missing: the block image set up in
   the memory of ops when A has a block size that allows it, the scalar image unless the blocks move fewer bytes than
   any scalar image could (MSLayoutBlocksSuffice()), MSLayoutChoose(); then what the product does not use is freed (the
   block image; the scalar image's arrays in that memory when this choice built them: a preconditioner's
   MatSeqAIJModSELLGetImage() builds them again, and arrays another user set up are kept). *lay: the layout in the
   memory of ops, *img its image (NULL: the cuSPARSE view), its values not refreshed. */
static PetscErrorCode MatSeqAIJModSELLEnsureLayout(Mat A, const MSImageOps *ops, MatModSELLLayout *lay, MSImage *img)
{
  Mat_SeqAIJModSELL  *ms   = (Mat_SeqAIJModSELL *)A->spptr;
  MSLayoutChoice     *c    = &ms->choice;
  const PetscBool     host = (PetscBool)PetscMemTypeHost(ops->mtype);
  MatModSELLSettings *set  = &ms->settings;
  PetscObjectId       id;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix must be assembled before it is used");
  PetscCall(MatSeqAIJModSELLSyncSettings(A));
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  if (!c->valid || c->id != id || c->nzstate != A->nonzerostate || c->asked != set->layout || c->lanes != set->row_lanes || !MSImageRequestEqual(&c->req, &ms->img->req)) {
    MSImage   s = ms->img;
    PetscBool had, image_set, scalar;
    char      why[128];
    PetscInt  bs = MatSeqAIJModSELLBlockCandidate(A, why);

    /* were the scalar image's arrays in this memory current before? (then another user may hold them) */
    had = (PetscBool)(s->built && s->id == id && s->nzstate == A->nonzerostate && (host ? s->host_pattern : s->dev_pattern));
    if (bs > 1 && set->layout != MATMODSELL_LAYOUT_SCALAR && set->layout != MATMODSELL_LAYOUT_CUSPARSE) {
      MSImageRequest r = s->req;

      r.bs              = bs;
      r.sh              = set->sh_set ? set->sh : MS_SLICE_HEIGHT_DEFAULT; /* not a preconditioner's height for its slices */
      r.ordering        = MATMODSELL_ORDERING_NATURAL;
      r.partition_block = r.partition_sh = 0;
      PetscCall(PetscArrayzero(r.box, 4));
      if (!ms->bimg) PetscCall(MSImageCreate(&r, &ms->bimg));
      else PetscCall(MSImageSetRequest(ms->bimg, &r));
      ms->bimg->block_rows = set->block_rows;
      PetscCall(MSImageSetUp(ms->bimg, A, ops));
    } else PetscCall(MSImageDestroy(&ms->bimg));
    /* the scalar image, unless the blocks move fewer bytes than any scalar image could (its build, a copy of the CSR and
       maybe a partition, saved) */
    scalar = (PetscBool)(had || !ms->bimg || !MSLayoutBlocksSuffice(ms->bimg));
    if (scalar) PetscCall(MSImageSetUp(s, A, ops));
    image_set = (PetscBool)(set->sh_set || set->kernel != MATMODSELL_KERNEL_MODSELL || set->ordering != MATMODSELL_ORDERING_AUTO || set->row_lanes != 0 || ms->offdiag_block);
    PetscCall(MSLayoutChoose(scalar ? s : NULL, ms->bimg, why[0] ? why : NULL, A->rmap->bs, set, image_set, c));
    c->valid   = PETSC_TRUE;
    c->id      = id;
    c->nzstate = A->nonzerostate;
    c->asked   = set->layout;
    c->lanes   = set->row_lanes;
    c->req     = s->req;
    {
      const MatModSELLLayout l = host ? c->host : c->layout;

      if (c->host != MATMODSELL_LAYOUT_BLOCKS) PetscCall(MSImageDestroy(&ms->bimg)); /* (the other memory's layout may be it) */
      if (l != MATMODSELL_LAYOUT_SCALAR && scalar && !had) {
        if (host) PetscCall(MSImageFreeHost(s));
        else {
          PetscCall(MSImageEnsureHostPerm(s)); /* a partition computed on the GPU is kept */
          PetscCall(MSImageFreeDevice(s));
        }
      }
    }
    PetscCall(PetscInfo(A, "MATSEQAIJMODSELL: product layout %s (%s on the host): %s\n", MatModSELLLayouts[c->layout], MatModSELLLayouts[c->host], c->why));
  }
  if (ms->bimg) ms->bimg->block_rows = set->block_rows; /* the launch only */
  *lay = host ? c->host : c->layout;
  *img = *lay == MATMODSELL_LAYOUT_BLOCKS ? ms->bimg : (*lay == MATMODSELL_LAYOUT_SCALAR ? ms->img : NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLProductImage_Private(Mat A, const MSImageOps *ops, MSImage *img)
{
  MatModSELLLayout lay;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLEnsureLayout(A, ops, &lay, img));
  if (*img) PetscCall(MSImageSetUp(*img, A, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLGetProductLayout(Mat A, const MSImageOps *ops, MatModSELLLayout *lay)
{
  MSImage img;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLEnsureLayout(A, ops, lay, &img));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image of the product of A whose device values are stale (MatGetDiagonal() then takes the host's values), or NULL
   with *stale PETSC_TRUE when the product is the cuSPARSE view's */
PetscErrorCode MatSeqAIJModSELLProductValuesStale_Private(Mat A, const MSImageOps *ops, PetscBool *stale)
{
  MatModSELLLayout lay;
  MSImage          img;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLEnsureLayout(A, ops, &lay, &img));
  if (!img) *stale = PETSC_TRUE;
  else PetscCall(MSImageDeviceValuesStale(img, A, stale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLGetImage(Mat A, const MSImageOps *ops, MSImage *img)
{
  PetscBool isms;

  PetscFunctionBegin;
  *img = NULL;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
  if (isms) PetscCall(MatSeqAIJModSELLImage_Private(A, ops, img));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLGetDeviceCSR(Mat A, const int *ai, int *aj, double *aa, PetscBool *done)
{
  PetscBool isms, cur = PETSC_FALSE;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
  if (!isms || sizeof(PetscInt) != sizeof(int) || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageDevicePatternCurrent(((Mat_SeqAIJModSELL *)A->spptr)->img, A, &cur));
  if (!cur) PetscFunctionReturn(PETSC_SUCCESS); /* no device image of this pattern: building one would cost the copy */
  {
    MSImage img;

    PetscCall(MatSeqAIJModSELLGetImage(A, &MSImageOps_CUDA, &img)); /* values refreshed if A changed since */
    PetscCall(MSImageDevicePatternCurrent(img, A, &cur));
    if (!cur) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MSImageGetDeviceCSR(img, ai, aj, aa));
    *done = PETSC_TRUE;
  }
#else
  (void)A;
  (void)ai;
  (void)aj;
  (void)aa;
  (void)isms;
  (void)cur;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At final assembly, when the matrix lives on the GPU (MatGetCurrentMemType() is a device memory type: the matrix is
   not bound to the CPU) and will meet CUDA vectors, set up the device image now rather than inside the first MatMult.
   It will meet CUDA vectors when CUDA is initialized already, or when owner (the matrix itself, or the MPI matrix of
   which A is a block) comes from a DM whose vectors are CUDA vectors: a DMDA with -dm_vec_type cuda creates its first
   CUDA vector, and PETSc initializes CUDA, often only after the user's assembly (PETSc's ex45 assembles in
   KSPSetUp(): without this the image of a matrix factored by cuSPARSE was built in the first MatMult of KSPSolve()) */
PetscErrorCode MatSeqAIJModSELLEagerSetUp(Mat A, Mat owner)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
    PetscMemType       mtype;
    MSImage            img;
    PetscBool          dev = PetscDeviceInitialized(PETSC_DEVICE_CUDA);

    PetscCall(MatGetCurrentMemType(A, &mtype));
    if (!ms->settings.eager || !PetscMemTypeDevice(mtype) || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
    if (!dev) {
      DM      dm;
      VecType vtype = NULL;

      PetscCall(MatGetDM(owner, &dm));
      if (dm) PetscCall(DMGetVecType(dm, &vtype));
      if (vtype) PetscCall(PetscStrendswith(vtype, "cuda", &dev));
      if (dev) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    }
    if (dev) PetscCall(MatSeqAIJModSELLProductImage_Private(A, ms->iops, &img));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The eager set-up from inside the matrix's own MatAssemblyEnd(): MatSetValues() marked the matrix unassembled and
   MatAssemblyEnd() marks it assembled, and increases its state, only after this operation returns. So the matrix is
   taken as assembled for the set-up, and the image's values are recorded as those of the state the assembly is about
   to give the matrix (else the first product would upload the same values again) */
/* MatCreateSubMatrices() under way on a MATSEQAIJMODSELL matrix: the new matrices' assemblies make no eager image */
static PetscInt ms_creating_submatrices = 0;

static PetscErrorCode MatSeqAIJModSELLEagerSetUpInAssembly(Mat A)
{
  Mat_SeqAIJModSELL *ms  = (Mat_SeqAIJModSELL *)A->spptr;
  PetscBool          was = A->assembled;
  PetscObjectState   state;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  /* the values may have changed without a change of state (MatSetValues()): whatever the image holds is stale */
  for (int i = 0; i < 2; i++) {
    MSImage img = i ? ms->bimg : ms->img;
    if (!img) continue;
    img->devstate  = -1;
    img->hoststate = -1;
  }
  if (ms_creating_submatrices) PetscFunctionReturn(PETSC_SUCCESS);
  A->assembled = PETSC_TRUE;
  ierr         = MatSeqAIJModSELLEagerSetUp(A, A);
  A->assembled = was;
  PetscCall(ierr);
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  for (int i = 0; i < 2; i++) {
    MSImage img = i ? ms->bimg : ms->img;
    if (!img) continue;
    if (img->devstate == state) img->devstate = state + 1;
    if (img->hoststate == state) img->hoststate = state + 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* MatGetCurrentMemType(): where the products run (without CUDA the operation is not set and the answer is the host) */
static PetscErrorCode MatGetCurrentMemType_SeqAIJModSELL(Mat A, PetscMemType *m)
{
  PetscFunctionBegin;
  *m = A->boundtocpu ? PETSC_MEMTYPE_HOST : PETSC_MEMTYPE_CUDA;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The host operations (a matrix bound to the CPU; every matrix without CUDA): the products and the diagonal of the host
   image. y = w + ys A x (w NULL: y = A x; ys = 1, or -1 for the residual w - A x) */
static PetscErrorCode MatMultAddKernel_SeqAIJModSELL_Host(Mat A, Vec xx, Vec ww, PetscScalar ys, Vec yy)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  MSImage            img;
  const PetscScalar *x, *w = NULL;
  PetscScalar       *y;

  PetscFunctionBegin;
  PetscCheck(xx != yy, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "x and y must be different vectors");
  PetscCall(MatSeqAIJModSELLProductImage_Private(A, ms->iops, &img));
  PetscCheck(img, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A host product without an image");
  PetscCall(VecGetArrayRead(xx, &x));
  if (ww && ww != yy) PetscCall(VecGetArrayRead(ww, &w));
  if (ww == yy) PetscCall(VecGetArray(yy, &y));
  else PetscCall(VecGetArrayWrite(yy, &y));
  PetscCall(ms->iops->mult(img, x, ww ? (ww == yy ? y : w) : NULL, ys, y));
  PetscCall(VecRestoreArrayRead(xx, &x));
  if (ww && ww != yy) PetscCall(VecRestoreArrayRead(ww, &w));
  if (ww == yy) PetscCall(VecRestoreArray(yy, &y));
  else PetscCall(VecRestoreArrayWrite(yy, &y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_SeqAIJModSELL_Host(Mat A, Vec v)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  MSImage            img;
  PetscScalar       *d;

  PetscFunctionBegin;
  if (ms->settings.kernel != MATMODSELL_KERNEL_MODSELL || ms->offdiag_block || A->rmap->n != A->cmap->n) {
    PetscCall((*ms->parent.getdiagonal)(A, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqAIJModSELLProductImage_Private(A, ms->iops, &img));
  PetscCheck(img, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A host product without an image");
  PetscCall(VecGetArrayWrite(v, &d));
  PetscCall(ms->iops->getdiagonal(img, d));
  PetscCall(VecRestoreArrayWrite(v, &d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The products: y = w + ys A x by the matrix's kernel (ms->multadd) in the memory it computes in */
static PetscErrorCode MatMult_SeqAIJModSELL(Mat A, Vec xx, Vec yy)
{
  PetscFunctionBegin;
  PetscCall((*((Mat_SeqAIJModSELL *)A->spptr)->multadd)(A, xx, NULL, 1.0, yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqAIJModSELL(Mat A, Vec xx, Vec ww, Vec yy)
{
  PetscFunctionBegin;
  PetscCall((*((Mat_SeqAIJModSELL *)A->spptr)->multadd)(A, xx, ww, 1.0, yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x in one pass over r (PCMG's residual on every level; the default is MatMult() and then VecAYPX(), which
   reads and writes r once more): the product's sum of each row subtracted from b, the same bits as the default. r may
   be b. */
static PetscErrorCode MatResidual_SeqAIJModSELL(Mat A, Vec b, Vec x, Vec r)
{
  PetscFunctionBegin;
  PetscCall((*((Mat_SeqAIJModSELL *)A->spptr)->multadd)(A, x, b, -1.0, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where the matrix computes, chosen once, as aijcusparse's MatBindToCPU() swaps its operations: the host image's
   operations (above), or with CUDA, unless the matrix is bound to the CPU, the device image's and the cuSPARSE view's
   (aijmodsell_cuda.c), which take vectors in host memory too. Called at the conversion to this type, by
   MatBindToCPU(), and after SeqAIJ's assembly (which installs its own products). */
static PetscErrorCode MatSeqAIJModSELLSetBackendOps(Mat A)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  A->ops->mult     = MatMult_SeqAIJModSELL;
  A->ops->multadd  = MatMultAdd_SeqAIJModSELL;
  A->ops->residual = MatResidual_SeqAIJModSELL;
#if defined(PETSC_HAVE_CUDA)
  if (!A->boundtocpu) {
    PetscCall(MatSeqAIJModSELLSetDeviceOps_Private(A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  ms->iops                 = &MSImageOps_Reference;
  ms->multadd              = MatMultAddKernel_SeqAIJModSELL_Host;
  A->ops->getdiagonal      = MatGetDiagonal_SeqAIJModSELL_Host;
  A->ops->multtranspose    = ms->parent.multtranspose;
  A->ops->multtransposeadd = ms->parent.multtransposeadd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode MatBindToCPU_SeqAIJModSELL(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  (void)flg; /* A->boundtocpu, set by MatBindToCPU() */
  PetscCall(MatSeqAIJModSELLSetBackendOps(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatAssemblyEnd_SeqAIJModSELL(Mat A, MatAssemblyType mode)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*ms->parent.assemblyend)(A, mode));
  /* SeqAIJ's assembly may install its inode products: put ours back (only those: other operations,
     e.g. the destroy hook of MatCreateSubMatrices(), may have been changed on purpose) */
  PetscCall(MatSeqAIJModSELLSetBackendOps(A));
  if (mode == MAT_FINAL_ASSEMBLY && !ms->block) PetscCall(MatSeqAIJModSELLEagerSetUpInAssembly(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatModSELLGetSettings_SeqAIJModSELL(Mat A, MatModSELLSettings **s)
{
  PetscFunctionBegin;
  *s = &((Mat_SeqAIJModSELL *)A->spptr)->settings;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatModSELLGetInfo_SeqAIJModSELL(Mat A, MatModSELLInfo *info)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  MatModSELLLayout   lay;
  MSImage            img;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLEnsureLayout(A, ms->iops, &lay, &img));
  if (!img) img = ms->choice.host == MATMODSELL_LAYOUT_BLOCKS ? ms->bimg : ms->img; /* the cuSPARSE view: the host's image's counts */
  PetscCall(MSImageEnsureStats(img, A));
  PetscCall(MSImageGetInfo(img, info));
  info->layout         = ms->choice.layout;
  info->block_density  = img->lay.bs > 1 ? ms->choice.density : 0.0;
  info->bytes_image    = ms->choice.bytes[ms->choice.host == MATMODSELL_LAYOUT_BLOCKS ? 1 : 0];
  info->bytes_cusparse = ms->choice.bytes[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_SeqAIJModSELL(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  if (ms->parent.setfromoptions) PetscCall((*ms->parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall(MatModSELLReadOptions_Private(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SeqAIJModSELL(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*ms->parent.view)(A, viewer));
  PetscCall(MatModSELLView_Private(A, viewer, ms->defaults.auto_bricks, ms->choice.why));
  if (ms->cs.view) {
    PetscBool         iascii;
    PetscViewerFormat format;

    PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
    PetscCall(PetscViewerGetFormat(viewer, &format));
    if (iascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) PetscCall(PetscViewerASCIIPrintf(viewer, "  cuSPARSE view (transposed products, MatProduct, point-block Jacobi, cusparse factors): %zu bytes of device CSR\n", ms->cs.bytes));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* From another MATSEQAIJ subclass (aijcusparse, aijkokkos, aijperm, ...), whose conversion to this type PETSc does not
   know: MatConvert() would take MatConvert_Basic(), a MatSetValues() per entry (tens of seconds at 10^8 nonzeros), and
   PETSc has no fast conversion of aijcusparse to MATSEQAIJ either. A MATSEQAIJ copy made from the CSR arrays (the
   values first brought to the host), converted in place. */
static PetscErrorCode MatConvert_SeqAIJOther_SeqAIJModSELL(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                B;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           m;
  PetscBool          done;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqAIJGetArrayRead(A, &aa)); /* a device type copies its values to the host here */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatConvert() to %s: the %s matrix gave no CSR arrays", type, ((PetscObject)A)->type_name);
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(B, A, A));
  PetscCall(MatSetType(B, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(B, ai, aj, aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatPropagateSymmetryOptions(A, B));
  PetscCall(MatConvert_SeqAIJ_SeqAIJModSELL(B, type, MAT_INPLACE_MATRIX, &B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatComposeAll_SeqAIJModSELL(Mat B, PetscBool set)
{
  PetscFunctionBegin;
  PetscCall(MatModSELLComposeConvertFromOthers_Private(B, "seq", MatConvert_SeqAIJOther_SeqAIJModSELL, set));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijmodsell_seqaij_C", set ? MatConvert_SeqAIJModSELL_SeqAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaij_seqaijmodsell_C", set ? MatConvert_SeqAIJ_SeqAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaij_modsell_C", set ? MatConvert_SeqAIJ_SeqAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijmodsell_modsell_C", set ? MatConvert_ModSELL_Same_Private : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLGetSettings_C", set ? MatModSELLGetSettings_SeqAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLApplySettings_C", set ? MatModSELLApplySettings_SeqAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLGetInfo_C", set ? MatModSELLGetInfo_SeqAIJModSELL : NULL));
  PetscCall(MatModSELLComposeSetGet_Private(B, set));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", set ? MatProductSetFromOptions_SeqAIJModSELL : NULL));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqAIJModSELLUncompose_Private(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatComposeAll_SeqAIJModSELL(B, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operations MATSEQAIJMODSELL puts in place of SeqAIJ's (saved in ->parent at the conversion): one list, which
   MatSeqAIJModSELLSetOps() installs and MatSeqAIJModSELLStrip() restores; and those that depend on where the matrix
   computes (MatSeqAIJModSELLSetBackendOps()), which MatSeqAIJModSELLStrip() restores too */
#define MS_SEQ_BACKEND_OPS(X) X(mult) X(multadd) X(residual) X(getdiagonal) X(multtranspose) X(multtransposeadd)
#if defined(PETSC_HAVE_CUDA)
  #define MS_SEQ_OWN_OPS_CUDA(X) \
    X(getcurrentmemtype, MatGetCurrentMemType_SeqAIJModSELL) \
    X(bindtocpu, MatBindToCPU_SeqAIJModSELL) \
    X(productsetfromoptions, MatProductSetFromOptions_SeqAIJModSELL) \
    X(getblockdiagonal, MatGetBlockDiagonal_SeqAIJModSELL) \
    X(getvblockdiagonal, MatGetBlockDiagonal_SeqAIJModSELL) \
    X(creategraph, MatCreateGraph_SeqAIJModSELL)
#else
  #define MS_SEQ_OWN_OPS_CUDA(X)
#endif
#define MS_SEQ_OWN_OPS(X) \
  X(diagonalscale, MatDiagonalScale_SeqAIJModSELL) \
  X(assemblyend, MatAssemblyEnd_SeqAIJModSELL) \
  X(destroy, MatDestroy_SeqAIJModSELL) \
  X(duplicate, MatDuplicate_SeqAIJModSELL) \
  X(view, MatView_SeqAIJModSELL) \
  X(setfromoptions, MatSetFromOptions_SeqAIJModSELL) \
  X(axpy, MatAXPY_SeqAIJModSELL) \
  X(transpose, MatTranspose_SeqAIJModSELL) \
  X(createsubmatrices, MatCreateSubMatrices_SeqAIJModSELL) \
  MS_SEQ_OWN_OPS_CUDA(X)

/* Undo the subclass in place: restore SeqAIJ's operations, free the image */
static PetscErrorCode MatSeqAIJModSELLStrip(Mat B)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)B->spptr;

  PetscFunctionBegin;
  if (!ms) PetscFunctionReturn(PETSC_SUCCESS);
#define MS_RESTORE_OP(op, fn) B->ops->op = ms->parent.op;
#define MS_RESTORE_BACKEND_OP(op) B->ops->op = ms->parent.op;
  MS_SEQ_OWN_OPS(MS_RESTORE_OP) /* SeqAIJ's operations back */
  MS_SEQ_BACKEND_OPS(MS_RESTORE_BACKEND_OP)
#undef MS_RESTORE_BACKEND_OP
#undef MS_RESTORE_OP
  PetscCall(MatComposeAll_SeqAIJModSELL(B, PETSC_FALSE));
  PetscCall(MatDestroy(&ms->cs.view));
  for (PetscInt i = 0; i < 3; i++) PetscCall(VecDestroy(&ms->stage[i]));
  PetscCall(MSImageDestroy(&ms->img));
  PetscCall(MSImageDestroy(&ms->bimg));
  PetscCall(PetscFree(B->spptr));
  PetscCall(MatModSELLResetType_Private(B, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode MatConvert_SeqAIJModSELL_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatModSELLConvertBegin_Private(A, reuse, newmat, &done));
  if (!done) PetscCall(MatSeqAIJModSELLStrip(*newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqAIJModSELL(Mat A)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  PetscErrorCode (*destroy)(Mat) = ms ? ms->parent.destroy : NULL;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLStrip(A));
  PetscCheck(destroy, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL without its parent operations");
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Operations that make a new matrix of the type (MatDuplicate(), a new result) or rebuild one (a new one moved in with
   MatHeaderMerge()) would otherwise give it the default settings: carry them over, and the box and block flags */
static PetscErrorCode MatSeqAIJModSELLCopySettings(const Mat_SeqAIJModSELL *from, Mat B)
{
  Mat_SeqAIJModSELL *to;
  PetscBool          isms;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJMODSELL, &isms));
  if (!isms) PetscFunctionReturn(PETSC_SUCCESS);
  to                = (Mat_SeqAIJModSELL *)B->spptr;
  to->settings      = from->settings;
  to->defaults      = from->defaults;
  PetscCall(PetscArraycpy(to->box, from->box, 4));
  to->offdiag_block = from->offdiag_block;
  to->block         = from->block;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqAIJModSELL(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*ms->parent.duplicate)(A, op, M)); /* creates a MATSEQAIJMODSELL through MatSetType() */
  PetscCall(MatSeqAIJModSELLCopySettings(ms, *M));
  PetscCall(MatSeqAIJModSELLSetOps(*M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X where X's pattern is contained in Y's (both CSR with sorted rows): a merge of each row, O(nnz), instead of
   SeqAIJ's MatSetValues() per row; *done = PETSC_FALSE (nothing changed) when X has an entry outside Y's pattern */
static PetscErrorCode MatAXPY_SeqAIJModSELL_Subset(Mat Y, PetscScalar a, Mat X, const PetscInt *yi, const PetscInt *yj, const PetscInt *xi, const PetscInt *xj, PetscBool *done)
{
  const PetscInt     m = Y->rmap->n;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt p = yi[r];

    for (PetscInt q = xi[r]; q < xi[r + 1]; q++) {
      while (p < yi[r + 1] && yj[p] < xj[q]) p++;
      if (p == yi[r + 1] || yj[p] != xj[q]) PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatSeqAIJGetArrayRead(X, &xa));
  PetscCall(MatSeqAIJGetArray(Y, &ya));
  for (PetscInt r = 0; r < m; r++) {
    PetscInt p = yi[r];

    for (PetscInt q = xi[r]; q < xi[r + 1]; q++) {
      while (yj[p] < xj[q]) p++;
      ya[p] += a * xa[q];
    }
  }
  PetscCall(MatSeqAIJRestoreArray(Y, &ya));
  PetscCall(MatSeqAIJRestoreArrayRead(X, &xa));
  PetscCall(PetscLogFlops(2.0 * xi[m]));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's MatAXPY() trusts the caller's structure flag: DIFFERENT_NONZERO_PATTERN builds a new matrix through
   MatSetValues() even when the patterns are equal (PCGAMG's graph symmetrization, A + A^T, passes it for every
   structurally nonsymmetric-flagged operator; aijcusparse compares the patterns and adds in place). So: equal
   patterns -> SAME_NONZERO_PATTERN (an axpy of the value arrays), a subset -> a merge of the rows in place.
   With CUDA the results of products on the views (MATSEQAIJCUSPARSE) carry this operation too: Y is then such a
   result, handed to aijcusparse's MatAXPY (seq/cusparseview.c). */
static PetscErrorCode MatAXPY_SeqAIJModSELL(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_SeqAIJModSELL saved;
  PetscBool         xaij;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATSEQAIJMODSELL, &xaij));
  if (!xaij) {
    PetscCall(MatAXPY_SeqAIJModSELL_OnCUSPARSE(Y, a, X, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  saved = *(Mat_SeqAIJModSELL *)Y->spptr;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQAIJ, &xaij));
  if (xaij && str != SAME_NONZERO_PATTERN && !X->structure_only && !Y->structure_only) {
    const PetscInt *yi, *yj, *xi, *xj;
    PetscInt        ny, nx;
    PetscBool       gy, gx, eq = PETSC_FALSE, done = PETSC_FALSE;

    PetscCall(MatGetRowIJ(Y, 0, PETSC_FALSE, PETSC_FALSE, &ny, &yi, &yj, &gy));
    PetscCall(MatGetRowIJ(X, 0, PETSC_FALSE, PETSC_FALSE, &nx, &xi, &xj, &gx));
    if (gy && gx && nx == ny) {
      eq = (PetscBool)(xi[nx] == yi[ny]);
      if (eq) PetscCall(PetscArraycmp(xi, yi, ny + 1, &eq));
      if (eq) PetscCall(PetscArraycmp(xj, yj, yi[ny], &eq));
      if (!eq && (str == SUBSET_NONZERO_PATTERN || xi[nx] < yi[ny])) PetscCall(MatAXPY_SeqAIJModSELL_Subset(Y, a, X, yi, yj, xi, xj, &done));
    }
    if (gx) PetscCall(MatRestoreRowIJ(X, 0, PETSC_FALSE, PETSC_FALSE, &nx, &xi, &xj, &gx));
    if (gy) PetscCall(MatRestoreRowIJ(Y, 0, PETSC_FALSE, PETSC_FALSE, &ny, &yi, &yj, &gy));
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
    if (eq) str = SAME_NONZERO_PATTERN;
  }
  PetscCall((*saved.parent.axpy)(Y, a, X, str));
  PetscCall(MatSeqAIJModSELLCopySettings(&saved, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's MatCreateSubMatrices() (also behind MatCreateSubMatrix() on one process), the new matrices' images made at
   their first use: MatCreateSubMatrix() increases a new matrix's state once more after the assembly, so an image made
   in the assembly would hold the values of an earlier state and be uploaded again at its first use (PCFIELDSPLIT's
   blocks); aijcusparse too uploads a submatrix at its first use */
static PetscErrorCode MatCreateSubMatrices_SeqAIJModSELL(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *B[])
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  ms_creating_submatrices++;
  ierr = (*ms->parent.createsubmatrices)(A, n, irow, icol, scall, B);
  ms_creating_submatrices--;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* diag(l) A diag(r) with both vectors: one pass over the values where SeqAIJ makes two (a value is multiplied by
   l_i, then by r_j, in the same order: the same values bit for bit). PCGAMG scales its graph, a duplicate of the
   operator, this way: at 16.8 M rows SeqAIJ's two passes took 0.41 s of GAMG's setup on an H100 (aijcusparse scales
   on the GPU). With one vector, SeqAIJ's. The values stay on the host, where the matrix keeps them; the image takes
   them at its next use (the state changes). */
static PetscErrorCode MatDiagonalScale_SeqAIJModSELL(Mat A, Vec ll, Vec rr)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  const PetscScalar *l, *r;
  PetscScalar       *v;
  const PetscInt    *ai, *aj;
  PetscInt           m, n, nrow;
  PetscBool          done;

  PetscFunctionBegin;
  if (!ll || !rr) {
    PetscCall((*ms->parent.diagonalscale)(A, ll, rr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetLocalSize(ll, &m));
  PetscCheck(m == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Left scaling vector of length %" PetscInt_FMT " for a matrix of %" PetscInt_FMT " local rows", m, A->rmap->n);
  PetscCall(VecGetLocalSize(rr, &n));
  PetscCheck(n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Right scaling vector of length %" PetscInt_FMT " for a matrix of %" PetscInt_FMT " local columns", n, A->cmap->n);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  if (!done) { /* no CSR arrays to walk: SeqAIJ's two passes */
    PetscCall((*ms->parent.diagonalscale)(A, ll, rr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(ll, &l));
  PetscCall(VecGetArrayRead(rr, &r));
  PetscCall(MatSeqAIJGetArray(A, &v));
  for (PetscInt i = 0; i < m; i++) {
    const PetscScalar x = l[i];

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscScalar t = v[k] * x; /* rounded as SeqAIJ's first pass rounds it */

      v[k] = t * r[aj[k]];
    }
  }
  PetscCall(MatSeqAIJRestoreArray(A, &v));
  PetscCall(VecRestoreArrayRead(rr, &r));
  PetscCall(VecRestoreArrayRead(ll, &l));
  PetscCall(PetscLogFlops(2.0 * ai[m]));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatTranspose_SeqAIJModSELL(Mat A, MatReuse reuse, Mat *B)
{
  Mat_SeqAIJModSELL saved = *(Mat_SeqAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*saved.parent.transpose)(A, reuse, B));
  PetscCall(MatSeqAIJModSELLCopySettings(&saved, reuse == MAT_INPLACE_MATRIX ? A : *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSeqAIJModSELLSetOps(Mat B)
{
  PetscFunctionBegin;
#define MS_SET_OP(op, fn) B->ops->op = fn;
  MS_SEQ_OWN_OPS(MS_SET_OP)
#undef MS_SET_OP
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* In place for MAT_INPLACE_MATRIX; also used on preallocated, unassembled matrices */
PetscErrorCode MatConvert_SeqAIJ_SeqAIJModSELL(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                B;
  Mat_SeqAIJModSELL *ms;
  PetscBool          done, same;

  PetscFunctionBegin;
  PetscCall(MatModSELLConvertBegin_Private(A, reuse, newmat, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  B = *newmat;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJMODSELL, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(PetscNew(&ms));
  PetscCall(MatModSELLSettingsSetDefaults_Private(&ms->settings));
  PetscCall(MatSeqAIJModSELLOwnDefaults(&ms->defaults));
  PetscCall(MSImageCreate(&ms->defaults, &ms->img));
  PetscCall(PetscMemcpy(&ms->parent, B->ops, sizeof(struct _MatOps)));
  B->spptr = ms;
  PetscCall(MatSeqAIJModSELLSetOps(B));
#if defined(PETSC_HAVE_CUDA)
  /* As aijcusparse: no inode scan at assembly (the products are the image's; SeqAIJ's scan took 0.14-0.22 s of every
     MatAssemblyEnd() at 10.4 M rows on an H100, 2026-11-24, docs/locality.md). The inodes stay off after MatBindToCPU()
     and a conversion back to MATSEQAIJ: turning them on again in an assembled matrix, whose inode structure has not
     been computed, would make SeqAIJ's products fail ("Missing Inode Structure"); MatSetOption(MAT_USE_INODES) before
     the next assembly turns them on. */
  PetscCall(MatSetOption(B, MAT_USE_INODES, PETSC_FALSE));
#endif
  PetscCall(MatComposeAll_SeqAIJModSELL(B, PETSC_TRUE));
  PetscCall(MatModSELLSetType_Private(B, MATSEQAIJMODSELL));
  PetscCall(MatSeqAIJModSELLSetBackendOps(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSEQAIJMODSELL - MATMODSELL = "modsell" (on one process) - a `MATSEQAIJ` matrix that also keeps
   itself in the modified Sliced ELLPACK format of Wikberg (2024), section 3.2, and uses it,
   on the GPU when the vectors are there, for `MatMult()`, `MatMultAdd()`, `MatResidual()` (one pass: the row sums
   subtracted from b, the same values as `MatMult()` followed by `VecAYPX()`) and `MatGetDiagonal()`.

   Rows are grouped in slices of `-mat_modsell_slice_height` rows, one CUDA thread block per slice and one
   thread per row; the diagonal is stored in its own array; a column inside the slice's own rows is stored
   as -(c - first_row) - 1 and its x entry read from a shared-memory copy of the slice's window of x,
   other columns as c + 1, padding as 0. Entries of a slice are interleaved so that consecutive threads
   read consecutive addresses. Everything else (storage, preallocation, `MatSetValues()`, assembly,
   factorizations) is `MATSEQAIJ`'s. The image is rebuilt when the nonzero pattern changes; when only
   values change (`MatSetValues()` with the same pattern, `MatScale()`, `MatShift()`,
   `MatDiagonalScale()`) only the values are uploaded again.

   Options Database Keys:
+  -mat_type modsell                           - select this type
.  -mat_modsell_slice_height <128>             - rows per slice, a multiple of 32 at most 1024
.  -mat_modsell_layout <auto,scalar,blocks,cusparse> - the product's layout (`MatModSELLSetLayout()`): chosen from the matrix by default
.  -mat_modsell_kernel <modsell,sell>          - modified SELL (default) or the plain SELL kernel of Wikberg (2024), section 3.1
.  -mat_modsell_ordering <natural,rcm,bricks,partition>  - reverse Cuthill-McKee ordering, (matrices of a `DMDA`) grid bricks, or compact blocks of the graph, inside the format; vectors keep the user's ordering
.  -mat_modsell_upload_threads <8>            - host threads copying the host CSR to the GPU through pinned buffers (1: one cudaMemcpy)
.  -mat_modsell_upload_chunk <4194304>         - bytes per pinned buffer; copies of less than 4 chunks are one cudaMemcpy
-  -mat_modsell_eager_setup <true>             - build the GPU image at final assembly rather than at the first product

   Level: beginner

   Notes:
   The default vector type is `VECCUDA` when PETSc is configured with CUDA. Where the matrix computes is chosen once, as
   for `MATSEQAIJCUSPARSE`: on the GPU, unless `MatBindToCPU()` binds it to the CPU (then the host image's products and
   `MATSEQAIJ`'s transposed products). Unlike `MATSEQAIJCUSPARSE` the GPU operations also take vectors in host memory
   (`VecCreate()` without `-vec_type cuda`): such a vector is copied to a CUDA work vector of the matrix before the
   operation and its result copied back, the same function computed by the same kernels. `MatMultTranspose()` and
   `MatMultTransposeAdd()` run on the GPU in `MATSEQAIJCUSPARSE`'s code, on a view of the matrix's CSR.

   The GPU image is built on the GPU (widths, prefix sum and fill kernels) from the CSR arrays; a
   change of values only uploads the CSR values and scatters them into the image.

.seealso: `MATMODSELL`, `MATMPIAIJMODSELL`, `MatCreateModSELL()`, `MatModSELLSetSliceHeight()`, `MATSEQAIJ`, `MATSEQSELL`
M*/
PetscErrorCode MatCreate_SeqAIJModSELL(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATSEQAIJ));
  PetscCall(MatConvert_SeqAIJ_SeqAIJModSELL(A, MATSEQAIJMODSELL, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
