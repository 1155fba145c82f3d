static char help[] = "MatCreateGraph() (PCGAMG's graph) of a MATMODSELL matrix against a MATAIJ matrix with the same entries:\n\
the same pattern and the same values bit for bit, for every combination of symmetrize and scale, without and with a\n\
filter, and with the matrix flagged symmetric (-set_symmetric). With PETSc built with CUDA a MATSEQAIJMODSELL matrix\n\
makes the graph on the GPU (seq/graph.c) unless -mat_modsell_graph_device 0 or a filter is given: -expect_device 1|0\n\
checks that it did (the ModSELLGraph event's count). The matrix: -kind ... (mstest.h); any number of processes\n\
(MATMPIAIJMODSELL keeps MPIAIJ's code).\n";

#include <mstest.h>

/* G and H equal: sizes, every local row's columns, and its values as bits */
static PetscErrorCode CompareGraphs(Mat G, Mat H, const char *label)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)G);
  PetscInt  rs, re, M, N, MH, NH, bad = 0, gbad, firstrow = -1, nz = 0, gnz;
  PetscBool gset, gsym, hset, hsym;

  PetscFunctionBegin;
  PetscCall(MatGetSize(G, &M, &N));
  PetscCall(MatGetSize(H, &MH, &NH));
  PetscCheck(M == MH && N == NH, comm, PETSC_ERR_PLIB, "%s: graph sizes %" PetscInt_FMT " x %" PetscInt_FMT " against %" PetscInt_FMT " x %" PetscInt_FMT, label, M, N, MH, NH);
  PetscCall(MatGetOwnershipRange(G, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt    *cg, *ch;
    const PetscScalar *vg, *vh;
    PetscInt           ng, nh;
    PetscBool          same;

    PetscCall(MatGetRow(G, i, &ng, &cg, &vg));
    PetscCall(MatGetRow(H, i, &nh, &ch, &vh));
    same = (PetscBool)(ng == nh);
    if (same && ng) same = (PetscBool)(!memcmp(cg, ch, (size_t)ng * sizeof(PetscInt)) && !memcmp(vg, vh, (size_t)ng * sizeof(PetscScalar)));
    nz += ng;
    if (!same) {
      if (firstrow < 0) firstrow = i;
      bad++;
    }
    PetscCall(MatRestoreRow(H, i, &nh, &ch, &vh));
    PetscCall(MatRestoreRow(G, i, &ng, &cg, &vg));
  }
  PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(&nz, &gnz, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MatIsSymmetricKnown(G, &gset, &gsym));
  PetscCall(MatIsSymmetricKnown(H, &hset, &hsym));
  if (gbad) PetscCall(PetscSynchronizedPrintf(comm, "[%d] %s: %" PetscInt_FMT " rows differ, the first local one %" PetscInt_FMT "\n", PetscGlobalRank, label, bad, firstrow));
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscCall(PetscPrintf(comm, "%-52s %s (entries %s, symmetric flag %s)\n", label, gbad ? "FAIL" : "OK", gnz > 0 ? "present" : "none", (gset == hset && (!gset || gsym == hsym)) ? "same" : "DIFFERENT"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MSTestCSR          csr;
  Mat                A, B;
  PetscBool          setsym = PETSC_FALSE, expset;
  PetscInt           expect = -1;
  PetscReal          filters[2] = {-1.0, 0.0};
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PetscInt64         before, after, loc, glob;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* the events' counts */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-set_symmetric", &setsym, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_device", &expect, &expset));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-filter", &filters[1], NULL));
  PetscCall(MSTestGenerate(PETSC_COMM_WORLD, &csr));
  PetscCheck(csr.nrows == csr.ncols, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "a graph needs a square matrix");
  PetscCall(MSTestCreateMat(PETSC_COMM_WORLD, &csr, MATAIJ, &A));
  PetscCall(MSTestCreateMat(PETSC_COMM_WORLD, &csr, NULL, &B));
  if (setsym) { /* the graph then skips the transpose: the flag, true or not, is what both types act on */
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(B, MAT_SYMMETRIC, PETSC_TRUE));
  }
  PetscCall(PetscLogEventGetId("ModSELLGraph", &ev));
  for (PetscInt f = 0; f < (filters[1] >= 0 ? 2 : 1); f++) { /* -filter -1: unfiltered graphs only */
    for (PetscInt sym = 0; sym < 2; sym++) {
      for (PetscInt scale = 0; scale < 2; scale++) {
        Mat  G, H;
        char label[128];

        PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
        before = info.count;
        PetscCall(MatCreateGraph(A, (PetscBool)sym, (PetscBool)scale, filters[f], 0, NULL, &G));
        PetscCall(MatCreateGraph(B, (PetscBool)sym, (PetscBool)scale, filters[f], 0, NULL, &H));
        PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
        after = info.count;
        PetscCall(PetscSNPrintf(label, sizeof(label), "graph: symmetrize %d, scale %d, filter %g", (int)sym, (int)scale, (double)filters[f]));
        PetscCall(CompareGraphs(G, H, label));
        if (expset) { /* the device path exactly when expected: unfiltered graphs only */
          PetscInt64 want = (expect && filters[f] < 0) ? 1 : 0;

          loc = after - before == want ? 0 : 1;
          PetscCallMPI(MPIU_Allreduce(&loc, &glob, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
          if (glob) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAIL: the graph was %smade on the GPU\n", want ? "not " : ""));
        }
        PetscCall(MatDestroy(&G));
        PetscCall(MatDestroy(&H));
      }
    }
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
     suffix: unstructured
     nsize: {{1 3}}
     args: -kind unstructured -n 900 -filter 0.3
     output_file: output/ex10_unstructured.out
   test:
     suffix: random
     nsize: {{1 3}}
     args: -kind random -n 700 -nzr 4 -filter 0.2
     output_file: output/ex10_random.out
   test:
     suffix: edge
     args: -kind edge -n 700 -dense_row 500 -set_symmetric {{0 1}}
     output_file: output/ex10_edge.out
   test:
     suffix: lap3d
     args: -kind lap3d -nx 9 -ny 8 -nz 7
   testset:
     requires: cuda defined(PETSC_USE_LOG)
     test:
       suffix: cuda_unstructured
       args: -kind unstructured -n 900 -filter 0.3 -expect_device 1
       output_file: output/ex10_unstructured.out
     test:
       suffix: cuda_random
       args: -kind random -n 5000 -nzr 7 -filter -1 -expect_device 1 -mat_modsell_ordering {{natural partition}}
       output_file: output/ex10_random_big.out
     test:
       suffix: cuda_edge
       args: -kind edge -n 3000 -dense_row 2500 -filter -1 -set_symmetric {{0 1}} -expect_device 1
       output_file: output/ex10_edge_big.out
     test:
       suffix: cuda_lap3d
       args: -kind lap3d -nx 9 -ny 8 -nz 7 -expect_device 1
       output_file: output/ex10_lap3d.out
     test:
       suffix: cuda_host
       args: -kind random -n 700 -nzr 4 -filter 0.2 -expect_device 0 -mat_modsell_graph_device 0
       output_file: output/ex10_random.out
     test:
       suffix: cuda_np3
       nsize: 3
       args: -kind random -n 700 -nzr 4 -filter 0.2 -expect_device 0 -use_gpu_aware_mpi 0
       output_file: output/ex10_random.out

TEST*/
