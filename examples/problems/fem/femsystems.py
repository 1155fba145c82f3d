#!/usr/bin/env python3
"""femsystems.py - finite-element systems as an existing finite-element code assembles them.

Assembles a linear system with scikit-fem (https://scikit-fem.readthedocs.io, pinned in
config/python-requirements.txt), in the library's own numbering of the unknowns or randomly
permuted, and writes it for PETSc: A and b in one PETSc binary file (plus <file>.info with the block
size) and, for elasticity, the six rigid-body modes in a second file (the near-null space that
PCGAMG needs). examples/problems/problems reads them:

    problems -problem file -file SYS.bin [-file_nearnullspace SYS_nns.bin] -file_spd 1 -solve ...

Systems (all on the unit cube or a 4 x 1 x 1 beam, tetrahedral meshes; Dirichlet values 0 are
eliminated: the rows and columns of the constrained unknowns are dropped, as skfem.condense() does):

  elasticity   P1 linear elasticity (E = 1, nu = 0.3) of a 4 x 1 x 1 cantilever clamped at x = 0 under
               its own weight: 3 unknowns per node, interleaved (block size 3); SPD; near-null space:
               the 6 rigid-body modes (3 translations, 3 rotations) at the free nodes
  p2poisson    P2 Poisson -lap u = 1, u = 0 on the boundary: unknowns on vertices then edges, as
               scikit-fem numbers them; SPD
  aniso        P1 anisotropic diffusion -div(K grad u) = 1, K = eps I + (1 - eps) d d^T with
               d = (cos theta, sin theta, 0): diffusion 1 along d and eps = 1/anisotropy (1e3) across
               it, theta = 30 degrees (not aligned with the mesh: not an M-matrix); SPD
  supg         P1 convection-diffusion -eps lap u + w . grad u = 1 with SUPG stabilisation
               (tau = h/(2|w|) (coth(Pe_h) - 1/Pe_h), Pe_h = |w| h / (2 eps)), the recirculating wind
               w = (sin(pi x) cos(pi y), -cos(pi x) sin(pi y), 0), eps = 1e-3; nonsymmetric
  gmsh         a tetrahedral mesh of the unit cube with a spherical cavity (radius 0.3) from gmsh's
               HXT algorithm, in gmsh's numbering: --disc fvm (default) cell-centred finite volumes,
               one unknown per cell in gmsh's cell order, two-point flux |S_f| / |x_N - x_P|, source 1,
               u = 0 on the outer faces, Neumann on the cavity (SPD M-matrix); --disc p1: the P1
               Laplacian (scikit-fem) on gmsh's nodes

--permute random applies one random permutation (numpy's default_rng(--seed)) symmetrically: rows,
columns, b and the near-null space; for block size 3 whole nodes move (the block structure stays);
--permute both writes the library's numbering (<prefix>) and the permuted one (<prefix>-perm) from one
assembly.

Sizes: --n (mesh cells per unit length) or --unknowns (a target, --n is derived); gmsh: --h (mesh
size) or --cells (a target, --h derived from a calibration of gmsh's HXT on this geometry);
--mesh-file reads a mesh written earlier with --mesh-out (so gmsh is needed only where the mesh is
made). Every system is verified on generation (printed as 'check: ... ok'): symmetry (or its
absence), a positive diagonal, the constant (or the rigid-body modes) in the kernel of the operator
before the Dirichlet conditions, the block layout, and that the permuted system is P A P^T.

Writes <prefix>.bin, <prefix>.bin.info, <prefix>_nns.bin (elasticity), <prefix>.json (what was
generated: sizes, block size, SPD or not, the Krylov method it needs, library versions, times,
checks). --driver PROGRAM -- ARGS... then runs PROGRAM -problem file -file <prefix>.bin ... ARGS
(the harness tests use this).
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import petscbin  # noqa: E402

SYSTEMS = ("elasticity", "p2poisson", "aniso", "supg", "gmsh")
# default --n of each system (the CI-size tests pass their own): about 1 M unknowns
DEFAULT_N = {"elasticity": 43, "p2poisson": 50, "aniso": 101, "supg": 101}
# gmsh's HXT on the cube with the cavity: cells ~ GMSH_CELLS_H3 / h^3 (measured with gmsh 4.15.2, see --cells)
GMSH_CELLS_H3 = 3.5


class Checks:
    def __init__(self, quiet=False):
        self.items = []
        self.quiet = quiet

    def add(self, text, ok):
        self.items.append({"check": text, "ok": bool(ok)})
        if not self.quiet:
            print("  check: %s: %s" % (text, "ok" if ok else "WRONG"))

    @property
    def ok(self):
        return all(c["ok"] for c in self.items)


def versions():
    v = {"numpy": np.__version__, "scipy": __import__("scipy").__version__}
    try:
        import skfem
        v["scikit-fem"] = getattr(skfem, "__version__", "?")
    except ImportError:
        pass
    return v


def is_symmetric(A, rtol=1e-12):
    d = abs(A - A.T)
    return (d.max() if d.nnz else 0.0) <= rtol * abs(A).max()


def restrict(A, b, keep):
    """Drop the constrained unknowns (zero Dirichlet values): A[keep][:, keep], b[keep]."""
    A = sp.csr_matrix(A)
    return A[keep][:, keep].tocsr(), np.asarray(b)[keep]


# --------------------------------------------------------------------------------------------------
# scikit-fem systems

def cube_mesh(n, lengths=(1.0, 1.0, 1.0)):
    import skfem as fem
    nx, ny, nz = (max(1, int(round(n * L))) for L in lengths)
    return fem.MeshTet.init_tensor(np.linspace(0, lengths[0], nx + 1), np.linspace(0, lengths[1], ny + 1),
                                   np.linspace(0, lengths[2], nz + 1)), (nx, ny, nz)


def sys_elasticity(n, args, ck):
    import skfem as fem
    from skfem.models.elasticity import linear_elasticity, lame_parameters
    m, cells = cube_mesh(n, (4.0, 1.0, 1.0))
    e = fem.ElementVector(fem.ElementTetP1())
    basis = fem.Basis(m, e, intorder=1)  # P1: constant strains, one point is exact
    K = fem.asm(linear_elasticity(*lame_parameters(args.young, args.poisson)), basis).tocsr()

    @fem.LinearForm
    def weight(v, w):
        return -1.0 * v.value[2]  # gravity along -z, density 1

    f = fem.asm(weight, basis)
    nv = m.p.shape[1]
    nd = basis.nodal_dofs
    ck.add("the 3 displacement components of a node are consecutive unknowns (node-major, block size 3)",
           nd.shape == (3, nv) and np.array_equal(nd, 3 * np.arange(nv)[None, :] + np.arange(3)[:, None]) and K.shape[0] == 3 * nv)
    # rigid-body modes at the nodes (coordinates about the centroid)
    x = m.p - m.p.mean(axis=1, keepdims=True)
    Z = np.zeros((3 * nv, 6))
    for c in range(3):
        Z[c::3, c] = 1.0
    Z[0::3, 3], Z[1::3, 3] = -x[1], x[0]
    Z[1::3, 4], Z[2::3, 4] = -x[2], x[1]
    Z[0::3, 5], Z[2::3, 5] = x[2], -x[0]
    kz = np.abs(K @ Z).max(axis=0) / (abs(K).sum(axis=1).max() * np.abs(Z).max(axis=0))
    ck.add("the 6 rigid-body modes are in the kernel of the unconstrained stiffness matrix (max |K z| / (|K|_inf |z|_inf) < 1e-12)",
           kz.max() < 1e-12)
    # the nodes of the clamped face (P1: one node per vertex, its unknowns 3 i + c, checked above)
    clamped = np.flatnonzero(np.isclose(m.p[0], 0.0))
    D = (3 * clamped[:, None] + np.arange(3)[None, :]).ravel()
    keep = np.setdiff1d(np.arange(K.shape[0]), D)
    A, b = restrict(K, f, keep)
    desc = ("P1 linear elasticity (scikit-fem), 4 x 1 x 1 cantilever clamped at x = 0 under its own weight, "
            "E %g, nu %g, %d x %d x %d cubes of 6 tetrahedra, %d free nodes, block size 3" % (
                args.young, args.poisson, cells[0], cells[1], cells[2], nv - clamped.size))
    return dict(A=A, b=b, bs=3, nns=[Z[keep, k] for k in range(6)], spd=True, desc=desc,
                mesh={"nodes": nv, "cells": m.t.shape[1]})


def p1_boundary(m, basis):
    """The unknowns of a scalar P1 basis on the boundary of the unit cube (the vertices there: P1's unknown i is
    vertex i; found from the coordinates, which is faster than skfem's facet search on large meshes)."""
    nd = basis.nodal_dofs
    assert nd.shape == (1, m.p.shape[1]) and np.array_equal(nd[0], np.arange(m.p.shape[1]))
    return np.flatnonzero(np.any(np.isclose(m.p, 0.0) | np.isclose(m.p, 1.0), axis=0))


def laplace_kernel_check(K, ck, what):
    one = np.ones(K.shape[0])
    ck.add("constants are in the kernel of the %s before the Dirichlet conditions (max |K 1| / |K|_inf < 1e-12)" % what,
           np.abs(K @ one).max() <= 1e-12 * abs(K).sum(axis=1).max())


def sys_p2poisson(n, args, ck):
    import skfem as fem
    from skfem.models.poisson import laplace, unit_load
    m, cells = cube_mesh(n)
    basis = fem.Basis(m, fem.ElementTetP2())
    K = fem.asm(laplace, basis).tocsr()
    f = fem.asm(unit_load, basis)
    laplace_kernel_check(K, ck, "P2 stiffness matrix")
    ck.add("unknowns: the vertices, then the edges (%d + %d)" % (m.p.shape[1], m.edges.shape[1]), K.shape[0] == m.p.shape[1] + m.edges.shape[1])
    # the unknowns on the boundary: vertices there and edges whose midpoint is there (in a box, an edge with its
    # midpoint on a side lies in it)
    xm = np.hstack((m.p, m.p[:, m.edges].mean(axis=1)))
    D = np.flatnonzero(np.any(np.isclose(xm, 0.0) | np.isclose(xm, 1.0), axis=0))
    keep = np.setdiff1d(np.arange(K.shape[0]), D)
    A, b = restrict(K, f, keep)
    desc = "P2 Poisson -lap u = 1 (scikit-fem), unit cube, %d^3 cubes of 6 tetrahedra, u = 0 on the boundary" % cells[0]
    return dict(A=A, b=b, bs=1, nns=None, spd=True, desc=desc, mesh={"nodes": m.p.shape[1], "cells": m.t.shape[1]})


def sys_aniso(n, args, ck):
    import skfem as fem
    from skfem.models.poisson import unit_load
    m, cells = cube_mesh(n)
    basis = fem.Basis(m, fem.ElementTetP1(), intorder=1)
    eps = 1.0 / args.anisotropy
    th = math.radians(args.theta)
    d = np.array([math.cos(th), math.sin(th), 0.0])
    Kt = eps * np.eye(3) + (1 - eps) * np.outer(d, d)

    @fem.BilinearForm
    def aniso(u, v, w):
        return sum(Kt[i, j] * u.grad[j] * v.grad[i] for i in range(3) for j in range(3) if Kt[i, j] != 0)

    K = fem.asm(aniso, basis).tocsr()
    f = fem.asm(unit_load, basis)
    laplace_kernel_check(K, ck, "stiffness matrix")
    keep = np.setdiff1d(np.arange(K.shape[0]), p1_boundary(m, basis))
    A, b = restrict(K, f, keep)
    off = A - sp.diags(A.diagonal())
    ck.add("positive off-diagonal entries (the anisotropy is not aligned with the mesh: not an M-matrix)", off.max() > 0)
    desc = ("P1 anisotropic diffusion (scikit-fem), unit cube, %d^3 cubes of 6 tetrahedra, K = eps I + (1 - eps) d d^T, "
            "anisotropy 1/eps = %g, d at %g degrees in x-y, u = 0 on the boundary" % (cells[0], args.anisotropy, args.theta))
    return dict(A=A, b=b, bs=1, nns=None, spd=True, desc=desc, mesh={"nodes": m.p.shape[1], "cells": m.t.shape[1]})


def sys_supg(n, args, ck):
    import skfem as fem
    m, cells = cube_mesh(n)
    basis = fem.Basis(m, fem.ElementTetP1(), intorder=2)
    eps = args.epsilon

    def wind(x):
        return np.sin(np.pi * x[0]) * np.cos(np.pi * x[1]), -np.cos(np.pi * x[0]) * np.sin(np.pi * x[1])

    def tau(wx, wy, h):
        wn = np.sqrt(wx * wx + wy * wy)
        pe = wn * h / (2 * eps)
        small = pe < 1e-3
        pes = np.where(small, 1.0, pe)
        xi = np.where(small, pe / 3.0, 1.0 / np.tanh(pes) - 1.0 / pes)  # coth(Pe) - 1/Pe
        return np.where(small, h * h / (12 * eps), h / (2 * np.where(small, 1.0, wn)) * xi)

    @fem.BilinearForm
    def supg(u, v, w):
        wx, wy, t = w.wx.value, w.wy.value, w.tau.value
        wgu = wx * u.grad[0] + wy * u.grad[1]
        wgv = wx * v.grad[0] + wy * v.grad[1]
        return eps * (u.grad[0] * v.grad[0] + u.grad[1] * v.grad[1] + u.grad[2] * v.grad[2]) + wgu * v + t * wgu * wgv

    @fem.LinearForm
    def load(v, w):
        return v + w.tau.value * (w.wx.value * v.grad[0] + w.wy.value * v.grad[1])

    # the wind and tau at the quadrature points, once (not for every pair of basis functions)
    x = basis.global_coordinates().value
    wx, wy = wind(x)
    t = tau(wx, wy, basis.mesh_parameters().value)
    K = fem.asm(supg, basis, wx=wx, wy=wy, tau=t).tocsr()
    f = fem.asm(load, basis, wx=wx, wy=wy, tau=t)
    laplace_kernel_check(K, ck, "SUPG matrix")
    keep = np.setdiff1d(np.arange(K.shape[0]), p1_boundary(m, basis))
    A, b = restrict(K, f, keep)
    hmax = 1.0 / cells[0]
    desc = ("P1 + SUPG convection-diffusion (scikit-fem), unit cube, %d^3 cubes of 6 tetrahedra, -eps lap u + w . grad u = 1, "
            "eps %g, recirculating wind |w| <= 1 (cell Peclet number up to %.3g), u = 0 on the boundary" % (cells[0], eps, hmax / (2 * eps)))
    return dict(A=A, b=b, bs=1, nns=None, spd=False, desc=desc, mesh={"nodes": m.p.shape[1], "cells": m.t.shape[1]})


# --------------------------------------------------------------------------------------------------
# gmsh

def gmsh_mesh(h, threads, radius, quiet):
    """Tetrahedra of the unit cube minus a ball (gmsh's OpenCASCADE kernel, HXT): (points (nv, 3) float64,
    tets (nc, 4) int32), nodes and cells in gmsh's order (node tags ascending; tetrahedra as
    getElementsByType() lists them)."""
    import gmsh
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0 if quiet else 1)
        gmsh.option.setNumber("General.Verbosity", 2)
        gmsh.option.setNumber("General.NumThreads", threads)
        gmsh.model.add("cube-with-cavity")
        box = gmsh.model.occ.addBox(0, 0, 0, 1, 1, 1)
        ball = gmsh.model.occ.addSphere(0.5, 0.5, 0.5, radius)
        gmsh.model.occ.cut([(3, box)], [(3, ball)])
        gmsh.model.occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.option.setNumber("Mesh.MeshSizeMin", h / 2)
        gmsh.option.setNumber("Mesh.MeshSizeFromCurvature", 0)
        gmsh.option.setNumber("Mesh.Algorithm3D", 10)  # HXT
        gmsh.model.mesh.generate(3)
        tags, coords, _ = gmsh.model.mesh.getNodes()
        _, conn = gmsh.model.mesh.getElementsByType(4)  # 4-node tetrahedra
        version = gmsh.__version__
    finally:
        gmsh.finalize()
    tags = np.asarray(tags, dtype=np.int64)
    order = np.argsort(tags, kind="stable")
    pos = np.empty(tags.max() + 1, dtype=np.int64)
    pos[tags[order]] = np.arange(tags.size)
    p = np.asarray(coords, dtype=np.float64).reshape(-1, 3)[order]
    t = pos[np.asarray(conn, dtype=np.int64)].reshape(-1, 4)
    # nodes no tetrahedron uses (none expected): dropped, the order of the others kept
    used = np.zeros(p.shape[0], dtype=bool)
    used[t.ravel()] = True
    if not used.all():
        newidx = np.cumsum(used) - 1
        p, t = p[used], newidx[t]
    return p, t.astype(np.int32), version


