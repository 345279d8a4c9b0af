#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/report.py - merge, summarise, tabulate and plot gvirtio benchmark runs.

Standard library only. Used by bench/run.sh:

  report.py merge WORKDIR OUT.json   merge the per-step Google Benchmark JSON
                                     files listed in WORKDIR/steps.tsv into one
                                     results file, with a "summary" section
  report.py table RESULTS.json       print the markdown tables (stdout)
  report.py plot RESULTS.json OUT.png   draw the plot with gnuplot

steps.tsv: one line per benchmark process, tab-separated:
  round  kind  exe  json_file
kind is "sel" (selectable build, st rows), "fixed" (fixed-policy builds) or
"xc" (selectable build, cross-core and rte_ring rows).

Every ratio is the median over rounds of per-round ratios: the two numbers of
a ratio were measured close together in time (same round), which is what
makes them comparable on a machine whose speed drifts.
"""
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys

LAYOUTS = ["split", "packed"]
BARRIERS = ["smp", "mandatory"]


def parse_name(name):
    """'xc/split/smp/8/256/manual_time' -> ('xc', 'split', 'smp', 8, 256)."""
    p = name.split("/")
    if len(p) < 5:
        return None
    try:
        return (p[0], p[1], p[2], int(p[3]), int(p[4]))
    except ValueError:
        return None


def ns_per_desc(b):
    """Cross-core rows: median per-iteration ns/desc; others: mean."""
    ips = b.get("items_per_second")
    if b.get("error_occurred") or not ips:
        return None
    return b.get("ns_med") or 1e9 / ips


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratio_median(a, b):
    """a, b: {round: value}. Median of a[r]/b[r] over rounds with both."""
    rs = [a[r] / b[r] for r in a if r in b and a[r] and b[r]]
    return (statistics.median(rs), min(rs), max(rs), len(rs)) if rs else None


# ---------------------------------------------------------------- merge


def merge(workdir, out):
    """Raw per-iteration rows of every step (aggregates dropped), one context per exe."""
    runs = []
    contexts = {}
    with open(os.path.join(workdir, "steps.tsv")) as f:
        for line in f:
            if not line.strip():
                continue
            rnd, kind, exe, path = line.rstrip("\n").split("\t")
            try:
                with open(path) as jf:
                    data = json.load(jf)
            except (OSError, ValueError) as e:
                data = {"context": {}, "benchmarks": [], "load_error": str(e)}
            contexts.setdefault(exe, data.get("context", {}))
            runs.append({"round": int(rnd), "kind": kind, "exe": exe,
                         "benchmarks": [b for b in data.get("benchmarks", [])
                                        if b.get("run_type", "iteration") == "iteration"],
                         **({"load_error": data["load_error"]} if "load_error" in data else {})})
    meta = {}
    meta_path = os.path.join(workdir, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
    res = {"schema": "gvirtio-bench/1", "meta": meta, "contexts": contexts, "runs": runs}
    res["summary"] = summarise(runs)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f, separators=(",", ":"))
    os.replace(tmp, out)
    return res


def summarise(runs):
    # Values per (row, round); a row run with --benchmark_repetitions gives
    # several, and the median of them is the row's value for that round.
    acc = {}  # (cls, key, round) -> [ns]; cls: sel | fixed | rte
    clean = {}  # key -> [share of clean iterations per round] (xc, rte)
    cpu_share = []  # st rows: CPU time / wall time
    errors = []
    for run in runs:
        if "load_error" in run:
            errors.append("%s round %d: %s" % (run["exe"], run["round"], run["load_error"]))
        for b in run["benchmarks"]:
            if b.get("run_type", "iteration") != "iteration":
                continue
            key = parse_name(b.get("run_name", b.get("name", "")))
            if not key:
                continue
            ns = ns_per_desc(b)
            if ns is None:
                errors.append("%s round %d %s: %s" % (run["exe"], run["round"], b.get("name"),
                                                      b.get("error_message", "no rate")))
                continue
            cls = "rte" if key[0] == "rte" else ("fixed" if run["kind"] == "fixed" else "sel")
            acc.setdefault((cls, key, run["round"]), []).append(ns)
            if "clean" in b:
                clean.setdefault(key, []).append(b["clean"])
            if key[0] == "st" and b.get("real_time"):
                cpu_share.append(b["cpu_time"] / b["real_time"])
    sel, fixed, rte = {}, {}, {}  # key -> {round: ns}; rte keyed by (burst, ring)
    for (cls, key, rnd), vals in acc.items():
        if cls == "rte":
            rte.setdefault((key[3], key[4]), {})[rnd] = median(vals)
        else:
            (fixed if cls == "fixed" else sel).setdefault(key, {})[rnd] = median(vals)

    order = {"st": 0, "xc": 1}
    keys = sorted(sel, key=lambda k: (order.get(k[0], 9), k[4], k[3],
                                      LAYOUTS.index(k[1]) if k[1] in LAYOUTS else 9,
                                      BARRIERS.index(k[2]) if k[2] in BARRIERS else 9))
    rows = []
    for k in keys:
        vals = list(sel[k].values())
        med = median(vals)
        row = {"case": k[0], "layout": k[1], "barrier": k[2], "burst": k[3], "ring": k[4],
               "rounds": len(vals), "ns_per_desc": med,
               "mdesc_per_s": 1e3 / med if med else None,
               "spread_pct": 100.0 * (max(vals) - min(vals)) / med if med else None}
        if k[2] == "mandatory":
            smp = sel.get((k[0], k[1], "smp", k[3], k[4]))
            r = ratio_median(sel[k], smp) if smp else None
            row["vs_smp"] = r[0] if r else None
        if k in clean:
            row["clean"] = median(clean[k])
        if k[0] == "xc":
            ref = rte.get((k[3], k[4]))
            row["rte_ns_per_desc"] = median(ref.values()) if ref else None
            r = ratio_median(sel[k], ref) if ref else None
            row["vs_rte"] = r[0] if r else None
        rows.append(row)

    select = []
    for k in keys:
        if k not in fixed:
            continue
        r = ratio_median(sel[k], fixed[k])
        select.append({"layout": k[1], "barrier": k[2], "burst": k[3], "ring": k[4],
                       "selectable_ns": median(sel[k].values()),
                       "fixed_ns": median(fixed[k].values()),
                       "ratio": r[0] if r else None, "ratio_min": r[1] if r else None,
                       "ratio_max": r[2] if r else None, "pairs": r[3] if r else 0})

    rte_rows = [{"burst": k[0], "ring": k[1], "ns_per_desc": median(v.values()),
                 "rounds": len(v), "clean": median(clean.get(("rte", "-", "-", k[0], k[1]), []))}
                for k, v in sorted(rte.items(), key=lambda kv: (kv[0][1], kv[0][0]))]
    return {"rows": rows, "selectability": select, "rte": rte_rows, "errors": errors,
            "st_cpu_share": median(cpu_share)}


# ---------------------------------------------------------------- table


def fmt(v, spec="%.2f", none="-"):
    return none if v is None else spec % v


def table(res, out=sys.stdout):
    s = res["summary"]
    meta = res.get("meta", {})
    w = out.write
    if meta:
        w("gvirtio benchmarks %s: %s rounds; st: %s x %ss per row; xc: min_time %ss, "
          "%s descriptors per run; CPUs %s%s\n\n" % (
              meta.get("timestamp", "?"), meta.get("rounds", "?"), meta.get("st_reps", 1),
              meta.get("min_time", "?"), meta.get("xc_min_time", "?"), meta.get("xc_total", "?"),
              meta.get("cpus", "?"), ", QUICK" if meta.get("quick") else ""))
    w("| case | layout | barrier | burst | ring | ns/desc | Mdesc/s | spread | "
      "mand/smp | rte ns/desc | vs rte |\n")
    w("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
    for r in s["rows"]:
        mark = " *" if r.get("clean") is not None and r["clean"] < 0.5 else ""
        w("| %s | %s | %s | %d | %d | %s%s | %s | %s | %s | %s | %s |\n" % (
            r["case"], r["layout"], r["barrier"], r["burst"], r["ring"],
            fmt(r["ns_per_desc"]), mark, fmt(r["mdesc_per_s"]), fmt(r["spread_pct"], "%.0f%%"),
            fmt(r.get("vs_smp"), "%.2fx"), fmt(r.get("rte_ns_per_desc")),
            fmt(r.get("vs_rte"), "%.2fx")))
    w("\nns/desc: median over rounds; spread: (max-min)/median over rounds; mand/smp and vs rte:\n"
      "median over rounds of the per-round ratio (the rte_ring reference runs right before\n"
      "the xc rows of the same burst/ring). st = single thread, in thread CPU time; xc =\n"
      "driver and device on two CPUs, median of the clean iterations (both threads on\n"
      "their CPU >= 90% of the time); rte = DPDK rte_ring SPSC round trip between the\n"
      "same CPUs. * = under half the iterations were clean: another process shared the\n"
      "CPUs, the number is not the ring's.\n")

    if s["selectability"]:
        w("\nCost of the selectable barrier policy (single thread, same rows linked against\n"
          "the core hard-wired to one policy; A/B alternated per round):\n\n")
        w("| layout | barrier | burst | ring | selectable ns/desc | fixed ns/desc | "
          "selectable/fixed | min..max | pairs |\n")
        w("|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
        for r in s["selectability"]:
            w("| %s | %s | %d | %d | %s | %s | %s | %s..%s | %d |\n" % (
                r["layout"], r["barrier"], r["burst"], r["ring"], fmt(r["selectable_ns"]),
                fmt(r["fixed_ns"]), fmt(r["ratio"], "%.3f"), fmt(r["ratio_min"], "%.3f"),
                fmt(r["ratio_max"], "%.3f"), r["pairs"]))

    w("\nChecks:\n")
    for line in checks(s):
        w("- %s\n" % line)
    if s["errors"]:
        w("\nErrors (%d):\n" % len(s["errors"]))
        for e in s["errors"][:20]:
            w("- %s\n" % e)


def checks(s):
    out = []
    for case, label in (("st", "single thread"), ("xc", "cross-core")):
        rs = [r["vs_smp"] for r in s["rows"] if r["case"] == case and r.get("vs_smp")]
        if rs:
            out.append("%s: mandatory slower than smp in %d/%d rows, geomean mand/smp %.2fx" % (
                label, sum(1 for x in rs if x > 1.0), len(rs), geomean(rs)))
    rs = [r["vs_rte"] for r in s["rows"] if r.get("vs_rte")]
    if rs:
        smp = [r["vs_rte"] for r in s["rows"] if r.get("vs_rte") and r["barrier"] == "smp"]
        out.append("cross-core vs rte_ring: geomean %.2fx (smp rows %.2fx), range %.2fx..%.2fx" % (
            geomean(rs), geomean(smp) if smp else float("nan"), min(rs), max(rs)))
    rs = [r["ratio"] for r in s["selectability"] if r["ratio"]]
    if rs:
        within = sum(1 for x in rs if abs(x - 1.0) <= 0.05)
        out.append("selectable/fixed: geomean %.3f, %d/%d rows within 5%%, worst %.3f" % (
            geomean(rs), within, len(rs), max(rs, key=lambda x: abs(x - 1.0))))
    share = s.get("st_cpu_share")
    if share is not None and share < 0.9:
        out.append("busy machine: the single-thread rows got %.0f%% of a CPU (median CPU/wall "
                   "time); their numbers are CPU time, but caches are shared with the other "
                   "load" % (100 * share))
    cl = [r["clean"] for r in s["rows"] if r.get("clean") is not None]
    if cl and min(cl) < 0.5:
        out.append("cross-core: %d/%d rows with under half of the iterations clean (a thread "
                   "lost its CPU); rerun on a quiet machine" % (sum(1 for x in cl if x < 0.5), len(cl)))
    noisy = [r for r in s["rows"] if r["spread_pct"] and r["spread_pct"] > 30 and r["rounds"] > 1]
    if noisy:
        out.append("noisy: %d rows spread over 30%% between rounds (machine speed drift; "
                   "trust the ratios more than the absolute numbers)" % len(noisy))
    return out


# ---------------------------------------------------------------- plot


def plot(res, png):
    if not shutil.which("gnuplot"):
        sys.stderr.write("report.py: gnuplot not found, no plot\n")
        return 1
    s = res["summary"]
    bursts = sorted({r["burst"] for r in s["rows"]})
    rings = sorted({r["ring"] for r in s["rows"]})
    xpos = {b: i for i, b in enumerate(bursts)}
    xtics = "(" + ", ".join('"%d" %d' % (b, i) for b, i in xpos.items()) + ")"
    blocks = []
    panels = []

    def block(name, pts):
        blocks.append("$%s << EOD\n%s\nEOD\n" % (name, "\n".join("%d %g" % p for p in pts) or "0 NaN"))

    colors = {"split/smp": "#1f77b4", "split/mandatory": "#aec7e8",
              "packed/smp": "#d62728", "packed/mandatory": "#ff9896"}
    for case, title in (("st", "single thread"), ("xc", "cross-core")):
        for ring in rings:
            series = []
            for lay in LAYOUTS:
                for bar in BARRIERS:
                    name = "%s_%s_%s_%d" % (case, lay, bar, ring)
                    pts = [(xpos[r["burst"]], r["ns_per_desc"]) for r in s["rows"]
                           if (r["case"], r["layout"], r["barrier"], r["ring"]) == (case, lay, bar, ring)
                           and r["ns_per_desc"]]
                    block(name, pts)
                    series.append("$%s using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%s/%s'"
                                  % (name, colors[lay + "/" + bar], lay, bar))
            if case == "xc":
                name = "rte_%d" % ring
                block(name, [(xpos[r["burst"]], r["ns_per_desc"]) for r in s["rte"]
                             if r["ring"] == ring and r["burst"] in xpos and r["ns_per_desc"]])
                series.append("$%s using 1:2 with linespoints lw 2 dt 2 pt 5 lc rgb 'black' "
                              "title 'rte\\_ring SPSC'" % name)
            if case == "st":
                for bar in BARRIERS:
                    for lay in LAYOUTS:
                        name = "fixed_%s_%s_%d" % (lay, bar, ring)
                        block(name, [(xpos[r["burst"]], r["fixed_ns"]) for r in s["selectability"]
                                     if (r["layout"], r["barrier"], r["ring"]) == (lay, bar, ring)
                                     and r["fixed_ns"]])
                        series.append("$%s using 1:2 with points pt 6 ps 1.5 lc rgb '%s' "
                                      "title '%s/%s fixed'" % (name, colors[lay + "/" + bar], lay, bar))
            panels.append("set title '%s, ring %d: ns per descriptor (median)'\nplot %s\n"
                          % (title, ring, ", \\\n  ".join(series)))
    meta = res.get("meta", {})
    script = ["set terminal pngcairo size 1400,1000 font ',10'" if has_pngcairo() else
              "set terminal png size 1400,1000",
              "set output '%s'" % png.replace("'", "''")]
    script += blocks
    script += ["set multiplot layout 2,%d title 'gvirtio virtqueue core  %s'"
               % (len(rings), meta.get("timestamp", "")),
               "set logscale y", "set grid", "set key top right font ',8'",
               "set xtics %s" % xtics, "set xrange [-0.3:%f]" % (len(bursts) - 0.7),
               "set xlabel 'burst'", "set ylabel 'ns/desc'"]
    script += panels
    script += ["unset multiplot"]
    p = subprocess.run(["gnuplot"], input="\n".join(script), text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.stderr.write("report.py: gnuplot failed:\n%s" % p.stderr)
    return p.returncode


def has_pngcairo():
    try:
        p = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=10)
        return "pngcairo" in p.stdout
    except (OSError, subprocess.SubprocessError):
        return False


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `report.py table ... | head`
    if len(argv) >= 4 and argv[1] == "merge":
        merge(argv[2], argv[3])
        return 0
    if len(argv) >= 3 and argv[1] == "table":
        with open(argv[2]) as f:
            table(json.load(f))
        return 0
    if len(argv) >= 4 and argv[1] == "plot":
        with open(argv[2]) as f:
            return plot(json.load(f), argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
