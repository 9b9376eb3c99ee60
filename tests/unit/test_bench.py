# SPDX-License-Identifier: GPL-2.0
"""harness bench: the host's TSC rate, the clock options of a boot and
the guest's clocksource.  The ratios and medians are computed inside
bench.main() (ratios_of is a closure there), so they are not tested
here.

test_data/bench/cpuinfo.txt is /proc/cpuinfo of the machine the
harness runs on (2 AMD EPYC vCPUs with constant_tsc), copied as it is.
The consoles are test_data/boot/x86_64-{base,series}.log (see
test_boot.py for the run they come from).
"""

import os

import pytest

from mdesc import bench
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
