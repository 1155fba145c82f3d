/*
   Locality partition of a process's rows: see include/petscmodsell/private/localityimpl.h.
*/
#include <petscmodsell/private/localityimpl.h>

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

/* breadth-first search from s over the nodes with mark[] != stamp; returns the last node reached (the farthest) */
static PetscInt MSLocalityFarthest(const PetscInt *gi, const PetscInt *gj, PetscInt s, PetscInt *mark, PetscInt stamp, const PetscInt *owner, PetscInt *queue)
{
  PetscInt head = 0, tail = 0, last = s;

  queue[tail++] = s;
  mark[s]       = stamp;
  while (head < tail) {
    const PetscInt v = queue[head++];
    last             = v;
    for (PetscInt k = gi[v]; k < gi[v + 1]; k++) {
      const PetscInt u = gj[k];
      if (mark[u] != stamp && owner[u] < 0) {
        mark[u]         = stamp;
        queue[tail++] = u;
      }
    }
  }
  return last;
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

/* buckets of candidates by gain: doubly linked lists, appended at the tail, taken from the head */
static inline void MSLocalityBucketPush(PetscInt *head, PetscInt *tail, PetscInt *next, PetscInt *prev, PetscInt *gain, PetscInt u, PetscInt g)
{
  gain[u] = g;
  next[u] = -1;
  prev[u] = tail[g];
  if (tail[g] >= 0) next[tail[g]] = u;
  else head[g] = u;
  tail[g] = u;
}

static inline void MSLocalityBucketRemove(PetscInt *head, PetscInt *tail, PetscInt *next, PetscInt *prev, const PetscInt *gain, PetscInt u)
{
  const PetscInt g = gain[u];
  if (prev[u] >= 0) next[prev[u]] = next[u];
  else head[g] = next[u];
  if (next[u] >= 0) prev[next[u]] = prev[u];
  else tail[g] = prev[u];
}

PetscErrorCode MSLocalityCompute(Mat A, PetscInt sh, MSLocality *locp)
{
  MSLocality loc;
  PetscInt   m, *gi, *gj, *blk, *mark, *queue, *front, *gain, nfront = 0, fhead = 0, next = 0, placed = 0, maxdeg = 0;
  PetscInt  *bhead, *btail, *bnext, *bprev;
  PetscBool  square;

  PetscFunctionBegin;
  PetscCheck(sh >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The locality partition needs at least one row per block, not %" PetscInt_FMT, sh);
  {
    PetscInt mm, nn;

    PetscCall(MatGetLocalSize(A, &mm, &nn));
    square = (PetscBool)(mm == nn);
  }
  PetscCheck(square, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The locality partition needs a square block");
  PetscCall(MSLocalitySymmetricGraph(A, &m, &gi, &gj));
  PetscCall(PetscNew(&loc));
  loc->m       = m;
  loc->sh      = sh;
  loc->nblocks = (m + sh - 1) / sh;
  loc->nedges  = gi[m];
  PetscCall(PetscMalloc1(PetscMax(m, 1), &loc->perm));
  PetscCall(PetscMalloc1(PetscMax(loc->nblocks, 1), &loc->color));
  /* front: every node a placed node reaches, in the order reached (at most one entry per edge) */
  PetscCall(PetscMalloc5(PetscMax(m, 1), &blk, PetscMax(m, 1), &mark, PetscMax(m, 1), &queue, PetscMax(gi[m], 1), &front, PetscMax(m, 1), &gain));
  for (PetscInt v = 0; v < m; v++) maxdeg = PetscMax(maxdeg, gi[v + 1] - gi[v]);
  PetscCall(PetscMalloc4(maxdeg + 1, &bhead, maxdeg + 1, &btail, PetscMax(m, 1), &bnext, PetscMax(m, 1), &bprev));
  for (PetscInt v = 0; v < m; v++) {
    blk[v]  = -1;
    mark[v] = PETSC_INT_MIN;
  }
  /* grow the blocks one after the other: each time the candidate (an unplaced neighbour of the block) with the most
     neighbours in the block, the earliest reached among equals (buckets by that count, first in first out); a block
     starts from the earliest front node not placed yet, else from a new component */
  for (PetscInt v = 0; v <= maxdeg; v++) bhead[v] = btail[v] = -1;
  for (PetscInt b = 0, stamp = 0; b < loc->nblocks; b++) {
    const PetscInt need = PetscMin(sh, m - placed);
    PetscInt       size = 0, maxg = -1, topg = -1;

    while (size < need) {
      PetscInt v;

      while (maxg >= 0 && bhead[maxg] < 0) maxg--;
      if (maxg < 0) { /* a seed */
        PetscInt s = -1;

        while (fhead < nfront && s < 0) {
          if (blk[front[fhead]] < 0) s = front[fhead];
          fhead++;
        }
        if (s < 0) {
          while (next < m && blk[next] >= 0) next++;
          /* pseudo-peripheral node of its (unplaced part of the) component: the farthest from it */
          s = MSLocalityFarthest(gi, gj, next, mark, --stamp, blk, queue);
        }
        mark[s] = b + m; /* a candidate of block b (stamps of the searches above are negative) */
        MSLocalityBucketPush(bhead, btail, bnext, bprev, gain, s, 0);
        maxg = PetscMax(maxg, 0);
        topg = PetscMax(topg, 0);
      }
      v = bhead[maxg];
      MSLocalityBucketRemove(bhead, btail, bnext, bprev, gain, v);
      blk[v]                     = b;
      loc->perm[placed + size++] = v;
      for (PetscInt k = gi[v]; k < gi[v + 1]; k++) {
        const PetscInt u = gj[k];
        if (blk[u] >= 0) continue;
        if (mark[u] == b + m) { /* one more neighbour in the block */
          const PetscInt g = gain[u] + 1;
          MSLocalityBucketRemove(bhead, btail, bnext, bprev, gain, u);
          MSLocalityBucketPush(bhead, btail, bnext, bprev, gain, u, g);
        } else {
          mark[u] = b + m;
          MSLocalityBucketPush(bhead, btail, bnext, bprev, gain, u, 1);
        }
        maxg            = PetscMax(maxg, gain[u]);
        topg            = PetscMax(topg, gain[u]);
        front[nfront++] = u;
      }
    }
    for (PetscInt g = 0; g <= topg; g++) bhead[g] = btail[g] = -1; /* drop the candidates left */
    placed += size;
  }
  /* statistics and colours */
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
  PetscCall(PetscFree5(blk, mark, queue, front, gain));
  PetscCall(PetscFree4(bhead, btail, bnext, bprev));
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
