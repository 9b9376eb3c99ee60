# SPDX-License-Identifier: GPL-2.0
"""harness bloat - code size and hot-path code of the series against the base.

For each config (a matrix row in configs/), link vmlinux at the base and
at the head of the series in build directories of their own, then:

  - run the base tree's scripts/bloat-o-meter on the two vmlinux files;
  - compare the code sizes (the sum of every function's size, and the
    .text section): the series fails when its functions grow by more
    than --bound percent (default 0.01);
  - disassemble the hot-path functions (page-table allocation and
    freeing, zsmalloc's map/unmap/malloc/free/compact) in both, with
    addresses and symbol offsets normalised, and list the ones whose
    code differs, with their sizes.

With --runtime NAME the kernels are those of the runtime test's config
configs/runtime/NAME.config (a matrix row plus the debug fragment),
in the build directories scripts/harness boot uses: after a boot test
they are already built, so the comparison costs no compile.  'make
test' does this for x86_64; 'make bloat' builds the matrix rows.  The
functions of objects that only the series builds (its KUnit suites,
which the runtime configs turn on) are left out of the sum and listed.

Results: RESULTS/bloat/CONFIG.bloat-o-meter.txt, RESULTS/bloat/CONFIG.FUNC.diff
for each differing function, RESULTS/bloat/bloat.md and bloat.json.
Prints 'PASS|FAIL|SKIP bloat/CONFIG/...: detail' lines.
"""

import argparse
import difflib
import os
import re
import time

from .build import build_in_tree
from .config import Config
from .errors import log
from .make import ccache_env
from .paths import BUILD, CONFIGS, RESULTS, TOP, WORK
from .results import write_json, write_text
from .proc import run
from .worktree import tree_commit

OUT = os.path.join(RESULTS, "bloat")
HOT = ["__pte_alloc", "__pte_alloc_kernel", "__pmd_alloc", "__pud_alloc",
       "pte_alloc_one", "pgd_alloc", "pgd_free", "___pte_free_tlb",
       "___pmd_free_tlb", "free_pgd_range", "free_pgtables", "pmd_install",
       "zs_malloc", "zs_free", "zs_map_object", "zs_unmap_object", "zs_compact"]


def text_size(tool, vmlinux):
    out = run([tool + "readelf", "-SW", vmlinux]).stdout
    for line in out.splitlines():
        m = re.search(r"\]\s+\.text\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)", line)
        if m:
            return int(m.group(1), 16)
    return None


def symbols(tool, vmlinux):
    """name -> (address, size) of the function symbols."""
    syms = {}
    for line in run([tool + "nm", "-S", "--defined-only", vmlinux]).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            syms.setdefault(f[3], (int(f[0], 16), int(f[1], 16)))
    return syms


def own_objects(series_dir, base_dir):
    """Objects the series build has and the base build does not."""
    def objs(top):
        found = set()
        for d, _, files in os.walk(top):
            for f in files:
                if f.endswith(".o") and not f.startswith((".", "vmlinux")) and \
                        f != "built-in.o":
                    found.add(os.path.relpath(os.path.join(d, f), top))
        return found
    return sorted(objs(series_dir) - objs(base_dir))


