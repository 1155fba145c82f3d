/*
   MatCreateGraph() of a MATSEQAIJMODSELL matrix (PETSc with CUDA): PCGAMG's graph made on the GPU.

   PCGAMG (aggregation) starts its setup with the graph of the operator: MatCreateGraph() of SeqAIJ
   (MatCreateGraph_Simple_AIJ()) duplicates the matrix, takes absolute values, adds the transpose (MatTranspose() and
   MatAXPY() on the host) and scales it by the inverse square roots of its diagonal. On the host this is a large part
   of GAMG's setup (H100, 2026-11-27, one process: about 2.5 s of a 15 s setup at 10.4 M FVM cells, about 8 s of 38 s
   for PETSc's ex45 at 256^3), for aijcusparse as for SeqAIJ. Here the same graph is computed on the GPU
   (cuda/graph.cu) from the device CSR of the matrix's cuSPARSE view, which GAMG's products upload later anyway, and
   copied to the host once as a MATSEQAIJ: the coarsening that follows is PETSc's host code, for which a host matrix
   is what it needs. The pattern and the values are SeqAIJ's bit for bit (tests/mat/ex10 compares them), so GAMG's
   aggregates and hierarchy are the same.

   Taken when: block size 1, a square matrix, no filter (filter < 0: PCGAMG's default path, which filters afterwards
   itself when -pc_gamg_threshold >= 0), real double scalars and 32-bit indices, the matrix not bound to the CPU, its
   default vectors CUDA vectors, and -mat_modsell_graph_device (default true). Otherwise SeqAIJ's code, unchanged; also
   when the GPU lacks the memory for the work arrays (about 56 bytes per nonzero, freed at the end; -info says so).
   Absolute values are taken when scaling (SeqAIJ's: when scaling or filtering); without scaling and symmetrization
   SeqAIJ returns the matrix itself, this a copy with the same entries.
*/
#include <petscmodsell/private/modsellimpl.h>

#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

/* the three arrays of a graph made with MatCreateSeqAIJWithArrays(), freed with the matrix (a composed container) */
typedef struct {
  PetscInt    *i, *j;
  PetscScalar *a;
} MSGraphArrays;

static PetscErrorCode MSGraphArraysDestroy(PetscCtxRt ctx) /* ctx: the address of the pointer */
{
  MSGraphArrays *g = *(MSGraphArrays **)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(g->i));
  PetscCall(PetscFree(g->j));
  PetscCall(PetscFree(g->a));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *done false: the GPU had not the memory for the work arrays (about 56 bytes per nonzero): nothing made, the caller
   takes the host code */
