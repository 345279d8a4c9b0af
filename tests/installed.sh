#!/usr/bin/env bash
# installed.sh BUILD - gvirtio installed like a driver, used by unmodified
# DPDK tools with no -d:
#   - `meson install -C BUILD` puts librte_net_gvirtio.so into DPDK's
#     plugin folder (pkg-config's gvirtio pmd_dir);
#   - dpdk-testpmd runs DPDK's virtio-user howto lines against a net_vhost
#     back-end: virtio_user0 with queues=2,cq=1, and net_virtio_user0;
#     traffic flows both ways and gvirtio's log says it drives the port;
#   - dpdk-proc-info, a secondary with no -d, reads the port's stats;
#   - GVIRTIO_PREFER=dpdk hands net_virtio_user0 to DPDK's PMD, while
#     net_gvirtio_user0 stays gvirtio's;
#   - cmocka tests that link gvirtio's static copy pass with the plugin
#     autoloaded next to it;
#   - a virtio-net PCI device is offered to net_gvirtio before DPDK's
#     net_virtio (EAL's probe order), and net_virtio is still asked next.
# Every file the install wrote is removed at exit and any file it replaced
# is put back, so the machine is as before. Run alone (meson: is_parallel
# false): while installed, every DPDK process on the machine loads it.
# Prints "installed: N passed, M failed".
set -u

build=$(cd "${1:?usage: installed.sh BUILD}" && pwd) || exit 1
# shellcheck source=tests/testpmd_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/testpmd_lib.sh"
tp_begin installed - dpdk-testpmd dpdk-proc-info meson
declare -A saved=() # installed path -> copy of the file it replaced
installed=()
uninstall() {
	local f
	for f in "${installed[@]}"; do
		if [ -n "${saved[$f]:-}" ]; then cp -p "${saved[$f]}" "$f"; else rm -f "$f"; fi
	done
	installed=()
}
cleanup() {
	uninstall # first: the replaced files' copies are in $work
	tp_end
	rm -rf /var/run/dpdk/gvi*$$
	hugepages_release "gvi*$$"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# What meson install writes, saved first if it replaces something.
mapfile -t targets < <(meson introspect "$build" --installed |
	python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin).values()))')
plugin_dst=
for f in "${targets[@]}"; do
	case $f in */librte_net_gvirtio.so) plugin_dst=$f ;; esac
	if [ -e "$f" ]; then
		saved[$f]="$work/saved.$(basename "$f")"
		cp -p "$f" "${saved[$f]}"
	fi
done
[ -n "$plugin_dst" ] || { echo "installed: meson installs no librte_net_gvirtio.so"; exit 1; }
installed=("${targets[@]}")
if meson install -C "$build" --no-rebuild --quiet >"$work/install.log" 2>&1 && [ -f "$plugin_dst" ]; then
	ok "meson install: $plugin_dst"
else
	bad "meson install"; tail -5 "$work/install.log"; exit 1
fi
pc_dir=$(dirname "$(printf '%s\n' "${targets[@]}" | grep '/gvirtio\.pc$')")
pmd_dir=$(PKG_CONFIG_PATH=$pc_dir pkg-config --variable=pmd_dir gvirtio)
if [ "$pmd_dir" = "$(dirname "$plugin_dst")" ] && ls "$pmd_dir"/librte_net_virtio.so* >/dev/null 2>&1; then
	ok "pkg-config gvirtio pmd_dir is DPDK's plugin folder ($pmd_dir)"
else
	bad "pkg-config gvirtio pmd_dir '$pmd_dir' is not the folder of DPDK's net_virtio"
fi

# The front-ends use hugepages so that a secondary can map their memory.
hugepages_reserve 160 || { echo "installed: cannot reserve 160 2 MB hugepages"; exit 1; }

# run_pair NAME QUEUES VDEV [ENV...]: a net_vhost back-end and an
# unmodified testpmd (no -d) on VDEV (its path= added), io forwarding
# with --tx-first; leaves $work/NAME.be and $work/NAME.fe and, running,
# the front-end's pid in $fepid and its file prefix in $feprefix.
run_pair() {
	local name=$1 q=$2 vdev=$3 sock="$work/$1.sock"
	shift 3
	local tp=(--no-mlockall --total-num-mbufs=8192 --rxq="$q" --txq="$q" --forward-mode=io --stats-period 1)
	dpdk-testpmd --lcores='0@0,1@0' --no-huge -m 512 --no-pci --no-telemetry \
		--file-prefix="gvib$name$$" --vdev "net_vhost0,iface=$sock,queues=$q" -- "${tp[@]}" \
		</dev/null >"$work/$name.be" 2>&1 &
	bepid=$!
	pids+=("$bepid")
	wait_for "$work/$name.be" "binding succeeded|socket created" 20 || { bad "$name: back-end did not start"; return 1; }
	feprefix="gvif$name$$"
	env "$@" dpdk-testpmd --lcores='0@1,1@1' --single-file-segments -m 256 --no-pci --file-prefix="$feprefix" \
		--vdev "$vdev,path=$sock" -- "${tp[@]}" --tx-first </dev/null >"$work/$name.fe" 2>&1 &
	fepid=$!
	pids+=("$fepid")
	wait_for "$work/$name.fe" "RX-packets: +[1-9]" 30 || { bad "$name: no traffic"; tail -20 "$work/$name.fe"; return 1; }
	return 0
}

