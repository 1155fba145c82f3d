static char help[] = "Every preconditioner of the plugin (PCRUIZ, PCBJSMOOTH, PCBRBILU, PCBISAI, PCNEUMANN; -pc_type, PETSc's PCJACOBI\n\
as the reference) through the PC interface, on every matrix type (-mat_type aij, modsell, aijcusparse), like SLEPc's\n\
src/eps/tests/test1.c for the EPS types. Two SPD matrices: the 7-point Laplacian on an n^3 grid with its rows and columns randomly permuted\n\
(a randomly numbered unstructured mesh), and the same scaled as D A D with D spread over 10^[-sexp,sexp]. For each:\n\
  KSPCG to rtol 1e-8 (unpreconditioned norm) with vectors from MatCreateVecs() and from VecCreate() +\n\
  VecSetFromOptions(): converged, true relative residual ||b - A x|| / ||b|| within the problem's tolerance;\n\
  PCView() works and names the type;\n\
  PCApply() on vectors in host memory (VECSTANDARD, the plugin's PCs) gives what it gives on the operator's vectors;\n\
  PCSetUp() after MatScale(A, 2): PCApply() halves (the PC was recomputed);\n\
  PCSetUp() after new values of the same pattern: PCApply() changes, and equals that of a new PC on the new matrix\n\
  (PCBRBILU keeps its ordering on a change of values, which a new PC may choose otherwise: the ordering is kept);\n\
  PCReset(), PCSetOperators(), PCSetUp(): PCApply() as before the reset; KSPSolve() after PCReset() of its PC.\n\
Only what holds on any correct build is printed: no iteration count, no residual (numbers only when a check fails).\n\
Options: -n <10>, -sexp <3>, -perm_seed <11>, -rtol_true <1e-7> (unscaled), -rtol_true_scaled <1e-6>.\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <mstestpc.h> /* tests/include: MSTestCreateLaplacian(), MSTestRandomPermutation(), MSTestStencilRowScale(), MSTestVecSetHash(), MSTestSolveReport() */

typedef struct {
  const char     *name;
  PetscInt        n;
  const PetscInt *perm;       /* the random numbering of the grid points */
  PetscBool       scaled;     /* D A D */
  MSTestScaling   scaling;    /* D, keyed by the (permuted) row number: D A D is symmetric */
  PetscScalar     diag_shift; /* added to the diagonal before the scaling: new values, the same pattern */
  PetscReal       rtol_true;  /* bound on the true relative residual after CG to rtol 1e-8 */
} Problem;

/* MSTestStencilRowFn: the diagonal shifted, then D A D */
static PetscErrorCode ProblemRow(MSTestStencilRow *r, void *ctx)
{
  const Problem *p = (const Problem *)ctx;

  PetscFunctionBegin;
  r->vals[0] += p->diag_shift;
  if (p->scaled) PetscCall(MSTestStencilRowScale(r, (void *)&p->scaling));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCView() into a file; on rank 0 look for "type: <pctype>" in the text */
static PetscErrorCode ViewNamesType(PC pc, PetscBool *names)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscViewer viewer;
  FILE       *fp;
  PCType      type;
  PetscMPIInt rank;
  int         found = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PCGetType(pc, &type));
  fp = tmpfile();
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "tmpfile() failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(comm, fp, &viewer));
  PetscCall(PCView(pc, viewer));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  if (rank == 0) {
    char line[1024], want[128];

    PetscCall(PetscSNPrintf(want, sizeof(want), "type: %s", type));
    rewind(fp);
    while (!found && fgets(line, sizeof(line), fp)) found = strstr(line, want) != NULL;
  }
  (void)fclose(fp);
  PetscCallMPI(MPI_Bcast(&found, 1, MPI_INT, 0, comm));
  *names = (PetscBool)found;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |a_i - b_i| / max |b_i| of two vectors of any types (read on the host) */
