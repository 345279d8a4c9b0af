#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/pmd_compare.sh - gvirtio against DPDK's own virtio-user PMD
# (net_virtio_user), both driving the same DPDK vhost-user back-end
# (dpdk-testpmd with net_vhost) through unmodified dpdk-testpmd (issue 6).
#
#   bash bench/pmd_compare.sh              default subset (~20 minutes: the
#                                          estimate is printed first)
#   FULL=1 bash bench/pmd_compare.sh       the whole matrix (~75 minutes)
#   SWEEP=1 bash bench/pmd_compare.sh      no-cliff table: ring x burst sizes
#                                          (~13 minutes; see "Sweep" below)
#   ROUNDS=5 FILTER='^grx/' bash bench/pmd_compare.sh
#   ROUNDS=1 SECS=1 CALLGRIND=0 FILTER='^gtx/split/mrg1/inorder/64' bash bench/pmd_compare.sh
#
# Needs dpdk-testpmd with DPDK's net_vhost and net_virtio_user (Debian
# package dpdk, scripts/setup.sh) and the gvirtio plugin (`bash
# scripts/build.sh build`); it stops at once, saying which, when one is
# missing. Run as root (hugepages, nice) on an otherwise idle machine.
#
# Set-up per sample: the back-end testpmd (net_vhost, vhost-user server)
# runs on CPU 0 (--lcores=0@0,1@0), the driver-side testpmd (gvirtio
# loaded with -d, or DPDK's net_virtio_user) on CPU 1 (--lcores=0@1,1@1);
# both are started fresh for every sample.
#
# Directions (testpmd forwarding modes, driver <-> back-end):
#   gtx   guest TX: driver txonly -> back-end rxonly; rate = back-end Rx-pps
#   grx   guest RX: back-end txonly -> driver rxonly; rate = driver Rx-pps
#   loop  loopback as DPDK's virtio-user loopback test plans run it: both
#         sides in mac forwarding, the driver's testpmd interactive and
#         started with "start tx_first 32" (32 bursts: a fixed population
#         of 1024 packets circulates, less what the rings cannot hold);
#         rate = driver Rx-pps ("show port stats 0" once a second)
# Each sample: the per-second Rx-pps of the measured side (testpmd
# --stats-period 1, or "show port stats" for loop); leading zeros are
# dropped (not connected yet; a testpmd's first print is always 0), then
# WARMUP samples (default 1: the first second of traffic, partial), then
# the median of the next SECS.
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
#             (gvirtio: vectorized=0 on the three rows above, so
#             they measure the scalar paths; except inorder with
#             mrg1, its default: the vector RX and TX paths, as by
#             default)
#   vec       vectorized=1 (gvirtio's    vectorized=1; split: in_order=0 (DPDK
#             vector RX on split; else   drops vectors with IN_ORDER), vectorized
#             its default path)          RX + standard TX; packed: in_order=1 and
#                                        EAL --force-max-simd-bitwidth=512 (AVX512
#                                        RX+TX; given to both drivers in vec rows)
# mrg_rxbuf=0|1 and packed_vq=0|1 are passed to both. vec rows are mrg0
# (DPDK's vector paths need mergeable buffers off). The paths each driver
# really took (from its log) are recorded and printed with the table.
#
# Order: ROUNDS rounds; each round goes through every row and runs both
# drivers for it back to back, so a row's two samples of a round are side
# by side. Which one goes first alternates with the round (ORDER=alt:
# gvirtio first in odd rounds, DPDK first in even ones), so a bias of the
# first or second place in a pair cancels over an even number of rounds.
# Per row: median and min-max Mpps of each driver over the rounds, and the
# median of the per-round ratios gvirtio/DPDK. Only the ratios mean much
# on a shared, noisy machine.
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
# Who set the pace, per sample: grx and loop, the driver's RX burst fill
# (RX-packets / (RX-bursts x burst), --record-burst-stats; near 100%: the
# driver is the bottleneck, low: it waited for the back-end); gtx, the
# share of the packets txonly offered that the ring took (TX-packets /
# TX-total; well below 100%: the ring was full, the back-end set the pace).
#
# Sweep (SWEEP=1, the issue's "no throughput cliff" table): gvirtio's
# default path (mergeable, in-order, 64 B) of each layout on SWEEP_DIRS
# (default gtx: guest TX is the direction where the driver's side does
# the most of the work relative to the back-end -- txonly's packet
# building plus the TX burst and reclaim, against the back-end's dequeue
# copy -- so it is the one that shows the driver's own ring and burst
# behaviour; on guest RX and loopback the back-end's enqueue copy
# dominates), for every ring size of SWEEP_RINGS (256 512 1024 2048
# 4096: --rxd/--txd and queue_size for both drivers) and burst size of
# SWEEP_BURSTS (1 4 8 16 32 64: the driver side's --burst; the back-end
# keeps 32). DPDK's net_virtio_user is measured on the cross through the
# default (SWEEP_DPDK=cross: ring 256 with every burst, burst 32 with
# every ring; =all: every cell; =none). Defaults there: ROUNDS=2 SECS=1
# WARMUP=1, CALLGRIND=0. Report: per direction, layout and driver a
# ring x burst table of Mpps (median over rounds) with, per cell, whether
# it is within 10% of that table's best cell; the same tables on each
# cell's best second over its rounds (a setting's own cliff shows there
# too, a slow machine state only in the median); then gvirtio/DPDK ratios
# on the cross. Loop cells send 1024/burst bursts first (population 1024).
#
# Output: a progress line on stderr (with the estimated run time first), a
# markdown report on stdout, bench/results/pmd-<timestamp>.json and .png,
# copies as bench/results/pmd-latest.json/.png (sweep: pmd-sweep-<timestamp>
# .json/.png: Mpps against burst size, a line per ring size, per table).
# Exit status 1 if a sample failed, 2 on a usage or set-up error.
#
# Environment:
#   FULL=1          all rows: gtx/grx/loop x split/packed x mrg 0/1 x
#                   simple/inorder/full x 64/1518 B, plus vec rows
#   SWEEP=1         the ring x burst sweep instead of the rows (above);
#                   SWEEP_DIRS, SWEEP_RINGS, SWEEP_BURSTS, SWEEP_DPDK
#   ROUNDS=N        rounds (3; sweep 2)
#   SECS=N          measured seconds per sample (4; sweep 1)
#   WARMUP=N        per-second samples dropped first (1)
#   ORDER=alt|gv|dpdk  which driver goes first in each round's pair: alt
#                   (default) alternates with the round, gv / dpdk always
#                   that one first (to measure the position's own effect)
#   SIZES="64 1518" frame sizes of the FULL matrix (default 64 1518); the
#                   default subset has the default path rows at 64 and
#                   1518 B and the other rows at 64 B
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
#                   librte_net_gvirtio.so, made by `bash scripts/build.sh build`)
#   PLUGIN_DESC=..  free text recorded with the results (e.g. the commit it was built from)
#   HUGE=0          do not use hugepages even when they can be reserved
#                   (default: 2 MB hugepages when enough are free or, as
#                   root, can be reserved -- given back afterwards; both
#                   testpmds then run --in-memory --single-file-segments;
#                   else --no-huge. The report says which.)
#   PERF=1          profile the driver-side testpmd with `perf record -e
#                   cpu-clock -F PERF_HZ` over each sample's measured seconds
#                   (timer samples, no hardware counters needed); the report
#                   adds each driver's time by shared object (bench/pmd_perf.py)
#   PERF_HZ=N       perf's sampling rate (2999)
#   PERF_PROC=be    profile the back-end testpmd instead (where a driver
#                   makes the back-end slower: cache lines it shares with
#                   it); implies KEEP=1, no summary in the report: read each
#                   sample's perf.data with `perf report -i` (or
#                   `python3 bench/pmd_perf.py summarize FILE`)
#   FE_EXTRA="..."  extra options for the driver-side testpmd, both drivers
#                   (e.g. --rxfreet=8: the RX refill threshold)
#   BE_EXTRA="..."  extra options for the back-end testpmd (e.g.
#                   --record-burst-stats); the back-end is then stopped with
#                   SIGINT, not killed, so its final statistics are in each
#                   sample's be.log (with KEEP=1) and in its JSON line
#                   (backend_stats). With --record-core-cycles the report
#                   adds a table of the back-end's busy cycles a packet next
#                   to each driver and its busy share: near 1, the back-end
#                   set the pace (its cycles a packet are then the inverse
#                   of the rate); well under 1, something else did
#   GV_DEVARGS=k=v,...  extra devargs for gvirtio's port, after the row's
#                   (e.g. rx_hdr_line=own)
#   KEEP=1          keep the per-sample logs (path printed at the end)
#   PMD_RESULTS=DIR where the JSON and PNG go (default bench/results;
#                   bench/pmd_ab.sh gives each of its runs its own)
#   DRY=1           print the rows and the run-time estimate, run nothing
set -uo pipefail
# DPDK's net_virtio_user must reach DPDK's PMD even where gvirtio is loaded
# (gvirtio answers to that name by default; its own ports are net_gvirtio_user).
export GVIRTIO_PREFER=dpdk

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPORT=$ROOT/bench/pmd_report.py
RESULTS=${PMD_RESULTS:-$ROOT/bench/results}

