# SPDX-License-Identifier: GPL-2.0
"""What a run stopped at any moment leaves behind, and its repair.

SIGINT and SIGTERM let each command clean up on its way out; SIGKILL
(or a machine that stops) does not.  What is left then, and what the
next run does about it:

  index.lock of a worktree, or of the base repository
      git was killed while it held the index.  Repaired only in a tree
      the run owns (a worktree under its flock; the repository after a
      killed apply, which apply-series.sh's pid marker shows), and only
      when no process has the lock open.
  .git/rebase-apply
      git am was killed mid-series: 'git am --abort', again only after
      a killed apply.
  a half-written result file
      results.py writes whole files by rename: nothing to repair.
  a worktree lock of a dead run
      flock(2) locks die with their process: nothing to repair.

Each repair prints 'repaired: ...' so that the run says what it found.
"""

import argparse
import os
import subprocess

from .errors import HarnessError, log


def open_by_a_process(path):
    """True if any process has PATH open (a live git holds its lock
    file open until it commits or rolls back)."""
    path = os.path.realpath(path)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(os.path.join(fd_dir, fd)) == path:
                    return True
            except OSError:
                continue
    return False


def git_dir(tree):
    """The git directory of TREE (a repository or a worktree)."""
    dotgit = os.path.join(tree, ".git")
    if os.path.isfile(dotgit):
        with open(dotgit) as f:
            line = f.read().strip()
        if not line.startswith("gitdir: "):
            raise HarnessError(f"{dotgit}: not a gitdir file")
        return os.path.normpath(os.path.join(tree, line[len("gitdir: "):]))
    return dotgit


def stale_index_locks(tree):
    """Repair TREE's own index lock (a repository's, or a worktree's;
    never the locks of a repository's other worktrees, which runs hold
    under their own flock).  Returns what was repaired.  Call it only
    for a tree this run owns: a worktree under its flock, or the base
    repository after a killed apply (apply-series.sh's marker)."""
    lock = os.path.join(git_dir(tree), "index.lock")
    if not os.path.exists(lock) or open_by_a_process(lock):
        return []
    os.unlink(lock)
    return [f"removed {lock}, left by a git that was killed"]


def interrupted_am(repo):
    """Abort a git am that was killed mid-series in REPO.  Only call it
    under the apply lock."""
    if not os.path.isdir(os.path.join(git_dir(repo), "rebase-apply")):
        return []
    p = subprocess.run(["git", "-C", repo, "am", "--abort"], text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        raise HarnessError(f"a killed git am left {repo}/.git/rebase-apply and "
                           f"'git am --abort' failed:\n{p.stdout}")
    return [f"aborted the git am that a killed run left in {repo}"]


def repair(repo, am=False):
    done = stale_index_locks(repo)
    if am:
        done += interrupted_am(repo)
    for d in done:
        log(f"repaired: {d}")
    return done


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="harness repair",
        description="Repair what a killed run left in a repository or worktree: stale "
        "index locks; with --am (under the apply lock), an interrupted git am.")
    ap.add_argument("tree", help="the base repository or one of its worktrees")
    ap.add_argument("--am", action="store_true")
    args = ap.parse_args(argv)
    repair(args.tree, am=args.am)
    return 0
