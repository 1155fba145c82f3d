#!/usr/bin/env python3
"""Plot the smoother histories of bench/bjsmooth.sh like figure 4.2 of paper 000.

Reads OUTDIR/smoother_<problem>_<variant>.csv ('iteration,seconds,rnorm2' every 10th iteration) and draws,
per problem, the relative squared residual ||b - A x||^2 / ||b - A x_0||^2 against the iteration (left) and
against the time (right, log scale: CPU SOR and the GPU smoothers differ by two orders of magnitude), with
SOR's final residual as a horizontal line.

    python3 bench/plot_smoother.py OUTDIR [-o smoother.png]
"""
import argparse
import csv
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    its, secs, rr = [], [], []
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) < 3:
                continue
            its.append(int(row[0]))
            secs.append(float(row[1]))
            rr.append(float(row[2]))
    return its, secs, rr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("-o", "--output", default=None, help="image file (default OUTDIR/smoother.png)")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.outdir, "smoother_*_*.csv")))
    if not files:
        sys.exit("no smoother_*.csv in %s" % args.outdir)
    runs = {}
    for path in files:
        m = re.match(r"smoother_([a-z0-9]+)_(.+)\.csv$", os.path.basename(path))
        if m:
            runs.setdefault(m.group(1), {})[m.group(2)] = read(path)
    problems = sorted(runs)
    fig, axes = plt.subplots(len(problems), 2, figsize=(11, 4 * len(problems)), squeeze=False)
    for row, prob in enumerate(problems):
        variants = runs[prob]
        # the CSVs start after 10 iterations: normalise by the largest first record of the problem's runs
        r0 = max(v[2][0] for v in variants.values() if v[2])
        sor = variants.get("cpu_sor")
        for name, (its, secs, rr) in sorted(variants.items()):
            label = "PETSc SOR, 1 CPU core" if name == "cpu_sor" else "GPU bjsmooth " + name.replace("bjs_", "")
            style = dict(lw=2.0, color="k") if name == "cpu_sor" else dict(lw=1.2)
            rel = [r / r0 for r in rr]
            axes[row][0].semilogy(its, rel, label=label, **style)
            axes[row][1].loglog(secs, rel, label=label, **style)
        if sor and sor[2]:
            for ax in axes[row]:
                ax.axhline(sor[2][-1] / r0, color="k", ls=":", lw=0.8)
        axes[row][0].set_title("%s: residual against outer iterations" % prob)
        axes[row][1].set_title("%s: residual against time (residual every 10th, timed)" % prob)
        axes[row][0].set_xlabel("iteration")
        axes[row][1].set_xlabel("seconds")
        for ax in axes[row]:
            ax.set_ylabel("||r||^2 relative to the largest after 10 its")
            ax.grid(True, which="both", alpha=0.3)
        axes[row][1].legend(fontsize=8)
    fig.tight_layout()
    out = args.output or os.path.join(args.outdir, "smoother.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
