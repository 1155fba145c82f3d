static char help[] = "CG + GAMG set up on two matrix types (aijcusparse and MATMODSELL by default), both hierarchies kept, then\n\
timed by parts in one process, the two types alternated sample by sample: each level's operator product, smoother,\n\
residual, restriction and interpolation, the coarse solve, one whole V-cycle (PCApply) and the solve per iteration.\n\
Where a V-cycle on one type is slower than the sum of its parts says, the difference is between the parts; where a\n\
part is slower, the part says which (the FVM problem's time per iteration, docs/matrix.md).\n\
  -problem ... : the problem suite's options (examples/problems/problems.h), e.g. -problem fvm -n 120 -cell tet\n\
  -types <aijcusparse,modsell> : the two types (aij,modsell without CUDA)\n\
  -reps <20>, -samples <7> : operations per timed loop, loops per type (the median is reported)\n\
  -rounds <4>  : timed solves per type, the types alternated (each type solved once untimed before)\n\
  -setup_rounds <1> : setups per type, the types alternated (A B, B A, ...; each destroys the type's previous\n\
                 hierarchy first); the solves and parts use the last ones; the mean setup leaves out the first round\n\
                 (the libraries' first use) when there are several\n\
  -clear_products <1> : MatProductClear() on the coarse operators after the setup (the products' reuse data, which\n\
                 the solve does not use: two 10.4 M-row hierarchies with it did not fit an 80 GB GPU)\n\
  -setup_parts <0> : with each setup's time, its GAMG phases from the event log (graph, coarsening, tentative\n\
                 prolongator, its smoothing, Galerkin products, the rest); turns the event log on\n\
  -timings <1> : 0 prints no times (tests)\n\
Every other option (-ksp_*, -pc_gamg_*, -mg_levels_*) applies to both solvers (CG + GAMG to rtol 1e-8 unless given).\n";

#include "gamgbench.h"

#define VC_MAXLEV 16

/* one type's hierarchy: the solver and, per level (PCMG's numbering, 0 the coarsest), its operator, interpolation
   from the level below and work vectors */
typedef struct {
  char     type[64];
  Mat      A;
  Vec      x, b;
  KSP      ksp;
  PC       pc;
  PetscInt nlev, its;
  Mat      op[VC_MAXLEV], interp[VC_MAXLEV];
  Vec      lx[VC_MAXLEV], lb[VC_MAXLEV], lr[VC_MAXLEV];
  double   tsolve[64], tfirst;
  PetscInt itsfirst;
  PetscLogStage stage[3]; /* -log_view: the setup, the first solve, the later solves */
} Side;

typedef enum {
  PART_MULT,
  PART_SMOOTH,
  PART_RESIDUAL,
  PART_RESTRICT,
  PART_INTERP,
  PART_COARSE,
  PART_PCAPPLY,
  PART_N
} Part;
static const char *const PartNames[] = {"mult", "smooth", "residual", "restrict", "interp", "coarse", "pcapply"};

/* device memory in use (bytes; 0 without CUDA): the stream-ordered pool trimmed first (PETSc sets its release
   threshold to the maximum, so that memory freed by cudaFreeAsync() stays reserved and would count) */
