#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/pmd_rr.sh - round-trip latency over vhost-user: request/response,
# where a driver's barriers and notification path cost the most. The
# back-end, a dpdk-testpmd in macswap on net_vhost (CPU 0), echoes every
# frame; bench/gv_rr (CPU 1) keeps DEPTH 60-byte frames in flight on its
# one port and times each round trip with the TSC (see bench/gv_rr.c).
#
#   bash bench/pmd_rr.sh                         4 rounds, depths 1,8,32, split and packed
#   ROUNDS=8 LAYOUTS=split bash bench/pmd_rr.sh
#
# Variants, each a fresh pair of processes per sample, their order turning
# with the round (A B C, then C B A):
#   gvirtio       net_gvirtio_user (-d PLUGIN), barriers as negotiated (SMP)
#   gvirtio-mand  the same with barrier=mandatory (what ORDER_PLATFORM costs)
#   dpdk          DPDK's net_virtio_user
# all with queues=1,mrg_rxbuf=1,in_order=1 and packed_vq of the layout.
# Memory: 2 MB hugepages, --in-memory --single-file-segments -m 512 (reserved
# if needed and given back).
#
# Output: a line per sample on stderr; on stdout per layout and depth the
# medians over rounds of p50, p99 and p99.9 (microseconds) and of round
# trips a second, then the medians of the per-round ratios gvirtio/dpdk and
# gvirtio-mand/gvirtio of p50 and of round trips a second, with in how many
# rounds the first was the faster (sign test, bench/pmd_stats.py); the
# cross-core round trip (bench/xcore_rtt.c) range over the samples. Raw
# samples: OUT (default bench/results/rr-<timestamp>.json), a JSON object a
# line.
# Environment: ROUNDS (4), SECS (3, timed per depth), DEPTHS (1,8,32),
# LAYOUTS (split packed), PLUGIN, RR (build/bench/gv_rr), OUT, KEEP=1.
# Exit 1 if a sample failed, 2 on a set-up error.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"
ROUNDS=${ROUNDS:-4}
SECS=${SECS:-3}
DEPTHS=${DEPTHS:-1,8,32}
LAYOUTS=${LAYOUTS:-split packed}
RR=${RR:-$ROOT/build/bench/gv_rr}
OUT=${OUT:-$ROOT/bench/results/rr-$(date +%Y%m%d-%H%M%S).json}
BL_NAME=pmd_rr
for v in ROUNDS SECS; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || bl_die "$v must be a positive integer"; done
[[ $DEPTHS =~ ^[0-9]+(,[0-9]+)*$ ]] || bl_die "DEPTHS: a comma list of numbers"
for l in $LAYOUTS; do [[ $l =~ ^(split|packed)$ ]] || bl_die "LAYOUTS: split, packed"; done
[ -x "$RR" ] || bl_die "no $RR: run 'bash scripts/build.sh build' (or set RR=FILE)"
mkdir -p "$(dirname "$OUT")" || bl_die "cannot make $(dirname "$OUT")"
trap bl_end EXIT
trap 'exit 130' INT TERM
bl_begin pmd_rr "${PLUGIN:-$ROOT/build/drivers/net/virtio/librte_net_gvirtio.so}"
ndepth=$(($(tr -cd , <<<"$DEPTHS" | wc -c) + 1))

