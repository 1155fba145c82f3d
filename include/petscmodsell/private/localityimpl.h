/*
   Locality partition of a process's rows (src/mat/impls/modsell/locality.c): compact blocks of nearby unknowns of
   the symmetrised graph of a square SeqAIJ-family block (no DM needed), for the MATMODSELL ordering "partition"
   and for the preconditioners that work on blocks (block red-black ILU needs the blocks and their colours).

   The permutation comes from the kernels of localitykernels.h (the algorithm is described there): a host reference
   (locality_reference.c) and a CUDA version (cuda/locality.cu) that compute the same permutation bit for bit.
   In short: multilevel parallel matching of the symmetrised graph (heavy edge per product of the sizes, hash
   tie-breaks) until nothing matches, Cuthill-McKee of the coarsest graph, every aggregate's rows its first child's
   then its second's (the child closer to what precedes first), the rows cut into consecutive runs of sh (block b is
   slice b of an image of slice height sh; the last block the rest), then a few rounds of pairwise swaps of rows
   between two blocks when both gain.

   A block is not necessarily connected (ndisconnected counts those): tests/mat/ex7 checks that at most 25% of the
   blocks are not connected on randomly numbered 7-point 20^3 grids with blocks of 64 rows, 30% on 40^3 with 128,
   50% on a kNN mesh of 3000 points with 128, and that at least 65%, 70% and 90% of their edges are inside a block
   (measured: 17%, 24%, 42% not connected; 0.683, 0.723, 0.932 inside). Graphs with many small components (or empty
   rows) have many blocks that cannot be connected.

   The block graph (blocks adjacent when an edge joins them) is coloured with two colours when it is bipartite, else
   greedily (first fit, blocks in order); colours and statistics are host code.

   MSLocalityCompute() computes everything on the host; MSLocalityPerm() only the permutation, of a 32-bit CSR in the
   memory of the kernel table its caller chose once (MSLocalityKernels_Reference on the host, MSLocalityKernels_CUDA on
   the GPU); MSLocalityPermHost() that of a Mat's host CSR with the reference table. Each logs the event
   MATMODSELL_Partition ("ModSELLPartition").
*/
#pragma once

#include <petscmodsell/private/modsellimpl.h>
#include <petscmodsell/private/localitykernels.h>

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

PETSC_EXTERN PetscLogEvent MATMODSELL_Partition; /* "ModSELLPartition": the permutation (host or device) */

/* Computes the partition of the square SeqAIJ-family matrix A (its pattern, symmetrised, weighted by the strengths of
   its entries) for blocks of sh rows, on the host (the reference kernel), with its statistics and the colours of the
   blocks */
PETSC_EXTERN PetscErrorCode MSLocalityCompute(Mat, PetscInt, MSLocality *);
PETSC_EXTERN PetscErrorCode MSLocalityDestroy(MSLocality *);
/* The permutation of a CSR (m rows, ai[m+1], aj: 32-bit, columns ascending in each row; aa: its values, or NULL for the
   pattern alone) in the memory of the kernel table k, for blocks of sh rows: perm[new] = old and, when iperm is not
   NULL, iperm[old] = new (arrays of m ints). stream: for a device table PETSc's current stream (the GPU time is logged;
   the CUDA table synchronizes it a few times, for the sizes of the levels); the reference ignores it. */
PETSC_EXTERN PetscErrorCode MSLocalityPerm(const MSLocalityKernels *, PetscInt, const int *, const int *, const double *, PetscInt, int *, int *, void *);
/* The permutation (new -> old, m entries) of the square SeqAIJ-family matrix A (its host CSR, pattern and values) with
   the reference table */
PETSC_EXTERN PetscErrorCode MSLocalityPermHost(Mat, PetscInt, PetscInt *);
