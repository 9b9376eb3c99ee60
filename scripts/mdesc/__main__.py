# SPDX-License-Identifier: GPL-2.0
"""python3 -m mdesc: the same as scripts/harness."""

import sys

from .cli import main

sys.exit(main())
