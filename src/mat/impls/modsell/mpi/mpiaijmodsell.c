/*
   MATMPIAIJMODSELL: a MATMPIAIJ whose diagonal and off-diagonal blocks are MATSEQAIJMODSELL.

   On the host MPIAIJ's MatMult runs: it starts the halo exchange, multiplies the diagonal block (our kernel), ends the
   exchange and adds the off-diagonal block (our kernel, plain encoding). On the GPU our own product overlaps the
   exchange with the diagonal block's kernel on a second stream (MatMultAddOverlap_MPIAIJModSELL()). The blocks are
   converted when they are preallocated, so that the ghost vector (created from the off-diagonal block) gets the
   device vector type.
*/
#include "../imageimpl.h"
#include <petscdevice.h>
#include <petscsf.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <petscmodsell/private/modsellcuda.h>
#endif

/* Mat_MPIAIJModSELL: modsellimpl.h (its cuSPARSE view: mpicusparseview.c) */

/* Make both blocks MATSEQAIJMODSELL with this matrix's settings */
static PetscErrorCode MatMPIAIJModSELLSetUpBlocks(Mat A)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  Mat                blk[2];
  const PetscInt    *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  for (PetscInt b = 0; b < 2; b++) {
    Mat_SeqAIJModSELL *ms;
    PetscBool          isms;

    if (!blk[b]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)blk[b], MATSEQAIJMODSELL, &isms));
    if (!isms) PetscCall(MatConvert_SeqAIJ_SeqAIJModSELL(blk[b], MATSEQAIJMODSELL, MAT_INPLACE_MATRIX, &blk[b]));
    ms                = (Mat_SeqAIJModSELL *)blk[b]->spptr;
    ms->settings      = mm->settings;
    ms->offdiag_block = (PetscBool)(b == 1);
    ms->block         = PETSC_TRUE;
    /* the diagonal block's rows are this process's box of the DMDA */
    if (b == 0 && (mm->settings.ordering == MATMODSELL_ORDERING_BRICKS || mm->settings.ordering == MATMODSELL_ORDERING_AUTO)) PetscCall(MatModSELLGetDMDABox_Private(A, ms->box));
