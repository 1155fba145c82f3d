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
#define MS_KRYLOV_DIVERGED_NULL           (-2)
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
  int    awaiting; /* host test: the step ended with its norm and waits for the host's test (then a finish *_POST):
                      1: the host logs the norm and calls the monitors, then the test (KSPCG, KSPBCGS); 2: the host calls
                      the test, runs the post, then logs and monitors the norm if the post set logafter (KSPGMRES) */
  int    logafter; /* awaiting 2: the post decided that the norm is logged and monitored */
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
  double *aux; /* the method's array in the backend's memory, read by its finishes (GMRES: the Hessenberg matrix, the
                  rotations, the scales of the basis vectors; NULL for CG and BiCGSTAB) */
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

/* ---- BiCGSTAB (src/ksp/ksp/impls/bcgs/bcgs.c: KSPSolve_BCGS) ---------------------------------------------------- */

#define MS_KRYLOV_FINISH_BCGS_START  16 /* sum rr = r.r (= rho: rp = r): the initial norm, the test at 0, the loop's start */
#define MS_KRYLOV_FINISH_BCGS_D1     17 /* sum d1 = v.rp: its checks, alpha */
#define MS_KRYLOV_FINISH_BCGS_OMEGA  18 /* sums s.t, t.t, s.s: omega, or the breakdown / the exact solution when t = 0 */
#define MS_KRYLOV_FINISH_BCGS_STEP   19 /* sums r.r, r.rp: the norm of iteration i + 1, the test, rho and beta */
#define MS_KRYLOV_FINISH_BCGS_POST   20 /* host test: after the host's reason, the rest of BCGS_START / BCGS_STEP */
#define MS_KRYLOV_FINISH_BCGSM_OMEGA 22 /* merged: sums s.t, t.t, s.s, s.rp, t.rp: omega, rho and beta of the next pass */
#define MS_KRYLOV_FINISH_BCGSM_STEP  23 /* merged: sums r.r (of iteration i + 1) and v.rp (of the pass after it) */
#define MS_KRYLOV_FINISH_BCGSM_POST  24

/* BiCGSTAB's scalars (sc->s[]) */
#define MS_BCGS_RHO      0
#define MS_BCGS_RHOOLD   1
#define MS_BCGS_ALPHA    2
#define MS_BCGS_BETA     3
#define MS_BCGS_OMEGA    4
#define MS_BCGS_OMEGAOLD 5
#define MS_BCGS_DP       6  /* the last residual norm computed (bcgs.c's dp) */
#define MS_BCGS_TZERO    7  /* t = 0 and s = 0: x += alpha p is the solution (omega = 0) */
#define MS_BCGS_RHONEXT  8  /* r.rp of the new residual, rho of the next pass */
#define MS_BCGS_WHY      9  /* the breakdown: 1 v.rp = 0, 2 t = 0 with s != 0 (a singular preconditioned operator), 3 rho = 0 */
#define MS_BCGS_BETANEXT 10 /* merged form: beta of the next pass, known before its test */
#define MS_BCGS_INLOOP   11 /* the loop was entered (bcgs.c unwinds a right preconditioner only then) */
/* and its sums (sc->sum[]): every sum of an iteration has its own slot, so that the merged form adds them together */
#define MS_BCGS_SUM_D1  0 /* v.rp (first: with several processes a reduction of it alone adds sum[0, 1)) */
#define MS_BCGS_SUM_RR  1 /* r.r */
#define MS_BCGS_SUM_RRP 2 /* r.rp */
#define MS_BCGS_SUM_ST  3 /* s.t */
#define MS_BCGS_SUM_TT  4 /* t.t */
#define MS_BCGS_SUM_SRP 5 /* s.rp (merged form) */
#define MS_BCGS_SUM_TRP 6 /* t.rp (merged form) */
#define MS_BCGS_SUM_SS  7 /* s.s (by the kernel that forms s) */

/* a break out of bcgs.c's loop: its "if (i >= max_it) reason = KSP_DIVERGED_ITS" after the loop */
MS_KRYLOV_HD void MSBCGSBreak(MSKrylovScalars *sc, int reason)
{
  MSKrylovStop(sc, sc->i >= sc->max_it ? MS_KRYLOV_DIVERGED_ITS : reason);
}

/* the loop's start (after the test at iteration 0): rp = r, rhoold = alpha = omegaold = 1, rho = r.rp = r.r, beta */
MS_KRYLOV_HD void MSBCGSBegin(MSKrylovScalars *sc)
{
  double *s = sc->s;

  s[MS_BCGS_RHOOLD]   = 1.0;
  s[MS_BCGS_ALPHA]    = 1.0;
  s[MS_BCGS_OMEGAOLD] = 1.0;
  s[MS_BCGS_OMEGA]    = 1.0;
  s[MS_BCGS_RHO]      = sc->sum[MS_BCGS_SUM_RR];
  s[MS_BCGS_BETA]     = (s[MS_BCGS_RHO] / s[MS_BCGS_RHOOLD]) * (s[MS_BCGS_ALPHA] / s[MS_BCGS_OMEGAOLD]);
  s[MS_BCGS_INLOOP]   = 1.0;
  sc->i               = 0;
}

