"""stud-table's storage, in SQLAlchemy Core over asyncio: SQLite (aiosqlite) by default,
PostgreSQL (asyncpg) by URL, one schema and one set of statements for both.

Every change is a compare-and-set: a hand moves from ``seq`` to ``seq + 1`` only if its row
still holds ``seq`` (``UPDATE ... WHERE hand_id = ? AND seq = ?``), and a table deals hand
``n + 1`` only if it still stands at ``n``. Several replicas can share one database: the
loser of a race sees ``False`` and re-reads."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from studclients.table import tournament
from studclients.table.schema import (
    add_missing_columns,
    hands,
    history,
    history_tokens,
    metadata,
    plays,
    seats,
    tables,
    tournaments,
)

__all__ = [
    "Step",
    "Store",
    "add_missing_columns",
    "async_url",
    "hands",
    "history",
    "history_tokens",
    "metadata",
    "plays",
    "seats",
    "tables",
    "tournaments",
]


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


def directed(table: sa.Row[Any]) -> bool:
    """Whether ``table`` (a ``tables`` row) is a multi-table tournament's: its director
    seats and moves its players and allows each deal (``deal_limit``)."""
    return table.deal_limit is not None


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
                    await conn.run_sync(add_missing_columns)
                return
            except sa.exc.DBAPIError:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.5)

    async def close(self) -> None:
        await self.engine.dispose()

    # ---- reading ------------------------------------------------------------------------
    async def _rows(self, query: sa.Executable) -> Sequence[sa.Row[Any]]:
        """Every row ``query`` selects, on a connection of its own."""
        async with self.engine.connect() as conn:
            return (await conn.execute(query)).all()

    async def _row(self, query: sa.Executable) -> sa.Row[Any] | None:
        """The first row ``query`` selects (None when there is none)."""
        async with self.engine.connect() as conn:
            return (await conn.execute(query)).first()

    async def table(self, table_id: str) -> sa.Row[Any] | None:
        return await self._row(sa.select(tables).where(tables.c.id == table_id))

    async def all_tables(self) -> Sequence[sa.Row[Any]]:
        return await self._rows(sa.select(tables).order_by(tables.c.id))

    async def versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        query = sa.select(tables.c.id, tables.c.version).where(tables.c.id.in_(table_ids))
        return {row.id: int(row.version) for row in await self._rows(query)}

    async def seats_of(self, table_id: str) -> Sequence[sa.Row[Any]]:
        query = sa.select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat_no)
        return await self._rows(query)

    async def hand(self, hand_id: str) -> sa.Row[Any] | None:
        return await self._row(sa.select(hands).where(hands.c.hand_id == hand_id))

    async def history_of(self, hand_id: str) -> Sequence[sa.Row[Any]]:
        query = sa.select(history).where(history.c.hand_id == hand_id).order_by(history.c.seq)
        return await self._rows(query)

    async def tournament(self, table_id: str) -> sa.Row[Any] | None:
        return await self._row(sa.select(tournaments).where(tournaments.c.table_id == table_id))

    async def all_tournaments(self) -> dict[str, sa.Row[Any]]:
        return {row.table_id: row for row in await self._rows(sa.select(tournaments))}

    async def tournament_chips(self, table_id: str) -> tuple[int, int] | None:
        """A sit-and-go that has begun: the chips its seats hold and the chips it issued
        (entrants times the starting stack), equal at every moment (a hand's stacks are
        written with its last step). None at a cash table or before the start."""
        async with self.engine.connect() as conn:
            event = (
                await conn.execute(sa.select(tournaments).where(tournaments.c.table_id == table_id))
            ).first()
            table = (await conn.execute(sa.select(tables).where(tables.c.id == table_id))).first()
            if event is None or table is None or event.status == "registering":
                return None
            held = sa.select(sa.func.coalesce(sa.func.sum(seats.c.stack), 0)).where(
                seats.c.table_id == table_id
            )
            return int((await conn.execute(held)).scalar_one()), event.entrants * table.start_stack

    async def hands_played(self, player: str) -> Sequence[sa.Row[Any]]:
        """The finished hands the sitting ``player`` was dealt into, oldest first."""
        query = (
            sa.select(hands)
            .join(plays, plays.c.hand_id == hands.c.hand_id)
            .where(plays.c.player == player, hands.c.over)
            .order_by(hands.c.number)
        )
        return await self._rows(query)

    async def played(self, player: str, hand_id: str) -> bool:
        """Whether the sitting ``player`` was dealt into the hand."""
        query = sa.select(plays.c.seat_no).where(
            plays.c.player == player, plays.c.hand_id == hand_id
        )
        return await self._row(query) is not None

    async def finished_hands(self, table_id: str) -> Sequence[sa.Row[Any]]:
        query = (
            sa.select(hands)
            .where(hands.c.table_id == table_id, hands.c.over)
            .order_by(hands.c.number)
        )
        return await self._rows(query)

    async def open_hands(self) -> Sequence[sa.Row[Any]]:
        return await self._rows(sa.select(hands).where(~hands.c.over))

    async def due_hands(self, now: float) -> Sequence[sa.Row[Any]]:
        """Hands in progress whose clock (or bot's thinking time) has run out."""
        return await self._rows(sa.select(hands).where(~hands.c.over, hands.c.deadline <= now))

    async def tables_ready(self, now: float) -> Sequence[sa.Row[Any]]:
        """Tables with no hand in progress whose pause after the last hand is over."""
        open_hand = sa.select(hands.c.hand_id).where(
            hands.c.hand_id == tables.c.current_hand, ~hands.c.over
        )
        return await self._rows(
            sa.select(tables).where(
                tables.c.next_hand_at <= now,
                ~open_hand.exists(),
                sa.or_(tables.c.deal_limit.is_(None), tables.c.hand_no < tables.c.deal_limit),
            )
        )

    # ---- writing ------------------------------------------------------------------------
    async def create_table(self, tournament: dict[str, Any] | None = None, **values: Any) -> bool:
        """Creates the table (and its tournament) unless one with that id exists (another
        replica may be creating it at the same moment); True when created here."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    sa.insert(tables).values(
                        button=-1, hand_no=0, next_hand_at=0.0, version=0, **values
                    )
                )
                if tournament is not None:
                    await conn.execute(
                        sa.insert(tournaments).values(
                            table_id=values["id"],
                            status="registering",
                            level=0,
                            places={},
                            names={},
                            **tournament,
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
        self,
        table_id: str,
        name: str,
        token_hash: bytes | None,
        bot: str | None,
        stack: int,
        **extra: Any,
    ) -> int | None:
        """Sits a player (or bot) in the lowest free seat; the seat, or None when full. Two
        joins racing for one seat: the primary key lets one in, the other tries the next.
        ``extra``: more of the seat's columns (its time bank, its resume token's hash, the
        sitting's ``player`` id: a random one when not given)."""
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
                            **{"player": secrets.token_hex(16), **extra},
                        )
                    )
                except sa.exc.IntegrityError:
                    continue
                await self._bump(conn, table_id)
                return free[0]
        return None

    async def leave(self, table_id: str, seat_no: int) -> str:
        """Frees the seat now (``"left"``) or when the hand it is dealt into ends
        (``"after_hand"``); ``"in_tournament"`` (nothing changed) once a sit-and-go has
        begun and always at a multi-table tournament's table, ``"no_seat"`` when the
        seat is empty. Decided under the table row's lock (taken first), which the deal
        takes too: a leave and the deal that starts a sit-and-go never both win
        (begin_hand checks its seats under that lock)."""
        async with self.engine.begin() as conn:
            await self._bump(conn, table_id)
            where = (seats.c.table_id == table_id) & (seats.c.seat_no == seat_no)
            event = (
                await conn.execute(
                    sa.select(tournaments.c.status).where(tournaments.c.table_id == table_id)
                )
            ).first()
            seat = (await conn.execute(sa.select(seats.c.seat_no).where(where))).first()
            limit = sa.select(tables.c.deal_limit).where(tables.c.id == table_id)
            in_mtt = (await conn.execute(limit)).scalar_one_or_none() is not None
            if seat is None or in_mtt or (event is not None and event.status == "running"):
                await conn.rollback()
                return "no_seat" if seat is None else "in_tournament"
            open_hand = sa.select(hands.c.seat_map).where(
                hands.c.hand_id == tables.c.current_hand, ~hands.c.over
            )
            dealt = (await conn.execute(open_hand.where(tables.c.id == table_id))).first()
            if dealt is not None and seat_no in dealt.seat_map:
                await conn.execute(sa.update(seats).where(where).values(leaving=True))
                return "after_hand"
            await conn.execute(sa.delete(seats).where(where))
            return "left"

    async def begin_hand(
        self,
        table_id: str,
        expected_hand_no: int,
        button: int,
        row: dict[str, Any],
        step: Step,
        table_values: dict[str, Any] | None = None,
        tournament_values: dict[str, Any] | None = None,
        final_stacks: Sequence[int] | None = None,
        pause: float = 0.0,
    ) -> bool:
        """Records a newly dealt hand if the table still stands at ``expected_hand_no``;
        ``table_values`` (the hand's game and stakes) and ``tournament_values`` (its
        level, the start) are written in the same transaction, and so is the settlement
        of a hand over at the deal (``final_stacks``: every player but one all in on the
        antes), which would otherwise be dealt again and again."""
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
                    **(table_values or {}),
                )
            )
            if moved.rowcount != 1 or not await _seats_unchanged(conn, table_id, row):
                await conn.rollback()
                return False
            if tournament_values:
                await conn.execute(
                    sa.update(tournaments)
                    .where(tournaments.c.table_id == table_id)
                    .values(**tournament_values)
                )
            players = row.pop("players", None) or []
            await conn.execute(
                sa.insert(hands).values(
                    table_id=table_id,
                    number=expected_hand_no + 1,
                    seq=0,
                    **_hand_columns(step, now),
                    **row,
                )
            )
            for seat_no, player in zip(row["seat_map"], players, strict=True):
                if player is not None:
                    await conn.execute(
                        sa.insert(plays).values(
                            player=player, hand_id=row["hand_id"], seat_no=seat_no
                        )
                    )
            await self._history(conn, row["hand_id"], 0, step, now)
            if final_stacks is not None:
                query = sa.select(hands).where(hands.c.hand_id == row["hand_id"])
                await self._settle(conn, (await conn.execute(query)).one(), final_stacks)
                await conn.execute(
                    sa.update(tables)
                    .where(tables.c.id == table_id)
                    .values(next_hand_at=now + pause)
                )
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
                    **_hand_columns(step, now),
                    bank_from=None,
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
        busted bot gets a fresh stack: it is the house's). At a tournament the busted
        keep their seats with no chips, and their places are decided here."""
        table = (await conn.execute(sa.select(tables).where(tables.c.id == hand.table_id))).one()
        if await _settle_tournament(conn, hand, final):
            return
        if directed(table):  # a multi-table tournament's: its director settles
            for seat_no, stack in zip(hand.seat_map, final, strict=True):
                where = (seats.c.table_id == hand.table_id) & (seats.c.seat_no == seat_no)
                await conn.execute(sa.update(seats).where(where).values(stack=stack))
            return
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


def _hand_columns(step: Step, now: float) -> dict[str, Any]:
    """What a step writes into its hand's row (the deal's insert, every move's update)."""
    return {
        "state": step.state,
        "update": step.update,
        "to_act": step.to_act,
        "deadline": step.deadline,
        "over": step.over,
        "reveal": step.reveal,
        "updated_at": now,
    }


