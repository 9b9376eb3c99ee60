# SPDX-License-Identifier: GPL-2.0
"""The series file: patch entries in order, grouped into parts.

A line is a patch path under patches/ ('ptdesc/0003-....patch'); '#'
starts a comment (the banners and the topic lines); the first word of
a line is the entry (quilt allows options after it).  The part of an
entry is its directory: fixes, ptdesc, zsdesc.

A banner may carry keys for the part whose entries follow it, each on
a comment line of its own:

    # Depends: ptdesc     the part applies on top of these earlier parts,
                          not on the base alone (its mail and its check
                          apply them first)
    # Prefix: RFC         words b4 puts before PATCH in the part's subjects
    # Option: SEPARATE_PTDESC
                          the Kconfig symbol the part adds; its patches
                          that add or remove a line naming it are the
                          option-specific ones, which must change no
                          code while the option is off (harness samecode)

quilt and git am see comments only, so the keys change nothing there.
"""

import argparse
import os
import re

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


KEY_RE = re.compile(r"^#\s*(Depends|Prefix|Option):\s*(.*?)\s*$")


def meta(text):
    """{part: {"Depends": [...], "Prefix": [...], "Option": [...]}} from the banner keys
    of a series file's TEXT.  A key belongs to the part of the next
    entry; a part may depend only on parts listed before it."""
    out, pending, seen = {}, {}, []
    for n, line in enumerate(text.splitlines(), 1):
        m = KEY_RE.match(line.strip())
        if m:
            words = m.group(2).replace(",", " ").split()
            if not words:
                raise HarnessError(f"series line {n}: '{m.group(1)}:' names nothing")
            pending.setdefault(m.group(1), []).extend(words)
            continue
        e = line.split("#", 1)[0].strip()
        if not e:
            continue
        part = part_of(e.split()[0])
        if pending:
            for dep in pending.get("Depends", []):
                if dep == part or dep not in seen:
                    raise HarnessError(f"series line {n}: part {part} depends on "
                                       f"{dep}, which is not a part listed before it")
            mine = out.setdefault(part, {})
            for k, v in pending.items():
                mine.setdefault(k, []).extend(x for x in v if x not in mine.get(k, []))
            pending = {}
        if part not in seen:
            seen.append(part)
    if pending:
        raise HarnessError("series: a 'Depends:', 'Prefix:' or 'Option:' line after "
                           "the last entry belongs to no part")
    return out


def depends(part, text):
    """Every part PART needs under it, its own dependencies' first, in
    series order."""
    m = meta(text)
    need, todo = set(), list(m.get(part, {}).get("Depends", []))
    while todo:
        p = todo.pop()
        if p not in need:
            need.add(p)
            todo.extend(m.get(p, {}).get("Depends", []))
    return [p for p in parts(parse(text)) if p in need]


def prefix(part, text):
    """The words before PATCH in PART's subjects ([] for none)."""
    return meta(text).get(part, {}).get("Prefix", [])


def option_entries(part, text, patches):
    """The entries of PART that add or remove a line naming one of its
    'Option:' symbols, in series order: the option-specific patches.
    PATCHES is the directory of the patch files.  [] when the part
    declares no option."""
    names = meta(text).get(part, {}).get("Option", [])
    if not names:
        return []
    bare = [n.removeprefix("CONFIG_") for n in names]
    # CONFIG_NAME, NAME, or a symbol ending in _NAME: the arch's
    # ARCH_SUPPORTS_NAME select belongs to the option too.
    word = re.compile(r"(?:\b|_)(?:" + "|".join(map(re.escape, bare)) + r")\b")
    out = []
    for e in parse(text):
        if part_of(e) != part:
            continue
        try:
            with open(os.path.join(patches, e)) as f:
                text_of = f.read()
        except OSError as err:
            raise HarnessError(f"series entry {e}: {err.strerror}: "
                               f"{os.path.join(patches, e)}")
        # The diff only: a message's bullet list starts lines with '-'.
        diff = text_of[text_of.find("\ndiff --git "):].split("\n-- \n")[0]
        changed = [ln for ln in diff.splitlines()
                   if ln[:1] in ("+", "-") and not ln.startswith(("+++ ", "--- "))]
        if any(word.search(ln) for ln in changed):
            out.append(e)
    return out


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
    ap.add_argument("what", choices=("entries", "parts", "depends", "prefix"),
                    help="depends: the parts PART applies on top of; prefix: the "
                    "words before PATCH in PART's subjects")
    ap.add_argument("part", nargs="?", help="the part, for depends and prefix")
    ap.add_argument("--file", help="the series file (default: SERIES)")
    ap.add_argument("--except-prefix", metavar="WORD",
                    help="with parts: leave out the parts whose 'Prefix:' has WORD "
                    "(RFC: the CI tier builds an RFC part at its final state only)")
    args = ap.parse_args(argv)
    if args.except_prefix and args.what != "parts":
        raise HarnessError("harness series: --except-prefix goes with 'parts'")
    path = args.file or SERIES
    if args.file and not os.path.exists(args.file):
        raise HarnessError(f"{args.file}: no such series file")
    if args.what in ("depends", "prefix"):
        if not args.part:
            raise HarnessError(f"harness series {args.what}: name a part")
        text = ""
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
        if args.part not in parts(parse(text)):
            raise HarnessError(f"{args.part}: not a part of {path}")
        out = depends(args.part, text) if args.what == "depends" else prefix(args.part, text)
    else:
        entries = read(args.file)
        out = entries if args.what == "entries" else parts(entries)
        if args.except_prefix and out:
            with open(path) as f:
                text = f.read()
            out = [p for p in out if args.except_prefix not in prefix(p, text)]
    for x in out:
        print(x)
    return 0
