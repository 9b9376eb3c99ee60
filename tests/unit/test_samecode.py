# SPDX-License-Identifier: GPL-2.0
"""harness samecode: two images compared function by function.  The
function tables are parsed from real nm output (the x86_64 base's, as
harness bloat's tests use it); the bytes and the disassembly are given
per function."""

import types

import pytest

from conftest import data
from mdesc import bloat, samecode
from mdesc.errors import HarnessError


def image(table, code=None, dis=None, section=None):
    """An image whose function at ADDR has the bytes CODE[addr] (default:
    its address as bytes) and the disassembly DIS[addr] (default: one
    line with its name), in the code section SECTION (default: none
    known, so that each function is disassembled alone)."""
    code, dis = code or {}, dis or {}
    names = {a: n for n, a, _ in table}
    return types.SimpleNamespace(
        table=table,
        code=lambda a, s: code.get(a, a.to_bytes(8, "little")),
        disasm=lambda a, s: dis.get(a, [names.get(a)]),
        section=lambda a: section)


T = [("a", 0x1000, 16), ("b", 0x1010, 32), ("s", 0x1030, 8), ("s", 0x1040, 8)]


def test_the_same_image():
    rep = samecode.compare(image(T), image(T))
    assert rep["status"] == "PASS"
    assert (rep["functions"], rep["identical"], rep["relocated"]) == (4, 4, [])
    assert samecode.summary(rep) == ("4 functions, 4 with the same bytes at the same "
                                     "address, 0 with the same instructions and other "
                                     "addresses in them")


def test_data_that_moved_is_checked_a_section_at_a_time():
    """The x86_64 case: the same functions at the same addresses, the
    bytes of some differ (a data address in them moved); the section's
    disassembly, addresses masked, is the same, so no function is
    disassembled alone."""
    sec = (0x1000, 0x100)
    code_b = {0x1010: b"other!!!", 0x1030: b"other!!!"}
    rep = samecode.compare(image(T, section=sec, dis={0x1000: ["x"]}),
                           image(T, code=code_b, section=sec, dis={0x1000: ["x"]}))
    assert rep["status"] == "PASS" and rep["identical"] == 2
    assert rep["relocated"] == ["b", "s"]
    # A section that reads otherwise: each function on its own.
    rep = samecode.compare(image(T, section=sec, dis={0x1000: ["x"]}),
                           image(T, code=code_b, section=sec,
                                 dis={0x1000: ["y"], 0x1010: ["call z"]}))
    assert rep["differ"] == ["b: other instructions"] and rep["relocated"] == ["s"]


def test_moved_code_with_the_same_instructions_is_relocated():
    moved = [("a", 0x1000, 16), ("b", 0x1020, 32), ("s", 0x1040, 8), ("s", 0x1050, 8)]
    dis = {0x1020: ["b"], 0x1040: ["s"], 0x1050: ["s"]}
    rep = samecode.compare(image(T), image(moved, dis=dis))
    assert rep["status"] == "PASS" and rep["relocated"] == ["b", "s", "s"]


def test_other_bytes_other_sizes_and_missing_functions_fail():
    other = [("a", 0x1000, 16), ("b", 0x1010, 40), ("s", 0x1030, 8), ("t", 0x1040, 8)]
    rep = samecode.compare(image(T), image(other, code={0x1000: b"changed!"},
                                           dis={0x1000: ["call x"]}))
    assert rep["status"] == "FAIL"
    assert rep["differ"] == ["a: other instructions", "b: 32 against 40 bytes",
                             "s: 2 against 1 copies"]
    assert rep["only_b"] == ["t"] and rep["only_a"] == []
    assert "3 differ (a: other instructions, " in samecode.summary(rep)


def test_a_moved_layout_is_not_disassembled_without_end(monkeypatch):
    monkeypatch.setattr(samecode, "DISASM_LIMIT", 1)
    moved = [(n, a + 0x100, s) for n, a, s in T]
    rep = samecode.compare(image(T), image(moved, dis={a + 0x100: [n] for n, a, _ in T}))
    assert rep["relocated"] == ["a"]
    assert rep["differ"][0] == "b: moved, not disassembled (over 1)"
    assert rep["status"] == "FAIL"


def test_a_real_function_table(monkeypatch):
    monkeypatch.setattr(bloat, "run", lambda cmd, **kw: types.SimpleNamespace(
        stdout=open(data("bloat", "nm-S.x86_64-base.txt")).read()))
    table = bloat.function_table("", "vmlinux")
    rep = samecode.compare(image(table), image(table))
    assert rep["status"] == "PASS" and rep["functions"] == len(table) > 20


def test_sections_of_readelf(monkeypatch):
    out = ("  [ 1] .text             PROGBITS        ffffffff81000000 200000 c02a4d 00  AX  "
           "0   0 4096\n"
           "  [ 5] .rodata           PROGBITS        ffffffff81e00000 1000000 2c5f1a 00  WA  "
           "0   0 4096\n")
    monkeypatch.setattr(samecode, "run", lambda cmd, **kw: types.SimpleNamespace(stdout=out))
    assert samecode.sections("", "vmlinux") == [(0xffffffff81000000, 0x200000, 0xc02a4d)]


def test_not_a_vmlinux(tmp_path):
    with pytest.raises(HarnessError):
        samecode.main([str(tmp_path / "nope"), str(tmp_path / "nope")])


def test_an_image_reads_a_function_from_its_section(tmp_path, monkeypatch):
    """Image.code(): the bytes at the function's offset in its section's
    place in the file; a function outside every code section has none."""
    f = tmp_path / "vmlinux"
    f.write_bytes(b"\0" * 0x100 + bytes(range(64)))
    monkeypatch.setattr(samecode, "function_table", lambda tool, path: [])
    monkeypatch.setattr(samecode, "sections", lambda tool, path: [(0x1000, 0x100, 64)])
    img = samecode.Image("", str(f))
    assert img.code(0x1010, 4) == bytes([16, 17, 18, 19])
    assert img.code(0x1000, 2) == bytes([0, 1])
    assert img.code(0x103e, 4) is None and img.code(0x2000, 1) is None
