/*
   Host reference of the device-resident Krylov kernels (include/petscmodsell/private/krylovkernels.h): the same
   function as krylov.cu with host arrays. Sums are added in index order (the CUDA kernels add them by blocks: the two
   agree to rounding); the scalar code (MSKrylovFinish()) is the same source on both.
*/
#include <petscmodsell/private/krylovkernels.h>
#include <stdlib.h>

/* the end of a reduction: the sums into sc->sum[slot...], then the step's finish */
static void KrStore(const MSKrylovReduce *red, int ns, const double *sums)
{
  for (int j = 0; j < ns; j++) red->sc->sum[red->slot + j] = sums[j];
  if (red->finish) MSKrylovFinish(red->finish, red->sc, red->hist);
}

MS_KRYLOV_DOT(MSKrylovDot_Reference)
{
  double s[MS_KRYLOV_MAXDOTS] = {0.0};

  (void)stream;
  if (d->ndot < 1 || d->ndot > MS_KRYLOV_MAXDOTS) return MS_KERNEL_ERR_ARG;
  if (red->sc->done) return 0;
  for (int j = 0; j < d->ndot; j++)
    for (int i = 0; i < n; i++) s[j] += d->x[j][i] * d->y[j][i];
  KrStore(red, d->ndot, s);
  return 0;
}

MS_KRYLOV_FINISH(MSKrylovFinish_Reference)
{
  (void)stream;
  MSKrylovFinish(red->finish, red->sc, red->hist);
  return 0;
}

MS_KRYLOV_FINISH_SUMS(MSKrylovFinishSums_Reference)
{
  (void)stream;
  if (nsums < 0 || red->slot < 0 || red->slot + nsums > MS_KRYLOV_NSUMS) return MS_KERNEL_ERR_ARG;
  KrStore(red, nsums, sums);
  return 0;
}

/* y = A x through the image's view: every row's sum in the order of the image's host product (the diagonal, then the slots,
   by `lanes` partial sums combined as a tree) */
static int KrMult(const MSImageView *A, const double *xu, double *y, double *work)
{
  const int     sh = A->sh, m = A->m, K = A->lanes > 0 ? A->lanes : 1;
  const double *x  = xu;
  double        xs[1024], sum1[1024], *sum = sum1;

  if (sh <= 0 || sh > 1024 || K > 32 || (K & (K - 1))) return MS_KERNEL_ERR_ARG;
  if (K > 1 && !(sum = (double *)malloc(sizeof(double) * (size_t)K * (size_t)sh))) return MS_KERNEL_ERR_MEM;
  if (A->perm) { /* x in the image numbering */
    if (!work) {
      if (sum != sum1) free(sum);
      return MS_KERNEL_ERR_ARG;
    }
    for (int r = 0; r < m; r++) work[r] = xu[A->perm[r]];
    x = work;
  }
  for (int s = 0; s < A->nslices; s++) {
    const int       first = s * sh, nr = sh < m - first ? sh : m - first;
    const long long beg   = A->sliceptr[s];
    const int       w     = (int)((A->sliceptr[s + 1] - beg) / sh);

    for (int j = 1; j < K; j++)
      for (int t = 0; t < nr; t++) sum[j * sh + t] = 0.0;
    for (int t = 0; t < nr; t++) {
      const double xr = (A->diag || A->local_cols) ? x[first + t] : 0.0;
      if (A->local_cols) xs[t] = xr;
      sum[t] = A->diag ? A->diag[first + t] * xr : 0.0;
    }
    for (int k = 0; k < w; k++) {
      const int    *cp = A->cols + beg + (long long)k * sh;
      const double *vp = A->vals + beg + (long long)k * sh;
      double       *sj = sum + (k % K) * sh;
      for (int t = 0; t < nr; t++) {
        const int c  = cp[t];
        double    xv = 0.0;
        if (c < 0) xv = xs[-c - 1];
        else if (c > 0) xv = x[c - 1];
        sj[t] += vp[t] * xv;
      }
    }
    for (int off = K / 2; off > 0; off /= 2)
      for (int j = 0; j < off; j++)
        for (int t = 0; t < nr; t++) sum[j * sh + t] += sum[(j + off) * sh + t];
    for (int t = 0; t < nr; t++) y[A->perm ? A->perm[first + t] : first + t] = sum[t];
  }
  if (sum != sum1) free(sum);
  return 0;
}

MS_KRYLOV_MULT_DOT(MSKrylovMultDot_Reference)
{
  double s = 0.0;
  int    err;

  (void)pb;
  (void)stream;
  if (red->sc->done) return 0;
  if ((err = KrMult(A, x, y, work))) return err;
  for (int i = 0; i < A->m; i++) s += x[i] * y[i];
  KrStore(red, 1, &s);
  return 0;
}

