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

#include <petscmodsell.h>
#include <petscdmda.h>
#include <petscdevice.h>
#include <petsctime.h>

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

typedef struct {
  char               mtype[64], ktype[64];
  Mat                A;
  KSP                ksp;
  Vec                b, x;
  PetscLogDouble     tconv[64], tdiff[64], tsolve[64];
  PetscInt           its;
  KSPConvergedReason reason;
  PetscBool          exact, gmres;
} Config;

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  DM             da;
  Mat            A0;
  PetscInt       N = 96, rounds = 3, its[2] = {60, 300}, nits = 2, nm = 8, nk = 8, nbw = (PetscInt)1 << 25, reps = 20, nc = 0, restart = 30;
  char          *mtypes[8], *ktypes[8];
  PetscBool      fm, fk;
  PetscReal      rtol = 1e-5;
  Config         cfg[64];
  PetscLogDouble bw, floor_bcgs, floor_gmres, kbar;
  MatInfo        info;
  PetscInt       nloc, nnzloc;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "BiCGSTAB and GMRES iteration benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, N, &N, NULL));
  PetscCall(PetscOptionsStringArray("-mat_types", "matrix types", NULL, mtypes, &nm, &fm));
  PetscCall(PetscOptionsStringArray("-ksp_types", "KSP types", NULL, ktypes, &nk, &fk));
  PetscCall(PetscOptionsRangeInt("-rounds", "timed rounds", NULL, rounds, &rounds, NULL, 1, 64));
  PetscCall(PetscOptionsIntArray("-its", "iterations of the two differential solves", NULL, its, &nits, NULL));
  PetscCall(PetscOptionsInt("-bw_n", "rows of the copy bandwidth's vector (at least the problem's)", NULL, nbw, &nbw, NULL));
  PetscCall(PetscOptionsInt("-bw_reps", "copies timed", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-ksp_rtol", "relative tolerance of the converged solves", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsInt("-ksp_gmres_restart", "GMRES's restart (for the byte floor; the KSPs read it too)", NULL, restart, &restart, NULL));
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
    const char *def[] = {KSPBCGS, KSPBCGSDEVICE, KSPGMRES, KSPGMRESDEVICE};
    nk = 4;
    for (PetscInt j = 0; j < nk; j++) PetscCall(PetscStrallocpy(def[j], &ktypes[j]));
  }

  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, N, N, N, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &A0));
  PetscCall(AssembleConvectionDiffusion(da, A0));
  PetscCall(MatGetInfo(A0, MAT_LOCAL, &info));
  PetscCall(MatGetLocalSize(A0, &nloc, NULL));
  nnzloc = (PetscInt)info.nz_used;

  for (PetscInt a = 0; a < nm; a++) {
    Mat A;

    PetscCall(MatConvert(A0, mtypes[a], MAT_INITIAL_MATRIX, &A));
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
      PetscCall(PetscStrbeginswith(ktypes[k], "gmres", &c->gmres));
      PetscCall(PetscObjectReference((PetscObject)A));
      c->A = A;
      PetscCall(MatCreateVecs(A, &c->x, &c->b));
      PetscCall(VecSet(c->b, 1.0));
      PetscCall(KSPCreate(comm, &c->ksp));
      PetscCall(KSPSetOperators(c->ksp, A, A));
      PetscCall(KSPSetType(c->ksp, ktypes[k]));
      PetscCall(KSPGetPC(c->ksp, &pc));
      PetscCall(PCSetType(pc, PCJACOBI));
      PetscCall(KSPSetFromOptions(c->ksp));
      PetscCall(KSPSetUp(c->ksp));
      PetscCall(TimedSolve(c->ksp, c->b, c->x, rtol, 10000, &t, &n, &r)); /* warm-up: a converged solve */
      c->exact = PETSC_TRUE;
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(CopyBandwidth(cfg[nc - 1].x, nbw, reps, &bw));
  kbar        = 0.5 * (PetscLogDouble)(restart - 1);
  floor_bcgs  = 1e3 * (24.0 * (PetscLogDouble)nnzloc + 136.0 * (PetscLogDouble)nloc) / bw;
  floor_gmres = 1e3 * (12.0 * (1.0 + 1.0 / restart) * (PetscLogDouble)nnzloc + 8.0 * (2.0 * kbar + 7.0 + (restart + 6.0) / restart) * (PetscLogDouble)nloc) / bw;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &floor_bcgs, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &floor_gmres, 1, MPI_DOUBLE, MPI_MAX, comm));
  {
    PetscMPIInt size;
    PetscInt    nnz = nnzloc;

    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nnz, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(PetscPrintf(comm, "7-point convection-diffusion %" PetscInt_FMT "^3 (%" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros), %d process(es), PC jacobi, rtol %g, GMRES restart %" PetscInt_FMT "; %" PetscInt_FMT " rounds\n", N, N * N * N, nnz, size, (double)rtol, restart, rounds));
  }
  PetscCall(PetscPrintf(comm, "copy bandwidth %.1f GB/s (VecCopy, %" PetscInt_FMT " copies); byte floors (per process): BiCGSTAB 24 nnz + 136 n bytes %.4f ms, GMRES(%" PetscInt_FMT ") %.4f ms\n", bw / 1e9, reps, floor_bcgs, restart, floor_gmres));

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
    Config        *c    = &cfg[q];
    PetscLogDouble conv = Median(rounds, c->tconv), diff = Median(rounds, c->tdiff), lo = c->tdiff[0], hi = c->tdiff[0];
    PetscLogDouble fl   = c->gmres ? floor_gmres : floor_bcgs;

    for (PetscInt r = 1; r < rounds; r++) {
      lo = PetscMin(lo, c->tdiff[r]);
      hi = PetscMax(hi, c->tdiff[r]);
    }
    PetscCall(PetscPrintf(comm, "%s %s: %s in %" PetscInt_FMT " iterations, solve %.4f s, %.4f ms per iteration; ", c->mtype, c->ktype, KSPConvergedReasons[c->reason], c->its, Median(rounds, c->tsolve), 1e3 * conv));
    if (c->exact) PetscCall(PetscPrintf(comm, "(T_%" PetscInt_FMT " - T_%" PetscInt_FMT ") / %" PetscInt_FMT ": %.4f ms per iteration (range %.4f to %.4f), %.2f times the byte floor\n", its[1], its[0], its[1] - its[0], 1e3 * diff, 1e3 * lo, 1e3 * hi, 1e3 * diff / fl));
    else PetscCall(PetscPrintf(comm, "differential solves stopped early (a breakdown or convergence below rtol 1e-30)\n"));
  }
  /* the ratios PETSc's KSP / the device KSP (differential times) per matrix type */
  for (PetscInt q = 0; q < nc; q++)
    for (PetscInt p = 0; p < nc; p++) {
      PetscBool samemat, pair;
      char      dev[80];

      PetscCall(PetscStrcmp(cfg[q].mtype, cfg[p].mtype, &samemat));
      PetscCall(PetscSNPrintf(dev, sizeof(dev), "%sdevice", cfg[q].ktype));
      PetscCall(PetscStrcmp(cfg[p].ktype, dev, &pair));
      if (samemat && pair && cfg[q].exact && cfg[p].exact) PetscCall(PetscPrintf(comm, "%s: %s / %s per iteration %.2f\n", cfg[q].mtype, cfg[q].ktype, cfg[p].ktype, Median(rounds, cfg[q].tdiff) / Median(rounds, cfg[p].tdiff)));
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
     args: -n 10 -rounds 2 -its 10,20 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

   test:
     suffix: mpi
     nsize: 2
     requires: double !complex
     args: -n 10 -rounds 2 -its 10,20 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

   test:
     suffix: cuda
     requires: cuda double !complex
     args: -n 24 -rounds 2 -its 10,20 -bw_n 100000 -bw_reps 4
     filter: sed -E -e "s/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g"

TEST*/
