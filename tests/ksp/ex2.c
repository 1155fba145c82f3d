static char help[] = "Iterations across process counts: one system of the problem suite (examples/problems/problems.h, whose rows\n\
do not depend on the number of processes) solved with the same Krylov method and preconditioner on PETSC_COMM_WORLD\n\
and, on every process, on PETSC_COMM_SELF (the one-process run), in one program run. Prints only what holds on any\n\
correct build:\n\
  -expect same    : a preconditioner whose result does not depend on the process count (jacobi, none): the\n\
                    iteration counts agree within -its_atol (default 1: the summation order of the products and\n\
                    dot products differs between process counts, the preconditioned operator does not)\n\
  -expect bounded : a per-process preconditioner (block Jacobi across processes: bjsmooth, neumann, brbilu, bisai,\n\
                    bjacobi): P processes take at least one process's count minus -its_atol and at most\n\
                    -its_ratio (default 2) times it plus -its_atol (the blocks lose the couplings between processes;\n\
                    the coarser partition of the one-process run is not always better, hence the lower bound)\n\
  -test_mat_type <modsell> : the matrix type of both solves (aij, aijcusparse, modsell, ...)\n\
Both solves: x0 = 0, the problem's right-hand side, every -ksp_ and -pc_ option of the command line; the true relative\n\
residual ||b - A x|| / ||b|| of both is checked against -res_tol (default 100 rtol: CG and BiCGSTAB stop on the\n\
preconditioned norm by default).\n";

#include <petscksp.h>
#include <petscmodsell.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the suite's readers and writers are not used here */
#include "../../examples/problems/problems.h"
#pragma GCC diagnostic pop

typedef struct {
  PetscInt           its;
  KSPConvergedReason reason;
  PetscReal          res; /* true relative residual */
} SolveResult;

