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
    turned into TSC cycles per packet with testpmd's --record-core-cycles;
  - functions LIB PERF_DATA...: the share of each profile's samples in
    each function of a stripped library (DPDK's Debian librte_vhost, say),
    the functions taken from its .eh_frame ranges (readelf), the rest of
    the samples by object: whether two profiles' time has the same shape.
DPDK's Debian objects are stripped, so its PMD counts as one object; the
gvirtio plugin keeps its function names.
"""
import bisect
import json
import re
import subprocess
import sys

from pmd_stats import median

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


def fde_ranges(readelf_out):
    """readelf --debug-dump=frames output -> sorted (start, end) of each FDE."""
    r = [(int(a, 16), int(b, 16)) for a, b in re.findall(r"FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)", readelf_out)]
    return sorted(r)


def function_of(ranges, off):
    """The start of the FDE range holding offset off, or None."""
    i = bisect.bisect_right(ranges, (off, float("inf"))) - 1
    if i >= 0 and ranges[i][0] <= off < ranges[i][1]:
        return ranges[i][0]
    return None


MMAP = re.compile(r"PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|\d+) .*?(\S+)$")


def count_functions(script_out, lib, ranges):
    """perf script --show-mmap-events -F ip,dso output -> ({key: samples}, total).
    key: "LIBNAME+0xSTART" for a sample in lib (by its file offset, which is its address in the
    library for the usual layout of a shared object's text), else the object's name."""
    maps, cnt, total = [], {}, 0
    base = lib.rsplit("/", 1)[-1]
    for line in script_out.splitlines():
        if "PERF_RECORD_" in line:
            m = MMAP.search(line)
            if m and m.group(4).rsplit("/", 1)[-1].startswith(base):
                pg = m.group(3)
                maps.append((int(m.group(1), 16), int(m.group(2), 16), int(pg, 16) if pg.startswith("0x") else int(pg)))
            continue
        f = line.split()
        if len(f) < 2:
            continue
        try:
            ip = int(f[0], 16)
        except ValueError:
            continue
        total += 1
        dso = f[-1].strip("()").rsplit("/", 1)[-1]
        key = dso
        for start, length, pgoff in maps:
            if start <= ip < start + length:
                fn = function_of(ranges, ip - start + pgoff)
                key = "%s+%s" % (base, hex(fn)) if fn is not None else base + "+?"
                break
        cnt[key] = cnt.get(key, 0) + 1
    return cnt, total


def functions(lib, paths, top=12):
    """Markdown: per function of lib (and per other object), its share of each profile's samples."""
    ranges = fde_ranges(subprocess.run(["readelf", "--debug-dump=frames", lib], capture_output=True,
                                       text=True, check=True).stdout)
    cols = []
    for p in paths:
        out = subprocess.run(["perf", "script", "-i", p, "--show-mmap-events", "-F", "ip,dso"],
                             capture_output=True, text=True, timeout=600).stdout
        cnt, total = count_functions(out, lib, ranges)
        cols.append({k: 100.0 * v / total for k, v in cnt.items()} if total else {})
    keys = sorted({k for c in cols for k in c}, key=lambda k: -sum(c.get(k, 0) for c in cols))
    lines = ["| code | " + " | ".join(paths) + " |", "| --- |" + " ---: |" * len(paths)]
    for k in keys[:top]:
        lines.append("| %s | %s |" % (k, " | ".join("%.1f%%" % c.get(k, 0) for c in cols)))
    rest = keys[top:]
    if rest:
        lines.append("| the rest | %s |" % " | ".join("%.1f%%" % sum(c.get(k, 0) for k in rest) for c in cols))
    return "\n".join(lines)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "summarize":
        print(json.dumps(summarize(sys.argv[2])))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "functions":
        print(functions(sys.argv[2], sys.argv[3:]))
        return 0
    print("usage: pmd_perf.py summarize PERF_DATA\n"
          "       pmd_perf.py functions LIB PERF_DATA [PERF_DATA...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
