# SPDX-License-Identifier: GPL-2.0
"""kbuild.py - shared helpers of the harness's Python tools.

Paths of the work directory, configs/ files (Config), configuring a
build directory for a config, make command lines, which objects a
config enables, parsing compiler warnings, and sending compiles to
distcc helpers when DISTCC_HOSTS is set (see Documentation/distcc.md).
"""

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("WORK", os.path.join(TOP, "work"))
LINUX = os.environ.get("LINUX", os.path.join(WORK, "linux"))
BUILD = os.environ.get("BUILD", os.path.join(WORK, "build"))
TREE = os.environ.get("TREE", os.path.join(WORK, "tree"))
RESULTS = os.environ.get("RESULTS", os.path.join(WORK, "results"))
# The scratch worktree of the checks that edit or rebuild objects on
# purpose (check-asserts-fire.py, check-ccache-objects.py).
MUTANT = os.environ.get("MUTANT", os.path.join(WORK, "mutant"))
SERIES = os.environ.get("SERIES", os.path.join(TOP, "series"))
CONFIGS = os.environ.get("CONFIGS", os.path.join(TOP, "configs"))
BRANCH = os.environ.get("SERIES_BRANCH", "series")
BASE_TAG = "base"
LLVM_BIN = "/usr/lib/llvm-14/bin"
PROG = os.path.basename(sys.argv[0]).removesuffix(".py")

SRCARCH = {
    "x86_64": "x86", "i386": "x86", "x86": "x86", "arm64": "arm64",
    "arm": "arm", "powerpc": "powerpc", "s390": "s390",
    "riscv": "riscv", "mips": "mips", "m68k": "m68k", "sparc": "sparc",
    "sparc64": "sparc", "sparc32": "sparc", "sh": "sh", "um": "um",
    "hexagon": "hexagon", "openrisc": "openrisc",
    "loongarch": "loongarch", "csky": "csky", "nios2": "nios2",
}

WARN_RE = re.compile(r"^(?P<file>[^\s:]+):\d+(?::\d+)?: (?P<kind>warning|error): (?P<msg>.*)$")

# Prints the objects a directory's Makefile builds with this config.
PRINT_OBJS_MK = r"""
harness-print-objs:
	@echo $(sort $(real-obj-y) $(real-obj-m) $(lib-y)) "|" $(sort $(subdir-ym))
"""


def log(msg):
    print(f"{PROG}: {msg}", flush=True)


