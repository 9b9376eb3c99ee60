# SPDX-License-Identifier: GPL-2.0
"""The command line: one subcommand per check, in the manner of
kunit.py's subcommand map.  Errors are caught here and only here.

  scripts/harness matrix --steps all --configs x86_64
  scripts/harness lines matrix work/results/matrix-steps/matrix.json
  scripts/harness paths
"""

import argparse
import sys

from . import (api, asserts, bases, bench, bloat, bloat_per_patch, boot, ccache_check,
               conversions,
               distcc_check, fault, fuzz, kunit, layout, matrix, merge, page_use, paths, paths_cmd,
               repair, results, samecode, series)
from .errors import HarnessError

# subcommand: (its module, what it does).  Each module has main(argv) and
# parses its own options ('harness matrix -h').
COMMANDS = {
    "matrix": (matrix, "build every step of the series on configs (the matrix)"),
    "merge": (merge, "merge matrix runs over disjoint cells"),
    "layout": (layout, "offsets of struct ptdesc fields per config"),
    "asserts": (asserts, "a misaligned descriptor field must break the build"),
    "api": (api, "the final tree has mainline 6.12's ptdesc helpers and types"),
    "ccache-objects": (ccache_check, "objects through ccache equal those without"),
    "page-use": (page_use, "struct page uses in mm/zsmalloc.c outside zsdesc helpers"),
    "conversions": (conversions, "the functions each arch patch converts"),
    "kunit": (kunit, "the series' KUnit suites with kunit.py, under UML and QEMU"),
    "boot": (boot, "boot base and series under QEMU and stress them"),
    "fault": (fault, "the runtime stress with allocations failing, base against series"),
    "fuzz": (fuzz, "trinity and stress-ng on the mm system calls, base against series"),
    "bench": (bench, "run time of the series against the base, A B A B"),
    "bloat": (bloat, "code size of the series against the base"),
    "bloat-per-patch": (bloat_per_patch, "object code size of each patch"),
    "samecode": (samecode, "the code of every function is the same in two vmlinux files"),
    "distcc": (distcc_check, "the matrix through loopback distcc helpers"),
    "lines": (results, "result lines of a matrix.json or boot.json"),
    "paths": (paths_cmd, "the harness's paths as NAME=value lines for shell"),
    "bases": (bases, "the bases described in bases/ (--with-tier: those with a tier)"),
    "series": (series, "the entries and parts of the series file"),
    "repair": (repair, "repair what a killed run left in a repository or worktree"),
}


def parser():
    ap = argparse.ArgumentParser(
        prog="harness", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The harness of the struct ptdesc / struct zsdesc series.",
        epilog="commands:\n" + "\n".join(f"  {k:16} {v[1]}" for k, v in COMMANDS.items())
        + "\n\n'harness COMMAND -h' describes a command's options.")
    ap.add_argument("command", choices=COMMANDS, metavar="command")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    paths.set_prog(f"harness {args.command}")
    module = COMMANDS[args.command][0]
    try:
        if paths.BASE_ERROR:
            raise paths.BASE_ERROR
        return module.main(args.args) or 0
    except HarnessError as e:
        print(f"{paths.PROG}: error: {e}", file=sys.stderr, flush=True)
        return e.status
    except KeyboardInterrupt:
        print(f"{paths.PROG}: interrupted", file=sys.stderr, flush=True)
        return 130
