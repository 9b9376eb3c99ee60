#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Tests of the harness itself: each failure mode it promises to report.

load helpers

setup()
{
	require_base
	export SERIES_BRANCH=harness-test
	# A work tree and build directories of their own, so that these
	# tests can run beside a matrix run without either seeing the
	# other's checkouts.  They sit as work/tree and work/build do
	# (build/<config> is ../../tree from the tree's point of view), so
	# the compiler sees the same relative paths and the objects the
	# matrix built come from ccache.
	export TREE=$WORK/harness/tree BUILD=$WORK/harness/build
	mkdir -p "$WORK/harness"
	export SERIES=$BATS_TEST_TMPDIR/s/series
	export PATCHES=$BATS_TEST_TMPDIR/s/patches
}

teardown()
{
	git -C "$LINUX" checkout -q -f --detach "$BASE_TAG" 2>/dev/null || true
	git -C "$LINUX" branch -q -D harness-test 2>/dev/null || true
}

# pin NAME KEY=VALUE...: bases/NAME.base in $BATS_TEST_TMPDIR/bases, the
# default base's description with KEYs replaced: a pin moved by one edit.
pin()
{
	local name=$1 kv
	shift
	mkdir -p "$BATS_TEST_TMPDIR/bases"
	cp "$TOP/bases/6.1.base" "$BATS_TEST_TMPDIR/bases/$name.base"
	for kv in "$@"; do
		sed -i "s|^${kv%%=*}=.*|$kv|" "$BATS_TEST_TMPDIR/bases/$name.base"
	done
	sed -i "s|^work=.*|work=work-$name|" "$BATS_TEST_TMPDIR/bases/$name.base"
	export BASES=$BATS_TEST_TMPDIR/bases BASE=$name
}

@test "a wrong checksum stops before unpacking" {
	tmp=$BATS_TEST_TMPDIR/w
	pin bad sha256=0000000000000000000000000000000000000000000000000000000000000000
	run env WORK="$tmp" LINUX="$tmp/linux" BASE_SKIP_INSTALL=1 \
		BASE_CACHE="$BATS_TEST_TMPDIR/cache" "$TOP/scripts/fetch-base.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"sha256 mismatch: expected 0000"*", found cacdc383"* ]]
	[ ! -e "$tmp/linux" ]
	[ -z "$(ls -A "$tmp" 2>/dev/null)" ]
	[ ! -e "$BATS_TEST_TMPDIR/cache" ]
}

@test "a base version that cannot be installed is named, with the ones that can" {
	tmp=$BATS_TEST_TMPDIR/w
	pin old version=6.1.0-0 \
		sha256=1111111111111111111111111111111111111111111111111111111111111111
	run env WORK="$tmp" LINUX="$tmp/linux" BASE_CACHE="$BATS_TEST_TMPDIR/cache" \
		"$TOP/scripts/fetch-base.sh"
	[ "$status" -ne 0 ]
	if [ "$(id -u)" = 0 ]; then
		[[ "$output" == *"cannot install version 6.1.0-0 (found: 6.1.192-3)"* ]]
		[[ "$output" == *"Versions apt can install: "*"6.1.192-3"* ]]
		[[ "$output" == *"edit version and sha256 in $BASES/old.base"* ]]
	else
		[[ "$output" == *"expected version 6.1.0-0, found '6.1.192-3'"* ]]
	fi
	[ ! -e "$tmp/linux" ]
	# A user who cannot install is shown the versions apt has too
	# (apt-cache needs no root): an 'id' that answers uid 1000.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho 1000\n' >"$BATS_TEST_TMPDIR/bin/id"
	chmod +x "$BATS_TEST_TMPDIR/bin/id"
	run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" WORK="$tmp" LINUX="$tmp/linux" \
		BASE_CACHE="$BATS_TEST_TMPDIR/cache" "$TOP/scripts/fetch-base.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"expected version 6.1.0-0, found '6.1.192-3'; run as root"* ]]
	[[ "$output" == *"Versions apt can install: "*"6.1.192-3"* ]]
	[ ! -e "$tmp/linux" ]
	[ "$(dpkg-query -W -f='${Version}' linux-source-6.1)" = 6.1.192-3 ]
}

