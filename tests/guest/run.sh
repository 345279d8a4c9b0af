#!/usr/bin/env bash
# shellcheck disable=SC2054 # QEMU options are comma lists
# tests/guest/run.sh [-b BUILD] [--list] all|core|CASE... - gvirtio's
# PCI transport (net_gvirtio) on real virtio-net-pci devices: QEMU guests
# (q35, TCG, -cpu max) booting Debian's own kernel and an initramfs made now
# from the current build. Two NICs wired to each other (two hubports of one
# hub, or the pvp cases' host switch), both bound to vfio-pci (or uio_pci_generic) through driver_override;
# dpdk-testpmd and tests/guest/gv_guest_app drive them with gvirtio (-d
# plugin; DPDK's own net_virtio is in the guest's plugin folder too and must
# lose). See docs/guest-tests.md.
#
#   core: modern packed legacy noiommu pvp pvp-packed pvp-mq pvp-ovs pvp-ovs-packed
#         (in scripts/test.sh)
#   all:  core + mrg-off viommu misconfig lsc rxintr packed-intr legacy-intr mq uio
#         pvp-mrg-off pvp-ovs-mrg-off pvp-ovs-mq pvp-ctrl mig mig-packed
#   bench: bench/pvp.sh's (GV_BENCH, GV_BENCH_SIZE, GV_ACCEL, GV_PIN, GV_LIMIT)
# pvp*: the NICs on vhost-user, served by a host testpmd with two net_vhost
# ports forwarding between them; each step once with gvirtio and once
# with DPDK's net_virtio (@dpdk) in the same guest. pvp-ovs*: the same
# behind OVS-DPDK (tests/ovs_lib.sh) instead (pvp-ovs-mq: pvp-mq's two
# queue pairs, OVS's log must show queue pair 1 enabled on both ports).
# mig*: live migration under traffic between two QEMUs, the NICs on
# vhost-user served by tests/guest/gv_mig_peer (tests/guest/mig.sh).
#
# Each case: one QEMU run with a hard timeout (killed), console markers
# waited on with deadlines, "guest: PASS|FAIL <case> (<s> s)" and, on
# failure, the reasons and the tail of the guest log. Ends with
# "guest: N passed, M failed"; exit status 0 only if all passed.
# Logs: <build>/guest-tests/<case>.log. Needs root, qemu-system-x86,
# busybox-static, dpdk-dev (scripts/setup.sh installs them).
#   -b BUILD  build folder with drivers/net/virtio/librte_net_gvirtio.so (build)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
build=$REPO/build
CORE=(modern packed legacy noiommu pvp pvp-packed pvp-mq pvp-ovs pvp-ovs-packed)
ALL=("${CORE[@]}" mrg-off viommu misconfig lsc rxintr packed-intr legacy-intr mq uio pvp-mrg-off
	pvp-ovs-mrg-off pvp-ovs-mq pvp-ctrl mig mig-packed)
cases=()
while [ $# -gt 0 ]; do
	case "$1" in
	-b) build=$2; shift ;;
	--list) echo "core: ${CORE[*]}"; echo "all: ${ALL[*]}"; exit 0 ;;
	-h | --help) sed -n '3,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	all) cases+=("${ALL[@]}") ;;
	core) cases+=("${CORE[@]}") ;;
	-*) echo "guest: unknown option $1" >&2; exit 2 ;;
	*) cases+=("$1") ;;
	esac
	shift
