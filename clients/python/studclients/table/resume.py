"""Seats recovered on a new tab: at join the browser gets a resume token in an HttpOnly,
SameSite=Strict cookie scoped to ``/api/resume`` (never in a URL, never readable by the
page's scripts). ``POST /api/resume`` trades it for a fresh seat token and a fresh resume
token (rotation: each is good once, and the old seat token stops working, so one tab holds
the seat). Only SHA-256 hashes are stored, compared in constant time."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import sqlalchemy as sa
from aiohttp import web

from studclients.table import receipts, tokens
from studclients.table.store import Store, seats

#: Cookie names: this prefix and the table id (URL-safe base64), one cookie per table.
COOKIE_PREFIX = "stud_resume_"
COOKIE_PATH = "/api/resume"
#: How long a browser keeps its resume token (seconds).
COOKIE_SECONDS = 12 * 3600


def cookie_name(table_id: str) -> str:
    encoded = base64.urlsafe_b64encode(table_id.encode()).decode().rstrip("=")
    return COOKIE_PREFIX + encoded


def table_of(name: str) -> str | None:
    """The table id of a resume cookie's name (None when it is not one)."""
    if not name.startswith(COOKIE_PREFIX):
        return None
    encoded = name.removeprefix(COOKIE_PREFIX)
    try:
        padded = encoded + "=" * (-len(encoded) % 4)
        table_id = base64.b64decode(padded, altchars=b"-_", validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return table_id or None


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


def set_cookie(
    response: web.StreamResponse, request: web.Request, table_id: str, value: str
) -> None:
    response.set_cookie(
        cookie_name(table_id),
        value,
        max_age=COOKIE_SECONDS,
        path=COOKIE_PATH,
        httponly=True,
        samesite="Strict",
        secure=request.secure,
    )


def clear_cookie(response: web.StreamResponse, table_id: str) -> None:
    response.del_cookie(cookie_name(table_id), path=COOKIE_PATH)


async def resume_seats(store: Store, request: web.Request) -> web.StreamResponse:
    """``POST /api/resume``: the seats this browser's resume cookies still hold, each with
    a new seat token (``{"seats": [{"table", "seat", "token"}]}``); spent or stale cookies
    are cleared, good ones replaced by their successors."""
    found: list[dict[str, Any]] = []
    renewed: list[tuple[str, str | None]] = []
    for name, value in request.cookies.items():
        table_id = table_of(name)
        if table_id is None:
            continue
        answer = await rotate(store, table_id, value)
        renewed.append((table_id, None if answer is None else answer.pop("resume")))
        if answer is not None:
            found.append(answer)
    response = web.json_response({"seats": found})
    for table_id, successor in renewed:
        if successor is None:
            clear_cookie(response, table_id)
        else:
            set_cookie(response, request, table_id, successor)
    return response
