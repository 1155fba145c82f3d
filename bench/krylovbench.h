/*
   krylovbench.h - what bench/krylov.c and bench/krylovns.c share: their common options, the problem's DMDA and
   matrix, one configuration (matrix type, KSP type) per KSP with its warm-up solve, solves timed between device
   synchronizations, the copy bandwidth, the timed rounds alternated over the configurations, their medians, and the
   summary lines. The drivers keep what differs: the operator, the KSP types and their variants, the byte floors of an
   iteration.
*/
#pragma once
#include <petscmodsell.h>
#include <petscdmda.h>
#include <petscdevice.h>
#include <petsctime.h>

#define KB_MAX_TYPES   8  /* entries of -mat_types and of -ksp_types */
#define KB_MAX_ROUNDS  64 /* -rounds */
#define KB_MAX_CONFIGS 64 /* (matrix type, KSP type) pairs */

typedef struct {
  PetscInt  N, rounds, its[2], nits, nm, nk, nbw, reps;
  char     *mtypes[KB_MAX_TYPES], *ktypes[KB_MAX_TYPES];
  PetscBool fm, fk;
  PetscReal rtol;
} KBOptions;

typedef struct {
  char               mtype[64], ktype[64];
  Mat                A;
  KSP                ksp;
  Vec                b, x;
  PetscLogDouble     tconv[KB_MAX_ROUNDS], tdiff[KB_MAX_ROUNDS], tsolve[KB_MAX_ROUNDS];
  PetscInt           its;
  KSPConvergedReason reason;
  PetscBool          exact;
  PetscLogDouble     floor_ms; /* the byte floor of an iteration of this KSP type, in ms */
} KBConfig;

