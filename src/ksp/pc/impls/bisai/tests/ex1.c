static char help[] = "Tests PCBISAI on the block problems of the suite (examples/problems/problems.h), on finite-element\n\
systems read from files (-problem file) and on matrices built here: the factors and the approximate inverses against\n\
explicit dense computations, the symmetric variant, the Richardson steps, convergence, value-only changes, each\n\
automatic choice and each error (the kernels, CUDA against the reference: src/ksp/pc/tests/ex2.c).\n\
  -mode check      L M_L = I on M_L's pattern and M_L the dense solutions of the restricted systems; the second factor\n\
                   (ILU: U M_U = I and the dense solutions; IC: H = G^T D^-1 and U = D L^T); L U = A on A's pattern\n\
  -mode solve      KSPSolve from the options; converged and true residual\n\
  -mode levels     the same solve with levels 1, 2, 3 (no Richardson steps): the iterations do not rise\n\
  -mode reuse      solve, change the values (same pattern), solve again: factors equal a fresh setup's\n\
  -mode spd        the symmetric variant: x^T M y = y^T M x and x^T M x > 0 for random x, y (also with steps)\n\
  -mode steps      with 0, 1, 2, 3 Richardson steps the apply approaches the exact solve with the factors L U\n\
  -mode pbjacobi   the KSP from the options with PCBISAI and with PCPBJACOBI: both converge, bisai in fewer iterations\n\
  -mode singular   block row -bad_block of the operator zeroed: the error names it\n\
  -mode nan        a NaN in row -bad_row: the error names it\n\
  -mode badbs      an operator of block size 9: block size 3 chosen (or -pc_bisai_block_size 4: the error)\n\
  -mode breakdown  SPD operator on which IC(0) breaks down (a 4 x 4 matrix repeated along the diagonal): shifted\n\
  -mode indefinite a symmetric Laplacian whose row -bad_row has a negative diagonal: ILU chosen (ic: the error)\n\
  -mode bidiag     lower bidiagonal 1, -2: the approximate inverses are no approximation, even with steps: block\n\
                   Jacobi (the setup and its view only)\n\
Problem options of problems.h (-problem vorticity|blockdiff|convdiff|file, -n, -bs, ...).\n";

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
  MODE_SPD,
  MODE_STEPS,
  MODE_PBJACOBI,
  MODE_SINGULAR,
  MODE_NAN,
  MODE_BADBS,
  MODE_BREAKDOWN,
  MODE_INDEFINITE,
  MODE_BIDIAG
} Mode;
static const char *const Modes[] = {"check", "solve", "levels", "reuse", "spd", "steps", "pbjacobi", "singular", "nan", "badbs", "breakdown", "indefinite", "bidiag", "Mode", "MODE_", NULL};

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

/* the largest |X - Y| over max |X| of two dense n x n arrays */
static PetscReal DenseRelDiff(PetscInt n, const PetscScalar *X, const PetscScalar *Y)
{
  PetscReal d = 0, m = 0;
  for (PetscInt k = 0; k < n * n; k++) {
    d = PetscMax(d, PetscAbsScalar(X[k] - Y[k]));
    m = PetscMax(m, PetscAbsScalar(X[k]));
  }
  return d / PetscMax(m, 1e-300);
}

