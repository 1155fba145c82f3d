static char help[] = "PCNEUMANN: the apply against the explicit formula built with Mat operations (each type, per process on the\n"
                     "diagonal block); the deflation's Galerkin property Z^T (r - A z) = 0 on a DMDA; CG with each type, with and\n"
                     "without deflation, on the Laplacian and the suite's two-phase problem.\n"
                     "  -test formula|deflation|galerkin|symmetry|deflgain|coarse|solve|bad|lnorm|compare (GPU)\n"
                     "  -lap: the 5-/7-point Laplacian (-nx -ny -nz) instead of the problem suite (-problem twophase -dim -n -contrast)\n";

/*
   formula:   for neu1, neu2, ip (drop 0) and jacobi the PC's apply equals D^-1/2 K^T K D^-1/2 r (neu) or D^-1/2 (I - L~)(I - L~^T)
              D^-1/2 r (ip), computed here from the scaled strictly lower part L~ of each process's diagonal block
              assembled row by row and its transpose (MatTranspose), to rounding.
   deflation: a DMDA Laplacian, deflation with n boxes per axis per process: after z = PCApply(r), the residual r - A z
              sums to zero over every box (the A-DEF2 apply makes Z^T (r - A z) = 0).
   solve:     KSPCG with the PC from the options, converged with the true residual below a tolerance.
*/
#include <petscmodsell.h>
#include <petscdmda.h>
#include <mstestpc.h>
#include "../../../../../../examples/problems/problems.h"

/* the explicit M^-1 r on this process's diagonal block */
static PetscErrorCode ExplicitApply(Mat A, PCNeumannType type, Vec r, Vec z)
{
  Mat                Ad, L, LT;
  Vec                s, u, v, w, t, rl, zl;
  PetscInt           m, rstart;
  const PetscScalar *ra;
  PetscScalar       *za;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  else Ad = A;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &s));
  PetscCall(MatGetDiagonal(A, z)); /* z: the diagonal for now */
  {
    const PetscScalar *da;
    PetscScalar       *sa;
    PetscCall(VecGetArrayRead(z, &da));
    PetscCall(VecGetArrayWrite(s, &sa));
    for (PetscInt i = 0; i < m; i++) sa[i] = 1.0 / PetscSqrtReal(PetscRealPart(da[i]));
    PetscCall(VecRestoreArrayWrite(s, &sa));
    PetscCall(VecRestoreArrayRead(z, &da));
  }
  /* L~ = strictly lower part of D^-1/2 Ad D^-1/2 */
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, m, 7, NULL, &L));
  PetscCall(MatSetOption(L, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscCall(MatGetRow(Ad, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] < i) PetscCall(MatSetValue(L, i, cols[k], vals[k], INSERT_VALUES));
    PetscCall(MatRestoreRow(Ad, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(L, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(L, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDiagonalScale(L, s, s));
  PetscCall(MatTranspose(L, MAT_INITIAL_MATRIX, &LT));
  PetscCall(VecDuplicate(s, &u));
  PetscCall(VecDuplicate(s, &v));
  PetscCall(VecDuplicate(s, &w));
  PetscCall(VecDuplicate(s, &t));
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, ra, &rl));
  PetscCall(VecPointwiseMult(u, s, rl)); /* u = D^-1/2 r */
  switch (type) {
  case PCNEUMANN_NEU1: /* w = (I - L~^T)(I - L~) u */
    PetscCall(MatMult(L, u, t));
    PetscCall(VecWAXPY(v, -1.0, t, u));
    PetscCall(MatMult(LT, v, t));
    PetscCall(VecWAXPY(w, -1.0, t, v));
    break;
  case PCNEUMANN_NEU2: /* w = (I - L~^T + L~^T^2)(I - L~ + L~^2) u */
    PetscCall(MatMult(L, u, t));
    PetscCall(VecWAXPY(v, -1.0, t, u));
    PetscCall(MatMult(L, t, w));
    PetscCall(VecAXPY(v, 1.0, w));
    PetscCall(MatMult(LT, v, t));
    PetscCall(VecWAXPY(w, -1.0, t, v));
    PetscCall(MatMult(LT, t, u));
    PetscCall(VecAXPY(w, 1.0, u));
    break;
  case PCNEUMANN_JACOBI: /* w = u: z = D^-1 r */
    PetscCall(VecCopy(u, w));
    break;
  case PCNEUMANN_IP: /* w = (I - L~)(I - L~^T) u */
    PetscCall(MatMult(LT, u, t));
    PetscCall(VecWAXPY(v, -1.0, t, u));
    PetscCall(MatMult(L, v, t));
    PetscCall(VecWAXPY(w, -1.0, t, v));
    break;
  }
  PetscCall(VecDestroy(&rl));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(VecGetArrayWrite(z, &za));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, za, &zl));
  PetscCall(VecPointwiseMult(zl, s, w)); /* z = D^-1/2 w */
  PetscCall(VecDestroy(&zl));
  PetscCall(VecRestoreArrayWrite(z, &za));
  PetscCall(VecDestroy(&s));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&t));
  PetscCall(MatDestroy(&L));
  PetscCall(MatDestroy(&LT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestFormula(Mat A)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  Vec      r, z, zref;
  PC       pc;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &r, &z));
  PetscCall(VecDuplicate(z, &zref));
  PetscCall(MSTestVecSetHash(r, 7, 3, -1.0, 1.0));
  for (PetscInt t = 0; t < 4; t++) {
    PetscReal d;

    PetscCall(PCCreate(comm, &pc));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetType(pc, PCNEUMANN));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCNeumannSetType(pc, (PCNeumannType)t));
    PetscCall(PCNeumannSetIPDrop(pc, 0.0));
    PetscCall(PCNeumannSetDeflation(pc, 0, 0));
    PetscCall(PCSetUp(pc));
    PetscCall(PCApply(pc, r, z));
    PetscCall(ExplicitApply(A, (PCNeumannType)t, r, zref));
    PetscCall(MSTestVecRelDiff(z, zref, &d));
    PetscCall(PetscPrintf(comm, "%s: apply equals the explicit formula (relative difference <= 1e-12): %s\n", PCNeumannTypes[t], d <= 1e-12 ? "yes" : "NO"));
    if (d > 1e-12) PetscCall(PetscPrintf(comm, "  relative difference %g\n", (double)d));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMDA Laplacian, n boxes per axis per process: the box sums of r - A z vanish */
