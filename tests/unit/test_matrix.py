# SPDX-License-Identifier: GPL-2.0
"""The build matrix's verdicts, on a fake kernel tree (after tuxmake's
tests): git, make and the compiler are replaced by a table of what each
step's tree prints, so that step selection, cells, the warning baseline
and the report are checked in milliseconds.  The compiler lines are
real gcc 12 output (test_data/compiler/warnings.txt)."""

import argparse
import fnmatch
import json
import re
import types

import pytest

from conftest import data
from mdesc import matrix, objects, results
from mdesc.cli import main as matrix_cli
from mdesc.config import Config
from mdesc.errors import HarnessError

with open(data("compiler", "warnings.txt")) as f:
    GCC_WARNINGS = f.read()
UNUSED_X = [ln for ln in GCC_WARNINGS.splitlines() if "unused variable" in ln][-1]

ENTRIES = ["fixes/0001-fix.patch", "ptdesc/0001-a.patch", "ptdesc/0002-b.patch",
           "ptdesc/0003-s390.patch"]
COMMITS = ["c1", "c2", "c3", "c4"]
FILES = {"c1": ["arch/loongarch/kernel/traps.c"], "c2": ["include/linux/mm_types.h"],
         "c3": ["mm/memory.c"], "c4": ["arch/s390/mm/gmap.c"]}


class FakeKernel:
    """What git and make say, per checked-out commit."""

    def __init__(self, monkeypatch, tmp_path, out=None, rc=None):
        self.commit = "base0"
        self.out = out or {}          # commit -> compiler output
        self.rc = rc or {}            # commit -> make status
        self.makes = []
        self.trees = {}               # commit -> its tree, if not its own name
        # commit -> symbol -> the Kconfig files that define or select it
        self.defines = {}
        self.greps = []
        monkeypatch.setattr(matrix.cache, "ROOT", str(tmp_path / "verdicts"))
        monkeypatch.delenv("NO_CACHE", raising=False)
        monkeypatch.setattr(matrix, "run", self.run)
        monkeypatch.setattr(matrix, "git", self.git)
        monkeypatch.setattr(matrix, "configure", lambda cfg, jobs, env: None)
        monkeypatch.setattr(matrix, "worktree_changes", lambda tree: "")
        monkeypatch.setattr(matrix, "sha256", lambda p: "0" * 64)
        monkeypatch.setattr(matrix, "RESULTS", str(tmp_path / "results"))
        monkeypatch.setattr(matrix.series, "read", lambda: list(ENTRIES))
        monkeypatch.setattr(Config, "version", lambda self: "gcc (Debian 12.2.0-14) 12.2.0")
        monkeypatch.setattr(objects, "_dir_lists", self.dir_lists)

    @staticmethod
    def dir_lists(cfg, d, env, cache):
        return {"mm": ({"mm/memory.o", "mm/zsmalloc.o"}, set()),
                "kernel": ({"kernel/fork.o"}, set()),
                "arch/x86/mm": ({"arch/x86/mm/pgtable.o"}, set())}.get(d, (set(), set()))

    def run(self, cmd, cwd=None, env=None, check=True):
        if cmd[0] == "git" and "grep" in cmd:
            # 'git grep -q PATTERN COMMIT -- PATHS': does a Kconfig file
            # under PATHS define (or select) the symbol at COMMIT?
            commit, where = cmd[-3], cmd[-1]
            what, sym = re.search(r"\^\\s\*(\S+) (\w+)\(", cmd[-4]).groups()
            self.greps.append(commit)
            kind = "select" if what == "select" else "config"
            found = any(fnmatch.fnmatch(p, where)
                        for p in self.defines.get(commit, {}).get((kind, sym), []))
            return types.SimpleNamespace(stdout="", returncode=0 if found else 1)
        if cmd[0] == "git":
            if "checkout" in cmd:
                self.commit = cmd[-1]
            return types.SimpleNamespace(stdout="x\n", returncode=0)
        self.makes.append((self.commit, cmd))
        return types.SimpleNamespace(stdout=self.out.get(self.commit, ""),
                                     returncode=self.rc.get(self.commit, 0))

    def git(self, *args, cwd=None):
        if args[0] == "rev-list":
            return "\n".join(COMMITS)
        if args[0] == "rev-parse" and args[1].endswith("^{tree}"):
            return "\n".join("tree-" + self.trees.get(a[:-7], a[:-7]) for a in args[1:])
        if args[0] == "rev-parse":
            return "base0"
        if args[:2] == ("diff", "--name-only"):
            a, b = args[2], args[3]
            order = ["base0"] + COMMITS
            return "\n".join(f for c in order[order.index(a) + 1:order.index(b) + 1]
                             for f in FILES[c])
        raise AssertionError(args)


