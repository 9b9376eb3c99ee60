# SPDX-License-Identifier: GPL-2.0
"""The result model: statuses, lines, matrix.json and boot.json."""

import json
import os

import pytest

from conftest import data
from mdesc import results
from mdesc.errors import ResultsUnreadable
from mdesc.results import Line, Status


def test_status_values_are_the_vocabulary():
    assert [str(s) for s in Status] == ["PASS", "FAIL", "SKIP", "N/A", "BUILT"]
    assert Status("N/A") is Status.NA


@pytest.mark.parametrize("text,want", [
    ("PASS matrix/x86_64/step 3", Line(Status.PASS, "matrix/x86_64/step 3")),
    ("FAIL boot/x86_64/series: timeout: QEMU did not finish",
     Line(Status.FAIL, "boot/x86_64/series", "timeout: QEMU did not finish")),
    ("SKIP zsdesc: page-use check: no zsdesc part in series",
     Line(Status.SKIP, "zsdesc", "page-use check: no zsdesc part in series")),
    ("  | some log line", None),
    ("PASSED unit/x", None),
    ("N/A matrix/x86_64/step 1", None),
])
def test_line_parse(text, want):
    assert Line.parse(text) == want


def test_line_round_trip():
    for s in ("PASS a b c", "FAIL x: why: because", "SKIP y: no toolchain"):
        assert str(Line.parse(s)) == s


def test_load_matrix_of_a_real_run(matrix_steps):
    meta = results.load_matrix(data("matrix", "steps-incomplete.json"))
    assert meta == matrix_steps
    assert not meta["complete"] and meta["done_to_step"] == 2


def test_matrix_lines_skip_na_cells(matrix_steps):
    got = [str(ln) for ln in results.matrix_lines(dict(matrix_steps, complete=True))]
    assert got == ["PASS matrix/x86_64/step 0", "PASS matrix/x86_64/step 2"]


def test_an_incomplete_run_fails(matrix_steps):
    """The real run stopped after step 2 of 57: its two passing cells
    are shown, and the run is one failure, so that the 55 steps it
    never reached cannot pass by being absent."""
    got = [str(ln) for ln in results.matrix_lines(matrix_steps)]
    assert got == ["FAIL matrix: incomplete: the run stopped after step 2 of 57",
                   "PASS matrix/x86_64/step 0", "PASS matrix/x86_64/step 2"]


def test_matrix_lines_of_sparse_and_link_cells(matrix_steps):
    meta = dict(matrix_steps, sparse=True, complete=True)
    cells = [dict(c) for c in meta["cells"]]
    cells[0].update(kind="link", status="FAIL", reason="make vmlinux failed: x")
    meta["cells"] = cells
    got = [str(ln) for ln in results.matrix_lines(meta)]
    assert got == ["FAIL matrix/x86_64/link: make vmlinux failed: x",
                   "PASS matrix/x86_64/sparse step 2"]


def test_matrix_markdown_is_what_the_run_wrote(matrix_steps):
    with open(data("matrix", "steps-incomplete.md")) as f:
        assert results.matrix_markdown(matrix_steps, ["x86_64"]) == f.read()


def test_matrix_markdown_reasons_once_per_config(matrix_steps):
    meta = dict(matrix_steps, complete=True)
    cells = [dict(c) for c in meta["cells"]]
    for c in cells:
        c.update(status="SKIP", reason="no toolchain: x-gcc not found")
    meta["cells"] = cells
    md = results.matrix_markdown(meta, ["x86_64"])
    assert "Incomplete" not in md
    assert md.count("no toolchain: x-gcc not found") == 1
    assert "Totals: SKIP 3" in md


