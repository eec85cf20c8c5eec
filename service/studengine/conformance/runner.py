"""The conformance runner: plays a scripted hand (``../shared/conformance/*.json``)
through a ``Driver`` and reports the first difference from what the vector expects.

Drivers: ``local.LocalDriver`` (the engine in this process) and ``remote.RemoteDriver``
(a live server through the public API); ``__main__`` is the ``stud-conformance`` command.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from studengine.rules.types import Table


@dataclass
class Snapshot:
    """What a vector can check of a hand at one moment."""

    to_act: int | None
    legal: list[tuple[str, int | None]]
    pot: int
    stacks: list[int]
    over: bool = False
    # each pot: (amount after the rake, high winners, low winners), main pot first
    pots: list[tuple[int, list[int], list[int]]] = field(default_factory=list)
    revealed: list[int] = field(default_factory=list)
    rake: int = 0
    tabled: list[int] = field(default_factory=list)  # face up to everyone (R-ALL-IN-FACE-UP)


class ActionRefused(Exception):
    """The engine or server refused an action."""


class Driver(Protocol):
    """Plays one vector: starts its hand, then applies its actions one by one."""

    def start(self, vector: dict[str, Any]) -> Snapshot: ...

    def act(self, seat: int, action: str, to: int | None) -> Snapshot: ...


def _legal_of(expected: Iterable[Sequence[Any]]) -> list[tuple[str, int | None]]:
    return sorted((str(pair[0]), pair[1] if len(pair) > 1 else None) for pair in expected)


def _sort_key(pair: tuple[str, int | None]) -> tuple[str, int]:
    return (pair[0], -1 if pair[1] is None else pair[1])


def check_expect(step: int, expect: dict[str, Any], snap: Snapshot) -> str | None:
    """The first difference between an ``expect`` step and the hand, or None."""
    if "to_act" in expect and expect["to_act"] != snap.to_act:
        return f"step {step}: to_act is {snap.to_act}, expected {expect['to_act']}"
    if "legal" in expect:
        want = sorted(_legal_of(expect["legal"]), key=_sort_key)
        got = sorted(snap.legal, key=_sort_key)
        if want != got:
            return f"step {step}: legal is {got}, expected {want}"
    if "pot" in expect and expect["pot"] != snap.pot:
        return f"step {step}: pot is {snap.pot}, expected {expect['pot']}"
    if "stacks" in expect and list(expect["stacks"]) != snap.stacks:
        return f"step {step}: stacks are {snap.stacks}, expected {expect['stacks']}"
    if "tabled" in expect and sorted(expect["tabled"]) != snap.tabled:
        return f"step {step}: tabled is {snap.tabled}, expected {sorted(expect['tabled'])}"
    return None


def check_result(expected: dict[str, Any], snap: Snapshot) -> str | None:
    if not snap.over:
        return "result: the hand is not over"
    if list(expected["stacks"]) != snap.stacks:
        return f"result: stacks are {snap.stacks}, expected {expected['stacks']}"
    want_pots = [
        (p["amount"], sorted(p["winners"]), sorted(p.get("low_winners", [])))
        for p in expected["pots"]
    ]
    if want_pots != snap.pots:
        return f"result: pots (amount, winners, low winners) are {snap.pots}, expected {want_pots}"
    if sorted(expected["revealed"]) != snap.revealed:
        return f"result: revealed is {snap.revealed}, expected {sorted(expected['revealed'])}"
    if expected.get("rake", 0) != snap.rake:
        return f"result: rake is {snap.rake}, expected {expected.get('rake', 0)}"
    return None


# the vector fields this runner checks; a vector asking for more (a table option or a
# result field of a game not built yet) is reported, never passed without its check
TABLE_FIELDS = {option.name for option in dataclasses.fields(Table)}  # both drivers map them all
EXPECT_FIELDS = {"to_act", "legal", "pot", "stacks", "tabled"}
RESULT_FIELDS = {"stacks", "pots", "revealed", "rake"}
POT_FIELDS = {"amount", "winners", "low_winners"}


def unsupported(vector: dict[str, Any]) -> str | None:
    """The first field of ``vector`` this runner cannot check, or None."""
    extra = set(vector["table"]) - TABLE_FIELDS
    for step in vector["steps"]:
        if isinstance(step, dict):
            extra |= set(step.get("expect", {})) - EXPECT_FIELDS
    result = vector.get("result", {})
    extra |= set(result) - RESULT_FIELDS
    for pot in result.get("pots", []):
        extra |= set(pot) - POT_FIELDS
    return f"unsupported field {sorted(extra)[0]!r}" if extra else None


def play_vector(vector: dict[str, Any], driver: Driver) -> str | None:
    """Play one vector; the first difference found, or None when it passes."""
    problem = unsupported(vector)
    if problem is not None:
        return f"start: {problem}"
    try:
        snap = driver.start(vector)
    except Exception as error:
        return f"start: {type(error).__name__}: {error}"
    for index, step in enumerate(vector["steps"]):
        if isinstance(step, str):
            continue
        if "expect" in step:
            difference = check_expect(index, step["expect"], snap)
            if difference:
                return difference
        if "act" in step:
            seat, action, *rest = step["act"]
            to = rest[0] if rest else None
            try:
                new = driver.act(seat, action, to)
            except ActionRefused as refusal:
                if not step.get("reject"):
                    return f"step {index}: {step['act']} was refused: {refusal}"
                continue
            if step.get("reject"):
                return f"step {index}: {step['act']} was accepted, expected a refusal"
            snap = new
    if "result" in vector:
        return check_result(vector["result"], snap)
    return None


def vector_files(paths: Iterable[str | Path]) -> list[Path]:
    found: list[Path] = []
    for path in map(Path, paths):
        found.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return found
