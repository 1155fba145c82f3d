static char help[] = "Problem suite and solve driver: generates a linear system, verifies its claimed properties, writes it, solves it.\n\
Problems (-problem):\n\
  fvm        FVM Poisson on an unstructured 3D mesh (examples/fvm/fvmmesh.h: -n, -cell, -jitter, -bc, -flux, -source, -seed, ...)\n\
  twophase   two-phase Poisson, density ratio -contrast 1e3 (Gupta, van Gijzen and Vuik (2011), section 2): -dim, -n, -layer, -bubbles, -bubble_radius, -bc\n\
  magnetron  3D 7-point potential of Shioya (2022), sections 4.4/5.4: -h_mm 1|0.5|0.25 (59x59x29, 119x119x59, 239x239x119), -chi_max, -rho_max\n\
  aniso      anisotropic diffusion: -dim, -n, -epsilon, -epsilon_z, -theta\n\
  jump       jump coefficients: -dim, -n, -jump, -jump_blocks, -jump_random, -bc\n\
  convdiff   nonsymmetric convection-diffusion: -dim, -n, -peclet, -upwind\n\
  cavity     Jacobian of PETSc's snes/tutorials/ex19 (block size 4) at its initial guess: -nx -ny, -lidvelocity, -grashof, -prandtl\n\
  vorticity  velocity-vorticity driven cavity, block size 3 (Ma et al. (2021), section 4.4): -n, -reynolds, -lid, -vorticity_guess\n\
  blockdiff  coupled reaction-diffusion with -bs 1..5 fields per node: -dim, -n, -sigma\n\
  file       -file A (PETSc binary, or MatrixMarket .mtx) [-file_rhs b] [-file_bs bs] [-file_nearnullspace Z] [-file_spd <bool>]\n\
Common: -seed <s>, -rhs <problem,cosine,random>\n\
Actions:\n\
  -check                     verify and print the properties the problem claims (and of the solves)\n\
  -write_system <file>       write A and b (PETSc binary); -write_mtx <base>: <base>.mtx and <base>_rhs.mtx (one process)\n\
  -verify_write              read the written files back and compare\n\
  -solve                     solve with KSP (CG + Jacobi for SPD problems, GMRES + Jacobi otherwise; rtol 1e-8 on ||b - A x||)\n\
  -configs <a,b,...>         solve once per configuration, each with the options prefix <name>_ (-a_ksp_type cg -a_mat_type ...)\n\
  -repeat <n>, -warmup <n>   measured and unreported repetitions of each solve (per configuration: -<name>_repeat)\n\
  -timings <bool>            print times (generation, assembly, setup, solve) and device memory\n\
  -bench                     print machine-readable #problem / #result lines (bench/solvers.py)\n\
  -residual_history <base>   residual history of the last repetition: <base>[_<config>].csv (iteration, time, norm)\n\
  -test_file_errors          self-test of the file readers on malformed files (one process)\n\n";

/*
   The problem suite: see problems.h for the problems, their discretisations and the papers'
   equations they implement, and docs/problems.md for the options, the checks and the benchmark.

   -problem cavity: PETSc's snes/tutorials/ex19.c is compiled into this program (its main() renamed), found
   through PETSc's include directory; the Jacobian is ex19's own (finite differences with coloring, ex19's
   default) at ex19's initial guess, and b = -F(x0): the first Newton step of ex19, the system of
   BASELINES.md's driven-cavity table.

   The solve (-solve): for each configuration and repetition, the matrix is created with the configuration's
   -mat_type (default aij) and assembled from the generated rows (timed: "assembly"), a KSP is set up with its
   options (KSPSetUp() and one MatMult(), which builds device copies and formats: "setup"), and KSPSolve() runs
   from a zero initial guess ("solve"); the device is synchronized around every timed part, times are the
   maximum over processes. Unless -ksp_norm_type / -ksp_pc_side are given, every KSP stops on the
   unpreconditioned residual ||b - A x|| <= rtol ||b|| (right preconditioning for the KSPs that need it), so that
   iterations and residual histories of different solvers can be compared. Device memory: the increase of the
   device's used memory since the start of the program (cudaMemGetInfo()), measured after the solve, the
   maximum over processes.
*/
#include <petscmodsell.h>
#include <petsc/private/kspimpl.h> /* the norm types a KSP supports, to pick the unpreconditioned residual */

/* PETSc's driven cavity example, from the PETSc installation */
#if defined(__has_include)
  #if __has_include(<../share/petsc/examples/src/snes/tutorials/ex19.c>)
    #define PROBLEMS_EX19_SOURCE <../share/petsc/examples/src/snes/tutorials/ex19.c>
  #elif __has_include(<../src/snes/tutorials/ex19.c>)
    #define PROBLEMS_EX19_SOURCE <../src/snes/tutorials/ex19.c>
  #endif
#endif
#if defined(PROBLEMS_EX19_SOURCE)
  #define PROBLEMS_HAVE_EX19
  #define main ex19_main
  #define help ex19_help
  #include PROBLEMS_EX19_SOURCE
  #undef main
  #undef help
#endif

#include "problems.h"

/* ------------------------------------------------------------------------------------------------ */

