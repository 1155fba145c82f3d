/*
   bench/krylovns: the time of a BiCGSTAB and of a GMRES(m) iteration, PETSc's KSPBCGS and KSPGMRES against the plugin's
   KSPBCGSDEVICE and KSPGMRESDEVICE, on a nonsymmetric 7-point convection-diffusion operator on an N^3 DMDA (Dirichlet
   boundary: the rows of the interior, -1.3, -0.7, -1.1, -0.9, -1.05, -0.95 to the neighbours in -x, +x, -y, +y, -z,
   +z, 6 on the diagonal), PC Jacobi, for every matrix type of -mat_types (aijcusparse and modsell with CUDA, aij and
   modsell without) and every KSP type of -ksp_types.

   As bench/krylov.c: the matrix assembled once (MATAIJ) and converted to each type; every configuration gets its own
   KSP and a warm-up solve; then -rounds rounds of timed solves alternated over the configurations: a converged solve to
   -ksp_rtol (its iterations, T / its), and two solves of exactly A and B iterations (-its A,B; rtol 1e-30), whose
   (T_B - T_A) / (B - A) is the time of an iteration without the solve's fixed costs. For GMRES A and B should be
   multiples of the restart (the default 60,300 with m = 30): the cost of an iteration grows with the basis, and the
   difference then covers whole cycles. Medians over the rounds, and their range.

   The byte floor of an iteration (what the iteration with every vector operation fused must move), over the copy
   bandwidth measured here (VecCopy() of max(n, -bw_n) rows; a copy moves 16 bytes per row):
     BiCGSTAB + Jacobi: 24 nnz + 136 n bytes. Two products (12 bytes per nonzero each) with the diagonal and the dots
       in their epilogues: v = D A p, v.rp (p, d, rp read, v written: 4 vector passes); t = D A s with s = r - alpha v
       formed where it is read, s.t, t.t (r, v, d read, t written: 4); x += alpha p + omega s, r = s - omega t and the
       next p = r + beta (p - omega v) in one pass with r.r and rho (x, p, r, v, t, rp read, x, r, p written: 9): 17
       passes of 8 bytes. KSPBCGSDEVICE moves 160 n (standard form: 20 passes; its direction p = r + beta (p - omega v)
       is a pass of its own) or 144 n (merged reductions: 18; s is stored and read by the update).
     GMRES(m) + Jacobi: 12 nnz (1 + 1/m) + (2 kbar + 7 + (m + 6) / m) 8 n bytes, kbar = (m - 1) / 2 the mean number of
       earlier basis vectors: the product (v_k, d read, w written: 3), the dots with the k + 1 basis vectors in its
       epilogue (k + 1), the orthogonalization with the norm (k + 1 vectors and w read, w written: k + 3), and per
       iteration a 1/m share of the restart (the update x += V y: m + 2 passes, the residual: a product and 4 passes).
       For m = 30: 12.4 nnz + 297.6 n bytes. KSPGMRESDEVICE reads w once more (the dots after the product: 2 k + 8).

     build-cuda/bin/bench/krylovns -n 160 -dll_append build-cuda/lib/libpetscmodsell.so   (or linked: it initializes the plugin)
     build-cuda/bin/bench/krylovns -n 96 -ksp_types bcgs,bcgsdevice -rounds 5 -log_view
*/
static const char help[] = "BiCGSTAB and GMRES(m) + Jacobi on a 7-point convection-diffusion operator of an N^3 grid: PETSc's KSPs against the\n\
device-resident ones per matrix type.\n\
  -n <N> grid points per direction (default 96); -mat_types <list>; -ksp_types <list> (default bcgs,bcgsdevice,gmres,gmresdevice);\n\
  -rounds <r> timed rounds (default 3); -its A,B the iteration counts of the differential solves (default 60,300);\n\
  -bw_n <rows> (default 2^25) and -bw_reps <k> (default 20): the copy bandwidth's vector and copies.\n\
  Other KSP options (-ksp_rtol, -ksp_gmres_restart, -ksp_bcgsdevice_merged_reductions, -ksp_device_graph, ...) apply to\n\
  every configuration.\n";

#include "krylovbench.h"

