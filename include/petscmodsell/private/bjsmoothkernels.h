/*
   Kernels of PCBJSMOOTH, declared once (see mskernels.h for the conventions): the host reference
   (src/ksp/pc/impls/bjsmooth/bjsmooth_reference.c) and the CUDA implementation (bjsmooth.cu) define each
   signature and compute the same function (up to the order of the additions in the block reductions of inner
   CG and of the inner tolerance test; and in asynchronous mode, where the host visits the blocks in order);
   the glue (bjsmooth.c) calls them through MSBJSKernels.

   One outer sweep (Wikberg (2024), equations 4.8-4.9, section 4.3.1): one thread block per slice l of the
   mod-SELL image of the local diagonal block, one thread per row t (image row r = l*sh + t, user row
   o = perm[r]):
     x_t  = zero ? 0 : xin[o]                                (kept in a register, window xs[] in shared memory)
     rl_t = b[o] - offp[o] - d_t x_t - sum_slots v * (c < 0 ? xs[-c-1] : xin[c-1])
     the local system A_ll y = rl (entries with negative codes and the diagonal) is solved approximately
     from y = 0 by inner_its sweeps of the inner method (stopping early when the block residual
     ||rl - A_ll y||_2 <= inner_rtol ||rl||_2, inner_rtol > 0); Jacobi and Gauss-Seidel updates multiply
     by 1 / d_t, computed once per row,
     xout[o] = x_t + y_t.
   Inner methods: Jacobi; warp-serialised Gauss-Seidel (warps of 32 rows in order, Jacobi inside a warp,
   equation 4.14), forward (GS) or forward then backward (SGS); CG; Chebyshev on an interval [lo, hi] of the
   spectrum of D^-1 A_ll (MSBJSChebTable() below: the same cost per sweep as Jacobi).
   The in-slice coefficients are kept in shared memory (ELLPACK, nloc per row, Wikberg (2024), eq. 4.15) when they
   fit, else read from the image in global memory at every inner sweep (the fallback).
*/
#pragma once

#include <petscmodsell/private/mskernels.h>
#include <petscmodsell/private/modsellcuda.h> /* MSPermBuckets (plain C) */

#ifdef __cplusplus
extern "C" {
#endif

#define MS_BJS_INNER_JACOBI 0
#define MS_BJS_INNER_GS     1
#define MS_BJS_INNER_SGS    2
#define MS_BJS_INNER_CG     3
#define MS_BJS_INNER_CHEBY  4

#define MS_BJS_WARP     32
#define MS_BJS_RED      64 /* doubles of reduction scratch in shared memory */
#define MS_BJS_BAD_NONE (~0ULL)

/* Setup analysis: the largest number of in-slice off-diagonal entries of a row (nloc), the smallest local
   row (user numbering) whose diagonal entry is not positive (or not finite) and the smallest local row
   holding a non-finite value (Inf or NaN) among its stored entries. img->diag may be NULL (an image without
   the diagonal apart, e.g. the off-process block: only the values are checked). */
typedef struct {
  unsigned long long maxloc;
  unsigned long long badrow; /* MS_BJS_BAD_NONE when none */
  unsigned long long badval; /* MS_BJS_BAD_NONE when none */
  unsigned long long gersh;  /* the bits of max over rows with a positive diagonal of sum_in-slice |a_rj| / a_rr (a
                                nonnegative double: its bits order as its values), so that 1 + it bounds the spectrum
                                of every block's D^-1 A_ll (Gershgorin; the blocks of an SPD operator are similar
                                to symmetric matrices) */
} MSBJSStatus;

/* Inner Chebyshev iteration on D^-1 A_ll y = D^-1 rl from y = 0 on the interval [lo, hi] (0 < lo < hi), in the
   semi-iterative form (Golub and Varga 1961; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., 12.3.1):
     theta = (hi + lo) / 2, delta = (hi - lo) / 2, mu = delta / theta, g = 1 / theta,
     y_{-1} = y_0 = 0; sweep j = 0, 1, ...: r_j = (rl - sum_in-slice a y_j) / d - y_j (= D^-1 (rl - A_ll y_j)),
       y_{j+1} = w_j (g r_j + y_j - y_{j-1}) + y_{j-1},  w_0 = 1, w_1 = 1 / (1 - mu^2 / 2), w_j = 1 / (1 - mu^2 w_{j-1} / 4);
   after k sweeps the result is y_k times s_k = T_k(1 / mu) / (T_k(1 / mu) + 1). The residual polynomial 1 - t q(t) of
   y_k = q(D^-1 A_ll) D^-1 rl is T_k((theta - t) / delta) / T_k(1 / mu): in (0, 1) below lo and within +-1 / T_k(1 / mu)
   on [lo, hi], so t q(t) lies in (0, 1 + 1 / T_k(1 / mu)] on (0, hi] and the scaled polynomial's in (0, 1]: with hi
   at least the spectral radius of D^-1 A_ll, q > 0 there, so one outer iteration gives an SPD M^-1 for every SPD
   operator (any number of sweeps), and M_l^-1 <= A_ll^-1, so that the outer (Richardson) iteration converges
   wherever block Jacobi with exact block solves does (unscaled it overshoots the exact block solve by up to
   1 / T_k(1 / mu), 20% with 5 sweeps and ratio 20, and diverged on a 7-point Laplacian). A Krylov method does not
   see the scale.
   The scalars are the same for every row: the glue computes them once (MSBJSChebTable()) into a table of
   MS_BJS_CHEB_TABLE(k) doubles in the backend's memory, {w_j, g, s_{j+1}} for sweep j, which the kernels read (on the
   GPU a uniform load per sweep; the zero-guess kernel finds y_{j-1} in its own slot of the other half of its
   double-buffered window, so Chebyshev costs it no register more than Jacobi). */
#define MS_BJS_CHEB_TABLE(k) (3 * (size_t)(k))

static inline void MSBJSChebTable(double lo, double hi, int k, double *tab)
{
  const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), mu = delta / theta, sigma = theta / delta;
  double       w = 1.0, t = sigma, tprev = 1.0; /* T_1(sigma), T_0(sigma) */

  for (int j = 0; j < k; j++) {
    if (j) {
      const double tn = 2.0 * sigma * t - tprev;
      w               = j == 1 ? 1.0 / (1.0 - 0.5 * mu * mu) : 1.0 / (1.0 - 0.25 * mu * mu * w);
      tprev           = t;
      t               = tn;
    }
    tab[3 * j]     = w;
    tab[3 * j + 1] = 1.0 / theta;
    tab[3 * j + 2] = t / (t + 1.0);
  }
}