static PetscErrorCode Synchronize(MPI_Comm comm)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MaxOverProcesses(MPI_Comm comm, PetscLogDouble *t)
{
  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool Near(PetscReal a, PetscReal b, PetscReal rtol)
{
  return (PetscBool)(PetscAbsReal(a - b) <= rtol * PetscMax(PetscAbsReal(a), PetscAbsReal(b)));
}

/* ------------------------------------------------------------------------------------------------ */
/* -problem cavity: ex19's Jacobian at its initial guess                                             */

#if defined(PROBLEMS_HAVE_EX19)
static PetscErrorCode ProbCavityJacobian(Problem *p, PetscBool check)
{
  DM                 da;
  SNES               snes;
  Vec                x, F;
  Mat                J, P;
  AppCtx             user;
  FVMSystem         *s = &p->s;
  const PetscScalar *fa;
  PetscOptions       opts;

  PetscFunctionBegin;
  PetscCheck(p->nx >= 3 && p->ny >= 3, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-problem cavity needs at least 3 x 3 nodes");
  /* ex19's objects read no command-line option (DMCreateMatrix() would take the solve's -mat_type, ...):
     an empty options database while they exist */
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  PetscCall(DMDACreate2d(p->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, p->nx, p->ny, PETSC_DECIDE, PETSC_DECIDE, 4, 1, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMSetUp(da));
  /* ex19's parameters and defaults */
  if (p->lidvelocity < 0) p->lidvelocity = 1.0 / (p->nx * p->ny);
  user.lidvelocity   = p->lidvelocity;
  user.prandtl       = p->prandtl;
  user.grashof       = p->grashof;
  user.draw_contours = PETSC_FALSE;
  PetscCall(SNESCreate(p->comm, &snes));
  PetscCall(SNESSetDM(snes, da));
  PetscCall(DMSetApplicationContext(da, &user));
  PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (DMDASNESFunctionFn *)FormFunctionLocal, &user));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(FormInitialGuess(&user, da, x));
  PetscCall(VecDuplicate(x, &F));
  PetscCall(SNESSetUp(snes));
  PetscCall(SNESComputeFunction(snes, x, F));
  PetscCall(SNESGetJacobian(snes, &J, &P, NULL, NULL));
  PetscCall(SNESComputeJacobian(snes, x, J, P));

  /* the rows of P this process owns (PETSc's DMDA ordering) and b = -F(x0) */
  s->N = 4 * p->nx * p->ny;
  PetscCall(ProbSystemFromMatRows(P, s));
  PetscCall(PetscMalloc1(s->n, &s->rhs));
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt i = 0; i < s->n; i++) s->rhs[i] = -fa[i];
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCall(ProbCountDiagOff(p));
  s->generated = PETSC_TRUE;

  if (check) {
    /* directional derivative: J w against (F(x0 + e w) - F(x0)) / e, w >= 0 (ex19 upwinds with the sign of the
       velocity, which is 0 at the initial guess: a one-sided direction follows one branch, as the coloring does) */
    Vec       w, Jw, xp, Fp;
    PetscReal nJw, nd, e = 1e-7;
    PetscInt  lo, hi;
    PetscCall(VecDuplicate(x, &w));
    PetscCall(VecDuplicate(x, &Jw));
    PetscCall(VecDuplicate(x, &xp));
    PetscCall(VecDuplicate(x, &Fp));
    PetscCall(VecGetOwnershipRange(w, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) PetscCall(VecSetValue(w, i, 0.5 + 0.5 * ProbUniform(p, 0x43415631ULL, (uint64_t)i), INSERT_VALUES));
    PetscCall(VecAssemblyBegin(w));
    PetscCall(VecAssemblyEnd(w));
    PetscCall(MatMult(P, w, Jw));
    PetscCall(VecWAXPY(xp, e, w, x));
    PetscCall(SNESComputeFunction(snes, xp, Fp));
    PetscCall(VecAXPY(Fp, -1.0, F));
    PetscCall(VecScale(Fp, 1.0 / e));
    PetscCall(VecNorm(Jw, NORM_2, &nJw));
    PetscCall(VecAXPY(Fp, -1.0, Jw));
    PetscCall(VecNorm(Fp, NORM_2, &nd));
    p->jaccheck = nd <= 1e-4 * nJw ? 1 : 0;
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&Jw));
    PetscCall(VecDestroy(&xp));
    PetscCall(VecDestroy(&Fp));
  }
  PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "PETSc's snes/tutorials/ex19.c driven cavity (u, v, omega, T: block size 4), %" PetscInt_FMT " x %" PetscInt_FMT " nodes, lid velocity %g, Prandtl %g, Grashof %g: ex19's Jacobian (coloring) at its initial guess, b = -F(x0)", p->nx, p->ny, (double)p->lidvelocity, (double)p->prandtl, (double)p->grashof));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&F));
  PetscCall(SNESDestroy(&snes));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* ------------------------------------------------------------------------------------------------ */
/* -check: the properties of the generated system                                                    */

