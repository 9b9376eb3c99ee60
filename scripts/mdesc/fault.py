# SPDX-License-Identifier: GPL-2.0
"""harness fault - the runtime stress with allocations failing, base against series.

For each runtime config, builds the base and the series with
configs/fragments/fault.config on top (fault injection and kmemleak;
the runtime test's own kernels stay as they are) and boots each with
runtime/rtfault.c as /init.  rtfault runs the page-table, zram and swap
stress with fail_page_alloc and failslab failing allocations of the
stress processes only (task-filter, make-it-fail), then a kmemleak scan.

Every failure that is not __GFP_NOWARN dumps its stack (verbose 2).
Those dumps are what the injection asks for: they are taken out of the
console before it is judged, and each is classified by its frames (a
page-table allocation, the ptlock, zsmalloc, anything else).  What is
left is judged as the runtime test judges a console (harness boot): any
kernel report fails the run, and so does a failed rtfault check.  A run
in which no injected failure hit a page-table or ptlock allocation
proves nothing about the series and fails too.  Allowed outcomes, which
rtfault tolerates and the report counts: an error from a system call, a
fault retried after its allocation failed ("VM_FAULT_OOM leaked out"),
a zram write error, a swap write error.

Results: RESULTS/fault/NAME-TREE.log (console), NAME-TREE.judged.log
(the console without the injection's dumps), fault.md and fault.json.
This is not part of 'make test'; 'make boot' runs it.
"""

import argparse
import collections
import os
import re

from . import boot as bt
from .config import Config
from .errors import ConfigError, die, log
from .make import ccache_env
from .paths import BASE, BUILD, CONFIGS, RESULTS, TOP
from .results import fault_markdown, load_cells, merge_cells, save_cells

FRAGMENT = os.path.join(CONFIGS, "fragments", "fault.config")
RTFAULT = os.path.join(TOP, "runtime", "rtfault.c")
OUT = os.path.join(RESULTS, "fault")
DEFAULT_CONFIGS = "x86_64,arm64,i386,s390x"
TESTS = "ptfault,zramfault,swapfault,kmemleak"
# failslab's cache filter: 6.1's /sys/kernel/slab/*/failslab is
# read-only, so the mark is set at boot ('A' is SLAB_FAILSLAB).
APPEND = "slub_debug=A,page->ptl"
# Per runtime config, what its kernel needs on the command line besides.
# i386: the first kmemleak scan oopses in scan_block() on a lowmem page
# that DEBUG_PAGEALLOC has unmapped (BUG: unable to handle page fault for
# address f7503000, kmemleak_scan < scan_gray_list < scan_block), on the
# base as with the series: Documentation/runtime.md, "Injected failures".
CONFIG_APPEND = {"i386": "debug_pagealloc=off"}

# Frames that make an injected failure a page-table allocation, on the
# four arches this runs on and the others: the generic entry points
# (mm/memory.c), the arch hooks that are real functions, and s390's and
# powerpc's table allocators.  Anything inlined into these counts as them.
PT_FRAMES = {
    "__pte_alloc", "__pte_alloc_kernel", "__pmd_alloc", "__pud_alloc", "__p4d_alloc",
    "pte_alloc_one", "pte_alloc_one_kernel", "__pte_alloc_one", "pmd_alloc_one",
    "pud_alloc_one", "pgd_alloc", "_pgd_alloc", "preallocate_pmds", "pagetable_alloc",
    "crst_table_alloc", "page_table_alloc", "page_table_alloc_pgste", "pte_fragment_alloc",
    "pmd_fragment_alloc", "get_pointer_table", "__pgd_alloc", "pgtable_alloc",
}
PTLOCK_FRAMES = {"ptlock_alloc"}
ZS_FRAMES = {"alloc_zspage", "zs_malloc", "cache_alloc_handle", "cache_alloc_zspage",
             "zs_zpool_malloc"}
KINDS = ("ptlock", "page-table", "zsmalloc", "other")
# Every injected failure's stack passes through one of these.
INJECT_FRAMES = {"should_fail_ex", "should_fail", "should_failslab", "__should_failslab",
                 "should_fail_alloc_page", "fail_dump"}

