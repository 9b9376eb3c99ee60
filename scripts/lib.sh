# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - helpers shared by the harness scripts.  Source it; do not run it.
#
# Paths (all overridable from the environment):
#   TOP      the repository
#   WORK     ignored work directory (base tree, worktrees, results)
#   BUILD    out-of-tree build directories, one per config
#   LINUX    the git repository made from the base tarball

# shellcheck shell=bash

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
HARNESS=$TOP/scripts/harness
# The paths and the pinned base (BASE_PACKAGE, BASE_VERSION,
# BASE_TARBALL, BASE_SHA256, from bases/$BASE.base) are the package's
# (scripts/mdesc/paths.py), which reads the same variables: one
# definition for shell and Python.
_paths=$(TOP=$TOP "$HARNESS" paths) || {
	echo "lib.sh: error: '$HARNESS paths' failed" >&2
	exit 1
}
eval "$_paths"

# Identity and dates used for every commit the harness makes, so that
# the base commit and the applied series have the same ids everywhere.
SERIES_IDENT_NAME="Seed 94165a68 maintainers"
SERIES_IDENT_EMAIL="maintainers@users.noreply.a-seed-94165a68.example"
BASE_DATE="2026-01-01T00:00:00Z"
export BASE_DATE

PROG=${PROG:-$(basename "$0")}

log()  { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die()  { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

# usage TEXT...: print the script's help block (comment lines 3.. up to
# the first 'set -') when -h or --help is the first argument.
maybe_usage()
{
	case "${1:-}" in
	-h|--help)
		sed -n '3,/^set -/{/^set -/d;s/^# \{0,1\}//;s/^#$//;p}' "$0"
		exit 0 ;;
	esac
}

# git_linux ARGS...: git in the base repository with the harness identity.
git_linux()
{
	GIT_AUTHOR_NAME=$SERIES_IDENT_NAME GIT_AUTHOR_EMAIL=$SERIES_IDENT_EMAIL \
	GIT_COMMITTER_NAME=$SERIES_IDENT_NAME \
	GIT_COMMITTER_EMAIL=$SERIES_IDENT_EMAIL \
		git -C "$LINUX" -c core.autocrlf=false -c gc.auto=0 \
		    -c advice.detachedHead=false "$@"
}

# Outputs of the text-only checks cached by content, as the package
# caches a compile cell's verdict (scripts/mdesc/cache.py), under
# $VERDICT_CACHE/KIND/KEY.  KEY is the sha256 of everything that decides
# the output (the caller's inputs and the caller itself); only what a
# check passed with is stored.  NO_CACHE=1 turns both off.
# cache_get KIND KEY: print the stored output; fails on a miss.
cache_get()
{
	[ -z "${NO_CACHE:-}" ] && [ -f "$VERDICT_CACHE/$1/$2" ] && cat "$VERDICT_CACHE/$1/$2"
}

# cache_put KIND KEY: store stdin (whole or not at all).
cache_put()
{
	local d=$VERDICT_CACHE/$1 tmp
	if [ -n "${NO_CACHE:-}" ]; then
		cat >/dev/null
		return 0
	fi
	if ! { mkdir -p "$d" && tmp=$(mktemp "$d/.$2.XXXXXX") && cat >"$tmp" &&
		mv -f "$tmp" "$d/$2"; }; then
		rm -f "${tmp:-}"
		warn "verdict cache $d not written; the next run checks again"
	fi
}

require_base()
{
	git -C "$LINUX" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1 ||
		die "no base tree in $LINUX; run 'make base' first"
}

# require_clean DIR: refuse to work on a tree with local changes.
require_clean()
{
	local dirty
	dirty=$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null | head -n 5)
	[ -z "$dirty" ] ||
		die "work tree $1 is dirty; commit or discard these first:
$dirty"
}

# series_entries: patch paths listed in $SERIES, in order.
series_entries()
{
	"$HARNESS" series entries
}

