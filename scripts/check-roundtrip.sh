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
if ! diff -r -x .gitkeep "$PATCHES" "$out/patches" >"$out/diff" ||
   ! diff "$SERIES" "$out/series" >>"$out/diff"; then
	head -n 40 "$out/diff" >&2
	die "export of $SERIES_BRANCH differs from series and patches/"
fi
log "export of $SERIES_BRANCH reproduces series and patches/ exactly ($(series_entries | wc -l) patches)"
