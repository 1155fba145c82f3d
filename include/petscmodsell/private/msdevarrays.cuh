/*
   Stream-ordered device work arrays for the CUDA files that chain several kernels and CUB calls in one host function
   (the locality partition, PCNEUMANN's deflation setup), written once:
     - MSDeviceArrays: the device arrays of one call (cudaMallocAsync on its stream), freed in stream order when the
       object goes out of scope or by put();
     - ms_cub: a CUB call in its two phases (temporary storage size, then the work) with its temporary storage.
*/
#pragma once

#include <cuda_runtime.h>
#include <vector>

/* the device arrays of one call, freed (stream-ordered) when it returns or by put() */
struct MSDeviceArrays {
  cudaStream_t       st;
  std::vector<void *> ptrs;
  explicit MSDeviceArrays(cudaStream_t s) : st(s) { }
  template <class T>
  cudaError_t get(T **p, long long n)
  {
    void       *q = nullptr;
    cudaError_t e = cudaMallocAsync(&q, (size_t)(n > 0 ? n : 1) * sizeof(T), st);
    *p            = nullptr;
    if (e != cudaSuccess) return e;
    ptrs.push_back(q);
    *p = (T *)q;
    return cudaSuccess;
  }
  void put(void *p)
  {
    if (!p) return;
    for (auto &q : ptrs)
      if (q == p) {
        cudaFreeAsync(p, st);
        q = nullptr;
        return;
      }
  }
  ~MSDeviceArrays()
  {
    for (auto q : ptrs)
      if (q) cudaFreeAsync(q, st);
  }
};

/* a CUB call in two phases (size, then work) with its temporary storage */
template <class F>
static cudaError_t ms_cub(cudaStream_t st, F f)
{
  size_t      bytes = 0;
  void       *tmp   = nullptr;
  cudaError_t e     = f(nullptr, bytes), e2;
  if (e != cudaSuccess) return e;
  if ((e = cudaMallocAsync(&tmp, bytes ? bytes : 1, st)) != cudaSuccess) return e;
  e  = f(tmp, bytes);
  e2 = cudaFreeAsync(tmp, st);
  return e != cudaSuccess ? e : e2;
}
