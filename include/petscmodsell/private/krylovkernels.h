/*
   Kernels of the device-resident Krylov methods (KSPCGDEVICE; KSPBCGSDEVICE and KSPGMRESDEVICE build on the same
   layer), declared once (see mskernels.h for the conventions): the host reference (src/ksp/ksp/utils/krylov_reference.c)
   and the CUDA implementation (krylov.cu) define each signature and compute the same function; the shared layer
   (src/ksp/ksp/utils/kspms.c, kspmsimpl.h) and the methods' glue call them through MSKrylovKernels.

   The scalars of a solve live in the backend's memory (MSKrylovScalars): the method's scalars (CG's alpha, beta,
   p.Ap, ...), the reduced sums of the current step, KSPConvergedDefault()'s parameters and the state of the solve
   (iteration, reason, residual norm, the done flag). Every kernel reads its scalars there at its start and does
   nothing once `done` is set, so that the iterations queued after the one that stopped the solve change nothing.

   Reductions run in one pass (MSKrylovReduce): each thread block writes its partial sums, and the last block to
   finish (counted by an atomic counter per group of MS_KRYLOV_GROUP blocks, then one over the groups) adds them in a
   fixed order (the result does not depend on which block is last), stores the sums in sc->sum[slot, ...] and runs the
   step's finish (MSKrylovFinish(): the method's scalar recurrences, the breakdown checks and the convergence test)
   on one thread. With several processes a kernel stores only its local sums; the layer adds them over the processes
   (MPI_Allreduce through host memory) and runs the finish kernel alone.

   The scalar code (the finish functions below) is one source for both backends: static inline functions compiled by
   the C compiler for the reference and by nvcc as __host__ __device__ functions for CUDA.
*/
#pragma once

#include <petscmodsell/private/mskernels.h>
#include <petscmodsell/private/modsellcuda.h> /* MSPermBuckets (plain C) */
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
  #define MS_KRYLOV_HD static inline __host__ __device__
#else
  #define MS_KRYLOV_HD static inline
#endif

#define MS_KRYLOV_NSCALARS 16   /* method scalars (CG: MS_CG_*) */
#define MS_KRYLOV_NSUMS    8    /* sums of one step */
#define MS_KRYLOV_BLOCKS   1024 /* thread blocks of the pointwise kernels (grid-stride loops) */
#define MS_KRYLOV_THREADS  256  /* their threads */
#define MS_KRYLOV_GROUP    1024 /* blocks per group of the two-level reduction */
#define MS_KRYLOV_MAXGROUPS 4096 /* groups: a reduction kernel has at most MS_KRYLOV_GROUP * MS_KRYLOV_MAXGROUPS blocks */

/* KSPConvergedReason and KSPNormType values (plain C: the kernels see no PETSc header; kspms.c checks that they
   match at compile time) */
#define MS_KRYLOV_CONVERGED_ITERATING     0
#define MS_KRYLOV_CONVERGED_RTOL          2
#define MS_KRYLOV_CONVERGED_ATOL          3
#define MS_KRYLOV_CONVERGED_ITS           4
#define MS_KRYLOV_CONVERGED_NEG_CURVE     5
#define MS_KRYLOV_CONVERGED_HAPPY_BREAKDOWN 7
#define MS_KRYLOV_DIVERGED_ITS            (-3)
#define MS_KRYLOV_DIVERGED_DTOL           (-4)
#define MS_KRYLOV_DIVERGED_BREAKDOWN      (-5)
#define MS_KRYLOV_DIVERGED_BREAKDOWN_BICG (-6)
#define MS_KRYLOV_DIVERGED_INDEFINITE_PC  (-8)
#define MS_KRYLOV_DIVERGED_NANORINF       (-9)
#define MS_KRYLOV_DIVERGED_INDEFINITE_MAT (-10)
#define MS_KRYLOV_NORM_NONE               0
#define MS_KRYLOV_NORM_PRECONDITIONED     1
#define MS_KRYLOV_NORM_UNPRECONDITIONED   2
#define MS_KRYLOV_NORM_NATURAL            3