static PetscErrorCode DeviceMemUsed(double *used)
{
  PetscFunctionBegin;
  *used = 0;
#if defined(PETSC_HAVE_CUDA)
  {
    size_t       fr, tot;
    int          dev;
    cudaMemPool_t pool;

    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
    PetscCallCUDA(cudaMemPoolTrimTo(pool, 0));
    PetscCallCUDA(cudaMemGetInfo(&fr, &tot));
    *used = (double)(tot - fr);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GAMG's setup phases (-setup_parts): their events, and each one's time in a stage so far (summed over processes' max) */
static const char *const VCPartNames[]  = {" PCGAMGCreateG", " GAMG Coarsen", " PCGAMGProl", " PCGAMGOptProl", " PCGAMGCreateL", "PCSetUp_GAMG+"};
static const char *const VCPartLabels[] = {"graph", "coarsen", "prolongator", "smoothing", "Galerkin", "other"};
#define VC_NPARTS 6

static PetscErrorCode SetupPartTimes(MPI_Comm comm, PetscLogStage stage, double t[VC_NPARTS])
{
  double loc[VC_NPARTS];

  PetscFunctionBegin;
  PetscCall(PCGAMGInitializePackage());
  for (PetscInt i = 0; i < VC_NPARTS; i++) {
    PetscLogEvent      ev;
    PetscEventPerfInfo info;

    PetscCall(PetscLogEventGetId(VCPartNames[i], &ev));
    PetscCall(PetscLogEventGetPerfInfo(stage, ev, &info));
    loc[i] = info.time;
  }
  PetscCallMPI(MPIU_Allreduce(loc, t, VC_NPARTS, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SideSetUp(Problem *p, const char *type, PetscInt seed, PetscBool clear, Side *s, double *tsetup, double mem[2], double parts[VC_NPARTS])
{
  MPI_Comm       comm = p->comm;
  PetscLogDouble t0, t1;
  PetscBool      flg;
  double         pa[VC_NPARTS], pb[VC_NPARTS];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(s->type, type, sizeof(s->type)));
  PetscCall(PetscLogStagePush(s->stage[0]));
  PetscCall(DeviceMemUsed(&mem[0]));
  PetscCall(ProblemCreateMat(p, NULL, type, &s->A));
  PetscCall(MatCreateVecs(s->A, &s->x, &s->b));
  PetscCall(ProblemSetVec(p, p->s.rhs, s->b));
  PetscCall(VecSet(s->x, 0.0));
  PetscCall(GBCreateSolver(s->A, &s->ksp));
  PetscCall(KSPGetPC(s->ksp, &s->pc));
  if (parts) PetscCall(SetupPartTimes(comm, s->stage[0], pa));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(s->ksp));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t1));
  *tsetup = t1 - t0;
  if (parts) { /* the phases' times in this setup; "other": the whole GAMG setup event less the phases */
    PetscCall(SetupPartTimes(comm, s->stage[0], pb));
    for (PetscInt i = 0; i < VC_NPARTS; i++) parts[i] = pb[i] - pa[i];
    for (PetscInt i = 0; i < VC_NPARTS - 1; i++) parts[VC_NPARTS - 1] -= parts[i];
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)s->pc, &flg, PCMG, PCGAMG, ""));
  PetscCheck(flg, comm, PETSC_ERR_USER_INPUT, "-pc_type must be gamg or mg (a multigrid hierarchy)");
  PetscCall(PCMGGetLevels(s->pc, &s->nlev));
  PetscCheck(s->nlev <= VC_MAXLEV, comm, PETSC_ERR_SUP, "At most %d levels", VC_MAXLEV);
  for (PetscInt l = 0; l < s->nlev; l++) {
    KSP         sm;
    PetscRandom rnd;

    PetscCall(PCMGGetSmoother(s->pc, l, &sm));
    PetscCall(KSPGetOperators(sm, &s->op[l], NULL));
    if (l > 0) PetscCall(PCMGGetInterpolation(s->pc, l, &s->interp[l]));
    PetscCall(MatCreateVecs(s->op[l], &s->lx[l], &s->lb[l]));
    PetscCall(VecDuplicate(s->lb[l], &s->lr[l]));
    PetscCall(PetscRandomCreate(comm, &rnd));
    PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed + l)));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(s->lb[l], rnd));
    PetscCall(VecSetRandom(s->lx[l], rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    if (clear && l < s->nlev - 1) PetscCall(MatProductClear(s->op[l]));
  }
  PetscCall(DeviceMemUsed(&mem[1]));
  mem[1] -= mem[0]; /* this hierarchy's device memory (operators, solver, work vectors) */
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SideDestroy(Side *s)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nlev; l++) {
    PetscCall(VecDestroy(&s->lx[l]));
    PetscCall(VecDestroy(&s->lb[l]));
    PetscCall(VecDestroy(&s->lr[l]));
  }
  PetscCall(KSPDestroy(&s->ksp));
  PetscCall(VecDestroy(&s->x));
  PetscCall(VecDestroy(&s->b));
  PetscCall(MatDestroy(&s->A));
  s->nlev = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether part applies to level l */
static PetscBool PartOnLevel(const Side *s, Part part, PetscInt l)
{
  switch (part) {
  case PART_RESTRICT:
  case PART_INTERP:
    return (PetscBool)(l > 0);
  case PART_COARSE:
    return (PetscBool)(l == 0);
  case PART_PCAPPLY:
    return (PetscBool)(l == s->nlev - 1);
  case PART_SMOOTH:
    return (PetscBool)(l > 0);
  default:
    return PETSC_TRUE;
  }
}

