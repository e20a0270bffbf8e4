"""setuptools driving CMake: the extension stepstat._stepstat is the CMake target
stepstat_python, built with the Python that runs this (see pyproject.toml).
STEPSTAT_CMAKE_ARGS adds CMake arguments (a compiler launcher, say)."""

import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        package_dir = os.path.dirname(os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name))))
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        subprocess.check_call([
            "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
            "-DSTEPSTAT_TESTS=OFF", "-DSTEPSTAT_BENCHMARKS=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DSTEPSTAT_PYTHON_PACKAGE_DIR={package_dir}",
            *shlex.split(os.environ.get("STEPSTAT_CMAKE_ARGS", "")),
        ])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "stepstat_python",
                               "-j", str(os.cpu_count() or 1)])


setup(ext_modules=[Extension("stepstat._stepstat", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
