# SPDX-License-Identifier: GPL-2.0
"""harness bench: the QEMU command and clock of an icount guest, the
control kernels, the guest's clocksource, and the analysis of the
times: the controls' verdict and the series/base ratios.

test_data/bench/vm_mmap_pgoff-*.c are vm_mmap_pgoff() of mm/util.c in
the two bases, copied as they are.  The consoles are test_data/boot/x86_64-base.log and
test_data/boot/run2/x86_64-{base,series}.log, real boots of the runtime
test (test_boot.py says which runs); the others are derived from the
first at test time, as each test's comment says.
"""

import json
import os
import re
import shutil
import subprocess

import pytest

from mdesc import bench, boot, results
from mdesc.config import Config
from mdesc.errors import ConfigError
from mdesc.paths import CONFIGS

DATA = os.path.join(os.path.dirname(__file__), "test_data")


def data(*parts):
    return os.path.join(DATA, *parts)


def runtime_config(name, tmp_path):
    return Config(os.path.join(CONFIGS, "runtime", name + ".config"), builddir=str(tmp_path))


# ------------------------------------------------------------ the guest

FIXED = "-seed 1 -rtc base=2026-01-01T00:00:00,clock=vm"


@pytest.mark.parametrize("name,want", [
    ("x86_64", "qemu-system-x86_64 -m 1536 -smp 1 -icount shift=0,sleep=off " + FIXED),
    ("arm64", "qemu-system-aarch64 -machine virt -cpu cortex-a57 -m 1536 "
     "-smp 1 -icount shift=0,sleep=off " + FIXED),
    ("s390x", "qemu-system-s390x -machine s390-ccw-virtio -cpu max -m 1536 "
     "-smp 1 -icount shift=0,sleep=off " + FIXED),
    # m68k's runtime config gives no -smp: one is added all the same.
    ("m68k", "qemu-system-m68k -machine virt -cpu m68040 -m 1G -smp 1 "
     "-icount shift=0,sleep=off " + FIXED),
])
def test_icount_qemu_from_the_runtime_configs(tmp_path, name, want):
    assert bench.icount_qemu(runtime_config(name, tmp_path).meta["qemu"]) == want


def test_icount_qemu_refuses_a_second_icount():
    with pytest.raises(bench.BenchError, match="already sets -icount"):
        bench.icount_qemu("qemu-system-x86_64 -icount 3")


@pytest.mark.parametrize("opt", ["-seed 7", "-rtc base=utc"])
def test_icount_qemu_refuses_what_it_sets(opt):
    with pytest.raises(bench.BenchError, match="already sets " + opt.split()[0]):
        bench.icount_qemu("qemu-system-s390x " + opt)


@pytest.mark.parametrize("name,shift,want", [
    ("x86_64", 0, "norandmaps nokaslr tsc=reliable tsc_early_khz=1000000"),
    ("i386", 0, "norandmaps nokaslr tsc=reliable tsc_early_khz=1000000"),
    # 4 ns an instruction
    ("x86_64", 2, "norandmaps nokaslr tsc=reliable tsc_early_khz=250000"),
    ("arm64", 0, "norandmaps nokaslr"),               # not x86: no TSC options
    ("s390x", 0, "norandmaps nokaslr"),
])
def test_bench_append(tmp_path, name, shift, want):
    assert bench.bench_append(runtime_config(name, tmp_path), shift) == want


# ------------------------------------------------------ control kernels

def test_control_loops_x86():
    stmt, insns = bench.control_loop("x86", bench.load_loops())
    assert stmt == ('asm volatile("movl $1000, %%ecx\\n\\t1:\\n\\tdecl %%ecx\\n\\t'
                    'jnz 1b" ::: "ecx", "cc");')
    assert insns == 2 * 1000 + 1


def test_control_loops_split_wide_immediates():
    loops = bench.load_loops()
    stmt, insns = bench.control_loop("arm64", loops)
    assert "movz x9, #1000\\n\\tmovk x9, #0, lsl #16" in stmt
    assert insns == 2002
    stmt, insns = bench.control_loop("powerpc", loops)
    assert "lis %%r9, 0\\n\\tori %%r9, %%r9, 2000" in stmt
    assert insns == 2003
    assert bench.control_loop("s390", loops)[1] == 2001
    # A count above 16 bits is split the same way: 200000 = 3 << 16 | 3392.
    wide = {"arm64": dict(loops["arm64"], n=200000)}
    assert "movz x9, #3392\\n\\tmovk x9, #3, lsl #16" in bench.control_loop("arm64", wide)[0]


