static char help[] = "MatModSELLGetInfo() and -mat_view ::ascii_info of MATMODSELL. The statistics (slices, widest\n\
slice, slots, off-diagonals, in-slice off-diagonals) are compared with values counted independently\n\
from the CSR of the matrix for both kernels and several slice heights; with -check_rcm, RCM must raise\n\
the fraction of off-diagonals read from shared memory. Matrix options as in ex1.\n";

#include <mstest.h>

/* the statistics expected for the natural ordering, counted from the global CSR */
static PetscErrorCode ExpectedInfo(Mat B, const MSTestCSR *csr, PetscInt sh, MatModSELLKernel k, MatModSELLInfo *e)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)B);
  PetscInt   rs, re, cs, ce, m, n, wd = 0, wo = 0;
  PetscInt64 loc[4] = {0, 0, 0, 0}, glob[4];
  PetscMPIInt size;
  PetscInt   wloc, wglob;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetOwnershipRange(B, &rs, &re));
  PetscCall(MatGetOwnershipRangeColumn(B, &cs, &ce));
  m = re - rs;
  n = ce - cs;
  {
    const PetscBool modsell = (PetscBool)(k == MATMODSELL_KERNEL_MODSELL && m == n); /* diagonal apart, in-slice columns */
    for (PetscInt s = 0; s * sh < m; s++) {
      PetscInt sd = 0, so = 0; /* slice widths of the diagonal and off-diagonal blocks */
      for (PetscInt r = s * sh; r < PetscMin(m, (s + 1) * sh); r++) {
        const PetscInt i = rs + r;
        PetscInt       cd = 0, co = 0;
        for (PetscInt q = csr->ia[i]; q < csr->ia[i + 1]; q++) {
          const PetscInt j = csr->ja[q];
          if (j >= cs && j < ce) {
            if (modsell && j - cs == r) continue; /* the diagonal, stored apart */
            cd++;
            if (modsell && (j - cs) / sh == s) loc[3]++; /* read from shared memory */
          } else co++;
        }
        sd = PetscMax(sd, cd);
        so = PetscMax(so, co);
        loc[2] += cd + co;
      }
      wd = PetscMax(wd, sd);
      wo = PetscMax(wo, so);
      loc[0]++;
      loc[1] += (PetscInt64)sh * (sd + (size > 1 ? so : 0));
    }
  }
  PetscCallMPI(MPIU_Allreduce(loc, glob, 4, MPIU_INT64, MPI_SUM, comm));
  wloc = PetscMax(wd, wo);
  PetscCallMPI(MPIU_Allreduce(&wloc, &wglob, 1, MPIU_INT, MPI_MAX, comm));
  PetscCall(PetscMemzero(e, sizeof(*e)));
  e->slice_height = sh;
  e->nslices      = (PetscInt)glob[0];
  e->nslots       = glob[1];
  e->noffdiag     = glob[2];
  e->nlocal       = glob[3];
  e->max_width    = wglob;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetAndGetInfo(Mat B, PetscInt sh, MatModSELLKernel k, MatModSELLOrdering o, MatModSELLInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatModSELLSetSliceHeight(B, sh));
  PetscCall(MatModSELLSetKernel(B, k));
  PetscCall(MatModSELLSetOrdering(B, o));
  PetscCall(MatModSELLGetInfo(B, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  MSTestCSR      csr;
  Mat            B;
  PetscInt       shs[3] = {32, 128, 1024}, nfail = 0;
  PetscBool      checkrcm = PETSC_FALSE;
  MatModSELLInfo info, e;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_rcm", &checkrcm, NULL));
  PetscCall(MSTestGenerate(comm, &csr));
  PetscCall(MSTestCreateMat(comm, &csr, NULL, &B));
  PetscCall(MSTestPrintSplit(B)); /* (-mat_view views B at the end of its assembly) */

  for (PetscInt ki = 0; ki < 2; ki++)
    for (PetscInt si = 0; si < 3; si++) {
      const MatModSELLKernel k  = ki ? MATMODSELL_KERNEL_SELL : MATMODSELL_KERNEL_MODSELL;
      const PetscInt         sh = shs[si];
      PetscBool              ok;
      MatModSELLInfo         ir;

      PetscCall(SetAndGetInfo(B, sh, k, MATMODSELL_ORDERING_NATURAL, &info));
      PetscCall(ExpectedInfo(B, &csr, sh, k, &e));
      ok = (PetscBool)(info.slice_height == e.slice_height && info.nslices == e.nslices && info.nslots == e.nslots && info.noffdiag == e.noffdiag && info.nlocal == e.nlocal && info.max_width == e.max_width);
      ok = (PetscBool)(ok && PetscAbsReal(info.padding_ratio - (info.noffdiag ? (PetscReal)info.nslots / (PetscReal)info.noffdiag : 1.0)) < 1e-12);
      ok = (PetscBool)(ok && PetscAbsReal(info.local_fraction - (info.noffdiag ? (PetscReal)info.nlocal / (PetscReal)info.noffdiag : 0.0)) < 1e-12);
      PetscCall(PetscPrintf(comm, "kernel %-7s slice height %4" PetscInt_FMT ": %4" PetscInt_FMT " slices, widest %4" PetscInt_FMT ", %8" PetscInt64_FMT " slots, %6" PetscInt64_FMT " off-diagonals, %6" PetscInt64_FMT " in-slice: %s\n", MatModSELLKernels[k], sh, info.nslices, info.max_width, info.nslots, info.noffdiag, info.nlocal, ok ? "as counted from the CSR" : "FAILED"));
      if (!ok) {
        nfail++;
        PetscCall(PetscPrintf(comm, "  expected %" PetscInt_FMT " slices, widest %" PetscInt_FMT ", %" PetscInt64_FMT " slots, %" PetscInt64_FMT " off-diagonals, %" PetscInt64_FMT " in-slice\n", e.nslices, e.max_width, e.nslots, e.noffdiag, e.nlocal));
      }
      /* RCM: same entries, a permuted layout */
      PetscCall(SetAndGetInfo(B, sh, k, MATMODSELL_ORDERING_RCM, &ir));
      ok = (PetscBool)(ir.nslices == e.nslices && ir.noffdiag == e.noffdiag && ir.max_width == e.max_width && ir.nslots >= ir.noffdiag && ir.nlocal <= ir.noffdiag && (k == MATMODSELL_KERNEL_MODSELL || ir.nlocal == 0));
      if (checkrcm && k == MATMODSELL_KERNEL_MODSELL) {
        /* with a single slice per block every column of the block is in the slice, whatever the order */
        PetscInt m, mmax;
        PetscCall(MatGetLocalSize(B, &m, NULL));
        PetscCallMPI(MPIU_Allreduce(&m, &mmax, 1, MPIU_INT, MPI_MAX, comm));
        if (mmax > sh) {
          PetscCall(PetscPrintf(comm, "  RCM raises the fraction read from shared memory: %s\n", ir.local_fraction > info.local_fraction ? "yes" : "NO"));
          if (ir.local_fraction <= info.local_fraction) nfail++;
        } else {
          PetscCall(PetscPrintf(comm, "  one slice per block: RCM keeps the fraction read from shared memory: %s\n", ir.nlocal == info.nlocal ? "yes" : "NO"));
          if (ir.nlocal != info.nlocal) nfail++;
        }
      }
      if (!ok) {
        nfail++;
        PetscCall(PetscPrintf(comm, "  FAILED: with RCM %" PetscInt_FMT " slices, widest %" PetscInt_FMT ", %" PetscInt64_FMT " slots, %" PetscInt64_FMT " off-diagonals, %" PetscInt64_FMT " in-slice\n", ir.nslices, ir.max_width, ir.nslots, ir.noffdiag, ir.nlocal));
      }
    }
  /* the view of a matrix with non-default settings */
  PetscCall(MatModSELLSetSliceHeight(B, 64));
  PetscCall(MatModSELLSetKernel(B, MATMODSELL_KERNEL_SELL));
  PetscCall(MatModSELLSetOrdering(B, MATMODSELL_ORDERING_RCM));
  PetscCall(MatViewFromOptions(B, NULL, "-mat_view"));
  PetscCall(PetscPrintf(comm, "%s\n", nfail ? "FAILED" : "OK"));
  PetscCall(MatDestroy(&B));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # (with CUDA the GPU image may be built at assembly: the device bytes are not compared)
   test:
     suffix: lap2d
     args: -kind lap2d -nx 17 -ny 13 -mat_view ::ascii_info
     filter: sed -e "s@device bytes [0-9]*@device bytes -@"
   test:
     suffix: lap2d_3
     nsize: 3
     args: -kind lap2d -nx 17 -ny 13 -row_weights 1,2,0 -mat_view ::ascii_info
     filter: sed -e "s@device bytes [0-9]*@device bytes -@"
   # randomly numbered points: RCM raises the fraction of in-slice (shared memory) columns
   test:
     suffix: unstructured_rcm
     args: -kind unstructured -n 1500 -check_rcm
   test:
     suffix: unstructured_rcm_3
     nsize: 3
     args: -kind unstructured -n 1500 -check_rcm -row_weights 2,3,0 -mat_view ::ascii_info
     filter: sed -e "s@device bytes [0-9]*@device bytes -@"
   test:
     suffix: edge_2
     nsize: 2
     args: -kind edge -n 2500 -row_weights 0,1
   test:
     suffix: random_rect_3
     nsize: 3
     args: -kind random -n 500 -ncols 800 -row_weights 1,1,1

TEST*/
