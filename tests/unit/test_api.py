# SPDX-License-Identifier: GPL-2.0
"""harness api: reading Documentation/mainline-api.md, the C file it
writes, and what it reads from the compiler.  The compiler output in
test_data/api/ was captured from 'harness api' on x86_64 at the head of
the series (62a412a15ce1), 2026-12-05: the negative test's build."""

import os
import types

import pytest

from mdesc import api
from mdesc.errors import CommandFailed, ConfigError

DATA = os.path.join(os.path.dirname(__file__), "test_data", "api")


def doc():
    with open(api.DOC) as f:
        return f.read()


def table(*rows):
    return "## x\n\n| helper | 6.12 | check | status | note |\n|---|---|---|---|---|\n" + \
        "".join(r + "\n" for r in rows)


def test_the_document_parses():
    rows = api.parse(doc())
    names = [r.name for r in rows]
    assert {"virt_to_ptdesc", "pagetable_alloc", "tlb_remove_ptdesc", "pt_index",
            "ptdesc_pmd_is_shared", "pte_free_defer"} <= set(names)
    # The const forms of the three conversions are rows, not helpers.
    forms = [r.name for r in rows if r.form]
    assert forms == ["ptdesc_page", "ptdesc_folio", "page_ptdesc"]
    n = api.counts(rows)
    assert sum(n.values()) == len(rows) - 3
    assert n["absent"] >= 1 and n["same"] > n["differs"]
    # pmd_huge_pte is a field and a macro: two helpers of one name.
    assert names.count("pmd_huge_pte") == 2


def test_rows_and_their_checks():
    rows = {r.name: r for r in api.parse(table(
        "| `virt_to_ptdesc` | x | `&virt_to_ptdesc : struct ptdesc *(*)(const void *)` | same | |",
        "| `pt_share_count` | x | `[CONFIG_A, generic, X > 2] pt->pt_share_count : atomic_t` "
        "| adapted | why |",
        "| `pte_free_defer` | x | | absent | why |"))}
    assert rows["virt_to_ptdesc"].parts() == (
        [], "&virt_to_ptdesc", "struct ptdesc *(*)(const void *)")
    conds, expr, ctype = rows["pt_share_count"].parts()
    assert conds == ["CONFIG_A", "generic", "X > 2"]
    assert api.condition(conds) == \
        "IS_ENABLED(CONFIG_A) && defined(__ASM_GENERIC_PGALLOC_H) && (X > 2)"
    assert (expr, ctype) == ("pt->pt_share_count", "atomic_t")
    assert rows["pte_free_defer"].check == ""
    assert rows["pte_free_defer"].line == 7


@pytest.mark.parametrize("row,error", [
    ("| `f` | x | `&f : int (*)(void)` | maybe | |", "status 'maybe' of f"),
    ("| `f` | x | | same | |", "f is same but has no check"),
    ("| `f` | x | `&f : int (*)(void)` | absent | |", "f is absent but has a check"),
    ("| `f` | x | `&f int (*)(void)` | same | |", "check of f is not 'EXPR : TYPE'"),
    ("| `f` | x | `&f : int` | same |", "4 cells, not 5"),
])
def test_a_bad_row_is_an_error_with_its_line(row, error):
    with pytest.raises(ConfigError) as e:
        api.parse(table(row))
    assert error in str(e.value)
    assert "mainline-api.md:5:" in str(e.value)


def test_a_document_without_rows_is_an_error():
    with pytest.raises(ConfigError, match="no table rows"):
        api.parse("# nothing here\n")


