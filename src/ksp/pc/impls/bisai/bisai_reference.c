/*
   Host reference of the PCBISAI kernels (bisaikernels.h): the same functions as bisai.cu, the symbolic ones giving the
   same integers, the numeric ones the same sums in the same order.
*/
#include <petscmodsell/private/bisaikernels.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------- */
/* symbolic                                                                                                     */

MS_BISAI_SCAN(MSBISAIScan_Reference)
{
  long long s = 0;

  (void)stream;
  for (int i = 0; i < n; i++) {
    s += ptr[i + 1];
    ptr[i + 1] = (int)(s < 0x7fffffffLL ? s : 0);
  }
  ptr[0] = 0;
  *total = s;
  return 0;
}

MS_BISAI_BLOCK_COUNT(MSBISAIBlockCount_Reference)
{
  (void)stream;
  for (int i = 0; i < nb; i++) rowptr[i + 1] = MSBISAIBlockRow(bs, i, ai, aj, 0, NULL, NULL, NULL);
  return 0;
}

MS_BISAI_BLOCK_FILL(MSBISAIBlockFill_Reference)
{
  (void)stream;
  for (int i = 0; i < nb; i++) {
    (void)MSBISAIBlockRow(bs, i, ai, aj, rowptr[i], cols + rowptr[i], diag + i, map);
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) rowidx[p] = i;
  }
  return 0;
}

MS_BISAI_PATTERN_PART(MSBISAIPatternPart_Reference)
{
  (void)stream;
  for (int i = 0; i < nb; i++) {
    const int lo = lower ? rowptr[i] : diag[i], hi = lower ? diag[i] + 1 : rowptr[i + 1];

    if (!pcols) prp[i + 1] = hi - lo;
    else
      for (int p = lo; p < hi; p++) pcols[prp[i] + p - lo] = cols[p];
  }
  return 0;
}

MS_BISAI_PATTERN_POWER(MSBISAIPatternPower_Reference)
{
  int *mark;

  (void)stream;
  if (nb <= 0) return 0;
  mark = (int *)malloc((size_t)nb * sizeof(int));
  if (!mark) return MS_KERNEL_ERR_MEM;
  for (int j = 0; j < nb; j++) mark[j] = -1;
  for (int i = 0; i < nb; i++) {
    int n = 0;

    for (int p = prp[i]; p < prp[i + 1]; p++) {
      const int j = pcols[p];
      for (int q = trp[j]; q < trp[j + 1]; q++)
        if (mark[tcols[q]] != i) {
          mark[tcols[q]] = i;
          if (qcols) qcols[qrp[i] + n] = tcols[q];
          n++;
        }
    }
    if (!qcols) qrp[i + 1] = n;
    else { /* ascending: insertion sort of the row (short rows) */
      int *c = qcols + qrp[i];
      for (int a = 1; a < n; a++) {
        const int v = c[a];
        int       b = a - 1;
        for (; b >= 0 && c[b] > v; b--) c[b + 1] = c[b];
        c[b + 1] = v;
      }
    }
  }
  free(mark);
  return 0;
}

MS_BISAI_PATTERN_TRANSPOSE(MSBISAIPatternTranspose_Reference)
{
  int *next;

  (void)stream;
  for (int j = 0; j <= nb; j++) colptr[j] = 0;
  for (int p = 0; p < nnz; p++) colptr[cols[p] + 1]++;
  for (int j = 0; j < nb; j++) colptr[j + 1] += colptr[j];
  if (nb <= 0) return 0;
  next = (int *)malloc((size_t)nb * sizeof(int));
  if (!next) return MS_KERNEL_ERR_MEM;
  for (int j = 0; j < nb; j++) next[j] = colptr[j];
  for (int i = 0; i < nb; i++)
    for (int p = rp[i]; p < rp[i + 1]; p++) {
      const int t = next[cols[p]]++;
      rowidx[t]   = i;
      pos[t]      = p;
    }
  free(next);
  return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* numeric                                                                                                      */

MS_BISAI_CHECK(MSBISAICheck_Reference)
{
  (void)stream;
  out[0] = MS_BISAI_NONE;
  out[1] = MS_BISAI_NONE;
  for (int i = 0; i < m; i++) {
    const double di = MSBISAIDiagAbs(ai, aj, aa, i);

    for (int e = ai[i]; e < ai[i + 1]; e++) {
      if (!isfinite(aa[e])) {
        if (i < out[0]) out[0] = i;
        continue;
      }
      if (symtol < 0.0 || out[1] != MS_BISAI_NONE) continue; /* rows ascending: the first one found is the smallest */
      if (MSBISAIAsymmetric(m, ai, aj, aa, i, e, di, symtol)) out[1] = i;
    }
  }
  return 0;
}

MS_BISAI_VALUES(MSBISAIValues_Reference)
{
  (void)stream;
  for (long long v = 0; v < nvals; v++) A[v] = 0.0;
  for (int e = 0; e < nnz; e++) A[map[e]] = aa[e];
  return 0;
}

MS_BISAI_SHIFT(MSBISAIShift_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int i = 0; i < nb; i++)
    for (int r = 0; r < bs; r++) A[(size_t)diag[i] * bs2 + (size_t)r * bs + r] *= factor;
  return 0;
}

MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  if (bs < 1 || bs > MS_BISAI_MAXBS) return MS_KERNEL_ERR_ARG;
  *bad = MS_BISAI_NONE;
  for (int i = 0; i < nb; i++) {
    const double *B = F + (size_t)diag[i] * bs2;
    double       *D = Dinv + (size_t)i * bs2;

    if ((spd ? MSBISAIInvertBlockSPD(bs, B, D) : MSBISAIInvertBlock(bs, B, D)) && i < *bad) *bad = i;
  }
  return 0;
}

MS_BISAI_ILU_EXACT(MSBISAIILUExact_Reference)
{
  const size_t bs2    = (size_t)bs * bs;
  int         *colpos = work;
  double       tmp[MS_BISAI_MAXBS * MS_BISAI_MAXBS];

  (void)stream;
  if (bs < 1 || bs > MS_BISAI_MAXBS) return MS_KERNEL_ERR_ARG;
  *bad      = MS_BISAI_NONE;
  *products = 0;
  if (nb <= 0) return 0;
  for (int j = 0; j < nb; j++) colpos[j] = -1;
  memcpy(F, A, (size_t)nnzb * bs2 * sizeof(double));
  for (int i = 0; i < nb; i++) {
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) colpos[cols[p]] = p;
    for (int p = rowptr[i]; p < diag[i]; p++) {
      const int k   = cols[p];
      double   *Fik = F + (size_t)p * bs2;

      /* L(i,k) = F(i,k) Dinv(k) */
      for (int e = 0; e < bs * bs; e++) {
        const int r = e / bs, c = e % bs;
        double    s = 0.0;
        for (int t = 0; t < bs; t++) s += Fik[r * bs + t] * Dinv[(size_t)k * bs2 + t * bs + c];
        tmp[e] = s;
      }
      memcpy(Fik, tmp, bs2 * sizeof(double));
      (*products)++;
      /* row i minus L(i,k) times the part of row k right of its diagonal, on row i's pattern */
      for (int q = diag[k] + 1; q < rowptr[k + 1]; q++) {
        const int pj = colpos[cols[q]];
        if (pj < 0) continue;
        for (int e = 0; e < bs * bs; e++) {
          const int r = e / bs, c = e % bs;
          double    s = 0.0;
          for (int t = 0; t < bs; t++) s += Fik[r * bs + t] * F[(size_t)q * bs2 + t * bs + c];
          F[(size_t)pj * bs2 + e] -= s;
        }
        (*products)++;
      }
    }
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) colpos[cols[p]] = -1;
    if (spd ? MSBISAIInvertBlockSPD(bs, F + (size_t)diag[i] * bs2, Dinv + (size_t)i * bs2) : MSBISAIInvertBlock(bs, F + (size_t)diag[i] * bs2, Dinv + (size_t)i * bs2)) {
      *bad = i;
      break;
    }
  }
  return 0;
}

MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  if (products) *products = 0;
  for (int p = 0; p < nnzb; p++) {
    const int i = rowidx[p], j = cols[p], kmax = i < j ? i : j;

    for (int e = 0; e < bs * bs; e++) {
      const int r = e / bs, c = e % bs;
      double    s = 0.0;

      for (int q = rowptr[i]; q < rowptr[i + 1] && cols[q] < kmax; q++) {
        const int k = cols[q], f = MSBISAIFind(cols, rowptr[k], rowptr[k + 1], j);
        if (f < 0) continue;
        for (int t = 0; t < bs; t++) s += F[(size_t)q * bs2 + r * bs + t] * F[(size_t)f * bs2 + t * bs + c];
        if (products && e == 0) (*products)++;
      }
      S[(size_t)p * bs2 + e] = A[(size_t)p * bs2 + e] - s;
    }
  }
  return 0;
}

MS_BISAI_ILU_UPDATE(MSBISAIILUUpdate_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int p = 0; p < nnzb; p++) {
    const int i = rowidx[p], j = cols[p];

    for (int e = 0; e < bs * bs; e++) {
      const int r = e / bs, c = e % bs;
      double    v;

      if (i > j) {
        v = 0.0;
        if (Dinv)
          for (int t = 0; t < bs; t++) v += S[(size_t)p * bs2 + r * bs + t] * Dinv[(size_t)j * bs2 + t * bs + c];
      } else v = S[(size_t)p * bs2 + e];
      F[(size_t)p * bs2 + e] = v;
    }
  }
  return 0;
}

MS_BISAI_IC_UPPER(MSBISAIICUpper_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int i = 0; i < nb; i++) { /* the diagonal blocks first: the upper blocks read their symmetric parts */
    double *D = F + (size_t)diag[i] * bs2;
    for (int r = 0; r < bs; r++)
      for (int c = r + 1; c < bs; c++) D[r * bs + c] = D[c * bs + r] = 0.5 * (D[r * bs + c] + D[c * bs + r]);
  }
  for (int i = 0; i < nb; i++)
    for (int p = diag[i] + 1; p < rowptr[i + 1]; p++) {
      const int     j = cols[p], f = MSBISAIFind(cols, rowptr[j], diag[j], i);
      const double *D = F + (size_t)diag[i] * bs2;

      for (int e = 0; e < bs * bs; e++) {
        const int r = e / bs, c = e % bs;
        double    s = 0.0;
        if (f >= 0)
          for (int t = 0; t < bs; t++) s += D[r * bs + t] * F[(size_t)f * bs2 + c * bs + t];
        F[(size_t)p * bs2 + e] = s;
      }
    }
  return 0;
}

MS_BISAI_ISAI_LOWER(MSBISAIISAILower_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  if (products) *products = 0;
  for (int j = 0; j < nb; j++) {
    const int beg = colptr[j], n = colptr[j + 1] - beg;

    for (int e = 0; e < n * bs * bs; e++) {
      const int q = e / (bs * bs), el = e % (bs * bs);
      M[(size_t)pos[beg + q] * bs2 + el] = (q == 0 && el / bs == el % bs) ? 1.0 : 0.0;
    }
    for (int p = 0; p < n; p++) {
      const int     jp = rowidx[beg + p];
      const double *x  = M + (size_t)pos[beg + p] * bs2; /* X_p is final */

      for (int e = 0; e < (n - p - 1) * bs * bs; e++) {
        const int q = p + 1 + e / (bs * bs), el = e % (bs * bs), r = el / bs, c = el % bs;
        const int jq = rowidx[beg + q], f = MSBISAIFind(fcols, frowptr[jq], frowptr[jq + 1], jp);
        double    s  = 0.0;

        if (f < 0) continue;
        for (int t = 0; t < bs; t++) s += F[(size_t)f * bs2 + r * bs + t] * x[t * bs + c];
        M[(size_t)pos[beg + q] * bs2 + el] -= s;
        if (products && el == 0) (*products)++;
      }
    }
  }
  return 0;
}

