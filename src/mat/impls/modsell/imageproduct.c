/*
   The products of a mod-SELL image (see imageimpl.h) in either memory and their settings (threads per row, the bucket of
   the permuted product), its diagonal and kernel views, the bucketed permuted product on the GPU, and the tables of
   operations a caller chooses once: MSImageOps_Reference (host arrays, the reference: the same arithmetic, in the same
   order, as the CUDA kernel ms_mult_kernel) and MSImageOps_CUDA (device arrays, on PETSc's current stream).
*/
#include "imageimpl.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <petscmodsell/private/modsellcuda.h>
#endif

/* ------------------------------------------------------------------------------------------------- the settings */
PetscErrorCode MSImageSetRowLanes(MSImage img, PetscInt lanes)
{
  PetscFunctionBegin;
  PetscCheck(lanes >= 0 && lanes <= 32 && !(lanes & (lanes - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid MATMODSELL row lanes %" PetscInt_FMT ": give 0 (automatic) or a power of two from 1 to 32 threads per row", lanes);
  img->lanes_asked = lanes; /* the layout does not change: the next product launches differently */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Threads summing one row in the product: the one asked for, or the rule of MS_ROW_LANES_THREADS (imageimpl.h) */
PetscInt MSImageRowLanes(MSImage img)
{
  const MSImageLayout *l = &img->lay;
  PetscInt             k = 1;

  if (l->bs > 1) return 1; /* the block layout: one thread per row */
  if (img->lanes_asked > 0) return img->lanes_asked;
  if (l->nslices > 0 && l->nslots > 0) {
    const double w = (double)l->nslots / ((double)l->nslices * (double)l->sh);
    while (2 * k <= 32 && 2 * k * l->sh <= 1024 && w >= (double)(MS_ROW_LANES_SLOTS * 2 * k) && (double)l->m * (double)(2 * k) <= (double)MS_ROW_LANES_THREADS) k *= 2;
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

/* ------------------------------------------------------------------------------------------------------------ host */
/* the kernel view's fields of either memory */
static void MSImageViewShape(MSImage img, PetscBool diag_block, MSImageView *v)
{
  const MSImageLayout *l = &img->lay;

  v->m          = (int)l->m;
  v->n          = (int)l->n;
  v->sh         = (int)l->sh;
  v->nslices    = (int)l->nslices;
  v->local_cols = (int)l->local_cols;
  v->diag_block = (int)(diag_block && l->m == l->n);
  v->lanes      = (int)MSImageRowLanes(img);
  v->bs         = (int)l->bs;
  v->brows      = (int)(l->bs > 1 && img->block_rows);
}

static PetscErrorCode MSImageGetView_Host(MSImage img, PetscBool diag_block, MSImageView *v)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  MSImageViewShape(img, diag_block, v);
  PetscCheck(img->host_pattern || !img->lay.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The host mod-SELL image is not set up (MSImageSetUp() with MSImageOps_Reference)");
  PetscCall(MSImageEnsureHostPerm(img));
  v->sliceptr = (const long long *)img->sliceptr;
  v->cols     = img->cols;
  v->vals     = img->vals;
  v->diag     = img->lay.diag_apart ? img->diag : NULL;
  if (img->perm && sizeof(PetscInt) == sizeof(int)) v->perm = (const int *)img->perm;
  else if (img->perm) { /* 64-bit PetscInt: the kernels read 32-bit rows (m < 2^31 is checked at the build) */
    if (!img->hperm32) {
      PetscCall(PetscMalloc1(img->lay.m, &img->hperm32));
      for (PetscInt r = 0; r < img->lay.m; r++) img->hperm32[r] = (int)img->perm[r];
    }
    v->perm = img->hperm32;
  }
  v->perm_cols = (int)(v->perm != NULL); /* a permuted image's codes are in its numbering (MSImageBuildHost()) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block layout's product (natural order): one row at a time, its diagonal block's terms, then each slot's block
   columns, in the order of the CUDA kernel (ms_bmult_kernel) */
static PetscErrorCode MSImageMultBlocks_Host(MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar ys, PetscScalar *y)
{
  const PetscInt  bs = img->lay.bs, sh = img->lay.sh, m = img->lay.m, T = sh * bs;
  const PetscBool local = img->lay.local_cols;
  PetscScalar     xs[1024];

  PetscFunctionBegin;
  for (PetscInt s = 0; s < img->lay.nslices; s++) {
    const PetscInt      first = s * T, nr = PetscMin(T, m - first);
    const PetscInt64    beg   = img->sliceptr[s];
    const PetscInt      w     = (PetscInt)((img->sliceptr[s + 1] - beg) / sh);
    const PetscScalar  *vbase = img->vals + (PetscInt64)bs * bs * beg;
    const PetscScalar  *dbase = img->diag ? img->diag + (PetscInt64)s * bs * T : NULL;

    if (local)
      for (PetscInt t = 0; t < T; t++) xs[t] = t < nr ? x[first + t] : 0.0;
    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt q = t / bs;
      PetscScalar    sum = 0.0;

      if (dbase)
        for (PetscInt j = 0; j < bs; j++) sum += dbase[(PetscInt64)j * T + t] * (local ? xs[q * bs + j] : x[first + q * bs + j]);
      for (PetscInt k = 0; k < w; k++) {
        const int          c  = img->cols[beg + (PetscInt64)k * sh + q];
        const PetscScalar *vp = vbase + (PetscInt64)k * bs * T + t;

        for (PetscInt j = 0; j < bs; j++) {
          PetscScalar xv = 0.0;
          if (c < 0) xv = xs[(-c - 1) * bs + j];
          else if (c > 0) xv = x[(PetscInt64)(c - 1) * bs + j];
          sum += vp[(PetscInt64)j * T] * xv;
        }
      }
      y[first + t] = yin ? yin[first + t] + ys * sum : sum;
    }
  }
  PetscCall(PetscLogFlops(PetscMax(0.0, 2.0 * img->lay.nnz - (yin ? 0 : m))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageMult_Host(MSImage img, const PetscScalar *xu, const PetscScalar *yin, PetscScalar ys, PetscScalar *y)
{
  const PetscInt     sh = img->lay.sh, m = img->lay.m, K = MSImageRowLanes(img);
  const PetscBool    local = img->lay.local_cols;
  const PetscScalar *x     = xu;
  PetscScalar        xs[1024], sum1[1024], *sum = sum1;

  PetscFunctionBegin;
  PetscCheck(ys == 1.0 || ys == -1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The sign of the product must be 1 or -1, not %g", (double)PetscRealPart(ys));
  if (img->lay.bs > 1) {
    PetscCall(MSImageMultBlocks_Host(img, xu, yin, ys, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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
  for (PetscInt s = 0; s < img->lay.nslices; s++) {
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
  PetscCall(PetscLogFlops(PetscMax(0.0, 2.0 * (img->lay.noffdiag + (img->lay.diag_apart ? m : 0)) - (yin ? 0 : m))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageGetDiagonal_Host(MSImage img, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCheck(img->diag || !img->lay.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Image has no separate diagonal");
  if (img->lay.bs > 1) { /* entry (t % bs, t % bs) of the diagonal block of row t of a slice */
    const PetscInt bs = img->lay.bs, T = img->lay.sh * bs;
    for (PetscInt r = 0; r < img->lay.m; r++) {
      const PetscInt s = r / T, t = r - s * T;
      d[r] = img->diag[(PetscInt64)(s * bs + t % bs) * T + t];
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt r = 0; r < img->lay.m; r++) d[img->perm ? img->perm[r] : r] = img->diag[r];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* no bucketed permutation on the host */
static PetscErrorCode MSImagePermBuckets_Host(MSImage img, const MSImageView *v, MSPermBuckets *pb, PetscBool *has)
{
  PetscFunctionBegin;
  (void)img;
  (void)v;
  PetscCall(PetscMemzero(pb, sizeof(*pb)));
  *has = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const MSImageOps MSImageOps_Reference = {"reference", PETSC_MEMTYPE_HOST, MSImageSetUp_Host, MSImageGetView_Host, MSImageMult_Host, MSImageGetDiagonal_Host, MSImagePermBuckets_Host};

#if defined(PETSC_HAVE_CUDA)
/* ---------------------------------------------------------------------------------------------------------- device */
static PetscErrorCode MSImageGetView_CUDA(MSImage img, PetscBool diag_block, MSImageView *v)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  MSImageViewShape(img, diag_block, v);
  PetscCheck(img->dev_pattern || !img->lay.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The device mod-SELL image is not set up (MSImageSetUp() with MSImageOps_CUDA)");
  v->sliceptr  = (const long long *)img->d_sliceptr;
  v->cols      = (const int *)img->d_cols;
  v->vals      = (const double *)img->d_vals;
  v->diag      = img->lay.diag_apart ? (const double *)img->d_diag : NULL;
  v->perm      = (const int *)img->d_perm;
  v->iperm     = (const int *)img->d_iperm;
  v->perm_cols = (int)(v->perm != NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The arrays of the bucketed permuted product (modsellcuda.h, MSPermBuckets) for the device image v of img: none with
   one bucket (chunk >= m), else px, qx, py, qy in one allocation; the recoded column codes when asked. On the stream,
   no synchronization (cudaMalloc aside) */
static PetscErrorCode MSImageSetUpPermBuckets(MSImage img, const MSImageView *v, cudaStream_t stream)
{
  const PetscInt m = img->lay.m, chunk = PetscMin(img->permute_chunk, m), nb = (m + chunk - 1) / chunk;
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
    PetscCall(MSDeviceMalloc(&img->d_pbcols, PetscMax((size_t)img->lay.nslots, 1) * sizeof(int), "the recoded column codes of the mod-SELL image"));
    bytes += PetscMax((size_t)img->lay.nslots, 1) * sizeof(int);
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCUDA((cudaError_t)MSCUDAPermBucketsRecode((long long)img->lay.nslots, v->cols, qx, (int *)img->d_pbcols, stream));
    PetscCall(PetscLogGpuTimeEnd());
  }
  img->pb_nbuckets = nb;
  img->pb_bytes    = bytes;
  img->dev_bytes += bytes;
  img->pb_ready = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImagePermBuckets_CUDA(MSImage img, const MSImageView *v, MSPermBuckets *pb, PetscBool *has)
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
  pb->chunk    = (int)PetscMin(img->permute_chunk, img->lay.m);
  pb->nbuckets = (int)img->pb_nbuckets;
  if (a) {
    pb->px = a;
    pb->qx = a + img->lay.m;
    pb->py = a + 2 * img->lay.m;
    pb->qy = a + 3 * img->lay.m;
  }
  pb->bcols = (const int *)img->d_pbcols;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slices with an entry, on the device: an MPI matrix's off-diagonal block has an entry in few rows (the rows with
   ghost couplings), and its in-place y += A x then launches a block for those slices only, not for the empty ones
   (16.7 M rows, 65536 of them with an entry: 0.08-0.095 ms per product on an H200, against 0.014 for aijcusparse) */
static PetscErrorCode MSImageSetUpNonzeroSlices(MSImage img, cudaStream_t stream)
{
  const PetscInt ns = img->lay.nslices;
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

static PetscErrorCode MSImageMult_CUDA(MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar ys, PetscScalar *y)
{
  MSImageView   v;
  MSPermBuckets pb;
  PetscBool     bucketed;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCheck(ys == 1.0 || ys == -1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The sign of the product must be 1 or -1, not %g", (double)PetscRealPart(ys));
  PetscCall(MSImageGetView_CUDA(img, PETSC_FALSE, &v));
  v.negate = (int)(yin && ys == -1.0);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (v.bs > 1) { /* the block layout: natural order */
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCUDA((cudaError_t)MSCUDABlockMult(&v, x, yin, y, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(PetscMax(0.0, 2.0 * img->lay.nnz - (yin ? 0 : img->lay.m))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (yin && yin == y && !v.perm && !v.diag && !v.local_cols && img->lay.m > 0) { /* in place: the slices with an entry */
    if (!img->d_nzslices) PetscCall(MSImageSetUpNonzeroSlices(img, stream));
    v.nzslices  = (const int *)img->d_nzslices;
    v.nnzslices = (int)img->nnzslices;
  }
  if (v.perm && !img->d_xwork) { /* x and y in the image numbering of a permuted image */
    PetscCall(MSDeviceMalloc(&img->d_xwork, 2 * (size_t)img->lay.m * sizeof(double), "the permuted copies of x and y of the mod-SELL image"));
    img->dev_bytes += 2 * (size_t)img->lay.m * sizeof(double);
  }
  PetscCall(MSImagePermBuckets_CUDA(img, &v, &pb, &bucketed)); /* the bucketed product */
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAMult(&v, bucketed ? &pb : NULL, x, yin, y, (double *)img->d_xwork, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(PetscMax(0.0, 2.0 * (img->lay.noffdiag + (img->lay.diag_apart ? img->lay.m : 0)) - (yin ? 0 : img->lay.m))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageGetDiagonal_CUDA(MSImage img, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(img->lay.diag_apart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Device image has no separate diagonal");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (img->lay.bs > 1) {
    MSImageView v;

    PetscCall(MSImageGetView_CUDA(img, PETSC_FALSE, &v));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCUDA((cudaError_t)MSCUDABlockGetDiagonal(&v, d, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAGetDiagonal((int)img->lay.m, (const double *)img->d_diag, (const int *)img->d_perm, d, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's CSR columns and values on the device from the device image (set up with MSImageOps_CUDA),
   on PETSc's current stream, not waited for */
PetscErrorCode MSImageGetDeviceCSR(MSImage img, const int *ai, int *aj, double *aa)
{
  cudaStream_t stream;
  MSImageView  v;

  PetscFunctionBegin;
  PetscCheck(img->lay.bs <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The CSR is rebuilt from scalar images only");
  PetscCall(MSImageGetView_CUDA(img, PETSC_FALSE, &v));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAImageCSR(&v, ai, aj, aa, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

const MSImageOps MSImageOps_CUDA = {"CUDA", PETSC_MEMTYPE_CUDA, MSImageSetUp_CUDA, MSImageGetView_CUDA, MSImageMult_CUDA, MSImageGetDiagonal_CUDA, MSImagePermBuckets_CUDA};
#endif