static PetscErrorCode MatCreateGraphDevice_SeqAIJModSELL(Mat A, PetscInt nnz, PetscBool symmetrize, PetscBool scale, Mat *G, PetscBool *done)
{
  const PetscInt    *di, *dj;
  const PetscScalar *da;
  Mat                V;
  MSGraphArrays     *h;
  int               *gi, *gj;
  double            *ga;
  long long          gnnz;
  PetscInt           m = A->rmap->n;
  PetscBool          symset, sym, transpose;
  cudaStream_t       stream;
  PetscOptions       o;
  cudaError_t        err;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(MatIsSymmetricKnown(A, &symset, &sym));
  transpose = (PetscBool)(symmetrize && !(symset && sym));
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &V));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(V, PETSC_FALSE, &di, &dj)); /* uploads the view's CSR when it is not on the GPU */
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(V, &da));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(MATMODSELL_Graph, A, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  err = (cudaError_t)MSCUDAGraphBuild((int)m, (int)A->cmap->n, (const int *)di, (const int *)dj, (const double *)da, (long long)nnz, (int)scale, (int)transpose, (int)scale, &gi, &gj, &ga, &gnnz, stream);
  PetscCall(PetscLogGpuTimeEnd());
  if (err == cudaErrorMemoryAllocation) { /* its arrays were freed: clear the error, the host code makes the graph */
    (void)cudaGetLastError();
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(V, &da));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(V, PETSC_FALSE, &di, &dj));
    PetscCall(PetscLogEventEnd(MATMODSELL_Graph, A, 0, 0, 0));
    PetscCall(PetscInfo(A, "MATSEQAIJMODSELL: not enough GPU memory for PCGAMG's graph (about %g bytes): made on the host\n", 56.0 * (double)nnz));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCUDA(err);
  PetscCall(PetscLogGpuFlops((transpose ? 1.0 : 0.0) * (PetscLogDouble)nnz + (scale ? 2.0 * (PetscLogDouble)gnnz + 2.0 * (PetscLogDouble)m : 0.0)));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(V, &da));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(V, PETSC_FALSE, &di, &dj));
  /* to the host, into arrays the graph owns */
  PetscCall(PetscNew(&h));
  PetscCall(PetscMalloc1(m + 1, &h->i));
  PetscCall(PetscMalloc1(gnnz ? gnnz : 1, &h->j));
  PetscCall(PetscMalloc1(gnnz ? gnnz : 1, &h->a));
  /* the upload's threads and pinned buffers (a single cudaMemcpy into fresh pageable memory took about 1 s for
     ex45 256^3's 1.5 GB on an H200 machine) */
  PetscCall(MSCopyDeviceToHost(h->i, gi, (size_t)(m + 1) * sizeof(PetscInt), stream));
  if (gnnz) {
    PetscCall(MSCopyDeviceToHost(h->j, gj, (size_t)gnnz * sizeof(PetscInt), stream));
    PetscCall(MSCopyDeviceToHost(h->a, ga, (size_t)gnnz * sizeof(PetscScalar), stream));
  }
  PetscCallCUDA((cudaError_t)MSCUDAGraphFree(gi, gj, ga, stream));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)(m + 1) * sizeof(PetscInt) + (PetscLogDouble)gnnz * (sizeof(PetscInt) + sizeof(PetscScalar))));
  PetscCall(PetscLogEventEnd(MATMODSELL_Graph, A, 0, 0, 0));
  /* the host matrix on those arrays (no inode scan: the graph is read row by row, never multiplied) */
  PetscCall(MSViewOptionsPush_Private(&o));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, h->i, h->j, h->a, G));
  PetscCall(MSViewOptionsPop_Private(&o));
  PetscCall(PetscObjectContainerCompose((PetscObject)*G, "MatModSELLGraphArrays", h, MSGraphArraysDestroy));
  PetscCall(MatSetBlockSizesFromMats(*G, A, A));
  if (symmetrize) PetscCall(MatSetOption(*G, MAT_SYMMETRIC, PETSC_TRUE));
  else PetscCall(MatPropagateSymmetryOptions(A, *G));
  PetscCall(MatViewFromOptions(*G, NULL, "-mat_graph_view")); /* as SeqAIJ's */
  PetscCall(PetscInfo(A, "MATSEQAIJMODSELL: PCGAMG's graph made on the GPU (%" PetscInt_FMT " rows, %lld entries%s%s)\n", m, gnnz, transpose ? ", symmetrized" : "", scale ? ", scaled" : ""));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateGraph_SeqAIJModSELL(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  Mat_SeqAIJModSELL *ms = (Mat_SeqAIJModSELL *)A->spptr;
  PetscInt           bs, nnz = 0;
  PetscBool          device = ms->settings.graph_device;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  device = (PetscBool)(device && bs == 1 && filter < 0 && A->rmap->n == A->cmap->n && A->assembled && !A->boundtocpu && !A->structure_only);
  if (device) PetscCall(PetscStrbeginswith(A->defaultvectype, VECCUDA, &device)); /* the matrix works with CUDA vectors */
  #if defined(PETSC_USE_64BIT_INDICES) || defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  device = PETSC_FALSE;
  #endif
  if (device) { /* the device code counts in 32 bits: the sum's entries and the rows */
    const PetscInt *ai;
    PetscInt        m;
    PetscBool       done;

    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, NULL, &done));
    if (done) nnz = ai[m];
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, NULL, &done));
    device = (PetscBool)(done && 2.0 * (double)nnz + (double)m < (double)PETSC_INT_MAX);
  }
  if (device) PetscCall(MatCreateGraphDevice_SeqAIJModSELL(A, nnz, symmetrize, scale, G, &device));
  if (!device) PetscCall((*ms->parent.creategraph)(A, symmetrize, scale, filter, index_size, index, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
