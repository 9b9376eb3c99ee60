# SPDX-License-Identifier: GPL-2.0
"""The command line, the one error convention, and the paths shell reads."""

import shlex
import subprocess
import sys

import pytest

from mdesc import cli, errors, paths, paths_cmd, proc
from mdesc.errors import CommandFailed, HarnessError


def test_every_command_has_a_main():
    for name, (module, what) in cli.COMMANDS.items():
        assert callable(module.main), name
        assert what


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["-h"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert all(f"  {name}" in out for name in cli.COMMANDS)


def test_unknown_command(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["frobnicate"])
    assert e.value.code == 2


def test_an_error_is_caught_once_and_named(capsys, monkeypatch):
    def fail(argv):
        raise HarnessError("the base is not 6.1.192-3")
    monkeypatch.setitem(cli.COMMANDS, "series", (type("M", (), {"main": staticmethod(fail)}),
                                                 "x"))
    # 2, not 1: a checker's 1 means 'a check failed, the lines say which'.
    assert cli.main(["series"]) == 2
    assert capsys.readouterr().err == "harness series: error: the base is not 6.1.192-3\n"


def test_usage_error_status_and_interrupt(capsys, monkeypatch):
    def usage(argv):
        raise errors.UsageError("bad")

    def interrupted(argv):
        raise KeyboardInterrupt
    monkeypatch.setitem(cli.COMMANDS, "series", (type("M", (), {"main": staticmethod(usage)}),
                                                 "x"))
    assert cli.main(["series"]) == 2
    monkeypatch.setitem(cli.COMMANDS, "series",
                        (type("M", (), {"main": staticmethod(interrupted)}), "x"))
    assert cli.main(["series"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_die_raises_and_log_names_the_command(capsys):
    paths.set_prog("harness test")
    with pytest.raises(HarnessError, match="boom"):
        errors.die("boom")
    errors.log("hello")
    errors.warn("careful")
    out = capsys.readouterr()
    assert out.out == "harness test: hello\n"
    assert out.err == "harness test: warning: careful\n"


def test_run_raises_command_failed():
    with pytest.raises(CommandFailed) as e:
        proc.run(["sh", "-c", "echo oops; exit 3"])
    assert e.value.returncode == 3 and e.value.output == "oops\n"
    assert "sh -c 'echo oops; exit 3' failed" in str(e.value)
    assert proc.run(["sh", "-c", "exit 4"], check=False).returncode == 4


def test_show_quotes_only_what_needs_it():
    assert proc.show(["make", "CC=ccache gcc", "-j2"]) == "make 'CC=ccache gcc' -j2"


def test_paths_for_shell(capsys):
    assert paths_cmd.main([]) == 0
    out = capsys.readouterr().out
    got = dict(ln.split("=", 1) for ln in out.splitlines())
    assert set(got) == set(paths.EXPORTED)
    assert shlex.split(got["WORK"]) == [paths.WORK]


def test_paths_per_base(capsys, monkeypatch):
    """The names whose defaults move with BASE, each of them a path the
    harness exports; WORK moved by hand moves every one that lives in it."""
    assert paths_cmd.main(["--per-base"]) == 0
    names = capsys.readouterr().out.split()
    assert names == list(paths.PER_BASE)
    shell_only = {"QTREE", "MAILTREE", "AMTREE"}
    assert set(names) - shell_only <= set(paths.EXPORTED)
    for name in shell_only:
        with open(f"{paths.TOP}/scripts/" + {"QTREE": "check-quilt.sh",
                                             "MAILTREE": "make-mail.sh",
                                             "AMTREE": "check-mail.sh"}[name]) as f:
            assert f"{name}=${{{name}:-$WORK/" in f.read()
    under_work = {n for n in set(names) - shell_only
                  if paths.EXPORTED[n].startswith(paths.WORK + "/")}
    assert under_work == {"LINUX", "BUILD", "TREE", "RESULTS", "MUTANT"}


def test_paths_toolchain_root(capsys, monkeypatch):
    monkeypatch.setattr(paths_cmd, "toolchain_root", lambda: "/x/y")
    assert paths_cmd.main(["--toolchain-root"]) == 0
    assert capsys.readouterr().out == "/x/y\n"
    monkeypatch.setattr(paths_cmd, "toolchain_root", lambda: None)
    assert paths_cmd.main(["--toolchain-root"]) == 1


def test_the_command_runs_as_a_program():
    """scripts/harness and python3 -m mdesc, as the Makefile calls them,
    with the environment moving the paths."""
    out = subprocess.run([f"{paths.TOP}/scripts/harness", "paths"], text=True, check=True,
                         stdout=subprocess.PIPE, env={"WORK": "/w x", "PATH": "/usr/bin:/bin"})
    assert "WORK='/w x'\n" in out.stdout and "LINUX='/w x/linux'\n" in out.stdout
    out = subprocess.run([sys.executable, "-m", "mdesc", "series", "parts"], text=True,
                         cwd=f"{paths.TOP}/scripts", stdout=subprocess.PIPE, check=True)
    assert out.stdout.splitlines()[:2] == ["fixes", "ptdesc"]
