"""The Python package against the C++ engine: views, determinism, snapshots, the GIL."""
import csv
import subprocess
import threading
import time

import numpy as np
import pytest

import boids


def read_state_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    ids = np.array([int(r["id"]) for r in rows])
    pos = np.array([[float(r[c]) for c in ("x", "y", "z") if c in r] for r in rows])
    vel = np.array([[float(r[c]) for c in ("vx", "vy", "vz") if c in r] for r in rows])
    return ids, pos, vel


@pytest.mark.parametrize("engine", ["grid", "naive"])
@pytest.mark.parametrize("dims", [2, 3])
def test_views_match_the_program(tmp_path, cli, small, engine, dims):
    out = tmp_path / "out.csv"
    subprocess.run([cli, "run", "--quiet", "--steps", "7", "--engine", engine, "--out", str(out),
                    "--set", "boids.count=500", "--set", "world.size=40.0", "--set",
                    "boids.seed=7", "--set", f"world.dims={dims}"], check=True)
    w = boids.World(**small, dims=dims, engine=engine)
    assert (w.kernel == "naive") == (engine == "naive")
    w.step(7)
    ids, pos, vel = read_state_csv(out)
    assert w.positions.shape == (500, dims) and w.positions.dtype == np.float32
    np.testing.assert_array_equal(w.ids, ids)
    # The CSV holds the shortest text that reads back to the same float: equal, not close.
    np.testing.assert_array_equal(w.positions, pos.astype(w.dtype))
    np.testing.assert_array_equal(w.velocities, vel.astype(w.dtype))
    assert not w.positions.flags.writeable and not w.positions.flags.owndata


def test_views_do_not_copy(small):
    w = boids.World(**small)
    a, b = w.positions, w.positions
    assert np.shares_memory(a, b)
    assert a.strides[0] == a.dtype.itemsize  # x, y, z columns of one block: a strided view
    with pytest.raises(ValueError):
        a[0, 0] = 1.0


def test_double_precision_views(small):
    w = boids.World(**small, precision="double")
    assert w.positions.dtype == np.float64 and w.dtype == np.float64


def test_deterministic_across_threads(small):
    hashes = set()
    for threads in (1, 2, 3):
        w = boids.World(**small, threads=threads)
        assert w.kernel != "naive"
        w.step(20)
        hashes.add(w.state_hash)
    assert len(hashes) == 1


def test_set_state_round_trip(small):
    w = boids.World(**small)
    p = w.positions.copy()
    v = w.velocities.copy() * 0.5
    w.set_state(p, v)
    np.testing.assert_array_equal(w.velocities, v)
    np.testing.assert_array_equal(w.positions, p)


def test_add_and_remove(small):
    w = boids.World(**small)
    new = w.add(10, kind=1)
    assert list(new) == list(range(500, 510)) and w.count == 510
    assert int(np.count_nonzero(w.kinds == 1)) == 10
    w.remove([0, 1, 505])
    assert w.count == 507 and 0 not in set(w.ids.tolist())
    rows = w.add(positions=np.full((2, 3), 5.0), velocities=np.ones((2, 3)))
    assert list(rows) == [510, 511]
    i = int(np.searchsorted(w.ids, 510))
    np.testing.assert_array_equal(w.positions[i], [5.0, 5.0, 5.0])


def test_population_change_refused_while_views_live(small):
    w = boids.World(**small)
    p = w.positions[:, 0]  # a slice of a view keeps the view's memory in use
    with pytest.raises(BufferError, match="remove"):
        w.remove([3])
    del p
    w.remove([3])
    assert w.count == 499


@pytest.mark.parametrize("threads", [1, 2])
def test_snapshots_interchangeable_with_the_program(tmp_path, cli, small, threads):
    w = boids.World(**small, threads=threads)
    w.step(5)
    snap = tmp_path / "py.snap"
    w.save(snap)
    out = tmp_path / "cli.csv"
    subprocess.run([cli, "run", "--quiet", "--load", str(snap), "--steps", "5", "--out",
                    str(out)], check=True)
    w.step(5)
    _, pos, _ = read_state_csv(out)
    np.testing.assert_array_equal(w.positions, pos.astype(w.dtype))

    snap2 = tmp_path / "cli.snap"
    subprocess.run([cli, "run", "--quiet", "--steps", "10", "--save", str(snap2), "--set",
                    "boids.count=500", "--set", "world.size=40.0", "--set", "boids.seed=7"],
                   check=True)
    loaded = boids.World.load(snap2)
    assert loaded.step_count == 10 and loaded.state_hash == w.state_hash


def test_step_releases_the_gil():
    w = boids.World(count=200000, size=200.0, threads=1)
    ticks = [0]
    running = threading.Event()

    def spin():
        running.set()
        while not done.is_set():
            ticks[0] += 1

    done = threading.Event()
    t = threading.Thread(target=spin)
    t.start()
    running.wait()
    before = ticks[0]
    w.step(3)  # tens of ms of C++: the other thread must get the GIL meanwhile
    during = ticks[0] - before
    done.set()
    t.join()
    assert during > 1000


def test_repr_and_facts(small):
    w = boids.World(**small, dt=0.05)
    w.step(4)
    assert w.step_count == 4 and abs(w.time - 0.2) < 1e-12 and len(w) == 500
    assert "boids.World 3D count=500 step=4" in repr(w)
    assert "[rules]\nradius = " in w.scenario_text and "rules.radius" in boids.scenario_keys()


def test_metrics_match_the_program(tmp_path, cli, small):
    out = tmp_path / "m.csv"
    subprocess.run([cli, "run", "--quiet", "--steps", "6", "--metrics", str(out),
                    "--metrics-every", "3", "--set", "boids.count=500", "--set",
                    "world.size=40.0", "--set", "boids.seed=7"], check=True)
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    w = boids.World(**small)
    w.step(6)
    m = w.metrics()
    last = rows[-1]
    assert last["step"] == "6"
    for k in ("polarization", "milling", "mean_speed", "mean_nnd", "mean_neighbours",
              "largest_cluster"):
        assert float(last[k]) == pytest.approx(m[k], rel=1e-8, abs=1e-12), k
    assert int(last["clusters"]) == m["clusters"]
    v = w.velocities.astype(np.float64)
    u = v / np.linalg.norm(v, axis=1)[:, None]
    assert m["polarization"] == pytest.approx(np.linalg.norm(u.sum(axis=0)) / len(u), rel=1e-6)
