# SPDX-License-Identifier: GPL-2.0
"""bases/*.base: the bases as data, and the paths derived from them."""

import os
import subprocess
import sys

import pytest

from mdesc import bases, paths
from mdesc.kconfig import lost_lines

GOOD = """# a comment
package=linux-source-9.9
version=9.9.1-1
tarball=/usr/src/linux-source-9.9.tar.xz
sha256=%s
series=series-9.9
patches=patches-9.9
work=work-9.9
kconfig-gone=CONFIG_A  CONFIG_B
runtime-off=CONFIG_SLUB_TINY
ci-steps=x86_64, s390
ci-final=x86_64,i386-pae,s390
kunitconfigs=mm/a.kunitconfig arch/s390/mm/b.kunitconfig
kunit-arches=um  s390
kept-allocs=scripts/kept.list
checkpatch-allow=scripts/checkpatch-9.9.allow
""" % ("ab" * 32)


def test_parse_a_full_description():
    b = bases.parse("9.9", GOOD)
    assert (b.package, b.version, b.work) == ("linux-source-9.9", "9.9.1-1", "work-9.9")
    assert b.kconfig_gone == ("CONFIG_A", "CONFIG_B")
    assert b.runtime_off == ("CONFIG_SLUB_TINY",)
    assert b.ci_steps == ("x86_64", "s390")
    assert b.ci_final == ("x86_64", "i386-pae", "s390")
    assert b.kunitconfigs == ("mm/a.kunitconfig", "arch/s390/mm/b.kunitconfig")
    assert b.kunit_arches == ("um", "s390")
    assert b.exported()["BASE_SHA256"] == "ab" * 32
    assert b.exported()["BASE_CI_STEPS"] == "x86_64,s390"
    assert b.exported()["BASE_KEPT_ALLOCS"] == "scripts/kept.list"
    assert b.exported()["BASE_CHECKPATCH_ALLOW"] == "scripts/checkpatch-9.9.allow"


@pytest.mark.parametrize("edit,message", [
    (lambda t: t.replace("version=9.9.1-1\n", ""), "missing version"),
    (lambda t: t.replace("sha256=" + "ab" * 32, "sha256=abc"), "not 64 hex digits"),
    (lambda t: t.replace("work=work-9.9", "work=work"), "work must be 'work-9.9', not 'work'"),
    (lambda t: t.replace("work=work-9.9", "work=work-6.1"), "work must be 'work-9.9'"),
    (lambda t: t + "colour=blue\n", "unknown key 'colour'"),
    (lambda t: t + "version=1\n", "'version' given twice"),
    (lambda t: t + "just words\n", "not 'key=value'"),
    (lambda t: t.replace("CONFIG_B", "B"), "kconfig-gone names no CONFIG_ symbol: B"),
    (lambda t: t.replace("CONFIG_SLUB_TINY", "SLUB_TINY"),
     "runtime-off names no CONFIG_ symbol: SLUB_TINY"),
    (lambda t: t.replace("=scripts/kept.list", "=/tmp/kept.list"),
     "kept-allocs must be a path inside the project"),
    (lambda t: t.replace("=scripts/kept.list", "=../kept.list"),
     "kept-allocs must be a path inside the project"),
    (lambda t: t.replace("=scripts/checkpatch-9.9.allow", "=/etc/allow"),
     "checkpatch-allow must be a path inside the project"),
    (lambda t: t + "rows-gone=s390\n", "rows-gone and the tier both name s390"),
    (lambda t: t.replace("ci-steps=x86_64, s390", "ci-steps=all"),
     "ci-steps names configs; 'all' is for ci-final"),
    (lambda t: t.replace("ci-final=x86_64,i386-pae,s390", "ci-final=all,x86_64"),
     "ci-final is 'all' or a list of configs, not both"),
])
def test_a_wrong_description_is_named(edit, message):
    with pytest.raises(bases.BaseError, match=message):
        bases.parse("9.9", edit(GOOD), "x.base")


def test_the_default_base_has_its_own_work_directory_and_no_tier():
    default = GOOD.replace("work=work-9.9", "work=work")
    assert bases.parse(bases.DEFAULT, default.replace("ci-", "#")).work == "work"
    with pytest.raises(bases.BaseError, match="ci-steps, ci-final would cut it down"):
        bases.parse(bases.DEFAULT, default)


