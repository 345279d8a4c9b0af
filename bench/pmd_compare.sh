#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/pmd_compare.sh - gvirtio against DPDK's own virtio-user PMD
# (net_virtio_user), both driving the same DPDK vhost-user back-end
# (dpdk-testpmd with net_vhost) through unmodified dpdk-testpmd (issue 6).
#
#   bash bench/pmd_compare.sh              default subset (~12 minutes)
#   FULL=1 bash bench/pmd_compare.sh       the whole matrix (~1 hour)
#   ROUNDS=5 FILTER='^grx/' bash bench/pmd_compare.sh
#
# Set-up per sample: the back-end testpmd (net_vhost, vhost-user server)
# runs on CPU 0 (--lcores=0@0,1@0), the driver-side testpmd (gvirtio
# loaded with -d, or DPDK's net_virtio_user) on CPU 1 (--lcores=0@1,1@1);
# both are started fresh for every sample.
#
# Directions (testpmd forwarding modes, driver <-> back-end):
#   gtx   guest TX: driver txonly -> back-end rxonly; rate = back-end Rx-pps
#   grx   guest RX: back-end txonly -> driver rxonly; rate = driver Rx-pps
#   loop  loopback: both io, driver --tx-first (one burst of 32 packets
#         circulates); rate = driver Rx-pps
# Each sample: the per-second Rx-pps of the measured side (testpmd
# --stats-period 1); leading zeros are dropped (not connected yet; a
# testpmd's first print is always 0), then WARMUP samples (default 1: the
# first second of traffic, partial when the back-end measures), then the
# median of the next SECS.
#
# Paths: the row's path is a gvirtio class; DPDK gets its closest equivalent
# (DPDK chooses its paths from the features; there is no path devarg):
#   path      gvirtio devargs            DPDK net_virtio_user devargs
#   simple    datapath=simple            in_order=0   (standard/mergeable RX,
#             (IN_ORDER not requested)                 standard TX)
#   inorder   datapath=inorder           in_order=1   (split: in-order RX and
#             (the default of both)                    TX; packed: standard,
#                                                      in-order aware)
#   full      datapath=full              in_order=0   (DPDK's standard path is
#             (chains, offloads, indirect)             its general-purpose one)
#             (gvirtio: vectorized=0 on the three rows above)
#   vec       (none: gvirtio's default   vectorized=1; split: in_order=0 (DPDK
#             path, in_order=1: its      drops vectors with IN_ORDER), vectorized
#             vector RX path on split)   RX + standard TX; packed: in_order=1 and
#                                        EAL --force-max-simd-bitwidth=512 (AVX512
#                                        RX+TX; given to both drivers in vec rows)
# mrg_rxbuf=0|1 and packed_vq=0|1 are passed to both. vec rows are mrg0
# (DPDK's vector paths need mergeable buffers off). The paths each driver
# really took (from its log) are recorded and printed with the table.
#
# Order: ROUNDS rounds; each round goes through every row and runs gvirtio
# then DPDK for it (A B A B ... per row, rows interleaved), so a row's two
# samples of a round are side by side. Per row: median and min-max Mpps of
# each driver over the rounds, and the median of the per-round ratios
# gvirtio/DPDK. Only the ratios mean much on a shared, noisy machine.
#
# Then (CALLGRIND=1, default) the per-packet cost inside each PMD: the
# driver-side testpmd runs under valgrind --tool=callgrind in interactive
# mode; the counters are zeroed after port start (callgrind_control -z),
# forwarding runs VG_SECS seconds ("start" ... "stop"), the counters are
# dumped (callgrind_control -d) before "quit", so set-up and tear-down are
# not counted. From the dump: instructions executed in the PMD's shared
# object (self) and the inclusive cost of all calls into it from outside
# (its burst functions plus what they call: mbuf/mempool library calls,
# memcpy), each divided by the packets testpmd forwarded (guest TX: sent,
# guest RX: received). Bursts that moved nothing (empty polls; sends into a
# full ring) are taken off: a second window with the back-end frozen
# (SIGSTOP) gives the cost of such a burst, and testpmd's
# --record-burst-stats says how many there were (the raw figures are kept
# in the JSON). Both use --no-huge; the back-end runs at nice
# VG_NICE so that on a loaded machine it still keeps the driver's bursts
# full (pkts/call in the report shows whether it did). Dumps are kept for
# callgrind_annotate in bench/results/pmd-<timestamp>-callgrind/.
# perf: if `perf stat -e cycles` is supported here it is noted; on machines
# without counters, the table's busy cycles/packet come from testpmd's own
# --record-core-cycles (TSC cycles of bursts that moved packets, testpmd's
# work included) for the grx and loop rows.
#
# Output: a progress line on stderr, a markdown report on stdout,
# bench/results/pmd-<timestamp>.json, bench/results/pmd-latest.json and
# bench/results/pmd-latest.png (gnuplot). Exit status 1 if a sample failed.
#
# Environment:
#   FULL=1          all rows: gtx/grx/loop x split/packed x mrg 0/1 x
#                   simple/inorder/full x 64/1518 B, plus vec rows
#   ROUNDS=N        rounds (3)
#   SECS=N          measured seconds per sample (4)
#   WARMUP=N        per-second samples dropped first (1)
#   SIZES="64 1518" frame sizes (default: 64; FULL: 64 1518)
#   FILTER=REGEX    only rows whose id matches (grep -E), ids look like
#                   gtx/split/mrg1/inorder/64
#   CALLGRIND=0     skip the callgrind part
#   VG_ROWS="ID..." rows profiled under callgrind (default: gtx and grx,
#                   split and packed, mrg1 inorder, 64 B)
#   VG_SECS=N       forwarding seconds under callgrind (3)
#   VG_TRIES=N      callgrind attempts per run while >10% of bursts are empty (1)
#   VG_IDLE_SECS=N  length of the idle window (back-end frozen) (1)
#   VG_OPTS=...     extra callgrind options (--cache-sim=yes)
#   VG_NICE=N       nice value of the back-end during callgrind runs (-10; 0
#                   to leave it): the back-end must outrun the driver under
#                   valgrind, or the counts include empty polls / failed sends
#                   (see pkts/call in the report; 32 is a full burst)
#   PLUGIN=FILE     the gvirtio .so (default build/drivers/net/virtio/
#                   librte_net_gvirtio.so; built with scripts/build.sh when missing)
#   PLUGIN_DESC=..  free text recorded with the results (e.g. the commit it was built from)
#   HUGE=0          do not use hugepages even when they can be reserved
#   KEEP=1          keep the per-sample logs (path printed at the end)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPORT=$ROOT/bench/pmd_report.py
RESULTS=$ROOT/bench/results

