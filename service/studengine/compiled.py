"""Which engine build runs: the mypyc-compiled hot modules, or their ``.py`` sources.

``setup.py`` compiles the modules it lists with mypyc and records each one's source hash
in ``_mypyc_build.py`` (absent or empty: a pure-Python build). ``choose()``, run by
``studengine/__init__.py`` before any of them is imported, keeps the compiled modules
only when every recorded source is unchanged, librt (mypyc's runtime library, whose
``BytesWriter`` the state's encoder writes into) is at least the version the build had,
and ``STUDENGINE_PURE`` is unset; otherwise an import hook loads all of them from their
``.py`` files (never a mix: compiled modules expect each other's native classes). An
edited source in an editable checkout thus runs as pure Python, with a warning, until
the next build (``make venv``); so does a compiled build without its librt.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import re
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


def librt_needed() -> str:
    """The librt version the compiled build was made with ("" for a pure build): a
    compiled module that uses librt imports it when it is imported, and refuses one
    older than its build's (mypyc checks the API version it was compiled against)."""
    try:
        from studengine._mypyc_build import (  # type: ignore[import-not-found,attr-defined,unused-ignore]
            LIBRT,
        )
    except ImportError:
        return ""
    return str(LIBRT)


def release(version: str) -> tuple[int, ...]:
    """A version's release numbers (``0.17.0rc1`` -> (0, 17, 0)), for comparing."""
    found = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(part) for part in found.group().split(".")) if found else ()


def librt_problem(needed: str) -> str:
    """Why the installed librt cannot serve a build made with librt ``needed`` ("" when
    it can, or when the build needs none)."""
    if not needed:
        return ""
    try:
        import librt.strings  # noqa: F401  (what the compiled encoder imports first)

        found = importlib.metadata.version("librt")
    except (ImportError, importlib.metadata.PackageNotFoundError):
        return f"librt (>={needed}) is not installed"
    if release(found) < release(needed):
        return f"librt {found} is older than the {needed} it was built with"
    return ""


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
    forced_pure = os.environ.get(PURE_SWITCH, "") not in ("", "0")
    missing = "" if stale or forced_pure else librt_problem(librt_needed())
    if missing:
        warnings.warn(
            f"studengine: {missing}: running the pure-Python sources, not the compiled "
            f"build (`pip install 'librt>={librt_needed()}'`)",
            RuntimeWarning,
            stacklevel=2,
        )
    if stale or forced_pure or missing:
        sys.meta_path.insert(0, SourceFinder(frozenset(modules)))
        return BUILD
    BUILD = "mypyc"
    return BUILD