@test "a tarball verified once keeps working when its version has left the archive" {
	tmp=$BATS_TEST_TMPDIR/w
	# A small stand-in for a kernel tarball, cached under its sha256.
	mkdir -p "$BATS_TEST_TMPDIR/src/linux-tiny" "$BATS_TEST_TMPDIR/cache"
	echo 'all:' >"$BATS_TEST_TMPDIR/src/linux-tiny/Makefile"
	tar -C "$BATS_TEST_TMPDIR/src" -cJf "$BATS_TEST_TMPDIR/tiny.tar.xz" linux-tiny
	sum=$(sha256sum "$BATS_TEST_TMPDIR/tiny.tar.xz" | cut -d' ' -f1)
	cp "$BATS_TEST_TMPDIR/tiny.tar.xz" "$BATS_TEST_TMPDIR/cache/$sum.tar.xz"
	pin gone version=6.1.0-0 sha256="$sum" tarball=/nonexistent/linux-tiny.tar.xz
	run env WORK="$tmp" LINUX="$tmp/linux" BASE_CACHE="$BATS_TEST_TMPDIR/cache" \
		"$TOP/scripts/fetch-base.sh"
	[ "$status" -eq 0 ]
	[[ "$output" == *"using $BATS_TEST_TMPDIR/cache/$sum.tar.xz"* ]]
	[ -f "$tmp/linux/Makefile" ]
	[ "$(git -C "$tmp/linux" config harness.base-sha256)" = "$sum" ]
	# A cached file that no longer has the pinned sum is not used.
	echo x >>"$BATS_TEST_TMPDIR/cache/$sum.tar.xz"
	rm -rf "$tmp"
	run env WORK="$tmp" LINUX="$tmp/linux" BASE_CACHE="$BATS_TEST_TMPDIR/cache" \
		BASE_SKIP_INSTALL=1 "$TOP/scripts/fetch-base.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/nonexistent/linux-tiny.tar.xz: not found"* ]]
	[ ! -e "$tmp/linux" ]
}

@test "an unknown base is named with the known ones, before anything runs" {
	run env BASE=5.10 "$TOP/scripts/fetch-base.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"BASE=5.10: no $TOP/bases/5.10.base; known bases: 6.1, 6.12"* ]]
	run env BASE=5.10 make -C "$TOP" -s apply
	[ "$status" -ne 0 ]
	[[ "$output" == *"known bases: 6.1, 6.12"* ]]
}

@test "a base without a tier of its own is not run as one" {
	run env RESULTS="$BATS_TEST_TMPDIR/r" "$TOP/scripts/run-tests.sh" tier
	[ "$status" -ne 0 ]
	[[ "$output" == *"/bases/6.1.base describes no tier (ci-steps, ci-final)"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/r" ]
}

@test "a patch that does not apply is named and the base is untouched" {
	good=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test */' "mm: good")
	# A patch against a line that the first one does not have.
	bad=$(commit_edit "$BASE_TAG" mm/memory.c 's/^#include <linux\/mm.h>$/#include <linux\/mm.h> \/* x *\//' "mm: bad")
	bad=$(commit_edit "$good" mm/memory.c '1d' "mm: drop first line")
	make_series "$BATS_TEST_TMPDIR/s" "$good" "$bad"
	# Make the second patch conflict: its context no longer exists.
	sed -i 's|^-// SPDX-License-Identifier: GPL-2.0-only|-// not the first line|' \
		"$PATCHES"/test/0002-*.patch
	before=$(git -C "$LINUX" rev-parse "$BASE_TAG")
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"patch test/0002-mm-drop-first-line.patch does not apply at mm/memory.c:1"* ]]
	[ "$(git -C "$LINUX" rev-parse "$BASE_TAG")" = "$before" ]
	! git -C "$LINUX" rev-parse -q --verify refs/heads/harness-test
	[ -z "$(git -C "$LINUX" status --porcelain --untracked-files=no)" ]
}

