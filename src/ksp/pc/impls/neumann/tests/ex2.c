static char help[] = "PCNEUMANN's deflation kernels (neumannkernels.h): blocks, order, cut, galerkin (E = Z^T A Z, Z^T A), restrict,\n"
                     "coarse and prolong of the host reference against a direct computation from the CSR and, with -cuda (a PETSc\n"
                     "with CUDA), the CUDA kernels against the reference on the same inputs: the setup bit for bit (the canonical\n"
                     "order of the sums), the per-apply kernels to 1e-12. Every output array is poisoned (bytes 0x7f) first.\n"
                     "Options: the matrix of mstest.h (-kind lap2d|lap3d|unstructured|random|edge, sizes), -nsub <subdomains>,\n"
                     "-sub_kind contiguous|permuted|scattered, -coff <first column of E>, -direct <bool> (the O(nsub m) direct check),\n"
                     "-cuda\n";

/*
   sub_kind: contiguous  blocks of consecutive rows (kernel blocks without a permutation; order with and without the
                         identity shortcut)
             permuted    blocks of a random permutation (kernel blocks with it: as the locality partition is used)
             scattered   sub[o] = a hash of o modulo nsub (subdomains of scattered rows; empty ones when nsub > m)
   E is computed as the rows of a process whose subdomains start at column coff of nt = coff + nsub + 2 columns (the
   columns of other processes must stay 0).
*/
#include <mstest.h> /* (PETSc's configuration first: the header declares the CUDA table with PETSC_HAVE_CUDA) */
#include <petscmodsell/private/neumannkernels.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define POISON 0x7f

typedef struct {
  void  *h, *d; /* host (the reference's) and device (CUDA's) arrays */
  size_t bytes;
} Buf;

static PetscBool use_cuda = PETSC_FALSE;

