"""A multi-table tournament through stud-table's back-end and its director, with a
stand-in engine that moves chips at random (conserving them) and a SQLite file: 40 bots
on five tables play to a winner; the chips are conserved at every decision, tables are
balanced and broken to a final table, every player gets one place and the prizes add up
to the pool; two directors deciding at once decide once; a cancel refunds exactly."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.client import VARIANTS
from studclients.table.errors import ApiError
from studclients.table.game import Tables, Timing
from studclients.table.mtt import pages
from studclients.table.mtt.director import Director
from studclients.table.mtt.seating import draw
from studclients.table.schema import mtt_moves, seats
from studclients.table.store import Store
from studclients.table.tournament import parse_levels
from support.stand_in_engine import one_check_update


class ChipEngine:
    """Each hand: one CHECK, then over: a random player wins a random share of each
    other player's stack (all of it, a third of the time), chips conserved."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.starts: list[pb.StartHandRequest] = []

    def _update(self, index: int, seq: int, over: bool) -> pb.HandUpdate:
        players = len(self.starts[index].players)
        stacks = None
        if over:
            stacks = [p.stack for p in self.starts[index].players]
            winner = self.rng.randrange(players)
            for loser in range(players):
                if loser != winner:
                    share = stacks[loser] if self.rng.random() < 0.34 else stacks[loser] // 4
                    stacks[loser] -= share
                    stacks[winner] += share
        return one_check_update(f"{index:032x}", seq, str(index).encode(), players, stacks)

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        self.starts.append(request)
        return self._update(len(self.starts) - 1, 0, False)

    async def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        return pb.GetViewResponse()

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        return self._update(int(request.state.decode()), request.expected_seq + 1, True)


SETTINGS: dict[str, Any] = {
    "levels": parse_levels("0/5/10, 5/10/20, 10/25/50, 25/50/100, 50/100/200"),
    "every": 6, "unit": "hands", "payouts": [5000, 3000, 2000], "buy_in": 100,
    "seats": 8, "starting_stack": 1000, "min_entrants": 4,
}  # fmt: skip


def test_forty_bots_play_to_a_winner_on_balanced_and_broken_tables(tmp_path: Path) -> None:
    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'mtt.db'}")
        await store.create_schema()
        tables = Tables(store, ChipEngine(5), Timing(pause=0.0, bot_delay=0.0))
        director = Director(store)
        assert await director.create("m", "Sunday", VARIANTS["seven"], SETTINGS, seed="s1")
        for number in range(40):
            await director.register("m", f"Bot {number}", bot="station")
        opening = await director.start("m")
        assert len({m.to_table for m in opening}) == 5
        async with store.engine.connect() as conn:  # a full time bank from the first hand
            banks = {r.time_bank for r in await conn.execute(sa.select(seats.c.time_bank))}
        assert banks == {30.0}, banks
        field = await director.field("m")
        for _ in range(3000):
            await director.tick()
            field = await director.field("m")
            assert await director.chips_at_tables("m") == field.chips_in_play == 40_000
            if field.status == "finished":
                break
            await tables.tick()
        assert field.status == "finished"
        # one place each, 1 to 40; players tied (same hand, same starting stack) share
        # the higher place and span the ones below it
        ranks = sorted(field.places.values())
        assert len(field.places) == 40 and ranks[0] == 1 and ranks.count(1) == 1
        assert all(rank == ranks.index(rank) + 1 for rank in ranks)
        prizes = field.prizes()
        assert sum(prizes.values()) == field.prize_pool == 4000
        async with store.engine.connect() as conn:
            why = [r.why for r in await conn.execute(sa.select(mtt_moves.c.why))]
        assert why.count("draw") == 40 and "break" in why
        await store.close()

    asyncio.run(run())


