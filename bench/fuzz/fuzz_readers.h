/*
   fuzz_readers.h - what the two fuzzers of the problem suite's file readers share: the per-input function
   FuzzOne(), the seed corpus FuzzSeeds() and the structure-aware mutator FuzzMutate().

     bench/fuzz/fuzz_readers.c  libFuzzer target (clang -fsanitize=fuzzer,address,undefined), run by bench/fuzz/run.sh
     bench/fuzz/fuzz_seeded.c   seeded mutation driver (plain main, any PETSc compiler), a harness test

   FuzzOne() writes the input to <dir>/in.mtx and <dir>/in.bin and loads it four ways through ProbLoadFile()
   of examples/problems/problems.h, on PETSC_COMM_SELF with PetscReturnErrorHandler (errors come back
   silently):
     mtx-matrix  -file in.mtx                        MatrixMarket matrix (MMReadCSR() of examples/problems/mmread.h)
     bin-matrix  -file in.bin                        PETSc binary matrix [+ vector] (ProbCheckBinary(), MatLoad(), VecLoad())
     mtx-rhs     -file good.mtx -file_rhs in.mtx     MatrixMarket right-hand side (ProbReadMMVector())
     bin-rhs     -file good.bin -file_rhs in.bin     PETSc binary right-hand side (ProbCheckBinary(), VecLoad())
   (in.bin is read as MatrixMarket when it starts with "%%MatrixMarket", as ProbLoadFile() does.)
   An input is accepted or rejected; a rejection must be a PETSc error of class PETSC_ERR_FILE_UNEXPECTED,
   PETSC_ERR_FILE_OPEN or PETSC_ERR_FILE_READ whose message names the input file and, for a MatrixMarket
   file, the line ("in.mtx:<line>: ..."; only whole-file faults such as an empty file or a matrix that is not
   square have no line). Anything else is a finding, passed to the caller's report function (the libFuzzer
   target aborts, so that libFuzzer keeps the input); crashes, sanitizer reports, hangs and leaks are the
   harness's to catch (libFuzzer, or the seeded driver's PETSc memory accounting).
*/
#pragma once

#if defined(__GNUC__)
  #pragma GCC diagnostic push
  #pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "../../examples/problems/problems.h"
#if defined(__GNUC__)
  #pragma GCC diagnostic pop
#endif
#include <stdint.h>

#define FUZZ_NCASES 4
static const char *const FuzzCaseNames[FUZZ_NCASES] = {"mtx-matrix", "bin-matrix", "mtx-rhs", "bin-rhs"};

typedef void (*FuzzReportFn)(const char *casename, PetscErrorCode ierr, const char *message, void *ctx);

typedef struct {
  char         dir[PETSC_MAX_PATH_LEN];
  char         in_mtx[PETSC_MAX_PATH_LEN], in_bin[PETSC_MAX_PATH_LEN], good_mtx[PETSC_MAX_PATH_LEN], good_bin[PETSC_MAX_PATH_LEN];
  PetscInt64   inputs, accepted[FUZZ_NCASES], rejected[FUZZ_NCASES], findings;
  FuzzReportFn report;
  void        *reportctx;
} FuzzState;

/* ------------------------------------------------------------------------------------------------ */
/* files                                                                                              */

