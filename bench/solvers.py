#!/usr/bin/env python3
"""bench/solvers.py - the solver benchmark: solver configurations x problems, one command.

Runs every enabled solver configuration of bench/solvers.json that applies to a problem (by its class:
spd, nonsym, block) on every problem, through the problem suite's driver
(examples/problems/problems: one process per problem, all its configurations in that process with
their own options prefixes, -repeat repetitions each), and writes into the output directory:

  solvers.csv           one row per measured run (problem, solver, repetition, iterations, reason,
                        true relative residual, assembly / setup / solve time, time per iteration,
                        device memory)
  solvers_summary.csv   one row per problem and solver: medians and min / max over the repetitions
  solvers.txt           the tables (text), with the device, date and command
  solvers_<problem>.png relative residual against iterations and against time, one line per solver
  solvers_overview.png  assembly + setup + solve time of every solver relative to the class's reference solver
  hist/                 the residual histories (CSV: iteration, time, norm, relative norm)
  solvers-run.log       everything the driver printed; solvers_meta.json: command, device, date

Usage:
  python3 bench/solvers.py                       # full run (GPU sizes and types), output in docs/solvers
  python3 bench/solvers.py --build build-cuda --out $OUT/solvers     # the lead's GPU run
  python3 bench/solvers.py --small --out /tmp/s  # CPU smoke run: small sizes, host matrix types
  python3 bench/solvers.py --list                # the problems and solvers
Options: --problems / --solvers (comma-separated globs), --reps, --np / --mpiexec, --time-limit,
--cpu (host types at full size), --no-plots, --deterministic (print no times: the harness test).

A configuration that fails (an unknown type, a PETSc error) is recorded as an error with PETSc's
message, and the problem's remaining configurations run in a new process. Once --time-limit seconds
have passed, the remaining problems are skipped (and listed as skipped).
"""
import argparse
import csv
import datetime
import fnmatch
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIVER_REL = os.path.join("bin", "examples", "problems", "problems")


def parse_args(argv):
    ap = argparse.ArgumentParser(description="Solver benchmark: solver configurations x problems (bench/solvers.json).")
    ap.add_argument("--config", default=os.path.join(TOP, "bench", "solvers.json"), help="configuration file (JSON)")
    ap.add_argument("--out", default=os.path.join(TOP, "docs", "solvers"), help="output directory (default docs/solvers)")
    ap.add_argument("--build", default=os.path.join(TOP, "build"), help="build directory of the plugin (the driver is BUILD/%s)" % DRIVER_REL)
    ap.add_argument("--driver", help="the driver executable (default: from --build; built with make when missing or older than its sources)")
    ap.add_argument("--no-make", action="store_true", help="do not build the driver")
    ap.add_argument("--small", action="store_true", help="CPU smoke run: the problems' small sizes, host matrix types, %s" % "small_repetitions repetitions")
    ap.add_argument("--cpu", action="store_true", help="host matrix types (cpu_substitutions) at the full sizes")
    ap.add_argument("--problems", help="comma-separated globs of problem names")
    ap.add_argument("--solvers", help="comma-separated globs of solver names (disabled ones included when named)")
    ap.add_argument("--reps", type=int, help="repetitions of every run (overrides the configuration)")
    ap.add_argument("--np", type=int, default=1, help="MPI processes (default 1: no mpiexec)")
    ap.add_argument("--mpiexec", default="mpiexec", help="MPI launcher for --np > 1 (default mpiexec)")
    ap.add_argument("--time-limit", type=float, help="seconds after which the remaining problems are skipped")
    ap.add_argument("--timeout", type=float, default=600, help="limit of one driver process, seconds")
    ap.add_argument("--no-plots", action="store_true", help="write no plots")
    ap.add_argument("--deterministic", action="store_true", help="print tables without times (for tests)")
    ap.add_argument("--list", action="store_true", help="list the problems and solvers and exit")
    return ap.parse_args(argv)


def globs_match(name, globs):
    return globs is None or any(fnmatch.fnmatch(name, g.strip()) for g in globs.split(",") if g.strip())


