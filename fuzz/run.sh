#!/usr/bin/env bash
# fuzz/run.sh EXE [SECONDS] [libFuzzer args...]
#
# Run one libFuzzer target of build-fuzz/ over its seeds and new inputs:
#   seeds (read-only, committed): fuzz/corpus/<target>/   - replayed first,
#       so a crash kept there as a regression seed is re-run every time
#   new inputs: <build dir>/fuzz/work/<target>/            (git-ignored)
#   crashes:    <build dir>/fuzz/artifacts/<target>/crash-* (and leak-, timeout-)
# SECONDS (default $GV_FUZZ_SECONDS, else 20) bounds the run; so does
# $GV_FUZZ_RUNS executions (default 50000000). Prints one line with the
# executions done; exits non-zero on a crash, a failed invariant, a leak or
# a timeout (libFuzzer's exit code), printing the report.
#
# A long run of one target (10 minutes):
#   bash fuzz/run.sh build-fuzz/fuzz/fuzz_vqd_take 600
# Reproduce a crash:  build-fuzz/fuzz/fuzz_vqd_take <crash file>
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

[ $# -ge 1 ] || { echo "usage: $0 EXE [SECONDS] [libFuzzer args...]" >&2; exit 2; }
exe=$(realpath "$1")
shift
secs=${GV_FUZZ_SECONDS:-20}
if [ $# -ge 1 ] && [[ $1 =~ ^[0-9]+$ ]]; then
	secs=$1
	shift
fi
runs=${GV_FUZZ_RUNS:-50000000}
name=$(basename "$exe")
dir=$(dirname "$exe")
seeds=$REPO/fuzz/corpus/$name
work=$dir/work/$name
art=$dir/artifacts/$name
log=$dir/work/$name.log

# Largest input worth mutating, per target.
case $name in
fuzz_split_used | fuzz_packed_used | fuzz_split_used_burst | fuzz_packed_used_burst) max_len=2048 ;;
fuzz_vqd_take | fuzz_pmd) max_len=4096 ;;
fuzz_vhu_reply) max_len=400 ;;
fuzz_devargs) max_len=512 ;;
*) max_len=1024 ;;
esac

[ -x "$exe" ] || { echo "fuzz: $name: no executable $exe" >&2; exit 1; }
[ -d "$seeds" ] || { echo "fuzz: $name: no seed corpus $seeds" >&2; exit 1; }
mkdir -p "$work" "$art"

# Leaks are bugs too; UBSan and failed checks abort (compiled so).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

start=$(date +%s)
"$exe" -max_total_time="$secs" -runs="$runs" -max_len="$max_len" -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" "$@" \
	"$work" "$seeds" >"$log" 2>&1
rc=$?
end=$(date +%s)

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n1)
nseeds=$(find -L "$seeds" -type f | wc -l)
if [ "$rc" = 0 ]; then
	echo "fuzz: $name: OK, ${execs:-?} executions in $((end - start)) s ($nseeds seeds; $cov)"
else
	echo "fuzz: $name: FAILED (exit $rc) after ${execs:-?} executions in $((end - start)) s; log $log"
	# The report: from the first sanitizer / invariant line on.
	grep -n -m1 -E 'ERROR: |runtime error|fuzz invariant failed|==[0-9]+==' "$log" |
		cut -d: -f1 | { read -r l && tail -n +"$l" "$log" | head -n 60; }
	ls "$art" 2>/dev/null | sed "s|^|fuzz: $name: artifact $art/|"
fi
# 1, not libFuzzer's own code: its 77 (a crash, a failed invariant) would
# read as "skipped" to meson.
[ "$rc" = 0 ] || exit 1