MS_BISAI_ISAI_UPPER(MSBISAIISAIUpper_Reference)
{
  const size_t bs2 = (size_t)bs * bs;
  double       rhs[MS_BISAI_MAXBS * MS_BISAI_MAXBS];

  (void)stream;
  if (products) *products = 0;
  for (int j = 0; j < nb; j++) {
    const int beg = colptr[j], n = colptr[j + 1] - beg;

    for (int e = 0; e < n * bs * bs; e++) {
      const int q = e / (bs * bs), el = e % (bs * bs);
      M[(size_t)pos[beg + q] * bs2 + el] = (q == n - 1 && el / bs == el % bs) ? 1.0 : 0.0;
    }
    for (int p = n - 1; p >= 0; p--) {
      const int jp = rowidx[beg + p];
      double   *x  = M + (size_t)pos[beg + p] * bs2;

      /* X_p = U(J_p,J_p)^-1 rhs_p */
      memcpy(rhs, x, bs2 * sizeof(double));
      for (int el = 0; el < bs * bs; el++) {
        const int r = el / bs, c = el % bs;
        double    s = 0.0;
        for (int t = 0; t < bs; t++) s += Dinv[(size_t)jp * bs2 + r * bs + t] * rhs[t * bs + c];
        x[el] = s;
      }
      if (products) (*products)++;
      for (int e = 0; e < p * bs * bs; e++) {
        const int q = e / (bs * bs), el = e % (bs * bs), r = el / bs, c = el % bs;
        const int jq = rowidx[beg + q], f = MSBISAIFind(fcols, frowptr[jq], frowptr[jq + 1], jp);
        double    s  = 0.0;

        if (f < 0) continue;
        for (int t = 0; t < bs; t++) s += F[(size_t)f * bs2 + r * bs + t] * x[t * bs + c];
        M[(size_t)pos[beg + q] * bs2 + el] -= s;
        if (products && el == 0) (*products)++;
      }
    }
  }
  return 0;
}

MS_BISAI_ISAI_TRANSPOSE(MSBISAIISAITranspose_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int t = 0; t < nnz; t++) {
    const double *g = G + (size_t)pos[t] * bs2, *d = Dinv + (size_t)rowidx[t] * bs2;

    for (int e = 0; e < bs * bs; e++) {
      const int r = e / bs, c = e % bs;
      double    s = 0.0;
      for (int k = 0; k < bs; k++) s += g[k * bs + r] * d[k * bs + c];
      H[(size_t)t * bs2 + e] = s;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* apply                                                                                                        */

MS_BISAI_BSR_MULT(MSBISAIBSRMult_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int i = 0; i < nb; i++)
    for (int r = 0; r < bs; r++) {
      double s = 0.0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
        for (int c = 0; c < bs; c++) s += vals[(size_t)p * bs2 + r * bs + c] * x[(size_t)cols[p] * bs + c];
      y[(size_t)i * bs + r] = add ? y[(size_t)i * bs + r] + s : s;
    }
  return 0;
}

MS_BISAI_FACTOR_RESIDUAL(MSBISAIFactorResidual_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int i = 0; i < nb; i++) {
    const int lo = lower ? rowptr[i] : diag[i], hi = lower ? diag[i] : rowptr[i + 1];

    for (int r = 0; r < bs; r++) {
      double s = lower ? x[(size_t)i * bs + r] : 0.0;
      for (int p = lo; p < hi; p++)
        for (int c = 0; c < bs; c++) s += F[(size_t)p * bs2 + r * bs + c] * x[(size_t)cols[p] * bs + c];
      y[(size_t)i * bs + r] = b[(size_t)i * bs + r] - s;
    }
  }
  return 0;
}

const MSBISAIKernels MSBISAIKernels_Reference = {"reference",
                                                 MSBISAIScan_Reference,
                                                 MSBISAIBlockCount_Reference,
                                                 MSBISAIBlockFill_Reference,
                                                 MSBISAIPatternPart_Reference,
                                                 MSBISAIPatternPower_Reference,
                                                 MSBISAIPatternTranspose_Reference,
                                                 MSBISAICheck_Reference,
                                                 MSBISAIValues_Reference,
                                                 MSBISAIShift_Reference,
                                                 MSBISAIInvertDiag_Reference,
                                                 MSBISAIILUExact_Reference,
                                                 MSBISAIILUResidual_Reference,
                                                 MSBISAIILUUpdate_Reference,
                                                 MSBISAIICUpper_Reference,
                                                 MSBISAIISAILower_Reference,
                                                 MSBISAIISAIUpper_Reference,
                                                 MSBISAIISAITranspose_Reference,
                                                 MSBISAIBSRMult_Reference,
                                                 MSBISAIFactorResidual_Reference,
                                                 NULL,
                                                 NULL,
                                                 NULL,
                                                 0};
