/*
   Locality partition of a process's rows (src/mat/impls/modsell/locality.c): compact blocks of nearby unknowns of
   the symmetrised graph of a square SeqAIJ-family block (no DM needed), for the MATMODSELL ordering "partition"
   and for the preconditioners that work on blocks (block red-black ILU needs the blocks and their colours).

   Blocks are grown one after the other (graph growing): the first from a pseudo-peripheral node of the first
   component, each next one from the earliest-reached node of the front the earlier blocks left, so that consecutive
   blocks are neighbours. A block grows by taking, each time, the candidate (an unplaced neighbour of the block) with
   the most neighbours already in the block, the earliest reached among equals: round blocks that leave few pockets
   behind. A block takes exactly sh rows (the last one the rest), so that block b is slice b of an image of slice
   height sh. When a block runs out of candidates before sh rows (the end of a component, or a pocket the front
   enclosed), it goes on from the next front node, or from a new component: such a block is not connected (counted in
   ndisconnected). Rows inside a block are in the order taken. The block graph
   (blocks adjacent when an edge joins them) is coloured with two colours when it is bipartite, else greedily
   (first fit, blocks in order).

   This file is the host reference; the device version and its use by the image (column codes in the new
   numbering) follow (issue 12).
*/
#pragma once

#include <petscmodsell/private/modsellimpl.h>

typedef struct _n_MSLocality *MSLocality;
struct _n_MSLocality {
  PetscInt  m, sh;         /* rows, rows per block */
  PetscInt  nblocks;       /* ceil(m / sh) */
  PetscInt *perm;          /* m: new -> old (block b holds new rows b*sh .. min((b+1)*sh, m) - 1) */
  PetscInt *color;         /* nblocks: colour of each block, 0 .. ncolors-1 */
  PetscInt  ncolors;       /* 2 when the block graph is bipartite (1 when it has no edge) */
  PetscBool bipartite;     /* the block graph is bipartite */
  PetscInt  ndisconnected; /* blocks whose rows are not connected inside the block */
  PetscInt  ncomponents;   /* connected components of the graph */
  PetscInt64 nedges;       /* off-diagonal entries of the symmetrised graph (each direction counted) */
  PetscInt64 ninblock;     /* of those, inside a block */
};

/* Computes the partition of the square SeqAIJ-family matrix A (its pattern, symmetrised) for blocks of sh rows */
PETSC_EXTERN PetscErrorCode MSLocalityCompute(Mat, PetscInt, MSLocality *);
PETSC_EXTERN PetscErrorCode MSLocalityDestroy(MSLocality *);
