# SPDX-License-Identifier: GPL-2.0
"""harness merge - one matrix from build-matrix runs over disjoint cells.

The full tier takes longer than one sitting on a small machine, so it
can be run in batches of configs (harness matrix --configs A,B ... with
RESULTS pointing at a directory per batch, or two batches at once with
their own TREE and BUILD), and the links can be run apart from the
steps (harness matrix --link-only).  This merges the batches'
matrix.json files into OUT/matrix.json and OUT/matrix.md, the same
format as one run.

It refuses, naming the input, when the batches do not describe the
same series: a different base, or a step whose tree differs (the
commits may differ when only a message changed), or when two batches
built the same cell (config, step, objects or link).  A cell run again
on its own (for example after a harness fix) is given with --rerun: its
cells replace the same config,
step and kind in the batches, and the merged file lists which; it may
come from a later version of the series, as long as every cell kept for
a step built the same tree.  A batch that did not finish makes the merged
matrix incomplete, and says so.
"""

import argparse
import os
import time

from .errors import die, log
from .proc import git

from .results import load_matrix, matrix_markdown, save_matrix, status_counts, write_text


def tree_of(commit, cache):
    if commit not in cache:
        cache[commit] = git("rev-parse", commit + "^{tree}")
    return cache[commit]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness merge", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory for the merged matrix")
    ap.add_argument("--rerun", action="append", default=[],
                    help="a run whose cells replace the batches' same cells (repeatable)")
    ap.add_argument("inputs", nargs="+", help="matrix.json files or directories holding one")
    args = ap.parse_args(argv)

    metas = []
    for path in args.inputs + args.rerun:
        if os.path.isdir(path):
            path = os.path.join(path, "matrix.json")
        metas.append((path, load_matrix(path)))

    trees = {}
    first_path, first = metas[0]
    step_tree = {}     # step index -> (tree, input that set it)
    owner = {}         # config -> input
    cells = {}         # (config, step, kind) -> cell
    replaced = []
    for n, (path, meta) in enumerate(metas):
        rerun = n >= len(args.inputs)
        if meta["base"] != first["base"]:
            die(f"{path}: base {meta['base'][:12]}, but {first_path} has {first['base'][:12]}")
        configs = {c["config"] for c in meta["cells"]}
        for cfg in sorted(configs):
            if cfg not in owner and rerun:
                die(f"{path}: a rerun of config {cfg}, which no batch built")
            owner.setdefault(cfg, path)
        for c in meta["cells"]:
            key = (c["config"], c["step"], c["kind"])
            old = cells.get(key)
            if rerun and not old:
                die(f"{path}: a rerun of {c['config']} step {c['step']}, "
                    "which its batch did not build")
            if old and not rerun:
                die(f"{path}: {c['config']} step {c['step']} {c['kind']} was "
                    f"built by {old['source']} too")
            if old:
                replaced.append({"config": key[0], "step": key[1], "kind": key[2],
                                 "was": old["status"], "now": c["status"], "by": path})
                log(f"{key[0]} step {key[1]} {key[2]}: {old['status']} replaced "
                    f"by {c['status']} from {path}")
            c["source"] = path
            cells[key] = c
    cells = sorted(cells.values(), key=lambda c: (c["step"], c["kind"] != "objects", c["config"]))
    # Every cell of a step, whichever run built it, built the same tree.
    for c in cells:
        t = tree_of(c["commit"], trees)
        seen = step_tree.setdefault(c["step"], (t, c["source"]))
        if seen[0] != t:
            die(f"{c['source']}: step {c['step']} ({c['patch']}) is not the tree that "
                f"{seen[1]} built at that step")

    incomplete = [(p, m) for p, m in metas if not m.get("complete", True)]
    merged = {
        "complete": not incomplete,
        "base": first["base"], "branch": first["branch"],
        "head": max(cells, key=lambda c: c["step"])["commit"],
        "elapsed": round(sum(m["elapsed"] for _, m in metas), 1),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "patches": max(c["step"] for c in cells),
        "sources": [{"path": p, "date": m["date"], "head": m["head"], "elapsed": m["elapsed"],
                     "configs": sorted({c["config"] for c in m["cells"]}),
                     "complete": m.get("complete", True)} for p, m in metas],
        "replaced": replaced,
        "cells": cells,
    }
    if incomplete:
        merged["done_to_step"] = min(m.get("done_to_step", 0) for _, m in incomplete)
    save_matrix(os.path.join(args.out, "matrix.json"), merged)
    write_text(os.path.join(args.out, "matrix.md"), matrix_markdown(merged, sorted(owner)))
    counts = status_counts(cells)
    log(f"{len(metas)} runs, {len(owner)} configs, {len(cells)} cells: " +
        ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) +
        ("" if not incomplete else f"; incomplete: {', '.join(p for p, _ in incomplete)}"))
    return 1 if counts.get("FAIL") else 0
