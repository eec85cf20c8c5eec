"""What this server is built from: its version and those of the libraries it serves with.

``stud-server --version`` prints them; the ``stud_build_info`` metric carries them as labels.
Read from the installed distributions' metadata (nothing is imported but the evaluator,
whose backend, C or the pure-Python twin, is decided when it loads), and the engine's
build: ``mypyc`` (its hot modules compiled) or ``python`` (``studengine.compiled``).
"""

from __future__ import annotations

import platform
from importlib import metadata


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


def build_info() -> dict[str, str]:
    """version, python, grpc, protobuf, connectrpc, evaluator (``c`` or ``python``), engine
    (``mypyc`` or ``python``)."""
    from studengine import compiled, evaluator

    return {
        "version": _version("studengine"),
        "python": platform.python_version(),
        "grpc": _version("grpcio"),
        "protobuf": _version("protobuf"),
        "connectrpc": _version("connectrpc"),
        "evaluator": evaluator.BACKEND,
        "engine": compiled.BUILD,
    }


def version_text() -> str:
    """``stud-server 0.1.0 (python 3.11.2, grpc 1.62.0, ..., evaluator c, engine mypyc)``."""
    info = build_info()
    rest = ", ".join(f"{name} {value}" for name, value in info.items() if name != "version")
    return f"stud-server {info['version']} ({rest})"