static PetscErrorCode Claim(MPI_Comm comm, PetscBool claimed, PetscBool ok, const char *fmt, ...)
{
  char    buf[1024];
  size_t  len;
  va_list ap;

  PetscFunctionBegin;
  va_start(ap, fmt);
  PetscCall(PetscVSNPrintf(buf, sizeof(buf), fmt, &len, ap));
  va_end(ap);
  PetscCall(PetscPrintf(comm, "  %s: %s\n", buf, claimed ? (ok ? "ok" : "WRONG") : "(no claim)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemCheck(Problem *p)
{
  const FVMSystem *s = &p->s;
  MPI_Comm         comm = p->comm;
  PetscInt64       cnt[8] = {0, 0, 0, 0, 0, 0, 0, 0}; /* diag<=0, offdiag>0, interior rows, interior nonzero sum, dirichlet rows, dirichlet sum<=0, blocks, block entries */
  PetscReal        amax = 0, omax = 0, omin = PETSC_MAX_REAL;
  PetscBool        sym;
  Mat              A;

  PetscFunctionBegin;
  for (PetscInt lr = 0; lr < s->n; lr++) {
    const PetscInt row = s->rstart + lr;
    PetscReal      diag = 0, sum = 0, abssum = 0;
    for (PetscInt e = s->ia[lr]; e < s->ia[lr + 1]; e++) {
      const PetscReal v = PetscRealPart(s->va[e]);
      sum += v;
      abssum += PetscAbsReal(v);
      amax = PetscMax(amax, PetscAbsReal(v));
      if (s->ja[e] == row) diag = v;
      else {
        if (v > 0) cnt[1]++;
        if (v != 0) {
          omax = PetscMax(omax, PetscAbsReal(v));
          omin = PetscMin(omin, PetscAbsReal(v));
        }
      }
    }
    if (diag <= 0) cnt[0]++;
    if (s->ndirichlet) {
      if (s->ndirichlet[lr] == 0) {
        cnt[2]++;
        if (PetscAbsReal(sum) > 1e-12 * abssum) cnt[3]++;
      } else {
        cnt[4]++;
        if (sum <= 1e-12 * abssum) cnt[5]++;
      }
    }
  }
  if (p->bs > 1) { /* nonzero blocks and the entries stored in them */
    const PetscInt bs = p->bs;
    for (PetscInt ib = 0; ib < s->n / bs; ib++) {
      PetscInt nall = s->ia[(ib + 1) * bs] - s->ia[ib * bs], *bc, last = -1;
      PetscCall(PetscMalloc1(nall, &bc));
      for (PetscInt e = 0; e < nall; e++) bc[e] = s->ja[s->ia[ib * bs] + e] / bs;
      PetscCall(PetscSortInt(nall, bc));
      for (PetscInt e = 0; e < nall; e++)
        if (bc[e] != last) {
          last = bc[e];
          cnt[6]++;
        }
      cnt[7] += nall;
      PetscCall(PetscFree(bc));
    }
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, 8, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &amax, 1, MPIU_REAL, MPI_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &omax, 1, MPIU_REAL, MPI_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &omin, 1, MPIU_REAL, MPI_MIN, comm));
  PetscCall(ProblemCreateMat(p, "check_", MATAIJ, &A));
  PetscCall(MatIsSymmetric(A, 1e-12 * amax, &sym));
  PetscCall(MatDestroy(&A));

  PetscCall(PetscPrintf(comm, "Checks of the system:\n"));
  if (p->expected_N >= 0) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(p->s.N == p->expected_N), "unknowns %" PetscInt_FMT ", expected %" PetscInt64_FMT, p->s.N, p->expected_N));
  else PetscCall(Claim(comm, PETSC_FALSE, PETSC_TRUE, "unknowns %" PetscInt_FMT, p->s.N));
  if (p->bs > 1) {
    if (p->expected_nblocks >= 0) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(cnt[6] == p->expected_nblocks), "block size %" PetscInt_FMT ", nonzero blocks %" PetscInt64_FMT ", expected %" PetscInt64_FMT, p->bs, cnt[6], p->expected_nblocks));
    else PetscCall(Claim(comm, PETSC_FALSE, PETSC_TRUE, "block size %" PetscInt_FMT ", nonzero blocks %" PetscInt64_FMT, p->bs, cnt[6]));
    PetscCall(Claim(comm, (PetscBool)(p->expected_nblocks >= 0), (PetscBool)(cnt[7] == cnt[6] * p->bs * p->bs), "every nonzero block stored in full (%" PetscInt_FMT " x %" PetscInt_FMT " entries): %s", p->bs, p->bs, cnt[7] == cnt[6] * p->bs * p->bs ? "yes" : "no"));
  }
  if (p->claim_nonsymmetric) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)!sym, "nonsymmetric (MatIsSymmetric, tolerance 1e-12 max|a_ij|): %s", sym ? "no" : "yes"));
  else PetscCall(Claim(comm, p->claim_symmetric, sym, "symmetric (MatIsSymmetric, tolerance 1e-12 max|a_ij|): %s", sym ? "yes" : "no"));
  PetscCall(Claim(comm, p->claim_posdiag, (PetscBool)(cnt[0] == 0), "rows with a diagonal entry <= 0: %" PetscInt64_FMT, cnt[0]));
  PetscCall(Claim(comm, p->claim_mmatrix, (PetscBool)(cnt[1] == 0), "positive off-diagonal entries: %" PetscInt64_FMT, cnt[1]));
  if (s->ndirichlet && (p->claim_zerosum || p->claim_dirpositive || p->type == PROB_FVM || p->type == PROB_ANISO)) {
    PetscCall(Claim(comm, p->claim_zerosum, (PetscBool)(cnt[3] == 0), "interior rows (no Dirichlet face or neighbour) with a nonzero row sum: %" PetscInt64_FMT " of %" PetscInt64_FMT, cnt[3], cnt[2]));
    PetscCall(Claim(comm, p->claim_dirpositive, (PetscBool)(cnt[5] == 0), "rows next to a Dirichlet boundary with a row sum <= 0: %" PetscInt64_FMT " of %" PetscInt64_FMT, cnt[5], cnt[4]));
  }
  if (p->claim_ratio > 0) PetscCall(Claim(comm, PETSC_TRUE, Near(omax / omin, p->claim_ratio, 1e-10), "largest / smallest |off-diagonal entry| = %g, expected %g", (double)(omax / omin), (double)p->claim_ratio));
  if (p->jaccheck >= 0) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(p->jaccheck == 1), "ex19's Jacobian (coloring) against a one-sided difference of its residual along w >= 0, ||J w - (F(x0 + e w) - F(x0))/e|| / ||J w|| < 1e-4: %s", p->jaccheck == 1 ? "yes" : "no"));
  if (p->type == PROB_VORTICITY) {
    /* the Jacobian against central differences of the residual along a random direction w: exact for the
       quadratic residual, up to rounding */
    Mat             Aj;
    Vec             w, Jw;
    PetscScalar    *wa;
    const PetscScalar *jwa;
    PetscReal       nd = 0, nj = 0, e = 1e-3;
    const PetscInt  n = p->nx;
    PetscCall(ProblemCreateMat(p, "check_", MATAIJ, &Aj));
    PetscCall(MatCreateVecs(Aj, &w, &Jw));
    PetscCall(VecGetArrayWrite(w, &wa));
    for (PetscInt lr = 0; lr < s->n; lr++) {
      const PetscInt r = s->rstart + lr, node = r / 3, c = r % 3;
      PetscScalar    sp[3], s0[3];
      VorticityState(p, node % n, node / n, 1.0, sp);
      VorticityState(p, node % n, node / n, 0.0, s0);
      wa[lr] = sp[c] - s0[c];
    }
    PetscCall(VecRestoreArrayWrite(w, &wa));
    PetscCall(MatMult(Aj, w, Jw));
    PetscCall(VecGetArrayRead(Jw, &jwa));
    for (PetscInt lr = 0; lr < s->n; lr += 3) {
      const PetscInt node = (s->rstart + lr) / 3;
      PetscScalar    Fp[3], Fm[3], J[5][3][3];
      PetscBool      has[5];
      VorticityNode(p, node % n, node / n, e, Fp, J, has);
      VorticityNode(p, node % n, node / n, -e, Fm, J, has);
      for (PetscInt c = 0; c < 3; c++) {
        nd += PetscSqr(PetscRealPart((Fp[c] - Fm[c]) / (2 * e) - jwa[lr + c]));
        nj += PetscSqr(PetscRealPart(jwa[lr + c]));
      }
    }
    PetscCall(VecRestoreArrayRead(Jw, &jwa));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nd, 1, MPIU_REAL, MPI_SUM, comm));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nj, 1, MPIU_REAL, MPI_SUM, comm));
    PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(PetscSqrtReal(nd) <= 1e-8 * PetscSqrtReal(nj)), "Jacobian against central differences of the residual, ||J w - (F(x0 + e w) - F(x0 - e w))/2e|| / ||J w|| < 1e-8: %s", PetscSqrtReal(nd) <= 1e-8 * PetscSqrtReal(nj) ? "yes" : "no"));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&Jw));
    PetscCall(MatDestroy(&Aj));
  }
  {
    PetscReal bn = 0;
    for (PetscInt lr = 0; lr < s->n; lr++) bn += PetscSqr(PetscAbsScalar(s->rhs[lr]));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bn, 1, MPIU_REAL, MPI_SUM, comm));
    PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(bn > 0), "right-hand side (%s) nonzero: %s", ProbRHSTypes[p->rhs], bn > 0 ? "yes" : "no"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* the solve                                                                                         */

typedef struct {
  PetscInt        n, cap;
  PetscInt       *its;
  PetscLogDouble *t;
  PetscReal      *r;
  PetscLogDouble  t0;
} History;

static PetscErrorCode HistoryMonitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  History       *h = (History *)ctx;
  PetscLogDouble t;

  PetscFunctionBegin;
  (void)ksp;
  PetscCall(PetscTime(&t));
  if (h->n == h->cap) {
    h->cap = PetscMax(64, 2 * h->cap);
    PetscCall(PetscRealloc(h->cap * sizeof(PetscInt), &h->its));
    PetscCall(PetscRealloc(h->cap * sizeof(PetscLogDouble), &h->t));
    PetscCall(PetscRealloc(h->cap * sizeof(PetscReal), &h->r));
  }
  h->its[h->n] = it;
  h->t[h->n]   = t - h->t0;
  h->r[h->n]   = rnorm;
  h->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt           its;
  KSPConvergedReason reason;
  PetscReal          rtol, relres, err, bnorm, xmin, xmax;
  PetscLogDouble     tasm, tsetup, tsolve, mem;
  char               mattype[64], ksptype[64], pctype[64];
  KSPNormType        normtype;
  PCSide             side;
} SolveResult;

