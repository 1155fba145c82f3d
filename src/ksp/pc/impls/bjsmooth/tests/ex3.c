static char help[] = "PCBJSMOOTH on a permuted MATMODSELL image (a randomly numbered problem of examples/problems/problems.h,\n\
-mat_modsell_ordering partition): on the GPU its sweeps move b, the off-process part, the iterate and the result\n\
through the buckets of the image's permuted product (-mat_modsell_permute_chunk) instead of reading and\n\
writing them through the permutation. The data movement must not change the result: PCApply and PCApplyRichardson\n\
(from a nonzero guess) of the matrix given by the options are compared bit for bit with those of the same matrix\n\
with -chunk_ref <0> (0: separate gathers through the permutation; a chunk at least the local rows: one bucket), and\n\
CG preconditioned by it must converge. -view: PCView of the first preconditioner.\n\
-own_ref <ordering>: the reference matrix keeps its natural order instead, and the reference PC gets\n\
-pc_bjsmooth_ordering <ordering> (its own permuted image; the first PC's options otherwise): the same blocks, the same bits.\n\
Problem options of problems.h (-problem fvm (randomly numbered cells), -n, ...).\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <mstestpc.h> /* tests/include: MSTestVecSetHash(), MSTestSolveReport() */
#include "../../../../../../examples/problems/problems.h"

/* ordering: NULL, or -pc_bjsmooth_ordering for this PC only */
static PetscErrorCode CreatePC(Mat A, const char *ordering, PC *pc)
{
  PetscFunctionBegin;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetType(*pc, PCBJSMOOTH));
  if (ordering) PetscCall(PetscOptionsSetValue(NULL, "-pc_bjsmooth_ordering", ordering));
  PetscCall(PCSetFromOptions(*pc));
  if (ordering) PetscCall(PetscOptionsClearValue(NULL, "-pc_bjsmooth_ordering"));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "same bits: yes" when x and y hold exactly the same values on every process */
