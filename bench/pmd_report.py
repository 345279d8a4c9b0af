#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pmd_report.py - the helper behind bench/pmd_compare.sh (stdlib only).

Subcommands:
  median V1,V2,...      median of a comma list ("-" when empty)
  sample ...            one throughput sample -> one JSON line on stdout
  cg ...                one callgrind dump -> one JSON line on stdout
  report ...            all samples -> markdown on stdout, results JSON,
                        PNG plot (gnuplot)
  sweep ...             the ring x burst sweep (SWEEP=1) -> markdown tables
                        ("within 10% of the best setting?"), results JSON,
                        PNG plot (bench/pmd_sweep.py)
  compare OLD NEW       two results JSON files (bench/results/pmd-*.json or
                        pmd-sweep-*.json) -> markdown: per row both runs'
                        Mpps and gv/DPDK ratio, and the ratio's change

bench/pmd_report_selftest.py checks the statistics and tables on made-up
samples with known answers.

`cg` can also be used on its own to look at a dump, e.g.
  python3 bench/pmd_report.py cg --file X.callgrind.1 --so 'librte_net_gvirtio\\.so' \\
      --fe-log /dev/null --row gtx/split/mrg1/inorder/64 --driver gv --pretty
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmd_perf  # noqa: E402  (bench/pmd_perf.py: the perf profile columns)
from pmd_stats import median, sign_test, sign_text  # noqa: E402

DIRS = {"gtx": "guest TX", "grx": "guest RX", "loop": "loopback"}


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def final_stats(log):
    """The numbers of testpmd's 'Accumulated forward statistics' block."""
    i = log.rfind("Accumulated forward statistics")
    out = {}
    if i < 0:
        return out
    block = log[i:i + 2000]
    for k in ("RX-packets", "RX-dropped", "RX-total", "TX-packets", "TX-dropped", "TX-total"):
        m = re.search(re.escape(k) + r":\s*(\d+)", block)
        if m:
            out[k] = int(m.group(1))
    m = re.search(r"CPU cycles/packet=([0-9.]+)", log[i:])
    if m:
        out["cyc_per_pkt"] = float(m.group(1))
    m = re.search(r"at ([0-9]+) MHz Clock", log[i:])
    if m:
        out["tsc_mhz"] = int(m.group(1))
    return out


def burst_fill_pct(log, row):
    """Guest RX / loopback (--record-burst-stats): how full the driver's RX
    bursts were on average, in % of the row's burst size (32 unless a sweep
    cell says otherwise): RX-packets / (RX-bursts x burst). Near 100: the
    driver set the pace; low: it mostly polled an empty ring, waiting for
    the back-end."""
    if row.split("/")[0] not in ("grx", "loop"):
        return None
    burst = cell_of(row)[1] or 32
    bursts = re.findall(r"RX-bursts : (\d+) \[", log)
    pk = final_stats(log).get("RX-packets")
    if not bursts or not int(bursts[-1]) or pk is None:
        return None
    return 100.0 * pk / (int(bursts[-1]) * burst)


def paths_of(log, driver):
    """(rx, tx) path names the driver logged."""
    if driver == "gv":
        m = re.search(r"rx path (.+?), tx path (.+?) \((\w+) ring\)", log)
        return (m.group(1), m.group(2)) if m else (None, None)
    rx = re.search(r"virtio: using (.+?) Rx path", log)
    tx = re.search(r"virtio: using (.+?) Tx path", log)
    return (rx.group(1) if rx else None, tx.group(1) if tx else None)


# ---------------------------------------------------------------- callgrind

