# SPDX-License-Identifier: GPL-2.0
"""The base's runtime result as a recorded expectation.

The pinned base never changes, yet the runtime test of every 'make
test' built its KASAN kernel and booted it (about 190 s of QEMU on this
2-core machine, and the kernel's link) only to learn again what it
gave the last time.  'make boot' (harness boot --record) writes what
the base gave, per runtime config, to runtime/expect/NAME.json: the
boot (its checks, KUnit cases, mm selftests, kernel reports) and the
code size of its vmlinux.  The runtime test in 'make test' (harness
boot --base-record) boots only the series and compares it with that
record; harness bloat --runtime takes the base's code size from it.

The record holds while its key is what this machine would use now:

  kernel  the base's tree hash, the runtime config and its fragments,
          the compiler (version and driver binary) and binutils, and
          the harness code that builds the kernel and measures it;
  boot    the QEMU binary's version and the QEMU command, the compiler
          of rtinit and the selftests, rtinit.c, the static busybox,
          the kernel command line and test phases, the mm selftests,
          and the harness code that boots and judges.

When a part differs (a Debian update of gcc or QEMU, an edit of
rtinit.c) the base is built and booted as before, the line says which
key differed, and the record is written again: commit it, since CI
starts from a fresh clone.  The series is never served from a record.
"""

import datetime
import hashlib
import json
import os
import sys

from . import bases, cache
from .paths import BASE, BASE_TAG, TOP
from .errors import CommandFailed
from .proc import git, run
from .results import write_json

# The default base's records are runtime/expect/NAME.json; another
# base's are in a directory of its name, so that 'BASE=6.12 make boot'
# never writes over 6.1's.
RECORDS = os.path.join(TOP, "runtime", "expect",
                       *([] if BASE.name == bases.DEFAULT else [BASE.name]))

# The harness code in each part of the key: module -> the top-level
# definitions that decide the result (None: the whole module).  The
# report writers are left out: a new table column needs no new record.
KERNEL_CODE = {
    "build": None, "config": None, "kconfig": None, "make": None, "toolchain": None,
    "bloat": ["HOT", "text_size", "function_table", "symbols", "code_bytes", "disasm",
              "measure"],
}
BOOT_CODE = {
    "boot": ["VARIANTS", "VARIANT_APPEND", "REPORT_RE", "DEBUG_SYMS", "build_kernel",
             "kconfig_flags", "build_kselftests", "build_initramfs", "boot", "evaluate",
             "judge", "kunit_results"],
    "kunit": ["STATUS", "cases", "parse_console"],
}

# Debian packages that decide the boot besides QEMU and the compiler:
# the C library and kernel headers rtinit and the mm selftests are
# linked and built with, and the x86 firmware.  (The cross C libraries
# of the other architectures' user-space compilers are not listed.)
BOOT_PACKAGES = ["libc6-dev", "linux-libc-dev", "seabios"]


def version_line(cmd):
    """The first line COMMAND prints, or 'missing'."""
    try:
        out = run(cmd, check=False).stdout
    except OSError:
        return "missing"
    return (out.splitlines() or ["missing"])[0]


def package_versions(names):
    """name -> installed Debian version, or 'missing'."""
    out = {}
    for n in names:
        try:
            p = run(["dpkg-query", "-W", "-f", "${Version}", n], check=False)
        except OSError:
            p = None
        out[n] = p.stdout.strip() if p and p.returncode == 0 and p.stdout.strip() \
            else "missing"
    return out


def file_digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "missing"


def kernel_key(cfg):
    """What decides the base's kernel and its code size, for CFG."""
    cc, extra = cfg.compiler()
    tool = extra.get("CROSS_COMPILE", "")
    return {
        "base_tree": git("rev-parse", BASE_TAG + "^{tree}"),
        "config": cfg.digest(),
        "compiler": f"{version_line([cc, '--version'])}; {cache.compiler_id(cc)}",
        "binutils": version_line([tool + "nm", "--version"]),
        "kcflags": os.environ.get("KCFLAGS", ""),
        "code": cache.code_digest(KERNEL_CODE),
        # The syntax trees behind "code" are Python's: their form can
        # change with its minor version (3.12 added fields), not within.
        "python": "%d.%d" % sys.version_info[:2],
    }


def boot_key(qemu, qemu_command, user_cc, files, command_line):
    """What decides the boot beside the kernel: QEMU, the initramfs's
    compiler, FILES (name -> path, each by content) and COMMAND_LINE (a
    dict of what the kernel command line and the test phases are)."""
    return {
        "qemu": version_line([qemu, "--version"]),
        "qemu_command": qemu_command,
        "user_cc": f"{version_line([user_cc, '--version'])}; {cache.compiler_id(user_cc)}",
        "files": {name: file_digest(p) for name, p in sorted(files.items())},
        "packages": package_versions(BOOT_PACKAGES),
        **command_line,
        "code": cache.code_digest(BOOT_CODE),
    }


def record_path(name):
    return os.path.join(RECORDS, name + ".json")


def _short(v):
    s = json.dumps(v) if not isinstance(v, str) else v
    return s if len(s) <= 60 else s[:57] + "..."


def differences(recorded, now, prefix=""):
    """The keys (dotted paths) whose values differ, each with both values."""
    out = []
    for k in sorted(set(recorded) | set(now)):
        a, b = recorded.get(k), now.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k} (recorded {_short(a)}, now {_short(b)})")
    return out


def load(name, key):
    """(record, None) when runtime/expect/NAME.json holds for KEY, a dict
    of the key's parts to match ({'kernel': ...} for the code size
    alone); else (None, why not)."""
    p = record_path(name)
    rel = os.path.relpath(p, TOP)
    try:
        with open(p) as f:
            rec = json.load(f)
    except FileNotFoundError:
        return None, f"no record {rel}"
    except (OSError, ValueError) as e:
        return None, f"record {rel} unreadable ({e})"
    if not isinstance(rec, dict) or not isinstance(rec.get("key"), dict):
        return None, f"record {rel} has no key"
    code = rec.get("code")
    if not isinstance(rec.get("boot"), dict) or not isinstance(code, dict) or \
            not isinstance(code.get("functions"), int) or code["functions"] <= 0 or \
            "date" not in rec.get("written", {}):
        return None, f"record {rel} lacks its boot, its code size or its date"
    recorded = {part: rec["key"].get(part, {}) for part in key}
    diff = differences(recorded, key)
    if diff:
        return None, f"record {rel} is for another " + "; ".join(diff)
    return rec, None


def save(name, key, boot, code):
    """Write the record of NAME: KEY, the base's BOOT (its boot.json
    entry) and CODE (bloat.measure() of its vmlinux)."""
    try:
        head = git("rev-parse", "--short", "HEAD", cwd=TOP)
    except (CommandFailed, OSError):  # a copy of the harness that is no clone
        head = "unknown"
    write_json(record_path(name), {
        "about": f"The base's runtime result for configs/runtime/{name.partition('+')[0]}"
                 ".config, written by 'harness boot --record' (make boot); read by "
                 "'harness boot --base-record' (make test) while the key holds.  "
                 "See scripts/mdesc/expect.py.",
        "written": {"harness": head,
                    "date": datetime.datetime.now(datetime.timezone.utc)
                    .strftime("%Y-%m-%d %H:%M UTC")},
        "key": key,
        "boot": boot,
        "code": code,
    })
    return os.path.relpath(record_path(name), TOP)
