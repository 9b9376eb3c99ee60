# SPDX-License-Identifier: GPL-2.0
"""The series file: patch entries in order, grouped into parts.

A line is a patch path under patches/ ('ptdesc/0003-....patch'); '#'
starts a comment (the banners and the topic lines); the first word of
a line is the entry (quilt allows options after it).  The part of an
entry is its directory: fixes, ptdesc, zsdesc.
"""

import argparse
import os

from .errors import HarnessError
from .paths import SERIES


def parse(text):
    """The entries of a series file's TEXT, in order."""
    entries = []
    for line in text.splitlines():
        e = line.split("#", 1)[0].strip()
        if e:
            entries.append(e.split()[0])
    return entries


def read(path=None):
    """The entries of the series file at PATH (default SERIES); a
    missing file is an empty series."""
    path = path or SERIES
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return parse(f.read())


def part_of(entry):
    return entry.split("/", 1)[0] if "/" in entry else ""


def parts(entries):
    """The parts of ENTRIES in the order they first appear."""
    out = []
    for e in entries:
        p = part_of(e)
        if p not in out:
            out.append(p)
    return out


def part_range(part, entries, commits):
    """(first, last) of COMMITS that carry PART's ENTRIES, or None."""
    mine = [c for e, c in zip(entries, commits) if part_of(e) == part]
    return (mine[0], mine[-1]) if mine else None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness series",
                                 description="The entries (one per line) or the parts of "
                                 "the series file.")
    ap.add_argument("what", choices=("entries", "parts"))
    ap.add_argument("--file", help="the series file (default: SERIES)")
    args = ap.parse_args(argv)
    if args.file and not os.path.exists(args.file):
        raise HarnessError(f"{args.file}: no such series file")
    entries = read(args.file)
    for x in entries if args.what == "entries" else parts(entries):
        print(x)
    return 0
