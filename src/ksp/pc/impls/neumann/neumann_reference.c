/*
   Host reference of the PCNEUMANN kernels (include/petscmodsell/private/neumannkernels.h): the same arithmetic as
   neumann.cu, row by row in image order (a row's sum: the slots in order); the deflation's restriction sums a subdomain's rows
   in order (the device by chunks and block reductions: the two agree to rounding), its setup in the canonical order
   that the device follows too (neumannkernels.h: bit for bit).
*/
#include <petscmodsell/private/neumannkernels.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

/* the user column of slot code c of image row s*sh + t (c != 0) */
static inline int NeuCol(const MSImageView *img, int s, int c)
{
  if (c < 0) {
    const int q = s * img->sh + (-c - 1);
    return img->perm ? img->perm[q] : q;
  }
  return MS_CODE_COL(img, c);
}

MS_NEU_DIAG(MSNeuDiag_Reference)
{
  (void)stream;
  if (!img->diag && img->m) return MS_KERNEL_ERR_ARG; /* the image must have the diagonal apart */
  status->badrow = MS_NEU_BAD_NONE;
  status->lnorm  = 0;
  for (int r = 0; r < img->m; r++) {
    const int    o = img->perm ? img->perm[r] : r;
    const double d = img->diag[r];

    if (d > 0.0 && isfinite(d)) dinv[o] = 1.0 / d;
    else {
      dinv[o] = 0.0;
      if ((unsigned long long)o < status->badrow) status->badrow = (unsigned long long)o;
    }
  }
  return 0;
}

MS_NEU_LNORM(MSNeuLNorm_Reference)
{
  const int sh = img->sh, m = img->m;

  (void)stream;
  if (sh <= 0) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const long long beg = img->sliceptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), nr = sh < m - s * sh ? sh : m - s * sh;

    for (int t = 0; t < nr; t++) {
      const int          r = s * sh + t, o = img->perm ? img->perm[r] : r;
      double             sum = 0.0, v;
      unsigned long long bits;

      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];
        int             col;

        if (!c) continue;
        col = NeuCol(img, s, c);
        if (col < o) sum += fabs(img->vals[slot]) * sqrt(dinv[col]);
      }
      v = sum * sqrt(dinv[o]);
      memcpy(&bits, &v, sizeof(bits));
      if (v != 0.0 && bits > status->lnorm) status->lnorm = bits;
    }
  }
  return 0;
}

/* whether user column col of user row o belongs to part */
static inline int NeuKeep(int part, int col, int o)
{
  return part == MS_PART_LOWER ? col < o : col > o;
}

MS_NEU_SPLIT_WIDTH(MSNeuSplitWidth_Reference)
{
  const int sh = img->sh, m = img->m;

  (void)stream;
  if (sh <= 0 || (part != MS_PART_LOWER && part != MS_PART_UPPER)) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const long long beg = img->sliceptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), nr = sh < m - s * sh ? sh : m - s * sh;
    int             wmax = 0;

    for (int t = 0; t < nr; t++) {
      const int r = s * sh + t, o = img->perm ? img->perm[r] : r;
      int       cnt = 0;

      for (int k = 0; k < w; k++) {
        const int c = img->cols[beg + (long long)k * sh + t];
        if (c && NeuKeep(part, NeuCol(img, s, c), o)) cnt++;
      }
      if (cnt > wmax) wmax = cnt;
    }
    width[s] = wmax;
  }
  return 0;
}

