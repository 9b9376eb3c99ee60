# SPDX-License-Identifier: GPL-2.0
"""Configuring a build directory for a config (Kconfig passes, make prepare).
"""

import os
import re
import shutil

from .diagnostics import first_error
from .make import make_cmd
from .paths import BASE, TREE
from .proc import run


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
    p = run(make_cmd(cfg, [cfg.meta["kconfig"]], jobs, tree, keep_going=False),
            env=env, check=False)
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
        lost = lost_lines(cfg.lines, f.read().splitlines(), BASE.kconfig_gone)
    if lost:
        return "fragment lines not in the final .config: " + ", ".join(lost)
    p = run(make_cmd(cfg, ["prepare"], jobs, tree, keep_going=False), env=env, check=False)
    if p.returncode:
        return f"make prepare failed: {first_error(p.stdout)}"
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    return None


def lost_lines(wanted, have, gone=()):
    """The lines of WANTED (a config's fragment lines) that the final
    .config (its lines, HAVE) does not honour.  A symbol the base's
    Kconfig no longer has (GONE: bases/*.base, kconfig-gone) cannot be
    in its .config and is not asked for."""
    have = set(have)
    lost = []
    for line in wanted:
        sym = re.search(r"CONFIG_\w+", line).group(0)
        if sym in gone:
            continue
        if line.endswith("is not set"):
            if any(h.startswith(sym + "=") for h in have):
                lost.append(line)
        elif line not in have:
            lost.append(line)
    return lost