/* stop on ||b - A x|| unless the user chose the norm or the side */
static PetscErrorCode UseUnpreconditionedNorm(KSP ksp, const char prefix[])
{
  PetscBool usernorm, userside;
  PCSide    side;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, prefix, "-ksp_norm_type", &usernorm));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-ksp_pc_side", &userside));
  if (usernorm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPCSide(ksp, &side));
  if (ksp->normsupporttable[KSP_NORM_UNPRECONDITIONED][side]) PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  else if (!userside && ksp->normsupporttable[KSP_NORM_UNPRECONDITIONED][PC_RIGHT]) {
    PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveOnce(Problem *p, const char prefix[], PetscLogDouble mem0, History *hist, SolveResult *res)
{
  MPI_Comm       comm = p->comm;
  Mat            A;
  KSP            ksp;
  PC             pc;
  Vec            x, b, r;
  PetscLogDouble t0, t1;
  PetscReal      rnorm;
  MatType        mt;
  KSPType        kt;
  PCType         pt;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(ProblemCreateMat(p, prefix, MATAIJ, &A));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t1));
  res->tasm = t1 - t0;

  PetscCall(KSPCreate(comm, &ksp));
  if (prefix) PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, p->spd ? KSPCG : KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(UseUnpreconditionedNorm(ksp, prefix));
  if (hist) PetscCall(KSPMonitorSet(ksp, HistoryMonitor, hist, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(ProblemSetVec(p, p->s.rhs, b));

  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(MatMult(A, b, x)); /* device copies and formats are built here, not inside the timed solve */
  PetscCall(VecSet(x, 0.0));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t1));
  res->tsetup = t1 - t0;

  if (hist) hist->n = 0;
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t0));
  if (hist) hist->t0 = t0;
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t1));
  res->tsolve = t1 - t0;
  PetscCall(ProbDeviceUsedMiB(&res->mem));
  if (res->mem >= 0) res->mem -= mem0;
  PetscCall(MaxOverProcesses(comm, &res->tasm));
  PetscCall(MaxOverProcesses(comm, &res->tsetup));
  PetscCall(MaxOverProcesses(comm, &res->tsolve));
  PetscCall(MaxOverProcesses(comm, &res->mem));

  PetscCall(KSPGetIterationNumber(ksp, &res->its));
  PetscCall(KSPGetConvergedReason(ksp, &res->reason));
  PetscCall(KSPGetTolerances(ksp, &res->rtol, NULL, NULL, NULL));
  PetscCall(KSPGetNormType(ksp, &res->normtype));
  PetscCall(KSPGetPCSide(ksp, &res->side));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &res->bnorm));
  res->relres = res->bnorm > 0 ? rnorm / res->bnorm : rnorm;
  res->err    = -1;
  if (p->xexact) {
    PetscReal en, xn;
    PetscCall(ProblemSetVec(p, p->xexact, r));
    PetscCall(VecNorm(r, NORM_2, &xn));
    PetscCall(VecAXPY(r, -1.0, x));
    PetscCall(VecNorm(r, NORM_2, &en));
    res->err = en / xn;
  }
  PetscCall(VecMin(x, NULL, &res->xmin));
  PetscCall(VecMax(x, NULL, &res->xmax));
  PetscCall(MatGetType(A, &mt));
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(PCGetType(pc, &pt));
  PetscCall(PetscStrncpy(res->mattype, mt, sizeof(res->mattype)));
  PetscCall(PetscStrncpy(res->ksptype, kt, sizeof(res->ksptype)));
  PetscCall(PetscStrncpy(res->pctype, pt, sizeof(res->pctype)));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteHistory(MPI_Comm comm, const char base[], const char config[], const History *h, PetscReal bnorm)
{
  char        name[PETSC_MAX_PATH_LEN];
  FILE       *fp;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (config) PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s.csv", base, config));
  else PetscCall(PetscSNPrintf(name, sizeof(name), "%s.csv", base));
  if (rank == 0) {
    fp = fopen(name, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s: %s", name, strerror(errno));
    fprintf(fp, "iteration,time_s,residual_norm,relative_residual\n");
    for (PetscInt i = 0; i < h->n; i++) fprintf(fp, "%" PetscInt_FMT ",%.6e,%.6e,%.6e\n", h->its[i], (double)h->t[i], (double)h->r[i], (double)(bnorm > 0 ? h->r[i] / bnorm : h->r[i]));
    PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* writing the system, reading it back                                                               */

static PetscErrorCode SameSystem(const Problem *a, const Problem *b, PetscBool *same)
{
  const FVMSystem *s = &a->s, *t = &b->s;

  PetscFunctionBegin;
  *same = (PetscBool)(s->N == t->N && s->n == t->n && s->rstart == t->rstart && s->ia[s->n] == t->ia[t->n]);
  for (PetscInt i = 0; i <= s->n && *same; i++) *same = (PetscBool)(s->ia[i] == t->ia[i]);
  for (PetscInt e = 0; *same && e < s->ia[s->n]; e++) *same = (PetscBool)(s->ja[e] == t->ja[e] && s->va[e] == t->va[e]);
  for (PetscInt i = 0; *same && i < s->n; i++) *same = (PetscBool)(s->rhs[i] == t->rhs[i]);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, same, 1, MPI_C_BOOL, MPI_LAND, a->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadBack(const Problem *p, const char file[], const char rhsfile[])
{
  Problem   q;
  PetscBool same, bsame;

  PetscFunctionBegin;
  PetscCall(ProblemInitialize(p->comm, &q));
  q.type = PROB_FILE;
  q.bs   = p->bs;
  PetscCall(PetscStrncpy(q.file, file, sizeof(q.file)));
  if (rhsfile) PetscCall(PetscStrncpy(q.file_rhs, rhsfile, sizeof(q.file_rhs)));
  PetscCall(ProbLoadFile(&q));
  PetscCall(SameSystem(p, &q, &same));
  bsame = (PetscBool)(q.bs == p->bs);
  PetscCall(PetscPrintf(p->comm, "  read back %s%s%s: block size %" PetscInt_FMT ", A and b identical to the generated ones: %s\n", file, rhsfile ? " and " : "", rhsfile ? rhsfile : "", q.bs, same && bsame ? "yes" : "NO"));
  PetscCall(ProblemDestroy(&q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteSystem(Problem *p, const char binfile[], const char mtxbase[], PetscBool verify)
{
  Mat A;
  Vec b;

  PetscFunctionBegin;
  PetscCall(ProblemCreateMat(p, "write_", MATAIJ, &A));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(ProblemSetVec(p, p->s.rhs, b));
  if (binfile && binfile[0]) {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(p->comm, binfile, FILE_MODE_WRITE, &v));
    PetscCall(MatView(A, v));
    PetscCall(VecView(b, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscPrintf(p->comm, "Wrote A and b to %s (PETSc binary)\n", binfile));
  }
  if (mtxbase && mtxbase[0]) {
    PetscMPIInt size;
    char        mname[PETSC_MAX_PATH_LEN], rname[PETSC_MAX_PATH_LEN];
    PetscCallMPI(MPI_Comm_size(p->comm, &size));
    PetscCheck(size == 1, p->comm, PETSC_ERR_SUP, "-write_mtx writes from one process: run it on one process (or use -write_system)");
    PetscCall(PetscSNPrintf(mname, sizeof(mname), "%s.mtx", mtxbase));
    PetscCall(PetscSNPrintf(rname, sizeof(rname), "%s_rhs.mtx", mtxbase));
    PetscCall(MMWriteMat(A, mname, "general"));
    PetscCall(ProbWriteMMVector(rname, p->s.n, p->s.rhs));
    PetscCall(PetscPrintf(p->comm, "Wrote A to %s and b to %s (MatrixMarket)\n", mname, rname));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  if (verify) {
    char mname[PETSC_MAX_PATH_LEN], rname[PETSC_MAX_PATH_LEN];
    if (binfile && binfile[0]) PetscCall(ReadBack(p, binfile, NULL));
    if (mtxbase && mtxbase[0]) {
      PetscCall(PetscSNPrintf(mname, sizeof(mname), "%s.mtx", mtxbase));
      PetscCall(PetscSNPrintf(rname, sizeof(rname), "%s_rhs.mtx", mtxbase));
      PetscCall(ReadBack(p, mname, rname));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* -test_file_errors: the readers on small good and malformed files                                  */

static PetscErrorCode WriteText(const char *name, const char *content)
{
  FILE *fp = fopen(name, "w");

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", name);
  fputs(content, fp);
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TryLoad(MPI_Comm comm, const char *what, const char *matrix, const char *rhs)
{
  Problem        q;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(ProblemInitialize(comm, &q));
  q.type = PROB_FILE;
  PetscCall(PetscStrncpy(q.file, "pt_A.mtx", sizeof(q.file)));
  if (matrix) PetscCall(WriteText("pt_A.mtx", matrix));
  if (rhs) {
    PetscCall(WriteText("pt_b.mtx", rhs));
    PetscCall(PetscStrncpy(q.file_rhs, "pt_b.mtx", sizeof(q.file_rhs)));
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = ProbLoadFile(&q);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) PetscCall(ProbSetRHS(&q));
  if (ierr) {
    const char *text, *specific;
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(comm, "  %-34s -> error: %s\n", what, specific ? specific : text));
  } else {
    PetscCall(PetscPrintf(comm, "  %-34s -> read %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, b =", what, q.s.N, q.s.ia[q.s.n]));
    for (PetscInt i = 0; i < q.s.n; i++) PetscCall(PetscPrintf(comm, " %g", (double)PetscRealPart(q.s.rhs[i])));
    PetscCall(PetscPrintf(comm, "\n"));
  }
  PetscCall(ProblemDestroy(&q));
  (void)remove("pt_A.mtx");
  (void)remove("pt_b.mtx");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the matrix of A3 with a near-null space file pt_z.bin of nvec vectors of len entries (vals, one after the other;
   nvec 0: an empty file) */
static PetscErrorCode TryLoadNearNullSpace(MPI_Comm comm, const char *what, const char *matrix, PetscInt nvec, PetscInt len, const PetscScalar *vals)
{
  Problem        q;
  PetscViewer    v = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(ProblemInitialize(comm, &q));
  q.type = PROB_FILE;
  PetscCall(PetscStrncpy(q.file, "pt_A.mtx", sizeof(q.file)));
  PetscCall(PetscStrncpy(q.file_nns, "pt_z.bin", sizeof(q.file_nns)));
  PetscCall(WriteText("pt_A.mtx", matrix));
  if (!nvec) PetscCall(WriteText("pt_z.bin", ""));
  else PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, "pt_z.bin", FILE_MODE_WRITE, &v));
  for (PetscInt j = 0; j < nvec; j++) {
    Vec z;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, len, &z));
    for (PetscInt i = 0; i < len; i++) PetscCall(VecSetValue(z, i, vals[j * len + i], INSERT_VALUES));
    PetscCall(VecAssemblyBegin(z));
    PetscCall(VecAssemblyEnd(z));
    PetscCall(VecView(z, v));
    PetscCall(VecDestroy(&z));
  }
  if (nvec) PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = ProbLoadFile(&q);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text, *specific;
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(comm, "  %-34s -> error: %s\n", what, specific ? specific : text));
  } else {
    PetscCall(PetscPrintf(comm, "  %-34s -> read %" PetscInt_FMT " rows, near-null space of %" PetscInt_FMT " orthonormal vectors:", what, q.s.N, q.nns_k));
    for (PetscInt j = 0; j < q.nns_k; j++) {
      PetscCall(PetscPrintf(comm, " ("));
      for (PetscInt i = 0; i < q.s.n; i++) {
        const PetscReal z = PetscRealPart(q.nns[j * q.s.n + i]);
        PetscCall(PetscPrintf(comm, "%s%.4f", i ? " " : "", PetscAbsReal(z) < 5e-5 ? 0.0 : (double)z)); /* no -0.0000 */
      }
      PetscCall(PetscPrintf(comm, ")"));
    }
    PetscCall(PetscPrintf(comm, "\n"));
  }
  PetscCall(ProblemDestroy(&q));
  (void)remove("pt_A.mtx");
  (void)remove("pt_z.bin");
  (void)remove("pt_z.bin.info");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestFileErrors(MPI_Comm comm)
{
  const char *A3 = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n";
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1, comm, PETSC_ERR_SUP, "-test_file_errors runs on one process");
  PetscCall(PetscPrintf(comm, "File readers on small files (matrix pt_A.mtx, right-hand side pt_b.mtx):\n"));
  PetscCall(TryLoad(comm, "matrix and array right-hand side", A3, "%%MatrixMarket matrix array real general\n% a comment\n3 1\n1\n-2.5\n\n3e0\n"));
  PetscCall(TryLoad(comm, "one-column coordinate rhs", A3, "%%MatrixMarket matrix coordinate real general\n3 1 2\n1 1 4\n3 1 5\n"));
  PetscCall(TryLoad(comm, "no right-hand side (b = A cos)", A3, NULL));
  PetscCall(TryLoad(comm, "rhs: bad value", A3, "%%MatrixMarket matrix array real general\n3 1\n1\n2x\n3\n"));
  PetscCall(TryLoad(comm, "rhs: two values on a line", A3, "%%MatrixMarket matrix array real general\n3 1\n1 2\n3\n"));
  PetscCall(TryLoad(comm, "rhs: too few values", A3, "%%MatrixMarket matrix array real general\n3 1\n1\n2\n"));
  PetscCall(TryLoad(comm, "rhs: too many values", A3, "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n4\n"));
  PetscCall(TryLoad(comm, "rhs: two columns", A3, "%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n"));
  PetscCall(TryLoad(comm, "rhs: malformed size line", A3, "%%MatrixMarket matrix array real general\n3\n1\n2\n3\n"));
  PetscCall(TryLoad(comm, "rhs: wrong length", A3, "%%MatrixMarket matrix array real general\n2 1\n1\n2\n"));
  PetscCall(TryLoad(comm, "rhs: not MatrixMarket", A3, "1\n2\n3\n"));
  PetscCall(TryLoad(comm, "rhs: complex", A3, "%%MatrixMarket matrix array complex general\n3 1\n1 0\n2 0\n3 0\n"));
  PetscCall(TryLoad(comm, "rhs: coordinate, two columns", A3, "%%MatrixMarket matrix coordinate real general\n3 2 1\n1 2 4\n"));
  PetscCall(TryLoad(comm, "rhs: coordinate, bad entry", A3, "%%MatrixMarket matrix coordinate real general\n3 1 2\n1 1 4\n4 1 5\n"));
  PetscCall(TryLoad(comm, "matrix: malformed entry", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 x\n", NULL));
  PetscCall(TryLoad(comm, "matrix: not square", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n", NULL));
  PetscCall(TryLoad(comm, "matrix: missing file", NULL, NULL));
  PetscCall(PetscPrintf(comm, "Near-null space files (-file_nearnullspace pt_z.bin, PETSc binary vectors):\n"));
  {
    const PetscScalar good[] = {1, 1, 1, 1, 2, 3}, dep[] = {1, 1, 1, -2, -2, -2}, zero[] = {1, 0, 0, 0, 0, 0}, nan[] = {1, (PetscScalar)strtod("nan", NULL), 1};
    PetscCall(TryLoadNearNullSpace(comm, "two independent vectors", A3, 2, 3, good));
    PetscCall(TryLoadNearNullSpace(comm, "a vector of the wrong length", A3, 1, 2, good));
    PetscCall(TryLoadNearNullSpace(comm, "two parallel vectors", A3, 2, 3, dep));
    PetscCall(TryLoadNearNullSpace(comm, "a zero vector", A3, 2, 3, zero));
    PetscCall(TryLoadNearNullSpace(comm, "a value that is not finite", A3, 1, 3, nan));
    PetscCall(TryLoadNearNullSpace(comm, "an empty file", A3, 0, 3, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  Problem        p;
  PetscBool      check = PETSC_FALSE, solve = PETSC_FALSE, timings = PETSC_TRUE, bench = PETSC_FALSE, verify = PETSC_FALSE, testfiles = PETSC_FALSE, hashist;
  char           wfile[PETSC_MAX_PATH_LEN] = "", mfile[PETSC_MAX_PATH_LEN] = "", histbase[PETSC_MAX_PATH_LEN] = "";
  char          *configs[64];
  PetscInt       nconfigs = 64, repeat = 1, warmup = 0;
  PetscLogDouble t0, tgen, mem0 = 0;
  PetscMPIInt    size;
  PetscBool      set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "Problem suite driver", "");
  PetscCall(PetscOptionsBool("-check", "Verify and print the properties the problem claims (and of the solves)", "", check, &check, NULL));
  PetscCall(PetscOptionsBool("-solve", "Solve the system", "", solve, &solve, NULL));
  PetscCall(PetscOptionsStringArray("-configs", "Solver configurations: one solve per name, with the options prefix <name>_", "", configs, &nconfigs, &set));
  if (!set) nconfigs = 0;
  PetscCall(PetscOptionsInt("-repeat", "Measured repetitions of each solve", "", repeat, &repeat, NULL));
  PetscCall(PetscOptionsInt("-warmup", "Unreported repetitions before them", "", warmup, &warmup, NULL));
  PetscCall(PetscOptionsBool("-timings", "Print the times and the device memory", "", timings, &timings, NULL));
  PetscCall(PetscOptionsBool("-bench", "Print machine-readable #problem and #result lines", "", bench, &bench, NULL));
  PetscCall(PetscOptionsString("-residual_history", "Write the residual history of the last repetition to <base>[_<config>].csv", "", histbase, histbase, sizeof(histbase), &hashist));
  PetscCall(PetscOptionsString("-write_system", "Write A and b to this PETSc binary file", "", wfile, wfile, sizeof(wfile), NULL));
  PetscCall(PetscOptionsString("-write_mtx", "Write A and b to <base>.mtx and <base>_rhs.mtx (MatrixMarket, one process)", "", mfile, mfile, sizeof(mfile), NULL));
  PetscCall(PetscOptionsBool("-verify_write", "Read the written files back and compare", "", verify, &verify, NULL));
  PetscCall(PetscOptionsBool("-test_file_errors", "Self-test of the file readers on malformed files, then exit", "", testfiles, &testfiles, NULL));
  PetscOptionsEnd();
  if (testfiles) {
    PetscCall(TestFileErrors(comm));
    PetscCall(PetscFinalize());
    return 0;
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
#endif
  PetscCall(ProbDeviceUsedMiB(&mem0));

  PetscCall(ProblemInitialize(comm, &p));
  PetscCall(ProblemSetFromOptions(&p));
  p.check = check;
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(ProblemGenerate(&p));
  PetscCall(PetscTime(&tgen));
  tgen -= t0;
  PetscCall(MaxOverProcesses(comm, &tgen));

  PetscCall(PetscPrintf(comm, "Problem %s: %s\n", ProbTypes[p.type], p.desc));
  PetscCall(PetscPrintf(comm, "  %" PetscInt_FMT " unknowns, %" PetscInt64_FMT " nonzeros (%.2f per row), block size %" PetscInt_FMT ", right-hand side: %s, %d process%s\n", p.s.N, p.nnz, (double)p.nnz / p.s.N, p.bs, ProbRHSTypes[p.rhs], (int)size, size > 1 ? "es" : ""));
  if (timings) PetscCall(PetscPrintf(comm, "  generation %.3f s\n", tgen));
  if (bench) PetscCall(PetscPrintf(comm, "#problem type=%s rows=%" PetscInt_FMT " nnz=%" PetscInt64_FMT " bs=%" PetscInt_FMT " spd=%d nproc=%d tgen=%.6e\n", ProbTypes[p.type], p.s.N, p.nnz, p.bs, (int)p.spd, (int)size, tgen));
  if (check) PetscCall(ProblemCheck(&p));
  if (wfile[0] || mfile[0]) PetscCall(WriteSystem(&p, wfile, mfile, verify));

  if (solve) {
    const PetscInt nc = nconfigs ? nconfigs : 1;
    History        hist = {0, 0, NULL, NULL, NULL, 0};
    for (PetscInt c = 0; c < nc; c++) {
      char        prefix[256];
      const char *name = nconfigs ? configs[c] : NULL;
      PetscInt    rep = repeat, wu = warmup;

      if (name) {
        PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", name));
        PetscCall(PetscOptionsGetInt(NULL, prefix, "-repeat", &rep, NULL));
        PetscCall(PetscOptionsGetInt(NULL, prefix, "-warmup", &wu, NULL));
      }
      if (bench) PetscCall(PetscPrintf(comm, "#begin config=%s\n", name ? name : "default"));
      for (PetscInt k = -wu; k < rep; k++) {
        SolveResult res;
        const char *reason;
        PetscCall(SolveOnce(&p, name ? prefix : NULL, mem0, (hashist && k == rep - 1) ? &hist : NULL, &res));
        reason = KSPConvergedReasons[res.reason];
        if (k < 0) PetscCall(PetscPrintf(comm, "Solve%s%s (warm-up %" PetscInt_FMT "): ", name ? " " : "", name ? name : "", -k));
        else PetscCall(PetscPrintf(comm, "Solve%s%s (repetition %" PetscInt_FMT "): ", name ? " " : "", name ? name : "", k + 1));
        PetscCall(PetscPrintf(comm, "%s + %s on %s, %s %" PetscInt_FMT " iterations (%s)", res.ksptype, res.pctype, res.mattype, res.reason > 0 ? "converged in" : "NOT converged after", res.its, reason));
        if (!check) PetscCall(PetscPrintf(comm, ", ||b-Ax||/||b|| %.2e", (double)res.relres));
        PetscCall(PetscPrintf(comm, "\n"));
        if (timings) {
          PetscCall(PetscPrintf(comm, "  assembly %.4f s, setup %.4f s, solve %.4f s, %.4f ms per iteration", res.tasm, res.tsetup, res.tsolve, res.its ? 1e3 * res.tsolve / res.its : 0.0));
          if (res.mem >= 0) PetscCall(PetscPrintf(comm, ", device memory +%.1f MiB", res.mem));
          PetscCall(PetscPrintf(comm, "\n"));
        }
        if (bench) PetscCall(PetscPrintf(comm, "#result config=%s rep=%" PetscInt_FMT " measured=%d its=%" PetscInt_FMT " reason=%s relres=%.6e err=%.6e tasm=%.6e tsetup=%.6e tsolve=%.6e devmem_mib=%.3f mattype=%s ksptype=%s pctype=%s norm=%s side=%s\n", name ? name : "default", k, (int)(k >= 0), res.its, reason, (double)res.relres, (double)res.err, res.tasm, res.tsetup, res.tsolve, res.mem, res.mattype, res.ksptype, res.pctype, KSPNormTypes[res.normtype], PCSides[res.side]));
        if (check && k == rep - 1) {
          PetscCall(PetscPrintf(comm, "Checks of the solve (rtol %g, %s norm, %s preconditioning):\n", (double)res.rtol, KSPNormTypes[res.normtype], PCSides[res.side]));
          PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(res.reason > 0), "converged: %s", res.reason > 0 ? "yes" : "no"));
          PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(res.relres <= 2 * res.rtol), "true residual ||b - A x|| / ||b|| <= 2 rtol: %s", res.relres <= 2 * res.rtol ? "yes" : "no"));
          if (res.err >= 0) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(res.err < 1e-5), "||x - x*|| / ||x*|| < 1e-5 (x*_i = cos(i)): %s", res.err < 1e-5 ? "yes" : "no"));
          if (p.claim_maxprinciple) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(res.xmin >= p.mp_lo - 1e-8 * (p.mp_hi - p.mp_lo) && res.xmax <= p.mp_hi + 1e-8 * (p.mp_hi - p.mp_lo)), "solution within the wall potentials [%g, %g] (discrete maximum principle): %s", (double)p.mp_lo, (double)p.mp_hi, res.xmin >= p.mp_lo - 1e-8 * (p.mp_hi - p.mp_lo) && res.xmax <= p.mp_hi + 1e-8 * (p.mp_hi - p.mp_lo) ? "yes" : "no"));
          if (hashist) PetscCall(Claim(comm, PETSC_TRUE, (PetscBool)(hist.n >= res.its && hist.n <= res.its + 1), "residual history: %" PetscInt_FMT " entries for %" PetscInt_FMT " iterations", hist.n, res.its));
        }
        if (hashist && k == rep - 1) PetscCall(WriteHistory(comm, histbase, name, &hist, res.bnorm));
      }
      if (bench) PetscCall(PetscPrintf(comm, "#done config=%s\n", name ? name : "default"));
    }
    PetscCall(PetscFree(hist.its));
    PetscCall(PetscFree(hist.t));
    PetscCall(PetscFree(hist.r));
  }
  for (PetscInt c = 0; c < nconfigs; c++) PetscCall(PetscFree(configs[c]));
  PetscCall(ProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: double !complex

  # every generator: -check verifies the properties the problem claims (unknowns, symmetry or its
  # absence, signs, row sums of interior and boundary rows, coefficient ratios, block structure,
  # Jacobians), -solve -check that the default Krylov method (CG for SPD problems, GMRES otherwise)
  # converges in the true residual, and where known the error or the maximum principle
  # (iteration counts depend on the summation order, e.g. the BLAS PETSc was built with: filtered out; the
  # checks assert convergence and the true residual)
  testset:
    args: -check -solve -timings 0
    filter: sed -E -e "s/converged in [0-9]+ iterations/converged in N iterations/" -e "s/[0-9]+ entries for [0-9]+ iterations/its+1 entries for its iterations/"
    test:
      suffix: fvm_mixed
      args: -problem fvm -n 4 -cell mixed
    test:
      suffix: fvm_tet_dirichlet_2
      nsize: 2
      args: -problem fvm -n 3 -cell tet -bc dirichlet -rhs cosine -ksp_rtol 1e-12
    test:
      suffix: twophase_2d
      args: -problem twophase -dim 2 -n 16 -ksp_rtol 1e-12
    test:
      suffix: twophase_3d_bubbles_2
      nsize: 2
      args: -problem twophase -dim 3 -n 8 -bubbles 3 -bubble_radius 0.15 -ksp_rtol 1e-12
    test:
      suffix: twophase_bubbles_dirichlet
      args: -problem twophase -dim 2 -n 24 -layer 0 -bubbles 5 -bubble_radius 0.12 -bc dirichlet -ksp_rtol 1e-12
    test:
      suffix: magnetron
      args: -problem magnetron -h_mm 5 -rho_max 0
    test:
      suffix: magnetron_chi_2
      nsize: 2
      args: -problem magnetron -h_mm 3 -chi_max 4 -rho_max 2
    test:
      suffix: aniso_rotated
      args: -problem aniso -dim 2 -n 12 -theta 30 -epsilon 1e-2
    test:
      suffix: aniso_3d_2
      nsize: 2
      args: -problem aniso -dim 3 -n 6 -epsilon 1e-2 -epsilon_z 10
    test:
      suffix: jump_3d
      args: -problem jump -dim 3 -n 8 -jump_blocks 2
    test:
      suffix: jump_random_mixed_2
      nsize: 2
      args: -problem jump -dim 2 -n 16 -jump_random -jump 1e6 -bc mixed
    test:
      suffix: convdiff_2d
      args: -problem convdiff -dim 2 -n 16
    test:
      suffix: convdiff_3d_central_2
      nsize: 2
      args: -problem convdiff -dim 3 -n 6 -upwind 0 -peclet 10 -ksp_type bcgs
    test:
      suffix: vorticity
      args: -problem vorticity -n 8
    test:
      suffix: vorticity_vortex_2
      nsize: 2
      args: -problem vorticity -n 10 -vorticity_guess vortex -reynolds 10
    test:
      suffix: blockdiff
      args: -problem blockdiff -n 4
    test:
      suffix: blockdiff_2d_bs3_2
      nsize: 2
      args: -problem blockdiff -dim 2 -n 6 -bs 3 -sigma 4
    test:
      suffix: cavity
      args: -problem cavity -n 8
    test:
      suffix: cavity_2
      nsize: 2
      args: -problem cavity -nx 9 -ny 7 -grashof 100 -lidvelocity 1
    test:
      suffix: file_mtx
      localrunfiles: data
      args: -problem file -file data/convdiff4.mtx -file_rhs data/convdiff4_rhs.mtx
    test:
      suffix: file_mtx_cosine_2
      nsize: 2
      localrunfiles: data
      args: -problem file -file data/convdiff4.mtx -file_bs 2
    # our matrix type and preconditioner on the generated systems
    test:
      suffix: twophase_modsell_ruiz
      args: -problem twophase -dim 2 -n 16 -mat_type modsell -pc_type ruiz -ksp_rtol 1e-12
    test:
      suffix: cavity_baij_pbjacobi
      args: -problem cavity -n 6 -mat_type baij -pc_type pbjacobi

  # the sizes of Shioya (2022), (a) (generation and checks, no solve)
  test:
    suffix: magnetron_paper_a
    args: -problem magnetron -h_mm 1 -check -timings 0

  # writing the system (PETSc binary, MatrixMarket) and reading it back
  test:
    suffix: io
    args: -problem vorticity -n 5 -write_system v.bin -write_mtx v -verify_write -timings 0
  test:
    suffix: io_2
    nsize: 2
    args: -problem jump -dim 2 -n 6 -write_system j.bin -verify_write -timings 0

  # the readers on malformed files (errors name the file and the line) and on near-null space files
  test:
    suffix: file_errors
    args: -test_file_errors

  # several configurations in one run, repetitions, warm-up, residual histories (as bench/solvers.py runs it)
  test:
    suffix: configs_2
    nsize: 2
    filter: sed -E -e "s/converged in [0-9]+ iterations/converged in N iterations/" -e "s/[0-9]+ entries for [0-9]+ iterations/its+1 entries for its iterations/"
    args: -problem aniso -dim 2 -n 8 -solve -check -timings 0 -configs cg,bcgs,ms -cg_ksp_type cg -bcgs_ksp_type bcgs -bcgs_pc_type bjacobi -ms_mat_type modsell -ms_pc_type ruiz -repeat 2 -warmup 1 -ms_repeat 1 -residual_history hist

  # finite-element systems assembled by scikit-fem (fem/femsystems.py: the generator's checks, then this program
  # on the files it wrote), in the library's numbering and randomly permuted: every plugin preconditioner that
  # converges on the system today, with the Krylov method the system needs (CG; GMRES(30) for SUPG), on
  # MATMODSELL, and GAMG with the rigid-body modes on elasticity.
  testset:
    requires: skfem !defined(PETSCTEST_VALGRIND)
    filter: sed -E -e "s/converged in [0-9]+ iterations/converged in N iterations/" -e "s/= [0-9.e+-]+ >= 1 for/= X >= 1 for/"
    test:
      suffix: fem_elasticity
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py elasticity --n 4 --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann,gamg@aij -- -check -timings 0 ${args}
    test:
      suffix: fem_elasticity_perm
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py elasticity --n 4 --permute random --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann,gamg@aij -- -check -timings 0 ${args}
    test:
      suffix: fem_p2poisson
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py p2poisson --n 6 --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}
    test:
      suffix: fem_p2poisson_perm
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py p2poisson --n 6 --permute random --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}
    test:
      suffix: fem_aniso
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py aniso --n 12 --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}
    test:
      suffix: fem_aniso_perm
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py aniso --n 12 --permute random --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}
    test:
      suffix: fem_supg
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py supg --n 12 --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}
    test:
      suffix: fem_supg_perm
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py supg --n 12 --permute random --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}
    test:
      suffix: fem_elasticity_perm_2
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py elasticity --n 4 --permute random --no-timings --driver ${executable} --mpiexec '${mpiexec} -n 2' --solvers bjsmooth,bisai,gamg@aij -- -check -timings 0 ${args}
  # PCBJSMOOTH's blocks on the P2 system in scikit-fem's numbering (vertices, then edges): MATMODSELL_ORDERING_AUTO
  # takes the partition (the numbering is local but its slices are not compact blocks), and -ksp_view says why
  test:
    suffix: fem_p2poisson_auto
    requires: skfem !defined(PETSCTEST_VALGRIND)
    filter: grep -o "row ordering on this process: [a-z]* (auto: [^0-9]*" | sort -u
    command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py p2poisson --n 10 --no-timings --driver ${executable} --solvers bjsmooth -- -timings 0 -bjsmooth_ksp_view ${args}
  # the gmsh system: FVM Poisson on gmsh's tetrahedra (HXT, one thread: the same mesh every run), in gmsh's cell
  # order and randomly permuted
  testset:
    requires: gmsh !defined(PETSCTEST_VALGRIND)
    filter: sed -E -e "s/converged in [0-9]+ iterations/converged in N iterations/"
    test:
      suffix: fem_gmsh
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py gmsh --h 0.12 --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann,gamg@aij -- -check -timings 0 ${args}
    test:
      suffix: fem_gmsh_perm
      command: ${PETSCMODSELL_PYTHON} @SRCDIR@/fem/femsystems.py gmsh --h 0.12 --permute random --no-timings --driver ${executable} --solvers ruiz,bjsmooth,brbilu,bisai,neumann -- -check -timings 0 ${args}

  # bench/solvers.py, the solver benchmark, in its CPU smoke mode on a few problems and solvers: runs
  # the configurations through this program, parses its results, writes the tables and CSV files
  test:
    suffix: bench_smoke
    requires: !defined(PETSCTEST_VALGRIND)
    filter: sed -E -e "s/ +[0-9]+  yes / N  yes /" -e "s/ +[0-9]+  NO / N  NO /"
    command: python3 @SRCDIR@/../../bench/solvers.py --small --deterministic --no-plots --driver ${executable} --out solvers-smoke --problems magnetron-a,twophase-2d,cavity,convdiff-3d --solvers cg-jacobi-*,bcgs-ilu0-*,bcgs-jacobi-*,gmres-pbjacobi-*,gmres-ilu0-*,cg-ruiz-modsell

TEST*/
