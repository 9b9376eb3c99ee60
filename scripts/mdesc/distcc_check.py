# SPDX-License-Identifier: GPL-2.0
"""harness distcc - the build matrix through distcc helpers, on loopback.

Starts two distccd daemons on 127.0.0.1 at free ports, each allowed
only from 127.0.0.1, and runs a small part of the build matrix
(CONFIGS, the base and two steps that change include/linux/) several
times, each in build directories of its own, in the tree WORK/distcc/tree:

  local     no distcc: the reference.
  distcc    both helpers in DISTCC_HOSTS, an empty ccache, so that
            every compile misses and goes out through CCACHE_PREFIX.
  killed    the same, and one helper is killed (SIGKILL, its whole
            process group) once it has compiled its first job.

and once with a third daemon whose x86_64-linux-gnu-gcc is a wrapper
that drops the compiler ident: the matrix must refuse that helper
before it builds anything.

Checks, one PASS/FAIL/SKIP line each: the mismatched helper is
refused; both helpers compiled jobs; every cell of the distcc run has
the verdict and the object checksums of the local run; the killed run
too, with the jobs the dead helper failed (compiled by the other one
or locally) counted in its cells.  The daemons are stopped at the
end, whatever happened.

--smoke, instead of the checks, is the part of them that 'make test'
runs: one helper, the x86_64 config at the base only (its canary
objects and those the series touches), built locally and through the
helper with an empty ccache; the objects must be the same.  The full
check is 'make distcc'.

--measure, instead of the checks, times the x86_64 config over the same
steps with an empty ccache each time: locally at -j2, through one
helper and through two at -j4, and writes RESULTS/distcc/measure.json.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from .errors import UsageError, log
from .paths import BASE_TAG, BRANCH, RESULTS, TOP, WORK
from .proc import git
from .results import cells_by_key, load_matrix

CONFIGS = os.environ.get("DISTCC_CONFIGS", "x86_64,hexagon")
# -j of the runs through distcc (DISTCC_JOBS), checked in main().
JOBS = 4
HERE = os.path.join(WORK, "distcc")
OUT = os.path.join(RESULTS, "distcc")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """A distccd on 127.0.0.1:PORT in its own process group."""

    def __init__(self, tmp, name, path_first=None):
        self.name = name
        self.port = free_port()
        self.logf = os.path.join(tmp, name + ".log")
        open(self.logf, "w").close()
        os.chmod(self.logf, 0o666)   # distccd run by root logs as user distccd
        env = dict(os.environ)
        if path_first:
            env["PATH"] = path_first + os.pathsep + env["PATH"]
        self.proc = subprocess.Popen(
            ["distccd", "--daemon", "--no-detach", "--listen", "127.0.0.1",
             "--allow", "127.0.0.1", "--port", str(self.port), "--jobs", "2",
             "--log-file", self.logf, "--log-level", "info"],
            env=env, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"distccd {name} did not listen on port {self.port}")

    @property
    def host(self):
        return f"127.0.0.1:{self.port}/2"

    def jobs(self):
        with open(self.logf, errors="replace") as f:
            return sum(1 for line in f if " COMPILE_OK " in line)

    def reset_log(self):
        open(self.logf, "w").close()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def pick_steps():
    """The base and the first two steps that change include/linux/."""
    commits = git("rev-list", "--reverse", f"{BASE_TAG}..{BRANCH}").split()
    steps = ["0"]
    for i, c in enumerate(commits, 1):
        if any(f.startswith("include/linux/")
               for f in git("diff", "--name-only", f"{c}^", c).split()):
            steps.append(str(i))
        if len(steps) == 3:
            break
    return ",".join(steps)


def matrix(name, steps, hosts=None, empty_ccache=False, popen=False, configs=None):
    """Run harness matrix for CONFIGS and STEPS with its own build and
    results directories; with HOSTS, through distcc."""
    env = dict(os.environ, BUILD=os.path.join(HERE, "build-" + name),
               RESULTS=os.path.join(HERE, "results-" + name),
               TREE=os.path.join(HERE, "tree"))
    env.pop("DISTCC_HOSTS", None)
    # Every run builds: a verdict from the cache would prove nothing.
    env["NO_CACHE"] = "1"
    jobs = 2
    if hosts:
        env["DISTCC_HOSTS"] = " ".join(hosts)
        # distcc's host state (locks, back-off) of this run only.
        env["DISTCC_DIR"] = os.path.join(HERE, "state-" + name)
        shutil.rmtree(env["DISTCC_DIR"], ignore_errors=True)
        os.makedirs(env["DISTCC_DIR"])
        jobs = JOBS
    if empty_ccache:
        env["CCACHE_DIR"] = os.path.join(HERE, "ccache-" + name)
        shutil.rmtree(env["CCACHE_DIR"], ignore_errors=True)
    shutil.rmtree(env["BUILD"], ignore_errors=True)
    shutil.rmtree(env["RESULTS"], ignore_errors=True)
    cmd = [os.path.join(TOP, "scripts", "harness"), "matrix", f"-j{jobs}",
           "--configs", configs or CONFIGS, "--steps", steps]
    logf = open(os.path.join(OUT, name + ".log"), "w")
    log(f"matrix run '{name}'{' through ' + ' '.join(hosts) if hosts else ''}")
    p = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT, text=True)
    if popen:
        return p, env["RESULTS"]
    p.wait()
    return p.returncode, env["RESULTS"]


def cells(results):
    path = os.path.join(results, "matrix.json")
    return cells_by_key(load_matrix(path)) if os.path.exists(path) else {}


def compare(ref, got):
    """Differences between two runs' cells: verdicts and object sums."""
    diffs, objs = [], 0
    for key, c in sorted(ref.items()):
        g = got.get(key)
        if g is None:
            diffs.append(f"{key}: missing")
        elif g["status"] != c["status"]:
            diffs.append(f"{key}: {c['status']} locally, {g['status']} ({g['reason']})")
        elif g["object_sha256"] != c["object_sha256"]:
            bad = [o for o in c["object_sha256"]
                   if g["object_sha256"].get(o) != c["object_sha256"][o]]
            diffs.append(f"{key}: objects differ: {', '.join(bad)}")
        objs += len(c["object_sha256"])
    return diffs, objs


