# SPDX-License-Identifier: GPL-2.0
"""Compiles sent to distcc helpers (DISTCC_HOSTS; Documentation/distcc.md).
"""

import os
import re
import shlex
import tempfile

from .errors import DistccError
from .paths import DISTCC_WRAPPER, LLVM_BIN, TREE
from .proc import run
from .toolchain import toolchain_root


def distcc_hosts():
    """The helpers named in DISTCC_HOSTS, each as its own DISTCC_HOSTS
    entry ('127.0.0.1:3633/2,lzo'); 'localhost' (local jobs) and
    options are left out. Empty without DISTCC_HOSTS: no distcc."""
    return [tok for tok in os.environ.get("DISTCC_HOSTS", "").split()
            if not tok.startswith(("-", "+")) and not re.match(r"localhost(?:[/:,]|$)", tok)]


def clang_target(cfg):
    """The --target flag the kernel gives clang for CFG's arch."""
    try:
        with open(os.path.join(TREE, "scripts", "Makefile.clang")) as f:
            m = re.search(rf"^CLANG_TARGET_FLAGS_{cfg.srcarch}\s*:=\s*(\S+)", f.read(), re.M)
    except OSError:
        m = None
    return [f"--target={m.group(1)}"] if m else []


def distcc_path():
    """Directories to put first on PATH under distcc, so that the
    self-built and the LLVM compilers are found by name, locally and in
    the same way as on the helpers."""
    dirs = []
    root = toolchain_root()
    if root and os.path.isdir(root):
        dirs += sorted(os.path.join(root, t, "bin") for t in os.listdir(root)
                       if os.path.isdir(os.path.join(root, t, "bin")))
    if os.path.isdir(LLVM_BIN):
        dirs.append(LLVM_BIN)
    return dirs


DISTCC_PROBE = """\
/* Probe of the harness (mdesc/distcc.py): the same compiler gives the same bytes. */
struct probe { unsigned long a[4]; int n; };
unsigned long probe_sum(const struct probe *p)
{
\tunsigned long s = 0;
\tint i;

\tfor (i = 0; i < p->n && i < 4; i++)
\t\ts = s * 31 + (p->a[i] >> (i + 1));
\treturn s;
}
"""


def check_distcc_helpers(cfgs, env):  # spawns the compilers, locally and on helpers
    """Compile a probe with each config's compiler locally and on each
    helper alone (no fallback) and compare the objects byte for byte:
    a helper with another compiler version would put different code,
    or at least a different .comment ident, in every object, silently.
    Returns one line per helper and compiler; raises DistccError on
    the first mismatch or a helper that cannot compile."""
    done, lines = set(), []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(DISTCC_PROBE)
        for cfg in cfgs:
            cc = cfg.make_vars()["CC"].split()[-1]
            flags = ["-O2", "-c"] + (clang_target(cfg) if cfg.meta["toolchain"] == "clang" else [])
            if (cc, *flags) in done:
                continue
            done.add((cc, *flags))
            local = os.path.join(tmp, "local.o")
            p = run([cc, *flags, src, "-o", local], cwd=tmp, env=env, check=False)
            if p.returncode:
                raise DistccError(f"{cc} cannot compile a probe locally:\n{p.stdout}")
            for host in distcc_hosts():
                remote = os.path.join(tmp, "remote.o")
                # A state directory of its own: no back-off left from
                # an earlier failure counts against the helper.
                henv = dict(env, DISTCC_HOSTS=host, DISTCC_FALLBACK="0",
                            DISTCC_SKIP_LOCAL_RETRY="1", DISTCC_DIR=tmp)
                henv.pop("DISTCC_VERBOSE", None)
                p = run([DISTCC_WRAPPER, cc, *flags, src, "-o", remote], cwd=tmp,
                        env=henv, check=False)
                if p.returncode:
                    raise DistccError(
                        f"distcc helper {host} cannot compile with {cc} (not "
                        "installed there, not allowed in its /usr/lib/distcc, or "
                        "the helper is down); drop it from DISTCC_HOSTS or install "
                        f"the compiler:\n{p.stdout.strip()}")
                with open(local, "rb") as a, open(remote, "rb") as b:
                    same = a.read() == b.read()
                if not same:
                    raise DistccError(
                        f"distcc helper {host} has another {cc}: it says "
                        f"'{ident(remote)}', the local one '{ident(local)}'. "
                        "Objects built by mixed compilers differ silently; "
                        "install the same compiler there or drop the helper "
                        "from DISTCC_HOSTS.")
                lines.append(f"distcc helper {host}: {shlex.join([cc, *flags])} "
                             f"({ident(local)}) same as local")
    return lines


def ident(obj):
    """The compiler ident (.comment) of an object file."""
    p = run(["readelf", "-p", ".comment", obj], check=False)
    found = re.findall(r"\]\s+(.*)", p.stdout)
    return "; ".join(found) if found else "no .comment"
