# SPDX-License-Identifier: GPL-2.0
"""The result model: statuses, result lines, and the only code that
reads and writes matrix.json and boot.json.

A *cell* is one step built with one config (matrix.json); a *boot* is
one tree booted with one runtime config (boot.json).  Either turns
into result lines 'STATUS name: reason', which run-tests.sh records
(harness lines matrix|boot FILE).  Files are written whole or not at
all (a temporary file renamed over the old one): a run stopped at any
moment leaves the last complete file, never half of one.
"""

import argparse
import enum
import json
import os
import re
import tempfile
from dataclasses import dataclass

from .errors import ResultsUnreadable

UMASK = os.umask(0)
os.umask(UMASK)


class Status(str, enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"
    NA = "N/A"        # a cell the step cannot affect: not a test
    BUILT = "BUILT"   # a boot kernel built, not booted (--build-only)

    def __str__(self):
        return self.value


@dataclass(frozen=True)
class Line:
    """One result line: what run-tests.sh counts."""
    status: Status
    name: str
    reason: str = ""

    def __str__(self):
        return f"{self.status} {self.name}" + (f": {self.reason}" if self.reason else "")

    @classmethod
    def parse(cls, text):
        """A 'STATUS name[: reason]' line, or None for any other line."""
        m = re.match(r"^(PASS|FAIL|SKIP) (.+?)(?:: (.*))?$", text.rstrip("\n"))
        if not m:
            return None
        return cls(Status(m.group(1)), m.group(2), m.group(3) or "")


def write_json(path, data):
    """Write DATA to PATH as JSON, atomically."""
    write_text(path, json.dumps(data, indent=1) + "\n")


def write_text(path, text):
    """Write TEXT to PATH atomically: a complete file renamed over the
    old one, so that a run stopped here leaves one or the other."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    # mkstemp makes the file 0600; a result file is as readable as one
    # open() would create.
    os.chmod(tmp, 0o666 & ~UMASK)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise ResultsUnreadable(f"{path}: no such file (did the run start?)") from None
    except (OSError, ValueError) as e:
        raise ResultsUnreadable(f"{path}: not readable as JSON ({e}); "
                                "the run that wrote it was cut short") from None


CELL_KEYS = ("config", "step", "kind", "status", "reason")
STATUSES = {s.value for s in Status}


def load_matrix(path):
    """A matrix.json, checked: cells with the keys every reader uses, a
    known status, and no cell twice (config, step, kind)."""
    meta = _load(path)
    if not isinstance(meta, dict) or not isinstance(meta.get("cells"), list):
        raise ResultsUnreadable(f"{path}: no list of cells")
    seen = set()
    for i, c in enumerate(meta["cells"]):
        missing = [k for k in CELL_KEYS if not isinstance(c, dict) or k not in c]
        if missing:
            raise ResultsUnreadable(f"{path}: cell {i} lacks {', '.join(missing)}")
        if c["status"] not in STATUSES:
            raise ResultsUnreadable(f"{path}: cell {i} has status {c['status']!r}")
        key = (c["config"], c["step"], c["kind"])
        if key in seen:
            raise ResultsUnreadable(f"{path}: cell {key[0]} step {key[1]} "
                                    f"({key[2]}) is there twice")
        seen.add(key)
    return meta


def save_matrix(path, meta):
    write_json(path, meta)


def cell_key(c):
    return (c["config"], c["step"], c["kind"])


def cells_by_key(meta):
    return {cell_key(c): c for c in meta["cells"]}


def status_counts(cells, key="status"):
    counts = {}
    for c in cells:
        counts[c[key]] = counts.get(c[key], 0) + 1
    return counts


def matrix_lines(meta):
    """One line per cell that is a test (N/A cells are not):
    'matrix/CONFIG/step N', 'matrix/CONFIG/sparse step N' for a run
    with sparse, 'matrix/CONFIG/link' for a full link; a cell taken
    from the verdict cache says 'cached'."""
    tag = "sparse " if meta.get("sparse") else ""
    out = []
    if not meta.get("complete", True):
        # A run that stopped part way: what it built is shown, and the
        # run itself fails, so that the steps it never reached cannot
        # pass by being absent.
        out.append(Line(Status.FAIL, "matrix",
                        f"incomplete: the run stopped after step "
                        f"{meta.get('done_to_step', '?')} of {meta.get('patches', '?')}"))
    for c in meta["cells"]:
        if c["status"] == Status.NA:
            continue
        what = "link" if c["kind"] == "link" else f"{tag}step {c['step']}"
        reason = c["reason"] or ""
        if c.get("cached"):
            # A verdict reused from the verdict cache says so.
            reason = f"{reason} (cached)" if reason else "cached"
        out.append(Line(Status(c["status"]), f"matrix/{c['config']}/{what}", reason))
    return out


def matrix_markdown(meta, names):
    """The Markdown matrix of META: a row per step (and per link), a
    column per config in NAMES, totals and reasons."""
    cells = meta["cells"]
    short = {"PASS": "PASS", "FAIL": "**FAIL**", "SKIP": "SKIP", "N/A": "-"}
    rows = {}
    for c in cells:
        rows.setdefault((c["step"], c["kind"]), {})[c["config"]] = c
    out = [f"# Build matrix ({meta['date']})", "",
           f"base {meta['base'][:12]}, head {meta['head'][:12]}, "
           f"{len(cells)} cells, {meta['elapsed']}s", ""]
    if not meta.get("complete", True):
        out += [f"**Incomplete:** the run had reached step {meta['done_to_step']} of "
                f"{meta['patches']}; new warnings not yet compared with the base.", ""]
    out += ["| step | " + " | ".join(names) + " |",
            "|---" * (len(names) + 1) + "|"]
    for (idx, kind) in sorted(rows):
        row = rows[(idx, kind)]
        label = next(iter(row.values()))["patch"] if kind == "objects" else "vmlinux link"
        label = re.sub(r"^(.*/)?(\d{4})-(.{0,40}).*\.patch$", r"\1\2 \3", label)
        out.append(f"| {idx} {label} | " +
                   " | ".join(short[row[n]["status"]] if n in row else "" for n in names) + " |")
    out += ["", "Totals: " + ", ".join(f"{k} {v}" for k, v in
                                       sorted(status_counts(cells).items())),
            "", "Reasons:", ""]
    seen = set()
    for c in cells:
        if c["status"] in ("FAIL", "SKIP") and (c["config"], c["reason"]) not in seen:
            seen.add((c["config"], c["reason"]))
            out.append(f"- {c['config']} step {c['step']}: {c['status']}: {c['reason']}")
    return "\n".join(out) + "\n"


def load_boot(path):
    """A boot.json: a list of boots, each with config, tree and verdict."""
    boots = _load(path)
    if not isinstance(boots, list):
        raise ResultsUnreadable(f"{path}: not a list of boots")
    for i, b in enumerate(boots):
        missing = [k for k in ("config", "tree", "verdict")
                   if not isinstance(b, dict) or k not in b]
        if missing:
            raise ResultsUnreadable(f"{path}: boot {i} lacks {', '.join(missing)}")
        if b["verdict"] not in STATUSES:
            raise ResultsUnreadable(f"{path}: boot {i} has verdict {b['verdict']!r}")
    return boots


def save_boot(path, boots):
    write_json(path, boots)


def boot_lines(boots):
    """A line per boot ('boot/CONFIG/TREE'), per check of its rtinit
    and per KUnit case that ran at boot."""
    out = []
    for b in boots:
        name = f"boot/{b['config']}/{b['tree']}"
        if b.get("recorded"):
            # The base from its record (scripts/mdesc/expect.py).  Its
            # checks ran when it was recorded, not now: no lines of them.
            out.append(Line(Status(b["verdict"]), name,
                            f"as recorded in {b['recorded']}, not booted in this run" +
                            (f": {b['reason']}" if b.get("reason") else "")))
            continue
        took = f" in {b['seconds']:.0f} s" if "seconds" in b else ""
        out.append(Line(Status(b["verdict"]), name,
                        (b.get("reason") or "booted, every check verified") + took))
        for k, (v, d) in sorted(b.get("checks", {}).items()):
            out.append(Line(Status(v), f"{name}/{k}", d))
        why = b.get("kunit_skips", {})
        for k, v in b.get("kunit", {}).items():
            out.append(Line(Status(v), f"{name}/kunit/{k}",
                            why.get(k.rsplit("/", 1)[-1], "") if v == "SKIP" else ""))
    return out


def bench_markdown(reports):
    """RESULTS/bench/bench.md: per config, the controls' verdict and the
    series/base time ratios (scripts/mdesc/bench.py)."""
    out = ["# Run time, counted in instructions: series / base", "",
           "Guest time under QEMU's -icount on one vCPU: one nanosecond per "
           "instruction at shift 0. Instruction counts see no cache, TLB or "
           "branch-predictor effects, and weigh every instruction the same.", ""]
    for r in reports:
        m = r["method"]
        k = r["kernels"]
        out += [f"## {r['config']}", "",
                "Kernels: " + ", ".join(f"{kind} {c[:12]}" for kind, c in k.items()) +
                f"; {r['rounds']} rounds, interleaved; {r['seconds']} s of boots.",
                f"QEMU: `{r['qemu']}`; kernel command line: `{r['append'] or '(nothing added)'}`"
                + (f"; {r['rebooted']} boot(s) repeated for their clock." if r["rebooted"]
                   else "."), ""]
        if "layout" in m:
            worst = max(m["layout"]["ratios"].items(), key=lambda kv: abs(kv[1]["median"] - 1))
            out.append(f"- Layout control ({r['shift']} bytes of padding in init/main.o): "
                       f"{'holds' if m['layout']['ok'] else 'FAILS'}; the furthest median "
                       f"from 1 is {worst[0]}'s, {worst[1]['median']:.4f} "
                       f"(tolerance {m['layout']['tolerance']}).")
        if "positive" in m:
            p = m["positive"]
            off = (p["measured_ns"] - p["expected_ns"]) / p["expected_ns"]
            out.append(f"- Positive control (`{r['control_loop']['statement']}` in "
                       f"vm_mmap_pgoff()): {p['benchmark']} expected +{p['expected_ns']:,} ns "
                       f"per operation, measured {p['measured_ns']:+,.0f} ns ({off:+.1%}; "
                       f"tolerance {p['tolerance']:.0%}): "
                       f"{'holds' if p['ok'] else 'FAILS'}.")
        out.append("- " + ("The method holds: the ratios below count." if m["ok"] else
                           f"No ratios for this config: {m['why']}."))
        out.append("")
        head = "| benchmark | base ns per unit | series |"
        if m["ok"]:
            head += " series/base min | median | max | goal |"
        for kind in ("layout", "positive"):
            if kind in r["per_op"]:
                head += f" {kind}/base median |"
        variants = r.get("variant_ratios", {})
        for kind in variants:
            head += f" {kind}/series min | median | max |"
        out += [head, "|---" * (head.count("|") - 1) + "|"]
        for name, b in r["benchmarks"].items():
            row = (f"| {name} (ns per {r['units'][name]}) | {b['base']['median']:,.1f} | "
                   f"{b['series']['median']:,.1f} |")
            if m["ok"]:
                q = r["ratios"][name]
                met = "met" if q["met"] else f"**missed by {q['median'] - q['goal']:.4f}**"
                row += (f" {q['min']:.4f} | **{q['median']:.4f}** | {q['max']:.4f} | "
                        f"{met} (<= {q['goal']}) |")
            for kind in ("layout", "positive"):
                if kind in r["per_op"]:
                    row += f" {b[kind]['median'] / b['base']['median']:.4f} |"
            for kind, q in variants.items():
                row += (f" {q[name]['min']:.4f} | **{q[name]['median']:.4f}** | "
                        f"{q[name]['max']:.4f} |")
            out.append(row)
        out.append("")
    return "\n".join(out)


def save_bench(directory, reports):
    """bench.json and bench.md in DIRECTORY; returns bench.md's path."""
    write_json(os.path.join(directory, "bench.json"), reports)
    md = os.path.join(directory, "bench.md")
    write_text(md, bench_markdown(reports))
    return md


def table_row(label, row, trees, fn):
    """A Markdown row: LABEL, then FN of each tree's cell in ROW ('-'
    where a tree has none), with '|' kept out of the cells."""
    return f"| {label} | " + " | ".join(
        str(fn(row[t])).replace("|", "/") if t in row else "-" for t in trees) + " |"


def injected_text(counts):
    """'N (cap M)', and whether the cap stopped the injection early."""
    if not counts:
        return "-"
    n, cap = counts
    return f"{n} ({cap})" + (", cap reached" if cap and n >= cap else "")


def fault_markdown(cells, trees):
    """RESULTS/fault/fault.md: per config, base and series side by side
    (scripts/mdesc/fault.py)."""
    out = ["# The runtime stress with allocations failing: base and series", ""]
    names = list(dict.fromkeys(c["config"] for c in cells))
    for name in names:
        row = {c["tree"]: c for c in cells if c["config"] == name}
        out += [f"## {name}", "", "| | " + " | ".join(trees) + " |",
                "|---|" + "---|" * len(trees)]

        def line(label, fn):
            out.append(table_row(label, row, trees, fn))

        line("verdict", lambda c: c["verdict"] + (f": {c['reason']}" if c.get("reason") else ""))
        line("boot and tests", lambda c: f"{c['seconds']:.0f} s" if "seconds" in c else "")
        line("debug", lambda c: " ".join(c.get("debug", [])))
        tests = list(dict.fromkeys(k for c in row.values() for k in c.get("injected", {})))
        for test in tests:
            for cap in ("fail_page_alloc", "failslab"):
                line(f"{test}: {cap} injected (cap)", lambda c: injected_text(
                    c.get("injected", {}).get(test, {}).get(cap)))
            line(f"{test}: stack dumps ptlock / page-table / zsmalloc / other",
                 lambda c: " / ".join(str(c.get("dumps", {}).get(test, {}).get(k, 0))
                                      for k in ("ptlock", "page-table", "zsmalloc", "other")))
        line("page-table and ptlock hits in all", lambda c: c.get("pt_hits", "-"))
        line("allowed outcomes", lambda c: ", ".join(
            f"{k} {v}" for k, v in c.get("outcomes", {}).items() if v) or "none")
        checks = list(dict.fromkeys(k for c in row.values() for k in c.get("checks", {})))
        for k in checks:
            line(k, lambda c: " ".join(c.get("checks", {}).get(k, ("-", ""))))
        kunit_cases = list(dict.fromkeys(k for c in row.values() for k in c.get("kunit", {})))
        for k in kunit_cases:
            line(f"KUnit {k}", lambda c: c.get("kunit", {}).get(k, "-"))
        out.append("")
        for t in trees:
            sites = row.get(t, {}).get("pt_sites")
            if sites:
                out.append(f"Where the page-table failures landed ({t}): " +
                           "; ".join(f"{s or '?'} {n}" for s, n in sites) + ".")
        out.append("")
    return "\n".join(out)


def load_cells(path):
    """A fault.json or fuzz.json: a list of boots, as boot.json; an
    empty list when there is none yet."""
    return load_boot(path) if os.path.exists(path) else []


def merge_cells(cells, cell):
    """CELLS with CELL in place of the one of its config and tree, or
    added at the end."""
    key = (cell["config"], cell["tree"])
    out = [c if (c["config"], c["tree"]) != key else cell for c in cells]
    return out if cell in out else out + [cell]


def save_cells(directory, stem, cells, markdown):
    """STEM.json (CELLS) and STEM.md (MARKDOWN) in DIRECTORY; returns
    the Markdown file's path."""
    write_json(os.path.join(directory, stem + ".json"), cells)
    md = os.path.join(directory, stem + ".md")
    write_text(md, markdown)
    return md


def fuzz_markdown(cells, trees):
    """RESULTS/fuzz/fuzz.md: per config, base and series side by side
    (scripts/mdesc/fuzz.py)."""
    out = ["# trinity and stress-ng on the mm system calls: base and series", ""]
    for name in dict.fromkeys(c["config"] for c in cells):
        row = {c["tree"]: c for c in cells if c["config"] == name}
        out += [f"## {name}", "", "| | " + " | ".join(trees) + " |",
                "|---|" + "---|" * len(trees)]

        def line(label, fn):
            out.append(table_row(label, row, trees, fn))

        line("verdict", lambda c: c["verdict"] + (f": {c['reason']}" if c.get("reason") else ""))
        line("commit", lambda c: c["commit"][:12])
        line("command line", lambda c: f"`{c.get('append', '')}`")
        line("boot and fuzzing", lambda c: f"{c['seconds']:.0f} s" if "seconds" in c else "")
        line("debug", lambda c: " ".join(c.get("debug", [])))
        for k in dict.fromkeys(k for c in row.values() for k in c.get("checks", {})):
            line(k, lambda c: " ".join(c.get("checks", {}).get(k, ("-", ""))))
        line("kernel reports", lambda c: "; ".join(c.get("report_kinds", [])) or "none")
        line("OOM kills", lambda c: c.get("oom_kills", "-"))
        out.append("")
    return "\n".join(out)


def main(argv=None):
    """harness lines matrix|boot FILE, or harness lines cell FILE CONFIG
    STEP [KIND] (the status and reason of one cell, or MISSING)."""
    ap = argparse.ArgumentParser(prog="harness lines", description=main.__doc__)
    ap.add_argument("kind", choices=("matrix", "boot", "cell"))
    ap.add_argument("file")
    ap.add_argument("cell", nargs="*", metavar="CONFIG STEP [KIND]")
    args = ap.parse_args(argv)
    if args.kind == "cell":
        if len(args.cell) not in (2, 3):
            ap.error("cell takes CONFIG STEP [KIND]")
        key = (args.cell[0], int(args.cell[1]), args.cell[2] if len(args.cell) == 3 else "objects")
        c = cells_by_key(load_matrix(args.file)).get(key)
        print(f"{c['status']} {c['reason']}" if c else "MISSING")
        return 0
    lines = matrix_lines(load_matrix(args.file)) if args.kind == "matrix" \
        else boot_lines(load_boot(args.file))
    for ln in lines:
        print(ln)
    return 0
