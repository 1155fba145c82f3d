static char help[] = "Seeded mutation fuzzer of the problem suite's file readers (MatrixMarket, PETSc binary): -n inputs,\n\
each a seed file (bench/fuzz/fuzz_readers.h) with 1 to -max_mutations stacked mutations drawn from -seed, loaded\n\
four ways through ProbLoadFile(). Prints the counts of accepted and rejected inputs, findings (an error that is\n\
not a clear file error), leaks (PETSc memory in use grows across an input) and memory corruption (PetscMallocValidate).\n\
  -n <2000> -seed <1> -max_mutations <4> -max_len <8192>  the run\n\
  -write_corpus <dir>   write the seed corpus into dir (for libFuzzer: bench/fuzz/run.sh) and exit\n\
  -dump_input <k>       write input k (0-based) to fuzz-input-<k> and stop there (to reproduce a finding)\n\
  -show_seeds           print the outcome of every load of every seed file (the temporary directory as <dir>)\n\
  -show <file|dir>      the same for a file, or every file of a directory (a libFuzzer corpus or finding)\n\
  -verbose              print every input's outcome\n";

#include "fuzz_readers.h"
#include <signal.h>
#include <dirent.h>

typedef struct {
  PetscInt64 input;
  PetscInt   printed;
} ReportCtx;

static volatile sig_atomic_t current_input = -1;

static void OnAlarm(int sig)
{
  char msg[96];
  int  n = snprintf(msg, sizeof(msg), "fuzz_seeded: input %ld takes more than 60 s: a hang\n", (long)current_input);
  (void)sig;
  if (n > 0) (void)!write(2, msg, (size_t)n);
  _exit(3);
}

static void Report(const char *casename, PetscErrorCode ierr, const char *message, void *ctx)
{
  ReportCtx *r = (ReportCtx *)ctx;

  if (r->printed++ < 20) (void)PetscPrintf(PETSC_COMM_SELF, "FINDING: input %" PetscInt64_FMT " %s: error %d: %s\n", r->input, casename, (int)ierr, message ? message : "(no message)");
}

/* the message with the temporary directory replaced by <dir> */
static void Sanitize(const char *dir, const char *msg, char *out, size_t len)
{
  const size_t dl = strlen(dir);
  size_t       k  = 0;

  while (*msg && k + 6 < len) {
    if (!strncmp(msg, dir, dl)) {
      memcpy(out + k, "<dir>", 5);
      k += 5;
      msg += dl;
    } else out[k++] = *msg++;
  }
  out[k] = 0;
}

