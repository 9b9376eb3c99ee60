# SPDX-License-Identifier: GPL-2.0
"""harness boot - boot the base and the series under QEMU and stress them.

For each runtime config (configs/runtime/NAME.config) and each tree
(the base, and the head of the applied series), build a kernel with the
debug fragment, an initramfs with runtime/rtinit.c as /init (cross-
compiled statically; busybox-static is added where it runs), boot it
under QEMU with TCG and collect what rtinit prints:

    RT: <test> <check> PASS|FAIL|SKIP <detail>

A run passes when rtinit reached RT-DONE, no check failed, no KUnit
case that ran at boot failed (parsed with the tree's kunit.py), and the
console holds no kernel report (BUG, WARNING, bad page, Bad rss-counter,
KASAN, lockdep, page_table_check, Oops, panic).  A build failure, a
panic, a timeout or a failed check fails it, and the first failing
check is named.  No toolchain or no QEMU binary: SKIP with the reason.

Results: RESULTS/boot/NAME-TREE.log (console), RESULTS/boot/boot.md
(base and series side by side) and RESULTS/boot/boot.json.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import time

from . import bloat, expect
from .build import build_in_tree, checkout
from .config import Config
from .diagnostics import first_error
from .errors import ConfigError, die, log
from . import kunit
from .make import ccache_env
from .paths import BASE, BUILD, CONFIGS, LINUX, RESULTS, TOP, WORK
from .proc import run
from .results import save_boot
from .worktree import tree_commit

RUNTIME = os.path.join(CONFIGS, "runtime")
OUT = os.path.join(RESULTS, "boot")
RTINIT = os.path.join(TOP, "runtime", "rtinit.c")
BUSYBOX = "/bin/busybox"

# Variants: extra Kconfig lines merged last.  A variant with no lines
# boots the config's own kernel with VARIANT_APPEND on the command line.
VARIANTS = {
    "hash": [],
    "nolockdep": ["# CONFIG_PROVE_LOCKING is not set",
                  "# CONFIG_DEBUG_LOCK_ALLOC is not set",
                  "# CONFIG_DEBUG_SPINLOCK is not set"],
    # For timing (scripts/harness bench): every debug option off.
    # The options that only exist under those are turned off by name too,
    # or the check that every fragment line took effect would fail.
    "bench": ["# CONFIG_KASAN is not set", "# CONFIG_KASAN_GENERIC is not set",
              "# CONFIG_PAGE_TABLE_CHECK_ENFORCED is not set",
              "# CONFIG_DEBUG_PAGEALLOC_ENABLE_DEFAULT is not set",
              "# CONFIG_PROVE_LOCKING is not set",
              "# CONFIG_DEBUG_LOCK_ALLOC is not set", "# CONFIG_DEBUG_SPINLOCK is not set",
              "# CONFIG_DEBUG_PAGEALLOC is not set", "# CONFIG_PAGE_TABLE_CHECK is not set",
              "# CONFIG_DEBUG_VM is not set", "# CONFIG_DEBUG_VM_PGTABLE is not set",
              "# CONFIG_DEBUG_LIST is not set", "# CONFIG_KUNIT is not set"],
}

VARIANT_APPEND = {"hash": "disable_radix"}

# Variants only the series can build, with the command line they boot
# with: the RFC part's option (patches/ptdesc-rfc), which the base does
# not have.  No base record depends on them, so they are kept out of
# its key (expect.BOOT_CODE).  slab_nomerge keeps the "ptdesc" cache's
# counts to its own objects.
SERIES_VARIANTS = {"sepdesc": (["CONFIG_SEPARATE_PTDESC=y"], "slab_nomerge")}


def variant_of(name):
    """(config, variant, its fragment lines, its command line) of a
    runtime config NAME or NAME+VARIANT."""
    base_name, _, variant = name.partition("+")
    if variant and variant not in VARIANTS and variant not in SERIES_VARIANTS:
        die(f"unknown variant {variant!r}")
    lines, append = SERIES_VARIANTS.get(variant) or (VARIANTS.get(variant, []),
                                                     VARIANT_APPEND.get(variant))
    return base_name, variant, list(lines), append


# The variants that 'all' boots besides every runtime config.
ALL_VARIANTS = ["x86_64+nolockdep", "ppc64le+hash", "x86_64+sepdesc", "arm64+sepdesc"]

# Console lines that are kernel reports.  Any of them fails the run.
REPORT_RE = re.compile(
    r"BUG:|WARNING:|kernel BUG at|[Bb]ad page (state|map)|Bad rss-counter|"
    r"KASAN:|INFO: (possible|inconsistent)|DEBUG_LOCKS_WARN_ON|"
    r"page_table_check|Oops|Kernel panic|general protection fault|"
    r"Unable to handle kernel|Call Trace:|Internal error:")

# The base tree's mm selftests that run in the initramfs without a
# shell: self-contained, quick, page-table or hugetlb paths.
# hugetlb-madvise is left out by default: on this base it triggers a
# WARNING (i_mmap_assert_write_locked() from hugetlb_split() when
# munmap splits a hugetlb VMA) on the base kernel itself, which would
# fail every run.  --kselftests=+hugetlb-madvise adds it back.
KSELFTESTS = ["madv_populate", "map_fixed_noreplace", "map_populate",
              "map_hugetlb", "mremap_dontunmap", "mremap_test", "mlock2-tests",
              "mrelease_test", "soft-dirty", "hugepage-mmap", "hugepage-mremap",
              "compaction_test"]

# Debug options reported per kernel.
DEBUG_SYMS = ["KASAN", "PROVE_LOCKING", "DEBUG_VM", "DEBUG_VM_PGTABLE",
              "PAGE_TABLE_CHECK_ENFORCED", "DEBUG_PAGEALLOC_ENABLE_DEFAULT",
              "HIGHMEM", "HIGHPTE", "TRANSPARENT_HUGEPAGE", "HUGETLBFS",
              "MEMCG", "ZSMALLOC_STAT"]


def build_kernel(cfg, tree, commit, jobs, env, logf):  # spawns make
    """Configure and build the image; returns (image path, None) or
    (None, reason)."""
    image = cfg.meta["image"]
    err = build_in_tree(cfg, tree, commit, os.path.basename(image), jobs, env, logf)
    return (None, err) if err else (os.path.join(cfg.builddir, image), None)


def kconfig_flags(cfg):
    have = {}
    with open(os.path.join(cfg.builddir, ".config")) as f:
        for line in f:
            m = re.match(r"^CONFIG_(\w+)=y$", line.strip())
            if m:
                have[m.group(1)] = True
    return [s for s in DEBUG_SYMS if have.get(s)]


def build_kselftests(cc, outdir, names):  # spawns the compiler
    """Compile the mm selftests NAMES from the base tree statically into
    OUTDIR; returns the names that did not build."""
    src = os.path.join(WORK, "rt-base", "tools", "testing", "selftests", "vm")
    os.makedirs(outdir, exist_ok=True)
    missing = []
    for name in names:
        binary = os.path.join(outdir, name)
        if os.path.exists(binary) and os.path.getmtime(binary) > os.path.getmtime(
                os.path.join(src, name + ".c")):
            continue
        p = run([cc, "-O2", "-static", "-pthread", "-I", os.path.dirname(src),
                 "-o", binary, name + ".c", "-lrt"], cwd=src, check=False)
        if p.returncode:
            missing.append(name)
    return missing


def build_initramfs(cfg, outdir, kselftests):  # spawns the compiler
    """Returns (cpio path, None, selftests that did not build) or
    (None, reason, [])."""
    cc = cfg.meta.get("user_cc", "gcc")
    if not shutil.which(cc):
        return None, f"no user-space compiler: {cc} not found", []
    os.makedirs(outdir, exist_ok=True)
    init = os.path.join(outdir, "rtinit")
    p = run([cc, "-O2", "-Wall", "-Werror", "-static", "-pthread", "-o", init, RTINIT],
            check=False)
    if p.returncode:
        return None, f"{cc} -static failed: {first_error(p.stdout)}", []
    gen = os.path.join(BUILD, "runtime", "gen_init_cpio")
    if not os.path.exists(gen):
        src = os.path.join(LINUX, "usr", "gen_init_cpio.c")
        run(["gcc", "-O2", "-o", gen, src])
    spec = ["dir /dev 755 0 0", "nod /dev/console 600 0 0 c 5 1",
            "dir /proc 755 0 0", "dir /sys 755 0 0", "dir /tmp 1777 0 0",
            f"file /init {init} 755 0 0"]
    # Debian's busybox-static is an x86_64 binary: a shell for the
    # x86_64 guest (rt.shell on the command line), nothing else.
    if cfg.arch == "x86_64" and os.path.exists(BUSYBOX):
        spec += ["dir /bin 755 0 0", f"file /bin/busybox {BUSYBOX} 755 0 0",
                 "slink /bin/sh busybox 777 0 0"]
    ks = os.path.join(outdir, "kselftest")
    missing = build_kselftests(cc, ks, kselftests)
    if missing:
        log(f"mm selftests that did not build with {cc}: {', '.join(missing)}")
    built = [n for n in kselftests if n not in missing]
    if built:
        spec.append("dir /kselftest 755 0 0")
        for name in built:
            spec.append(f"file /kselftest/{name} {os.path.join(ks, name)} 755 0 0")
    listf = os.path.join(outdir, "initramfs.list")
    with open(listf, "w") as f:
        f.write("\n".join(spec) + "\n")
    cpio = os.path.join(outdir, "initramfs.cpio")
    with open(cpio, "wb") as f:
        subprocess.run([gen, listf], stdout=f, check=True)
    return cpio, None, missing


def with_init(spec, init):
    """The lines of a gen_init_cpio list with INIT as /init."""
    out = [ln for ln in spec.splitlines() if not ln.startswith("file /init ")]
    if len(out) == len(spec.splitlines()):
        raise ConfigError("the runtime test's initramfs list has no /init")
    return "\n".join(out + [f"file /init {init} 755 0 0"]) + "\n"


def initramfs_with(cfg, outdir, source, extra=()):  # spawns the compiler
    """The runtime test's initramfs with SOURCE (runtime/rtbench.c,
    runtime/rtfault.c: programs that include rtinit.c) compiled as /init,
    and the gen_init_cpio lines EXTRA, in OUTDIR/NAME.cpio.  The runtime
    test's own (build_initramfs(), keyed in the base's record) is made
    first and left as it is; only its list is read.  Returns (cpio path,
    None) or (None, reason)."""
    cpio, err, _ = build_initramfs(cfg, outdir, [])
    if err:
        return None, err
    name = os.path.splitext(os.path.basename(source))[0]
    init = os.path.join(outdir, name)
    cc = cfg.meta.get("user_cc", "gcc")
    p = run([cc, "-O2", "-Wall", "-Werror", "-static", "-pthread", "-o", init, source],
            check=False)
    if p.returncode:
        return None, f"{cc} {os.path.basename(source)}: {first_error(p.stdout)}"
    with open(os.path.join(outdir, "initramfs.list")) as f:
        spec = f.read()
    listf = os.path.join(outdir, name + ".list")
    with open(listf, "w") as f:
        f.write(with_init(spec, init) + "".join(ln + "\n" for ln in extra))
    cpio = os.path.join(outdir, name + ".cpio")
    with open(cpio, "wb") as f:
        subprocess.run([os.path.join(BUILD, "runtime", "gen_init_cpio"), listf], stdout=f,
                       check=True)
    return cpio, None


def build_with_init(cell, cfg, tree, commit, source, initdir, jobs, env, logf,
                    extra=()):  # spawns make and the compiler
    """Build CFG's image at COMMIT in the worktree of TREE (output in
    LOGF), then an initramfs in INITDIR with SOURCE as /init and the
    gen_init_cpio lines EXTRA (initramfs_with()); CELL gets the build's
    seconds and the debug options in effect.  Returns (image, cpio,
    None), or (None, None, (stage, reason)) with the stage that failed:
    'build' or 'initramfs'."""
    t0 = time.time()
    log(f"{cell['config']} {tree}: building {cfg.meta['image']} at {commit[:12]}")
    image, err = build_kernel(cfg, tree, commit, jobs, env, logf)
    cell["build_seconds"] = round(time.time() - t0, 1)
    if err:
        return None, None, ("build", err)
    cell["debug"] = kconfig_flags(cfg)
    cpio, err = initramfs_with(cfg, initdir, source, extra)
    if err:
        return None, None, ("initramfs", err)
    return image, cpio, None


def boot(cfg, image, cpio, tests, timeout, logf, extra_append):  # spawns QEMU
    """Run QEMU; returns (seconds, exit status or None on timeout)."""
    append = f"console={cfg.meta['console']} rt.tests={tests} panic=-1 {extra_append}"
    cmd = shlex.split(cfg.meta["qemu"]) + [
        "-kernel", image, "-initrd", cpio, "-append", append.strip(),
        "-display", "none", "-serial", "stdio", "-monitor", "none",
        "-nic", "none", "-no-reboot"]
    t0 = time.time()
    with open(logf, "w") as f:
        f.write("$ " + shlex.join(cmd) + "\n")
        f.flush()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace")
        status = None
        deadline = t0 + timeout
        try:
            for line in p.stdout:
                f.write(line)
                if line.startswith(("RT: ", "RT-TEST:", "RT-BENCH:")):
                    print("    " + line.rstrip(), flush=True)
                if time.time() > deadline:
                    break
            p.wait(timeout=max(1, deadline - time.time()))
            status = p.returncode
        except subprocess.TimeoutExpired:
            pass
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
                status = None
    return time.time() - t0, status


def evaluate(logf, status):
    """Returns a dict: verdict, first failure, checks, reports, bench."""
    checks, reports, bench, ksft, done = {}, [], {}, {}, False
    with open(logf, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = re.search(r"RT: (\S+) (\S+) (PASS|FAIL|SKIP) ?(.*)$", line)
            if m:
                key = f"{m.group(1)}/{m.group(2)}"
                # A check printed twice keeps its first failure.
                if checks.get(key, ("",))[0] != "FAIL":
                    checks[key] = (m.group(3), m.group(4))
                continue
            m = re.search(r"RT-KSFT: (\S+) (PASS|FAIL|SKIP) (.*)$", line)
            if m:
                ksft[m.group(1)] = (m.group(2), m.group(3))
                continue
            m = re.search(r"RT-BENCH: (\S+) ([\d.]+) (\S+)", line)
            if m:
                bench[m.group(1)] = (float(m.group(2)), m.group(3))
                continue
            if "RT-DONE" in line:
                done = True
            elif not line.startswith(("RT-", "$ ")) and REPORT_RE.search(line):
                reports.append(line.strip())
    first = None
    if status is None:
        first = "timeout: QEMU did not finish"
    elif not checks and not done:
        first = "rtinit printed no result (no boot?)"
    for k, (v, d) in checks.items():
        if v == "FAIL" and not first:
            first = f"{k}: {d}"
    if reports and not first:
        first = "console: " + reports[0]
    if not done and not first:
        first = "rtinit did not reach RT-DONE"
    return {"verdict": "FAIL" if first else "PASS", "first_failure": first,
            "checks": checks, "reports": reports[:20], "bench": bench, "kselftest": ksft}


def regressions(cells):
    """An mm selftest that passes on the base and not with the series
    fails the series run; one that fails on both is reported only."""
    base = [c for c in cells if c["tree"] == "base" and c["config"] == cells[-1]["config"]]
    ser = cells[-1]
    if not base or "kselftest" not in base[0] or "kselftest" not in ser:
        return 0
    worse = [k for k, v in base[0]["kselftest"].items()
             if v[0] == "PASS" and ser["kselftest"].get(k, ("missing",))[0] != "PASS"]
    if not worse or ser["verdict"] == "FAIL":
        return 0
    ser["verdict"] = "FAIL"
    ser["reason"] = "mm selftest passes on the base, not with the series: " + ", ".join(worse)
    log(f"{ser['config']} series: FAIL ({ser['reason']})")
    return 1


def kunit_results(logf, tree):
    """{suite/case: PASS|FAIL|SKIP} of the KUnit suites that ran at
    boot, parsed by the tree's own kunit.py; empty if none ran."""
    return kunit.parse_console(logf, os.path.join(WORK, "rt-" + tree, "tools", "testing",
                                                  "kunit", "kunit.py"))