# stop_pair NAME: stop both; both directions carried packets by the
# front-end's final statistics.
stop_pair() {
	local fe="$work/$1.fe" rx tx
	stop_proc "$fepid"
	stop_proc "$bepid"
	rx=$(sed -n 's/.*RX-packets: *\([0-9]*\).*/\1/p' "$fe" | tail -1)
	tx=$(sed -n 's/.*TX-packets: *\([0-9]*\).*/\1/p' "$fe" | tail -1)
	if grep -q "Accumulated forward statistics" "$fe" && [ "${rx:-0}" -gt 0 ] && [ "${tx:-0}" -gt 0 ]; then
		ok "$1: traffic both ways (RX $rx, TX $tx), stopped cleanly"
	else
		bad "$1: final statistics RX '$rx' TX '$tx'"; tail -15 "$fe"
	fi
}

# 1. DPDK's howto line: virtio_user0 with 2 queue pairs and cq=1.
if run_pair vu 2 "virtio_user0,queues=2,cq=1"; then
	if grep -q "gvirtio: .*$plugin_dst: drives .*virtio_user" "$work/vu.fe" &&
		grep -q "gvirtio: virtio_user0: " "$work/vu.fe"; then
		ok "vu: the installed gvirtio drives virtio_user0 with no -d"
	else
		bad "vu: virtio_user0 is not the installed gvirtio's"; grep -i virtio "$work/vu.fe" | head -5
	fi
	# A secondary with no -d sees the port (it autoloads the same plugin).
	dpdk-proc-info --file-prefix="$feprefix" -- --stats >"$work/st.log" 2>&1
	rc=$?
	rx=$(sed -n 's/^ *RX-packets: *\([0-9]*\).*/\1/p' "$work/st.log" | head -1)
	if [ "$rc" = 0 ] && [ "${rx:-0}" -gt 0 ]; then
		ok "vu: dpdk-proc-info --stats with no -d: RX-packets $rx"
	else
		bad "vu: dpdk-proc-info --stats (rc $rc, RX-packets '$rx')"; tail -10 "$work/st.log"
	fi
	stop_pair vu
fi

# 2. net_virtio_user0, one queue pair.
if run_pair nvu 1 "net_virtio_user0"; then
	if grep -q "gvirtio: net_virtio_user0: " "$work/nvu.fe"; then
		ok "nvu: the installed gvirtio drives net_virtio_user0"
	else
		bad "nvu: net_virtio_user0 is not gvirtio's"; grep -i virtio "$work/nvu.fe" | head -5
	fi
	stop_pair nvu
fi

# 3. GVIRTIO_PREFER=dpdk: DPDK's PMD takes net_virtio_user0 (its
# virtio_user_dev_init lines, no gvirtio line for the port).
if run_pair dpdk 1 "net_virtio_user0" GVIRTIO_PREFER=dpdk; then
	if grep -q "virtio_user_dev_init" "$work/dpdk.fe" && ! grep -q "gvirtio: net_virtio_user0" "$work/dpdk.fe"; then
		ok "dpdk: GVIRTIO_PREFER=dpdk leaves net_virtio_user0 to DPDK's PMD"
	else
		bad "dpdk: net_virtio_user0 under GVIRTIO_PREFER=dpdk"; grep -i virtio "$work/dpdk.fe" | head -5
	fi
	stop_pair dpdk
fi
# ... and gvirtio's own name is still gvirtio's.
if run_pair own 1 "net_gvirtio_user0" GVIRTIO_PREFER=dpdk; then
	if grep -q "gvirtio: net_gvirtio_user0: " "$work/own.fe"; then
		ok "own: net_gvirtio_user0 is gvirtio's under GVIRTIO_PREFER=dpdk"
	else
		bad "own: net_gvirtio_user0 is not gvirtio's"; grep -i virtio "$work/own.fe" | head -5
	fi
	stop_pair own
fi

# 4. An application that links gvirtio itself (the cmocka tests link the
# PMD's static copy) while the installed plugin autoloads: the linked copy
# keeps the names, the plugin registers nothing, the tests pass.
for t in test_vhost_user test_fault_config; do
	if (cd "$work" && "$build/tests/$t") >"$work/$t.log" 2>&1; then
		ok "linked copy: $t passes with the plugin installed"
	else
		bad "linked copy: $t fails with the plugin installed"; tail -15 "$work/$t.log"
	fi
done

# 5. PCI: the order EAL offers a virtio-net device to the drivers (it asks
# the next one when a probe declines; a kernel-owned device is declined by
# EAL for each, so both are asked and logged).
pci=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1af4 ] || continue
	case $(cat "$d/device") in 0x1000 | 0x1041) pci=$(basename "$d"); break ;; esac
done
if [ -z "$pci" ]; then
	bad "pci: this machine has no virtio-net PCI device to show the probe order on"
else
	pci_order() { # ENV...: the drivers EAL offered $pci to, in order
		env "$@" dpdk-testpmd --no-huge -m 256 --no-telemetry --file-prefix="gvip$$" \
			--log-level=lib.eal:debug -a "$pci" -- --help 2>&1 |
			sed -n 's/.*probe driver: [0-9a-f]*:[0-9a-f]* \(.*\)$/\1/p' | uniq | tr '\n' ' '
	}
	order=$(pci_order)
	case $order in
	"net_gvirtio net_virtio "*) ok "pci: $pci offered to net_gvirtio, then net_virtio" ;;
	*) bad "pci: $pci offered in the order '$order'" ;;
	esac
	order=$(pci_order GVIRTIO_PREFER=dpdk)
	case " $order" in
	*" net_virtio "*) ok "pci: GVIRTIO_PREFER=dpdk: net_virtio asked ($order)" ;;
	*) bad "pci: GVIRTIO_PREFER=dpdk: order '$order'" ;;
	esac
fi

uninstall
if [ ! -e "$plugin_dst" ] || [ -n "${saved[$plugin_dst]:-}" ]; then
	ok "uninstalled: DPDK's plugin folder as before"
else
	bad "uninstall left $plugin_dst"
fi
tp_summary