# Lines a run may show that are outcomes 6.1 gives an allocation that
# failed, not reports; counted, never judged.
OUTCOMES = {
    "fault retried": re.compile(r"VM_FAULT_OOM leaked out"),
    "swap write error": re.compile(r"Write-error on swap-device"),
    "I/O error": re.compile(r"I/O error"),
}

TS_RE = re.compile(r"^\[\s*\d+\.\d+\]\s?")
FI_RE = re.compile(r"FAULT_INJECTION: forcing a failure")
NAME_RE = re.compile(r"^name (\S+), interval \d+, probability \d+, space -?\d+, times -?\d+")
TRACE_RE = re.compile(r"^Call [Tt]race:")
# A frame; x86 marks with '? ' the addresses it found on the stack but
# could not tie to a call, which say nothing about this allocation.
FRAME_RE = re.compile(r"^\s*(?:\[<[0-9a-f]+>\]\s*)?(\? )?([A-Za-z_.$][\w.$]*)"
                      r"\+0x[0-9a-f]+/0x[0-9a-f]+")
# Lines of a trace that are not frames: x86's stack markers and the user
# registers it prints where the stack enters from user space (RIP, Code,
# RSP, RAX, ...; i386 EIP, EAX, DS, ...), s390's breaking-event address.
MARK_RE = re.compile(r"^\s*(</?(TASK|IRQ|NMI|SOFTIRQ)>|Last Breaking-Event-Address:|"
                     r"(RIP|EIP|Code|RSP|ESP|RAX|EAX|RBX|RCX|RDX|ESI|RSI|RBP|EBP|R\d+|DS|"
                     r"CR\d|DR\d|FS|GS):)")
# Lines that may come inside a dump's stack without ending it: with
# lockdep, s390's show_stack() lists the locks the task holds ("1 lock
# held by init/37:", " #0: ... (&mm->mmap_lock){++++}-{3:3}, at: ..."),
# which s390's console splits into pieces when two CPUs print at once;
# and the one-line outcomes another CPU prints meanwhile.
BETWEEN_RE = re.compile(r"locks? held by \S+|^\s*#\d+:|\{[-+.?]+\}-\{\d:\d\}|"
                        r"^\s*[0-9a-f]{16}\s*(\(|$)|VM_FAULT_OOM leaked out|"
                        r"pagefault_out_of_memory: \d+ callbacks suppressed|"
                        r"Write-error on swap-device")
HEAD_RE = re.compile(r"^(CPU: \d+ PID: \d+ Comm:|Hardware name:)")
TEST_RE = re.compile(r"RT-TEST: (\S+)")
COUNT_RE = re.compile(r"RT-FAULT: (\S+) (\S+) injected (-?\d+) cap (\d+)")


def fragment_lines(path=FRAGMENT):
    """The Kconfig lines of the fault fragment, merged last."""
    with open(path) as f:
        lines = [ln.strip() for ln in f
                 if re.match(r"^(CONFIG_\w+=.*|# CONFIG_\w+ is not set)$", ln.strip())]
    if not lines:
        raise ConfigError(f"{path}: no CONFIG_ lines")
    return lines


def kind_of(frames):
    """What an injected failure hit, from the frames of its stack."""
    names = {f.split(".")[0] for f in frames}
    if names & PTLOCK_FRAMES:
        return "ptlock"
    if names & PT_FRAMES:
        return "page-table"
    if names & ZS_FRAMES:
        return "zsmalloc"
    return "other"


