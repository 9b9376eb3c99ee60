# SPDX-License-Identifier: GPL-2.0
"""Which objects a config builds, and which a step must compile.
"""

import hashlib
import os
import re

from .errors import ObjectListError
from .paths import TREE
from .proc import run


# Prints the objects a directory's Makefile builds with this config.
PRINT_OBJS_MK = ("harness-print-objs:\n"
                 '\t@echo $(sort $(real-obj-y) $(real-obj-m) $(lib-y)) "|" $(sort $(subdir-ym))\n')


def sha256(path):
    """The sha256 of a file (an object), in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def _dir_lists(cfg, directory, env, cache):  # spawns make (Makefile.build)
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
        # The top Makefile passes VPATH (from 6.10, Makefile.build finds
        # the directory's kbuild file through it) and -I the source tree
        # (some kbuild files include others by a path relative to it,
        # such as arch/mips's Kbuild.platforms).
        p = run(["make", "-s", "--no-print-directory", "-I", TREE,
                 "-f", os.path.join(TREE, "scripts/Makefile.build"),
                 f"BITS={bits}", f"MMUEXT={mmuext}",
                 "-f", mk, f"srctree={TREE}", f"VPATH={TREE}", f"obj={directory}",
                 f"SRCARCH={cfg.srcarch}", f"ARCH={cfg.arch}",
                 "harness-print-objs"], cwd=cfg.builddir, env=env, check=False)
        if p.returncode:
            # An empty list here would make a step compile nothing and
            # pass: the listing must work or the cell must say why not.
            last = (p.stdout.strip().splitlines() or ["make failed"])[-1]
            raise ObjectListError(f"{cfg.name}: cannot list the objects of {directory}/: {last}")
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
