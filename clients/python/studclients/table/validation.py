"""The checks of what a player sends stud-table, before anything is read or written: a
player's name, and a move's fields (its action, the hand and move it answers, its size).
Each refusal is a 400 naming the field."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from studclients.table import views
from studclients.table.errors import ApiError

NAME = re.compile(r"^[\w][\w .'-]{0,31}$")
#: The range of a move's ``to`` (the engine's ``int64``, never negative): JSON numbers past
#: it are refused here, never passed on (``seq`` is only compared, never sent).
INT_FIELD_MAX = 2**63 - 1


def player_name(name: Any) -> str:
    """The name a player sits down with, trimmed; 400 ``bad_name`` when it is not one."""
    if not isinstance(name, str) or not NAME.match(name.strip()):
        raise ApiError(400, "bad_name", "name: 1 to 32 letters, digits, spaces or .'-")
    return name.strip()


@dataclass(frozen=True)
class Move:
    """A move as sent: the action's engine value, the hand and move it answers (``hand``,
    ``seq``), its size ``to`` and the seat it claims, if any."""

    action: int
    seq: int
    to: int | None
    seat: int | None
    hand_id: str


def move(body: Any) -> Move:
    """The move in a request's JSON body; 400 ``bad_request``, ``bad_action`` or
    ``bad_field`` when it is not one."""
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    action = views.ACTIONS.get(body.get("action"))  # type: ignore[arg-type]
    if action is None:
        names = ", ".join(views.ACTIONS)
        raise ApiError(400, "bad_action", f"action must be one of {names}")
    seq, to, claimed = body.get("seq"), body.get("to"), body.get("seat")
    for field, value, required in (
        ("seq", seq, True),
        ("to", to, False),
        ("seat", claimed, False),
    ):
        if (value is None and required) or (value is not None and type(value) is not int):
            raise ApiError(400, "bad_field", f"{field} must be an integer")
        if field == "to" and value is not None and not 0 <= value <= INT_FIELD_MAX:
            raise ApiError(400, "bad_field", f"{field} must be 0 to {INT_FIELD_MAX}")
    hand_id = body.get("hand")
    if not isinstance(hand_id, str):
        raise ApiError(400, "bad_field", "hand must be the id of the hand (a string)")
    return Move(action=action, seq=cast(int, seq), to=to, seat=claimed, hand_id=hand_id)  # checked
