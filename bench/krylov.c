/*
   bench/krylov: the time of a CG iteration, PETSc's KSPCG against the plugin's KSPCGDEVICE, on an ex45-like problem (the
   7-point Laplacian on an N^3 DMDA, Dirichlet rows as identity rows like PETSc's ex45), PC Jacobi, for every matrix type
   of -mat_types (aijcusparse and modsell with CUDA, aij and modsell without).

   The matrix is assembled once (MATAIJ, from the DMDA) and converted to each type. Every (matrix type, KSP type)
   configuration gets its own KSP and warm-up solve (the GPU image, the first kernels, the CUDA graphs); then -rounds
   rounds of timed solves, alternated over the configurations within each round:
     - a converged solve to -ksp_rtol (default 1e-5, as ex45): its iterations and its time per iteration T / its;
     - two solves of exactly A and B iterations (-ksp_rtol 1e-30 keeps them going): (T_B - T_A) / (B - A), the time
       of one iteration without the solve's fixed costs.
   Each solve is timed between device synchronizations (maximum over the processes). The figures printed are the
   medians over the rounds (and their range).

   The byte floor of a CG iteration: what a fused iteration must move, 12 bytes per nonzero (value and column index)
   and 104 bytes per row (13 vector passes of 8 bytes: p = z + b p: 3, w = A p: 2, x, r, z update with Jacobi: 8), over
   the copy bandwidth measured here (VecCopy() of a vector of max(n, -bw_n) rows, timed over -bw_reps copies; a copy
   moves 16 bytes per row). Printed per configuration as the ratio time per iteration / floor.

   Variants: a matrix type may carry a MATMODSELL ordering (modsell:partition, modsell:rcm, modsell:bricks: a permuted
   image, which KSPCGDEVICE runs in the image's numbering), a KSP type the single-reduction form (cgdevice+sr: one kernel
   per iteration with a MATSEQAIJMODSELL operator and Jacobi on one process).

     build/bin/bench/krylov -n 256 -dll_append build/lib/libpetscmodsell.so           (or linked: it initializes the plugin)
     build/bin/bench/krylov -n 96 -rounds 5 -its 50,250 -log_view
     build/bin/bench/krylov -n 96 -mat_types modsell,modsell:partition -ksp_types cg,cgdevice,cgdevice+sr
*/
static const char help[] = "CG + Jacobi on the 7-point Laplacian of an N^3 grid: KSPCG against KSPCGDEVICE per matrix type.\n\
  -n <N> grid points per direction (default 96); -mat_types <list> (type[:ordering], e.g. modsell:partition);\n\
  -ksp_types <list> (default cg,cgdevice; cgdevice+sr: the single-reduction form);\n\
  -rounds <r> timed rounds (default 3); -its A,B the iteration counts of the differential solves (default 50,250);\n\
  -bw_n <rows> (default 2^25) and -bw_reps <k> (default 20): the copy bandwidth's vector and copies.\n\
  Other KSP options (-ksp_rtol, -ksp_device_graph, -ksp_device_check_max, ...) apply to every configuration.\n";

#include <petscmodsell.h>
#include <petscdmda.h>
#include <petscdevice.h>
#include <petsctime.h>

