"""Where things are (the repository, the shared rulebook and vectors, where tests keep
artifacts) and ``require_tool``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("STUD_SHARED", REPO.parent / "shared"))
CONFORMANCE_DIR = SHARED / "conformance"
RULEBOOK = SHARED / "rules" / "stud-rules.md"
IN_CI = os.environ.get("CI", "").lower() == "true"
#: What tests keep for people to look at (screenshots): build/ (gitignored), or STUD_ARTIFACTS.
ARTIFACTS = Path(os.environ.get("STUD_ARTIFACTS", REPO / "build" / "test-artifacts"))


def require_tool(name: str, how_to_install: str) -> str:
    """Path of a non-Python tool; skip outside CI when missing, fail under CI=true."""
    path = shutil.which(name)
    if path is None:
        for candidate in (REPO / ".tools" / "bin" / name, REPO / "node_modules" / ".bin" / name):
            if candidate.exists():
                return str(candidate)
        message = f"{name} is not installed: {how_to_install}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return path
