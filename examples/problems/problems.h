/*
   problems.h - the problem suite: generators of sparse linear systems for the solver benchmark
   (bench/solvers.py) and for the tests of the preconditioners. Static functions, so that several
   programs can include it; examples/problems/problems.c is the driver (generate, check, solve).

   Every generator builds the rows this process owns (contiguous blocks of whole block rows, split as
   PetscSplitOwnership() does, so that the system does not depend on the number of processes, except
   -problem cavity whose rows follow PETSc's DMDA ordering) as CSR with global column indices, in the
   FVMSystem container of examples/fvm/fvmmesh.h, plus a right-hand side. Everything is computed on
   demand from the grid indices and -seed: no communication, O(n/p) time and memory.

   Problems (-problem):
     fvm        FVM pressure Poisson on an unstructured 3D mesh with non-orthogonal cells and randomly
                numbered cells (Wikberg (2024), ch. 2): the generator of examples/fvm/fvmmesh.h, its options
                (-n, -cell, -jitter, -bc, -flux, -source, -seed, ...) and its checks.
     twophase   two-phase pressure Poisson -div((1/rho) grad p) = f, density ratio -contrast (1e3) between
                water (rho = 1) and air (rho = 1/contrast), Gupta, van Gijzen and Vuik (2011), section 2
                (2D and 3D).
     magnetron  the 3D 7-point potential equation div(eps0 (1 + chi) grad phi) = -rho of Shioya (2022), eq. 2.1.14
                (its finite-difference form below eq. 2.1.15), in the 60 x 60 x 30 mm box of sections 4.4 / 5.4
                with Dirichlet walls: 59x59x29, 119x119x59, 239x239x119 unknowns for -h_mm 1, 0.5, 0.25.
     aniso      anisotropic diffusion -div(K grad u) = 1, K = R(theta) diag(1, eps) R(theta)^T (+ eps_z in 3D).
     jump       jump coefficients -div(k grad u) = 1, k piecewise constant on blocks (checkerboard 1 / -jump).
     convdiff   nonsymmetric convection-diffusion -lap u + w . grad u = 1 with a recirculating, discretely
                divergence-free wind of size -peclet (upwind or central convection).
     cavity     the Jacobian of PETSc's driven cavity snes/tutorials/ex19.c (u, v, omega, T: block size 4) at
                its initial guess, i.e. the first Newton step: ex19.c itself is compiled in (see problems.c).
     vorticity  the velocity-vorticity lid-driven cavity of Ma et al. (2021), section 4.4 (block size 3, 5-point
                finite differences, Jacobian of the first Newton step).
     blockdiff  coupled reaction-diffusion -div(D grad u) + (sigma/h^2) R u = 1 with bs (1-5) fields per node, D SPD
                dense and R nonsymmetric (dense bs x bs blocks, for block preconditioners).
     file       a system read from a PETSc binary file or a MatrixMarket file (+ optional right-hand side and, for
                PCGAMG, a near-null space: -file_nearnullspace); examples/problems/fem/femsystems.py writes
                finite-element systems assembled by scikit-fem (and on a gmsh mesh) in that form.

   Discretisations (rows scaled so that the constant-coefficient Laplacian has the stencil [-1 ... 2d ... -1]):
     cell-centred finite volumes (twophase, jump, convdiff) on n cells per direction of the unit square/cube:
       row P: sum_f a_f (u_P - u_N) + sum_{Dirichlet faces b} a_b u_P [+ convection] = f V_P / h^(d-2)
       a_f = (|face| / |d_PN|) / h^(d-2) * 2 k_P k_N / (k_P + k_N)   (harmonic mean: the flux is continuous)
       a_b = 2 (|face| / h_axis) / h^(d-2) k_P                         (the boundary face is h/2 away)
     node-based finite differences (magnetron, aniso, blockdiff) on the interior nodes of a box; Dirichlet
       nodes are eliminated (their values go to the right-hand side).
   Rows with no Dirichlet face / neighbour ("interior rows" below) of the Poisson-type operators have zero
   row sums; the -check mode of problems.c verifies that and the other properties each problem claims.

   Right-hand sides (-rhs): problem (each problem's own, the default), cosine (b = A x* with x*_i = cos(i),
   0-based global row i, Gupta, van Gijzen and Vuik (2011), section 2.2; the driver then also reports
   ||x - x*|| / ||x*||), random (uniform in [-1, 1] from -seed). -problem twophase defaults to cosine, as in
   Gupta, van Gijzen and Vuik (2011).
*/
#pragma once

#include <petscksp.h>
#include <petscdmda.h>
#include <petscsnes.h>
#include "../fvm/fvmmesh.h"
#include "mmread.h"
#include <strings.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* the device's used memory in MiB (cudaMemGetInfo(): every process and context on the device; 2 MiB granularity),
   -1 without CUDA */
static inline PetscErrorCode ProbDeviceUsedMiB(PetscLogDouble *used)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    size_t freeb, totalb;
    PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
    *used = (PetscLogDouble)(totalb - freeb) / 1048576.0;
  }
#else
  *used = -1;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  PROB_FVM,
  PROB_TWOPHASE,
  PROB_MAGNETRON,
  PROB_ANISO,
  PROB_JUMP,
  PROB_CONVDIFF,
  PROB_CAVITY,
  PROB_VORTICITY,
  PROB_BLOCKDIFF,
  PROB_FILE
} ProbType;
static const char *const ProbTypes[] = {"fvm", "twophase", "magnetron", "aniso", "jump", "convdiff", "cavity", "vorticity", "blockdiff", "file", "ProbType", "PROB_", NULL};

typedef enum {
  PROB_RHS_PROBLEM,
  PROB_RHS_COSINE,
  PROB_RHS_RANDOM
} ProbRHSType;
static const char *const ProbRHSTypes[] = {"problem", "cosine", "random", "ProbRHSType", "PROB_RHS_", NULL};

typedef enum {
  PROB_GUESS_ZERO,
  PROB_GUESS_VORTEX
} ProbGuessType;
static const char *const ProbGuessTypes[] = {"zero", "vortex", "ProbGuessType", "PROB_GUESS_", NULL};

#define PROB_MAX_BUBBLES 256
#define PROB_MAXROW      64 /* entries of one generated row (blockdiff bs 5 in 3D: 35) */
#define PROB_MAX_NNS     64 /* vectors of a near-null space file */

/*S
   Problem - the parameters of a generated system, the local rows, and the properties it claims
S*/
typedef struct {
  ProbType    type;
  MPI_Comm    comm;
  PetscInt    dim, nx, ny, nz, seed, bs;
  ProbRHSType rhs;
  FVMBCType   bc; /* twophase, jump: dirichlet (all sides) or mixed (Dirichlet on the top side only) */
  /* twophase */
  PetscReal contrast, bubble_radius;
  PetscInt  bubbles, subsamples;
  PetscBool layer;
  PetscReal bubble_centre[PROB_MAX_BUBBLES][3];
  /* magnetron */
  PetscReal h_mm, chi_max, rho_max, target_radius, v_target;
  /* aniso */
  PetscReal eps, eps_z, theta, kxx, kyy, kzz, kxy;
  /* jump */
  PetscReal jump;
  PetscInt  jump_blocks;
  PetscBool jump_random;
  /* convdiff */
  PetscReal peclet;
  PetscBool upwind;
  /* vorticity */
  PetscReal     re, lid;
  ProbGuessType guess;
  /* blockdiff */
  PetscReal sigma, D[25], R[25];
  /* cavity (ex19's parameters) */
  PetscReal lidvelocity, prandtl, grashof;
  /* file */
  char      file[PETSC_MAX_PATH_LEN], file_rhs[PETSC_MAX_PATH_LEN], file_nns[PETSC_MAX_PATH_LEN];
  PetscBool file_spd_set, file_spd; /* -file_spd: the system is SPD (true) or nonsymmetric (false) */
  /* fvm */
  FVMMesh mesh;

  /* the local rows (FVMSystem of fvmmesh.h: CSR with global columns, rhs, Dirichlet counts per row) */
  FVMSystem    s;
  PetscScalar *xexact; /* local part of the exact solution (-rhs cosine), or NULL */
  PetscInt     nns_k;  /* near-null space (-file_nearnullspace): nns_k orthonormal vectors, attached to every */
  PetscScalar *nns;    /* matrix ProblemCreateMat() makes; local parts, vector j at nns + j s.n (or NULL) */
  PetscInt64   nnz;    /* global number of stored entries */

  /* the properties the problem claims (verified by -check) */
  PetscBool  claim_symmetric, claim_nonsymmetric, claim_mmatrix, claim_zerosum, claim_dirpositive, claim_posdiag;
  PetscReal  claim_ratio;         /* max/min |off-diagonal| (0: no claim) */
  PetscBool  claim_maxprinciple;  /* solution within [mp_lo, mp_hi] */
  PetscReal  mp_lo, mp_hi;
  PetscInt64 expected_N;          /* -1: no claim */
  PetscInt64 expected_nblocks;    /* nonzero bs x bs blocks, -1: no claim */
  PetscBool  spd;                 /* the default solver is CG (else GMRES) */
  PetscBool  check;               /* -check: generators verify what only they can (cavity Jacobian) */
  PetscInt   jaccheck;            /* cavity: result of that check (-1 not done, 0 failed, 1 passed) */
  char       desc[1024];
} Problem;

/* ------------------------------------------------------------------------------------------------ */
/* random numbers without state (fvmmesh.h's SplitMix64 finaliser), keyed by seed and a salt         */

static inline PetscReal ProbUniform(const Problem *p, uint64_t salt, uint64_t i)
{
  return FVMUniform(FVMHash(FVMHash((uint64_t)p->seed * 0x9E3779B97F4A7C15ULL + salt) + i));
}

/* one row under construction */
typedef struct {
  PetscInt    n, ndir;
  PetscBool   overflow;
  PetscInt    c[PROB_MAXROW];
  PetscScalar v[PROB_MAXROW];
  PetscScalar rhs;
} ProbRow;

static inline void ProbRowAdd(ProbRow *r, PetscInt col, PetscScalar v)
{
  for (PetscInt k = 0; k < r->n; k++)
    if (r->c[k] == col) {
      r->v[k] += v;
      return;
    }
  if (r->n >= PROB_MAXROW) {
    r->overflow = PETSC_TRUE;
    return;
  }
  r->c[r->n]   = col;
  r->v[r->n++] = v;
}

typedef PetscErrorCode (*ProbRowFn)(const Problem *, PetscInt, ProbRow *);

static inline void ProbDecode(const Problem *p, PetscInt64 node, PetscInt *i, PetscInt *j, PetscInt *k)
{
  *i = (PetscInt)(node % p->nx);
  *j = (PetscInt)((node / p->nx) % p->ny);
  *k = (PetscInt)(node / ((PetscInt64)p->nx * p->ny));
}

static inline PetscInt ProbNode(const Problem *p, PetscInt i, PetscInt j, PetscInt k)
{
  return (PetscInt)(i + (PetscInt64)p->nx * (j + (PetscInt64)p->ny * k));
}

