# SPDX-License-Identifier: GPL-2.0
"""harness bench - run time of the series against the base, A B A B.

Builds the base and the series with a runtime config and every debug
option off (the 'bench' variant of scripts/harness boot), then boots
them alternately, --pairs times each, under the same QEMU settings, and
runs rtinit's microbenchmarks: fork+exit, mmap/touch/munmap of 2 MiB,
page-fault throughput and zram write/read throughput.  For each pair
the series/base ratio of every benchmark (higher is better for all of
them) is taken; the report gives min/median/max of the ratios and says
whether the median meets --goal (default 0.99).

Two things keep TCG from fooling the comparison.  On x86 the guest's
TSC is the host's, but its calibration against the PIT fails or drifts
when the host is busy, and the kernel then falls back to jiffies, which
lose ticks: every boot gets tsc_early_khz= (the host's TSC rate) and
tsc=reliable, and a boot whose clocksource is not the TSC is booted
again.  And TCG's speed depends on where the code lies: with --shift N
(default 96) a third kernel, the base with N bytes of never-executed
padding early in .text (init/main.o, a throwaway commit), is booted in
the same rotation.  Its ratio to the base is what layout alone does to
each benchmark; a series/base ratio inside that band is not evidence
either way.  --shift 0 turns the control off.

Results: RESULTS/bench/bench.md, bench.json, and each boot's console.
This is a measurement, not a test: it exits 0 unless a boot failed.
"""

import argparse
import os
import re
import statistics
import subprocess
import time

from .config import Config
from .errors import die, log
from .make import ccache_env
from .paths import BUILD, LINUX, RESULTS, TOP, WORK
from .results import write_json
from .proc import git

from . import boot as bt

OUT = os.path.join(RESULTS, "bench")
BOOT_TRIES = 3


def host_tsc_khz():
    """The host's TSC rate in kHz if it is constant, else None."""
    mhz, flags = None, ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, val = line.partition(":")
            key = key.strip()
            if key == "cpu MHz" and mhz is None:
                mhz = float(val)
            elif key == "flags" and not flags:
                flags = val.split()
    if mhz and "constant_tsc" in flags:
        return int(mhz * 1000)
    return None


def clock_append(cfg):
    if cfg.arch not in ("x86_64", "i386"):
        return ""
    khz = host_tsc_khz()
    return f"tsc=reliable tsc_early_khz={khz}" if khz else ""


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


