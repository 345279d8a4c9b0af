#!/usr/bin/env bash
# testpmd_fwd.sh PLUGIN.so - unmodified dpdk-testpmd loads the gvirtio
# plugin with -d and forwards traffic with DPDK's vhost-user backend
# (another dpdk-testpmd with net_vhost), for both ring layouts, with and
# without mergeable buffers, on every forced datapath (vectorized=0), on
# the vector RX and TX paths (vectorized=1), and with the RX header's line
# against the default (rx_hdr_line=).
#
# Each case is a loopback the way DPDK's virtio-user test plans run it:
# both sides in io forwarding, the gvirtio side starts with --tx-first
# so a burst of packets circulates, and both directions of the gvirtio
# port are exercised. A case passes when, after both stop:
#   - the gvirtio port received and sent packets, with no errors;
#   - the backend received and sent packets;
#   - testpmd logged the expected rx/tx paths from the PMD.
# Prints "testpmd_fwd: N passed, M failed" and exits non-zero on failure.
set -u

secs=${GV_FWD_SECS:-2}
# shellcheck source=tests/testpmd_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/testpmd_lib.sh"
tp_begin testpmd_fwd "${1:?usage: testpmd_fwd.sh PLUGIN.so}" dpdk-testpmd
cleanup() {
	tp_end
	rm -rf /var/run/dpdk/gvbe$$ /var/run/dpdk/gvfe$$
}
trap cleanup EXIT

eal_common=(--no-huge -m 512 --no-pci --no-telemetry)
tp_common=(--no-mlockall --total-num-mbufs=8192 --stats-period 1 --forward-mode=io)

# Sum of the last "NAME: <n>" value in the final statistics block.
final_stat() { # log name
	awk -v k="$2:" '/Accumulated forward statistics/ {f=1} f { for (i = 1; i < NF; i++) if ($i == k) v = $(i+1) } END { print v + 0 }' "$1"
}

