# SPDX-License-Identifier: GPL-2.0
"""configs/ files: headers, fragments, compilers and make variables."""

import os
import shutil

import pytest

from mdesc import config, paths
from mdesc.config import Config
from mdesc.errors import ConfigError, ToolchainMissing

ALL = sorted(f for f in os.listdir(paths.CONFIGS) if f.endswith(".config"))


def cfg(name, **kw):
    return Config(os.path.join(paths.CONFIGS, name + ".config"), **kw)


@pytest.mark.parametrize("name", ALL)
def test_every_config_has_its_facts(name):
    """Every row of the matrix names its arch, kconfig and toolchain, and
    its arch maps to a source arch the kernel has."""
    c = Config(os.path.join(paths.CONFIGS, name))
    assert c.name == name[:-len(".config")]
    assert c.meta["toolchain"] in ("gcc", "clang")
    assert c.srcarch in set(config.SRCARCH.values())
    assert c.lines, "a config with no fragment lines tests nothing of its own"
    for f in c.fragments:
        assert os.path.exists(f), f


def test_a_config_may_need_a_symbol_the_series_adds():
    assert cfg("x86_64").needs == []
    c = cfg("x86_64-sepdesc")
    assert c.needs == ["CONFIG_SEPARATE_PTDESC", "select:CONFIG_ARCH_SUPPORTS_SEPARATE_PTDESC"]
    assert "CONFIG_SEPARATE_PTDESC=y" in c.lines


def test_x86_64():
    c = cfg("x86_64")
    assert (c.arch, c.srcarch, c.meta["kconfig"], c.cross) == ("x86_64", "x86", "tinyconfig", "")
    assert c.fragments == [os.path.join(paths.CONFIGS, "fragments", "mm.config")]
    assert c.builddir == os.path.join(paths.BUILD, "x86_64")


def test_um_builds_arch_um():
    assert cfg("um").srcarch == "um"


def test_variant_lines_win():
    """A variant's line for a symbol replaces the config's own, as
    merge_config.sh lets a later fragment win."""
    base = cfg("x86_64")
    sym = base.lines[0].split("=")[0].replace("# ", "").split()[0]
    v = cfg("x86_64", variant="off", extra=[f"# {sym} is not set"], builddir="/b")
    assert v.name == "x86_64+off" and v.builddir == "/b"
    assert v.lines[-1] == f"# {sym} is not set"
    assert not any(ln.startswith(sym + "=") for ln in v.lines)
    assert v.digest() != base.digest()
    assert base.digest() == cfg("x86_64").digest()


def test_missing_header(tmp_path):
    p = tmp_path / "bad.config"
    p.write_text("# arch: x86_64\n# kconfig: tinyconfig\nCONFIG_MMU=y\n")
    with pytest.raises(ConfigError, match="missing '# toolchain:' header"):
        Config(str(p))


def test_missing_cross_compiler(tmp_path, monkeypatch):
    p = tmp_path / "z.config"
    p.write_text("# arch: arm64\n# kconfig: tinyconfig\n# toolchain: gcc\n"
                 "# cross_compile: nonexistent-linux-gnu-\nCONFIG_MMU=y\n")
    monkeypatch.setattr(config, "self_built_bindir", lambda prefix: None)
    c = Config(str(p))
    with pytest.raises(ToolchainMissing, match="nonexistent-linux-gnu-gcc not found"):
        c.compiler()
    # Callers from before the error hierarchy caught LookupError.
    with pytest.raises(LookupError):
        c.make_vars()
    assert c.version() is None


def test_missing_clang(tmp_path):
    p = tmp_path / "h.config"
    p.write_text("# arch: hexagon\n# kconfig: tinyconfig\n# toolchain: clang\n"
                 f"# llvm: {tmp_path}\nCONFIG_MMU=y\n")
    with pytest.raises(ToolchainMissing, match="clang not found"):
        Config(str(p)).compiler()


def test_self_built_compiler(tmp_path, monkeypatch):
    p = tmp_path / "c.config"
    p.write_text("# arch: csky\n# kconfig: tinyconfig\n# toolchain: gcc\n"
                 "# cross_compile: csky-nowhere-linux-gnu-\nCONFIG_MMU=y\n")
    monkeypatch.setattr(config, "self_built_bindir", lambda prefix: "/tc/bin")
    cc, v = Config(str(p)).compiler()
    assert cc == "/tc/bin/csky-nowhere-linux-gnu-gcc"
    assert v == {"CROSS_COMPILE": "/tc/bin/csky-nowhere-linux-gnu-"}


@pytest.fixture
def no_distcc(monkeypatch):
    monkeypatch.delenv("DISTCC_HOSTS", raising=False)
    monkeypatch.delenv("NO_CCACHE", raising=False)


@pytest.mark.skipif(not shutil.which("ccache"), reason="ccache not installed (make deps)")
def test_make_vars_with_ccache(no_distcc):
    v = cfg("x86_64").make_vars()
    assert v["ARCH"] == "x86_64" and v["O"] == cfg("x86_64").builddir
    assert v["CC"] == "ccache gcc" and v["HOSTCC"] == "ccache gcc"


def test_make_vars_without_ccache(no_distcc, monkeypatch):
    monkeypatch.setenv("NO_CCACHE", "1")
    v = cfg("x86_64").make_vars()
    assert "CC" not in v and "HOSTCC" not in v


def test_make_vars_through_distcc(monkeypatch):
    """Under distcc a helper runs the compiler it finds by name."""
    monkeypatch.setenv("DISTCC_HOSTS", "127.0.0.1:3632/2")
    monkeypatch.setenv("NO_CCACHE", "1")
    monkeypatch.setattr(Config, "compiler",
                        lambda self: ("/tc/bin/csky-linux-gnu-gcc",
                                      {"CROSS_COMPILE": "/tc/bin/csky-linux-gnu-"}))
    v = cfg("csky").make_vars()
    assert v["CROSS_COMPILE"] == "csky-linux-gnu-"
    assert v["CC"] == f"{paths.DISTCC_WRAPPER} csky-linux-gnu-gcc"
    monkeypatch.setattr(Config, "compiler", lambda self: ("/l/clang", {"LLVM": "/l/"}))
    assert cfg("hexagon").make_vars()["LLVM"] == "1"


def test_subarch():
    c = cfg("um")
    assert c.make_vars().get("SUBARCH") == c.meta.get("subarch")


def test_clang_config_uses_llvm_for_host_programs_too(tmp_path, monkeypatch):
    monkeypatch.delenv("DISTCC_HOSTS", raising=False)
    monkeypatch.delenv("NO_CCACHE", raising=False)
    monkeypatch.setattr(config.shutil, "which", lambda x: "/usr/bin/" + x)
    (tmp_path / "clang").write_text("#!/bin/sh\necho 'Debian clang version 14.0.6'\n")
    (tmp_path / "clang").chmod(0o755)
    p = tmp_path / "h.config"
    p.write_text("# arch: hexagon\n# kconfig: tinyconfig\n# toolchain: clang\n"
                 f"# llvm: {tmp_path}\nCONFIG_MMU=y\n")
    c = Config(str(p))
    v = c.make_vars()
    assert v["LLVM"] == f"{tmp_path}/" and v["HOSTCC"] == v["CC"] == f"ccache {tmp_path}/clang"
    assert c.version() == "Debian clang version 14.0.6"
