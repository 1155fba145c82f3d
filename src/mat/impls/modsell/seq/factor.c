/*
   Factorizations of a MATSEQAIJMODSELL matrix (LU, Cholesky, ILU, ICC: PCLU, PCILU, PCICC, PCBJACOBI's sub-solves).

   - MATSOLVERPETSC (the default): SeqAIJ's factor. Its symbolic phase copies the
     matrix's composed functions onto the factor, a MATSEQAIJ (MatDuplicateNoCreate_SeqAIJ()): they are taken off again.
   - MATSOLVERCUSPARSE (PETSc with CUDA, -pc_factor_mat_solver_type cusparse; CUDA vectors): aijcusparse's factor of the matrix's
     cuSPARSE view (seq/cusparseview.c); the symbolic and numeric phases are given the view instead of the matrix,
     since aijcusparse's factorizations read the device CSR of their argument. Such a factor is a MATSEQAIJCUSPARSE.

   The inner phases are composed on the factor.
*/
#include <petscmodsell/private/modsellimpl.h>

/* The functions this file composes on a factor (a matrix of another type), and their removal before the factor's own
   destroy (as every PETSc type removes its composed functions) */
static const char *const MSInnerNames[] = {"MatModSELLLUSymbolic_C", "MatModSELLILUSymbolic_C", "MatModSELLCholeskySymbolic_C", "MatModSELLICCSymbolic_C", "MatModSELLLUNumeric_C", "MatModSELLCholeskyNumeric_C", "MatModSELLDestroy_C"};

