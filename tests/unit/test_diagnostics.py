# SPDX-License-Identifier: GPL-2.0
"""Compiler output: warnings in every path form, and the first error.

test_data/compiler/warnings.txt is gcc 12's own output; the path forms
are those ccache replays from another checkout with the same layout
(CCACHE_BASEDIR, CCACHE_NOHASHDIR), as the CI failure of 3665726 showed.
"""

import os

import pytest

from mdesc import diagnostics

MSG = "mm/memory.c:10:5: warning: unused variable 'x' [-Wunused-variable]"
WANT = "mm/memory.c: unused variable 'x' [-Wunused-variable]"
GEN = "include/generated/autoconf.h:1:2: warning: w"


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """A work directory with the matrix's layout: harness/tree and
    harness/build/x86_64, one source and one generated header."""
    tree = tmp_path / "harness" / "tree"
    build = tmp_path / "harness" / "build" / "x86_64"
    (tree / "mm").mkdir(parents=True)
    (build / "include" / "generated").mkdir(parents=True)
    (tree / "mm" / "memory.c").write_text("")
    (build / "include" / "generated" / "autoconf.h").write_text("")
    monkeypatch.setattr(diagnostics, "TREE", str(tree))
    return str(tree), str(build)


@pytest.mark.parametrize("prefix", [
    "",                                  # relative to the tree
    "../../tree/",                       # relative to the build dir
    "TREE/",                             # absolute, this checkout
    "/elsewhere/work/tree/",             # another checkout's layout
    "/elsewhere/work/harness/tree/",     # another, the same depth
    "/elsewhere/tree/x/tree/",           # a decoy /tree/ before the real one
])
def test_tree_file_in_every_path_form(layout, prefix):
    tree, build = layout
    line = prefix.replace("TREE/", tree + "/") + MSG
    assert diagnostics.parse_warnings(line, build) == {WANT}


@pytest.mark.parametrize("prefix", ["", "/elsewhere/work/build/x86_64/"])
def test_build_dir_file(layout, prefix):
    _, build = layout
    assert diagnostics.parse_warnings(prefix + GEN, build) == {"include/generated/autoconf.h: w"}


@pytest.mark.parametrize("line,want", [
    ("/usr/include/x.h:1:2: warning: w", "/usr/include/x.h: w"),
    # No such file here: left as it was.
    ("/elsewhere/work/tree/mm/gone.c:1:2: warning: w", "/elsewhere/work/tree/mm/gone.c: w"),
])
def test_paths_outside_the_tree_stay(layout, line, want):
    _, build = layout
    assert diagnostics.parse_warnings(line, build) == {want}


def test_errors_notes_and_noise_are_not_warnings(layout):
    _, build = layout
    out = "\n".join([
        "  CC      mm/memory.o",
        "mm/memory.c:12:1: error: expected ';' before '}' token",
        "mm/memory.c: In function 'f':",
        "mm/memory.c:3:9: note: declared here",
        "  " + MSG,                      # indented: make -k output
    ])
    assert diagnostics.parse_warnings(out, build) == {WANT}


def test_captured_compiler_output(layout):
    """Real gcc 12 output with carets and an 'In function' line: three
    warnings, line and column dropped."""
    _, build = layout
    with open(os.path.join(os.path.dirname(__file__), "test_data", "compiler",
                           "warnings.txt")) as f:
        out = f.read()
    assert diagnostics.parse_warnings(out, build) == {
        "mm/w.c: suggest parentheses around assignment used as truth value [-Wparentheses]",
        "mm/w.c: unused variable \u2018y\u2019 [-Wunused-variable]",
        "mm/w.c: unused variable \u2018x\u2019 [-Wunused-variable]",
    }


@pytest.mark.parametrize("out,want", [
    ("a\nmm/x.c:1:2: error: bad\nmake: *** [x] Error 1\n", "mm/x.c:1:2: error: bad"),
    ("scripts/Makefile.build:250: recipe\nmake[2]: *** [mm/x.o] Error 1\n",
     "make[2]: *** [mm/x.o] Error 1"),
    ("nothing\nlast line\n", "last line"),
    ("", "(no output)"),
])
def test_first_error(out, want):
    assert diagnostics.first_error(out) == want
