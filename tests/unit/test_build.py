# SPDX-License-Identifier: GPL-2.0
"""build_vmlinux_pair(): both sides of a bloat or samecode row, built
in order, a recorded side left out, the first failure named."""

from mdesc import build


def fake(monkeypatch, fail_at=None):
    built = []

    def build_in_tree(cfg, tree, commit, target, jobs, env, logf):
        built.append((tree, commit, target, logf))
        return "make vmlinux failed: boom" if tree == fail_at else None
    monkeypatch.setattr(build, "build_in_tree", build_in_tree)
    return built


CFGS = {"base": object(), "series": object()}
COMMITS = {"base": "b" * 40, "series": "s" * 40}


def test_both_sides_are_built_in_order_with_a_log_each(monkeypatch):
    built = fake(monkeypatch)
    secs, err = build.build_vmlinux_pair("x86_64", CFGS, COMMITS, 2, {}, "/out")
    assert err is None and secs >= 0
    assert built == [("base", "b" * 40, "vmlinux", "/out/x86_64-base.build.log"),
                     ("series", "s" * 40, "vmlinux", "/out/x86_64-series.build.log")]


def test_a_recorded_side_is_not_built(monkeypatch):
    built = fake(monkeypatch)
    assert build.build_vmlinux_pair("r", CFGS, COMMITS, 2, {}, "/o", skip={"base"})[1] is None
    assert [b[0] for b in built] == ["series"]


def test_the_first_failure_names_its_side_and_stops(monkeypatch):
    built = fake(monkeypatch, fail_at="base")
    _, err = build.build_vmlinux_pair("r", CFGS, COMMITS, 2, {}, "/o")
    assert err == "base: make vmlinux failed: boom"
    assert [b[0] for b in built] == ["base"]
