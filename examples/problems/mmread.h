/*
   A small MatrixMarket reader and writer for the problem suite (examples/problems/problems.h) and the
   SpMV benchmark (bench/spmv.c).

   Reads "%%MatrixMarket matrix coordinate <field> <symmetry>" files with
     field    real | double | integer | pattern   (complex is refused: real PETSc scalars only)
     symmetry general | symmetric | skew-symmetric | hermitian (a real hermitian matrix is symmetric)
   into CSR on the calling process: 0-based, columns sorted in each row, duplicate entries summed,
   the other triangle of a symmetric (or skew-symmetric) file filled in. Comment lines ('%...') and
   blank lines are skipped anywhere. Every malformed input is an error that names the file and the
   line: a bad header, a missing or extra field, a token that is not a number, a value that is not
   finite (nan, inf, 1e999), an index out of range, fewer or more entries than the size line
   declares, a NUL byte (a binary file). Nothing leaks on an error, and the memory allocated stays in
   proportion to the file: the size line's counts are claims, checked as the entries come (see
   MMREAD_DIM_SLACK below). bench/fuzz/ fuzzes this reader (docs/fuzz.md).

   Written for this project from the format description at https://math.nist.gov/MatrixMarket/formats.html.
*/
#pragma once

#include <petscmat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>

typedef struct {
  PetscInt     m, n;      /* rows, columns */
  PetscInt    *ia, *ja;   /* CSR: m+1 row pointers, column indices (0-based, sorted, unique) */
  PetscScalar *a;         /* values (1.0 for a pattern file) */
  PetscInt64   nentries;  /* entries listed in the file */
  char         field[16]; /* real, integer or pattern */
  char         symmetry[16];
} MMCSR;

/*
  Limits that keep the memory the reader allocates in proportion to the file: the triplets grow as
  entries are read (a size line declaring 2e9 entries in a 40-byte file allocates nothing big), and
  the row pointers (rows + 1 PetscInt) exist only if rows and columns are at most
  MMREAD_DIM_SLACK + MMREAD_DIM_PER_ENTRY * entries (a 1e9 x 1e9 matrix with 3 entries is refused).
*/
#if !defined(MMREAD_DIM_SLACK)
  #define MMREAD_DIM_SLACK 1048576
#endif
#if !defined(MMREAD_DIM_PER_ENTRY)
  #define MMREAD_DIM_PER_ENTRY 16
#endif
#define MMREAD_CHUNK 65536

typedef struct {
  FILE       *fp;
  const char *fname;
  char       *buf;           /* the current line, without its end of line, NUL-terminated */
  size_t      len;           /* allocated length of buf */
  PetscInt64  lineno;        /* number of the current line (1-based) */
  char       *in;            /* input buffer: MMREAD_CHUNK bytes, valid from inpos to inend */
  size_t      inpos, inend;
  PetscBool   bad;           /* the current line cannot be read: msg says why */
  char       *msg;
  size_t      msglen;
} MMLineReader_;