def split_console(lines):
    """Take the injection's own output out of a console.  Returns
    (kept lines, injections); an injection is a dict with the
    capability's name, the test that was running (RT-TEST; 'boot'
    before the first), its frames and its kind.

    A dump is 'FAULT_INJECTION: forcing a failure.', the capability's
    line, then dump_stack(): the CPU and hardware lines, 'Call Trace:',
    frames, markers and (x86) user registers.  While a dump waits for
    its stack, such lines are held as a block until a line of another
    kind ends it; a block whose frames pass through the injection
    (INJECT_FRAMES) is the oldest waiting dump's, any other block (a
    WARNING's stack, an OOM report's) is kept as it came.  Another CPU's
    stack starts a block of its own; another dump's first two lines,
    printed outside dump_stack()'s lock, may come inside a block and do
    not end it."""
    kept, injections, waiting, block, test = [], [], [], [], "boot"

    def flush():
        frames = [f for _, f, _ in block if f]
        if any(t for _, _, t in block) and waiting and \
                INJECT_FRAMES & {f.split(".")[0] for f in frames}:
            waiting.pop(0)["frames"] = frames
        else:
            kept.extend(raw for raw, _, _ in block)
        block.clear()

    for raw in lines:
        line = TS_RE.sub("", raw.rstrip("\r\n"))
        m = TEST_RE.search(line)
        if m:
            test = m.group(1)
        if FI_RE.search(line):
            # Printed outside dump_stack()'s lock: it may come in the
            # middle of another CPU's stack, which goes on after it.
            d = {"capability": None, "test": test, "frames": []}
            injections.append(d)
            waiting.append(d)
            continue
        m = NAME_RE.match(line)
        if m and any(d["capability"] is None for d in waiting):
            next(d for d in waiting if d["capability"] is None)["capability"] = m.group(1)
            continue
        if block and BETWEEN_RE.search(line):
            kept.append(raw)
            continue
        frame = FRAME_RE.match(line)
        trace = bool(TRACE_RE.match(line))
        if waiting and (HEAD_RE.match(line) or trace or frame or MARK_RE.match(line)):
            if (trace or line.startswith("CPU: ")) and any(t for _, _, t in block):
                flush()
            block.append((raw, frame.group(2) if frame and not frame.group(1) else None, trace))
            continue
        flush()
        kept.append(raw)
    flush()
    for d in injections:
        d["kind"] = kind_of(d["frames"])
    return kept, injections


def injected_counts(lines):
    """{test: {capability: (injected, cap)}} from rtfault's RT-FAULT
    lines: what 'times' counted down, __GFP_NOWARN failures included."""
    out = {}
    for line in lines:
        m = COUNT_RE.search(line)
        if m:
            out.setdefault(m.group(1), {})[m.group(2)] = (int(m.group(3)), int(m.group(4)))
    return out


def outcomes(lines):
    """How many lines of each allowed outcome a console shows."""
    return {k: sum(1 for ln in lines if r.search(ln)) for k, r in OUTCOMES.items()}


def summary(injections):
    """Per test: how many dumps of each kind, and the callers that the
    page-table and ptlock failures came through."""
    out = {}
    for d in injections:
        t = out.setdefault(d["test"], {"dumps": 0, **{k: 0 for k in KINDS}})
        t["dumps"] += 1
        t[d["kind"]] += 1
    return out


def pt_sites(injections, limit=12):
    """The page-table and ptlock frames the dumps went through, most
    common first: where in the series' code the failures landed."""
    c = collections.Counter()
    for d in injections:
        if d["kind"] in ("ptlock", "page-table"):
            names = [f for f in d["frames"] if f.split(".")[0] in PT_FRAMES | PTLOCK_FRAMES]
            c[" < ".join(dict.fromkeys(names))] += 1
    return c.most_common(limit)


def judge(cell, logf, status, tree):  # spawns the tree's kunit.py
    """Fill CELL: the runtime test's verdict on the console without the
    injection's dumps, then the counts, and a failure when nothing hit a
    page-table or ptlock allocation."""
    with open(logf, errors="replace") as f:
        lines = f.readlines()
    kept, injections = split_console(lines)
    judged = logf[:-len(".log")] + ".judged.log"
    with open(judged, "w") as f:
        f.writelines(kept)
    bt.judge(cell, judged, status, tree)
    cell["injected"] = injected_counts(lines)
    cell["dumps"] = summary(injections)
    cell["pt_sites"] = pt_sites(injections)
    cell["outcomes"] = outcomes(kept)
    hits = sum(t["ptlock"] + t["page-table"] for k, t in cell["dumps"].items() if k != "boot")
    cell["pt_hits"] = hits
    if cell["verdict"] == "PASS" and not hits:
        cell.update(verdict="FAIL",
                    reason="no injected failure hit a page-table or ptlock allocation")


