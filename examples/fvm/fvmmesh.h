/*
   fvmmesh.h - a generator of unstructured 3D finite-volume meshes and the assembly of the implicit
   FVM Laplacian on them (Wikberg (2024), chapter 2), in one header of static functions so that several
   programs (the fvmpoisson example, a problem suite, benchmarks) can share it.

   The mesh
   --------
   A box [0,1]^3 is cut into nx x ny x nz hexahedra ("structured cells"); every vertex not on the
   boundary of the box is moved by a random amount (at most jitter x spacing along each axis), so the
   cells are non-orthogonal: the face normals are not parallel to the centroid-to-centroid vectors.
   Each structured cell is either kept as a hexahedron, or split into 2 triangular prisms (by the
   vertical plane through its (x,y) diagonal) or into 6 tetrahedra (Kuhn / Freudenthal split along
   the main diagonal). With -cell mixed every row of structured cells along x gets a random kind,
   so hexahedra, prisms and tetrahedra touch each other. All splits cut a square face of a
   structured cell along the same diagonal (from its lowest to its highest corner), so the mesh
   is conforming: where a tetrahedron meets the square face of a hexahedron, that face is treated
   as two triangles and the hexahedron becomes a polyhedron with 7 to 12 faces (FVM needs no
   more). The number of neighbours of a cell therefore varies with -cell mixed.

   Geometry: the area vector of a quadrilateral face (planar or not) is half the cross product of its
   diagonals, of a triangle half the cross product of two edges; the two cells of a face compute it
   from the same vertices in the same order, so it is bitwise the same on both sides. The volume and
   the centroid of a cell are summed over the tetrahedra spanned by the mean of its vertices and its
   face triangles (quadrilaterals are fanned around the mean of their vertices, as both neighbours do,
   so the cells tile the box). A boundary face's areal centre is the area-weighted centroid of that fan.

   Numbering: the cells of a structured cell are consecutive in the "natural" numbering, which runs
   through the grid x fastest. The unknowns are then numbered by a pseudo-random permutation of the
   natural numbering (a 4-round Feistel network keyed by -seed, cycle-walked onto [0,N)): the rows
   of the matrix have no geometric order, as with a mesh from an unstructured mesh generator. The
   permutation and its inverse, the vertex coordinates and the kinds of cells are all computed on
   demand from the seed, so every process builds its own contiguous block of rows in O(n/p) time
   and memory, and the matrix does not depend on the number of processes.

   The discretisation of -div(grad p) = q
   ---------------------------------------
   Row P:   sum_f a_f (p_P - p_N) + sum_{Dirichlet b} a_b p_P
          = q(x_P) V_P + sum_{Dirichlet b} a_b p_D(x_b) + sum_{Neumann b} grad p_D . s_b
   with s the outward area vector of the face and d the vector from the centroid of P to the centroid
   of N (or to the areal centre of the boundary face). The face coefficient a_f (-flux):
     twopoint     |s| / |d|            Wikberg (2024), eq. (2.9): the orthogonal-correction split (default)
     minimum      (s . d) / |d|^2      minimum-correction split (smaller coefficient)
     overrelaxed  |s|^2 / (s . d)      over-relaxed split (larger coefficient)
   The explicit non-orthogonal correction is not added to the right-hand side (it does not change
   the matrix). Every a_f is computed from quantities that are the same, bitwise, for both cells of
   the face, so A is exactly symmetric; a_f > 0 needs s . d > 0, which is checked (a mesh so distorted
   that it fails is rejected with an error). A has a positive diagonal, non-positive off-diagonals,
   zero row sums on rows without a Dirichlet face and positive row sums on rows with one: with one
   Dirichlet face at least it is SPD (Wikberg (2024), section 2.2.1).

   Boundary data come from one linear function, p_D(x,y,z) = x + 2y + 3z: its values on Dirichlet
   faces and its normal derivative on Neumann faces. -bc dirichlet makes all six sides of the box
   Dirichlet, -bc mixed only the side x = 0. With -source zero the exact solution is p_D, which the
   two-point scheme reproduces exactly on an orthogonal mesh (hexahedra without jitter).
*/
#pragma once

#include <petscmat.h>
#include <stdint.h>

typedef enum {
  FVM_CELL_HEX,
  FVM_CELL_PRISM,
  FVM_CELL_TET,
  FVM_CELL_MIXED
} FVMCellType;
static const char *const FVMCellTypes[] = {"hex", "prism", "tet", "mixed", "FVMCellType", "FVM_CELL_", NULL};

typedef enum {
  FVM_BC_DIRICHLET,
  FVM_BC_MIXED
} FVMBCType;
static const char *const FVMBCTypes[] = {"dirichlet", "mixed", "FVMBCType", "FVM_BC_", NULL};

typedef enum {
  FVM_FLUX_TWOPOINT,
  FVM_FLUX_MINIMUM,
  FVM_FLUX_OVERRELAXED
} FVMFluxType;
static const char *const FVMFluxTypes[] = {"twopoint", "minimum", "overrelaxed", "FVMFluxType", "FVM_FLUX_", NULL};

typedef enum {
  FVM_SOURCE_SINE,
  FVM_SOURCE_RANDOM,
  FVM_SOURCE_ZERO
} FVMSourceType;
static const char *const FVMSourceTypes[] = {"sine", "random", "zero", "FVMSourceType", "FVM_SOURCE_", NULL};

#define FVM_MAX_SUB   6  /* cells per structured cell (tetrahedra) */
#define FVM_MAX_REFF  6  /* faces per cell in the reference tables (hexahedron) */
#define FVM_MAX_FACES 12 /* faces of a cell once square faces are split (hexahedron with six split faces) */
#define FVM_PIPE      16 /* rows built ahead in FVMMeshCreateSystem(), to prefetch their neighbours' centroids */

enum {
  FVM_HALF_WHOLE, /* the whole square face of a structured cell */
  FVM_HALF_T0,    /* its triangle holding the corner (1,0) in the face's tangential coordinates */
  FVM_HALF_T1     /* its triangle holding the corner (0,1) */
};

/* One face of a cell of a reference structured cell (corners numbered c = x + 2y + 4z, x,y,z in {0,1}) */
typedef struct {
  PetscInt nv, v[4];         /* corners of the face, in its canonical orientation */
  PetscInt nb;               /* >= 0: face shared with cell nb of the same structured cell; -1: on a square face */
  PetscInt dir, side, half;  /* square face (normal axis, low 0 / high 1) and which part of it */
  PetscInt sigma;            /* +1: the canonical orientation points out of this cell, -1: into it */
} FVMRefFace;

/* How one kind of structured cell is cut into cells */
typedef struct {
  PetscInt   nsub;                    /* number of cells */
  PetscInt   nc[FVM_MAX_SUB];         /* corners of each cell */
  PetscInt   c[FVM_MAX_SUB][8];
  PetscInt   nf[FVM_MAX_SUB];         /* faces of each cell */
  FVMRefFace f[FVM_MAX_SUB][FVM_MAX_REFF];
  PetscInt   owner[3][2][3];          /* [dir][side][half]: the cell holding that part of a square face */
  PetscBool  splits[3];               /* whether the square faces normal to dir are cut into triangles */
} FVMRefCell;