/* The scalars of a solve, in the backend's memory. The first members (up to sum[]) are the status the host reads. */
typedef struct {
  int    done;     /* the solve stopped: every kernel is a no-op */
  int    reason;   /* KSPConvergedReason once done (or set by the host's test) */
  int    its;      /* KSPGetIterationNumber() */
  int    awaiting; /* host test: the step ended with its norm and waits for the host's test (then a finish *_POST) */
  double rnorm;    /* KSPGetResidualNorm() */
  double sum[MS_KRYLOV_NSUMS]; /* the sums of the current step (with several processes: local, then global) */
  /* KSPConvergedDefault() (set by the host at the start of a solve; rnorm0, ttol computed at iteration 0) */
  double rtol, atol, divtol;
  double snorm; /* nonzero initial guess without -ksp_converged_use_initial_residual_norm: the norm of the right-hand
                   side the test compares with (computed by the host as KSPConvergedDefault() does); < 0: the initial
                   residual norm */
  double rnorm0, ttol;
  int    max_it, min_it, chknorm, normtype;
  int    convmaxits;     /* -ksp_converged_maxits: KSP_CONVERGED_ITS at max_it */
  int    mininitialrtol; /* -ksp_converged_use_min_initial_residual_norm */
  int    hostcheck;      /* the host runs the convergence test (monitors, another test): steps stop at `awaiting` */
  int    negcurve;       /* KSPSetConvergedNegativeCurvature(): CG's negative curvature converges */
  int    nhist, maxhist; /* entries of the device history written, its capacity */
  int    host_reason;    /* the host test's reason (host test mode), read by the *_POST finishes */
  int    i;              /* the method's iteration counter (cg.c's i: the pass in progress) */
  double s[MS_KRYLOV_NSCALARS];
} MSKrylovScalars;

/* Where a reduction's sums go and what finishes the step (passed by value to the CUDA kernels) */
typedef struct {
  MSKrylovScalars *sc;      /* backend memory */
  double          *hist;    /* residual history (sc->maxhist entries), or NULL */
  double          *partial; /* work: MS_KRYLOV_NSUMS doubles per block (nblocks) and per group (MS_KRYLOV_MAXGROUPS) */
  unsigned int    *count;   /* MS_KRYLOV_MAXGROUPS + 1 counters, zero between kernels (every reduction leaves them so) */
  int              nblocks; /* blocks partial has room for */
  int              slot;    /* the sums go to sc->sum[slot], sc->sum[slot + 1], ... */
  int              finish;  /* MS_KRYLOV_FINISH_*: run on the completed sums by the last block */
} MSKrylovReduce;

/* ------------------------------------------------------------------------------------------------------------ */
/* finishes                                                                                                       */
#define MS_KRYLOV_FINISH_NONE       0
#define MS_KRYLOV_FINISH_CG_START   1 /* sums nn, zr: cg.c's initial norm, test and first pass's checks */
#define MS_KRYLOV_FINISH_CG_DPI     2 /* sum[2] = p.Ap: cg.c's dpi checks, alpha */
#define MS_KRYLOV_FINISH_CG_STEP    3 /* sums nn, zr: the norm of pass i, the test, the next pass's checks */
#define MS_KRYLOV_FINISH_CG_POST    4 /* host test: after the host's reason, the rest of CG_START / CG_STEP */
#define MS_KRYLOV_FINISH_CGSR_START 5 /* single reduction: sums nn, zr, z.s, z.w, p.s (s = A z) */
#define MS_KRYLOV_FINISH_CGSR_STEP  6
#define MS_KRYLOV_FINISH_CGSR_POST  7