FULL=${FULL:-0}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-4}
WARMUP=${WARMUP:-1}
if [ "$FULL" = 1 ]; then SIZES=${SIZES:-64 1518}; else SIZES=${SIZES:-64}; fi
FILTER=${FILTER:-}
CALLGRIND=${CALLGRIND:-1}
VG_SECS=${VG_SECS:-3}
VG_NICE=${VG_NICE:--10}
VG_OPTS=${VG_OPTS:---cache-sim=yes}
VG_TRIES=${VG_TRIES:-1}
VG_IDLE_SECS=${VG_IDLE_SECS:-1}
BE_PRE=()
HUGE=${HUGE:-1}
KEEP=${KEEP:-0}
MEM_MB=256
MBUFS=16384

die() { echo "pmd_compare: $*" >&2; exit 2; }
case "$*" in -h | --help) sed -n '3,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 0 ] || die "no arguments (settings are environment variables; --help)"
for v in ROUNDS SECS VG_SECS VG_TRIES; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be an integer"
command -v dpdk-testpmd >/dev/null || die "dpdk-testpmd missing (Debian package dpdk)"
command -v python3 >/dev/null || die "python3 missing"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (back-end on 0, driver on 1)"
if [ "$CALLGRIND" = 1 ]; then
	command -v valgrind >/dev/null && command -v callgrind_control >/dev/null ||
		die "valgrind missing (CALLGRIND=0 to skip the per-packet cost)"
