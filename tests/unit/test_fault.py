# SPDX-License-Identifier: GPL-2.0
"""harness fault: the injection's dumps taken out of a console and
classified, the counts, the verdict, the report.

test_data/fault/x86_64-base-ptfault.log is cut from one real console:
the base (1168211065ea) built with configs/runtime/x86_64.config and
configs/fragments/fault.config, booted by harness fault at 5149f7a
(2026-12-06 22:05 UTC) with runtime/rtfault.c as init.  Kept whole, in
this order: lines 142-350 (rtfault's start and the first ptfault dumps,
a fault retried after its PMD table could not be allocated), lines
2274-2389 (a failed mremap: a PTE table that move_page_tables() could
not allocate on the way back, the ptlock failing in another worker, and
the data that 6.1 lost there), then ptfault's RT lines of that console.
Only the first harness fault run left these lines: rtfault no longer
leaves a source table empty (Documentation/runtime.md).
"""

import json
import os

import pytest

from mdesc import boot, fault, results
from mdesc.errors import ConfigError, HarnessError

DATA = os.path.join(os.path.dirname(__file__), "test_data", "fault")


def console():
    with open(os.path.join(DATA, "x86_64-base-ptfault.log")) as f:
        return f.readlines()


def test_every_dump_of_the_injection_is_taken_out_and_nothing_else():
    lines = console()
    kept, inj = fault.split_console(lines)
    assert len(inj) == sum("FAULT_INJECTION: forcing a failure" in ln for ln in lines) == 9
    # Nothing left that the runtime test's verdict would call a report...
    assert [ln for ln in kept if boot.REPORT_RE.search(ln)] == []
    assert not [ln for ln in kept if "FAULT_INJECTION" in ln or
                (ln.startswith("[") and ("+0x" in ln or "RIP:" in ln))]
    # ...and everything that is not the injection's is kept.
    assert sum(ln.startswith("RT") for ln in kept) == sum(ln.startswith("RT") for ln in lines)
    assert sum("VM_FAULT_OOM leaked out" in ln for ln in kept) == \
        sum("VM_FAULT_OOM leaked out" in ln for ln in lines) > 0


def test_dumps_are_classified_by_their_reliable_frames():
    _, inj = fault.split_console(console())
    first = inj[0]
    assert first["capability"] == "fail_page_alloc" and first["test"] == "ptfault"
    # A PMD table for a user fault; the '? __pud_alloc' frame is not
    # what called the allocator and is not kept.
    assert "__pmd_alloc" in first["frames"] and "__pud_alloc" not in first["frames"]
    assert first["kind"] == "page-table"
    assert all(d["kind"] == "ptlock" for d in inj if d["capability"] == "failslab")
    assert {d["capability"] for d in inj} == {"fail_page_alloc", "failslab"}
    # mremap: the ptlock of a table that move_page_tables() allocated.
    assert any("move_page_tables" in d["frames"] and d["kind"] == "ptlock" for d in inj)


def test_a_report_beside_a_dump_is_kept():
    lines = console()
    at = next(i for i, ln in enumerate(lines) if "Call Trace:" in ln)
    warn = ["[   47.000000] WARNING: CPU: 1 PID: 30 at mm/memory.c:1 zap_pte_range+0x1/0x2\n",
            "[   47.000000] CPU: 1 PID: 30 Comm: init Not tainted 6.1.192+ #1\n",
            "[   47.000000] Call Trace:\n",
            "[   47.000000]  zap_pte_range+0x1/0x2\n"]
    # A WARNING between a dump's header and its trace, and one after
    # the last dump: both stay, and so does the trace of the second,
    # which does not pass through the injection; the dump keeps its own.
    kept, inj = fault.split_console(lines[:at] + warn[:1] + lines[at:] + warn)
    reports = [ln.split("] ")[1].split(":")[0] for ln in kept if boot.REPORT_RE.search(ln)]
    assert len(inj) == 9 and all(d["frames"] for d in inj)
    assert reports == ["WARNING", "WARNING", "Call Trace"]


def test_a_warning_with_its_registers_keeps_its_stack_while_a_dump_waits():
    # A WARNING in 6.1's x86 layout (Modules, CPU, RIP, registers,
    # then the trace) printed by another CPU between a dump's first
    # line and its stack.
    lines = console()
    at = next(i for i, ln in enumerate(lines) if "FAULT_INJECTION" in ln) + 2
    warn = ["WARNING: CPU: 1 PID: 30 at mm/memory.c:1 zap_pte_range+0x1/0x2\n",
            "Modules linked in:\n",
            "CPU: 1 PID: 30 Comm: init Not tainted 6.1.192+ #1\n",
            "RIP: 0010:zap_pte_range+0x1/0x2\n",
            "Code: 48 89 e5 <0f> 0b\n",
            "RSP: 0018:ffffc900001bfc88 EFLAGS: 00010246\n",
            "Call Trace:\n", " <TASK>\n", " unmap_page_range+0x2/0x3\n",
            " exit_mmap+0x4/0x5\n", " </TASK>\n",
            "---[ end trace 0000000000000000 ]---\n"]
    kept, inj = fault.split_console(lines[:at] + warn + lines[at:])
    assert [ln for ln in kept if ln in warn] == warn
    assert len(inj) == 9 and inj[0]["kind"] == "page-table"
    assert "unmap_page_range" not in inj[0]["frames"]


