"""``poll_until``: the one way a test waits for something it cannot be told about (a
metric, a log line, a page): ask again every ``interval`` seconds until it holds, and fail
the test, naming what was awaited and the last answer, once ``timeout`` seconds pass.

A bound is never a claim about speed: it only keeps a broken run from hanging."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def poll_until(
    check: Callable[[], T], what: str, timeout: float = 60.0, interval: float = 0.05
) -> T:
    """``check()``'s first truthy answer; the test fails if none comes within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        last = check()
        if last:
            return last
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what} (last: {last!r})")
        time.sleep(interval)
