static char help[] = "PCRUIZ in Krylov solvers: CG, BiCGSTAB, GMRES (restart 30, PETSc's default) (any -ksp_type, any -ksp_pc_side) with PCRUIZ\n\
against PCJACOBI (and PCNONE) on Laplacians and on badly scaled systems.\n\
Options: -problem lap2d|lap3d|convdiff: 5-point, 7-point Laplacian (SPD, flagged symmetric) or a 2D\n\
  convection-diffusion operator (central differences, speed varying over the domain up to -peclet),\n\
  -n <grid points per direction>, -sexp <e>: rows scaled by R_i and columns by C_j, factors 10^[-e,e]\n\
  (-symscale: C = R, keeps the Laplacians symmetric), -pcs ruiz,jacobi,none: preconditioners to compare,\n\
  -rtol_true <tol>: bound on the true relative residual ||b - A x|| / ||b|| checked after each solve,\n\
  -margin <f>: check that ruiz needs at most f times jacobi's iterations (0: no comparison).\n\
Iteration counts are printed only with -print_its: they depend on the summation order (BLAS, GPU).\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <mstestpc.h> /* tests/include: MSTestCreateLaplacian(), MSTestStencilRowScale(), MSTestVecSetHash(), MSTestSolveReport() */

typedef enum {
  PROB_LAP2D,
  PROB_LAP3D,
  PROB_CONVDIFF
} Problem;
static const char *const Problems[] = {"lap2d", "lap3d", "convdiff", "Problem", "PROB_", NULL};

typedef struct {
  Problem       prob;
  PetscInt      n, N;
  PetscReal     peclet;
  MSTestScaling scaling; /* rows scaled by R_i, columns by C_j (= R_j with -symscale), factors 10^[-sexp,sexp] */
} Ctx;

