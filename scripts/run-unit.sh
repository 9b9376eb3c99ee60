#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-unit.sh - the unit tests of the harness package, and its lint.
#
# Usage: scripts/run-unit.sh [-h]
#
# Runs pytest on tests/unit under coverage (no kernel tree, no build,
# no QEMU: seconds), prints one PASS/FAIL/SKIP line per test case, the
# line coverage of the package's code that spawns no build or QEMU
# (setup.cfg says which), and a line each for the 90% coverage bound,
# flake8 and mypy.  Exits 1 if anything failed.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
maybe_usage "$@"

cd "$TOP"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
MIN_COVERAGE=90
# Debian's python3-pytest and python3-coverage are modules of Debian's
# python3, which need not be the first python3 on PATH (pyenv here).
PY=/usr/bin/python3

# One line per test case, in run-tests.sh's vocabulary.
rc=0
COVERAGE_FILE=$out/coverage $PY -m coverage run --rcfile=setup.cfg \
	-m pytest -q -rA -p no:cacheprovider tests/unit >"$out/pytest.log" 2>&1 || rc=$?
sed -n -e 's/^PASSED \(.*\)$/PASS unit\/\1/p' -e 's/^FAILED \([^ ]*\)\( - \(.*\)\)\{0,1\}$/FAIL unit\/\1: \3/p' \
	-e 's/^SKIPPED \[[0-9]*\] \([^:]*:[0-9]*\): \(.*\)$/SKIP unit\/\1: \2/p' \
	-e 's/^ERROR \(.*\)$/FAIL unit\/\1: error in setup/p' "$out/pytest.log"
tail -n 1 "$out/pytest.log" | sed 's/^/  /'
if [ "$rc" -ne 0 ]; then
	fail=1
	grep -q '^\(FAILED\|ERROR\) ' "$out/pytest.log" ||
		{ echo "FAIL unit: pytest exited with $rc and no failed test"; sed 's/^/  | /' "$out/pytest.log" | tail -n 20; }
fi

COVERAGE_FILE=$out/coverage $PY -m coverage report --rcfile=setup.cfg >"$out/coverage.txt" || true
sed 's/^/  /' "$out/coverage.txt"
total=$(awk '$1 == "TOTAL" { sub("%", "", $NF); print $NF }' "$out/coverage.txt")
if [ -z "$total" ]; then
	echo "FAIL unit/coverage: no coverage report"
	fail=1
elif [ "$total" -ge "$MIN_COVERAGE" ]; then
	echo "PASS unit/coverage: ${total}% of the lines that spawn no build or QEMU (bound ${MIN_COVERAGE}%)"
else
	echo "FAIL unit/coverage: ${total}% of the lines that spawn no build or QEMU, under ${MIN_COVERAGE}%"
	fail=1
fi

if flake8 scripts/mdesc scripts/harness tests/unit >"$out/flake8.log" 2>&1; then
	echo "PASS unit/flake8: scripts/mdesc, scripts/harness, tests/unit"
else
	echo "FAIL unit/flake8: $(wc -l <"$out/flake8.log") findings, first: $(head -n 1 "$out/flake8.log")"
	fail=1
fi
if mypy --config-file setup.cfg scripts/mdesc >"$out/mypy.log" 2>&1; then
	echo "PASS unit/mypy: $(tail -n 1 "$out/mypy.log")"
else
	echo "FAIL unit/mypy: $(tail -n 1 "$out/mypy.log"); first: $(head -n 1 "$out/mypy.log")"
	fail=1
fi
exit "$fail"
