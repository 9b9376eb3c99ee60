# SPDX-License-Identifier: GPL-2.0
"""harness paths: the paths of paths.py as NAME=value lines, quoted for
shell, so that lib.sh reads them instead of keeping copies; with
--toolchain-root, the directory of the self-built compilers (none
printed, and status 1, without their source packages); with --per-base,
the names of the variables whose defaults follow BASE, one per line."""

import argparse
import shlex

from . import paths
from .toolchain import toolchain_root


def render():
    return "".join(f"{k}={shlex.quote(v)}\n" for k, v in paths.EXPORTED.items())


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness paths", description=__doc__)
    ap.add_argument("--toolchain-root", action="store_true")
    ap.add_argument("--per-base", action="store_true")
    args = ap.parse_args(argv)
    if args.per_base:
        print("\n".join(paths.PER_BASE))
        return 0
    if args.toolchain_root:
        root = toolchain_root()
        if root:
            print(root)
        return 0 if root else 1
    print(render(), end="")
    return 0