def test_the_bases_command_lists_those_with_a_tier(capsys):
    assert bases.main([]) == 0
    assert capsys.readouterr().out.split() == ["6.1", "6.12"]
    assert bases.main(["--with-tier"]) == 0
    assert capsys.readouterr().out.split() == ["6.12"]


def test_the_repository_describes_both_bases():
    assert bases.known(paths.BASES) == ["6.1", "6.12"]
    old, new = (bases.load(paths.BASES, n) for n in ("6.1", "6.12"))
    assert old.work == "work" and old.series == "series" and old.patches == "patches"
    assert new.work == "work-6.12" and new.series != old.series and new.patches != old.patches
    assert old.sha256 == "cacdc3830989309d042083be3307969e55600ed7f908cf00df544c5ff50759a1"
    assert new.sha256 == "c93391b6a4884e6428ffbfbb8ce6340229ad28dc421e9f19bc081740b1ab34b2"
    assert new.version == "6.12.118-1~deb12u1"
    assert old.kunitconfigs == ("mm/ptdesc.kunitconfig", "mm/zsmalloc.kunitconfig")
    # The RFC option's KUnit run is 6.1's only; 6.12 has no such option.
    assert "x86_64+sepdesc" in old.kunit_arches
    assert "x86_64+sepdesc" not in new.kunit_arches and "s390" in new.kunit_arches
    assert old.ci_steps == () and new.ci_steps == ("x86_64", "i386-pae", "s390")
    assert new.ci_final == ("all",)
    # The list of raw allocations mainline keeps is measured on 6.12.
    assert old.kept_allocs == ""
    assert os.path.isfile(os.path.join(paths.TOP, new.kept_allocs))
    # Each base tolerates its own checkpatch messages: the two series
    # share patch file names.
    assert old.checkpatch_allow != new.checkpatch_allow
    for b in (old, new):
        assert os.path.isfile(os.path.join(paths.TOP, b.checkpatch_allow))


@pytest.mark.parametrize("name", ["6.1", "6.12"])
def test_what_a_base_names_exists(name):
    """Its tier's configs are rows of configs/ ('all' for every one), its
    KUnit arches are harness kunit's, and each checkpatch allowance
    names a patch of its own series: one left by a renamed patch would
    wait to excuse the next patch of that name."""
    from mdesc import kunit, series
    b = bases.load(paths.BASES, name)
    rows = set(bases.rows(paths.CONFIGS))
    assert set(b.ci_steps) <= rows
    assert b.ci_final == ("all",) or set(b.ci_final) <= rows
    assert b.kunit_arches and set(b.kunit_arches) <= set(kunit.ARCHES)
    assert set(b.rows_gone) <= rows
    listed = set(series.read(os.path.join(paths.TOP, b.series)))
    # An allowance file reads as a series file does for its first words
    # (check-patches.sh: '#' to the line's end is a comment, $1 the patch).
    allowed = set(series.read(os.path.join(paths.TOP, b.checkpatch_allow)))
    assert allowed and allowed <= listed, allowed - listed


def test_an_unknown_base_names_the_known_ones(tmp_path):
    (tmp_path / "1.0.base").write_text(GOOD.replace("9.9", "1.0"))
    assert bases.known(tmp_path) == ["1.0"]
    assert bases.known(tmp_path / "none") == []
    with pytest.raises(bases.BaseError, match="BASE=2.0: no .*2.0.base; known bases: 1.0"):
        bases.load(tmp_path, "2.0")


def _paths(**env):
    """'harness paths' in a process of its own with ENV (paths.py reads
    the environment once, at import)."""
    e = {k: v for k, v in os.environ.items()
         if k not in ("BASE", "BASES", "WORK", "SERIES", "PATCHES", "RESULTS", "LINUX",
                      "BUILD", "TREE", "MUTANT")}
    e.update(env)
    top = os.path.dirname(paths.__file__)
    p = subprocess.run([sys.executable, os.path.join(top, "..", "harness"), "paths"],
                       env=e, capture_output=True, text=True)
    return p.returncode, dict(line.split("=", 1) for line in p.stdout.splitlines()), p.stderr