# read_series ARRAY: the series entries into ARRAY; dies if the series
# file cannot be read (a failure inside 'mapfile < <(...)' would pass
# unseen, and an empty list would look like an empty series).
read_series()
{
	local -n _rs=$1
	local list
	list=$(series_entries) || die "cannot read the series file $SERIES"
	_rs=()
	[ -z "$list" ] || mapfile -t _rs <<<"$list"
}

# part_keys KEY PART ARRAY: into ARRAY, the parts PART applies on top
# of (KEY 'depends') or the words before PATCH in its subjects (KEY
# 'prefix'), from the banner keys of $SERIES; dies if they are wrong.
part_keys()
{
	local -n _pk=$3
	local list
	list=$("$HARNESS" series "$1" "$2") || die "cannot read the banner keys of $SERIES"
	_pk=()
	[ -z "$list" ] || mapfile -t _pk <<<"$list"
}

# lock_worktree DIR: hold an exclusive lock on the worktree at DIR until
# the script exits, so that two runs never check out commits in the same
# tree; die, naming the holder, when another run has it.
LOCKED_TREES=" "
lock_worktree()
{
	local dir holder fd
	dir=$(realpath -m -s "$1")
	case $LOCKED_TREES in *" $dir "*) return 0 ;; esac
	mkdir -p "$(dirname "$dir")"
	exec {fd}>>"$dir.lock"
	if ! flock -n "$fd"; then
		holder=$(cat "$dir.lock" 2>/dev/null)
		die "work tree $dir is in use by another run (${holder:-holder unknown}); wait for it, or give this run its own TREE and BUILD"
	fi
	printf 'pid %s: %s\n' "$$" "$PROG" >"$dir.lock"
	LOCKED_TREES="$LOCKED_TREES$dir "
}

# ensure_worktree DIR: lock the worktree of the base repository at DIR,
# adding it (detached, at the base) if it does not exist yet.
ensure_worktree()
{
	lock_worktree "$1"
	# Ours now: an index lock that no process holds is a killed run's.
	[ -e "$1/.git" ] && { "$HARNESS" repair "$1"; return 0; }
	# One 'worktree prune' + 'add' at a time in the repository: a prune
	# beside another run's add could drop its new entry.
	(
		flock 9
		git -C "$LINUX" worktree prune
		git_linux worktree add -q -f --detach "$1" "$BASE_TAG"
	) 9>>"$LINUX/.git/harness-worktrees.lock"
}

# part_files PART ENTRIES ARRAY: into ARRAY, the patch files of PART's
# entries in the array named ENTRIES, in series order.
part_files()
{
	local -n _pf_list=$2 _pf=$3
	local e
	_pf=()
	for e in "${_pf_list[@]}"; do
		case $e in "$1"/*) _pf+=("$PATCHES/$e") ;; esac
	done
}

# part_range PART ENTRIES COMMITS: print "first last", the commits of
# PART, given the names of two arrays in step: series entries (or
# exported patch names) and the commits that carry them.
part_range()
{
	local part=$1 i first="" last=""
	local -n _pr_list=$2 _pr_commits=$3
	for i in "${!_pr_list[@]}"; do
		case "${_pr_list[$i]}" in "$part"/*)
			[ -n "$first" ] || first=${_pr_commits[$i]}
			last=${_pr_commits[$i]} ;;
		esac
	done
	[ -n "$first" ] && echo "$first $last"
}

# Self-built cross compilers (scripts/build-toolchain.sh) for the arches
# Debian 12 ships none for.  They live outside the repository, keyed by
# the versions of the two source packages they are built from.
TOOLCHAINS=${TOOLCHAINS:-${XDG_CACHE_HOME:-$HOME/.cache}/ptdesc-series/toolchains}
TOOLCHAIN_TARGETS=${TOOLCHAIN_TARGETS:-"loongarch64-linux-gnu csky-linux-gnu nios2-linux-gnu"}

# toolchain_root: print the directory of the toolchains built from the
# installed binutils-source and gcc-12-source; fail if either is missing.
toolchain_root()
{
	TOOLCHAINS=$TOOLCHAINS "$HARNESS" paths --toolchain-root
}
