static char help[] = "PCBJSMOOTH: properties of one application and of the smoothing iteration.\n\
  -problem lap3d|rand: 7-point Laplacian on an n^3 grid, or a random sparse diagonally dominant SPD matrix\n\
    (graph Laplacian of a random graph with long-range edges, plus a diagonal shift) with n^3 rows;\n\
  -n <6>; -test exact|reduce|spd|fallback|error:\n\
    exact:    one outer iteration with inner CG to rtol 1e-13 equals PCBJACOBI + LU on the same blocks (slices\n\
              of -pc_bjsmooth_block_size rows: contiguous row ranges in the natural ordering);\n\
    reduce:   each inner method (jacobi, gs, sgs, cg, chebyshev) reduces ||b - A M^-1 b|| below ||b||, and the Richardson\n\
              smoothing loop (PCApplyRichardson, 30 iterations) reduces the residual by more than one sweep;\n\
    spd:      for the settings given, u'M^-1 v = v'M^-1 u and u'M^-1 u > 0 on random vectors, and the PCView verdict;\n\
    fallback: the global-memory coefficient path gives exactly the same result as the shared-memory one;\n\
    error:    a bad row -bad (-bad_kind negdiag|nodiag|nan|inf) is reported with its row.\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <mstestpc.h> /* tests/include: MSTestLaplacianSetValues(), MSTestRandomGraphLaplacianAdd(), MSTestVecSetHash(), MSTestRelativeResidual() */

typedef enum {
  PROB_LAP3D,
  PROB_RAND
} Problem;
static const char *const Problems[] = {"lap3d", "rand", "Problem", "PROB_", NULL};
typedef enum {
  TEST_EXACT,
  TEST_REDUCE,
  TEST_SPD,
  TEST_FALLBACK,
  TEST_ERROR
} TestKind;
static const char *const TestKinds[] = {"exact", "reduce", "spd", "fallback", "error", "TestKind", "TEST_", NULL};

typedef enum {
  BAD_NEGDIAG,
  BAD_NODIAG,
  BAD_NAN,
  BAD_INF
} BadKind;
static const char *const BadKinds[] = {"negdiag", "nodiag", "nan", "inf", "BadKind", "BAD_", NULL};

typedef struct {
  PetscInt bad;
  BadKind  kind;
} BadRow;

/* MSTestStencilRowFn: row bad (lap3d): negdiag: diagonal -6; nodiag: no diagonal entry stored; nan: its last
   off-diagonal entry (the +z neighbour, on another process with 3 processes at n = 5) is NaN, and its diagonal -6
   (the non-finite entry is reported first); inf: its diagonal is +Inf */
