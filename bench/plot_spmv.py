#!/usr/bin/env python3
"""Plots and a summary table of the SpMV benchmark CSV written by bench/spmv (bench/spmv.sh).

    python3 bench/plot_spmv.py RESULTS.csv [MORE.csv ...] [--outdir docs] [--prefix spmv]
                               [--label TEXT] [--summary-only]

Writes PREFIX_bandwidth.png (effective bandwidth of each format on each problem, with the
measured device copy bandwidth) and PREFIX_slice_height.png (modsell's slice-height sweep, per
kernel and ordering, against aijcusparse and sellcuda) into --outdir, then prints the summary
table. The effective bandwidth is the CSV's GBps column: (12 nnz + 8 (rows + columns)) bytes per
product / median time, counted the same way for every format. A CSV measured on the host
(device "cpu:...") is labelled a CPU smoke run in the plots. When a CSV holds the same
(problem, format, variant) more than once, the last row counts.
"""
import argparse
import csv
import math
import os
import sys

DEFAULT_VARIANT = "sh=128:kernel=modsell:ordering=natural"


def read_rows(paths):
    rows = {}
    order = []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["problem"], r["format"], r["variant"])
                if key not in rows:
                    order.append(key)
                rows[key] = r
    return [rows[k] for k in order]


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


class Problem:
    def __init__(self, name):
        self.name = name
        self.n = self.nnz = None
        self.device = self.date = ""
        self.copy = {}  # memory -> GB/s
        self.fmt = {}  # (format, variant) -> row

    def best(self, pred):
        cands = [r for (f, v), r in self.fmt.items() if pred(f, v, r) and num(r["GBps"])]
        return max(cands, key=lambda r: num(r["GBps"])) if cands else None

    def one(self, fmt):
        return self.best(lambda f, v, r: f == fmt)


def group(rows):
    probs = {}
    for r in rows:
        p = probs.setdefault(r["problem"], Problem(r["problem"]))
        p.device, p.date = r.get("device", ""), r.get("date", "")
        if r["format"] == "copy":
            p.copy[r["variant"]] = num(r["GBps"])
            continue
        p.n, p.nnz = r["n"], r["nnz"]
        p.fmt[(r["format"], r["variant"])] = r
    return list(probs.values())


def is_ms(f, v, r, kernel=None, ordering=None):
    return f == "modsell" and (kernel is None or r.get("kernel") == kernel) and (ordering is None or r.get("ordering") == ordering)


def fmt_gbps(r):
    g = num(r["GBps"]) if r is not None else None
    if g is None:
        return "-"
    return "%.0f" % g if g >= 100 else "%.3g" % g


def summary(probs, out=sys.stdout):
    hdr = ["problem", "rows", "nnz", "aij", "cusparse", "sellcuda", "modsell(def)", "modsell best (variant)", "%copy", "vs_cusp", "vs_sell"]
    lines = []
    wrong = []
    for p in probs:
        for (f, v), r in p.fmt.items():
            if r.get("check", "ok") != "ok":
                wrong.append("%s %s %s" % (p.name, f, v))
        cu, se, aij = p.one("aijcusparse"), p.one("sellcuda"), p.one("aij")
        de = p.fmt.get(("modsell", DEFAULT_VARIANT))
        be = p.best(lambda f, v, r: is_ms(f, v, r))
        pct = vs_cu = vs_se = "-"
        if be is not None:
            cp = p.copy.get(be.get("memory", "device"))
            if cp:
                pct = "%.0f%%" % (100 * num(be["GBps"]) / cp)
            if cu is not None:
                vs_cu = "%.2f" % (num(cu["time_ms"]) / num(be["time_ms"]))
            if se is not None:
                vs_se = "%.2f" % (num(se["time_ms"]) / num(be["time_ms"]))
        bname = "-" if be is None else "%s (%s)" % (fmt_gbps(be), be["variant"].replace("kernel=", "").replace("ordering=", ""))
        lines.append([p.name, p.n or "-", p.nnz or "-", fmt_gbps(aij), fmt_gbps(cu), fmt_gbps(se), fmt_gbps(de), bname, pct, vs_cu, vs_se])
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *lines)]
    devs = sorted({p.device for p in probs})
    print("SpMV summary: effective bandwidth in GB/s, (12 nnz + 16 n) bytes per product / median time; device %s" % ", ".join(devs), file=out)
    print("  %copy: best modsell against the measured copy bandwidth; vs_*: time of aijcusparse (sellcuda) / time of the best modsell", file=out)
    for row in [hdr] + lines:
        print("  " + "  ".join(str(x).ljust(w) for x, w in zip(row, widths)), file=out)
    if wrong:
        print("WRONG RESULTS: " + "; ".join(wrong), file=out)
    return not wrong


def smoke_label(probs, label):
    if label:
        return label
    if any(p.device.startswith("cpu:") for p in probs):
        return "CPU smoke run (host kernels), not GPU results"
    return ""


