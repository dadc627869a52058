#!/usr/bin/env bash
# An upper bound, alternated with the real service: the same build started with
# BENCH_BOUND=<bound>, which takes one guaranteed cost out (bench/README.md, Upper bounds),
# then `npm run bench` on the runs that measure it (bench/bounds/bounds.ts), the real service
# first, pair after pair.
#
#   bash bench/bounds/run.sh <bound> [pairs]     e.g. bash bench/bounds/run.sh converge-write 2
#
# BENCH_ROUNDS and BENCH_SECONDS default to the README's 3 and 5. Both halves of a pair run
# the one build of the working tree, so they differ in the setting alone.
# Logs and JSON reports: bench/results/bounds/<time>-<bound>/<pair>-{real,bound}.{log,json}.
set -euo pipefail
cd "$(dirname "$0")/../.."

bound=${1:-}
pairs=${2:-2}
if [ -z "$bound" ] || [[ ! $pairs =~ ^[1-9][0-9]*$ ]] || ! runs=$(npx tsx bench/bounds/bounds.ts "$bound"); then
  echo "usage: bash bench/bounds/run.sh <bound> [pairs]" >&2
  exit 2
fi
export BENCH_ROUNDS=${BENCH_ROUNDS:-3} BENCH_SECONDS=${BENCH_SECONDS:-5}
unset BENCH_BOUND
npm run --silent build

out="bench/results/bounds/$(date -u +%Y%m%dT%H%M%SZ)-$bound"
mkdir -p "$out"
for pair in $(seq 1 "$pairs"); do
  for build in real bound; do
    setting=()
    [ "$build" = bound ] && setting=(BENCH_BOUND="$bound")
    log="$out/$pair-$build.log"
    echo "== pair $pair, $build service ($log)"
    if ! env "${setting[@]}" BENCH_SKIP_BUILD=1 BENCH_ONLY="$runs" npm run bench > "$log" 2>&1; then
      echo "   the bench failed: see $log" >&2
      exit 1
    fi
    cp bench/results/latest.json "$out/$pair-$build.json"
    grep -E '(PASS|FAIL) *$' "$log" || echo "   no verdict: see the log"
  done
done
