"""Build of the C evaluator extension only; everything else is in pyproject.toml.

``pip install .`` and ``pip install -e .`` compile ``studengine.evaluator._ceval``
with the system C compiler and the Python headers. The extension is optional: if it
cannot be built the package still installs and runs on the pure-Python twin.
"""

from setuptools import Extension, setup

EVALUATOR = "service/studengine/evaluator"

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
