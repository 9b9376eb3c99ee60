# SPDX-License-Identifier: GPL-2.0
"""What a killed run leaves, repaired by the next (on small repositories
made in the test, with a real git killed by SIGKILL)."""

import os
import signal
import subprocess
import time

import pytest

from mdesc import cli, repair
from mdesc.errors import HarnessError

ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], env=ENV, check=True, text=True,
                          stdout=subprocess.PIPE).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "linux"
    subprocess.run(["git", "init", "-q", str(r)], check=True)
    (r / "f").write_text("one\n")
    git(r, "add", "f")
    git(r, "commit", "-q", "-m", "base")
    git(r, "tag", "base")
    return r


def test_a_lock_no_process_holds_is_removed(repo, capsys):
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    assert repair.repair(str(repo)) == [f"removed {lock}, left by a git that was killed"]
    assert not lock.exists()
    assert "repaired: removed" in capsys.readouterr().out
    assert repair.repair(str(repo)) == []


def test_a_lock_a_live_process_holds_stays(repo):
    lock = repo / ".git" / "index.lock"
    with open(lock, "w"):
        assert repair.repair(str(repo)) == []
        assert lock.exists()


def test_a_worktree_lock(repo, tmp_path):
    wt = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", "--detach", str(wt), "base")
    lock = repo / ".git" / "worktrees" / "tree" / "index.lock"
    lock.write_text("")
    assert repair.git_dir(str(wt)) == str(lock.parent)
    assert repair.repair(str(wt)) == [f"removed {lock}, left by a git that was killed"]
    lock.write_text("")
    # The repository's repair leaves the worktrees' locks to their runs.
    assert repair.repair(str(repo)) == [] and lock.exists()


def test_sigkill_during_git_am(repo, tmp_path):
    """git am killed with SIGKILL in the middle of a two-patch series
    (while its applypatch-msg hook runs): rebase-apply is left; the
    repair aborts it and the repository is as before."""
    for n in ("two", "three"):
        (repo / "f").write_text(n + "\n")
        git(repo, "commit", "-q", "-am", n)
    git(repo, "format-patch", "-q", "-o", str(tmp_path / "p"), "base")
    git(repo, "checkout", "-q", "--detach", "base")
    hook = repo / ".git" / "hooks" / "applypatch-msg"
    marker = tmp_path / "in-hook"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\nsleep 60\n")
    hook.chmod(0o755)
    patches = sorted(str(p) for p in (tmp_path / "p").iterdir())
    am = subprocess.Popen(["git", "-C", str(repo), "am", *patches], env=ENV,
                          start_new_session=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    for _ in range(200):
        if marker.exists():
            break
        time.sleep(0.05)
    os.killpg(am.pid, signal.SIGKILL)
    am.wait()
    hook.unlink()
    assert (repo / ".git" / "rebase-apply").is_dir()
    done = repair.repair(str(repo), am=True)
    assert done == [f"aborted the git am that a killed run left in {repo}"]
    assert not (repo / ".git" / "rebase-apply").exists()
    assert git(repo, "status", "--porcelain") == ""
    # And the series applies again.
    git(repo, "am", "-q", *patches)
    assert (repo / "f").read_text() == "three\n"


def test_not_a_gitdir_file(tmp_path):
    (tmp_path / ".git").write_text("nonsense\n")
    with pytest.raises(HarnessError, match="not a gitdir file"):
        repair.git_dir(str(tmp_path))


def test_command(repo, capsys):
    (repo / ".git" / "index.lock").write_text("")
    assert cli.main(["repair", str(repo), "--am"]) == 0
    assert capsys.readouterr().out.startswith("harness repair: repaired: removed ")