static PetscErrorCode MSWrappedDestroy(Mat X)
{
  PetscErrorCode (*inner)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, "MatModSELLDestroy_C", &inner));
  for (size_t i = 0; i < sizeof(MSInnerNames) / sizeof(MSInnerNames[0]); i++) PetscCall(PetscObjectComposeFunction((PetscObject)X, MSInnerNames[i], (PetscErrorCodeFn *)NULL));
  X->ops->destroy = inner;
  if (inner) PetscCall((*inner)(X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compose fn on X under name, and make X's destroy remove it (X's current destroy is kept and called) */
static PetscErrorCode MSComposeInner(Mat X, const char name[], PetscErrorCodeFn *fn)
{
  PetscFunctionBegin;
  if (X->ops->destroy != MSWrappedDestroy) {
    PetscCall(PetscObjectComposeFunction((PetscObject)X, "MatModSELLDestroy_C", X->ops->destroy));
    X->ops->destroy = MSWrappedDestroy;
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)X, name, fn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A factor of the cuSPARSE view (aijcusparse's factors are MATSEQAIJCUSPARSE, SeqAIJ's MATSEQAIJ) */
static PetscErrorCode MSFactorOnView(Mat F, PetscBool *onview)
{
  PetscFunctionBegin;
  *onview = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQAIJCUSPARSE, onview));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What every wrapped phase of F starts with: the inner phase composed under name, and the matrix it works on (the
   view of a MATSEQAIJMODSELL A for a factor of the view, else A) */
static PetscErrorCode MSFactorPhase(Mat F, Mat A, const char name[], PetscErrorCodeFn **inner, Mat *S)
{
  PetscBool onview, isms;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, name, inner));
  PetscCheck(*inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its phase %s", name);
  *S = A;
  PetscCall(MSFactorOnView(F, &onview));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
#if defined(PETSC_HAVE_CUDA)
  if (onview && isms) PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, S));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSLUNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCodeFn *inner;
  Mat               S;

  PetscFunctionBegin;
  PetscCall(MSFactorPhase(F, A, "MatModSELLLUNumeric_C", &inner, &S));
  PetscCall(((PetscErrorCode (*)(Mat, Mat, const MatFactorInfo *))inner)(F, S, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSCholeskyNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCodeFn *inner;
  Mat               S;

  PetscFunctionBegin;
  PetscCall(MSFactorPhase(F, A, "MatModSELLCholeskyNumeric_C", &inner, &S));
  PetscCall(((PetscErrorCode (*)(Mat, Mat, const MatFactorInfo *))inner)(F, S, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after an inner symbolic phase: take the matrix's composed functions off the factor; on a factor of the view, wrap
   the numeric phases the symbolic one set */
static PetscErrorCode MSFactorAfterSymbolic(Mat F)
{
  PetscBool onview;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLUncompose_Private(F));
  PetscCall(MSFactorOnView(F, &onview));
  if (!onview) PetscFunctionReturn(PETSC_SUCCESS);
  if (F->ops->lufactornumeric && F->ops->lufactornumeric != MSLUNumeric) {
    PetscCall(MSComposeInner(F, "MatModSELLLUNumeric_C", (PetscErrorCodeFn *)F->ops->lufactornumeric));
    F->ops->lufactornumeric = MSLUNumeric;
  }
  if (F->ops->choleskyfactornumeric && F->ops->choleskyfactornumeric != MSCholeskyNumeric) {
    PetscCall(MSComposeInner(F, "MatModSELLCholeskyNumeric_C", (PetscErrorCodeFn *)F->ops->choleskyfactornumeric));
    F->ops->choleskyfactornumeric = MSCholeskyNumeric;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* LU and ILU symbolic phases have one signature, Cholesky and ICC another */
typedef PetscErrorCode (*MSLUSymbolicFn)(Mat, Mat, IS, IS, const MatFactorInfo *);
typedef PetscErrorCode (*MSCholeskySymbolicFn)(Mat, Mat, IS, const MatFactorInfo *);

static PetscErrorCode MSLUSymbolic(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  PetscErrorCodeFn *inner;
  Mat               S;

  PetscFunctionBegin;
  PetscCall(MSFactorPhase(F, A, "MatModSELLLUSymbolic_C", &inner, &S));
  PetscCall(((MSLUSymbolicFn)inner)(F, S, r, c, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSILUSymbolic(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  PetscErrorCodeFn *inner;
  Mat               S;

  PetscFunctionBegin;
  PetscCall(MSFactorPhase(F, A, "MatModSELLILUSymbolic_C", &inner, &S));
  PetscCall(((MSLUSymbolicFn)inner)(F, S, r, c, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSCholeskySymbolic(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  PetscErrorCodeFn *inner;
  Mat               S;

  PetscFunctionBegin;
  PetscCall(MSFactorPhase(F, A, "MatModSELLCholeskySymbolic_C", &inner, &S));
  PetscCall(((MSCholeskySymbolicFn)inner)(F, S, p, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSICCSymbolic(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  PetscErrorCodeFn *inner;
  Mat               S;

  PetscFunctionBegin;
  PetscCall(MSFactorPhase(F, A, "MatModSELLICCSymbolic_C", &inner, &S));
  PetscCall(((MSCholeskySymbolicFn)inner)(F, S, p, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* wrap the symbolic phases of a new factor */
static PetscErrorCode MSFactorWrap(Mat F)
{
  PetscFunctionBegin;
  if (F->ops->lufactorsymbolic) {
    PetscCall(MSComposeInner(F, "MatModSELLLUSymbolic_C", (PetscErrorCodeFn *)F->ops->lufactorsymbolic));
    F->ops->lufactorsymbolic = MSLUSymbolic;
  }
  if (F->ops->ilufactorsymbolic) {
    PetscCall(MSComposeInner(F, "MatModSELLILUSymbolic_C", (PetscErrorCodeFn *)F->ops->ilufactorsymbolic));
    F->ops->ilufactorsymbolic = MSILUSymbolic;
  }
  if (F->ops->choleskyfactorsymbolic) {
    PetscCall(MSComposeInner(F, "MatModSELLCholeskySymbolic_C", (PetscErrorCodeFn *)F->ops->choleskyfactorsymbolic));
    F->ops->choleskyfactorsymbolic = MSCholeskySymbolic;
  }
  if (F->ops->iccfactorsymbolic) {
    PetscCall(MSComposeInner(F, "MatModSELLICCSymbolic_C", (PetscErrorCodeFn *)F->ops->iccfactorsymbolic));
    F->ops->iccfactorsymbolic = MSICCSymbolic;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetFactor(A, MATSOLVERPETSC, ...): SeqAIJ's factor */
PetscErrorCode MatGetFactor_SeqAIJModSELL_PETSc(Mat A, MatFactorType ftype, Mat *F)
{
  MatSolverFn *fn = NULL;

  PetscFunctionBegin;
  *F = NULL;
  PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQAIJ, ftype, NULL, NULL, &fn));
  if (!fn) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall((*fn)(A, ftype, F));
  if (*F) PetscCall(MSFactorWrap(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* MatGetFactor(A, MATSOLVERCUSPARSE, ...): aijcusparse's factor of the view */
PetscErrorCode MatGetFactor_SeqAIJModSELL_CUSPARSE(Mat A, MatFactorType ftype, Mat *F)
{
  Mat S;

  PetscFunctionBegin;
  *F = NULL;
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &S));
  PetscCall(MatGetFactor(S, MATSOLVERCUSPARSE, ftype, F));
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MSFactorWrap(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
