#!/usr/bin/env python3
"""modsell_solve.py - the plugin from petsc4py: a MATMODSELL matrix solved with a plugin preconditioner.

petsc4py.init(sys.argv) hands the command line to PetscInitialize(), so -dll_append loads the plugin
(PETSc calls its PetscDLLibraryRegister_petscmodsell(), which registers the types) and every other
option reaches the options database, as in a C application:

    python3 examples/python/modsell_solve.py -dll_append build/lib/libpetscmodsell.so
    python3 examples/python/modsell_solve.py -dll_append build/lib/libpetscmodsell.so -pc_type ruiz -n 64
    mpiexec -n 2 python3 examples/python/modsell_solve.py -dll_append build/lib/libpetscmodsell.so -vec_type cuda

It assembles the 2D 5-point Laplacian on an n x n grid (-n, 32) as a matrix of type -mat_type
(modsell), makes b = A x* with x*_i = cos(i), solves with CG and -pc_type (bjsmooth) to
||b - A x|| <= 1e-8 ||b||, and prints what it checked: the matrix type, convergence, the true
residual and the error. modsell_solve.c is the same program in C (the two print the same lines).
petsc4py must be built for the PETSc the plugin was built with (config/python-env provisions one).
"""
import math
import sys

import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402  (after init: PETSc reads the command line)


def main():
    comm = PETSc.COMM_WORLD
    opts = PETSc.Options()
    n = opts.getInt("n", 32)
    N = n * n

    A = PETSc.Mat().create(comm=comm)
    A.setSizes([N, N])
    A.setType(opts.getString("mat_type", "modsell"))
    A.setPreallocationNNZ((5, 4))
    lo, hi = A.getOwnershipRange()
    for row in range(lo, hi):
        i, j = row % n, row // n
        A.setValue(row, row, 4.0)
        for ii, jj in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= ii < n and 0 <= jj < n:
                A.setValue(row, ii + jj * n, -1.0)
    A.assemble()

    xstar, b = A.createVecs()
    xstar.setArray([math.cos(r) for r in range(lo, hi)])
    A.mult(xstar, b)
    x = b.duplicate()

    ksp = PETSc.KSP().create(comm=comm)
    ksp.setOperators(A)
    ksp.setType("cg")
    ksp.getPC().setType("bjsmooth")
    ksp.setTolerances(rtol=1e-8, max_it=5000)
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setFromOptions()
    ksp.solve(b, x)

    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)
    relres = r.norm() / b.norm()
    x.axpy(-1.0, xstar)
    err = x.norm() / xstar.norm()
    rtol = ksp.getTolerances()[0]
    yes = {True: "yes", False: "NO"}
    PETSc.Sys.Print("matrix: %s, %d rows (5-point Laplacian, %d x %d)" % (A.getType(), N, n, n))
    PETSc.Sys.Print("KSP %s + PC %s: converged: %s" % (ksp.getType(), ksp.getPC().getType(), yes[ksp.getConvergedReason() > 0]))
    PETSc.Sys.Print("true residual ||b - A x|| / ||b|| <= 2 rtol: %s" % yes[relres <= 2 * rtol])
    PETSc.Sys.Print("error ||x - x*|| / ||x*|| < 1e-4: %s" % yes[err < 1e-4])
    for o in (A, xstar, b, x, r, ksp):
        o.destroy()


if __name__ == "__main__":
    main()
