# SPDX-License-Identifier: GPL-2.0
"""Running commands: a failed command raises CommandFailed with its output.
"""

import shlex
import subprocess

from .errors import CommandFailed
from .paths import LINUX


def run(cmd, cwd=None, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if check and p.returncode:
        raise CommandFailed(shlex.join(cmd), p.stdout, p.returncode)
    return p


def git(*args, cwd=LINUX):
    return run(["git", "-C", cwd, *args]).stdout.strip()


def show(cmd):
    return " ".join(shlex.quote(c) if " " in c else c for c in cmd)
