/*
   Host reference of the locality partition (localitykernels.h): the same permutation as cuda/locality.cu, bit for
   bit. Plain C, no PETSc types; MSLocalityOrderCoarse() (Cuthill-McKee of the coarsest graph) is also called by the
   CUDA version.
*/
#include <petscmodsell/private/localitykernels.h>
#include <stdlib.h>
#include <string.h>

/* one level of the hierarchy: its graph, the sizes of its nodes and, once contracted, the coarse id of each node */
typedef struct {
  int        n;
  long long *xi; /* n+1 */
  int       *xj, *xw;
  int       *sz;  /* n: rows in each node */
  int       *cid; /* n: the node of the next level holding this one (NULL on the coarsest level) */
  int       *c0, *c1; /* n (levels > 0): the children on the level below (c1 = -1: one child) */
} MSLevel;

static void MSLevelFree(MSLevel *l)
{
  free(l->xi);
  free(l->xj);
  free(l->xw);
  free(l->sz);
  free(l->cid);
  free(l->c0);
  free(l->c1);
  memset(l, 0, sizeof(*l));
}

/* level 0: the pattern symmetrised without its diagonal, an edge weighing the sum over its directions present of
   1 + the entry's strength (0 without values); checks the input */
static int MSLevelZero(int m, const int *ai, const int *aj, const double *aa, MSLevel *l)
{
  int       *tcnt, *tj, *hw = NULL, *thw = NULL, K = 0;
  long long *ti, nnz;

  if (ai[0] != 0) return MS_KERNEL_ERR_ARG;
  for (int i = 0; i < m; i++) {
    if (ai[i + 1] < ai[i]) return MS_KERNEL_ERR_ARG;
    for (int k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] < 0 || aj[k] >= m || (k > ai[i] && aj[k] <= aj[k - 1])) return MS_KERNEL_ERR_ARG;
  }
  nnz  = ai[m];
  tcnt = (int *)calloc((size_t)m + 1, sizeof(int));
  ti   = (long long *)malloc(((size_t)m + 1) * sizeof(long long));
  tj   = (int *)malloc(((size_t)nnz + 1) * sizeof(int));
  l->n  = m;
  l->xi = (long long *)malloc(((size_t)m + 1) * sizeof(long long));
  l->sz = (int *)malloc(((size_t)m + 1) * sizeof(int));
  if (aa) { /* the strength of every entry (hw) and of the transpose's (thw) */
    double *dg = (double *)calloc((size_t)m + 1, sizeof(double));

    K   = MSLocalityStrengthScale(nnz);
    hw  = (int *)malloc(((size_t)nnz + 1) * sizeof(int));
    thw = (int *)malloc(((size_t)nnz + 1) * sizeof(int));
    if (dg && hw && thw) {
      for (int i = 0; i < m; i++)
        for (int k = ai[i]; k < ai[i + 1]; k++)
          if (aj[k] == i) dg[i] = aa[k] < 0 ? -aa[k] : aa[k];
      for (int i = 0; i < m; i++)
        for (int k = ai[i]; k < ai[i + 1]; k++) hw[k] = MSLocalityStrength(aa[k], dg[i], dg[aj[k]], K);
    } else { /* reported below */
      free(hw);
      free(thw);
      hw = thw = NULL;
    }
    free(dg);
  }
  if (!tcnt || !ti || !tj || !l->xi || !l->sz || (aa && (!hw || !thw))) {
    free(tcnt);
    free(ti);
    free(tj);
    free(hw);
    free(thw);
    return MS_KERNEL_ERR_MEM;
  }
  /* the transpose without the diagonal, rows ascending in each column (a stable counting sort by column) */
  for (int i = 0; i < m; i++)
    for (int k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i) tcnt[aj[k]]++;
  ti[0] = 0;
  for (int j = 0; j < m; j++) ti[j + 1] = ti[j] + tcnt[j];
  for (int j = 0; j < m; j++) tcnt[j] = 0;
  for (int i = 0; i < m; i++)
    for (int k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i) {
        const long long t = ti[aj[k]] + tcnt[aj[k]]++;

        tj[t] = i;
        if (thw) thw[t] = hw[k];
      }
  /* union of row i and column i (both ascending): count, then fill */
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      l->xj = (int *)malloc(((size_t)l->xi[m] + 1) * sizeof(int));
      l->xw = (int *)malloc(((size_t)l->xi[m] + 1) * sizeof(int));
      if (!l->xj || !l->xw) {
        free(tcnt);
        free(ti);
        free(tj);
        free(hw);
        free(thw);
        return MS_KERNEL_ERR_MEM;
      }
    } else l->xi[0] = 0;
    for (int i = 0; i < m; i++) {
      int       a = ai[i], ae = ai[i + 1];
      long long b = ti[i], be = ti[i + 1], w = pass ? l->xi[i] : 0;

      while (a < ae || b < be) {
        int j, wt;

        if (a < ae && aj[a] == i) {
          a++;
          continue;
        }
        if (b >= be || (a < ae && aj[a] < tj[b])) {
          wt = 1 + (hw ? hw[a] : 0);
          j  = aj[a++];
        } else if (a >= ae || tj[b] < aj[a]) {
          wt = 1 + (thw ? thw[b] : 0);
          j  = tj[b++];
        } else {
          wt = 2 + (hw ? hw[a] + thw[b] : 0);
          j  = aj[a++];
          b++;
        }
        if (pass) {
          l->xj[w] = j;
          l->xw[w] = wt;
        }
        w++;
      }
      if (!pass) l->xi[i + 1] = l->xi[i] + w;
    }
  }
  for (int i = 0; i < m; i++) l->sz[i] = 1;
  free(tcnt);
  free(ti);
  free(tj);
  free(hw);
  free(thw);
  return 0;
}

