"""The size limits of the developers' guide, kept by a test: no source file over
``MAX_FILE_LINES`` lines, and no function over ``MAX_FUNCTION_LINES`` lines in the API
(``service/studengine/api``) and the rules engine (``service/studengine/rules``).

Source files are the repository's own code (Python, C, TypeScript, Go) as git would
track it: generated code, vendored packages and virtualenvs are left out."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import REPO

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 60
SOURCE_SUFFIXES = {".py", ".pyi", ".c", ".h", ".ts", ".go", ".js", ".mjs"}
SOURCE_ROOTS = ("service", "clients", "tests", "benchmarks", "deploy", "proto")
# generated, vendored or built: not ours to size (see .gitignore)
SKIPPED_PARTS = {"node_modules", "_gen", "gen", "stud_api", "build", "dist", "__pycache__"}
FUNCTION_PACKAGES = ("service/studengine/api", "service/studengine/rules")


def source_files() -> Iterator[Path]:
    for root in SOURCE_ROOTS:
        for folder, dirs, files in os.walk(REPO / root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_PARTS and not d.startswith("."))
            for name in sorted(files):
                if Path(name).suffix in SOURCE_SUFFIXES:
                    yield Path(folder) / name


def long_functions(path: Path, most: int) -> list[str]:
    """``name (lines)`` of each function of ``path`` longer than ``most`` lines, with
    its decorators and docstring (nested functions are counted on their own too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            size = (node.end_lineno or node.lineno) - first + 1
            if size > most:
                found.append(f"{node.name} ({size} lines, line {node.lineno})")
    return found


def test_the_scan_sees_the_sources() -> None:
    files = {p.relative_to(REPO).as_posix() for p in source_files()}
    assert "service/studengine/rules/hand.py" in files
    assert "service/studengine/evaluator/_ceval.c" in files
    assert not any("/_gen/" in f or "node_modules" in f for f in files)


def test_no_source_file_is_over_the_limit() -> None:
    over = []
    for path in source_files():
        lines = len(path.read_text(errors="replace").splitlines())
        if lines > MAX_FILE_LINES:
            over.append(f"{path.relative_to(REPO)}: {lines} lines")
    assert not over, f"over {MAX_FILE_LINES} lines: " + "; ".join(over)


@pytest.mark.parametrize("package", FUNCTION_PACKAGES)
def test_no_function_is_over_the_limit_in_the_api_and_the_rules(package: str) -> None:
    modules = sorted((REPO / package).glob("*.py"))
    assert modules
    over = {str(p.relative_to(REPO)): long_functions(p, MAX_FUNCTION_LINES) for p in modules}
    over = {path: names for path, names in over.items() if names}
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines: {over}"


def test_the_function_check_can_fail(tmp_path: Path) -> None:
    body = "\n".join(f"    x = {n}" for n in range(MAX_FUNCTION_LINES))
    module = tmp_path / "long.py"
    module.write_text(f"def short():\n    return 1\n\n\ndef long():\n{body}\n")
    assert long_functions(module, MAX_FUNCTION_LINES) == ["long (61 lines, line 5)"]
