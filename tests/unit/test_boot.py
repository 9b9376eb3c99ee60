# SPDX-License-Identifier: GPL-2.0
"""harness boot: console verdicts, mm selftest regressions, the report.

Every fixture in test_data/boot/ comes from one real run, 'make test'
(scripts/run-tests.sh test) started 2026-12-04 16:20 UTC in a clone at
8c542a5, whose scripts/boot-test.py is this package's boot.py before
the move (the same evaluate, regressions, side_by_side and
write_report).  That run was stopped at 17:03 while it built the
series kernel, so it left the base's results only:

  x86_64-base.log     work/results/boot/x86_64-base.log, whole: the base
                      (1168211065ea, configs/runtime/x86_64.config)
                      under qemu-system-x86_64, PASS in 426 s
  x86_64-base.config  work/build/runtime/x86_64-base/.config, whole
  boot.json, boot.md  work/results/boot/boot.json and boot.md as the run
                      wrote them after the base boot (one cell)

The next run, 'make test' started 17:03 in a clone at 4b78368 (this
package; the same base and series commits), booted both; its files are
in test_data/boot/run2/, whole: x86_64-base.log and x86_64-series.log
(both PASS; the series' console holds the KTAP of its ptdesc and
zsmalloc KUnit suites), and the boot.json and boot.md it wrote.

The failing consoles are derived from x86_64-base.log at test time (a
copy in tmp_path, edited as each test's comment says): a kernel report
inserted in a real 6.1 format, the console cut short, a check turned to
FAIL, or an empty console.  The series cells of the regression tests
are the run's base cell relabelled 'series' and then edited, as each
test says.
"""

import copy
import json
import os
import types

import pytest

from mdesc import boot
from mdesc.config import Config
from mdesc.errors import HarnessError
from mdesc.paths import CONFIGS

DATA = os.path.join(os.path.dirname(__file__), "test_data", "boot")
BASE_LOG = os.path.join(DATA, "x86_64-base.log")
RUN2 = os.path.join(DATA, "run2")

# The 14 rtinit checks of the run, in the console's order.
CHECKS = ["pt/map-mprotect-mremap-munmap", "pt/memcg-charge", "pt/fork-cow", "pt/thp",
          "pt/hugetlb", "pt/pagetables-leak", "zram/fill", "zram/verify", "zram/mm_stat",
          "zram/zs-compaction", "zram/huge-zspages", "zram/migration", "swap/memcg-swap",
          "swap/swapoff"]
# What the base's mm selftests did in that run (a tinyconfig kernel: no
# userfaultfd, socketpair or process_mrelease, ENOMEM for 2 GB mremaps).
KSFT = {"compaction_test": "PASS", "hugepage-mmap": "PASS", "hugepage-mremap": "FAIL",
        "map_fixed_noreplace": "PASS", "map_hugetlb": "PASS", "map_populate": "FAIL",
        "mlock2-tests": "PASS", "mrelease_test": "SKIP", "mremap_dontunmap": "PASS",
        "mremap_test": "FAIL"}

# Real 6.1 report formats (kernel/panic.c, kernel/exit.c,
# mm/kasan/report.c).  The functions and sizes are the base vmlinux's
# of that run: unmap_page_range is 0x913 bytes (zap_pte_range, which
# holds mm/memory.c:1474's WARN_ON_ONCE(!PageAnon(page)), is inlined
# into it) and zs_map_object 0x33b.
PANIC = "[  142.352017] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b"
WARNING = "[   61.432118] WARNING: CPU: 0 PID: 1 at mm/memory.c:1474 unmap_page_range+0x5c3/0x913"
KASAN = "[  150.204311] BUG: KASAN: use-after-free in zs_map_object+0x1b2/0x33b"


def lines_of(path):
    with open(path) as f:
        return f.read().splitlines()


def derive(tmp_path, lines, name="console.log"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + ("\n" if lines else ""))
    return str(p)


def index(lines, start):
    """The index of the one line that starts with START."""
    found = [i for i, ln in enumerate(lines) if ln.startswith(start)]
    assert len(found) == 1, (start, found)
    return found[0]


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def as_json(value):
    """Tuples as the JSON of boot.json has them: lists."""
    return json.loads(json.dumps(value))


