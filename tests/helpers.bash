# SPDX-License-Identifier: GPL-2.0
# Helpers for the bats tests of the harness.
# shellcheck shell=bash

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export TOP
# The tests judge what a build does: no verdict from the cache.
NO_CACHE=1
export NO_CACHE
# shellcheck source=../scripts/lib.sh
. "$TOP/scripts/lib.sh"

# commit_edit PARENT PATH SED-SCRIPT SUBJECT: make a commit on top of
# PARENT that edits PATH with sed, without touching any work tree.
# Prints the new commit id.
commit_edit()
{
	local parent=$1 path=$2 script=$3 subject=$4 blob tree
	local GIT_INDEX_FILE=$BATS_TEST_TMPDIR/index
	export GIT_INDEX_FILE
	git -C "$LINUX" read-tree "$parent"
	blob=$(git -C "$LINUX" show "$parent:$path" | sed "$script" |
		git -C "$LINUX" hash-object -w --stdin)
	git -C "$LINUX" update-index --cacheinfo "100644,$blob,$path"
	tree=$(git -C "$LINUX" write-tree)
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE \
	git_linux commit-tree "$tree" -p "$parent" -m "$subject" \
		-m "Test patch of the harness." \
		-m "Signed-off-by: $SERIES_IDENT_NAME <$SERIES_IDENT_EMAIL>"
}

# make_series DIR COMMIT...: write DIR/series and DIR/patches/test/*
# for the given commits (in order).
make_series()
{
	local dir=$1 n=0 c
	shift
	mkdir -p "$dir/patches/test"
	printf '# test series\n' > "$dir/series"
	for c in "$@"; do
		n=$((n + 1))
		f=$(git -C "$LINUX" format-patch --zero-commit --no-signature \
			--abbrev=12 --base="$BASE_TAG" --start-number=$n \
			-o "$dir/patches/test" -1 "$c")
		printf 'test/%s\n' "$(basename "$f")" >> "$dir/series"
	done
}

# cell JSON CONFIG STEP [KIND]: status of a matrix cell.
cell()
{
	"$TOP/scripts/harness" lines cell "$1" "$2" "$3" "${4:-objects}"
}
