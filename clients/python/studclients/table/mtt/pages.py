"""What the lobby and a tournament's page show: tournaments by status (entrants, tables,
level, prize pool), and one tournament whole: every table, the standings, the players
left, the average stack, the level and the hands or time to the next, the payouts; and
one player's: where they sit now (their page follows them), what they may buy."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from studclients.client import VARIANT_NAMES
from studclients.table import tokens
from studclients.table.mtt.director import Director
from studclients.table.mtt.field import Field
from studclients.table.mtt.settings import MttSettings
from studclients.table.schema import mtt_entries, mtt_moves, mtt_tables, mtts, seats, tables
from studclients.table.store import Store
from studclients.table.tournament import split_pool


async def listing(director: Director) -> list[dict[str, Any]]:
    """Every tournament, registering first, then running, then finished and cancelled."""
    order = {"registering": 0, "running": 1, "finished": 2, "cancelled": 3}
    counts = (
        sa.select(mtt_tables.c.mtt_id, sa.func.count().label("tables"))
        .where(~mtt_tables.c.broken)
        .group_by(mtt_tables.c.mtt_id)
    )
    async with director.store.engine.connect() as conn:
        live = {r.mtt_id: r.tables for r in await conn.execute(counts)}
        rows = list(await conn.execute(sa.select(mtts)))
    out = []
    for row in rows:
        field = Field.from_dict(MttSettings.from_dict(row.settings), row.field)
        out.append(
            {
                "id": row.id,
                "name": row.name,
                "game": VARIANT_NAMES[row.variant],
                "status": field.status,
                "paused": row.paused,
                "entrants": len(field.entries),
                "players_left": field.alive if field.status == "running" else None,
                "tables": live.get(row.id, 0),
                "level": field.level,
                "prize_pool": field.prize_pool,
                "buy_in": field.settings.schedule.buy_in,
            }
        )
    return sorted(out, key=lambda t: (order[t["status"]], t["id"]))


async def page(director: Director, mtt_id: str, now: float | None = None) -> dict[str, Any]:
    """One tournament as its page shows it (no tokens, no hidden cards: public)."""
    row = await director.row(mtt_id)
    settings = MttSettings.from_dict(row.settings)
    field = Field.from_dict(settings, row.field)
    moment = time.time() if now is None else now
    async with director.store.engine.connect() as conn:
        where = mtt_tables.c.mtt_id == mtt_id
        live = list(
            await conn.execute(
                sa.select(mtt_tables.c.table_id, mtt_tables.c.number, tables.c.hand_no)
                .join(tables, tables.c.id == mtt_tables.c.table_id)
                .where(where, ~mtt_tables.c.broken)
                .order_by(mtt_tables.c.number)
            )
        )
        sat = list(
            await conn.execute(
                sa.select(seats.c.table_id, seats.c.seat_no, seats.c.name, seats.c.stack).where(
                    seats.c.table_id.in_(sa.select(mtt_tables.c.table_id).where(where))
                )
            )
        )
        names = {
            e.player: e.name
            for e in await conn.execute(
                sa.select(mtt_entries).where(mtt_entries.c.mtt_id == mtt_id)
            )
        }
        log_count = (
            await conn.execute(sa.select(sa.func.count()).where(mtt_moves.c.mtt_id == mtt_id))
        ).scalar_one()
    seated = {s.name: s for s in sat}
    prizes = field.prizes() if field.places else {}
    standings = []
    for player, entry in field.entries.items():
        place = field.places.get(player)
        seat = seated.get(entry.name) if place is None or place == 1 else None
        standings.append(
            {
                "player": player,
                "name": names.get(player, entry.name),
                "place": place,
                "chips": seat.stack if seat is not None else 0,
                "table": seat.table_id if seat is not None else None,
                "rebuys": entry.rebuys,
                "addon": entry.addon,
                "prize": prizes.get(player) if place is not None else None,
            }
        )
    standings.sort(key=lambda r: (r["place"] or 0, -r["chips"], r["name"]))
    at_table: dict[str, list[Any]] = {}  # each table's seats in seat order, sorted once
    for s in sorted(sat, key=lambda s: s.seat_no):
        at_table.setdefault(s.table_id, []).append(s)
    left = field.alive if field.status == "running" else (1 if field.status == "finished" else 0)
    rounds = max((t.hand_no for t in live), default=0)
    elapsed = moment - (row.started_at or moment)
    upcoming = settings.schedule.next_level(rounds, elapsed) if row.started_at else None
    return {
        "id": row.id,
        "name": row.name,
        "game": VARIANT_NAMES[row.variant],
        "status": field.status,
        "paused": row.paused,
        "seed": row.seed,
        "verifiable": row.verifiable,  # its tables deal with deal tickets (deals.py)
        "moves_logged": log_count,
        "entrants": len(field.entries),
        "players_left": left,
        "average_stack": field.chips_in_play // left if left else 0,
        "chips_in_play": field.chips_in_play,
        "level": field.level,
        "stakes": settings.schedule.levels[field.level - 1].as_dict(),
        "next_level": upcoming,
        "at_break": field.at_break,
        "hand_for_hand": field.status == "running"
        and settings.hand_for_hand(field.alive, len(live)),
        "prize_pool": field.prize_pool,
        "payouts": split_pool(field.prize_pool, settings.schedule.payouts),
        "settings": settings.as_dict(),
        "tables": [
            {
                "table": t.table_id,
                "number": t.number,
                "hand": t.hand_no,
                "players": [
                    {"seat": s.seat_no, "name": s.name, "chips": s.stack}
                    for s in at_table.get(t.table_id, [])
                ],
            }
            for t in live
        ],
        "standings": standings,
    }


async def _last_move(conn: AsyncConnection, mtt_id: str, player: int) -> dict[str, Any] | None:
    """The player's last move between tables (balance or break), if their last was one."""
    last = (
        await conn.execute(
            sa.select(mtt_moves)
            .where(mtt_moves.c.mtt_id == mtt_id, mtt_moves.c.player == player)
            .order_by(mtt_moves.c.number.desc())
            .limit(1)
        )
    ).first()
    if last is None or last.why not in ("balance", "break"):
        return None
    return {"from_table": last.from_table, "why": last.why, "at": last.at}