@test "a dirty base work tree is refused" {
	make_series "$BATS_TEST_TMPDIR/s"
	echo "/* local change */" >> "$LINUX/mm/memory.c"
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"is dirty"*"mm/memory.c"* ]]
}

@test "apply then export is a byte-for-byte round trip" {
	a=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test one */' "mm: first test change")
	b=$(commit_edit "$a" kernel/fork.c '1a\/* harness test two */' "fork: second test change")
	make_series "$BATS_TEST_TMPDIR/s" "$a" "$b"
	printf '# trailing comment\n' >> "$SERIES"
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -eq 0 ]
	run "$TOP/scripts/check-roundtrip.sh"
	[ "$status" -eq 0 ]
	# And the check notices a difference.
	sed -i 's/first test change/first changed/' "$PATCHES"/test/0001-*.patch
	run "$TOP/scripts/check-roundtrip.sh"
	[ "$status" -ne 0 ]
	# Without OUTDIR, an export writes the series file and patch
	# directory in use ($SERIES, $PATCHES), never another base's.
	before=$(cat "$TOP/series")
	run "$TOP/scripts/export-series.sh"
	[ "$status" -eq 0 ]
	[ "$(cat "$TOP/series")" = "$before" ]
	grep -q "first test change" "$PATCHES"/test/0001-*.patch
	grep -q "trailing comment" "$SERIES"
}

@test "a checkpatch pass is reused for the same patch only, and a failure never" {
	a=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test one */' "mm: first test change")
	make_series "$BATS_TEST_TMPDIR/s" "$a"
	unset NO_CACHE
	export VERDICT_CACHE=$BATS_TEST_TMPDIR/verdicts
	run "$TOP/scripts/check-patches.sh"
	[ "$status" -eq 0 ]
	[[ "$output" != *cached* ]]
	run "$TOP/scripts/check-patches.sh"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PASS checkpatch/test/0001-"*": cached, passed on "* ]]
	# The same patch with a line checkpatch rejects: judged again, and
	# its failure is not stored.
	sed -i 's|^+/\* harness test one \*/|+/* harness test one */ \t|' "$PATCHES"/test/0001-*.patch
	run "$TOP/scripts/check-patches.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL checkpatch/test/0001-"* ]]
	run "$TOP/scripts/check-patches.sh"
	[ "$status" -ne 0 ]
	[[ "$output" != *cached* ]]
	[ "$(find "$VERDICT_CACHE/checkpatch" -type f | wc -l)" -eq 1 ]
}

@test "mail: b4 prepares a part, reads it back, and a mangled patch or a lost message fails" {
	a=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test one */' "mm: first test change")
	b=$(commit_edit "$a" kernel/fork.c '1a\/* harness test two */' "fork: second test change")
	make_series "$BATS_TEST_TMPDIR/s" "$a" "$b"
	printf 'Subject: [PATCH 0/2] test: two changes\n\nA cover letter of the test.\n' \
		> "$PATCHES/test/0000-cover-letter.patch"
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -eq 0 ]
	mail=$BATS_TEST_TMPDIR/mail
	run "$TOP/scripts/make-mail.sh" "$mail"
	[ "$status" -eq 0 ]
	# Three messages, numbered by b4, with base-commit in the cover.
	[ "$(grep -c '^From mboxrd@z ' "$mail/test.mbox")" = 3 ]
	grep -q '^Subject: \[PATCH 0/2\] test: two changes' "$mail/test.mbox"
	grep -q "^base-commit: $(git -C "$LINUX" rev-parse "$BASE_TAG")" "$mail/test.mbox"
	# The scratch branches are gone.
	[ -z "$(git -C "$LINUX" branch --list 'mail-*')" ]
	run "$TOP/scripts/check-mail.sh" "$mail"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PASS mail/test: b4 am of the mbox gives 2 patches"* ]]
	# A patch changed in the mail is not the series' change.
	cp "$mail/test.mbox" "$BATS_TEST_TMPDIR/good.mbox"
	sed -i 's|^+/\* harness test two \*/|+/* harness test 2 */|' "$mail/test.mbox"
	run "$TOP/scripts/check-mail.sh" "$mail"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL mail/test: applied 2 commits; change differs"* ]]
	# A message lost on the way breaks the numbering.
	awk '/^From mboxrd@z /{n++} n != 3' "$BATS_TEST_TMPDIR/good.mbox" > "$mail/test.mbox"
	run "$TOP/scripts/check-mail.sh" "$mail"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL mail/test: numbering or To headers wrong (subjects: 0/2 1/2)"* ]]
}

