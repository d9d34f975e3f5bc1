"""``boids.sweep``: the ``boids sweep`` command from Python (docs/metrics.md, "Sweeps").

Every combination of the varied values runs ``repeats`` times with seeds seed, seed+1, ...
(seed: the scenario's, after the overrides); each run samples the flock metrics at steps
M, M+e, ... and S and reports each metric's mean and standard deviation over those samples.
The plan of Python values is made here; the runs, the sampling and the arithmetic are the
library's ``boids::run_sweep`` (include/boids/sweep.hpp), the program's own code, so the
numbers are bit-identical to the columns of ``boids sweep --out`` for the same arguments, for
any thread count.
"""
from __future__ import annotations

import math
import os
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

from . import _boids

METRICS = ("polarization", "milling", "mean_speed", "mean_nnd", "mean_neighbours", "clusters",
           "largest_cluster")


def _values(key: str, spec: Union[str, Sequence[Any], np.ndarray]) -> list:
    """The values of one varied key: a sequence, or the CLI's "FROM:TO:COUNT" / "a,b,c"."""
    if isinstance(spec, str):
        if ":" in spec:
            parts = spec.split(":")
            try:
                lo, hi, n = (float(x) for x in parts)
            except ValueError:
                raise ValueError(f"vary {key}={spec}: expected FROM:TO:COUNT with numbers") \
                    from None
            if len(parts) != 3 or not all(map(math.isfinite, (lo, hi, n))):
                raise ValueError(f"vary {key}={spec}: expected FROM:TO:COUNT with numbers")
            if n < 1 or n != math.floor(n) or n > 100000:
                raise ValueError(f"vary {key}={spec}: COUNT must be a whole number from 1 to "
                                 "100000")
            c = int(n)
            # The program's arithmetic: ends exact, from + (to - from) * i / (n - 1) between.
            xs = [lo if c == 1 else (hi if i == c - 1 else lo + (hi - lo) * i / (c - 1))
                  for i in range(c)]
            # The program writes each value in its shortest form, so 100.0 is the TOML
            # integer 100 (which integer keys need); keep that.
            return [int(x) if x.is_integer() and abs(x) < 2.0**53 else x for x in xs]
        items = spec.split(",")
        if any(not x for x in items):
            raise ValueError(f"vary {key}={spec}: empty value in the list")
        return [_parse_scalar(x) for x in items]
    vals = list(np.asarray(spec).tolist()) if isinstance(spec, np.ndarray) else list(spec)
    if not vals:
        raise ValueError(f"vary {key}: no values")
    return vals


def _parse_scalar(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text.strip('"')


def _base_seed(scenario: Optional[str], sets: list) -> int:
    if scenario is None:
        return _boids.scenario_seed(_boids.default_scenario_text(),
                                    "<built-in default scenario>", sets, False)
    return _boids.scenario_seed("", scenario, sets, True)


def sweep(vary: Mapping[str, Union[str, Sequence[Any], np.ndarray]], *,
          scenario: Optional[Union[str, "os.PathLike[str]"]] = None,
          overrides: Optional[Mapping[str, Any]] = None, repeats: int = 1, steps: int = 1000,
          measure_from: int = 0, measure_every: int = 1, kind: int = 0, threads: int = 0,
          **keywords: Any) -> dict:
    """Runs a scenario over a grid of parameter values and seeds; returns the metrics.

    ``vary`` maps scenario keys to their values: a sequence (``{"rules.noise": [0.5, 1, 2]}``)
    or the program's text forms ``"FROM:TO:COUNT"`` and ``"a,b,c"``. ``scenario``,
    ``overrides`` and keywords are as for ``World`` (fixed for every run). Arguments mirror
    ``boids sweep``: ``repeats`` runs per combination with seeds seed, seed+1, ...; ``steps``
    S per run; the metrics of boids of ``kind`` are sampled at steps ``measure_from`` M,
    M + ``measure_every``, ... and S. ``threads`` (0 = all cores) runs several worlds at once,
    one thread each (or, with fewer runs than threads, one world at a time on every thread),
    as the program does; results do not depend on it.

    Returns a dict of numpy columns in the program's row order (first varied key slowest,
    repeat fastest): each varied key, ``repeat``, ``seed``, then ``<metric>_mean`` and
    ``<metric>_std`` for polarization, milling, mean_speed, mean_nnd, mean_neighbours,
    clusters and largest_cluster. ``pandas.DataFrame(result)`` makes a table of it.
    Bad arguments raise ValueError before any run starts.
    """
    from . import _overrides, _check_readable, _toml_value  # the World's override handling

    if not vary:
        raise ValueError("vary: give at least one key with its values")
    for name, v, lo in (("repeats", repeats, 1), ("steps", steps, 0),
                        ("measure_from", measure_from, 0), ("measure_every", measure_every, 1),
                        ("threads", threads, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name}: expected an integer >= {lo}, got {v!r}")
    if kind not in (0, 1, 2):
        raise ValueError(f"kind: must be 0 (boid), 1 (predator) or 2 (leader), got {kind!r}")
    if measure_from > steps:
        raise ValueError(f"measure_from: must be <= steps ({steps}), got {measure_from}")
    keys = set(_boids.scenario_keys())
    plan = []
    for key, spec in vary.items():
        if key not in keys:
            raise ValueError(f"vary {key}: unknown scenario key {key}")
        plan.append((key, _values(key, spec)))
    path = None
    if scenario is not None:
        path = os.fspath(scenario)
        _check_readable(path)
    fixed = _overrides(overrides, keywords)
    base = _base_seed(path, fixed)

    combos = [[]]
    for key, vals in plan:
        combos = [c + [v] for c in combos for v in vals]
    jobs = [(c, r, base + r) for c in combos for r in range(repeats)]
    # Every combination is checked before the first run (the program does the same).
    for c, r, seed in jobs:
        if r == 0:
            sets = fixed + [f"{k}={_toml_value(v, k)}" for (k, _), v in zip(plan, c)]
            _base_seed(path, sets)

    # The runs are the library's (boids::run_sweep): the same worlds, sampling and arithmetic
    # as the program, spread over the threads, with the GIL released.
    keys = [key for key, _ in plan]
    texts = [[_toml_value(v, key) for v in vals] for key, vals in plan]
    picks: list = [[]]
    for _, vals in plan:  # the order of `jobs`: first key slowest
        picks = [p + [i] for p in picks for i in range(len(vals))]
    job_list = [(p, r, base + r) for p in picks for r in range(repeats)]
    if path is None:
        table = _boids.run_sweep(_boids.default_scenario_text(), "<built-in default scenario>",
                                 False, fixed, keys, texts, job_list, steps, measure_from,
                                 measure_every, kind, threads)
    else:
        table = _boids.run_sweep("", path, True, fixed, keys, texts, job_list, steps,
                                 measure_from, measure_every, kind, threads)

    result: dict = {}
    for k, (key, _) in enumerate(plan):
        result[key] = np.array([c[k] for c, _, _ in jobs])
    result["repeat"] = np.array([r for _, r, _ in jobs], dtype=np.int64)
    result["seed"] = np.array([s for _, _, s in jobs], dtype=np.uint64)
    for i, m in enumerate(METRICS):
        result[m + "_mean"] = table[:, 2 * i].copy()
        result[m + "_std"] = table[:, 2 * i + 1].copy()
    return result
