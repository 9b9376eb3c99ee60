# SPDX-License-Identifier: GPL-2.0
"""Compiler output: warnings and the first error, with paths in the tree.
"""

import os
import re

from .paths import TREE


WARN_RE = re.compile(r"^(?P<file>[^\s:]+):\d+(?::\d+)?: (?P<kind>warning|error): (?P<msg>.*)$")


def first_error(out):
    for line in out.splitlines():
        if ": error:" in line or "Error " in line or "*** " in line:
            return line.strip()
    lines = out.strip().splitlines()
    return lines[-1].strip() if lines else "(no output)"


def tree_path(path, builddir):
    """PATH from a compiler message, relative to the tree or the build dir.

    ccache replays the compiler's output as it was when the object was
    stored.  With CCACHE_BASEDIR and CCACHE_NOHASHDIR the key holds the
    paths relative to the build directory ('../../tree/mm/memory.c'),
    so every checkout with that layout shares it, and a hit can print
    the absolute path of another one's tree or build directory:
    /elsewhere/work/tree/mm/memory.c.  Such a path is mapped back
    through the part the layouts share ('/tree/' here, the build
    directory's own name for its files), if that file exists here."""
    f = os.path.normpath(os.path.join(builddir, path))
    for root in (TREE, builddir):
        if f.startswith(root + "/"):
            return f[len(root) + 1:]
    if os.path.isabs(path):
        shared = [p for p in os.path.relpath(TREE, builddir).split("/") if p != ".."]
        for root, tail in ((TREE, shared), (builddir, [os.path.basename(builddir)])):
            mark = "/" + "/".join(tail) + "/"
            at = f.find(mark) if tail else -1
            while at >= 0:
                rest = f[at + len(mark):]
                if os.path.exists(os.path.join(root, rest)):
                    return rest
                at = f.find(mark, at + 1)
    return f


def parse_warnings(out, builddir):
    """Warnings as 'path-in-tree: message', without line numbers."""
    found = set()
    for line in out.splitlines():
        m = WARN_RE.match(line.strip())
        if m and m.group("kind") == "warning":
            found.add(f"{tree_path(m.group('file'), builddir)}: {m.group('msg')}")
    return found