static PetscErrorCode TestDeflation(MPI_Comm comm)
{
  DM                 da;
  Mat                A;
  Vec                r, z, w;
  PC                 pc;
  PetscInt           n = 2, xs, ys, xm, ym, nsub;
  const PetscScalar *wa;
  PetscReal         *sums, maxs = 0, rn;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-boxes", &n, NULL));
  PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 17, 13, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  {
    PetscInt Mx, My;
    PetscCall(DMDAGetInfo(da, NULL, &Mx, &My, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {0}, col[5] = {{0}};
        PetscScalar v[5];
        PetscInt    k = 0;
        row.i = i;
        row.j = j;
        col[k].i = i; col[k].j = j; v[k++] = 4.0 + 0.01 * (i % 3); /* a varying diagonal: the scaling matters */
        if (i > 0) { col[k].i = i - 1; col[k].j = j; v[k++] = -1.0; }
        if (i < Mx - 1) { col[k].i = i + 1; col[k].j = j; v[k++] = -1.0; }
        if (j > 0) { col[k].i = i; col[k].j = j - 1; v[k++] = -1.0; }
        if (j < My - 1) { col[k].i = i; col[k].j = j + 1; v[k++] = -1.0; }
        PetscCall(MatSetValuesStencil(A, 1, &row, k, col, v, INSERT_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &r, &z));
  PetscCall(VecDuplicate(z, &w));
  PetscCall(MSTestVecSetHash(r, 11, 5, -1.0, 1.0));
  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCNEUMANN));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCNeumannSetDeflation(pc, n, 0));
  PetscCall(PCSetUp(pc));
  PetscCall(PCNeumannGetDeflation(pc, NULL, NULL, &nsub));
  PetscCall(PCApply(pc, r, z));
  PetscCall(MatMult(A, z, w));
  PetscCall(VecAYPX(w, -1.0, r));
  PetscCall(VecNorm(r, NORM_1, &rn));
  {
    const PetscInt sx = PetscMin(n, xm), sy = PetscMin(n, ym);
    PetscCall(PetscCalloc1(sx * sy, &sums));
    PetscCall(VecGetArrayRead(w, &wa));
    for (PetscInt j = 0; j < ym; j++)
      for (PetscInt i = 0; i < xm; i++) sums[(i * sx) / xm + sx * ((j * sy) / ym)] += PetscRealPart(wa[i + xm * j]);
    PetscCall(VecRestoreArrayRead(w, &wa));
    for (PetscInt b = 0; b < sx * sy; b++) maxs = PetscMax(maxs, PetscAbsReal(sums[b]));
    PetscCall(PetscFree(sums));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &maxs, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscPrintf(comm, "deflation on %s subdomains: Z^T (r - A z) = 0 to rounding: %s\n", nsub > 0 ? "DMDA" : "NO", maxs <= 1e-12 * rn ? "yes" : "NO"));
  if (maxs > 1e-12 * rn) PetscCall(PetscPrintf(comm, "  max box sum %g, ||r||_1 %g\n", (double)maxs, (double)rn));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Any operator, deflation on blocks of -bs consecutive rows per process (-pc_neumann_deflation_contiguous): after
   z = PCApply(r), the block sums of r - A z vanish relative to the block sums of |r| + |A z| (the Galerkin property
   Z^T (r - A z) = 0 of the A-DEF2 apply, which the coarse solve with E = Z^T A Z must deliver to rounding; with an
   explicit inverse of an ill-conditioned E it does not: docs/neumann.md) */
static PetscErrorCode TestGalerkin(Mat A)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Vec                r, z, w;
  PC                 pc;
  PetscInt           bs = 64, m, nsub, nb;
  const PetscScalar *wa, *ra, *aza;
  PetscReal         *sums, *abss, worst = 0.0, tol = 1e-10;
  Vec                az;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-galerkin_tol", &tol, NULL));
  PetscCall(MatCreateVecs(A, &r, &z));
  PetscCall(VecDuplicate(z, &w));
  PetscCall(VecDuplicate(z, &az));
  PetscCall(MSTestVecSetHash(r, 11, 5, -1.0, 1.0));
  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCNEUMANN));
  PetscCall(PCNeumannSetDeflation(pc, 0, bs));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_neumann_deflation_contiguous", "1"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCNeumannGetDeflation(pc, NULL, NULL, &nsub));
  PetscCall(PCApply(pc, r, z));
  PetscCall(MatMult(A, z, az));
  PetscCall(VecWAXPY(w, -1.0, az, r));
  PetscCall(VecGetLocalSize(r, &m));
  nb = (m + bs - 1) / bs;
  PetscCall(PetscCalloc2(nb, &sums, nb, &abss));
  PetscCall(VecGetArrayRead(w, &wa));
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArrayRead(az, &aza));
  for (PetscInt o = 0; o < m; o++) {
    sums[o / bs] += PetscRealPart(wa[o]);
    abss[o / bs] += PetscAbsScalar(ra[o]) + PetscAbsScalar(aza[o]);
  }
  PetscCall(VecRestoreArrayRead(az, &aza));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(VecRestoreArrayRead(w, &wa));
  for (PetscInt b = 0; b < nb; b++) worst = PetscMax(worst, PetscAbsReal(sums[b]) / abss[b]);
  PetscCall(PetscFree2(sums, abss));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &worst, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscPrintf(comm, "deflation on %s: Z^T (r - A z) = 0 relative to Z^T (|r| + |A z|) <= %g: %s\n", nsub > 0 ? "blocks of consecutive rows" : "NO blocks", (double)tol, worst <= tol ? "yes" : "NO"));
  PetscCall(PetscInfo(pc, "worst relative block sum of r - A z: %g\n", (double)worst));
  if (worst > tol) PetscCall(PetscPrintf(comm, "  worst relative block sum %g\n", (double)worst));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&az));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG (rtol 1e-8, true residual checked) with the PC from the options, without and with deflation on blocks of -bs
   consecutive rows: deflation must cut the iterations by at least -gain (the paper's fig. 11: about half). Run on a
   right-hand side with every frequency (-rhs random, as the paper's random initial guess): with b = A x*, x*_i = cos(i)
   from x0 = 0 the initial error is nearly one oscillatory Fourier mode and the comparison says little (docs/neumann.md) */
static PetscErrorCode TestDeflationGain(Mat A, Vec b)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  KSP             ksp;
  PC              pc;
  Vec             x;
  PetscInt        bs = 27, its[2];
  PetscReal       gain = 1.5;
  MSTestSolveInfo info;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-gain", &gain, NULL));
  PetscCall(MatCreateVecs(A, &x, NULL));
  for (PetscInt d = 0; d < 2; d++) {
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 3000));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCNEUMANN));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PCNeumannSetDeflation(pc, 0, d ? bs : 0));
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(MSTestSolveCheck(ksp, b, x, 2e-8, &info));
    PetscCall(PetscPrintf(comm, "CG %s deflation: converged with true relative residual <= 2e-8: %s\n", d ? "with" : "without", info.converged && info.resok ? "yes" : "NO"));
    its[d] = info.its;
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscPrintf(comm, "deflation cuts the iterations by a factor >= %g: %s\n", (double)gain, its[1] * gain <= its[0] ? "yes" : "NO"));
  PetscCall(PetscInfo(NULL, "iterations without deflation %" PetscInt_FMT ", with %" PetscInt_FMT "\n", its[0], its[1]));
  if (its[1] * gain > its[0]) PetscCall(PetscPrintf(comm, "  iterations without deflation %" PetscInt_FMT ", with %" PetscInt_FMT "\n", its[0], its[1]));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The deflated preconditioner B (A-DEF2) is symmetric on the residuals CG meets, those with Z^T r = 0 (there it equals
   BNN, P^T M^-1 P + Q): r2^T B r1 = r1^T B r2 for r1, r2 with zero sums over every block of -bs consecutive rows of
   each process (and for any r1, r2 without deflation: -bs 0) */
