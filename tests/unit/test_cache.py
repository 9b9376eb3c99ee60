# SPDX-License-Identifier: GPL-2.0
"""The verdict cache: keyed by every input, robust to damage."""

import os

import pytest

from mdesc import cache


@pytest.fixture(autouse=True)
def root(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "ROOT", str(tmp_path / "v"))
    monkeypatch.delenv("NO_CACHE", raising=False)
    return tmp_path / "v"


IN = {"tree": "t1", "config": "d1", "cc": "gcc 1"}


def test_put_then_get():
    assert cache.get("cell", IN) is None
    cache.put("cell", IN, {"status": "PASS"})
    assert cache.get("cell", IN) == {"inputs": IN, "record": {"status": "PASS"}}


@pytest.mark.parametrize("change", [{"tree": "t2"}, {"config": "d2"}, {"cc": "gcc 2"},
                                    {"extra": 1}])
def test_any_other_input_misses(change):
    cache.put("cell", IN, {"status": "PASS"})
    assert cache.get("cell", dict(IN, **change)) is None


def test_kinds_do_not_mix():
    cache.put("cell", IN, {"status": "PASS"})
    assert cache.get("layout", IN) is None


def test_the_harness_code_is_an_input(monkeypatch):
    cache.put("cell", IN, {"status": "PASS"})
    monkeypatch.setattr(cache, "_HARNESS", {"cell": "another harness"})
    assert cache.get("cell", IN) is None


def test_harness_digest_follows_the_code(tmp_path, monkeypatch):
    """Editing the code of a module that judges a kind changes that
    kind's digest; a comment does not, nor does another module."""
    for name in ("a.py", "b.py", "other.py"):
        (tmp_path / name).write_text("x = 1\n")
    monkeypatch.setattr(cache, "__file__", str(tmp_path / "cache.py"))
    monkeypatch.setattr(cache, "JUDGES", {"cell": ["a", "b"]})

    def digest(kind="cell"):
        monkeypatch.setattr(cache, "_HARNESS", {})
        return cache.harness_digest(kind)
    one = digest()
    assert len(one) == 64
    (tmp_path / "b.py").write_text("x = 1  # a comment\n\n")
    (tmp_path / "other.py").write_text("x = 3\n")
    assert digest() == one
    (tmp_path / "b.py").write_text("x = 2\n")
    assert digest() != one
    # A kind without a list is judged by every module.
    everything = digest("other-kind")
    (tmp_path / "other.py").write_text("x = 4\n")
    assert digest("other-kind") != everything


def test_every_judge_is_a_module():
    here = os.path.dirname(cache.__file__)
    for kind, names in cache.JUDGES.items():
        for n in names:
            assert os.path.exists(os.path.join(here, n + ".py")), (kind, n)


def test_an_unwritable_cache_costs_time_not_a_verdict(monkeypatch, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(cache, "ROOT", str(tmp_path / "file" / "v"))
    cache.put("cell", IN, {"status": "PASS"})
    assert "not written" in capsys.readouterr().err
    assert cache.get("cell", IN) is None


def test_a_damaged_entry_is_a_miss_and_dropped(root):
    cache.put("cell", IN, {"status": "PASS"})
    [path] = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    with open(path, "w") as f:
        f.write('{"inputs": ')
    assert cache.get("cell", IN) is None
    assert not os.path.exists(path)


def test_no_cache(monkeypatch, root):
    monkeypatch.setenv("NO_CACHE", "1")
    cache.put("cell", IN, {"status": "PASS"})
    assert cache.get("cell", IN) is None and not root.exists()


def test_compiler_id(tmp_path):
    cc = tmp_path / "cc"
    cc.write_bytes(b"one")
    a = cache.compiler_id(str(cc))
    cc.write_bytes(b"two")
    assert cache.compiler_id(str(cc)) != a
    assert cache.compiler_id("/no/such/cc") == "/no/such/cc"
