# SPDX-License-Identifier: GPL-2.0
"""harness samecode: two images compared function by function.  The
function tables are parsed from real nm output (the x86_64 base's, as
harness bloat's tests use it); the bytes and the disassembly are given
per function."""

import os
import subprocess
import types

import pytest

from conftest import data
from mdesc import bloat, samecode, worktree
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


def test_rows_leave_out_those_that_turn_the_option_on(tmp_path, monkeypatch):
    head = "# arch: x86_64\n# kconfig: tinyconfig\n# toolchain: gcc\n"
    (tmp_path / "off.config").write_text(head + "CONFIG_SMP=y\n")
    (tmp_path / "on.config").write_text(head + "CONFIG_SEPARATE_PTDESC=y\n")
    # On by way of a fragment: its '# needs:' line says so.
    (tmp_path / "needs.config").write_text(head + "# needs: CONFIG_SEPARATE_PTDESC\n")
    monkeypatch.setattr(samecode, "CONFIGS", str(tmp_path))
    got = [(os.path.basename(p), why) for p, why in samecode.rows("all", ["SEPARATE_PTDESC"])]
    assert got == [("needs.config", "turns CONFIG_SEPARATE_PTDESC on"),
                   ("off.config", None),
                   ("on.config", "turns CONFIG_SEPARATE_PTDESC=y on")]
    with pytest.raises(HarnessError, match="on turns CONFIG_SEPARATE_PTDESC=y on"):
        samecode.rows("off,on", ["SEPARATE_PTDESC"])
    with pytest.raises(HarnessError, match="nope.config: no such matrix row"):
        samecode.rows("nope", ["SEPARATE_PTDESC"])


def test_the_real_rows_leave_out_only_the_option_row():
    left = [os.path.basename(p) for p, why in samecode.rows("all", ["SEPARATE_PTDESC"]) if why]
    assert left == ["arm64-64k-sepdesc.config", "x86_64-sepdesc.config"]


def test_binutils_of_a_cross_row_and_of_a_clang_row(monkeypatch):
    monkeypatch.setattr(samecode.Config, "compiler", lambda self: (
        ("/l/clang", {"LLVM": "/l/"}) if self.meta["toolchain"] == "clang"
        else ("aarch64-linux-gnu-gcc", {"CROSS_COMPILE": "aarch64-linux-gnu-"})))
    assert samecode.binutils(samecode.Config(os.path.join(samecode.CONFIGS, "hexagon.config"))) \
        == "/l/llvm-"
    assert samecode.binutils(samecode.Config(os.path.join(samecode.CONFIGS, "arm64-4k.config"))) \
        == "aarch64-linux-gnu-"


# A committer date in the past: a commit made now would carry another.
GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t",
               GIT_COMMITTER_DATE="2001-02-03T04:05:06+00:00")


@pytest.fixture
def applied(tmp_path, monkeypatch):
    """A base with a series applied: p/0001 and p/0003 are the
    conversions, p/0002 the option (it names FOO), and p/0003 touches
    what p/0002 did not."""
    linux, patches = tmp_path / "linux", tmp_path / "patches"
    (patches / "p").mkdir(parents=True)
    text = "# P\n# Option: FOO\np/0001-a.patch\np/0002-b.patch\np/0003-c.patch\n"
    (tmp_path / "series").write_text(text)

    def g(*args):
        return subprocess.run(["git", "-C", str(linux), *args], check=True, env=GIT_ENV,
                              text=True, stdout=subprocess.PIPE).stdout.strip()

    linux.mkdir()
    g("init", "-q")
    (linux / "a").write_text("1\n")
    (linux / "b").write_text("1\n")
    g("add", ".")
    g("commit", "-q", "-m", "base")
    g("tag", "base")
    g("checkout", "-q", "-b", "series")
    for n, (f, text_of) in enumerate([("a", "2\n"), ("b", "#ifdef CONFIG_FOO\n"),
                                      ("a", "3\n")], 1):
        (linux / f).write_text(text_of)
        g("commit", "-q", "-am", f"change {n}")
        name = ["0001-a", "0002-b", "0003-c"][n - 1]
        (patches / "p" / f"{name}.patch").write_text(g("format-patch", "-1", "--stdout"))
    for mod in (samecode, worktree):
        monkeypatch.setattr(mod, "LINUX", str(linux), raising=False)
    monkeypatch.setattr(worktree.paths, "LINUX", str(linux))
    monkeypatch.setattr(worktree, "_LOCKS", {})
    monkeypatch.setattr(samecode, "SERIES", str(tmp_path / "series"))
    monkeypatch.setattr(samecode, "PATCHES", str(patches))
    monkeypatch.setattr(samecode, "WORK", str(tmp_path / "work"))
    g.text = text
    return g