@test "mail: a part that depends on another is prepared and checked on top of it, with its prefix" {
	a=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test one */' "mm: first test change")
	# The second change's context is the first one's line: it applies
	# on the first part only, never alone on the base.
	b=$(commit_edit "$a" mm/memory.c '2a\/* harness test two */' "mm: a change on top of the first")
	make_series "$BATS_TEST_TMPDIR/s" "$a" "$b"
	mkdir -p "$PATCHES/rfc"
	mv "$PATCHES"/test/0002-*.patch "$PATCHES/rfc/"
	{
		printf '# the first part\n'
		grep '^test/0001-' "$SERIES"
		printf '# the second, on top of it\n# Depends: test\n# Prefix: RFC\n'
		grep '^test/0002-' "$SERIES" | sed 's|^test/|rfc/|'
	} > "$SERIES.new"
	mv "$SERIES.new" "$SERIES"
	for p in test rfc; do
		printf 'Subject: [PATCH] %s: one change\n\nA cover letter of the test.\n' "$p" \
			> "$PATCHES/$p/0000-cover-letter.patch"
	done
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -eq 0 ]
	mail=$BATS_TEST_TMPDIR/mail
	run "$TOP/scripts/make-mail.sh" "$mail"
	[ "$status" -eq 0 ]
	# One message each (a part of one patch has no cover message); the
	# dependent part's only patch is its own, with RFC in its subject.
	[ "$(grep -c '^From mboxrd@z ' "$mail/rfc.mbox")" = 1 ]
	grep -qE '^Subject: \[(RFC PATCH|PATCH RFC)\] mm: a change on top of the first' "$mail/rfc.mbox"
	grep -q '^Subject: \[PATCH\] mm: first test change' "$mail/test.mbox"
	run "$TOP/scripts/check-mail.sh" "$mail"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PASS mail/test: b4 am of the mbox gives 1 patches that apply alone on the base"* ]]
	[[ "$output" == *"PASS mail/rfc: b4 am of the mbox gives 1 patches that apply on the base with test under them"* ]]
	# Without its prefix the part's mail is not what the series says.
	sed -i -E 's/^Subject: \[(RFC PATCH|PATCH RFC)\]/Subject: [PATCH]/' "$mail/rfc.mbox"
	run "$TOP/scripts/check-mail.sh" "$mail"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL mail/rfc: numbering or To headers wrong (subjects: [PATCH])"* ]]
	# A dependency the series file does not list before the part is refused.
	sed -i 's/^# Depends: test/# Depends: nothing/' "$SERIES"
	run "$TOP/scripts/make-mail.sh" "$mail"
	[ "$status" -ne 0 ]
	[[ "$output" == *"part rfc depends on nothing, which is not a part listed before it"* ]]
	[ -z "$(git -C "$LINUX" branch --list 'mail-*')" ]
}