def load_config(path):
    with open(path) as f:
        cfg = json.load(f)
    for key in ("problems", "solvers"):
        if key not in cfg:
            sys.exit("%s: no '%s' list" % (path, key))
        names = [e["name"] for e in cfg[key]]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            sys.exit("%s: duplicate %s names: %s" % (path, key, ", ".join(sorted(dup))))
    return cfg


def cpu_args(args, subs):
    for old, new in subs:
        args = args.replace(old, new)
    return args


def prefixed(prefix, argstr):
    """Put an options prefix on every option of argstr: '-ksp_type cg' -> '-c0_ksp_type cg'."""
    out = []
    for tok in shlex.split(argstr):
        if re.match(r"^-[A-Za-z]", tok):
            out.append("-" + prefix + tok[1:])
        else:
            out.append(tok)
    return out


def driver_path(opts):
    if opts.driver:
        return os.path.abspath(opts.driver)
    return os.path.join(os.path.abspath(opts.build), DRIVER_REL)


def ensure_driver(opts, drv):
    srcs = [os.path.join(TOP, "examples", "problems", f) for f in ("problems.c", "problems.h")]
    srcs += [os.path.join(TOP, "examples", "fvm", "fvmmesh.h"), os.path.join(TOP, "examples", "problems", "mmread.h")]
    stale = not os.path.exists(drv) or any(os.path.exists(s) and os.path.getmtime(s) > os.path.getmtime(drv) for s in srcs)
    if stale and not opts.no_make and not opts.driver:
        cmd = ["make", "-C", TOP, "BUILD=" + os.path.abspath(opts.build), drv]
        print("[solvers] building the driver: %s" % " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=False, stdout=sys.stderr, stderr=sys.stderr)
    if not os.path.exists(drv):
        sys.exit("[solvers] no driver %s: build it with  make %s  (or give --driver)" % (drv, drv))


def device_description():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        if r.returncode == 0 and r.stdout.strip():
            return "GPU: " + r.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "CPU: %s (%d cores), no GPU" % (model, os.cpu_count() or 0)


def git_commit():
    try:
        r = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=30)
        if r.returncode == 0:
            return r.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


KV = re.compile(r"(\w+)=(\S+)")


def parse_kv(line):
    return dict(KV.findall(line))


def petsc_error(text):
    """The message line of the first PETSc error in text (or the last lines)."""
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if "--- Error Message ---" in l:
            msgs = []
            for m in lines[i + 1:i + 4]:
                m = re.sub(r"^\[\d+\]PETSC ERROR: ", "", m).strip()
                if m.startswith("See https") or m.startswith("WARNING! There are unused") or m.startswith("Option left"):
                    break
                msgs.append(m)
            return " / ".join(x for x in msgs if x)[:300]
    tail = [l for l in lines if l.strip()][-3:]
    return " / ".join(tail)[:300] if tail else "no output"


