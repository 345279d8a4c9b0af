#!/usr/bin/env bash
# scripts/vm/build-image.sh - build the Debian 12 guest that
# scripts/vm/run-in-guest.sh boots under QEMU (TCG) to drive virtio-net-pci
# devices with DPDK through vfio-pci (no-IOMMU mode). See docs/vm.md.
#
#  1. Installs the host packages it needs that are missing (qemu-system-x86,
#     qemu-utils, debootstrap, e2fsprogs).
#  2. debootstraps a minimal bookworm (minbase) with the kernel, kmod,
#     iproute2, pciutils and DPDK's runtime (dpdk-testpmd, the net_virtio
#     and ring-mempool PMDs), from the mirror of the host's apt sources.
#  3. Writes a small init (/sbin/gv-init: mounts the run's 9p share and runs
#     the per-run script that run-in-guest.sh puts there), an initramfs with
#     only what booting from virtio-blk needs, and packs the tree into a raw
#     ext4 image (mkfs.ext4 -d) next to the kernel and initrd.
#
# Idempotent: a stamp holds a hash of this script (which holds the package
# list); a second run with the image current prints one line and exits 0.
# Output dir: $GV_VM_DIR (default /var/cache/gvirtio-vm): rootfs.img,
# vmlinuz, initrd.img, stamp, debs/ (debootstrap's download cache), build.log.
# Options: -f  rebuild even if current.  Must run as root.
set -euo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

OUT=${GV_VM_DIR:-/var/cache/gvirtio-vm}
SUITE=bookworm
HOST_PACKAGES=(qemu-system-x86 qemu-utils debootstrap debian-archive-keyring e2fsprogs)
# Guest packages (debootstrap --include; their Depends come along).
GUEST_PACKAGES=(
	linux-image-amd64 initramfs-tools zstd kmod udev
	iproute2 pciutils procps util-linux
	dpdk librte-net-virtio23 librte-mempool-ring23 librte-mempool23
	librte-net-ring23 librte-net-null23
)

T0=$(date +%s)
say() { echo "vm-image: [$(($(date +%s) - T0))s] $*"; }
die() { echo "vm-image: error: $*" >&2; exit 1; }

force=0
[ "${1:-}" = -f ] && force=1
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"

mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock 9 # one build at a time; a run waiting here sees the finished image

