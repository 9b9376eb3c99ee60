# SPDX-License-Identifier: GPL-2.0
"""Building a target in one of the runtime worktrees (rt-base, rt-series).
"""

import os
import subprocess

from .diagnostics import first_error
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