# The exact command, for the report: the settings given, then the script.
CMD=
for v in FULL SWEEP ROUNDS SECS WARMUP ORDER SIZES FILTER CALLGRIND VG_ROWS VG_SECS VG_TRIES VG_NICE \
	SWEEP_DIRS SWEEP_RINGS SWEEP_BURSTS SWEEP_DPDK HUGE PERF PERF_HZ PERF_PROC PLUGIN FE_EXTRA \
	BE_EXTRA GV_DEVARGS; do
	[ -n "${!v+set}" ] || continue
	if [[ ${!v} =~ ^[A-Za-z0-9_./,:+-]*$ ]]; then CMD+="$v=${!v} "; else CMD+="$v='${!v}' "; fi
done
CMD+="bash bench/pmd_compare.sh"
FULL=${FULL:-0}
SWEEP=${SWEEP:-0}
if [ "$SWEEP" = 1 ]; then
	ROUNDS=${ROUNDS:-2} SECS=${SECS:-1} CALLGRIND=${CALLGRIND:-0}
fi
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-4}
WARMUP=${WARMUP:-1}
SIZES=${SIZES:-64 1518}
FILTER=${FILTER:-}
CALLGRIND=${CALLGRIND:-1}
SWEEP_DIRS=${SWEEP_DIRS:-gtx}
SWEEP_RINGS=${SWEEP_RINGS:-256 512 1024 2048 4096}
SWEEP_BURSTS=${SWEEP_BURSTS:-1 4 8 16 32 64}
SWEEP_DPDK=${SWEEP_DPDK:-cross}
VG_SECS=${VG_SECS:-3}
VG_NICE=${VG_NICE:--10}
VG_OPTS=${VG_OPTS:---cache-sim=yes}
VG_TRIES=${VG_TRIES:-1}
VG_IDLE_SECS=${VG_IDLE_SECS:-1}
BE_PRE=()
HUGE=${HUGE:-1}
KEEP=${KEEP:-0}
PERF=${PERF:-0}
PERF_HZ=${PERF_HZ:-2999}
PERF_PROC=${PERF_PROC:-fe}
ORDER=${ORDER:-alt}
MEM_MB=256
MBUFS=16384

