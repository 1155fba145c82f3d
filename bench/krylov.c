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

#include "krylovbench.h"

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

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  DM             da;
  Mat            A0;
  KBOptions      o;
  PetscInt       nc = 0, nloc, nnzloc;
  KBConfig       cfg[KB_MAX_CONFIGS];
  PetscLogDouble bw, floor_ms;
  const char    *kdef[] = {KSPCG, KSPCGDEVICE};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(KBOptionsInitialize(50, 250, &o));
  PetscOptionsBegin(comm, NULL, "CG iteration benchmark", NULL);
  PetscCall(KBOptionsRegister(PetscOptionsObject, &o));
  PetscOptionsEnd();
  PetscCall(KBOptionsSetDefaultTypes(comm, 2, kdef, &o));
  PetscCall(KBCreateProblem(comm, o.N, AssembleLaplacian, &da, &A0, &nloc, &nnzloc));

  /* the configurations: one KSP each, with its own matrix of the type, warmed up */
  for (PetscInt a = 0; a < o.nm; a++) {
    Mat  A;
    char base[64], ord[64];

    PetscCall(SplitVariant(o.mtypes[a], ':', base, sizeof(base), ord, sizeof(ord)));
    PetscCall(MatConvert(A0, base, MAT_INITIAL_MATRIX, &A));
    if (ord[0]) { /* a MATMODSELL ordering */
      PetscInt  ordering;
      PetscBool found;

      PetscCall(PetscEListFind(5, MatModSELLOrderings, ord, &ordering, &found));
      PetscCheck(found, comm, PETSC_ERR_ARG_WRONG, "Unknown MATMODSELL ordering %s in %s", ord, o.mtypes[a]);
      PetscCall(MatSetDM(A, da)); /* the grid of the bricks ordering */
      PetscCall(MatModSELLSetOrdering(A, (MatModSELLOrdering)ordering));
    }
    for (PetscInt k = 0; k < o.nk; k++, nc++) {
      char      kb[64], kv[64];
      PetscBool sr;

      PetscCheck(nc < KB_MAX_CONFIGS, comm, PETSC_ERR_ARG_OUTOFRANGE, "at most %d configurations", KB_MAX_CONFIGS);
      PetscCall(SplitVariant(o.ktypes[k], '+', kb, sizeof(kb), kv, sizeof(kv)));
      PetscCall(PetscStrcmp(kv, "sr", &sr));
      PetscCheck(sr || !kv[0], comm, PETSC_ERR_ARG_WRONG, "Unknown KSP variant %s in %s (sr: the single-reduction form)", kv, o.ktypes[k]);
      PetscCall(KBConfigCreate(A, o.mtypes[a], o.ktypes[k], kb, &cfg[nc]));
      if (sr) PetscCall(KSPCGDeviceSetSingleReduction(cfg[nc].ksp, PETSC_TRUE)); /* after the options: the variant's */
      PetscCall(KBConfigWarmUp(&cfg[nc], o.rtol));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(KBCopyBandwidth(cfg[nc - 1].x, o.nbw, o.reps, &bw));
  PetscCall(KBByteFloor(comm, 12.0 * (PetscLogDouble)nnzloc + 104.0 * (PetscLogDouble)nloc, bw, &floor_ms));
  for (PetscInt q = 0; q < nc; q++) cfg[q].floor_ms = floor_ms;
  PetscCall(KBPrintProblem(comm, "7-point Laplacian", &o, nnzloc, ""));
  PetscCall(PetscPrintf(comm, "copy bandwidth %.1f GB/s (VecCopy, %" PetscInt_FMT " copies); byte floor of a CG iteration (12 nnz + 104 n bytes per process): %.4f ms\n", bw / 1e9, o.reps, floor_ms));

  PetscCall(KBTimedRounds(&o, nc, cfg));
  PetscCall(KBPrintConfigs(comm, &o, nc, cfg, "lower -ksp_rtol is not enough: a breakdown"));
  for (PetscInt q = 0; q < nc; q++) PetscCall(KBConfigDestroy(&cfg[q]));
  PetscCall(KBOptionsDestroy(&o));
  PetscCall(MatDestroy(&A0));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
     requires: double !complex
     args: -its 5,15 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"
     test:
       suffix: 1
       args: -n 12 -rounds 2
     test:
       suffix: mpi
       nsize: 2
       args: -n 12 -rounds 2
     test:
       suffix: cuda
       requires: cuda
       args: -n 24 -rounds 2
     # the variants: permuted images (partition, bricks) and the single-reduction form
     test:
       suffix: variants
       args: -n 12 -rounds 1 -mat_types modsell,modsell:partition,modsell:bricks -ksp_types cg,cgdevice,cgdevice+sr
     test:
       suffix: cuda_variants
       requires: cuda
       args: -n 24 -rounds 1 -mat_types modsell,modsell:partition,modsell:bricks -ksp_types cg,cgdevice,cgdevice+sr
       output_file: output/krylov_variants.out

TEST*/
