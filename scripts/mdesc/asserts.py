# SPDX-License-Identifier: GPL-2.0
"""harness asserts - show that the descriptor layout asserts break the build.

For each descriptor (ptdesc, zsdesc) and each config variant, in a
scratch worktree at the head of the series:

  1. the object that holds the asserts is built unchanged: it must
     compile (the control);
  2. one word of padding is inserted in front of a field of the
     descriptor, a throwaway change that is never part of the series;
  3. the same object is built again: it must fail, and the compiler
     must name the misplaced field in a failed static assertion.

A build that succeeds with the misaligned field fails the check.  The
variants cover ALLOC_SPLIT_PTLOCKS 0 and 1 (x86_64 and x86_64-lockdep)
and MEMCG on and off.  Prints one PASS/FAIL/SKIP line per check.
"""

import argparse
import os
import re

from . import cache
from .config import Config
from .errors import log
from .kconfig import configure
from .make import ccache_env, make_cmd
from .paths import BRANCH, BUILD, CONFIGS, MUTANT
from .proc import git, run, show
from .worktree import mutant_worktree

# MEMCG off, with what depends on it.
NOMEMCG = ["# CONFIG_MEMCG is not set", "# CONFIG_MEMCG_KMEM is not set"]

VARIANTS = [
    ("x86_64", None, []),
    ("x86_64", "nomemcg", NOMEMCG),
    ("x86_64-lockdep", None, []),
    ("x86_64-lockdep", "nomemcg", NOMEMCG),
]

# descriptor: (file, struct line, field to misplace, object)
DESCRIPTORS = {
    "ptdesc": ("include/linux/mm_types.h", "struct ptdesc {", "__page_type",
               "mm/pgtable-generic.o"),
    "zsdesc": ("mm/zsmalloc.c", "struct zsdesc {", "first_obj_offset",
               "mm/zsmalloc.o"),
}


def misalign(path, struct, field):
    """Insert a padding word before FIELD inside the first definition of
    STRUCT that has it; False if none does.  (With the RFC part, struct
    ptdesc has a second definition, for CONFIG_SEPARATE_PTDESC, that
    overlays nothing and has no page words.)"""
    with open(path) as f:
        lines = f.read().split("\n")
    for start in (n for n, line in enumerate(lines) if line == struct):
        for i in range(start + 1, len(lines)):
            if lines[i].startswith("}"):
                break
            if re.search(rf"\b{re.escape(field)}\s*;", lines[i]):
                lines.insert(i, "\tunsigned long harness_misaligned_pad;")
                with open(path, "w") as f:
                    f.write("\n".join(lines))
                return True
    return False


def result(status, name, reason=""):
    print(f"{status} {name}" + (f": {reason}" if reason else ""), flush=True)
    return status


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness asserts", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commit", default=BRANCH)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    env = ccache_env()
    commit = git("rev-parse", args.commit)
    tree_hash = git("rev-parse", commit + "^{tree}")

    mutant_worktree(commit)

    failed = 0
    for desc, (path, struct, field, obj) in DESCRIPTORS.items():
        src = os.path.join(MUTANT, path)
        with open(src) as f:
            present = struct in f.read().split("\n")
        for base, variant, extra in VARIANTS:
            cfg = Config(os.path.join(CONFIGS, base + ".config"), variant, extra)
            cfg.builddir = os.path.join(BUILD, "mutant", cfg.name)
            name = f"asserts/{desc}/{cfg.name}"
            if not present:
                result("SKIP", name, f"{commit[:12]} has no {struct[:-2]}")
                continue
            # The same tree, config, compiler and mutation as a check
            # that fired before: the same verdict (cache.py).
            inputs = {"tree": tree_hash, "config": cfg.digest(),
                      "cc": cache.compiler_id(cfg.compiler()[0]),
                      "mutation": [path, struct, field, obj]}
            hit = cache.get("assert", inputs)
            if hit:
                result("PASS", name, hit["record"]["reason"] + " (cached)")
                continue
            err = configure(cfg, args.jobs, env, MUTANT)
            if err:
                failed += result("FAIL", name, err) == "FAIL"
                continue
            cmd = make_cmd(cfg, [obj], args.jobs, MUTANT)
            p = run(cmd, env=env, check=False)
            if p.returncode:
                failed += result("FAIL", name, f"control build of {obj} failed; "
                                 f"reproduce: {show(cmd)}") == "FAIL"
                continue
            try:
                if not misalign(src, struct, field):
                    failed += result("FAIL", name, f"no field {field} in {struct[:-2]}") == "FAIL"
                    continue
                p = run(cmd, env=env, check=False)
            finally:
                run(["git", "-C", MUTANT, "checkout", "-q", "-f", "--", path])
            fired = [ln.strip() for ln in p.stdout.splitlines()
                     if "static assertion failed" in ln or "static_assert" in ln]
            named = [ln for ln in fired if field in ln]
            if p.returncode == 0:
                failed += result("FAIL", name, f"{obj} built with {field} misaligned") == "FAIL"
            elif not named:
                why = f"naming {field}: {fired[:1] or p.stdout.splitlines()[-1:]}"
                failed += result("FAIL", name,
                                 f"{obj} failed, but not at an assert {why}") == "FAIL"
            else:
                why = f"{len(fired)} assert(s) fired, e.g. {named[0][-110:]}"
                result("PASS", name, why)
                cache.put("assert", inputs, {"reason": why})
    log(f"{failed} failed")
    return 1 if failed else 0
