#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-roundtrip.sh - check that exporting branch $SERIES_BRANCH gives
# back 'series' and patches/ byte for byte.
#
# Usage: scripts/check-roundtrip.sh [-h]
#
# Needs 'make apply' first.  Prints the differing files on failure.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$TOP/scripts/export-series.sh" "$out" >/dev/null
mkdir -p "$out/patches"
# A series file kept in its patch directory, as quilt keeps it
# (patches-6.12/series), is compared on its own below.
skip=()
[ "$(dirname "$SERIES")" != "$PATCHES" ] || skip=(-x "$(basename "$SERIES")")
if ! diff -r -x .gitkeep "${skip[@]}" "$PATCHES" "$out/patches" >"$out/diff" ||
   ! diff "$SERIES" "$out/series" >>"$out/diff"; then
	head -n 40 "$out/diff" >&2
	# A patch edited by hand keeps the blob ids of the old text in its
	# 'index' lines: git am applies it, format-patch writes new ids.
	# The commands to name, for this base.
	s=$(basename "$SERIES") p=$(basename "$PATCHES")/ mk=make
	[ "$BASE" = "$BASE_DEFAULT" ] || mk="BASE=$BASE make"
	other=$(grep '^[<>] ' "$out/diff" | grep -v '^[<>] index [0-9a-f]*\.\.[0-9a-f]*' || true)
	if [ -z "$other" ]; then
		die "$p differs from an export of $SERIES_BRANCH only in 'index' lines: a patch was edited by hand.
Bring $p back in line with '$mk apply export' (git am, then git format-patch),
or 'quilt refresh' each edited patch; then commit $p (README: editing a patch)"
	fi
	die "export of $SERIES_BRANCH differs from $s and $p; if you edited $p or
$s by hand, run '$mk apply export' and review 'git diff $p $s' (README: editing a patch)"
fi
log "export of $SERIES_BRANCH reproduces $(basename "$SERIES") and $(basename "$PATCHES")/ exactly ($(series_entries | wc -l) patches)"