/* Resets *status and computes it (the caller reads it back once) */
#define MS_BJS_ANALYZE(name) int name(const MSImageView *img, MSBJSStatus *status, void *stream)

/* Symmetry of the blocks A_ll (what decides whether M^-1 is symmetric and whether the spectrum of D^-1 A_ll is real, as
   inner Chebyshev assumes): for every nonzero in-slice off-diagonal entry a_tq of the slices s with s % stride == 0
   (stride >= 1: a sample of the slices, evenly spaced), its transpose a_qt in the same slice (0 when absent) is compared:
   nasym counts the entries with |a_tq - a_qt| > MS_CHECK_SYM_EPS (|a_tq| + |a_qt|) + MS_CHECK_SYM_ABS |a_tt|
   (mskernels.h: the tolerances of the CSR check), except those whose transpose is 0 where row q has no nonzero in-slice
   off-diagonal entry at all: such a row (a Dirichlet row kept in the system, ones on the diagonal) is decoupled inside
   its block, A_ll is block triangular with a diagonal block for those rows, and the spectrum of D^-1 A_ll is that of
   the symmetric rest and 1 (ndecoupled counts those entries). nchecked: the entries compared; firstrow: the smallest
   user row with an entry counted in nasym (MS_BJS_BAD_NONE: none). An image without in-slice codes has nothing to
   check (all 0). Integer results: the same on both backends whatever the order of the rows. */
typedef struct {
  unsigned long long nchecked, nasym, ndecoupled;
  unsigned long long firstrow;
} MSBJSSymmetry;
#define MS_BJS_SYMMETRY(name) int name(const MSImageView *img, int stride, MSBJSSymmetry *out, void *stream)

/* the transpose test of one entry: v = a_tq, u = a_qt (0 when absent), d = |a_tt|; 0: symmetric, 1: not, 2: not but
   row q is decoupled in its block (qcoupled == 0 and u == 0) */
MS_CHECK_HD int MSBJSSymmetryTest(double v, double u, double d, int qcoupled)
{
  const double x = v - u, av = v < 0 ? -v : v, au = u < 0 ? -u : u, ad = d < 0 ? -d : d;

  if ((x < 0 ? -x : x) <= MS_CHECK_SYM_EPS * (av + au) + MS_CHECK_SYM_ABS * ad) return 0;
  return (u == 0.0 && !qcoupled) ? 2 : 1;
}

/* Shared memory of the sweep kernel for this slice height, nloc and inner method (Wikberg (2024), eq. 4.15, plus the
   reduction scratch): with the coefficients in shared memory when they fit (raising the kernel's limit
   with cudaFuncSetAttribute up to the device's opt-in maximum) and force_global == 0, else without them.
   Outputs: use_shared (1: coefficients in shared memory), smem (bytes per block to launch with),
   smem_needed (bytes the shared variant needs), smem_optin (the device's opt-in limit).
   The reference has no limit (smem_optin 0) and always keeps the coefficients apart unless force_global. */
#define MS_BJS_CONFIGURE(name) int name(int sh, int nloc, int inner, int force_global, int *use_shared, size_t *smem, size_t *smem_needed, size_t *smem_optin)