def test_control_loop_of_an_arch_without_one():
    with pytest.raises(bench.BenchError, match="no positive-control loop for arch 'sh'"):
        bench.control_loop("sh", bench.load_loops())


@pytest.mark.parametrize("base", ["6.1", "6.12"])
def test_the_positive_loop_is_the_first_statement_of_vm_mmap_pgoff(base):
    # vm_mmap_pgoff() as the two bases have it (mm/util.c, copied whole).
    with open(data("bench", f"vm_mmap_pgoff-{base}.c")) as f:
        src = f.read()
    out = bench.with_positive_loop(src, "LOOP;", 7)
    lines = out.splitlines()
    i = lines.index("\tLOOP;")
    assert lines[i - 1] == "\t/* harness bench positive control: 7 instructions per mmap() */"
    assert lines[i - 2] == "" and lines[i - 3] == "\tLIST_HEAD(uf);"
    assert lines[i + 1] == "\tret = security_mmap_file(file, prot, flag);"
    assert out.replace("\t/* harness bench positive control: 7 instructions per mmap() */\n"
                       "\tLOOP;\n", "") == src


def test_a_vm_mmap_pgoff_that_changed_shape_is_named():
    with open(data("bench", "vm_mmap_pgoff-6.1.c")) as f:
        src = f.read().replace("\tLIST_HEAD(uf);\n\n", "\tLIST_HEAD(uf);\n")
    with pytest.raises(bench.BenchError, match="no vm_mmap_pgoff"):
        bench.with_positive_loop(src, "LOOP;", 7)


def test_the_bench_initramfs_is_the_tests_with_another_init():
    spec = ("dir /dev 755 0 0\nnod /dev/console 600 0 0 c 5 1\n"
            "file /init /b/initramfs/rtinit 755 0 0\ndir /bin 755 0 0\n")
    out = boot.with_init(spec, "/b/initramfs/rtbench")
    assert out.splitlines() == ["dir /dev 755 0 0", "nod /dev/console 600 0 0 c 5 1",
                                "dir /bin 755 0 0", "file /init /b/initramfs/rtbench 755 0 0"]
    with pytest.raises(ConfigError, match="has no /init"):
        boot.with_init("dir /dev 755 0 0\n", "/x")


def test_skipped_benchmarks_are_read_with_their_reason(tmp_path):
    # What rtbench prints for s390x under TCG (no THP) and for a kernel
    # without hugetlb (runtime/rtbench.c, the RT-BENCH-SKIP lines).
    logf = edit(tmp_path, ["RT-TEST: bench",
                           "RT-BENCH: pte-fault 21034.5 ns/table (256 in 0.005385 s)",
                           "RT-BENCH-SKIP: thp-split kernel without THP",
                           "RT-BENCH-SKIP: hugetlb-share no PMD-sized huge pages "
                           "under a PMD table\r",
                           "RT-DONE"])
    assert bench.skipped(logf) == {
        "thp-split": "kernel without THP",
        "hugetlb-share": "no PMD-sized huge pages under a PMD table"}


def test_padding_is_appended_and_never_run():
    out = bench.with_padding("int x;\n", 96)
    assert out.startswith("int x;\n")
    assert '.skip 96, 0xcc' in out and ".pushsection .text" in out


# Each loop compiled by its arch's compiler: the function holds
# fixed + per_iteration instructions before its return, and the loop's
# branch goes back over per_iteration of them.  (objdump's mnemonics
# are not the source's: mov for movl and movz, jne for jnz.)
ASSEMBLE = {"x86": ("gcc", [], "ret"), "arm64": ("aarch64-linux-gnu-gcc", [], "ret"),
            "s390": ("s390x-linux-gnu-gcc", ["-march=z10"], "br"),
            "powerpc": ("powerpc64le-linux-gnu-gcc", [], "blr")}