def measure(tmp, daemons, steps):
    """Time one config cold: locally, through one helper, through two."""
    global CONFIGS
    CONFIGS = "x86_64"
    log(f"timing {CONFIGS}, steps {steps}, empty ccache: local -j2, 1 and 2 helpers -j{JOBS}")
    d1, d2 = Daemon(tmp, "helper1"), Daemon(tmp, "helper2")
    daemons += [d1, d2]
    times = {}
    for label, hosts in (("local, -j2", None), ("1 helper, -j4", [d1.host]),
                         ("2 helpers, -j4", [d1.host, d2.host])):
        t = time.time()
        name = "measure-" + str(len(hosts or []))
        rc, _ = matrix(name, steps, hosts, empty_ccache=True)
        times[label] = round(time.time() - t, 1)
        log(f"{label}: {times[label]} s (exit {rc})")
        if rc:
            log(f"that run failed; see {OUT}/{name}.log")
            return 1
    with open(os.path.join(OUT, "measure.json"), "w") as f:
        json.dump({"configs": CONFIGS, "steps": steps, "seconds": times,
                   "jobs": {"helper1": d1.jobs(), "helper2": d2.jobs()},
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, indent=1)
        f.write("\n")
    return 0


def say(status, name, detail):
    print(f"{status} distcc/{name}: {detail}", flush=True)


def smoke(tmp, daemons):
    """x86_64 at the base, locally and through one helper: the same
    verdicts and objects, and the helper did compile."""
    try:
        d = Daemon(tmp, "helper1")
    except RuntimeError as e:
        say("FAIL", "smoke: loopback helper", str(e))
        return 1
    daemons.append(d)
    rc, res_local = matrix("local", "0", configs="x86_64")
    if rc:
        say("FAIL", "smoke: local reference run", f"exit {rc}; see {OUT}/local.log")
        return 1
    ref = cells(res_local)
    t = time.time()
    rc, res = matrix("smoke", "0", [d.host], empty_ccache=True, configs="x86_64")
    took = time.time() - t
    got = cells(res)
    diffs, objs = compare(ref, got) if got else ([f"no results; see {OUT}/smoke.log"], 0)
    jobs = d.jobs()
    if not jobs:
        diffs.append("the helper compiled nothing")
    if rc == 0 and not diffs:
        say("PASS", "smoke: one helper builds the objects a local build does",
            f"{objs} object checksums equal, {jobs} jobs on the helper, {took:.0f} s")
        return 0
    say("FAIL", "smoke: one helper builds the objects a local build does",
        "; ".join(diffs[:3]) or f"exit {rc}")
    return 1


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness distcc", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--measure", action="store_true",
                      help="time local, one helper and two helpers instead")
    mode.add_argument("--smoke", action="store_true",
                      help="only x86_64 at the base through one helper ('make test')")
    args = ap.parse_args(argv)
    global JOBS
    jobs = os.environ.get("DISTCC_JOBS") or "4"
    if not jobs.isdigit() or int(jobs) < 1:
        raise UsageError(f"DISTCC_JOBS={jobs}: not a number of jobs")
    JOBS = int(jobs)

    for tool in ("distcc", "distccd"):
        if not shutil.which(tool):
            say("SKIP", "loopback helpers", f"{tool} not installed (make deps)")
            return 0
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(HERE, exist_ok=True)
    steps = pick_steps()
    # The daemons run in sessions of their own: a SIGTERM to this
    # process (run-tests.sh stopping its background lane) must still
    # reach the 'finally' below that stops them.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = tempfile.mkdtemp(prefix="distccd.")
    os.chmod(tmp, 0o755)
    daemons = []
    fails = 0
    try:
        if args.measure:
            return measure(tmp, daemons, steps)
        if args.smoke:
            return smoke(tmp, daemons)
        log(f"configs {CONFIGS}, steps {steps}, -j{JOBS} through distcc")
        # A helper whose compiler differs: refused before any build.
        fake = os.path.join(tmp, "fake")
        os.mkdir(fake)
        os.chmod(fake, 0o755)
        wrapper = os.path.join(fake, "x86_64-linux-gnu-gcc")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n# not the local compiler: no .comment ident\n"
                    "exec /usr/bin/x86_64-linux-gnu-gcc -fno-ident \"$@\"\n")
        os.chmod(wrapper, 0o755)
        try:
            odd = Daemon(tmp, "mismatched", path_first=fake)
        except RuntimeError as e:
            say("FAIL", "loopback helpers", str(e))
            return 1
        daemons.append(odd)
        rc, res = matrix("mismatched", "0", [odd.host])
        with open(os.path.join(OUT, "mismatched.log")) as f:
            out = f.read()
        if rc and "has another gcc" in out and \
                not os.path.exists(os.path.join(res, "matrix.json")):
            say("PASS", "a helper with another compiler is refused",
                out.strip().splitlines()[-1][:160])
        else:
            fails += 1
            say("FAIL", "a helper with another compiler is refused",
                f"harness matrix exited {rc}; see {OUT}/mismatched.log")
        odd.stop()

        try:
            d1, d2 = Daemon(tmp, "helper1"), Daemon(tmp, "helper2")
        except RuntimeError as e:
            say("FAIL", "loopback helpers", str(e))
            return 1
        daemons += [d1, d2]
        log(f"helpers: distccd on 127.0.0.1:{d1.port} and :{d2.port}, "
            "allowed from 127.0.0.1 only")

        t = time.time()
        rc, res_local = matrix("local", steps)
        t_local = time.time() - t
        if rc:
            say("FAIL", "local reference run", f"exit {rc}; see {OUT}/local.log")
            return 1
        ref = cells(res_local)

        t = time.time()
        rc, res = matrix("distcc", steps, [d1.host, d2.host], empty_ccache=True)
        t_distcc = time.time() - t
        j1, j2 = d1.jobs(), d2.jobs()
        if j1 and j2:
            say("PASS", "the helpers compiled jobs",
                f"helper1 {j1}, helper2 {j2} jobs (COMPILE_OK in their logs)")
        else:
            fails += 1
            say("FAIL", "the helpers compiled jobs", f"helper1 {j1}, helper2 {j2} jobs")
        got = cells(res)
        diffs, objs = compare(ref, got) if got else ([f"no results; see {OUT}/distcc.log"], 0)
        fell = sum(c.get("distcc_failures", 0) for c in got.values())
        if fell:
            # No helper failed: every job should have gone out.
            diffs.append(f"a helper failed {fell} jobs although both were up")
        if rc == 0 and not diffs:
            say("PASS", "same verdicts and objects as a local run",
                f"{len(ref)} cells, {objs} object checksums equal; "
                f"{t_distcc:.0f} s through distcc (-j{JOBS}, cold ccache), "
                f"{t_local:.0f} s locally (-j2, warm ccache)")
        else:
            fails += 1
            say("FAIL", "same verdicts and objects as a local run",
                "; ".join(diffs[:3]) or f"exit {rc}")

        # A helper dies mid-run: its jobs go to the other one or run locally.
        d1.reset_log()
        d2.reset_log()
        p, res = matrix("killed", steps, [d1.host, d2.host], empty_ccache=True, popen=True)
        killed_at, before = None, None
        while p.poll() is None:
            # Past the compiler probes, at its next job: kill helper2.
            if before is None:
                with open(os.path.join(OUT, "killed.log")) as f:
                    if "step 0/" in f.read():
                        before = d2.jobs()
            elif killed_at is None and d2.jobs() > before:
                d2.stop(signal.SIGKILL)
                killed_at = time.time()
                log(f"killed helper2 (port {d2.port}) after its first job")
            time.sleep(0.2)
        rc = p.returncode
        if killed_at is None:
            fails += 1
            say("FAIL", "a helper killed mid-run", "helper2 never got a job to be killed after")
        else:
            got = cells(res)
            diffs, objs = compare(ref, got) if got else ([f"no results; see {OUT}/killed.log"], 0)
            fell = sum(c.get("distcc_failures", 0) for c in got.values())
            if rc == 0 and not diffs and fell:
                say("PASS", "a helper killed mid-run",
                    f"run correct ({objs} object checksums equal to the local run), "
                    f"{fell} jobs failed by the dead helper, compiled elsewhere "
                    "and counted in their cells")
            else:
                fails += 1
                why = "; ".join(diffs[:3]) or (f"exit {rc}" if rc else
                                               "no job fell back: the kill proved nothing")
                say("FAIL", "a helper killed mid-run", why)

    finally:
        for d in daemons:
            d.stop()
        left = subprocess.run(["pgrep", "-f", f"distccd .*--log-file {tmp}/"],
                              stdout=subprocess.PIPE, text=True).stdout.split()
        if left:
            fails += 1
            say("FAIL", "daemons stopped", f"still running: {' '.join(left)}")
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if fails else 0
