"""Seats recovered on a new tab: at join the browser gets a resume token in a cookie
(cookies.py). ``POST /api/resume`` trades it for a fresh seat token and a fresh resume
token (rotation: each is good once, and the old seat token stops working, so one tab holds
the seat). A tournament entry gets one at registration, traded the same way for a fresh
player token while the player is still in the tournament. Only SHA-256 hashes are stored,
compared in constant time."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from aiohttp import web

from studclients.table import receipts, tokens
from studclients.table.cookies import (
    ENTRY_PREFIX,
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
    token, resume = tokens.new_token(), tokens.new_token()
    async with store.engine.begin() as conn:
        bumped = await conn.execute(
            sa.update(mtts).where(mtts.c.id == mtt_id).values(version=mtts.c.version + 1)
        )
        where = (mtt_entries.c.mtt_id == mtt_id) & (
            mtt_entries.c.resume_hash == tokens.token_hash(resume_token)
        )
        entry = (await conn.execute(sa.select(mtt_entries).where(where))).first()
        row = (await conn.execute(sa.select(mtts).where(mtts.c.id == mtt_id))).first()
        if bumped.rowcount != 1 or entry is None or row is None:
            await conn.rollback()
            return None
        field = Field.from_dict(MttSettings.from_dict(row.settings), row.field)
        if field.status not in ("registering", "running") or entry.player in field.places:
            await conn.rollback()
            return None  # nothing left to play: the cookie is spent
        await conn.execute(
            sa.update(mtt_entries)
            .where(where)
            .values(token_hash=tokens.token_hash(token), resume_hash=tokens.token_hash(resume))
        )
        if entry.table_id is not None:
            await conn.execute(
                sa.update(seats)
                .where(
                    seats.c.table_id == entry.table_id,
                    seats.c.seat_no == entry.seat_no,
                    seats.c.token_hash == entry.token_hash,
                )
                .values(token_hash=tokens.token_hash(token))
            )
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


async def resume_seats(store: Store, request: web.Request) -> web.StreamResponse:
    """``POST /api/resume``: the seats this browser's resume cookies still hold, each with
    a new seat token (``{"seats": [{"table", "seat", "token", "history_token"}]}``), and
    the tournaments it is still playing, each with a new player token
    (``"tournaments": [...]``, rotate_entry); spent or stale cookies are cleared, good
    ones replaced by their successors."""
    found: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    renewed: list[tuple[str, str | None]] = []
    for name, value in request.cookies.items():
        if (table_id := table_of(name)) is not None:
            answer = await rotate(store, table_id, value)
            kept = found
        elif (mtt_id := table_of(name, ENTRY_PREFIX)) is not None:
            answer = await rotate_entry(store, mtt_id, value)
            kept = entries
        else:
            continue
        renewed.append((name, None if answer is None else answer.pop("resume")))
        if answer is not None:
            kept.append(answer)
    response = web.json_response({"seats": found, "tournaments": entries})
    for name, successor in renewed:
        if successor is None:
            clear_cookie(response, name)
        else:
            set_cookie(response, request, name, successor)
    return response