done
[ ${#cases[@]} -gt 0 ] || cases=("${CORE[@]}")
die() { echo "guest: error: $*" >&2; echo "guest: 0 passed, ${#cases[@]} failed"; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root"
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (scripts/setup.sh)"
plugin=$build/drivers/net/virtio/librte_net_gvirtio.so
[ -f "$plugin" ] || die "no $plugin: build first (bash scripts/build.sh build)"
logs=$build/guest-tests
mkdir -p "$logs"

# ------------------------------------------------ kernel, app, initramfs
t_prep=$(date +%s)
kdir=$(bash "$HERE/kernel.sh") || die "cannot prepare the guest kernel"
work=$(mktemp -d /var/tmp/gvirtio-guest.XXXXXX)
chmod 755 "$work"
qpids=() # the case's QEMUs, by instance: the PIDs of their timeout wrappers
# qemu_kill PID...: SIGKILL to each wrapper's process group (timeout makes
# one of its own, its QEMU in it). SIGKILL to the wrapper alone would leave
# its QEMU running, orphaned, after the run (seen: a destination QEMU still
# waiting for its migration 20 minutes after a failed mig case).
qemu_kill() {
	local p
	for p in "$@"; do
		kill -9 -- "-$p" 2>/dev/null || kill -9 "$p" 2>/dev/null
	done
	return 0
}
cleanup() {
	[ ${#qpids[@]} = 0 ] || qemu_kill "${qpids[@]}"
	peer_down
	[ -z "$hpid" ] || kill -9 "$hpid" 2>/dev/null
	tap_wire_down
	ovs_end
	[ -n "${GV_KEEP:-}" ] && echo "guest: work folder kept: $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# shellcheck disable=SC2046
gcc -O2 -std=gnu11 -Wall -Werror $(pkg-config --cflags libdpdk) "$HERE/gv_guest_app.c" \
	"$HERE/gv_guest_ctrl.c" -o "$work/gv_guest_app" $(pkg-config --libs libdpdk) >"$work/app.log" 2>&1 ||
	die "cannot build gv_guest_app: $(head -n5 "$work/app.log")"
# shellcheck disable=SC2046
gcc -O2 -std=gnu11 -Wall -Werror $(pkg-config --cflags libdpdk) "$HERE/gv_mig_peer.c" \
	-o "$work/gv_mig_peer" $(pkg-config --libs libdpdk) >"$work/peer-build.log" 2>&1 ||
	die "cannot build gv_mig_peer: $(head -n5 "$work/peer-build.log")"
bash "$HERE/initramfs.sh" "$kdir" "$plugin" "$work/gv_guest_app" "$work/initramfs.cpio" ||
	die "cannot build the initramfs"
echo "guest: kernel $(cat "$kdir/KVER"), initramfs $(($(stat -c %s "$work/initramfs.cpio") / 1048576)) MB, ready in $(($(date +%s) - t_prep)) s"

# ------------------------------------------------------------- the cases
# case -> NIC properties, bind, IOVA, steps, devargs, vIOMMU (0/1), checks
# (checks: "+PATTERN" must be in the log, "-PATTERN" must not; fixed strings)
MODERN="disable-legacy=on,disable-modern=off"
LEGACY="disable-legacy=off,disable-modern=on"
TRANS="disable-legacy=off,disable-modern=off"
setup_case() { # name
	nic=$MODERN bind=noiommu iova=pa steps=testpmd,payload devargs='' viommu=0 wire=hub checks=()
	hostmode=io
	mq=4 vq=1
	# PVP: the NICs on vhost-user, served by DPDK's net_vhost in a host
	# testpmd that forwards between them (io); the same steps once with
	# gvirtio and once with DPDK's net_virtio (@dpdk) in the same guest
	local pvp_steps=testpmd,payload,testpmd@dpdk,payload@dpdk ovs_steps=flowgen,payload,flowgen@dpdk,payload@dpdk
	case "$1" in
	modern) steps=testpmd,payload,vdpa,twoproc checks=("+virtio-pci modern interface" "+(split ring)") ;;
	packed)
		nic="$MODERN,packed=on" devargs=+packed_vq=1
		checks=("+virtio-pci modern interface" "+(packed ring)" "-(split ring)")
		;;
	legacy)
		nic=$LEGACY
		checks=("+virtio-pci legacy interface" "+(split ring)")
		;;
	noiommu)
		# and net_virtio's PCI devargs speed and vectorized, with their meaning
		nic=$TRANS devargs=+speed=25000+vectorized=1
		checks=("+vfio: enable_unsafe_noiommu_mode=Y" "+Selected IOVA mode 'PA'"
			"+virtio-pci modern interface" "-ACCESS_PLATFORM: the device goes"
			"+Link speed: 25 Gbps" "+rx path vectorized")
		;;
	mrg-off)
		nic="$MODERN,mrg_rxbuf=off"
		checks=("+virtio-pci modern interface" "-MRG_RXBUF")
		;;
	viommu)
		nic="$MODERN,iommu_platform=on" bind=vfio iova=auto viommu=1
		steps=testpmd,payload,rxintr,lsc
		checks=("+Selected IOVA mode 'VA'" "+ACCESS_PLATFORM: the device goes through" "-noiommu")
		;;
	misconfig)
		nic=$TRANS bind=vfio iova=auto viommu=1 steps=refuse,testpmd:pa
		checks=("+Selected IOVA mode 'VA'" "+port refused" "+iommu_platform=on) or run EAL with --iova-mode=pa")
		;;
	lsc) steps=lsc ;;
	rxintr) steps=rxintr ;;
	packed-intr)
		nic="$MODERN,packed=on" devargs=+packed_vq=1 steps=lsc,rxintr
		checks=("+(packed ring)" "-(split ring)")
		;;
	legacy-intr) nic=$LEGACY steps=lsc,rxintr checks=("+virtio-pci legacy interface") ;;
	mq)
		# 4 queue pairs need a back-end with 4 queues: two multi-queue
		# taps on a host bridge (the hub has one queue); rss=on is
		# QEMU's RSS (in software when eBPF cannot load)
		nic="$MODERN,mq=on,vectors=10,rss=on" steps=mq wire=tap
		checks=("+negotiated" "+MQ" "+rx per queue")
		;;
	uio)
		nic=$LEGACY bind=uio
		checks=("+virtio-pci legacy interface" "+bound to uio_pci_generic")
		;;
	pvp) wire=vhost steps=$pvp_steps checks=("+(split ring)" "+MRG_RXBUF") ;;
	pvp-packed)
		nic="$MODERN,packed=on" devargs=+packed_vq=1 wire=vhost steps=$pvp_steps
		checks=("+(packed ring)" "-(split ring)")
		;;
	pvp-mrg-off)
		nic="$MODERN,mrg_rxbuf=off" wire=vhost steps=$pvp_steps
		checks=("+(split ring)" "-MRG_RXBUF")
		;;
	# pvp-ovs*: the same with OVS-DPDK as the host switch (dpdkvhostuser
	# ports, QEMU the client, flows vhu0 <-> vhu1)
	pvp-ovs) wire=ovs steps=$ovs_steps checks=("+(split ring)" "+MRG_RXBUF") ;;
	pvp-ovs-packed)
		nic="$MODERN,packed=on" devargs=+packed_vq=1 wire=ovs steps=$ovs_steps
		checks=("+(packed ring)" "-(split ring)")
		;;
	pvp-ovs-mrg-off)
		nic="$MODERN,mrg_rxbuf=off" wire=ovs steps=$ovs_steps
		checks=("+(split ring)" "-MRG_RXBUF")
		;;
	mig)
		# live migration under traffic, back and forth (tests/guest/mig.sh)
		wire=mig steps=fwd,fwd@dpdk checks=("+(split ring)")
		;;
	mig-packed)
		nic="$MODERN,packed=on" devargs=+packed_vq=1 wire=mig steps=fwd,fwd@dpdk
		checks=("+(packed ring)" "-(split ring)")
		;;
	bench)
		# the in-guest benchmark (bench/pvp.sh): the host floods both NICs
		wire=vhost hostmode=flowgen steps=bench
		;;
	pvp-mq)
		# 2 queue pairs through QEMU's control queue (MQ_VQ_PAIRS_SET
		# becomes SET_VRING_ENABLE for the back-end)
		nic="$MODERN,mq=on,vectors=6" wire=vhost vq=2 mq=2 steps=mq,mq@dpdk
		checks=("+MQ" "+rx per queue")
		;;
	pvp-ovs-mq)
		# pvp-mq behind OVS-DPDK: its dpdkvhostuser ports take 2 queues
		# from the guest; the host checks OVS enabled queue 1 of each
		nic="$MODERN,mq=on,vectors=6" wire=ovs vq=2 mq=2 steps=mq,mq@dpdk
		checks=("+MQ" "+rx per queue")
		;;
	pvp-ctrl)
		# the control plane: QEMU's receive filter as the guest set it
		nic="$MODERN,mq=on,vectors=6" wire=vhost vq=2 mq=2 steps=payload,ctrl,payload@dpdk,ctrl@dpdk
		;;
	*) return 1 ;;
	esac
}

