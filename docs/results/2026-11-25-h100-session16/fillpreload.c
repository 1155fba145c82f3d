/* diagnostic only (session 16): every cudaMalloc'd block is filled with the byte MS_FILL (unset: left as it is) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>
typedef int err_t;
err_t cudaMalloc(void **p, size_t n)
{
  static err_t (*real)(void **, size_t);
  static err_t (*ms)(void *, int, size_t);
  static err_t (*sync)(void);
  static int fill = -2;
  err_t      e;
  if (!real) {
    real = (err_t(*)(void **, size_t))dlsym(RTLD_NEXT, "cudaMalloc");
    ms   = (err_t(*)(void *, int, size_t))dlsym(RTLD_NEXT, "cudaMemset");
    sync = (err_t(*)(void))dlsym(RTLD_NEXT, "cudaDeviceSynchronize");
  }
  if (fill == -2) fill = getenv("MS_FILL") ? atoi(getenv("MS_FILL")) : -1;
  e = real(p, n);
  if (!e && fill >= 0 && n) {
    ms(*p, fill, n);
    sync();
  }
  return e;
}
