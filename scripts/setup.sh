#!/usr/bin/env bash
# scripts/setup.sh - prepare a Debian 12 machine (as root) to build and test
# gvirtio. Idempotent: a second run installs nothing and prints one line.
#
#  1. Installs the Debian packages that are missing (and only those).
#  2. Debian's libdpdk-dev lacks the driver-SDK headers an out-of-tree PMD
#     needs (ethdev_driver.h, bus_pci_driver.h, ...). Unless the installed
#     DPDK has them, fetch them from Debian's source package of exactly the
#     installed version into <repo>/.deps/dpdk-sdk/include (git-ignored).
#
# Building is left to scripts/test.sh and scripts/run.sh (via scripts/build.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive
export LC_ALL=C

PACKAGES=(
	meson ninja-build pkg-config gcc g++ python3 file binutils
	libdpdk-dev dpdk dpdk-dev
	openvswitch-switch-dpdk                      # tests/ovs.sh: OVS-DPDK as the peer
	libcmocka-dev libbenchmark-dev valgrind gnuplot-nox
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu  # cross build of the core
	clang libclang-rt-14-dev                     # fuzzers, sanitizers
	dpkg-dev                                     # apt-get source, dpkg-source
	qemu-system-x86 busybox-static iproute2      # tests/guest: QEMU guests,
	make gcc-12 libelf1 libssl3 xz-utils         # and its vfio.ko build
)
SDK_HEADERS=(ethdev_driver.h ethdev_vdev.h ethdev_pci.h bus_pci_driver.h
	bus_vdev_driver.h dev_driver.h bus_driver.h)
SDK_DIR=$REPO/.deps/dpdk-sdk
SRC_LIST=/etc/apt/sources.list.d/gvirtio-deb-src.sources

say() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	say "apt-get update"
	apt-get -q update >/dev/null || die "apt-get update failed"
	apt_updated=1
}

# ---------------------------------------------------------------- packages
missing=()
for p in "${PACKAGES[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "must run as root to install: ${missing[*]}"
	say "installing: ${missing[*]}"
	apt_update
	apt-get -q -y install "${missing[@]}" </dev/null ||
		die "apt-get install failed for: ${missing[*]}"
fi

# ------------------------------------------------------ DPDK driver-SDK headers
dpdk_cflags=$(pkg-config --cflags libdpdk) || die "pkg-config cannot find libdpdk"
inc_dirs=()
for f in $(pkg-config --cflags-only-I libdpdk); do inc_dirs+=("${f#-I}"); done

have_sdk_in() { # dir...: all SDK headers found in one of the dirs
	local h d ok
	for h in "${SDK_HEADERS[@]}"; do
		ok=0
		for d in "$@"; do [ -f "$d/$h" ] && { ok=1; break; }; done
		[ "$ok" = 1 ] || return 1
	done
}

# A C file that includes all seven; it must compile with -DALLOW_INTERNAL_API.
sdk_probe() { # out.c
	{
		echo '#include <rte_ethdev.h>'
		echo '#include <rte_bus_pci.h>'
		echo '#include <rte_bus_vdev.h>'
		for h in "${SDK_HEADERS[@]}"; do echo "#include <$h>"; done
		echo 'int main(void) { return (int)sizeof(struct rte_eth_dev) == 0; }'
	} >"$1"
}

if have_sdk_in "${inc_dirs[@]}"; then
	say "ok (packages present; the installed DPDK has the driver-SDK headers)"
	exit 0 # the installed DPDK was built with enable_driver_sdk=true
fi

version=$(dpkg-query -W -f='${source:Version}' libdpdk-dev)
[ -n "$version" ] || die "cannot read the installed version of libdpdk-dev"
if [ -f "$SDK_DIR/VERSION" ] && [ "$(head -n1 "$SDK_DIR/VERSION")" = "$version" ] &&
	have_sdk_in "$SDK_DIR/include"; then
	say "ok (packages present; DPDK driver-SDK headers for $version in ${SDK_DIR#"$REPO"/})"
	exit 0 # fetched before for this very version
fi

say "fetching DPDK driver-SDK headers from Debian source package dpdk=$version"

# A deb-src entry for every enabled deb entry, in a file of our own, unless
# the machine already has deb-src entries.
existing_deb_src() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		grep -Eq '^[[:space:]]*deb-src[[:space:]]' "$f" && return 0
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$SRC_LIST" ] || continue
		awk 'BEGIN{RS="";FS="\n"} {t="";en=1
			for(i=1;i<=NF;i++){l=$i; if(l~/^#/)continue
				if(tolower(l)~/^types:/){t=" "substr(l,index(l,":")+1)" "}
				if(tolower(l)~/^enabled:[[:space:]]*no/){en=0}}
			if(en && t~/[[:space:]]deb-src[[:space:]]/)f=1}
			END{exit !f}' "$f" && return 0
	done
	return 1
}

