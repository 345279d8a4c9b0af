#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/pvp.sh - the in-guest benchmark: PVP (host switch -> VM -> host
# switch) with gvirtio and with DPDK's net_virtio in the same guest.
#
#   bash bench/pvp.sh                     4 rounds x 10 s per driver, 64 and 1518 B
#   ROUNDS=8 SIZES=64 bash bench/pvp.sh
#
# The guest is tests/guest/run.sh's (Debian's kernel, an initramfs of the
# current build, two virtio-net-pci NICs on vhost-user, bound to vfio-pci
# no-IOMMU); its case "bench" runs the guest step of the same name
# (tests/guest/init.sh): testpmd io forwarding NIC0 <-> NIC1 while a host
# testpmd (two net_vhost ports, flowgen: it floods both ports with frames
# of the size and drops what comes back) runs on CPU 0 and QEMU on CPU 1.
# Each round runs gvirtio, then DPDK's PMD, or the other way round (A B B
# A); a run's rate per direction is the median per-second Tx-pps of the
# port that sends it (0 -> 1: port 1's TX; 1 -> 0: port 0's), over its last
# SECS seconds: what the guest forwarded and the host's vhost took.
#
# Acceleration: KVM when /dev/kvm works and boots Debian's kernel fast (a
# timed boot to its first panic without a root file system, 20 s at
# most), else TCG. Every table says which. TCG figures are emulated: they
# rank the drivers' instruction counts, not what a KVM guest would see.
# docs/performance.md has the recipe for a real KVM host.
#
# Output: a line per run on stderr; on stdout a markdown table per frame
# size (medians over rounds of each driver's Mpps per direction, the
# median of the per-round ratios gvirtio/DPDK with the sign test);
# bench/results/pvp-<timestamp>.json (every run) and .png (Mpps per round
# and driver, both directions, drawn with gnuplot).
# Environment: ROUNDS (4), SECS (10), SIZES (64 1518), ACCEL (auto, kvm,
# tcg). Needs what tests/guest/run.sh needs (scripts/setup.sh) and a
# build (scripts/build.sh build). Exit 1 if a run failed, 2 on a set-up error.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-4}
SECS=${SECS:-10}
SIZES=${SIZES:-64 1518}
ACCEL=${ACCEL:-auto}
die() { echo "pvp: $*" >&2; exit 2; }
for v in ROUNDS SECS; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer"; done
for s in $SIZES; do [[ $s =~ ^[0-9]+$ ]] && [ "$s" -ge 60 ] && [ "$s" -le 1518 ] || die "SIZES: 60-1518"; done
[[ $ACCEL =~ ^(auto|kvm|tcg)$ ]] || die "ACCEL: auto, kvm or tcg"
[ "$(id -u)" = 0 ] || die "must run as root (vfio, QEMU, hugepages)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (host switch on 0, guest on 1)"
OUT=$ROOT/bench/results/pvp-$(date +%Y%m%d-%H%M%S)
mkdir -p "$ROOT/bench/results" || die "cannot make bench/results"
logs=$ROOT/build/guest-tests

# KVM only when it is fast here: a nested KVM can be far slower than TCG.
kvm_fast() {
	local kdir f rc
	[ -w /dev/kvm ] || return 1
	kdir=$(bash "$ROOT/tests/guest/kernel.sh") || return 1
	f=$(mktemp)
	timeout -s KILL 20 qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
		-accel kvm -cpu host,-arch-capabilities -m 512 -kernel "$kdir/vmlinuz" \
		-append "console=ttyS0 panic=-1 quiet" -serial "file:$f" </dev/null >/dev/null 2>&1
	rc=$?
	grep -q "Kernel panic" "$f"
	local seen=$?
	rm -f "$f"
	[ "$seen" = 0 ] && [ "$rc" != 137 ]
}
if [ "$ACCEL" = auto ]; then
	ACCEL=tcg
	if kvm_fast; then ACCEL=kvm; fi
fi
echo "pvp: guest on $ACCEL$([ "$ACCEL" = tcg ] && echo " (emulated: KVM missing or too slow here)")" >&2

