#!/usr/bin/env bash
# tests/guest/kernel.sh - the guest kernel for tests/guest/run.sh, cached.
#
# Prints the path of a folder holding, for one Debian kernel version:
#   vmlinuz, modules/ (the kernel's own modules tree, from the .deb),
#   vfio-noiommu.ko (vfio.ko rebuilt with CONFIG_VFIO_NOIOMMU=y), KVER.
#
# Debian's linux-image-6.1.0-NN-amd64 is fetched with apt-get download and
# unpacked with dpkg -x into $GV_GUEST_CACHE (default /var/cache/gvirtio-guest)
# and never installed (installing runs the host's initramfs trigger). The
# version is the newest of linux-image-amd64 for which linux-headers-NN-amd64,
# -common, linux-kbuild-6.1 and linux-source-6.1 of exactly that version are
# available too: the kernel lacks CONFIG_VFIO_NOIOMMU, so vfio.ko is
# rebuilt from the source against the headers with it on (only vfio.ko
# changes with that option; its exported symbols keep their CRCs, checked).
# A second run with the same version finds <cache>/<version>/READY and does
# nothing. Everything goes to stderr except the folder's path.
set -euo pipefail
CACHE=${GV_GUEST_CACHE:-/var/cache/gvirtio-guest}
say() { echo "guest-kernel: $*" >&2; }
die() { echo "guest-kernel: error: $*" >&2; exit 1; }

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 1200 9 || die "cannot lock $CACHE/.lock"

# The packages of one version: prints "IMAGE-PACKAGE KVER" when all of
# linux-image-<abi>-amd64, its headers, -common, kbuild and linux-source
# exist at that version, else nothing.
packages_of() { # version
	local img kver p
	img=$(apt-cache depends "linux-image-amd64=$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9.]*-[0-9]*-amd64\)$/\1/p' | head -n1)
	[ -n "$img" ] || return 0
	kver=${img#linux-image-}
	for p in "$img" "linux-headers-$kver" "linux-headers-${kver%-amd64}-common" \
		linux-kbuild-6.1 linux-source-6.1; do
		apt-cache madison "$p" 2>/dev/null | awk -v v="$1" '$3 == v { f = 1 } END { exit !f }' ||
			return 0
	done
	echo "$img $kver"
}

# Which version: GV_GUEST_KVERSION, else what the cache already has (no apt
# look-up: works offline, and a newer kernel in the archive does not make
# every run rebuild), else the newest linux-image-amd64 version whose
# headers and source are available too.
ver=${GV_GUEST_KVERSION:-$(cat "$CACHE/current" 2>/dev/null || true)}
if [ -n "$ver" ] && [ -f "$CACHE/$ver/READY" ]; then
	echo "$ver" >"$CACHE/current"
	echo "$CACHE/$ver"
	exit 0
fi
if [ -z "${GV_GUEST_KVERSION:-}" ]; then
	ver=
	[ -n "$(apt-cache madison linux-image-amd64 2>/dev/null)" ] || apt-get -q update >&2 || true
	for v in $(apt-cache madison linux-image-amd64 2>/dev/null | awk '{ print $3 }'); do
		[ -n "$(packages_of "$v")" ] && { ver=$v; break; }
		say "skipping linux-image-amd64 $v: its headers or source are not all available"
	done
	[ -n "$ver" ] || die "no linux-image-amd64 version with matching linux-headers, linux-kbuild-6.1 and linux-source-6.1"
fi
read -r img kver < <(packages_of "$ver") ||
	die "linux-image-amd64 $ver: the kernel, its headers, linux-kbuild-6.1 or linux-source-6.1 of that version are not available (apt-cache madison)"
dir=$CACHE/$ver

say "preparing Debian kernel $ver in $dir"
t0=$(date +%s)
abi=${kver%-amd64}
pkgs=("$img=$ver" "linux-headers-$kver=$ver" "linux-headers-$abi-common=$ver"
	"linux-kbuild-6.1=$ver" "linux-source-6.1=$ver")
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp/debs" "$dir.tmp/root"
chown _apt "$dir.tmp/debs" 2>/dev/null || true
(cd "$dir.tmp/debs" && apt-get -q download "${pkgs[@]}") >"$dir.tmp/download.log" 2>&1 ||
	die "apt-get download failed: $(tail -n1 "$dir.tmp/download.log")"
for d in "$dir.tmp"/debs/linux-{image,headers,kbuild}*.deb; do
	dpkg -x "$d" "$dir.tmp/root"
done
root=$dir.tmp/root
hdr=$root/usr/src/linux-headers-$kver
[ -f "$root/boot/vmlinuz-$kver" ] || die "no /boot/vmlinuz-$kver in $img"
[ -d "$hdr" ] || die "no $hdr"
# The headers' Makefile includes the -common one by absolute path.
sed -i "s|include /usr/src/|include $root/usr/src/|" "$hdr/Makefile"
grep -q '^CONFIG_VFIO=m' "$hdr/include/config/auto.conf" || die "CONFIG_VFIO is not a module in $kver"

# drivers/vfio from the source tarball only.
src=$dir.tmp/src
mkdir -p "$src"
dpkg-deb --fsys-tarfile "$dir.tmp"/debs/linux-source-6.1_*.deb |
	tar -x -C "$src" ./usr/src/linux-source-6.1.tar.xz
tar -xJf "$src/usr/src/linux-source-6.1.tar.xz" -C "$src" linux-source-6.1/drivers/vfio
rm -f "$src/usr/src/linux-source-6.1.tar.xz"
vsrc=$src/linux-source-6.1/drivers/vfio
say "building vfio.ko with CONFIG_VFIO_NOIOMMU=y"
make -C "$hdr" M="$vsrc" CONFIG_VFIO_PCI= CONFIG_VFIO_MDEV= CONFIG_VFIO_VIRQFD= \
	CONFIG_VFIO_IOMMU_TYPE1= CONFIG_VFIO_NOIOMMU=y KCFLAGS=-DCONFIG_VFIO_NOIOMMU=1 \
	-j"$(nproc)" modules >"$dir.tmp/vfio-build.log" 2>&1 ||
	die "vfio.ko build failed: $(grep -m1 -i error "$dir.tmp/vfio-build.log" || tail -n1 "$dir.tmp/vfio-build.log")"
grep -q '^parm=enable_unsafe_noiommu_mode' < <(strings "$vsrc/vfio.ko") ||
	die "the rebuilt vfio.ko has no enable_unsafe_noiommu_mode parameter"
# The other vfio modules are Debian's: the exported symbols must be the same.
if ! diff <(awk '{print $1, $2}' "$vsrc/Module.symvers" | sort) \
	<(awk '$3 ~ /drivers\/vfio\/vfio$/ {print $1, $2}' "$hdr/Module.symvers" | sort) >/dev/null; then
	die "the rebuilt vfio.ko exports symbols with other CRCs than Debian's"
fi

mkdir -p "$dir.tmp/out"
cp "$root/boot/vmlinuz-$kver" "$dir.tmp/out/vmlinuz"
cp "$vsrc/vfio.ko" "$dir.tmp/out/vfio-noiommu.ko"
mv "$root/lib/modules/$kver" "$dir.tmp/out/modules"
echo "$kver" >"$dir.tmp/out/KVER"
rm -rf "$dir"
mv "$dir.tmp/out" "$dir"
cp "$dir.tmp/vfio-build.log" "$dir/"
rm -rf "$dir.tmp"
touch "$dir/READY"
echo "$ver" >"$CACHE/current"
say "kernel $kver ($ver) ready in $(($(date +%s) - t0)) s"
echo "$dir"