# sample VARIANT LAYOUT ROUND: one run of gv_rr; its GVRR lines, as JSON, into OUT
sample() {
	local var=$1 layout=$2 r=$3 sock=$WORK/vh.sock rtt dv vdev dopt=() packed=0 rr
	[ "$layout" = packed ] && packed=1
	dv="queues=1,mrg_rxbuf=1,in_order=1,packed_vq=$packed,path=$sock"
	case "$var" in
	gvirtio) vdev="net_gvirtio_user0,$dv" dopt=(-d "$GV_SO") ;;
	gvirtio-mand) vdev="net_gvirtio_user0,$dv,barrier=mandatory" dopt=(-d "$GV_SO") ;;
	dpdk) vdev="net_virtio_user0,$dv" ;;
	esac
	rtt=$(bl_rtt)
	[[ $rtt =~ ^[0-9]+$ ]] || rtt=null
	if ! bl_backend "$sock" macswap --total-num-mbufs=8192; then
		echo "pmd_rr: $var $layout round $r: the back-end did not start" >&2
		return 1
	fi
	"$RR" --lcores 0@1 "${MEM[@]}" --file-prefix=pmd_rr$$-fe --no-pci "${dopt[@]}" --vdev "$vdev" \
		--log-level=pmd.net.gvirtio:info -- "$DEPTHS" "$SECS" </dev/null >"$WORK/fe.log" 2>&1 &
	rr=$!
	BL_PIDS+=("$rr")
	wait "$rr"
	local rc=$?
	bl_kill "$BL_BE"
	if [ "$var" = gvirtio-mand ] && ! grep -q "mandatory barriers (barrier=mandatory)" "$WORK/fe.log"; then
		echo "pmd_rr: $var: the port did not take barrier=mandatory" >&2
		rc=1
	fi
	if [ "$rc" != 0 ] || [ "$(grep -c '^GVRR ' "$WORK/fe.log")" != "$ndepth" ]; then
		echo "pmd_rr: $var $layout round $r failed: $(grep -v '^GVRR' "$WORK/fe.log" | grep -m2 -iE 'error|fail|gv_rr')" >&2
		return 1
	fi
	grep '^GVRR ' "$WORK/fe.log" | while read -r _ kv; do
		echo "pmd_rr: $layout round $r $var $kv (xcore ${rtt} ns)" >&2
		printf '{"variant": "%s", "layout": "%s", "round": %d, "xcore_rtt_ns": %s' "$var" "$layout" "$r" "$rtt"
		for f in $kv; do printf ', "%s": %s' "${f%%=*}" "${f#*=}"; done
		echo "}"
	done >>"$OUT"
}

: >"$OUT"
fail=0
VARIANTS=(gvirtio dpdk gvirtio-mand)
for ((r = 1; r <= ROUNDS; r++)); do
	for layout in $LAYOUTS; do
		order=("${VARIANTS[@]}")
		[ $((r % 2)) = 0 ] && order=(gvirtio-mand dpdk gvirtio)
		for v in "${order[@]}"; do sample "$v" "$layout" "$r" || fail=1; done
	done
done

echo "Round trips over vhost-user, 60 B frames, back-end testpmd macswap; $ROUNDS rounds of $SECS s per depth, variants alternated; $(date -u +%F)"
echo
python3 - "$OUT" "$ROOT/bench" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[2])
from pmd_stats import median, sign_test, sign_text
rows = [json.loads(l) for l in open(sys.argv[1])]
cell = {}
for x in rows:
    cell.setdefault((x["layout"], x["depth"]), {}).setdefault(x["variant"], {})[x["round"]] = x
f = lambda v, d=2: "-" if v is None else "%.*f" % (d, v)
print("| layout | depth | variant | p50 us | p99 us | p99.9 us | round trips/s |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
for (lay, d) in sorted(cell):
    for v in ("gvirtio", "dpdk", "gvirtio-mand"):
        s = cell[(lay, d)].get(v, {}).values()
        print("| %s | %d | %s | %s | %s | %s | %s |" % (lay, d, v,
              *(f(median([x[k] for x in s])) for k in ("p50_us", "p99_us", "p99_9_us")),
              f(median([x["tps"] for x in s]), 0)))
print()
print("Ratios, median of the per-round ratios (p50: below 1 is faster; round trips/s: above 1 is "
      "faster), and in how many rounds the first was the faster (sign test):")
print()
print("| layout | depth | p50 gvirtio/dpdk | rt/s gvirtio/dpdk | p50 mand/SMP | rt/s mand/SMP |")
print("| --- | ---: | --- | --- | --- | --- |")
def ratio(c, a, b, k, lower_better):
    rs = [c[a][r][k] / c[b][r][k] for r in c.get(a, {}) if r in c.get(b, {}) and c[b][r][k] > 0]
    wins = [1 / x if lower_better else x for x in rs]
    return "%s (%s)" % (f(median(rs)), sign_text(*sign_test(wins)))
for (lay, d) in sorted(cell):
    c = cell[(lay, d)]
    print("| %s | %d | %s | %s | %s | %s |" % (lay, d,
          ratio(c, "gvirtio", "dpdk", "p50_us", True), ratio(c, "gvirtio", "dpdk", "tps", False),
          ratio(c, "gvirtio-mand", "gvirtio", "p50_us", True),
          ratio(c, "gvirtio-mand", "gvirtio", "tps", False)))
rtts = [x["xcore_rtt_ns"] for x in rows if isinstance(x.get("xcore_rtt_ns"), (int, float))]
lost = sum(x["lost"] for x in rows)
print()
print("Cross-core round trip over the samples: %s-%s ns; frames re-sent after a loss: %d; raw: %s"
      % (min(rtts, default="?"), max(rtts, default="?"), lost, sys.argv[1]))
EOF
exit $fail
