static char help[] = "PCBJSMOOTH in solvers: Krylov methods preconditioned by PCBJSMOOTH, KSPRICHARDSON with PCBJSMOOTH\n\
(PCApplyRichardson), and PCGAMG/PCMG with PCBJSMOOTH level smoothers (-mg_levels_pc_type bjsmooth), on the 7-point\n\
Laplacian of an n^3 grid (SPD, flagged). Residual norms are unpreconditioned. The solver comes from the options (-ksp_type, -pc_type, ...). Prints whether\n\
it converged, whether the true residual meets the tolerance, and (-compare <pc>) whether it needed fewer iterations\n\
than the same KSP with that preconditioner.\n\
Options: -n <12>, -compare <none>: a second solve with -ksp_type as given and this PC type (none: no comparison).\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <mstestpc.h> /* tests/include: MSTestCreateLaplacian(), MSTestSolveReport() */

/* KSP from the options (-ksp_type, -pc_type, ...; pctype: this PC type instead), rtol 1e-8, unpreconditioned norm */
static PetscErrorCode CreateKSP(Mat A, const char *pctype, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(*ksp));
  if (pctype) {
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, pctype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm        comm;
  Mat             A;
  Vec             b, x;
  KSP             ksp;
  PetscInt        n = 12;
  char            compare[64] = "none";
  PetscReal       rtol;
  PetscBool       cmp;
  MSTestSolveInfo info, info2;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "PCBJSMOOTH solver test options", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-compare", "PC type for a comparison solve (none: no comparison)", NULL, compare, compare, sizeof(compare), NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrcmp(compare, "none", &cmp));
  cmp = (PetscBool)!cmp;

  PetscCall(MSTestCreateLaplacian(comm, n, n, n, NULL, NULL, NULL, MATAIJ, &A));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));

  /* the true residual within 10 rtol (the recursive residual of the KSP is within rtol) */
  PetscCall(CreateKSP(A, NULL, &ksp));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(MSTestSolveReport(ksp, b, x, 10 * rtol, "", &info));
  PetscCall(KSPDestroy(&ksp));
  if (cmp) {
    PetscCall(CreateKSP(A, compare, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(MSTestSolveCheck(ksp, b, x, 10 * rtol, &info2));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(PetscPrintf(comm, "fewer iterations than with -pc_type %s (which %s): %s\n", compare, info2.converged ? "converged" : "did not converge", info.its < info2.its ? "yes" : "NO"));
    if (info.its >= info2.its) PetscCall(PetscPrintf(comm, "  %" PetscInt_FMT " >= %" PetscInt_FMT "\n", info.its, info2.its));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # CG with the SPD variants (PETSc's own PCBJACOBI+LU on blocks of 128 rows takes more CG iterations than point
   # Jacobi on this small Laplacian: no iteration comparison here, only convergence to the true tolerance) (default: one outer iteration of 3 inner Jacobi sweeps; symmetric GS; exact-ish
   # inner solves are SPD too but nonlinear in floating point: not used with CG here)
   test:
     suffix: cg
     nsize: {{1 3}}
     args: -ksp_type cg -pc_type bjsmooth -mat_type {{aij modsell}} -pc_bjsmooth_inner {{jacobi sgs}} -pc_bjsmooth_block_size {{32 128}}
     output_file: output/ex2_cg.out
   test:
     suffix: cg_its3
     nsize: {{1 3}}
     args: -ksp_type cg -pc_type bjsmooth -pc_bjsmooth_its 3 -pc_bjsmooth_inner_its 1
     output_file: output/ex2_cg.out

   # nonlinear variants with flexible methods
   test:
     suffix: fcg
     nsize: {{1 3}}
     args: -ksp_type fcg -pc_type bjsmooth -pc_bjsmooth_inner cg -pc_bjsmooth_inner_its 20 -pc_bjsmooth_inner_rtol 1e-3
     output_file: output/ex2_cg.out
   test:
     suffix: fgmres_async
     nsize: {{1 3}}
     args: -ksp_type fgmres -pc_type bjsmooth -pc_bjsmooth_async -pc_bjsmooth_its 2
     output_file: output/ex2_cg.out
   test:
     suffix: gmres_gs
     nsize: {{1 3}}
     args: -ksp_type gmres -ksp_pc_side right -pc_type bjsmooth -pc_bjsmooth_inner gs -pc_bjsmooth_inner_its 2
     output_file: output/ex2_cg.out

   # smoother: Richardson through PCApplyRichardson (no tolerance test inside: runs -ksp_max_it sweeps), and GAMG
   # with bjsmooth level smoothers (Richardson and Chebyshev levels), which must beat CG + point Jacobi
   test:
     suffix: richardson
     nsize: {{1 3}}
     args: -n 8 -ksp_type richardson -ksp_max_it 400 -pc_type bjsmooth -pc_bjsmooth_inner sgs -ksp_rtol 1e-6 -compare none
   test:
     suffix: gamg
     nsize: {{1 3}}
     args: -ksp_type cg -pc_type gamg -mg_levels_ksp_type {{richardson chebyshev}} -mg_levels_pc_type bjsmooth -mg_levels_pc_bjsmooth_inner sgs -mat_type {{aij modsell}} -compare jacobi
     output_file: output/ex2_gamg.out

   testset:
     requires: cuda
     output_file: output/ex2_cg.out
     test:
       suffix: cuda_cg
       nsize: {{1 3}}
       args: -ksp_type cg -pc_type bjsmooth -mat_type {{modsell aijcusparse}} -pc_bjsmooth_inner {{jacobi sgs}} -pc_bjsmooth_block_size {{32 128}}
     test:
       suffix: cuda_fcg
       nsize: {{1 3}}
       args: -ksp_type fcg -pc_type bjsmooth -pc_bjsmooth_inner cg -pc_bjsmooth_inner_its 20 -pc_bjsmooth_inner_rtol 1e-3 -mat_type modsell
     test:
       suffix: cuda_fgmres_async
       nsize: {{1 3}}
       args: -ksp_type fgmres -pc_type bjsmooth -pc_bjsmooth_async -pc_bjsmooth_its 2 -mat_type modsell
     test:
       suffix: cuda_gamg
       nsize: {{1 3}}
       args: -ksp_type cg -pc_type gamg -mg_levels_ksp_type {{richardson chebyshev}} -mg_levels_pc_type bjsmooth -mg_levels_pc_bjsmooth_inner sgs -mat_type {{modsell aijcusparse}} -compare jacobi
       output_file: output/ex2_gamg.out
   test:
     suffix: cuda_richardson
     requires: cuda
     nsize: {{1 3}}
     args: -n 8 -ksp_type richardson -ksp_max_it 400 -pc_type bjsmooth -pc_bjsmooth_inner sgs -ksp_rtol 1e-6 -compare none -mat_type modsell
     output_file: output/ex2_richardson.out

TEST*/
