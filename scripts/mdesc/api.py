# SPDX-License-Identifier: GPL-2.0
"""harness api - the final tree against mainline 6.12's ptdesc interface.

Documentation/mainline-api.md lists every ptdesc helper of mainline
6.12's mm_types.h, mm.h, asm-generic/pgalloc.h and asm-generic/tlb.h
with its status in the series (same, adapted, differs, absent) and, for
each one the series has, a check.  This command reads that file's
tables and, at the head of the series:

  1. writes the checks as static assertions into one C file and
     compiles it on x86_64, s390 and i386-pae: every helper listed as
     the series has it must have that type;
  2. greps the tree for every helper listed without a check: its name
     must not occur, so that a helper added later cannot stay listed
     as missing;
  3. compiles the file once more on x86_64 with the first 'same' row's
     type made wrong: the build must fail at that row's assertion (the
     negative test: a check that cannot fail is no check).

It builds in the matrix's work tree and build directories, which the
final state of the matrix leaves configured at the head of the series,
so a config costs the compile of one file.  Prints one PASS/FAIL/SKIP
line per check and the counts per status.
"""

import argparse
import dataclasses
import hashlib
import os
import re
import shlex

from . import cache
from .config import Config
from .errors import CommandFailed, ConfigError, log
from .kconfig import configure
from .make import ccache_env, make_cmd
from .paths import BRANCH, CONFIGS, LINUX, TOP, TREE
from .proc import git, run, show
from .worktree import ensure_worktree

DOC = os.path.join(TOP, "Documentation", "mainline-api.md")
CONFIG_NAMES = ["x86_64", "s390", "i386-pae"]
SOURCE = "mm/harness_api_check.c"
STATUSES = ("same", "adapted", "differs", "absent")
# Where a helper listed without a check must not occur.
# (A pathspec's '*' matches '/' too, but a pattern must match the whole
# path: "arch/*/include" alone would match no file under it.)
GREP_PATHS = ["include", "arch/*/include/*", "mm"]

# The variables a check may use, with mainline's types.
VARIABLES = ("struct mm_struct *mm, struct mmu_gather *tlb, struct ptdesc *pt, "
             "const struct ptdesc *cpt, struct page *page, const struct page *cpage, "
             "pgtable_t pgtable, pgd_t *pgd, pud_t *pud, pmd_t *pmd, pte_t *pte, "
             "unsigned long addr, gfp_t gfp, unsigned int order")


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    status: str
    check: str
    line: int
    # Another form of the helper above it (a const argument): a row,
    # not a helper of its own.
    form: bool = False

    def parts(self):
        """(conditions, expression, type) of the check."""
        conds = []
        text = self.check
        m = re.match(r"^\[([^\]]*)\]\s*(.*)$", text)
        if m:
            conds = [c.strip() for c in m.group(1).split(",") if c.strip()]
            text = m.group(2)
        expr, sep, ctype = text.rpartition(" : ")
        if not sep or not expr.strip() or not ctype.strip():
            raise ConfigError(f"{DOC}:{self.line}: check of {self.name} is not "
                              f"'EXPR : TYPE': {self.check!r}")
        return conds, expr.strip(), ctype.strip()


def parse(text):
    """The rows of the tables of mainline-api.md.  A row's first cell
    is the helper in backquotes; its check and status are the third and
    fourth cells."""
    rows = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5:
            raise ConfigError(f"{DOC}:{i}: {len(cells)} cells, not 5")
        m = re.match(r"`([^`]+)`\s*(.*)$", cells[0])
        name, form = m.group(1), bool(m.group(2))
        status = cells[3]
        check = cells[2].strip("`")
        if status not in STATUSES:
            raise ConfigError(f"{DOC}:{i}: status {status!r} of {name} is none of "
                              f"{', '.join(STATUSES)}")
        if status in ("same", "adapted") and not check:
            raise ConfigError(f"{DOC}:{i}: {name} is {status} but has no check")
        if status == "absent" and check:
            raise ConfigError(f"{DOC}:{i}: {name} is absent but has a check")
        row = Row(name, status, check, i, form)
        if check:
            row.parts()
        rows.append(row)
    if not rows:
        raise ConfigError(f"{DOC}: no table rows")
    return rows


