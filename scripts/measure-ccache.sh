#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# measure-ccache.sh - time one matrix run cold and again warm from a
# checkout at another path, to show that ccache hits across paths.
#
# Usage: scripts/measure-ccache.sh [-h] [CONFIG] [STEPS]
#
# Runs 'harness matrix' --configs CONFIG (default x86_64) --steps STEPS
# (default final) twice, each in a fresh work directory under /tmp with
# its own worktree and build directory, sharing a private, initially
# empty ccache.  Prints both times and the ratio.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base

config=${1:-x86_64}
steps=${2:-final}
tmp=$(mktemp -d /tmp/measure-ccache.XXXXXX)
cleanup()
{
	for w in "$tmp"/cold "$tmp"/warm-at-another-path; do
		git -C "$LINUX" worktree remove -f "$w/tree" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

run_once()
{
	local w=$tmp/$1 t0
	t0=$(date +%s)
	NO_CACHE=1 LINUX=$LINUX WORK=$w TREE=$w/tree BUILD=$w/build RESULTS=$w/results CCACHE_DIR=$tmp/ccache \
		"$TOP/scripts/harness" matrix -j"${JOBS:-$(nproc)}" --configs "$config" \
		--steps "$steps" >"$w.log" 2>&1 || { cat "$w.log" >&2; die "$1 run failed"; }
	echo $(( $(date +%s) - t0 ))
}

mkdir -p "$tmp/ccache"
cold=$(run_once cold)
warm=$(run_once warm-at-another-path)
log "config $config, steps $steps: cold ${cold}s, warm (other path) ${warm}s"
log "ccache: $(CCACHE_DIR=$tmp/ccache ccache -s | grep -E 'Hits|Misses' | tr -s ' ' | paste -sd';' -)"
awk -v c="$cold" -v w="$warm" 'BEGIN { printf "speed-up: %.1fx\n", c / (w ? w : 1) }'
