"""The tournament's rows that several of the director's decisions write: a new table, the
log of moves, every table held after its hand; and ``LiveTable``, a table still in play."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from studclients.table.mtt.field import Field
from studclients.table.mtt.seating import Move
from studclients.table.schema import mtt_moves, mtt_tables, tables


@dataclass(frozen=True)
class LiveTable:
    """A table still in play: whether it is between hands (``idle``), its hand number
    and the last hand the director settled, the seats in the order they emptied."""

    number: int
    table_id: str
    hand_no: int
    settled: int
    idle: bool
    opened: list[int]
    current_hand: str | None = None


async def new_table(
    conn: AsyncConnection, row: sa.Row[Any], field: Field, number: int, clock_seconds: float
) -> None:
    """Table ``number`` of the tournament, opened at the field's level, dealing nothing yet;
    verifiably (deal tickets and the players' entropy, deals.py) if the tournament is."""
    table_id = f"{row.id}-{number}"
    level = field.settings.schedule.levels[field.level - 1]
    await conn.execute(
        sa.insert(tables).values(
            id=table_id,
            name=f"{row.name} - table {number}",
            variant=row.variant,
            start_stack=field.settings.starting_stack,
            max_seats=field.settings.seats,
            clock_seconds=clock_seconds,
            all_in_face_up=True,
            verifiable=bool(row.verifiable),  # the tournament's choice, every table alike
            button=-1,
            hand_no=0,
            next_hand_at=0.0,
            version=0,
            deal_limit=0,
            **level.as_dict(),
        )
    )
    await conn.execute(
        sa.insert(mtt_tables).values(
            table_id=table_id,
            mtt_id=row.id,
            number=number,
            settled=0,
            broken=False,
            opened=[],
        )
    )


async def log_moves(conn: AsyncConnection, row: sa.Row[Any], moves: Sequence[Move]) -> None:
    """The moves of one decision, numbered after those before, in the tournament's log."""
    if not moves:
        return
    count = (
        await conn.execute(sa.select(sa.func.count()).where(mtt_moves.c.mtt_id == row.id))
    ).scalar_one()
    now = time.time()
    for offset, move in enumerate(moves):
        await conn.execute(
            sa.insert(mtt_moves).values(
                mtt_id=row.id,
                number=count + offset,
                step=row.step,
                player=move.player,
                why=move.why,
                from_table=f"{row.id}-{move.from_table}" if move.from_table else None,
                from_seat=move.from_seat or None,
                to_table=f"{row.id}-{move.to_table}",
                to_seat=move.to_seat,
                at=now,
            )
        )


async def hold_all(conn: AsyncConnection, mtt_id: str) -> None:
    """Every table of the tournament stops after its hand (hand-for-hand, a pause)."""
    ids = sa.select(mtt_tables.c.table_id).where(mtt_tables.c.mtt_id == mtt_id)
    await conn.execute(
        sa.update(tables).where(tables.c.id.in_(ids)).values(deal_limit=tables.c.hand_no)
    )