static PetscErrorCode TestSymmetry(Mat A)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)A);
  Vec          r[2], z[2];
  PC           pc;
  PetscInt     bs = 64, m;
  PetscScalar  d12, d21;
  PetscReal    n1, n2, rel;
  PetscBool    project = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(MatCreateVecs(A, &r[0], &z[0]));
  PetscCall(VecDuplicate(r[0], &r[1]));
  PetscCall(VecDuplicate(z[0], &z[1]));
  PetscCall(MSTestVecSetHash(r[0], 11, 5, -1.0, 1.0));
  PetscCall(MSTestVecSetHash(r[1], 7, 3, -1.0, 1.0));
  PetscCall(VecGetLocalSize(r[0], &m));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-project", &project, NULL)); /* false: A-DEF2 is not symmetric there */
  for (PetscInt k = 0; project && bs > 0 && k < 2; k++) { /* subtract each block's mean */
    PetscScalar *ra;
    PetscCall(VecGetArray(r[k], &ra));
    for (PetscInt b0 = 0; b0 < m; b0 += bs) {
      const PetscInt b1 = PetscMin(m, b0 + bs);
      PetscScalar    mean = 0.0;
      for (PetscInt o = b0; o < b1; o++) mean += ra[o];
      mean /= (PetscReal)(b1 - b0);
      for (PetscInt o = b0; o < b1; o++) ra[o] -= mean;
    }
    PetscCall(VecRestoreArray(r[k], &ra));
  }
  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCNEUMANN));
  PetscCall(PCNeumannSetDeflation(pc, 0, bs));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_neumann_deflation_contiguous", "1"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, r[0], z[0]));
  PetscCall(PCApply(pc, r[1], z[1]));
  PetscCall(VecDot(z[0], r[1], &d12)); /* r2^T B r1 */
  PetscCall(VecDot(z[1], r[0], &d21)); /* r1^T B r2 */
  PetscCall(VecNorm(r[1], NORM_2, &n1));
  PetscCall(VecNorm(z[0], NORM_2, &n2));
  rel = PetscAbsScalar(d12 - d21) / (n1 * n2);
  PetscCall(PetscPrintf(comm, "%s: r2^T B r1 = r1^T B r2 (relative to ||r2|| ||B r1||, 1e-12): %s\n", bs > 0 ? "deflated, Z^T r = 0" : "no deflation", rel <= 1e-12 ? "yes" : "NO"));
  PetscCall(PetscInfo(pc, "relative asymmetry %g\n", (double)rel));
  if (rel > 1e-12) PetscCall(PetscPrintf(comm, "  relative asymmetry %g\n", (double)rel));
  PetscCall(PCDestroy(&pc));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&r[k]));
    PetscCall(VecDestroy(&z[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows changed by -test bad: row `bad` gets diagonal `bdiag` (0: no diagonal entry stored); -test lnorm: every diagonal
   entry becomes `ldiag` */
typedef struct {
  PetscInt  bad;
  PetscReal bdiag, ldiag;
} BadCtx;

static PetscErrorCode BadRow(MSTestStencilRow *r, void *ctx)
{
  BadCtx *c = (BadCtx *)ctx;

  PetscFunctionBegin;
  if (c->ldiag > 0) r->vals[0] = c->ldiag;
  if (r->row == c->bad) {
    if (c->bdiag == 0.0) MSTestStencilRowRemove(r, 0);
    else r->vals[0] = c->bdiag;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bad: the setup fails naming the row; lnorm: PCView says ||L~||_inf >= 1 and the setup warns once */
static PetscErrorCode TestBad(MPI_Comm comm, PetscBool lnorm)
{
  BadCtx         c = {-1, -6.0, 0.0};
  Mat            A;
  PC             pc;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bad", &c.bad, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bad_diag", &c.bdiag, NULL));
  if (lnorm) c.ldiag = 2.5; /* 7-point stencil, diagonal 2.5: each row's scaled lower part sums to 3/2.5 */
  PetscCall(MSTestCreateLaplacian(comm, 6, 5, 4, NULL, BadRow, &c, MATAIJ, &A));
  PetscCall(PCCreate(comm, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCNEUMANN));
  PetscCall(PCSetFromOptions(pc));
  if (lnorm) {
    PetscReal nrm;
    PetscCall(PCSetUp(pc));
    PetscCall(PCSetUp(pc)); /* the warning is given once */
    PetscCall(PCNeumannGetLowerNorm(pc, &nrm));
    PetscCall(PetscPrintf(comm, "||L~||_inf >= 1: %s\n", nrm >= 1.0 ? "yes" : "NO"));
    PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_(comm)));
  } else {
    const char *text, *specific;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PCSetUp(pc);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(comm, "bad diagonal %g at row %" PetscInt_FMT ": %s\n", (double)c.bdiag, c.bad, ierr ? "raised" : "NOT raised"));
    if (ierr) PetscCall(PetscPrintf(comm, "  [%s] %s\n", text, specific));
  }
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GPU: the same PC on a host copy (reference kernels) and on an aijcusparse copy (CUDA kernels) of A gives the same
   apply, for each type with and without deflation (subdomains of -compare_bs rows: locality blocks, or consecutive
   rows with -pc_neumann_deflation_contiguous) */
static PetscErrorCode TestCompare(Mat A)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  Mat      B;
  Vec      r, z, rb, zb, zh;
  PC       pa, pb;

  PetscInt  bs  = 16;
  PetscReal tol = 1e-12; /* the device's subdomain sums add in another order; E^-1 may amplify that (-compare_tol) */

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-compare_bs", &bs, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-compare_tol", &tol, NULL));
  PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateVecs(A, &r, &z));
  PetscCall(MatCreateVecs(B, &rb, &zb));
  PetscCall(VecDuplicate(z, &zh));
  PetscCall(MSTestVecSetHash(r, 7, 3, -1.0, 1.0));
  PetscCall(VecCopy(r, rb));
  for (PetscInt t = 0; t < 4; t++)
    for (PetscInt defl = 0; defl < 2; defl++) {
      PetscReal d;
      for (PetscInt k = 0; k < 2; k++) {
        PC *pc = k ? &pb : &pa;
        PetscCall(PCCreate(comm, pc));
        PetscCall(PCSetOperators(*pc, k ? B : A, k ? B : A));
        PetscCall(PCSetType(*pc, PCNEUMANN));
        PetscCall(PCSetFromOptions(*pc));
        PetscCall(PCNeumannSetType(*pc, (PCNeumannType)t));
        PetscCall(PCNeumannSetDeflation(*pc, 0, defl ? bs : 0));
        PetscCall(PCSetUp(*pc));
      }
      PetscCall(PCApply(pa, r, z));
      PetscCall(PCApply(pb, rb, zb));
      PetscCall(VecCopy(zb, zh));
      PetscCall(MSTestVecRelDiff(zh, z, &d));
      PetscCall(PetscPrintf(comm, "%s%s: CUDA apply equals the reference apply (relative difference <= tolerance): %s\n", PCNeumannTypes[t], defl ? " + deflation" : "", d <= tol ? "yes" : "NO"));
      if (d > tol) PetscCall(PetscPrintf(comm, "  relative difference %g, tolerance %g\n", (double)d, (double)tol));
      PetscCall(PCDestroy(&pa));
      PetscCall(PCDestroy(&pb));
    }
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&rb));
  PetscCall(VecDestroy(&zb));
  PetscCall(VecDestroy(&zh));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The deflation's subdomains and coarse matrix (PCNeumannGetSubdomains(), PCNeumannGetCoarseMatrix()) on blocks of
   -coarse_bs rows (locality blocks, or consecutive rows with -pc_neumann_deflation_contiguous): E equals Z^T A Z formed
   with Mat operations (Z from the subdomains, MatPtAP) to 1e-12; with -compare_device (GPU) the same PC on an
   aijcusparse copy of A, which computes the subdomains (locality partition on the GPU), E and Z^T A with the CUDA
   kernels, gives the same subdomains and the same E bit for bit */
