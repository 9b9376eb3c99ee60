#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-toolchain.sh - build a bare (C only, no libc) cross gcc and
# binutils for an architecture Debian 12 ships no compiler for.
#
# Usage: scripts/build-toolchain.sh [-h] [--list] [TARGET...]
#
# TARGET is a GNU triplet; without one, every triplet in TOOLCHAIN_TARGETS
# that is not installed yet is built.  --list prints each triplet with its
# state (installed, or missing) and exits.
#
# Sources are Debian's binutils-source and gcc-12-source, the way
# kernel.org's crosstool builds its compilers: binutils, then gcc's
# all-gcc and all-target-libgcc, with Debian's gcc-gfdl-build.diff so the
# DFSG tarball builds without its GFDL documentation.
#
# Toolchains go under $TOOLCHAINS (default ~/.cache/ptdesc-series/
# toolchains), outside the repository, in a directory keyed by the two
# source package versions, so every checkout shares them and a source
# upgrade builds new ones.  A toolchain is installed into a temporary
# prefix and renamed into place only when it is complete.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

list=0
if [ "${1:-}" = "--list" ]; then
	list=1
	shift
fi

targets=("$@")
[ ${#targets[@]} -gt 0 ] || read -r -a targets <<<"$TOOLCHAIN_TARGETS"

root=$(toolchain_root) || die "binutils-source and gcc-12-source are not installed; run 'make deps' as root"

if [ $list -eq 1 ]; then
	for t in "${targets[@]}"; do
		if [ -x "$root/$t/bin/$t-gcc" ]; then
			echo "$t installed $root/$t"
		else
			echo "$t missing"
		fi
	done
	exit 0
fi

BINUTILS_TARBALL=$(ls /usr/src/binutils/binutils-*.tar.xz)
GCC_TARBALL=$(ls /usr/src/gcc-12/gcc-*-dfsg.tar.xz)
GFDL_PATCH=/usr/src/gcc-12/debian/patches/gcc-gfdl-build.diff
for f in "$BINUTILS_TARBALL" "$GCC_TARBALL" "$GFDL_PATCH"; do
	[ -r "$f" ] || die "missing $f; run 'make deps' as root"
done

for cmd in gcc g++ make flex bison; do
	command -v "$cmd" >/dev/null || die "$cmd not found; run 'make deps' as root"
done

JOBS=${JOBS:-$(nproc)}
src=$root/src
mkdir -p "$src"

# unpack TARBALL NAME: unpack once per key, shared by every target.
unpack()
{
	local tarball=$1 name=$2
	[ -e "$src/$name.unpacked" ] && return 0
	log "unpacking $(basename "$tarball")"
	rm -rf "${src:?}/$name" "$src/$name.tmp"
	mkdir -p "$src/$name.tmp"
	tar -xJf "$tarball" -C "$src/$name.tmp" --strip-components=1
	if [ "$name" = gcc ]; then
		(cd "$src/$name.tmp" && patch -s -p2 <"$GFDL_PATCH")
	fi
	mv "$src/$name.tmp" "$src/$name"
	touch "$src/$name.unpacked"
}

build_one()
{
	local t=$1 prefix=$root/$1 tmp bld start
	if [ -x "$prefix/bin/$t-gcc" ]; then
		log "$t: already installed in $prefix"
		return 0
	fi
	unpack "$BINUTILS_TARBALL" binutils
	unpack "$GCC_TARBALL" gcc

	tmp=$prefix.tmp.$$
	bld=$root/build.$t.$$
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp' '$bld'" EXIT
	rm -rf "$tmp" "$bld"
	mkdir -p "$bld/binutils" "$bld/gcc"
	start=$(date +%s)

	log "$t: binutils (log: $bld/binutils.log)"
	(cd "$bld/binutils" &&
	 "$src/binutils/configure" --target="$t" --prefix="$tmp" \
		--disable-nls --disable-werror --disable-multilib \
		--disable-gdb --disable-gdbserver --disable-sim \
		--disable-readline --disable-libdecnumber --disable-gprofng \
		MAKEINFO=true &&
	 make -j"$JOBS" MAKEINFO=true &&
	 make install MAKEINFO=true) >"$bld/binutils.log" 2>&1 ||
		{ tail -n 30 "$bld/binutils.log" >&2; die "$t: binutils failed"; }
	log "$t: binutils done in $(( $(date +%s) - start )) s"

	log "$t: gcc (C only, no libc; log: $bld/gcc.log)"
	(cd "$bld/gcc" && export PATH="$tmp/bin:$PATH" &&
	 "$src/gcc/configure" --target="$t" --prefix="$tmp" \
		--without-headers --with-newlib --enable-languages=c \
		--disable-shared --disable-threads --disable-multilib \
		--disable-nls --disable-bootstrap --disable-decimal-float \
		--disable-libssp --disable-libquadmath --disable-libgomp \
		--disable-libatomic --disable-libsanitizer --disable-libitm \
		--disable-libvtv --disable-libstdcxx \
		MAKEINFO=true &&
	 make -j"$JOBS" MAKEINFO=true all-gcc all-target-libgcc &&
	 make MAKEINFO=true install-gcc install-target-libgcc) \
		>"$bld/gcc.log" 2>&1 ||
		{ tail -n 30 "$bld/gcc.log" >&2; die "$t: gcc failed"; }

	"$tmp/bin/$t-gcc" --version >/dev/null ||
		die "$t: the new gcc does not run"
	# Binaries do not embed the prefix (gcc finds its parts relative
	# to itself), so the finished tree can be renamed into place.
	rm -rf "$prefix"
	mv "$tmp" "$prefix"
	rm -rf "$bld"
	trap - EXIT
	echo "$(( $(date +%s) - start ))" >"$prefix/build-seconds"
	log "$t: installed in $prefix ($(cat "$prefix/build-seconds") s)"
}

for t in "${targets[@]}"; do
	build_one "$t"
done