die() { echo "pmd_compare: $*" >&2; exit 2; }
case "$*" in -h | --help) sed -n '3,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 0 ] || die "no arguments (settings are environment variables; --help)"
for v in ROUNDS SECS VG_SECS VG_TRIES PERF_HZ; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be an integer"
[[ $PERF =~ ^[01]$ ]] || die "PERF must be 0 or 1"
[[ $PERF_PROC =~ ^(fe|be)$ ]] || die "PERF_PROC must be fe or be"
[[ $ORDER =~ ^(alt|gv|dpdk)$ ]] || die "ORDER must be alt, gv or dpdk"
[ "$PERF" = 1 ] && [ "$PERF_PROC" = be ] && KEEP=1
[[ $SWEEP_DPDK =~ ^(cross|all|none)$ ]] || die "SWEEP_DPDK must be cross, all or none"
for v in $SWEEP_RINGS $SWEEP_BURSTS; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "SWEEP_RINGS / SWEEP_BURSTS: positive integers"
done
for v in $SWEEP_DIRS; do [[ $v =~ ^(gtx|grx|loop)$ ]] || die "SWEEP_DIRS: gtx, grx, loop"; done
# Fail fast on a fresh machine: what is missing and how to get it.
command -v dpdk-testpmd >/dev/null ||
	die "dpdk-testpmd missing: run 'bash scripts/setup.sh' (installs Debian's dpdk)"
