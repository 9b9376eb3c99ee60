#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-base.sh - install the pinned base tarball, verify it and make
# the base git repository.
#
# Usage: [BASE=NAME] scripts/fetch-base.sh [-h]
#
# The pin is bases/$BASE.base (default 6.1).  Installs $BASE_PACKAGE=
# $BASE_VERSION with apt-get (as root) when the installed version
# differs, checks the sha256 of $BASE_TARBALL, unpacks it into $LINUX
# and commits it as the single commit tagged 'base'.  A verified
# tarball is kept in $BASE_CACHE (by sha256), so a pin that has left
# Debian's archive keeps working where it was fetched once; when it
# cannot be installed, the error lists the versions that can.  An
# existing base repository made from the pinned tarball is kept as it
# is.  Nothing is unpacked unless the checksum matches, and a failed
# unpack leaves no partial tree behind.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

BASE_CACHE=${BASE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptdesc-series/bases}
cached=$BASE_CACHE/$BASE_SHA256.tar.xz

installed_version()
{
	dpkg-query -W -f='${Status} ${Version}' "$BASE_PACKAGE" 2>/dev/null |
		sed -n 's/^install ok installed //p'
}

ensure_package()
{
	local found
	found=$(installed_version || true)
	[ "$found" = "$BASE_VERSION" ] && return 0

	if [ "$(id -u)" -ne 0 ]; then
		die "$BASE_PACKAGE: expected version $BASE_VERSION, found '${found:-not installed}'; run as root to install it.
Versions apt can install: $(installable)"
	fi
	log "installing $BASE_PACKAGE=$BASE_VERSION (found: ${found:-not installed})"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades \
		--no-install-recommends "$BASE_PACKAGE=$BASE_VERSION" >/dev/null 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--allow-downgrades --no-install-recommends \
			"$BASE_PACKAGE=$BASE_VERSION" >/dev/null; } ||
		die "$BASE_PACKAGE: cannot install version $BASE_VERSION (found: ${found:-not installed}); refusing to use another base.
Versions apt can install: $(installable)
To move the pin, edit version and sha256 in $BASES/$BASE.base"
	found=$(installed_version || true)
	[ "$found" = "$BASE_VERSION" ] ||
		die "$BASE_PACKAGE: expected version $BASE_VERSION, found '${found:-not installed}' after install"
}

# installable: the versions of $BASE_PACKAGE apt knows, on one line.
installable()
{
	local v
	v=$(apt-cache madison "$BASE_PACKAGE" 2>/dev/null |
		awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -Vu | paste -sd' ')
	echo "${v:-none (is the archive that carries $BASE_PACKAGE in the sources of apt?)}"
}

# verify FILE: die unless FILE has the pinned sha256.
verify()
{
	local found
	[ -f "$1" ] || die "$1: not found"
	log "verifying $1"
	found=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$found" = "$BASE_SHA256" ] ||
		die "$1: sha256 mismatch: expected $BASE_SHA256, found $found"
}

# keep_verified: a hard link (a copy across file systems) of the
# verified tarball under its sha256, which a later install of another
# version does not replace.
keep_verified()
{
	{ mkdir -p "$BASE_CACHE" &&
	  { ln -f "$BASE_TARBALL" "$cached.tmp" 2>/dev/null || cp "$BASE_TARBALL" "$cached.tmp"; } &&
	  mv "$cached.tmp" "$cached"; } ||
		{ rm -f "$cached.tmp"; warn "cannot keep a copy in $BASE_CACHE; going on without it"; }
}

# cached_is_good: a tarball fetched once, and still the pinned one.
cached_is_good()
{
	[ -f "$cached" ] && [ "$(sha256sum "$cached" | cut -d' ' -f1)" = "$BASE_SHA256" ]
}

# no_auto_gc REPO: the base commit leaves some 78,000 loose objects, so
# the first 'git am' or 'git commit' of any script would start an
# automatic 'git gc' that packs all of them (minutes of CPU on 2 cores).
# Nothing gains from a packed base; turn automatic gc off.
no_auto_gc()
{
	git -C "$1" config gc.auto 0
}

base_is_ready()
{
	git -C "$LINUX" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1 &&
	[ "$(git -C "$LINUX" config harness.base-sha256 || true)" = "$BASE_SHA256" ]  &&
	[ "$(git -C "$LINUX" config harness.base-version || true)" = "$BASE_VERSION" ]
}

make_repo()
{
	local tmp top
	mkdir -p "$WORK"
	tmp=$(mktemp -d "$WORK/.unpack.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT

	log "unpacking into $LINUX"
	tar -C "$tmp" -xJf "$1"
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	if [ "$(echo "$top" | wc -l)" != 1 ] || [ ! -f "$top/Makefile" ]; then
		die "$1: unexpected layout (no single top directory with a Makefile)"
	fi

	log "committing the base tree (Debian's .gitignore ignores '/*': adding with -f)"
	git -C "$top" init -q -b master
	LINUX=$top git_linux add -A -f
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE \
	LINUX=$top git_linux commit -q -m "Debian $BASE_PACKAGE $BASE_VERSION

Unpacked from $(basename "$BASE_TARBALL"), sha256 $BASE_SHA256."
	LINUX=$top git_linux tag "$BASE_TAG"
	LINUX=$top git_linux config harness.base-sha256 "$BASE_SHA256"
	LINUX=$top git_linux config harness.base-version "$BASE_VERSION"
	no_auto_gc "$top"

	rm -rf "$LINUX"
	mv "$top" "$LINUX"
	rm -rf "$tmp"
	trap - EXIT
	log "base: $(git -C "$LINUX" rev-parse "$BASE_TAG") ($(git -C "$LINUX" ls-files | wc -l) files)"
}

if base_is_ready; then
	no_auto_gc "$LINUX"
	log "base tree present: $LINUX at $(git -C "$LINUX" rev-parse --short "$BASE_TAG")"
	exit 0
fi
if cached_is_good; then
	log "using $cached (verified when it was fetched)"
	make_repo "$cached"
	exit 0
fi
if [ -z "${BASE_SKIP_INSTALL:-}" ]; then
	ensure_package
fi
verify "$BASE_TARBALL"
keep_verified
make_repo "$BASE_TARBALL"
