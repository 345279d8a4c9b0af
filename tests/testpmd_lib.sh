# tests/testpmd_lib.sh - sourced by the tests that drive dpdk-testpmd and
# DPDK's tools as processes (testpmd_fwd.sh, dpdk_tools.sh, two_proc.sh,
# installed.sh).

# safe_plugin PLUGIN NAME: print a path EAL accepts for -d. EAL refuses a
# plugin under a world-writable directory (like /tmp): then a private
# copy in ~/.cache/NAME. Fails if there is no such place.
safe_plugin() {
	local p=$1 d safe
	insecure() {
		d=$(cd "$(dirname "$1")" && pwd -P)
		while :; do
			[ -n "$(find "$d" -maxdepth 0 -perm -o+w 2>/dev/null)" ] && return 0
			[ "$d" = / ] && return 1
			d=$(dirname "$d")
		done
	}
	if insecure "$p"; then
		safe="${HOME:-/root}/.cache/$2"
		mkdir -p "$safe" && chmod 700 "$safe" && cp "$p" "$safe/" || return 1
		p="$safe/$(basename "$p")"
		insecure "$p" && return 1
	fi
	echo "$p"
}

# wait_for FILE REGEX SECONDS: poll a log for a line, bounded.
wait_for() {
	local deadline=$((SECONDS + $3))
	while [ $SECONDS -lt $deadline ]; do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# stop_proc PID: SIGINT (testpmd prints its final statistics), SIGKILL after 10 s.
stop_proc() {
	kill -INT "$1" 2>/dev/null
	for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$1" 2>/dev/null
	return 1
}

# hugepages_reserve N: at least N free 2 MB hugepages and a hugetlbfs
# mount (secondary processes map the primary's memory from its hugepage
# files). Sets hp_orig when it raised the count; hugepages_release gives
# the pages back. Fails if the pages cannot be had.
hp_dir=/sys/kernel/mm/hugepages/hugepages-2048kB
hp_orig=
hugepages_reserve() {
	if [ "$(cat "$hp_dir/free_hugepages" 2>/dev/null || echo 0)" -lt "$1" ]; then
		hp_orig=$(cat "$hp_dir/nr_hugepages")
		echo $((hp_orig + $1)) >"$hp_dir/nr_hugepages" 2>/dev/null
		[ "$(cat "$hp_dir/free_hugepages")" -ge "$1" ] || return 1
	fi
	grep -q " hugetlbfs " /proc/mounts || { mkdir -p /dev/hugepages && mount -t hugetlbfs none /dev/hugepages; }
}

# hugepages_release PREFIX: remove the hugepage files of EAL file prefixes
# starting with PREFIX (a primary's outlive it), give reserved pages back.
hugepages_release() {
	find /dev/hugepages /mnt/huge -maxdepth 1 -name "$1*" -delete 2>/dev/null
	[ -z "$hp_orig" ] || echo "$hp_orig" >"$hp_dir/nr_hugepages" 2>/dev/null
}

# tp_begin NAME PLUGIN TOOL...: the tools are installed and the plugin
# exists (else exit 1, saying which); sets $plugin to a path EAL accepts
# for -d, $work to a new folder, pids=() for the processes tp_end kills.
# PLUGIN may be "-" (no plugin).
tp_begin() {
	local t
	tp_name=$1
	for t in "${@:3}"; do
		command -v "$t" >/dev/null || { echo "$tp_name: $t missing (package dpdk)"; exit 1; }
	done
	if [ "$2" != - ]; then
		[ -f "$2" ] || { echo "$tp_name: no plugin at $2"; exit 1; }
		plugin=$(safe_plugin "$2" gvirtio-plugin) ||
			{ echo "$tp_name: no secure directory for the plugin"; exit 1; }
	fi
	work=$(mktemp -d "/tmp/gv_$tp_name.XXXXXX")
	pids=()
}

# tp_end: kill what is left of the processes in pids, remove $work.
tp_end() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$work"
}

# ok WHAT / bad WHAT: one check's result; tp_summary prints
# "NAME: N passed, M failed" and returns non-zero if any failed.
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
tp_summary() {
	echo "$tp_name: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}
