static char help[] = "MATMODSELL's bricks ordering (msbricks.h): for boxes of many sizes (sides that are and are not multiples of\n\
the brick, 2D and flat boxes, several dof per point) and slice heights, the columns MSBricksSetUp() chooses give a\n\
permutation of the box's rows (MSBricksOld()), every slice of which is connected in the grid (7-point couplings),\n\
and (boxes of four slices or more) at least as many of the grid's couplings inside a slice as the lexicographic\n\
order. -cuda: MSCUDABricksPerm() computes the same permutation and its inverse on the GPU.\n\
-solve: PETSc's ex45 problem (7-point Laplacian on a DMDA, boundary rows diagonal only, u = 1 there, right-hand side\n\
h^3 inside, zero guess) as MATMODSELL on boxes of -sizes n1,n2,... points per side and -box nx,ny,nz, solved by CG + PCBJSMOOTH\n\
(defaults: the blocks are the operator's image in bricks) and CG + PCJACOBI; prints whether bjsmooth took at most\n\
Jacobi's iterations. -dm_vec_type cuda runs both on the GPU.\n";

#include <petscmodsell/private/modsellimpl.h>
#include <petscdmda.h>
#include <petscksp.h>
#include <mstest.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* the point of local row o of the box n (dof rows a point) */
static void Point(const PetscInt n[4], PetscInt o, PetscInt x[3])
{
  const PetscInt p = o / n[3];

  x[0] = p % n[0];
  x[1] = (p / n[0]) % n[1];
  x[2] = p / (n[0] * n[1]);
}

/* the fraction of the 7-point couplings of the box's points inside one slice of sh rows, for the order perm (new ->
   old; NULL: lexicographic), counted on the first row of each point */
static PetscReal InSlice(const PetscInt n[4], PetscInt sh, const PetscInt *iperm)
{
  const PetscInt np = n[0] * n[1] * n[2];
  PetscInt64     in = 0, all = 0;

  for (PetscInt p = 0; p < np; p++) {
    const PetscInt o = p * n[3], s = (iperm ? iperm[o] : o) / sh;
    PetscInt       x[3];

    Point(n, o, x);
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt e = -1; e <= 1; e += 2) {
        PetscInt y[3] = {x[0], x[1], x[2]}, q;

        y[d] += e;
        if (y[d] < 0 || y[d] >= n[d]) continue;
        q = ((y[2] * n[1] + y[1]) * n[0] + y[0]) * n[3];
        all++;
        in += (iperm ? iperm[q] : q) / sh == s;
      }
  }
  return all ? (PetscReal)in / (PetscReal)all : 1.0;
}

