#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh - the main job ('check') and the test run ('test').
#
# Usage: [BASE=NAME] scripts/run-tests.sh [-h] [check|test|tier]
#
# check: fetch and verify the base, check every patch, apply the series
#        with git am and with quilt, check the export round trip and run
#        the CI tier of the build matrix.
# test:  first the unit tests of the harness package (make unit: pytest,
#        coverage, flake8, mypy), then all of 'check', the runtime test
#        under QEMU (x86_64, base and series side by side, the series'
#        KUnit suites at boot; BOOT_CONFIGS picks others), the x86_64
#        bloat check, the KUnit suites under UML, a distcc smoke test,
#        the tier of every other base (bases/*.base with ci-steps), its
#        lines prefixed with its name, and the end-to-end tests of the
#        harness (tests/*.bats).
# tier:  what the default base's 'test' runs of every other base (its
#        description's ci-steps and ci-final): fetch, checkpatch, git
#        am, quilt, the round trip and the final state on the ci-steps
#        configs.  'check' on such a base is that, with every step on
#        the ci-steps configs, the final state on the ci-final ones, the
#        asserts and the mail round trip; 'test' is the unit tests and
#        its 'check'.
#
# Every check prints one PASS/FAIL/SKIP line; the run ends with a line
# 'N passed, M failed, K skipped' and exits non-zero if anything failed.
# A log per check is kept in $RESULTS/logs/.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

mode=${1:-test}
case "$mode" in check|test|tier) ;; *) die "unknown mode '$mode' (check, test or tier)";; esac
# A base that describes a tier of its own is checked with it: the other
# checks (the runtime lane, layout, the mainline API, Coccinelle's ptdesc
# checks and bats) are written for the default base's series.
tier=
if [ -n "$BASE_CI_STEPS$BASE_CI_FINAL" ]; then
	tier=1
elif [ "$mode" = tier ]; then
	die "$BASES/$BASE.base describes no tier (ci-steps, ci-final)"
fi

mkdir -p "$RESULTS/logs"
TSV=$RESULTS/tests.tsv
: > "$TSV"
JOBS=${JOBS:-$(nproc)}
export JOBS
start=$(date +%s)

# Progress lines carry the time since the start (minutes:seconds): what
# a run spends its time on shows in its output.
log()
{
	local t
	t=$(( $(date +%s) - start ))
	printf '%s: [%d:%02d] %s\n' "$PROG" $(( t / 60 )) $(( t % 60 )) "$*"
}

record()
{
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$TSV"
	printf '%-4s %s%s\n' "$1" "$2" "${3:+ ($3)}"
}

# step NAME CMD...: run CMD with its output in a log; record PASS/FAIL.
step()
{
	local name=$1 logf t0
	shift
	logf=$RESULTS/logs/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').log
	t0=$(date +%s)
	log "running $name"
	if "$@" >"$logf" 2>&1; then
		record PASS "$name" "$(( $(date +%s) - t0 ))s"
		return 0
	fi
	tail -n 15 "$logf" | sed 's/^/  | /'
	record FAIL "$name" "see $logf"
	return 1
}

# lines: re-record 'PASS|FAIL|SKIP name: reason' lines of a checker.
lines()
{
	local status rest
	while read -r status rest; do
		case "$status" in
		PASS|FAIL|SKIP) record "$status" "${rest%%: *}" "$( [ "$rest" = "${rest#*: }" ] || printf '%s' "${rest#*: }")" ;;
		*) printf '  %s %s\n' "$status" "$rest" ;;
		esac
	done
}

# results NAME matrix|boot JSON: the result lines of a matrix.json (a
# line per cell that is a test) or a boot.json (per boot and check),
# from the package's result model.  A run that left no readable JSON
# is one failure, with the reason the model gives.
results()
{
	local err out
	out=$RESULTS/logs/$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_').lines
	err=$("$HARNESS" lines "$2" "$3" 2>&1 >"$out") ||
		{ record FAIL "$1" "${err#harness lines: error: }"; return 0; }
	lines <"$out"
}

