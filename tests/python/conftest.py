"""pytest setup for the Python package tests: where the package and the boids program are.

ctest sets PYTHONPATH to the build tree's python/ folder and BOIDS_CLI to the program."""
import os
import shutil

import pytest

import boids  # noqa: F401  (fails loudly when the package was not built)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("BOIDS_CLI") or shutil.which("boids")
    if not path:
        pytest.fail("BOIDS_CLI is not set and no boids program is on PATH")
    return path


@pytest.fixture
def small():
    """A small, quick world description shared by the tests."""
    return dict(count=500, size=40.0, seed=7)
