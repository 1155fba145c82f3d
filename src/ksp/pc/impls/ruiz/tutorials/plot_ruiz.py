#!/usr/bin/env python3
"""Plot the CG convergence histories written by tutorials/ex1 (-csv FILE) like figure 5.1 of Wikberg (2024):
squared residual norm of the original system against time in microseconds, one curve per preconditioner.

    python3 plot_ruiz.py history.csv [more.csv ...] -o docs/figures/ruiz_history.png [--logx] [--every 100]

--every K keeps every K-th iteration (the paper sampled every 100th). The CSV lines are
pc,iteration,time_us,rnorm; lines starting with '#' (setup times) are reported, not plotted.
Needs matplotlib.
"""
import argparse
import csv
import sys


def read(path):
    hist, setup = {}, {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                parts = line[1:].split()
                if len(parts) == 3 and parts[1] == 'setup_us':
                    setup[parts[0]] = float(parts[2])
                continue
            if line.startswith('pc,'):
                continue
            row = next(csv.reader([line]))
            if len(row) != 4:
                continue
            pc, it, t, r = row[0], int(row[1]), float(row[2]), float(row[3])
            hist.setdefault(pc, []).append((it, t, r))
    return hist, setup


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('csv', nargs='+')
    ap.add_argument('-o', '--output', default='ruiz_history.png')
    ap.add_argument('--logx', action='store_true')
    ap.add_argument('--every', type=int, default=1)
    ap.add_argument('--title', default=None)
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit('plot_ruiz.py needs matplotlib (pip install matplotlib)')

    fig, axes = plt.subplots(1, len(args.csv), figsize=(6 * len(args.csv), 4.5), squeeze=False)
    for ax, path in zip(axes[0], args.csv):
        hist, setup = read(path)
        for pc, pts in hist.items():
            pts = [p for p in pts if p[0] % args.every == 0 or p is pts[-1]]
            ax.semilogy([p[1] for p in pts], [p[2] ** 2 for p in pts], label=f'CG + {pc} ({pts[-1][0]} its)')
            if pc in setup:
                print(f'{path}: {pc}: setup {setup[pc]:.1f} us, {pts[-1][0]} iterations in {pts[-1][1]:.1f} us')
        if args.logx:
            ax.set_xscale('log')
        ax.set_xlabel('time (us)')
        ax.set_ylabel('squared residual norm $r^T r$')
        ax.set_title(args.title or path)
        ax.grid(True, which='both', alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.output, dpi=150)
    print('wrote', args.output)


if __name__ == '__main__':
    main()
