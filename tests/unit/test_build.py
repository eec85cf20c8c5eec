"""The engine's two builds (issue 22): the hot modules compiled by mypyc (setup.py), or
their ``.py`` sources. ``make unit`` runs the engine's tests on both: the compiled build,
then ``make unit-pure`` (``STUDENGINE_PURE=1``). Under CI the compiled one must be built."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.metadata
import os
import subprocess
import sys

import pytest
from studengine import compiled
from studengine.server.buildinfo import build_info, version_text
from support.paths import IN_CI, REPO

FORCED_PURE = os.environ.get(compiled.PURE_SWITCH, "") not in ("", "0")


def setup_modules() -> list[str]:
    """The modules setup.py's COMPILED names."""
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            paths = ast.literal_eval(node.value)
            return [path.removesuffix(".py").replace("/", ".") for path in paths]
    raise AssertionError("setup.py has no COMPILED list")


def is_extension(name: str) -> bool:
    origin = str(importlib.import_module(name).__file__)
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def test_the_build_compiled_what_setup_lists() -> None:
    library, recorded = compiled.recorded()
    if not recorded:
        message = "a pure-Python build: `make venv` compiles the engine (needs mypy and gcc)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    assert sorted(recorded) == sorted(setup_modules())
    assert not compiled.changed(library, recorded), "make rebuilds the compiled modules"
    assert compiled.librt_needed(), "the build names the librt it was compiled with"
    assert compiled.librt_problem(compiled.librt_needed()) == ""


def test_the_modules_run_as_the_build_says() -> None:
    """All compiled, or (STUDENGINE_PURE, or no compiled build) all from their sources:
    never a mix; ``stud_build_info`` and ``--version`` name the one that runs."""
    modules = setup_modules()
    if FORCED_PURE or not compiled.recorded()[1]:
        assert compiled.BUILD == "python"
        assert not any(map(is_extension, modules))
    else:
        assert compiled.BUILD == "mypyc"
        assert all(map(is_extension, modules))
    assert build_info()["engine"] == compiled.BUILD
    assert version_text().endswith(f"engine {compiled.BUILD})")


def test_the_pure_switch_runs_the_sources_in_a_fresh_process() -> None:
    probe = (
        "import studengine.rules.hand as hand, studengine.cards as cards\n"
        "from studengine.server.buildinfo import build_info\n"
        "print(build_info()['engine'], hand.__file__, cards.__file__)"
    )
    env = {**os.environ, compiled.PURE_SWITCH: "1"}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == "python"
    assert out[1].endswith("rules/hand.py") and out[2].endswith("studengine/cards.py")


def test_a_changed_source_is_not_run_compiled() -> None:
    """A module whose source no longer has the compiled hash (an edit in an editable
    checkout), or whose build has no shared library (it did not compile), is reported,
    and the hook finds its ``.py`` file."""
    library, recorded = compiled.recorded()
    stale = {"studengine.cards": "0" * 64}
    assert compiled.changed(library, stale) == ["studengine.cards"]
    if recorded:
        assert compiled.changed("no-such__mypyc", recorded) == list(recorded)
    finder = compiled.SourceFinder(frozenset({"studengine.cards"}))
    spec = finder.find_spec("studengine.cards", None)
    assert spec is not None and str(spec.origin).endswith("studengine/cards.py")
    assert finder.find_spec("studengine.server.main", None) is None


def test_a_librt_missing_or_older_than_the_builds_is_named() -> None:
    """``choose`` runs the sources, with this as its warning, when the compiled build's
    librt cannot be had (a compiled module would fail to import)."""
    assert compiled.librt_problem("") == ""  # a pure build needs none
    assert compiled.release("0.17.0rc1") == (0, 17, 0)
    assert compiled.release("0.9") < compiled.release("0.17.0")
    found = importlib.metadata.version("librt")
    assert compiled.librt_problem(found) == ""
    assert compiled.librt_problem("0") == ""  # a build that found no librt: any will do
    problem = compiled.librt_problem("999.0")
    assert problem == f"librt {found} is older than the 999.0 it was built with"
