static char help[] = "GAMG's levels on MATMODSELL: for each level of a PCGAMG hierarchy, the time of one MatMult() with the level's\n\
operator as PCGAMG made it (aijcusparse coarse levels on the GPU) and converted to MATMODSELL, the cost of that\n\
conversion, and the whole solve with the converted levels put in place of the originals (alternated, same process).\n\
This is the measurement behind the choice of the coarse operators' type (docs/composition.md, issue 13).\n\
  -problem ... : the problem suite's options (examples/problems/problems.h), e.g. -problem jump -jump 1 -dim 3 -n 256\n\
                 (7-point Laplacian) or -problem fvm -n 128 -cell tet; the operator's type: -mat_type (aijcusparse with\n\
                 CUDA, aij without)\n\
  -reps <50>, -samples <5> : products per timed loop, loops (the median is reported)\n\
  -min_rows <0>  : convert only coarse levels with at least this many rows (none: no such variant)\n\
  -rounds <2>    : timed solves per variant (each after an untimed solve of the same variant), variants alternated\n\
  -swap_finest <type> : a third variant: the finest operator (outer KSP and finest level) converted to this type\n\
                 (e.g. modsell, with -mat_type aijcusparse: the finest level's type alone, the same hierarchy)\n\
Every variant's operators are put in place with KSPSetOperators() before its solves, also the original's: the Chebyshev\n\
smoothers then estimate their eigenvalues themselves (not PCGAMG's estimates): the same for every variant, but the\n\
iteration counts may differ from a plain PCGAMG solve's.\n\
  -timings <1>   : 0 prints no times (tests)\n\
Every other option (-ksp_type, -pc_gamg_*, -mg_levels_*) applies to the solver (CG + GAMG unless given).\n";

#include "gamgbench.h"

/* median over samples of the time of one MatMult (reps products per sample) */
static PetscErrorCode TimeMult(Mat A, Vec x, Vec y, PetscInt reps, PetscInt samples, double *t)
{
  double   s[64];
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  samples = PetscMin(samples, 64);
  for (PetscInt i = 0; i < 3; i++) PetscCall(MatMult(A, x, y));
  for (PetscInt k = 0; k < samples; k++) {
    PetscLogDouble t0, t1;

    PetscCall(GBSync(comm));
    PetscCall(PetscTime(&t0));
    for (PetscInt i = 0; i < reps; i++) PetscCall(MatMult(A, x, y));
    PetscCall(GBSync(comm));
    PetscCall(PetscTime(&t1));
    s[k] = (t1 - t0) / (double)reps;
  }
  qsort(s, (size_t)samples, sizeof(double), GBCmpDouble);
  *t = s[samples / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B = A converted to type (a copy; A itself when it has that type already) */
static PetscErrorCode ConvertCopy(Mat A, MatType type, Mat *B)
{
  PetscBool same, ms;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, type, &same));
  PetscCall(PetscStrcmp(type, MATMODSELL, &ms));
  if (!same && ms) PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &same, MATSEQAIJMODSELL, MATMPIAIJMODSELL, ""));
  if (same) {
    PetscCall(PetscObjectReference((PetscObject)A));
    *B = A;
  } else PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operators of one variant in place: level l gets alt[l], or orig[l] where alt[l] is NULL (l = 1 .. nlev - 1,
   the finest also as the outer KSP's operator; the preconditioner's matrix, from which PCGAMG was set up, stays) */
