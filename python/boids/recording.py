"""Reading trajectory recordings of ``boids run --record`` into numpy (docs/python.md).

``read_recording(path)`` opens either format the program writes (docs/formats.md):

- **H5MD** (``.h5`` / ``.h5md``, read with h5py): every kind's particle group, merged per
  frame into one id-ordered table, fill rows (id = -1) dropped;
- **BOIDSREC**, the project's own binary format, parsed with numpy.

Opening checks the whole file once, one frame at a time (bounded memory): the header or the
H5MD structure, every dataset's rank, shape and type, and in every frame the ids (strictly
increasing, no duplicates across kinds), the kinds and that every live value is finite.
Frames are then read on demand, so a recording larger than memory can be walked through.
Anything wrong raises ``RecordingError`` (a ``ValueError``) with one line naming the file and
the dataset (H5MD) or the frame and byte (BOIDSREC); a missing file or a directory raises
``OSError`` like the rest of the package.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

__all__ = ["read_recording", "Recording", "RecordedFrame", "RecordingError"]

PathLike = Union[str, "os.PathLike[str]"]

_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_REC_MAGIC = b"BOIDSREC"
_KINDS = (("boids", 0), ("predators", 1), ("leaders", 2))
_MAX_ROWS = 2**31 - 1


class RecordingError(ValueError):
    """A recording that cannot be read: ``"PATH: DATASET: what is wrong"``, one line."""


@dataclass(frozen=True)
class RecordedFrame:
    """One recorded state, every kind together, rows in ascending id order."""

    index: int                #: position of the frame in the recording (0 = the first)
    step: int                 #: the world's step count
    time: Optional[float]     #: step * dt (None for a BOIDSREC file read without ``dt``)
    position: np.ndarray      #: (n, dims), float32 or float64 as the world's precision
    velocity: np.ndarray      #: (n, dims), same dtype
    id: np.ndarray            #: (n,) uint32, strictly increasing
    kind: np.ndarray          #: (n,) uint8: 0 boid, 1 predator, 2 leader

    def __len__(self) -> int:
        return int(self.id.shape[0])


class Recording:
    """A recording opened by ``read_recording``: a sequence of ``RecordedFrame``.

    ``len(rec)``, ``rec[k]`` (negative k counts from the end), iteration, ``rec.steps`` and
    ``rec.times`` (numpy arrays of every frame's step and time), ``rec.dims``, ``rec.dtype``,
    ``rec.format`` ("h5md" or "boidsrec"), ``rec.every`` (steps between frames),
    ``rec.scenario`` (H5MD: the scenario TOML the run used; BOIDSREC: None) and
    ``rec.observables`` (H5MD: ``{name: (steps, times, values)}``; BOIDSREC: empty).
    """

    def __init__(self, path: str, fmt: str, dims: int, dtype: np.dtype, every: int,
                 steps: np.ndarray, times: Optional[np.ndarray], scenario: Optional[str],
                 observables: Dict[str, Tuple[np.ndarray, np.ndarray, np.ndarray]],
                 reader) -> None:
        self.path, self.format, self.dims, self.dtype, self.every = path, fmt, dims, dtype, every
        self.steps, self.times, self.scenario = steps, times, scenario
        self.observables = observables
        self._read = reader
        self._file = None
        self._closed = False

    def __len__(self) -> int:
        return int(self.steps.shape[0])

    def __getitem__(self, k: int) -> RecordedFrame:
        n = len(self)
        if not isinstance(k, (int, np.integer)):
            raise TypeError(f"{self.path}: frame index must be an integer, got {type(k).__name__}")
        k = int(k)
        if k < -n or k >= n:
            raise IndexError(f"{self.path}: frame {k} out of range (the recording has {n} frames)")
        return self._frame(k % n)

    def _frame(self, k: int) -> RecordedFrame:
        if self._closed:
            raise ValueError(f"{self.path}: the recording is closed")
        return self._read(k)

    def __iter__(self) -> Iterator[RecordedFrame]:
        for k in range(len(self)):
            yield self._frame(k)

    @property
    def frames(self) -> List[RecordedFrame]:
        """Every frame read into memory (for small recordings; iterate for large ones)."""
        return list(self)

    def frame_at_step(self, step: int) -> RecordedFrame:
        """The frame of exactly this step (KeyError when none was recorded at it)."""
        (at,) = np.nonzero(self.steps == int(step))
        if len(at) == 0:
            raise KeyError(f"{self.path}: no frame at step {step}")
        return self._frame(int(at[0]))

    def close(self) -> None:
        """Closes the file (H5MD keeps it open for reading frames on demand)."""
        f = getattr(self, "_file", None)
        if f is not None:
            f.close()
            self._file = None
        self._closed = True

    def __enter__(self) -> "Recording":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<boids.Recording {self.format} {self.path!r} {len(self)} frames "
                f"{self.dims}D {np.dtype(self.dtype).name}>")


def read_recording(path: PathLike, dt: Optional[float] = None, check: bool = True) -> Recording:
    """Opens a recording of ``boids run --record`` (H5MD or BOIDSREC, told apart by content).

    ``dt`` gives BOIDSREC frames a time (step * dt); H5MD files store their own. With
    ``check=False`` only the structure is checked on opening and each frame when it is read
    (faster for a huge file). Raises RecordingError naming the file and the dataset."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise FileNotFoundError(2, f"{p}: no such file", p)
    if os.path.isdir(p):
        raise IsADirectoryError(21, f"{p}: is a directory, not a recording", p)
    with open(p, "rb") as f:
        head = f.read(8)
    if len(head) < 8:
        raise RecordingError(f"{p}: truncated ({len(head)} bytes, shorter than the start of any "
                             f"recording)")
    if head == _REC_MAGIC:
        rec = _open_boidsrec(p, dt)
    elif head == _HDF5_MAGIC:
        rec = _open_h5md(p)
    else:
        raise RecordingError(f"{p}: not a recording (neither BOIDSREC nor HDF5/H5MD)")
    if check:
        for _ in rec:
            pass
    return rec


def _check_rows(path: str, where: str, frame: int, ids: np.ndarray, pos: np.ndarray,
                vel: np.ndarray, pos_where: str, vel_where: str) -> None:
    if ids.size > 1:
        bad = np.nonzero(np.diff(ids.astype(np.int64)) <= 0)[0]
        if bad.size:
            raise RecordingError(f"{path}: {where}: ids not strictly increasing "
                                 f"(frame {frame}, row {int(bad[0]) + 1})")
    for what, a in ((pos_where, pos), (vel_where, vel)):
        finite = np.isfinite(a)
        if not finite.all():
            row = int(np.nonzero(~finite.all(axis=1))[0][0])
            raise RecordingError(f"{path}: {what}: non-finite value (frame {frame}, row {row})")


# --- BOIDSREC -------------------------------------------------------------------------------

def _open_boidsrec(path: str, dt: Optional[float]) -> Recording:
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(32)
        if len(head) < 32:
            raise RecordingError(f"{path}: header: truncated ({len(head)} of 32 bytes)")
        version, dims, width, _ = (int(x) for x in np.frombuffer(head, "<u4", 4, 8))
        every = int(np.frombuffer(head, "<u8", 1, 24)[0])
        if version != 1:
            raise RecordingError(f"{path}: header: format version {version}, expected 1")
        if dims not in (2, 3):
            raise RecordingError(f"{path}: header: dims {dims}, expected 2 or 3")
        if width not in (4, 8):
            raise RecordingError(f"{path}: header: {width} bytes per value, expected 4 or 8")
        offsets, steps, counts = [], [], []
        at = 32
        while at < size:
            f.seek(at)
            fh = f.read(16)
            frame = len(offsets)
            if len(fh) < 16:
                raise RecordingError(f"{path}: frame {frame}: truncated frame header at byte {at}")
            step, n = (int(x) for x in np.frombuffer(fh, "<u8", 2))
            nbytes = 16 + n * (5 + 2 * dims * width)
            if n > _MAX_ROWS or at + nbytes > size:
                raise RecordingError(f"{path}: frame {frame}: truncated at byte {at} (needs "
                                     f"{nbytes} bytes for {n} boids, {size - at} left)")
            offsets.append(at)
            steps.append(step)
            counts.append(n)
            at += nbytes
    if not offsets:
        raise RecordingError(f"{path}: frames: the recording holds no frame")
    steps_a = np.array(steps, dtype=np.int64)
    times = None if dt is None else steps_a * float(dt)
    real = np.dtype("<f4" if width == 4 else "<f8")

    def read(k: int) -> RecordedFrame:
        n = counts[k]
        with open(path, "rb") as f:
            f.seek(offsets[k] + 16)
            b = f.read(n * (5 + 2 * dims * width))
        if len(b) != n * (5 + 2 * dims * width):
            raise RecordingError(f"{path}: frame {k}: file changed while open (truncated)")
        ids = np.frombuffer(b, "<u4", n, 0).copy()
        kinds = np.frombuffer(b, "u1", n, 4 * n).copy()
        at = 5 * n
        pos = np.frombuffer(b, real, dims * n, at).reshape(dims, n).T.copy()
        vel = np.frombuffer(b, real, dims * n, at + dims * n * width).reshape(dims, n).T.copy()
        where = f"frame {k} (byte {offsets[k]})"
        _check_rows(path, where, k, ids, pos, vel, where + " positions", where + " velocities")
        if n and kinds.max() > 2:
            row = int(np.nonzero(kinds > 2)[0][0])
            raise RecordingError(f"{path}: {where}: kind {int(kinds[row])} is not 0, 1 or 2 "
                                 f"(row {row})")
        return RecordedFrame(k, steps[k], None if times is None else float(times[k]),
                             pos.astype(real.newbyteorder("=")), vel.astype(real.newbyteorder("=")),
                             ids.astype(np.uint32), kinds)

    return Recording(path, "boidsrec", dims, real.newbyteorder("="), every, steps_a, times, None,
                     {}, read)


# --- H5MD -------------------------------------------------------------------------------------

def _open_h5md(path: str) -> Recording:
    try:
        import h5py
    except ImportError:
        raise ImportError("reading H5MD recordings needs h5py (Debian: apt-get install "
                          "python3-h5py)") from None

    def fail(where: str, what: str) -> RecordingError:
        return RecordingError(f"{path}: {where}: {what}")

    try:
        f = h5py.File(path, "r")
    except OSError:
        raise RecordingError(f"{path}: /: cannot open as HDF5 (truncated or damaged: shorter "
                             f"than its superblock says, or its metadata is unreadable)") from None
    try:
        return _h5md_index(path, f, fail)
    except RecordingError:
        f.close()
        raise
    except (OSError, KeyError, RuntimeError) as e:  # h5py's own, on damaged metadata
        f.close()
        raise RecordingError(f"{path}: /: unreadable ({str(e).splitlines()[0]})") from None


def _dataset(f, where: str, fail):
    try:
        d = f.get(where)
    except (OSError, KeyError, RuntimeError):
        raise fail(where, "unreadable (file damaged?)") from None
    if d is None:
        raise fail(where, "missing")
    if not hasattr(d, "shape") or not hasattr(d, "dtype"):
        raise fail(where, "not a dataset")
    return d


def _read_all(d, where: str, fail) -> np.ndarray:
    try:
        return d[()]
    except (OSError, KeyError, RuntimeError, ValueError):
        raise fail(where, "cannot read (file damaged?)") from None


def _series(f, where: str, fail, frames: Optional[int]) -> np.ndarray:
    d = _dataset(f, where, fail)
    if d.ndim != 1 or (frames is not None and d.shape[0] != frames):
        want = "(frames,)" if frames is None else f"({frames},)"
        raise fail(where, f"wrong shape {d.shape}, expected {want}")
    return _read_all(d, where, fail)


def _h5md_index(path: str, f, fail) -> Recording:
    if "h5md" not in f:
        raise fail("/h5md", "missing (not an H5MD file)")
    clock = "/parameters/next_id/step"
    steps = _series(f, clock, fail, None)
    if steps.dtype.kind not in "iu":
        raise fail(clock, "wrong type (expected integer)")
    steps = steps.astype(np.int64)
    if len(steps) == 0:
        raise fail(clock, "the recording has no frames")
    if (steps < 0).any():
        raise fail(clock, "negative step")
    scenario = None
    if "parameters/scenario" in f:
        s = _read_all(_dataset(f, "/parameters/scenario", fail), "/parameters/scenario", fail)
        scenario = s.decode() if isinstance(s, bytes) else str(s)
    every = int(f["parameters"].attrs.get("every", 1))

    groups = []  # (kind, group path, frame index of each global frame or -1, datasets)
    dims, dtype, times = None, None, np.full(len(steps), np.nan)
    for name, kind in _KINDS:
        gp = "/particles/" + name
        if gp not in f:
            continue
        ksteps = _series(f, gp + "/position/step", fail, None).astype(np.int64)
        ktimes = _series(f, gp + "/position/time", fail, len(ksteps))
        ds = {q: _dataset(f, f"{gp}/{q}/value", fail) for q in
              ("position", "velocity", "id", "species")}
        ps = ds["position"].shape
        if len(ps) != 3 or ps[2] not in (2, 3) or ps[0] != len(ksteps):
            raise fail(gp + "/position/value",
                       f"wrong shape {ps}, expected ({len(ksteps)}, rows, 2 or 3)")
        if ds["velocity"].shape != ps:
            raise fail(gp + "/velocity/value",
                       f"wrong shape {ds['velocity'].shape}, expected {ps} like the position")
        for q in ("id", "species"):
            if ds[q].shape != ps[:2]:
                raise fail(f"{gp}/{q}/value", f"wrong shape {ds[q].shape}, expected {ps[:2]}")
            if ds[q].dtype.kind not in "iu":
                raise fail(f"{gp}/{q}/value", "wrong type (expected integer)")
        for q in ("position", "velocity"):
            if ds[q].dtype.kind != "f" or ds[q].dtype.itemsize not in (4, 8):
                raise fail(f"{gp}/{q}/value", "wrong type (expected float32 or float64)")
        if dims is not None and ps[2] != dims:
            raise fail(gp + "/position/value", "dimension differs from another kind's")
        if dtype is not None and ds["position"].dtype != dtype:
            raise fail(gp + "/position/value", "value type differs from another kind's")
        dims, dtype = ps[2], ds["position"].dtype
        where = {int(s): i for i, s in enumerate(ksteps)}
        index = np.array([where.get(int(s), -1) for s in steps], dtype=np.int64)
        for g, j in enumerate(index):
            if j >= 0:
                times[g] = ktimes[j]
        groups.append((kind, gp, index, ds))
    if not groups:
        raise fail("/particles", "missing (no particle group)")
    if np.isnan(times).any():
        dt = float(f["parameters"].attrs.get("dt", np.nan))
        times = np.where(np.isnan(times), steps * dt, times)

    observables = {}
    if "observables" in f:
        for name in f["observables"]:
            op = f"/observables/{name}"
            ost = _series(f, op + "/step", fail, None)
            observables[name] = (ost.astype(np.int64), _series(f, op + "/time", fail, len(ost)),
                                 _series(f, op + "/value", fail, len(ost)))

    native = np.dtype(dtype).newbyteorder("=")

    def rows(d, where: str, j: int) -> np.ndarray:
        try:
            return d[j]
        except (OSError, KeyError, RuntimeError, ValueError):
            raise fail(where, f"cannot read frame {j} (file damaged?)") from None

    def read(k: int) -> RecordedFrame:
        parts = []
        for kind, gp, index, ds in groups:
            j = int(index[k])
            if j < 0:
                continue  # this kind had no group yet at that step
            ids = rows(ds["id"], gp + "/id/value", j).astype(np.int64)
            species = rows(ds["species"], gp + "/species/value", j)
            pos = rows(ds["position"], gp + "/position/value", j)
            vel = rows(ds["velocity"], gp + "/velocity/value", j)
            live = ids != -1
            nlive = int(live.sum())
            if not live[:nlive].all():
                row = int(np.nonzero(~live)[0][0])
                raise fail(gp + "/id/value", f"live row after an id = -1 fill row (frame {j}, "
                                             f"row {row + 1})")
            ids, species, pos, vel = ids[:nlive], species[:nlive], pos[:nlive], vel[:nlive]
            if nlive and (ids.min() < 0 or ids.max() > 0xFFFFFFFF):
                raise fail(gp + "/id/value", f"id out of range (frame {j})")
            if nlive and (species != kind).any():
                row = int(np.nonzero(species != kind)[0][0])
                raise fail(gp + "/species/value", f"species {int(species[row])} in the group of "
                                                  f"kind {kind} (frame {j}, row {row})")
            _check_rows(path, gp + "/id/value", j, ids, pos, vel, gp + "/position/value",
                        gp + "/velocity/value")
            parts.append((ids, np.full(nlive, kind, np.uint8), pos, vel))
        if not parts:
            e = np.empty((0, dims), native)
            return RecordedFrame(k, int(steps[k]), float(times[k]), e, e.copy(),
                                 np.empty(0, np.uint32), np.empty(0, np.uint8))
        ids = np.concatenate([p[0] for p in parts])
        order = np.argsort(ids, kind="stable")
        ids = ids[order]
        if ids.size > 1 and (np.diff(ids) == 0).any():
            dup = int(ids[np.nonzero(np.diff(ids) == 0)[0][0]])
            raise fail("/particles", f"id {dup} appears in two kinds (frame {k})")
        return RecordedFrame(
            k, int(steps[k]), float(times[k]),
            np.concatenate([p[2] for p in parts]).reshape(-1, dims)[order].astype(native),
            np.concatenate([p[3] for p in parts]).reshape(-1, dims)[order].astype(native),
            ids.astype(np.uint32), np.concatenate([p[1] for p in parts])[order])

    rec = Recording(path, "h5md", int(dims), native, every, steps, times, scenario,
                    observables, read)
    rec._file = f  # keeps the h5py file open as long as the recording lives
    return rec
