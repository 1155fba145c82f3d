static char help[] = "Products of MATMODSELL matrices and MatAXPY() on their results, against a reference type\n\
(-ref_mat_type, default aij): C = A P, P^T A P (again after a change of A's values), P^T C, R A R^T (against MATAIJ host copies: aijcusparse's is wrong in PETSc 3.26.1) and A R^T with R = P^T, then PCGAMG's prolongator smoothing MatAYPX(C, alpha, P, SUBSET_NONZERO_PATTERN)\n\
(DIFFERENT_NONZERO_PATTERN when a row of A lacks its diagonal), then MatAXPY(C, beta, P, DIFFERENT_NONZERO_PATTERN) and\n\
MatAXPY(C, gamma, C0, SUBSET_NONZERO_PATTERN) with C0 = A P of the reference type;\n\
products of each result and its reference must agree; the operator's MatMultTranspose(Add) too (PCMG's restriction). With -check_device (PETSc with CUDA), C's values must be\n\
current on the GPU after each sum whenever the reference's are (aijcusparse adds a subset pattern on the GPU; PETSc's\n\
generic MatAXPY, which mixed types took before, brings the values to the host).\n\
A: the test matrix (-kind ..., see mstest.h), square; P: an aggregation-like tentative prolongator (one entry per row,\n\
every -agg rows one column) with a second entry in every third row. Any number of processes (MATSEQAIJMODSELL on one,\n\
MATMPIAIJMODSELL on several; -row_weights w0,w1,... splits the rows unevenly, a weight 0 gives a process no rows).\n";

#include <mstest.h>

/* P: n x ceil(n / agg), row i -> column i / agg (1.0), and every third row also column (i / agg + 1) % nc (0.5); rows
   split as the test matrix's (MSTestSplit()), set by the process that owns them */
