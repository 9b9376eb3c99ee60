# SPDX-License-Identifier: GPL-2.0
"""harness bench: the host's TSC rate, the clock options of a boot and
the guest's clocksource.  The ratios and medians are computed inside
bench.main() (ratios_of is a closure there), so they are not tested
here.

test_data/bench/cpuinfo.txt is /proc/cpuinfo of the machine the
harness runs on (2 AMD EPYC vCPUs with constant_tsc), copied as it is.
The consoles are test_data/boot/x86_64-base.log and
test_data/boot/run2/x86_64-{base,series}.log, real boots of the runtime
test (test_boot.py says which runs); the others are derived from the
first at test time, as each test's comment says.
"""

import os

import pytest

from mdesc import bench, boot
from mdesc.config import Config
from mdesc.paths import CONFIGS

DATA = os.path.join(os.path.dirname(__file__), "test_data")
CPUINFO = os.path.join(DATA, "bench", "cpuinfo.txt")


def data(*parts):
    return os.path.join(DATA, *parts)


def runtime_config(name, tmp_path):
    return Config(os.path.join(CONFIGS, "runtime", name + ".config"), builddir=str(tmp_path))


@pytest.fixture
def cpuinfo(monkeypatch):
    """host_tsc_khz() reads /proc/cpuinfo by name: point bench's open()
    at a copy (the real file or an edited one)."""
    def use(path):
        monkeypatch.setattr(bench, "open", lambda *a, **k: open(path), raising=False)
    return use


def test_host_tsc_khz_real_cpuinfo(cpuinfo):
    # The first 'cpu MHz' line is 2096.038: 2096038 kHz.
    cpuinfo(CPUINFO)
    assert bench.host_tsc_khz() == 2096038


def test_host_tsc_khz_without_constant_tsc(cpuinfo, tmp_path):
    # Derived from cpuinfo.txt: 'constant_tsc' removed from both
    # 'flags' lines.  A TSC whose rate changes is no clock to give the
    # guest.
    with open(CPUINFO) as f:
        text = f.read()
    assert text.count(" constant_tsc ") == 2
    edited = tmp_path / "cpuinfo"
    edited.write_text(text.replace(" constant_tsc ", " "))
    cpuinfo(str(edited))
    assert bench.host_tsc_khz() is None


def test_host_tsc_khz_takes_the_first_cpu(cpuinfo, tmp_path):
    # Derived from cpuinfo.txt: the second CPU's 'cpu MHz' changed to
    # 1000.000; the first CPU's rate is the one used.
    with open(CPUINFO) as f:
        text = f.read()
    head, sep, tail = text.partition("processor\t: 1")
    edited = tmp_path / "cpuinfo"
    edited.write_text(head + sep + tail.replace("2096.038", "1000.000"))
    cpuinfo(str(edited))
    assert bench.host_tsc_khz() == 2096038


@pytest.mark.parametrize("name,khz,want", [
    ("x86_64", 2096038, "tsc=reliable tsc_early_khz=2096038"),
    ("i386", 2096038, "tsc=reliable tsc_early_khz=2096038"),
    ("x86_64", None, ""),                # no constant TSC: nothing added
    ("arm64", 2096038, ""),              # not x86: no TSC options
    ("s390x", 2096038, ""),
])
def test_clock_append(monkeypatch, tmp_path, name, khz, want):
    monkeypatch.setattr(bench, "host_tsc_khz", lambda: khz)
    assert bench.clock_append(runtime_config(name, tmp_path)) == want


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