def shifted_base(shift):
    """A commit on top of the base whose only change is SHIFT bytes of
    padding in init/main.o's .text, which no code reaches: the same code
    as the base, every function after it SHIFT bytes further on.  Made
    with a temporary index, so no work tree is touched."""
    base = git("rev-parse", "base")
    src = git("show", f"{base}:init/main.c")
    pad = (f'\n/* harness bench layout control: {shift} bytes that are never run */\n'
           f'asm(".pushsection .text, \\"ax\\"\\n\\t.skip {shift}, 0xcc\\n\\t.popsection");\n')
    blob = subprocess.run(["git", "-C", LINUX, "hash-object", "-w", "--stdin"],
                          input=src + pad, text=True, capture_output=True,
                          check=True).stdout.strip()
    idx = os.path.join(BUILD, "runtime", "bench-shift.index")
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    try:
        subprocess.run(["git", "-C", LINUX, "read-tree", base], env=env, check=True)
        subprocess.run(["git", "-C", LINUX, "update-index", "--cacheinfo",
                        f"100644,{blob},init/main.c"], env=env, check=True)
        tree = subprocess.run(["git", "-C", LINUX, "write-tree"], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()
    finally:
        if os.path.exists(idx):
            os.unlink(idx)
    # Fixed dates: the same shift gives the same commit every time.
    when = git("log", "-1", "--format=%cI", base)
    return subprocess.run(
        ["git", "-C", LINUX, "commit-tree", tree, "-p", base, "-m",
         f"bench-ab: the base with {shift} bytes of padding in init/main.o"],
        env=dict(os.environ, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when),
        check=True, capture_output=True, text=True).stdout.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness bench", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="x86_64", help="runtime config (default: %(default)s)")
    ap.add_argument("--pairs", type=int, default=5, help="A/B pairs (default: %(default)s)")
    ap.add_argument("--goal", type=float, default=0.99)
    ap.add_argument("--shift", type=int, default=96,
                    help="bytes of padding in the layout control kernel, 0 for none "
                    "(default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)

    env = ccache_env()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(bt.RUNTIME, args.config + ".config")
    name = args.config + "+bench"
    kernels = {}
    # (name, worktree, commit): the shifted base is built in the base's
    # worktree, so that ccache sees the same paths and only init/main.o
    # and the link are new.
    builds = [("base", "base", bt.tree_commit("base")),
              ("series", "series", bt.tree_commit("series"))]
    if args.shift:
        builds.append(("shifted", "base", shifted_base(args.shift)))
    for kind, tree, commit in builds:
        builddir = os.path.join(BUILD, "runtime", f"{name}-{kind}")
        cfg = Config(path, "bench", bt.VARIANTS["bench"], builddir=builddir)
        log(f"{name} {kind}: building at {commit[:12]}")
        image, err = bt.build_kernel(cfg, tree, commit, args.jobs, env,
                                     os.path.join(OUT, f"{kind}.build.log"))
        if err:
            die(f"{kind}: {err}")
        cpio, err, _ = bt.build_initramfs(cfg, os.path.join(builddir, "initramfs"), [])
        if err:
            die(f"{kind}: {err}")
        kernels[kind] = (cfg, image, cpio, commit)
    if args.shift:
        git("checkout", "-q", "--detach", kernels["base"][3], cwd=os.path.join(WORK, "rt-base"))

    append = clock_append(kernels["base"][0])
    runs = {k: [] for k in kernels}
    clocks = {k: [] for k in kernels}
    rebooted = 0
    for i in range(args.pairs):
        for kind, (cfg, image, cpio, _) in kernels.items():
            for attempt in range(BOOT_TRIES):
                logf = os.path.join(OUT, f"{kind}-{i + 1}.log")
                secs, status = bt.boot(cfg, image, cpio, "bench", 600, logf, append)
                res = bt.evaluate(logf, status)
                if res["verdict"] != "PASS" or not res["bench"]:
                    die(f"{kind} boot {i + 1}: {res['first_failure'] or 'no benchmark output'}")
                cs, unstable = clocksource(logf)
                if not append or (cs == "tsc" and not unstable):
                    break
                rebooted += 1
                log(f"{kind} boot {i + 1}: clocksource {cs}"
                    f"{', TSC marked unstable' if unstable else ''}: booting again")
            else:
                die(f"{kind} boot {i + 1}: no TSC clocksource in {BOOT_TRIES} boots")
            clocks[kind].append(cs)
            runs[kind].append({k: v[0] for k, v in res["bench"].items()})
            log(f"round {i + 1} {kind}: " +
                ", ".join(f"{k} {v:.1f}" for k, v in runs[kind][-1].items()))

    report = {"date": time.strftime("%Y-%m-%d"), "config": name,
              "base": kernels["base"][3], "series": kernels["series"][3],
              "pairs": args.pairs, "append": append, "clocksources": clocks,
              "rebooted": rebooted, "runs": runs, "ratios": {}}
    md = [f"# Run time: series / base, {name}, {args.pairs} A/B pairs", "",
          f"Base {kernels['base'][3][:12]}, series {kernels['series'][3][:12]}, "
          f"{report['date']}. Kernel command line: `{append or '(nothing added)'}`; "
          f"clocksources: {', '.join(sorted(set(sum(clocks.values(), []))))}; "
          f"{rebooted} boot(s) repeated for their clock.", ""]
    if "shifted" in kernels:
        report["shift"] = args.shift
        report["shifted"] = kernels["shifted"][3]
        md += [f"Control: the base with {args.shift} bytes of padding in init/main.o "
               f"({kernels['shifted'][3][:12]}), same code, every later function moved; "
               "its ratio to the base is what layout alone does under TCG.", ""]
    head = "| benchmark | base median | series median | ratio min | median | max | goal |"
    if "shifted" in kernels:
        head += " control (shifted/base) min | median | max |"
    md += [head, "|---" * (head.count("|") - 1) + "|"]

    def ratios_of(kind, k):
        return [s[k] / b[k] for b, s in zip(runs["base"], runs[kind])]

    for k in runs["base"][0]:
        ratios = ratios_of("series", k)
        med = statistics.median(ratios)
        report["ratios"][k] = {"min": min(ratios), "median": med, "max": max(ratios)}
        met = "met" if med >= args.goal else f"missed by {args.goal - med:.3f}"
        row = (f"| {k} | {statistics.median(b[k] for b in runs['base']):.1f} | "
               f"{statistics.median(s[k] for s in runs['series']):.1f} | "
               f"{min(ratios):.3f} | {med:.3f} | {max(ratios):.3f} | {met} |")
        line = (f"bench {k}: series/base min {min(ratios):.3f} median {med:.3f} "
                f"max {max(ratios):.3f} ({met})")
        if "shifted" in kernels:
            ctl = ratios_of("shifted", k)
            cmed = statistics.median(ctl)
            report["ratios"][k]["control"] = {"min": min(ctl), "median": cmed, "max": max(ctl)}
            row += f" {min(ctl):.3f} | {cmed:.3f} | {max(ctl):.3f} |"
            line += f"; control {min(ctl):.3f}/{cmed:.3f}/{max(ctl):.3f}"
        md.append(row)
        print(line, flush=True)
    write_json(os.path.join(OUT, "bench.json"), report)
    with open(os.path.join(OUT, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    log(f"report: {os.path.relpath(os.path.join(OUT, 'bench.md'), TOP)}")
    return 0