static PetscErrorCode ReportSame(const char *what, Vec x, Vec y)
{
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(VecEqual(x, y, &same));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)x), "%s: same bits: %s\n", what, same ? "yes" : "NO"));
  if (!same) {
    PetscReal d, n;
    Vec       w;
    PetscCall(VecDuplicate(x, &w));
    PetscCall(VecWAXPY(w, -1.0, y, x));
    PetscCall(VecNorm(w, NORM_INFINITY, &d));
    PetscCall(VecNorm(y, NORM_INFINITY, &n));
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)x), "  max difference %g (max entry %g)\n", (double)d, (double)n));
    PetscCall(VecDestroy(&w));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm                    comm;
  Problem                     p;
  Mat                         A, B;
  PC                          pa, pb;
  KSP                         ksp;
  Vec                         b, za, zb, x;
  PetscInt                    chunk_ref = 0, outits;
  PetscBool                   view      = PETSC_FALSE, own_ref;
  char                        ordering[32];
  PCRichardsonConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-chunk_ref", &chunk_ref, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view", &view, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-own_ref", ordering, sizeof(ordering), &own_ref));
  PetscCall(ProblemInitialize(comm, &p));
  p.type = PROB_FVM;
  PetscCall(ProblemSetFromOptions(&p));
  PetscCall(ProblemGenerate(&p));
  /* the same matrix twice (type and settings from the options); the second with the reference chunk */
  PetscCall(ProblemCreateMat(&p, NULL, MATMODSELL, &A));
  PetscCall(ProblemCreateMat(&p, NULL, MATMODSELL, &B));
  PetscCall(MatModSELLSetPermuteChunk(B, chunk_ref));
  if (own_ref) PetscCall(MatModSELLSetOrdering(B, MATMODSELL_ORDERING_NATURAL));
  PetscCall(CreatePC(A, NULL, &pa));
  PetscCall(CreatePC(B, own_ref ? ordering : NULL, &pb));
  if (view && own_ref) PetscCall(PCView(pb, PETSC_VIEWER_STDOUT_(comm)));
  if (view) PetscCall(PCView(pa, PETSC_VIEWER_STDOUT_(comm)));

  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &za));
  PetscCall(VecDuplicate(x, &zb));
  PetscCall(MSTestVecSetHash(b, 17, 3, -1.0, 1.0));
  /* PCApply (from a zero guess; sweeps from a nonzero iterate too with -pc_bjsmooth_its > 1), twice: the second
     application reuses what the first set up */
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(PCApply(pa, b, za));
    PetscCall(PCApply(pb, b, zb));
  }
  PetscCall(ReportSame("PCApply", za, zb));
  /* PCApplyRichardson from a nonzero guess: the sweeps from a nonzero iterate (with the off-process part) */
  PetscCall(MSTestVecSetHash(za, 29, 5, -0.5, 0.5));
  PetscCall(VecCopy(za, zb));
  PetscCall(PCApplyRichardson(pa, b, za, x, 0.0, 0.0, 0.0, 3, PETSC_FALSE, &outits, &reason));
  PetscCall(PCApplyRichardson(pb, b, zb, x, 0.0, 0.0, 0.0, 3, PETSC_FALSE, &outits, &reason));
  PetscCall(ReportSame("PCApplyRichardson from a nonzero guess", za, zb));

  /* CG + PCBJSMOOTH on the first matrix converges */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetPC(ksp, pa));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(VecZeroEntries(x));
  PetscCall(MSTestSolveReport(ksp, b, x, 1e-6, "CG + bjsmooth: ", NULL));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&za));
  PetscCall(VecDestroy(&zb));
  PetscCall(PCDestroy(&pa));
  PetscCall(PCDestroy(&pb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # on the host: no buckets (the comparison still holds: the same path twice)
   test:
     suffix: perm
     requires: !cuda
     nsize: {{1 3}}
     args: -n 10 -mat_modsell_ordering partition -mat_modsell_slice_height 64 -mat_modsell_permute_chunk 37 -pc_bjsmooth_its {{1 2}} -pc_bjsmooth_inner {{jacobi sgs chebyshev}}
     output_file: output/ex3.out

   # GPU: many buckets (chunk 37 rows) against separate gathers (chunk 0) and one bucket (chunk 1000000), with and
   # without an off-process part, one and two outer iterations (the sweeps from a nonzero iterate), inner Jacobi
   # (the zero-guess path) and SGS (the sweep kernel from zero)
   test:
     suffix: cuda_buckets
     requires: cuda
     nsize: {{1 3}}
     args: -n 10 -mat_modsell_ordering partition -mat_modsell_slice_height 64 -mat_modsell_permute_chunk 37 -chunk_ref {{0 1000000}} -pc_bjsmooth_its {{1 2}} -pc_bjsmooth_inner {{jacobi sgs chebyshev}}
     output_file: output/ex3.out
   # the PC's own partitioned image of a naturally ordered operator (-pc_bjsmooth_ordering partition) against the
   # operator's partitioned image: the same blocks, the same results
   test:
     suffix: own_ordering
     requires: !cuda
     nsize: {{1 3}}
     args: -n 10 -mat_modsell_ordering partition -mat_modsell_slice_height 64 -own_ref partition -pc_bjsmooth_block_size 64 -pc_bjsmooth_its {{1 2}} -pc_bjsmooth_inner {{jacobi sgs chebyshev}}
     output_file: output/ex3.out
   # GPU: the operator's image with many buckets (chunk 37) against the PC's own image (its buckets made by the PC)
   test:
     suffix: cuda_own_ordering
     requires: cuda
     nsize: {{1 3}}
     args: -n 10 -mat_modsell_ordering partition -mat_modsell_slice_height 64 -mat_modsell_permute_chunk 37 -own_ref partition -pc_bjsmooth_block_size 64 -pc_bjsmooth_its {{1 2}} -pc_bjsmooth_inner {{jacobi sgs chebyshev}}
     output_file: output/ex3.out
   test:
     suffix: own_ordering_view
     args: -n 10 -mat_modsell_ordering partition -mat_modsell_slice_height 64 -own_ref partition -pc_bjsmooth_block_size 64 -view
     filter: grep -E "blocks:|ordering|same bits"
   test:
     suffix: cuda_buckets_view
     requires: cuda
     args: -n 10 -mat_modsell_ordering partition -mat_modsell_slice_height 64 -mat_modsell_permute_chunk 37 -view
     filter: sed -n -E -e "s/move through [0-9]+ buckets/move through N buckets/p" -e "/same bits/p"

TEST*/
