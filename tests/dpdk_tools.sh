#!/usr/bin/env bash
# dpdk_tools.sh PLUGIN.so - gvirtio as a drop-in, with the tools of
# Debian's dpdk package and DPDK's own command lines:
#   - a back-end testpmd with net_vhost (2 queue pairs) and a front-end
#     testpmd with DPDK's virtio-user howto line
#     (--vdev virtio_user0,path=...,queues=2,cq=1): gvirtio takes the name
#     (its log line says so) and both queue pairs forward;
#   - dpdk-proc-info (a secondary process) reads the running port's
#     --stats and --xstats: the counts move, the per-queue names are
#     DPDK's (rx_q0_good_packets, ...);
#   - dpdk-pdump (a secondary) captures a gvirtio port's RX into a pcap
#     that holds exactly the frames sent.
# The front-end uses hugepages (secondary processes map the primary's
# memory from its hugepage files); they are reserved here if missing and
# given back afterwards. Prints "dpdk_tools: N passed, M failed".
set -u

# shellcheck source=tests/testpmd_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/testpmd_lib.sh"
tp_begin dpdk_tools "${1:?usage: dpdk_tools.sh PLUGIN.so}" dpdk-testpmd dpdk-proc-info dpdk-pdump
cleanup() {
	tp_end
	rm -rf /var/run/dpdk/gvtfe$$ /var/run/dpdk/gvtbe$$
	hugepages_release "gvtfe$$"
}
trap cleanup EXIT

hugepages_reserve 160 || { echo "dpdk_tools: cannot reserve 160 2 MB hugepages"; exit 1; }

xstat() { # log name: the value of one "name: value" line
	sed -n "s/^$2: \([0-9]*\)$/\1/p" "$1" | head -1
}


sock="$work/s.sock" be="$work/be.log" fe="$work/fe.log"
tp=(--no-mlockall --total-num-mbufs=8192 --rxq=2 --txq=2 --forward-mode=io --stats-period 1)
dpdk-testpmd --lcores='0@0,1@0' --no-huge -m 512 --no-pci --no-telemetry --file-prefix="gvtbe$$" \
	--vdev "net_vhost0,iface=$sock,queues=2" -- "${tp[@]}" </dev/null >"$be" 2>&1 &
bepid=$!
pids+=("$bepid")
wait_for "$be" "binding succeeded|socket created" 20 || { bad "back-end did not start"; tail -20 "$be"; exit 1; }
# DPDK's howto line, with -d the only change.
dpdk-testpmd --lcores='0@1,1@1' --single-file-segments -m 256 --no-pci --file-prefix="gvtfe$$" \
	-d "$plugin" --vdev "virtio_user0,path=$sock,queues=2,cq=1" -- "${tp[@]}" --tx-first \
	</dev/null >"$fe" 2>&1 &
fepid=$!
pids+=("$fepid")
if wait_for "$fe" "Port statistics" 30; then
	ok "testpmd forwards on virtio_user0,queues=2,cq=1"
else
	bad "testpmd on virtio_user0 did not start forwarding"; tail -25 "$fe"
fi
if grep -q "gvirtio: .*drives .*virtio_user" "$fe" && grep -q "gvirtio: virtio_user0: " "$fe"; then
	ok "gvirtio drives virtio_user0 and says so"
else
	bad "virtio_user0 is not gvirtio's"; grep -iE "virtio" "$fe" | head -5
fi

wait_for "$fe" "RX-packets: +[1-9]" 10 || bad "no traffic counted by testpmd"
dpdk-proc-info --file-prefix="gvtfe$$" -d "$plugin" -- --stats >"$work/st1.log" 2>&1
st_rc=$?
dpdk-proc-info --file-prefix="gvtfe$$" -d "$plugin" -- --xstats >"$work/xs.log" 2>&1
xs_rc=$?
dpdk-proc-info --file-prefix="gvtfe$$" -d "$plugin" -- --stats >"$work/st2.log" 2>&1
rx1=$(sed -n 's/^ *RX-packets: *\([0-9]*\).*/\1/p' "$work/st1.log" | head -1)
rx2=$(sed -n 's/^ *RX-packets: *\([0-9]*\).*/\1/p' "$work/st2.log" | head -1)
if [ "$st_rc" = 0 ] && [ -n "$rx1" ] && [ -n "$rx2" ] && [ "$rx1" -gt 0 ] && [ "$rx2" -gt "$rx1" ]; then
	ok "dpdk-proc-info --stats: RX-packets $rx1 then $rx2"
else
	bad "dpdk-proc-info --stats (rc $st_rc, RX-packets '$rx1' then '$rx2')"; tail -15 "$work/st1.log"
fi
q0=$(xstat "$work/xs.log" rx_q0_good_packets)
q1=$(xstat "$work/xs.log" rx_q1_good_packets)
t0=$(xstat "$work/xs.log" tx_q0_good_bytes)
if [ "$xs_rc" = 0 ] && [ -n "$q0" ] && [ -n "$q1" ] && [ -n "$t0" ] && [ "$q0" -gt 0 ] && [ "$q1" -gt 0 ] &&
	[ "$t0" -gt 0 ] && [ -n "$(xstat "$work/xs.log" rx_q0_bad_id)" ]; then
	ok "dpdk-proc-info --xstats: rx_q0_good_packets $q0, rx_q1_good_packets $q1, tx_q0_good_bytes $t0"
