# SPDX-License-Identifier: GPL-2.0
"""The series file, read as quilt and git am read it."""

import os

import pytest

from mdesc import paths, series
from mdesc.errors import HarnessError

TEXT = """\
###########################################################################
# A build fix for the base
###########################################################################
fixes/0001-LoongArch-include-linux-bitfield.h-in-traps.c.patch

# The descriptor
ptdesc/0001-a.patch
  ptdesc/0002-b.patch -p1   # quilt options after the name
zsdesc/0001-c.patch
"""


def test_parse():
    assert series.parse(TEXT) == [
        "fixes/0001-LoongArch-include-linux-bitfield.h-in-traps.c.patch",
        "ptdesc/0001-a.patch", "ptdesc/0002-b.patch", "zsdesc/0001-c.patch"]


def test_parts_in_order():
    assert series.parts(series.parse(TEXT)) == ["fixes", "ptdesc", "zsdesc"]
    assert series.parts(["x.patch"]) == [""]


def test_part_range():
    entries = series.parse(TEXT)
    commits = ["c1", "c2", "c3", "c4"]
    assert series.part_range("ptdesc", entries, commits) == ("c2", "c3")
    assert series.part_range("zsdesc", entries, commits) == ("c4", "c4")
    assert series.part_range("rfc", entries, commits) is None


def test_the_projects_series_file():
    """The real series: every entry exists under patches/, and every
    patch there but the cover letters (0000-cover-letter.patch) is
    listed: nothing listed that does not exist, nothing exists that is
    not listed."""
    entries = series.read(paths.SERIES)
    assert entries and len(entries) == len(set(entries))
    on_disk = {os.path.relpath(os.path.join(d, f), paths.PATCHES)
               for d, _, fs in os.walk(paths.PATCHES) for f in fs
               if f.endswith(".patch") and not f.startswith("0000-")}
    assert set(entries) == on_disk
    # Its banner keys ('# Depends:', '# Prefix:') read without error.
    with open(paths.SERIES) as f:
        series.meta(f.read())


def test_read_missing_file_is_empty(tmp_path):
    assert series.read(str(tmp_path / "series")) == []