MS_NEU_SPLIT_FILL(MSNeuSplitFill_Reference)
{
  const int sh = img->sh, m = img->m;

  (void)stream;
  if (sh <= 0 || sh != S->sh || img->nslices != S->nslices || (part != MS_PART_LOWER && part != MS_PART_UPPER)) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < img->nslices; s++) {
    const long long beg = img->sliceptr[s], sbeg = S->ptr[s];
    const int       w = (int)((img->sliceptr[s + 1] - beg) / sh), sw = (int)((S->ptr[s + 1] - sbeg) / sh);

    for (int t = 0; t < sh; t++) {
      const int r = s * sh + t, valid = r < m, o = valid ? (img->perm ? img->perm[r] : r) : 0;
      int       n = 0;

      for (int k = 0; valid && k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       c    = img->cols[slot];
        int             col;

        if (!c) continue;
        col = NeuCol(img, s, c);
        if (!NeuKeep(part, col, o)) continue;
        if (n >= sw) return MS_KERNEL_ERR_ARG; /* the widths do not match the image */
        S->cols[sbeg + (long long)n * sh + t] = col;
        S->vals[sbeg + (long long)n * sh + t] = dinv[o] * img->vals[slot];
        n++;
      }
      for (; n < sw; n++) {
        S->cols[sbeg + (long long)n * sh + t] = o;
        S->vals[sbeg + (long long)n * sh + t] = 0.0;
      }
    }
  }
  return 0;
}

MS_NEU_TRI(MSNeuTri_Reference)
{
  const int sh = S->sh, m = S->m;

  (void)stream;
  if (sh <= 0 || x == y) return MS_KERNEL_ERR_ARG;
  for (int s = 0; s < S->nslices; s++) {
    const long long beg = S->ptr[s];
    const int       w = (int)((S->ptr[s + 1] - beg) / sh), nr = sh < m - s * sh ? sh : m - s * sh;

    for (int t = 0; t < nr; t++) {
      const int r = s * sh + t, o = S->perm ? S->perm[r] : r;
      double    sum = 0.0;

      for (int k = 0; k < w; k++) {
        const long long slot = beg + (long long)k * sh + t;
        const int       col  = S->cols[slot];

        sum += S->vals[slot] * (scale_x ? dinv[col] * x[col] : x[col]);
      }
      y[o] = (scale_b ? dinv[o] * b[o] : b[o]) - sum;
    }
  }
  return 0;
}

MS_NEU_RESTRICT(MSNeuRestrict_Reference)
{
  const int list = zta && b && D->xoff;

  (void)stream;
  for (int j = 0; j < D->nsub; j++) {
    double sum = 0.0;

    if (D->off[j] < 0 || D->off[j] > D->off[j + 1] || D->off[j + 1] > D->m) return MS_KERNEL_ERR_ARG;
    for (int i = D->off[j]; i < D->off[j + 1]; i++) {
      const int o = D->order ? D->order[i] : i;

      sum += b ? a[o] - (zta && D->w ? D->w[o] * b[o] : b[o]) : a[o];
    }
    for (int e = list ? D->xoff[j] : 0; list && e < D->xoff[j + 1]; e++) {
      if (D->xrow[e] < 0 || D->xrow[e] >= D->m) return MS_KERNEL_ERR_ARG;
      sum -= D->xval[e] * b[D->xrow[e]];
    }
    out[j] = sum;
  }
  return 0;
}

MS_NEU_COARSE(MSNeuCoarse_Reference)
{
  (void)stream;
  for (int i = 0; i < nl; i++) {
    double sum = 0.0;
    for (int j = 0; j < nt; j++) sum += Einv[(long long)i * nt + j] * g[j];
    c[i] = sum;
  }
  return 0;
}

MS_NEU_PROLONG(MSNeuProlong_Reference)
{
  (void)stream;
  for (int o = 0; o < m; o++) z[o] = y[o] + c[sub[o]];
  return 0;
}

