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

typedef enum {
  PROB_LAP2D,
  PROB_LAP3D,
  PROB_CONVDIFF
} Problem;
static const char *const Problems[] = {"lap2d", "lap3d", "convdiff", "Problem", "PROB_", NULL};

static PetscReal U(unsigned long long i)
{
  unsigned long long z = i * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  z                    = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z                    = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
  Problem   prob;
  PetscInt  n, N;
  PetscReal sexp, peclet;
  PetscBool symscale;
} Ctx;

static PetscReal RowScale(const Ctx *c, PetscInt i)
{
  return c->sexp > 0 ? PetscPowReal(10.0, c->sexp * (2 * U(2 * (unsigned long long)i) - 1)) : 1.0;
}

static PetscReal ColScale(const Ctx *c, PetscInt j)
{
  if (c->symscale) return RowScale(c, j);
  return c->sexp > 0 ? PetscPowReal(10.0, c->sexp * (2 * U(2 * (unsigned long long)j + 1) - 1)) : 1.0;
}

static PetscErrorCode BuildMatrix(const Ctx *c, Mat A)
{
  PetscInt rstart, rend, n = c->n;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    cols[7], nc = 0;
    PetscScalar vals[7];

    if (c->prob == PROB_LAP3D) {
      const PetscInt x = i % n, y = (i / n) % n, z = i / (n * n);
      cols[nc] = i;
      vals[nc++] = 6.0;
      if (x > 0) { cols[nc] = i - 1; vals[nc++] = -1.0; }
      if (x < n - 1) { cols[nc] = i + 1; vals[nc++] = -1.0; }
      if (y > 0) { cols[nc] = i - n; vals[nc++] = -1.0; }
      if (y < n - 1) { cols[nc] = i + n; vals[nc++] = -1.0; }
      if (z > 0) { cols[nc] = i - n * n; vals[nc++] = -1.0; }
      if (z < n - 1) { cols[nc] = i + n * n; vals[nc++] = -1.0; }
    } else {
      const PetscInt  x = i % n, y = i / n;
      const PetscReal h = 1.0 / (n + 1), px = (x + 1) * h, py = (y + 1) * h;
      /* velocity (speed varying over the domain): cell Peclet numbers up to -peclet */
      const PetscReal bx = c->prob == PROB_CONVDIFF ? c->peclet * PetscSqr(PetscSinReal(PETSC_PI * px) * py) : 0.0;
      const PetscReal by = c->prob == PROB_CONVDIFF ? -0.5 * c->peclet * PetscSqr(px) * PetscCosReal(PETSC_PI * py) : 0.0;
      cols[nc] = i;
      vals[nc++] = 4.0;
      if (x > 0) { cols[nc] = i - 1; vals[nc++] = -1.0 - 0.5 * bx; }
      if (x < n - 1) { cols[nc] = i + 1; vals[nc++] = -1.0 + 0.5 * bx; }
      if (y > 0) { cols[nc] = i - n; vals[nc++] = -1.0 - 0.5 * by; }
      if (y < n - 1) { cols[nc] = i + n; vals[nc++] = -1.0 + 0.5 * by; }
    }
    for (PetscInt k = 0; k < nc; k++) vals[k] *= RowScale(c, i) * ColScale(c, cols[k]);
    PetscCall(MatSetValues(A, 1, &i, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (c->prob != PROB_CONVDIFF && (c->symscale || c->sexp == 0)) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(Mat A, Vec b, Vec xstar, const char *pctype, PetscReal rtol_true, PetscBool print_its, PetscInt *its, PetscBool *ok)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  KSP                ksp;
  PC                 pc;
  Vec                x, r;
  KSPConvergedReason reason;
  PetscReal          rn, bn, en, xn;
  KSPType            ktype;
  PCSide             side;

  PetscFunctionBegin;
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(KSPGetPCSide(ksp, &side));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(VecAXPY(x, -1.0, xstar));
  PetscCall(VecNorm(x, NORM_INFINITY, &en));
  PetscCall(VecNorm(xstar, NORM_INFINITY, &xn));
  *ok = (PetscBool)(reason > 0 && rn <= rtol_true * bn);
  if (print_its) PetscCall(PetscPrintf(comm, "  %-6s %s (%s side): %s after %" PetscInt_FMT " iterations, true relative residual <= %g: %s\n", pctype, ktype, PCSides[side], reason > 0 ? "converged" : "NOT converged", *its, (double)rtol_true, rn <= rtol_true * bn ? "yes" : "NO"));
  else PetscCall(PetscPrintf(comm, "  %-6s %s (%s side): %s, true relative residual <= %g: %s\n", pctype, ktype, PCSides[side], reason > 0 ? "converged" : "NOT converged", (double)rtol_true, rn <= rtol_true * bn ? "yes" : "NO"));
  if (!*ok) PetscCall(PetscPrintf(comm, "    reason %s, true relative residual %g, relative error %g\n", KSPConvergedReasons[reason], (double)(rn / bn), (double)(en / xn)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
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
  c.prob     = PROB_LAP2D;
  c.n        = 32;
  c.sexp     = 0.0;
  c.peclet   = 5.0;
  c.symscale = PETSC_FALSE;
  PetscOptionsBegin(comm, NULL, "PCRUIZ solver test options", NULL);
  PetscCall(PetscOptionsEnum("-problem", "problem", NULL, Problems, (PetscEnum)c.prob, (PetscEnum *)&c.prob, NULL));
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, c.n, &c.n, NULL));
  PetscCall(PetscOptionsReal("-sexp", "row and column scaling factors 10^[-sexp,sexp]", NULL, c.sexp, &c.sexp, NULL));
  PetscCall(PetscOptionsReal("-peclet", "largest cell Peclet number of convdiff", NULL, c.peclet, &c.peclet, NULL));
  PetscCall(PetscOptionsBool("-symscale", "scale the columns like the rows", NULL, c.symscale, &c.symscale, NULL));
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

  PetscCall(MatCreate(comm, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, c.N, c.N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 6, NULL));
  PetscCall(BuildMatrix(&c, A));
  PetscCall(MatCreateVecs(A, &xstar, &b));
  {
    PetscInt     rstart, rend;
    PetscScalar *xa;

    PetscCall(VecGetOwnershipRange(xstar, &rstart, &rend));
    PetscCall(VecGetArrayWrite(xstar, &xa));
    for (PetscInt i = rstart; i < rend; i++) xa[i - rstart] = 1.0 + U(7 * (unsigned long long)i + 3);
    PetscCall(VecRestoreArrayWrite(xstar, &xa));
  }
  PetscCall(MatMult(A, xstar, b));
  PetscCall(PetscPrintf(comm, "%s, %" PetscInt_FMT " unknowns, row%s scalings 10^[-%g,%g]:\n", Problems[c.prob], c.N, c.symscale ? " (= column)" : " and column", (double)c.sexp, (double)c.sexp));
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
