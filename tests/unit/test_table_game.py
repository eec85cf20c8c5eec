"""stud-table's storage and clock without a network: a scripted stand-in engine, a SQLite
file. Compare-and-set lets one writer of a step win; a due clock sends TIMEOUT; two
replicas racing one clock apply it once; a bot acts; the button moves and stacks carry."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.table.away import AwayPolicy
from studclients.table.errors import ApiError
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

    async def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        return pb.GetViewResponse()  # every state opens

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        self.requests.append(request)
        await asyncio.sleep(0)  # let a racing replica read the same row meanwhile
        return self.answer(request)

    def answer(self, request: pb.ActRequest) -> pb.HandUpdate:
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


async def two_replicas(
    db: Path, bank_seconds: float, racing: bool = False
) -> tuple[ScriptedEngine, Tables, Tables]:
    """Two replicas on one SQLite file, a 60 s clock, Ann and Bob seated, a hand dealt."""
    engine = RacingEngine() if racing else ScriptedEngine()
    one, two = tables_on(db, engine), tables_on(db, engine)
    await one.store.create_schema()
    await one.create_table(
        TableSettings(
            "main", "Main", pb.VARIANT_SEVEN_CARD_STUD, clock_seconds=60, bank_seconds=bank_seconds
        )
    )
    await one.join("main", "Ann")
    await one.join("main", "Bob")
    await one.tick()
    return engine, one, two


class RacingEngine(ScriptedEngine):
    """Holds each Act until a second one has arrived (10 s at most), so two replicas racing
    on one due clock both reach the engine before either stores its answer, however
    loaded the machine is."""

    def __init__(self) -> None:
        super().__init__()
        self.both_asked = asyncio.Event()

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        self.requests.append(request)
        if sum(isinstance(r, pb.ActRequest) for r in self.requests) >= 2:
            self.both_asked.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.both_asked.wait(), 10)
        return self.answer(request)


def test_a_due_clock_sends_timeout_once_even_with_two_replicas_racing(tmp_path: Path) -> None:
    async def run() -> None:
        engine, one, two = await two_replicas(tmp_path / "t.db", bank_seconds=0, racing=True)
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


async def two_bots_played(db: Path, ticks: int = 8) -> tuple[ScriptedEngine, Tables]:
    """A table of two station bots whose hands end after two moves, ``ticks`` ticks on."""
    engine = ScriptedEngine(moves=2)
    tables = tables_on(db, engine)
    await tables.store.create_schema()
    settings = TableSettings(
        "main", "Main", pb.VARIANT_SEVEN_CARD_STUD, bots=("station", "station")
    )
    await tables.create_table(settings)
    for _ in range(ticks):
        await tables.tick()
    return engine, tables


def test_bots_play_the_button_moves_and_stacks_carry_over(tmp_path: Path) -> None:
    async def run() -> None:
        engine, tables = await two_bots_played(tmp_path / "t.db")
        starts = [r for r in engine.requests if isinstance(r, pb.StartHandRequest)]
        assert len(starts) >= 3
        assert [r.button for r in starts[:3]] == [0, 1, 0]
        assert [p.stack for p in starts[0].players] == [1000, 1000]
        assert [p.stack for p in starts[1].players] == [1010, 990]
        moves = [r for r in engine.requests if isinstance(r, pb.ActRequest)]
        assert moves and all(r.action == pb.ACTION_TYPE_CHECK for r in moves)
        await tables.store.close()

    asyncio.run(run())


def test_the_hands_checked_open_are_forgotten_once_finished(tmp_path: Path) -> None:
    """Each hand in progress is opened once (GetView) and remembered while it is open, not
    after: a table dealing for days keeps no set of every hand it ever dealt."""

    async def run() -> None:
        engine, tables = await two_bots_played(tmp_path / "t.db")
        starts = [r for r in engine.requests if isinstance(r, pb.StartHandRequest)]
        assert len(starts) >= 3  # hands were dealt, checked and finished
        open_now = {hand.hand_id for hand in await tables.store.open_hands()}
        assert len(tables.checked) <= 1 and tables.checked <= open_now
        await tables.store.close()

    asyncio.run(run())


def test_each_bot_and_player_has_a_name_of_their_own(tmp_path: Path) -> None:
    """Bots of one kind are told apart by number; a name taken at the table is refused."""

    async def run() -> None:
        tables = tables_on(tmp_path / "t.db", ScriptedEngine())
        await tables.store.create_schema()
        await tables.create_table(
            TableSettings("main", "Main", pb.VARIANT_SEVEN_CARD_STUD, bots=("station", "station"))
        )
        answer = await tables.join("main", "Ann")
        await tables.add_bot("main", answer["token"], "station")
        await tables.add_bot("main", answer["token"], "equity")
        names = [s.name for s in await tables.store.seats_of("main")]
        assert names == ["Station bot", "Station bot 2", "Ann", "Station bot 3", "Equity bot"]
        with pytest.raises(ApiError) as refused:
            await tables.join("main", " ann ")
        assert (refused.value.status, refused.value.reason) == (409, "name_taken")
        await tables.store.close()

    asyncio.run(run())


def test_a_due_clock_goes_onto_the_time_bank_once_with_two_replicas_racing(
    tmp_path: Path,
) -> None:
    """The clock runs out onto the bank: one replica moves the deadline, the other does
    nothing (no TIMEOUT); when the bank runs out too, TIMEOUT goes in and the bank is spent."""

    async def run() -> None:
        engine, one, two = await two_replicas(tmp_path / "t.db", bank_seconds=45)
        await expire_clock(one.store)
        await asyncio.gather(one.tick(), two.tick())
        assert [type(r).__name__ for r in engine.requests] == ["StartHandRequest"]
        (hand,) = await one.store.open_hands()
        assert hand.bank_from is not None and hand.deadline >= hand.bank_from + 45
        await expire_clock(one.store)
        await asyncio.gather(one.tick(), two.tick())
        applied = await steps(one.store)
        assert [(s.seq, s.source) for s in applied] == [(0, "start"), (1, "clock")]
        banks = {s.name: (s.time_bank, s.timeouts) for s in await one.store.seats_of("main")}
        to_act = hand.seat_map[hand.to_act]
        assert banks[["Ann", "Bob"][to_act]] == (0.0, 1)
        await one.store.close()
        await two.store.close()

    asyncio.run(run())


def test_a_leaver_whose_clock_was_set_before_the_leave_was_stored_is_timed_out_now(
    tmp_path: Path,
) -> None:
    """A move sets the next seat's clock just as that player leaves (the leave stored
    after the move read who is away or leaving): the clock acts for the leaver at once,
    without the time bank, not after the whole clock."""

    async def run() -> None:
        _, one, two = await two_replicas(tmp_path / "t.db", bank_seconds=45)
        (hand,) = await one.store.open_hands()
        leaver = hand.seat_map[hand.to_act]
        assert hand.deadline > hand.updated_at + 30  # the 60 s clock, set before the leave
        async with one.store.engine.begin() as conn:
            await conn.execute(
                sa.text("UPDATE seats SET leaving = 1 WHERE seat_no = :s"), {"s": leaver}
            )
        await asyncio.gather(one.tick(), two.tick())
        await asyncio.gather(one.tick(), two.tick())
        applied = await steps(one.store)
        assert [(s.seq, s.source, s.action) for s in applied] == [
            (0, "start", None), (1, "clock", pb.ACTION_TYPE_TIMEOUT),
        ]  # fmt: skip
        banks = {s.seat_no: s.time_bank for s in await one.store.seats_of("main")}
        assert banks.get(leaver, 45) == 45  # the bank was not started
        await one.store.close()
        await two.store.close()

    asyncio.run(run())


def test_a_player_away_past_the_limit_gives_up_the_seat(tmp_path: Path) -> None:
    """Ghost seats: two timeouts in a row mark a player away; not dealt in, and once away
    longer than the away limit the seat is freed (the other players keep theirs)."""

    async def run() -> None:
        engine = ScriptedEngine(moves=1)
        store = Store(f"sqlite:///{tmp_path / 't.db'}")
        tables = Tables(
            store, engine, Timing(pause=0.0, bot_delay=0.0), away=AwayPolicy(away_limit=60)
        )  # type: ignore[arg-type]
        await store.create_schema()
        await tables.create_table(
            TableSettings("main", "Main", pb.VARIANT_SEVEN_CARD_STUD, bank_seconds=0)
        )
        for name in ("Ann", "Bob", "Cy"):
            await tables.join("main", name)
        await tables.tick()
        (hand,) = await store.open_hands()
        ghost = hand.seat_map[hand.to_act]
        for _ in range(2):
            row = next(s for s in await store.seats_of("main") if s.seat_no == ghost)
            await tables.away.timed_out(hand, ghost)
        assert await tables.away.away_seats("main") == {ghost}
        assert row.timeouts == 1
        await expire_clock(store)
        await tables.tick()  # the hand ends (one move); the next is dealt without the ghost
        await tables.tick()
        (hand,) = await store.open_hands()
        assert ghost not in hand.seat_map and len(hand.seat_map) == 2
        async with store.engine.begin() as conn:
            await conn.execute(sa.text("UPDATE seats SET away_since = away_since - 61"))
        await tables.tick()  # away past the limit: not in this hand, so freed at once
        assert ghost not in {s.seat_no for s in await store.seats_of("main")}
        assert len(await store.seats_of("main")) == 2
        await store.close()

    asyncio.run(run())


def test_a_hand_over_at_the_deal_is_settled_once(tmp_path: Path) -> None:
    """Everyone but one all in on the antes: the hand is over when dealt. Its stacks are
    settled with the deal (it was dealt again and again with the same stacks)."""

    async def run() -> None:
        engine = ScriptedEngine(moves=0)  # every hand ends at seq 0, 10 chips to seat 0
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        await tables.create_table(TableSettings("main", "Main", pb.VARIANT_SEVEN_CARD_STUD))
        await tables.join("main", "Ann")
        await tables.join("main", "Bob")
        await tables.tick()
        stacks = {s.name: s.stack for s in await tables.store.seats_of("main")}
        assert sum(stacks.values()) == 2000 and sorted(stacks.values()) == [990, 1010]
        await tables.tick()  # the next hand starts from the settled stacks
        starts = [r for r in engine.requests if isinstance(r, pb.StartHandRequest)]
        assert [sorted(p.stack for p in r.players) for r in starts] == [[1000, 1000], [990, 1010]]


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
    """A database made before ``all_in_face_up`` (and the time banks) existed: its tables
    table gains the columns (off, and the defaults, for the tables already there), and new
    tables may turn it on."""
    db = tmp_path / "old.db"
    old = sa.MetaData()
    columns = [
        sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
        for c in store_tables.columns
        if c.server_default is None  # the columns added since (all_in_face_up, time banks)
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
