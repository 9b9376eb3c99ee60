#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-patches.sh - patch hygiene: every patch in 'series' has From,
# Subject, Signed-off-by and a diffstat, passes the base tree's
# checkpatch.pl --strict with no error and no warning, and 'series' and
# patches/ agree (nothing listed is missing, nothing present is unlisted).
#
# Usage: scripts/check-patches.sh [-h]
#
# The base's checkpatch-allow file (scripts/checkpatch.allow for 6.1, one
# of its own for every other base, whose patches may share file names with
# 6.1's) lists the only tolerated checkpatch messages: one '<patch> <TYPE>
# <reason>' per line, for warnings that kernel convention forces.  A base
# that names none tolerates none.  Prints one 'PASS|FAIL <check>' line per check and
# exits non-zero when any check fails.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"
require_base

# Only the base's description names it: an override from the environment
# would reach the other base's tier in 'make test' too.
ALLOW=${BASE_CHECKPATCH_ALLOW:+$TOP/$BASE_CHECKPATCH_ALLOW}
[ -z "$ALLOW" ] || [ -f "$ALLOW" ] ||
	die "$ALLOW: no such allowance file (checkpatch-allow in $BASES/$BASE.base)"
fails=0

pass() { printf 'PASS %s\n' "$1"; }
fail() { printf 'FAIL %s: %s\n' "$1" "$2"; fails=$((fails + 1)); }

entries=()
read_series entries
# The names the base's series file and patch directory go by ('series'
# and patches/ for 6.1).
sname=$(basename "$SERIES") pname=$(basename "$PATCHES")/

# series <-> patches/
for e in "${entries[@]}"; do
	[ -f "$PATCHES/$e" ] || fail "$sname/$e" "listed in $sname, missing from $pname"
done
declare -A listed=()
for e in "${entries[@]}"; do listed[$e]=1; done
while IFS= read -r f; do
	[ -n "${listed[$f]:-}" ] ||
		fail "$sname/$f" "in $pname but not listed in $sname"
done < <(cd "$PATCHES" && find . -name '*.patch' ! -name '0000-cover-letter*' | sed 's|^\./||' | sort)
dups=$(printf '%s\n' "${entries[@]}" | sort | uniq -d)
[ -z "$dups" ] || fail "$sname" "listed twice: $dups"
[ "$fails" -gt 0 ] || pass "$sname matches $pname (${#entries[@]} patches)"

allowed_types()
{
	[ -n "$ALLOW" ] || return 0
	sed -e 's/#.*//' "$ALLOW" | awk -v p="$1" '$1 == p { print $2 }' | paste -sd, -
}

# What decides checkpatch's verdict besides a patch and its allowances:
# checkpatch.pl and its data files, perl, and this script.  A patch that
# passed with the same ones passes again (58 patches: 62 s of a warm
# 'make test' at 44b039f).
self=$(sha256sum <"$0")
checker=$(cd "$LINUX" && { git hash-object scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch; perl -e 'print "$^V\n"'; echo "$self"; })

for e in "${entries[@]}"; do
	f=$PATCHES/$e
	[ -f "$f" ] || continue
	missing=()
	grep -q '^From: ' "$f" || missing+=(From)
	grep -q '^Subject: ' "$f" || missing+=(Subject)
	grep -q '^Signed-off-by: ' "$f" || missing+=(Signed-off-by)
	grep -qE '^ [0-9]+ files? changed' "$f" || missing+=(diffstat)
	if [ ${#missing[@]} -gt 0 ]; then
		fail "headers/$e" "missing ${missing[*]}"
	else
		pass "headers/$e"
	fi

	ignore=$(allowed_types "$e")
	key=$({ printf '%s\n' "$checker" "ignore=$ignore"; cat "$f"; } | sha256sum | cut -c1-64)
	if out=$(cache_get checkpatch "$key"); then
		pass "checkpatch/$e: cached, ${out:-passed before}"
		continue
	fi
	out=$(cd "$LINUX" && perl scripts/checkpatch.pl --strict --no-color \
		${ignore:+--ignore "$ignore"} "$f" 2>&1) || true
	summary=$(printf '%s\n' "$out" | grep -E '^total: ' | tail -n 1 || true)
	if grep -qE '^total: 0 errors, 0 warnings,' <<<"$summary"; then
		pass "checkpatch/$e"
		printf 'passed on %s' "$(date -u +%F)" | cache_put checkpatch "$key"
	else
		printf '%s\n' "$out" | grep -E '^(ERROR|WARNING|CHECK):' | sed 's/^/  /'
		fail "checkpatch/$e" "${summary:-checkpatch did not run}
  reproduce: cd $LINUX && scripts/checkpatch.pl --strict $f"
	fi
done

exit $((fails > 0))