def test_the_optionfree_tree_leaves_out_the_option_patches(applied, tmp_path):
    head, opt = samecode.optionfree_commit("p", applied.text)
    assert opt == ["p/0002-b.patch"]
    assert applied("log", "--format=%s", f"base..{head}").split("\n") == \
        ["change 3", "change 1"]
    assert applied("show", f"{head}:a") == "3"
    assert applied("show", f"{head}:b") == "1"
    assert applied("rev-parse", "optionfree") == head
    # The committer dates are the series' (not the time of the run), so
    # the same series makes the same commit.
    assert applied("log", "-1", "--format=%cI", head) == "2001-02-03T04:05:06+00:00"
    assert samecode.optionfree_commit("p", applied.text)[0] == head


def test_a_patch_that_needs_the_option_patches_is_named(applied, tmp_path):
    # p/0003 now changes the line p/0002 wrote.
    applied("reset", "-q", "--hard", "HEAD~1")
    (tmp_path / "linux" / "b").write_text("#ifdef CONFIG_FOO\n#endif\n")
    applied("commit", "-q", "-am", "change 3")
    with pytest.raises(HarnessError, match="p/0003-c.patch does not apply without the "
                       "option-specific patches \\(0002-b.patch\\): error: could not apply"):
        samecode.optionfree_commit("p", applied.text)
    # Nothing is left half-done in the worktree.
    wt = str(tmp_path / "work" / "rt-optionfree")
    assert applied("-C", wt, "status", "--porcelain") == ""


def test_what_a_killed_run_left_is_dropped(applied, tmp_path):
    head, _ = samecode.optionfree_commit("p", applied.text)
    wt = tmp_path / "work" / "rt-optionfree"
    (wt / "a").write_text("half-done\n")
    assert samecode.optionfree_commit("p", applied.text)[0] == head
    assert (wt / "a").read_text() == "3\n"


def test_a_part_without_an_option_is_refused(applied, tmp_path):
    text = "p/0001-a.patch\np/0002-b.patch\np/0003-c.patch\n"
    with pytest.raises(HarnessError, match="no option-specific patch"):
        samecode.optionfree_commit("p", text)
    with pytest.raises(HarnessError, match="q: not a part"):
        samecode.optionfree_commit("q", text)


# ------------------------------------------------------ one row, built

@pytest.fixture
def row(tmp_path, monkeypatch):
    """compare_row() with the builds and the images faked: BUILT lists
    the sides built, FAIL_AT names a side whose build fails, TABLES the
    function table of each side's vmlinux."""
    st = types.SimpleNamespace(built=[], fail_at=None, tables={})
    monkeypatch.setattr(samecode, "BUILD", str(tmp_path / "build"))
    monkeypatch.setattr(samecode, "OUT", str(tmp_path / "out"))
    monkeypatch.setattr(samecode.cache, "ROOT", str(tmp_path / "cache"))
    monkeypatch.setattr(samecode, "git", lambda *a, **kw: "f" * 40)
    monkeypatch.setattr(samecode.Config, "compiler", lambda self: ("gcc", {}))

    def build_in_tree(cfg, tree, commit, target, jobs, env, logf):
        st.built.append(tree)
        return "make vmlinux failed: boom" if tree == st.fail_at else None

    def image(tool, path):
        side = "series" if "-series" in path else "optionfree"
        table = st.tables.get(side, T)
        return types.SimpleNamespace(table=table, code=lambda a, s: b"x", section=lambda a: None,
                                     disasm=lambda a, s: ["x"])
    monkeypatch.setattr(samecode.build, "build_in_tree", build_in_tree)
    monkeypatch.setattr(samecode, "Image", image)
    return st


