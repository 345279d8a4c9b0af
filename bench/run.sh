#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/run.sh - run the virtqueue core benchmarks and report.
#
#   bench/run.sh                  default run (~2-3 minutes)
#   BENCH_QUICK=1 bench/run.sh    quick run (~30 s); same as: bench/run.sh --quick
#
# Expects build/bench/gv_bench{,_fixed_smp,_fixed_mandatory} (scripts/run.sh
# builds them); builds them with `meson compile` when missing.
#
# Each round runs, one after the other:
#   sel    gv_bench, single-thread rows (selectable barrier policy)
#   fixed  gv_bench_fixed_smp / gv_bench_fixed_mandatory, the same rows on
#          the core hard-wired to one policy
#          (row by row, alternating: A B B A for row 1, then row 2, ...)
#   xc     gv_bench, cross-core rows, each (burst, ring) group preceded by
#          the DPDK rte_ring reference
# Every ratio is the median over rounds of per-round ratios (this
# machine's speed drifts, so only numbers measured close together are
# compared).
#
# Output: bench/results/<timestamp>.json (all raw Google Benchmark runs +
# summary), bench/results/latest.json (copy), bench/results/latest.png
# (gnuplot), and markdown tables on stdout. Progress goes to stderr.
# Exit status 1 if any benchmark row failed.
#
# Environment:
#   BENCH_QUICK=1          quick settings (below)
#   BENCH_ROUNDS=N         rounds (default 5, quick 3)
#   BENCH_MIN_TIME=S       --benchmark_min_time of each st repetition (0.025, quick 0.01)
#   BENCH_ST_REPS=N        repetitions per st process (2, quick 1); per round
#                          each build runs twice (A B B A), median taken
#   BENCH_XC_MIN_TIME=S    --benchmark_min_time of the xc/rte rows (0.2, quick 0.02)
#   BENCH_XC_TOTAL=N       descriptors per cross-core iteration (32768; short runs, so most
#                          fit between two preemptions on a busy machine)
#   BENCH_CPUS=A,B         driver CPU, device CPU (0,1)
#   BENCH_RTE_ESIZE=N      bytes the rte_ring reference moves per descriptor
#                          each way: 16 (default: address + length, what a
#                          descriptor carries) or 8 (a bare pointer)
#   BENCH_FILTER=REGEX     only rows whose name matches (grep -E), e.g.
#                          'split/smp' or '^(xc|rte)/.*/32/' (keep the rte rows
#                          in for the reference column)
#   BUILD_DIR=DIR          meson build directory (build)
set -euo pipefail

for arg in "$@"; do
	case "$arg" in
	--quick) BENCH_QUICK=1 ;;
	-h | --help) sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/run.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
	esac
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
BIN=$BUILD/bench
RESULTS=$ROOT/bench/results
REPORT=$ROOT/bench/report.py
EXES=(gv_bench gv_bench_fixed_smp gv_bench_fixed_mandatory)

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	ROUNDS=${BENCH_ROUNDS:-3}
	MIN_TIME=${BENCH_MIN_TIME:-0.01}
	ST_REPS=${BENCH_ST_REPS:-1}
	XC_MIN_TIME=${BENCH_XC_MIN_TIME:-0.02}
	XC_TOTAL=${BENCH_XC_TOTAL:-32768}
else
	ROUNDS=${BENCH_ROUNDS:-5}
	MIN_TIME=${BENCH_MIN_TIME:-0.025}
	ST_REPS=${BENCH_ST_REPS:-2}
	XC_MIN_TIME=${BENCH_XC_MIN_TIME:-0.2}
	XC_TOTAL=${BENCH_XC_TOTAL:-32768}
fi
CPUS=${BENCH_CPUS:-0,1}
RTE_ESIZE=${BENCH_RTE_ESIZE:-16}

die() { echo "bench/run.sh: $*" >&2; exit 2; }
command -v python3 >/dev/null || die "python3 is needed"