static PetscErrorCode RelDiffAnyType(Vec a, Vec b, PetscReal *d)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscReal          v[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    v[0] = PetscMax(v[0], PetscAbsScalar(x[i] - y[i]));
    v[1] = PetscMax(v[1], PetscAbsScalar(y[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *d = v[1] > 0 ? v[0] / v[1] : (v[0] > 0 ? PETSC_INFINITY : 0.0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCApply() on VECSTANDARD copies of u: z (a vector of the operator's type) is what it gave on u */
static PetscErrorCode ApplyOnHostVectors(PC pc, Vec u, Vec z, PetscBool *same)
{
  Vec       uh, zh;
  PetscReal d;
  PetscInt  n, N;

  PetscFunctionBegin;

  PetscCall(VecGetLocalSize(u, &n));
  PetscCall(VecGetSize(u, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)u), &uh));
  PetscCall(VecSetSizes(uh, n, N));
  PetscCall(VecSetType(uh, VECSTANDARD));
  PetscCall(VecDuplicate(uh, &zh));
  {
    const PetscScalar *a;
    PetscScalar       *h;

    PetscCall(VecGetArrayRead(u, &a));
    PetscCall(VecGetArrayWrite(uh, &h));
    PetscCall(PetscArraycpy(h, a, n));
    PetscCall(VecRestoreArrayWrite(uh, &h));
    PetscCall(VecRestoreArrayRead(u, &a));
  }
  PetscCall(PCApply(pc, uh, zh));
  PetscCall(RelDiffAnyType(zh, z, &d));
  *same = (PetscBool)(d <= 1e-14);
  if (!*same) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)pc), "    relative difference %g\n", (double)d));
  PetscCall(VecDestroy(&uh));
  PetscCall(VecDestroy(&zh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a PC from the options (-pc_type, -pc_<type>_...) on A, set up */
static PetscErrorCode CreatePC(Mat A, PC *pc)
{
  PetscFunctionBegin;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunProblem(MPI_Comm comm, Problem *p)
{
  const PetscInt N = p->n * p->n * p->n;
  Mat            A;
  KSP            ksp;
  PC             pc, pc2, kpc;
  Vec            b, x, u, z1, z2, z3;
  PetscInt       m;
  PetscReal      d, d2;
  PetscBool      names, plugin, keeps;
  IS             ord[2];

  PetscFunctionBegin;
  p->diag_shift = 0.0;
  PetscCall(MSTestCreateLaplacian(comm, p->n, p->n, p->n, p->perm, ProblemRow, p, MATAIJ, &A));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscPrintf(comm, "problem %s: %" PetscInt_FMT " unknowns\n", p->name, N));

  /* CG with vectors from MatCreateVecs() and from VecCreate() + VecSetFromOptions() (as PETSc's tutorials make them) */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_UNLIMITED, 5000)); /* (the residual of the scaled problem first grows) */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(MSTestVecSetHash(b, 1, 101, -1.0, 1.0));
  PetscCall(MSTestSolveReport(ksp, b, x, p->rtol_true, "  vectors from MatCreateVecs(): ", NULL));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(VecCreate(comm, &b));
  PetscCall(VecSetSizes(b, m, N));
  PetscCall(VecSetFromOptions(b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(MSTestVecSetHash(b, 1, 101, -1.0, 1.0));
  PetscCall(MSTestSolveReport(ksp, b, x, p->rtol_true, "  vectors from VecCreate() + VecSetFromOptions(): ", NULL));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));

  /* a PC alone: PCView(), PCSetUp() twice with new values in between, PCReset() */
  PetscCall(CreatePC(A, &pc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &plugin, PCRUIZ, PCBJSMOOTH, PCBRBILU, PCBISAI, PCNEUMANN, ""));
  PetscCall(ViewNamesType(pc, &names));
  PetscCall(PetscPrintf(comm, "  PCView() names the type: %s\n", names ? "yes" : "NO"));
  PetscCall(MatCreateVecs(A, &u, &z1));
  PetscCall(VecDuplicate(z1, &z2));
  PetscCall(VecDuplicate(z1, &z3));
  PetscCall(MSTestVecSetHash(u, 1, 202, -1.0, 1.0));
  PetscCall(PCApply(pc, u, z1));
  if (plugin) { /* PETSc's own PCs need vectors of the operator's type */
    PetscCall(ApplyOnHostVectors(pc, u, z1, &names));
    PetscCall(PetscPrintf(comm, "  PCApply() on vectors in host memory (VECSTANDARD): as on the operator's: %s\n", names ? "yes" : "NO"));
  }
  /* 2 A: every one of these preconditioners approximates A^-1, so PCApply() halves (up to rounding, and ruiz's
     tolerance: its scaling of 2 A is sqrt(2) times that of A at convergence) */
  PetscCall(MatScale(A, 2.0));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, u, z2));
  PetscCall(VecScale(z2, 2.0));
  PetscCall(MSTestVecRelDiff(z2, z1, &d));
  PetscCall(PetscPrintf(comm, "  PCSetUp() after MatScale(A, 2): PCApply() halved: %s\n", d <= 1e-6 ? "yes" : "NO"));
  if (!(d <= 1e-6)) PetscCall(PetscPrintf(comm, "    relative difference %g\n", (double)d));
  /* new values, the same pattern (the diagonal shifted by 1 before the scaling): the PC changes, and equals a
     new PC's on the changed matrix (PCBRBILU: its ordering is kept) */
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBRBILU, &keeps));
  if (keeps) PetscCall(PCBRBILUGetOrdering(pc, &ord[0]));
  p->diag_shift = 1.0;
  PetscCall(MSTestLaplacianSetValues(A, p->n, p->n, p->n, p->perm, ProblemRow, p));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE)); /* (the assembly forgot it) */
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, u, z2));
  PetscCall(CreatePC(A, &pc2));
  PetscCall(PCApply(pc2, u, z3));
  PetscCall(PCDestroy(&pc2));
  PetscCall(VecScale(z1, 0.5)); /* PCApply() before the change, of 2 A */
  PetscCall(MSTestVecRelDiff(z2, z1, &d2));
  PetscCall(MSTestVecRelDiff(z2, z3, &d));
  if (keeps) {
    PetscCall(PCBRBILUGetOrdering(pc, &ord[1]));
    PetscCall(ISEqual(ord[0], ord[1], &names));
    PetscCall(PetscPrintf(comm, "  PCSetUp() after new values of the same pattern: PCApply() changed: %s; the ordering kept: %s\n", d2 > 1e-3 ? "yes" : "NO", names ? "yes" : "NO"));
    PetscCall(ISDestroy(&ord[0]));
    PetscCall(ISDestroy(&ord[1]));
  } else {
    PetscCall(PetscPrintf(comm, "  PCSetUp() after new values of the same pattern: PCApply() changed: %s; equals a new PC's: %s\n", d2 > 1e-3 ? "yes" : "NO", d <= 1e-10 ? "yes" : "NO"));
    if (!(d <= 1e-10)) PetscCall(PetscPrintf(comm, "    relative difference %g\n", (double)d));
  }
  PetscCall(PCReset(pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, u, z1));
  PetscCall(MSTestVecRelDiff(z1, z3, &d));
  PetscCall(PetscPrintf(comm, "  PCReset(), PCSetOperators(), PCSetUp(): PCApply() as before: %s\n", d <= 1e-10 ? "yes" : "NO"));
  if (!(d <= 1e-10)) PetscCall(PetscPrintf(comm, "    relative difference %g\n", (double)d));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&z1));
  PetscCall(VecDestroy(&z2));
  PetscCall(VecDestroy(&z3));

  /* the KSP on the changed matrix (its PC set up again by KSPSolve()), then after PCReset() of its PC */
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(MSTestVecSetHash(b, 1, 303, -1.0, 1.0));
  PetscCall(MSTestSolveReport(ksp, b, x, p->rtol_true, "  after new values: ", NULL));
  PetscCall(KSPGetPC(ksp, &kpc));
  PetscCall(PCReset(kpc));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(MSTestSolveReport(ksp, b, x, p->rtol_true, "  after PCReset() of the KSP's PC: ", NULL));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  PetscInt  n = 10, seed = 11, *perm;
  PetscReal sexp = 3.0, rtol_true = 1e-7, rtol_true_scaled = 1e-6;
  char      pctype[64] = "";
  Problem   p;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "PC class test options", NULL);
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-sexp", "scaling factors 10^[-sexp,sexp] of the scaled problem", NULL, sexp, &sexp, NULL));
  PetscCall(PetscOptionsInt("-perm_seed", "seed of the random numbering", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsReal("-rtol_true", "bound on the true relative residual (unscaled problem)", NULL, rtol_true, &rtol_true, NULL));
  PetscCall(PetscOptionsReal("-rtol_true_scaled", "bound on the true relative residual (scaled problem)", NULL, rtol_true_scaled, &rtol_true_scaled, NULL));
  PetscCall(PetscOptionsString("-pc_type", "the preconditioner", NULL, pctype, pctype, sizeof(pctype), NULL));
  PetscOptionsEnd();
  PetscCheck(pctype[0], comm, PETSC_ERR_USER, "give the preconditioner: -pc_type ruiz|bjsmooth|brbilu|bisai|neumann|jacobi|...");
  PetscCall(PetscPrintf(comm, "PC type: %s\n", pctype));
  PetscCall(MSTestRandomPermutation(n * n * n, (unsigned long long)seed, &perm));

  PetscCall(PetscMemzero(&p, sizeof(p)));
  p.n         = n;
  p.perm      = perm;
  p.name      = "7-point Laplacian, randomly numbered";
  p.rtol_true = rtol_true;
  PetscCall(RunProblem(comm, &p));

  p.name              = "7-point Laplacian, randomly numbered, D A D badly scaled";
  p.scaled            = PETSC_TRUE;
  p.scaling.sexp      = sexp;
  p.scaling.symmetric = PETSC_TRUE;
  p.rtol_true         = rtol_true_scaled;
  PetscCall(RunProblem(comm, &p));

  PetscCall(PetscFree(perm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # SLEPc's test1.c pattern: one program, every type of the class. One output per PC type, shared by the matrix
   # types, the process counts and the GPU runs (the program prints only what holds on any correct build).
   test:
     suffix: 1
     requires: double !complex
     nsize: {{1 3}}
     args: -pc_type {{ruiz bjsmooth bisai jacobi}separate output} -mat_type {{aij modsell}}

   # PCBRBILU with ILU(0) factors, which scale with a diagonal scaling of the operator (the modified factorizations,
   # the default rmilu among them, add the dropped fill to the pivot: on the badly scaled problem their symmetric
   # factors are indefinite); PCNEUMANN without its warning: on a randomly numbered Laplacian a row may have all its
   # neighbours before it, ||L~||_inf = 1
   test:
     suffix: 1_brbilu
     requires: double !complex
     nsize: {{1 3}}
     args: -pc_type brbilu -pc_brbilu_type ilu -mat_type {{aij modsell}}
     output_file: output/ex1_1_pc_type-brbilu.out
   test:
     suffix: 1_neumann
     requires: double !complex
     nsize: {{1 3}}
     args: -pc_type neumann -pc_neumann_warn 0 -mat_type {{aij modsell}}
     output_file: output/ex1_1_pc_type-neumann.out

   # GPU: CUDA vectors, aijcusparse and MATMODSELL; the outputs of the host
   testset:
     requires: cuda double !complex
     nsize: {{1 3}}
     args: -mat_type {{aijcusparse modsell}} -vec_type cuda
     test:
       suffix: cuda_ruiz
       args: -pc_type ruiz
       output_file: output/ex1_1_pc_type-ruiz.out
     test:
       suffix: cuda_bjsmooth
       args: -pc_type bjsmooth
       output_file: output/ex1_1_pc_type-bjsmooth.out
     test:
       suffix: cuda_brbilu
       args: -pc_type brbilu -pc_brbilu_type ilu
       output_file: output/ex1_1_pc_type-brbilu.out
     test:
       suffix: cuda_bisai
       args: -pc_type bisai
       output_file: output/ex1_1_pc_type-bisai.out
     test:
       suffix: cuda_neumann
       args: -pc_type neumann -pc_neumann_warn 0
       output_file: output/ex1_1_pc_type-neumann.out
     test:
       suffix: cuda_jacobi
       args: -pc_type jacobi
       output_file: output/ex1_1_pc_type-jacobi.out

TEST*/