def test_the_director_takes_the_row_only_when_a_table_between_hands_waits(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'due.db'}")
        await store.create_schema()
        tables = Tables(store, ChipEngine(3), Timing(pause=0.0, bot_delay=0.0))
        director = Director(store)
        assert await director.create("m", "Due", VARIANTS["seven"], SETTINGS, seed="s")
        for number in range(16):
            await director.register("m", f"Bot {number}", bot="station")
        await director.start("m")
        assert await director.running() == ["m"]  # two tables waiting for their first deal
        await director.tick()
        await tables.tick()  # both deal; the bots' first moves are due from the next tick
        assert len(await store.open_hands()) == 2
        version = (await director.row("m")).version
        assert await director.running() == []
        await director.tick()
        assert (await director.row("m")).version == version  # not taken: nothing to decide
        await tables.tick()  # one move ends each of ChipEngine's hands
        assert await store.open_hands() == []
        assert await director.running() == ["m"]
        await director.tick()
        assert (await director.row("m")).version == version + 1
        await store.close()

    asyncio.run(run())


def test_two_directors_deciding_at_once_decide_once(tmp_path: Path) -> None:
    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'race.db'}")
        await store.create_schema()
        first, second = Director(store), Director(Store(f"sqlite:///{tmp_path / 'race.db'}"))
        assert await first.create("m", "Race", VARIANTS["seven"], SETTINGS, seed="s")
        assert not await second.create("m", "Race", VARIANTS["seven"], SETTINGS)
        for number in range(12):
            await first.register("m", f"Bot {number}", bot="station")
        results = await asyncio.gather(
            first.decide("m"), second.decide("m"), return_exceptions=True
        )
        assert results == [None, None]  # registering: nothing to decide
        started = await asyncio.gather(first.start("m"), second.start("m"), return_exceptions=True)
        won = [r for r in started if not isinstance(r, BaseException)]
        assert len(won) == 1 and len(won[0]) == 12
        lost = [r for r in started if isinstance(r, ApiError)]
        assert len(lost) == 1 and lost[0].reason in ("busy", "not_registering")
        await second.store.close()
        await store.close()

    asyncio.run(run())


def test_a_cancelled_tournament_refunds_every_buy_in_rebuy_and_stops_dealing(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'cancel.db'}")
        await store.create_schema()
        director = Director(store)
        raw = {**SETTINGS, "late_levels": 1}
        assert await director.create("m", "Cancel", VARIANTS["seven"], raw, seed="c")
        person = await director.register("m", "Ann")
        assert person["token"]
        for number in range(8):
            await director.register("m", f"Bot {number}", bot="station")
        await director.start("m")
        late = await director.register("m", "Late")
        where = await director.where("m", late["token"])
        assert where is not None and where[0].startswith("m-")
        with pytest.raises(ApiError) as refused:
            await director.register("m", "ann")
        assert refused.value.reason == "name_taken"
        refunds = await director.cancel("m")
        assert refunds == dict.fromkeys(range(1, 11), 100)
        assert sum(refunds.values()) == 1000
        assert await store.tables_ready(1e12) == []
        await store.close()

    asyncio.run(run())


def test_a_rebuy_and_the_add_on_go_on_the_stack_and_into_the_pool(tmp_path: Path) -> None:
    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'buy.db'}")
        await store.create_schema()
        director = Director(store)
        raw = {**SETTINGS, "rebuy_levels": 1, "rebuy_price": 80, "rebuy_chips": 900,
               "breaks": [1], "addon_break": 1, "addon_price": 60, "addon_chips": 1200,
               "break_seconds": 600}  # fmt: skip
        assert await director.create("m", "Buy", VARIANTS["seven"], raw, seed="b")
        ann = await director.register("m", "Ann")
        for number in range(5):
            await director.register("m", f"Bot {number}", bot="station")
        await director.start("m")
        await director.decide("m", now=0.0)
        bought = await director.buy("m", ann["token"], "rebuy")
        assert bought["stack"] == 1900 and bought["paid"] == 180
        with pytest.raises(ApiError) as refused:
            await director.buy("m", ann["token"], "rebuy")
        assert refused.value.reason == "stack_too_big"
        with pytest.raises(ApiError) as refused:
            await director.buy("m", ann["token"], "addon")
        assert refused.value.reason == "addon_closed"
        with pytest.raises(ApiError) as refused:
            await director.buy("m", "not-a-token", "rebuy")
        assert refused.value.reason == "bad_token"
        field = await director.field("m")
        field_pool = field.prize_pool
        assert field_pool == 680 and await director.chips_at_tables("m") == field.chips_in_play
        await store.close()

    asyncio.run(run())