def run_problem(opts, cfg, drv, prob, solvers, outdir, log, remaining_time):
    """Run the solvers on one problem; returns (problem info, result records, error records)."""
    small = opts.small
    pargs = prob["small"] if small else prob["args"]
    common = cfg.get("common_solver_args", "")
    reps_default = opts.reps if opts.reps else (cfg.get("small_repetitions", 2) if small else cfg.get("repetitions", 3))
    info, records, errors = {}, [], {}
    todo = list(solvers)
    histdir = os.path.join(outdir, "hist")
    os.makedirs(histdir, exist_ok=True)
    first = True
    while todo:
        if not first and remaining_time() <= 0:
            for s in todo:
                errors[s["name"]] = "skipped (time limit)"
            break
        first = False
        names = {}
        cmd = [] if opts.np == 1 else shlex.split(opts.mpiexec) + ["-n", str(opts.np)]
        cmd += [drv] + shlex.split(pargs) + ["-solve", "-bench", "-timings", "-residual_history", os.path.join(histdir, prob["name"])]
        cmd += ["-warmup", str(cfg.get("warmup", 0)), "-repeat", str(reps_default)]
        cfgnames = []
        for s in todo:
            pre = "c%d" % s["index"]
            names[pre] = s
            cfgnames.append(pre)
            sargs = " ".join(x for x in (common, s["args"], prob.get("solver_args", "")) if x)
            if small or opts.cpu:
                sargs = cpu_args(sargs, cfg.get("cpu_substitutions", []))
            cmd += prefixed(pre + "_", sargs)
            if not opts.reps and not small:
                if "repetitions" in s:
                    cmd += ["-%s_repeat" % pre, str(s["repetitions"])]
                if "warmup" in s:
                    cmd += ["-%s_warmup" % pre, str(s["warmup"])]
        cmd += ["-configs", ",".join(cfgnames)]
        log.write("\n$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        log.flush()
        t0 = time.time()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=min(opts.timeout, max(30.0, remaining_time() + 40)))
            out, rc = r.stdout + r.stderr, r.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or "") if isinstance(e.stdout, str) else (e.stdout or b"").decode(errors="replace")
            out += "\n[solvers] timed out after %.0f s (time limit)\n" % (time.time() - t0)
            rc = -1
        log.write(out)
        log.flush()
        done, current = set(), None
        for line in out.splitlines():
            if line.startswith("#problem "):
                info = parse_kv(line)
            elif line.startswith("#begin "):
                current = parse_kv(line).get("config")
            elif line.startswith("#done "):
                done.add(parse_kv(line).get("config"))
                current = None
            elif line.startswith("#result "):
                kv = parse_kv(line)
                s = names.get(kv.get("config"))
                if s is None or kv.get("measured") != "1":
                    continue
                rec = {"problem": prob["name"], "solver": s["name"], "rep": int(kv["rep"]) + 1}
                for k in ("its",):
                    rec[k] = int(kv[k])
                for k in ("relres", "err", "tasm", "tsetup", "tsolve", "devmem_mib"):
                    rec[k] = float(kv[k])
                for k in ("reason", "mattype", "ksptype", "pctype", "norm", "side"):
                    rec[k] = kv.get(k, "")
                rec["per_it_ms"] = 1e3 * rec["tsolve"] / rec["its"] if rec["its"] else float("nan")
                rec["converged"] = rec["reason"].startswith("CONVERGED")
                records.append(rec)
        if rc == 0:
            break
        if not info and not done and current is None:  # the generator itself failed
            for s in todo:
                errors[s["name"]] = "problem generation failed: " + petsc_error(out)
            break
        failed = current if current is not None else next((c for c in cfgnames if c not in done), None)
        if failed is not None:
            errors[names[failed]["name"]] = "timed out" if rc == -1 else petsc_error(out)
            records = [x for x in records if not (x["solver"] == names[failed]["name"])]
        todo = [s for s in todo if "c%d" % s["index"] not in done and "c%d" % s["index"] != failed]
    # histories: hist/<problem>_c<i>.csv -> hist/<problem>__<solver>.csv
    for s in solvers:
        src = os.path.join(histdir, "%s_c%d.csv" % (prob["name"], s["index"]))
        if os.path.exists(src):
            os.replace(src, os.path.join(histdir, "%s__%s.csv" % (prob["name"], s["name"])))
    return info, records, errors


def med(vals):
    vals = [v for v in vals if v == v]
    return statistics.median(vals) if vals else float("nan")