@pytest.mark.parametrize("arch", sorted(ASSEMBLE))
def test_the_loops_compile_to_the_instructions_counted(tmp_path, arch):
    cc, flags, ret = ASSEMBLE[arch]
    if not shutil.which(cc):
        pytest.skip(f"{cc} not found")
    loop = bench.load_loops()[arch]
    stmt, insns = bench.control_loop(arch, bench.load_loops())
    (tmp_path / "l.c").write_text(f"void f(void) {{ {stmt} }}\n")
    subprocess.run([cc, "-O2", "-c", *flags, "-o", str(tmp_path / "l.o"), str(tmp_path / "l.c")],
                   check=True)
    objdump = "objdump" if cc == "gcc" else cc[:-len("gcc")] + "objdump"
    dis = subprocess.run([objdump, "-d", str(tmp_path / "l.o")], check=True,
                         capture_output=True, text=True).stdout
    body = []
    for ln in dis.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\t[0-9a-f ]+\t(\S+)\s*(.*)$", ln)
        if m:
            body.append((int(m.group(1), 16), m.group(2), m.group(3)))
    n = next(i for i, (_a, mn, _o) in enumerate(body) if mn == ret)
    assert n == loop["fixed"] + loop["per_iteration"], dis
    target = int(re.search(r"([0-9a-f]+) <", body[n - 1][2]).group(1), 16)
    assert sum(1 for a, _m, _o in body[:n] if a >= target) == loop["per_iteration"], dis
    assert insns == loop["per_iteration"] * loop["n"] + loop["fixed"]


# ------------------------------------------------------------ clocksource

BASE_LOG = data("boot", "x86_64-base.log")


def edit(tmp_path, lines):
    p = tmp_path / "console.log"
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def test_clocksource_real_console():
    # The runtime test's base boot, without tsc_early_khz: 'tsc: Unable
    # to calibrate against PIT', 'tsc: Marking TSC unstable due to could
    # not calculate TSC khz', then 'clocksource: Switched to clocksource
    # refined-jiffies'.  A bench boot like it is booted again.
    assert bench.clocksource(BASE_LOG) == ("refined-jiffies", True)


@pytest.mark.parametrize("tree", ["base", "series"])
def test_clocksource_second_run(tree):
    # Base: 'Switched to clocksource tsc-early', then 'tsc', then 'tsc:
    # Marking TSC unstable due to clocksource watchdog' and 'Switched to
    # clocksource refined-jiffies'.  Series: as the first run's base.
    logf = data("boot", "run2", f"x86_64-{tree}.log")
    assert bench.clocksource(logf) == ("refined-jiffies", True)


def test_clocksource_tsc(tmp_path):
    # x86_64-base.log without its 'Marking TSC unstable' line, and with
    # '[    1.460000] clocksource: Switched to clocksource tsc' (the
    # format of kernel/time/clocksource.c) after the switch to
    # refined-jiffies: the last switch counts.
    lines = [ln for ln in open(BASE_LOG).read().splitlines() if "Marking TSC unstable" not in ln]
    i = next(i for i, ln in enumerate(lines) if "Switched to clocksource refined-jiffies" in ln)
    lines.insert(i + 1, "[    1.460000] clocksource: Switched to clocksource tsc")
    assert bench.clocksource(edit(tmp_path, lines)) == ("tsc", False)


def test_clocksource_of_a_guest_that_never_printed(tmp_path):
    assert bench.clocksource(edit(tmp_path, [])) == (None, False)