def judge(cell, logf, status, tree):  # spawns the tree's kunit.py
    """Fill CELL with the verdict of the boot whose console is LOGF and
    whose QEMU exited with STATUS: the rtinit checks and kernel reports,
    then the KUnit cases that ran at boot.  The reason is the first
    failure."""
    cell["qemu_status"] = status
    cell.update(evaluate(logf, status))
    cell["kunit"] = kunit_results(logf, tree)
    bad_kunit = [k for k, v in cell["kunit"].items() if v == "FAIL"]
    if bad_kunit and not cell["first_failure"]:
        cell.update(verdict="FAIL", first_failure="KUnit: " + ", ".join(bad_kunit))
    cell["reason"] = cell.pop("first_failure")


def side_by_side(row, trees, field, prefix, fmt, sort=False):
    """Table rows for the keys of cell[FIELD] over every tree, '-'
    where a tree lacks one."""
    keys = []
    for t in trees:
        for k in row.get(t, {}).get(field, {}):
            if k not in keys:
                keys.append(k)
    out = []
    for k in sorted(keys) if sort else keys:
        vals = []
        for t in trees:
            v = row.get(t, {}).get(field, {}).get(k)
            vals.append(fmt(v) if v is not None else "-")
        out.append(f"| {prefix}{k} | " + " | ".join(vals) + " |")
    return out