/*S
   FVMMesh - parameters and derived tables of a generated unstructured FVM mesh (see the top of fvmmesh.h)
S*/
typedef struct {
  PetscInt      nx, ny, nz;  /* structured cells along each axis */
  FVMCellType   cell;        /* kind of cells */
  PetscReal     jitter;      /* largest move of an interior vertex along an axis, in grid spacings */
  PetscInt      seed;        /* seed of the jitter, the numbering, the mixed kinds and the random source */
  PetscBool     permute;     /* number the cells randomly (else in natural, structured order) */
  FVMBCType     bc;
  FVMFluxType   flux;
  FVMSourceType source;
  /* derived by FVMMeshSetUp() */
  PetscInt64     N;                 /* number of cells */
  PetscReal      h[3];              /* grid spacings */
  FVMRefCell     ref[3];            /* hex, prism, tet */
  unsigned char *rowtype;           /* -cell mixed: kind of each row (j,k) of structured cells */
  PetscInt64    *rowoff;            /* -cell mixed: natural index of the first cell of each row */
  uint64_t       salt_vertex, salt_type, salt_source, key[4];
  PetscInt       fbits;             /* the Feistel permutation acts on [0, 2^(2 fbits)) */
  uint64_t       fmask;
} FVMMesh;

/*S
   FVMSystem - the rows of the FVM system owned by this process: CSR with global column indices
S*/
typedef struct {
  PetscInt     N, n, rstart;       /* global size, local rows, first local row */
  PetscInt    *ia, *ja;            /* local CSR (columns sorted, diagonal included) */
  PetscScalar *va;
  PetscInt    *dnnz, *onnz;        /* nonzeros of each row in / outside the diagonal block */
  PetscScalar *rhs;                /* right-hand side */
  PetscInt    *ndirichlet;         /* Dirichlet faces of each row (NULL for a system read from a file) */
  PetscReal   *centroid;           /* 3 coordinates per row (NULL for a system read from a file) */
  PetscInt64   nfaces_interior;    /* global counts (generated systems only) */
  PetscInt64   nfaces_dirichlet, nfaces_neumann;
  PetscReal    max_nonortho;       /* largest angle between s and d over all faces, degrees */
  PetscReal    volume;             /* sum of the cell volumes (1: the cells tile the unit box) */
  PetscReal    boundary_area;      /* sum of |s| over boundary faces (6) */
  PetscReal    max_closure;        /* largest |sum_f s_f| / sum_f |s_f| over cells (0: closed cells) */
  PetscBool    generated;
} FVMSystem;

/* ---------------------------------------------------------------------------------------------
   Random numbers computed from a key, with no state: SplitMix64's finaliser
   --------------------------------------------------------------------------------------------- */
