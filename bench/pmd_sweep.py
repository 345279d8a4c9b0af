#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pmd_sweep.py - the ring x burst sweep's report (SWEEP=1
bash bench/pmd_compare.sh; run through `pmd_report.py sweep`): per
direction, layout and driver a ring x burst table of Mpps with, per cell,
whether it is within 10% of the table's best cell ("no throughput cliff"),
the same tables on each cell's best second over its rounds (the machine
changes state within seconds for both drivers: a cliff that belongs to a
setting shows in every second of that cell), who set the pace, the gvirtio/DPDK ratios where both ran, a PNG plot and
the results JSON."""
import os
import shutil
import subprocess
import sys

from pmd_report import (DIRS, fmt, get_meta, header_line, load_jsonl, md_figure_and_raw, pct_fmt,
                        repo_rel, save, summarize)

WITHIN = 0.10  # the "within 10% of the best setting"


def sweep_tables(rows, key="mpps_median"):
    """Per (dir, layout, driver): the cells, the best, the verdicts, on one
    figure per cell: the median over the rounds (mpps_median) or the best
    second of all its rounds (best_mpps)."""
    out = []
    keys = []
    for r in rows:
        for drv in ("gv", "dpdk"):
            k = (r["dir"], r["layout"], drv)
            if k not in keys:
                keys.append(k)
    for d, layout, drv in keys:
        cells = {}
        for r in rows:
            if (r["dir"], r["layout"]) != (d, layout) or not r[drv]["samples"]:
                continue
            cells[(r["ring"], r["burst"])] = r[drv][key]
        if not cells:
            continue
        measured = {k: v for k, v in cells.items() if v is not None}
        best_k = max(measured, key=lambda k: measured[k]) if measured else None
        best = measured[best_k] if best_k else None
        verdict = {k: (v is not None and best is not None and v >= (1 - WITHIN) * best)
                   for k, v in cells.items()}
        out.append({"dir": d, "layout": layout, "driver": drv, "metric": key, "best_mpps": best,
                    "best_ring": best_k[0] if best_k else None,
                    "best_burst": best_k[1] if best_k else None,
                    "cells": [{"ring": k[0], "burst": k[1], "mpps": v, "within_10pct": verdict[k],
                               "vs_best": (v / best - 1) if v is not None and best else None}
                              for k, v in sorted(cells.items())],
                    "within": sum(verdict.values()), "n": len(cells)})
    return out


def table_md(w, t, rows, bursts, rings, drvname, pace_line):
    """One ring x burst table of t (a sweep_tables entry) and, if asked,
    who set the pace per cell."""
    w("%s%s, %s, %s: best %s Mpps (ring %s, burst %s); %d of %d cells within 10%%"
      % ("#### " if pace_line else "##### best second: ", DIRS[t["dir"]], t["layout"],
         drvname[t["driver"]], fmt(t["best_mpps"]), t["best_ring"], t["best_burst"],
         t["within"], t["n"]))
    w("")
    w("| ring \\ burst | " + " | ".join(str(b) for b in bursts) + " |")
    w("| ---: | " + " | ".join("---:" for _ in bursts) + " |")
    cell = {(c["ring"], c["burst"]): c for c in t["cells"]}
    for ring in rings:
        line = []
        for b in bursts:
            c = cell.get((ring, b))
            if c is None:
                line.append("")
            elif c["mpps"] is None:
                line.append("failed")
            elif c["within_10pct"]:
                line.append("%.2f ok" % c["mpps"])
            else:
                line.append("%.2f (%+.0f%%)" % (c["mpps"], 100 * c["vs_best"]))
        w("| %d | %s |" % (ring, " | ".join(line)))
    w("")
    if not pace_line:
        return
    # who set the pace: guest TX, the share the ring took; else the RX burst fill
    pace = {(r["ring"], r["burst"]): (100 * r[t["driver"]]["sent_share_median"]
                                      if r[t["driver"]]["sent_share_median"] is not None
                                      else r[t["driver"]]["burst_fill_pct_median"])
            for r in rows if (r["dir"], r["layout"]) == (t["dir"], t["layout"])}
    if any(v is not None for v in pace.values()):
        w(("Share of the packets txonly offered that the ring took (TX-packets / TX-total; "
           "well below 100%: the ring was full, the back-end set the pace): "
           if t["dir"] == "gtx" else
           "RX burst fill (packets per RX burst over the burst size; near 100%: the driver "
           "set the pace, low: it waited for the back-end): ") + "; ".join(
              "ring %d: %s" % (ring, " ".join(
                  pct_fmt(pace.get((ring, b)))
                  for b in bursts)) for ring in rings) + ".")
        w("")


def sweep_markdown(rows, tables, meta, best_tables=None):
    out = []
    w = out.append
    drvname = {"gv": "gvirtio", "dpdk": "DPDK net_virtio_user"}
    w("### No throughput cliff: ring size x burst size")
    w("")
    w(header_line(meta))
    w("")
    w("Mpps (median over the rounds) on each layout's default path (mergeable RX buffers, "
      "in-order, 64 B frames); ring: --rxd/--txd and queue_size of the driver side; burst: its "
      "--burst (the back-end's stays 32). Per table, each cell is marked ok when it is within "
      "10% of that table's best cell, else with how far below the best it is. "
      "Empty cells: not measured (DPDK runs on the cross through ring 256 / burst 32 unless "
      "SWEEP_DPDK=all).")
    w("")
    bursts = sorted({r["burst"] for r in rows})
    rings = sorted({r["ring"] for r in rows})
    for t in tables:
        table_md(w, t, rows, bursts, rings, drvname, True)
    if best_tables:
        w("#### Best second per cell")
        w("")
        w("The same cells on each one's best second over all its rounds (per-second rates "
          "of the driver side): the machine's state changes within seconds for both drivers, "
          "so a setting's own cliff shows as a low best second, while a slow state only "
          "lowers the median above.")
        w("")
        for t in best_tables:
            table_md(w, t, rows, bursts, rings, drvname, False)
    both = [r for r in rows if r["ratio_median"] is not None]
    if both:
        w("gvirtio / DPDK where both ran (median of the per-round ratios; best second: each "
          "driver's best second over the rounds, and their ratio):")
        w("")
        w("| direction | ring | ring size | burst | gvirtio Mpps | DPDK Mpps | gv/DPDK "
          "| best second gv / DPDK (ratio) |")
        w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in both:
            w("| %s | %s | %d | %d | %s | %s | %s | %s / %s (%s) |" % (
                DIRS[r["dir"]], r["layout"], r["ring"], r["burst"], fmt(r["gv"]["mpps_median"]),
                fmt(r["dpdk"]["mpps_median"]), fmt(r["ratio_median"]), fmt(r["gv"]["best_mpps"]),
                fmt(r["dpdk"]["best_mpps"]), fmt(r.get("ratio_best"))))
        w("")
    paths = sorted({(drvname[drv], r["layout"], r[drv]["rx_path"], r[drv]["tx_path"])
                    for r in rows for drv in ("gv", "dpdk") if r[drv]["samples"]})
    w("Paths taken: " + "; ".join("%s %s: rx %s, tx %s" % p for p in paths) + ".")
    notes = [(r["id"], n) for r in rows for n in r["notes"]]
    if notes:
        w("")
        w("Notes:")
        for rid, n in notes:
            w("- %s %s" % (rid, n))
    md_figure_and_raw(w, meta, "Mpps by ring and burst size, per layout and driver", "Raw results")
    return "\n".join(out)


def sweep_plot(tables, png, gdir, meta):
    """One panel per table: Mpps against burst size, one line per ring."""
    if not shutil.which("gnuplot"):
        print("pmd_report: gnuplot missing, no plot", file=sys.stderr)
        return False
    drvname = {"gv": "gvirtio", "dpdk": "DPDK"}
    cmds = []
    for i, t in enumerate(tables):
        bursts = sorted({c["burst"] for c in t["cells"]})
        rings = sorted({c["ring"] for c in t["cells"]})
        cell = {(c["ring"], c["burst"]): c["mpps"] for c in t["cells"]}
        dat = os.path.join(gdir, "sweep%d.dat" % i)
        with open(dat, "w") as f:
            for b in bursts:
                f.write("\t".join([str(b)] + ["NaN" if cell.get((r, b)) is None else "%.4f" % cell[(r, b)]
                                               for r in rings]) + "\n")
        best = t["best_mpps"] or 0
        cmds.append('set title "%s, %s, %s, %s (best %.2f Mpps; dashed: 90%%)" noenhanced'
                    % (DIRS[t["dir"]], t["layout"], drvname[t["driver"]],
                       "best second" if t.get("metric") == "best_mpps" else "median", best))
        cmds.append("plot " + ", ".join(
            '"%s" using 1:%d with linespoints lw 2 title "ring %d"' % (dat, j + 2, r)
            for j, r in enumerate(rings)) + ", %f with lines dt 2 lc rgb 'black' notitle" % (0.9 * best))
    n = len(tables)
    cols = 2 if n > 1 else 1
    rows_n = (n + cols - 1) // cols
    gp = os.path.join(gdir, "sweep.gp")
    with open(gp, "w") as f:
        f.write('set terminal pngcairo size %d,%d font ",10"\n' % (600 * cols, 380 * rows_n + 40))
        f.write('set output "%s"\n' % png)
        f.write('set multiplot layout %d,%d title "Mpps by ring and burst size (%s rounds x %s s)"\n'
                % (rows_n, cols, meta.get("rounds"), meta.get("secs")))
        f.write("set logscale x 2\nset xlabel 'burst'\nset ylabel 'Mpps'\nset yrange [0:*]\n"
                "set grid\nset key bottom right\nset datafile missing 'NaN'\n")
        f.write("\n".join(cmds) + "\nunset multiplot\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        print("pmd_report: gnuplot failed (%d): %s" % (r.returncode, r.stderr.strip()[-500:]), file=sys.stderr)
        return False
    return True


def cmd_sweep(a):
    samples = load_jsonl(a.samples)
    meta = get_meta(a)
    rows = summarize(samples, a.rows.split())
    tables = sweep_tables(rows)
    best_tables = sweep_tables(rows, "best_mpps")
    if a.json:
        meta["json_md"] = repo_rel(a.json)
    if a.png and tables and sweep_plot(tables + best_tables, a.png, a.gnuplot_dir, meta):
        meta["png_md"] = "../" + repo_rel(a.png)
        if a.png_latest:
            shutil.copyfile(a.png, a.png_latest)
        print("plot: %s" % repo_rel(a.png), file=sys.stderr)
    text = sweep_markdown(rows, tables, meta, best_tables)
    print(text)
    save({"meta": meta, "tables": tables, "best_second_tables": best_tables, "rows": rows,
          "samples": samples, "markdown": text}, a)
