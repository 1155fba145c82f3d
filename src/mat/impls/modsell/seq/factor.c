/*
   Factorizations of a MATSEQAIJMODSELL matrix (LU, Cholesky, ILU, ICC: PCLU, PCILU, PCICC, PCBJACOBI's sub-solves).

   - MATSOLVERPETSC (the default): SeqAIJ's factor. Its symbolic phase copies the
     matrix's composed functions onto the factor, a MATSEQAIJ (MatDuplicateNoCreate_SeqAIJ()): they are taken off again.
   - MATSOLVERCUSPARSE (PETSc with CUDA, -pc_factor_mat_solver_type cusparse; CUDA vectors): aijcusparse's factor of the matrix's
     cuSPARSE view (seq/cusparseview.c); the symbolic and numeric phases are given the view instead of the matrix,
     since aijcusparse's factorizations read the device CSR of their argument.

   The inner phases are composed on the factor; "MatModSELLFactorOnView_C" marks a factor of the view.
*/
#include <petscmodsell/private/modsellimpl.h>

/* The functions this file and seq/cusparseview.c compose on matrices of other types (factors, product results), and
   their removal before the matrix's own destroy (as every PETSc type removes its composed functions) */
static const char *const MSInnerNames[] = {"MatModSELLLUSymbolic_C", "MatModSELLILUSymbolic_C", "MatModSELLCholeskySymbolic_C", "MatModSELLICCSymbolic_C", "MatModSELLLUNumeric_C", "MatModSELLCholeskyNumeric_C", "MatModSELLFactorOnView_C", "MatModSELLDestroy_C"};

