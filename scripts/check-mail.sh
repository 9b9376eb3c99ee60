#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-mail.sh - check the mail of scripts/make-mail.sh the way a
# maintainer takes it: 'b4 am' turns each part's mbox back into a
# series, and that applies alone to the base with git am, giving the
# same change as that part of branch $SERIES_BRANCH.  A part whose
# banner says '# Depends: P' applies on the base with part P's patches
# under it, and its subjects carry the words of its '# Prefix:'.
#
# Usage: scripts/check-mail.sh [-h] [MAILDIR]
#
# Also checks the [PATCH n/N] numbering and that every message has a
# To header.  Prints one PASS/FAIL line per part.
#
# b4 0.12 under Python 3.11 cannot copy a folded Subject header (it
# raises "Header values may not contain linefeed"), and b4 folds every
# long one it writes: the mbox is unfolded first, which RFC 5322 defines
# as the same header value.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base

maildir=${1:-$WORK/mail}
AMTREE=${AMTREE:-$WORK/am}
ensure_worktree "$AMTREE"
am() { git -C "$AMTREE" -c user.name=x -c user.email=x@x "$@"; }
if ! command -v b4 >/dev/null; then
	echo "FAIL mail: b4 not found: run 'make deps' (Debian package b4)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The checker's contract: its lines say what failed.  A command that
# stops the script must say so too, not leave a status 1 without a line.
trap 'echo "FAIL mail: check-mail.sh stopped at line $LINENO"' ERR

# shellcheck disable=SC2034 # read by part_range through a nameref
entries=() deps=() prefix=() dfiles=()
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
	total=$(grep -c '^From mboxrd@z ' "$mbox" || true)
	part_keys depends "$part" deps
	part_keys prefix "$part" prefix
	# n/N of every subject, without b4's zero padding; the words in its
	# brackets besides n/N must be PATCH and the part's prefix ('#
	# Prefix:' in its banner), in any order.
	tag=$(printf '%s\n' PATCH "${prefix[@]}" | sort | paste -sd' ')
	nums=$({ grep -o '^Subject: \[[^]]*\]' "$mbox" || true; } |
		while read -r _ words; do
			words=${words#[} words=${words%]}
			num=- other=()
			for w in $words; do
				case $w in
				*[0-9]/*[0-9]) num=$(sed 's|^0*\([0-9]\)|\1|; s|/0*\([0-9]\)|/\1|' <<<"$w") ;;
				*) other+=("$w") ;;
				esac
			done
			[ "$(printf '%s\n' "${other[@]}" | sort | paste -sd' ')" = "$tag" ] || num="[$words]"
			echo "$num"
		done | paste -sd' ')
	# A lone patch is [PATCH]; a part with a cover letter [PATCH 0/N]
	# to [PATCH N/N], all N+1 of them.
	want=$(seq 0 $((total - 1)) | sed "s|\$|/$((total - 1))|" | paste -sd' ')
	commits_in=$((total - 1))
	if [ "$total" -eq 1 ]; then
		want=- commits_in=1
	fi
	if [ "$nums" != "$want" ] || [ "$(grep -c '^To: .' "$mbox")" != "$total" ]; then
		echo "FAIL mail/$part: numbering or To headers wrong (subjects: $nums)"
		fails=$((fails + 1)); continue
	fi
	# Every header line is 'Name: value' or a folded continuation.
	bad=$(awk '/^From mboxrd@z /{h=1; next} h && /^$/{h=0} h && !/^[A-Za-z0-9-]+: / && !/^[ \t]/' "$mbox" | head -n 1)
	if [ -n "$bad" ]; then
		echo "FAIL mail/$part: malformed header line: $bad"
		fails=$((fails + 1)); continue
	fi
	rm -rf "$tmp/am" && mkdir -p "$tmp/am"
	awk '/^From mboxrd@z /{h=1; print; next}
	     h && /^$/{h=0; if (line != "") print line; line=""; print; next}
	     h && /^[ \t]/{sub(/^[ \t]+/, " "); line = line $0; next}
	     h {if (line != "") print line; line=$0; next}
	     {print}' "$mbox" > "$tmp/unfolded.mbox"
	if ! (cd "$AMTREE" && b4 -q am -m "$tmp/unfolded.mbox" -o "$tmp/am") >"$tmp/b4.log" 2>&1; then
		echo "FAIL mail/$part: b4 am could not read the mbox: $(grep -m1 -E 'Error|CRITICAL' "$tmp/b4.log")"
		fails=$((fails + 1)); continue
	fi
	mbx=$(find "$tmp/am" -name '*.mbx' | head -n 1)
	if [ -z "$mbx" ]; then
		echo "FAIL mail/$part: b4 am wrote no series"
		fails=$((fails + 1)); continue
	fi
	am am --abort >/dev/null 2>&1 || true
	am checkout -q -f --detach "$BASE_TAG"
	am clean -q -fdx
	# The parts this one depends on go under it, as the series has them.
	under_ok=1
	for d in "${deps[@]}"; do
		part_files "$d" entries dfiles
		if ! am am -q "${dfiles[@]}" >/dev/null 2>&1; then
			am am --abort >/dev/null 2>&1 || true
			under_ok=0
			echo "FAIL mail/$part: part $d, which it depends on, does not apply on the base"
			break
		fi
	done
	[ "$under_ok" = 1 ] || { fails=$((fails + 1)); continue; }
	under=$(git -C "$AMTREE" rev-parse HEAD)
	if ! out=$(am am -q "$mbx" 2>&1); then
		am am --abort >/dev/null 2>&1 || true
		echo "FAIL mail/$part: git am of b4's series stopped: $(printf '%s\n' "$out" | grep -m1 -E 'error|failed|empty')"
		fails=$((fails + 1)); continue
	fi
	got=$(git -C "$AMTREE" diff "$under" HEAD | git patch-id --stable | cut -d' ' -f1)
	exp=$(git -C "$LINUX" diff "$first^" "$last" | git patch-id --stable | cut -d' ' -f1)
	n=$(git -C "$AMTREE" rev-list --count "$under..HEAD")
	if [ -n "$first" ] && [ "$got" = "$exp" ] && [ "$n" = "$commits_in" ]; then
		where="alone on the base"
		[ ${#deps[@]} -eq 0 ] || where="on the base with ${deps[*]} under them"
		echo "PASS mail/$part: b4 am of the mbox gives $n patches that apply $where, same change as the series"
	else
		echo "FAIL mail/$part: applied $n commits; change differs from $part in $SERIES_BRANCH"
		fails=$((fails + 1))
	fi
done
[ -n "$(find "$maildir" -name '*.mbox' 2>/dev/null)" ] ||
	echo "SKIP mail: no mbox in $maildir (no part has a cover letter yet)"
exit $((fails > 0))
