/*
   Locality partition of a process's rows: see include/petscmodsell/private/localityimpl.h.
*/
#include <petscmodsell/private/localityimpl.h>
#include <petscmodsell/private/localitykernels.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h> /* the CUDA table's error codes */
#endif

/* the symmetrised pattern of A without the diagonal, each row sorted and without duplicates */
static PetscErrorCode MSLocalitySymmetricGraph(Mat A, PetscInt *m, PetscInt **gi, PetscInt **gj)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *cnt, *xi, *xj;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "The locality partition needs the CSR structure of a SeqAIJ-family matrix, not of type %s", ((PetscObject)A)->type_name);
  PetscCall(PetscCalloc1(n + 1, &cnt));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i) {
        cnt[i]++;
        cnt[aj[k]]++;
      }
  PetscCall(PetscMalloc1(n + 1, &xi));
  xi[0] = 0;
  for (PetscInt i = 0; i < n; i++) xi[i + 1] = xi[i] + cnt[i];
  PetscCall(PetscMalloc1(PetscMax(xi[n], 1), &xj));
  for (PetscInt i = 0; i < n; i++) cnt[i] = xi[i];
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i) {
        xj[cnt[i]++]     = aj[k];
        xj[cnt[aj[k]]++] = i;
      }
  {
    PetscInt nr = n; /* MatRestoreRowIJ() may reset the count */

    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
  }
  /* sort and compact each row */
  cnt[0] = 0;
  for (PetscInt i = 0, w = 0; i < n; i++) {
    PetscInt len = xi[i + 1] - xi[i];

    PetscCall(PetscSortRemoveDupsInt(&len, xj + xi[i]));
    for (PetscInt k = 0; k < len; k++) xj[w++] = xj[xi[i] + k];
    cnt[i + 1] = w;
  }
  PetscCall(PetscArraycpy(xi, cnt, n + 1));
  PetscCall(PetscFree(cnt));
  *m  = n;
  *gi = xi;
  *gj = xj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the rows of block b (new rows lo..hi-1 of perm) are connected through edges inside the block */
static PetscBool MSLocalityBlockConnected(const PetscInt *gi, const PetscInt *gj, const PetscInt *perm, const PetscInt *blk, PetscInt b, PetscInt lo, PetscInt hi, PetscInt *mark, PetscInt stamp, PetscInt *queue)
{
  PetscInt head = 0, tail = 0;

  if (hi - lo <= 1) return PETSC_TRUE;
  queue[tail++]  = perm[lo];
  mark[perm[lo]] = stamp;
  while (head < tail) {
    const PetscInt v = queue[head++];
    for (PetscInt k = gi[v]; k < gi[v + 1]; k++) {
      const PetscInt u = gj[k];
      if (blk[u] == b && mark[u] != stamp) {
        mark[u]         = stamp;
        queue[tail++] = u;
      }
    }
  }
  return (PetscBool)(tail == hi - lo);
}

