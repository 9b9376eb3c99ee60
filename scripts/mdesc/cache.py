# SPDX-License-Identifier: GPL-2.0
"""Verdicts cached by their inputs.

A compile cell, a layout row or an assert check judges a tree with a
config's fragments, a compiler and the harness's own code; given the
same inputs it gives the same verdict.  Each verdict is stored under
the sha256 of those inputs (trees by tree hash, never by commit id:
the same patch applied again, or in another clone, is the same tree),
so that a fresh clone with the caches kept does not build again what
nothing changed.  NO_CACHE=1 turns it off.  A verdict that failed is
never stored: a compiler killed by the OOM killer must not be
remembered as a compile error.

The cache lives beside ccache's, outside the clone (VERDICT_CACHE,
default ~/.cache/ptdesc-series/verdicts), and is safe to delete.
"""

import ast
import glob
import hashlib
import json
import os
import shutil

from . import results
from .paths import VERDICTS
from .errors import warn

ROOT = VERDICTS

# The modules whose code decides each kind of verdict: what builds the
# cell or the probe, and what judges its output.  A change to any other
# module (the boot test's, the report writers') leaves them valid.
JUDGES = {
    "cell": ["matrix", "objects", "diagnostics", "config", "make", "kconfig", "series",
             "distcc", "toolchain", "paths"],
    "layout": ["layout", "config", "make", "kconfig", "paths"],
    "assert": ["asserts", "config", "make", "kconfig", "paths"],
    "api": ["api", "config", "make", "kconfig", "paths"],
    # bloat: the function table and the disassembler samecode reads with.
    "samecode": ["samecode", "bloat", "build", "series", "config", "make", "kconfig",
                 "paths"],
}

# What the base's objects print depends on the same code as a cell's
# verdict, less the series file's reader.
JUDGES["base-warnings"] = [m for m in JUDGES["cell"] if m != "series"]

_HARNESS = {}


def enabled():
    return not os.environ.get("NO_CACHE")


def _module_tree(name):
    here = os.path.dirname(__file__)
    with open(os.path.join(here, name + ".py")) as f:
        return ast.parse(f.read())


def code_digest(spec):
    """sha256 of harness code, taken as Python's syntax tree (a comment
    or a line break changes nothing).  SPEC maps a module's name to the
    names of the top-level definitions that count (functions, classes,
    assigned constants), or to None for the whole module.  A name that
    is not defined there raises KeyError: a rename must not silently
    leave a function out of a key."""
    h = hashlib.sha256()
    for name in sorted(spec):
        tree = _module_tree(name)
        wanted = spec[name]
        if wanted is None:
            h.update(f"{name}\0{ast.dump(tree)}\0".encode())
            continue
        defs = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defs[node.name] = node
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        defs[t.id] = node
        for d in sorted(wanted):
            h.update(f"{name}.{d}\0{ast.dump(defs[d])}\0".encode())
    return h.hexdigest()


def harness_digest(kind):
    """sha256 of the code that judges KIND: a change to it invalidates
    every verdict it judged."""
    if kind not in _HARNESS:
        names = JUDGES.get(kind) or [os.path.basename(p)[:-3] for p in
                                     glob.glob(f"{os.path.dirname(__file__)}/*.py")]
        _HARNESS[kind] = code_digest({n: None for n in names})
    return _HARNESS[kind]


def compiler_id(cc):
    """What identifies a compiler: its path, and the sha256 of the
    driver binary (a Debian update of gcc changes it)."""
    path = shutil.which(cc) or cc
    try:
        with open(os.path.realpath(path), "rb") as f:
            return f"{path} {hashlib.sha256(f.read()).hexdigest()}"
    except OSError:
        return path


def key(kind, inputs):
    doc = json.dumps({"kind": kind, "harness": harness_digest(kind), **inputs}, sort_keys=True)
    return hashlib.sha256(doc.encode()).hexdigest()


def _path(kind, inputs):
    k = key(kind, inputs)
    return os.path.join(ROOT, kind, k[:2], k + ".json")


def get(kind, inputs):
    """The stored record for INPUTS, or None (a miss, a disabled cache,
    or an entry that cannot be read, which is then dropped)."""
    if not enabled():
        return None
    p = _path(kind, inputs)
    try:
        with open(p) as f:
            rec = json.load(f)
    except OSError:
        return None
    except ValueError:
        os.unlink(p)
        return None
    return rec if rec.get("inputs") == inputs else None


def put(kind, inputs, record):
    """Store RECORD for INPUTS (atomically: a run killed here leaves the
    entry whole or missing)."""
    if not enabled():
        return
    try:
        results.write_json(_path(kind, inputs), {"inputs": inputs, "record": record})
    except OSError as e:
        # A cache that cannot be written costs time, not a verdict.
        warn(f"verdict cache {ROOT} not written ({e}); the next run builds again")
