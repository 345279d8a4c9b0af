#!/usr/bin/env bash
# scripts/vm/testpmd-smoke.sh [OPTIONS] [KIND...] - for each NIC KIND
# (default: modern modern-packed legacy), boot the guest with
# scripts/vm/run-in-guest.sh and run dpdk-testpmd in io forwarding on the two
# back-to-back virtio-net-pci NICs (bound to vfio-pci), "start tx_first",
# forward for SECS seconds, "stop". A KIND passes when both ports received
# packets (frames crossed the link both ways) and the ports' driver is the
# expected one. Prints one row per KIND and "vm-smoke: N passed, M failed";
# exits non-zero if any failed. Full logs: build/vm-smoke/<kind>.log.
#
# Options:
#   -s SECS          forwarding time per KIND (default 10)
#   --driver NAME    expected "Driver name" of both ports (default net_virtio,
#                    DPDK's own PMD as installed in the guest)
#   --eal "ARGS"     extra EAL args, e.g. "-d /root/plugin/librte_net_gvirtio.so"
#   --run-opts "ARGS" extra run-in-guest.sh options, e.g. "--no-dpdk-virtio"
#   --testpmd "ARGS" extra testpmd (application) args, e.g. "--txd=512"
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
secs=10 driver=net_virtio eal='' run_opts='' tp_args=''
kinds=()
while [ $# -gt 0 ]; do
	case "$1" in
	-s) secs=$2; shift ;;
	--driver) driver=$2; shift ;;
	--eal) eal=$2; shift ;;
	--run-opts) run_opts=$2; shift ;;
	--testpmd) tp_args=$2; shift ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	-*) echo "testpmd-smoke: unknown option $1" >&2; exit 2 ;;
	*) kinds+=("$1") ;;
	esac
	shift
done
[ ${#kinds[@]} -gt 0 ] || kinds=(modern modern-packed legacy)
logs=$REPO/build/vm-smoke
mkdir -p "$logs"

# Runs in the guest: testpmd -i fed through a FIFO, so the forwarding time
# starts when testpmd is ready (EAL init is slow under TCG), not before.
# shellcheck disable=SC2016
guest='
secs=$1 eal=$2 tp=$3
out=/tmp/testpmd.out
mkfifo /tmp/in
# shellcheck disable=SC2086
dpdk-testpmd -l 0,1 -n 1 $GV_EAL $eal -a "$GV_NIC0" -a "$GV_NIC1" -- -i \
	--total-num-mbufs=8192 $tp </tmp/in >"$out" 2>&1 &
pid=$!
exec 3>/tmp/in
t0=$(date +%s)
until grep -q "testpmd> " "$out"; do
	kill -0 $pid 2>/dev/null || break
	[ $(($(date +%s) - t0)) -lt 180 ] || break
	sleep 0.5
done
echo "guest: testpmd ready after $(($(date +%s) - t0))s"
echo "show port info all" >&3
echo "start tx_first" >&3
sleep "$secs"
echo "stop" >&3
sleep 1
echo "quit" >&3
exec 3>&-
wait $pid
rc=$?
cat "$out"
echo "guest: testpmd exit status $rc"
exit $rc
'

passed=0 failed=0
printf '%-14s %-6s %-12s %12s %12s %10s %6s\n' kind result driver \
	"rx port0" "rx port1" "pps/port" "vm s" | tee "$logs/summary.txt"
for kind in "${kinds[@]}"; do
	log=$logs/$kind.log
	t0=$(date +%s)
	# shellcheck disable=SC2086
	bash "$HERE/run-in-guest.sh" --nics "$kind" $run_opts --timeout $((secs + 300)) \
		--log "$logs/$kind.console.log" -- bash -c "$guest" guest "$secs" "$eal" "$tp_args" \
		>"$log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	# "Forward statistics for port N" blocks, RX-packets: on the next line.
	mapfile -t rx < <(awk '/Forward statistics for port/ { p = 1; next }
		p && /RX-packets:/ { print $2; p = 0 }' "$log")
	drv=$(awk -F': *' '/^Driver name/ { print $2; exit }' "$log")
	r0=${rx[0]:-0} r1=${rx[1]:-0}
	if [ "$rc" = 0 ] && [ "$r0" -gt 0 ] && [ "$r1" -gt 0 ] && [ "$drv" = "$driver" ]; then
		res=ok passed=$((passed + 1))
	else
		res=FAIL failed=$((failed + 1))
	fi
	printf '%-14s %-6s %-12s %12s %12s %10s %6s\n' "$kind" "$res" "${drv:--}" \
		"$r0" "$r1" "$(((r0 + r1) / 2 / secs))" "$dt" | tee -a "$logs/summary.txt"
	[ "$res" = ok ] || { echo "--- $kind (exit $rc): tail of $log"; tail -n 15 "$log"; }
done
echo "vm-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