fi

# ---- the plugin: build when missing, then run a private copy (EAL refuses
# -d under a world-writable directory, and the build dir may be rebuilt by
# someone else while we measure).
PLUGIN=${PLUGIN:-$ROOT/build/drivers/net/virtio/librte_net_gvirtio.so}
if [ ! -f "$PLUGIN" ]; then
	[ "$PLUGIN" = "$ROOT/build/drivers/net/virtio/librte_net_gvirtio.so" ] || die "no plugin at $PLUGIN"
	echo "pmd_compare: building the plugin (scripts/build.sh build)" >&2
	bash "$ROOT/scripts/build.sh" build >&2 || die "build failed"
fi
[ -f "$PLUGIN" ] || die "no plugin at $PLUGIN"
SAFE=${HOME:-/root}/.cache/gvirtio-plugin/pmd_compare.$$
mkdir -p "$SAFE" && chmod 700 "${HOME:-/root}/.cache/gvirtio-plugin" "$SAFE" || die "cannot create $SAFE"
cp "$PLUGIN" "$SAFE/librte_net_gvirtio.so" || die "cannot copy the plugin"
GV_SO=$SAFE/librte_net_gvirtio.so

WORK=$(mktemp -d /tmp/pmd_compare.XXXXXX)
PFX="pmdc$$"
PIDS=()
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
HP_RESTORE=
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -n "$HP_RESTORE" ] && echo "$HP_RESTORE" >"$HP/nr_hugepages" 2>/dev/null
	rm -rf "$SAFE" /var/run/dpdk/"$PFX"* 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "pmd_compare: logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- memory: 2 MB hugepages when we can reserve them (root), given back
# afterwards; else --no-huge (EAL then shares memory through memfd).
MEM=(--no-huge -m "$MEM_MB")
MEMNOTE="no hugepages: --no-huge -m $MEM_MB"
if [ "$HUGE" = 1 ] && [ "$(id -u)" = 0 ] && [ -w "$HP/nr_hugepages" ]; then
	need=$((2 * MEM_MB / 2 + 16))
	orig=$(cat "$HP/nr_hugepages")
	if [ "$(cat "$HP/free_hugepages")" -lt "$need" ]; then
		HP_RESTORE=$orig
		echo $((orig + need - $(cat "$HP/free_hugepages"))) >"$HP/nr_hugepages" 2>/dev/null
	fi
	if [ "$(cat "$HP/free_hugepages")" -ge "$need" ]; then
		# vhost-user shares the driver's memory as at most 8 files: one file.
		MEM=(--in-memory --single-file-segments -m "$MEM_MB")
		MEMNOTE="2 MB hugepages, --in-memory --single-file-segments -m $MEM_MB"
	fi
fi
VGMEM=(--no-huge -m "$MEM_MB")

PERFNOTE="perf stat: hardware counters not supported here (cycles, instructions: <not supported>); busy cycles/packet above are testpmd --record-core-cycles (TSC)"
if command -v perf >/dev/null && perf stat -x, -e cycles,instructions true 2>&1 >/dev/null |
	grep -qE '^[0-9]+,.*cycles'; then
	PERFNOTE="perf stat: counters available here; not used (busy cycles/packet: testpmd --record-core-cycles; instructions/packet: callgrind)"
elif ! command -v perf >/dev/null; then
	PERFNOTE="perf: not installed"
fi

