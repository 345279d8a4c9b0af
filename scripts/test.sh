#!/usr/bin/env bash
# scripts/test.sh - THE test command: set up the machine, then
#   build/          release build (project defaults), meson test
#   build-asan/     ASan+UBSan debug build, meson test (GV_STRESS_SCALE=0.25)
#   build-aarch64/  cross build of the core only; its objects must be AArch64
#   build-fuzz/     clang libFuzzer targets (fuzz/), each run for a bounded
#                   time over its seeds + new inputs; one test per target
#   guest           tests/guest/run.sh core: net_gvirtio on virtio-net-pci
#                   NICs in QEMU guests (modern, packed, legacy, no-IOMMU;
#                   PVP: the NICs on vhost-user, a host net_vhost testpmd
#                   or OVS-DPDK);
#                   one test per case
# and end with one line "tests: N passed, M failed". Exits non-zero if
# anything failed (or nothing ran).
#
# GV_SOAK=1 in the environment reaches the stress test (long soak).
# GV_FUZZ_SECONDS=<s> sets each fuzz target's time (default 20).
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1

passed=0
failed=0
skipped=0
notes=()

fail() { # what
	echo "test: FAIL: $1"
	notes+=("FAIL: $1")
	failed=$((failed + 1))
}

# Counts results of one meson testlog.json into passed/failed/skipped.
count_testlog() { # dir
	local log=$1/meson-logs/testlog.json counts p f s
	if [ ! -s "$log" ]; then
		fail "$1: meson test ran no test (no $log)"
		return
	fi
	counts=$(python3 - "$log" <<'PY'
import json, sys
p = f = s = 0
bad = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    res = r.get("result", "")
    if res in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif res == "SKIP":
        s += 1
    else:
        f += 1
        bad.append("%s=%s" % (r.get("name", "?"), res))
print(p, f, s, ",".join(bad))
PY
	) || { fail "$1: cannot parse $log"; return; }
	read -r p f s bad <<<"$counts"
	echo "test: $1: OK $p, FAIL $f, SKIP $s${bad:+ ($bad)}"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	[ "$f" = 0 ] || notes+=("FAIL in $1: $bad")
}

run_meson_tests() { # dir [meson test args...]; environment set by caller
	local dir=$1
	shift
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --print-errorlogs "$@"
	count_testlog "$dir"
}

summary() {
	local n
	for n in "${notes[@]}"; do echo "test: $n"; done
	[ "$skipped" = 0 ] || echo "test: $skipped skipped"
	echo "tests: $passed passed, $failed failed"
	if [ "$failed" != 0 ]; then exit 1; fi
	if [ "$passed" = 0 ]; then
		echo "test: no test ran" >&2
		exit 1
	fi
	exit 0
}

echo "=== setup"
if ! bash scripts/setup.sh </dev/null; then
	fail "scripts/setup.sh"
	summary
fi

# (a) the normal build
echo "=== build/: release build, all tests"
if bash scripts/build.sh build; then
	run_meson_tests build
else
	fail "build of build/"
fi

# (b) sanitizers
echo "=== build-asan/: ASan+UBSan debug build, all tests"
if bash scripts/build.sh build-asan -Db_sanitize=address,undefined -Dbuildtype=debug \
	-Db_lundef=false -Dbench=false; then
	GV_STRESS_SCALE=0.25 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ASAN_OPTIONS=detect_leaks=1 \
		run_meson_tests build-asan --timeout-multiplier 3
else
	fail "build of build-asan/"
fi

# (c) the core cross-built for AArch64; the check counts as one test
echo "=== build-aarch64/: core cross-built for AArch64"
if bash scripts/build.sh build-aarch64 --cross-file scripts/cross/aarch64-linux-gnu.ini \
	-Dcore_only=true -Dtests=false -Dbench=false; then
	mapfile -t objs < <(find build-aarch64 \( -name '*.a' -o -name '*.o' \) \
		-not -path '*/meson-private/*' | sort)
	n_elf=0
	n_bad=0
	for o in "${objs[@]}"; do
		while read -r m; do
			n_elf=$((n_elf + 1))
			[ "$m" = AArch64 ] || { n_bad=$((n_bad + 1)); echo "test: $o: machine $m"; }
		done < <(readelf -h "$o" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	done
	if [ "$n_elf" -gt 0 ] && [ "$n_bad" = 0 ]; then
		echo "test: PASS aarch64-cross ($n_elf ELF objects in ${#objs[@]} files, all AArch64)"
		passed=$((passed + 1))
	else
		fail "aarch64-cross: $n_bad of $n_elf ELF objects are not AArch64"
	fi
else
	fail "aarch64-cross: build of build-aarch64/"
fi

# (d) libFuzzer targets: ASan+UBSan, each over fuzz/corpus/<target> plus
# new inputs for a bounded time (fuzz/run.sh); one test per target
fuzz_secs=${GV_FUZZ_SECONDS:-20}
echo "=== build-fuzz/: libFuzzer targets (clang), ${fuzz_secs} s each"
if CC=clang CXX=clang++ bash scripts/build.sh build-fuzz -Dfuzz=true -Dtests=false \
	-Dbench=false -Db_lundef=false; then
	GV_FUZZ_SECONDS=$fuzz_secs run_meson_tests build-fuzz --suite fuzz
	grep -h '^fuzz: ' build-fuzz/meson-logs/testlog.txt 2>/dev/null # executions per target
else
	fail "build of build-fuzz/"
fi

# (e) the PCI transport in QEMU guests (TCG): one test per core case
echo "=== guest: net_gvirtio on virtio-net-pci in QEMU (tests/guest/run.sh core)"
mkdir -p build
bash tests/guest/run.sh -b build core 2>&1 | tee build/guest-tests.log
g_pass=$(grep -c '^guest: PASS ' build/guest-tests.log)
g_fail=$(grep -c '^guest: FAIL ' build/guest-tests.log)
passed=$((passed + g_pass))
if [ $((g_pass + g_fail)) = 0 ]; then
	fail "guest: no case ran ($(grep -m1 'guest: error' build/guest-tests.log))"
elif [ "$g_fail" != 0 ]; then
	failed=$((failed + g_fail))
	notes+=("FAIL in guest: $(sed -n 's/^guest: FAIL \([^ ]*\).*/\1/p' build/guest-tests.log | paste -sd' ' -)")
fi

summary
