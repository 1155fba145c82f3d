/*
   The builds of a mod-SELL image (see imageimpl.h): its arrays in host memory (from the host CSR: the reference) and in
   device memory (widths, prefix sum and fill on the GPU from the CSR copied there; a copy of the host image with 64-bit
   indices), the refreshes of their values, the permutation in either memory, and the setups of the two tables of
   operations (MSImageSetUp_Host(), MSImageSetUp_CUDA()).
*/
#include "imageimpl.h"
#include <petscmodsell/private/localityimpl.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <petscmodsell/private/modsellcuda.h>
#endif

PetscErrorCode MSImageFreeHost(MSImage img)
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

/* Drop the arrays of the bucketed permuted product (the image stays) */
PetscErrorCode MSImageFreePermBuckets(MSImage img)
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
PetscErrorCode MSImageFreeDevice(MSImage img)
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

/* The permutation on the host when the image has one: bricks computed here, a partition computed on the device copied
   (the device path makes the bricks' with MSCUDABricksPerm()) */
PetscErrorCode MSImageEnsureHostPerm(MSImage img)
{
  PetscFunctionBegin;
  if (img->perm || !(img->bricks || img->partition)) PetscFunctionReturn(PETSC_SUCCESS);
  if (img->bricks) {
    PetscCall(MSImageBricksPermHost(img));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(PETSC_HAVE_CUDA)
  {
    int *p;

    PetscCheck(img->d_perm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The partition ordering has not been computed");
    PetscCall(PetscMalloc1(img->lay.m, &img->perm));
    p = sizeof(PetscInt) == sizeof(int) ? (int *)img->perm : NULL;
    if (!p) PetscCall(PetscMalloc1(img->lay.m, &p));
    PetscCallCUDA(cudaMemcpy(p, img->d_perm, (size_t)img->lay.m * sizeof(int), cudaMemcpyDeviceToHost));
    if (p != (int *)img->perm) {
      for (PetscInt r = 0; r < img->lay.m; r++) img->perm[r] = p[r];
      PetscCall(PetscFree(p));
    }
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "The partition ordering has not been computed");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageInversePerm(MSImage img, PetscInt **iperm)
{
  PetscFunctionBegin;
  *iperm = NULL;
  PetscCall(MSImageEnsureHostPerm(img));
  if (!img->perm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(img->lay.m, iperm));
  for (PetscInt r = 0; r < img->lay.m; r++) {
    PetscCheck(img->perm[r] >= 0 && img->perm[r] < img->lay.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Invalid row permutation");
    (*iperm)[img->perm[r]] = r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------- the block layout */
/* The off-diagonal blocks of block row br (the distinct block columns of its bs rows; the diagonal block apart when
   dapart) */
static PetscInt MSBlockRowCount(const PetscInt *ai, const PetscInt *aj, PetscInt br, PetscInt bs, PetscBool dapart)
{
  PetscInt p[MS_BLOCK_MAX], cnt = 0;

  for (PetscInt i = 0; i < bs; i++) p[i] = ai[br * bs + i];
  for (;;) {
    PetscInt bc = PETSC_INT_MAX;

    for (PetscInt i = 0; i < bs; i++)
      if (p[i] < ai[br * bs + i + 1]) bc = PetscMin(bc, aj[p[i]] / bs);
    if (bc == PETSC_INT_MAX) break;
    for (PetscInt i = 0; i < bs; i++)
      while (p[i] < ai[br * bs + i + 1] && aj[p[i]] / bs == bc) p[i]++;
    if (!(dapart && bc == br)) cnt++;
  }
  return cnt;
}

/* The block layout's slots of the current pattern: the values (aa given: cols, vals and diag written, in-slice blocks
   counted in *nlocal) and/or the CSR -> value position map (csr2slot given); block row by block row, its blocks in
   increasing block column (the order of MSCUDABlockFill()) */
static PetscErrorCode MSImageBlockWalk(MSImage img, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscInt64 *csr2slot, PetscInt64 *nlocal)
{
  const PetscInt  bs = img->lay.bs, sh = img->lay.sh, mb = img->lay.m / bs, T = sh * bs;
  const PetscBool dapart = img->lay.diag_apart, local = img->lay.local_cols;
  PetscInt64      nl     = 0;

  PetscFunctionBegin;
  for (PetscInt br = 0; br < mb; br++) {
    const PetscInt   s = br / sh, q = br - s * sh;
    const PetscInt64 beg = img->sliceptr[s], vbeg = (PetscInt64)bs * bs * beg;
    PetscInt         p[MS_BLOCK_MAX], k = 0;

    for (PetscInt i = 0; i < bs; i++) p[i] = ai[br * bs + i];
    for (;;) {
      PetscInt bc = PETSC_INT_MAX;

      for (PetscInt i = 0; i < bs; i++)
        if (p[i] < ai[br * bs + i + 1]) bc = PetscMin(bc, aj[p[i]] / bs);
      if (bc == PETSC_INT_MAX) break;
      if (dapart && bc == br) { /* the diagonal block */
        for (PetscInt i = 0; i < bs; i++)
          for (; p[i] < ai[br * bs + i + 1] && aj[p[i]] / bs == bc; p[i]++) {
            const PetscInt64 pos = (PetscInt64)(s * bs + aj[p[i]] % bs) * T + q * bs + i;
            if (aa) img->diag[pos] = aa[p[i]];
            if (csr2slot) csr2slot[p[i]] = -(pos + 1);
          }
        continue;
      }
      {
        const PetscInt64 slot = beg + (PetscInt64)k * sh + q;
        if (aa) {
          if (local && bc >= s * sh && bc < PetscMin((s + 1) * sh, mb)) {
            img->cols[slot] = -(int)(bc - s * sh) - 1;
            nl++;
          } else img->cols[slot] = (int)(bc + 1);
        }
        for (PetscInt i = 0; i < bs; i++)
          for (; p[i] < ai[br * bs + i + 1] && aj[p[i]] / bs == bc; p[i]++) {
            const PetscInt64 pos = vbeg + (PetscInt64)(k * bs + aj[p[i]] % bs) * T + q * bs + i;
            if (aa) img->vals[pos] = aa[p[i]];
            if (csr2slot) csr2slot[p[i]] = pos;
          }
        k++;
      }
    }
  }
  if (nlocal) *nlocal = nl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the start of a host build: its event begun, the previous host image freed, A's host CSR (MatGetRowIJ(), values) */
static PetscErrorCode MSImageHostBuildBegin(MSImage img, Mat A, const PetscInt **ai, const PetscInt **aj, const PetscScalar **aa)
{
  PetscInt  nrow;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscCall(MSImageFreeHost(img));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, ai, aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the end of a host build: the CSR restored, the pattern's counts stored (the host image holds the pattern), the
   event ended */
static PetscErrorCode MSImageHostBuildEnd(MSImage img, Mat A, PetscInt maxw, PetscInt64 noff, PetscInt64 nlocal, const PetscInt **ai, const PetscInt **aj, const PetscScalar **aa)
{
  PetscInt  nrow;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayRead(A, aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, ai, aj, &done));
  img->lay.noffdiag = noff;
  img->lay.nlocal   = nlocal;
  img->lay.maxwidth = maxw;
  img->lay.counted  = PETSC_TRUE;
  img->host_pattern = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host build of the block layout from the host CSR: widths (blocks per block row, the slice's widest), then the slots */
static PetscErrorCode MSImageBuildHostBlocks(MSImage img, Mat A)
{
  const PetscInt     bs = img->lay.bs, sh = img->lay.sh, mb = img->lay.m / bs, nslices = img->lay.nslices;
  PetscInt           maxw = 0;
  PetscInt64         nblk = 0, nlocal = 0;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;

  PetscFunctionBegin;
  PetscCall(MSImageHostBuildBegin(img, A, &ai, &aj, &aa));
  PetscCall(PetscMalloc1(nslices + 1, &img->sliceptr));
  img->sliceptr[0] = 0;
  for (PetscInt s = 0; s < nslices; s++) {
    PetscInt w = 0;

    for (PetscInt br = s * sh; br < PetscMin(mb, (s + 1) * sh); br++) {
      const PetscInt c = MSBlockRowCount(ai, aj, br, bs, img->lay.diag_apart);

      w = PetscMax(w, c);
      nblk += c;
    }
    maxw                 = PetscMax(maxw, w);
    img->sliceptr[s + 1] = img->sliceptr[s] + (PetscInt64)w * sh;
  }
  img->lay.nslots = img->sliceptr[nslices];
  img->lay.lastw  = nslices ? (PetscInt)((img->sliceptr[nslices] - img->sliceptr[nslices - 1]) / sh) : 0;
  PetscCall(PetscCalloc1(PetscMax(img->lay.nslots, 1), &img->cols));
  PetscCall(PetscCalloc1(PetscMax(img->lay.nslots * bs * bs, 1), &img->vals));
  if (img->lay.diag_apart) PetscCall(PetscCalloc1((PetscInt64)nslices * sh * bs * bs, &img->diag));
  PetscCall(MSImageBlockWalk(img, ai, aj, aa, NULL, &nlocal));
  PetscCall(MSImageHostBuildEnd(img, A, maxw, nblk, nlocal, &ai, &aj, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host build of pattern and values from the host CSR */
static PetscErrorCode MSImageBuildHost(MSImage img, Mat A)
{
  const PetscInt     sh = img->lay.sh, m = img->lay.m, nslices = img->lay.nslices;
  const PetscBool    dapart = img->lay.diag_apart, local = img->lay.local_cols;
  PetscInt          *iperm, maxw = 0;
  PetscInt64         noff = 0, nlocal = 0;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;

  PetscFunctionBegin;
  PetscCall(MSImageHostBuildBegin(img, A, &ai, &aj, &aa));
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
  img->lay.nslots = img->sliceptr[nslices];
  img->lay.lastw  = nslices ? (PetscInt)((img->sliceptr[nslices] - img->sliceptr[nslices - 1]) / sh) : 0;
  PetscCall(PetscCalloc1(img->lay.nslots, &img->cols));
  PetscCall(PetscCalloc1(img->lay.nslots, &img->vals));
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
  PetscCall(MSImageHostBuildEnd(img, A, maxw, noff, nlocal, &ai, &aj, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* csr2slot: for CSR entry e the slot (>= 0) or -(r+1) for the diagonal of image row r */
static PetscErrorCode MSImageBuildMapHost(MSImage img, Mat A)
{
  const PetscInt  sh = img->lay.sh, m = img->lay.m;
  const PetscInt *ai, *aj;
  PetscInt        nrow;
  PetscBool       done;

  PetscFunctionBegin;
  if (img->csr2slot) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSImageEnsureHostPerm(img));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCall(PetscMalloc1(img->lay.nnz, &img->csr2slot));
  if (img->lay.bs > 1) { /* positions in vals and diag */
    PetscCall(MSImageBlockWalk(img, ai, aj, NULL, img->csr2slot, NULL));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt   s = r / sh, t = r - s * sh, o = img->perm ? img->perm[r] : r;
    const PetscInt64 beg = img->sliceptr ? img->sliceptr[s] : 0;
    PetscInt         k   = 0;
    for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
      if (img->lay.diag_apart && aj[e] == o) img->csr2slot[e] = -(PetscInt64)(r + 1);
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
  for (PetscInt e = 0; e < img->lay.nnz; e++) {
    const PetscInt64 s = img->csr2slot[e];
    if (s >= 0) img->vals[s] = aa[e];
    else img->diag[-s - 1] = aa[e];
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageValues, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host image of the current pattern with the values of object state 'state' (MSImageOps_Reference's setup) */
PetscErrorCode MSImageSetUp_Host(MSImage img, Mat A, PetscObjectState state)
{
  PetscFunctionBegin;
  if (img->partition && !img->perm && !img->d_perm) { /* first built on the host */
    PetscCall(PetscMalloc1(img->lay.m, &img->perm));
    PetscCall(MSLocalityPermHost(A, img->psh, img->perm));
  }
  PetscCall(MSImageEnsureHostPerm(img));
  if (!img->host_pattern) {
    if (img->lay.bs > 1) PetscCall(MSImageBuildHostBlocks(img, A));
    else PetscCall(MSImageBuildHost(img, A));
  }
  else if (img->hoststate != state) PetscCall(MSImageRefreshHostValues(img, A));
  img->hoststate = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode MSImageUploadPerm(MSImage img, cudaStream_t stream)
{
  PetscFunctionBegin;
  if ((img->perm || img->bricks) && img->lay.m && !img->d_perm) { /* (a partition not yet on the host is computed by the device build) */
    PetscCall(MSDeviceMalloc(&img->d_perm, (size_t)img->lay.m * sizeof(int), "the row permutation of the mod-SELL image"));
    img->dev_bytes += (size_t)img->lay.m * sizeof(int);
    if (!img->perm) { /* bricks, not needed on the host so far: computed on the device */
      PetscCallCUDA((cudaError_t)MSCUDABricksPerm((int)img->lay.m, &img->bk, (int *)img->d_perm, NULL, stream));
    } else if (sizeof(PetscInt) == sizeof(int)) {
      PetscCall(MSCopyHostToDevice(img->d_perm, img->perm, (size_t)img->lay.m * sizeof(int), stream));
    } else {
      int *p;
      PetscCall(PetscMalloc1(img->lay.m, &p));
      for (PetscInt r = 0; r < img->lay.m; r++) p[r] = (int)img->perm[r];
      PetscCallCUDA(cudaMemcpyAsync(img->d_perm, p, (size_t)img->lay.m * sizeof(int), cudaMemcpyHostToDevice, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream));
      PetscCall(PetscFree(p));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fallback for 64-bit indices: copy the host image to the device */
static PetscErrorCode MSImageUploadHost(MSImage img, Mat A, cudaStream_t stream)
{
  const size_t bs2 = (size_t)(img->lay.bs * img->lay.bs), nsp = (size_t)img->lay.nslices + 1, ns = (size_t)img->lay.nslots, nv = ns * bs2;
  const size_t m = img->lay.bs > 1 ? (size_t)img->lay.nslices * img->lay.sh * bs2 : (size_t)img->lay.m; /* the diagonal's entries */

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_Upload, A, 0, 0, 0));
  PetscCall(MSDeviceMalloc(&img->d_sliceptr, nsp * sizeof(long long), "the slice pointers of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_cols, PetscMax(ns, 1) * sizeof(int), "the column codes of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_vals, PetscMax(nv, 1) * sizeof(double), "the values of the mod-SELL image"));
  img->dev_bytes += nsp * sizeof(long long) + ns * sizeof(int) + nv * sizeof(double);
  PetscCallCUDA(cudaMemcpyAsync(img->d_sliceptr, img->sliceptr, nsp * sizeof(long long), cudaMemcpyHostToDevice, stream));
  if (ns) {
    PetscCall(MSCopyHostToDevice(img->d_cols, img->cols, ns * sizeof(int), stream));
    PetscCall(MSCopyHostToDevice(img->d_vals, img->vals, nv * sizeof(double), stream));
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
  PetscCheck(done && nrow == img->lay.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the CSR structure");
  if (needvals) PetscCall(MatSeqAIJGetArrayRead(A, &a));
  {
    const size_t m1 = (size_t)img->lay.m + 1, nnz = (size_t)img->lay.nnz;
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
  return (PetscBool)(sizeof(PetscInt) == sizeof(int) && img->lay.nnz < PETSC_INT32_MAX);
}

/* Device build of the block layout from the device CSR (MSCUDABlockBuildSlicePtr(), MSCUDABlockFill(): the same slots
   as MSImageBuildHostBlocks()) */
static PetscErrorCode MSImageBuildDeviceBlocks(MSImage img, Mat A, const MSCSRDevice *csr, cudaStream_t stream)
{
  const PetscInt      bs = img->lay.bs, sh = img->lay.sh, mb = img->lay.m / bs, nslices = img->lay.nslices;
  const size_t        bs2 = (size_t)(bs * bs), ndiag = img->lay.diag_apart ? (size_t)nslices * sh * bs2 : 0;
  unsigned long long *d_stats, stats[3];
  long long           nslots;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscCall(MSDeviceMalloc(&img->d_sliceptr, ((size_t)nslices + 1) * sizeof(long long), "the slice pointers of the mod-SELL image"));
  PetscCall(MSDeviceMallocAsync((void **)&d_stats, 3 * sizeof(unsigned long long), "the image statistics", stream));
  PetscCallCUDA(cudaMemsetAsync(d_stats, 0, 3 * sizeof(unsigned long long), stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDABlockBuildSlicePtr((int)mb, (int)bs, (int)sh, (int)nslices, csr->ai, csr->aj, (int)img->lay.diag_apart, (long long *)img->d_sliceptr, d_stats, stream));
  PetscCall(PetscLogGpuTimeEnd());
  {
    long long sp[2] = {0, 0};

    if (nslices) PetscCallCUDA(cudaMemcpyAsync(sp, (long long *)img->d_sliceptr + nslices - 1, 2 * sizeof(long long), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    nslots          = sp[1];
    img->lay.nslots = nslots;
    img->lay.lastw  = (PetscInt)((sp[1] - sp[0]) / sh);
  }
  PetscCall(MSDeviceMalloc(&img->d_cols, PetscMax((size_t)nslots, 1) * sizeof(int), "the block column codes of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_vals, PetscMax((size_t)nslots * bs2, 1) * sizeof(double), "the block values of the mod-SELL image"));
  if (ndiag) PetscCall(MSDeviceMalloc(&img->d_diag, ndiag * sizeof(double), "the diagonal blocks of the mod-SELL image"));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDABlockFill((int)mb, (int)bs, (int)sh, csr->ai, csr->aj, csr->aa, (int)img->lay.diag_apart, (int)img->lay.local_cols, (const long long *)img->d_sliceptr, nslots, 1, (int *)img->d_cols, (double *)img->d_vals, (double *)img->d_diag, NULL, d_stats, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaMemcpyAsync(stats, d_stats, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d_stats, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageBuild, A, 0, 0, 0));
  img->dev_bytes += ((size_t)nslices + 1) * sizeof(long long) + (size_t)nslots * (sizeof(int) + bs2 * sizeof(double)) + ndiag * sizeof(double);
  img->lay.noffdiag = (PetscInt64)stats[0];
  img->lay.maxwidth = (PetscInt)stats[1];
  img->lay.nlocal   = (PetscInt64)stats[2];
  img->lay.counted  = PETSC_TRUE;
  img->dev_pattern  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Device build: widths, prefix sum and fill run on the GPU */
static PetscErrorCode MSImageBuildDevice(MSImage img, Mat A)
{
  cudaStream_t        stream;
  MSCSRDevice         csr;
  unsigned long long *d_stats, stats[3];
  const size_t        m = (size_t)img->lay.m;

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
  if (img->lay.bs > 1) {
    PetscCall(MSImageBuildDeviceBlocks(img, A, &csr, stream));
    PetscCall(MSCSRDeviceRestore(&csr, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (img->partition && !img->d_perm) { /* the partition ordering, on the device, with its inverse */
    PetscCall(MSDeviceMalloc(&img->d_perm, m * sizeof(int), "the row permutation of the mod-SELL image"));
    PetscCall(MSDeviceMalloc(&img->d_iperm, m * sizeof(int), "the inverse row permutation of the mod-SELL image"));
    img->dev_bytes += 2 * m * sizeof(int);
    PetscCall(MSLocalityPerm(&MSLocalityKernels_CUDA, img->lay.m, csr.ai, csr.aj, csr.aa, img->psh, (int *)img->d_perm, (int *)img->d_iperm, stream));
  }
  PetscCall(PetscLogEventBegin(MATMODSELL_ImageBuild, A, 0, 0, 0));
  PetscCall(MSDeviceMalloc(&img->d_sliceptr, ((size_t)img->lay.nslices + 1) * sizeof(long long), "the slice pointers of the mod-SELL image"));
  PetscCall(MSDeviceMallocAsync((void **)&d_stats, 3 * sizeof(unsigned long long), "the image statistics", stream));
  PetscCallCUDA(cudaMemsetAsync(d_stats, 0, 3 * sizeof(unsigned long long), stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDABuildSlicePtr((int)img->lay.m, (int)img->lay.sh, (int)img->lay.nslices, csr.ai, csr.aj, (const int *)img->d_perm, (int)img->lay.diag_apart, (long long *)img->d_sliceptr, d_stats, stream));
  PetscCall(PetscLogGpuTimeEnd());
  {
    long long sp[2] = {0, 0};
    if (img->lay.nslices) PetscCallCUDA(cudaMemcpyAsync(sp, (long long *)img->d_sliceptr + img->lay.nslices - 1, 2 * sizeof(long long), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaMemcpyAsync(stats, d_stats, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    img->lay.nslots = sp[1];
    img->lay.lastw  = (PetscInt)((sp[1] - sp[0]) / img->lay.sh);
  }
  PetscCall(MSDeviceMalloc(&img->d_cols, PetscMax((size_t)img->lay.nslots, 1) * sizeof(int), "the column codes of the mod-SELL image"));
  PetscCall(MSDeviceMalloc(&img->d_vals, PetscMax((size_t)img->lay.nslots, 1) * sizeof(double), "the values of the mod-SELL image"));
  if (img->lay.diag_apart && m) PetscCall(MSDeviceMalloc(&img->d_diag, m * sizeof(double), "the diagonal of the mod-SELL image"));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSCUDAFill((int)img->lay.m, (int)img->lay.sh, csr.ai, csr.aj, csr.aa, (const int *)img->d_perm, (const int *)img->d_iperm, (int)img->lay.diag_apart, (int)img->lay.local_cols, (const long long *)img->d_sliceptr, 1, (int *)img->d_cols, (double *)img->d_vals, (double *)img->d_diag, NULL, d_stats, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaMemcpyAsync(stats, d_stats, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d_stats, stream));
  PetscCall(MSCSRDeviceRestore(&csr, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogEventEnd(MATMODSELL_ImageBuild, A, 0, 0, 0));
  img->dev_bytes += ((size_t)img->lay.nslices + 1) * sizeof(long long) + (size_t)img->lay.nslots * (sizeof(int) + sizeof(double)) + (img->lay.diag_apart ? m * sizeof(double) : 0);
  img->lay.noffdiag = (PetscInt64)img->lay.nnz - (PetscInt64)stats[0];
  img->lay.maxwidth = (PetscInt)stats[1];
  img->lay.nlocal   = (PetscInt64)stats[2];
  img->lay.counted  = PETSC_TRUE;
  img->dev_pattern  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Only the values changed: scatter the CSR values (uploaded, or A's own device copy) into the slots */
static PetscErrorCode MSImageUploadValues(MSImage img, Mat A)
{
  cudaStream_t       stream;
  const size_t       nnz = (size_t)img->lay.nnz;
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
      if (img->lay.bs > 1) PetscCallCUDA((cudaError_t)MSCUDABlockFill((int)(img->lay.m / img->lay.bs), (int)img->lay.bs, (int)img->lay.sh, csr.ai, csr.aj, NULL, (int)img->lay.diag_apart, 0, (const long long *)img->d_sliceptr, (long long)img->lay.nslots, 0, NULL, NULL, NULL, (long long *)img->d_csr2slot, NULL, stream));
      else PetscCallCUDA((cudaError_t)MSCUDAFill((int)img->lay.m, (int)img->lay.sh, csr.ai, csr.aj, NULL, (const int *)img->d_perm, NULL, (int)img->lay.diag_apart, 0, (const long long *)img->d_sliceptr, 0, NULL, NULL, NULL, (long long *)img->d_csr2slot, NULL, stream));
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

/* Device image of the current pattern with the values of object state 'state' (MSImageOps_CUDA's setup); with 64-bit
   indices the device image is a copy of the host image */
PetscErrorCode MSImageSetUp_CUDA(MSImage img, Mat A, PetscObjectState state)
{
  PetscFunctionBegin;
  if (!img->dev_pattern) {
    if (!MSImageDeviceBuildable(img)) PetscCall(MSImageSetUp_Host(img, A, state));
    PetscCall(MSImageBuildDevice(img, A));
    img->devstate = state;
  } else if (img->devstate != state) {
    PetscCall(MSImageUploadValues(img, A));
    img->devstate = state;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