def fvm_tets(p, t, ck):
    """Cell-centred finite volumes on tetrahedra: two-point flux |S| / |x_N - x_P| on interior faces,
    |S| / |x_f - x_P| on Dirichlet faces (the outer faces of the unit cube), Neumann elsewhere; b = |V_P|."""
    nc = t.shape[0]
    P = p[t]  # (nc, 4, 3)
    vol = np.abs(np.einsum("ij,ij->i", np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), P[:, 3] - P[:, 0])) / 6.0
    cen = P.mean(axis=1)
    lf = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])
    F = np.sort(t[:, lf].reshape(-1, 3).astype(np.int64), axis=1)
    owner = np.repeat(np.arange(nc), 4)
    nv = p.shape[0]
    if nv < (1 << 21):
        key = (F[:, 0] << 42) | (F[:, 1] << 21) | F[:, 2]
    else:
        key = np.unique(F, axis=0, return_inverse=True)[1].ravel()
    o = np.argsort(key, kind="stable")
    ks = key[o]
    same = ks[1:] == ks[:-1]
    first = np.flatnonzero(same)  # o[first], o[first + 1]: the two cells of an interior face
    isb = np.ones(ks.size, dtype=bool)
    isb[first] = False
    isb[first + 1] = False
    ck.add("every face has one or two cells", not np.any(same[1:] & same[:-1]) if same.size > 1 else True)

    def area_vec(fv):
        a, b_, c = p[fv[:, 0]], p[fv[:, 1]], p[fv[:, 2]]
        return 0.5 * np.linalg.norm(np.cross(b_ - a, c - a), axis=1), (a + b_ + c) / 3.0

    fi = o[first]
    cP, cN = owner[fi], owner[o[first + 1]]
    S, _ = area_vec(F[fi])
    a = S / np.linalg.norm(cen[cN] - cen[cP], axis=1)
    fb = o[isb]
    Sb, xb = area_vec(F[fb])
    cb = owner[fb]
    tol = 1e-9
    outer = np.any((np.abs(xb) < tol) | (np.abs(xb - 1) < tol), axis=1)
    ab = Sb[outer] / np.linalg.norm(xb[outer] - cen[cb[outer]], axis=1)
    diag = np.bincount(cP, a, nc) + np.bincount(cN, a, nc) + np.bincount(cb[outer], ab, nc)
    rows = np.concatenate((cP, cN, np.arange(nc)))
    cols = np.concatenate((cN, cP, np.arange(nc)))
    vals = np.concatenate((-a, -a, diag))
    A = sp.csr_matrix((vals, (rows, cols)), shape=(nc, nc))
    ndir = np.bincount(cb[outer], minlength=nc)
    rs = np.asarray(A.sum(axis=1)).ravel()
    scale = abs(A).sum(axis=1).A.ravel()
    ck.add("row sums: 0 on cells without a Dirichlet face, > 0 on the others",
           np.all(np.abs(rs[ndir == 0]) <= 1e-12 * scale[ndir == 0]) and np.all(rs[ndir > 0] > 0))
    ck.add("no positive off-diagonal entry (M-matrix)", (A - sp.diags(A.diagonal())).max() <= 0)
    ck.add("cells of positive volume", vol.min() > 0)
    info = {"cells": nc, "nodes": nv, "interior_faces": int(first.size), "dirichlet_faces": int(outer.sum()),
            "neumann_faces": int((~outer).sum())}
    return A, vol, info


