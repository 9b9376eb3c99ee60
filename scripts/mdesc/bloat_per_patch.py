# SPDX-License-Identifier: GPL-2.0
"""harness bloat-per-patch - object code size of each patch against the one before.

For one config (default x86_64), walk the series step by step in a tree
and a build directory of its own (WORK/steps, BUILD/steps-CONFIG).  At
each step build the objects that this step and the next one touch (the
objects of the changed files, and the matrix's canary objects when a
header changed), so that each step's objects also exist as built one
step earlier.  Then run the base tree's scripts/bloat-o-meter on each
of them, the step before against the step, and add up.

An object that did not build, or that the config does not build, is
listed and not compared; an object new at a step is compared with an
empty one.  This is a report, not a check: the bound on code size is
harness bloat's, on vmlinux; what a step adds is explained in
Documentation/performance.md.

Results: RESULTS/bloat/per-patch-CONFIG.md and per-patch-CONFIG.json.
"""

import argparse
import os
import re
import shutil

from .config import Config
from .errors import die, log
from .kconfig import configure
from .make import ccache_env, make_cmd
from .objects import objects_for, step_objects
from .paths import BASE_TAG, BRANCH, BUILD, CONFIGS, RESULTS, TOP, TREE, WORK
from .results import write_json
from .proc import git, run
from .worktree import worktree_changes

OUT = os.path.join(RESULTS, "bloat")
# Its own worktree, so that it never waits for the matrix's lock.
STEPS_TREE = os.path.join(WORK, "steps")


def delta(old, new):
    """bloat-o-meter on two objects: (net bytes, changed functions)."""
    p = run(["python3", os.path.join(TREE, "scripts", "bloat-o-meter"), old, new], check=False)
    net, funcs = None, []
    for line in p.stdout.splitlines():
        m = re.match(r"add/remove: .*\((-?\d+)\)$", line)
        if m:
            net = int(m.group(1))
            continue
        m = re.match(r"^(\S+)\s+(-|\d+)\s+(-|\d+)\s+([+-]\d+)$", line)
        if m and m.group(1) != "Function":
            funcs.append(f"{m.group(1)} {m.group(4)}")
    return net, funcs


def empty_object(cfg, env, where):
    """An object file with nothing in it, from the config's compiler."""
    path = os.path.join(where, "empty.o")
    if not os.path.exists(path):
        cc = cfg.make_vars().get("CC", cfg.compiler()[0]).split()[-1]
        run([cc, "-c", "-x", "c", os.devnull, "-o", path], env=env)
    return path


def main(argv=None):
    if TREE != STEPS_TREE:
        # Paths are read once, at the start of the command: start again
        # with TREE pointing at the worktree of this check.
        harness = os.path.join(TOP, "scripts", "harness")
        os.execve(harness, [harness, "bloat-per-patch", *(argv or [])],
                  dict(os.environ, TREE=STEPS_TREE))
    ap = argparse.ArgumentParser(prog="harness bloat-per-patch", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="x86_64")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)

    cfg = Config(os.path.join(CONFIGS, args.config + ".config"),
                 builddir=os.path.join(BUILD, "steps-" + args.config))
    env = ccache_env()
    commits = [git("rev-parse", BASE_TAG)] + \
        git("rev-list", "--reverse", f"{BASE_TAG}..{BRANCH}").split()
    if len(commits) < 2:
        die(f"branch {BRANCH} has no patch; run 'make apply' first")
    subjects = [""] + [git("log", "-1", "--format=%s", c) for c in commits[1:]]
    files = [None] + [git("diff", "--name-only", f"{c}^", c).split() for c in commits[1:]]
    all_touched = objects_for(sorted(set().union(*files[1:])))

    if worktree_changes(TREE):
        die(f"work tree {TREE} is dirty")
    snaps = os.path.join(cfg.builddir, ".steps")
    shutil.rmtree(snaps, ignore_errors=True)

    wanted = [[] for _ in commits]      # objects step i touches
    not_built = [[] for _ in commits]
    for i, c in enumerate(commits):
        run(["git", "-C", TREE, "checkout", "-q", "--detach", c])
        if i == 0:
            err = configure(cfg, args.jobs, env)
            if err:
                die(f"{cfg.name}: {err}")
        # Which objects the next step touches, judged on this tree's
        # Makefiles (the next step may add objects: built from there on).
        if i + 1 < len(commits):
            b, nb = step_objects(cfg, files[i + 1], all_touched, env, {})
            wanted[i + 1], not_built[i + 1] = b or [], nb or []
        build = sorted(set(wanted[i]) | set(wanted[i + 1] if i + 1 < len(commits) else []))
        build = [o for o in build if os.path.exists(os.path.join(TREE, o[:-2] + ".c"))
                 or os.path.exists(os.path.join(TREE, o[:-2] + ".S"))]
        if build:
            if run(make_cmd(cfg, build, args.jobs), env=env, check=False).returncode:
                log(f"step {i}: some objects failed to build (see the table)")
        for o in build:
            src = os.path.join(cfg.builddir, o)
            if os.path.exists(src):
                dst = os.path.join(snaps, str(i), o)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
        log(f"step {i}/{len(commits) - 1}: built {len(build)} objects")

    rows = []
    for i in range(1, len(commits)):
        objs, funcs, total, missing = [], [], 0, []
        for o in wanted[i]:
            old = os.path.join(snaps, str(i - 1), o)
            new = os.path.join(snaps, str(i), o)
            if not os.path.exists(new):
                missing.append(o)
                continue
            if not os.path.exists(old):
                # A new object: all of it is the step's.
                old = empty_object(cfg, env, snaps)
            net, f = delta(old, new)
            if net is None:
                missing.append(o)
                continue
            objs.append({"object": o, "bytes": net})
            total += net
            funcs += [f"{o}: {x}" for x in f]
        rows.append({"step": i, "patch": subjects[i], "commit": commits[i],
                     "objects": objs, "bytes": total, "functions": funcs,
                     "not_compared": missing, "not_built": not_built[i]})

    os.makedirs(OUT, exist_ok=True)
    base = os.path.join(OUT, f"per-patch-{cfg.name}")
    write_json(base + ".json", {"config": cfg.name, "steps": rows})
    out = [f"# Object code size per patch, {cfg.name}", "",
           "Each step's objects (bloat-o-meter, functions and data), against the step before.", "",
           "| step | patch | objects | bytes | functions that changed |", "|---|---|---|---|---|"]
    for r in rows:
        if not r["objects"] and not r["not_compared"]:
            continue
        ch = ", ".join(r["functions"][:6]) + (" ..." if len(r["functions"]) > 6 else "")
        out.append(f"| {r['step']} | {r['patch']} | {len(r['objects'])} | "
                   f"{r['bytes']:+d} | {ch} |")
    with open(base + ".md", "w") as f:
        f.write("\n".join(out) + "\n")
    total = sum(r["bytes"] for r in rows)
    log(f"results: {base}.md, {base}.json; sum of the per-step deltas {total:+d} bytes")
    for r in rows:
        if r["objects"] or r["not_compared"]:
            miss = f"; not compared: {', '.join(r['not_compared'])}" if r["not_compared"] else ""
            log(f"step {r['step']}: {r['bytes']:+d} bytes in {len(r['objects'])} objects{miss}")
    return 0
