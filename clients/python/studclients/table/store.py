"""stud-table's storage, in SQLAlchemy Core over asyncio: SQLite (aiosqlite) by default,
PostgreSQL (asyncpg) by URL, one schema and one set of statements for both.

Every change is a compare-and-set: a hand moves from ``seq`` to ``seq + 1`` only if its row
still holds ``seq`` (``UPDATE ... WHERE hand_id = ? AND seq = ?``), and a table deals hand
``n + 1`` only if it still stands at ``n``. Several replicas can share one database: the
loser of a race sees ``False`` and re-reads."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

metadata = sa.MetaData()

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("variant", sa.Integer, nullable=False),
    sa.Column("ante", sa.BigInteger, nullable=False),
    sa.Column("bring_in", sa.BigInteger, nullable=False),
    sa.Column("small_bet", sa.BigInteger, nullable=False),
    sa.Column("big_bet", sa.BigInteger, nullable=False),
    sa.Column("start_stack", sa.BigInteger, nullable=False),
    sa.Column("max_seats", sa.Integer, nullable=False),
    sa.Column("clock_seconds", sa.Float, nullable=False),
    # the engine's Table.all_in_face_up (R-ALL-IN-FACE-UP); added after the first release
    sa.Column("all_in_face_up", sa.Boolean, nullable=False, server_default=sa.false()),
    # the table seat that held the button in the newest hand (-1: none yet)
    sa.Column("button", sa.Integer, nullable=False, default=-1),
    sa.Column("hand_no", sa.Integer, nullable=False, default=0),
    sa.Column("current_hand", sa.String(32), nullable=True),
    # when the next hand may be dealt (epoch seconds): a pause to see the showdown
    sa.Column("next_hand_at", sa.Float, nullable=False, default=0.0),
    # bumped by every change of the table or its hand: what pushes follow
    sa.Column("version", sa.BigInteger, nullable=False, default=0),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("seat_no", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    # SHA-256 of the seat token (the token itself is never stored); NULL for a bot
    sa.Column("token_hash", sa.LargeBinary(32), nullable=True),
    sa.Column("bot", sa.String(16), nullable=True),
    sa.Column("stack", sa.BigInteger, nullable=False),
    # leaves when the hand in progress ends
    sa.Column("leaving", sa.Boolean, nullable=False, default=False),
)

hands = sa.Table(
    "hands",
    metadata,
    sa.Column("hand_id", sa.String(32), primary_key=True),
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("state", sa.LargeBinary, nullable=False),
    # engine seat i is table seat seat_map[i]; names and stacks at the start, same order
    sa.Column("seat_map", sa.JSON, nullable=False),
    sa.Column("names", sa.JSON, nullable=False),
    sa.Column("start_stacks", sa.JSON, nullable=False),
    sa.Column("bots", sa.JSON, nullable=False),
    sa.Column("to_act", sa.Integer, nullable=True),
    # the clock of the seat to act (epoch seconds), or a bot's thinking time
    sa.Column("deadline", sa.Float, nullable=True),
    sa.Column("over", sa.Boolean, nullable=False, default=False),
    # the newest HandUpdate without state and reveal (views, legal actions, result)
    sa.Column("update", sa.LargeBinary, nullable=False),
    # the deck and salt behind the commitment: audit material, never sent to a browser
    sa.Column("reveal", sa.LargeBinary, nullable=True),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Index("hands_open", "over", "deadline"),
)

history = sa.Table(
    "history",
    metadata,
    sa.Column("hand_id", sa.String(32), sa.ForeignKey("hands.hand_id"), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True),
    # start, player, clock or bot
    sa.Column("source", sa.String(8), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("action", sa.Integer, nullable=True),
    sa.Column("to", sa.BigInteger, nullable=True),
    sa.Column("state", sa.LargeBinary, nullable=False),
    # the HandUpdate of this step without state and reveal (each viewer's events)
    sa.Column("update", sa.LargeBinary, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)


@dataclass(frozen=True)
class Step:
    """One applied action (or the deal), as the CAS writes it."""

    source: str
    seat: int | None
    action: int | None
    to: int | None
    state: bytes
    update: bytes
    to_act: int | None
    deadline: float | None
    over: bool
    reveal: bytes | None


def async_url(url: str) -> str:
    """``sqlite:///x.db`` -> ``sqlite+aiosqlite:///x.db``, ``postgresql://`` -> asyncpg."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    if scheme == "sqlite":
        return f"sqlite+aiosqlite://{rest}"
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+asyncpg://{rest}"
    return url