#if defined(PETSC_HAVE_DEVICE)
    /* the blocks compute where the matrix does (a conversion leaves a block unbound) */
    if (blk[b]->boundtocpu != A->boundtocpu) PetscCall(MatBindToCPU(blk[b], A->boundtocpu));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJSetPreallocation_MPIAIJModSELL(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*mm->prealloc)(A, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(MatMPIAIJModSELLSetUpBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIAIJModSELL(Mat A, MatAssemblyType mode)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*mm->parent.assemblyend)(A, mode));
  PetscCall(MatMPIAIJModSELLSetUpBlocks(A)); /* blocks recreated by MPIAIJ (MatDisAssemble) */
  if (mode == MAT_FINAL_ASSEMBLY) {
    Mat Ad, Ao;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(MatSeqAIJModSELLEagerSetUp(Ad, A));
    PetscCall(MatSeqAIJModSELLEagerSetUp(Ao, A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatModSELLGetSettings_MPIAIJModSELL(Mat A, MatModSELLSettings **s)
{
  PetscFunctionBegin;
  *s = &((Mat_MPIAIJModSELL *)A->spptr)->settings;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a change of the settings (MatModSELLSettingsSet*_Private()): the blocks get them now if they exist */
static PetscErrorCode MatModSELLApplySettings_MPIAIJModSELL(Mat A)
{
  PetscFunctionBegin;
  if (A->preallocated) PetscCall(MatMPIAIJModSELLSetUpBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Statistics summed over the diagonal blocks of all processes (collective) */
static PetscErrorCode MatModSELLGetInfo_MPIAIJModSELL(Mat A, MatModSELLInfo *info)
{
  Mat            Ad, Ao;
  MatModSELLInfo di, oi;
  PetscInt64     loc[11], glob[11];
  PetscInt       w[11], wg[11];
  PetscReal      r[3], rg[3];

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatModSELLGetInfo(Ad, &di));
  PetscCall(MatModSELLGetInfo(Ao, &oi));
  loc[0] = di.nslices;
  loc[1] = di.nslots + (di.block_size > 1 ? 0 : oi.nslots); /* the block layout: the diagonal block's blocks */
  loc[2] = di.noffdiag + (di.block_size > 1 ? 0 : oi.noffdiag);
  loc[3] = di.nlocal;
  loc[4] = (PetscInt64)(di.device_bytes + oi.device_bytes);
  loc[7] = (PetscInt64)di.permute_bytes;
  { /* the counts behind the diagonal block's natural in-slice fraction and window (its image, brought up to date by
       GetInfo) */
    const MSImage dimg = ((Mat_SeqAIJModSELL *)Ad->spptr)->img;
    loc[5]             = dimg->nat_off >= 0 ? dimg->nat_local : 0;
    loc[6]             = dimg->nat_off >= 0 ? dimg->nat_off : 0;
    loc[8]             = dimg->nat_off >= 0 ? dimg->nat_span : 0;
    loc[9]             = dimg->nat_off >= 0 ? dimg->nat_nspan : 0;
  }
  loc[10] = di.natural_windowed ? 1 : 0;
  PetscCallMPI(MPIU_Allreduce(loc, glob, 11, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)A)));
  w[0] = PetscMax(di.max_width, oi.max_width);
  w[1] = (PetscInt)di.ordering; /* the same on every process when max(o) = -max(-o) */
  w[2] = -(PetscInt)di.ordering;
  w[3] = di.slice_height; /* per process: the partition ordering may take another height */
  w[4] = -di.slice_height;
  w[5] = di.natural_local_stride; /* the sparsest sampling of the processes */
  w[6] = di.row_lanes;
  w[7] = -di.row_lanes;
  w[8]  = (PetscInt)di.layout;
  w[9]  = -(PetscInt)di.layout;
  w[10] = di.block_size;
  PetscCallMPI(MPIU_Allreduce(w, wg, 11, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  r[0] = di.bytes_image;
  r[1] = di.bytes_cusparse;
  r[2] = -di.block_density; /* the smallest */
  PetscCallMPI(MPIU_Allreduce(r, rg, 2, MPIU_REAL, MPI_SUM, PetscObjectComm((PetscObject)A)));
  PetscCallMPI(MPIU_Allreduce(&r[2], &rg[2], 1, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->slice_height           = wg[3];
  info->slice_height_min       = -wg[4];
  info->nslices                = (PetscInt)glob[0];
  info->nslots                 = glob[1];
  info->noffdiag               = glob[2];
  info->nlocal                 = glob[3];
  info->device_bytes           = (size_t)glob[4];
  info->max_width              = wg[0];
  info->padding_ratio          = glob[2] ? (PetscReal)glob[1] / (PetscReal)glob[2] : 1.0;
  info->local_fraction         = glob[2] ? (PetscReal)glob[3] / (PetscReal)glob[2] : 0.0;
  info->ordering               = wg[1] == -wg[2] ? (MatModSELLOrdering)wg[1] : MATMODSELL_ORDERING_AUTO;
  info->natural_local_fraction = glob[6] ? (PetscReal)glob[5] / (PetscReal)glob[6] : -1.0;
  info->permute_bytes          = (size_t)glob[7];
  info->natural_local_stride   = wg[5];
  info->row_lanes              = wg[6];
  info->natural_window         = glob[9] ? (PetscReal)glob[8] / (PetscReal)glob[9] : -1.0;
  info->natural_windowed       = glob[10] ? PETSC_TRUE : PETSC_FALSE;
  info->row_lanes_min          = -wg[7];
  info->layout                 = wg[8] == -wg[9] ? (MatModSELLLayout)wg[8] : MATMODSELL_LAYOUT_AUTO;
  info->block_size             = wg[10];
  info->bytes_image            = rg[0];
  info->bytes_cusparse         = rg[1];
  info->block_density          = -rg[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The overlapped GPU product (MatMultAddOverlap_MPIAIJModSELL()) and its halo exchange */
static PetscErrorCode MatMPIAIJModSELLHaloFreeOwn(MSMPIHalo *h)
{
  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLHaloFreeIPC(h)); /* on the lists below */
  PetscCall(PetscFree4(h->sranks, h->rranks, h->soff, h->roff));
  PetscCall(PetscFree(h->reqs));
  if (h->d_sidx) PetscCallCUDA(cudaFree(h->d_sidx));
  if (h->d_ridx) PetscCallCUDA(cudaFree(h->d_ridx));
  if (h->d_sbuf) PetscCallCUDA(cudaFree(h->d_sbuf));
  if (h->d_rbuf) PetscCallCUDA(cudaFree(h->d_rbuf));
  if (h->h_sbuf) PetscCallCUDA(cudaFreeHost(h->h_sbuf));
  if (h->h_rbuf) PetscCallCUDA(cudaFreeHost(h->h_rbuf));
  h->d_sidx = h->d_ridx = NULL;
  h->d_sbuf = h->d_rbuf = h->h_sbuf = h->h_rbuf = NULL;
  h->own                = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The own exchange's lists from the scatter's PetscSF (the same messages as PETSc's: for each process referencing
   this one's entries, the entries to send, in the order the receiver unpacks them); not when the SF has a local
   (self) part, which MPIAIJ's ghost scatter has not, or is not of the basic type: then PETSc's VecScatter */
static PetscErrorCode MatMPIAIJModSELLHaloSetUpOwn(Mat A, MSMPIHalo *h)
{
  PetscMPIInt        nr, ns, rank;
  const PetscMPIInt *rr, *sr;
  const PetscInt    *roff, *rmine, *rremote, *soff, *sidx;
  PetscBool          basic, self, inorder = PETSC_TRUE;
  int               *tmp;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLHaloFreeOwn(h));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscSFSetUp(h->scat));
  PetscCall(PetscObjectTypeCompare((PetscObject)h->scat, PETSCSFBASIC, &basic)); /* VecScatterCreate() may pick another SF type for special patterns */
  self = (PetscBool)!basic;
  if (basic) {
    PetscCall(PetscSFGetRootRanks(h->scat, &nr, &rr, &roff, &rmine, &rremote));
    PetscCall(PetscSFGetLeafRanks(h->scat, &ns, &sr, &soff, &sidx));
    for (PetscMPIInt i = 0; i < nr; i++) self = (PetscBool)(self || rr[i] == rank);
    for (PetscMPIInt i = 0; i < ns; i++) self = (PetscBool)(self || sr[i] == rank);
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &self, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  if (self) PetscFunctionReturn(PETSC_SUCCESS);
  h->nsend = ns;
  h->nrecv = nr;
  PetscCall(PetscMalloc4(ns, &h->sranks, nr, &h->rranks, ns + 1, &h->soff, nr + 1, &h->roff));
  PetscCall(PetscArraycpy(h->sranks, sr, ns));
  PetscCall(PetscArraycpy(h->rranks, rr, nr));
  PetscCall(PetscArraycpy(h->soff, soff, ns + 1));
  PetscCall(PetscArraycpy(h->roff, roff, nr + 1));
  PetscCall(PetscMalloc1(ns + nr, &h->reqs));
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &h->tag));
  PetscCall(PetscMalloc1(PetscMax(soff[ns], roff[nr]) + 1, &tmp));
  if (soff[ns]) {
    if (h->sstart < 0) { /* a pack kernel; contiguous: copied to the host straight from x */
      for (PetscInt k = 0; k < soff[ns]; k++) tmp[k] = (int)sidx[k];
      PetscCall(MSDeviceMalloc((void **)&h->d_sidx, (size_t)soff[ns] * sizeof(int), "the send list of the halo exchange"));
      PetscCall(MSDeviceMalloc((void **)&h->d_sbuf, (size_t)soff[ns] * sizeof(double), "the send buffer of the halo exchange"));
      PetscCallCUDA(cudaMemcpy(h->d_sidx, tmp, (size_t)soff[ns] * sizeof(int), cudaMemcpyHostToDevice));
    }
    PetscCallCUDA(cudaMallocHost((void **)&h->h_sbuf, (size_t)soff[ns] * sizeof(double)));
  }
  if (roff[nr]) {
    for (PetscInt k = 0; k < roff[nr]; k++) {
      tmp[k]  = (int)rmine[k];
      inorder = (PetscBool)(inorder && rmine[k] == k);
    }
    if (!inorder) {
      PetscCall(MSDeviceMalloc((void **)&h->d_ridx, (size_t)roff[nr] * sizeof(int), "the receive list of the halo exchange"));
      PetscCall(MSDeviceMalloc((void **)&h->d_rbuf, (size_t)roff[nr] * sizeof(double), "the receive buffer of the halo exchange"));
      PetscCallCUDA(cudaMemcpy(h->d_ridx, tmp, (size_t)roff[nr] * sizeof(int), cudaMemcpyHostToDevice));
    }
    PetscCallCUDA(cudaMallocHost((void **)&h->h_rbuf, (size_t)roff[nr] * sizeof(double)));
  }
  PetscCall(PetscFree(tmp));
  h->own = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ghost = x's ghost values through the pinned buffers, on PETSc's stream. Begin: the receives posted, the values to send
   packed by a kernel (or, when contiguous in x, copied straight from x) and copied to the host, the sends started;
   End: the messages waited for, the copy to the device (into the ghost vector when the receive list is in order, else
   into a buffer and an unpack kernel) */
static PetscErrorCode MatMPIAIJModSELLHaloExchangeOwnBegin(Mat A, MSMPIHalo *h, Vec x)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  const PetscInt     nsv  = h->soff[h->nsend];
  const PetscScalar *xa;
  PetscMemType       mt;
  cudaStream_t       st;
  PetscMPIInt        nq = 0;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&st));
  for (PetscMPIInt i = 0; i < h->nrecv; i++) PetscCallMPI(MPIU_Irecv(h->h_rbuf + h->roff[i], h->roff[i + 1] - h->roff[i], MPIU_SCALAR, h->rranks[i], h->tag, comm, &h->reqs[nq++]));
  if (nsv) {
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The halo exchange expects x on the device");
    if (h->sstart < 0) {
      PetscCall(PetscLogGpuTimeBegin());
      PetscCallCUDA((cudaError_t)MSCUDABucketGather((int)nsv, h->d_sidx, xa, NULL, h->d_sbuf, st));
      PetscCall(PetscLogGpuTimeEnd());
    }
    PetscCallCUDA(cudaMemcpyAsync(h->h_sbuf, h->sstart < 0 ? h->d_sbuf : xa + h->sstart, (size_t)nsv * sizeof(double), cudaMemcpyDeviceToHost, st));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    PetscCallCUDA(cudaStreamSynchronize(st));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)nsv * sizeof(double)));
  }
  for (PetscMPIInt i = 0; i < h->nsend; i++) PetscCallMPI(MPIU_Isend(h->h_sbuf + h->soff[i], h->soff[i + 1] - h->soff[i], MPIU_SCALAR, h->sranks[i], h->tag, comm, &h->reqs[nq++]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJModSELLHaloExchangeOwnEnd(MSMPIHalo *h)
{
  const PetscInt nrv = h->roff[h->nrecv];
  PetscScalar   *g;
  PetscMemType   mt;
  cudaStream_t   st;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&st));
  PetscCallMPI(MPI_Waitall(h->nsend + h->nrecv, h->reqs, MPI_STATUSES_IGNORE));
  PetscCall(VecGetArrayWriteAndMemType(h->ghost, &g, &mt));
  if (nrv) {
    PetscCallCUDA(cudaMemcpyAsync(h->d_ridx ? h->d_rbuf : g, h->h_rbuf, (size_t)nrv * sizeof(double), cudaMemcpyHostToDevice, st));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)nrv * sizeof(double)));
    if (h->d_ridx) {
      PetscCall(PetscLogGpuTimeBegin());
      PetscCallCUDA((cudaError_t)MSCUDABucketScatter((int)nrv, h->d_ridx, h->d_rbuf, g, st));
      PetscCall(PetscLogGpuTimeEnd());
    }
  }
  PetscCall(VecRestoreArrayWriteAndMemType(h->ghost, &g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where the values this process sends lie in x: one contiguous range (sstart, as PETSc's PetscSF then copies them
   without a pack kernel) or not (-1); a PetscSF of another type than basic counts as not contiguous */
static PetscErrorCode MatMPIAIJModSELLHaloSendRange(MSMPIHalo *h)
{
  PetscMPIInt     ns;
  const PetscInt *soff, *sidx;
  PetscBool       basic;

  PetscFunctionBegin;
  h->sstart = -1;
  PetscCall(PetscSFSetUp(h->scat));
  PetscCall(PetscObjectTypeCompare((PetscObject)h->scat, PETSCSFBASIC, &basic));
  if (!basic) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFGetLeafRanks(h->scat, &ns, NULL, &soff, &sidx));
  if (!soff[ns]) {
    h->sstart = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 1; k < soff[ns]; k++)
    if (sidx[k] != sidx[0] + k) PetscFunctionReturn(PETSC_SUCCESS);
  h->sstart = sidx[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJModSELLHaloSetUp(Mat A, Vec x)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  MSMPIHalo         *h  = &mm->halo;
  Mat                Ad, Ao;
  const PetscInt    *garray;
  PetscInt           ng;
  IS                 from;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  if (h->scat && h->Ao == Ao && h->nzstate == A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScatterDestroy(&h->scat));
  PetscCall(VecDestroy(&h->ghost));
  PetscCall(MatGetLocalSize(Ao, NULL, &ng));
  PetscCall(VecCreate(PETSC_COMM_SELF, &h->ghost));
  PetscCall(VecSetSizes(h->ghost, ng, ng));
  PetscCall(VecSetType(h->ghost, VECSEQCUDA));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ng, garray, PETSC_USE_POINTER, &from));
  PetscCall(VecScatterCreate(x, from, h->ghost, NULL, &h->scat));
  PetscCall(ISDestroy(&from));
  h->Ao      = Ao;
  h->nzstate = A->nonzerostate;
  PetscCall(MatMPIAIJModSELLHaloSendRange(h));
  if (h->ipc_opt || (h->pinned && !use_gpu_aware_mpi)) PetscCall(MatMPIAIJModSELLHaloSetUpOwn(A, h));
  else PetscCall(MatMPIAIJModSELLHaloFreeOwn(h));
  if (h->ipc_opt && h->own) PetscCall(MatMPIAIJModSELLHaloSetUpIPC(A, h));
  if (h->own && !h->ipc && !(h->pinned && !use_gpu_aware_mpi)) PetscCall(MatMPIAIJModSELLHaloFreeOwn(h)); /* IPC could not be set up: PETSc's exchange */
  /* the IPC exchange's start (a pack, an event, messages) never waits for the device: always before the kernel */
  h->exfirst = h->exfirst_opt == PETSC_BOOL3_UNKNOWN ? (PetscBool)(h->ipc || h->sstart < 0) : (PetscBool)(h->exfirst_opt == PETSC_BOOL3_TRUE);
  PetscCall(PetscInfo(A, "MATMPIAIJMODSELL overlapped product: the values to send %s; the exchange (%s) starts %s the diagonal block's kernel\n", h->sstart < 0 ? "packed by a kernel" : "contiguous in x", h->ipc ? "CUDA IPC" : (h->own ? "pinned host buffers" : "PETSc's VecScatter"), h->exfirst ? "before" : "after"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJModSELLHaloDestroy(MSMPIHalo *h)
{
  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLHaloFreeOwn(h));
  PetscCall(VecScatterDestroy(&h->scat));
  PetscCall(VecDestroy(&h->ghost));
  PetscCall(PetscDeviceContextDestroy(&h->side));
  h->Ao = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The defaults and the options database's -mat_modsell_overlap and -mat_modsell_pinned_halo, once (a matrix that
   MatSetFromOptions() never sees, e.g. from DMCreateMatrix(), reads them at its first product) */
static PetscErrorCode MatMPIAIJModSELLHaloReadOptions(Mat A)
{
  MSMPIHalo *h = &((Mat_MPIAIJModSELL *)A->spptr)->halo;

  PetscFunctionBegin;
  if (h->read) PetscFunctionReturn(PETSC_SUCCESS);
  h->overlap     = PETSC_TRUE;
  h->pinned      = PETSC_FALSE;
  h->exfirst_opt = PETSC_BOOL3_UNKNOWN;
  h->ipc_opt     = PETSC_TRUE; /* the default: 4 x H200, 2026-11-27, 1.249 ms per CG iteration against 1.775 through the host (docs/results/2026-11-27-h200x4-periter) */
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_modsell_overlap", &h->overlap, NULL));
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_modsell_pinned_halo", &h->pinned, NULL));
  PetscCall(PetscOptionsGetBool3(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_modsell_overlap_exchange_first", &h->exfirst_opt, NULL));
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_modsell_ipc_halo", &h->ipc_opt, NULL));
  h->read = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device product y = [w +] A x of MPIAIJ (PETSc's MatMult_MPIAIJ: start the halo exchange, the diagonal block's
   product, end the exchange, the off-diagonal block's) launches the diagonal block's kernel only after the exchange's
   pack kernel, its copy to the host and a synchronization of the stream (MPI is not CUDA-aware), and the copy back
   and the unpack kernel queue behind it: on two H200s at 256^3 rows per process 0.12 ms of the halo's 0.27 ms stayed
   exposed (bench/halo.c, 2026-11-24, commit 23c0d5f, not under docs/results). Here the diagonal block's kernel runs
   on a second, non-blocking stream while the whole exchange runs on PETSc's stream; PETSc's stream waits for it
   before the off-diagonal block adds its part. The same arithmetic as MPIAIJ's product, in the same order per row. Which is launched first: when the values
   to send must be packed by a kernel (not one contiguous range of x: a process with neighbours on two sides), the
   exchange's start (pack, copy to the host, sends), then the diagonal block's kernel; else the diagonal block's kernel
   first. A pack kernel launched after the diagonal block's kernel, which fills the GPU, waits for its blocks and the
   whole exchange then follows the product: on 4 H200s the product took the diagonal block's time plus the exchange's
   (bench/halo.c, 2026-11-27), while with 2 processes, whose values to send are contiguous (no pack kernel), the
   exchange was hidden. */
static PetscErrorCode MatMultAddOverlap_MPIAIJModSELL(Mat A, Vec x, Vec w, Vec y)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  MSMPIHalo         *h  = &mm->halo;
  Mat                Ad, Ao;
  PetscDeviceContext dctx;
  const PetscScalar *a;
  PetscMemType       mt;
  PetscBool          side;

  PetscFunctionBegin;
  /* x on the device by PETSc's stream (a copy it may need is then not made on the second stream); x in host memory: the
     exchange reads x on the device, so the matrix's CUDA work vector stands for it (the blocks stage w and y themselves) */
  PetscCall(VecGetArrayReadAndMemType(x, &a, &mt));
  PetscCall(VecRestoreArrayReadAndMemType(x, &a));
  if (PetscMemTypeHost(mt)) PetscCall(MatModSELLStageVecIn_Private(A, &mm->stage[0], PETSC_FALSE, x, x, &x));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatMPIAIJModSELLHaloSetUp(A, x));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  /* a diagonal block whose product is its cuSPARSE view (MATMODSELL_LAYOUT_CUSPARSE) computes on PETSc's stream:
     aijcusparse launches its SpMV and its compressed rows' scatter on PetscDefaultCudaStream but its vector operations
     (z = y + A x's z += y, z = 0) on the current context's, so on the second stream these raced with the SpMV (the
     product with w != y and with empty rows was wrong) */
  {
    MatModSELLLayout lay;

    PetscCall(MatSeqAIJModSELLGetProductLayout(Ad, ((Mat_SeqAIJModSELL *)Ad->spptr)->iops, &lay));
    side = (PetscBool)(lay != MATMODSELL_LAYOUT_CUSPARSE);
  }
  if (!h->side) {
    PetscDevice dev;

    PetscCall(PetscDeviceContextGetDevice(dctx, &dev));
    PetscCall(PetscDeviceContextCreate(&h->side));
    PetscCall(PetscDeviceContextSetStreamType(h->side, PETSC_STREAM_NONBLOCKING));
    PetscCall(PetscDeviceContextSetDevice(h->side, dev));
    PetscCall(PetscDeviceContextSetUp(h->side));
  }
  if (w && w != y) {
    PetscCall(VecGetArrayReadAndMemType(w, &a, &mt));
    PetscCall(VecRestoreArrayReadAndMemType(w, &a));
  }
  PetscCall(PetscDeviceContextWaitForContext(h->side, dctx)); /* the second stream waits for x, not for the exchange */
  for (int step = 0; step < 2; step++) {
    if (step == (h->exfirst ? 1 : 0)) { /* the diagonal block's kernel on the second stream */
      if (side) PetscCall(PetscDeviceContextSetCurrentContext(h->side));
      if (w) PetscCall((*Ad->ops->multadd)(Ad, x, w, y));
      else PetscCall((*Ad->ops->mult)(Ad, x, y));
      if (side) PetscCall(PetscDeviceContextSetCurrentContext(dctx));
    } else if (h->ipc) PetscCall(MatMPIAIJModSELLHaloExchangeIPCBegin(A, h, x));
    else if (h->own) PetscCall(MatMPIAIJModSELLHaloExchangeOwnBegin(A, h, x));
    else PetscCall(VecScatterBegin(h->scat, x, h->ghost, INSERT_VALUES, SCATTER_FORWARD));
  }
  if (h->ipc) PetscCall(MatMPIAIJModSELLHaloExchangeIPCEnd(A, h));
  else if (h->own) PetscCall(MatMPIAIJModSELLHaloExchangeOwnEnd(h));
  else PetscCall(VecScatterEnd(h->scat, x, h->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscDeviceContextWaitForContext(dctx, h->side));
  PetscCall((*Ao->ops->multadd)(Ao, h->ghost, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device products (installed unless the matrix is bound to the CPU: MatBindToCPU_MPIAIJModSELL()): the overlapped
   one, or with -mat_modsell_overlap 0 MPIAIJ's (the exchange, then the blocks' device products) */
static PetscErrorCode MatMult_MPIAIJModSELL(Mat A, Vec x, Vec y)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLHaloReadOptions(A));
  if (mm->halo.overlap) PetscCall(MatMultAddOverlap_MPIAIJModSELL(A, x, NULL, y));
  else PetscCall((*mm->parent.mult)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIAIJModSELL(Mat A, Vec x, Vec w, Vec y)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLHaloReadOptions(A));
  if (mm->halo.overlap) PetscCall(MatMultAddOverlap_MPIAIJModSELL(A, x, w, y));
  else PetscCall((*mm->parent.multadd)(A, x, w, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Where the matrix computes, chosen once, as aijcusparse's MatBindToCPU() swaps its operations: MPIAIJ's operations
   on the blocks' host images, or with CUDA, unless the matrix is bound to the CPU, the device products above and the
   transposed products of the MPI view (mpicusparseview.c), which take vectors in host memory too. MPIAIJ's
   MatBindToCPU() binds the blocks (and its ghost vector) likewise. */
static PetscErrorCode MatMPIAIJModSELLSetBackendOps(Mat A)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (!A->boundtocpu) {
    A->ops->mult             = MatMult_MPIAIJModSELL;
    A->ops->multadd          = MatMultAdd_MPIAIJModSELL;
    A->ops->multtranspose    = MatMultTranspose_MPIAIJModSELL;
    A->ops->multtransposeadd = MatMultTransposeAdd_MPIAIJModSELL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  A->ops->mult             = mm->parent.mult;
  A->ops->multadd          = mm->parent.multadd;
  A->ops->multtranspose    = mm->parent.multtranspose;
  A->ops->multtransposeadd = mm->parent.multtransposeadd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode MatBindToCPU_MPIAIJModSELL(Mat A, PetscBool flg)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  if (mm->parent.bindtocpu) PetscCall((*mm->parent.bindtocpu)(A, flg));
  PetscCall(MatMPIAIJModSELLSetBackendOps(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatSetFromOptions_MPIAIJModSELL(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  if (mm->parent.setfromoptions) PetscCall((*mm->parent.setfromoptions)(A, PetscOptionsObject));
  PetscCall(MatModSELLReadOptions_Private(A, PetscOptionsObject));
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool  ov, pin, ipc;
    PetscBool3 exf;

    PetscCall(MatMPIAIJModSELLHaloReadOptions(A));
    ov  = mm->halo.overlap;
    pin = mm->halo.pinned;
    PetscOptionsHeadBegin(PetscOptionsObject, "MATMPIAIJMODSELL options");
    PetscCall(PetscOptionsBool("-mat_modsell_overlap", "GPU product: the diagonal block's kernel on a second stream while the halo exchange runs (false: MPIAIJ's order)", "MATMPIAIJMODSELL", ov, &ov, NULL));
    PetscCall(PetscOptionsBool("-mat_modsell_pinned_halo", "GPU product with -mat_modsell_overlap and MPI not CUDA-aware: the halo through pinned host buffers of the matrix (default false: PETSc's VecScatter, pageable buffers)", "MATMPIAIJMODSELL", pin, &pin, NULL));
    exf = mm->halo.exfirst_opt; /* PetscOptionsBool3() leaves it when the option is not given */
    PetscCall(PetscOptionsBool3("-mat_modsell_overlap_exchange_first", "GPU product with -mat_modsell_overlap: start the halo exchange before the diagonal block's kernel (default: when the values to send need a pack kernel)", "MATMPIAIJMODSELL", mm->halo.exfirst_opt, &exf, NULL));
    ipc = mm->halo.ipc_opt;
    PetscCall(PetscOptionsBool("-mat_modsell_ipc_halo", "GPU product with -mat_modsell_overlap: the ghost values device to device through CUDA IPC when every neighbour is a process of this node (falls back to the exchange through the host when the handles cannot be mapped; false: that exchange always)", "MATMPIAIJMODSELL", ipc, &ipc, NULL));
    PetscOptionsHeadEnd();
    if (pin != mm->halo.pinned || exf != mm->halo.exfirst_opt || ipc != mm->halo.ipc_opt) mm->halo.Ao = NULL; /* the exchange is set up again */
    mm->halo.exfirst_opt = exf;
    mm->halo.ipc_opt     = ipc;
    mm->halo.overlap = ov;
    mm->halo.pinned  = pin;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIAIJModSELL(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*mm->parent.view)(A, viewer));
  {
    Mat Ad;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    PetscCall(MatModSELLView_Private(A, viewer, PETSC_FALSE, ((Mat_SeqAIJModSELL *)Ad->spptr)->choice.why));
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatMPIAIJModSELLViewCUSPARSE_Private(A, viewer));
  {
    const MSMPIHalo  *h = &mm->halo;
    PetscBool         iascii;
    PetscViewerFormat format;

    /* -mat_view ::ascii_info_detail, once the overlapped device product has run (its exchange is set up): how it
       exchanges the ghost values (not in ::ascii_info, which -ksp_view prints: the line exists only with CUDA) */
    PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
    PetscCall(PetscViewerGetFormat(viewer, &format));
    if (iascii && format == PETSC_VIEWER_ASCII_INFO_DETAIL && h->Ao && h->overlap) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU product: the diagonal block's kernel on a second stream while the halo exchange runs (-mat_modsell_overlap), ghost values through %s\n", h->ipc ? "CUDA IPC from the neighbours' device buffers (-mat_modsell_ipc_halo)" : (h->own ? "pinned host buffers of the matrix (-mat_modsell_pinned_halo)" : "PETSc's VecScatter")));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  halo exchange started %s the diagonal block's kernel on the first process (-mat_modsell_overlap_exchange_first)\n", h->exfirst ? "before" : "after"));
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ -> MPIAIJMODSELL: a new, exactly preallocated matrix (its blocks, and so its ghost vector,
   get this type's settings and vector type from the start) */
static PetscErrorCode MatConvert_MPIAIJ_MPIAIJModSELL(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             B, Ad, Ao;
  PetscInt        m, n, M, N, rstart, *d_nnz, *o_nnz, nrow;
  const PetscInt *ai, *aj;
  PetscBool       done;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(PetscMalloc2(m, &d_nnz, m, &o_nnz));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  for (PetscInt i = 0; i < m; i++) d_nnz[i] = ai[i + 1] - ai[i];
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  for (PetscInt i = 0; i < m; i++) o_nnz[i] = ai[i + 1] - ai[i];
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, m, n, M, N));
  PetscCall(MatSetBlockSizesFromMats(B, A, A));
  PetscCall(MatSetType(B, MATMPIAIJMODSELL));
  PetscCall(MatMPIAIJSetPreallocation(B, 0, d_nnz, 0, o_nnz));
  PetscCall(PetscFree2(d_nnz, o_nnz));
  for (PetscInt i = rstart; i < rstart + m; i++) {
    PetscInt           nz;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(A, i, &nz, &cols, &vals));
    PetscCall(MatSetValues(B, 1, &i, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, i, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatPropagateSymmetryOptions(A, B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* From another MATMPIAIJ subclass (mpiaijcusparse, ...; MatConvert() would copy entry by entry): the same, once the
   blocks' values are on the host (MatGetRow() reads the host arrays) */
static PetscErrorCode MatConvert_MPIAIJOther_MPIAIJModSELL(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                Ad, Ao;
  const PetscScalar *aa;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
  PetscCall(MatSeqAIJGetArrayRead(Ao, &aa));
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &aa));
  PetscCall(MatConvert_MPIAIJ_MPIAIJModSELL(A, type, reuse, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatComposeAll_MPIAIJModSELL(Mat B, PetscBool set)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)B->spptr;

  PetscFunctionBegin;
  PetscCall(MatModSELLComposeConvertFromOthers_Private(B, "mpi", MatConvert_MPIAIJOther_MPIAIJModSELL, set));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJSetPreallocation_C", set ? MatMPIAIJSetPreallocation_MPIAIJModSELL : mm->prealloc));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpiaij_mpiaijmodsell_C", set ? MatConvert_MPIAIJ_MPIAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpiaij_modsell_C", set ? MatConvert_MPIAIJ_MPIAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpiaijmodsell_modsell_C", set ? MatConvert_ModSELL_Same_Private : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLGetSettings_C", set ? MatModSELLGetSettings_MPIAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLApplySettings_C", set ? MatModSELLApplySettings_MPIAIJModSELL : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatModSELLGetInfo_C", set ? MatModSELLGetInfo_MPIAIJModSELL : NULL));
  PetscCall(MatModSELLComposeSetGet_Private(B, set));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", set ? MatProductSetFromOptions_MPIAIJModSELL : NULL));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operations MATMPIAIJMODSELL puts in place of MPIAIJ's (saved in ->parent at its creation): one list, which
   MatCreate_MPIAIJModSELL() installs and MatMPIAIJModSELLStrip() restores; and those that depend on where the matrix
   computes (MatMPIAIJModSELLSetBackendOps()), which MatMPIAIJModSELLStrip() restores too */
#define MS_MPI_BACKEND_OPS(X) X(mult) X(multadd) X(multtranspose) X(multtransposeadd)
#if defined(PETSC_HAVE_CUDA)
  #define MS_MPI_OWN_OPS_CUDA(X) \
    X(bindtocpu, MatBindToCPU_MPIAIJModSELL) \
    X(productsetfromoptions, MatProductSetFromOptions_MPIAIJModSELL) \
    X(getblockdiagonal, MatGetBlockDiagonal_MPIAIJModSELL) \
    X(getvblockdiagonal, MatGetBlockDiagonal_MPIAIJModSELL)
#else
  #define MS_MPI_OWN_OPS_CUDA(X)
#endif
#define MS_MPI_OWN_OPS(X) \
  X(assemblyend, MatAssemblyEnd_MPIAIJModSELL) \
  X(destroy, MatDestroy_MPIAIJModSELL) \
  X(duplicate, MatDuplicate_MPIAIJModSELL) \
  X(view, MatView_MPIAIJModSELL) \
  X(setfromoptions, MatSetFromOptions_MPIAIJModSELL) \
  X(axpy, MatAXPY_MPIAIJModSELL) \
  X(transpose, MatTranspose_MPIAIJModSELL) \
  MS_MPI_OWN_OPS_CUDA(X)

static PetscErrorCode MatMPIAIJModSELLStrip(Mat B, PetscBool blocks)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)B->spptr;

  PetscFunctionBegin;
  if (!mm) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatMPIAIJModSELLDestroyCUSPARSE_Private(B));
  PetscCall(MatMPIAIJModSELLHaloDestroy(&mm->halo));
#endif
#define MS_RESTORE_OP(op, fn) B->ops->op = mm->parent.op;
#define MS_RESTORE_BACKEND_OP(op) B->ops->op = mm->parent.op;
  MS_MPI_OWN_OPS(MS_RESTORE_OP) /* MPIAIJ's operations back */
  MS_MPI_BACKEND_OPS(MS_RESTORE_BACKEND_OP)
#undef MS_RESTORE_BACKEND_OP
#undef MS_RESTORE_OP
  PetscCall(VecDestroy(&mm->stage[0]));
  PetscCall(VecDestroy(&mm->stage[1]));
  if (blocks && B->preallocated) {
    Mat Ad, Ao;

    PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, NULL));
    if (Ad) PetscCall(MatConvert_SeqAIJModSELL_SeqAIJ(Ad, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ad));
    if (Ao) PetscCall(MatConvert_SeqAIJModSELL_SeqAIJ(Ao, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ao));
  }
  /* when destroying, restore nothing: composing a function on the emptied list of MatHeaderMerge() leaks it */
  if (!blocks) mm->prealloc = NULL;
  PetscCall(MatComposeAll_MPIAIJModSELL(B, PETSC_FALSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpiaijmodsell_mpiaij_C", NULL));
  PetscCall(PetscFree(B->spptr));
  PetscCall(MatModSELLResetType_Private(B, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_MPIAIJModSELL_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatModSELLConvertBegin_Private(A, reuse, newmat, &done));
  if (!done) PetscCall(MatMPIAIJModSELLStrip(*newmat, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIAIJModSELL(Mat A)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;
  PetscErrorCode (*destroy)(Mat) = mm ? mm->parent.destroy : NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLStrip(A, PETSC_FALSE));
  PetscCheck(destroy, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIAIJMODSELL without its parent operations");
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With CUDA the results of products on the views (MATMPIAIJCUSPARSE) carry this operation too: Y is then such a result
   (mpicusparseview.c) */
static PetscErrorCode MatAXPY_MPIAIJModSELL(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_MPIAIJModSELL saved;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool isms;

    PetscCall(PetscObjectTypeCompare((PetscObject)Y, MATMPIAIJMODSELL, &isms));
    if (!isms) {
      PetscCall(MatAXPY_MPIAIJModSELL_OnCUSPARSE(Y, a, X, str));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  saved = *(Mat_MPIAIJModSELL *)Y->spptr;
  saved.cs.view   = NULL; /* the copy carries the settings and the parent's operations only */
  saved.cs.ojcopy = NULL;
  PetscCall(PetscMemzero(&saved.halo, sizeof(saved.halo)));
  PetscCall((*saved.parent.axpy)(Y, a, X, str));
  PetscCall(MatModSELLSettingsCopy_Private(&saved.settings, Y)); /* a new matrix moved in with MatHeaderMerge() */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatTranspose_MPIAIJModSELL(Mat A, MatReuse reuse, Mat *B)
{
  Mat_MPIAIJModSELL saved = *(Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*saved.parent.transpose)(A, reuse, B));
  PetscCall(MatModSELLSettingsCopy_Private(&saved.settings, reuse == MAT_INPLACE_MATRIX ? A : *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIAIJModSELL(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_MPIAIJModSELL *mm = (Mat_MPIAIJModSELL *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*mm->parent.duplicate)(A, op, M));
  PetscCall(MatModSELLSettingsCopy_Private(&mm->settings, *M)); /* and to its blocks */
  { /* MatDuplicate() attaches A's DM to *M only after this: the bricks ordering takes the box from A's block */
    Mat Ad, Md;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    PetscCall(MatMPIAIJGetSeqAIJ(*M, &Md, NULL, NULL));
    if (Ad && Md && Ad->spptr && Md->spptr) PetscCall(PetscArraycpy(((Mat_SeqAIJModSELL *)Md->spptr)->box, ((Mat_SeqAIJModSELL *)Ad->spptr)->box, 4));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIAIJMODSELL - MATMODSELL = "modsell" (on several processes) - a `MATMPIAIJ` matrix whose diagonal
   and off-diagonal blocks are `MATSEQAIJMODSELL`. The diagonal block uses the modified SELL kernel
   (and the optional RCM ordering); the off-diagonal block, whose columns are ghost entries, uses
   the plain encoding. On the GPU `MatMult()` runs the diagonal block's product on a second stream while the halo
   exchange (pack, copies through the host when MPI is not CUDA-aware, unpack) runs on PETSc's stream, then adds the
   off-diagonal block's part. Where the matrix and its blocks compute is chosen once, by `MatBindToCPU()`, as for
   `MATSEQAIJMODSELL`; vectors in host memory are accepted by the GPU operations (x copied to a CUDA work vector of the
   matrix, the blocks staging the others).

   Options Database Keys: as `MATSEQAIJMODSELL`, and
.  -mat_modsell_overlap <true> - on the GPU, the diagonal block's product overlapped with the halo exchange on a
   second stream (false: MPIAIJ's product, the exchange's pack and copy to the host before the diagonal kernel)
.  -mat_modsell_pinned_halo <false> - with the overlap and an MPI that is not CUDA-aware (`-use_gpu_aware_mpi 0`), the
   halo through pinned host buffers of the matrix (default: PETSc's `VecScatter`, whose host buffers are pageable; on
   4 H200s at 256^3 rows per process 0.494 ms per product against 0.659 through PETSc's exchange and 0.436 through
   CUDA IPC, 2026-11-27, docs/results/2026-11-27-h200x4-halo)
.  -mat_modsell_ipc_halo <true> - with the overlap, the ghost values copied device to device from the neighbours'
   send buffers through CUDA IPC (every neighbour a process of this node; no copy through the host, no stream
   synchronization; it also works when CUDA_VISIBLE_DEVICES shows each process only its own GPU, 2 x H100 with CUDA
   13.0; when a process cannot map its neighbours' handles, every process keeps the exchange through the host and
   -info says why). 4 x H200, ex45 CG + Jacobi at 256^3 rows per GPU: 1.249 ms per iteration against 1.775 through the
   host (2026-11-27, docs/results/2026-11-27-h200x4-periter). False: the exchange through the host
   (`-mat_modsell_pinned_halo` or PETSc's `VecScatter`)
-  -mat_modsell_overlap_exchange_first <auto> - with the overlap, start the halo exchange before the diagonal block's
   kernel (default: when this process's values to send are not one contiguous range of x and must be packed by a
   kernel: launched after the diagonal block's kernel, the pack kernel waits for its blocks, and the whole exchange
   then follows the product, as it did on 4 H200s; contiguous values are copied straight from x, as with 2 processes)

   Note:
   `-mat_view ::ascii_info_detail` (PETSc with CUDA, once the overlapped product has run) names how the product
   exchanges the ghost values.

   Level: beginner

.seealso: `MATMODSELL`, `MATSEQAIJMODSELL`, `MatCreateModSELL()`, `MATMPIAIJ`
M*/
PetscErrorCode MatCreate_MPIAIJModSELL(Mat A)
{
  Mat_MPIAIJModSELL *mm;

  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATMPIAIJ));
  PetscCall(PetscNew(&mm));
  PetscCall(MatModSELLSettingsSetDefaults_Private(&mm->settings));
  PetscCall(PetscMemcpy(&mm->parent, A->ops, sizeof(struct _MatOps)));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &mm->prealloc));
  PetscCheck(mm->prealloc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATMPIAIJ has no MatMPIAIJSetPreallocation_C");
  A->spptr = mm;
#define MS_SET_OP(op, fn) A->ops->op = fn;
  MS_MPI_OWN_OPS(MS_SET_OP)
#undef MS_SET_OP
  PetscCall(MatComposeAll_MPIAIJModSELL(A, PETSC_TRUE));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatConvert_mpiaijmodsell_mpiaij_C", MatConvert_MPIAIJModSELL_MPIAIJ));
  PetscCall(MatModSELLSetType_Private(A, MATMPIAIJMODSELL));
  PetscCall(MatMPIAIJModSELLSetBackendOps(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
