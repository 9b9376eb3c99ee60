# SPDX-License-Identifier: GPL-2.0
"""harness kunit - run the series' KUnit suites with the base tree's kunit.py.

ARCH is a kunit.py --arch (by default the base's kunit-arches, or um
and x86_64 for a base that names none): um, x86_64, s390 and arm, all
but um under QEMU with SMP (and THP but on arm, which has none without
LPAE) so that the split-lock cases run: s390 for its four-page PMD
tables, arm (classic, not LPAE) for its two-entry PMDs.  Or
x86_64+sepdesc: x86_64 with the RFC part's option on.  The suites
are those the series adds, as the base's description lists them
(bases/*.base, kunitconfigs: mm/ptdesc.kunitconfig and
mm/zsmalloc.kunitconfig on 6.1), built together from the head of
branch 'series' in the WORK/kunit worktree, one build directory per
arch.

Results are read from kunit.py's own JSON (--json), never scraped from
its text.  Prints 'PASS|FAIL|SKIP kunit/ARCH/SUITE/CASE' per test case
and one line per arch for the run itself; exits 1 if anything failed.
A suite file missing from the series is a SKIP with the reason.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from .config import SRCARCH, Config
from .errors import HarnessError, log
from .make import ccache_env
from .paths import BASE, BRANCH, BUILD, CONFIGS, RESULTS, WORK
from .proc import git, run
from .worktree import ensure_worktree, worktree_changes

KUNITCONFIGS = list(BASE.kunitconfigs)

# Per kunit.py arch: the matrix config whose cross compiler it uses (its
# '# cross_compile:' header), the QEMU binary, and whether SMP and THP
# are added.  arm has no THP without LPAE.  ARCH+VARIANT is kunit.py's
# ARCH with the boot variant's config lines and 'add' added: x86_64+sepdesc
# runs the ptdesc suite with the RFC part's separate descriptor, and
# so its failed-allocation case, which needs failslab (the runtime
# kernels have none), and DEBUG_VM, without which the put_page() case
# cannot see a bad page in time and skips.
ARCHES = {
    "um": {"config": None, "qemu": None, "smp": False, "thp": False},
    "x86_64": {"config": None, "qemu": "qemu-system-x86_64", "smp": True, "thp": True},
    "x86_64+sepdesc": {"config": None, "qemu": "qemu-system-x86_64", "smp": True,
                       "thp": True,
                       "variant": "sepdesc", "add": ["CONFIG_DEBUG_VM=y"]},
    "s390": {"config": "s390", "qemu": "qemu-system-s390x", "smp": True, "thp": True},
    "arm": {"config": "arm", "qemu": "qemu-system-arm", "smp": True, "thp": False},
}
STATUS = {"PASS": "PASS", "SKIP": "SKIP"}     # kunit_json: PASS, SKIP, ERROR, FAIL


def for_arch(kunitconfigs, arch):
    """The suites that can build on ARCH: one under arch/NAME/ (6.12's
    gmap suite, arch/s390/mm/.kunitconfig) only on that arch."""
    arch = arch.partition("+")[0]
    return [k for k in kunitconfigs
            if not k.startswith("arch/") or k.split("/")[1] == SRCARCH.get(arch, arch)]


def cases(doc):
    """{suite/case: PASS|FAIL|SKIP} of a kunit.py JSON document (a group
    of suites, each with its test cases; a parameterised case is a
    group of its own, named after its suite)."""
    out = {}

    def walk(group, suite):
        for c in group.get("test_cases", []):
            out[f"{suite}/{c['name']}"] = STATUS.get(c["status"], "FAIL")
        for g in group.get("sub_groups", []):
            walk(g, g["name"] if suite is None else f"{suite}/{g['name']}")
    walk(doc, None)
    return out


# A KTAP result line with a skip directive ("ok 4 name # SKIP reason"),
# in a console (with its timestamp) or in kunit.py's raw test.log.
KTAP_SKIP = re.compile(r"\bok \d+ (?:- )?(\S+) # SKIP\s*(.*?)\s*$")


def skip_reasons(path):
    """{case: reason} of the cases a KTAP log says skipped themselves,
    with the reason they gave (kunit.py's JSON has none); empty if the
    log cannot be read."""
    out = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = KTAP_SKIP.search(line)
                if m and m.group(2):
                    out[m.group(1)] = m.group(2)
    except OSError:
        pass
    return out


def parse_console(logf, kunit_py):  # spawns the tree's kunit.py
    """The KUnit cases in a console log (KTAP), parsed by the tree's
    own kunit.py; empty if no suite ran, and one FAIL case if there is
    KTAP that kunit.py cannot read."""
    with open(logf, errors="replace") as f:
        if "# Subtest:" not in f.read():
            return {}
    with tempfile.NamedTemporaryFile("r", suffix=".json") as js:
        subprocess.run([kunit_py, "parse", f"--json={js.name}", logf], text=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            res = cases(json.load(js))
        except ValueError:
            res = {}
    return res or {"kunit.py parse": "FAIL"}


def arch_args(arch, kunitconfigs, jobs, relmap):
    """kunit.py run arguments for ARCH, and the reason to skip it (None
    when it can run): its QEMU binary or its cross compiler missing."""
    facts = ARCHES[arch]
    cross = ""
    if facts["config"]:
        cross = Config(os.path.join(CONFIGS, facts["config"] + ".config")).cross
    if facts["qemu"] and not shutil.which(facts["qemu"]):
        return None, f"{facts['qemu']} not found"
    if cross and not shutil.which(cross + "gcc"):
        return None, f"{cross}gcc not found"
    kcflags = " ".join(filter(None, (os.environ.get("KCFLAGS"), relmap)))
    args = [f"--arch={arch.partition('+')[0]}",
            f"--build_dir={os.path.join(BUILD, 'kunit-' + arch)}",
            f"--jobs={jobs}", "--timeout=600",
            "--make_options", f"CC=ccache {cross}gcc", "--make_options", f"KCFLAGS={kcflags}"]
    args += [f"--kunitconfig={k}" for k in kunitconfigs]
    if facts["smp"]:
        args += ["--kconfig_add", "CONFIG_SMP=y", "--kconfig_add", "CONFIG_NR_CPUS=8"]
    if facts["thp"]:
        args += ["--kconfig_add", "CONFIG_TRANSPARENT_HUGEPAGE=y"]
    if facts.get("variant"):
        # boot imports this module: its variants are read when needed.
        from .boot import SERIES_VARIANTS
        for line in SERIES_VARIANTS[facts["variant"]][0]:
            args += ["--kconfig_add", line]
    for line in facts.get("add", []):
        args += ["--kconfig_add", line]
    if cross:
        args.append(f"--cross_compile={cross}")
    return args, None


def main(argv=None):  # spawns kunit.py run: kernel builds, QEMU
    ap = argparse.ArgumentParser(prog="harness kunit", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    default = list(BASE.kunit_arches) or ["um", "x86_64"]
    ap.add_argument("arches", nargs="*", default=default, metavar="ARCH",
                    help=f"one of {', '.join(ARCHES)} (default: the base's kunit-arches, "
                    f"here {' '.join(default)})")
    ap.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("JOBS") or
                                                          os.cpu_count() or 2))
    args = ap.parse_args(argv)
    unknown = [a for a in args.arches if a not in ARCHES]
    if unknown:
        raise HarnessError(f"unknown arch {', '.join(unknown)} ({', '.join(ARCHES)})")

    if not KUNITCONFIGS:
        print(f"SKIP kunit: bases/{BASE.name}.base lists no kunitconfigs", flush=True)
        return 0
    tree = os.path.join(WORK, "kunit")
    ensure_worktree(tree)
    if worktree_changes(tree):
        raise HarnessError(f"work tree {tree} is dirty; commit or discard its changes")
    run(["git", "-C", tree, "checkout", "-q", "--detach", git("rev-parse", BRANCH)])
    present = []
    for k in KUNITCONFIGS:
        if os.path.exists(os.path.join(tree, k)):
            present.append(k)
        else:
            print(f"SKIP kunit/{k.removesuffix('.kunitconfig')}: {k} is not in the series",
                  flush=True)
    if not present:
        return 0

    env = ccache_env()
    out_dir = os.path.join(RESULTS, "kunit")
    os.makedirs(out_dir, exist_ok=True)
    failed = 0
    for arch in args.arches:
        build = os.path.join(BUILD, "kunit-" + arch)
        os.makedirs(build, exist_ok=True)
        # The relative form of the tree too (make.relative_prefix_map).
        relmap = f"-fmacro-prefix-map={os.path.relpath(tree, build)}/="
        mine = for_arch(present, arch)
        for k in sorted(set(present) - set(mine)):
            print(f"SKIP kunit/{arch}/{k.removesuffix('.kunitconfig').rstrip('/')}: "
                  f"{k} builds on {k.split('/')[1]} only", flush=True)
        if not mine:
            continue
        kargs, skip = arch_args(arch, mine, args.jobs, relmap)
        if skip:
            print(f"SKIP kunit/{arch}: {skip}", flush=True)
            continue
        logf = os.path.join(out_dir, arch + ".log")
        jsonf = os.path.join(out_dir, arch + ".json")
        if os.path.exists(jsonf):
            os.unlink(jsonf)
        log(f"{arch}: building and running (log: {logf})")
        t0 = time.time()
        with open(logf, "w") as f:
            p = subprocess.run(["./tools/testing/kunit/kunit.py", "run", f"--json={jsonf}",
                                *kargs], cwd=tree, env=env, stdout=f,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out = report(arch, jsonf, p.returncode, time.time() - t0, logf,
                     os.path.join(build, "test.log"))
        for line in out:
            print(line, flush=True)
        failed |= any(line.startswith("FAIL ") for line in out)
    return int(failed)


def report(arch, jsonf, returncode, seconds, logf, ktap=None):
    """The result lines of one kunit.py run: a line per case, from the
    JSON it wrote, and one for the run.  A skipped case gives the reason
    it printed in KTAP (the raw log KTAP, kunit.py's test.log).  A run
    that wrote no JSON, or no case, fails whatever its exit status."""
    try:
        with open(jsonf) as f:
            res = cases(json.load(f))
    except (OSError, ValueError):
        res = {}
    why = skip_reasons(ktap) if ktap else {}
    out = [f"{status} kunit/{arch}/{name}" +
           (": " + why.get(name.rsplit("/", 1)[-1], "skipped by the test (see log)")
            if status == "SKIP" else "")
           for name, status in res.items()]
    counts = {s: sum(v == s for v in res.values()) for s in ("PASS", "FAIL", "SKIP")}
    what = (f"{len(res)} cases: {counts['PASS']} passed, {counts['FAIL']} failed, "
            f"{counts['SKIP']} skipped")
    if returncode == 0 and res and not counts["FAIL"]:
        out.append(f"PASS kunit/{arch}: {what} in {seconds:.0f} s")
    else:
        out.append(f"FAIL kunit/{arch}: kunit.py exited with {returncode} ({what}); "
                   f"see {logf}")
    return out