/* the initial norm (KSPCheckNorm()), the history and the test at iteration 0 */
MS_KRYLOV_HD void MSBCGSStart(MSKrylovScalars *sc, double *hist)
{
  double dp = 0.0;

  sc->its = 0;
  sc->i   = 0;
  if (sc->normtype != MS_KRYLOV_NORM_NONE) {
    dp = sqrt(sc->sum[MS_BCGS_SUM_RR]);
    if (MSKrylovInfNan(dp)) {
      sc->rnorm = dp;
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
  }
  sc->s[MS_BCGS_DP] = dp;
  sc->rnorm         = dp;
  MSKrylovLogHistory(sc, hist, dp);
  if (sc->hostcheck) {
    sc->awaiting = 1;
    return;
  }
  {
    const int reason = MSKrylovConvergedDefault(sc, 0, dp);
    if (reason) {
      MSKrylovStop(sc, reason);
      return;
    }
  }
  MSBCGSBegin(sc);
}

/* after d1 = v.rp: KSPCheckDot(), the breakdown d1 = 0, alpha = rho / d1 */
MS_KRYLOV_HD void MSBCGSD1(MSKrylovScalars *sc, double d1)
{
  if (MSKrylovInfNan(d1)) {
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
    return;
  }
  if (d1 == 0.0) {
    sc->s[MS_BCGS_WHY] = 1.0;
    MSBCGSBreak(sc, MS_KRYLOV_DIVERGED_BREAKDOWN);
    return;
  }
  sc->s[MS_BCGS_ALPHA] = sc->s[MS_BCGS_RHO] / d1;
}

/* after s.t, t.t (VecDotNorm2()) and s.s: t = 0 is a breakdown unless s = 0 (then x + alpha p is the solution: omega = 0
   makes the update kernel compute exactly that), else omega = s.t / t.t */
MS_KRYLOV_HD void MSBCGSOmega(MSKrylovScalars *sc)
{
  const double st = sc->sum[MS_BCGS_SUM_ST], tt = sc->sum[MS_BCGS_SUM_TT];

  sc->s[MS_BCGS_TZERO] = 0.0;
  if (tt == 0.0) {
    if (sc->sum[MS_BCGS_SUM_SS] != 0.0) {
      sc->s[MS_BCGS_WHY] = 2.0;
      MSBCGSBreak(sc, MS_KRYLOV_DIVERGED_BREAKDOWN);
      return;
    }
    sc->s[MS_BCGS_TZERO] = 1.0;
    sc->s[MS_BCGS_OMEGA] = 0.0;
  } else sc->s[MS_BCGS_OMEGA] = st / tt;
}

/* after the test of iteration i + 1: the breakdown rho = 0 (of this pass), the loop's condition, rho and beta of the
   next pass */
MS_KRYLOV_HD void MSBCGSNext(MSKrylovScalars *sc)
{
  double *s = sc->s;

  if (s[MS_BCGS_RHO] == 0.0) {
    s[MS_BCGS_WHY] = 3.0;
    MSBCGSBreak(sc, MS_KRYLOV_DIVERGED_BREAKDOWN);
    return;
  }
  sc->i++;
  if (sc->i >= sc->max_it) {
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_ITS);
    return;
  }
  s[MS_BCGS_RHO]  = s[MS_BCGS_RHONEXT];
  s[MS_BCGS_BETA] = (s[MS_BCGS_RHO] / s[MS_BCGS_RHOOLD]) * (s[MS_BCGS_ALPHA] / s[MS_BCGS_OMEGAOLD]);
}

/* the end of pass i: t = 0 (x += alpha p converged, the norm 0, the history logs the previous norm, as bcgs.c), else
   the norm of the new r (unless -ksp_check_norm_iteration skips it), the history and the test. rr = r.r; the next
   rho (r.rp) is in sum[MS_BCGS_SUM_RRP] (standard form) or computed by the merged form */
