static char help[] = "Where a MATMODSELL matrix computes is chosen once, by MatBindToCPU(), not by its vectors: the products\n\
(MatMult, MatMultAdd, MatResidual, MatMultTranspose(Add), MatGetDiagonal) against AIJ with the matrix not bound, bound\n\
and not bound again, each with vectors from MatCreateVecs() and with vectors in host memory (VecCreate() without\n\
-vec_type cuda). -check_device (PETSc with CUDA): MatGetCurrentMemType() follows the binding, and a MatMult() of the\n\
matrix not bound runs on the GPU whatever its vectors (GPU flops logged), of the bound matrix on the host (none).\n\
Matrix options as in ex1 (-kind ..., see mstest.h).\n";

#include <mstest.h>

/* the products against AIJ with vectors of the matrix's type, then with host vectors (-vec_type standard for
   MSTestCreateVecs()) */
static PetscErrorCode CompareBothVectors(Mat A, Mat B, PetscRandom rnd, const char *state, PetscInt *nfail)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)B);

  PetscFunctionBegin;
  for (int host = 0; host < 2; host++) {
    char     label[128];
    PetscInt nf0 = *nfail;

    PetscCall(PetscSNPrintf(label, sizeof(label), "%s, vectors %s", state, host ? "in host memory" : "from MatCreateVecs()"));
    if (host) PetscCall(PetscOptionsSetValue(NULL, "-vec_type", "standard"));
    PetscCall(MSTestCompareProducts(A, B, rnd, 1e-11, label, nfail));
    if (host) PetscCall(PetscOptionsClearValue(NULL, "-vec_type"));
    PetscCall(PetscPrintf(comm, "%s: %s\n", label, *nfail == nf0 ? "products equal AIJ's" : "FAILED"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the memory type the matrix reports, and whether a MatMult() with host vectors logged GPU flops (on every process
   that has rows), as its binding says */
static PetscErrorCode CheckDevice(Mat B, const char *state, PetscInt *nfail)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)B);
  PetscLogEvent      ev;
  PetscEventPerfInfo p0, p1;
  PetscMemType       mt;
  PetscBool          bound, gpu, ok;
  Vec                x, y;
  PetscInt           m;

  PetscFunctionBegin;
  PetscCall(MatBoundToCPU(B, &bound));
  PetscCall(MatGetCurrentMemType(B, &mt));
  PetscCall(MatGetLocalSize(B, &m, NULL));
  PetscCall(PetscLogEventGetId("MatMult", &ev));
  PetscCall(PetscOptionsSetValue(NULL, "-vec_type", "standard"));
  PetscCall(MSTestCreateVecs(B, &x, &y));
  PetscCall(PetscOptionsClearValue(NULL, "-vec_type"));
  PetscCall(VecSet(x, 1.0));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &p0));
  PetscCall(MatMult(B, x, y));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &p1));
#if defined(PETSC_HAVE_DEVICE)
  gpu = (PetscBool)(p1.GpuFlops > p0.GpuFlops);
#else
  SETERRQ(comm, PETSC_ERR_SUP, "-check_device needs PETSc configured with a device");
#endif
  ok  = (PetscBool)((bound ? PetscMemTypeHost(mt) : PetscMemTypeDevice(mt)) && (!m || gpu == !bound));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, comm));
  if (!ok) {
    (*nfail)++;
    PetscCall(PetscPrintf(comm, "FAIL %s: on this process or another, memory type %s, GPU flops of a product with host vectors %s\n", state, PetscMemTypeToString(mt), gpu ? "logged" : "not logged"));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MSTestCSR   csr;
  Mat         A, B;
  PetscRandom rnd;
  PetscInt    nfail = 0;
  PetscBool   device = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* GPU flops of the products */
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_device", &device, NULL));
  PetscCall(MSTestGenerate(comm, &csr));
  PetscCall(MSTestCreateMat(comm, &csr, MATAIJ, &A));
  PetscCall(MatConvert(A, MATMODSELL, MAT_INITIAL_MATRIX, &B));
  PetscCall(MSTestRandomCreate(comm, &rnd));
  for (int step = 0; step < 3; step++) {
    const PetscBool bind  = (PetscBool)(step == 1);
    const char     *state = step == 0 ? "not bound" : (step == 1 ? "bound to the CPU" : "not bound again");

    PetscCall(MatBindToCPU(B, bind));
    PetscCall(CompareBothVectors(A, B, rnd, state, &nfail));
    if (device) PetscCall(CheckDevice(B, state, &nfail));
  }
  PetscCall(PetscPrintf(comm, "%s\n", nfail ? "FAILED" : "OK"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscCall(MSTestCSRDestroy(&csr));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: !complex !single

   test:
     suffix: 1
     args: -kind unstructured -n 900 -k 6
     output_file: output/ex11_1.out
   test:
     suffix: 2
     nsize: 2
     args: -kind unstructured -n 900 -k 6 -row_weights 2,1
     output_file: output/ex11_1.out

   # the device operations with host vectors, MatBindToCPU() back and forth (also on 3 processes, one of them without
   # rows; the ordering partition: a permuted image)
   testset:
     requires: cuda
     args: -check_device
     test:
       suffix: cuda_1
       args: -kind unstructured -n 900 -k 6
       output_file: output/ex11_1.out
     test:
       suffix: cuda_3
       nsize: 3
       args: -kind unstructured -n 900 -k 6 -row_weights 2,0,1 -mat_modsell_ordering partition -use_gpu_aware_mpi 0
       output_file: output/ex11_1.out
     test:
       suffix: cuda_3_no_overlap
       nsize: 3
       args: -kind unstructured -n 900 -k 6 -mat_modsell_overlap 0 -use_gpu_aware_mpi 0
       output_file: output/ex11_1.out

TEST*/