def test_each_base_has_its_own_work_directory_and_series():
    _, one, _ = _paths()
    rc, two, _ = _paths(BASE="6.12")
    assert rc == 0 and one["BASE"] == "6.1" and two["BASE"] == "6.12"
    for k in ("WORK", "LINUX", "BUILD", "TREE", "RESULTS", "SERIES", "PATCHES"):
        assert one[k] != two[k], k
    assert two["WORK"] == os.path.join(paths.TOP, "work-6.12")
    assert two["BASE_PACKAGE"] == "linux-source-6.12"


def test_paths_are_absolute_and_an_empty_variable_is_the_default():
    _, p, _ = _paths(RESULTS="rel/results", WORK="")
    assert p["RESULTS"] == os.path.join(os.getcwd(), "rel/results")
    assert p["WORK"] == os.path.join(paths.TOP, "work")


def test_an_unknown_base_stops_every_command():
    rc, out, err = _paths(BASE="5.10")
    assert rc == 2 and out == {}
    assert "BASE=5.10: no " in err and "known bases: 6.1, 6.12" in err


def test_a_symbol_the_base_dropped_is_not_required():
    wanted = ["CONFIG_A=y", "CONFIG_GONE=4", "# CONFIG_B is not set", "CONFIG_C=y"]
    have = ["CONFIG_A=y", "CONFIG_B=y"]
    assert lost_lines(wanted, have) == ["CONFIG_GONE=4", "# CONFIG_B is not set", "CONFIG_C=y"]
    assert lost_lines(wanted, have, ("CONFIG_GONE",)) == ["# CONFIG_B is not set", "CONFIG_C=y"]
    assert lost_lines(["# CONFIG_B is not set"], ["CONFIG_BB=y"]) == []


def test_a_second_base_records_its_boots_apart():
    """'BASE=6.12 make boot' must never write over 6.1's record."""
    code = "from mdesc import expect; print(expect.RECORDS)"
    top = os.path.dirname(os.path.dirname(paths.__file__))
    out = {}
    for base in ("6.1", "6.12"):
        e = dict(os.environ, BASE=base, PYTHONPATH=top)
        out[base] = subprocess.run([sys.executable, "-c", code], env=e, check=True,
                                   capture_output=True, text=True).stdout.strip()
    assert out["6.1"] == os.path.join(paths.TOP, "runtime", "expect")
    assert out["6.12"] == os.path.join(paths.TOP, "runtime", "expect", "6.12")


def test_the_real_bases_turn_off_only_what_they_say():
    """6.1's runtime kernels get nothing added (its boot records keep
    their key); 6.12's lose SLUB_TINY, which tinyconfig sets there and
    which KASAN cannot have."""
    assert bases.load(paths.BASES, "6.1").runtime_off == ()
    assert bases.load(paths.BASES, "6.12").runtime_off == ("CONFIG_SLUB_TINY",)


def test_a_row_the_base_cannot_configure_leaves_its_matrix(tmp_path):
    """rows-gone takes a row out of 'all': the tier's final state and
    'make matrix' (BASE_ROWS) get the other rows by name; a base without
    it keeps 'all', which the harness reads as every row."""
    for r in ("arm", "ppc64-hash", "x86_64"):
        (tmp_path / f"{r}.config").write_text("# arch: x\n")
    text = GOOD.replace("ci-final=x86_64,i386-pae,s390", "ci-final=all")
    plain = bases.parse("9.9", text)
    assert plain.exported(str(tmp_path))["BASE_CI_FINAL"] == "all"
    assert plain.exported(str(tmp_path))["BASE_ROWS"] == ""
    b = bases.parse("9.9", text + "rows-gone=ppc64-hash\n")
    assert b.rows_gone == ("ppc64-hash",)
    assert b.exported(str(tmp_path))["BASE_CI_FINAL"] == "arm,x86_64"
    assert b.exported(str(tmp_path))["BASE_ROWS"] == "arm,x86_64"
    listed = bases.parse("9.9", GOOD + "rows-gone=ppc64-hash\n")
    assert listed.exported(str(tmp_path))["BASE_CI_FINAL"] == "x86_64,i386-pae,s390"


def test_the_rows_are_read_where_paths_says_configs_are():
    """bases.py cannot import paths.py (paths imports it), so it derives
    the configs directory itself: it must be the one paths gives."""
    assert bases.CONFIGS == paths.CONFIGS