for so in librte_net_vhost librte_net_virtio; do
	ldconfig -p 2>/dev/null | grep -q "$so\.so" || ls /usr/lib/*/dpdk/pmds-*/"$so".so* >/dev/null 2>&1 ||
		die "DPDK's $so missing: run 'bash scripts/setup.sh' (Debian package librte-net-${so#librte_net_}23)"
done
command -v python3 >/dev/null || die "python3 missing: run 'bash scripts/setup.sh'"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (back-end on 0, driver on 1)"
if [ "$CALLGRIND" = 1 ]; then
	command -v valgrind >/dev/null && command -v callgrind_control >/dev/null ||
		die "valgrind missing: run 'bash scripts/setup.sh' (or CALLGRIND=0 to skip the per-packet cost)"
fi
if [ "$PERF" = 1 ]; then
	perf record -q -e cpu-clock -o /dev/null -- true >/dev/null 2>&1 ||
		die "PERF=1: 'perf record -e cpu-clock' does not work here (Debian package linux-perf; as root)"
fi

# ---- the plugin: run a private copy (EAL refuses -d under a
# world-writable directory, and the build dir may be rebuilt by someone
# else while we measure).
PLUGIN=${PLUGIN:-$ROOT/build/drivers/net/virtio/librte_net_gvirtio.so}
[ -f "$PLUGIN" ] || die "no gvirtio plugin at $PLUGIN: build it first with 'bash scripts/build.sh build' (or set PLUGIN=FILE)"
SAFE=${HOME:-/root}/.cache/gvirtio-plugin/pmd_compare.$$
mkdir -p "$SAFE" && chmod 700 "${HOME:-/root}/.cache/gvirtio-plugin" "$SAFE" || die "cannot create $SAFE"
cp "$PLUGIN" "$SAFE/librte_net_gvirtio.so" || die "cannot copy the plugin"
GV_SO=$SAFE/librte_net_gvirtio.so

WORK=$(mktemp -d /tmp/pmd_compare.XXXXXX)

# ---- the machine's cross-core round trip, before and after every sample
# (bench/xcore_rtt.c): the vCPUs move between physical cores, and the
# report compares two samples only when both ran in the same state.
RTT_EXE=$WORK/xcore_rtt
if ! cc -O2 -pthread -o "$RTT_EXE" "$ROOT/bench/xcore_rtt.c" 2>"$WORK/xcore_rtt.err"; then
	echo "pmd_compare: cannot build bench/xcore_rtt.c ($(head -1 "$WORK/xcore_rtt.err")): no round-trip tags" >&2
	RTT_EXE=
fi
rtt() { [ -n "$RTT_EXE" ] && "$RTT_EXE" 0 1 100000 2>/dev/null || echo ""; }
PFX="pmdc$$"
PIDS=()
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
HP_RESTORE=
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
		rm -f /tmp/vgdb-pipe-*-"$p"-* 2>/dev/null
	done
	[ -n "$HP_RESTORE" ] && echo "$HP_RESTORE" >"$HP/nr_hugepages" 2>/dev/null
	rm -rf "$SAFE" /var/run/dpdk/"$PFX"* 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "pmd_compare: logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- memory: 2 MB hugepages when enough are free or we can reserve them
