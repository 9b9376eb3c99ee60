# SPDX-License-Identifier: GPL-2.0
"""make command lines, the ccache environment and distcc settings."""

import os

import pytest

from mdesc import distcc, make, paths, toolchain
from mdesc.config import Config


def cfg(name):
    return Config(os.path.join(paths.CONFIGS, name + ".config"))


def test_relative_prefix_map(tmp_path):
    tree, build = tmp_path / "tree", tmp_path / "build" / "x86_64"
    tree.mkdir()
    build.mkdir(parents=True)
    assert make.relative_prefix_map(str(tree), str(build)) == "-fmacro-prefix-map=../../tree/="


def test_make_cmd_with_ccache(monkeypatch):
    monkeypatch.delenv("DISTCC_HOSTS", raising=False)
    monkeypatch.setenv("KCFLAGS", "-g")
    c = cfg("x86_64")
    monkeypatch.setattr(Config, "make_vars",
                        lambda self: {"ARCH": "x86_64", "O": "/b/x86_64", "CC": "ccache gcc"})
    cmd = make.make_cmd(c, ["mm/memory.o"], 2, tree="/t")
    assert cmd[:5] == ["make", "-C", "/t", "-j2", "-k"]
    assert "ARCH=x86_64" in cmd and "CC=ccache gcc" in cmd and cmd[-1] == "mm/memory.o"
    kc = [a for a in cmd if a.startswith("KCFLAGS=")]
    assert kc == [f"KCFLAGS=-g {make.relative_prefix_map('/t', c.builddir)}"]
    plain = make.make_cmd(c, ["prepare"], 1, tree="/t", keep_going=False, relmap=False)
    assert "-k" not in plain and not any(a.startswith("KCFLAGS=") for a in plain)


def test_ccache_env(monkeypatch):
    monkeypatch.delenv("DISTCC_HOSTS", raising=False)
    monkeypatch.delenv("CCACHE_MAXSIZE", raising=False)
    monkeypatch.setenv("MAKEFLAGS", "-j9")
    env = make.ccache_env()
    assert env["CCACHE_BASEDIR"] == paths.WORK and env["CCACHE_NOHASHDIR"] == "1"
    assert env["CCACHE_DEPEND"] == "1" and env["CCACHE_MAXSIZE"] == "20G"
    assert "MAKEFLAGS" not in env and "CCACHE_PREFIX" not in env


def test_ccache_env_through_distcc(monkeypatch):
    monkeypatch.setenv("DISTCC_HOSTS", "127.0.0.1:4000/2")
    monkeypatch.setattr(make, "distcc_path", lambda: ["/tc/bin"])
    env = make.ccache_env()
    assert env["CCACHE_PREFIX"] == paths.DISTCC_WRAPPER
    assert env["PATH"].startswith("/tc/bin" + os.pathsep)


@pytest.mark.parametrize("hosts,want", [
    ("", []),
    ("localhost/2 127.0.0.1:3633/2,lzo", ["127.0.0.1:3633/2,lzo"]),
    ("--randomize localhost 10.0.0.2 +zeroconf", ["10.0.0.2"]),
    ("localhost:3632 localhosts", ["localhosts"]),
])
def test_distcc_hosts(monkeypatch, hosts, want):
    monkeypatch.setenv("DISTCC_HOSTS", hosts)
    assert distcc.distcc_hosts() == want


def test_clang_target(tmp_path, monkeypatch):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "Makefile.clang").write_text(
        "CLANG_TARGET_FLAGS_arm64\t:= aarch64-linux-gnu\n"
        "CLANG_TARGET_FLAGS_hexagon\t:= hexagon-linux-musl\n")
    monkeypatch.setattr(distcc, "TREE", str(tmp_path))
    assert distcc.clang_target(cfg("hexagon")) == ["--target=hexagon-linux-musl"]
    assert distcc.clang_target(cfg("x86_64")) == []
    monkeypatch.setattr(distcc, "TREE", str(tmp_path / "none"))
    assert distcc.clang_target(cfg("hexagon")) == []


def test_distcc_path(tmp_path, monkeypatch):
    for t in ("csky-linux-gnu", "nios2-linux-gnu"):
        (tmp_path / t / "bin").mkdir(parents=True)
    (tmp_path / "stray-file").write_text("")
    monkeypatch.setattr(distcc, "toolchain_root", lambda: str(tmp_path))
    monkeypatch.setattr(distcc, "LLVM_BIN", str(tmp_path / "no-llvm"))
    assert distcc.distcc_path() == [str(tmp_path / "csky-linux-gnu" / "bin"),
                                    str(tmp_path / "nios2-linux-gnu" / "bin")]


def test_toolchain_root_is_keyed_by_the_source_packages(monkeypatch, tmp_path):
    class P:
        returncode = 0

        def __init__(self, out):
            self.stdout = out
    vers = iter(["2.40-2", "12.2.0-14"])
    monkeypatch.setattr(toolchain.subprocess, "run", lambda *a, **k: P(next(vers)))
    monkeypatch.setenv("TOOLCHAINS", str(tmp_path))
    assert toolchain.toolchain_root() == str(tmp_path / "binutils-2.40-2_gcc-12.2.0-14")
    monkeypatch.setattr(toolchain.subprocess, "run", lambda *a, **k: P(""))
    assert toolchain.toolchain_root() is None


def test_self_built_bindir(tmp_path, monkeypatch):
    bindir = tmp_path / "csky-linux-gnu" / "bin"
    bindir.mkdir(parents=True)
    gcc = bindir / "csky-linux-gnu-gcc"
    gcc.write_text("#!/bin/sh\n")
    monkeypatch.setattr(toolchain, "toolchain_root", lambda: str(tmp_path))
    assert toolchain.self_built_bindir("csky-linux-gnu-") is None     # not executable
    gcc.chmod(0o755)
    assert toolchain.self_built_bindir("csky-linux-gnu-") == str(bindir)
    assert toolchain.self_built_bindir("") is None
    monkeypatch.setattr(toolchain, "toolchain_root", lambda: None)
    assert toolchain.self_built_bindir("csky-linux-gnu-") is None


def test_ident_of_a_real_object(tmp_path):
    """The .comment of an object gcc made here, as the distcc probe
    compares it."""
    src = tmp_path / "p.c"
    src.write_text("int f(void) { return 1; }\n")
    obj = tmp_path / "p.o"
    import subprocess
    subprocess.run(["gcc", "-c", str(src), "-o", str(obj)], check=True)
    assert distcc.ident(str(obj)).startswith("GCC: (Debian 12")
    subprocess.run(["gcc", "-fno-ident", "-c", str(src), "-o", str(obj)], check=True)
    assert distcc.ident(str(obj)) == "no .comment"
