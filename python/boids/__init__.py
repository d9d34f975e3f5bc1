"""boids: a fast, exact and deterministic flocking engine, from Python.

    import boids
    w = boids.World(count=2000, rules_radius=6.0, threads=2)
    w.step(100)                 # releases the GIL, runs on the engine's threads
    p = w.positions             # (n, dims) read-only numpy view, no copy

The compiled module ``boids._boids`` wraps the public C++ API; this layer adds keyword
overrides, file checks that raise OSError, and the bookkeeping that keeps numpy views safe.
See docs/python.md.
"""
from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Iterable, Mapping, Optional, Union

import numpy as np

from . import _boids
from ._recorder import Recorder
from ._sweep import sweep
from .recording import Recording, RecordedFrame, RecordingError, read_recording

__all__ = ["World", "Recorder", "sweep", "scenario_keys", "default_scenario_text",
           "__version__", "read_recording", "Recording", "RecordedFrame", "RecordingError"]
__version__: str = _boids.__version__

PathLike = Union[str, "os.PathLike[str]"]

# Short keyword names for the keys people change most; every other key is its dotted
# name with underscores (rules_radius -> rules.radius, predators_motion_max_speed -> ...).
_ALIASES = {
    "count": "boids.count",
    "seed": "boids.seed",
    "dims": "world.dims",
    "size": "world.size",
    "boundary": "world.boundary",
    "profile": "world.profile",
    "dt": "motion.dt",
    "engine": "engine.kind",
    "precision": "engine.precision",
    "threads": "engine.threads",
}


def scenario_keys() -> list:
    """Every scenario key, "section.key", in documentation order."""
    return list(_boids.scenario_keys())


def default_scenario_text() -> str:
    """The built-in default scenario as TOML text."""
    return _boids.default_scenario_text()


def _keyword_map() -> dict:
    m = {k.replace(".", "_"): k for k in _boids.scenario_keys()}
    m.update(_ALIASES)
    return m


def _toml_value(v: Any, key: str) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v)).replace("inf", "inf").replace("nan", "nan")
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(x, key)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_toml_value(x, key) for x in v) + "]"
    raise TypeError(f"{key}: cannot express a {type(v).__name__} as a scenario value")


def _overrides(overrides: Optional[Mapping[str, Any]], kwargs: Mapping[str, Any]) -> list:
    out = []
    for key, value in (overrides or {}).items():
        out.append(f"{key}={_toml_value(value, key)}")
    if kwargs:
        names = _keyword_map()
        for kw, value in kwargs.items():
            key = names.get(kw)
            if key is None:
                raise TypeError(f"World() got an unknown keyword '{kw}' (a scenario key with "
                                f"underscores, e.g. rules_radius, or one of {sorted(_ALIASES)})")
            out.append(f"{key}={_toml_value(value, key)}")
    return out


def _check_readable(path: str) -> None:
    if not os.path.exists(path):
        raise FileNotFoundError(2, f"{path}: no such file", path)
    if os.path.isdir(path):
        raise IsADirectoryError(21, f"{path}: is a directory, not a file", path)
    if not os.access(path, os.R_OK):
        raise PermissionError(13, f"{path}: cannot read (permission denied)", path)


class _ViewGuard:
    """Base object of the numpy views: keeps the world alive and tells it a view exists."""

    __slots__ = ("world", "__weakref__")

    def __init__(self, world: "_boids.World") -> None:
        self.world = world


