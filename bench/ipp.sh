#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/ipp.sh - instructions per packet of the PMDs' burst functions,
# gvirtio against DPDK's net_virtio_user, counted by callgrind (exact and
# repeatable: no timing involved, so a busy machine does not matter).
#
#   bash bench/ipp.sh                    every row, both drivers
#   ROWS="split/1/inorder/rx packed/0/simple/tx" bash bench/ipp.sh
#   DRIVERS=gv bash bench/ipp.sh         gvirtio only
#
# Each row runs build/bench/gv_pmd_ipp (bench/gv_pmd_ipp.c) once per
# driver under valgrind --tool=callgrind with collection only inside the
# measured bursts (--collect-atstart=no --toggle-collect=bench_rx
# --toggle-collect=bench_tx): the driver and DPDK's vhost-user back-end
# (net_vhost) share one thread, the back-end works between the driver's
# bursts, every driver burst is full (BURST packets; checked, the row
# fails otherwise). The count covers everything the bursts do: the PMD's
# own code, mbuf allocation and freeing, and ethdev's inline dispatch
# (rte_eth_rx_burst / tx_burst: a few instructions per burst, the same for
# both drivers). Instructions / packet = collected Ir / packets.
#
# Row ids: LAYOUT/MRG/PATH/DIR, e.g. split/1/inorder/rx. PATH as in
# bench/pmd_compare.sh: simple|inorder|full (gvirtio datapath=PATH; DPDK
# in_order=1 for inorder, 0 otherwise; gvirtio vectorized=0) and vec (gvirtio
# vectorized=1: its vector RX path where eligible;
# DPDK vectorized=1, in_order=0 on split). DIR rx = guest RX, tx = guest TX.
#
# SIDE=backend counts the other side instead: the back-end's bursts
# (net_vhost's enqueue for guest RX, its dequeue plus one empty poll for
# guest TX) in the same measured rounds, per packet the driver moved: what
# each driver's way of filling the ring costs the back-end.
#
# SIDE=idle counts instead the driver's RX polls that find nothing (after
# the row's traffic, GV_IPP_IDLE polls, default 10000; ethdev's dispatch
# included), per poll: what a busy-polling application pays per empty
# queue.
#
# Environment: SIDE (driver | backend | idle), GV_IPP_SIMD (EAL's SIMD limit for both drivers: 128 runs
# gvirtio's SSE vector body instead of AVX2; 512, DPDK's AVX-512 packed path, does not run under
# valgrind: time it natively with GV_IPP_TSC=1, bench/gv_pmd_ipp.c), BURST (32), SIZE (64), ITERS (2000 measured bursts, after
# 200 not measured), RING (256), DRIVERS ("gv dpdk"), OUT (directory for
# the callgrind dumps, default bench/results/ipp-<timestamp>; read them
# with callgrind_annotate --inclusive=yes FILE), BIN (the benchmark
# binary, default build/bench/gv_pmd_ipp).
# Output: a markdown table on stdout (gvirtio, DPDK, ratio, the paths
# each driver took), the raw lines in OUT/results.txt.
set -uo pipefail
# DPDK's net_virtio_user must reach DPDK's PMD even where gvirtio is loaded
# (gvirtio answers to that name by default; its own ports are net_gvirtio_user).
export GVIRTIO_PREFER=dpdk

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-$ROOT/build/bench/gv_pmd_ipp}
BURST=${BURST:-32}
SIZE=${SIZE:-64}
ITERS=${ITERS:-2000}
RING=${RING:-256}
SIDE=${SIDE:-driver}
case $SIDE in
driver) TOGGLES="--toggle-collect=bench_rx --toggle-collect=bench_tx" ;;
backend) TOGGLES="--toggle-collect=backend_rx --toggle-collect=backend_tx" ;;
idle) TOGGLES="--toggle-collect=bench_idle" && export GV_IPP_IDLE=${GV_IPP_IDLE:-10000} ;;
*) echo "ipp.sh: SIDE must be driver, backend or idle" >&2; exit 2 ;;
esac
DRIVERS=${DRIVERS:-gv dpdk}
OUT=${OUT:-$ROOT/bench/results/ipp-$(date -u +%Y%m%d-%H%M%S)}

