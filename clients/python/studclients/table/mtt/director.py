"""The tournament director of a multi-table tournament, over the store: registration,
the opening draw, and after every hand the decision of what follows it (places, the
level, balancing and breaking, hand-for-hand) taken once, whichever replica takes it.

Each decision is one transaction that first moves the tournament's row from version
``v`` to ``v + 1`` (compare-and-set: a second replica deciding at the same moment finds
the row moved and rolls back) and then writes the field, the seats moved with their
stacks and tokens, the log of moves and each table's deal limit. A table deals only while
``hand_no < deal_limit`` (store.tables_ready), and the director raises the limit only
after settling the table's last hand: so no table deals a hand the director has not
allowed, and players move only between hands. A replica killed at any moment leaves the
database at one decision or the next."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from studclients.table import tokens
from studclients.table.errors import ApiError
from studclients.table.mtt.field import Field, FieldError
from studclients.table.mtt.rows import LiveTable, hold_all, log_moves, new_table
from studclients.table.mtt.seating import Move, draw, plan_moves, seat_late
from studclients.table.mtt.settings import MttSettings
from studclients.table.schema import hands, mtt_entries, mtt_tables, mtts, seats, tables
from studclients.table.store import Store


@dataclass(frozen=True)
class Decision:
    """What one decision did: the players placed and the moves made."""

    placed: list[int]
    moves: list[Move]


class Director:
    """Multi-table tournaments over ``store``; ``clock_seconds`` is each table's clock."""

    def __init__(self, store: Store, clock_seconds: float = 30.0) -> None:
        self.store = store
        self.clock_seconds = clock_seconds

    # ---- reading ------------------------------------------------------------------------
    async def row(self, mtt_id: str) -> sa.Row[Any]:
        async with self.store.engine.connect() as conn:
            found = (await conn.execute(sa.select(mtts).where(mtts.c.id == mtt_id))).first()
        if found is None:
            raise ApiError(404, "no_tournament", f"there is no tournament {mtt_id!r}")
        return found

    async def field(self, mtt_id: str) -> Field:
        row = await self.row(mtt_id)
        return Field.from_dict(MttSettings.from_dict(row.settings), row.field)

    async def running(self) -> list[str]:
        """The running tournaments with a decision due (``_due``): the field is not read."""
        status = mtts.c.field["status"].as_string()
        query = sa.select(mtts.c.id).where(status == "running", _due(mtts.c.id))
        async with self.store.engine.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def chips_at_tables(self, mtt_id: str) -> int:
        """Every chip at the tournament's tables (conserved: ``field.chips_in_play``)."""
        query = sa.select(sa.func.coalesce(sa.func.sum(seats.c.stack), 0)).where(
            seats.c.table_id.in_(
                sa.select(mtt_tables.c.table_id).where(mtt_tables.c.mtt_id == mtt_id)
            )
        )
        async with self.store.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def entry(self, mtt_id: str, token: str) -> sa.Row[Any]:
        """The token's entry (401 when it is no player's here)."""
        query = sa.select(mtt_entries).where(
            mtt_entries.c.mtt_id == mtt_id, mtt_entries.c.token_hash == tokens.token_hash(token)
        )
        async with self.store.engine.connect() as conn:
            entry = (await conn.execute(query)).first()
        if entry is None:
            raise ApiError(401, "bad_token", "the token is not a player's in this tournament")
        return entry

    async def where(self, mtt_id: str, token: str) -> tuple[str, int] | None:
        """The (table, seat) where the token's player sits now: it follows their moves."""
        entry = await self.entry(mtt_id, token)
        if entry.table_id is None:
            return None
        return entry.table_id, entry.seat_no

    # ---- the compare-and-set ------------------------------------------------------------
    async def _decide(self, mtt_id: str, change: Any) -> Any:
        """Runs ``change(conn, row, field)`` in one transaction after moving the row's
        version on; its field is stored with it. None when another replica decided first
        or ``change`` returned None (nothing to do: rolled back)."""
        row = await self.row(mtt_id)
        settings = MttSettings.from_dict(row.settings)
        field = Field.from_dict(settings, row.field)
        async with self.store.engine.begin() as conn:
            won = await conn.execute(
                sa.update(mtts)
                .where(mtts.c.id == mtt_id, mtts.c.version == row.version)
                .values(version=row.version + 1, step=row.step + 1)
            )
            if won.rowcount != 1:
                await conn.rollback()
                return None
            try:
                result = await change(conn, row, field)
            except FieldError as error:
                await conn.rollback()
                raise ApiError(409, error.reason, str(error)) from None
            if result is None:
                await conn.rollback()
                return None
            await conn.execute(
                sa.update(mtts).where(mtts.c.id == mtt_id).values(field=field.as_dict())
            )
            return result

    # ---- the operator's -----------------------------------------------------------------
    async def create(
        self,
        mtt_id: str,
        name: str,
        variant: int,
        raw: Any,
        seed: str | None = None,
        verifiable: bool = False,
    ) -> bool:
        """A tournament, registering; False when one with that id exists. ``seed`` (drawn
        when not given) makes every seating draw: stored, so the draw can be shown.
        ``verifiable``: every table it opens deals with deal tickets and the players'
        entropy (deals.py); the operator API turns it on unless told not to, as it does
        for a cash table (``TableSettings.verifiable``)."""
        settings = MttSettings.from_dict(raw)
        field = Field(settings)
        try:
            async with self.store.engine.begin() as conn:
                await conn.execute(
                    sa.insert(mtts).values(
                        id=mtt_id,
                        name=name,
                        variant=variant,
                        settings=settings.as_dict(),
                        seed=seed or secrets.token_hex(16),
                        field=field.as_dict(),
                        paused=False,
                        verifiable=verifiable,
                        version=0,
                        step=0,
                        created_at=time.time(),
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    async def register(self, mtt_id: str, name: str, bot: str | None = None) -> dict[str, Any]:
        """A new entry; a person's answer holds their token and their resume token (given
        out only here: the route puts the resume token in a cookie, resume.py). Late
        entrants are seated at once by the seeded draw."""
        token = None if bot else tokens.new_token()
        resume = None if bot else tokens.new_token()

        async def change(conn: AsyncConnection, row: sa.Row[Any], field: Field) -> Any:
            if any(e.name.casefold() == name.casefold() for e in field.entries.values()):
                raise FieldError("name_taken", "someone in this tournament has that name")
            entry = field.register(name)
            await conn.execute(
                sa.insert(mtt_entries).values(
                    mtt_id=mtt_id,
                    player=entry.player,
                    name=name,
                    bot=bot,
                    token_hash=tokens.token_hash(token) if token else None,
                    resume_hash=tokens.token_hash(resume) if resume else None,
                )
            )
            if field.status == "running":
                await self._seat_late(conn, row, field, entry.player)
            return entry.player

        player = await self._decide(mtt_id, change)
        if player is None:
            raise ApiError(409, "busy", "the tournament changed at that moment: try again")
        return {"tournament": mtt_id, "player": player, "token": token, "resume": resume}

    async def start(self, mtt_id: str) -> list[Move]:
        """The opening draw from the stored seed: tables made, every entrant seated."""

        async def change(conn: AsyncConnection, row: sa.Row[Any], field: Field) -> Any:
            field.start()
            seating = draw(sorted(field.entries), field.settings.seats, row.seed)
            for number, chairs in seating.items():
                await new_table(conn, row, field, number, self.clock_seconds)
                for seat_no, player in chairs.items():
                    await self._sit(conn, row, field, player, f"{row.id}-{number}", seat_no)
            await conn.execute(
                sa.update(mtts).where(mtts.c.id == mtt_id).values(started_at=time.time())
            )
            moves = [
                Move(player, 0, 0, number, seat_no, "draw")
                for number, chairs in seating.items()
                for seat_no, player in chairs.items()
            ]
            await log_moves(conn, row, moves)
            return moves

        moves = await self._decide(mtt_id, change)
        if moves is None:
            raise ApiError(409, "busy", "the tournament changed at that moment: try again")
        return list(moves)

    async def cancel(self, mtt_id: str) -> dict[int, int]:
        """Cancels: no table deals again; each player's refund is what they paid."""

        async def change(conn: AsyncConnection, row: sa.Row[Any], field: Field) -> Any:
            refunds = field.cancel()
            await hold_all(conn, mtt_id)
            return refunds

        refunds = await self._decide(mtt_id, change)
        if refunds is None:
            raise ApiError(409, "busy", "the tournament changed at that moment: try again")
        return dict(refunds)

    async def pause(self, mtt_id: str, paused: bool) -> None:
        """Paused: every table finishes its hand and deals no other until resumed."""
        async with self.store.engine.begin() as conn:
            await conn.execute(
                sa.update(mtts)
                .where(mtts.c.id == mtt_id)
                .values(paused=paused, version=mtts.c.version + 1)
            )

    # ---- a player's ----------------------------------------------------------------------
    async def buy(self, mtt_id: str, token: str | None, what: str) -> dict[str, Any]:
        """A rebuy or the add-on (``what``), between the player's hands: the chips go on
        their stack and the price into the pool, in one decision."""
        if not token:
            raise ApiError(401, "no_token", "a player's token is required (Authorization: Bearer)")
        found = await self.where(mtt_id, token)
        if found is None:
            raise ApiError(409, "not_in_play", "that player is not at a table")
        table_id, seat_no = found
        hashed = tokens.token_hash(token)  # checked again in the decision (resume.py)

        async def change(conn: AsyncConnection, row: sa.Row[Any], field: Field) -> Any:
            mine = (mtt_entries.c.mtt_id == row.id) & (mtt_entries.c.token_hash == hashed)
            if (await conn.execute(sa.select(mtt_entries.c.player).where(mine))).first() is None:
                raise ApiError(401, "bad_token", "the token was traded for a new tab's")
            live = {t.table_id: t for t in await self._live_tables(conn, row.id)}
            table = live.get(table_id)
            if (
                table is None
                or not table.idle
                or not await self._lock(conn, table_id, table.hand_no)
            ):
                raise FieldError("in_hand", "the player's table is in a hand: after it")
            where = (seats.c.table_id == table_id) & (seats.c.seat_no == seat_no)
            stack = (await conn.execute(sa.select(seats.c.stack).where(where))).scalar_one()
            player = (await self._seated(conn, row.id))[(table_id, seat_no)]
            before = field.entries[player].chips
            entry = field.rebuy(player, stack) if what == "rebuy" else field.addon(player)
            await conn.execute(
                sa.update(seats).where(where).values(stack=stack + entry.chips - before)
            )
            return {"player": player, "stack": stack + entry.chips - before, "paid": entry.paid}

        answer = await self._decide(mtt_id, change)
        if answer is None:
            raise ApiError(409, "busy", "the tournament changed at that moment: try again")
        return dict(answer)

    # ---- after every hand ---------------------------------------------------------------
    async def decide(self, mtt_id: str, now: float | None = None) -> Decision | None:
        """Settles the hands over, sets the level, balances and breaks, and lets the
        tables deal again (hand-for-hand: all together). None when there was nothing to
        decide or another replica decided."""
        moment = time.time() if now is None else now

        async def change(conn: AsyncConnection, row: sa.Row[Any], field: Field) -> Any:
            if field.status != "running":
                return None
            live = await self._live_tables(conn, row.id)
            between = {t.number for t in live if t.idle}
            unsettled = [t for t in live if t.idle and t.hand_no > t.settled]
            lockstep = field.settings.hand_for_hand(field.alive, len(live))
            if lockstep and len(between) < len(live):
                unsettled = []  # hand-for-hand: the round is settled when every table is done
            placed = await self._settle(conn, field, unsettled)
            placed += await self._drop_bots_waiting(conn, field)
            rounds = max((t.hand_no for t in live), default=0)
            elapsed = moment - (row.started_at or moment)
            level = field.settings.schedule.level_index(rounds, elapsed) + 1
            level_changed = level != field.level
            if level_changed and level - 1 in field.settings.breaks:
                field.at_break = level - 1  # the add-on's break sells it now
                field.break_until = moment + field.settings.break_seconds
            ended = field.at_break is not None and moment >= field.break_until
            if ended:
                field.at_break = None
            field.level = level
            if field.level > field.settings.rebuy_levels and field.waiting:
                placed += field.settle_waiting(sorted(field.waiting))
            await self._unseat(conn, row.id, [p for p in placed if field.places[p] != 1])
            settled_now = {t.number for t in unsettled}
            ready = {
                t.number
                for t in live
                if t.idle
                and (t.hand_no == t.settled or t.number in settled_now)
                and await self._lock(conn, t.table_id, t.hand_no)
            }
            moves = await self._rebalance(conn, row, field, ready)
            ready -= {m.from_table for m in moves if m.why == "break"}
            allowed = False
            if field.status == "finished":
                await hold_all(conn, row.id)
            elif not row.paused and field.at_break is None:
                if level_changed:
                    await self._stakes(conn, row.id, field)
                broken = {m.from_table for m in moves if m.why == "break"}
                if not lockstep or len(ready) == len(live) - len(broken):
                    allowed = await self._allow(conn, [t for t in live if t.number in ready])
            if not (placed or moves or unsettled or level_changed or allowed or ended):
                return None
            return Decision(placed, moves)

        result = await self._decide(mtt_id, change)
        return result if isinstance(result, Decision) else None

    async def tick(self) -> None:
        """One decision for each running tournament with one due; any replica may run it
        at any time."""
        for mtt_id in await self.running():
            await self.decide(mtt_id)

    # ---- the parts of a decision --------------------------------------------------------
    async def _live_tables(self, conn: AsyncConnection, mtt_id: str) -> list[LiveTable]:
        query = (
            sa.select(mtt_tables, tables.c.hand_no, tables.c.current_hand, hands.c.over)
            .join(tables, tables.c.id == mtt_tables.c.table_id)
            .outerjoin(hands, hands.c.hand_id == tables.c.current_hand)
            .where(mtt_tables.c.mtt_id == mtt_id, ~mtt_tables.c.broken)
            .order_by(mtt_tables.c.number)
        )
        return [
            LiveTable(
                r.number,
                r.table_id,
                r.hand_no,
                r.settled,
                r.current_hand is None or bool(r.over),
                list(r.opened),
                r.current_hand,
            )
            for r in await conn.execute(query)
        ]

    async def _seated(
        self, conn: AsyncConnection, mtt_id: str, at: Sequence[str] | None = None
    ) -> dict[tuple[str, int], int]:
        """(table, seat) -> player, for everyone seated (``at``: at those tables only)."""
        query = sa.select(mtt_entries.c.table_id, mtt_entries.c.seat_no, mtt_entries.c.player)
        query = query.where(mtt_entries.c.mtt_id == mtt_id, mtt_entries.c.table_id.is_not(None))
        if at is not None:
            query = query.where(mtt_entries.c.table_id.in_(at))
        return {(e.table_id, e.seat_no): e.player for e in await conn.execute(query)}

    async def _settle(
        self, conn: AsyncConnection, field: Field, done: Sequence[LiveTable]
    ) -> list[int]:
        """Places after the hands of ``done`` (one hand-for-hand round when more than one
        and the field is hand-for-hand: settle() shares places across them)."""
        if not done:
            return []
        mtt_id = (
            await conn.execute(
                sa.select(mtt_tables.c.mtt_id).where(mtt_tables.c.table_id == done[0].table_id)
            )
        ).scalar_one()
        seated = await self._seated(conn, mtt_id, [t.table_id for t in done])
        lockstep = field.settings.hand_for_hand(field.alive, len(done))
        start: dict[int, int] = {}
        final: dict[int, int] = {}
        placed: list[int] = []
        for table in done:
            hand = (
                await conn.execute(sa.select(hands).where(hands.c.hand_id == table.current_hand))
            ).one()
            stacks = {
                s.seat_no: s.stack
                for s in await conn.execute(
                    sa.select(seats).where(seats.c.table_id == table.table_id)
                )
            }
            for seat_no, began in zip(hand.seat_map, hand.start_stacks, strict=True):
                player = seated[(table.table_id, seat_no)]
                start[player], final[player] = began, stacks[seat_no]
            await conn.execute(
                sa.update(mtt_tables)
                .where(mtt_tables.c.table_id == table.table_id)
                .values(settled=table.hand_no)
            )
            if not lockstep:
                placed += field.settle(start, final)
                start, final = {}, {}
        if lockstep:
            placed += field.settle(start, final)
        return placed

    async def _lock(self, conn: AsyncConnection, table_id: str, hand_no: int) -> bool:
        """Holds the table's row (a deal's compare-and-set waits for this transaction,
        then finds its seats changed and deals again) if it still stands at ``hand_no``:
        False when a deal got there first, and the table is not between hands after all."""
        held = await conn.execute(
            sa.update(tables)
            .where(tables.c.id == table_id, tables.c.hand_no == hand_no)
            .values(version=tables.c.version + 1)
        )
        return held.rowcount == 1

    async def _drop_bots_waiting(self, conn: AsyncConnection, field: Field) -> list[int]:
        """Bots do not rebuy: a busted bot is out at once."""
        if not field.waiting:
            return []
        query = sa.select(mtt_entries.c.player).where(
            mtt_entries.c.player.in_(list(field.waiting)), mtt_entries.c.bot.is_not(None)
        )
        return field.settle_waiting(sorted(r.player for r in await conn.execute(query)))

    async def _unseat(self, conn: AsyncConnection, mtt_id: str, placed: Sequence[int]) -> None:
        """The players out leave their seats (the winner keeps theirs, with every chip);
        each seat joins its table's opened list."""
        for player in placed:
            where = (mtt_entries.c.mtt_id == mtt_id) & (mtt_entries.c.player == player)
            entry = (await conn.execute(sa.select(mtt_entries).where(where))).one()
            if entry.table_id is None:
                continue
            await conn.execute(
                sa.delete(seats).where(
                    seats.c.table_id == entry.table_id, seats.c.seat_no == entry.seat_no
                )
            )
            await self._opened(conn, entry.table_id, add=entry.seat_no)
            await conn.execute(
                sa.update(mtt_entries).where(where).values(table_id=None, seat_no=None)
            )

    async def _opened(
        self, conn: AsyncConnection, table_id: str, add: int | None = None, take: int | None = None
    ) -> None:
        where = mtt_tables.c.table_id == table_id
        opened = list(
            (await conn.execute(sa.select(mtt_tables.c.opened).where(where))).scalar_one()
        )
        opened = [s for s in opened if s not in (add, take)] + ([add] if add is not None else [])
        await conn.execute(sa.update(mtt_tables).where(where).values(opened=opened))

    async def _rebalance(
        self, conn: AsyncConnection, row: sa.Row[Any], field: Field, ready: set[int]
    ) -> list[Move]:
        """The moves of the balancing and breaking rule (seating.py), made: each player's
        seat row (their stack, their token) goes to the new table and seat."""
        live = await self._live_tables(conn, row.id)
        number_of = {t.table_id: t.number for t in live}
        layout: dict[int, dict[int, int]] = {t.number: {} for t in live}
        for (table_id, seat_no), player in (await self._seated(conn, row.id)).items():
            layout[number_of[table_id]][seat_no] = player
        opened = {t.number: t.opened for t in live}
        moves = plan_moves(layout, field.settings.seats, ready, opened, row.seed, row.step)
        for move in moves:
            source, target = f"{row.id}-{move.from_table}", f"{row.id}-{move.to_table}"
            await conn.execute(
                sa.update(seats)
                .where(seats.c.table_id == source, seats.c.seat_no == move.from_seat)
                .values(table_id=target, seat_no=move.to_seat)
            )
            await conn.execute(
                sa.update(mtt_entries)
                .where(mtt_entries.c.mtt_id == row.id, mtt_entries.c.player == move.player)
                .values(table_id=target, seat_no=move.to_seat)
            )
            await self._opened(conn, source, add=move.from_seat)
            await self._opened(conn, target, take=move.to_seat)
            layout[move.from_table].pop(move.from_seat)
            layout[move.to_table][move.to_seat] = move.player
        for number, chairs in layout.items():
            if not chairs:
                await conn.execute(
                    sa.update(mtt_tables)
                    .where(mtt_tables.c.table_id == f"{row.id}-{number}")
                    .values(broken=True)
                )
                await conn.execute(
                    sa.update(tables)
                    .where(tables.c.id == f"{row.id}-{number}")
                    .values(deal_limit=tables.c.hand_no)  # a broken table deals no more
                )
        await log_moves(conn, row, moves)
        return moves

    async def _stakes(self, conn: AsyncConnection, mtt_id: str, field: Field) -> None:
        """The level's stakes on every table (each hand dealt from now on plays them)."""
        level = field.settings.schedule.levels[field.level - 1]
        ids = sa.select(mtt_tables.c.table_id).where(mtt_tables.c.mtt_id == mtt_id)
        await conn.execute(sa.update(tables).where(tables.c.id.in_(ids)).values(**level.as_dict()))

    async def _allow(self, conn: AsyncConnection, ready: Sequence[LiveTable]) -> bool:
        """Each ready table may deal its next hand; True when one was not allowed yet."""
        changed = False
        for table in ready:
            moved = await conn.execute(
                sa.update(tables)
                .where(tables.c.id == table.table_id, tables.c.deal_limit != table.hand_no + 1)
                .values(deal_limit=table.hand_no + 1)
            )
            changed = changed or moved.rowcount == 1
        return changed

    async def _sit(
        self, conn: AsyncConnection, row: sa.Row[Any], field: Field, player: int,
        table_id: str, seat_no: int,
    ) -> None:  # fmt: skip
        where = (mtt_entries.c.mtt_id == row.id) & (mtt_entries.c.player == player)
        entry = (await conn.execute(sa.select(mtt_entries).where(where))).one()
        await conn.execute(
            sa.insert(seats).values(
                table_id=table_id,
                seat_no=seat_no,
                name=entry.name,
                token_hash=entry.token_hash,
                bot=entry.bot,
                stack=field.settings.starting_stack,
                leaving=False,
                player=secrets.token_hex(16),
                # a full time bank from the first hand, as a cash table's new seat has
                time_bank=sa.select(tables.c.bank_seconds)
                .where(tables.c.id == table_id)
                .scalar_subquery(),
            )
        )
        await conn.execute(
            sa.update(mtt_entries).where(where).values(table_id=table_id, seat_no=seat_no)
        )
        await self._opened(conn, table_id, take=seat_no)

    async def _seat_late(
        self, conn: AsyncConnection, row: sa.Row[Any], field: Field, player: int
    ) -> None:
        live = await self._live_tables(conn, row.id)
        number_of = {t.table_id: t.number for t in live}
        layout: dict[int, dict[int, int]] = {t.number: {} for t in live}
        for (table_id, seat_no), other in (await self._seated(conn, row.id)).items():
            layout[number_of[table_id]][seat_no] = other
        number, seat_no = seat_late(layout, field.settings.seats, player, row.seed)
        if number not in layout:
            everyone = await conn.execute(
                sa.select(sa.func.max(mtt_tables.c.number)).where(mtt_tables.c.mtt_id == row.id)
            )
            number = (everyone.scalar_one() or 0) + 1
            await new_table(conn, row, field, number, self.clock_seconds)
        await self._sit(conn, row, field, player, f"{row.id}-{number}", seat_no)
        await log_moves(conn, row, [Move(player, 0, 0, number, seat_no, "late")])


def _due(mtt_id: Any) -> sa.ColumnElement[bool]:
    """Whether a decision may have something to do for the tournament ``mtt_id``: a table
    between hands whose hand is not settled or that may not deal yet, or no table in a
    hand at all. Otherwise every table is in a hand or allowed its next one, and the
    director waits for a hand to end (no table deals without a decision, which sets the
    level and the stakes first), without taking the tournament's row or reading its field.
    One query over the tournament's tables, whatever the size of the field."""
    idle = sa.or_(tables.c.current_hand.is_(None), hands.c.over)
    live = (
        sa.select(mtt_tables.c.table_id)
        .join(tables, tables.c.id == mtt_tables.c.table_id)
        .outerjoin(hands, hands.c.hand_id == tables.c.current_hand)
        .where(mtt_tables.c.mtt_id == mtt_id, ~mtt_tables.c.broken)
    )
    waiting = sa.or_(
        tables.c.hand_no > mtt_tables.c.settled,
        tables.c.deal_limit.is_(None),
        tables.c.deal_limit != tables.c.hand_no + 1,
    )
    return sa.or_(live.where(idle, waiting).exists(), ~live.where(~idle).exists())