def counts(rows):
    """Helpers per status (another form of a helper is no helper)."""
    return {s: sum(1 for r in rows if r.status == s and not r.form) for s in STATUSES}


def condition(conds):
    out = []
    for c in conds:
        if c == "generic":
            out.append("defined(__ASM_GENERIC_PGALLOC_H)")
        elif re.fullmatch(r"CONFIG_\w+", c):
            out.append(f"IS_ENABLED({c})")
        else:
            out.append(f"({c})")
    return " && ".join(out)


def source(rows, wrong=None):
    """The C file of static assertions.  WRONG: a row whose type is
    replaced by one no helper has (the negative test)."""
    lines = ["// SPDX-License-Identifier: GPL-2.0",
             "/* Written by scripts/harness api from Documentation/mainline-api.md. */",
             "#include <linux/mm.h>", "#include <linux/hugetlb.h>",
             "#include <asm/pgalloc.h>", "#include <asm/tlb.h>", "",
             "#if ALLOC_SPLIT_PTLOCKS", "typedef spinlock_t *mainline_ptl_t;", "#else",
             "typedef spinlock_t mainline_ptl_t;", "#endif", "",
             f"static void __maybe_unused harness_api_check({VARIABLES})", "{"]
    for r in rows:
        if not r.check:
            continue
        conds, expr, ctype = r.parts()
        if r is wrong:
            ctype = "struct harness_api_wrong *"
        assertion = (f"\tstatic_assert(__builtin_types_compatible_p(typeof({expr}), {ctype}), "
                     f"\"mainline-api.md:{r.line}: {r.name}\");")
        if conds:
            lines += [f"#if {condition(conds)}", assertion, "#endif"]
        else:
            lines.append(assertion)
    lines += ["}", ""]
    return "\n".join(lines)


def missing_names(rows, commit):  # spawns git grep
    """{name: files} of the helpers listed without a check that the
    tree at COMMIT has after all."""
    found = {}
    for r in rows:
        if r.check:
            continue
        cmd = ["git", "-C", LINUX, "grep", "-l", "-w", r.name, commit, "--", *GREP_PATHS]
        p = run(cmd, check=False)
        # 1 is 'no match'; anything else is a grep that did not run.
        if p.returncode not in (0, 1):
            raise CommandFailed(shlex.join(cmd), p.stdout, p.returncode)
        if p.returncode == 0:
            found[r.name] = [ln.split(":", 1)[-1] for ln in p.stdout.split()]
    return found


def assertion_failures(output):
    """The mainline-api.md rows named by failed static assertions in
    compiler OUTPUT."""
    return re.findall(r"static assertion failed: \"mainline-api\.md:(\d+): (\S+)\"", output)


def result(status, name, reason=""):
    print(f"{status} {name}" + (f": {reason}" if reason else ""), flush=True)
    return status == "FAIL"


def build(cfg, text, jobs, env):  # spawns make
    """Compile TEXT as SOURCE in the work tree with CFG; returns the
    completed process and the command.  The file and its object are
    removed afterwards: the tree stays as the matrix left it."""
    src = os.path.join(TREE, SOURCE)
    obj = os.path.join(cfg.builddir, SOURCE[:-2] + ".o")
    cmd = make_cmd(cfg, [SOURCE[:-2] + ".o"], jobs, TREE, keep_going=False)
    try:
        with open(src, "w") as f:
            f.write(text)
        return run(cmd, env=env, check=False), cmd
    finally:
        for p in (src, obj, os.path.join(os.path.dirname(obj),
                                         "." + os.path.basename(obj) + ".cmd")):
            if os.path.exists(p):
                os.unlink(p)


