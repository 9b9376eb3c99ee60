# SPDX-License-Identifier: GPL-2.0
"""harness fuzz: report kinds, the verdict of the series against the
base, and the files the guest needs.

BASE_WARN is a real line: the WARNING both kernels print from
hugetlb_split() (Documentation/runtime.md, "A bug in the base found on
the way"), as the x86_64 console of 2026-12-03 printed it.  SERIES_WARN
is derived from it: the timestamp, CPU, PID and line number that
another boot of another tree gives (the series moves lines)."""

import os

import pytest

from mdesc import fuzz, results
from mdesc.errors import ConfigError

BASE_WARN = ("WARNING: CPU: 0 PID: 67 at include/linux/fs.h:509 "
             "i_mmap_assert_write_locked+0x2b/0x2f")
SERIES_WARN = ("[   98.114203] WARNING: CPU: 1 PID: 71 at include/linux/fs.h:511 "
               "i_mmap_assert_write_locked+0x2b/0x2f")


def test_a_report_kind_is_the_same_across_boots_and_trees():
    assert fuzz.report_kind(BASE_WARN) == fuzz.report_kind(SERIES_WARN) == \
        "WARNING: CPU: N PID: N at include/linux/fs.h:N i_mmap_assert_write_locked"
    assert fuzz.report_kind("[ 5.1] BUG: KASAN: use-after-free in zs_free+0x1f/0x2a0") != \
        fuzz.report_kind("[ 5.1] BUG: KASAN: use-after-free in zs_malloc+0x1f/0x2a0")
    assert fuzz.report_kind("Unable to handle kernel paging request at virtual address "
                            "ffff00000badc0de") == \
        "Unable to handle kernel paging request at virtual address X"


def cell(reports=(), checks=None, reason=None):
    return {"report_kinds": fuzz.report_kinds(list(reports)), "reason": reason,
            "checks": checks or {"fuzz/trinity": ("PASS", "Ran 1 syscalls"),
                                 "fuzz/stress-ng": ("PASS", "exit 0")}}


def test_report_kinds_read_every_line_but_traces_and_user_space():
    lines = [BASE_WARN, "Call Trace:", "RT-INFO: WARNING: from trinity's output",
             "$ qemu-system-x86_64 -append 'BUG:'", "[ 1.0] init invoked oom-killer: gfp_mask=0x0"]
    assert fuzz.report_kinds(lines * 30) == [fuzz.report_kind(BASE_WARN)]


def test_the_series_fails_only_on_what_the_base_did_not_show():
    assert fuzz.series_verdict(cell(), cell()) is None
    # The base's own report, seen again with the series: documented, not new.
    assert fuzz.series_verdict(cell([BASE_WARN, "Call Trace:"]),
                               cell([SERIES_WARN], reason="console: " + SERIES_WARN)) is None
    rss = "[ 9.0] BUG: Bad rss-counter state mm:000000004e2e9a41 type:MM_ANONPAGES val:1"
    why = fuzz.series_verdict(cell([BASE_WARN]), cell([SERIES_WARN, rss]))
    assert why == ("report kinds the base did not show: BUG: Bad rss-counter state "
                   "mm:X type:MM_ANONPAGES val:N")


def test_a_check_that_failed_fails_the_series_even_on_both():
    failed = cell(checks={"fuzz/trinity": ("PASS", ""), "fuzz/stress-ng": ("FAIL", "exit 2")},
                  reason="fuzz/stress-ng: exit 2")
    assert fuzz.series_verdict(cell(), failed) == "failed checks: fuzz/stress-ng"
    assert fuzz.series_verdict(failed, failed) == \
        "failed checks: fuzz/stress-ng (on the base too)"


@pytest.mark.parametrize("reason", ["timeout: QEMU did not finish",
                                    "rtinit did not reach RT-DONE", "KUnit: ptdesc/x"])
def test_any_other_failure_of_the_series_fails_it(reason):
    assert fuzz.series_verdict(cell(reason=reason), cell(reason=reason)) == reason


def test_the_closure_follows_needed_libraries(tmp_path):
    root, trip = tmp_path / "root", "aarch64-linux-gnu"
    for p in ("usr/bin/trinity", f"lib/{trip}/libc.so.6", f"usr/lib/{trip}/libz.so.1.2.13"):
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text(p)
    os.symlink("libz.so.1.2.13", root / "usr/lib" / trip / "libz.so.1")
    # An absolute link, as the loader's in libc6: followed inside ROOT.
    (root / "lib64").mkdir()
    os.symlink(f"/lib/{trip}/libc.so.6", root / "lib64" / "ld.so")
    assert fuzz.in_root(str(root), str(root / "lib64" / "ld.so")) == \
        str(root / "lib" / trip / "libc.so.6")
    deps = {"trinity": ["libz.so.1", "libc.so.6"], "libz.so.1": ["libc.so.6"]}
    files = fuzz.closure(str(root), trip, ["/usr/bin/trinity"],
                         needed=lambda p: deps.get(os.path.basename(p), []))
    assert files == {
        "/usr/bin/trinity": str(root / "usr/bin/trinity"),
        f"/lib/{trip}/libz.so.1": str(root / "usr/lib" / trip / "libz.so.1.2.13"),
        f"/lib/{trip}/libc.so.6": str(root / "lib" / trip / "libc.so.6")}
    assert fuzz.cpio_lines(files)[:4] == ["dir /lib 755 0 0", f"dir /lib/{trip} 755 0 0",
                                          "dir /usr 755 0 0", "dir /usr/bin 755 0 0"]
    deps["libc.so.6"] = ["libmissing.so.3"]
    with pytest.raises(ConfigError, match="libmissing.so.3, needed by /lib/"):
        fuzz.closure(str(root), trip, ["/usr/bin/trinity"],
                     needed=lambda p: deps.get(os.path.basename(p), []))


def test_the_interpreter_and_libraries_are_read_from_the_binary():
    assert fuzz.interpreter("/bin/true") == "/lib64/ld-linux-x86-64.so.2"
    assert "libc.so.6" in fuzz.needed("/bin/true")
    with pytest.raises(ConfigError, match="no program interpreter"):
        fuzz.interpreter(fuzz.__file__)
    with pytest.raises(ConfigError, match="readelf -d"):
        fuzz.needed(fuzz.__file__)


def test_the_report_shows_both_trees():
    base = dict(cell([BASE_WARN]), config="x86_64", tree="base", commit="1168211065ea00",
                verdict="FAIL", reason="console: " + BASE_WARN, append="rt.seed=1", oom_kills=0)
    series = dict(cell(), config="x86_64", tree="series", commit="c8451e37d35500",
                  verdict="PASS", reason=None, append="rt.seed=1", oom_kills=1)
    md = results.fuzz_markdown([base, series], ["base", "series"])
    assert "| kernel reports | WARNING: CPU: N PID: N at include/linux/fs.h:N " \
        "i_mmap_assert_write_locked | none |" in md
    assert "| OOM kills | 0 | 1 |" in md and "| commit | 1168211065ea | c8451e37d355 |" in md


def test_no_fuzzers_is_a_named_error(monkeypatch, tmp_path):
    monkeypatch.setattr(fuzz, "CACHE", str(tmp_path))
    with pytest.raises(ConfigError, match="run 'scripts/fetch-fuzzers.sh arm64'"):
        fuzz.guest_files("arm64")
