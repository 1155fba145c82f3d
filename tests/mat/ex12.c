static char help[] = "The layouts of the product of MATMODSELL (-mat_modsell_layout): a matrix of bs x bs blocks (-bs 2..8) with\n\
entries missing inside its blocks, multiplied in the scalar layout, the block layout and the automatic choice, with several\n\
slice heights, against AIJ (MatMult, MatMultAdd, MatResidual, the transposes, MatGetDiagonal: outputs poisoned first,\n\
mstest.h); after new values on the same pattern (no new image: the ModSELLBuild event's count) and after MatScale().\n\
Prints the layout each configuration takes (MatModSELLGetInfo()) and its block counts, and checks them against the\n\
blocks counted here from the CSR. The matrix: -nb block rows, each coupled to its two neighbours and to -k blocks\n\
elsewhere (a band plus far blocks), an entry of a coupled block kept with probability -fill (the diagonal always);\n\
-permute: the block rows (and columns) numbered randomly; -row_weights w0,w1,..: blocks split over the processes.\n\
-layouts scalar,blocks,auto (default all three), -slice_heights 32,64,.. (default 32,64,128). -symmetric: A + A^T.\n\
-solve <ksp type>: then a solve with B (the defaults: its product's layout chosen from the matrix) and the -pc_type given,\n\
which reads the scalar image while the product keeps its layout: converged or not, the layout after the solve.\n";

#include <mstest.h>
#include <petscksp.h>
#include <math.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscmodsell/private/modsellimpl.h>
  #include <petscdevice_cuda.h>
#endif

