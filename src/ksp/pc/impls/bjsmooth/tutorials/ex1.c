static char help[] = "PCBJSMOOTH driver: one configuration per run.\n\
  -problem lap3d -n <n>   : 7-point Laplacian on an n^3 grid, b = 1; or -f <file>: A (and b, else b = 1) in PETSc binary\n\
  -brick bx,by,bz         : number the Laplacian's points by bricks of bx x by x bz points (lexicographic inside\n\
                            and between bricks) instead of lexicographically\n\
  -dmda                   : build the Laplacian as an application does, with DMCreateMatrix() on a 3D DMDA and\n\
                            MatSetValuesStencil() (natural numbering; -mat_modsell_ordering bricks then orders the\n\
                            format by bricks of the grid)\n\
  -mode smoother|cg       : smoother: -outer <1000> outer iterations of the PC from x = 0 through PCApplyRichardson,\n\
                            the residual ||b - A x||^2 computed (and read back) every -every <10> iterations (Wikberg (2024),\n\
                            section 4.4); cg: KSPSolve with the options' KSP and PC (-ksp_rtol 1e-8 unless given)\n\
  -mat_type <aij>         : type a host copy of the AIJ matrix is converted to in place (timed as setup): aij,\n\
                            aijcusparse, modsell\n\
  -ms_rcm, -ms_sh <sh>    : RCM ordering / slice height of a modsell matrix\n\
  -napply <0>             : cg mode: also time this many PCApply and MatMult calls (not in the solve time)\n\
  -repeat <2>             : repeat the measurement (the first run warms the device up); the last one is reported\n\
  -csv <file>             : smoother mode: CSV 'iteration,seconds,rnorm2' of the last repetition\n\
Prints one line 'RESULT key=value ...'. Times are wall times with the device synchronized.\n";

#include <petscmodsell.h>
#include <petscksp.h>
#include <petscdmda.h>
#include <petsctime.h>
#include <mstestpc.h> /* tests/include: MSTestLaplacianSetValues() */

/* the number of grid point (x, y, z): lexicographic (brick[0] = 0), or by bricks of brick[0] x brick[1] x brick[2]
   points, the bricks in lexicographic order and the points of a brick lexicographic inside it */
static inline PetscInt LapIndex(PetscInt n, const PetscInt brick[3], PetscInt x, PetscInt y, PetscInt z)
{
  if (!brick[0]) return x + n * (y + n * z);
  {
    const PetscInt bx = brick[0], by = brick[1], bz = brick[2], nbx = n / bx, nby = n / by;
    const PetscInt b = x / bx + nbx * (y / by + nby * (z / bz));
    return b * bx * by * bz + x % bx + bx * (y % by + by * (z % bz));
  }
}

