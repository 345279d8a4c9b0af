# bench/bench_lib.sh - what the small two-process benchmarks share
# (bench/plain_pair.sh, bench/pmd_rr.sh): a private work folder with a copy
# of the plugin (EAL refuses -d under a world-writable folder), the
# cross-core round-trip probe (bench/xcore_rtt.c), 2 MB hugepages reserved
# and given back, and the back-end testpmd (net_vhost on CPU 0).
#
#   bl_begin NAME PLUGIN        sets WORK, GV_SO, MEM=(EAL memory options); exits 2 on a set-up error
#   bl_rtt                      the cross-core round trip now, in ns ("nan" if unknown)
#   bl_backend SOCK MODE ARGS   back-end testpmd in forward mode MODE on SOCK, extra testpmd ARGS;
#                               returns once the socket exists (1 if it never did); pid in BL_BE
#   bl_kill PID...              SIGKILL and reap
# The caller's EXIT trap must call bl_end.
export GVIRTIO_PREFER=dpdk # net_virtio_user is DPDK's even with gvirtio loaded
BL_PIDS=()
BL_HP=/sys/kernel/mm/hugepages/hugepages-2048kB
BL_HP_RESTORE=
BL_NAME=bench

bl_die() {
	echo "$BL_NAME: $*" >&2
	exit 2
}

bl_begin() {
	BL_NAME=$1
	command -v dpdk-testpmd >/dev/null || bl_die "dpdk-testpmd missing: run 'bash scripts/setup.sh'"
	[ -f "$2" ] || bl_die "no plugin at $2: run 'bash scripts/build.sh build' (or set PLUGIN=FILE)"
	[ "$(nproc)" -ge 2 ] || bl_die "needs 2 CPUs"
	WORK=$(mktemp -d "${HOME:-/root}/.$BL_NAME.XXXXXX") || bl_die "cannot make a work folder"
	chmod 700 "$WORK"
	GV_SO=$WORK/librte_net_gvirtio.so
	cp "$2" "$GV_SO" || bl_die "cannot copy the plugin"
	cc -O2 -pthread -o "$WORK/xcore_rtt" "$(dirname "${BASH_SOURCE[0]}")/xcore_rtt.c" ||
		bl_die "cannot build bench/xcore_rtt.c"
	# two testpmds of 512 MB each, in 2 MB pages, and a margin
	local need=$((2 * 512 / 2 + 16)) free
	free=$(cat "$BL_HP/free_hugepages" 2>/dev/null || echo 0)
	if [ "$free" -lt "$need" ]; then
		BL_HP_RESTORE=$(cat "$BL_HP/nr_hugepages")
		echo $((BL_HP_RESTORE + need - free)) >"$BL_HP/nr_hugepages"
		[ "$(cat "$BL_HP/free_hugepages")" -ge "$need" ] || bl_die "cannot get $need free 2 MB hugepages"
	fi
	MEM=(--in-memory --single-file-segments -m 512)
}

bl_end() {
	bl_kill "${BL_PIDS[@]}"
	[ -z "$BL_HP_RESTORE" ] || echo "$BL_HP_RESTORE" >"$BL_HP/nr_hugepages"
	[ -n "${WORK:-}" ] || return 0
	if [ -n "${KEEP:-}" ]; then echo "$BL_NAME: logs in $WORK" >&2; else rm -rf "$WORK"; fi
	rm -rf /var/run/dpdk/"$BL_NAME$$"-*
}

bl_rtt() { "$WORK/xcore_rtt" 0 1 100000 2>/dev/null || echo nan; }

bl_kill() {
	local p
	for p in "$@"; do kill -9 "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
	BL_PIDS=()
}

bl_backend() {
	local sock=$1 mode=$2 i
	shift 2
	rm -f "$sock"
	dpdk-testpmd --lcores 0@0,1@0 "${MEM[@]}" --file-prefix="$BL_NAME$$-be" --no-pci \
		--vdev "net_vhost0,iface=$sock,queues=1" -- --forward-mode="$mode" --nb-cores=1 \
		--stats-period 1 "$@" </dev/null >"$WORK/be.log" 2>&1 &
	BL_BE=$!
	BL_PIDS+=("$BL_BE")
	for ((i = 0; i < 100; i++)); do
		[ -S "$sock" ] && return 0
		kill -0 "$BL_BE" 2>/dev/null || return 1
		sleep 0.1 # polling for the back-end's socket, bounded
	done
	return 1
}