/* CG's scalars (sc->s[]) and sums (sc->sum[]) */
#define MS_CG_BETA    0 /* r.z */
#define MS_CG_BETAOLD 1
#define MS_CG_DPI     2 /* p.Ap */
#define MS_CG_DPIOLD  3
#define MS_CG_ALPHA   4
#define MS_CG_B       5 /* beta / betaold: p = z + b p (0 in the first pass) */
#define MS_CG_DELTA   6 /* single reduction: z.s (s = A z) */
#define MS_CG_ZW      7 /* single reduction: z.w (w = A p of the previous pass, by its recurrence) */
#define MS_CG_PS      8 /* single reduction: p.s */
#define MS_CG_SUM_NN  0 /* z.z (preconditioned norm) or r.r (unpreconditioned) */
#define MS_CG_SUM_ZR  1
#define MS_CG_SUM_PW  2 /* p.Ap (standard form) */
#define MS_CG_SUM_ZW  2 /* z.w (single reduction: with nn and zr from the update's pass) */
#define MS_CG_SUM_ZS  3 /* z.s (single reduction) */
#define MS_CG_SUM_PS  4 /* p.s (single reduction) */

/* not finite: NaN - NaN and Inf - Inf are NaN (PETSc's PetscIsInfOrNanReal()) */
MS_KRYLOV_HD int MSKrylovInfNan(double v)
{
  return !(v - v == 0.0);
}

MS_KRYLOV_HD double MSKrylovSign(double v)
{
  return v >= 0.0 ? (v == 0.0 ? 0.0 : 1.0) : -1.0;
}

MS_KRYLOV_HD void MSKrylovStop(MSKrylovScalars *sc, int reason)
{
  sc->reason   = reason;
  sc->done     = 1;
  sc->awaiting = 0;
}

/* KSPLogResidualHistory() on the device (the host logs it itself when it runs the test) */
MS_KRYLOV_HD void MSKrylovLogHistory(MSKrylovScalars *sc, double *hist, double v)
{
  if (hist && !sc->hostcheck && sc->nhist < sc->maxhist) hist[sc->nhist++] = v;
}

/* KSPConvergedDefault(ksp, n, rnorm) (src/ksp/ksp/interface/iterativ.c), the same comparisons in the same order; the
   failed-PC variant of KSP_DIVERGED_NANORINF is decided by the host at the end of the solve */
MS_KRYLOV_HD int MSKrylovConvergedDefault(MSKrylovScalars *sc, int n, double rnorm)
{
  if (sc->convmaxits && n >= sc->max_it) return MS_KRYLOV_CONVERGED_ITS;
  if (sc->normtype == MS_KRYLOV_NORM_NONE) return MS_KRYLOV_CONVERGED_ITERATING;
  if (!n) {
    if (sc->snorm >= 0.0) {
      const double snorm = sc->snorm != 0.0 ? sc->snorm : rnorm; /* zero right-hand side, nonzero guess */
      sc->rnorm0         = sc->mininitialrtol ? (snorm < rnorm ? snorm : rnorm) : snorm;
    } else sc->rnorm0 = rnorm;
    sc->ttol = sc->rtol * sc->rnorm0 < sc->atol ? sc->atol : sc->rtol * sc->rnorm0;
  }
  if (n <= sc->chknorm) return MS_KRYLOV_CONVERGED_ITERATING;
  if (MSKrylovInfNan(rnorm)) return MS_KRYLOV_DIVERGED_NANORINF;
  if (n < sc->min_it) return MS_KRYLOV_CONVERGED_ITERATING;
  if (rnorm <= sc->ttol) return rnorm < sc->atol ? MS_KRYLOV_CONVERGED_ATOL : MS_KRYLOV_CONVERGED_RTOL;
  if (rnorm >= sc->divtol * sc->rnorm0) return MS_KRYLOV_DIVERGED_DTOL;
  return MS_KRYLOV_CONVERGED_ITERATING;
}

/* ---- CG (src/ksp/ksp/impls/cg/cg.c: KSPSolve_CG, and KSPSolve_CG_SingleReduction when sr) -------------------- */

/* the top of pass i: its = i + 1, beta = 0 converges, a sign change of beta is an indefinite preconditioner; b; the
   single reduction's p.Ap, its checks and alpha. The single reduction updates p = z + b p and w = s + b w (s = A z)
   after this, so p.w is expanded exactly as z.s + b (z.w + p.s) + b^2 p.w_old from the sums of the step: no symmetry
   of A is assumed (Chronopoulos and Gear's z.s - b^2 p.w_old needs it, and breaks down on operators that are
   symmetric only in their interior, such as PETSc's ex45 with its Dirichlet rows, on which KSPCG converges) */