run_case() { # layout mrg datapath exp_rx exp_tx [vectorized [rx_hdr_line]]
	local layout=$1 mrg=$2 dp=$3 exp_rx=$4 exp_tx=$5 vec=${6:-0} hdr=${7:-}
	local name="$layout mrg=$mrg datapath=$dp vectorized=$vec${hdr:+ rx_hdr_line=$hdr}"
	local sock="$work/s.sock" be="$work/be.log" fe="$work/fe.log"
	local packed=0
	[ "$layout" = packed ] && packed=1
	rm -f "$sock" "$be" "$fe"

	dpdk-testpmd --lcores='0@0,1@0' "${eal_common[@]}" --file-prefix="gvbe$$" \
		--vdev "net_vhost0,iface=$sock,client=0" -- "${tp_common[@]}" </dev/null >"$be" 2>&1 &
	local bepid=$!
	pids+=("$bepid")
	if ! wait_for "$be" "binding succeeded|socket created" 20; then
		echo "FAIL $name: backend did not start"; sed -n '1,30p' "$be"
		stop_proc "$bepid"; fail=$((fail + 1)); return
	fi
	dpdk-testpmd --lcores='0@1,1@1' "${eal_common[@]}" --file-prefix="gvfe$$" \
		-d "$plugin" --log-level=pmd.net.gvirtio:info \
		--vdev "net_gvirtio_user0,path=$sock,packed_vq=$packed,mrg_rxbuf=$mrg,datapath=$dp,vectorized=$vec${hdr:+,rx_hdr_line=$hdr}" \
		-- "${tp_common[@]}" --tx-first </dev/null >"$fe" 2>&1 &
	local fepid=$!
	pids+=("$fepid")
	local ok=1
	if ! wait_for "$fe" "Port statistics" 30; then
		echo "FAIL $name: gvirtio testpmd did not start forwarding"; ok=0
	else
		local t_end=$((SECONDS + secs))
		while [ $SECONDS -lt $t_end ]; do sleep 0.2; done
	fi
	stop_proc "$fepid"
	stop_proc "$bepid"

	local rx tx rxe be_rx be_tx
	rx=$(final_stat "$fe" RX-packets)
	tx=$(final_stat "$fe" TX-packets)
	rxe=$(grep -m1 -oE "RX-errors: *[0-9]+" "$fe" | grep -oE "[0-9]+$" || echo 0)
	be_rx=$(final_stat "$be" RX-packets)
	be_tx=$(final_stat "$be" TX-packets)
	if [ "$ok" = 1 ] && ! grep -q "rx path $exp_rx, tx path $exp_tx ($layout ring)" "$fe"; then
		echo "FAIL $name: expected rx path $exp_rx, tx path $exp_tx ($layout); PMD said: $(grep -m1 -oE 'rx path .*' "$fe")"
		ok=0
	fi
	if [ "$ok" = 1 ] && [ -n "$hdr" ] && ! grep -q "(rx_hdr_line=$hdr)" "$fe"; then
		echo "FAIL $name: the PMD did not log rx_hdr_line=$hdr: $(grep -m1 -oE 'rx header .*' "$fe")"
		ok=0
	fi
	if [ "$ok" = 1 ] && { [ "$rx" -lt 1000 ] || [ "$tx" -lt 1000 ] || [ "$be_rx" -lt 1000 ] || [ "$be_tx" -lt 1000 ]; }; then
		echo "FAIL $name: too little traffic: gvirtio rx=$rx tx=$tx, backend rx=$be_rx tx=$be_tx"
		ok=0
	fi
	if [ "$ok" = 1 ] && grep -qiE "gvirtio: .*(stopped|invalid|broken)" "$fe"; then
		echo "FAIL $name: the PMD reported a broken queue"; grep -iE "gvirtio:" "$fe" | head -5
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		echo "ok   $name: rx $exp_rx tx $exp_tx; gvirtio rx=$rx tx=$tx, backend rx=$be_rx tx=$be_tx"
		pass=$((pass + 1))
	else
		echo "---- gvirtio log ($name)"; grep -vE '^\s*$|\[2J' "$fe" | tail -25
		echo "---- backend log"; grep -vE '^\s*$|\[2J' "$be" | tail -10
		fail=$((fail + 1))
	fi
	[ "${rxe:-0}" = 0 ] || echo "note $name: RX-errors $rxe"
}

for layout in split packed; do
	run_case "$layout" 1 simple mergeable simple
	run_case "$layout" 1 inorder mergeable inorder
	run_case "$layout" 1 full mergeable full
	run_case "$layout" 0 simple simple simple
	run_case "$layout" 0 inorder simple inorder
	run_case "$layout" 0 full full full
done
# vectorized=1: the vector RX path, the widest
# this CPU has (none: the scalar simple path), on both layouts; on
# in-order the vector TX path (SSE4.2; none: the scalar in-order path).
vec_rx=simple
vec_tx=inorder
grep -qw sse4_2 /proc/cpuinfo && vec_rx="vectorized (SSE)" && vec_tx="vectorized (SSE)"
grep -qw avx2 /proc/cpuinfo && vec_rx="vectorized (AVX2)"
run_case split 0 inorder "$vec_rx" "$vec_tx" 1
run_case split 0 simple "$vec_rx" simple 1
run_case packed 0 inorder "$vec_rx" "$vec_tx" 1
run_case packed 0 simple "$vec_rx" simple 1
# With mergeable buffers too (frames fit one mbuf; no vector path: mergeable).
vec_rx_mrg=mergeable
[ "$vec_rx" = simple ] || vec_rx_mrg=$vec_rx
run_case split 1 inorder "$vec_rx_mrg" "$vec_tx" 1
run_case packed 1 inorder "$vec_rx_mrg" "$vec_tx" 1
# The RX header's line against the default (rx_hdr_line=).
run_case split 1 simple mergeable simple 0 own
run_case packed 1 inorder "$vec_rx_mrg" "$vec_tx" 1 own
run_case packed 0 inorder simple inorder 0 shared

tp_summary
