"""Builds the compiled module boids._boids with the project's own CMake build.

pip (with --no-build-isolation, on Debian's setuptools) calls this through pyproject.toml;
the C++ library, the module and their flags come from CMakeLists.txt with BOIDS_PYTHON=ON
and everything else (tests, bench, viewer, programs) off. BOIDS_CMAKE_ARGS adds arguments;
BOIDS_JOBS sets the parallel build jobs (default 2). BOIDS_CMAKE_BUILD_DIR names an existing
CMake build tree configured with BOIDS_PYTHON=ON for the same interpreter (scripts/test.sh passes
its Release tree): the module is built there, usually a no-op, and copied, instead of compiling
the library a second time.
"""
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        out = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        jobs = os.environ.get("BOIDS_JOBS", "2")
        reuse = os.environ.get("BOIDS_CMAKE_BUILD_DIR")
        if reuse:
            reuse = os.path.abspath(reuse)
            subprocess.run(["cmake", "--build", reuse, "-j", jobs, "--target", "boids_python"],
                           check=True)
            shutil.copytree(os.path.join(reuse, "python", "boids"), out, dirs_exist_ok=True)
            return
        build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build, exist_ok=True)
        args = [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DBOIDS_PYTHON=ON",
            "-DBOIDS_BUILD_TESTS=OFF",
            "-DBOIDS_BUILD_BENCH=OFF",
            "-DBOIDS_BUILD_CLI=OFF",
            "-DBOIDS_BUILD_VIEWER=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DBOIDS_PYTHON_DIR={out}",
        ] + shlex.split(os.environ.get("BOIDS_CMAKE_ARGS", ""))
        subprocess.run(["cmake", "-S", ROOT, "-B", build] + args, check=True)
        subprocess.run(["cmake", "--build", build, "-j", jobs, "--target", "boids_python"],
                       check=True)


setup(ext_modules=[CMakeExtension("boids._boids")], cmdclass={"build_ext": CMakeBuild})