def summarize(records, problems, solvers_for, errors, skipped, cfg):
    """One row per (problem, solver): medians and spreads over the repetitions."""
    rows = []
    for prob in problems:
        for s in solvers_for.get(prob["name"], []):
            rs = [r for r in records if r["problem"] == prob["name"] and r["solver"] == s["name"]]
            row = {"problem": prob["name"], "class": prob["class"], "solver": s["name"], "runs": len(rs)}
            if prob["name"] in skipped:
                row["status"] = "skipped (time limit)"
            elif s["name"] in errors.get(prob["name"], {}):
                row["status"] = "error: " + errors[prob["name"]][s["name"]]
            elif not rs:
                row["status"] = "no result"
            else:
                row["status"] = "converged" if all(r["converged"] for r in rs) else "not converged (%s)" % ",".join(sorted({r["reason"] for r in rs if not r["converged"]}))
            if rs:
                its = [r["its"] for r in rs]
                row["its"] = int(med(its)) if min(its) == max(its) else med(its)
                row["its_min"], row["its_max"] = min(its), max(its)
                row["relres_max"] = max(r["relres"] for r in rs)
                errs = [r["err"] for r in rs if r["err"] >= 0]
                row["err_max"] = max(errs) if errs else ""
                for k in ("tasm", "tsetup", "tsolve", "per_it_ms"):
                    v = [r[k] for r in rs]
                    row[k + "_median"], row[k + "_min"], row[k + "_max"] = med(v), min(v), max(v)
                tot = [r["tasm"] + r["tsetup"] + r["tsolve"] for r in rs]
                row["total_median"], row["total_min"], row["total_max"] = med(tot), min(tot), max(tot)
                mem = [r["devmem_mib"] for r in rs if r["devmem_mib"] >= 0]
                row["devmem_mib_max"] = max(mem) if mem else ""
                row["mattype"], row["ksptype"], row["pctype"] = rs[0]["mattype"], rs[0]["ksptype"], rs[0]["pctype"]
            rows.append(row)
    # ratio to the class's reference solver (medians of assembly + setup + solve); a list of reference solvers:
    # the fastest of them that converged on the problem
    ref = cfg.get("reference", {})
    for row in rows:
        refs = ref.get(row["class"])
        refs = refs if isinstance(refs, list) else [refs]
        cands = [x for x in rows if x["problem"] == row["problem"] and x["solver"] in refs and x.get("total_median") and x["status"] == "converged"]
        rr = min(cands, key=lambda x: x["total_median"]) if cands else None
        row["ref_solver"] = rr["solver"] if rr else ""
        if rr and row.get("total_median") and row["status"] == "converged":
            row["vs_ref"] = row["total_median"] / rr["total_median"]
        else:
            row["vs_ref"] = ""
    return rows


def ref_text(cfg):
    """The reference solvers of each class, for the headers."""
    out = []
    for k, v in cfg.get("reference", {}).items():
        out.append("%s: %s" % (k, ("the fastest converged of " + ", ".join(v)) if isinstance(v, list) else v))
    return "; ".join(out)


def fmt_t(row, k):
    if k + "_median" not in row:
        return "-"
    m, lo, hi = row[k + "_median"], row[k + "_min"], row[k + "_max"]
    if row["runs"] > 1:
        return "%.3g (%.3g-%.3g)" % (m, lo, hi)
    return "%.3g" % m


