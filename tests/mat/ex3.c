static char help[] = "MATMODSELL conversions and copies: MatConvert (initial, in place, reuse) both ways, MatSetType on\n\
an assembled AIJ matrix, MatDuplicate (copy values, no values, shared pattern), MatCopy, MatAXPY with\n\
another pattern, MatTranspose, MatCreateSubMatrix, conversion to dense. Checks types, settings and\n\
products against AIJ. Matrix options as in ex1.\n\
  -other_type <type> : instead, conversions to MATMODSELL from this other AIJ type (aijperm, aijcusparse, ...)\n";

#include <mstest.h>

typedef struct {
  MPI_Comm    comm;
  PetscRandom rnd;
  PetscReal   tol;
  PetscInt    nfail;
} Ctx;

static PetscErrorCode Report(Ctx *c, const char *what, PetscBool ok)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(c->comm, "%-72s %s\n", what, ok ? "OK" : "FAILED"));
  if (!ok) c->nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the type is exactly `type` (a full type name, or a root name resolved on this communicator) */
static PetscErrorCode TypeIs(Mat M, const char *seqtype, const char *mpitype, PetscBool *is)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)M), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)M, size == 1 ? seqtype : mpitype, is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B has the MATMODSELL type and its products match A's */
static PetscErrorCode CheckModSELL(Ctx *c, const char *what, Mat A, Mat B)
{
  PetscBool is;
  PetscInt  nf = 0;
  char      label[256];

  PetscFunctionBegin;
  PetscCall(TypeIs(B, MATSEQAIJMODSELL, MATMPIAIJMODSELL, &is));
  PetscCall(MSTestCompareProducts(A, B, c->rnd, c->tol, what, &nf));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MATMODSELL type, products match", what));
  PetscCall(Report(c, label, (PetscBool)(is && !nf)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C is a plain AIJ matrix (also its default vectors), equal to A entry by entry */
static PetscErrorCode CheckAIJ(Ctx *c, const char *what, Mat A, Mat C)
{
  PetscBool is, eq, vstd;
  Vec       x;
  char      label[256];

  PetscFunctionBegin;
  PetscCall(TypeIs(C, MATSEQAIJ, MATMPIAIJ, &is));
  PetscCall(MatEqual(A, C, &eq));
  PetscCall(MatCreateVecs(C, &x, NULL));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &vstd, VECSEQ, VECMPI, ""));
  PetscCall(VecDestroy(&x));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: AIJ type, host vectors, equal to AIJ", what));
  PetscCall(Report(c, label, (PetscBool)(is && eq && vstd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetSettings(Mat B, PetscInt sh, MatModSELLKernel k, MatModSELLOrdering o)
{
  PetscFunctionBegin;
  PetscCall(MatModSELLSetSliceHeight(B, sh));
  PetscCall(MatModSELLSetKernel(B, k));
  PetscCall(MatModSELLSetOrdering(B, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SettingsAre(Mat B, PetscInt sh, MatModSELLKernel k, MatModSELLOrdering o, PetscBool *same)
{
  PetscInt           sh2;
  MatModSELLKernel   k2;
  MatModSELLOrdering o2;

  PetscFunctionBegin;
  PetscCall(MatModSELLGetSliceHeight(B, &sh2));
  PetscCall(MatModSELLGetKernel(B, &k2));
  PetscCall(MatModSELLGetOrdering(B, &o2));
  *same = (PetscBool)(sh == sh2 && k == k2 && o == o2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every product is zero */
static PetscErrorCode IsZero(Mat B, PetscRandom rnd, PetscBool *zero)
{
  Vec       x, y;
  PetscReal nrm, ny;

  PetscFunctionBegin;
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nrm));
  PetscCall(MSTestCreateVecs(B, &x, &y));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSet(y, 1.0));
  PetscCall(MatMult(B, x, y));
  PetscCall(VecNorm(y, NORM_INFINITY, &ny));
  *zero = (PetscBool)(nrm == 0.0 && ny == 0.0);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx       c;
  MSTestCSR csr;
  Mat       A, B, C, D, E;
  PetscBool is, same, mergesettings = PETSC_FALSE;
  MatInfo   ia, ib;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.comm = PETSC_COMM_WORLD;
  c.tol  = 1e-11;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_merge_settings", &mergesettings, NULL));
  PetscCall(MSTestGenerate(c.comm, &csr));
  PetscCall(MSTestCreateMat(c.comm, &csr, MATAIJ, &A));
  PetscCall(MSTestPrintSplit(A));
  PetscCall(MSTestRandomCreate(c.comm, &c.rnd));

  { /* -other_type: from another AIJ subclass, which PETSc would convert entry by entry (MatConvert_Basic) */
    char      other[64] = "";
    PetscBool flg;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-other_type", other, sizeof(other), &flg));
    if (flg) {
      Mat         O;
      char        name[128];
      PetscErrorCode (*conv)(void) = NULL;
      const char *otype;

      PetscCall(MatConvert(A, other, MAT_INITIAL_MATRIX, &O));
      PetscCall(PetscObjectGetType((PetscObject)O, &otype));
      PetscCall(MatConvert(O, MATMODSELL, MAT_INITIAL_MATRIX, &B));
      PetscCall(CheckModSELL(&c, "MatConvert(other AIJ type, modsell, MAT_INITIAL_MATRIX)", A, B));
      PetscCall(PetscObjectTypeCompare((PetscObject)O, otype, &is));
      PetscCall(Report(&c, "  the source keeps its type", is));
      PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_modsell_C", otype));
      PetscCall(PetscObjectQueryFunction((PetscObject)B, name, &conv));
      PetscCall(Report(&c, "  a conversion from its type is registered (not PETSc's entry by entry)", (PetscBool)!!conv));
      PetscCall(MatScale(O, -2.0));
      PetscCall(MatScale(A, -2.0));
      PetscCall(MatConvert(O, MATMODSELL, MAT_REUSE_MATRIX, &B));
      PetscCall(CheckModSELL(&c, "MatConvert(other AIJ type, modsell, MAT_REUSE_MATRIX) after new values", A, B));
      PetscCall(MatConvert(O, MATMODSELL, MAT_INPLACE_MATRIX, &O));
      PetscCall(CheckModSELL(&c, "MatConvert(other AIJ type, modsell, MAT_INPLACE_MATRIX)", A, O));
      PetscCall(MatDestroy(&O));
      PetscCall(MatDestroy(&B));
      PetscCall(PetscPrintf(c.comm, "%s\n", c.nfail ? "FAILED" : "OK"));
      PetscCall(PetscRandomDestroy(&c.rnd));
      PetscCall(MatDestroy(&A));
      PetscCall(MSTestCSRDestroy(&csr));
      PetscCall(PetscFinalize());
      return 0;
    }
  }

  /* MatConvert AIJ -> MATMODSELL, new matrix */
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckModSELL(&c, "MatConvert(AIJ, modsell, MAT_INITIAL_MATRIX)", A, B));
  PetscCall(TypeIs(A, MATSEQAIJ, MATMPIAIJ, &is));
  PetscCall(Report(&c, "  the source keeps its AIJ type", is));
  PetscCall(MatDestroy(&B));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(c.comm, &size));
    PetscCall(MatConvert(A, size == 1 ? MATSEQAIJMODSELL : MATMPIAIJMODSELL, MAT_INITIAL_MATRIX, &B)); /* the explicit type name */
    PetscCall(CheckModSELL(&c, "MatConvert(AIJ, seqaijmodsell or mpiaijmodsell, MAT_INITIAL_MATRIX)", A, B));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));

  /* MATMODSELL -> AIJ, new matrix; the source still works */
  PetscCall(SetSettings(B, 64, MATMODSELL_KERNEL_SELL, MATMODSELL_ORDERING_RCM));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(CheckAIJ(&c, "MatConvert(modsell, aij, MAT_INITIAL_MATRIX)", A, C));
  PetscCall(CheckModSELL(&c, "  the source, after the conversion", A, B));
  PetscCall(MatDestroy(&C));

  /* in place both ways */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(MatConvert(C, MATMODSELL, MAT_INPLACE_MATRIX, &C));
  PetscCall(CheckModSELL(&c, "MatConvert(AIJ, modsell, MAT_INPLACE_MATRIX)", A, C));
  PetscCall(MatConvert(C, MATAIJ, MAT_INPLACE_MATRIX, &C));
  PetscCall(CheckAIJ(&c, "MatConvert(modsell, aij, MAT_INPLACE_MATRIX)", A, C));
  {
    PetscInt nf = 0;
    PetscCall(MSTestCompareProducts(A, C, c.rnd, c.tol, "AIJ after the round trip", &nf));
    PetscCall(Report(&c, "  products of the AIJ matrix after the round trip", (PetscBool)!nf));
  }

  /* MAT_REUSE_MATRIX: new values of the source reach the target (and its image) */
  PetscCall(MatConvert(C, MATMODSELL, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckModSELL(&c, "MatConvert(AIJ, modsell, MAT_INITIAL_MATRIX) for reuse", C, D)); /* builds the image */
  PetscCall(MatScale(C, -2.0));
  PetscCall(MatConvert(C, MATMODSELL, MAT_REUSE_MATRIX, &D));
  PetscCall(CheckModSELL(&c, "MatConvert(AIJ, modsell, MAT_REUSE_MATRIX) after new values", C, D));
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &E));
  PetscCall(MatScale(D, 3.0));
  PetscCall(MatScale(C, 3.0));
  PetscCall(MatConvert(D, MATAIJ, MAT_REUSE_MATRIX, &E));
  PetscCall(CheckAIJ(&c, "MatConvert(modsell, aij, MAT_REUSE_MATRIX) after new values", C, E));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&C));

  /* MatSetType() on an assembled AIJ matrix converts it in place */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(MatSetType(C, MATMODSELL));
  PetscCall(CheckModSELL(&c, "MatSetType(assembled AIJ, modsell)", A, C));
  PetscCall(MatDestroy(&C));

  /* MatDuplicate keeps the type and the settings */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &D));
  PetscCall(CheckModSELL(&c, "MatDuplicate(MAT_COPY_VALUES)", A, D));
  PetscCall(SettingsAre(D, 64, MATMODSELL_KERNEL_SELL, MATMODSELL_ORDERING_RCM, &same));
  PetscCall(Report(&c, "  keeps the slice height, kernel and ordering", same));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &D));
  PetscCall(TypeIs(D, MATSEQAIJMODSELL, MATMPIAIJMODSELL, &is));
  PetscCall(SettingsAre(D, 64, MATMODSELL_KERNEL_SELL, MATMODSELL_ORDERING_RCM, &same));
  PetscCall(IsZero(D, c.rnd, &is));
  PetscCall(MatGetInfo(B, MAT_GLOBAL_SUM, &ib));
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &ia));
  PetscCall(Report(&c, "MatDuplicate(MAT_DO_NOT_COPY_VALUES): zero, same pattern and settings", (PetscBool)(is && same && ia.nz_used == ib.nz_used)));
  PetscCall(MatCopy(B, D, SAME_NONZERO_PATTERN));
  PetscCall(CheckModSELL(&c, "  then MatCopy(SAME_NONZERO_PATTERN) from the original", A, D));
  PetscCall(MatDestroy(&D));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(c.comm, &size));
    if (size == 1) { /* MATMPIAIJ does not support MAT_SHARE_NONZERO_PATTERN */
      PetscCall(MatDuplicate(B, MAT_SHARE_NONZERO_PATTERN, &D));
      PetscCall(IsZero(D, c.rnd, &is));
      PetscCall(Report(&c, "MatDuplicate(MAT_SHARE_NONZERO_PATTERN): zero", is));
      PetscCall(MatCopy(A, D, SAME_NONZERO_PATTERN));
      PetscCall(CheckModSELL(&c, "  then MatCopy(SAME_NONZERO_PATTERN) from AIJ", A, D));
      PetscCall(MatDestroy(&D));
    }
  }

  /* MatCopy from AIJ into an existing MATMODSELL (its image must follow) */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(MatScale(C, 0.25));
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckModSELL(&c, "MatConvert for MatCopy", A, D)); /* builds the image */
  PetscCall(MatCopy(C, D, SAME_NONZERO_PATTERN));
  PetscCall(CheckModSELL(&c, "MatCopy(AIJ, modsell, SAME_NONZERO_PATTERN)", C, D));
  PetscCall(MatCopy(A, D, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckModSELL(&c, "MatCopy(AIJ, modsell, DIFFERENT_NONZERO_PATTERN)", A, D));
  PetscCall(MatCopy(D, C, SAME_NONZERO_PATTERN));
  PetscCall(CheckAIJ(&c, "MatCopy(modsell, AIJ, SAME_NONZERO_PATTERN)", A, C));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&C));

  /* MatAXPY with another nonzero pattern replaces the matrix's storage */
  {
    MSTestCSR xcsr;
    Mat       XA, XB;

    PetscCall(MSTestGenRandom(csr.nrows, csr.ncols, 2, PETSC_FALSE, 99, &xcsr));
    PetscCall(MSTestCreateMat(c.comm, &xcsr, MATAIJ, &XA));
    PetscCall(MatConvert(XA, MATMODSELL, MAT_INITIAL_MATRIX, &XB));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &D));
    PetscCall(CheckModSELL(&c, "before MatAXPY", A, D));
    PetscCall(MatAXPY(C, 0.5, XA, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(D, 0.5, XB, DIFFERENT_NONZERO_PATTERN));
    PetscCall(CheckModSELL(&c, "MatAXPY(DIFFERENT_NONZERO_PATTERN)", C, D));
    if (mergesettings) { /* known to fail: the new storage comes with the default settings */
      PetscCall(SettingsAre(D, 64, MATMODSELL_KERNEL_SELL, MATMODSELL_ORDERING_RCM, &same));
      PetscCall(Report(&c, "  keeps the slice height, kernel and ordering", same));
    }
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&XA));
    PetscCall(MatDestroy(&XB));
    PetscCall(MSTestCSRDestroy(&xcsr));
  }

  /* new matrices made from a MATMODSELL by AIJ code */
  {
    Mat AT, BT;
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &AT));
    PetscCall(MatTranspose(B, MAT_INITIAL_MATRIX, &BT));
    PetscCall(CheckModSELL(&c, "MatTranspose", AT, BT));
    PetscCall(MatDestroy(&BT));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &BT));
    PetscCall(MatTranspose(BT, MAT_INPLACE_MATRIX, &BT));
    PetscCall(CheckModSELL(&c, "MatTranspose(MAT_INPLACE_MATRIX)", AT, BT));
    if (mergesettings) {
      PetscCall(SettingsAre(BT, 64, MATMODSELL_KERNEL_SELL, MATMODSELL_ORDERING_RCM, &same));
      PetscCall(Report(&c, "  keeps the slice height, kernel and ordering", same));
    }
    PetscCall(MatDestroy(&AT));
    PetscCall(MatDestroy(&BT));
  }
  {
    IS       isr, isc;
    Mat      AS, BS;
    PetscInt rs, re, cs, ce, n = 0, *idx;

    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    PetscCall(MatGetOwnershipRangeColumn(A, &cs, &ce));
    PetscCall(PetscMalloc1(re - rs + 1, &idx));
    for (PetscInt i = rs; i < re; i++)
      if (i % 3 != 1) idx[n++] = i;
    PetscCall(ISCreateGeneral(c.comm, n, idx, PETSC_OWN_POINTER, &isr));
    n = 0;
    PetscCall(PetscMalloc1(ce - cs + 1, &idx));
    for (PetscInt j = cs; j < ce; j++)
      if (j % 4 != 2) idx[n++] = j;
    PetscCall(ISCreateGeneral(c.comm, n, idx, PETSC_OWN_POINTER, &isc));
    PetscCall(MatCreateSubMatrix(A, isr, isc, MAT_INITIAL_MATRIX, &AS));
    PetscCall(MatCreateSubMatrix(B, isr, isc, MAT_INITIAL_MATRIX, &BS));
    PetscCall(CheckModSELL(&c, "MatCreateSubMatrix", AS, BS));
    PetscCall(MatScale(B, 2.0));
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatCreateSubMatrix(A, isr, isc, MAT_REUSE_MATRIX, &AS));
    PetscCall(MatCreateSubMatrix(B, isr, isc, MAT_REUSE_MATRIX, &BS));
    PetscCall(CheckModSELL(&c, "MatCreateSubMatrix(MAT_REUSE_MATRIX) after new values", AS, BS));
    PetscCall(MatDestroy(&AS));
    PetscCall(MatDestroy(&BS));
    PetscCall(ISDestroy(&isr));
    PetscCall(ISDestroy(&isc));
  }
  {
    Mat      BD;
    PetscInt nf = 0;
    PetscCall(MatConvert(B, MATDENSE, MAT_INITIAL_MATRIX, &BD));
    PetscCall(MSTestCompareProducts(A, BD, c.rnd, c.tol, "MatConvert(modsell, dense)", &nf));
    PetscCall(Report(&c, "MatConvert(modsell, dense): products match", (PetscBool)!nf));
    PetscCall(MatDestroy(&BD));
  }

  PetscCall(PetscPrintf(c.comm, "%s\n", c.nfail ? "FAILED" : "OK"));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscRandomDestroy(&c.rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: lap2d
     args: -kind lap2d -nx 17 -ny 13
   test:
     suffix: edge_2
     nsize: 2
     args: -kind edge -n 600 -dense_row 500 -row_weights 1,2
   test:
     suffix: edge_3
     nsize: 3
     args: -kind edge -n 600 -dense_row 500 -row_weights 1,3,0
   test:
     suffix: random_rect
     args: -kind random -n 300 -ncols 400
   test:
     suffix: random_rect_3
     nsize: 3
     args: -kind random -n 400 -ncols 300 -row_weights 0,1,1

   # MatAXPY(DIFFERENT_NONZERO_PATTERN) and MatTranspose(MAT_INPLACE_MATRIX) replace the matrix's
   # storage by a new MATMODSELL matrix with the default settings
   test:
     suffix: merge_settings
     nsize: {{1 2}separate output}
     args: -kind lap2d -nx 17 -ny 13 -check_merge_settings
     filter: grep -v "local rows"

   # from other AIJ types (aijperm on the CPU; aijcusparse on the GPU)
   test:
     suffix: other_perm
     nsize: {{1 3}}
     args: -kind lap2d -nx 17 -ny 13 -other_type aijperm
     output_file: output/ex3_other.out
     filter: grep -v "local rows"
   test:
     suffix: cuda_other_cusparse
     requires: cuda
     nsize: {{1 3}}
     args: -kind lap2d -nx 17 -ny 13 -other_type aijcusparse -vec_type cuda
     output_file: output/ex3_other.out
     filter: grep -v "local rows"

   testset:
     requires: cuda
     args: -vec_type cuda
     test:
       suffix: cuda_lap2d
       args: -kind lap2d -nx 17 -ny 13
       output_file: output/ex3_lap2d.out
     test:
       suffix: cuda_edge_3
       nsize: 3
       args: -kind edge -n 600 -dense_row 500 -row_weights 1,3,0
       output_file: output/ex3_edge_3.out

TEST*/