async def _seats_unchanged(conn: AsyncConnection, table_id: str, row: dict[str, Any]) -> bool:
    """Whether every seat a deal read is still held by the same sitting with the same
    stack and not leaving (read under the table row's lock: a leave or a settlement
    since the deal read the seats makes it deal again rather than lose those chips)."""
    query = sa.select(seats).where(
        seats.c.table_id == table_id, seats.c.seat_no.in_(row["seat_map"])
    )
    now = {s.seat_no: (s.player, s.stack, bool(s.leaving)) for s in await conn.execute(query)}
    read = zip(row["seat_map"], row.get("players") or [], row["start_stacks"], strict=True)
    return all(now.get(seat_no) == (player, stack, False) for seat_no, player, stack in read)


async def _settle_tournament(
    conn: AsyncConnection, hand: sa.Row[Any], final: Sequence[int]
) -> bool:
    """The end of a tournament hand (False at a table that runs none): the stacks, the
    places of the players who busted on it, and the end of the tournament once one player
    has every chip."""
    where = tournaments.c.table_id == hand.table_id
    row = (await conn.execute(sa.select(tournaments).where(where))).first()
    if row is None or row.status != "running":
        return False
    for seat_no, stack in zip(hand.seat_map, final, strict=True):
        await conn.execute(
            sa.update(seats)
            .where(seats.c.table_id == hand.table_id, seats.c.seat_no == seat_no)
            .values(stack=stack)
        )
    before = tournament.Standings(row.entrants, {int(s): p for s, p in row.places.items()})
    start = dict(zip(hand.seat_map, hand.start_stacks, strict=True))
    after = tournament.eliminate(before, start, dict(zip(hand.seat_map, final, strict=True)))
    values: dict[str, Any] = {"places": {str(s): p for s, p in after.places.items()}}
    if after.finished:
        values.update(status="finished", finished_at=time.time())
    await conn.execute(sa.update(tournaments).where(where).values(**values))
    return True