async def my_seat(director: Director, mtt_id: str, token: str | None) -> dict[str, Any]:
    """Where the token's player sits now and their last move (the page follows them), their
    place once out, and whether a rebuy or the add-on is on sale to them now."""
    if not token:
        return {"table": None, "seat": None, "moved": None}
    entry = await director.entry(mtt_id, token)
    field = await director.field(mtt_id)
    mine = field.entries[entry.player]
    place = field.places.get(entry.player)
    settings = field.settings
    in_play = field.status == "running" and place is None
    answer: dict[str, Any] = {
        "player": entry.player,
        "name": entry.name,
        "status": field.status,
        "place": place,
        "table": entry.table_id,
        "seat": entry.seat_no,
        "moved": None,
        "rebuys": mine.rebuys,
        "addon": mine.addon,
        "can_rebuy": False,
        "can_addon": in_play
        and not mine.addon
        and field.at_break is not None
        and field.at_break == settings.addon_break,
    }
    if entry.table_id is None:
        return answer
    async with director.store.engine.connect() as conn:
        answer["moved"] = await _last_move(conn, mtt_id, entry.player)
        where = (seats.c.table_id == entry.table_id) & (seats.c.seat_no == entry.seat_no)
        stack = (await conn.execute(sa.select(seats.c.stack).where(where))).scalar_one_or_none()
    answer["can_rebuy"] = (
        in_play
        and field.level <= settings.rebuy_levels
        and stack is not None
        and stack <= settings.starting_stack
    )
    return answer


async def seat_elsewhere(store: Store, table_id: str, token: str) -> dict[str, Any] | None:
    """Where a tournament player whose token no longer holds a seat at ``table_id`` sits
    now, and why they moved: the push that sends their page there. None when the table is
    no tournament's, or the token's player sits nowhere (out) or still there."""
    async with store.engine.connect() as conn:
        mtt_id = (
            await conn.execute(
                sa.select(mtt_tables.c.mtt_id).where(mtt_tables.c.table_id == table_id)
            )
        ).scalar_one_or_none()
        if mtt_id is None:
            return None
        entry = (
            await conn.execute(
                sa.select(mtt_entries).where(
                    mtt_entries.c.mtt_id == mtt_id,
                    mtt_entries.c.token_hash == tokens.token_hash(token),
                )
            )
        ).first()
        if entry is None or entry.table_id in (None, table_id):
            return None
        moved = await _last_move(conn, mtt_id, entry.player)
    return {
        "tournament": mtt_id,
        "table": entry.table_id,
        "seat": entry.seat_no,
        "why": moved["why"] if moved else None,
    }