/* One outer sweep over all slices (see above). offp may be NULL (no off-process part); zero != 0: the
   current iterate is zero (xin is not read); async != 0: xin == xout is allowed, blocks read whatever
   values other blocks have written and publish their own with a memory fence (block-asynchronous).
   cheb: inner chebyshev's table (MSBJSChebTable(), backend memory, at least inner_its sweeps; NULL for the other methods).
   pb, work: see MS_BJS_BUCKETED below (the reference ignores them); NULL: a permuted image reads b, offp and xin
   through perm and writes xout through it (a random access per row each). */
#define MS_BJS_SWEEP(name) \
  int name(const MSImageView *img, const MSPermBuckets *pb, int inner, int inner_its, double inner_rtol, const double *cheb, int nloc, int use_shared, size_t smem, int zero, int async, const double *b, const double *offp, const double *xin, double *xout, double *work, void *stream)

/* The zero-guess Jacobi path (the preconditioner's PCApply and the first sweep of a smoother from zero, inner
   jacobi, or chebyshev when cheb (its table) is not NULL, with a fixed count): with x = 0 a sweep needs only b, the diagonal and the in-slice entries, so the setup
   copies the latter into a compact ELLPACK array (the pattern kernel extract_local of mskernels.h, part
   MS_PART_ALL, nloc <= MS_PATTERN_MAXLOC) and zero_jacobi reads those instead of the image: the same arithmetic,
   in the same order, as sweep with zero != 0, inner jacobi and inner_rtol == 0 (xout[o] = y after inner_its
   sweeps from y = 0; every sweep multiplies by the inverse diagonal dinv). With a permuted image whose view has
   iperm and pb NULL, work (NULL or m doubles): the CUDA version writes y there in the image's order and brings it
   back by a gather (MSCUDAUnpermute()) instead of a random write per row (b and offp are read through perm); the
   reference uses neither. pb: see MS_BJS_BUCKETED. */
#define MS_BJS_ZERO_JACOBI(name) \
  int name(const MSImageView *img, const MSPermBuckets *pb, int nloc, const short *lc, const double *lv, const double *dinv, int inner_its, const double *cheb, const double *b, const double *offp, double *xout, double *work, void *stream)

/* The bucketed permutation (modsellcuda.h, MSPermBuckets) in the CUDA sweep and zero_jacobi: when the image
   is permuted, pb != NULL with pb->nbuckets > 1 and work holds MS_BJS_BUCKET_WORK(m, offp, zero) doubles (and, for
   sweep, async == 0), b, offp and (zero == 0) xin are scattered into their buckets (MSCUDABucketScatter(), into
   work + m, + 2m, ...), the kernel reads them at qx[r] (an off-slice code c at qx[c - 1]: inside one bucket), writes
   row r's result to work[py[r]] and MSCUDABucketGather() brings it back into xout. Only the data movement changes:
   the results are the same bit for bit. Otherwise pb is ignored. */
#define MS_BJS_BUCKETED(img, pb, work) ((img)->perm && (pb) && (pb)->nbuckets > 1 && (pb)->px && (pb)->qx && (pb)->py && (pb)->qy && (work))
#define MS_BJS_BUCKET_WORK(m, has_offp, zero) ((size_t)(m) * (size_t)(2 + ((has_offp) ? 1 : 0) + ((zero) ? 0 : 1)))

typedef struct {
  const char *backend;
  MS_BJS_ANALYZE((*analyze));
  MS_BJS_SYMMETRY((*symmetry));
  MS_BJS_CONFIGURE((*configure));
  MS_BJS_SWEEP((*sweep));
  MS_BJS_ZERO_JACOBI((*zero_jacobi));
  int permuted_work; /* the kernels take the work arrays of a permuted image (MS_BJS_ZERO_JACOBI, MS_BJS_BUCKETED): the
                        CUDA ones do, the reference's ignore them (the glue then allocates none) */
} MSBJSKernels;

MS_BJS_ANALYZE(MSBJSAnalyze_Reference);
MS_BJS_SYMMETRY(MSBJSSymmetry_Reference);
MS_BJS_CONFIGURE(MSBJSConfigure_Reference);
MS_BJS_SWEEP(MSBJSSweep_Reference);
MS_BJS_ZERO_JACOBI(MSBJSZeroJacobi_Reference);
MS_KERNEL_EXTERN const MSBJSKernels MSBJSKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_BJS_ANALYZE(MSBJSAnalyze_CUDA);
MS_BJS_SYMMETRY(MSBJSSymmetry_CUDA);
MS_BJS_CONFIGURE(MSBJSConfigure_CUDA);
MS_BJS_SWEEP(MSBJSSweep_CUDA);
MS_BJS_ZERO_JACOBI(MSBJSZeroJacobi_CUDA);
MS_KERNEL_EXTERN const MSBJSKernels MSBJSKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
