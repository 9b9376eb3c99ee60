# SPDX-License-Identifier: GPL-2.0
"""configs/<name>.config: the metadata header and the fragment lines.
"""

import hashlib
import os
import re
import shutil

from .distcc import distcc_hosts
from .errors import ConfigError, ToolchainMissing
from .paths import BUILD, CONFIGS, DISTCC_WRAPPER, LLVM_BIN
from .proc import run
from .toolchain import self_built_bindir


SRCARCH = {
    "x86_64": "x86", "i386": "x86", "x86": "x86", "arm64": "arm64",
    "arm": "arm", "powerpc": "powerpc", "s390": "s390",
    "riscv": "riscv", "mips": "mips", "m68k": "m68k", "sparc": "sparc",
    "sparc64": "sparc", "sparc32": "sparc", "sh": "sh", "um": "um",
    "hexagon": "hexagon", "openrisc": "openrisc",
    "loongarch": "loongarch", "csky": "csky", "nios2": "nios2",
}


class Config:
    """A configs/<name>.config file: metadata header and fragment lines."""

    def __init__(self, path, variant=None, extra=(), builddir=None):
        """VARIANT names EXTRA fragment lines merged last (for example a
        symbol turned off); BUILDDIR overrides the build directory."""
        self.path = path
        self.name = os.path.basename(path)[:-len(".config")]
        if variant:
            self.name += "+" + variant
        self.extra = list(extra)
        self.meta = {}
        self.lines = []
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                m = re.match(r"^#\s*(arch|kconfig|fragments|toolchain|cross_compile|"
                             r"subarch|llvm|user_cc|image|console|qemu|tests|needs):\s*(.*)$", line)
                if m:
                    self.meta[m.group(1)] = m.group(2).strip()
                elif re.match(r"^(CONFIG_\w+=.*|# CONFIG_\w+ is not set)$", line):
                    self.lines.append(line)
        # A later line for the same symbol wins, as in merge_config.sh.
        syms = {re.search(r"CONFIG_\w+", e).group(0) for e in self.extra}
        self.lines = [ln for ln in self.lines
                      if re.search(r"CONFIG_\w+", ln).group(0) not in syms] + self.extra
        for key in ("arch", "kconfig", "toolchain"):
            if key not in self.meta:
                raise ConfigError(f"{path}: missing '# {key}:' header")
        self.arch = self.meta["arch"]
        self.srcarch = SRCARCH.get(self.arch, self.arch)
        if self.arch == "um":
            self.srcarch = "um"
        self.fragments = [os.path.join(CONFIGS, f)
                          for f in self.meta.get("fragments", "").split()]
        self.cross = self.meta.get("cross_compile", "")
        # '# needs: CONFIG_X': a symbol the series adds.  A step whose
        # tree does not define it cannot build this config.
        self.needs = self.meta.get("needs", "").split()
        self.builddir = builddir or os.path.join(BUILD, self.name)

    def digest(self):
        h = hashlib.sha256()
        for p in self.fragments + [self.path]:
            with open(p, "rb") as f:
                h.update(f.read())
        h.update("\n".join(self.extra).encode())
        return h.hexdigest()

    def compiler(self):
        """Return (cc, make variables) or raise ToolchainMissing(reason)."""
        if self.meta["toolchain"] == "clang":
            llvm = self.meta.get("llvm", LLVM_BIN)
            cc = os.path.join(llvm, "clang")
            if not os.access(cc, os.X_OK):
                raise ToolchainMissing(f"no toolchain: {cc} not found")
            return cc, {"LLVM": llvm + "/"}
        cc = self.cross + "gcc"
        if shutil.which(cc):
            return cc, {"CROSS_COMPILE": self.cross} if self.cross else {}
        bindir = self_built_bindir(self.cross)
        if bindir:
            return os.path.join(bindir, cc), {"CROSS_COMPILE": os.path.join(bindir, self.cross)}
        raise ToolchainMissing(f"no toolchain: {cc} not found (for the self-built "
                               "ones: make toolchains)")

    def make_vars(self):
        cc, extra = self.compiler()
        v = {"ARCH": self.arch, "O": self.builddir}
        if self.meta.get("subarch"):
            v["SUBARCH"] = self.meta["subarch"]
        if distcc_hosts():
            # A helper runs the compiler it finds by this name on its own
            # PATH (distcc_env() puts ours on the local one), never a
            # path under this user's home.
            cc = os.path.basename(cc)
            if "CROSS_COMPILE" in extra:
                extra["CROSS_COMPILE"] = os.path.basename(extra["CROSS_COMPILE"])
            if "LLVM" in extra:
                extra["LLVM"] = "1"
        v.update(extra)
        if shutil.which("ccache") and not os.environ.get("NO_CCACHE"):
            # With distcc, ccache_env() sets CCACHE_PREFIX to distcc (by
            # way of distcc-by-name): hits stay local, misses go out.
            v["CC"] = f"ccache {cc}"
            if self.meta["toolchain"] == "clang":
                v["HOSTCC"] = f"ccache {cc}"
            elif not distcc_hosts():
                # The host programs (kconfig, fixdep, modpost, dtc, ...)
                # are the same for every config: compiled once, they come
                # from ccache in every other build directory.
                v["HOSTCC"] = "ccache gcc"
        elif distcc_hosts():
            v["CC"] = f"{DISTCC_WRAPPER} {cc}"
        return v

    def version(self):
        try:
            cc, _ = self.compiler()
        except ToolchainMissing:
            return None
        return run([cc, "--version"], check=False).stdout.splitlines()[0]
