"""H5MD recordings of `boids run --record FILE.h5` as the tools of the field see them.

Run by tests/h5md/run_pytest.py (ctest: h5md_pytest), which passes the program in BOIDS_CLI.
Each case skips with a reason when the module it needs (h5py, meshio, MDAnalysis) is missing.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

h5py = pytest.importorskip("h5py", reason="python3-h5py is not installed")

BOIDS = os.environ.get("BOIDS_CLI", "boids")
WORKDIR = os.environ.get("BOIDS_H5MD_WORKDIR", tempfile.gettempdir())
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenarios")
KINDS = {"boids": 0, "predators": 1, "leaders": 2}
# A small 3D world with all three kinds: ids 0..143 boids, 144..147 predators, 148..149 leaders.
SMALL = ["--set", "boids.count=150", "--set", "predators.count=4", "--set", "leaders.count=2",
         "--set", "world.size=40"]


@pytest.fixture
def work():
    d = tempfile.mkdtemp(dir=WORKDIR)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run(*args, check=True, env=None):
    p = subprocess.run([BOIDS, "run", "--quiet", *args], capture_output=True, text=True,
                       env=env)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def read_csv(path):
    """ids and the position and velocity columns of a state CSV."""
    header = open(path).readline().strip().split(",")
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    cols = [header.index(c) for c in ("x", "y", "z", "vx", "vy", "vz") if c in header]
    return a[:, header.index("id")].astype(np.int64), a[:, cols]


def frame_rows(f, frame_step):
    """All live rows of every kind at a step: ids, positions, velocities, kinds, id order."""
    ids, pos, vel, kinds = [], [], [], []
    for name, g in f["particles"].items():
        steps = g["position/step"][()]
        (at,) = np.nonzero(steps == frame_step)
        if len(at) == 0:
            continue
        i = g["id/value"][at[0]]
        live = i != -1
        ids.append(i[live])
        pos.append(g["position/value"][at[0]][live])
        vel.append(g["velocity/value"][at[0]][live])
        kinds.append(np.full(live.sum(), KINDS[name]))
    ids, pos, vel, kinds = (np.concatenate(x) for x in (ids, pos, vel, kinds))
    order = np.argsort(ids)
    return ids[order], pos[order], vel[order], kinds[order]


def test_structure_and_attributes_follow_h5md_1_1(work):
    rec = os.path.join(work, "run.h5")
    run(*SMALL, "--steps", "12", "--every", "4", "--record", rec)
    version = subprocess.run([BOIDS, "--version"], capture_output=True, text=True).stdout.split()
    with h5py.File(rec, "r") as f:
        assert list(f["h5md"].attrs["version"]) == [1, 1]
        assert f["h5md/author"].attrs["name"]
        assert f["h5md/creator"].attrs["name"] == "boids"
        assert f["h5md/creator"].attrs["version"] == version[-1]
        assert set(f["particles"]) == {"boids", "predators", "leaders"}
        counts = {"boids": 144, "predators": 4, "leaders": 2}
        first = {"boids": 0, "predators": 144, "leaders": 148}
        dt = f["parameters"].attrs["dt"]
        for name, n in counts.items():
            g = f["particles"][name]
            assert g["box"].attrs["dimension"] == 3
            assert list(g["box"].attrs["boundary"]) == ["periodic"] * 3
            edges = g["box/edges/value"][()]
            assert edges.shape == (4, 3, 3)
            assert np.array_equal(edges[2], np.diag([40.0] * 3))
            for e in ("position", "velocity", "id", "species"):
                assert list(g[e]["step"][()]) == [0, 4, 8, 12]
                assert np.array_equal(g[e]["time"][()], np.array([0, 4, 8, 12]) * dt)
            assert g["position/value"].shape == (4, n, 3)
            assert g["position/value"].dtype == np.float32
            assert g["velocity/value"].shape == (4, n, 3)
            assert g["velocity/value"].dtype == np.float32
            assert g["position/value"].chunks == (1, max(n, 16), 3)  # one frame per chunk
            assert g["id/value"].shape == (4, n)
            assert np.array_equal(g["id/value"][3], np.arange(first[name], first[name] + n))
            assert np.all(g["species/value"][()] == KINDS[name])
            pos = g["position/value"][()]
            assert np.all((pos >= 0) & (pos < 40))
        p = f["parameters"]
        assert p.attrs["dims"] == 3 and p.attrs["count"] == 150 and p.attrs["size"] == 40
        assert p.attrs["boundary"] == "wrap" and p.attrs["precision"] == "float"
        assert p.attrs["every"] == 4
        scenario = p["scenario"][()].decode()
    # The stored scenario is a valid scenario file that gives the same run.
    toml = os.path.join(work, "stored.toml")
    with open(toml, "w") as out:
        out.write(scenario)
    run("--scenario", toml, "--steps", "12", "--out", os.path.join(work, "b.csv"))
    run(*SMALL, "--steps", "12", "--out", os.path.join(work, "a.csv"))
    assert open(os.path.join(work, "a.csv")).read() == open(os.path.join(work, "b.csv")).read()
    assert os.path.exists(os.path.join(work, "run.xdmf"))


@pytest.mark.parametrize("variant", [
    ["--set", "world.dims=3"],
    ["--set", "world.dims=2", "--set", "engine.precision=\"double\"",
     "--set", "world.boundary=\"reflect\""],
])
def test_frames_equal_the_out_csv_at_the_same_steps(work, variant):
    rec = os.path.join(work, "run.h5")
    args = [*SMALL, *variant, "--threads", "2"]
    run(*args, "--steps", "10", "--every", "5", "--record", rec)
    dims = 2 if "world.dims=2" in variant else 3
    real = np.float64 if "double" in " ".join(variant) else np.float32
    with h5py.File(rec, "r") as f:
        g = f["particles/boids"]
        assert g["position/value"].dtype == real
        assert g["position/value"].shape[2] == dims
        expect_boundary = "periodic" if dims == 3 else "none"
        assert list(g["box"].attrs["boundary"]) == [expect_boundary] * dims
        for frame, step in enumerate([0, 5, 10]):
            out = os.path.join(work, f"s{step}.csv")
            run(*args, "--steps", str(step), "--out", out)
            ids, values = read_csv(out)
            rid, pos, vel, _ = frame_rows(f, step)
            assert np.array_equal(rid, ids)
            # The CSV holds the shortest decimal that reads back to the same value.
            assert np.array_equal(pos, values[:, :dims].astype(real))
            assert np.array_equal(vel, values[:, dims:].astype(real))


def test_xdmf_is_a_time_series_meshio_reads(work):
    meshio = pytest.importorskip("meshio", reason="python3-meshio is not installed")
    rec = os.path.join(work, "run.h5")
    run(*SMALL, "--steps", "9", "--every", "3", "--record", rec)
    with h5py.File(rec, "r") as f:
        times = f["particles/boids/position/time"][()]
        first = frame_rows(f, 0)
        last = frame_rows(f, 9)
    with meshio.xdmf.TimeSeriesReader(os.path.join(work, "run.xdmf")) as r:
        points, cells = r.read_points_cells()
        assert points.shape == (150, 3)
        assert np.array_equal(points, first[1])
        assert cells[0].type == "vertex" and len(cells[0].data) == 150
        assert r.num_steps == 4
        for k in range(4):
            t, point_data, _ = r.read_data(k)
            assert t == pytest.approx(times[k], rel=0, abs=0)
            assert point_data["velocity"].shape == (150, 3)
            assert np.array_equal(np.sort(point_data["id"]), np.arange(150))
        t, point_data, _ = r.read_data(3)
        assert np.array_equal(point_data["id"], last[0])
        assert np.array_equal(point_data["kind"], last[3])
        assert np.array_equal(point_data["velocity"], last[2])


def test_mdanalysis_reads_positions_and_box(work):
    mda = pytest.importorskip("MDAnalysis", reason="python3-mdanalysis is not installed")
    rec = os.path.join(work, "run.h5")
    run("--set", "boids.count=300", "--set", "world.size=50", "--steps", "6", "--every", "2",
        "--record", rec)
    u = mda.Universe.empty(300)
    u.load_new(rec, format="H5MD", convert_units=False)
    assert u.trajectory.n_frames == 4
    with h5py.File(rec, "r") as f:
        for k, ts in enumerate(u.trajectory):
            assert np.array_equal(ts.positions, f["particles/boids/position/value"][k])
            assert np.array_equal(ts.velocities, f["particles/boids/velocity/value"][k])
            assert list(ts.dimensions) == [50, 50, 50, 90, 90, 90]
            assert ts.time == pytest.approx(f["particles/boids/position/time"][k])


def test_init_from_a_frame_continues_bit_identically(work):
    # A 2D scenario whose boids wander: random draws depend on the step count.
    scenario = os.path.join(SCENARIOS, "steering_playground.toml")
    rec = os.path.join(work, "run.h5")
    full = os.path.join(work, "full.csv")
    run("--scenario", scenario, "--steps", "20", "--every", "5", "--record", rec,
        "--out", full, "--threads", "2")
    for frame, rest in [(2, 10), (0, 20), (4, 0)]:
        out = os.path.join(work, f"from{frame}.csv")
        run("--init", rec, "--init-frame", str(frame), "--steps", str(rest), "--out", out,
            "--threads", "1")
        assert open(out).read() == open(full).read(), f"frame {frame}"
    # Default: the last frame.
    out = os.path.join(work, "last.csv")
    run("--init", rec, "--steps", "0", "--out", out)
    assert open(out).read() == open(full).read()
    # A recording continued from a frame holds the same frames as the original after it.
    rec2 = os.path.join(work, "again.h5")
    run("--init", rec, "--init-frame", "1", "--steps", "15", "--every", "5", "--record", rec2)
    with h5py.File(rec, "r") as a, h5py.File(rec2, "r") as b:
        assert list(b["particles/boids/position/step"][()]) == [5, 10, 15, 20]
        assert np.array_equal(a["particles/boids/position/value"][1:],
                              b["particles/boids/position/value"][()])


@pytest.mark.skipif(shutil.which("h5diff") is None, reason="h5diff (hdf5-tools) is missing")
def test_same_input_gives_equal_files_for_any_threads_and_isa(work):
    files = []
    for i, (threads, isa) in enumerate([("1", None), ("2", None), ("2", "scalar")]):
        d = os.path.join(work, str(i))
        os.mkdir(d)
        env = dict(os.environ)
        if isa:
            env["BOIDS_MAX_ISA"] = isa
        run(*SMALL, "--steps", "8", "--every", "4", "--threads", threads, "--record",
            os.path.join(d, "run.h5"), env=env)
        files.append(d)
    for d in files[1:]:
        p = subprocess.run(["h5diff", os.path.join(files[0], "run.h5"),
                            os.path.join(d, "run.h5")], capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
        assert open(os.path.join(d, "run.xdmf")).read() == \
            open(os.path.join(files[0], "run.xdmf")).read()


def test_record_compress_is_smaller_and_holds_the_same_data(work):
    plain, packed = os.path.join(work, "plain.h5"), os.path.join(work, "packed.h5")
    args = ["--set", "boids.count=4000", "--steps", "4", "--every", "2"]
    run(*args, "--record", plain)
    run(*args, "--record", packed, "--record-compress", "6")
    assert os.path.getsize(packed) < os.path.getsize(plain)
    with h5py.File(plain, "r") as a, h5py.File(packed, "r") as b:
        assert a["particles/boids/position/value"].compression is None
        assert b["particles/boids/position/value"].compression == "gzip"
        for e in ("position", "velocity", "id", "species"):
            assert np.array_equal(a[f"particles/boids/{e}/value"][()],
                                  b[f"particles/boids/{e}/value"][()])
    p = run("--steps", "1", "--record-compress", "3", check=False)
    assert p.returncode != 0
    p = run("--steps", "1", "--record", os.path.join(work, "x.csv"), "--record-compress", "3",
            check=False)
    assert p.returncode != 0 and "--record-compress" in p.stderr


def expect_error(work, init, *needles, extra=()):
    """--init `init` fails with one line naming the file and each needle; --out untouched."""
    out = os.path.join(work, "keep.csv")
    with open(out, "w") as f:
        f.write("precious\n")
    p = run("--init", init, "--steps", "1", "--out", out, *extra, check=False)
    assert p.returncode > 0, p.stderr  # an error status, not a signal
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("boids: error: ") and init in lines[0], lines[0]
    for n in needles:
        assert n in lines[0], lines[0]
    assert open(out).read() == "precious\n"
    return lines[0]


def test_bad_recordings_give_one_clear_line(work):
    good = os.path.join(work, "good.h5")
    run(*SMALL, "--steps", "4", "--every", "2", "--record", good)
    data = open(good, "rb").read()

    # Cut at any byte: the header, inside the metadata, inside the data, one byte short.
    for cut in sorted({0, 7, 100, 600, 2048, len(data) // 3, len(data) // 2, len(data) - 1}):
        bad = os.path.join(work, f"cut{cut}.h5")
        with open(bad, "wb") as f:
            f.write(data[:cut])
        expect_error(work, bad)

    def edited(name, edit):
        path = os.path.join(work, name)
        shutil.copy(good, path)
        with h5py.File(path, "r+") as f:
            edit(f)
        return path

    missing = edited("missing.h5", lambda f: f.__delitem__("particles/boids/velocity/value"))
    expect_error(work, missing, "/particles/boids/velocity/value", "missing")

    def reshape(f):
        v = f["particles/predators/position/value"][()]
        del f["particles/predators/position/value"]
        f["particles/predators/position/value"] = np.zeros(v.shape[:2] + (4,), v.dtype)
    wrong = edited("shape.h5", reshape)
    expect_error(work, wrong, "/particles/predators/position/value", "shape")

    def poison(f):
        f["particles/boids/velocity/value"][2, 5, 1] = np.nan
    nan = edited("nan.h5", poison)
    expect_error(work, nan, "/particles/boids/velocity/value", "non-finite")

    no_scenario = edited("noscenario.h5", lambda f: f.__delitem__("parameters/scenario"))
    expect_error(work, no_scenario, "/parameters/scenario")

    text = os.path.join(work, "text.h5")
    with open(text, "w") as f:
        f.write("step,id\n")
    expect_error(work, text, "not an HDF5 file")
    expect_error(work, good, "--init-frame", extra=("--init-frame", "3"))
    expect_error(work, os.path.join(work, "absent.h5"), "cannot open")


def test_interrupted_run_leaves_a_readable_file(work):
    rec = os.path.join(work, "run.h5")
    p = subprocess.Popen([BOIDS, "run", "--quiet", "--set", "boids.count=20000", "--steps",
                          "100000", "--every", "1", "--threads", "1", "--record", rec])
    try:
        deadline = time.time() + 60
        while time.time() < deadline and (not os.path.exists(rec) or os.path.getsize(rec) < 3e6):
            time.sleep(0.05)
        time.sleep(0.3)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert p.returncode == -signal.SIGKILL
    with h5py.File(rec, "r") as f:
        steps = f["parameters/next_id/step"][()]
        assert len(steps) >= 2
        pos = f["particles/boids/position/value"]
        assert pos.shape[0] >= len(steps)
        assert np.all(np.isfinite(pos[len(steps) - 1]))
    ET.parse(os.path.join(work, "run.xdmf"))  # well-formed XML
    out = os.path.join(work, "last.csv")
    run("--init", rec, "--steps", "0", "--out", out)
    ids, _ = read_csv(out)
    assert len(ids) == 20000


def test_metrics_rows_are_observables(work):
    h5, met = os.path.join(work, "obs.h5"), os.path.join(work, "m.csv")
    run("--steps", "12", "--record", h5, "--every", "4", "--metrics", met, "--metrics-every",
        "4", *SMALL)
    rows = np.genfromtxt(met, delimiter=",", names=True)
    with h5py.File(h5, "r") as f:
        obs = f["observables"]
        for name in ("polarization", "milling", "mean_speed", "mean_nnd", "mean_neighbours",
                     "clusters", "largest_cluster"):
            np.testing.assert_array_equal(obs[name]["step"][()], rows["step"])
            np.testing.assert_allclose(obs[name]["time"][()], rows["time"], rtol=1e-8)
            # The CSV holds %.9g or more: equal to that precision, not rounded away.
            np.testing.assert_allclose(obs[name]["value"][()], rows[name], rtol=1e-8, atol=0)
        # One observable row per particle frame when the two intervals agree.
        assert len(obs["polarization/step"]) == len(f["particles/boids/position/step"])
