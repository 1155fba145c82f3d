static char help[] = "CG + GAMG with the operator in two matrix types (aijcusparse and MATMODSELL by default), alternated in one\n\
process: for each type the matrix's assembly from the problem's CSR, the preconditioner's setup (KSPSetUp) and the\n\
solve are timed, after a warm-up of both types on a smaller instance of the problem (the device's and the\n\
libraries' first use). Rounds alternate the order (A B, B A, ...). The measurement behind issue 13's targets (GAMG\n\
setup no slower, time per iteration >= 1.1x), free of the spread between separate processes.\n\
  -problem ... : the problem suite's options (examples/problems/problems.h), e.g. -problem jump -jump 1 -dim 3 -n 256\n\
  -types <aijcusparse,modsell> : the two types (aij,modsell without CUDA)\n\
  -rounds <2>  : timed rounds (each type once per round)\n\
  -warmup_n <n/4> : -n of the warm-up instance (0: no warm-up)\n\
  -timings <1> : 0 prints no times (tests)\n\
Every other option (-ksp_*, -pc_gamg_*, -mg_levels_*) applies to the solver (CG + GAMG to rtol 1e-8 unless given).\n";

#include "gamgbench.h"

typedef struct {
  double   assembly, setup, solve; /* seconds */
  PetscInt its;
  PetscBool converged;
} Run;

/* one solve with the operator in type: times of the assembly, the setup and the solve */
static PetscErrorCode RunType(Problem *p, MatType type, PetscLogStage stage, Run *r)
{
  MPI_Comm           comm = p->comm;
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  KSPConvergedReason reason;
  PetscLogDouble     t0, t1, t2, t3;

  PetscFunctionBegin;
  PetscCall(PetscLogStagePush(stage)); /* -log_view: each type's events in a stage of its own */
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(ProblemCreateMat(p, NULL, type, &A));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t1));
  r->assembly = t1 - t0;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(ProblemSetVec(p, p->s.rhs, b));
  PetscCall(VecSet(x, 0.0));
  PetscCall(GBCreateSolver(A, &ksp));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSetUp(ksp));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t2));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t3));
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  r->converged = (PetscBool)(reason > 0);
  r->setup     = t2 - t1;
  r->solve     = t3 - t2;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  Problem   p;
  char      tlist[256] = "aij,modsell", **types = NULL;
  PetscInt  rounds = 2, n = 0, wn = -1;
  int       ntypes;
  PetscBool timings = PETSC_TRUE, agree = PETSC_TRUE, conv = PETSC_TRUE;
  Run       sum[2] = {{0}}, r;
  PetscLogStage stage[3];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscModSELLInitializePackage());
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscStrncpy(tlist, "aijcusparse,modsell", sizeof(tlist)));
#endif
  PetscOptionsBegin(comm, NULL, "GAMG on two matrix types", "");
  PetscCall(PetscOptionsString("-types", "The two matrix types", "", tlist, tlist, sizeof(tlist), NULL));
  PetscCall(PetscOptionsInt("-rounds", "Timed rounds", "", rounds, &rounds, NULL));
  PetscCall(PetscOptionsInt("-warmup_n", "-n of the warm-up instance (0: none)", "", wn, &wn, NULL));
  PetscCall(PetscOptionsBool("-timings", "Print times", "", timings, &timings, NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrToArray(tlist, ',', &ntypes, &types));
  PetscCheck(ntypes == 2, comm, PETSC_ERR_USER_INPUT, "-types needs two matrix types, e.g. aijcusparse,modsell");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscLogStageRegister("Warm-up", &stage[2]));
  for (PetscInt t = 0; t < 2; t++) PetscCall(PetscLogStageRegister(types[t], &stage[t]));

  if (wn < 0) wn = PetscMax(8, n / 4);
  if (wn > 0 && n > 0) { /* the warm-up instance: the same problem at -n wn, each type once, not reported */
    char sn[32], swn[32];

    PetscCall(PetscSNPrintf(sn, sizeof(sn), "%" PetscInt_FMT, n));
    PetscCall(PetscSNPrintf(swn, sizeof(swn), "%" PetscInt_FMT, wn));
    PetscCall(PetscOptionsSetValue(NULL, "-n", swn));
    PetscCall(ProblemInitialize(comm, &p));
    PetscCall(ProblemSetFromOptions(&p));
    PetscCall(ProblemGenerate(&p));
    for (PetscInt t = 0; t < 2; t++) PetscCall(RunType(&p, types[t], stage[2], &r));
    PetscCall(ProblemDestroy(&p));
    PetscCall(PetscOptionsSetValue(NULL, "-n", sn));
  }
  PetscCall(ProblemInitialize(comm, &p));
  PetscCall(ProblemSetFromOptions(&p));
  PetscCall(ProblemGenerate(&p));
  if (timings) PetscCall(PetscPrintf(comm, "# problem %s, %" PetscInt_FMT " rows; types %s and %s; %" PetscInt_FMT " rounds\n# round type assembly_s setup_s solve_s iterations per_iteration_ms\n", ProbTypes[p.type], p.s.N, types[0], types[1], rounds));
  for (PetscInt k = 0; k < rounds; k++) {
    for (PetscInt i = 0; i < 2; i++) {
      const PetscInt t = k % 2 ? 1 - i : i; /* A B, B A, ... */

      PetscCall(RunType(&p, types[t], stage[t], &r));
      sum[t].assembly += r.assembly / rounds;
      sum[t].setup += r.setup / rounds;
      sum[t].solve += r.solve / rounds;
      sum[t].its = r.its;
      conv       = (PetscBool)(conv && r.converged);
      if (timings) PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " %s %.3f %.3f %.4f %" PetscInt_FMT " %.3f\n", k, types[t], r.assembly, r.setup, r.solve, r.its, 1e3 * r.solve / PetscMax(r.its, 1)));
    }
  }
  agree = (PetscBool)(PetscAbsInt(sum[0].its - sum[1].its) <= PetscMax(2, sum[1].its / 10));
  PetscCall(PetscPrintf(comm, "both converged: %s\niterations agree: %s\n", conv ? "yes" : "NO", agree ? "yes" : "NO"));
  if (timings) {
    PetscCall(PetscPrintf(comm, "# means: %s assembly %.3f s setup %.3f s solve %.4f s (%.3f ms/it); %s assembly %.3f s setup %.3f s solve %.4f s (%.3f ms/it)\n", types[0], sum[0].assembly, sum[0].setup, sum[0].solve, 1e3 * sum[0].solve / PetscMax(sum[0].its, 1), types[1], sum[1].assembly, sum[1].setup, sum[1].solve, 1e3 * sum[1].solve / PetscMax(sum[1].its, 1)));
    PetscCall(PetscPrintf(comm, "# %s / %s: setup %.3f, setup + assembly %.3f, per iteration %.3f\n", types[0], types[1], sum[0].setup / sum[1].setup, (sum[0].setup + sum[0].assembly) / (sum[1].setup + sum[1].assembly), (sum[0].solve / PetscMax(sum[0].its, 1)) / (sum[1].solve / PetscMax(sum[1].its, 1))));
  }
  PetscCall(PetscStrToArrayDestroy(ntypes, types));
  PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
      suffix: fvm
      nsize: {{1 3}}
      args: -problem fvm -n 8 -cell tet -timings 0 -rounds 2 -warmup_n 4

TEST*/
