/*
   fuzz_readers.c - libFuzzer target of the problem suite's file readers (MatrixMarket: examples/problems/mmread.h and
   ProbReadMMVector(); PETSc binary: ProbCheckBinary(), MatLoad(), VecLoad() in ProbLoadFile() of
   examples/problems/problems.h). Each input is loaded four ways by FuzzOne() of fuzz_readers.h.

   Build and run: bench/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined against PETSc). Not a
   harness test (no main); the seeded driver bench/fuzz/fuzz_seeded.c is.

   PETSc is initialised once, with plain malloc (-malloc_debug no, so that AddressSanitizer sees every
   allocation and LeakSanitizer every leak), without PETSc's signal handler (the sanitizers handle
   crashes), with LeakSanitizer off during MPI_Init() (Open MPI keeps allocations for the life of the
   process) and with PetscReturnErrorHandler around each load (a PETSc error is an expected outcome).
   A load that fails with anything but a clear file error (fuzz_readers.h: FuzzGoodError()) aborts, so
   that libFuzzer reports it as a crash and keeps the input.

   The mutator mixes libFuzzer's own mutations with FuzzMutate() (numbers replaced by huge, negative or
   non-finite ones, binary header words, line duplication, splices with the seed files).
*/
#include "fuzz_readers.h"
#include <sanitizer/lsan_interface.h>

static FuzzState   st;
static FuzzSeedSet seeds;
static int         initialized = 0;

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxsize);

static void Report(const char *casename, PetscErrorCode ierr, const char *message, void *ctx)
{
  (void)ctx;
  fprintf(stderr, "FINDING: %s: PETSc error %d is not a clear file error: %s\n", casename, (int)ierr, message ? message : "(no message)");
  abort();
}

static void Cleanup(void)
{
  if (!initialized) return;
  (void)FuzzSeedsDestroy(&seeds);
  (void)FuzzFinalize(&st);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  static char a0[] = "fuzz_readers", a1[] = "-no_signal_handler", a2[] = "-malloc_debug", a3[] = "no", a4[] = "-malloc_coalesce", a5[] = "no";
  static char *args[] = {a0, a1, a2, a3, a4, a5, NULL};
  int          n = 6;
  char       **a = args;

  (void)argc;
  (void)argv;
  __lsan_disable(); /* what MPI_Init() allocates for the life of the process (Open MPI frees little of it) is no leak */
  if (PetscInitialize(&n, &a, NULL, NULL)) abort();
  __lsan_enable();
  if (FuzzInit(&st, Report, NULL) || FuzzSeeds(st.dir, &seeds)) abort();
  initialized = 1;
  atexit(Cleanup);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (FuzzOne(&st, data, size)) abort(); /* an error outside the loads (writing the input) */
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxsize, unsigned int seed)
{
  FuzzRng r = {seed};
  size_t  k, n;

  if (FuzzBelow(&r, 2) || !seeds.n || !maxsize) return LLVMFuzzerMutate(data, size, maxsize);
  k = FuzzBelow(&r, (size_t)seeds.n);
  n = 1 + FuzzBelow(&r, 3);
  for (size_t i = 0; i < n; i++) size = FuzzMutate(&r, data, size, maxsize, seeds.data[k], seeds.size[k]);
  return size;
}
