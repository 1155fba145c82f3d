/*
   CUDA CSR check (mskernels.h, MS_CHECK_CSR): one thread per row running MSCheckCSRRow() (the reference's row
   function); the first rows by atomicMin, the counts by warp sums and one atomicAdd per warp, the largest ratio by
   ms_atomic_max_nonneg(). The result is the reference's, bit for bit.
*/
#include <petscmodsell/private/msdevice.cuh>

__global__ static void ms_check_init_kernel(MSCSRCheck *info)
{
  info->nonfinite = info->nodiag = info->negdiag = info->posoff = info->notdd = info->asym = MS_CHECK_NONE;
  info->nposoff = info->nnotdd = info->nasym = 0;
  info->maxdd                                 = 0;
}

__global__ static void ms_check_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, int symmetry, MSCSRCheck *info)
{
  const int          i = blockIdx.x * blockDim.x + threadIdx.x;
  int                f = 0;
  double             dd = 0.0;
  unsigned long long np, nd, na;

  if (i < m) f = MSCheckCSRRow(i, ai, aj, aa, symmetry, &dd);
  if (f & MS_CHECK_ROW_NONFINITE) atomicMin(&info->nonfinite, (unsigned long long)i);
  if (f & MS_CHECK_ROW_NODIAG) atomicMin(&info->nodiag, (unsigned long long)i);
  if (f & MS_CHECK_ROW_NEGDIAG) atomicMin(&info->negdiag, (unsigned long long)i);
  if (f & MS_CHECK_ROW_POSOFF) atomicMin(&info->posoff, (unsigned long long)i);
  if (f & MS_CHECK_ROW_NOTDD) atomicMin(&info->notdd, (unsigned long long)i);
  if (f & MS_CHECK_ROW_ASYM) atomicMin(&info->asym, (unsigned long long)i);
  /* every thread of the block reaches the reductions (rows past m count nothing) */
  np = ms_warp_reduce<MSOpSum>((unsigned long long)((f & MS_CHECK_ROW_POSOFF) != 0));
  nd = ms_warp_reduce<MSOpSum>((unsigned long long)((f & MS_CHECK_ROW_NOTDD) != 0));
  na = ms_warp_reduce<MSOpSum>((unsigned long long)((f & MS_CHECK_ROW_ASYM) != 0));
  dd = ms_warp_reduce<MSOpMax>(dd);
  if ((threadIdx.x & 31) == 0) {
    if (np) atomicAdd(&info->nposoff, np);
    if (nd) atomicAdd(&info->nnotdd, nd);
    if (na) atomicAdd(&info->nasym, na);
    if (dd > 0) ms_atomic_max_nonneg(&info->maxdd, dd);
  }
}

extern "C" MS_CHECK_CSR(MSCheckCSR_CUDA)
{
  const cudaStream_t st = (cudaStream_t)stream;

  if (m < 0) return (int)cudaErrorInvalidValue;
  ms_check_init_kernel<<<1, 1, 0, st>>>(info);
  if (m > 0) ms_check_kernel<<<(m + 255) / 256, 256, 0, st>>>(m, ai, aj, aa, symmetry, info);
  return (int)cudaGetLastError();
}

extern "C" const MSCheckKernels MSCheckKernels_CUDA = {"cuda", MSCheckCSR_CUDA};
