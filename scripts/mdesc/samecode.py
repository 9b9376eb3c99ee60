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
   apart, as relocated; with --configs, the same instructions but for
   numbers that differ by a line shift of B's sources to A's (a
   __LINE__ a WARN passes, where the arch has no bug table) are
   reported apart too, as line numbers.  Functions that stayed are compared a whole
   section at a time, one objdump per section;
 - anything else differs.

PASS only when no function differs and none is missing from either
side.  Prints one result line; --json writes the report.

With --configs it builds both sides itself, for every matrix row whose
compiler is here and that does not turn the option on (--part names
the part, ptdesc-rfc by default):

 - A is the head of the series (branch 'series'), linked in the
   directory 'harness bloat' uses for the same row (BUILD/bloat/ROW-
   series), so the two share the build;
 - B is the series without PART's option-specific patches (series.py:
   those whose diff names the symbol of the part's 'Option:' key), made
   by cherry-picking every later commit onto the one before the first
   of them, in the worktree WORK/rt-optionfree, and left as branch
   'optionfree'.  Committer dates are the originals', so the same
   series makes the same commit.

A verdict that passed is kept in the verdict cache by both trees'
hashes, the row, KCFLAGS, the compiler and the binutils that read the
images: a second run builds nothing.  The binutils are the row's cross
ones, or LLVM's (llvm-nm, llvm-objdump, llvm-readelf) for a clang row.
Results: RESULTS/samecode/ROW.json, samecode.json and samecode.md.
Prints 'PASS|FAIL|SKIP samecode/ROW: detail' lines.
"""

import argparse
import collections
import glob
import os
import re
import time

from . import build, cache, series
from .bloat import disasm, function_table
from .config import Config
from .errors import HarnessError, ToolchainMissing, log, warn
from .make import ccache_env
from .paths import BASE_TAG, BRANCH, BUILD, CONFIGS, PATCHES, RESULTS, SERIES, WORK
from .proc import git, run
from .results import write_json, write_text
from .worktree import ensure_worktree, tree_commit

OUT = os.path.join(RESULTS, "samecode")
OPTIONFREE = "optionfree"


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


NUMBER_RE = re.compile(r"\b(?:0x[0-9a-f]+|[0-9]+)\b")
# The assembler picks a move's encoding by its immediate: in Thumb-2,
# 5376 (0x1500) fits a modified immediate and is 'mov.w', 5375 needs
# 'movw'.  Both load the number into the register.
MOVE_RE = re.compile(r"^mov(?:\.w|w)?\b")


# m68k pushes the line of a WARN or a BUG as an absolute address, which
# objdump prints in hex without its 0x and with the symbol it falls in:
# 'pea 3e7 <inx2a_mask+X>' is line 999.  Only pea's operand is taken
# for a number: a call's or a jump's target that moved is not one.
PEA_HEX_RE = re.compile(r"^(pea\s+)([0-9a-f]+)(?= <)")


def numbers_written(ins):
    """INS with a pea's bare hex operand written with its 0x."""
    return PEA_HEX_RE.sub(r"\g<1>0x\2", ins)


def skeleton(ins):
    """An instruction with its numbers, and its move encoding, left out."""
    return MOVE_RE.sub("mov", NUMBER_RE.sub("N", ins))


def only_line_numbers(da, db, shifts):
    """True if disassemblies DA and DB differ only in numbers (an
    immediate, a literal-pool word) and each differing number of A is
    B's plus one of SHIFTS: a __LINE__ that the option's patches moved.
    Architectures without a bug table pass the line of a WARN to a
    function (32-bit arm: 'movw r1, #5931'; m68k: 'pea 172b <sym+X>'),
    so one line added at the top of mm/page_alloc.c changes the code of
    every function below it that warns, and nothing else."""
    if not shifts or len(da) != len(db):
        return False
    seen = False
    for x, y in zip(da, db):
        if x == y:
            continue
        x, y = numbers_written(x), numbers_written(y)
        if skeleton(x) != skeleton(y):
            return False
        for u, v in zip(NUMBER_RE.findall(x), NUMBER_RE.findall(y)):
            if u != v and int(u, 0) - int(v, 0) not in shifts:
                return False
        seen = True
    return seen