/* whether the points of every slice are connected through 7-point couplings between points of the slice */
static PetscErrorCode SlicesConnected(const PetscInt n[4], PetscInt sh, const PetscInt *perm, const PetscInt *iperm, PetscBool *ok)
{
  const PetscInt m = n[0] * n[1] * n[2] * n[3];
  PetscInt      *mark, *queue;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(PetscMalloc2(m, &mark, m, &queue));
  for (PetscInt i = 0; i < m; i++) mark[i] = -1;
  for (PetscInt s = 0; s * sh < m && *ok; s++) {
    const PetscInt lo = s * sh, hi = PetscMin(m, lo + sh);
    PetscInt       head = 0, tail = 0, reached = 0;

    /* a BFS over the rows of the slice: a row reaches the other rows of its point and the rows of its neighbours */
    queue[tail++]    = perm[lo];
    mark[perm[lo]] = s;
    while (head < tail) {
      const PetscInt o = queue[head++];
      PetscInt       x[3];

      reached++;
      Point(n, o, x);
      for (PetscInt d = -1; d < 6; d++) {
        PetscInt y[3] = {x[0], x[1], x[2]}, q0;

        if (d >= 0) {
          y[d / 2] += d % 2 ? 1 : -1;
          if (y[d / 2] < 0 || y[d / 2] >= n[d / 2]) continue;
        }
        q0 = ((y[2] * n[1] + y[1]) * n[0] + y[0]) * n[3];
        for (PetscInt c = 0; c < n[3]; c++) {
          const PetscInt q = q0 + c;

          if (iperm[q] >= lo && iperm[q] < hi && mark[q] != s) {
            mark[q]         = s;
            queue[tail++] = q;
          }
        }
      }
    }
    if (reached != hi - lo) *ok = PETSC_FALSE;
  }
  PetscCall(PetscFree2(mark, queue));
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* PETSc's ex45 problem on a DMDA of nx x ny x nz points (its ComputeMatrix() and ComputeRHS(): the boundary rows hold
   their diagonal only, and their right-hand side that diagonal, u = 1; the interior's right-hand side h^3) */
static PetscErrorCode Ex45Problem(DM da, Mat A, Vec b)
{
  PetscScalar ***barray;
  PetscInt    mx, my, mz, xs, ys, zs, xm, ym, zm;
  PetscScalar Hx, Hy, Hz, HxHydHz, HyHzdHx, HxHzdHy;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, &mz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  Hx      = 1.0 / (PetscReal)(mx - 1);
  Hy      = 1.0 / (PetscReal)(my - 1);
  Hz      = 1.0 / (PetscReal)(mz - 1);
  HxHydHz = Hx * Hy / Hz;
  HxHzdHy = Hx * Hz / Hy;
  HyHzdHx = Hy * Hz / Hx;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAVecGetArray(da, b, &barray));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7];

        if (i == 0 || j == 0 || k == 0 || i == mx - 1 || j == my - 1 || k == mz - 1) {
          v[0]            = 2.0 * (HxHydHz + HxHzdHy + HyHzdHx);
          barray[k][j][i] = v[0];
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, v, INSERT_VALUES));
        } else {
          const PetscInt d[7][3] = {
            {-1, 0,  0 },
            {0,  -1, 0 },
            {0,  0,  -1},
            {0,  0,  0 },
            {0,  0,  1 },
            {0,  1,  0 },
            {1,  0,  0 }
          }; /* k, j, i offsets */
          const PetscScalar w[3] = {HxHydHz, HxHzdHy, HyHzdHx};

          for (PetscInt e = 0; e < 7; e++) {
            col[e].k = k + d[e][0];
            col[e].j = j + d[e][1];
            col[e].i = i + d[e][2];
            col[e].c = 0;
            v[e]     = e == 3 ? 2.0 * (HxHydHz + HxHzdHy + HyHzdHx) : -w[d[e][0] ? 0 : d[e][1] ? 1 : 2];
          }
          barray[k][j][i] = Hx * Hy * Hz;
          PetscCall(MatSetValuesStencil(A, 1, &row, 7, col, v, INSERT_VALUES));
        }
      }
  PetscCall(DMDAVecRestoreArray(da, b, &barray));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG with pc_type on A from a zero guess (as ex45; its tolerances: PETSc's defaults): the iterations */
static PetscErrorCode SolveIts(Mat A, Vec b, PCType pc_type, PetscInt *its, PetscBool *converged)
{
  KSP                ksp;
  PC                 pc;
  Vec                x;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pc_type));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -solve: CG + PCBJSMOOTH (blocks of the operator's image, MATMODSELL_ORDERING_AUTO: bricks on a DMDA) against
   CG + PCJACOBI on ex45's operator in a box of n[0] x n[1] x n[2] points */
static PetscErrorCode SolveBox(const PetscInt n[3], PetscBool *ok)
{
  DM                 da;
  Mat                A;
  Vec                b;
  PetscInt           its_bj, its_jac;
  PetscBool          conv_bj, conv_jac;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n[0], n[1], n[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATMODSELL));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(Ex45Problem(da, A, b));
  PetscCall(SolveIts(A, b, PCJACOBI, &its_jac, &conv_jac));
  PetscCall(SolveIts(A, b, PCBJSMOOTH, &its_bj, &conv_bj));
  *ok    = conv_bj && conv_jac && its_bj <= its_jac ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex45 %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": both converged: %s; iterations of CG + bjsmooth <= those of CG + jacobi: %s\n", n[0], n[1], n[2], conv_bj && conv_jac ? "yes" : "NO", its_bj <= its_jac ? "yes" : "NO"));
  PetscCall(PetscInfo(A, "ex45 %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": CG + bjsmooth %" PetscInt_FMT " iterations, CG + jacobi %" PetscInt_FMT "\n", n[0], n[1], n[2], its_bj, its_jac));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  /* boxes nx, ny, nz, dof */
  const PetscInt boxes[][4] = {
    {8,  8,  8,  1},
    {33, 33, 33, 1},
    {17, 19, 23, 1},
    {57, 30, 19, 1},
    {8,  8,  4,  1},
    {41, 7,  3,  1},
    {33, 30, 1,  1},
    {100, 3, 1,  1},
    {1,  1,  700, 1},
    {13, 11, 9,  3},
    {10, 10, 10, 2},
    {5,  4,  3,  1},
  };
  const PetscInt shs[] = {32, 64, 128, 512, 1024};
  PetscBool      cuda = PETSC_FALSE, solve = PETSC_FALSE;
  PetscInt       nfail = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cuda", &cuda, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  if (solve) {
    PetscInt  sizes[16], nsizes = 16, box[3] = {0, 0, 0}, nbox = 3;
    PetscBool ok, hassizes, hasbox;

    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &hassizes));
    if (!hassizes) nsizes = 0;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-box", box, &nbox, &hasbox));
    PetscCheck(!hasbox || nbox == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-box takes three sizes nx,ny,nz");
    for (PetscInt i = 0; i < nsizes + (hasbox ? 1 : 0); i++) {
      const PetscInt n[3] = {i < nsizes ? sizes[i] : box[0], i < nsizes ? sizes[i] : box[1], i < nsizes ? sizes[i] : box[2]};

      PetscCall(SolveBox(n, &ok));
      nfail += !ok;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", nfail ? "SOME CHECKS FAILED" : "all checks passed"));
    PetscCall(PetscFinalize());
    return 0;
  }
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!cuda, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-cuda needs a PETSc configured with CUDA");
#endif
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(boxes); i++) {
    const PetscInt *n = boxes[i], m = n[0] * n[1] * n[2] * n[3];
    PetscBool       perm_ok = PETSC_TRUE, conn_ok = PETSC_TRUE, better = PETSC_TRUE, same = PETSC_TRUE;

    for (size_t j = 0; j < PETSC_STATIC_ARRAY_LENGTH(shs); j++) {
      const PetscInt sh = shs[j];
      MSBricks       k;
      PetscInt       brick[3], *perm, *iperm;
      PetscBool      ok;

      PetscCall(MSBricksSetUp(n, sh, &k, brick));
      PetscCall(PetscMalloc2(m, &perm, m, &iperm));
      for (PetscInt q = 0; q < m; q++) iperm[q] = -1;
      for (PetscInt r = 0; r < m; r++) {
        perm[r] = MSBricksOld(&k, r);
        if (perm[r] < 0 || perm[r] >= m || iperm[perm[r]] >= 0) {
          perm_ok = PETSC_FALSE;
          break;
        }
        iperm[perm[r]] = r;
      }
      if (perm_ok) {
        PetscCall(SlicesConnected(n, sh, perm, iperm, &ok));
        if (!ok) {
          conn_ok = PETSC_FALSE;
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  box %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (dof %" PetscInt_FMT "), slices of %" PetscInt_FMT ": a slice is not connected\n", n[0], n[1], n[2], n[3], sh));
        }
        /* boxes of at least four slices: at least the lexicographic order's couplings inside a slice (a box of one or two
           slices is cut into slabs either way) */
        if (m >= 4 * sh && InSlice(n, sh, iperm) < InSlice(n, sh, NULL)) {
          better = PETSC_FALSE;
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  box %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (dof %" PetscInt_FMT "), slices of %" PetscInt_FMT ": %g of the couplings inside a slice, lexicographic %g\n", n[0], n[1], n[2], n[3], sh, (double)InSlice(n, sh, iperm), (double)InSlice(n, sh, NULL)));
        }
      }
#if defined(PETSC_HAVE_CUDA)
      if (cuda && perm_ok) {
        int *d, *h;

        PetscCall(PetscMalloc1(2 * m, &h));
        PetscCallCUDA(cudaMalloc((void **)&d, sizeof(int) * 2 * (size_t)m));
        PetscCallCUDA(cudaMemset(d, 0x7f, sizeof(int) * 2 * (size_t)m));
        PetscCallCUDA((cudaError_t)MSCUDABricksPerm((int)m, &k, d, d + m, NULL));
        PetscCallCUDA(cudaMemcpy(h, d, sizeof(int) * 2 * (size_t)m, cudaMemcpyDeviceToHost));
        for (PetscInt r = 0; r < m; r++)
          if (h[r] != perm[r] || h[m + r] != iperm[r]) same = PETSC_FALSE;
        PetscCallCUDA(cudaFree(d));
        PetscCall(PetscFree(h));
      }
#endif
      PetscCall(PetscFree2(perm, iperm));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "box %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", dof %" PetscInt_FMT ", slices of 32 to 1024 rows: a permutation: %s; every slice connected: %s; at least the lexicographic order's couplings inside a slice: %s%s\n", n[0], n[1], n[2], n[3], perm_ok ? "yes" : "NO", conn_ok ? "yes" : "NO",
                          better ? "yes" : "NO", cuda ? (same ? "; the GPU's permutation the same: yes" : "; the GPU's permutation the same: NO") : ""));
    nfail += !perm_ok + !conn_ok + !better + (cuda && !same);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", nfail ? "SOME CHECKS FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: 1

   test:
     suffix: cuda
     requires: cuda
     args: -cuda
     output_file: output/ex13_cuda.out

   # CG + PCBJSMOOTH with its defaults (blocks of the operator's image, in bricks on a DMDA) never takes more iterations
   # than CG + PCJACOBI on PETSc's ex45 problem, on boxes whose sides are not multiples of the brick, 1 and 2 processes
   test:
     suffix: solve
     nsize: {{1 2}}
     args: -solve -sizes 17,19,23,33,41,57 -box 45,29,21
     output_file: output/ex13_solve.out

   test:
     suffix: solve_cuda
     requires: cuda
     nsize: {{1 2}}
     args: -solve -sizes 17,19,23,33,41,57 -box 45,29,21 -dm_vec_type cuda
     output_file: output/ex13_solve.out

TEST*/