def parse_callgrind(path, so_re):
    """Self cost per (object, function), and call costs between objects.

    Returns dict with self_ir (instructions executed in objects matching
    so_re), incl_ir (inclusive cost of calls into those objects from other
    objects), calls_in (number of such calls), per-function self cost in the
    object and the calls it makes to other objects.
    """
    so = re.compile(so_re)
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
            "cfl": "fl", "fn": "fn", "cfn": "fn"}

    def name(k, v):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", v)
        if not m:
            return v
        table = names[kind[k]]
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), "?(%s)" % m.group(1))

    npos = 1
    events = ["Ir"]
    nev = 1
    ob = fn = None
    cob = cfn = None
    call_next = None  # (callee ob, callee fn, count) awaiting its cost line
    self_cost = {}
    calls = {}
    summary = None
    with open(path, "r", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            c0 = line[0]
            if c0.isdigit() or c0 in "+-*":
                parts = line.split()
                cost = [int(x) for x in parts[npos:npos + nev]]
                if call_next is not None:
                    key = (ob, fn, call_next[0], call_next[1])
                    v = calls.setdefault(key, [[0] * nev, 0])
                    for i, x in enumerate(cost):
                        v[0][i] += x
                    v[1] += call_next[2]
                    call_next = None
                else:
                    k = (ob, fn)
                    v = self_cost.setdefault(k, [0] * nev)
                    for i, x in enumerate(cost):
                        v[i] += x
                continue
            if line.startswith("calls="):
                cnt = int(line[6:].split()[0])
                call_next = (cob if cob is not None else ob, cfn, cnt)
                cob = cfn = None
                continue
            if line.startswith("positions:"):
                npos = len(line.split(":", 1)[1].split())
                continue
            if line.startswith("events:"):
                events = line.split(":", 1)[1].split()
                nev = len(events)
                continue
            if line.startswith("summary:"):
                summary = int(line.split(":", 1)[1].split()[0])
                continue
            m = re.match(r"(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(.*)$", line)
            if not m:
                continue  # headers, jump=, jcnd=
            k, v = m.group(1), name(m.group(1), m.group(2))
            if k == "ob":
                ob = v
            elif k == "fn":
                fn = v
            elif k == "cob":
                cob = v
            elif k == "cfn":
                cfn = v

    def base(o):
        return os.path.basename(o or "?")

    self_ev = [0] * nev
    for (o, _), c in self_cost.items():
        if o and so.search(o):
            self_ev = [a + b for a, b in zip(self_ev, c)]
    incl_ev = [0] * nev
    calls_in = 0
    entries = {}
    external = {}
    for (o, f, co, cf), (cost, cnt) in calls.items():
        ins, tins = bool(o and so.search(o)), bool(co and so.search(co))
        if tins and not ins:
            incl_ev = [a + b for a, b in zip(incl_ev, cost)]
            calls_in += cnt
            e = entries.setdefault(cf, [0, 0])
            e[0] += cost[0]
            e[1] += cnt
        elif ins and not tins:
            key = "%s [%s]" % (cf, base(co))
            e = external.setdefault(key, [0, 0])
            e[0] += cost[0]
            e[1] += cnt
    self_ir, incl_ir = self_ev[0], incl_ev[0]
    funcs = sorted(((f, c[0]) for (o, f), c in self_cost.items() if o and so.search(o) and c[0]),
                   key=lambda x: -x[1])
    objs = sorted({o for (o, _) in self_cost if o and so.search(o)})
    return {"summary_ir": summary, "self_ir": self_ir, "incl_ir": incl_ir, "calls_in": calls_in,
            "events": events, "incl_events": dict(zip(events, incl_ev)),
            "objects": objs,
            "entries": sorted(([f, c, n] for f, (c, n) in entries.items()), key=lambda x: -x[1]),
            "functions": [[f, c] for f, c in funcs],
            "external": sorted(([k, c, n] for k, (c, n) in external.items()), key=lambda x: -x[1])}


# ---------------------------------------------------------------- commands

def cmd_median(a):
    xs = [float(x) for x in a.values.split(",") if x.strip()]
    m = median(xs)
    print("-" if m is None else "%.0f" % m)


def cmd_sample(a):
    rates = [int(x) for x in a.rates.split(",") if x.strip()]
    log = read_text(a.fe_log)
    st = final_stats(log)
    rx, tx = paths_of(log, a.driver)
    m = median(rates)
    # DPDK logs its ring sizes (pmd.net.virtio.init:debug): RX, TX, control
    vq = [int(x) for x in re.findall(r"vq_size: (\d+)", log)]
    fill = burst_fill_pct(log, a.row)
    rec = {"round": a.round, "row": a.row, "driver": a.driver, "devargs": a.devargs,
           "rates_pps": rates, "mpps": (m / 1e6) if m is not None else None,
           "cyc_per_pkt": st.get("cyc_per_pkt"), "rx_path": rx, "tx_path": tx,
           "vq_sizes": vq or None, "burst_fill_pct": fill, "driver_stats": st,
           "rtt_ns": [int(x) for x in a.rtt.split(",") if x.strip()] or None,
           "note": a.note or None}
    if a.be_log:
        # the back-end's final statistics (BE_EXTRA: it is stopped with SIGINT);
        # its busy cycles a packet with --record-core-cycles in BE_EXTRA
        be = final_stats(read_text(a.be_log))
        rec["backend_stats"] = be or None
        rec["be_cyc_per_pkt"] = be.get("cyc_per_pkt")
        # how much of the time the back-end was busy: its cycles a packet
        # at the sample's rate over the TSC's (about 1: it set the pace)
        if be.get("cyc_per_pkt") and be.get("tsc_mhz") and m:
            rec["be_busy"] = be["cyc_per_pkt"] * m / (be["tsc_mhz"] * 1e6)
    if a.perf:
        try:
            rec["perf"] = json.loads(read_text(a.perf) or "null")
        except ValueError:
            rec["perf"] = None
    print(json.dumps(rec))


def stop_segments(log):
    """testpmd's output after each "stop", in order."""
    return log.split("Telling cores to stop")[1:]


def empty_bursts(seg, dirn):
    """(bursts, % that moved nothing) from --record-burst-stats, or (None, None)."""
    m = re.search(r"%s-bursts : (\d+) \[(\d+)%% of 0 pkts" % ("TX" if dirn == "gtx" else "RX"), seg)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def cmd_cg(a):
    dirn = a.row.split("/")[0]
    log = read_text(a.fe_log)
    segs = stop_segments(log)
    st = final_stats(segs[0]) if segs else {}
    rx, tx = paths_of(log, a.driver)
    rec = {"row": a.row, "driver": a.driver, "devargs": a.devargs, "rx_path": rx,
           "tx_path": tx, "note": a.note or None, "file": a.file, "driver_stats": st}
    pk = st.get("TX-packets") if dirn == "gtx" else st.get("RX-packets")
    rec["packets"] = pk
    if dirn == "gtx":
        rec["offered"] = st.get("TX-total")
    bursts, pct = empty_bursts(segs[0], dirn) if segs else (None, None)
    rec["bursts"], rec["empty_burst_pct"] = bursts, pct

    def note(t):
        rec["note"] = (rec["note"] + "; " if rec["note"] else "") + t
    if not os.path.exists(a.file):
        note("no callgrind dump")
    elif not pk:
        note("no packets counted")
    else:
        p = parse_callgrind(a.file, a.so)
        top = 25
        rec.update({
            "self_ir": p["self_ir"], "incl_ir": p["incl_ir"], "calls_in": p["calls_in"],
            "window_ir": p["summary_ir"], "objects": p["objects"],
            "self_per_pkt_raw": p["self_ir"] / pk, "incl_per_pkt_raw": p["incl_ir"] / pk,
            "pkts_per_call": pk / p["calls_in"] if p["calls_in"] else None,
            "incl_events": p["incl_events"],
            "entries": p["entries"][:top]})
        funcs = dict(p["functions"])
        ext = {k: [c, n] for k, c, n in p["external"]}
        ev = dict(p["incl_events"])
        # Take off the bursts that moved nothing, at the idle window's cost.
        empty = 0
        if a.idle_file and os.path.exists(a.idle_file) and pct is not None and p["entries"]:
            q = parse_callgrind(a.idle_file, a.so)
            ib, ipct = empty_bursts(segs[1], dirn) if len(segs) > 1 else (None, None)
            if q["entries"] and ipct is not None and ipct >= 99:
                ient = max(q["entries"], key=lambda e: e[2])  # the burst function
                ic = ient[2]
                c1 = max(p["entries"], key=lambda e: e[2])[2]
                empty = round(pct / 100.0 * c1)
                k = empty / ic
                rec["empty_call_ir"] = ient[1] / ic
                rec["empty_calls"] = empty
                for f, c in q["functions"]:
                    if f in funcs:
                        funcs[f] = max(funcs[f] - c * k, 0)
                for key, c, n in q["external"]:
                    if key in ext:
                        ext[key] = [max(ext[key][0] - c * k, 0), max(ext[key][1] - round(n * k), 0)]
                for e in ev:
                    ev[e] = max(ev[e] - q["incl_events"].get(e, 0) * k, 0)
                rec["incl_ir_corr"] = p["incl_ir"] - ient[1] * k
                rec["self_ir_corr"] = p["self_ir"] - q["self_ir"] * k
            else:
                note("idle window unusable (empty %s%%): no correction for empty bursts" % ipct)
        elif pct:
            note("no idle window: no correction for empty bursts")
        if not empty:
            rec.pop("incl_ir_corr", None)
            rec.pop("self_ir_corr", None)
        rec["incl_per_pkt"] = rec.get("incl_ir_corr", p["incl_ir"]) / pk
        rec["self_per_pkt"] = rec.get("self_ir_corr", p["self_ir"]) / pk
        rec["d1_miss_per_pkt"] = (ev["D1mr"] + ev["D1mw"]) / pk if "D1mr" in ev else None
        rec["ll_miss_per_pkt"] = (ev["DLmr"] + ev["DLmw"]) / pk if "DLmr" in ev else None
        rec["functions"] = sorted(([f, c] for f, c in funcs.items() if c > 0), key=lambda x: -x[1])[:top]
        rec["external"] = sorted(([f, c, n] for f, (c, n) in ext.items() if c > 0),
                                 key=lambda x: -x[1])[:top]
        rec["incl_ir_used"] = rec.get("incl_ir_corr", p["incl_ir"])
    if a.pretty:
        print(json.dumps(rec, indent=1))
    else:
        print(json.dumps(rec))


def load_jsonl(path):
    out = []
    for line in read_text(path).splitlines():
        line = line.strip()
        if line:
            out.append(json.loads(line))
    return out


def fmt(x, nd=2):
    return "-" if x is None else "%.*f" % (nd, x)


def pct_fmt(v):
    """A percentage: one decimal below 10 (a 0.2% burst fill is not 0%)."""
    return "-" if v is None else ("%.1f%%" % v if v < 10 else "%.0f%%" % v)


def split_row(rid):
    """dir, layout, mrg, path, size of a row id (a sweep cell's id has
    /rRING/bBURST after those)."""
    d, layout, mrg, path, size = rid.split("/")[:5]
    return d, layout, mrg[3:], path, size


def cell_of(rid):
    """(ring, burst) of a sweep cell id, or (None, None)."""
    parts = rid.split("/")
    if len(parts) < 7:
        return None, None
    return int(parts[5][1:]), int(parts[6][1:])


def devargs_short(dv):
    """devargs without the device name, socket, packed_vq and mrg_rxbuf."""
    keep = [kv for kv in dv.split(",")[1:]
            if not kv.startswith(("path=", "packed_vq=", "mrg_rxbuf="))]
    return ",".join(keep) or "(defaults)"


# Two samples compare as "same state" when every cross-core round trip
# measured around them (bench/xcore_rtt.c, before and after each) is
# within this factor of the smallest: the vCPUs sat on equally distant
# physical cores for both.
RTT_TOL = 1.3


def same_state(a, b):
    rtts = (a.get("rtt_ns") or []) + (b.get("rtt_ns") or [])
    return len(rtts) == 4 and min(rtts) > 0 and max(rtts) <= RTT_TOL * min(rtts)


def summarize(samples, row_ids):
    rows = []
    for rid in row_ids:
        per = {"gv": {}, "dpdk": {}}
        info = {"gv": {}, "dpdk": {}}
        notes = []
        for s in samples:
            if s["row"] != rid:
                continue
            per[s["driver"]][s["round"]] = s
            if s.get("note"):
                notes.append("round %d %s: %s" % (s["round"], s["driver"], s["note"]))
        d, layout, mrg, path, size = split_row(rid)
        ring, burst = cell_of(rid)
        row = {"id": rid, "dir": d, "layout": layout, "mrg_rxbuf": int(mrg), "path": path,
               "size": int(size), "ring": ring, "burst": burst, "notes": notes}
        for drv in ("gv", "dpdk"):
            vals = [s["mpps"] for _, s in sorted(per[drv].items()) if s["mpps"] is not None]
            cyc = [s["cyc_per_pkt"] for s in per[drv].values() if s.get("cyc_per_pkt")]
            # guest TX: the share of the packets txonly offered that the
            # ring took (below 1: the ring was full, the back-end set the pace)
            sent = [s["driver_stats"]["TX-packets"] / s["driver_stats"]["TX-total"]
                    for s in per[drv].values()
                    if d == "gtx" and (s.get("driver_stats") or {}).get("TX-total")]
            fill = [s["burst_fill_pct"] for s in per[drv].values() if s.get("burst_fill_pct") is not None]
            any_s = next(iter(per[drv].values()), {})
            rxp = sorted({s["rx_path"] or "?" for s in per[drv].values()})
            txp = sorted({s["tx_path"] or "?" for s in per[drv].values()})
            if ring and drv == "dpdk":
                for s in per[drv].values():
                    if s.get("vq_sizes") and s["vq_sizes"][0] != ring:
                        notes.append("round %d dpdk: ring %s, not %d" % (s["round"], s["vq_sizes"][:2], ring))
            info[drv] = {"devargs": any_s.get("devargs"), "rx_path": "|".join(rxp),
                         "tx_path": "|".join(txp), "samples": len(per[drv]),
                         "mpps_per_round": [per[drv][r]["mpps"] for r in sorted(per[drv])],
                         "mpps_median": median(vals), "mpps_min": min(vals) if vals else None,
                         "mpps_max": max(vals) if vals else None,
                         "cyc_per_pkt_median": median(cyc),
                         "be_cyc_per_pkt_median": median(s.get("be_cyc_per_pkt")
                                                         for s in per[drv].values()
                                                         if s.get("be_cyc_per_pkt")),
                         "be_busy_median": median(s.get("be_busy") for s in per[drv].values()),
                         "sent_share_median": median(sent), "burst_fill_pct_median": median(fill),
                         "perf": pmd_perf.row_profile(per[drv].values()),
                         # the best second of all rounds: what the driver does
                         # when nothing else on the host slows the pair down
                         "best_mpps": max((x for s in per[drv].values()
                                           for x in s.get("rates_pps") or []), default=0) / 1e6
                         or None}
        ratios, same, rtt, be_ratios = [], [], [], []
        for r in sorted(per["gv"]):
            gs, ps = per["gv"][r], per["dpdk"].get(r, {})
            g, p = gs.get("mpps"), ps.get("mpps")
            if gs.get("be_cyc_per_pkt") and ps.get("be_cyc_per_pkt"):
                be_ratios.append(gs["be_cyc_per_pkt"] / ps["be_cyc_per_pkt"])
            if g and p:
                ratios.append(g / p)
                if same_state(gs, ps):
                    same.append(g / p)
                    rtt.append(median(gs["rtt_ns"] + ps["rtt_ns"]))
        row.update(info)
        row["ratios"] = ratios
        row["ratio_median"] = median(ratios)
        # in how many rounds gvirtio was the faster, and the sign test's p
        row["gv_faster_rounds"], row["rounds_compared"], row["sign_p"] = sign_test(ratios)
        # the pairs whose two samples ran with the machine in the same state
        row["ratios_same_state"] = same
        row["ratio_same_state_median"] = median(same)
        row["rtt_ns_same_state"] = rtt
        # the back-end's busy cycles a packet next to gvirtio over next to DPDK's PMD, per round
        row["be_cyc_ratios"] = be_ratios
        row["be_cyc_ratio_median"] = median(be_ratios)
        gb, pb = info["gv"]["best_mpps"], info["dpdk"]["best_mpps"]
        row["ratio_best"] = gb / pb if gb and pb else None
        rows.append(row)
    return rows


def markdown(rows, vg, meta):
    out = []
    w = out.append
    w("### gvirtio vs DPDK net_virtio_user through a DPDK vhost-user back-end")
    w("")
    w(header_line(meta))
    w("")
    if rows:
        w("Mpps: median [min-max] over the rounds; gv/DPDK: median of the per-round ratios "
          "(>1: gvirtio faster). cyc/pkt: testpmd --record-core-cycles on the driver side "
          "(TSC cycles of the loop turns that moved packets, testpmd's own work included, "
          "per packet), and in brackets how full the driver's RX bursts were on "
          "average (fill: packets per RX burst over the burst size, --record-burst-stats; near "
          "100%: the driver set the pace, low: it mostly found the ring empty and waited for "
          "the back-end). Guest TX shows in brackets instead the share of the packets txonly "
          "offered that the driver's ring took (sent N%: well below 100%, the ring was full "
          "and the back-end set the pace); there testpmd counts every turn of txonly's loop, "
          "sends into a full ring included, per packet sent. " +
          ("Same state: the median ratio over the rounds whose two "
          "samples ran with the machine in the same state (every cross-core round trip measured "
          "before and after each sample, bench/xcore_rtt.c, within %.1fx of the smallest; this "
          "machine's vCPUs move between physical cores, ~100 to ~2000 ns apart), how many such "
          "rounds of all, and their round trip. Best second: the highest per-second rate of each "
          "driver over all its rounds, and their ratio (interference from the rest of the host "
          "only ever slows a pair down, so on this machine the best second is the steadiest "
          "estimate of what each driver can do). Rounds gv faster: in how many rounds "
          "gvirtio's sample was the faster, and the two-sided sign test's p (how likely a "
          "split at least that uneven is if each round were a coin toss; the test needs no "
          "assumption about how widely single rounds spread)." % RTT_TOL))
        w("")
        w("| direction | ring | mrg | path | size | gvirtio Mpps | DPDK Mpps | gv/DPDK "
          "| rounds gv faster | same state: gv/DPDK (rounds, RTT) | best second gv / DPDK (ratio) | gv cyc/pkt "
          "| DPDK cyc/pkt |")
        w("| --- | --- | --- | --- | ---: | --- | --- | ---: | --- | --- | --- | ---: | ---: |")
        for r in rows:
            g, p = r["gv"], r["dpdk"]

            def mp(x):
                if x["mpps_median"] is None:
                    return "failed"
                return "%.2f [%.2f-%.2f]" % (x["mpps_median"], x["mpps_min"], x["mpps_max"])
            def cyc(x):
                if r["dir"] == "gtx":
                    v = x.get("sent_share_median")
                    return fmt(x["cyc_per_pkt_median"], 0) + ("" if v is None else
                                                              " (sent %s)" % pct_fmt(100 * v))
                f = x.get("burst_fill_pct_median")
                return fmt(x["cyc_per_pkt_median"], 0) + ("" if f is None else " (fill %s)" % pct_fmt(f))
            def same(r):
                n, rt = len(r.get("ratios_same_state") or []), r.get("rtt_ns_same_state") or []
                return "%s (%d of %d%s)" % (fmt(r.get("ratio_same_state_median")), n,
                                            len(r["ratios"]),
                                            ", %.0f ns" % median(rt) if rt else "")
            w("| %s | %s | %d | %s | %d | %s | %s | %s | %s | %s | %s / %s (%s) | %s | %s |" % (
                DIRS[r["dir"]], r["layout"], r["mrg_rxbuf"], r["path"], r["size"], mp(g), mp(p),
                fmt(r["ratio_median"]),
                sign_text(r["gv_faster_rounds"], r["rounds_compared"], r["sign_p"]), same(r),
                fmt(g["best_mpps"]), fmt(p["best_mpps"]),
                fmt(r.get("ratio_best")), cyc(g), cyc(p)))
        be_rows = [r for r in rows if r["gv"].get("be_cyc_per_pkt_median")
                   or r["dpdk"].get("be_cyc_per_pkt_median")]
        if be_rows:
            w("")
            w("The back-end's busy cycles a packet next to each driver (testpmd "
              "--record-core-cycles in BE_EXTRA: TSC cycles of the back-end's loop turns that "
              "moved packets, per packet it received (rxonly, mac) or sent (txonly, which "
              "counts its sends into a full ring too)): median over the rounds, and the median "
              "of the per-round ratios (>1: the back-end spent more a packet next to gvirtio). "
              "Busy: those cycles a packet times the sample's rate, over the TSC's rate. Near 1 "
              "(it passes 1 a little: the rate is the median of the measured seconds, the "
              "cycles count the whole run) the back-end was busy throughout and set the pace; "
              "its cycles a packet are then the inverse of the rate, and their ratio says no "
              "more than the rates' ratio. Well under 1, something else set the pace.")
            w("")
            w("| row | back-end cyc/pkt next to gvirtio | next to DPDK | gv/DPDK (rounds) "
              "| back-end busy next to gvirtio / DPDK |")
            w("| --- | ---: | ---: | --- | --- |")
            for r in be_rows:
                w("| %s | %s | %s | %s (%d) | %s / %s |" % (
                    r["id"], fmt(r["gv"].get("be_cyc_per_pkt_median"), 0),
                    fmt(r["dpdk"].get("be_cyc_per_pkt_median"), 0),
                    fmt(r.get("be_cyc_ratio_median")), len(r.get("be_cyc_ratios") or []),
                    fmt(r["gv"].get("be_busy_median")), fmt(r["dpdk"].get("be_busy_median"))))
        w("")
        w("Paths (devargs beyond path/packed_vq/mrg_rxbuf; rx / tx path as each driver logged it):")
        w("")
        w("| row | gvirtio devargs | gvirtio rx / tx | DPDK devargs | DPDK rx / tx |")
        w("| --- | --- | --- | --- | --- |")
        for r in rows:
            g, p = r["gv"], r["dpdk"]
            w("| %s | %s | %s / %s | %s | %s / %s |" % (
                r["id"], devargs_short(g["devargs"] or ""), g["rx_path"], g["tx_path"],
                devargs_short(p["devargs"] or ""), p["rx_path"], p["tx_path"]))
        w("")
        notes = [(r["id"], n) for r in rows for n in r["notes"]]
        if notes:
            w("Notes:")
            for rid, n in notes:
                w("- %s %s" % (rid, n))
            w("")
    if vg:
        w("#### Instructions per packet inside the PMD (callgrind, %s s of forwarding, --no-huge, "
          "back-end at nice %s)" % (meta.get("vg_secs"), meta.get("vg_nice")))
        w("")
        w("incl: inclusive cost (instructions) of all calls into the PMD's shared object from "
          "outside (its burst functions and what they call, e.g. mbuf/mempool library calls), "
          "per packet forwarded (guest TX: sent; guest RX: received). self: instructions "
          "executed inside the object only. Both with the bursts that moved nothing taken off "
          "(empty: their share of testpmd's bursts, --record-burst-stats; each costed at the "
          "average burst of an idle window with the back-end frozen, shown as instr per empty "
          "burst: the cost of a poll that finds nothing, or of a send into a full ring); raw: "
          "before that. "
          "D1 miss: simulated L1 data-cache misses per packet (--cache-sim, inclusive).")
        w("")
        w("| direction | ring | path | gv incl | DPDK incl | gv/DPDK | gv self | DPDK self "
          "| D1 miss gv / DPDK | empty gv / DPDK | raw incl gv / DPDK | instr per empty burst gv / DPDK "
          "| packets gv / DPDK |")
        w("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")

        def pct(x):
            return "-" if x is None else "%d%%" % x
        for rid in meta.get("vg_rows", []):
            g = next((c for c in vg if c["row"] == rid and c["driver"] == "gv"), {})
            p = next((c for c in vg if c["row"] == rid and c["driver"] == "dpdk"), {})
            d, layout, mrg, path, size = split_row(rid)
            ratio = (g["incl_per_pkt"] / p["incl_per_pkt"]
                     if g.get("incl_per_pkt") and p.get("incl_per_pkt") else None)
            w("| %s | %s | %s mrg%s %sB | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s "
              "| %s / %s | %s / %s |" % (
                  DIRS[d], layout, path, mrg, size, fmt(g.get("incl_per_pkt"), 1),
                  fmt(p.get("incl_per_pkt"), 1), fmt(ratio), fmt(g.get("self_per_pkt"), 1),
                  fmt(p.get("self_per_pkt"), 1), fmt(g.get("d1_miss_per_pkt"), 2),
                  fmt(p.get("d1_miss_per_pkt"), 2), pct(g.get("empty_burst_pct")),
                  pct(p.get("empty_burst_pct")), fmt(g.get("incl_per_pkt_raw"), 1),
                  fmt(p.get("incl_per_pkt_raw"), 1), fmt(g.get("empty_call_ir"), 0),
                  fmt(p.get("empty_call_ir"), 0), g.get("packets", "-"), p.get("packets", "-")))
        w("")
        for c in vg:
            if c.get("note"):
                w("- callgrind %s %s: %s" % (c["row"], c["driver"], c["note"]))
        w("")
        for c in vg:
            if c["driver"] != "gv" or not c.get("packets") or "functions" not in c:
                continue
            pk = c["packets"]
            w("gvirtio %s (rx %s, tx %s): instructions per packet (empty bursts taken off) and "
              "share of incl; self by function, then calls out of the object (inclusive):"
              % (c["row"], c.get("rx_path"), c.get("tx_path")))
            w("")
            w("```")
            for f, ir in c["functions"][:10]:
                w("  %8.1f  %5.1f%%  %s" % (ir / pk, 100.0 * ir / max(c["incl_ir_used"], 1), f))
            for f, ir, n in c["external"][:6]:
                w("  %8.1f  %5.1f%%  -> %s (%d calls)" % (ir / pk, 100.0 * ir / max(c["incl_ir_used"], 1), f, n))
            w("```")
            w("")
    for line in pmd_perf.markdown(rows, "librte_net_gvirtio.so / librte_net_virtio.so"):
        w(line)
    w(meta.get("perf", ""))
    md_figure_and_raw(w, meta, "gvirtio and DPDK Mpps per row (median, min-max) and gv/DPDK ratio",
                      "Raw results (every sample, the paths, callgrind details)")
    return "\n".join(out)


def md_figure_and_raw(w, meta, alt, raw):
    """The report's tail: its plot (meta png_md, with alt text `alt`) and
    where its raw results are (meta json_md, after `raw`), when there are."""
    if meta.get("png_md"):
        w("")
        w("![%s](%s)" % (alt, meta["png_md"]))
    if meta.get("json_md"):
        w("")
        w("%s: `%s`." % (raw, meta["json_md"]))


GNUPLOT = r"""
set terminal pngcairo size {width},900 font ",10"
set output "{png}"
set datafile separator "\t"
set multiplot layout 2,1 title "gvirtio vs DPDK net_virtio_user ({title})" noenhanced
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key outside top center horizontal noenhanced
set xrange [-0.6:{n}-0.4]
set xtics rotate by -35 noenhanced font ",9"
set ylabel "Mpps (median, min-max)"
set yrange [0:*]
plot "{dat}" using 3:4:5:xtic(2) title "gvirtio" lc rgb "#2b7bba", \
     "" using 6:7:8 title "DPDK net_virtio_user" lc rgb "#d9822b"
set style histogram clustered gap 1
set ylabel "gvirtio / DPDK (median of per-round ratios)"
set yrange [0:*]
unset key
plot "{dat}" using 9:xtic(2) lc rgb "#4a9a4a", \
     "" using 1:9:(sprintf("%.2f", $9)) with labels offset 0,0.8 font ",9" notitle, \
     1 with lines lc rgb "black" dt 2 notitle
unset multiplot
"""


def plot(rows, png, gdir, meta):
    if not shutil.which("gnuplot"):
        print("pmd_report: gnuplot missing, no plot", file=sys.stderr)
        return False
    dat = os.path.join(gdir, "pmd.dat")
    with open(dat, "w") as f:
        for i, r in enumerate(rows):
            g, p = r["gv"], r["dpdk"]
            lab = "%s %s m%d %s %d" % (r["dir"], r["layout"], r["mrg_rxbuf"], r["path"], r["size"])
            # gnuplot's errorbar histograms crash on NaN (5.4): a failed
            # driver is a zero bar, named in the label
            failed = [n for n, x in (("gv", g), ("DPDK", p)) if x["mpps_median"] is None]
            if failed:
                lab += " (%s failed)" % "+".join(failed)

            def v(x):
                return "0" if x is None else "%.4f" % x
            f.write("\t".join([str(i), lab, v(g["mpps_median"]), v(g["mpps_min"]), v(g["mpps_max"]),
                               v(p["mpps_median"]), v(p["mpps_min"]), v(p["mpps_max"]),
                               v(r["ratio_median"])]) + "\n")
    gp = os.path.join(gdir, "pmd.gp")
    with open(gp, "w") as f:
        f.write(GNUPLOT.format(png=png, dat=dat, width=max(900, 70 * len(rows) + 300), n=len(rows),
                               title="%s rounds, %s" % (
                                   meta.get("rounds"),
                                   "gvirtio " + meta["plugin_desc"].split()[0] if meta.get("plugin_desc")
                                   else "git " + str(meta.get("git")))))
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        print("pmd_report: gnuplot failed: " + r.stderr.strip()[-500:], file=sys.stderr)
        return False
    return True


def repo_rel(path):
    """path relative to the repository (bench/results/...)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.relpath(os.path.abspath(path), root)


def get_meta(a):
    meta = {}
    for kv in a.meta:
        k, _, v = kv.partition("=")
        meta[k] = v
    meta["vg_rows"] = a.vg_rows.split()
    return meta


def save(res, a):
    for path in (a.json, a.latest):
        if path:
            with open(path, "w") as f:
                json.dump(res, f, indent=1)
    if a.json:
        print("results: %s" % repo_rel(a.json), file=sys.stderr)


def cmd_report(a):
    samples = load_jsonl(a.samples)
    vg = load_jsonl(a.callgrind) if a.callgrind else []
    meta = get_meta(a)
    rows = summarize(samples, a.rows.split())
    # links as docs/performance.md sees them (commit the files with it)
    have_png = bool(a.png and rows and plot(rows, a.png, a.gnuplot_dir, meta))
    if have_png:
        meta["png_md"] = "../" + repo_rel(a.png)
        if a.png_latest:
            shutil.copyfile(a.png, a.png_latest)
    if a.json:
        meta["json_md"] = repo_rel(a.json)
    text = markdown(rows, vg, meta)
    print(text)
    save({"meta": meta, "rows": rows, "callgrind": vg, "samples": samples, "markdown": text}, a)
    if have_png:
        print("plot: %s (copy: %s)" % (repo_rel(a.png), repo_rel(a.png_latest) if a.png_latest else "-"),
              file=sys.stderr)



def header_line(meta):
    return ("`%s` (git %s%s, DPDK %s; %s; %s rounds x %s s, %s warm-up samples dropped; %s; "
            "elapsed %s s)" % (meta.get("command"), meta.get("git"),
                               ", plugin: " + meta["plugin_desc"] if meta.get("plugin_desc") else "",
                               meta.get("dpdk"), meta.get("cpu"), meta.get("rounds"), meta.get("secs"),
                               meta.get("warmup"), meta.get("memory"), meta.get("elapsed_s")))


def cmd_compare(a):
    runs = []
    for path in (a.old, a.new):
        with open(path) as f:
            runs.append(json.load(f))
    old = {r["id"]: r for r in runs[0]["rows"]}
    print("### %s -> %s" % (repo_rel(a.old), repo_rel(a.new)))
    print("")
    for tag, run in (("old", runs[0]), ("new", runs[1])):
        print("- %s: %s" % (tag, header_line(run["meta"])))
    print("")
    print("| row | gvirtio Mpps old -> new | DPDK Mpps old -> new | gv/DPDK old -> new | change |")
    print("| --- | --- | --- | --- | ---: |")
    for r in runs[1]["rows"]:
        o = old.get(r["id"])
        if o is None:
            continue
        a_, b_ = o["ratio_median"], r["ratio_median"]
        print("| %s | %s -> %s | %s -> %s | %s -> %s | %s |" % (
            r["id"], fmt(o["gv"]["mpps_median"]), fmt(r["gv"]["mpps_median"]),
            fmt(o["dpdk"]["mpps_median"]), fmt(r["dpdk"]["mpps_median"]), fmt(a_), fmt(b_),
            "%+.0f%%" % (100 * (b_ / a_ - 1)) if a_ and b_ else "-"))
    missing = sorted(set(old) - {r["id"] for r in runs[1]["rows"]})
    if missing:
        print("")
        print("Only in the old run: " + ", ".join(missing))


def cmd_sweep(a):
    import pmd_sweep  # bench/pmd_sweep.py: the sweep's tables and plot
    pmd_sweep.cmd_sweep(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("median")
    p.add_argument("values")
    p = sub.add_parser("sample")
    for k in ("--row", "--driver", "--devargs", "--rates", "--fe-log", "--be-log", "--note", "--rtt",
              "--perf"):
        p.add_argument(k, default="")
    p.add_argument("--round", type=int, required=True)
    p = sub.add_parser("cg")
    for k in ("--row", "--driver", "--devargs", "--file", "--idle-file", "--fe-log", "--so", "--note"):
        p.add_argument(k, default="")
    p.add_argument("--pretty", action="store_true")
    for name in ("report", "sweep"):
        p = sub.add_parser(name)
        p.add_argument("--samples", required=True)
        p.add_argument("--callgrind", default="")
        p.add_argument("--rows", default="")
        p.add_argument("--vg-rows", default="")
        p.add_argument("--json", default="")
        p.add_argument("--latest", default="")
        p.add_argument("--png", default="")
        p.add_argument("--png-latest", default="")
        p.add_argument("--gnuplot-dir", default="/tmp")
        p.add_argument("--meta", action="append", default=[])
    p = sub.add_parser("compare")
    p.add_argument("old")
    p.add_argument("new")
    a = ap.parse_args()
    {"median": cmd_median, "sample": cmd_sample, "cg": cmd_cg, "report": cmd_report,
     "sweep": cmd_sweep, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    main()
