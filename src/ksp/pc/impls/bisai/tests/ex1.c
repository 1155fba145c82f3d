static char help[] = "Tests PCBISAI on the block problems of the suite (examples/problems/problems.h): the block ILU(0)\n\
factors and the approximate inverses against explicit dense computations, convergence of Krylov methods, iterations\n\
against the level, value-only changes, and the errors (the kernels, CUDA against the reference: src/ksp/pc/tests/ex2.c).\n\
  -mode check     L M_L = I and U M_U = I on the patterns, M_L and M_U equal the dense solutions of the restricted\n\
                  systems, L U = A on the block pattern of A\n\
  -mode solve     KSPSolve from the options; converged and true residual\n\
  -mode levels    the same solve with levels 1, 2, 3: the iterations do not rise\n\
  -mode reuse     solve, change the values (same pattern), solve again: factors equal a fresh setup's\n\
  -mode singular  block row -bad_block of the operator zeroed: the error names it\n\
  -mode badbs     an operator of block size 9: the error\n\
Problem options of problems.h (-problem vorticity|blockdiff, -n, -bs, ...).\n";

#include <petscksp.h>
#include <petscmodsell.h>
#include <mstestpc.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the suite's readers and writers are not used here */
#include "../../../../../../examples/problems/problems.h"
#pragma GCC diagnostic pop

typedef enum {
  MODE_CHECK,
  MODE_SOLVE,
  MODE_LEVELS,
  MODE_REUSE,
  MODE_SINGULAR,
  MODE_BADBS
} Mode;
static const char *const Modes[] = {"check", "solve", "levels", "reuse", "singular", "badbs", "Mode", "MODE_", NULL};

