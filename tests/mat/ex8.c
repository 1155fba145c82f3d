static char help[] = "MATMODSELL_ORDERING_AUTO (the default ordering): what it chooses and that the chosen image multiplies\n\
like AIJ. Cases: a 3D 7-point Laplacian in its lexicographic numbering (already local: natural) and randomly\n\
renumbered (not local: partition, blocks of 1024 rows, slices of 512, of 1024 under PCBJSMOOTH without a new partition); the same grid from a DMDA, alone (natural) and under PCBJSMOOTH (bricks);\n\
a matrix of at most one slice per process (natural). -vec_type cuda runs the products on the GPU. -sampled: only the\n\
Laplacians of -n_sampled^3 rows (default 66: more than 2048 slices of 128 rows on one process), whose statistic is\n\
counted on evenly spaced slices.\n";

#include <mstest.h>
#include <mstestpc.h>
#include <petscdmda.h>
#include <petscksp.h>

/* the chosen ordering, and MatMult/MatMultAdd/MatGetDiagonal of the MATMODSELL matrix B against the AIJ matrix A */
static PetscErrorCode Report(const char *label, Mat A, Mat B, MatModSELLOrdering expect, PetscBool slicepc, PetscRandom rnd, PetscInt *nfail)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)B);
  MatModSELLInfo info;
  PetscInt       nf0 = *nfail, mrows;

  PetscFunctionBegin;
  PetscCall(MSTestCompareProducts(A, B, rnd, 1e-12, label, nfail));
  PetscCall(MatModSELLGetInfo(B, &info));
  if (info.ordering != expect) {
    PetscCall(PetscPrintf(comm, "FAIL %s: auto chose %s, expected %s\n", label, MatModSELLOrderings[info.ordering], MatModSELLOrderings[expect]));
    (*nfail)++;
  }
  /* the rule: natural at 15% or more in-slice in the matrix's order (when it was computed), else partition */
  if (expect == MATMODSELL_ORDERING_NATURAL && info.natural_local_fraction >= 0 && info.natural_local_fraction < 0.15) {
    PetscCall(PetscPrintf(comm, "FAIL %s: natural kept with %g in-slice\n", label, (double)info.natural_local_fraction));
    (*nfail)++;
  }
  /* a random numbering keeps about sh/m of the entries in their slice: the statistic is counted with slices of 512 under
     PCBJSMOOTH (128 alone), on this process's m rows */
  PetscCall(MatGetLocalSize(B, &mrows, NULL));
  if (expect == MATMODSELL_ORDERING_PARTITION && !(info.natural_local_fraction >= 0 && info.natural_local_fraction < 0.15 + (slicepc ? 512.0 / (PetscReal)PetscMax(mrows, 1) : 0.0))) {
    PetscCall(PetscPrintf(comm, "FAIL %s: partition with %g in-slice\n", label, (double)info.natural_local_fraction));
    (*nfail)++;
  }
  /* no slice height set: the partition ordering takes slices of 512 rows alone, of 1024 under PCBJSMOOTH (its blocks),
     PCBJSMOOTH's bricks 512, the others the default 128 */
  if (info.slice_height != info.slice_height_min || info.slice_height != (expect == MATMODSELL_ORDERING_PARTITION ? (slicepc ? 1024 : 512) : (expect == MATMODSELL_ORDERING_BRICKS ? 512 : 128))) {
    PetscCall(PetscPrintf(comm, "FAIL %s: slice height %" PetscInt_FMT " to %" PetscInt_FMT " with %s\n", label, info.slice_height_min, info.slice_height, MatModSELLOrderings[info.ordering]));
    (*nfail)++;
  }
  /* every slice counted up to 2048 slices per process, else one in nslices / 1024 */
  {
    PetscInt mloc, nsl, smax;

    PetscCall(MatGetLocalSize(B, &mloc, NULL));
    nsl  = (mloc + 127) / 128;
    smax = nsl > 2048 ? nsl / 1024 : 1;

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &smax, 1, MPIU_INT, MPI_MAX, comm));
    if (info.natural_local_fraction >= 0 && info.natural_local_stride != smax) {
      PetscCall(PetscPrintf(comm, "FAIL %s: statistic counted on one slice in %" PetscInt_FMT ", expected %" PetscInt_FMT "\n", label, info.natural_local_stride, smax));
      (*nfail)++;
    }
  }
  PetscCall(PetscPrintf(comm, "%s: auto chose %s%s; products %s\n", label, MatModSELLOrderings[info.ordering], info.natural_local_stride > 1 ? " (statistic sampled)" : "", *nfail == nf0 ? "equal AIJ's" : "FAIL"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LaplacianCase(MPI_Comm comm, const char *label, PetscInt n, const PetscInt *perm, MatModSELLOrdering expect, PetscRandom rnd, PetscInt *nfail)
{
  Mat A, B;

  PetscFunctionBegin;
  PetscCall(MSTestCreateLaplacian(comm, n, n, n, perm, NULL, NULL, MATAIJ, &A));
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));
  PetscCall(Report(label, A, B, expect, PETSC_FALSE, rnd, nfail));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The randomly numbered Laplacian under PCBJSMOOTH: the partition made by the first product (blocks of 1024, the image's
   slices of 512) serves the preconditioner: the partition is not made again, the image once (slices of 1024, the
   preconditioner's blocks) at most (ModSELLPartition and ModSELLBuild events per process) */
static PetscErrorCode PartitionUnderBJSmooth(MPI_Comm comm, PetscInt n, const PetscInt *perm, PetscRandom rnd, PetscInt *nfail)
{
  const char        *label = "7-point Laplacian, randomly numbered, under PCBJSMOOTH";
  Mat                A, B;
  Vec                x, y;
  KSP                ksp;
  PC                 pc;
  PetscLogEvent      ev[2];
  PetscEventPerfInfo p0[2], p1[2];
  PetscInt           again, bs;

  PetscFunctionBegin;
  PetscCall(MSTestCreateLaplacian(comm, n, n, n, perm, NULL, NULL, MATAIJ, &A));
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateVecs(B, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(B, x, y)); /* the image */
  PetscCall(PetscLogEventGetId("ModSELLPartition", &ev[0]));
  PetscCall(PetscLogEventGetId("ModSELLBuild", &ev[1]));
  for (int e = 0; e < 2; e++) PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev[e], &p0[e]));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, B, B));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCBJSMOOTH));
  PetscCall(KSPSetUp(ksp));
  PetscCall(MatMult(B, x, y));
  for (int e = 0; e < 2; e++) PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev[e], &p1[e]));
  again = (p1[0].count != p0[0].count) + 2 * (p1[1].count > p0[1].count + 1);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &again, 1, MPIU_INT, MPI_MAX, comm));
  if (again) {
    PetscCall(PetscPrintf(comm, "FAIL %s: the preconditioner made the %s again\n", label, again == 1 ? "partition" : (again == 2 ? "image more than once" : "partition and the image")));
    (*nfail)++;
  }
  PetscCall(PCBJSmoothGetBlockSize(pc, &bs));
  if (bs != 1024) {
    PetscCall(PetscPrintf(comm, "FAIL %s: blocks of %" PetscInt_FMT " rows, not the image's 1024\n", label, bs));
    (*nfail)++;
  }
  { /* the inner sweeps follow the block size: 8 for blocks of 1024 */
    PetscInt iits;

    PetscCall(PCBJSmoothGetInner(pc, NULL, &iits, NULL));
    if (iits != 8) {
      PetscCall(PetscPrintf(comm, "FAIL %s: %" PetscInt_FMT " inner sweeps on blocks of 1024, not 8\n", label, iits));
      (*nfail)++;
    }
  }
  PetscCall(Report(label, A, B, MATMODSELL_ORDERING_PARTITION, PETSC_TRUE, rnd, nfail));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a DMDA matrix; with bjsmooth, a KSP with PCBJSMOOTH is set up on it first (the PC tells the matrix) */
