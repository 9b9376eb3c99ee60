# SPDX-License-Identifier: GPL-2.0
"""harness bench - run time of the series against the base, counted in
instructions.

Builds the base and the series with a runtime config and every debug
option off (the 'bench' variant of scripts/harness boot), and two
controls from the base (with --series-variant V, also the series with
V's config lines, on the configs boot offers V for), then boots them in
turn, --rounds times each, with runtime/rtbench.c as init: a fixed number of operations on
each path the series touches (PTE-table faults and frees, fork and
exit, mremap, THP fault and split, shared hugetlb PMDs, zram).

Every guest runs under '-icount shift=0,sleep=off' on one vCPU.  Its
clock then advances by one nanosecond per instruction executed, so
the time a benchmark measures inside the guest is a count of
instructions, the same on every run whatever the host is doing.  The
wall-clock TCG runs this replaced put a kernel that differed from the
base only in where its code lay at 0.71 to 1.69 times the base.
shift=0 is the finest count (one instruction, one nanosecond), and it
keeps the timer tick as rare per instruction as it can be; sleep=off
makes an idle guest jump to its next timer instead of waiting for the
host's clock, which would bring the host back in.  One vCPU, because
icount runs several vCPUs in turn in one thread, in an order that is
not the program's.  '-seed' and '-rtc base=...,clock=vm' fix the random
numbers and the date QEMU gives the guest.  On x86 the TSC then counts
virtual nanoseconds: tsc_early_khz=1000000 says so and spares the
calibration, and a boot whose clocksource is not the TSC is booted
again.

The method is proven on each config before its ratios count:

- layout control: the base with --shift bytes of padding early in .text
  (init/main.o) that never runs.  Same instructions, every later
  function moved: its times must be the base's within --layout-tol.
- positive control: the base with a loop of a known number of
  instructions (runtime/control-loops.json, per arch) run once per
  mmap() in vm_mmap_pgoff().  mmap-fault-munmap, one mmap() per
  operation, must take that many nanoseconds more per operation, within
  --positive-tol of it; the other benchmarks call mmap() rarely or never.

A config where either control fails gets no ratios, and the report says
why.  The ratio of a benchmark is series time over base time per
operation: 1.005 is 0.5% more instructions; --goal is the bound on the
median.  Instruction counts see no cache, TLB or branch-predictor
effects, and every instruction counts the same.

Results: RESULTS/bench/bench.md, bench.json (scripts/mdesc/results.py
writes both), and each boot's console.  This is a measurement, not a
test: it exits 0 unless a build or a boot failed.
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import time

from .config import Config
from .errors import HarnessError, die, log
from .make import ccache_env
from .paths import BUILD, LINUX, RESULTS, TOP, WORK
from .results import save_bench
from .proc import git

from . import boot as bt

OUT = os.path.join(RESULTS, "bench")
LOOPS = os.path.join(TOP, "runtime", "control-loops.json")
RTBENCH = os.path.join(TOP, "runtime", "rtbench.c")
BOOT_TRIES = 3
ICOUNT_SHIFT = 0
# QEMU's -seed and -rtc base: any fixed number and date make the
# guest's random numbers and its date the same in every boot
# (icount_qemu()).
SEED = 1
DATE = "2026-01-01T00:00:00"
# The benchmark the positive control's loop runs in once per operation.
POSITIVE_BENCH = "mmap-fault-munmap"
CONFIGS = ("x86_64", "arm64", "s390x", "ppc64le")


class BenchError(HarnessError):
    """A control kernel that cannot be made, or benchmark output that
    cannot be compared."""


# ------------------------------------------------------------ the guest

def icount_qemu(command, shift=ICOUNT_SHIFT):
    """The runtime config's QEMU command line on one vCPU under icount,
    with the random numbers and the date QEMU gives the guest fixed.
    s390x's '-cpu max' has the CPACF random-number function (PRNO TRNG),
    which QEMU fills from the host, and its TOD clock starts at the
    host's date: two boots of one s390x kernel read fork-exit 384,766
    and 384,905 ns and mmap-fault-munmap 22,301 and 22,343.  With '-seed'
    alone, boots started in one second agreed, and boots in different
    seconds still did not (pte-fault 2,746 and 2,780 ns); with the date
    fixed too, and advancing with the guest's clock, they agree to
    0.1 ns.  (x86_64's qemu64 and arm64's cortex-a57 have no such
    instruction, and their clocks do not run from the date.)"""
    args = shlex.split(command)
    out, i = [], 0
    while i < len(args):
        if args[i] == "-smp" and i + 1 < len(args):
            i += 2
            continue
        if args[i] in ("-icount", "-seed", "-rtc"):
            raise BenchError(f"the QEMU command already sets {args[i]}: {command}")
        out.append(args[i])
        i += 1
    return shlex.join(out + ["-smp", "1", "-icount", f"shift={shift},sleep=off",
                             "-seed", str(SEED), "-rtc", f"base={DATE},clock=vm"])


def bench_append(cfg, shift=ICOUNT_SHIFT):
    """Kernel command line of a bench boot.  norandmaps and nokaslr:
    where the kernel and the mappings lie must not change between boots,
    as it changes which upper-level tables a benchmark allocates (on
    s390x pte-fault moved by 0.2% between two boots without them, and
    by nothing with them).  On x86 the TSC runs at the icount rate,
    10^9 / 2^shift per second, which the guest is told."""
    append = "norandmaps nokaslr"
    if cfg.arch in ("x86_64", "i386"):
        append += f" tsc=reliable tsc_early_khz={1000000 >> shift}"
    return append


def clocksource(logf):
    """The last clocksource the guest switched to, and whether it ever
    marked its TSC unstable."""
    cs, unstable = None, False
    with open(logf, errors="replace") as f:
        for line in f:
            m = re.search(r"Switched to clocksource (\S+)", line)
            if m:
                cs = m.group(1)
            if "Marking TSC unstable" in line:
                unstable = True
    return cs, unstable


# ------------------------------------------------------ control kernels

def load_loops(path=LOOPS):
    with open(path) as f:
        return {k: v for k, v in json.load(f).items() if k != "about"}


def control_loop(srcarch, loops):
    """(C statement, instructions it executes) of SRCARCH's loop."""
    loop = loops.get(srcarch)
    if loop is None:
        raise BenchError(f"no positive-control loop for arch '{srcarch}' in "
                         f"{os.path.relpath(LOOPS, TOP)} (known: {', '.join(sorted(loops))})")
    n = loop["n"]
    lines = [s.format(n=n, lo=n & 0xffff, hi=n >> 16) for s in loop["asm"]]
    clobbers = ", ".join(f'"{c}"' for c in loop["clobbers"])
    stmt = 'asm volatile("' + "\\n\\t".join(lines) + f'" ::: {clobbers});'
    return stmt, loop["per_iteration"] * n + loop["fixed"]