static PetscErrorCode SetVariant(KSP ksp, PC pc, PetscInt nlev, Mat orig[], Mat alt[])
{
  Mat P;

  PetscFunctionBegin;
  for (PetscInt l = 1; l < nlev; l++) {
    KSP sd, su;
    Mat M = alt[l] ? alt[l] : orig[l];

    PetscCall(PCMGGetSmootherDown(pc, l, &sd));
    PetscCall(PCMGGetSmootherUp(pc, l, &su));
    PetscCall(KSPSetOperators(sd, M, M));
    if (su != sd) PetscCall(KSPSetOperators(su, M, M));
    PetscCall(PCMGSetResidual(pc, l, PCMGResidualDefault, M));
  }
  PetscCall(KSPGetOperators(ksp, NULL, &P));
  PetscCall(KSPSetOperators(ksp, alt[nlev - 1] ? alt[nlev - 1] : orig[nlev - 1], P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  Problem     p;
  Mat         A, *orig, *conv, *fine;
  Vec         x, b;
  KSP         ksp;
  PC          pc;
  PetscInt    reps = 50, samples = 5, minrows = 0, rounds = 2, nlev, its[3] = {0, 0, 0};
  PetscBool   active[3] = {PETSC_TRUE, PETSC_FALSE, PETSC_FALSE}; /* original, converted coarse levels, finest swapped */
  PetscBool   timings = PETSC_TRUE, flg;
  PetscReal   worst = 0;
  double      tsolve[3] = {0, 0, 0};
  char        deftype[64], swap[64] = "";
  PetscLogDouble t0, t1, tsetup;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscModSELLInitializePackage());
  PetscOptionsBegin(comm, NULL, "GAMG levels on MATMODSELL", "");
  PetscCall(PetscOptionsInt("-reps", "Products per timed loop", "", reps, &reps, NULL));
  PetscCall(PetscOptionsRangeInt("-samples", "Timed loops (median)", "", samples, &samples, NULL, 1, 64));
  PetscCall(PetscOptionsInt("-min_rows", "Convert only coarse levels with at least this many rows", "", minrows, &minrows, NULL));
  PetscCall(PetscOptionsInt("-rounds", "Solves per variant", "", rounds, &rounds, NULL));
  PetscCall(PetscOptionsBool("-timings", "Print times", "", timings, &timings, NULL));
  PetscCall(PetscOptionsString("-swap_finest", "A variant with the finest operator converted to this type", "", swap, swap, sizeof(swap), NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrncpy(deftype, MATAIJ, sizeof(deftype)));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscStrncpy(deftype, MATAIJCUSPARSE, sizeof(deftype)));
#endif

  PetscCall(ProblemInitialize(comm, &p));
  PetscCall(ProblemSetFromOptions(&p));
  PetscCall(ProblemGenerate(&p));
  PetscCall(ProblemCreateMat(&p, NULL, deftype, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(ProblemSetVec(&p, p.s.rhs, b));

  PetscCall(GBCreateSolver(A, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(GBSync(comm));
  PetscCall(PetscTime(&t1));
  tsetup = t1 - t0;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &flg));
  if (!flg) PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCGAMG, &flg));
  PetscCheck(flg, comm, PETSC_ERR_USER_INPUT, "-pc_type must be gamg or mg (a multigrid hierarchy)");
  PetscCall(PCMGGetLevels(pc, &nlev));
  PetscCall(PetscCalloc3(nlev, &orig, nlev, &conv, nlev, &fine));
  if (timings) PetscCall(PetscPrintf(comm, "# problem %s, %" PetscInt_FMT " rows, %s; GAMG setup %.3f s, %" PetscInt_FMT " levels\n", ProbTypes[p.type], p.s.N, deftype, tsetup, nlev));
  if (timings) PetscCall(PetscPrintf(comm, "# level rows nnz type t_mult_ms t_mult_modsell_ms ratio convert_ms break_even_products\n"));
  for (PetscInt l = nlev - 1; l >= 1; l--) { /* finest first */
    KSP            sm;
    Mat            L, B;
    Vec            lx, ly, lz;
    MatInfo        info;
    MatType        type;
    PetscRandom    rnd;
    PetscInt       N;
    PetscReal      nd, nr;
    double         ta = 0, tb = 0;
    PetscLogDouble c0, c1;

    PetscCall(PCMGGetSmoother(pc, l, &sm));
    PetscCall(KSPGetOperators(sm, &L, NULL));
    PetscCall(MatGetSize(L, &N, NULL));
    PetscCall(MatGetInfo(L, MAT_GLOBAL_SUM, &info));
    PetscCall(MatGetType(L, &type));
    PetscCall(MatCreateVecs(L, &lx, &ly));
    PetscCall(VecDuplicate(ly, &lz));
    PetscCall(PetscRandomCreate(comm, &rnd));
    PetscCall(PetscRandomSetSeed(rnd, 5));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(lx, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    if (timings) PetscCall(TimeMult(L, lx, ly, reps, samples, &ta));
    else PetscCall(MatMult(L, lx, ly));
    /* the conversion as the coarse levels would pay it: the operator's values to the host, MATMODSELL's image and
       its upload (in the first product) */
    PetscCall(GBSync(comm));
    PetscCall(PetscTime(&c0));
    PetscCall(ConvertCopy(L, MATMODSELL, &B));
    PetscCall(MatMult(B, lx, lz));
    PetscCall(GBSync(comm));
    PetscCall(PetscTime(&c1));
    if (timings) PetscCall(TimeMult(B, lx, lz, reps, samples, &tb));
    else PetscCall(MatMult(B, lx, lz));
    PetscCall(VecAXPY(lz, -1.0, ly));
    PetscCall(VecNorm(lz, NORM_2, &nd));
    PetscCall(VecNorm(ly, NORM_2, &nr));
    worst = PetscMax(worst, nr > 0 ? nd / nr : nd);
    if (timings)
      PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " %" PetscInt_FMT " %.0f %s %.4f %.4f %.3f %.1f %.0f\n", l, N, info.nz_used, type, 1e3 * ta, 1e3 * tb, tb > 0 ? ta / tb : 0.0, 1e3 * (c1 - c0), ta > tb ? (c1 - c0) / (ta - tb) : -1.0));
    else PetscCall(PetscInfo(NULL, "level %" PetscInt_FMT ": %" PetscInt_FMT " rows, %.0f nonzeros, %s\n", l, N, info.nz_used, type));
    orig[l] = L;
    PetscCall(PetscObjectReference((PetscObject)L));
    if (l < nlev - 1 && N >= minrows && B != L) {
      conv[l]   = B;
      active[1] = PETSC_TRUE;
    } else PetscCall(MatDestroy(&B));
    if (l == nlev - 1 && swap[0]) {
      PetscCall(ConvertCopy(L, swap, &fine[l]));
      active[2] = PETSC_TRUE;
    }
    PetscCall(VecDestroy(&lx));
    PetscCall(VecDestroy(&ly));
    PetscCall(VecDestroy(&lz));
  }
  PetscCall(PetscPrintf(comm, "products of the converted operators agree: %s\n", worst <= 1e-12 ? "yes" : "NO"));
  if (!timings) PetscCall(PetscInfo(NULL, "largest relative difference of the products %g\n", (double)worst));

  /* the solves: the variants alternated, each timed solve after an untimed one of the same variant (a change of
     operators sets the smoothers up again) */
  for (PetscInt r = 0; r < rounds; r++) {
    for (PetscInt v = 0; v < 3; v++) {
      const char *const names[] = {"original", "converted coarse levels", "finest swapped"};
      Mat              *alt     = v == 0 ? orig : (v == 1 ? conv : fine);
      PetscInt          n;

      if (!active[v]) continue;
      PetscCall(SetVariant(ksp, pc, nlev, orig, alt));
      PetscCall(VecSet(x, 0.0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(VecSet(x, 0.0));
      PetscCall(GBSync(comm));
      PetscCall(PetscTime(&t0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(GBSync(comm));
      PetscCall(PetscTime(&t1));
      PetscCall(KSPGetIterationNumber(ksp, &n));
      its[v] = n;
      tsolve[v] += (t1 - t0) / rounds;
      if (timings) PetscCall(PetscPrintf(comm, "# round %" PetscInt_FMT " %s: %" PetscInt_FMT " iterations, %.4f s\n", r, names[v], n, t1 - t0));
    }
  }
  PetscCall(PetscPrintf(comm, "iterations agree: %s\n", (!active[1] || PetscAbsInt(its[0] - its[1]) <= 1) && (!active[2] || PetscAbsInt(its[0] - its[2]) <= 1) ? "yes" : "NO"));
  if (timings) {
    for (PetscInt v = 1; v < 3; v++)
      if (active[v]) PetscCall(PetscPrintf(comm, "# per iteration: original %.3f ms, %s %.3f ms (original / this %.3f)\n", 1e3 * tsolve[0] / PetscMax(its[0], 1), v == 1 ? "converted coarse levels" : "finest swapped", 1e3 * tsolve[v] / PetscMax(its[v], 1), tsolve[v] > 0 ? (tsolve[0] / PetscMax(its[0], 1)) / (tsolve[v] / PetscMax(its[v], 1)) : 0.0));
  }

  for (PetscInt l = 0; l < nlev; l++) {
    PetscCall(MatDestroy(&orig[l]));
    PetscCall(MatDestroy(&conv[l]));
    PetscCall(MatDestroy(&fine[l]));
  }
  PetscCall(PetscFree3(orig, conv, fine));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
      suffix: fvm
      nsize: {{1 3}}
      args: -problem fvm -n 8 -cell tet -timings 0 -rounds 1 -swap_finest modsell

TEST*/