RUNS=$OUT.runs
: >"$RUNS"
fail=0
for size in $SIZES; do
	echo "pvp: $size B: booting the guest ($ROUNDS rounds x $SECS s per driver)" >&2
	if ! GV_ACCEL=$ACCEL GV_PIN=1 GV_BENCH="$ROUNDS,$SECS" GV_BENCH_SIZE=$size \
		GV_LIMIT=$((300 + ROUNDS * 2 * (SECS + 60))) bash "$ROOT/tests/guest/run.sh" bench >"$OUT.$size.log" 2>&1; then
		fail=1
		echo "pvp: $size B: the guest run failed: $(grep -m3 'guest:   ' "$OUT.$size.log")" >&2
	fi
	grep '^GVBENCH ' "$logs/bench.log" 2>/dev/null | sed "s/^GVBENCH /size=$size /" | tee -a "$RUNS" | sed 's/^/pvp: /' >&2
done

python3 - "$RUNS" "$OUT" "$ACCEL" "$ROUNDS" "$SECS" "$ROOT/bench" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[6])
from pmd_stats import median, sign_test, sign_text
runs_file, out, accel, rounds, secs = sys.argv[1:6]
runs = []
for line in open(runs_file):
    kv = dict(f.split("=", 1) for f in line.split())
    r = {k: (v if k == "driver" else int(v)) for k, v in kv.items()}
    r["mpps_01"], r["mpps_10"] = r["tx1"] / 1e6, r["tx0"] / 1e6
    runs.append(r)
json.dump({"accel": accel, "rounds": int(rounds), "secs": int(secs), "runs": runs},
          open(out + ".json", "w"), indent=1)
label = "KVM" if accel == "kvm" else "TCG (emulated: ranks instruction counts, not KVM speed)"
print("PVP in a guest on %s; %s rounds x %s s per driver, alternated; Mpps forwarded per direction" % (label, rounds, secs))
print()
print("| frame B | direction | gvirtio Mpps | DPDK net_virtio Mpps | gvirtio/DPDK | gvirtio faster |")
print("| ---: | --- | ---: | ---: | ---: | --- |")
f = lambda v: "-" if v is None else "%.3f" % v
for size in sorted({r["size"] for r in runs}):
    for key, name in (("mpps_01", "NIC0 -> NIC1"), ("mpps_10", "NIC1 -> NIC0")):
        by = {}
        for r in runs:
            if r["size"] == size:
                by.setdefault(r["round"], {})[r["driver"]] = r[key]
        gv = [x["gvirtio"] for x in by.values() if "gvirtio" in x]
        dp = [x["dpdk"] for x in by.values() if "dpdk" in x]
        ratios = [x["gvirtio"] / x["dpdk"] for x in by.values() if x.get("dpdk") and "gvirtio" in x]
        print("| %d | %s | %s | %s | %s | %s |" % (size, name, f(median(gv)), f(median(dp)),
              f(median(ratios)), sign_text(*sign_test(ratios))))
# the plot's data: one block per frame size, a line per round (gvirtio, DPDK, both directions)
with open(out + ".dat", "w") as d:
    for size in sorted({r["size"] for r in runs}):
        d.write("# %d B\n" % size)
        for rnd in sorted({r["round"] for r in runs if r["size"] == size}):
            v = {r["driver"]: r["mpps_01"] + r["mpps_10"] for r in runs if r["size"] == size and r["round"] == rnd}
            d.write("%d %s %s\n" % (rnd, v.get("gvirtio", "NaN"), v.get("dpdk", "NaN")))
        d.write("\n\n")
EOF
if command -v gnuplot >/dev/null && [ -s "$OUT.dat" ]; then
	nblocks=$(grep -c '^# ' "$OUT.dat")
	gnuplot <<GP 2>/dev/null && echo && echo "Plot: $OUT.png; runs: $OUT.json"
set terminal pngcairo size $((450 * nblocks)),400 font ",10" noenhanced
set output "$OUT.png"
set multiplot layout 1,$nblocks
set xlabel "round"; set ylabel "Mpps, both directions"; set key bottom right; set yrange [0:*]
do for [i=0:$((nblocks - 1))] {
  set title sprintf("%s, %s", system("grep '^# ' $OUT.dat | sed -n " . (i + 1) . "p | cut -c3-"), "$ACCEL")
  plot "$OUT.dat" index i using 1:2 with linespoints title "gvirtio", "" index i using 1:3 with linespoints title "DPDK net_virtio"
}
unset multiplot
GP
else
	echo && echo "Runs: $OUT.json (no plot: gnuplot missing)"
fi
rm -f "$RUNS" "$OUT.dat"
exit $fail
