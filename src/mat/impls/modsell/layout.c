/*
   The layout of a MATSEQAIJMODSELL matrix's own product (modsellimpl.h, MSLayoutChoice): the scalar image, the block
   image (a block size from 2 to MS_BLOCK_MAX) or the cuSPARSE view, chosen from the exact counts of the images' builds
   (the same on the host and the GPU, so that a CPU run reports the GPU's choice).

   The time of a product is modelled as streamed bytes over the fraction of the copy bandwidth the format's kernel
   reaches, plus irregular bytes (gathers, scattered reads) at the CSR kernel's fraction:
     streamed (x and y once each: 16 bytes per row)
       cuSPARSE CSR   12 nnz + 4 (m + 1) + 16 m                                (value and column per nonzero)
       scalar image   12 slots + 8 m (diagonal apart) + 16 m                   (the slots read: padding included)
       block image    (8 bs^2 + 4) block slots + 8 bs m (diagonal blocks) + 16 m
     irregular
       a permuted scalar image: MS_LAYOUT_PERM_BYTES per row (the bucketed product's passes through the permutation);
       the bricks of a DMDA grid instead MS_LAYOUT_BRICKS_BYTES streamed (neighbours stay together)
       x read in a natural order that is not local (MATMODSELL_ORDERING_AUTO took the partition, or the block image's
       in-slice blocks are as few) when x does not fit in the L2 cache: MS_LAYOUT_X_BYTES per off-diagonal block outside
       its row's slice (8 more per further entry of the block's run of x), for the products that read x in that order
       (the CSR, an unpermuted scalar image, the block image).
   Calibration: FVM Poisson on 10.4 M tetrahedra, one NVIDIA H200 (2026-11-27, commit e9808e0,
   docs/results/2026-11-27-h200-fvm/spmv-summary.txt; 3.97 off-diagonals per row): the model gives 1.63x, 1.81x and
   1.11x aijcusparse for the structured numbering, the random one partitioned and the random one in its natural order,
   against 1.65x, 1.74x and 1.05x measured.

   MATMODSELL_LAYOUT_AUTO takes the block image when it moves at most MS_LAYOUT_BLOCK_GAIN of the scalar image's bytes
   (the scalar image is not even built when the blocks move at most that fraction of the least bytes a scalar image
   could, 12 (nnz - m) + 24 m, and x is read locally or fits in the L2 cache: MSLayoutBlocksSuffice()), and the cuSPARSE
   view when the image taken is not predicted at least MS_LAYOUT_MARGIN times as fast as cuSPARSE (only when none of the
   settings that shape the image were given: a slice height, kernel, ordering or row lanes asks for the image).
   docs/matrix.md, "The product's layout".
*/
#include "imageimpl.h"

/* fractions of the copy bandwidth reached: one NVIDIA H200, 2026-11-21, commit 47089f6, bench/spmv.sh,
   docs/results/2026-11-21-h200-spmv/ (copy 4190 GB/s at 12 nnz + 16 n bytes): MATMODSELL 3988-4189 GB/s (95-100%),
   aijcusparse 2478-2792 GB/s (59-67%) */
#define MS_LAYOUT_EFF_IMAGE 0.95
#define MS_LAYOUT_EFF_CSR   0.63
/* the image only when predicted at least this much faster than cuSPARSE */
#define MS_LAYOUT_MARGIN 1.1
/* the block image only when it moves at most this fraction of the scalar image's bytes */
#define MS_LAYOUT_BLOCK_GAIN 0.97
/* the bucketed permuted product's passes, bytes per row at the CSR kernel's fraction: the partitioned random FVM
   numbering's product took 0.4831 ms against 0.1922 ms in the structured numbering (10.4 M rows, H200, the calibration
   above), 117 bytes per row more */
#define MS_LAYOUT_PERM_BYTES 117.0
/* the bricks of a DMDA grid (a slice-based preconditioner's image, which the product shares): grid neighbours stay
   together, the passes through the permutation stream (x scattered: read 8 + index 4, write 8; the product's indices
   4 + 4; y gathered: index 4, read 8, write 8), and the cuSPARSE view is not taken */
#define MS_LAYOUT_BRICKS_BYTES 48.0
/* x read out of order from beyond the L2 cache, bytes per off-diagonal read: aijcusparse took 0.8418 ms on the random
   FVM numbering against 0.3180 ms on the structured one, and the natural-order image 0.8018 ms against 0.1922 ms: 211
   and 246 bytes per row more, 3.97 off-diagonals per row */
#define MS_LAYOUT_X_BYTES 56.0
/* x of more bytes than this is not held in the L2 cache (NVIDIA H100 and H200: 50 MB, shared with the matrix's stream):
   on the randomly numbered FVM mesh of 4.1 M hexahedra (x 33 MB, one H200) the partitioned image took 0.490 ms per CG +
   Jacobi iteration against aijcusparse's 0.534 (commit 6deb5ea, docs/results/2026-11-27-h200-demo), and with a 40 MB
   bound the rule took the cuSPARSE view instead: 0.603 ms against 0.557 (2026-11-28, docs/results/2026-11-28-h200-demo):
   an x of a third of the L2 read out of order while the matrix streams through the cache is not held there */