static PetscErrorCode TestCoarse(Mat A)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)A);
  PetscInt  bs = 16, m, rstart, nl, nt;
  PetscBool device = PETSC_FALSE;
  PC        pa;
  IS        isa;
  Mat       Ea, Z, Aa, P, Pd;
  PetscReal d, e;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-coarse_bs", &bs, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_device", &device, NULL));
  PetscCall(PCCreate(comm, &pa));
  PetscCall(PCSetOperators(pa, A, A));
  PetscCall(PCSetType(pa, PCNEUMANN));
  PetscCall(PCSetFromOptions(pa));
  PetscCall(PCNeumannSetDeflation(pa, 0, bs));
  PetscCall(PCSetUp(pa));
  PetscCall(PCNeumannGetSubdomains(pa, &isa));
  PetscCall(PCNeumannGetCoarseMatrix(pa, &Ea));
  PetscCall(PCNeumannGetDeflation(pa, NULL, NULL, &nt));
  PetscCall(MatGetLocalSize(Ea, &nl, NULL));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  {
    const PetscInt *idx;
    PetscCall(MatCreateAIJ(comm, m, nl, PETSC_DETERMINE, nt, 1, NULL, 1, NULL, &Z));
    PetscCall(ISGetIndices(isa, &idx));
    for (PetscInt o = 0; o < m; o++) PetscCall(MatSetValue(Z, rstart + o, idx[o], 1.0, INSERT_VALUES));
    PetscCall(ISRestoreIndices(isa, &idx));
    PetscCall(MatAssemblyBegin(Z, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Z, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aa));
  PetscCall(MatPtAP(Aa, Z, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &P));
  PetscCall(MatConvert(P, MATDENSE, MAT_INITIAL_MATRIX, &Pd));
  PetscCall(MatNorm(Ea, NORM_FROBENIUS, &e));
  PetscCall(MatAXPY(Pd, -1.0, Ea, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(Pd, NORM_FROBENIUS, &d));
  PetscCall(PetscPrintf(comm, "E = Z^T A Z (Mat operations) to 1e-12: %s\n", d <= 1e-12 * e ? "yes" : "NO"));
  if (d > 1e-12 * e) PetscCall(PetscPrintf(comm, "  ||E - Z^T A Z|| %g, ||E|| %g\n", (double)d, (double)e));
  PetscCall(MatDestroy(&Pd));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Z));
  if (device) {
    Mat                B, Eb;
    PC                 pb;
    IS                 isb;
    PetscBool          same, bits = PETSC_TRUE;
    const PetscScalar *ea, *eb;
    PetscInt           lda, ldb;

    PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
    PetscCall(PCCreate(comm, &pb));
    PetscCall(PCSetOperators(pb, B, B));
    PetscCall(PCSetType(pb, PCNEUMANN));
    PetscCall(PCSetFromOptions(pb));
    PetscCall(PCNeumannSetDeflation(pb, 0, bs));
    PetscCall(PCSetUp(pb));
    PetscCall(PCNeumannGetSubdomains(pb, &isb));
    PetscCall(PCNeumannGetCoarseMatrix(pb, &Eb));
    PetscCall(ISEqualUnsorted(isa, isb, &same));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, comm));
    PetscCall(PetscPrintf(comm, "GPU subdomains equal the host's: %s\n", same ? "yes" : "NO"));
    PetscCall(MatDenseGetLDA(Ea, &lda));
    PetscCall(MatDenseGetLDA(Eb, &ldb));
    PetscCall(MatDenseGetArrayRead(Ea, &ea));
    PetscCall(MatDenseGetArrayRead(Eb, &eb));
    for (PetscInt j = 0; j < nt; j++)
      for (PetscInt i = 0; i < nl; i++) bits = (PetscBool)(bits && !memcmp(&ea[i + j * lda], &eb[i + j * ldb], sizeof(PetscScalar)));
    PetscCall(MatDenseRestoreArrayRead(Ea, &ea));
    PetscCall(MatDenseRestoreArrayRead(Eb, &eb));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bits, 1, MPI_C_BOOL, MPI_LAND, comm));
    PetscCall(PetscPrintf(comm, "GPU coarse matrix E equals the host's bit for bit: %s\n", bits ? "yes" : "NO"));
    PetscCall(ISDestroy(&isb));
    PetscCall(MatDestroy(&Eb));
    PetscCall(PCDestroy(&pb));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(ISDestroy(&isa));
  PetscCall(MatDestroy(&Ea));
  PetscCall(PCDestroy(&pa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  char      test[32] = "solve";
  PetscBool lap = PETSC_FALSE;
  Mat       A;
  Vec       b = NULL;
  Problem   p;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-lap", &lap, NULL));
  if (!strcmp(test, "deflation") || !strcmp(test, "bad") || !strcmp(test, "lnorm")) {
    if (!strcmp(test, "deflation")) PetscCall(TestDeflation(comm));
    else PetscCall(TestBad(comm, (PetscBool)!strcmp(test, "lnorm")));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (lap) {
    PetscInt nx = 12, ny = 10, nz = 1;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-nx", &nx, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-ny", &ny, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-nz", &nz, NULL));
    PetscCall(MSTestCreateLaplacian(comm, nx, ny, nz, NULL, NULL, NULL, MATAIJ, &A));
  } else {
    PetscCall(ProblemInitialize(comm, &p));
    p.type = PROB_TWOPHASE;
    PetscCall(ProblemSetFromOptions(&p));
    PetscCall(ProblemGenerate(&p));
    PetscCall(ProblemCreateMat(&p, NULL, MATAIJ, &A));
    PetscCall(MatCreateVecs(A, NULL, &b));
    PetscCall(ProblemSetVec(&p, p.s.rhs, b));
  }
  if (!strcmp(test, "formula")) PetscCall(TestFormula(A));
  else if (!strcmp(test, "compare")) PetscCall(TestCompare(A));
  else if (!strcmp(test, "galerkin")) PetscCall(TestGalerkin(A));
  else if (!strcmp(test, "symmetry")) PetscCall(TestSymmetry(A));
  else if (!strcmp(test, "deflgain")) PetscCall(TestDeflationGain(A, b));
  else if (!strcmp(test, "coarse")) PetscCall(TestCoarse(A));
  else {
    KSP ksp;
    Vec x;
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(MatCreateVecs(A, &x, b ? NULL : &b));
    if (lap) PetscCall(MSTestVecSetHash(b, 13, 1, -1.0, 1.0));
    PetscCall(MSTestSolveReport(ksp, b, x, 1e-6, "CG + neumann: ", NULL));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  if (!lap) PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # the apply against the explicit formula, per process on the diagonal block
   test:
     suffix: formula_lap
     nsize: {{1 3}}
     args: -test formula -lap -nx 12 -ny 10 -nz {{1 4}} -mat_type {{aij modsell}}
     output_file: output/ex1_formula.out
   test:
     suffix: formula_twophase
     nsize: {{1 3}}
     args: -test formula -dim {{2 3}} -n 10 -contrast 1e3 -bubbles 2 -mat_type {{aij modsell}}
     output_file: output/ex1_formula.out

   # deflation: Z^T (r - A z) = 0 on DMDA boxes, and on blocks of consecutive rows of the 3D two-phase problem (small
   # and large blocks; with one process through the stored Z^T A, with three through a product with A)
   test:
     suffix: galerkin
     nsize: {{1 3}}
     args: -test galerkin -dim 3 -n 16 -contrast 1e3 -bubbles 8 -bs {{8 100 1000}} -pc_neumann_warn 0 -mat_type {{aij modsell}}
     output_file: output/ex1_galerkin.out
   test:
     suffix: deflation
     nsize: {{1 3}}
     args: -test deflation -boxes {{1 2 3}}
     output_file: output/ex1_deflation.out

   # the deflation's coarse matrix E (PCNeumannGetCoarseMatrix) equals Z^T A Z formed with Mat operations from the
   # subdomains (PCNeumannGetSubdomains): locality blocks and consecutive rows, small and large blocks
   test:
     suffix: coarse
     nsize: {{1 3}}
     args: -test coarse -dim 3 -n 12 -contrast 1e3 -bubbles 3 -coarse_bs {{16 200}} -pc_neumann_deflation_contiguous {{0 1}} -pc_neumann_warn 0 -mat_type {{aij modsell}}
     output_file: output/ex1_coarse.out

   # the preconditioner is symmetric (deflated: on residuals with Z^T r = 0, where A-DEF2 equals BNN)
   test:
     suffix: symmetry
     nsize: {{1 3}}
     args: -test symmetry -dim 3 -n 12 -contrast 1e3 -bubbles 3 -bs {{0 64}separate output} -pc_neumann_type {{neu1 neu2 ip jacobi}} -pc_neumann_warn 0 -mat_type {{aij modsell}}

   # deflation cuts CG's iterations (3D two-phase, bubbles, 512 blocks of 27 consecutive rows) on a right-hand side
   # with every frequency: the 200^3 benchmark's "deflation makes it worse" came from its cosine right-hand side
   test:
     suffix: deflation_gain
     nsize: {{1 3}}
     args: -test deflgain -dim 3 -n 24 -contrast 1e3 -bubbles 8 -rhs random -bs 27 -pc_neumann_type {{jacobi neu1 neu2 ip}} -pc_neumann_deflation_contiguous -pc_neumann_warn 0
     output_file: output/ex1_deflgain.out

   # bad input: a negative or missing diagonal names the row; ||L~||_inf >= 1 in PCView and a warning
   test:
     suffix: bad
     nsize: {{1 3}}
     args: -test bad -bad 77 -bad_diag {{-6 0}separate output}
   test:
     suffix: lnorm
     nsize: {{1 3}}
     args: -test lnorm -pc_neumann_type {{neu1 neu2}}
     filter: grep -e "L~" | grep -v -e "type neu" -e "scaling:"
     output_file: output/ex1_lnorm.out

   # CG converges with each type, with and without deflation, on the two-phase problems and the Laplacian (the 3D
   # problem with bubbles has ||L~||_inf = 1.14 >= 1: the warning is silenced)
   test:
     suffix: solve_twophase
     nsize: {{1 3}}
     args: -dim 2 -n 32 -contrast 1e3 -pc_type neumann -pc_neumann_type {{neu1 neu2 ip}} -pc_neumann_deflation_subdomains {{0 2}} -mat_type {{aij modsell}}
     output_file: output/ex1_solve.out
   test:
     suffix: solve_twophase3d
     nsize: {{1 3}}
     args: -dim 3 -n 12 -contrast 1e3 -bubbles 3 -pc_type neumann -pc_neumann_type {{neu1 neu2 ip}} -pc_neumann_deflation_block_size {{0 64}} -pc_neumann_warn 0
     output_file: output/ex1_solve.out
   test:
     suffix: solve_lap
     nsize: {{1 3}}
     args: -lap -nx 20 -ny 16 -nz {{1 6}} -pc_type neumann -pc_neumann_type {{neu1 neu2 ip}} -pc_neumann_deflation_subdomains {{0 2}}
     output_file: output/ex1_solve.out

   # PETSc's PCDEFLATION with PCNEUMANN as its inner preconditioner (its default Haar space, coarse LU on the host;
   # one process: on several its coarse LU needs a parallel direct solver this PETSc lacks)
   test:
     suffix: solve_pcdeflation
     args: -dim 2 -n 16 -contrast 1e3 -pc_type deflation -deflation_pc_pc_type neumann -deflation_pc_pc_neumann_type {{neu1 neu2 ip}}
     output_file: output/ex1_solve.out

   # GPU: the CUDA kernels against the reference kernels (the same PC on a host and an aijcusparse copy), and the
   # checks above on aijcusparse operators
   testset:
     requires: cuda
     test:
       suffix: cuda_compare
       nsize: {{1 3}}
       args: -test compare -dim {{2 3}} -n 12 -contrast 1e3 -bubbles 2 -pc_neumann_warn 0
       output_file: output/ex1_compare.out
     test:
       # many subdomains (610 over all processes) and subdomains larger than a thread block (6000 rows), locality
       # blocks and consecutive rows
       suffix: cuda_compare_large
       nsize: {{1 3}}
       args: -test compare -dim 3 -n 48 -contrast 1e3 -bubbles 4 -compare_bs 6000 -pc_neumann_deflation_contiguous {{0 1}} -compare_tol 1e-9 -pc_neumann_warn 0
       output_file: output/ex1_compare.out
     test:
       suffix: cuda_compare_many
       nsize: {{1 3}}
       args: -test compare -dim 2 -n 160 -contrast 1e3 -compare_bs 42 -pc_neumann_deflation_contiguous {{0 1}} -compare_tol 1e-9 -pc_neumann_warn 0
       output_file: output/ex1_compare.out
     test:
       # the subdomains (locality partition on the GPU) and E (the galerkin kernel) of the PC on aijcusparse equal the
       # host PC's bit for bit; E = Z^T A Z; 1 and 3 processes (then the off-process block's part added on the host),
       # locality blocks and consecutive rows, blocks of 16 and 125 rows, and 512 blocks of 125 rows of 40^3
       suffix: cuda_coarse
       nsize: {{1 3}}
       args: -test coarse -compare_device -dim 3 -n 12 -contrast 1e3 -bubbles 3 -coarse_bs {{16 125}} -pc_neumann_deflation_contiguous {{0 1}} -pc_neumann_warn 0
       output_file: output/ex1_cuda_coarse.out
     test:
       # the same on a MATMODSELL operator: the device PC reads the CSR rebuilt from the operator's device image
       suffix: cuda_coarse_modsell
       nsize: {{1 3}}
       args: -test coarse -compare_device -dim 3 -n 12 -contrast 1e3 -bubbles 3 -coarse_bs 125 -pc_neumann_deflation_contiguous {{0 1}} -pc_neumann_warn 0 -mat_type modsell
       output_file: output/ex1_cuda_coarse.out
     test:
       suffix: cuda_coarse_large
       nsize: {{1 3}}
       args: -test coarse -compare_device -dim 3 -n 40 -contrast 1e3 -bubbles 8 -coarse_bs 125 -pc_neumann_deflation_contiguous {{0 1}} -pc_neumann_warn 0
       output_file: output/ex1_cuda_coarse.out
     test:
       suffix: cuda_galerkin
       nsize: {{1 3}}
       args: -test galerkin -dim 3 -n 24 -contrast 1e3 -bubbles 8 -bs {{100 6000}} -pc_neumann_warn 0 -mat_type aijcusparse
       output_file: output/ex1_galerkin.out
     test:
       suffix: cuda_symmetry
       nsize: {{1 3}}
       args: -test symmetry -dim 3 -n 12 -contrast 1e3 -bubbles 3 -bs 64 -pc_neumann_type {{neu1 neu2 ip jacobi}} -pc_neumann_warn 0 -mat_type aijcusparse
       output_file: output/ex1_symmetry_bs-64.out
     test:
       suffix: cuda_deflation_gain
       nsize: {{1 3}}
       args: -test deflgain -dim 3 -n 24 -contrast 1e3 -bubbles 8 -rhs random -bs 27 -pc_neumann_type {{jacobi neu2}} -pc_neumann_deflation_contiguous -pc_neumann_warn 0 -mat_type aijcusparse -use_gpu_aware_mpi 0
       output_file: output/ex1_deflgain.out
     test:
       suffix: cuda_formula
       nsize: {{1 3}}
       args: -test formula -dim {{2 3}} -n 10 -contrast 1e3 -bubbles 2 -mat_type aijcusparse
       output_file: output/ex1_formula.out
     test:
       suffix: cuda_deflation
       nsize: {{1 3}}
       args: -test deflation -boxes 2 -dm_mat_type aijcusparse -dm_vec_type cuda
       output_file: output/ex1_deflation.out
     test:
       suffix: cuda_solve
       nsize: {{1 3}}
       args: -dim {{2 3}} -n 16 -contrast 1e3 -pc_type neumann -pc_neumann_type {{neu1 neu2 ip}} -pc_neumann_deflation_subdomains {{0 2}} -mat_type aijcusparse -use_gpu_aware_mpi 0
       output_file: output/ex1_solve.out

TEST*/
