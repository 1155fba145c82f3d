static char help[] = "PCRUIZ figures for docs/ruiz.md (meant for the GPU machine; runs anywhere):\n\
 (1) setup time of PCRUIZ against (sweeps done) x (one MatMult): fresh (the first PC of the process, then a new one)\n\
     and after value-only changes;\n\
 (2) time per CG iteration with ruiz and with jacobi (fixed number of iterations, setup excluded);\n\
 (3) residual norm of the original system against time of CG with none / jacobi / ruiz (like figure 5.1 of\n\
     Wikberg (2024)), one CSV line per iteration: pc,iteration,time_us,rnorm.\n\
Options: -n <64>: 7-point Laplacian on n^3 (flagged SPD), or -f <file>: a matrix in PETSc binary format;\n\
 -mat_type <modsell> (any; -vec_type follows the matrix), -nmult <50> products for the MatMult time,\n\
 -its <500> iterations for the per-iteration time, -hist_max_it <10000> -hist_rtol <1e-10> for the history,\n\
 -csv <file> (default: no history file), -pcs none,jacobi,ruiz, and the -pc_ruiz_* options.\n\
Lines with measured times start with 'time:' (the tests filter them out).\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <petscdevice.h>
#include <petsctime.h>
#include <mstestpc.h> /* tests/include: MSTestCreateLaplacian(), MSTestSolveCheck() */

static PetscErrorCode Sync(void)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  FILE          *fp;
  const char    *pc;
  PetscLogDouble t0;
} HistCtx;

