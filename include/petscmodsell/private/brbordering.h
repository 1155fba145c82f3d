/*
   Block orderings of PCBRBILU (src/ksp/pc/impls/brbilu/ordering.c): the local rows of a process cut into blocks and
   the blocks coloured so that blocks of one colour are not coupled; the rows are numbered colour by colour (red
   first), block by block, and inside a block in the block's own order (Shioya (2022), section 3.3.3, steps 1-4). The
   factorization and the substitutions only see this structure, whatever made it:

   - grid: a DMDA box nx x ny x nz (dof 1, star stencil) cut into bx x by x bz nearly equal bricks, coloured red/black
     by the parity of bx_i + by_i + bz_i (a checkerboard of block indices; block (0,0,0) red), lexicographic (x
     fastest) inside a brick and among the bricks of a colour;
   - graph: the locality partition of the local diagonal block (localityimpl.h: blocks of sh rows of nearby unknowns,
     no DM needed; computed where the PC computes, PCMSOperatorLocalityPerm()) and the colouring of its block graph (2
     colours when the block graph is bipartite, else first fit in block order), made here from the graph's edges
     (MS_BRB_BLOCK_EDGES, by the backend); the rows of a block in the partition's order (MS_BRB_GRAPH_PERM, by the
     backend: the ordering itself holds no permutation).
*/
#pragma once

#include <petscmat.h>

typedef struct _n_BRBOrdering *BRBOrdering;
struct _n_BRBOrdering {
  PetscInt  m;       /* local rows */
  PetscInt  nblocks; /* blocks, numbered colour by colour */
  PetscInt  ncolors;
  PetscInt *bstart; /* nblocks + 1: block b holds logical positions bstart[b] .. bstart[b+1]-1 */
  PetscInt *cstart; /* ncolors + 1: colour c holds blocks cstart[c] .. cstart[c+1]-1 */
  PetscInt *bid;    /* nblocks: the block's index in its construction (grid: ix + bx (iy + by iz); graph: the partition's block) */
  /* grid orderings */
  PetscBool grid;
  PetscInt  box[3], nblk[3];
  /* graph orderings */
  PetscInt   sh;        /* rows per block */
  PetscBool  bipartite; /* the block graph is bipartite (2 colours) */
  PetscInt64 nbedges;   /* edges of the block graph */
  PetscInt64 noff, ninblock; /* off-diagonal entries of the local diagonal block, and those inside a block */
};

/* The block counts per axis for a box of the given sizes: nearly cubic blocks, their number the paper's GPU rule
   (section 5.3.4: the smallest multiple of 32 that gives at least 32 x 6 blocks per multiprocessor, nsm of them),
   but blocks of at least minrows rows (small problems: fewer, larger blocks) */
PETSC_INTERN PetscErrorCode BRBOrderingGridBlocks(const PetscInt box[3], PetscInt nsm, PetscInt minrows, PetscInt nblk[3]);
/* The rows per block of a graph ordering of m rows, by the same rule */
PETSC_INTERN PetscErrorCode BRBOrderingGraphRows(PetscInt m, PetscInt nsm, PetscInt minrows, PetscInt *sh);
PETSC_INTERN PetscErrorCode BRBOrderingCreateGrid(const PetscInt box[3], const PetscInt nblk[3], BRBOrdering *);
/* A graph ordering of m rows in blocks of sh (the partition's block q: its rows q sh ..) from the block graph's edges
   (nkeys keys q nb + r of the pairs q < r of blocks coupled, ascending, nb = ceil(m / sh); MS_BRB_BLOCK_EDGES), noff and
   ninblock its statistics */
PETSC_INTERN PetscErrorCode BRBOrderingCreateGraph(PetscInt m, PetscInt sh, PetscInt64 nkeys, const unsigned long long *keys, PetscInt64 noff, PetscInt64 ninblock, BRBOrdering *);
PETSC_INTERN PetscErrorCode BRBOrderingDestroy(BRBOrdering *);