else
	bad "dpdk-proc-info --xstats (rc $xs_rc, rx_q0 '$q0' rx_q1 '$q1' tx_q0 bytes '$t0')"; head -30 "$work/xs.log"
fi

stop_proc "$fepid"
if grep -q "Accumulated forward statistics" "$fe" && ! grep -qiE "gvirtio: .*(broken|invalid)" "$fe"; then
	ok "front-end stopped cleanly"
else
	bad "front-end did not stop cleanly"; tail -15 "$fe"
fi
stop_proc "$bepid"

# dpdk-pdump on a gvirtio port: a known, finite stream. gvirtio (server=1,
# rxonly) takes a net_vhost client (interactive, commands from a FIFO);
# pdump attaches to gvirtio's RX; then the back-end sends one tx_first
# burst of $burst frames of $len bytes (its io forwarding has nothing more
# to forward). The pcap holds exactly those frames, each the same as
# testpmd's txonly frame, and testpmd counted them.
# dpdk-testpmd links librte_mempool_dpaa, so its mempool ops are numbered
# differently from dpdk-pdump's, and the primary would use the wrong ops on
# pdump's pool (the capture stays empty, whatever the driver): pdump is
# given the same mempool drivers first (LD_PRELOAD). Its output is line
# buffered: "capture for" says it is attached.
burst=64 len=200 psock="$work/p.sock" pfe="$work/pfe.log" pbe="$work/pbe.log" pd="$work/pd.log"
preload=$(ldd "$(command -v dpdk-testpmd)" | sed -n 's/.*=> \(.*librte_mempool_[a-z0-9]*\.so[.0-9]*\) .*/\1/p' | tr '\n' ':')
dpdk-testpmd --lcores='0@1,1@1' --single-file-segments -m 256 --no-pci --file-prefix="gvtfe$$" \
	-d "$plugin" --vdev "virtio_user1,path=$psock,server=1" -- --no-mlockall --total-num-mbufs=8192 \
	--forward-mode=rxonly --stats-period 1 </dev/null >"$pfe" 2>&1 &
fepid=$!
pids+=("$fepid")
wait_for "$pfe" "waiting for a vhost-user back-end" 30 || bad "pdump: gvirtio server=1 is not listening"
mkfifo "$work/be.cmd"
exec 7<>"$work/be.cmd"
dpdk-testpmd --lcores='0@0,1@0' --no-huge -m 512 --no-pci --no-telemetry --file-prefix="gvtbe$$" \
	--vdev "net_vhost1,iface=$psock,client=1" -- -i --no-mlockall --total-num-mbufs=8192 \
	--forward-mode=io --burst=$burst --txpkts=$len <&7 >"$pbe" 2>&1 &
bepid=$!
pids+=("$bepid")
wait_for "$pfe" "Port statistics" 30 || { bad "pdump: gvirtio server port did not start"; tail -20 "$pfe"; }
LD_PRELOAD=$preload stdbuf -oL dpdk-pdump --file-prefix="gvtfe$$" -d "$plugin" -- \
	--pdump "port=0,queue=*,rx-dev=$work/rx.pcap" >"$pd" 2>&1 &
pdpid=$!
pids+=("$pdpid")
wait_for "$pd" "capture for" 30 || { bad "pdump did not attach"; tail -10 "$pd"; }
echo "start tx_first" >&7
if wait_for "$pfe" "RX-packets: +$burst " 30; then
	ok "pdump: gvirtio received the $burst frames"
else
	bad "pdump: gvirtio did not receive $burst frames"; grep "RX-packets" "$pfe" | tail -2
fi
stop_proc "$pdpid"
read -r n same bad_len < <(python3 - "$work/rx.pcap" "$len" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
want = int(sys.argv[2])
magic = struct.unpack_from("<I", data)[0]
assert magic in (0xa1b2c3d4, 0xa1b23c4d), "not a pcap"
off, frames = 24, []
while off + 16 <= len(data):
    _, _, incl, orig = struct.unpack_from("<IIII", data, off)
    frames.append((orig, data[off + 16:off + 16 + incl]))
    off += 16 + incl
# testpmd's txonly frame: IPv4 (0x0800), UDP, 198.18.0.1 -> 198.18.0.2, ports 9 -> 9.
def txonly(f):
    return (f[12:14] == b"\x08\x00" and f[23] == 17 and f[26:30] == bytes([198, 18, 0, 1]) and
            f[30:34] == bytes([198, 18, 0, 2]) and f[34:38] == b"\x00\x09\x00\x09")
same = sum(1 for o, f in frames if f == frames[0][1] and txonly(f)) if frames else 0
print(len(frames), same, sum(1 for o, f in frames if o != want or len(f) != want))
PY
)
if [ "${n:-0}" = "$burst" ] && [ "${same:-0}" = "$burst" ] && [ "${bad_len:-1}" = 0 ]; then
	ok "pdump: the pcap holds the $burst frames sent, $len bytes each, testpmd's txonly frame"
else
	bad "pdump: pcap has '$n' frames, '$same' the txonly frame, '$bad_len' not $len bytes"; tail -8 "$pd"
fi
stop_proc "$fepid"
echo "quit" >&7
stop_proc "$bepid"
tp_summary
