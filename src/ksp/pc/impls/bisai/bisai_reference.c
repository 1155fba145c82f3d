/*
   Host reference of the PCBISAI kernels (bisaikernels.h): the same function as bisai.cu, plus the exact block ILU(0)
   in row order, which runs only on the host (the GPU path uploads its result).
*/
#include <petscmodsell/private/bisaikernels.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

MS_BISAI_INVERT_DIAG(MSBISAIInvertDiag_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  if (bs < 1 || bs > MS_BISAI_MAXBS) return MS_KERNEL_ERR_ARG;
  *bad = MS_BISAI_NONE;
  for (int i = 0; i < nb; i++)
    if (MSBISAIInvertBlock(bs, F + (size_t)diag[i] * bs2, Dinv + (size_t)i * bs2) && i < *bad) *bad = i;
  return 0;
}

int MSBISAIILUExact_Reference(int nb, int bs, const int *rowptr, const int *cols, const int *diag, const double *A, double *F, double *Dinv, int *bad)
{
  const size_t bs2 = (size_t)bs * bs;
  int         *colpos;
  double       tmp[MS_BISAI_MAXBS * MS_BISAI_MAXBS];

  if (bs < 1 || bs > MS_BISAI_MAXBS) return MS_KERNEL_ERR_ARG;
  *bad = MS_BISAI_NONE;
  if (nb <= 0) return 0;
  colpos = (int *)malloc((size_t)nb * sizeof(int));
  if (!colpos) return MS_KERNEL_ERR_MEM;
  for (int j = 0; j < nb; j++) colpos[j] = -1;
  memcpy(F, A, (size_t)rowptr[nb] * bs2 * sizeof(double));
  for (int i = 0; i < nb; i++) {
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) colpos[cols[p]] = p;
    for (int p = rowptr[i]; p < rowptr[i + 1] && cols[p] < i; p++) {
      const int k   = cols[p];
      double   *Fik = F + (size_t)p * bs2;

      /* L(i,k) = (A(i,k) - sum_{k' < k} L(i,k') U(k',k)) U(k,k)^-1 */
      for (int r = 0; r < bs; r++)
        for (int c = 0; c < bs; c++) {
          double s = 0.0;
          for (int t = 0; t < bs; t++) s += Fik[r * bs + t] * Dinv[(size_t)k * bs2 + t * bs + c];
          tmp[r * bs + c] = s;
        }
      memcpy(Fik, tmp, bs2 * sizeof(double));
      /* row i minus L(i,k) times the part of row k right of its diagonal, on row i's pattern */
      for (int q = diag[k] + 1; q < rowptr[k + 1]; q++) {
        const int pj = colpos[cols[q]];
        if (pj < 0) continue;
        for (int r = 0; r < bs; r++)
          for (int c = 0; c < bs; c++) {
            double s = 0.0;
            for (int t = 0; t < bs; t++) s += Fik[r * bs + t] * F[(size_t)q * bs2 + t * bs + c];
            F[(size_t)pj * bs2 + r * bs + c] -= s;
          }
      }
    }
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++) colpos[cols[p]] = -1;
    if (MSBISAIInvertBlock(bs, F + (size_t)diag[i] * bs2, Dinv + (size_t)i * bs2)) {
      *bad = i;
      break;
    }
  }
  free(colpos);
  return 0;
}

MS_BISAI_ILU_RESIDUAL(MSBISAIILUResidual_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int p = 0; p < nnzb; p++) {
    const int i = rowidx[p], j = cols[p], kmax = i < j ? i : j;

    for (int e = 0; e < bs * bs; e++) {
      const int r = e / bs, c = e % bs;
      double    s = 0.0;

      for (int q = rowptr[i]; q < rowptr[i + 1] && cols[q] < kmax; q++) {
        const int k = cols[q], f = MSBISAIFind(cols, rowptr[k], rowptr[k + 1], j);
        if (f < 0) continue;
        for (int t = 0; t < bs; t++) s += F[(size_t)q * bs2 + r * bs + t] * F[(size_t)f * bs2 + t * bs + c];
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

MS_BISAI_ISAI_LOWER(MSBISAIISAILower_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
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
      for (int e = 0; e < p * bs * bs; e++) {
        const int q = e / (bs * bs), el = e % (bs * bs), r = el / bs, c = el % bs;
        const int jq = rowidx[beg + q], f = MSBISAIFind(fcols, frowptr[jq], frowptr[jq + 1], jp);
        double    s  = 0.0;

        if (f < 0) continue;
        for (int t = 0; t < bs; t++) s += F[(size_t)f * bs2 + r * bs + t] * x[t * bs + c];
        M[(size_t)pos[beg + q] * bs2 + el] -= s;
      }
    }
  }
  return 0;
}

MS_BISAI_BSR_MULT(MSBISAIBSRMult_Reference)
{
  const size_t bs2 = (size_t)bs * bs;

  (void)stream;
  for (int i = 0; i < nb; i++)
    for (int r = 0; r < bs; r++) {
      double s = 0.0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
        for (int c = 0; c < bs; c++) s += vals[(size_t)p * bs2 + r * bs + c] * x[(size_t)cols[p] * bs + c];
      y[(size_t)i * bs + r] = s;
    }
  return 0;
}

const MSBISAIKernels MSBISAIKernels_Reference = {"reference", MSBISAIInvertDiag_Reference, MSBISAIILUResidual_Reference, MSBISAIILUUpdate_Reference, MSBISAIISAILower_Reference, MSBISAIISAIUpper_Reference, MSBISAIBSRMult_Reference, NULL, NULL, NULL, 0};
