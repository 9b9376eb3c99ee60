#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kunit.sh - run the series' KUnit suites with the base tree's kunit.py.
#
# Usage: scripts/run-kunit.sh [-h] [ARCH...]
#
# ARCH is a kunit.py --arch: um and x86_64 (the default), and s390 and
# arm, all but um under QEMU with SMP (and THP but on arm, which has none
# without LPAE) so that the split-lock cases run: s390 for its four-page
# PMD tables, arm (classic, not LPAE) for its two-entry PMDs.  The suites are
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

export CCACHE_BASEDIR=$WORK CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
mkdir -p "$RESULTS/kunit"
rc=0
for arch in "${arches[@]}"; do
	smp=(--kconfig_add CONFIG_SMP=y --kconfig_add CONFIG_NR_CPUS=8)
	thp=(--kconfig_add CONFIG_TRANSPARENT_HUGEPAGE=y)
	cross='' qemu=qemu-system-$arch
	case "$arch" in
	um) qemu='' smp=() thp=() ;;
	x86_64) ;;
	s390) cross=s390x-linux-gnu- qemu=qemu-system-s390x ;;
	arm) cross=arm-linux-gnueabi- thp=() ;;	# no THP without LPAE
	*) die "unknown arch '$arch' (um, x86_64, s390 or arm)" ;;
	esac
	if [ -n "$qemu" ] && ! command -v "$qemu" >/dev/null; then
		echo "SKIP kunit/$arch: $qemu not found"
		continue
	fi
	if [ -n "$cross" ] && ! command -v "${cross}gcc" >/dev/null; then
		echo "SKIP kunit/$arch: ${cross}gcc not found"
		continue
	fi
	extra=("${smp[@]}" "${thp[@]}")
	[ -z "$cross" ] || extra+=(--cross_compile="$cross")
	out=$RESULTS/kunit/$arch.log
	log "$arch: building and running (log: $out)"
	t0=$(date +%s)
	set +e
	# The relative form of the tree too: see relative_prefix_map() in
	# kbuild.py.
	mkdir -p "$BUILD/kunit-$arch"
	relmap=-fmacro-prefix-map=$(realpath --relative-to="$BUILD/kunit-$arch" "$tree")/=
	(cd "$tree" && ./tools/testing/kunit/kunit.py run --arch="$arch" \
		--build_dir="$BUILD/kunit-$arch" --jobs="$JOBS" --timeout=600 \
		--make_options CC="ccache ${cross}gcc" \
		--make_options KCFLAGS="${KCFLAGS:+$KCFLAGS }$relmap" \
		"${args[@]}" "${extra[@]}") \
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