# ---- rows: dir/layout/mrgN/path/size
ROWS=()
if [ "$FULL" = 1 ]; then
	for size in $SIZES; do
		for dir in gtx grx loop; do
			for layout in split packed; do
				for mrg in 1 0; do
					for path in inorder simple full; do
						ROWS+=("$dir/$layout/mrg$mrg/$path/$size")
					done
				done
				ROWS+=("$dir/$layout/mrg0/vec/$size")
			done
		done
	done
else
	# 3 directions x 2 layouts on the default path (in-order, mergeable
	# buffers), the other TX path classes on guest TX, and DPDK's vector
	# paths (mergeable off) on guest RX, where they matter (DPDK's split
	# vector path is RX only); gvirtio's column there is its default path
	# with mergeable off: RX simple, TX inorder.
	for size in $SIZES; do
		for dir in gtx grx loop; do
			for layout in split packed; do ROWS+=("$dir/$layout/mrg1/inorder/$size"); done
		done
		ROWS+=("gtx/split/mrg1/simple/$size" "gtx/split/mrg1/full/$size"
			"grx/split/mrg0/vec/$size" "grx/packed/mrg0/vec/$size")
	done
fi
if [ -n "$FILTER" ]; then
	sel=()
	for r in "${ROWS[@]}"; do grep -qE -- "$FILTER" <<<"$r" && sel+=("$r"); done
	ROWS=("${sel[@]}")
fi
VG_ROWS=${VG_ROWS:-gtx/split/mrg1/inorder/64 gtx/packed/mrg1/inorder/64 grx/split/mrg1/inorder/64 grx/packed/mrg1/inorder/64}
[ "$CALLGRIND" = 1 ] || VG_ROWS=
[ ${#ROWS[@]} -gt 0 ] || [ -n "$VG_ROWS" ] || die "no rows match FILTER=$FILTER"

# ---- one row -> devargs and testpmd settings
# row_setup ROW DRIVER SOCK: sets DEVARGS, EXTRA_EAL (array), BE_MODE,
# FE_MODE, BE_ARGS, FE_ARGS (arrays), MEASURE (be|fe)
row_setup() {
	local dir layout mrg path size packed inord
	IFS=/ read -r dir layout mrg path size <<<"$1"
	mrg=${mrg#mrg}
	packed=0
	[ "$layout" = packed ] && packed=1
	EXTRA_EAL=()
	if [ "$2" = gv ]; then
		DEVARGS="net_gvirtio_user0,path=$3,packed_vq=$packed,mrg_rxbuf=$mrg"
		[ "$path" = vec ] || DEVARGS+=",datapath=$path,vectorized=0"
	else
		case $path in
		inorder) inord=1 ;;
		simple | full) inord=0 ;;
		vec) inord=$packed ;;
		esac
		DEVARGS="net_virtio_user0,path=$3,packed_vq=$packed,mrg_rxbuf=$mrg,in_order=$inord"
		[ "$path" = vec ] && DEVARGS+=",vectorized=1"
	fi
	[ "$path" = vec ] && [ "$packed" = 1 ] && EXTRA_EAL=(--force-max-simd-bitwidth=512)
	BE_ARGS=()
	FE_ARGS=()
	case $dir in
	gtx) BE_MODE=rxonly FE_MODE=txonly MEASURE=be FE_ARGS=(--txpkts="$size") ;;
	grx) BE_MODE=txonly FE_MODE=rxonly MEASURE=fe BE_ARGS=(--txpkts="$size") FE_ARGS=(--record-core-cycles) ;;
	loop) BE_MODE=io FE_MODE=io MEASURE=fe FE_ARGS=(--txpkts="$size" --tx-first --record-core-cycles) ;;
	*) die "bad row $1" ;;
	esac
}

drv_eal() { # DRIVER: the driver-specific EAL arguments
	if [ "$1" = gv ]; then
		echo "-d $GV_SO --log-level=pmd.net.gvirtio:info"
	else
		echo "--log-level=pmd.net.virtio.init:debug"
	fi
}