HASH=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
if [ "$force" = 0 ] && [ -s "$OUT/rootfs.img" ] && [ -s "$OUT/vmlinuz" ] &&
	[ -s "$OUT/initrd.img" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$HASH" ]; then
	echo "vm-image: current ($OUT: $(cat "$OUT/info" 2>/dev/null))"
	exit 0
fi

# ------------------------------------------------------------ host packages
missing=()
for p in "${HOST_PACKAGES[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing host packages: ${missing[*]}"
	apt-get -q update >/dev/null 2>&1 || die "apt-get update failed"
	for p in "${missing[@]}"; do
		apt-cache policy "$p" | grep -q 'Candidate: [0-9]' ||
			die "host package $p cannot be had from the apt sources"
	done
	apt-get -q -y install --no-install-recommends "${missing[@]}" \
		</dev/null >/dev/null || die "apt-get install failed: ${missing[*]}"
fi

# ------------------------------------------------- mirror from apt sources
# First "deb" source of the host whose suites include $SUITE (not -security).
find_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$SUITE" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "")
					{ split(uris, u, " "); print u[1]; exit }
				types = suites = uris = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^[ \t]*#/ { next }
			tolower($1) == "types:" { $1 = ""; types = $0 }
			tolower($1) == "suites:" { $1 = ""; suites = $0 }
			tolower($1) == "uris:" { $1 = ""; uris = $0; sub(/^ +/, "", uris) }
			END { flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [opts] URI SUITE COMPONENTS...
		sed -e 's/\[[^]]*\]//' "$f" | awk -v suite="$SUITE" \
			'$1 == "deb" && $3 == suite { print $2; exit }'
	done
}
MIRROR=$(find_mirror | head -n1)
[ -n "$MIRROR" ] || die "no 'deb' source for $SUITE in /etc/apt/sources.list{,.d/}"
say "mirror: $MIRROR (from the host's apt sources)"

# --------------------------------------------------------------- debootstrap
WORK=$OUT/work
ROOT=$WORK/rootfs
LOG=$OUT/build.log
: >"$LOG"
cleanup() {
	local m
	for m in "$ROOT/dev/pts" "$ROOT/dev" "$ROOT/sys" "$ROOT/proc"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m" || true
	done
}
trap cleanup EXIT
cleanup
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT/debs"
# dpdk-testpmd ships in dpdk-dev, whose Depends include libdpdk-dev and a
# pile of -dev packages: take its runtime Depends only and unpack its
# binaries (dpdk-testpmd, dpdk-test, ...) into the tree.
dl=$OUT/debs/dpdk-dev
rm -rf "$dl" && mkdir -p "$dl"
if ! (cd "$dl" && apt-get -q download dpdk-dev >/dev/null 2>&1); then
	apt-get -q update >/dev/null 2>&1 || die "apt-get update failed"
	(cd "$dl" && apt-get -q download dpdk-dev >/dev/null 2>&1) ||
		die "cannot download dpdk-dev (apt-get download dpdk-dev)"
fi
devdeb=$(ls "$dl"/dpdk-dev_*.deb)
dev_deps=$(dpkg-deb -f "$devdeb" Depends | tr ',' '\n' |
	sed 's/(.*//; s/|.*//; s/[[:space:]]//g' | grep -v -x -e libdpdk-dev -e '')
inc=$(echo "${GUEST_PACKAGES[@]}" $dev_deps | tr ' ' '\n' | sort -u | paste -sd,)
say "debootstrap $SUITE (minbase + $(echo "$inc" | tr , '\n' | wc -l) packages; log: $LOG) ..."
(
	while sleep 30; do
		say "  ... $(grep '^I: ' "$LOG" | tail -n1 | cut -c4-80)"
	done
) &
ticker=$!
rc=0
debootstrap --variant=minbase --include="$inc" --cache-dir="$OUT/debs" \
	"$SUITE" "$ROOT" "$MIRROR" >>"$LOG" 2>&1 || rc=$?
kill "$ticker" 2>/dev/null || true
wait "$ticker" 2>/dev/null || true
if [ "$rc" != 0 ]; then
	grep -E '^(E|W):' "$LOG" | tail -n 5 >&2 || true
	die "debootstrap failed (exit $rc); see $LOG"
fi
say "debootstrap done"
dpkg-deb --fsys-tarfile "$devdeb" | tar -x -C "$ROOT" --wildcards './usr/bin/dpdk-*' ||
	die "cannot unpack the dpdk-* tools from $devdeb"

# ---------------------------------------------------------------- configure
echo gvirtio-guest >"$ROOT/etc/hostname"
echo "127.0.0.1 localhost gvirtio-guest" >"$ROOT/etc/hosts"
echo "/dev/vda / ext4 rw,noatime 0 1" >"$ROOT/etc/fstab"
passwd -R "$ROOT" -d root >/dev/null 2>&1 || true
echo "DPDK ${GUEST_PACKAGES[*]}" >"$ROOT/etc/gvirtio-packages"

# /sbin/gv-init: PID 1. All per-run logic is in the run's 9p share (so that
# changing it needs no image rebuild); this stub only gets there.
cat >"$ROOT/sbin/gv-init" <<'EOF'
#!/bin/sh
# gvirtio guest init (scripts/vm/build-image.sh): mount the basics and the
# run's share (9p tag "gvrun"), then hand over to its init.sh.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# (the initramfs has moved its /proc, /sys and /dev here already)
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /gv
modprobe -q 9pnet_virtio; modprobe -q 9p
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 gvrun /gv &&
	[ -f /gv/init.sh ]; then
	exec /bin/bash /gv/init.sh
fi
echo "gv-init: no run share (9p tag gvrun) with init.sh; rebooting" >&2
echo b >/proc/sysrq-trigger
EOF
chmod 755 "$ROOT/sbin/gv-init"

# Small initramfs: just what mounting / from virtio-blk needs.
cat >"$ROOT/etc/initramfs-tools/conf.d/gvirtio" <<'EOF'
MODULES=list
COMPRESS=zstd
EOF
printf '%s\n' virtio_pci virtio_blk ext4 crc32c_generic \
	>"$ROOT/etc/initramfs-tools/modules"
say "update-initramfs"
mount -t proc proc "$ROOT/proc"
mount -t sysfs sys "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
chroot "$ROOT" update-initramfs -u -k all >>"$LOG" 2>&1 ||
	die "update-initramfs failed; see $LOG"
# Check what the guest needs is there.
kver=$(basename "$(ls -d "$ROOT"/lib/modules/* | sort -V | tail -n1)")
for m in vfio vfio-pci vfio_iommu_type1 uio_pci_generic 9p 9pnet_virtio hugetlbfs; do
	chroot "$ROOT" modinfo -k "$kver" "$m" >/dev/null 2>&1 ||
		grep -q "/$m.ko\|CONFIG_${m^^}=y" "$ROOT/lib/modules/$kver/modules.builtin" \
			"$ROOT/boot/config-$kver" 2>/dev/null ||
		die "guest kernel $kver lacks module $m"
done
grep -q '^CONFIG_INTEL_IOMMU=y' "$ROOT/boot/config-$kver" ||
	die "guest kernel $kver lacks CONFIG_INTEL_IOMMU (vfio needs QEMU's vIOMMU)"
[ -x "$ROOT/usr/bin/dpdk-testpmd" ] || die "dpdk-testpmd missing from the guest"
if chroot "$ROOT" ldd /usr/bin/dpdk-testpmd | grep 'not found' >&2; then
	die "dpdk-testpmd lacks libraries in the guest"
fi
dpdk_ver=$(chroot "$ROOT" dpkg-query -W -f='${Version}' dpdk)
cleanup

# Trim what a test guest never reads.
rm -rf "$ROOT"/usr/share/{doc,man,info,locale}/* "$ROOT"/var/cache/apt/*.bin \
	"$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/*_Packages

# --------------------------------------------------------------- pack it up
cp "$ROOT/boot/vmlinuz-$kver" "$WORK/vmlinuz"
cp "$ROOT/boot/initrd.img-$kver" "$WORK/initrd.img"
used_mb=$(du -sm "$ROOT" | cut -f1)
size_mb=$((used_mb * 13 / 10 + 256))
say "mkfs.ext4 -d ($used_mb MB of files, ${size_mb} MB image)"
truncate -s "${size_mb}M" "$WORK/rootfs.img"
mkfs.ext4 -q -F -L gvroot -d "$ROOT" "$WORK/rootfs.img" >>"$LOG" 2>&1 ||
	die "mkfs.ext4 -d failed; see $LOG"
for f in rootfs.img vmlinuz initrd.img; do mv -f "$WORK/$f" "$OUT/$f"; done
echo "kernel $kver, dpdk $dpdk_ver, mirror $MIRROR" >"$OUT/info"
rm -rf "$WORK"
echo "$HASH" >"$OUT/stamp"
say "done: $OUT (kernel $kver, dpdk $dpdk_ver, stamp $HASH)"