def rejudge(names, trees):  # spawns the trees' kunit.py
    """Judge the kept consoles of NAMES and TREES again: the verdict is
    the harness's reading of a console, which a fix to it changes while
    the boot stays what it was."""
    cells, bad = load_cells(os.path.join(OUT, "fault.json")), 0
    for old in list(cells):
        name = old["config"].partition("+")[0]
        logf = os.path.join(OUT, f"{name}-{old['tree']}.log")
        if name not in names or old["tree"] not in trees or "seconds" not in old:
            continue
        if not os.path.exists(logf):
            die(f"no console {logf} to judge again")
        kept = ("config", "tree", "commit", "tests", "append", "build_seconds", "debug",
                "seconds")
        cell = {k: old[k] for k in kept if k in old}
        judge(cell, logf, old["qemu_status"], old["tree"])
        bad += cell["verdict"] == "FAIL"
        log(f"{old['config']} {old['tree']}: {cell['verdict']}" +
            (f" ({cell['reason']})" if cell.get("reason") else "") + f" (was {old['verdict']})")
        cells = merge_cells(cells, cell)
    save_cells(OUT, "fault", cells, fault_markdown(cells, ("base", "series")))
    return 1 if bad else 0


def main(argv=None):  # spawns kernel builds and QEMU
    ap = argparse.ArgumentParser(prog="harness fault", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default=DEFAULT_CONFIGS,
                    help="comma-separated runtime configs (default: %(default)s)")
    ap.add_argument("--trees", default="base,series", help="default: %(default)s")
    ap.add_argument("--tests", default=TESTS, help="rtfault tests (default: %(default)s)")
    ap.add_argument("--append", default="", help="extra kernel command line")
    ap.add_argument("--timeout", type=int, default=1500, help="seconds per boot")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--rejudge", action="store_true",
                    help="judge the consoles of the last run again, with this harness: "
                         "no build, no boot")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    if args.rejudge:
        return rejudge(args.configs.split(","), args.trees.split(","))

    extra = fragment_lines()
    env = ccache_env()
    trees = args.trees.split(",")
    commits = bt.tree_commits(trees)
    os.makedirs(OUT, exist_ok=True)
    # A run of some configs replaces their cells of the last report and
    # keeps the others.
    cells, bad = load_cells(os.path.join(OUT, "fault.json")), 0
    for name in args.configs.split(","):
        path = os.path.join(bt.RUNTIME, name + ".config")
        if not os.path.exists(path):
            die(f"no runtime config {path}")
        append = " ".join(filter(None, (APPEND, CONFIG_APPEND.get(name), args.append)))
        for tree in trees:
            tag = f"{name}+fault {tree}"
            cell = {"config": name + "+fault", "tree": tree, "commit": commits[tree],
                    "tests": args.tests, "append": append}
            builddir = os.path.join(BUILD, "runtime", f"{name}+fault-{tree}")
            # The base's own 'runtime-off' symbols come last, as in harness boot.
            cfg = Config(path, "fault", extra + [f"# {sym} is not set" for sym in BASE.runtime_off],
                         builddir=builddir)
            why = bt.missing_tools(cfg)
            if why:
                cell.update(verdict="SKIP", reason=why)
            else:
                image, cpio, err = bt.build_with_init(
                    cell, cfg, tree, commits[tree], RTFAULT, os.path.join(builddir, "initramfs"),
                    args.jobs, env, os.path.join(OUT, f"{name}-{tree}.build.log"))
                # A kernel that does not build fails; an init that does not
                # compile for this arch is a test that cannot run.
                if err:
                    cell.update(verdict="FAIL" if err[0] == "build" else "SKIP", reason=err[1])
            if "verdict" not in cell and args.build_only:
                cell.update(verdict="BUILT", reason=None)
            if "verdict" not in cell:
                logf = os.path.join(OUT, f"{name}-{tree}.log")
                log(f"{tag}: booting (log: {os.path.relpath(logf, TOP)})")
                secs, status = bt.boot(cfg, image, cpio, args.tests, args.timeout, logf, append)
                cell["seconds"] = round(secs, 1)
                judge(cell, logf, status, tree)
            if cell["verdict"] == "FAIL":
                bad += 1
            log(f"{tag}: {cell['verdict']}" +
                (f" ({cell['reason']})" if cell.get("reason") else "") +
                (f" in {cell['seconds']:.0f} s" if "seconds" in cell else "") +
                (f"; {cell['pt_hits']} injected failures hit page-table or ptlock "
                 "allocations" if "pt_hits" in cell else ""))
            cells = merge_cells(cells, cell)
            save_cells(OUT, "fault", cells, fault_markdown(cells, ("base", "series")))
    log(f"report: {os.path.relpath(os.path.join(OUT, 'fault.md'), TOP)}")
    return 1 if bad else 0
