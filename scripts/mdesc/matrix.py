# SPDX-License-Identifier: GPL-2.0
"""harness matrix - build every step of the series on every config.

A *step* is the base or the tree after one more patch of the series; a
*config* is a file in configs/; a *cell* is one step built with one
config.  Each cell is PASS, FAIL, SKIP (with a reason: no toolchain,
no object of the step enabled by the config) or N/A (the step cannot
affect the config: it touches another arch or only documentation).

Per cell, after one 'make prepare' per config, the objects that the
step's diff touches and a canary set of objects that include the
changed headers are compiled.  An object the config does not build is
reported as not built and never counts as a pass.  At the base, an
object that a patch of the fixes/ part of the series repairs (the base
cannot compile it) is not built either, and the cell says why.  A compiler warning
that the same config did not emit at the base fails the cell.  With
--link, the final step also links a full vmlinux.

With DISTCC_HOSTS set, compiles that miss ccache go to those distcc
helpers (raise -j to match); each helper's compilers are checked
against the local ones first, and a job that falls back to local
compilation is counted in its cell (Documentation/distcc.md).

Results: a progress line per cell, RESULTS/matrix.md and
RESULTS/matrix.json (one record per cell: arch, config, step, status,
reason, duration, compiler, new warnings, make command, sha256 of
each object built, jobs a distcc helper failed).
"""

import argparse
import os
import re
import time

from . import cache
from .config import Config
from .diagnostics import first_error, parse_warnings
from .distcc import check_distcc_helpers, distcc_hosts
from .errors import ObjectListError, die, log
from .kconfig import configure
from .make import ccache_env, make_cmd
from .objects import CANARIES, affects, object_enabled, objects_for, sha256, step_objects
from . import series
from .paths import BASE_TAG, BRANCH, CONFIGS, LINUX, RESULTS, TREE
from .results import matrix_markdown, save_matrix, status_counts, write_text
from .proc import git, run, show
from .worktree import worktree_changes

# The part of 'series' that carries fixes for the base itself.
FIXES_PART = "fixes"


# What the distcc client prints when a helper fails it (refused,
# unreachable, died mid-job): the job then runs on another helper or
# locally, and the client says so on stderr, which ccache passes on.
DISTCC_FAILURE_RE = re.compile(r"^distcc\[(\d+)\] (?:\(\w+\) )?(?:ERROR|Warning): ", re.M)


def distcc_failures(out):
    """Jobs (distcc client processes) that a helper failed."""
    return len(set(DISTCC_FAILURE_RE.findall(out))) if distcc_hosts() else 0


