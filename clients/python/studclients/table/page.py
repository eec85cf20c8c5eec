"""The page one seat (or a spectator) is sent: the table, its seats, the hand from that
seat's own engine view (views.py), the moves it may make and the hand's narration."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from studclients.table import deals, recovery, schedule, views
from studclients.table.store import Store, directed


def first_seat(table: sa.Row[Any]) -> int:
    """The number of the table's first seat: 1 at a multi-table tournament's table (its
    director seats players from 1, as the draw reads), else 0."""
    return 1 if directed(table) else 0


async def seat_page(
    store: Store, table: sa.Row[Any], seat: int | None, *, engine_down: bool
) -> dict[str, Any]:
    """The whole page state for one seat (or a spectator): only that seat's view."""
    seated = {s.seat_no: s for s in await store.seats_of(table.id)}
    hand = await store.hand(table.current_hand) if table.current_hand else None
    hand_part: dict[str, Any] | None = None
    per_seat: dict[int, dict[str, Any]] = {}
    legal: list[dict[str, Any]] = []
    narration: list[str] = []
    if hand is not None:
        engine_seat = hand.seat_map.index(seat) if seat in hand.seat_map else None
        viewer = seated.get(seat) if seat is not None else None
        # the seat's new occupant sees the last hand of the one before as a spectator
        if (
            engine_seat is not None
            and viewer is not None
            and viewer.player is not None
            and not await store.played(viewer.player, hand.hand_id)
        ):
            engine_seat = None
        update = views.parse_update(hand.update)
        hand_part, per_seat = views.hand_view(update, hand, engine_seat, hand.names)
        hand_part["voided"] = False
        hand_part["on_time_bank"] = hand.bank_from is not None and not hand.over
        hand_part["deal"] = (
            deals.hand_part(hand, update, engine_seat is not None) if hand.deal else None
        )
        if engine_seat is not None:
            legal = views.legal_moves(update, engine_seat)
        for step in await store.history_of(hand.hand_id):
            if step.source == "void":
                hand_part["voided"] = True
                narration.append(recovery.VOID_MESSAGE)
                continue
            past = views.parse_update(step.update)
            seen = past.seats[engine_seat] if engine_seat is not None else past.spectator
            narration += views.narrate(seen.events, hand.names, engine_seat)
    seats = []
    first = first_seat(table)
    for number in range(first, first + table.max_seats):
        row = seated.get(number)
        name = row.name if row else None
        if row is None and hand is not None and number in hand.seat_map:
            name = hand.names[hand.seat_map.index(number)]  # left, still in this hand
        entry: dict[str, Any] = {
            "seat": number,
            "name": name,
            "empty": row is None and number not in per_seat,
            "bot": row.bot if row else None,
            "stack": row.stack if row else 0,
            "leaving": bool(row.leaving) if row else False,
            "away": row is not None and row.away_since is not None,
            "time_bank": round(row.time_bank) if row and row.bot is None else None,
            "you": number == seat,
            "in_hand": False,
        }
        if hand is not None and number in per_seat:
            entry.update(per_seat[number])
            if hand.over and row is not None:
                entry["stack"] = row.stack
        seats.append(entry)
    you = seated.get(seat) if seat is not None else None
    event = await store.tournament(table.id)
    open_hand = hand is not None and not hand.over
    return {
        "type": "table",
        "now": int(time.time() * 1000),
        "table": {
            "id": table.id,
            "name": table.name,
            "game": views.game_name(table.variant),
            "stakes": {
                "ante": table.ante,
                "bring_in": table.bring_in,
                "small_bet": table.small_bet,
                "big_bet": table.big_bet,
            },
            "clock_seconds": table.clock_seconds,
            "first_seat": first,
            "version": table.version,
            "rotation": schedule.game_part(table, hand.number if hand else None),
        },
        "tournament": None
        if event is None
        else schedule.tournament_part(table, event, seated, time.time()),
        "you": None
        if you is None
        else {
            "seat": you.seat_no,
            "name": you.name,
            "away": you.away_since is not None,
            "time_bank": round(you.time_bank),
        },
        "engine": {
            "up": not engine_down,
            "message": recovery.DOWN_MESSAGE if engine_down else None,
        },
        "seats": seats,
        "hand": hand_part,
        # the next hand's deal ticket, waiting for the players' entropy (deals.py)
        "deal": None
        if open_hand
        else await deals.waiting_part(store, table, seat, you.player if you else None),
        "legal": legal,
        "narration": narration,
        "next_hand_at": int(table.next_hand_at * 1000) if hand_part and hand_part["over"] else None,
    }