def write_report(cells, trees):
    save_boot(os.path.join(OUT, "boot.json"), cells)
    names = []
    for c in cells:
        if c["config"] not in names:
            names.append(c["config"])
    lines = ["# Runtime test: base and series side by side", ""]
    for name in names:
        row = {c["tree"]: c for c in cells if c["config"] == name}
        lines += [f"## {name}", ""]
        lines.append("| | " + " | ".join(trees) + " |")
        lines.append("|---|" + "---|" * len(trees))
        for what in ("verdict", "seconds", "debug", "kselftest_not_built"):
            vals = []
            for t in trees:
                c = row.get(t, {})
                v = c.get(what, "")
                if what == "seconds" and v != "":
                    v = f"boot+tests {v:.0f} s"
                if what in ("debug", "kselftest_not_built"):
                    v = " ".join(v) if v else ""
                if what == "verdict" and c.get("reason"):
                    v = f"{v}: {c['reason']}"
                vals.append(str(v))
            lines.append(f"| {what} | " + " | ".join(vals) + " |")
        lines += side_by_side(row, trees, "checks", "",
                              lambda v: f"{v[0]} {v[1]}".replace("|", "/"))
        lines += side_by_side(row, trees, "kunit", "KUnit ", str)
        lines += side_by_side(row, trees, "kselftest", "selftest ",
                              lambda v: f"{v[0]} {v[1]}", sort=True)
        lines += side_by_side(row, trees, "bench", "bench ", lambda v: f"{v[0]:.1f} {v[1]}")
        lines.append("")
    with open(os.path.join(OUT, "boot.md"), "w") as f:
        f.write("\n".join(lines))


