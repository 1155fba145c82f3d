#!/usr/bin/env python3
"""bench/timeline.py REPORT.sqlite [--skip 2]

Reads one process's nsys trace (nsys export --type sqlite; bench/scaling.sh's timeline step) of an MPI CG run on
MATMODSELL and says whether the halo exchange of MatMult overlaps the diagonal block's product.

PETSc's MatMult_MPIAIJ (MATMPIAIJMODSELL keeps it): VecScatterBegin (the SF packs the ghost values on the GPU, copies them
to a host buffer when MPI is not CUDA-aware, starts MPI), the diagonal block's product (ms_mult_kernel launched),
VecScatterEnd (MPI wait, copy of the received values to the GPU, unpack), the off-diagonal block's product (ms_mult_kernel,
adding into y). Kernels and copies are attributed to PETSc's NVTX ranges (PETSc's events: nsys turns PETSc's NVTX
logging on) through the CUDA runtime call that launched them (correlation id). For each MatMult it measures:
  diag      the diagonal block's kernel on the GPU (the first ms_* kernel launched after VecScatterBegin)
  end       the host's VecScatterEnd range (MPI wait, H2D copy, unpack launch)
  overlap   the part of the diagonal kernel's GPU interval during which the host was in VecScatterEnd, over the kernel's
            duration (1: the host finished the exchange while the kernel ran)
  gap       GPU time between the diagonal kernel's end and the off-diagonal kernel's start (what the exchange left
            exposed, including the H2D copy and the unpack kernel)
  begin     the host's VecScatterBegin range (pack, D2H copy, MPI start: before the diagonal kernel is launched)
and the memory kinds of the copies' host buffers (pageable / pinned), and the MPI calls inside VecScatterEnd.
Prints medians over the MatMult calls after the first --skip.
"""
import sqlite3
import statistics
import sys

CUPTI_MEM_KIND = {0: "unknown", 1: "pageable", 2: "pinned", 3: "device", 4: "array", 5: "managed", 6: "device static", 7: "managed static"}
CUPTI_COPY_KIND = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH", 10: "PtoP"}


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(db, t):
    return {r[1] for r in db.execute(f"PRAGMA table_info({t})")}