@pytest.fixture
def base_cell():
    """The run's boot.json: its one cell, the base."""
    c = load("boot.json")
    assert [(x["config"], x["tree"]) for x in c] == [("x86_64", "base")]
    return c[0]


@pytest.fixture
def cells(base_cell):
    """The base cell, and a series cell that is a copy of it (the same
    selftest results: no regression) to be edited by the test."""
    ser = copy.deepcopy(base_cell)
    ser.update(tree="series", commit="62a412a15ce1")
    return [base_cell, ser]


@pytest.fixture
def run2_cells():
    """The second run's boot.json: base and series."""
    c = load(os.path.join("run2", "boot.json"))
    assert [(x["config"], x["tree"]) for x in c] == [("x86_64", "base"), ("x86_64", "series")]
    return c


# ---------------------------------------------------------------- evaluate

def test_real_base_console_passes(base_cell):
    res = boot.evaluate(BASE_LOG, 0)
    assert res["verdict"] == "PASS"
    assert res["first_failure"] is None
    assert list(res["checks"]) == CHECKS
    assert all(v == "PASS" for v, _ in res["checks"].values())
    assert res["checks"]["zram/verify"] == (
        "PASS", "0 bad of 12288 blocks; 12288 writes, 10923 overwrites, 14676 discards")
    assert {k: v for k, (v, _) in res["kselftest"].items()} == KSFT
    assert res["kselftest"]["mremap_test"] == ("FAIL", "22.4 s status 0x100")
    # '__vm_enough_memory: ... no enough memory' (mremap_test) and
    # 'Marking TSC unstable' are no kernel reports.
    assert res["reports"] == []
    assert res["bench"] == {}
    # What the run itself recorded for this console.
    for key in ("verdict", "checks", "kselftest", "reports", "bench"):
        assert as_json(res[key]) == base_cell[key], key
    assert base_cell["reason"] is None


@pytest.mark.parametrize("tree", ["base", "series"])
def test_real_consoles_of_the_second_run(run2_cells, tree):
    cell = run2_cells[["base", "series"].index(tree)]
    res = boot.evaluate(os.path.join(RUN2, f"x86_64-{tree}.log"), 0)
    assert (res["verdict"], res["first_failure"]) == ("PASS", None)
    assert list(res["checks"]) == CHECKS
    assert {k: v for k, (v, _) in res["kselftest"].items()} == KSFT
    for key in ("verdict", "checks", "kselftest", "reports", "bench"):
        assert as_json(res[key]) == cell[key], key


def test_timeout_fails_even_after_rt_done(tmp_path):
    # The real base console as it is, but QEMU did not exit (status None).
    res = boot.evaluate(BASE_LOG, None)
    assert res["verdict"] == "FAIL"
    assert res["first_failure"] == "timeout: QEMU did not finish"
    assert len(res["checks"]) == 14


def test_timeout_mid_test(tmp_path):
    # x86_64-base.log cut after 'RT-TEST: swap' (the guest still in the
    # swap test when the time ran out), status None.
    lines = lines_of(BASE_LOG)
    logf = derive(tmp_path, lines[:index(lines, "RT-TEST: swap") + 1])
    res = boot.evaluate(logf, None)
    assert (res["verdict"], res["first_failure"]) == ("FAIL", "timeout: QEMU did not finish")
    assert list(res["checks"]) == CHECKS[:12]


def test_panic(tmp_path):
    # x86_64-base.log cut after 'RT: zram verify PASS ...', then the
    # panic line appended (init killed; panic=-1 reboots, and QEMU,
    # with -no-reboot, exits 0).
    lines = lines_of(BASE_LOG)
    logf = derive(tmp_path, lines[:index(lines, "RT: zram verify ") + 1] + [PANIC])
    res = boot.evaluate(logf, 0)
    assert res["verdict"] == "FAIL"
    assert res["first_failure"] == "console: " + PANIC
    assert res["reports"] == [PANIC]
    assert list(res["checks"]) == CHECKS[:8]


def test_warning(tmp_path):
    # x86_64-base.log with the WARNING line inserted after
    # 'RT: pt fork-cow PASS ...': every check passed, RT-DONE reached.
    lines = lines_of(BASE_LOG)
    i = index(lines, "RT: pt fork-cow ")
    logf = derive(tmp_path, lines[:i + 1] + [WARNING] + lines[i + 1:])
    res = boot.evaluate(logf, 0)
    assert res["verdict"] == "FAIL"
    assert res["first_failure"] == "console: " + WARNING
    assert res["reports"] == [WARNING]
    assert list(res["checks"]) == CHECKS