die() { echo "ipp: $*" >&2; exit 2; }
[ -x "$BIN" ] || die "no $BIN (bash scripts/build.sh build)"
command -v valgrind >/dev/null || die "valgrind missing"

if [ -z "${ROWS:-}" ]; then
	ROWS=
	for layout in split packed; do
		for mrg in 1 0; do
			for path in inorder simple full; do
				for dir in rx tx; do ROWS+=" $layout/$mrg/$path/$dir"; done
			done
		done
		for dir in rx tx; do ROWS+=" $layout/0/vec/$dir"; done
	done
fi
mkdir -p "$OUT" || die "cannot create $OUT"
: >"$OUT/results.txt"

# run DRIVER ROW: prints "ipp PKTS PATHS" or "FAIL reason"
run() {
	local drv=$1 row=$2 layout mrg path dir base line pkts ir paths pid
	IFS=/ read -r layout mrg path dir <<<"$row"
	base=$OUT/$drv-${row//\//-}
	# shellcheck disable=SC2086 # two options
	GV_IPP_FAST_EXIT=1 valgrind --tool=callgrind --collect-atstart=no $TOGGLES \
		--callgrind-out-file="$base.cg" \
		"$BIN" "$drv" "$layout" "$mrg" "$path" "$dir" "$BURST" "$SIZE" "$ITERS" "$RING" \
		>"$base.log" 2>&1 &
	pid=$!
	wait "$pid"
	# The benchmark exits without EAL's cleanup (GV_IPP_FAST_EXIT).
	rm -rf "/var/run/dpdk/gvipp_$pid" 2>/dev/null
	line=$(grep -a '^drv=' "$base.log")
	pkts=$(grep -o 'pkts=[0-9]*' <<<"$line" | cut -d= -f2)
	[ "$SIDE" = idle ] && pkts=$(grep -o 'idle_polls=[0-9]*' <<<"$line" | cut -d= -f2)
	ir=$(awk '/^totals:/ { print $2 }' "$base.cg" 2>/dev/null)
	if [ -z "$line" ] || [ -z "$ir" ] || [ "${pkts:-0}" = 0 ] || grep -q 'short=[1-9]\|errors=[1-9]' <<<"$line"; then
		echo "FAIL"
		return
	fi
	if [ "$drv" = gv ]; then
		paths=$(grep -o 'rx_path=[a-z0-9-]* tx_path=[a-z]*' <<<"$line" | sed 's/rx_path=//; s/ tx_path=/ \/ /')
	else
		paths="$(grep -ao 'using .* Rx path' "$base.log" | head -1 | sed 's/using //; s/ Rx path//') / $(grep -ao 'using .* Tx path' "$base.log" | head -1 | sed 's/using //; s/ Tx path//')"
	fi
	echo "$row $drv $ir $pkts $line" >>"$OUT/results.txt"
	awk -v ir="$ir" -v p="$pkts" -v paths="$paths" 'BEGIN { printf "%.1f|%s\n", ir / p, paths }'
}

echo "Instructions per packet ($SIDE side), burst $BURST, $SIZE B frames, ring $RING, $ITERS measured bursts (callgrind; bench/ipp.sh)"
echo
echo "| row (layout/mrg/path/dir) | gvirtio | DPDK | gvirtio/DPDK | gvirtio rx / tx path | DPDK rx / tx path |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
fail=0
for row in $ROWS; do
	g="-|" d="-|"
	for drv in $DRIVERS; do
		r=$(run "$drv" "$row")
		[ "$r" = FAIL ] && { fail=1; r="FAIL|"; }
		if [ "$drv" = gv ]; then g=$r; else d=$r; fi
	done
	gi=${g%%|*} di=${d%%|*}
	ratio=$(awk -v a="$gi" -v b="$di" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }')
	echo "| $row | $gi | $di | $ratio | ${g#*|} | ${d#*|} |"
done
echo
echo "Dumps: $OUT"
exit $fail
