"""Opens the XDMF file of an H5MD recording in ParaView's own Python and checks what it shows.

Run with pvpython (Debian's paraview and python3-paraview packages):

    pvpython --force-offscreen-rendering tests/h5md/pvpython_check.py run.xdmf \
        [--frames F] [--points N] [--times T0,T1,...]

Prints the number of time steps, the points and point arrays of the first and last frame,
and exits 1 (with one line saying what differs) when a given expectation does not hold, or
when a frame lacks the velocity, id or kind array. ctest runs it through
tests/h5md/paraview_check.py (h5md_paraview, skipped when pvpython is not installed).
"""
import argparse
import os
import sys

from paraview import servermanager
from paraview.simple import OpenDataFile

ap = argparse.ArgumentParser()
ap.add_argument("xdmf")
ap.add_argument("--frames", type=int, help="expected number of time steps")
ap.add_argument("--points", type=int, help="expected number of points in every frame")
ap.add_argument("--times", help="expected times, comma-separated (compared to 1e-9)")
args = ap.parse_args()

# ParaView 5.11's XDMF reader joins a bare file name with the HDF5 name wrongly
# ("run.xdmfrun.h5"): give it an absolute path.
reader = OpenDataFile(os.path.abspath(args.xdmf))
if reader is None:
    sys.exit(f"paraview: {args.xdmf}: no reader opens it")
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues)
print(f"paraview: {reader.GetXMLName()} reads {args.xdmf}: {len(times)} time steps "
      f"{times[:4]}{' ...' if len(times) > 4 else ''}")


def fail(what):
    print(f"paraview: FAIL: {what}")
    sys.exit(1)


if args.frames is not None and len(times) != args.frames:
    fail(f"{len(times)} time steps, expected {args.frames}")
if args.times:
    want = [float(t) for t in args.times.split(",")]
    if len(want) != len(times) or any(abs(a - b) > 1e-9 for a, b in zip(times, want)):
        fail(f"times {times}, expected {want}")
for label, t in (("first", times[0]), ("last", times[-1])):
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    block = data.GetBlock(0) if data.IsA("vtkMultiBlockDataSet") else data
    pd = block.GetPointData()
    arrays = {pd.GetArrayName(i): pd.GetArray(i) for i in range(pd.GetNumberOfArrays())}
    n = block.GetNumberOfPoints()
    print(f"paraview: {label} frame (t = {t:g}): {n} points, arrays {sorted(arrays)}")
    if args.points is not None and n != args.points:
        fail(f"{label} frame has {n} points, expected {args.points}")
    for name, comps in (("velocity", 3), ("id", 1), ("kind", 1)):
        a = arrays.get(name)
        if a is None:
            fail(f"{label} frame has no point array '{name}'")
        if a.GetNumberOfComponents() != comps or a.GetNumberOfTuples() != n:
            fail(f"{label} frame: '{name}' is {a.GetNumberOfTuples()} x "
                 f"{a.GetNumberOfComponents()}, expected {n} x {comps}")
    ids = arrays["id"]
    got = sorted(int(ids.GetTuple1(i)) for i in range(n))
    if got != sorted(set(got)):
        fail(f"{label} frame: ids repeat")
print("paraview: ok")
