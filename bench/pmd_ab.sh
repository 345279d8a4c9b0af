#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/pmd_ab.sh - gvirtio builds (or one build with different devargs)
# side by side, each against DPDK's net_virtio_user. In every round each
# variant in turn runs one round of bench/pmd_compare.sh (which alternates
# the two drivers itself), so each variant's gvirtio/DPDK ratio is taken
# minutes from the others'. This shared machine's speed swings up to 3x
# within an hour: a ratio to DPDK's PMD measured next to each variant,
# rounds alternated, is what can be compared between variants; their
# Mpps alone cannot.
#
#   bash bench/pmd_ab.sh ROUNDS VARIANT VARIANT [VARIANT...]
#
# VARIANT is NAME=PLUGIN (a built librte_net_gvirtio.so) or
# NAME=PLUGIN@k=v,k=v (the same with extra devargs for gvirtio's port, as
# pmd_compare's GV_DEVARGS). For example, main against an experiment on
# packed forwarding at 1518 B, 3 rounds of 3 s per sample:
#
#   FULL=1 SECS=3 FILTER='^loop/packed/mrg0/inorder/1518' \
#       bash bench/pmd_ab.sh 3 main=/root/plug/main.so exp=/root/plug/exp.so
#
# Environment: what bench/pmd_compare.sh takes (FULL, SECS, FILTER, SIZES,
# FE_EXTRA, PERF, KEEP, ...) is passed on to it; each run gets ROUNDS=1
# CALLGRIND=0. GV_DEVARGS is taken from the variant, not from here.
# Each run is one pmd_compare round, so the two drivers' order is set
# here: gvirtio first in odd rounds, DPDK's PMD first in even ones (ORDER=gv
# or ORDER=dpdk keeps one order throughout). The order of the variants
# turns with the round too (round k starts with variant k mod n), so no
# variant always runs first.
# Give an even ROUNDS: each driver then goes first equally often. A
# run's first sample can differ from its second (6 rounds of split
# forwarding at 64 B once gave DPDK's PMD a median 11.2 Mpps as a run's
# first sample and 6.9 as its second; gvirtio 7.7 either way).
# OUT: directory for every run's JSON, report and log (default
# bench/results/ab-<timestamp>).
#
# Output: one progress line per run on stderr; on stdout
# (bench/pmd_ab_summary.py), per row and variant, gvirtio/DPDK per round,
# their median, in how many rounds gvirtio was the faster (sign test), and
# the medians of both drivers' Mpps; then each variant against the first,
# round by round; OUT/ab.json holds the same. Exit status 1 if a run
# failed (the table then has what the others measured), 2 on a usage error.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() {
	echo "pmd_ab: $*" >&2
	exit 2
}

[ $# -ge 3 ] || die "usage: bash bench/pmd_ab.sh ROUNDS NAME=PLUGIN[@devargs] NAME=PLUGIN[@devargs] [...]"
ROUNDS=$1
shift
[[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || die "ROUNDS must be 1-99, got '$ROUNDS'"
[ "${ORDER:-alt}" != alt ] || [ $((ROUNDS % 2)) = 0 ] ||
	echo "pmd_ab: note: ROUNDS=$ROUNDS is odd, so gvirtio goes first in one round more than DPDK's PMD (see the header)" >&2
NAMES=() PLUGINS=() DEVARGS=()
for v in "$@"; do
	[[ $v == *=* ]] || die "variant '$v': want NAME=PLUGIN or NAME=PLUGIN@k=v,..."
	name=${v%%=*} rest=${v#*=}
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || die "variant name '$name': letters, digits, . _ - only"
	for n in "${NAMES[@]}"; do [ "$n" != "$name" ] || die "variant name '$name' given twice"; done
	plugin=${rest%%@*} devargs=
	[[ $rest == *@* ]] && devargs=${rest#*@}
	[ -f "$plugin" ] || die "variant '$name': no plugin at '$plugin'"
	NAMES+=("$name") PLUGINS+=("$(realpath "$plugin")") DEVARGS+=("$devargs")
done
OUT=${OUT:-$ROOT/bench/results/ab-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || die "cannot make $OUT"
unset GV_DEVARGS

NV=${#NAMES[@]}
fail=0
for ((r = 0; r < ROUNDS; r++)); do
	order=${ORDER:-alt}
	[ "$order" = alt ] && order=$([ $((r % 2)) -eq 0 ] && echo gv || echo dpdk)
	for ((i = 0; i < NV; i++)); do
		k=$(((r + i) % NV))
		name=${NAMES[$k]}
		dir=$OUT/$name-r$((r + 1))
		mkdir -p "$dir"
		echo "pmd_ab: round $((r + 1))/$ROUNDS, $name ($((r * NV + i + 1))/$((ROUNDS * NV)) runs) $(date +%T)" >&2
		env ${DEVARGS[$k]:+GV_DEVARGS=${DEVARGS[$k]}} ROUNDS=1 CALLGRIND=0 ORDER="$order" PMD_RESULTS="$dir" \
			PLUGIN="${PLUGINS[$k]}" PLUGIN_DESC="pmd_ab variant $name" \
			bash "$ROOT/bench/pmd_compare.sh" > "$dir/report.md" 2> "$dir/log"
		rc=$?
		if [ $rc -ne 0 ] || [ ! -f "$dir/pmd-latest.json" ]; then
			echo "pmd_ab: run $name round $((r + 1)) failed (exit $rc): see $dir/log" >&2
			fail=1
		fi
	done
done

python3 "$ROOT/bench/pmd_ab_summary.py" "$OUT" "$ROUNDS" "${NAMES[@]}" || fail=1
exit $fail