/* the 7-point Laplacian (MSTestLaplacianSetValues()) on one process, its points numbered by LapIndex() */
static PetscErrorCode BuildLaplacian(PetscInt n, const PetscInt brick[3], Mat *A)
{
  PetscInt N = n * n * n, *perm = NULL;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 7, NULL, A));
  if (brick[0]) {
    PetscCall(PetscMalloc1(N, &perm));
    for (PetscInt z = 0; z < n; z++)
      for (PetscInt y = 0; y < n; y++)
        for (PetscInt x = 0; x < n; x++) perm[x + n * (y + n * z)] = LapIndex(n, brick, x, y, z);
  }
  PetscCall(MSTestLaplacianSetValues(*A, n, n, n, perm, NULL, NULL));
  PetscCall(PetscFree(perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same operator from a DMDA (natural numbering); the matrix type is AIJ, or -mat_type when given (read by
   DMCreateMatrix()) */
static PetscErrorCode BuildLaplacianDMDA(PetscInt n, DM *da, Mat *A)
{
  PetscInt xs, ys, zs, xm, ym, zm;

  PetscFunctionBegin;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMSetMatType(*da, MATAIJ));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetCorners(*da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt z = zs; z < zs + zm; z++)
    for (PetscInt y = ys; y < ys + ym; y++)
      for (PetscInt x = xs; x < xs + xm; x++) {
        MatStencil  row = {0}, col[7];
        PetscScalar v[7];
        PetscInt    nc = 0;

        row.i = x;
        row.j = y;
        row.k = z;
        if (z > 0) { col[nc] = row; col[nc].k = z - 1; v[nc++] = -1.0; }
        if (y > 0) { col[nc] = row; col[nc].j = y - 1; v[nc++] = -1.0; }
        if (x > 0) { col[nc] = row; col[nc].i = x - 1; v[nc++] = -1.0; }
        col[nc] = row;
        v[nc++] = 6.0;
        if (x < n - 1) { col[nc] = row; col[nc].i = x + 1; v[nc++] = -1.0; }
        if (y < n - 1) { col[nc] = row; col[nc].j = y + 1; v[nc++] = -1.0; }
        if (z < n - 1) { col[nc] = row; col[nc].k = z + 1; v[nc++] = -1.0; }
        PetscCall(MatSetValuesStencil(*A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyToVec(Vec from, Vec to)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetArrayRead(from, &a));
  PetscCall(VecGetArrayWrite(to, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayRead(from, &a));
  PetscCall(VecRestoreArrayWrite(to, &b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a norm reads a number back: the device is synchronized after it */
static PetscErrorCode Sync(Vec v)
{
  PetscReal nrm;

  PetscFunctionBegin;
  PetscCall(VecNorm(v, NORM_2, &nrm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A0, A = NULL;
  Vec            b0, b, x, r, w;
  char           file[PETSC_MAX_PATH_LEN] = "", mode[16] = "smoother", mtype[64] = MATAIJ, problem[16] = "lap3d", hist[PETSC_MAX_PATH_LEN] = "";
  PetscInt       brick[3] = {0, 0, 0}, nbrick;
  PetscBool      hasbrick = PETSC_FALSE, dmda = PETSC_FALSE;
  DM             da = NULL;
  PetscInt       n = 32, outer = 1000, every = 10, repeat = 2, sh = 0, napply = 0, N;
  PetscBool      hasfile, rcm = PETSC_FALSE, smoother, hashist;
  PetscLogDouble t0, t1, t2, tsetup = 0, tsolve = 0;
  PetscReal      nb, rr = 0, rtol;
  PetscInt       its = 0;
  const char    *pctype = "";
  FILE          *fh = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bjsmooth benchmark driver", NULL);
  PetscCall(PetscOptionsString("-problem", "lap3d (unless -f)", NULL, problem, problem, sizeof(problem), NULL));
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, n, &n, NULL));
  nbrick = 3;
  PetscCall(PetscOptionsIntArray("-brick", "number the Laplacian's grid points by bricks of bx,by,bz points (each dividing n)", NULL, brick, &nbrick, &hasbrick));
  PetscCall(PetscOptionsBool("-dmda", "build the Laplacian with DMCreateMatrix() on a 3D DMDA", NULL, dmda, &dmda, NULL));
  PetscCall(PetscOptionsString("-f", "PETSc binary file with A (and b)", NULL, file, file, sizeof(file), &hasfile));
  PetscCall(PetscOptionsString("-mode", "smoother or cg", NULL, mode, mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsString("-mat_type", "matrix type to convert to", NULL, mtype, mtype, sizeof(mtype), NULL));
  PetscCall(PetscOptionsBool("-ms_rcm", "RCM ordering inside modsell", NULL, rcm, &rcm, NULL));
  PetscCall(PetscOptionsInt("-ms_sh", "modsell slice height", NULL, sh, &sh, NULL));
  PetscCall(PetscOptionsInt("-outer", "outer iterations (smoother)", NULL, outer, &outer, NULL));
  PetscCall(PetscOptionsInt("-every", "residual every this many iterations (smoother)", NULL, every, &every, NULL));
  PetscCall(PetscOptionsInt("-napply", "cg mode: time this many PCApply and MatMult calls before the solve (APPLY line)", NULL, napply, &napply, NULL));
  PetscCall(PetscOptionsInt("-repeat", "repetitions (the last is reported)", NULL, repeat, &repeat, NULL));
  PetscCall(PetscOptionsString("-csv", "CSV history file (smoother)", NULL, hist, hist, sizeof(hist), &hashist));
  PetscOptionsEnd();
  PetscCall(PetscStrcmp(mode, "smoother", &smoother));
  if (hasbrick) {
    PetscCheck(nbrick == 3 && brick[0] > 0 && brick[1] > 0 && brick[2] > 0 && n % brick[0] == 0 && n % brick[1] == 0 && n % brick[2] == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-brick needs three positive sizes that divide -n %" PetscInt_FMT, n);
  }
  PetscCheck(!(dmda && hasbrick), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-dmda numbers the grid naturally: give either -dmda or -brick");
  PetscCheck(every >= 1 && outer >= every, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-every must be at least 1 and at most -outer");

  /* the host system (not timed) */
  if (hasfile) {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A0));
    PetscCall(MatSetType(A0, MATAIJ));
    PetscCall(MatLoad(A0, v));
    PetscCall(MatCreateVecs(A0, NULL, &b0));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    if (VecLoad(b0, v)) PetscCall(VecSet(b0, 1.0));
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscStrncpy(problem, "file", sizeof(problem)));
  } else if (dmda) {
    PetscCall(BuildLaplacianDMDA(n, &da, &A0));
    PetscCall(MatCreateVecs(A0, NULL, &b0));
    PetscCall(VecSet(b0, 1.0));
  } else {
    PetscCall(BuildLaplacian(n, brick, &A0));
    PetscCall(MatCreateVecs(A0, NULL, &b0));
    PetscCall(VecSet(b0, 1.0));
  }
  PetscCall(MatSetOption(A0, MAT_SPD, PETSC_TRUE));
  PetscCall(MatGetSize(A0, &N, NULL));
  PetscCall(VecNorm(b0, NORM_2, &nb));

  for (PetscInt rep = 0; rep < repeat; rep++) {
    PC  pc;
    KSP ksp = NULL;

    if (hashist && rep == repeat - 1) PetscCall(PetscFOpen(PETSC_COMM_WORLD, hist, "w", &fh));
    /* setup: from the assembled host matrix, as in an application that assembles with -mat_type <type>:
       the in-place conversion (the format and device upload; the host copy it starts from is made before
       the clock starts, so that no format pays for a host duplicate no application makes), vectors,
       PC/KSP setup, one product */
    PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
    PetscCall(PetscTime(&t0));
    PetscCall(MatConvert(A, mtype, MAT_INPLACE_MATRIX, &A));
    {
      PetscBool isms;
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
      if (isms && rcm) PetscCall(MatModSELLSetOrdering(A, MATMODSELL_ORDERING_RCM));
      if (isms && sh) PetscCall(MatModSELLSetSliceHeight(A, sh));
    }
    PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecDuplicate(b, &w));
    PetscCall(CopyToVec(b0, b));
    PetscCall(MatMult(A, b, r));
    if (smoother) {
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
      PetscCall(PCSetOperators(pc, A, A));
      PetscCall(PCSetFromOptions(pc));
      PetscCall(PCSetUp(pc));
    } else {
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 20000));
      PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPSetUp(ksp));
      PetscCall(KSPGetPC(ksp, &pc));
    }
    PetscCall(Sync(r));
    PetscCall(PetscTime(&t1));
    PetscCall(PCGetType(pc, &pctype));

    if (smoother) {
      PetscCall(VecZeroEntries(x));
      for (PetscInt k = 0; k < outer / every; k++) {
        PetscInt                    o;
        PCRichardsonConvergedReason reason;
        PetscReal                   nr;
        PetscLogDouble              tk;

        PetscCall(PCApplyRichardson(pc, b, x, w, 0.0, 0.0, 0.0, every, (PetscBool)(k == 0), &o, &reason));
        PetscCall(MatMult(A, x, r));
        PetscCall(VecAYPX(r, -1.0, b));
        PetscCall(VecNorm(r, NORM_2, &nr)); /* read back: synchronizes */
        PetscCall(PetscTime(&tk));
        rr = nr * nr;
        if (fh) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fh, "%" PetscInt_FMT ",%.6e,%.6e\n", (k + 1) * every, tk - t1, rr));
      }
      its = (outer / every) * every;
      rtol = 0;
    } else {
      PetscReal nr;
      if (napply > 0 && rep == repeat - 1) { /* the cost of one PCApply against one MatMult (outside the solve's clock) */
        PetscLogDouble ta, tb, tc;

        PetscCall(PCApply(pc, b, w));
        PetscCall(Sync(w));
        PetscCall(PetscTime(&ta));
        for (PetscInt k = 0; k < napply; k++) PetscCall(PCApply(pc, b, w));
        PetscCall(Sync(w));
        PetscCall(PetscTime(&tb));
        for (PetscInt k = 0; k < napply; k++) PetscCall(MatMult(A, b, w));
        PetscCall(Sync(w));
        PetscCall(PetscTime(&tc));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "APPLY pc=%s apply_us=%.1f mult_us=%.1f\n", pctype, 1e6 * (tb - ta) / napply, 1e6 * (tc - tb) / napply));
        PetscCall(PetscTime(&t1)); /* the solve's clock starts after this */
      }
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
      PetscCall(MatMult(A, x, r));
      PetscCall(VecAYPX(r, -1.0, b));
      PetscCall(VecNorm(r, NORM_2, &nr));
      rr = nr * nr;
    }
    PetscCall(PetscTime(&t2));
    tsetup = t1 - t0;
    tsolve = t2 - t1;
    if (fh) PetscCall(PetscFClose(PETSC_COMM_WORLD, fh));
    fh = NULL;
    if (rep == repeat - 1)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "RESULT problem=%s rows=%" PetscInt_FMT " mode=%s mat=%s pc=%s its=%" PetscInt_FMT " setup_s=%.4f solve_s=%.4f total_s=%.4f rel_rnorm2=%.3e\n", problem, N, mode, mtype, pctype, its, tsetup, tsolve, tsetup + tsolve, rr / (nb * nb)));
    if (smoother) PetscCall(PCDestroy(&pc));
    else PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&w));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(VecDestroy(&b0));
  PetscCall(MatDestroy(&A0));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   # the driver at small sizes (timings filtered out)
   test:
     suffix: smoother
     args: -n 10 -outer 40 -every 10 -repeat 1 -pc_type bjsmooth -pc_bjsmooth_block_size 32 -csv hist.csv
     filter: sed -E -e "s/(setup|solve|total)_s=[0-9.]+/\\1_s=T/g" -e "s/rel_rnorm2=[0-9.e+-]+/rel_rnorm2=R/" -e "s/pc=[a-z]+/pc=P/"
     output_file: output/ex1_smoother.out
   test:
     suffix: smoother_sor
     args: -n 10 -outer 40 -every 10 -repeat 1 -pc_type sor -pc_sor_forward
     filter: sed -E -e "s/(setup|solve|total)_s=[0-9.]+/\\1_s=T/g" -e "s/rel_rnorm2=[0-9.e+-]+/rel_rnorm2=R/" -e "s/pc=[a-z]+/pc=P/"
     output_file: output/ex1_smoother.out
   test:
     # the Laplacian numbered by bricks: blocks of one brick (64 rows) need fewer iterations than lexicographic ones
     suffix: cg_brick
     args: -n 8 -mode cg -repeat 1 -ksp_type cg -pc_type bjsmooth -pc_bjsmooth_block_size 64 -mat_type modsell -brick {{4,4,4 1,1,1}separate output}
     filter: sed -E -e "s/(setup|solve|total)_s=[0-9.]+/\\1_s=T/g" -e "s/rel_rnorm2=[0-9.e+-]+/rel_rnorm2=R/"
   test:
     # the same blocks from the DMDA's natural numbering with the format ordered by bricks (4 x 4 x 4 for slices
     # of 64): the same iterations as -brick 4,4,4 above; natural: as -brick 1,1,1
     suffix: cg_dmda
     args: -n 8 -mode cg -repeat 1 -ksp_type cg -pc_type bjsmooth -pc_bjsmooth_block_size 64 -mat_type modsell -dmda -mat_modsell_slice_height 64 -mat_modsell_ordering {{bricks natural}separate output}
     filter: sed -E -e "s/(setup|solve|total)_s=[0-9.]+/\\1_s=T/g" -e "s/rel_rnorm2=[0-9.e+-]+/rel_rnorm2=R/"
   test:
     # PCView names the bricks
     suffix: cg_dmda_view
     args: -n 8 -mode cg -repeat 1 -ksp_type cg -pc_type bjsmooth -mat_type modsell -dmda -mat_modsell_slice_height 128 -mat_modsell_ordering bricks -ksp_view
     filter: grep -E "ordered by bricks|blocks: slices"
   test:
     # two processes: each process's box (8 x 8 x 4) in bricks of 4 x 2 x 4 for slices of 32
     suffix: cg_dmda_2
     nsize: 2
     args: -n 8 -mode cg -repeat 1 -ksp_type cg -pc_type bjsmooth -pc_bjsmooth_block_size 32 -mat_type modsell -dmda -mat_modsell_slice_height 32 -mat_modsell_ordering {{bricks natural}separate output}
     filter: sed -E -e "s/(setup|solve|total)_s=[0-9.]+/\\1_s=T/g" -e "s/rel_rnorm2=[0-9.e+-]+/rel_rnorm2=R/"
   test:
     # bricks need a DMDA: an error that says so
     suffix: err_bricks_nodm
     args: -n 4 -mode cg -repeat 1 -ksp_type cg -pc_type jacobi -mat_type modsell -mat_modsell_ordering bricks
     filter: Error: grep -E "PETSC ERROR: MATMODSELL ordering bricks"
   test:
     suffix: cg
     args: -n 10 -mode cg -repeat 1 -ksp_type cg -pc_type bjsmooth -mat_type modsell
     filter: sed -E -e "s/(setup|solve|total)_s=[0-9.]+/\\1_s=T/g" -e "s/rel_rnorm2=[0-9.e+-]+/rel_rnorm2=R/" -e "s/its=[0-9]+/its=I/"

TEST*/