/* the part once on level l (the finest for pcapply) */
static PetscErrorCode PartRun(Side *s, Part part, PetscInt l)
{
  KSP sm;

  PetscFunctionBegin;
  switch (part) {
  case PART_MULT:
    PetscCall(MatMult(s->op[l], s->lx[l], s->lr[l]));
    break;
  case PART_SMOOTH: /* the level's smoother from a zero guess, as PCMG's V-cycle applies it going down
                       (PCMGGetSmoother(): PCMGGetSmootherDown() would split a shared smoother in two) */
    PetscCall(PCMGGetSmoother(s->pc, l, &sm));
    PetscCall(VecSet(s->lr[l], 0.0));
    PetscCall(KSPSolve(sm, s->lb[l], s->lr[l]));
    break;
  case PART_COARSE:
    PetscCall(PCMGGetCoarseSolve(s->pc, &sm));
    PetscCall(KSPSolve(sm, s->lb[l], s->lr[l]));
    break;
  case PART_RESIDUAL:
    PetscCall(MatResidual(s->op[l], s->lb[l], s->lx[l], s->lr[l]));
    break;
  case PART_RESTRICT:
    PetscCall(MatRestrict(s->interp[l], s->lb[l], s->lr[l - 1]));
    break;
  case PART_INTERP:
    PetscCall(MatInterpolateAdd(s->interp[l], s->lx[l - 1], s->lb[l], s->lr[l]));
    break;
  case PART_PCAPPLY:
    PetscCall(PCApply(s->pc, s->b, s->x));
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the median over samples of one part's time on level l, for both sides, a sample of each in turn (the order of the
   two alternated) */
static PetscErrorCode TimePart(Side side[2], Part part, PetscInt l, PetscInt reps, PetscInt samples, double t[2])
{
  MPI_Comm comm = PetscObjectComm((PetscObject)side[0].A);
  double   s[2][64];

  PetscFunctionBegin;
  samples = PetscMin(samples, 64);
  for (PetscInt k = 0; k < 2; k++)
    for (PetscInt i = 0; i < 2; i++) PetscCall(PartRun(&side[k], part, l)); /* warm-up */
  for (PetscInt j = 0; j < samples; j++) {
    for (PetscInt q = 0; q < 2; q++) {
      const PetscInt k = (j % 2) ? 1 - q : q;
      PetscLogDouble t0, t1;

      PetscCall(GBSync(comm));
      PetscCall(PetscTime(&t0));
      for (PetscInt i = 0; i < reps; i++) PetscCall(PartRun(&side[k], part, l));
      PetscCall(GBSync(comm));
      PetscCall(PetscTime(&t1));
      s[k][j] = (t1 - t0) / (double)reps;
    }
  }
  for (PetscInt k = 0; k < 2; k++) {
    qsort(s[k], (size_t)samples, sizeof(double), GBCmpDouble);
    t[k] = s[k][samples / 2];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SideSolve(Side *s, double *t)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)s->A);
  PetscLogDouble     t0, t1;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(VecSet(s->x, 0.0));
  PetscCall(PetscLogStagePush(s->stage[t ? 2 : 1]));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(s->ksp, s->b, s->x));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());
  PetscCall(KSPGetIterationNumber(s->ksp, &s->its));
  PetscCall(KSPGetConvergedReason(s->ksp, &reason));
  PetscCheck(reason > 0, comm, PETSC_ERR_NOT_CONVERGED, "CG + GAMG on %s did not converge (reason %s)", s->type, KSPConvergedReasons[reason]);
  if (t) *t = t1 - t0;
  else {
    s->tfirst   = t1 - t0;
    s->itsfirst = s->its;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  Problem   p;
  Side      side[2];
  char      tlist[256] = "aij,modsell", **types = NULL;
  int       ntypes;
  PetscInt  reps = 20, samples = 7, rounds = 4, srounds = 1;
  PetscBool timings = PETSC_TRUE, clear = PETSC_TRUE, sameits, samelev = PETSC_TRUE, sparts = PETSC_FALSE;
  double    tsetup[2] = {0, 0}, ts[2][64], mem[2][2];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscMemzero(side, sizeof(side)));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscStrncpy(tlist, "aijcusparse,modsell", sizeof(tlist)));