MS_NEU_SCALE(MSNeuScale_Reference)
{
  (void)stream;
  for (int o = 0; o < m; o++) y[o] = dinv[o] * x[o];
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------
   Deflation setup. The canonical order of the sums (neumannkernels.h) comes from stable counting sorts: the entries
   in CSR order (rows ascending) sorted by column, then by the subdomain of their row, are in (j, c) order with the
   rows of a pair ascending, as the CUDA kernel's stable radix sort of the (j, c) keys leaves them.
   ------------------------------------------------------------------------------------------------------------ */
MS_NEU_BLOCKS(MSNeuBlocks_Reference)
{
  (void)stream;
  if (bs < 1) return MS_KERNEL_ERR_ARG;
  for (int r = 0; r < m; r++) {
    const int o = perm ? perm[r] : r;

    if (o < 0 || o >= m) return MS_KERNEL_ERR_ARG;
    sub[o] = r / bs;
  }
  return 0;
}

MS_NEU_ORDER(MSNeuOrder_Reference)
{
  (void)stream;
  for (int j = 0; j <= nsub; j++) off[j] = 0;
  for (int o = 0; o < m; o++) {
    if (sub[o] < 0 || sub[o] >= nsub || (!order && o && sub[o] < sub[o - 1])) return MS_KERNEL_ERR_ARG;
    off[sub[o] + 1]++;
  }
  for (int j = 0; j < nsub; j++) off[j + 1] += off[j];
  if (order) {
    int *pos = (int *)malloc(sizeof(int) * (size_t)(nsub > 0 ? nsub : 1));

    if (!pos) return MS_KERNEL_ERR_MEM;
    memcpy(pos, off, sizeof(int) * (size_t)nsub);
    for (int o = 0; o < m; o++) order[pos[sub[o]]++] = o;
    free(pos);
  }
  return 0;
}

MS_NEU_CUT(MSNeuCut_Reference)
{
  long long n = 0;

  (void)stream;
  for (int o = 0; o < A->m; o++)
    for (int e = A->ai[o]; e < A->ai[o + 1]; e++) {
      if (A->aj[e] < 0 || A->aj[e] >= A->m) return MS_KERNEL_ERR_ARG;
      n += sub[A->aj[e]] != sub[o];
    }
  *ncut = n;
  return 0;
}

/* the stable counting sort of the items in[0..n) (in NULL: 0..n-1) by key(in[i]) in [0, nk): out (cnt: nk + 1 ints of
   work) */
static void NeuCountingSort(int n, const int *in, const int *keyof, const int *keymap, int nk, int *cnt, int *out)
{
  for (int k = 0; k <= nk; k++) cnt[k] = 0;
  for (int i = 0; i < n; i++) {
    const int x = in ? in[i] : i;

    cnt[(keymap ? keymap[keyof[x]] : keyof[x]) + 1]++;
  }
  for (int k = 0; k < nk; k++) cnt[k + 1] += cnt[k];
  for (int i = 0; i < n; i++) {
    const int x = in ? in[i] : i;

    out[cnt[keymap ? keymap[keyof[x]] : keyof[x]]++] = x;
  }
}

/* the sum of v[0..n) as a warp adds it: 32 lanes (lane l the terms l, l + 32, ..., in order), then the tree */
static double NeuWarpSum(int n, const double *v)
{
  double p[32];

  for (int l = 0; l < 32; l++) p[l] = 0.0;
  for (int i = 0; i < n; i++) p[i & 31] += v[i];
  for (int off = 16; off > 0; off >>= 1)
    for (int l = 0; l < off; l++) p[l] = p[l] + p[l + off];
  return p[0];
}

MS_NEU_GALERKIN(MSNeuGalerkin_Reference)
{
  const int m = A->m, nnz = A->nnz, nb = m > nsub ? m : nsub;
  int      *row = NULL, *e1 = NULL, *e2 = NULL, *cnt = NULL, *rc = NULL, *rj = NULL, *rk = NULL, *q1 = NULL, *q2 = NULL;
  double   *rs = NULL, *seg = NULL;
  int       nruns = 0, err = 0;
  long long nx = 0;

  (void)stream;
  if (nsub < 0 || coff < 0 || (long long)coff + nsub > nt || (m && A->ai[m] != nnz)) return MS_KERNEL_ERR_ARG;
  for (long long i = 0; i < (long long)nsub * nt; i++) E[i] = 0.0;
  if (Z) {
    for (int c = 0; c < m; c++) Z->zw[c] = 0.0;
    for (int j = 0; j <= nsub; j++) Z->xoff[j] = 0;
    *Z->nx = 0;
  }
  if (!nnz) return 0;
  row = (int *)malloc(sizeof(int) * (size_t)nnz);
  e1  = (int *)malloc(sizeof(int) * (size_t)nnz);
  e2  = (int *)malloc(sizeof(int) * (size_t)nnz);
  cnt = (int *)malloc(sizeof(int) * ((size_t)nb + 1));
  rc  = (int *)malloc(sizeof(int) * (size_t)nnz);
  rj  = (int *)malloc(sizeof(int) * (size_t)nnz);
  rk  = (int *)malloc(sizeof(int) * (size_t)nnz);
  rs  = (double *)malloc(sizeof(double) * (size_t)nnz);
  if (!row || !e1 || !e2 || !cnt || !rc || !rj || !rk || !rs) {
    err = MS_KERNEL_ERR_MEM;
    goto done;
  }
  for (int o = 0; o < m; o++) {
    if (sub[o] < 0 || sub[o] >= nsub || A->ai[o] > A->ai[o + 1]) {
      err = MS_KERNEL_ERR_ARG;
      goto done;
    }
    for (int e = A->ai[o]; e < A->ai[o + 1]; e++) {
      if (A->aj[e] < 0 || A->aj[e] >= m) {
        err = MS_KERNEL_ERR_ARG;
        goto done;
      }
      row[e] = o;
    }
  }
  /* the entries by (j, c), rows ascending within a pair: by column, then by the subdomain of the row */
  NeuCountingSort(nnz, NULL, A->aj, NULL, m, cnt, e2);
  NeuCountingSort(nnz, e2, row, sub, nsub, cnt, e1);
  /* the runs of equal (j, c): S(j, c) adds its entries in order */
  for (int i = 0; i < nnz;) {
    const int e = e1[i], j = sub[row[e]], c = A->aj[e];
    double    sum = 0.0;

    for (; i < nnz && sub[row[e1[i]]] == j && A->aj[e1[i]] == c; i++) sum += A->aa[e1[i]];
    rj[nruns] = j;
    rc[nruns] = c;
    rk[nruns] = sub[c];
    rs[nruns] = sum;
    nruns++;
  }
  /* Z^T A: zw and the list, in run order ((j, c) order) */
  if (Z) {
    for (int r = 0; r < nruns; r++) {
      if (rk[r] == rj[r]) Z->zw[rc[r]] = rs[r];
      else {
        if (nx >= Z->cap) {
          err = MS_KERNEL_ERR_ARG;
          goto done;
        }
        Z->xrow[nx] = rc[r];
        Z->xval[nx] = rs[r];
        Z->xoff[rj[r] + 1]++;
        nx++;
      }
    }
    for (int j = 0; j < nsub; j++) Z->xoff[j + 1] += Z->xoff[j];
    *Z->nx = nx;
  }
  /* E: the runs by (j, k), c ascending within a pair (stable: by k, then by j), each pair's sum as a warp adds it */
  q1  = e2; /* reused: nruns <= nnz */
  q2  = row;
  seg = (double *)malloc(sizeof(double) * (size_t)nruns);
  if (!seg) {
    err = MS_KERNEL_ERR_MEM;
    goto done;
  }
  for (int r = 0; r < nruns; r++) q2[r] = r;
  NeuCountingSort(nruns, q2, rk, NULL, nsub, cnt, q1);
  NeuCountingSort(nruns, q1, rj, NULL, nsub, cnt, q2);
  for (int i = 0; i < nruns;) {
    const int j = rj[q2[i]], k = rk[q2[i]];
    int       n = 0;

    for (; i < nruns && rj[q2[i]] == j && rk[q2[i]] == k; i++) seg[n++] = rs[q2[i]];
    E[(long long)j * nt + coff + k] = NeuWarpSum(n, seg);
  }
done:
  free(row);
  free(e1);
  free(e2);
  free(cnt);
  free(rc);
  free(rj);
  free(rk);
  free(rs);
  free(seg);
  return err;
}

const MSNeuKernels MSNeuKernels_Reference = {"reference", MSNeuDiag_Reference, MSNeuLNorm_Reference, MSNeuSplitWidth_Reference, MSNeuSplitFill_Reference, MSNeuTri_Reference, MSNeuRestrict_Reference, MSNeuCoarse_Reference, MSNeuProlong_Reference, MSNeuScale_Reference, MSNeuBlocks_Reference, MSNeuOrder_Reference, MSNeuCut_Reference, MSNeuGalerkin_Reference, 0};
