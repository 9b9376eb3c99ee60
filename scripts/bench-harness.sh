#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-harness.sh - the harness's own speed, as issue 18 measures it.
#
# Usage: scripts/bench-harness.sh [-h] [SCENARIO...]
#
# Each scenario runs in a fresh clone of this repository's HEAD under
# $WORK/bench-harness/, and prints its wall time, its CPU time (user and
# system, children included) and its last result line:
#
#   cold-test    make test, empty ccache and verdict cache
#   warm-test    make test, the caches this machine has
#   cold-check   make check, empty ccache and verdict cache
#   edit-check   make check after one comment line of a middle zsdesc
#                patch changed (applied, then exported, as the README
#                says to edit a patch), caches kept
#
# Default: warm-test edit-check (the two that fit a session; a cold
# scenario takes over an hour on 2 cores).  Packages are those of the
# machine: install them first (make deps).  Not a test: it judges
# nothing, it measures.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

[ $# -gt 0 ] || set -- warm-test edit-check
root=$WORK/bench-harness
mkdir -p "$root"
head=$(git -C "$TOP" rev-parse --short HEAD)

# run NAME TARGET [ENV...]: a fresh clone, TARGET timed in it.
run()
{
	local name=$1 target=$2 dir t0 t1 times
	shift 2
	dir=$root/$name
	rm -rf "$dir"
	git clone -q "$TOP" "$dir"
	[ -z "${EDIT:-}" ] || edit_patch "$dir"
	log "$name: make $target in $dir (HEAD $head) $*"
	t0=$(date +%s)
	times=$dir.times
	set +e
	env "$@" /usr/bin/time -f '%e %U %S' -o "$times" make -C "$dir" "$target" >"$dir.log" 2>&1
	local rc=$?
	set -e
	t1=$(date +%s)
	# GNU time writes "Command exited with non-zero status N" first
	# when the target failed: the times are its last line.
	read -r wall user sys < <(tail -n 1 "$times")
	printf '%-11s %6.1f min wall, %6.1f CPU-min (user %.1f, system %.1f), exit %d: %s\n' \
		"$name" "$(bc -l <<<"($t1 - $t0) / 60")" "$(bc -l <<<"($user + $sys) / 60")" \
		"$(bc -l <<<"$user / 60")" "$(bc -l <<<"$sys / 60")" "$rc" \
		"$(tail -n 1 "$dir.log")"
	: "$wall"
}

# edit_patch DIR: change one comment line in the middle zsdesc patch
# the way the README says: as a commit, then make export.
edit_patch()
{
	local dir=$1 mid file
	mid=$(grep -c '^zsdesc/' "$dir/series")
	file=$(grep '^zsdesc/' "$dir/series" | sed -n "$(( (mid + 1) / 2 ))p")
	# The first added C comment of the patch gets one more word.
	sed -i '0,/^\(+.*\)\/\* /s//\1\/* (edited) /' "$dir/patches/$file"
	! git -C "$dir" diff --quiet -- patches || die "no comment line to edit in $file"
	log "edited $file; make apply export brings its index lines in line"
	make -C "$dir" apply export >/dev/null
}

for s in "$@"; do
	case $s in
	cold-test) run "$s" test CCACHE_DIR="$root/ccache-$s" VERDICT_CACHE="$root/verdicts-$s" ;;
	cold-check) run "$s" check CCACHE_DIR="$root/ccache-$s" VERDICT_CACHE="$root/verdicts-$s" ;;
	warm-test) run "$s" test ;;
	edit-check) EDIT=1 run "$s" check ;;
	*) die "unknown scenario '$s' (cold-test, warm-test, cold-check, edit-check)" ;;
	esac
done
