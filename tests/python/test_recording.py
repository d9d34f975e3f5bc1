"""boids.read_recording: H5MD and BOIDSREC recordings of `boids run --record` as numpy arrays.

The recordings are made by the boids program (BOIDS_CLI, conftest.py); the values are held
to the program's own --out CSV (shortest round-trip numbers, so equality is exact) and the two
formats to each other. Damaged files are made by cutting or editing real recordings.
"""
import os
import shutil
import subprocess

import numpy as np
import pytest

import boids

# 3D, all three kinds: ids 0..143 boids, 144..147 predators, 148..149 leaders.
SMALL = ["--set", "boids.count=150", "--set", "predators.count=4", "--set", "leaders.count=2",
         "--set", "world.size=40"]


def run(cli, *args):
    p = subprocess.run([cli, "run", "--quiet", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


def read_csv(path):
    header = open(path).readline().strip().split(",")
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    cols = lambda names: a[:, [header.index(c) for c in names if c in header]]  # noqa: E731
    kinds = a[:, header.index("kind")] if "kind" in header else np.zeros(len(a))  # one kind
    return (a[:, header.index("id")].astype(np.uint32), kinds.astype(np.uint8),
            cols(("x", "y", "z")), cols(("vx", "vy", "vz")))


@pytest.fixture(scope="module")
def h5_cli(cli, tmp_path_factory):
    """The program, when it was built with HDF5 (else the H5MD cases skip)."""
    d = tmp_path_factory.mktemp("probe")
    p = subprocess.run([cli, "run", "--quiet", "--steps", "0", "--set", "boids.count=4",
                        "--record", str(d / "p.h5")], capture_output=True, text=True)
    if p.returncode != 0 and "no HDF5 support" in p.stderr:
        pytest.skip("this build of boids has no HDF5 (BOIDS_HDF5=OFF)")
    assert p.returncode == 0, p.stderr
    pytest.importorskip("h5py", reason="python3-h5py is not installed")
    return cli


@pytest.fixture(scope="module")
def recordings(cli, h5_cli, tmp_path_factory):
    """The same run recorded as H5MD and as BOIDSREC, with its final state as CSV."""
    d = tmp_path_factory.mktemp("rec")
    for name in ("run.h5", "run.rec"):
        run(cli, *SMALL, "--steps", "10", "--every", "4", "--record", str(d / name),
            "--out", str(d / "final.csv"))
    return d


@pytest.mark.parametrize("name", ["run.h5", "run.rec"])
def test_frames_hold_the_states_the_engine_computed(recordings, name):
    rec = boids.read_recording(recordings / name, dt=0.1)
    assert len(rec) == 4 and list(rec.steps) == [0, 4, 8, 10]
    assert rec.dims == 3 and rec.dtype == np.float32 and rec.every == 4
    np.testing.assert_allclose(rec.times, [0.0, 0.4, 0.8, 1.0], rtol=1e-12)
    ids, kinds, pos, vel = read_csv(recordings / "final.csv")
    last = rec[-1]
    assert last.index == 3 and last.step == 10 and len(last) == 150
    assert last.position.shape == (150, 3) and last.velocity.shape == (150, 3)
    assert last.id.dtype == np.uint32 and last.kind.dtype == np.uint8
    assert np.array_equal(last.id, ids) and np.array_equal(last.kind, kinds)
    assert np.array_equal(last.position, pos.astype(np.float32))
    assert np.array_equal(last.velocity, vel.astype(np.float32))
    assert list(np.bincount(last.kind)) == [144, 4, 2]
    # The frames differ from each other (the run moved), and frame_at_step finds them.
    assert not np.array_equal(rec[0].position, last.position)
    assert rec.frame_at_step(8).index == 2
    with pytest.raises(KeyError):
        rec.frame_at_step(5)
    with pytest.raises(IndexError):
        rec[4]


def test_both_formats_give_the_same_frames(recordings):
    a = boids.read_recording(recordings / "run.h5")
    b = boids.read_recording(recordings / "run.rec")
    assert (a.format, b.format) == ("h5md", "boidsrec")
    assert "[world]" in a.scenario and b.scenario is None
    assert b.times is None and b[0].time is None and a[1].time == pytest.approx(0.4)
    for fa, fb in zip(a, b):
        assert fa.step == fb.step
        for q in ("id", "kind", "position", "velocity"):
            assert np.array_equal(getattr(fa, q), getattr(fb, q)), (fa.step, q)
    assert len(a.frames) == 4


def test_2d_double_precision(cli, h5_cli, tmp_path):
    args = ["--set", "world.dims=2", "--set", "engine.precision=\"double\"", "--set",
            "boids.count=60", "--set", "world.size=30", "--steps", "3", "--every", "3",
            "--out", str(tmp_path / "f.csv")]
    run(cli, *args, "--record", str(tmp_path / "r.h5"))
    run(cli, *args, "--record", str(tmp_path / "r.rec"))
    ids, _, pos, vel = read_csv(tmp_path / "f.csv")
    for name in ("r.h5", "r.rec"):
        rec = boids.read_recording(tmp_path / name)
        assert rec.dims == 2 and rec.dtype == np.float64
        assert rec[-1].position.shape == (60, 2)
        assert np.array_equal(rec[-1].position, pos) and np.array_equal(rec[-1].velocity, vel)


def test_h5md_fill_rows_are_dropped(recordings, tmp_path):
    """Population changes: rows with id = -1 (NaN values) are not boids."""
    import h5py
    path = tmp_path / "fill.h5"
    shutil.copy(recordings / "run.h5", path)
    with h5py.File(path, "r+") as f:
        g = f["particles/boids"]
        for q in ("id", "species"):
            v = g[q + "/value"]
            row = v[1]
            row[-3:] = -1
            v[1] = row
        for q in ("position", "velocity"):
            v = g[q + "/value"]
            row = v[1]
            row[-3:] = np.nan
            v[1] = row
    rec = boids.read_recording(path)
    assert len(rec[1]) == 147 and len(rec[0]) == 150
    assert 141 not in rec[1].id and 140 in rec[1].id
    assert np.isfinite(rec[1].position).all()


def test_h5md_observables(cli, h5_cli, tmp_path):
    run(cli, *SMALL, "--steps", "4", "--every", "2", "--record", str(tmp_path / "m.h5"),
        "--metrics", str(tmp_path / "m.csv"), "--metrics-every", "2")
    rec = boids.read_recording(tmp_path / "m.h5")
    steps, times, values = rec.observables["polarization"]
    assert list(steps) == [0, 2, 4] and values.shape == (3,)
    assert ((values >= 0) & (values <= 1)).all()


# --- bad files -------------------------------------------------------------------------------

def expect_error(path, *words):
    with pytest.raises(boids.RecordingError) as e:
        boids.read_recording(path)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(path) + ": "), msg
    for w in words:
        assert w in msg, msg
    return msg


def test_missing_directory_and_foreign_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        boids.read_recording(tmp_path / "nope.h5")
    with pytest.raises(IsADirectoryError):
        boids.read_recording(tmp_path)
    (tmp_path / "x.h5").write_text("hello, not a recording\n")
    expect_error(tmp_path / "x.h5", "not a recording")


def test_boidsrec_cut_at_any_byte(recordings, tmp_path):
    b = (recordings / "run.rec").read_bytes()
    frame = 16 + 150 * (5 + 2 * 3 * 4)
    for cut in (0, 5, 8, 20, 31, 32 + 7, 32 + 100, 32 + frame + 16 + 3, len(b) - 1):
        p = tmp_path / f"cut{cut}.rec"
        p.write_bytes(b[:cut])
        msg = expect_error(p, "truncated")
        assert ("header" in msg) if 8 <= cut < 32 else ("frame " in msg) if cut >= 32 else 1, msg
    p = tmp_path / "empty.rec"
    p.write_bytes(b[:32])
    expect_error(p, "frames", "no frame")


def test_boidsrec_bad_values(recordings, tmp_path):
    b = bytearray((recordings / "run.rec").read_bytes())
    frame = 16 + 150 * (5 + 2 * 3 * 4)
    # A NaN velocity y in frame 2, row 7.
    at = 32 + 2 * frame + 16 + 150 * 5 + (3 + 1) * 150 * 4 + 7 * 4
    bad = bytearray(b)
    bad[at:at + 4] = np.float32(np.nan).tobytes()
    (tmp_path / "nan.rec").write_bytes(bad)
    expect_error(tmp_path / "nan.rec", "frame 2", "velocities", "non-finite", "row 7")
    # Ids out of order in frame 1.
    bad = bytearray(b)
    at = 32 + frame + 16
    bad[at:at + 8] = bad[at + 4:at + 8] + bad[at:at + 4]
    (tmp_path / "ids.rec").write_bytes(bad)
    expect_error(tmp_path / "ids.rec", "frame 1", "ids not strictly increasing")
    bad = bytearray(b)
    bad[8:12] = (2).to_bytes(4, "little")
    (tmp_path / "v2.rec").write_bytes(bad)
    expect_error(tmp_path / "v2.rec", "header", "version 2")


def test_h5md_cut_at_any_byte(recordings, tmp_path):
    b = (recordings / "run.h5").read_bytes()
    for cut in (0, 4, 8, 100, 2000, len(b) // 3, len(b) // 2, len(b) - 1):
        p = tmp_path / f"cut{cut}.h5"
        p.write_bytes(b[:cut])
        with pytest.raises(boids.RecordingError) as e:
            boids.read_recording(p)
        assert str(e.value).startswith(f"{p}: ") and "\n" not in str(e.value)


def h5_edit(src, dst, edit):
    import h5py
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        edit(f)
    return dst


def test_h5md_missing_dataset_wrong_shape_and_nan(recordings, tmp_path):
    src = recordings / "run.h5"

    def drop(f):
        del f["particles/predators/velocity/value"]
    expect_error(h5_edit(src, tmp_path / "a.h5", drop), "/particles/predators/velocity/value",
                 "missing")

    def reshape(f):
        del f["particles/boids/id/value"]
        f["particles/boids/id/value"] = np.zeros((4, 7), np.int64)
    expect_error(h5_edit(src, tmp_path / "b.h5", reshape), "/particles/boids/id/value",
                 "wrong shape")

    def nan(f):
        v = f["particles/leaders/position/value"]
        row = v[2]
        row[1, 0] = np.inf
        v[2] = row
    expect_error(h5_edit(src, tmp_path / "c.h5", nan), "/particles/leaders/position/value",
                 "non-finite", "frame 2, row 1")

    def clock(f):
        del f["parameters/next_id/step"]
    expect_error(h5_edit(src, tmp_path / "d.h5", clock), "/parameters/next_id/step", "missing")

    def species(f):
        v = f["particles/boids/species/value"]
        row = v[0]
        row[5] = 2
        v[0] = row
    expect_error(h5_edit(src, tmp_path / "e.h5", species), "/particles/boids/species/value",
                 "species 2")

    def not_h5md(f):
        del f["h5md"]
    expect_error(h5_edit(src, tmp_path / "g.h5", not_h5md), "/h5md", "missing")


def test_check_false_defers_frame_checks(recordings, tmp_path):
    import h5py
    p = tmp_path / "late.h5"
    shutil.copy(recordings / "run.h5", p)
    with h5py.File(p, "r+") as f:
        v = f["particles/boids/velocity/value"]
        row = v[3]
        row[0, 2] = np.nan
        v[3] = row
    with pytest.raises(boids.RecordingError):
        boids.read_recording(p)
    rec = boids.read_recording(p, check=False)
    assert len(rec[0]) == 150
    with pytest.raises(boids.RecordingError, match="velocity/value: non-finite"):
        rec[3]
    rec.close()
    with pytest.raises(ValueError, match="closed"):
        rec[0]
    assert os.path.exists(p)
