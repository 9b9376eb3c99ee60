# SPDX-License-Identifier: GPL-2.0
"""harness bloat and bloat-per-patch: what they read from readelf, nm,
objdump and bloat-o-meter.  main() of either module builds kernels and
is not tested here; the functions that run a tool are, with the
module's run() replaced by one that hands back that tool's real output.

Every fixture in test_data/bloat/ is the output of a binutils 2.40 tool
or of the base tree's scripts/bloat-o-meter, run on the kernels and
objects of one real run: 'make test' started 2026-12-04 16:20 UTC in a
clone at 8c542a5 (its runtime test builds work/build/runtime/
x86_64-base at 1168211065ea and x86_64-series at 62a412a15ce1, and its
bloat check, 'bloat-report.py --runtime x86_64', compares them):

  readelf-SW.x86_64-base.txt    readelf -SW x86_64-base/vmlinux, whole
  nm-S.x86_64-base.txt          nm -S --defined-only x86_64-base/vmlinux,
                                66 of its 31278 lines, in their order:
                                the first 30, the first 12 without a
                                size, the __x64_sys_ac* ones, the hot
                                functions, PageTransHuge, unmap_page_range
  objdump.x86_64-base.FUNC.txt  objdump -d --no-show-raw-insn
                                --start-address --stop-address of FUNC
                                (its nm address and size) in the vmlinux
  bloat-o-meter.vmlinux.base-base.txt
                                bloat-o-meter of that vmlinux against itself

The run was stopped at 17:03 while it built the series kernel: there is
no series vmlinux, so the comparison of two vmlinux files is tested on
the base against itself.  The series objects built by then are real,
and so is what the base's bloat-o-meter, nm and objdump say of them:

  bloat-o-meter.memory.o.txt    bloat-o-meter base/mm/memory.o
                                series/mm/memory.o (what bloat-per-patch
                                runs on each object)
  bloat-o-meter.memory.o.reverse.txt  the same, series against base
  bloat-o-meter.mmu_gather.o.txt  the same for mm/mmu_gather.o (no change)
  bloat-o-meter.zsmalloc.o.new.txt  an empty object ('gcc -c -x c
                                /dev/null', as empty_object() makes it)
                                against base/mm/zsmalloc.o: a new object
  bloat-o-meter.no-script.txt   'python3 TREE/scripts/bloat-o-meter' with
                                no such file (a tree without the script)
  objdump.x86_64-{base,series}.memory.o.pmd_install.txt
                                objdump of pmd_install in either memory.o

The series vmlinux comes from the next run, 'make test' started 17:03
in a clone at 4b78368 (the same base and series commits; its base
vmlinux gives the same readelf, nm lines and objdump fixtures as the
first run's, byte for byte):

  readelf-SW.x86_64-series.txt  readelf -SW x86_64-series/vmlinux, whole
  nm-S.x86_64-series.txt        nm -S --defined-only of it, the lines
                                chosen as for the base, and the series'
                                KUnit functions (ptdesc_test_*, zs_test_*)
  objdump.x86_64-series.FUNC.txt  as for the base
  bloat-o-meter.vmlinux.txt     bloat-o-meter base/vmlinux series/vmlinux
  bloat.json, bloat.md, runtime-x86_64.FUNC.diff
                                what that run's 'harness bloat --runtime
                                x86_64' wrote (this package's compare()
                                and markdown())

From the runtime test's series kernel of 'make test' at 6284445 on
2026-12-05 (series head bbb0f41994e9), whose objects the newer code
reads with sizes:

  nm-S.x86_64-series.{memory,ptdesc_kunit,zsmalloc_kunit}.o.txt
                                nm -S --defined-only of mm/memory.o and
                                of the two objects only the series builds
"""

import json
import os
import types

import pytest

from mdesc import bloat, bloat_per_patch
from mdesc.paths import WORK

DATA = os.path.join(os.path.dirname(__file__), "test_data", "bloat")