# The mq wire: two multi-queue taps on a bridge of their own (no address,
# IPv6 off, so the host sends nothing on it); removed after the case.
BR=gvb$$ TAP0=gvt$$a TAP1=gvt$$b
tap_wire_down() {
	ip link del "$TAP0" 2>/dev/null
	ip link del "$TAP1" 2>/dev/null
	ip link del "$BR" 2>/dev/null
	return 0
}
tap_wire_up() {
	local i
	tap_wire_down
	ip link add "$BR" type bridge || return 1
	for i in "$TAP0" "$TAP1"; do
		ip tuntap add dev "$i" mode tap multi_queue || return 1
	done
	for i in "$BR" "$TAP0" "$TAP1"; do
		[ ! -e "/proc/sys/net/ipv6/conf/$i/disable_ipv6" ] ||
			echo 1 >"/proc/sys/net/ipv6/conf/$i/disable_ipv6"
	done
	ip link set "$TAP0" master "$BR" && ip link set "$TAP1" master "$BR" &&
		ip link set "$BR" up && ip link set "$TAP0" up && ip link set "$TAP1" up
}

# The vhost wire: a host testpmd with two net_vhost ports (sockets
# $run/vh0.sock, vh1.sock; $vq queues each) forwarding between them (io;
# the bench case: flowgen, frames of GV_BENCH_SIZE bytes, on CPU 0).
# Its sockets must exist before QEMU connects. Memory: --no-huge (vhost
# maps the guest's memfd memory; its own mbufs need no hugepages).
hpid=
vhost_up() { # run
	local i mode=(--forward-mode=io) cpus=(-l 0,1)
	[ "$hostmode" != flowgen ] ||
		mode=(--forward-mode=flowgen --txpkts="${GV_BENCH_SIZE:-64}") cpus=(--lcores 0@0,1@0)
	rm -f "$1/vh0.sock" "$1/vh1.sock"
	dpdk-testpmd "${cpus[@]}" --no-huge -m 1024 --no-pci --no-telemetry --file-prefix="gvpvp$$" \
		--vdev "net_vhost0,iface=$1/vh0.sock,queues=$vq" --vdev "net_vhost1,iface=$1/vh1.sock,queues=$vq" \
		-- "${mode[@]}" --rxq="$vq" --txq="$vq" --nb-cores=1 --total-num-mbufs=16384 \
		--stats-period 5 </dev/null >"$1/host.log" 2>&1 &
	hpid=$!
	for i in $(seq 1 300); do
		[ -S "$1/vh0.sock" ] && [ -S "$1/vh1.sock" ] && return 0
		kill -0 "$hpid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}
# fwd_stats: testpmd's output on stdin -> RX-packets and TX-packets of
# each port's final forward statistics, one number a line (RX0 TX0 RX1 ...).
fwd_stats() {
	awk '/Forward statistics for port/ { p = 1; next }
		p && /RX-packets:/ { print $2 } p && /TX-packets:/ { print $2; p = 0 }' |
		grep -E '^[0-9]+$'
}
# vhost_down RUN: SIGINT (final statistics), SIGKILL after 10 s.
vhost_down() {
	local i
	[ -n "$hpid" ] || return 0
	kill -INT "$hpid" 2>/dev/null
	for i in $(seq 1 100); do kill -0 "$hpid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null
	hpid=
	rm -rf "/var/run/dpdk/gvpvp$$"
}

# The ovs wire: OVS-DPDK (tests/ovs_lib.sh) with two dpdkvhostuser ports
# (it serves $run/ovs/vhu0, vhu1) and flows between them. While the guest
# runs, ovs_poll keeps the largest packet counts of the two flows. Down:
# both flows forwarded traffic, OVS logged no error; its log kept.
# Multi-queue ($vq > 1): a port takes its queue count from the guest;
# OVS's default TX steering ("thread": one PMD thread, one TX queue of a
# port) would put all it sends to the guest on one of its RX queues, so
# the ports get tx-steering=hash (by 5-tuple over all enabled queues).
ovs_wire_up() { # run
	ovs_max=(0 0)
	hugepages_reserve 600 || { ovs_err="cannot reserve 600 2 MB hugepages"; return 1; }
	ovs_begin "$1/ovs" "gvovsg$$" && ovs_start && ovs_bridge dpdkvhostuser || return 1
	[ "$vq" = 1 ] || ovs_vsctl set Interface vhu0 other_config:tx-steering=hash \
		-- set Interface vhu1 other_config:tx-steering=hash ||
		{ ovs_err="cannot set tx-steering=hash on vhu0, vhu1"; return 1; }
}
# ovs_mq_checks LOG: each port's last queue pair ($vq - 1) was enabled
# both ways (guest TX = OVS rx_qid, guest RX = OVS tx_qid) once per guest
# DPDK run, OVS's PMD polled that RX queue, and the ports steer by hash.
ovs_mq_checks() {
	local p d q=$((vq - 1)) n runs
	runs=$(tr , '\n' <<<"$steps" | grep -c .)
	for p in vhu0 vhu1; do
		for d in rx tx; do
			n=$(grep -cF "( ${d}_qid $q ) of vhost device '$run/ovs/$p' changed to 'enabled'" "$1")
			[ "$n" -ge "$runs" ] ||
				why+=("OVS enabled $p's ${d}_qid $q $n times, not once per step ($runs)")
		done
		grep -qF "assigned port '$p' rx queue $q " "$1" ||
			why+=("OVS's PMD was never assigned $p's rx queue $q")
		grep -qF "$p: Tx packet steering mode has been set to 'hash'" "$1" ||
			why+=("OVS did not log tx-steering=hash for $p")
	done
}
ovs_poll() {
	local i=0 v
	for v in $(ovs_flow_packets); do
		[ "$v" -le "${ovs_max[i]}" ] || ovs_max[i]=$v
		i=$((i + 1))
	done
}
ovs_wire_down() { # run
	ovs_end
	[ "${ovs_max[0]}" -ge 1000 ] && [ "${ovs_max[1]}" -ge 1000 ] ||
		why+=("OVS's flows forwarded too little (vhu0 -> vhu1, vhu1 -> vhu0: ${ovs_max[*]})")
	grep -q '|ERR|' "$1/ovs/vswitchd.log" 2>/dev/null &&
		why+=("OVS logged an error: $(grep -m1 '|ERR|' "$1/ovs/vswitchd.log")")
	[ "$vq" = 1 ] || ovs_mq_checks "$1/ovs/vswitchd.log"
	cp "$1/ovs/vswitchd.log" "$logs/$name.ovs.log" 2>/dev/null
	rm -rf "/var/run/dpdk/gvovsg$$"
	hugepages_release "gvovsg$$"
}

# shellcheck source=tests/testpmd_lib.sh
. "$REPO/tests/testpmd_lib.sh"
# shellcheck source=tests/ovs_lib.sh
. "$REPO/tests/ovs_lib.sh"
# shellcheck source=tests/guest/mig.sh
. "$HERE/mig.sh"

monitor() { # socket command: one HMP command through QEMU's monitor
	python3 - "$1" "$2" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
def read_prompt():
    buf = b""
    end = time.time() + 10
    while b"(qemu)" not in buf and time.time() < end:
        buf += s.recv(4096)
    return buf
read_prompt()
s.sendall(sys.argv[2].encode() + b"\n")
out = read_prompt().decode(errors="replace")
print(out.replace("(qemu)", "").strip())
PY
}

# rx_filter QMP-SOCKET: QEMU's receive filter of nic0 (QMP query-rx-filter), JSON.
rx_filter() {
	python3 - "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
f = s.makefile("rw")
def cmd(c, **a):
    f.write(json.dumps(dict(execute=c, arguments=a) if a else dict(execute=c)) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
json.loads(f.readline())  # the greeting
cmd("qmp_capabilities")
print(json.dumps(cmd("query-rx-filter", name="nic0")))
PY
}
# rx_filter_ok FILE: the ctrl step's settings, as QEMU applied them.
rx_filter_ok() {
	python3 - "$1" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["return"][0]
ok = (f["promiscuous"] is False and f["multicast"] == "all" and
      "02:00:00:00:00:aa" in f["unicast-table"] and 100 in f["vlan-table"])
sys.exit(0 if ok else 1)
PY
}
# serial_line SOCKET: one line to the guest's second serial port.
serial_line() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1]); s.sendall(b"go\n"); s.close()' "$1"
}