/*
  ProbOwnership - this process's rows: whole block rows, split as PetscSplitOwnership() does
*/
static PetscErrorCode ProbOwnership(Problem *p, PetscInt N)
{
  PetscInt nb = PETSC_DECIDE, Nb = N / p->bs, start = 0;

  PetscFunctionBegin;
  PetscCheck(N % p->bs == 0, p->comm, PETSC_ERR_ARG_SIZ, "%" PetscInt_FMT " rows are not a multiple of the block size %" PetscInt_FMT, N, p->bs);
  PetscCall(PetscSplitOwnership(p->comm, &nb, &Nb));
  PetscCallMPI(MPI_Scan(&nb, &start, 1, MPIU_INT, MPI_SUM, p->comm));
  p->s.N      = N;
  p->s.n      = nb * p->bs;
  p->s.rstart = (start - nb) * p->bs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dnnz/onnz of the local rows from the CSR */
static PetscErrorCode ProbCountDiagOff(Problem *p)
{
  FVMSystem *s = &p->s;

  PetscFunctionBegin;
  PetscCall(PetscFree(s->dnnz));
  PetscCall(PetscFree(s->onnz));
  PetscCall(PetscMalloc1(s->n, &s->dnnz));
  PetscCall(PetscMalloc1(s->n, &s->onnz));
  for (PetscInt lr = 0; lr < s->n; lr++) {
    s->dnnz[lr] = s->onnz[lr] = 0;
    for (PetscInt e = s->ia[lr]; e < s->ia[lr + 1]; e++) {
      if (s->ja[e] >= s->rstart && s->ja[e] < s->rstart + s->n) s->dnnz[lr]++;
      else s->onnz[lr]++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProbBuildRows - builds the local rows of an N-row system by calling fn for each row
*/
static PetscErrorCode ProbBuildRows(Problem *p, PetscInt N, PetscInt maxrow, ProbRowFn fn)
{
  FVMSystem *s = &p->s;
  PetscInt   nz = 0;

  PetscFunctionBegin;
  PetscCheck(maxrow <= PROB_MAXROW, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Rows of up to %" PetscInt_FMT " entries exceed PROB_MAXROW", maxrow);
  PetscCall(ProbOwnership(p, N));
  PetscCall(PetscMalloc1(s->n + 1, &s->ia));
  PetscCall(PetscMalloc1((size_t)s->n * maxrow, &s->ja));
  PetscCall(PetscMalloc1((size_t)s->n * maxrow, &s->va));
  PetscCall(PetscMalloc1(s->n, &s->rhs));
  PetscCall(PetscMalloc1(s->n, &s->ndirichlet));
  s->ia[0] = 0;
  for (PetscInt lr = 0; lr < s->n; lr++) {
    ProbRow r;

    r.n = r.ndir = 0;
    r.rhs        = 0;
    r.overflow   = PETSC_FALSE;
    PetscCall(fn(p, s->rstart + lr, &r));
    PetscCheck(!r.overflow && r.n <= maxrow, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " has more than %" PetscInt_FMT " entries", s->rstart + lr, maxrow);
    PetscCall(PetscSortIntWithScalarArray(r.n, r.c, r.v));
    for (PetscInt e = 0; e < r.n; e++) {
      s->ja[nz] = r.c[e];
      s->va[nz] = r.v[e];
      nz++;
    }
    s->ia[lr + 1]     = nz;
    s->rhs[lr]        = r.rhs;
    s->ndirichlet[lr] = r.ndir;
  }
  PetscCall(ProbCountDiagOff(p));
  s->generated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* cell-centred finite volumes: twophase, jump, convdiff                                            */

/* fraction of air in a cell (Gupta, van Gijzen and Vuik (2011), section 2.2: cells cut by an interface get a
   volume-weighted density); a cell away from every interface is pure, a cut cell is sampled by subsamples^d points */
static PetscBool TwoPhaseAirAt(const Problem *p, const PetscReal x[3])
{
  if (p->layer && x[p->dim - 1] > 0.5) return PETSC_TRUE;
  for (PetscInt b = 0; b < p->bubbles; b++) {
    PetscReal d2 = 0;
    for (PetscInt a = 0; a < p->dim; a++) d2 += PetscSqr(x[a] - p->bubble_centre[b][a]);
    if (d2 < PetscSqr(p->bubble_radius)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

static PetscReal TwoPhaseAirFraction(const Problem *p, PetscInt i, PetscInt j, PetscInt k)
{
  const PetscReal h[3] = {1.0 / p->nx, 1.0 / p->ny, 1.0 / p->nz};
  const PetscInt  ijk[3] = {i, j, k};
  PetscReal       c[3] = {0, 0, 0}, halfdiag = 0;
  PetscBool       cut = PETSC_FALSE;

  for (PetscInt a = 0; a < p->dim; a++) {
    c[a] = (ijk[a] + 0.5) * h[a];
    halfdiag += PetscSqr(0.5 * h[a]);
  }
  halfdiag = PetscSqrtReal(halfdiag);
  if (p->layer) {
    const PetscReal v = c[p->dim - 1] - 0.5, hv = 0.5 * h[p->dim - 1] * (1 - 1e-12);
    if (v >= hv) return 1.0;
    if (v > -hv) cut = PETSC_TRUE;
  }
  for (PetscInt b = 0; b < p->bubbles; b++) {
    PetscReal d2 = 0, dist;
    for (PetscInt a = 0; a < p->dim; a++) d2 += PetscSqr(c[a] - p->bubble_centre[b][a]);
    dist = PetscSqrtReal(d2);
    if (dist + halfdiag <= p->bubble_radius) return 1.0;
    if (dist - halfdiag < p->bubble_radius) cut = PETSC_TRUE;
  }
  if (!cut) return 0.0;
  {
    const PetscInt s = p->subsamples, ns = p->dim == 3 ? s * s * s : s * s;
    PetscInt       nair = 0;
    for (PetscInt q = 0; q < ns; q++) {
      const PetscInt off[3] = {q % s, (q / s) % s, q / (s * s)};
      PetscReal      x[3]   = {0, 0, 0};
      for (PetscInt a = 0; a < p->dim; a++) x[a] = (ijk[a] + (off[a] + 0.5) / s) * h[a];
      if (TwoPhaseAirAt(p, x)) nair++;
    }
    return (PetscReal)nair / ns;
  }
}

/* the diffusion coefficient of a cell */
static PetscReal FVCellCoefficient(const Problem *p, PetscInt i, PetscInt j, PetscInt k)
{
  switch (p->type) {
  case PROB_TWOPHASE: {
    /* k = 1/rho with rho = phi rho_air + (1 - phi) rho_water, rho_water = 1, rho_air = 1/contrast */
    const PetscReal phi = TwoPhaseAirFraction(p, i, j, k);
    return 1.0 / (phi / p->contrast + (1.0 - phi));
  }
  case PROB_JUMP: {
    const PetscInt b[3] = {(PetscInt)((PetscInt64)i * p->jump_blocks / p->nx), (PetscInt)((PetscInt64)j * p->jump_blocks / p->ny), p->dim == 3 ? (PetscInt)((PetscInt64)k * p->jump_blocks / p->nz) : 0};
    if (p->jump_random) return PetscPowReal(p->jump, ProbUniform(p, 0x4A554D50ULL, (uint64_t)(b[0] + p->jump_blocks * (b[1] + p->jump_blocks * b[2]))));
    return ((b[0] + b[1] + b[2]) % 2) ? p->jump : 1.0;
  }
  default:
    return 1.0;
  }
}

/* convdiff: stream function of the wind w = (d psi/dy, -d psi/dx, 0), |w| <= peclet, psi = 0 on the boundary */
static inline PetscReal ConvDiffPsi(const Problem *p, PetscReal x, PetscReal y)
{
  return p->peclet / PETSC_PI * PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y);
}

static inline PetscBool FVDirichletSide(const Problem *p, PetscInt axis, PetscInt side)
{
  if (p->type == PROB_CONVDIFF || p->bc == FVM_BC_DIRICHLET) return PETSC_TRUE;
  return (PetscBool)(axis == p->dim - 1 && side == 1); /* mixed: the top side only */
}

static PetscErrorCode FVRow(const Problem *p, PetscInt row, ProbRow *r)
{
  const PetscReal h[3] = {1.0 / p->nx, 1.0 / p->ny, p->dim == 3 ? 1.0 / p->nz : 1.0};
  const PetscReal scale = p->dim == 3 ? h[0] : 1.0; /* rows divided by h^(d-2) */
  PetscInt        ijk[3];
  PetscReal       kP, diag = 0, vol = h[0] * h[1] * h[2];

  PetscFunctionBegin;
  ProbDecode(p, row, &ijk[0], &ijk[1], &ijk[2]);
  kP = FVCellCoefficient(p, ijk[0], ijk[1], ijk[2]);
  for (PetscInt a = 0; a < p->dim; a++) {
    const PetscReal area = h[0] * h[1] * h[2] / h[a], g = area / h[a] / scale;
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt  nb[3] = {ijk[0], ijk[1], ijk[2]};
      PetscBool inside;
      PetscReal F = 0; /* outward convective flux through the face */

      nb[a] += side ? 1 : -1;
      inside = (PetscBool)(nb[a] >= 0 && nb[a] < (a == 0 ? p->nx : a == 1 ? p->ny : p->nz));
      if (p->type == PROB_CONVDIFF && a < 2) {
        /* exact integral of w . n over the face from the stream function at its end points: the fluxes
           of the faces of a cell sum to zero (discretely divergence free), and the two cells of a face
           compute it from the same coordinates */
        const PetscReal xw = ijk[0] * h[0], xe = (ijk[0] + 1) * h[0], ys = ijk[1] * h[1], yn = (ijk[1] + 1) * h[1];
        const PetscReal hz = p->dim == 3 ? h[2] : 1.0;
        if (a == 0) F = side ? ConvDiffPsi(p, xe, yn) - ConvDiffPsi(p, xe, ys) : -(ConvDiffPsi(p, xw, yn) - ConvDiffPsi(p, xw, ys));
        else F = side ? -(ConvDiffPsi(p, xe, yn) - ConvDiffPsi(p, xw, yn)) : ConvDiffPsi(p, xe, ys) - ConvDiffPsi(p, xw, ys);
        F *= hz / scale;
      }
      if (inside) {
        const PetscInt  col = ProbNode(p, nb[0], nb[1], nb[2]);
        const PetscReal kN = FVCellCoefficient(p, nb[0], nb[1], nb[2]), af = g * 2.0 * kP * kN / (kP + kN);
        ProbRowAdd(r, col, -af);
        diag += af;
        if (F != 0) {
          if (p->upwind) {
            if (F > 0) diag += F;
            else ProbRowAdd(r, col, F);
          } else {
            ProbRowAdd(r, col, 0.5 * F);
            diag += 0.5 * F;
          }
        }
      } else if (FVDirichletSide(p, a, side)) {
        diag += 2.0 * g * kP; /* boundary value 0: nothing goes to the right-hand side */
        if (F > 0) diag += F; /* (F is 0 up to rounding on the walls) */
        r->ndir++;
      } /* else homogeneous Neumann */
    }
  }
  ProbRowAdd(r, row, diag);
  r->rhs = vol / scale; /* f = 1 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* magnetron, Shioya (2022): 7-point finite differences on the nodes of the 60 x 60 x 30 mm box     */

/* model plasma density: a ring ("racetrack") above the target, peak 1 (lengths in mm) */
static inline PetscReal MagnetronPlasma(const PetscReal x[3])
{
  const PetscReal r = PetscSqrtReal(PetscSqr(x[0] - 30.0) + PetscSqr(x[1] - 30.0));
  return PetscExpReal(-(PetscSqr(r - 15.0) + PetscSqr(x[2] - 5.0)) / (2.0 * 9.0));
}

/* K = (1 + chi) (eq. 2.1.14 divided by eps0), at a node of the grid (boundary nodes included) */
static inline PetscReal MagnetronK(const Problem *p, const PetscReal x[3])
{
  return 1.0 + p->chi_max * MagnetronPlasma(x);
}

/* Dirichlet data: the target (a disc of -target_radius on the bottom wall z = 0) at -v_target, the side
   walls and the substrate (top) grounded */
static inline PetscReal MagnetronWall(const Problem *p, const PetscReal x[3])
{
  if (x[2] <= 0 && PetscSqr(x[0] - 30.0) + PetscSqr(x[1] - 30.0) <= PetscSqr(p->target_radius)) return p->v_target;
  return 0.0;
}

static PetscErrorCode MagnetronRow(const Problem *p, PetscInt row, ProbRow *r)
{
  const PetscReal h = p->h_mm;
  PetscInt        ijk[3];
  PetscReal       xP[3], kP, diag = 0;
  const PetscInt  n[3] = {p->nx, p->ny, p->nz};

  PetscFunctionBegin;
  ProbDecode(p, row, &ijk[0], &ijk[1], &ijk[2]);
  for (PetscInt a = 0; a < 3; a++) xP[a] = (ijk[a] + 1) * h;
  kP = MagnetronK(p, xP);
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt  nb[3] = {ijk[0], ijk[1], ijk[2]};
      PetscReal xN[3] = {xP[0], xP[1], xP[2]}, kf;

      nb[a] += side ? 1 : -1;
      xN[a] = (nb[a] + 1) * h;
      kf    = 0.5 * (kP + MagnetronK(p, xN)); /* K at the midpoint between the nodes */
      diag += kf;
      if (nb[a] >= 0 && nb[a] < n[a]) ProbRowAdd(r, ProbNode(p, nb[0], nb[1], nb[2]), -kf);
      else { /* a wall node: known potential (the equation below eq. 2.1.15) */
        r->rhs += kf * MagnetronWall(p, xN);
        r->ndir++;
      }
    }
  ProbRowAdd(r, row, diag);
  r->rhs += h * h * p->rho_max * MagnetronPlasma(xP); /* h^2 rho/eps0, rho/eps0 in V/mm^2 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* aniso: node-based finite differences, -div(K grad u) = 1, K = R diag(1, eps) R^T (+ eps_z)        */

static PetscErrorCode AnisoRow(const Problem *p, PetscInt row, ProbRow *r)
{
  const PetscReal hx = 1.0 / (p->nx + 1), hy = 1.0 / (p->ny + 1), hz = 1.0 / (p->nz + 1);
  const PetscReal cx = p->kxx, cy = p->kyy * hx * hx / (hy * hy), cz = p->kzz * hx * hx / (hz * hz);
  const PetscReal cxy = p->kxy * hx * hx / (2.0 * hx * hy); /* 2 kxy u_xy, central differences, over 4 hx hy */
  const PetscInt  n[3] = {p->nx, p->ny, p->nz};
  PetscInt        ijk[3];
  PetscReal       diag = 0;

  PetscFunctionBegin;
  ProbDecode(p, row, &ijk[0], &ijk[1], &ijk[2]);
  for (PetscInt a = 0; a < p->dim; a++) {
    const PetscReal c = a == 0 ? cx : a == 1 ? cy : cz;
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt nb[3] = {ijk[0], ijk[1], ijk[2]};
      nb[a] += side ? 1 : -1;
      diag += c;
      if (nb[a] >= 0 && nb[a] < n[a]) ProbRowAdd(r, ProbNode(p, nb[0], nb[1], nb[2]), -c);
      else r->ndir++;
    }
  }
  if (p->kxy != 0)
    for (PetscInt sx = -1; sx <= 1; sx += 2)
      for (PetscInt sy = -1; sy <= 1; sy += 2) {
        const PetscInt i = ijk[0] + sx, j = ijk[1] + sy;
        if (i >= 0 && i < p->nx && j >= 0 && j < p->ny) ProbRowAdd(r, ProbNode(p, i, j, ijk[2]), sx * sy > 0 ? -cxy : cxy);
        else r->ndir++;
      }
  ProbRowAdd(r, row, diag);
  r->rhs = hx * hx; /* f = 1 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* blockdiff: bs coupled fields, -div(D grad u) + (sigma/h^2) R u = 1 on the interior nodes           */

static PetscErrorCode BlockDiffRow(const Problem *p, PetscInt row, ProbRow *r)
{
  const PetscInt bs = p->bs, node = row / bs, c = row % bs, n[3] = {p->nx, p->ny, p->nz};
  const PetscReal h = 1.0 / (p->nx + 1);
  PetscInt        ijk[3];

  PetscFunctionBegin;
  ProbDecode(p, node, &ijk[0], &ijk[1], &ijk[2]);
  for (PetscInt e = 0; e < bs; e++) ProbRowAdd(r, node * bs + e, 2.0 * p->dim * p->D[c * bs + e] + p->sigma * p->R[c * bs + e]);
  for (PetscInt a = 0; a < p->dim; a++)
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt nb[3] = {ijk[0], ijk[1], ijk[2]};
      nb[a] += side ? 1 : -1;
      if (nb[a] >= 0 && nb[a] < n[a]) {
        const PetscInt nn = ProbNode(p, nb[0], nb[1], nb[2]);
        for (PetscInt e = 0; e < bs; e++) ProbRowAdd(r, nn * bs + e, -p->D[c * bs + e]);
      } else r->ndir++;
    }
  r->rhs = h * h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* vorticity: the velocity-vorticity driven cavity of Ma et al. (2021), section 4.4                 */
/*
   Unknowns (u, v, omega) at the n x n nodes of the unit square, boundary nodes included, h = 1/(n-1),
   node (i,j) is block row i + n j. Steady incompressible flow in velocity-vorticity form:
     -lap u - d omega/dy = 0,   -lap v + d omega/dx = 0,   -lap omega + Re (u d omega/dx + v d omega/dy) = 0
   (the first two follow from omega = dv/dx - du/dy and div(u, v) = 0), 5-point Laplacian and central
   differences, each equation multiplied by h^2. Walls: u = v = 0 except u = lid on the top wall
   (corners excluded), and omega = dv/dx - du/dy with one-sided differences into the cavity:
     bottom omega + (u_N - u_P)/h = 0, top omega + (u_P - u_S)/h = 0, left omega - (v_E - v_P)/h = 0,
     right omega - (v_P - v_W)/h = 0 (corners use the left / right formula).
   The residual F is quadratic in the state, so the Jacobian below is exact; A = F'(x0), b = -F(x0):
   the first Newton step from x0 (-vorticity_guess zero: fluid at rest, the lid moving; vortex: an
   analytic single vortex, so that the convective terms enter the Jacobian). Every block row holds the full
   3 x 3 blocks of the node and of its neighbours in the grid (zeros included): 5 n^2 - 4 n blocks, the
   448,800 of the paper at n = 300.
*/

/* f(s) = s^2 (1-s)^2 and its derivatives: the vortex psi = A f(x) f(y) */
static inline void VortexF(PetscReal s, PetscReal *f, PetscReal *f1, PetscReal *f2)
{
  *f  = s * s * (1 - s) * (1 - s);
  *f1 = 2 * s * (1 - s) * (1 - 2 * s);
  *f2 = 2 * (1 - 6 * s + 6 * s * s);
}

/* the state x0 + eps w at node (i,j), w uniform in [-1,1] per node and field */
static void VorticityState(const Problem *p, PetscInt i, PetscInt j, PetscReal eps, PetscScalar s[3])
{
  const PetscInt  n        = p->nx;
  const PetscReal h        = 1.0 / (n - 1), x = i * h, y = j * h;
  const PetscBool boundary = (PetscBool)(i == 0 || j == 0 || i == n - 1 || j == n - 1);

  s[0] = s[1] = s[2] = 0;
  if (p->guess == PROB_GUESS_VORTEX) {
    /* amplitude: the largest |u| of the vortex is lid (max f = 1/16, max |f'| = 1/(6 sqrt 3)) */
    const PetscReal A = p->lid * 16.0 * 6.0 * PetscSqrtReal(3.0);
    PetscReal       fx, fx1, fx2, fy, fy1, fy2;
    VortexF(x, &fx, &fx1, &fx2);
    VortexF(y, &fy, &fy1, &fy2);
    if (!boundary) {
      s[0] = A * fx * fy1;
      s[1] = -A * fx1 * fy;
    }
    s[2] = -A * (fx2 * fy + fx * fy2);
  }
  if (j == n - 1 && i > 0 && i < n - 1) s[0] = p->lid;
  if (eps != 0)
    for (PetscInt c = 0; c < 3; c++) s[c] += eps * (2.0 * ProbUniform(p, 0x564F5254ULL, (uint64_t)(3 * (i + (PetscInt64)n * j) + c)) - 1.0);
}

/* residual F (3) and Jacobian blocks J[b][row field][column field] at node (i,j), b = P, W, E, S, N */
static void VorticityNode(const Problem *p, PetscInt i, PetscInt j, PetscReal eps, PetscScalar F[3], PetscScalar J[5][3][3], PetscBool has[5])
{
  const PetscInt  n = p->nx;
  const PetscReal h = 1.0 / (n - 1), hh = 0.5 * h, Re = p->re;
  const PetscInt  di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
  PetscScalar     s[5][3];

  for (PetscInt b = 0; b < 5; b++) {
    const PetscInt ii = i + di[b], jj = j + dj[b];
    has[b] = (PetscBool)(ii >= 0 && ii < n && jj >= 0 && jj < n);
    if (has[b]) VorticityState(p, ii, jj, eps, s[b]);
    else s[b][0] = s[b][1] = s[b][2] = 0;
    for (PetscInt c = 0; c < 3; c++)
      for (PetscInt e = 0; e < 3; e++) J[b][c][e] = 0;
  }
  if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
    /* interior: P=0 W=1 E=2 S=3 N=4 */
    F[0] = 4 * s[0][0] - s[1][0] - s[2][0] - s[3][0] - s[4][0] - hh * (s[4][2] - s[3][2]);
    F[1] = 4 * s[0][1] - s[1][1] - s[2][1] - s[3][1] - s[4][1] + hh * (s[2][2] - s[1][2]);
    F[2] = 4 * s[0][2] - s[1][2] - s[2][2] - s[3][2] - s[4][2] + Re * hh * (s[0][0] * (s[2][2] - s[1][2]) + s[0][1] * (s[4][2] - s[3][2]));
    J[0][0][0] = 4;
    J[0][1][1] = 4;
    J[0][2][2] = 4;
    for (PetscInt b = 1; b < 5; b++)
      for (PetscInt c = 0; c < 3; c++) J[b][c][c] = -1;
    J[4][0][2] = -hh;
    J[3][0][2] = hh;
    J[2][1][2] = hh;
    J[1][1][2] = -hh;
    J[0][2][0] = Re * hh * (s[2][2] - s[1][2]);
    J[0][2][1] = Re * hh * (s[4][2] - s[3][2]);
    J[2][2][2] += Re * hh * s[0][0];
    J[1][2][2] -= Re * hh * s[0][0];
    J[4][2][2] += Re * hh * s[0][1];
    J[3][2][2] -= Re * hh * s[0][1];
  } else {
    const PetscReal ulid = (j == n - 1 && i > 0 && i < n - 1) ? p->lid : 0.0;
    F[0]       = s[0][0] - ulid;
    F[1]       = s[0][1];
    J[0][0][0] = 1;
    J[0][1][1] = 1;
    J[0][2][2] = 1;
    if (i == 0) { /* left: omega - (v_E - v_P)/h */
      F[2]       = s[0][2] - (s[2][1] - s[0][1]) / h;
      J[0][2][1] = 1 / h;
      J[2][2][1] = -1 / h;
    } else if (i == n - 1) { /* right: omega - (v_P - v_W)/h */
      F[2]       = s[0][2] - (s[0][1] - s[1][1]) / h;
      J[0][2][1] = -1 / h;
      J[1][2][1] = 1 / h;
    } else if (j == 0) { /* bottom: omega + (u_N - u_P)/h */
      F[2]       = s[0][2] + (s[4][0] - s[0][0]) / h;
      J[0][2][0] = -1 / h;
      J[4][2][0] = 1 / h;
    } else { /* top: omega + (u_P - u_S)/h */
      F[2]       = s[0][2] + (s[0][0] - s[3][0]) / h;
      J[0][2][0] = 1 / h;
      J[3][2][0] = -1 / h;
    }
  }
}

static PetscErrorCode VorticityRow(const Problem *p, PetscInt row, ProbRow *r)
{
  const PetscInt node = row / 3, c = row % 3, n = p->nx, i = node % n, j = node / n;
  const PetscInt di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
  PetscScalar    F[3], J[5][3][3];
  PetscBool      has[5];

  PetscFunctionBegin;
  VorticityNode(p, i, j, 0.0, F, J, has);
  for (PetscInt b = 0; b < 5; b++)
    if (has[b])
      for (PetscInt e = 0; e < 3; e++) ProbRowAdd(r, 3 * ((i + di[b]) + n * (j + dj[b])) + e, J[b][c][e]);
  r->rhs = -F[c];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* cavity: PETSc's snes/tutorials/ex19.c, compiled into the program that includes this header        */
/*
   problems.c includes ex19.c (with its main() renamed) from the PETSc installation, found through
   PETSc's include directory ($PETSC_DIR/include/../share/petsc/examples/src/snes/tutorials/ex19.c for
   a prefix installation, $PETSC_DIR/include/../src/snes/tutorials/ex19.c in a source tree), and defines
   PROBLEMS_HAVE_EX19 and ProbCavityJacobian(); without it -problem cavity is an error.
*/
#if defined(PROBLEMS_HAVE_EX19)
static PetscErrorCode ProbCavityJacobian(Problem *p, PetscBool check);
#endif

/* ------------------------------------------------------------------------------------------------ */
/* readers: PETSc binary and MatrixMarket (+ right-hand side)                                         */

/*
  MatrixMarket right-hand side: "%%MatrixMarket matrix array real general" (size line "M 1", then M values)
  or a coordinate file with one column (read by MMReadCSR()). On malformed input *ok is false and msg says
  why, with the line number; nothing stays allocated.
*/
static PetscErrorCode ProbReadMMVector(const char fname[], PetscInt64 *m, PetscScalar **vals, PetscBool *ok, char *msg, size_t msglen)
{
  MMLineReader_ r;
  char          tok[5][64], qt[80];
  const char   *q;
  PetscBool     eof, opened;
  PetscInt64    M, N, k = 0, cap = 0;

  PetscFunctionBegin;
  *ok   = PETSC_FALSE;
  *vals = NULL;
  *m    = 0;
  PetscCall(MMLineReaderOpen_(&r, fname, msg, msglen, &opened));
  if (!opened) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MMGetLine_(&r, &eof));
  if (r.bad) goto done;
  if (eof) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s: empty file, not a MatrixMarket file", fname));
    goto done;
  }
  q = r.buf;
  for (int t = 0; t < 5; t++) MMNextToken_(&q, tok[t], sizeof(tok[t]));
  if (strcmp(tok[0], "%%matrixmarket") || strcmp(tok[1], "matrix")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: not a MatrixMarket matrix file: the first line must be \"%%%%MatrixMarket matrix array real general\" (or a coordinate file with one column)", fname));
    goto done;
  }
  if (!strcmp(tok[2], "coordinate")) { /* one-column sparse file: MMReadCSR() reports its own errors */
    MMCSR          c;
    PetscErrorCode ierr;
    const char    *text, *specific;

    PetscCall(MMLineReaderClose_(&r));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MMReadCSR(fname, &c);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(PetscErrorMessage(ierr, &text, &specific));
      PetscCall(PetscSNPrintf(msg, msglen, "%s", specific ? specific : text));
      goto done;
    }
    if (c.n != 1) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s: a right-hand side must have one column, this file is %" PetscInt_FMT " x %" PetscInt_FMT, fname, c.m, c.n));
      PetscCall(MMFreeCSR(&c));
      goto done;
    }
    PetscCall(PetscCalloc1(c.m, vals));
    for (PetscInt i = 0; i < c.m; i++)
      if (c.ia[i + 1] > c.ia[i]) (*vals)[i] = c.a[c.ia[i]];
    *m = c.m;
    PetscCall(MMFreeCSR(&c));
    *ok = PETSC_TRUE;
    goto done;
  }
  if (strcmp(tok[2], "array") || (strcmp(tok[3], "real") && strcmp(tok[3], "double") && strcmp(tok[3], "integer")) || strcmp(tok[4], "general")) {
    char q2[80], q3[80], q4[80];
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket \"%s %s %s\" is not supported for a right-hand side: \"array real general\" (or \"coordinate\" with one column)", fname, MMQuote_(tok[2], q2, sizeof(q2)), MMQuote_(tok[3], q3, sizeof(q3)), MMQuote_(tok[4], q4, sizeof(q4))));
    goto done;
  }
  do {
    PetscCall(MMGetLine_(&r, &eof));
  } while (!eof && (r.buf[0] == '%' || MMBlank_(r.buf)));
  if (r.bad) goto done;
  if (eof) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": the file ends before the size line \"rows 1\"", fname, r.lineno));
    goto done;
  }
  q = r.buf;
  if (!MMParseInt64_(&q, &M) || !MMParseInt64_(&q, &N) || !MMBlank_(q)) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed size line \"%s\": expected two integers \"rows 1\"", fname, r.lineno, MMQuote_(r.buf, qt, sizeof(qt))));
    goto done;
  }
  if (N != 1 || M < 0 || M >= PETSC_INT_MAX) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": a right-hand side is one column of at most %d rows, this one is %" PetscInt64_FMT " x %" PetscInt64_FMT, fname, r.lineno, (int)PETSC_INT_MAX, M, N));
    goto done;
  }
  while (k < M) { /* the array grows as values come: M is only what the size line claims */
    double    v;
    PetscBool finite;
    PetscCall(MMGetLine_(&r, &eof));
    if (r.bad) goto fail;
    if (eof) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": the file ends after %" PetscInt64_FMT " of the %" PetscInt64_FMT " values declared by the size line", fname, r.lineno, k, M));
      goto fail;
    }
    if (r.buf[0] == '%' || MMBlank_(r.buf)) continue;
    q = r.buf;
    if (!MMParseReal_(&q, &v, &finite) || !MMBlank_(q)) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed value \"%s\": expected one real number per line", fname, r.lineno, MMQuote_(r.buf, qt, sizeof(qt))));
      goto fail;
    }
    if (!finite) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": value \"%s\" is not a finite real number (nan, inf or beyond the double range)", fname, r.lineno, MMQuote_(r.buf, qt, sizeof(qt))));
      goto fail;
    }
    if (k == cap) {
      cap = PetscMin(M, PetscMax(1024, 2 * cap));
      PetscCall(PetscRealloc((size_t)cap * sizeof(**vals), vals));
    }
    (*vals)[k++] = (PetscScalar)v;
  }
  for (;;) {
    PetscCall(MMGetLine_(&r, &eof));
    if (r.bad) goto fail;
    if (eof) break;
    if (r.buf[0] == '%' || MMBlank_(r.buf)) continue;
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": more values than the %" PetscInt64_FMT " declared by the size line (\"%s\")", fname, r.lineno, M, MMQuote_(r.buf, qt, sizeof(qt))));
    goto fail;
  }
  *m  = M;
  *ok = PETSC_TRUE;
  goto done;