MS_KRYLOV_HD void MSBCGSStep(MSKrylovScalars *sc, double *hist, double rr)
{
  double   *s = sc->s;
  const int n = sc->i + 1;

  if (s[MS_BCGS_TZERO] != 0.0) {
    sc->its      = n;
    sc->rnorm    = 0.0;
    sc->logafter = 1; /* a host test: the monitors are called with the norm 0 */
    MSKrylovLogHistory(sc, hist, s[MS_BCGS_DP]);
    MSBCGSBreak(sc, MS_KRYLOV_CONVERGED_RTOL);
    return;
  }
  if (sc->normtype != MS_KRYLOV_NORM_NONE && sc->chknorm < sc->i + 2) {
    const double dp = sqrt(rr);
    if (MSKrylovInfNan(dp)) {
      sc->rnorm = dp;
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
    s[MS_BCGS_DP] = dp;
  }
  s[MS_BCGS_RHOOLD]   = s[MS_BCGS_RHO];
  s[MS_BCGS_OMEGAOLD] = s[MS_BCGS_OMEGA];
  sc->its             = n;
  sc->rnorm           = s[MS_BCGS_DP];
  MSKrylovLogHistory(sc, hist, s[MS_BCGS_DP]);
  if (sc->hostcheck) {
    sc->awaiting = 1;
    return;
  }
  {
    const int reason = MSKrylovConvergedDefault(sc, n, s[MS_BCGS_DP]);
    if (reason) {
      MSBCGSBreak(sc, reason);
      return;
    }
  }
  MSBCGSNext(sc);
}

/* the merged form's omega: also rho of the next pass from the same sums, r.rp = (s - omega t).rp = s.rp - omega t.rp */
MS_KRYLOV_HD void MSBCGSMergedOmega(MSKrylovScalars *sc)
{
  MSBCGSOmega(sc);
  if (sc->done) return;
  sc->s[MS_BCGS_RHONEXT]  = sc->sum[MS_BCGS_SUM_SRP] - sc->s[MS_BCGS_OMEGA] * sc->sum[MS_BCGS_SUM_TRP];
  sc->s[MS_BCGS_BETANEXT] = (sc->s[MS_BCGS_RHONEXT] / sc->s[MS_BCGS_RHO]) * (sc->s[MS_BCGS_ALPHA] / sc->s[MS_BCGS_OMEGA]);
}

/* ---- GMRES(m) (src/ksp/ksp/impls/gmres/gmres.c: KSPSolve_GMRES, KSPGMRESCycle; classical Gram-Schmidt of
   src/ksp/ksp/interface/orthog.c) ------------------------------------------------------------------------------ */

#define MS_KRYLOV_FINISH_GMRES_START 32 /* sum nn = r.r of the residual in column 0: the start of a cycle */
#define MS_KRYLOV_FINISH_GMRES_DOTS  33 /* the dots of the first Gram-Schmidt pass in lhh[] */
#define MS_KRYLOV_FINISH_GMRES_NORM  34 /* sum nn = w.w after the first pass: the refinement's decision, the Arnoldi step */
#define MS_KRYLOV_FINISH_GMRES_DOTS2 35 /* the refinement's dots */
#define MS_KRYLOV_FINISH_GMRES_NORM2 36 /* sum nn after the refinement: the Arnoldi step */
#define MS_KRYLOV_FINISH_GMRES_POST  37 /* host test: after the host's reason (awaiting 1: a cycle's start, 2: an iteration) */

/* GMRES's scalars (sc->s[]) */
#define MS_GM_RES     0  /* the residual norm of the recursion (KSPGMRESCycle's res) */
#define MS_GM_RNORM0  1  /* the norm at the start of the cycle (gmres->rnorm0) */
#define MS_GM_HNRM    2  /* refinement "ifneeded": the norm of the first pass's coefficients */
#define MS_GM_HAPTOL  3  /* -ksp_gmres_haptol */
#define MS_GM_BRKTOL  4  /* -ksp_gmres_breakdown_tolerance */
#define MS_GM_IT      5  /* the iteration in the cycle (KSPGMRESCycle's it): the basis has it + 1 vectors */
#define MS_GM_MAXK    6  /* the restart m */
#define MS_GM_CGS     7  /* the refinement: 0 never, 1 if needed, 2 always (KSPOrthogonalizationCGSRefinementType) */
#define MS_GM_REFINE  8  /* this iteration runs the second Gram-Schmidt pass */
#define MS_GM_UPDATE  9  /* the cycle ended: x += V y (y in nrs[], MS_GM_NSOL entries) is due */
#define MS_GM_RESTART 10 /* the cycle ended at m iterations: the next step restarts (the update, the new residual) */
#define MS_GM_NSOL    11 /* the columns of V in the update */
#define MS_GM_PREV    12 /* the residual norm of the recursion at the end of the last cycle (-1: the first cycle) */
#define MS_GM_WHY     13 /* the breakdown: 1 at a restart (far from the recursion's norm), 2 happy breakdown without
                            convergence, 3 a zero diagonal of the Hessenberg matrix in the solution's update */
#define MS_GM_HAPEND  14 /* the happy breakdown of this iteration */
#define MS_GM_SUM_NN  0

/* the method's array (sc->aux), for the restart m: the Hessenberg matrix (HH(a, b) = hh[b (m + 2) + a], as gmres.c's
   HH), the rotations cc[], ss[], the right-hand side grs[] of the least-squares problem, its solution nrs[], the scales
   sig[] of the basis vectors (the basis stores w, the vector is sig[j] w: VecNormalize()'s scaling, applied where
   the vector is read) and the dots lhh[] of the current Gram-Schmidt pass */
#define MS_GMRES_AUX_SIZE(m) ((size_t)((m) + 2) * (size_t)((m) + 1) + 4 * (size_t)((m) + 1) + 2 * (size_t)((m) + 2))
typedef struct {
  double *hh, *cc, *ss, *grs, *nrs, *sig, *lhh;
  int     m;
} MSGMRESAux;

MS_KRYLOV_HD void MSGMRESGetAux(const MSKrylovScalars *sc, MSGMRESAux *a)
{
  const int m = (int)sc->s[MS_GM_MAXK];

  a->m   = m;
  a->hh  = sc->aux;
  a->cc  = a->hh + (size_t)(m + 2) * (size_t)(m + 1);
  a->ss  = a->cc + (m + 1);
  a->grs = a->ss + (m + 1);
  a->nrs = a->grs + (m + 2);
  a->sig = a->nrs + (m + 1);
  a->lhh = a->sig + (m + 2);
}

#define MS_GM_HH(a, i, j) ((a)->hh[(size_t)(j) * (size_t)((a)->m + 2) + (size_t)(i)])

/* KSPGMRESBuildSoln(): the least-squares solution nrs[] for the columns 0..k (k = it - 1); a zero diagonal is a
   breakdown (returns its reason, no update); else the update x += V nrs is due */
MS_KRYLOV_HD int MSGMRESBuildSoln(MSKrylovScalars *sc, MSGMRESAux *a)
{
  const int k = (int)sc->s[MS_GM_IT] - 1;

  if (k < 0) return 0;
  if (MS_GM_HH(a, k, k) == 0.0) {
    sc->s[MS_GM_WHY] = 3.0;
    return MS_KRYLOV_DIVERGED_BREAKDOWN;
  }
  a->nrs[k] = a->grs[k] / MS_GM_HH(a, k, k);
  for (int ii = 1; ii <= k; ii++) {
    const int kk = k - ii;
    double    tt = a->grs[kk];

    for (int j = kk + 1; j <= k; j++) tt = tt - MS_GM_HH(a, kk, j) * a->nrs[j];
    if (MS_GM_HH(a, kk, kk) == 0.0) {
      sc->s[MS_GM_WHY] = 3.0;
      return MS_KRYLOV_DIVERGED_BREAKDOWN;
    }
    a->nrs[kk] = tt / MS_GM_HH(a, kk, kk);
  }
  sc->s[MS_GM_NSOL]   = k + 1;
  sc->s[MS_GM_UPDATE] = 1.0;
  return 0;
}

/* the end of KSPGMRESCycle() with the reason so far: the solution's update, KSP_DIVERGED_ITS, the history ("if (it &&
   ksp->reason)"); without a reason (m iterations done) the next step restarts */
MS_KRYLOV_HD void MSGMRESCycleEnd(MSKrylovScalars *sc, double *hist, int reason)
{
  MSGMRESAux a;
  int        r;

  MSGMRESGetAux(sc, &a);
  r = MSGMRESBuildSoln(sc, &a);
  if (r) reason = r; /* KSPGMRESBuildSoln() sets it over any other */
  if (!reason && sc->its >= sc->max_it) reason = MS_KRYLOV_DIVERGED_ITS;
  if (reason) {
    if (sc->s[MS_GM_IT] > 0.0) {
      MSKrylovLogHistory(sc, hist, sc->s[MS_GM_RES]);
      sc->logafter = 1;
    }
    MSKrylovStop(sc, reason);
    return;
  }
  sc->s[MS_GM_PREV]    = sc->s[MS_GM_RES];
  sc->s[MS_GM_RESTART] = 1.0;
}

/* the start of a cycle: res = the norm of the residual in column 0 (VecNormalize(), KSPCheckNorm()), the breakdown test
   against the recursion's norm at a restart, the history and the test */
MS_KRYLOV_HD void MSGMRESStart(MSKrylovScalars *sc, double *hist)
{
  MSGMRESAux   a;
  const double res = sqrt(sc->sum[MS_GM_SUM_NN]), prev = sc->s[MS_GM_PREV];

  MSGMRESGetAux(sc, &a);
  sc->s[MS_GM_RESTART] = 0.0;
  sc->s[MS_GM_UPDATE]  = 0.0;
  sc->s[MS_GM_REFINE]  = 0.0;
  if (MSKrylovInfNan(res)) {
    sc->rnorm = res;
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
    return;
  }
  if (prev > 0.0 && fabs(res - prev) > sc->s[MS_GM_BRKTOL] * sc->s[MS_GM_RNORM0]) {
    sc->s[MS_GM_WHY] = 1.0;
    sc->s[MS_GM_RES] = res; /* for the message of -ksp_error_if_not_converged */
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_BREAKDOWN);
    return;
  }
  a.grs[0]            = res;
  a.sig[0]            = res != 0.0 ? 1.0 / res : 1.0; /* VecNormalize() leaves a zero vector */
  sc->s[MS_GM_RNORM0] = res;
  sc->s[MS_GM_RES]    = res;
  sc->s[MS_GM_IT]     = 0.0;
  sc->rnorm           = res;
  MSKrylovLogHistory(sc, hist, res);
  if (sc->hostcheck) {
    sc->awaiting = 1;
    sc->logafter = 0;
    return;
  }
  if (res == 0.0) {
    MSKrylovStop(sc, MS_KRYLOV_CONVERGED_ATOL);
    return;
  }
  {
    const int reason = MSKrylovConvergedDefault(sc, sc->its, res);
    if (reason) {
      MSKrylovStop(sc, reason);
      return;
    }
  }
  if (sc->its >= sc->max_it) MSKrylovStop(sc, MS_KRYLOV_DIVERGED_ITS); /* the loop does not run */
}