MS_KRYLOV_CG_DIRECTION(MSKrylovCGDirection_Reference)
{
  const double b = sc->s[MS_CG_B];

  (void)stream;
  if (sc->done) return 0;
  for (int i = 0; i < n; i++) p[i] = z[i] + b * p[i];
  return 0;
}

MS_KRYLOV_CG_DIRECTION_MULT_DOT(MSKrylovCGDirectionMultDot_Reference)
{
  const double b = red->sc->s[MS_CG_B];
  double       s = 0.0;
  int          err;

  (void)stream;
  if (red->sc->done) return 0;
  if (pnew == pold) return MS_KERNEL_ERR_ARG;
  for (int i = 0; i < A->m; i++) pnew[i] = z[i] + b * pold[i];
  if ((err = KrMult(A, pnew, w, NULL))) return err;
  for (int i = 0; i < A->m; i++) s += pnew[i] * w[i];
  KrStore(red, 1, &s);
  return 0;
}

/* z_i = B r_i and its terms of the sums */
static inline double KrZ(const MSKrylovCGVecs *v, int i, double r, double *nn, double *zr)
{
  double z = r;

  if (v->pc == MS_KRYLOV_PC_DIAG) {
    z       = v->d[i] * r;
    v->z[i] = z;
  } else if (v->pc == MS_KRYLOV_PC_APPLIED) z = v->z[i];
  *nn += v->norm_r ? r * r : z * z;
  *zr += z * r;
  return z;
}

MS_KRYLOV_CG_UPDATE(MSKrylovCGUpdate_Reference)
{
  const double a = sc->s[MS_CG_ALPHA], b = sc->s[MS_CG_B];
  double       sums[3] = {0.0, 0.0, 0.0};

  (void)stream;
  if (sc->done) return 0;
  if (red && v->pc == MS_KRYLOV_PC_APPLIED) return MS_KERNEL_ERR_ARG; /* z is not known yet: no sums */
  for (int i = 0; i < n; i++) {
    double p = v->p[i], w = v->w[i], r;

    if (v->s) { /* the single reduction's recurrences, with z of the previous step */
      const double z = v->pc == MS_KRYLOV_PC_NONE ? v->r[i] : v->z[i];
      p              = z + b * p;
      w              = v->s[i] + b * w;
      v->p[i]        = p;
      v->w[i]        = w;
    }
    v->x[i] = v->x[i] + a * p;
    r       = v->r[i] - a * w;
    v->r[i] = r;
    if (red) {
      const double z = KrZ(v, i, r, &sums[0], &sums[1]);
      if (v->s) sums[2] += z * w;
    }
  }
  if (red) KrStore(red, v->s ? 3 : 2, sums);
  return 0;
}

MS_KRYLOV_CG_RESIDUAL(MSKrylovCGResidual_Reference)
{
  double sums[2] = {0.0, 0.0};

  (void)stream;
  if (red->sc->done) return 0;
  for (int i = 0; i < n; i++) KrZ(v, i, v->r[i], &sums[0], &sums[1]);
  KrStore(red, 2, sums);
  return 0;
}

/* the single reduction's step (see the CUDA kernel for the order of its operations: here the sums are added in index
   order, zn is formed once for every row into a work array before the product) */
MS_KRYLOV_CG_SR_MULT(MSKrylovCGSRMult_Reference)
{
  const int    n = A->m, diag = v->pc == MS_KRYLOV_PC_DIAG;
  const double a = red->sc->s[MS_CG_ALPHA], b = red->sc->s[MS_CG_B];
  double       sums[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, *zn;
  int          err;

  (void)stream;
  if (v->pc != MS_KRYLOV_PC_NONE && !diag) return MS_KERNEL_ERR_ARG;
  if (A->perm || v->rn == v->r || v->wn == v->w || v->sn == v->s) return MS_KERNEL_ERR_ARG;
  if (red->sc->done) return 0;
  if (!(zn = (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double)))) return MS_KERNEL_ERR_MEM;
  for (int i = 0; i < n; i++) {
    const double zo = diag ? v->d[i] * v->r[i] : v->r[i];
    const double pn = zo + b * v->p[i];
    const double wn = v->s[i] + b * v->w[i];
    const double rn = v->r[i] - a * wn;
    const double z  = diag ? v->d[i] * rn : rn;

    v->x[i] = v->x[i] + a * pn;
    v->p[i]  = pn;
    v->wn[i] = wn;
    v->rn[i] = rn;
    zn[i]    = z;
    sums[0] += v->norm_r ? rn * rn : z * z;
    sums[1] += z * rn;
    sums[2] += z * wn;
  }
  if ((err = KrMult(A, zn, v->sn, NULL))) {
    free(zn);
    return err;
  }
  for (int i = 0; i < n; i++) {
    sums[3] += zn[i] * v->sn[i];
    sums[4] += v->p[i] * v->sn[i];
  }
  free(zn);
  KrStore(red, 5, sums);
  return 0;
}