wait_for() { # FILE REGEX SECONDS
	local deadline=$((SECONDS + $3))
	while [ $SECONDS -lt $deadline ]; do
		grep -aqE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

stop_proc() { # PID [SECONDS]: SIGINT (testpmd prints its final stats), then SIGKILL
	local i n=$((${2:-10} * 10))
	kill -INT "$1" 2>/dev/null
	for ((i = 0; i < n; i++)); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }; sleep 0.1; done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 1
}

# The per-second rates of a testpmd log, leading zeros dropped.
rates() { grep -ao 'Rx-pps: *[0-9]*' "$1" 2>/dev/null | awk '{ if ($2 > 0) s = 1; if (s) print $2 }'; }

start_backend() { # LOGFILE SOCK MODE ARGS...
	local log=$1 sock=$2 mode=$3
	shift 3
	"${BE_PRE[@]}" dpdk-testpmd --lcores='0@0,1@0' "${MEM[@]}" --no-pci --no-telemetry --file-prefix="${PFX}b" \
		--log-level='lib.vhost.*:error' --vdev "net_vhost0,iface=$sock,client=0" -- \
		--no-mlockall --total-num-mbufs=$MBUFS --stats-period 1 --forward-mode="$mode" "$@" \
		</dev/null >"$log" 2>&1 &
	BE_PID=$!
	PIDS+=("$BE_PID")
	[ -S "$sock" ] && return 0
	local i
	for ((i = 0; i < 200; i++)); do [ -S "$sock" ] && return 0; kill -0 "$BE_PID" 2>/dev/null || break; sleep 0.1; done
	return 1
}