@pytest.mark.parametrize("between", [["RT-INFO: a line of user space\n"], []])
def test_interleaved_dumps_take_the_traces_in_order(between):
    dump = ["FAULT_INJECTION: forcing a failure.\n",
            "name {}, interval 1, probability 4, space 0, times 9\n"]
    lines = dump[:1] + [dump[1].format("failslab")] + dump[:1] + \
        [dump[1].format("fail_page_alloc"),
         "Call Trace:\n", " should_failslab+0x5/0xd\n", " kmem_cache_alloc+0x3d/0x14a\n",
         " ptlock_alloc+0x16/0x32\n"] + between + [
         "Call Trace:\n", " should_fail_alloc_page+0x1/0x2\n", " __alloc_pages+0xc5/0x24f\n",
         " alloc_zspage+0x1/0x2\n"]
    kept, inj = fault.split_console(lines)
    assert kept == between
    assert [(d["capability"], d["kind"]) for d in inj] == [
        ("failslab", "ptlock"), ("fail_page_alloc", "zsmalloc")]


def test_counts_come_from_rtfault_and_outcomes_from_the_console():
    lines = console()
    assert fault.injected_counts(lines) == {
        "ptfault": {"fail_page_alloc": (300, 300), "failslab": (150, 150)}}
    kept, inj = fault.split_console(lines)
    got = fault.outcomes(kept)
    assert got["fault retried"] > 0 and got["swap write error"] == 0
    s = fault.summary(inj)
    assert s["ptfault"]["dumps"] == 9
    assert s["ptfault"]["ptlock"] + s["ptfault"]["page-table"] + s["ptfault"]["zsmalloc"] + \
        s["ptfault"]["other"] == 9
    assert fault.pt_sites(inj)[0][1] >= 1


def test_kinds():
    assert fault.kind_of(["should_fail_ex", "ptlock_alloc", "pte_alloc_one"]) == "ptlock"
    assert fault.kind_of(["__alloc_pages", "crst_table_alloc.constprop.0"]) == "page-table"
    assert fault.kind_of(["__alloc_pages", "zs_malloc"]) == "zsmalloc"
    assert fault.kind_of(["__alloc_pages", "do_anonymous_page"]) == "other"


def judged(tmp_path, monkeypatch, edit=lambda lines: lines):
    monkeypatch.setattr(boot, "kunit_results", lambda logf, tree: {})
    logf = tmp_path / "x86_64-base.log"
    logf.write_text("".join(edit(console())))
    cell = {}
    fault.judge(cell, str(logf), 0, "base")
    return cell


def test_the_verdict_is_the_runtime_tests_on_what_is_left(tmp_path, monkeypatch):
    # The console was cut before RT-DONE, and the workers of this first
    # run failed (the lost data of the failed mremap).
    cell = judged(tmp_path, monkeypatch, lambda ls: ls + ["RT-DONE\n"])
    assert cell["verdict"] == "FAIL" and cell["reason"].startswith("ptfault/workers")
    assert cell["pt_hits"] > 0 and (tmp_path / "x86_64-base.judged.log").exists()


def test_a_run_with_no_page_table_failure_fails(tmp_path, monkeypatch):
    def edit(lines):
        # Every check passing, and no dump at all.
        keep = [ln.replace(" FAIL ", " PASS ") for ln in lines
                if ln.startswith(("RT:", "RT-FAULT", "RT-TEST"))]
        return keep + ["RT-DONE\n"]
    cell = judged(tmp_path, monkeypatch, edit)
    assert cell["verdict"] == "FAIL"
    assert cell["reason"] == "no injected failure hit a page-table or ptlock allocation"


def test_a_clean_run_passes(tmp_path, monkeypatch):
    def edit(lines):
        return [ln.replace(" FAIL ", " PASS ") for ln in lines if "RT-INFO" not in ln] + \
            ["RT-DONE\n"]
    cell = judged(tmp_path, monkeypatch, edit)
    assert cell["verdict"] == "PASS", cell["reason"]


def test_the_report_has_both_trees_side_by_side(tmp_path, monkeypatch):
    cell = judged(tmp_path, monkeypatch, lambda ls: ls + ["RT-DONE\n"])
    cells = [dict(cell, config="x86_64+fault", tree="base", seconds=12.0),
             dict(cell, config="x86_64+fault", tree="series", verdict="PASS", reason=None)]
    md = results.save_cells(str(tmp_path), "fault", cells,
                            results.fault_markdown(cells, ["base", "series"]))
    text = open(md).read()
    assert ("| ptfault: fail_page_alloc injected (cap) | 300 (300), cap reached | "
            "300 (300), cap reached |") in text
    assert "| verdict | FAIL: ptfault/workers" in text and "| PASS |" in text
    assert "Where the page-table failures landed (base)" in text
    assert json.load(open(tmp_path / "fault.json"))[1]["tree"] == "series"


