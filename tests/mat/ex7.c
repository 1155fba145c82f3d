static char help[] = "Locality partition (localityimpl.h) of each process's diagonal block: the blocks are a permutation of the rows,\n\
of sh rows each (the last one the rest), counted connected or not (checked here independently), the block colouring is\n\
proper; prints the fraction of the graph's edges inside a block against inside a slice of the natural numbering.\n\
Matrices from tests/include/mstest.h (-kind ..., see MSTestGenerate), -shuffle: number the rows (and columns) randomly,\n\
-sh <128> rows per block.\n";

#include <petscmodsell/private/localityimpl.h>
#include <mstest.h>

/* the symmetric random renumbering of a square CSR: row i becomes p[i] */
static PetscErrorCode Shuffle(MSTestCSR *A)
{
  MSTestRng rng = {12345};
  MSTestCOO coo = {0};
  PetscInt *p, n = A->nrows;

  PetscFunctionBegin;
  PetscCheck(A->nrows == A->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-shuffle needs a square matrix");
  PetscCall(PetscMalloc1(n, &p));
  for (PetscInt i = 0; i < n; i++) p[i] = i;
  for (PetscInt i = n - 1; i > 0; i--) {
    const PetscInt j = MSTestRngInt(&rng, i + 1), t = p[i];
    p[i]             = p[j];
    p[j]             = t;
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = A->ia[i]; k < A->ia[i + 1]; k++) PetscCall(MSTestCOOAdd(&coo, p[i], p[A->ja[k]], A->va[k]));
  PetscCall(MSTestCSRDestroy(A));
  PetscCall(MSTestCOOToCSR(&coo, n, n, A));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt Find(PetscInt *parent, PetscInt x)
{
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/* checks the partition of the square block Ad against its pattern; returns the number of failed checks */
static PetscErrorCode Check(Mat Ad, MSLocality loc, PetscInt *nfail, PetscInt *ndisc, PetscReal *fin, PetscReal *fnat)
{
  const PetscInt *ai, *aj;
  PetscInt        m, *blk, *parent, *root, sh = loc->sh;
  PetscInt64      e = 0, ein = 0, enat = 0;
  PetscBool       done;

  PetscFunctionBegin;
  *nfail = 0;
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(PetscMalloc3(PetscMax(m, 1), &blk, PetscMax(m, 1), &parent, PetscMax(m, 1), &root));
  for (PetscInt i = 0; i < m; i++) blk[i] = -1;
  for (PetscInt r = 0; r < m; r++) { /* a permutation, blocks of sh rows */
    const PetscInt v = loc->perm[r];
    if (v < 0 || v >= m || blk[v] >= 0) (*nfail)++;
    else blk[v] = r / sh;
  }
  if (loc->nblocks != (m + sh - 1) / sh) (*nfail)++;
  if (!*nfail) {
    /* connectivity inside each block: union-find over the edges inside blocks (the pattern symmetrised) */
    for (PetscInt i = 0; i < m; i++) parent[i] = i;
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        const PetscInt j = aj[k];
        if (j == i) continue;
        e++;
        enat += i / sh == j / sh;
        if (blk[i] != blk[j]) {
          if (loc->color[blk[i]] == loc->color[blk[j]]) (*nfail)++; /* the colouring must be proper */
          continue;
        }
        ein++;
        parent[Find(parent, i)] = Find(parent, j);
      }
    *ndisc = 0;
    for (PetscInt b = 0; b < loc->nblocks; b++) {
      const PetscInt lo = b * sh, hi = PetscMin(lo + sh, m), r0 = Find(parent, loc->perm[lo]);
      PetscBool      conn = PETSC_TRUE;
      for (PetscInt r = lo + 1; r < hi; r++)
        if (Find(parent, loc->perm[r]) != r0) conn = PETSC_FALSE;
      *ndisc += !conn;
    }
    if (*ndisc != loc->ndisconnected) (*nfail)++;
    for (PetscInt b = 0; b < loc->nblocks; b++)
      if (loc->color[b] < 0 || loc->color[b] >= loc->ncolors) (*nfail)++;
    if (loc->bipartite && loc->ncolors > 2) (*nfail)++;
  }
  *fin  = e ? (PetscReal)ein / (PetscReal)e : 0.0;
  *fnat = e ? (PetscReal)enat / (PetscReal)e : 0.0;
  PetscCall(PetscFree3(blk, parent, root));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MSTestCSR   csr;
  Mat         A, Ad;
  MSLocality  loc;
  PetscInt    sh = 128, nfail, ndisc = 0;
  PetscReal   fin, fnat;
  PetscBool   shuffle = PETSC_FALSE, ismpi;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sh", &sh, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-shuffle", &shuffle, NULL));
  PetscCall(MSTestGenerate(comm, &csr));
  if (shuffle) PetscCall(Shuffle(&csr));
  PetscCall(MSTestCreateMat(comm, &csr, MATAIJ, &A));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  else Ad = A;
  PetscCall(MSLocalityCompute(Ad, sh, &loc));
  PetscCall(Check(Ad, loc, &nfail, &ndisc, &fin, &fnat));
  PetscCall(PetscSynchronizedPrintf(comm, "[%d] %" PetscInt_FMT " rows, %" PetscInt_FMT " blocks of %" PetscInt_FMT ", %" PetscInt_FMT " components; blocks not connected: %" PetscInt_FMT "; colours %" PetscInt_FMT " (%s); edges inside a block %.3f, inside a slice of the natural numbering %.3f; checks: %s\n", rank, loc->m, loc->nblocks, sh, loc->ncomponents, loc->ndisconnected, loc->ncolors, loc->bipartite ? "bipartite" : "greedy",
                                    (double)fin, (double)fnat, nfail ? "FAILED" : "ok"));
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscCall(MSLocalityDestroy(&loc));
  PetscCall(MatDestroy(&A));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: lap3d
     args: -kind lap3d -nx 20 -ny 20 -nz 20 -sh 64 -shuffle {{0 1}separate output}
   test:
     suffix: unstructured
     args: -kind unstructured -n 3000 -sh 128
   test:
     suffix: unstructured_3
     nsize: 3
     args: -kind unstructured -n 3000 -sh 32 -row_weights 2,0,3
   test:
     suffix: edge
     args: -kind edge -n 2500 -sh 64
   test:
     suffix: random_nonsym_2
     nsize: 2
     args: -kind random -n 900 -nzr 4 -sh 32

TEST*/
