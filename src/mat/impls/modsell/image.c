/*
   The mod-SELL image of a sequential AIJ block: construction from CSR, value-only refresh,
   the host (reference) SpMV and the device copy. See include/petscmodsell/private/modsellimpl.h.
*/
#include <petscmodsell/private/localityimpl.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <petscmodsell/private/modsellcuda.h>
#endif

PetscLogEvent MATMODSELL_ImageBuild = 0, MATMODSELL_ImageValues = 0, MATMODSELL_Upload = 0, MATMODSELL_View = 0, MATMODSELL_Graph = 0;

PetscErrorCode MSCheckSliceHeight(MPI_Comm comm, PetscInt sh)
{
  PetscFunctionBegin;
  PetscCheck(sh >= 32 && sh <= 1024 && sh % 32 == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Invalid MATMODSELL slice height %" PetscInt_FMT ": it must be a multiple of 32 (the warp size) between 32 and 1024 (the largest CUDA thread block)", sh);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageCreate(MSImage *img)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(img));
  (*img)->sh         = MS_SLICE_HEIGHT_DEFAULT;
  (*img)->sh_asked   = MS_SLICE_HEIGHT_DEFAULT;
  (*img)->diag_apart = PETSC_TRUE;
  (*img)->local_cols = PETSC_TRUE;
  (*img)->ordering   = MATMODSELL_ORDERING_NATURAL;
  (*img)->applied    = MATMODSELL_ORDERING_NATURAL;
  (*img)->nat_local  = -1;
  (*img)->nat_off    = -1;
  (*img)->nat_stride = 1;
  (*img)->permute_chunk = MS_PERMUTE_CHUNK_DEFAULT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drop the arrays of the bucketed permuted product (the image stays) */
static PetscErrorCode MSImageFreePermBuckets(MSImage img)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (img->d_pbuckets) PetscCallCUDA(cudaFree(img->d_pbuckets));
  if (img->d_pbcols) PetscCallCUDA(cudaFree(img->d_pbcols));
#endif
  img->d_pbuckets = NULL;
  img->d_pbcols   = NULL;
  img->dev_bytes -= img->pb_bytes;
  img->pb_bytes    = 0;
  img->pb_ready    = PETSC_FALSE;
  img->pb_nbuckets = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the image's device arrays, the bucket arrays included */
static PetscErrorCode MSImageFreeDevice(MSImage img)
{
  PetscFunctionBegin;
  PetscCall(MSImageFreePermBuckets(img));
#if defined(PETSC_HAVE_CUDA)
  void **p[] = {&img->d_sliceptr, &img->d_cols, &img->d_vals, &img->d_diag, &img->d_perm, &img->d_csr2slot, &img->d_csrvals, &img->d_xwork, &img->d_iperm, &img->d_nzslices};
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(p); i++) {
    if (*p[i]) PetscCallCUDA(cudaFree(*p[i]));
    *p[i] = NULL;
  }
#endif
  img->dev_bytes   = 0;
  img->dev_pattern = PETSC_FALSE;
  img->nnzslices   = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageFreeHost(MSImage img)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(img->sliceptr));
  PetscCall(PetscFree(img->cols));
  PetscCall(PetscFree(img->vals));
  PetscCall(PetscFree(img->diag));
  PetscCall(PetscFree(img->csr2slot));
  PetscCall(PetscFree(img->hperm32));
  PetscCall(PetscFree(img->xwork));
  img->host_pattern = PETSC_FALSE;
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

PetscErrorCode MSImageSetSliceHeight(MSImage img, PetscInt sh)
{
  PetscFunctionBegin;
  PetscCall(MSImageSetSliceHeightAuto(img, sh, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slice height of the partition ordering when the one asked for is a default: its blocks of
   MS_SLICE_HEIGHT_PARTITION rows under a slice-based preconditioner, else slices of MS_SLICE_HEIGHT_SLICE_PC rows
   (halves of the blocks) */
static inline PetscInt MSImagePartitionSliceHeight(PetscInt asked, PetscBool slice_pc)
{
  return PetscMax(asked, slice_pc ? MS_SLICE_HEIGHT_PARTITION : MS_SLICE_HEIGHT_SLICE_PC);
}

/* The slice height asked for; with automatic, a default the partition ordering replaces (MSImagePartitionSliceHeight()).
   A partitioned image whose height was automatic is kept when another default is asked and its slices stay what that
   default gives; else it is made again (a slice-based preconditioner on an image built at assembly: slices of 512
   become its blocks of 1024), from the same partition (MSImagePrepare() keeps it). */
PetscErrorCode MSImageSetSliceHeightAuto(MSImage img, PetscInt sh, PetscBool automatic)
{
  PetscFunctionBegin;
  PetscCall(MSCheckSliceHeight(PETSC_COMM_SELF, sh));
  if (img->sh_asked == sh && img->sh_auto == automatic) PetscFunctionReturn(PETSC_SUCCESS);
  if (!(img->built && automatic && img->sh_auto && img->applied == MATMODSELL_ORDERING_PARTITION && img->sh == MSImagePartitionSliceHeight(sh, img->slice_pc))) img->built = PETSC_FALSE;
  img->sh_asked = sh;
  img->sh_auto  = automatic;
  if (!img->built) img->sh = sh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageSetRowLanes(MSImage img, PetscInt lanes)
{
  PetscFunctionBegin;
  PetscCheck(lanes >= 0 && lanes <= 32 && !(lanes & (lanes - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid MATMODSELL row lanes %" PetscInt_FMT ": give 0 (automatic) or a power of two from 1 to 32 threads per row", lanes);
  img->lanes_asked = lanes; /* the layout does not change: the next product launches differently */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Threads summing one row in the product: the one asked for, or the rule of MS_ROW_LANES_THREADS (modsellimpl.h); 1
   before the image is built. A function of the image's shape only: host and device products of an image add in the
   same order. */
PetscInt MSImageRowLanes(MSImage img)
{
  PetscInt k = 1;

  if (img->lanes_asked > 0) return img->lanes_asked;
  if (img->nslices > 0 && img->nslots > 0) {
    const double w = (double)img->nslots / ((double)img->nslices * (double)img->sh);
    while (2 * k <= 32 && 2 * k * img->sh <= 1024 && w >= (double)(MS_ROW_LANES_SLOTS * 2 * k) && (double)img->m * (double)(2 * k) <= (double)MS_ROW_LANES_THREADS) k *= 2;
  }
  return k;
}

PetscErrorCode MSImageSetPermuteChunk(MSImage img, PetscInt chunk, PetscBool recode)
{
  PetscFunctionBegin;
  PetscCheck(chunk >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid MATMODSELL permute chunk %" PetscInt_FMT ": it must be 0 (separate gathers) or a positive number of rows", chunk);
  if (img->permute_chunk != chunk || img->permute_recode != recode) {
    PetscCall(MSImageFreePermBuckets(img));
    img->permute_chunk  = chunk;
    img->permute_recode = recode;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATMODSELL_ORDERING_BRICKS: the brick of about sh rows (bx x by x bz points of dof rows) for a box of
   nx x ny x nz points: starting from 1 x 1 x 1, the smallest extent (x first) is doubled while the brick
   stays within the box and within sh rows */
PetscErrorCode MSImageBrickSize(const PetscInt box[4], PetscInt sh, PetscInt brick[3])
{
  const PetscInt pts = PetscMax(1, sh / PetscMax(1, box[3]));

  PetscFunctionBegin;
  brick[0] = brick[1] = brick[2] = 1;
  for (;;) {
    PetscInt best = -1;
    for (PetscInt d = 0; d < 3; d++)
      if (2 * brick[d] <= box[d] && 2 * brick[0] * brick[1] * brick[2] <= pts && (best < 0 || brick[d] < brick[best])) best = d;
    if (best < 0) break;
    brick[best] *= 2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the bricks ordering applies to this block: check the box, choose the brick */
static PetscErrorCode MSImageBricksCheck(MSImage img)
{
  const PetscInt nx = img->box[0], ny = img->box[1], nz = img->box[2], dof = img->box[3];

  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0 && nz > 0 && dof > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MATMODSELL ordering bricks needs the grid of a DMDA: create the matrix with DMCreateMatrix() on a DMDA, or use -mat_modsell_ordering natural or rcm");
  PetscCheck(nx * ny * nz * dof == img->m, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATMODSELL ordering bricks: the DMDA box of this process (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points, %" PetscInt_FMT " dof) does not have the matrix's %" PetscInt_FMT " local rows; use -mat_modsell_ordering natural or rcm", nx, ny, nz, dof, img->m);
  PetscCall(MSImageBrickSize(img->box, img->sh, img->brick));
  img->bricks = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* perm (new -> old) of the bricks ordering: bricks in lexicographic order (x fastest), the points of a brick
   lexicographically, the dof of a point together; local row of point (i, j, k), component c:
   ((k ny + j) nx + i) dof + c (DMDA's ordering of a process's box). The host copy is made when a host path
   needs it; the device path computes the same with MSCUDABricksPerm() */
static PetscErrorCode MSImageEnsureHostPerm(MSImage img)
{
  const PetscInt nx = img->box[0], ny = img->box[1], nz = img->box[2], dof = img->box[3], *b = img->brick;
  PetscInt       r = 0;

  PetscFunctionBegin;
  if (img->perm || !(img->bricks || img->partition)) PetscFunctionReturn(PETSC_SUCCESS);
  if (img->partition) { /* computed on the device: a copy */
#if defined(PETSC_HAVE_CUDA)
    int *p;
    PetscCheck(img->d_perm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The partition ordering has not been computed");
    PetscCall(PetscMalloc1(img->m, &img->perm));
    p = sizeof(PetscInt) == sizeof(int) ? (int *)img->perm : NULL;
    if (!p) PetscCall(PetscMalloc1(img->m, &p));
    PetscCallCUDA(cudaMemcpy(p, img->d_perm, (size_t)img->m * sizeof(int), cudaMemcpyDeviceToHost));
    if (p != (int *)img->perm) {
      for (PetscInt r = 0; r < img->m; r++) img->perm[r] = p[r];
      PetscCall(PetscFree(p));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "The partition ordering has not been computed");
#endif
  }
  PetscCall(PetscMalloc1(img->m, &img->perm));
  for (PetscInt kb = 0; kb < nz; kb += b[2])
    for (PetscInt jb = 0; jb < ny; jb += b[1])
      for (PetscInt ib = 0; ib < nx; ib += b[0])
        for (PetscInt k = kb; k < PetscMin(kb + b[2], nz); k++)
          for (PetscInt j = jb; j < PetscMin(jb + b[1], ny); j++)
            for (PetscInt i = ib; i < PetscMin(ib + b[0], nx); i++)
              for (PetscInt c = 0; c < dof; c++) img->perm[r++] = ((k * ny + j) * nx + i) * dof + c;
  PetscCheck(r == img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bricks ordering covers %" PetscInt_FMT " of %" PetscInt_FMT " rows", r, img->m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATMODSELL_ORDERING_AUTO for a square block of more than one slice: bricks for a DMDA block under a slice-based
   preconditioner; else natural when the fraction of the off-diagonal entries that lie in their row's slice in the
   matrix's own order is at least MS_AUTO_LOCAL above what a random numbering gives (about sh/m: small blocks, where
   a slice is a good part of the block, are not taken for local by chance; at most 50%): a numbered
   mesh, whose slices are already compact and whose product reads x in order; else partition (a randomly numbered
   mesh). The statistic is one pass over the CSR column indices of every slice, or, above MS_AUTO_SAMPLE slices, of
   one slice in k, evenly spaced (at least MS_AUTO_SAMPLE / 2 slices): the full pass cost a core 37 ms per 28.5 M
   entries (the 4.1 M-cell demo matrix), on the setup's critical path, for a fraction whose sampling error over a
   thousand slices is far below the margin of the choice.
   Without a slice-based preconditioner the image serves the product alone, and a slice whose columns are few in its
   slice but all near it (a lexicographic 3D grid with n^2 > sh, a 27-point stencil, several fields per point) reads x
   from a window the caches hold: natural too when the sampled slices' columns span on average at most m /
   MS_AUTO_WINDOW rows (a random numbering spans about m). H100, 2026-11-25 (docs/results/2026-11-25-h100-wide-rows): 27-point Laplacian
   160^3 natural 0.485 ms against 0.633 ms partitioned; 3 fields on 110^3 points 1.369 against 1.634 ms. */
#define MS_AUTO_LOCAL  0.15
#define MS_AUTO_SAMPLE 2048
#define MS_AUTO_WINDOW 8
static PetscErrorCode MSImageChooseOrdering(MSImage img, PetscInt m, const PetscInt *ai, const PetscInt *aj)
{
  const PetscInt sh = img->sh, nslices = (m + sh - 1) / sh;
  PetscInt       stride = nslices > MS_AUTO_SAMPLE ? nslices / (MS_AUTO_SAMPLE / 2) : 1;
  PetscInt64     loc, off, span, nspan;

  PetscFunctionBegin;
  for (;;) {
    loc = off = span = nspan = 0;
    for (PetscInt first = 0; first < m; first += stride * sh) {
      const PetscInt last = PetscMin(first + sh, m);
      PetscInt       cmin = PETSC_INT_MAX, cmax = -1;
      for (PetscInt r = first; r < last; r++) {
        for (PetscInt e = ai[r]; e < ai[r + 1]; e++) {
          const PetscInt c = aj[e];
          if (c == r) continue;
          off++;
          loc += (c >= first && c < last);
          cmin = PetscMin(cmin, c);
          cmax = PetscMax(cmax, c);
        }
      }
      if (cmax >= 0) { /* the rows the slice's columns span, its own included */
        span += PetscMax(cmax, last - 1) - PetscMin(cmin, first) + 1;
        nspan++;
      }
    }
    if (off > 0 || stride == 1) break;
    stride = 1; /* the sampled slices have no off-diagonal entry: count them all */
  }
  img->nat_local    = loc;
  img->nat_off      = off;
  img->nat_stride   = stride;
  img->nat_span     = span;
  img->nat_nspan    = nspan;
  img->nat_windowed = PETSC_FALSE;
  if (img->slice_pc && img->box[0] > 0 && img->box[0] * img->box[1] * img->box[2] * img->box[3] == m) img->applied = MATMODSELL_ORDERING_BRICKS;
  else if (off == 0 || (PetscReal)loc >= PetscMin(MS_AUTO_LOCAL + (PetscReal)sh / (PetscReal)m, 0.5) * (PetscReal)off) img->applied = MATMODSELL_ORDERING_NATURAL;
  else if (!img->slice_pc && nspan > 0 && (PetscReal)span <= (PetscReal)nspan * (PetscReal)m / MS_AUTO_WINDOW) {
    img->applied      = MATMODSELL_ORDERING_NATURAL;
    img->nat_windowed = PETSC_TRUE;
  } else img->applied = MATMODSELL_ORDERING_PARTITION;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new pattern (or new settings): forget both images, set sizes and flags, compute the permutation */
static PetscErrorCode MSImagePrepare(MSImage img, Mat A)
{
  PetscInt        m, n, nrow;
  const PetscInt *ai, *aj;
  PetscBool       done, square;
  PetscObjectId   id;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  /* a partition computed on the device is kept on the host through the rebuild: only a new pattern or block height
     makes it again (below), not a new slice height (a slice-based preconditioner's) */
  if (img->partition && img->d_perm && !img->perm && img->perm_id == id && img->perm_nzstate == A->nonzerostate) PetscCall(MSImageEnsureHostPerm(img));
  PetscCall(MSImageFreeHost(img));
  PetscCall(MSImageFreeDevice(img));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCheck(n < PETSC_INT32_MAX && m < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATMODSELL stores row and column indices as 32-bit integers: this block is %" PetscInt_FMT " x %" PetscInt_FMT ", at most %d x %d fits; distribute the matrix over more MPI processes", m, n, PETSC_INT32_MAX - 1, PETSC_INT32_MAX - 1);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the CSR structure of a matrix of type %s: the mod-SELL image needs a SeqAIJ-family matrix", ((PetscObject)A)->type_name);
  PetscCheck(nrow == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row count mismatch");
  img->nnz = ai[m];
  img->sh  = img->sh_asked;
  square   = (PetscBool)(m == n);
  img->applied   = square ? img->ordering : MATMODSELL_ORDERING_NATURAL;
  img->nat_local = img->nat_off = -1;
  img->nat_stride = 1;
  if (img->ordering == MATMODSELL_ORDERING_AUTO) {
    if (square && m > img->sh) PetscCall(MSImageChooseOrdering(img, m, ai, aj));
    else img->applied = MATMODSELL_ORDERING_NATURAL;
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  /* the partition's compact blocks of MS_SLICE_HEIGHT_PARTITION rows are PCBJSMOOTH's default blocks; alone, the image
     takes halves of them (as fast a product as slices of 128 on a randomly numbered mesh: H100, docs/locality.md) */
  if (img->sh_auto && img->applied == MATMODSELL_ORDERING_PARTITION && square) img->sh = MSImagePartitionSliceHeight(img->sh_asked, img->slice_pc);
  img->psh = img->sh_auto ? MS_SLICE_HEIGHT_PARTITION : img->sh;
  img->m       = m;
  img->n       = n;
  img->nslices = (m + img->sh - 1) / img->sh;
  img->dapart  = (PetscBool)(img->diag_apart && square);
  img->local   = (PetscBool)(img->local_cols && square);
  img->stats   = PETSC_FALSE;
  {
    /* the RCM permutation depends only on the pattern, the partition's also on its block height (not on the slice
       height): keep it when only other settings changed */
    if (img->perm && (img->applied != img->perm_ordering || (img->applied != MATMODSELL_ORDERING_RCM && img->applied != MATMODSELL_ORDERING_PARTITION) || (img->applied == MATMODSELL_ORDERING_PARTITION && img->perm_sh != img->psh) || !square || img->perm_id != id || img->perm_nzstate != A->nonzerostate)) PetscCall(PetscFree(img->perm));
    img->perm_id       = id;
    img->perm_nzstate  = A->nonzerostate;
    img->perm_ordering = img->applied;
    img->perm_sh       = img->psh;
  }
  if (img->applied == MATMODSELL_ORDERING_RCM && square && m > 1 && !img->perm) {
    IS              rp, cp;
    const PetscInt *idx;

    PetscCall(MatGetOrdering(A, MATORDERINGRCM, &rp, &cp));
    PetscCall(PetscMalloc1(m, &img->perm));
    PetscCall(ISGetIndices(rp, &idx));
    PetscCall(PetscArraycpy(img->perm, idx, m));
    PetscCall(ISRestoreIndices(rp, &idx));
    PetscCall(ISDestroy(&rp));
    PetscCall(ISDestroy(&cp));
  }
  /* the partition (compact blocks of one slice each) is computed by the first build, host or device */
  img->partition = (PetscBool)(img->applied == MATMODSELL_ORDERING_PARTITION && square && m > 1);
  img->bricks    = PETSC_FALSE;
  if (img->applied == MATMODSELL_ORDERING_BRICKS && square && m > 0) PetscCall(MSImageBricksCheck(img));
  img->built = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageInversePerm(MSImage img, PetscInt **iperm)
{
  PetscFunctionBegin;
  *iperm = NULL;
  PetscCall(MSImageEnsureHostPerm(img));
  if (!img->perm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(img->m, iperm));
  for (PetscInt r = 0; r < img->m; r++) {
    PetscCheck(img->perm[r] >= 0 && img->perm[r] < img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Invalid row permutation");
    (*iperm)[img->perm[r]] = r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host build of pattern and values from the host CSR */
static PetscErrorCode MSImageBuildHost(MSImage img, Mat A)
{
  const PetscInt     sh = img->sh, m = img->m, nslices = img->nslices;
  const PetscBool    dapart = img->dapart, local = img->local;
  PetscInt          *iperm, maxw = 0, nrow;
  PetscInt64         noff = 0, nlocal = 0;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscCall(MSImageFreeHost(img));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(MSImageInversePerm(img, &iperm));

  /* slice widths: off-diagonal entries per row (the diagonal stored apart when dapart) */
  PetscCall(PetscMalloc1(nslices + 1, &img->sliceptr));
  img->sliceptr[0] = 0;
  for (PetscInt s = 0; s < nslices; s++) {
    PetscInt w = 0;
    for (PetscInt r = s * sh; r < PetscMin(m, (s + 1) * sh); r++) {
      const PetscInt o = img->perm ? img->perm[r] : r;
      PetscInt       c = ai[o + 1] - ai[o];
      if (dapart) {
        for (PetscInt e = ai[o]; e < ai[o + 1]; e++)
          if (aj[e] == o) {
            c--;
            break;
          }
      }
      w = PetscMax(w, c);
    }
    maxw                 = PetscMax(maxw, w);
    img->sliceptr[s + 1] = img->sliceptr[s] + (PetscInt64)w * sh;
  }
  img->nslots = img->sliceptr[nslices];
  PetscCall(PetscCalloc1(img->nslots, &img->cols));
  PetscCall(PetscCalloc1(img->nslots, &img->vals));
  if (dapart) PetscCall(PetscCalloc1(m, &img->diag));

  for (PetscInt s = 0; s < nslices; s++) {
    const PetscInt first = s * sh;
    for (PetscInt r = first; r < PetscMin(m, first + sh); r++) {
      const PetscInt o = img->perm ? img->perm[r] : r;
      PetscInt       k = 0;
      for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
        const PetscInt c = aj[e];
        if (dapart && c == o) img->diag[r] = aa[e];
        else {
          const PetscInt64 slot = img->sliceptr[s] + (PetscInt64)k * sh + (r - first);
          const PetscInt   cp   = iperm ? iperm[c] : c; /* the column in the image numbering */
          k++;
          noff++;
          if (local && cp >= first && cp < first + sh) {
            img->cols[slot] = -(int)(cp - first) - 1;
            nlocal++;
          } else img->cols[slot] = (int)(cp + 1);
          img->vals[slot] = aa[e];
        }
      }
    }
  }
  PetscCall(PetscFree(iperm));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  img->noffdiag     = noff;
  img->nlocal       = nlocal;
  img->maxwidth     = maxw;
  img->stats        = PETSC_TRUE;
  img->host_pattern = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* csr2slot: for CSR entry e the slot (>= 0) or -(r+1) for the diagonal of image row r */
static PetscErrorCode MSImageBuildMapHost(MSImage img, Mat A)
{
  const PetscInt  sh = img->sh, m = img->m;
  const PetscInt *ai, *aj;
  PetscInt        nrow;
  PetscBool       done;

  PetscFunctionBegin;
  if (img->csr2slot) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageEnsureHostPerm(img));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCall(PetscMalloc1(img->nnz, &img->csr2slot));
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt   s = r / sh, t = r - s * sh, o = img->perm ? img->perm[r] : r;
    const PetscInt64 beg = img->sliceptr ? img->sliceptr[s] : 0;
    PetscInt         k   = 0;
    for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
      if (img->dapart && aj[e] == o) img->csr2slot[e] = -(PetscInt64)(r + 1);
      else img->csr2slot[e] = beg + (PetscInt64)(k++) * sh + t;
    }
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageRefreshHostValues(MSImage img, Mat A)
{
  const PetscScalar *aa;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageValues, A, 0, 0, 0));
  PetscCall(MSImageBuildMapHost(img, A));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  for (PetscInt e = 0; e < img->nnz; e++) {
    const PetscInt64 s = img->csr2slot[e];
    if (s >= 0) img->vals[s] = aa[e];
    else img->diag[-s - 1] = aa[e];
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageValues, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode MSImageUploadPerm(MSImage img, cudaStream_t stream)
{
  PetscFunctionBegin;
  if ((img->perm || img->bricks) && img->m && !img->d_perm) { /* (a partition not yet on the host is computed by the device build) */
    PetscCall(MSDeviceMalloc(&img->d_perm, (size_t)img->m * sizeof(int), "the row permutation of the mod-SELL image"));
    img->dev_bytes += (size_t)img->m * sizeof(int);
    if (!img->perm) { /* bricks, not needed on the host so far: computed on the device */
      PetscCallCUDA((cudaError_t)MSCUDABricksPerm((int)img->m, (int)img->box[0], (int)img->box[1], (int)img->box[2], (int)img->box[3], (int)img->brick[0], (int)img->brick[1], (int)img->brick[2], (int *)img->d_perm, NULL, stream));
    } else if (sizeof(PetscInt) == sizeof(int)) {
      PetscCall(MSCopyHostToDevice(img->d_perm, img->perm, (size_t)img->m * sizeof(int), stream));
    } else {
      int *p;
      PetscCall(PetscMalloc1(img->m, &p));
      for (PetscInt r = 0; r < img->m; r++) p[r] = (int)img->perm[r];
      PetscCallCUDA(cudaMemcpyAsync(img->d_perm, p, (size_t)img->m * sizeof(int), cudaMemcpyHostToDevice, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream));
      PetscCall(PetscFree(p));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fallback for 64-bit indices: copy the host image to the device */
static PetscErrorCode MSImageUploadHost(MSImage img, Mat A, cudaStream_t stream)
{
  const size_t nsp = (size_t)img->nslices + 1, ns = (size_t)img->nslots, m = (size_t)img->m;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_Upload, A, 0, 0, 0));
  PetscCall(MSDeviceMalloc(&img->d_sliceptr, nsp * sizeof(long long), "the slice pointers of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_cols, PetscMax(ns, 1) * sizeof(int), "the column codes of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_vals, PetscMax(ns, 1) * sizeof(double), "the values of the mod-SELL image"));
  img->dev_bytes += nsp * sizeof(long long) + ns * (sizeof(int) + sizeof(double));
  PetscCallCUDA(cudaMemcpyAsync(img->d_sliceptr, img->sliceptr, nsp * sizeof(long long), cudaMemcpyHostToDevice, stream));
  if (ns) {
    PetscCall(MSCopyHostToDevice(img->d_cols, img->cols, ns * sizeof(int), stream));
    PetscCall(MSCopyHostToDevice(img->d_vals, img->vals, ns * sizeof(double), stream));
  }
  if (img->diag && m) {
    PetscCall(MSDeviceMalloc(&img->d_diag, m * sizeof(double), "the diagonal of the mod-SELL image"));
    PetscCallCUDA(cudaMemcpyAsync(img->d_diag, img->diag, m * sizeof(double), cudaMemcpyHostToDevice, stream));
    img->dev_bytes += m * sizeof(double);
  }
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)img->dev_bytes));
  PetscCall(PetscLogEventEnd(MATMODSELL_Upload, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR of A on the device (32-bit indices): A's own device arrays when it has them (aijcusparse),
   else temporary copies of the host arrays (freed with MSCSRDeviceRestore) */
typedef struct {
  const int    *ai, *aj;
  const double *aa;
  void         *tmp[3];
} MSCSRDevice;

/* Always from the host CSR: a device matrix's own device CSR may be row-compressed (cuSPARSE stores
   off-diagonal blocks that way), while the image needs every row */
static PetscErrorCode MSCSRDeviceGet(MSImage img, Mat A, PetscBool needvals, cudaStream_t stream, MSCSRDevice *csr)
{
  const PetscInt    *i, *j;
  const PetscScalar *a = NULL;
  PetscInt           nrow;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(csr, sizeof(*csr)));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &i, &j, &done));
  PetscCheck(done && nrow == img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the CSR structure");
  if (needvals) PetscCall(MatSeqAIJGetArrayRead(A, &a));
  {
    const size_t m1 = (size_t)img->m + 1, nnz = (size_t)img->nnz;
    PetscCall(PetscLogEventBegin(MATMODSELL_Upload, A, 0, 0, 0));
    PetscCall(MSDeviceMallocAsync(&csr->tmp[0], m1 * sizeof(int), "a copy of the CSR row pointers", stream));
    PetscCall(MSDeviceMallocAsync(&csr->tmp[1], PetscMax(nnz, 1) * sizeof(int), "a copy of the CSR column indices", stream));
    if (needvals) PetscCall(MSDeviceMallocAsync(&csr->tmp[2], PetscMax(nnz, 1) * sizeof(double), "a copy of the CSR values", stream));
    PetscCall(MSCopyHostToDevice(csr->tmp[0], i, m1 * sizeof(int), stream));
    PetscCall(MSCopyHostToDevice(csr->tmp[1], j, nnz * sizeof(int), stream));
    if (needvals) PetscCall(MSCopyHostToDevice(csr->tmp[2], a, nnz * sizeof(double), stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(m1 * sizeof(int) + nnz * (sizeof(int) + (needvals ? sizeof(double) : 0)))));
    PetscCall(PetscLogEventEnd(MATMODSELL_Upload, A, 0, 0, 0));
    csr->ai = (const int *)csr->tmp[0];
    csr->aj = (const int *)csr->tmp[1];
    csr->aa = (const double *)csr->tmp[2];
  }
  /* the copies have read the host arrays when MSCopyHostToDevice returns: they may be released now */
  if (needvals) PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &i, &j, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSCSRDeviceRestore(MSCSRDevice *csr, cudaStream_t stream)
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++)
    if (csr->tmp[k]) PetscCallCUDA(cudaFreeAsync(csr->tmp[k], stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool MSImageDeviceBuildable(MSImage img)
{
  return (PetscBool)(sizeof(PetscInt) == sizeof(int) && img->nnz < PETSC_INT32_MAX);
}

/* Device build: widths, prefix sum and fill run on the GPU */
static PetscErrorCode MSImageBuildDevice(MSImage img, Mat A)
{
  cudaStream_t        stream;
  MSCSRDevice         csr;
  unsigned long long *d_stats, stats[3];
  const size_t        m = (size_t)img->m;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MSImageFreeDevice(img));
  PetscCall(MSImageUploadPerm(img, stream));
  if (img->d_perm) { /* old -> new, on the device: column codes are in the image numbering, products come back through it */
    PetscCall(MSDeviceMalloc(&img->d_iperm, m * sizeof(int), "the inverse row permutation of the mod-SELL image"));
    img->dev_bytes += m * sizeof(int);
    PetscCallCUDA((cudaError_t)MSCUDAInversePerm((int)m, (const int *)img->d_perm, (int *)img->d_iperm, stream));
  }
  if (!MSImageDeviceBuildable(img)) { /* the caller brought the host image up to date */
    PetscCall(MSImageUploadHost(img, A, stream));
    img->dev_pattern = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MSCSRDeviceGet(img, A, PETSC_TRUE, stream, &csr));
  if (img->partition && !img->d_perm) { /* the partition ordering, on the device, with its inverse */
    PetscCall(MSDeviceMalloc(&img->d_perm, m * sizeof(int), "the row permutation of the mod-SELL image"));
    PetscCall(MSDeviceMalloc(&img->d_iperm, m * sizeof(int), "the inverse row permutation of the mod-SELL image"));
    img->dev_bytes += 2 * m * sizeof(int);
    PetscCall(MSLocalityPerm(&MSLocalityKernels_CUDA, img->m, csr.ai, csr.aj, csr.aa, img->psh, (int *)img->d_perm, (int *)img->d_iperm, stream));
  }
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscCall(MSDeviceMalloc(&img->d_sliceptr, ((size_t)img->nslices + 1) * sizeof(long long), "the slice pointers of the mod-SELL image"));
  PetscCall(MSDeviceMallocAsync((void **)&d_stats, 3 * sizeof(unsigned long long), "the image statistics", stream));
  PetscCallCUDA(cudaMemsetAsync(d_stats, 0, 3 * sizeof(unsigned long long), stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDABuildSlicePtr((int)img->m, (int)img->sh, (int)img->nslices, csr.ai, csr.aj, (const int *)img->d_perm, (int)img->dapart, (long long *)img->d_sliceptr, d_stats, stream));
  PetscCall(PetscLogGpuTimeEnd());
  {
    long long nslots;
    PetscCallCUDA(cudaMemcpyAsync(&nslots, (long long *)img->d_sliceptr + img->nslices, sizeof(long long), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaMemcpyAsync(stats, d_stats, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    img->nslots = nslots;
  }
  PetscCall(MSDeviceMalloc(&img->d_cols, PetscMax((size_t)img->nslots, 1) * sizeof(int), "the column codes of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_vals, PetscMax((size_t)img->nslots, 1) * sizeof(double), "the values of the mod-SELL image"));
  if (img->dapart && m) PetscCall(MSDeviceMalloc(&img->d_diag, m * sizeof(double), "the diagonal of the mod-SELL image"));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAFill((int)img->m, (int)img->sh, csr.ai, csr.aj, csr.aa, (const int *)img->d_perm, (const int *)img->d_iperm, (int)img->dapart, (int)img->local, (const long long *)img->d_sliceptr, 1, (int *)img->d_cols, (double *)img->d_vals, (double *)img->d_diag, NULL, d_stats, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaMemcpyAsync(stats, d_stats, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d_stats, stream));
  PetscCall(MSCSRDeviceRestore(&csr, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageBuild, A, 0, 0, 0));
  img->dev_bytes += ((size_t)img->nslices + 1) * sizeof(long long) + (size_t)img->nslots * (sizeof(int) + sizeof(double)) + (img->dapart ? m * sizeof(double) : 0);
  img->noffdiag    = (PetscInt64)img->nnz - (PetscInt64)stats[0];
  img->maxwidth    = (PetscInt)stats[1];
  img->nlocal      = (PetscInt64)stats[2];
  img->stats       = PETSC_TRUE;
  img->dev_pattern = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Only the values changed: scatter the CSR values (uploaded, or A's own device copy) into the slots */
static PetscErrorCode MSImageUploadValues(MSImage img, Mat A)
{
  cudaStream_t       stream;
  const size_t       nnz = (size_t)img->nnz;
  const PetscScalar *a;
  const double      *d_a;

  PetscFunctionBegin;
  if (!nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageValues, A, 0, 0, 0));
  if (!img->d_csr2slot) { /* the CSR -> slot map, built once per pattern */
    PetscCall(MSDeviceMalloc(&img->d_csr2slot, nnz * sizeof(long long), "the CSR-to-slot map of the mod-SELL image"));
    img->dev_bytes += nnz * sizeof(long long);
    if (MSImageDeviceBuildable(img)) {
      MSCSRDevice csr;
      PetscCall(MSCSRDeviceGet(img, A, PETSC_FALSE, stream, &csr));
      PetscCall(PetscLogGpuTimeBegin());
      PetscCallCUDA((cudaError_t)MSCUDAFill((int)img->m, (int)img->sh, csr.ai, csr.aj, NULL, (const int *)img->d_perm, NULL, (int)img->dapart, 0, (const long long *)img->d_sliceptr, 0, NULL, NULL, NULL, (long long *)img->d_csr2slot, NULL, stream));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(MSCSRDeviceRestore(&csr, stream));
    } else {
      PetscCall(MSImageBuildMapHost(img, A));
      PetscCall(MSCopyHostToDevice(img->d_csr2slot, img->csr2slot, nnz * sizeof(long long), stream));
      PetscCallCUDA(cudaStreamSynchronize(stream));
    }
  }
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  {
    if (!img->d_csrvals) {
      PetscCall(MSDeviceMalloc(&img->d_csrvals, nnz * sizeof(double), "the staging copy of the CSR values"));
      img->dev_bytes += nnz * sizeof(double);
    }
    /* returns once the host buffer has been read */
    PetscCall(MSCopyHostToDevice(img->d_csrvals, a, nnz * sizeof(double), stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)nnz * sizeof(double)));
    d_a = (const double *)img->d_csrvals;
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAScatterValues((long long)nnz, (const long long *)img->d_csr2slot, d_a, (double *)img->d_vals, (double *)img->d_diag, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageValues, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Host image of the current pattern with the values of object state 'state' */
static PetscErrorCode MSImageSetUpHost(MSImage img, Mat A, PetscObjectState state)
{
  PetscFunctionBegin;
  if (img->partition && !img->perm && !img->d_perm) { /* first built on the host */
    PetscCall(PetscMalloc1(img->m, &img->perm));
    PetscCall(MSLocalityPermHost(A, img->psh, img->perm));
  }
  PetscCall(MSImageEnsureHostPerm(img));
  if (!img->host_pattern) PetscCall(MSImageBuildHost(img, A));
  else if (img->hoststate != state) PetscCall(MSImageRefreshHostValues(img, A));
  img->hoststate = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageSetUp(MSImage img, Mat A, PetscMemType mtype)
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
  if (PetscMemTypeHost(mtype)) PetscCall(MSImageSetUpHost(img, A, state));
  else {
#if defined(PETSC_HAVE_CUDA)
    if (!img->dev_pattern) {
      /* 64-bit indices: the device image is a copy of the host image */
      if (!MSImageDeviceBuildable(img)) PetscCall(MSImageSetUpHost(img, A, state));
      PetscCall(MSImageBuildDevice(img, A));
      img->devstate = state;
    } else if (img->devstate != state) {
      PetscCall(MSImageUploadValues(img, A));
      img->devstate = state;
    }
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc was configured without CUDA: no device image");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageDeviceValuesStale(MSImage img, Mat A, PetscBool *stale)
{
  PetscFunctionBegin;
  *stale = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscObjectId    id;
    PetscObjectState state;

    PetscCall(PetscObjectGetId((PetscObject)A, &id));
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    *stale = (PetscBool)(img->built && img->dev_pattern && img->id == id && img->nzstate == A->nonzerostate && img->devstate != state);
  }
#else
  (void)img;
  (void)A;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* A's CSR columns and values on the device from the device image (set up: MSImageSetUp() with a device memory type),
   on PETSc's current stream, not waited for */
PetscErrorCode MSImageGetDeviceCSR(MSImage img, const int *ai, int *aj, double *aa)
{
  cudaStream_t stream;
  MSImageView  v;

  PetscFunctionBegin;
  PetscCall(MSImageGetView(img, PETSC_MEMTYPE_DEVICE, PETSC_FALSE, &v));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAImageCSR(&v, ai, aj, aa, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MSImageDevicePatternCurrent(MSImage img, Mat A, PetscBool *cur)
{
  PetscFunctionBegin;
  *cur = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscObjectId id;

    PetscCall(PetscObjectGetId((PetscObject)A, &id));
    *cur = (PetscBool)(img->built && img->dev_pattern && img->id == id && img->nzstate == A->nonzerostate);
  }
#else
  (void)img;
  (void)A;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetInfo(MSImage img, MatModSELLInfo *info)
{
  PetscFunctionBegin;
  PetscCheck(img->stats, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The image has not been built");
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->slice_height   = img->sh;
  info->slice_height_min = img->sh;
  info->nslices        = img->nslices;
  info->nslots         = img->nslots;
  info->noffdiag       = img->noffdiag;
  info->nlocal         = img->nlocal;
  info->max_width      = img->maxwidth;
  info->padding_ratio  = img->noffdiag ? (PetscReal)img->nslots / (PetscReal)img->noffdiag : 1.0;
  info->local_fraction = img->noffdiag ? (PetscReal)img->nlocal / (PetscReal)img->noffdiag : 0.0;
  info->device_bytes   = img->dev_bytes;
  info->ordering       = img->applied;
  info->natural_local_fraction = img->nat_off > 0 ? (PetscReal)img->nat_local / (PetscReal)img->nat_off : (img->nat_off == 0 ? 1.0 : -1.0);
  info->permute_bytes          = img->pb_bytes;
  info->natural_local_stride   = img->nat_stride;
  info->row_lanes              = MSImageRowLanes(img);
  info->natural_window         = img->nat_nspan > 0 ? (PetscReal)img->nat_span / (PetscReal)img->nat_nspan : -1.0;
  info->natural_windowed       = img->nat_windowed;
  info->row_lanes_min          = info->row_lanes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference kernel: the same arithmetic, in the same order, as ms_mult_kernel */
/* Statistics of the current pattern, building the host image only when no image exists */
PetscErrorCode MSImageEnsureStats(MSImage img, Mat A)
{
  PetscObjectId id;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  if (img->built && img->stats && img->id == id && img->nzstate == A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageSetUp(img, A, PETSC_MEMTYPE_HOST));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageMultHost(MSImage img, const PetscScalar *xu, const PetscScalar *yin, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(MSImageMultSignedHost(img, xu, yin, 1.0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageMultSignedHost(MSImage img, const PetscScalar *xu, const PetscScalar *yin, PetscScalar ys, PetscScalar *y)
{
  const PetscInt     sh = img->sh, m = img->m, K = MSImageRowLanes(img);
  const PetscBool    local = img->local;
  const PetscScalar *x     = xu;
  PetscScalar        xs[1024], sum1[1024], *sum = sum1;

  PetscFunctionBegin;
  PetscCheck(ys == 1.0 || ys == -1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The sign of the product must be 1 or -1, not %g", (double)PetscRealPart(ys));
  if (img->perm && m) { /* x in the image numbering: one gather (MSCUDAMult() does the same) */
    PetscScalar *xp;
    if (!img->xwork) PetscCall(PetscMalloc1(m, &img->xwork));
    xp = img->xwork;
    for (PetscInt r = 0; r < m; r++) xp[r] = xu[img->perm[r]];
    x = xp;
  }
  /* the partial sums of the K lanes of each row of a slice (lane j of row t at sum[j sh + t]), added as the GPU's
     shuffles add them (ms_mult_kernel) */
  if (K > 1) PetscCall(PetscMalloc1(K * sh, &sum));
  for (PetscInt s = 0; s < img->nslices; s++) {
    const PetscInt   first = s * sh, nr = PetscMin(sh, m - first);
    const PetscInt64 beg   = img->sliceptr[s];
    const PetscInt   w     = (PetscInt)((img->sliceptr[s + 1] - beg) / sh);

    for (PetscInt j = 1; j < K; j++)
      for (PetscInt t = 0; t < nr; t++) sum[j * sh + t] = 0.0;
    for (PetscInt t = 0; t < nr; t++) {
      const PetscScalar xr = (img->diag || local) ? x[first + t] : 0.0;
      if (local) xs[t] = xr;
      sum[t] = img->diag ? img->diag[first + t] * xr : 0.0;
    }
    for (PetscInt k = 0; k < w; k++) {
      const int         *cp = img->cols + beg + (PetscInt64)k * sh;
      const PetscScalar *vp = img->vals + beg + (PetscInt64)k * sh;
      PetscScalar       *sj = sum + (k % K) * sh;
      for (PetscInt t = 0; t < nr; t++) {
        const int   c  = cp[t];
        PetscScalar xv = 0.0;
        if (c < 0) xv = xs[-c - 1];
        else if (c > 0) xv = x[c - 1];
        sj[t] += vp[t] * xv;
      }
    }
    for (PetscInt off = K / 2; off > 0; off /= 2)
      for (PetscInt j = 0; j < off; j++)
        for (PetscInt t = 0; t < nr; t++) sum[j * sh + t] += sum[(j + off) * sh + t];
    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o = img->perm ? img->perm[first + t] : first + t;
      y[o]             = yin ? yin[o] + ys * sum[t] : sum[t];
    }
  }
  if (K > 1) PetscCall(PetscFree(sum));
  PetscCall(PetscLogFlops(PetscMax(0.0, 2.0 * (img->noffdiag + (img->dapart ? m : 0)) - (yin ? 0 : m))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetDiagonalHost(MSImage img, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCheck(img->diag || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Image has no separate diagonal");
  for (PetscInt r = 0; r < img->m; r++) d[img->perm ? img->perm[r] : r] = img->diag[r];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetView(MSImage img, PetscMemType mtype, PetscBool diag_block, MSImageView *v)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  v->m          = (int)img->m;
  v->n          = (int)img->n;
  v->sh         = (int)img->sh;
  v->nslices    = (int)img->nslices;
  v->local_cols = (int)img->local;
  v->diag_block = (int)(diag_block && img->m == img->n);
  v->lanes      = (int)MSImageRowLanes(img);
  if (PetscMemTypeHost(mtype)) {
    PetscCheck(img->host_pattern || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The host mod-SELL image is not set up (MSImageSetUp() with PETSC_MEMTYPE_HOST)");
    PetscCall(MSImageEnsureHostPerm(img));
    v->sliceptr = (const long long *)img->sliceptr;
    v->cols     = img->cols;
    v->vals     = img->vals;
    v->diag     = img->dapart ? img->diag : NULL;
    if (img->perm && sizeof(PetscInt) == sizeof(int)) v->perm = (const int *)img->perm;
    else if (img->perm) { /* 64-bit PetscInt: the kernels read 32-bit rows (m < 2^31 is checked at the build) */
      if (!img->hperm32) {
        PetscCall(PetscMalloc1(img->m, &img->hperm32));
        for (PetscInt r = 0; r < img->m; r++) img->hperm32[r] = (int)img->perm[r];
      }
      v->perm = img->hperm32;
    }
  } else {
#if defined(PETSC_HAVE_CUDA)
    PetscCheck(img->dev_pattern || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The device mod-SELL image is not set up (MSImageSetUp() with PETSC_MEMTYPE_DEVICE)");
    v->sliceptr = (const long long *)img->d_sliceptr;
    v->cols     = (const int *)img->d_cols;
    v->vals     = (const double *)img->d_vals;
    v->diag     = img->dapart ? (const double *)img->d_diag : NULL;
    v->perm     = (const int *)img->d_perm;
    v->iperm    = (const int *)img->d_iperm;
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "A device view of a mod-SELL image needs PETSc configured with CUDA");
#endif
  }
  v->perm_cols = (int)(v->perm != NULL); /* a permuted image's codes are in its numbering (MSImageBuildHost()) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The arrays of the bucketed permuted product (modsellcuda.h, MSPermBuckets) for the device image v of img: none with
   one bucket (chunk >= m), else px, qx, py, qy in one allocation; the recoded column codes when asked. On the stream,
   no synchronization (cudaMalloc aside) */
static PetscErrorCode MSImageSetUpPermBuckets(MSImage img, const MSImageView *v, cudaStream_t stream)
{
  const PetscInt m = img->m, chunk = PetscMin(img->permute_chunk, m), nb = (m + chunk - 1) / chunk;
  size_t         bytes = 0;
  const int     *qx    = v->perm;

  PetscFunctionBegin;
  PetscCall(MSImageFreePermBuckets(img));
  if (nb > 1) {
    int *px;
    PetscCall(MSDeviceMalloc(&img->d_pbuckets, 4 * (size_t)m * sizeof(int), "the bucketed permutation of the mod-SELL image (px, qx, py, qy)"));
    bytes += 4 * (size_t)m * sizeof(int);
    px = (int *)img->d_pbuckets;
    qx = px + m;
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCUDA((cudaError_t)MSCUDAPermBucketsBuild((int)m, (int)chunk, v->perm, v->iperm, px, px + m, px + 2 * m, px + 3 * m, stream));
    PetscCall(PetscLogGpuTimeEnd());
  }
  if (img->permute_recode) {
    PetscCall(MSDeviceMalloc(&img->d_pbcols, PetscMax((size_t)img->nslots, 1) * sizeof(int), "the recoded column codes of the mod-SELL image"));
    bytes += PetscMax((size_t)img->nslots, 1) * sizeof(int);
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCUDA((cudaError_t)MSCUDAPermBucketsRecode((long long)img->nslots, v->cols, qx, (int *)img->d_pbcols, stream));
    PetscCall(PetscLogGpuTimeEnd());
  }
  img->pb_nbuckets = nb;
  img->pb_bytes    = bytes;
  img->dev_bytes += bytes;
  img->pb_ready = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetPermBucketsDevice(MSImage img, const MSImageView *v, MSPermBuckets *pb, PetscBool *has)
{
  cudaStream_t stream;
  const int   *a;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(pb, sizeof(*pb)));
  *has = (PetscBool)(v->perm && img->permute_chunk > 0);
  if (!*has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(v->iperm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The device view of a permuted mod-SELL image has no inverse permutation");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!img->pb_ready) PetscCall(MSImageSetUpPermBuckets(img, v, stream));
  a            = (const int *)img->d_pbuckets;
  pb->chunk    = (int)PetscMin(img->permute_chunk, img->m);
  pb->nbuckets = (int)img->pb_nbuckets;
  if (a) {
    pb->px = a;
    pb->qx = a + img->m;
    pb->py = a + 2 * img->m;
    pb->qy = a + 3 * img->m;
  }
  pb->bcols = (const int *)img->d_pbcols;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slices with an entry, on the device: an MPI matrix's off-diagonal block has an entry in few rows (the rows with
   ghost couplings), and its in-place y += A x then launches a block for those slices only, not for the empty ones
   (16.7 M rows, 65536 of them with an entry: 0.08-0.095 ms per product on an H200, against 0.014 for aijcusparse) */
static PetscErrorCode MSImageSetUpNonzeroSlices(MSImage img, cudaStream_t stream)
{
  const PetscInt ns = img->nslices;
  long long     *sp;
  int           *list, k = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ns + 1, &sp, PetscMax(ns, 1), &list));
  PetscCallCUDA(cudaMemcpyAsync(sp, img->d_sliceptr, (size_t)(ns + 1) * sizeof(long long), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  for (PetscInt s = 0; s < ns; s++)
    if (sp[s + 1] > sp[s]) list[k++] = (int)s;
  PetscCall(MSDeviceMalloc(&img->d_nzslices, (size_t)PetscMax(k, 1) * sizeof(int), "the list of the mod-SELL image's slices with an entry"));
  if (k) PetscCallCUDA(cudaMemcpyAsync(img->d_nzslices, list, (size_t)k * sizeof(int), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscFree2(sp, list));
  img->nnzslices = k;
  img->dev_bytes += (size_t)PetscMax(k, 1) * sizeof(int);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageMultDevice(MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(MSImageMultSignedDevice(img, x, yin, 1.0, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageMultSignedDevice(MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar ys, PetscScalar *y)
{
  MSImageView   v;
  MSPermBuckets pb;
  PetscBool     bucketed;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCheck(ys == 1.0 || ys == -1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The sign of the product must be 1 or -1, not %g", (double)PetscRealPart(ys));
  PetscCall(MSImageGetView(img, PETSC_MEMTYPE_DEVICE, PETSC_FALSE, &v));
  v.negate = (int)(yin && ys == -1.0);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (yin && yin == y && !v.perm && !v.diag && !v.local_cols && img->m > 0) { /* in place: the slices with an entry */
    if (!img->d_nzslices) PetscCall(MSImageSetUpNonzeroSlices(img, stream));
    v.nzslices  = (const int *)img->d_nzslices;
    v.nnzslices = (int)img->nnzslices;
  }
  if (v.perm && !img->d_xwork) { /* x and y in the image numbering of a permuted image */
    PetscCall(MSDeviceMalloc(&img->d_xwork, 2 * (size_t)img->m * sizeof(double), "the permuted copies of x and y of the mod-SELL image"));
    img->dev_bytes += 2 * (size_t)img->m * sizeof(double);
  }
  PetscCall(MSImageGetPermBucketsDevice(img, &v, &pb, &bucketed)); /* the bucketed product */
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAMult(&v, bucketed ? &pb : NULL, x, yin, y, (double *)img->d_xwork, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(PetscMax(0.0, 2.0 * (img->noffdiag + (img->dapart ? img->m : 0)) - (yin ? 0 : img->m))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetDiagonalDevice(MSImage img, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(img->dapart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Device image has no separate diagonal");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAGetDiagonal((int)img->m, (const double *)img->d_diag, (const int *)img->d_perm, d, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