def sys_gmsh(args, ck):
    gv = None
    if args.mesh_file:
        z = np.load(args.mesh_file)
        p, t = z["points"], z["tets"]
        gv = str(z["gmsh_version"]) if "gmsh_version" in z else "?"
        h = float(z["h"]) if "h" in z else float("nan")
        src = "read from %s" % os.path.basename(args.mesh_file)
    else:
        h = args.h if args.h else (GMSH_CELLS_H3 / args.cells) ** (1.0 / 3.0)
        t0 = time.time()
        p, t, gv = gmsh_mesh(h, args.threads, args.radius, args.quiet)
        args._tmesh = time.time() - t0
        src = "gmsh %s" % gv
        if args.mesh_out:
            np.savez_compressed(args.mesh_out, points=p, tets=t, gmsh_version=gv, h=h)
    if args.disc == "fvm":
        A, vol, info = fvm_tets(p, t, ck)
        b = vol
        desc = ("FVM Poisson on a gmsh tetrahedral mesh (HXT, %s), unit cube with a spherical cavity of radius %g, "
                "mesh size %g, one unknown per cell in gmsh's cell order, two-point flux, u = 0 on the outer faces, Neumann on the cavity" % (src, args.radius, h))
        spd = True
    else:
        import skfem as fem
        from skfem.models.poisson import laplace, unit_load
        m = fem.MeshTet(p.T.copy(), t.T.copy())
        basis = fem.Basis(m, fem.ElementTetP1(), intorder=1)
        K = fem.asm(laplace, basis).tocsr()
        f = fem.asm(unit_load, basis)
        laplace_kernel_check(K, ck, "P1 stiffness matrix")
        keep = np.setdiff1d(np.arange(K.shape[0]), p1_boundary(m, basis))  # the outer faces (the cavity: Neumann)
        A, b = restrict(K, f, keep)
        info = {"cells": int(t.shape[0]), "nodes": int(p.shape[0])}
        desc = ("P1 Laplacian -lap u = 1 (scikit-fem) on a gmsh tetrahedral mesh (HXT, %s), unit cube with a spherical cavity "
                "of radius %g, mesh size %g, unknowns at gmsh's nodes in gmsh's order, u = 0 on the outer faces" % (src, args.radius, h))
        spd = True
    info["gmsh"] = gv
    info["h"] = h
    return dict(A=A, b=b, bs=1, nns=None, spd=spd, desc=desc, mesh=info)


