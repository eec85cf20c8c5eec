"""Conformance vectors this branch's engine does not pass yet, in one place.

None today: every public vector must pass, in-process and through a live server. A
vector marked here is expected to fail, strictly (an unexpected pass fails the suite,
so a mark goes as soon as the work that fixes it lands).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

# vector name pattern (fnmatch) -> the issue that makes it pass
KNOWN_FAILING: dict[str, str] = {}


def known_failure(name: str) -> str | None:
    """The issue that fixes vector ``name``, or None if it must pass here."""
    for pattern, issue in KNOWN_FAILING.items():
        if fnmatch(name, pattern):
            return issue
    return None


def vector_params(paths: Sequence[Path]) -> list[Any]:
    """``pytest.param`` per vector file, the known failures marked ``xfail`` (strict)."""
    params = []
    for path in paths:
        issue = known_failure(path.stem)
        marks = [pytest.mark.xfail(reason=issue, strict=True)] if issue else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def check_command_output(stdout: str, total: int) -> None:
    """``stud-conformance``'s report: every vector played, no failure but known ones."""
    lines = stdout.strip().splitlines()
    summary = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1])
    assert summary, stdout
    assert int(summary[1]) + int(summary[2]) == total, stdout
    failed = [line.split()[1].rstrip(":") for line in lines if line.startswith("FAIL ")]
    assert len(failed) == int(summary[2]), stdout
    unexpected = [name for name in failed if known_failure(name) is None]
    assert not unexpected, stdout
