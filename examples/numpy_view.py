#!/usr/bin/env python3
"""Drive boids from Python through the C API (ctypes) and read positions into numpy without
copying. Needs the shared library: set BOIDS_LIBRARY=/path/to/libboids.so (default: the
system's library search path). Debian: apt install python3-numpy.

The structs below mirror include/boids/boids.h field by field."""
import ctypes as C
import os
import sys

import numpy as np


class RuleDef(C.Structure):
    _fields_ = [(n, C.c_double) for n in
                ("radius", "separation_radius", "view_angle", "separation", "alignment", "cohesion")]


class MotionDef(C.Structure):
    _fields_ = [(n, C.c_double) for n in ("max_speed", "min_speed", "max_force")]


class KindDef(C.Structure):
    _fields_ = [("rules", RuleDef), ("motion", MotionDef)]


TASK = C.CFUNCTYPE(None, C.c_size_t, C.c_size_t, C.c_void_p)
HOST_PARALLEL_FOR = C.CFUNCTYPE(None, TASK, C.c_void_p, C.c_size_t, C.c_size_t, C.c_void_p)


class WorldDef(C.Structure):
    _fields_ = [("dims", C.c_int32), ("size", C.c_double), ("boundary", C.c_int32),
                ("count", C.c_uint32), ("predators", C.c_uint32), ("leaders", C.c_uint32),
                ("seed", C.c_uint64), ("dt", C.c_double),
                ("kinds", KindDef * 3), ("engine", C.c_int32), ("precision", C.c_int32),
                ("threads", C.c_int32), ("simd", C.c_int32), ("cells_per_radius", C.c_int32),
                ("host_parallel_for", C.c_void_p), ("host_context", C.c_void_p),
                ("internal_cookie", C.c_uint32)]


class View(C.Structure):
    _fields_ = [("x", C.c_void_p), ("y", C.c_void_p), ("z", C.c_void_p),
                ("count", C.c_size_t), ("precision", C.c_int32)]


BOIDS_F32, BOIDS_F64 = 0, 1
lib = C.CDLL(os.environ.get("BOIDS_LIBRARY", "libboids.so"))
lib.boids_version.restype = C.c_char_p
lib.boids_last_error.restype = C.c_char_p
lib.boids_default_world_def.restype = WorldDef
World = C.c_void_p  # opaque boids_world*
lib.boids_world_create.argtypes = [C.POINTER(WorldDef), C.POINTER(World)]
lib.boids_world_destroy.argtypes = [World]
lib.boids_world_destroy.restype = None
lib.boids_world_step.argtypes = [World, C.c_int32]
lib.boids_world_count.argtypes = [World, C.POINTER(C.c_size_t)]
lib.boids_world_view_positions.argtypes = [World, C.POINTER(View)]
lib.boids_world_get_positions.argtypes = [World, C.POINTER(C.c_double), C.c_size_t]


def check(status):
    if status != 0:
        raise RuntimeError(lib.boids_last_error().decode())


def view_components(view, dims):
    """The engine's own arrays as numpy arrays: no copy, valid until the world changes."""
    ctype = C.c_float if view.precision == BOIDS_F32 else C.c_double
    ptrs = (view.x, view.y, view.z)[:dims]
    return [np.ctypeslib.as_array(C.cast(p, C.POINTER(ctype)), shape=(view.count,)) for p in ptrs]


def main():
    d = lib.boids_default_world_def()
    d.count = 2000
    d.threads = 2
    d.kinds[0].rules.cohesion = 0.3
    world = World()
    check(lib.boids_world_create(C.byref(d), C.byref(world)))
    try:
        check(lib.boids_world_step(world, 50))
        n = C.c_size_t()
        check(lib.boids_world_count(world, C.byref(n)))
        view = View()
        check(lib.boids_world_view_positions(world, C.byref(view)))
        x, y, z = view_components(view, d.dims)
        assert x.ctypes.data == view.x, "numpy must look at the engine's memory, not a copy"
        # The copying accessor gives the same numbers (interleaved x y z, as doubles).
        copy = np.empty(n.value * 3)
        check(lib.boids_world_get_positions(
            world, copy.ctypes.data_as(C.POINTER(C.c_double)), copy.size))
        assert np.array_equal(copy[0::3], x.astype(np.float64))
        assert np.array_equal(copy[2::3], z.astype(np.float64))
        # Errors come back as status codes with a message.
        assert lib.boids_world_step(world, -1) != 0
        assert "count must be >= 0" in lib.boids_last_error().decode()
        print(f"boids {lib.boids_version().decode()} (python): {n.value} boids, "
              f"mean position ({x.mean():.2f}, {y.mean():.2f}, {z.mean():.2f}), zero-copy {x.dtype}")
    finally:
        lib.boids_world_destroy(world)
    return 0


if __name__ == "__main__":
    sys.exit(main())