def test_kasan_report(tmp_path):
    # x86_64-base.log with the KASAN line inserted after
    # 'RT: zram fill PASS ...', and the WARNING line after
    # 'RT: zram migration PASS ...': both are reports, in console
    # order; the first one names the failure.
    lines = lines_of(BASE_LOG)
    i, j = index(lines, "RT: zram fill "), index(lines, "RT: zram migration ")
    logf = derive(tmp_path, lines[:i + 1] + [KASAN] + lines[i + 1:j + 1] + [WARNING] +
                  lines[j + 1:])
    res = boot.evaluate(logf, 0)
    assert res["verdict"] == "FAIL"
    assert res["first_failure"] == "console: " + KASAN
    assert res["reports"] == [KASAN, WARNING]


def test_failed_check_comes_before_a_report(tmp_path):
    # x86_64-base.log with the WARNING line inserted after
    # 'RT: pt fork-cow PASS ...' and 'RT: zram verify PASS 0 bad' changed
    # to 'RT: zram verify FAIL 3 bad': the failed check is named first,
    # though the report came earlier.
    lines = lines_of(BASE_LOG)
    i, j = index(lines, "RT: pt fork-cow "), index(lines, "RT: zram verify ")
    lines[j] = lines[j].replace("PASS 0 bad", "FAIL 3 bad")
    logf = derive(tmp_path, lines[:i + 1] + [WARNING] + lines[i + 1:])
    res = boot.evaluate(logf, 0)
    assert res["verdict"] == "FAIL"
    assert res["first_failure"] == ("zram/verify: 3 bad of 12288 blocks; 12288 writes, "
                                    "10923 overwrites, 14676 discards")
    assert res["reports"] == [WARNING]


def test_skipped_check_passes(tmp_path):
    # x86_64-base.log with 'RT: pt thp PASS ...' changed to
    # 'RT: pt thp SKIP no THP': a skip is no failure.
    lines = lines_of(BASE_LOG)
    i = index(lines, "RT: pt thp ")
    lines[i] = "RT: pt thp SKIP no THP"
    res = boot.evaluate(derive(tmp_path, lines), 0)
    assert res["verdict"] == "PASS"
    assert res["checks"]["pt/thp"] == ("SKIP", "no THP")


def test_qemu_exits_before_rt_done(tmp_path):
    # x86_64-base.log cut after 'RT-TIME: swap' (the guest reset during
    # the selftests), QEMU exited 0: no report, no failed check.
    lines = lines_of(BASE_LOG)
    logf = derive(tmp_path, lines[:index(lines, "RT-TIME: swap") + 1])
    res = boot.evaluate(logf, 0)
    assert (res["verdict"], res["first_failure"]) == ("FAIL", "rtinit did not reach RT-DONE")
    assert res["kselftest"] == {}


@pytest.mark.parametrize("status,first", [
    (0, "rtinit printed no result (no boot?)"),
    (1, "rtinit printed no result (no boot?)"),
    (None, "timeout: QEMU did not finish"),
])
def test_guest_that_never_prints(tmp_path, status, first):
    # An empty console: QEMU exited (or was killed) before any output.
    res = boot.evaluate(derive(tmp_path, []), status)
    assert (res["verdict"], res["first_failure"]) == ("FAIL", first)
    assert res["checks"] == {} and res["reports"] == []


def test_only_the_command_line_printed(tmp_path):
    # x86_64-base.log cut after its first line, the '$ qemu-system-x86_64
    # ...' command the harness writes itself.
    logf = derive(tmp_path, lines_of(BASE_LOG)[:1])
    res = boot.evaluate(logf, 0)
    assert res["first_failure"] == "rtinit printed no result (no boot?)"


def test_reports_are_capped_at_20(tmp_path):
    # x86_64-base.log with the WARNING line inserted 25 times after
    # 'RT: pt fork-cow PASS ...'.
    lines = lines_of(BASE_LOG)
    i = index(lines, "RT: pt fork-cow ")
    logf = derive(tmp_path, lines[:i + 1] + [WARNING] * 25 + lines[i + 1:])
    res = boot.evaluate(logf, 0)
    assert res["reports"] == [WARNING] * 20