MS_KRYLOV_PERMUTE(MSKrylovPermute_Reference)
{
  (void)stream;
  if (n <= 0) return 0;
  if (x == y || !perm || (dir != MS_KRYLOV_TO_IMAGE && dir != MS_KRYLOV_TO_USER)) return MS_KERNEL_ERR_ARG;
  if (dir == MS_KRYLOV_TO_IMAGE)
    for (int i = 0; i < n; i++) y[i] = x[perm[i]];
  else
    for (int i = 0; i < n; i++) y[perm[i]] = x[i];
  return 0;
}

const MSKrylovKernels MSKrylovKernels_Reference = {"reference", MSKrylovDot_Reference, MSKrylovFinish_Reference, MSKrylovFinishSums_Reference, MSKrylovMultDot_Reference, MSKrylovCGDirection_Reference, MSKrylovCGDirectionMultDot_Reference, MSKrylovCGUpdate_Reference, MSKrylovCGResidual_Reference, MSKrylovCGSRMult_Reference, MSKrylovPermute_Reference};

/* ---------------------------------------------------------------------------------------------------------- */
/* BiCGSTAB and GMRES                                                                                           */

/* the dots of a kernel whose outputs are written: plain sums in index order */
static void KrDots(int n, const MSKrylovDots *d, double *s)
{
  for (int j = 0; j < d->ndot; j++) {
    s[j] = 0.0;
    for (int i = 0; i < n; i++) s[j] += d->x[j][i] * d->y[j][i];
  }
}

MS_KRYLOV_MULT_SCALE_DOTS(MSKrylovMultScaleDots_Reference)
{
  const int     m  = A->m;
  const double *in = x;
  double        s[MS_KRYLOV_MAXDOTS];
  int           err;

  (void)pb;
  (void)stream;
  if (d->ndot < 0 || d->ndot > MS_KRYLOV_MAXDOTS) return MS_KERNEL_ERR_ARG;
  if (red->sc->done) return 0;
  if (dr) {
    if (!tmp || tmp == x || tmp == y) return MS_KERNEL_ERR_ARG;
    for (int i = 0; i < m; i++) tmp[i] = dr[i] * x[i];
    in = tmp;
  }
  if ((err = KrMult(A, in, y, work))) return err;
  if (dl)
    for (int i = 0; i < m; i++) y[i] = dl[i] * y[i];
  KrDots(m, d, s);
  KrStore(red, d->ndot, s);
  return 0;
}

MS_KRYLOV_SCALE_DOTS(MSKrylovScaleDots_Reference)
{
  double s[MS_KRYLOV_MAXDOTS];

  (void)stream;
  if (dt->ndot < 0 || dt->ndot > MS_KRYLOV_MAXDOTS) return MS_KERNEL_ERR_ARG;
  if (red->sc->done) return 0;
  if (d)
    for (int i = 0; i < n; i++) v[i] = d[i] * u[i];
  else if (v != u)
    for (int i = 0; i < n; i++) v[i] = u[i];
  KrDots(n, dt, s);
  KrStore(red, dt->ndot, s);
  return 0;
}

MS_KRYLOV_BCGS_DIRECTION(MSKrylovBCGSDirection_Reference)
{
  const double b = sc->s[MS_BCGS_BETA], c = -sc->s[MS_BCGS_OMEGAOLD] * b;

  (void)stream;
  if (sc->done) return 0;
  for (int i = 0; i < n; i++) {
    const double p = v->r[i] + c * v->v[i] + b * v->p[i];

    v->p[i] = p;
    if (v->tr) v->tr[i] = v->d[i] * p;
  }
  return 0;
}

MS_KRYLOV_BCGS_S(MSKrylovBCGSS_Reference)
{
  const double a  = -red->sc->s[MS_BCGS_ALPHA];
  double       ss = 0.0;

  (void)stream;
  if (red->sc->done) return 0;
  for (int i = 0; i < n; i++) {
    const double s = a * v->v[i] + v->r[i];

    v->s[i] = s;
    ss += s * s;
    if (v->tr) v->tr[i] = v->d[i] * s;
  }
  KrStore(red, 1, &ss);
  return 0;
}

