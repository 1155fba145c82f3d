/*
   The halo exchange of MATMPIAIJMODSELL's overlapped GPU product through CUDA IPC (-mat_modsell_ipc_halo): for
   processes of one node, the ghost values go from the owner's device memory to the user's device memory in one
   device-to-device copy (over NVLink between GPUs), with no copy through the host and no stream synchronization.
   PETSc's VecScatter with an MPI that is not CUDA-aware copies to pageable host memory, synchronizes, sends through
   MPI and copies back: 0.34-0.66 ms per product with 256^3 rows per process on 2 and 4 H200s (2026-11-27,
   docs/results/2026-11-27-h200x4-halo), longer
   than the diagonal block's product it overlaps once each GPU has fewer than about 10 M rows.

   Setup (collective, at the first product and after a change of the nonzero pattern), on the send and receive lists of
   the matrix's own exchange (MatMPIAIJModSELLHaloSetUpOwn(): the ghost scatter's PetscSF): every process allocates a
   device send buffer and two interprocess events, sends each destination the buffer's and the ready event's IPC handles
   and the offset of that destination's part, and each source its done event's handle; each process maps what it
   received. If any neighbour is on another node or any mapping fails (e.g. CUDA_VISIBLE_DEVICES hides the other GPUs
   from a process), no process uses IPC (PetscInfo() says why) and the product keeps the pinned or PETSc's exchange.

   Per product, on PETSc's stream of each process:
     Begin: after the previous product's "done" messages of the destinations, wait (on the stream) for their done
            events, so that the send buffer is not overwritten while a destination still copies from it; pack x's values
            to send into the send buffer (a copy when they are contiguous in x, else a gather kernel); record the ready
            event; send each destination a "ready" message (after the record, so that its wait sees this record).
     End:   for each source, receive its "ready" message, wait (on the stream) for its ready event, copy its part
            device to device into the ghost vector (or into a buffer when the ghost order differs, then a scatter
            kernel); record the done event; send each source a "done" message; post the receives of the next product's
            "done" messages.
   The diagonal block's kernel runs on the second stream between Begin and End (mpiaijmodsell.c), so the copies overlap
   it. The messages are one int each; MPI keeps their order per pair of processes.
*/
#include <petscmodsell/private/modsellimpl.h>
#include <petscdevice.h>
#include <petscsf.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <petscmodsell/private/modsellcuda.h>

/* what a source sends a destination at setup */
typedef struct {
  cudaIpcMemHandle_t   mem;
  cudaIpcEventHandle_t ready;
  PetscInt             offset, count; /* the destination's part of the send buffer */
} MSIPCOffer;

/* complete the messages of the last product still outstanding: its ready sends, done sends and done receives (every
   process ends each product it starts, so these complete) */
static PetscErrorCode MSIPCWaitMessages(MSMPIHalo *h)
{
  const PetscMPIInt ns = h->nsend, nr = h->nrecv;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Waitall(ns, h->irq, MPI_STATUSES_IGNORE));
  PetscCallMPI(MPI_Waitall(nr, h->irq + ns + nr, MPI_STATUSES_IGNORE));
  PetscCallMPI(MPI_Waitall(ns, h->irq + ns + 2 * nr, MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the last product's messages completed, and the copies that read this process's send buffer and the ones this
   process made done */
static PetscErrorCode MSIPCQuiesce(MSMPIHalo *h)
{
  PetscFunctionBegin;
  if (h->ipc_pending) {
    PetscCall(MSIPCWaitMessages(h));
    for (PetscMPIInt j = 0; j < h->nsend; j++) PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)h->peer_done[j]));
    if (h->ev_done) PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)h->ev_done));
    h->ipc_pending = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIAIJModSELLHaloFreeIPC(MSMPIHalo *h)
{
  PetscFunctionBegin;
  if (h->ipc) PetscCall(MSIPCQuiesce(h));
  for (PetscMPIInt i = 0; h->peer_base && i < h->nrecv; i++)
    if (h->peer_base[i]) PetscCallCUDA(cudaIpcCloseMemHandle(h->peer_base[i]));
  for (PetscMPIInt i = 0; h->peer_ready && i < h->nrecv; i++)
    if (h->peer_ready[i]) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)h->peer_ready[i]));
  for (PetscMPIInt j = 0; h->peer_done && j < h->nsend; j++)
    if (h->peer_done[j]) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)h->peer_done[j]));
  PetscCall(PetscFree4(h->peer, h->peer_base, h->peer_ready, h->peer_done));
  PetscCall(PetscFree2(h->irq, h->ibuf));
  if (h->ev_ready) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)h->ev_ready));
  if (h->ev_done) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)h->ev_done));
  if (h->d_isbuf) PetscCallCUDA(cudaFree(h->d_isbuf));
  h->ev_ready = h->ev_done = NULL;
  h->d_isbuf              = NULL;
  h->ipc                  = PETSC_FALSE;
  h->ipc_pending          = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether every neighbour (source or destination) is a process of this node */
