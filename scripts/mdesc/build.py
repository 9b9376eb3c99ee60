# SPDX-License-Identifier: GPL-2.0
"""Building a target in one of the runtime worktrees (rt-base, rt-series).
"""

import os
import subprocess
import time

from .diagnostics import first_error
from .errors import log
from .kconfig import configure
from .make import make_cmd
from .paths import WORK
from .proc import run
from .worktree import worktree_changes


def checkout(tree, commit):
    """Check COMMIT out in the worktree WORK/rt-TREE (added if missing).
    Returns None or the reason it could not."""
    wt = os.path.join(WORK, "rt-" + tree)
    if worktree_changes(wt):
        return f"work tree {wt} is dirty"
    run(["git", "-C", wt, "checkout", "-q", "--detach", commit])
    return None


def build_in_tree(cfg, tree, commit, target, jobs, env, logf):
    """Check COMMIT out in the worktree WORK/rt-TREE, configure CFG and
    make TARGET, with the output in LOGF.  Returns None or the reason it
    failed."""
    wt = os.path.join(WORK, "rt-" + tree)
    err = checkout(tree, commit)
    if err:
        return err
    err = configure(cfg, jobs, env, tree=wt)
    if err:
        return err
    cmd = make_cmd(cfg, [target], jobs, tree=wt, keep_going=False)
    with open(logf, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if p.returncode:
        with open(logf) as f:
            return f"make {target} failed: " + first_error(f.read())
    return None


def build_vmlinux_pair(name, cfgs, commits, jobs, env, logdir, skip=()):
    """Build vmlinux for each tree of CFGS ({tree: Config}, in order) at
    COMMITS[tree], but not for the trees in SKIP (a side taken from a
    record).  The output of each goes to LOGDIR/NAME-TREE.build.log.
    Returns (seconds, None) or (seconds, "TREE: reason") for the first
    that failed: a row's FAIL, which its caller records, not the end
    of the run.  bloat and samecode build their two sides this way."""
    t0 = time.time()
    for t, cfg in cfgs.items():
        if t in skip:
            continue
        log(f"{name}: vmlinux at {t}")
        err = build_in_tree(cfg, t, commits[t], "vmlinux", jobs, env,
                            os.path.join(logdir, f"{name}-{t}.build.log"))
        if err:
            return round(time.time() - t0), f"{t}: {err}"
    return round(time.time() - t0), None
