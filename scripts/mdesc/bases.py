# SPDX-License-Identifier: GPL-2.0
"""The bases the series is written for: bases/NAME.base, one each.

A base is data, not code: the package and version that install its
tarball, the tarball's sha256, its series file and patch directory, its
own work directory, and what 'make test' checks of it when it is not
the default.  BASE=NAME selects one; paths.py derives every directory
from it, and 'harness paths' hands the pin to the shell scripts.
"""

import os
import re
from dataclasses import dataclass

from .errors import HarnessError

DEFAULT = "6.1"

REQUIRED = ("package", "version", "tarball", "sha256", "series", "patches", "work")
OPTIONAL = ("kconfig-gone", "runtime-off", "ci-steps", "ci-final", "kunitconfigs",
            "kept-allocs", "checkpatch-allow", "kunit-arches", "rows-gone")
# Keys that name a file of the project.
PROJECT_FILES = ("kept-allocs", "checkpatch-allow")
# The rows of the matrix; a base may not configure all of them
# (rows-gone).  paths.py imports this module, so its CONFIGS is derived
# here by the same rule: $CONFIGS unless unset or empty.
CONFIGS = os.path.abspath(os.environ.get("CONFIGS") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "configs"))


def rows(configs=CONFIGS):
    """Every row of configs/, sorted."""
    return sorted(f[:-len(".config")] for f in os.listdir(configs) if f.endswith(".config"))


class BaseError(HarnessError):
    """A base that is not described, or whose description is wrong."""


@dataclass(frozen=True)
class Base:
    name: str
    package: str
    version: str
    tarball: str
    sha256: str
    series: str
    patches: str
    work: str
    kconfig_gone: tuple = ()
    runtime_off: tuple = ()
    ci_steps: tuple = ()
    ci_final: tuple = ()
    kunitconfigs: tuple = ()
    kunit_arches: tuple = ()
    kept_allocs: str = ""
    checkpatch_allow: str = ""
    rows_gone: tuple = ()

    def matrix_rows(self, configs=CONFIGS):
        """The rows this base is built on: every row, less rows-gone.
        Empty when that is every row (the harness's own default)."""
        if not self.rows_gone:
            return ()
        return tuple(r for r in rows(configs) if r not in self.rows_gone)

    def exported(self, configs=CONFIGS):
        """The pin as the NAME=value pairs the shell scripts read."""
        built = self.matrix_rows(configs)
        final = built if self.ci_final == ("all",) and built else self.ci_final
        return {"BASE": self.name, "BASE_PACKAGE": self.package,
                "BASE_VERSION": self.version, "BASE_TARBALL": self.tarball,
                "BASE_SHA256": self.sha256,
                "BASE_CI_STEPS": ",".join(self.ci_steps),
                "BASE_CI_FINAL": ",".join(final),
                "BASE_ROWS": ",".join(built),
                "BASE_KEPT_ALLOCS": self.kept_allocs,
                "BASE_CHECKPATCH_ALLOW": self.checkpatch_allow}


def _words(value, sep):
    return tuple(w for w in re.split(sep, value) if w)


def parse(name, text, origin="<text>"):
    """A Base from the text of NAME.base; BaseError names the line or
    key that is wrong."""
    fields = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise BaseError(f"{origin}:{n}: not 'key=value': {line}")
        if key not in REQUIRED + OPTIONAL:
            raise BaseError(f"{origin}:{n}: unknown key '{key}' (known: "
                            f"{', '.join(REQUIRED + OPTIONAL)})")
        if key in fields:
            raise BaseError(f"{origin}:{n}: '{key}' given twice")
        fields[key] = value
    missing = [k for k in REQUIRED if not fields.get(k)]
    if missing:
        raise BaseError(f"{origin}: missing {', '.join(missing)}")
    if not re.fullmatch(r"[0-9a-f]{64}", fields["sha256"]):
        raise BaseError(f"{origin}: sha256 is not 64 hex digits: {fields['sha256']}")
    # Two bases must never share a tree or a cell: the default works in
    # 'work', any other in a directory of its own name.
    want = "work" if name == DEFAULT else f"work-{name}"
    if fields["work"] != want:
        raise BaseError(f"{origin}: work must be '{want}', not '{fields['work']}'")
    # The default base is checked by all of run-tests.sh; a tier is
    # what another base is checked with instead.
    tier = [k for k in ("ci-steps", "ci-final") if fields.get(k)]
    if name == DEFAULT and tier:
        raise BaseError(f"{origin}: the default base runs every check; "
                        f"{', '.join(tier)} would cut it down to a tier")
    steps = _words(fields.get("ci-steps", ""), r"[,\s]+")
    final = _words(fields.get("ci-final", ""), r"[,\s]+")
    if "all" in steps:
        raise BaseError(f"{origin}: ci-steps names configs; 'all' is for ci-final")
    if "all" in final and len(final) > 1:
        raise BaseError(f"{origin}: ci-final is 'all' or a list of configs, not both")
    gone = _words(fields.get("rows-gone", ""), r"[,\s]+")
    both = sorted(set(gone) & (set(steps) | set(final)))
    if both:
        raise BaseError(f"{origin}: rows-gone and the tier both name {', '.join(both)}")
    symbols = {}
    for key in ("kconfig-gone", "runtime-off"):
        symbols[key] = _words(fields.get(key, ""), r"\s+")
        bad = [g for g in symbols[key] if not re.fullmatch(r"CONFIG_\w+", g)]
        if bad:
            raise BaseError(f"{origin}: {key} names no CONFIG_ symbol: {' '.join(bad)}")
    for key in PROJECT_FILES:
        path = fields.get(key, "")
        if path and (os.path.isabs(path) or ".." in path.split("/")):
            raise BaseError(f"{origin}: {key} must be a path inside the project: {path}")
    return Base(name=name, package=fields["package"], version=fields["version"],
                tarball=fields["tarball"], sha256=fields["sha256"],
                series=fields["series"], patches=fields["patches"], work=fields["work"],
                kconfig_gone=symbols["kconfig-gone"], runtime_off=symbols["runtime-off"],
                ci_steps=steps, ci_final=final,
                kunitconfigs=_words(fields.get("kunitconfigs", ""), r"\s+"),
                kunit_arches=_words(fields.get("kunit-arches", ""), r"\s+"),
                kept_allocs=fields.get("kept-allocs", ""),
                checkpatch_allow=fields.get("checkpatch-allow", ""),
                rows_gone=gone)


def main(argv=None):
    """harness bases: the described bases, a name a line; with
    --with-tier, those that describe a tier (ci-steps, ci-final) of
    their own, which 'make test' runs after the default base's checks."""
    import argparse
    from . import paths
    ap = argparse.ArgumentParser(prog="harness bases", description=main.__doc__)
    ap.add_argument("--with-tier", action="store_true")
    args = ap.parse_args(argv)
    for name in known(paths.BASES):
        b = load(paths.BASES, name)
        if not args.with_tier or b.ci_steps or b.ci_final:
            print(name)
    return 0


def known(directory):
    """The names of the bases described in DIRECTORY, sorted."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(n[:-len(".base")] for n in names if n.endswith(".base"))


def load(directory, name):
    path = os.path.join(directory, f"{name}.base")
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        raise BaseError(f"BASE={name}: no {path}; known bases: "
                        f"{', '.join(known(directory)) or 'none'}") from None
    return parse(name, text, path)
