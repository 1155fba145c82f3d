static char help[] = "MATMODSELL products against AIJ: MatMult, MatMultAdd, MatMultTranspose(Add), MatGetDiagonal\n\
for every kernel, slice height and ordering, on matrices built three ways (MatConvert, MatSetType +\n\
MatSetFromOptions + MatSetValues, MatCreateModSELL). Options: -kind lap2d|lap3d|unstructured|random|edge\n\
and its sizes (see mstest.h), -row_weights w0,w1,.. (uneven split), -slice_heights 32,64,..,\n\
-orderings natural,rcm,.. (default natural,rcm), -tol <1e-11> (relative to ||A|| ||x||).\n\
-exact_chunk0 (GPU products): every configuration's MatMult and MatMultAdd also bit for bit against the same\n\
products with -mat_modsell_permute_chunk 0, and the device bytes of the bucket arrays as expected.\n\
-lanes l1,l2,..: also each of these threads per row (MatModSELLSetRowLanes(); 0: automatic), checked in MatModSELLGetInfo().\n";

#include <mstest.h>

/* sum over processes of ceil(local rows / sh): the slices of the diagonal blocks */
static PetscErrorCode ExpectedSlices(Mat B, PetscInt sh, PetscInt *ns)
{
  PetscInt m, loc;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(B, &m, NULL));
  loc = (m + sh - 1) / sh;
  PetscCallMPI(MPIU_Allreduce(&loc, ns, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)B)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix's permute chunk c > 0 against chunk 0 (the separate gathers), bit for bit: every variant forms each row's
   sum in the same order. Right after the chunk-c products (on the GPU) the bucket arrays exist: 16 bytes per row on
   every process whose diagonal block is permuted (more than one row) and has more rows than c, when the ordering
   applied is known (not mixed); more with the recoded codes (-mat_modsell_permute_recode) */