/* column-major dense copy of a sequential matrix */
static PetscErrorCode DenseCopy(Mat M, PetscInt *n, PetscScalar **d)
{
  Mat                D;
  const PetscScalar *a;
  PetscInt           lda;

  PetscFunctionBegin;
  PetscCall(MatConvert(M, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatGetSize(D, n, NULL));
  PetscCall(MatDenseGetLDA(D, &lda));
  PetscCall(PetscMalloc1(PetscMax(*n * *n, 1), d));
  PetscCall(MatDenseGetArrayRead(D, &a));
  for (PetscInt j = 0; j < *n; j++)
    for (PetscInt i = 0; i < *n; i++) (*d)[i + j * *n] = a[i + j * lda];
  PetscCall(MatDenseRestoreArrayRead(D, &a));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x (n x nrhs, column-major, in: right-hand sides) <- A^-1 x, A (n x n column-major) overwritten; partial pivoting */
static PetscErrorCode DenseSolve(PetscInt n, PetscScalar *A, PetscInt nrhs, PetscScalar *x)
{
  PetscFunctionBegin;
  for (PetscInt c = 0; c < n; c++) {
    PetscInt piv = c;
    for (PetscInt r = c + 1; r < n; r++)
      if (PetscAbsScalar(A[r + c * n]) > PetscAbsScalar(A[piv + c * n])) piv = r;
    PetscCheck(PetscAbsScalar(A[piv + c * n]) > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "singular restricted system");
    if (piv != c) {
      for (PetscInt t = 0; t < n; t++) {
        const PetscScalar w = A[c + t * n];
        A[c + t * n]        = A[piv + t * n];
        A[piv + t * n]      = w;
      }
      for (PetscInt t = 0; t < nrhs; t++) {
        const PetscScalar w = x[c + t * n];
        x[c + t * n]        = x[piv + t * n];
        x[piv + t * n]      = w;
      }
    }
    for (PetscInt r = c + 1; r < n; r++) {
      const PetscScalar f = A[r + c * n] / A[c + c * n];
      if (f == 0.0) continue;
      for (PetscInt t = c; t < n; t++) A[r + t * n] -= f * A[c + t * n];
      for (PetscInt t = 0; t < nrhs; t++) x[r + t * n] -= f * x[c + t * n];
    }
  }
  for (PetscInt c = n - 1; c >= 0; c--)
    for (PetscInt t = 0; t < nrhs; t++) {
      PetscScalar s = x[c + t * n];
      for (PetscInt k = c + 1; k < n; k++) s -= A[c + k * n] * x[k + t * n];
      x[c + t * n] = s / A[c + c * n];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For an approximate inverse M (BAIJ) of the triangular T (dense, n): the largest |(T M)_ij - delta_ij| over the
   blocks of M's pattern, and the largest difference between M's columns and the dense solutions of the restricted
   systems T(J,J) X = E_j, relative to max |M| */
static PetscErrorCode CheckInverse(Mat M, PetscInt bs, const PetscScalar *T, PetscReal *eid, PetscReal *eexp)
{
  PetscInt        n, nb, *cnt, *start, *rows;
  const PetscInt *ia, *ja;
  PetscBool       done;
  PetscScalar    *Md;
  PetscReal       mmax = 0;

  PetscFunctionBegin;
  *eid  = 0;
  *eexp = 0;
  PetscCall(DenseCopy(M, &n, &Md));
  for (PetscInt e = 0; e < n * n; e++) mmax = PetscMax(mmax, PetscAbsScalar(Md[e]));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ia, &ja, &done));
  PetscCheck(done && nb * bs == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block pattern");
  /* (T M) on the pattern */
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt p = ia[i]; p < ia[i + 1]; p++)
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt c = 0; c < bs; c++) {
          const PetscInt row = i * bs + r, col = ja[p] * bs + c;
          PetscScalar    s   = 0;
          for (PetscInt k = 0; k < n; k++) s += T[row + k * n] * Md[k + col * n];
          *eid = PetscMax(*eid, PetscAbsScalar(s - (row == col ? 1.0 : 0.0)));
        }
  /* the columns' pattern rows */
  PetscCall(PetscCalloc3(nb, &cnt, nb + 1, &start, PetscMax(ia[nb], 1), &rows));
  for (PetscInt p = 0; p < ia[nb]; p++) cnt[ja[p]]++;
  for (PetscInt j = 0; j < nb; j++) start[j + 1] = start[j] + cnt[j];
  for (PetscInt j = 0; j < nb; j++) cnt[j] = 0;
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt p = ia[i]; p < ia[i + 1]; p++) rows[start[ja[p]] + cnt[ja[p]]++] = i;
  for (PetscInt j = 0; j < nb; j++) {
    const PetscInt nj = cnt[j] * bs, *J = rows + start[j];
    PetscScalar   *S, *X;

    PetscCall(PetscCalloc2(nj * nj, &S, nj * bs, &X));
    for (PetscInt a = 0; a < cnt[j]; a++)
      for (PetscInt b = 0; b < cnt[j]; b++)
        for (PetscInt r = 0; r < bs; r++)
          for (PetscInt c = 0; c < bs; c++) S[(a * bs + r) + (b * bs + c) * nj] = T[(J[a] * bs + r) + (J[b] * bs + c) * n];
    for (PetscInt a = 0; a < cnt[j]; a++)
      if (J[a] == j)
        for (PetscInt r = 0; r < bs; r++) X[(a * bs + r) + r * nj] = 1.0;
    PetscCall(DenseSolve(nj, S, bs, X));
    for (PetscInt a = 0; a < cnt[j]; a++)
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt c = 0; c < bs; c++) *eexp = PetscMax(*eexp, PetscAbsScalar(X[(a * bs + r) + c * nj] - Md[(J[a] * bs + r) + (j * bs + c) * n]) / PetscMax(mmax, 1e-300));
    PetscCall(PetscFree2(S, X));
  }
  PetscCall(PetscFree3(cnt, start, rows));
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ia, &ja, &done));
  PetscCall(PetscFree(Md));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ModeCheck(KSP ksp, Mat A, PetscInt bs)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)ksp);
  PC           pc;
  Mat          L, U, ML, MU, Ad;
  PetscScalar *Ld, *Ud, *Ad_;
  PetscInt     n, nb;
  PetscReal    e[5] = {0, 0, 0, 0, 0}, amax = 0;
  PetscBool    mpi;

  PetscFunctionBegin;
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCBISAIGetFactors(pc, &L, &U, &ML, &MU));
  PetscCall(DenseCopy(L, &n, &Ld));
  PetscCall(DenseCopy(U, &n, &Ud));
  PetscCall(CheckInverse(ML, bs, Ld, &e[0], &e[1]));
  PetscCall(CheckInverse(MU, bs, Ud, &e[2], &e[3]));
  /* L U = A on the block pattern of A (the diagonal block of this process) */
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &mpi, MATMPIAIJ, MATMPIBAIJ, ""));
  if (mpi) PetscCall(MatGetDiagonalBlock(A, &Ad));
  else Ad = A;
  {
    Mat Ah;
    PetscCall(MatConvert(Ad, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ah)); /* host, any AIJ-family or BAIJ type */
    PetscCall(DenseCopy(Ah, &n, &Ad_));
    PetscCall(MatDestroy(&Ah));
  }
  nb = n / bs;
  for (PetscInt k = 0; k < n * n; k++) amax = PetscMax(amax, PetscAbsScalar(Ad_[k]));
  for (PetscInt bi = 0; bi < nb; bi++)
    for (PetscInt bj = 0; bj < nb; bj++) {
      PetscBool nz = PETSC_FALSE;
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt c = 0; c < bs; c++)
          if (Ad_[(bi * bs + r) + (bj * bs + c) * n] != 0.0) nz = PETSC_TRUE;
      if (!nz) continue;
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt c = 0; c < bs; c++) {
          const PetscInt row = bi * bs + r, col = bj * bs + c;
          PetscScalar    s   = 0;
          for (PetscInt k = 0; k < n; k++) s += Ld[row + k * n] * Ud[k + col * n];
          e[4] = PetscMax(e[4], PetscAbsScalar(s - Ad_[row + col * n]) / amax);
        }
    }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, e, 5, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscPrintf(comm, "L M_L = I on the pattern of M_L: %s\n", e[0] < 1e-10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "U M_U = I on the pattern of M_U: %s\n", e[2] < 1e-10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "M_L equals the dense solutions of the restricted systems: %s\n", e[1] < 1e-10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "M_U equals the dense solutions of the restricted systems: %s\n", e[3] < 1e-10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "L U = A on the block pattern of A: %s\n", e[4] < 1e-10 ? "yes" : "NO"));
  if (e[0] >= 1e-10 || e[1] >= 1e-10 || e[2] >= 1e-10 || e[3] >= 1e-10 || e[4] >= 1e-10) PetscCall(PetscPrintf(comm, "  errors %g %g %g %g %g\n", (double)e[0], (double)e[1], (double)e[2], (double)e[3], (double)e[4]));
  PetscCall(PetscFree(Ld));
  PetscCall(PetscFree(Ud));
  PetscCall(PetscFree(Ad_));
  PetscCall(MatDestroy(&L));
  PetscCall(MatDestroy(&U));
  PetscCall(MatDestroy(&ML));
  PetscCall(MatDestroy(&MU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateKSP(Mat A, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(*ksp, 30));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCBISAI));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* largest relative difference of two sequential matrices of the same size */
