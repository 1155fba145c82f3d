/*
   PCGAMG's graph of a MATSEQAIJMODSELL matrix on the GPU (MatCreateGraph(), seq/graph.c): from the device CSR of the
   matrix's cuSPARSE view, the graph SeqAIJ's host code (MatCreateGraph_Simple_AIJ(), block size 1, no filter) makes,
   the same pattern and the same values bit for bit:

     G = |A|                          (when asked to scale or filter: absolute values; else the values)
     G = G + G^T                      (symmetrize, unless A is known symmetric: SeqAIJ's MatTranspose() and MatAXPY():
                                       an entry in both g_ij + g_ji, in one only that value, copied)
     d_i = g_ii, 0 if absent          (MatGetDiagonal())
     d_i = d_i == 0 ? 0 : 1 / d_i     (VecReciprocal())
     d_i = sqrt(|d_i|)                (VecSqrtAbs())
     g_ij = (g_ij d_i) d_j            (MatDiagonalScale(): the row's factor first, each product rounded)

   The transpose: column counts (atomics), an exclusive scan, a scatter of each entry to its column's segment (atomic
   cursors: any order inside a segment), then CUB's segmented sort by row (keys unique in a segment: the order, and so
   the result, does not depend on the atomics). The sum: a count pass merging each row of G with the row of G^T, a
   scan, a fill pass. Row offsets and column indices are 32-bit, entries counted in 64 bits (the caller checks that
   the result fits PetscInt). Every array is stream-ordered on the caller's stream; the result (gi, gj, ga) stays
   allocated until MSCUDAGraphFree().
*/
#include <petscmodsell/private/msdevice.cuh>
#include <petscmodsell/private/modsellcuda.h>
#include <petscmodsell/private/msdevarrays.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <climits>

/* g = |a| (absval) or a */
__global__ void ms_graph_abs_kernel(long long nnz, int absval, const double *__restrict__ a, double *__restrict__ g)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) {
    const double v = a[k];
    g[k]           = absval ? fabs(v) : v;
  }
}

/* cnt[j] += 1 for every entry of column j */
__global__ void ms_graph_colcount_kernel(long long nnz, const int *__restrict__ aj, int *__restrict__ cnt)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) atomicAdd(cnt + aj[k], 1);
}

/* each entry (i, j) of row i to its column's segment of the transpose: ti = i, tv = g */
__global__ void ms_graph_scatter_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ g, int *__restrict__ cursor, int *__restrict__ ti, double *__restrict__ tv)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  for (int k = ai[i]; k < ai[i + 1]; k++) {
    const int p = atomicAdd(cursor + aj[k], 1);
    ti[p]       = i;
    tv[p]       = g[k];
  }
}

/* row i of G + G^T: the union of two sorted lists; count (vals NULL and cols NULL) or fill */
__global__ void ms_graph_merge_kernel(int m, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ g, const int *__restrict__ tp, const int *__restrict__ ti, const double *__restrict__ tv, const int *__restrict__ ci, int *__restrict__ cnt, int *__restrict__ cj, double *__restrict__ cv)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int       p = ai[i], q = tp[i], o = cj ? ci[i] : 0, n = 0;
  const int pe = ai[i + 1], qe = tp[i + 1];
  while (p < pe || q < qe) {
    const int a = p < pe ? aj[p] : INT_MAX, b = q < qe ? ti[q] : INT_MAX;
    int       c;
    double    v;
    if (a == b) {
      c = a;
      v = cj ? g[p] + tv[q] : 0.0;
      p++;
      q++;
    } else if (a < b) {
      c = a;
      v = cj ? g[p] : 0.0;
      p++;
    } else {
      c = b;
      v = cj ? tv[q] : 0.0;
      q++;
    }
    if (cj) {
      cj[o + n] = c;
      cv[o + n] = v;
    }
    n++;
  }
  if (!cj) cnt[i] = n;
}