/* Open fname for MMGetLine_(); *ok false (and msg says why) when it cannot be opened */
static PetscErrorCode MMLineReaderOpen_(MMLineReader_ *r, const char fname[], char *msg, size_t msglen, PetscBool *ok)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->fname  = fname;
  r->msg    = msg;
  r->msglen = msglen;
  r->fp     = fopen(fname, "rb");
  *ok       = (PetscBool)(r->fp != NULL);
  if (!r->fp) PetscCall(PetscSNPrintf(msg, msglen, "Cannot open MatrixMarket file %s: %s", fname, strerror(errno)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MMLineReaderClose_(MMLineReader_ *r)
{
  PetscFunctionBegin;
  if (r->fp) (void)fclose(r->fp);
  r->fp = NULL;
  PetscCall(PetscFree(r->buf));
  PetscCall(PetscFree(r->in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Read the next line (any length) into r->buf without its end of line ("\n", "\r\n"); *eof when there is
  none. A line holding a NUL byte (a binary file) or a read error sets r->bad, with the line in r->msg.
*/
static PetscErrorCode MMGetLine_(MMLineReader_ *r, PetscBool *eof)
{
  size_t    used = 0;
  PetscBool any  = PETSC_FALSE, nul = PETSC_FALSE;

  PetscFunctionBegin;
  *eof = PETSC_TRUE;
  if (r->bad) PetscFunctionReturn(PETSC_SUCCESS);
  if (!r->buf) {
    r->len = 256;
    PetscCall(PetscMalloc1(r->len, &r->buf));
  }
  if (!r->in) PetscCall(PetscMalloc1(MMREAD_CHUNK, &r->in));
  for (;;) {
    const char *s, *nl;
    size_t      n;

    if (r->inpos == r->inend) {
      r->inpos = 0;
      r->inend = fread(r->in, 1, MMREAD_CHUNK, r->fp);
      if (!r->inend) break; /* end of file, or an error (below) */
    }
    s  = r->in + r->inpos;
    nl = (const char *)memchr(s, '\n', r->inend - r->inpos);
    n  = nl ? (size_t)(nl - s) : r->inend - r->inpos;
    if (!nul && memchr(s, 0, n)) nul = PETSC_TRUE;
    if (used + n + 1 > r->len) { /* line longer than the buffer: grow it */
      size_t len = 2 * r->len;
      char  *nb;
      while (used + n + 1 > len) len *= 2;
      PetscCall(PetscMalloc1(len, &nb));
      PetscCall(PetscMemcpy(nb, r->buf, used));
      PetscCall(PetscFree(r->buf));
      r->buf = nb;
      r->len = len;
    }
    PetscCall(PetscMemcpy(r->buf + used, s, n));
    used += n;
    any = PETSC_TRUE;
    r->inpos += n + (nl ? 1 : 0);
    if (nl) break;
  }
  r->buf[used] = 0;
  if (any) {
    *eof = PETSC_FALSE;
    r->lineno++;
  }
  while (used > 0 && r->buf[used - 1] == '\r') r->buf[--used] = 0;
  if (ferror(r->fp)) {
    r->bad = PETSC_TRUE;
    PetscCall(PetscSNPrintf(r->msg, r->msglen, "%s:%" PetscInt64_FMT ": read error: %s", r->fname, r->lineno + (any ? 0 : 1), strerror(errno)));
  } else if (nul) {
    r->bad = PETSC_TRUE;
    PetscCall(PetscSNPrintf(r->msg, r->msglen, "%s:%" PetscInt64_FMT ": the line holds a NUL byte: not a text (MatrixMarket) file", r->fname, r->lineno));
  }
  if (r->bad) *eof = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The line s as it is quoted in error messages: at most 60 characters (then "..."), control and non-ASCII bytes as '?' */
static const char *MMQuote_(const char *s, char *out, size_t len)
{
  size_t k = 0;

  for (; *s && k + 4 < len && k < 60; s++) out[k++] = (*s >= 32 && *s < 127) ? *s : '?';
  if (*s) {
    out[k++] = '.';
    out[k++] = '.';
    out[k++] = '.';
  }
  out[k] = 0;
  return out;
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

/* Parse a real token (any strtod() syntax; *finite false for nan, inf or a value beyond the double range) */
static PetscBool MMParseReal_(const char **p, double *v, PetscBool *finite)
{
  char  *end;
  double x;

  while (**p && isspace((unsigned char)**p)) (*p)++;
  if (!**p) return PETSC_FALSE;
  errno = 0;
  x     = strtod(*p, &end);
  if (end == *p || (*end && !isspace((unsigned char)*end))) return PETSC_FALSE;
  *finite = (PetscBool)isfinite(x);
  *p      = end;
  *v      = x;
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

/* Make room for k + 1 triplets in ti, tj, tv (capacity *cap, at most nz) */
static PetscErrorCode MMGrowTriplets_(PetscInt64 k, PetscInt64 nz, PetscInt64 *cap, PetscInt64 **ti, PetscInt64 **tj, PetscScalar **tv)
{
  PetscFunctionBegin;
  if (k < *cap) PetscFunctionReturn(PETSC_SUCCESS);
  *cap = PetscMin(nz, PetscMax(1024, 2 * *cap));
  PetscCall(PetscRealloc((size_t)*cap * sizeof(**ti), ti));
  PetscCall(PetscRealloc((size_t)*cap * sizeof(**tj), tj));
  PetscCall(PetscRealloc((size_t)*cap * sizeof(**tv), tv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The parser proper: on malformed input it sets *ok = PETSC_FALSE and writes the reason into r->msg
  (the caller frees what was allocated and raises the error), so that nothing leaks.
*/
static PetscErrorCode MMParse_(MMLineReader_ *r, const char *fname, MMCSR *c, PetscInt64 **ti, PetscInt64 **tj, PetscScalar **tv, PetscBool *ok)
{
  char        tok[5][64], q[80];
  char       *msg    = r->msg;
  size_t      msglen = r->msglen;
  const char *p;
  PetscBool   eof, pattern, integer, sym, skew;
  PetscInt64  M, N, NZ, k = 0, cap = 0;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(MMGetLine_(r, &eof));
  if (r->bad) PetscFunctionReturn(PETSC_SUCCESS);
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
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket object \"%s\" is not supported: only \"matrix\"", fname, MMQuote_(tok[1], q, sizeof(q))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (strcmp(tok[2], "coordinate")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket format \"%s\" is not supported: only sparse \"coordinate\" files (dense \"array\" files are not read)", fname, MMQuote_(tok[2], q, sizeof(q))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!strcmp(tok[3], "double")) PetscCall(PetscStrncpy(tok[3], "real", sizeof(tok[3])));
  if (strcmp(tok[3], "real") && strcmp(tok[3], "integer") && strcmp(tok[3], "pattern")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket field \"%s\" is not supported: real, integer or pattern (PETSc here has real scalars)", fname, MMQuote_(tok[3], q, sizeof(q))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!strcmp(tok[4], "hermitian")) PetscCall(PetscStrncpy(tok[4], "symmetric", sizeof(tok[4])));
  if (strcmp(tok[4], "general") && strcmp(tok[4], "symmetric") && strcmp(tok[4], "skew-symmetric")) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:1: MatrixMarket symmetry \"%s\" is not supported: general, symmetric, skew-symmetric or hermitian", fname, MMQuote_(tok[4], q, sizeof(q))));
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
  if (r->bad) PetscFunctionReturn(PETSC_SUCCESS);
  if (eof) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": the file ends before the size line \"rows columns entries\"", fname, r->lineno));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  p = r->buf;
  if (!MMParseInt64_(&p, &M) || !MMParseInt64_(&p, &N) || !MMParseInt64_(&p, &NZ) || !MMBlank_(p)) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed size line \"%s\": expected three integers \"rows columns entries\"", fname, r->lineno, MMQuote_(r->buf, q, sizeof(q))));
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
  if ((sym || skew) ? NZ > PETSC_INT_MAX / 2 : NZ >= PETSC_INT_MAX) {
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": %" PetscInt64_FMT " entries do not fit this PETSc's %d-bit PetscInt (configure PETSc --with-64-bit-indices)", fname, r->lineno, NZ, (int)(8 * sizeof(PetscInt))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (PetscMax(M, N) > MMREAD_DIM_SLACK && (PetscMax(M, N) - MMREAD_DIM_SLACK + MMREAD_DIM_PER_ENTRY - 1) / MMREAD_DIM_PER_ENTRY > NZ) { /* max(M, N) > slack + per_entry * NZ */
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": a %" PetscInt64_FMT " x %" PetscInt64_FMT " matrix with only %" PetscInt64_FMT " entries is refused: rows and columns may not exceed %d + %d x entries", fname, r->lineno, M, N, NZ, (int)MMREAD_DIM_SLACK, (int)MMREAD_DIM_PER_ENTRY));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  c->m        = (PetscInt)M;
  c->n        = (PetscInt)N;
  c->nentries = NZ;

  /* the entries (the triplet arrays grow as they come: NZ is only what the size line claims) */
  while (k < NZ) {
    PetscInt64 i, j, iv;
    double     v      = 1.0;
    PetscBool  finite = PETSC_TRUE;

    PetscCall(MMGetLine_(r, &eof));
    if (r->bad) PetscFunctionReturn(PETSC_SUCCESS);
    if (eof) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": the file ends after %" PetscInt64_FMT " of the %" PetscInt64_FMT " entries declared by the size line", fname, r->lineno, k, NZ));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (r->buf[0] == '%' || MMBlank_(r->buf)) continue;
    p = r->buf;
    if (!MMParseInt64_(&p, &i) || !MMParseInt64_(&p, &j)) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed entry \"%s\": expected \"row column%s\" with integer indices", fname, r->lineno, MMQuote_(r->buf, q, sizeof(q)), pattern ? "" : " value"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (!pattern) {
      PetscBool got;
      if (integer) {
        got = MMParseInt64_(&p, &iv);
        v   = (double)iv;
      } else got = MMParseReal_(&p, &v, &finite);
      if (!got) {
        PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed entry \"%s\": expected \"row column value\" with %s value", fname, r->lineno, MMQuote_(r->buf, q, sizeof(q)), integer ? "an integer" : "a real"));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    if (!MMBlank_(p)) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": malformed entry \"%s\": unexpected text after the %s", fname, r->lineno, MMQuote_(r->buf, q, sizeof(q)), pattern ? "column index (a pattern file has no values)" : "value"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (!finite) {
      PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": entry \"%s\": the value is not a finite real number (nan, inf or beyond the double range)", fname, r->lineno, MMQuote_(r->buf, q, sizeof(q))));
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
    PetscCall(MMGrowTriplets_(k, NZ, &cap, ti, tj, tv));
    (*ti)[k] = i - 1;
    (*tj)[k] = j - 1;
    (*tv)[k] = (PetscScalar)v;
    k++;
  }
  /* nothing but comments and blank lines may follow */
  for (;;) {
    PetscCall(MMGetLine_(r, &eof));
    if (r->bad) PetscFunctionReturn(PETSC_SUCCESS);
    if (eof) break;
    if (r->buf[0] == '%' || MMBlank_(r->buf)) continue;
    PetscCall(PetscSNPrintf(msg, msglen, "%s:%" PetscInt64_FMT ": more entries than the %" PetscInt64_FMT " declared by the size line (\"%s\")", fname, r->lineno, NZ, MMQuote_(r->buf, q, sizeof(q))));
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
  MMLineReader_  r;
  PetscInt64    *ti = NULL, *tj = NULL;
  PetscScalar   *tv = NULL;
  PetscBool      ok, mirror, skew;
  char           msg[1024];
  PetscInt      *cnt;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCall(MMLineReaderOpen_(&r, fname, msg, sizeof(msg), &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s", msg);
  ierr = MMParse_(&r, fname, c, &ti, &tj, &tv, &ok);
  PetscCall(MMLineReaderClose_(&r));
  if (ierr || !ok) {
    PetscCall(PetscFree(ti));
    PetscCall(PetscFree(tj));
    PetscCall(PetscFree(tv));
    PetscCall(ierr);
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
  PetscCall(PetscMalloc1(PetscMax(c->ia[c->m], 1), &c->ja)); /* never NULL, also without entries */
  PetscCall(PetscMalloc1(PetscMax(c->ia[c->m], 1), &c->a));
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
  PetscCall(PetscFree(ti));
  PetscCall(PetscFree(tj));
  PetscCall(PetscFree(tv));
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
