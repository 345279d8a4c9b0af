#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/core_ipd.sh - instructions per descriptor of the core's streaming
# verbs (driver post / reclaim, device take / return, burst verbs) and of
# the rte_ring SPSC reference, counted by callgrind: exact and
# repeatable, unlike the cross-core timings on a shared machine.
#
#   bash bench/core_ipd.sh              burst 32
#   BURST=8 bash bench/core_ipd.sh
#
# Runs build/bench/gv_core_ipd (bench/gv_core_ipd.c) under valgrind
# --tool=callgrind once per case and prints each side's functions'
# inclusive instructions / descriptors. Environment: BURST (32),
# BUILD_DIR (build).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
EXE=$BUILD/bench/gv_core_ipd
BURST=${BURST:-32}
command -v valgrind >/dev/null || { echo "core_ipd.sh: valgrind is needed" >&2; exit 2; }
[ -x "$EXE" ] || meson compile -C "$BUILD" gv_core_ipd >&2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gvipd.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

printf '| case | drv post | drv reclaim | dev take | dev return | driver total | device total |\n'
printf '|---|---|---|---|---|---|---|\n'
for c in "vq split" "vq packed" "rte 16" "rte 8"; do
	read -r mode arg <<<"$c"
	out=$WORK/cg.$mode.$arg
	descs=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$EXE" "$mode" "$arg" "$BURST" 2>/dev/null |
		sed -n 's/^descriptors \([0-9]*\).*/\1/p')
	[ -n "$descs" ] || { echo "core_ipd.sh: $c failed" >&2; exit 1; }
	callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null |
		python3 -c '
import re, sys
n, label = float(sys.argv[1]), sys.argv[2]
want = {"drv_post_split": 0, "drv_post_packed": 0, "drv_enq16": 0, "drv_enq8": 0,
        "drv_reclaim_split": 1, "drv_reclaim_packed": 1, "drv_deq16": 1, "drv_deq8": 1,
        "dev_take": 2, "dev_move16": 2, "dev_move8": 2, "dev_return": 3}
v = [None] * 4
for l in sys.stdin:
    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*:(\w+)", l)
    if m and m.group(2) in want and v[want[m.group(2)]] is None:
        v[want[m.group(2)]] = int(m.group(1).replace(",", "")) / n
f = lambda x: "-" if x is None else "%.1f" % x
drv = (v[0] or 0) + (v[1] or 0)
dev = (v[2] or 0) + (v[3] or 0)
print("| %s | %s | %s | %s | %s | %.1f | %.1f |" % (label, f(v[0]), f(v[1]), f(v[2]), f(v[3]), drv, dev))
' "$descs" "$c"
done
echo "(burst $BURST, ring 256, one thread; rte: dev take = dequeue + enqueue)"
