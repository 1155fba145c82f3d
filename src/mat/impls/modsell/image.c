/*
   The mod-SELL image of a sequential AIJ block: construction from CSR, value-only refresh,
   the host (reference) SpMV and the device copy. See include/petscmodsell/private/modsellimpl.h.
*/
#include <petscmodsell/private/modsellimpl.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <petscmodsell/private/modsellcuda.h>
#endif

PetscLogEvent MATMODSELL_ImageBuild = 0, MATMODSELL_ImageValues = 0, MATMODSELL_Upload = 0;

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
  (*img)->sh         = 128;
  (*img)->diag_apart = PETSC_TRUE;
  (*img)->local_cols = PETSC_TRUE;
  (*img)->ordering   = MATMODSELL_ORDERING_NATURAL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageFreeDevice(MSImage img)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  void **p[] = {&img->d_sliceptr, &img->d_cols, &img->d_vals, &img->d_diag, &img->d_perm, &img->d_csr2slot, &img->d_csrvals};
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(p); i++) {
    if (*p[i]) PetscCallCUDA(cudaFree(*p[i]));
    *p[i] = NULL;
  }
#endif
  img->dev_bytes   = 0;
  img->dev_pattern = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageFreeHost(MSImage img)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(img->sliceptr));
  PetscCall(PetscFree(img->cols));
  PetscCall(PetscFree(img->vals));
  PetscCall(PetscFree(img->diag));
  PetscCall(PetscFree(img->perm));
  PetscCall(PetscFree(img->csr2slot));
  img->built = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageDestroy(MSImage *img)
{
  PetscFunctionBegin;
  if (!*img) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageFreeDevice(*img));
  PetscCall(MSImageFreeHost(*img));
  PetscCall(PetscFree(*img));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageSetSliceHeight(MSImage img, PetscInt sh)
{
  PetscFunctionBegin;
  PetscCall(MSCheckSliceHeight(PETSC_COMM_SELF, sh));
  if (img->sh != sh) {
    img->sh    = sh;
    img->built = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Build the pattern (and values) from host CSR */
static PetscErrorCode MSImageBuild(MSImage img, Mat A, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  const PetscBool square = (PetscBool)(m == n);
  const PetscBool dapart = (PetscBool)(img->diag_apart && square);
  const PetscBool local  = (PetscBool)(img->local_cols && square);
  const PetscInt  sh     = img->sh;
  PetscInt       *iperm  = NULL, nslices, maxw = 0;
  PetscInt64      nslots = 0, noff = 0, nlocal = 0;

  PetscFunctionBegin;
  PetscCheck(n < PETSC_INT32_MAX && m < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "MATMODSELL stores row and column indices as 32-bit integers: this block is %" PetscInt_FMT " x %" PetscInt_FMT ", at most %d x %d fits; distribute the matrix over more MPI processes", m, n, PETSC_INT32_MAX - 1, PETSC_INT32_MAX - 1);
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscCall(MSImageFreeHost(img));
  PetscCall(MSImageFreeDevice(img));
  img->m       = m;
  img->n       = n;
  img->nnz     = ai[m];
  nslices      = (m + sh - 1) / sh;
  img->nslices = nslices;

  /* row permutation inside the image */
  if (img->ordering == MATMODSELL_ORDERING_RCM && square && m > 1) {
    IS              rp, cp;
    const PetscInt *idx;

    PetscCall(MatGetOrdering(A, MATORDERINGRCM, &rp, &cp));
    PetscCall(PetscMalloc1(m, &img->perm));
    PetscCall(PetscMalloc1(m, &iperm));
    PetscCall(ISGetIndices(rp, &idx));
    PetscCall(PetscArraycpy(img->perm, idx, m));
    PetscCall(ISRestoreIndices(rp, &idx));
    PetscCall(ISDestroy(&rp));
    PetscCall(ISDestroy(&cp));
    for (PetscInt r = 0; r < m; r++) {
      PetscCheck(img->perm[r] >= 0 && img->perm[r] < m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Invalid RCM permutation");
      iperm[img->perm[r]] = r;
    }
  }

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
  nslots      = img->sliceptr[nslices];
  img->nslots = nslots;
  img->maxwidth = maxw;
  PetscCall(PetscCalloc1(nslots, &img->cols));
  PetscCall(PetscCalloc1(nslots, &img->vals));
  if (dapart) PetscCall(PetscCalloc1(m, &img->diag));
  PetscCall(PetscMalloc1(img->nnz, &img->csr2slot));

  for (PetscInt s = 0; s < nslices; s++) {
    const PetscInt first = s * sh;
    for (PetscInt r = first; r < PetscMin(m, first + sh); r++) {
      const PetscInt o = img->perm ? img->perm[r] : r;
      PetscInt       k = 0;
      for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
        const PetscInt c = aj[e];
        if (dapart && c == o) {
          img->diag[r]     = aa ? aa[e] : 0.0;
          img->csr2slot[e] = -(PetscInt64)(r + 1);
        } else {
          const PetscInt64 slot = img->sliceptr[s] + (PetscInt64)k * sh + (r - first);
          const PetscInt   cp   = local ? (iperm ? iperm[c] : c) : -1;
          k++;
          noff++;
          if (local && cp >= first && cp < first + sh) {
            img->cols[slot] = -(int)(cp - first) - 1;
            nlocal++;
          } else img->cols[slot] = (int)(c + 1);
          img->vals[slot]  = aa ? aa[e] : 0.0;
          img->csr2slot[e] = slot;
        }
      }
    }
  }
  PetscCall(PetscFree(iperm));
  img->noffdiag   = noff;
  img->nlocal     = nlocal;
  img->built      = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscBool MSImageLocal(MSImage img)
{
  return (PetscBool)(img->local_cols && img->m == img->n);
}

static PetscErrorCode MSImageRefreshHostValues(MSImage img, Mat A, const PetscScalar *aa)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageValues, A, 0, 0, 0));
  for (PetscInt e = 0; e < img->nnz; e++) {
    const PetscInt64 s = img->csr2slot[e];
    if (s >= 0) img->vals[s] = aa[e];
    else img->diag[-s - 1] = aa[e];
  }
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageValues, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode MSImageUploadAll(MSImage img, Mat A)
{
  cudaStream_t stream;
  const size_t nsp = (size_t)img->nslices + 1, ns = (size_t)img->nslots, m = (size_t)img->m;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_Upload, A, 0, 0, 0));
  PetscCall(MSImageFreeDevice(img));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMalloc(&img->d_sliceptr, nsp * sizeof(long long)));
  PetscCallCUDA(cudaMalloc(&img->d_cols, PetscMax(ns, 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc(&img->d_vals, PetscMax(ns, 1) * sizeof(double)));
  img->dev_bytes = nsp * sizeof(long long) + ns * (sizeof(int) + sizeof(double));
  PetscCallCUDA(cudaMemcpyAsync(img->d_sliceptr, img->sliceptr, nsp * sizeof(long long), cudaMemcpyHostToDevice, stream));
  if (ns) {
    PetscCallCUDA(cudaMemcpyAsync(img->d_cols, img->cols, ns * sizeof(int), cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaMemcpyAsync(img->d_vals, img->vals, ns * sizeof(double), cudaMemcpyHostToDevice, stream));
  }
  if (img->diag && m) {
    PetscCallCUDA(cudaMalloc(&img->d_diag, m * sizeof(double)));
    PetscCallCUDA(cudaMemcpyAsync(img->d_diag, img->diag, m * sizeof(double), cudaMemcpyHostToDevice, stream));
    img->dev_bytes += m * sizeof(double);
  }
  if (img->perm && m) {
    int *p;
    PetscCall(PetscMalloc1(m, &p));
    for (size_t r = 0; r < m; r++) p[r] = (int)img->perm[r];
    PetscCallCUDA(cudaMalloc(&img->d_perm, m * sizeof(int)));
    PetscCallCUDA(cudaMemcpy(img->d_perm, p, m * sizeof(int), cudaMemcpyHostToDevice));
    PetscCall(PetscFree(p));
    img->dev_bytes += m * sizeof(int);
  }
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* host arrays may be freed or changed after this */
  img->dev_pattern = PETSC_TRUE;
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)img->dev_bytes));
  PetscCall(PetscLogEventEnd(MATMODSELL_Upload, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Only the values changed: upload the CSR values and scatter them into the slots on the GPU */
static PetscErrorCode MSImageUploadValues(MSImage img, Mat A, const PetscScalar *aa)
{
  cudaStream_t stream;
  const size_t nnz = (size_t)img->nnz;

  PetscFunctionBegin;
  if (!nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(MATMODSELL_Upload, A, 0, 0, 0));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!img->d_csr2slot) {
    PetscCallCUDA(cudaMalloc(&img->d_csr2slot, nnz * sizeof(long long)));
    PetscCallCUDA(cudaMalloc(&img->d_csrvals, nnz * sizeof(double)));
    PetscCallCUDA(cudaMemcpyAsync(img->d_csr2slot, img->csr2slot, nnz * sizeof(long long), cudaMemcpyHostToDevice, stream));
    img->dev_bytes += nnz * (sizeof(long long) + sizeof(double));
  }
  PetscCallCUDA(cudaMemcpyAsync(img->d_csrvals, aa, nnz * sizeof(double), cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAScatterValues((long long)nnz, (const long long *)img->d_csr2slot, (const double *)img->d_csrvals, (double *)img->d_vals, (double *)img->d_diag, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* aa belongs to the matrix and may change after return */
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)nnz * sizeof(double)));
  PetscCall(PetscLogEventEnd(MATMODSELL_Upload, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MSImageSetUp(MSImage img, Mat A, PetscMemType mtype)
{
  PetscObjectId     id;
  PetscObjectState  state;
  PetscInt          m, n, nrow;
  const PetscInt   *ai, *aj;
  const PetscScalar *aa;
  PetscBool         done, rebuild;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  rebuild = (PetscBool)(!img->built || img->id != id || img->nzstate != A->nonzerostate);
  if (!rebuild && state == (PetscMemTypeHost(mtype) ? img->hoststate : img->devstate) && (PetscMemTypeHost(mtype) || img->dev_pattern)) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the CSR structure of a matrix of type %s: the mod-SELL image needs a SeqAIJ-family matrix", ((PetscObject)A)->type_name);
  PetscCheck(nrow == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row count mismatch");
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  if (rebuild) {
    PetscCall(MSImageBuild(img, A, m, n, ai, aj, aa));
    img->id        = id;
    img->nzstate   = A->nonzerostate;
    img->hoststate = state;
    img->devstate  = -1;
  }
  if (PetscMemTypeHost(mtype)) {
    if (img->hoststate != state) {
      PetscCall(MSImageRefreshHostValues(img, A, aa));
      img->hoststate = state;
    }
  } else {
#if defined(PETSC_HAVE_CUDA)
    if (!img->dev_pattern) {
      if (img->hoststate != state) {
        PetscCall(MSImageRefreshHostValues(img, A, aa));
        img->hoststate = state;
      }
      PetscCall(MSImageUploadAll(img, A));
    } else if (img->devstate != state) {
      PetscCall(MSImageUploadValues(img, A, aa));
    }
    img->devstate = state;
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc was configured without CUDA: no device image");
#endif
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetInfo(MSImage img, MatModSELLInfo *info)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->slice_height   = img->sh;
  info->nslices        = img->nslices;
  info->nslots         = img->nslots;
  info->noffdiag       = img->noffdiag;
  info->nlocal         = img->nlocal;
  info->max_width      = img->maxwidth;
  info->padding_ratio  = img->noffdiag ? (PetscReal)img->nslots / (PetscReal)img->noffdiag : 1.0;
  info->local_fraction = img->noffdiag ? (PetscReal)img->nlocal / (PetscReal)img->noffdiag : 0.0;
  info->device_bytes   = img->dev_bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference kernel: the same arithmetic, in the same order, as ms_mult_kernel */
PetscErrorCode MSImageMultHost(MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar *y)
{
  const PetscInt  sh = img->sh, m = img->m;
  const PetscBool local = MSImageLocal(img);
  PetscScalar     xs[1024], sum[1024];

  PetscFunctionBegin;
  for (PetscInt s = 0; s < img->nslices; s++) {
    const PetscInt   first = s * sh, nr = PetscMin(sh, m - first);
    const PetscInt64 beg   = img->sliceptr[s];
    const PetscInt   w     = (PetscInt)((img->sliceptr[s + 1] - beg) / sh);

    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o = img->perm ? img->perm[first + t] : first + t;
      const PetscScalar xr = (img->diag || local) ? x[o] : 0.0;
      if (local) xs[t] = xr;
      sum[t] = img->diag ? img->diag[first + t] * xr : 0.0;
    }
    for (PetscInt k = 0; k < w; k++) {
      const int         *cp = img->cols + beg + (PetscInt64)k * sh;
      const PetscScalar *vp = img->vals + beg + (PetscInt64)k * sh;
      for (PetscInt t = 0; t < nr; t++) {
        const int   c  = cp[t];
        PetscScalar xv = 0.0;
        if (c < 0) xv = xs[-c - 1];
        else if (c > 0) xv = x[c - 1];
        sum[t] += vp[t] * xv;
      }
    }
    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt o = img->perm ? img->perm[first + t] : first + t;
      y[o]             = yin ? yin[o] + sum[t] : sum[t];
    }
  }
  PetscCall(PetscLogFlops(2.0 * (img->noffdiag + (img->diag ? m : 0)) - (yin ? 0 : m)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetDiagonalHost(MSImage img, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCheck(img->diag || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Image has no separate diagonal");
  for (PetscInt r = 0; r < img->m; r++) d[img->perm ? img->perm[r] : r] = img->diag[r];
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
PetscErrorCode MSImageMultDevice(MSImage img, const PetscScalar *x, const PetscScalar *yin, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(img->dev_pattern, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Device image not set up");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAMult((int)img->m, (int)img->sh, (int)img->nslices, (const long long *)img->d_sliceptr, (const int *)img->d_cols, (const double *)img->d_vals, (const double *)img->d_diag, (const int *)img->d_perm, (int)MSImageLocal(img), x, yin, y, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (img->noffdiag + (img->diag ? img->m : 0)) - (yin ? 0 : img->m)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSImageGetDiagonalDevice(MSImage img, PetscScalar *d)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(img->d_diag || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Device image has no separate diagonal");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAGetDiagonal((int)img->m, (const double *)img->d_diag, (const int *)img->d_perm, d, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