def with_positive_loop(util_c, stmt, insns):
    """mm/util.c with STMT as the first statement of vm_mmap_pgoff()."""
    m = re.search(r"^unsigned long vm_mmap_pgoff\(.*?\n\{\n(?:\t[^\n]*;\n)*\n", util_c,
                  re.S | re.M)
    if not m:
        raise BenchError("mm/util.c: no vm_mmap_pgoff() with its declarations "
                         "followed by a blank line")
    loop = (f"\t/* harness bench positive control: {insns} instructions per mmap() */\n"
            f"\t{stmt}\n")
    return util_c[:m.end()] + loop + util_c[m.end():]


def with_padding(main_c, shift):
    """init/main.c with SHIFT bytes of .text that nothing runs."""
    return (main_c + f"\n/* harness bench layout control: {shift} bytes that are never run */\n"
            f'asm(".pushsection .text, \\"ax\\"\\n\\t.skip {shift}, 0xcc\\n\\t.popsection");\n')


def control_commit(path, edit, message):  # spawns git
    """A commit on top of the base whose only change is EDIT applied to
    PATH.  Made with a temporary index, so no work tree is touched; with
    the base's dates, so the same edit gives the same commit."""
    base = git("rev-parse", "base")
    src = git("show", f"{base}:{path}")
    blob = subprocess.run(["git", "-C", LINUX, "hash-object", "-w", "--stdin"],
                          input=edit(src), text=True, capture_output=True,
                          check=True).stdout.strip()
    idx = os.path.join(BUILD, "runtime", "bench-control.index")
    os.makedirs(os.path.dirname(idx), exist_ok=True)
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    try:
        subprocess.run(["git", "-C", LINUX, "read-tree", base], env=env, check=True)
        subprocess.run(["git", "-C", LINUX, "update-index", "--cacheinfo",
                        f"100644,{blob},{path}"], env=env, check=True)
        tree = subprocess.run(["git", "-C", LINUX, "write-tree"], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()
    finally:
        if os.path.exists(idx):
            os.unlink(idx)
    when = git("log", "-1", "--format=%cI", base)
    return subprocess.run(
        ["git", "-C", LINUX, "commit-tree", tree, "-p", base, "-m", message],
        env=dict(os.environ, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when),
        check=True, capture_output=True, text=True).stdout.strip()


# ------------------------------------------------------------- analysis

def per_op(bench):
    """Nanoseconds of guest time per unit of each benchmark, from what
    rtbench prints ('RT-BENCH: name ns ns/unit') or from the rates
    rtinit's bench test printed ('RT-BENCH: name rate unit/s')."""
    out = {}
    for name, (value, unit) in bench.items():
        if value <= 0:
            raise BenchError(f"{name}: {value} {unit}: no operation measured")
        out[name] = value if unit.startswith("ns/") else 1e9 / value
    return out


def unit_of(unit):
    """'ns/fork' -> 'fork'; 'forks/s' -> 'fork', 'MiB/s' -> 'MiB'."""
    if unit.startswith("ns/"):
        return unit[3:]
    u = unit.split("/")[0]
    return u[:-1] if u.endswith("s") and u != "MiB" else u


def stats(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def ratios(runs, kind, name):
    """KIND's time over the base's, round by round."""
    return [k[name] / b[name] for b, k in zip(runs["base"], runs[kind])]


def analyse(runs, expected_ns, goal, layout_tol, positive_tol):
    """The method's verdict and, if it holds, the series' ratios.  RUNS
    maps each kind to a list of {benchmark: ns per unit}, one per round."""
    names = list(runs["base"][0])
    out = {"benchmarks": {}, "method": {}}
    for name in names:
        out["benchmarks"][name] = {
            kind: stats([r[name] for r in runs[kind]]) for kind in runs}
    why = []
    if "layout" in runs:
        lay = {n: stats(ratios(runs, "layout", n)) for n in names}
        off = [f"{n} {s['median']:.4f}" for n, s in lay.items()
               if abs(s["median"] - 1) > layout_tol]
        out["method"]["layout"] = {"ratios": lay, "tolerance": layout_tol, "ok": not off}
        if off:
            why.append(f"the layout control is not the base's within {layout_tol}: "
                       + ", ".join(off))
    else:
        why.append("no layout control (--shift 0)")
    if "positive" in runs:
        b = statistics.median(r[POSITIVE_BENCH] for r in runs["base"])
        p = statistics.median(r[POSITIVE_BENCH] for r in runs["positive"])
        seen = p - b
        ok = abs(seen - expected_ns) <= positive_tol * expected_ns
        out["method"]["positive"] = {"benchmark": POSITIVE_BENCH, "expected_ns": expected_ns,
                                     "measured_ns": seen, "tolerance": positive_tol, "ok": ok}
        if not ok:
            why.append(f"the positive control added {seen:.0f} ns per {POSITIVE_BENCH} "
                       f"operation, not {expected_ns} within {positive_tol:.0%}")
    else:
        why.append("no positive control (--no-positive)")
    out["method"]["ok"] = not why
    out["method"]["why"] = "; ".join(why)
    if why:
        return out
    out["ratios"] = {}
    for name in names:
        s = stats(ratios(runs, "series", name))
        s["goal"] = goal
        s["met"] = s["median"] <= goal
        out["ratios"][name] = s
    # A series variant against the series: what the variant costs.
    for kind in (k for k in runs if k.startswith("series+")):
        out.setdefault("variant_ratios", {})[kind] = {
            name: stats([v[name] / s[name] for s, v in zip(runs["series"], runs[kind])])
            for name in names}
    return out


# ---------------------------------------------------------------- runs

def load_reports(path):
    """The sections of an earlier bench.json, or none."""
    try:
        with open(path) as f:
            reports = json.load(f)
    except (OSError, ValueError):
        return []
    return reports if isinstance(reports, list) else []


def merge_report(reports, report):
    """REPORTS with REPORT in place of the section of its config, or
    after them."""
    out = [r for r in reports if r.get("config") != report["config"]]
    at = next((i for i, r in enumerate(reports) if r.get("config") == report["config"]),
              len(out))
    return out[:at] + [report] + out[at:]


def skipped(logf):
    """{benchmark: reason} of the RT-BENCH-SKIP lines of a console."""
    out = {}
    with open(logf, errors="replace") as f:
        for line in f:
            m = re.search(r"RT-BENCH-SKIP: (\S+) (.*)$", line.rstrip("\r\n"))
            if m:
                out[m.group(1)] = m.group(2)
    return out


def build(name, kind, tree, commit, cfg, jobs, env):  # spawns make
    log(f"{name} {kind}: building at {commit[:12]}")
    image, err = bt.build_kernel(cfg, tree, commit, jobs, env,
                                 os.path.join(OUT, f"{name}-{kind}.build.log"))
    if err:
        die(f"{name} {kind}: {err}")
    cpio, err = bt.initramfs_with(cfg, os.path.join(cfg.builddir, "initramfs"), RTBENCH)
    if err:
        die(f"{name} {kind}: {err}")
    return image, cpio


def run_config(config, args, env, loops):  # spawns make and QEMU
    """Build and boot the kernels of one runtime config; its report."""
    path = os.path.join(bt.RUNTIME, config + ".config")
    name = config + "+bench"
    probe = Config(path, "bench", bt.VARIANTS["bench"])
    stmt, insns = control_loop(probe.srcarch, loops)
    expected_ns = insns << args.icount_shift
    # (kind, worktree, commit, config lines besides the bench variant's):
    # the controls are built in the base's worktree, so that ccache sees
    # the same paths and only init/main.o or mm/util.o and the link are
    # new.
    builds = [("base", "base", bt.tree_commit("base"), []),
              ("series", "series", bt.tree_commit("series"), [])]
    if args.shift:
        builds.append(("layout", "base", control_commit(
            "init/main.c", lambda s: with_padding(s, args.shift),
            f"bench: the base with {args.shift} bytes of padding in init/main.o"), []))
    if args.positive:
        builds.append(("positive", "base", control_commit(
            "mm/util.c", lambda s: with_positive_loop(s, stmt, insns),
            f"bench: the base with {insns} instructions more per mmap()"), []))
    # The series again with a series variant's lines on top of the bench
    # variant's (the RFC part's option): compared with the series.  Not
    # with the variant's command line: slab_nomerge is for counting a
    # cache's objects, and would time a kernel nobody runs.
    if args.series_variant:
        if f"{config}+{args.series_variant}" in bt.ALL_VARIANTS:
            builds.append(("series+" + args.series_variant, "series",
                           bt.tree_commit("series"),
                           bt.SERIES_VARIANTS[args.series_variant][0]))
        else:
            log(f"{name}: no series+{args.series_variant} kernel: 'harness boot' has no "
                f"{config}+{args.series_variant}")
    kernels = {}
    for kind, tree, commit, lines in builds:
        builddir = os.path.join(BUILD, "runtime", f"{name}-{kind}")
        cfg = Config(path, "bench", bt.VARIANTS["bench"] + lines, builddir=builddir)
        cfg.meta["qemu"] = icount_qemu(cfg.meta["qemu"], args.icount_shift)
        kernels[kind] = (cfg, *build(name, kind, tree, commit, cfg, args.jobs, env), commit)
    git("checkout", "-q", "--detach", kernels["base"][3], cwd=os.path.join(WORK, "rt-base"))

    append = bench_append(kernels["base"][0], args.icount_shift)
    runs = {k: [] for k in kernels}
    raw = {k: [] for k in kernels}
    skips = {}
    rebooted, t0 = 0, time.time()
    for i in range(args.rounds):
        for kind, (cfg, image, cpio, _) in kernels.items():
            for _attempt in range(BOOT_TRIES):
                logf = os.path.join(OUT, f"{name}-{kind}-{i + 1}.log")
                secs, status = bt.boot(cfg, image, cpio, "bench", args.timeout, logf, append)
                res = bt.evaluate(logf, status)
                if res["verdict"] != "PASS" or not res["bench"]:
                    die(f"{name} {kind} boot {i + 1}: "
                        f"{res['first_failure'] or 'no benchmark output'}")
                cs, unstable = clocksource(logf)
                if "tsc=" not in append or (cs == "tsc" and not unstable):
                    break
                rebooted += 1
                log(f"{name} {kind} boot {i + 1}: clocksource {cs}"
                    f"{', TSC marked unstable' if unstable else ''}: booting again")
            else:
                die(f"{name} {kind} boot {i + 1}: no TSC clocksource in {BOOT_TRIES} boots")
            raw[kind].append({k: list(v) for k, v in res["bench"].items()})
            skips.update(skipped(logf))
            runs[kind].append(per_op(res["bench"]))
            log(f"{name} round {i + 1} {kind} ({secs:.0f} s): " +
                ", ".join(f"{k} {v:,.0f} ns" for k, v in runs[kind][-1].items()))
    units = {k: unit_of(v[1]) for k, v in raw["base"][0].items()}
    report = {"config": name, "qemu": kernels["base"][0].meta["qemu"], "append": append,
              "icount_shift": args.icount_shift, "rounds": args.rounds,
              "kernels": {k: v[3] for k, v in kernels.items()},
              "control_loop": {"statement": stmt, "instructions": insns} if args.positive
              else None,
              "shift": args.shift, "units": units, "rebooted": rebooted,
              "seconds": round(time.time() - t0), "skipped": skips, "raw": raw,
              "per_op": runs}
    report.update(analyse(runs, expected_ns, args.goal, args.layout_tol, args.positive_tol))
    return report


def main(argv=None):  # spawns make and QEMU
    ap = argparse.ArgumentParser(prog="harness bench", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help="runtime configs (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="boots of each kernel, interleaved (default: %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="x86_64 only, three rounds: a quick look")
    ap.add_argument("--goal", type=float, default=1.005,
                    help="bound on the median series/base time ratio (default: %(default)s)")
    ap.add_argument("--shift", type=int, default=96,
                    help="bytes of padding in the layout control, 0 for none "
                    "(default: %(default)s)")
    ap.add_argument("--no-positive", dest="positive", action="store_false",
                    help="no positive control")
    ap.add_argument("--layout-tol", type=float, default=0.005)
    ap.add_argument("--positive-tol", type=float, default=0.10)
    ap.add_argument("--icount-shift", type=int, default=ICOUNT_SHIFT,
                    help="QEMU's -icount shift (default: %(default)s)")
    ap.add_argument("--series-variant", choices=sorted(bt.SERIES_VARIANTS),
                    help="also the series with this variant's config lines, timed "
                    "against the series")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per boot")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    configs = [c for c in args.configs.split(",") if c]
    if args.quick:
        configs, args.rounds = ["x86_64"], 3
    loops = load_loops()
    env = ccache_env()
    os.makedirs(OUT, exist_ok=True)
    # A run of some configs replaces their sections of the last report
    # and keeps the others (each section names its kernels).
    reports = load_reports(os.path.join(OUT, "bench.json"))
    for config in configs:
        reports = merge_report(reports, run_config(config, args, env, loops))
        md = save_bench(OUT, reports)
        log(f"{config}: {reports[-1]['method']['why'] or 'method proven'}; report: "
            f"{os.path.relpath(md, TOP)}")
    return 0