COMMITS = {"series": "1" * 40, "optionfree": "2" * 40}
ROW = os.path.join(samecode.CONFIGS, "x86_64.config")


def test_a_row_that_passes_is_cached_and_not_built_again(row):
    rec = samecode.compare_row(ROW, COMMITS, 2, {})
    assert (rec["status"], rec["functions"], row.built) == ("PASS", 4, ["series", "optionfree"])
    again = samecode.compare_row(ROW, COMMITS, 2, {})
    assert again["status"] == "PASS" and again["cached"] and len(row.built) == 2


def test_a_row_that_differs_fails_and_is_not_cached(row):
    row.tables["optionfree"] = T[:-1]
    assert samecode.compare_row(ROW, COMMITS, 2, {})["status"] == "FAIL"
    assert samecode.compare_row(ROW, COMMITS, 2, {})["status"] == "FAIL"
    assert len(row.built) == 4


def test_a_failed_build_and_an_empty_image_fail_the_row_only(row):
    row.fail_at = "optionfree"
    rec = samecode.compare_row(ROW, COMMITS, 2, {})
    assert rec == {"config": "x86_64", "status": "FAIL", "build_seconds": 0,
                   "reason": "optionfree: make vmlinux failed: boom"}
    row.fail_at, row.tables["series"] = None, []
    rec = samecode.compare_row(ROW, COMMITS, 2, {})
    assert rec["status"] == "FAIL" and "no function symbols" in rec["reason"]


def test_a_row_without_its_compiler_is_skipped(row, monkeypatch):
    def missing(self):
        raise samecode.ToolchainMissing("no toolchain: x-gcc not found")
    monkeypatch.setattr(samecode.Config, "compiler", missing)
    assert samecode.compare_row(ROW, COMMITS, 2, {}) == {
        "config": "x86_64", "status": "SKIP", "reason": "no toolchain: x-gcc not found"}
    assert row.built == []


def test_the_markdown_keeps_its_table_whole():
    report = [{"config": "a", "status": "FAIL", "reason": "make: x | y"},
              {"config": "b", "status": "SKIP", "reason": "turns CONFIG_X=y on"},
              {"config": "c", "status": "PASS", "functions": 2, "identical": 2, "relocated": [],
               "differ": [], "only_a": [], "only_b": []}]
    md = samecode.markdown("p", COMMITS, ["p/0002-b.patch"], report)
    rows_ = [ln for ln in md.splitlines() if ln.startswith("| ")]
    assert len({ln.count("|") - ln.count("\\|") for ln in rows_}) == 1
    assert "make: x \\| y" in md and "| c | PASS | 2 | 2 | 0 | 0 | 0 | 0 | 0 |  |" in md


# -------------------------------------------------- line numbers moved

DIFF_U0 = """diff --git a/include/linux/mm.h b/include/linux/mm.h
@@ -2434,0 +2435,50 @@ static inline pmd_t *pmd_alloc(
@@ -2479 +2534,2 @@ static inline void *ptdesc_address(
diff --git a/include/asm-generic/tlb.h b/include/asm-generic/tlb.h
@@ -474,4 +474,4 @@ static inline void tlb_remove_page(
diff --git a/mm/page_alloc.c b/mm/page_alloc.c
@@ -1423,0 +1424 @@ static __always_inline bool free_pages_prepare(
"""


def test_line_shifts_of_a_diff():
    # mm.h: +50, then +1 more; tlb.h moves nothing; page_alloc.c: +1.
    assert samecode.line_shifts(DIFF_U0) == {50, 51, 1}
    assert samecode.line_shifts("") == frozenset()


