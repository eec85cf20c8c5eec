"""The clock's second half: time banks and players away. When a player's clock runs out
they go onto their time bank (seconds of their own, refilled every ``bank_every`` hands
they are dealt); when that runs out too the engine's TIMEOUT is sent. Two timeouts in a
row mark the player away: from the next hand they are not dealt in (at a tournament they
stay dealt in, and act at once by the clock) until they come back from the page; away
longer than ``away_limit`` seconds, they give up the seat. Each write is one transaction
on the seat's row, and the move onto the bank a compare-and-set on the hand's seq."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from studclients.table import metrics
from studclients.table.store import Store, hands, seats


@dataclass(frozen=True)
class AwayPolicy:
    """Per replica: timeouts in a row that mark a player away, and the seconds away after
    which the seat is given up (0: never)."""

    away_after: int = 2
    away_limit: float = 600.0


def _seat(table_id: str, seat_no: int) -> Any:
    return (seats.c.table_id == table_id) & (seats.c.seat_no == seat_no)


class Away:
    """Time banks and away players, over the store's database."""

    def __init__(self, store: Store, policy: AwayPolicy | None = None) -> None:
        self.store = store
        self.policy = policy or AwayPolicy()

    async def _seat_row(self, table_id: str, seat_no: int) -> sa.Row[Any] | None:
        async with self.store.engine.connect() as conn:
            return (await conn.execute(sa.select(seats).where(_seat(table_id, seat_no)))).first()

    async def start_bank(self, hand: sa.Row[Any]) -> str:
        """The clock of the seat to act ran out: puts it on its time bank (the deadline
        moves by the bank's seconds): ``"bank"``. ``"timeout"`` when the clock should act
        (no bank left, already on it, away or leaving); ``"moved"`` when another writer moved the
        hand or started the bank first (nothing to do)."""
        if hand.bank_from is not None or hand.to_act is None:
            return "timeout"
        row = await self._seat_row(hand.table_id, hand.seat_map[hand.to_act])
        if row is None or row.time_bank <= 0 or row.away_since is not None or row.leaving:
            return "timeout"
        now = time.time()
        async with self.store.engine.begin() as conn:
            moved = await conn.execute(
                sa.update(hands)
                .where(
                    hands.c.hand_id == hand.hand_id,
                    hands.c.seq == hand.seq,
                    hands.c.bank_from.is_(None),
                )
                .values(bank_from=now, deadline=now + row.time_bank)
            )
            if moved.rowcount != 1:
                await conn.rollback()
                metrics.CAS_CONFLICTS.labels("bank").inc()
                return "moved"
            await Store._bump(conn, hand.table_id)
        metrics.TIME_BANKS_USED.inc()
        return "bank"

    async def timed_out(self, hand: sa.Row[Any], seat_no: int) -> None:
        """The engine's TIMEOUT went in for ``seat_no``: its bank is spent if it was on it,
        one more timeout in a row, and away once there are ``away_after`` of them."""
        metrics.CLOCK_TIMEOUTS.inc()
        row = await self._seat_row(hand.table_id, seat_no)
        if row is None:
            return
        values: dict[str, Any] = {"timeouts": row.timeouts + 1}
        if hand.bank_from is not None:
            values["time_bank"] = 0.0
        if row.away_since is None and row.timeouts + 1 >= self.policy.away_after:
            values["away_since"] = time.time()
            metrics.PLAYERS_AWAY.inc()
        await self._update(hand.table_id, seat_no, values)

    async def moved(self, hand: sa.Row[Any], seat_no: int) -> None:
        """The player moved: no timeouts in a row, present, and the bank time they used."""
        row = await self._seat_row(hand.table_id, seat_no)
        if row is None:
            return
        values: dict[str, Any] = {}
        if row.timeouts or row.away_since is not None:
            values.update(timeouts=0, away_since=None)
        if hand.bank_from is not None:
            values["time_bank"] = max(0.0, row.time_bank - (time.time() - hand.bank_from))
        if values:
            await self._update(hand.table_id, seat_no, values)

    async def back(self, table_id: str, seat_no: int) -> bool:
        """The player says they are back: dealt in again from the next hand. False when
        they were not away."""
        row = await self._seat_row(table_id, seat_no)
        if row is None or row.away_since is None:
            return False
        await self._update(table_id, seat_no, {"away_since": None, "timeouts": 0})
        return True

    async def dealt(self, table: sa.Row[Any], seat_nos: Sequence[int]) -> None:
        """A hand was dealt to these seats: each counts a hand towards its next refill, and
        gets its full bank back every ``bank_every`` hands."""
        every = max(1, int(table.bank_every))
        async with self.store.engine.begin() as conn:
            for seat_no in seat_nos:
                where = _seat(table.id, seat_no) & seats.c.bot.is_(None)
                await conn.execute(
                    sa.update(seats).where(where).values(bank_hands=seats.c.bank_hands + 1)
                )
                await conn.execute(
                    sa.update(seats)
                    .where(where, seats.c.bank_hands >= every)
                    .values(bank_hands=0, time_bank=table.bank_seconds)
                )

    async def away_seats(self, table_id: str) -> set[int]:
        """The table seats whose players are away now, or leaving: the clock acts for
        them at once rather than waiting out their clock."""
        async with self.store.engine.connect() as conn:
            query = sa.select(seats.c.seat_no).where(
                seats.c.table_id == table_id,
                seats.c.away_since.is_not(None) | seats.c.leaving,
            )
            return {row.seat_no for row in await conn.execute(query)}

    async def act_now(self, hand: sa.Row[Any]) -> None:
        """The seat to act has gone (left the table): its clock runs out now (a
        compare-and-set on the hand's seq: a move that came first wins)."""
        async with self.store.engine.begin() as conn:
            await conn.execute(
                sa.update(hands)
                .where(hands.c.hand_id == hand.hand_id, hands.c.seq == hand.seq)
                .values(deadline=time.time(), bank_from=None)
            )

    async def hurry(self, open_hands: Sequence[sa.Row[Any]], now: float) -> None:
        """The clock runs out now for each seat to act that is away or leaving but whose
        clock was set before that was stored (a move raced the leave or the time-out)."""
        waiting = [
            hand
            for hand in open_hands
            if hand.to_act is not None
            and hand.bots[hand.to_act] is None
            and hand.deadline is not None
            and hand.deadline > now
        ]
        if not waiting:
            return
        async with self.store.engine.connect() as conn:
            query = sa.select(seats.c.table_id, seats.c.seat_no).where(
                seats.c.away_since.is_not(None) | seats.c.leaving
            )
            gone = {(row.table_id, row.seat_no) for row in await conn.execute(query)}
        for hand in waiting:
            if (hand.table_id, hand.seat_map[hand.to_act]) in gone:
                await self.act_now(hand)

    async def idle_too_long(self, now: float) -> Sequence[sa.Row[Any]]:
        """Seats away for longer than ``away_limit`` (none when it is 0)."""
        if self.policy.away_limit <= 0:
            return []
        async with self.store.engine.connect() as conn:
            query = sa.select(seats).where(seats.c.away_since < now - self.policy.away_limit)
            return (await conn.execute(query)).all()

    async def _update(self, table_id: str, seat_no: int, values: dict[str, Any]) -> None:
        async with self.store.engine.begin() as conn:
            await conn.execute(sa.update(seats).where(_seat(table_id, seat_no)).values(**values))
            await Store._bump(conn, table_id)