@test "a series file kept in its patch directory, as quilt keeps it, round-trips" {
	a=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test one */' "mm: first test change")
	make_series "$BATS_TEST_TMPDIR/s" "$a"
	mv "$SERIES" "$PATCHES/series"
	export SERIES=$PATCHES/series
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -eq 0 ]
	run "$TOP/scripts/check-roundtrip.sh"
	[ "$status" -eq 0 ]
	# The series file is still checked: an entry no commit made is found.
	printf 'test/0099-not-a-commit.patch\n' >> "$SERIES"
	run "$TOP/scripts/check-roundtrip.sh"
	[ "$status" -ne 0 ]
}

@test "a config whose compiler is missing is SKIP, never PASS" {
	make_series "$BATS_TEST_TMPDIR/s"
	"$TOP/scripts/apply-series.sh"
	mkdir -p "$BATS_TEST_TMPDIR/configs"
	cat > "$BATS_TEST_TMPDIR/configs/nocc.config" <<-EOC
	# nocc: a config whose cross compiler does not exist
	# arch: loongarch
	# kconfig: tinyconfig
	# toolchain: gcc
	# cross_compile: harness-no-such-compiler-
	CONFIG_MMU=y
	EOC
	run env CONFIGS="$BATS_TEST_TMPDIR/configs" RESULTS="$BATS_TEST_TMPDIR/r" \
		"$TOP/scripts/harness" matrix --steps all
	[ "$status" -eq 0 ]
	[[ "$(cell "$BATS_TEST_TMPDIR/r/matrix.json" nocc 0)" == "SKIP no toolchain: harness-no-such-compiler-gcc not found"* ]]
}

@test "a compile error at step N is reported at step N on the right configs only" {
	one=$(commit_edit "$BASE_TAG" mm/pgtable-generic.c '1a\/* harness test */' "mm: touch generic code")
	two=$(commit_edit "$one" arch/x86/mm/pgtable.c 's/^pgtable_t pte_alloc_one(struct mm_struct \*mm)$/&\nharness_error;/' "x86/mm: break the build")
	three=$(commit_edit "$two" arch/x86/mm/pgtable.c '/^harness_error;$/d' "x86/mm: fix the build")
	four=$(commit_edit "$three" arch/arm64/mm/mmu.c 's/^void __init paging_init(void)$/static int harness_unused;\n&/' "arm64/mm: add a warning")
	make_series "$BATS_TEST_TMPDIR/s" "$one" "$two" "$three" "$four"
	"$TOP/scripts/apply-series.sh"
	run env RESULTS="$BATS_TEST_TMPDIR/r" "$TOP/scripts/harness" matrix \
		--steps all --configs x86_64,arm64-4k
	[ "$status" -ne 0 ]
	j=$BATS_TEST_TMPDIR/r/matrix.json
	[[ "$(cell "$j" x86_64 1)" == PASS* ]]
	[[ "$(cell "$j" arm64-4k 1)" == PASS* ]]
	[[ "$(cell "$j" x86_64 2)" == "FAIL "*"harness_error"* ]]
	[[ "$(cell "$j" arm64-4k 2)" == N/A* ]]
	[[ "$(cell "$j" x86_64 3)" == PASS* ]]
	[[ "$(cell "$j" arm64-4k 3)" == N/A* ]]
	[[ "$(cell "$j" x86_64 4)" == N/A* ]]
	[[ "$(cell "$j" arm64-4k 4)" == "FAIL 1 new warning(s): arch/arm64/mm/mmu.c: "*"harness_unused"* ]]
}

