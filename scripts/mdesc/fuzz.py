# SPDX-License-Identifier: GPL-2.0
"""harness fuzz - trinity and stress-ng on the mm system calls, base against series.

Boots the runtime test's kernels (the same builds as harness boot) with
runtime/rtfuzz.c as /init and Debian's trinity and stress-ng, with the
libraries they need, in the initramfs (scripts/fetch-fuzzers.sh unpacks
the pinned packages of each guest arch).  trinity fuzzes the memory-
management calls for --trinity seconds with --children children, then
stress-ng runs its memory stressors with --verify for --stressng
seconds.  Base and series get the same seed and the same times.

With several children the call streams differ from boot to boot, so the
verdict compares kinds of kernel report (the report line with numbers,
addresses and offsets taken out): the series fails when it shows a kind
the base did not show over the same time.  It fails as well on a failed
rtfuzz check (on the base too or not: then nothing was fuzzed), or on
any other failure of its own (a timeout, a console cut short, a failed
KUnit case).  A base that shows a report is a finding and is reported
as such (its verdict is FAIL), not hidden; it does not fail the run,
anything else that fails on the base does.

Results: RESULTS/fuzz/NAME-TREE.log (console), fuzz.md and fuzz.json.
"""

import argparse
import os
import re
import subprocess

from . import boot as bt
from .config import Config
from .errors import ConfigError, die, log
from .make import ccache_env
from .fault import TS_RE
from .paths import BASE, BUILD, RESULTS, TOP
from .results import fuzz_markdown, load_cells, merge_cells, save_cells

RTFUZZ = os.path.join(TOP, "runtime", "rtfuzz.c")
OUT = os.path.join(RESULTS, "fuzz")
# Where scripts/fetch-fuzzers.sh unpacks the packages (its FUZZERS).
CACHE = os.environ.get("FUZZERS") or os.path.join(os.path.expanduser("~"), ".cache",
                                                  "ptdesc-series", "fuzz")
PROGRAMS = ("/usr/bin/trinity", "/usr/bin/stress-ng")

# Per runtime config: the Debian architecture of its guest and the
# multiarch directory its libraries live in.
GUESTS = {
    "x86_64": ("amd64", "x86_64-linux-gnu"),
    "arm64": ("arm64", "aarch64-linux-gnu"),
}

OOM_RE = re.compile(r"invoked oom-killer")


def report_kind(line):
    """A kernel report line without what differs from boot to boot or
    from tree to tree: timestamps, CPU and PID, offsets, addresses,
    numbers (line numbers move when the series edits a file)."""
    s = TS_RE.sub("", line.strip())
    s = re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", s)
    s = re.sub(r"\b(0x)?[0-9a-f]{8,16}\b", "X", s)
    s = re.sub(r"\d+", "N", s)
    return re.sub(r"\s+", " ", s).strip()


def report_kinds(lines):
    """The kinds of kernel report in a console, every one (harness
    boot keeps the first 20 report lines only).  'Call Trace:' is left
    out: every report has a line of its own before it, and an OOM kill,
    which stress-ng may cause, has nothing else."""
    return sorted({report_kind(ln) for ln in lines
                   if not ln.startswith(("RT-", "$ ")) and bt.REPORT_RE.search(ln)
                   and not re.search(r"Call [Tt]race:", ln)})


def series_verdict(base, series):
    """The reason SERIES fails against BASE (cells of one config), or
    None.  Only a kernel report of a kind the base showed too is
    excused.  A failed check fails the series even when it failed on the
    base (the fuzzers did not run there either: nothing was compared),
    and so does any other reason of its own: a timeout, a console cut
    short, a failed KUnit case."""
    why = []
    new = sorted(set(series.get("report_kinds", [])) - set(base.get("report_kinds", [])))
    if new:
        why.append("report kinds the base did not show: " + "; ".join(new[:5]))
    failed = [k + (" (on the base too)" if base.get("checks", {}).get(k, ("",))[0] == "FAIL"
                   else "") for k, (v, _) in series.get("checks", {}).items() if v == "FAIL"]
    if failed:
        why.append("failed checks: " + ", ".join(failed))
    own = series.get("reason")
    if own and not own.startswith("console: ") and not failed:
        why.append(own)
    return "; ".join(why) or None