static PetscErrorCode MSIPCNeighboursOnNode(MPI_Comm comm, MSMPIHalo *h, PetscBool *on)
{
  MPI_Comm     node;
  MPI_Group    g, gn;
  PetscMPIInt  n = h->nsend + h->nrecv, *r, *rn;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_group(comm, &g));
  PetscCallMPI(MPI_Comm_group(node, &gn));
  PetscCall(PetscMalloc2(n, &r, n, &rn));
  for (PetscMPIInt i = 0; i < h->nsend; i++) r[i] = h->sranks[i];
  for (PetscMPIInt i = 0; i < h->nrecv; i++) r[h->nsend + i] = h->rranks[i];
  if (n) PetscCallMPI(MPI_Group_translate_ranks(g, n, r, gn, rn));
  *on = PETSC_TRUE;
  for (PetscMPIInt i = 0; i < n; i++) *on = (PetscBool)(*on && rn[i] != MPI_UNDEFINED);
  PetscCall(PetscFree2(r, rn));
  PetscCallMPI(MPI_Group_free(&g));
  PetscCallMPI(MPI_Group_free(&gn));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIAIJModSELLHaloSetUpIPC(Mat A, MSMPIHalo *h)
{
  MPI_Comm                comm = PetscObjectComm((PetscObject)A);
  const PetscMPIInt       ns = h->nsend, nr = h->nrecv;
  MSIPCOffer             *out = NULL, *in = NULL;
  cudaIpcEventHandle_t   *dout = NULL, *din = NULL, done;
  MPI_Request            *rq;
  PetscBool               on, ok = PETSC_TRUE;
  PetscMPIInt             tag[2], k = 0;
  const char             *why = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJModSELLHaloFreeIPC(h));
  PetscCheck(h->own, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The IPC exchange needs the matrix's own send and receive lists");
  PetscCall(MSIPCNeighboursOnNode(comm, h, &on));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &on, 1, MPI_C_BOOL, MPI_LAND, comm));
  if (!on) {
    PetscCall(PetscInfo(A, "MATMPIAIJMODSELL: no CUDA IPC halo exchange (a neighbour is a process of another node)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* this process's send buffer and events */
  if (h->soff[ns]) PetscCall(MSDeviceMalloc((void **)&h->d_isbuf, (size_t)h->soff[ns] * sizeof(double), "the send buffer of the CUDA IPC halo exchange"));
  PetscCallCUDA(cudaEventCreateWithFlags((cudaEvent_t *)&h->ev_ready, cudaEventDisableTiming | cudaEventInterprocess));
  PetscCallCUDA(cudaEventCreateWithFlags((cudaEvent_t *)&h->ev_done, cudaEventDisableTiming | cudaEventInterprocess));
  PetscCall(PetscCalloc4(nr, &h->peer, nr, &h->peer_base, nr, &h->peer_ready, ns, &h->peer_done));
  PetscCall(PetscMalloc2(2 * (ns + nr), &h->irq, ns + nr, &h->ibuf));
  /* the handles: offers to the destinations, done events to the sources */
  PetscCall(PetscMalloc4(ns, &out, nr, &in, ns, &din, nr, &dout));
  PetscCall(PetscMalloc1(2 * (ns + nr), &rq));
  PetscCallCUDA(cudaIpcGetEventHandle(&done, (cudaEvent_t)h->ev_done));
  for (PetscMPIInt j = 0; j < ns; j++) {
    PetscCall(PetscMemzero(&out[j], sizeof(out[j])));
    if (h->d_isbuf) PetscCallCUDA(cudaIpcGetMemHandle(&out[j].mem, h->d_isbuf));
    PetscCallCUDA(cudaIpcGetEventHandle(&out[j].ready, (cudaEvent_t)h->ev_ready));
    out[j].offset = h->soff[j];
    out[j].count  = h->soff[j + 1] - h->soff[j];
  }
  for (PetscMPIInt i = 0; i < nr; i++) dout[i] = done;
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &tag[0]));
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &tag[1]));
  for (PetscMPIInt i = 0; i < nr; i++) PetscCallMPI(MPI_Irecv(&in[i], (PetscMPIInt)sizeof(MSIPCOffer), MPI_BYTE, h->rranks[i], tag[0], comm, &rq[k++]));
  for (PetscMPIInt j = 0; j < ns; j++) PetscCallMPI(MPI_Irecv(&din[j], (PetscMPIInt)sizeof(cudaIpcEventHandle_t), MPI_BYTE, h->sranks[j], tag[1], comm, &rq[k++]));
  for (PetscMPIInt j = 0; j < ns; j++) PetscCallMPI(MPI_Isend(&out[j], (PetscMPIInt)sizeof(MSIPCOffer), MPI_BYTE, h->sranks[j], tag[0], comm, &rq[k++]));
  for (PetscMPIInt i = 0; i < nr; i++) PetscCallMPI(MPI_Isend(&dout[i], (PetscMPIInt)sizeof(cudaIpcEventHandle_t), MPI_BYTE, h->rranks[i], tag[1], comm, &rq[k++]));
  PetscCallMPI(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));
  /* map what the neighbours offer (a failure is not an error: the exchange falls back) */
  for (PetscMPIInt i = 0; ok && i < nr; i++) {
    const PetscInt cnt = h->roff[i + 1] - h->roff[i];
    cudaError_t    e;

    if (in[i].count != cnt) {
      ok  = PETSC_FALSE;
      why = "the sizes of the sources' parts differ from the receive list";
      break;
    }
    if (!cnt) continue;
    e = cudaIpcOpenMemHandle(&h->peer_base[i], in[i].mem, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      h->peer_base[i] = NULL;
      ok              = PETSC_FALSE;
      why             = cudaGetErrorString(e);
      break;
    }
    h->peer[i] = (const double *)h->peer_base[i] + in[i].offset;
    e          = cudaIpcOpenEventHandle((cudaEvent_t *)&h->peer_ready[i], in[i].ready);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      h->peer_ready[i] = NULL;
      ok               = PETSC_FALSE;
      why              = cudaGetErrorString(e);
    }
  }
  for (PetscMPIInt j = 0; ok && j < ns; j++) {
    cudaError_t e = cudaIpcOpenEventHandle((cudaEvent_t *)&h->peer_done[j], din[j]);

    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      h->peer_done[j] = NULL;
      ok              = PETSC_FALSE;
      why             = cudaGetErrorString(e);
    }
  }
  PetscCall(PetscFree4(out, in, din, dout));
  PetscCall(PetscFree(rq));
  if (!ok) PetscCall(PetscInfo(A, "MATMPIAIJMODSELL: this process cannot map a neighbour's CUDA IPC handles (%s)\n", why));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, comm));
  if (!ok) {
    PetscCall(PetscInfo(A, "MATMPIAIJMODSELL: no CUDA IPC halo exchange (a process could not map its neighbours' buffers); the product keeps the other exchange\n"));
    PetscCall(MatMPIAIJModSELLHaloFreeIPC(h));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &h->tag_ready));
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &h->tag_done));
  h->ipc = PETSC_TRUE;
  PetscCall(PetscInfo(A, "MATMPIAIJMODSELL: the halo exchange through CUDA IPC (%d sources, %d destinations on this process)\n", (int)nr, (int)ns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIAIJModSELLHaloExchangeIPCBegin(Mat A, MSMPIHalo *h, Vec x)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  const PetscInt     nsv  = h->soff[h->nsend];
  const PetscMPIInt  ns = h->nsend, nr = h->nrecv;
  static PetscMPIInt one = 1;
  const PetscScalar *xa;
  PetscMemType       mt;
  cudaStream_t       st;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&st));
  if (h->ipc_pending) { /* the destinations have copied the previous product's values (on the device: their done events) */
    PetscCall(MSIPCWaitMessages(h));
    for (PetscMPIInt j = 0; j < ns; j++) PetscCallCUDA(cudaStreamWaitEvent(st, (cudaEvent_t)h->peer_done[j], 0));
    h->ipc_pending = PETSC_FALSE;
  }
  if (nsv) {
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The halo exchange expects x on the device");
    if (h->sstart < 0) {
      PetscCall(PetscLogGpuTimeBegin());
      PetscCallCUDA((cudaError_t)MSCUDABucketGather((int)nsv, h->d_sidx, xa, NULL, h->d_isbuf, st));
      PetscCall(PetscLogGpuTimeEnd());
    } else PetscCallCUDA(cudaMemcpyAsync(h->d_isbuf, xa + h->sstart, (size_t)nsv * sizeof(double), cudaMemcpyDeviceToDevice, st));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  }
  PetscCallCUDA(cudaEventRecord((cudaEvent_t)h->ev_ready, st));
  for (PetscMPIInt i = 0; i < nr; i++) PetscCallMPI(MPI_Irecv(&h->ibuf[i], 1, MPI_INT, h->rranks[i], h->tag_ready, comm, &h->irq[ns + i]));
  for (PetscMPIInt j = 0; j < ns; j++) PetscCallMPI(MPI_Isend(&one, 1, MPI_INT, h->sranks[j], h->tag_ready, comm, &h->irq[j]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIAIJModSELLHaloExchangeIPCEnd(Mat A, MSMPIHalo *h)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  const PetscInt     nrv  = h->roff[h->nrecv];
  const PetscMPIInt  ns = h->nsend, nr = h->nrecv;
  static PetscMPIInt one = 1;
  PetscScalar       *g;
  PetscMemType       mt;
  cudaStream_t       st;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&st));
  PetscCall(VecGetArrayWriteAndMemType(h->ghost, &g, &mt));
  for (PetscMPIInt i = 0; i < nr; i++) {
    const PetscInt cnt = h->roff[i + 1] - h->roff[i];

    PetscCallMPI(MPI_Wait(&h->irq[ns + i], MPI_STATUS_IGNORE));
    if (!cnt) continue;
    PetscCallCUDA(cudaStreamWaitEvent(st, (cudaEvent_t)h->peer_ready[i], 0));
    PetscCallCUDA(cudaMemcpyAsync((h->d_ridx ? h->d_rbuf : g) + h->roff[i], h->peer[i], (size_t)cnt * sizeof(double), cudaMemcpyDeviceToDevice, st));
  }
  if (nrv && h->d_ridx) {
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCUDA((cudaError_t)MSCUDABucketScatter((int)nrv, h->d_ridx, h->d_rbuf, g, st));
    PetscCall(PetscLogGpuTimeEnd());
  }
  PetscCall(VecRestoreArrayWriteAndMemType(h->ghost, &g));
  PetscCallCUDA(cudaEventRecord((cudaEvent_t)h->ev_done, st));
  for (PetscMPIInt j = 0; j < ns; j++) PetscCallMPI(MPI_Irecv(&h->ibuf[nr + j], 1, MPI_INT, h->sranks[j], h->tag_done, comm, &h->irq[ns + 2 * nr + j]));
  for (PetscMPIInt i = 0; i < nr; i++) PetscCallMPI(MPI_Isend(&one, 1, MPI_INT, h->rranks[i], h->tag_done, comm, &h->irq[ns + nr + i]));
  h->ipc_pending = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