def test_bench_boot_console(tmp_path):
    # Not captured: the run had no bench boot.  x86_64-base.log up to
    # 'Run /init as init process', then what rtinit prints with
    # rt.tests=bench (runtime/rtinit.c, bench_report(): 'RT-BENCH: %s
    # %.1f %s/s (%.0f in %.2f s)'), with the base medians of the third
    # run in Documentation/performance.md as the rates.  No RT: check
    # line, RT-DONE reached: the boot passes and its benchmarks are read.
    lines = open(BASE_LOG).read().splitlines()
    i = next(i for i, ln in enumerate(lines) if "Run /init as init process" in ln)
    lines = lines[:i + 1] + [
        "RT-TEST: bench",
        "RT-BENCH: fork-exit 1119.6 forks/s (2000 in 1.79 s)",
        "RT-BENCH: mmap-touch-munmap-2M 176.8 regions/s (200 in 1.13 s)",
        "RT-BENCH: page-faults 96276.4 faults/s (262144 in 2.72 s)",
        "RT-BENCH: zram-write 54.3 MiB/s (64 in 1.18 s)",
        "RT-BENCH: zram-read 339.1 MiB/s (256 in 0.75 s)",
        "RT-TIME: bench 7.6 s",
        "RT-DONE"]
    res = boot.evaluate(edit(tmp_path, lines), 0)
    assert (res["verdict"], res["first_failure"], res["checks"]) == ("PASS", None, {})
    assert res["bench"] == {"fork-exit": (1119.6, "forks/s"),
                            "mmap-touch-munmap-2M": (176.8, "regions/s"),
                            "page-faults": (96276.4, "faults/s"),
                            "zram-write": (54.3, "MiB/s"), "zram-read": (339.1, "MiB/s")}


# ------------------------------------------------------------- analysis

def rounds(base, **kinds):
    """RUNS for analyse(): three rounds of each kind; each value is a
    dict of ns per unit, scaled from BASE by the kind's factor (or by a
    function of the benchmark's name)."""
    out = {"base": [dict(base)] * 3}
    for kind, f in kinds.items():
        out[kind] = [{k: v * (f(k) if callable(f) else f) for k, v in base.items()}] * 3
    return out


BASE_NS = {"fork-exit": 900_000.0, "mmap-fault-munmap": 4_000_000.0}


def test_per_op_and_units():
    assert bench.per_op({"fork-exit": (1000.0, "forks/s")}) == {"fork-exit": 1e6}
    assert bench.per_op({"fork-exit": (812345.6, "ns/fork")}) == {"fork-exit": 812345.6}
    assert bench.unit_of("ns/table") == "table"
    assert [bench.unit_of(u) for u in ("forks/s", "regions/s", "MiB/s", "faults/s")] == \
        ["fork", "region", "MiB", "fault"]
    with pytest.raises(bench.BenchError, match="no operation measured"):
        bench.per_op({"zram-read": (0.0, "MiB/s")})


def test_the_method_holds_and_the_ratios_count():
    pos = lambda k: 1.1 if k == "mmap-fault-munmap" else 1.0  # noqa: E731
    runs = rounds(BASE_NS, series=1.003, layout=1.0004, positive=pos)
    out = bench.analyse(runs, 400_000, 1.005, 0.005, 0.10)
    assert out["method"] == {**out["method"], "ok": True, "why": ""}
    assert out["method"]["positive"]["measured_ns"] == pytest.approx(400_000)
    assert out["ratios"]["fork-exit"]["median"] == pytest.approx(1.003)
    assert all(r["met"] for r in out["ratios"].values())


def test_a_series_variant_is_timed_against_the_series():
    pos = lambda k: 1.1 if k == "mmap-fault-munmap" else 1.0  # noqa: E731
    runs = rounds(BASE_NS, series=1.002, layout=1.0, positive=pos,
                  **{"series+sepdesc": lambda k: 1.002 * (1.01 if k == "fork-exit" else 1.0)})
    out = bench.analyse(runs, 400_000, 1.005, 0.005, 0.10)
    v = out["variant_ratios"]["series+sepdesc"]
    assert v["fork-exit"]["median"] == pytest.approx(1.01)
    assert v["mmap-fault-munmap"]["median"] == pytest.approx(1.0)
    # The series' own ratios do not see the variant.
    assert out["ratios"]["fork-exit"]["median"] == pytest.approx(1.002)
    r = {"config": "x86_64+bench", "kernels": {k: "0" * 40 for k in runs}, "rounds": 3,
         "seconds": 1, "qemu": "q", "append": "", "rebooted": 0, "shift": 96,
         "control_loop": {"statement": "s"}, "units": {k: "op" for k in BASE_NS},
         "per_op": runs, **out}
    md = results.bench_markdown([r])
    assert "| series+sepdesc/series min | median | max |" in md
    assert "| 1.0100 | **1.0100** | 1.0100 |" in md