def test_command(tmp_path, capsys):
    f = tmp_path / "series"
    f.write_text(TEXT)
    assert series.main(["parts", "--file", str(f)]) == 0
    assert capsys.readouterr().out == "fixes\nptdesc\nzsdesc\n"
    assert series.main(["entries", "--file", str(f)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4
    with pytest.raises(HarnessError, match="no such series file"):
        series.main(["entries", "--file", str(tmp_path / "nope")])


DEPS = TEXT + """
###########################################################################
# RFC: the descriptor apart from struct page
# Depends: ptdesc
# Prefix: RFC
###########################################################################
rfc/0001-d.patch
# Depends: zsdesc, rfc
more/0001-e.patch
"""


def test_banner_keys_belong_to_the_next_part():
    assert series.parse(DEPS)[-2:] == ["rfc/0001-d.patch", "more/0001-e.patch"]
    m = series.meta(DEPS)
    assert m == {"rfc": {"Depends": ["ptdesc"], "Prefix": ["RFC"]},
                 "more": {"Depends": ["zsdesc", "rfc"]}}
    assert series.depends("rfc", DEPS) == ["ptdesc"]
    # Transitive, in series order, whatever order the key names them.
    assert series.depends("more", DEPS) == ["ptdesc", "zsdesc", "rfc"]
    assert series.depends("ptdesc", DEPS) == []
    assert series.prefix("rfc", DEPS) == ["RFC"]
    assert series.prefix("zsdesc", DEPS) == []
    # The base's own comment lines ("# Base: ...") are not keys.
    assert series.meta(TEXT + "# Base: Debian 6.1\nx/1.patch\n") == {}


@pytest.mark.parametrize("text,msg", [
    ("# Depends: zsdesc\nptdesc/1.patch\nzsdesc/1.patch\n",
     "line 2: part ptdesc depends on zsdesc, which is not a part listed before it"),
    ("ptdesc/1.patch\n# Depends: ptdesc\nptdesc/2.patch\n",
     "part ptdesc depends on ptdesc"),
    ("ptdesc/1.patch\n# Depends:\nrfc/1.patch\n", "line 2: 'Depends:' names nothing"),
    ("ptdesc/1.patch\n# Prefix: RFC\n", "belongs to no part"),
])
def test_bad_banner_keys(text, msg):
    with pytest.raises(HarnessError, match=msg):
        series.meta(text)


def test_command_depends_and_prefix(tmp_path, capsys):
    f = tmp_path / "series"
    f.write_text(DEPS)
    assert series.main(["depends", "more", "--file", str(f)]) == 0
    assert capsys.readouterr().out == "ptdesc\nzsdesc\nrfc\n"
    assert series.main(["prefix", "rfc", "--file", str(f)]) == 0
    assert capsys.readouterr().out == "RFC\n"
    with pytest.raises(HarnessError, match="name a part"):
        series.main(["depends", "--file", str(f)])
    with pytest.raises(HarnessError, match="nope: not a part of"):
        series.main(["prefix", "nope", "--file", str(f)])


def patch(message, diff):
    return (f"From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n{message}\n---\n"
            f" f | 1 +\n\n{diff}-- \n2.39.5\n")


def test_option_entries_are_the_patches_whose_diff_names_the_symbol(tmp_path):
    text = ("x/0001-a.patch\n# RFC\n# Depends: x\n# Option: FOO\n"
            "rfc/0001-b.patch\nrfc/0002-c.patch\nrfc/0003-d.patch\nrfc/0004-e.patch\n"
            "rfc/0005-f.patch\n")
    d = tmp_path / "rfc"
    d.mkdir()
    hunk = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n"
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "0001-a.patch").write_text(patch("m", hunk + "+#ifdef CONFIG_FOO\n"))
    # Named only by the message's bullet list, and in a context line.
    (d / "0001-b.patch").write_text(patch("- before CONFIG_FOO exists", hunk + " CONFIG_FOO\n+x\n"))
    (d / "0002-c.patch").write_text(patch("m", hunk + "+#ifdef CONFIG_FOO\n"))
    # An arch's select of ARCH_SUPPORTS_FOO is the option's too.
    (d / "0003-d.patch").write_text(patch("m", hunk + "+\tselect ARCH_SUPPORTS_FOO\n"))
    # Another symbol with FOO in its name is not.
    (d / "0004-e.patch").write_text(patch("m", hunk + "+#ifdef CONFIG_FOOBAR\n-FOO_X\n"))
    (d / "0005-f.patch").write_text(patch("m", hunk + "-config FOO\n"))
    assert series.option_entries("rfc", text, str(tmp_path)) == [
        "rfc/0002-c.patch", "rfc/0003-d.patch", "rfc/0005-f.patch"]
    # A part without the key has none; x names FOO, but declares nothing.
    assert series.option_entries("x", text, str(tmp_path)) == []


def test_the_rfc_parts_option_specific_patches():
    """The series as it is: the option, the poison, the two selects and
    the KUnit cases of the option (not the set-up they share)."""
    with open(os.path.join(paths.TOP, "series")) as f:
        text = f.read()
    got = [os.path.basename(e)[:4] for e in
           series.option_entries("ptdesc-rfc", text, os.path.join(paths.TOP, "patches"))]
    assert got == ["0006", "0007", "0008", "0011", "0013"]


def test_a_missing_patch_file_is_named(tmp_path):
    text = "# Option: FOO\nrfc/0001-b.patch\n"
    with pytest.raises(HarnessError, match="series entry rfc/0001-b.patch: No such file"):
        series.option_entries("rfc", text, str(tmp_path))


def test_command_parts_except_a_prefix(tmp_path, capsys):
    f = tmp_path / "series"
    f.write_text(DEPS)
    assert series.main(["parts", "--except-prefix", "RFC", "--file", str(f)]) == 0
    kept = capsys.readouterr().out.split()
    assert series.main(["parts", "--file", str(f)]) == 0
    every = capsys.readouterr().out.split()
    assert "rfc" in every and kept == [p for p in every if p != "rfc"]
    with pytest.raises(HarnessError, match="--except-prefix goes with 'parts'"):
        series.main(["entries", "--except-prefix", "RFC", "--file", str(f)])