/* IC variant: H = G^T D^-1 (e[0]) and U = D L^T (e[1]), D the diagonal blocks of U (dense, column-major) */
static PetscErrorCode CheckSymmetricFactors(PetscInt n, PetscInt bs, const PetscScalar *Ld, const PetscScalar *Ud, Mat G, Mat H, PetscReal e[2])
{
  PetscScalar *Gd, *Hd, *W, *B;
  PetscInt     nn;

  PetscFunctionBegin;
  PetscCall(DenseCopy(G, &nn, &Gd));
  PetscCall(DenseCopy(H, &nn, &Hd));
  PetscCall(PetscCalloc2(n * n, &W, bs * bs, &B));
  /* W = G^T D^-1: block (j, i) = G(i, j)^T D_i^-1 = (D_i^-1 G(i, j))^T (D_i symmetric) */
  for (PetscInt i = 0; i < n / bs; i++) {
    PetscScalar *X;

    PetscCall(PetscMalloc1(bs * n, &X));
    for (PetscInt r = 0; r < bs; r++)
      for (PetscInt c = 0; c < bs; c++) B[r + c * bs] = Ud[(i * bs + r) + (i * bs + c) * n];
    for (PetscInt c = 0; c < n; c++) /* X = G(rows of block i, all columns) */
      for (PetscInt r = 0; r < bs; r++) X[r + c * bs] = Gd[(i * bs + r) + c * n];
    PetscCall(DenseSolve(bs, B, n, X)); /* D_i^-1 G(i, :) */
    for (PetscInt c = 0; c < n; c++)
      for (PetscInt r = 0; r < bs; r++) W[c + (i * bs + r) * n] = X[r + c * bs];
    PetscCall(PetscFree(X));
  }
  e[0] = DenseRelDiff(n, Hd, W);
  /* W = D L^T */
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt c = 0; c < n; c++) {
      PetscScalar s = 0;
      for (PetscInt k = (r / bs) * bs; k < (r / bs + 1) * bs; k++) s += Ud[r + k * n] * Ld[c + k * n];
      W[r + c * n] = s;
    }
  e[1] = DenseRelDiff(n, Ud, W);
  PetscCall(PetscFree2(W, B));
  PetscCall(PetscFree(Gd));
  PetscCall(PetscFree(Hd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ModeCheck(KSP ksp, Mat A, PetscInt bs)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  PC             pc;
  Mat            L, U, ML, MU, Ad;
  PetscScalar   *Ld, *Ud, *Ad_;
  PetscInt       n, nb;
  PetscReal      e[5] = {0, 0, 0, 0, 0}, amax = 0;
  PetscBool      mpi;
  PCBISAIVariant variant;

  PetscFunctionBegin;
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCBISAIGetVariant(pc, &variant));
  PetscCall(PCBISAIGetFactors(pc, &L, &U, &ML, &MU));
  PetscCall(DenseCopy(L, &n, &Ld));
  PetscCall(DenseCopy(U, &n, &Ud));
  PetscCall(CheckInverse(ML, bs, Ld, &e[0], &e[1]));
  if (variant == PCBISAI_VARIANT_ILU) PetscCall(CheckInverse(MU, bs, Ud, &e[2], &e[3]));
  else PetscCall(CheckSymmetricFactors(n, bs, Ld, Ud, ML, MU, &e[2]));
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
  PetscCall(PetscPrintf(comm, "M_L equals the dense solutions of the restricted systems: %s\n", e[1] < 1e-10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "the second factor: U M_U = I on the pattern of M_U (ILU), or H = G^T D^-1 (IC): %s\n", e[2] < 1e-10 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "the second factor: M_U equals the dense solutions (ILU), or U = D L^T (IC): %s\n", e[3] < 1e-10 ? "yes" : "NO"));
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

/* x^T M y = y^T M x and x^T M x > 0 (M the preconditioner of ksp, set up) for random vectors */
static PetscErrorCode ModeSPD(Mat A, PetscInt steps)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  KSP         ksp;
  PC          pc;
  Vec         x, y, Mx, My;
  PetscRandom rnd;
  PetscScalar xMy, yMx, xMx;
  PetscReal   nx, nMx, asym = 0, minq = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCall(CreateKSP(A, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCBISAISetSteps(pc, steps));
  PetscCall(KSPSetUp(ksp));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(x, &Mx));
  PetscCall(VecDuplicate(x, &My));
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt k = 0; k < 4; k++) {
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecSetRandom(y, rnd));
    PetscCall(PCApply(pc, x, Mx));
    PetscCall(PCApply(pc, y, My));
    PetscCall(VecDot(My, x, &xMy));
    PetscCall(VecDot(Mx, y, &yMx));
    PetscCall(VecDot(Mx, x, &xMx));
    PetscCall(VecNorm(x, NORM_2, &nx));
    PetscCall(VecNorm(Mx, NORM_2, &nMx));
    asym = PetscMax(asym, PetscAbsScalar(xMy - yMx) / (nx * nMx));
    minq = PetscMin(minq, PetscRealPart(xMx) / (nx * nMx));
  }
  PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " Richardson steps: x^T M y = y^T M x: %s\n", steps, asym < 1e-12 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " Richardson steps: x^T M x > 0: %s\n", steps, minq > 0 ? "yes" : "NO"));
  if (asym >= 1e-12 || minq <= 0) PetscCall(PetscPrintf(comm, "  asymmetry %g, smallest x^T M x / (|x| |M x|) %g\n", (double)asym, (double)minq));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&Mx));
  PetscCall(VecDestroy(&My));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the apply with 0..3 Richardson steps against the exact solve with the factors, z* = U^-1 L^-1 r on each process
   (block Jacobi across processes: the factors are per process) */
