/*
   A small MatrixMarket reader and writer for the SpMV benchmark (bench/spmv.c).

   Reads "%%MatrixMarket matrix coordinate <field> <symmetry>" files with
     field    real | double | integer | pattern   (complex is refused: real PETSc scalars only)
     symmetry general | symmetric | skew-symmetric | hermitian (a real hermitian matrix is symmetric)
   into CSR on the calling process: 0-based, columns sorted in each row, duplicate entries summed,
   the other triangle of a symmetric (or skew-symmetric) file filled in. Comment lines ('%...') and
   blank lines are skipped anywhere. Every malformed input is an error that names the file and the
   line: a bad header, a missing or extra field, a token that is not a number, an index out of
   range, fewer or more entries than the size line declares.

   Written for this project from the format description at https://math.nist.gov/MatrixMarket/formats.html.
*/
#pragma once

#include <petscmat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>

typedef struct {
  PetscInt     m, n;      /* rows, columns */
  PetscInt    *ia, *ja;   /* CSR: m+1 row pointers, column indices (0-based, sorted, unique) */
  PetscScalar *a;         /* values (1.0 for a pattern file) */
  PetscInt64   nentries;  /* entries listed in the file */
  char         field[16]; /* real, integer or pattern */
  char         symmetry[16];
} MMCSR;

typedef struct {
  FILE      *fp;
  char      *buf;
  size_t     len;
  PetscInt64 lineno;
} MMLineReader_;