static PetscErrorCode BufCreate(size_t bytes, Buf *b)
{
  PetscFunctionBegin;
  b->bytes = PetscMax(bytes, (size_t)8);
  PetscCall(PetscMalloc(b->bytes, &b->h));
  memset(b->h, POISON, b->bytes);
  b->d = NULL;
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda) {
    PetscCallCUDA(cudaMalloc(&b->d, b->bytes));
    PetscCallCUDA(cudaMemset(b->d, POISON, b->bytes));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BufInput(size_t bytes, const void *src, Buf *b)
{
  PetscFunctionBegin;
  PetscCall(BufCreate(bytes, b));
  if (bytes) memcpy(b->h, src, bytes);
#if defined(PETSC_HAVE_CUDA)
  if (use_cuda && bytes) PetscCallCUDA(cudaMemcpy(b->d, src, bytes, cudaMemcpyHostToDevice));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BufDestroy(Buf *b)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(b->h));
#if defined(PETSC_HAVE_CUDA)
  if (b->d) PetscCallCUDA(cudaFree(b->d));
#endif
  b->d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* the device array into dst (host), after the device's work */
static PetscErrorCode BufDownload(Buf *b, void *dst)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemcpy(dst, b->d, b->bytes, cudaMemcpyDeviceToHost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device copy of the first n bytes equals the host's, byte for byte */
static PetscErrorCode BufSame(Buf *b, size_t n, PetscBool *same)
{
  void *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc(b->bytes, &t));
  PetscCall(BufDownload(b, t));
  *same = (PetscBool)(!n || !memcmp(t, b->h, n));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max_i |x_i - y_i| / max(max_i |y_i|, tiny) over n doubles, x on the device */
static PetscErrorCode BufRelDiff(Buf *b, PetscInt n, PetscReal *rel)
{
  double   *t;
  PetscReal dmax = 0, ymax = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc(b->bytes, &t));
  PetscCall(BufDownload(b, t));
  for (PetscInt i = 0; i < n; i++) {
    dmax = PetscMax(dmax, PetscAbsReal(t[i] - ((double *)b->h)[i]));
    ymax = PetscMax(ymax, PetscAbsReal(((double *)b->h)[i]));
  }
  *rel = dmax / PetscMax(ymax, 1e-300);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode Report(const char *what, PetscBool ok, PetscInt *nfail)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %s\n", what, ok ? "yes" : "NO"));
  if (!ok) (*nfail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define CHECKK(err, name) PetscCheck(!(err), PETSC_COMM_SELF, PETSC_ERR_LIB, "kernel %s failed with code %d", name, (int)(err))

int main(int argc, char **argv)
{
  MSTestCSR          T;
  const char        *skinds[] = {"contiguous", "permuted", "scattered"};
  PetscInt           skind = 0, nsub = 8, coff = 2, nfail = 0, m, nnz, nt, bs, maxitems = 0, ncutd = 0;
  PetscBool          direct = PETSC_TRUE;
  int               *ai, *aj, *perm = NULL, *sub, *hoff, *hxoff;
  double            *a, *bvec;
  MSNeuCSR           Ah, Ad;
  MSNeuZtA           Zh, Zd;
  MSNeuDefl          Dh, Dd;
  Buf                bai, baj, baa, bperm, bsub, border, boff, bncut, bE, bE2, bzw, bxrow, bxval, bxoff, bnx, ba, bb, bout, bwork, bc, bz, bg, bEinv;
  long long          ncut, nx;
  const MSNeuKernels *R = &MSNeuKernels_Reference;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cuda", &use_cuda, NULL));
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!use_cuda, PETSC_COMM_SELF, PETSC_ERR_SUP, "-cuda needs a PETSc with CUDA");
#endif
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsub", &nsub, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-coff", &coff, NULL));
  PetscCall(PetscOptionsGetEList(NULL, NULL, "-sub_kind", skinds, 3, &skind, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-direct", &direct, NULL));
  PetscCheck(nsub >= 1 && coff >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-nsub >= 1, -coff >= 0");
  PetscCall(MSTestGenerate(PETSC_COMM_SELF, &T));
  PetscCheck(T.nrows == T.ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "a square matrix");
  m   = T.nrows;
  nnz = T.ia[m];
  nt  = coff + nsub + 2;
  bs  = (m + nsub - 1) / nsub;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " subdomains (%s), E's columns %" PetscInt_FMT " .. %" PetscInt_FMT " of %" PetscInt_FMT "\n", nsub, skinds[skind], coff, coff + nsub - 1, nt));

  /* inputs: the CSR, a right-hand side and a vector, the permutation */
  PetscCall(PetscMalloc4(m + 1, &ai, PetscMax(nnz, 1), &aj, PetscMax(nnz, 1), &a, PetscMax(m, 1), &bvec));
  for (PetscInt i = 0; i <= m; i++) ai[i] = (int)T.ia[i];
  for (PetscInt e = 0; e < nnz; e++) {
    aj[e] = (int)T.ja[e];
    a[e]  = PetscRealPart(T.va[e]);
  }
  PetscCall(BufInput(sizeof(int) * (m + 1), ai, &bai));
  PetscCall(BufInput(sizeof(int) * nnz, aj, &baj));
  PetscCall(BufInput(sizeof(double) * nnz, a, &baa));
  Ah.m = Ad.m = (int)m;
  Ah.nnz = Ad.nnz = (int)nnz;
  Ah.ai = (const int *)bai.h;
  Ah.aj = (const int *)baj.h;
  Ah.aa = (const double *)baa.h;
  Ad.ai = (const int *)bai.d;
  Ad.aj = (const int *)baj.d;
  Ad.aa = (const double *)baa.d;
  {
    double *av;
    PetscCall(PetscMalloc1(PetscMax(m, 1), &av));
    for (PetscInt o = 0; o < m; o++) {
      av[o]   = 2.0 * MSTestHashUniform(3 * (unsigned long long)o + 1) - 1.0;
      bvec[o] = 2.0 * MSTestHashUniform(3 * (unsigned long long)o + 2) - 1.0;
    }
    PetscCall(BufInput(sizeof(double) * m, av, &ba));
    PetscCall(BufInput(sizeof(double) * m, bvec, &bb));
    PetscCall(PetscFree(av));
  }
  PetscCall(PetscMalloc1(PetscMax(m, 1), &sub));
  if (skind == 1) { /* a random permutation (Fisher-Yates with the test generator) */
    MSTestRng rng = {11};
    PetscCall(PetscMalloc1(PetscMax(m, 1), &perm));
    for (PetscInt i = 0; i < m; i++) perm[i] = (int)i;
    for (PetscInt i = m - 1; i > 0; i--) {
      const PetscInt k = MSTestRngInt(&rng, i + 1);
      const int      t = perm[i];
      perm[i]          = perm[k];
      perm[k]          = t;
    }
  }
  PetscCall(BufInput(perm ? sizeof(int) * m : 0, perm, &bperm));

  /* blocks */
  PetscCall(BufCreate(sizeof(int) * m, &bsub));
  if (skind == 2) {
    for (PetscInt o = 0; o < m; o++) ((int *)bsub.h)[o] = (int)(MSTestHash64((unsigned long long)o * 7 + 5) % (unsigned long long)nsub);
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) PetscCallCUDA(cudaMemcpy(bsub.d, bsub.h, sizeof(int) * m, cudaMemcpyHostToDevice));
#endif
  } else {
    int err = R->blocks((int)m, skind == 1 ? (const int *)bperm.h : NULL, (int)bs, (int *)bsub.h, NULL);
    CHECKK(err, "blocks (reference)");
    {
      PetscBool ok = PETSC_TRUE;
      for (PetscInt r = 0; r < m; r++) ok = (PetscBool)(ok && ((int *)bsub.h)[skind == 1 ? perm[r] : r] == (int)(r / bs));
      PetscCall(Report("reference blocks: sub[perm[r]] = r / bs", ok, &nfail));
    }
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscBool same;
      err = MSNeuKernels_CUDA.blocks((int)m, skind == 1 ? (const int *)bperm.d : NULL, (int)bs, (int *)bsub.d, NULL);
      CHECKK(err, "blocks (CUDA)");
      PetscCall(BufSame(&bsub, sizeof(int) * m, &same));
      PetscCall(Report("CUDA blocks equal the reference's", same, &nfail));
    }
#endif
  }
  memcpy(sub, bsub.h, sizeof(int) * m);

  /* order (with the identity shortcut too for consecutive rows) */
  PetscCall(BufCreate(sizeof(int) * m, &border));
  PetscCall(BufCreate(sizeof(int) * (nsub + 1), &boff));
  for (PetscInt pass = 0; pass < (skind == 0 ? 2 : 1); pass++) {
    const PetscBool ident = (PetscBool)(pass == 1);
    PetscBool       ok    = PETSC_TRUE;
    const int      *ord   = (const int *)border.h, *off = (const int *)boff.h;
    PetscInt       *cnt;
    int             err = R->order((int)m, (const int *)bsub.h, (int)nsub, ident ? NULL : (int *)border.h, (int *)boff.h, NULL);

    CHECKK(err, "order (reference)");
    PetscCall(PetscCalloc1(nsub, &cnt));
    for (PetscInt o = 0; o < m; o++) cnt[sub[o]]++;
    ok = (PetscBool)(off[0] == 0 && off[nsub] == m);
    for (PetscInt j = 0; j < nsub; j++) {
      ok = (PetscBool)(ok && off[j + 1] - off[j] == cnt[j]);
      for (PetscInt i = off[j]; !ident && i < off[j + 1]; i++) ok = (PetscBool)(ok && sub[ord[i]] == j && (i == off[j] || ord[i] > ord[i - 1]));
    }
    PetscCall(PetscFree(cnt));
    PetscCall(Report(ident ? "reference order (identity): subdomain offsets" : "reference order: rows sorted by (subdomain, row), offsets", ok, &nfail));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscBool s1 = PETSC_TRUE, s2;
      err = MSNeuKernels_CUDA.order((int)m, (const int *)bsub.d, (int)nsub, ident ? NULL : (int *)border.d, (int *)boff.d, NULL);
      CHECKK(err, "order (CUDA)");
      if (!ident) PetscCall(BufSame(&border, sizeof(int) * m, &s1));
      PetscCall(BufSame(&boff, sizeof(int) * (nsub + 1), &s2));
      PetscCall(Report(ident ? "CUDA order (identity) equals the reference's" : "CUDA order equals the reference's", (PetscBool)(s1 && s2), &nfail));
    }
