# SPDX-License-Identifier: GPL-2.0
"""Merging matrix runs of disjoint configs (the full tier in batches),
on the real matrix.json of a CI-tier run split into batches."""

import copy
import json

import pytest

from mdesc import merge, results
from mdesc.errors import HarnessError


@pytest.fixture
def batches(tmp_path, matrix_steps, monkeypatch):
    """Two batches: the real x86_64 run, and the same cells as if a
    second config (i386-pae) had built them; both at the same trees."""
    monkeypatch.setattr(merge, "tree_of", lambda commit, cache: "tree-" + commit)
    a = copy.deepcopy(matrix_steps)
    b = copy.deepcopy(matrix_steps)
    for c in b["cells"]:
        c["config"] = "i386-pae"
    paths = []
    for name, meta in (("a", a), ("b", b)):
        d = tmp_path / name
        results.save_matrix(str(d / "matrix.json"), meta)
        paths.append(str(d))
    return paths


def test_merge_two_batches(tmp_path, batches, matrix_steps):
    assert merge.main(["--out", str(tmp_path / "m"), *batches]) == 0
    m = results.load_matrix(str(tmp_path / "m" / "matrix.json"))
    assert len(m["cells"]) == 2 * len(matrix_steps["cells"])
    assert not m["complete"]          # both batches had stopped at step 2
    assert m["done_to_step"] == 2
    assert [s["configs"] for s in m["sources"]] == [["x86_64"], ["i386-pae"]]
    md = (tmp_path / "m" / "matrix.md").read_text()
    assert "| step | i386-pae | x86_64 |" in md


def test_a_cell_built_twice_is_refused(tmp_path, batches):
    with pytest.raises(HarnessError, match="x86_64 step 0 objects was built by .* too"):
        merge.main(["--out", str(tmp_path / "m"), batches[0], batches[0]])


def test_a_rerun_replaces_its_cells(tmp_path, batches, matrix_steps):
    rerun = copy.deepcopy(matrix_steps)
    rerun["cells"] = [dict(rerun["cells"][2], status="FAIL", reason="1 new warning(s): x")]
    results.save_matrix(str(tmp_path / "r" / "matrix.json"), rerun)
    assert merge.main(["--out", str(tmp_path / "m"), *batches,
                       "--rerun", str(tmp_path / "r")]) == 1
    m = json.loads((tmp_path / "m" / "matrix.json").read_text())
    assert m["replaced"] == [{"config": "x86_64", "step": 2, "kind": "objects",
                              "was": "PASS", "now": "FAIL",
                              "by": str(tmp_path / "r" / "matrix.json")}]


def test_a_rerun_of_nothing_is_refused(tmp_path, batches, matrix_steps):
    rerun = copy.deepcopy(matrix_steps)
    for c in rerun["cells"]:
        c["config"] = "s390"
    results.save_matrix(str(tmp_path / "r" / "matrix.json"), rerun)
    with pytest.raises(HarnessError, match="a rerun of config s390, which no batch built"):
        merge.main(["--out", str(tmp_path / "m"), *batches, "--rerun", str(tmp_path / "r")])


def test_other_bases_or_trees_are_refused(tmp_path, batches, monkeypatch):
    b = results.load_matrix(batches[1] + "/matrix.json")
    results.save_matrix(batches[1] + "/matrix.json", dict(b, base="0" * 40))
    with pytest.raises(HarnessError, match="base 000000000000, but"):
        merge.main(["--out", str(tmp_path / "m"), *batches])
    results.save_matrix(batches[1] + "/matrix.json", b)
    monkeypatch.setattr(merge, "tree_of",
                        lambda commit, cache: commit + ("x" if len(cache) else ""))
    calls = {}

    def tree_of(commit, cache):
        calls[commit] = calls.get(commit, 0) + 1
        return f"{commit}-{calls[commit]}"
    monkeypatch.setattr(merge, "tree_of", tree_of)
    with pytest.raises(HarnessError, match="is not the tree that"):
        merge.main(["--out", str(tmp_path / "m"), *batches])


def test_tree_of_is_asked_once_per_commit(monkeypatch):
    asked = []
    monkeypatch.setattr(merge, "git", lambda *a: asked.append(a) or "t1")
    cache = {}
    assert merge.tree_of("c1", cache) == merge.tree_of("c1", cache) == "t1"
    assert asked == [("rev-parse", "c1^{tree}")]
