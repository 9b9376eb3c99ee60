# SPDX-License-Identifier: GPL-2.0
"""Paths and settings of the harness, read once from the environment.

Every directory can be moved with the variable of its name (WORK,
LINUX, BUILD, TREE, RESULTS, MUTANT, SERIES, CONFIGS, PATCHES); shell
asks for them with 'scripts/harness paths' (lib.sh does) instead of
keeping a copy of its own.
"""

import os
import sys

# scripts/mdesc/paths.py: the repository is two levels up.
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.environ.get("WORK", os.path.join(TOP, "work"))
LINUX = os.environ.get("LINUX", os.path.join(WORK, "linux"))
BUILD = os.environ.get("BUILD", os.path.join(WORK, "build"))
TREE = os.environ.get("TREE", os.path.join(WORK, "tree"))
RESULTS = os.environ.get("RESULTS", os.path.join(WORK, "results"))
# The scratch worktree of the checks that edit or rebuild objects on
# purpose (the asserts and ccache-objects checks).
MUTANT = os.environ.get("MUTANT", os.path.join(WORK, "mutant"))
SERIES = os.environ.get("SERIES", os.path.join(TOP, "series"))
PATCHES = os.environ.get("PATCHES", os.path.join(TOP, "patches"))
CONFIGS = os.environ.get("CONFIGS", os.path.join(TOP, "configs"))
BRANCH = os.environ.get("SERIES_BRANCH", "series")
BASE_TAG = "base"
LLVM_BIN = "/usr/lib/llvm-14/bin"
DISTCC_WRAPPER = os.path.join(TOP, "scripts", "distcc-by-name")
PROG = os.path.basename(sys.argv[0]).removesuffix(".py")

# What 'scripts/harness paths' prints, as NAME=value lines for shell.
EXPORTED = {
    "TOP": TOP, "WORK": WORK, "LINUX": LINUX, "BUILD": BUILD, "TREE": TREE,
    "RESULTS": RESULTS, "MUTANT": MUTANT, "SERIES": SERIES,
    "PATCHES": PATCHES, "CONFIGS": CONFIGS, "SERIES_BRANCH": BRANCH,
    "BASE_TAG": BASE_TAG,
}


def set_prog(name):
    """Name the command in log and error lines ('harness matrix' prints
    as build-matrix did, so logs read the same)."""
    global PROG
    PROG = name
