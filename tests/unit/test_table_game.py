"""stud-table's storage and clock without a network: a scripted stand-in engine, a SQLite
file. Compare-and-set lets one writer of a step win; a due clock sends TIMEOUT; two
replicas racing one clock apply it once; a bot acts; the button moves and stacks carry."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.table.game import Tables, TableSettings, Timing
from studclients.table.store import Step, Store, history
from studclients.table.store import tables as store_tables


class ScriptedEngine:
    """Answers like the engine's shape: seq + 1, the next seat to act; hands end after
    ``moves`` actions with the chips moved one way. Records every request."""

    def __init__(self, moves: int = 4) -> None:
        self.requests: list[Any] = []
        self.moves = moves

    def _update(self, seq: int, players: int, to_act: int, stacks: list[int]) -> pb.HandUpdate:
        over = seq >= self.moves
        views = [pb.View(viewer_seat=i, seats=[pb.SeatInfo(seat=j) for j in range(players)])
                 for i in range(players)]  # fmt: skip
        update = pb.HandUpdate(
            hand_id=f"{len(self.requests):032x}" if seq == 0 else "",
            seq=seq, state=f"state-{seq}".encode(), seats=views, spectator=views[0], over=over,
            legal_actions=[] if over else [pb.LegalAction(type=pb.ACTION_TYPE_CHECK)],
        )  # fmt: skip
        if over:
            update.result.stacks.extend([stacks[0] + 10, stacks[1] - 10, *stacks[2:]])
        else:
            update.to_act = to_act
        return update

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        self.requests.append(request)
        self.stacks = [p.stack for p in request.players]
        return self._update(
            0, len(request.players), (request.button + 1) % len(request.players), self.stacks
        )

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        self.requests.append(request)
        await asyncio.sleep(0)  # let a racing replica read the same row meanwhile
        players = len(self.stacks)
        return self._update(
            request.expected_seq + 1, players, (request.seat + 1) % players, self.stacks
        )


def tables_on(db: Path, engine: ScriptedEngine) -> Tables:
    return Tables(Store(f"sqlite:///{db}"), engine, Timing(pause=0.0, bot_delay=0.0))  # type: ignore[arg-type]


async def steps(store: Store) -> list[Any]:
    async with store.engine.connect() as conn:
        return list((await conn.execute(sa.select(history).order_by(history.c.seq))).all())


async def expire_clock(store: Store) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(sa.text("UPDATE hands SET deadline = 0 WHERE NOT over"))


def test_compare_and_set_lets_one_writer_of_a_step_win(tmp_path: Path) -> None:
    async def run() -> None:
        engine = ScriptedEngine()
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        await tables.create_table(
            TableSettings("main", "Main", pb.VARIANT_SEVEN_CARD_STUD, clock_seconds=60)
        )
        await tables.join("main", "Ann")
        await tables.join("main", "Bob")
        await tables.tick()
        table = await tables.store.table("main")
        hand = await tables.store.hand(table.current_hand)
        step = Step("player", 0, 2, None, b"x", b"", 1, None, False, None)
        assert await tables.store.advance(hand, step, None, 0.0)
        assert not await tables.store.advance(hand, step, None, 0.0)  # same seq again: refused
        # a second deal from the same table position is refused too
        assert not await tables.store.begin_hand("main", 0, 0, {"hand_id": "f" * 32}, step)
        assert [s.seq for s in await steps(tables.store)] == [0, 1]
        await tables.store.close()

    asyncio.run(run())


def test_a_due_clock_sends_timeout_once_even_with_two_replicas_racing(tmp_path: Path) -> None:
    async def run() -> None:
        engine = ScriptedEngine()
        one, two = tables_on(tmp_path / "t.db", engine), tables_on(tmp_path / "t.db", engine)
        await one.store.create_schema()
        await one.create_table(
            TableSettings("main", "Main", pb.VARIANT_SEVEN_CARD_STUD, clock_seconds=60)
        )
        await one.join("main", "Ann")
        await one.join("main", "Bob")
        await one.tick()
        await two.tick()  # the table is dealt: nothing for the second replica to do
        assert [type(r).__name__ for r in engine.requests] == ["StartHandRequest"]
        await one.tick()  # the clock is not due yet
        assert len(engine.requests) == 1
        await expire_clock(one.store)
        await asyncio.gather(one.tick(), two.tick())
        timeouts = [r for r in engine.requests if getattr(r, "action", 0) == pb.ACTION_TYPE_TIMEOUT]
        assert len(timeouts) == 2  # both replicas asked the engine ...
        applied = await steps(one.store)
        assert [(s.seq, s.source, s.action) for s in applied] == [
            (0, "start", None), (1, "clock", pb.ACTION_TYPE_TIMEOUT),
        ]  # ... and only one answer was stored  # fmt: skip
        await one.store.close()
        await two.store.close()

    asyncio.run(run())


def test_bots_play_the_button_moves_and_stacks_carry_over(tmp_path: Path) -> None:
    async def run() -> None:
        engine = ScriptedEngine(moves=2)
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        settings = TableSettings(
            "main", "Main", pb.VARIANT_SEVEN_CARD_STUD, bots=("station", "station")
        )
        await tables.create_table(settings)
        for _ in range(8):
            await tables.tick()
        starts = [r for r in engine.requests if isinstance(r, pb.StartHandRequest)]
        assert len(starts) >= 3
        assert [r.button for r in starts[:3]] == [0, 1, 0]
        assert [p.stack for p in starts[0].players] == [1000, 1000]
        assert [p.stack for p in starts[1].players] == [1010, 990]
        moves = [r for r in engine.requests if isinstance(r, pb.ActRequest)]
        assert moves and all(r.action == pb.ACTION_TYPE_CHECK for r in moves)
        await tables.store.close()

    asyncio.run(run())


def test_all_in_face_up_goes_through_to_the_engine_s_table(tmp_path: Path) -> None:
    """A table's ``all_in_face_up`` (R-ALL-IN-FACE-UP) is in every StartHand it sends; off
    by default."""

    async def run() -> None:
        engine = ScriptedEngine(moves=1)
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        for table_id, face_up in (("plain", False), ("tourney", True)):
            settings = TableSettings(
                table_id, table_id, pb.VARIANT_SEVEN_CARD_STUD, bots=("station", "station")
            )
            if face_up:
                settings = dataclasses.replace(settings, all_in_face_up=True)
            await tables.create_table(settings)
            assert (await tables.store.table(table_id)).all_in_face_up is face_up
        await tables.tick()
        starts = [r for r in engine.requests if isinstance(r, pb.StartHandRequest)]
        assert sorted(r.table.all_in_face_up for r in starts) == [False, True]
        await tables.store.close()

    asyncio.run(run())


def test_a_database_from_before_the_option_gets_its_column(tmp_path: Path) -> None:
    """A database made before ``all_in_face_up`` existed: its tables table gains the
    column (off for the tables already there), and new tables may turn it on."""
    db = tmp_path / "old.db"
    old = sa.MetaData()
    columns = [
        sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
        for c in store_tables.columns
        if c.name != "all_in_face_up"
    ]
    sa.Table("tables", old, *columns)
    sync = sa.create_engine(f"sqlite:///{db}")
    old.create_all(sync)
    with sync.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO tables (id, name, variant, ante, bring_in, small_bet, big_bet,"
                " start_stack, max_seats, clock_seconds, button, hand_no, next_hand_at,"
                " version) VALUES ('old', 'Old', 2, 5, 10, 20, 40, 1000, 6, 30, -1, 0, 0, 0)"
            )
        )
    sync.dispose()

    async def run() -> None:
        tables = tables_on(db, ScriptedEngine())
        await tables.store.create_schema()
        await tables.store.create_schema()  # twice (another replica): nothing more to add
        assert (await tables.store.table("old")).all_in_face_up is False
        settings = TableSettings("new", "New", pb.VARIANT_SEVEN_CARD_STUD, all_in_face_up=True)
        await tables.create_table(settings)
        assert (await tables.store.table("new")).all_in_face_up is True
        await tables.store.close()

    asyncio.run(run())