def test_a_players_page_follows_them_when_their_table_breaks(tmp_path: Path) -> None:
    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'follow.db'}")
        await store.create_schema()
        tables = Tables(store, ChipEngine(11), Timing(pause=0.0, bot_delay=0.0))
        tables.rng.seed(11)  # the order of the due hands: each hand's outcome comes from it
        director = Director(store)
        raw = {**SETTINGS, "seats": 4}
        # a seed that draws Ann (player 1) to table 3, the first to break
        seed = next(
            f"f{n}" for n in range(100) if 1 in draw(list(range(1, 13)), 4, f"f{n}")[3].values()
        )
        assert await director.create("m", "Follow", VARIANTS["seven"], raw, seed=seed)
        ann = await director.register("m", "Ann")
        for number in range(11):
            await director.register("m", f"Bot {number}", bot="station")
        await director.start("m")
        first = await pages.my_seat(director, "m", ann["token"])
        assert first["table"] is not None and first["moved"] is None
        seen = {first["table"]}
        for _ in range(2000):
            await director.tick()
            mine = await pages.my_seat(director, "m", ann["token"])
            if mine["table"] is None:
                break  # Ann is out
            if mine["table"] not in seen:
                assert mine["moved"] is not None and mine["moved"]["why"] in ("balance", "break")
                seat = await tables.authenticate(mine["table"], ann["token"])
                assert seat == mine["seat"]  # the same token holds the new seat
                seen.add(mine["table"])
            if (await director.field("m")).status == "finished":
                break
            await tables.tick()
            table = await store.table(mine["table"])
            hand = await store.hand(table.current_hand) if table and table.current_hand else None
            if hand is not None and not hand.over and hand.seat_map[hand.to_act] == mine["seat"]:
                move = {"action": "check", "hand": hand.hand_id, "seq": hand.seq}
                await tables.act(mine["table"], ann["token"], move)  # Ann, not her 30 s clock
        assert len(seen) > 1, "Ann was moved (this seed breaks her table)"
        listing = await pages.listing(director)
        assert [t["id"] for t in listing] == ["m"] and listing[0]["entrants"] == 12
        whole = await pages.page(director, "m")
        assert whole["chips_in_play"] == 12 * 1000
        assert len(whole["standings"]) == 12
        await store.close()

    asyncio.run(run())


def test_hand_for_hand_every_table_finishes_its_hand_before_the_next_is_dealt(
    tmp_path: Path,
) -> None:
    """From 7 players left (3 paid, margin 3) on two tables: one table's hand over does
    not let it deal while the other's is open; when both are over both deal again."""

    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'h4h.db'}")
        await store.create_schema()
        tables = Tables(store, ChipEngine(3), Timing(pause=0.0, bot_delay=0.0))
        director = Director(store)
        raw = {**SETTINGS, "seats": 4, "hand_for_hand_margin": 3}
        assert await director.create("m", "H4H", VARIANTS["seven"], raw, seed="h")
        for number in range(12):
            await director.register("m", f"Bot {number}", bot="station")
        await director.start("m")
        for _ in range(2000):
            await director.tick()
            whole = await pages.page(director, "m")
            if whole["hand_for_hand"] and len(whole["tables"]) == 2:
                break
            await tables.tick()
        else:
            pytest.fail("never hand-for-hand on two tables")
        first, second = (t["table"] for t in whole["tables"])

        async def row(table_id: str) -> Any:
            found = await store.table(table_id)
            assert found is not None
            return found

        ready = {t.id for t in await store.tables_ready(1e12)}
        assert ready == {first, second}  # the round is open: both may deal
        assert await tables.deal(await row(first)) and await tables.deal(await row(second))
        hand = await store.hand((await row(first)).current_hand)
        assert hand is not None
        await tables._due(hand)  # the first table's hand ends; the second's is open
        await director.decide("m")
        assert {t.id for t in await store.tables_ready(1e12)} == set()
        other = await store.hand((await row(second)).current_hand)
        assert other is not None
        await tables._due(other)
        await director.decide("m")
        still = await pages.page(director, "m")
        if still["hand_for_hand"] and len(still["tables"]) == 2:
            assert {t.id for t in await store.tables_ready(1e12)} == {first, second}
        await store.close()

    asyncio.run(run())
