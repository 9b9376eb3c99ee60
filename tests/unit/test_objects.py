# SPDX-License-Identifier: GPL-2.0
"""Which objects a step compiles on a config (step selection)."""

import os

import pytest

from mdesc import objects, paths
from mdesc.config import Config
from mdesc.errors import ObjectListError


def cfg(name):
    return Config(os.path.join(paths.CONFIGS, name + ".config"))


@pytest.fixture
def kbuild(monkeypatch):
    """A fake kbuild: the objects and subdirectories each directory
    builds, as _dir_lists would read them from the Makefiles."""
    dirs = {
        "mm": ({"mm/memory.o", "mm/zsmalloc.o", "mm/huge_memory.o", "mm/hugetlb.o",
                "mm/mmu_gather.o", "mm/page_alloc.o", "mm/pgtable-generic.o",
                "mm/debug_vm_pgtable.o"}, set()),
        "kernel": ({"kernel/fork.o"}, set()),
        "arch/x86": (set(), {"arch/x86/mm/"}),
        "arch/x86/mm": ({"arch/x86/mm/pgtable.o", "arch/x86/mm/init.o",
                         "arch/x86/mm/ioremap.o", "arch/x86/mm/tlb.o"}, set()),
        "arch/x86/xen": (set(), set()),
    }
    monkeypatch.setattr(objects, "_dir_lists",
                        lambda c, d, env, cache: dirs.get(d, (set(), set())))
    return dirs


@pytest.mark.parametrize("paths_,want", [
    (["mm/memory.c", "include/linux/mm.h", "arch/x86/mm/init.S", "README"],
     ["mm/memory.o", "arch/x86/mm/init.o"]),
    ([], []),
])
def test_objects_for(paths_, want):
    assert objects.objects_for(paths_) == want


@pytest.mark.parametrize("path,config,want", [
    ("mm/memory.c", "x86_64", True),
    ("Documentation/mm/x.rst", "x86_64", False),
    ("tools/testing/x.c", "x86_64", False),
    ("scripts/checkpatch.pl", "x86_64", False),
    ("scripts/kconfig/conf.c", "x86_64", True),
    ("arch/x86/mm/pgtable.c", "x86_64", True),
    ("arch/x86/mm/pgtable.c", "arm64-4k", False),
    ("arch/x86/include/asm/pgalloc.h", "um", True),     # um builds on x86 headers
    ("arch/s390/mm/gmap.c", "um", False),
])
def test_affects(path, config, want):
    assert objects.affects(cfg(config), path) is want


def test_own_object():
    assert objects.own_object(cfg("um"), "arch/x86/um/tls_64.o")
    assert not objects.own_object(cfg("um"), "arch/x86/mm/pgtable.o")
    assert objects.own_object(cfg("x86_64"), "mm/memory.o")
    assert not objects.own_object(cfg("x86_64"), "arch/s390/mm/gmap.o")


def test_object_enabled_follows_parents(kbuild):
    c = cfg("x86_64")
    assert objects.object_enabled(c, "arch/x86/mm/pgtable.o", None, {})
    assert objects.object_enabled(c, "mm/memory.o", None, {})
    assert not objects.object_enabled(c, "mm/ptdesc_kunit.o", None, {})
    assert not objects.object_enabled(c, "arch/x86/xen/mmu_pv.o", None, {})


def test_a_c_file_step(kbuild):
    build, skipped = objects.step_objects(cfg("x86_64"), ["mm/memory.c"], [], None, {})
    assert (build, skipped) == (["mm/memory.o"], [])


def test_a_header_step_adds_canaries(kbuild):
    build, skipped = objects.step_objects(cfg("x86_64"), ["include/linux/mm_types.h"],
                                          [], None, {})
    assert set(objects.CANARIES) <= set(build)
    # The arch's page-table objects, not the others of arch/x86/mm.
    assert "arch/x86/mm/pgtable.o" in build and "arch/x86/mm/ioremap.o" not in build
    assert skipped == ["arch/x86/kernel/ldt.o", "arch/x86/xen/mmu_pv.o"]


def test_a_step_of_another_arch_is_not_applicable(kbuild):
    assert objects.step_objects(cfg("x86_64"), ["arch/s390/mm/gmap.c"], [], None, {}) == \
        (None, None)


def test_the_base_builds_what_the_series_touches(kbuild):
    build, _ = objects.step_objects(cfg("x86_64"), None,
                                    ["mm/memory.o", "arch/s390/mm/gmap.o"], None, {})
    assert "mm/memory.o" in build and "arch/s390/mm/gmap.o" not in build


def test_sha256(tmp_path):
    p = tmp_path / "x.o"
    p.write_bytes(b"abc")
    assert objects.sha256(str(p)) == \
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.fixture
def fake_tree(tmp_path, monkeypatch):
    """A source tree whose scripts/Makefile.build finds a directory's
    Makefile as 6.10 and later do, through VPATH, and a directory
    Makefile that includes a file by a path relative to the tree (as
    arch/mips/Kbuild does); and a build directory with a .config."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    (tree / "scripts" / "Makefile.build").write_text(
        "src := $(if $(VPATH),$(VPATH)/)$(obj)\n"
        "include $(src)/Makefile\n"
        "real-obj-y := $(addprefix $(obj)/,$(obj-y))\n"
        "subdir-ym := $(addprefix $(obj)/,$(subdir-y))\n")
    (tree / "arch" / "foo" / "mm").mkdir(parents=True)
    (tree / "arch" / "foo" / "Kbuild.platforms").write_text("obj-y += platform.o\n")
    (tree / "arch" / "foo" / "mm" / "Makefile").write_text(
        "obj-y += pgtable.o\ninclude arch/foo/Kbuild.platforms\nsubdir-y += sub\n")
    (tree / "arch" / "foo" / "broken").mkdir()
    (tree / "arch" / "foo" / "broken" / "Makefile").write_text("include no/such/file\n")
    build = tmp_path / "build"
    build.mkdir()
    (build / ".config").write_text("CONFIG_64BIT=y\nCONFIG_MMU=y\n")
    monkeypatch.setattr(objects, "TREE", str(tree))
    return Config(os.path.join(paths.CONFIGS, "x86_64.config"), builddir=str(build))


def test_dir_lists_reads_a_makefile_through_vpath_and_include(fake_tree):
    objs, subdirs = objects._dir_lists(fake_tree, "arch/foo/mm", None, {})
    assert objs == {"arch/foo/mm/pgtable.o", "arch/foo/mm/platform.o"}
    assert subdirs == {"arch/foo/mm/sub"}


def test_dir_lists_of_a_directory_without_makefile_is_empty(fake_tree):
    assert objects._dir_lists(fake_tree, "arch/foo", None, {}) == (set(), set())


def test_dir_lists_that_fails_is_an_error_not_an_empty_list(fake_tree):
    with pytest.raises(ObjectListError, match="cannot list the objects of arch/foo/broken/"):
        objects._dir_lists(fake_tree, "arch/foo/broken", None, {})
