# SPDX-License-Identifier: GPL-2.0
"""harness ccache-objects - objects built through ccache are the objects built without it.

The harness shares one ccache between checkouts (CCACHE_BASEDIR), which
makes ccache rewrite the paths on the compiler's command line.  A cached
object must still be byte for byte the object a plain build makes, or a
warm run checks other code than a cold one, and two runs of the same
cell disagree.

In the mutant worktree at the head of the series, for each config, the
OBJECTS (objects that print __FILE__: WARN(), BUG()) are deleted and
built again, five ways:

  plain         CC without ccache: the reference;
  depend        ccache in depend mode, a forced miss (CCACHE_RECACHE);
  preprocessor  ccache in its preprocessor mode, a forced miss;
  no-relmap     preprocessor mode without the harness's relative
                -fmacro-prefix-map: the objects must differ from the
                reference, or this check could not fail;
  hit           ccache as the harness runs it, a hit.

Prints one PASS/FAIL/SKIP line per config.  The last build is the
harness's own, so the build directory is left as it was.
"""

import argparse
import os
import re

from .config import Config
from .errors import log
from .kconfig import configure
from .make import ccache_env, make_cmd
from .objects import sha256
from .paths import BRANCH, BUILD, CONFIGS, MUTANT
from .proc import git, run, show
from .worktree import mutant_worktree

OBJECTS = ["mm/pgtable-generic.o"]


def file_names(path):
    """The source file names in an object's strings (__FILE__)."""
    with open(path, "rb") as f:
        data = f.read()
    return sorted({m.decode() for m in re.findall(rb"[\w./-]+\.[ch](?=\0)", data)
                   if b"/" in m})


def build(cfg, cmd, env):
    """Delete OBJECTS, build them with CMD and ENV; their digests or
    the reason the build failed."""
    for o in OBJECTS:
        try:
            os.unlink(os.path.join(cfg.builddir, o))
        except FileNotFoundError:
            pass
    p = run(cmd, env=env, check=False)
    if p.returncode:
        return None, f"make failed: {show(cmd)}"
    return {o: sha256(os.path.join(cfg.builddir, o)) for o in OBJECTS}, None


def result(status, name, reason):
    print(f"{status} {name}: {reason}", flush=True)
    return status == "FAIL"


def check(cfg, jobs, env):
    name = f"ccache/{cfg.name}"
    cmd = make_cmd(cfg, OBJECTS, jobs, MUTANT, keep_going=False)
    if not any(a.startswith("CC=ccache ") for a in cmd):
        return result("SKIP", name, "ccache is not in use (not installed, or NO_CCACHE)")
    # The plain build changes CC only: HOSTCC the same keeps the host
    # programs from being rebuilt.
    plain = [re.sub(r"^CC=ccache ", "CC=", a) for a in cmd if not a.startswith("KCFLAGS=")]
    depend = dict(env, CCACHE_RECACHE="1")
    preproc = dict(env, CCACHE_RECACHE="1")
    preproc.pop("CCACHE_DEPEND", None)
    norelmap = make_cmd(cfg, OBJECTS, jobs, MUTANT, keep_going=False, relmap=False)

    # The harness's own way last: it leaves the objects as they were.
    ways = [("plain", plain, env), ("depend", cmd, depend),
            ("preprocessor", cmd, preproc), ("no-relmap", norelmap, preproc),
            ("hit", cmd, env)]
    got, names = {}, {}
    try:
        for way, c, e in ways:
            got[way], err = build(cfg, c, e)
            if err:
                return result("FAIL", name, f"{way}: {err}")
            if way in ("plain", "no-relmap"):
                names[way] = file_names(os.path.join(cfg.builddir, OBJECTS[0]))
    finally:
        if "hit" not in got:
            build(cfg, cmd, env)
    ref = got["plain"]
    bad = [f"{way}: {o}" for way in ("depend", "preprocessor", "hit")
           for o in OBJECTS if got[way][o] != ref[o]]
    if bad:
        return result("FAIL", name, "objects differ from a build without ccache: "
                      + ", ".join(bad))
    if got["no-relmap"] == ref:
        return result("FAIL", name, "the objects built without the relative prefix "
                      "map equal the reference too: this check cannot fail as it is")
    return result("PASS", name,
                  f"{len(OBJECTS)} object(s) x 3 ways through ccache equal to a plain build "
                  f"({', '.join(names['plain'][:2])}); without the relative map they "
                  f"differ ({', '.join(set(names['no-relmap']) - set(names['plain']))[:80]})")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness ccache-check", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default="x86_64",
                    help="comma-separated configs (default x86_64)")
    ap.add_argument("--commit", default=BRANCH)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    env = ccache_env()
    commit = git("rev-parse", args.commit)

    mutant_worktree(commit)
    failed = 0
    for name in args.configs.split(","):
        cfg = Config(os.path.join(CONFIGS, name + ".config"))
        cfg.builddir = os.path.join(BUILD, "mutant", cfg.name)
        try:
            cfg.compiler()
        except LookupError as e:
            result("SKIP", f"ccache/{cfg.name}", str(e))
            continue
        err = configure(cfg, args.jobs, env, MUTANT)
        if err:
            failed += result("FAIL", f"ccache/{cfg.name}", err)
            continue
        failed += check(cfg, args.jobs, env)
    log(f"{failed} failed")
    return 1 if failed else 0
