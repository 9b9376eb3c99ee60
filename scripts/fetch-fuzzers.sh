#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-fuzzers.sh - Debian's trinity and stress-ng for a guest arch.
#
# Usage: scripts/fetch-fuzzers.sh DEBARCH...   (amd64, arm64)
#
# Downloads the pinned trinity and stress-ng packages of DEBARCH and
# every package they depend on, and unpacks them (dpkg -x, nothing is
# installed) into $FUZZERS/DEBARCH/root (default
# ~/.cache/ptdesc-series/fuzz), from where 'harness fuzz' copies the two
# programs and the libraries they need into the guest's initramfs.  A
# foreign DEBARCH is added to dpkg's architectures first, which needs
# root; an arch already unpacked needs nothing.  A version other than
# the pinned one is refused.
set -euo pipefail

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ] || [ $# -eq 0 ]; then
	sed -n '3,14s/^# \{0,1\}//p' "$0"
	[ $# -eq 0 ] && exit 2
	exit 0
fi

# The versions the results in Documentation/runtime.md were taken with.
declare -A PIN=([trinity]=1.9+git20230109.87f1530-1 [stress-ng]=0.15.06-2)
FUZZERS=${FUZZERS:-$HOME/.cache/ptdesc-series/fuzz}

die() { echo "fetch-fuzzers: error: $*" >&2; exit 2; }

native=$(dpkg --print-architecture)

for arch in "$@"; do
	case $arch in amd64|arm64) ;; *) die "unknown guest arch '$arch': amd64 or arm64" ;; esac
	dest=$FUZZERS/$arch
	if [ -f "$dest/done" ]; then
		echo "fetch-fuzzers: $arch: present in $dest"
		continue
	fi
	[ "$(id -u)" -eq 0 ] || die "$arch: run as root (dpkg --add-architecture, apt-get update)"
	mkdir -p "$FUZZERS"
	if [ "$arch" != "$native" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		echo "fetch-fuzzers: adding dpkg architecture $arch"
		dpkg --add-architecture "$arch"
		apt-get update -qq
	fi
	# Every package trinity and stress-ng depend on, recursively; apt
	# prints virtual packages in <>, which have nothing to download.
	mapfile -t pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		"trinity:$arch" "stress-ng:$arch" | grep -v '^ ' | grep -v '^<' | sort -u)
	[ ${#pkgs[@]} -gt 1 ] || die "$arch: apt knows no trinity or stress-ng (apt-get update?)"
	tmp=$(mktemp -d "$FUZZERS/.$arch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "fetch-fuzzers: $arch: downloading ${#pkgs[@]} packages"
	(cd "$tmp" && apt-get download -qq "${pkgs[@]}" >/dev/null 2>&1) ||
		die "$arch: apt-get download failed"
	for name in trinity stress-ng; do
		debs=("$tmp/${name}"_*_"$arch".deb)
		deb=${debs[0]}
		[ -e "$deb" ] || die "$arch: no $name package downloaded"
		v=$(dpkg-deb -f "$deb" Version)
		[ "$v" = "${PIN[$name]}" ] || die "$arch: $name is $v, pinned ${PIN[$name]}"
	done
	mkdir -p "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$tmp/root"
	done
	rm -rf "$dest"
	mkdir -p "$dest"
	mv "$tmp/root" "$dest/root"
	echo "trinity ${PIN[trinity]} stress-ng ${PIN[stress-ng]}" > "$dest/done"
	rm -rf "$tmp"
	trap - EXIT
	echo "fetch-fuzzers: $arch: unpacked into $dest/root"
done