# ------------------------------------------------------------ regressions

def test_no_regression_in_the_real_run(cells):
    # The same selftest results on both sides (three fail on both).
    before = copy.deepcopy(cells)
    assert boot.regressions(cells) == 0
    assert cells == before


def test_no_regression_in_the_second_run(run2_cells):
    # Real base and series cells: the same selftests pass and fail.
    before = copy.deepcopy(run2_cells)
    assert boot.regressions(run2_cells) == 0
    assert run2_cells == before


def test_selftest_that_fails_only_with_the_series(cells, capsys):
    # The run's cells, with the series' map_hugetlb turned to FAIL.
    cells[1]["kselftest"]["map_hugetlb"] = ["FAIL", "5.5 s status 0x100"]
    assert boot.regressions(cells) == 1
    assert cells[1]["verdict"] == "FAIL"
    assert cells[1]["reason"] == ("mm selftest passes on the base, not with the series: "
                                  "map_hugetlb")
    assert cells[0]["verdict"] == "PASS"
    assert "x86_64 series: FAIL (mm selftest passes" in capsys.readouterr().out


def test_selftest_missing_with_the_series(cells):
    # The run's cells, with compaction_test and mlock2-tests gone from
    # the series' (not built there): both count, in the base's order.
    del cells[1]["kselftest"]["compaction_test"]
    del cells[1]["kselftest"]["mlock2-tests"]
    assert boot.regressions(cells) == 1
    assert cells[1]["reason"].endswith(": compaction_test, mlock2-tests")


def test_selftest_failing_on_both_is_no_regression(cells):
    # The run's cells: hugepage-mremap, map_populate and mremap_test
    # fail on the base and with the series; a SKIP on the base
    # (mrelease_test) that fails with the series is no regression either.
    assert cells[0]["kselftest"]["mremap_test"][0] == "FAIL"
    cells[1]["kselftest"]["mrelease_test"] = ["FAIL", "0.2 s status 0x100"]
    assert boot.regressions(cells) == 0
    assert cells[1]["verdict"] == "PASS"


def test_series_already_failed_keeps_its_reason(cells):
    # The run's cells, the series failed on its own (a check) and also
    # lost map_hugetlb: counted once, by main, not again here.
    cells[1].update(verdict="FAIL", reason="zram/verify: 3 bad")
    cells[1]["kselftest"]["map_hugetlb"] = ["FAIL", "5.5 s status 0x100"]
    assert boot.regressions(cells) == 0
    assert cells[1]["reason"] == "zram/verify: 3 bad"


@pytest.mark.parametrize("edit", ["base-skipped", "series-skipped", "no-base", "other-config"])
def test_nothing_to_compare(cells, edit):
    # The run's cells, edited: the base cell a SKIP without selftests,
    # the series cell one, the base cell gone, or the series cell of
    # another config (x86_64+nolockdep) than the base cell.
    cells[1]["kselftest"]["map_hugetlb"] = ["FAIL", "5.5 s status 0x100"]
    if edit == "base-skipped":
        cells[0] = {"config": "x86_64", "tree": "base", "verdict": "SKIP", "reason": "no qemu"}
    elif edit == "series-skipped":
        cells[1] = {"config": "x86_64", "tree": "series", "verdict": "SKIP", "reason": "no qemu"}
    elif edit == "no-base":
        del cells[0]
    else:
        cells[1]["config"] = "x86_64+nolockdep"
    assert boot.regressions(cells) == 0
    assert cells[-1]["verdict"] != "FAIL"


# ----------------------------------------------------------- kconfig_flags

def test_kconfig_flags_real_config(tmp_path, base_cell):
    # The base kernel's .config of the run: ten of the twelve debug
    # options (no HIGHMEM, HIGHPTE on x86_64), in DEBUG_SYMS order.
    (tmp_path / ".config").write_text(open(os.path.join(DATA, "x86_64-base.config")).read())
    flags = boot.kconfig_flags(types.SimpleNamespace(builddir=str(tmp_path)))
    assert flags == ["KASAN", "PROVE_LOCKING", "DEBUG_VM", "DEBUG_VM_PGTABLE",
                     "PAGE_TABLE_CHECK_ENFORCED", "DEBUG_PAGEALLOC_ENABLE_DEFAULT",
                     "TRANSPARENT_HUGEPAGE", "HUGETLBFS", "MEMCG", "ZSMALLOC_STAT"]
    assert flags == base_cell["debug"]


