#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-mail.sh - check the mboxes of scripts/make-mail.sh: each part
# applies alone to the base with git am and gives the same change as
# that part of branch $SERIES_BRANCH.
#
# Usage: scripts/check-mail.sh [-h] [MAILDIR]
#
# The cover letter (no diff) is the one message git am may skip; any
# other stop fails.  Also checks [PATCH n/N] numbering and that every
# message has a To header.  Prints one PASS/FAIL line per part.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base

maildir=${1:-$WORK/mail}
AMTREE=${AMTREE:-$WORK/am}
ensure_worktree "$AMTREE"
am() { git -C "$AMTREE" -c user.name=x -c user.email=x@x "$@"; }

# shellcheck disable=SC2034 # read by part_range through a nameref
entries=()
read_series entries
# shellcheck disable=SC2034
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse "$BASE_TAG..$SERIES_BRANCH")
fails=0
for mbox in "$maildir"/*.mbox; do
	[ -e "$mbox" ] || continue
	part=$(basename "$mbox" .mbox)
	# The part's range on the series branch.
	first="" last=""
	read -r first last < <(part_range "$part" entries commits) || true
	total=$(grep -c '^From 0000000000000000000000000000000000000000 ' "$mbox")
	nums=$(grep -o '^Subject: \[PATCH[ 0-9/]*\]' "$mbox" | sed -e 's/.*PATCH \([0-9]*\)\/.*/\1/' -e 's/.*PATCH\]/-/' | paste -sd' ')
	# A lone patch is [PATCH]; a part with a cover letter [PATCH 0/N]...
	want=$(seq 0 $((total - 1)) | paste -sd' ')
	commits_in=$((total - 1))
	if [ "$total" -eq 1 ]; then
		want=- commits_in=1
	fi
	if [ "$nums" != "$want" ] || [ "$(grep -c '^To: .' "$mbox")" != "$total" ]; then
		echo "FAIL mail/$part: numbering or To headers wrong (subjects: $nums)"
		fails=$((fails + 1)); continue
	fi
	# Every header line is 'Name: value' or a folded continuation.
	bad=$(awk '/^From 0{40} /{h=1; next} h && /^$/{h=0} h && !/^[A-Za-z-]+: / && !/^[ \t]/' "$mbox" | head -n 1)
	if [ -n "$bad" ]; then
		echo "FAIL mail/$part: malformed header line: $bad"
		fails=$((fails + 1)); continue
	fi
	am am --abort >/dev/null 2>&1 || true
	am checkout -q -f --detach "$BASE_TAG"
	am clean -q -fdx
	skipped=0
	out=$(am am -q "$mbox" 2>&1) || true
	while [ -d "$(git -C "$AMTREE" rev-parse --git-path rebase-apply)" ]; do
		if grep -q 'Patch is empty' <<<"$out" && [ $skipped -eq 0 ]; then
			skipped=1
			out=$(am am -q --skip 2>&1) || true
		else
			am am --abort >/dev/null 2>&1 || true
			echo "FAIL mail/$part: git am stopped: $(printf '%s\n' "$out" | grep -m1 -E 'error|failed|empty')"
			fails=$((fails + 1)); continue 2
		fi
	done
	got=$(git -C "$AMTREE" diff "$BASE_TAG" HEAD | git patch-id --stable | cut -d' ' -f1)
	exp=$(git -C "$LINUX" diff "$first^" "$last" | git patch-id --stable | cut -d' ' -f1)
	n=$(git -C "$AMTREE" rev-list --count "$BASE_TAG..HEAD")
	if [ -n "$first" ] && [ "$got" = "$exp" ] && [ "$n" = "$commits_in" ]; then
		echo "PASS mail/$part: $n patches applied alone on the base with git am, same change as the series"
	else
		echo "FAIL mail/$part: applied $n commits; change differs from $part in $SERIES_BRANCH"
		fails=$((fails + 1))
	fi
done
[ -n "$(find "$maildir" -name '*.mbox' 2>/dev/null)" ] ||
	echo "SKIP mail: no mbox in $maildir (no part has a cover letter yet)"
exit $((fails > 0))
