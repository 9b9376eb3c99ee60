# SPDX-License-Identifier: GPL-2.0
"""harness samecode - is the code of every function the same in two vmlinux files?

The RFC part's option-specific patches (patches/ptdesc-rfc: the option,
the poison, the arch selects) must change no code while the option is
off.  Build one config twice, from a tree with those patches and from
one without, and compare the images function by function:

 - the functions (name and size) of each image; one that only one image
   has, or whose size differs, is a difference;
 - each function's bytes, read from its section in the file; equal
   bytes are the same code;
 - where the bytes differ, the disassembly with addresses masked (as
   harness bloat masks them): the same instructions with other addresses
   in them (the function moved, or data it uses did) are reported
   apart, as relocated.  Functions that stayed are compared a whole
   section at a time, one objdump per section;
 - anything else differs.

PASS only when no function differs and none is missing from either
side.  Prints one result line; --json writes the report.
"""

import argparse
import collections
import re

from .bloat import disasm, function_table
from .errors import HarnessError, log
from .proc import run
from .results import write_json


def sections(tool, vmlinux):
    """[(address, file offset, size)] of the sections that hold code."""
    out = []
    for line in run([tool + "readelf", "-SW", vmlinux]).stdout.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if m and "X" in m.group(5):
            out.append((int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)))
    return out


class Image:
    """One vmlinux: its functions and a reader of their bytes."""

    def __init__(self, tool, path):
        self.tool, self.path = tool, path
        self.table = function_table(tool, path)
        self.secs = sections(tool, path)
        self.bytes = {}     # section address -> its contents, read once

    def code(self, addr, size):
        for start, off, length in self.secs:
            if start <= addr and addr + size <= start + length:
                if start not in self.bytes:
                    with open(self.path, "rb") as f:
                        f.seek(off)
                        self.bytes[start] = f.read(length)
                return self.bytes[start][addr - start:addr - start + size]
        return None

    def disasm(self, addr, size):
        return disasm(self.tool, self.path, addr, size)

    def section(self, addr):
        """(address, size) of the code section that holds ADDR."""
        return next(((start, length) for start, _, length in self.secs
                     if start <= addr < start + length), None)


def by_name(table):
    """name -> [(address, size)] in the image's order: static functions
    of different objects can share a name."""
    out = collections.defaultdict(list)
    for name, addr, size in table:
        out[name].append((addr, size))
    return out


# One objdump per function: a layout change that moves every function
# would take hours, and says enough by itself.
DISASM_LIMIT = 500


def compare(a, b):
    """The report of images A and B (each with .table, .code(addr, size)
    and .disasm(addr, size))."""
    fa, fb = by_name(a.table), by_name(b.table)
    rep = {"functions": 0, "identical": 0, "relocated": [], "differ": [],
           "only_a": sorted(set(fa) - set(fb)), "only_b": sorted(set(fb) - set(fa))}
    moved = []
    for name in sorted(set(fa) & set(fb)):
        if len(fa[name]) != len(fb[name]):
            rep["differ"].append(f"{name}: {len(fa[name])} against {len(fb[name])} copies")
            continue
        for (xa, sa), (xb, sb) in zip(fa[name], fb[name]):
            rep["functions"] += 1
            if sa != sb:
                rep["differ"].append(f"{name}: {sa} against {sb} bytes")
            elif xa == xb and a.code(xa, sa) == b.code(xb, sb):
                rep["identical"] += 1
            else:
                moved.append((name, xa, xb, sa))
    # Functions at the same address whose bytes differ only in the
    # addresses they use (data that moved: a symbol name one character
    # longer can resize kallsyms and shift all of .rodata by a page):
    # one disassembly of each section they lie in, addresses masked,
    # answers for all of them when the section's reads the same.
    same_sections = set()
    for sec in {a.section(xa) for _, xa, xb, _ in moved if xa == xb} - {None}:
        if a.section(sec[0]) == b.section(sec[0]) and \
                a.disasm(*sec) == b.disasm(*sec):
            same_sections.add(sec)
    rest = []
    for name, xa, xb, size in moved:
        if xa == xb and a.section(xa) in same_sections:
            rep["relocated"].append(name)
        else:
            rest.append((name, xa, xb, size))
    for name, xa, xb, size in rest[:DISASM_LIMIT]:
        if a.disasm(xa, size) == b.disasm(xb, size):
            rep["relocated"].append(name)
        else:
            rep["differ"].append(f"{name}: other instructions")
    rep["differ"] += [f"{name}: moved, not disassembled (over {DISASM_LIMIT})"
                      for name, _, _, _ in rest[DISASM_LIMIT:]]
    rep["relocated"].sort()
    rep["differ"].sort()
    rep["status"] = "FAIL" if rep["differ"] or rep["only_a"] or rep["only_b"] else "PASS"
    return rep


def summary(rep):
    s = (f"{rep['functions']} functions, {rep['identical']} with the same bytes at the same "
         f"address, {len(rep['relocated'])} with the same instructions and other addresses "
         "in them")
    for key, what in (("differ", "differ"), ("only_a", "only in A"), ("only_b", "only in B")):
        if rep[key]:
            s += f"; {len(rep[key])} {what} ({', '.join(rep[key][:3])}" + \
                 (", ..." if len(rep[key]) > 3 else "") + ")"
    return s


def main(argv=None):  # spawns readelf, nm and objdump
    ap = argparse.ArgumentParser(prog="harness samecode", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="vmlinux A")
    ap.add_argument("b", help="vmlinux B")
    ap.add_argument("--cross", default="", help="binutils prefix (CROSS_COMPILE)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    images = []
    for path in (args.a, args.b):
        try:
            images.append(Image(args.cross, path))
        except OSError as e:
            raise HarnessError(f"{path}: {e}")
    if not images[0].table or not images[1].table:
        raise HarnessError("no function symbols: is each file a vmlinux with its symbols?")
    rep = compare(*images)
    rep.update(a=args.a, b=args.b)
    if args.json:
        write_json(args.json, rep)
    print(f"{rep['status']} samecode: {summary(rep)}", flush=True)
    log(f"A {args.a}, B {args.b}")
    return 0 if rep["status"] == "PASS" else 1