# qemu_start I [incoming]: QEMU instance I of the case (console
# $run/con$I.log, monitor $run/mon$I.sock); for the vhost and mig wires
# its NICs on socket pair I % 2 (vh0/vh1 or vh2/vh3); "incoming": it waits
# for a migration on $run/mig$I.sock. Its pid in qpids[I].
qemu_start() {
	local i=$1 pair=$(($1 % 2)) net=() inc=()
	case "$wire" in
	tap)
		net=(-netdev "tap,id=p0,ifname=$TAP0,script=no,downscript=no,queues=4,vhost=off"
			-netdev "tap,id=p1,ifname=$TAP1,script=no,downscript=no,queues=4,vhost=off") ;;
	ovs)
		net=(-chardev "socket,id=c0,path=$run/ovs/vhu0" -netdev "vhost-user,id=p0,chardev=c0,queues=$vq"
			-chardev "socket,id=c1,path=$run/ovs/vhu1" -netdev "vhost-user,id=p1,chardev=c1,queues=$vq") ;;
	vhost | mig)
		net=(-chardev "socket,id=c0,path=$run/vh$((2 * pair)).sock" -netdev "vhost-user,id=p0,chardev=c0,queues=$vq"
			-chardev "socket,id=c1,path=$run/vh$((2 * pair + 1)).sock" -netdev "vhost-user,id=p1,chardev=c1,queues=$vq") ;;
	*) net=(-netdev hubport,id=p0,hubid=0 -netdev hubport,id=p1,hubid=0) ;;
	esac
	[ "${2:-}" != incoming ] || inc=(-incoming "unix:$run/mig$i.sock")
	# the ctrl step: QMP, and a second serial port for the host's answer
	[[ ",$steps," != *,ctrl[,@]* ]] ||
		inc+=(-qmp "unix:$run/qmp$i.sock,server=on,wait=off"
			-chardev "socket,id=ctl,path=$run/ctl$i.sock,server=on,wait=off" -device isa-serial,chardev=ctl)
	: >"$run/con$i.log"
	echo "# qemu-system-x86_64 ${qargs[*]} ${net[*]} ${inc[*]}" >>"$run/cmd"
	timeout -s KILL "$limit" "${pin[@]}" qemu-system-x86_64 "${qargs[@]}" "${net[@]}" "${inc[@]}" \
		-chardev "file,id=con,path=$run/con$i.log" -serial chardev:con \
		-monitor "unix:$run/mon$i.sock,server=on,wait=off" </dev/null >"$run/qemu$i.out" 2>&1 &
	qpids[i]=$!
}

