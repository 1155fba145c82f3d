static char help[] = "Bad input to MATMODSELL must give a PETSc error with a message.\n\
Default: API calls with bad arguments under PetscReturnErrorHandler; each must fail with the right\n\
error code and message, leave the matrix unchanged and usable. With -create, a MATMODSELL matrix is\n\
created from the options (bad -mat_modsell_* values end the program with the PETSc error). With -oom (GPU,\n\
with -modsell_device_alloc_limit), building the device image or -pc_type's setup must fail with PETSC_ERR_MEM\n\
naming the bytes, and everything must still be destroyed cleanly. With -wide (64-bit indices), a block\n\
with more than 2^31 - 1 columns must be refused with PETSC_ERR_SUP.\n";

#include <mstest.h>

typedef struct {
  MPI_Comm comm;
  PetscInt nfail;
} Ctx;

/* ierr must be the error code `code`; prints the message of the first error */
static PetscErrorCode Expect(Ctx *c, const char *what, PetscErrorCode ierr, PetscErrorCode code)
{
  const char *text = NULL, *specific = NULL;

  PetscFunctionBegin;
  if (ierr) PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCall(PetscPrintf(c->comm, "%s: %s\n", what, ierr == code ? "error as expected" : "FAILED: not the expected error"));
  if (ierr) PetscCall(PetscPrintf(c->comm, "  message: %s\n", specific ? specific : "(none)"));
  if (ierr != code) {
    c->nfail++;
    PetscCall(PetscPrintf(c->comm, "  got error code %d, expected %d\n", (int)ierr, (int)code));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx                c;
  MSTestCSR          csr;
  Mat                A, B, U;
  Vec                x, y, z;
  PetscBool          create = PETSC_FALSE, oom = PETSC_FALSE, wide = PETSC_FALSE;
  PetscErrorCode     ierr;
  PetscInt           sh, m, n, chunk;
  MatModSELLKernel   k;
  MatModSELLOrdering o;
  MatModSELLInfo     info;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  c.comm  = PETSC_COMM_WORLD;
  c.nfail = 0;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-create", &create, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-oom", &oom, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-wide", &wide, NULL));
  if (oom) { /* a 1D Laplacian with CUDA vectors: the device image (and the PC) cannot be allocated */
    const PetscInt N = 4000;
    PetscInt       rstart, rend;
    KSP            ksp;

    PetscCall(MatCreate(c.comm, &B));
    PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetType(B, MATAIJ));
    PetscCall(MatSetVecType(B, VECCUDA));
    PetscCall(MatSetFromOptions(B));
    PetscCall(MatSeqAIJSetPreallocation(B, 3, NULL));
    PetscCall(MatMPIAIJSetPreallocation(B, 3, NULL, 1, NULL));
    PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt    cols[3] = {i - 1, i, i + 1};
      PetscScalar vals[3] = {-1.0, 2.0, -1.0};
      PetscCall(MatSetValues(B, 1, &i, 3 - (i == 0) - (i == N - 1), cols + (i == 0), vals + (i == 0), INSERT_VALUES));
    }
    PetscCall(MatCreateVecs(B, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(KSPCreate(c.comm, &ksp));
    PetscCall(KSPSetOperators(ksp, B, B));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY); /* MATMODSELL builds its device image here */
    if (!ierr) ierr = MatMult(B, x, y);
    if (!ierr) ierr = KSPSetUp(ksp); /* the preconditioner's setup */
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(&c, "device memory beyond -modsell_device_alloc_limit", ierr, PETSC_ERR_MEM));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&B));
    PetscCall(PetscPrintf(c.comm, "%s\n", c.nfail ? "FAILED" : "OK"));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (wide) { /* 64-bit indices: a block of more than 2^31 - 1 columns (no vector of that size is created) */
  #if defined(PETSC_USE_64BIT_INDICES)
    const PetscInt N = (PetscInt)PETSC_INT32_MAX + 10;
    PetscInt       rstart, rend;

    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetSizes(B, 4, N, 4, N));
    PetscCall(MatSetType(B, MATMODSELL));
    PetscCall(MatSeqAIJSetPreallocation(B, 2, NULL));
    PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt    cols[2] = {i, N - 1 - i};
      PetscScalar vals[2] = {1.0, 2.0};
      PetscCall(MatSetValues(B, 1, &i, 2, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatModSELLGetInfo(B, &info); /* builds the image */
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(&c, "a block of 2^31 + 9 columns", ierr, PETSC_ERR_SUP));
    PetscCall(MatDestroy(&B));
  #else
    SETERRQ(c.comm, PETSC_ERR_SUP, "-wide needs PETSc with 64-bit indices");
  #endif
    PetscCall(PetscPrintf(c.comm, "%s\n", c.nfail ? "FAILED" : "OK"));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (create) { /* the options are read when the type is set */
    PetscCall(MatCreate(c.comm, &B));
    PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, 100, 100));
    PetscCall(MatSetType(B, MATMODSELL));
    PetscCall(MatSetFromOptions(B));
    PetscCall(MatModSELLGetSliceHeight(B, &sh));
    PetscCall(MatModSELLGetPermuteChunk(B, &chunk));
    PetscCall(PetscPrintf(c.comm, "created with slice height %" PetscInt_FMT ", permute chunk %" PetscInt_FMT "\n", sh, chunk));
    PetscCall(MatDestroy(&B));
    PetscCall(PetscFinalize());
    return 0;
  }

  PetscCall(MSTestGenerate(c.comm, &csr));
  PetscCall(MSTestCreateMat(c.comm, &csr, MATAIJ, &A));
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatModSELLSetSliceHeight(B, 64));
  PetscCall(MatModSELLSetKernel(B, MATMODSELL_KERNEL_SELL));
  PetscCall(MatModSELLSetOrdering(B, MATMODSELL_ORDERING_RCM));
  PetscCall(MatModSELLSetPermuteChunk(B, 4096));

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  {
    const PetscInt bad[] = {33, 16, 2048, 0, -32, 1056};
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) {
      char what[128];
      PetscCall(PetscSNPrintf(what, sizeof(what), "MatModSELLSetSliceHeight(%" PetscInt_FMT ")", bad[i]));
      ierr = MatModSELLSetSliceHeight(B, bad[i]);
      PetscCall(Expect(&c, what, ierr, PETSC_ERR_ARG_OUTOFRANGE));
    }
  }
  ierr = MatModSELLSetKernel(B, (MatModSELLKernel)2);
  PetscCall(Expect(&c, "MatModSELLSetKernel(2)", ierr, PETSC_ERR_ARG_OUTOFRANGE));
  ierr = MatModSELLSetOrdering(B, (MatModSELLOrdering)-1);
  PetscCall(Expect(&c, "MatModSELLSetOrdering(-1)", ierr, PETSC_ERR_ARG_OUTOFRANGE));
  ierr = MatModSELLSetPermuteChunk(B, -1);
  PetscCall(Expect(&c, "MatModSELLSetPermuteChunk(-1)", ierr, PETSC_ERR_ARG_OUTOFRANGE));
  ierr = MatModSELLSetLayout(B, (MatModSELLLayout)4);
  PetscCall(Expect(&c, "MatModSELLSetLayout(4)", ierr, PETSC_ERR_ARG_OUTOFRANGE));

  /* the settings did not change */
  PetscCall(MatModSELLGetSliceHeight(B, &sh));
  PetscCall(MatModSELLGetKernel(B, &k));
  PetscCall(MatModSELLGetOrdering(B, &o));
  PetscCall(MatModSELLGetPermuteChunk(B, &chunk));
  PetscCall(PetscPrintf(c.comm, "settings after the bad calls unchanged: %s\n", sh == 64 && k == MATMODSELL_KERNEL_SELL && o == MATMODSELL_ORDERING_RCM && chunk == 4096 ? "yes" : "NO"));
  if (!(sh == 64 && k == MATMODSELL_KERNEL_SELL && o == MATMODSELL_ORDERING_RCM && chunk == 4096)) c.nfail++;
  /* PETSC_DECIDE: back to the default height */
  PetscCall(MatModSELLSetSliceHeight(B, PETSC_DECIDE));
  PetscCall(MatModSELLGetSliceHeight(B, &sh));
  PetscCall(PetscPrintf(c.comm, "slice height PETSC_DECIDE gives the default 128: %s\n", sh == 128 ? "yes" : "NO"));
  if (sh != 128) c.nfail++;
  PetscCall(MatModSELLSetSliceHeight(B, 64));

  /* the MATMODSELL functions on a matrix of another type */
  ierr = MatModSELLGetSliceHeight(A, &sh);
  PetscCall(Expect(&c, "MatModSELLGetSliceHeight(AIJ matrix)", ierr, PETSC_ERR_SUP));
  ierr = MatModSELLGetInfo(A, &info);
  PetscCall(Expect(&c, "MatModSELLGetInfo(AIJ matrix)", ierr, PETSC_ERR_SUP));
  ierr = MatModSELLGetPermuteChunk(A, &chunk);
  PetscCall(Expect(&c, "MatModSELLGetPermuteChunk(AIJ matrix)", ierr, PETSC_ERR_SUP));

  /* a MATMODSELL matrix that is not assembled */
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatCreate(c.comm, &U));
  PetscCall(MatSetSizes(U, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(U, MATMODSELL));
  PetscCall(MatSetUp(U));
  ierr = MatModSELLGetInfo(U, &info);
  PetscCall(Expect(&c, "MatModSELLGetInfo(unassembled matrix)", ierr, PETSC_ERR_ARG_WRONGSTATE));
  PetscCall(MatCreateVecs(B, &x, &y));
  ierr = MatMult(U, x, y);
  PetscCall(Expect(&c, "MatMult(unassembled matrix)", ierr, PETSC_ERR_ARG_WRONGSTATE));
  PetscCall(MatDestroy(&U));

  /* bad vectors */
  ierr = MatMult(B, x, x);
  PetscCall(Expect(&c, "MatMult(A, x, x)", ierr, PETSC_ERR_ARG_WRONGSTATE));
  PetscCall(VecCreateFromOptions(c.comm, NULL, 1, m + 1, PETSC_DETERMINE, &z));
  ierr = MatMult(B, z, y);
  PetscCall(Expect(&c, "MatMult with an x of the wrong size", ierr, PETSC_ERR_ARG_SIZ));
  ierr = MatMultAdd(B, x, z, y);
  PetscCall(Expect(&c, "MatMultAdd with a w of the wrong size", ierr, PETSC_ERR_ARG_SIZ));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscPopErrorHandler());

  /* the matrix still works */
  {
    PetscRandom rnd;
    PetscInt    nf = 0;
    PetscCall(MSTestRandomCreate(c.comm, &rnd));
    PetscCall(MSTestCompareProducts(A, B, rnd, 1e-11, "after the errors", &nf));
    PetscCall(PetscPrintf(c.comm, "products after the errors match AIJ: %s\n", nf ? "NO" : "yes"));
    c.nfail += nf;
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(PetscPrintf(c.comm, "%s\n", c.nfail ? "FAILED" : "OK"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # bad arguments to the API: each call fails with its error code and message
   test:
     suffix: api
     args: -kind edge -n 300 -dense_row 100
   test:
     suffix: api_2
     nsize: 2
     args: -kind edge -n 300 -dense_row 100 -row_weights 1,0

   # bad options end the program with the PETSc error: keep the message
   test:
     suffix: err_slice_height_33
     args: -create -mat_modsell_slice_height 33
     filter: Error: grep -E "PETSC ERROR: (Invalid MATMODSELL|Unknown option)"
   test:
     suffix: err_slice_height_16
     args: -create -mat_modsell_slice_height 16
     filter: Error: grep -E "PETSC ERROR: (Invalid MATMODSELL|Unknown option)"
   test:
     suffix: err_slice_height_2048
     args: -create -mat_modsell_slice_height 2048
     filter: Error: grep -E "PETSC ERROR: (Invalid MATMODSELL|Unknown option)"
   test:
     suffix: err_kernel
     args: -create -mat_modsell_kernel foo
     filter: Error: grep -E "PETSC ERROR: (Invalid MATMODSELL|Unknown option)"
   test:
     suffix: err_ordering
     args: -create -mat_modsell_ordering foo
     filter: Error: grep -E "PETSC ERROR: (Invalid MATMODSELL|Unknown option)"
   test:
     suffix: err_permute_chunk
     args: -create -mat_modsell_permute_chunk -1
     filter: Error: grep -E "PETSC ERROR: (Invalid MATMODSELL|Unknown option)"
   test:
     suffix: err_row_lanes
     args: -create -mat_modsell_row_lanes {{3 64 -1}separate output}
     filter: Error: grep -E "PETSC ERROR: (Invalid -mat_modsell_row_lanes|Unknown option)"
   # and good values
   test:
     suffix: create
     args: -create -mat_modsell_slice_height 1024 -mat_modsell_permute_chunk 1000 -mat_modsell_row_lanes 8

   # the GPU out of memory while building the image (MATMODSELL's own, or the one PCBJSMOOTH builds for an
   # aijcusparse operator) or a preconditioner: PETSC_ERR_MEM naming the bytes, then a clean exit
   # (which allocation fails first depends on the build: 32-bit indices build the image on the device, 64-bit
   # ones on the host; the filter keeps the error class and the form of the message)
   testset:
     requires: cuda
     args: -oom -ksp_type cg
     filter: sed -E -e "s/allocate [0-9]+ bytes \\([0-9.]+ MiB\\) for [a-zA-Z -]+ \\(over/allocate N bytes (X MiB) for WHAT (over/"
     test:
       suffix: oom_image
       nsize: {{1 2}separate output}
       args: -mat_type modsell -pc_type jacobi -modsell_device_alloc_limit 1000
     test:
       suffix: oom_pc
       nsize: {{1 2}separate output}
       args: -mat_type aijcusparse -pc_type bjsmooth -modsell_device_alloc_limit 1000

   # 64-bit indices: a block wider than 32-bit column indices is refused
   test:
     suffix: wide
     requires: defined(PETSC_USE_64BIT_INDICES)
     args: -wide

TEST*/
