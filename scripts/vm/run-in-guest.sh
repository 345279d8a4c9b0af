#!/usr/bin/env bash
# scripts/vm/run-in-guest.sh [OPTIONS] -- COMMAND [ARGS...]
#
# Boots the guest built by scripts/vm/build-image.sh (built first if needed)
# under qemu-system-x86_64 with TCG, with two virtio-net-pci NICs wired back
# to back (two ports of one QEMU hub: what one sends, the other receives),
# binds them to vfio-pci in the guest, runs COMMAND there as root and exits
# with its exit status. See docs/vm.md.
#
# In the guest: /host = --share DIR (read-only), /out = --out DIR (rw),
# /root/plugin = copies of the --plugin files. COMMAND's environment has
#   GV_NIC0 GV_NIC1 (PCI addresses, e.g. 0000:00:10.0), GV_NICS (both),
#   GV_MAC0 GV_MAC1, GV_PLUGIN (first /root/plugin/*.so, if any),
#   GV_EAL (EAL options to use: --iova-mode=pa [--no-huge -m 512]),
#   GV_NIC_KIND, GV_BIND.
# COMMAND's stdout/stderr are printed here when the guest is done.
#
# Options:
#   --nics KIND      modern (default; 1af4:1041, iommu_platform under vfio),
#                    modern-packed (+packed=on), legacy (1af4:1000,
#                    disable-modern=on), transitional (both interfaces)
#   --nic-opts OPTS  extra -device options for both NICs (e.g. rx_queue_size=1024)
#   --bind B         vfio (default: vfio-pci behind QEMU's intel-iommu, as
#                    Debian's kernel has no vfio no-IOMMU mode), uio
#                    (uio_pci_generic, no IOMMU), none (leave to the kernel)
#   --share DIR      host dir at /host (default: <repo>/build; "" for none)
#   --out DIR        host dir at /out, writable
#   --plugin FILE    copy FILE to /root/plugin in the guest (repeatable;
#                    default: <share>/drivers/net/virtio/librte_net_gvirtio.so
#                    if it exists)
#   --no-dpdk-virtio hide the installed DPDK net_virtio PMD in the guest
#   --hugepages N    2 MB pages to reserve (default 256; 0: GV_EAL has --no-huge)
#   --mem MB --smp N guest size (default 2048, 2)
#   --timeout S      COMMAND's timeout (default 300); the VM as a whole gets
#                    S + --boot-timeout (default 240) before it is killed
#   --log FILE       keep the guest console log there
#   -v               show the guest console (and COMMAND's output) live
# Exit status: COMMAND's; 124 on a timeout; 125 if the guest failed to boot
# or to set up (the console log's tail is printed).
# shellcheck disable=SC2054 # QEMU options are comma lists
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VM=${GV_VM_DIR:-/var/cache/gvirtio-vm}

kind=modern nic_opts='' bind=vfio share=$REPO/build share_given=0 out='' hugepages=256
mem=2048 smp=2 timeout=300 boot_timeout=240 log='' verbose=0 hide_virtio=0
plugins=() plugin_given=0

die() { echo "run-in-guest: error: $*" >&2; exit 125; }
usage() { sed -n '2,/^# shellcheck/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//;$d'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--nics) kind=$2; shift ;;
	--nic-opts) nic_opts=$2; shift ;;
	--bind) bind=$2; shift ;;
	--share) share=$2; share_given=1; shift ;;
	--out) out=$2; shift ;;
	--plugin) plugins+=("$2"); plugin_given=1; shift ;;
	--no-dpdk-virtio) hide_virtio=1 ;;
	--hugepages) hugepages=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--boot-timeout) boot_timeout=$2; shift ;;
	--log) log=$2; shift ;;
	-v) verbose=1 ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	*) echo "run-in-guest: unknown option $1" >&2; usage 2 >&2 ;;
	esac
	shift
done
[ $# -gt 0 ] || die "no COMMAND (usage: run-in-guest.sh [OPTIONS] -- COMMAND...)"
[ "$(id -u)" = 0 ] || die "must run as root"
# No build/ yet (fresh clone): run without /host unless --share asked for it.
[ "$share_given" = 1 ] || [ -d "$share" ] || share=

# The image (a no-op when current). Its output goes to stderr.
bash "$HERE/build-image.sh" >&2 || die "cannot build the guest image"

# ------------------------------------------------------------------ NICs
case "$bind" in vfio | uio | none) ;; *) die "--bind: vfio, uio or none" ;; esac
case "$kind" in
modern) dev="disable-legacy=on,disable-modern=off" ;;
modern-packed) dev="disable-legacy=on,disable-modern=off,packed=on" ;;
legacy) dev="disable-legacy=off,disable-modern=on" ;;
transitional) dev="disable-legacy=off,disable-modern=off" ;;
*) die "--nics: modern, modern-packed, legacy or transitional" ;;
esac
# Under the vIOMMU a modern-only device must translate its DMA (QEMU refuses
# iommu_platform on devices with a legacy interface: those bypass it).
if [ "$bind" = vfio ] && [ "${kind#modern}" != "$kind" ]; then
	dev="$dev,iommu_platform=on"
