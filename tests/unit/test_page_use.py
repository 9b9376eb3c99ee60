# SPDX-License-Identifier: GPL-2.0
"""The zsmalloc page-use check, on the real mm/zsmalloc.c of the base
and of the series' head (test_data/zsmalloc/, from a run's tree: the
base 1168211065ea on 2026-12-04, the head 290ab07d0070 on 2026-12-06)."""

import lzma

import pytest

from conftest import data
from mdesc import page_use


def source(which):
    with lzma.open(data("zsmalloc", f"{which}-zsmalloc.c.xz"), "rt") as f:
        return f.read()


def test_the_base_uses_struct_page_all_over():
    found = page_use.uses(source("base"))
    assert len(found) == 93
    names = {name for _, name, _ in found}
    assert {"obj_to_location", "get_first_page", "__free_zspage"} <= names
    line, name, text = found[0]
    assert source("base").split("\n")[line - 1].strip() == text


def test_the_series_uses_it_only_in_zsdesc_helpers():
    assert page_use.uses(source("series")) == []


def test_a_left_over_page_access_is_caught():
    """The negative test: one struct page access put back into a
    converted function is found, by line and function."""
    src = source("series").split("\n")
    i = next(i for i, ln in enumerate(src) if ln.startswith("static void __free_zspage"))
    body = next(j for j in range(i, len(src)) if src[j].startswith("{"))
    src.insert(body + 1, "\tstruct page *page = NULL;")
    found = page_use.uses("\n".join(src))
    assert [(no, name) for no, name, _ in found] == [(body + 2, "__free_zspage")]


@pytest.mark.parametrize("code,want", [
    ("/* struct page in a comment */ int a;", []),
    ('char *s = "page->index";', []),
    ("static inline struct page *zsdesc_page(struct zsdesc *z) { return (struct page *)z; }",
     []),
    ("#define PAGE_OF(p) ((struct page *)(p))", [(1, "#define PAGE_OF")]),
    ("static void f(void)\n{\n\tput_page(x);\n}", [(3, "f")]),
    ("struct zsdesc { unsigned long flags; };\n"
     "static_assert(offsetof(struct page, flags) == offsetof(struct zsdesc, flags));", []),
])
def test_what_counts_as_a_use(code, want):
    assert [(no, name) for no, name, _ in page_use.uses(code)] == want


def test_command(monkeypatch, capsys):
    monkeypatch.setattr(page_use, "git", lambda *a: source("series"))
    assert page_use.main(["--commit", "series", "--expect-none"]) == 0
    assert page_use.main(["--commit", "series", "--expect-some"]) == 1
    monkeypatch.setattr(page_use, "git", lambda *a: source("base"))
    assert page_use.main(["--commit", "base", "--expect-none"]) == 1
    assert capsys.readouterr().out.endswith(
        "93 struct page use(s) outside the zsdesc helpers at base\n")