summary()
{
	local p f s
	p=$(grep -c '^PASS' "$TSV" || true)
	f=$(grep -c '^FAIL' "$TSV" || true)
	s=$(grep -c '^SKIP' "$TSV" || true)
	log "finished in $(( $(date +%s) - start ))s; results in $TSV"
	echo "$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ] && [ "$1" -eq 0 ]
}
# Background jobs by name: the pid (and process group) of each.
declare -A bg_pid=()

# background NAME CMD...: run CMD beside what follows, in a process
# group of its own (job control on for the '&'), so that a run that
# stops early takes all of it down, with stdin from /dev/null.  Its
# results are recorded as they come; its output is printed by join.
background()
{
	local name=$1
	shift
	log "$name in the background: $* (output: $RESULTS/logs/$name.out)"
	set -m
	"$@" >"$RESULTS/logs/$name.out" 2>&1 </dev/null &
	bg_pid[$name]=$!
	set +m
}

# join NAME: wait for a background job and print its output.
join()
{
	local name=$1 rc=0
	log "waiting for $name"
	wait "${bg_pid[$name]}" || rc=$?
	unset "bg_pid[$name]"
	[ "$rc" -eq 0 ] || record FAIL "$name" "exited with $rc; see $RESULTS/logs/$name.out"
	sed -e '/^    RT/d' "$RESULTS/logs/$name.out"
}

# A check that crashed the run counts as a failure too.
trap 'rc=$?; for p in "${bg_pid[@]}"; do kill -- -"$p" 2>/dev/null; done; [ "$rc" -eq 0 ] || record FAIL "run-tests.sh" "stopped early (exit $rc)"; summary "$rc"' EXIT

# checker NAME CMD...: a checker that prints PASS/FAIL/SKIP lines and
# exits 0 or 1 (the lines say what failed); another exit status is a
# failure of its own.  Output in $RESULTS/logs/NAME.log.
checker()
{
	local name=$1 rc t0
	shift
	t0=$(date +%s)
	log "$name: ${1##*/}${2:+ $2}"
	set +e
	"$@" 2>&1 | tee "$RESULTS/logs/$name.log" | lines
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" -le 1 ] || record FAIL "$name" "exited with $rc; see $RESULTS/logs/$name.log"
	checker_rc=$rc
	log "$name: done in $(( $(date +%s) - t0 ))s"
}

# bats_results: the tests of the harness (tests/*.bats) as result
# lines; exits with bats's status.  bats also exits 1 when it cannot
# start (no failed test then): that is a failure of its own.
bats_results()
{
	local rc
	# --timing: each ok or not ok line carries ' in Nms' before any
	# '# skip', which goes to its detail (the 20 tests took 312 s of the
	# cold run of eeb3832; which ones, the TAP file now tells).
	bats --tap --timing "$TOP/tests" 2>&1 | tee "$RESULTS/logs/bats.tap" | while IFS= read -r l; do
		t=
		if [[ "$l" =~ ^((not\ )?ok\ .*)\ in\ ([0-9]+)ms(\ #\ skip.*)?$ ]]; then
			l=${BASH_REMATCH[1]}${BASH_REMATCH[4]}
			t="$(( BASH_REMATCH[3] / 1000 )).$(( BASH_REMATCH[3] % 1000 / 100 ))s"
		fi
		case "$l" in
		"ok "*"# skip"*) n=${l#ok * }; echo "SKIP bats/${n%% # skip*}: ${n#*# skip}" ;;
		"ok "*) echo "PASS bats/${l#ok * }${t:+: $t}" ;;
		"not ok "*) echo "FAIL bats/${l#not ok * }${t:+: $t}" ;;
		1..*) ;;
		*) echo "  $l" ;;
		esac
	done
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$RESULTS/logs/bats.tap"; then
		echo "FAIL bats: exited with $rc and no failed test; see $RESULTS/logs/bats.tap"
	fi
	return "$rc"
}