def record_key(cfg, tests, append, kselftests):
    """The key of the base's record (scripts/mdesc/expect.py) for a boot
    of CFG with TESTS, the extra command line APPEND and KSELFTESTS."""
    qemu = shlex.split(cfg.meta["qemu"])
    files = {"rtinit.c": RTINIT}
    if cfg.arch == "x86_64":
        files["busybox"] = BUSYBOX
    return {"kernel": expect.kernel_key(cfg),
            "boot": expect.boot_key(qemu[0], cfg.meta["qemu"], cfg.meta.get("user_cc", "gcc"),
                                    files, {"tests": tests, "append": append,
                                            "kselftests": kselftests})}


def record(name, tag, key, cell, cfg):  # spawns nm and objdump
    """Write the base's boot CELL and the code size of its vmlinux as
    the record of NAME.  Only a base that passed is recorded: a base that
    fails is a finding to look at, not an expectation, and a timeout says
    more about the machine than about the kernel."""
    if cell["verdict"] != "PASS":
        log(f"{tag}: not recorded ({cell['verdict']})")
        return
    tool = cfg.make_vars().get("CROSS_COMPILE", "")
    code = bloat.measure(tool, os.path.join(cfg.builddir, "vmlinux"))
    log(f"{tag}: recorded in {expect.save(name, key, cell, code)} "
        "(commit it: a fresh clone then boots only the series)")