static PetscErrorCode FuzzWriteBytes(const char *name, const void *data, size_t size)
{
  FILE *fp = fopen(name, "wb");

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s: %s", name, strerror(errno));
  if (size) PetscCheck(fwrite(data, 1, size, fp) == size, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", name);
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the bytes of a file (PetscFree() them) */
static PetscErrorCode FuzzReadBytes(const char *name, unsigned char **data, size_t *size)
{
  FILE *fp = fopen(name, "rb");
  long  n;

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s: %s", name, strerror(errno));
  PetscCheck(fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot seek %s", name);
  PetscCall(PetscMalloc1((size_t)n + 1, data));
  PetscCheck(fread(*data, 1, (size_t)n, fp) == (size_t)n, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Error reading %s", name);
  (void)fclose(fp);
  *size = (size_t)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* seed corpus: small valid files of every kind the readers accept                                   */

#define FUZZ_MAXSEEDS 24
typedef struct {
  PetscInt       n;
  char           name[FUZZ_MAXSEEDS][32];
  unsigned char *data[FUZZ_MAXSEEDS];
  size_t         size[FUZZ_MAXSEEDS];
} FuzzSeedSet;

static PetscErrorCode FuzzAddSeed(FuzzSeedSet *set, const char *name, const void *data, size_t size)
{
  PetscFunctionBegin;
  PetscCheck(set->n < FUZZ_MAXSEEDS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many seeds");
  PetscCall(PetscStrncpy(set->name[set->n], name, sizeof(set->name[0])));
  PetscCall(PetscMalloc1(size + 1, &set->data[set->n]));
  if (size) PetscCall(PetscMemcpy(set->data[set->n], data, size));
  set->size[set->n++] = size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an n x n tridiagonal AIJ matrix (without entries: empty) [+ a vector] written by MatView()/VecView() to dir/seed.bin, as a seed */
static PetscErrorCode FuzzAddBinarySeed(FuzzSeedSet *set, const char *dir, const char *name, PetscInt n, PetscBool empty, PetscBool withvec, PetscBool vecalone)
{
  Mat            A;
  Vec            b;
  PetscViewer    v;
  char           fname[PETSC_MAX_PATH_LEN];
  unsigned char *data;
  size_t         size;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(fname, sizeof(fname), "%s/seed.bin", dir));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, NULL, &A));
  for (PetscInt i = 0; i < (empty ? 0 : n); i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0 + 0.5 * i, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.25, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, NULL, &b));
  for (PetscInt i = 0; i < n; i++) PetscCall(VecSetValue(b, i, 1.0 - 0.75 * i, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(PetscViewerCreate(PETSC_COMM_SELF, &v));
  PetscCall(PetscViewerSetType(v, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE));
  PetscCall(PetscViewerFileSetMode(v, FILE_MODE_WRITE));
  PetscCall(PetscViewerFileSetName(v, fname));
  if (!vecalone) PetscCall(MatView(A, v));
  if (withvec || vecalone) PetscCall(VecView(b, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(FuzzReadBytes(fname, &data, &size));
  PetscCall(FuzzAddSeed(set, name, data, size));
  PetscCall(PetscFree(data));
  (void)remove(fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FuzzSeeds(const char *dir, FuzzSeedSet *set)
{
  static const struct {
    const char *name, *text;
  } mm[] = {
    {"general.mtx", "%%MatrixMarket matrix coordinate real general\n% a comment\n3 3 7\n1 1 2\n1 2 -1\n2 1 -1\n2 2 2\n2 3 -1\n3 2 -1.5e0\n3 3 2\n"},
    {"symmetric.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n"},
    {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -0.25\n"},
    {"pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 1\n2 2\n3 3\n1 3\n"},
    {"integer.mtx", "%%MatrixMarket matrix coordinate integer hermitian\n3 3 4\n1 1 4\n2 1 -1\n2 2 4\n3 3 7\n"},
    {"crlf.mtx", "%%MatrixMarket matrix coordinate double general\r\n%\r\n\r\n2 2 3\r\n1 1 1e0\r\n2 2 3.25\r\n1 1 0.5\r\n"},
    {"duplicates.mtx", "%%matrixmarket MATRIX Coordinate Real General\n4 4 6\n  1 1 1\n2 2 2\n3 3 3\n4 4 4\n4 1 -1\n4 1 -1\n% trailing comment\n\n"},
    {"empty.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 0\n"},
    {"rhs_array.mtx", "%%MatrixMarket matrix array real general\n% right-hand side\n3 1\n1\n-2.5\n3e0\n"},
    {"rhs_coordinate.mtx", "%%MatrixMarket matrix coordinate real general\n3 1 2\n1 1 4\n3 1 5\n"},
    {"rhs_integer.mtx", "%%MatrixMarket matrix array integer general\n3 1\n1\n0\n-7\n"},
  };

  PetscFunctionBegin;
  PetscCall(PetscMemzero(set, sizeof(*set)));
  for (size_t k = 0; k < sizeof(mm) / sizeof(mm[0]); k++) PetscCall(FuzzAddSeed(set, mm[k].name, mm[k].text, strlen(mm[k].text)));
  PetscCall(FuzzAddBinarySeed(set, dir, "matrix3.bin", 3, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE));
  PetscCall(FuzzAddBinarySeed(set, dir, "matrix3_rhs.bin", 3, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE));
  PetscCall(FuzzAddBinarySeed(set, dir, "matrix6_rhs.bin", 6, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE));
  PetscCall(FuzzAddBinarySeed(set, dir, "empty3.bin", 3, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE));
  PetscCall(FuzzAddBinarySeed(set, dir, "vector3.bin", 3, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FuzzSeedsDestroy(FuzzSeedSet *set)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < set->n; k++) PetscCall(PetscFree(set->data[k]));
  set->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FuzzWriteCorpus(const FuzzSeedSet *set, const char *dir)
{
  char fname[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < set->n; k++) {
    PetscCall(PetscSNPrintf(fname, sizeof(fname), "%s/%s", dir, set->name[k]));
    PetscCall(FuzzWriteBytes(fname, set->data[k], set->size[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* the per-input function                                                                            */

/*
  FuzzInit - a fresh temporary directory (under $TMPDIR or /tmp) with the fixed 3 x 3 matrices good.mtx and
  good.bin that the right-hand side cases read first
*/
static PetscErrorCode FuzzInit(FuzzState *st, FuzzReportFn report, void *ctx)
{
  const char  *tmp  = getenv("TMPDIR");
  const char  *A3   = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n";
  FuzzSeedSet set;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->report    = report;
  st->reportctx = ctx;
  PetscCall(PetscSNPrintf(st->dir, sizeof(st->dir), "%s/fuzz-readers-XXXXXX", tmp && tmp[0] ? tmp : "/tmp"));
  PetscCheck(mkdtemp(st->dir), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create a temporary directory %s: %s", st->dir, strerror(errno));
  PetscCall(PetscSNPrintf(st->in_mtx, sizeof(st->in_mtx), "%s/in.mtx", st->dir));
  PetscCall(PetscSNPrintf(st->in_bin, sizeof(st->in_bin), "%s/in.bin", st->dir));
  PetscCall(PetscSNPrintf(st->good_mtx, sizeof(st->good_mtx), "%s/good.mtx", st->dir));
  PetscCall(PetscSNPrintf(st->good_bin, sizeof(st->good_bin), "%s/good.bin", st->dir));
  PetscCall(FuzzWriteBytes(st->good_mtx, A3, strlen(A3)));
  PetscCall(PetscMemzero(&set, sizeof(set)));
  PetscCall(FuzzAddBinarySeed(&set, st->dir, "good.bin", 3, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE));
  PetscCall(FuzzWriteBytes(st->good_bin, set.data[0], set.size[0]));
  PetscCall(FuzzSeedsDestroy(&set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FuzzFinalize(FuzzState *st)
{
  const char *files[] = {st->in_mtx, st->in_bin, st->good_mtx, st->good_bin};

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) (void)remove(files[k]);
  (void)rmdir(st->dir);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is an error (code, message) what a malformed input file may produce? */
static PetscBool FuzzGoodError(PetscErrorCode ierr, const char *msg, const char *fname, PetscBool matrixmarket)
{
  const char *at;
  size_t      len = strlen(fname);

  if (ierr != PETSC_ERR_FILE_UNEXPECTED && ierr != PETSC_ERR_FILE_OPEN && ierr != PETSC_ERR_FILE_READ) return PETSC_FALSE;
  if (!msg || !(at = strstr(msg, fname))) return PETSC_FALSE; /* must name the file */
  if (!matrixmarket) return PETSC_TRUE;
  if (at[len] == ':' && isdigit((unsigned char)at[len + 1])) return PETSC_TRUE; /* file:line: */
  /* MatrixMarket faults of the whole file, not of a line */
  return (PetscBool)(strstr(msg, ": empty file") || strstr(msg, ": the matrix is ") || strstr(msg, ": the right-hand side has ") || strstr(msg, ": a right-hand side must have one column"));
}

/*
  FuzzLoadCase - load c of the input files in st (see the top of this file) into *q (the caller destroys it):
  *ierr is the error ProbLoadFile() returned (0: accepted), *in the file the input was written to
*/
static PetscErrorCode FuzzLoadCase(FuzzState *st, int c, Problem *q, PetscErrorCode *ierr, const char **in)
{
  const char *file = c == 0 ? st->in_mtx : c == 1 ? st->in_bin : c == 2 ? st->good_mtx : st->good_bin;
  const char *rhs  = c == 2 ? st->in_mtx : c == 3 ? st->in_bin : NULL;

  PetscFunctionBegin;
  *in = rhs ? rhs : file;
  PetscCall(ProblemInitialize(PETSC_COMM_SELF, q));
  q->type = PROB_FILE;
  PetscCall(PetscStrncpy(q->file, file, sizeof(q->file)));
  if (rhs) PetscCall(PetscStrncpy(q->file_rhs, rhs, sizeof(q->file_rhs)));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = ProbLoadFile(q);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FuzzOne - the four loads of one input (see the top of this file); counts them in st, reports findings
*/
static PetscErrorCode FuzzOne(FuzzState *st, const unsigned char *data, size_t size)
{
  PetscFunctionBegin;
  PetscCall(FuzzWriteBytes(st->in_mtx, data, size));
  PetscCall(FuzzWriteBytes(st->in_bin, data, size));
  st->inputs++;
  for (int c = 0; c < FUZZ_NCASES; c++) {
    Problem        q;
    PetscErrorCode ierr;
    const char    *in;

    PetscCall(FuzzLoadCase(st, c, &q, &ierr, &in));
    PetscCall(ProblemDestroy(&q));
    if (!ierr) st->accepted[c]++;
    else {
      const char *text, *specific = NULL;
      PetscCall(PetscErrorMessage(ierr, &text, &specific));
      st->rejected[c]++;
      if (!FuzzGoodError(ierr, specific, in, (PetscBool)(ProbIsMatrixMarket(in)))) {
        st->findings++;
        if (st->report) st->report(FuzzCaseNames[c], ierr, specific ? specific : text, st->reportctx);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* structure-aware mutations (deterministic: SplitMix64 from a seed)                                  */

typedef struct {
  uint64_t s;
} FuzzRng;

static inline uint64_t FuzzNext(FuzzRng *r)
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline size_t FuzzBelow(FuzzRng *r, size_t n)
{
  return n ? (size_t)(FuzzNext(r) % n) : 0;
}

/* numbers that readers get wrong: signs, the 32- and 64-bit limits, beyond them, non-finite reals */
static const char *const FuzzNumbers[] = {"0", "1", "-1", "2", "3", "-0", "+3", "07", "1048577", "1073741824", "2147483646", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999999999", "1e308", "1e309", "-1e400", "1e-320", "nan", "-NaN", "inf", "-Infinity", "0x1p3", "1.5", "1e", ".", "-", "", " ", "3 3", "1 1 1"};
/* 32-bit words for a PETSc binary file (big-endian there): class ids, limits, sizes near the seeds' */
static const int64_t FuzzWords[] = {0, 1, 2, 3, 4, 6, 7, -1, -2, 1211216, 1211214, 1211215, 0x7fffffff, INT32_MIN, 0x40000000, 0x10000000, 1048576, 65536, 255, 256};

static size_t FuzzInsert(unsigned char *buf, size_t size, size_t maxsize, size_t at, const void *src, size_t n)
{
  if (size + n > maxsize) n = maxsize - size;
  memmove(buf + at + n, buf + at, size - at);
  memcpy(buf + at, src, n);
  return size + n;
}

static size_t FuzzErase(unsigned char *buf, size_t size, size_t at, size_t n)
{
  if (at + n > size) n = size - at;
  memmove(buf + at, buf + at + n, size - at - n);
  return size - n;
}

/* [*beg, *end) of the line holding position at */
static void FuzzLine(const unsigned char *buf, size_t size, size_t at, size_t *beg, size_t *end)
{
  *beg = at;
  while (*beg > 0 && buf[*beg - 1] != '\n') (*beg)--;
  *end = at;
  while (*end < size && buf[*end] != '\n') (*end)++;
  if (*end < size) (*end)++; /* with its newline */
}

/*
  FuzzMutate - one random mutation of buf[0, size) in place (capacity maxsize >= 1), the new size.
  other (may be NULL): a second input for splicing.
*/
static size_t FuzzMutate(FuzzRng *r, unsigned char *buf, size_t size, size_t maxsize, const unsigned char *other, size_t othersize)
{
  static const unsigned char special[] = {0, 0xff, '\n', '\r', ' ', '\t', '%', '-', '+', '.', 'e', '0', '9', 0x80};
  size_t                     at;

  if (size > maxsize) size = maxsize;
  at = FuzzBelow(r, size + 1);
  switch (FuzzBelow(r, 13)) {
  case 0: /* flip a bit */
    if (size) buf[FuzzBelow(r, size)] ^= (unsigned char)(1u << FuzzBelow(r, 8));
    break;
  case 1: /* a byte becomes a special one */
    if (size) buf[FuzzBelow(r, size)] = special[FuzzBelow(r, sizeof(special))];
    break;
  case 2: { /* insert 1-4 bytes */
    unsigned char b[4];
    size_t        n = 1 + FuzzBelow(r, 4);
    for (size_t k = 0; k < n; k++) b[k] = FuzzBelow(r, 2) ? special[FuzzBelow(r, sizeof(special))] : (unsigned char)FuzzNext(r);
    if (size < maxsize) size = FuzzInsert(buf, size, maxsize, at, b, n);
  } break;
  case 3: /* delete 1-8 bytes */
    if (at < size) size = FuzzErase(buf, size, at, 1 + FuzzBelow(r, 8));
    break;
  case 4: { /* a decimal number becomes a special one */
    size_t beg = at, end;
    while (beg < size && !isdigit(buf[beg])) beg++;
    if (beg == size) break;
    while (beg > 0 && (isdigit(buf[beg - 1]) || buf[beg - 1] == '-' || buf[beg - 1] == '+' || buf[beg - 1] == '.')) beg--;
    end = beg;
    while (end < size && (isdigit(buf[end]) || buf[end] == '-' || buf[end] == '+' || buf[end] == '.' || buf[end] == 'e' || buf[end] == 'E')) end++;
    {
      const char *num = FuzzNumbers[FuzzBelow(r, sizeof(FuzzNumbers) / sizeof(FuzzNumbers[0]))];
      size = FuzzErase(buf, size, beg, end - beg);
      size = FuzzInsert(buf, size, maxsize, beg, num, strlen(num));
    }
  } break;
  case 5: { /* a 32-bit big-endian word (4-byte aligned, mostly in the header) becomes a special one */
    const size_t words = size / 4;
    if (!words) break;
    {
      const size_t  w = FuzzBelow(r, 2) ? FuzzBelow(r, PetscMin(words, (size_t)8)) : FuzzBelow(r, words);
      const int64_t v = FuzzBelow(r, 4) ? FuzzWords[FuzzBelow(r, sizeof(FuzzWords) / sizeof(FuzzWords[0]))] : (int64_t)(int32_t)FuzzNext(r);
      for (int k = 0; k < 4; k++) buf[4 * w + k] = (unsigned char)((uint64_t)v >> (8 * (3 - k)));
    }
  } break;
  case 6: { /* 8 bytes become a special double (big-endian): nan, inf, -0, huge, tiny */
    static const uint64_t d[] = {0x7ff8000000000000ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL, 0x8000000000000000ULL, 0x7fefffffffffffffULL, 0x0000000000000001ULL, 0xfff8000000000001ULL};
    if (size < 8) break;
    {
      const size_t   o = FuzzBelow(r, size - 7);
      const uint64_t v = d[FuzzBelow(r, sizeof(d) / sizeof(d[0]))];
      for (int k = 0; k < 8; k++) buf[o + k] = (unsigned char)(v >> (8 * (7 - k)));
    }
  } break;
  case 7: /* truncate */
    size = at;
    break;
  case 8: { /* duplicate a line */
    size_t beg, end;
    if (!size) break;
    FuzzLine(buf, size, PetscMin(at, size - 1), &beg, &end);
    if (end - beg <= maxsize - size) {
      unsigned char tmp[256];
      const size_t  n = PetscMin(end - beg, sizeof(tmp));
      memcpy(tmp, buf + beg, n);
      size = FuzzInsert(buf, size, maxsize, end, tmp, n);
    }
  } break;
  case 9: { /* delete a line */
    size_t beg, end;
    if (!size) break;
    FuzzLine(buf, size, PetscMin(at, size - 1), &beg, &end);
    size = FuzzErase(buf, size, beg, end - beg);
  } break;
  case 10: { /* swap a line with the next */
    size_t b1, e1, b2, e2;
    if (!size) break;
    FuzzLine(buf, size, PetscMin(at, size - 1), &b1, &e1);
    if (e1 >= size) break;
    FuzzLine(buf, size, e1, &b2, &e2);
    {
      unsigned char tmp[256];
      const size_t  n = e1 - b1;
      if (n > sizeof(tmp)) break;
      memcpy(tmp, buf + b1, n);
      memmove(buf + b1, buf + b2, e2 - b2);
      memcpy(buf + b1 + (e2 - b2), tmp, n);
    }
  } break;
  case 11: /* splice: the head of this input, the tail of the other */
    if (other && othersize) {
      const size_t from = FuzzBelow(r, othersize);
      const size_t n    = PetscMin(othersize - from, maxsize - at);
      memcpy(buf + at, other + from, n);
      size = at + n;
    }
    break;
  case 12: { /* copy a block of up to 64 bytes elsewhere */
    unsigned char tmp[64];
    size_t        from, n;
    if (!size) break;
    from = FuzzBelow(r, size);
    n    = PetscMin(size - from, 1 + FuzzBelow(r, sizeof(tmp)));
    memcpy(tmp, buf + from, n);
    size = FuzzInsert(buf, size, maxsize, at, tmp, n);
  } break;
  }
  return size;
}