# --------------------------------------------------------------------------------------------------

def n_for_unknowns(system, u):
    """--n that gives about u unknowns."""
    if system == "elasticity":  # 3 * 4n * (n+1)^2
        return max(1, int(round((u / 12.0) ** (1.0 / 3.0))))
    if system == "p2poisson":  # (2n-1)^3
        return max(1, int(round((u ** (1.0 / 3.0) + 1) / 2)))
    return max(2, int(round(u ** (1.0 / 3.0) + 1)))  # (n-1)^3


def permute(S, seed, ck):
    """Random symmetric permutation of whole blocks: new unknown i is old unknown perm[i]."""
    A, b, bs = S["A"], S["b"], S["bs"]
    nb = A.shape[0] // bs
    perm_b = np.random.default_rng(seed).permutation(nb)
    perm = (bs * perm_b[:, None] + np.arange(bs)[None, :]).ravel()
    Ap = A[perm][:, perm].tocsr()
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    back = Ap[inv][:, inv]
    ck.add("the permuted matrix is P A P^T (permuted back: identical to the natural one)", (back != A).nnz == 0)
    S = dict(S)
    S["A"], S["b"] = Ap, np.asarray(b)[perm]
    if S["nns"] is not None:
        S["nns"] = [z[perm] for z in S["nns"]]
    return S


