/*
   Host reference of the CSR check (mskernels.h, MS_CHECK_CSR): the rows in order, each by MSCheckCSRRow(), the
   function csrcheck.cu computes.
*/
#include <petscmodsell/private/mskernels.h>
#include <string.h>

MS_CHECK_CSR(MSCheckCSR_Reference)
{
  double maxdd = 0.0;

  (void)stream;
  if (m < 0) return MS_KERNEL_ERR_ARG;
  memset(info, 0, sizeof(*info));
  info->nonfinite = info->nodiag = info->negdiag = info->posoff = info->notdd = info->asym = MS_CHECK_NONE;
  for (int i = m - 1; i >= 0; i--) { /* backwards: the last row stored is the first one */
    double    dd;
    const int f = MSCheckCSRRow(i, ai, aj, aa, symmetry, &dd);

    if (f & MS_CHECK_ROW_NONFINITE) info->nonfinite = (unsigned long long)i;
    if (f & MS_CHECK_ROW_NODIAG) info->nodiag = (unsigned long long)i;
    if (f & MS_CHECK_ROW_NEGDIAG) info->negdiag = (unsigned long long)i;
    if (f & MS_CHECK_ROW_POSOFF) {
      info->posoff = (unsigned long long)i;
      info->nposoff++;
    }
    if (f & MS_CHECK_ROW_NOTDD) {
      info->notdd = (unsigned long long)i;
      info->nnotdd++;
    }
    if (f & MS_CHECK_ROW_ASYM) {
      info->asym = (unsigned long long)i;
      info->nasym++;
    }
    if (dd > maxdd) maxdd = dd;
  }
  memcpy(&info->maxdd, &maxdd, sizeof(maxdd));
  return 0;
}

const MSCheckKernels MSCheckKernels_Reference = {"reference", MSCheckCSR_Reference};
