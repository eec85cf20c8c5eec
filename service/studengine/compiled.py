"""Which engine build runs: the mypyc-compiled hot modules, or their ``.py`` sources.

``setup.py`` compiles the modules it lists with mypyc and records each one's source hash
in ``_mypyc_build.py`` (absent or empty: a pure-Python build). ``choose()``, run by
``studengine/__init__.py`` before any of them is imported, keeps the compiled modules
only when every recorded source is unchanged and ``STUDENGINE_PURE`` is unset; otherwise
an import hook loads all of them from their ``.py`` files (never a mix: compiled modules
expect each other's native classes). An edited source in an editable checkout thus runs
as pure Python, with a warning, until the next build (``make venv``).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

PURE_SWITCH = "STUDENGINE_PURE"  # set (not "" or "0"): run the .py files of a compiled build
PACKAGE_ROOT = Path(__file__).resolve().parent.parent

BUILD = "python"  # "mypyc" once choose() kept the compiled modules


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the named modules' ``.py`` files, ahead of the compiled ones beside them."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


def recorded() -> tuple[str, dict[str, str]]:
    """The build's shared library and its compiled modules with their sources' sha256
    (none: it compiled no module)."""
    try:
        from studengine._mypyc_build import (  # type: ignore[import-not-found,attr-defined,unused-ignore]
            COMPILED,
            LIBRARY,
        )
    except ImportError:
        return "", {}
    return str(LIBRARY), dict(COMPILED)


def source_of(name: str) -> Path:
    return PACKAGE_ROOT.joinpath(*name.split(".")).with_suffix(".py")


def is_built(stem: Path) -> bool:
    return any(stem.with_name(stem.name + suffix).is_file() for suffix in EXTENSION_SUFFIXES)


def changed(library: str, modules: dict[str, str]) -> list[str]:
    """The recorded modules whose source differs from the one compiled, or that did not
    compile (no module beside the source, or no shared library: then all of them)."""
    if not is_built(PACKAGE_ROOT / library):
        return list(modules)
    found = []
    for name, digest in modules.items():
        source = source_of(name)
        built = is_built(source.with_suffix(""))
        if not built or hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            found.append(name)
    return found


def choose() -> str:
    """Keep the compiled build or hook in the sources; returns ``mypyc`` or ``python``."""
    global BUILD
    library, modules = recorded()
    if not modules:
        return BUILD
    stale = changed(library, modules)
    if stale:
        warnings.warn(
            f"studengine: {', '.join(stale)} changed since the compiled build (or did not "
            "compile): running the pure-Python sources (`make venv` rebuilds)",
            RuntimeWarning,
            stacklevel=2,
        )
    if stale or os.environ.get(PURE_SWITCH, "") not in ("", "0"):
        sys.meta_path.insert(0, SourceFinder(frozenset(modules)))
        return BUILD
    BUILD = "mypyc"
    return BUILD
