/*
   Host reference of the pattern kernels (mskernels.h): the same function as pattern.cu.
*/
#include <petscmodsell/private/mskernels.h>

static int MSPatternKeep(int part, int q, int t)
{
  return part == MS_PART_ALL || (part == MS_PART_LOWER && q < t) || (part == MS_PART_UPPER && q > t);
}

MS_PATTERN_EXTRACT_LOCAL(MSPatternExtractLocal_Reference)
{
  const int m = img->m, sh = img->sh;

  (void)stream;
  if (nloc < 0 || nloc > MS_PATTERN_MAXLOC || sh > 32768) return MS_KERNEL_ERR_ARG;
  for (int r = 0; r < m; r++) {
    const int       s = r / sh, t = r - s * sh;
    const long long beg = img->sliceptr[s];
    const int       w   = (int)((img->sliceptr[s + 1] - beg) / sh);
    int             nn  = 0;

    for (int k = 0; k < w; k++) {
      const long long slot = beg + (long long)k * sh + t;
      const int       c    = img->cols[slot];
      if (c < 0 && MSPatternKeep(part, -c - 1, t)) {
        if (nn == nloc) return MS_KERNEL_ERR_ARG; /* more kept entries than the caller allowed for */
        lc[(size_t)nn * m + r] = (short)(-c - 1);
        lv[(size_t)nn * m + r] = img->vals[slot];
        nn++;
      }
    }
    for (; nn < nloc; nn++) {
      lc[(size_t)nn * m + r] = -1;
      lv[(size_t)nn * m + r] = 0.0;
    }
    if (dinv) dinv[r] = 1.0 / img->diag[r];
  }
  return 0;
}

const MSPatternKernels MSPatternKernels_Reference = {"reference", MSPatternExtractLocal_Reference};
