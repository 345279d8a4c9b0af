#!/usr/bin/env bash
# tests/guest/initramfs.sh KDIR PLUGIN APP OUT - builds the guest's initramfs
# (an uncompressed cpio) for tests/guest/run.sh, at test time, from:
#   - busybox (the static one, busybox-static) and tests/guest/init.sh as /init
#   - the kernel modules the cases load, from KDIR (tests/guest/kernel.sh):
#     vfio (Debian's and the no-IOMMU rebuild), vfio_iommu_type1, vfio_virqfd,
#     irqbypass, vfio-pci-core, vfio-pci, uio, uio_pci_generic
#   - dpdk-testpmd and APP (gv_guest_app) with every library they load, the
#     host's DPDK plugins the guest's EAL loads from its default plugin folder
#     (mempool_ring, bus_pci, bus_vdev, and net_virtio: DPDK's own virtio
#     PMD is there on purpose, as on any Debian machine, and gvirtio must win)
#   - PLUGIN (librte_net_gvirtio.so of the current build) in /plugin (755).
# Takes a few seconds; nothing is cached.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kdir=$1 plugin=$2 app=$3 out=$4
die() { echo "guest-initramfs: error: $*" >&2; exit 1; }

BUSYBOX=/bin/busybox
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	die "$BUSYBOX is not the static busybox (install busybox-static: scripts/setup.sh)"
PMDS=$(pkg-config --variable=pmd_dir libdpdk 2>/dev/null || true)
[ -n "$PMDS" ] || PMDS=$(ls -d /usr/lib/x86_64-linux-gnu/dpdk/pmds-* | head -n1)
[ -d "$PMDS" ] || die "no DPDK plugin folder"
TESTPMD=$(command -v dpdk-testpmd) || die "no dpdk-testpmd (package dpdk-dev)"
for f in "$plugin" "$app" "$kdir/vmlinuz" "$kdir/vfio-noiommu.ko"; do
	[ -f "$f" ] || die "missing $f"
done
kver=$(cat "$kdir/KVER")

root=$(mktemp -d /var/tmp/gvirtio-initramfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,proc,sys,dev,tmp,run,var,mods,plugin,etc}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
ln -s ../run "$root/var/run"
cp "$BUSYBOX" "$root/usr/bin/busybox"
cp "$HERE/init.sh" "$root/init"
chmod 755 "$root/init" "$root/plugin"

# Kernel modules, under fixed names the init loads in order.
m=$kdir/modules/kernel
cp "$m/virt/lib/irqbypass.ko" "$m/drivers/vfio/vfio.ko" "$m/drivers/vfio/vfio_virqfd.ko" \
	"$m/drivers/vfio/vfio_iommu_type1.ko" "$m/drivers/vfio/pci/vfio-pci-core.ko" \
	"$m/drivers/vfio/pci/vfio-pci.ko" "$m/drivers/uio/uio.ko" \
	"$m/drivers/uio/uio_pci_generic.ko" "$root/mods/"
cp "$kdir/vfio-noiommu.ko" "$root/mods/"
echo "$kver" >"$root/mods/KVER"

# Binaries and plugins with every library they need (copied to their real
# place; /lib and /lib64 are links to usr/ as on Debian 12).
copy_lib() { # path
	local real
	real=$(readlink -f "$1")
	case "$real" in /lib/* | /lib64/*) real=/usr$real ;; esac
	[ -e "$root$real" ] && return 0
	mkdir -p "$root$(dirname "$real")"
	cp "$real" "$root$real"
	# the name it was asked for, when that differs (sonames)
	local want=$1
	case "$want" in /lib/* | /lib64/*) want=/usr$want ;; esac
	[ "$want" = "$real" ] || [ -e "$root$want" ] || ln -s "$real" "$root$want"
}
copy_with_deps() { # file dest
	cp "$1" "$root$2"
	ldd "$1" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r l; do
		copy_lib "$l"
	done
}
copy_with_deps "$TESTPMD" /usr/bin/dpdk-testpmd
copy_with_deps "$app" /usr/bin/gv_guest_app
copy_with_deps "$plugin" /plugin/librte_net_gvirtio.so
chmod 644 "$root/plugin/librte_net_gvirtio.so"
mkdir -p "$root$PMDS"
for p in mempool_ring bus_pci bus_vdev net_virtio; do
	f=$(ls "$PMDS"/librte_"$p".so.[0-9]* 2>/dev/null | head -n1)
	[ -n "$f" ] || die "no $PMDS/librte_$p.so.*"
	copy_with_deps "$f" "$(readlink -f "$f" | sed 's|^/lib/|/usr/lib/|')"
done
# pthread_cancel dlopen()s libgcc_s
copy_lib "$(ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ { print $NF; exit }')"
echo "LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:$PMDS" >"$root/etc/gv-env"

(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) >"$out.tmp"
mv "$out.tmp" "$out"