def run_matrix(steps="all", configs="x86_64", **kw):
    args = argparse.Namespace(configs=configs, steps=steps, part=kw.get("part"),
                              link=kw.get("link", ""), link_only=False,
                              sparse=kw.get("sparse", False), jobs=2)
    m = matrix.Matrix(args)
    return m.main(), m


def cells(m):
    return {(c["step"], c["kind"]): (c["status"], c["reason"]) for c in m.cells}


def test_every_step(monkeypatch, tmp_path):
    fk = FakeKernel(monkeypatch, tmp_path)
    rc, m = run_matrix()
    assert rc == 0
    assert cells(m) == {
        (0, "objects"): ("PASS", ""),
        (1, "objects"): ("N/A", "step does not touch this config's files"),
        (2, "objects"): ("PASS", ""),
        (3, "objects"): ("PASS", ""),
        (4, "objects"): ("N/A", "step does not touch this config's files"),
    }
    # Step 3 changes one .c file: only its object.  Step 2 changes a
    # header: the canaries the config builds.
    built = {c["step"]: c["objects"] for c in m.cells}
    assert built[3] == ["mm/memory.o"]
    assert set(built[2]) == {"mm/memory.o", "mm/zsmalloc.o", "kernel/fork.o",
                             "arch/x86/mm/pgtable.o"}
    meta = json.loads((tmp_path / "results" / "matrix.json").read_text())
    assert meta["complete"] and meta["patches"] == 4 and len(meta["cells"]) == 5
    assert "| 3 ptdesc/0002 b | PASS |" in (tmp_path / "results" / "matrix.md").read_text()
    assert [c for c, _ in fk.makes] == ["base0", "c2", "c3"]


def test_a_config_that_needs_a_symbol_has_no_cell_before_it_exists(monkeypatch, tmp_path):
    """x86_64-sepdesc turns on an option the series adds: the steps whose
    tree does not define it are N/A, and nothing is built there."""
    fk = FakeKernel(monkeypatch, tmp_path)
    # c2 defines the option and lets arm64 select it, c3 x86 too.
    opt, arch = ("config", "SEPARATE_PTDESC"), ("select", "ARCH_SUPPORTS_SEPARATE_PTDESC")
    defined = {opt: ["mm/Kconfig"], ("config", arch[1]): ["mm/Kconfig"]}
    fk.defines = {"c2": {**defined, arch: ["arch/arm64/Kconfig"]},
                  "c3": {**defined, arch: ["arch/arm64/Kconfig", "arch/x86/Kconfig"]}}
    fk.defines["c4"] = fk.defines["c3"]
    rc, m = run_matrix(configs="x86_64-sepdesc")
    assert rc == 0
    got = cells(m)
    end = " does not exist at this step; the config needs it"
    sel = "CONFIG_ARCH_SUPPORTS_SEPARATE_PTDESC (selected by x86)"
    assert got[(0, "objects")] == got[(1, "objects")] == (
        "N/A", "CONFIG_SEPARATE_PTDESC, " + sel + end)
    # Defining the arch symbol, or another arch's select, does not count.
    assert got[(2, "objects")] == ("N/A", sel + end)
    assert got[(3, "objects")] == ("PASS", "")
    assert got[(4, "objects")] == ("N/A", "step does not touch this config's files")
    assert [c for c, _ in fk.makes] == ["c3"]
    # Each tree is asked once per word of the '# needs:' line.
    assert sorted(fk.greps) == sorted(["base0", "c1", "c2", "c3", "c4"] * 2)


