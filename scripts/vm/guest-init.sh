#!/bin/bash
# scripts/vm/guest-init.sh - runs INSIDE the guest as PID 1 (exec'd by the
# image's /sbin/gv-init from the run's 9p share, mounted at /gv). Written to
# the share by scripts/vm/run-in-guest.sh for each run; see docs/vm.md.
#
# Sets up the guest (tmpfs, hugepages, /host and /out shares), loads the
# user-space I/O driver (vfio-pci behind QEMU's vIOMMU, or uio_pci_generic),
# binds the NICs under test (fixed PCI addresses, checked to be virtio-net
# 1af4:1000/1041) to it, then runs /gv/cmd.sh as root with a timeout:
# stdout -> /gv/stdout, stderr -> /gv/stderr, exit status -> /gv/rc.
# Then reboots, which (with QEMU's -no-reboot) ends the VM.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LC_ALL=C
# shellcheck source=/dev/null
. /gv/config # GV_BIND GV_NIC_BDFS GV_MACS GV_HUGEPAGES GV_TIMEOUT GV_VERBOSE ...

T0=$(cut -d' ' -f1 /proc/uptime)
say() { echo "gv-guest: [$(cut -d' ' -f1 /proc/uptime)s] $*" >/dev/console; }
finish() { # rc
	echo "$1" >/gv/rc.tmp && mv /gv/rc.tmp /gv/rc
	sync
	say "exit status $1; powering off"
	echo b >/proc/sysrq-trigger # QEMU runs with -no-reboot: this ends it
	sleep 10
}
setup_fail() {
	say "setup failed: $*"
	echo "gv-guest: setup failed: $*" >>/gv/stderr
	finish 125
}

say "init started (kernel up at ${T0}s)"
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p /dev/pts /dev/shm /dev/hugepages
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages
ln -sf /proc/self/fd /dev/fd 2>/dev/null
hostname gvirtio-guest
ip link set lo up 2>/dev/null
echo 1 >/proc/sys/kernel/sysrq

if [ "${GV_SHARE:-0}" = 1 ]; then
	mkdir -p /host
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro host /host ||
		setup_fail "cannot mount the host share at /host"
fi
if [ "${GV_OUT:-0}" = 1 ]; then
	mkdir -p /out
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out ||
		setup_fail "cannot mount the output share at /out"
fi

# Hugepages (2 MB); DPDK finds them at /dev/hugepages.
if [ "${GV_HUGEPAGES:-0}" -gt 0 ]; then
	echo "$GV_HUGEPAGES" >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	got=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)
	[ "$got" -ge "$GV_HUGEPAGES" ] || say "warning: only $got of $GV_HUGEPAGES hugepages"
fi

# Plugins given with --plugin: EAL refuses -d from world-writable dirs (and
# 9p shows host modes), so they are copied to /root/plugin (mode 755).
mkdir -p /root/plugin && chmod 755 /root /root/plugin
if [ -d /gv/plugin ]; then
	cp /gv/plugin/* /root/plugin/ 2>/dev/null && chmod 644 /root/plugin/*
fi
# --no-dpdk-virtio: hide the installed net_virtio PMD from EAL's plugin dir.
if [ "${GV_HIDE_VIRTIO:-0}" = 1 ]; then
	rm -f /usr/lib/x86_64-linux-gnu/dpdk/pmds-*/librte_net_virtio.so*
fi

# User-space I/O driver.
case "$GV_BIND" in
vfio)
	modprobe vfio_iommu_type1 allow_unsafe_interrupts=1 &&
		modprobe vfio-pci || setup_fail "modprobe vfio-pci failed"
	drv=vfio-pci
	;;
uio)
	modprobe uio_pci_generic || setup_fail "modprobe uio_pci_generic failed"
	drv=uio_pci_generic
	;;
none) drv= ;;
*) setup_fail "unknown GV_BIND=$GV_BIND" ;;
esac

# Bind the NICs under test; nothing else is touched.
for bdf in $GV_NIC_BDFS; do
	d=/sys/bus/pci/devices/$bdf
	[ -d "$d" ] || setup_fail "NIC $bdf not found"
	id="$(cat "$d/vendor"):$(cat "$d/device")"
	case "$id" in
	0x1af4:0x1000 | 0x1af4:0x1041) ;;
	*) setup_fail "$bdf is $id, not a virtio-net device" ;;
	esac
	[ -n "$drv" ] || continue
	echo "$drv" >"$d/driver_override"
	if [ -e "$d/driver" ]; then echo "$bdf" >"$d/driver/unbind"; fi
	echo "$bdf" >/sys/bus/pci/drivers_probe
	cur=$(basename "$(readlink "$d/driver" 2>/dev/null)")
	[ "$cur" = "$drv" ] || setup_fail "cannot bind $bdf to $drv (driver: ${cur:-none})"
	say "$bdf ($id) bound to $drv"
done

export GV_NICS="$GV_NIC_BDFS"
set -- $GV_NIC_BDFS
export GV_NIC0=${1:-} GV_NIC1=${2:-}
set -- $GV_MACS
export GV_MAC0=${1:-} GV_MAC1=${2:-}
GV_PLUGIN=$(ls /root/plugin/*.so 2>/dev/null | head -n1)
export GV_PLUGIN GV_NIC_KIND GV_BIND
# EAL options every DPDK app here wants: IOVA as PA (legacy and
# transitional devices bypass the vIOMMU; uio has no IOMMU at all).
export GV_EAL="--iova-mode=pa"
[ "${GV_HUGEPAGES:-0}" -gt 0 ] || GV_EAL="$GV_EAL --no-huge -m 512"

say "running command (timeout ${GV_TIMEOUT}s)"
cd /root || exit 1
if [ "${GV_VERBOSE:-0}" = 1 ]; then
	timeout -k 5 "$GV_TIMEOUT" bash /gv/cmd.sh </dev/null \
		> >(tee -a /gv/stdout >/dev/console) 2> >(tee -a /gv/stderr >/dev/console)
	rc=$?
	sleep 1 # let the tees drain
else
	timeout -k 5 "$GV_TIMEOUT" bash /gv/cmd.sh </dev/null >/gv/stdout 2>>/gv/stderr
	rc=$?
fi
[ "$rc" = 124 ] && echo "gv-guest: command timed out after ${GV_TIMEOUT}s" >>/gv/stderr
finish "$rc"