static PetscErrorCode ModeSteps(Mat A, Vec r)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  PetscReal          err[4];
  Vec                z;
  const PetscScalar *ra, *za;
  PetscScalar       *ex = NULL;
  PetscInt           n = 0;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(r, &z));
  for (PetscInt s = 0; s < 4; s++) {
    KSP       ksp;
    PC        pc;
    PetscReal loc[2] = {0, 0};

    PetscCall(CreateKSP(A, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCBISAISetSteps(pc, s));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PCApply(pc, r, z));
    if (s == 0) { /* the exact solve: dense L and U of this process */
      Mat          L, U;
      PetscScalar *Ld, *Ud;

      PetscCall(PCBISAIGetFactors(pc, &L, &U, NULL, NULL));
      PetscCall(DenseCopy(L, &n, &Ld));
      PetscCall(DenseCopy(U, &n, &Ud));
      PetscCall(PetscMalloc1(PetscMax(n, 1), &ex));
      PetscCall(VecGetArrayRead(r, &ra));
      for (PetscInt i = 0; i < n; i++) ex[i] = ra[i];
      PetscCall(VecRestoreArrayRead(r, &ra));
      PetscCall(DenseSolve(n, Ld, 1, ex));
      PetscCall(DenseSolve(n, Ud, 1, ex));
      PetscCall(PetscFree(Ld));
      PetscCall(PetscFree(Ud));
      PetscCall(MatDestroy(&L));
      PetscCall(MatDestroy(&U));
    }
    PetscCall(VecGetArrayRead(z, &za));
    for (PetscInt i = 0; i < n; i++) {
      loc[0] += PetscRealPart((za[i] - ex[i]) * PetscConj(za[i] - ex[i]));
      loc[1] += PetscRealPart(ex[i] * PetscConj(ex[i]));
    }
    PetscCall(VecRestoreArrayRead(z, &za));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, loc, 2, MPIU_REAL, MPIU_SUM, comm));
    err[s] = PetscSqrtReal(loc[0] / loc[1]);
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscPrintf(comm, "1 Richardson step closer to the exact solve with the factors than none: %s\n", err[1] < err[0] ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "2 steps closer than 1: %s\n", err[2] < err[1] ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "3 steps closer than 2: %s\n", err[3] < err[2] ? "yes" : "NO"));
  if (!(err[1] < err[0] && err[2] < err[1] && err[3] < err[2])) PetscCall(PetscPrintf(comm, "  errors %g %g %g %g\n", (double)err[0], (double)err[1], (double)err[2], (double)err[3]));
  PetscCall(PetscFree(ex));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Matrices built here (bs 1 unless said): 
     badbs      a diagonal matrix of block size 9, 18 rows per process;
     breakdown  the SPD 4 x 4 matrix [3 -2 0 2; -2 3 -2 0; 0 -2 3 -2; 2 0 -2 3], on which incomplete Cholesky with
                no fill breaks down (its last pivot is -5), repeated along the diagonal, 8 times per process;
     indefinite the 2D 5-point Laplacian of an n x n grid, row bad_row's diagonal -4 (symmetric, not definite);
     bidiag     lower bidiagonal, 1 on the diagonal, -2 below, n^2 rows */