#endif
  PetscOptionsBegin(comm, NULL, "GAMG's V-cycle by parts on two matrix types", "");
  PetscCall(PetscOptionsString("-types", "The two matrix types", "", tlist, tlist, sizeof(tlist), NULL));
  PetscCall(PetscOptionsInt("-reps", "Operations per timed loop", "", reps, &reps, NULL));
  PetscCall(PetscOptionsRangeInt("-samples", "Timed loops per type (median)", "", samples, &samples, NULL, 1, 64));
  PetscCall(PetscOptionsRangeInt("-rounds", "Timed solves per type", "", rounds, &rounds, NULL, 1, 64));
  PetscCall(PetscOptionsRangeInt("-setup_rounds", "Setups per type, the types alternated", "", srounds, &srounds, NULL, 1, 64));
  PetscCall(PetscOptionsBool("-clear_products", "MatProductClear() on the coarse operators after the setup", "", clear, &clear, NULL));
  PetscCall(PetscOptionsBool("-timings", "Print times", "", timings, &timings, NULL));
  PetscCall(PetscOptionsBool("-setup_parts", "Each setup's GAMG phases from the event log (turns it on)", "", sparts, &sparts, NULL));
  PetscOptionsEnd();
  if (sparts) PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscStrToArray(tlist, ',', &ntypes, &types));
  PetscCheck(ntypes == 2, comm, PETSC_ERR_USER_INPUT, "-types takes two matrix types, e.g. -types aijcusparse,modsell");
  PetscCheck(reps >= 1, comm, PETSC_ERR_USER_INPUT, "-reps must be at least 1");

  PetscCall(ProblemInitialize(comm, &p));
  PetscCall(ProblemSetFromOptions(&p));
  PetscCall(ProblemGenerate(&p));
  for (PetscInt k = 0; k < 2; k++) {
    char name[128];

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s setup", types[k]));
    PetscCall(PetscLogStageRegister(name, &side[k].stage[0]));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s first solve", types[k]));
    PetscCall(PetscLogStageRegister(name, &side[k].stage[1]));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s later solves", types[k]));
    PetscCall(PetscLogStageRegister(name, &side[k].stage[2]));
  }
  for (PetscInt r = 0; r < srounds; r++)
    for (PetscInt q = 0; q < 2; q++) {
      const PetscInt k = (r % 2) ? 1 - q : q;

      if (side[k].nlev) PetscCall(SideDestroy(&side[k]));
      double parts[VC_NPARTS];

      PetscCall(SideSetUp(&p, types[k], 7, clear, &side[k], &ts[k][r], mem[k], sparts ? parts : NULL));
      if (timings) PetscCall(PetscPrintf(comm, "# setup round %" PetscInt_FMT " on %s: %.3f s\n", r, types[k], ts[k][r]));
      if (timings && sparts) {
        char line[512] = "";

        for (PetscInt i = 0; i < VC_NPARTS; i++) {
          size_t len;

          PetscCall(PetscStrlen(line, &len));
          PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "%s%s %.3f", i ? ", " : "", VCPartLabels[i], parts[i]));
        }
        PetscCall(PetscPrintf(comm, "#   GAMG phases (s): %s\n", line));
      }
    }
  for (PetscInt k = 0; k < 2; k++) { /* the mean, without the first round when there are several */
    for (PetscInt r = srounds > 1 ? 1 : 0; r < srounds; r++) tsetup[k] += ts[k][r];
    tsetup[k] /= (srounds > 1 ? srounds - 1 : 1);
  }
  if (timings && srounds > 1) PetscCall(PetscPrintf(comm, "setup (mean of rounds 1-%" PetscInt_FMT "): %s %.3f s, %s %.3f s, ratio %.3f\n", srounds - 1, types[0], tsetup[0], types[1], tsetup[1], tsetup[1] > 0 ? tsetup[0] / tsetup[1] : 0.0));
  PetscCheck(side[0].nlev == side[1].nlev, comm, PETSC_ERR_PLIB, "The two hierarchies have %" PetscInt_FMT " and %" PetscInt_FMT " levels", side[0].nlev, side[1].nlev);

  /* the hierarchies: the same sizes expected (the aggregation does not depend on the type) */
  if (timings) {
    PetscCall(PetscPrintf(comm, "# problem %s, %" PetscInt_FMT " rows; GAMG setup %s %.3f s, %s %.3f s; %" PetscInt_FMT " levels\n", ProbTypes[p.type], p.s.N, types[0], tsetup[0], types[1], tsetup[1], side[0].nlev));
    PetscCall(PetscPrintf(comm, "# device memory of each hierarchy (matrix, solver, vectors%s): %s %.3f GB, %s %.3f GB\n", clear ? ", products cleared" : "", types[0], 1e-9 * mem[0][1], types[1], 1e-9 * mem[1][1]));
    PetscCall(PetscPrintf(comm, "# level rows nonzeros operator-type interpolation-type (one line per type)\n"));
  }
  for (PetscInt l = side[0].nlev - 1; l >= 0; l--) {
    PetscInt  N[2];
    PetscReal nz[2];

    for (PetscInt k = 0; k < 2; k++) {
      MatInfo info;
      MatType ot, it = "-";

      PetscCall(MatGetSize(side[k].op[l], &N[k], NULL));
      PetscCall(MatGetInfo(side[k].op[l], MAT_GLOBAL_SUM, &info));
      nz[k] = info.nz_used;
      PetscCall(MatGetType(side[k].op[l], &ot));
      if (l > 0) PetscCall(MatGetType(side[k].interp[l], &it));
      if (timings) PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " %" PetscInt_FMT " %.0f %s %s\n", l, N[k], (double)nz[k], ot, it));
    }
    samelev = (PetscBool)(samelev && N[0] == N[1] && nz[0] == nz[1]);
  }
  PetscCall(PetscPrintf(comm, "levels agree: %s\n", samelev ? "yes" : "NO"));

  /* the solves: one untimed per type, then rounds alternated */
  for (PetscInt k = 0; k < 2; k++) PetscCall(SideSolve(&side[k], NULL));
  for (PetscInt r = 0; r < rounds; r++)
    for (PetscInt q = 0; q < 2; q++) {
      const PetscInt k = (r % 2) ? 1 - q : q;
      PetscCall(SideSolve(&side[k], &side[k].tsolve[r]));
    }
  sameits = (PetscBool)(PetscAbsInt(side[0].its - side[1].its) <= 1);
  PetscCall(PetscPrintf(comm, "iterations agree: %s\n", sameits ? "yes" : "NO"));
  if (timings) {
    double m[2];

    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(PetscPrintf(comm, "# solves %s (%" PetscInt_FMT " iterations):", types[k], side[k].its));
      for (PetscInt r = 0; r < rounds; r++) PetscCall(PetscPrintf(comm, " %.4f", side[k].tsolve[r]));
      qsort(side[k].tsolve, (size_t)rounds, sizeof(double), GBCmpDouble);
      m[k] = side[k].tsolve[rounds / 2] / PetscMax(side[k].its, 1);
      PetscCall(PetscPrintf(comm, " s; median per iteration %.3f ms\n", 1e3 * m[k]));
    }
    PetscCall(PetscPrintf(comm, "per iteration (median): %s %.3f ms, %s %.3f ms, ratio %.3f\n", types[0], 1e3 * m[0], types[1], 1e3 * m[1], m[0] / m[1]));
    PetscCall(PetscPrintf(comm, "first solve after the setup: %s %.4f s (%" PetscInt_FMT " iterations), %s %.4f s (%" PetscInt_FMT " iterations); beyond its iterations at the later solves' pace: %.4f s and %.4f s\n", types[0], side[0].tfirst, side[0].itsfirst, types[1], side[1].tfirst, side[1].itsfirst, side[0].tfirst - side[0].itsfirst * m[0], side[1].tfirst - side[1].itsfirst * m[1]));

    /* the parts */
    PetscCall(PetscPrintf(comm, "# part level ms(%s) ms(%s) ratio (> 1: the second faster)\n", types[0], types[1]));
    for (PetscInt l = side[0].nlev - 1; l >= 0; l--)
      for (PetscInt part = 0; part < PART_N; part++) {
        double t[2] = {0, 0};

        if (!PartOnLevel(&side[0], (Part)part, l)) continue;
        PetscCall(TimePart(side, (Part)part, l, part == PART_PCAPPLY || part == PART_COARSE ? PetscMax(reps / 4, 1) : reps, samples, t));
        PetscCall(PetscPrintf(comm, "%-8s %" PetscInt_FMT " %.4f %.4f %.3f\n", PartNames[part], l, 1e3 * t[0], 1e3 * t[1], t[1] > 0 ? t[0] / t[1] : 0.0));
      }
  } else { /* the parts once each (tests: they run on both types) */
    for (PetscInt l = side[0].nlev - 1; l >= 0; l--)
      for (PetscInt part = 0; part < PART_N; part++)
        for (PetscInt k = 0; k < 2; k++)
          if (PartOnLevel(&side[k], (Part)part, l)) PetscCall(PartRun(&side[k], (Part)part, l));
    PetscCall(PetscPrintf(comm, "parts ran on both types\n"));
  }

  for (PetscInt k = 0; k < 2; k++) PetscCall(SideDestroy(&side[k]));
  PetscCall(PetscStrToArrayDestroy(ntypes, types));
  PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
      suffix: fvm
      nsize: {{1 3}}
      args: -problem fvm -n 8 -cell tet -timings 0 -rounds 1 -setup_parts {{0 1}}
      output_file: output/vcycle_fvm.out

TEST*/
