#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kunit.sh - run the series' KUnit suites with the base tree's kunit.py.
#
# Usage: scripts/run-kunit.sh [-h] [ARCH...]
#
# ARCH is a kunit.py --arch: um (the default first) and x86_64 (under
# QEMU, with SMP and THP so the split-lock cases run).  The suites are
# those the series adds: mm/ptdesc.kunitconfig and mm/zsmalloc.kunitconfig,
# built together from the head of branch 'series' in the work/kunit
# worktree, one build directory per arch.
#
# Prints 'PASS|FAIL|SKIP kunit/ARCH/SUITE/CASE' per test case, and one
# line per arch for the run itself; exits non-zero if anything failed.
# A suite file missing from the series is a SKIP with the reason.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

require_base
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(um x86_64)
JOBS=${JOBS:-$(nproc)}
KUNITCONFIGS=(mm/ptdesc.kunitconfig mm/zsmalloc.kunitconfig)

tree=$WORK/kunit
ensure_worktree "$tree"
require_clean "$tree"
git -C "$tree" checkout -q --detach "$SERIES_BRANCH"

args=()
for k in "${KUNITCONFIGS[@]}"; do
	if [ -f "$tree/$k" ]; then
		args+=(--kunitconfig="$k")
	else
		echo "SKIP kunit/${k%.kunitconfig}: $k is not in the series"
	fi
done
[ ${#args[@]} -gt 0 ] || exit 0

export CCACHE_BASEDIR=$WORK CCACHE_NOHASHDIR=1
mkdir -p "$RESULTS/kunit"
rc=0
for arch in "${arches[@]}"; do
	extra=()
	case "$arch" in
	um) ;;
	x86_64) extra=(--kconfig_add CONFIG_SMP=y --kconfig_add CONFIG_NR_CPUS=8
		       --kconfig_add CONFIG_TRANSPARENT_HUGEPAGE=y) ;;
	*) die "unknown arch '$arch' (um or x86_64)" ;;
	esac
	if [ "$arch" != um ] && ! command -v "qemu-system-$arch" >/dev/null; then
		echo "SKIP kunit/$arch: qemu-system-$arch not found"
		continue
	fi
	out=$RESULTS/kunit/$arch.log
	log "$arch: building and running (log: $out)"
	t0=$(date +%s)
	set +e
	(cd "$tree" && ./tools/testing/kunit/kunit.py run --arch="$arch" \
		--build_dir="$BUILD/kunit-$arch" --jobs="$JOBS" --timeout=600 \
		--make_options CC="ccache gcc" "${args[@]}" "${extra[@]}") \
		>"$out" 2>&1 </dev/null
	status=$?
	set -e
	# '[..] ===== suite (N subtests) =====' opens a suite;
	# '[..] [PASSED] case' reports a case.
	awk -v arch="$arch" '
		/=+ [A-Za-z0-9_]+ \([0-9]+ subtests\) =+/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^\(/) { suite = $(i - 1); break }
			next }
		/\[(PASSED|FAILED|SKIPPED|CRASHED)\] [A-Za-z0-9_]+$/ && suite != "" {
			v = $2; gsub(/[][]/, "", v)
			s = v == "PASSED" ? "PASS" : v == "SKIPPED" ? "SKIP" : "FAIL"
			print s " kunit/" arch "/" suite "/" $3 (s == "SKIP" ? ": skipped by the test (see log)" : "")
		}' "$out"
	summary=$(grep -o 'Ran [0-9]* tests.*' "$out" | tail -n 1)
	if [ "$status" -eq 0 ]; then
		echo "PASS kunit/$arch: ${summary:-no summary} in $(( $(date +%s) - t0 )) s"
	else
		echo "FAIL kunit/$arch: kunit.py exited with $status (${summary:-no summary}); see $out"
		rc=1
	fi
done
exit $rc
