static char help[] = "SpMV and the plugin's preconditioners, setup and apply, on one problem: the timings that\n\
bench/compare-builds.sh compares between two builds of the plugin.\n\
The 7-point Laplacian (Dirichlet boundary eliminated) on an n^3 DMDA, flagged symmetric positive definite, its matrix\n\
and vectors of the DM's types (-dm_mat_type modsell -dm_vec_type cuda). Uses PETSc's API only: the plugin comes from\n\
-dll_append, so one executable times two builds of it.\n\
  -n <n>              grid points per side (default 128)\n\
  -pcs <list>         preconditioners, comma separated (default ruiz,bjsmooth,brbilu,bisai,neumann)\n\
  -samples <s>        timed samples of each quantity, the median printed (default 5)\n\
  -its <k>            products or applications per sample (default 20)\n\
  -timings <bool>     print the times (default true; false: only what every correct build prints)\n\
Each PC's own options (-pc_brbilu_..., -pc_bjsmooth_...) apply to it.\n";

/* What is timed, after an untimed warm-up of the same work (first-use costs of the process and the GPU):
     spmv_ms            one MatMult, the median over the samples of (k products between device synchronizations) / k
     <pc>_setup_ms      PCSetUp() of a new PC on the operator (PCCreate ... PCSetFromOptions outside the clock)
     <pc>_apply_ms      one PCApply() of that PC, timed as the products are
   Device synchronizations through PetscDeviceContextSynchronize() (no-ops without a device). */

#include <petscdm.h>
#include <petscdmda.h>
#include <petscksp.h>
#include <petscdevice.h>

static PetscErrorCode Sync(void)
{
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

static PetscReal Median(PetscInt n, PetscReal *v)
{
  qsort(v, (size_t)n, sizeof(PetscReal), CompareReal);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static PetscErrorCode AssembleLaplacian(DM da, Mat A)
{
  PetscInt    i, j, k, xs, ys, zs, xm, ym, zm, mx, my, mz;
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, &mz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscInt n = 0;

        row.i = i, row.j = j, row.k = k;
        col[n] = row, v[n++] = 6.0;
        if (i > 0) col[n] = row, col[n].i = i - 1, v[n++] = -1.0;
        if (i < mx - 1) col[n] = row, col[n].i = i + 1, v[n++] = -1.0;
        if (j > 0) col[n] = row, col[n].j = j - 1, v[n++] = -1.0;
        if (j < my - 1) col[n] = row, col[n].j = j + 1, v[n++] = -1.0;
        if (k > 0) col[n] = row, col[n].k = k - 1, v[n++] = -1.0;
        if (k < mz - 1) col[n] = row, col[n].k = k + 1, v[n++] = -1.0;
        PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatSetOption(A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatSetOption(A, MAT_SPD_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the median over the samples of one product (or application) of op, in ms */
static PetscErrorCode TimeOp(PetscErrorCode (*op)(void *, Vec, Vec), void *ctx, Vec x, Vec y, PetscInt samples, PetscInt its, PetscReal *ms)
{
  PetscReal *t;
  PetscInt   s, k;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(samples, &t));
  PetscCall(op(ctx, x, y)); /* warm-up */
  for (s = 0; s < samples; s++) {
    PetscLogDouble t0, t1;

    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    for (k = 0; k < its; k++) PetscCall(op(ctx, x, y));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t[s] = 1e3 * (t1 - t0) / its;
  }
  *ms = Median(samples, t);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Mult(void *ctx, Vec x, Vec y)
{
  return MatMult((Mat)ctx, x, y);
}

static PetscErrorCode Apply(void *ctx, Vec x, Vec y)
{
  return PCApply((PC)ctx, x, y);
}

static PetscErrorCode NewPC(Mat A, const char *type, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetType(*pc, type));
  PetscCall(PCSetFromOptions(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        da;
  Mat       A;
  Vec       x, y;
  PetscInt  n = 128, samples = 5, its = 20, p;
  int       npcs = 0;
  char    **pcs;
  char      list[PETSC_MAX_PATH_LEN] = "ruiz,bjsmooth,brbilu,bisai,neumann";
  PetscBool timings = PETSC_TRUE;
  PetscReal ms;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "SpMV and preconditioner timings", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-pcs", "preconditioners, comma separated", NULL, list, list, sizeof(list), NULL));
  PetscCall(PetscOptionsInt("-samples", "timed samples (median printed)", NULL, samples, &samples, NULL));
  PetscCall(PetscOptionsInt("-its", "products or applications per sample", NULL, its, &its, NULL));
  PetscCall(PetscOptionsBool("-timings", "print the times", NULL, timings, &timings, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2 && samples >= 1 && its >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2, -samples and -its at least 1");
  PetscCall(PetscStrToArray(list, ',', &npcs, &pcs));

  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(AssembleLaplacian(da, A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 1));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  if (timings) {
    MatType mt;
    VecType vt;

    PetscCall(MatGetType(A, &mt));
    PetscCall(VecGetType(x, &vt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: 7-point Laplacian on a %" PetscInt_FMT "^3 grid, matrix %s, vectors %s\n", n, mt, vt));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: 7-point Laplacian on a %" PetscInt_FMT "^3 grid\n", n));

  PetscCall(TimeOp(Mult, A, x, y, samples, its, &ms));
  if (timings) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spmv_ms %.6f\n", (double)ms));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spmv: timed\n"));

  for (p = 0; p < npcs; p++) {
    PC        pc;
    PetscReal *t, setup, nrm;
    PetscInt   s;

    /* untimed warm-up: a whole PC's setup and one application */
    PetscCall(NewPC(A, pcs[p], &pc));
    PetscCall(PCSetUp(pc));
    PetscCall(PCApply(pc, x, y));
    PetscCall(PCDestroy(&pc));
    PetscCall(PetscMalloc1(samples, &t));
    for (s = 0; s < samples; s++) {
      PetscLogDouble t0, t1;

      PetscCall(NewPC(A, pcs[p], &pc));
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(PCSetUp(pc));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      t[s] = 1e3 * (t1 - t0);
      if (s < samples - 1) PetscCall(PCDestroy(&pc));
    }
    setup = Median(samples, t);
    PetscCall(PetscFree(t));
    PetscCall(TimeOp(Apply, pc, x, y, samples, its, &ms));
    PetscCall(VecNorm(y, NORM_2, &nrm));
    PetscCheck(!PetscIsInfOrNanReal(nrm) && nrm > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the application gave ||z|| = %g", pcs[p], (double)nrm);
    if (timings) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s_setup_ms %.6f\n%s_apply_ms %.6f\n", pcs[p], (double)setup, pcs[p], (double)ms));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: setup and apply timed, ||z|| finite and positive\n", pcs[p]));
    PetscCall(PCDestroy(&pc));
  }

  PetscCall(PetscStrToArrayDestroy(npcs, pcs));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
      requires: double !complex

   test:
      suffix: lap
      nsize: {{1 2}}
      args: -n 8 -samples 2 -its 2 -timings 0 -dm_mat_type modsell -dll_append ${PETSCMODSELL_LIB}
      output_file: output/pcbench_lap.out

   test:
      suffix: cuda
      requires: cuda
      nsize: {{1 2}}
      args: -n 8 -samples 2 -its 2 -timings 0 -dm_mat_type modsell -dm_vec_type cuda -dll_append ${PETSCMODSELL_LIB}
      output_file: output/pcbench_lap.out

TEST*/
