# SPDX-License-Identifier: GPL-2.0
#
# struct ptdesc / struct zsdesc series for Debian's linux-source-6.1
# 6.1.192-3 and linux-source-6.12 6.12.118-1~deb12u1 (bases/), and the
# harness that checks it.  'make help' lists targets.

SHELL := /bin/bash
JOBS ?= $(shell nproc)
export JOBS
# The harness's one command line (scripts/mdesc; 'scripts/harness -h').
HARNESS := scripts/harness
# BASE=NAME works on bases/NAME.base (default 6.1) in its own work
# directory: 'BASE=6.12 make check'.  Asked of the harness only when a
# target needs it.
WORKDIR = $(or $(shell $(HARNESS) paths | sed -n 's/^WORK=//p'),$(error no work directory for BASE=$(BASE): see 'scripts/harness paths'))

.PHONY: help deps base apply quilt export check-patches matrix layout api unit lint bench-harness \
	asserts mail toolchains boot fault fuzz conversions kunit bloat samecode bench distcc check test test-harness shellcheck \
	clean distclean

help:
	@sed -n 's/^\([a-z-]*\):.*## \(.*\)/  \1\t\2/p' $(MAKEFILE_LIST) | expand -t 18

deps: ## install the Debian packages the harness needs (root)
	scripts/install-deps.sh

base: ## install, verify and unpack the pinned base (bases/BASE.base) into its work directory
	scripts/fetch-base.sh

apply: base ## apply 'series' with git am onto branch 'series'
	scripts/apply-series.sh

quilt: apply ## apply 'series' with quilt (no fuzz) and compare with git am
	scripts/check-quilt.sh

export: ## regenerate patches/ and series from branch 'series'
	scripts/export-series.sh

check-patches: base ## checkpatch --strict and headers of every patch
	scripts/check-patches.sh

# MATRIX_CONFIGS=a,b runs the full tier on a batch of configs, into
# <work>/results/full-<batch> (MATRIX_BATCH, default 'all'); merge the
# batches with 'scripts/harness merge'.
# Without it, every row the base configures (bases/README: rows-gone).
MATRIX_BATCH ?= all
matrix: apply toolchains ## full tier: every step on every config, full links
	RESULTS=$(WORKDIR)/results/full-$(MATRIX_BATCH) $(HARNESS) matrix -j$(JOBS) --steps all \
		$(eval _rows := $(or $(MATRIX_CONFIGS),$(shell $(HARNESS) paths | sed -n 's/^BASE_ROWS=//p' | tr -d "'"))) \
		$(if $(_rows),--configs $(_rows) --link $(_rows),--link all)

layout: apply ## offsets of every struct ptdesc field per config
	$(HARNESS) layout -j$(JOBS)

asserts: apply ## a misaligned descriptor field must break the build
	$(HARNESS) asserts -j$(JOBS)

api: apply ## the final tree against mainline 6.12's ptdesc helpers (Documentation/mainline-api.md)
	$(HARNESS) api -j$(JOBS)

# Without BASE, 'make mail' does every base in bases/, one after the
# other, each into its own work directory (work/mail, work-6.12/mail):
# the bases never share a directory.  BASE=NAME does that base only.
MAIL_BASES = $(or $(BASE),$(sort $(basename $(notdir $(wildcard bases/*.base)))))
mail: ## each part of every base prepared by b4 into <work>/mail, read back with b4 am and applied with git am
	set -e; for b in $(MAIL_BASES); do \
		echo "mail: base $$b"; \
		BASE=$$b scripts/fetch-base.sh; \
		BASE=$$b scripts/apply-series.sh; \
		BASE=$$b scripts/make-mail.sh; \
		BASE=$$b scripts/check-mail.sh; \
	done

toolchains: ## build the missing bare cross compilers (loongarch, csky, nios2)
	scripts/build-toolchain.sh

boot: apply ## runtime test: base and series under QEMU on every runtime config; records the base; then 'fault' and 'fuzz'
	$(HARNESS) boot -j$(JOBS) --record --configs $(or $(BOOT_CONFIGS),all)
	$(MAKE) -k fault fuzz

# FAULT_CONFIGS=a,b picks runtime configs (default: x86_64, arm64, i386, s390x).
fault: apply ## the runtime stress with page and ptlock allocations failing, and kmemleak, base and series
	$(HARNESS) fault -j$(JOBS) $(if $(FAULT_CONFIGS),--configs $(FAULT_CONFIGS))

# Debian's trinity and stress-ng for each guest (root: dpkg --add-architecture).
fuzz: apply ## trinity and stress-ng on the mm system calls in the runtime kernels, base and series (x86_64, arm64)
	scripts/fetch-fuzzers.sh amd64 arm64
	$(HARNESS) fuzz -j$(JOBS) $(FUZZ_ARGS)

conversions: apply ## list the functions each arch patch converts (Documentation/conversions.md)
	$(HARNESS) conversions > Documentation/conversions.md

# KUNIT_ARCHES=um s390: other arches than the base's kunit-arches.
kunit: apply ## the series' KUnit suites with kunit.py, under UML and QEMU (6.1: x86_64, x86_64 with the RFC option, s390, arm)
	$(HARNESS) kunit $(KUNIT_ARCHES)

bloat: apply ## code size and hot-path code, base against series on five configs, per patch on x86_64
	$(HARNESS) bloat -j$(JOBS) --configs $(or $(BLOAT_CONFIGS),x86_64,arm64-4k,i386-pae,ppc64le-radix,s390)
	$(HARNESS) bloat-per-patch -j$(JOBS) --config x86_64

# SAMECODE_CONFIGS=x86_64,arm64-4k: some rows only.  About 6 min per row
# cold (two links), nothing for a row whose verdict is cached.
samecode: apply ## the RFC part with its option off: the same code as without its option-specific patches, on every matrix row
	$(HARNESS) samecode -j$(JOBS) --part ptdesc-rfc --configs $(or $(SAMECODE_CONFIGS),all)

# BENCH_ARGS=--quick: x86_64 only, three rounds.
bench: apply ## run time of series against base in instructions (-icount), with controls
	$(HARNESS) bench -j$(JOBS) $(BENCH_ARGS)

distcc: apply ## the matrix through two loopback distccd helpers, and 1 against 2 timed
	$(HARNESS) distcc
	$(HARNESS) distcc --measure

check: deps ## main job: set up, apply, and run the default checks
	scripts/run-tests.sh check

test: deps ## everything 'check' does plus the tests of the harness
	scripts/run-tests.sh test

test-harness: base ## only the bats tests of the harness
	bats tests/

unit: ## unit tests of the harness package: pytest, coverage, flake8, mypy (no kernel)
	scripts/run-unit.sh

bench-harness: ## the harness's speed: warm make test, make check after a patch edit (SCENARIOS=)
	scripts/bench-harness.sh $(SCENARIOS)

lint: ## flake8 and mypy on the harness package and its tests
	flake8 scripts/mdesc scripts/harness tests/unit
	mypy scripts/mdesc

shellcheck: ## shellcheck every script
	shellcheck scripts/*.sh .ci/run tests/*.bash

clean: ## remove build output and results, keep the base tree
	rm -rf "$(WORKDIR)"/build "$(WORKDIR)"/build-* "$(WORKDIR)"/results

distclean: ## remove the whole work directory
	git -C "$(WORKDIR)"/linux worktree prune 2>/dev/null || true
	rm -rf "$(WORKDIR)"
