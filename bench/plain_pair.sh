#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/plain_pair.sh - guest RX as a new user would measure it: two plain
# dpdk-testpmd processes and nothing else, gvirtio against DPDK's
# net_virtio_user on the same back-end settings. It is the cross-check of
# bench/pmd_compare.sh's grx rows, with the app's own defaults where
# pmd_compare sets them (no queue_size devarg: each driver sizes its ring
# as it does for an app; no --burst).
#
#   bash bench/plain_pair.sh                    ring sizes 256 1024, 8 rounds of 5 s
#   NDESC='256 1024 4096' ROUNDS=8 bash bench/plain_pair.sh
#
# Per sample, both started fresh, hugepages (--in-memory
# --single-file-segments -m 512; reserved if needed and given back):
#   back-end on CPU 0: dpdk-testpmd --lcores 0@0,1@0 --no-pci
#     --vdev net_vhost0,iface=SOCK,queues=1 -- --forward-mode=txonly
#     --nb-cores=1 --total-num-mbufs=8192 --txd=1024 --rxd=1024
#   driver on CPU 1: dpdk-testpmd --lcores 0@1,1@1 --no-pci [-d PLUGIN]
#     --vdev {net_gvirtio_user0|net_virtio_user0},queues=1,DEVARGS,path=SOCK
#     -- --forward-mode=rxonly --nb-cores=1 --total-num-mbufs=8192
#     --txd=N --rxd=N --stats-period 1
# The rate is the driver port's per-second Rx-pps: leading zeros dropped
# (not connected yet), then the first 2 seconds, then the median of the
# next SECS. Each round runs both drivers at every N back to back, which
# one goes first alternating with the round (A B B A). Per N: both
# drivers' median Mpps, the median of the per-round ratios gvirtio/DPDK,
# in how many rounds gvirtio was the faster with the sign test's p
# (bench/pmd_stats.py), the range of the cross-core round trip
# (bench/xcore_rtt.c) measured before and after each sample (the
# machine's state, which sets how fast any vhost-user pair can go here),
# and the ratios of the "close" rounds: those where every such round trip
# read under 300 ns.
#
# Environment: NDESC (256 1024), ROUNDS (8), SECS (5), DEVARGS
# (packed_vq=1,mrg_rxbuf=1,in_order=1), GV_DEVARGS (more devargs for
# gvirtio's port only, e.g. rx_hdr_line=own), PLUGIN (build/drivers/net/virtio/
# librte_net_gvirtio.so). Output: a line per sample on stderr, a markdown
# table on stdout. Exit 1 if a sample got no rate, 2 on a set-up error.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"
NDESC=${NDESC:-256 1024}
ROUNDS=${ROUNDS:-8}
SECS=${SECS:-5}
DEVARGS=${DEVARGS:-packed_vq=1,mrg_rxbuf=1,in_order=1}
SKIP=2
BL_NAME=plain_pair
for v in ROUNDS SECS; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || bl_die "$v must be a positive integer"; done
for n in $NDESC; do [[ $n =~ ^[1-9][0-9]*$ ]] || bl_die "NDESC: positive integers"; done
[[ $DEVARGS =~ ^[a-z0-9_=,]*$ ]] || bl_die "DEVARGS: k=v,k=v"
GV_DEVARGS=${GV_DEVARGS:-}
[[ $GV_DEVARGS =~ ^[a-z0-9_=,]*$ ]] || bl_die "GV_DEVARGS: k=v,k=v"
trap bl_end EXIT
trap 'exit 130' INT TERM
bl_begin plain_pair "${PLUGIN:-$ROOT/build/drivers/net/virtio/librte_net_gvirtio.so}"

# rates LOG: the per-second Rx-pps of a testpmd log, leading zeros (not connected yet) dropped
rates() { awk '/Rx-pps:/ { if ($2 > 0) s = 1; if (s) print $2 }' "$1"; }

