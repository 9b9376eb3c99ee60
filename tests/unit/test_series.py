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