static inline uint64_t FVMHash(uint64_t x)
{
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* uniform in [0,1) */
static inline PetscReal FVMUniform(uint64_t key)
{
  return (PetscReal)(FVMHash(key) >> 11) * (PetscReal)(1.0 / 9007199254740992.0);
}

/* Feistel network on 2*fbits bits; inverse = PETSC_TRUE runs it backwards */
static inline uint64_t FVMFeistel(const FVMMesh *m, uint64_t x, PetscBool inverse)
{
  uint64_t L = x >> m->fbits, R = x & m->fmask, t;

  if (!inverse) {
    for (int r = 0; r < 4; r++) {
      t = L ^ (FVMHash(m->key[r] + R) & m->fmask);
      L = R;
      R = t;
    }
  } else {
    for (int r = 3; r >= 0; r--) {
      t = R ^ (FVMHash(m->key[r] + L) & m->fmask);
      R = L;
      L = t;
    }
  }
  return (L << m->fbits) | R;
}

/* natural index -> global row */
static inline PetscInt64 FVMMeshNaturalToRow(const FVMMesh *m, PetscInt64 nat)
{
  uint64_t y = (uint64_t)nat;

  if (!m->permute) return nat;
  do y = FVMFeistel(m, y, PETSC_FALSE);
  while (y >= (uint64_t)m->N);
  return (PetscInt64)y;
}

/* global row -> natural index */
static inline PetscInt64 FVMMeshRowToNatural(const FVMMesh *m, PetscInt64 row)
{
  uint64_t y = (uint64_t)row;

  if (!m->permute) return row;
  do y = FVMFeistel(m, y, PETSC_TRUE);
  while (y >= (uint64_t)m->N);
  return (PetscInt64)y;
}

/* ---------------------------------------------------------------------------------------------
   Small vector helpers
   --------------------------------------------------------------------------------------------- */
static inline void FVMCross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline PetscReal FVMDot(const PetscReal a[3], const PetscReal b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* area vector of a triangle (p0,p1,p2) or of a quadrilateral (p0,p1,p2,p3): half the cross product of
   two edges / of the diagonals; right-handed with the order of the vertices */
static inline void FVMAreaVector(PetscInt nv, const PetscReal *p0, const PetscReal *p1, const PetscReal *p2, const PetscReal *p3, PetscReal s[3])
{
  PetscReal e1[3], e2[3];

  for (int q = 0; q < 3; q++) {
    if (nv == 3) {
      e1[q] = p1[q] - p0[q];
      e2[q] = p2[q] - p0[q];
    } else {
      e1[q] = p2[q] - p0[q];
      e2[q] = p3[q] - p1[q];
    }
  }
  FVMCross(e1, e2, s);
  for (int q = 0; q < 3; q++) s[q] *= 0.5;
}

/* signed volume of the tetrahedron (a,b,c,d), positive when (b-a,c-a,d-a) is right-handed */
static inline PetscReal FVMTetVolume(const PetscReal *a, const PetscReal *b, const PetscReal *c, const PetscReal *d)
{
  PetscReal u[3], v[3], w[3], x[3];

  for (int q = 0; q < 3; q++) {
    u[q] = b[q] - a[q];
    v[q] = c[q] - a[q];
    w[q] = d[q] - a[q];
  }
  FVMCross(v, w, x);
  return FVMDot(u, x) * (1.0 / 6.0);
}

/* ---------------------------------------------------------------------------------------------
   Reference tables: how hexahedra, prisms and tetrahedra fill a structured cell
   --------------------------------------------------------------------------------------------- */

/* Corners of part 'half' of the square face (dir, side) of a structured cell, oriented along +e_dir.
   Tangential axes t1 = dir+1, t2 = dir+2 (cyclic), so e_t1 x e_t2 = e_dir; the diagonal that splits
   the face runs from its tangential corner (0,0) to (1,1). The vertices, and so their order, are the
   same when the neighbouring structured cell asks for the same face from its side (1 - side). */
static inline void FVMHexFacePiece(PetscInt dir, PetscInt side, PetscInt half, PetscInt *nv, PetscInt v[4])
{
  const PetscInt t1 = (dir + 1) % 3, t2 = (dir + 2) % 3;
#define FVMC(a, b) ((side << dir) | ((a) << t1) | ((b) << t2))
  if (half == FVM_HALF_WHOLE) {
    *nv  = 4;
    v[0] = FVMC(0, 0);
    v[1] = FVMC(1, 0);
    v[2] = FVMC(1, 1);
    v[3] = FVMC(0, 1);
  } else if (half == FVM_HALF_T0) {
    *nv  = 3;
    v[0] = FVMC(0, 0);
    v[1] = FVMC(1, 0);
    v[2] = FVMC(1, 1);
  } else {
    *nv  = 3;
    v[0] = FVMC(0, 0);
    v[1] = FVMC(1, 1);
    v[2] = FVMC(0, 1);
  }
#undef FVMC
}

static inline void FVMRefCorner(PetscInt c, PetscReal x[3])
{
  x[0] = (PetscReal)(c & 1);
  x[1] = (PetscReal)((c >> 1) & 1);
  x[2] = (PetscReal)((c >> 2) & 1);
}

static inline PetscBool FVMSameCorners(PetscInt na, const PetscInt a[], PetscInt nb, const PetscInt b[])
{
  if (na != nb) return PETSC_FALSE;
  for (PetscInt p = 0; p < na; p++) {
    PetscBool found = PETSC_FALSE;
    for (PetscInt q = 0; q < nb; q++)
      if (a[p] == b[q]) found = PETSC_TRUE;
    if (!found) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/*
  FVMRefCellBuild - Builds the table of one kind of structured cell: its cells, their faces oriented
  outwards (decided on the unit cube), which faces lie on the square faces of the structured cell
  and which part of them, which are shared inside it, and which cell holds each part of each square face.
*/
static PetscErrorCode FVMRefCellBuild(FVMCellType type, FVMRefCell *r)
{
  PetscInt nf[FVM_MAX_SUB], fv[FVM_MAX_SUB][FVM_MAX_REFF][4], nfv[FVM_MAX_SUB][FVM_MAX_REFF];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  switch (type) {
  case FVM_CELL_HEX:
    r->nsub  = 1;
    r->nc[0] = 8;
    for (PetscInt c = 0; c < 8; c++) r->c[0][c] = c;
    nf[0] = 0;
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt s = 0; s < 2; s++, nf[0]++) FVMHexFacePiece(d, s, FVM_HALF_WHOLE, &nfv[0][nf[0]], fv[0][nf[0]]);
    break;
  case FVM_CELL_PRISM: {
    /* corners of the (x,y) triangles as x + 2y: A = (0,0),(1,0),(1,1); B = (0,0),(1,1),(0,1) */
    const PetscInt tri[2][3] = {
      {0, 1, 3},
      {0, 3, 2}
    };
    r->nsub = 2;
    for (PetscInt p = 0; p < 2; p++) {
      r->nc[p] = 6;
      for (PetscInt q = 0; q < 3; q++) {
        r->c[p][q]     = tri[p][q];
        r->c[p][q + 3] = tri[p][q] | 4;
      }
      nf[p] = 5;
      for (PetscInt q = 0; q < 3; q++) {
        nfv[p][0]       = 3;
        nfv[p][1]       = 3;
        fv[p][0][q]     = tri[p][q];
        fv[p][1][q]     = tri[p][q] | 4;
        nfv[p][2 + q]   = 4;
        fv[p][2 + q][0] = tri[p][q];
        fv[p][2 + q][1] = tri[p][(q + 1) % 3];
        fv[p][2 + q][2] = tri[p][(q + 1) % 3] | 4;
        fv[p][2 + q][3] = tri[p][q] | 4;
      }
    }
  } break;
  case FVM_CELL_TET: {
    /* Kuhn split: one tetrahedron per order (a,b,c) of the axes, 0 -> e_a -> e_a + e_b -> (1,1,1) */
    const PetscInt perm[6][3] = {
      {0, 1, 2},
      {0, 2, 1},
      {1, 0, 2},
      {1, 2, 0},
      {2, 0, 1},
      {2, 1, 0}
    };
    r->nsub = 6;
    for (PetscInt p = 0; p < 6; p++) {
      const PetscInt v1 = 1 << perm[p][0], v2 = v1 | (1 << perm[p][1]), tv[4] = {0, v1, v2, 7};

      r->nc[p] = 4;
      for (PetscInt q = 0; q < 4; q++) r->c[p][q] = tv[q];
      nf[p] = 4;
      for (PetscInt q = 0; q < 4; q++) { /* face opposite vertex q */
        PetscInt k = 0;
        nfv[p][q] = 3;
        for (PetscInt t = 0; t < 4; t++)
          if (t != q) fv[p][q][k++] = tv[t];
      }
    }
  } break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No reference table for cell type %d", (int)type);
  }

  /* orient every face outwards, on the unit cube */
  for (PetscInt p = 0; p < r->nsub; p++) {
    PetscReal cc[3] = {0, 0, 0}, x[4][3];

    for (PetscInt q = 0; q < r->nc[p]; q++) {
      FVMRefCorner(r->c[p][q], x[0]);
      for (int k = 0; k < 3; k++) cc[k] += x[0][k] / r->nc[p];
    }
    for (PetscInt f = 0; f < nf[p]; f++) {
      PetscReal s[3], fc[3] = {0, 0, 0};

      for (PetscInt q = 0; q < nfv[p][f]; q++) {
        FVMRefCorner(fv[p][f][q], x[q]);
        for (int k = 0; k < 3; k++) fc[k] += x[q][k] / nfv[p][f] - cc[k] / nfv[p][f];
      }
      FVMAreaVector(nfv[p][f], x[0], x[1], x[2], x[3], s);
      PetscCheck(FVMDot(s, fc) != 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Degenerate reference face");
      if (FVMDot(s, fc) < 0) { /* reverse */
        for (PetscInt q = 0; q < nfv[p][f] / 2; q++) {
          PetscInt t                      = fv[p][f][q];
          fv[p][f][q]                     = fv[p][f][nfv[p][f] - 1 - q];
          fv[p][f][nfv[p][f] - 1 - q]     = t;
        }
      }
    }
  }

  /* classify the faces */
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt s = 0; s < 2; s++)
      for (PetscInt h = 0; h < 3; h++) r->owner[d][s][h] = -1;
  for (PetscInt p = 0; p < r->nsub; p++) {
    r->nf[p] = nf[p];
    for (PetscInt f = 0; f < nf[p]; f++) {
      FVMRefFace *rf = &r->f[p][f];
      PetscInt    d, side = -1;

      for (d = 0; d < 3; d++) {
        PetscInt b0 = (fv[p][f][0] >> d) & 1, q;
        for (q = 1; q < nfv[p][f]; q++)
          if (((fv[p][f][q] >> d) & 1) != b0) break;
        if (q == nfv[p][f]) {
          side = b0;
          break;
        }
      }
      if (side >= 0) { /* on the square face (d, side) */
        rf->nb   = -1;
        rf->dir  = d;
        rf->side = side;
        if (nfv[p][f] == 4) rf->half = FVM_HALF_WHOLE;
        else {
          const PetscInt c10 = (side << d) | (1 << ((d + 1) % 3));
          rf->half           = (fv[p][f][0] == c10 || fv[p][f][1] == c10 || fv[p][f][2] == c10) ? FVM_HALF_T0 : FVM_HALF_T1;
          r->splits[d]       = PETSC_TRUE;
        }
        FVMHexFacePiece(d, side, rf->half, &rf->nv, rf->v);
        rf->sigma = side ? 1 : -1;
        PetscCheck(r->owner[d][side][rf->half] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Square face part held twice");
        r->owner[d][side][rf->half] = p;
        if (rf->half == FVM_HALF_WHOLE) r->owner[d][side][FVM_HALF_T0] = r->owner[d][side][FVM_HALF_T1] = p;
      } else { /* inside: find the other cell with the same face */
        PetscInt nb = -1, nbf = -1;
        for (PetscInt p2 = 0; p2 < r->nsub; p2++) {
          if (p2 == p) continue;
          for (PetscInt f2 = 0; f2 < nf[p2]; f2++)
            if (FVMSameCorners(nfv[p][f], fv[p][f], nfv[p2][f2], fv[p2][f2])) {
              nb  = p2;
              nbf = f2;
            }
        }
        PetscCheck(nb >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inner face of cell %" PetscInt_FMT " has no neighbour", p);
        rf->nb    = nb;
        rf->dir   = rf->side = rf->half = -1;
        rf->nv    = nfv[p][f];
        rf->sigma = p < nb ? 1 : -1; /* canonical: the orientation of the lower-numbered cell */
        for (PetscInt q = 0; q < rf->nv; q++) rf->v[q] = p < nb ? fv[p][f][q] : fv[nb][nbf][q];
      }
    }
  }
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt s = 0; s < 2; s++)
      PetscCheck(r->owner[d][s][FVM_HALF_T0] >= 0 && r->owner[d][s][FVM_HALF_T1] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Square face not covered");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The mesh
   --------------------------------------------------------------------------------------------- */

/*
  FVMMeshInitialize - Sets the default parameters of a mesh: 32^3 hexahedra, jitter 0.2, seed 1, random
  numbering, -bc mixed, -flux twopoint, -source sine. Change them before FVMMeshSetFromOptions() to
  give a program other defaults.
*/
PETSC_UNUSED static PetscErrorCode FVMMeshInitialize(FVMMesh *m)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  m->nx = m->ny = m->nz = 32;
  m->cell               = FVM_CELL_HEX;
  m->jitter             = 0.2;
  m->seed               = 1;
  m->permute            = PETSC_TRUE;
  m->bc                 = FVM_BC_MIXED;
  m->flux               = FVM_FLUX_TWOPOINT;
  m->source             = FVM_SOURCE_SINE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMMeshSetFromOptions - Sets the mesh and problem parameters from the options database; the values
  already in the mesh (FVMMeshInitialize()) are the defaults

  Options Database Keys (with the given prefix):
+ -n <n>                                 - structured cells along each axis (sets -nx -ny -nz)
. -nx <nx> -ny <ny> -nz <nz>             - structured cells along each axis
. -cell <hex,prism,tet,mixed>            - kind of cells (mixed: random kind per row of structured cells)
. -jitter <j>                            - largest random move of an interior vertex along each axis, in grid spacings, [0, 0.5)
. -seed <s>                              - seed of the jitter, the numbering, the mixed kinds and the random source
. -permute <bool>                        - number the cells by a random permutation (else in structured order)
. -bc <dirichlet,mixed>                  - all six sides Dirichlet, or x = 0 Dirichlet and the other sides Neumann
. -flux <twopoint,minimum,overrelaxed>   - face coefficient |s|/|d|, (s.d)/|d|^2 or |s|^2/(s.d)
- -source <sine,random,zero>             - q = 3 pi^2 sin(pi x) sin(pi y) sin(pi z), uniform random in [-1,1] per cell, or 0
*/
PETSC_UNUSED static PetscErrorCode FVMMeshSetFromOptions(MPI_Comm comm, const char prefix[], FVMMesh *m)
{
  PetscInt  n   = m->nx;
  PetscBool set = PETSC_FALSE;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, prefix, "Unstructured FVM mesh generator", "FVM");
  PetscCall(PetscOptionsInt("-n", "Structured cells along each axis", "FVMMeshSetFromOptions", n, &n, &set));
  if (set) m->nx = m->ny = m->nz = n;
  PetscCall(PetscOptionsInt("-nx", "Structured cells along x", "FVMMeshSetFromOptions", m->nx, &m->nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "Structured cells along y", "FVMMeshSetFromOptions", m->ny, &m->ny, NULL));
  PetscCall(PetscOptionsInt("-nz", "Structured cells along z", "FVMMeshSetFromOptions", m->nz, &m->nz, NULL));
  PetscCall(PetscOptionsEnum("-cell", "Kind of cells", "FVMMeshSetFromOptions", FVMCellTypes, (PetscEnum)m->cell, (PetscEnum *)&m->cell, NULL));
  PetscCall(PetscOptionsReal("-jitter", "Largest random move of an interior vertex along each axis, in grid spacings", "FVMMeshSetFromOptions", m->jitter, &m->jitter, NULL));
  PetscCall(PetscOptionsInt("-seed", "Seed of the jitter, the numbering, the mixed cell kinds and the random source", "FVMMeshSetFromOptions", m->seed, &m->seed, NULL));
  PetscCall(PetscOptionsBool("-permute", "Number the cells by a random permutation", "FVMMeshSetFromOptions", m->permute, &m->permute, NULL));
  PetscCall(PetscOptionsEnum("-bc", "Boundary conditions", "FVMMeshSetFromOptions", FVMBCTypes, (PetscEnum)m->bc, (PetscEnum *)&m->bc, NULL));
  PetscCall(PetscOptionsEnum("-flux", "Face coefficient", "FVMMeshSetFromOptions", FVMFluxTypes, (PetscEnum)m->flux, (PetscEnum *)&m->flux, NULL));
  PetscCall(PetscOptionsEnum("-source", "Source term", "FVMMeshSetFromOptions", FVMSourceTypes, (PetscEnum)m->source, (PetscEnum *)&m->source, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMMeshDestroy - Frees the tables of a mesh
*/
PETSC_UNUSED static PetscErrorCode FVMMeshDestroy(FVMMesh *m)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(m->rowtype));
  PetscCall(PetscFree(m->rowoff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMMeshSetUp - Checks the parameters and builds the reference tables, the keys of the random
  functions and (-cell mixed) the kinds and offsets of the rows of structured cells (ny*nz entries)
*/
PETSC_UNUSED static PetscErrorCode FVMMeshSetUp(FVMMesh *m)
{
  const uint64_t seed = FVMHash((uint64_t)m->seed ^ 0x5A17F00DULL);
  PetscInt       bits;

  PetscFunctionBegin;
  PetscCheck(m->nx >= 1 && m->ny >= 1 && m->nz >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": every size must be at least 1", m->nx, m->ny, m->nz);
  PetscCheck(m->jitter >= 0 && m->jitter < 0.5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-jitter %g must be in [0, 0.5)", (double)m->jitter);
  m->h[0] = 1.0 / m->nx;
  m->h[1] = 1.0 / m->ny;
  m->h[2] = 1.0 / m->nz;
  for (PetscInt t = 0; t < 3; t++) PetscCall(FVMRefCellBuild((FVMCellType)t, &m->ref[t]));
  m->salt_vertex = FVMHash(seed + 1);
  m->salt_type   = FVMHash(seed + 2);
  m->salt_source = FVMHash(seed + 3);
  for (int r = 0; r < 4; r++) m->key[r] = FVMHash(seed + 10 + (uint64_t)r);

  PetscCall(PetscFree(m->rowtype));
  PetscCall(PetscFree(m->rowoff));
  {
    const PetscInt64 nrows = (PetscInt64)m->ny * m->nz;

    if (m->cell == FVM_CELL_MIXED) {
      PetscCall(PetscMalloc1(nrows, &m->rowtype));
      PetscCall(PetscMalloc1(nrows + 1, &m->rowoff));
      m->rowoff[0] = 0;
      for (PetscInt64 r = 0; r < nrows; r++) {
        m->rowtype[r]     = (unsigned char)(FVMHash(m->salt_type + (uint64_t)r) % 3);
        m->rowoff[r + 1]  = m->rowoff[r] + (PetscInt64)m->nx * m->ref[m->rowtype[r]].nsub;
      }
      m->N = m->rowoff[nrows];
    } else m->N = nrows * m->nx * m->ref[m->cell].nsub;
  }
  PetscCheck(m->N <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt64_FMT " cells do not fit in PetscInt: use a PETSc configured --with-64-bit-indices", m->N);

  for (bits = 1; (PetscInt64)1 << (2 * bits) < m->N; bits++);
  m->fbits = bits;
  m->fmask = ((uint64_t)1 << bits) - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt FVMMeshRowType(const FVMMesh *m, PetscInt64 j, PetscInt64 k)
{
  return m->cell == FVM_CELL_MIXED ? (PetscInt)m->rowtype[j + (PetscInt64)m->ny * k] : (PetscInt)m->cell;
}

/* natural index of cell sub of structured cell (i,j,k) */
static inline PetscInt64 FVMMeshNatural(const FVMMesh *m, PetscInt64 i, PetscInt64 j, PetscInt64 k, PetscInt sub)
{
  const PetscInt64 r = j + (PetscInt64)m->ny * k;

  if (m->cell == FVM_CELL_MIXED) return m->rowoff[r] + i * m->ref[m->rowtype[r]].nsub + sub;
  return (r * m->nx + i) * m->ref[m->cell].nsub + sub;
}

static inline void FVMMeshDecode(const FVMMesh *m, PetscInt64 nat, PetscInt64 ijk[3], PetscInt *type, PetscInt *sub)
{
  PetscInt64 r, loc;
  PetscInt   ns;

  if (m->cell == FVM_CELL_MIXED) {
    PetscInt64 lo = 0, hi = (PetscInt64)m->ny * m->nz; /* rowoff[lo] <= nat < rowoff[hi] */
    while (hi - lo > 1) {
      PetscInt64 mid = lo + (hi - lo) / 2;
      if (m->rowoff[mid] <= nat) lo = mid;
      else hi = mid;
    }
    r     = lo;
    *type = m->rowtype[r];
    loc   = nat - m->rowoff[r];
  } else {
    *type = m->cell;
    r     = nat / ((PetscInt64)m->nx * m->ref[m->cell].nsub);
    loc   = nat - r * m->nx * m->ref[m->cell].nsub;
  }
  ns     = m->ref[*type].nsub;
  ijk[0] = loc / ns;
  *sub   = (PetscInt)(loc - ijk[0] * ns);
  ijk[1] = r % m->ny;
  ijk[2] = r / m->ny;
}

/* coordinates of grid vertex (gi,gj,gk) */
static inline void FVMMeshVertex(const FVMMesh *m, PetscInt64 gi, PetscInt64 gj, PetscInt64 gk, PetscReal X[3])
{
  X[0] = (PetscReal)gi * m->h[0];
  X[1] = (PetscReal)gj * m->h[1];
  X[2] = (PetscReal)gk * m->h[2];
  if (m->jitter > 0 && gi > 0 && gi < m->nx && gj > 0 && gj < m->ny && gk > 0 && gk < m->nz) {
    const uint64_t v = 3 * (uint64_t)(gi + (PetscInt64)(m->nx + 1) * (gj + (PetscInt64)(m->ny + 1) * gk));
    for (int q = 0; q < 3; q++) X[q] += m->jitter * m->h[q] * (2 * FVMUniform(m->salt_vertex + v + (uint64_t)q) - 1);
  }
}

/* One face of a cell: a polygon whose corners are corners of the cell's structured cell */
typedef struct {
  PetscInt64 nb;          /* natural index of the cell across the face; -1 on the boundary */
  PetscInt   bdir, bside; /* boundary face: on the side x_bdir = bside of the box */
  PetscInt   nv, v[4];    /* corners, canonical orientation */
  PetscInt   sigma;       /* +1: the canonical orientation points out of the cell */
} FVMFace;

typedef struct {
  PetscInt64 nat, ijk[3];
  PetscInt   type, sub, nf;
  FVMFace    f[FVM_MAX_FACES];
  PetscReal  X[8][3]; /* corners of the structured cell */
  PetscReal  xc[3], vol;
} FVMCell;

/*
  FVMMeshCellBuild - The faces of cell nat (with their neighbours) and the corners of its structured
  cell; with geometry, also its centroid and volume. The same cell gives the same numbers, bitwise,
  on every process and whoever asks.
*/
static inline PetscErrorCode FVMMeshCellBuild(const FVMMesh *m, PetscInt64 nat, PetscBool geometry, FVMCell *C)
{
  const FVMRefCell *ref;
  const PetscInt64  nn[3] = {m->nx, m->ny, m->nz};

  PetscFunctionBegin;
  C->nat = nat;
  FVMMeshDecode(m, nat, C->ijk, &C->type, &C->sub);
  ref = &m->ref[C->type];
  for (PetscInt c = 0; c < 8; c++) FVMMeshVertex(m, C->ijk[0] + (c & 1), C->ijk[1] + ((c >> 1) & 1), C->ijk[2] + ((c >> 2) & 1), C->X[c]);
  C->nf = 0;
  for (PetscInt f = 0; f < ref->nf[C->sub]; f++) {
    const FVMRefFace *rf = &ref->f[C->sub][f];

    if (rf->nb >= 0) { /* inside the structured cell */
      FVMFace *F = &C->f[C->nf++];
      F->nb      = nat - C->sub + rf->nb;
      F->bdir = F->bside = -1;
      F->nv              = rf->nv;
      F->sigma           = rf->sigma;
      for (PetscInt q = 0; q < rf->nv; q++) F->v[q] = rf->v[q];
    } else {
      const PetscInt d = rf->dir, side = rf->side;
      PetscInt64     o[3] = {C->ijk[0], C->ijk[1], C->ijk[2]};

      o[d] += side ? 1 : -1;
      if (o[d] < 0 || o[d] >= nn[d]) { /* boundary of the box */
        FVMFace *F = &C->f[C->nf++];
        F->nb      = -1;
        F->bdir    = d;
        F->bside   = side;
        F->sigma   = rf->sigma;
        FVMHexFacePiece(d, side, rf->half, &F->nv, F->v);
      } else {
        const PetscInt    tn = FVMMeshRowType(m, o[1], o[2]);
        const FVMRefCell *rn = &m->ref[tn];
        const PetscBool   split = (PetscBool)(ref->splits[d] || rn->splits[d]);
        PetscInt          piece[2], np = 0;

        if (rf->half == FVM_HALF_WHOLE && split) {
          piece[np++] = FVM_HALF_T0;
          piece[np++] = FVM_HALF_T1;
        } else piece[np++] = rf->half;
        for (PetscInt q = 0; q < np; q++) {
          FVMFace *F = &C->f[C->nf++];
          F->nb      = FVMMeshNatural(m, o[0], o[1], o[2], rn->owner[d][1 - side][piece[q]]);
          F->bdir = F->bside = -1;
          F->sigma           = rf->sigma;
          FVMHexFacePiece(d, side, piece[q], &F->nv, F->v);
        }
      }
    }
  }
  if (geometry) {
    const PetscReal ic = 1.0 / ref->nc[C->sub];
    PetscReal       c0[3] = {0, 0, 0}, V = 0, M[3] = {0, 0, 0};

    for (PetscInt q = 0; q < ref->nc[C->sub]; q++)
      for (int k = 0; k < 3; k++) c0[k] += C->X[ref->c[C->sub][q]][k];
    for (int k = 0; k < 3; k++) c0[k] *= ic;
    /* tetrahedra (c0, face triangle); a quadrilateral is cut along its canonical diagonal v0-v2, as the
       cell on its other side cuts it, and as a neighbour that splits the square face into T0 and T1 does */
    for (PetscInt f = 0; f < C->nf; f++) {
      const FVMFace *F = &C->f[f];

      for (PetscInt t = 0; t < F->nv - 2; t++) {
        const PetscReal *a = C->X[F->v[0]], *b = C->X[F->v[t + 1]], *c = C->X[F->v[t + 2]];
        const PetscReal  v = F->sigma * FVMTetVolume(c0, a, b, c); /* outward orientation */
        V += v;
        for (int k = 0; k < 3; k++) M[k] += v * (c0[k] + a[k] + b[k] + c[k]);
      }
    }
    PetscCheck(V > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cell %" PetscInt64_FMT " has volume %g <= 0: the mesh is tangled, reduce -jitter", nat, (double)V);
    C->vol = V;
    for (int k = 0; k < 3; k++) C->xc[k] = 0.25 * M[k] / V;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* area vector of face F of cell C, pointing out of C */
static inline void FVMCellFaceArea(const FVMCell *C, const FVMFace *F, PetscReal s[3])
{
  FVMAreaVector(F->nv, C->X[F->v[0]], C->X[F->v[1]], C->X[F->v[2]], F->nv == 4 ? C->X[F->v[3]] : NULL, s);
  for (int k = 0; k < 3; k++) s[k] *= F->sigma;
}

/* areal centre of face F of cell C (a quadrilateral as the two triangles of its canonical diagonal) */
static inline void FVMCellFaceCentre(const FVMCell *C, const FVMFace *F, PetscReal fc[3])
{
  if (F->nv == 3) {
    for (int k = 0; k < 3; k++) fc[k] = (C->X[F->v[0]][k] + C->X[F->v[1]][k] + C->X[F->v[2]][k]) * (1.0 / 3.0);
  } else {
    const PetscReal *p0 = C->X[F->v[0]], *p1 = C->X[F->v[1]], *p2 = C->X[F->v[2]], *p3 = C->X[F->v[3]];
    PetscReal        s1[3], s2[3], w1, w2;

    FVMAreaVector(3, p0, p1, p2, NULL, s1);
    FVMAreaVector(3, p0, p2, p3, NULL, s2);
    w1 = PetscSqrtReal(FVMDot(s1, s1));
    w2 = PetscSqrtReal(FVMDot(s2, s2));
    for (int k = 0; k < 3; k++) fc[k] = (w1 * (p0[k] + p1[k] + p2[k]) + w2 * (p0[k] + p2[k] + p3[k])) / (3 * (w1 + w2));
  }
}

/* Dirichlet data p_D and its gradient */
static inline PetscReal FVMBoundaryValue(const PetscReal x[3])
{
  return x[0] + 2 * x[1] + 3 * x[2];
}
static const PetscReal FVMBoundaryGradient[3] = {1, 2, 3};

static inline PetscBool FVMMeshIsDirichlet(const FVMMesh *m, PetscInt bdir, PetscInt bside)
{
  return (PetscBool)(m->bc == FVM_BC_DIRICHLET || (bdir == 0 && bside == 0));
}

static inline PetscReal FVMMeshSource(const FVMMesh *m, PetscInt64 nat, const PetscReal x[3])
{
  switch (m->source) {
  case FVM_SOURCE_SINE:
    return 3 * PETSC_PI * PETSC_PI * PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]) * PetscSinReal(PETSC_PI * x[2]);
  case FVM_SOURCE_RANDOM:
    return 2 * FVMUniform(m->salt_source + (uint64_t)nat) - 1;
  default:
    return 0;
  }
}

/* face coefficient from the outward area vector s and the vector d from the cell's centroid across the face */
static inline PetscErrorCode FVMMeshCoefficient(const FVMMesh *m, PetscInt64 nat, const PetscReal s[3], const PetscReal d[3], PetscReal *a, PetscReal *cosine)
{
  const PetscReal sd = FVMDot(s, d), ss = FVMDot(s, s), dd = FVMDot(d, d);

  PetscFunctionBegin;
  PetscCheck(sd > 0 && ss > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A face of cell %" PetscInt64_FMT " has s.d = %g <= 0 (non-orthogonality of 90 degrees or more): the mesh is too distorted, reduce -jitter", nat, (double)sd);
  switch (m->flux) {
  case FVM_FLUX_TWOPOINT:
    *a = PetscSqrtReal(ss) / PetscSqrtReal(dd);
    break;
  case FVM_FLUX_MINIMUM:
    *a = sd / dd;
    break;
  case FVM_FLUX_OVERRELAXED:
    *a = ss / sd;
    break;
  }
  *cosine = sd / PetscSqrtReal(ss * dd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMSystemDestroy - Frees the arrays of a system
*/
PETSC_UNUSED static PetscErrorCode FVMSystemDestroy(FVMSystem *sys)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sys->ia));
  PetscCall(PetscFree(sys->ja));
  PetscCall(PetscFree(sys->va));
  PetscCall(PetscFree(sys->dnnz));
  PetscCall(PetscFree(sys->onnz));
  PetscCall(PetscFree(sys->rhs));
  PetscCall(PetscFree(sys->ndirichlet));
  PetscCall(PetscFree(sys->centroid));
  PetscCall(PetscMemzero(sys, sizeof(*sys)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMMeshCreateSystem - Builds the rows of the FVM Poisson system owned by this process

  Collective

  Input Parameters:
+ m    - the mesh, set up
- comm - the communicator; the rows are split in contiguous blocks as `PetscSplitOwnership()` does

  Output Parameter:
. sys - the local rows (CSR, exact preallocation counts), right-hand side, Dirichlet face counts and centroids

  Notes:
  Work and memory are O(n/p) per process: each process inverts the permutation for its own rows,
  computes the centroids of its cells (first pass, in row order) and then the rows, computing again
  the centroids of neighbours that another process owns. Nothing is communicated but a few reductions.
*/
PETSC_UNUSED static PetscErrorCode FVMMeshCreateSystem(const FVMMesh *m, MPI_Comm comm, FVMSystem *sys)
{
  PetscInt   n = PETSC_DECIDE, N = (PetscInt)m->N, rstart, rend;
  PetscInt64 cap, nnz = 0, cnt[3] = {0, 0, 0};
  PetscReal *vol, mincos = 1, vsum = 0, barea = 0, closure = 0;
  FVMCell    P, Q, *ring;
  PetscInt64 (*rcol)[FVM_MAX_FACES];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(sys, sizeof(*sys)));
  PetscCall(PetscSplitOwnership(comm, &n, &N));
  PetscCallMPI(MPI_Scan(&n, &rend, 1, MPIU_INT, MPI_SUM, comm));
  rstart      = rend - n;
  sys->N      = N;
  sys->n      = n;
  sys->rstart = rstart;
  PetscCall(PetscMalloc1(n + 1, &sys->ia));
  PetscCall(PetscMalloc1(n, &sys->dnnz));
  PetscCall(PetscMalloc1(n, &sys->onnz));
  PetscCall(PetscMalloc1(n, &sys->rhs));
  PetscCall(PetscMalloc1(n, &sys->ndirichlet));
  PetscCall(PetscMalloc1(3 * (size_t)n, &sys->centroid));
  PetscCall(PetscMalloc1(n, &vol));

  /* phase 1: centroids and volumes of the owned cells, in the order of the rows */
  for (PetscInt lr = 0; lr < n; lr++) {
    PetscCall(FVMMeshCellBuild(m, FVMMeshRowToNatural(m, rstart + lr), PETSC_TRUE, &P));
    vol[lr] = P.vol;
    vsum += P.vol;
    for (int k = 0; k < 3; k++) sys->centroid[3 * lr + k] = P.xc[k];
  }

  /* phase 2: the rows. The cells of the rows are built FVM_PIPE rows ahead, so that the centroids of their
     neighbours (owned here, anywhere in memory with a random numbering) are prefetched in time */
  cap = (PetscInt64)n * (m->cell == FVM_CELL_HEX ? 7 : 6) + 16;
  PetscCall(PetscMalloc1(cap, &sys->ja));
  PetscCall(PetscMalloc1(cap, &sys->va));
  PetscCall(PetscMalloc2(FVM_PIPE, &ring, FVM_PIPE, &rcol));
  sys->ia[0] = 0;
  for (PetscInt it = 0; it < n + FVM_PIPE; it++) {
    const PetscInt   lr  = it - FVM_PIPE, row = rstart + lr, slot = it % FVM_PIPE;
    const FVMCell   *C   = &ring[slot];
    const PetscInt64 *fcol = rcol[slot];
    const PetscReal *xP  = sys->centroid + 3 * (lr >= 0 ? lr : 0);
    PetscInt         cols[FVM_MAX_FACES + 1], nc = 0, ndir = 0;
    PetscScalar      vals[FVM_MAX_FACES + 1], diag = 0, b;
    PetscReal        ssum[3] = {0, 0, 0}, sabs = 0;

    if (lr >= 0) { /* finish row lr */
      b = FVMMeshSource(m, C->nat, xP) * vol[lr];
      for (PetscInt f = 0; f < C->nf; f++) {
        const FVMFace *F = &C->f[f];
        PetscReal      s[3], d[3], a = 0, cosine = 1; /* set by FVMMeshCoefficient() (initialized for the compiler) */

        FVMCellFaceArea(C, F, s);
        for (int k = 0; k < 3; k++) ssum[k] += s[k];
        sabs += PetscSqrtReal(FVMDot(s, s));
        if (F->nb >= 0) {
          const PetscInt64 col = fcol[f];
          const PetscReal *xN;

          if (col >= rstart && col < rend) xN = sys->centroid + 3 * (col - rstart);
          else { /* owned by another process: computed again here */
            PetscCall(FVMMeshCellBuild(m, F->nb, PETSC_TRUE, &Q));
            xN = Q.xc;
          }
          for (int k = 0; k < 3; k++) d[k] = xN[k] - xP[k];
          PetscCall(FVMMeshCoefficient(m, C->nat, s, d, &a, &cosine));
          mincos = PetscMin(mincos, cosine);
          diag += a;
          cols[nc]   = (PetscInt)col;
          vals[nc++] = -a;
          cnt[0]++;
        } else {
          PetscReal fc[3];

          FVMCellFaceCentre(C, F, fc);
          barea += PetscSqrtReal(FVMDot(s, s));
          if (FVMMeshIsDirichlet(m, F->bdir, F->bside)) {
            for (int k = 0; k < 3; k++) d[k] = fc[k] - xP[k];
            PetscCall(FVMMeshCoefficient(m, C->nat, s, d, &a, &cosine));
            mincos = PetscMin(mincos, cosine);
            diag += a;
            b += a * FVMBoundaryValue(fc);
            ndir++;
            cnt[1]++;
          } else {
            b += FVMDot(FVMBoundaryGradient, s);
            cnt[2]++;
          }
        }
      }
      closure    = PetscMax(closure, PetscSqrtReal(FVMDot(ssum, ssum)) / sabs);
      cols[nc]   = row;
      vals[nc++] = diag;
      /* sort by column (insertion sort, at most 13 entries) and merge repeated columns */
      for (PetscInt p = 1; p < nc; p++) {
        PetscInt    c = cols[p], q = p - 1;
        PetscScalar v = vals[p];
        while (q >= 0 && cols[q] > c) {
          cols[q + 1] = cols[q];
          vals[q + 1] = vals[q];
          q--;
        }
        cols[q + 1] = c;
        vals[q + 1] = v;
      }
      {
        PetscInt k = 0;
        for (PetscInt p = 1; p < nc; p++) {
          if (cols[p] == cols[k]) vals[k] += vals[p];
          else {
            cols[++k] = cols[p];
            vals[k]   = vals[p];
          }
        }
        nc = k + 1;
      }
      if (nnz + nc > cap) {
        cap = PetscMax(cap + cap / 2, nnz + nc);
        PetscCheck(cap <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "More than %" PetscInt_FMT " local nonzeros: use a PETSc configured --with-64-bit-indices", PETSC_INT_MAX);
        PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)cap, &sys->ja));
        PetscCall(PetscRealloc(sizeof(PetscScalar) * (size_t)cap, &sys->va));
      }
      sys->dnnz[lr] = sys->onnz[lr] = 0;
      for (PetscInt p = 0; p < nc; p++) {
        sys->ja[nnz + p] = cols[p];
        sys->va[nnz + p] = vals[p];
        if (cols[p] >= rstart && cols[p] < rend) sys->dnnz[lr]++;
        else sys->onnz[lr]++;
      }
      nnz += nc;
      sys->ia[lr + 1]     = (PetscInt)nnz;
      sys->rhs[lr]        = b;
      sys->ndirichlet[lr] = ndir;
    }
    /* the cell of row it, into the slot just freed */
    if (it < n) {
      PetscCall(FVMMeshCellBuild(m, FVMMeshRowToNatural(m, rstart + it), PETSC_FALSE, &ring[slot]));
      for (PetscInt f = 0; f < ring[slot].nf; f++) {
        const PetscInt64 c = ring[slot].f[f].nb >= 0 ? FVMMeshNaturalToRow(m, ring[slot].f[f].nb) : -1;
        rcol[slot][f]      = c;
#if defined(__GNUC__)
        if (c >= rstart && c < rend) { /* 24 bytes: may straddle two cache lines */
          __builtin_prefetch(sys->centroid + 3 * (c - rstart));
          __builtin_prefetch(sys->centroid + 3 * (c - rstart) + 2);
        }
#endif
      }
    }
  }
  PetscCall(PetscFree2(ring, rcol));
  PetscCall(PetscFree(vol));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, 3, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &mincos, 1, MPIU_REAL, MPI_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &closure, 1, MPIU_REAL, MPI_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &vsum, 1, MPIU_REAL, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &barea, 1, MPIU_REAL, MPI_SUM, comm));
  PetscCheck(cnt[0] % 2 == 0, comm, PETSC_ERR_PLIB, "Interior faces seen %" PetscInt64_FMT " times from their cells: not twice each", cnt[0]);
  sys->nfaces_interior  = cnt[0] / 2;
  sys->nfaces_dirichlet = cnt[1];
  sys->nfaces_neumann   = cnt[2];
  sys->max_nonortho     = PetscAcosReal(PetscMin(1.0, mincos)) * 180.0 / PETSC_PI;
  sys->volume           = vsum;
  sys->boundary_area    = barea;
  sys->max_closure      = closure;
  sys->generated        = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMSystemAssembleMat - Preallocates (exactly) and fills a matrix from the rows of a system

  Collective

  Input Parameters:
+ sys - the system
- A   - a matrix with its sizes (sys->n local rows and columns) and an AIJ-derived type set

  Output Parameter:
. tins - (optional) this process's wall time of the preallocation and the MatSetValues() calls, before the assembly

  Note:
  One MatSetValues() per row, rows and columns sorted; no entry goes to another process.
*/
PETSC_UNUSED static PetscErrorCode FVMSystemAssembleMat(const FVMSystem *sys, Mat A, PetscLogDouble *tins)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatXAIJSetPreallocation(A, 1, sys->dnnz, sys->onnz, NULL, NULL));
  PetscCall(MatSetOption(A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (PetscInt lr = 0; lr < sys->n; lr++) {
    const PetscInt row = sys->rstart + lr;
    PetscCall(MatSetValues(A, 1, &row, sys->ia[lr + 1] - sys->ia[lr], sys->ja + sys->ia[lr], sys->va + sys->ia[lr], INSERT_VALUES));
  }
  PetscCall(PetscTime(&t1));
  if (tins) *tins = t1 - t0;
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMSystemCreateMat - Creates and assembles the matrix of a system

  Collective

  Input Parameters:
+ comm    - the communicator the system was built on
. sys     - the system
. prefix  - options prefix of the matrix (NULL for none)
- deftype - type used unless -<prefix>mat_type gives another

  Output Parameters:
+ A    - the assembled matrix
- tins - (optional) this process's wall time of the matrix's creation, preallocation and MatSetValues() calls, i.e.
         all but the assembly (MatAssemblyBegin/End(), where a matrix type may build its own format)
*/
PETSC_UNUSED static PetscErrorCode FVMSystemCreateMat(MPI_Comm comm, const FVMSystem *sys, const char prefix[], MatType deftype, Mat *A, PetscLogDouble *tins)
{
  PetscLogDouble t0, t1, tfill = 0;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, sys->n, sys->n, sys->N, sys->N));
  if (prefix) PetscCall(MatSetOptionsPrefix(*A, prefix));
  PetscCall(MatSetType(*A, deftype));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(PetscTime(&t1));
  PetscCall(FVMSystemAssembleMat(sys, *A, &tfill));
  if (tins) *tins = (t1 - t0) + tfill;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMSystemSetRHS - Copies the right-hand side of a system into a vector with its layout
*/
PETSC_UNUSED static PetscErrorCode FVMSystemSetRHS(const FVMSystem *sys, Vec b)
{
  PetscScalar *a;
  PetscInt     lo, hi;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(b, &lo, &hi));
  PetscCheck(lo == sys->rstart && hi - lo == sys->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vector rows [%" PetscInt_FMT ",%" PetscInt_FMT ") differ from the system's [%" PetscInt_FMT ",%" PetscInt_FMT ")", lo, hi, sys->rstart, sys->rstart + sys->n);
  PetscCall(VecGetArrayWrite(b, &a));
  PetscCall(PetscArraycpy(a, sys->rhs, sys->n));
  PetscCall(VecRestoreArrayWrite(b, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMSystemWrite - Writes A and b to a PETSc binary file (MatLoad() then VecLoad() read them back)

  Collective
*/
PETSC_UNUSED static PetscErrorCode FVMSystemWrite(MPI_Comm comm, const FVMSystem *sys, const char filename[])
{
  Mat         A;
  Vec         b;
  PetscViewer v;

  PetscFunctionBegin;
  PetscCall(FVMSystemCreateMat(comm, sys, "fvmwrite_", MATAIJ, &A, NULL));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(FVMSystemSetRHS(sys, b));
  PetscCall(PetscViewerCreate(comm, &v));
  PetscCall(PetscViewerSetType(v, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE));
  PetscCall(PetscViewerFileSetMode(v, FILE_MODE_WRITE));
  PetscCall(PetscViewerFileSetName(v, filename));
  PetscCall(MatView(A, v));
  PetscCall(VecView(b, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FVMSystemLoad - Reads A and b from a PETSc binary file into the rows of a system (no mesh data)

  Collective
*/
PETSC_UNUSED static PetscErrorCode FVMSystemLoad(MPI_Comm comm, const char filename[], FVMSystem *sys)
{
  Mat                A;
  Vec                b;
  PetscViewer        v;
  PetscInt           M, Nc, rstart, rend, nnz = 0;
  const PetscScalar *ba;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(sys, sizeof(*sys)));
  PetscCall(PetscViewerBinaryOpen(comm, filename, FILE_MODE_READ, &v));
  PetscCall(MatCreate(comm, &A));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatLoad(A, v));
  PetscCall(MatGetSize(A, &M, &Nc));
  PetscCheck(M == Nc, comm, PETSC_ERR_ARG_SIZ, "The matrix in %s is %" PetscInt_FMT " x %" PetscInt_FMT ", not square", filename, M, Nc);
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecLoad(b, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  sys->N      = M;
  sys->n      = rend - rstart;
  sys->rstart = rstart;
  PetscCall(PetscMalloc1(sys->n + 1, &sys->ia));
  PetscCall(PetscMalloc1(sys->n, &sys->dnnz));
  PetscCall(PetscMalloc1(sys->n, &sys->onnz));
  PetscCall(PetscMalloc1(sys->n, &sys->rhs));
  sys->ia[0] = 0;
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt ncols;
    PetscCall(MatGetRow(A, r, &ncols, NULL, NULL));
    nnz += ncols;
    sys->ia[r - rstart + 1] = nnz;
    PetscCall(MatRestoreRow(A, r, &ncols, NULL, NULL));
  }
  PetscCall(PetscMalloc1(nnz, &sys->ja));
  PetscCall(PetscMalloc1(nnz, &sys->va));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           ncols, lr = r - rstart;
    PetscCall(MatGetRow(A, r, &ncols, &cols, &vals));
    sys->dnnz[lr] = sys->onnz[lr] = 0;
    for (PetscInt p = 0; p < ncols; p++) {
      sys->ja[sys->ia[lr] + p] = cols[p];
      sys->va[sys->ia[lr] + p] = vals[p];
      if (cols[p] >= rstart && cols[p] < rend) sys->dnnz[lr]++;
      else sys->onnz[lr]++;
    }
    PetscCall(MatRestoreRow(A, r, &ncols, &cols, &vals));
  }
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(PetscArraycpy(sys->rhs, ba, sys->n));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