MS_KRYLOV_BCGS_UPDATE(MSKrylovBCGSUpdate_Reference)
{
  const MSKrylovScalars *sc = red->sc;
  const double           a = sc->s[MS_BCGS_ALPHA], w = sc->s[MS_BCGS_OMEGA], bn = sc->s[MS_BCGS_BETANEXT], c = -w * bn;
  double                 sums[2] = {0.0, 0.0};

  (void)stream;
  if (sc->done) return 0;
  for (int i = 0; i < n; i++) {
    const double r = -w * v->t[i] + v->s[i];

    v->x[i] = a * v->p[i] + w * v->s[i] + v->x[i];
    v->r[i] = r;
    sums[0] += r * r;
    if (!merged) sums[1] += r * v->rp[i];
    else {
      const double p = r + c * v->v[i] + bn * v->p[i];

      v->p[i] = p;
      if (v->tr) v->tr[i] = v->d[i] * p;
    }
  }
  KrStore(red, merged ? 1 : 2, sums);
  return 0;
}

/* whether a GMRES kernel runs: not after the stop, not while the host's test is awaited, not while a restart is due */
static int KrGMRESIdle(const MSKrylovScalars *sc)
{
  return sc->done || sc->awaiting || sc->s[MS_GM_RESTART] != 0.0;
}

MS_KRYLOV_GMRES_MULT(MSKrylovGMRESMult_Reference)
{
  MSGMRESAux    a;
  int           it, err;
  const double *u;
  double       *w, sg;

  (void)pb;
  (void)stream;
  if (KrGMRESIdle(sc)) return 0;
  if (!tmp) return MS_KERNEL_ERR_ARG;
  MSGMRESGetAux(sc, &a);
  it = (int)sc->s[MS_GM_IT];
  u  = v->V + (long long)it * v->ld;
  w  = v->V + (long long)(it + 1) * v->ld;
  sg = a.sig[it];
  for (int i = 0; i < A->m; i++) {
    const double vi = sg * u[i];
    tmp[i]          = (v->d && v->right) ? v->d[i] * vi : vi;
  }
  if ((err = KrMult(A, tmp, w, work))) return err;
  if (v->d && !v->right)
    for (int i = 0; i < A->m; i++) w[i] = v->d[i] * w[i];
  return 0;
}

MS_KRYLOV_GMRES_RESIDUAL(MSKrylovGMRESResidual_Reference)
{
  const MSKrylovScalars *sc = red->sc;
  double                *r  = v->V, s = 0.0;
  int                    err;

  (void)pb;
  (void)stream;
  if (sc->done || sc->awaiting || sc->s[MS_GM_RESTART] == 0.0) return 0;
  if (!tmp) return MS_KERNEL_ERR_ARG;
  if ((err = KrMult(A, v->x, tmp, work))) return err;
  for (int i = 0; i < A->m; i++) {
    double ri = -tmp[i] + v->b[i];

    if (v->d && !v->right) ri = v->d[i] * ri;
    r[i] = ri;
    s += ri * ri;
  }
  KrStore(red, 1, &s);
  return 0;
}

MS_KRYLOV_GMRES_RESIDUAL_VEC(MSKrylovGMRESResidualVec_Reference)
{
  const MSKrylovScalars *sc = red->sc;
  double                *r  = v->V, s = 0.0;

  (void)stream;
  if (!start && (sc->done || sc->awaiting || sc->s[MS_GM_RESTART] == 0.0)) return 0;
  for (int i = 0; i < n; i++) {
    double ri = t ? -t[i] + b[i] : b[i];

    if (v->d && !v->right) ri = v->d[i] * ri;
    r[i] = ri;
    s += ri * ri;
  }
  KrStore(red, 1, &s);
  return 0;
}

/* the scale of the column it + 1 in a Gram-Schmidt pass */
static double KrGMRESWScale(const MSKrylovGMRESVecs *v, const MSGMRESAux *a, int it, int pass)
{
  return (pass || v->wscaled) ? 1.0 : a->sig[it];
}