MS_KRYLOV_HD void MSCGTop(MSKrylovScalars *sc, int i, int sr)
{
  double *s = sc->s;

  sc->its = i + 1;
  sc->i   = i;
  if (s[MS_CG_BETA] == 0.0) {
    MSKrylovStop(sc, MS_KRYLOV_CONVERGED_ATOL);
    return;
  }
  if (i > 0 && s[MS_CG_BETA] * s[MS_CG_BETAOLD] < 0.0) {
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_INDEFINITE_PC);
    return;
  }
  s[MS_CG_B] = i ? s[MS_CG_BETA] / s[MS_CG_BETAOLD] : 0.0;
  if (sr) {
    s[MS_CG_DPIOLD]  = s[MS_CG_DPI];
    s[MS_CG_DPI]     = i ? s[MS_CG_DELTA] + s[MS_CG_B] * (s[MS_CG_ZW] + s[MS_CG_PS]) + s[MS_CG_B] * s[MS_CG_B] * s[MS_CG_DPIOLD] : s[MS_CG_DELTA];
    s[MS_CG_BETAOLD] = s[MS_CG_BETA];
    if (MSKrylovInfNan(s[MS_CG_DPI])) {
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
    if (s[MS_CG_DPI] == 0.0 || (i > 0 && s[MS_CG_DPI] * s[MS_CG_DPIOLD] <= 0.0)) {
      MSKrylovStop(sc, sc->negcurve ? MS_KRYLOV_CONVERGED_NEG_CURVE : MS_KRYLOV_DIVERGED_INDEFINITE_MAT);
      return;
    }
    s[MS_CG_ALPHA] = s[MS_CG_BETA] / s[MS_CG_DPI];
  }
}

/* the single reduction's dots of the step */
MS_KRYLOV_HD void MSCGTakeDots(MSKrylovScalars *sc)
{
  sc->s[MS_CG_DELTA] = sc->sum[MS_CG_SUM_ZS];
  sc->s[MS_CG_ZW]    = sc->sum[MS_CG_SUM_ZW];
  sc->s[MS_CG_PS]    = sc->sum[MS_CG_SUM_PS];
}

/* after the test of pass n - 1 (n = 0: the start): beta = z.r for the next pass (the natural norm has it already),
   the loop's condition (i = n < max_it; the start always enters the loop) and the next pass's top */
MS_KRYLOV_HD void MSCGPost(MSKrylovScalars *sc, int n, int sr)
{
  if (sr) MSCGTakeDots(sc);
  if (sc->normtype != MS_KRYLOV_NORM_NATURAL) {
    sc->s[MS_CG_BETA] = sc->sum[MS_CG_SUM_ZR];
    if (MSKrylovInfNan(sc->s[MS_CG_BETA])) {
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
  }
  if (n > 0 && n >= sc->max_it) {
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_ITS);
    return;
  }
  MSCGTop(sc, n, sr);
}

/* the norm of iteration n (0: the start) from the sums, its checks, the history and the test (or a stop for the
   host's test) */
