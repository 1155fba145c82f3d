static char help[] = "The MPI product's parts, timed: does the halo exchange hide behind the diagonal block's product?\n\
\n\
A 3D 7-point Laplacian on a DMDA (-n N: N^3 rows per process, the grid N x N x N*size, one slab per\n\
process as in bench/scaling.sh's weak step; -da_grid_x/y/z override), matrix type from -dm_mat_type\n\
(modsell, aijcusparse, ...), vectors from -dm_vec_type. Timed, -reps products per sample, -samples\n\
samples, each between a device synchronization and an MPI barrier, median over the samples, max over\n\
the processes:\n\
  mult      MatMult(A, x, y): what a Krylov method sees\n\
  diag      the diagonal block alone: MatMult(Ad, x_local, y_local)\n\
  halo      the halo exchange alone: VecScatterBegin/End of x's ghost values into the ghost vector\n\
  offdiag   the off-diagonal block alone: MatMultAdd(Ao, ghosts, y_local, y_local)\n\
  serial    halo, then diag, then offdiag: the product with nothing overlapped\n\
The exposed halo is mult - diag - offdiag; hidden is serial - mult (0: no overlap). The run first\n\
checks MatMult against diag + offdiag of the same x.\n\n";

/* A stand-in for a timeline where the machine has no nsys: the overlap is read from the times of the parts */

#include <petscmodsell.h>
#include <petscdmda.h>
#include <petsctime.h>

static PetscErrorCode Sync(void)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : x > y;
}

typedef enum {
  PART_MULT,
  PART_DIAG,
  PART_HALO,
  PART_OFFDIAG,
  PART_SERIAL,
  NPARTS
} Part;
static const char *part_name[] = {"mult", "diag", "halo", "offdiag", "serial"};

typedef struct {
  Mat        A, Ad, Ao;
  Vec        x, y, xl, yl, ghost;
  VecScatter halo;
} Ctx;

