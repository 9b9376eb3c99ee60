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
    monkeypatch.setattr(cache, "_HARNESS", "another harness")
    assert cache.get("cell", IN) is None


def test_harness_digest_is_stable():
    assert cache.harness_digest() == cache.harness_digest()
    assert len(cache.harness_digest()) == 64


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