static PetscErrorCode BuildMatrix(MPI_Comm comm, Mode mode, PetscInt n, PetscInt bad_row, Mat *A)
{
  PetscInt rs, re, N;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  if (mode == MODE_BADBS) {
    PetscCall(MatSetSizes(*A, 18, 18, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(*A, 9));
  } else if (mode == MODE_BREAKDOWN) PetscCall(MatSetSizes(*A, 32, 32, PETSC_DETERMINE, PETSC_DETERMINE));
  else PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscInt i = rs; i < re; i++) {
    if (mode == MODE_BADBS) PetscCall(MatSetValue(*A, i, i, 1.0, INSERT_VALUES));
    else if (mode == MODE_BREAKDOWN) {
      static const PetscScalar K[4][4] = {
        {3,  -2, 0,  2 },
        {-2, 3,  -2, 0 },
        {0,  -2, 3,  -2},
        {2,  0,  -2, 3 }
      };
      const PetscInt b = i / 4, r = i % 4;
      for (PetscInt c = 0; c < 4; c++)
        if (K[r][c] != 0.0) PetscCall(MatSetValue(*A, i, 4 * b + c, K[r][c], INSERT_VALUES));
    } else if (mode == MODE_INDEFINITE) {
      const PetscInt x = i % n, y = i / n;
      PetscCall(MatSetValue(*A, i, i, i == bad_row ? -4.0 : 4.0, INSERT_VALUES));
      if (x > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
      if (x < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -1.0, INSERT_VALUES));
      if (y > 0) PetscCall(MatSetValue(*A, i, i - n, -1.0, INSERT_VALUES));
      if (y < n - 1) PetscCall(MatSetValue(*A, i, i + n, -1.0, INSERT_VALUES));
    } else { /* bidiag */
      PetscCall(MatSetValue(*A, i, i, 1.0, INSERT_VALUES));
      if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -2.0, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Problem   p;
  Mat       A;
  Vec       b, x;
  KSP       ksp;
  Mode      mode = MODE_CHECK;
  PetscInt  bad_block = 5, bad_row = 3, n = 8;
  MPI_Comm  comm;
  PetscReal rtol_true = 1e-5;
  PetscBool mark_spd  = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "PCBISAI test", "");
  PetscCall(PetscOptionsEnum("-mode", "What to test", "", Modes, (PetscEnum)mode, (PetscEnum *)&mode, NULL));
  PetscCall(PetscOptionsInt("-bad_block", "Block row zeroed by -mode singular", "", bad_block, &bad_block, NULL));
  PetscCall(PetscOptionsInt("-bad_row", "Row of the NaN of -mode nan, of the negative diagonal of -mode indefinite", "", bad_row, &bad_row, NULL));
  PetscCall(PetscOptionsInt("-grid", "Grid n x n of -mode indefinite and bidiag", "", n, &n, NULL));
  PetscCall(PetscOptionsBool("-mark_spd", "Mark the operator SPD (MAT_SPD)", "", mark_spd, &mark_spd, NULL));
  PetscCall(PetscOptionsReal("-rtol_true", "Bound on the true relative residual", "", rtol_true, &rtol_true, NULL));
  PetscOptionsEnd();

  if (mode == MODE_BADBS || mode == MODE_BREAKDOWN || mode == MODE_INDEFINITE || mode == MODE_BIDIAG) { /* a matrix built here */
    PetscCall(BuildMatrix(comm, mode, n, bad_row, &A));
    if (mark_spd) PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(CreateKSP(A, &ksp));
    if (mode == MODE_BIDIAG) { /* its condition number is 2^(n^2): only the setup's choice */
      PetscCall(KSPSetUp(ksp));
      PetscCall(KSPView(ksp, PETSC_VIEWER_STDOUT_WORLD));
    } else PetscCall(MSTestSolveReport(ksp, b, x, rtol_true, "", NULL));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
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
  case MODE_SPD:
    PetscCall(ModeSPD(A, 0));
    PetscCall(ModeSPD(A, 2));
    ksp = NULL;
    break;
  case MODE_STEPS:
    PetscCall(ModeSteps(A, b));
    ksp = NULL;
    break;
  case MODE_PBJACOBI: {
    MSTestSolveInfo ib, ij;
    KSP             kj;
    PC              pcj;

    PetscCall(CreateKSP(A, &ksp));
    PetscCall(MSTestSolveReport(ksp, b, x, rtol_true, "PCBISAI:   ", &ib));
    PetscCall(CreateKSP(A, &kj));
    PetscCall(KSPGetPC(kj, &pcj));
    PetscCall(PCSetType(pcj, PCPBJACOBI));
    PetscCall(VecZeroEntries(x));
    PetscCall(MSTestSolveReport(kj, b, x, rtol_true, "PCPBJACOBI: ", &ij));
    PetscCall(PetscPrintf(comm, "iterations of PCBISAI fewer than PCPBJACOBI's: %s\n", ib.its < ij.its ? "yes" : "NO"));
    PetscCall(KSPDestroy(&kj));
  } break;
  case MODE_NAN: {
    PetscInt rs, re;

    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    if (bad_row >= rs && bad_row < re) PetscCall(MatSetValue(A, bad_row, bad_row, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(CreateKSP(A, &ksp));
    PetscCall(KSPSetUp(ksp));
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

   # the factors and the approximate inverses against dense computations: the ILU variant (vorticity and blockdiff
   # are not symmetric), the symmetric variant (blockdiff without its reaction term is SPD, dense 3 x 3 blocks)
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

   testset:
      args: -mode check -problem blockdiff -sigma 0 -bs {{1 3}} -n 6
      output_file: output/ex1_check.out
      test:
         suffix: check_ic
      test:
         suffix: check_ic_3
         nsize: 3
         args: -pc_bisai_level 2
      test:
         suffix: check_ic_sweeps
         args: -pc_bisai_ilu sweeps -pc_bisai_ilu_sweeps 80

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

   # CG with the symmetric variant chosen automatically (the symmetry measured)
   test:
      suffix: solve_cg
      nsize: {{1 3}}
      args: -mode solve -problem blockdiff -sigma 0 -bs 3 -n 16 -ksp_type cg -mat_type {{aij modsell}}
      output_file: output/ex1_solve.out

   # the symmetric variant is symmetric positive definite, with and without Richardson steps
   test:
      suffix: spd
      nsize: {{1 3}}
      args: -mode spd -problem blockdiff -sigma 0 -bs 3 -n 8

   # the Richardson steps approach the exact solve with the factors (ILU variant; symmetric variant)
   testset:
      output_file: output/ex1_steps.out
      test:
         suffix: steps
         nsize: {{1 3}}
         args: -mode steps -problem {{convdiff vorticity}} -n 8
      test:
         suffix: steps_ic
         args: -mode steps -problem blockdiff -sigma 0 -bs 3 -n 8

   test:
      suffix: levels
      args: -mode levels -problem blockdiff -n 24 -bs 5 -pc_bisai_steps 0
   test:
      suffix: levels_vort
      args: -mode levels -problem vorticity -n 24 -pc_bisai_steps 0
      output_file: output/ex1_levels.out

   test:
      suffix: reuse
      nsize: {{1 3}}
      args: -mode reuse -problem blockdiff -n 12 -bs 3 -pc_bisai_level 2 -ksp_view
      filter: grep -E "patterns:|first values|new values|fresh"

   test:
      suffix: view_spmv
      args: -mode solve -problem vorticity -n 8 -ksp_view -pc_bisai_spmv cusparse
      filter: grep -E "apply: block"

   test:
      suffix: view
      args: -mode solve -problem vorticity -n 8 -ksp_view -pc_bisai_level 2
      filter: grep -E "block-ISAI|block size|nonzero blocks|level 2" | sed -e "s/M_L + M_U: [0-9.]* x A/M_L + M_U: R x A/"

   # each automatic choice and why: the variant (symmetric or not, measured), the steps (from the probe)
   testset:
      args: -n 12 -ksp_type gmres -ksp_view
      filter: grep -E "block-ISAI|variant:|Richardson steps" | sed -E -e "s/residuals [0-9.e, +-]+ with/residuals R with/" -e "s/row [0-9]+ has/row R has/"
      test:
         suffix: view_choices
         args: -mode solve -problem blockdiff -sigma 0 -bs 1
      test:
         suffix: view_choices_convdiff
         args: -mode solve -problem convdiff

   # the ILU variant set by the user with CG: allowed, with a warning (none with the automatic choice on a symmetric
   # operator); CG on a nonsymmetric operator: a warning
   testset:
      args: -mode solve -n 8 -ksp_type cg -ksp_view -ksp_max_it 200
      filter: grep -E "WARNING" | sed -E -e "s/row [0-9]+ has/row R has/"
      test:
         suffix: cg_ilu_warning
         args: -problem blockdiff -sigma 0 -bs 1 -pc_bisai_variant {{auto ilu}separate output}
      test:
         suffix: cg_ilu_warning_convdiff
         args: -problem convdiff

   # finite-element systems (scikit-fem): elasticity (block size 3) with CG in the library's numbering and permuted:
   # the symmetric variant, fewer iterations than point-block Jacobi; SUPG (nonsymmetric) with GMRES(30)
   testset:
      requires: skfem !defined(PETSCTEST_VALGRIND)
      test:
         suffix: fem_elasticity
         command: ${PETSCMODSELL_PYTHON} @SRCDIR@/../../../../../../examples/problems/fem/femsystems.py elasticity --n 4 --no-timings --driver ${executable} -- -mode pbjacobi -ksp_type cg -mat_type modsell -ksp_view ${args}
         filter: grep -E "^PCBISAI|^PCPBJACOBI|^iterations|block-ISAI|variant:|block size:"
         output_file: output/ex1_fem_elasticity.out
      test:
         suffix: fem_elasticity_perm
         command: ${PETSCMODSELL_PYTHON} @SRCDIR@/../../../../../../examples/problems/fem/femsystems.py elasticity --n 4 --permute random --no-timings --driver ${executable} -- -mode pbjacobi -ksp_type cg -mat_type modsell -ksp_view ${args}
         filter: grep -E "^PCBISAI|^PCPBJACOBI|^iterations|block-ISAI|variant:|block size:"
         output_file: output/ex1_fem_elasticity.out
      test:
         suffix: fem_elasticity_2
         command: ${PETSCMODSELL_PYTHON} @SRCDIR@/../../../../../../examples/problems/fem/femsystems.py elasticity --n 4 --permute random --no-timings --driver ${executable} --mpiexec '${mpiexec} -n 2' -- -mode pbjacobi -ksp_type cg -mat_type modsell -ksp_view ${args}
         filter: grep -E "^PCBISAI|^PCPBJACOBI|^iterations|block-ISAI|variant:|block size:"
         output_file: output/ex1_fem_elasticity.out
      test:
         suffix: fem_supg
         command: ${PETSCMODSELL_PYTHON} @SRCDIR@/../../../../../../examples/problems/fem/femsystems.py supg --n 10 --no-timings --driver ${executable} -- -mode solve -ksp_type gmres -mat_type modsell -ksp_view ${args}
         filter: grep -E "converged|block-ISAI|variant:" | sed -E -e "s/row [0-9]+ has/row R has/"
         output_file: output/ex1_fem_supg.out
      test:
         suffix: fem_supg_perm
         command: ${PETSCMODSELL_PYTHON} @SRCDIR@/../../../../../../examples/problems/fem/femsystems.py supg --n 10 --permute random --no-timings --driver ${executable} -- -mode solve -ksp_type gmres -mat_type modsell -ksp_view ${args}
         filter: grep -E "converged|block-ISAI|variant:" | sed -E -e "s/row [0-9]+ has/row R has/"
         output_file: output/ex1_fem_supg.out

   test:
      suffix: err_singular
      nsize: {{1 3}}
      args: -mode singular -problem blockdiff -n 6 -bs 3 -bad_block 20
      filter: Error: grep -o "PCBISAI: the diagonal block of block row [0-9]* (rows [0-9]* to [0-9]*) of the block ILU(0) factor U is singular"

   test:
      suffix: err_nan
      nsize: {{1 3}}
      args: -mode nan -problem blockdiff -n 8 -bs 3 -bad_row 136
      filter: Error: grep -o "PCBISAI: row [0-9]* of the operator has an entry that is not finite"

   # an operator of block size 9: block size 3; a block size that does not divide the rows: the error
   test:
      suffix: badbs
      args: -mode badbs -ksp_view
      filter: grep -E "block size"
   test:
      suffix: err_badbs
      args: -mode badbs -pc_bisai_block_size 4
      filter: Error: grep -o "PCBISAI: block size 4 (.*) does not divide the 18 rows of process 0"

   # block IC(0) breaks down on an SPD matrix: shifted, CG converges; without shifts: the error
   test:
      suffix: breakdown
      args: -mode breakdown -ksp_type cg -ksp_view
      filter: grep -E "factorization:|converged"
   test:
      suffix: err_breakdown
      args: -mode breakdown -ksp_type cg -pc_bisai_shift 0
      filter: Error: grep -o "PCBISAI: the block IC(0) factorization broke down at block row [0-9]* (rows [0-9]* to [0-9]*)"

   # a symmetric operator with a negative diagonal entry: the ILU variant; the symmetric variant asked for, or the
   # operator marked SPD: the error naming the row
   test:
      suffix: indefinite
      args: -mode indefinite -bad_row 11 -ksp_view
      filter: grep -E "variant:|converged"
   testset:
      filter: Error: grep -o "PCBISAI: the diagonal block of the operator.s block row [0-9]* (rows [0-9]* to [0-9]*) is not symmetric positive definite"
      output_file: output/ex1_err_indefinite.out
      test:
         suffix: err_indefinite_ic
         args: -mode indefinite -bad_row 11 -pc_bisai_variant ic
      test:
         suffix: err_indefinite_spd
         args: -mode indefinite -bad_row 11 -mark_spd

   # the approximate inverses are no approximation at any level, even with Richardson steps: block Jacobi, said
   test:
      suffix: bidiag
      args: -mode bidiag -grid 8
      filter: grep -E "FALLBACK|converged" | sed -E -e "s/at least [0-9.e+-]+ with/at least E with/"

   # the same on the GPU (the whole setup runs there)
   test:
      requires: cuda
      suffix: cuda_view_cusparse
      args: -mode solve -mat_type aijcusparse -problem vorticity -n 8 -ksp_view -pc_bisai_spmv {{own cusparse}separate output}
      filter: grep -E "apply: block"

   test:
      requires: cuda
      suffix: cuda_view_cusparse_bs1
      args: -mode solve -mat_type aijcusparse -problem blockdiff -bs 1 -n 8 -ksp_view -pc_bisai_spmv cusparse
      filter: grep -E "apply: block"

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
         suffix: cuda_solve_modsell
         args: -mat_type modsell

   testset:
      requires: cuda
      output_file: output/ex1_check.out
      test:
         suffix: cuda_check
         args: -mode check -problem {{vorticity blockdiff}} -n 6 -mat_type aijcusparse -pc_bisai_level {{1 3}}
      test:
         suffix: cuda_check_ic
         args: -mode check -problem blockdiff -sigma 0 -bs {{1 3}} -n 6 -mat_type aijcusparse -pc_bisai_level {{1 2}}
      test:
         suffix: cuda_check_3
         nsize: 3
         args: -mode check -problem vorticity -n 6 -mat_type aijcusparse -pc_bisai_level 2
      test:
         suffix: cuda_check_sweeps
         args: -mode check -problem blockdiff -sigma 0 -bs 3 -n 6 -mat_type aijcusparse -pc_bisai_ilu sweeps -pc_bisai_ilu_sweeps 80

   test:
      requires: cuda
      suffix: cuda_solve_cg
      nsize: {{1 3}}
      args: -mode solve -problem blockdiff -sigma 0 -bs 3 -n 16 -ksp_type cg -mat_type {{aijcusparse modsell}}
      output_file: output/ex1_solve.out

   test:
      requires: cuda
      suffix: cuda_spd
      args: -mode spd -problem blockdiff -sigma 0 -bs 3 -n 8 -mat_type aijcusparse
      output_file: output/ex1_spd.out

   test:
      requires: cuda
      suffix: cuda_steps
      args: -mode steps -problem {{convdiff vorticity}} -n 8 -mat_type aijcusparse
      output_file: output/ex1_steps.out

   test:
      suffix: cuda_reuse
      requires: cuda
      args: -mode reuse -problem blockdiff -n 12 -bs 3 -pc_bisai_level 2 -ksp_view -mat_type aijcusparse
      output_file: output/ex1_reuse.out
      filter: grep -E "patterns:|first values|new values|fresh"

   test:
      requires: cuda
      suffix: cuda_view_choices
      args: -mode solve -problem blockdiff -sigma 0 -bs 1 -n 12 -ksp_type gmres -ksp_view -mat_type aijcusparse
      filter: grep -E "block-ISAI|variant:|Richardson steps" | sed -E -e "s/residuals [0-9.e, +-]+ with/residuals R with/" -e "s/row [0-9]+ has/row R has/"
      output_file: output/ex1_view_choices.out

   testset:
      requires: cuda skfem !defined(PETSCTEST_VALGRIND)
      test:
         suffix: cuda_fem_elasticity
         command: ${PETSCMODSELL_PYTHON} @SRCDIR@/../../../../../../examples/problems/fem/femsystems.py elasticity --n 4 --permute random --no-timings --driver ${executable} -- -mode pbjacobi -ksp_type cg -mat_type {{aijcusparse modsell}} -ksp_view ${args}
         filter: grep -E "^PCBISAI|^PCPBJACOBI|^iterations|block-ISAI|variant:|block size:"
         output_file: output/ex1_fem_elasticity.out

   test:
      requires: cuda
      suffix: cuda_err_nan
      args: -mode nan -problem blockdiff -n 8 -bs 3 -bad_row 136 -mat_type aijcusparse
      filter: Error: grep -o "PCBISAI: row [0-9]* of the operator has an entry that is not finite"
      output_file: output/ex1_err_nan.out

   test:
      requires: cuda
      suffix: cuda_err_singular
      args: -mode singular -problem blockdiff -n 6 -bs 3 -bad_block 20 -mat_type aijcusparse
      filter: Error: grep -o "PCBISAI: the diagonal block of block row [0-9]* (rows [0-9]* to [0-9]*) of the block ILU(0) factor U is singular"
      output_file: output/ex1_err_singular.out

   test:
      requires: cuda
      suffix: cuda_breakdown
      args: -mode breakdown -ksp_type cg -ksp_view -mat_type aijcusparse
      filter: grep -E "factorization:|converged" | sed -e "s/on the GPU/on the host/"
      output_file: output/ex1_breakdown.out

   test:
      requires: cuda
      suffix: cuda_bidiag
      args: -mode bidiag -grid 8 -mat_type aijcusparse
      filter: grep -E "FALLBACK|converged" | sed -E -e "s/at least [0-9.e+-]+ with/at least E with/"
      output_file: output/ex1_bidiag.out

TEST*/