static PetscErrorCode CompareChunk0(Mat B, PetscRandom rnd, const char *label, PetscInt *nfail)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)B);
  PetscInt       c, m;
  Vec            x, y, w, y0, z, z0;
  PetscBool      eq[2], recode = PETSC_FALSE, image;
  MatModSELLInfo info;

  PetscFunctionBegin;
  PetscCall(MatModSELLGetPermuteChunk(B, &c));
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_modsell_permute_recode", &recode, NULL));
  PetscCall(MSTestCreateVecs(B, &x, &y));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &y0));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &z0));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(w, rnd));
  PetscCall(MatMult(B, x, y));
  PetscCall(MatMultAdd(B, x, w, z));
  PetscCall(MatModSELLGetInfo(B, &info));
  {
    const PetscScalar *a;
    PetscMemType       mt;
    PetscMPIInt        dev, alldev;
    PetscCall(VecGetArrayReadAndMemType(x, &a, &mt));
    PetscCall(VecRestoreArrayReadAndMemType(x, &a));
    dev = PetscMemTypeDevice(mt) ? 1 : 0;
    PetscCallMPI(MPIU_Allreduce(&dev, &alldev, 1, MPI_INT, MPI_MIN, comm));
    if (!alldev) info.ordering = MATMODSELL_ORDERING_AUTO; /* host products: no bucket arrays to check */
  }
  PetscCall(MSTestImageProduct(B, &image));
  if (!image) info.ordering = MATMODSELL_ORDERING_AUTO; /* the cuSPARSE view's products (no image): no bucket arrays */
  if (info.ordering != MATMODSELL_ORDERING_AUTO) {
    const PetscBool permuted = (PetscBool)(info.ordering != MATMODSELL_ORDERING_NATURAL);
    PetscInt64      loc[2], glob[2], expect;
    PetscInt        n;

    PetscCall(MatGetLocalSize(B, &m, &n));
    loc[0] = (permuted && m == n && m > 1 && m > c) ? 16 * (PetscInt64)m : 0; /* px, qx, py, qy */
    loc[1] = (permuted && m == n && m > 1) ? 1 : 0;                           /* a permuted block */
    PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_INT64, MPI_SUM, comm));
    expect = glob[0];
    if (recode ? (info.permute_bytes < (size_t)expect || (glob[1] && !info.permute_bytes)) : info.permute_bytes != (size_t)expect) {
      (*nfail)++;
      PetscCall(PetscPrintf(comm, "FAIL %s: the bucket arrays of permute chunk %" PetscInt_FMT " take %zu device bytes, expected %s%" PetscInt64_FMT "\n", label, c, info.permute_bytes, recode ? "more than " : "", expect));
    }
  }
  PetscCall(MatModSELLSetPermuteChunk(B, 0));
  PetscCall(MatMult(B, x, y0));
  PetscCall(MatMultAdd(B, x, w, z0));
  PetscCall(MatModSELLSetPermuteChunk(B, c));
  PetscCall(VecEqual(y, y0, &eq[0]));
  PetscCall(VecEqual(z, z0, &eq[1]));
  for (PetscInt i = 0; i < 2; i++)
    if (!eq[i] && image) { /* (cuSPARSE's products need not repeat their bits) */
      (*nfail)++;
      PetscCall(PetscPrintf(comm, "FAIL %s: %s with permute chunk %" PetscInt_FMT " differs from permute chunk 0 (bit for bit)\n", label, i ? "MatMultAdd" : "MatMult", c));
    }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&z0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  MSTestCSR          csr;
  Mat                A, B;
  PetscRandom        rnd;
  PetscInt           shs[16] = {32, 64, 96, 512, 1024}, nsh = 5, nfailtot = 0;
  PetscReal          tol = 1e-11;
  PetscBool          flg, exact = PETSC_FALSE;
  PetscInt           nord = 2, lanes[8] = {-1}, nlanes = 8;
  const char *const  paths[] = {"MatConvert", "MatSetType+MatSetFromOptions", "MatCreateModSELL"};
  MatModSELLKernel   kernels[2]   = {MATMODSELL_KERNEL_MODSELL, MATMODSELL_KERNEL_SELL};
  MatModSELLOrdering orderings[5] = {MATMODSELL_ORDERING_NATURAL, MATMODSELL_ORDERING_RCM};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "ex1 options", NULL);
  PetscCall(PetscOptionsIntArray("-slice_heights", "slice heights to try", NULL, shs, &nsh, &flg));
  if (!flg) nsh = 5;
  nord = 5;
  PetscCall(PetscOptionsEnumArray("-orderings", "orderings to try (bricks needs a DMDA: not here)", NULL, MatModSELLOrderings, (PetscEnum *)orderings, &nord, &flg));
  if (!flg) nord = 2;
  PetscCall(PetscOptionsReal("-tol", "relative tolerance", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsBool("-exact_chunk0", "products also bit for bit against permute chunk 0 (GPU)", NULL, exact, &exact, NULL));
  PetscCall(PetscOptionsIntArray("-lanes", "threads per row to try (0: automatic; default: the matrix's setting)", NULL, lanes, &nlanes, &flg));
  if (!flg) {
    nlanes   = 1;
    lanes[0] = -1;
  }
  PetscOptionsEnd();

  PetscCall(MSTestGenerate(comm, &csr));
  PetscCall(MSTestCreateMat(comm, &csr, MATAIJ, &A));
  PetscCall(MSTestPrintSplit(A));
  PetscCall(MSTestRandomCreate(comm, &rnd));

  for (PetscInt path = 0; path < 3; path++) {
    PetscInt           nfail = 0, nconf = 0, sh0;
    MatModSELLKernel   k0;
    MatModSELLOrdering o0;
    PetscBool          isms;
    MatType            type;

    if (path == 0) PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));
    else if (path == 1) PetscCall(MSTestCreateMat(comm, &csr, NULL, &B));
    else {
      PetscInt  m, n, rs, re, cs, ce, *dnnz, *onnz;

      PetscCall(MatGetLocalSize(A, &m, &n));
      PetscCall(MatGetOwnershipRange(A, &rs, &re));
      PetscCall(MatGetOwnershipRangeColumn(A, &cs, &ce));
      PetscCall(PetscCalloc2(m + 1, &dnnz, m + 1, &onnz));
      for (PetscInt i = rs; i < re; i++)
        for (PetscInt e = csr.ia[i]; e < csr.ia[i + 1]; e++) {
          if (csr.ja[e] >= cs && csr.ja[e] < ce) dnnz[i - rs]++;
          else onnz[i - rs]++;
        }
      PetscCall(MatCreateModSELL(comm, m, n, csr.nrows, csr.ncols, 0, dnnz, 0, onnz, &B));
      PetscCall(PetscFree2(dnnz, onnz));
      PetscCall(MSTestFill(B, &csr, 1.0));
    }
    PetscCall(MatGetType(B, &type));
    PetscCall(MSTestIsModSELL(B, &isms));
    PetscCall(MatModSELLGetSliceHeight(B, &sh0));
    PetscCall(MatModSELLGetKernel(B, &k0));
    PetscCall(MatModSELLGetOrdering(B, &o0));
    PetscCall(PetscPrintf(comm, "%s: type %s (%s), initial settings: slice height %" PetscInt_FMT ", kernel %s, ordering %s\n", paths[path], type, isms ? "a MATMODSELL type" : "FAIL: not a MATMODSELL type", sh0, MatModSELLKernels[k0], MatModSELLOrderings[o0]));
    if (!isms) nfail++;
    /* the initial settings, before any change */
    {
      char label[256];
      PetscCall(PetscSNPrintf(label, sizeof(label), "%s, initial settings", paths[path]));
      PetscCall(MSTestCompareProducts(A, B, rnd, tol, label, &nfail));
      if (exact) PetscCall(CompareChunk0(B, rnd, label, &nfail));
    }
    for (PetscInt ki = 0; ki < 2; ki++)
      for (PetscInt si = 0; si < nsh; si++)
        for (PetscInt oi = 0; oi < nord * nlanes; oi++) {
          const PetscInt     ln = lanes[oi / nord];
          char               label[256];
          PetscInt           sh, nsl;
          MatModSELLKernel   k;
          MatModSELLOrdering o;
          MatModSELLInfo     info;

          PetscCall(PetscSNPrintf(label, sizeof(label), "%s, kernel %s, slice height %" PetscInt_FMT ", ordering %s, lanes %" PetscInt_FMT, paths[path], MatModSELLKernels[kernels[ki]], shs[si], MatModSELLOrderings[orderings[oi % nord]], ln));
          if (ln >= 0) PetscCall(MatModSELLSetRowLanes(B, ln));
          PetscCall(MatModSELLSetKernel(B, kernels[ki]));
          PetscCall(MatModSELLSetSliceHeight(B, shs[si]));
          PetscCall(MatModSELLSetOrdering(B, orderings[oi % nord]));
          PetscCall(MatModSELLGetSliceHeight(B, &sh));
          PetscCall(MatModSELLGetKernel(B, &k));
          PetscCall(MatModSELLGetOrdering(B, &o));
          if (sh != shs[si] || k != kernels[ki] || o != orderings[oi % nord]) {
            nfail++;
            PetscCall(PetscPrintf(comm, "FAIL %s: getters return slice height %" PetscInt_FMT ", kernel %s, ordering %s\n", label, sh, MatModSELLKernels[k], MatModSELLOrderings[o]));
          }
          PetscCall(MSTestCompareProducts(A, B, rnd, tol, label, &nfail));
          if (exact) PetscCall(CompareChunk0(B, rnd, label, &nfail));
          /* the products used an image built with these settings */
          PetscCall(MatModSELLGetInfo(B, &info));
          PetscCall(ExpectedSlices(B, shs[si], &nsl));
          if (ln >= 0 && (ln ? info.row_lanes != ln || info.row_lanes_min != ln : info.row_lanes < 1 || info.row_lanes > 32 || (info.row_lanes & (info.row_lanes - 1)))) {
            nfail++;
            PetscCall(PetscPrintf(comm, "FAIL %s: info reports %" PetscInt_FMT " to %" PetscInt_FMT " threads per row\n", label, info.row_lanes_min, info.row_lanes));
          }
          if (info.slice_height != shs[si] || info.nslices != nsl || info.nslots < info.noffdiag) {
            nfail++;
            PetscCall(PetscPrintf(comm, "FAIL %s: info reports slice height %" PetscInt_FMT ", %" PetscInt_FMT " slices (expected %" PetscInt_FMT "), %" PetscInt64_FMT " slots for %" PetscInt64_FMT " off-diagonals\n", label, info.slice_height, info.nslices, nsl, info.nslots, info.noffdiag));
          }
          nconf++;
        }
    PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " configurations (kernel x slice height x ordering%s): %s\n", paths[path], nconf, nlanes > 1 || lanes[0] >= 0 ? " x lanes" : "", nfail ? "FAILED" : "all products match AIJ"));
    nfailtot += nfail;
    PetscCall(MatViewFromOptions(B, NULL, "-view_after_products")); /* e.g. how the MPI product ran on the GPU */
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscPrintf(comm, "%s\n", nfailtot ? "FAILED" : "OK"));

  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # Every kind on 1, 2 and 3 processes: PETSc's split, uneven splits, a process without rows.
   # Each run: 3 ways to build the matrix x (initial settings + 2 kernels x 5 slice heights x 2 orderings).
   test:
     suffix: lap2d
     args: -kind lap2d -nx 23 -ny 17
   test:
     suffix: lap2d_2
     nsize: 2
     args: -kind lap2d -nx 23 -ny 17 -row_weights 3,1 -slice_heights 32,96,1024
   test:
     suffix: lap2d_3
     nsize: 3
     args: -kind lap2d -nx 23 -ny 17 -row_weights 2,5,0 -slice_heights 32,96,1024
   test:
     suffix: lap3d
     args: -kind lap3d -nx 9 -ny 8 -nz 7
   test:
     suffix: lap3d_3
     nsize: 3
     args: -kind lap3d -nx 9 -ny 8 -nz 7 -row_weights 1,0,4 -slice_heights 32,96,1024
   test:
     suffix: unstructured
     args: -kind unstructured -n 1100 -k 5
   test:
     suffix: unstructured_3
     nsize: 3
     args: -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024
   test:
     suffix: random
     args: -kind random -n 1300 -nzr 6
   test:
     suffix: random_2
     nsize: 2
     args: -kind random -n 1300 -nzr 6 -row_weights 0,1 -slice_heights 32,96,1024
   # rectangular (no diagonal stored apart, plain encoding)
   test:
     suffix: random_rect
     args: -kind random -n 700 -ncols 1100 -nzr 8
   test:
     suffix: random_rect_3
     nsize: 3
     args: -kind random -n 1100 -ncols 700 -nzr 8 -row_weights 2,0,1 -slice_heights 32,96,1024
   # empty rows, diagonal-only rows, zero diagonals, rows without diagonal, a row of 2100 entries
   test:
     suffix: edge
     args: -kind edge -n 2500 -slice_heights 32,96,1024
   test:
     suffix: edge_2
     nsize: 2
     args: -kind edge -n 2500 -slice_heights 32,96,1024 -row_weights 1,2
   test:
     suffix: edge_3
     nsize: 3
     args: -kind edge -n 2500 -slice_heights 32,96,1024 -row_weights 1,3,0
   # fewer rows than a slice; a single row
   test:
     suffix: small
     args: -kind edge -n 20 -dense_row 15
   test:
     suffix: small_3
     nsize: 3
     args: -kind edge -n 20 -dense_row 15 -slice_heights 32,96,1024
   test:
     suffix: tiny
     nsize: 2
     args: -kind random -n 1 -nzr 1 -row_weights 0,1 -slice_heights 32,96,1024
   # settings from the options database (every way of creating the matrix reads them)
   test:
     suffix: options
     args: -kind lap2d -nx 13 -ny 9 -mat_modsell_slice_height 64 -mat_modsell_kernel sell -mat_modsell_ordering rcm -slice_heights 96
   test:
     suffix: options_2
     nsize: 2
     args: -kind lap2d -nx 13 -ny 9 -mat_modsell_slice_height 64 -mat_modsell_kernel sell -mat_modsell_ordering rcm -slice_heights 96

   # threads per row (MatModSELLSetRowLanes()): rows of about 60 entries, every power of two and the automatic choice;
   # the host products add in the GPU's order
   test:
     suffix: lanes
     args: -kind unstructured -n 700 -k 30 -slice_heights 32,96,1024 -orderings natural,partition -lanes 0,1,2,4,8,32
   test:
     suffix: lanes_3
     nsize: 3
     args: -kind unstructured -n 700 -k 30 -row_weights 0,3,2 -slice_heights 32,96,1024 -orderings natural,partition -lanes 0,1,2,4,8,32

   # the partition ordering too (host products here; the GPU cases below compare with this output)
   test:
     suffix: orderings
     args: -kind lap2d -nx 23 -ny 17 -orderings natural,rcm,partition

   # With CUDA the default vectors of MATMODSELL are on the GPU, so the tests above run the device
   # kernels; these run the same comparisons with explicit device vectors and with host vectors.
   testset:
     requires: cuda
     args: -vec_type cuda
     test:
       suffix: cuda_lap2d_3
       nsize: 3
       args: -kind lap2d -nx 23 -ny 17 -row_weights 2,5,0 -slice_heights 32,96,1024
       output_file: output/ex1_lap2d_3.out
     test:
       suffix: cuda_edge
       args: -kind edge -n 2500 -slice_heights 32,96,1024
       output_file: output/ex1_edge.out
     test:
       suffix: cuda_edge_3
       nsize: 3
       args: -kind edge -n 2500 -slice_heights 32,96,1024 -row_weights 1,3,0
       output_file: output/ex1_edge_3.out
     test:
       suffix: cuda_unstructured_3
       nsize: 3
       args: -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024
       output_file: output/ex1_unstructured_3.out
     test:
       suffix: cuda_random_rect_3
       nsize: 3
       args: -kind random -n 1100 -ncols 700 -nzr 8 -row_weights 2,0,1 -slice_heights 32,96,1024
       output_file: output/ex1_random_rect_3.out
     test:
       suffix: cuda_small
       args: -kind edge -n 20 -dense_row 15
       output_file: output/ex1_small.out
     # the GPU's lanes, with the bucketed product bit for bit against the separate gathers
     test:
       suffix: cuda_lanes
       args: -kind unstructured -n 700 -k 30 -slice_heights 32,96,1024 -orderings natural,partition -lanes 0,1,2,4,8,32 -exact_chunk0 -mat_modsell_permute_chunk 37
       output_file: output/ex1_lanes.out
     test:
       suffix: cuda_lanes_3
       nsize: 3
       args: -kind unstructured -n 700 -k 30 -row_weights 0,3,2 -slice_heights 32,96,1024 -orderings natural,partition -lanes 0,1,2,4,8,32 -exact_chunk0 -mat_modsell_permute_chunk 37
       output_file: output/ex1_lanes_3.out
     test:
       suffix: cuda_tiny
       nsize: 2
       args: -kind random -n 1 -nzr 1 -row_weights 0,1 -slice_heights 32,96,1024
       output_file: output/ex1_tiny.out
     # MPIAIJ's order of the MPI product instead of the overlapped one (the diagonal block's kernel on a second stream)
     test:
       suffix: cuda_no_overlap_edge_3
       nsize: 3
       args: -kind edge -n 2500 -slice_heights 32,96,1024 -row_weights 1,3,0 -mat_modsell_overlap 0
       output_file: output/ex1_edge_3.out
     # the overlapped product with the halo through the matrix's pinned host buffers (MPI not CUDA-aware) instead of
     # PETSc's VecScatter
     test:
       suffix: cuda_pinned_halo_unstructured_3
       nsize: 3
       args: -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024 -mat_modsell_ipc_halo 0 -mat_modsell_pinned_halo 1 -use_gpu_aware_mpi 0
       output_file: output/ex1_unstructured_3.out
     # the overlapped product with the halo through PETSc's VecScatter (the exchange through the host)
     test:
       suffix: cuda_scatter_halo_unstructured_3
       nsize: 3
       args: -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024 -mat_modsell_ipc_halo 0 -use_gpu_aware_mpi 0
       output_file: output/ex1_unstructured_3.out
     # the overlapped product with the halo through CUDA IPC, the default, named (processes sharing the GPU map each
     # other's buffers; where the handles cannot be mapped every process keeps PETSc's exchange: the products are
     # checked either way)
     test:
       suffix: cuda_ipc_halo_unstructured_3
       nsize: 3
       args: -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024 -mat_modsell_ipc_halo 1 -use_gpu_aware_mpi 0
       output_file: output/ex1_unstructured_3.out
     # -mat_view ::ascii_info_detail names the exchange of the overlapped product once it has run: the exchanges
     # through the host (-mat_modsell_ipc_halo 0: PETSc's VecScatter or the pinned buffers), and the default, CUDA IPC
     # (two processes of one node sharing the GPU map each other's buffers)
     test:
       suffix: cuda_view_halo_2
       nsize: 2
       args: -kind edge -n 400 -slice_heights 32 -mat_modsell_ipc_halo 0 -mat_modsell_pinned_halo {{0 1}separate output} -use_gpu_aware_mpi 0 -view_after_products ::ascii_info_detail
       filter: grep "GPU product" | sort -u
     test:
       suffix: cuda_view_halo_2_ipc
       nsize: 2
       args: -kind edge -n 400 -slice_heights 32 -use_gpu_aware_mpi 0 -view_after_products ::ascii_info_detail
       filter: grep "GPU product" | sort -u
   testset:
     requires: cuda
     args: -vec_type standard
     test:
       suffix: cuda_host_edge_3
       nsize: 3
       args: -kind edge -n 2500 -slice_heights 32,96,1024 -row_weights 1,3,0
       output_file: output/ex1_edge_3.out
     test:
       suffix: cuda_host_lap2d
       args: -kind lap2d -nx 23 -ny 17
       output_file: output/ex1_lap2d.out
   # The bucketed permuted product on the GPU (-mat_modsell_permute_chunk): buckets of 1 row (one per row), 37 and 256
   # rows (many buckets at these sizes, one on a process of fewer rows), 0 (the separate gathers). -exact_chunk0: every
   # MatMult and MatMultAdd also bit for bit against chunk 0's, and the bucket arrays' device bytes as expected. Each
   # run: kernels modsell (diagonal apart, in-slice codes) and sell (neither), MatMultAdd with w != y and w == y; on 3
   # processes uneven rows and a process without rows. The outputs print only the number of configurations (kernels x
   # slice heights x orderings), the same as in the tests named
   testset:
     requires: cuda
     args: -vec_type cuda -exact_chunk0 -mat_modsell_permute_chunk {{0 1 37 256}}
     test:
       suffix: cuda_chunk_lap2d
       args: -kind lap2d -nx 23 -ny 17 -orderings natural,rcm,partition
       output_file: output/ex1_orderings.out
     test:
       suffix: cuda_chunk_lap2d_3
       nsize: 3
       args: -kind lap2d -nx 23 -ny 17 -row_weights 2,5,0 -slice_heights 32,96,1024 -orderings rcm,partition
       output_file: output/ex1_lap2d_3.out
     test:
       suffix: cuda_chunk_edge_3
       nsize: 3
       args: -kind edge -n 2500 -slice_heights 32,96,1024 -row_weights 1,3,0 -orderings rcm,partition
       output_file: output/ex1_edge_3.out
     test:
       suffix: cuda_chunk_small
       args: -kind edge -n 20 -dense_row 15 -orderings rcm,partition
       output_file: output/ex1_small.out
     # the developer's alternative: the column codes rewritten once to positions of the bucketed x
     test:
       suffix: cuda_chunk_recode_3
       nsize: 3
       args: -kind unstructured -n 1500 -k 7 -row_weights 0,3,2 -slice_heights 32,96,1024 -orderings rcm,partition -mat_modsell_permute_recode
       output_file: output/ex1_unstructured_3.out

TEST*/