@test "a sparse warning the series adds fails the final state under --sparse only" {
	# A cast that drops __user: gcc is silent, sparse is not.
	one=$(commit_edit "$BASE_TAG" mm/pgtable-generic.c \
		'$a\\nint harness_peek(void __user *p);\nint harness_peek(void __user *p)\n{\n\treturn *(int *)p;\n}' \
		"mm: read a user pointer directly")
	two=$(commit_edit "$one" mm/pgtable-generic.c '1a\/* harness test */' "mm: touch generic code")
	make_series "$BATS_TEST_TMPDIR/s" "$one" "$two"
	"$TOP/scripts/apply-series.sh"
	run env RESULTS="$BATS_TEST_TMPDIR/plain" "$TOP/scripts/harness" matrix \
		--steps final --configs x86_64
	[ "$status" -eq 0 ]
	[[ "$(cell "$BATS_TEST_TMPDIR/plain/matrix.json" x86_64 2)" == PASS* ]]
	# The objects are up to date now: the final cell must still see them.
	run env RESULTS="$BATS_TEST_TMPDIR/sparse" "$TOP/scripts/harness" matrix \
		--steps final --sparse --configs x86_64
	[ "$status" -ne 0 ]
	[[ "$(cell "$BATS_TEST_TMPDIR/sparse/matrix.json" x86_64 2)" == "FAIL 1 new warning(s): mm/pgtable-generic.c: "*"address space"* ]]
}

# A matrix.json of the base tag with one PASS cell per config named, its
# step 0 built from COMMIT.
fake_matrix()
{
	local out=$1 commit=$2
	shift 2
	mkdir -p "$out"
	python3 - "$out/matrix.json" "$(git -C "$LINUX" rev-parse "$BASE_TAG")" "$commit" "$@" <<'PY'
import json, sys
path, base, commit, configs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
cells = [{"arch": "x", "config": c, "step": 0, "patch": "base", "commit": commit,
          "kind": "objects", "status": "PASS", "reason": ""} for c in configs]
json.dump({"complete": True, "base": base, "head": commit, "branch": "b",
           "elapsed": 1.0, "date": "d", "cells": cells}, open(path, "w"))
PY
}

@test "batches of the matrix merge, and batches of different trees or the same config do not" {
	base=$(git -C "$LINUX" rev-parse "$BASE_TAG")
	other=$(git -C "$LINUX" commit-tree -p "$base" -m other "$(git -C "$LINUX" mktree </dev/null)")
	d=$BATS_TEST_TMPDIR
	fake_matrix "$d/a" "$base" cfg-a
	fake_matrix "$d/b" "$base" cfg-b
	fake_matrix "$d/c" "$other" cfg-c
	run "$TOP/scripts/harness" merge --out "$d/m" "$d/a" "$d/b"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 runs, 2 configs, 2 cells: 2 PASS"* ]]
	grep -q '^| 0 base | PASS | PASS |$' "$d/m/matrix.md"
	run "$TOP/scripts/harness" merge --out "$d/m2" "$d/a" "$d/a"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cfg-a step 0 objects was built by"* ]]
	run "$TOP/scripts/harness" merge --out "$d/m3" "$d/a" "$d/c"
	[ "$status" -ne 0 ]
	[[ "$output" == *"step 0 (base) is not the tree"* ]]
}

