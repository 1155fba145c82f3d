/*
   The mod-SELL image of a sequential AIJ block: the object. Created from a request, brought up to date by MSImageSetUp()
   with the operations of one memory (a new pattern: imageordering.c, then the build of imagebuild.c; new values: a
   refresh), read through its layout and the tables of imageproduct.c. See imageimpl.h.
*/
#include "imageimpl.h"

PetscLogEvent MATMODSELL_ImageBuild = 0, MATMODSELL_ImageValues = 0, MATMODSELL_Upload = 0, MATMODSELL_View = 0, MATMODSELL_Graph = 0;

PetscErrorCode MSCheckSliceHeight(MPI_Comm comm, PetscInt sh)
{
  PetscFunctionBegin;
  PetscCheck(sh >= 32 && sh <= 1024 && sh % 32 == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Invalid MATMODSELL slice height %" PetscInt_FMT ": it must be a multiple of 32 (the warp size) between 32 and 1024 (the largest CUDA thread block)", sh);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageRequestSetDefaults(MSImageRequest *r)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->kernel      = MATMODSELL_KERNEL_MODSELL;
  r->sh          = MS_SLICE_HEIGHT_DEFAULT;
  r->ordering    = MATMODSELL_ORDERING_NATURAL;
  r->auto_bricks = PETSC_FALSE;
  r->auto_window = PETSC_TRUE;
  r->bs          = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Block rows per slice of the block layout: the request's slice height, at most the largest multiple of 32 with sh bs
   <= 1024 threads of a slice */
PetscInt MSBlockSliceHeight(PetscInt sh, PetscInt bs)
{
  const PetscInt cap = bs > 1 ? (1024 / (32 * bs)) * 32 : 1024;

  return PetscMax(32, PetscMin(sh, cap));
}

static PetscErrorCode MSImageRequestCheck(const MSImageRequest *r)
{
  PetscFunctionBegin;
  PetscCall(MSCheckSliceHeight(PETSC_COMM_SELF, r->sh));
  PetscCheck(r->kernel == MATMODSELL_KERNEL_MODSELL || r->kernel == MATMODSELL_KERNEL_SELL, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown mod-SELL image encoding %d: MATMODSELL_KERNEL_MODSELL or MATMODSELL_KERNEL_SELL", (int)r->kernel);
  PetscCheck(r->ordering >= MATMODSELL_ORDERING_NATURAL && r->ordering <= MATMODSELL_ORDERING_AUTO, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown mod-SELL image ordering %d", (int)r->ordering);
  PetscCheck(r->bs >= 0 && r->bs <= MS_BLOCK_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The block size %" PetscInt_FMT " of a mod-SELL image's block layout must be 1 (scalar) to %d", r->bs, MS_BLOCK_MAX);
  PetscCheck(r->bs <= 1 || r->ordering == MATMODSELL_ORDERING_NATURAL, PETSC_COMM_SELF, PETSC_ERR_SUP, "The block layout of a mod-SELL image keeps the natural order, not %s", MatModSELLOrderings[r->ordering]);
  PetscCheck(r->partition_block >= 0 && r->partition_sh >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The partition's block height %" PetscInt_FMT " and slice height %" PetscInt_FMT " of a mod-SELL image must be >= 0 (0: the slice height)", r->partition_block, r->partition_sh);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the requests give the same layout (height: the slice height too): the fields that matter for the ordering asked
   for are equal (the partition's heights under AUTO and PARTITION, the box under AUTO and BRICKS, AUTO's rules) */
static PetscBool MSImageRequestSame(const MSImageRequest *a, const MSImageRequest *b, PetscBool height)
{
  const PetscBool isauto = (PetscBool)(a->ordering == MATMODSELL_ORDERING_AUTO);

  if (a->kernel != b->kernel || a->ordering != b->ordering || (height && a->sh != b->sh) || PetscMax(a->bs, 1) != PetscMax(b->bs, 1)) return PETSC_FALSE;
  if ((isauto || a->ordering == MATMODSELL_ORDERING_PARTITION) && (a->partition_block != b->partition_block || a->partition_sh != b->partition_sh)) return PETSC_FALSE;
  if ((isauto || a->ordering == MATMODSELL_ORDERING_BRICKS) && (a->box[0] != b->box[0] || a->box[1] != b->box[1] || a->box[2] != b->box[2] || a->box[3] != b->box[3])) return PETSC_FALSE;
  if (isauto && (a->auto_window != b->auto_window || a->auto_bricks != b->auto_bricks)) return PETSC_FALSE;
  return PETSC_TRUE;
}

PetscBool MSImageRequestEqual(const MSImageRequest *a, const MSImageRequest *b)
{
  return MSImageRequestSame(a, b, PETSC_TRUE);
}

PetscErrorCode MSImageCreate(const MSImageRequest *req, MSImage *img)
{
  MSImageRequest r;

  PetscFunctionBegin;
  if (req) r = *req;
  else PetscCall(MSImageRequestSetDefaults(&r));
  PetscCall(MSImageRequestCheck(&r));
  PetscCall(PetscNew(img));
  (*img)->req           = r;
  (*img)->lay.ordering  = r.ordering;
  (*img)->lay.applied   = MATMODSELL_ORDERING_NATURAL;
  (*img)->nat_local     = -1;
  (*img)->nat_off       = -1;
  (*img)->nat_stride    = 1;
  (*img)->permute_chunk = MS_PERMUTE_CHUNK_DEFAULT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageDestroy(MSImage *img)
{
  PetscFunctionBegin;
  if (!*img) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageFreeDevice(*img));
  PetscCall(MSImageFreeHost(*img));
  PetscCall(PetscFree((*img)->perm));
  PetscCall(PetscFree(*img));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A change that matters for the ordering asked for makes the image again at the next setup (e.g. a slice-based
   preconditioner on an image built at assembly: slices of 512 become its blocks of 1024), from the same partition when
   only the slice height changed (MSImageOrderingPrepare() keeps it); but a partitioned image whose heights are the
   partition's (partition_sh set) is kept when only the slice height asked for changes and its slices stay what the new
   request gives. */
PetscErrorCode MSImageSetRequest(MSImage img, const MSImageRequest *req)
{
  const MSImageRequest *old = &img->req;

  PetscFunctionBegin;
  if (!MSImageRequestSame(old, req, PETSC_TRUE)) {
    PetscCall(MSImageRequestCheck(req));
    if (!(img->built && MSImageRequestSame(old, req, PETSC_FALSE) && req->partition_sh && img->lay.applied == MATMODSELL_ORDERING_PARTITION && img->lay.sh == PetscMax(req->sh, req->partition_sh))) img->built = PETSC_FALSE;
  }
  img->req = *req;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new pattern (or a new request): forget both images, set the sizes, the ordering and the encoding */
static PetscErrorCode MSImagePrepare(MSImage img, Mat A)
{
  MSImageLayout  *l = &img->lay;
  PetscInt        m, n, nrow;
  const PetscInt *ai, *aj;
  PetscBool       done, square, mod;
  PetscObjectId   id;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  /* a partition computed on the device is kept on the host through the rebuild: only a new pattern or block height
     makes it again (MSImageOrderingPrepare()), not a new slice height (a slice-based preconditioner's) */
  if (img->partition && img->d_perm && !img->perm && img->perm_id == id && img->perm_nzstate == A->nonzerostate) PetscCall(MSImageEnsureHostPerm(img));
  PetscCall(MSImageFreeHost(img));
  PetscCall(MSImageFreeDevice(img));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCheck(n < PETSC_INT32_MAX && m < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATMODSELL stores row and column indices as 32-bit integers: this block is %" PetscInt_FMT " x %" PetscInt_FMT ", at most %d x %d fits; distribute the matrix over more MPI processes", m, n, PETSC_INT32_MAX - 1, PETSC_INT32_MAX - 1);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the CSR structure of a matrix of type %s: the mod-SELL image needs a SeqAIJ-family matrix", ((PetscObject)A)->type_name);
  PetscCheck(nrow == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row count mismatch");
  l->nnz = ai[m];
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  square        = (PetscBool)(m == n);
  mod           = (PetscBool)(img->req.kernel == MATMODSELL_KERNEL_MODSELL && square);
  l->m          = m;
  l->n          = n;
  l->ordering   = img->req.ordering;
  l->diag_apart = mod;
  l->local_cols = mod;
  l->counted    = PETSC_FALSE;
  l->bs         = PetscMax(img->req.bs, 1);
  if (l->bs > 1) { /* the block layout: natural order, sh block rows per slice */
    PetscCheck(square && m % l->bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The block layout of a mod-SELL image needs a square block of whole %" PetscInt_FMT " x %" PetscInt_FMT " blocks: this one is %" PetscInt_FMT " x %" PetscInt_FMT, l->bs, l->bs, m, n);
    PetscCall(PetscFree(img->perm));
    l->sh           = MSBlockSliceHeight(img->req.sh, l->bs);
    l->applied      = MATMODSELL_ORDERING_NATURAL;
    l->brick[0]     = l->brick[1] = l->brick[2] = 0;
    img->nat_local  = img->nat_off = -1;
    img->nat_stride = 1;
    img->nat_span = img->nat_nspan = 0;
    img->nat_windowed               = PETSC_FALSE;
    img->partition = img->bricks = PETSC_FALSE;
    img->psh                      = l->sh;
    l->nslices                    = (m / l->bs + l->sh - 1) / l->sh;
    img->built                    = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MSImageOrderingPrepare(img, A)); /* the slice height and the ordering applied, the permutation */
  l->nslices = (m + l->sh - 1) / l->sh;
  img->built = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageSetUp(MSImage img, Mat A, const MSImageOps *ops)
{
  PetscObjectId    id;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!img->built || img->id != id || img->nzstate != A->nonzerostate) {
    PetscCall(MSImagePrepare(img, A));
    img->id        = id;
    img->nzstate   = A->nonzerostate;
    img->hoststate = -1;
    img->devstate  = -1;
  }
  PetscCall((*ops->setup)(img, A, state));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetLayout(MSImage img, const MSImageLayout **l)
{
  PetscFunctionBegin;
  *l = &img->lay;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageDeviceValuesStale(MSImage img, Mat A, PetscBool *stale)
{
  PetscObjectId    id;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  *stale = (PetscBool)(img->built && img->dev_pattern && img->id == id && img->nzstate == A->nonzerostate && img->devstate != state);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageDevicePatternCurrent(MSImage img, Mat A, PetscBool *cur)
{
  PetscObjectId id;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  *cur = (PetscBool)(img->built && img->dev_pattern && img->id == id && img->nzstate == A->nonzerostate);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetInfo(MSImage img, MatModSELLInfo *info)
{
  const MSImageLayout *l = &img->lay;

  PetscFunctionBegin;
  PetscCheck(l->counted, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The image has not been built");
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->slice_height           = l->sh;
  info->slice_height_min       = l->sh;
  info->nslices                = l->nslices;
  info->nslots                 = l->nslots;
  info->noffdiag               = l->noffdiag;
  info->nlocal                 = l->nlocal;
  info->max_width              = l->maxwidth;
  info->padding_ratio          = l->noffdiag ? (PetscReal)l->nslots / (PetscReal)l->noffdiag : 1.0;
  info->local_fraction         = l->noffdiag ? (PetscReal)l->nlocal / (PetscReal)l->noffdiag : 0.0;
  info->device_bytes           = img->dev_bytes;
  info->ordering               = l->applied;
  info->natural_local_fraction = img->nat_off > 0 ? (PetscReal)img->nat_local / (PetscReal)img->nat_off : (img->nat_off == 0 ? 1.0 : -1.0);
  info->permute_bytes          = img->pb_bytes;
  info->natural_local_stride   = img->nat_stride;
  info->row_lanes              = MSImageRowLanes(img);
  info->natural_window         = img->nat_nspan > 0 ? (PetscReal)img->nat_span / (PetscReal)img->nat_nspan : -1.0;
  info->natural_windowed       = img->nat_windowed;
  info->row_lanes_min          = info->row_lanes;
  info->block_size             = l->bs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageEnsureStats(MSImage img, Mat A)
{
  PetscObjectId id;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  if (img->built && img->lay.counted && img->id == id && img->nzstate == A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageSetUp(img, A, &MSImageOps_Reference));
  PetscFunctionReturn(PETSC_SUCCESS);
}
