"""petscbin.py - PETSc binary files from numpy / scipy, without petsc4py.

PETSc's binary format (PetscViewerBinary, MatView / VecView with 32-bit PetscInt and real double
scalars): big-endian throughout.
  matrix: int32 MAT_FILE_CLASSID (1211216), rows, columns, stored entries; int32 entries of each row;
          int32 column indices (0-based, sorted in each row); float64 values
  vector: int32 VEC_FILE_CLASSID (1211214), length; float64 values
A file may hold several objects one after the other (MatLoad() then VecLoad() reads A then b). The
block size of a matrix goes to the companion file <name>.info as "-matload_block_size <bs>", which
MatLoad() reads (as MatView() writes it).

PETSc built with 64-bit indices or complex scalars reads another layout: these files are for the
default 32-bit real double build (the reader of examples/problems checks the sizes before MatLoad()).
"""
import numpy as np
import scipy.sparse as sp

MAT_FILE_CLASSID = 1211216
VEC_FILE_CLASSID = 1211214


def _check_int32(n, what):
    if n > np.iinfo(np.int32).max:
        raise ValueError("%s = %d does not fit in a 32-bit PetscInt" % (what, n))


def write_mat(f, A):
    """Append the sparse matrix A (CSR, sorted column indices, duplicates summed) to the open file f."""
    A = sp.csr_matrix(A)
    A.sum_duplicates()
    A.sort_indices()
    m, n = A.shape
    _check_int32(A.nnz, "nonzeros")
    _check_int32(max(m, n), "size")
    np.array([MAT_FILE_CLASSID, m, n, A.nnz], dtype=">i4").tofile(f)
    np.diff(A.indptr).astype(">i4").tofile(f)
    A.indices.astype(">i4").tofile(f)
    A.data.astype(">f8").tofile(f)


def write_vec(f, v):
    """Append the vector v to the open file f."""
    v = np.asarray(v, dtype=np.float64).ravel()
    _check_int32(v.size, "length")
    np.array([VEC_FILE_CLASSID, v.size], dtype=">i4").tofile(f)
    v.astype(">f8").tofile(f)


def write_system(path, A, b, bs=1):
    """path: A then b (PETSc binary); path.info: the block size (always written, so that an old .info is
    not read with a new matrix)."""
    with open(path, "wb") as f:
        write_mat(f, A)
        write_vec(f, b)
    with open(path + ".info", "w") as f:
        f.write("-matload_block_size %d\n" % bs)


def write_vecs(path, vecs):
    """path: the vectors one after the other (e.g. the near-null space)."""
    with open(path, "wb") as f:
        for v in vecs:
            write_vec(f, v)


def read_objects(path):
    """Every object of a PETSc binary file: ('mat', csr_matrix) or ('vec', ndarray). For checks."""
    out = []
    raw = np.fromfile(path, dtype=np.uint8)
    pos = 0

    def take(count, dt):
        nonlocal pos
        dt = np.dtype(dt)
        a = raw[pos:pos + count * dt.itemsize].view(dt)
        if a.size != count:
            raise ValueError("%s: truncated at byte %d" % (path, pos))
        pos += count * dt.itemsize
        return a

    while pos < raw.size:
        cid = int(take(1, ">i4")[0])
        if cid == MAT_FILE_CLASSID:
            m, n, nz = (int(x) for x in take(3, ">i4"))
            rl = take(m, ">i4").astype(np.int64)
            cols = take(nz, ">i4").astype(np.int64)
            vals = take(nz, ">f8").astype(np.float64)
            indptr = np.concatenate(([0], np.cumsum(rl)))
            out.append(("mat", sp.csr_matrix((vals, cols, indptr), shape=(m, n))))
        elif cid == VEC_FILE_CLASSID:
            n = int(take(1, ">i4")[0])
            out.append(("vec", take(n, ">f8").astype(np.float64)))
        else:
            raise ValueError("%s: unknown class id %d at byte %d" % (path, cid, pos - 4))
    return out