fi
[ -z "$nic_opts" ] || dev="$dev,$nic_opts"
macs="52:54:00:00:00:10 52:54:00:00:00:11"
bdfs="0000:00:10.0 0000:00:11.0"

# --------------------------------------------------------------- run dir
run=$(mktemp -d /var/tmp/gvirtio-run.XXXXXX)
chmod 755 "$run"
qpid=
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "${tailpid:-}" ] || kill "$tailpid" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp "$HERE/guest-init.sh" "$run/init.sh"
{
	echo "# COMMAND, as given to run-in-guest.sh"
	printf '%q ' "$@"
	echo
} >"$run/cmd.sh"
: >"$run/stdout"
: >"$run/stderr"

if [ "$plugin_given" = 0 ] && [ -n "$share" ] &&
	[ -f "$share/drivers/net/virtio/librte_net_gvirtio.so" ]; then
	plugins=("$share/drivers/net/virtio/librte_net_gvirtio.so")
fi
if [ ${#plugins[@]} -gt 0 ]; then
	mkdir -p "$run/plugin"
	for p in "${plugins[@]}"; do
		[ -f "$p" ] || die "--plugin $p: no such file"
		cp -L "$p" "$run/plugin/"
	done
fi

cat >"$run/config" <<EOF
GV_BIND=$bind
GV_NIC_KIND=$kind
GV_NIC_BDFS="$bdfs"
GV_MACS="$macs"
GV_HUGEPAGES=$hugepages
GV_TIMEOUT=$timeout
GV_VERBOSE=$verbose
GV_HIDE_VIRTIO=$hide_virtio
GV_SHARE=$([ -n "$share" ] && echo 1 || echo 0)
GV_OUT=$([ -n "$out" ] && echo 1 || echo 0)
EOF

# ------------------------------------------------------------------ QEMU
append="console=ttyS0 root=/dev/vda rw rootfstype=ext4 init=/sbin/gv-init"
append="$append panic=-1 mitigations=off tsc=reliable no_timer_check"
[ "$verbose" = 1 ] || append="$append quiet loglevel=3"
args=(-nodefaults -no-user-config -display none -no-reboot
	-machine q35 -accel tcg,thread=multi -cpu max -smp "$smp" -m "$mem"
	-kernel "$VM/vmlinuz" -initrd "$VM/initrd.img")
if [ "$bind" = vfio ]; then
	# The vIOMMU comes before the other devices.
	args+=(-device intel-iommu,intremap=on)
	append="$append intel_iommu=on iommu=pt"
fi
args+=(-append "$append"
	-chardev "file,id=con,path=$run/console.log" -serial chardev:con
	-drive "file=$VM/rootfs.img,format=raw,if=none,id=root,snapshot=on,cache=unsafe"
	-device virtio-blk-pci,drive=root
	-fsdev "local,id=gvrun,path=$run,security_model=none"
	-device virtio-9p-pci,fsdev=gvrun,mount_tag=gvrun)
if [ -n "$share" ]; then
	[ -d "$share" ] || die "--share $share: no such directory"
	args+=(-fsdev "local,id=host,path=$share,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=host,mount_tag=host)
fi
if [ -n "$out" ]; then
	mkdir -p "$out"
	args+=(-fsdev "local,id=out,path=$(cd "$out" && pwd),security_model=none"
		-device virtio-9p-pci,fsdev=out,mount_tag=out)
fi
set -- $macs
mac0=$1 mac1=$2
args+=(-netdev hubport,id=p0,hubid=0
	-device "virtio-net-pci,netdev=p0,mac=$mac0,addr=0x10,$dev"
	-netdev hubport,id=p1,hubid=0
	-device "virtio-net-pci,netdev=p1,mac=$mac1,addr=0x11,$dev")

limit=$((timeout + boot_timeout))
echo "run-in-guest: booting ($kind NICs, bind $bind, limit ${limit}s) ..." >&2
t0=$(date +%s)
: >"$run/console.log"
if [ "$verbose" = 1 ]; then
	tail -n +1 -f "$run/console.log" >&2 &
	tailpid=$!
fi
timeout -k 10 "$limit" qemu-system-x86_64 "${args[@]}" </dev/null \
	>"$run/qemu.out" 2>&1 &
qpid=$!
qrc=0
wait "$qpid" || qrc=$?
qpid=
t1=$(date +%s)
if [ -n "${tailpid:-}" ]; then
	sleep 0.5
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
	tailpid=
fi
[ -z "$log" ] || cp "$run/console.log" "$log"

[ "$verbose" = 1 ] || cat "$run/stdout"
[ "$verbose" = 1 ] || cat "$run/stderr" >&2
if [ -s "$run/rc" ]; then
	rc=$(cat "$run/rc")
	echo "run-in-guest: exit status $rc ($((t1 - t0))s in the VM)" >&2
	[ "$rc" != 125 ] || tail -n 20 "$run/console.log" >&2
	exit "$rc"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run-in-guest: error: the VM did not finish within ${limit}s; killed" >&2
	rc=124
else
	echo "run-in-guest: error: the VM ended (qemu exit $qrc) without a result" >&2
	rc=125
fi
sed 's/^/qemu: /' "$run/qemu.out" | tail -n 5 >&2
echo "run-in-guest: console log tail:" >&2
tail -n 25 "$run/console.log" >&2
exit "$rc"