/* the convection-diffusion operator on the DMDA (Dirichlet boundary: the neighbours outside are dropped) */
static PetscErrorCode AssembleConvectionDiffusion(DM da, Mat A)
{
  PetscInt          mx, my, mz, xs, ys, zs, xm, ym, zm;
  const PetscInt    di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
  const PetscScalar w[6]  = {-1.3, -0.7, -1.1, -0.9, -1.05, -0.95};

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, &mz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7];
        PetscInt    n = 0;

        col[n]  = row;
        v[n++]  = 6.0;
        for (int e = 0; e < 6; e++) {
          const PetscInt ii = i + di[e], jj = j + dj[e], kk = k + dk[e];

          if (ii < 0 || jj < 0 || kk < 0 || ii >= mx || jj >= my || kk >= mz) continue;
          col[n].i = ii;
          col[n].j = jj;
          col[n].k = kk;
          col[n].c = 0;
          v[n++]   = w[e];
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  DM             da;
  Mat            A0;
  KBOptions      o;
  PetscInt       nc = 0, nloc, nnzloc, restart = 30;
  KBConfig       cfg[KB_MAX_CONFIGS];
  PetscLogDouble bw, floor_bcgs, floor_gmres, kbar;
  const char    *kdef[] = {KSPBCGS, KSPBCGSDEVICE, KSPGMRES, KSPGMRESDEVICE};
  char           extra[64];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(KBOptionsInitialize(60, 300, &o));
  PetscOptionsBegin(comm, NULL, "BiCGSTAB and GMRES iteration benchmark", NULL);
  PetscCall(KBOptionsRegister(PetscOptionsObject, &o));
  PetscCall(PetscOptionsInt("-ksp_gmres_restart", "GMRES's restart (for the byte floor; the KSPs read it too)", NULL, restart, &restart, NULL));
  PetscOptionsEnd();
  PetscCall(KBOptionsSetDefaultTypes(comm, 4, kdef, &o));
  PetscCall(KBCreateProblem(comm, o.N, AssembleConvectionDiffusion, &da, &A0, &nloc, &nnzloc));

  for (PetscInt a = 0; a < o.nm; a++) {
    Mat A;

    PetscCall(MatConvert(A0, o.mtypes[a], MAT_INITIAL_MATRIX, &A));
    for (PetscInt k = 0; k < o.nk; k++, nc++) {
      PetscCheck(nc < KB_MAX_CONFIGS, comm, PETSC_ERR_ARG_OUTOFRANGE, "at most %d configurations", KB_MAX_CONFIGS);
      PetscCall(KBConfigCreate(A, o.mtypes[a], o.ktypes[k], o.ktypes[k], &cfg[nc]));
      PetscCall(KBConfigWarmUp(&cfg[nc], o.rtol));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(KBCopyBandwidth(cfg[nc - 1].x, o.nbw, o.reps, &bw));
  kbar = 0.5 * (PetscLogDouble)(restart - 1);
  PetscCall(KBByteFloor(comm, 24.0 * (PetscLogDouble)nnzloc + 136.0 * (PetscLogDouble)nloc, bw, &floor_bcgs));
  PetscCall(KBByteFloor(comm, 12.0 * (1.0 + 1.0 / restart) * (PetscLogDouble)nnzloc + 8.0 * (2.0 * kbar + 7.0 + (restart + 6.0) / restart) * (PetscLogDouble)nloc, bw, &floor_gmres));
  for (PetscInt q = 0; q < nc; q++) {
    PetscBool gmres;

    PetscCall(PetscStrbeginswith(cfg[q].ktype, "gmres", &gmres));
    cfg[q].floor_ms = gmres ? floor_gmres : floor_bcgs;
  }
  PetscCall(PetscSNPrintf(extra, sizeof(extra), ", GMRES restart %" PetscInt_FMT, restart));
  PetscCall(KBPrintProblem(comm, "7-point convection-diffusion", &o, nnzloc, extra));
  PetscCall(PetscPrintf(comm, "copy bandwidth %.1f GB/s (VecCopy, %" PetscInt_FMT " copies); byte floors (per process): BiCGSTAB 24 nnz + 136 n bytes %.4f ms, GMRES(%" PetscInt_FMT ") %.4f ms\n", bw / 1e9, o.reps, floor_bcgs, restart, floor_gmres));

  PetscCall(KBTimedRounds(&o, nc, cfg));
  PetscCall(KBPrintConfigs(comm, &o, nc, cfg, "a breakdown or convergence below rtol 1e-30"));
  /* the ratios PETSc's KSP / the device KSP (differential times) per matrix type */
  for (PetscInt q = 0; q < nc; q++)
    for (PetscInt p = 0; p < nc; p++) {
      PetscBool samemat, pair;
      char      dev[80];

      PetscCall(PetscStrcmp(cfg[q].mtype, cfg[p].mtype, &samemat));
      PetscCall(PetscSNPrintf(dev, sizeof(dev), "%sdevice", cfg[q].ktype));
      PetscCall(PetscStrcmp(cfg[p].ktype, dev, &pair));
      if (samemat && pair && cfg[q].exact && cfg[p].exact) PetscCall(PetscPrintf(comm, "%s: %s / %s per iteration %.2f\n", cfg[q].mtype, cfg[q].ktype, cfg[p].ktype, KBMedian(o.rounds, cfg[q].tdiff) / KBMedian(o.rounds, cfg[p].tdiff)));
    }
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
     args: -rounds 2 -its 10,20 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"
     test:
       suffix: 1
       args: -n 10
     test:
       suffix: mpi
       nsize: 2
       args: -n 10
     test:
       suffix: cuda
       requires: cuda
       args: -n 24

TEST*/
