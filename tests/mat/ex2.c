static char help[] = "MATMODSELL after value-only updates and after nonzero-pattern changes, against AIJ.\n\
Each update is applied to both matrices; MatMult and MatGetDiagonal must then agree. Value-only\n\
updates must not rebuild the mod-SELL image (counted with the ModSELLBuild log event) and must keep\n\
its layout (MatModSELLGetInfo); a pattern change must rebuild it. Matrix options as in ex1.\n";

#include <mstest.h>

typedef struct {
  PetscLogEvent build, values;
} Events;

/* event counts summed over the processes that have rows (MATMPIAIJ's MatShift() preallocates the
   empty diagonal block of a process without rows again, a harmless rebuild of an empty image) */
static PetscErrorCode GetCounts(Mat B, const Events *ev, PetscInt64 *nbuild, PetscInt64 *nvalues)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)B);
  PetscEventPerfInfo info;
  PetscInt64         loc[2] = {0, 0}, glob[2];
  PetscInt           m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(B, &m, NULL));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev->build, &info));
  if (m) loc[0] = info.count;
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev->values, &info));
  if (m) loc[1] = info.count;
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_INT64, MPI_SUM, comm));
  *nbuild  = glob[0];
  *nvalues = glob[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* new values on the same pattern: va[e] + (u - 0.5), u from a hash of (i, j, seed) */
static PetscErrorCode FillNewValues(Mat A, const MSTestCSR *csr, PetscInt seed)
{
  PetscInt     rs, re;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(PetscMalloc1(csr->maxrow + 1, &v));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt len = csr->ia[i + 1] - csr->ia[i];
    for (PetscInt e = 0; e < len; e++) v[e] = csr->va[csr->ia[i] + e] + MSTestPairHash(i * 7 + seed, csr->ja[csr->ia[i] + e] + 3 * seed) - 0.5;
    PetscCall(MatSetValues(A, 1, &i, len, csr->ja + csr->ia[i], v, INSERT_VALUES));
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  MPI_Comm       comm;
  Mat            A, B;
  PetscRandom    rnd;
  Events         ev;
  PetscReal      tol;
  PetscInt64     nbuild, nvalues;
  MatModSELLInfo info;
  PetscInt       nfail;
} Ctx;

/* compare after an update; expect: 0 value-only (no rebuild, same layout), 1 pattern change (rebuild),
   -1 no expectation on rebuilds */
static PetscErrorCode Check(Ctx *c, const char *what, PetscInt expect)
{
  PetscInt       nf = 0;
  PetscInt64     nb, nv;
  MatModSELLInfo info;

  PetscFunctionBegin;
  PetscCall(MSTestCompareMult(c->A, c->B, c->rnd, c->tol, what, &nf));
  PetscCall(GetCounts(c->B, &c->ev, &nb, &nv));
  PetscCall(MatModSELLGetInfo(c->B, &info));
  if (expect == 0) {
    if (nb != c->nbuild) {
      nf++;
      PetscCall(PetscPrintf(c->comm, "FAIL %s: a value-only update rebuilt the image (%" PetscInt64_FMT " builds)\n", what, nb - c->nbuild));
    }
    if (nv == c->nvalues) {
      nf++;
      PetscCall(PetscPrintf(c->comm, "FAIL %s: the image values were not refreshed\n", what));
    }
    if (info.nslots != c->info.nslots || info.noffdiag != c->info.noffdiag || info.nslices != c->info.nslices || info.nlocal != c->info.nlocal) {
      nf++;
      PetscCall(PetscPrintf(c->comm, "FAIL %s: the layout changed on a value-only update\n", what));
    }
  } else if (expect == 1 && nb == c->nbuild) {
    nf++;
    PetscCall(PetscPrintf(c->comm, "FAIL %s: the nonzero pattern changed but the image was not rebuilt\n", what));
  }
  PetscCall(PetscPrintf(c->comm, "%-60s %s\n", what, nf ? "FAILED" : "OK"));
  c->nfail += nf;
  c->nbuild  = nb;
  c->nvalues = nv;
  c->info    = info;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the entries of A and B the same, values bit for bit (MATMODSELL's own MatDiagonalScale() makes SeqAIJ's products
   in one pass: the same roundings); a FAIL line names the first differing row */
static PetscErrorCode SameValues(Ctx *c, const char *what)
{
  PetscInt rs, re, bad = 0, first = -1, gbad;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(c->A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt    *ja, *jb;
    const PetscScalar *va, *vb;
    PetscInt           na, nb, d = 0;

    PetscCall(MatGetRow(c->A, i, &na, &ja, &va));
    PetscCall(MatGetRow(c->B, i, &nb, &jb, &vb));
    if (na != nb) d = 1;
    for (PetscInt k = 0; !d && k < na; k++)
      if (ja[k] != jb[k] || va[k] != vb[k]) d = 1;
    PetscCall(MatRestoreRow(c->B, i, &nb, &jb, &vb));
    PetscCall(MatRestoreRow(c->A, i, &na, &ja, &va));
    if (d && first < 0) first = i;
    bad += d;
  }
  PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, c->comm));
  if (bad) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: row %" PetscInt_FMT " differs from AIJ's\n", what, first));
  if (gbad) c->nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* zero every 5th local row that has a diagonal entry (so no entry is added), put 2 on the diagonal */
static PetscErrorCode ZeroSomeRows(Ctx *c, const MSTestCSR *csr, PetscInt rs, PetscInt re, PetscBool keep)
{
  PetscInt *rows, nr = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(re - rs + 1, &rows));
  for (PetscInt i = rs; i < re; i += 5) {
    PetscBool hasdiag = PETSC_FALSE;
    for (PetscInt e = csr->ia[i]; e < csr->ia[i + 1]; e++)
      if (csr->ja[e] == i) hasdiag = PETSC_TRUE;
    if (hasdiag) rows[nr++] = i;
  }
  PetscCall(MatSetOption(c->A, MAT_KEEP_NONZERO_PATTERN, keep));
  PetscCall(MatSetOption(c->B, MAT_KEEP_NONZERO_PATTERN, keep));
  PetscCall(MatZeroRows(c->A, nr, rows, 2.0, NULL, NULL));
  PetscCall(MatZeroRows(c->B, nr, rows, 2.0, NULL, NULL));
  PetscCall(PetscFree(rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx            c;
  MSTestCSR      csr;
  PetscInt       rs, re, N, nnew = 0, *newi, *newj, *newowner;
  PetscMPIInt    rank, size;
  PetscBool      alldiag = PETSC_TRUE, rowhasdiag;
  MatInfo        minfo;
  PetscReal      nnzB0;
  MatModSELLInfo info0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.comm = PETSC_COMM_WORLD;
  c.tol  = 1e-11;
  PetscCallMPI(MPI_Comm_rank(c.comm, &rank));
  PetscCallMPI(MPI_Comm_size(c.comm, &size));
  /* build events are counted globally: keep the auxiliary matrices (duplicates used as MatAXPY operands) from
     building their own GPU image at assembly, which would count as a rebuild of the matrix under test */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_modsell_eager_setup", "0"));
  PetscCall(PetscLogEventGetId("ModSELLBuild", &c.ev.build));
  PetscCall(PetscLogEventGetId("ModSELLValues", &c.ev.values));

  PetscCall(MSTestGenerate(c.comm, &csr));
  PetscCheck(csr.nrows == csr.ncols, c.comm, PETSC_ERR_SUP, "ex2 needs a square matrix");
  N = csr.nrows;
  for (PetscInt i = 0; i < N; i++) {
    rowhasdiag = PETSC_FALSE;
    for (PetscInt e = csr.ia[i]; e < csr.ia[i + 1]; e++)
      if (csr.ja[e] == i) rowhasdiag = PETSC_TRUE;
    if (!rowhasdiag) alldiag = PETSC_FALSE;
  }
  PetscCall(MSTestCreateMat(c.comm, &csr, MATAIJ, &c.A));
  PetscCall(MSTestCreateMat(c.comm, &csr, NULL, &c.B)); /* MATMODSELL with the -mat_modsell_* options */
  PetscCall(MSTestPrintSplit(c.A));
  PetscCall(MSTestRandomCreate(c.comm, &c.rnd));
  PetscCall(MatGetOwnershipRange(c.A, &rs, &re));

  PetscCall(Check(&c, "assembled", 1));

  PetscCall(FillNewValues(c.A, &csr, 1));
  PetscCall(FillNewValues(c.B, &csr, 1));
  PetscCall(Check(&c, "MatSetValues (same pattern) + assembly", 0));

  PetscCall(MatScale(c.A, -1.5));
  PetscCall(MatScale(c.B, -1.5));
  PetscCall(Check(&c, "MatScale", 0));

  {
    Vec l, r;
    PetscCall(MatCreateVecs(c.A, &r, &l));
    PetscCall(VecSetRandom(l, c.rnd));
    PetscCall(VecSetRandom(r, c.rnd));
    PetscCall(MatDiagonalScale(c.A, l, r));
    PetscCall(MatDiagonalScale(c.B, l, r));
    PetscCall(SameValues(&c, "MatDiagonalScale (left and right)"));
    PetscCall(Check(&c, "MatDiagonalScale (left and right)", 0));
    PetscCall(MatDiagonalScale(c.A, NULL, r));
    PetscCall(MatDiagonalScale(c.B, NULL, r));
    PetscCall(Check(&c, "MatDiagonalScale (right only)", 0));
    PetscCall(MatDiagonalScale(c.A, l, NULL));
    PetscCall(MatDiagonalScale(c.B, l, NULL));
    PetscCall(Check(&c, "MatDiagonalScale (left only)", 0));
    PetscCall(VecDestroy(&l));
    PetscCall(VecDestroy(&r));
  }

  {
    Mat XA, XB;
    PetscCall(MatDuplicate(c.A, MAT_COPY_VALUES, &XA));
    PetscCall(MatDuplicate(c.B, MAT_COPY_VALUES, &XB));
    PetscCall(FillNewValues(XA, &csr, 2));
    PetscCall(FillNewValues(XB, &csr, 2));
    PetscCall(MatAXPY(c.A, 0.75, XA, SAME_NONZERO_PATTERN));
    PetscCall(MatAXPY(c.B, 0.75, XB, SAME_NONZERO_PATTERN));
    PetscCall(Check(&c, "MatAXPY (SAME_NONZERO_PATTERN, X MATMODSELL)", 0));
    PetscCall(MatAXPY(c.A, -0.25, XA, SAME_NONZERO_PATTERN));
    PetscCall(MatAXPY(c.B, -0.25, XA, SAME_NONZERO_PATTERN));
    PetscCall(Check(&c, "MatAXPY (SAME_NONZERO_PATTERN, X AIJ)", 0));
    /* an understated structure flag: equal patterns under DIFFERENT_NONZERO_PATTERN add in place (one process) */
    PetscCall(MatAXPY(c.A, 0.5, XA, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(c.B, 0.5, XB, DIFFERENT_NONZERO_PATTERN));
    PetscCall(Check(&c, "MatAXPY (DIFFERENT_NONZERO_PATTERN, equal patterns)", size == 1 ? 0 : -1));
    {
      /* X's pattern a subset of Y's: every 3rd row of X cut to its diagonal */
      PetscInt *rows, nr = 0;

      PetscCall(PetscMalloc1(re - rs + 1, &rows));
      for (PetscInt i = rs; i < re; i += 3)
        for (PetscInt e = csr.ia[i]; e < csr.ia[i + 1]; e++)
          if (csr.ja[e] == i) rows[nr++] = i;
      PetscCall(MatSetOption(XA, MAT_KEEP_NONZERO_PATTERN, PETSC_FALSE));
      PetscCall(MatSetOption(XB, MAT_KEEP_NONZERO_PATTERN, PETSC_FALSE));
      PetscCall(MatZeroRows(XA, nr, rows, 3.0, NULL, NULL));
      PetscCall(MatZeroRows(XB, nr, rows, 3.0, NULL, NULL));
      PetscCall(PetscFree(rows));
      PetscCall(MatAXPY(c.A, -0.5, XA, SUBSET_NONZERO_PATTERN));
      PetscCall(MatAXPY(c.B, -0.5, XB, SUBSET_NONZERO_PATTERN));
      PetscCall(Check(&c, "MatAXPY (SUBSET_NONZERO_PATTERN)", size == 1 ? 0 : -1));
      PetscCall(MatAXPY(c.A, 0.25, XA, DIFFERENT_NONZERO_PATTERN));
      PetscCall(MatAXPY(c.B, 0.25, XA, DIFFERENT_NONZERO_PATTERN));
      PetscCall(Check(&c, "MatAXPY (DIFFERENT_NONZERO_PATTERN, X AIJ, a subset)", -1));
    }
    PetscCall(MatDestroy(&XA));
    PetscCall(MatDestroy(&XB));
  }

  PetscCall(MatZeroEntries(c.A));
  PetscCall(MatZeroEntries(c.B));
  PetscCall(Check(&c, "MatZeroEntries", 0));
  PetscCall(FillNewValues(c.A, &csr, 3));
  PetscCall(FillNewValues(c.B, &csr, 3));
  PetscCall(Check(&c, "refilled after MatZeroEntries", 0));

  PetscCall(ZeroSomeRows(&c, &csr, rs, re, PETSC_TRUE));
  PetscCall(Check(&c, "MatZeroRows (MAT_KEEP_NONZERO_PATTERN)", 0));

  PetscCall(MatShift(c.A, 3.0));
  PetscCall(MatShift(c.B, 3.0));
  /* with every diagonal entry present a shift only changes values; else it adds the missing ones */
  PetscCall(Check(&c, alldiag ? "MatShift (every diagonal present)" : "MatShift (adds missing diagonal entries)", alldiag ? 0 : -1));

  /* pattern change: new entries in the first row of each process with rows, 40 columns spread over
     the whole matrix (so also in other processes' columns), inserted by the next process (stash) */
  PetscCall(MatGetInfo(c.B, MAT_GLOBAL_SUM, &minfo));
  nnzB0 = minfo.nz_used;
  PetscCall(MatModSELLGetInfo(c.B, &info0));
  PetscCall(PetscMalloc3(40 * size, &newi, 40 * size, &newj, 40 * size, &newowner));
  {
    const PetscInt *ranges;
    PetscCall(MatGetOwnershipRanges(c.A, &ranges));
    for (PetscMPIInt r = 0; r < size; r++) {
      const PetscInt i = ranges[r];
      if (ranges[r + 1] == i) continue;
      for (PetscInt q = 0; q < 40; q++) {
        const PetscInt j   = (i + 7 + 61 * q) % N;
        PetscBool      dup = (PetscBool)(j == i);
        for (PetscInt e = csr.ia[i]; e < csr.ia[i + 1] && !dup; e++)
          if (csr.ja[e] == j) dup = PETSC_TRUE;
        for (PetscInt p = 0; p < nnew && !dup; p++)
          if (newi[p] == i && newj[p] == j) dup = PETSC_TRUE;
        if (dup) continue;
        newi[nnew]     = i;
        newj[nnew]     = j;
        newowner[nnew] = (r + 1) % size; /* the process that inserts it */
        nnew++;
      }
    }
  }
  PetscCall(MatSetOption(c.A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(c.B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt p = 0; p < nnew; p++) {
    const PetscScalar v = 0.01 * (PetscScalar)(p % 17 + 1);
    if (newowner[p] != rank) continue;
    PetscCall(MatSetValue(c.A, newi[p], newj[p], v, INSERT_VALUES));
    PetscCall(MatSetValue(c.B, newi[p], newj[p], v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(c.A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(c.B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(c.A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(c.B, MAT_FINAL_ASSEMBLY));
  PetscCall(Check(&c, "new nonzeros (pattern change)", 1));
  PetscCall(MatGetInfo(c.B, MAT_GLOBAL_SUM, &minfo));
  {
    MatModSELLOrdering ord;
    PetscBool          grewnnz, groff, grslots;

    /* in the natural order the widest rows of their slices get wider; RCM may regroup the rows */
    PetscCall(MatModSELLGetOrdering(c.B, &ord));
    grewnnz = (PetscBool)((PetscInt)(minfo.nz_used - nnzB0) == nnew);
    groff   = (PetscBool)(c.info.noffdiag - info0.noffdiag == nnew);
    grslots = (PetscBool)(ord == MATMODSELL_ORDERING_NATURAL ? c.info.nslots > info0.nslots : c.info.nslots >= c.info.noffdiag);
    PetscCall(PetscPrintf(c.comm, "new nonzeros: matrix nonzeros grew by their number: %s, image off-diagonals grew by their number: %s, image slots as expected: %s\n", grewnnz ? "yes" : "NO", groff ? "yes" : "NO", grslots ? "yes" : "NO"));
    if (!grewnnz || !groff || !grslots || !nnew) c.nfail++;
  }
  PetscCall(PetscFree3(newi, newj, newowner));

  PetscCall(MatScale(c.A, 0.5));
  PetscCall(MatScale(c.B, 0.5));
  PetscCall(Check(&c, "MatScale after the pattern change", 0));
  PetscCall(FillNewValues(c.A, &csr, 4));
  PetscCall(FillNewValues(c.B, &csr, 4));
  PetscCall(Check(&c, "MatSetValues (old entries) after the pattern change", 0));

  /* without MAT_KEEP_NONZERO_PATTERN the zeroed rows lose their off-diagonal entries */
  PetscCall(ZeroSomeRows(&c, &csr, rs, re, PETSC_FALSE));
  PetscCall(Check(&c, "MatZeroRows (entries removed: pattern change)", 1));
  PetscCall(MatScale(c.A, 3.0));
  PetscCall(MatScale(c.B, 3.0));
  PetscCall(Check(&c, "MatScale after MatZeroRows", 0));

  PetscCall(PetscPrintf(c.comm, "%s\n", c.nfail ? "FAILED" : "OK"));
  PetscCall(PetscRandomDestroy(&c.rnd));
  PetscCall(MatDestroy(&c.A));
  PetscCall(MatDestroy(&c.B));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: defined(PETSC_USE_LOG)

   # each test loops over the kernels, orderings (and slice heights): the output must not change
   test:
     suffix: lap2d
     args: -kind lap2d -nx 19 -ny 21 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{natural rcm partition}} -mat_modsell_slice_height {{32 128}}
   test:
     suffix: lap2d_3
     nsize: 3
     args: -kind lap2d -nx 19 -ny 21 -row_weights 2,0,3 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{natural rcm partition}} -mat_modsell_slice_height 64
   test:
     suffix: unstructured_2
     nsize: 2
     args: -kind unstructured -n 900 -row_weights 0,1 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering rcm -mat_modsell_slice_height 32
   test:
     suffix: unstructured_3
     nsize: 3
     args: -kind unstructured -n 900 -row_weights 1,1,2 -mat_modsell_ordering {{natural rcm partition}} -mat_modsell_slice_height 32
   # MatShift adds the missing diagonal entries of this matrix
   test:
     suffix: edge
     args: -kind edge -n 1500 -dense_row 1200 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{natural rcm partition}}
   test:
     suffix: edge_3
     nsize: 3
     args: -kind edge -n 1500 -dense_row 1200 -row_weights 1,3,0 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering rcm -mat_modsell_slice_height 96

   testset:
     requires: cuda
     args: -vec_type cuda
     test:
       suffix: cuda_lap2d_3
       nsize: 3
       args: -kind lap2d -nx 19 -ny 21 -row_weights 2,0,3 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{natural rcm partition}} -mat_modsell_slice_height 64
       output_file: output/ex2_lap2d_3.out
     test:
       suffix: cuda_edge
       args: -kind edge -n 1500 -dense_row 1200 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{natural rcm partition}}
       output_file: output/ex2_edge.out
     # the bucketed permuted product with buckets of 37 rows: its arrays must follow every rebuild of the image (the
     # pattern changes), value-only updates keep them
     test:
       suffix: cuda_chunk_3
       nsize: 3
       args: -kind lap2d -nx 19 -ny 21 -row_weights 2,0,3 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{rcm partition}} -mat_modsell_slice_height 64 -mat_modsell_permute_chunk 37
       output_file: output/ex2_lap2d_3.out
     # the threaded pinned upload of the CSR and of new values: with the default chunk (4 MiB) the 20 MB of
     # values go through it; with chunks of 4 kB every array does, in ranges that are not multiples of a chunk
     test:
       suffix: cuda_upload
       args: -kind lap2d -nx 700 -ny 700 -mat_modsell_upload_threads {{1 4}}
       output_file: output/ex2_upload.out
     test:
       suffix: cuda_upload_small_chunks
       args: -kind lap2d -nx 219 -ny 317 -mat_modsell_upload_threads {{3 8}} -mat_modsell_upload_chunk 4096 -mat_modsell_kernel {{modsell sell}} -mat_modsell_ordering {{natural rcm}}
     test:
       suffix: cuda_upload_small_chunks_2
       nsize: 2
       args: -kind lap2d -nx 219 -ny 317 -row_weights 3,1 -mat_modsell_upload_threads 8 -mat_modsell_upload_chunk 4096 -mat_modsell_ordering {{natural rcm}}

TEST*/