@test "the raw allocations mainline keeps are listed, and nothing else passes for one" {
	k=$BATS_TEST_TMPDIR/kept
	"$TOP/scripts/check-ptdesc-cocci.sh" "$BASE_TAG" --print-kept >"$k.all"
	grep -q ' pte_alloc_one ' "$k.all"
	# One allocation dropped from the list, one that is not there added:
	# both named.
	dropped=$(grep -m1 ' pte_alloc_one ' "$k.all")
	{ grep -v -x -F "$dropped" "$k.all"; echo "mm/none.c no_alloc alloc_page"; } >"$k"
	run env KEPT="$k" "$TOP/scripts/check-ptdesc-cocci.sh" "$BASE_TAG" --expect-kept
	[ "$status" -ne 0 ]
	[[ "$output" == *"found, not in the kept file: $dropped"* ]]
	[[ "$output" == *"listed in the kept file, not found: mm/none.c no_alloc alloc_page"* ]]
	# Every raw allocation kept: the page-table fields through struct
	# page are still findings.
	run env KEPT="$k.all" "$TOP/scripts/check-ptdesc-cocci.sh" "$BASE_TAG" --expect-none
	[ "$status" -ne 0 ]
	[[ "$output" == *"kept as in mainline: "*": alloc: "* ]]
	[[ "$output" == *": page-field: "* ]]
	[[ "$output" != *$'\n'arch/*": alloc: "* ]]
}

@test "a work tree in use by another run is refused, and left as it was" {
	make_series "$BATS_TEST_TMPDIR/s"
	"$TOP/scripts/apply-series.sh"
	mkdir -p "$(dirname "$TREE")"
	# Another run holds the tree: its lock file stays open on fd 9.
	exec 9>>"$TREE.lock"
	flock -n 9
	echo "pid 1: another-run" >"$TREE.lock"
	head=$(git -C "$TREE" rev-parse HEAD 2>/dev/null || echo none)
	run env RESULTS="$BATS_TEST_TMPDIR/r" "$TOP/scripts/harness" matrix \
		--steps 0 --configs x86_64
	[ "$status" -ne 0 ]
	[[ "$output" == *"work tree $TREE is in use by another run (pid 1: another-run)"* ]]
	run "$TOP/scripts/check-ptdesc-cocci.sh" "$BASE_TAG"
	[ "$status" -ne 0 ]
	[[ "$output" == *"work tree $TREE is in use by another run"* ]]
	[ "$(git -C "$TREE" rev-parse HEAD 2>/dev/null || echo none)" = "$head" ]
	[ ! -e "$BATS_TEST_TMPDIR/r/matrix.json" ]
	# Released, the tree is free again: the refused runs hold nothing.
	exec 9>&-
	flock -n "$TREE.lock" true
}

@test "an apply killed with SIGKILL in git am is repaired by the next one" {
	one=$(commit_edit "$BASE_TAG" mm/memory.c '1a\/* harness test one */' "mm: one")
	two=$(commit_edit "$one" mm/memory.c '2a\/* harness test two */' "mm: two")
	make_series "$BATS_TEST_TMPDIR/s" "$one" "$two"
	# git am stops in its applypatch-msg hook: killed there, it leaves
	# rebase-apply, the scratch branch and the apply's pid marker.
	hook=$LINUX/.git/hooks/applypatch-msg
	printf '#!/bin/sh\ntouch %s\nsleep 120\n' "$BATS_TEST_TMPDIR/in-hook" >"$hook"
	chmod +x "$hook"
	setsid "$TOP/scripts/apply-series.sh" >"$BATS_TEST_TMPDIR/killed.log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do [ -e "$BATS_TEST_TMPDIR/in-hook" ] && break; sleep 0.1; done
	kill -KILL -- "-$pid"
	wait "$pid" || true
	rm -f "$hook"
	[ -d "$LINUX/.git/rebase-apply" ]
	git -C "$LINUX" rev-parse -q --verify "refs/heads/harness-test-apply-$pid"
	run "$TOP/scripts/apply-series.sh"
	[ "$status" -eq 0 ]
	[[ "$output" == *"repaired: aborted the git am that a killed run left"* ]]
	[[ "$output" == *"repaired: deleted harness-test-apply-$pid"* ]]
	[ ! -d "$LINUX/.git/rebase-apply" ]
	[ ! -e "$LINUX/.git/harness-apply.pid" ]
	[ "$(git -C "$LINUX" rev-parse harness-test^{tree})" = "$(git -C "$LINUX" rev-parse "$two^{tree}")" ]
}

@test "a rebase of your own in the base repository is not taken for a killed apply" {
	make_series "$BATS_TEST_TMPDIR/s"
	mkdir "$LINUX/.git/rebase-apply"
	: >"$LINUX/.git/rebase-apply/applying"
	run "$TOP/scripts/apply-series.sh"
	[ -e "$LINUX/.git/rebase-apply/applying" ]
	rm -r "$LINUX/.git/rebase-apply"
	[[ "$output" != *"repaired"* ]]
}