static PetscErrorCode MSWrappedDestroy(Mat X)
{
  PetscErrorCode (*inner)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, "MatModSELLDestroy_C", &inner));
  for (size_t i = 0; i < sizeof(MSInnerNames) / sizeof(MSInnerNames[0]); i++) PetscCall(PetscObjectComposeFunction((PetscObject)X, MSInnerNames[i], (PetscErrorCodeFn *)NULL));
  X->ops->destroy = inner; /* NULL for a product result without a type yet (MatSetType() is destroying it) */
  if (inner) PetscCall((*inner)(X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compose fn on X under name, and make X's destroy remove it (X's current destroy is kept and called) */
PetscErrorCode MatSeqAIJModSELLComposeInner_Private(Mat X, const char name[], PetscErrorCodeFn *fn)
{
  PetscFunctionBegin;
  if (X->ops->destroy != MSWrappedDestroy) {
    PetscCall(PetscObjectComposeFunction((PetscObject)X, "MatModSELLDestroy_C", X->ops->destroy));
    X->ops->destroy = MSWrappedDestroy;
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)X, name, fn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the matrix a phase of F works on */
static PetscErrorCode MSFactorArgument(Mat F, Mat A, Mat *S)
{
  PetscErrorCode (*onview)(void) = NULL;
  PetscBool isms;

  PetscFunctionBegin;
  *S = A;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLFactorOnView_C", &onview));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJMODSELL, &isms));
#if defined(PETSC_HAVE_CUDA)
  if (onview && isms) PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, S));
#else
  PetscCheck(!onview, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A factor of a cuSPARSE view without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSLUNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCode (*inner)(Mat, Mat, const MatFactorInfo *) = NULL;
  Mat S;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLLUNumeric_C", &inner));
  PetscCheck(inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its numeric phase");
  PetscCall(MSFactorArgument(F, A, &S));
  PetscCall((*inner)(F, S, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSCholeskyNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCode (*inner)(Mat, Mat, const MatFactorInfo *) = NULL;
  Mat S;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLCholeskyNumeric_C", &inner));
  PetscCheck(inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its numeric phase");
  PetscCall(MSFactorArgument(F, A, &S));
  PetscCall((*inner)(F, S, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after an inner symbolic phase: take the matrix's composed functions off the factor; on a factor of the view, wrap
   the numeric phases the symbolic one set */
static PetscErrorCode MSFactorAfterSymbolic(Mat F)
{
  PetscErrorCode (*onview)(void) = NULL;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLUncompose_Private(F));
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLFactorOnView_C", &onview));
  if (!onview) PetscFunctionReturn(PETSC_SUCCESS);
  if (F->ops->lufactornumeric && F->ops->lufactornumeric != MSLUNumeric) {
    PetscCall(MatSeqAIJModSELLComposeInner_Private(F, "MatModSELLLUNumeric_C", (PetscErrorCodeFn *)F->ops->lufactornumeric));
    F->ops->lufactornumeric = MSLUNumeric;
  }
  if (F->ops->choleskyfactornumeric && F->ops->choleskyfactornumeric != MSCholeskyNumeric) {
    PetscCall(MatSeqAIJModSELLComposeInner_Private(F, "MatModSELLCholeskyNumeric_C", (PetscErrorCodeFn *)F->ops->choleskyfactornumeric));
    F->ops->choleskyfactornumeric = MSCholeskyNumeric;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSLUSymbolic(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  PetscErrorCode (*inner)(Mat, Mat, IS, IS, const MatFactorInfo *) = NULL;
  Mat S;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLLUSymbolic_C", &inner));
  PetscCheck(inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its symbolic phase");
  PetscCall(MSFactorArgument(F, A, &S));
  PetscCall((*inner)(F, S, r, c, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSILUSymbolic(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  PetscErrorCode (*inner)(Mat, Mat, IS, IS, const MatFactorInfo *) = NULL;
  Mat S;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLILUSymbolic_C", &inner));
  PetscCheck(inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its symbolic phase");
  PetscCall(MSFactorArgument(F, A, &S));
  PetscCall((*inner)(F, S, r, c, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSCholeskySymbolic(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  PetscErrorCode (*inner)(Mat, Mat, IS, const MatFactorInfo *) = NULL;
  Mat S;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLCholeskySymbolic_C", &inner));
  PetscCheck(inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its symbolic phase");
  PetscCall(MSFactorArgument(F, A, &S));
  PetscCall((*inner)(F, S, p, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSICCSymbolic(Mat F, Mat A, IS p, const MatFactorInfo *info)
{
  PetscErrorCode (*inner)(Mat, Mat, IS, const MatFactorInfo *) = NULL;
  Mat S;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatModSELLICCSymbolic_C", &inner));
  PetscCheck(inner, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJMODSELL factor without its symbolic phase");
  PetscCall(MSFactorArgument(F, A, &S));
  PetscCall((*inner)(F, S, p, info));
  PetscCall(MSFactorAfterSymbolic(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* wrap the symbolic phases of a new factor */
static PetscErrorCode MSFactorWrap(Mat F)
{
  PetscFunctionBegin;
  if (F->ops->lufactorsymbolic) {
    PetscCall(MatSeqAIJModSELLComposeInner_Private(F, "MatModSELLLUSymbolic_C", (PetscErrorCodeFn *)F->ops->lufactorsymbolic));
    F->ops->lufactorsymbolic = MSLUSymbolic;
  }
  if (F->ops->ilufactorsymbolic) {
    PetscCall(MatSeqAIJModSELLComposeInner_Private(F, "MatModSELLILUSymbolic_C", (PetscErrorCodeFn *)F->ops->ilufactorsymbolic));
    F->ops->ilufactorsymbolic = MSILUSymbolic;
  }
  if (F->ops->choleskyfactorsymbolic) {
    PetscCall(MatSeqAIJModSELLComposeInner_Private(F, "MatModSELLCholeskySymbolic_C", (PetscErrorCodeFn *)F->ops->choleskyfactorsymbolic));
    F->ops->choleskyfactorsymbolic = MSCholeskySymbolic;
  }
  if (F->ops->iccfactorsymbolic) {
    PetscCall(MatSeqAIJModSELLComposeInner_Private(F, "MatModSELLICCSymbolic_C", (PetscErrorCodeFn *)F->ops->iccfactorsymbolic));
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
static void MSFactorOnView(void) { }

/* MatGetFactor(A, MATSOLVERCUSPARSE, ...): aijcusparse's factor of the view */
PetscErrorCode MatGetFactor_SeqAIJModSELL_CUSPARSE(Mat A, MatFactorType ftype, Mat *F)
{
  Mat S;

  PetscFunctionBegin;
  *F = NULL;
  PetscCall(MatSeqAIJModSELLGetCUSPARSE_Private(A, &S));
  PetscCall(MatGetFactor(S, MATSOLVERCUSPARSE, ftype, F));
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJModSELLComposeInner_Private(*F, "MatModSELLFactorOnView_C", (PetscErrorCodeFn *)MSFactorOnView));
  PetscCall(MSFactorWrap(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
