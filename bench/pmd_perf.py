#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pmd_perf.py - where the driver side's time goes, from `perf record -e
cpu-clock` (bench/pmd_compare.sh PERF=1).

perf samples the driver-side testpmd on a timer (cpu-clock: no hardware
counters needed, so it works on this machine, whose PMU perf cannot use).
Each sample names the thread, the shared object and, where the object has
symbols, the function. This file owns:
  - summarize PERF_DATA (parse_report: perf report's text): one sample's profile as JSON (the busiest thread,
    the forwarding lcore, and its time by shared object and by function);
  - the report's table (used by pmd_report.py): each driver's median share
    of the forwarding thread's time per group of objects, and those shares
    turned into TSC cycles per packet with testpmd's --record-core-cycles.
DPDK's Debian objects are stripped, so its PMD counts as one object; the
gvirtio plugin keeps its function names.
"""
import json
import re
import subprocess
import sys

# object name -> group, first match wins
GROUPS = [
    ("PMD", re.compile(r"librte_net_(gvirtio|virtio)\.so")),
    ("testpmd", re.compile(r"^dpdk-testpmd$")),
    ("mempool/mbuf/ring", re.compile(r"librte_(mempool|mbuf|ring)")),
    ("ethdev", re.compile(r"librte_ethdev")),
    ("eal", re.compile(r"librte_eal")),
    ("TLS (ld.so)", re.compile(r"^ld-linux")),
    ("libc", re.compile(r"^libc[.-]")),
    ("kernel", re.compile(r"kernel|vdso")),
]
GROUP_NAMES = [g for g, _ in GROUPS] + ["other"]


def group_of(dso):
    for g, rx in GROUPS:
        if rx.search(dso):
            return g
    return "other"


def summarize(path):
    """The profile of one perf.data as a dict (None if perf gave nothing)."""
    try:
        out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q", "-t", "|",
                              "--sort", "comm,dso,sym", "-F", "sample,comm,dso,sym"],
                             capture_output=True, text=True, timeout=300).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_report(out)


def parse_report(out):
    """perf report -t '|' -F sample,comm,dso,sym output -> the profile."""
    rows = []
    for line in out.splitlines():
        f = [x.strip() for x in line.split("|")]
        if len(f) < 4 or not f[0].isdigit():
            continue
        sym = re.sub(r"^\[[.k]\]\s*", "", f[3])
        rows.append((int(f[0]), f[1], f[2], sym))
    if not rows:
        return None
    threads = {}
    for n, comm, _, _ in rows:
        threads[comm] = threads.get(comm, 0) + n
    worker = max(threads, key=threads.get)
    total = threads[worker]
    groups, funcs, addrs = {}, {}, {}
    for n, comm, dso, sym in rows:
        if comm != worker:
            continue
        g = group_of(dso)
        groups[g] = groups.get(g, 0) + n
        # stripped objects: perf names each sampled instruction by its
        # address; they count as one entry per object, and the hottest
        # addresses are kept apart (objdump -d tells what they are)
        key = (dso, sym if not sym.startswith("0x") else "(no symbols)")
        funcs[key] = funcs.get(key, 0) + n
        if sym.startswith("0x"):
            addrs[(dso, sym)] = n
    top = sorted(funcs.items(), key=lambda kv: -kv[1])[:12]
    hot = sorted(addrs.items(), key=lambda kv: -kv[1])[:16]
    return {"worker": worker, "samples": total, "threads": threads,
            "group_pct": {g: 100.0 * n / total for g, n in groups.items()},
            "top": [[round(100.0 * n / total, 2), d, s] for (d, s), n in top],
            "hot_addr": [[round(100.0 * n / total, 2), d, s] for (d, s), n in hot]}


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def row_profile(samples):
    """Median share per group over a driver's samples of one row."""
    profs = [s["perf"] for s in samples if s.get("perf")]
    if not profs:
        return None
    return {"rounds": len(profs),
            "group_pct": {g: median([p["group_pct"].get(g, 0.0) for p in profs])
                          for g in GROUP_NAMES},
            "top": profs[len(profs) // 2]["top"]}


def markdown(rows, label):
    """The report's table; rows carry row_profile() as gv/dpdk 'perf'."""
    rows = [r for r in rows if r["gv"].get("perf") or r["dpdk"].get("perf")]
    if not rows:
        return []
    used = [g for g in GROUP_NAMES
            if any((r[d].get("perf") or {}).get("group_pct", {}).get(g, 0) >= 0.5
                   for r in rows for d in ("gv", "dpdk"))]
    out = ["#### Where the driver core's time goes (perf cpu-clock)", "",
           "perf record -e cpu-clock on the driver-side testpmd over each sample's measured "
           "seconds; share of the forwarding thread's samples by shared object (median over "
           "the rounds), and in brackets that share of testpmd's cycles per packet "
           "(--record-core-cycles: share x cyc/pkt). PMD: the driver's own object "
           "(%s); testpmd: the forwarding engine (txonly builds and frees its packets, "
           "rxonly frees them). DPDK's objects are stripped, so its PMD is one entry." % label,
           "",
           "| row | driver | " + " | ".join(used) + " | cyc/pkt |",
           "| --- | --- | " + " | ".join("---:" for _ in used) + " | ---: |"]
    for r in rows:
        for d, name in (("gv", "gvirtio"), ("dpdk", "DPDK")):
            p = r[d].get("perf")
            if not p:
                continue
            cyc = r[d].get("cyc_per_pkt_median")
            cells = []
            for g in used:
                v = p["group_pct"].get(g, 0.0)
                cells.append("%.1f%%" % v + (" (%.0f)" % (v * cyc / 100) if cyc else ""))
            out.append("| %s | %s | %s | %s |" % (r["id"], name, " | ".join(cells),
                                                   "-" if not cyc else "%.0f" % cyc))
    out.append("")
    for r in rows:
        p = r["gv"].get("perf")
        if not p:
            continue
        out.append("gvirtio %s, the forwarding thread's top entries (median round):" % r["id"])
        out.append("")
        out.append("```")
        for pct, dso, sym in p["top"]:
            out.append("  %5.1f%%  %-28s %s" % (pct, dso[:28], sym))
        out.append("```")
        out.append("")
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "summarize":
        print(json.dumps(summarize(sys.argv[2])))
        return 0
    print("usage: pmd_perf.py summarize PERF_DATA", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