/* d_i = sqrt(|1 / g_ii|) (0 without a nonzero diagonal entry), as VecReciprocal() and VecSqrtAbs() compute it */
__global__ void ms_graph_diag_kernel(int m, const int *__restrict__ ci, const int *__restrict__ cj, const double *__restrict__ cv, double *__restrict__ d)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int    lo = ci[i], hi = ci[i + 1];
  double x  = 0.0;
  while (lo < hi) { /* sorted columns: bisection */
    const int mid = lo + (hi - lo) / 2, c = cj[mid];
    if (c == i) {
      x = cv[mid];
      break;
    }
    if (c < i) lo = mid + 1;
    else hi = mid;
  }
  x    = x == 0.0 ? 0.0 : 1.0 / x;
  d[i] = sqrt(fabs(x));
}

/* g_ij = (g_ij d_i) d_j, each product rounded (SeqAIJ's two passes) */
__global__ void ms_graph_scale_kernel(int m, const int *__restrict__ ci, const int *__restrict__ cj, const double *__restrict__ d, double *__restrict__ cv)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const double x = d[i];
  for (int k = ci[i]; k < ci[i + 1]; k++) {
    const double t = __dmul_rn(cv[k], x); /* no contraction with the next product */
    cv[k]          = __dmul_rn(t, d[cj[k]]);
  }
}

/* gi[0..m] from the counts gi[0..m-1] (in place; gi[m] set to 0 first) */
static cudaError_t ms_graph_offsets(int m, int *gi, cudaStream_t st)
{
  cudaError_t e;
  if ((e = cudaMemsetAsync(gi + m, 0, sizeof(int), st))) return e;
  return ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, gi, gi, m + 1, st); });
}

