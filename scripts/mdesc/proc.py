# SPDX-License-Identifier: GPL-2.0
"""Running commands: a failed command raises CommandFailed with its output.
"""

import shlex
import subprocess

from . import paths
from .errors import CommandFailed


def run(cmd, cwd=None, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if check and p.returncode:
        raise CommandFailed(shlex.join(cmd), p.stdout, p.returncode)
    return p


def git(*args, cwd=None):
    """git in CWD (default: the base repository), its output stripped."""
    return run(["git", "-C", cwd or paths.LINUX, *args]).stdout.strip()


def show(cmd):
    return " ".join(shlex.quote(c) if " " in c else c for c in cmd)