static PetscErrorCode DMDACase(MPI_Comm comm, const char *label, PetscInt n, PetscBool bjsmooth, MatModSELLOrdering expect, PetscRandom rnd, PetscInt *nfail)
{
  DM  da;
  Mat A, B;
  KSP ksp;

  PetscFunctionBegin;
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATMODSELL));
  PetscCall(DMCreateMatrix(da, &B));
  {
    PetscInt xs, ys, zs, xm, ym, zm;
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    for (PetscInt k = zs; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
          MatStencil  row = {.k = k, .j = j, .i = i}, col[7];
          PetscScalar v[7];
          PetscInt    nc = 0;
          col[nc] = row;
          v[nc++] = 6.0;
          for (PetscInt d = 0; d < 6; d++) {
            MatStencil c  = row;
            const int  sg = d % 2 ? 1 : -1;
            if (d / 2 == 0) c.i += sg;
            else if (d / 2 == 1) c.j += sg;
            else c.k += sg;
            if (c.i < 0 || c.j < 0 || c.k < 0 || c.i >= n || c.j >= n || c.k >= n) continue;
            col[nc] = c;
            v[nc++] = -1.0 - 0.01 * d;
          }
          PetscCall(MatSetValuesStencil(B, 1, &row, nc, col, v, INSERT_VALUES));
        }
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (bjsmooth) {
    PC pc;
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, B, B));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCBJSMOOTH));
    PetscCall(KSPSetUp(ksp));
  }
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &A));
  PetscCall(Report(label, A, B, expect, bjsmooth, rnd, nfail));
  if (bjsmooth) PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscRandom rnd;
  PetscInt    n = 20, ns = 66, nfail = 0, *perm;
  PetscBool   sampled = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* event counts */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-sampled", &sampled, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n_sampled", &ns, NULL));
  PetscCall(MSTestRandomCreate(comm, &rnd));
  if (sampled) {
    PetscCall(LaplacianCase(comm, "7-point Laplacian, lexicographic, more than 2048 slices", ns, NULL, MATMODSELL_ORDERING_NATURAL, rnd, &nfail));
    PetscCall(MSTestRandomPermutation(ns * ns * ns, 7, &perm));
    PetscCall(LaplacianCase(comm, "7-point Laplacian, randomly numbered, more than 2048 slices", ns, perm, MATMODSELL_ORDERING_PARTITION, rnd, &nfail));
    PetscCall(PetscFree(perm));
    PetscCall(PetscPrintf(comm, "%s\n", nfail ? "FAILED" : "all checks passed"));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(LaplacianCase(comm, "7-point Laplacian, lexicographic", n, NULL, MATMODSELL_ORDERING_NATURAL, rnd, &nfail));
  PetscCall(MSTestRandomPermutation(n * n * n, 7, &perm));
  PetscCall(LaplacianCase(comm, "7-point Laplacian, randomly numbered", n, perm, MATMODSELL_ORDERING_PARTITION, rnd, &nfail));
  PetscCall(PartitionUnderBJSmooth(comm, n, perm, rnd, &nfail));
  PetscCall(PetscFree(perm));
  PetscCall(LaplacianCase(comm, "7-point Laplacian, at most one slice per process", 5, NULL, MATMODSELL_ORDERING_NATURAL, rnd, &nfail));
  PetscCall(DMDACase(comm, "DMDA matrix", n, PETSC_FALSE, MATMODSELL_ORDERING_NATURAL, rnd, &nfail));
  PetscCall(DMDACase(comm, "DMDA matrix under PCBJSMOOTH", n, PETSC_TRUE, MATMODSELL_ORDERING_BRICKS, rnd, &nfail));
  PetscCall(PetscPrintf(comm, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: !complex !single

   test:
     suffix: 1
     output_file: output/ex8_1.out

   test:
     suffix: sampled
     args: -sampled

   test:
     suffix: 3
     nsize: 3
     output_file: output/ex8_1.out

   testset:
     requires: cuda
     args: -vec_type cuda
     test:
       suffix: cuda_1
       output_file: output/ex8_1.out
     test:
       suffix: cuda_3
       nsize: 3
       output_file: output/ex8_1.out

TEST*/