static PetscErrorCode MatRelDiff(Mat X, Mat Y, PetscReal *d)
{
  Mat       Dx;
  PetscReal nx, nd;

  PetscFunctionBegin;
  PetscCall(MatConvert(X, MATSEQAIJ, MAT_INITIAL_MATRIX, &Dx));
  PetscCall(MatNorm(Dx, NORM_FROBENIUS, &nx));
  {
    Mat Dy;
    PetscCall(MatConvert(Y, MATSEQAIJ, MAT_INITIAL_MATRIX, &Dy));
    PetscCall(MatAXPY(Dx, -1.0, Dy, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&Dy));
  }
  PetscCall(MatNorm(Dx, NORM_FROBENIUS, &nd));
  *d = nd / PetscMax(nx, 1e-300);
  PetscCall(MatDestroy(&Dx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareFactors(KSP k1, KSP k2, PetscReal *d)
{
  PC  p1, p2;
  Mat F1[4], F2[4];

  PetscFunctionBegin;
  PetscCall(KSPGetPC(k1, &p1));
  PetscCall(KSPGetPC(k2, &p2));
  PetscCall(PCBISAIGetFactors(p1, &F1[0], &F1[1], &F1[2], &F1[3]));
  PetscCall(PCBISAIGetFactors(p2, &F2[0], &F2[1], &F2[2], &F2[3]));
  for (PetscInt i = 0; i < 4; i++) {
    PetscCall(MatRelDiff(F1[i], F2[i], &d[i]));
    PetscCall(MatDestroy(&F1[i]));
    PetscCall(MatDestroy(&F2[i]));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, d, 4, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)k1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Problem   p;
  Mat       A;
  Vec       b, x;
  KSP       ksp;
  Mode      mode = MODE_CHECK;
  PetscInt  bad_block = 5;
  MPI_Comm  comm;
  PetscReal rtol_true = 1e-5;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "PCBISAI test", "");
  PetscCall(PetscOptionsEnum("-mode", "What to test", "", Modes, (PetscEnum)mode, (PetscEnum *)&mode, NULL));
  PetscCall(PetscOptionsInt("-bad_block", "Block row zeroed by -mode singular", "", bad_block, &bad_block, NULL));
  PetscCall(PetscOptionsReal("-rtol_true", "Bound on the true relative residual", "", rtol_true, &rtol_true, NULL));
  PetscOptionsEnd();

  if (mode == MODE_BADBS) { /* a diagonal matrix of block size 9 */
    PetscCall(MatCreate(comm, &A));
    PetscCall(MatSetSizes(A, 18, 18, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(A, 9));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatSetUp(A));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatShift(A, 1.0));
    PetscCall(CreateKSP(A, &ksp));
    PetscCall(KSPSetUp(ksp));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }

  PetscCall(ProblemInitialize(comm, &p));
  p.type = PROB_VORTICITY;
  p.dim  = 2;
  p.nx = p.ny = p.nz = 8;
  PetscCall(ProblemSetFromOptions(&p));
  PetscCall(ProblemGenerate(&p));
  PetscCall(ProblemCreateMat(&p, NULL, MATAIJ, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(ProblemSetVec(&p, p.s.rhs, b));

  switch (mode) {
  case MODE_CHECK:
    PetscCall(CreateKSP(A, &ksp));
    PetscCall(ModeCheck(ksp, A, p.bs));
    break;
  case MODE_SOLVE:
    PetscCall(CreateKSP(A, &ksp));
    PetscCall(MSTestSolveReport(ksp, b, x, rtol_true, "", NULL));
    break;
  case MODE_LEVELS: {
    PetscInt its[3];
    for (PetscInt k = 0; k < 3; k++) {
      PC              pc;
      MSTestSolveInfo info;

      PetscCall(CreateKSP(A, &ksp));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCBISAISetLevel(pc, k + 1));
      PetscCall(VecZeroEntries(x));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(MSTestSolveCheck(ksp, b, x, rtol_true, &info));
      PetscCall(PetscPrintf(comm, "level %" PetscInt_FMT ": ", k + 1));
      PetscCall(MSTestSolveInfoPrint(comm, "", &info));
      its[k] = info.its;
      if (k < 2) PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(PetscPrintf(comm, "iterations of level 2 <= level 1: %s\n", its[1] <= its[0] ? "yes" : "NO"));
    PetscCall(PetscPrintf(comm, "iterations of level 3 <= level 2: %s\n", its[2] <= its[1] ? "yes" : "NO"));
    PetscCall(PetscPrintf(comm, "iterations of level 3 < level 1: %s\n", its[2] < its[0] ? "yes" : "NO"));
  } break;
  case MODE_REUSE: {
    Mat       B;
    KSP       fresh;
    PetscReal d[4];

    PetscCall(CreateKSP(A, &ksp));
    PetscCall(MSTestSolveReport(ksp, b, x, rtol_true, "first values: ", NULL));
    PetscCall(MatScale(A, 0.5));
    PetscCall(MatShift(A, 0.25));
    PetscCall(MSTestSolveReport(ksp, b, x, rtol_true, "new values:   ", NULL));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    PetscCall(CreateKSP(B, &fresh));
    PetscCall(KSPSetUp(fresh));
    PetscCall(CompareFactors(ksp, fresh, d));
    PetscCall(PetscPrintf(comm, "factors and inverses after the value change equal a fresh setup's: %s\n", (d[0] < 1e-14 && d[1] < 1e-14 && d[2] < 1e-14 && d[3] < 1e-14) ? "yes" : "NO"));
    PetscCall(KSPDestroy(&fresh));
    PetscCall(MatDestroy(&B));
  } break;
  case MODE_SINGULAR: {
    PetscInt *rows, rs, re, nr = 0;

    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    PetscCall(PetscMalloc1(p.bs, &rows));
    for (PetscInt r = bad_block * p.bs; r < (bad_block + 1) * p.bs; r++)
      if (r >= rs && r < re) rows[nr++] = r;
    PetscCall(MatSetOption(A, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatZeroRows(A, nr, rows, 0.0, NULL, NULL));
    PetscCall(PetscFree(rows));
    PetscCall(CreateKSP(A, &ksp));
    PetscCall(KSPSetUp(ksp));
  } break;
  default:
    SETERRQ(comm, PETSC_ERR_SUP, "mode");
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
      args: -mode check -problem {{vorticity blockdiff}separate output} -n 6
      output_file: output/ex1_check.out
      test:
         suffix: check_1
      test:
         suffix: check_3
         nsize: 3
      test:
         suffix: check_k3
         args: -pc_bisai_level 3
      test:
         suffix: check_k2_3
         nsize: 3
         args: -pc_bisai_level 2
      test:
         suffix: check_sweeps
         args: -pc_bisai_ilu sweeps -pc_bisai_ilu_sweeps 80 -pc_bisai_level 2
      test:
         suffix: check_baij
         args: -mat_type baij -pc_bisai_level 2
      test:
         suffix: check_baij_3
         nsize: 3
         args: -mat_type baij

   test:
      suffix: check_bs
      args: -mode check -problem blockdiff -n 6 -bs {{1 2 3 4}} -pc_bisai_level 2
      output_file: output/ex1_check.out

   testset:
      args: -mode solve -problem {{vorticity blockdiff}separate output} -n 16 -ksp_type {{gmres bcgs}separate output}
      test:
         suffix: solve_1
         output_file: output/ex1_solve.out
      test:
         suffix: solve_3
         nsize: 3
         output_file: output/ex1_solve.out
      test:
         suffix: solve_modsell
         args: -mat_type modsell
         output_file: output/ex1_solve.out
      test:
         suffix: solve_sweeps
         args: -pc_bisai_ilu sweeps -pc_bisai_ilu_sweeps 5 -pc_bisai_level 2
         output_file: output/ex1_solve.out

   test:
      suffix: levels
      args: -mode levels -problem blockdiff -n 24 -bs 5
   test:
      suffix: levels_vort
      args: -mode levels -problem vorticity -n 24
      output_file: output/ex1_levels.out

   test:
      suffix: reuse
      nsize: {{1 3}}
      args: -mode reuse -problem blockdiff -n 12 -bs 3 -pc_bisai_level 2 -ksp_view
      filter: grep -E "patterns:|values|fresh"

   test:
      suffix: view_spmv
      args: -mode solve -problem vorticity -n 8 -ksp_view -pc_bisai_spmv cusparse
      filter: grep -E "apply: two block"

   test:
      suffix: view
      args: -mode solve -problem vorticity -n 8 -ksp_view -pc_bisai_level 2
      filter: grep -E "block-ISAI|block size|nonzero blocks" | sed -e "s/M_L + M_U: [0-9.]* x A/M_L + M_U: R x A/"

   test:
      requires: cuda
      suffix: cuda_view_cusparse
      args: -mode solve -mat_type aijcusparse -problem vorticity -n 8 -ksp_view -pc_bisai_spmv {{own cusparse}separate output}
      filter: grep -E "apply: two block"

   test:
      requires: cuda
      suffix: cuda_view_cusparse_bs1
      args: -mode solve -mat_type aijcusparse -problem blockdiff -bs 1 -n 8 -ksp_view -pc_bisai_spmv cusparse
      filter: grep -E "apply: two block"

   testset:
      requires: cuda
      args: -mode solve -mat_type aijcusparse -problem {{vorticity blockdiff}} -n 16 -ksp_type {{gmres bcgs}}
      output_file: output/ex1_solve.out
      test:
         suffix: cuda_solve
      test:
         suffix: cuda_solve_3
         nsize: 3
      test:
         suffix: cuda_solve_sweeps
         args: -pc_bisai_ilu sweeps -pc_bisai_ilu_sweeps 5 -pc_bisai_level 2

   test:
      suffix: cuda_reuse
      requires: cuda
      args: -mode reuse -problem blockdiff -n 12 -bs 3 -pc_bisai_level 2 -ksp_view -mat_type aijcusparse
      output_file: output/ex1_reuse.out
      filter: grep -E "patterns:|values|fresh"

   test:
      suffix: err_singular
      nsize: {{1 3}}
      args: -mode singular -problem blockdiff -n 6 -bs 3 -bad_block 20
      filter: Error: grep -o "PCBISAI: the diagonal block of block row [0-9]* (rows [0-9]* to [0-9]*)"

   test:
      suffix: err_badbs
      args: -mode badbs
      filter: Error: grep -o "PCBISAI works with block sizes 1 to 8; the operator.s block size is 9"

TEST*/