def compare(a, b, shifts=frozenset()):
    """The report of images A and B (each with .table, .code(addr, size)
    and .disasm(addr, size)).  SHIFTS: the line shifts from B's sources
    to A's (line_shifts()); a function whose instructions differ only
    by one of them in a number is reported apart, as line_numbers."""
    fa, fb = by_name(a.table), by_name(b.table)
    rep = {"functions": 0, "identical": 0, "relocated": [], "line_numbers": [],
           "differ": [], "only_a": sorted(set(fa) - set(fb)),
           "only_b": sorted(set(fb) - set(fa))}
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
        da, db = a.disasm(xa, size), b.disasm(xb, size)
        if da == db:
            rep["relocated"].append(name)
        elif only_line_numbers(da, db, shifts):
            rep["line_numbers"].append(name)
        else:
            rep["differ"].append(f"{name}: other instructions")
    rep["differ"] += [f"{name}: moved, not disassembled (over {DISASM_LIMIT})"
                      for name, _, _, _ in rest[DISASM_LIMIT:]]
    rep["relocated"].sort()
    rep["line_numbers"].sort()
    rep["differ"].sort()
    rep["status"] = "FAIL" if rep["differ"] or rep["only_a"] or rep["only_b"] else "PASS"
    return rep


def summary(rep):
    s = (f"{rep['functions']} functions, {rep['identical']} with the same bytes at the same "
         f"address, {len(rep['relocated'])} with the same instructions and other addresses "
         "in them")
    if rep.get("line_numbers"):
        s += (f", {len(rep['line_numbers'])} with the same instructions and other line "
              f"numbers ({', '.join(rep['line_numbers'][:3])}"
              + (", ..." if len(rep["line_numbers"]) > 3 else "") + ")")
    for key, what in (("differ", "differ"), ("only_a", "only in A"), ("only_b", "only in B")):
        if rep[key]:
            s += f"; {len(rep[key])} {what} ({', '.join(rep[key][:3])}" + \
                 (", ..." if len(rep[key]) > 3 else "") + ")"
    return s


def optionfree_commit(part, text):
    """(commit, option-specific entries): the series without PART's
    option-specific patches, made in the worktree WORK/rt-optionfree and
    kept as branch 'optionfree'.  TEXT is the series file's."""
    entries = series.parse(text)
    if part not in series.parts(entries):
        raise HarnessError(f"{part}: not a part of {SERIES}")
    opt = series.option_entries(part, text, PATCHES)
    if not opt:
        raise HarnessError(f"part {part} has no option-specific patch: its banner in "
                           f"{SERIES} needs an 'Option:' key naming a symbol its patches add")
    commits = git("rev-list", "--reverse", f"{BASE_TAG}..{BRANCH}").split()
    if len(commits) != len(entries):
        raise HarnessError(f"branch {BRANCH} has {len(commits)} commits and {SERIES} "
                           f"{len(entries)} entries: run 'make apply'")
    first = entries.index(opt[0])
    wt = os.path.join(WORK, "rt-" + OPTIONFREE)
    # The worktree is this command's own: what a killed run left in it
    # (a cherry-pick stopped half-way) is dropped, not refused.
    ensure_worktree(wt)
    if git("status", "--porcelain", "--untracked-files=no", cwd=wt):
        log(f"repaired: {wt}: dropped what an interrupted run left")
    run(["git", "-C", wt, "cherry-pick", "--abort"], check=False)
    run(["git", "-C", wt, "checkout", "-q", "-f", "--detach", commits[first] + "^"])
    for e, c in zip(entries[first:], commits[first:]):
        if e in opt:
            continue
        name, mail, date = git("log", "-1", "--format=%cn%n%ce%n%cI", c).split("\n")
        env = dict(os.environ, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=mail,
                   GIT_COMMITTER_DATE=date)
        p = run(["git", "-C", wt, "cherry-pick", "--allow-empty", c], env=env, check=False)
        if p.returncode:
            run(["git", "-C", wt, "cherry-pick", "--abort"], check=False)
            run(["git", "-C", wt, "checkout", "-q", "-f", "--detach", "HEAD"], check=False)
            why = next((ln for ln in p.stdout.splitlines() if ln.startswith("error")),
                       p.stdout.strip().splitlines()[0] if p.stdout.strip() else "")
            raise HarnessError(f"{e} does not apply without the option-specific patches "
                               f"({', '.join(os.path.basename(o) for o in opt)}): {why}")
    head = git("rev-parse", "HEAD", cwd=wt)
    git("branch", "-f", OPTIONFREE, head)
    return head, opt


