/*
   Host-to-device copies of large host arrays (the CSR of a host-assembled matrix) for the mod-SELL image, and
   device-to-host copies of large results kept on the host (MSCopyDeviceToHost(): PCGAMG's graph).

   A cudaMemcpy from pageable memory is staged by the CUDA driver through its own pinned buffers by one
   host thread, at the speed of one core's memcpy (5-8 GB/s measured on the H200 machines, against ~50 GB/s
   for the link). MSCopyHostToDevice() splits the copy among worker threads instead: each copies its range
   in chunks into two pinned buffers of its own and sends them on its own stream, so the memcpy work of
   several cores overlaps with the DMA. The pinned buffers, streams and events of the workers are kept for
   the next copy (freed at PetscFinalize()).

   The call is synchronous with respect to the host: when it returns the data is on the device, and work
   queued on `stream` before it (e.g. the stream-ordered allocation of dst) was waited for.

   Options (read by MATMODSELL's options, settings of the process): -mat_modsell_upload_threads <n> (default 8;
   1: plain cudaMemcpy), -mat_modsell_upload_chunk <bytes> (default 4 MiB; copies of less than 4 chunks are
   one cudaMemcpy).
*/
#include <petscmodsell/private/modsellimpl.h>

static double ms_alloc_limit = 0; /* 0: none */

