#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pmd_ab_summary.py - the table bench/pmd_ab.sh prints at its end
(stdlib only).

  pmd_ab_summary.py OUT ROUNDS NAME [NAME...]

reads OUT/NAME-rK/pmd-latest.json (one pmd_compare round per variant and
round) and prints, per row:
- each variant's gvirtio/DPDK ratio per round, their median, in how many
  rounds gvirtio was the faster with the sign test's p, both drivers'
  median Mpps and, where the runs recorded them (BE_EXTRA=
  --record-core-cycles), the back-end's busy cycles a packet next to
  each driver, the median of their per-round ratios, and its busy share
  next to each (about 1: the back-end was busy throughout and set the
  pace);
- each variant after the first against the first, round by round: its
  gv/DPDK ratio over the first variant's in the same round (both taken
  minutes apart, each against its own DPDK sample), their median, and in
  how many rounds the variant came out ahead, with the sign test's p.
OUT/ab.json gets the same. A variant's run that failed leaves its round
out of that variant's figures (and of the pairs it is in).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pmd_stats import median, sign_test, sign_text  # noqa: E402


def new_entry(rounds):
    """One variant's figures for one row: the gv/DPDK ratio per round (None
    where the run failed), then per run each driver's Mpps, the back-end's
    cycles a packet and busy share next to each, and their per-round ratio."""
    return {"ratio": [None] * rounds, "gv": [], "dpdk": [], "be_gv": [], "be_dpdk": [],
            "be_ratio": [], "busy_gv": [], "busy_dpdk": []}


def collect(out, rounds, names):
    """-> (row ids in first-seen order, {(row, name): new_entry()})"""
    rows, data = [], {}
    for n in names:
        for r in range(1, rounds + 1):
            f = os.path.join(out, f"{n}-r{r}", "pmd-latest.json")
            if not os.path.exists(f):
                continue
            with open(f) as fh:
                res = json.load(fh)
            for row in res["rows"]:
                if row["id"] not in rows:
                    rows.append(row["id"])
                d = data.setdefault((row["id"], n), new_entry(rounds))
                d["ratio"][r - 1] = row.get("ratio_median")
                d["be_ratio"].append(row.get("be_cyc_ratio_median"))
                for drv in ("gv", "dpdk"):
                    x = row.get(drv) or {}
                    if x.get("mpps_median") is not None:
                        d[drv].append(x["mpps_median"])
                    d["be_" + drv].append(x.get("be_cyc_per_pkt_median"))
                    d["busy_" + drv].append(x.get("be_busy_median"))
    return rows, data


def paired(a, b):
    """Per round a/b where both rounds have a ratio."""
    return [x / y for x, y in zip(a, b) if x is not None and y]


def summarize(rows, data, rounds, names):
    empty = new_entry(rounds)
    out = []
    for rid in rows:
        base = data.get((rid, names[0]), empty)["ratio"]
        for n in names:
            d = data.get((rid, n), empty)
            wins, k, p = sign_test(d["ratio"])
            rec = {"row": rid, "variant": n, "ratios": d["ratio"], "ratio_median": median(d["ratio"]),
                   "gv_faster_rounds": wins, "rounds_compared": k, "sign_p": p,
                   "gv_mpps": d["gv"], "dpdk_mpps": d["dpdk"],
                   # the back-end's busy cycles a packet (BE_EXTRA=--record-core-cycles)
                   "be_cyc_gv_median": median(d["be_gv"]), "be_cyc_dpdk_median": median(d["be_dpdk"]),
                   "be_cyc_ratio_median": median(d["be_ratio"]),
                   # its busy share: cycles a packet x rate / TSC (about 1: it set the pace)
                   "be_busy_gv_median": median(d["busy_gv"]),
                   "be_busy_dpdk_median": median(d["busy_dpdk"])}
            if n != names[0]:
                q = paired(d["ratio"], base)
                wins, k, p = sign_test(q)
                rec["vs_first"] = {"variant": names[0], "per_round": q, "median": median(q),
                                   "ahead_rounds": wins, "rounds_compared": k, "sign_p": p}
            out.append(rec)
    return out


def f2(x):
    return "-" if x is None else f"{x:.2f}"


def f0(x):
    return "-" if x is None else f"{x:.0f}"


def markdown(summary, names):
    lines = []
    w = lines.append
    be = any(s["be_cyc_ratio_median"] is not None for s in summary)
    w("| row | variant | gv/DPDK per round | median | gv faster (sign test) | Mpps gv / DPDK |"
      + (" back-end cyc/pkt gv / DPDK (per round: median ratio) | back-end busy gv / DPDK |"
         if be else ""))
    w("| --- | --- | --- | ---: | --- | --- |" + (" --- | --- |" if be else ""))
    for s in summary:
        w(f"| {s['row']} | {s['variant']} | {', '.join(f2(x) for x in s['ratios'])} "
          f"| {f2(s['ratio_median'])} | {sign_text(s['gv_faster_rounds'], s['rounds_compared'], s['sign_p'])} "
          f"| {f2(median(s['gv_mpps']))} / {f2(median(s['dpdk_mpps']))} |"
          + (f" {f0(s['be_cyc_gv_median'])} / {f0(s['be_cyc_dpdk_median'])} "
             f"({f2(s['be_cyc_ratio_median'])}) | {f2(s['be_busy_gv_median'])} / "
             f"{f2(s['be_busy_dpdk_median'])} |" if be else ""))
    pairs = [s for s in summary if "vs_first" in s]
    if pairs:
        w("")
        w(f"Each variant against {names[0]}, round by round: its gv/DPDK over {names[0]}'s "
          "in the same round (>1: the variant did better against DPDK's PMD), the median, and "
          f"in how many rounds the variant came out ahead of {names[0]}, with the sign test's p.")
        w("")
        w("| row | variant | over first, per round | median | ahead (sign test) |")
        w("| --- | --- | --- | ---: | --- |")
        for s in pairs:
            v = s["vs_first"]
            w(f"| {s['row']} | {s['variant']} / {v['variant']} | "
              f"{', '.join(f2(x) for x in v['per_round'])} | {f2(v['median'])} "
              f"| {sign_text(v['ahead_rounds'], v['rounds_compared'], v['sign_p'])} |")
    return "\n".join(lines)


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        print("usage: pmd_ab_summary.py OUT ROUNDS NAME [NAME...]", file=sys.stderr)
        return 2
    out, rounds, names = argv[0], int(argv[1]), argv[2:]
    rows, data = collect(out, rounds, names)
    summary = summarize(rows, data, rounds, names)
    print(markdown(summary, names))
    with open(os.path.join(out, "ab.json"), "w") as fh:
        json.dump({"rounds": rounds, "variants": names, "rows": summary}, fh, indent=1)
    print(f"\nRuns, reports and JSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