def enum(db, have, name, default):
    if name in have:
        try:
            return {r[0]: r[1] for r in db.execute(f"SELECT id, label FROM {name}")}
        except sqlite3.Error:
            pass
    return default


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    skip = int(sys.argv[sys.argv.index("--skip") + 1]) if "--skip" in sys.argv else 2
    db = sqlite3.connect(sys.argv[1])
    have = tables(db)
    need = ["StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"]
    missing = [t for t in need if t not in have]
    if missing:
        print(f"trace lacks {', '.join(missing)}: cannot attribute kernels to PETSc's events (was nsys run with --trace=cuda,nvtx?)")
        return 1
    s = {r[0]: r[1] for r in db.execute("SELECT id, value FROM StringIds")}
    memkind = enum(db, have, "ENUM_CUDA_MEM_KIND", CUPTI_MEM_KIND)
    copykind = enum(db, have, "ENUM_CUDA_MEMCPY_OPER", CUPTI_COPY_KIND)

    # NVTX ranges of PETSc's events (host, one thread)
    ncol = columns(db, "NVTX_EVENTS")
    textexpr = "COALESCE(text, '')" if "textId" not in ncol else "text, textId"
    ranges = []
    for row in db.execute(f"SELECT start, end, {textexpr} FROM NVTX_EVENTS WHERE end IS NOT NULL AND end > start"):
        name = row[2] if row[2] else (s.get(row[3], "") if len(row) > 3 and row[3] is not None else "")
        ranges.append((row[0], row[1], name))
    byname = {}
    for a, b, n in ranges:
        byname.setdefault(n, []).append((a, b))
    for v in byname.values():
        v.sort()
    mults = byname.get("MatMult", [])
    if not mults:
        print("no MatMult NVTX ranges in the trace (PETSc's NVTX logging off? run under nsys, or add -log_nvtx)")
        print("NVTX ranges present:", ", ".join(sorted(byname)[:30]))
        return 1

    # CUDA runtime calls (launches, copies) with their correlation ids, and the GPU side
    launch = {r[0]: r[1] for r in db.execute("SELECT correlationId, start FROM CUPTI_ACTIVITY_KIND_RUNTIME")}
    kcol = columns(db, "CUPTI_ACTIVITY_KIND_KERNEL")
    kname = "demangledName" if "demangledName" in kcol else "shortName"
    kernels = []
    for cid, a, b, nm, short in db.execute(f"SELECT correlationId, start, end, {kname}, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        kernels.append((launch.get(cid), a, b, s.get(nm, str(nm)), s.get(short, str(short))))
    copies = []
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in have:
        for cid, a, b, kind, nbytes, src, dst in db.execute("SELECT correlationId, start, end, copyKind, bytes, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
            copies.append((launch.get(cid), a, b, copykind.get(kind, str(kind)), nbytes, memkind.get(src, str(src)), memkind.get(dst, str(dst))))
    mpi = []
    for t in sorted(have):
        if t.startswith("MPI_") and {"start", "end", "textId"} <= columns(db, t):
            for a, b, tid in db.execute(f"SELECT start, end, textId FROM {t}"):
                mpi.append((a, b, s.get(tid, "?")))

    def inside(lst, a, b):
        return [x for x in lst if x[0] is not None and a <= x[0] <= b]

    def first_in(name, a, b):
        for x in byname.get(name, []):
            if a <= x[0] and x[1] <= b:
                return x
        return None

    res = {k: [] for k in ("diag", "offd", "begin", "end", "overlap", "gap", "d2h", "h2d", "wait")}
    kinds = {}
    n_ok = 0
    for i, (a, b) in enumerate(mults):
        if i < skip:
            continue
        sb, se = first_in("VecScatterBegin", a, b), first_in("VecScatterEnd", a, b)
        if not sb or not se:
            continue  # one process, or a product without exchange
        ks = sorted(x for x in inside(kernels, a, b) if x[4].startswith("ms_") or "ms_mult" in x[3])
        # the products are ms_mult_kernel; a permuted image adds gather / unpermute kernels around the diagonal one
        mult = [x for x in ks if "mult" in x[4]] or ks
        diag = [x for x in mult if sb[1] <= x[0] <= se[0]]
        offd = [x for x in mult if x[0] >= se[1]]
        if not diag or not offd:
            continue
        d, o = diag[-1], offd[0]
        n_ok += 1
        res["diag"].append((d[2] - d[1]) / 1e3)
        res["offd"].append((o[2] - o[1]) / 1e3)
        res["begin"].append((sb[1] - sb[0]) / 1e3)
        res["end"].append((se[1] - se[0]) / 1e3)
        ov = max(0, min(d[2], se[1]) - max(d[1], se[0]))
        res["overlap"].append(ov / max(1, d[2] - d[1]))
        res["gap"].append((o[1] - d[2]) / 1e3)
        for c in inside(copies, a, b):
            key = (c[3], c[5], c[6])
            kinds[key] = kinds.get(key, 0) + 1
            if c[3] in ("DtoH", "CUDA_MEMCPY_DTOH", "Device-to-Host"):
                res["d2h"].append((c[2] - c[1]) / 1e3)
            elif c[3] in ("HtoD", "CUDA_MEMCPY_HTOD", "Host-to-Device"):
                res["h2d"].append((c[2] - c[1]) / 1e3)
        w = sum(min(m[1], se[1]) - max(m[0], se[0]) for m in mpi if m[1] > se[0] and m[0] < se[1] and "ait" in m[2])
        res["wait"].append(w / 1e3)
    print(f"MatMult calls: {len(mults)}; analysed (with a halo exchange, after the first {skip}): {n_ok}")
    if not n_ok:
        print("no MatMult with VecScatterBegin/End and ms_* kernels on both sides: one process, or not MATMODSELL")
        return 1
    print(f"  diagonal block's kernel (GPU)        median {med(res['diag']):8.1f} us")
    print(f"  off-diagonal block's kernel (GPU)    median {med(res['offd']):8.1f} us")
    print(f"  VecScatterBegin (host)               median {med(res['begin']):8.1f} us  (pack, D2H copy, MPI start: before the diagonal product is launched)")
    print(f"  VecScatterEnd (host)                 median {med(res['end']):8.1f} us  (MPI wait {med(res['wait']) if mpi else float('nan'):.1f} us, H2D copy, unpack)")
    print(f"  D2H copies {len(res['d2h'])} median {med(res['d2h']):.1f} us; H2D copies {len(res['h2d'])} median {med(res['h2d']):.1f} us")
    for (k, src, dst), n in sorted(kinds.items()):
        print(f"  copies {k}: {n} (source memory {src}, destination memory {dst})")
    fr = med(res["overlap"])
    print(f"  GPU gap between the diagonal kernel's end and the off-diagonal kernel's start: median {med(res['gap']):.1f} us")
    verdict = "yes" if fr >= 0.5 else ("partly" if fr > 0.05 else "no")
    print(f"overlap: {verdict}: the host was in VecScatterEnd during {100 * fr:.0f}% of the diagonal kernel (median over {n_ok} products)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
