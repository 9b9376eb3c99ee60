#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# apply-series.sh - apply the patches listed in 'series' to the base with
# git am, one commit per patch, on the branch $SERIES_BRANCH.
#
# Usage: scripts/apply-series.sh [-h]
#
# The branch is built on a scratch branch first and only replaces
# $SERIES_BRANCH when every patch applied.  A patch that does not apply
# stops the run with its name and the first failing file and hunk; the
# base, the previous $SERIES_BRANCH and the work tree are left as they
# were.  A base work tree with local changes is refused.  What an apply
# killed with SIGKILL left (its git am, an index lock, its scratch
# branch) is repaired first, and the run says so.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

require_base
# One apply at a time in the repository.  An apply writes its pid to
# a marker while it works and removes it when it ends, whatever the
# outcome; a marker found under the lock is an apply that was killed
# (SIGKILL, or the machine stopped).  Only then, and only what that
# apply made, is repaired: its git am, the index lock it held, its
# scratch branch.  Anything else (a rebase of your own in work/linux)
# is left alone, and the check for local changes below names it.
exec {apply_lock}>>"$LINUX/.git/harness-apply.lock"
flock -n "$apply_lock" || die "another apply is running in $LINUX; wait for it"
marker=$LINUX/.git/harness-apply.pid
if [ -s "$marker" ]; then
	dead=$(cat "$marker")
	"$HARNESS" repair --am "$LINUX"
	b=$SERIES_BRANCH-apply-$dead
	if git -C "$LINUX" rev-parse -q --verify "refs/heads/$b" >/dev/null; then
		[ "$(git -C "$LINUX" symbolic-ref -q --short HEAD)" != "$b" ] ||
			git_linux checkout -q -f --detach "$BASE_TAG"
		git_linux branch -q -D "$b"
		log "repaired: deleted $b, the scratch branch of the killed apply (pid $dead)"
	fi
	rm -f "$marker"
fi
require_clean "$LINUX"

entries=()
read_series entries
for e in "${entries[@]}"; do
	[ -f "$PATCHES/$e" ] || die "series lists $e, but $PATCHES/$e does not exist"
done

scratch="$SERIES_BRANCH-apply-$$"
prev=$(git -C "$LINUX" symbolic-ref -q --short HEAD || git -C "$LINUX" rev-parse HEAD)

cleanup()
{
	git_linux am --abort >/dev/null 2>&1 || true
	git_linux checkout -q -f "$prev" 2>/dev/null || true
	git_linux branch -q -D "$scratch" 2>/dev/null || true
	rm -f "$marker"
}
trap cleanup EXIT
echo $$ >"$marker"

git_linux checkout -q -b "$scratch" "$BASE_TAG"

n=0
for e in "${entries[@]}"; do
	n=$((n + 1))
	log "[$n/${#entries[@]}] $e"
	if ! out=$(git_linux am -q --committer-date-is-author-date \
			"$PATCHES/$e" 2>&1); then
		where=$(printf '%s\n' "$out" | sed -n \
			-e 's/^error: patch failed: \(.*\)$/\1/p' \
			-e 's/^error: \(.*\): does not exist in index$/\1 (missing)/p' \
			-e 's/^error: \(.*\): already exists in index$/\1 (exists)/p' |
			head -n 1)
		printf '%s\n' "$out" | sed 's/^/  /' >&2
		die "patch $e does not apply at ${where:-unknown location}
reproduce: git -C $LINUX checkout --detach $(git -C "$LINUX" rev-parse --short HEAD) && git -C $LINUX am $PATCHES/$e"
	fi
done

trap - EXIT
rm -f "$marker"
git_linux branch -q -M "$scratch" "$SERIES_BRANCH"
log "applied $n patches: $SERIES_BRANCH is $(git -C "$LINUX" rev-parse --short "$SERIES_BRANCH")"
