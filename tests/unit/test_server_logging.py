"""The log line's JSON: orjson's text is the standard library's (a reference test) but for
the documented differences, and what orjson refuses still gets written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from studengine.server.logging import _encode, _encode_stdlib

RPC_LINE = {
    "method": "/stud.v1.StudEngine/Act",
    "code": "OK",
    "duration_ms": 0.123,
    "hand_id": "ab" * 16,
    "seq": 4,
    "seat": 2,
    "action": "bet",
    "protocol": "http",
    "event": "rpc",
    "level": "info",
    "timestamp": "2026-12-01T18:50:05.123456Z",
    "pid": 1234,
    "worker": 1,
}


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


@pytest.mark.parametrize(
    "event",
    [
        RPC_LINE,
        {"event": "x", "n": None, "t": True, "f": False, "i": -(2**63), "big": 1e300},
        {"event": "x", "nested": {"a": [1, (2, 3)], "q": '"\\\n\t\x01'}, "zero": -0.0},
        {"event": "x", "opaque": _Opaque(), "set": {1}},  # repr, as the stdlib's default
    ],
    ids=["rpc", "scalars", "nested", "repr"],
)
def test_ascii_lines_are_the_standard_librarys_text(event: dict[str, Any]) -> None:
    assert _encode(event) == _encode_stdlib(event)


@pytest.mark.parametrize(
    "event",
    [
        {"event": "x", "player": "Zoë ♠"},  # UTF-8, not \u escapes
        {"event": "x", "tiny": 1e-05, "tinier": 2.5e-07},  # another spelling
    ],
    ids=["non-ascii", "small-floats"],
)
def test_other_lines_carry_the_same_values(event: dict[str, Any]) -> None:
    assert json.loads(_encode(event)) == json.loads(_encode_stdlib(event)) == event


@pytest.mark.parametrize(
    "event",
    [{"event": "x", "chips": 2**70}, {"event": "x", "by_seat": {1: "a", 2: "b"}}],
    ids=["big-int", "int-keys"],
)
def test_what_orjson_refuses_goes_through_the_standard_library(event: dict[str, Any]) -> None:
    assert _encode(event) == _encode_stdlib(event)
    assert "event" in json.loads(_encode(event))