def test_kconfig_flags_only_y(tmp_path):
    # The run's base .config with CONFIG_KASAN=y turned into
    # '# CONFIG_KASAN is not set' and CONFIG_MEMCG=y into CONFIG_MEMCG=m
    # (not a bool, but a value other than y): neither is reported.
    text = open(os.path.join(DATA, "x86_64-base.config")).read()
    assert "\nCONFIG_KASAN=y\n" in text and "\nCONFIG_MEMCG=y\n" in text
    text = text.replace("\nCONFIG_KASAN=y\n", "\n# CONFIG_KASAN is not set\n")
    text = text.replace("\nCONFIG_MEMCG=y\n", "\nCONFIG_MEMCG=m\n")
    (tmp_path / ".config").write_text(text)
    flags = boot.kconfig_flags(types.SimpleNamespace(builddir=str(tmp_path)))
    assert "KASAN" not in flags and "MEMCG" not in flags
    assert len(flags) == 8


# ------------------------------------------------- side_by_side, write_report

def test_write_report_reproduces_the_runs_report(tmp_path, monkeypatch, base_cell):
    # The run wrote boot.md and boot.json after its base boot, with
    # trees base and series: the same cells give the same files.
    monkeypatch.setattr(boot, "OUT", str(tmp_path))
    boot.write_report([base_cell], ["base", "series"])
    with open(os.path.join(DATA, "boot.md")) as f:
        assert (tmp_path / "boot.md").read_text() == f.read()
    assert json.loads((tmp_path / "boot.json").read_text()) == load("boot.json")


def test_write_report_reproduces_the_second_runs_report(tmp_path, monkeypatch, run2_cells):
    # Base and series side by side, the series' ten KUnit cases with '-'
    # for the base.
    monkeypatch.setattr(boot, "OUT", str(tmp_path))
    boot.write_report(run2_cells, ["base", "series"])
    md = (tmp_path / "boot.md").read_text()
    with open(os.path.join(RUN2, "boot.md")) as f:
        assert md == f.read()
    assert "| KUnit ptdesc/ptdesc_test_ptlock | - | PASS |" in md.splitlines()
    assert json.loads((tmp_path / "boot.json").read_text()) == run2_cells


def test_write_report_side_by_side(tmp_path, monkeypatch, cells):
    # The series cell edited: failed on zram/verify (with a '|' in its
    # detail), one KUnit case, one selftest fewer, one benchmark, and a
    # 'pt/extra' check the base has not.
    monkeypatch.setattr(boot, "OUT", str(tmp_path))
    base, ser = cells
    ser.update(verdict="FAIL", reason="zram/verify: 3 bad", seconds=431.74,
               kunit={"ptdesc/ptdesc_test_alloc_free": "PASS"},
               bench={"fork-exit": [1126.7, "forks/s"]})
    ser["checks"]["zram/verify"] = ["FAIL", "3 bad | of 12288"]
    ser["checks"]["pt/extra"] = ["PASS", "x"]
    del ser["kselftest"]["compaction_test"]
    ser["kselftest_not_built"] = []
    boot.write_report(cells, ["base", "series"])
    md = (tmp_path / "boot.md").read_text().splitlines()
    assert md[:6] == ["# Runtime test: base and series side by side", "", "## x86_64", "",
                      "| | base | series |", "|---|---|---|"]
    assert "| verdict | PASS | FAIL: zram/verify: 3 bad |" in md
    assert "| seconds | boot+tests 426 s | boot+tests 432 s |" in md
    assert "| kselftest_not_built | madv_populate soft-dirty |  |" in md
    assert ("| zram/verify | PASS 0 bad of 12288 blocks; 12288 writes, 10923 overwrites, "
            "14676 discards | FAIL 3 bad / of 12288 |") in md
    assert "| pt/extra | - | PASS x |" in md
    assert "| KUnit ptdesc/ptdesc_test_alloc_free | - | PASS |" in md
    assert "| selftest compaction_test | PASS 16.7 s status 0 | - |" in md
    assert "| bench fork-exit | - | 1126.7 forks/s |" in md
    # 6 header lines, 4 rows of the cells, 15 checks, 1 KUnit case,
    # 10 selftests, 1 benchmark; the table ends with a newline.
    assert len(md) == 6 + 4 + 15 + 1 + 10 + 1
    assert (tmp_path / "boot.md").read_text().endswith(" |\n")
    assert [c["tree"] for c in json.loads((tmp_path / "boot.json").read_text())] == \
        ["base", "series"]