def solver_configs(solvers, spd):
    """Driver options of --solvers: -configs and each configuration's -<name>_mat_type, _ksp_type, _pc_type."""
    if not solvers:
        return []
    names, opts = [], []
    for item in solvers.split(","):
        pc, _, mat = item.strip().partition("@")
        name = pc if not mat else "%s_%s" % (pc, mat)
        names.append(name)
        opts += ["-%s_mat_type" % name, mat or "modsell", "-%s_pc_type" % name, pc]
        opts += ["-%s_ksp_type" % name, "cg"] if spd else ["-%s_ksp_type" % name, "gmres", "-%s_ksp_gmres_restart" % name, "30"]
    return ["-solve", "-configs", ",".join(names)] + opts


def parse_args(argv):
    if "--" in argv:
        k = argv.index("--")
        argv, rest = argv[:k], argv[k + 1:]
    else:
        rest = []
    ap = argparse.ArgumentParser(description="Finite-element systems (scikit-fem, gmsh) written as PETSc binary files.",
                                 epilog="Everything after -- goes to the --driver program.")
    ap.add_argument("system", choices=SYSTEMS)
    ap.add_argument("--prefix", help="output files <prefix>.bin, .bin.info, _nns.bin, .json (default: the system's name, with -perm)")
    ap.add_argument("--n", type=int, help="mesh cells per unit length (default: about 1 M unknowns)")
    ap.add_argument("--unknowns", type=float, help="target number of unknowns (sets --n)")
    ap.add_argument("--permute", choices=("none", "random", "both"), default="none",
                    help="numbering: the library's own, a random permutation, or both (two sets of files, <prefix> and <prefix>-perm)")
    ap.add_argument("--seed", type=int, default=1, help="seed of --permute random")
    ap.add_argument("--young", type=float, default=1.0, help="elasticity: Young's modulus")
    ap.add_argument("--poisson", type=float, default=0.3, help="elasticity: Poisson's ratio")
    ap.add_argument("--anisotropy", type=float, default=1e3, help="aniso: ratio of the diffusion along d to across d")
    ap.add_argument("--theta", type=float, default=30.0, help="aniso: angle of d with the x axis, degrees")
    ap.add_argument("--epsilon", type=float, default=1e-3, help="supg: diffusion coefficient (|w| <= 1)")
    ap.add_argument("--disc", choices=("fvm", "p1"), default="fvm", help="gmsh: cell-centred finite volumes or P1 finite elements")
    ap.add_argument("--h", type=float, help="gmsh: mesh size")
    ap.add_argument("--cells", type=float, default=2.4e6, help="gmsh: target number of cells (sets --h)")
    ap.add_argument("--radius", type=float, default=0.3, help="gmsh: radius of the cavity")
    ap.add_argument("--threads", type=int, default=1, help="gmsh: threads of HXT (1: deterministic numbering)")
    ap.add_argument("--mesh-file", help="gmsh: read the mesh from this .npz (written by --mesh-out) instead of running gmsh")
    ap.add_argument("--mesh-out", help="gmsh: also write the mesh to this .npz (points, tets, gmsh version, h)")
    ap.add_argument("--no-timings", action="store_true", help="print no times (tests)")
    ap.add_argument("--quiet", action="store_true", help="print only the summary line")
    ap.add_argument("--driver", help="then run this program (examples/problems/problems) on the files, with the arguments after --")
    ap.add_argument("--mpiexec", default="", help="launcher of --driver, e.g. 'mpiexec -n 2'")
    ap.add_argument("--solvers", help="with --driver: comma-separated PC[@MATTYPE] (MATTYPE default modsell), one driver "
                    "configuration each, with the Krylov method the system needs (CG, or GMRES(30) when nonsymmetric)")
    a = ap.parse_args(argv)
    a.rest = rest
    return a


