# SPDX-License-Identifier: GPL-2.0
"""Shared fixtures of the unit tests: where the captured data lives."""

import json
import os

import pytest

DATA = os.path.join(os.path.dirname(__file__), "test_data")


def data(*parts):
    return os.path.join(DATA, *parts)


@pytest.fixture
def matrix_steps():
    """A matrix.json the CI tier wrote part way through its x86_64 steps
    (a real run, 2026-12-04, steps 0 to 2 of 57)."""
    with open(data("matrix", "steps-incomplete.json")) as f:
        return json.load(f)