# (root; given back afterwards); else --no-huge (EAL then shares memory
# through memfd).
MEM=(--no-huge -m "$MEM_MB")
MEMNOTE="no hugepages: --no-huge -m $MEM_MB"
if [ "$HUGE" = 1 ] && [ -r "$HP/free_hugepages" ]; then
	need=$((2 * MEM_MB / 2 + 16)) # two testpmds of MEM_MB each, in 2 MB pages, and a margin
	orig=$(cat "$HP/nr_hugepages")
	if [ "$(cat "$HP/free_hugepages")" -lt "$need" ] && [ -w "$HP/nr_hugepages" ]; then
		HP_RESTORE=$orig
		echo $((orig + need - $(cat "$HP/free_hugepages"))) >"$HP/nr_hugepages" 2>/dev/null
	fi
	if [ "$(cat "$HP/free_hugepages")" -ge "$need" ]; then
		# vhost-user shares the driver's memory as at most 8 files: one file.
		MEM=(--in-memory --single-file-segments -m "$MEM_MB")
		MEMNOTE="2 MB hugepages, --in-memory --single-file-segments -m $MEM_MB"
	else
		MEMNOTE="$MEMNOTE (could not get $need free 2 MB hugepages)"
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

# ---- rows: dir/layout/mrgN/path/size, sweep cells dir/layout/mrgN/path/size/rRING/bBURST
ROWS=()
DPDK_SKIP=" " # rows (sweep cells) measured with gvirtio only
if [ "$SWEEP" = 1 ]; then
	for dir in $SWEEP_DIRS; do
		for layout in split packed; do
			for ring in $SWEEP_RINGS; do
				for burst in $SWEEP_BURSTS; do
					r="$dir/$layout/mrg1/inorder/64/r$ring/b$burst"
					ROWS+=("$r")
					case $SWEEP_DPDK in
					all) ;;
					cross) [ "$ring" = 256 ] || [ "$burst" = 32 ] || DPDK_SKIP+="$r " ;;
					none) DPDK_SKIP+="$r " ;;
					esac
				done
			done
		done
	done
elif [ "$FULL" = 1 ]; then
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
	# buffers) at 64 and 1518 B, the other TX path classes on guest TX,
	# and DPDK's vector paths (mergeable off) on guest RX, where they
	# matter (DPDK's split vector path is RX only); gvirtio's column there
	# is its vectorized path when the plugin has one (vectorized=1), else
	# its default path with mergeable off.
	for size in $SIZES; do
		for dir in gtx grx loop; do
			for layout in split packed; do ROWS+=("$dir/$layout/mrg1/inorder/$size"); done
		done
	done
	ROWS+=("gtx/split/mrg1/simple/64" "gtx/split/mrg1/full/64"
		"grx/split/mrg0/vec/64" "grx/packed/mrg0/vec/64")
fi
if [ -n "$FILTER" ]; then
	sel=()
	for r in "${ROWS[@]}"; do grep -qE -- "$FILTER" <<<"$r" && sel+=("$r"); done
	ROWS=("${sel[@]}")