static PetscErrorCode HistMonitor(KSP ksp, PetscInt it, PetscReal rnorm, void *vctx)
{
  HistCtx       *h = (HistCtx *)vctx;
  PetscLogDouble t;

  PetscFunctionBegin;
  (void)ksp;
  PetscCall(PetscTime(&t)); /* the norm is already on the host: no extra synchronization */
  if (h->fp) PetscCall(PetscFPrintf(PETSC_COMM_SELF, h->fp, /* only rank 0 has the file open */ "%s,%" PetscInt_FMT ",%.3f,%.10e\n", h->pc, it, 1e6 * (t - h->t0), (double)rnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateCG(Mat A, const char *pctype, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(PCSetFromOptions(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  Mat            A;
  Vec            b, x;
  PetscInt       n = 64, nmult = 50, its = 500, hmaxit = 10000, N, npcs = 8;
  PetscReal      hrtol = 1e-10;
  char           file[PETSC_MAX_PATH_LEN] = "", csv[PETSC_MAX_PATH_LEN] = "", *pcs[8];
  PetscBool      hasfile, hascsv, flg;
  PetscLogDouble t0, t1, tmult;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscOptionsBegin(comm, NULL, "PCRUIZ figures", NULL);
  PetscCall(PetscOptionsInt("-n", "Laplacian on n^3", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-f", "matrix file (PETSc binary)", NULL, file, file, sizeof(file), &hasfile));
  PetscCall(PetscOptionsInt("-nmult", "products for the MatMult time", NULL, nmult, &nmult, NULL));
  PetscCall(PetscOptionsInt("-its", "CG iterations for the per-iteration time", NULL, its, &its, NULL));
  PetscCall(PetscOptionsInt("-hist_max_it", "CG iterations at most for the history", NULL, hmaxit, &hmaxit, NULL));
  PetscCall(PetscOptionsReal("-hist_rtol", "relative tolerance of the history runs", NULL, hrtol, &hrtol, NULL));
  PetscCall(PetscOptionsString("-csv", "history file", NULL, csv, csv, sizeof(csv), &hascsv));
  PetscCall(PetscOptionsStringArray("-pcs", "preconditioners of the history", NULL, pcs, &npcs, &flg));
  PetscOptionsEnd();
  if (!flg) {
    npcs = 3;
    PetscCall(PetscStrallocpy(PCNONE, &pcs[0]));
    PetscCall(PetscStrallocpy(PCJACOBI, &pcs[1]));
    PetscCall(PetscStrallocpy(PCRUIZ, &pcs[2]));
  }

  if (hasfile) {
    PetscViewer v;

    PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(comm, &A));
    PetscCall(MatSetType(A, MATMODSELL));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatLoad(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE)); /* the paper's matrices are SPD */
  } else {
    PetscCall(MSTestCreateLaplacian(comm, n, n, n, NULL, NULL, NULL, MATMODSELL, &A));
    PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  }
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " unknowns\n", hasfile ? file : "7-point Laplacian", N));
  {
    MatType mt;

    PetscCall(MatGetType(A, &mt));
    PetscCall(PetscPrintf(comm, "time: matrix type %s\n", mt));
  }

  /* (1) one MatMult, then PCRUIZ setups */
  PetscCall(MatMult(A, b, x)); /* builds and uploads the matrix's image */
  PetscCall(Sync());
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < nmult; k++) PetscCall(MatMult(A, b, x));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  tmult = (t1 - t0) / nmult;
  PetscCall(PetscPrintf(comm, "time: one MatMult %.1f us\n", 1e6 * tmult));
  {
    PC             pc = NULL, pc0 = NULL;
    PetscInt       sweeps;
    PetscReal      dev;
    PetscBool      conv;
    PetscLogDouble ts;

    for (PetscInt pass = 0; pass < 5; pass++) {
      const char *what[5] = {"(fresh, first in the process)", "(fresh)", "after a value-only change", "after a second value-only change", "after a value-only change, image refreshed by a MatMult first"};

      if (pass < 2) { /* a new PC: the first one in the process also pays the process's first-use costs (the CUDA
                         runtime loads a kernel's module at its first launch), the second one not; the first stays
                         alive, so that the second allocates its vectors anew instead of reusing the first's memory */
        if (pass) pc0 = pc;
        PetscCall(PCCreate(comm, &pc));
        PetscCall(PCSetOperators(pc, A, A));
        PetscCall(PCSetType(pc, PCRUIZ));
        PetscCall(PCSetFromOptions(pc));
      } else { /* a value-only change (the same values back): recompute, reusing the structure; the first one
                  also builds the image's CSR-to-slot map, the second shows the steady state, the third leaves
                  the refresh of the matrix's image (new values uploaded) to a product first: the PC's own cost */
        PetscCall(MatScale(A, 2.0));
        PetscCall(MatScale(A, 0.5));
        if (pass == 4) {
          PetscCall(MatMult(A, b, x));
          PetscCall(Sync());
        }
      }
      PetscCall(PCSetUp(pc));
      PetscCall(PCRuizGetConvergence(pc, &sweeps, &dev, &conv, &ts));
      PetscCall(PetscPrintf(comm, "ruiz setup %s: %" PetscInt_FMT " sweeps, deviation %s tolerance\n", what[pass], sweeps, conv ? "within" : "NOT within"));
      PetscCall(PetscPrintf(comm, "time: ruiz setup %s: %.3f ms = %.2f x (sweeps x MatMult); <= 1.5: %s; < 25 ms: %s\n", what[pass], 1e3 * ts, ts / (sweeps * tmult), ts <= 1.5 * sweeps * tmult ? "yes" : "no", ts < 0.025 ? "yes" : "no"));
    }
    PetscCall(PCDestroy(&pc0));
    PetscCall(PCDestroy(&pc));
  }

  /* (2) time per CG iteration, setup excluded */
  {
    const char    *cmp[2] = {PCJACOBI, PCRUIZ};
    PetscLogDouble per[2];

    for (PetscInt k = 0; k < 2; k++) {
      KSP      ksp;
      PetscInt done;

      PetscCall(CreateCG(A, cmp[k], &ksp));
      PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_CURRENT, 5));
      PetscCall(KSPSetUp(ksp));
      PetscCall(VecZeroEntries(x));
      PetscCall(KSPSolve(ksp, b, x)); /* warm-up (first-use costs of the vector and reduction kernels): not timed */
      PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_CURRENT, its));
      PetscCall(VecZeroEntries(x));
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      PetscCall(KSPGetIterationNumber(ksp, &done));
      per[k] = (t1 - t0) / PetscMax(done, 1);
      PetscCall(PetscPrintf(comm, "CG + %s: %" PetscInt_FMT " iterations timed\n", cmp[k], done));
      PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(PetscPrintf(comm, "time: per CG iteration: jacobi %.2f us, ruiz %.2f us (ratio %.3f); ruiz at least as fast: %s\n", 1e6 * per[0], 1e6 * per[1], per[1] / per[0], per[1] <= per[0] ? "yes" : "no"));
  }

  /* (3) residual norm of the original system against time */
  {
    HistCtx h;

    h.fp = NULL;
    if (hascsv) {
      PetscCall(PetscFOpen(comm, csv, "w", &h.fp));
      PetscCall(PetscFPrintf(comm, h.fp, "pc,iteration,time_us,rnorm\n"));
    }
    for (PetscInt k = 0; k < npcs; k++) {
      KSP             ksp;
      MSTestSolveInfo info;
      PetscLogDouble  tsetup;
      char            prefix[64];

      PetscCall(CreateCG(A, pcs[k], &ksp));
      PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
      PetscCall(KSPSetTolerances(ksp, hrtol, 0.0, PETSC_CURRENT, hmaxit));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(KSPSetUp(ksp));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      tsetup = t1 - t0;
      h.pc = pcs[k];
      PetscCall(KSPMonitorSet(ksp, HistMonitor, &h, NULL));
      PetscCall(VecZeroEntries(x));
      PetscCall(Sync());
      PetscCall(PetscTime(&h.t0));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      /* the true residual within 10 hist_rtol (the recursive, unpreconditioned one of CG is within hist_rtol) */
      PetscCall(MSTestSolveCheck(ksp, b, x, 10 * hrtol, &info));
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "history CG + %s: ", pcs[k]));
      PetscCall(MSTestSolveInfoPrint(comm, prefix, &info));
      PetscCall(PetscPrintf(comm, "time: history CG + %s: %" PetscInt_FMT " iterations, setup %.3f ms, solve %.3f ms\n", pcs[k], info.its, 1e3 * tsetup, 1e3 * (t1 - h.t0)));
      if (h.fp) PetscCall(PetscFPrintf(comm, h.fp, "# %s setup_us %.3f\n", pcs[k], 1e6 * tsetup));
      PetscCall(KSPDestroy(&ksp));
    }
    if (h.fp) PetscCall(PetscFClose(comm, h.fp));
  }
  for (PetscInt k = 0; k < npcs; k++) PetscCall(PetscFree(pcs[k]));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # small runs: the program works and every CG of the history converges with its true residual within 10 x
   # -hist_rtol; measured times and the history's iteration counts (they may differ by one between process
   # counts and devices) are on the 'time:' lines, filtered out
   testset:
     args: -n 12 -nmult 2 -its 20 -hist_max_it 2000 -hist_rtol 1e-8
     filter: grep -v "^time:"
     output_file: output/ex1_small.out
     test:
       suffix: small
       nsize: {{1 3}}
     test:
       suffix: small_aij
       args: -mat_type aij
     test:
       suffix: cuda
       requires: cuda
       nsize: {{1 3}}
       args: -mat_type {{modsell aijcusparse}}

TEST*/
