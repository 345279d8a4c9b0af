#!/usr/bin/env bash
# ovs.sh PLUGIN.so - Open vSwitch with DPDK (Debian's openvswitch-switch-dpdk)
# as gvirtio's vhost-user peer, the way OVS-DPDK users wire containers:
#   - the test runs its own ovsdb-server and ovs-vswitchd-dpdk in $work/run
#     (killed by PID at the end; the system's OVS, if any, is not touched),
#     a netdev bridge with two dpdkvhostuserclient ports, and flows
#     vhu0 <-> vhu1;
#   - starts: one testpmd with two gvirtio ports (DPDK's virtio_user names,
#     server=1) forwards (io, tx_first) through OVS, once per start, for
#     split and packed rings with mergeable buffers on and off, $starts
#     starts in all: every start must see both links up on both sides and
#     traffic both ways, and stop cleanly;
#   - restart under traffic: a txonly testpmd on vhu0 and an rxonly testpmd
#     on vhu1 run while ovs-vswitchd is killed (SIGKILL) and started again,
#     then stopped (SIGTERM) and started again: both gvirtio ports
#     reconnect by themselves and the receiver's count grows again.
# Prints "ovs: N passed, M failed". GV_OVS_LOG=FILE keeps OVS's log.
set -u

# shellcheck source=tests/testpmd_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/testpmd_lib.sh"
# shellcheck source=tests/ovs_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/ovs_lib.sh"
tp_begin ovs "${1:?usage: ovs.sh PLUGIN.so}" dpdk-testpmd ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ovs-appctl
starts=${GV_OVS_STARTS:-20}
run="$work/run"
ovs_prefix="gvovs$$"
cleanup() {
	ovs_end
	[ -z "${GV_OVS_LOG:-}" ] || cp "$run/vswitchd.log" "$GV_OVS_LOG"
	tp_end
	rm -rf "/var/run/dpdk/$ovs_prefix" "/var/run/dpdk/gvovsfe$$" "/var/run/dpdk/gvovst$$" "/var/run/dpdk/gvovsr$$"
	hugepages_release "$ovs_prefix"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# OVS's DPDK memory is reserved up front (dpdk-socket-mem) from hugepages;
# the testpmds run on memfd memory (--no-huge), so neither can starve the other.
hugepages_reserve 600 || { echo "ovs: cannot reserve 600 2 MB hugepages"; exit 1; }

if ! ovs_begin "$run" "$ovs_prefix" || ! ovs_start ||
	! ovs_bridge dpdkvhostuserclient "$work/vhu0.sock" "$work/vhu1.sock"; then
	bad "$ovs_err"
	exit 1
fi
ok "OVS $(ovs-vsctl --version | head -1 | awk '{print $NF}') with DPDK: bridge br0, dpdkvhostuserclient ports vhu0 and vhu1"

eal=(--no-huge -m 512 --no-pci --no-telemetry -d "$plugin" --log-level=pmd.net.gvirtio:info)
# last_port LOG PORT FIELD: the last "FIELD: n" of port PORT's statistics block
last_port() {
	awk -v p="$2" -v k="$3:" '/statistics for port/ { if (match($0, /port [0-9]+/)) cur = substr($0, RSTART + 5, RLENGTH - 5) } $0 ~ k && cur == p { for (i = 1; i < NF; i++) if ($i == k) v = $(i+1) } END { print v + 0 }' "$1"
}

# one_start N PACKED MRG: one testpmd start forwarding through OVS.
one_start() {
	local n=$1 packed=$2 mrg=$3 log="$work/fe$1.log" name
	name="start $n (packed_vq=$packed mrg_rxbuf=$mrg)"
	local dv="server=1,packed_vq=$packed,mrg_rxbuf=$mrg" layout=split
	[ "$packed" = 1 ] && layout=packed
	rm -f "$work/fe.cmd"
	mkfifo "$work/fe.cmd"
	exec 8<>"$work/fe.cmd"
	dpdk-testpmd --lcores='0@1,1@1' "${eal[@]}" --file-prefix="gvovsfe$$" \
		--vdev "virtio_user0,path=$work/vhu0.sock,$dv" --vdev "virtio_user1,path=$work/vhu1.sock,$dv" \
		-- -i --no-mlockall --total-num-mbufs=8192 --forward-mode=io <&8 >"$log" 2>&1 &
	local pid=$! why= rx0=0 rx1=0
	pids+=("$pid")
	if ! wait_for "$log" "testpmd> " 30; then
		why="testpmd did not start"
	elif ! grep -q "gvirtio: virtio_user0: " "$log" || ! grep -q "gvirtio: virtio_user1: " "$log"; then
		why="the ports are not gvirtio's"
	elif ! grep -q "virtio_user1: rx path .*($layout ring)" "$log" ||
		[ "$(grep -m1 "virtio_user1: negotiated" "$log" | grep -c "MRG_RXBUF")" != "$mrg" ]; then
		why="not the $layout ring with mrg_rxbuf=$mrg: $(grep -m1 -oE "virtio_user1: (rx path|negotiated) .*" "$log")"
	elif ! ovs_wait_links 30; then
		why="OVS did not report both vhost-user ports up"
	else
		local deadline=$((SECONDS + 20)) up=
		while [ $SECONDS -lt $deadline ]; do
			echo "show port info all" >&8
			sleep 0.2
			up=$(grep -oE "Link status: *(up|down)" "$log" | tail -2 | grep -c up)
			[ "$up" = 2 ] && break
		done
		if [ "$up" != 2 ]; then
			why="gvirtio links not both up"
		else
			echo "start tx_first" >&8
			deadline=$((SECONDS + 20))
			while [ $SECONDS -lt $deadline ]; do
				echo "show port stats all" >&8
				sleep 0.3
				rx0=$(last_port "$log" 0 RX-packets) rx1=$(last_port "$log" 1 RX-packets)
				[ "$rx0" -ge 10000 ] && [ "$rx1" -ge 10000 ] && break
			done
			[ "$rx0" -ge 10000 ] && [ "$rx1" -ge 10000 ] || why="traffic: port 0 RX $rx0, port 1 RX $rx1 (want 10000 each)"
			echo "stop" >&8
		fi
	fi
	echo "quit" >&8
	exec 8>&-
	stop_proc "$pid"
	if [ -z "$why" ] && ! grep -q "Bye" "$log"; then why="testpmd did not quit cleanly"; fi
	if [ -z "$why" ] && grep -qiE "gvirtio: .*(broken|invalid|failed)" "$log"; then
		why="gvirtio logged: $(grep -m1 -iE "gvirtio: .*(broken|invalid|failed)" "$log")"
	fi
	if [ -n "$why" ]; then
		bad "$name: $why"; grep -v "^ *$" "$log" | grep -v "testpmd> *$" | tail -15
		grep -iE "vhost|err" "$run/vswitchd.log" | tail -10
		return 1
	fi
	start_rx=$((start_rx + rx0 + rx1))
	return 0
}

good=0 start_rx=0
for n in $(seq 1 "$starts"); do
	case $((n % 4)) in
	1) p=0 m=1 ;; 2) p=0 m=0 ;; 3) p=1 m=1 ;; 0) p=1 m=0 ;;
	esac
	one_start "$n" "$p" "$m" && good=$((good + 1))