fail:
  PetscCall(PetscFree(*vals));
done:
  PetscCall(MMLineReaderClose_(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* write a local vector (one process) as "%%MatrixMarket matrix array real general" */
static PetscErrorCode ProbWriteMMVector(const char fname[], PetscInt m, const PetscScalar *v)
{
  FILE *fp = fopen(fname, "w");

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s: %s", fname, strerror(errno));
  fprintf(fp, "%%%%MatrixMarket matrix array real general\n%% right-hand side written by petsc-modsell examples/problems\n%" PetscInt_FMT " 1\n", m);
  for (PetscInt i = 0; i < m; i++) fprintf(fp, "%.17g\n", (double)PetscRealPart(v[i]));
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool ProbIsMatrixMarket(const char fname[])
{
  size_t len = strlen(fname);
  FILE  *fp;
  char   head[16] = "";

  if (len >= 4 && !strcasecmp(fname + len - 4, ".mtx")) return PETSC_TRUE;
  fp = fopen(fname, "r");
  if (!fp) return PETSC_FALSE;
  if (!fgets(head, sizeof(head), fp)) head[0] = 0;
  (void)fclose(fp);
  return (PetscBool)!strncasecmp(head, "%%MatrixMarket", 14);
}

/*
  ProbSystemFromMatRows - the rows of A this process owns, copied into the local CSR of s (n, rstart, ia, ja, va)
*/
static PetscErrorCode ProbSystemFromMatRows(Mat A, FVMSystem *s)
{
  PetscInt rstart, rend, nnz = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  s->n      = rend - rstart;
  s->rstart = rstart;
  PetscCall(PetscMalloc1(s->n + 1, &s->ia));
  s->ia[0] = 0;
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt ncols;
    PetscCall(MatGetRow(A, r, &ncols, NULL, NULL));
    nnz += ncols;
    s->ia[r - rstart + 1] = nnz;
    PetscCall(MatRestoreRow(A, r, &ncols, NULL, NULL));
  }
  PetscCall(PetscMalloc1(PetscMax(nnz, 1), &s->ja)); /* never NULL: s->ja + offset below */
  PetscCall(PetscMalloc1(PetscMax(nnz, 1), &s->va));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           ncols;
    PetscCall(MatGetRow(A, r, &ncols, &cols, &vals));
    PetscCall(PetscArraycpy(s->ja + s->ia[r - rstart], cols, ncols));
    PetscCall(PetscArraycpy(s->va + s->ia[r - rstart], vals, ncols));
    PetscCall(MatRestoreRow(A, r, &ncols, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PETSc binary files are checked before MatLoad() and VecLoad() read them: PETSc trusts the file (a header
  that claims 2e9 rows makes MatLoad() allocate them before it finds the file short; column indices are
  stored as they are, unchecked and unsorted). Rank 0 reads the file once, in pieces of PROB_BIN_CHUNK
  values, and every process gets the verdict: an error that names the file and what is wrong.
*/
#define PROB_BIN_CHUNK 4096

typedef struct {
  int         fd;
  const char *fname;
  PetscInt64  size, pos; /* file size, bytes consumed */
  char       *msg;
  size_t      msglen;
} ProbBinFile_;

/* Read count values of type (size bytes each) if that many bytes are left; *got false otherwise */
static PetscErrorCode ProbBinRead_(ProbBinFile_ *f, void *data, PetscInt64 count, size_t size, PetscDataType type, PetscBool *got)
{
  PetscInt n;

  PetscFunctionBegin;
  *got = (PetscBool)(count <= (f->size - f->pos) / (PetscInt64)size);
  if (!*got || !count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBinaryRead(f->fd, data, (PetscCount)count, &n, type));
  *got = (PetscBool)(n == count);
  if (*got) f->pos += count * (PetscInt64)size;
  else PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: read error after %" PetscInt64_FMT " bytes", f->fname, f->pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check the values that follow: count finite scalars (what names them in the messages) */
static PetscErrorCode ProbBinCheckValues_(ProbBinFile_ *f, PetscInt64 count, const char *what, PetscScalar *chunk, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  for (PetscInt64 k = 0; k < count; k += PROB_BIN_CHUNK) {
    const PetscInt64 n = PetscMin(PROB_BIN_CHUNK, count - k);
    PetscBool        got;
    PetscCall(ProbBinRead_(f, chunk, n, sizeof(PetscScalar), PETSC_SCALAR, &got));
    if (!got) {
      if (!f->msg[0]) PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: the file ends in the values of %s", f->fname, what));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt64 e = 0; e < n; e++) {
      if (PetscIsInfOrNanScalar(chunk[e])) {
        PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: value %" PetscInt64_FMT " (0-based, in file order) of %s is not a finite number (nan or inf)", f->fname, k + e, what));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A vector (what: "the right-hand side ...") of N rows at the current position (as VecLoad() reads it) */
static PetscErrorCode ProbBinCheckVec_(ProbBinFile_ *f, PetscInt N, const char *what, PetscScalar *chunk, PetscBool *ok)
{
  const PetscInt64 left = f->size - f->pos;
  int32_t          tr[2];
  PetscInt64       rows = -1;
  PetscBool        got;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(ProbBinRead_(f, tr, 2, sizeof(int32_t), PETSC_INT32, &got));
  if (got && tr[0] == VEC_FILE_CLASSID) rows = tr[1]; /* 32-bit header */
  else if (got && sizeof(PetscInt) == 8 && (int64_t)(((uint64_t)(uint32_t)tr[0] << 32) | (uint32_t)tr[1]) == VEC_FILE_CLASSID) {
    int64_t r64;
    PetscCall(ProbBinRead_(f, &r64, 1, sizeof(int64_t), PETSC_INT64, &got));
    if (got) rows = r64;
  } else {
    if (f->msg[0]) PetscFunctionReturn(PETSC_SUCCESS);
    if (!got) PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: %s: %" PetscInt64_FMT " bytes, too short for a PETSc vector", f->fname, what, left));
    else PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: %s is not a PETSc vector (class id %d, a vector's is %d)", f->fname, what, (int)tr[0], VEC_FILE_CLASSID));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!got) {
    if (!f->msg[0]) PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: %s: the file ends in the vector header", f->fname, what));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (rows != N) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: %s has %" PetscInt64_FMT " rows, the matrix %" PetscInt_FMT, f->fname, what, rows, N));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (rows > (f->size - f->pos) / (PetscInt64)sizeof(PetscScalar)) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: %s has %" PetscInt64_FMT " rows, %" PetscInt64_FMT " bytes of values, but only %" PetscInt64_FMT " bytes follow its header (a truncated file)", f->fname, what, rows, rows * (PetscInt64)sizeof(PetscScalar), f->size - f->pos));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ProbBinCheckValues_(f, rows, what, chunk, ok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix (then optionally a vector) from the start of the file, as MatLoad() for AIJ reads it */
static PetscErrorCode ProbBinCheckMat_(ProbBinFile_ *f, PetscInt bs, PetscInt *Mout, PetscBool *hasvec, PetscScalar *chunk, PetscBool *ok)
{
  PetscInt   hdr[4], M, N, nz, *rowlens = NULL, *cols = NULL;
  PetscInt64 sum = 0, left;
  PetscBool  got;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(ProbBinRead_(f, hdr, 4, sizeof(PetscInt), PETSC_INT, &got));
  if (!got) {
    if (!f->msg[0]) PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: %" PetscInt64_FMT " bytes, too short for a PETSc binary matrix (its header alone has %d bytes)", f->fname, f->size, (int)(4 * sizeof(PetscInt))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  M  = hdr[1];
  N  = hdr[2];
  nz = hdr[3];
  if (hdr[0] != MAT_FILE_CLASSID) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s is not a PETSc binary matrix file (class id %" PetscInt_FMT ", a matrix's is %d) nor a MatrixMarket file", f->fname, hdr[0], MAT_FILE_CLASSID));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (M < 0 || N < 0 || nz < 0) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: the matrix header declares %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " nonzeros: negative (a negative count is PETSc's dense format, not read here)", f->fname, M, N, nz));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (M != N) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "The matrix in %s is %" PetscInt_FMT " x %" PetscInt_FMT ", not square", f->fname, M, N));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (M % bs) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: the matrix has %" PetscInt_FMT " rows, not a multiple of -file_bs %" PetscInt_FMT, f->fname, M, bs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  left = f->size - f->pos;
  if (M > left / (PetscInt64)sizeof(PetscInt) || nz > (left - M * (PetscInt64)sizeof(PetscInt)) / (PetscInt64)(sizeof(PetscInt) + sizeof(PetscScalar))) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: the header declares a %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt_FMT " nonzeros, %.0f bytes of data, but only %" PetscInt64_FMT " bytes follow it (a truncated file, or a header that is not a matrix's)", f->fname, M, N, nz, (double)M * sizeof(PetscInt) + (double)nz * (sizeof(PetscInt) + sizeof(PetscScalar)), left));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(M, &rowlens)); /* at most the file's size */
  PetscCall(ProbBinRead_(f, rowlens, M, sizeof(PetscInt), PETSC_INT, &got));
  if (!got) goto done;
  for (PetscInt i = 0; i < M; i++) {
    if (rowlens[i] < 0 || rowlens[i] > N) {
      PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " nonzeros: a row has between 0 and %" PetscInt_FMT " (the columns)", f->fname, i, rowlens[i], N));
      goto done;
    }
    sum += rowlens[i];
  }
  if (sum != nz) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: the row lengths add up to %" PetscInt64_FMT " nonzeros, the header declares %" PetscInt_FMT, f->fname, sum, nz));
    goto done;
  }
  PetscCall(PetscMalloc1(PROB_BIN_CHUNK, &cols));
  {
    PetscInt64 k = 0, have = 0; /* column indices read, of which the chunk holds [k - have, k) */
    PetscInt   idx = 0;
    for (PetscInt i = 0; i < M; i++) {
      PetscInt prev = -1;
      for (PetscInt e = 0; e < rowlens[i]; e++) {
        PetscInt col;
        if (!have) {
          const PetscInt64 n = PetscMin(PROB_BIN_CHUNK, (PetscInt64)nz - k);
          PetscCall(ProbBinRead_(f, cols, n, sizeof(PetscInt), PETSC_INT, &got));
          if (!got) goto done;
          k += n;
          have = n;
          idx  = 0;
        }
        col = cols[idx++];
        have--;
        if (col < 0 || col >= N) {
          PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: row %" PetscInt_FMT ": column index %" PetscInt_FMT " is outside the %" PetscInt_FMT " columns (0-based)", f->fname, i, col, N));
          goto done;
        }
        if (col <= prev) {
          PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: row %" PetscInt_FMT ": column index %" PetscInt_FMT " after %" PetscInt_FMT ": the columns of a row must be increasing (sorted, no duplicates)", f->fname, i, col, prev));
          goto done;
        }
        prev = col;
      }
    }
  }
  PetscCall(ProbBinCheckValues_(f, nz, "the matrix", chunk, &got));
  if (!got) goto done;
  *Mout   = M;
  *hasvec = (PetscBool)(f->pos < f->size); /* bytes after the first vector are not read */
  if (*hasvec) PetscCall(ProbBinCheckVec_(f, M, "the right-hand side after the matrix", chunk, &got));
  *ok = got;
done:
  PetscCall(PetscFree(rowlens));
  PetscCall(PetscFree(cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Vectors of N rows one after the other up to the end of the file (a near-null space); *k their number */
static PetscErrorCode ProbBinCheckVecs_(ProbBinFile_ *f, PetscInt N, PetscInt *k, PetscScalar *chunk, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  *k  = 0;
  while (*ok && f->pos < f->size) {
    char what[64];
    if (*k == PROB_MAX_NNS) {
      PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: more than %d vectors: a near-null space file holds at most %d", f->fname, PROB_MAX_NNS, PROB_MAX_NNS));
      *ok = PETSC_FALSE;
      break;
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "vector %" PetscInt_FMT " (0-based)", *k));
    PetscCall(ProbBinCheckVec_(f, N, what, chunk, ok));
    if (*ok) (*k)++;
  }
  if (*ok && !*k) {
    PetscCall(PetscSNPrintf(f->msg, f->msglen, "%s: an empty file: a near-null space file holds one or more PETSc vectors", f->fname));
    *ok = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  PROB_BIN_MAT,  /* a matrix, optionally followed by a vector */
  PROB_BIN_VEC,  /* a vector */
  PROB_BIN_VECS  /* one or more vectors up to the end of the file */
} ProbBinContent_;

/*
  ProbCheckBinary_ - checks a PETSc binary file before it is loaded (collective): a matrix (PROB_BIN_MAT, block
  size bs; *M its size, *hasvec whether a vector of M rows follows it), a vector of N rows (PROB_BIN_VEC), or
  vectors of N rows up to the end of the file (PROB_BIN_VECS, *M their number). Every fault is an error
  (PETSC_ERR_FILE_OPEN, PETSC_ERR_FILE_UNEXPECTED) that names the file and what is wrong.
*/
static PetscErrorCode ProbCheckBinary_(MPI_Comm comm, const char fname[], ProbBinContent_ what, PetscInt bs, PetscInt N, PetscInt *M, PetscBool *hasvec)
{
  PetscMPIInt rank;
  char        msg[1024] = "";
  PetscInt64  res[4]    = {PETSC_SUCCESS, 0, 0, 0}; /* error code, PETSc error on rank 0, M, hasvec */

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    ProbBinFile_   f = {-1, fname, 0, 0, msg, sizeof(msg)};
    PetscScalar   *chunk = NULL;
    PetscInt       m     = 0;
    PetscBool      ok = PETSC_FALSE, hv = PETSC_FALSE;
    struct stat    st;
    PetscErrorCode ierr = PETSC_SUCCESS;

    f.fd = open(fname, O_RDONLY);
    if (f.fd < 0) {
      res[0] = PETSC_ERR_FILE_OPEN;
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot open PETSc binary file %s: %s", fname, strerror(errno)));
    } else if (fstat(f.fd, &st) || !S_ISREG(st.st_mode)) {
      res[0] = PETSC_ERR_FILE_OPEN;
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot read PETSc binary file %s: not a regular file", fname));
    } else {
      f.size = (PetscInt64)st.st_size;
      ierr   = PetscMalloc1(PROB_BIN_CHUNK, &chunk);
      if (!ierr) {
        if (what == PROB_BIN_MAT) ierr = ProbBinCheckMat_(&f, bs, &m, &hv, chunk, &ok);
        else if (what == PROB_BIN_VEC) ierr = ProbBinCheckVec_(&f, N, "the right-hand side", chunk, &ok);
        else ierr = ProbBinCheckVecs_(&f, N, &m, chunk, &ok);
      }
      PetscCall(PetscFree(chunk));
      if (!ierr && !ok) res[0] = PETSC_ERR_FILE_UNEXPECTED;
      res[1] = ierr;
      res[2] = m;
      res[3] = hv;
    }
    if (f.fd >= 0) (void)close(f.fd);
  }
  PetscCallMPI(MPI_Bcast(res, 4, MPIU_INT64, 0, comm));
  if (res[1]) {
    PetscCheck(!rank, PETSC_COMM_SELF, PETSC_ERR_LIB, "Checking %s failed on rank 0", fname);
    PetscCall((PetscErrorCode)res[1]);
  }
  if (res[0]) {
    PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
    SETERRQ(comm, (PetscErrorCode)res[0], "%s", msg);
  }
  if (M) *M = (PetscInt)res[2];
  if (hasvec) *hasvec = (PetscBool)(res[3] != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProbCheckBinary - checks a PETSc binary file before it is loaded (collective): a matrix (mat, block size bs;
  *M its size, *hasvec whether a vector of M rows follows it) or a vector of N rows (see ProbCheckBinary_())
*/
static PetscErrorCode ProbCheckBinary(MPI_Comm comm, const char fname[], PetscBool mat, PetscInt bs, PetscInt N, PetscInt *M, PetscBool *hasvec)
{
  PetscFunctionBegin;
  PetscCall(ProbCheckBinary_(comm, fname, mat ? PROB_BIN_MAT : PROB_BIN_VEC, bs, N, M, hasvec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local rows of the MatrixMarket matrix c */
static PetscErrorCode ProbFromCSR_(Problem *p, const MMCSR *c)
{
  FVMSystem *s = &p->s;

  PetscFunctionBegin;
  PetscCheck(c->m == c->n && c->m % p->bs == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the matrix is %" PetscInt_FMT " x %" PetscInt_FMT ": it must be square with a multiple of -file_bs %" PetscInt_FMT " rows", p->file, c->m, c->n, p->bs);
  PetscCheck(c->m > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the matrix is 0 x 0: no system to solve", p->file);
  PetscCall(ProbOwnership(p, c->m));
  PetscCall(PetscMalloc1(s->n + 1, &s->ia));
  PetscCall(PetscMalloc1(PetscMax(c->ia[s->rstart + s->n] - c->ia[s->rstart], 1), &s->ja)); /* never NULL */
  PetscCall(PetscMalloc1(PetscMax(c->ia[s->rstart + s->n] - c->ia[s->rstart], 1), &s->va));
  for (PetscInt lr = 0; lr <= s->n; lr++) s->ia[lr] = c->ia[s->rstart + lr] - c->ia[s->rstart];
  PetscCall(PetscArraycpy(s->ja, c->ja + c->ia[s->rstart], s->ia[s->n]));
  PetscCall(PetscArraycpy(s->va, c->a + c->ia[s->rstart], s->ia[s->n]));
  PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "MatrixMarket file %s (%s %s)", p->file, c->field, c->symmetry));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The local file that PETSc's binary viewer would read for name: name itself, or for a compressed (.gz) or
  remote (ftp://, http://, https://, file://) name the file PetscFileRetrieve() makes of it (collective)
*/
static PetscErrorCode ProbLocalFile_(MPI_Comm comm, const char name[], char local[], size_t len)
{
  size_t    n = strlen(name);
  PetscBool found;

  PetscFunctionBegin;
  if ((n > 3 && !strcmp(name + n - 3, ".gz")) || strstr(name, "://")) {
    PetscCall(PetscFileRetrieve(comm, name, local, len, &found));
    PetscCheck(found, comm, PETSC_ERR_FILE_OPEN, "Cannot open PETSc binary file %s: not found, or it cannot be retrieved or uncompressed", name);
  } else PetscCall(PetscStrncpy(local, name, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatLoad() (then VecLoad() when more) of the checked file fname; the caller destroys *v, *A, *b */
static PetscErrorCode ProbLoadBinary_(Problem *p, const char fname[], PetscBool more, PetscViewer *v, Mat *A, Vec *b)
{
  FVMSystem *s = &p->s;

  PetscFunctionBegin;
  PetscCall(PetscViewerCreate(p->comm, v));
  PetscCall(PetscViewerSetType(*v, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetUseMPIIO(*v, PETSC_FALSE));
  PetscCall(PetscViewerFileSetMode(*v, FILE_MODE_READ));
  PetscCall(PetscViewerFileSetName(*v, fname));
  PetscCall(MatCreate(p->comm, A));
  PetscCall(MatSetType(*A, MATAIJ));
  if (p->bs > 1) PetscCall(MatSetBlockSize(*A, p->bs));
  PetscCall(MatLoad(*A, *v));
  PetscCall(MatGetSize(*A, &s->N, NULL));
  PetscCall(MatGetBlockSize(*A, &p->bs));
  PetscCall(ProbSystemFromMatRows(*A, s));
  PetscCall(PetscMalloc1(s->n, &s->rhs));
  if (more) {
    const PetscScalar *ba;
    PetscCall(MatCreateVecs(*A, NULL, b));
    PetscCall(VecLoad(*b, *v));
    PetscCall(VecGetArrayRead(*b, &ba));
    PetscCall(PetscArraycpy(s->rhs, ba, s->n));
    PetscCall(VecRestoreArrayRead(*b, &ba));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecLoad() of the checked right-hand side file fname; the caller destroys *v, *b */
static PetscErrorCode ProbLoadBinaryRHS_(Problem *p, const char fname[], PetscViewer *v, Vec *b)
{
  FVMSystem         *s = &p->s;
  const PetscScalar *ba;

  PetscFunctionBegin;
  PetscCall(PetscViewerBinaryOpen(p->comm, fname, FILE_MODE_READ, v));
  PetscCall(VecCreate(p->comm, b));
  PetscCall(VecSetSizes(*b, s->n, s->N));
  PetscCall(VecSetType(*b, VECSTANDARD));
  PetscCall(VecLoad(*b, *v));
  PetscCall(VecGetArrayRead(*b, &ba));
  PetscCall(PetscArraycpy(s->rhs, ba, s->n));
  PetscCall(VecRestoreArrayRead(*b, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProbLoadNearNullSpace_ - -file_nearnullspace: k vectors of N rows from a PETSc binary file (checked first),
  orthonormalized (modified Gram-Schmidt, two passes) into p->nns; a vector that is zero or a combination of
  the ones before it is an error
*/
static PetscErrorCode ProbLoadNearNullSpace_(Problem *p)
{
  FVMSystem  *s = &p->s;
  PetscViewer v = NULL;
  Vec        *z = NULL;
  PetscInt    k = 0, bad = -1;
  char        fname[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(ProbLocalFile_(p->comm, p->file_nns, fname, sizeof(fname)));
  PetscCall(ProbCheckBinary_(p->comm, fname, PROB_BIN_VECS, 1, s->N, &k, NULL));
  PetscCall(PetscViewerBinaryOpen(p->comm, fname, FILE_MODE_READ, &v));
  PetscCall(PetscCalloc1(k, &z));
  for (PetscInt j = 0; j < k; j++) {
    PetscCall(VecCreate(p->comm, &z[j]));
    PetscCall(VecSetSizes(z[j], s->n, s->N));
    PetscCall(VecSetType(z[j], VECSTANDARD));
    PetscCall(VecLoad(z[j], v));
  }
  PetscCall(PetscViewerDestroy(&v));
  for (PetscInt j = 0; j < k && bad < 0; j++) {
    PetscReal n0, n1;
    PetscCall(VecNorm(z[j], NORM_2, &n0));
    for (PetscInt pass = 0; pass < 2; pass++)
      for (PetscInt i = 0; i < j; i++) {
        PetscScalar d;
        PetscCall(VecDot(z[j], z[i], &d));
        PetscCall(VecAXPY(z[j], -d, z[i]));
      }
    PetscCall(VecNorm(z[j], NORM_2, &n1));
    if (!(n1 > 1e-10 * n0)) bad = j;
    else PetscCall(VecScale(z[j], 1.0 / n1));
  }
  if (bad < 0) {
    PetscCall(PetscMalloc1(k * s->n, &p->nns));
    for (PetscInt j = 0; j < k; j++) {
      const PetscScalar *a;
      PetscCall(VecGetArrayRead(z[j], &a));
      PetscCall(PetscArraycpy(p->nns + j * s->n, a, s->n));
      PetscCall(VecRestoreArrayRead(z[j], &a));
    }
    p->nns_k = k;
  }
  for (PetscInt j = 0; j < k; j++) PetscCall(VecDestroy(&z[j]));
  PetscCall(PetscFree(z));
  PetscCheck(bad < 0, p->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: vector %" PetscInt_FMT " (0-based) of the near-null space is zero or a combination of the vectors before it: give linearly independent vectors", p->file_nns, bad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProbLoadFile - reads A (and b) into the local rows: a PETSc binary file (MatLoad(), then VecLoad() when the
  file holds more after the matrix, or -file_rhs) or a MatrixMarket coordinate file (each process reads the
  file and keeps its rows; -file_rhs: a MatrixMarket vector). Without a right-hand side, b = A x* with
  x*_i = cos(i). Malformed files: an error naming the file and the line (MatrixMarket) or what is wrong
  (PETSc binary: ProbCheckBinary() reads the file before MatLoad() and VecLoad() do). Nothing local leaks on
  an error; what is in p->s is freed by ProblemDestroy().
*/
static PetscErrorCode ProbLoadFile(Problem *p)
{
  FVMSystem     *s = &p->s;
  PetscBool      mm, hasrhs = PETSC_FALSE;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(p->file[0], p->comm, PETSC_ERR_USER_INPUT, "-problem file needs -file <name> (PETSc binary or MatrixMarket .mtx)");
  mm = ProbIsMatrixMarket(p->file);
  PetscCallMPI(MPI_Bcast(&mm, 1, MPI_C_BOOL, 0, p->comm));
  if (mm) {
    MMCSR c;

    PetscCall(MMReadCSR(p->file, &c));
    ierr = ProbFromCSR_(p, &c);
    PetscCall(MMFreeCSR(&c));
    PetscCall(ierr);
  } else {
    Mat         A = NULL;
    PetscViewer v = NULL;
    Vec         b = NULL;
    PetscInt    M;
    PetscBool   more;
    char        fname[PETSC_MAX_PATH_LEN];

    PetscCall(ProbLocalFile_(p->comm, p->file, fname, sizeof(fname)));
    PetscCall(ProbCheckBinary(p->comm, fname, PETSC_TRUE, p->bs, 0, &M, &more));
    PetscCheck(M > 0, p->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the matrix is 0 x 0: no system to solve", fname);
    more = (PetscBool)(more && !p->file_rhs[0]);
    ierr = ProbLoadBinary_(p, fname, more, &v, &A, &b);
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(ierr);
    hasrhs = more;
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "PETSc binary file %s%s", p->file, more ? " (matrix and right-hand side)" : ""));
  }
  if (!s->rhs) PetscCall(PetscMalloc1(s->n, &s->rhs));
  if (p->file_rhs[0]) {
    if (ProbIsMatrixMarket(p->file_rhs)) {
      PetscInt64   m;
      PetscScalar *vals;
      PetscBool    ok;
      char         msg[1024];
      PetscCall(ProbReadMMVector(p->file_rhs, &m, &vals, &ok, msg, sizeof(msg)));
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
      if (m != s->N) {
        PetscCall(PetscFree(vals));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the right-hand side has %" PetscInt64_FMT " rows, the matrix %" PetscInt_FMT, p->file_rhs, m, s->N);
      }
      PetscCall(PetscArraycpy(s->rhs, vals + s->rstart, s->n));
      PetscCall(PetscFree(vals));
    } else {
      Vec         b = NULL;
      PetscViewer v = NULL;
      char        fname[PETSC_MAX_PATH_LEN];
      PetscCall(ProbLocalFile_(p->comm, p->file_rhs, fname, sizeof(fname)));
      PetscCall(ProbCheckBinary(p->comm, fname, PETSC_FALSE, 1, s->N, NULL, NULL));
      ierr = ProbLoadBinaryRHS_(p, fname, &v, &b);
      PetscCall(VecDestroy(&b));
      PetscCall(PetscViewerDestroy(&v));
      PetscCall(ierr);
    }
    hasrhs = PETSC_TRUE;
    PetscCall(PetscStrlcat(p->desc, ", right-hand side from ", sizeof(p->desc)));
    PetscCall(PetscStrlcat(p->desc, p->file_rhs, sizeof(p->desc)));
  }
  if (p->file_nns[0]) {
    char nd[PETSC_MAX_PATH_LEN + 96];
    PetscCall(ProbLoadNearNullSpace_(p));
    PetscCall(PetscSNPrintf(nd, sizeof(nd), ", near-null space of %" PetscInt_FMT " vectors from %s", p->nns_k, p->file_nns));
    PetscCall(PetscStrlcat(p->desc, nd, sizeof(p->desc)));
  }
  PetscCall(ProbCountDiagOff(p));
  if (!hasrhs && p->rhs == PROB_RHS_PROBLEM) {
    p->rhs = PROB_RHS_COSINE;
    PetscCall(PetscStrlcat(p->desc, ", no right-hand side in the file: b = A x*, x*_i = cos(i)", sizeof(p->desc)));
  }
  p->expected_N = p->expected_nblocks = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* options, generation                                                                               */

static PetscErrorCode ProblemInitialize(MPI_Comm comm, Problem *p)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->comm          = comm;
  p->type          = PROB_MAGNETRON;
  p->dim           = 3;
  p->nx = p->ny = p->nz = 16;
  p->seed          = 1;
  p->bs            = 1;
  p->rhs           = PROB_RHS_PROBLEM;
  p->bc            = FVM_BC_DIRICHLET;
  p->contrast      = 1e3;
  p->bubble_radius = 0.1;
  p->subsamples    = 4;
  p->layer         = PETSC_TRUE;
  p->h_mm          = 1.0;
  p->chi_max       = 0.0;
  p->rho_max       = 1.0;
  p->target_radius = 20.0;
  p->v_target      = -200.0;
  p->eps           = 1e-3;
  p->eps_z         = 1.0;
  p->theta         = 0.0;
  p->jump          = 1e4;
  p->jump_blocks   = 4;
  p->peclet        = 100.0;
  p->upwind        = PETSC_TRUE;
  p->re            = 100.0;
  p->lid           = 1.0;
  p->guess         = PROB_GUESS_ZERO;
  p->sigma         = 1.0;
  p->prandtl       = 1.0;
  p->grashof       = 1.0;
  p->lidvelocity   = -1; /* ex19's default 1/(mx my) */
  p->jaccheck      = -1;
  PetscCall(FVMMeshInitialize(&p->mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProblemSetFromOptions - reads -problem and the options of that problem (see the help of problems.c)
*/
static PetscErrorCode ProblemSetFromOptions(Problem *p)
{
  PetscInt  n   = -1;
  PetscBool set = PETSC_FALSE, flg;

  PetscFunctionBegin;
  PetscOptionsBegin(p->comm, NULL, "Problem suite", "");
  PetscCall(PetscOptionsEnum("-problem", "Problem to generate", "", ProbTypes, (PetscEnum)p->type, (PetscEnum *)&p->type, NULL));
  PetscCall(PetscOptionsEnum("-rhs", "Right-hand side: the problem's own, b = A x* with x*_i = cos(i), or random", "", ProbRHSTypes, (PetscEnum)p->rhs, (PetscEnum *)&p->rhs, NULL));
  if (p->type != PROB_FVM) {
    PetscCall(PetscOptionsInt("-seed", "Seed of the random parts (bubbles, coefficients, right-hand side)", "", p->seed, &p->seed, NULL));
    PetscCall(PetscOptionsRangeInt("-dim", "Dimension (twophase, aniso, jump, convdiff, blockdiff)", "", p->dim, &p->dim, NULL, 2, 3));
    PetscCall(PetscOptionsInt("-n", "Cells (finite volumes) or nodes per direction", "", n, &n, &set));
    if (set) p->nx = p->ny = p->nz = n;
    PetscCall(PetscOptionsInt("-nx", "Cells or nodes along x", "", p->nx, &p->nx, NULL));
    PetscCall(PetscOptionsInt("-ny", "Cells or nodes along y", "", p->ny, &p->ny, NULL));
    PetscCall(PetscOptionsInt("-nz", "Cells or nodes along z (3D)", "", p->nz, &p->nz, NULL));
  }
  switch (p->type) {
  case PROB_TWOPHASE:
    p->bc  = FVM_BC_MIXED;
    if (p->rhs == PROB_RHS_PROBLEM) p->rhs = PROB_RHS_COSINE;
    PetscCall(PetscOptionsReal("-contrast", "Density ratio water / air (Gupta, van Gijzen and Vuik (2011): 1e3)", "", p->contrast, &p->contrast, NULL));
    PetscCall(PetscOptionsBool("-layer", "Air above the middle of the box (Gupta, van Gijzen and Vuik (2011), section 2.1: interface in the middle)", "", p->layer, &p->layer, NULL));
    PetscCall(PetscOptionsRangeInt("-bubbles", "Number of air bubbles in the water (section 2.2)", "", p->bubbles, &p->bubbles, NULL, 0, PROB_MAX_BUBBLES));
    PetscCall(PetscOptionsReal("-bubble_radius", "Radius of the bubbles", "", p->bubble_radius, &p->bubble_radius, NULL));
    PetscCall(PetscOptionsRangeInt("-subsamples", "Sample points per direction in a cell cut by an interface (volume fraction of air)", "", p->subsamples, &p->subsamples, NULL, 1, 64));
    PetscCall(PetscOptionsEnum("-bc", "mixed: Dirichlet (p = 0) on the top side, Neumann on the others; dirichlet: every side", "", FVMBCTypes, (PetscEnum)p->bc, (PetscEnum *)&p->bc, NULL));
    break;
  case PROB_MAGNETRON:
    PetscCall(PetscOptionsReal("-h_mm", "Grid spacing in mm (1, 0.5, 0.25: the paper's 59x59x29, 119x119x59, 239x239x119)", "", p->h_mm, &p->h_mm, NULL));
    PetscCall(PetscOptionsReal("-chi_max", "Peak electric susceptibility chi of the model plasma (0: vacuum permittivity everywhere)", "", p->chi_max, &p->chi_max, NULL));
    PetscCall(PetscOptionsReal("-rho_max", "Peak space charge rho/eps0 of the model plasma, V/mm^2", "", p->rho_max, &p->rho_max, NULL));
    PetscCall(PetscOptionsReal("-target_radius", "Radius of the target disc on the bottom wall, mm", "", p->target_radius, &p->target_radius, NULL));
    PetscCall(PetscOptionsReal("-v_target", "Potential of the target, V", "", p->v_target, &p->v_target, NULL));
    break;
  case PROB_ANISO:
    PetscCall(PetscOptionsReal("-epsilon", "Anisotropy: diffusion eps across the main direction", "", p->eps, &p->eps, NULL));
    PetscCall(PetscOptionsReal("-epsilon_z", "Diffusion along z (3D)", "", p->eps_z, &p->eps_z, NULL));
    PetscCall(PetscOptionsReal("-theta", "Angle of the main direction with the x axis, degrees (not a multiple of 90: 9-point coupling in x-y)", "", p->theta, &p->theta, NULL));
    break;
  case PROB_JUMP:
    PetscCall(PetscOptionsReal("-jump", "Coefficient ratio", "", p->jump, &p->jump, NULL));
    PetscCall(PetscOptionsRangeInt("-jump_blocks", "Blocks of constant coefficient per direction", "", p->jump_blocks, &p->jump_blocks, NULL, 1, PETSC_INT_MAX));
    PetscCall(PetscOptionsBool("-jump_random", "Random coefficient jump^U, U uniform in [0,1), per block (else a 1 / jump checkerboard)", "", p->jump_random, &p->jump_random, NULL));
    PetscCall(PetscOptionsEnum("-bc", "dirichlet: every side; mixed: Dirichlet on the top side, Neumann on the others", "", FVMBCTypes, (PetscEnum)p->bc, (PetscEnum *)&p->bc, NULL));
    break;
  case PROB_CONVDIFF:
    PetscCall(PetscOptionsReal("-peclet", "Largest wind speed (the Peclet number of the unit box)", "", p->peclet, &p->peclet, NULL));
    PetscCall(PetscOptionsBool("-upwind", "Upwind convection (M-matrix); false: central", "", p->upwind, &p->upwind, NULL));
    break;
  case PROB_VORTICITY:
    p->nx = p->ny = p->nz = set ? n : 32;
    PetscCall(PetscOptionsReal("-reynolds", "Reynolds number", "", p->re, &p->re, NULL));
    PetscCall(PetscOptionsReal("-lid", "Lid velocity", "", p->lid, &p->lid, NULL));
    PetscCall(PetscOptionsEnum("-vorticity_guess", "State of the Newton step: fluid at rest, or an analytic vortex", "", ProbGuessTypes, (PetscEnum)p->guess, (PetscEnum *)&p->guess, NULL));
    break;
  case PROB_BLOCKDIFF:
    p->bs = 5;
    PetscCall(PetscOptionsRangeInt("-bs", "Fields per node", "", p->bs, &p->bs, NULL, 1, 5));
    PetscCall(PetscOptionsReal("-sigma", "Strength of the nonsymmetric reaction coupling", "", p->sigma, &p->sigma, NULL));
    break;
  case PROB_CAVITY:
    PetscCall(PetscOptionsReal("-lidvelocity", "ex19: lid velocity (default 1/(nx ny), as ex19)", "", p->lidvelocity, &p->lidvelocity, NULL));
    PetscCall(PetscOptionsReal("-prandtl", "ex19: Prandtl number", "", p->prandtl, &p->prandtl, NULL));
    PetscCall(PetscOptionsReal("-grashof", "ex19: Grashof number", "", p->grashof, &p->grashof, NULL));
    break;
  case PROB_FILE:
    PetscCall(PetscOptionsString("-file", "Matrix file: PETSc binary (A, optionally followed by b) or MatrixMarket coordinate (.mtx)", "", p->file, p->file, sizeof(p->file), NULL));
    PetscCall(PetscOptionsString("-file_rhs", "Right-hand side file: MatrixMarket (array, or coordinate with one column) or PETSc binary", "", p->file_rhs, p->file_rhs, sizeof(p->file_rhs), NULL));
    PetscCall(PetscOptionsRangeInt("-file_bs", "Block size of the matrix read", "", p->bs, &p->bs, &flg, 1, 64));
    PetscCall(PetscOptionsString("-file_nearnullspace", "Near-null space: a PETSc binary file of vectors (e.g. the rigid-body modes of elasticity), orthonormalized and attached to the matrix with MatSetNearNullSpace() (PCGAMG uses it)", "", p->file_nns, p->file_nns, sizeof(p->file_nns), NULL));
    PetscCall(PetscOptionsBool("-file_spd", "The system read is symmetric positive definite (true: CG by default, -check verifies symmetry) or nonsymmetric (false: GMRES, -check verifies that)", "", p->file_spd, &p->file_spd, &p->file_spd_set));
    break;
  default:
    break;
  }
  PetscOptionsEnd();
  if (p->type == PROB_FVM) {
    PetscCall(FVMMeshSetFromOptions(p->comm, NULL, &p->mesh));
    p->seed = p->mesh.seed;
  }
  if (p->type == PROB_MAGNETRON) {
    const PetscReal fx = 60.0 / p->h_mm, fz = 30.0 / p->h_mm;
    PetscCheck(p->h_mm > 0 && PetscAbsReal(fx - PetscFloorReal(fx + 0.5)) < 1e-9 * fx && PetscAbsReal(fz - PetscFloorReal(fz + 0.5)) < 1e-9 * fz && fz >= 2, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-h_mm %g must divide 30 mm at least twice", (double)p->h_mm);
    p->nx = p->ny = (PetscInt)PetscFloorReal(fx + 0.5) - 1;
    p->nz         = (PetscInt)PetscFloorReal(fz + 0.5) - 1;
    p->dim        = 3;
  }
  if (p->type == PROB_VORTICITY || p->type == PROB_CAVITY) p->dim = 2;
  if (p->dim == 2) p->nz = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b = A x* with x*_i = cos(i) (the global rows of the local CSR), or a random b */
static PetscErrorCode ProbSetRHS(Problem *p)
{
  FVMSystem *s = &p->s;

  PetscFunctionBegin;
  if (p->rhs == PROB_RHS_COSINE) {
    PetscCall(PetscMalloc1(s->n, &p->xexact));
    for (PetscInt lr = 0; lr < s->n; lr++) {
      PetscScalar b = 0;
      for (PetscInt e = s->ia[lr]; e < s->ia[lr + 1]; e++) b += s->va[e] * PetscCosReal((PetscReal)s->ja[e]);
      s->rhs[lr]     = b;
      p->xexact[lr] = PetscCosReal((PetscReal)(s->rstart + lr));
    }
  } else if (p->rhs == PROB_RHS_RANDOM) {
    for (PetscInt lr = 0; lr < s->n; lr++) s->rhs[lr] = 2.0 * ProbUniform(p, 0x52485321ULL, (uint64_t)(s->rstart + lr)) - 1.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProblemGenerate - builds the local rows, the right-hand side, the description and the claims
*/
static PetscErrorCode ProblemGenerate(Problem *p)
{
  const PetscInt nx = p->nx, ny = p->ny, nz = p->nz, d = p->dim;
  PetscInt64     N  = (PetscInt64)nx * ny * nz;
  char           grid[96];

  PetscFunctionBegin;
  if (d == 2) PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT " x %" PetscInt_FMT, nx, ny));
  else PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, nx, ny, nz));
  p->expected_N       = -1;
  p->expected_nblocks = -1;
  p->claim_posdiag    = PETSC_TRUE;
  if (p->type != PROB_FVM && p->type != PROB_FILE) {
    PetscCheck(nx >= 1 && ny >= 1 && nz >= 1, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": every size must be at least 1", nx, ny, nz);
    PetscCheck(N * p->bs <= PETSC_INT_MAX, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt64_FMT " unknowns do not fit in PetscInt", N * p->bs);
  }
  switch (p->type) {
  case PROB_FVM: {
    FVMMesh *m = &p->mesh;
    PetscCall(FVMMeshSetUp(m));
    PetscCall(FVMMeshCreateSystem(m, p->comm, &p->s));
    p->expected_N = 0;
    for (PetscInt64 k = 0; k < m->nz; k++)
      for (PetscInt64 j = 0; j < m->ny; j++) p->expected_N += (PetscInt64)m->nx * m->ref[FVMMeshRowType(m, j, k)].nsub;
    p->claim_symmetric = p->claim_mmatrix = p->claim_zerosum = p->claim_dirpositive = p->spd = PETSC_TRUE;
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "FVM Poisson (Wikberg (2024), ch. 2) on an unstructured mesh: %" PetscInt_FMT " %s cells from a %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, jitter %g, %s numbering, %s boundaries (%s), flux %s, max non-orthogonality %.0f degrees", p->s.N, FVMCellTypes[m->cell], m->nx, m->ny, m->nz, (double)m->jitter,
                            m->permute ? "random" : "structured", m->bc == FVM_BC_MIXED ? "mixed" : "Dirichlet", m->bc == FVM_BC_MIXED ? "x = 0 Dirichlet, the other sides Neumann" : "every side", FVMFluxTypes[m->flux], (double)p->s.max_nonortho));
  } break;
  case PROB_TWOPHASE: {
    PetscCheck(p->contrast > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-contrast must be positive");
    PetscCheck(!p->bubbles || (p->bubble_radius > 0 && p->bubble_radius < (p->layer ? 0.25 : 0.5)), p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bubble_radius %g must be in (0, %g)", (double)p->bubble_radius, p->layer ? 0.25 : 0.5);
    for (PetscInt b = 0; b < p->bubbles; b++)
      for (PetscInt a = 0; a < d; a++) {
        const PetscReal top = (p->layer && a == d - 1) ? 0.5 : 1.0; /* bubbles in the water */
        p->bubble_centre[b][a] = p->bubble_radius + (top - 2 * p->bubble_radius) * ProbUniform(p, 0x42554242ULL, (uint64_t)(3 * b + a));
      }
    PetscCall(ProbBuildRows(p, (PetscInt)N, 2 * d + 1, FVRow));
    p->expected_N      = N;
    p->claim_symmetric = p->claim_mmatrix = p->claim_zerosum = p->claim_dirpositive = p->spd = PETSC_TRUE;
    /* faces inside the air (k = contrast) and inside the water (k = 1), on a grid of cubes */
    if (p->layer && (d == 2 ? ny : nz) >= 4 && nx == ny && (d == 2 || nz == nx)) p->claim_ratio = p->contrast;
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "two-phase Poisson (Gupta, van Gijzen and Vuik (2011), section 2), %" PetscInt_FMT "D, %s cells, density ratio %g, %s%" PetscInt_FMT " bubble%s of radius %g, %s", d, grid, (double)p->contrast, p->layer ? "air above the middle, " : "", p->bubbles, p->bubbles == 1 ? "" : "s", (double)p->bubble_radius,
                            p->bc == FVM_BC_MIXED ? "p = 0 on the top side, Neumann on the others" : "Dirichlet on every side"));
  } break;
  case PROB_MAGNETRON:
    PetscCall(ProbBuildRows(p, (PetscInt)N, 7, MagnetronRow));
    p->expected_N      = N;
    p->claim_symmetric = p->claim_mmatrix = p->claim_zerosum = p->claim_dirpositive = p->spd = PETSC_TRUE;
    if (p->rho_max == 0 && p->rhs == PROB_RHS_PROBLEM) {
      p->claim_maxprinciple = PETSC_TRUE;
      p->mp_lo              = PetscMin(0, p->v_target);
      p->mp_hi              = PetscMax(0, p->v_target);
    }
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "magnetron potential (Shioya (2022), eq. 2.1.14, sections 4.4 / 5.4): 60 x 60 x 30 mm, h = %g mm, %s interior nodes, 7-point, Dirichlet walls (target %g V, radius %g mm), chi_max %g, rho_max %g V/mm^2", (double)p->h_mm, grid, (double)p->v_target, (double)p->target_radius, (double)p->chi_max, (double)p->rho_max));
    break;
  case PROB_ANISO: {
    const PetscReal t = p->theta * PETSC_PI / 180.0, c = PetscCosReal(t), sn = PetscSinReal(t);
    p->kxx = c * c + p->eps * sn * sn;
    p->kyy = sn * sn + p->eps * c * c;
    p->kxy = (1 - p->eps) * c * sn;
    if (PetscAbsReal(p->kxy) < 1e-14) p->kxy = 0;
    p->kzz = p->eps_z;
    PetscCheck(p->eps > 0 && p->eps_z > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-epsilon and -epsilon_z must be positive");
    PetscCall(ProbBuildRows(p, (PetscInt)N, 2 * d + 1 + 4, AnisoRow));
    p->expected_N      = N;
    p->claim_symmetric = p->claim_zerosum = p->spd = PETSC_TRUE;
    p->claim_mmatrix = p->claim_dirpositive = (PetscBool)(p->kxy == 0);
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "anisotropic diffusion, %" PetscInt_FMT "D, %s interior nodes, eps %g, theta %g degrees%s, Dirichlet", d, grid, (double)p->eps, (double)p->theta, p->kxy != 0 ? " (9-point coupling in x-y)" : ""));
    if (d == 3) {
      char ez[64];
      PetscCall(PetscSNPrintf(ez, sizeof(ez), ", eps_z %g", (double)p->eps_z));
      PetscCall(PetscStrlcat(p->desc, ez, sizeof(p->desc)));
    }
  } break;
  case PROB_JUMP:
    PetscCheck(p->jump > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-jump must be positive");
    PetscCall(ProbBuildRows(p, (PetscInt)N, 2 * d + 1, FVRow));
    p->expected_N      = N;
    p->claim_symmetric = p->claim_mmatrix = p->claim_zerosum = p->claim_dirpositive = p->spd = PETSC_TRUE;
    if (!p->jump_random && p->jump_blocks >= 2 && nx == ny && (d == 2 || nz == nx) && nx >= 2 * p->jump_blocks && ny >= 2 * p->jump_blocks && (d == 2 || nz >= 2 * p->jump_blocks)) p->claim_ratio = PetscMax(p->jump, 1.0 / p->jump);
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "jump coefficients, %" PetscInt_FMT "D, %s cells, %" PetscInt_FMT "^%" PetscInt_FMT " blocks, %s %g, %s", d, grid, p->jump_blocks, d, p->jump_random ? "random coefficients up to" : "checkerboard 1 /", (double)p->jump, p->bc == FVM_BC_MIXED ? "Dirichlet on the top side, Neumann on the others" : "Dirichlet"));
    break;
  case PROB_CONVDIFF:
    PetscCall(ProbBuildRows(p, (PetscInt)N, 2 * d + 1, FVRow));
    p->expected_N         = N;
    p->claim_nonsymmetric = (PetscBool)(p->peclet != 0);
    p->claim_zerosum      = PETSC_TRUE;
    p->claim_mmatrix = p->claim_dirpositive = p->upwind;
    p->spd                                  = (PetscBool)(p->peclet == 0);
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "convection-diffusion, %" PetscInt_FMT "D, %s cells, recirculating wind, Peclet %g, %s convection, Dirichlet", d, grid, (double)p->peclet, p->upwind ? "upwind" : "central"));
    break;
  case PROB_VORTICITY:
    PetscCheck(nx >= 3 && nx == ny, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-problem vorticity needs a square grid of at least 3 x 3 nodes (-n)");
    p->bs = 3;
    PetscCall(ProbBuildRows(p, (PetscInt)(3 * N), 15, VorticityRow));
    p->expected_N         = 3 * N;
    p->expected_nblocks   = 5 * N - 4 * (PetscInt64)nx;
    p->claim_nonsymmetric = PETSC_TRUE;
    p->claim_posdiag      = PETSC_TRUE;
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "velocity-vorticity driven cavity (Ma et al. (2021), section 4.4), %s nodes, (u, v, omega): block size 3, Re %g, lid %g, Jacobian of the first Newton step from the %s state", grid, (double)p->re, (double)p->lid, p->guess == PROB_GUESS_ZERO ? "resting" : "vortex"));
    break;
  case PROB_BLOCKDIFF: {
    const PetscInt bs = p->bs;
    PetscCheck(nx == ny && (d == 2 || nz == nx), p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-problem blockdiff needs the same number of nodes along each axis (-n)");
    /* D: symmetric, strictly diagonally dominant (SPD); R: nonsymmetric, unit diagonal */
    for (PetscInt c = 0; c < bs; c++)
      for (PetscInt e = 0; e < bs; e++) {
        const PetscInt lo = PetscMin(c, e), hi = PetscMax(c, e);
        p->D[c * bs + e] = c == e ? 0 : ProbUniform(p, 0x44ULL, (uint64_t)(lo * 5 + hi)) - 0.5;
        p->R[c * bs + e] = c == e ? 1 : 2 * ProbUniform(p, 0x52ULL, (uint64_t)(c * 5 + e)) - 1;
      }
    for (PetscInt c = 0; c < bs; c++) {
      PetscReal off = 0;
      for (PetscInt e = 0; e < bs; e++)
        if (e != c) off += PetscAbsReal(p->D[c * bs + e]);
      p->D[c * bs + c] = 1 + off;
    }
    PetscCall(ProbBuildRows(p, (PetscInt)(bs * N), bs * (2 * d + 1), BlockDiffRow));
    p->expected_N         = bs * N;
    p->expected_nblocks   = N + 2 * (PetscInt64)d * (N / nx) * (nx - 1);
    p->claim_nonsymmetric = (PetscBool)(bs > 1 && p->sigma != 0);
    p->claim_symmetric    = (PetscBool)(bs == 1 || p->sigma == 0);
    p->spd                = p->claim_symmetric;
    PetscCall(PetscSNPrintf(p->desc, sizeof(p->desc), "coupled reaction-diffusion, %" PetscInt_FMT "D, %s interior nodes, %" PetscInt_FMT " fields per node (block size %" PetscInt_FMT "), sigma %g, Dirichlet", d, grid, bs, bs, (double)p->sigma));
  } break;
  case PROB_CAVITY:
#if defined(PROBLEMS_HAVE_EX19)
    p->bs = 4;
    PetscCall(ProbCavityJacobian(p, p->check));
    p->expected_N         = 4 * N;
    p->expected_nblocks   = 5 * N - 2 * (PetscInt64)(nx + ny);
    p->claim_nonsymmetric = PETSC_TRUE;
    p->claim_posdiag      = PETSC_FALSE; /* ex19's rows as they are (the temperature rows of the side walls are not scaled) */
#else
    SETERRQ(p->comm, PETSC_ERR_SUP, "-problem cavity needs PETSc's snes/tutorials/ex19.c, which was not found next to PETSc's include directory when this program was compiled");
#endif
    break;
  case PROB_FILE:
    PetscCall(ProbLoadFile(p));
    p->claim_posdiag = PETSC_FALSE;
    if (p->file_spd_set) {
      p->spd = p->claim_symmetric = p->claim_posdiag = p->file_spd;
      p->claim_nonsymmetric                          = (PetscBool)!p->file_spd;
    }
    break;
  }
  PetscCall(ProbSetRHS(p));
  {
    PetscInt64 nz = p->s.ia[p->s.n];
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nz, 1, MPIU_INT64, MPI_SUM, p->comm));
    p->nnz = nz;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemDestroy(Problem *p)
{
  PetscFunctionBegin;
  PetscCall(FVMSystemDestroy(&p->s));
  PetscCall(FVMMeshDestroy(&p->mesh));
  PetscCall(PetscFree(p->xexact));
  PetscCall(PetscFree(p->nns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemSetVec(const Problem *p, const PetscScalar *local, Vec v)
{
  PetscScalar *a;
  PetscInt     lo, hi;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCheck(lo == p->s.rstart && hi - lo == p->s.n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vector rows [%" PetscInt_FMT ",%" PetscInt_FMT ") differ from the system's", lo, hi);
  PetscCall(VecGetArrayWrite(v, &a));
  PetscCall(PetscArraycpy(a, local, p->s.n));
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  ProblemCreateMat - creates and assembles the matrix: type deftype unless -<prefix>mat_type says otherwise,
  block size bs, exact preallocation for AIJ, BAIJ and SELL types, one MatSetValues() per row; the problem's
  near-null space (-file_nearnullspace), if any, attached with MatSetNearNullSpace()
*/
static PetscErrorCode ProblemCreateMat(const Problem *p, const char prefix[], MatType deftype, Mat *A)
{
  const FVMSystem *s  = &p->s;
  const PetscInt   bs = p->bs, nb = s->n / bs;
  PetscInt        *bd, *bo;

  PetscFunctionBegin;
  PetscCall(MatCreate(p->comm, A));
  PetscCall(MatSetSizes(*A, s->n, s->n, s->N, s->N));
  if (bs > 1) PetscCall(MatSetBlockSize(*A, bs));
  if (prefix) PetscCall(MatSetOptionsPrefix(*A, prefix));
  PetscCall(MatSetType(*A, deftype));
  PetscCall(MatSetFromOptions(*A));
  /* block counts: distinct block columns of each block row, in and outside the diagonal block */
  PetscCall(PetscMalloc2(nb, &bd, nb, &bo));
  for (PetscInt ib = 0; ib < nb; ib++) {
    if (bs == 1) {
      bd[ib] = s->dnnz[ib];
      bo[ib] = s->onnz[ib];
    } else {
      PetscInt last = -1, cnt[2] = {0, 0};
      PetscInt nall = s->ia[(ib + 1) * bs] - s->ia[ib * bs], *bc;
      PetscCall(PetscMalloc1(nall, &bc));
      for (PetscInt e = 0; e < nall; e++) bc[e] = s->ja[s->ia[ib * bs] + e] / bs;
      PetscCall(PetscSortInt(nall, bc));
      for (PetscInt e = 0; e < nall; e++)
        if (bc[e] != last) {
          last = bc[e];
          cnt[(bc[e] >= s->rstart / bs && bc[e] < (s->rstart + s->n) / bs) ? 0 : 1]++;
        }
      PetscCall(PetscFree(bc));
      bd[ib] = cnt[0];
      bo[ib] = cnt[1];
    }
  }
  PetscCall(MatXAIJSetPreallocation(*A, bs, bd, bo, NULL, NULL));
  PetscCall(PetscFree2(bd, bo));
  PetscCall(MatSeqSELLSetPreallocation(*A, 0, s->dnnz));
  PetscCall(MatMPISELLSetPreallocation(*A, 0, s->dnnz, 0, s->onnz));
  PetscCall(MatSetOption(*A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (PetscInt lr = 0; lr < s->n; lr++) {
    const PetscInt row = s->rstart + lr;
    PetscCall(MatSetValues(*A, 1, &row, s->ia[lr + 1] - s->ia[lr], s->ja + s->ia[lr], s->va + s->ia[lr], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (p->nns_k) {
    Vec         *z;
    MatNullSpace nsp;
    PetscCall(PetscMalloc1(p->nns_k, &z));
    for (PetscInt j = 0; j < p->nns_k; j++) {
      PetscCall(MatCreateVecs(*A, &z[j], NULL));
      PetscCall(ProblemSetVec(p, p->nns + j * s->n, z[j]));
    }
    PetscCall(MatNullSpaceCreate(p->comm, PETSC_FALSE, p->nns_k, z, &nsp));
    PetscCall(MatSetNearNullSpace(*A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    for (PetscInt j = 0; j < p->nns_k; j++) PetscCall(VecDestroy(&z[j]));
    PetscCall(PetscFree(z));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