HUNK_RE = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def line_shifts(diff):
    """The set of line shifts a unified diff (-U0) makes: after each
    hunk of a file, how far a line below it moved.  A __LINE__ in a
    function below the hunk changes by exactly that much."""
    out, shift = set(), 0
    for ln in diff.splitlines():
        if ln.startswith("diff --git "):
            shift = 0
            continue
        m = HUNK_RE.match(ln)
        if m:
            old_n = int(m.group(1) if m.group(1) is not None else 1)
            new_n = int(m.group(2) if m.group(2) is not None else 1)
            shift += new_n - old_n
            if shift:
                out.add(shift)
    return frozenset(out)


def turns_on(cfg, option_names):
    """The first line of CFG (its own, or its '# needs:') that turns one
    of OPTION_NAMES on, or None."""
    want = {f"CONFIG_{o.removeprefix('CONFIG_')}" for o in option_names}
    for ln in cfg.lines:
        if ln.endswith("=y") and ln[:-2] in want:
            return ln
    return next((n for n in cfg.needs if n in want), None)


def rows(names, option_names):
    """[(path, None)] for the matrix rows NAMES (comma-separated, or
    'all'), and [(path, reason)] for those 'all' leaves out: a row that
    turns one of OPTION_NAMES on would not compare with it off."""
    if names == "all":
        paths = sorted(glob.glob(os.path.join(CONFIGS, "*.config")))
    else:
        paths = [os.path.join(CONFIGS, n + ".config") for n in names.split(",")]
    out = []
    for p in paths:
        if not os.path.exists(p):
            raise HarnessError(f"{p}: no such matrix row")
        cfg = Config(p)
        on = turns_on(cfg, option_names)
        if on and names != "all":
            raise HarnessError(f"{cfg.name} turns {on} on: samecode compares with it off")
        out.append((p, f"turns {on} on" if on else None))
    return out


def binutils(cfg):
    """The prefix of the nm, objdump and readelf that read CFG's images:
    its cross binutils, or LLVM's for a clang row (GNU objdump cannot
    disassemble hexagon).  From compiler(), not make_vars(), which names
    bare commands for distcc's helpers."""
    extra = cfg.compiler()[1]
    if "LLVM" in extra:
        return os.path.join(extra["LLVM"], "llvm-")
    return extra.get("CROSS_COMPILE", "")


def compare_files(tool, a, b, shifts=frozenset()):
    """The report of vmlinux files A and B; HarnessError if either
    cannot be read or has no function symbols."""
    images = []
    for path in (a, b):
        try:
            images.append(Image(tool, path))
        except OSError as e:
            raise HarnessError(f"{path}: {e}")
        if not images[-1].table:
            raise HarnessError(f"{path}: no function symbols: is it a vmlinux with "
                               "its symbols?")
    return compare(*images, shifts)


def compare_row(path, commits, jobs, env, shifts=frozenset()):
    """The record of one matrix row: both sides built and compared.  A
    failure of either is the row's FAIL, never the run's end."""
    name = os.path.basename(path)[:-len(".config")]
    cfgs = {"series": Config(path, builddir=os.path.join(BUILD, "bloat", f"{name}-series")),
            OPTIONFREE: Config(path, builddir=os.path.join(BUILD, "samecode",
                                                           f"{name}-{OPTIONFREE}"))}
    rec = {"config": name}
    try:
        cc = cfgs["series"].compiler()[0]
    except ToolchainMissing as e:
        return dict(rec, status="SKIP", reason=str(e))
    tool = binutils(cfgs["series"])
    inputs = {"config": cfgs["series"].digest(), "cc": cache.compiler_id(cc),
              "binutils": cache.compiler_id(tool + "objdump"),
              "kcflags": os.environ.get("KCFLAGS", ""),
              **{t: git("rev-parse", c + "^{tree}") for t, c in commits.items()}}
    hit = cache.get("samecode", inputs)
    if hit:
        return dict(hit["record"], cached=True)
    rec["build_seconds"], err = build.build_vmlinux_pair(name, cfgs, commits, jobs, env, OUT)
    if err:
        return dict(rec, status="FAIL", reason=err)
    t0 = time.time()
    try:
        rep = compare_files(tool, *(os.path.join(c.builddir, "vmlinux")
                                    for c in cfgs.values()), shifts)
    except HarnessError as e:
        return dict(rec, status="FAIL", reason=str(e))
    rec.update(rep, compare_seconds=round(time.time() - t0), reason=summary(rep))
    if rec["status"] == "PASS":
        cache.put("samecode", inputs, rec)
    return rec