def interpreter(binary):  # spawns readelf
    """The ELF interpreter of BINARY (readelf reads any arch)."""
    p = subprocess.run(["readelf", "-l", binary], capture_output=True, text=True)
    m = re.search(r"Requesting program interpreter: (\S+)\]", p.stdout)
    if not m:
        raise ConfigError(f"{binary}: no program interpreter")
    return m.group(1)


def needed(path):  # spawns readelf
    """The DT_NEEDED names of the ELF file PATH."""
    p = subprocess.run(["readelf", "-d", path], capture_output=True, text=True)
    if p.returncode:
        raise ConfigError(f"readelf -d {path}: {p.stderr.strip()}")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", p.stdout)


def in_root(root, path):
    """PATH (inside ROOT) with its symbolic links followed inside ROOT:
    a package's absolute link (/lib64/ld-linux-x86-64.so.2 ->
    /lib/x86_64-linux-gnu/...) must not lead to the host's file."""
    for _ in range(40):
        if not os.path.islink(path):
            return path
        target = os.readlink(path)
        path = os.path.join(root, target.lstrip("/")) if os.path.isabs(target) else \
            os.path.normpath(os.path.join(os.path.dirname(path), target))
    raise ConfigError(f"{path}: too many levels of symbolic links")


def closure(root, triplet, programs, needed=needed):
    """{guest path: host path} of PROGRAMS (guest paths, under ROOT) and
    every library they need, recursively, found in ROOT's multiarch
    directories.  Host paths are resolved inside ROOT, so that a
    symbolic link in a package becomes the file it points to there."""
    dirs = [os.path.join(root, d, triplet) for d in ("lib", "usr/lib")]
    files, todo = {}, [(p, os.path.join(root, p.lstrip("/"))) for p in programs]
    while todo:
        guest, host = todo.pop()
        if guest in files:
            continue
        host = in_root(root, host)
        if not os.path.exists(host):
            raise ConfigError(f"{host} not found: run scripts/fetch-fuzzers.sh")
        files[guest] = host
        for name in needed(host):
            where = next((d for d in dirs if os.path.lexists(os.path.join(d, name))), None)
            if where is None:
                raise ConfigError(f"{name}, needed by {guest}, is in no package "
                                  f"unpacked under {root}")
            todo.append((f"/lib/{triplet}/{name}", os.path.join(where, name)))
    return files


def cpio_lines(files):
    """gen_init_cpio lines for FILES ({guest path: host path}): the
    directories first, each once."""
    dirs = sorted({os.path.dirname(g) for g in files} |
                  {os.path.dirname(os.path.dirname(g)) for g in files} - {"/"})
    return [f"dir {d} 755 0 0" for d in dirs] + \
        [f"file {g} {h} 755 0 0" for g, h in sorted(files.items())]


def guest_files(config):  # spawns readelf and objdump
    """The fuzzers and their libraries for CONFIG's guest."""
    debarch, triplet = GUESTS[config]
    root = os.path.join(CACHE, debarch, "root")
    if not os.path.exists(os.path.join(CACHE, debarch, "done")):
        raise ConfigError(f"no fuzzers for {debarch}: run 'scripts/fetch-fuzzers.sh {debarch}' "
                          "as root ('make fuzz' does)")
    files = closure(root, triplet, PROGRAMS)
    interp = interpreter(files[PROGRAMS[0]])
    files[interp] = in_root(root, os.path.join(root, interp.lstrip("/")))
    if not os.path.exists(files[interp]):
        raise ConfigError(f"{interp}: not in the packages unpacked under {root}")
    return files