# runtime_lane: the runtime test (base and series booted under QEMU,
# stressed side by side) and the code-size check on its kernels.  None
# of it uses the matrix's work tree or
# build directories, so it runs in the background beside the matrix:
# a cold run on 2 cores leaves a quarter of the CPU idle in the
# configure, checkout and git steps, which the lane fills.  Its lines
# are printed as one block when it has finished.
runtime_lane()
{
	local rc
	# Runtime: the series booted under QEMU and stressed, beside the
	# base.  The base comes from its record, runtime/expect/NAME.json,
	# which 'make boot' writes, while every key of it holds (base tree,
	# config, compiler, QEMU, rtinit, command line, harness code); else
	# it is built and booted too, and the line says which key differed.
	log "runtime test under QEMU: ${BOOT_CONFIGS:=x86_64} (series; base as recorded)"
	set +e
	"$HARNESS" boot -j"$JOBS" --base-record --configs "$BOOT_CONFIGS" 2>&1 |
		tee "$RESULTS/logs/boot.log"
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" -le 1 ] || record FAIL "boot" "harness boot exited with $rc; see $RESULTS/logs/boot.log"
	results boot boot "$RESULTS/boot/boot.json"
	log "runtime test: done"

	# Code size: the functions of the series' vmlinux within 0.01% of
	# the base's, on the runtime test's x86_64 series kernel just built
	# and the base's as recorded (BLOAT_CONFIGS names matrix rows to
	# build, base and series, instead).
	if [ -n "${BLOAT_CONFIGS:-}" ]; then
		bloat_what=(--configs "$BLOAT_CONFIGS")
	else
		bloat_what=(--runtime x86_64)
	fi
	checker bloat "$HARNESS" bloat -j"$JOBS" "${bloat_what[@]}"
}

# kunit_lane COMMIT: the KUnit suites under UML at COMMIT, the series'
# head.  It runs in the background (a subshell): the export stays there.
kunit_lane()
{
	export SERIES_BRANCH=$1
	checker kunit "$HARNESS" kunit um
}

# matrix NAME ARGS...: a build-matrix run with its own results directory.
matrix()
{
	local name=$1 rc t0
	shift
	t0=$(date +%s)
	log "build matrix ($name): $*"
	rm -f "$RESULTS/$name/matrix.json"
	set +e
	RESULTS=$RESULTS/$name "$HARNESS" matrix -j"$JOBS" "$@" 2>&1 |
		tee "$RESULTS/logs/$name.log"
	rc=${PIPESTATUS[0]}
	set -e
	# 0: all cells passed, 1: some cell failed (recorded below).
	[ "$rc" -le 1 ] || record FAIL "matrix/$name" "harness matrix exited with $rc; see $RESULTS/logs/$name.log"
	results "matrix/$name" matrix "$RESULTS/$name/matrix.json"
	log "build matrix ($name): done in $(( $(date +%s) - t0 ))s"
}

# has_part PART: the series has a part PART.  (Not 'series_entries |
# grep -q': grep's early exit kills the writer with SIGPIPE, and under
# pipefail the test is then false however the series reads.)
has_part()
{
	local parts
	parts=$("$HARNESS" series parts) || die "cannot read the series file $SERIES"
	grep -qx "$1" <<<"$parts"
}

# second_base NAME: the tier of base NAME (bases/NAME.base), run by this
# script in mode 'tier' in NAME's own work directory; each of its
# results is recorded here as 'NAME/<its name>', from its tests.tsv.  A
# directory given from the environment would be shared by the two
# bases: then the tier is skipped, and says why.  A tier that stopped
# without a failed check of its own is one failure.
second_base()
{
	local name=$1 v res rc=0 st n r t0
	local per_base
	per_base=$("$HARNESS" paths --per-base) || die "harness paths --per-base failed"
	for v in $per_base; do
		if printenv "$v" >/dev/null; then
			record SKIP "$name/tier" "$v is set in the environment; both bases would use it"
			return 0
		fi
	done
	res=$(eval "$(BASE=$name "$HARNESS" paths)" && echo "$RESULTS") ||
		{ record FAIL "$name/tier" "harness paths failed for BASE=$name"; return 0; }
	t0=$(date +%s)
	log "$name: the tier of base $name (log: $RESULTS/logs/base-$name.log)"
	rm -f "$res/tests.tsv"
	BASE=$name "$TOP/scripts/run-tests.sh" tier >"$RESULTS/logs/base-$name.log" 2>&1 || rc=$?
	if [ -f "$res/tests.tsv" ]; then
		while IFS=$'\t' read -r st n r; do
			record "$st" "$name/$n" "$r"
		done <"$res/tests.tsv"
	fi
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$res/tests.tsv" 2>/dev/null; then
		tail -n 15 "$RESULTS/logs/base-$name.log" | sed 's/^/  | /'
		record FAIL "$name/tier" "exited with $rc and no failed check; see $RESULTS/logs/base-$name.log"
	fi
	log "$name: done in $(( $(date +%s) - t0 ))s"
}