def missing_tools(cfg):
    """Why CFG cannot be booted here (no cross compiler, no QEMU), or
    None."""
    try:
        cfg.compiler()
    except LookupError as e:
        return str(e)
    qemu = shlex.split(cfg.meta["qemu"])[0]
    return None if shutil.which(qemu) else f"{qemu} not found"


def tree_commits(trees):  # spawns git
    """{tree: commit} of TREES ('base', 'series'); an unknown tree, or a
    series branch that is still the base, is an error."""
    for t in trees:
        if t not in ("base", "series"):
            die(f"unknown tree {t!r}: base or series")
    commits = {t: tree_commit(t) for t in trees}
    if "series" in commits and commits["series"] == commits.get("base", tree_commit("base")):
        die("branch 'series' is the base: run 'make apply' first")
    return commits


def main(argv=None):  # spawns kernel builds and QEMU
    ap = argparse.ArgumentParser(prog="harness boot", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default="x86_64",
                    help="comma-separated runtime configs, NAME or NAME+VARIANT "
                         f"(variants: {', '.join([*VARIANTS, *SERIES_VARIANTS])}; "
                         "default: %(default)s; 'all')")
    ap.add_argument("--trees", default="base,series", help="default: %(default)s")
    ap.add_argument("--tests", default="",
                    help="rtinit tests to run (default: the config's '# tests:' line, "
                         "else pt,zram,swap,kselftest)")
    ap.add_argument("--kselftests", default="",
                    help="mm selftests to put in the initramfs: a list, or +NAME,... "
                         "to add to the default list")
    ap.add_argument("--append", default="", help="extra kernel command line")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per boot")
    ap.add_argument("--build-only", action="store_true")
    rec = ap.add_mutually_exclusive_group()
    rec.add_argument("--record", action="store_true",
                     help="write what the base gives to runtime/expect/NAME.json ('make boot')")
    rec.add_argument("--base-record", action="store_true",
                     help="take the base from runtime/expect/NAME.json while its key holds, "
                          "else boot it and record it ('make test')")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)

    env = ccache_env()
    kselftests = list(KSELFTESTS)
    if args.kselftests.startswith("+"):
        kselftests += args.kselftests[1:].split(",")
    elif args.kselftests:
        kselftests = args.kselftests.split(",")
    names = args.configs.split(",")
    if names == ["all"]:
        names = sorted(f[:-7] for f in os.listdir(RUNTIME) if f.endswith(".config"))
        names += [v for v in ALL_VARIANTS if v.partition("+")[0] in names]
    trees = args.trees.split(",")
    commits = tree_commits(trees)
    os.makedirs(OUT, exist_ok=True)

    cells, bad = [], 0
    for name in names:
        base_name, variant, lines, vappend = variant_of(name)
        path = os.path.join(RUNTIME, base_name + ".config")
        if not os.path.exists(path):
            die(f"no runtime config {path}")
        append = " ".join(filter(None, (vappend, args.append)))
        for tree in trees:
            cell = {"config": name, "tree": tree, "commit": commits[tree]}
            # A variant that only changes the command line shares the kernel.
            built_as = name if lines else base_name
            builddir = os.path.join(BUILD, "runtime", f"{built_as}-{tree}")
            # The base's own 'runtime-off' symbols (bases/README) come
            # last; the default base has none, so its kernels and their
            # records are as they were.
            extra = tuple(lines) + tuple(
                f"# {sym} is not set" for sym in BASE.runtime_off)
            cfg = Config(path, variant or None, extra, builddir=builddir)
            tag = f"{name} {tree}"
            tests = args.tests or cfg.meta.get("tests", "pt,zram,swap,kselftest")
            why = missing_tools(cfg)
            if tree == "base" and variant in SERIES_VARIANTS:
                why = f"the base has no {', '.join(lines)}: a variant of the series only"
            if why:
                cell.update(verdict="SKIP", reason=why)
            key = None
            if tree == "base" and "verdict" not in cell and not args.build_only and \
                    (args.record or args.base_record):
                key = record_key(cfg, tests, append, kselftests)
            if key and args.base_record:
                recorded, why = expect.load(name, key)
                if recorded:
                    cell = dict(recorded["boot"],
                                recorded=os.path.relpath(expect.record_path(name), TOP))
                    # The series' selftests are built from the base's sources.
                    err = checkout("base", commits["base"])
                    if err:
                        die(err)
                    log(f"{tag}: {cell['verdict']} as recorded in {cell['recorded']} "
                        f"(written {recorded['written']['date']}; every key holds)")
                    cells.append(cell)
                    write_report(cells, trees)
                    continue
                log(f"{tag}: booting the base: {why}")
            if "verdict" not in cell:
                t0 = time.time()
                log(f"{tag}: building {cfg.meta['image']} at {commits[tree][:12]}")
                image, err = build_kernel(cfg, tree, commits[tree], args.jobs, env,
                                          os.path.join(OUT, f"{name}-{tree}.build.log"))
                cell["build_seconds"] = round(time.time() - t0, 1)
                if err:
                    cell.update(verdict="FAIL", reason=err)
                else:
                    cell["debug"] = kconfig_flags(cfg)
                    # The mm selftests are built from the base's
                    # tools/testing/selftests/vm, which 6.3 renamed mm:
                    # a base without it boots without them, and says so.
                    vm = os.path.join(WORK, "rt-base", "tools", "testing", "selftests", "vm")
                    if kselftests and not os.path.isdir(vm):
                        log(f"{tag}: no {os.path.relpath(vm, WORK)} in this base: "
                            "the mm selftests are left out")
                        kselftests = []
                    cpio, err, cell["kselftest_not_built"] = build_initramfs(
                        cfg, os.path.join(builddir, "initramfs"), kselftests)
                    if err:
                        cell.update(verdict="SKIP", reason=err)
            if "verdict" not in cell and not args.build_only:
                logf = os.path.join(OUT, f"{name}-{tree}.log")
                log(f"{tag}: booting (log: {os.path.relpath(logf, TOP)})")
                cell["tests"] = tests
                secs, status = boot(cfg, image, cpio, tests, args.timeout, logf, append)
                cell["seconds"] = round(secs, 1)
                judge(cell, logf, status, tree)
                if any(v == "SKIP" for v in cell["kunit"].values()):
                    cell["kunit_skips"] = kunit.skip_reasons(logf)
                if key:
                    record(name, tag, key, cell, cfg)
            elif "verdict" not in cell:
                cell.update(verdict="BUILT", reason=None)
            if cell["verdict"] == "FAIL":
                bad += 1
            log(f"{tag}: {cell['verdict']}" +
                (f" ({cell['reason']})" if cell.get("reason") else "") +
                (f" in {cell['seconds']:.0f} s" if "seconds" in cell else ""))
            cells.append(cell)
            if tree == "series":
                bad += regressions(cells)
            write_report(cells, trees)
    log(f"report: {os.path.relpath(os.path.join(OUT, 'boot.md'), TOP)}")
    return 1 if bad else 0