def die(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def run(cmd, cwd=None, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if check and p.returncode:
        die(f"{shlex.join(cmd)} failed:\n{p.stdout}")
    return p


def git(*args, cwd=LINUX):
    return run(["git", "-C", cwd, *args]).stdout.strip()


class Config:
    """A configs/<name>.config file: metadata header and fragment lines."""

    def __init__(self, path, variant=None, extra=(), builddir=None):
        """VARIANT names EXTRA fragment lines merged last (for example a
        symbol turned off); BUILDDIR overrides the build directory."""
        self.path = path
        self.name = os.path.basename(path)[:-len(".config")]
        if variant:
            self.name += "+" + variant
        self.extra = list(extra)
        self.meta = {}
        self.lines = []
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                m = re.match(r"^#\s*(arch|kconfig|fragments|toolchain|"
                             r"cross_compile|subarch|llvm|user_cc|image|console|qemu|tests):\s*(.*)$", line)
                if m:
                    self.meta[m.group(1)] = m.group(2).strip()
                elif re.match(r"^(CONFIG_\w+=.*|# CONFIG_\w+ is not set)$", line):
                    self.lines.append(line)
        # A later line for the same symbol wins, as in merge_config.sh.
        syms = {re.search(r"CONFIG_\w+", e).group(0) for e in self.extra}
        self.lines = [ln for ln in self.lines
                      if re.search(r"CONFIG_\w+", ln).group(0) not in syms] + self.extra
        for key in ("arch", "kconfig", "toolchain"):
            if key not in self.meta:
                die(f"{path}: missing '# {key}:' header")
        self.arch = self.meta["arch"]
        self.srcarch = SRCARCH.get(self.arch, self.arch)
        if self.arch == "um":
            self.srcarch = "um"
        self.fragments = [os.path.join(CONFIGS, f)
                          for f in self.meta.get("fragments", "").split()]
        self.cross = self.meta.get("cross_compile", "")
        self.builddir = builddir or os.path.join(BUILD, self.name)

    def digest(self):
        h = hashlib.sha256()
        for p in self.fragments + [self.path]:
            with open(p, "rb") as f:
                h.update(f.read())
        h.update("\n".join(self.extra).encode())
        return h.hexdigest()

    def compiler(self):
        """Return (cc, make variables) or raise LookupError(reason)."""
        if self.meta["toolchain"] == "clang":
            llvm = self.meta.get("llvm", LLVM_BIN)
            cc = os.path.join(llvm, "clang")
            if not os.access(cc, os.X_OK):
                raise LookupError(f"no toolchain: {cc} not found")
            return cc, {"LLVM": llvm + "/"}
        cc = self.cross + "gcc"
        if shutil.which(cc):
            return cc, {"CROSS_COMPILE": self.cross} if self.cross else {}
        bindir = self_built_bindir(self.cross)
        if bindir:
            return os.path.join(bindir, cc), {"CROSS_COMPILE": os.path.join(bindir, self.cross)}
        raise LookupError(f"no toolchain: {cc} not found (for the self-built "
                          "ones: make toolchains)")

    def make_vars(self):
        cc, extra = self.compiler()
        v = {"ARCH": self.arch, "O": self.builddir}
        if self.meta.get("subarch"):
            v["SUBARCH"] = self.meta["subarch"]
        if distcc_hosts():
            # A helper runs the compiler it finds by this name on its own
            # PATH (distcc_env() puts ours on the local one), never a
            # path under this user's home.
            cc = os.path.basename(cc)
            if "CROSS_COMPILE" in extra:
                extra["CROSS_COMPILE"] = os.path.basename(extra["CROSS_COMPILE"])
            if "LLVM" in extra:
                extra["LLVM"] = "1"
        v.update(extra)
        if shutil.which("ccache") and not os.environ.get("NO_CCACHE"):
            # With distcc, ccache_env() sets CCACHE_PREFIX to distcc (by
            # way of distcc-by-name): hits stay local, misses go out.
            v["CC"] = f"ccache {cc}"
            if self.meta["toolchain"] == "clang":
                v["HOSTCC"] = f"ccache {cc}"
            elif not distcc_hosts():
                # The host programs (kconfig, fixdep, modpost, dtc, ...)
                # are the same for every config: compiled once, they come
                # from ccache in every other build directory.
                v["HOSTCC"] = "ccache gcc"
        elif distcc_hosts():
            v["CC"] = f"{DISTCC_WRAPPER} {cc}"
        return v

    def version(self):
        try:
            cc, _ = self.compiler()
        except LookupError:
            return None
        return run([cc, "--version"], check=False).stdout.splitlines()[0]


def toolchain_root():
    """Directory of the compilers scripts/build-toolchain.sh builds,
    keyed like lib.sh's toolchain_root(); None without the sources."""
    vers = []
    for pkg in ("binutils-source", "gcc-12-source"):
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode or not p.stdout:
            return None
        vers.append(p.stdout)
    cache = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    root = os.environ.get("TOOLCHAINS", os.path.join(cache, "ptdesc-series", "toolchains"))
    return os.path.join(root, f"binutils-{vers[0]}_gcc-{vers[1]}")


def self_built_bindir(prefix):
    """bin directory of a self-built toolchain for PREFIX (a CROSS_COMPILE
    value such as 'csky-linux-gnu-'), or None."""
    if not prefix:
        return None
    root = toolchain_root()
    if not root:
        return None
    bindir = os.path.join(root, prefix.rstrip("-"), "bin")
    return bindir if os.access(os.path.join(bindir, prefix + "gcc"), os.X_OK) else None


def distcc_hosts():
    """The helpers named in DISTCC_HOSTS, each as its own DISTCC_HOSTS
    entry ('127.0.0.1:3633/2,lzo'); 'localhost' (local jobs) and
    options are left out. Empty without DISTCC_HOSTS: no distcc."""
    return [tok for tok in os.environ.get("DISTCC_HOSTS", "").split()
            if not tok.startswith(("-", "+")) and not re.match(r"localhost(?:[/:,]|$)", tok)]


DISTCC_WRAPPER = os.path.join(TOP, "scripts", "distcc-by-name")


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
/* Probe of scripts/kbuild.py: the same compiler gives the same bytes. */
struct probe { unsigned long a[4]; int n; };
unsigned long probe_sum(const struct probe *p)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < p->n && i < 4; i++)
		s = s * 31 + (p->a[i] >> (i + 1));
	return s;
}
"""


def check_distcc_helpers(cfgs, env):
    """Compile a probe with each config's compiler locally and on each
    helper alone (no fallback) and compare the objects byte for byte:
    a helper with another compiler version would put different code,
    or at least a different .comment ident, in every object, silently.
    Returns one line per helper and compiler; dies on the first
    mismatch or a helper that cannot compile."""
    import tempfile
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
                die(f"{cc} cannot compile a probe locally:\n{p.stdout}")
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
                    die(f"distcc helper {host} cannot compile with {cc} (not "
                        f"installed there, not allowed in its /usr/lib/distcc, or "
                        f"the helper is down); drop it from DISTCC_HOSTS or install "
                        f"the compiler:\n{p.stdout.strip()}")
                with open(local, "rb") as a, open(remote, "rb") as b:
                    same = a.read() == b.read()
                if not same:
                    die(f"distcc helper {host} has another {cc}: it says "
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


def relative_prefix_map(tree, builddir):
    """-fmacro-prefix-map for the tree as ccache shows it to the compiler.

    With CCACHE_BASEDIR, ccache rewrites the absolute paths of the
    command line relative to the build directory ('../../tree/mm/
    memory.c') and, in its preprocessor mode, compiles with them.  The
    kernel's own -fmacro-prefix-map=$(srctree)/= then no longer matches,
    and __FILE__ in every WARN() and BUG() is '../../tree/mm/memory.c'
    instead of 'mm/memory.c'.  Depend mode compiles with the original
    paths, under the same cache key: which object a hit returns would
    depend on which mode stored it.  Mapping the relative form too
    makes both give the object a build without ccache gives."""
    rel = os.path.relpath(os.path.realpath(tree), os.path.realpath(builddir))
    return f"-fmacro-prefix-map={rel}/="


def make_cmd(cfg, targets, jobs, tree=None, keep_going=True, relmap=True):
    tree = tree or TREE
    v = cfg.make_vars()
    if relmap and v.get("CC", "").startswith("ccache "):
        v["KCFLAGS"] = " ".join(filter(None, (os.environ.get("KCFLAGS"),
                                              relative_prefix_map(tree, cfg.builddir))))
    cmd = ["make", "-C", tree, f"-j{jobs}"]
    if keep_going:
        cmd.append("-k")
    cmd += [f"{k}={val}" for k, val in v.items()]
    return cmd + list(targets)


def show(cmd):
    return " ".join(shlex.quote(c) if " " in c else c for c in cmd)


def ccache_env():
    env = dict(os.environ)
    # Depend mode: on a miss, ccache takes the headers from the
    # compiler's own -MMD output instead of running the preprocessor
    # first; a cold kernel build is then no slower than one without
    # ccache (mm/ and kernel/ on x86_64: 122 s in preprocessor mode,
    # 92 s in depend mode, 96 s without ccache).
    env.update(CCACHE_BASEDIR=WORK, CCACHE_NOHASHDIR="1", CCACHE_DEPEND="1",
               CCACHE_SLOPPINESS="time_macros,include_file_mtime,include_file_ctime",
               CCACHE_COMPILERCHECK="content")
    env.setdefault("CCACHE_MAXSIZE", "20G")
    if distcc_hosts():
        env["CCACHE_PREFIX"] = DISTCC_WRAPPER
        env["PATH"] = os.pathsep.join(distcc_path() + [env.get("PATH", os.defpath)])
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    env.pop("MAKELEVEL", None)
    return env


def configure(cfg, jobs, env, tree=None):
    """Generate .config and run make prepare, once per fragment digest.
    Returns None, or the reason it failed."""
    tree = tree or TREE
    stamp = os.path.join(cfg.builddir, ".harness-config")
    digest = cfg.digest()
    have = open(stamp).read().strip() if os.path.exists(stamp) else ""
    if have == digest and os.path.exists(os.path.join(cfg.builddir, ".config")):
        p = run(make_cmd(cfg, ["prepare"], jobs, tree, keep_going=False), env=env, check=False)
        if p.returncode == 0:
            return None
        return f"make prepare failed: {first_error(p.stdout)}"
    if os.path.exists(cfg.builddir):
        shutil.rmtree(cfg.builddir)
    os.makedirs(cfg.builddir)
    p = run(make_cmd(cfg, [cfg.meta["kconfig"]], jobs, tree, keep_going=False), env=env, check=False)
    if p.returncode:
        return f"make {cfg.meta['kconfig']} failed: {first_error(p.stdout)}"
    dotconfig = os.path.join(cfg.builddir, ".config")
    extra = []
    if cfg.extra:
        extra = [os.path.join(cfg.builddir, ".harness-extra.config")]
        with open(extra[0], "w") as f:
            f.write("\n".join(cfg.extra) + "\n")
    p = run([os.path.join(tree, "scripts/kconfig/merge_config.sh"), "-m",
             "-O", cfg.builddir, dotconfig, *cfg.fragments, cfg.path, *extra],
            cwd=cfg.builddir, env=env, check=False)
    if p.returncode:
        return f"merge_config.sh failed: {p.stdout.strip().splitlines()[-1:]}"
    # A Kconfig pass costs about 5 s here, nearly all of it the compiler
    # probes of Kconfig.include, which every pass runs again.  conf
    # writes include/config/auto.conf (and autoconf.h, and the files
    # fixdep reads) in syncconfig, or when it does not exist.  Without
    # it, olddefconfig writes them, and 'make prepare' finds them up to
    # date: no syncconfig pass there.  (Folding tinyconfig's own merge
    # and olddefconfig into ours would save one more pass, but it is not
    # the same: a symbol tiny.config hides and the fragment shows again,
    # such as SLAB_MERGE_DEFAULT, keeps allnoconfig's 'n' instead of
    # taking its default.)
    try:
        os.unlink(os.path.join(cfg.builddir, "include/config/auto.conf"))
    except FileNotFoundError:
        pass
    p = run(make_cmd(cfg, ["olddefconfig"], jobs, tree, keep_going=False), env=env, check=False)
    if p.returncode:
        return f"make olddefconfig failed: {first_error(p.stdout)}"
    with open(dotconfig) as f:
        have_lines = set(line.rstrip("\n") for line in f)
    lost = []
    for line in cfg.lines:
        if line.endswith("is not set"):
            sym = line.split()[1]
            if any(h.startswith(sym + "=") for h in have_lines):
                lost.append(line)
        elif line not in have_lines:
            lost.append(line)
    if lost:
        return "fragment lines not in the final .config: " + ", ".join(lost)
    p = run(make_cmd(cfg, ["prepare"], jobs, tree, keep_going=False), env=env, check=False)
    if p.returncode:
        return f"make prepare failed: {first_error(p.stdout)}"
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    return None


_LOCKS = {}


def lock_worktree(path):
    """Hold an exclusive lock on the worktree at PATH until this process
    exits, so that two runs never check out commits in the same tree.
    Dies, naming the holder, when another run has it."""
    path = os.path.abspath(path)
    if path in _LOCKS:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    f = open(path + ".lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "holder unknown"
        die(f"work tree {path} is in use by another run ({holder}); "
            "wait for it, or give this run its own TREE and BUILD")
    f.truncate(0)
    f.write(f"pid {os.getpid()}: {PROG}\n")
    f.flush()
    _LOCKS[path] = f


def ensure_worktree(path):
    """Lock the worktree of the base repository at PATH, adding it
    (detached, at the base) if missing."""
    lock_worktree(path)
    if not os.path.exists(os.path.join(path, ".git")):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # One 'worktree prune' + 'add' at a time in the repository: a
        # prune beside another run's add could drop its new entry.
        with open(os.path.join(LINUX, ".git", "harness-worktrees.lock"), "a") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            run(["git", "-C", LINUX, "worktree", "prune"])
            run(["git", "-C", LINUX, "worktree", "add", "-f", "--detach", path, BASE_TAG])


def mutant_worktree(commit):
    """Lock the MUTANT worktree and check COMMIT out in it, dropping
    what an interrupted run left changed."""
    ensure_worktree(MUTANT)
    run(["git", "-C", MUTANT, "checkout", "-q", "-f", "--detach", commit])


def sha256(path):
    """The sha256 of a file (an object), in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def worktree_changes(path):
    """Add the worktree at PATH if it is missing; return its changes to
    tracked files ('' when it is clean and safe to check out in)."""
    ensure_worktree(path)
    return git("status", "--porcelain", "--untracked-files=no", cwd=path)


def tree_commit(tree):
    """The commit of TREE: 'base' (the base tag) or 'series' (the head
    of the applied series)."""
    return git("rev-parse", BASE_TAG if tree == "base" else BRANCH)


def build_in_tree(cfg, tree, commit, target, jobs, env, logf):
    """Check COMMIT out in the worktree WORK/rt-TREE, configure CFG and
    make TARGET, with the output in LOGF.  Returns None or the reason it
    failed."""
    wt = os.path.join(WORK, "rt-" + tree)
    if worktree_changes(wt):
        return f"work tree {wt} is dirty"
    run(["git", "-C", wt, "checkout", "-q", "--detach", commit])
    err = configure(cfg, jobs, env, tree=wt)
    if err:
        return err
    cmd = make_cmd(cfg, [target], jobs, tree=wt, keep_going=False)
    with open(logf, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if p.returncode:
        with open(logf) as f:
            return f"make {target} failed: " + first_error(f.read())
    return None


def first_error(out):
    for line in out.splitlines():
        if ": error:" in line or "Error " in line or "*** " in line:
            return line.strip()
    lines = out.strip().splitlines()
    return lines[-1].strip() if lines else "(no output)"


def _dir_lists(cfg, directory, env, cache):
    """(objects, subdirectories) that DIRECTORY's kbuild file builds."""
    if directory in cache:
        return cache[directory]
    objs, subdirs = set(), set()
    if os.path.exists(os.path.join(TREE, directory, "Makefile")) or \
            os.path.exists(os.path.join(TREE, directory, "Kbuild")):
        mk = os.path.join(cfg.builddir, ".harness-print-objs.mk")
        with open(mk, "w") as f:
            f.write(PRINT_OBJS_MK)
        # Variables the arch Makefiles export and directory Makefiles use.
        with open(os.path.join(cfg.builddir, ".config")) as f:
            dotconfig = f.read()
        bits = "64" if "\nCONFIG_64BIT=y" in dotconfig else "32"
        mmuext = "" if "\nCONFIG_MMU=y" in dotconfig else "-nommu"
        p = run(["make", "-s", "-f", os.path.join(TREE, "scripts/Makefile.build"),
                 f"BITS={bits}", f"MMUEXT={mmuext}",
                 "-f", mk, f"srctree={TREE}", f"obj={directory}",
                 f"SRCARCH={cfg.srcarch}", f"ARCH={cfg.arch}",
                 "harness-print-objs"], cwd=cfg.builddir, env=env, check=False)
        if p.returncode == 0:
            words = p.stdout.split("|")
            objs = set(words[0].split())
            subdirs = set(words[1].split()) if len(words) > 1 else set()
    cache[directory] = (objs, subdirs)
    return cache[directory]


def object_enabled(cfg, obj, env, cache):
    """True if kbuild builds OBJ with this .config: its directory lists
    it, and every parent below arch/<arch> (or the top) descends there."""
    d = os.path.dirname(obj)
    if obj not in _dir_lists(cfg, d, env, cache)[0]:
        return False
    while True:
        parent = os.path.dirname(d)
        if parent in ("", "arch") or os.path.dirname(parent) == "arch":
            return True
        if d not in _dir_lists(cfg, parent, env, cache)[1]:
            return False
        d = parent


def enabled_objects(cfg, directory, env, cache):
    """Objects of DIRECTORY that kbuild builds with this .config."""
    return {o for o in _dir_lists(cfg, directory, env, cache)[0]
            if object_enabled(cfg, o, env, cache)}


def objects_for(paths):
    """Map source paths to object paths (None for non-sources)."""
    out = []
    for p in paths:
        base, ext = os.path.splitext(p)
        if ext in (".c", ".S"):
            out.append(base + ".o")
    return out


def affects(cfg, path):
    if path.startswith("Documentation/") or path.startswith("tools/") or \
            path.startswith("scripts/") and not path.startswith("scripts/kconfig"):
        return False
    m = re.match(r"^arch/([^/]+)/", path)
    if m:
        return m.group(1) == cfg.srcarch or \
            (cfg.srcarch == "um" and m.group(1) == "x86")
    return True


def tree_path(path, builddir):
    """PATH from a compiler message, relative to the tree or the build dir.

    ccache replays the compiler's output as it was when the object was
    stored.  With CCACHE_BASEDIR and CCACHE_NOHASHDIR the key holds the
    paths relative to the build directory ('../../tree/mm/memory.c'),
    so every checkout with that layout shares it, and a hit can print
    the absolute path of another one's tree or build directory:
    /elsewhere/work/tree/mm/memory.c.  Such a path is mapped back
    through the part the layouts share ('/tree/' here, the build
    directory's own name for its files), if that file exists here."""
    f = os.path.normpath(os.path.join(builddir, path))
    for root in (TREE, builddir):
        if f.startswith(root + "/"):
            return f[len(root) + 1:]
    if os.path.isabs(path):
        shared = [p for p in os.path.relpath(TREE, builddir).split("/") if p != ".."]
        for root, tail in ((TREE, shared), (builddir, [os.path.basename(builddir)])):
            mark = "/" + "/".join(tail) + "/"
            at = f.find(mark) if tail else -1
            while at >= 0:
                rest = f[at + len(mark):]
                if os.path.exists(os.path.join(root, rest)):
                    return rest
                at = f.find(mark, at + 1)
    return f


def parse_warnings(out, builddir):
    """Warnings as 'path-in-tree: message', without line numbers."""
    found = set()
    for line in out.splitlines():
        m = WARN_RE.match(line.strip())
        if m and m.group("kind") == "warning":
            found.add(f"{tree_path(m.group('file'), builddir)}: {m.group('msg')}")
    return found


# Objects that include the page-table and zsmalloc headers; compiled
# for every step that changes a header.  The arch's own mm objects are
# added per config.
CANARIES = [
    "mm/memory.o", "mm/pgtable-generic.o", "mm/huge_memory.o",
    "mm/hugetlb.o", "mm/mmu_gather.o", "mm/page_alloc.o",
    "mm/debug_vm_pgtable.o", "mm/zsmalloc.o", "kernel/fork.o",
]
ARCH_CANARY_DIRS = ["arch/{srcarch}/mm"]
# Of those, the objects that deal with page tables.
ARCH_CANARY_RE = re.compile(r"pgtable|pgalloc|mmu|tlb|init|gmap|pgd|hugetlb|srmmu|fault")
EXTRA_ARCH_CANARIES = {
    "x86": ["arch/x86/xen/mmu_pv.o", "arch/x86/kernel/ldt.o"],
    "s390": ["arch/s390/mm/gmap.o", "arch/s390/mm/pgalloc.o",
             "arch/s390/kvm/gaccess.o"],
    "powerpc": ["arch/powerpc/mm/pgtable-frag.o",
                "arch/powerpc/mm/book3s64/pgtable.o",
                "arch/powerpc/mm/book3s64/radix_pgtable.o",
                "arch/powerpc/mm/book3s64/hash_pgtable.o"],
}


def own_object(cfg, obj):
    """An object under arch/ is built only by its own arch; um also
    builds arch/x86/um/ (its x86 headers affect it, its objects not)."""
    m = re.match(r"^arch/([^/]+)/", obj)
    if not m or m.group(1) == cfg.srcarch:
        return True
    return cfg.srcarch == "um" and obj.startswith("arch/x86/um/")

def step_objects(cfg, files, all_touched, env, cache):
    """The objects a step with changed FILES (None: the base, where
    ALL_TOUCHED, the objects of the whole series, are built) must
    compile for CFG: the objects of its files, and the canaries when a
    header changed.  Returns (objects the config builds, objects it
    does not), or (None, None) when the step cannot affect CFG."""
    if files is None:
        wanted = set(CANARIES) | set(all_touched)
        header = True
    else:
        files = [f for f in files if affects(cfg, f)]
        if not files:
            return None, None
        wanted = set(objects_for(files))
        header = any(not f.endswith((".c", ".S")) for f in files)
        if header:
            wanted |= set(CANARIES)
    if header:
        for d in ARCH_CANARY_DIRS:
            d = d.format(srcarch=cfg.srcarch)
            wanted |= {o for o in enabled_objects(cfg, d, env, cache)
                       if ARCH_CANARY_RE.search(os.path.basename(o))}
        wanted |= set(EXTRA_ARCH_CANARIES.get(cfg.srcarch, []))
    wanted = {o for o in wanted if affects(cfg, o) and own_object(cfg, o)}
    build, skipped = [], []
    for o in sorted(wanted):
        if object_enabled(cfg, o, env, cache):
            build.append(o)
        else:
            skipped.append(o)
    return build, skipped