MS_KRYLOV_GMRES_MDOT(MSKrylovGMRESMDot_Reference)
{
  MSKrylovScalars *sc = red->sc;
  MSGMRESAux       a;
  int              it;
  const double    *w;
  double           sw;

  (void)stream;
  if (KrGMRESIdle(sc) || (pass && sc->s[MS_GM_REFINE] == 0.0)) return 0;
  MSGMRESGetAux(sc, &a);
  it = (int)sc->s[MS_GM_IT];
  if (it < 0 || it >= a.m) return MS_KERNEL_ERR_ARG;
  w  = v->V + (long long)(it + 1) * v->ld;
  sw = KrGMRESWScale(v, &a, it, pass);
  for (int j = 0; j <= a.m; j++) a.lhh[j] = 0.0;
  for (int j = 0; j <= it; j++) {
    const double *u = v->V + (long long)j * v->ld, sj = a.sig[j];
    double        s = 0.0;

    for (int i = 0; i < n; i++) s += (sj * u[i]) * (sw * w[i]);
    a.lhh[j] = s;
  }
  if (red->finish) MSKrylovFinish(red->finish, sc, red->hist);
  return 0;
}

MS_KRYLOV_GMRES_MAXPY(MSKrylovGMRESMAXPY_Reference)
{
  MSKrylovScalars *sc = red->sc;
  MSGMRESAux       a;
  int              it;
  double          *w, sw, s = 0.0;

  (void)stream;
  if (KrGMRESIdle(sc) || (pass && sc->s[MS_GM_REFINE] == 0.0)) return 0;
  MSGMRESGetAux(sc, &a);
  it = (int)sc->s[MS_GM_IT];
  if (it < 0 || it >= a.m) return MS_KERNEL_ERR_ARG;
  w  = v->V + (long long)(it + 1) * v->ld;
  sw = KrGMRESWScale(v, &a, it, pass);
  for (int i = 0; i < n; i++) {
    double acc = sw * w[i];

    for (int j = 0; j <= it; j++) acc += -a.lhh[j] * (a.sig[j] * v->V[(long long)j * v->ld + i]);
    w[i] = acc;
    s += acc * acc;
  }
  KrStore(red, 1, &s);
  return 0;
}

MS_KRYLOV_GMRES_UPDATE(MSKrylovGMRESUpdate_Reference)
{
  MSGMRESAux a;
  int        ns;

  (void)stream;
  if (sc->s[MS_GM_UPDATE] == 0.0 || (!force && (sc->done || sc->awaiting))) return 0;
  MSGMRESGetAux(sc, &a);
  ns = (int)sc->s[MS_GM_NSOL];
  if (ns < 0 || ns > a.m || mode < 0 || mode > 2) return MS_KERNEL_ERR_ARG;
  for (int i = 0; i < n; i++) {
    double acc = 0.0;

    if (mode == 2) {
      v->x[i] += v->t[i];
      continue;
    }
    for (int j = 0; j < ns; j++) acc += a.nrs[j] * (a.sig[j] * v->V[(long long)j * v->ld + i]);
    if (mode == 1) v->t[i] = acc;
    else v->x[i] += (v->d && v->right) ? v->d[i] * acc : acc;
  }
  return 0;
}

MS_KRYLOV_BCGS_S_MULT(MSKrylovBCGSSMult_Reference)
{
  const MSKrylovScalars *sc = red->sc;
  const double           a  = -sc->s[MS_BCGS_ALPHA];
  const int              m  = A->m;
  double                 sums[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  int                    err;

  (void)pb;
  (void)stream;
  if (sc->done) return 0;
  if (!tmp) return MS_KERNEL_ERR_ARG;
  for (int i = 0; i < m; i++) {
    const double si = a * v->v[i] + v->r[i];

    v->s[i] = si;
    tmp[i]  = v->d ? v->d[i] * si : si;
  }
  if ((err = KrMult(A, tmp, v->t, work))) return err;
  for (int i = 0; i < m; i++) {
    const double si = v->s[i], ti = dl ? dl[i] * v->t[i] : v->t[i];

    v->t[i] = ti;
    sums[0] += si * ti;
    sums[1] += ti * ti;
    if (merged) {
      sums[2] += si * v->rp[i];
      sums[3] += ti * v->rp[i];
    }
    sums[4] += si * si;
  }
  KrStore(red, 5, sums);
  return 0;
}

const MSKrylovNSKernels MSKrylovNSKernels_Reference = {"reference", MSKrylovMultScaleDots_Reference, MSKrylovScaleDots_Reference, MSKrylovBCGSDirection_Reference, MSKrylovBCGSS_Reference, MSKrylovBCGSUpdate_Reference, MSKrylovGMRESMult_Reference, MSKrylovGMRESResidual_Reference, MSKrylovGMRESResidualVec_Reference, MSKrylovGMRESMDot_Reference, MSKrylovGMRESMAXPY_Reference, MSKrylovGMRESUpdate_Reference, MSKrylovBCGSSMult_Reference};