/* generate the problem on comm, solve it once, return iterations, reason, true relative residual */
static PetscErrorCode SolveOn(MPI_Comm comm, const char mtype[], SolveResult *r)
{
  Problem   p;
  Mat       A;
  Vec       b, x, t;
  KSP       ksp;
  PetscBool cuda = PETSC_FALSE;
  PetscReal nb;

  PetscFunctionBeginUser;
  PetscCall(ProblemInitialize(comm, &p));
  PetscCall(ProblemSetFromOptions(&p));
  PetscCall(ProblemGenerate(&p));
  PetscCall(ProblemCreateMat(&p, NULL, mtype, &A));
#if defined(PETSC_HAVE_CUDA)
  /* vectors where the matrix computes (MatCreateVecs of an AIJ type gives host vectors) */
  PetscCall(PetscStrendswith(mtype, MATMODSELL, &cuda)); /* modsell, aijmodsell, seqaijmodsell, mpiaijmodsell */
  if (!cuda) PetscCall(PetscStrInList(mtype, "aijcusparse,seqaijcusparse,mpiaijcusparse,sellcuda,seqsellcuda,mpisellcuda", ',', &cuda));
#endif
  PetscCall(MatCreateVecs(A, &x, &b));
  if (cuda) {
    PetscCall(VecSetType(x, VECCUDA));
    PetscCall(VecSetType(b, VECCUDA));
  }
  PetscCall(ProblemSetVec(&p, p.s.rhs, b));
  PetscCall(VecDuplicate(b, &t));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, p.spd ? KSPCG : KSPBCGS));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetConvergedReason(ksp, &r->reason));
  PetscCall(MatMult(A, x, t));
  PetscCall(VecAYPX(t, -1.0, b));
  PetscCall(VecNorm(t, NORM_2, &r->res));
  PetscCall(VecNorm(b, NORM_2, &nb));
  r->res = nb > 0 ? r->res / nb : r->res;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemDestroy(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt size;
  char        mtype[64]   = MATMODSELL;
  const char *expects[]   = {"same", "bounded", "Expect", "EXPECT_", NULL};
  PetscEnum   expect      = (PetscEnum)0;
  PetscInt    atol        = 1;
  PetscReal   ratio       = 2.0, rtol = 1e-8, restol = -1;
  PetscInt    its1max, its1min;
  SolveResult world, self;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscModSELLInitializePackage());
  PetscOptionsBegin(comm, NULL, "Iterations across process counts", "");
  PetscCall(PetscOptionsString("-test_mat_type", "Matrix type of both solves", "", mtype, mtype, sizeof(mtype), NULL));
  PetscCall(PetscOptionsEnum("-expect", "same: iterations independent of the process count; bounded: a per-process preconditioner", "", expects, expect, &expect, NULL));
  PetscCall(PetscOptionsInt("-its_atol", "Absolute slack of the iteration comparison", "", atol, &atol, NULL));
  PetscCall(PetscOptionsReal("-its_ratio", "bounded: at most this many times one process's iterations (plus its_atol)", "", ratio, &ratio, NULL));
  PetscCall(PetscOptionsReal("-res_tol", "Bound of the true relative residuals (default 100 -ksp_rtol)", "", restol, &restol, NULL));
  PetscOptionsEnd();
  PetscCheck(atol >= 0 && ratio >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-its_atol must be >= 0 and -its_ratio >= 1 (got %" PetscInt_FMT ", %g)", atol, (double)ratio);
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ksp_rtol", &rtol, NULL));
  if (restol < 0) restol = 100 * rtol;

  /* the one-process run on every process (identical: the generators do not depend on the communicator's size; every
     process solving keeps errors collective), then the run on all processes */
  PetscCall(SolveOn(PETSC_COMM_SELF, mtype, &self));
  PetscCall(SolveOn(comm, mtype, &world));
  /* the one-process runs agree across processes unless something is wrong: compare the extremes */
  PetscCallMPI(MPIU_Allreduce(&self.its, &its1max, 1, MPIU_INT, MPI_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(&self.its, &its1min, 1, MPIU_INT, MPI_MIN, comm));

  PetscCall(PetscPrintf(comm, "converged on one process: %s\n", self.reason > 0 ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "converged on all processes: %s\n", world.reason > 0 ? "yes" : "NO"));
  if (self.reason <= 0 || world.reason <= 0) PetscCall(PetscPrintf(comm, "  (one process: %s after %" PetscInt_FMT " iterations; %d processes: %s after %" PetscInt_FMT ")\n", KSPConvergedReasons[self.reason], self.its, size, KSPConvergedReasons[world.reason], world.its));
  PetscCall(PetscPrintf(comm, "true residuals below the bound: %s\n", self.res <= restol && world.res <= restol ? "yes" : "NO"));
  if (!(self.res <= restol && world.res <= restol)) PetscCall(PetscPrintf(comm, "  (one process %g, all processes %g, bound %g)\n", (double)self.res, (double)world.res, (double)restol));
  PetscCall(PetscPrintf(comm, "one-process runs identical on every process: %s\n", its1max == its1min ? "yes" : "NO"));
  if (expect == 0) {
    const PetscBool ok = PetscAbsInt(world.its - self.its) <= atol ? PETSC_TRUE : PETSC_FALSE;

    PetscCall(PetscPrintf(comm, "same iterations as on one process (within the summation-order slack): %s\n", ok ? "yes" : "NO"));
    if (!ok) PetscCall(PetscPrintf(comm, "  (one process %" PetscInt_FMT ", %d processes %" PetscInt_FMT ", slack %" PetscInt_FMT ")\n", self.its, size, world.its, atol));
  } else { /* the change of the iteration count in [-atol, (ratio - 1) its + atol] */
    const PetscReal d  = (PetscReal)(world.its - self.its);
    const PetscBool ok = d >= -(PetscReal)atol && d <= (ratio - 1) * (PetscReal)self.its + (PetscReal)atol ? PETSC_TRUE : PETSC_FALSE;

    PetscCall(PetscPrintf(comm, "iteration change within the stated bound: %s\n", ok ? "yes" : "NO"));
    if (!ok) PetscCall(PetscPrintf(comm, "  (one process %" PetscInt_FMT ", %d processes %" PetscInt_FMT ", allowed [%" PetscInt_FMT ", %g])\n", self.its, size, world.its, self.its - atol, (double)(ratio * (PetscReal)self.its + (PetscReal)atol)));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # preconditioners whose result does not depend on the process count: the same iterations (+-1) on 1, 2 and 3
   # processes as on one, on modsell and on aij
   testset:
      requires: !cuda
      output_file: output/ex2_same.out
      nsize: {{1 2 3}}
      args: -expect same -test_mat_type {{modsell aij}}
      test:
         suffix: jacobi_fvm
         args: -problem fvm -n 8 -cell tet -pc_type jacobi
      test:
         suffix: jacobi_jump
         args: -problem jump -dim 3 -n 12 -jump 1e3 -pc_type jacobi
      test:
         suffix: none_aniso
         args: -problem aniso -dim 2 -n 24 -epsilon 0.1 -pc_type none
      test:
         suffix: jacobi_convdiff
         args: -problem convdiff -dim 2 -n 24 -peclet 20 -ksp_type bcgs -pc_type jacobi

   # per-process preconditioners (block Jacobi across processes): converged, iterations within the stated bound
   testset:
      requires: !cuda
      output_file: output/ex2_bounded.out
      nsize: {{2 3}}
      args: -expect bounded -test_mat_type {{modsell aij}}
      test:
         suffix: bjsmooth
         args: -problem jump -dim 3 -n 12 -jump 1e3 -pc_type bjsmooth
      test:
         suffix: neumann
         args: -problem twophase -dim 3 -n 12 -bubbles 2 -pc_type neumann -pc_neumann_warn 0
      test:
         # the mesh's structured numbering (a partitioned mesh): with the random numbering each process's rows are
         # scattered cells and its block loses most couplings (2 processes: 91 iterations against 37 on one); BiCGSTAB's
         # counts vary by a few iterations whichever way (3 processes 57 against 59 on one)
         suffix: brbilu
         args: -problem fvm -n 8 -cell tet -permute 0 -ksp_type bcgs -pc_type brbilu -its_ratio 2.5 -its_atol 4
      test:
         suffix: bisai
         args: -problem blockdiff -dim 2 -n 16 -bs 3 -ksp_type gmres -pc_type bisai
      test:
         suffix: bjacobi_icc
         args: -problem jump -dim 3 -n 12 -jump 1e3 -pc_type bjacobi -sub_pc_type icc

   # the same on the GPU (modsell and PETSc's aijcusparse; several processes share one GPU or take one each)
   testset:
      requires: cuda
      output_file: output/ex2_same.out
      nsize: {{1 2 3}}
      args: -expect same -test_mat_type {{modsell aijcusparse}} -use_gpu_aware_mpi 0
      test:
         suffix: cuda_jacobi_fvm
         args: -problem fvm -n 8 -cell tet -pc_type jacobi
      test:
         suffix: cuda_jacobi_jump
         args: -problem jump -dim 3 -n 12 -jump 1e3 -pc_type jacobi
   # the overlapped MPI product with the halo through CUDA IPC (processes sharing the GPU or each on its own; where the
   # handles cannot be mapped every process keeps PETSc's exchange: the solve is checked either way), and with the
   # launch orders forced both ways
   test:
      requires: cuda
      suffix: cuda_jacobi_halo_variants
      output_file: output/ex2_same.out
      nsize: {{2 3}}
      args: -expect same -test_mat_type modsell -use_gpu_aware_mpi 0 -problem fvm -n 8 -cell tet -pc_type jacobi -mat_modsell_ipc_halo {{0 1}} -mat_modsell_overlap_exchange_first {{0 1}}
   testset:
      requires: cuda
      output_file: output/ex2_bounded.out
      nsize: {{2 3}}
      args: -expect bounded -test_mat_type {{modsell aijcusparse}} -use_gpu_aware_mpi 0
      test:
         suffix: cuda_bjsmooth
         args: -problem jump -dim 3 -n 12 -jump 1e3 -pc_type bjsmooth
      test:
         suffix: cuda_neumann
         args: -problem twophase -dim 3 -n 12 -bubbles 2 -pc_type neumann -pc_neumann_warn 0
      test:
         suffix: cuda_brbilu
         args: -problem fvm -n 8 -cell tet -permute 0 -ksp_type bcgs -pc_type brbilu -its_ratio 2.5 -its_atol 4
      test:
         suffix: cuda_bisai
         args: -problem blockdiff -dim 2 -n 16 -bs 3 -ksp_type gmres -pc_type bisai

TEST*/
