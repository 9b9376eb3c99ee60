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
they are already built, so the comparison costs no compile.  The base's
side comes from its record, runtime/expect/NAME.json, while the
record's kernel key holds (scripts/mdesc/expect.py; --no-record builds
it); bloat-o-meter then has no base vmlinux to read and is not run.
'make test' does this for x86_64; 'make bloat' builds the matrix rows.
The functions of the objects of C files only the series adds (its KUnit
suites, which the runtime configs turn on) are left out of the sum.

The sum counts each function address once: nm lists an alias at its
function's address, and static functions of one name in several
objects each count.

Results: RESULTS/bloat/CONFIG.bloat-o-meter.txt, RESULTS/bloat/CONFIG.FUNC.diff
for each differing function, RESULTS/bloat/bloat.md and bloat.json.
Prints 'PASS|FAIL|SKIP bloat/CONFIG/...: detail' lines.
"""

import argparse
import collections
import difflib
import os
import re

from . import expect
from .build import build_vmlinux_pair
from .config import Config
from .errors import log
from .make import ccache_env
from .paths import BUILD, CONFIGS, RESULTS, TOP, WORK
from .results import write_json, write_text
from .proc import git, run
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


def function_table(tool, vmlinux):
    """(name, address, size) of every function symbol with a size (weak
    ones too), in nm's order."""
    table = []
    for line in run([tool + "nm", "-S", "--defined-only", vmlinux]).stdout.splitlines():
        f = line.split()
        # t/T: functions; W: weak ones (a __weak default, a syscall
        # stub), which are code of the image as much.
        if len(f) == 4 and f[2] in "tTW":
            table.append((f[3], int(f[0], 16), int(f[1], 16)))
    return table


def symbols(table):
    """name -> (address, size): the first function of each name (static
    functions of different objects can share one)."""
    syms = {}
    for name, addr, size in table:
        syms.setdefault(name, (addr, size))
    return syms


def code_bytes(table, leave_out=()):
    """(bytes, functions left out) of TABLE: the size of every function,
    each address counted once (an alias shares its function's address),
    less one function for each (name, size) in LEAVE_OUT.  Where two
    functions have that name and size, which one goes makes no
    difference to the sum."""
    left = collections.Counter(leave_out)
    names = {}
    for name, addr, size in table:
        names.setdefault(addr, (size, []))[1].append(name)
    total, out = 0, 0
    for size, aliases in names.values():
        # A function left out under any of its names takes its aliases
        # with it.
        gone = next((n for n in aliases if left[(n, size)] > 0), None)
        if gone is None:
            total += size
        else:
            left[(gone, size)] -= 1
            out += 1
    return total, out


def added_objects(series_dir, base, series):
    """The objects of the KUnit suites the series adds (*_kunit.c) that
    its build directory holds.  Any other file the series adds is code
    of the image and stays in the sum."""
    added = git("diff", "--name-only", "--diff-filter=A", base, series, "--", "*_kunit.c")
    return [o for o in (f[:-2] + ".o" for f in added.split())
            if os.path.exists(os.path.join(series_dir, o))]


def object_functions(tool, obj):
    """(name, size) of the functions defined in the object OBJ (a name
    can come twice: static functions of two inlined headers)."""
    out = run([tool + "nm", "-S", "--defined-only", obj], check=False).stdout
    return [(f[3], int(f[1], 16)) for f in (line.split() for line in out.splitlines())
            if len(f) == 4 and f[2] in "tTW"]


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


def measure(tool, vmlinux, own_functions=()):
    """What the code-size check compares, of one vmlinux: the size of
    its .text section, the bytes of its functions and the hot functions
    (size and normalised code).  OWN_FUNCTIONS, (name, size) of the
    functions of the objects only the series builds (its KUnit suites,
    with their out-of-line copies of header helpers), are left out of
    the sum, one function each."""
    table = function_table(tool, vmlinux)
    total, left_out = code_bytes(table, own_functions)
    syms = symbols(table)
    return {
        "text": text_size(tool, vmlinux),
        "functions": total,
        "left_out": left_out,
        "hot": {fn: {"size": syms[fn][1], "code": disasm(tool, vmlinux, *syms[fn])}
                for fn in HOT if fn in syms},
    }


