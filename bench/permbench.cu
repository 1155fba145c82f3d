// bench/permbench.cu: a random gather of n doubles against a two-pass bucketed permutation (issue 12).
// Build and run on a GPU: nvcc -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 bench/permbench.cu -o permbench && ./permbench [n]
// (standalone CUDA, no PETSc; figures of an H100 in docs/results/2026-11-24-h100-session6/locality/permbench.txt)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("err %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
__global__ void gather(int n, const int *__restrict__ p, const double *__restrict__ x, double *__restrict__ y)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[p[i]]; }
__global__ void scatter(int n, const int *__restrict__ p, const double *__restrict__ x, double *__restrict__ y)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[p[i]] = x[i]; }
__global__ void copyk(int n, const double *__restrict__ x, double *__restrict__ y)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i]; }
int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 10360232;
  std::vector<int> perm(n), iperm(n);
  for (int i = 0; i < n; i++) perm[i] = i;
  std::mt19937 g(7); std::shuffle(perm.begin(), perm.end(), g);
  for (int i = 0; i < n; i++) iperm[perm[i]] = i;
  std::vector<double> x(n); for (int i = 0; i < n; i++) x[i] = i * 0.5 + 1;
  double *dx, *dy, *dt; int *dp, *dq, *dpos;
  CK(cudaMalloc(&dx, n * 8)); CK(cudaMalloc(&dy, n * 8)); CK(cudaMalloc(&dt, n * 8));
  CK(cudaMalloc(&dp, n * 4)); CK(cudaMalloc(&dq, n * 4)); CK(cudaMalloc(&dpos, n * 4));
  CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dp, perm.data(), n * 4, cudaMemcpyHostToDevice));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  int bs = 256, nb = (n + bs - 1) / bs;
  auto timeit = [&](auto f) { f(); CK(cudaDeviceSynchronize()); std::vector<float> t; for (int r = 0; r < 21; r++) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);} std::sort(t.begin(), t.end()); return t[10]; };
  std::vector<double> y(n);
  auto check = [&](const char *nm) { CK(cudaMemcpy(y.data(), dy, n * 8, cudaMemcpyDeviceToHost)); for (int i = 0; i < n; i++) if (y[i] != x[perm[i]]) { printf("%s WRONG at %d\n", nm, i); return; } };
  printf("n %d (%.1f MB per vector)\n", n, n * 8e-6);
  printf("copy            %.4f ms\n", timeit([&] { copyk<<<nb, bs>>>(n, dx, dy); }));
  printf("gather          %.4f ms\n", timeit([&] { gather<<<nb, bs>>>(n, dp, dx, dy); })); check("gather");
  CK(cudaMemcpy(dq, iperm.data(), n * 4, cudaMemcpyHostToDevice));
  printf("scatter         %.4f ms\n", timeit([&] { scatter<<<nb, bs>>>(n, dq, dx, dy); })); check("scatter");
  for (int C : {1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22}) {
    int K = (n + C - 1) / C;
    std::vector<long long> off(K + 1, 0);
    for (int j = 0; j < n; j++) off[iperm[j] / C + 1]++;
    for (int k = 0; k < K; k++) off[k + 1] += off[k];
    std::vector<int> pos(n), q(n); std::vector<long long> fill(off.begin(), off.end() - 1);
    for (int j = 0; j < n; j++) pos[j] = (int)fill[iperm[j] / C]++;
    for (int i = 0; i < n; i++) q[i] = pos[perm[i]];
    CK(cudaMemcpy(dpos, pos.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dq, q.data(), n * 4, cudaMemcpyHostToDevice));
    float t1 = timeit([&] { scatter<<<nb, bs>>>(n, dpos, dx, dt); });
    float t2 = timeit([&] { gather<<<nb, bs>>>(n, dq, dt, dy); });
    float t = timeit([&] { scatter<<<nb, bs>>>(n, dpos, dx, dt); gather<<<nb, bs>>>(n, dq, dt, dy); });
    check("two-pass");
    printf("two-pass C=%8d (%5.1f MB, K=%3d): %.4f ms (bucket scatter %.4f, local gather %.4f)\n", C, C * 8e-6, K, t, t1, t2);
  }
  return 0;
}