#endif
  }
  /* the order for the restriction below: the real one */
  {
    int err = R->order((int)m, (const int *)bsub.h, (int)nsub, (int *)border.h, (int *)boff.h, NULL);
    CHECKK(err, "order (reference)");
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      err = MSNeuKernels_CUDA.order((int)m, (const int *)bsub.d, (int)nsub, (int *)border.d, (int *)boff.d, NULL);
      CHECKK(err, "order (CUDA)");
    }
#endif
  }

  /* cut */
  PetscCall(BufCreate(sizeof(long long), &bncut));
  {
    int err = R->cut(&Ah, (const int *)bsub.h, (long long *)bncut.h, NULL);
    CHECKK(err, "cut (reference)");
    ncut = *(long long *)bncut.h;
    for (PetscInt o = 0; o < m; o++)
      for (PetscInt e = ai[o]; e < ai[o + 1]; e++) ncutd += sub[aj[e]] != sub[o];
    PetscCall(Report("reference cut: the entries between subdomains", (PetscBool)(ncut == ncutd), &nfail));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscBool same;
      err = MSNeuKernels_CUDA.cut(&Ad, (const int *)bsub.d, (long long *)bncut.d, NULL);
      CHECKK(err, "cut (CUDA)");
      PetscCall(BufSame(&bncut, sizeof(long long), &same));
      PetscCall(Report("CUDA cut equals the reference's", same, &nfail));
    }