def plots(probs, outdir, prefix, label):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    devs = ", ".join(sorted({p.device for p in probs}))
    dates = sorted({p.date for p in probs if p.date})
    when = dates[0] if len(dates) == 1 else ("%s .. %s" % (dates[0], dates[-1]) if dates else "")
    sub = "%s, %s%s" % (devs, when, ("\n" + label) if label else "")
    written = []

    # 1. bandwidth per format per problem
    series = [
        ("aij (CPU)", lambda p: p.one("aij"), "#999999"),
        ("aijcusparse", lambda p: p.one("aijcusparse"), "#1f77b4"),
        ("sellcuda", lambda p: p.one("sellcuda"), "#ff7f0e"),
        ("modsell sh=128 (default)", lambda p: p.fmt.get(("modsell", DEFAULT_VARIANT)), "#98df8a"),
        ("modsell best, natural", lambda p: p.best(lambda f, v, r: is_ms(f, v, r, "modsell", "natural")), "#2ca02c"),
        ("modsell best, rcm", lambda p: p.best(lambda f, v, r: is_ms(f, v, r, "modsell", "rcm")), "#006400"),
        ("SELL kernel (modsell:kernel=sell) best", lambda p: p.best(lambda f, v, r: is_ms(f, v, r, "sell")), "#d62728"),
    ]
    series = [s for s in series if any(s[1](p) is not None for p in probs)]
    if series:
        fig, ax = plt.subplots(figsize=(min(16, 4 + 1.8 * len(probs)), 4.8))
        w = 0.8 / len(series)
        for k, (name, get, color) in enumerate(series):
            xs, ys = [], []
            for i, p in enumerate(probs):
                r = get(p)
                if r is not None and num(r["GBps"]) is not None:
                    xs.append(i - 0.4 + (k + 0.5) * w)
                    ys.append(num(r["GBps"]))
            ax.bar(xs, ys, w, label=name, color=color)
        for i, p in enumerate(probs):
            mem = "device" if p.copy.get("device") else "host"
            cp = p.copy.get(mem)
            if cp:
                ax.hlines(cp, i - 0.45, i + 0.45, colors="k", linestyles="dashed", label="copy bandwidth (%s)" % mem if i == 0 else None)
        ax.set_xticks(range(len(probs)))
        ax.set_xticklabels(["%s\n%s rows" % (p.name, p.n) for p in probs], fontsize=8)
        ax.set_ylabel("effective bandwidth (GB/s)\n(12 nnz + 16 n) bytes / time")
        ax.set_title("SpMV (MatMult) effective bandwidth\n" + sub, fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fn = os.path.join(outdir, prefix + "_bandwidth.png")
        fig.savefig(fn, dpi=120)
        plt.close(fig)
        written.append(fn)

    # 2. slice-height sweep of modsell per problem
    sw = [p for p in probs if any(f == "modsell" for f, v in p.fmt)]
    if sw:
        ncol = min(3, len(sw))
        nrow = (len(sw) + ncol - 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.6 * nrow), squeeze=False)
        for ax, p in zip(axes.flat, sw):
            for kernel, ordering, style in (("modsell", "natural", "-o"), ("modsell", "rcm", "--o"), ("sell", "natural", "-s"), ("sell", "rcm", "--s")):
                pts = sorted((int(r["sh"]), num(r["GBps"])) for (f, v), r in p.fmt.items() if is_ms(f, v, r, kernel, ordering) and r.get("sh") and num(r["GBps"]) is not None)
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], style, label="%s kernel, %s" % (kernel, ordering), ms=4)
            for fmt, color in (("aijcusparse", "#1f77b4"), ("sellcuda", "#ff7f0e"), ("aij", "#999999")):
                r = p.one(fmt)
                if r is not None and num(r["GBps"]) is not None:
                    ax.axhline(num(r["GBps"]), color=color, ls=":", label=fmt)
            cp = p.copy.get("device") or p.copy.get("host")
            if cp:
                ax.axhline(cp, color="k", ls="--", lw=0.8, label="copy")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("slice height")
            ax.set_ylabel("GB/s")
            ax.set_title("%s (%s rows)" % (p.name, p.n), fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6)
        for ax in list(axes.flat)[len(sw):]:
            ax.axis("off")
        fig.suptitle("MATMODSELL slice-height sweep\n" + sub, fontsize=9)
        fig.tight_layout()
        fn = os.path.join(outdir, prefix + "_slice_height.png")
        fig.savefig(fn, dpi=120)
        plt.close(fig)
        written.append(fn)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CSV file(s) written by bench/spmv -csv")
    ap.add_argument("--outdir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs"), help="where the PNG files go (default: docs/)")
    ap.add_argument("--prefix", default="spmv", help="file name prefix of the plots (default: spmv)")
    ap.add_argument("--label", default="", help="extra line in the plot titles (default: marks CPU runs as smoke runs)")
    ap.add_argument("--summary-only", action="store_true", help="print the summary table, no plots")
    a = ap.parse_args()
    probs = group(read_rows(a.csv))
    if not probs:
        print("no rows in %s" % ", ".join(a.csv), file=sys.stderr)
        return 1
    if not a.summary_only:
        for fn in plots(probs, a.outdir, a.prefix, smoke_label(probs, a.label)):
            print("wrote %s" % fn)
    return 0 if summary(probs) else 2


if __name__ == "__main__":
    sys.exit(main())