/* ex45's operator on the DMDA: 7-point, scaled by the cell sizes; boundary rows the identity times their diagonal */
static PetscErrorCode AssembleLaplacian(DM da, Mat A)
{
  PetscInt    mx, my, mz, xs, ys, zs, xm, ym, zm;
  PetscScalar hx, hy, hz, hxhydhz, hxhzdhy, hyhzdhx;
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, &mz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  hx      = 1.0 / (PetscReal)(mx - 1);
  hy      = 1.0 / (PetscReal)(my - 1);
  hz      = 1.0 / (PetscReal)(mz - 1);
  hxhydhz = hx * hy / hz;
  hxhzdhy = hx * hz / hy;
  hyhzdhx = hy * hz / hx;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        row.i = i;
        row.j = j;
        row.k = k;
        if (i == 0 || j == 0 || k == 0 || i == mx - 1 || j == my - 1 || k == mz - 1) {
          v[0] = 2.0 * (hxhydhz + hxhzdhy + hyhzdhx);
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, v, INSERT_VALUES));
        } else {
          const PetscInt di[7] = {0, 0, 0, 0, -1, 1, 0}, dj[7] = {0, 0, -1, 1, 0, 0, 0}, dk[7] = {-1, 1, 0, 0, 0, 0, 0};
          const PetscScalar w[7] = {-hxhydhz, -hxhydhz, -hxhzdhy, -hxhzdhy, -hyhzdhx, -hyhzdhx, 2.0 * (hxhydhz + hxhzdhy + hyhzdhx)};
          for (int e = 0; e < 7; e++) {
            col[e].i = i + di[e];
            col[e].j = j + dj[e];
            col[e].k = k + dk[e];
            v[e]     = w[e];
          }
          PetscCall(MatSetValuesStencil(A, 1, &row, 7, col, v, INSERT_VALUES));
        }
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Sync(MPI_Comm comm)
{
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one solve of at most maxit iterations (rtol: the solve's; 0: 1e-30, a solve of exactly maxit), timed */
static PetscErrorCode TimedSolve(KSP ksp, Vec b, Vec x, PetscReal rtol, PetscInt maxit, PetscLogDouble *t, PetscInt *its, KSPConvergedReason *reason)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(KSPSetTolerances(ksp, rtol > 0 ? rtol : 1e-30, PETSC_CURRENT, PETSC_CURRENT, maxit));
  PetscCall(VecZeroEntries(x));
  PetscCall(Sync(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Sync(comm));
  PetscCall(PetscTime(&t1));
  *t = t1 - t0;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the copy bandwidth in bytes per second: VecCopy() of a vector like x of max(local rows, nbw) rows per process */
static PetscErrorCode CopyBandwidth(Vec x, PetscInt nbw, PetscInt reps, PetscLogDouble *bw)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)x);
  Vec            a, c;
  VecType        type;
  PetscInt       n;
  PetscLogDouble t0, t1, bytes;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  n = PetscMax(n, nbw);
  PetscCall(VecGetType(x, &type));
  PetscCall(VecCreate(comm, &a));
  PetscCall(VecSetSizes(a, n, PETSC_DECIDE));
  PetscCall(VecSetType(a, type));
  PetscCall(VecDuplicate(a, &c));
  PetscCall(VecSet(a, 1.0));
  PetscCall(VecCopy(a, c)); /* warm */
  PetscCall(Sync(comm));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < reps; k++) PetscCall(VecCopy(k % 2 ? c : a, k % 2 ? a : c));
  PetscCall(Sync(comm));
  PetscCall(PetscTime(&t1));
  bytes = 16.0 * (PetscLogDouble)n * (PetscLogDouble)reps; /* per process */
  *bw   = bytes / (t1 - t0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, bw, 1, MPI_DOUBLE, MPI_MIN, comm));
  PetscCall(VecDestroy(&a));
  PetscCall(VecDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscLogDouble Median(PetscInt n, PetscLogDouble *v)
{
  PetscReal r[64];

  for (PetscInt i = 0; i < n; i++) r[i] = (PetscReal)v[i];
  PetscSortReal(n, r);
  return 0.5 * (r[(n - 1) / 2] + r[n / 2]);
}

/* "name[sep suffix]": name into base, the suffix (or "") into suffix */
static PetscErrorCode SplitVariant(const char *str, char sep, char *base, size_t nb, char *suffix, size_t ns)
{
  const char *c = strchr(str, sep);

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(base, str, nb));
  if (c) base[PetscMin((size_t)(c - str), nb - 1)] = 0;
  PetscCall(PetscStrncpy(suffix, c ? c + 1 : "", ns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  char               mtype[64], ktype[64];
  Mat                A;
  KSP                ksp;
  Vec                b, x;
  PetscLogDouble     tconv[64], tdiff[64], tsolve[64];
  PetscInt           its;
  KSPConvergedReason reason;
  PetscBool          exact;
} Config;

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  DM             da;
  Mat            A0;
  PetscInt       N = 96, rounds = 3, its[2] = {50, 250}, nits = 2, nm = 8, nk = 8, nbw = (PetscInt)1 << 25, reps = 20, nc = 0;
  char          *mtypes[8], *ktypes[8];
  PetscBool      fm, fk;
  PetscReal      rtol = 1e-5;
  Config         cfg[64];
  PetscLogDouble bw, floor_ms;
  MatInfo        info;
  PetscInt       nloc, nnzloc;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "CG iteration benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, N, &N, NULL));
  PetscCall(PetscOptionsStringArray("-mat_types", "matrix types", NULL, mtypes, &nm, &fm));
  PetscCall(PetscOptionsStringArray("-ksp_types", "KSP types", NULL, ktypes, &nk, &fk));
  PetscCall(PetscOptionsRangeInt("-rounds", "timed rounds", NULL, rounds, &rounds, NULL, 1, 64));
  PetscCall(PetscOptionsIntArray("-its", "iterations of the two differential solves", NULL, its, &nits, NULL));
  PetscCall(PetscOptionsInt("-bw_n", "rows of the copy bandwidth's vector (at least the problem's)", NULL, nbw, &nbw, NULL));
  PetscCall(PetscOptionsInt("-bw_reps", "copies timed", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-ksp_rtol", "relative tolerance of the converged solves", NULL, rtol, &rtol, NULL));
  PetscOptionsEnd();
  PetscCheck(its[1] > its[0] && its[0] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-its A,B needs 1 <= A < B");
  if (!fm) {
#if defined(PETSC_HAVE_CUDA)
    const char *def[] = {MATAIJCUSPARSE, MATMODSELL};
#else
    const char *def[] = {MATAIJ, MATMODSELL};
#endif
    nm = 2;
    for (PetscInt j = 0; j < nm; j++) PetscCall(PetscStrallocpy(def[j], &mtypes[j]));
  }
  if (!fk) {
    nk = 2;
    PetscCall(PetscStrallocpy(KSPCG, &ktypes[0]));
    PetscCall(PetscStrallocpy(KSPCGDEVICE, &ktypes[1]));
  }

  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, N, N, N, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &A0));
  PetscCall(AssembleLaplacian(da, A0));
  PetscCall(MatGetInfo(A0, MAT_LOCAL, &info));
  PetscCall(MatGetLocalSize(A0, &nloc, NULL));
  nnzloc = (PetscInt)info.nz_used;

  /* the configurations: one KSP each, with its own matrix of the type, warmed up */
  for (PetscInt a = 0; a < nm; a++) {
    Mat  A;
    char base[64], ord[64];

    PetscCall(SplitVariant(mtypes[a], ':', base, sizeof(base), ord, sizeof(ord)));
    PetscCall(MatConvert(A0, base, MAT_INITIAL_MATRIX, &A));
    if (ord[0]) { /* a MATMODSELL ordering */
      PetscInt  o;
      PetscBool found;

      PetscCall(PetscEListFind(5, MatModSELLOrderings, ord, &o, &found));
      PetscCheck(found, comm, PETSC_ERR_ARG_WRONG, "Unknown MATMODSELL ordering %s in %s", ord, mtypes[a]);
      PetscCall(MatSetDM(A, da)); /* the grid of the bricks ordering */
      PetscCall(MatModSELLSetOrdering(A, (MatModSELLOrdering)o));
    }
    for (PetscInt k = 0; k < nk; k++, nc++) {
      Config            *c = &cfg[nc];
      PC                 pc;
      PetscLogDouble     t;
      PetscInt           n;
      KSPConvergedReason r;

      PetscCheck(nc < 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "at most 64 configurations");
      PetscCall(PetscMemzero(c, sizeof(*c)));
      PetscCall(PetscStrncpy(c->mtype, mtypes[a], sizeof(c->mtype)));
      PetscCall(PetscStrncpy(c->ktype, ktypes[k], sizeof(c->ktype)));
      PetscCall(PetscObjectReference((PetscObject)A));
      c->A = A;
      PetscCall(MatCreateVecs(A, &c->x, &c->b));
      PetscCall(VecSet(c->b, 1.0));
      PetscCall(KSPCreate(comm, &c->ksp));
      PetscCall(KSPSetOperators(c->ksp, A, A));
      {
        char kb[64], kv[64];
        PetscBool sr;

        PetscCall(SplitVariant(ktypes[k], '+', kb, sizeof(kb), kv, sizeof(kv)));
        PetscCall(PetscStrcmp(kv, "sr", &sr));
        PetscCheck(sr || !kv[0], comm, PETSC_ERR_ARG_WRONG, "Unknown KSP variant %s in %s (sr: the single-reduction form)", kv, ktypes[k]);
        PetscCall(KSPSetType(c->ksp, kb));
        PetscCall(KSPGetPC(c->ksp, &pc));
        PetscCall(PCSetType(pc, PCJACOBI));
        PetscCall(KSPSetFromOptions(c->ksp));
        if (sr) PetscCall(KSPCGDeviceSetSingleReduction(c->ksp, PETSC_TRUE)); /* after the options: the variant's */
      }
      PetscCall(KSPSetUp(c->ksp));
      PetscCall(TimedSolve(c->ksp, c->b, c->x, rtol, 10000, &t, &n, &r)); /* warm-up: a converged solve */
      c->exact = PETSC_TRUE;
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(CopyBandwidth(cfg[nc - 1].x, nbw, reps, &bw));
  floor_ms = 1e3 * (12.0 * (PetscLogDouble)nnzloc + 104.0 * (PetscLogDouble)nloc) / bw;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &floor_ms, 1, MPI_DOUBLE, MPI_MAX, comm));
  {
    PetscMPIInt size;
    PetscInt    nnz = nnzloc;

    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nnz, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(PetscPrintf(comm, "7-point Laplacian %" PetscInt_FMT "^3 (%" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros), %d process(es), PC jacobi, rtol %g; %" PetscInt_FMT " rounds\n", N, N * N * N, nnz, size, (double)rtol, rounds));
  }
  PetscCall(PetscPrintf(comm, "copy bandwidth %.1f GB/s (VecCopy, %" PetscInt_FMT " copies); byte floor of a CG iteration (12 nnz + 104 n bytes per process): %.4f ms\n", bw / 1e9, reps, floor_ms));

  /* the timed rounds, alternated over the configurations */
  for (PetscInt r = 0; r < rounds; r++)
    for (PetscInt q = 0; q < nc; q++) {
      Config            *c = &cfg[q];
      PetscLogDouble     ta, tb;
      PetscInt           na, nb;
      KSPConvergedReason ra, rb;

      PetscCall(TimedSolve(c->ksp, c->b, c->x, rtol, 10000, &c->tsolve[r], &c->its, &c->reason));
      c->tconv[r] = c->tsolve[r] / (PetscLogDouble)PetscMax(c->its, 1);
      PetscCall(TimedSolve(c->ksp, c->b, c->x, 0.0, its[0], &ta, &na, &ra));
      PetscCall(TimedSolve(c->ksp, c->b, c->x, 0.0, its[1], &tb, &nb, &rb));
      if (na != its[0] || nb != its[1]) c->exact = PETSC_FALSE;
      c->tdiff[r] = (tb - ta) / (PetscLogDouble)(its[1] - its[0]);
    }
  for (PetscInt q = 0; q < nc; q++) {
    Config        *c = &cfg[q];
    PetscLogDouble conv = Median(rounds, c->tconv), diff = Median(rounds, c->tdiff), lo = c->tdiff[0], hi = c->tdiff[0];

    for (PetscInt r = 1; r < rounds; r++) {
      lo = PetscMin(lo, c->tdiff[r]);
      hi = PetscMax(hi, c->tdiff[r]);
    }
    PetscCall(PetscPrintf(comm, "%s %s: %s in %" PetscInt_FMT " iterations, solve %.4f s, %.4f ms per iteration; ", c->mtype, c->ktype, KSPConvergedReasons[c->reason], c->its, Median(rounds, c->tsolve), 1e3 * conv));
    if (c->exact) PetscCall(PetscPrintf(comm, "(T_%" PetscInt_FMT " - T_%" PetscInt_FMT ") / %" PetscInt_FMT ": %.4f ms per iteration (range %.4f to %.4f), %.2f times the byte floor\n", its[1], its[0], its[1] - its[0], 1e3 * diff, 1e3 * lo, 1e3 * hi, 1e3 * diff / floor_ms));
    else PetscCall(PetscPrintf(comm, "differential solves stopped early (lower -ksp_rtol is not enough: a breakdown)\n"));
  }
  for (PetscInt q = 0; q < nc; q++) {
    PetscCall(KSPDestroy(&cfg[q].ksp));
    PetscCall(VecDestroy(&cfg[q].b));
    PetscCall(VecDestroy(&cfg[q].x));
    PetscCall(MatDestroy(&cfg[q].A));
  }
  for (PetscInt j = 0; j < nm; j++) PetscCall(PetscFree(mtypes[j]));
  for (PetscInt j = 0; j < nk; j++) PetscCall(PetscFree(ktypes[j]));
  PetscCall(MatDestroy(&A0));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: 1
     requires: double !complex
     args: -n 12 -rounds 2 -its 5,15 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

   test:
     suffix: mpi
     nsize: 2
     requires: double !complex
     args: -n 12 -rounds 2 -its 5,15 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

   test:
     suffix: cuda
     requires: cuda double !complex
     args: -n 24 -rounds 2 -its 5,15 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

   # the variants: permuted images (partition, bricks) and the single-reduction form
   test:
     suffix: variants
     requires: double !complex
     args: -n 12 -rounds 1 -its 5,15 -bw_n 100000 -bw_reps 4 -mat_types modsell,modsell:partition,modsell:bricks -ksp_types cg,cgdevice,cgdevice+sr
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

   test:
     suffix: cuda_variants
     requires: cuda double !complex
     args: -n 24 -rounds 1 -its 5,15 -bw_n 100000 -bw_reps 4 -mat_types modsell,modsell:partition,modsell:bricks -ksp_types cg,cgdevice,cgdevice+sr
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"
     output_file: output/krylov_variants.out

TEST*/
