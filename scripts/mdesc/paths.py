# SPDX-License-Identifier: GPL-2.0
"""Paths and settings of the harness, read once from the environment.

BASE names the base (bases/NAME.base, default 6.1); its description
gives the defaults of WORK, SERIES and PATCHES, so that two bases never
share a tree, a build directory or a result.  Every directory can be
moved with the variable of its name (WORK, LINUX, BUILD, TREE, RESULTS,
MUTANT, SERIES, CONFIGS, PATCHES); shell asks for them with
'scripts/harness paths' (lib.sh does) instead of keeping a copy of its
own.  Every path is absolute: a relative RESULTS would mean another
directory to each command that changes into a tree.
"""

import os
import sys

from . import bases

# scripts/mdesc/paths.py: the repository is two levels up.
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# BASES moves the descriptions (the tests point it at a wrong pin).
BASES = os.path.abspath(os.environ.get("BASES") or os.path.join(TOP, "bases"))


def _env(name, default):
    """$NAME made absolute, or DEFAULT when it is unset or empty."""
    return os.path.abspath(os.environ.get(name) or default)


# An unknown BASE must not fail the import (every module imports this
# one, and 'harness -h' must still work): the default's paths stand
# and cli.main reports BASE_ERROR before any command runs.
BASE_ERROR = None
try:
    BASE = bases.load(BASES, os.environ.get("BASE") or bases.DEFAULT)
except bases.BaseError as e:
    BASE_ERROR = e
    BASE = bases.load(os.path.join(TOP, "bases"), bases.DEFAULT)

WORK = _env("WORK", os.path.join(TOP, BASE.work))
LINUX = _env("LINUX", os.path.join(WORK, "linux"))
BUILD = _env("BUILD", os.path.join(WORK, "build"))
TREE = _env("TREE", os.path.join(WORK, "tree"))
RESULTS = _env("RESULTS", os.path.join(WORK, "results"))
# The scratch worktree of the checks that edit or rebuild objects on
# purpose (the asserts and ccache-objects checks).
MUTANT = _env("MUTANT", os.path.join(WORK, "mutant"))
SERIES = _env("SERIES", os.path.join(TOP, BASE.series))
PATCHES = _env("PATCHES", os.path.join(TOP, BASE.patches))
CONFIGS = _env("CONFIGS", os.path.join(TOP, "configs"))
# The verdict cache (cache.py; lib.sh's cache_get/cache_put for the
# shell checks): beside ccache's, outside every clone, shared by bases.
VERDICTS = _env("VERDICT_CACHE", os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
    "ptdesc-series", "verdicts"))
BRANCH = os.environ.get("SERIES_BRANCH", "series")
BASE_TAG = "base"
LLVM_BIN = "/usr/lib/llvm-14/bin"
DISTCC_WRAPPER = os.path.join(TOP, "scripts", "distcc-by-name")
PROG = os.path.basename(sys.argv[0]).removesuffix(".py")

# The variables whose defaults follow BASE.  Set in the environment, one
# of them would point two bases at the same tree or results: a run that
# checks a second base from inside another refuses to (run-tests.sh).
# The last three are worktrees only shell scripts use (check-quilt.sh,
# make-mail.sh, check-mail.sh), under WORK by default.
PER_BASE = ("WORK", "LINUX", "BUILD", "TREE", "RESULTS", "MUTANT", "SERIES", "PATCHES",
            "QTREE", "MAILTREE", "AMTREE")

# What 'scripts/harness paths' prints, as NAME=value lines for shell.
EXPORTED = {
    "TOP": TOP, "WORK": WORK, "LINUX": LINUX, "BUILD": BUILD, "TREE": TREE,
    "RESULTS": RESULTS, "MUTANT": MUTANT, "SERIES": SERIES,
    "PATCHES": PATCHES, "CONFIGS": CONFIGS, "SERIES_BRANCH": BRANCH,
    "BASE_TAG": BASE_TAG, "BASES": BASES, "BASE_DEFAULT": bases.DEFAULT,
    "VERDICT_CACHE": VERDICTS,
    **BASE.exported(),
}


def set_prog(name):
    """Name the command in log and error lines ('harness matrix' prints
    as build-matrix did, so logs read the same)."""
    global PROG
    PROG = name