# zsmalloc touches struct page only in the zsdesc helpers: on every
# base whose series has a zsdesc part (the check reads one file at two
# commits and builds nothing).
page_use_checks()
{
	if ! has_part zsdesc; then
		record SKIP "zsdesc: page-use check" "no zsdesc part in $(basename "$SERIES")"
		return
	fi
	step "zsdesc: the page-use check finds struct page uses at the base" \
		"$HARNESS" page-use --commit "$BASE_TAG" --expect-some || true
	step "zsdesc: mm/zsmalloc.c uses struct page only in zsdesc helpers" \
		"$HARNESS" page-use --commit "$SERIES_BRANCH" --expect-none || true
}

# Mail: one mbox per part, prepared by b4; each read back and applied
# alone on the base.  Both are decided by the patches and the series
# file, the base tree (get_maintainer.pl, MAINTAINERS), b4, git and the
# scripts: a run with the same ones takes the mboxes and the lines of
# the last run that passed (2.6 minutes of a warm run at 44b039f).
mail_checks()
{
	local key maildir=$WORK/mail cached
	key=$({ git -C "$LINUX" rev-parse "$BASE_TAG^{tree}"
		(cd "$PATCHES" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
		cat "$SERIES" "$TOP/scripts/make-mail.sh" "$TOP/scripts/check-mail.sh" \
			"$TOP/scripts/lib.sh"
		b4 --version; git --version; } | sha256sum | cut -c1-64)
	if cached=$(cache_get mail "$key.lines") && [ -f "$VERDICT_CACHE/mail/$key.tar" ]; then
		rm -rf "$maildir" && mkdir -p "$maildir"
		if cache_get mail "$key.tar" | tar -C "$maildir" -xf -; then
			log "mail: cached; the mboxes are the last passing run's, in $maildir"
			record PASS "mail: write one mbox per part" "cached"
			printf '%s\n' "$cached" | sed 's/$/ (cached)/' | lines
			return 0
		fi
	fi
	step "mail: write one mbox per part" "$TOP/scripts/make-mail.sh" || return 0
	checker mail "$TOP/scripts/check-mail.sh"
	if [ "$checker_rc" -eq 0 ] && grep -q '^PASS mail/' "$RESULTS/logs/mail.log" &&
		! grep -q '^FAIL' "$RESULTS/logs/mail.log"; then
		tar -C "$maildir" -cf - . | cache_put mail "$key.tar"
		grep -E '^(PASS|SKIP) ' "$RESULTS/logs/mail.log" | cache_put mail "$key.lines"
	fi
}

# The run, in order.
# The unit tests of the harness package come first: seconds, no kernel.
[ "$mode" != test ] || checker unit "$TOP/scripts/run-unit.sh"

step "base: $BASE_PACKAGE $BASE_VERSION, sha256 verified" "$TOP/scripts/fetch-base.sh" ||
	exit 1
step "apply: git am of $(basename "$SERIES")" "$TOP/scripts/apply-series.sh" || exit 1
# The runtime lane (the series' kernel built and booted, code size,
# KUnit under UML) is the warm run's critical path: it starts as soon
# as the series is applied, and checkpatch, quilt and the round trip
# run beside it.
# A base with a tier of its own (BASE=6.12 make test) has no lane: it
# stops after its builds.
if [ "$mode" = test ] && [ -z "$tier" ]; then
	background runtime-lane runtime_lane
fi
"$TOP/scripts/check-patches.sh" 2>&1 | lines || true
step "apply: quilt push -a --fuzz=0 matches git am" "$TOP/scripts/check-quilt.sh" || true
step "export: round trip is exact" "$TOP/scripts/check-roundtrip.sh" || true

if [ -n "$tier" ]; then
	# 'BASE=NAME make check': every step where the base's description
	# asks for it, the final state on its other configs ('all': every
	# row), the descriptor asserts firing and the mail round trip.  Run
	# from the default base's 'make test' (mode tier), only the final
	# state of the ci-steps configs: that has 8 cold minutes, and
	# 6.12's every step on its three configs took 404 s of the tier's
	# 570 in the cold run of eeb3832, beside the runtime lane.
	if [ "$mode" = tier ]; then
		if [ -n "$BASE_CI_STEPS" ]; then
			matrix matrix-final --steps final --configs "$BASE_CI_STEPS"
		else
			record SKIP "matrix/final state" "$BASE.base has no ci-steps configs to build in make test"
		fi
	else
		[ -z "$BASE_CI_STEPS" ] || matrix matrix-steps --steps all --configs "$BASE_CI_STEPS"
		case $BASE_CI_FINAL in
		'') ;;
		all) matrix matrix-final --steps final ;;
		*) matrix matrix-final --steps final --configs "$BASE_CI_FINAL" ;;
		esac
		checker asserts "$HARNESS" asserts -j"$JOBS"
		mail_checks
	fi
	page_use_checks
	# The 6.1 series leaves on the page allocator what mainline leaves
	# there: the list its end state is checked against is measured here.
	if [ -n "$BASE_KEPT_ALLOCS" ]; then
		step "ptdesc: $(basename "$BASE_KEPT_ALLOCS") lists the raw page-table allocations of this base" \
			env KEPT="$TOP/$BASE_KEPT_ALLOCS" \
			"$TOP/scripts/check-ptdesc-cocci.sh" "$BASE_TAG" --expect-kept || true
	fi
	exit 0