/* the defaults of both drivers; its[] is the driver's (the differential solves' iteration counts) */
static PetscErrorCode KBOptionsInitialize(PetscInt itsA, PetscInt itsB, KBOptions *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  o->N      = 96;
  o->rounds = 3;
  o->its[0] = itsA;
  o->its[1] = itsB;
  o->nits   = 2;
  o->nm     = KB_MAX_TYPES;
  o->nk     = KB_MAX_TYPES;
  o->nbw    = (PetscInt)1 << 25;
  o->reps   = 20;
  o->rtol   = 1e-5;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the common options, in the caller's PetscOptionsBegin() block */
static PetscErrorCode KBOptionsRegister(PetscOptionItems PetscOptionsObject, KBOptions *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, o->N, &o->N, NULL));
  PetscCall(PetscOptionsStringArray("-mat_types", "matrix types", NULL, o->mtypes, &o->nm, &o->fm));
  PetscCall(PetscOptionsStringArray("-ksp_types", "KSP types", NULL, o->ktypes, &o->nk, &o->fk));
  PetscCall(PetscOptionsRangeInt("-rounds", "timed rounds", NULL, o->rounds, &o->rounds, NULL, 1, KB_MAX_ROUNDS));
  PetscCall(PetscOptionsIntArray("-its", "iterations of the two differential solves", NULL, o->its, &o->nits, NULL));
  PetscCall(PetscOptionsInt("-bw_n", "rows of the copy bandwidth's vector (at least the problem's)", NULL, o->nbw, &o->nbw, NULL));
  PetscCall(PetscOptionsInt("-bw_reps", "copies timed", NULL, o->reps, &o->reps, NULL));
  PetscCall(PetscOptionsReal("-ksp_rtol", "relative tolerance of the converged solves", NULL, o->rtol, &o->rtol, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after the options: -its checked; the default matrix types (aijcusparse and modsell with CUDA, aij and modsell
   without) and the driver's default KSP types where the lists were not given */
static PetscErrorCode KBOptionsSetDefaultTypes(MPI_Comm comm, PetscInt nkdef, const char *const kdef[], KBOptions *o)
{
#if defined(PETSC_HAVE_CUDA)
  const char *mdef[] = {MATAIJCUSPARSE, MATMODSELL};
#else
  const char *mdef[] = {MATAIJ, MATMODSELL};
#endif

  PetscFunctionBeginUser;
  PetscCheck(o->its[1] > o->its[0] && o->its[0] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-its A,B needs 1 <= A < B");
  if (!o->fm) {
    o->nm = 2;
    for (PetscInt j = 0; j < o->nm; j++) PetscCall(PetscStrallocpy(mdef[j], &o->mtypes[j]));
  }
  if (!o->fk) {
    PetscCheck(nkdef <= KB_MAX_TYPES, comm, PETSC_ERR_ARG_OUTOFRANGE, "at most %d KSP types", KB_MAX_TYPES);
    o->nk = nkdef;
    for (PetscInt j = 0; j < o->nk; j++) PetscCall(PetscStrallocpy(kdef[j], &o->ktypes[j]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KBOptionsDestroy(KBOptions *o)
{
  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < o->nm; j++) PetscCall(PetscFree(o->mtypes[j]));
  for (PetscInt j = 0; j < o->nk; j++) PetscCall(PetscFree(o->ktypes[j]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the N^3 DMDA (7-point stencil) and its MATAIJ operator from assemble(); the local rows and nonzeros */
static PetscErrorCode KBCreateProblem(MPI_Comm comm, PetscInt N, PetscErrorCode (*assemble)(DM, Mat), DM *da, Mat *A, PetscInt *nloc, PetscInt *nnzloc)
{
  MatInfo info;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, N, N, N, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMSetMatType(*da, MATAIJ));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(assemble(*da, *A));
  PetscCall(MatGetInfo(*A, MAT_LOCAL, &info));
  PetscCall(MatGetLocalSize(*A, nloc, NULL));
  *nnzloc = (PetscInt)info.nz_used;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device's queued work done, then every process here */
static PetscErrorCode KBSync(MPI_Comm comm)
{
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one solve of at most maxit iterations (rtol: the solve's; 0: 1e-30, a solve of exactly maxit), timed */
static PetscErrorCode KBTimedSolve(KSP ksp, Vec b, Vec x, PetscReal rtol, PetscInt maxit, PetscLogDouble *t, PetscInt *its, KSPConvergedReason *reason)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(KSPSetTolerances(ksp, rtol > 0 ? rtol : 1e-30, PETSC_CURRENT, PETSC_CURRENT, maxit));
  PetscCall(VecZeroEntries(x));
  PetscCall(KBSync(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KBSync(comm));
  PetscCall(PetscTime(&t1));
  *t = t1 - t0;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the copy bandwidth in bytes per second: VecCopy() of a vector like x of max(local rows, nbw) rows per process */
static PetscErrorCode KBCopyBandwidth(Vec x, PetscInt nbw, PetscInt reps, PetscLogDouble *bw)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)x);
  Vec            a, c;
  VecType        type;
  PetscInt       n;
  PetscLogDouble t0, t1, bytes;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  n = PetscMax(n, nbw);
  PetscCall(VecGetType(x, &type));
  PetscCall(VecCreate(comm, &a));
  PetscCall(VecSetSizes(a, n, PETSC_DECIDE));
  PetscCall(VecSetType(a, type));
  PetscCall(VecDuplicate(a, &c));
  PetscCall(VecSet(a, 1.0));
  PetscCall(VecCopy(a, c)); /* warm */
  PetscCall(KBSync(comm));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < reps; k++) PetscCall(VecCopy(k % 2 ? c : a, k % 2 ? a : c));
  PetscCall(KBSync(comm));
  PetscCall(PetscTime(&t1));
  bytes = 16.0 * (PetscLogDouble)n * (PetscLogDouble)reps; /* per process */
  *bw   = bytes / (t1 - t0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, bw, 1, MPI_DOUBLE, MPI_MIN, comm));
  PetscCall(VecDestroy(&a));
  PetscCall(VecDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the byte floor in ms: bytes (this process's) over the bandwidth bw, the maximum over the processes */
static PetscErrorCode KBByteFloor(MPI_Comm comm, PetscLogDouble bytes, PetscLogDouble bw, PetscLogDouble *ms)
{
  PetscFunctionBeginUser;
  *ms = 1e3 * bytes / bw;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, ms, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscLogDouble KBMedian(PetscInt n, const PetscLogDouble *v)
{
  PetscReal r[KB_MAX_ROUNDS];

  for (PetscInt i = 0; i < n; i++) r[i] = (PetscReal)v[i];
  PetscSortReal(n, r);
  return 0.5 * (r[(n - 1) / 2] + r[n / 2]);
}

/* the first line of the summary: "<problem> N^3 (rows, nonzeros), processes, PC jacobi, rtol<extra>; rounds" */
static PetscErrorCode KBPrintProblem(MPI_Comm comm, const char problem[], const KBOptions *o, PetscInt nnzloc, const char extra[])
{
  PetscMPIInt size;
  PetscInt    nnz = nnzloc;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nnz, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscPrintf(comm, "%s %" PetscInt_FMT "^3 (%" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros), %d process(es), PC jacobi, rtol %g%s; %" PetscInt_FMT " rounds\n", problem, o->N, o->N * o->N * o->N, nnz, size, (double)o->rtol, extra, o->rounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a configuration on A (referenced): its vectors (b = 1) and its KSP of type ksptype with PC Jacobi, then -ksp_* and
   -pc_* from the options database; not set up (the caller may set the type's variant first) */
static PetscErrorCode KBConfigCreate(Mat A, const char mtype[], const char ktype[], KSPType ksptype, KBConfig *c)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCall(PetscStrncpy(c->mtype, mtype, sizeof(c->mtype)));
  PetscCall(PetscStrncpy(c->ktype, ktype, sizeof(c->ktype)));
  PetscCall(PetscObjectReference((PetscObject)A));
  c->A = A;
  PetscCall(MatCreateVecs(A, &c->x, &c->b));
  PetscCall(VecSet(c->b, 1.0));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &c->ksp));
  PetscCall(KSPSetOperators(c->ksp, A, A));
  PetscCall(KSPSetType(c->ksp, ksptype));
  PetscCall(KSPGetPC(c->ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetFromOptions(c->ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the configuration's KSP set up and warmed up (the GPU image, the first kernels, the CUDA graphs): a converged solve */
static PetscErrorCode KBConfigWarmUp(KBConfig *c, PetscReal rtol)
{
  PetscLogDouble     t;
  PetscInt           n;
  KSPConvergedReason r;

  PetscFunctionBeginUser;
  PetscCall(KSPSetUp(c->ksp));
  PetscCall(KBTimedSolve(c->ksp, c->b, c->x, rtol, 10000, &t, &n, &r));
  c->exact = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KBConfigDestroy(KBConfig *c)
{
  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&c->ksp));
  PetscCall(VecDestroy(&c->b));
  PetscCall(VecDestroy(&c->x));
  PetscCall(MatDestroy(&c->A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the timed rounds, alternated over the configurations: per round a converged solve to rtol (T / its) and two solves
   of exactly its[0] and its[1] iterations ((T_B - T_A) / (B - A)) */
static PetscErrorCode KBTimedRounds(const KBOptions *o, PetscInt nc, KBConfig cfg[])
{
  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < o->rounds; r++)
    for (PetscInt q = 0; q < nc; q++) {
      KBConfig          *c = &cfg[q];
      PetscLogDouble     ta, tb;
      PetscInt           na, nb;
      KSPConvergedReason ra, rb;

      PetscCall(KBTimedSolve(c->ksp, c->b, c->x, o->rtol, 10000, &c->tsolve[r], &c->its, &c->reason));
      c->tconv[r] = c->tsolve[r] / (PetscLogDouble)PetscMax(c->its, 1);
      PetscCall(KBTimedSolve(c->ksp, c->b, c->x, 0.0, o->its[0], &ta, &na, &ra));
      PetscCall(KBTimedSolve(c->ksp, c->b, c->x, 0.0, o->its[1], &tb, &nb, &rb));
      if (na != o->its[0] || nb != o->its[1]) c->exact = PETSC_FALSE;
      c->tdiff[r] = (tb - ta) / (PetscLogDouble)(o->its[1] - o->its[0]);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a line per configuration: the converged solve, the differential time per iteration (median and range) against its
   byte floor, or stopped (why the differential solves may stop early, in the driver's words) */
static PetscErrorCode KBPrintConfigs(MPI_Comm comm, const KBOptions *o, PetscInt nc, const KBConfig cfg[], const char stopped[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < nc; q++) {
    const KBConfig *c    = &cfg[q];
    PetscLogDouble  conv = KBMedian(o->rounds, c->tconv), diff = KBMedian(o->rounds, c->tdiff), lo = c->tdiff[0], hi = c->tdiff[0];

    for (PetscInt r = 1; r < o->rounds; r++) {
      lo = PetscMin(lo, c->tdiff[r]);
      hi = PetscMax(hi, c->tdiff[r]);
    }
    PetscCall(PetscPrintf(comm, "%s %s: %s in %" PetscInt_FMT " iterations, solve %.4f s, %.4f ms per iteration; ", c->mtype, c->ktype, KSPConvergedReasons[c->reason], c->its, KBMedian(o->rounds, c->tsolve), 1e3 * conv));
    if (c->exact) PetscCall(PetscPrintf(comm, "(T_%" PetscInt_FMT " - T_%" PetscInt_FMT ") / %" PetscInt_FMT ": %.4f ms per iteration (range %.4f to %.4f), %.2f times the byte floor\n", o->its[1], o->its[0], o->its[1] - o->its[0], 1e3 * diff, 1e3 * lo, 1e3 * hi, 1e3 * diff / c->floor_ms));
    else PetscCall(PetscPrintf(comm, "differential solves stopped early (%s)\n", stopped));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
