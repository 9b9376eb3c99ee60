# SPDX-License-Identifier: GPL-2.0
"""mdesc: the harness of the struct ptdesc / struct zsdesc series.

One package, modules by responsibility (after the kernel's
tools/testing/kunit and tuxmake):

  paths, errors, proc        settings, the one error convention, commands
  config, toolchain, kconfig configs/ files, their compilers, configuring
  make, objects, diagnostics make lines and ccache, objects per step,
                             compiler warnings
  worktree, build            worktrees and their locks, runtime builds
  series                     the series file
  results                    the result model: the only reader and
                             writer of matrix.json, boot.json and the
                             'PASS|FAIL|SKIP name' lines
  matrix, merge, layout, asserts, ccache_check, page_use, conversions,
  boot, bench, bloat, bloat_per_patch, distcc, distcc_check, console
                             the checks

scripts/harness (python3 -m mdesc) is the command line; cli.py maps
its subcommands to these modules.
"""