/* Read the next line (any length) into r->buf without its newline; *eof when there is none */
static PetscErrorCode MMGetLine_(MMLineReader_ *r, PetscBool *eof)
{
  size_t used = 0;

  PetscFunctionBegin;
  *eof = PETSC_TRUE;
  if (!r->buf) {
    r->len = 256;
    PetscCall(PetscMalloc1(r->len, &r->buf));
  }
  r->buf[0] = 0;
  while (fgets(r->buf + used, (int)PetscMin(r->len - used, (size_t)INT_MAX), r->fp)) {
    *eof = PETSC_FALSE;
    used += strlen(r->buf + used);
    if (used > 0 && r->buf[used - 1] == '\n') break;
    if (used + 1 < r->len) break; /* last line without a newline */
    {                             /* line longer than the buffer: grow it */
      char *nb;
      PetscCall(PetscMalloc1(2 * r->len, &nb));
      PetscCall(PetscMemcpy(nb, r->buf, used + 1));
      PetscCall(PetscFree(r->buf));
      r->buf = nb;
      r->len *= 2;
    }
  }
  if (!*eof) r->lineno++;
  while (used > 0 && (r->buf[used - 1] == '\n' || r->buf[used - 1] == '\r')) r->buf[--used] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool MMBlank_(const char *s)
{
  while (*s && isspace((unsigned char)*s)) s++;
  return (PetscBool)(*s == 0);
}

/* Parse an integer token; *p advances past it. Returns PETSC_FALSE when there is no integer there. */
static PetscBool MMParseInt64_(const char **p, PetscInt64 *v)
{
  char     *end;
  long long x;

  while (**p && isspace((unsigned char)**p)) (*p)++;
  if (!**p) return PETSC_FALSE;
  errno = 0;
  x     = strtoll(*p, &end, 10);
  if (end == *p || errno == ERANGE || (*end && !isspace((unsigned char)*end))) return PETSC_FALSE;
  *p = end;
  *v = (PetscInt64)x;
  return PETSC_TRUE;
}

static PetscBool MMParseReal_(const char **p, double *v)
{
  char  *end;
  double x;

  while (**p && isspace((unsigned char)**p)) (*p)++;
  if (!**p) return PETSC_FALSE;
  errno = 0;
  x     = strtod(*p, &end);
  if (end == *p || (*end && !isspace((unsigned char)*end))) return PETSC_FALSE;
  *p = end;
  *v = x;
  return PETSC_TRUE;
}

/* Copy the next whitespace-separated token (lower case) of *p into tok */
static void MMNextToken_(const char **p, char *tok, size_t len)
{
  size_t k = 0;

  while (**p && isspace((unsigned char)**p)) (*p)++;
  while (**p && !isspace((unsigned char)**p)) {
    if (k + 1 < len) tok[k++] = (char)tolower((unsigned char)**p);
    (*p)++;
  }
  tok[k] = 0;
}

/*
  The parser proper: on malformed input it sets *ok = PETSC_FALSE and writes the reason into msg
  (the caller frees what was allocated and raises the error), so that nothing leaks.
*/
static PetscErrorCode MMParse_(MMLineReader_ *r, const char *fname, MMCSR *c, PetscInt64 **ti, PetscInt64 **tj, PetscScalar **tv, PetscBool *ok, char *msg, size_t msglen)
{
  char        tok[5][64];
  const char *p;
  PetscBool   eof, pattern, integer, sym, skew;
  PetscInt64  M, N, NZ, k = 0;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(MMGetLine_(r, &eof));
  if (eof) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s: empty file, not a MatrixMarket file", fname));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  p = r->buf;
  for (int t = 0; t < 5; t++) MMNextToken_(&p, tok[t], sizeof(tok[t]));
  if (strcmp(tok[0], "%%matrixmarket")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: not a MatrixMarket file: the first line must be \"%%%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>\"", fname));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (strcmp(tok[1], "matrix")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket object \"%s\" is not supported: only \"matrix\"", fname, tok[1]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (strcmp(tok[2], "coordinate")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket format \"%s\" is not supported: only sparse \"coordinate\" files (dense \"array\" files are not read)", fname, tok[2]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!strcmp(tok[3], "double")) PetscCall(PetscStrncpy(tok[3], "real", sizeof(tok[3])));
  if (strcmp(tok[3], "real") && strcmp(tok[3], "integer") && strcmp(tok[3], "pattern")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket field \"%s\" is not supported: real, integer or pattern (PETSc here has real scalars)", fname, tok[3]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!strcmp(tok[4], "hermitian")) PetscCall(PetscStrncpy(tok[4], "symmetric", sizeof(tok[4])));
  if (strcmp(tok[4], "general") && strcmp(tok[4], "symmetric") && strcmp(tok[4], "skew-symmetric")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket symmetry \"%s\" is not supported: general, symmetric, skew-symmetric or hermitian", fname, tok[4]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(c->field, tok[3], sizeof(c->field)));
  PetscCall(PetscStrncpy(c->symmetry, tok[4], sizeof(c->symmetry)));
  pattern = (PetscBool)!strcmp(tok[3], "pattern");
  integer = (PetscBool)!strcmp(tok[3], "integer");
  sym     = (PetscBool)!strcmp(tok[4], "symmetric");
  skew    = (PetscBool)!strcmp(tok[4], "skew-symmetric");

  /* size line, after comments and blank lines */
  do {
    PetscCall(MMGetLine_(r, &eof));
  } while (!eof && (r->buf[0] == '%' || MMBlank_(r->buf)));
  if (eof) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": the file ends before the size line \"rows columns entries\"", fname, r->lineno));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  p = r->buf;
  if (!MMParseInt64_(&p, &M) || !MMParseInt64_(&p, &N) || !MMParseInt64_(&p, &NZ) || !MMBlank_(p)) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed size line \"%s\": expected three integers \"rows columns entries\"", fname, r->lineno, r->buf));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (M < 0 || N < 0 || NZ < 0 || M >= PETSC_INT_MAX || N >= PETSC_INT_MAX) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": sizes %" PetscInt64_FMT " x %" PetscInt64_FMT " with %" PetscInt64_FMT " entries are negative or too large for this PETSc's %d-bit PetscInt", fname, r->lineno, M, N, NZ, (int)(8 * sizeof(PetscInt))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if ((sym || skew) && M != N) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": a %s matrix must be square, this one is %" PetscInt64_FMT " x %" PetscInt64_FMT, fname, r->lineno, c->symmetry, M, N));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if ((sym || skew) ? 2 * NZ >= PETSC_INT_MAX : NZ >= PETSC_INT_MAX) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": %" PetscInt64_FMT " entries do not fit this PETSc's %d-bit PetscInt (configure PETSc --with-64-bit-indices)", fname, r->lineno, NZ, (int)(8 * sizeof(PetscInt))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  c->m        = (PetscInt)M;
  c->n        = (PetscInt)N;
  c->nentries = NZ;
  PetscCall(PetscMalloc3(NZ, ti, NZ, tj, NZ, tv));

  /* the entries */
  while (k < NZ) {
    PetscInt64 i, j, iv;
    double     v = 1.0;

    PetscCall(MMGetLine_(r, &eof));
    if (eof) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": the file ends after %" PetscInt64_FMT " of the %" PetscInt64_FMT " entries declared by the size line", fname, r->lineno, k, NZ));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (r->buf[0] == '%' || MMBlank_(r->buf)) continue;
    p = r->buf;
    if (!MMParseInt64_(&p, &i) || !MMParseInt64_(&p, &j)) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed entry \"%s\": expected \"row column%s\" with integer indices", fname, r->lineno, r->buf, pattern ? "" : " value"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (!pattern) {
      PetscBool got;
      if (integer) {
        got = MMParseInt64_(&p, &iv);
        v   = (double)iv;
      } else got = MMParseReal_(&p, &v);
      if (!got) {
        PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed entry \"%s\": expected \"row column value\" with %s value", fname, r->lineno, r->buf, integer ? "an integer" : "a real"));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    if (!MMBlank_(p)) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed entry \"%s\": unexpected text after the %s", fname, r->lineno, r->buf, pattern ? "column index (a pattern file has no values)" : "value"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (i < 1 || i > M || j < 1 || j > N) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": entry (%" PetscInt64_FMT ", %" PetscInt64_FMT ") is outside the %" PetscInt64_FMT " x %" PetscInt64_FMT " matrix (indices are 1-based)", fname, r->lineno, i, j, M, N));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (skew && i == j) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": a skew-symmetric file cannot have a diagonal entry (%" PetscInt64_FMT ", %" PetscInt64_FMT ")", fname, r->lineno, i, j));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    (*ti)[k] = i - 1;
    (*tj)[k] = j - 1;
    (*tv)[k] = (PetscScalar)v;
    k++;
  }
  /* nothing but comments and blank lines may follow */
  for (;;) {
    PetscCall(MMGetLine_(r, &eof));
    if (eof) break;
    if (r->buf[0] == '%' || MMBlank_(r->buf)) continue;
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": more entries than the %" PetscInt64_FMT " declared by the size line (\"%s\")", fname, r->lineno, NZ, r->buf));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MMFreeCSR(MMCSR *c)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(c->ia));
  PetscCall(PetscFree(c->ja));
  PetscCall(PetscFree(c->a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MMReadCSR - read a MatrixMarket coordinate file on this process into CSR (see the top of this file)
*/
static PetscErrorCode MMReadCSR(const char fname[], MMCSR *c)
{
  MMLineReader_ r = {NULL, NULL, 0, 0};
  PetscInt64   *ti = NULL, *tj = NULL;
  PetscScalar  *tv = NULL;
  PetscBool     ok, mirror, skew;
  char          msg[1024];
  PetscInt     *cnt;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  r.fp = fopen(fname, "r");
  PetscCheck(r.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open MatrixMarket file %s: %s", fname, strerror(errno));
  PetscCall(MMParse_(&r, fname, c, &ti, &tj, &tv, &ok, msg, sizeof(msg)));
  (void)fclose(r.fp);
  PetscCall(PetscFree(r.buf));
  if (!ok) {
    PetscCall(PetscFree3(ti, tj, tv));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  }
  skew   = (PetscBool)!strcmp(c->symmetry, "skew-symmetric");
  mirror = (PetscBool)(skew || !strcmp(c->symmetry, "symmetric"));

  /* triplets -> CSR (mirrored entries added), then sort each row and sum duplicates */
  PetscCall(PetscCalloc1(c->m + 1, &c->ia));
  PetscCall(PetscCalloc1(c->m + 1, &cnt));
  for (PetscInt64 k = 0; k < c->nentries; k++) {
    c->ia[ti[k] + 1]++;
    if (mirror && ti[k] != tj[k]) c->ia[tj[k] + 1]++;
  }
  for (PetscInt i = 0; i < c->m; i++) c->ia[i + 1] += c->ia[i];
  PetscCall(PetscMalloc1(c->ia[c->m], &c->ja));
  PetscCall(PetscMalloc1(c->ia[c->m], &c->a));
  for (PetscInt64 k = 0; k < c->nentries; k++) {
    const PetscInt i = (PetscInt)ti[k], j = (PetscInt)tj[k];
    c->ja[c->ia[i] + cnt[i]] = j;
    c->a[c->ia[i] + cnt[i]]  = tv[k];
    cnt[i]++;
    if (mirror && i != j) {
      c->ja[c->ia[j] + cnt[j]] = i;
      c->a[c->ia[j] + cnt[j]]  = skew ? -tv[k] : tv[k];
      cnt[j]++;
    }
  }
  PetscCall(PetscFree3(ti, tj, tv));
  {
    PetscInt nz = 0;
    for (PetscInt i = 0; i < c->m; i++) {
      const PetscInt beg = c->ia[i], len = c->ia[i + 1] - beg;
      PetscCall(PetscSortIntWithScalarArray(len, c->ja + beg, c->a + beg));
      c->ia[i] = nz;
      for (PetscInt e = beg; e < beg + len; e++) {
        if (nz > c->ia[i] && c->ja[nz - 1] == c->ja[e]) c->a[nz - 1] += c->a[e];
        else {
          c->ja[nz] = c->ja[e];
          c->a[nz]  = c->a[e];
          nz++;
        }
      }
    }
    c->ia[c->m] = nz;
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MMWriteMat - write a sequential matrix as a MatrixMarket coordinate file
  (symmetry "general", "symmetric": lower triangle only, or "pattern": general pattern)
*/
static PetscErrorCode MMWriteMat(Mat A, const char fname[], const char kind[])
{
  FILE     *fp;
  PetscInt  m, n, nz = 0;
  PetscBool sym, pat;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(kind, "symmetric", &sym));
  PetscCall(PetscStrcmp(kind, "pattern", &pat));
  PetscCall(MatGetSize(A, &m, &n));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt        ncols;
    const PetscInt *cols;
    PetscCall(MatGetRow(A, i, &ncols, &cols, NULL));
    for (PetscInt e = 0; e < ncols; e++)
      if (!sym || cols[e] <= i) nz++;
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, NULL));
  }
  fp = fopen(fname, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s: %s", fname, strerror(errno));
  fprintf(fp, "%%%%MatrixMarket matrix coordinate %s %s\n%% written by petsc-modsell bench/spmv\n%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", pat ? "pattern" : "real", sym ? "symmetric" : "general", m, n, nz);
  for (PetscInt i = 0; i < m; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    for (PetscInt e = 0; e < ncols; e++) {
      if (sym && cols[e] > i) continue;
      if (pat) fprintf(fp, "%" PetscInt_FMT " %" PetscInt_FMT "\n", i + 1, cols[e] + 1);
      else fprintf(fp, "%" PetscInt_FMT " %" PetscInt_FMT " %.17g\n", i + 1, cols[e] + 1, (double)PetscRealPart(vals[e]));
    }
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
  }
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Error writing %s", fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}