def read(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def load_json(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


@pytest.fixture
def tool(monkeypatch):
    """tool(module, {name: output}): the module's run() answers a
    command with the output of the fixture registered for its program
    (its first word, less any CROSS_COMPILE prefix); every call is
    recorded in the returned list."""
    calls = []

    def install(module, outputs, returncode=0):
        def fake_run(cmd, cwd=None, env=None, check=True):
            calls.append((cmd, check))
            prog = os.path.basename(cmd[0]).rsplit("-", 1)[-1]
            if prog == "python3":
                prog = os.path.basename(cmd[1])
            return types.SimpleNamespace(stdout=outputs[prog], returncode=returncode)
        monkeypatch.setattr(module, "run", fake_run)
        return calls
    return install


# -------------------------------------------------------------- text_size

def test_text_size_real_vmlinux(tool):
    # '[ 1] .text PROGBITS ffffffff81000000 200000 600ad0': the size
    # column, not .init.text (03db9f), .exit.text or .altinstr_replacement.
    calls = tool(bloat, {"readelf": read("readelf-SW.x86_64-base.txt")})
    assert bloat.text_size("", "vmlinux") == 0x600ad0 == 6294224
    assert calls == [(["readelf", "-SW", "vmlinux"], True)]


def test_text_size_cross_prefix(tool):
    calls = tool(bloat, {"readelf": read("readelf-SW.x86_64-base.txt")})
    bloat.text_size("/opt/cross/bin/s390x-linux-gnu-", "vmlinux")
    assert calls[0][0][0] == "/opt/cross/bin/s390x-linux-gnu-readelf"


def test_text_size_without_text_section(tool):
    # readelf-SW.x86_64-base.txt with the '.text' line removed.
    out = "".join(ln for ln in read("readelf-SW.x86_64-base.txt").splitlines(True)
                  if "] .text " not in ln)
    tool(bloat, {"readelf": out})
    assert bloat.text_size("", "vmlinux") is None


# ---------------------------------------------------------------- symbols

HOT_BASE = {
    "__pte_alloc": (0xffffffff811b6190, 0xad), "__pte_alloc_kernel": (0xffffffff811b295d, 0xa0),
    "__pmd_alloc": (0xffffffff811b64d0, 0x2a1), "__pud_alloc": (0xffffffff811b5231, 0xbf),
    "pte_alloc_one": (0xffffffff81048d52, 0x79), "pgd_alloc": (0xffffffff81048f12, 0x1f4),
    "pgd_free": (0xffffffff81049106, 0xfb), "___pte_free_tlb": (0xffffffff81048dcb, 0x5b),
    "___pmd_free_tlb": (0xffffffff81048e26, 0x72),
    "free_pgd_range": (0xffffffff811b2254, 0x472), "free_pgtables": (0xffffffff811b26c6, 0x1f6),
    "pmd_install": (0xffffffff811b28bc, 0xa1), "zs_malloc": (0xffffffff81223308, 0x593),
    "zs_free": (0xffffffff8122389b, 0x10e), "zs_map_object": (0xffffffff81222d68, 0x33b),
    "zs_unmap_object": (0xffffffff812230a3, 0x25d), "zs_compact": (0xffffffff812239a9, 0x72f),
}


def test_function_table_real_vmlinux(tool):
    calls = tool(bloat, {"nm": read("nm-S.x86_64-base.txt")})
    table = bloat.function_table("", "vmlinux")
    assert calls == [(["nm", "-S", "--defined-only", "vmlinux"], True)]
    # 31 't'/'T' lines and 3 'W' (__x64_sys_accept, accept4, acct) with
    # a size, in nm's order.
    assert len(table) == 34
    assert ("__x64_sys_accept", 0xffffffff81082b75, 8) in table
    assert ("unmap_page_range", 0xffffffff811b2c93, 0x913) in table
    assert [t[0] for t in table].count("BIT_initDStream") == 3


def test_symbols_real_vmlinux(tool):
    tool(bloat, {"nm": read("nm-S.x86_64-base.txt")})
    syms = bloat.symbols(bloat.function_table("", "vmlinux"))
    assert sorted(bloat.HOT) == sorted(HOT_BASE)
    for name, want in HOT_BASE.items():
        assert syms[name] == want, name
    # 29 names: BIT_initDStream and BIT_reloadDStream three times,
    # PageTransHuge twice.
    assert len(syms) == 29
    assert syms["__x64_sys_access"] == (0xffffffff8122708c, 0x2f)


def test_symbols_leave_out_data_and_sizeless(tool):
    tool(bloat, {"nm": read("nm-S.x86_64-base.txt")})
    syms = bloat.symbols(bloat.function_table("", "vmlinux"))
    assert "BIT_mask" not in syms and "CSWTCH.1" not in syms    # d
    assert "__x64_sys_accept" in syms                            # W: code too
    assert ".E_copy" not in syms                                 # t, no size
    assert "__bss_start" not in syms and "L4_PAGE_OFFSET" not in syms


def test_symbols_keep_the_first_of_a_name(tool):
    # BIT_reloadDStream: 0xcd bytes at ffffffff8130b6ad, then 0xf3 twice.
    tool(bloat, {"nm": read("nm-S.x86_64-base.txt")})
    syms = bloat.symbols(bloat.function_table("", "vmlinux"))
    assert syms["BIT_reloadDStream"] == (0xffffffff8130b6ad, 0xcd)
    assert syms["PageTransHuge"] == (0xffffffff811cda2c, 0x47)


def test_code_bytes_counts_every_function_of_a_name(tool):
    # The three BIT_initDStream (0x1e2 each), the three BIT_reloadDStream
    # (0xcd, 0xf3, 0xf3) and both PageTransHuge (0x47) all count: each
    # is code of its own object.  Counting one per name, as this check
    # did until 2026-12-05, missed 2 * 0x1e2 + 2 * 0xf3 + 0x47 bytes.
    tool(bloat, {"nm": read("nm-S.x86_64-base.txt")})
    table = bloat.function_table("", "vmlinux")
    every = sum(size for _, _, size in table)
    one_per_name = sum(size for _, size in bloat.symbols(table).values())
    assert bloat.code_bytes(table) == (every, 0)
    assert every - one_per_name == 2 * 0x1e2 + 2 * 0xf3 + 0x47


def test_code_bytes_counts_an_alias_once():
    # An alias is a second name at its function's address.
    table = [("f", 0x1000, 0x40), ("f_alias", 0x1000, 0x40), ("g", 0x1040, 0x10)]
    assert bloat.code_bytes(table) == (0x50, 0)


def test_code_bytes_leave_out():
    table = [("f", 0x1000, 0x40), ("zs_test_map", 0x2000, 0x30), ("g", 0x1040, 0x10)]
    assert bloat.code_bytes(table, [("zs_test_map", 0x30)]) == (0x50, 1)
    # Another size is another function: it stays.
    assert bloat.code_bytes(table, [("zs_test_map", 0x31)]) == (0x80, 0)


def test_code_bytes_leave_out_one_copy_of_a_header_helper():
    # A KUnit object's out-of-line copy of a static helper: the same
    # name and size as the copy in mm/memory.o.  One goes, one stays.
    table = [("virt_to_ptdesc", 0x1000, 0x59), ("virt_to_ptdesc", 0x2000, 0x59),
             ("g", 0x3000, 0x10)]
    assert bloat.code_bytes(table, [("virt_to_ptdesc", 0x59)]) == (0x69, 1)
    assert bloat.code_bytes(table, [("virt_to_ptdesc", 0x59)] * 2) == (0x10, 2)


@pytest.mark.parametrize("order", [0, 1])
def test_code_bytes_leave_out_takes_the_aliases(order):
    # Whichever name of the address nm lists first.
    pair = [("zs_test_map", 0x2000, 0x30), ("zs_test_map_alias", 0x2000, 0x30)]
    table = [("f", 0x1000, 0x40)] + (pair if order == 0 else pair[::-1])
    assert bloat.code_bytes(table, [("zs_test_map", 0x30)]) == (0x40, 1)


# ----------------------------------------------------------------- disasm

def test_disasm_normalises_addresses(tool):
    calls = tool(bloat, {"objdump": read("objdump.x86_64-base.pmd_install.txt")})
    lines = bloat.disasm("", "vmlinux", *HOT_BASE["pmd_install"])
    assert calls == [(["objdump", "-d", "--no-show-raw-insn",
                       "--start-address=0xffffffff811b28bc",
                       "--stop-address=0xffffffff811b295d", "vmlinux"], True)]
    # 48 instructions; no header, file or section line.
    assert len(lines) == 48
    assert lines[:3] == ["push   %r14", "push   %r13", "push   %r12"]
    assert lines[9] == "call   ADDR <pmd_lock.constprop.0>"
    assert lines[14] == "jne    ADDR <pmd_install+X>"
    assert lines[-1] == "jmp    ADDR <_raw_spin_unlock>"
    # Constants of 6 hex digits or more are taken for addresses too.
    assert lines[13] == "testq  $ADDR,0x0(%rbp)"
    assert "shr    $0x2d,%rdi" in lines
    assert not any("ffffffff" in ln for ln in lines)


@pytest.mark.parametrize("fn,count,line,want", [
    # A RIP-relative displacement of 6 hex digits, which moves with the
    # code, and the address in objdump's comment.
    ("pte_alloc_one", 37, 1, "mov    ADDR(%rip),%edi        # ADDR <__userpte_alloc_gfp>"),
    # 'mov $0x37ffff,%eax': a constant, normalised as if an address.
    ("__pte_alloc", 44, 1, "mov    $ADDR,%eax"),
])
def test_disasm_short_addresses(tool, fn, count, line, want):
    tool(bloat, {"objdump": read(f"objdump.x86_64-base.{fn}.txt")})
    lines = bloat.disasm("", "vmlinux", *HOT_BASE[fn])
    assert len(lines) == count
    assert lines[line] == want


def test_disasm_code_that_differs(tool):
    # pmd_install of base and series mm/memory.o: 161 and 189 bytes, the
    # series' calling virt_to_ptdesc.
    tool(bloat, {"objdump": read("objdump.x86_64-base.memory.o.pmd_install.txt")})
    a = bloat.disasm("", "memory.o", 0x2cf2, 0xa1)
    tool(bloat, {"objdump": read("objdump.x86_64-series.memory.o.pmd_install.txt")})
    b = bloat.disasm("", "memory.o", 0x2da6, 0xbd)
    assert (len(a), len(b)) == (48, 54)
    assert "call   4c3 <virt_to_ptdesc>" in b
    assert not any("virt_to_ptdesc" in ln for ln in a)


# ------------------------------------------- object_functions, own_objects

def test_object_functions_real_object(tool):
    calls = tool(bloat, {"nm": read("nm-S.x86_64-series.memory.o.txt")})
    funcs = bloat.object_functions("x86_64-linux-gnu-", "mm/memory.o")
    assert calls == [(["x86_64-linux-gnu-nm", "-S", "--defined-only", "mm/memory.o"], False)]
    # 162 functions ('t', 'T') of 188 symbols; no data ('d', 'D', 'b', 'r').
    assert len(funcs) == 162
    assert ("pmd_install", 0xbd) in funcs and ("virt_to_ptdesc", 0x59) in funcs
    assert all(not f.startswith("__UNIQUE_ID") for f, _ in funcs)


def test_object_functions_of_a_missing_object(tool):
    # nm on no such file: its message has three words, none a 't'.
    tool(bloat, {"nm": "nm: 'mm/gone.o': No such file\n"})
    assert bloat.object_functions("", "mm/gone.o") == []


def test_added_objects(tmp_path, monkeypatch):
    # The series adds two KUnit suites (mm/ptdesc_kunit.c,
    # mm/zsmalloc_kunit.c); the build directory holds the object of one
    # of them (the other's option is off).  Only *_kunit.c is asked for:
    # any other new file is code of the image.
    asked = []

    def fake_git(*args, cwd=None):
        asked.append(args)
        return "mm/ptdesc_kunit.c\nmm/zsmalloc_kunit.c\n"
    monkeypatch.setattr(bloat, "git", fake_git)
    (tmp_path / "mm").mkdir()
    (tmp_path / "mm" / "ptdesc_kunit.o").write_text("")
    (tmp_path / "mm" / "memory.o").write_text("")
    got = bloat.added_objects(str(tmp_path), "BASE", "SERIES")
    assert asked == [("diff", "--name-only", "--diff-filter=A", "BASE", "SERIES", "--",
                      "*_kunit.c")]
    assert got == ["mm/ptdesc_kunit.o"]


# ---------------------------------------------------------------- compare

HOT_WITH_CODE = ("pmd_install", "pte_alloc_one", "__pte_alloc")


@pytest.fixture
def base_vmlinux(monkeypatch, tmp_path):
    """run() as it answers for the base vmlinux: bloat-o-meter of it
    against itself, readelf, nm (nm-S.x86_64-base.txt without the hot
    functions that have no objdump fixture, so that those are 'not in
    both'), and objdump by start address for the three that have one."""
    nm = "".join(ln for ln in read("nm-S.x86_64-base.txt").splitlines(True)
                 if ln.split()[-1] not in bloat.HOT or ln.split()[-1] in HOT_WITH_CODE)
    code = {HOT_BASE[f][0]: read(f"objdump.x86_64-base.{f}.txt") for f in HOT_WITH_CODE}
    calls = []

    def fake_run(cmd, cwd=None, env=None, check=True):
        calls.append(cmd)
        prog = os.path.basename(cmd[0])
        if prog == "bloat-o-meter":
            out = read("bloat-o-meter.vmlinux.base-base.txt")
        elif prog == "readelf":
            out = read("readelf-SW.x86_64-base.txt")
        elif prog == "nm":
            out = nm
        else:
            assert prog == "objdump"
            out = code[int(cmd[3].split("=")[1], 16)]
        return types.SimpleNamespace(stdout=out, returncode=0)
    monkeypatch.setattr(bloat, "run", fake_run)
    monkeypatch.setattr(bloat, "OUT", str(tmp_path / "out"))
    (tmp_path / "out").mkdir()
    return calls


# The bytes of the 20 functions in those nm lines, 3 of them weak (3843
# counting one function per name and no weak one).
FUNCS = 5388


def test_measure(base_vmlinux):
    m = bloat.measure("", "vmlinux")
    assert m["text"] == 6294224
    assert m["functions"] == FUNCS and m["left_out"] == 0
    assert sorted(m["hot"]) == sorted(HOT_WITH_CODE)
    assert m["hot"]["pmd_install"]["size"] == 161
    assert len(m["hot"]["pmd_install"]["code"]) == 48


def test_measure_leaves_out_one_function_per_name_and_size(base_vmlinux):
    # unmap_page_range once; BIT_initDStream, defined three times with
    # 0x1e2 bytes, once; zs_test_gone is not in the vmlinux at all.
    m = bloat.measure("", "vmlinux", [("unmap_page_range", 0x913),
                                      ("BIT_initDStream", 0x1e2), ("zs_test_gone", 8)])
    assert m["left_out"] == 2
    assert m["functions"] == FUNCS - 0x913 - 0x1e2


def test_compare_base_with_itself(base_vmlinux, capsys):
    m = bloat.measure("", "vmlinux")
    rec = {"config": "runtime-x86_64"}
    bloat.bloat_o_meter(rec, {"base": "base/vmlinux", "series": "series/vmlinux"})
    assert base_vmlinux[-1] == [os.path.join(WORK, "rt-base", "scripts", "bloat-o-meter"),
                                "base/vmlinux", "series/vmlinux"]
    assert bloat.compare(rec, {"base": m, "series": m}, 0.01) is True
    assert rec == {
        "config": "runtime-x86_64",
        "bloat_o_meter": "add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)",
        "text_base": 6294224, "text_series": 6294224, "text_delta": 0,
        "funcs_base": FUNCS, "funcs_series": FUNCS, "funcs_delta": 0, "funcs_pct": 0.0,
        "hot": {fn: ("same code, %d bytes" % HOT_BASE[fn][1] if fn in HOT_WITH_CODE
                     else "not in both (inlined or not built)") for fn in bloat.HOT},
    }
    assert rec["hot"]["pmd_install"] == "same code, 161 bytes"
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"PASS bloat/runtime-x86_64/text: functions {FUNCS} -> {FUNCS} bytes "
                      "(+0, +0.0000%, bound +0.01%); .text section 6294224 -> 6294224; "
                      "add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)")
    assert "  hot runtime-x86_64 pmd_install: same code, 161 bytes" in out
    with open(os.path.join(bloat.OUT, "runtime-x86_64.bloat-o-meter.txt")) as f:
        assert f.read() == read("bloat-o-meter.vmlinux.base-base.txt")


def test_compare_hot_code_that_differs(base_vmlinux, capsys):
    # The series' pmd_install as its own objdump gives it: 189 bytes,
    # 54 instructions, calling virt_to_ptdesc.
    base = bloat.measure("", "vmlinux")
    ser = json.loads(json.dumps(base))
    ser["hot"]["pmd_install"] = {
        "size": 189, "code": bloat.disasm("", "vmlinux", *HOT_BASE["pmd_install"])}
    ser["hot"]["pmd_install"]["code"][9] = "call   ADDR <virt_to_ptdesc>"
    rec = {"config": "runtime-x86_64"}
    assert bloat.compare(rec, {"base": base, "series": ser}, 0.01) is True
    assert rec["hot"]["pmd_install"] == "differs: 161 -> 189 bytes, 2 lines changed"
    with open(os.path.join(bloat.OUT, "runtime-x86_64.pmd_install.diff")) as f:
        assert "+call   ADDR <virt_to_ptdesc>" in f.read().splitlines()


@pytest.mark.parametrize("grow,bound,ok", [
    (0, 0.01, True), (0, 0.0, True), (0, -0.01, False),
    # 0.01% of 5388 bytes is 0.54 bytes: one byte more is over the bound.
    (1, 0.01, False), (1, 0.03, True)])
def test_compare_bound(base_vmlinux, capsys, grow, bound, ok):
    base = bloat.measure("", "vmlinux")
    ser = dict(base, functions=base["functions"] + grow)
    rec = {"config": "runtime-x86_64"}
    assert bloat.compare(rec, {"base": base, "series": ser}, bound) is ok
    assert capsys.readouterr().out.startswith("PASS " if ok else "FAIL ")


def test_compare_against_a_recorded_base(base_vmlinux, capsys):
    # A record holds what measure() gave, through JSON.
    m = bloat.measure("", "vmlinux")
    recorded = json.loads(json.dumps(m))
    rec = {"config": "runtime-x86_64", "bloat_o_meter": "base from runtime/expect/x86_64.json"}
    assert bloat.compare(rec, {"base": recorded, "series": m}, 0.01) is True
    assert set(rec["hot"].values()) >= {"same code, 161 bytes"}
    assert "; base from runtime/expect/x86_64.json" in capsys.readouterr().out


# --------------------------------------------------------------- markdown

def test_markdown(base_vmlinux):
    m = bloat.measure("", "vmlinux")
    rec = {"config": "runtime-x86_64"}
    bloat.bloat_o_meter(rec, {"base": "base/vmlinux", "series": "series/vmlinux"})
    bloat.compare(rec, {"base": m, "series": m}, 0.01)
    rec["status"] = "PASS"
    md = bloat.markdown([rec, {"config": "s390", "status": "SKIP"}]).splitlines()
    assert md[:6] == [
        "# Code size: series against base", "",
        "| config | functions, base | series | delta | .text section delta | bloat-o-meter |",
        "|---|---|---|---|---|---|",
        f"| runtime-x86_64 | {FUNCS} | {FUNCS} | +0 (+0.0000%) | +0 | "
        "add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0) |",
        "| s390 | SKIP | | | | |"]
    assert md[6:9] == ["", "## Hot paths", ""]
    assert md[9:] == [f"- runtime-x86_64 `{fn}`: {rec['hot'][fn]}" for fn in bloat.HOT]


def test_markdown_reproduces_the_runs_report():
    # The run's bloat.json, one record: functions 4246722 -> 4245588,
    # every hot function.
    report = load_json("bloat.json")
    assert [r["status"] for r in report] == ["PASS"]
    assert bloat.markdown(report) == read("bloat.md")


# ------------------------------------------------ bloat_per_patch.delta

@pytest.mark.parametrize("fixture,net,funcs", [
    ("bloat-o-meter.memory.o.txt", 138, [
        "virt_to_ptdesc +89", "pagetable_pte_dtor +81", "folio_address +70",
        "unmap_page_range +51", "folio_nr_pages +50", "compound_order +48",
        "__pud_alloc +37", "__pte_alloc_kernel +34", "pmd_install +28", "pagetable_free +22",
        "__alloc_pages_node.constprop +21", "__pte_alloc -2", "__handle_mm_fault -2",
        "do_set_pmd -6", "do_swap_page -38", "unmap_mapping_folio -41",
        "pgtable_pte_page_dtor -72", "__pmd_alloc -112", "pmd_lock.constprop -120"]),
    ("bloat-o-meter.memory.o.reverse.txt", -138, [
        "pmd_lock.constprop +120", "__pmd_alloc +112", "pgtable_pte_page_dtor +72",
        "unmap_mapping_folio +41", "do_swap_page +38", "do_set_pmd +6",
        "__pte_alloc +2", "__handle_mm_fault +2", "__alloc_pages_node.constprop -21",
        "pagetable_free -22", "pmd_install -28", "__pte_alloc_kernel -34", "__pud_alloc -37",
        "compound_order -48", "folio_nr_pages -50", "unmap_page_range -51",
        "folio_address -70", "pagetable_pte_dtor -81", "virt_to_ptdesc -89"]),
    ("bloat-o-meter.mmu_gather.o.txt", 0, []),
    ("bloat-o-meter.no-script.txt", None, []),
])
def test_delta(tool, fixture, net, funcs):
    calls = tool(bloat_per_patch, {"bloat-o-meter": read(fixture)})
    assert bloat_per_patch.delta("old/mm/memory.o", "new/mm/memory.o") == (net, funcs)
    assert calls == [(["python3", os.path.join(bloat_per_patch.TREE, "scripts", "bloat-o-meter"),
                       "old/mm/memory.o", "new/mm/memory.o"], False)]


def test_delta_new_object(tool):
    # A new object against the empty one: every symbol of zsmalloc.o, data
    # too (bloat-o-meter's default counts tTdDbBrR), all of it growth.
    tool(bloat_per_patch, {"bloat-o-meter": read("bloat-o-meter.zsmalloc.o.new.txt")})
    net, funcs = bloat_per_patch.delta("empty.o", "mm/zsmalloc.o")
    assert net == 13746
    assert len(funcs) == 63
    assert funcs[0] == "zs_compact +1839"
    assert funcs[-1] == "__UNIQUE_ID___addressable_zs_init314 +8"
    assert "zsmalloc_mops +24" in funcs


@pytest.fixture
def two_vmlinux(monkeypatch, tmp_path):
    """run() as it answers for the base and the series vmlinux (by the
    tree in the path), the nm lines as in base_vmlinux; the series'
    build directory holds its two KUnit objects."""
    def nm(tree):
        return "".join(ln for ln in read(f"nm-S.x86_64-{tree}.txt").splitlines(True)
                       if ln.split()[-1] not in bloat.HOT or ln.split()[-1] in HOT_WITH_CODE)
    code = {}
    for t in ("base", "series"):
        for f in HOT_WITH_CODE:
            out = read(f"objdump.x86_64-{t}.{f}.txt")
            code[(t, int(out.split(f" <{f}>:")[0].split()[-1], 16))] = out

    def fake_run(cmd, cwd=None, env=None, check=True):
        prog, tree = os.path.basename(cmd[0]), "series" if "/series/" in cmd[-1] else "base"
        if prog == "bloat-o-meter":
            return types.SimpleNamespace(stdout=read("bloat-o-meter.vmlinux.txt"), returncode=0)
        if prog == "readelf":
            out = read(f"readelf-SW.x86_64-{tree}.txt")
        elif prog == "nm" and cmd[-1].endswith(".o"):
            out = read("nm-S.x86_64-series.%s.txt" % os.path.basename(cmd[-1]))
        elif prog == "nm":
            out = nm(tree)
        else:
            out = code[(tree, int(cmd[3].split("=")[1], 16))]
        return types.SimpleNamespace(stdout=out, returncode=0)
    monkeypatch.setattr(bloat, "run", fake_run)
    monkeypatch.setattr(bloat, "OUT", str(tmp_path / "out"))
    (tmp_path / "out").mkdir()
    (tmp_path / "base").mkdir()
    (tmp_path / "series" / "mm").mkdir(parents=True)
    for o in ("ptdesc_kunit.o", "zsmalloc_kunit.o"):
        (tmp_path / "series" / "mm" / o).write_text("")
    vm = {"base": str(tmp_path / "base" / "vmlinux"),
          "series": str(tmp_path / "series" / "vmlinux")}
    return vm, str(tmp_path / "series"), str(tmp_path / "base"), tmp_path / "out"


def test_compare_series_with_base(two_vmlinux, capsys):
    vm, sdir, bdir, out = two_vmlinux
    own = []
    for o in ("ptdesc_kunit.o", "zsmalloc_kunit.o"):
        own += bloat.object_functions("", os.path.join(sdir, "mm", o))
    # 33 functions in the two KUnit objects, with their copies of header
    # helpers (virt_to_ptdesc, pagetable_free, ...).
    assert len(own) == 33
    m = {"base": bloat.measure("", vm["base"]), "series": bloat.measure("", vm["series"], own)}
    # The test functions among the series' nm lines have the sizes of
    # the objects: left out.
    assert m["base"]["left_out"] == 0
    # 11: the objects are from the 2026-12-05 series, the vmlinux lines
    # from 62a412a15ce1, and ptdesc_test_pmd_ctor changed size between
    # them (its share-count check), so it is another function and stays.
    assert m["series"]["left_out"] == 11
    rec = {"config": "runtime-x86_64"}
    bloat.bloat_o_meter(rec, vm)
    # The nm lines grow by 70 bytes (pmd_install +28, pte_alloc_one -7,
    # __pte_alloc -2, unmap_page_range +51) and ptdesc_test_pmd_ctor's
    # 0x2aa stay: far over 0.01% of them.
    grow = 70 + 0x2aa
    assert bloat.compare(rec, m, 0.01) is False
    assert rec["funcs_delta"] == grow
    assert rec["funcs_base"] == FUNCS
    assert rec["funcs_pct"] == round(100 * grow / FUNCS, 5)
    # The same .text section size, 0x600ad0, in both.
    assert (rec["text_base"], rec["text_series"], rec["text_delta"]) == (6294224, 6294224, 0)
    assert rec["bloat_o_meter"] == ("add/remove: 36/6 grow/shrink: 27/28 up/down: "
                                    "14450/-2833 (11617)")
    assert rec["hot"]["pmd_install"] == "differs: 161 -> 189 bytes, 16 lines changed"
    assert rec["hot"]["pte_alloc_one"] == "differs: 121 -> 114 bytes, 12 lines changed"
    assert rec["hot"]["__pte_alloc"] == "differs: 173 -> 171 bytes, 5 lines changed"
    assert sorted(os.listdir(out)) == [
        "runtime-x86_64.__pte_alloc.diff", "runtime-x86_64.bloat-o-meter.txt",
        "runtime-x86_64.pmd_install.diff", "runtime-x86_64.pte_alloc_one.diff"]
    # The diffs are those of the run, which saw every symbol.
    for fn in HOT_WITH_CODE:
        assert (out / f"runtime-x86_64.{fn}.diff").read_text() == \
            read(f"runtime-x86_64.{fn}.diff"), fn
    run = {fn: what for fn, what in load_json("bloat.json")[0]["hot"].items()}
    for fn in HOT_WITH_CODE:
        assert rec["hot"][fn] == run[fn]
    assert capsys.readouterr().out.splitlines()[0] == (
        f"FAIL bloat/runtime-x86_64/text: functions {FUNCS} -> {FUNCS + grow} bytes "
        f"(+{grow}, +{100 * grow / FUNCS:.4f}%, bound +0.01%); .text section 6294224 -> 6294224; "
        "add/remove: 36/6 grow/shrink: 27/28 up/down: 14450/-2833 (11617)")