fi

# The CI tier: every step on x86_64; sparse on the final state of
# x86_64, every object the series touches, against the base (per step
# it cost a third of the x86_64 steps' time, warm or cold: ccache does
# not cache sparse); every zsdesc step on a 32-bit HIGHMEM config
# (zsmalloc maps its pages with kmap there); the final state on every
# config; a full link on x86_64.  In 'make test'
# that link is the runtime lane's: its x86_64 kernels, base and series,
# with THP, MEMCG, hugetlb, zsmalloc and the debug options, so the
# matrix links no row there (CI_LINK_CONFIGS names rows to link).  The
# zsdesc steps on arm64 and s390 and the links of every row are in
# 'make matrix', the full tier: a cold 'make test' has 65 minutes on 2
# cores, all of it.  So are the steps of an RFC part (its banner's 'Prefix: RFC'):
# the CI tier builds it at its final state, with its option on in the
# x86_64-sepdesc row, which is what issue 21 allows it (2 cold
# minutes); its 13 x86_64 steps took 2.0 more minutes of the cold run
# of eeb3832 (7 built, 117 s, beside the runtime lane).
CI_STEPS_CONFIGS=${CI_STEPS_CONFIGS:-x86_64}
ci_step_parts=$("$HARNESS" series parts --except-prefix RFC | paste -sd, -) ||
	die "cannot read the series file $SERIES"
CI_SPARSE_CONFIGS=${CI_SPARSE_CONFIGS:-x86_64}
CI_ZSDESC_CONFIGS=${CI_ZSDESC_CONFIGS:-i386-pae}
default_link=x86_64
[ "$mode" = check ] || default_link=
CI_LINK_CONFIGS=${CI_LINK_CONFIGS-$default_link}
matrix matrix-steps --part "base${ci_step_parts:+,$ci_step_parts}" --configs "$CI_STEPS_CONFIGS"
matrix matrix-sparse --steps final --sparse --configs "$CI_SPARSE_CONFIGS"
if has_part zsdesc; then
	matrix matrix-steps-zsdesc --part zsdesc --configs "$CI_ZSDESC_CONFIGS"
else
	record SKIP "matrix/zsdesc steps" "no zsdesc part in series"
