/*
   CUDA pattern kernels (mskernels.h): the same function as pattern_ref.c.
*/
#include <petscmodsell/private/msdevice.cuh>

/* one thread per image row */
__global__ void ms_extract_local_kernel(MSImageView img, int nloc, int part, short *__restrict__ lc, double *__restrict__ lv, double *__restrict__ dinv)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= img.m) return;
  const int       m = img.m, s = r / img.sh, t = r - s * img.sh;
  const long long beg = img.sliceptr[s];
  const int       w   = (int)((img.sliceptr[s + 1] - beg) / img.sh);
  int             nn  = 0;
  for (int k = 0; k < w && nn < nloc; k++) {
    const long long slot = beg + (long long)k * img.sh + t;
    const int       c    = img.cols[slot];
    if (c < 0) {
      const int q = -c - 1;
      if (part == MS_PART_ALL || (part == MS_PART_LOWER && q < t) || (part == MS_PART_UPPER && q > t)) {
        lc[(size_t)nn * m + r] = (short)q;
        lv[(size_t)nn * m + r] = img.vals[slot];
        nn++;
      }
    }
  }
  for (; nn < nloc; nn++) {
    lc[(size_t)nn * m + r] = -1;
    lv[(size_t)nn * m + r] = 0.0;
  }
  if (dinv) dinv[r] = 1.0 / img.diag[r];
}

extern "C" MS_PATTERN_EXTRACT_LOCAL(MSPatternExtractLocal_CUDA)
{
  if (nloc < 0 || nloc > MS_PATTERN_MAXLOC || img->sh > 32768) return (int)cudaErrorInvalidValue;
  if (img->m <= 0) return (int)cudaSuccess;
  ms_extract_local_kernel<<<(img->m + 255) / 256, 256, 0, (cudaStream_t)stream>>>(*img, nloc, part, lc, lv, dinv);
  return (int)cudaGetLastError();
}

extern "C" const MSPatternKernels MSPatternKernels_CUDA = {"cuda", MSPatternExtractLocal_CUDA};