/* -show_seeds: one seed file through the four loads, with the outcome of each */
static PetscErrorCode ShowLoads(FuzzState *st, const char *name, const unsigned char *data, size_t size)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s (%zu bytes):\n", name, size));
  PetscCall(FuzzWriteBytes(st->in_mtx, data, size));
  PetscCall(FuzzWriteBytes(st->in_bin, data, size));
  for (int c = 0; c < FUZZ_NCASES; c++) {
    Problem        q;
    PetscErrorCode ierr;
    const char    *in;

    PetscCall(FuzzLoadCase(st, c, &q, &ierr, &in));
    if (!ierr) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-10s -> %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, b =", FuzzCaseNames[c], q.s.N, q.s.ia[q.s.n]));
      if (q.rhs == PROB_RHS_PROBLEM) { /* the file had a right-hand side */
        for (PetscInt i = 0; i < q.s.n; i++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %g", (double)PetscRealPart(q.s.rhs[i])));
      } else PetscCall(PetscPrintf(PETSC_COMM_SELF, " (none in the file)"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    } else {
      const char *text, *specific = NULL;
      char        msg[1200];
      PetscCall(PetscErrorMessage(ierr, &text, &specific));
      Sanitize(st->dir, specific ? specific : text, msg, sizeof(msg));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-10s -> error: %s\n", FuzzCaseNames[c], msg));
    }
    PetscCall(ProblemDestroy(&q));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareNames(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -show: a file, or the files of a directory in name order */
static PetscErrorCode ShowPath(FuzzState *st, const char *path)
{
  struct stat    sb;
  unsigned char *data;
  size_t         size;

  PetscFunctionBegin;
  PetscCheck(!stat(path, &sb), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot stat %s: %s", path, strerror(errno));
  if (S_ISDIR(sb.st_mode)) {
    DIR           *d = opendir(path);
    struct dirent *e;
    char         **names = NULL;
    size_t         n = 0, cap = 0;

    PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open directory %s", path);
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        PetscCall(PetscRealloc(cap * sizeof(*names), &names));
      }
      PetscCall(PetscStrallocpy(e->d_name, &names[n++]));
    }
    (void)closedir(d);
    if (n) qsort(names, n, sizeof(*names), CompareNames);
    for (size_t k = 0; k < n; k++) {
      char fname[PETSC_MAX_PATH_LEN];
      PetscCall(PetscSNPrintf(fname, sizeof(fname), "%s/%s", path, names[k]));
      PetscCall(FuzzReadBytes(fname, &data, &size));
      PetscCall(ShowLoads(st, names[k], data, size));
      PetscCall(PetscFree(data));
      PetscCall(PetscFree(names[k]));
    }
    PetscCall(PetscFree(names));
  } else {
    PetscCall(FuzzReadBytes(path, &data, &size));
    PetscCall(ShowLoads(st, path, data, size));
    PetscCall(PetscFree(data));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  FuzzState      st;
  FuzzSeedSet    seeds;
  FuzzRng        rng;
  ReportCtx      rc   = {0, 0};
  PetscInt       n    = 2000, seed = 1, maxmut = 4, maxlen = 8192, dump = -1, leaks = 0, corrupt = 0;
  PetscBool      verbose = PETSC_FALSE, corpus, show = PETSC_FALSE;
  char           corpusdir[PETSC_MAX_PATH_LEN] = "", showpath[PETSC_MAX_PATH_LEN] = "";
  unsigned char *buf;
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The fuzzer runs on one process");
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Seeded fuzzer of the file readers", NULL);
  PetscCall(PetscOptionsInt("-n", "Inputs", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-seed", "Seed of the mutations", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsRangeInt("-max_mutations", "Mutations stacked on a seed (1 to this)", NULL, maxmut, &maxmut, NULL, 1, 64));
  PetscCall(PetscOptionsRangeInt("-max_len", "Largest input in bytes", NULL, maxlen, &maxlen, NULL, 64, 1 << 24));
  PetscCall(PetscOptionsInt("-dump_input", "Write this input to fuzz-input-<k> and stop", NULL, dump, &dump, NULL));
  PetscCall(PetscOptionsString("-write_corpus", "Write the seed corpus into this directory and exit", NULL, corpusdir, corpusdir, sizeof(corpusdir), &corpus));
  PetscCall(PetscOptionsString("-show", "Print the outcome of every load of this file, or of every file of this directory", NULL, showpath, showpath, sizeof(showpath), NULL));
  PetscCall(PetscOptionsBool("-show_seeds", "Print the outcome of every load of every seed file", NULL, show, &show, NULL));
  PetscCall(PetscOptionsBool("-verbose", "Print every input's outcome", NULL, verbose, &verbose, NULL));
  PetscOptionsEnd();

  PetscCall(FuzzInit(&st, Report, &rc));
  PetscCall(FuzzSeeds(st.dir, &seeds));
  if (corpus) {
    PetscCall(FuzzWriteCorpus(&seeds, corpusdir));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " seed files written to %s\n", seeds.n, corpusdir));
    PetscCall(FuzzSeedsDestroy(&seeds));
    PetscCall(FuzzFinalize(&st));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (showpath[0]) {
    PetscCall(ShowPath(&st, showpath));
    PetscCall(FuzzSeedsDestroy(&seeds));
    PetscCall(FuzzFinalize(&st));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (show) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "The seed files, loaded four ways:\n"));
    for (PetscInt k = 0; k < seeds.n; k++) PetscCall(ShowLoads(&st, seeds.name[k], seeds.data[k], seeds.size[k]));
    PetscCall(FuzzSeedsDestroy(&seeds));
    PetscCall(FuzzFinalize(&st));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscMalloc1(maxlen, &buf));
  (void)signal(SIGALRM, OnAlarm);

  /* warm-up: the seeds themselves (PETSc registers what it loads on first use; this is not counted) */
  for (PetscInt k = 0; k < seeds.n; k++) PetscCall(FuzzOne(&st, seeds.data[k], seeds.size[k]));
  PetscCall(PetscMemzero(st.accepted, sizeof(st.accepted)));
  PetscCall(PetscMemzero(st.rejected, sizeof(st.rejected)));
  st.inputs = st.findings = 0;

  rng.s = (uint64_t)seed;
  for (PetscInt64 i = 0; i < n; i++) {
    const PetscInt  s = (PetscInt)FuzzBelow(&rng, (size_t)seeds.n), o = (PetscInt)FuzzBelow(&rng, (size_t)seeds.n);
    const PetscInt  m = 1 + (PetscInt)FuzzBelow(&rng, (size_t)maxmut);
    size_t          len = PetscMin(seeds.size[s], (size_t)maxlen);
    PetscLogDouble  before, after;
    PetscInt64      acc = 0;

    PetscCall(PetscMemcpy(buf, seeds.data[s], len));
    for (PetscInt k = 0; k < m; k++) len = FuzzMutate(&rng, buf, len, (size_t)maxlen, seeds.data[o], seeds.size[o]);
    if (i == dump) {
      char name[64];
      PetscCall(PetscSNPrintf(name, sizeof(name), "fuzz-input-%" PetscInt64_FMT, i));
      PetscCall(FuzzWriteBytes(name, buf, len));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "input %" PetscInt64_FMT " (seed %s, %" PetscInt_FMT " mutations, %zu bytes) written to %s\n", i, seeds.name[s], m, len, name));
      break;
    }
    rc.input      = i;
    current_input = (sig_atomic_t)i;
    for (int c = 0; c < FUZZ_NCASES; c++) acc += st.accepted[c];
    PetscCall(PetscMallocGetCurrentUsage(&before));
    (void)alarm(60);
    PetscCall(FuzzOne(&st, buf, len));
    (void)alarm(0);
    PetscCall(PetscMallocGetCurrentUsage(&after));
    if (after > before) {
      if (leaks++ < 20) PetscCall(PetscPrintf(PETSC_COMM_SELF, "LEAK: input %" PetscInt64_FMT " (seed %s): %g bytes more in use after it\n", i, seeds.name[s], after - before));
    }
    if (PetscMallocValidate(__LINE__, PETSC_FUNCTION_NAME, __FILE__)) {
      if (corrupt++ < 20) PetscCall(PetscPrintf(PETSC_COMM_SELF, "CORRUPTION: input %" PetscInt64_FMT " (seed %s)\n", i, seeds.name[s]));
    }
    if (verbose) {
      for (int c = 0; c < FUZZ_NCASES; c++) acc -= st.accepted[c];
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "input %" PetscInt64_FMT ": seed %s, %" PetscInt_FMT " mutations, %zu bytes, %" PetscInt64_FMT " of %d loads accepted\n", i, seeds.name[s], m, len, -acc, FUZZ_NCASES));
    }
  }
  if (dump < 0) {
    PetscInt64 acc = 0, rej = 0;
    for (int c = 0; c < FUZZ_NCASES; c++) {
      acc += st.accepted[c];
      rej += st.rejected[c];
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Seeded mutation fuzzing of the file readers: seed %" PetscInt_FMT ", %" PetscInt_FMT " seed files, 1-%" PetscInt_FMT " mutations per input\n", seed, seeds.n, maxmut));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %" PetscInt64_FMT " inputs, %" PetscInt64_FMT " loads: %" PetscInt64_FMT " accepted, %" PetscInt64_FMT " rejected with a file error\n", st.inputs, acc + rej, acc, rej));
    for (int c = 0; c < FUZZ_NCASES; c++) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-10s %6" PetscInt64_FMT " accepted %6" PetscInt64_FMT " rejected\n", FuzzCaseNames[c], st.accepted[c], st.rejected[c]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  0 crashes, 0 hangs, %" PetscInt64_FMT " unclear errors, %" PetscInt_FMT " leaks, %" PetscInt_FMT " memory corruptions\n", st.findings, leaks, corrupt));
  }
  PetscCall(PetscFree(buf));
  PetscCall(FuzzSeedsDestroy(&seeds));
  PetscCall(FuzzFinalize(&st));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: double !complex !defined(PETSC_USE_64BIT_INDICES)

  # 2000 mutated inputs (bit flips, byte insertions and deletions, numbers replaced by huge, negative or
  # non-finite ones, binary header words replaced, truncation, line duplication, splices) of the seed files,
  # each loaded four ways: the counts are deterministic for a fixed seed; a crash, hang, leak or an error
  # that does not name the file (and the line) fails the test
  test:
    suffix: seeded
    args: -n 2000 -seed 1
    requires: !defined(PETSCTEST_VALGRIND)

  # the seed files themselves, loaded four ways: what is accepted, and the errors of the rest
  test:
    suffix: seeds
    args: -show_seeds

TEST*/
