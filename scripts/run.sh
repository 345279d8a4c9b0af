#!/usr/bin/env bash
# scripts/run.sh [DEMO ARGS...] - the main job: set up the machine, build
# build/, then run the demo: DPDK's vhost-user back-end (net_vhost) and a
# gvirtio port in one process, traffic both ways on every path and both
# ring layouts, payloads checked, a table of Mpps and Gbit/s.
#   DEMO ARGS: -s SECONDS per row (default 2), -l FRAME_LENGTH (64..1518)
# The core's micro-benchmarks: bash bench/run.sh (see README).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

bash scripts/setup.sh
bash scripts/build.sh build

demo=build/app/gvirtio-demo
[ -x "$demo" ] || { echo "run: $demo was not built" >&2; exit 1; }

# Hugepages when we can have them (root, 2 MB pages): raise the pool to
# what the demo needs for this run only, and give it back afterwards.
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
need=640
mem=(--no-huge -m 1024)
note="no hugepages: running with --no-huge (EAL shares memory through memfd)"
if [ "$(id -u)" = 0 ] && [ -w "$hp/nr_hugepages" ]; then
	orig=$(cat "$hp/nr_hugepages")
	free=$(cat "$hp/free_hugepages")
	if [ "$free" -lt "$need" ]; then
		echo $((orig + need - free)) >"$hp/nr_hugepages" 2>/dev/null || true
		trap 'echo "$orig" >"$hp/nr_hugepages" 2>/dev/null || true' EXIT
	fi
	if [ "$(cat "$hp/free_hugepages")" -ge "$need" ]; then
		# vhost-user needs the memory as few shareable files: one file.
		mem=(--in-memory --single-file-segments -m 1024)
		note="hugepages: 2 MB pages, --in-memory --single-file-segments"
	fi
fi
echo "run: $note"

lcores=0,1
[ "$(nproc)" -ge 2 ] || { echo "run: the demo needs 2 CPUs (one per side)" >&2; exit 1; }
"$demo" -l "$lcores" "${mem[@]}" --no-pci --no-telemetry --file-prefix="gvdemo$$" \
	--log-level=pmd.net.gvirtio:warning --log-level='lib.vhost.*:error' -- "$@"