fi
VG_ROWS=${VG_ROWS:-gtx/split/mrg1/inorder/64 gtx/packed/mrg1/inorder/64 grx/split/mrg1/inorder/64 grx/packed/mrg1/inorder/64}
[ "$CALLGRIND" = 1 ] || VG_ROWS=
[ ${#ROWS[@]} -gt 0 ] || [ -n "$VG_ROWS" ] || die "no rows match FILTER=$FILTER"
# gvirtio's vectorized path, when this plugin has one (its devargs list
# names "vectorized"), is asked for in the vec rows as DPDK's is.
GV_VEC=0
grep -aq vectorized "$GV_SO" && GV_VEC=1

# ---- one row -> devargs and testpmd settings
# row_setup ROW DRIVER SOCK: sets DEVARGS, EXTRA_EAL (array), BE_MODE,
# FE_MODE, BE_ARGS, FE_ARGS (arrays), MEASURE (be|fe)
row_setup() {
	local dir layout mrg path size ring burst packed inord
	IFS=/ read -r dir layout mrg path size ring burst <<<"$1"
	mrg=${mrg#mrg}
	ring=${ring#r}
	burst=${burst#b}
	packed=0
	[ "$layout" = packed ] && packed=1
	EXTRA_EAL=()
	if [ "$2" = gv ]; then
		DEVARGS="net_gvirtio_user0,path=$3,packed_vq=$packed,mrg_rxbuf=$mrg"
		if [ "$path" != vec ]; then
			DEVARGS+=",datapath=$path"
			# mrg1 inorder is gvirtio's default: its vector RX and TX paths.
			[ "$GV_VEC" = 1 ] && { [ "$path" != inorder ] || [ "$mrg" = 0 ]; } &&
				DEVARGS+=",vectorized=0"
		elif [ "$GV_VEC" = 1 ]; then
			DEVARGS+=",vectorized=1"
		fi
		[ -n "${GV_DEVARGS:-}" ] && DEVARGS+=",$GV_DEVARGS"
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
	START=start
	case $dir in
	gtx) BE_MODE=rxonly FE_MODE=txonly MEASURE=be FE_ARGS=(--txpkts="$size" --record-core-cycles) ;;
	grx) BE_MODE=txonly FE_MODE=rxonly MEASURE=fe BE_ARGS=(--txpkts="$size")
		FE_ARGS=(--record-core-cycles --record-burst-stats) ;;
	loop) BE_MODE=mac FE_MODE=mac MEASURE=fe FE_ARGS=(--txpkts="$size" --record-core-cycles --record-burst-stats)
		START="start tx_first $((1024 / ${burst:-32} > 0 ? 1024 / ${burst:-32} : 1))" ;;
	*) die "bad row $1" ;;
	esac
	# sweep cells: ring size for both drivers (queue_size caps DPDK's
	# nb_desc; gvirtio takes the app's), burst size of the driver side
	if [ -n "$ring" ]; then
		DEVARGS+=",queue_size=$ring"
		FE_ARGS+=(--rxd="$ring" --txd="$ring")
	fi
	[ -n "$burst" ] && FE_ARGS+=(--burst="$burst")
	# extra driver-side testpmd options, both drivers (split on blanks, no globbing)
	if [ -n "${FE_EXTRA:-}" ]; then
		local fe_extra
		read -r -a fe_extra <<<"$FE_EXTRA"
		FE_ARGS+=("${fe_extra[@]}")
	fi
	if [ -n "${BE_EXTRA:-}" ]; then
		local be_extra
		read -r -a be_extra <<<"$BE_EXTRA"
		BE_ARGS+=("${be_extra[@]}")
	fi
	return 0
}

drv_eal() { # DRIVER: the driver-specific EAL arguments
	if [ "$1" = gv ]; then
		echo "-d $GV_SO --log-level=pmd.net.gvirtio:info"
	else
		echo "--log-level=pmd.net.virtio.init:debug"
	fi
}

# send FD LINE: a command to an interactive testpmd through its FIFO. In a
# subshell: if testpmd has gone, the write's SIGPIPE ends the subshell,
# not this script (whose clean-up would then not run).
send() { (printf '%s\n' "$2" >&"$1") 2>/dev/null; }

wait_for() { # FILE REGEX SECONDS [PID]: until REGEX is in FILE (or PID is gone)
	local deadline=$((SECONDS + $3))
	while [ $SECONDS -lt $deadline ]; do
		grep -aqE "$2" "$1" 2>/dev/null && return 0
		[ -z "${4:-}" ] || kill -0 "$4" 2>/dev/null || return 1
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
	local sock=$d/vhost.sock be=$d/be.log fe=$d/fe.log mlog n ok=1 note="" fd="" shown=-1
	mkdir -p "$d"
	row_setup "$row" "$drv" "$sock"
	local t0=$EPOCHREALTIME rtt0 rtt1
	rtt0=$(rtt)
	tmark() { echo "$1 $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')" >>"$d/timing"; }
	if ! start_backend "$be" "$sock" "$BE_MODE" "${BE_ARGS[@]}"; then
		ok=0 note="back-end did not start"
	else
		# Loopback: interactive (commands through a FIFO) for "start
		# tx_first 32"; the rate is printed by "show port stats 0" each
		# second. Otherwise forwarding starts by itself, --stats-period 1.
		# (stdbuf: line-buffered, or "show" output reaches the log late)
		local fe_in=/dev/null fe_mode=(--stats-period 1) fe_pre=()
		if [ "$START" != start ]; then
			mkfifo "$d/cmd"
			fe_in=$d/cmd fe_mode=(-i) fe_pre=(stdbuf -oL)
		fi
		# shellcheck disable=SC2046
		"${fe_pre[@]}" dpdk-testpmd --lcores='0@1,1@1' "${MEM[@]}" "${EXTRA_EAL[@]}" --no-pci --no-telemetry \
			--file-prefix="${PFX}f" $(drv_eal "$drv") --vdev "$DEVARGS" -- \
			--no-mlockall --total-num-mbufs=$MBUFS "${fe_mode[@]}" --forward-mode="$FE_MODE" \
			"${FE_ARGS[@]}" <"$fe_in" >"$fe" 2>&1 &
		FE_PID=$!
		PIDS+=("$FE_PID")
		mlog=$fe
		[ "$MEASURE" = be ] && mlog=$be
		tmark backend-up
		if [ "$fe_in" != /dev/null ]; then
			exec {fd}>"$fe_in"
			if wait_for "$fe" 'testpmd> ' 60 "$FE_PID"; then
				send "$fd" "$START"
			else
				note="driver testpmd did not reach its prompt"
			fi
		fi
		local want=$((WARMUP + SECS)) deadline=$((SECONDS + 25 + WARMUP + SECS)) first=1 perf_pid=""
		while [ $SECONDS -lt $deadline ]; do
			if [ -n "$fd" ] && [ "$shown" != "$SECONDS" ]; then
				send "$fd" "show port stats 0"
				shown=$SECONDS
			fi
			n=$(rates "$mlog" | wc -l)
			[ "$first" = 1 ] && [ "$n" -gt 0 ] && { tmark first-rate; first=0; }
			# the profile covers the measured seconds: from the end of the warm-up
			if [ "$PERF" = 1 ] && [ -z "$perf_pid" ] && [ "$n" -ge "$WARMUP" ] && [ "$n" -gt 0 ]; then
				local perf_target=$FE_PID
				[ "$PERF_PROC" = be ] && perf_target=$BE_PID
				perf record -q -e cpu-clock -F "$PERF_HZ" -p "$perf_target" -o "$d/perf.data" \
					-- sleep "$SECS" >"$d/perf.log" 2>&1 &
				perf_pid=$!
			fi
			[ "$n" -ge "$want" ] && break
			kill -0 "$FE_PID" 2>/dev/null || { note="driver testpmd exited"; break; }
			sleep 0.25
		done
		tmark measured
		[ -n "$perf_pid" ] && wait "$perf_pid"
		if [ -n "$fd" ]; then
			# "stop" prints the forwarding statistics (cycles/packet)
			send "$fd" stop
			send "$fd" quit
			exec {fd}>&-
			local i
			for ((i = 0; i < 100; i++)); do kill -0 "$FE_PID" 2>/dev/null || break; sleep 0.1; done
		fi
		stop_proc "$FE_PID" 10 || note="${note:+$note; }driver testpmd killed"
		tmark driver-stopped
	fi
	# the back-end's final statistics are used only with BE_EXTRA (read from be.log)
	if [ -n "${BE_EXTRA:-}" ]; then
		stop_proc "$BE_PID" 10 || note="${note:+$note; }back-end killed"
	else
		kill -9 "$BE_PID" 2>/dev/null
		wait "$BE_PID" 2>/dev/null
	fi
	PIDS=()
	rtt1=$(rtt)
	local vals
	vals=$(rates "${mlog:-$be}" | sed -n "$((WARMUP + 1)),$((WARMUP + SECS))p" | paste -sd, -)
	n=$(awk -F, '{ print NF }' <<<"$vals")
	[ -z "$vals" ] && n=0
	if [ "$n" -lt "$SECS" ]; then
		note="${note:+$note; }only $n of $SECS samples"
		[ "$n" = 0 ] && ok=0
	fi
	[ "$ok" = 1 ] || NFAIL=$((NFAIL + 1))
	local perf_json=""
	if [ "$PERF" = 1 ] && [ "$PERF_PROC" = fe ]; then
		perf_json=$d/perf.json
		python3 "$ROOT/bench/pmd_perf.py" summarize "$d/perf.data" >"$perf_json" 2>>"$d/perf.log" ||
			note="${note:+$note; }no perf profile"
	fi
	local be_log=""
	[ -n "${BE_EXTRA:-}" ] && be_log=$be
	python3 "$REPORT" sample --round "$round" --row "$row" --driver "$drv" --devargs "$DEVARGS" \
		--rates "$vals" --fe-log "$fe" --be-log "$be_log" --note "$note" --rtt "$rtt0,$rtt1" \
		--perf "$perf_json" >>"$WORK/samples.jsonl"
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
		local start=$START
		if ! wait_for "$fe" 'testpmd> ' 180 "$FE_PID"; then
			note="testpmd under valgrind did not reach its prompt"
		elif ! timeout 60 callgrind_control -i on "$FE_PID" >/dev/null 2>&1 ||
			! timeout 60 callgrind_control -z "$FE_PID" >/dev/null 2>&1; then
			note="callgrind_control -i on / -z failed"
		else
			send "$fd" "$start"
			sleep "$VG_SECS"
			send "$fd" stop
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
					send "$fd" start
					sleep "$VG_IDLE_SECS"
					send "$fd" stop
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
nsamp=0
for row in "${ROWS[@]}"; do
	nsamp=$((nsamp + 2))
	[[ $DPDK_SKIP == *" $row "* ]] && nsamp=$((nsamp - 1))
done
nsamp=$((nsamp * ROUNDS))
total=$((nsamp + nvg))
done_n=0
LAST=-
# Run time estimate: a sample is its WARMUP + SECS seconds plus ~3 s of
# start (two EALs, the vhost-user handshake, testpmd's first all-zero
# print) and stop; a callgrind run ~35 s plus its windows (testpmd's start
# under valgrind).
est=$((nsamp * (WARMUP + SECS + 3) + nvg * (35 + VG_SECS + VG_IDLE_SECS)))
echo "pmd_compare: ${#ROWS[@]} rows, $nsamp samples ($ROUNDS rounds, $SECS s each + $WARMUP warm-up)," \
	"$((nvg / 2)) callgrind rows; $MEMNOTE" >&2
echo "pmd_compare: estimated run time $((est / 60)) min $((est % 60)) s (on an idle machine)" >&2
if [ "${DRY:-0}" = 1 ]; then
	printf '%s\n' "${ROWS[@]}" ${VG_ROWS:+$(printf 'callgrind:%s\n' $VG_ROWS)}
	exit 0
fi
for ((round = 1; round <= ROUNDS; round++)); do
	pair="gv dpdk"
	{ [ "$ORDER" = dpdk ] || { [ "$ORDER" = alt ] && ((round % 2 == 0)); }; } && pair="dpdk gv"
	for row in "${ROWS[@]}"; do
		for drv in $pair; do
			[ "$drv" = dpdk ] && [[ $DPDK_SKIP == *" $row "* ]] && continue
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

KIND=pmd
[ "$SWEEP" = 1 ] && KIND=pmd-sweep
python3 "$REPORT" "$([ "$SWEEP" = 1 ] && echo sweep || echo report)" \
	--samples "$WORK/samples.jsonl" --callgrind "$WORK/callgrind.jsonl" \
	--rows "${ROWS[*]}" --vg-rows "$VG_ROWS" --json "$RESULTS/$KIND-$TS.json" --latest "$RESULTS/$KIND-latest.json" \
	--png "$RESULTS/$KIND-$TS.png" --png-latest "$RESULTS/$KIND-latest.png" --gnuplot-dir "$WORK" \
	--meta "command=$CMD" --meta "rounds=$ROUNDS" --meta "secs=$SECS" --meta "warmup=$WARMUP" \
	--meta "memory=$MEMNOTE" --meta "perf=$PERFNOTE" --meta "vg_secs=$VG_SECS" --meta "vg_nice=$VG_NICE" \
	--meta "plugin=$PLUGIN (sha256 $(sha256sum "$GV_SO" | cut -c1-12))" --meta "plugin_desc=${PLUGIN_DESC:-}" \
	--meta "callgrind_dir=$([ -n "$VG_ROWS" ] && echo "$VGDIR")" \
	--meta "git=$(git -C "$ROOT" describe --always --dirty 2>/dev/null)" \
	--meta "dpdk=$(dpkg-query -W -f='${Version}' dpdk 2>/dev/null)" \
	--meta "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs" \
	--meta "elapsed_s=$((SECONDS - T0))" --meta "estimate_s=$est" --meta "gv_vec=$GV_VEC" || exit 2
[ "$NFAIL" = 0 ] || { echo "pmd_compare: $NFAIL samples failed" >&2; exit 1; }