MS_KRYLOV_HD void MSCGNorm(MSKrylovScalars *sc, double *hist, int n, int sr)
{
  const int type = sc->normtype;
  double    dp;

  if ((type == MS_KRYLOV_NORM_PRECONDITIONED || type == MS_KRYLOV_NORM_UNPRECONDITIONED) && (n == 0 || sc->chknorm <= n)) {
    dp = sqrt(sc->sum[MS_CG_SUM_NN]);
    if (MSKrylovInfNan(dp)) {
      sc->rnorm = dp;
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
  } else if (type == MS_KRYLOV_NORM_NATURAL) {
    sc->s[MS_CG_BETA] = sc->sum[MS_CG_SUM_ZR];
    if (MSKrylovInfNan(sc->s[MS_CG_BETA])) {
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
    dp = sqrt(fabs(sc->s[MS_CG_BETA]));
  } else dp = 0.0;
  sc->rnorm = dp;
  MSKrylovLogHistory(sc, hist, dp);
  if (sc->hostcheck) {
    sc->awaiting = 1;
    return;
  }
  {
    const int reason = MSKrylovConvergedDefault(sc, n, dp);
    if (reason) {
      MSKrylovStop(sc, reason);
      return;
    }
  }
  MSCGPost(sc, n, sr);
}

/* standard form, after w = A p: dpi = p.w, its checks (NaN; zero or a sign change: an indefinite matrix), alpha */
MS_KRYLOV_HD void MSCGDpi(MSKrylovScalars *sc)
{
  double *s = sc->s;

  s[MS_CG_DPIOLD] = s[MS_CG_DPI];
  s[MS_CG_DPI]    = sc->sum[MS_CG_SUM_PW];
  if (MSKrylovInfNan(s[MS_CG_DPI])) {
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
    return;
  }
  s[MS_CG_BETAOLD] = s[MS_CG_BETA];
  if (s[MS_CG_DPI] == 0.0 || (sc->i > 0 && MSKrylovSign(s[MS_CG_DPI]) * MSKrylovSign(s[MS_CG_DPIOLD]) < 0.0)) {
    MSKrylovStop(sc, sc->negcurve ? MS_KRYLOV_CONVERGED_NEG_CURVE : MS_KRYLOV_DIVERGED_INDEFINITE_MAT);
    return;
  }
  s[MS_CG_ALPHA] = s[MS_CG_BETA] / s[MS_CG_DPI];
}

/* The finish of a step: what the last block of a reduction (or the finish kernel) runs on one thread */
MS_KRYLOV_HD void MSKrylovFinish(int code, MSKrylovScalars *sc, double *hist)
{
  if (sc->done) return;
  switch (code) {
  case MS_KRYLOV_FINISH_CG_START:
    MSCGNorm(sc, hist, 0, 0);
    break;
  case MS_KRYLOV_FINISH_CGSR_START:
    MSCGNorm(sc, hist, 0, 1);
    break;
  case MS_KRYLOV_FINISH_CG_DPI:
    MSCGDpi(sc);
    break;
  case MS_KRYLOV_FINISH_CG_STEP:
    MSCGNorm(sc, hist, sc->its, 0);
    break;
  case MS_KRYLOV_FINISH_CGSR_STEP:
    MSCGNorm(sc, hist, sc->its, 1);
    break;
  case MS_KRYLOV_FINISH_CG_POST:
  case MS_KRYLOV_FINISH_CGSR_POST:
    sc->awaiting = 0;
    if (sc->host_reason) MSKrylovStop(sc, sc->host_reason);
    else MSCGPost(sc, sc->its, code == MS_KRYLOV_FINISH_CGSR_POST);
    break;
  default:
    break;
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* kernels                                                                                                        */

/* how a step obtains z = B r */
#define MS_KRYLOV_PC_NONE    0 /* B = I: z is r (no z is stored) */
#define MS_KRYLOV_PC_DIAG    1 /* a pointwise preconditioner: z = d .* r, written by the kernel */
#define MS_KRYLOV_PC_APPLIED 2 /* PCApply() between kernels: z is given */

/* the vectors of a CG step (any may be NULL where the mode does not read it) */
typedef struct {
  double       *x, *r, *p, *w;
  const double *s; /* single reduction: A z of the previous step (p = z + b p, w = s + b w are updated first); NULL: the
                      standard form (p updated by cg_direction) */
  double       *z; /* MS_KRYLOV_PC_DIAG: written; MS_KRYLOV_PC_APPLIED: read */
  const double *d; /* MS_KRYLOV_PC_DIAG */
  int           pc;     /* MS_KRYLOV_PC_* */
  int           norm_r; /* the norm's sum nn is r.r (unpreconditioned norm), else z.z */
} MSKrylovCGVecs;

/* up to MS_KRYLOV_MAXDOTS dots in one pass: sc->sum[slot + j] = x[j] . y[j], then the finish */
#define MS_KRYLOV_MAXDOTS 4
typedef struct {
  int           ndot;
  const double *x[MS_KRYLOV_MAXDOTS], *y[MS_KRYLOV_MAXDOTS];
} MSKrylovDots;
#define MS_KRYLOV_DOT(name) int name(int n, const MSKrylovDots *d, const MSKrylovReduce *red, void *stream)
/* the finish alone (red->finish, one thread; with several processes after the sums were added over them) */
#define MS_KRYLOV_FINISH(name) int name(const MSKrylovReduce *red, void *stream)
/* sc->sum[red->slot + j] = sums[j], j < nsums <= MS_KRYLOV_NSUMS (a host array, read before the call returns: the sums
   added over the processes, given to the kernel by value), then the finish */
#define MS_KRYLOV_FINISH_SUMS(name) int name(int nsums, const double *sums, const MSKrylovReduce *red, void *stream)
/* y = A x and sc->sum[slot] = x . y, then the finish; A a mod-SELL image in the numbering of x and y (the user's, or a
   permuted image's own when its view has perm NULL); a permuted image in the user's numbering: pb and work (2 m) as
   MSCUDAMult() (pb NULL: the gathers). The CUDA product is one kernel with the dot in its epilogue (any threads per
   row) unless the image is permuted in the user's numbering: MSCUDAMult() and then the dot. */
#define MS_KRYLOV_MULT_DOT(name) int name(const MSImageView *A, const MSPermBuckets *pb, const double *x, double *y, double *work, const MSKrylovReduce *red, void *stream)
/* p = z + b p (b = sc->s[MS_CG_B]) */
#define MS_KRYLOV_CG_DIRECTION(name) int name(int n, const double *z, double *p, const MSKrylovScalars *sc, void *stream)
/* cg_direction and mult_dot in one kernel: pnew = z + b pold, w = A pnew and sc->sum[slot] = pnew . w, then the finish;
   pnew and pold are two vectors (the product reads pnew at the neighbours' rows: it forms z + b pold there again, the
   same bits). An unpermuted image, or a permuted one read in its own numbering (A->perm NULL in the view given: the
   vectors are in the image's order), any threads per row. */
#define MS_KRYLOV_CG_DIRECTION_MULT_DOT(name) int name(const MSImageView *A, const double *z, const double *pold, double *pnew, double *w, const MSKrylovReduce *red, void *stream)

/* The single reduction's step in one kernel (cg_sr_mult), with a pointwise preconditioner (z = d .* r, or z = r): with
   a = sc->s[MS_CG_ALPHA], b = sc->s[MS_CG_B] and z = B r of the previous step,
       p = z + b p, wn = s + b w, x += a p, rn = r - a wn, zn = B rn, sn = A zn,
   and the sums nn (zn.zn or rn.rn), zr = zn.rn, zw = zn.wn, zs = zn.sn, ps = p.sn into red->slot + 0..4 (the order of
   MS_CG_SUM_NN..MS_CG_SUM_PS), then the finish. r, w, s are the previous step's and rn, wn, sn other vectors (the
   product forms zn at the neighbours' rows from their r, s, w, d again: the same bits); x and p are updated in place.
   The image is read in its own numbering (A->perm NULL: the vectors are in the image's order), any threads per row. */
typedef struct {
  double       *x, *p;
  const double *r, *w, *s;
  double       *rn, *wn, *sn;
  const double *d;      /* MS_KRYLOV_PC_DIAG */
  int           pc;     /* MS_KRYLOV_PC_NONE or MS_KRYLOV_PC_DIAG */
  int           norm_r; /* nn is rn.rn (unpreconditioned norm), else zn.zn */
} MSKrylovCGSRVecs;
#define MS_KRYLOV_CG_SR_MULT(name) int name(const MSImageView *A, const MSKrylovCGSRVecs *v, const MSKrylovReduce *red, void *stream)

/* A vector between the user's numbering and a permuted image's (perm: image row -> user row):
   MS_KRYLOV_TO_IMAGE y[r] = x[perm[r]], MS_KRYLOV_TO_USER y[perm[r]] = x[r]; x and y distinct */
#define MS_KRYLOV_TO_IMAGE 0
#define MS_KRYLOV_TO_USER  1
#define MS_KRYLOV_PERMUTE(name) int name(int n, const int *perm, int dir, const double *x, double *y, void *stream)
/* x += alpha p, r -= alpha w (single reduction: p = z + b p, w = s + b w first), then unless red is NULL (PC_APPLIED)
   z = B r and the sums nn (z.z or r.r) and zr = z.r into slots red->slot, red->slot + 1 (single reduction: and z.w
   into red->slot + 2, MS_CG_SUM_ZW) */
#define MS_KRYLOV_CG_UPDATE(name) int name(int n, const MSKrylovCGVecs *v, const MSKrylovScalars *sc, const MSKrylovReduce *red, void *stream)
/* z = B r (PC_DIAG: z = d .* r; PC_APPLIED: z given) and the sums nn, zr (the start, and a step after PCApply()) */
#define MS_KRYLOV_CG_RESIDUAL(name) int name(int n, const MSKrylovCGVecs *v, const MSKrylovReduce *red, void *stream)

typedef struct {
  const char *backend;
  MS_KRYLOV_DOT((*dot));
  MS_KRYLOV_FINISH((*finish));
  MS_KRYLOV_FINISH_SUMS((*finish_sums));
  MS_KRYLOV_MULT_DOT((*mult_dot));
  MS_KRYLOV_CG_DIRECTION((*cg_direction));
  MS_KRYLOV_CG_DIRECTION_MULT_DOT((*cg_direction_mult_dot));
  MS_KRYLOV_CG_UPDATE((*cg_update));
  MS_KRYLOV_CG_RESIDUAL((*cg_residual));
  MS_KRYLOV_CG_SR_MULT((*cg_sr_mult));
  MS_KRYLOV_PERMUTE((*permute));
} MSKrylovKernels;

MS_KRYLOV_DOT(MSKrylovDot_Reference);
MS_KRYLOV_FINISH(MSKrylovFinish_Reference);
MS_KRYLOV_FINISH_SUMS(MSKrylovFinishSums_Reference);
MS_KRYLOV_MULT_DOT(MSKrylovMultDot_Reference);
MS_KRYLOV_CG_DIRECTION(MSKrylovCGDirection_Reference);
MS_KRYLOV_CG_DIRECTION_MULT_DOT(MSKrylovCGDirectionMultDot_Reference);
MS_KRYLOV_CG_UPDATE(MSKrylovCGUpdate_Reference);
MS_KRYLOV_CG_RESIDUAL(MSKrylovCGResidual_Reference);
MS_KRYLOV_CG_SR_MULT(MSKrylovCGSRMult_Reference);
MS_KRYLOV_PERMUTE(MSKrylovPermute_Reference);
MS_KERNEL_EXTERN const MSKrylovKernels MSKrylovKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_KRYLOV_DOT(MSKrylovDot_CUDA);
MS_KRYLOV_FINISH(MSKrylovFinish_CUDA);
MS_KRYLOV_FINISH_SUMS(MSKrylovFinishSums_CUDA);
MS_KRYLOV_MULT_DOT(MSKrylovMultDot_CUDA);
MS_KRYLOV_CG_DIRECTION(MSKrylovCGDirection_CUDA);
MS_KRYLOV_CG_DIRECTION_MULT_DOT(MSKrylovCGDirectionMultDot_CUDA);
MS_KRYLOV_CG_UPDATE(MSKrylovCGUpdate_CUDA);
MS_KRYLOV_CG_RESIDUAL(MSKrylovCGResidual_CUDA);
MS_KRYLOV_CG_SR_MULT(MSKrylovCGSRMult_CUDA);
MS_KRYLOV_PERMUTE(MSKrylovPermute_CUDA);
MS_KERNEL_EXTERN const MSKrylovKernels MSKrylovKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
