#!/usr/bin/env bash
# scripts/build.sh DIR [meson setup arguments...]
#
# Configure DIR (relative to the repo) with the given arguments unless it is
# already configured with exactly those, then compile it. Safe to repeat:
# an up-to-date build dir costs a no-op ninja run; changed meson.build files
# are picked up by meson's own regeneration.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

[ $# -ge 1 ] || { echo "usage: $0 DIR [meson setup args...]" >&2; exit 2; }
dir=$1
shift
want=$(printf '%q ' "$@")
stamp=$dir/gv-setup-args

if [ -f "$dir/build.ninja" ] && [ -f "$dir/meson-private/coredata.dat" ] &&
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	: # configured with these arguments
else
	if [ -e "$dir" ]; then
		# Only ever wipe something that is a meson build dir (or empty).
		if [ -d "$dir/meson-private" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ]; then
			echo "build: re-creating $dir"
			rm -rf "$dir"
		else
			echo "build: $dir exists and is not a meson build dir; not touching it" >&2
			exit 1
		fi
	fi
	meson setup "$dir" "$@"
	printf '%s' "$want" >"$stamp"
fi
meson compile -C "$dir"