fi
# distcc smoke test: x86_64 at the base through one distccd helper on
# loopback, the same objects as a local build.  The full check (two
# helpers, a mismatched one refused, one killed mid-run; three cold
# runs, 10.4 min of a cold run here) is 'make distcc'.  It has its own
# tree, build directories and (empty) ccache under WORK/distcc, so it
# runs beside the rest from here: the layout report and the final
# state spend much of their time in single-threaded Kconfig passes.
[ "$mode" != test ] || background distcc checker distcc "$HARNESS" distcc --smoke

# Layout: offsets of struct ptdesc per config at the head.  It runs
# before the final-state matrix, which then finds every config
# configured and prepared at the same tree: run after it, the checkout
# of the base for its warnings made every config prepare again.
checker layout "$HARNESS" layout -j"$JOBS"

# Mainline 6.12's ptdesc interface (Documentation/mainline-api.md): one
# file of static assertions compiled on x86_64, s390 and i386-pae in
# the tree and build directories the layout report just left
# configured at the head.  After the final-state matrix, which ends at
# the base for its warning baseline, the three configs prepared again
# and the check took 75 s instead of a few.
checker api "$HARNESS" api -j"$JOBS"
matrix matrix-final --steps final ${CI_LINK_CONFIGS:+--link "$CI_LINK_CONFIGS"}

# The asserts firing.
checker asserts "$HARNESS" asserts -j"$JOBS"

# Objects built through the shared ccache are those a build without it
# makes, whichever mode of ccache stored them (in the asserts' tree and
# build directory, configured by now).
checker ccache "$HARNESS" ccache-objects -j"$JOBS"

# The series' KUnit suites under UML with kunit.py run, in a lane of
# their own from here to the end: what is left of the main lane (the
# Coccinelle checks, mail, the other base's git am and quilt, bats) is
# mostly single-threaded and leaves a core idle.  In the runtime lane
# the UML build took 826 s of the cold run of aec6c7b, beside the
# layout report, which it slowed by about 260 s; here, 475 s of the
# cold run of 67b0e06 (started after the Coccinelle checks then).
# Under QEMU x86_64 the suites run at boot in the runtime test's series
# kernel, parsed with kunit.py parse (one kernel build fewer than
# kunit.py run --arch=x86_64, which 'make kunit' also does).  The
# series' head is pinned: bats applies series of its own meanwhile (on
# a branch of its own, but a name is not a tree).
if [ "$mode" = test ]; then
	background kunit-lane kunit_lane "$(git -C "$LINUX" rev-parse "$SERIES_BRANCH")"
fi

# Page-table state through struct page: found at the base, gone at the
# end once struct page no longer declares the page-table members.
step "ptdesc: the Coccinelle check finds page-table state in struct page at the base" \
	"$TOP/scripts/check-ptdesc-cocci.sh" "$BASE_TAG" --expect-some || true
struct_page=$(git -C "$LINUX" show "$SERIES_BRANCH:include/linux/mm_types.h" |
	sed -n '/^struct page {/,/^}/p')
if grep -q 'pmd_huge_pte' <<<"$struct_page"; then
	record SKIP "ptdesc: no page-table state through struct page at the end" \
		"struct page still declares the page-table members (series incomplete)"
else
	step "ptdesc: no page-table state through struct page at the end" \
		"$TOP/scripts/check-ptdesc-cocci.sh" "$SERIES_BRANCH" --expect-none || true
fi

page_use_checks

mail_checks

if [ "$mode" = test ]; then
	# Every other base, with the tier its description gives, then the
	# tests of the harness, while the lanes finish:
	# the other base has trees and results of its own, and the bats
	# tests their own work tree and build directories.  Run after the
	# lanes, the two made the warm run at e74ed52 5.6 minutes longer.
	tiers=$("$HARNESS" bases --with-tier) || die "cannot list the bases in $BASES"
	for b in $tiers; do
		[ "$b" = "$BASE" ] || second_base "$b"
	done

	# Tests of the harness; a failed one is a FAIL line, not the end.
	checker bats bats_results

	join runtime-lane
	join distcc
	join kunit-lane
fi
