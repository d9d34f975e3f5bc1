#!/usr/bin/env python3
"""Runs tests/h5md/test_h5md_files.py under pytest for ctest.

Exit 77 (ctest: skipped) when python3-pytest is not installed, or when pytest collects no
test at all (its exit status 5), with a line saying why; otherwise pytest's own status. The
test file skips a case with a clear reason when h5py, MDAnalysis or meshio is missing;
scripts/setup.sh installs all of them, so CI runs every case.
"""
import argparse
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--boids", required=True, help="the boids program")
ap.add_argument("--workdir", required=True, help="scratch directory for the recordings")
args, rest = ap.parse_known_args()

try:
    import pytest
except ImportError:
    print("h5md tests skipped: python3-pytest is not installed (scripts/setup.sh installs it)")
    sys.exit(77)

os.makedirs(args.workdir, exist_ok=True)
os.environ["BOIDS_CLI"] = os.path.abspath(args.boids)
os.environ["BOIDS_H5MD_WORKDIR"] = os.path.abspath(args.workdir)
here = os.path.dirname(os.path.abspath(__file__))
rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider",
                  os.path.join(here, "test_h5md_files.py")] + rest)
if rc == 5:  # no tests collected
    print("h5md tests skipped: pytest collected no tests")
    sys.exit(77)
sys.exit(int(rc))
