# SPDX-License-Identifier: GPL-2.0
"""Worktrees of the base repository and the locks that keep runs apart,
on a small git repository made in the test."""

import os
import subprocess
import sys

import pytest

from mdesc import worktree
from mdesc.errors import WorktreeBusy


@pytest.fixture
def repo(tmp_path, monkeypatch):
    linux = tmp_path / "linux"
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for cmd in (["init", "-q", str(linux)],
                ["-C", str(linux), "commit", "-q", "--allow-empty", "-m", "base"],
                ["-C", str(linux), "tag", "base"], ["-C", str(linux), "branch", "series"]):
        subprocess.run(["git", *cmd], check=True, env=env)
    monkeypatch.setattr(worktree, "LINUX", str(linux))
    monkeypatch.setattr(worktree.paths, "LINUX", str(linux))
    monkeypatch.setattr(worktree, "_LOCKS", {})
    return linux


def test_ensure_worktree_adds_and_locks(repo, tmp_path):
    wt = str(tmp_path / "w" / "tree")
    worktree.ensure_worktree(wt)
    assert os.path.exists(os.path.join(wt, ".git"))
    assert worktree.worktree_changes(wt) == ""
    with open(wt + ".lock") as f:
        assert f.read().startswith(f"pid {os.getpid()}: ")
    # Taken again by the same process: a no-op.
    worktree.lock_worktree(wt)
    (tmp_path / "w" / "tree" / "f").write_text("x")
    subprocess.run(["git", "-C", wt, "add", "f"], check=True)
    assert worktree.worktree_changes(wt) == "A  f"


def test_a_lock_held_by_another_run_is_named(repo, tmp_path):
    wt = str(tmp_path / "tree")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time\n"
         f"f = open({wt + '.lock'!r}, 'a+'); fcntl.flock(f, fcntl.LOCK_EX)\n"
         "f.truncate(0); f.write('pid 1: another-run\\n'); f.flush()\n"
         "print('held', flush=True); time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(WorktreeBusy, match=r"in use by another run \(pid 1: another-run\)"):
            worktree.lock_worktree(wt)
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_of_a_dead_run_is_taken_over(repo, tmp_path):
    """A run killed with SIGKILL leaves its lock file, but the kernel
    dropped its flock: the next run takes the tree and says nothing."""
    wt = str(tmp_path / "tree")
    subprocess.run([sys.executable, "-c", "import fcntl, os, signal\n"
                    f"f = open({wt + '.lock'!r}, 'a+'); fcntl.flock(f, fcntl.LOCK_EX)\n"
                    "f.write('pid 2: killed-run\\n'); f.flush()\n"
                    "os.kill(os.getpid(), signal.SIGKILL)"])
    assert os.path.exists(wt + ".lock")
    worktree.lock_worktree(wt)
    with open(wt + ".lock") as f:
        assert f.read() == f"pid {os.getpid()}: {worktree.paths.PROG}\n"


def test_mutant_and_tree_commit(repo, tmp_path, monkeypatch):
    monkeypatch.setattr(worktree, "MUTANT", str(tmp_path / "mutant"))
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "base"], text=True,
                          stdout=subprocess.PIPE, check=True).stdout.strip()
    worktree.mutant_worktree(head)
    assert worktree.tree_commit("base") == head == worktree.tree_commit("series")
