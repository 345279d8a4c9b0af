# tests/ovs_lib.sh - a private Open vSwitch with DPDK (Debian's
# openvswitch-switch-dpdk) for the tests that use it as a vhost-user
# switch: tests/ovs.sh (gvirtio's virtio-user ports as OVS's peers) and
# tests/guest/run.sh's pvp-ovs cases (a QEMU guest's NICs on OVS).
# ovsdb-server and ovs-vswitchd-dpdk run in a folder of the caller's
# (OVS_RUNDIR), are killed by PID and never touch the system's OVS.
# OVS's DPDK memory is reserved up front (dpdk-socket-mem, from 2 MB
# hugepages the caller reserves); its PMD thread runs on CPU 0.
#
#   ovs_begin RUN PREFIX   database and ovsdb-server in RUN, EAL file prefix PREFIX
#   ovs_start              ovs-vswitchd-dpdk; waits for DPDK's init
#   ovs_stop SIGNAL        stops it and waits until it is gone
#   ovs_bridge TYPE A B    bridge br0 with ports vhu0, vhu1 of TYPE and flows vhu0 <-> vhu1;
#                          dpdkvhostuserclient: A, B are the peers' socket paths;
#                          dpdkvhostuser: OVS serves RUN/vhu0 and RUN/vhu1 (A, B unused)
#   ovs_wait_links SECONDS both ports' link_state is up
#   ovs_flow_packets       packets forwarded by the flows vhu0 -> vhu1 and vhu1 -> vhu0
#   ovs_end                kills what is left
# Each returns non-zero on failure; ovs_err says what, from OVS's log.
OVS_VSWITCHD=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
ovs_run= ovs_vsd= ovs_dbpid=

ovs_vsctl() { ovs-vsctl --db="unix:$ovs_run/db.sock" --timeout=20 "$@"; }

ovs_begin() {
	local i
	ovs_run=$1
	[ -x "$OVS_VSWITCHD" ] || { ovs_err="$OVS_VSWITCHD missing (package openvswitch-switch-dpdk)"; return 1; }
	mkdir -p "$ovs_run"
	export OVS_RUNDIR="$ovs_run" OVS_LOGDIR="$ovs_run" OVS_DBDIR="$ovs_run"
	ovsdb-tool create "$ovs_run/conf.db" /usr/share/openvswitch/vswitch.ovsschema ||
		{ ovs_err="ovsdb-tool create failed"; return 1; }
	ovsdb-server --remote="punix:$ovs_run/db.sock" --unixctl="$ovs_run/ovsdb.ctl" \
		--log-file="$ovs_run/ovsdb.log" "$ovs_run/conf.db" >/dev/null 2>&1 &
	ovs_dbpid=$!
	for i in $(seq 1 100); do
		[ -S "$ovs_run/db.sock" ] && break
		sleep 0.1
	done
	ovs_vsctl --no-wait init &&
		ovs_vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true other_config:dpdk-socket-mem=1024 \
			other_config:dpdk-lcore-mask=0x1 other_config:pmd-cpu-mask=0x1 \
			"other_config:dpdk-extra=--file-prefix=$2 --no-pci --no-telemetry" ||
		{ ovs_err="ovsdb-server did not take the configuration"; return 1; }
}

ovs_start() {
	local i
	"$OVS_VSWITCHD" "unix:$ovs_run/db.sock" --unixctl="$ovs_run/vswitchd.ctl" \
		--log-file="$ovs_run/vswitchd.log" >>"$ovs_run/vswitchd.out" 2>&1 &
	ovs_vsd=$!
	for i in $(seq 1 300); do
		[ "$(ovs_vsctl get Open_vSwitch . dpdk_initialized 2>/dev/null)" = true ] && return 0
		kill -0 "$ovs_vsd" 2>/dev/null || break
		sleep 0.1
	done
	ovs_err="ovs-vswitchd-dpdk did not initialise DPDK: $(tail -3 "$ovs_run/vswitchd.log" | tr '\n' ' ')"
	return 1
}

ovs_stop() {
	local i
	[ -n "$ovs_vsd" ] || return 0
	kill "-$1" "$ovs_vsd" 2>/dev/null
	for i in $(seq 1 200); do
		kill -0 "$ovs_vsd" 2>/dev/null || { wait "$ovs_vsd" 2>/dev/null; ovs_vsd=; return 0; }
		sleep 0.1
	done
	kill -9 "$ovs_vsd" 2>/dev/null
	ovs_vsd=
	return 1
}

ovs_bridge() {
	local p0=() p1=()
	if [ "$1" = dpdkvhostuserclient ]; then
		p0=("options:vhost-server-path=$2") p1=("options:vhost-server-path=$3")
	fi
	ovs_vsctl add-br br0 -- set Bridge br0 datapath_type=netdev \
		-- add-port br0 vhu0 -- set Interface vhu0 "type=$1" "${p0[@]}" \
		-- add-port br0 vhu1 -- set Interface vhu1 "type=$1" "${p1[@]}" &&
		ovs-ofctl del-flows br0 &&
		ovs-ofctl add-flow br0 in_port=vhu0,actions=output:vhu1 &&
		ovs-ofctl add-flow br0 in_port=vhu1,actions=output:vhu0 ||
		{ ovs_err="bridge br0 with vhu0, vhu1 and their flows: $(tail -3 "$ovs_run/vswitchd.log" | tr '\n' ' ')"; return 1; }
	[ "$1" != dpdkvhostuser ] && return 0
	local i
	for i in $(seq 1 100); do
		[ -S "$ovs_run/vhu0" ] && [ -S "$ovs_run/vhu1" ] && return 0
		sleep 0.1
	done
	ovs_err="OVS did not create its sockets $ovs_run/vhu0, vhu1"
	return 1
}

ovs_links_up() {
	[ "$(ovs_vsctl get Interface vhu0 link_state 2>/dev/null)" = up ] &&
		[ "$(ovs_vsctl get Interface vhu1 link_state 2>/dev/null)" = up ]
}
ovs_wait_links() {
	local deadline=$((SECONDS + $1))
	while [ $SECONDS -lt $deadline ]; do
		ovs_links_up && return 0
		sleep 0.2
	done
	return 1
}

# ovs_flow_packets: the packets each of the two flows forwarded,
# "vhu0->vhu1 vhu1->vhu0" (OVS's port counters stay "?" for vhost ports).
ovs_flow_packets() {
	ovs-ofctl dump-flows br0 2>/dev/null | awk '
		/in_port=("?vhu0"?|1)[ ,]/ { match($0, /n_packets=[0-9]+/); a = substr($0, RSTART + 10, RLENGTH - 10) }
		/in_port=("?vhu1"?|2)[ ,]/ { match($0, /n_packets=[0-9]+/); b = substr($0, RSTART + 10, RLENGTH - 10) }
		END { print a + 0, b + 0 }'
}

ovs_end() {
	ovs_stop TERM
	[ -z "$ovs_dbpid" ] || { kill "$ovs_dbpid" 2>/dev/null; wait "$ovs_dbpid" 2>/dev/null; ovs_dbpid=; }
}