def cell(text):
    """TEXT in a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(part, commits, opt, report):
    """samecode.md: the two sides, then a row per matrix row, with the
    counts where the row was compared and the reason where it was not."""
    out = [f"# harness samecode: {part} with its option off", "",
           f"- A: `{BRANCH}` at {commits['series'][:12]}",
           f"- B: `{OPTIONFREE}` at {commits[OPTIONFREE][:12]}, without " +
           ", ".join(f"`{os.path.basename(o)}`" for o in opt), "",
           "| config | status | functions | same bytes | same instructions, other "
           "addresses | other line numbers | differ | only in A | only in B | reason |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in report:
        if "functions" in r:
            out.append(f"| {r['config']} | {r['status']} | {r['functions']} | "
                       f"{r['identical']} | {len(r['relocated'])} | "
                       f"{len(r.get('line_numbers', []))} | {len(r['differ'])} | "
                       f"{len(r['only_a'])} | {len(r['only_b'])} | "
                       f"{cell(', '.join(r['differ'][:3]))} |")
        else:
            out.append(f"| {r['config']} | {r['status']} | | | | | | | | "
                       f"{cell(r.get('reason', ''))} |")
    return "\n".join(out) + "\n"


def build_and_compare(args):
    """--configs: build both sides of every row, compare, report."""
    with open(SERIES) as f:
        text = f.read()
    option_names = series.meta(text).get(args.part, {}).get("Option", [])
    todo = rows(args.configs, option_names)
    env = ccache_env()
    os.makedirs(OUT, exist_ok=True)
    head, opt = optionfree_commit(args.part, text)
    commits = {"series": tree_commit("series"), OPTIONFREE: head}
    shifts = line_shifts(git("diff", "-U0", head, commits["series"], "--", "*.c", "*.h"))
    log(f"B: {OPTIONFREE} at {head[:12]}, the series without {len(opt)} patches of "
        f"{args.part}; {len(todo)} rows")
    report, bad = [], 0
    for n, (path, left_out) in enumerate(todo, 1):
        name = os.path.basename(path)[:-len(".config")]
        if left_out:
            rec = {"config": name, "status": "SKIP", "reason": left_out}
        else:
            rec = compare_row(path, commits, args.jobs, env, shifts)
            write_json(os.path.join(OUT, rec["config"] + ".json"), rec)
        report.append(rec)
        bad += rec["status"] == "FAIL"
        how = " (cached)" if rec.get("cached") else ""
        print(f"{rec['status']} samecode/{rec['config']}: {rec.get('reason', '')}{how}",
              flush=True)
        log(f"[{n}/{len(todo)}] done")
    write_json(os.path.join(OUT, "samecode.json"),
               {"part": args.part, "a": commits["series"], "b": commits[OPTIONFREE],
                "left_out": opt, "rows": report})
    write_text(os.path.join(OUT, "samecode.md"), markdown(args.part, commits, opt, report))
    if not any(r["status"] in ("PASS", "FAIL") for r in report):
        warn("no row was compared: every one was skipped")
    return 1 if bad else 0


def main(argv=None):  # spawns readelf, nm and objdump
    ap = argparse.ArgumentParser(prog="harness samecode", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", nargs="?", help="vmlinux A")
    ap.add_argument("b", nargs="?", help="vmlinux B")
    ap.add_argument("--cross", default="", help="binutils prefix (CROSS_COMPILE)")
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--configs", help="build A and B for these matrix rows "
                    "(comma-separated, or 'all') instead of reading two files")
    ap.add_argument("--part", default="ptdesc-rfc",
                    help="the part whose option is off (default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    if args.configs:
        if args.a or args.b:
            raise HarnessError("give two vmlinux files or --configs, not both")
        return build_and_compare(args)
    if not (args.a and args.b):
        raise HarnessError("give two vmlinux files, or --configs")
    rep = compare_files(args.cross, args.a, args.b)
    rep.update(a=args.a, b=args.b)
    if args.json:
        write_json(args.json, rep)
    print(f"{rep['status']} samecode: {summary(rep)}", flush=True)
    log(f"A {args.a}, B {args.b}")
    return 0 if rep["status"] == "PASS" else 1
