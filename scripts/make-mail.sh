#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make-mail.sh - write each part of the series as mail, prepared by b4.
#
# Usage: scripts/make-mail.sh [-h] [OUTDIR]
#
# For each part (a directory of the base's patch directory named in its
# series file) with a cover letter <part>/0000-cover-letter.patch, b4
# 0.12 prepares the part the way linux-mm expects it:
# 'b4 prep' enrolls a branch of the part's patches on the base, takes
# the cover letter's subject and text (b4 adds the shortlog, the
# diffstat and base-commit), fills To and Cc with the tree's
# get_maintainer.pl ('b4 prep --auto-to-cc': maintainers and reviewers
# in To, lists in Cc), and 'b4 send --output-dir' writes the messages,
# numbered and threaded, to OUTDIR/<part>/ (default: $WORK/mail).
# OUTDIR/<part>.mbox holds them as one mbox, for git am and b4 am.  A
# part whose banner says '# Depends: P' is prepared on top of part P
# (not sent again), and '# Prefix: RFC' puts RFC in its subjects.  A
# part of one patch is sent without a cover message: b4 puts the cover
# letter's text under the patch's cut line, as a note to the maintainer.
#
# Everything b4 does here works offline.  b4 would send through its web
# endpoint, which requires a patatt signature; with an SMTP server set
# for the run, --output-dir writes instead of sending and --no-sign
# leaves the messages unsigned (a key is the sender's, not the
# harness's).  The branches live in a scratch worktree and are deleted
# afterwards.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base
command -v b4 >/dev/null || die "b4 not found: run 'make deps' (Debian package b4)"

out=${1:-$WORK/mail}
MAILTREE=${MAILTREE:-$WORK/mailtree}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ensure_worktree "$MAILTREE"
entries=()
read_series entries
mapfile -t parts < <(printf '%s\n' "${entries[@]}" | sed -n 's|/.*||p' | awk '!seen[$0]++')

# The scratch branches are mail-BASE-PART; none outlives a run, and a
# run killed part way left its git am or its branch checked out, which
# the next one clears first.
tmp=
cleanup()
{
	git -C "$MAILTREE" am --abort >/dev/null 2>&1 || true
	git -C "$MAILTREE" checkout -q -f --detach "$BASE_TAG" 2>/dev/null || true
	git -C "$LINUX" for-each-ref --format='%(refname:short)' "refs/heads/mail-$BASE-*" |
		while read -r b; do git -C "$LINUX" branch -q -D "$b"; done
	[ -z "$tmp" ] || rm -rf "$tmp"
}
cleanup
tmp=$(mktemp -d)
trap cleanup EXIT

# b4 reads its settings with git config.  Only these count: no global
# or system file (a core.editor there would open an editor, a
# b4.send-prefixes would change every subject), the harness identity,
# the editor that writes the cover letter, b4's default cover-letter
# strategy, and an SMTP server that is never contacted (see above).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_COUNT=6
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=$SERIES_IDENT_NAME
export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=$SERIES_IDENT_EMAIL
export GIT_CONFIG_KEY_2=sendemail.smtpserver GIT_CONFIG_VALUE_2=localhost
export GIT_CONFIG_KEY_3=advice.detachedHead GIT_CONFIG_VALUE_3=false
export GIT_CONFIG_KEY_4=core.editor GIT_CONFIG_VALUE_4=$tmp/editor
export GIT_CONFIG_KEY_5=b4.prep-cover-strategy GIT_CONFIG_VALUE_5=commit
export GIT_AUTHOR_NAME=$SERIES_IDENT_NAME GIT_AUTHOR_EMAIL=$SERIES_IDENT_EMAIL
export GIT_COMMITTER_NAME=$SERIES_IDENT_NAME GIT_COMMITTER_EMAIL=$SERIES_IDENT_EMAIL

# cover_text COVER: the cover letter as b4 wants it, its subject on the
# first line without the [PATCH] prefix, then the text up to the
# shortlog (b4 writes its own).
cover_text()
{
	awk '
		hdr && /^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; insubj = 1; next }
		hdr && insubj && /^[ \t]/ { sub(/^[ \t]+/, " "); subj = subj $0; next }
		hdr && /^$/ { hdr = 0; print subj; print ""; next }
		hdr { insubj = 0; next }
		index($0, shortlog) == 1 && $0 ~ /\([0-9]+\):$/ { exit }
		{ body[++n] = $0 }
		END { while (n > 0 && body[n] == "") n--; for (i = 1; i <= n; i++) print body[i] }
	' hdr=1 shortlog="$SERIES_IDENT_NAME (" "$1"
}

deps=() prefix=() files=() dfiles=()
for part in "${parts[@]}"; do
	cover=$PATCHES/$part/0000-cover-letter.patch
	part_files "$part" entries files
	if [ ! -f "$cover" ]; then
		warn "$part: no cover letter ($cover); no mail written"
		continue
	fi
	cover_text "$cover" > "$tmp/cover"
	branch="mail-$BASE-$part"
	git -C "$MAILTREE" checkout -q -f -B "$branch" "$BASE_TAG"
	# A part that depends on others ('# Depends:' in its banner) is
	# mailed on top of them: they are applied first and are not sent;
	# b4 counts the part's own commits from there.
	part_keys depends "$part" deps
	for d in "${deps[@]}"; do
		part_files "$d" entries dfiles
		git -C "$MAILTREE" am -q "${dfiles[@]}" ||
			die "$part: part $d, which it depends on, does not apply on the base"
	done
	fork=$(git -C "$MAILTREE" rev-parse HEAD)
	git -C "$MAILTREE" am -q "${files[@]}" ||
		die "$part: its patches do not apply on the base${deps[*]:+ with ${deps[*]} under them}"
	part_keys prefix "$part" prefix
	# shellcheck disable=SC2016 # "$1" is the editor's own argument
	printf '#!/bin/sh\ncat %q > "$1"\n' "$tmp/cover" > "$tmp/editor"
	chmod +x "$tmp/editor"
	rm -rf "${out:?}/$part" "$out/$part.mbox"
	(
		cd "$MAILTREE"
		b4 -q prep -e "$fork"
		[ ${#prefix[@]} -eq 0 ] || b4 -q prep --set-prefixes "${prefix[@]}"
		b4 -q prep --edit-cover
		b4 -q prep --auto-to-cc
		b4 -q send --no-sign -o "$out/$part"
	) > "$tmp/b4.log" 2>&1 || { cat "$tmp/b4.log" >&2; die "$part: b4 failed"; }
	for f in "$out/$part"/*.eml; do
		# mboxrd: a 'From ' line opens each message.
		printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\n'
		sed 's/^\(>*From \)/>\1/' "$f"
		echo
	done > "$out/$part.mbox"
	n=$(find "$out/$part" -name '*.eml' | wc -l)
	log "$part: $out/$part.mbox ($n messages)"
done