run_case() { # name -> sets why
	local name=$1
	local run=$work/$name log=$logs/$name.log limit=${GV_LIMIT:-900} t0 qrc c pat n con inst=0 win=-1 oops
	qpids=()
	rm -rf "$run"
	mkdir -p "$run"
	why=()
	setup_case "$name" || { why=("unknown case"); return 1; }
	local append="console=ttyS0 panic=-1 quiet loglevel=3 mitigations=off tsc=reliable"
	append="$append gv.bind=$bind gv.iova=$iova gv.steps=$steps gv.mq=$mq"
	[ -z "$devargs" ] || append="$append gv.devargs=$devargs"
	[ -z "${GV_BENCH:-}" ] || append="$append gv.bench=$GV_BENCH"
	local machine=q35 pre=() accel=(-accel tcg -cpu max)
	# GV_ACCEL=kvm (bench/pvp.sh, when KVM is fast enough); GV_PIN=1: QEMU on CPU 1
	[ "${GV_ACCEL:-tcg}" != kvm ] || accel=(-accel kvm -cpu host,-arch-capabilities)
	pin=()
	[ "${GV_PIN:-0}" != 1 ] || pin=(taskset -c 1)
	if [ "$viommu" = 1 ]; then
		machine="q35,kernel-irqchip=split"
		pre=(-device intel-iommu,intremap=on,caching-mode=on)
		append="$append intel_iommu=on"
	fi
	# vhost-user needs the guest's memory shared with the back-end
	[ "$wire" != vhost ] && [ "$wire" != mig ] && [ "$wire" != ovs ] ||
		pre+=(-object memory-backend-memfd,id=mem,size=2048M,share=on -numa node,memdev=mem)
	qargs=(-nodefaults -no-user-config -display none -no-reboot
		-machine "$machine" "${accel[@]}" -smp 2 -m 2048 "${pre[@]}"
		-kernel "$kdir/vmlinuz" -initrd "$work/initramfs.cpio" -append "$append"
		-device "virtio-net-pci,id=nic0,netdev=p0,mac=52:54:00:00:00:10,addr=0x10,$nic"
		-device "virtio-net-pci,id=nic1,netdev=p1,mac=52:54:00:00:00:11,addr=0x11,$nic")
	if [ "$wire" = tap ]; then
		tap_wire_up || { why=("cannot set up the tap wire (bridge $BR)"); return 1; }
	elif [ "$wire" = vhost ]; then
		vhost_up "$run" || { why=("the host testpmd (net_vhost) did not create its sockets: $(tail -n3 "$run/host.log")"); vhost_down "$run"; return 1; }
	elif [ "$wire" = ovs ]; then
		ovs_wire_up "$run" || { why=("OVS-DPDK: $ovs_err"); ovs_wire_down "$run"; return 1; }
	elif [ "$wire" = mig ]; then
		printf '| window | driver | migration | QEMU total time ms | QEMU downtime ms | traffic gap ms (each way) | frames lost (each way) | RARPs (NIC0 / NIC1) |\n|---|---|---|---|---|---|---|---|\n' >"$logs/$name.migration.md"
		peer_up || { why=("the migration peer did not start: $(grep -v VHOST_CONFIG "$run/peer.log" | tail -n3)"); peer_down; return 1; }
	fi
	: >"$run/cmd"
	qemu_start 0
	# Answer the guest's requests (link flaps, migrations) until it is
	# done. Its console is the file of the QEMU that runs it (inst).
	local down=0 up=0 migs=0 filters=0
	while con=$run/con$inst.log && kill -0 "${qpids[$inst]}" 2>/dev/null; do
		grep -q '^GV-RESULT' "$con" && break
		[ "$wire" != ovs ] || ovs_poll
		if [ $down = 0 ] && grep -q '^GVAPP-WAIT link-down' "$con"; then
			monitor "$run/mon$inst.sock" "set_link nic0 off" >>"$run/monitor.log" 2>&1 ||
				why+=("monitor: set_link off failed")
			down=1
		fi
		if [ $up = 0 ] && grep -q '^GVAPP-WAIT link-up' "$con"; then
			monitor "$run/mon$inst.sock" "set_link nic0 on" >>"$run/monitor.log" 2>&1 ||
				why+=("monitor: set_link on failed")
			up=1
		fi
		if [ "$(grep -c '^GVAPP-WAIT rx-filter' "$con")" -gt "$filters" ]; then
			filters=$((filters + 1))
			rx_filter "$run/qmp$inst.sock" >"$run/rxfilter$filters.json" 2>&1 || why+=("QMP query-rx-filter failed")
			serial_line "$run/ctl$inst.sock" || why+=("cannot answer on the guest's second serial port")
		fi
		if [ "$wire" = mig ] && [ "$(cat "$run"/con*.log | grep -c '^GVAPP-WAIT migrate')" -gt "$migs" ]; then
			migs=$((migs + 1))
			mig_rounds "$(grep '^GVAPP-WAIT migrate' "$con" | tail -n1 | cut -d' ' -f3 | tr -d '\r')" || break
		fi
		sleep 0.5
	done
	# after GV-RESULT the guest reboots, which ends QEMU (-no-reboot)
	local end=$((SECONDS + 60))
	while kill -0 "${qpids[$inst]}" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.2; done
	qemu_kill "${qpids[@]}"
	qrc=0
	wait "${qpids[$inst]}" || qrc=$?
	: >"$log"
	for c in "${!qpids[@]}"; do
		wait "${qpids[$c]}" 2>/dev/null
		cat "$run/con$c.log" >>"$log"
		cat "$run/qemu$c.out" >>"$run/qemu.out"
	done
	qpids=()
	[ "$wire" != tap ] || tap_wire_down
	[ "$wire" != mig ] || peer_down
	if [ "$wire" = vhost ]; then
		vhost_down "$run"
		mapfile -t c < <(fwd_stats <"$run/host.log")
		grep -q "Bye" "$run/host.log" || why+=("the host testpmd did not stop cleanly: $(tail -n3 "$run/host.log" | tr '\n' ' ')")
		[ ${#c[@]} -ge 4 ] && [ "${c[0]}" -ge 1000 ] && [ "${c[2]}" -ge 1000 ] ||
			why+=("the host's net_vhost ports received too little (rx/tx per port: ${c[*]:-none})")
		cp "$run/host.log" "$logs/$name.host.log"
	fi
	[ "$wire" != ovs ] || ovs_wire_down "$run"
	# The guest's testpmd writes its prompt and command echoes unbuffered,
	# its output block-buffered: a "testpmd> quit" can land inside a line
	# of that output. Such a line's start is joined to the line after it.
	tr -d '\r' <"$log" | awk '{ $0 = held $0; held = "" }
		/.testpmd> / { held = substr($0, 1, index($0, "testpmd> ") - 1); next }
		{ print }' >"$log.tmp" && mv "$log.tmp" "$log"
	[ "$qrc" = 0 ] || why+=("qemu exit status $qrc$([ "$qrc" = 137 ] && echo " (killed: over ${limit} s)"): $(tail -n2 "$run/qemu.out" | tr '\n' ' ')")

	grep -q '^GV-RESULT PASS' "$log" || why+=("the guest did not report GV-RESULT PASS")
	oops=$(grep -m1 -E '^\[ *[0-9]+\.[0-9]+\] (BUG|kernel BUG|Oops|general protection|Kernel panic)' "$log")
	[ -z "$oops" ] || why+=("the guest's kernel crashed: $oops")
	grep '^GV-STEP .* FAIL' "$log" | sed 's/^GV-STEP /step /' | while read -r l; do echo "$l"; done >"$run/fails"
	while read -r l; do why+=("$l"); done <"$run/fails"
	for s in ${steps//,/ }; do
		grep -q "^GV-STEP ${s%%:*} PASS" "$log" || why+=("step ${s%%:*} did not pass")
	done
	# gvirtio, not DPDK's net_virtio, drives both NICs (a NIC gvirtio
	# refuses is not handed to net_virtio either)
	n=$(grep -c 'Probe PCI driver: net_gvirtio (1af4:' "$log")
	[ "$n" -ge 2 ] || why+=("net_gvirtio probed $n NICs, not 2 per DPDK run")
	grep -v '^dpdk| ' "$log" | grep -q 'Probe PCI driver: net_virtio ' && why+=("DPDK's net_virtio probed a NIC")
	# the @dpdk steps: DPDK's net_virtio drove both NICs
	if [[ ",$steps," == *@dpdk,* ]]; then
		n=$(grep -c '^dpdk| .*Probe PCI driver: net_virtio (1af4:' "$log")
		[ "$n" -ge 2 ] || why+=("DPDK's net_virtio probed $n NICs in the @dpdk steps, not 2 per run")
		grep -q '^dpdk| .*Probe PCI driver: net_gvirtio' "$log" && why+=("gvirtio probed a NIC in an @dpdk step")
	fi
	if [[ ",$steps," == *,@(testpmd|flowgen)[,:]* ]]; then
		n=$(grep -c '^Driver name: *net_gvirtio$' "$log")
		[ "$n" = 2 ] || why+=("testpmd shows $n ports with driver net_gvirtio, not 2")
	fi
	if [[ ",$steps," == *,@(testpmd|flowgen)* ]]; then
		# testpmd's final forward statistics: both ports moved traffic
		mapfile -t c < <(grep -v '^dpdk| ' "$log" | fwd_stats)
		if [ ${#c[@]} -lt 4 ] || [ "${c[0]}" -lt 1000 ] || [ "${c[1]}" -lt 1000 ] ||
			[ "${c[2]}" -lt 1000 ] || [ "${c[3]}" -lt 1000 ]; then
			why+=("testpmd forward statistics too low (rx/tx per port: ${c[*]:-none})")
		fi
	fi
	[ "$wire" != mig ] || mig_checks
	if [[ ",$steps," == *,ctrl[,@]* ]]; then
		n=$(grep -c '^GVAPP-WAIT rx-filter' "$log")
		[ "$n" = "$(tr , '\n' <<<"$steps" | grep -c '^ctrl')" ] || why+=("$n ctrl steps reached the rx-filter check")
		for c in "$run"/rxfilter*.json; do
			[ -e "$c" ] || continue
			rx_filter_ok "$c" || why+=("QEMU's rx filter after a ctrl step: $(tr -d '\n' <"$c" | cut -c1-300)")
		done
	fi
	for c in "${checks[@]}"; do
		pat=${c:1}
		if [ "${c:0:1}" = + ]; then
			grep -qF -- "$pat" "$log" || why+=("log lacks \"$pat\"")
		else
			grep -qF -- "$pat" "$log" && why+=("log has \"$pat\"")
		fi
	done
	[ ${#why[@]} = 0 ]
}

passed=0 failed=0 t_all=$(date +%s)
for c in "${cases[@]}"; do
	t0=$(date +%s)
	run_case "$c"
	ok=$?
	dt=$(($(date +%s) - t0))
	if [ "$ok" = 0 ]; then
		passed=$((passed + 1))
		detail=$(grep '^GV-STEP .* PASS' "$logs/$c.log" | sed 's/^GV-STEP //' | paste -sd';' -)
		echo "guest: PASS $c (${dt} s): $detail"
	else
		failed=$((failed + 1))
		echo "guest: FAIL $c (${dt} s)"
		for w in "${why[@]}"; do echo "guest:   $w"; done
		echo "guest: --- tail of $logs/$c.log"
		tail -n 40 "$logs/$c.log" | sed 's/^/guest: | /'
	fi
done
echo "guest: total $(($(date +%s) - t_all)) s for ${#cases[@]} case(s)"
echo "guest: $passed passed, $failed failed"
[ "$failed" = 0 ]