class World:
    """A simulated flock. See docs/python.md.

    ``World(scenario=None, overrides=None, **keywords)`` reads the scenario file (or the
    built-in default when None) and applies overrides: a dict of dotted keys
    (``{"rules.radius": 5}``) and/or keywords (``rules_radius=5``, ``count=1000``,
    ``threads=2``, ``engine="naive"``). Bad values raise ValueError with the same one-line
    message as the ``boids`` program; unreadable files raise OSError.

    Thread-safety: one World may be used from several Python threads; calls are serialised
    by a lock, and ``step`` releases the GIL so other Python threads run meanwhile.
    """

    def __init__(self, scenario: Optional[PathLike] = None,
                 overrides: Optional[Mapping[str, Any]] = None, **keywords: Any) -> None:
        sets = _overrides(overrides, keywords)
        if scenario is None:
            w = _boids.World.create(_boids.default_scenario_text(),
                                    "<built-in default scenario>", sets, False)
        else:
            path = os.fspath(scenario)
            _check_readable(path)
            w = _boids.World.create("", path, sets, True)
        self._init(w)

    def _init(self, w: "_boids.World") -> None:
        self._w = w
        self._lock = threading.RLock()
        self._guards: "weakref.WeakSet[_ViewGuard]" = weakref.WeakSet()
        self._recorders: "list[Recorder]" = []

    @classmethod
    def from_file(cls, path: PathLike, overrides: Optional[Mapping[str, Any]] = None,
                  **keywords: Any) -> "World":
        """A world from a scenario file (same as ``World(path, ...)``)."""
        return cls(path, overrides, **keywords)

    @classmethod
    def from_text(cls, text: str, overrides: Optional[Mapping[str, Any]] = None,
                  name: str = "<text>", **keywords: Any) -> "World":
        """A world from scenario TOML text; ``name`` stands for the file in messages."""
        self = cls.__new__(cls)
        self._init(_boids.World.create(text, name, _overrides(overrides, keywords), False))
        return self

    @classmethod
    def load(cls, path: PathLike, threads: Optional[int] = None) -> "World":
        """Loads a snapshot written by ``save`` or ``boids run --save`` (bit-identical)."""
        p = os.fspath(path)
        _check_readable(p)
        self = cls.__new__(cls)
        self._init(_boids.World.load(p, -1 if threads is None else int(threads)))
        return self

    # Stepping -------------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advances ``n`` steps of ``dt``; releases the GIL while the engine runs.

        Existing views stay readable and show a state of this world, but which one is
        undefined after a step: read them again (``w.positions``) after stepping. Open
        recordings (``record``) take their frames in between, at their cadence."""
        n = int(n)
        with self._lock:
            if n < 0 or not self._recorders:
                self._w.step(n)
                return
            done = 0
            while done < n:
                batch = min([n - done] + [r._steps_to_next() for r in self._recorders])
                self._w.step(batch)
                done += batch
                for r in list(self._recorders):
                    r._after_step()

    def record(self, path: PathLike, every: int = 1) -> Recorder:
        """Starts recording the trajectory to ``path``: the state now, then every ``every``
        steps, and the last state on ``close()`` (``with w.record(...)`` closes it). Same
        files as ``boids run --record PATH --every K``: CSV for ``.csv``, else the binary
        BOIDSREC format (docs/formats.md). Several recordings may be open at once."""
        with self._lock:
            r = Recorder(self, os.fspath(path), every)
            self._recorders.append(r)
            return r

    # Views ------------------------------------------------------------------------------
    def _view(self, name: str) -> np.ndarray:
        with self._lock:
            g = _ViewGuard(self._w)
            self._guards.add(g)
            return getattr(self._w, name)(g)

    @property
    def positions(self) -> np.ndarray:
        """(count, dims) read-only view in id order, the world's dtype; no copy. Valid until
        the next step or population change; ``.copy()`` keeps one."""
        return self._view("positions")

    @property
    def velocities(self) -> np.ndarray:
        """(count, dims) read-only view in id order; see ``positions``."""
        return self._view("velocities")

    @property
    def ids(self) -> np.ndarray:
        """(count,) uint32 read-only view: ids in ascending order."""
        return self._view("ids")

    @property
    def kinds(self) -> np.ndarray:
        """(count,) uint8 read-only view: 0 boid, 1 predator, 2 leader."""
        return self._view("kinds")

    def _no_views(self, what: str) -> None:
        alive = len(self._guards)
        if alive:
            raise BufferError(
                f"{what}: {alive} numpy view(s) of this world are still alive and would point "
                f"at freed memory; delete them or keep .copy() instead")

    # Changes ----------------------------------------------------------------------------
    def set_state(self, positions: Any, velocities: Any) -> None:
        """Replaces every boid's position and velocity ((count, dims) arrays, id order)."""
        p = np.array(positions, dtype=np.float64, copy=True) if not isinstance(
            positions, np.ndarray) else positions
        v = np.array(velocities, dtype=np.float64, copy=True) if not isinstance(
            velocities, np.ndarray) else velocities
        p, v = np.array(p, copy=True), np.array(v, copy=True)  # detach from our own views
        del positions, velocities
        with self._lock:
            self._no_views("set_state")
            self._w.set_state(p, v)

    def add(self, count: Optional[int] = None, *, positions: Any = None, velocities: Any = None,
            kind: int = 0) -> np.ndarray:
        """Adds boids: ``count`` seeded ones, or the given (m, dims) rows. Returns their ids."""
        with self._lock:
            self._no_views("add")
            if positions is None:
                if count is None or int(count) < 0:
                    raise ValueError("add: give a count >= 0 or positions and velocities")
                first = self._w.add_seeded(int(count), int(kind))
                m = int(count)
            else:
                if velocities is None:
                    raise ValueError("add: positions need velocities of the same shape")
                p, v = np.asarray(positions), np.asarray(velocities)
                first = self._w.add_rows(p, v, int(kind))
                m = p.shape[0]
            return np.arange(first, first + m, dtype=np.uint32)

    def remove(self, ids: Iterable[int]) -> None:
        """Removes the boids with these ids (ValueError, removing none, if one is unknown)."""
        a = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids)
        if a.size and (a.dtype.kind not in "iu" or a.min() < 0 or a.max() > 0xFFFFFFFF):
            raise ValueError("remove: ids must be integers in [0, 2^32)")
        with self._lock:
            self._no_views("remove")
            self._w.remove(a.astype(np.uint32))

    def save(self, path: PathLike) -> None:
        """Writes a snapshot (the same format as ``boids run --save``), atomically."""
        p = os.fspath(path)
        d = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(d):
            raise FileNotFoundError(2, f"{p}: directory {d} does not exist", p)
        with self._lock:
            try:
                self._w.save(p)
            except ValueError as e:
                raise OSError(str(e)) from None

    def metrics(self, kind: int = 0) -> dict:
        """The flock metrics of one kind now (docs/metrics.md): polarization, milling,
        mean_speed, mean_nnd, mean_neighbours, clusters, largest_cluster, plus count and
        moving. Bit-identical to `boids run --metrics` at the same step; releases the GIL."""
        with self._lock:
            return self._w.metrics(int(kind))

    # Read-only facts --------------------------------------------------------------------
    @property
    def count(self) -> int:
        return self._w.count

    def __len__(self) -> int:
        return self._w.count

    @property
    def step_count(self) -> int:
        return self._w.step_count

    @property
    def time(self) -> float:
        return self._w.time

    @property
    def dims(self) -> int:
        return self._w.dims

    @property
    def dtype(self) -> np.dtype:
        return self._w.dtype

    @property
    def next_id(self) -> int:
        return self._w.next_id

    @property
    def kernel(self) -> str:
        """The kernel stepping this world: "naive", or the grid engine's instruction set."""
        return self._w.kernel

    @property
    def state_hash(self) -> int:
        """FNV-1a 64 hash of the exact state bytes in id order (equal to the C++ one)."""
        return self._w.state_hash

    @property
    def scenario_text(self) -> str:
        """The world's definition as scenario TOML (what snapshots store)."""
        return self._w.scenario_text

    def __repr__(self) -> str:
        if not hasattr(self, "_w"):
            return "<boids.World (not created)>"
        return (f"<boids.World {self.dims}D count={self.count} step={self.step_count} "
                f"{np.dtype(self.dtype).name} kernel={self.kernel}>")