#endif
  }

  /* galerkin, with Z^T A, then E alone */
  PetscCall(BufCreate(sizeof(double) * nsub * nt, &bE));
  PetscCall(BufCreate(sizeof(double) * nsub * nt, &bE2));
  PetscCall(BufCreate(sizeof(double) * m, &bzw));
  PetscCall(BufCreate(sizeof(int) * PetscMax(ncut, 1), &bxrow));
  PetscCall(BufCreate(sizeof(double) * PetscMax(ncut, 1), &bxval));
  PetscCall(BufCreate(sizeof(int) * (nsub + 1), &bxoff));
  PetscCall(BufCreate(sizeof(long long), &bnx));
  Zh.zw   = (double *)bzw.h;
  Zh.xrow = (int *)bxrow.h;
  Zh.xval = (double *)bxval.h;
  Zh.xoff = (int *)bxoff.h;
  Zh.cap  = ncut;
  Zh.nx   = (long long *)bnx.h;
  Zd      = Zh;
  Zd.zw   = (double *)bzw.d;
  Zd.xrow = (int *)bxrow.d;
  Zd.xval = (double *)bxval.d;
  Zd.xoff = (int *)bxoff.d;
  Zd.nx   = (long long *)bnx.d;
  {
    int err = R->galerkin(&Ah, (const int *)bsub.h, (int)nsub, (int)nt, (int)coff, (double *)bE.h, &Zh, NULL);

    CHECKK(err, "galerkin (reference)");
    nx  = *Zh.nx;
    err = R->galerkin(&Ah, (const int *)bsub.h, (int)nsub, (int)nt, (int)coff, (double *)bE2.h, NULL, NULL);
    CHECKK(err, "galerkin (reference, E alone)");
    PetscCall(Report("reference galerkin: E alone equals E with Z^T A", (PetscBool)!memcmp(bE.h, bE2.h, sizeof(double) * nsub * nt), &nfail));
    if (direct) { /* S(j, c) = sum_{sub[o] = j} a_oc, dense, with the sums of magnitudes and the pattern */
      double   *S, *Sa, *Ed, *Ea;
      char     *mark;
      PetscBool okE = PETSC_TRUE, okz = PETSC_TRUE, okl = PETSC_TRUE;
      PetscInt  q   = 0;

      PetscCall(PetscCalloc5(nsub * m, &S, nsub * m, &Sa, nsub * m, &mark, nsub * nsub, &Ed, nsub * nsub, &Ea));
      for (PetscInt o = 0; o < m; o++)
        for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
          S[sub[o] * m + aj[e]] += a[e];
          Sa[sub[o] * m + aj[e]] += PetscAbsReal(a[e]);
          mark[sub[o] * m + aj[e]] = 1;
        }
      for (PetscInt j = 0; j < nsub; j++)
        for (PetscInt c = 0; c < m; c++) {
          Ed[j * nsub + sub[c]] += S[j * m + c];
          Ea[j * nsub + sub[c]] += Sa[j * m + c];
        }
      for (PetscInt j = 0; j < nsub; j++)
        for (PetscInt k = 0; k < nt; k++) {
          const double v = ((double *)bE.h)[j * nt + k];
          if (k < coff || k >= coff + nsub) okE = (PetscBool)(okE && v == 0.0);
          else okE = (PetscBool)(okE && PetscAbsReal(v - Ed[j * nsub + k - coff]) <= 1e-13 * Ea[j * nsub + k - coff]);
        }
      for (PetscInt c = 0; c < m; c++) okz = (PetscBool)(okz && PetscAbsReal(Zh.zw[c] - S[sub[c] * m + c]) <= 1e-13 * Sa[sub[c] * m + c]);
      for (PetscInt j = 0; j < nsub; j++) {
        okl = (PetscBool)(okl && Zh.xoff[j] == q);
        for (PetscInt c = 0; c < m; c++)
          if (mark[j * m + c] && sub[c] != j) {
            okl = (PetscBool)(okl && q < nx && Zh.xrow[q] == c && PetscAbsReal(Zh.xval[q] - S[j * m + c]) <= 1e-13 * Sa[j * m + c]);
            q++;
          }
      }
      okl = (PetscBool)(okl && Zh.xoff[nsub] == q && nx == q);
      PetscCall(Report("reference galerkin: E = Z^T A Z (other processes' columns 0) to 1e-13", okE, &nfail));
      PetscCall(Report("reference galerkin: zw[c] = S(sub[c], c) to 1e-13", okz, &nfail));
      PetscCall(Report("reference galerkin: the list is S(j, c) for j != sub[c], in (j, c) order, to 1e-13", okl, &nfail));
      PetscCall(PetscFree5(S, Sa, mark, Ed, Ea));
    }
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscBool s[6], same;
      err = MSNeuKernels_CUDA.galerkin(&Ad, (const int *)bsub.d, (int)nsub, (int)nt, (int)coff, (double *)bE.d, &Zd, NULL);
      CHECKK(err, "galerkin (CUDA)");
      PetscCall(BufSame(&bE, sizeof(double) * nsub * nt, &s[0]));
      PetscCall(BufSame(&bzw, sizeof(double) * m, &s[1]));
      PetscCall(BufSame(&bnx, sizeof(long long), &s[2]));
      PetscCall(BufSame(&bxrow, sizeof(int) * nx, &s[3]));
      PetscCall(BufSame(&bxval, sizeof(double) * nx, &s[4]));
      PetscCall(BufSame(&bxoff, sizeof(int) * (nsub + 1), &s[5]));
      PetscCall(Report("CUDA galerkin equals the reference bit for bit: E", s[0], &nfail));
      PetscCall(Report("CUDA galerkin equals the reference bit for bit: zw", s[1], &nfail));
      PetscCall(Report("CUDA galerkin equals the reference bit for bit: the list (length, columns, values, offsets)", (PetscBool)(s[2] && s[3] && s[4] && s[5]), &nfail));
      err = MSNeuKernels_CUDA.galerkin(&Ad, (const int *)bsub.d, (int)nsub, (int)nt, (int)coff, (double *)bE2.d, NULL, NULL);
      CHECKK(err, "galerkin (CUDA, E alone)");
      PetscCall(BufSame(&bE2, sizeof(double) * nsub * nt, &same));
      PetscCall(Report("CUDA galerkin: E alone equals the reference's", same, &nfail));
      err = MSNeuKernels_CUDA.galerkin(&Ad, (const int *)bsub.d, (int)nsub, (int)nt, (int)coff, (double *)bE.d, &Zd, NULL);
      CHECKK(err, "galerkin (CUDA, again)");
      PetscCall(BufSame(&bE, sizeof(double) * nsub * nt, &s[0]));
      PetscCall(BufSame(&bxval, sizeof(double) * nx, &s[4]));
      PetscCall(Report("CUDA galerkin again: the same E and list", (PetscBool)(s[0] && s[4]), &nfail));
    }