def test_a_median_above_the_goal_is_missed():
    pos = lambda k: 1.1 if k == "mmap-fault-munmap" else 1.0  # noqa: E731
    runs = rounds(BASE_NS, series=1.006, layout=1.0, positive=pos)
    out = bench.analyse(runs, 400_000, 1.005, 0.005, 0.10)
    assert not out["ratios"]["fork-exit"]["met"]


def test_a_layout_control_off_by_more_than_its_tolerance_leaves_no_ratios():
    pos = lambda k: 1.1 if k == "mmap-fault-munmap" else 1.0  # noqa: E731
    runs = rounds(BASE_NS, series=1.0, layout=1.006, positive=pos)
    out = bench.analyse(runs, 400_000, 1.005, 0.005, 0.10)
    assert not out["method"]["ok"] and "ratios" not in out
    assert out["method"]["why"].startswith("the layout control is not the base's within 0.005: "
                                           "fork-exit 1.0060")


@pytest.mark.parametrize("factor,ok", [(1.091, True), (1.109, True), (1.089, False),
                                       (1.0, False), (1.2, False)])
def test_the_positive_control_must_show_its_cost_within_ten_percent(factor, ok):
    # Expected: 400,000 ns on 4,000,000: a factor of 1.1.
    pos = lambda k: factor if k == "mmap-fault-munmap" else 1.0  # noqa: E731
    out = bench.analyse(rounds(BASE_NS, series=1.0, layout=1.0, positive=pos),
                        400_000, 1.005, 0.005, 0.10)
    assert out["method"]["positive"]["ok"] is ok and out["method"]["ok"] is ok
    if not ok:
        assert "the positive control added" in out["method"]["why"]


def test_without_controls_there_are_no_ratios():
    out = bench.analyse(rounds(BASE_NS, series=1.0), 400_000, 1.005, 0.005, 0.10)
    assert out["method"]["why"] == "no layout control (--shift 0); no positive control " \
        "(--no-positive)"
    assert "ratios" not in out


# ------------------------------------------------ the report of a real run

# test_data/bench/bench-x86_64.{json,md}: 'harness bench --quick' at
# 518a798+8d431b2 (base 1168211065ea, series 290ab07d0070), as written.
REAL = data("bench", "bench-x86_64.json")


def real_report():
    with open(REAL) as f:
        return json.load(f)


def test_the_real_runs_verdicts_follow_from_its_times():
    (r,) = real_report()
    again = bench.analyse(r["per_op"], r["control_loop"]["instructions"], 1.005, 0.005, 0.10)
    assert again["method"] == r["method"] and again["ratios"] == r["ratios"]
    # Every round of a kernel counted the same instructions.
    for kind, rounds in r["per_op"].items():
        assert all(x == rounds[0] for x in rounds), kind
    assert r["method"]["positive"]["measured_ns"] == pytest.approx(2078.3, abs=0.1)


def test_the_markdown_of_the_real_run_is_what_it_wrote():
    with open(data("bench", "bench-x86_64.md")) as f:
        assert results.bench_markdown(real_report()) == f.read()


def test_a_run_that_fails_its_method_shows_no_ratios():
    (r,) = real_report()
    r.update(bench.analyse(r["per_op"], 4000, 1.005, 0.005, 0.10))
    md = results.bench_markdown([r])
    assert "FAILS" in md and "No ratios for this config: the positive control added 2078 ns" in md
    assert "series/base min" not in md


def test_a_run_of_one_config_replaces_its_section_only(tmp_path):
    (x86,) = real_report()
    arm = dict(x86, config="arm64+bench")
    assert bench.load_reports(str(tmp_path / "none.json")) == []
    reports = bench.merge_report([x86, arm], dict(x86, rounds=5))
    assert [(r["config"], r["rounds"]) for r in reports] == \
        [("x86_64+bench", 5), ("arm64+bench", 3)]
    assert [r["config"] for r in bench.merge_report([x86], arm)] == \
        ["x86_64+bench", "arm64+bench"]
    md = results.save_bench(str(tmp_path), reports)
    assert bench.load_reports(str(tmp_path / "bench.json")) == reports
    assert open(md).read().count("## ") == 2