# sample ROUND ROW DRIVER: one measurement; appends a JSON line to samples.jsonl
NFAIL=0
sample() {
	local round=$1 row=$2 drv=$3 d=$WORK/$1.${2//\//_}.$3
	local sock=$d/vhost.sock be=$d/be.log fe=$d/fe.log mlog n ok=1 note=""
	mkdir -p "$d"
	row_setup "$row" "$drv" "$sock"
	local t0=$EPOCHREALTIME
	tmark() { echo "$1 $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')" >>"$d/timing"; }
	if ! start_backend "$be" "$sock" "$BE_MODE" "${BE_ARGS[@]}"; then
		ok=0 note="back-end did not start"
	else
		# shellcheck disable=SC2046
		dpdk-testpmd --lcores='0@1,1@1' "${MEM[@]}" "${EXTRA_EAL[@]}" --no-pci --no-telemetry \
			--file-prefix="${PFX}f" $(drv_eal "$drv") --vdev "$DEVARGS" -- \
			--no-mlockall --total-num-mbufs=$MBUFS --stats-period 1 --forward-mode="$FE_MODE" \
			"${FE_ARGS[@]}" </dev/null >"$fe" 2>&1 &
		FE_PID=$!
		PIDS+=("$FE_PID")
		mlog=$fe
		[ "$MEASURE" = be ] && mlog=$be
		tmark backend-up
		local want=$((WARMUP + SECS)) deadline=$((SECONDS + 25 + WARMUP + SECS)) first=1
		while [ $SECONDS -lt $deadline ]; do
			n=$(rates "$mlog" | wc -l)
			[ "$first" = 1 ] && [ "$n" -gt 0 ] && { tmark first-rate; first=0; }
			[ "$n" -ge "$want" ] && break
			kill -0 "$FE_PID" 2>/dev/null || { note="driver testpmd exited"; break; }
			sleep 0.25
		done
		tmark measured
		stop_proc "$FE_PID" 10 || note="${note:+$note; }driver testpmd killed"
		tmark driver-stopped
	fi
	# the back-end's final statistics are not used
	kill -9 "$BE_PID" 2>/dev/null
	wait "$BE_PID" 2>/dev/null
	PIDS=()
	local vals
	vals=$(rates "${mlog:-$be}" | sed -n "$((WARMUP + 1)),$((WARMUP + SECS))p" | paste -sd, -)
	n=$(awk -F, '{ print NF }' <<<"$vals")
	[ -z "$vals" ] && n=0
	if [ "$n" -lt "$SECS" ]; then
		note="${note:+$note; }only $n of $SECS samples"
		[ "$n" = 0 ] && ok=0
	fi
	[ "$ok" = 1 ] || NFAIL=$((NFAIL + 1))
	python3 "$REPORT" sample --round "$round" --row "$row" --driver "$drv" --devargs "$DEVARGS" \
		--rates "$vals" --fe-log "$fe" --note "$note" >>"$WORK/samples.jsonl"
	LAST=$(python3 "$REPORT" median "$vals")
	[ "$KEEP" = 1 ] || rm -rf "$d"
}

# vg_sample ROW DRIVER: callgrind runs (up to VG_TRIES while more than 10%
# of the bursts moved nothing), appends the best one's JSON line to
# callgrind.jsonl and keeps its dump as <row>.<driver>.callgrind.1
vg_sample() {
	local row=$1 drv=$2 try best
	local cgout=$VGDIR/${row//\//_}.$drv.callgrind
	for ((try = 1; try <= VG_TRIES; try++)); do
		vg_once "$row" "$drv" "$try"
		python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); e=r.get("empty_burst_pct"); sys.exit(0 if e is not None and e <= 10 and r.get("incl_per_pkt") else 1)' \
			"$WORK/vg.$try.json" && break
		[ "$try" -lt "$VG_TRIES" ] && progress "$done_n" "$total" "callgrind $row $drv: retry (back-end did not keep bursts full)"
	done
	best=$(python3 -c '
import json, sys
rs = []
for f in sys.argv[1:]:
    try:
        rs.append((json.loads(open(f).read()), f))
    except (OSError, ValueError):
        pass
ok = [x for x in rs if x[0].get("incl_per_pkt")]
pick = min(ok or rs, key=lambda x: (x[0].get("empty_burst_pct") if x[0].get("empty_burst_pct") is not None else 101))
print(pick[1])' "$WORK"/vg.[0-9]*.json)
	local n=${best##*/vg.}
	n=${n%.json}
	[ -f "$cgout.t$n.1" ] && mv "$cgout.t$n.1" "$cgout.1"
	[ -f "$cgout.t$n.2" ] && mv "$cgout.t$n.2" "$cgout.idle"
	rm -f "$cgout".t*
	python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); r["file"]=sys.argv[2]; r["tries"]=int(sys.argv[3]); print(json.dumps(r))' \
		"$best" "$cgout.1" "$((try > VG_TRIES ? VG_TRIES : try))" >>"$WORK/callgrind.jsonl"
	rm -f "$WORK"/vg.[0-9]*.json
	LAST=$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readlines()[-1]); v=r.get("incl_per_pkt"); print("%.0f" % v if v else "failed")' "$WORK/callgrind.jsonl")
}

# vg_once ROW DRIVER TRY: one callgrind run -> $WORK/vg.TRY.json
vg_once() {
	local row=$1 drv=$2 d=$WORK/vg.${1//\//_}.$2.$3
	local sock=$d/vhost.sock be=$d/be.log fe=$d/fe.log fifo=$d/cmd note="" fd
	mkdir -p "$d" "$VGDIR"
	local cgout=$VGDIR/${row//\//_}.$drv.callgrind.t$3
	row_setup "$row" "$drv" "$sock"
	# interactive: the loop's first burst comes from "start tx_first"
	local a keep=()
	for a in "${FE_ARGS[@]}"; do [ "$a" = --tx-first ] || keep+=("$a"); done
	FE_ARGS=("${keep[@]}" --record-burst-stats)
	local save_mem=("${MEM[@]}")
	MEM=("${VGMEM[@]}")
	BE_PRE=(nice -n "$VG_NICE")
	if ! start_backend "$be" "$sock" "$BE_MODE" "${BE_ARGS[@]}"; then
		note="back-end did not start"
	else
		mkfifo "$fifo"
		# shellcheck disable=SC2046,SC2086 # word splitting of VG_OPTS, drv_eal wanted
		taskset -c 1 stdbuf -oL valgrind --tool=callgrind --callgrind-out-file="$cgout" \
			--dump-instr=no --vgdb=yes --instr-atstart=no $VG_OPTS \
			dpdk-testpmd --lcores='0@1,1@1' "${VGMEM[@]}" "${EXTRA_EAL[@]}" --no-pci --no-telemetry \
			--file-prefix="${PFX}v" $(drv_eal "$drv") --vdev "$DEVARGS" -- \
			--no-mlockall --total-num-mbufs=$MBUFS --forward-mode="$FE_MODE" "${FE_ARGS[@]}" -i \
			<"$fifo" >"$fe" 2>&1 &
		FE_PID=$!
		PIDS+=("$FE_PID")
		exec {fd}>"$fifo"
		local start=start
		[ "${row%%/*}" = loop ] && start="start tx_first"
		if ! wait_for "$fe" 'testpmd> ' 180; then
			note="testpmd under valgrind did not reach its prompt"
		elif ! timeout 60 callgrind_control -i on "$FE_PID" >/dev/null 2>&1 ||
			! timeout 60 callgrind_control -z "$FE_PID" >/dev/null 2>&1; then
			note="callgrind_control -i on / -z failed"
		else
			echo "$start" >&"$fd"
			sleep "$VG_SECS"
			echo stop >&"$fd"
			if ! wait_for "$fe" 'Accumulated forward statistics' 120; then
				note="no statistics after stop"
			else
				sleep 0.5
				timeout 120 callgrind_control -d "$FE_PID" >/dev/null 2>&1 || note="callgrind_control -d failed"
				# The idle window: the back-end frozen, every burst moves
				# nothing; its cost per burst is taken off the counts above
				# for the bursts there that moved nothing.
				kill -STOP "$BE_PID" 2>/dev/null
				sleep 0.3
				if timeout 60 callgrind_control -z "$FE_PID" >/dev/null 2>&1; then
					echo start >&"$fd"
					sleep "$VG_IDLE_SECS"
					echo stop >&"$fd"
					local deadline=$((SECONDS + 120))
					while [ $SECONDS -lt $deadline ] &&
						[ "$(grep -ac 'Accumulated forward statistics' "$fe")" -lt 2 ]; do sleep 0.2; done
					sleep 0.5
					timeout 120 callgrind_control -d "$FE_PID" >/dev/null 2>&1 ||
						note="${note:+$note; }idle window not dumped"
				fi
			fi
		fi
		# The window is dumped; testpmd's tear-down under valgrind is slow
		# and not needed: kill it and remove its vgdb FIFOs.
		exec {fd}>&-
		kill -9 "$FE_PID" 2>/dev/null
		wait "$FE_PID" 2>/dev/null
		rm -f /tmp/vgdb-pipe-*-"$FE_PID"-* 2>/dev/null
	fi
	kill -9 "$BE_PID" 2>/dev/null
	wait "$BE_PID" 2>/dev/null
	PIDS=()
	MEM=("${save_mem[@]}")
	BE_PRE=()
	rm -f "$cgout" # (a whole-run profile only if valgrind exited by itself)
	python3 "$REPORT" cg --row "$row" --driver "$drv" --devargs "$DEVARGS" --file "$cgout.1" --idle-file "$cgout.2" \
		--fe-log "$fe" --so "$([ "$drv" = gv ] && echo 'librte_net_gvirtio\.so' || echo 'librte_net_virtio\.so')" \
		--note "$note" >"$WORK/vg.$3.json"
	[ "$KEEP" = 1 ] || rm -rf "$d"
}

# ---- progress line: overwritten on a terminal, plain lines otherwise
T0=$SECONDS
progress() { # DONE TOTAL TEXT
	local el=$((SECONDS - T0)) eta=""
	[ "$1" -gt 0 ] && eta=" eta $(((SECONDS - T0) * ($2 - $1) / $1))s"
	if [ -t 2 ]; then
		printf '\r\033[K[%d/%d %ds%s] %s' "$1" "$2" "$el" "$eta" "$3" >&2
	else
		printf '[%d/%d %ds%s] %s\n' "$1" "$2" "$el" "$eta" "$3" >&2
	fi
}

TS=$(date +%Y%m%d-%H%M%S)
VGDIR=$RESULTS/pmd-$TS-callgrind
mkdir -p "$RESULTS"
: >"$WORK/samples.jsonl"
: >"$WORK/callgrind.jsonl"
nvg=0
for r in $VG_ROWS; do nvg=$((nvg + 2)); done
total=$((ROUNDS * ${#ROWS[@]} * 2 + nvg))
done_n=0
LAST=-
echo "pmd_compare: ${#ROWS[@]} rows x 2 drivers x $ROUNDS rounds, $SECS s per sample (+$WARMUP warm-up);" \
	"$((nvg / 2)) callgrind rows; $MEMNOTE" >&2
for ((round = 1; round <= ROUNDS; round++)); do
	for row in "${ROWS[@]}"; do
		for drv in gv dpdk; do
			progress "$done_n" "$total" "round $round/$ROUNDS $row $drv (last $LAST pps)"
			sample "$round" "$row" "$drv"
			done_n=$((done_n + 1))
		done
	done
done
LAST=-
for row in $VG_ROWS; do
	for drv in gv dpdk; do
		progress "$done_n" "$total" "callgrind $row $drv (last $LAST instr/pkt)"
		vg_sample "$row" "$drv"
		done_n=$((done_n + 1))
	done
done
progress "$done_n" "$total" "done"
[ -t 2 ] && echo >&2

CMD="$([ "$FULL" = 1 ] && echo 'FULL=1 ')ROUNDS=$ROUNDS SECS=$SECS WARMUP=$WARMUP bash bench/pmd_compare.sh"
python3 "$REPORT" report --samples "$WORK/samples.jsonl" --callgrind "$WORK/callgrind.jsonl" \
	--rows "${ROWS[*]}" --vg-rows "$VG_ROWS" --json "$RESULTS/pmd-$TS.json" --latest "$RESULTS/pmd-latest.json" \
	--png "$RESULTS/pmd-latest.png" --gnuplot-dir "$WORK" \
	--meta "command=$CMD" --meta "rounds=$ROUNDS" --meta "secs=$SECS" --meta "warmup=$WARMUP" \
	--meta "memory=$MEMNOTE" --meta "perf=$PERFNOTE" --meta "vg_secs=$VG_SECS" --meta "vg_nice=$VG_NICE" \
	--meta "plugin=$PLUGIN (sha256 $(sha256sum "$GV_SO" | cut -c1-12))" --meta "plugin_desc=${PLUGIN_DESC:-}" \
	--meta "callgrind_dir=$([ -n "$VG_ROWS" ] && echo "$VGDIR")" \
	--meta "git=$(git -C "$ROOT" describe --always --dirty 2>/dev/null)" \
	--meta "dpdk=$(dpkg-query -W -f='${Version}' dpdk 2>/dev/null)" \
	--meta "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs" \
	--meta "elapsed_s=$((SECONDS - T0))" || exit 2
[ "$NFAIL" = 0 ] || { echo "pmd_compare: $NFAIL samples failed" >&2; exit 1; }