#endif
  }

  /* restrict: Z^T (a - A b) through Z^T A (zta), Z^T (a - b), Z^T a; against Z^T (a - A b) with a product */
  PetscCall(PetscMalloc2(nsub + 1, &hoff, nsub + 1, &hxoff));
  memcpy(hoff, boff.h, sizeof(int) * (nsub + 1));
  memcpy(hxoff, bxoff.h, sizeof(int) * (nsub + 1));
  for (PetscInt j = 0; j < nsub; j++) maxitems = PetscMax(maxitems, (PetscInt)(hoff[j + 1] - hoff[j] + hxoff[j + 1] - hxoff[j]));
  PetscCall(BufCreate(sizeof(double) * nsub, &bout));
  PetscCall(BufCreate(sizeof(double) * nsub * MS_NEU_NCHUNKS(maxitems), &bwork));
  Dh.m        = (int)m;
  Dh.nsub     = (int)nsub;
  Dh.maxitems = (int)maxitems;
  Dh.order    = skind == 0 ? NULL : (const int *)border.h;
  Dh.off      = (const int *)boff.h;
  Dh.w        = (const double *)bzw.h;
  Dh.xoff     = (const int *)bxoff.h;
  Dh.xrow     = (const int *)bxrow.h;
  Dh.xval     = (const double *)bxval.h;
  Dh.work     = NULL;
  Dd          = Dh;
  Dd.order    = skind == 0 ? NULL : (const int *)border.d;
  Dd.off      = (const int *)boff.d;
  Dd.w        = (const double *)bzw.d;
  Dd.xoff     = (const int *)bxoff.d;
  Dd.xrow     = (const int *)bxrow.d;
  Dd.xval     = (const double *)bxval.d;
  Dd.work     = (double *)bwork.d;
  (void)Zd; /* (without CUDA) */
  (void)Dd;
  for (PetscInt mode = 0; mode < 3; mode++) { /* 0: zta, 1: a - b, 2: a */
    const char *names[] = {"Z^T (a - A b) through Z^T A", "Z^T (a - b)", "Z^T a"};
    double     *ref, *mag;
    PetscReal   worst = 0;
    char        line[256];
    int         err = R->restrict_(&Dh, (const double *)ba.h, mode == 2 ? NULL : (const double *)bb.h, mode == 0, (double *)bout.h, NULL);

    CHECKK(err, "restrict (reference)");
    PetscCall(PetscCalloc2(nsub, &ref, nsub, &mag));
    for (PetscInt o = 0; o < m; o++) {
      double v = ((double *)ba.h)[o], s = PetscAbsReal(v);
      if (mode == 0) {
        for (PetscInt e = ai[o]; e < ai[o + 1]; e++) {
          v -= a[e] * bvec[aj[e]];
          s += PetscAbsReal(a[e] * bvec[aj[e]]);
        }
      } else if (mode == 1) {
        v -= bvec[o];
        s += PetscAbsReal(bvec[o]);
      }
      ref[sub[o]] += v;
      mag[sub[o]] += s;
    }
    for (PetscInt j = 0; j < nsub; j++) worst = PetscMax(worst, PetscAbsReal(((double *)bout.h)[j] - ref[j]) / PetscMax(mag[j], 1e-300));
    PetscCall(PetscSNPrintf(line, sizeof(line), "reference restrict: %s to 1e-12", names[mode]));
    PetscCall(Report(line, (PetscBool)(worst <= 1e-12), &nfail));
    PetscCall(PetscFree2(ref, mag));
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscReal rel;
      err = MSNeuKernels_CUDA.restrict_(&Dd, (const double *)ba.d, mode == 2 ? NULL : (const double *)bb.d, mode == 0, (double *)bout.d, NULL);
      CHECKK(err, "restrict (CUDA)");
      PetscCall(BufRelDiff(&bout, nsub, &rel));
      PetscCall(PetscSNPrintf(line, sizeof(line), "CUDA restrict: %s equals the reference's to 1e-12", names[mode]));
      PetscCall(Report(line, (PetscBool)(rel <= 1e-12), &nfail));
    }