# columns added to a table since the first release, each with the SQL that adds it to a
# database made before (the value every existing row takes is the column's default)
NEW_COLUMNS = {
    ("tables", "all_in_face_up"): "ALTER TABLE tables ADD COLUMN all_in_face_up"
    " BOOLEAN NOT NULL DEFAULT FALSE",
}


def _add_new_columns(conn: sa.Connection) -> None:
    """Bring a database made by an earlier release up to date (``NEW_COLUMNS``)."""
    inspector = sa.inspect(conn)
    for (table, column), sql in NEW_COLUMNS.items():
        if column not in {c["name"] for c in inspector.get_columns(table)}:
            conn.execute(sa.text(sql))


class Store:
    """The database: tables, seats, hands (newest state per hand) and each hand's history."""

    def __init__(self, url: str) -> None:
        full = async_url(url)
        kwargs: dict[str, Any] = {}
        if full.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        self.engine: AsyncEngine = create_async_engine(full, **kwargs)

    async def create_schema(self) -> None:
        """Creates what is missing; a replica starting at the same moment may win the race
        to create a table, after which this one finds it there on its second look."""
        for attempt in range(3):
            try:
                async with self.engine.begin() as conn:
                    await conn.run_sync(metadata.create_all)
                    await conn.run_sync(_add_new_columns)
                return
            except sa.exc.DBAPIError:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.5)

    async def close(self) -> None:
        await self.engine.dispose()

    # ---- reading ------------------------------------------------------------------------
    async def table(self, table_id: str) -> sa.Row[Any] | None:
        async with self.engine.connect() as conn:
            return (await conn.execute(sa.select(tables).where(tables.c.id == table_id))).first()

    async def all_tables(self) -> Sequence[sa.Row[Any]]:
        async with self.engine.connect() as conn:
            return (await conn.execute(sa.select(tables).order_by(tables.c.id))).all()

    async def versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        async with self.engine.connect() as conn:
            query = sa.select(tables.c.id, tables.c.version).where(tables.c.id.in_(table_ids))
            return {row.id: int(row.version) for row in await conn.execute(query)}

    async def seats_of(self, table_id: str) -> Sequence[sa.Row[Any]]:
        async with self.engine.connect() as conn:
            query = sa.select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat_no)
            return (await conn.execute(query)).all()

    async def hand(self, hand_id: str) -> sa.Row[Any] | None:
        async with self.engine.connect() as conn:
            return (await conn.execute(sa.select(hands).where(hands.c.hand_id == hand_id))).first()

    async def history_of(self, hand_id: str) -> Sequence[sa.Row[Any]]:
        async with self.engine.connect() as conn:
            query = sa.select(history).where(history.c.hand_id == hand_id).order_by(history.c.seq)
            return (await conn.execute(query)).all()

    async def due_hands(self, now: float) -> Sequence[sa.Row[Any]]:
        """Hands in progress whose clock (or bot's thinking time) has run out."""
        async with self.engine.connect() as conn:
            query = sa.select(hands).where(~hands.c.over, hands.c.deadline <= now)
            return (await conn.execute(query)).all()

    async def tables_ready(self, now: float) -> Sequence[sa.Row[Any]]:
        """Tables with no hand in progress whose pause after the last hand is over."""
        async with self.engine.connect() as conn:
            open_hand = sa.select(hands.c.hand_id).where(
                hands.c.hand_id == tables.c.current_hand, ~hands.c.over
            )
            query = sa.select(tables).where(tables.c.next_hand_at <= now, ~open_hand.exists())
            return (await conn.execute(query)).all()

    # ---- writing ------------------------------------------------------------------------
    async def create_table(self, **values: Any) -> bool:
        """Creates the table unless one with that id exists (another replica may be creating
        it at the same moment); True when created here."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    sa.insert(tables).values(
                        button=-1, hand_no=0, next_hand_at=0.0, version=0, **values
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    @staticmethod
    async def _bump(conn: AsyncConnection, table_id: str) -> None:
        await conn.execute(
            sa.update(tables).where(tables.c.id == table_id).values(version=tables.c.version + 1)
        )

    async def take_seat(
        self, table_id: str, name: str, token_hash: bytes | None, bot: str | None, stack: int
    ) -> int | None:
        """Sits a player (or bot) in the lowest free seat; the seat, or None when full. Two
        joins racing for one seat: the primary key lets one in, the other tries the next."""
        for _ in range(20):
            async with self.engine.begin() as conn:
                table = (
                    await conn.execute(sa.select(tables).where(tables.c.id == table_id))
                ).first()
                if table is None:
                    return None
                taken = {
                    r.seat_no
                    for r in await conn.execute(
                        sa.select(seats.c.seat_no).where(seats.c.table_id == table_id)
                    )
                }
                free = [n for n in range(table.max_seats) if n not in taken]
                if not free:
                    return None
                try:
                    await conn.execute(
                        sa.insert(seats).values(
                            table_id=table_id,
                            seat_no=free[0],
                            name=name,
                            token_hash=token_hash,
                            bot=bot,
                            stack=stack,
                            leaving=False,
                        )
                    )
                except sa.exc.IntegrityError:
                    continue
                await self._bump(conn, table_id)
                return free[0]
        return None

    async def leave(self, table_id: str, seat_no: int, in_hand: bool) -> None:
        """Frees the seat now, or marks it to be freed when the hand in progress ends."""
        async with self.engine.begin() as conn:
            where = (seats.c.table_id == table_id) & (seats.c.seat_no == seat_no)
            if in_hand:
                await conn.execute(sa.update(seats).where(where).values(leaving=True))
            else:
                await conn.execute(sa.delete(seats).where(where))
            await self._bump(conn, table_id)

    async def begin_hand(
        self,
        table_id: str,
        expected_hand_no: int,
        button: int,
        row: dict[str, Any],
        step: Step,
    ) -> bool:
        """Records a newly dealt hand if the table still stands at ``expected_hand_no``."""
        now = time.time()
        async with self.engine.begin() as conn:
            moved = await conn.execute(
                sa.update(tables)
                .where(tables.c.id == table_id, tables.c.hand_no == expected_hand_no)
                .values(
                    hand_no=expected_hand_no + 1,
                    current_hand=row["hand_id"],
                    button=button,
                    version=tables.c.version + 1,
                )
            )
            if moved.rowcount != 1:
                await conn.rollback()
                return False
            await conn.execute(
                sa.insert(hands).values(
                    table_id=table_id,
                    number=expected_hand_no + 1,
                    seq=0,
                    state=step.state,
                    update=step.update,
                    to_act=step.to_act,
                    deadline=step.deadline,
                    over=step.over,
                    reveal=step.reveal,
                    updated_at=now,
                    **row,
                )
            )
            await self._history(conn, row["hand_id"], 0, step, now)
            return True

    @staticmethod
    async def _history(
        conn: AsyncConnection, hand_id: str, seq: int, step: Step, now: float
    ) -> None:
        await conn.execute(
            sa.insert(history).values(
                hand_id=hand_id,
                seq=seq,
                source=step.source,
                seat=step.seat,
                action=step.action,
                to=step.to,
                state=step.state,
                update=step.update,
                at=now,
            )
        )

    async def advance(
        self,
        hand: sa.Row[Any],
        step: Step,
        final_stacks: Sequence[int] | None,
        pause: float,
    ) -> bool:
        """Compare-and-set: moves ``hand`` from its seq to seq + 1 only if the stored row
        still holds that seq; with ``final_stacks`` (the hand is over) the seats' stacks are
        updated, leavers leave and busted players give up their seats, all in one
        transaction. False when another writer got there first (nothing is written)."""
        now = time.time()
        async with self.engine.begin() as conn:
            moved = await conn.execute(
                sa.update(hands)
                .where(hands.c.hand_id == hand.hand_id, hands.c.seq == hand.seq)
                .values(
                    seq=hand.seq + 1,
                    state=step.state,
                    update=step.update,
                    to_act=step.to_act,
                    deadline=step.deadline,
                    over=step.over,
                    reveal=step.reveal,
                    updated_at=now,
                )
            )
            if moved.rowcount != 1:
                await conn.rollback()
                return False
            await self._history(conn, hand.hand_id, hand.seq + 1, step, now)
            if final_stacks is not None:
                await self._settle(conn, hand, final_stacks)
                await conn.execute(
                    sa.update(tables)
                    .where(tables.c.id == hand.table_id)
                    .values(next_hand_at=now + pause)
                )
            await self._bump(conn, hand.table_id)
            return True

    @staticmethod
    async def _settle(conn: AsyncConnection, hand: sa.Row[Any], final: Sequence[int]) -> None:
        """Stacks carry over to the next hand; leavers and busted players stand up (a
        busted bot gets a fresh stack: it is the house's)."""
        table = (await conn.execute(sa.select(tables).where(tables.c.id == hand.table_id))).one()
        for seat_no, stack in zip(hand.seat_map, final, strict=True):
            where = (seats.c.table_id == hand.table_id) & (seats.c.seat_no == seat_no)
            row = (await conn.execute(sa.select(seats).where(where))).first()
            if row is None:
                continue
            if row.leaving or (stack == 0 and row.bot is None):
                await conn.execute(sa.delete(seats).where(where))
            else:
                fresh = table.start_stack if stack == 0 else stack
                await conn.execute(sa.update(seats).where(where).values(stack=fresh))