/* MSTestStencilRowFn: the convection terms (convdiff), then the scaling */
static PetscErrorCode ModifyRow(MSTestStencilRow *r, void *ctx)
{
  const Ctx *c = (const Ctx *)ctx;

  PetscFunctionBegin;
  if (c->prob == PROB_CONVDIFF) {
    const PetscReal h = 1.0 / (c->n + 1), px = (r->x + 1) * h, py = (r->y + 1) * h;
    /* velocity (speed varying over the domain): cell Peclet numbers up to -peclet */
    const PetscReal bx = c->peclet * PetscSqr(PetscSinReal(PETSC_PI * px) * py);
    const PetscReal by = -0.5 * c->peclet * PetscSqr(px) * PetscCosReal(PETSC_PI * py);

    for (PetscInt k = 1; k < r->n; k++) {
      switch (r->dir[k]) {
      case MSTEST_XM:
        r->vals[k] = -1.0 - 0.5 * bx;
        break;
      case MSTEST_XP:
        r->vals[k] = -1.0 + 0.5 * bx;
        break;
      case MSTEST_YM:
        r->vals[k] = -1.0 - 0.5 * by;
        break;
      case MSTEST_YP:
        r->vals[k] = -1.0 + 0.5 * by;
        break;
      default:
        break;
      }
    }
  }
  PetscCall(MSTestStencilRowScale(r, (void *)&c->scaling));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 7-point Laplacian (lap3d), 5-point Laplacian (lap2d) or convection-diffusion (convdiff) on the n^d grid, scaled;
   AIJ or -mat_type */
static PetscErrorCode BuildMatrix(MPI_Comm comm, Ctx *c, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MSTestCreateLaplacian(comm, c->n, c->n, c->prob == PROB_LAP3D ? c->n : 1, NULL, ModifyRow, c, MATAIJ, A));
  if (c->prob != PROB_CONVDIFF && (c->scaling.symmetric || c->scaling.sexp == 0)) PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(Mat A, Vec b, Vec xstar, const char *pctype, PetscReal rtol_true, PetscBool print_its, PetscInt *its, PetscBool *ok)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  KSP             ksp;
  PC              pc;
  Vec             x;
  KSPType         ktype;
  PCSide          side;
  MSTestSolveInfo info;
  char            prefix[128];

  PetscFunctionBegin;
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(KSPGetPCSide(ksp, &side));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "  %-6s %s (%s side): ", pctype, ktype, PCSides[side]));
  PetscCall(MSTestSolveReport(ksp, b, x, rtol_true, prefix, &info));
  *its = info.its;
  *ok  = (PetscBool)(info.converged && info.resok);
  if (print_its) PetscCall(PetscPrintf(comm, "    %" PetscInt_FMT " iterations\n", info.its));
  if (!*ok) {
    PetscReal en, xn;

    PetscCall(VecAXPY(x, -1.0, xstar));
    PetscCall(VecNorm(x, NORM_INFINITY, &en));
    PetscCall(VecNorm(xstar, NORM_INFINITY, &xn));
    PetscCall(PetscPrintf(comm, "    relative error %g\n", (double)(en / xn)));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  Ctx       c;
  Mat       A;
  Vec       b, xstar;
  char     *pcs[8];
  PetscInt  npcs = 8, its[8];
  PetscBool ok[8], allok = PETSC_TRUE, flg;
  PetscReal rtol_true = 1e-6, margin = 0.0;
  PetscBool print_its = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  c.prob              = PROB_LAP2D;
  c.n                 = 32;
  c.peclet            = 5.0;
  c.scaling.sexp      = 0.0;
  c.scaling.symmetric = PETSC_FALSE;
  PetscOptionsBegin(comm, NULL, "PCRUIZ solver test options", NULL);
  PetscCall(PetscOptionsEnum("-problem", "problem", NULL, Problems, (PetscEnum)c.prob, (PetscEnum *)&c.prob, NULL));
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, c.n, &c.n, NULL));
  PetscCall(PetscOptionsReal("-sexp", "row and column scaling factors 10^[-sexp,sexp]", NULL, c.scaling.sexp, &c.scaling.sexp, NULL));
  PetscCall(PetscOptionsReal("-peclet", "largest cell Peclet number of convdiff", NULL, c.peclet, &c.peclet, NULL));
  PetscCall(PetscOptionsBool("-symscale", "scale the columns like the rows", NULL, c.scaling.symmetric, &c.scaling.symmetric, NULL));
  PetscCall(PetscOptionsReal("-rtol_true", "bound on the true relative residual", NULL, rtol_true, &rtol_true, NULL));
  PetscCall(PetscOptionsReal("-margin", "check that ruiz needs at most this times jacobi's iterations (0: no comparison)", NULL, margin, &margin, NULL));
  PetscCall(PetscOptionsBool("-print_its", "print the iteration counts (they depend on the summation order)", NULL, print_its, &print_its, NULL));
  PetscCall(PetscOptionsStringArray("-pcs", "preconditioners to compare", NULL, pcs, &npcs, &flg));
  PetscOptionsEnd();
  if (!flg) {
    npcs = 2;
    PetscCall(PetscStrallocpy(PCRUIZ, &pcs[0]));
    PetscCall(PetscStrallocpy(PCJACOBI, &pcs[1]));
  }
  c.N = c.prob == PROB_LAP3D ? c.n * c.n * c.n : c.n * c.n;

  PetscCall(BuildMatrix(comm, &c, &A));
  PetscCall(MatCreateVecs(A, &xstar, &b));
  PetscCall(MSTestVecSetHash(xstar, 7, 3, 1.0, 2.0)); /* x*_i = 1 + U(7 i + 3) */
  PetscCall(MatMult(A, xstar, b));
  PetscCall(PetscPrintf(comm, "%s, %" PetscInt_FMT " unknowns, row%s scalings 10^[-%g,%g]:\n", Problems[c.prob], c.N, c.scaling.symmetric ? " (= column)" : " and column", (double)c.scaling.sexp, (double)c.scaling.sexp));
  for (PetscInt k = 0; k < npcs; k++) {
    PetscCall(Solve(A, b, xstar, pcs[k], rtol_true, print_its, &its[k], &ok[k]));
    allok = (PetscBool)(allok && ok[k]);
  }
  for (PetscInt k = 1; k < npcs; k++) {
    PetscBool isruiz, isother;

    PetscCall(PetscStrcmp(pcs[0], PCRUIZ, &isruiz));
    PetscCall(PetscStrcmp(pcs[k], PCJACOBI, &isother));
    /* the comparison is the point of the badly scaled problems, with a margin wide enough that rounding (BLAS,
       host or GPU) cannot flip it; on a well scaled Laplacian ruiz and jacobi are nearly the same preconditioner */
    if (isruiz && isother && margin > 0) PetscCall(PetscPrintf(comm, "  ruiz needs at most %g x jacobi's iterations: %s\n", (double)margin, its[0] <= margin * its[k] ? "yes" : "NO"));
  }
  PetscCall(PetscPrintf(comm, "  every solve converged with a small true residual: %s\n", allok ? "yes" : "NO"));
  for (PetscInt k = 0; k < npcs; k++) PetscCall(PetscFree(pcs[k]));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xstar));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # No iteration count is printed (it depends on the summation order: BLAS, host or GPU); the tests assert
   # convergence, the true residual and, on the badly scaled systems, that ruiz needs at most a stated fraction
   # of jacobi's iterations. The GPU variants share the host outputs.

   # 7-point Laplacian: CG, BiCGSTAB, GMRES(30) with ruiz (symmetric mode: the matrix is flagged), jacobi, none
   test:
     suffix: lap3d
     nsize: {{1 3}}
     args: -problem lap3d -n 12 -pcs ruiz,jacobi,none -ksp_type {{cg bcgs gmres}separate output}
   testset:
     requires: cuda
     nsize: {{1 3}}
     args: -problem lap3d -n 12 -pcs ruiz,jacobi,none -mat_type {{modsell aijcusparse}}
     test:
       suffix: cuda_lap3d_cg
       args: -ksp_type cg
       output_file: output/ex2_lap3d_ksp_type-cg.out
     test:
       suffix: cuda_lap3d_bcgs
       args: -ksp_type bcgs
       output_file: output/ex2_lap3d_ksp_type-bcgs.out
     test:
       suffix: cuda_lap3d_gmres
       args: -ksp_type gmres
       output_file: output/ex2_lap3d_ksp_type-gmres.out

   # badly scaled SPD 5-point Laplacian (D L D, D spread over 1e-3..1e3): CG (without a preconditioner it
   # does not converge in 5000 iterations)
   test:
     suffix: lap2d_scaled
     nsize: {{1 3}}
     args: -problem lap2d -n 24 -sexp 3 -symscale -ksp_type cg -rtol_true 1e-4
     output_file: output/ex2_lap2d_scaled.out
   test:
     suffix: cuda_lap2d_scaled
     requires: cuda
     nsize: {{1 3}}
     args: -problem lap2d -n 24 -sexp 3 -symscale -ksp_type cg -rtol_true 1e-4 -mat_type modsell
     output_file: output/ex2_lap2d_scaled.out

   # badly scaled nonsymmetric system (convection-diffusion, rows and columns scaled by factors spread over
   # 1e-6..1e6): with GMRES(30), right and symmetric preconditioning, ruiz needs at most 0.8 x jacobi's
   # iterations (measured: 0.41-0.56); BiCGSTAB converges with both (its counts vary with rounding: no comparison)
   test:
     suffix: convdiff_gmres
     nsize: {{1 3}}
     args: -problem convdiff -n 32 -sexp 6 -peclet 20 -ksp_type gmres -margin 0.8 -ksp_pc_side {{right symmetric}separate output}
   test:
     suffix: cuda_convdiff_right
     requires: cuda
     nsize: {{1 3}}
     args: -problem convdiff -n 32 -sexp 6 -peclet 20 -ksp_type gmres -margin 0.8 -ksp_pc_side right -mat_type modsell
     output_file: output/ex2_convdiff_gmres_ksp_pc_side-right.out
   test:
     suffix: cuda_convdiff_symmetric
     requires: cuda
     nsize: {{1 3}}
     args: -problem convdiff -n 32 -sexp 6 -peclet 20 -ksp_type gmres -margin 0.8 -ksp_pc_side symmetric -mat_type modsell
     output_file: output/ex2_convdiff_gmres_ksp_pc_side-symmetric.out
   test:
     suffix: convdiff_bcgs
     nsize: {{1 3}}
     args: -problem convdiff -n 32 -sexp 6 -peclet 5 -ksp_type bcgs -ksp_pc_side right -mat_type {{aij modsell}}
     output_file: output/ex2_convdiff_bcgs.out
   test:
     suffix: cuda_convdiff_bcgs
     requires: cuda
     nsize: {{1 3}}
     args: -problem convdiff -n 32 -sexp 6 -peclet 5 -ksp_type bcgs -ksp_pc_side right -mat_type modsell
     output_file: output/ex2_convdiff_bcgs.out

TEST*/
