#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-ptdesc-cocci.sh - count page-table state reached through struct
# page, old page-table constructors and raw page-table allocations, with
# scripts/coccinelle/ptdesc-page-access.cocci.
#
# Usage: scripts/check-ptdesc-cocci.sh [-h] COMMIT
#            [--expect-none|--expect-some|--expect-kept|--print-kept]
#
# Runs spatch on the files of COMMIT that mention page-table state or
# page-table allocation (a git grep of arch/, include/, mm/, kernel/),
# in the worktree $TREE checked out at COMMIT.  Raw allocations count
# only in the architectures the series converts ($CONVERTED_ARCHES) and
# in generic code; alpha, arc, ia64, microblaze, parisc and xtensa keep
# their own allocators and are not part of the series.  Prints every
# finding and a count; --expect-some fails on none (the base must show
# what the check is there to catch).  --expect-none fails on any finding
# but the raw allocations mainline keeps, listed in $KEPT; --expect-kept
# fails unless the raw allocations at COMMIT are exactly that list (the
# 6.12 tier checks the list against its base); --print-kept prints them
# in the list's form.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base
command -v spatch >/dev/null || die "spatch not found (scripts/install-deps.sh installs coccinelle)"

commit=${1:?usage: check-ptdesc-cocci.sh COMMIT [--expect-none|--expect-some|--expect-kept|--print-kept]}
expect=${2:-}
case "$expect" in
''|--expect-none|--expect-some|--expect-kept|--print-kept) ;;
*) die "unknown option '$expect' (--expect-none, --expect-some, --expect-kept or --print-kept)" ;;
esac
# --print-kept writes the list's lines alone on stdout, the log on stderr.
if [ "$expect" = --print-kept ]; then
	exec 3>&1 1>&2
fi
TREE=${TREE:-$WORK/tree}
COCCI=$TOP/scripts/coccinelle/ptdesc-page-access.cocci
KEPT=${KEPT:-$TOP/scripts/coccinelle/ptdesc-raw-alloc.kept}
CONVERTED_ARCHES="powerpc x86 s390 arm arm64 csky hexagon loongarch m68k mips nios2 openrisc riscv sh sparc um"

ensure_worktree "$TREE"
require_clean "$TREE"

# The findings are those of a tree, the semantic patch, spatch and this
# script: kept by content (a cached tree needs no checkout, and spatch
# took 30 s a tree in a warm 'make test').
tree=$(git -C "$LINUX" rev-parse "$commit^{tree}")
key=$({ echo "$tree"; sha256sum <"$COCCI"; spatch --version | head -n 1; sha256sum <"$0"; } |
	sha256sum | cut -c1-64)
if out=$(cache_get spatch "$key"); then
	log "spatch at $commit: cached, tree ${tree:0:12} (NO_CACHE=1 runs it)"
else
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
	# An empty output is stored too: "no finding" is a result.
	printf '%s' "$out" | cache_put spatch "$key"
fi
# Each raw allocation as "path function allocator<TAB>finding": the key
# is the form of $KEPT, one parser for every mode below.
keyed_allocs()
{
	sed -n 's/^\(\([^:]*\):[0-9]*: alloc: \(.*\)() in \(.*\)() bypasses.*\)/\2 \4 \3\t\1/p'
}
kept=$(grep -v -e '^#' -e '^[[:space:]]*$' "$KEPT" | sort)

case "$expect" in
--print-kept)
	printf '%s\n' "$out" | keyed_allocs | cut -f1 >&3
	exit 0 ;;
--expect-kept)
	found=$(printf '%s\n' "$out" | keyed_allocs | cut -f1 | sort)
	if [ "$found" != "$kept" ]; then
		diff <(printf '%s\n' "$kept") <(printf '%s\n' "$found") |
			sed -n 's/^< /listed in the kept file, not found: /p; s/^> /found, not in the kept file: /p'
		log "the raw allocations at $commit differ from $KEPT"
		exit 1
	fi
	log "the $(printf '%s\n' "$found" | grep -c .) raw allocation(s) at $commit are those in $(basename "$KEPT")"
	exit 0 ;;
--expect-none)
	# A finding whose "path function allocator" is one mainline keeps is
	# listed, and does not count.
	allowed=$(printf '%s\n' "$out" | keyed_allocs | awk -F'\t' -v kept="$kept" '
		BEGIN { n = split(kept, k, "\n"); for (i = 1; i <= n; i++) keep[k[i]] = 1 }
		$1 in keep { print $2 }')
	if [ -n "$allowed" ]; then
		printf '%s\n' "$allowed" | sed 's/^/kept as in mainline: /'
		out=$(printf '%s\n' "$out" | grep -v -x -F -f <(printf '%s\n' "$allowed") || true)
	fi ;;
esac

n=$(printf '%s' "$out" | grep -c . || true)
[ "$n" -eq 0 ] || printf '%s\n' "$out"
kinds=""
[ "$n" -eq 0 ] || kinds=": $(printf '%s\n' "$out" | cut -d: -f3 | sort | uniq -c | paste -sd, - | tr -s ' ')"
log "$n finding(s) at $commit$kinds"
case "$expect" in
--expect-none) [ "$n" -eq 0 ] ;;
--expect-some) [ "$n" -gt 0 ] ;;
esac
