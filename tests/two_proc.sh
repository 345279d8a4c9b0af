#!/usr/bin/env bash
# two_proc.sh PLUGIN.so - RX and TX on one gvirtio port from two processes,
# the way DPDK's multi-process testpmd splits a port's queues:
#   - a primary testpmd (--num-procs=2 --proc-id=0) configures
#     virtio_user0 with 2 queue pairs against a net_vhost back-end and
#     forwards on queue pair 0 (io);
#   - a secondary testpmd (--proc-type=secondary --proc-id=1) forwards on
#     queue pair 1 through the burst functions and kick fds it got from
#     the primary;
#   - the back-end (rxonly, commands from a FIFO) sends one tx_first burst
#     of $burst frames on each queue; each process returns its queue's
#     frames, so the back-end receives exactly 2 x $burst back, and
#     gvirtio's per-queue xstats (read by dpdk-proc-info, a third process)
#     count exactly $burst each way on each queue;
#   - the secondary exits and the primary goes on and stops cleanly.
# Prints "two_proc: N passed, M failed".
set -u

# shellcheck source=tests/testpmd_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/testpmd_lib.sh"
tp_begin two_proc "${1:?usage: two_proc.sh PLUGIN.so}" dpdk-testpmd dpdk-proc-info
cleanup() {
	tp_end
	rm -rf /var/run/dpdk/gv2fe$$ /var/run/dpdk/gv2be$$
	hugepages_release "gv2fe$$"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
hugepages_reserve 160 || { echo "two_proc: cannot reserve 160 2 MB hugepages"; exit 1; }

# last LOG FIELD: the last "FIELD: n" count in a testpmd log
last() { sed -n "s/.*$2: *\([0-9]*\).*/\1/p" "$1" | tail -1; }
xstat() { sed -n "s/^$2: \([0-9]*\)$/\1/p" "$1" | head -1; }

burst=32 sock="$work/s.sock" be="$work/be.log" pri="$work/pri.log" sec="$work/sec.log"
mkfifo "$work/be.cmd"
exec 7<>"$work/be.cmd"
dpdk-testpmd --lcores='0@0,1@0' --no-huge -m 512 --no-pci --no-telemetry --file-prefix="gv2be$$" \
	--vdev "net_vhost0,iface=$sock,queues=2" -- -i --no-mlockall --total-num-mbufs=8192 --rxq=2 --txq=2 \
	--forward-mode=rxonly --burst=$burst --txpkts=128 <&7 >"$be" 2>&1 &
bepid=$!
pids+=("$bepid")
wait_for "$be" "socket created|binding succeeded" 20 || { bad "back-end did not start"; tail -20 "$be"; exit 1; }

fe=(--no-mlockall --total-num-mbufs=8192 --rxq=2 --txq=2 --forward-mode=io --stats-period 1 --num-procs=2)
dpdk-testpmd --lcores='0@1,1@1' --single-file-segments -m 256 --no-pci --file-prefix="gv2fe$$" -d "$plugin" \
	--vdev "virtio_user0,path=$sock,queues=2" -- "${fe[@]}" --proc-id=0 </dev/null >"$pri" 2>&1 &
pripid=$!
pids+=("$pripid")
wait_for "$pri" "Port statistics" 30 || { bad "primary did not start forwarding"; tail -20 "$pri"; exit 1; }
dpdk-testpmd --lcores='0@1,1@1' --single-file-segments --proc-type=secondary --no-pci --file-prefix="gv2fe$$" \
	-d "$plugin" --log-level=pmd.net.gvirtio:info -- "${fe[@]}" --proc-id=1 </dev/null >"$sec" 2>&1 &
secpid=$!
pids+=("$secpid")
if wait_for "$sec" "Port statistics" 30 && grep -q "attached in a secondary process (RX/TX on the primary's paths)" "$sec"; then
	ok "secondary attached to virtio_user0 with RX/TX and forwards on queue pair 1"
else
	bad "secondary did not attach with RX/TX"; grep -v "^ *$" "$sec" | tail -20; exit 1
fi

echo "start tx_first" >&7
deadline=$((SECONDS + 20)) got=
while [ $SECONDS -lt $deadline ]; do
	echo "show port stats 0" >&7
	sleep 0.2
	got=$(last "$be" RX-packets)
	[ "${got:-0}" -ge $((2 * burst)) ] && break
done
if [ "${got:-0}" = $((2 * burst)) ] && [ "$(last "$be" TX-packets)" = $((2 * burst)) ]; then
	ok "back-end sent $((2 * burst)) and got all $((2 * burst)) back"
else
	bad "back-end got '$got' of $((2 * burst)) back (sent $(last "$be" TX-packets))"
fi

dpdk-proc-info --file-prefix="gv2fe$$" -d "$plugin" -- --xstats >"$work/xs.log" 2>&1
counts=
for n in rx_q0_good_packets rx_q1_good_packets tx_q0_good_packets tx_q1_good_packets; do
	counts+="$n=$(xstat "$work/xs.log" $n) "
done
if [ "$counts" = "rx_q0_good_packets=$burst rx_q1_good_packets=$burst tx_q0_good_packets=$burst tx_q1_good_packets=$burst " ]; then
	ok "per-queue xstats (dpdk-proc-info): $counts"
else
	bad "per-queue xstats: $counts(want $burst each)"
fi

stop_proc "$secpid"
srx=$(sed -n '/Forward statistics for port 0/,/---/s/.*RX-packets: *\([0-9]*\).*/\1/p' "$sec" | head -1)
stx=$(sed -n '/Forward statistics for port 0/,/---/s/.*TX-packets: *\([0-9]*\).*/\1/p' "$sec" | head -1)
# testpmd's per-port forward statistics are the port's counters, which the
# processes share: both queues' frames (the per-queue split is checked above).
if [ "$srx" = $((2 * burst)) ] && [ "$stx" = $((2 * burst)) ]; then
	ok "secondary exited; the port it shares counted $((2 * burst)) each way"
else
	bad "secondary forward statistics RX '$srx' TX '$stx' (want $((2 * burst)))"; grep -v "^ *$" "$sec" | tail -15
fi
if kill -0 "$pripid" 2>/dev/null; then
	stop_proc "$pripid"
	prx=$(sed -n '/Forward statistics for port 0/,/---/s/.*RX-packets: *\([0-9]*\).*/\1/p' "$pri" | head -1)
	ptx=$(sed -n '/Forward statistics for port 0/,/---/s/.*TX-packets: *\([0-9]*\).*/\1/p' "$pri" | head -1)
	if [ "$prx" = $((2 * burst)) ] && [ "$ptx" = $((2 * burst)) ] && grep -q "Bye" "$pri" &&
		! grep -qiE "gvirtio: .*(broken|invalid)" "$pri"; then
		ok "primary went on after the secondary left and stopped cleanly ($prx each way on the port)"
	else
		bad "primary: RX '$prx' TX '$ptx' (want $((2 * burst)))"; tail -15 "$pri"
	fi
else
	bad "the primary died with the secondary"; tail -15 "$pri"
fi
echo "quit" >&7
stop_proc "$bepid"
tp_summary