def test_write_report_a_cell_per_config(tmp_path, monkeypatch, cells):
    # The base cell, and the series cell relabelled as the
    # x86_64+nolockdep config and SKIPped: two tables, in cell order,
    # and '' where a config has no cell for a tree.
    monkeypatch.setattr(boot, "OUT", str(tmp_path))
    cells[1] = {"config": "x86_64+nolockdep", "tree": "series", "verdict": "SKIP",
                "reason": "qemu-system-x86_64 not found"}
    boot.write_report(cells, ["base", "series"])
    md = (tmp_path / "boot.md").read_text().splitlines()
    assert [ln for ln in md if ln.startswith("## ")] == ["## x86_64", "## x86_64+nolockdep"]
    tail = md[md.index("## x86_64+nolockdep"):]
    assert tail[4:8] == ["| verdict |  | SKIP: qemu-system-x86_64 not found |",
                         "| seconds |  |  |", "| debug |  |  |", "| kselftest_not_built |  |  |"]


def test_side_by_side_keys_in_tree_order(base_cell):
    row = {"base": {"checks": {"b": ["PASS", "1"], "a": ["PASS", "2"]}},
           "series": {"checks": {"c": ["FAIL", "3"], "a": ["PASS", "4"]}}}
    fmt = lambda v: v[0]  # noqa: E731
    assert boot.side_by_side(row, ["base", "series"], "checks", "", fmt) == [
        "| b | PASS | - |", "| a | PASS | PASS |", "| c | - | FAIL |"]
    assert boot.side_by_side(row, ["base", "series"], "checks", "x ", fmt, sort=True) == [
        "| x a | PASS | PASS |", "| x b | PASS | - |", "| x c | - | FAIL |"]
    # A tree with no cell, or a field no cell has: nothing or '-'.
    assert boot.side_by_side({}, ["base"], "checks", "", fmt) == []
    assert boot.side_by_side({"base": base_cell}, ["base", "series"], "kunit", "", str) == []


def test_side_by_side_real_selftests(base_cell):
    out = boot.side_by_side({"base": base_cell}, ["base", "series"], "kselftest", "selftest ",
                            lambda v: f"{v[0]} {v[1]}", sort=True)
    assert out[0] == "| selftest compaction_test | PASS 16.7 s status 0 | - |"
    assert [ln.split(" | ")[0] for ln in out] == ["| selftest " + k for k in sorted(KSFT)]


# ------------------------------------------------------------ kunit_results

def test_kunit_results_base_console_without_suites(monkeypatch):
    # The base console holds 'KTAP version 1' and '1..0' (no suite ran):
    # no KUnit result, and the tree's kunit.py is not run.
    def no_spawn(*a, **k):
        raise AssertionError("kunit.py run")
    monkeypatch.setattr(boot.kunit.subprocess, "run", no_spawn)
    assert "KTAP version 1" in open(BASE_LOG).read()
    assert boot.kunit_results(BASE_LOG, "base") == {}


def test_kunit_results_uses_the_trees_kunit_py(monkeypatch):
    seen = []
    monkeypatch.setattr(boot.kunit, "parse_console",
                        lambda logf, kunit_py: seen.append((logf, kunit_py)) or {"s/c": "PASS"})
    assert boot.kunit_results("x.log", "series") == {"s/c": "PASS"}
    assert seen == [("x.log", os.path.join(boot.WORK, "rt-series", "tools", "testing",
                                           "kunit", "kunit.py"))]


def test_a_check_printed_twice_keeps_its_failure(tmp_path):
    # x86_64-base.log with 'RT: zram verify PASS 0 bad' changed to FAIL
    # and the original PASS line printed again after it: the failure
    # stands (found in review: the later line used to overwrite it).
    lines = lines_of(BASE_LOG)
    j = index(lines, "RT: zram verify ")
    failed = lines[j].replace("PASS 0 bad", "FAIL 3 bad")
    logf = derive(tmp_path, lines[:j] + [failed, lines[j]] + lines[j + 1:])
    res = boot.evaluate(logf, 0)
    assert res["verdict"] == "FAIL"
    assert res["checks"]["zram/verify"][0] == "FAIL"