def write_numbering(args, S, ck, name, prefix, permuted, n, tasm):
    """Write one numbering of the system (permuted: S is already permuted); returns the .bin and near-null files."""
    A = S["A"]
    t1 = time.time()
    petscbin.write_system(prefix + ".bin", A, S["b"], S["bs"])
    nnsfile = None
    if S["nns"] is not None:
        nnsfile = prefix + "_nns.bin"
        petscbin.write_vecs(nnsfile, S["nns"])
    twrite = time.time() - t1
    meta = {"system": args.system, "name": name, "description": S["desc"], "rows": int(A.shape[0]), "nnz": int(A.nnz),
            "bs": S["bs"], "spd": S["spd"], "ksp": "cg" if S["spd"] else "gmres", "file": os.path.abspath(prefix + ".bin"),
            "nearnullspace": os.path.abspath(nnsfile) if nnsfile else None, "near_null_vectors": len(S["nns"]) if S["nns"] else 0,
            "permute": "random" if permuted else "none", "seed": args.seed if permuted else None, "n": n, "mesh": S.get("mesh", {}),
            "versions": versions(), "time_assembly_s": round(tasm, 3), "time_mesh_s": round(args._tmesh, 3) if args._tmesh else None,
            "time_write_s": round(twrite, 3), "checks": ck.items, "checks_ok": ck.ok}
    if args.system == "gmsh":
        meta["versions"]["gmsh"] = S["mesh"].get("gmsh")
    with open(prefix + ".json", "w") as f:
        json.dump(meta, f, indent=1)
    print("%s: %d unknowns, %d nonzeros (%.2f per row), block size %d, %s, %s%s -> %s.bin%s" % (
        name, A.shape[0], A.nnz, A.nnz / A.shape[0], S["bs"], "SPD (CG)" if S["spd"] else "nonsymmetric (GMRES)",
        "checks ok" if ck.ok else "CHECKS FAILED",
        "" if args.no_timings else ", assembly %.1f s, writing %.1f s" % (tasm, twrite), os.path.basename(prefix),
        " and %s" % os.path.basename(nnsfile) if nnsfile else ""))
    sys.stdout.flush()
    return prefix + ".bin", nnsfile