# ---- build when missing
missing=0
for e in "${EXES[@]}"; do [ -x "$BIN/$e" ] || missing=1; done
if [ $missing = 1 ]; then
	echo "bench/run.sh: building benchmarks in $BUILD" >&2
	if [ ! -f "$BUILD/build.ninja" ]; then
		meson setup "$BUILD" "$ROOT" -Dbench=true >&2 || die "meson setup failed"
	fi
	meson compile -C "$BUILD" "${EXES[@]}" >&2 || die "build failed"
fi

mkdir -p "$RESULTS"
TS=$(date +%Y%m%d-%H%M%S)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gvbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
: >"$WORK/steps.tsv"

# ---- the plan: one line per step (one benchmark process):
#   round kind exe filter min_time repetitions
# Single-thread rows: for each row, the selectable build (A) and the fixed
# build of the row's policy (B) back to back as A B B A, one process each
# (a process start costs a few ms), so the pair is measured ~0.1 s apart
# and a steady drift cancels; the row's per-round value for each build is
# the median of its repetitions in both processes.
# Cross-core rows: one process per round, rte_ring right before its rows.
list_rows() { # regex -> row names (without the /manual_time suffix), BENCH_FILTER applied
	"$BIN/gv_bench" --benchmark_list_tests --benchmark_filter="$1" | sed 's,/[a-z]*_time$,,' |
		{ if [ -n "${BENCH_FILTER:-}" ]; then grep -E -- "$BENCH_FILTER" || true; else cat; fi; }
}
mapfile -t st_rows < <(list_rows '^st/')
mapfile -t xc_rows < <(list_rows '^(xc|rte)/')
[ ${#st_rows[@]} -gt 0 ] || [ ${#xc_rows[@]} -gt 0 ] || die "no benchmark rows (BENCH_FILTER?)"
xc_filter="^($(IFS='|'; echo "${xc_rows[*]}"))(/|\$)"
plan=()
for r in $(seq 1 "$ROUNDS"); do
	for row in "${st_rows[@]}"; do
		case "$row" in
		*/mandatory/*) fx=gv_bench_fixed_mandatory ;;
		*) fx=gv_bench_fixed_smp ;;
		esac
		a="$r sel gv_bench ^$row(/|\$) $MIN_TIME $ST_REPS"
		b="$r fixed $fx ^$row(/|\$) $MIN_TIME $ST_REPS"
		plan+=("$a" "$b" "$b" "$a")
	done
	[ ${#xc_rows[@]} -gt 0 ] && plan+=("$r xc gv_bench $xc_filter $XC_MIN_TIME 1")
done
nsteps=${#plan[@]}

python3 - "$WORK/meta.json" <<EOF
import json, os, platform, sys
cpu = "?"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip(); break
except OSError:
    pass
load = open("/proc/loadavg").read().split()[0]
json.dump({"timestamp": "$TS", "loadavg_at_start": float(load), "rounds": $ROUNDS, "min_time": "$MIN_TIME", "st_reps": $ST_REPS,
           "xc_min_time": "$XC_MIN_TIME", "xc_total": $XC_TOTAL, "cpus": "$CPUS", "rte_esize": $RTE_ESIZE,
           "quick": "${BENCH_QUICK:-0}" == "1", "kernel": platform.release(),
           "cpu": cpu, "nproc": os.cpu_count()}, open(sys.argv[1], "w"), indent=1)
EOF

# The CPUs are shared: anything else running skews the numbers (the
# tables mark what it hit). Say so up front.
read -r load1 _ </proc/loadavg
if python3 -c "import sys; sys.exit(0 if float('$load1') > 0.5 else 1)"; then
	echo "bench/run.sh: warning: machine busy (load average $load1 on $(nproc) CPUs);" \
		"other processes will share the benchmark CPUs" >&2
fi

# ---- progress: one line on a terminal, one line per step otherwise
START=$SECONDS
if [ -t 2 ]; then TTY=1; else TTY=0; fi
progress() { # step total-rows done-rows text
	local el=$((SECONDS - START))
	local line
	line=$(printf '[%d/%d] %-28s %2s/%-2s %-32s %d:%02d' "$1" "$nsteps" "$2" "$3" "$4" "$5" \
		$((el / 60)) $((el % 60)))
	if [ $TTY = 1 ]; then
		printf '\r%-100.100s' "$line" >&2
	fi
}

step=0
prev_rnd=0
for p in "${plan[@]}"; do
	read -r rnd kind exe filter mt reps <<<"$p"
	step=$((step + 1))
	out="$WORK/step-$step.json"
	label="round $rnd/$ROUNDS $kind${exe#gv_bench}"
	nrows=$("$BIN/$exe" --benchmark_list_tests --benchmark_filter="$filter" 2>/dev/null | wc -l)
	[ "$nrows" -gt 0 ] || continue
	nrows=$((nrows * reps))
	# Without a terminal: a line per round and per cross-core step only.
	if [ $TTY = 0 ] && { [ "$kind" = xc ] || [ "$step" = 1 ] || [ "$prev_rnd" != "$rnd" ]; }; then
		printf '[%d/%d] round %d/%d %s %ds\n' "$step" "$nsteps" "$rnd" "$ROUNDS" \
			"$([ "$kind" = xc ] && echo cross-core || echo single-thread A/B)" \
			$((SECONDS - START)) >&2
	fi
	prev_rnd=$rnd
	progress "$step" "$label" 0 "$nrows" ""
	done_rows=0
	set +e
	rte_flag=()
	[ "$exe" = gv_bench ] && rte_flag=(--gvb_rte_esize="$RTE_ESIZE")
	"$BIN/$exe" --gvb_xc_total="$XC_TOTAL" --gvb_cpus="$CPUS" "${rte_flag[@]}" \
		--benchmark_filter="$filter" --benchmark_min_time="$mt" \
		--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=false \
		--benchmark_out="$out" --benchmark_out_format=json \
		--benchmark_format=console --benchmark_color=false 2>>"$WORK/stderr.log" |
		while IFS= read -r line; do
			case "$line" in
			st/*_mean* | st/*_median* | st/*_stddev* | st/*_cv*) ;;
			st/* | xc/* | rte/*)
				done_rows=$((done_rows + 1))
				name=${line%% *}
				progress "$step" "$label" "$done_rows" "$nrows" "${name%/*_time}"
				;;
			esac
		done
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" != 0 ]; then
		[ $TTY = 1 ] && echo >&2
		echo "bench/run.sh: $exe exited with $rc (stderr below)" >&2
		tail -20 "$WORK/stderr.log" >&2
	fi
	printf '%s\t%s\t%s\t%s\n' "$rnd" "$kind" "$exe" "$out" >>"$WORK/steps.tsv"
done
[ $TTY = 1 ] && printf '\r%-100s\r' "" >&2
echo "bench/run.sh: $nsteps steps in $((SECONDS - START)) s" >&2

# ---- merge, tables, plot
OUT="$RESULTS/$TS.json"
python3 "$REPORT" merge "$WORK" "$OUT"
cp "$OUT" "$RESULTS/latest.json.tmp" && mv "$RESULTS/latest.json.tmp" "$RESULTS/latest.json"
python3 "$REPORT" table "$OUT"
if python3 "$REPORT" plot "$OUT" "$RESULTS/latest.png"; then
	echo >&2
	echo "bench/run.sh: wrote $OUT, $RESULTS/latest.json, $RESULTS/latest.png" >&2
else
	echo "bench/run.sh: wrote $OUT, $RESULTS/latest.json (no plot)" >&2
fi
python3 - "$OUT" <<'EOF'
import json, sys
sys.exit(1 if json.load(open(sys.argv[1]))["summary"]["errors"] else 0)
EOF