extern "C" int MSCUDAGraphBuild(int m, int n, const int *ai, const int *aj, const double *aa, long long nnz, int absval, int symmetrize, int scale, int **gi_out, int **gj_out, double **ga_out, long long *gnnz_out, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  MSDeviceArrays W(st); /* work arrays, freed on return */
  int           *gi = nullptr, *gj = nullptr;
  double        *ga = nullptr, *g = nullptr;
  const int      nb = (m + 255) / 256;
  int            total;
  cudaError_t    e;

  *gi_out   = nullptr;
  *gj_out   = nullptr;
  *ga_out   = nullptr;
  *gnnz_out = 0;
  if (m < 0 || n != m || nnz < 0 || nnz > INT_MAX || (m && (!ai || (nnz && (!aj || !aa))))) return (int)cudaErrorInvalidValue;
  if ((e = cudaMallocAsync((void **)&gi, (size_t)(m + 1) * sizeof(int), st))) return (int)e;
  if (!symmetrize) { /* the pattern of A */
    if ((e = cudaMemcpyAsync(gi, ai, (size_t)(m + 1) * sizeof(int), cudaMemcpyDeviceToDevice, st))) goto fail;
    if ((e = cudaMallocAsync((void **)&gj, (size_t)(nnz ? nnz : 1) * sizeof(int), st))) goto fail;
    if ((e = cudaMallocAsync((void **)&ga, (size_t)(nnz ? nnz : 1) * sizeof(double), st))) goto fail;
    if (nnz) {
      if ((e = cudaMemcpyAsync(gj, aj, (size_t)nnz * sizeof(int), cudaMemcpyDeviceToDevice, st))) goto fail;
      ms_graph_abs_kernel<<<ms_grid(nnz, 256), 256, 0, st>>>(nnz, absval, aa, ga);
      if ((e = cudaGetLastError())) goto fail;
    }
    total = (int)nnz;
  } else {
    int    *tp, *cur, *ti, *ti2;
    double *tv, *tv2;

    if ((e = W.get(&g, nnz)) || (e = W.get(&tp, (long long)m + 1)) || (e = W.get(&cur, m)) || (e = W.get(&ti, nnz)) || (e = W.get(&ti2, nnz)) || (e = W.get(&tv, nnz)) || (e = W.get(&tv2, nnz))) goto fail;
    if (nnz) {
      ms_graph_abs_kernel<<<ms_grid(nnz, 256), 256, 0, st>>>(nnz, absval, aa, g);
      if ((e = cudaGetLastError())) goto fail;
    }
    /* G^T: column counts, offsets, scatter, sort each segment by row */
    if ((e = cudaMemsetAsync(tp, 0, (size_t)(m + 1) * sizeof(int), st))) goto fail;
    if (nnz) {
      ms_graph_colcount_kernel<<<ms_grid(nnz, 256), 256, 0, st>>>(nnz, aj, tp);
      if ((e = cudaGetLastError())) goto fail;
    }
    if ((e = ms_graph_offsets(m, tp, st))) goto fail;
    if ((e = cudaMemcpyAsync(cur, tp, (size_t)m * sizeof(int), cudaMemcpyDeviceToDevice, st))) goto fail;
    if (m) {
      ms_graph_scatter_kernel<<<nb, 256, 0, st>>>(m, ai, aj, g, cur, ti, tv);
      if ((e = cudaGetLastError())) goto fail;
    }
    if (nnz && (e = ms_cub(st, [&](void *t, size_t &b) { return cub::DeviceSegmentedSort::SortPairs(t, b, ti, ti2, tv, tv2, (int)nnz, m, tp, tp + 1, st); }))) goto fail;
    W.put(ti);
    W.put(tv);
    W.put(cur);
    /* G + G^T: counts, offsets, fill */
    if (m) {
      ms_graph_merge_kernel<<<nb, 256, 0, st>>>(m, ai, aj, g, tp, ti2, tv2, nullptr, gi, nullptr, nullptr);
      if ((e = cudaGetLastError())) goto fail;
    }
    if ((e = ms_graph_offsets(m, gi, st))) goto fail;
    if ((e = cudaMemcpyAsync(&total, gi + m, sizeof(int), cudaMemcpyDeviceToHost, st))) goto fail;
    if ((e = cudaStreamSynchronize(st))) goto fail;
    if ((e = cudaMallocAsync((void **)&gj, (size_t)(total ? total : 1) * sizeof(int), st))) goto fail;
    if ((e = cudaMallocAsync((void **)&ga, (size_t)(total ? total : 1) * sizeof(double), st))) goto fail;
    if (m) {
      ms_graph_merge_kernel<<<nb, 256, 0, st>>>(m, ai, aj, g, tp, ti2, tv2, gi, nullptr, gj, ga);
      if ((e = cudaGetLastError())) goto fail;
    }
  }
  if (scale && m) {
    double *d;
    if ((e = W.get(&d, m))) goto fail;
    ms_graph_diag_kernel<<<nb, 256, 0, st>>>(m, gi, gj, ga, d);
    if ((e = cudaGetLastError())) goto fail;
    ms_graph_scale_kernel<<<nb, 256, 0, st>>>(m, gi, gj, d, ga);
    if ((e = cudaGetLastError())) goto fail;
  }
  *gi_out   = gi;
  *gj_out   = gj;
  *ga_out   = ga;
  *gnnz_out = total;
  return (int)cudaSuccess;
fail:
  if (gi) cudaFreeAsync(gi, st);
  if (gj) cudaFreeAsync(gj, st);
  if (ga) cudaFreeAsync(ga, st);
  return (int)e;
}

extern "C" int MSCUDAGraphFree(int *gi, int *gj, double *ga, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t  e  = cudaSuccess, e2;
  if (gi && (e2 = cudaFreeAsync(gi, st))) e = e2;
  if (gj && (e2 = cudaFreeAsync(gj, st))) e = e2;
  if (ga && (e2 = cudaFreeAsync(ga, st))) e = e2;
  return (int)e;
}