def compare(rec, m, bound):
    """Compare the measures M (base, series) of two vmlinux files: fill
    REC, print the result line and the hot-path lines; True if the
    series' functions grew by no more than BOUND percent."""
    name = rec["config"]
    # Two measures: the size of the .text section, and the bytes of
    # every function.  The first is what the image carries, but
    # page-aligned subsections inside .text (entry text, for one)
    # absorb small changes; the second sees every byte and is the one
    # held to the bound.
    base, ser = m["base"], m["series"]
    delta = ser["functions"] - base["functions"]
    pct = 100.0 * delta / base["functions"]
    rec.update(text_base=base["text"], text_series=ser["text"],
               text_delta=ser["text"] - base["text"],
               funcs_base=base["functions"], funcs_series=ser["functions"],
               funcs_delta=delta, funcs_pct=round(pct, 5))
    ok = pct <= bound
    print(f"{'PASS' if ok else 'FAIL'} bloat/{name}/text: functions {base['functions']} -> "
          f"{ser['functions']} bytes ({delta:+d}, {pct:+.4f}%, bound +{bound}%); "
          f".text section {base['text']} -> {ser['text']}; "
          f"{rec.get('bloat_o_meter', '')}", flush=True)

    rec["hot"] = {}
    for fn in HOT:
        if fn not in base["hot"] or fn not in ser["hot"]:
            rec["hot"][fn] = "not in both (inlined or not built)"
            continue
        a, b = base["hot"][fn], ser["hot"][fn]
        if a["code"] == b["code"]:
            rec["hot"][fn] = f"same code, {a['size']} bytes"
            continue
        diff = list(difflib.unified_diff(a["code"], b["code"], "base", "series",
                                         lineterm="", n=2))
        write_text(os.path.join(OUT, f"{name}.{fn}.diff"), "\n".join(diff) + "\n")
        changed = sum(1 for d in diff if d[:1] in "+-" and d[:3] not in ("+++", "---"))
        rec["hot"][fn] = f"differs: {a['size']} -> {b['size']} bytes, {changed} lines changed"
    for fn, what in rec["hot"].items():
        print(f"  hot {name} {fn}: {what}", flush=True)
    return ok


def bloat_o_meter(rec, vm):
    """The base tree's scripts/bloat-o-meter on the two vmlinux files VM
    (base, series): its report in a file, its summary line in REC."""
    bom = run([os.path.join(WORK, "rt-base", "scripts", "bloat-o-meter"),
               vm["base"], vm["series"]], check=False).stdout
    write_text(os.path.join(OUT, f"{rec['config']}.bloat-o-meter.txt"), bom)
    rec["bloat_o_meter"] = bom.splitlines()[0] if bom else ""


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
                    help="growth of the functions' bytes allowed, in percent "
                         "(default: %(default)s)")
    ap.add_argument("--no-record", action="store_true",
                    help="with --runtime, build the base even when its record holds")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    env = ccache_env()
    os.makedirs(OUT, exist_ok=True)
    report, bad = [], 0
    if args.runtime:
        # label, config file, build directory of each tree, record name
        rows = [("runtime-" + n, os.path.join(CONFIGS, "runtime", n + ".config"),
                 lambda t, n=n: os.path.join(BUILD, "runtime", f"{n}-{t}"), n)
                for n in args.runtime.split(",")]
    else:
        rows = [(n, os.path.join(CONFIGS, n + ".config"),
                 lambda t, n=n: os.path.join(BUILD, "bloat", f"{n}-{t}"), None)
                for n in args.configs.split(",")]
    for name, path, builddir, record_name in rows:
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
        recorded = None
        if record_name and not args.no_record:
            # The runtime test's base kernel, as 'make boot' recorded it.
            recorded, why = expect.load(record_name,
                                        {"kernel": expect.kernel_key(cfgs["base"])})
            where = os.path.relpath(expect.record_path(record_name), TOP)
            log(f"{name}: the base as recorded in {where}" if recorded
                else f"{name}: building the base: {why}")
        rec["build_seconds"], err = build_vmlinux_pair(
            name, cfgs, {t: tree_commit(t) for t in cfgs}, args.jobs, env, OUT,
            skip={"base"} if recorded else ())
        if err:
            print(f"FAIL bloat/{name}: {err}", flush=True)
            rec["status"] = "FAIL"
            bad += 1
            report.append(rec)
            continue
        vm = {t: os.path.join(c.builddir, "vmlinux") for t, c in cfgs.items()}
        series_dir = cfgs["series"].builddir
        own = added_objects(series_dir, tree_commit("base"), tree_commit("series"))
        own_functions = []
        for o in own:
            own_functions += object_functions(tool, os.path.join(series_dir, o))
        m = {"series": measure(tool, vm["series"], own_functions)}
        if own:
            rec["left_out"] = {"objects": own, "functions": m["series"]["left_out"]}
            print(f"  {name}: left out {m['series']['left_out']} functions of objects only "
                  f"the series builds: {', '.join(own)}", flush=True)
        if recorded:
            m["base"] = recorded["code"]
            rec["base_recorded"] = os.path.relpath(expect.record_path(record_name), TOP)
            rec["bloat_o_meter"] = (f"base from {rec['base_recorded']}: no bloat-o-meter "
                                    "('make bloat' compares two vmlinux files)")
        else:
            m["base"] = measure(tool, vm["base"])
            bloat_o_meter(rec, vm)
        ok = compare(rec, m, args.bound)
        bad += not ok
        rec["status"] = "PASS" if ok else "FAIL"
        report.append(rec)

    write_json(os.path.join(OUT, "bloat.json"), report)
    write_text(os.path.join(OUT, "bloat.md"), markdown(report))
    log(f"report: {os.path.relpath(os.path.join(OUT, 'bloat.md'), TOP)}")
    return 1 if bad else 0