def main(argv):
    args = parse_args(argv)
    args._tmesh = None
    if args.driver and args.permute == "both":
        sys.exit("femsystems.py: --driver runs one system: --permute none or random, not both")
    ck = Checks(quiet=args.quiet)
    t0 = time.time()
    n = None
    if args.system != "gmsh":
        n = args.n if args.n else (n_for_unknowns(args.system, args.unknowns) if args.unknowns else DEFAULT_N[args.system])
    if not args.quiet:
        own = "gmsh's" if args.system == "gmsh" else "the library's"
        how = {"none": own, "random": "random", "both": own + " and random"}[args.permute]
        print("%s (%s numbering)%s:" % (args.system, how, "" if n is None else ", n = %d" % n))
    S = {"elasticity": sys_elasticity, "p2poisson": sys_p2poisson, "aniso": sys_aniso, "supg": sys_supg}[args.system](n, args, ck) \
        if args.system != "gmsh" else sys_gmsh(args, ck)
    tasm = time.time() - t0
    A = S["A"]
    if S["spd"]:
        ck.add("symmetric (|A - A^T| <= 1e-12 max|a_ij|)", is_symmetric(A))
    else:
        ck.add("nonsymmetric", not is_symmetric(A))
    ck.add("positive diagonal", A.diagonal().min() > 0)
    natural = S
    if args.permute != "none":
        S = permute(S, args.seed, ck)
    if not args.quiet:
        print("  %s" % natural["desc"])
    base = args.prefix or args.system
    if args.permute in ("none", "both"):
        binfile, nnsfile = write_numbering(args, natural, ck, args.system, base, False, n, tasm)
    if args.permute in ("random", "both"):
        pre = base + "-perm" if (args.permute == "both" or not args.prefix) else base
        binfile, nnsfile = write_numbering(args, S, ck, args.system + "-perm", pre, True, n, tasm)
    if not ck.ok:
        return 1
    if args.driver:
        cmd = shlex.split(args.mpiexec) + [args.driver, "-problem", "file", "-file", binfile, "-file_spd", "1" if S["spd"] else "0"]
        if nnsfile:
            cmd += ["-file_nearnullspace", nnsfile]
        cmd += solver_configs(args.solvers, S["spd"]) + args.rest
        return subprocess.call(cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