#define MS_LAYOUT_L2_BYTES (16.0 * 1048576.0)

/* the slots a product reads: those of the padding rows past the last row are not read */
static PetscReal MSLayoutSlotsRead(const MSImageLayout *l)
{
  const PetscInt rows = l->m / l->bs, pad = l->nslices * l->sh - rows;

  return (PetscReal)l->nslots - (PetscReal)l->lastw * (PetscReal)PetscMax(pad, 0);
}

/* the block image's bytes per product, x's extra reads left out */
static PetscReal MSLayoutBlockBytes(const MSImageLayout *bl)
{
  const PetscReal b2 = (PetscReal)(bl->bs * bl->bs), m = (PetscReal)bl->m;

  return (8.0 * b2 + 4.0) * MSLayoutSlotsRead(bl) + (bl->diag_apart ? 8.0 * (PetscReal)bl->bs * m : 0.0) + 16.0 * m;
}

/* the least bytes a scalar image of the block could move: no padding, no permutation, the diagonal apart */
static PetscReal MSLayoutScalarBound(const MSImageLayout *l)
{
  return 12.0 * (PetscReal)(l->nnz - l->m) + 24.0 * (PetscReal)l->m;
}

/* the block image's natural order is not local (its in-slice blocks fewer than MATMODSELL_ORDERING_AUTO's rule asks of
   the scalar one's entries) and x does not fit in the L2 cache */
static PetscBool MSLayoutBlocksFar(const MSImageLayout *bl)
{
  const PetscReal mb = (PetscReal)(bl->m / bl->bs);

  if (bl->noffdiag <= 0 || 8.0 * (PetscReal)bl->n <= MS_LAYOUT_L2_BYTES) return PETSC_FALSE;
  return (PetscBool)((PetscReal)bl->nlocal < PetscMin(0.15 + (PetscReal)bl->sh / mb, 0.5) * (PetscReal)bl->noffdiag);
}

PetscBool MSLayoutBlocksSuffice(MSImage bimg)
{
  const MSImageLayout *bl = &bimg->lay;

  if (!bl->counted || MSLayoutBlocksFar(bl)) return PETSC_FALSE;
  return (PetscBool)(MSLayoutBlockBytes(bl) <= MS_LAYOUT_BLOCK_GAIN * MSLayoutScalarBound(bl));
}

