# SPDX-License-Identifier: GPL-2.0
"""The layout report on the probe output a run compiled: test_data/layout/
holds the '->' lines of ptdesc_layout.s for x86_64, i386-pae and hexagon,
and layout.json and layout.md, all from 'harness layout --configs
x86_64,i386-pae,hexagon' on 2026-12-05, after pt_index replaced
_pt_s390_gaddr in the series."""

import json
import os
import shutil
import types

import pytest

from conftest import data
from mdesc import layout
from mdesc.config import Config

with open(data("layout", "layout.json")) as f:
    REPORT = json.load(f)
RECORDS = {r["config"]: r for r in REPORT["configs"]}


def asm(name):
    with open(data("layout", name + ".s")) as f:
        return f.read()


@pytest.mark.parametrize("name", ["x86_64", "i386-pae", "hexagon"])
def test_parse_the_compiled_probe(name):
    vals = layout.parse(asm(name))
    rec = RECORDS[name]
    assert vals["sizeof page"] == rec["sizeof_page"]
    assert vals["sizeof ptdesc"] == rec["sizeof_ptdesc"]
    for fl in rec["fields"]:
        assert vals[f"ptdesc {fl['field']}"] == fl["offset"]
        assert vals[f"page_size {fl['field']}"] == fl["twin_size"]


def test_render_is_the_runs_report():
    with open(data("layout", "layout.md")) as f:
        assert layout.render(REPORT) == f.read()


@pytest.fixture
def probe_env(tmp_path, monkeypatch):
    """probe() with the build replaced: 'make' writes the captured .s."""
    class Cfg(Config):
        def __init__(self, path, *a, **k):
            super().__init__(path, *a, builddir=str(tmp_path / os.path.basename(path)[:-7]),
                             **k)

        def compiler(self):
            return "/usr/bin/gcc", {}
    made = []

    def fake_run(cmd, env=None, check=True):
        name = next(a.split("=", 1)[1] for a in cmd if a.startswith("O="))
        out = os.path.join(name, layout.PROBE_DIR, "ptdesc_layout.s")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copy(data("layout", os.path.basename(name) + ".s"), out)
        made.append(os.path.basename(name))
        return types.SimpleNamespace(stdout="", returncode=0)
    monkeypatch.setattr(layout, "Config", Cfg)
    monkeypatch.setattr(layout, "configure", lambda cfg, jobs, env: None)
    monkeypatch.setattr(layout, "run", fake_run)
    monkeypatch.setattr(layout.cache, "ROOT", str(tmp_path / "verdicts"))
    monkeypatch.delenv("NO_CACHE", raising=False)
    return made


def test_probe_then_the_cache(probe_env, capsys):
    rec = {"config": "i386-pae"}
    assert layout.probe(rec, 2, None, "tree-1") == 0
    want = dict(RECORDS["i386-pae"])
    assert rec == want
    assert capsys.readouterr().out == (
        "PASS layout/i386-pae: 14 fields, ptdesc 36 / page 40 bytes, ALLOC_SPLIT_PTLOCKS 0\n")
    again = {"config": "i386-pae"}
    assert layout.probe(again, 2, None, "tree-1") == 0
    assert again == dict(want, cached=True) and probe_env == ["i386-pae"]
    assert capsys.readouterr().out.endswith("ALLOC_SPLIT_PTLOCKS 0 (cached)\n")
    # Another tree: probed again.
    assert layout.probe({"config": "i386-pae"}, 2, None, "tree-2") == 0
    assert probe_env == ["i386-pae", "i386-pae"]


def test_a_misplaced_field_fails_and_is_not_cached(probe_env, tmp_path, capsys, monkeypatch):
    # The x86_64 probe with pt_mm's offset changed from 32 to 40.
    bad = asm("x86_64").replace('"->ptdesc pt_mm $32"', '"->ptdesc pt_mm $40"')
    assert bad != asm("x86_64")
    src = tmp_path / "x86_64-bad.s"
    src.write_text(bad)
    real = layout.run

    def run_bad(cmd, env=None, check=True):
        p = real(cmd, env, check)
        out = next(a.split("=", 1)[1] for a in cmd if a.startswith("O="))
        shutil.copy(src, os.path.join(out, layout.PROBE_DIR, "ptdesc_layout.s"))
        return p
    monkeypatch.setattr(layout, "run", run_bad)
    rec = {"config": "x86_64"}
    assert layout.probe(rec, 2, None, "tree-1") == 1
    assert rec["status"] == "FAIL"
    assert [f["field"] for f in rec["fields"] if not f["ok"]] == ["pt_mm"]
    assert layout.probe({"config": "x86_64"}, 2, None, "tree-1") == 1


def test_no_toolchain_is_a_skip(monkeypatch, capsys):
    monkeypatch.setattr(Config, "compiler",
                        lambda self: (_ for _ in ()).throw(LookupError("no toolchain: x")))
    rec = {"config": "csky"}
    assert layout.probe(rec, 2, None, "t") == 0
    assert rec["status"] == "SKIP"
    assert capsys.readouterr().out == "SKIP layout/csky: no toolchain: x\n"


def test_a_configure_failure(probe_env, monkeypatch, capsys):
    monkeypatch.setattr(layout, "configure", lambda cfg, jobs, env: "make tinyconfig failed")
    rec = {"config": "x86_64"}
    assert layout.probe(rec, 2, None, "t") == 1
    assert rec["reason"] == "make tinyconfig failed"


def test_has_ptdesc(tmp_path):
    (tmp_path / "include" / "linux").mkdir(parents=True)
    h = tmp_path / "include" / "linux" / "mm_types.h"
    h.write_text("struct page {\n};\n")
    assert not layout.has_ptdesc(str(tmp_path))
    h.write_text("struct page {\n};\nstruct ptdesc {\n};\n")
    assert layout.has_ptdesc(str(tmp_path))


def test_the_probe_names_every_field():
    src = layout.probe_source()
    for field, twin, _ in layout.FIELDS:
        assert f"PAIR({field}, " in src


def test_a_descriptor_allocated_apart_is_a_skip(probe_env, capsys):
    """x86_64-sepdesc (CONFIG_SEPARATE_PTDESC): the compiled probe says
    so, and there is nothing to place; its size is kept."""
    rec = {"config": "x86_64-sepdesc"}
    assert layout.probe(rec, 2, None, "tree-1") == 0
    assert rec["status"] == "SKIP" and "fields" not in rec
    assert (rec["sizeof_ptdesc"], rec["sizeof_page"]) == (40, 64)
    assert capsys.readouterr().out == (
        "SKIP layout/x86_64-sepdesc: struct ptdesc is allocated apart "
        "(CONFIG_SEPARATE_PTDESC, 40 bytes): it overlays no struct page word\n")
    again = {"config": "x86_64-sepdesc"}
    assert layout.probe(again, 2, None, "tree-1") == 0
    assert again["status"] == "SKIP" and probe_env == ["x86_64-sepdesc"]
    assert capsys.readouterr().out.endswith("overlays no struct page word (cached)\n")
    assert "## x86_64-sepdesc (x86_64): SKIP: struct ptdesc is allocated apart" in layout.render(
        {"date": "d", "commit": "c" * 12, "configs": [dict(again, config="x86_64-sepdesc")]})