# sample DRIVER N -> prints "MPPS RTT_BEFORE,RTT_AFTER" (MPPS nan when no rate came)
sample() {
	local drv=$1 n=$2 sock=$WORK/vh.sock rtt fe vdev dopt=() i
	rtt=$(bl_rtt)
	bl_backend "$sock" txonly --total-num-mbufs=8192 --txd=1024 --rxd=1024 || { echo "nan $rtt,nan"; return; }
	if [ "$drv" = gv ]; then
		vdev="net_gvirtio_user0,queues=1,$DEVARGS${GV_DEVARGS:+,$GV_DEVARGS},path=$sock"
		dopt=(-d "$GV_SO")
	else
		vdev="net_virtio_user0,queues=1,$DEVARGS,path=$sock"
	fi
	dpdk-testpmd --lcores 0@1,1@1 "${MEM[@]}" --file-prefix=plain_pair$$-fe --no-pci \
		"${dopt[@]}" --vdev "$vdev" -- --forward-mode=rxonly --nb-cores=1 --total-num-mbufs=8192 \
		--txd="$n" --rxd="$n" --stats-period 1 </dev/null >"$WORK/fe.log" 2>&1 &
	fe=$!
	BL_PIDS+=("$fe")
	# Wait for SKIP + SECS non-zero seconds after the leading zeros.
	for ((i = 0; i < 10 * (SECS + SKIP + 15); i++)); do
		[ "$(rates "$WORK/fe.log" | wc -l)" -ge $((SKIP + SECS)) ] && break
		kill -0 "$fe" 2>/dev/null || break
		sleep 0.1 # polling the driver's once-a-second statistics
	done
	bl_kill "$fe" "$BL_BE"
	rtt="$rtt,$(bl_rtt)"
	[ -z "${KEEP:-}" ] || cp "$WORK/be.log" "$WORK/be.$drv.$n.log"
	rates "$WORK/fe.log" | sed -n "$((SKIP + 1)),$((SKIP + SECS))p" | sort -n | awk -v rtt="$rtt" '{ v[NR] = $1 } END {
			if (NR == 0) { print "nan " rtt; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f %s\n", m / 1e6, rtt }'
}

RES=$WORK/samples.txt
: >"$RES"
fail=0
for ((r = 1; r <= ROUNDS; r++)); do
	for n in $NDESC; do
		order="gv dpdk"
		[ $((r % 2)) = 0 ] && order="dpdk gv"
		for d in $order; do
			read -r mpps rtt < <(sample "$d" "$n")
			[ "$mpps" != nan ] || { fail=1; echo "plain_pair: round $r N=$n $d: no rate (driver log:" \
				"$(grep -m1 -iE 'error|fail' "$WORK/fe.log")" >&2; }
			echo "plain_pair: round $r N=$n $d $mpps Mpps (xcore round trip before,after: ${rtt:-?} ns)" >&2
			echo "$r $n $d $mpps ${rtt:-nan}" >>"$RES"
		done
	done
done

echo "Guest RX, 64 B, devargs \`$DEVARGS\`${GV_DEVARGS:+ (gvirtio also \`$GV_DEVARGS\`)}, $ROUNDS rounds of $SECS s, alternated; $(date -u +%F)"
echo
python3 - "$RES" "$ROOT/bench" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from pmd_stats import median, sign_test, sign_text
rows = {}
for line in open(sys.argv[1]):
    r, n, d, mpps, rtt = line.split()
    rtts = [float(x) for x in rtt.split(",") if x not in ("", "nan")]
    rows.setdefault(int(n), {}).setdefault(int(r), {})[d] = (float(mpps), rtts)
# A round "close" when every round trip around both of its samples read
# under 300 ns: the state where DPDK's PMD runs fastest here.
close = lambda x: all(v[1] and max(v[1]) < 300 for v in x.values())
print("| nb_desc | gvirtio Mpps | DPDK Mpps | gvirtio/DPDK | gvirtio faster | xcore RTT ns | close rounds: gvirtio/DPDK |")
print("| ---: | ---: | ---: | ---: | --- | ---: | --- |")
for n in sorted(rows):
    rs = rows[n].values()
    gv = [x["gv"][0] for x in rs if "gv" in x]
    dp = [x["dpdk"][0] for x in rs if "dpdk" in x]
    ratios = [x["gv"][0] / x["dpdk"][0] for x in rs
              if "gv" in x and "dpdk" in x and x["dpdk"][0] > 0]
    rtts = [t for x in rs for v in x.values() for t in v[1]]
    near = [x["gv"][0] / x["dpdk"][0] for x in rs
            if "gv" in x and "dpdk" in x and x["dpdk"][0] > 0 and close(x)]
    f = lambda v: "-" if v is None else "%.2f" % v
    print("| %d | %s | %s | %s | %s | %s-%s | %s |" % (n, f(median(gv)), f(median(dp)), f(median(ratios)),
          sign_text(*sign_test(ratios)), f(min(rtts, default=None))[:-3], f(max(rtts, default=None))[:-3],
          "%s (%d rounds: %s)" % (f(median(near)), len(near), " ".join("%.2f" % x for x in near)) if near else "none"))
EOF
exit $fail