PetscErrorCode MSLayoutChoose(MSImage simg, MSImage bimg, const char *noblocks, PetscInt bs, const MatModSELLSettings *set, PetscBool image_set, MSLayoutChoice *c)
{
  const MSImageLayout *sl = simg ? &simg->lay : NULL, *bl = bimg ? &bimg->lay : NULL;
  const MSImageLayout *any = sl ? sl : bl;
  const PetscReal      m = (PetscReal)any->m, nnz = (PetscReal)any->nnz;
  const PetscBool      permuted = (PetscBool)(simg && (simg->perm || simg->bricks || simg->partition || simg->d_perm));
  const PetscBool      bricks   = (PetscBool)(simg && simg->bricks);
  PetscReal            xextra = 0.0, bc, bsc, bb = 0.0, tc, ts, tb = 0.0, timg;
  MatModSELLLayout     img;
  char                 blocks[128] = "";

  PetscFunctionBegin;
  PetscCheck(any && (!sl || sl->counted) && (!bl || bl->counted), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The images' counts are not set");
  c->bs      = bs;
  c->density = 0.0;
  /* x read in a non-local natural order from beyond the L2 cache */
  if (sl && sl->applied == MATMODSELL_ORDERING_PARTITION && simg->nat_off > 0 && 8.0 * (PetscReal)sl->n > MS_LAYOUT_L2_BYTES) {
    const PetscReal out = 1.0 - (PetscReal)simg->nat_local / (PetscReal)simg->nat_off;
    const PetscReal runs = bl ? (PetscReal)bl->noffdiag : nnz - m, len = bl ? (PetscReal)bl->bs : 1.0;

    xextra = out * runs * (MS_LAYOUT_X_BYTES + 8.0 * (len - 1.0));
  } else if (!sl && MSLayoutBlocksFar(bl)) xextra = (1.0 - (PetscReal)bl->nlocal / (PetscReal)bl->noffdiag) * (PetscReal)bl->noffdiag * (MS_LAYOUT_X_BYTES + 8.0 * (PetscReal)(bl->bs - 1));
  bc = 12.0 * nnz + 4.0 * (m + 1.0) + 16.0 * m;
  tc = (bc + xextra) / MS_LAYOUT_EFF_CSR;
  /* the scalar image: its bytes, or (not built: the blocks move fewer bytes than any scalar image could) its bound */
  bsc = sl ? 12.0 * MSLayoutSlotsRead(sl) + (sl->diag_apart ? 8.0 * m : 0.0) + 16.0 * m : MSLayoutScalarBound(bl);
  ts  = bsc / MS_LAYOUT_EFF_IMAGE + (permuted ? (bricks ? 0.0 : MS_LAYOUT_PERM_BYTES * m) : xextra) / MS_LAYOUT_EFF_CSR + (bricks ? MS_LAYOUT_BRICKS_BYTES * m / MS_LAYOUT_EFF_IMAGE : 0.0);
  if (bl) {
    const PetscReal b2 = (PetscReal)(bl->bs * bl->bs), stored = b2 * ((PetscReal)bl->noffdiag + (bl->diag_apart ? m / (PetscReal)bl->bs : 0.0));

    bb         = MSLayoutBlockBytes(bl);
    tb         = bb / MS_LAYOUT_EFF_IMAGE + xextra / MS_LAYOUT_EFF_CSR;
    c->density = stored > 0 ? nnz / stored : 1.0;
    PetscCall(PetscSNPrintf(blocks, sizeof(blocks), "; %" PetscInt_FMT "x%" PetscInt_FMT " blocks %.1f (block density %.2f)", bl->bs, bl->bs, m > 0 ? bb / m : 0.0, (double)c->density));
  }
  c->bytes[0] = bsc + (permuted ? (bricks ? MS_LAYOUT_BRICKS_BYTES : MS_LAYOUT_PERM_BYTES) * m : xextra);
  c->bytes[1] = bl ? bb + xextra : 0.0;
  c->bytes[2] = bc + xextra;
  /* the best image */
  img = (bl && tb <= MS_LAYOUT_BLOCK_GAIN * ts) ? MATMODSELL_LAYOUT_BLOCKS : MATMODSELL_LAYOUT_SCALAR;
  if (set->layout == MATMODSELL_LAYOUT_SCALAR) img = MATMODSELL_LAYOUT_SCALAR;
  if (set->layout == MATMODSELL_LAYOUT_BLOCKS && bl) img = MATMODSELL_LAYOUT_BLOCKS;
  timg     = img == MATMODSELL_LAYOUT_BLOCKS ? tb : ts;
  c->speed = timg > 0 ? tc / timg : 1.0;
  c->host  = img;
  switch (set->layout) {
  case MATMODSELL_LAYOUT_AUTO:
    c->layout = (!image_set && !bricks && m > 0 && c->speed < MS_LAYOUT_MARGIN) ? MATMODSELL_LAYOUT_CUSPARSE : img;
    break;
  case MATMODSELL_LAYOUT_CUSPARSE:
    c->layout = MATMODSELL_LAYOUT_CUSPARSE;
    break;
  default:
    c->layout = img;
  }
  {
    char        est[256];
    const char *what = "";

    char irr[96] = "";

    if (bricks) PetscCall(PetscSNPrintf(irr, sizeof(irr), "; the bricks' permutation %.1f", MS_LAYOUT_BRICKS_BYTES));
    else if (permuted && xextra > 0) PetscCall(PetscSNPrintf(irr, sizeof(irr), "; irregular: the permutation %.1f, x out of order %.1f", MS_LAYOUT_PERM_BYTES, xextra / m));
    else if (permuted) PetscCall(PetscSNPrintf(irr, sizeof(irr), "; irregular: the permutation %.1f", MS_LAYOUT_PERM_BYTES));
    else if (xextra > 0) PetscCall(PetscSNPrintf(irr, sizeof(irr), "; irregular: x out of order %.1f", xextra / m));
    PetscCall(PetscSNPrintf(est, sizeof(est), "bytes per row of a product: scalar image %s%.1f%s, cuSPARSE CSR %.1f%s; predicted %.2fx cuSPARSE", sl ? "" : "at least ", m > 0 ? bsc / m : 0.0, blocks, m > 0 ? bc / m : 0.0, irr, (double)c->speed));
    if (set->layout != MATMODSELL_LAYOUT_AUTO) {
      if (set->layout == MATMODSELL_LAYOUT_BLOCKS && !bl) what = "-mat_modsell_layout blocks, but no block layout: ";
      else what = "-mat_modsell_layout: ";
    } else if (c->layout == MATMODSELL_LAYOUT_CUSPARSE) what = "the image is not predicted 1.1x faster than cuSPARSE: ";
    else if (c->speed < MS_LAYOUT_MARGIN && bricks) what = "the bricks of a DMDA grid, shared with a preconditioner: ";
    else if (c->speed < MS_LAYOUT_MARGIN) what = "the image's settings were given: ";
    else if (img == MATMODSELL_LAYOUT_BLOCKS) what = "the blocks move the fewest bytes: ";
    else if (bl) what = "the blocks save too few bytes: ";
    if (!bl && noblocks) PetscCall(PetscSNPrintf(c->why, sizeof(c->why), "%s%s (no block layout: %s)", what, est, noblocks));
    else PetscCall(PetscSNPrintf(c->why, sizeof(c->why), "%s%s", what, est));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
