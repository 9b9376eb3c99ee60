#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-quilt.sh - apply 'series' with quilt to a pristine copy of the
# base, with no fuzz, and check that the result is the same tree as the
# git am branch.
#
# Usage: scripts/check-quilt.sh [-h]
#
# The pristine copy is a detached git worktree of the base at
# $WORK/quilt, reset before every run.  Needs 'make apply' first.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base
command -v quilt >/dev/null || die "quilt not found (scripts/install-deps.sh installs it)"

QTREE=${QTREE:-$WORK/quilt}
ensure_worktree "$QTREE"
git -C "$QTREE" checkout -q -f --detach "$BASE_TAG"
git -C "$QTREE" clean -q -fdx

n=$(series_entries | wc -l)
log "quilt push -a --fuzz=0 of $n patches in $QTREE"
if [ "$n" -gt 0 ]; then
	if ! out=$(cd "$QTREE" && QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES \
			QUILT_PC=.pc quilt push -a --fuzz=0 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/  /' >&2
		die "quilt push failed at $(printf '%s\n' "$out" | sed -n 's/^Applying patch //p' | tail -n 1)
reproduce: cd $QTREE && QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES quilt push -a --fuzz=0"
	fi
	if grep -q 'with fuzz' <<<"$out"; then
		die "quilt applied with fuzz:
$(printf '%s\n' "$out" | grep -B3 'with fuzz')"
	fi
fi

# Compare with the git am result, ignoring quilt's own .pc directory.
rm -rf "$QTREE/.pc"
git -C "$QTREE" add -A -f
if ! git -C "$QTREE" diff --cached --quiet "$SERIES_BRANCH"; then
	git -C "$QTREE" diff --cached --stat "$SERIES_BRANCH" | tail -n 5 >&2
	die "the quilt tree differs from branch $SERIES_BRANCH (git am)"
fi
git -C "$QTREE" reset -q
log "quilt result matches $SERIES_BRANCH"
