# SPDX-License-Identifier: GPL-2.0
"""The base's recorded expectation (expect.py): its key, and when a
record holds.  The commands the key asks (git, gcc/nm/QEMU --version)
are answered by a fake run() with the first lines they print on this
machine (Debian 12, 2026-12-05)."""

import json
import os
import types

import pytest

from mdesc import boot, cache, expect, results
from mdesc.config import Config
from mdesc.paths import CONFIGS

VERSIONS = {
    "gcc": "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
    "nm": "GNU nm (GNU Binutils for Debian) 2.40",
    "qemu-system-x86_64": "QEMU emulator version 7.2.19 (Debian 1:7.2+dfsg-7+deb12u18)",
}
BASE_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@pytest.fixture
def machine(monkeypatch, tmp_path):
    """run() answers --version with VERSIONS, git with the base's tree
    hash; records go to a temporary directory."""
    asked = []

    def fake_run(cmd, cwd=None, env=None, check=True):
        asked.append(cmd)
        prog = os.path.basename(cmd[0])
        if prog not in VERSIONS:
            raise FileNotFoundError(prog)
        return types.SimpleNamespace(stdout=VERSIONS[prog] + "\nCopyright\n", returncode=0)

    def fake_git(*args, cwd=None):
        asked.append(["git", *args])
        return BASE_TREE if args[-1].endswith("^{tree}") else "422dc7d"
    monkeypatch.setattr(expect, "run", fake_run)
    monkeypatch.setattr(expect, "git", fake_git)
    monkeypatch.setattr(expect, "RECORDS", str(tmp_path / "expect"))
    monkeypatch.setattr(cache, "compiler_id", lambda cc: f"/usr/bin/{cc} 0123abcd")
    return asked


CODE = {"text": 6294224, "functions": 4360558, "left_out": 0, "hot": {}}


def x86_64():
    return Config(os.path.join(CONFIGS, "runtime", "x86_64.config"),
                  builddir="/nonexistent/x86_64-base")


def key(**command_line):
    cfg = x86_64()
    return boot.record_key(cfg, command_line.get("tests", "pt,zram,swap,kselftest"),
                           command_line.get("append", ""), list(boot.KSELFTESTS))


def test_key_holds_what_decides_the_base(machine):
    k = key()
    assert sorted(k) == ["boot", "kernel"]
    assert k["kernel"]["base_tree"] == BASE_TREE
    assert k["kernel"]["config"] == x86_64().digest()
    assert k["kernel"]["compiler"] == VERSIONS["gcc"] + "; /usr/bin/gcc 0123abcd"
    assert k["kernel"]["binutils"] == VERSIONS["nm"]
    assert k["kernel"]["kcflags"] == os.environ.get("KCFLAGS", "")
    assert k["kernel"]["python"].count(".") == 1
    # dpkg-query is not among the fake's tools: every package 'missing'.
    assert k["boot"]["packages"] == {p: "missing" for p in expect.BOOT_PACKAGES}
    assert k["boot"]["qemu"] == VERSIONS["qemu-system-x86_64"]
    assert k["boot"]["qemu_command"].startswith("qemu-system-x86_64 ")
    assert k["boot"]["tests"] == "pt,zram,swap,kselftest"
    assert k["boot"]["kselftests"] == boot.KSELFTESTS
    # rtinit.c by content, and the busybox that the x86_64 guest gets.
    assert sorted(k["boot"]["files"]) == ["busybox", "rtinit.c"]
    assert k["boot"]["files"]["rtinit.c"] == expect.file_digest(boot.RTINIT) != "missing"
    assert ["git", "rev-parse", "base^{tree}"] in machine
    # It is plain JSON: what a record stores is what load() compares.
    assert json.loads(json.dumps(k)) == k


def test_a_missing_tool_is_part_of_the_key(machine, monkeypatch):
    monkeypatch.delitem(VERSIONS, "qemu-system-x86_64")
    assert key()["boot"]["qemu"] == "missing"


def test_no_record(machine):
    rec, why = expect.load("x86_64", key())
    assert rec is None
    assert why.startswith("no record ") and why.endswith("x86_64.json")


def test_a_record_holds_for_its_key(machine):
    k = key()
    cell = {"config": "x86_64", "tree": "base", "verdict": "PASS", "reason": None,
            "checks": {"pt/alloc": ["PASS", "ok"]}}
    path = expect.save("x86_64", k, cell, CODE)
    assert path.endswith("x86_64.json")
    rec, why = expect.load("x86_64", k)
    assert why is None
    assert rec["boot"] == cell and rec["code"] == CODE
    assert rec["written"]["harness"] == "422dc7d"
    # The code size needs only the kernel's part of the key.
    rec, why = expect.load("x86_64", {"kernel": k["kernel"]})
    assert why is None