static PetscErrorCode CreateP(MPI_Comm comm, PetscInt n, PetscInt agg, MatType type, Mat *P)
{
  const PetscInt nc = (n + agg - 1) / agg;
  PetscInt       m, mc, rstart, rend;

  PetscFunctionBegin;
  PetscCall(MSTestSplit(comm, n, &m));
  PetscCall(MSTestSplit(comm, nc, &mc));
  PetscCall(MatCreate(comm, P));
  PetscCall(MatSetSizes(*P, m, mc, n, nc));
  PetscCall(MatSetType(*P, type));
  PetscCall(MatSeqAIJSetPreallocation(*P, 2, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, 2, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*P, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[2] = {i / agg, (i / agg + 1) % nc};
    PetscScalar v[2] = {1.0, 0.5};
    PetscCall(MatSetValues(*P, 1, &i, (i % 3 == 0 && nc > 1) ? 2 : 1, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatMult, MatMultTranspose and the diagonal of a result against the reference's, relative to the norms of Cr and of
   the vectors (products on the GPU add in another order than the host's). With tadd also MatMultTransposeAdd(C, u, w, v)
   into a vector v that holds other values, against Cr^T u + w computed by MatMultTranspose() and VecAXPY() (PETSc
   3.26.1's aijcusparse MatMultTransposeAdd() with distinct w and v adds v's old device values: not the reference) */
static PetscErrorCode Compare(Mat Cr, Mat C, PetscBool tadd, PetscRandom rnd, PetscReal tol, const char *label, PetscInt *nfail)
{
  Vec       x, y, yr, u, v, vr, w;
  PetscReal nA, n1, nx, nu, nw;
  PetscInt  M, N;

  PetscFunctionBegin;
  PetscCall(MatNorm(Cr, NORM_INFINITY, &nA));
  PetscCall(MatNorm(Cr, NORM_1, &n1));
  PetscCall(MSTestCreateVecs(C, &x, &y));
  PetscCall(MSTestCreateVecs(C, &v, &u));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(v, &vr));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(u, rnd));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(u, NORM_INFINITY, &nu));
  PetscCall(MatMult(C, x, y));
  PetscCall(MatMult(Cr, x, yr));
  PetscCall(MSTestCheck(PETSC_COMM_WORLD, label, "MatMult", y, yr, nA * nx, tol, nfail));
  PetscCall(MatMultTranspose(C, u, v));
  PetscCall(MatMultTranspose(Cr, u, vr));
  PetscCall(MSTestCheck(PETSC_COMM_WORLD, label, "MatMultTranspose", v, vr, n1 * nu, tol, nfail));
  if (tadd) {
    PetscCall(VecDuplicate(v, &w));
    PetscCall(VecSetRandom(w, rnd));
    PetscCall(VecNorm(w, NORM_INFINITY, &nw));
    PetscCall(VecSet(v, 1000.0));
    PetscCall(MatMultTransposeAdd(C, u, w, v));
    PetscCall(VecAXPY(vr, 1.0, w));
    PetscCall(MSTestCheck(PETSC_COMM_WORLD, label, "MatMultTransposeAdd", v, vr, n1 * nu + nw, tol, nfail));
    PetscCall(VecDestroy(&w));
  }
  PetscCall(MatGetSize(C, &M, &N));
  if (M == N) {
    PetscCall(MatGetDiagonal(C, y));
    PetscCall(MatGetDiagonal(Cr, yr));
    PetscCall(MSTestCheck(PETSC_COMM_WORLD, label, "MatGetDiagonal", y, yr, nA, tol, nfail));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&vr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* with -check_device: C's values are current on the device whenever the reference's are (on every process) */
static PetscErrorCode CheckDevice(Mat C, Mat Cr, PetscBool check, const char *what)
{
  PetscMemType mt, mtr;
  PetscMPIInt  bad, anybad;

  PetscFunctionBegin;
  if (!check) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetCurrentMemType(C, &mt));
  PetscCall(MatGetCurrentMemType(Cr, &mtr));
  bad = (PetscMemTypeDevice(mt) || !PetscMemTypeDevice(mtr)) ? 0 : 1;
  PetscCallMPI(MPIU_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)C)));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)C), "%s: result on the device when the reference's is: %s\n", what, anybad ? "NO" : "yes"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MSTestCSR   csr;
  Mat         A, Ar, P, Pr, C, Cr, C0;
  PetscRandom rnd;
  PetscInt    nfail = 0, agg = 4;
  PetscReal   tol = 1e-12;
  PetscBool   check = PETSC_FALSE, sub;
  char        ref[64] = MATAIJ;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex9 options", NULL);
  PetscCall(PetscOptionsString("-ref_mat_type", "reference matrix type", NULL, ref, ref, sizeof(ref), NULL));
  PetscCall(PetscOptionsInt("-agg", "rows per aggregate of P", NULL, agg, &agg, NULL));
  PetscCall(PetscOptionsReal("-tol", "relative tolerance of the products", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsBool("-check_device", "check that the sums leave the result current on the device", NULL, check, &check, NULL));
  PetscOptionsEnd();
  PetscCheck(agg >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-agg must be at least 1");
  PetscCall(MSTestGenerate(PETSC_COMM_WORLD, &csr));
  PetscCheck(csr.nrows == csr.ncols, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "A square test matrix, please");
  PetscCall(MSTestRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(MSTestCreateMat(PETSC_COMM_WORLD, &csr, NULL, &A)); /* MATMODSELL with the -mat_modsell_* options */
  PetscCall(MSTestCreateMat(PETSC_COMM_WORLD, &csr, ref, &Ar));
  PetscCall(CreateP(PETSC_COMM_WORLD, csr.nrows, agg, MATMODSELL, &P));
  PetscCall(CreateP(PETSC_COMM_WORLD, csr.nrows, agg, ref, &Pr));
  PetscCall(Compare(Ar, A, PETSC_TRUE, rnd, tol, "A", &nfail)); /* the operator's own transposed products (PCMG's restriction) */

  PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
  PetscCall(MatMatMult(Ar, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cr));
  PetscCall(MatMatMult(Ar, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C0));
  PetscCall(MatProductClear(C));
  PetscCall(MatProductClear(Cr));
  PetscCall(Compare(Cr, C, PETSC_FALSE, rnd, tol, "A P", &nfail));
  { /* Galerkin products (PCGAMG, PCMG): P^T A P, and P^T (A P) through MatTransposeMatMult(), twice (the second reuses) */
    Mat D, Dr;

    PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(Ar, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(Compare(Dr, D, PETSC_FALSE, rnd, tol, "P^T A P", &nfail));
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatScale(Ar, 2.0));
    PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(Ar, Pr, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(Compare(Dr, D, PETSC_FALSE, rnd, tol, "P^T A P again after A *= 2", &nfail));
    PetscCall(MatScale(A, 0.5));
    PetscCall(MatScale(Ar, 0.5));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatTransposeMatMult(P, C, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatTransposeMatMult(Pr, Cr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(Compare(Dr, D, PETSC_FALSE, rnd, tol, "P^T (A P)", &nfail));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
  }

  { /* the products MPIAIJ's device backend leaves to the host: R A R^T (PCMG with a restriction alone) and A R^T, R = P^T */
    Mat R, Rr, D, Dr;

    PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
    PetscCall(MatTranspose(Pr, MAT_INITIAL_MATRIX, &Rr));
    PetscCall(MatRARt(A, R, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    { /* R A R^T's reference on host (MATAIJ) copies: PETSc 3.26.1's aijcusparse MatRARt() on one process gives wrong
         values (H200, 2026-11-27: modsell's agreed with MATAIJ's, aijcusparse's differed from both) */
      Mat Ah, Rh;

      PetscCall(MatConvert(Ar, MATAIJ, MAT_INITIAL_MATRIX, &Ah));
      PetscCall(MatConvert(Rr, MATAIJ, MAT_INITIAL_MATRIX, &Rh));
      PetscCall(MatRARt(Ah, Rh, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
      PetscCall(MatDestroy(&Ah));
      PetscCall(MatDestroy(&Rh));
    }
    PetscCall(Compare(Dr, D, PETSC_FALSE, rnd, tol, "R A R^T", &nfail));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatMatTransposeMult(A, R, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatMatTransposeMult(Ar, Rr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(Compare(Dr, D, PETSC_FALSE, rnd, tol, "A R^T", &nfail));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatDestroy(&R));
    PetscCall(MatDestroy(&Rr));
  }

  /* P's pattern is in A P's when every row of A has its diagonal (PCGAMG's case); else a different pattern */
  sub = (PetscBool)(csr.nempty == 0 && csr.nnodiag == 0);
  PetscCall(MatAYPX(C, -0.7, P, sub ? SUBSET_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAYPX(Cr, -0.7, Pr, sub ? SUBSET_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckDevice(C, Cr, check, "MatAYPX(A P, alpha, P)"));
  PetscCall(Compare(Cr, C, PETSC_FALSE, rnd, tol, "MatAYPX(A P, alpha, P)", &nfail));

  PetscCall(MatAXPY(C, 0.25, P, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(Cr, 0.25, Pr, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckDevice(C, Cr, check, "MatAXPY(C, beta, P, DIFFERENT_NONZERO_PATTERN)"));
  PetscCall(Compare(Cr, C, PETSC_FALSE, rnd, tol, "MatAXPY(C, beta, P)", &nfail));

  PetscCall(MatAXPY(C, 2.0, C0, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(Cr, 2.0, C0, SUBSET_NONZERO_PATTERN));
  PetscCall(CheckDevice(C, Cr, check, "MatAXPY(C, gamma, C0, SUBSET_NONZERO_PATTERN)"));
  PetscCall(Compare(Cr, C, PETSC_FALSE, rnd, tol, "MatAXPY(C, gamma, C0)", &nfail));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", nfail ? "FAILED" : "OK"));
  PetscCall(MatDestroy(&C0));
  PetscCall(MatDestroy(&Cr));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Pr));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Ar));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: lap2d
     nsize: {{1 3}}
     args: -kind lap2d -nx 23 -ny 19
   test:
     suffix: unstructured
     args: -kind unstructured -n 900 -agg 7 -mat_modsell_ordering {{natural partition}}
   test:
     suffix: edge
     args: -kind edge -n 700 -dense_row 500 -agg 3
   testset:
     # three processes, the second without rows
     nsize: 3
     args: -row_weights 2,0,1
     test:
       suffix: unstructured_uneven
       output_file: output/ex9_unstructured.out
       args: -kind unstructured -n 900 -agg 7 -mat_modsell_ordering {{natural partition}}
     test:
       suffix: edge_uneven
       output_file: output/ex9_edge.out
       args: -kind edge -n 700 -dense_row 500 -agg 3
   testset:
     requires: cuda
     args: -ref_mat_type aijcusparse -check_device -vec_type cuda
     test:
       suffix: cuda_lap2d
       args: -kind lap2d -nx 23 -ny 19
     test:
       suffix: cuda_unstructured
       args: -kind unstructured -n 900 -agg 7 -mat_modsell_ordering {{natural partition}}
   testset:
     # MATMPIAIJMODSELL's products, sums and transposed products through its MPIAIJCUSPARSE view
     requires: cuda
     nsize: 3
     args: -ref_mat_type aijcusparse -check_device -vec_type cuda -use_gpu_aware_mpi 0
     test:
       suffix: cuda_np3_lap2d
       output_file: output/ex9_cuda_lap2d.out
       args: -kind lap2d -nx 23 -ny 19
     test:
       suffix: cuda_np3_unstructured_uneven
       output_file: output/ex9_cuda_unstructured.out
       args: -kind unstructured -n 900 -agg 7 -mat_modsell_ordering {{natural partition}} -row_weights 2,0,1
   test:
     # the products on the host when the options ask for it (MPIAIJ's device backend's options): on three processes the
     # views' host products ended in a segmentation fault (H100, 2026-11-25); MATMPIAIJMODSELL now runs MPIAIJ's host
     # products on itself, as without CUDA
     suffix: cuda_backend_cpu
     requires: cuda
     nsize: {{1 3}}
     output_file: output/ex9_unstructured.out
     args: -ref_mat_type aijcusparse -vec_type cuda -use_gpu_aware_mpi 0 -matmatmult_backend_cpu -matptap_backend_cpu -mattransposematmult_backend_cpu -kind unstructured -n 900 -agg 7

TEST*/