/* rounds of handshake matching on level l: match[u] = the partner or -1; returns the rounds done */
static int MSLevelMatch(const MSLevel *l, int *match, int *pick, int *nmatched)
{
  const int n = l->n;
  int       rounds = 0, total = 0;

  for (int u = 0; u < n; u++) match[u] = -1;
  for (int r = 0; r < MS_LOCALITY_ROUNDS; r++) {
    int nnew = 0;

    rounds++;
    for (int u = 0; u < n; u++) pick[u] = MSLocalityPick(u, l->xi, l->xj, l->xw, l->sz, match);
    for (int u = 0; u < n; u++)
      if (pick[u] >= 0 && pick[pick[u]] == u) {
        match[u] = pick[u];
        nnew++;
      }
    total += nnew;
    if (!nnew) break;
  }
  *nmatched = total;
  return rounds;
}

/* the next level from the matching: ids by a prefix sum over the leaders, sizes, edges mapped and summed */
static int MSLevelContract(MSLevel *f, const int *match, MSLevel *c, int *acc, int *mark, int *list)
{
  const int n = f->n;
  int       nc = 0;

  f->cid = (int *)malloc(((size_t)n + 1) * sizeof(int));
  if (!f->cid) return MS_KERNEL_ERR_MEM;
  for (int u = 0; u < n; u++)
    if (match[u] < 0 || u < match[u]) f->cid[u] = nc++;
  for (int u = 0; u < n; u++)
    if (match[u] >= 0 && match[u] < u) f->cid[u] = f->cid[match[u]];
  c->n  = nc;
  c->xi = (long long *)malloc(((size_t)nc + 1) * sizeof(long long));
  c->sz = (int *)malloc(((size_t)nc + 1) * sizeof(int));
  c->c0 = (int *)malloc(((size_t)nc + 1) * sizeof(int));
  c->c1 = (int *)malloc(((size_t)nc + 1) * sizeof(int));
  if (!c->xi || !c->sz || !c->c0 || !c->c1) return MS_KERNEL_ERR_MEM;
  for (int u = 0; u < n; u++)
    if (match[u] < 0 || u < match[u]) {
      const int k = f->cid[u];

      c->c0[k] = u;
      c->c1[k] = match[u];
      c->sz[k] = f->sz[u] + (match[u] >= 0 ? f->sz[match[u]] : 0);
    }
  /* edges: a sparse accumulator per coarse node (the order of a node's neighbours does not matter) */
  for (int d = 0; d < nc; d++) mark[d] = -1;
  for (int pass = 0; pass < 2; pass++) {
    long long w = 0;

    if (pass) {
      c->xj = (int *)malloc(((size_t)c->xi[nc] + 1) * sizeof(int));
      c->xw = (int *)malloc(((size_t)c->xi[nc] + 1) * sizeof(int));
      if (!c->xj || !c->xw) return MS_KERNEL_ERR_MEM;
      for (int d = 0; d < nc; d++) mark[d] = -1;
    }
    c->xi[0] = 0;
    for (int k = 0; k < nc; k++) {
      int nl = 0;

      for (int h = 0; h < 2; h++) {
        const int x = h ? c->c1[k] : c->c0[k];

        if (x < 0) continue;
        for (long long e = f->xi[x]; e < f->xi[x + 1]; e++) {
          const int d = f->cid[f->xj[e]];

          if (d == k) continue;
          if (mark[d] != k) {
            mark[d]    = k;
            acc[d]     = 0;
            list[nl++] = d;
          }
          acc[d] += f->xw[e];
        }
      }
      if (pass)
        for (int q = 0; q < nl; q++) {
          c->xj[w + q] = list[q];
          c->xw[w + q] = acc[list[q]];
        }
      w += nl;
      c->xi[k + 1] = w;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Cuthill-McKee of the coarsest graph                                                                            */

/* breadth-first search from s over its component (stamp marks the nodes reached); returns the number of levels
   and the nodes of the last level in queue[*lo .. *hi) */
static int MSBfsLevels(const long long *xi, const int *xj, int s, int *seen, int stamp, int *queue, int *lo, int *hi)
{
  int head = 0, tail = 0, nlev = 0;

  queue[tail++] = s;
  seen[s]       = stamp;
  while (head < tail) {
    const int end = tail;

    *lo = head;
    *hi = end;
    nlev++;
    for (; head < end; head++) {
      const int x = queue[head];
      for (long long k = xi[x]; k < xi[x + 1]; k++)
        if (seen[xj[k]] != stamp) {
          seen[xj[k]]   = stamp;
          queue[tail++] = xj[k];
        }
    }
  }
  return nlev;
}

int MSLocalityOrderCoarse(int n, const long long *xi, const int *xj, int *order)
{
  int *seen, *queue, *tmp, k = 0, stamp = 0, maxdeg = 0;

  if (n <= 0) return 0;
  seen  = (int *)malloc((size_t)n * sizeof(int));
  queue = (int *)malloc((size_t)n * sizeof(int));
  for (int v = 0; v < n; v++) maxdeg = (int)(xi[v + 1] - xi[v]) > maxdeg ? (int)(xi[v + 1] - xi[v]) : maxdeg;
  tmp = (int *)malloc(((size_t)maxdeg + 1) * sizeof(int));
  if (!seen || !queue || !tmp) {
    free(seen);
    free(queue);
    free(tmp);
    return MS_KERNEL_ERR_MEM;
  }
  for (int v = 0; v < n; v++) seen[v] = 0; /* stamps 1, 2, ...: searches; -1: placed */
  for (int s = 0; s < n; s++) {
    int r = s, lo, hi, nlev;

    if (seen[s] < 0) continue;
    /* pseudo-peripheral node (George and Liu): from the end of the longest level structure, the smallest degree */
    nlev = MSBfsLevels(xi, xj, r, seen, ++stamp, queue, &lo, &hi);
    for (int it = 0; it < 8; it++) {
      int t = -1, nt;

      for (int q = lo; q < hi; q++) {
        const int x = queue[q];
        if (t < 0 || xi[x + 1] - xi[x] < xi[t + 1] - xi[t] || (xi[x + 1] - xi[x] == xi[t + 1] - xi[t] && x < t)) t = x;
      }
      if (t == r) break;
      nt = MSBfsLevels(xi, xj, t, seen, ++stamp, queue, &lo, &hi);
      if (nt <= nlev) break;
      r    = t;
      nlev = nt;
    }
    /* Cuthill-McKee from r: each node's unplaced neighbours by degree, then id */
    {
      int head = k;

      order[k++] = r;
      seen[r]    = -1;
      while (head < k) {
        const int x  = order[head++];
        int       nt = 0;

        for (long long e = xi[x]; e < xi[x + 1]; e++)
          if (seen[xj[e]] >= 0) {
            seen[xj[e]] = -1;
            tmp[nt++]   = xj[e];
          }
        for (int a = 1; a < nt; a++) { /* insertion sort by (degree, id) */
          const int       y  = tmp[a];
          const long long dy = xi[y + 1] - xi[y];
          int             b  = a - 1;

          while (b >= 0 && (xi[tmp[b] + 1] - xi[tmp[b]] > dy || (xi[tmp[b] + 1] - xi[tmp[b]] == dy && tmp[b] > y))) {
            tmp[b + 1] = tmp[b];
            b--;
          }
          tmp[b + 1] = y;
        }
        for (int a = 0; a < nt; a++) order[k++] = tmp[a];
      }
    }
  }
  free(seen);
  free(queue);
  free(tmp);
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */

/* top-down on level l (below the coarse level c, whose nodes start at cstart): the start of every node of l */
static void MSLevelPlace(const MSLevel *l, const MSLevel *c, const int *cstart, int *start)
{
  for (int k = 0; k < c->n; k++) {
    int a = c->c0[k], b = c->c1[k];

    if (b >= 0) { /* the child pulled more towards what precedes k goes first */
      if (MSLocalityPull(b, k, l->xi, l->xj, l->xw, l->cid, cstart, c->sz) > MSLocalityPull(a, k, l->xi, l->xj, l->xw, l->cid, cstart, c->sz)) {
        const int t = a;

        a = b;
        b = t;
      }
      start[b] = cstart[k] + l->sz[a];
    }
    start[a] = cstart[k];
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* refinement of the blocks: pairs of rows of two blocks that gain by trading places                             */

typedef struct {
  int lo, hi, dir, g, u;
} MSCand;

/* by block pair (lo, hi), direction (0: lo -> hi), gain descending, row */
static int MSCandCmp(const void *x, const void *y)
{
  const MSCand *a = (const MSCand *)x, *b = (const MSCand *)y;

  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
  if (a->g != b->g) return a->g > b->g ? -1 : 1;
  return a->u < b->u ? -1 : (a->u > b->u);
}

/* rounds of swaps on the level-0 graph l; pos[u] = the new position of row u (blocks: pos / sh); returns the rounds */
static int MSRefine(const MSLevel *l, int sh, int *pos, MSCand *c, long long *nswaps)
{
  const int n = l->n;
  int       rounds = 0;

  for (int r = 0; r < MS_LOCALITY_REFINE_ROUNDS; r++) {
    int nc = 0, nsw = 0;

    rounds++;
    for (int u = 0; u < n; u++) {
      int B, g;

      if (!MSLocalityBestBlock(u, l->xi, l->xj, l->xw, pos, sh, &B, &g)) continue;
      c[nc].lo  = pos[u] / sh < B ? pos[u] / sh : B;
      c[nc].hi  = pos[u] / sh < B ? B : pos[u] / sh;
      c[nc].dir = pos[u] / sh > B;
      c[nc].g   = g;
      c[nc].u   = u;
      nc++;
    }
    qsort(c, (size_t)nc, sizeof(MSCand), MSCandCmp);
    /* the k-th of lo -> hi with the k-th of hi -> lo, when the trade gains (the candidates were chosen before) */
    for (int i = 0; i < nc;) {
      int j = i, k = i;

      while (j < nc && c[j].lo == c[i].lo && c[j].hi == c[i].hi && c[j].dir == 0) j++;
      k = j;
      while (k < nc && c[k].lo == c[i].lo && c[k].hi == c[i].hi) k++;
      for (int h = 0; i + h < j && j + h < k; h++) {
        const int u = c[i + h].u, v = c[j + h].u;

        if (c[i + h].g + c[j + h].g - 2 * MSLocalityEdgeWeight(u, v, l->xi, l->xj, l->xw) > 0) {
          const int t = pos[u];

          pos[u] = pos[v];
          pos[v] = t;
          nsw++;
        }
      }
      i = k;
    }
    *nswaps += nsw;
    if (!nsw) break;
  }
  return rounds;
}

MS_LOCALITY_PARTITION(MSLocalityPartition_Reference)
{
  MSLevel  lev[MS_LOCALITY_MAXLEVELS + 1];
  int      nl = 1, err = 0, *match = NULL, *pick = NULL, *acc = NULL, *mark = NULL, *list = NULL, *order = NULL, *start = NULL, *cstart = NULL;
  MSCand        *cand = NULL;
  MSLocalityInfo inf;

  (void)stream;
  memset(lev, 0, sizeof(lev));
  memset(&inf, 0, sizeof(inf));
  if (m < 0 || sh < 1 || (m > 0 && (!ai || !aj || !perm))) return MS_KERNEL_ERR_ARG;
  if (m == 0) {
    if (info) *info = inf;
    return 0;
  }
  if ((err = MSLevelZero(m, ai, aj, aa, &lev[0]))) goto done;
  inf.nedges0 = lev[0].xi[m];
  match       = (int *)malloc((size_t)m * sizeof(int));
  pick        = (int *)malloc((size_t)m * sizeof(int));
  acc         = (int *)malloc((size_t)m * sizeof(int));
  mark        = (int *)malloc((size_t)m * sizeof(int));
  list        = (int *)malloc((size_t)m * sizeof(int));
  start       = (int *)malloc((size_t)m * sizeof(int));
  cstart      = (int *)malloc((size_t)m * sizeof(int));
  if (!match || !pick || !acc || !mark || !list || !start || !cstart) {
    err = MS_KERNEL_ERR_MEM;
    goto done;
  }
  /* coarsen until a level matches nothing */
  for (;;) {
    MSLevel *f = &lev[nl - 1];
    int      nmatched;

    inf.nnodesall += f->n;
    inf.nedgesall += f->xi[f->n];
    if (nl > MS_LOCALITY_MAXLEVELS) break;
    inf.rounds += MSLevelMatch(f, match, pick, &nmatched);
    if (!nmatched) break;
    if ((err = MSLevelContract(f, match, &lev[nl], acc, mark, list))) goto done;
    nl++;
  }
  inf.levels       = nl - 1;
  inf.ncoarse      = lev[nl - 1].n;
  inf.nedgescoarse = lev[nl - 1].xi[lev[nl - 1].n];
  /* order the coarsest graph, then place every level's nodes top-down */
  {
    const MSLevel *t = &lev[nl - 1];
    int            pos = 0;

    order = (int *)malloc(((size_t)t->n + 1) * sizeof(int));
    if (!order) {
      err = MS_KERNEL_ERR_MEM;
      goto done;
    }
    if ((err = MSLocalityOrderCoarse(t->n, t->xi, t->xj, order))) goto done;
    for (int k = 0; k < t->n; k++) {
      cstart[order[k]] = pos;
      pos += t->sz[order[k]];
    }
  }
  for (int L = nl - 2; L >= 0; L--) {
    int *tmp;

    MSLevelPlace(&lev[L], &lev[L + 1], cstart, start);
    tmp    = cstart;
    cstart = start;
    start  = tmp;
  }
  /* refine the blocks, then the permutation */
  cand = (MSCand *)malloc((size_t)m * sizeof(MSCand));
  if (!cand) {
    err = MS_KERNEL_ERR_MEM;
    goto done;
  }
  inf.refinerounds = MSRefine(&lev[0], sh, cstart, cand, &inf.nswaps);
  for (int u = 0; u < m; u++) {
    perm[cstart[u]] = u;
    if (iperm) iperm[u] = cstart[u];
  }
done:
  for (int L = 0; L <= MS_LOCALITY_MAXLEVELS; L++) MSLevelFree(&lev[L]);
  free(match);
  free(pick);
  free(acc);
  free(mark);
  free(list);
  free(order);
  free(start);
  free(cstart);
  free(cand);
  if (info && !err) *info = inf;
  return err;
}

const MSLocalityKernels MSLocalityKernels_Reference = {"reference", 0, MSLocalityPartition_Reference};