def row_disasm(monkeypatch, row, func, side):
    """FUNC of matrix row ROW, as objdump printed it for the series
    (side A) and the option-free tree (B), 2026-12-07, read by
    bloat.disasm()."""
    with open(data("samecode", f"{row}-{func}-{side}.txt")) as f:
        out = f.read()
    monkeypatch.setattr(bloat, "run", lambda cmd, **kw: types.SimpleNamespace(stdout=out))
    return bloat.disasm("objdump-of-the-row-", "vmlinux", 0x1000, 64)


def arm_disasm(monkeypatch, side, func="alloc_pages_exact"):
    """On arm-lpae the line of a WARN in mm/page_alloc.c, one more in A,
    is an immediate."""
    return row_disasm(monkeypatch, "arm-lpae", func, side)


def test_a_moved_warn_line_is_told_apart_from_other_code(monkeypatch):
    da, db = arm_disasm(monkeypatch, "series"), arm_disasm(monkeypatch, "optionfree")
    assert da != db
    assert samecode.only_line_numbers(da, db, {1})
    # Not without the shift that explains it, nor with another one.
    assert not samecode.only_line_numbers(da, db, frozenset())
    assert not samecode.only_line_numbers(da, db, {2, 50})
    # Another instruction is never a line number.
    other = [x.replace("movw", "movt", 1) if "movw" in x else x for x in da]
    assert not samecode.only_line_numbers(other, db, {1})
    assert not samecode.only_line_numbers(da, da, {1})


def test_a_line_number_may_change_the_moves_encoding(monkeypatch):
    """__alloc_pages: six WARN lines, one of them 5376 in A, which Thumb-2
    loads with 'mov.w', where B's 5375 takes 'movw'."""
    da = arm_disasm(monkeypatch, "series", "__alloc_pages")
    db = arm_disasm(monkeypatch, "optionfree", "__alloc_pages")
    assert sum(x != y for x, y in zip(da, db)) == 6
    assert any(x.startswith("mov.w") and y.startswith("movw") for x, y in zip(da, db))
    assert samecode.only_line_numbers(da, db, {1})
    # movt (the top half of a 32-bit constant) is another instruction.
    assert samecode.skeleton("movt\tr1, #5") != samecode.skeleton("movw\tr1, #5")


def test_a_line_pushed_as_an_address_on_m68k(monkeypatch):
    """set_buddy_order of the m68k-motorola row, 2026-12-07: its BUG's
    line, one more in A, is pushed with 'pea 3e7 <inx2a_mask+X>', a
    bare hex operand, which the row's first samecode run (FAIL, 16
    such functions) did not read as a number."""
    da = row_disasm(monkeypatch, "m68k-motorola", "set_buddy_order", "series")
    db = row_disasm(monkeypatch, "m68k-motorola", "set_buddy_order", "optionfree")
    assert [(x, y) for x, y in zip(da, db) if x != y] == [
        ("pea 3e7 <inx2a_mask+X>", "pea 3e6 <inx2a_mask+X>")]
    assert samecode.only_line_numbers(da, db, {1})
    assert not samecode.only_line_numbers(da, db, {2, 50})
    # A call whose target moved is not a line number, by any shift.
    moved = [x.replace("jsr 667e8", "jsr 667e9") for x in db]
    assert moved != db and not samecode.only_line_numbers(moved, db, {1})


def test_compare_reports_line_numbers_apart_and_passes(monkeypatch):
    dis = {0x1010: ["movw r1, #5931", "bl warn"]}
    other = {0x1010: ["movw r1, #5930", "bl warn"]}
    code = {0x1010: b"A"}
    a, b = image(T, dis=dis, code=code), image(T, dis=other, code={0x1010: b"B"})
    rep = samecode.compare(a, b, frozenset({1}))
    assert rep["status"] == "PASS" and rep["line_numbers"] == ["b"]
    assert "1 with the same instructions and other line numbers (b)" in samecode.summary(rep)
    rep = samecode.compare(a, b)
    assert rep["status"] == "FAIL" and rep["differ"] == ["b: other instructions"]