def main(argv=None):  # spawns kernel builds and QEMU
    ap = argparse.ArgumentParser(prog="harness fuzz", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default=",".join(GUESTS),
                    help="runtime configs (default: %(default)s)")
    ap.add_argument("--trees", default="base,series", help="default: %(default)s")
    ap.add_argument("--seed", type=int, default=20261206,
                    help="trinity's and stress-ng's seed (default: %(default)s)")
    ap.add_argument("--trinity", type=int, default=180, help="seconds of trinity")
    ap.add_argument("--stressng", type=int, default=60, help="seconds of stress-ng")
    ap.add_argument("--children", type=int, default=4, help="trinity's children")
    ap.add_argument("--timeout", type=int, default=1500, help="seconds per boot")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)

    env = ccache_env()
    trees = args.trees.split(",")
    commits = bt.tree_commits(trees)
    append = (f"rt.seed={args.seed} rt.trinity={args.trinity} rt.stressng={args.stressng} "
              f"rt.children={args.children}")
    os.makedirs(OUT, exist_ok=True)
    cells, bad = load_cells(os.path.join(OUT, "fuzz.json")), 0
    for name in args.configs.split(","):
        if name not in GUESTS:
            die(f"no fuzzers for runtime config {name!r}: {', '.join(GUESTS)}")
        path = os.path.join(bt.RUNTIME, name + ".config")
        files = guest_files(name)
        row = {}
        for tree in trees:
            tag = f"{name} {tree}"
            cell = {"config": name, "tree": tree, "commit": commits[tree], "seed": args.seed,
                    "append": append}
            # The runtime test's kernel, in its build directory.
            builddir = os.path.join(BUILD, "runtime", f"{name}-{tree}")
            cfg = Config(path, None, tuple(f"# {sym} is not set" for sym in BASE.runtime_off),
                         builddir=builddir)
            why = bt.missing_tools(cfg)
            if why:
                cell.update(verdict="SKIP", reason=why)
            else:
                # The initramfs apart from the runtime test's, which
                # initramfs_with() would rebuild without its selftests.
                image, cpio, err = bt.build_with_init(
                    cell, cfg, tree, commits[tree], RTFUZZ,
                    os.path.join(builddir, "fuzz-initramfs"), args.jobs, env,
                    os.path.join(OUT, f"{name}-{tree}.build.log"), cpio_lines(files))
                if err:
                    cell.update(verdict="FAIL", reason=err[1])
                elif args.build_only:
                    cell.update(verdict="BUILT", reason=None)
                else:
                    logf = os.path.join(OUT, f"{name}-{tree}.log")
                    log(f"{tag}: fuzzing (log: {os.path.relpath(logf, TOP)})")
                    secs, status = bt.boot(cfg, image, cpio, "fuzz", args.timeout, logf,
                                           append)
                    cell["seconds"] = round(secs, 1)
                    bt.judge(cell, logf, status, tree)
                    with open(logf, errors="replace") as f:
                        lines = f.readlines()
                    cell["report_kinds"] = report_kinds(lines)
                    cell["oom_kills"] = sum(1 for ln in lines if OOM_RE.search(ln))
            if tree == "series" and "base" in row and "report_kinds" in cell:
                why = series_verdict(row["base"], cell)
                cell["own_verdict"] = cell["verdict"]
                cell.update(verdict="FAIL" if why else "PASS", reason=why or (
                    f"the base shows the same ({cell['reason']})" if cell["reason"] else None))
            # A report on the base is a finding, shown, not a failure of
            # this run; anything else that failed is.
            if cell["verdict"] == "FAIL" and (tree == "series" or not
                                              (cell.get("reason") or "").startswith("console: ")):
                bad += 1
            row[tree] = cell
            log(f"{tag}: {cell['verdict']}" +
                (f" ({cell['reason']})" if cell.get("reason") else "") +
                (f" in {cell['seconds']:.0f} s" if "seconds" in cell else ""))
            cells = merge_cells(cells, cell)
            save_cells(OUT, "fuzz", cells, fuzz_markdown(cells, ("base", "series")))
    log(f"report: {os.path.relpath(os.path.join(OUT, 'fuzz.md'), TOP)}")
    return 1 if bad else 0
