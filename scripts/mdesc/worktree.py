# SPDX-License-Identifier: GPL-2.0
"""Worktrees of the base repository, and the locks that keep runs apart.
"""

import fcntl
import os

from .errors import WorktreeBusy
from . import paths, repair
from .paths import BASE_TAG, BRANCH, LINUX, MUTANT
from .proc import git, run


_LOCKS = {}


def lock_worktree(path):
    """Hold an exclusive lock on the worktree at PATH until this process
    exits, so that two runs never check out commits in the same tree.
    Raises WorktreeBusy, naming the holder, when another run has it."""
    path = os.path.abspath(path)
    if path in _LOCKS:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    f = open(path + ".lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "holder unknown"
        raise WorktreeBusy(f"work tree {path} is in use by another run ({holder}); "
                           "wait for it, or give this run its own TREE and BUILD")
    f.truncate(0)
    f.write(f"pid {os.getpid()}: {paths.PROG}\n")
    f.flush()
    _LOCKS[path] = f


def ensure_worktree(path):
    """Lock the worktree of the base repository at PATH, adding it
    (detached, at the base) if missing."""
    lock_worktree(path)
    if os.path.exists(os.path.join(path, ".git")):
        # Ours now: an index lock no process holds is a killed run's.
        repair.repair(path)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # One 'worktree prune' + 'add' at a time in the repository: a
        # prune beside another run's add could drop its new entry.
        with open(os.path.join(LINUX, ".git", "harness-worktrees.lock"), "a") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            run(["git", "-C", LINUX, "worktree", "prune"])
            run(["git", "-C", LINUX, "worktree", "add", "-f", "--detach", path, BASE_TAG])


def mutant_worktree(commit):
    """Lock the MUTANT worktree and check COMMIT out in it, dropping
    what an interrupted run left changed."""
    ensure_worktree(MUTANT)
    run(["git", "-C", MUTANT, "checkout", "-q", "-f", "--detach", commit])


def worktree_changes(path):
    """Add the worktree at PATH if it is missing; return its changes to
    tracked files ('' when it is clean and safe to check out in)."""
    ensure_worktree(path)
    return git("status", "--porcelain", "--untracked-files=no", cwd=path)


def tree_commit(tree):
    """The commit of TREE: 'base' (the base tag) or 'series' (the head
    of the applied series)."""
    return git("rev-parse", BASE_TAG if tree == "base" else BRANCH)
