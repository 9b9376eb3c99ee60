#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# export-series.sh - regenerate patches/ and 'series' from the commits
# base..$SERIES_BRANCH.
#
# Usage: scripts/export-series.sh [-h] [OUTDIR]
#
# The Nth commit replaces the Nth entry of 'series' and keeps its part
# directory and its place among the banner comments; commits beyond the
# listed entries are appended to the last part.  Each patch is made with
# git format-patch --base=base, so it names the base commit (and the
# patch ids of the patches it needs before it).  Cover letters
# (*/0000-cover-letter.patch) are kept.  The base's own series file and
# patch directory are written ($SERIES, $PATCHES: 'series' and patches/
# for 6.1); with OUTDIR, OUTDIR/series and OUTDIR/patches instead.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

if [ $# -gt 0 ]; then
	out_series=$1/series out_patches=$1/patches
else
	out_series=$SERIES out_patches=$PATCHES
fi
require_base
git -C "$LINUX" rev-parse -q --verify "refs/heads/$SERIES_BRANCH" >/dev/null ||
	die "no branch $SERIES_BRANCH in $LINUX; run 'make apply' first"

entries=()
read_series entries
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse "$BASE_TAG..$SERIES_BRANCH")
[ "$(git -C "$LINUX" rev-list --merges "$BASE_TAG..$SERIES_BRANCH" | wc -l)" = 0 ] ||
	die "$SERIES_BRANCH contains merges; a patch series must be linear"
[ ${#commits[@]} -ge ${#entries[@]} ] ||
	die "$SERIES_BRANCH has ${#commits[@]} commits but series lists ${#entries[@]} patches"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/patches"

# Fixed diff settings, so that the output does not depend on the
# user's git configuration.
fp()
{
	git -C "$LINUX" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c diff.renames=true -c diff.algorithm=myers \
		-c format.signature= -c format.coverLetter=false \
		-c format.numbered=false -c format.thread=false \
		format-patch --zero-commit --no-signature --abbrev=12 \
		--base="$BASE_TAG" "$@"
}

part="" last_part="" num=0
names=()
for i in "${!commits[@]}"; do
	if [ "$i" -lt ${#entries[@]} ]; then
		part=$(dirname "${entries[$i]}")
	else
		part=$last_part
	fi
	[ "$part" = "$last_part" ] || num=0
	[ "$part" != "." ] || part=""
	last_part=$part
	num=$((num + 1))
	mkdir -p "$tmp/patches/$part"
	f=$(fp -1 --start-number="$num" -o "$tmp/patches/$part" "${commits[$i]}")
	names[i]=${part:+$part/}$(basename "$f")
done

# Rewrite 'series': the Nth entry takes the Nth new name; comments,
# banners and blank lines stay where they are.
i=0
while IFS= read -r line || [ -n "$line" ]; do
	entry=$(printf '%s\n' "$line" | sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]].*//')
	if [ -n "$entry" ]; then
		printf '%s\n' "${line/"$entry"/"${names[$i]}"}"
		i=$((i + 1))
	else
		printf '%s\n' "$line"
	fi
done < "$SERIES" > "$tmp/series"
while [ "$i" -lt ${#names[@]} ]; do
	printf '%s\n' "${names[$i]}" >> "$tmp/series"
	i=$((i + 1))
done

# Keep the cover letters, replace everything else.  The tail of a
# cover letter, from its shortlog header line ("Name (N):") on, is
# regenerated from the part's commits: shortlog, diffstat, base.
cover_tail()
{
	local first last
	read -r first last < <(part_range "$1" names commits) || return 0
	git -C "$LINUX" shortlog --no-merges "$first^..$last" | sed -e '$d' \
		-e 's/^      /  /'
	echo
	git -C "$LINUX" -c diff.renames=true diff --stat=72 --summary "$first^" "$last"
	echo
	echo "base-commit: $(git -C "$LINUX" rev-parse "$BASE_TAG")"
}

if [ -d "$PATCHES" ]; then
	while read -r c; do
		c=${c#./}
		mkdir -p "$(dirname "$tmp/patches/$c")"
		sed -n '/^[^ ].* ([0-9]*):$/q;p' "$PATCHES/$c" > "$tmp/patches/$c"
		cover_tail "$(dirname "$c")" >> "$tmp/patches/$c"
	done < <(cd "$PATCHES" && find . -name '0000-cover-letter*.patch')
fi
mkdir -p "$(dirname "$out_patches")" "$(dirname "$out_series")"
rm -rf "$out_patches.new"
cp -r "$tmp/patches" "$out_patches.new"
rm -rf "$out_patches"
mv "$out_patches.new" "$out_patches"
cp "$tmp/series" "$out_series"
log "exported ${#commits[@]} patches to $out_patches and $out_series"