/* a NaN or Inf among the dots (KSPCheckDot() in the orthogonalization): the cycle breaks, with the update of the
   iterations before */
MS_KRYLOV_HD void MSGMRESDots(MSKrylovScalars *sc, double *hist, int second)
{
  MSGMRESAux a;
  const int  it = (int)sc->s[MS_GM_IT];
  double     h2 = 0.0;

  MSGMRESGetAux(sc, &a);
  for (int j = 0; j <= it; j++)
    if (MSKrylovInfNan(a.lhh[j])) {
      MSGMRESCycleEnd(sc, hist, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
  for (int j = 0; j <= it; j++) {
    if (second) MS_GM_HH(&a, j, it) += a.lhh[j];
    else MS_GM_HH(&a, j, it) = a.lhh[j];
    h2 += a.lhh[j] * a.lhh[j];
  }
  if (!second) sc->s[MS_GM_HNRM] = sqrt(h2);
}

/* KSPGMRESUpdateHessenberg(): the rotations applied to the new column, the new rotation and the residual norm;
   returns KSP_DIVERGED_NULL when the new rotation is undefined */
MS_KRYLOV_HD int MSGMRESUpdateHessenberg(MSKrylovScalars *sc, MSGMRESAux *a, int it, int hapend)
{
  double *hh = &MS_GM_HH(a, 0, it), *cc = a->cc, *ss = a->ss, tt;

  for (int j = 1; j <= it; j++) {
    tt  = *hh;
    *hh = *cc * tt + *ss * *(hh + 1);
    hh++;
    *hh = *cc++ * *hh - (*ss++ * tt);
  }
  if (!hapend) {
    tt = sqrt(*hh * *hh + *(hh + 1) * *(hh + 1));
    if (tt == 0.0) return MS_KRYLOV_DIVERGED_NULL;
    *cc              = *hh / tt;
    *ss              = *(hh + 1) / tt;
    a->grs[it + 1]   = -(*ss * a->grs[it]);
    a->grs[it]       = *cc * a->grs[it];
    *hh              = *cc * *hh + *ss * *(hh + 1);
    sc->s[MS_GM_RES] = fabs(a->grs[it + 1]);
  } else sc->s[MS_GM_RES] = 0.0;
  return 0;
}

/* after the test of an iteration: the happy breakdown's reasons, then the next iteration or the end of the cycle */
MS_KRYLOV_HD void MSGMRESPost(MSKrylovScalars *sc, double *hist, int reason)
{
  if (sc->s[MS_GM_HAPEND] != 0.0) {
    sc->s[MS_GM_HAPEND] = 0.0;
    if (sc->normtype == MS_KRYLOV_NORM_NONE) reason = MS_KRYLOV_CONVERGED_HAPPY_BREAKDOWN;
    else if (!reason) {
      sc->s[MS_GM_WHY] = 2.0;
      MSGMRESCycleEnd(sc, hist, MS_KRYLOV_DIVERGED_BREAKDOWN);
      return;
    }
  }
  if (!reason && sc->s[MS_GM_IT] < sc->s[MS_GM_MAXK] && sc->its < sc->max_it) { /* the loop goes on: it logs res first */
    MSKrylovLogHistory(sc, hist, sc->s[MS_GM_RES]);
    sc->logafter = 1;
    return;
  }
  MSGMRESCycleEnd(sc, hist, reason);
}

/* the Arnoldi step's end with tt = the norm of the orthogonalized vector: KSPCheckNorm(), the Hessenberg column's last
   entry, the scale of the new basis vector, the happy breakdown, the rotations, it++, its++, the test */
MS_KRYLOV_HD void MSGMRESArnoldi(MSKrylovScalars *sc, double *hist, double tt)
{
  MSGMRESAux a;
  const int  it = (int)sc->s[MS_GM_IT];
  double     hapbnd;
  int        hapend, r;

  MSGMRESGetAux(sc, &a);
  sc->s[MS_GM_REFINE] = 0.0;
  if (MSKrylovInfNan(tt)) {
    sc->rnorm = tt;
    MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
    return;
  }
  MS_GM_HH(&a, it + 1, it) = tt;
  a.sig[it + 1]            = tt != 0.0 ? 1.0 / tt : 1.0;
  hapbnd                   = fabs(tt / a.grs[it]);
  if (hapbnd > sc->s[MS_GM_HAPTOL]) hapbnd = sc->s[MS_GM_HAPTOL];
  hapend = tt < hapbnd;
  r      = MSGMRESUpdateHessenberg(sc, &a, it, hapend);
  sc->s[MS_GM_IT] = it + 1;
  sc->its++;
  sc->rnorm = sc->s[MS_GM_RES];
  if (r) {
    MSGMRESCycleEnd(sc, hist, r);
    return;
  }
  sc->s[MS_GM_HAPEND] = hapend;
  if (sc->hostcheck) {
    sc->awaiting = 2;
    sc->logafter = 0;
    return;
  }
  MSGMRESPost(sc, hist, MSKrylovConvergedDefault(sc, sc->its, sc->s[MS_GM_RES]));
}

/* after the first pass: the refinement's decision (never, if ||w|| < ||h||, always), else the Arnoldi step */
MS_KRYLOV_HD void MSGMRESNorm(MSKrylovScalars *sc, double *hist)
{
  const double wnrm = sqrt(sc->sum[MS_GM_SUM_NN]);
  const int    cgs  = (int)sc->s[MS_GM_CGS];

  if (cgs == 1) {
    if (MSKrylovInfNan(wnrm)) {
      sc->rnorm = wnrm;
      MSKrylovStop(sc, MS_KRYLOV_DIVERGED_NANORINF);
      return;
    }
    if (wnrm < sc->s[MS_GM_HNRM]) {
      sc->s[MS_GM_REFINE] = 1.0;
      return;
    }
  } else if (cgs == 2) {
    sc->s[MS_GM_REFINE] = 1.0;
    return;
  }
  MSGMRESArnoldi(sc, hist, wnrm);
}

/* the finishes of the BiCGSTAB and GMRES methods (MSKrylovFinish()'s other codes) */
MS_KRYLOV_HD void MSKrylovFinishNS(int code, MSKrylovScalars *sc, double *hist)
{
  sc->logafter = 0; /* each finish decides it anew */
  switch (code) {
  case MS_KRYLOV_FINISH_BCGS_START:
    MSBCGSStart(sc, hist);
    break;
  case MS_KRYLOV_FINISH_BCGS_D1:
    if (!sc->awaiting) MSBCGSD1(sc, sc->sum[MS_BCGS_SUM_D1]); /* else the post does it (the merged form's start) */
    break;
  case MS_KRYLOV_FINISH_BCGS_OMEGA:
    MSBCGSOmega(sc);
    break;
  case MS_KRYLOV_FINISH_BCGS_STEP:
    sc->s[MS_BCGS_RHONEXT] = sc->sum[MS_BCGS_SUM_RRP];
    MSBCGSStep(sc, hist, sc->sum[MS_BCGS_SUM_RR]);
    break;
  case MS_KRYLOV_FINISH_BCGS_POST:
  case MS_KRYLOV_FINISH_BCGSM_POST:
    sc->awaiting = 0;
    if (sc->host_reason) {
      if (sc->its) MSBCGSBreak(sc, sc->host_reason);
      else MSKrylovStop(sc, sc->host_reason);
    } else if (!sc->its) MSBCGSBegin(sc);
    else MSBCGSNext(sc);
    if (code == MS_KRYLOV_FINISH_BCGSM_POST && !sc->done) MSBCGSD1(sc, sc->sum[MS_BCGS_SUM_D1]);
    break;
  case MS_KRYLOV_FINISH_BCGSM_OMEGA:
    MSBCGSMergedOmega(sc);
    break;
  case MS_KRYLOV_FINISH_BCGSM_STEP:
    MSBCGSStep(sc, hist, sc->sum[MS_BCGS_SUM_RR]);
    if (!sc->done && !sc->awaiting) MSBCGSD1(sc, sc->sum[MS_BCGS_SUM_D1]);
    break;
  /* GMRES's finishes run only where their kernels do (with several processes the layer runs them after every
     reduction, also of a kernel that did nothing) */
  case MS_KRYLOV_FINISH_GMRES_START:
    if (!sc->awaiting && sc->s[MS_GM_RESTART] != 0.0) MSGMRESStart(sc, hist);
    break;
  case MS_KRYLOV_FINISH_GMRES_DOTS:
    if (!sc->awaiting && sc->s[MS_GM_RESTART] == 0.0) MSGMRESDots(sc, hist, 0);
    break;
  case MS_KRYLOV_FINISH_GMRES_NORM:
    if (!sc->awaiting && sc->s[MS_GM_RESTART] == 0.0) MSGMRESNorm(sc, hist);
    break;
  case MS_KRYLOV_FINISH_GMRES_DOTS2:
    if (!sc->awaiting && sc->s[MS_GM_RESTART] == 0.0 && sc->s[MS_GM_REFINE] != 0.0) MSGMRESDots(sc, hist, 1);
    break;
  case MS_KRYLOV_FINISH_GMRES_NORM2:
    if (!sc->awaiting && sc->s[MS_GM_RESTART] == 0.0 && sc->s[MS_GM_REFINE] != 0.0) MSGMRESArnoldi(sc, hist, sqrt(sc->sum[MS_GM_SUM_NN]));
    break;
  case MS_KRYLOV_FINISH_GMRES_POST:
    if (sc->awaiting == 1) { /* a cycle's start: log and monitors done, then the test */
      sc->awaiting = 0;
      if (sc->s[MS_GM_RES] == 0.0) MSKrylovStop(sc, MS_KRYLOV_CONVERGED_ATOL);
      else if (sc->host_reason) MSKrylovStop(sc, sc->host_reason);
      else if (sc->its >= sc->max_it) MSKrylovStop(sc, MS_KRYLOV_DIVERGED_ITS);
    } else if (sc->awaiting == 2) {
      sc->awaiting = 0;
      MSGMRESPost(sc, hist, sc->host_reason);
    }
    break;
  default:
    break;
  }
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
    MSKrylovFinishNS(code, sc, hist); /* BiCGSTAB, GMRES */
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
   row) unless the image is permuted in the user's numbering: MSCUDAMult() and then the dot (that product does not read
   sc->done: it writes y after done too; the scalars stay untouched). */
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

/* ------------------------------------------------------------------------------------------------------------ */
/* kernels of BiCGSTAB and GMRES (their own table, MSKrylovNSKernels; every kernel returns at once when sc->done is
   set, GMRES's also while the host's test is awaited)                                                            */

/* y = dl .* (A (dr .* x)) (dl, dr NULL: no scaling), then the dots sum[slot + j] = d->x[j] . d->y[j] (a pointer equal
   to x or y is read as that vector: x before its scaling) and the finish. A as in mult_dot (in the numbering of the
   vectors; the layer's image-order plan gives a permuted image's view with perm NULL). The CUDA product is one kernel
   with the dots in its epilogue for an image read in its own numbering with one thread per row; else dr .* x into tmp
   (n doubles), the matrix's own product (MSCUDAMult(), work as there) and a pointwise kernel for dl and the dots */
#define MS_KRYLOV_MULT_SCALE_DOTS(name) \
  int name(const MSImageView *A, const MSPermBuckets *pb, const double *x, const double *dr, const double *dl, double *y, double *tmp, double *work, const MSKrylovDots *d, const MSKrylovReduce *red, void *stream)
/* v = d .* u (d NULL: v = u; v may be u), then the dots (a pointer equal to v is read as v) and the finish */
#define MS_KRYLOV_SCALE_DOTS(name) int name(int n, const double *u, const double *d, double *v, const MSKrylovDots *dt, const MSKrylovReduce *red, void *stream)

/* the vectors of a BiCGSTAB pass (NULL where a kernel does not read them) */
typedef struct {
  double       *x, *r, *p, *v, *s, *t;
  const double *rp;
  double       *tr; /* a right diagonal preconditioner with MatMult(): tr = d .* (the vector the kernel forms) */
  const double *d;  /* its diagonal */
} MSKrylovBCGSVecs;

/* p = r + beta (p - omegaold v) (VecAXPBYPCZ(P, 1, -omegaold beta, beta, R, V)); tr = d .* p when tr */
#define MS_KRYLOV_BCGS_DIRECTION(name) int name(int n, const MSKrylovBCGSVecs *v, const MSKrylovScalars *sc, void *stream)
/* s = r - alpha v (VecWAXPY(S, -alpha, V, R)); tr = d .* s when tr; the sum s.s into sum[red->slot], the finish */
#define MS_KRYLOV_BCGS_S(name) int name(int n, const MSKrylovBCGSVecs *v, const MSKrylovReduce *red, void *stream)
/* x = alpha p + omega s + x, r = s - omega t, the sums r.r and (merged = 0) r.rp into sum[red->slot], sum[red->slot
   + 1], then the finish; merged = 1: the sum r.r only, and p = r + betanext (p - omega v) after x (tr = d .* p) */
#define MS_KRYLOV_BCGS_UPDATE(name) int name(int n, const MSKrylovBCGSVecs *v, int merged, const MSKrylovReduce *red, void *stream)

/* bcgs_s and the product in one kernel: s = r - alpha v (stored; formed again wherever the product reads it, the same
   bits), t = dl .* (A (dr .* s)) with dr = v->d (a right diagonal), then sum[slot + j] = s.t, t.t, s.rp, t.rp (merged;
   else 0), s.s for j = 0..4 (MS_BCGS_SUM_ST ... MS_BCGS_SUM_SS) and the finish. The CUDA kernel takes an image read
   in its own numbering (perm NULL) with one thread per row; else bcgs_s, the matrix's own product and scale_dots
   (tmp: n doubles) */
#define MS_KRYLOV_BCGS_S_MULT(name) \
  int name(const MSImageView *A, const MSPermBuckets *pb, const MSKrylovBCGSVecs *v, const double *dl, int merged, double *tmp, double *work, const MSKrylovReduce *red, void *stream)

/* the vectors of GMRES: the basis is one array, vector j is sig[j] times V[j ld, j ld + n) (sig[] in sc->aux) */
#define MS_KRYLOV_GMRES_CHUNK 32   /* basis vectors a thread accumulates in registers in one pass of the dot kernel */
#define MS_KRYLOV_GMRES_MAXK  2047 /* the largest restart (the CUDA kernels keep 2 (m + 1) coefficients in shared memory) */
typedef struct {
  double       *V;
  long long     ld;
  int           m;       /* the restart: V has m + 1 vectors (as sc->s[MS_GM_MAXK]) */
  double       *x;
  const double *b;
  const double *d;       /* the fused preconditioner's diagonal, or NULL */
  int           right;   /* d on the right: the product A (d .* v), the update x += d .* (V y); else on the left */
  int           wscaled; /* the product's column holds K v (the fused product reads sig[it] V[it]); 0: K applied to
                            the stored V[it] (MatMult() of it): its scale sig[it] applies to the column */
  double       *t;       /* n doubles: the generic right preconditioner's update (t = V y, then x += t) */
  double       *partial; /* the dot kernel's partial sums: (m + 1) per block, MS_KRYLOV_BLOCKS blocks */
} MSKrylovGMRESVecs;

/* column it + 1 = dl .* (A (dr .* sig[it] V[it])) (the fused product; tmp: n doubles for the fallback) unless done,
   awaiting, or a restart is due */
#define MS_KRYLOV_GMRES_MULT(name) int name(const MSImageView *A, const MSPermBuckets *pb, const MSKrylovGMRESVecs *v, double *tmp, double *work, const MSKrylovScalars *sc, void *stream)
/* a restart (the fused product): column 0 = dl .* (b - A x), the sum r.r, the finish; only when a restart is due */
#define MS_KRYLOV_GMRES_RESIDUAL(name) int name(const MSImageView *A, const MSPermBuckets *pb, const MSKrylovGMRESVecs *v, double *tmp, double *work, const MSKrylovReduce *red, void *stream)
/* column 0 = dl .* (b - t) (t NULL: dl .* b; with b = column 0 and no dl: as it is), the sum, the finish; only when a
   restart is due (start: always, the first cycle) */
#define MS_KRYLOV_GMRES_RESIDUAL_VEC(name) int name(int n, const MSKrylovGMRESVecs *v, const double *b, const double *t, int start, const MSKrylovReduce *red, void *stream)
/* lhh[j] = (sig[j] V[j]) . (s_w V[it + 1]) for j <= it, 0 for it < j <= m (pass 0: s_w = wscaled ? 1 : sig[it];
   pass 1, the refinement, only when MS_GM_REFINE: s_w = 1), then the finish (several processes: none, the layer adds
   lhh[] over the processes and runs it) */
#define MS_KRYLOV_GMRES_MDOT(name) int name(int n, const MSKrylovGMRESVecs *v, int pass, const MSKrylovReduce *red, void *stream)
/* V[it + 1] = s_w V[it + 1] - sum_{j <= it} lhh[j] sig[j] V[j] (VecMAXPY()), the sum of its squares, the finish */
#define MS_KRYLOV_GMRES_MAXPY(name) int name(int n, const MSKrylovGMRESVecs *v, int pass, const MSKrylovReduce *red, void *stream)
/* the solution's update when MS_GM_UPDATE is set (and not done, unless force): mode 0: x += V y (d on the right:
   x += d .* (V y)); mode 1: t = V y; mode 2: x += t; y = nrs[0, MS_GM_NSOL) */
#define MS_KRYLOV_GMRES_UPDATE(name) int name(int n, const MSKrylovGMRESVecs *v, int mode, int force, const MSKrylovScalars *sc, void *stream)

typedef struct {
  const char *backend;
  MS_KRYLOV_MULT_SCALE_DOTS((*mult_scale_dots));
  MS_KRYLOV_SCALE_DOTS((*scale_dots));
  MS_KRYLOV_BCGS_DIRECTION((*bcgs_direction));
  MS_KRYLOV_BCGS_S((*bcgs_s));
  MS_KRYLOV_BCGS_UPDATE((*bcgs_update));
  MS_KRYLOV_GMRES_MULT((*gmres_mult));
  MS_KRYLOV_GMRES_RESIDUAL((*gmres_residual));
  MS_KRYLOV_GMRES_RESIDUAL_VEC((*gmres_residual_vec));
  MS_KRYLOV_GMRES_MDOT((*gmres_mdot));
  MS_KRYLOV_GMRES_MAXPY((*gmres_maxpy));
  MS_KRYLOV_GMRES_UPDATE((*gmres_update));
  MS_KRYLOV_BCGS_S_MULT((*bcgs_s_mult));
} MSKrylovNSKernels;

MS_KRYLOV_MULT_SCALE_DOTS(MSKrylovMultScaleDots_Reference);
MS_KRYLOV_SCALE_DOTS(MSKrylovScaleDots_Reference);
MS_KRYLOV_BCGS_DIRECTION(MSKrylovBCGSDirection_Reference);
MS_KRYLOV_BCGS_S(MSKrylovBCGSS_Reference);
MS_KRYLOV_BCGS_UPDATE(MSKrylovBCGSUpdate_Reference);
MS_KRYLOV_GMRES_MULT(MSKrylovGMRESMult_Reference);
MS_KRYLOV_GMRES_RESIDUAL(MSKrylovGMRESResidual_Reference);
MS_KRYLOV_GMRES_RESIDUAL_VEC(MSKrylovGMRESResidualVec_Reference);
MS_KRYLOV_GMRES_MDOT(MSKrylovGMRESMDot_Reference);
MS_KRYLOV_GMRES_MAXPY(MSKrylovGMRESMAXPY_Reference);
MS_KRYLOV_GMRES_UPDATE(MSKrylovGMRESUpdate_Reference);
MS_KRYLOV_BCGS_S_MULT(MSKrylovBCGSSMult_Reference);
MS_KERNEL_EXTERN const MSKrylovNSKernels MSKrylovNSKernels_Reference;
#if defined(PETSC_HAVE_CUDA) || defined(__CUDACC__)
MS_KRYLOV_MULT_SCALE_DOTS(MSKrylovMultScaleDots_CUDA);
MS_KRYLOV_SCALE_DOTS(MSKrylovScaleDots_CUDA);
MS_KRYLOV_BCGS_DIRECTION(MSKrylovBCGSDirection_CUDA);
MS_KRYLOV_BCGS_S(MSKrylovBCGSS_CUDA);
MS_KRYLOV_BCGS_UPDATE(MSKrylovBCGSUpdate_CUDA);
MS_KRYLOV_GMRES_MULT(MSKrylovGMRESMult_CUDA);
MS_KRYLOV_GMRES_RESIDUAL(MSKrylovGMRESResidual_CUDA);
MS_KRYLOV_GMRES_RESIDUAL_VEC(MSKrylovGMRESResidualVec_CUDA);
MS_KRYLOV_GMRES_MDOT(MSKrylovGMRESMDot_CUDA);
MS_KRYLOV_GMRES_MAXPY(MSKrylovGMRESMAXPY_CUDA);
MS_KRYLOV_GMRES_UPDATE(MSKrylovGMRESUpdate_CUDA);
MS_KRYLOV_BCGS_S_MULT(MSKrylovBCGSSMult_CUDA);
MS_KERNEL_EXTERN const MSKrylovNSKernels MSKrylovNSKernels_CUDA;
#endif

#ifdef __cplusplus
}
#endif
