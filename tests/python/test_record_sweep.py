"""Recording and sweeps from Python against the boids program: byte-identical recordings,
bit-identical sweep numbers, and the error paths of both."""
import csv
import os
import subprocess

import numpy as np
import pytest

import boids

SETS = ["--set", "boids.count=300", "--set", "world.size=30.0", "--set", "boids.seed=11"]
SMALL = dict(count=300, size=30.0, seed=11)


@pytest.mark.parametrize("suffix", [".bin", ".csv"])
@pytest.mark.parametrize("dims", [2, 3])
def test_recording_is_byte_identical_to_the_program(tmp_path, cli, suffix, dims):
    ref = tmp_path / ("cli" + suffix)
    subprocess.run([cli, "run", "--quiet", "--steps", "10", "--every", "3", "--record", str(ref),
                    *SETS, "--set", f"world.dims={dims}"], check=True)
    w = boids.World(**SMALL, dims=dims)
    path = tmp_path / ("py" + suffix)
    with w.record(path, every=3) as rec:
        w.step(4)      # batches cut at the cadence: frames at 0, 3, 6, 9 and the last, 10
        w.step(6)
        assert not os.path.exists(path)  # nothing appears before close()
    assert rec.closed and rec.frames == 5
    assert path.read_bytes() == ref.read_bytes()


def test_recording_frames_follow_the_cadence(tmp_path):
    w = boids.World(**SMALL, dims=2)
    w.step(2)  # recording starts mid-run: frames count from here
    rec = w.record(tmp_path / "r.csv", every=4)
    for _ in range(9):
        w.step(1)
    rec.close()
    with open(tmp_path / "r.csv", newline="") as f:
        steps = sorted({int(r["step"]) for r in csv.DictReader(f)})
    assert steps == [2, 6, 10, 11]
    # The frame holds the state of its step: the last one equals the world now.
    with open(tmp_path / "r.csv", newline="") as f:
        last = [r for r in csv.DictReader(f) if int(r["step"]) == 11]
    np.testing.assert_array_equal(np.array([[float(r["x"]), float(r["y"])] for r in last],
                                           dtype=np.float32), w.positions)
    rec.close()  # a second close does nothing
    w.step(1)    # and a closed recording takes no more frames
    assert rec.frames == 4


def test_abandoned_recording_leaves_no_file(tmp_path):
    w = boids.World(**SMALL)
    path = tmp_path / "r.bin"
    with pytest.raises(RuntimeError):
        with w.record(path, every=1):
            w.step(2)
            raise RuntimeError("interrupted")
    assert not path.exists()
    assert os.listdir(tmp_path) == []  # no temporary file either
    w.step(1)  # the world steps on without the recording


def test_recording_errors(tmp_path):
    w = boids.World(**SMALL)
    with pytest.raises(FileNotFoundError):
        w.record(tmp_path / "missing" / "r.bin")
    with pytest.raises(IsADirectoryError):
        w.record(tmp_path)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="every"):
            w.record(tmp_path / "r.bin", every=bad)
    assert os.listdir(tmp_path) == []


def read_sweep_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: [r[k] for r in rows] for k in rows[0]}


def test_sweep_matches_the_program_bit_for_bit(tmp_path, cli):
    out = tmp_path / "sweep.csv"
    subprocess.run([cli, "sweep", "--quiet", "--vary", "rules.radius=3:6:3", "--vary",
                    "boids.count=100,150", "--repeats", "2", "--steps", "12", "--measure-from",
                    "4", "--measure-every", "4", "--threads", "2", "--out", str(out), "--set",
                    "world.size=30.0", "--set", "boids.seed=5"], check=True)
    ref = read_sweep_csv(out)
    res = boids.sweep({"rules.radius": "3:6:3", "boids.count": [100, 150]}, repeats=2,
                      steps=12, measure_from=4, measure_every=4, threads=2, size=30.0, seed=5)
    assert len(res["repeat"]) == len(ref["repeat"]) == 12
    np.testing.assert_array_equal(res["rules.radius"], [float(x) for x in ref["rules.radius"]])
    np.testing.assert_array_equal(res["boids.count"], [int(x) for x in ref["boids.count"]])
    np.testing.assert_array_equal(res["repeat"], [int(x) for x in ref["repeat"]])
    np.testing.assert_array_equal(res["seed"], [int(x) for x in ref["seed"]])
    for m in boids._sweep.METRICS:
        for stat in ("_mean", "_std"):
            # The program writes the shortest text that reads back to the same double.
            np.testing.assert_array_equal(res[m + stat], [float(x) for x in ref[m + stat]],
                                          err_msg=m + stat)
    assert res["polarization_mean"].min() > 0  # real numbers, not a table of zeros


def test_sweep_does_not_depend_on_threads():
    a = boids.sweep({"rules.noise": [20.0, 340.0]}, repeats=2, steps=15, threads=1, count=120,
                    size=25.0, profile="vicsek", dims=2)
    b = boids.sweep({"rules.noise": [20.0, 340.0]}, repeats=2, steps=15, threads=3, count=120,
                    size=25.0, profile="vicsek", dims=2)
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    # More noise, less order: the sweep measured what it varied.
    assert a["polarization_mean"][:2].mean() > a["polarization_mean"][2:].mean()


def test_sweep_errors():
    with pytest.raises(ValueError, match="vary"):
        boids.sweep({})
    with pytest.raises(ValueError, match="unknown scenario key rules.radiuss"):
        boids.sweep({"rules.radiuss": [1, 2]})
    with pytest.raises(ValueError, match="COUNT"):
        boids.sweep({"rules.radius": "1:2:0"})
    with pytest.raises(ValueError, match="measure_from"):
        boids.sweep({"rules.radius": [3]}, steps=5, measure_from=6)
    with pytest.raises(ValueError, match="repeats"):
        boids.sweep({"rules.radius": [3]}, repeats=0)
    with pytest.raises(ValueError, match="rules.radius"):
        boids.sweep({"rules.radius": [3, -1]}, steps=1)  # checked before any run
    with pytest.raises(FileNotFoundError):
        boids.sweep({"rules.radius": [3]}, scenario="/nonexistent/scenario.toml")
