# SPDX-License-Identifier: GPL-2.0
"""harness page-use - list struct page uses in mm/zsmalloc.c outside the zsdesc helpers.

Reads mm/zsmalloc.c at a commit (default: the series head), strips
comments and strings, splits it into top-level definitions and reports
every 'struct page', every 'page->' dereference and every call of a
page-only helper of the zsmalloc page state (page_private,
set_page_private, PagePrivate, SetPagePrivate, ClearPagePrivate,
__SetPageMovable, __ClearPageMovable, page_zone, ...) that is not inside
the small set of zsdesc helpers allowed to touch struct page.

Usage: harness page-use [--commit REV] [--expect-none | --expect-some]

--expect-none fails if anything is found (the final tree);
--expect-some fails if nothing is found (the base: the check must see
what it is meant to catch).
"""

import argparse
import re

from .proc import git

# The helpers that convert between struct zsdesc and struct page, or
# wrap a page API for a zsdesc.  Only these may touch struct page.
ALLOWED = {
    "zsdesc_page", "zsdesc_folio", "page_zsdesc", "zsdesc_pfn", "pfn_zsdesc",
    "zsdesc_get", "zsdesc_put", "zsdesc_trylock", "zsdesc_unlock",
    "zsdesc_wait_locked", "zsdesc_kmap_atomic", "zsdesc_set_zspage",
    "zsdesc_set_first", "zsdesc_set_movable", "zsdesc_inc_zone_page_state",
    "zsdesc_dec_zone_page_state", "alloc_zsdesc", "free_zsdesc",
    "reset_zsdesc", "zsdesc_is_isolated", "zsdesc_zone", "zsdesc_is_locked",
    "is_first_zsdesc", "get_first_zsdesc", "get_next_zsdesc", "obj_to_zsdesc",
    # struct zsdesc itself and its layout asserts
    "struct zsdesc", "ZSDESC_MATCH",
    # the page migration callbacks are page APIs by contract
    "zs_page_isolate", "zs_page_migrate", "zs_page_putback",
}

PAGE_ONLY = [
    r"\bstruct\s+page\b", r"\bpage\s*->", r"\bpage_private\s*\(",
    r"\bset_page_private\s*\(", r"\b(Set|Clear|__Set|__Clear)?PagePrivate\s*\(",
    r"\b__(Set|Clear)PageMovable\s*\(", r"\bpage_zone\s*\(",
    r"\b(trylock|unlock|lock)_page\s*\(", r"\bwait_on_page_locked\s*\(",
    r"\bPageIsolated\s*\(", r"\bget_page\s*\(", r"\bput_page\s*\(",
    r"\bkmap_atomic\s*\(", r"\bpage_to_pfn\s*\(", r"\bpfn_to_page\s*\(",
    r"\b(inc|dec)_zone_page_state\s*\(", r"\balloc_page\s*\(",
    r"\b__free_page\s*\(",
]


def strip(src):
    """Blank out comments and string/char literals, keeping line numbers."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'',
                  blank, src, flags=re.S)


def definitions(src):
    """Yield (name, first line, text) of each top-level definition.
    Preprocessor directives are yielded as '#define NAME' (or '#'),
    then blanked out."""
    lines = src.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("#"):
            first = i
            while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
            text = "\n".join(lines[first:i + 1])
            m = re.match(r"\s*#\s*define\s+(\w+)", text)
            yield ("#define " + m.group(1)) if m else "#", first + 1, text
            for j in range(first, i + 1):
                lines[j] = ""
        i += 1
    src = "\n".join(lines)
    depth, start, line = 0, 0, 1
    start_line = 1
    for i, ch in enumerate(src):
        if ch == "\n":
            line += 1
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                end = src.find(";", i)
                nl = src.find("\n", i)
                stop = end + 1 if end != -1 and (nl == -1 or end < nl) else i + 1
                yield name_of(src[start:stop]), start_line, src[start:stop]
                start, start_line = stop, line
        elif ch == ";" and depth == 0:
            yield name_of(src[start:i + 1]), start_line, src[start:i + 1]
            start, start_line = i + 1, line


def name_of(text):
    head = text.split("{", 1)[0]
    m = re.search(r"\b(struct\s+\w+)\s*$", head.strip())
    if m:
        return re.sub(r"\s+", " ", m.group(1))
    m = re.search(r"(\w+)\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*$", head.strip())
    if m:
        return m.group(1)
    m = re.match(r"\s*(\w+)\s*\(", text.strip())
    return m.group(1) if m else head.strip().split("\n")[-1][:40]


def uses(src):
    """(line, definition, text) of each struct page use in SRC (a
    zsmalloc.c) outside the helpers that may make one."""
    clean = strip(src)
    raw = src.split("\n")
    found = []
    for name, first, text in definitions(clean):
        if name.removeprefix("#define ") in ALLOWED:
            continue
        # The layout asserts of struct zsdesc, and macros that make them.
        if "zsdesc" in text and re.search(r"^\s*(#\s*define\s+\w+\(.*\)\s*)?static_assert\b",
                                          text, re.M):
            continue
        for off, ln in enumerate(text.split("\n")):
            for pat in PAGE_ONLY:
                if re.search(pat, ln):
                    no = first + off
                    found.append((no, name, raw[no - 1].strip()))
                    break
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(prog="harness page-use", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commit", default="series")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--expect-none", action="store_true")
    g.add_argument("--expect-some", action="store_true")
    args = ap.parse_args(argv)

    found = uses(git("show", f"{args.commit}:mm/zsmalloc.c"))
    for no, name, text in found:
        print(f"mm/zsmalloc.c:{no}: in {name}: {text}")
    print(f"{len(found)} struct page use(s) outside the zsdesc helpers at {args.commit}")
    if args.expect_none and found:
        return 1
    if args.expect_some and not found:
        return 1
    return 0
