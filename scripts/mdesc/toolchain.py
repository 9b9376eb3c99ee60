# SPDX-License-Identifier: GPL-2.0
"""Where the self-built cross compilers (make toolchains) live.
"""

import os
import subprocess


def toolchain_root():
    """Directory of the compilers scripts/build-toolchain.sh builds,
    keyed like lib.sh's toolchain_root(); None without the sources."""
    vers = []
    for pkg in ("binutils-source", "gcc-12-source"):
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode or not p.stdout:
            return None
        vers.append(p.stdout)
    cache = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    root = os.environ.get("TOOLCHAINS", os.path.join(cache, "ptdesc-series", "toolchains"))
    return os.path.join(root, f"binutils-{vers[0]}_gcc-{vers[1]}")


def self_built_bindir(prefix):
    """bin directory of a self-built toolchain for PREFIX (a CROSS_COMPILE
    value such as 'csky-linux-gnu-'), or None."""
    if not prefix:
        return None
    root = toolchain_root()
    if not root:
        return None
    bindir = os.path.join(root, prefix.rstrip("-"), "bin")
    return bindir if os.access(os.path.join(bindir, prefix + "gcc"), os.X_OK) else None
