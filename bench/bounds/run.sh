#!/usr/bin/env bash
# An upper bound, alternated with the real build: the service with one guaranteed cost taken
# out (a patch in this folder), then `npm run bench` on the runs the patch names, real build
# first, pair after pair. What each bound removes is said at the top of its patch.
#
#   bash bench/bounds/run.sh <bound> [pairs]     e.g. bash bench/bounds/run.sh converge-write 2
#
# BENCH_ROUNDS and BENCH_SECONDS default to the README's 3 and 5. The bound is built from
# HEAD in a temporary worktree, so the checkout must have no uncommitted change under src/.
# Logs: bench/results/bounds/<bound>-<pair>-{real,bound}.log.
set -euo pipefail
cd "$(dirname "$0")/../.."

bound=${1:-}
pairs=${2:-2}
patch="bench/bounds/$bound.patch"
if [ -z "$bound" ] || [ ! -f "$patch" ]; then
  echo "usage: bash bench/bounds/run.sh <bound> [pairs]; bounds:" \
    "$(basename -s .patch bench/bounds/*.patch | tr '\n' ' ')" >&2
  exit 2
fi
if ! git diff --quiet HEAD -- src; then
  echo "src/ has uncommitted changes: the bound is built from HEAD, so the pair would differ in more than the bound" >&2
  exit 2
fi
runs=$(sed -n 's/^runs: //p' "$patch")
export BENCH_ROUNDS=${BENCH_ROUNDS:-3} BENCH_SECONDS=${BENCH_SECONDS:-5}

tree=$(mktemp -d)/bound
git worktree add --detach "$tree" HEAD > /dev/null
trap 'git worktree remove --force "$tree"' EXIT
ln -s "$PWD/node_modules" "$tree/node_modules"
git -C "$tree" apply "$PWD/$patch"
npm run --silent build
(cd "$tree" && npx tsc -p tsconfig.build.json)

out=bench/results/bounds
mkdir -p "$out"
for pair in $(seq 1 "$pairs"); do
  for build in real bound; do
    dir=.
    [ "$build" = bound ] && dir=$tree
    log="$out/$bound-$pair-$build.log"
    (cd "$dir" && BENCH_SKIP_BUILD=1 BENCH_ONLY=$runs npm run bench) > "$log" 2>&1
    echo "== pair $pair, $build build ($log)"
    grep -E '(PASS|FAIL) *$' "$log" || echo "   no verdict: see the log"
  done
done
