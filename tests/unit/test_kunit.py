# SPDX-License-Identifier: GPL-2.0
"""KUnit: kunit.py's own JSON read into result lines, and the per-arch
arguments of a run.  test_data/kunit/ holds the JSON kunit.py wrote for
the series' suites (captured from real runs; see each test)."""

import json
import os

import pytest

from conftest import data
from mdesc import kunit, paths


def test_arch_args_take_the_cross_compiler_from_the_matrix_config(monkeypatch):
    monkeypatch.setattr(kunit.shutil, "which", lambda x: "/usr/bin/" + x)
    monkeypatch.delenv("KCFLAGS", raising=False)
    args, skip = kunit.arch_args("s390", ["mm/ptdesc.kunitconfig"], 2, "-fmacro-prefix-map=x/=")
    assert skip is None
    assert "--cross_compile=s390x-linux-gnu-" in args
    assert args[args.index("--make_options") + 1] == "CC=ccache s390x-linux-gnu-gcc"
    assert "KCFLAGS=-fmacro-prefix-map=x/=" in args
    assert "CONFIG_SMP=y" in args and "CONFIG_TRANSPARENT_HUGEPAGE=y" in args
    assert f"--build_dir={os.path.join(paths.BUILD, 'kunit-s390')}" in args


def test_arm_has_no_thp_and_um_no_smp(monkeypatch):
    monkeypatch.setattr(kunit.shutil, "which", lambda x: "/usr/bin/" + x)
    arm, _ = kunit.arch_args("arm", [], 2, "")
    assert "CONFIG_SMP=y" in arm and "CONFIG_TRANSPARENT_HUGEPAGE=y" not in arm
    um, _ = kunit.arch_args("um", ["mm/zsmalloc.kunitconfig"], 2, "")
    assert "CONFIG_SMP=y" not in um and not any(a.startswith("--cross") for a in um)
    assert "--kunitconfig=mm/zsmalloc.kunitconfig" in um


@pytest.mark.parametrize("missing,reason", [
    ("qemu-system-s390x", "qemu-system-s390x not found"),
    ("s390x-linux-gnu-gcc", "s390x-linux-gnu-gcc not found"),
])
def test_a_missing_tool_is_a_skip_reason(monkeypatch, missing, reason):
    monkeypatch.setattr(kunit.shutil, "which", lambda x: None if x == missing else "/bin/x")
    assert kunit.arch_args("s390", [], 2, "") == (None, reason)


def test_every_arch_names_an_existing_config():
    for arch, facts in kunit.ARCHES.items():
        if facts["config"]:
            assert os.path.exists(os.path.join(paths.CONFIGS, facts["config"] + ".config"))


DOC = {"name": "KUnit Test Group", "test_cases": [], "sub_groups": [
    {"name": "ptdesc", "test_cases": [{"name": "ctor", "status": "PASS"},
                                      {"name": "split_lock", "status": "SKIP"}],
     "sub_groups": []},
    {"name": "zsmalloc", "test_cases": [{"name": "map", "status": "ERROR"}],
     "sub_groups": [{"name": "param", "test_cases": [{"name": "one", "status": "FAIL"}],
                     "sub_groups": []}]},
]}


def test_cases_of_a_document():
    assert kunit.cases(DOC) == {"ptdesc/ctor": "PASS", "ptdesc/split_lock": "SKIP",
                                "zsmalloc/map": "FAIL", "zsmalloc/param/one": "FAIL"}


def test_report(tmp_path):
    j = tmp_path / "um.json"
    j.write_text(json.dumps(DOC))
    out = kunit.report("um", str(j), 1, 12.3, "/l")
    assert out[:2] == ["PASS kunit/um/ptdesc/ctor",
                       "SKIP kunit/um/ptdesc/split_lock: skipped by the test (see log)"]
    assert out[-1] == ("FAIL kunit/um: kunit.py exited with 1 (4 cases: 1 passed, 2 failed, "
                       "1 skipped); see /l")


def test_a_run_without_json_fails(tmp_path):
    assert kunit.report("um", str(tmp_path / "none.json"), 0, 1, "/l") == [
        "FAIL kunit/um: kunit.py exited with 0 (0 cases: 0 passed, 0 failed, 0 skipped); see /l"]


def test_cases_of_the_series_kunit_run_at_boot():
    """kunit.py parse --json of the series console of a make test run
    (test_data/boot/run2/x86_64-series.log, parsed by the series tree's
    kunit.py): the cases that run's boot.json recorded, all ten."""
    with open(data("kunit", "x86_64-series-boot.json")) as f:
        got = kunit.cases(json.load(f))
    with open(data("boot", "run2", "boot.json")) as f:
        series = [c for c in json.load(f) if c["tree"] == "series"][0]
    assert got == series["kunit"] and len(got) == 10
    assert set(got.values()) == {"PASS"}
    assert {k.split("/")[0] for k in got} == {"ptdesc", "zsmalloc"}