def test_missing_tools_name_what_is_missing(monkeypatch, tmp_path):
    cfg = Config(os.path.join(CONFIGS, "runtime", "x86_64.config"), builddir=str(tmp_path))
    which = boot.shutil.which
    monkeypatch.setattr(boot.shutil, "which",
                        lambda name: None if name.startswith("qemu") else which(name))
    assert boot.missing_tools(cfg) == "qemu-system-x86_64 not found"
    monkeypatch.setattr(boot.shutil, "which",
                        lambda name: None if name == "gcc" else "/usr/bin/" + name)
    assert boot.missing_tools(cfg).startswith("no toolchain: gcc not found")
    monkeypatch.setattr(boot.shutil, "which", lambda name: "/usr/bin/" + name)
    assert boot.missing_tools(cfg) is None


def test_tree_commits_refuse_an_unknown_tree_and_an_unapplied_series(monkeypatch):
    commits = {"base": "1168211065ea", "series": "c8451e37d355"}
    monkeypatch.setattr(boot, "tree_commit", lambda t: commits[t])
    assert boot.tree_commits(["base", "series"]) == commits
    assert boot.tree_commits(["series"]) == {"series": "c8451e37d355"}
    with pytest.raises(HarnessError, match="unknown tree 'head'"):
        boot.tree_commits(["head"])
    commits["series"] = commits["base"]
    with pytest.raises(HarnessError, match="run 'make apply' first"):
        boot.tree_commits(["series"])


def test_build_with_init_names_the_stage_that_failed(monkeypatch, tmp_path):
    cfg = Config(os.path.join(CONFIGS, "runtime", "x86_64.config"), builddir=str(tmp_path))
    calls = []
    monkeypatch.setattr(boot, "build_kernel", lambda *a: calls.append("make") or ("/img", None))
    monkeypatch.setattr(boot, "kconfig_flags", lambda c: ["KASAN"])
    monkeypatch.setattr(boot, "initramfs_with",
                        lambda c, d, s, e: calls.append((d, s, tuple(e))) or ("/cpio", None))
    cell = {"config": "x86_64+fault"}
    got = boot.build_with_init(cell, cfg, "base", "1168211065ea", "rtfault.c", "/i", 2, {},
                               "/log", ["dir /usr 755 0 0"])
    assert got == ("/img", "/cpio", None)
    assert calls == ["make", ("/i", "rtfault.c", ("dir /usr 755 0 0",))]
    assert cell["debug"] == ["KASAN"] and "build_seconds" in cell
    monkeypatch.setattr(boot, "initramfs_with", lambda *a: (None, "gcc -static failed"))
    assert boot.build_with_init({"config": "x"}, cfg, "base", "1168211065ea", "rtfault.c",
                                "/i", 2, {}, "/log") == \
        (None, None, ("initramfs", "gcc -static failed"))
    monkeypatch.setattr(boot, "build_kernel", lambda *a: (None, "make bzImage failed"))
    cell = {"config": "x"}
    assert boot.build_with_init(cell, cfg, "base", "1168211065ea", "rtfault.c", "/i", 2, {},
                                "/log") == (None, None, ("build", "make bzImage failed"))
    assert "debug" not in cell


def test_variants():
    assert boot.variant_of("x86_64") == ("x86_64", "", [], None)
    assert boot.variant_of("ppc64le+hash") == ("ppc64le", "hash", [], "disable_radix")
    base, variant, lines, append = boot.variant_of("x86_64+nolockdep")
    assert "# CONFIG_PROVE_LOCKING is not set" in lines and append is None
    # The RFC part's option: the series only, out of the base record's key.
    assert boot.variant_of("arm64+sepdesc") == (
        "arm64", "sepdesc", ["CONFIG_SEPARATE_PTDESC=y"], "slab_nomerge")
    assert "sepdesc" not in boot.VARIANTS
    with pytest.raises(HarnessError, match="unknown variant 'nope'"):
        boot.variant_of("x86_64+nope")