PetscErrorCode MSDeviceSetAllocLimit(double bytes)
{
  PetscFunctionBegin;
  PetscCheck(bytes >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-modsell_device_alloc_limit %g: give a number of bytes >= 0 (0: no limit)", bytes);
  ms_alloc_limit = bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_modsell_upload_threads and -mat_modsell_upload_chunk (used by the CUDA build; accepted and checked by every build) */
#define MS_UPLOAD_MAXTHREADS 32
static PetscInt ms_upload_threads = 8;               /* threads copying a large array */
static size_t   ms_upload_chunk   = (size_t)4 << 20; /* bytes per pinned buffer */

PetscErrorCode MSUploadSetThreads(PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(n >= 1 && n <= MS_UPLOAD_MAXTHREADS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_modsell_upload_threads %" PetscInt_FMT ": give 1 (one cudaMemcpy) to %d threads", n, MS_UPLOAD_MAXTHREADS);
  ms_upload_threads = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSUploadGetThreads(PetscInt *n)
{
  PetscFunctionBegin;
  *n = ms_upload_threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSUploadSetChunk(PetscInt bytes)
{
  PetscFunctionBegin;
  PetscCheck(bytes >= 4096 && bytes <= ((PetscInt)1 << 30), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_modsell_upload_chunk %" PetscInt_FMT ": give 4096 to 2^30 bytes", bytes);
  ms_upload_chunk = (size_t)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSUploadGetChunk(PetscInt *bytes)
{
  PetscFunctionBegin;
  *bytes = (PetscInt)ms_upload_chunk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <pthread.h>


typedef struct {
  int          device;
  cudaStream_t stream;
  cudaEvent_t  done[2];
  void        *buf[2];
} MSUploadWorker;

typedef struct {
  MSUploadWorker *w;
  size_t          chunk;
  cudaEvent_t     start;
  char           *dst;
  const char     *src;
  size_t          bytes;
  cudaError_t     err;
  PetscBool       d2h; /* device to host (MSCopyDeviceToHost()) */
} MSUploadJob;

static MSUploadWorker ms_workers[MS_UPLOAD_MAXTHREADS];
static PetscInt       ms_nworkers = 0;       /* workers with resources */
static size_t         ms_pool_chunk     = 0;                 /* the chunk size the workers' buffers have */
static PetscBool      ms_finalize_registered = PETSC_FALSE;

static PetscErrorCode MSUploadFinalize(void)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < ms_nworkers; k++) {
    MSUploadWorker *w = &ms_workers[k];
    for (int b = 0; b < 2; b++) {
      if (w->buf[b]) PetscCallCUDA(cudaFreeHost(w->buf[b]));
      if (w->done[b]) PetscCallCUDA(cudaEventDestroy(w->done[b]));
    }
    if (w->stream) PetscCallCUDA(cudaStreamDestroy(w->stream));
    PetscCall(PetscMemzero(w, sizeof(*w)));
  }
  ms_nworkers            = 0;
  ms_finalize_registered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSUploadEnsureWorkers(PetscInt n, int device)
{
  PetscFunctionBegin;
  if (ms_nworkers && (ms_workers[0].device != device || ms_pool_chunk != ms_upload_chunk)) PetscCall(MSUploadFinalize());
  ms_pool_chunk = ms_upload_chunk;
  for (PetscInt k = ms_nworkers; k < n; k++) {
    MSUploadWorker *w = &ms_workers[k];
    w->device         = device;
    PetscCallCUDA(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking));
    for (int b = 0; b < 2; b++) {
      PetscCallCUDA(cudaEventCreateWithFlags(&w->done[b], cudaEventDisableTiming));
      PetscCallCUDA(cudaHostAlloc(&w->buf[b], ms_pool_chunk, cudaHostAllocDefault));
    }
    ms_nworkers = k + 1;
  }
  if (!ms_finalize_registered) {
    PetscCall(PetscRegisterFinalize(MSUploadFinalize));
    ms_finalize_registered = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* worker: its range in chunks, alternating between its two pinned buffers */
static void *MSUploadRun(void *arg)
{
  MSUploadJob    *job = (MSUploadJob *)arg;
  MSUploadWorker *w   = job->w;
  cudaError_t     err;
  size_t          off = 0;
  int             b   = 0;

  if ((err = cudaSetDevice(w->device))) goto done;
  if ((err = cudaStreamWaitEvent(w->stream, job->start, 0))) goto done;
  if (job->d2h) { /* chunk k copied into buffer k % 2 while chunk k - 1 is copied out of the other one */
    size_t prev = 0, pn = 0;
    while (off < job->bytes) {
      const size_t n = job->bytes - off < job->chunk ? job->bytes - off : job->chunk;
      if ((err = cudaMemcpyAsync(w->buf[b], job->src + off, n, cudaMemcpyDeviceToHost, w->stream))) goto done;
      if ((err = cudaEventRecord(w->done[b], w->stream))) goto done;
      if (pn) {
        if ((err = cudaEventSynchronize(w->done[b ^ 1]))) goto done;
        memcpy((char *)job->dst + prev, w->buf[b ^ 1], pn);
      }
      prev = off;
      pn   = n;
      off += n;
      b ^= 1;
    }
    if (pn) {
      if ((err = cudaEventSynchronize(w->done[b ^ 1]))) goto done;
      memcpy((char *)job->dst + prev, w->buf[b ^ 1], pn);
    }
    err = cudaSuccess;
    goto done;
  }
  while (off < job->bytes) {
    const size_t n = job->bytes - off < job->chunk ? job->bytes - off : job->chunk;
    if ((err = cudaEventSynchronize(w->done[b]))) goto done; /* the copy that last read this buffer is done */
    memcpy(w->buf[b], job->src + off, n);
    if ((err = cudaMemcpyAsync(job->dst + off, w->buf[b], n, cudaMemcpyHostToDevice, w->stream))) goto done;
    if ((err = cudaEventRecord(w->done[b], w->stream))) goto done;
    off += n;
    b ^= 1;
  }
  err = cudaStreamSynchronize(w->stream);
done:
  job->err = err;
  return NULL;
}

static PetscErrorCode MSCopyThreaded(void *dst, const void *src, size_t bytes, void *vstream, PetscBool d2h)
{
  cudaStream_t stream = (cudaStream_t)vstream;
  PetscInt    nt = ms_upload_threads;
  int         device;
  pthread_t   th[MS_UPLOAD_MAXTHREADS];
  PetscBool   started[MS_UPLOAD_MAXTHREADS];
  MSUploadJob job[MS_UPLOAD_MAXTHREADS];
  cudaEvent_t start;
  size_t      per, off = 0;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  /* copies smaller than 4 chunks: one cudaMemcpyAsync; else at least a chunk per thread */
  if (nt > 1) nt = PetscMin(nt, (PetscInt)(bytes / ms_upload_chunk));
  if (nt <= 1 || bytes < 4 * ms_upload_chunk) {
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, d2h ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, stream));
    if (d2h) PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCUDA(cudaGetDevice(&device));
  PetscCall(MSUploadEnsureWorkers(nt, device));
  PetscCallCUDA(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
  PetscCallCUDA(cudaEventRecord(start, stream));
  per = ((bytes + (size_t)nt - 1) / (size_t)nt + 4095) & ~(size_t)4095; /* nt * per >= bytes */
  for (PetscInt k = 0; k < nt; k++) {
    const size_t n = off >= bytes ? 0 : PetscMin(per, bytes - off);
    job[k].w     = &ms_workers[k];
    job[k].chunk = ms_upload_chunk;
    job[k].start = start;
    job[k].dst   = (char *)dst + off;
    job[k].src   = (const char *)src + off;
    job[k].bytes = n;
    job[k].err   = cudaSuccess;
    job[k].d2h   = d2h;
    off += n;
  }
  PetscCheck(off == bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Upload ranges cover %zu of %zu bytes", off, bytes);
  for (PetscInt k = 1; k < nt; k++) started[k] = (PetscBool)!pthread_create(&th[k], NULL, MSUploadRun, &job[k]);
  (void)MSUploadRun(&job[0]); /* this thread takes the first range, and those of threads that could not start */
  for (PetscInt k = 1; k < nt; k++)
    if (!started[k]) (void)MSUploadRun(&job[k]);
  for (PetscInt k = 1; k < nt; k++)
    if (started[k]) PetscCheck(!pthread_join(th[k], NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot join an upload thread");
  PetscCallCUDA(cudaEventDestroy(start));
  for (PetscInt k = 0; k < nt; k++) PetscCallCUDA(job[k].err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSCopyHostToDevice(void *dst, const void *src, size_t bytes, void *vstream)
{
  PetscFunctionBegin;
  PetscCall(MSCopyThreaded(dst, src, bytes, vstream, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The other direction, for large results made on the device and kept on the host (PCGAMG's graph, seq/graph.c): the
   workers copy chunks into their pinned buffers and out of them into dst, so that several cores write (and first
   touch) the pageable destination. Synchronous: work queued on the stream before it is waited for. */
PetscErrorCode MSCopyDeviceToHost(void *dst, const void *src, size_t bytes, void *vstream)
{
  PetscFunctionBegin;
  PetscCall(MSCopyThreaded(dst, src, bytes, vstream, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Device allocations of the plugin (images, preconditioner data, temporaries): a failure is PETSC_ERR_MEM
   naming the bytes and what they were for, never a CUDA error code; the sticky error is cleared so that
   later launches are not blamed. -modsell_device_alloc_limit <bytes> (read at PetscModSELLInitializePackage())
   makes every larger request fail the same way: a test hook for the out-of-memory paths. */
static PetscErrorCode MSDeviceAllocError(cudaError_t err, size_t bytes, const char *what)
{
  size_t freeb = 0, total = 0;

  PetscFunctionBegin;
  (void)cudaGetLastError(); /* clear the sticky allocation error */
  PetscCheck(err != cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_MEM, "petsc-modsell: the GPU could not allocate %zu bytes (%.1f MiB) for %s (over -modsell_device_alloc_limit %g bytes): free device memory, or use more processes (GPUs) or a smaller problem per GPU", bytes, bytes / 1048576.0, what, ms_alloc_limit);
  (void)cudaMemGetInfo(&freeb, &total);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "petsc-modsell: the GPU could not allocate %zu bytes (%.1f MiB) for %s (%s; %.1f of %.1f MiB free): free device memory, or use more processes (GPUs) or a smaller problem per GPU", bytes, bytes / 1048576.0, what, cudaGetErrorString(err), freeb / 1048576.0, total / 1048576.0);
}

/* async: cudaMallocAsync on stream (NULL is the legacy default stream, which PETSc may use), else cudaMalloc */
static PetscErrorCode MSDeviceAlloc(void **ptr, size_t bytes, const char *what, PetscBool async, cudaStream_t stream)
{
  cudaError_t err;

  PetscFunctionBegin;
  *ptr = NULL;
  if (ms_alloc_limit > 0 && (double)bytes > ms_alloc_limit) PetscCall(MSDeviceAllocError(cudaSuccess, bytes, what));
  err = async ? cudaMallocAsync(ptr, bytes, stream) : cudaMalloc(ptr, bytes);
  if (err != cudaSuccess) {
    *ptr = NULL;
    PetscCall(MSDeviceAllocError(err, bytes, what));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSDeviceMalloc(void **ptr, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCall(MSDeviceAlloc(ptr, bytes, what, PETSC_FALSE, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSDeviceMallocAsync(void **ptr, size_t bytes, const char *what, void *stream)
{
  PetscFunctionBegin;
  PetscCall(MSDeviceAlloc(ptr, bytes, what, PETSC_TRUE, (cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