def object_functions(tool, obj):
    out = run([tool + "nm", "--defined-only", obj], check=False).stdout
    return {f[2] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tT"}


def disasm(tool, vmlinux, addr, size):
    out = run([tool + "objdump", "-d", "--no-show-raw-insn",
               f"--start-address={addr:#x}", f"--stop-address={addr + size:#x}",
               vmlinux]).stdout
    lines = []
    for line in out.splitlines():
        m = re.match(r"^\s*[0-9a-f]+:\s+(.*)$", line)
        if not m:
            continue
        ins = m.group(1)
        ins = re.sub(r"<([^>+]+)\+0x[0-9a-f]+>", r"<\1+X>", ins)
        ins = re.sub(r"\b(0x)?[0-9a-f]{6,16}\b", "ADDR", ins)
        lines.append(ins.strip())
    return lines


def compare(rec, tool, vm, series_dir, base_dir, bound):
    """Compare the two vmlinux files VM (base, series): fill REC, print
    the result line and the hot-path lines; True if within BOUND."""
    name = rec["config"]
    bom = run([os.path.join(WORK, "rt-base", "scripts", "bloat-o-meter"),
               vm["base"], vm["series"]], check=False).stdout
    with open(os.path.join(OUT, f"{name}.bloat-o-meter.txt"), "w") as f:
        f.write(bom)
    rec["bloat_o_meter"] = bom.splitlines()[0] if bom else ""
    # Two measures: the size of the .text section, and the sum of
    # the sizes of every function symbol.  The first is what the
    # image carries, but page-aligned subsections inside .text (entry
    # text, for one) absorb small changes; the second sees every byte
    # and is the one held to the bound.
    syms = {t: symbols(tool, v) for t, v in vm.items()}
    own = own_objects(series_dir, base_dir)
    if own:
        left_out = set()
        for o in own:
            left_out |= object_functions(tool, os.path.join(series_dir, o))
        left_out -= set(syms["base"])
        for fn in left_out:
            syms["series"].pop(fn, None)
        rec["left_out"] = {"objects": own, "functions": len(left_out)}
        print(f"  {name}: left out {len(left_out)} functions of objects only the series "
              f"builds: {', '.join(own)}", flush=True)
    section = {t: text_size(tool, v) for t, v in vm.items()}
    funcs = {t: sum(size for _, size in syms[t].values()) for t in vm}
    delta = funcs["series"] - funcs["base"]
    pct = 100.0 * delta / funcs["base"]
    rec.update(text_base=section["base"], text_series=section["series"],
               text_delta=section["series"] - section["base"],
               funcs_base=funcs["base"], funcs_series=funcs["series"],
               funcs_delta=delta, funcs_pct=round(pct, 5))
    ok = pct <= bound
    print(f"{'PASS' if ok else 'FAIL'} bloat/{name}/text: functions {funcs['base']} -> "
          f"{funcs['series']} bytes ({delta:+d}, {pct:+.4f}%, bound +{bound}%); "
          f".text section {section['base']} -> {section['series']}; "
          f"{rec['bloat_o_meter']}", flush=True)

    rec["hot"] = {}
    for fn in HOT:
        if fn not in syms["base"] or fn not in syms["series"]:
            rec["hot"][fn] = "not in both (inlined or not built)"
            continue
        a = disasm(tool, vm["base"], *syms["base"][fn])
        b = disasm(tool, vm["series"], *syms["series"][fn])
        sb, ss = syms["base"][fn][1], syms["series"][fn][1]
        if a == b:
            rec["hot"][fn] = f"same code, {sb} bytes"
            continue
        diff = list(difflib.unified_diff(a, b, "base", "series", lineterm="", n=2))
        with open(os.path.join(OUT, f"{name}.{fn}.diff"), "w") as f:
            f.write("\n".join(diff) + "\n")
        changed = sum(1 for d in diff if d[:1] in "+-" and d[:3] not in ("+++", "---"))
        rec["hot"][fn] = f"differs: {sb} -> {ss} bytes, {changed} lines changed"
    for fn, what in rec["hot"].items():
        print(f"  hot {name} {fn}: {what}", flush=True)
    return ok


def markdown(report):
    md = ["# Code size: series against base", "",
          "| config | functions, base | series | delta | .text section delta | bloat-o-meter |",
          "|---|---|---|---|---|---|"]
    for r in report:
        if "funcs_base" in r:
            md.append(f"| {r['config']} | {r['funcs_base']} | {r['funcs_series']} | "
                      f"{r['funcs_delta']:+d} ({r['funcs_pct']:+.4f}%) | {r['text_delta']:+d} | "
                      f"{r['bloat_o_meter']} |")
        else:
            md.append(f"| {r['config']} | {r['status']} | | | | |")
    md += ["", "## Hot paths", ""]
    for r in report:
        for fn, what in r.get("hot", {}).items():
            md.append(f"- {r['config']} `{fn}`: {what}")
    return "\n".join(md) + "\n"


def main(argv=None):  # spawns builds of both kernels
    ap = argparse.ArgumentParser(prog="harness bloat", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default="x86_64",
                    help="matrix rows, comma-separated (default: %(default)s)")
    ap.add_argument("--runtime", default="",
                    help="runtime configs instead of matrix rows (the boot test's kernels)")
    ap.add_argument("--bound", type=float, default=0.01,
                    help=".text growth allowed, in percent (default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    env = ccache_env()
    os.makedirs(OUT, exist_ok=True)
    report, bad = [], 0
    if args.runtime:
        # label, config file, build directory of each tree
        rows = [("runtime-" + n, os.path.join(CONFIGS, "runtime", n + ".config"),
                 lambda t, n=n: os.path.join(BUILD, "runtime", f"{n}-{t}"))
                for n in args.runtime.split(",")]
    else:
        rows = [(n, os.path.join(CONFIGS, n + ".config"),
                 lambda t, n=n: os.path.join(BUILD, "bloat", f"{n}-{t}"))
                for n in args.configs.split(",")]
    for name, path, builddir in rows:
        rec = {"config": name}
        cfgs = {t: Config(path, builddir=builddir(t)) for t in ("base", "series")}
        try:
            cfgs["base"].compiler()
        except LookupError as e:
            print(f"SKIP bloat/{name}: {e}", flush=True)
            rec["status"] = "SKIP"
            report.append(rec)
            continue
        tool = cfgs["base"].make_vars().get("CROSS_COMPILE", "")
        t0 = time.time()
        err = None
        for t, cfg in cfgs.items():
            log(f"{name}: vmlinux at {t}")
            err = build_in_tree(cfg, t, tree_commit(t), "vmlinux", args.jobs, env,
                                os.path.join(OUT, f"{name}-{t}.build.log"))
            if err:
                err = f"{t}: {err}"
                break
        rec["build_seconds"] = round(time.time() - t0)
        if err:
            print(f"FAIL bloat/{name}: {err}", flush=True)
            rec["status"] = "FAIL"
            bad += 1
            report.append(rec)
            continue
        vm = {t: os.path.join(c.builddir, "vmlinux") for t, c in cfgs.items()}
        ok = compare(rec, tool, vm, cfgs["series"].builddir, cfgs["base"].builddir, args.bound)
        bad += not ok
        rec["status"] = "PASS" if ok else "FAIL"
        report.append(rec)

    write_json(os.path.join(OUT, "bloat.json"), report)
    write_text(os.path.join(OUT, "bloat.md"), markdown(report))
    log(f"report: {os.path.relpath(os.path.join(OUT, 'bloat.md'), TOP)}")
    return 1 if bad else 0