def test_parse_console_without_suites_runs_nothing(tmp_path):
    log = tmp_path / "console.log"
    log.write_text("Linux version 6.1.192\nRT-DONE\n")
    assert kunit.parse_console(str(log), "/nonexistent/kunit.py") == {}


def test_parse_console_that_kunit_py_cannot_read(tmp_path):
    log = tmp_path / "console.log"
    log.write_text("KTAP version 1\n# Subtest: ptdesc\n")
    fake = tmp_path / "kunit.py"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    assert kunit.parse_console(str(log), str(fake)) == {"kunit.py parse": "FAIL"}


def test_report_of_the_uml_run():
    """kunit.py run --json of make test's UML run at 4b78368: eight
    cases pass, the two that need split page-table locks skip
    themselves (no SMP under UML)."""
    out = kunit.report("um", data("kunit", "um.json"), 0, 704.2, "/l")
    assert len(out) == 11
    assert "SKIP kunit/um/ptdesc/ptdesc_test_ptlock: skipped by the test (see log)" in out
    assert out[-1] == "PASS kunit/um: 10 cases: 8 passed, 0 failed, 2 skipped in 704 s"
    # The same JSON with kunit.py failing: the run fails.
    assert kunit.report("um", data("kunit", "um.json"), 1, 1, "/l")[-1].startswith(
        "FAIL kunit/um: kunit.py exited with 1")


def test_skip_reasons_of_kunit_py_raw_log():
    """The KTAP lines of kunit.py's test.log of the UML run at
    188ec4327189: the three cases that skip themselves, with the
    reasons they printed; kunit.py's JSON has none."""
    assert kunit.skip_reasons(data("kunit", "um-test.log")) == {
        "ptdesc_test_ptlock": "no split PTE locks in this configuration",
        "ptdesc_test_pmd_ptdesc": "no split PMD locks in this configuration",
        "ptdesc_test_ctor_ptlock_fails": "no split PTE locks in this configuration"}


def test_skip_reasons_of_a_console():
    """The KTAP lines, timestamps and all, of the series console of the
    make test run of 39629cf: the two fault-injection cases skip in the
    runtime kernel, which has no fault injection."""
    assert kunit.skip_reasons(data("kunit", "x86_64-series-console.log")) == {
        "ptdesc_test_ctor_ptlock_fails":
            "needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS",
        "zs_test_alloc_fails": "needs CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS"}


def test_skip_reasons_of_no_log(tmp_path):
    assert kunit.skip_reasons(str(tmp_path / "none.log")) == {}


def test_report_gives_the_reason_a_case_skipped(tmp_path):
    j = tmp_path / "um.json"
    j.write_text(json.dumps(DOC))
    ktap = tmp_path / "test.log"
    ktap.write_text("    ok 2 split_lock # SKIP no split PTE locks\n")
    out = kunit.report("um", str(j), 1, 12.3, "/l", str(ktap))
    assert out[1] == "SKIP kunit/um/ptdesc/split_lock: no split PTE locks"


def test_an_arch_suite_builds_only_on_its_arch():
    """6.12's gmap suite lives under arch/s390: on um it would ask for
    KVM and fail the whole run, so only zsmalloc's is built there."""
    both = ["arch/s390/mm/.kunitconfig", "mm/zsmalloc.kunitconfig"]
    assert kunit.for_arch(both, "um") == ["mm/zsmalloc.kunitconfig"]
    assert kunit.for_arch(both, "x86_64") == ["mm/zsmalloc.kunitconfig"]
    assert kunit.for_arch(both, "s390") == both
    assert kunit.for_arch(both, "arm") == ["mm/zsmalloc.kunitconfig"]


def test_a_variant_is_its_arch_with_lines_added(monkeypatch):
    monkeypatch.setattr(kunit.shutil, "which", lambda x: "/usr/bin/" + x)
    args, skip = kunit.arch_args("x86_64+sepdesc", ["mm/ptdesc.kunitconfig"], 2, "")
    assert skip is None
    assert "--arch=x86_64" in args
    assert f"--build_dir={os.path.join(paths.BUILD, 'kunit-x86_64+sepdesc')}" in args
    assert args[args.index("CONFIG_SEPARATE_PTDESC=y") - 1] == "--kconfig_add"
    assert args[args.index("CONFIG_DEBUG_VM=y") - 1] == "--kconfig_add"
    plain, _ = kunit.arch_args("x86_64", ["mm/ptdesc.kunitconfig"], 2, "")
    assert "CONFIG_SEPARATE_PTDESC=y" not in plain
    assert kunit.for_arch(["arch/x86/mm/.kunitconfig"], "x86_64+sepdesc") == \
        ["arch/x86/mm/.kunitconfig"]