def test_a_compile_error_fails_its_step_only(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path, out={"c3": "mm/memory.c:9:1: error: expected ';'\n"},
               rc={"c3": 2})
    rc, m = run_matrix()
    assert rc == 1
    got = cells(m)
    assert got[(3, "objects")] == ("FAIL", "mm/memory.c:9:1: error: expected ';'")
    assert got[(2, "objects")] == ("PASS", "")
    failed = [c for c in m.cells if c["status"] == "FAIL"][0]
    assert failed["make"].startswith("make -C ") and failed["object_sha256"] == {}


def test_a_new_warning_fails_a_step(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path, out={"c3": UNUSED_X + "\n"})
    rc, m = run_matrix()
    assert rc == 1
    status, reason = cells(m)[(3, "objects")]
    assert status == "FAIL" and reason.startswith("1 new warning(s): mm/w.c: unused variable")


def test_a_warning_the_base_has_is_not_new(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path, out={"base0": GCC_WARNINGS, "c3": UNUSED_X + "\n"})
    rc, m = run_matrix()
    assert rc == 0 and cells(m)[(3, "objects")] == ("PASS", "")


def test_the_final_state_against_the_base(monkeypatch, tmp_path):
    """--steps final: the last step's diff is taken from the base, and
    objects not built at the base are rebuilt there for their warnings."""
    fk = FakeKernel(monkeypatch, tmp_path, out={"c4": UNUSED_X + "\n"})
    rc, m = run_matrix(steps="final")
    assert rc == 1
    assert cells(m) == {(4, "objects"): ("FAIL", cells(m)[(4, "objects")][1])}
    assert [c for c, _ in fk.makes] == ["c4", "base0"]


def test_the_base_warnings_of_the_final_state_are_kept(monkeypatch, tmp_path):
    """A second run of the final state takes what its objects print at
    the base from the cache: no checkout of the base, no build there;
    and the warning the base has still does not count as new."""
    fk = FakeKernel(monkeypatch, tmp_path, out={"base0": UNUSED_X + "\n",
                                                "c4": UNUSED_X + "\n"})
    rc, _ = run_matrix(steps="final")
    assert rc == 0 and [c for c, _ in fk.makes] == ["c4", "base0"]
    fk.makes.clear()
    fk.out["c4"] = UNUSED_X + "\n"
    monkeypatch.setattr(matrix.Matrix, "cached_cell", lambda *a: False)
    rc, m = run_matrix(steps="final")
    assert rc == 0 and [c for c, _ in fk.makes] == ["c4"]
    assert cells(m) == {(4, "objects"): ("PASS", "")}
    # A base build that failed is not kept.
    fk.rc["base0"] = 2
    monkeypatch.setattr(matrix.cache, "ROOT", str(tmp_path / "verdicts2"))
    run_matrix(steps="final")
    fk.makes.clear()
    run_matrix(steps="final")
    assert [c for c, _ in fk.makes] == ["c4", "base0"]


