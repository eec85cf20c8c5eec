"""The layer contracts in pyproject.toml (``lint-imports``, run by ``make lint``) are a
real check: on a copy of the packages, each forbidden import added makes it fail, naming
the broken contract, and the untouched copy passes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = {
    "studengine": REPO / "service" / "studengine",
    "studclients": REPO / "clients" / "python" / "studclients",
    "stud_api": REPO / "proto" / "python" / "stud_api",
}


def copy_tree(tmp: Path) -> Path:
    for name, source in PACKAGES.items():
        shutil.copytree(source, tmp / name, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def add_line(path: Path, line: str) -> None:
    """Put ``line`` after the module's ``from __future__`` import (or at the top)."""
    text = path.read_text()
    marker = "from __future__ import annotations\n"
    assert marker in text, path
    path.write_text(text.replace(marker, marker + line + "\n", 1))


def test_the_packages_as_they_are_keep_every_contract(tmp_path: Path) -> None:
    done = lint_imports(copy_tree(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("studengine/rules/types.py", "import grpc", "Pure core"),
        ("studengine/rules/pots.py", "from google.protobuf import message", "Pure core"),
        ("studengine/state/codec.py", "import studengine.api.views", "Layers (top down)"),
        ("studengine/history/phh.py", "from google.protobuf import message", "Pure core"),
        ("studengine/history/reader.py", "import studengine.state.codec", "Layers (top down)"),
        ("studengine/rules/hand.py", "import studengine.equity", "Layers (top down)"),
        ("studengine/history/phh.py", "import studengine.equity", "Layers (top down)"),
        ("studengine/api/views.py", "from studengine.server import config", "Layers (top down)"),
        ("studengine/server/supervisor.py", "import grpc", "The supervisor imports no gRPC"),
        ("studclients/bots.py", "import studengine.cards", "The clients use the public API"),
        ("studclients/engine.py", "import aiohttp", "stud-play, stud-load and their parts"),
        ("studclients/play.py", "import studclients.table.store", "stud-play, stud-load"),
        ("studengine/api/calls.py", "import studclients.engine", "The server never imports"),
    ],
)
def test_a_forbidden_import_fails_lint(tmp_path: Path, module: str, line: str, broken: str) -> None:
    root = copy_tree(tmp_path)
    add_line(root / module, line)
    done = lint_imports(root)
    assert done.returncode != 0, done.stdout
    broken_lines = [text for text in done.stdout.splitlines() if text.endswith("BROKEN")]
    assert any(text.startswith(broken) for text in broken_lines), done.stdout
    assert module.removesuffix(".py").replace("/", ".") in done.stdout


def test_an_import_circle_in_the_clients_fails_lint(tmp_path: Path) -> None:
    """recovery.py was Tables' methods in another file, importing game back (issue 30):
    game imports recovery, so that import closes a circle."""
    root = copy_tree(tmp_path)
    add_line(root / "studclients/table/recovery.py", "import studclients.table.game")
    done = lint_imports(root)
    assert done.returncode != 0, done.stdout
    assert "clients: no import cycles between their modules BROKEN" in done.stdout
    assert ".recovery -> .game" in done.stdout