/* The global CSR of a block matrix */
static PetscErrorCode GenBlocks(PetscInt nb, PetscInt bs, PetscInt k, PetscReal fill, PetscBool permute, PetscBool sym, MSTestCSR *csr)
{
  MSTestCOO c = {0};
  PetscInt *perm;
  MSTestRng rng = {0x5eedULL};

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nb, &perm));
  for (PetscInt i = 0; i < nb; i++) perm[i] = i;
  if (permute)
    for (PetscInt i = nb - 1; i > 0; i--) {
      const PetscInt j = MSTestRngInt(&rng, i + 1), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
  for (PetscInt bi = 0; bi < nb; bi++) {
    PetscInt nbr[64], cnt = 0;

    nbr[cnt++] = bi;
    if (bi > 0) nbr[cnt++] = bi - 1;
    if (bi < nb - 1) nbr[cnt++] = bi + 1;
    for (PetscInt t = 0; t < k && cnt < 64; t++) nbr[cnt++] = (PetscInt)(MSTestHash64((unsigned long long)(bi * 131 + t)) % (unsigned long long)nb);
    for (PetscInt a = 0; a < cnt; a++) {
      const PetscInt bj = nbr[a];
      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt j = 0; j < bs; j++) {
          const PetscInt r = perm[bi] * bs + i, col = perm[bj] * bs + j;
          const double   u = MSTestHashUniform((unsigned long long)(r * 1000003 + col));
          if (r == col) PetscCall(MSTestCOOAdd(&c, r, col, (sym ? 8.0 : 4.0) * bs + u));
          else if (u < fill) {
            PetscCall(MSTestCOOAdd(&c, r, col, 2.0 * u - 1.0));
            if (sym) PetscCall(MSTestCOOAdd(&c, col, r, 2.0 * u - 1.0));
          }
        }
    }
  }
  PetscCall(MSTestCOOToCSR(&c, nb * bs, nb * bs, csr));
  PetscCall(PetscFree(perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateMat(MPI_Comm comm, const MSTestCSR *csr, PetscInt bs, MatType type, Mat *A)
{
  PetscInt nbl;

  PetscFunctionBegin;
  PetscCall(MSTestSplit(comm, csr->nrows / bs, &nbl));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, nbl * bs, nbl * bs, csr->nrows, csr->ncols));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  { /* MSTestPreallocate()'s with the block size kept */
    PetscInt rs, re, *dnnz, *onnz;

    PetscCall(MatSetUp(*A));
    PetscCall(MatGetOwnershipRange(*A, &rs, &re));
    PetscCall(PetscCalloc2(re - rs + 1, &dnnz, re - rs + 1, &onnz));
    for (PetscInt i = rs; i < re; i++)
      for (PetscInt e = csr->ia[i]; e < csr->ia[i + 1]; e++) {
        if (csr->ja[e] >= rs && csr->ja[e] < re) dnnz[i - rs]++;
        else onnz[i - rs]++;
      }
    PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnnz));
    PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnnz, 0, onnz));
    PetscCall(PetscFree2(dnnz, onnz));
  }
  PetscCall(MSTestFill(*A, csr, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The off-diagonal blocks of the local diagonal blocks (blocks with an entry; the diagonal block left out unless withdiag,
   the plain encoding's), summed over the processes: what the block layout stores in its slots */
static PetscErrorCode CountBlocks(Mat B, const MSTestCSR *csr, PetscInt bs, PetscBool withdiag, PetscInt64 *nblk)
{
  PetscInt   rs, re;
  PetscInt64 loc = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(B, &rs, &re));
  for (PetscInt bi = rs / bs; bi < re / bs; bi++) {
    PetscInt last = -1, nseen = 0, seen[4096];

    for (PetscInt i = 0; i < bs; i++)
      for (PetscInt e = csr->ia[bi * bs + i]; e < csr->ia[bi * bs + i + 1]; e++) {
        const PetscInt bj = csr->ja[e] / bs;
        PetscBool      dup = PETSC_FALSE;
        if ((bj == bi && !withdiag) || csr->ja[e] < rs || csr->ja[e] >= re) continue;
        for (PetscInt s = 0; s < nseen; s++) dup = (PetscBool)(dup || seen[s] == bj);
        if (!dup && nseen < 4096) seen[nseen++] = bj;
        last = bj;
      }
    (void)last;
    loc += nseen;
  }
  PetscCallMPI(MPIU_Allreduce(&loc, nblk, 1, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)B)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscLogEvent build;
} Events;

static PetscErrorCode BuildCount(Mat B, PetscLogEvent ev, PetscInt64 *n)
{
  PetscEventPerfInfo info;
  PetscInt64         loc;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  loc = info.count;
  PetscCallMPI(MPIU_Allreduce(&loc, n, 1, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)B)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The block image's two tables on one image of A (one process): MSImageOps_Reference's and MSImageOps_CUDA's products
   (y = A x, y = w + A x, y = w - A x) and diagonals, outputs poisoned with NaN first, the same to rounding (products)
   and bit for bit (diagonals) */
static PetscErrorCode CompareTables(Mat A, PetscInt bs, PetscInt sh, PetscInt *nfail)
{
  MSImageRequest r;
  MSImage        img;
  PetscInt       m;
  PetscScalar   *x, *w, *yh, *yd, *d1, *d2;
  double        *dx, *dw, *dy;
  PetscReal      nA, err = 0.0, derr = 0.0;
  const char    *what[3] = {"y = A x", "y = w + A x", "y = w - A x"};

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatNorm(A, NORM_INFINITY, &nA));
  PetscCall(MSImageRequestSetDefaults(&r));
  r.bs = bs;
  r.sh = sh;
  PetscCall(MSImageCreate(&r, &img));
  PetscCall(MSImageSetUp(img, A, &MSImageOps_Reference));
  PetscCall(MSImageSetUp(img, A, &MSImageOps_CUDA));
  PetscCall(PetscMalloc6(m, &x, m, &w, m, &yh, m, &yd, m, &d1, m, &d2));
  PetscCallCUDA(cudaMalloc((void **)&dx, (size_t)PetscMax(m, 1) * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&dw, (size_t)PetscMax(m, 1) * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&dy, (size_t)PetscMax(m, 1) * sizeof(double)));
  for (PetscInt i = 0; i < m; i++) {
    x[i] = MSTestHashUniform((unsigned long long)(3 * i + 1)) - 0.5;
    w[i] = MSTestHashUniform((unsigned long long)(3 * i + 2)) - 0.5;
  }
  PetscCallCUDA(cudaMemcpy(dx, x, (size_t)m * sizeof(double), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(dw, w, (size_t)m * sizeof(double), cudaMemcpyHostToDevice));
  for (int c = 0; c < 3; c++) {
    PetscReal e = 0.0;

    for (PetscInt i = 0; i < m; i++) yh[i] = NAN;
    PetscCallCUDA(cudaMemset(dy, 0xff, (size_t)m * sizeof(double))); /* NaN */
    PetscCall(MSImageOps_Reference.mult(img, x, c ? w : NULL, c == 2 ? -1.0 : 1.0, yh));
    PetscCall(MSImageOps_CUDA.mult(img, dx, c ? dw : NULL, c == 2 ? -1.0 : 1.0, dy));
    PetscCallCUDA(cudaMemcpy(yd, dy, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
    for (PetscInt i = 0; i < m; i++) {
      const PetscReal d = PetscAbsScalar(yh[i] - yd[i]);
      if (!(d <= e)) e = PetscIsNanReal(d) ? PETSC_INFINITY : d;
    }
    if (!(e <= 1e-13 * (nA + 1.0))) {
      (*nfail)++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL block tables, slice height %" PetscInt_FMT ", %s: the CUDA product differs from the reference by %g\n", sh, what[c], (double)e));
    }
    err = PetscMax(err, e);
  }
  for (PetscInt i = 0; i < m; i++) d1[i] = NAN;
  PetscCallCUDA(cudaMemset(dy, 0xff, (size_t)m * sizeof(double)));
  PetscCall(MSImageOps_Reference.getdiagonal(img, d1));
  PetscCall(MSImageOps_CUDA.getdiagonal(img, dy));
  PetscCallCUDA(cudaMemcpy(d2, dy, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
  for (PetscInt i = 0; i < m; i++)
    if (!(d1[i] == d2[i])) derr = 1.0;
  if (derr != 0.0) {
    (*nfail)++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL block tables, slice height %" PetscInt_FMT ": the CUDA diagonal differs from the reference\n", sh));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "block image tables, slice height %" PetscInt_FMT ": CUDA products %s the reference's, diagonals %s\n", sh, err <= 1e-13 * (nA + 1.0) ? "equal to rounding to" : "DIFFERENT from", derr == 0.0 ? "bit for bit" : "DIFFERENT"));
  PetscCallCUDA(cudaFree(dx));
  PetscCallCUDA(cudaFree(dw));
  PetscCallCUDA(cudaFree(dy));
  PetscCall(PetscFree6(x, w, yh, yd, d1, d2));
  PetscCall(MSImageDestroy(&img));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
  MPI_Comm         comm;
  MSTestCSR        csr;
  Mat              A, B;
  PetscRandom      rnd;
  PetscInt         nb = 200, bs = 3, k = 3, shs[8] = {32, 64, 128}, nsh = 3, nfail = 0, nl = 3;
  PetscReal        fill = 0.7, tol = 1e-11;
  PetscBool        permute = PETSC_FALSE, flg, tables = PETSC_FALSE, sym = PETSC_FALSE, solve;
  char             ksptype[64] = "gmres";
  MatModSELLLayout layouts[4] = {MATMODSELL_LAYOUT_SCALAR, MATMODSELL_LAYOUT_BLOCKS, MATMODSELL_LAYOUT_AUTO};
  PetscLogEvent    ev;
  PetscInt64       nblk;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "ex12 options", NULL);
  PetscCall(PetscOptionsInt("-nb", "block rows", NULL, nb, &nb, NULL));
  PetscCall(PetscOptionsInt("-bs", "block size", NULL, bs, &bs, NULL));
  PetscCall(PetscOptionsInt("-k", "far blocks per block row", NULL, k, &k, NULL));
  PetscCall(PetscOptionsReal("-fill", "probability of an entry in a coupled block", NULL, fill, &fill, NULL));
  PetscCall(PetscOptionsBool("-permute", "number the block rows randomly", NULL, permute, &permute, NULL));
  PetscCall(PetscOptionsReal("-tol", "relative tolerance", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsIntArray("-slice_heights", "slice heights to try", NULL, shs, &nsh, &flg));
  if (!flg) nsh = 3;
  nl = 4;
  PetscCall(PetscOptionsEnumArray("-layouts", "layouts to try", NULL, MatModSELLLayouts, (PetscEnum *)layouts, &nl, &flg));
  if (!flg) nl = 3;
  PetscCall(PetscOptionsBool("-symmetric", "A + A^T", NULL, sym, &sym, NULL));
  PetscCall(PetscOptionsString("-solve", "a solve with this KSP type after the products", NULL, ksptype, ksptype, sizeof(ksptype), &solve));
  PetscCall(PetscOptionsBool("-compare_tables", "also the block image's reference and CUDA tables on one image (PETSc with CUDA, one process)", NULL, tables, &tables, NULL));
  PetscOptionsEnd();

  PetscCall(GenBlocks(nb, bs, k, fill, permute, sym, &csr));
  PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " x %" PetscInt_FMT " blocks, %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros%s\n", bs, bs, csr.nrows, csr.ia[csr.nrows], permute ? ", block rows numbered randomly" : ""));
  PetscCall(CreateMat(comm, &csr, bs, MATAIJ, &A));
  PetscCall(CreateMat(comm, &csr, bs, MATMODSELL, &B));
  PetscCall(MSTestPrintSplit(B));
  PetscCall(MSTestRandomCreate(comm, &rnd));
  PetscCall(PetscLogEventGetId("ModSELLBuild", &ev));
  {
    MatModSELLKernel kernel;

    PetscCall(MatModSELLGetKernel(B, &kernel));
    PetscCall(CountBlocks(B, &csr, bs, (PetscBool)(kernel == MATMODSELL_KERNEL_SELL), &nblk));
  }

  for (PetscInt li = 0; li < nl; li++)
    for (PetscInt si = 0; si < nsh; si++) {
      char           label[256];
      MatModSELLInfo info;

      PetscCall(PetscSNPrintf(label, sizeof(label), "layout %s, slice height %" PetscInt_FMT, MatModSELLLayouts[layouts[li]], shs[si]));
      PetscCall(MatModSELLSetLayout(B, layouts[li]));
      PetscCall(MatModSELLSetSliceHeight(B, shs[si]));
      PetscCall(MSTestCompareProducts(A, B, rnd, tol, label, &nfail));
      PetscCall(MatModSELLGetInfo(B, &info));
      PetscCall(PetscPrintf(comm, "%s: product layout %s", label, MatModSELLLayouts[info.layout]));
      if (info.layout == MATMODSELL_LAYOUT_BLOCKS) {
        PetscCall(PetscPrintf(comm, ", %" PetscInt_FMT "x%" PetscInt_FMT " blocks, %" PetscInt_FMT " block rows per slice, %" PetscInt64_FMT " off-diagonal blocks in %" PetscInt64_FMT " slots, block density %.3f\n", info.block_size, info.block_size, info.slice_height, info.noffdiag, info.nslots, (double)info.block_density));
        if (info.block_size != bs || info.noffdiag != nblk || info.nslots < info.noffdiag || !(info.block_density > 0 && info.block_density <= 1)) {
          nfail++;
          PetscCall(PetscPrintf(comm, "FAIL %s: the block counts: block size %" PetscInt_FMT ", %" PetscInt64_FMT " off-diagonal blocks (counted here %" PetscInt64_FMT ")\n", label, info.block_size, info.noffdiag, nblk));
        }
      } else PetscCall(PetscPrintf(comm, "\n"));
      if (layouts[li] == MATMODSELL_LAYOUT_BLOCKS && bs <= 8 && info.layout != MATMODSELL_LAYOUT_BLOCKS) {
        nfail++;
        PetscCall(PetscPrintf(comm, "FAIL %s: the block layout asked for, %s taken\n", label, MatModSELLLayouts[info.layout]));
      }
    }

  /* the defaults (no slice height set) and new values on the same pattern: no new image */
  {
    PetscInt64     n0, n1;
    MatModSELLInfo info;

    PetscCall(MatModSELLSetSliceHeight(B, PETSC_DECIDE));
    PetscCall(MatModSELLSetLayout(B, MATMODSELL_LAYOUT_AUTO));
    PetscCall(MSTestCompareProducts(A, B, rnd, tol, "defaults", &nfail));
    PetscCall(MatModSELLGetInfo(B, &info));
    PetscCall(PetscPrintf(comm, "defaults: product layout %s\n", MatModSELLLayouts[info.layout]));
    PetscCall(MatModSELLSetLayout(B, MATMODSELL_LAYOUT_BLOCKS));
    PetscCall(MSTestCompareProducts(A, B, rnd, tol, "blocks, defaults", &nfail));
    PetscCall(BuildCount(B, ev, &n0));
    for (PetscInt i = 0; i < csr.ia[csr.nrows]; i++) csr.va[i] = 0.5 * csr.va[i] + (csr.ja[i] % 7) * 0.125;
    PetscCall(MSTestFill(A, &csr, 1.0));
    PetscCall(MSTestFill(B, &csr, 1.0));
    PetscCall(MSTestCompareProducts(A, B, rnd, tol, "blocks, new values", &nfail));
    PetscCall(MatScale(A, -3.0));
    PetscCall(MatScale(B, -3.0));
    PetscCall(MSTestCompareProducts(A, B, rnd, tol, "blocks, scaled", &nfail));
    PetscCall(BuildCount(B, ev, &n1));
    if (n1 != n0) {
      nfail++;
      PetscCall(PetscPrintf(comm, "FAIL: new values on the same pattern built the image again (%" PetscInt64_FMT " builds, %" PetscInt64_FMT " before)\n", n1, n0));
    }
    PetscCall(MatModSELLGetInfo(B, &info));
    PetscCall(PetscPrintf(comm, "after new values: product layout %s%s\n", MatModSELLLayouts[info.layout], n1 == n0 ? ", the image kept" : ""));
  }
  if (tables) {
#if defined(PETSC_HAVE_CUDA)
    PetscMPIInt size;
    Mat         S;

    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCheck(size == 1, comm, PETSC_ERR_SUP, "-compare_tables runs on one process");
    PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &S));
    for (PetscInt si = 0; si < nsh; si++) PetscCall(CompareTables(S, bs, shs[si], &nfail));
    PetscCall(MatDestroy(&S));
#else
    SETERRQ(comm, PETSC_ERR_SUP, "-compare_tables needs PETSc with CUDA");
#endif
  }
  if (solve) { /* the product's own layout and a preconditioner's scalar image, side by side */
    KSP                ksp;
    Vec                xs, b;
    KSPConvergedReason reason;
    MatModSELLInfo     info;

    PetscCall(MatModSELLSetLayout(B, MATMODSELL_LAYOUT_AUTO));
    PetscCall(MatScale(B, -1.0 / 3.0)); /* a positive diagonal again */
    PetscCall(MatCreateVecs(B, &xs, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetType(ksp, ksptype));
    PetscCall(KSPSetOperators(ksp, B, B));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, xs));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatModSELLGetInfo(B, &info));
    PetscCall(PetscPrintf(comm, "solve (%s): converged %s; product layout %s\n", ksptype, reason > 0 ? "yes" : "NO", MatModSELLLayouts[info.layout]));
    if (reason <= 0) nfail++;
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&xs));
    PetscCall(VecDestroy(&b));
  }
  PetscCall(MatViewFromOptions(B, NULL, "-view_after"));
  PetscCall(PetscPrintf(comm, "%s\n", nfail ? "FAILED" : "OK"));

  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # block sizes 2 to 5, entries missing inside blocks, 1, 2 and 3 processes (uneven splits, a process without rows)
   test:
     suffix: bs
     args: -bs {{2 3 4 5}separate output}
   test:
     suffix: bs3_2
     nsize: 2
     args: -bs 3 -row_weights 3,1
   test:
     suffix: bs4_3
     nsize: 3
     args: -bs 4 -nb 150 -row_weights 2,0,3
   # the plain encoding (the diagonal blocks in the slots)
   test:
     suffix: sell_2
     nsize: 2
     args: -bs 3 -mat_modsell_kernel sell -row_weights 1,2 -layouts blocks,auto
   # full blocks, and very sparse ones (the automatic choice keeps the scalar layout)
   test:
     suffix: dense
     args: -bs 3 -fill 1 -layouts blocks,auto -slice_heights 64
   test:
     suffix: sparse
     args: -bs 3 -fill 0.2 -layouts blocks,auto -slice_heights 64
   # block rows numbered randomly (whole blocks move): the natural order is not local
   test:
     suffix: permute
     args: -bs 3 -permute -nb 400
   test:
     suffix: permute_3
     nsize: 3
     args: -bs 2 -permute -nb 300 -row_weights 1,1,2
   # the preconditioners read the scalar image while the product keeps its blocks; KSPCGDEVICE does not fuse the
   # product of an operator in blocks (its fused kernel reads the scalar image)
   test:
     suffix: solve_pc
     args: -bs 3 -layouts blocks -slice_heights 64 -solve gmres -pc_type {{bjsmooth ruiz neumann bisai}separate output}
     filter: grep -E "^solve|FAIL|OK"
   test:
     suffix: solve_pc_3
     nsize: 3
     args: -bs 3 -layouts blocks -slice_heights 64 -solve gmres -pc_type bjsmooth -row_weights 1,1,1
     filter: grep -E "^solve|FAIL|OK"
   test:
     suffix: solve_cgdevice
     args: -bs 3 -symmetric -layouts blocks -slice_heights 64 -solve cgdevice -pc_type jacobi -ksp_view
     filter: grep -E "^solve|operator:|FAIL|OK"
   # the choice and its reasons
   test:
     suffix: view
     args: -bs 3 -fill 1 -layouts auto -slice_heights 32 -view_after ::ascii_info
     filter: grep -E "layout|blocks|MATMODSELL|OK|FAIL"

   # the device products (the same outputs)
   testset:
     requires: cuda
     args: -vec_type cuda
     test:
       suffix: cuda_bs3
       args: -bs 3
       output_file: output/ex12_bs_bs-3.out
     test:
       suffix: cuda_bs5
       args: -bs 5
       output_file: output/ex12_bs_bs-5.out
     test:
       suffix: cuda_bs4_3
       nsize: 3
       args: -bs 4 -nb 150 -row_weights 2,0,3
       output_file: output/ex12_bs4_3.out
     # the block layout's GPU product with one thread per block row (-mat_modsell_block_rows)
     test:
       suffix: cuda_brows3
       args: -bs 3 -mat_modsell_block_rows
       output_file: output/ex12_bs_bs-3.out
     test:
       suffix: cuda_brows8_2
       nsize: 2
       args: -bs 8 -nb 120 -mat_modsell_block_rows -row_weights 1,2 -layouts blocks
       filter: grep -E "FAIL|OK"
       output_file: output/ex12_ok.out
     # products in blocks, the cuSPARSE view or the scalar image per process (inside the overlapped MPI product) under
     # a preconditioner reading the scalar image; KSPCGDEVICE on an operator in blocks
     test:
       suffix: cuda_solve_pc_3
       nsize: 3
       args: -bs 3 -layouts blocks -slice_heights 64 -solve gmres -pc_type bjsmooth -row_weights 1,1,1
       filter: grep -E "^solve|FAIL|OK"
       output_file: output/ex12_solve_pc_3.out
     test:
       suffix: cuda_solve_cgdevice
       args: -bs 3 -symmetric -layouts blocks -slice_heights 64 -solve cgdevice -pc_type jacobi -ksp_view
       filter: grep -E "^solve|operator:|FAIL|OK"
       output_file: output/ex12_solve_cgdevice.out
     # the two tables of the block image on one image (NaN-poisoned outputs)
     test:
       suffix: cuda_tables
       args: -bs {{2 3 5 8}separate output} -layouts blocks -compare_tables
       filter: grep -E "tables|FAIL|OK"
     test:
       suffix: cuda_permute_3
       nsize: 3
       args: -bs 2 -permute -nb 300 -row_weights 1,1,2
       output_file: output/ex12_permute_3.out

TEST*/
