#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh - install every Debian 12 package the harness uses.
#
# Usage: scripts/install-deps.sh [-h]
#
# Run as root.  Installs build tools, the cross compilers of the matrix,
# quilt, ccache, sparse, coccinelle and bats, QEMU and the cross C
# libraries of the runtime test, and the sources of the self-built
# cross compilers.  The pinned base package
# itself is installed by scripts/fetch-base.sh, which checks its version.
set -euo pipefail

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
	sed -n '3,10s/^# \{0,1\}//p' "$0"
	exit 0
fi

PACKAGES=(
	# kernel build
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod
	rsync python3 perl git xz-utils
	# harness
	quilt ccache sparse coccinelle bats shellcheck jq
	# mail: b4 prepares and reads back the messages (make mail)
	b4
	# unit tests and lint of the harness package (make unit)
	python3-pytest python3-coverage flake8 mypy
	# distributed compiles (DISTCC_HOSTS; make distcc)
	distcc
	# cross compilers of the matrix (configs/*.config name them)
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabi gcc-i686-linux-gnu
	gcc-powerpc64le-linux-gnu gcc-powerpc-linux-gnu gcc-powerpc64-linux-gnu
	gcc-s390x-linux-gnu gcc-riscv64-linux-gnu
	gcc-mips-linux-gnu gcc-mips64-linux-gnuabi64
	gcc-m68k-linux-gnu gcc-sparc64-linux-gnu gcc-sh4-linux-gnu
	gcc-or1k-elf
	clang-14 lld-14 llvm-14
	# runtime test: QEMU, static user space for each booted arch
	qemu-system-x86 qemu-system-arm qemu-system-misc qemu-system-ppc
	busybox-static libc6-dev-i386-cross libc6-dev-arm64-cross
	libc6-dev-armel-cross libc6-dev-riscv64-cross libc6-dev-ppc64el-cross
	libc6-dev-s390x-cross libc6-dev-m68k-cross libc6-dev-sh4-cross
	# sources of the self-built cross compilers (make toolchains)
	binutils-source gcc-12-source libgmp-dev libmpfr-dev libmpc-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PACKAGES[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root to install them" >&2
	exit 1
fi

echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
