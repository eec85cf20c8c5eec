"""Seats recovered on a new tab: at join the browser gets a resume token in a cookie
(cookies.py). ``POST /api/resume`` trades it for a fresh seat token and a fresh resume
token (rotation: each is good once, and the old seat token stops working, so one tab holds
the seat). A tournament entry gets one at registration, traded the same way for a fresh
player token while the player is still in the tournament. Only SHA-256 hashes are stored:
a seat's compared in constant time, an entry's looked up by its hash (as ``/me`` looks up
a player's token). One cookie is traded per call: the tab asking gets one seat."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from aiohttp import web

from studclients.table import receipts, tokens
from studclients.table.cookies import (
    COOKIE_SECONDS,
    ENTRY_PREFIX,
    ENTRY_SECONDS,
    clear_cookie,
    set_cookie,
    table_of,
)
from studclients.table.mtt.field import Field
from studclients.table.mtt.settings import MttSettings
from studclients.table.schema import mtt_entries, mtts
from studclients.table.store import Store, seats


async def rotate(store: Store, table_id: str, resume_token: str) -> dict[str, Any] | None:
    """Trades a resume token for a new seat token and resume token, with a history token
    for the sitting (the new tab's): ``{"table", "seat", "token", "resume",
    "history_token"}``, or None when it holds no seat at the table (any more)."""
    rows = await store.seats_of(table_id)
    seat_no = tokens.find_seat(resume_token, [(s.seat_no, s.resume_hash) for s in rows])
    if seat_no is None:
        return None
    token, resume = tokens.new_token(), tokens.new_token()
    async with store.engine.begin() as conn:
        moved = await conn.execute(
            sa.update(seats)
            .where(
                seats.c.table_id == table_id,
                seats.c.seat_no == seat_no,
                seats.c.resume_hash == tokens.token_hash(resume_token),
            )
            .values(token_hash=tokens.token_hash(token), resume_hash=tokens.token_hash(resume))
        )
        if moved.rowcount != 1:
            await conn.rollback()
            return None  # another tab traded it first
        await Store._bump(conn, table_id)
    player = next(s.player for s in rows if s.seat_no == seat_no)
    history = await receipts.issue(store, table_id, player) if player else None
    return {
        "table": table_id,
        "seat": seat_no,
        "token": token,
        "resume": resume,
        "history_token": history,
    }


async def rotate_entry(store: Store, mtt_id: str, resume_token: str) -> dict[str, Any] | None:
    """Trades a tournament entry's resume token for a new player token and resume token:
    ``{"tournament", "player", "name", "token", "resume", "table", "seat"}`` (``table``
    None while the tournament has not seated them), or None when it is no entry's (any
    more) or its player is out or the tournament over. The new token replaces the old at
    the seat they hold, in a transaction that moves the tournament's version on, so a
    decision of the director racing it (a move that copies the old token to a new seat)
    loses its compare-and-set and is decided again with the new one."""
    where = (mtt_entries.c.mtt_id == mtt_id) & (
        mtt_entries.c.resume_hash == tokens.token_hash(resume_token)
    )
    async with store.engine.connect() as conn:  # a stray cookie takes no lock
        if (await conn.execute(sa.select(mtt_entries.c.player).where(where))).first() is None:
            return None
    token, resume = tokens.new_token(), tokens.new_token()
    async with store.engine.begin() as conn:
        bumped = await conn.execute(
            sa.update(mtts).where(mtts.c.id == mtt_id).values(version=mtts.c.version + 1)
        )
        entry = (await conn.execute(sa.select(mtt_entries).where(where))).first()
        row = (await conn.execute(sa.select(mtts).where(mtts.c.id == mtt_id))).first()
        if bumped.rowcount != 1 or entry is None or row is None or not _in_play(row, entry):
            await conn.rollback()
            return None  # another tab traded it first, or nothing is left to play
        await conn.execute(
            sa.update(mtt_entries)
            .where(where)
            .values(token_hash=tokens.token_hash(token), resume_hash=tokens.token_hash(resume))
        )
        if entry.table_id is not None:
            moved = await conn.execute(
                sa.update(seats)
                .where(
                    seats.c.table_id == entry.table_id,
                    seats.c.seat_no == entry.seat_no,
                    seats.c.token_hash == entry.token_hash,
                )
                .values(token_hash=tokens.token_hash(token))
            )
            if moved.rowcount != 1:  # never half traded: the entry's token and its seat's
                await conn.rollback()
                return None
            await Store._bump(conn, entry.table_id)
    return {
        "tournament": mtt_id,
        "player": entry.player,
        "name": entry.name,
        "token": token,
        "resume": resume,
        "table": entry.table_id,
        "seat": entry.seat_no,
    }


def _in_play(row: sa.Row[Any], entry: sa.Row[Any]) -> bool:
    """Whether the tournament of ``row`` is still to be played for ``entry``'s player."""
    field = Field.from_dict(MttSettings.from_dict(row.settings), row.field)
    return field.status in ("registering", "running") and entry.player not in field.places


async def resume_seats(
    store: Store, request: web.Request, tournament: str | None
) -> web.StreamResponse:
    """``POST /api/resume``: trades one of this browser's resume cookies for a new token
    and cookie: the entry of ``tournament`` when one is named (the page's address names
    it), else the first seat a cookie still holds, else the first tournament entry still in
    play. ``{"seats": [{"table", "seat", "token", "history_token"}], "tournaments":
    [{"tournament", "player", "name", "token", "table", "seat"}]}``, at most one in all.
    The other cookies are left as they are (another tab may be using what they hold); a
    spent or stale one tried on the way is cleared."""
    kept = [(name, value, table_of(name), table_of(name, ENTRY_PREFIX))
            for name, value in request.cookies.items()]  # fmt: skip
    if tournament is not None:
        order = [cookie for cookie in kept if cookie[3] == tournament]
    else:
        order = [c for c in kept if c[2] is not None] + [c for c in kept if c[3] is not None]
    found: dict[str, list[dict[str, Any]]] = {"seats": [], "tournaments": []}
    renewed: list[tuple[str, str, str | None]] = []
    for name, value, table_id, mtt_id in order:
        if table_id is not None:
            answer, kind = await rotate(store, table_id, value), "seats"
        else:
            answer, kind = await rotate_entry(store, str(mtt_id), value), "tournaments"
        renewed.append((name, kind, None if answer is None else answer.pop("resume")))
        if answer is not None:
            found[kind].append(answer)
            break
    response = web.json_response(found)
    for name, kind, successor in renewed:
        if successor is None:
            clear_cookie(response, name)
        else:
            seconds = ENTRY_SECONDS if kind == "tournaments" else COOKIE_SECONDS
            set_cookie(response, request, name, successor, seconds)
    return response
