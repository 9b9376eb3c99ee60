#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make-mail.sh - write a ready-to-send mbox per part of the series.
#
# Usage: scripts/make-mail.sh [-h] [OUTDIR]
#
# For each part (a directory under patches/ named in 'series') with a
# cover letter patches/<part>/0000-cover-letter.patch, writes
# OUTDIR/<part>.mbox (default: $WORK/mail): the cover letter as
# [PATCH 0/N], then the part's patches as [PATCH n/N], threaded under
# the cover letter.  A part of one patch needs no cover letter: its
# mbox holds that patch alone, as [PATCH].  To and Cc come from the base tree's
# scripts/get_maintainer.pl run on the part's patches without git
# history: maintainers and reviewers in To, mailing lists in Cc.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base

out=${1:-$WORK/mail}
mkdir -p "$out"
entries=()
read_series entries
mapfile -t parts < <(printf '%s\n' "${entries[@]}" | sed -n 's|/.*||p' | awk '!seen[$0]++')

get_maintainer()
{
	(cd "$LINUX" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-tree "$@") | paste -sd, - | sed 's/,/, /g'
}

for part in "${parts[@]}"; do
	cover=$PATCHES/$part/0000-cover-letter.patch
	mapfile -t files < <(printf '%s\n' "${entries[@]}" | grep "^$part/" | sed "s|^|$PATCHES/|")
	total=${#files[@]}
	if [ -f "$cover" ]; then
		msgs=("$cover" "${files[@]}") n=0
	elif [ "$total" -eq 1 ]; then
		msgs=("${files[@]}") n=1
	else
		warn "$part: no cover letter ($cover); no mbox written"
		continue
	fi
	to=$(get_maintainer --no-l "${files[@]}")
	cc=$(get_maintainer --no-m --no-r "${files[@]}")
	msgid_base="$part.$(sha1sum "${msgs[@]}" | sha1sum | cut -c1-16)"
	parent=""
	[ "$n" -eq 1 ] || parent="<$msgid_base.0@seed-94165a68.example>"
	mbox=$out/$part.mbox
	: > "$mbox"
	for f in "${msgs[@]}"; do
		tag="PATCH $n/$total"
		[ -n "$parent" ] || tag=PATCH
		# Number the subject, add addresses and threading after the
		# Subject header (and its folded continuation lines).
		awk -v tag="$tag" -v to="$to" -v cc="$cc" \
		    -v id="<$msgid_base.$n@seed-94165a68.example>" -v parent="$parent" '
			BEGIN { hdr = 1; insubj = 0 }
			function extra() {
				print "To: " to
				if (cc != "") print "Cc: " cc
				print "Message-Id: " id
				if (parent != "" && id != parent) {
					print "In-Reply-To: " parent
					print "References: " parent
				}
			}
			hdr && insubj && /^[ \t]/ { print; next }
			hdr && insubj { insubj = 0; extra() }
			hdr && /^Subject: / {
				sub(/^Subject: \[PATCH[^]]*\]/, "Subject: [" tag "]")
				print; insubj = 1; next
			}
			hdr && /^$/ { hdr = 0 }
			{ print }
		' "$f" >> "$mbox"
		n=$((n + 1))
	done
	log "$part: $mbox ($total patches${parent:+ + cover letter})"
	log "  To: $to"
	log "  Cc: $cc"
done
