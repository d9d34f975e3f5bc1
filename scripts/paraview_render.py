"""Renders the last frame of a recording's XDMF file in ParaView as Point Gaussians.

    xvfb-run -a -s "-screen 0 1280x1024x24" pvpython scripts/paraview_render.py run.xdmf out.png \
        [--size 1000x750] [--radius R] [--frame K] [--range LO,HI] [--shader PRESET]

Boids are Gaussian splats coloured by speed (the magnitude of `velocity`, Viridis);
predators and leaders (`kind` >= 1) are drawn again, three times larger, in red. The camera
looks at the box from a corner. Run with ParaView's own Python (Debian: apt-get install
paraview python3-paraview; not part of scripts/setup.sh). docs/formats.md shows the result.
"""
import argparse
import os
import sys

from paraview.simple import (ColorBy, GetColorTransferFunction, OpenDataFile, Render,
                             SaveScreenshot, Show, Threshold, CreateView)

ap = argparse.ArgumentParser()
ap.add_argument("xdmf")
ap.add_argument("png")
ap.add_argument("--size", default="1000x750")
ap.add_argument("--radius", type=float, default=0.0, help="splat radius (default: box / 600)")
ap.add_argument("--frame", type=int, default=-1, help="frame index (default: the last)")
ap.add_argument("--shader", default="Sphere", help="Point Gaussian shader preset")
ap.add_argument("--range", help="speed range of the colour scale, LO,HI (default: the data's)")
args = ap.parse_args()
w, h = (int(v) for v in args.size.split("x"))

# ParaView 5.11's XDMF reader mis-joins a bare relative name with the HDF5 file's: absolute.
reader = OpenDataFile(os.path.abspath(args.xdmf))
if reader is None:
    sys.exit(f"{args.xdmf}: ParaView has no reader for it")
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues) or [0.0]
t = times[args.frame]
reader.UpdatePipeline(t)
bounds = reader.GetDataInformation().GetBounds()
size = max(bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4])
npoints = reader.GetDataInformation().GetNumberOfPoints()
print(f"paraview: {args.xdmf}: frame t = {t:g} of {len(times)}, {npoints} points, box {size:g}")

view = CreateView("RenderView")
view.ViewSize = [w, h]
view.ViewTime = t
view.Background = [0.04, 0.04, 0.06]
try:  # ParaView >= 5.10 keeps the background in a palette unless told otherwise
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
view.OrientationAxesVisibility = 0


def kinds(lo, hi):
    """The points whose kind lies in [lo, hi]."""
    t = Threshold(Input=reader)
    t.Scalars = ["POINTS", "kind"]
    try:
        t.LowerThreshold, t.UpperThreshold = lo, hi
    except AttributeError:  # older ParaView
        t.ThresholdRange = [lo, hi]
    return t


radius = args.radius or size / 600.0
flock = Show(kinds(-0.5, 0.5), view)  # the boids: colour scale from their own speeds
flock.SetRepresentationType("Point Gaussian")
flock.GaussianRadius = radius
flock.ShaderPreset = args.shader
ColorBy(flock, ("POINTS", "velocity", "Magnitude"))
lut = GetColorTransferFunction("velocity")
lut.ApplyPreset("Viridis (matplotlib)", True)
if args.range:
    lo, hi = (float(v) for v in args.range.split(","))
    lut.RescaleTransferFunction(lo, hi)
    lut.AutomaticRescaleRangeMode = "Never"
else:
    flock.RescaleTransferFunctionToDataRange(True, False)
flock.SetScalarBarVisibility(view, True)

hunters = kinds(0.5, 2.5)  # predators and leaders
special = Show(hunters, view)
special.SetRepresentationType("Point Gaussian")
special.GaussianRadius = 3 * radius
ColorBy(special, None)
special.AmbientColor = special.DiffuseColor = [0.95, 0.15, 0.1]

view.ResetCamera()
cam = view.GetActiveCamera()
cam.Azimuth(35)
cam.Elevation(25)
view.ResetCamera()
cam.Dolly(1.15)
Render(view)
SaveScreenshot(args.png, view, ImageResolution=[w, h])
print(f"paraview: wrote {args.png} ({os.path.getsize(args.png)} bytes)")