def main(argv=None):  # spawns builds
    ap = argparse.ArgumentParser(prog="harness api", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default=",".join(CONFIG_NAMES),
                    help="matrix rows (default: %(default)s)")
    ap.add_argument("--commit", default=BRANCH)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    with open(DOC) as f:
        text = f.read()
    rows = parse(text)
    n = counts(rows)
    log(f"{DOC}: {sum(n.values())} helpers: " + ", ".join(f"{v} {k}" for k, v in n.items()))
    commit = git("rev-parse", args.commit)
    tree_hash = git("rev-parse", commit + "^{tree}")
    failed = 0

    found = missing_names(rows, commit)
    unchecked = sum(1 for r in rows if not r.check)
    if found:
        failed += result("FAIL", "api/missing", "listed without a check, but in the tree: " +
                         "; ".join(f"{k} ({', '.join(v[:3])})" for k, v in found.items()))
    else:
        result("PASS", "api/missing", f"none of the {unchecked} helpers listed without a "
               f"check occurs in {', '.join(GREP_PATHS)} at {commit[:12]}")

    env = ccache_env()
    ensure_worktree(TREE)
    run(["git", "-C", TREE, "checkout", "-q", "--detach", commit])
    good = source(rows)
    digest = hashlib.sha256(good.encode()).hexdigest()
    for name in args.configs.split(","):
        cfg = Config(os.path.join(CONFIGS, name + ".config"))
        label = f"api/{name}"
        try:
            cc = cfg.compiler()[0]
        except LookupError as e:
            result("SKIP", label, str(e))
            continue
        inputs = {"tree": tree_hash, "config": cfg.digest(), "cc": cache.compiler_id(cc),
                  "source": digest}
        hit = cache.get("api", inputs)
        if hit:
            result("PASS", label, hit["record"]["reason"] + " (cached)")
            continue
        err = configure(cfg, args.jobs, env, TREE)
        if err:
            failed += result("FAIL", label, err)
            continue
        p, cmd = build(cfg, good, args.jobs, env)
        named = assertion_failures(p.stdout)
        if p.returncode:
            why = (f"not the listed type: {', '.join(f'{n} (line {ln})' for ln, n in named)}"
                   if named else f"does not compile: {p.stdout.splitlines()[-3:]}")
            failed += result("FAIL", label, f"{why}; reproduce: {show(cmd)}")
            continue
        checks = sum(1 for r in rows if r.check)
        why = f"{checks} checks of mainline's types compiled at {commit[:12]}"
        result("PASS", label, why)
        cache.put("api", inputs, {"reason": why})

    # The negative test, on the first config, with the first row that
    # checks a function's type under no condition (one that a config
    # could compile out would prove nothing).
    first = next((r for r in rows if r.status == "same" and not r.parts()[0]
                  and r.parts()[1].startswith("&")), None)
    cfg = Config(os.path.join(CONFIGS, args.configs.split(",")[0] + ".config"))
    failed += wrong_type(cfg, rows, first, tree_hash, commit, args.jobs, env)
    log(f"{failed} failed")
    return 1 if failed else 0


def wrong_type(cfg, rows, first, tree_hash, commit, jobs, env):  # spawns make
    """Build the check with FIRST's type made wrong: it must fail at
    FIRST's assertion and only there.  Returns 1 if it did not."""
    label = f"api/{cfg.name}/wrong-type-fails"
    if first is None:
        return result("FAIL", label, f"no 'same' row of {DOC} checks a function's address "
                      "without a condition: nothing to make wrong")
    try:
        cc = cfg.compiler()[0]
    except LookupError as e:
        result("SKIP", label, str(e))
        return 0
    bad = source(rows, wrong=first)
    inputs = {"tree": tree_hash, "config": cfg.digest(), "cc": cache.compiler_id(cc),
              "source": hashlib.sha256(bad.encode()).hexdigest()}
    hit = cache.get("api", inputs)
    if hit:
        result("PASS", label, hit["record"]["reason"] + " (cached)")
        return 0
    err = configure(cfg, jobs, env, TREE)
    if err:
        return result("FAIL", label, err)
    p, cmd = build(cfg, bad, jobs, env)
    named = assertion_failures(p.stdout)
    if p.returncode and named == [(str(first.line), first.name)]:
        why = f"{first.name} made wrong: the build fails at its assertion and only there"
        result("PASS", label, why)
        cache.put("api", inputs, {"reason": why})
        return 0
    if p.returncode:
        return result("FAIL", label, f"{first.name} made wrong: the build failed, but at "
                      f"{named or p.stdout.splitlines()[-3:]}; reproduce: {show(cmd)}")
    return result("FAIL", label, f"{first.name} made wrong and the build passed at "
                  f"{commit[:12]}: the check cannot fail")
