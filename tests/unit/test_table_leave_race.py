"""A player leaving at the moment a sit-and-go starts, through stud-table's back-end with a
scripted stand-in engine on a SQLite file: the leave and the deal that starts the
tournament race, and whichever wins, no chip leaves the seats table. The leave that comes
first unregisters the player (the deal that read the old seats is refused and dealt again
when the seats are full); the deal that comes first keeps the player in, their seat and
chips staying for the tournament (409 ``in_tournament``, nothing changed)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.client import VARIANTS
from studclients.table.errors import ApiError
from studclients.table.game import Tables, TableSettings
from studclients.table.store import Store
from test_table_sitandgo import SCHEDULE, BustingEngine, tables_on, take

STACK = 500


class LeavingDuringDeal(BustingEngine):
    """The stand-in engine, with a player leaving while the first deal is at the engine:
    after the deal read the seats, before it records the hand (the exact moment)."""

    def __init__(self) -> None:
        super().__init__([take(0, 1, amount=100)] * 4)
        self.leave: Any = None  # an awaitable factory, run once inside StartHand
        self.answer: dict[str, Any] | None = None

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        if self.leave is not None:
            leave, self.leave = self.leave, None
            self.answer = await leave()
        return await super().start_hand(request)


async def assert_no_chip_lost(store: Store, table_id: str) -> None:
    """The seats of a sit-and-go that has begun hold every chip it issued."""
    counted = await store.tournament_chips(table_id)
    if counted is not None:
        held, issued = counted
        assert held == issued, f"the seats hold {held} chips of the {issued} issued"


async def sit_and_go(tmp_path: Path, engine: BustingEngine) -> tuple[Tables, str]:
    """A three-seat sit-and-go with two bots and Ann: full, so the next tick deals; Ann's
    seat token."""
    tables = tables_on(tmp_path / "t.db", engine)
    await tables.store.create_schema()
    settings = TableSettings("sng", "SNG", VARIANTS["seven"], start_stack=STACK, max_seats=3,
                             bots=("station", "station"), tournament=SCHEDULE)  # fmt: skip
    assert await tables.create_table(settings)
    return tables, (await tables.join("sng", "Ann"))["token"]


def test_a_leave_while_the_first_deal_is_at_the_engine_unregisters_and_loses_no_chip(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        engine = LeavingDuringDeal()
        tables, token = await sit_and_go(tmp_path, engine)
        engine.leave = lambda: tables.leave("sng", token)
        await tables.tick()
        assert engine.answer == {"left": True, "after_hand": False}
        await assert_no_chip_lost(tables.store, "sng")
        event = await tables.store.tournament("sng")
        assert event is not None and event.status == "registering", "the leave came first"
        assert [s.name for s in await tables.store.seats_of("sng")] == [
            "Station bot",
            "Station bot 2",
        ]
        # a new entrant fills the seat: the tournament starts with the seats as they are
        await tables.join("sng", "Bob")
        await tables.tick()
        event = await tables.store.tournament("sng")
        assert event is not None and event.status == "running"
        seated = {s.seat_no: s for s in await tables.store.seats_of("sng")}
        table = await tables.store.table("sng")
        hand = await tables.store.hand(table.current_hand) if table else None
        assert hand is not None and sorted(hand.seat_map) == sorted(seated)
        assert [seated[s].name for s in hand.seat_map] == hand.names
        await assert_no_chip_lost(tables.store, "sng")
        for _ in range(3):  # every hand moves chips between the seats, none lost
            await tables.tick()
            await assert_no_chip_lost(tables.store, "sng")
        await tables.store.close()

    asyncio.run(run())


def test_a_leave_just_after_the_start_is_refused_and_the_seat_keeps_its_chips(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        engine = BustingEngine([take(0, 1, amount=100)] * 4)
        tables, token = await sit_and_go(tmp_path, engine)
        await tables.tick()  # the deal wins: the tournament is running
        before = await tables.store.seats_of("sng")
        with pytest.raises(ApiError) as refused:
            await tables.leave("sng", token)
        assert (refused.value.status, refused.value.reason) == (409, "in_tournament")
        assert await tables.store.seats_of("sng") == before, "a refusal changes nothing"
        await assert_no_chip_lost(tables.store, "sng")
        await tables.store.close()

    asyncio.run(run())


def test_a_deal_refuses_seats_that_changed_since_it_read_them(tmp_path: Path) -> None:
    async def run() -> None:
        engine = BustingEngine([take(0, 1, amount=100)] * 4)
        tables = tables_on(tmp_path / "t.db", engine)
        store = tables.store
        await store.create_schema()
        await tables.create_table(TableSettings("t", "T", VARIANTS["seven"], bots=("station",)))
        ann = await tables.join("t", "Ann")
        table = await store.table("t")
        seated = list(await store.seats_of("t"))
        assert await store.leave("t", seated[1].seat_no) == "left"
        assert await store.leave("t", 5) == "no_seat"
        update = await engine.start_hand(pb.StartHandRequest(players=[pb.Player()] * 2))
        step = tables._step(update, [None, None], 30.0, "start", None, None, None)
        row = {"hand_id": update.hand_id, "seat_map": [s.seat_no for s in seated],
               "names": [s.name for s in seated], "start_stacks": [s.stack for s in seated],
               "bots": [s.bot for s in seated], "players": [s.player for s in seated]}  # fmt: skip
        assert table is not None
        assert not await store.begin_hand("t", table.hand_no, seated[0].seat_no, row, step)
        after = await store.table("t")
        assert after is not None and (after.hand_no, after.current_hand) == (0, None)
        assert ann["seat"] == seated[1].seat_no
        await store.close()

    asyncio.run(run())
