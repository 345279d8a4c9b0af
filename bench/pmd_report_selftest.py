#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pmd_report_selftest.py - checks bench/pmd_report.py's,
bench/pmd_sweep.py's and bench/pmd_perf.py's statistics
(medians, min-max, median of per-round ratios), its markdown tables and the
sweep's "within 10% of the best" verdicts on made-up samples with known
answers. Run: python3 bench/pmd_report_selftest.py (exit 0: ok)."""
import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pmd_report import (burst_fill_pct, cell_of, cmd_compare, cmd_sample, markdown,  # noqa: E402
                        median, paths_of, summarize)
from pmd_sweep import sweep_markdown, sweep_tables  # noqa: E402
from pmd_perf import count_functions, fde_ranges, function_of, parse_report  # noqa: E402
from pmd_stats import sign_test, sign_text  # noqa: E402
import pmd_ab_summary  # noqa: E402


def check_sign_test():
    """The sign test against values worked out by hand."""
    # 8 of 30: 2 * sum(C(30, i), i <= 8) / 2^30
    wins, n, p = sign_test([1.1] * 8 + [0.9] * 22)
    assert (wins, n) == (8, 30) and abs(p - 0.0161248) < 1e-6, p
    # ties and missing rounds are left out; 1 of 2 is as even as it gets
    assert sign_test([1.2, 0.8, 1.0, None]) == (1, 2, 1.0)
    assert sign_test([]) == (0, 0, None) and sign_text(*sign_test([None])) == "-"
    assert sign_text(*sign_test([2.0] * 10)) == "10 of 10, p 0.002"


def check_ab_summary():
    """pmd_ab.sh's table from made-up runs: variant b's round 2 failed."""
    with tempfile.TemporaryDirectory() as out:
        ratios = {"a": [1.0, 0.8, 0.9, 0.5], "b": [1.2, None, 1.0, 1.1]}
        for name, rs in ratios.items():
            for k, x in enumerate(rs, 1):
                if x is None:
                    continue
                os.makedirs(os.path.join(out, "%s-r%d" % (name, k)))
                row = {"id": "loop/split/mrg1/inorder/64", "ratio_median": x,
                       "gv": {"mpps_median": 10 * x, "be_cyc_per_pkt_median": 200 / x,
                              "be_busy_median": 0.9},
                       "dpdk": {"mpps_median": 10.0, "be_cyc_per_pkt_median": 200.0,
                                "be_busy_median": 1.0},
                       "be_cyc_ratio_median": 1 / x}
                with open(os.path.join(out, "%s-r%d" % (name, k), "pmd-latest.json"), "w") as f:
                    json.dump({"rows": [row]}, f)
        with contextlib.redirect_stdout(io.StringIO()) as so:
            assert pmd_ab_summary.main([out, "4", "a", "b"]) == 0
        with open(os.path.join(out, "ab.json")) as f:
            res = json.load(f)
    a, b = res["rows"]
    assert a["ratios"] == [1.0, 0.8, 0.9, 0.5] and abs(a["ratio_median"] - 0.85) < 1e-9, a
    # the tie (1.0) is not a round gvirtio won or lost
    assert (a["gv_faster_rounds"], a["rounds_compared"]) == (0, 3) and "vs_first" not in a, a
    v = b["vs_first"]
    # b over a in rounds 1, 3, 4 (b's round 2 failed): 1.2, 1.11, 2.2
    assert [round(x, 2) for x in v["per_round"]] == [1.2, 1.11, 2.2], v
    assert (v["ahead_rounds"], v["rounds_compared"], v["sign_p"]) == (3, 3, 0.25), v
    md = so.getvalue()
    assert "| loop/split/mrg1/inorder/64 | b / a | 1.20, 1.11, 2.20 | 1.20 | 3 of 3, p 0.25 |" in md, md
    assert ("| loop/split/mrg1/inorder/64 | b | 1.20, -, 1.00, 1.10 | 1.10 | 2 of 2, p 0.5 "
            "| 11.00 / 10.00 | 182 / 200 (0.91) | 0.90 / 1.00 |") in md, md
    # a's back-end: 200/x over 1.0, 0.8, 0.9, 0.5 -> median of 200, 250, 222, 400
    assert abs(a["be_cyc_gv_median"] - 236.1) < 0.1 and a["be_cyc_dpdk_median"] == 200, a


def check_backend_cycles(smp, row):
    """BE_EXTRA=--record-core-cycles: the back-end's busy cycles a packet,
    read from its log by `sample`, summarized per driver and per round."""
    be_log = ("  +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++\n"
              "  RX-packets: 1000       RX-dropped: 0             RX-total: 1000\n"
              "  TX-packets: 990        TX-dropped: 10            TX-total: 1000\n"
              "  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n\n"
              "  CPU cycles/packet=187.50 (total cycles=187500 / total mac packets=1000) at "
              "2450 MHz Clock\n")
    with tempfile.TemporaryDirectory() as td:
        path = os.path.join(td, "be.log")
        with open(path, "w") as f:
            f.write(be_log)
        out = io.StringIO()
        args = argparse.Namespace(round=1, row=row, driver="gv", devargs="", rates="5000000,6000000,7000000",
                                  fe_log=os.path.join(td, "none"), be_log=path, note="",
                                  rtt="", perf="")
        with contextlib.redirect_stdout(out):
            cmd_sample(args)
        rec = json.loads(out.getvalue())
        assert rec["be_cyc_per_pkt"] == 187.5, rec
        assert rec["backend_stats"]["TX-dropped"] == 10, rec
        # 187.5 cycles a packet at 6 Mpps (the rates' median) on a 2450 MHz TSC: 0.459
        assert abs(rec["be_busy"] - 187.5 * 6e6 / 2450e6) < 1e-9, rec

        def sample_with(be_path):
            args.be_log = be_path
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                cmd_sample(args)
            return json.loads(out.getvalue())
        rec = sample_with("")  # without BE_EXTRA: no back-end figures
        assert "be_cyc_per_pkt" not in rec and "backend_stats" not in rec, rec
        rec = sample_with(os.path.join(td, "missing.log"))  # the back-end left no log
        assert rec["backend_stats"] is None and rec["be_cyc_per_pkt"] is None, rec
        with open(path, "w") as f:  # BE_EXTRA without --record-core-cycles
            f.write(be_log[:be_log.index("  CPU cycles")])
        rec = sample_with(path)
        assert rec["backend_stats"]["RX-packets"] == 1000 and rec["be_cyc_per_pkt"] is None, rec
        assert "be_busy" not in rec, rec
    # rounds 1-3: next to gvirtio 200, 210, 300; next to DPDK 200, 200, none
    # -> medians 210 / 200; per-round ratios only where both ran: 1.0 and 1.05,
    # median 1.025 (the ratio of the medians would be 1.05)
    ss = []
    for rnd, g, p in ((1, 200.0, 200.0), (2, 210.0, 200.0), (3, 300.0, None)):
        a, b = smp(rnd, row, "gv", [10e6]), smp(rnd, row, "dpdk", [9e6])
        a["be_cyc_per_pkt"], b["be_cyc_per_pkt"] = g, p
        a["be_busy"], b["be_busy"] = 0.9 + rnd / 100, 0.8
        ss += [a, b]
    ss.append(smp(4, row, "gv", [10e6]))  # a round without a DPDK sample at all
    r = summarize(ss, [row])[0]
    assert r["gv"]["be_cyc_per_pkt_median"] == 210 and r["dpdk"]["be_cyc_per_pkt_median"] == 200
    assert [round(x, 3) for x in r["be_cyc_ratios"]] == [1.0, 1.05], r["be_cyc_ratios"]
    assert abs(r["be_cyc_ratio_median"] - 1.025) < 1e-9
    assert abs(r["gv"]["be_busy_median"] - 0.92) < 1e-9 and r["dpdk"]["be_busy_median"] == 0.8
    md = markdown([r], [], {"command": "c"})
    assert "| %s | 210 | 200 | 1.02 (2) | 0.92 / 0.80 |" % row in md, md


def main():
    """Made-up samples with known answers through summarize/markdown/sweep."""
    def smp(rnd, row, drv, rates, note=None):
        m = median(rates)
        return {"round": rnd, "row": row, "driver": drv, "devargs": "x,path=s,datapath=inorder",
                "rates_pps": rates, "mpps": m / 1e6 if m else None, "cyc_per_pkt": 100.0 + rnd,
                "rx_path": "mergeable", "tx_path": "inorder", "vq_sizes": None, "note": note}
    row = "grx/split/mrg1/inorder/64"
    ss = [smp(1, row, "gv", [10e6, 9e6, 11e6]), smp(1, row, "dpdk", [5e6]),
          smp(2, row, "gv", [12e6]), smp(2, row, "dpdk", [6e6]),
          smp(3, row, "gv", [11e6]), smp(3, row, "dpdk", [4e6])]
    r = summarize(ss, [row])[0]
    # gv 10, 12, 11 -> median 11 [10-12]; ratios 2, 2, 2.75 -> median 2 (not 11/5 = 2.2)
    assert abs(r["gv"]["mpps_median"] - 11) < 1e-9, r["gv"]
    assert (r["gv"]["mpps_min"], r["gv"]["mpps_max"]) == (10, 12)
    assert abs(r["dpdk"]["mpps_median"] - 5) < 1e-9
    assert [round(x, 3) for x in r["ratios"]] == [2.0, 2.0, 2.75], r["ratios"]
    assert abs(r["ratio_median"] - 2.0) < 1e-9
    # gvirtio faster in all 3 rounds: the sign test's two-sided p is 2/8
    assert (r["gv_faster_rounds"], r["rounds_compared"], r["sign_p"]) == (3, 3, 0.25), r
    assert r["gv"]["cyc_per_pkt_median"] == 102.0
    # best second: gv's 12 (round 2) over DPDK's 6 (round 2)
    assert (r["gv"]["best_mpps"], r["dpdk"]["best_mpps"], r["ratio_best"]) == (12, 6, 2), r
    # a failed DPDK sample: that round has no ratio, the others stay
    ss2 = ss[:5] + [smp(3, row, "dpdk", [], "only 0 of 1 samples")]
    r2 = summarize(ss2, [row])[0]
    assert len(r2["ratios"]) == 2 and r2["dpdk"]["mpps_min"] == 5 and r2["notes"]
    assert (r2["gv_faster_rounds"], r2["rounds_compared"]) == (2, 2), r2
    # same state: a round compares only when its four round trips agree
    # within RTT_TOL; round 1 (100/110/105/120) and 3 (500/520/510/600)
    # do, round 2 (100 then 500) does not: ratios 2 and 2.75 -> 2.375
    for x, rt in zip(ss, ([100, 110], [105, 120], [100, 100], [500, 500],
                          [500, 520], [510, 600])):
        x["rtt_ns"] = rt
    r3 = summarize(ss, [row])[0]
    assert [round(x, 3) for x in r3["ratios_same_state"]] == [2.0, 2.75], r3
    assert abs(r3["ratio_same_state_median"] - 2.375) < 1e-9
    assert "| 2.00 | 3 of 3, p 0.25 | 2.38 (2 of 3, 311 ns) | 12.00 / 6.00 (2.00) |" in markdown([r3], [], {"command": "c"})
    ss[5]["rtt_ns"] = None  # no tags (no compiler): no same-state rounds
    assert summarize(ss, [row])[0]["ratios_same_state"] == [2.0]
    # no back-end cycles recorded: no back-end table
    assert "back-end cyc/pkt" not in markdown([r3], [], {"command": "c"})
    check_backend_cycles(smp, row)
    # perf profiles: the busiest thread is the forwarding one; its samples
    # by object group; a stripped object's addresses count as one entry
    rep = ("6  |rte-worker-1|dpdk-testpmd |[.] 0x000000000008e600\n"
           "2  |rte-worker-1|dpdk-testpmd |[.] 0x000000000008e82d\n"
           "1  |rte-worker-1|librte_net_gvirtio.so |[.] tx_inorder_body_packed_smp\n"
           "1  |rte-worker-1|[kernel.kallsyms] |[k] handle_softirqs\n"
           "3  |eal-intr-thread|libc.so.6 |[.] epoll_wait\n# a comment\n")
    pf = parse_report(rep)
    assert pf["worker"] == "rte-worker-1" and pf["samples"] == 10, pf
    assert pf["group_pct"] == {"testpmd": 80.0, "PMD": 10.0, "kernel": 10.0}, pf
    assert pf["top"][0] == [80.0, "dpdk-testpmd", "(no symbols)"], pf
    assert pf["hot_addr"][0] == [60.0, "dpdk-testpmd", "0x000000000008e600"], pf
    assert parse_report("") is None
    pf2 = dict(pf, group_pct={"testpmd": 60.0, "PMD": 40.0})
    for x, p in zip(ss, (pf, pf, None, pf, pf2, pf)):
        x["perf"] = p
    r4 = summarize(ss, [row])[0]
    # gv: rounds 1 and 3 profiled (PMD 10 and 40 -> median 25); cyc/pkt 102
    assert r4["gv"]["perf"]["rounds"] == 2 and r4["gv"]["perf"]["group_pct"]["PMD"] == 25.0, r4["gv"]
    md4 = markdown([r4], [], {"command": "c"})
    assert "| grx/split/mrg1/inorder/64 | gvirtio | 25.0% (26) | 70.0% (71) | 5.0% (5) | 102 |" in md4, md4
    md = markdown([r], [], {"command": "c", "png_md": "../bench/results/p.png"})
    assert "| guest RX | split | 1 | inorder | 64 | 11.00 [10.00-12.00] | 5.00 [4.00-6.00] | 2.00 |" in md, md
    assert "![" in md
    # sweep: best 10 at ring 512 burst 32; 9.0 is within 10%, 8.9 is not
    cells = []
    vals = {(256, 1): 5.0, (256, 32): 9.0, (512, 1): 8.9, (512, 32): 10.0}
    for (ring, b), v in vals.items():
        rid = "gtx/packed/mrg1/inorder/64/r%d/b%d" % (ring, b)
        cells.append(smp(1, rid, "gv", [v * 1e6]))
        if b == 32:
            cells.append(smp(1, rid, "dpdk", [v * 0.5e6]))
    rows = summarize(cells, sorted({c["row"] for c in cells}))
    t = sweep_tables(rows)
    gv = next(x for x in t if x["driver"] == "gv")
    dp = next(x for x in t if x["driver"] == "dpdk")
    assert (gv["best_mpps"], gv["best_ring"], gv["best_burst"]) == (10.0, 512, 32), gv
    v = {(c["ring"], c["burst"]): c["within_10pct"] for c in gv["cells"]}
    assert v == {(256, 1): False, (256, 32): True, (512, 1): False, (512, 32): True}, v
    assert gv["within"] == 2 and gv["n"] == 4 and dp["n"] == 2 and dp["within"] == 2
    smd = sweep_markdown(rows, t, {"command": "c"})
    assert "| 256 | 5.00 (-50%) | 9.00 ok |" in smd, smd
    assert "| 512 | 8.90 (-11%) | 10.00 ok |" in smd, smd
    assert "| 256 |  | 4.50 (-10%) |" not in smd and "| 256 |  | 4.50 ok |" in smd, smd
    assert "| guest TX | packed | 512 | 32 | 10.00 | 5.00 | 2.00 | 10.00 / 5.00 (2.00) |" in smd, smd
    # best second per cell: ring 256 burst 1 ran slow (round 1 seconds 2, 3, 9.5: median 3;
    # round 2: 4; over the rounds 3.5) but had one second at 9.5, within 10% of the best
    # second (10): ok in the best-second table, not in the median one
    cells2 = [smp(1, "gtx/split/mrg1/inorder/64/r256/b1", "gv", [2e6, 3e6, 9.5e6]),
              smp(1, "gtx/split/mrg1/inorder/64/r256/b32", "gv", [10e6]),
              smp(2, "gtx/split/mrg1/inorder/64/r256/b1", "gv", [4e6])]
    rows2 = summarize(cells2, sorted({c["row"] for c in cells2}))
    med2, best2 = sweep_tables(rows2), sweep_tables(rows2, "best_mpps")
    vm = {c["burst"]: c["within_10pct"] for c in med2[0]["cells"]}
    vb = {c["burst"]: (c["mpps"], c["within_10pct"]) for c in best2[0]["cells"]}
    assert vm == {1: False, 32: True}, vm
    assert vb == {1: (9.5, True), 32: (10.0, True)}, vb
    assert best2[0]["metric"] == "best_mpps" and best2[0]["within"] == 2
    smd2 = sweep_markdown(rows2, med2, {"command": "c"}, best2)
    assert "##### best second: guest TX, split, gvirtio: best 10.00 Mpps" in smd2, smd2
    assert "| 256 | 9.50 ok | 10.00 ok |" in smd2 and "| 256 | 3.50 (-65%) | 10.00 ok |" in smd2, smd2
    assert cell_of("gtx/split/mrg1/inorder/64/r1024/b8") == (1024, 8)
    assert cell_of(row) == (None, None)
    # the paths each driver logged
    assert paths_of("gvirtio: net_gvirtio_user0: rx path mergeable, tx path inorder (split ring)",
                    "gv") == ("mergeable", "inorder")
    assert paths_of("gvirtio: net_gvirtio_user0: rx path vectorized (AVX2), tx path inorder "
                    "(split ring)", "gv") == ("vectorized (AVX2)", "inorder")
    assert paths_of("virtio_x(): virtio: using inorder Rx path on port 0\n"
                    "virtio_y(): virtio: using inorder Tx path on port 0", "dpdk") == ("inorder", "inorder")
    # RX burst fill: RX-packets / (last RX-bursts count x the row's burst size)
    log = ("  RX-bursts : 10 [1% of 32 pkts]\n  RX-bursts : 400 [61% of 32 pkts + 39% of 0 pkts]\n"
           "  +++ Accumulated forward statistics for all ports+++\n"
           "  RX-packets: 3200           RX-dropped: 0             RX-total: 3200\n")
    assert abs(burst_fill_pct(log, row) - 25.0) < 1e-9
    assert abs(burst_fill_pct(log, "loop/split/mrg1/inorder/64/r256/b8") - 100.0) < 1e-9
    assert burst_fill_pct(log, "gtx/split/mrg1/inorder/64") is None
    assert burst_fill_pct("", row) is None
    # compare: two runs' JSON, the ratio's change per row (2.00 -> 2.50: +25%)
    ss3 = [dict(x) for x in ss]
    for x in ss3:
        if x["driver"] == "dpdk":
            x["mpps"] *= 0.8
    with tempfile.TemporaryDirectory() as td:
        files = []
        for i, samples in enumerate((ss, ss3)):
            files.append(os.path.join(td, "r%d.json" % i))
            with open(files[-1], "w") as f:
                json.dump({"meta": {"command": "c%d" % i}, "rows": summarize(samples, [row])}, f)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cmd_compare(argparse.Namespace(old=files[0], new=files[1]))
    line = "| %s | 11.00 -> 11.00 | 5.00 -> 4.00 | 2.00 -> 2.50 | +25%% |" % row
    assert line in out.getvalue(), out.getvalue()
    # pmd_perf functions: samples of a stripped library by its .eh_frame function ranges
    ranges = fde_ranges("00000018 0000000000000024 0000001c FDE cie=00000000 pc=0000000000004020..00000000000045d0\n"
                        "00000040 0000000000000014 00000044 FDE cie=00000000 pc=0000000000005000..0000000000005100\n")
    assert ranges == [(0x4020, 0x45d0), (0x5000, 0x5100)], ranges
    assert function_of(ranges, 0x4020) == 0x4020 and function_of(ranges, 0x45cf) == 0x4020
    assert function_of(ranges, 0x45d0) is None and function_of(ranges, 0x50ff) == 0x5000
    script = ("PERF_RECORD_MMAP2 1/1: [0x7f0000004000(0xac000) @ 0x4000 fe:00 1 0]: r-xp /usr/lib/librte_vhost.so.23.0\n"
              "PERF_RECORD_MMAP2 1/1: [0x7f0000100000(0x4000) @ 0x2000 fe:00 2 0]: r-xp /usr/lib/librte_net_vhost.so.23.0\n"
              "    7f0000004030 [unknown] (/usr/lib/librte_vhost.so.23.0)\n"
              "    7f0000005010 [unknown] (/usr/lib/librte_vhost.so.23.0)\n"
              "    7f0000005010 [unknown] (/usr/lib/librte_vhost.so.23.0)\n"
              "    7f0000004800 [unknown] (/usr/lib/librte_vhost.so.23.0)\n"
              "    7f0000100010 [unknown] (/usr/lib/librte_net_vhost.so.23.0)\n")
    cnt, total = count_functions(script, "/lib/librte_vhost.so.23", ranges)
    assert total == 5, total
    assert cnt == {"librte_vhost.so.23+0x4020": 1, "librte_vhost.so.23+0x5000": 2,
                   "librte_vhost.so.23+?": 1, "librte_net_vhost.so.23.0": 1}, cnt
    check_sign_test()
    check_ab_summary()
    print("pmd_report selftest: ok")


if __name__ == "__main__":
    main()
