"""The lobby: every table with its game, stakes, seats taken and state, and the operator's
request that creates a table or a sit-and-go (``POST /api/tables`` with the operator
token; players never can). A bad request is refused naming its field and creates nothing."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from studclients.bots import BOT_KINDS
from studclients.client import VARIANTS
from studclients.table import schedule
from studclients.table.errors import ApiError
from studclients.table.game import Tables, TableSettings
from studclients.table.store import directed

TABLE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
TABLE_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,100}$")
FIELDS = frozenset(
    {"id", "name", "game", "games", "rotate_every", "seats", "stack", "ante", "bring_in",
     "small_bet", "clock", "bots", "tournament", "all_in_face_up", "verifiable"}
)  # fmt: skip


async def listing(tables: Tables) -> dict[str, Any]:
    """``{"tables": [...]}``: each table's game (now, and a mixed table's rotation),
    stakes, seats taken and state (waiting, playing, registering, running, finished).
    A multi-table tournament's tables are not here: its page lists them."""
    events = await tables.store.all_tournaments()
    answer = []
    for table in await tables.store.all_tables():
        if directed(table):
            continue  # a multi-table tournament's: listed with its tournament
        seated = await tables.store.seats_of(table.id)
        hand = await tables.store.hand(table.current_hand) if table.current_hand else None
        playing = hand is not None and not hand.over
        event = events.get(table.id)
        state = "playing" if playing else "waiting"
        entry: dict[str, Any] = {
            "id": table.id,
            "name": table.name,
            "game": schedule.game_part(table, table.hand_no or None)["name"],
            "rotation": schedule.game_part(table, table.hand_no or None),
            "stakes": {
                "ante": table.ante,
                "bring_in": table.bring_in,
                "small_bet": table.small_bet,
                "big_bet": table.big_bet,
            },
            "seated": len(seated),
            "max_seats": table.max_seats,
            "hands": table.hand_no,
            "kind": "sit-and-go" if event is not None else "cash",
        }
        if event is not None:
            state = event.status
            part = schedule.tournament_part(
                table, event, {s.seat_no: s for s in seated}, time.time()
            )
            entry["tournament"] = {
                k: part[k] for k in ("level", "levels", "prize_pool", "prizes", "entrants")
            }
        entry["state"] = state
        answer.append(entry)
    return {"tables": answer}


def _int(body: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise ApiError(400, "bad_field", f"{name} must be an integer from {low} to {high}")
    return value


def _game(name: Any, field: str) -> int:
    if name not in VARIANTS:
        raise ApiError(400, "bad_field", f"{field} must be one of {', '.join(VARIANTS)}")
    return VARIANTS[name]


def settings_of(body: Any) -> TableSettings:
    """The table an operator's request describes; 400 ``bad_field`` naming the field."""
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise ApiError(400, "bad_field", f"unknown field {unknown[0]!r}")
    table_id, name = body.get("id"), body.get("name", body.get("id"))
    if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
        raise ApiError(400, "bad_field", "id: 1 to 64 of a-z, 0-9, - and _, from a letter or digit")
    if not isinstance(name, str) or not TABLE_NAME.match(name):
        raise ApiError(400, "bad_field", "name: 1 to 100 characters, no control characters")
    games = body.get("games", [])
    if not isinstance(games, list) or len(games) > 12:
        raise ApiError(400, "bad_field", "games must be a list of at most 12 games")
    bots = body.get("bots", [])
    if not isinstance(bots, list) or not all(b in BOT_KINDS for b in bots):
        raise ApiError(400, "bad_field", f"bots: a list of {', '.join(BOT_KINDS)}")
    clock = body.get("clock", 30)
    if type(clock) not in (int, float) or not 1 <= clock <= 600:
        raise ApiError(400, "bad_field", "clock must be 1 to 600 seconds")
    face_up = body.get("all_in_face_up", False)
    if type(face_up) is not bool:
        raise ApiError(400, "bad_field", "all_in_face_up must be true or false")
    verifiable = body.get("verifiable", True)
    if type(verifiable) is not bool:
        raise ApiError(400, "bad_field", "verifiable must be true or false")
    event = body.get("tournament")
    if event is not None and not isinstance(event, dict):
        raise ApiError(400, "bad_field", "tournament must be an object")
    small_bet = _int(body, "small_bet", 20, 1, 10**12)
    return TableSettings(
        table_id=table_id,
        name=name,
        variant=_game(body.get("game", "seven"), "game"),
        ante=_int(body, "ante", 5, 0, 10**12),
        bring_in=_int(body, "bring_in", 10, 1, small_bet),
        small_bet=small_bet,
        start_stack=_int(body, "stack", 1000, 1, 10**12),
        max_seats=_int(body, "seats", 6, 2, 10),
        clock_seconds=float(clock),
        bots=tuple(bots),
        games=tuple(_game(g, f"games[{i}]") for i, g in enumerate(games)),
        rotate_every=_int(body, "rotate_every", 8, 1, 10_000),
        tournament=event,
        all_in_face_up=face_up,  # always on at a sit-and-go
        verifiable=verifiable,  # deal tickets and players' entropy: on unless turned off
    )


async def create(tables: Tables, body: Any) -> dict[str, Any]:
    """Creates what ``body`` describes: 409 ``table_exists`` when the id is taken."""
    settings = settings_of(body)
    if len(settings.bots) > settings.max_seats:
        raise ApiError(400, "bad_field", "bots: more bots than seats")
    try:
        created = await tables.create_table(settings)
    except ValueError as error:  # the rotation's and the schedule's errors name the field
        raise ApiError(400, "bad_field", str(error)) from None
    if not created:
        raise ApiError(409, "table_exists", f"there is a table {settings.table_id!r} already")
    tables.on_change(settings.table_id)
    return {"table": settings.table_id, "created": True}
