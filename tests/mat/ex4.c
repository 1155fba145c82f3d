static char help[] = "KSP solves with MATMODSELL against AIJ: the same Krylov method and preconditioner (default CG +\n\
Jacobi, change with -ksp_type/-pc_type) on the same right-hand side must take the same number of\n\
iterations and give the same solution. Matrices from mstest.h (-kind, sizes, -row_weights), or with\n\
-dmda from DMCreateMatrix() on a DMDA (-da_grid_x/-da_grid_y, -dm_mat_type for the MATMODSELL one).\n";

#include <mstest.h>
#include <petscdmda.h>

/* b_i = a deterministic function of the global index */
static PetscErrorCode FillRHS(Vec b)
{
  PetscInt     rs, re;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(b, &rs, &re));
  PetscCall(PetscMalloc1(re - rs + 1, &v));
  for (PetscInt i = rs; i < re; i++) v[i - rs] = MSTestPairHash(i, 3 * i + 1) - 0.3;
  for (PetscInt i = rs; i < re; i++) PetscCall(VecSetValue(b, i, v[i - rs], INSERT_VALUES));
  PetscCall(PetscFree(v));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* solve A x = b with vectors from MSTestCreateVecs(A) */
static PetscErrorCode Solve(Mat A, Vec *x, PetscInt *its, KSPConvergedReason *reason)
{
  KSP ksp;
  PC  pc;
  Vec b;

  PetscFunctionBegin;
  PetscCall(MSTestCreateVecs(A, x, &b));
  PetscCall(FillRHS(b));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, *x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5-point stencil with perturbed values (as MSTestGenLaplacian), set through MatSetValuesStencil */
static PetscErrorCode FillDMDA(DM da, Mat A)
{
  PetscInt xs, ys, xm, ym, mx, my;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      MatStencil  row = {0}, col[5] = {{0}};
      PetscScalar v[5], d = 0.0;
      PetscInt    n = 0, nb = 0;
      const PetscInt gi = i + mx * j;
      row.i = i;
      row.j = j;
      for (PetscInt q = 0; q < 4; q++) {
        const PetscInt di = q == 0 ? -1 : q == 1 ? 1 : 0, dj = q == 2 ? -1 : q == 3 ? 1 : 0;
        if (i + di < 0 || i + di >= mx || j + dj < 0 || j + dj >= my) continue;
        col[n].i = i + di;
        col[n].j = j + dj;
        v[n]     = -(1.0 + 0.25 * MSTestPairHash(gi, (i + di) + mx * (j + dj)));
        d -= v[n];
        n++;
        nb++;
      }
      col[n].i = i;
      col[n].j = j;
      v[n]     = d + (PetscScalar)(4 - nb);
      n++;
      PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  MSTestCSR          csr;
  Mat                A, B;
  Vec                xa, xb, r, bb;
  PetscInt           itsa, itsb, nfail = 0;
  KSPConvergedReason ra, rb;
  PetscReal          nxa, nd, nb, nr;
  PetscBool          dmda = PETSC_FALSE, isms;
  DM                 da = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dmda", &dmda, NULL));
  if (dmda) {
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 20, 20, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
    PetscCall(DMSetFromOptions(da));
    PetscCall(DMSetUp(da));
    PetscCall(DMCreateMatrix(da, &B)); /* -dm_mat_type modsell */
    PetscCall(FillDMDA(da, B));
    PetscCall(DMSetMatType(da, MATAIJ));
    PetscCall(DMCreateMatrix(da, &A));
    PetscCall(FillDMDA(da, A));
  } else {
    PetscCall(MSTestGenerate(comm, &csr));
    PetscCall(MSTestCreateMat(comm, &csr, MATAIJ, &A));
    PetscCall(MSTestCreateMat(comm, &csr, NULL, &B)); /* MatSetType(MATMODSELL) + MatSetFromOptions() */
    PetscCall(MSTestCSRDestroy(&csr));
  }
  PetscCall(MSTestPrintSplit(B));
  PetscCall(MSTestIsModSELL(B, &isms));
  PetscCall(PetscPrintf(comm, "operator is a MATMODSELL matrix: %s\n", isms ? "yes" : "NO"));
  if (!isms) nfail++;
  if (dmda) { /* the layout: with -mat_modsell_ordering bricks more couplings are inside a slice */
    MatModSELLInfo     info;
    MatModSELLOrdering o;

    PetscCall(MatModSELLGetOrdering(B, &o));
    PetscCall(MatModSELLGetInfo(B, &info));
    PetscCall(PetscPrintf(comm, "ordering %s, applied %s: off-diagonals read from shared memory %.1f%%\n", MatModSELLOrderings[o], MatModSELLOrderings[info.ordering], 100.0 * (double)info.local_fraction));
  }

  PetscCall(Solve(A, &xa, &itsa, &ra));
  PetscCall(Solve(B, &xb, &itsb, &rb));

  /* difference of the solutions, on the host */
  {
    Vec       xh;
    PetscInt  rs, re;
    const PetscScalar *a;

    PetscCall(VecDuplicate(xa, &xh));
    PetscCall(VecGetOwnershipRange(xb, &rs, &re));
    PetscCall(VecGetArrayRead(xb, &a));
    for (PetscInt i = rs; i < re; i++) PetscCall(VecSetValue(xh, i, a[i - rs], INSERT_VALUES));
    PetscCall(VecRestoreArrayRead(xb, &a));
    PetscCall(VecAssemblyBegin(xh));
    PetscCall(VecAssemblyEnd(xh));
    PetscCall(VecNorm(xa, NORM_2, &nxa));
    PetscCall(VecAXPY(xh, -1.0, xa));
    PetscCall(VecNorm(xh, NORM_2, &nd));
    /* true residual of the MATMODSELL solution, computed with AIJ */
    PetscCall(VecAXPY(xh, 1.0, xa));
    PetscCall(MatCreateVecs(A, NULL, &r));
    PetscCall(VecDuplicate(r, &bb));
    PetscCall(FillRHS(bb));
    PetscCall(MatMult(A, xh, r));
    PetscCall(VecAYPX(r, -1.0, bb));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(bb, NORM_2, &nb));
    PetscCall(VecDestroy(&xh));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&bb));
  }
  PetscCall(PetscPrintf(comm, "AIJ: converged %s, more than 10 iterations %s\n", ra > 0 ? "yes" : "NO", itsa > 10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "MATMODSELL: converged %s, same iteration count as AIJ %s\n", rb > 0 ? "yes" : "NO", itsa == itsb ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "solutions agree (relative difference < 1e-7): %s\n", nd <= 1e-7 * nxa ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "MATMODSELL solution's true relative residual < 1e-8: %s\n", nr <= 1e-8 * nb ? "yes" : "NO"));
  if (ra <= 0 || rb <= 0 || itsa != itsb || itsa <= 10 || nd > 1e-7 * nxa || nr > 1e-8 * nb) {
    nfail++;
    PetscCall(PetscPrintf(comm, "FAILED: iterations AIJ %" PetscInt_FMT " MATMODSELL %" PetscInt_FMT ", reasons %s %s, relative difference %g, relative residual %g\n", itsa, itsb, KSPConvergedReasons[ra], KSPConvergedReasons[rb], (double)(nd / nxa), (double)(nr / nb)));
  }
  PetscCall(PetscPrintf(comm, "%s\n", nfail ? "FAILED" : "OK"));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&xb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # CG + Jacobi (Jacobi uses MatGetDiagonal)
   test:
     suffix: lap2d
     args: -kind lap2d -nx 40 -ny 37
   test:
     suffix: lap2d_3
     nsize: 3
     args: -kind lap2d -nx 40 -ny 37 -row_weights 3,1,0 -mat_modsell_slice_height 32
   test:
     suffix: lap3d
     args: -kind lap3d -nx 14 -ny 13 -nz 12 -mat_modsell_ordering rcm
   test:
     suffix: lap3d_3
     nsize: 3
     args: -kind lap3d -nx 14 -ny 13 -nz 12 -row_weights 2,3,0 -mat_modsell_ordering rcm
   test:
     suffix: unstructured_2
     nsize: 2
     args: -kind unstructured -n 2000 -row_weights 0,1 -mat_modsell_kernel sell -pc_type none
   # nonsymmetric operator, GMRES
   test:
     suffix: random_gmres
     nsize: 2
     args: -kind random -dominant -n 800 -nzr 4 -ksp_type gmres -pc_type jacobi
   # DMCreateMatrix() with -dm_mat_type modsell
   test:
     suffix: dmda_3
     nsize: 3
     args: -dmda -dm_mat_type modsell -da_grid_x 33 -da_grid_y 30 -mat_modsell_slice_height 64

   # the format ordered by bricks of the DMDA's grid (8 x 8 for slices of 64)
   test:
     suffix: dmda_bricks
     nsize: {{1 3}separate output}
     args: -dmda -dm_mat_type modsell -da_grid_x 33 -da_grid_y 30 -mat_modsell_slice_height 64 -mat_modsell_ordering bricks

   testset:
     requires: cuda
     args: -vec_type cuda
     test:
       suffix: cuda_lap2d_3
       nsize: 3
       args: -kind lap2d -nx 40 -ny 37 -row_weights 3,1,0 -mat_modsell_slice_height 32
       output_file: output/ex4_lap2d_3.out
     test:
       suffix: cuda_lap3d
       args: -kind lap3d -nx 14 -ny 13 -nz 12 -mat_modsell_ordering rcm
       output_file: output/ex4_lap3d.out
     test:
       suffix: cuda_dmda_3
       nsize: 3
       args: -dmda -dm_mat_type modsell -da_grid_x 33 -da_grid_y 30 -mat_modsell_slice_height 64
       output_file: output/ex4_dmda_3.out
     test:
       suffix: cuda_dmda_bricks
       args: -dmda -dm_mat_type modsell -da_grid_x 33 -da_grid_y 30 -mat_modsell_slice_height 64 -mat_modsell_ordering bricks
       output_file: output/ex4_dmda_bricks_nsize-1.out
     test:
       suffix: cuda_dmda_bricks_3
       nsize: 3
       args: -dmda -dm_mat_type modsell -da_grid_x 33 -da_grid_y 30 -mat_modsell_slice_height 64 -mat_modsell_ordering bricks
       output_file: output/ex4_dmda_bricks_nsize-3.out

TEST*/
