#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-ptdesc-cocci.sh - count page-table state reached through struct
# page, old page-table constructors and raw page-table allocations, with
# scripts/coccinelle/ptdesc-page-access.cocci.
#
# Usage: scripts/check-ptdesc-cocci.sh [-h] COMMIT [--expect-none|--expect-some]
#
# Runs spatch on the files of COMMIT that mention page-table state or
# page-table allocation (a git grep of arch/, include/, mm/, kernel/),
# in the worktree $TREE checked out at COMMIT.  Raw allocations count
# only in the architectures the series converts ($CONVERTED_ARCHES) and
# in generic code; alpha, arc, ia64, microblaze, parisc and xtensa keep
# their own allocators and are not part of the series.  Prints every
# finding and a count; --expect-none fails on any finding, --expect-some
# fails on none (the base must show what the check is there to catch).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base
command -v spatch >/dev/null || die "spatch not found (scripts/install-deps.sh installs coccinelle)"

commit=${1:?usage: check-ptdesc-cocci.sh COMMIT [--expect-none|--expect-some]}
expect=${2:-}
TREE=${TREE:-$WORK/tree}
COCCI=$TOP/scripts/coccinelle/ptdesc-page-access.cocci
CONVERTED_ARCHES="powerpc x86 s390 arm arm64 csky hexagon loongarch m68k mips nios2 openrisc riscv sh sparc um"

ensure_worktree "$TREE"
require_clean "$TREE"
git -C "$TREE" checkout -q --detach "$commit"

mapfile -t files < <(git -C "$TREE" grep -l -E \
	'pt_frag_refcount|pt_mm|pmd_huge_pte|ptl\b|pt_share_count|pgtable_p[tm][ed]_page_[cd]tor|_alloc_one|pgd_alloc|crst_table_alloc|page_table_alloc' \
	-- arch include mm kernel | grep -E '\.(c|h)$')
log "spatch on ${#files[@]} files at $(git -C "$TREE" rev-parse --short HEAD)"
out=$(cd "$TREE" && spatch --very-quiet --no-includes --include-headers -D report \
	-j "${JOBS:-2}" --sp-file "$COCCI" "${files[@]}" 2>/dev/null | sort -t: -k1,1 -k2,2n -u |
	awk -v conv=" $CONVERTED_ARCHES " '{
		split($1, p, "/")
		if ($0 ~ /: alloc: / && p[1] == "arch" && index(conv, " " p[2] " ") == 0) next
		print
	}')
n=$(printf '%s' "$out" | grep -c . || true)
[ "$n" -eq 0 ] || printf '%s\n' "$out"
kinds=""
[ "$n" -eq 0 ] || kinds=": $(printf '%s\n' "$out" | cut -d: -f3 | sort | uniq -c | paste -sd, - | tr -s ' ')"
log "$n finding(s) at $commit$kinds"
case "$expect" in
--expect-none) [ "$n" -eq 0 ] ;;
--expect-some) [ "$n" -gt 0 ] ;;
esac