static PetscErrorCode SpoilRow(MSTestStencilRow *r, void *ctx)
{
  const BadRow *b = (const BadRow *)ctx;

  PetscFunctionBegin;
  if (r->row == b->bad) {
    switch (b->kind) {
    case BAD_NEGDIAG:
      r->vals[0] = -6.0;
      break;
    case BAD_INF:
      r->vals[0] = (PetscScalar)INFINITY;
      break;
    case BAD_NAN:
      r->vals[0]        = -6.0;
      r->vals[r->n - 1] = NAN;
      break;
    case BAD_NODIAG:
      MSTestStencilRowRemove(r, 0);
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lap3d: the 7-point Laplacian on n^3 (row bad spoilt); rand: the graph Laplacian of a random graph with long-range
   edges plus 0.05 on the diagonal (row bad: -1 instead) */
static PetscErrorCode BuildMatrix(Problem prob, PetscInt n, PetscInt bad, BadKind kind, Mat A)
{
  PetscInt rstart, rend;
  BadRow   b = {bad, kind};

  PetscFunctionBegin;
  if (prob == PROB_LAP3D) PetscCall(MSTestLaplacianSetValues(A, n, n, n, NULL, SpoilRow, &b));
  else {
    PetscCall(MSTestRandomGraphLaplacianAdd(A));
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscScalar v = (i == bad) ? -1.0 : 0.05;
      PetscCall(MatSetValues(A, 1, &i, 1, &i, &v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateBJSmooth(Mat A, const char *inner, PC *pc)
{
  PetscFunctionBegin;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetType(*pc, PCBJSMOOTH));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetFromOptions(*pc));
  if (inner) { /* set after the options: the loop over the inner methods overrides -pc_bjsmooth_inner */
    PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_inner", inner));
    PetscCall(PCSetFromOptions(*pc));
  }
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  Mat       A;
  Vec       b, y, w;
  PetscInt  n = 6, N, m, bad = -1;
  BadKind   badkind = BAD_NEGDIAG;
  Problem   prob = PROB_LAP3D;
  TestKind  test = TEST_REDUCE;
  PC        pc;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "PCBJSMOOTH test options", NULL);
  PetscCall(PetscOptionsEnum("-problem", "lap3d or rand", NULL, Problems, (PetscEnum)prob, (PetscEnum *)&prob, NULL));
  PetscCall(PetscOptionsInt("-n", "grid points per direction (n^3 rows)", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEnum("-test", "which property", NULL, TestKinds, (PetscEnum)test, (PetscEnum *)&test, NULL));
  PetscCall(PetscOptionsInt("-bad", "row with a bad entry (-test error)", NULL, bad, &bad, NULL));
  PetscCall(PetscOptionsEnum("-bad_kind", "what is wrong with row -bad (lap3d): negdiag, nodiag, nan (off-diagonal), inf (diagonal)", NULL, BadKinds, (PetscEnum)badkind, (PetscEnum *)&badkind, NULL));
  PetscOptionsEnd();
  N = n * n * n;

  PetscCall(MatCreate(comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 20, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 20, NULL, 20, NULL));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(BuildMatrix(prob, n, test == TEST_ERROR ? bad : -1, badkind, A));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatCreateVecs(A, &y, &b));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(MSTestVecSetHash(b, 1, 1 * 7919ULL, -1.0, 1.0)); /* random vectors: b_i = 2 U(7919 seed + i) - 1, seeds 1, 2, 3 */

  if (test == TEST_ERROR) {
    PetscErrorCode ierr;
    const char    *text;
    const char    *specific;

    PetscCall(PCCreate(comm, &pc));
    PetscCall(PCSetType(pc, PCBJSMOOTH));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PCSetUp(pc);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(comm, "error case %s at row %" PetscInt_FMT ": %s\n", BadKinds[badkind], bad, ierr ? "raised" : "NOT raised"));
    if (ierr) PetscCall(PetscPrintf(comm, "  [%s] %s\n", text, specific));
    PetscCall(PCDestroy(&pc));
  } else if (test == TEST_EXACT) {
    PetscInt           bs = 0, nb, *lens, rstart;
    Mat                Aaij;
    Vec                bb, yb;
    PC                 ref;
    KSP               *sub;
    PetscInt           nsub, first;
    const PetscScalar *ya, *yba;
    PetscReal          diff = 0.0, ymax = 0.0;

    PetscCall(PetscOptionsGetInt(NULL, NULL, "-pc_bjsmooth_block_size", &bs, NULL));
    PetscCheck(bs > 0, comm, PETSC_ERR_USER, "-test exact needs -pc_bjsmooth_block_size");
    PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_its", "1"));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_inner_rtol", "1e-13"));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_inner_its", "2000"));
    PetscCall(CreateBJSmooth(A, "cg", &pc));
    PetscCall(PCApply(pc, b, y));

    /* reference: PCBJACOBI with the same blocks (bs rows each, the last one of each process shorter) and LU */
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aaij));
    PetscCall(MatCreateVecs(Aaij, &yb, &bb));
    PetscCall(MSTestVecSetHash(bb, 1, 1 * 7919ULL, -1.0, 1.0));
    nb = (m + bs - 1) / bs;
    PetscCall(PetscMalloc1(nb, &lens));
    for (PetscInt i = 0; i < nb; i++) lens[i] = PetscMin(bs, m - i * bs);
    PetscCall(PCCreate(comm, &ref));
    PetscCall(PCSetType(ref, PCBJACOBI));
    PetscCall(PCSetOperators(ref, Aaij, Aaij));
    PetscCall(PCBJacobiSetLocalBlocks(ref, nb, lens));
    PetscCall(PCSetUp(ref));
    PetscCall(PCBJacobiGetSubKSP(ref, &nsub, &first, &sub));
    for (PetscInt i = 0; i < nsub; i++) {
      PC subpc;
      PetscCall(KSPSetType(sub[i], KSPPREONLY));
      PetscCall(KSPGetPC(sub[i], &subpc));
      PetscCall(PCSetType(subpc, PCLU));
    }
    PetscCall(PCApply(ref, bb, yb));
    PetscCall(VecGetOwnershipRange(y, &rstart, NULL));
    PetscCall(VecGetArrayRead(y, &ya));
    PetscCall(VecGetArrayRead(yb, &yba));
    for (PetscInt i = 0; i < m; i++) {
      diff = PetscMax(diff, PetscAbsScalar(ya[i] - yba[i]));
      ymax = PetscMax(ymax, PetscAbsScalar(yba[i]));
    }
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(VecRestoreArrayRead(yb, &yba));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &diff, 1, MPIU_REAL, MPIU_MAX, comm));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ymax, 1, MPIU_REAL, MPIU_MAX, comm));
    PetscCall(PetscPrintf(comm, "exact inner solve (cg to 1e-13), blocks of %" PetscInt_FMT " rows: max |z - z_bjacobi_lu| / max |z_bjacobi_lu| < 1e-10: %s\n", bs, diff <= 1e-10 * ymax ? "yes" : "NO"));
    if (diff > 1e-10 * ymax) PetscCall(PetscPrintf(comm, "  difference %g, scale %g\n", (double)diff, (double)ymax));
    /* and it is not trivially equal to point Jacobi: the blocks couple rows */
    {
      Vec       d;
      PetscReal dj;
      PetscCall(VecDuplicate(yb, &d));
      PetscCall(MatGetDiagonal(Aaij, d));
      PetscCall(VecPointwiseDivide(d, bb, d));
      PetscCall(VecAXPY(d, -1.0, yb));
      PetscCall(VecNorm(d, NORM_INFINITY, &dj));
      PetscCall(PetscPrintf(comm, "  (differs from point Jacobi: %s)\n", dj > 1e-3 * ymax ? "yes" : "NO"));
      PetscCall(VecDestroy(&d));
    }
    PetscCall(PetscFree(lens));
    PetscCall(PCDestroy(&ref));
    PetscCall(PCDestroy(&pc));
    PetscCall(VecDestroy(&bb));
    PetscCall(VecDestroy(&yb));
    PetscCall(MatDestroy(&Aaij));
  } else if (test == TEST_REDUCE) {
    const char *inners[] = {"jacobi", "gs", "sgs", "cg", "chebyshev"};
    PetscBool   async    = PETSC_FALSE;

    PetscCall(PetscOptionsGetBool(NULL, NULL, "-pc_bjsmooth_async", &async, NULL));
    for (size_t k = 0; k < sizeof(inners) / sizeof(inners[0]); k++) {
      PetscReal                   r1, r30;
      PetscInt                    outits;
      PCRichardsonConvergedReason reason;

      PetscCall(CreateBJSmooth(A, inners[k], &pc));
      PetscCall(PCApply(pc, b, y));
      PetscCall(MSTestRelativeResidual(A, b, y, &r1));
      PetscCall(PCApplyRichardson(pc, b, y, w, 0.0, 0.0, 1e10, 30, PETSC_TRUE, &outits, &reason));
      PetscCall(MSTestRelativeResidual(A, b, y, &r30));
      PetscCall(PetscPrintf(comm, "inner %-6s: one application reduces the residual (%s); 30 Richardson sweeps reduce it further (%s), by more than 10x (%s); its %" PetscInt_FMT " reason %s\n", inners[k], r1 < 1.0 ? "yes" : "NO", r30 < r1 ? "yes" : "NO", r30 < 0.1 ? "yes" : "NO", outits, reason == PCRICHARDSON_CONVERGED_ITS ? "its" : "other"));
      /* a nonzero initial guess continues the iteration: 15 + 15 sweeps give the same as 30 (synchronous mode:
         asynchronous sweeps on the GPU depend on the scheduling) */
      if (!async) {
        Vec       y2;
        PetscReal dd, ny;
        PetscCall(VecDuplicate(y, &y2));
        PetscCall(PCApplyRichardson(pc, b, y2, w, 0.0, 0.0, 1e10, 15, PETSC_TRUE, &outits, &reason));
        PetscCall(PCApplyRichardson(pc, b, y2, w, 0.0, 0.0, 1e10, 15, PETSC_FALSE, &outits, &reason));
        PetscCall(VecAXPY(y2, -1.0, y));
        PetscCall(VecNorm(y2, NORM_INFINITY, &dd));
        PetscCall(VecNorm(y, NORM_INFINITY, &ny));
        PetscCall(PetscPrintf(comm, "             15 + 15 sweeps (restart from the iterate) equal 30 sweeps: %s\n", dd <= 1e-12 * ny ? "yes" : "NO"));
        PetscCall(VecDestroy(&y2));
      }
      PetscCall(PCDestroy(&pc));
    }
  } else if (test == TEST_SPD) {
    Vec         u, v, Mu, Mv;
    PetscScalar uMv, vMu, uMu;
    PetscBool   sym, pos;

    PetscCall(CreateBJSmooth(A, NULL, &pc));
    PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(VecDuplicate(b, &u));
    PetscCall(VecDuplicate(b, &v));
    PetscCall(VecDuplicate(b, &Mu));
    PetscCall(VecDuplicate(b, &Mv));
    PetscCall(MSTestVecSetHash(u, 1, 2 * 7919ULL, -1.0, 1.0));
    PetscCall(MSTestVecSetHash(v, 1, 3 * 7919ULL, -1.0, 1.0));
    PetscCall(PCApply(pc, u, Mu));
    PetscCall(PCApply(pc, v, Mv));
    PetscCall(VecDot(u, Mv, &uMv));
    PetscCall(VecDot(v, Mu, &vMu));
    PetscCall(VecDot(u, Mu, &uMu));
    sym = (PetscBool)(PetscAbsScalar(uMv - vMu) <= 1e-12 * PetscAbsScalar(uMu));
    pos = (PetscBool)(PetscRealPart(uMu) > 0.0);
    PetscCall(PetscPrintf(comm, "u'M^-1 v = v'M^-1 u: %s; u'M^-1 u > 0: %s\n", sym ? "yes" : "no", pos ? "yes" : "no"));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&Mu));
    PetscCall(VecDestroy(&Mv));
    PetscCall(PCDestroy(&pc));
  } else { /* fallback */
    Vec       y2;
    PetscReal dd, ny;
    PetscBool view_shared = PETSC_FALSE;

    PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_shared", &view_shared, NULL));
    PetscCall(VecDuplicate(y, &y2));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_global_coefficients", "false"));
    PetscCall(CreateBJSmooth(A, NULL, &pc));
    PetscCall(PCApply(pc, b, y));
    if (view_shared) PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PCDestroy(&pc));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_global_coefficients", "true"));
    PetscCall(CreateBJSmooth(A, NULL, &pc));
    PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PCApply(pc, b, y2));
    PetscCall(VecAXPY(y2, -1.0, y));
    PetscCall(VecNorm(y2, NORM_INFINITY, &dd));
    PetscCall(VecNorm(y, NORM_INFINITY, &ny));
    PetscCall(PetscPrintf(comm, "global-memory coefficients give the same result as shared memory: %s (nonzero result: %s)\n", dd == 0.0 ? "yes, identical" : "NO", ny > 0 ? "yes" : "NO"));
    PetscCall(VecDestroy(&y2));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # one outer iteration with an exact inner solve = PCBJACOBI + LU on the same blocks
   test:
     suffix: exact
     nsize: {{1 3}}
     args: -test exact -problem {{lap3d rand}} -n 6 -pc_bjsmooth_block_size 32 -mat_type {{aij modsell}}
     output_file: output/ex1_exact.out

   # each inner method reduces the residual; Richardson (PCApplyRichardson) restarts exactly
   test:
     suffix: reduce
     nsize: {{1 3}}
     args: -test reduce -problem {{lap3d rand}separate output} -n 7 -pc_bjsmooth_block_size 64 -mat_type {{aij modsell}}
   test:
     suffix: reduce_its2
     args: -test reduce -problem lap3d -n 7 -pc_bjsmooth_block_size 64 -pc_bjsmooth_its 2 -pc_bjsmooth_inner_its 2
     output_file: output/ex1_reduce_problem-lap3d.out
   test:
     suffix: reduce_async
     nsize: {{1 3}}
     args: -test reduce -problem lap3d -n 7 -pc_bjsmooth_block_size 64 -pc_bjsmooth_async

   # symmetry and positivity of M^-1, with PCView's verdict
   test:
     suffix: spd
     nsize: {{1 3}}
     args: -test spd -problem rand -n 6 -pc_bjsmooth_block_size 32 -pc_bjsmooth_inner {{jacobi sgs chebyshev}separate output} -pc_bjsmooth_inner_its {{1 4}separate output}
     filter: grep -e "M^-1" -e "coefficients in" -e "same result" -e "u.M"
   test:
     suffix: spd_nonsym
     nsize: {{1 3}}
     args: -test spd -problem rand -n 6 -pc_bjsmooth_block_size 64 -pc_bjsmooth_inner gs
     filter: grep -e "M^-1" -e "coefficients in" -e "same result" -e "u.M"
   test:
     suffix: spd_its3
     nsize: {{1 3}}
     args: -test spd -problem lap3d -n 6 -pc_bjsmooth_block_size 32 -pc_bjsmooth_its 3
     filter: grep -e "M^-1" -e "coefficients in" -e "same result" -e "u.M"

   # the global-memory fallback for the in-slice coefficients computes the same
   test:
     suffix: fallback
     nsize: {{1 3}}
     args: -test fallback -problem rand -n 6 -pc_bjsmooth_block_size 64 -pc_bjsmooth_inner {{jacobi sgs cg chebyshev}separate output}
     filter: grep -e "M^-1" -e "coefficients in" -e "same result" -e "u.M"

   # bad operators: a negative or missing diagonal, a NaN off the diagonal (off-process with 3 processes), an
   # infinite diagonal: an error naming the row
   test:
     suffix: err
     nsize: {{1 3}}
     args: -test error -problem lap3d -n 5 -bad 77 -bad_kind {{negdiag nodiag nan inf}separate output}

   # GPU: the same checks on the device (outputs are those of the host)
   testset:
     requires: cuda
     test:
       suffix: cuda_exact
       nsize: {{1 3}}
       args: -test exact -problem {{lap3d rand}} -n 6 -pc_bjsmooth_block_size 32 -mat_type {{modsell aijcusparse}}
       output_file: output/ex1_exact.out
     test:
       suffix: cuda_reduce
       nsize: {{1 3}}
       args: -test reduce -problem lap3d -n 7 -pc_bjsmooth_block_size 64 -mat_type {{modsell aijcusparse}}
       output_file: output/ex1_reduce_problem-lap3d.out
     test:
       suffix: cuda_reduce_rand
       args: -test reduce -problem rand -n 7 -pc_bjsmooth_block_size 64 -mat_type modsell
       output_file: output/ex1_reduce_problem-rand.out
     test:
       suffix: cuda_reduce_async
       nsize: {{1 3}}
       args: -test reduce -problem lap3d -n 7 -pc_bjsmooth_block_size 64 -pc_bjsmooth_async -mat_type modsell
       output_file: output/ex1_reduce_async.out
     # zero-guess inner jacobi and chebyshev read the compact in-slice block: identical to the image-reading kernel
     test:
       suffix: cuda_fallback
       nsize: {{1 3}}
       args: -test fallback -problem lap3d -n 6 -pc_bjsmooth_block_size 64 -pc_bjsmooth_inner_its 4 -pc_bjsmooth_inner {{jacobi chebyshev}} -mat_type modsell -view_shared
       filter: sed -n -e "/same result/p" -e "/compact copy/p"
       output_file: output/ex1_cuda_fallback.out
     test:
       suffix: cuda_err_negdiag
       nsize: {{1 3}}
       args: -test error -problem lap3d -n 5 -bad 77 -bad_kind negdiag -mat_type {{modsell aijcusparse}}
       output_file: output/ex1_err_bad_kind-negdiag.out
     test:
       suffix: cuda_err_nodiag
       nsize: {{1 3}}
       args: -test error -problem lap3d -n 5 -bad 77 -bad_kind nodiag -mat_type modsell
       output_file: output/ex1_err_bad_kind-nodiag.out
     test:
       suffix: cuda_err_nan
       nsize: {{1 3}}
       args: -test error -problem lap3d -n 5 -bad 77 -bad_kind nan -mat_type {{modsell aijcusparse}}
       output_file: output/ex1_err_bad_kind-nan.out
     test:
       suffix: cuda_err_inf
       nsize: {{1 3}}
       args: -test error -problem lap3d -n 5 -bad 77 -bad_kind inf -mat_type modsell
       output_file: output/ex1_err_bad_kind-inf.out

TEST*/
