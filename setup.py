"""Build of the C evaluator extension only; everything else is in pyproject.toml.

``pip install .`` and ``pip install -e .`` compile ``studengine.evaluator._ceval``
with the system C compiler and the Python headers. The extension is optional: if it
cannot be built the package still installs and runs on the pure-Python twin.
"""

import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup

EVALUATOR = "service/studengine/evaluator"

# The generated internal state schema (gitignored) must exist before the packages are
# collected: a fresh clone built with `pip wheel .` gets it from proto/generate.py here
# (grpcio-tools is a build requirement). `make` regenerates it when the protos change.
HERE = Path(__file__).resolve().parent
if not (HERE / "service/studengine/state/_gen/__init__.py").exists():
    subprocess.check_call([sys.executable, str(HERE / "proto/generate.py")])

setup(
    ext_modules=[
        Extension(
            "studengine.evaluator._ceval",
            sources=[f"{EVALUATOR}/_ceval.c"],
            depends=[f"{EVALUATOR}/eval_core.h", f"{EVALUATOR}/equity_core.h"],
            extra_compile_args=["-O3", "-std=c99", "-Wall", "-Wno-unused-function"],
            optional=True,
        )
    ],
)
