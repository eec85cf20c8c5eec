"""Evaluator test material shared by the evaluator, low-evaluator, exhaustive and equity
tests: the C extension (or a skip / CI failure without it), stable test ids, bad inputs,
and the literal R-LOW-A5 reference key."""

from __future__ import annotations

import array
import importlib
from collections import Counter
from collections.abc import Sequence
from types import ModuleType

import pytest

from support.paths import IN_CI


def c_extension() -> ModuleType:
    """The C extension; a failure under CI=true, a skip elsewhere, when it is not built."""
    try:
        return importlib.import_module("studengine.evaluator._ceval")
    except ImportError as exc:
        message = f"C evaluator not built ({exc}): run `pip install -e .` (needs gcc)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


def stable_id(value: object) -> str:
    """A test id that is the same in every xdist worker (no object addresses)."""
    text = repr(value)
    return type(value).__name__ if " at 0x" in text else text


BAD_HANDS: list[object] = [
    [0, 1, 2, 3],  # too few
    [0, 1, 2, 3, 4, 5, 6, 7],  # too many
    [],
    [0, 1, 2, 3, 3],  # duplicate
    [10, 20, 30, 40, 50, 10, 11],  # duplicate in seven
    [0, 1, 2, 3, 52],  # out of range
    [0, 1, 2, 3, -1],
    [0, 1, 2, 3, 2**70],
    [0, 1, 2, 3, "As"],
    [0, 1, 2, 3, None],
    5,
    None,
    iter(range(5)),  # an iterator is not a hand: neither backend takes one
]


BAD_BATCHES: list[tuple[object, object]] = [
    (bytes(range(7)), 5),  # length not a multiple
    (bytes(range(6)), 7),
    (bytes(range(8)), 4),  # hand size out of 5..7
    (bytes(range(8)), 8),
    (bytes(range(10)), 0),
    (bytes(range(10)), "5"),
    (bytes([0, 1, 2, 3, 4, 0, 1, 2, 3, 3]), 5),  # duplicate in the second hand
    (bytes([0, 1, 2, 3, 52]), 5),  # out of range
    (bytes([0, 1, 2, 3, 255, 5, 6]), 7),
    ([0, 1, 2, 3, 4], 5),  # not a buffer
    ("abcde", 5),
    (array.array("i", [0, 1, 2, 3, 4]), 5),  # items wider than a byte
    (memoryview(bytes(range(20)))[::2], 5),  # not contiguous
]


def reference_key(five: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """R-LOW-A5 read literally, smaller is better: the shape of the groups (no pair
    (1,1,1,1,1) < one pair (2,1,1,1) < two pair < trips < full house < quads), then the
    ace-to-five ranks (ace 1 .. king 13) of the groups before the kickers, highest
    first. Straights, flushes and suits play no part."""
    counts = Counter((c >> 2) + 2 if c >> 2 != 12 else 1 for c in five)
    order = sorted(counts, key=lambda r: (-counts[r], -r))
    return tuple(counts[r] for r in order), tuple(order)