#endif
  }

  /* coarse (this process's nsub rows of a dense nt x nt matrix) and prolong */
  {
    double *Ein, *g;
    int     err;

    PetscCall(PetscMalloc2(nsub * nt, &Ein, nt, &g));
    for (PetscInt i = 0; i < nsub * nt; i++) Ein[i] = MSTestHashUniform(5 * (unsigned long long)i + 3) - 0.5;
    for (PetscInt j = 0; j < nt; j++) g[j] = MSTestHashUniform(5 * (unsigned long long)j + 4) - 0.5;
    PetscCall(BufInput(sizeof(double) * nsub * nt, Ein, &bEinv));
    PetscCall(BufInput(sizeof(double) * nt, g, &bg));
    PetscCall(BufCreate(sizeof(double) * nsub, &bc));
    PetscCall(BufCreate(sizeof(double) * m, &bz));
    err = R->coarse((int)nsub, (int)nt, (const double *)bEinv.h, (const double *)bg.h, (double *)bc.h, NULL);
    CHECKK(err, "coarse (reference)");
    err = R->prolong((int)m, (const int *)bsub.h, (const double *)bc.h, (const double *)bb.h, (double *)bz.h, NULL);
    CHECKK(err, "prolong (reference)");
    {
      PetscBool ok = PETSC_TRUE;
      for (PetscInt i = 0; i < nsub; i++) {
        double s = 0, sa = 0;
        for (PetscInt j = 0; j < nt; j++) {
          s += Ein[i * nt + j] * g[j];
          sa += PetscAbsReal(Ein[i * nt + j] * g[j]);
        }
        ok = (PetscBool)(ok && PetscAbsReal(((double *)bc.h)[i] - s) <= 1e-13 * sa);
      }
      for (PetscInt o = 0; o < m; o++) ok = (PetscBool)(ok && ((double *)bz.h)[o] == bvec[o] + ((double *)bc.h)[sub[o]]);
      PetscCall(Report("reference coarse and prolong", ok, &nfail));
    }
#if defined(PETSC_HAVE_CUDA)
    if (use_cuda) {
      PetscReal r1, r2;
      err = MSNeuKernels_CUDA.coarse((int)nsub, (int)nt, (const double *)bEinv.d, (const double *)bg.d, (double *)bc.d, NULL);
      CHECKK(err, "coarse (CUDA)");
      PetscCall(BufRelDiff(&bc, nsub, &r1));
      /* prolong from the reference's c, so that the two see the same input */
      PetscCallCUDA(cudaMemcpy(bc.d, bc.h, sizeof(double) * nsub, cudaMemcpyHostToDevice));
      err = MSNeuKernels_CUDA.prolong((int)m, (const int *)bsub.d, (const double *)bc.d, (const double *)bb.d, (double *)bz.d, NULL);
      CHECKK(err, "prolong (CUDA)");
      PetscCall(BufRelDiff(&bz, m, &r2));
      PetscCall(Report("CUDA coarse (1e-12) and prolong equal the reference's", (PetscBool)(r1 <= 1e-12 && r2 == 0.0), &nfail));
    }
#endif
    PetscCall(PetscFree2(Ein, g));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "failures: %" PetscInt_FMT "\n", nfail));

  {
    Buf *all[] = {&bai, &baj, &baa, &bperm, &bsub, &border, &boff, &bncut, &bE, &bE2, &bzw, &bxrow, &bxval, &bxoff, &bnx, &ba, &bb, &bout, &bwork, &bc, &bz, &bg, &bEinv};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PetscCall(BufDestroy(all[i]));
  }
  PetscCall(PetscFree2(hoff, hxoff));
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree(sub));
  PetscCall(PetscFree4(ai, aj, a, bvec));
  PetscCall(MSTestCSRDestroy(&T));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   build:
     requires: !complex !single

   # CPU: the reference against a direct computation. Nonsymmetric matrices (random, edge: empty rows, a dense row,
   # rows without diagonal), subdomains of consecutive rows, of a permutation, scattered (with empty subdomains when
   # there are more subdomains than rows), one subdomain (m < block size: nsub 1)
   test:
     suffix: lap
     args: -kind lap2d -nx 12 -ny 11 -nsub {{1 7}separate output} -sub_kind {{contiguous permuted scattered}separate output}
   test:
     suffix: lap3d
     args: -kind lap3d -nx 9 -ny 8 -nz 7 -nsub 27 -sub_kind {{contiguous permuted}separate output} -coff 0
   test:
     suffix: random
     args: -kind random -n 1000 -nzr 5 -nsub 40 -sub_kind {{contiguous scattered}separate output}
   test:
     suffix: edge
     args: -kind edge -n 3000 -dense_row 2100 -nsub 30 -sub_kind {{permuted scattered}separate output}
   test:
     suffix: empty
     args: -kind random -n 50 -nzr 3 -nsub 80 -sub_kind scattered

   # GPU: the CUDA kernels against the reference (the setup bit for bit), the same cases, and one large enough for the
   # 64-bit sort keys (2.3 M rows, 2000 subdomains: 22 + 11 bits; no direct check there)
   testset:
     requires: cuda !complex !single
     args: -cuda
     test:
       suffix: cuda_lap
       args: -kind lap2d -nx 12 -ny 11 -nsub {{1 7}separate output} -sub_kind {{contiguous permuted scattered}separate output}
     test:
       suffix: cuda_lap3d
       args: -kind lap3d -nx 9 -ny 8 -nz 7 -nsub 27 -sub_kind {{contiguous permuted}separate output} -coff 0
     test:
       suffix: cuda_random
       args: -kind random -n 1000 -nzr 5 -nsub 40 -sub_kind {{contiguous scattered}separate output}
     test:
       suffix: cuda_edge
       args: -kind edge -n 3000 -dense_row 2100 -nsub 30 -sub_kind {{permuted scattered}separate output}
     test:
       suffix: cuda_empty
       args: -kind random -n 50 -nzr 3 -nsub 80 -sub_kind scattered
     test:
       suffix: cuda_large
       args: -kind lap2d -nx 2100 -ny 1100 -nsub 2000 -sub_kind {{contiguous permuted}separate output} -direct 0
       timeoutfactor: 4

TEST*/
