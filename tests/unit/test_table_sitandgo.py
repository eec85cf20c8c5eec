"""A sit-and-go and a mixed table through stud-table's back-end, with a scripted stand-in
engine and a SQLite file: the tournament waits for every seat, deals each level's stakes,
keeps the busted in their seats with their places, takes no new players and lets nobody
leave once begun, stops at its winner with prizes adding up to the pool; a mixed table
deals its games in turn; the operator's request is checked field by field."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.client import VARIANTS
from studclients.table import lobby
from studclients.table.errors import ApiError
from studclients.table.game import Tables, TableSettings, Timing
from studclients.table.mixed import HORSE_STUD
from studclients.table.store import Store
from support.stand_in_engine import one_check_update

Script = Callable[[list[int]], list[int]]


class BustingEngine:
    """Each hand: one CHECK, then over with ``scripts[n](start stacks)`` as the final
    stacks (engine seat order); the requests are kept."""

    def __init__(self, scripts: list[Script]) -> None:
        self.scripts = scripts
        self.starts: list[pb.StartHandRequest] = []

    def _update(self, seq: int, players: int, over: bool) -> pb.HandUpdate:
        stacks = None
        if over:
            starts = [p.stack for p in self.starts[-1].players]
            stacks = self.scripts[len(self.starts) - 1](starts)
        hand_id = f"{len(self.starts):032x}"
        return one_check_update(hand_id, seq, f"s{seq}".encode(), players, stacks)

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        self.starts.append(request)
        return self._update(0, len(request.players), False)

    async def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        return pb.GetViewResponse()  # every state opens

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        return self._update(request.expected_seq + 1, len(self.starts[-1].players), True)


def take(winner: int, *losers: int, amount: int | None = None) -> Script:
    """The winner takes ``amount`` (all, when None) from each loser."""

    def script(stacks: list[int]) -> list[int]:
        final = list(stacks)
        for loser in losers:
            moved = final[loser] if amount is None else amount
            final[loser] -= moved
            final[winner] += moved
        return final

    return script


SCHEDULE = {
    "levels": [{"ante": 1, "bring_in": 5, "small_bet": 10},
               {"ante": 2, "bring_in": 10, "small_bet": 20, "big_bet": 50}],
    "every": 2, "unit": "hands", "payouts": [7000, 3000], "buy_in": 50,
}  # fmt: skip


def tables_on(db: Path, engine: Any) -> Tables:
    return Tables(Store(f"sqlite:///{db}"), engine, Timing(pause=0.0, bot_delay=0.0))


async def play_hand(tables: Tables, table_id: str) -> None:
    await tables.tick()  # deals
    await tables.tick()  # the seat to act is a bot (no thinking time): it checks, over


def test_a_sit_and_go_plays_its_levels_to_a_winner(tmp_path: Path) -> None:
    async def run() -> None:
        # engine seats are table seats 0, 1, 2 while all three are in
        engine = BustingEngine(
            [take(0, 1, amount=100), take(2, 0, amount=50), take(0, 1), take(1, 0)]
        )
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        settings = TableSettings("sng", "SNG", VARIANTS["seven"], start_stack=500, max_seats=3,
                                 bots=("station", "station"), tournament=SCHEDULE)  # fmt: skip
        assert await tables.create_table(settings)
        await tables.tick()
        assert engine.starts == [], "two of three seats: the sit-and-go waits"
        joined = await tables.join("sng", "Ann")  # seat 2
        await tables.tick()
        assert len(engine.starts) == 1
        with pytest.raises(ApiError) as refused:
            await tables.join("sng", "Late")
        assert refused.value.reason == "tournament_started"
        with pytest.raises(ApiError) as refused:
            await tables.leave("sng", joined["token"])
        assert refused.value.reason == "in_tournament"
        await tables.tick()
        for _ in range(3):
            await play_hand(tables, "sng")
        stakes = [(r.table.ante, r.table.bring_in, r.table.small_bet, r.table.big_bet)
                  for r in engine.starts]  # fmt: skip
        # the tournament rule, and tournament chips: no rake
        assert all(r.table.all_in_face_up and r.table.rake_percent_bp == 0 for r in engine.starts)
        assert stakes == [(1, 5, 10, 20), (1, 5, 10, 20), (2, 10, 20, 50), (2, 10, 20, 50)]
        # hand 3: seat 1 busted; hand 4 heads-up (engine seats 0, 1 = table seats 0, 2)
        assert [len(r.players) for r in engine.starts] == [3, 3, 3, 2]
        event = await tables.store.tournament("sng")
        assert event is not None and event.status == "finished"
        assert event.places == {"1": 3, "0": 2, "2": 1}
        stacks = {s.seat_no: s.stack for s in await tables.store.seats_of("sng")}
        assert stacks == {0: 0, 1: 0, 2: 1500}, "the busted keep their seats; no chip lost"
        await play_hand(tables, "sng")
        assert len(engine.starts) == 4, "no hand after the winner"
        page = await tables.page("sng", 2)
        part = page["tournament"]
        assert part["status"] == "finished" and part["prize_pool"] == 150
        assert [(r["place"], r["name"], r["prize"]) for r in part["standings"]] == [
            (1, "Ann", 105), (2, "Station bot", 45), (3, "Station bot 2", 0),
        ]  # fmt: skip
        await tables.store.close()

    asyncio.run(run())


def test_players_busting_on_one_hand_finish_by_their_starting_stacks(tmp_path: Path) -> None:
    async def run() -> None:
        # hand 1: seat 1 loses 100 (400 left); hand 2: seat 0 (600) takes seats 1 and 2
        engine = BustingEngine([take(0, 1, amount=100), take(0, 1, 2)])
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        settings = TableSettings("sng", "SNG", VARIANTS["razz"], start_stack=500, max_seats=3,
                                 bots=("station",) * 3, tournament=SCHEDULE)  # fmt: skip
        await tables.create_table(settings)
        await play_hand(tables, "sng")
        await play_hand(tables, "sng")
        event = await tables.store.tournament("sng")
        assert event is not None
        # seat 1 began the hand with 400, seat 2 with 500: seat 1 is third
        assert event.places == {"1": 3, "2": 2, "0": 1} and event.status == "finished"
        await tables.store.close()

    asyncio.run(run())


def test_a_mixed_table_deals_its_games_in_turn(tmp_path: Path) -> None:
    async def run() -> None:
        engine = BustingEngine([take(0, 1, amount=10)] * 7)
        tables = tables_on(tmp_path / "t.db", engine)
        await tables.store.create_schema()
        settings = TableSettings("mix", "Mix", VARIANTS["seven"], bots=("station",) * 2,
                                 games=HORSE_STUD, rotate_every=2)  # fmt: skip
        await tables.create_table(settings)
        for _ in range(7):
            await play_hand(tables, "mix")
        assert not any(r.table.all_in_face_up for r in engine.starts)  # a cash table's default
        assert [r.variant for r in engine.starts] == [
            *(HORSE_STUD[0],) * 2, *(HORSE_STUD[1],) * 2, *(HORSE_STUD[2],) * 2, HORSE_STUD[0]
        ]  # fmt: skip
        page = await tables.page("mix", None)
        assert page["table"]["game"] == "Razz"
        assert page["table"]["rotation"]["next"] == {
            "name": "Seven Card Stud", "hand": 9, "after_hands": 1,
        }  # fmt: skip
        listed = (await lobby.listing(tables))["tables"]
        assert [(t["id"], t["game"], t["seated"], t["kind"]) for t in listed] == [
            ("mix", "Razz", 2, "cash")
        ]
        await tables.store.close()

    asyncio.run(run())


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ([], "JSON object"),
        ({"id": "Bad Id"}, "id:"),
        ({"id": "t", "colour": "red"}, "colour"),
        ({"id": "t", "game": "holdem"}, "game must be"),
        ({"id": "t", "games": ["razz", "omaha"]}, "games[1]"),
        ({"id": "t", "seats": 11}, "seats"),
        ({"id": "t", "bring_in": 30}, "bring_in"),
        ({"id": "t", "bots": ["shark"]}, "bots"),
        ({"id": "t", "seats": 2, "bots": ["station"] * 3}, "more bots than seats"),
        ({"id": "t", "clock": 0}, "clock"),
        ({"id": "t", "all_in_face_up": "yes"}, "all_in_face_up"),
        ({"id": "t", "tournament": {"levels": [{"bring_in": 5}]}}, "small_bet"),
        ({"id": "t", "seats": 2, "tournament": {**SCHEDULE}}, "pay at most 1"),
        ({"id": "t", "games": ["five", "seven"], "seats": 9}, "max_seats must be 2 to 8"),
    ],
)
def test_an_operators_bad_table_is_refused_naming_the_field_and_creates_nothing(
    tmp_path: Path, body: Any, needle: str
) -> None:
    async def run() -> None:
        tables = tables_on(tmp_path / "t.db", BustingEngine([]))
        await tables.store.create_schema()
        with pytest.raises(ApiError) as refused:
            await lobby.create(tables, body)
        assert refused.value.status == 400 and needle in refused.value.message
        assert await tables.store.all_tables() == []
        await tables.store.close()

    asyncio.run(run())


def test_an_operators_table_is_created_once(tmp_path: Path) -> None:
    async def run() -> None:
        tables = tables_on(tmp_path / "t.db", BustingEngine([]))
        await tables.store.create_schema()
        body = {"id": "sng-1", "name": "Sit & go", "seats": 3, "tournament": SCHEDULE}
        assert await lobby.create(tables, body) == {"table": "sng-1", "created": True}
        with pytest.raises(ApiError) as refused:
            await lobby.create(tables, body)
        assert refused.value.reason == "table_exists"
        [listed] = (await lobby.listing(tables))["tables"]
        assert listed["state"] == "registering" and listed["kind"] == "sit-and-go"
        assert listed["stakes"] == {"ante": 1, "bring_in": 5, "small_bet": 10, "big_bet": 20}
        assert listed["tournament"]["prizes"] == [105, 45]
        await tables.store.close()

    asyncio.run(run())


class OwnCardEngine(BustingEngine):
    """Each seat's own view holds its down card As; the spectator's holds none."""

    def _update(self, seq: int, players: int, over: bool) -> pb.HandUpdate:
        update = super()._update(seq, players, over)
        for i in range(players):
            update.seats[i].seats[i].cards.append("As")
        update.spectator.CopyFrom(pb.View(seats=[pb.SeatInfo(seat=j) for j in range(players)]))
        return update


def test_a_seats_new_occupant_never_sees_the_last_hand_of_the_one_before(tmp_path: Path) -> None:
    async def run() -> None:
        tables = tables_on(tmp_path / "t.db", OwnCardEngine([take(0, 1, amount=10)] * 3))
        await tables.store.create_schema()
        await tables.create_table(TableSettings("t", "T", VARIANTS["seven"], bots=("station",)))
        ann = await tables.join("t", "Ann")
        await play_hand(tables, "t")
        page = await tables.page("t", ann["seat"])
        assert page["hand"]["over"]
        assert "As" in str(page["seats"][ann["seat"]]["cards"]), "Ann sees her own card"
        await tables.leave("t", ann["token"])
        cy = await tables.join("t", "Cy")
        assert cy["seat"] == ann["seat"]
        page = await tables.page("t", cy["seat"])
        assert page["hand"]["id"] and "As" not in str(page["seats"]), "Cy saw Ann's hand"
        await tables.store.close()

    asyncio.run(run())
