"""All 133,784,560 seven-card hands counted by category in C (``enumerate7.c``, compiled
here with gcc against the evaluator's core header): outside the runtime extension, for
``make bench-eval`` and the slow exhaustive test."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from studengine import evaluator

SOURCE = Path(__file__).resolve().parent / "enumerate7.c"
CORE_DIR = Path(evaluator.__file__).resolve().parent  # eval_core.h


def count_categories_7() -> list[int]:
    """The nine category counts (high card first) over every seven-card hand."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise RuntimeError("no C compiler (gcc or cc) to build enumerate7.c")
    with tempfile.TemporaryDirectory() as directory:
        program = Path(directory) / "enumerate7"
        subprocess.run(
            [gcc, "-O3", "-std=c99", "-I", str(CORE_DIR), str(SOURCE), "-o", str(program)],
            check=True,
        )
        out = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout
    return [int(line) for line in out.split()]