def table_text(rows, problems, infos, deterministic, cfg, notes=True):
    out = []
    for prob in problems:
        prs = [r for r in rows if r["problem"] == prob["name"]]
        if not prs:
            continue
        if all(r["status"] == "skipped (time limit)" for r in prs):
            out.append("")
            out.append("== %s (%s): skipped (time limit)" % (prob["name"], prob["class"]))
            continue
        info = infos.get(prob["name"], {})
        desc = "%s rows, %s nonzeros, block size %s" % (info.get("rows", "?"), info.get("nnz", "?"), info.get("bs", "?"))
        out.append("")
        out.append("== %s (%s): %s" % (prob["name"], prob["class"], desc))
        if notes and prob.get("note"):
            out.append("   " + prob["note"])
        if deterministic:
            hdr = "%-28s %8s  %-7s  %s" % ("solver", "its", "||r||/||b|| <= 2 rtol", "status")
            out.append(hdr)
            for r in prs:
                ok = ""
                if "relres_max" in r:
                    rtol = 1e-5 if "1e-5" in prob.get("solver_args", "") else 1e-8
                    ok = "yes" if r["relres_max"] <= 2 * rtol else "no"
                its = "-" if "its" not in r else ("%d" % r["its"] if r["its_min"] == r["its_max"] else "%d-%d" % (r["its_min"], r["its_max"]))
                status = r["status"] if not r["status"].startswith("error") else "error"
                out.append("%-28s %8s  %-22s  %s" % (r["solver"], its, ok, status))
            continue
        hdr = "%-28s %6s %9s %25s %25s %25s %8s %25s %7s %8s  %s" % ("solver", "its", "relres", "assembly s (min-max)", "setup s (min-max)", "solve s (min-max)", "ms/it", "total s (min-max)", "vs ref", "dev MiB", "status")
        out.append(hdr)
        for r in prs:
            its = "-" if "its" not in r else ("%d" % r["its"] if r["its_min"] == r["its_max"] else "%d-%d" % (r["its_min"], r["its_max"]))
            rel = "%.1e" % r["relres_max"] if "relres_max" in r else "-"
            vs = "%.2f" % r["vs_ref"] if r.get("vs_ref") != "" else "-"
            mem = "%.0f" % r["devmem_mib_max"] if r.get("devmem_mib_max", "") != "" else "-"
            perit = "%.3g" % r["per_it_ms_median"] if "per_it_ms_median" in r else "-"
            out.append("%-28s %6s %9s %25s %25s %25s %8s %25s %7s %8s  %s" % (r["solver"], its, rel, fmt_t(r, "tasm"), fmt_t(r, "tsetup"), fmt_t(r, "tsolve"), perit, fmt_t(r, "total"), vs, mem, r["status"]))
        refs = sorted({r["ref_solver"] for r in prs if r.get("ref_solver")})
        if refs and isinstance(cfg.get("reference", {}).get(prob["class"]), list):
            out.append("   vs ref: against %s, the fastest reference solver that converged" % ", ".join(refs))
    return "\n".join(out) + "\n"


def read_history(path):
    its, ts, rs = [], [], []
    with open(path) as f:
        for row in csv.DictReader(f):
            its.append(int(row["iteration"]))
            ts.append(float(row["time_s"]))
            rs.append(float(row["relative_residual"]))
    return its, ts, rs