def test_link(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    real = matrix.os.path.exists
    monkeypatch.setattr(matrix.os.path, "exists", lambda p: p.endswith("/vmlinux") or real(p))
    rc, m = run_matrix(steps="final", link="all")
    assert cells(m)[(4, "link")] == ("PASS", "")


def test_selecting_a_part(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    rc, m = run_matrix(part="ptdesc")
    assert sorted(s for s, _ in cells(m)) == [2, 3, 4]


def test_selecting_parts_and_a_part_that_is_not_there():
    steps = [{"index": i, "name": n} for i, n in enumerate(["base"] + ENTRIES)]
    m = matrix.Matrix(argparse.Namespace(steps="all", part="fixes,ptdesc"))
    assert m.selected_steps(steps) == {1, 2, 3, 4}
    m = matrix.Matrix(argparse.Namespace(steps="all", part="base,fixes"))
    assert m.selected_steps(steps) == {0, 1}
    m = matrix.Matrix(argparse.Namespace(steps="all", part="fixes,zsdesc"))
    with pytest.raises(HarnessError, match=r"--part zsdesc: not a part of the series "
                       r"\(base, fixes, ptdesc\)"):
        m.selected_steps(steps)


@pytest.mark.parametrize("sel,want", [
    ("all", {0, 1, 2, 3, 4}), ("final", {4}), ("0,2", {0, 2}), ("1..3", {1, 2, 3}),
    ("3..", {3, 4}), ("0,2..3,9", {0, 2, 3}),
])
def test_selected_steps(sel, want):
    m = matrix.Matrix(argparse.Namespace(steps=sel, part=None))
    steps = [{"index": i, "name": n} for i, n in enumerate(["base"] + ENTRIES)]
    assert m.selected_steps(steps) == want


def test_bad_step_selection():
    m = matrix.Matrix(argparse.Namespace(steps="two", part=None))
    with pytest.raises(HarnessError, match="--steps two: expected"):
        m.selected_steps([{"index": 0, "name": "base"}])


def test_unknown_config(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    with pytest.raises(HarnessError, match="unknown config.s.: nope"):
        run_matrix(configs="x86_64,nope")


def test_series_and_branch_disagree(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    monkeypatch.setattr(matrix.series, "read", lambda: ENTRIES[:2])
    with pytest.raises(HarnessError, match="has 4 commits but series lists 2 patches"):
        run_matrix()


def test_no_toolchain_is_a_skip_per_step(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    monkeypatch.setattr(matrix.Config, "compiler",
                        lambda self: (_ for _ in ()).throw(LookupError("no toolchain: x")))
    rc, m = run_matrix(steps="0,3")
    assert rc == 0 and cells(m) == {(0, "objects"): ("SKIP", "no toolchain: x"),
                                    (3, "objects"): ("SKIP", "no toolchain: x")}


def test_distcc_failures(monkeypatch):
    out = ("distcc[123] (dcc_build_somewhere) Warning: failed to distribute\n"
           "distcc[123] ERROR: compile on 127.0.0.1 failed\n"
           "distcc[456] Warning: failed to distribute x\n")
    monkeypatch.setenv("DISTCC_HOSTS", "127.0.0.1:1/2")
    assert matrix.distcc_failures(out) == 2
    monkeypatch.delenv("DISTCC_HOSTS")
    assert matrix.distcc_failures(out) == 0


def test_command_line(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    assert matrix.main(["--steps", "0", "--configs", "x86_64", "-j1"]) == 0
    with pytest.raises(SystemExit):
        matrix.main(["--link-only"])


def test_a_second_run_takes_every_verdict_from_the_cache(monkeypatch, tmp_path):
    fk = FakeKernel(monkeypatch, tmp_path)
    configured = []
    monkeypatch.setattr(matrix, "configure", lambda cfg, jobs, env: configured.append(1))
    run_matrix()
    assert len(configured) == 1 and len(fk.makes) == 3
    rc, m = run_matrix()
    assert rc == 0 and len(configured) == 1 and len(fk.makes) == 3   # nothing built again
    assert all(c["cached"] for c in m.cells)
    assert cells(m)[(3, "objects")] == ("PASS", "")
    lines = [str(ln) for ln in results.matrix_lines(
        json.loads((tmp_path / "results" / "matrix.json").read_text()))]
    assert lines[1] == "PASS matrix/x86_64/step 2: cached"


def test_a_changed_tree_is_built_again(monkeypatch, tmp_path):
    """A patch edited at step 3 changes the trees of steps 3 and 4 (and
    so the head): those and the base (which builds what the whole series
    touches) are judged again, steps 1 and 2 come from the cache."""
    fk = FakeKernel(monkeypatch, tmp_path)
    run_matrix()
    fk.makes.clear()
    fk.trees.update(c3="c3-edited", c4="c4-edited")
    rc, m = run_matrix()
    assert [c for c, _ in fk.makes] == ["base0", "c3"]
    cached = {c["step"]: c.get("cached", False) for c in m.cells}
    assert cached == {0: False, 1: True, 2: True, 3: False, 4: False}


def test_no_cache(monkeypatch, tmp_path):
    fk = FakeKernel(monkeypatch, tmp_path)
    run_matrix()
    monkeypatch.setenv("NO_CACHE", "1")
    fk.makes.clear()
    rc, m = run_matrix()
    assert len(fk.makes) == 3 and not any(c.get("cached") for c in m.cells)


def test_a_failure_is_never_cached(monkeypatch, tmp_path):
    fk = FakeKernel(monkeypatch, tmp_path, out={"c3": UNUSED_X + "\n"})
    run_matrix()
    fk.makes.clear()
    rc, m = run_matrix()
    assert rc == 1 and [c for c, _ in fk.makes] == ["c3"]
    assert cells(m)[(3, "objects")][0] == "FAIL"


def test_a_cached_base_keeps_its_warnings_as_the_baseline(monkeypatch, tmp_path):
    fk = FakeKernel(monkeypatch, tmp_path, out={"base0": GCC_WARNINGS})
    run_matrix(steps="0")
    fk.out["c3"] = UNUSED_X + "\n"
    fk.makes.clear()
    rc, m = run_matrix(steps="0,3")
    assert rc == 0 and [c for c, _ in fk.makes] == ["c3"]
    assert cells(m)[(3, "objects")] == ("PASS", "")


def test_sigint_during_a_build(monkeypatch, tmp_path, capsys):
    """^C while step 3 builds: the command exits 130 with a readable
    matrix.json that says how far it got, and the next run gives the
    full verdict (an interrupted run stores no verdict: its steps are
    built again, from ccache)."""
    fk = FakeKernel(monkeypatch, tmp_path)
    real = fk.run

    def interrupted(cmd, **kw):
        if cmd[0] == "make" and fk.commit == "c3":
            raise KeyboardInterrupt
        return real(cmd, **kw)
    monkeypatch.setattr(matrix, "run", interrupted)
    assert matrix_cli(["matrix", "--configs", "x86_64"]) == 130
    meta = results.load_matrix(str(tmp_path / "results" / "matrix.json"))
    assert not meta["complete"] and meta["done_to_step"] == 2
    assert "interrupted" in capsys.readouterr().err
    monkeypatch.setattr(matrix, "run", real)
    fk.makes.clear()
    assert matrix_cli(["matrix", "--configs", "x86_64"]) == 0
    assert [c for c, _ in fk.makes] == ["base0", "c2", "c3"]
    assert results.load_matrix(str(tmp_path / "results" / "matrix.json"))["complete"]


def test_a_cached_cell_is_judged_against_this_runs_baseline(monkeypatch, tmp_path):
    """Found in review: a step cached by a run that built the base must
    give, in a run that does not, the verdict that run would give
    without the cache."""
    def verdict(steps, no_cache=False):
        if no_cache:
            monkeypatch.setenv("NO_CACHE", "1")
        else:
            monkeypatch.delenv("NO_CACHE", raising=False)
        return cells(run_matrix(steps=steps)[1])[(3, "objects")]

    FakeKernel(monkeypatch, tmp_path, out={"c3": UNUSED_X + "\n"})
    first = verdict("0,3")
    assert verdict("3") == verdict("3", no_cache=True)
    assert first[0] == "FAIL"


def test_link_only_reports_a_configure_failure(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    monkeypatch.setattr(matrix, "configure", lambda cfg, jobs, env: "make olddefconfig failed")
    args = argparse.Namespace(configs="x86_64", steps="final", part=None, link="x86_64",
                              link_only=True, sparse=False, jobs=2)
    m = matrix.Matrix(args)
    assert m.main() == 1
    assert cells(m) == {(4, "link"): ("FAIL", "make olddefconfig failed")}


def test_a_link_after_cached_cells_configures_first(monkeypatch, tmp_path):
    FakeKernel(monkeypatch, tmp_path)
    real = matrix.os.path.exists
    monkeypatch.setattr(matrix.os.path, "exists", lambda p: p.endswith("/vmlinux") or real(p))
    run_matrix(steps="final")
    configured = []
    monkeypatch.setattr(matrix, "configure", lambda cfg, jobs, env: configured.append(1))
    rc, m = run_matrix(steps="final", link="x86_64")
    assert configured == [1] and cells(m)[(4, "link")] == ("PASS", "")
    assert cells(m)[(4, "objects")] == ("PASS", "")