/* colours of the block graph: two when it is bipartite (breadth-first), else first fit in block order */
static PetscErrorCode MSLocalityColor(MSLocality loc, const PetscInt *gi, const PetscInt *gj, const PetscInt *blk)
{
  const PetscInt nb = loc->nblocks;
  PetscInt      *bi, *bj, *cnt, *queue, nbj = 0;
  PetscBool      bip = PETSC_TRUE;

  PetscFunctionBegin;
  /* block adjacency (sorted, unique) */
  PetscCall(PetscCalloc1(nb + 1, &cnt));
  for (PetscInt v = 0; v < loc->m; v++)
    for (PetscInt k = gi[v]; k < gi[v + 1]; k++)
      if (blk[gj[k]] != blk[v]) cnt[blk[v]]++;
  PetscCall(PetscMalloc1(nb + 1, &bi));
  bi[0] = 0;
  for (PetscInt b = 0; b < nb; b++) bi[b + 1] = bi[b] + cnt[b];
  PetscCall(PetscMalloc1(PetscMax(bi[nb], 1), &bj));
  for (PetscInt b = 0; b < nb; b++) cnt[b] = bi[b];
  for (PetscInt v = 0; v < loc->m; v++)
    for (PetscInt k = gi[v]; k < gi[v + 1]; k++)
      if (blk[gj[k]] != blk[v]) bj[cnt[blk[v]]++] = blk[gj[k]];
  for (PetscInt b = 0, w = 0; b < nb; b++) {
    PetscInt len = bi[b + 1] - bi[b];

    PetscCall(PetscSortRemoveDupsInt(&len, bj + bi[b]));
    for (PetscInt k = 0; k < len; k++) bj[w + k] = bj[bi[b] + k];
    cnt[b] = w;
    w += len;
    nbj = w;
  }
  for (PetscInt b = 0; b < nb; b++) bi[b] = cnt[b];
  bi[nb] = nbj;

  /* two colours by breadth-first search of each component of the block graph */
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &queue));
  for (PetscInt b = 0; b < nb; b++) loc->color[b] = -1;
  for (PetscInt s = 0; s < nb && bip; s++) {
    PetscInt head = 0, tail = 0;

    if (loc->color[s] >= 0) continue;
    loc->color[s] = 0;
    queue[tail++] = s;
    while (head < tail && bip) {
      const PetscInt b = queue[head++];
      for (PetscInt k = bi[b]; k < bi[b + 1]; k++) {
        const PetscInt c = bj[k];
        if (loc->color[c] < 0) {
          loc->color[c] = 1 - loc->color[b];
          queue[tail++] = c;
        } else if (loc->color[c] == loc->color[b]) bip = PETSC_FALSE;
      }
    }
  }
  loc->ncolors = 0;
  if (!bip) { /* first fit in block order */
    PetscInt *used;

    PetscCall(PetscMalloc1(nb + 1, &used));
    for (PetscInt b = 0; b < nb; b++) used[b] = -1;
    for (PetscInt b = 0; b < nb; b++) loc->color[b] = -1;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt c = 0;

      for (PetscInt k = bi[b]; k < bi[b + 1]; k++)
        if (loc->color[bj[k]] >= 0) used[loc->color[bj[k]]] = b;
      while (used[c] == b) c++;
      loc->color[b] = c;
    }
    PetscCall(PetscFree(used));
  }
  for (PetscInt b = 0; b < nb; b++) loc->ncolors = PetscMax(loc->ncolors, loc->color[b] + 1);
  loc->bipartite = bip;
  PetscCall(PetscFree(queue));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree(bi));
  PetscCall(PetscFree(bj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscLogEvent MATMODSELL_Partition = 0;

/* the event, registered here when the package did not (a caller of MSLocalityCompute() on a plain AIJ matrix) */
static PetscErrorCode MSLocalityLogEvent(void)
{
  PetscFunctionBegin;
  if (!MATMODSELL_Partition) PetscCall(PetscLogEventRegister("ModSELLPartition", MAT_CLASSID, &MATMODSELL_Partition));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSLocalityCheckKernel(int err, const char *backend)
{
  PetscFunctionBegin;
  PetscCheck(err != MS_KERNEL_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "The locality partition (%s) could not allocate its host work arrays", backend);
  PetscCheck(err != MS_KERNEL_ERR_ARG, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The locality partition (%s) needs a square CSR with columns in range and ascending in each row", backend);
#if defined(PETSC_HAVE_CUDA)
  PetscCheck(err != (int)cudaErrorMemoryAllocation, PETSC_COMM_SELF, PETSC_ERR_MEM, "The locality partition (%s) could not allocate its device work arrays: %s", backend, cudaGetErrorString((cudaError_t)err));
  PetscCheck(err != (int)cudaErrorInvalidValue, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The locality partition (%s) needs a square CSR with columns in range and ascending in each row", backend);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "The locality partition (%s) failed: %s", backend, cudaGetErrorString((cudaError_t)err));
#else
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "The locality partition (%s) failed with code %d", backend, err);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSLocalityPerm(const MSLocalityKernels *k, PetscInt m, const int *ai, const int *aj, const double *aa, PetscInt sh, int *perm, int *iperm, void *stream)
{
  PetscFunctionBegin;
  PetscCheck(m >= 0 && m <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The locality partition needs 0 to 2^31-1 rows, not %" PetscInt_FMT, m);
  PetscCheck(sh >= 1 && sh <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The locality partition needs 1 to 2^31-1 rows per block, not %" PetscInt_FMT, sh);
  PetscCall(MSLocalityLogEvent());
  PetscCall(PetscLogEventBegin(MATMODSELL_Partition, 0, 0, 0, 0));
  if (k->device) PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MSLocalityCheckKernel(k->partition((int)m, ai, aj, aa, (int)sh, perm, iperm, NULL, stream), k->backend));
  if (k->device) PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATMODSELL_Partition, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSLocalityPermHost(Mat A, PetscInt sh, PetscInt *perm)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           m, mm, nn;
  PetscBool          done;
  const int         *ai32, *aj32;
  int               *p32, *ci = NULL, *cj = NULL;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &mm, &nn));
  PetscCheck(mm == nn, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The locality partition needs a square block");
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "The locality partition needs the CSR structure of a SeqAIJ-family matrix, not of type %s", ((PetscObject)A)->type_name);
  PetscCheck((PetscInt64)ai[m] <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The locality partition needs fewer than 2^31 entries in the block");
  if (sizeof(PetscInt) == sizeof(int)) {
    ai32 = (const int *)ai;
    aj32 = (const int *)aj;
    p32  = (int *)perm;
  } else {
    PetscCall(PetscMalloc3(m + 1, &ci, PetscMax(ai[m], 1), &cj, PetscMax(m, 1), &p32));
    for (PetscInt i = 0; i <= m; i++) ci[i] = (int)ai[i];
    for (PetscInt k = 0; k < ai[m]; k++) cj[k] = (int)aj[k];
    ai32 = ci;
    aj32 = cj;
  }
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(MSLocalityPerm(&MSLocalityKernels_Reference, m, ai32, aj32, (const double *)aa, sh, p32, NULL, NULL));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  if (sizeof(PetscInt) != sizeof(int)) {
    for (PetscInt r = 0; r < m; r++) perm[r] = p32[r];
    PetscCall(PetscFree3(ci, cj, p32));
  }
  {
    PetscInt nr = m; /* MatRestoreRowIJ() may reset the count */

    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSLocalityCompute(Mat A, PetscInt sh, MSLocality *locp)
{
  MSLocality loc;
  PetscInt   m, *gi = NULL, *gj = NULL, *blk, *mark, *queue;

  PetscFunctionBegin;
  PetscCheck(sh >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The locality partition needs at least one row per block, not %" PetscInt_FMT, sh);
  {
    PetscInt mm, nn;

    PetscCall(MatGetLocalSize(A, &mm, &nn));
    PetscCheck(mm == nn, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The locality partition needs a square block");
  }
  PetscCall(PetscNew(&loc));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  loc->m       = m;
  loc->sh      = sh;
  loc->nblocks = (m + sh - 1) / sh;
  PetscCall(PetscMalloc1(PetscMax(m, 1), &loc->perm));
  PetscCall(PetscMalloc1(PetscMax(loc->nblocks, 1), &loc->color));
  PetscCall(MSLocalityPermHost(A, sh, loc->perm));
  /* statistics and colours, on the symmetrised graph */
  PetscCall(MSLocalitySymmetricGraph(A, &m, &gi, &gj));
  loc->nedges = gi[m];
  PetscCall(PetscMalloc3(PetscMax(m, 1), &blk, PetscMax(m, 1), &mark, PetscMax(m, 1), &queue));
  for (PetscInt r = 0; r < m; r++) blk[loc->perm[r]] = r / sh;
  for (PetscInt v = 0; v < m; v++) mark[v] = PETSC_INT_MIN;
  for (PetscInt v = 0; v < m; v++) { /* components: a search from every node not reached yet */
    PetscInt head = 0, tail = 0;

    if (mark[v] == PETSC_INT_MAX) continue;
    loc->ncomponents++;
    queue[tail++] = v;
    mark[v]       = PETSC_INT_MAX;
    while (head < tail) {
      const PetscInt x = queue[head++];
      for (PetscInt k = gi[x]; k < gi[x + 1]; k++)
        if (mark[gj[k]] != PETSC_INT_MAX) {
          mark[gj[k]]   = PETSC_INT_MAX;
          queue[tail++] = gj[k];
        }
    }
  }
  for (PetscInt v = 0; v < m; v++)
    for (PetscInt k = gi[v]; k < gi[v + 1]; k++) loc->ninblock += blk[gj[k]] == blk[v];
  for (PetscInt b = 0; b < loc->nblocks; b++) loc->ndisconnected += !MSLocalityBlockConnected(gi, gj, loc->perm, blk, b, b * sh, PetscMin((b + 1) * sh, m), mark, -(b + 2) - m, queue);
  PetscCall(MSLocalityColor(loc, gi, gj, blk));
  PetscCall(PetscFree3(blk, mark, queue));
  PetscCall(PetscFree(gi));
  PetscCall(PetscFree(gj));
  *locp = loc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MSLocalityDestroy(MSLocality *loc)
{
  PetscFunctionBegin;
  if (!*loc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*loc)->perm));
  PetscCall(PetscFree((*loc)->color));
  PetscCall(PetscFree(*loc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