@pytest.mark.parametrize("part,field,value", [
    ("kernel", "compiler", "gcc (Debian 12.2.0-14+deb12u2) 12.2.0; /usr/bin/gcc 4567"),
    ("kernel", "base_tree", "0" * 40),
    ("boot", "qemu", "QEMU emulator version 7.2.20"),
    ("boot", "append", "disable_radix"),
    ("boot", "code", "another harness"),
])
def test_a_record_for_another_key_says_which(machine, part, field, value):
    k = key()
    expect.save("x86_64", k, {"verdict": "PASS"}, CODE)
    now = json.loads(json.dumps(k))
    now[part][field] = value
    rec, why = expect.load("x86_64", now)
    assert rec is None
    assert f"is for another {part}.{field} (recorded " in why
    assert why.count("(recorded ") == 1


def test_a_boot_difference_leaves_the_code_size_record(machine):
    k = key()
    expect.save("x86_64", k, {"verdict": "PASS"}, CODE)
    rec, why = expect.load("x86_64", {"kernel": k["kernel"]})
    assert why is None
    other = key(tests="pt")
    assert expect.load("x86_64", other)[1].startswith("record ")
    assert expect.load("x86_64", {"kernel": other["kernel"]})[1] is None


def test_differences_of_nested_keys():
    assert expect.differences({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3}}) == \
        ["a.c (recorded 2, now 3)"]
    assert expect.differences({"a": 1}, {"a": 1, "new": "x"}) == ["new (recorded null, now x)"]
    long = "x" * 80
    assert expect.differences({"a": long}, {"a": "y"}) == [f"a (recorded {'x' * 57}..., now y)"]


@pytest.mark.parametrize("content,why", [
    ("{", "unreadable"),
    ("[]", "has no key"),
    ('{"boot": {}}', "has no key"),
    # A key, but what it keys is missing or cannot be compared with.
    ('{"key": {}, "code": {"functions": 1}, "written": {"date": "x"}}', "lacks"),
    ('{"key": {}, "boot": {}, "code": {"functions": 0}, "written": {"date": "x"}}', "lacks"),
    ('{"key": {}, "boot": {}, "code": {"functions": 1}, "written": {}}', "lacks"),
])
def test_a_bad_record_is_not_used(machine, content, why):
    os.makedirs(expect.RECORDS)
    with open(expect.record_path("x86_64"), "w") as f:
        f.write(content)
    rec, got = expect.load("x86_64", key())
    assert rec is None and why in got


def test_code_digest_follows_the_named_definitions(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("X = 1\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n")
    monkeypatch.setattr(cache, "__file__", str(tmp_path / "cache.py"))
    one = cache.code_digest({"m": ["X", "f"]})
    # g is not in it; a comment is not code.
    (tmp_path / "m.py").write_text("X = 1\n\ndef f():\n    return 1  # one\n\ndef g():\n"
                                   "    return 3\n")
    assert cache.code_digest({"m": ["X", "f"]}) == one
    (tmp_path / "m.py").write_text("X = 2\n\ndef f():\n    return 1\n")
    assert cache.code_digest({"m": ["X", "f"]}) != one
    # A definition that is gone is an error, not a smaller key.
    with pytest.raises(KeyError):
        cache.code_digest({"m": ["g"]})


def test_the_key_names_only_definitions_that_exist():
    # Every name in KERNEL_CODE and BOOT_CODE is defined (a rename must
    # update the key's list).
    cache.code_digest(expect.KERNEL_CODE)   # raises KeyError for a name gone
    cache.code_digest(expect.BOOT_CODE)


def test_a_recorded_boot_is_one_line_that_says_so():
    boots = [{"config": "x86_64", "tree": "base", "verdict": "PASS", "reason": None,
              "seconds": 190.0, "checks": {"pt/alloc": ["PASS", "ok"]},
              "kunit": {"ptdesc/alloc": "PASS"}, "recorded": "runtime/expect/x86_64.json"},
             {"config": "x86_64", "tree": "series", "verdict": "PASS", "reason": None,
              "seconds": 192.0, "checks": {"pt/alloc": ["PASS", "ok"]}, "kunit": {}}]
    lines = [str(ln) for ln in results.boot_lines(boots)]
    assert lines == [
        "PASS boot/x86_64/base: as recorded in runtime/expect/x86_64.json, "
        "not booted in this run",
        "PASS boot/x86_64/series: booted, every check verified in 192 s",
        "PASS boot/x86_64/series/pt/alloc: ok"]


def test_package_versions(monkeypatch):
    def fake_run(cmd, cwd=None, env=None, check=True):
        name = cmd[-1]
        if name == "seabios":
            return types.SimpleNamespace(stdout="", returncode=1)
        return types.SimpleNamespace(stdout={"libc6-dev": "2.36-9+deb12u13"}.get(name, ""),
                                     returncode=0)
    monkeypatch.setattr(expect, "run", fake_run)
    assert expect.package_versions(["libc6-dev", "seabios", "linux-libc-dev"]) == {
        "libc6-dev": "2.36-9+deb12u13", "seabios": "missing", "linux-libc-dev": "missing"}
