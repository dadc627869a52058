#!/usr/bin/env bash
# An upper bound, alternated with the real build: the service with one guaranteed cost taken
# out (a patch in this folder), then `npm run bench` on the runs the patch names, real build
# first, pair after pair. What each bound removes is said at the top of its patch.
#
#   bash bench/bounds/run.sh <bound> [pairs]     e.g. bash bench/bounds/run.sh converge-write 2
#
# BENCH_ROUNDS and BENCH_SECONDS default to the README's 3 and 5. The bound is built from
# HEAD in a temporary worktree, so the checkout must have no uncommitted change to what
# either build runs (src/, bench/, the TypeScript and npm manifests; Markdown aside).
# Logs and JSON reports: bench/results/bounds/<time>-<bound>/<pair>-{real,bound}.{log,json}.
set -euo pipefail
cd "$(dirname "$0")/../.."

bound=${1:-}
pairs=${2:-2}
patch="bench/bounds/$bound.patch"
if [ -z "$bound" ] || [ ! -f "$patch" ] || [[ ! $pairs =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: bash bench/bounds/run.sh <bound> [pairs]; bounds:" \
    "$(basename -s .patch bench/bounds/*.patch | tr '\n' ' ')" >&2
  exit 2
fi
runs=$(sed -n 's/^runs: //p' "$patch")
if [ -z "$runs" ]; then
  echo "$patch has no 'runs:' line naming the bench runs that measure it" >&2
  exit 2
fi
changed=$(git status --porcelain --untracked-files=all -- src bench tsconfig.json \
  tsconfig.build.json package.json package-lock.json ':!bench/results' ':!bench/bounds' ':!*.md')
if [ -n "$changed" ]; then
  echo "uncommitted changes: the bound is built from HEAD, so the pair would differ in more than the bound:" >&2
  echo "$changed" >&2
  exit 2
fi
export BENCH_ROUNDS=${BENCH_ROUNDS:-3} BENCH_SECONDS=${BENCH_SECONDS:-5}

scratch=$(mktemp -d)
tree=$scratch/bound
git worktree add --detach "$tree" HEAD > /dev/null
trap 'git worktree remove --force "$tree"; rm -rf "$scratch"' EXIT
ln -s "$PWD/node_modules" "$tree/node_modules"
# The console's build is not in git; without it the bound would serve the console's stubs.
if [ -d dist-console ]; then ln -s "$PWD/dist-console" "$tree/dist-console"; fi
git -C "$tree" apply "$PWD/$patch"
npm run --silent build
(cd "$tree" && npx tsc -p tsconfig.build.json)

out="bench/results/bounds/$(date -u +%Y%m%dT%H%M%SZ)-$bound"
mkdir -p "$out"
for pair in $(seq 1 "$pairs"); do
  for build in real bound; do
    dir=.
    [ "$build" = bound ] && dir=$tree
    log="$out/$pair-$build.log"
    echo "== pair $pair, $build build ($log)"
    if ! (cd "$dir" && BENCH_SKIP_BUILD=1 BENCH_ONLY=$runs npm run bench) > "$log" 2>&1; then
      echo "   the bench failed: see $log" >&2
      exit 1
    fi
    cp "$dir/bench/results/latest.json" "$out/$pair-$build.json"
    grep -E '(PASS|FAIL) *$' "$log" || echo "   no verdict: see the log"
  done
done