def test_truncated_matrix_is_unreadable(tmp_path):
    """A run killed while writing (before writes were atomic)."""
    with open(data("matrix", "steps-incomplete.json")) as f:
        text = f.read()
    p = tmp_path / "matrix.json"
    p.write_text(text[:len(text) // 2])
    with pytest.raises(ResultsUnreadable, match="cut short"):
        results.load_matrix(str(p))


def test_missing_matrix(tmp_path):
    with pytest.raises(ResultsUnreadable, match="no such file"):
        results.load_matrix(str(tmp_path / "matrix.json"))


def test_cell_built_twice(tmp_path, matrix_steps):
    meta = dict(matrix_steps, cells=matrix_steps["cells"] + matrix_steps["cells"][:1])
    p = tmp_path / "matrix.json"
    p.write_text(json.dumps(meta))
    with pytest.raises(ResultsUnreadable, match="x86_64 step 0 .objects. is there twice"):
        results.load_matrix(str(p))


@pytest.mark.parametrize("change,match", [
    ({"status": "MAYBE"}, "status 'MAYBE'"),
    ({"reason": None, "status": "PASS", "_drop": "kind"}, "lacks kind"),
])
def test_bad_cells(tmp_path, matrix_steps, change, match):
    cell = dict(matrix_steps["cells"][0])
    drop = change.pop("_drop", None)
    cell.update(change)
    if drop:
        del cell[drop]
    p = tmp_path / "m.json"
    p.write_text(json.dumps(dict(matrix_steps, cells=[cell])))
    with pytest.raises(ResultsUnreadable, match=match):
        results.load_matrix(str(p))


@pytest.mark.parametrize("doc", [[], {"cells": "x"}, {"nocells": []}])
def test_not_a_matrix(tmp_path, doc):
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ResultsUnreadable, match="no list of cells"):
        results.load_matrix(str(p))


def test_save_is_atomic(tmp_path, matrix_steps, monkeypatch):
    """A write that fails half way leaves the old file and no temporary."""
    p = tmp_path / "matrix.json"
    results.save_matrix(str(p), matrix_steps)
    before = p.read_text()

    def boom(*a, **k):
        raise KeyboardInterrupt
    # Interrupted after the new file is written, before it is renamed.
    monkeypatch.setattr(results.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        results.save_matrix(str(p), {"cells": []})
    assert p.read_text() == before
    assert os.listdir(tmp_path) == ["matrix.json"]


def test_write_text_creates_directories(tmp_path):
    p = tmp_path / "a" / "b" / "matrix.md"
    results.write_text(str(p), "x\n")
    assert p.read_text() == "x\n"


def test_cells_by_key_and_counts(matrix_steps):
    by = results.cells_by_key(matrix_steps)
    assert set(by) == {("x86_64", 0, "objects"), ("x86_64", 1, "objects"),
                       ("x86_64", 2, "objects")}
    assert results.status_counts(matrix_steps["cells"]) == {"PASS": 2, "N/A": 1}


BOOTS = [
    {"config": "x86_64", "tree": "base", "verdict": "PASS", "seconds": 186.2,
     "checks": {"zram/verify": ["PASS", "12288 blocks"], "pt/fork": ["SKIP", "no THP"]},
     "kunit": {"ptdesc/ctor": "PASS"}},
    {"config": "x86_64", "tree": "series", "verdict": "FAIL",
     "reason": "console: BUG: KASAN: use-after-free in f"},
]


def test_boot_lines():
    got = [str(ln) for ln in results.boot_lines(BOOTS)]
    assert got == [
        "PASS boot/x86_64/base: booted, every check verified in 186 s",
        "SKIP boot/x86_64/base/pt/fork: no THP",
        "PASS boot/x86_64/base/zram/verify: 12288 blocks",
        "PASS boot/x86_64/base/kunit/ptdesc/ctor",
        "FAIL boot/x86_64/series: console: BUG: KASAN: use-after-free in f",
    ]


def test_a_kunit_case_skipped_at_boot_gives_its_reason():
    """The KTAP reason boot.py keeps in 'kunit_skips' (case name ->
    reason, from the console), on the SKIP line of that case only."""
    boot = {"config": "x86_64", "tree": "series", "verdict": "PASS", "seconds": 308,
            "kunit": {"ptdesc/ptdesc_test_ptlock": "PASS",
                      "ptdesc/ptdesc_test_ctor_ptlock_fails": "SKIP",
                      "zsmalloc/zs_test_alloc_fails": "SKIP"},
            "kunit_skips": {"ptdesc_test_ctor_ptlock_fails": "needs CONFIG_FAILSLAB"}}
    assert [str(ln) for ln in results.boot_lines([boot])][1:] == [
        "PASS boot/x86_64/series/kunit/ptdesc/ptdesc_test_ptlock",
        "SKIP boot/x86_64/series/kunit/ptdesc/ptdesc_test_ctor_ptlock_fails: "
        "needs CONFIG_FAILSLAB",
        # a boot.json from before kunit_skips, or a case without a reason
        "SKIP boot/x86_64/series/kunit/zsmalloc/zs_test_alloc_fails",
    ]


def test_boot_json_round_trip(tmp_path):
    p = tmp_path / "boot" / "boot.json"
    results.save_boot(str(p), BOOTS)
    assert results.load_boot(str(p)) == BOOTS


@pytest.mark.parametrize("doc,match", [
    ({"config": "x"}, "not a list"),
    ([{"config": "x", "tree": "base"}], "lacks verdict"),
    ([{"config": "x", "tree": "base", "verdict": "OK"}], "verdict 'OK'"),
])
def test_bad_boot_json(tmp_path, doc, match):
    p = tmp_path / "boot.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ResultsUnreadable, match=match):
        results.load_boot(str(p))


def test_lines_command(tmp_path, capsys):
    assert results.main(["matrix", data("matrix", "steps-incomplete.json")]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["PASS matrix/x86_64/step 0",
                                                        "PASS matrix/x86_64/step 2"]
    p = tmp_path / "boot.json"
    results.save_boot(str(p), BOOTS[1:])
    assert results.main(["boot", str(p)]) == 0
    assert capsys.readouterr().out.startswith("FAIL boot/x86_64/series: console")


def test_lines_cell_command(capsys):
    f = data("matrix", "steps-incomplete.json")
    results.main(["cell", f, "x86_64", "1"])
    assert capsys.readouterr().out == "N/A step does not touch this config's files\n"
    results.main(["cell", f, "x86_64", "2", "link"])
    assert capsys.readouterr().out == "MISSING\n"
    with pytest.raises(SystemExit):
        results.main(["cell", f, "x86_64"])


def test_result_files_are_as_readable_as_open_makes_them(tmp_path):
    p = tmp_path / "boot.json"
    results.save_boot(str(p), BOOTS)
    assert p.stat().st_mode & 0o777 == 0o666 & ~results.UMASK