done
if [ "$good" = "$starts" ]; then
	ok "$starts starts in a row (split and packed, mergeable on and off), each with traffic both ways ($start_rx frames received in all)"
else
	bad "$((starts - good)) of $starts starts failed"
fi
if grep -qE "failed to allocate|\\|ERR\\|" "$run/vswitchd.log"; then
	bad "OVS logged a vhost error: $(grep -m1 -E "failed to allocate|\\|ERR\\|" "$run/vswitchd.log")"
fi

# ---- restart under traffic ------------------------------------------------
tlog="$work/tx.log" rlog="$work/rx.log"
dpdk-testpmd --lcores='0@1,1@1' "${eal[@]}" --file-prefix="gvovst$$" \
	--vdev "virtio_user0,path=$work/vhu0.sock,server=1" \
	-- --no-mlockall --total-num-mbufs=8192 --forward-mode=txonly --stats-period 1 </dev/null >"$tlog" 2>&1 &
tpid=$!
pids+=("$tpid")
dpdk-testpmd --lcores='0@1,1@1' "${eal[@]}" --file-prefix="gvovsr$$" \
	--vdev "virtio_user1,path=$work/vhu1.sock,server=1" \
	-- --no-mlockall --total-num-mbufs=8192 --forward-mode=rxonly --stats-period 1 </dev/null >"$rlog" 2>&1 &
rpid=$!
pids+=("$rpid")
# rx_grows SECONDS: the receiver's RX-packets grows by at least 10000 within SECONDS.
rx_now() { last_port "$rlog" 0 RX-packets; }
rx_grows() {
	local from deadline=$((SECONDS + $1))
	from=$(rx_now)
	while [ $SECONDS -lt $deadline ]; do
		[ "$(rx_now)" -ge $((from + 10000)) ] && return 0
		sleep 0.2
	done
	return 1
}
if wait_for "$rlog" "Port statistics" 30 && ovs_wait_links 30 && rx_grows 30; then
	ok "txonly on vhu0 reaches rxonly on vhu1 through OVS ($(rx_now) frames)"
else
	bad "no traffic from the txonly to the rxonly testpmd (RX $(rx_now))"; tail -n 10 "$tlog" "$rlog"
fi
for sig in KILL TERM; do
	ovs_stop "$sig"
	before=$(rx_now)
	if ! ovs_start; then
		bad "ovs-vswitchd-dpdk did not start again after SIG$sig: $ovs_err"; break
	fi
	if ovs_wait_links 30 && rx_grows 30; then
		ok "ovs-vswitchd stopped by SIG$sig and started again under traffic: gvirtio reconnected, RX $before -> $(rx_now)"
	else
		bad "after SIG$sig and a restart of ovs-vswitchd: RX $before -> $(rx_now)"
		tail -n 5 "$tlog" "$rlog"; grep -iE "vhost|err" "$run/vswitchd.log" | tail -10
	fi
done
for p in "$tpid" "$rpid"; do
	if kill -0 "$p" 2>/dev/null; then stop_proc "$p"; else bad "a testpmd died during the OVS restarts"; fi
done
if grep -q "Bye" "$tlog" && grep -q "Bye" "$rlog" && ! grep -qiE "gvirtio: .*(broken|invalid)" "$tlog" "$rlog"; then
	ok "both testpmds stopped cleanly after the restarts"
else
	bad "testpmds after the restarts: $(grep -hiE "gvirtio: .*(broken|invalid)" "$tlog" "$rlog" | head -2)"
	tail -n 5 "$tlog" "$rlog"
fi
ovs_stop TERM
tp_summary
