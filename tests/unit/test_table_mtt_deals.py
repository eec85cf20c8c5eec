"""Verifiable deals at a multi-table tournament's tables (deals.py, mtt/rows.py): every
table the director opens, at the start or later (a late entrant), deals with a deal
ticket when the tournament is verifiable, and without one when it was made with
``verifiable`` off. Bots draw for themselves, so bots' tables deal at once however long
``deal_wait`` is; a person's entropy goes into the deal; an away player is not waited for."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from studclients.client import VARIANTS
from studclients.table import deals
from studclients.table.game import Tables, Timing
from studclients.table.mtt.director import Director
from studclients.table.schema import mtt_tables, seats, tables
from studclients.table.store import Store, hands
from test_table_deals import TicketEngine, starts

SETTINGS: dict[str, Any] = {
    "levels": [{"ante": 0, "bring_in": 5, "small_bet": 10}],
    "payouts": [10000], "buy_in": 100, "seats": 4, "starting_stack": 1000,
    "min_entrants": 2, "late_levels": 1,
}  # fmt: skip


async def tournament(
    db: Path, verifiable: bool, wait: float = 60.0, bots: int = 4
) -> tuple[Tables, Director]:
    store = Store(f"sqlite:///{db}")
    await store.create_schema()
    engine = TicketEngine()
    room = Tables(store, engine, Timing(0.0, 0.0, deal_wait=wait))  # type: ignore[arg-type]
    director = Director(store)
    made = await director.create(
        "m", "Night", VARIANTS["seven"], SETTINGS, seed="s", verifiable=verifiable
    )
    assert made
    for number in range(bots):
        await director.register("m", f"Bot {number}", bot="station")
    return room, director


async def play(room: Tables, director: Director, rounds: int) -> None:
    for _ in range(rounds):
        await director.tick()
        await room.tick()


async def table_rows(store: Store) -> list[Any]:
    query = sa.select(tables).join(mtt_tables, mtt_tables.c.table_id == tables.c.id)
    async with store.engine.connect() as conn:
        return list(await conn.execute(query.order_by(tables.c.id)))


async def dealt(store: Store) -> list[Any]:
    async with store.engine.connect() as conn:
        return list(await conn.execute(sa.select(hands).order_by(hands.c.number)))


def test_a_tournament_s_tables_deal_with_tickets_the_late_one_too(tmp_path: Path) -> None:
    async def run() -> None:
        room, director = await tournament(tmp_path / "m.db", verifiable=True)
        engine: TicketEngine = room.engine  # type: ignore[assignment]
        await director.start("m")
        started = time.monotonic()
        await play(room, director, 12)
        # bots only: no entropy to wait for, so a 60 s deal_wait stalls nothing
        assert time.monotonic() - started < 30
        assert len(await dealt(room.store)) >= 2
        late = await director.register("m", "Ann")  # a person: a table of their own
        assert late["token"]
        await play(room, director, 30)
        rows = await table_rows(room.store)
        assert len(rows) == 2 and all(r.verifiable for r in rows), rows
        played = await dealt(room.store)
        waiting = await deals.pending(room.store, "m-2")  # the late table: Ann's entropy awaited
        assert waiting is not None and waiting.hand_no == 0
        assert waiting.hand_id in {t.hand_id for t in engine.tickets}
        assert len(played) >= 3 and {h.table_id for h in played} == {"m-1"}
        assert starts(engine) and all(r.deal_ticket for r in starts(engine))
        assert [h.hand_id for h in played] == [r.deal_ticket[:32].decode() for r in starts(engine)]
        assert all(h.deal["commitment"] for h in played)

    asyncio.run(run())


def test_turned_off_the_tournament_deals_without_tickets(tmp_path: Path) -> None:
    async def run() -> None:
        room, director = await tournament(tmp_path / "m.db", verifiable=False)
        engine: TicketEngine = room.engine  # type: ignore[assignment]
        await director.start("m")
        await play(room, director, 12)
        assert not any(r.verifiable for r in await table_rows(room.store))
        assert len(starts(engine)) >= 2 and engine.tickets == []
        assert not any(r.deal_ticket for r in starts(engine))
        assert all(h.deal is None for h in await dealt(room.store))

    asyncio.run(run())


def test_a_person_s_entropy_goes_in_and_an_away_player_is_not_waited_for(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        # one table (the stand-in engine keeps one hand's stacks at a time)
        room, director = await tournament(tmp_path / "m.db", verifiable=True, bots=3)
        engine: TicketEngine = room.engine  # type: ignore[assignment]
        ann = await director.register("m", "Ann")
        await director.start("m")
        table_id, seat = await director.where("m", ann["token"]) or ("", -1)
        await play(room, director, 3)
        mine = [h for h in await dealt(room.store) if h.table_id == table_id]
        assert mine == [] and len(engine.tickets) == 1  # Ann's entropy is awaited
        page = await room.page(table_id, seat)
        assert page["deal"]["needed"] and not page["deal"]["contributed"]
        hand_id = page["deal"]["hand"]
        await room.contribute(table_id, seat, {"hand": hand_id, "entropy": "cd" * 32})
        await play(room, director, 1)
        first = next(h for h in await dealt(room.store) if h.table_id == table_id)
        assert first.hand_id == hand_id
        index = first.seat_map.index(seat)
        assert first.deal["sources"][index] == "player"
        request = next(r for r in starts(engine) if r.deal_ticket[:32].decode() == hand_id)
        assert request.contributions[index] == bytes.fromhex("cd" * 32)
        others = len(first.seat_map) - 1
        assert first.deal["sources"].count("table") == others  # the bots drew for themselves
        async with room.store.engine.begin() as conn:  # Ann goes away
            where = (seats.c.table_id == table_id) & (seats.c.seat_no == seat)
            await conn.execute(sa.update(seats).where(where).values(away_since=time.time()))
        await play(room, director, 20)
        again = [h for h in await dealt(room.store) if h.table_id == table_id][1:]
        assert len(again) >= 2  # no 60 s wait: an away player is not dealt in, nor waited for
        assert all(seat not in h.seat_map and h.deal["sources"] for h in again)

    asyncio.run(run())


def test_a_player_who_sends_nothing_holds_the_deal_no_longer_than_deal_wait(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        room, director = await tournament(tmp_path / "m.db", True, wait=0.5, bots=3)
        ann = await director.register("m", "Ann")
        await director.start("m")
        _table_id, seat = await director.where("m", ann["token"]) or ("", -1)
        await play(room, director, 3)
        assert await dealt(room.store) == []  # Ann's entropy awaited, for 0.5 s
        await asyncio.sleep(0.6)
        await play(room, director, 2)
        first = (await dealt(room.store))[0]
        assert first.deal["sources"][first.seat_map.index(seat)] == "table"

    asyncio.run(run())