def plots(outdir, problems, solvers_for, rows, infos, title_suffix):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("[solvers] matplotlib is not installed: no plots (pip install matplotlib)", file=sys.stderr)
        return []
    written = []
    for prob in problems:
        series = []
        for s in solvers_for.get(prob["name"], []):
            path = os.path.join(outdir, "hist", "%s__%s.csv" % (prob["name"], s["name"]))
            if os.path.exists(path):
                its, ts, rs = read_history(path)
                if its:
                    series.append((s["name"], its, ts, rs))
        if not series:
            continue
        fig, ax = plt.subplots(1, 2, figsize=(13, 4.8))
        colours = plt.get_cmap("tab10").colors
        for k, (name, its, ts, rs) in enumerate(series):
            style = dict(label=name, lw=1.2, color=colours[k % 10], ls="-" if k < 10 else "--")
            ax[0].semilogy(its, rs, **style)
            ax[1].semilogy(ts, rs, **style)
        info = infos.get(prob["name"], {})
        ax[0].set_xlabel("iteration")
        ax[1].set_xlabel("time in KSPSolve (s)")
        for a in ax:
            a.set_ylabel("||r|| / ||b||")
            a.grid(True, which="both", alpha=0.3)
        fig.suptitle("%s: %s rows, %s nonzeros%s" % (prob["name"], info.get("rows", "?"), info.get("nnz", "?"), title_suffix), fontsize=10)
        ax[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
        fig.tight_layout()
        name = os.path.join(outdir, "solvers_%s.png" % prob["name"])
        fig.savefig(name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(name)
    # overview: the total time relative to the reference solver, per problem
    have = [r for r in rows if r.get("vs_ref") not in ("", None)]
    if have:
        probs = [p["name"] for p in problems if any(r["problem"] == p["name"] for r in have)]
        names = []
        for r in have:
            if r["solver"] not in names:
                names.append(r["solver"])
        fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(probs) + 4), 4.8))
        w = 0.8 / max(1, len(names))
        colours = plt.get_cmap("tab20").colors
        for k, n in enumerate(names):
            xs, ys = [], []
            for i, p in enumerate(probs):
                r = next((x for x in have if x["problem"] == p and x["solver"] == n), None)
                if r:
                    xs.append(i + (k - (len(names) - 1) / 2) * w)
                    ys.append(r["vs_ref"])
            ax.bar(xs, ys, width=w, label=n, color=colours[k % len(colours)])
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(probs)))
        ax.set_xticklabels(probs, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("total time / reference solver's")
        ax.set_title("median assembly + setup + solve time relative to the class's reference solver%s" % title_suffix, fontsize=10)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
        fig.tight_layout()
        name = os.path.join(outdir, "solvers_overview.png")
        fig.savefig(name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(name)
    return written


def write_outputs(opts, cfg, meta, outdir, problems, solvers_for, records, infos, errors, skipped, time_limit, start, final):
    """Write the CSV files, the tables and the meta data (after every problem, so that a run stopped from
    outside keeps what it measured); the plots at the end (final)."""
    meta["elapsed_s"] = round(time.time() - start, 1)
    meta["skipped_problems"] = skipped
    meta["complete"] = final
    problems = [p for p in problems if p["name"] in errors or p["name"] in skipped]  # those run so far
    rows = summarize(records, problems, solvers_for, errors, skipped, cfg)

    fields = ["problem", "solver", "rep", "its", "reason", "converged", "relres", "err", "tasm", "tsetup", "tsolve", "per_it_ms", "devmem_mib", "mattype", "ksptype", "pctype", "norm", "side"]
    with open(os.path.join(outdir, "solvers.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in records:
            w.writerow(r)
    sfields = ["problem", "class", "solver", "status", "runs", "its", "its_min", "its_max", "relres_max", "err_max",
               "tasm_median", "tasm_min", "tasm_max", "tsetup_median", "tsetup_min", "tsetup_max", "tsolve_median", "tsolve_min", "tsolve_max",
               "per_it_ms_median", "per_it_ms_min", "per_it_ms_max", "total_median", "total_min", "total_max", "vs_ref", "ref_solver", "devmem_mib_max", "mattype", "ksptype", "pctype"]
    with open(os.path.join(outdir, "solvers_summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sfields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    head = ["Solver benchmark (bench/solvers.py, %s)" % meta["mode"],
            "device: %s" % meta["device"], "date: %s, commit %s, %d process%s" % (meta["date_utc"], meta["commit"], opts.np, "es" if opts.np > 1 else ""),
            "command: %s" % meta["command"],
            "times in seconds: median (min-max) over the repetitions; assembly = the matrix of the solver's type filled from the",
            "generated rows (MATMODSELL builds its device image here), setup = KSPSetUp + first MatMult (the preconditioner; aijcusparse",
            "and sellcuda copy to the device here), solve = KSPSolve from x = 0 to ||b - A x|| <= rtol ||b||, total = the three;",
            "relres = largest true ||b - A x||/||b||; vs ref = total / the reference solver's total (%s);" % ref_text(cfg),
            "dev MiB = device memory in use after the solve, above the start of the process"]
    if opts.small or opts.cpu:
        head.append("host matrix types: the solver names keep the device types, replaced by %s" % ", ".join("%s -> %s" % (a, b) for a, b in cfg.get("cpu_substitutions", [])))
    if opts.small:
        head.append("small sizes (each problem's 'small' options): the problems' notes give the full sizes")
    if skipped:
        head.append("skipped (time limit %s s): %s" % (time_limit, ", ".join(skipped)))
    text = table_text(rows, problems, infos, False, cfg, notes=not opts.small)
    with open(os.path.join(outdir, "solvers.txt"), "w") as f:
        f.write("\n".join(head) + "\n" + text)
    written = [] if (opts.no_plots or not final) else plots(outdir, problems, solvers_for, rows, infos, " (%s)" % meta["device"].split(",")[0])
    meta["plots"] = [os.path.basename(p) for p in written]
    with open(os.path.join(outdir, "solvers_meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return rows, written, head, text


def main(argv):
    opts = parse_args(argv)
    cfg = load_config(opts.config)
    for i, s in enumerate(cfg["solvers"]):
        s["index"] = i
    problems = [p for p in cfg["problems"] if globs_match(p["name"], opts.problems) and (not opts.small or p.get("small"))]
    solvers = [s for s in cfg["solvers"] if globs_match(s["name"], opts.solvers) and (s.get("enabled", True) or opts.solvers)]
    solvers_for = {p["name"]: [s for s in solvers if p["class"] in s["classes"]] for p in problems}
    if opts.list:
        print("problems (class: args | small):")
        for p in cfg["problems"]:
            print("  %-14s %-7s %s | %s" % (p["name"], p["class"], p["args"], p.get("small", "-")))
        print("solvers (classes: args):")
        for s in cfg["solvers"]:
            print("  %-28s %-18s %s%s" % (s["name"], ",".join(s["classes"]), s["args"], "" if s.get("enabled", True) else "  [disabled]"))
        return 0
    if not problems:
        sys.exit("[solvers] no problem selected")
    drv = driver_path(opts)
    ensure_driver(opts, drv)
    outdir = os.path.abspath(opts.out)
    os.makedirs(outdir, exist_ok=True)
    time_limit = opts.time_limit if opts.time_limit is not None else (None if opts.small else cfg.get("time_limit_s"))
    start = time.time()
    remaining = (lambda: time_limit - (time.time() - start)) if time_limit else (lambda: opts.timeout)
    meta = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(shlex.quote(a) for a in [sys.executable, os.path.relpath(__file__, os.getcwd())] + list(argv)),
        "device": device_description(),
        "commit": git_commit(),
        "driver": drv,
        "config": os.path.abspath(opts.config),
        "np": opts.np,
        "mode": "small (CPU smoke)" if opts.small else ("cpu" if opts.cpu else "full"),
        "petsc_options_env": os.environ.get("PETSC_OPTIONS", ""),
    }
    records, infos, errors, skipped = [], {}, {}, []
    with open(os.path.join(outdir, "solvers-run.log"), "w") as log:
        log.write("# %s\n# %s, %s, commit %s\n" % (meta["command"], meta["date_utc"], meta["device"], meta["commit"]))
        for prob in problems:
            if not solvers_for[prob["name"]]:
                continue
            if time_limit and remaining() <= 0:
                skipped.append(prob["name"])
                continue
            t0 = time.time()
            info, recs, errs = run_problem(opts, cfg, drv, prob, solvers_for[prob["name"]], outdir, log, remaining)
            infos[prob["name"]], errors[prob["name"]] = info, errs
            records += recs
            write_outputs(opts, cfg, meta, outdir, problems, solvers_for, records, infos, errors, skipped, time_limit, start, final=False)
            if not opts.deterministic:
                print("[solvers] %-14s %d runs, %d errors, %.1f s (total %.0f s)" % (prob["name"], len(recs), len(errs), time.time() - t0, time.time() - start), file=sys.stderr)
    rows, written, head, text = write_outputs(opts, cfg, meta, outdir, problems, solvers_for, records, infos, errors, skipped, time_limit, start, final=True)
    problems = [p for p in problems if p["name"] in errors or p["name"] in skipped]
    if opts.deterministic:
        sys.stdout.write(table_text(rows, problems, infos, True, cfg, notes=False).lstrip("\n"))
        nerr = sum(1 for r in rows if r["status"].startswith("error") or r["status"] == "no result")
        print("runs: %d problems, %d problem-solver pairs, %d errors; files: %s" % (len({r["problem"] for r in rows}), len(rows), nerr,
              ", ".join(sorted(f for f in os.listdir(outdir) if f.endswith((".csv", ".txt", ".json", ".log"))))))
    else:
        sys.stdout.write("\n".join(head) + "\n" + text)
        print("\n[solvers] wrote %s (%s, %d plots) in %.0f s" % (outdir, "solvers.csv, solvers_summary.csv, solvers.txt", len(written), meta["elapsed_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