static PetscErrorCode RunPart(Ctx *c, Part p)
{
  PetscFunctionBegin;
  switch (p) {
  case PART_MULT:
    PetscCall(MatMult(c->A, c->x, c->y));
    break;
  case PART_DIAG:
    PetscCall(MatMult(c->Ad, c->xl, c->yl));
    break;
  case PART_HALO:
    PetscCall(VecScatterBegin(c->halo, c->x, c->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(c->halo, c->x, c->ghost, INSERT_VALUES, SCATTER_FORWARD));
    break;
  case PART_OFFDIAG:
    PetscCall(MatMultAdd(c->Ao, c->ghost, c->yl, c->yl));
    break;
  case PART_SERIAL:
    PetscCall(RunPart(c, PART_HALO));
    PetscCall(RunPart(c, PART_DIAG));
    PetscCall(RunPart(c, PART_OFFDIAG));
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          da;
  Ctx         c;
  PetscMPIInt size, rank;
  PetscInt    n = 64, reps = 100, samples = 5, xs, ys, zs, xm, ym, zm, mx, my, mz, nghost = 0;
  PetscReal   t[NPARTS], *s;
  const PetscInt *garray;
  PetscBool   parallel;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Halo benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "rows per process: n^3", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-reps", "products per sample", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-samples", "samples (the median is reported)", NULL, samples, &samples, NULL));
  PetscOptionsEnd();
  PetscCheck(n > 1 && reps > 0 && samples > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be > 1, -reps and -samples > 0");
  parallel = (PetscBool)(size > 1);

  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n * size, 1, 1, size, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, &mz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMCreateMatrix(da, &c.A));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {.k = k, .j = j, .i = i}, col[7];
        PetscScalar v[7];
        PetscInt    nc = 0;

        col[nc] = row;
        v[nc++] = 6.0;
        if (i > 0) { col[nc] = row; col[nc].i = i - 1; v[nc++] = -1.0; }
        if (i < mx - 1) { col[nc] = row; col[nc].i = i + 1; v[nc++] = -1.0; }
        if (j > 0) { col[nc] = row; col[nc].j = j - 1; v[nc++] = -1.0; }
        if (j < my - 1) { col[nc] = row; col[nc].j = j + 1; v[nc++] = -1.0; }
        if (k > 0) { col[nc] = row; col[nc].k = k - 1; v[nc++] = -1.0; }
        if (k < mz - 1) { col[nc] = row; col[nc].k = k + 1; v[nc++] = -1.0; }
        PetscCall(MatSetValuesStencil(c.A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(c.A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(c.A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(c.A, &c.x, &c.y));
  PetscCall(VecSetRandom(c.x, NULL));

  /* the blocks, their local vectors and the ghost exchange (the same communication pattern as MPIAIJ's) */
  c.halo  = NULL;
  c.ghost = NULL;
  if (parallel) {
    IS  is;
    Vec gh;

    PetscCall(MatMPIAIJGetSeqAIJ(c.A, &c.Ad, &c.Ao, &garray));
    PetscCall(MatGetLocalSize(c.Ao, NULL, &nghost));
    PetscCall(MatCreateVecs(c.Ao, &gh, NULL));
    c.ghost = gh;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_USE_POINTER, &is));
    PetscCall(VecScatterCreate(c.x, is, c.ghost, NULL, &c.halo));
    PetscCall(ISDestroy(&is));
  } else {
    c.Ad = c.A;
    c.Ao = NULL;
  }
  PetscCall(VecCreateLocalVector(c.x, &c.xl));
  PetscCall(VecCreateLocalVector(c.y, &c.yl));

  { /* the parts compute the product */
    Vec       yp;
    PetscReal err, nrm;

    PetscCall(MatMult(c.A, c.x, c.y));
    PetscCall(VecDuplicate(c.y, &yp));
    PetscCall(VecGetLocalVectorRead(c.x, c.xl));
    PetscCall(VecGetLocalVector(yp, c.yl));
    if (parallel) PetscCall(RunPart(&c, PART_HALO));
    PetscCall(RunPart(&c, PART_DIAG));
    if (parallel) PetscCall(RunPart(&c, PART_OFFDIAG));
    PetscCall(VecRestoreLocalVector(yp, c.yl));
    PetscCall(VecRestoreLocalVectorRead(c.x, c.xl));
    PetscCall(VecAXPY(yp, -1.0, c.y));
    PetscCall(VecNorm(yp, NORM_INFINITY, &err));
    PetscCall(VecNorm(c.y, NORM_INFINITY, &nrm));
    PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "diag + offdiag differ from MatMult by %g (|y| %g)", (double)err, (double)nrm);
    PetscCall(VecDestroy(&yp));
  }

  /* timing: the local vectors are views of x and y held for the whole loop */
  PetscCall(VecGetLocalVectorRead(c.x, c.xl));
  PetscCall(VecGetLocalVector(c.y, c.yl));
  PetscCall(PetscMalloc1(samples, &s));
  for (Part p = PART_MULT; p < NPARTS; p++) {
    PetscReal tmax;

    t[p] = 0;
    if (!parallel && p != PART_MULT && p != PART_DIAG) continue;
    for (PetscInt r = 0; r < 3; r++) PetscCall(RunPart(&c, p)); /* warm-up */
    for (PetscInt smp = 0; smp < samples; smp++) {
      PetscLogDouble t0, t1;

      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      for (PetscInt r = 0; r < reps; r++) PetscCall(RunPart(&c, p));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      s[smp] = (PetscReal)(t1 - t0) / reps;
    }
    qsort(s, (size_t)samples, sizeof(PetscReal), CmpReal);
    PetscCallMPI(MPIU_Allreduce(&s[samples / 2], &tmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    t[p] = tmax;
  }
  PetscCall(VecRestoreLocalVector(c.y, c.yl));
  PetscCall(VecRestoreLocalVectorRead(c.x, c.xl));

  {
    MatType   type;
    VecType   vtype;
    PetscInt  gmax;

    PetscCall(MatGetType(c.A, &type));
    PetscCall(VecGetType(c.x, &vtype));
    PetscCallMPI(MPIU_Allreduce(&nghost, &gmax, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "halo: %s, vectors %s, %d process(es), grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT ", %" PetscInt_FMT " rows per process, at most %" PetscInt_FMT " ghost values per process\n", type, vtype, size, mx, my, mz, xm * ym * zm, gmax));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "times per product (ms, median of %" PetscInt_FMT " samples of %" PetscInt_FMT ", max over processes):", samples, reps));
    for (Part p = PART_MULT; p < NPARTS; p++)
      if (parallel || p == PART_MULT || p == PART_DIAG) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %s %.4f", part_name[p], 1e3 * (double)t[p]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    if (parallel)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "exposed halo (mult - diag - offdiag): %.4f ms; hidden (serial - mult): %.4f ms of the halo's %.4f ms (%.0f%%)\n", 1e3 * (double)(t[PART_MULT] - t[PART_DIAG] - t[PART_OFFDIAG]), 1e3 * (double)(t[PART_SERIAL] - t[PART_MULT]), 1e3 * (double)t[PART_HALO],
                            t[PART_HALO] > 0 ? 100.0 * (double)((t[PART_SERIAL] - t[PART_MULT]) / t[PART_HALO]) : 0.0));
  }
  PetscCall(PetscFree(s));
  PetscCall(VecScatterDestroy(&c.halo));
  PetscCall(VecDestroy(&c.ghost));
  PetscCall(VecDestroy(&c.xl));
  PetscCall(VecDestroy(&c.yl));
  PetscCall(VecDestroy(&c.x));
  PetscCall(VecDestroy(&c.y));
  PetscCall(MatDestroy(&c.A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