class Matrix:
    def __init__(self, args):
        self.args = args
        self.env = ccache_env()
        self.cells = []
        self.defined = {}

    def undefined(self, cfg, step):
        """The symbols of CFG's '# needs:' line that STEP's tree lacks: a
        config for an option the series adds has no cell before the
        patches that add the option and let the arch select it.  A word
        CONFIG_X needs a Kconfig file to define X; select:CONFIG_X needs
        a Kconfig file of CFG's arch to select X."""
        out = []
        for word in cfg.needs:
            select = word.startswith("select:")
            sym = word[len("select:"):] if select else word
            key = (step["commit"], cfg.srcarch, word)
            if key not in self.defined:
                name = sym[len("CONFIG_"):] if sym.startswith("CONFIG_") else sym
                what = "select" if select else "(menu)?config"
                where = f"arch/{cfg.srcarch}/*Kconfig*" if select else "*Kconfig*"
                p = run(["git", "-C", LINUX, "grep", "-q", "-E",
                         rf"^\s*{what} {name}(\s|$)", step["commit"], "--", where],
                        check=False)
                self.defined[key] = p.returncode == 0
            if not self.defined[key]:
                out.append(f"{sym} (selected by {cfg.srcarch})" if select else sym)
        return out

    def load_configs(self):
        names = sorted(f for f in os.listdir(CONFIGS) if f.endswith(".config"))
        cfgs = [Config(os.path.join(CONFIGS, n)) for n in names]
        if self.args.configs:
            want = self.args.configs.split(",")
            unknown = set(want) - {c.name for c in cfgs}
            if unknown:
                die("unknown config(s): " + ", ".join(sorted(unknown)) +
                    " (see configs/)")
            cfgs = [c for c in cfgs if c.name in want]
        return cfgs

    def load_steps(self):
        if not run(["git", "-C", LINUX, "rev-parse", "-q", "--verify",
                    f"refs/tags/{BASE_TAG}"], check=False).stdout.strip():
            die(f"no base tree in {LINUX}; run 'make base' first")
        entries = series.read()
        has_branch = run(["git", "-C", LINUX, "rev-parse", "-q", "--verify",
                          f"refs/heads/{BRANCH}"], check=False).returncode == 0
        commits = git("rev-list", "--reverse", f"{BASE_TAG}..{BRANCH}").split() \
            if has_branch else []
        if len(commits) != len(entries):
            die(f"branch {BRANCH} has {len(commits)} commits but series lists "
                f"{len(entries)} patches; run 'make apply' first")
        steps = [{"index": 0, "name": "base", "commit": git("rev-parse", BASE_TAG)}]
        for i, (c, e) in enumerate(zip(commits, entries), 1):
            steps.append({"index": i, "name": e, "commit": c})
        prev = steps[0]["commit"]
        for s in steps[1:]:
            s["files"] = git("diff", "--name-only", prev, s["commit"]).split()
            prev = s["commit"]
        steps[0]["files"] = None   # the base: everything
        return steps

    def prepare_tree(self):
        dirty = worktree_changes(TREE)
        if dirty:
            die(f"work tree {TREE} is dirty; refusing to build:\n{dirty}")

    def checkout(self, commit):
        run(["git", "-C", TREE, "-c", "advice.detachedHead=false",
             "checkout", "-q", "--detach", commit])

    def selected_steps(self, steps):
        sel = self.args.steps
        last = len(steps) - 1
        if self.args.part:
            # "base" names step 0, the base itself.
            want = self.args.part.split(",")
            known = ["base"] + series.parts(s["name"] for s in steps[1:])
            for p in want:
                if p not in known:
                    die(f"--part {p}: not a part of the series ({', '.join(known)})")
            return {s["index"] for s in steps
                    if (series.part_of(s["name"]) if s["index"] else "base") in want}
        if sel == "all":
            return set(range(len(steps)))
        if sel == "final":
            return {last}
        out = set()
        try:
            for part in sel.split(","):
                if ".." in part:
                    a, b = part.split("..")
                    out.update(range(int(a), int(b or last) + 1))
                else:
                    out.add(int(part))
        except ValueError:
            die(f"--steps {sel}: expected 'all', 'final' or step numbers like 0,3,5..9")
        return {i for i in out if i <= last}

    def targets(self, cfg, step, all_touched, cache):
        """(objects to build, objects not built by this config)."""
        return step_objects(cfg, step["files"], all_touched, self.env, cache)

    def record(self, cfg, step, status, reason="", duration=0.0, cmd=None,
               warnings=(), built=(), not_built=(), kind="objects", distcc_failed=0):
        cell = {
            "arch": cfg.arch, "config": cfg.name,
            "step": step["index"], "patch": step["name"],
            "commit": step["commit"], "kind": kind,
            "status": status, "reason": reason,
            "duration": round(duration, 1),
            "compiler": cfg.version(),
            "new_warnings": sorted(warnings),
            "objects": list(built), "not_built": list(not_built),
            "object_sha256": {o: sha256(os.path.join(cfg.builddir, o))
                              for o in built if status == "PASS"},
            "make": show(cmd) if cmd else None,
        }
        if distcc_hosts():
            cell["distcc_failures"] = distcc_failed
        self.cells.append(cell)
        what = f"{len(built)} objects" if kind == "objects" else "vmlinux"
        extra = f", {len(not_built)} not built" if not_built else ""
        if cell.get("distcc_failures"):
            extra += (f", distcc: {cell['distcc_failures']} jobs compiled elsewhere "
                      "after a helper failed them")
        log(f"[step {step['index']}] [{cfg.name}] {status} "
            f"{cell['duration']}s ({what}{extra}){': ' + reason if reason else ''}")
        if status == "FAIL" and cmd:
            log(f"  reproduce: git -C {LINUX} worktree add /tmp/t {step['commit'][:12]} "
                f"&& {show(cmd).replace(TREE, '/tmp/t')}")

    def build_cell(self, cfg, step, all_touched, cache):
        try:
            built, not_built = self.targets(cfg, step, all_touched, cache)
        except ObjectListError as e:
            # The objects of this step cannot be known: the cell fails
            # and says why, the other configs go on.
            self.record(cfg, step, "FAIL", str(e))
            return
        if step["index"] == 0 and built:
            # An object a patch of the fixes/ part repairs does not
            # compile at the base: not built there, and said why.
            broken = [o for o in built if o in self.fixed_by]
            built = [o for o in built if o not in self.fixed_by]
            not_built = not_built + [f"{o} (broken at the base, fixed by {self.fixed_by[o]})"
                                     for o in broken]
        if built is None:
            self.record(cfg, step, "N/A", "step does not touch this config's files")
            return
        if not built:
            self.record(cfg, step, "SKIP", "no touched object is enabled by this config",
                        not_built=not_built)
            return
        cmd = make_cmd(cfg, built, self.args.jobs)
        if self.args.sparse:
            cmd.append("C=1")
        if step["index"] == 0 or step.get("from_base"):
            # The base sets the warning baseline, and a step built
            # against the base (the final state) answers for every
            # warning of its objects: rebuild them all (ccache replays
            # the compiler's output) so that objects an earlier run left
            # up to date cannot hide one, nor skip sparse.
            for o in built:
                try:
                    os.unlink(os.path.join(cfg.builddir, o))
                except FileNotFoundError:
                    pass
        t = time.time()
        p = run(cmd, env=self.env, check=False)
        dt = time.time() - t
        warns = parse_warnings(p.stdout, cfg.builddir)
        if p.returncode:
            self.record(cfg, step, "FAIL", first_error(p.stdout), dt, cmd,
                        (), built, not_built, distcc_failed=distcc_failures(p.stdout))
        else:
            # Warnings are judged against the base in settle_warnings().
            self.record(cfg, step, "PASS", "", dt, cmd, (), built, not_built,
                        distcc_failed=distcc_failures(p.stdout))
        self.cells[-1]["_warnings"] = warns

    def link_cell(self, cfg, step):
        target = "vmlinux"
        cmd = make_cmd(cfg, [target], self.args.jobs, keep_going=False)
        t = time.time()
        p = run(cmd, env=self.env, check=False)
        dt = time.time() - t
        # Only warnings in files the series touches can be new ones.
        warns = {w for w in parse_warnings(p.stdout, cfg.builddir)
                 if w.split(":")[0] in self.touched_files}
        ok = p.returncode == 0 and os.path.exists(os.path.join(cfg.builddir, target))
        self.record(cfg, step, "PASS" if ok else "FAIL",
                    "" if ok else first_error(p.stdout), dt, cmd, kind="link",
                    distcc_failed=distcc_failures(p.stdout))
        self.cells[-1]["_warnings"] = warns

    def settle_warnings(self, usable, steps, all_touched, configure_once):
        """Fail the cells whose warnings the base does not have.

        The base's warnings come from the base cells of this run; for
        objects the run did not build at the base, the base is checked
        out and those objects are rebuilt (ccache replays the compiler's
        output) once per config, at the end.  A cell from the verdict
        cache carries the warnings its build printed and is judged here
        like a cell built now: its verdict never depends on which base
        objects another run happened to build."""
        at_base = False
        base_tree = git("rev-parse", steps[0]["commit"] + "^{tree}")
        for cfg in usable:
            mine = [c for c in self.cells if c["config"] == cfg.name and "_warnings" in c]
            base_cells = [c for c in mine if c["step"] == 0 and c["kind"] == "objects"]
            known = set().union(*(c["_warnings"] for c in base_cells))
            known_objs = set().union(*(set(c["objects"]) for c in base_cells))
            need = set()
            for c in mine:
                if c["step"] == 0 or not (c["_warnings"] - known):
                    continue
                if c["kind"] == "link":
                    listing = {}
                    need |= {o for o in set(CANARIES) | set(all_touched)
                             if affects(cfg, o) and object_enabled(cfg, o, self.env, listing)}
                else:
                    need |= set(c["objects"])
            need -= known_objs
            # The base never changes: what these objects print there is
            # kept by the base's tree, the config, the compiler and the
            # objects, so that a warm run of the final state neither
            # checks the base out nor prepares every config again for it
            # (275 s of a 20.7-minute warm make test at e74ed52).
            inputs = {"config": cfg.digest(), "arch": cfg.arch,
                      "cc": cache.compiler_id(cfg.compiler()[0]),
                      "base": base_tree,
                      "objects": sorted(need), "sparse": bool(self.args.sparse),
                      "sparse_bin": cache.compiler_id("sparse") if self.args.sparse else None,
                      "kcflags": os.environ.get("KCFLAGS", "")}
            hit = cache.get("base-warnings", inputs) if need else None
            if hit:
                known |= set(hit["record"]["warnings"])
                log(f"[{cfg.name}] warnings to check: {len(need)} objects at the base "
                    "(cached)")
                need = set()
            if need:
                if not at_base:
                    self.checkout(steps[0]["commit"])
                    at_base = True
                err = configure_once(cfg)
                if err:
                    for c in mine:
                        if c["step"] and c["_warnings"] - known and c["status"] == "PASS":
                            c.update(status="FAIL", reason="cannot build the base for its "
                                     f"warnings: {err}")
                    continue
                log(f"[{cfg.name}] warnings to check: rebuilding {len(need)} objects at the base")
                for o in need:
                    try:
                        os.unlink(os.path.join(cfg.builddir, o))
                    except FileNotFoundError:
                        pass
                cmd = make_cmd(cfg, sorted(need), self.args.jobs)
                if self.args.sparse:
                    cmd.append("C=1")
                p = run(cmd, env=self.env, check=False)
                at_base_warnings = parse_warnings(p.stdout, cfg.builddir)
                known |= at_base_warnings
                # Only a build that went through is kept: objects the
                # base cannot compile (those fixes/ repairs) say nothing
                # for sure about the others.
                if p.returncode == 0:
                    cache.put("base-warnings", inputs, {"warnings": sorted(at_base_warnings)})
            for c in mine:
                warns = c["_warnings"]
                new = sorted(warns - known) if c["step"] else []
                c["new_warnings"] = new
                if new and c["status"] == "PASS":
                    c["status"] = "FAIL"
                    c["reason"] = f"{len(new)} new warning(s): {new[0]}"
                    log(f"[step {c['step']}] [{cfg.name}] FAIL: {c['reason']}")

    def main(self):
        cfgs = self.load_configs()
        steps = self.load_steps()
        wanted_steps = self.selected_steps(steps)
        # A selected step is built against the previous selected one.
        prev = steps[0]
        for st in steps[1:]:
            if st["index"] in wanted_steps:
                st["files"] = git("diff", "--name-only", prev["commit"], st["commit"]).split()
                st["from_base"] = prev is steps[0] and st["index"] > 1
                st["parent"] = prev["commit"]
                prev = st
        link_cfgs = set(self.args.link.split(",")) if self.args.link else set()
        if "all" in link_cfgs:
            link_cfgs = {c.name for c in cfgs}
        self.touched_files = set(git("diff", "--name-only", steps[0]["commit"],
                                     steps[-1]["commit"]).split())
        all_touched = objects_for(sorted(self.touched_files))
        self.fixed_by = {o: st["name"] for st in steps[1:]
                         if st["name"].startswith(FIXES_PART + "/")
                         for o in objects_for(st["files"])}
        self.prepare_tree()
        os.makedirs(RESULTS, exist_ok=True)

        usable = []
        for cfg in cfgs:
            try:
                cfg.compiler()
                usable.append(cfg)
            except LookupError as e:
                for s in steps:
                    if s["index"] in wanted_steps:
                        self.record(cfg, s, "SKIP", str(e))
        if distcc_hosts():
            for line in check_distcc_helpers(usable, self.env):
                log(line)
        log(f"{len(steps) - 1} patches, {len(wanted_steps)} steps selected, "
            f"{len(cfgs)} configs ({len(cfgs) - len(usable)} without toolchain)")

        configured = {}

        def configure_once(cfg):
            if cfg.name not in configured:
                err = configure(cfg, self.args.jobs, self.env)
                configured[cfg.name] = err
                if err:
                    log(f"[{cfg.name}] configuration failed: {err}")
            return configured[cfg.name]

        trees = self.trees(steps, wanted_steps)
        caches = {}
        t0 = time.time()
        for s in steps:
            if s["index"] not in wanted_steps:
                continue
            self.checkout(s["commit"])
            log(f"step {s['index']}/{len(steps) - 1}: {s['name']} "
                f"({s['commit'][:12]})")
            for cfg in usable:
                if self.args.link_only:
                    continue
                gone = self.undefined(cfg, s)
                if gone:
                    self.record(cfg, s, "N/A", f"{', '.join(gone)} does not exist at "
                                "this step; the config needs it")
                    continue
                inputs = self.cell_inputs(cfg, s, steps, trees)
                if self.cached_cell(cfg, s, inputs):
                    continue
                err = configure_once(cfg)
                if err:
                    self.record(cfg, s, "FAIL", err)
                    continue
                # Kconfig/Makefiles may change between steps.
                objcache = caches.setdefault((cfg.name, s["index"]), {})
                self.build_cell(cfg, s, all_touched, objcache)
                self.cells[-1]["_inputs"] = inputs
            if s["index"] == len(steps) - 1:
                for cfg in usable:
                    if cfg.name not in link_cfgs:
                        continue
                    err = configure_once(cfg)
                    if err:
                        self.record(cfg, s, "FAIL", err, kind="link")
                    else:
                        self.link_cell(cfg, s)
            # A run stopped half-way keeps what it built.
            self.write(cfgs, steps, time.time() - t0, done_to=s["index"])
        self.settle_warnings(usable, steps, all_touched, configure_once)
        self.write(cfgs, steps, time.time() - t0)
        self.store_cells()
        return 1 if any(c["status"] == "FAIL" for c in self.cells) else 0

    def trees(self, steps, wanted):
        """Tree hash of each commit a cached verdict depends on."""
        commits = {steps[0]["commit"], steps[-1]["commit"]}
        for s in steps:
            if s["index"] in wanted:
                commits |= {s["commit"], s.get("parent") or s["commit"]}
        commits = sorted(commits)
        out = git("rev-parse", *[c + "^{tree}" for c in commits]).split()
        return dict(zip(commits, out))

    def cell_inputs(self, cfg, s, steps, trees):
        """Everything a compile cell's verdict depends on: the trees (of
        the step, the step it is built against, and the base, whose
        warnings are the baseline), the fragments, the compiler, sparse;
        for the base cell, the series too (it builds every object the
        series touches, and not those the fixes/ part repairs)."""
        inputs = {"config": cfg.digest(), "arch": cfg.arch,
                  "cc": cache.compiler_id(cfg.compiler()[0]),
                  "tree": trees[s["commit"]], "base": trees[steps[0]["commit"]],
                  "parent": trees[s["parent"]] if s.get("parent") else None,
                  "sparse": bool(self.args.sparse)}
        if s["index"] == 0:
            inputs["head"] = trees[steps[-1]["commit"]]
            inputs["series"] = [st["name"] for st in steps[1:]]
        return inputs

    def cached_cell(self, cfg, s, inputs):
        """Take the cell from the verdict cache if it is there."""
        hit = cache.get("cell", inputs)
        if not hit:
            return False
        cell = dict(hit["record"], step=s["index"], patch=s["name"], commit=s["commit"],
                    config=cfg.name, cached=True)
        # What its build printed: judged again in settle_warnings(), and
        # for the base, the baseline of the other steps.
        cell["_warnings"] = set(cell.pop("warnings", ()))
        self.cells.append(cell)
        log(f"[step {s['index']}] [{cfg.name}] {cell['status']} (cached; "
            f"{len(cell['objects'])} objects){': ' + cell['reason'] if cell['reason'] else ''}")
        return True

    def store_cells(self):
        """Store the verdicts of this run's cells that passed or could
        not apply; a failure is always built again."""
        for c in self.cells:
            inputs = c.pop("_inputs", None)
            warns = c.pop("_warnings", None)
            ok = c["status"] in ("PASS", "N/A") or \
                (c["status"] == "SKIP" and c["reason"].startswith("no touched object"))
            if inputs and ok:
                rec = {k: v for k, v in c.items() if not k.startswith("_")}
                rec["warnings"] = sorted(warns or ())
                cache.put("cell", inputs, rec)

    def write(self, cfgs, steps, elapsed, done_to=None):
        """Write RESULTS/matrix.{json,md}.  With done_to, the run is still
        going: the files say which step it has reached, and warnings are
        not yet compared with the base's, so no cell has failed on one."""
        meta = {
            "complete": done_to is None,
            "base": steps[0]["commit"], "head": steps[-1]["commit"],
            "branch": BRANCH, "elapsed": round(elapsed, 1),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "jobs": self.args.jobs, "steps": self.args.steps,
            "link": self.args.link, "sparse": self.args.sparse,
            "patches": len(steps) - 1,
            "distcc_hosts": distcc_hosts(),
            "cells": [{k: v for k, v in c.items() if not k.startswith("_")}
                      for c in self.cells],
        }
        if done_to is not None:
            meta["done_to_step"] = done_to
        save_matrix(os.path.join(RESULTS, "matrix.json"), meta)
        write_text(os.path.join(RESULTS, "matrix.md"),
                   matrix_markdown(meta, [c.name for c in cfgs]))
        if done_to is None:
            log(f"results: {RESULTS}/matrix.md, {RESULTS}/matrix.json; " +
                ", ".join(f"{v} {k}" for k, v in sorted(status_counts(self.cells).items())))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness matrix", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", help="comma-separated config names (default: all)")
    ap.add_argument("--steps", default="all",
                    help="'all', 'final' (the last step, built against the base) "
                    "or a list like 0,3,5..9")
    ap.add_argument("--part", help="only the steps of these parts of the series "
                    "(directories under patches/, comma-separated, e.g. fixes,zsdesc; "
                    "'base' is step 0)")
    ap.add_argument("--link", default="",
                    help="configs that link vmlinux at the final step ('all' for every one)")
    ap.add_argument("--link-only", action="store_true",
                    help="with --steps final and --link: only the links, no object "
                    "cells (the links of a full tier run apart from its steps)")
    ap.add_argument("--sparse", action="store_true",
                    help="also run sparse (C=1); its new warnings fail a cell too")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    if args.link_only and not args.link:
        ap.error("--link-only needs --link")
    return Matrix(args).main()
