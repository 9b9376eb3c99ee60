# SPDX-License-Identifier: GPL-2.0
"""make command lines and the ccache environment of every build.
"""

import os

from .distcc import distcc_hosts, distcc_path
from .paths import DISTCC_WRAPPER, TREE, WORK


def relative_prefix_map(tree, builddir):
    """-fmacro-prefix-map for the tree as ccache shows it to the compiler.

    With CCACHE_BASEDIR, ccache rewrites the absolute paths of the
    command line relative to the build directory ('../../tree/mm/
    memory.c') and, in its preprocessor mode, compiles with them.  The
    kernel's own -fmacro-prefix-map=$(srctree)/= then no longer matches,
    and __FILE__ in every WARN() and BUG() is '../../tree/mm/memory.c'
    instead of 'mm/memory.c'.  Depend mode compiles with the original
    paths, under the same cache key: which object a hit returns would
    depend on which mode stored it.  Mapping the relative form too
    makes both give the object a build without ccache gives."""
    rel = os.path.relpath(os.path.realpath(tree), os.path.realpath(builddir))
    return f"-fmacro-prefix-map={rel}/="


def make_cmd(cfg, targets, jobs, tree=None, keep_going=True, relmap=True):
    tree = tree or TREE
    v = cfg.make_vars()
    if relmap and v.get("CC", "").startswith("ccache "):
        v["KCFLAGS"] = " ".join(filter(None, (os.environ.get("KCFLAGS"),
                                              relative_prefix_map(tree, cfg.builddir))))
    cmd = ["make", "-C", tree, f"-j{jobs}"]
    if keep_going:
        cmd.append("-k")
    cmd += [f"{k}={val}" for k, val in v.items()]
    return cmd + list(targets)


def ccache_env():
    env = dict(os.environ)
    # Depend mode: on a miss, ccache takes the headers from the
    # compiler's own -MMD output instead of running the preprocessor
    # first; a cold kernel build is then no slower than one without
    # ccache (mm/ and kernel/ on x86_64: 122 s in preprocessor mode,
    # 92 s in depend mode, 96 s without ccache).
    env.update(CCACHE_BASEDIR=WORK, CCACHE_NOHASHDIR="1", CCACHE_DEPEND="1",
               CCACHE_SLOPPINESS="time_macros,include_file_mtime,include_file_ctime",
               CCACHE_COMPILERCHECK="content")
    env.setdefault("CCACHE_MAXSIZE", "20G")
    if distcc_hosts():
        env["CCACHE_PREFIX"] = DISTCC_WRAPPER
        env["PATH"] = os.pathsep.join(distcc_path() + [env.get("PATH", os.defpath)])
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    env.pop("MAKELEVEL", None)
    return env