def test_the_fragment_is_read_and_an_empty_one_refused(tmp_path):
    lines = fault.fragment_lines()
    assert "CONFIG_FAILSLAB=y" in lines and "CONFIG_DEBUG_KMEMLEAK=y" in lines
    assert all(ln.startswith(("CONFIG_", "# CONFIG_")) for ln in lines)
    empty = tmp_path / "empty.config"
    empty.write_text("# nothing\n")
    with pytest.raises(ConfigError, match="no CONFIG_ lines"):
        fault.fragment_lines(str(empty))


def test_a_run_replaces_its_own_cells_and_keeps_the_others(tmp_path):
    old = [{"config": "x86_64+fault", "tree": "base", "verdict": "PASS"},
           {"config": "arm64+fault", "tree": "base", "verdict": "PASS"}]
    new = {"config": "x86_64+fault", "tree": "base", "verdict": "FAIL"}
    got = results.merge_cells(old, new)
    assert got == [new, old[1]]
    added = {"config": "x86_64+fault", "tree": "series", "verdict": "PASS"}
    assert results.merge_cells(got, added) == [new, old[1], added]
    assert results.load_cells(str(tmp_path / "none.json")) == []
    results.save_cells(str(tmp_path), "fault", got, results.fault_markdown(got, ["base"]))
    assert results.load_cells(str(tmp_path / "fault.json")) == got


@pytest.mark.parametrize("name,dumps", [("s390x-base-locks", 6),
                                        ("s390x-series-interleaved", 11)])
def test_s390_dumps_with_held_locks_and_lines_of_another_cpu(name, dumps):
    # Cut from the s390x consoles of the same harness fault run (base at
    # 24.018-24.099 s, series at 25.86-25.99 s), whole dumps only: with
    # lockdep, s390's show_stack() lists the task's held locks, which its
    # console splits into pieces when two CPUs print at once; another
    # dump's first two lines and the VM_FAULT_OOM retries of other CPUs
    # come in the middle of a stack.  Before BETWEEN_RE, both consoles
    # were judged FAIL on a 'Call Trace:' that was an injection's.
    with open(os.path.join(DATA, name + ".log")) as f:
        lines = f.readlines()
    kept, inj = fault.split_console(lines)
    assert len(inj) == dumps and all(d["frames"] and d["capability"] for d in inj)
    assert [ln for ln in kept if boot.REPORT_RE.search(ln)] == []
    assert sum("VM_FAULT_OOM" in ln for ln in kept) == sum("VM_FAULT_OOM" in ln for ln in lines)


def test_rejudge_reads_the_kept_console_again_and_keeps_the_rest(tmp_path, monkeypatch):
    # A cell as the first s390x series boot left it, judged FAIL on a
    # trace that was an injection's; the console is the x86_64 fixture
    # with RT-DONE added (the boot itself is not repeated).
    monkeypatch.setattr(fault, "OUT", str(tmp_path))
    monkeypatch.setattr(boot, "kunit_results", lambda logf, tree: {})
    lines = [ln.replace(" FAIL ", " PASS ") for ln in console() if "RT-INFO" not in ln]
    (tmp_path / "x86_64-series.log").write_text("".join(lines) + "RT-DONE\n")
    old = {"config": "x86_64+fault", "tree": "series", "commit": "c8451e37d355",
           "verdict": "FAIL", "reason": "console: Call Trace:", "seconds": 288.0,
           "qemu_status": 0, "debug": ["KASAN"]}
    other = {"config": "arm64+fault", "tree": "base", "verdict": "PASS", "seconds": 1.0}
    results.save_cells(str(tmp_path), "fault", [old, other], "")
    assert fault.rejudge(["x86_64"], ["base", "series"]) == 0
    cells = results.load_cells(str(tmp_path / "fault.json"))
    assert cells[1] == other
    assert cells[0]["verdict"] == "PASS" and cells[0]["seconds"] == 288.0
    assert cells[0]["debug"] == ["KASAN"] and cells[0]["pt_hits"] > 0
    (tmp_path / "x86_64-series.log").unlink()
    with pytest.raises(HarnessError, match="no console"):
        fault.rejudge(["x86_64"], ["series"])


def test_a_bar_in_a_reason_does_not_split_a_table_cell():
    cell = {"config": "x86_64+fault", "tree": "base", "verdict": "FAIL",
            "reason": "console: BUG: a | b"}
    md = results.fault_markdown([cell], ["base", "series"])
    assert "| verdict | FAIL: console: BUG: a / b | - |" in md
