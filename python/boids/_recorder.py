"""Trajectory recording from Python: ``World.record(path, every=K)`` (docs/python.md).

The frames and the file are written by the C++ ``boids::Recorder`` (boids/io.hpp), the same
code as ``boids run --record``; this layer only decides when a frame is taken, with the CLI's
cadence: the state when recording starts, then every ``every`` steps counted from there, and
on ``close()`` the last state when it was not just recorded. So a recording made from Python
is byte-identical to the program's for the same world and steps.
"""
from __future__ import annotations

import os
from typing import Any

from . import _boids


class Recorder:
    """An open recording of one World; obtain it with ``World.record``.

    Nothing appears at ``path`` until ``close()`` renames the finished file into place; a
    recording that is abandoned (``abandon()``, an exception inside ``with``, or garbage
    collected unclosed) leaves no file behind. ``.csv`` paths give a CSV table
    (step,id,x,y[,z],vx,vy[,vz],kind), any other path the binary BOIDSREC format.
    """

    def __init__(self, world: Any, path: str, every: int) -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"record: every must be an integer >= 1, got {every!r}")
        p = os.fspath(path)
        d = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(d):
            raise FileNotFoundError(2, f"{p}: directory {d} does not exist", p)
        if os.path.isdir(p):
            raise IsADirectoryError(21, f"{p}: is a directory, not a file", p)
        try:
            self._r = _boids.Recorder(p, world._w, every)
        except ValueError as e:
            raise OSError(str(e)) from None
        self._world = world
        self._path = p
        self._every = every
        self._start = world._w.step_count
        self._last = -1
        self._frame()

    # Called by World.step with the world's lock held. -----------------------------------
    def _frame(self) -> None:
        self._r.frame(self._world._w)
        self._last = self._world._w.step_count

    def _steps_to_next(self) -> int:
        return self._every - (self._world._w.step_count - self._start) % self._every

    def _after_step(self) -> None:
        if (self._world._w.step_count - self._start) % self._every == 0:
            self._frame()

    # Public. ----------------------------------------------------------------------------
    @property
    def path(self) -> str:
        return self._path

    @property
    def every(self) -> int:
        return self._every

    @property
    def frames(self) -> int:
        """Frames written so far."""
        return 0 if self._r is None else self._r.frames

    @property
    def closed(self) -> bool:
        return self._r is None or self._r.finished

    def close(self) -> None:
        """Records the current state unless it was just recorded, then finishes the file
        (flushed and renamed into place). Calling it again does nothing."""
        with self._world._lock:
            if self.closed:
                return
            if self._world._w.step_count != self._last:
                self._frame()
            self._world._recorders.remove(self)
            try:
                self._r.finish()
            except ValueError as e:
                raise OSError(str(e)) from None

    def abandon(self) -> None:
        """Stops recording and leaves no file behind."""
        with self._world._lock:
            if self in self._world._recorders:
                self._world._recorders.remove(self)
            self._r = None

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abandon()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<boids.Recorder {self._path!r} every={self._every} frames={self.frames} {state}>"
