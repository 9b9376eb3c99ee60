# SPDX-License-Identifier: GPL-2.0
"""One error convention: library code raises a HarnessError; the
command line (cli.main) catches it once, prints 'PROG: error: ...'
and exits with the error's status.  Nothing below cli calls sys.exit
(but a SIGTERM handler, which must end the process).
"""

import sys


class HarnessError(Exception):
    """A failure the user can act on; the message says what to do.
    Status 2: a checker's status 1 means 'a check failed, the lines say
    which', so an error that stopped the command must not look like
    one (run-tests.sh records any status above 1 as a failure)."""
    status = 2


class CommandFailed(HarnessError):
    """A command the harness needed exited non-zero."""

    def __init__(self, cmd, output, returncode):
        self.cmd, self.output, self.returncode = cmd, output, returncode
        super().__init__(f"{cmd} failed:\n{output}")


class ConfigError(HarnessError):
    """A configs/ file that cannot be used as it is."""


class ToolchainMissing(HarnessError, LookupError):
    """No compiler for a config; a cell says SKIP with this reason.
    (A LookupError as well, which callers of Config.compiler() caught
    before this hierarchy existed.)"""


class ObjectListError(HarnessError):
    """Kbuild's list of a directory's objects could not be read: a step
    must not compile nothing and pass."""


class WorktreeBusy(HarnessError):
    """Another run holds the lock of a worktree."""


class DistccError(HarnessError):
    """A distcc helper that cannot be trusted with this run's compiles."""


class ResultsUnreadable(HarnessError):
    """A results file (matrix.json, boot.json) that is missing, cut
    short or not of the expected shape."""


class UsageError(HarnessError):
    """Bad arguments to a command (argparse's status too)."""


def log(msg):
    from . import paths  # paths loads bases/, which raises these errors
    print(f"{paths.PROG}: {msg}", flush=True)


def warn(msg):
    from . import paths
    print(f"{paths.PROG}: warning: {msg}", file=sys.stderr, flush=True)


def die(msg):
    """Raise a HarnessError; kept as a name because every command used it."""
    raise HarnessError(msg)
