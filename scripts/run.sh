#!/usr/bin/env bash
# scripts/run.sh [ARGS...] - the main job: set up the machine, build build/,
# then run the virtqueue core's demo/benchmark (bench/run.sh ARGS...).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

bash scripts/setup.sh
bash scripts/build.sh build
if [ ! -f bench/run.sh ]; then
	echo "run: bench/run.sh is missing" >&2
	exit 1
fi
exec bash bench/run.sh "$@"