derive_deb_src() { # prints deb822 deb-src stanzas derived from the deb entries
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$SRC_LIST" ] || continue
		awk 'BEGIN{RS="";FS="\n"} {t="";en=1;out=""
			for(i=1;i<=NF;i++){l=$i; if(l~/^#/)continue
				if(tolower(l)~/^types:/){t=" "substr(l,index(l,":")+1)" ";continue}
				if(tolower(l)~/^enabled:[[:space:]]*no/){en=0}
				out=out l "\n"}
			if(en && t~/[[:space:]]deb[[:space:]]/)printf "Types: deb-src\n%s\n", out}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [opt=val ...] URI SUITE [COMPONENT...]
		awk '{sub(/#.*/,""); if($1!="deb")next
			line=$0; sub(/^[[:space:]]*deb[[:space:]]+/,"",line); opts=""
			if(line~/^\[/){opts=substr(line,2,index(line,"]")-2); line=substr(line,index(line,"]")+1)}
			n=split(line,w," "); if(n<2)next
			printf "Types: deb-src\nURIs: %s\nSuites: %s\n", w[1], w[2]
			if(n>2){c=w[3]; for(i=4;i<=n;i++)c=c" "w[i]; printf "Components: %s\n", c}
			m=split(opts,o," ")
			for(i=1;i<=m;i++){split(o[i],kv,"=")
				if(kv[1]=="signed-by")printf "Signed-By: %s\n", kv[2]
				if(kv[1]=="trusted")printf "Trusted: %s\n", kv[2]}
			printf "\n"}' "$f"
	done
}

if ! existing_deb_src; then
	stanzas=$(derive_deb_src)
	[ -n "$stanzas" ] || die "no enabled 'deb' entries in the apt sources to derive a deb-src entry from"
	if [ ! -f "$SRC_LIST" ] || [ "$(cat "$SRC_LIST")" != "$stanzas" ]; then
		[ "$(id -u)" = 0 ] || die "must run as root to write $SRC_LIST"
		printf '%s\n' "$stanzas" >"$SRC_LIST"
		say "wrote $SRC_LIST"
		apt_updated=0 # the new entries need their own lists
		apt_update
	fi
fi

tmp=$(mktemp -d /tmp/gvirtio-dpdk-src.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# apt downloads as the unprivileged _apt user where it can write.
chown _apt "$tmp" 2>/dev/null || true

fetch_source() {
	(cd "$tmp" && apt-get -q source --download-only "dpdk=$version") >"$tmp/apt.log" 2>&1
}
if ! fetch_source; then
	apt_update
	if ! fetch_source; then
		why=$(grep -E '^(E|W): ' "$tmp/apt.log" | tail -n1)
		have=$(apt-cache showsrc dpdk 2>/dev/null | sed -n 's/^Version: //p' | sort -u | tr '\n' ' ')
		[ -z "$have" ] || why="${why:-apt-get source failed}; the sources offer dpdk ${have% }"
		die "cannot get Debian source package dpdk=$version (the exact installed libdpdk-dev version, needed for the driver-SDK headers Debian does not ship): ${why:-apt-get source failed}"
	fi
fi

dsc=$(ls "$tmp"/dpdk_*.dsc 2>/dev/null | head -n1)
[ -n "$dsc" ] || die "apt-get source dpdk=$version downloaded no .dsc"
# Unpack with Debian's patches applied: headers exactly as the installed
# version was built from them.
if ! dpkg-source --no-copy -x "$dsc" "$tmp/src" >"$tmp/dpkg-source.log" 2>&1; then
	die "dpkg-source could not unpack $(basename "$dsc"): $(tail -n1 "$tmp/dpkg-source.log")"
fi
src=$tmp/src

stage=$tmp/stage
mkdir -p "$stage/include"

# Where internal headers live in the DPDK tree, most likely first.
SEARCH=(lib/ethdev drivers/bus/pci drivers/bus/vdev lib/eal/include lib/eal/common
	lib/pci drivers/bus/pci/linux lib/eal/linux/include lib/eal/x86/include)
copy_header() { # name (as written in #include)
	local d
	for d in "${SEARCH[@]}"; do
		if [ -f "$src/$d/$1" ]; then
			mkdir -p "$(dirname "$stage/include/$1")"
			cp "$src/$d/$1" "$stage/include/$1"
			return 0
		fi
	done
	return 1
}
for h in "${SDK_HEADERS[@]}"; do
	copy_header "$h" || die "dpdk=$version source has no $h under ${SEARCH[*]}"
done

# Add whatever the seven include (transitively) that neither Debian nor the
# stage has, until a file including all seven compiles.
sdk_probe "$tmp/probe.c"
cc=${CC:-gcc}
for _ in $(seq 1 40); do
	# shellcheck disable=SC2086
	if $cc -fsyntax-only -DALLOW_INTERNAL_API $dpdk_cflags -I"$stage/include" \
		"$tmp/probe.c" >"$tmp/cc.log" 2>&1; then
		ok=1
		break
	fi
	ok=0
	miss=$(sed -nE 's/.*fatal error: ([^:]+): No such file or directory.*/\1/p' "$tmp/cc.log" | head -n1)
	[ -n "$miss" ] || break
	copy_header "$miss" || break
done
if [ "${ok:-0}" != 1 ]; then
	die "the driver-SDK headers from dpdk=$version do not compile: $(grep -m1 -E 'error' "$tmp/cc.log" || tail -n1 "$tmp/cc.log")"
fi

printf '%s\n' "$version" >"$stage/VERSION"
(cd "$stage/include" && find . -type f | sed 's|^\./||' | sort) >"$stage/HEADERS"
mkdir -p "$REPO/.deps"
rm -rf "$SDK_DIR"
mv "$stage" "$SDK_DIR"
say "DPDK driver-SDK headers ($(wc -l <"$SDK_DIR/HEADERS") files) in ${SDK_DIR#"$REPO"/}/include"