def test_source():
    rows = api.parse(table(
        "| `virt_to_ptdesc` | x | `&virt_to_ptdesc : struct ptdesc *(*)(const void *)` | same | |",
        "| `pt_memcg_data` | x | `[CONFIG_MEMCG] pt->pt_memcg_data : unsigned long` | same | |",
        "| `pte_free_defer` | x | | absent | |"))
    text = api.source(rows)
    assert "#include <asm/tlb.h>" in text
    assert ("\tstatic_assert(__builtin_types_compatible_p(typeof(&virt_to_ptdesc), "
            "struct ptdesc *(*)(const void *)), \"mainline-api.md:5: virt_to_ptdesc\");") in text
    lines = text.splitlines()
    i = lines.index("#if IS_ENABLED(CONFIG_MEMCG)")
    assert "pt->pt_memcg_data" in lines[i + 1] and lines[i + 2] == "#endif"
    assert "pte_free_defer" not in text
    # Every variable a check may use is a parameter.
    for var in ("mm", "tlb", "pt", "cpt", "page", "cpage", "pgtable", "pmd", "addr", "gfp"):
        assert f" *{var}," in text or f" {var}," in text or f" {var})" in text, var


def test_source_with_a_wrong_type():
    rows = api.parse(table(
        "| `virt_to_ptdesc` | x | `&virt_to_ptdesc : struct ptdesc *(*)(const void *)` | same | |",
        "| `ptdesc_to_virt` | x | `&ptdesc_to_virt : void *(*)(const struct ptdesc *)` | same | |"))
    text = api.source(rows, wrong=rows[0])
    assert "typeof(&virt_to_ptdesc), struct harness_api_wrong *)" in text
    assert "typeof(&ptdesc_to_virt), void *(*)(const struct ptdesc *))" in text


def test_assertion_failures_of_a_real_build():
    with open(os.path.join(DATA, "wrong-type.x86_64.txt")) as f:
        out = f.read()
    assert api.assertion_failures(out) == [("84", "virt_to_ptdesc")]


def test_assertion_failures_of_a_clean_build():
    assert api.assertion_failures("  CC      mm/harness_api_check.o\n") == []


def test_missing_names(monkeypatch):
    rows = api.parse(table("| `pte_free_defer` | x | | absent | |",
                           "| `ptdesc_pmd_is_shared` | x | | differs | |",
                           "| `virt_to_ptdesc` | x | `&virt_to_ptdesc : int` | same | |"))
    asked = []

    def fake_run(cmd, cwd=None, env=None, check=True):
        asked.append(cmd)
        if "ptdesc_pmd_is_shared" in cmd:
            return types.SimpleNamespace(
                stdout="SERIES:include/linux/mm_types.h\nSERIES:mm/hugetlb.c\n", returncode=0)
        return types.SimpleNamespace(stdout="", returncode=1)
    monkeypatch.setattr(api, "run", fake_run)
    found = api.missing_names(rows, "SERIES")
    assert found == {"ptdesc_pmd_is_shared": ["include/linux/mm_types.h", "mm/hugetlb.c"]}
    # Only the rows without a check are looked for.
    assert len(asked) == 2
    assert asked[0][-4:] == ["--", "include", "arch/*/include/*", "mm"]
    assert asked[0][:3] == ["git", "-C", api.LINUX]


def test_missing_names_when_grep_cannot_run(monkeypatch):
    # Not 'no match' (1): a grep that did not run is an error, never a pass.
    rows = api.parse(table("| `pte_free_defer` | x | | absent | |"))
    monkeypatch.setattr(api, "run", lambda cmd, cwd=None, env=None, check=True:
                        types.SimpleNamespace(stdout="fatal: bad revision 'SERIES'\n",
                                              returncode=128))
    with pytest.raises(CommandFailed, match="bad revision"):
        api.missing_names(rows, "SERIES")


def test_the_negative_test_needs_a_row_to_make_wrong(capsys):
    rows = api.parse(table(
        "| `pt_memcg_data` | x | `[CONFIG_MEMCG] &pt_memcg_data : int` | same | |"))
    cfg = types.SimpleNamespace(name="x86_64")
    assert api.wrong_type(cfg, rows, None, "TREE", "c0ffee", 2, {}) == 1
    assert capsys.readouterr().out.startswith(
        "FAIL api/x86_64/wrong-type-fails: no 'same' row of ")
