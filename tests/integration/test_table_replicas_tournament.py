"""A sit-and-go run by two stud-table replicas on one real PostgreSQL (a throw-away cluster
on a loopback port): two bots and a player whose every click goes to both replicas at
once, a short clock firing on both, and one replica killed (SIGKILL) and restarted in the
middle. The tournament must end with one winner holding every chip, each stored step the
engine's answer to the step before it (replayed), no move applied twice, no chip lost
between hands, the levels dealt as scheduled and the places by the usual rule."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.table.store import Store, tournaments
from studclients.table.tournament import Schedule, parse_levels
from support.polling import poll_until
from support.table_harness import (
    DoubleClicks,
    TableServer,
    assert_replays,
    join,
    start_postgres,
    stored,
)

STACK = 150
LEVELS = "1/5/10,2/10/20,5/25/50,10/50/100"
EVERY = 2


def tournament_row(url: str) -> Any:
    async def read() -> Any:
        store = Store(url)
        try:
            async with store.engine.connect() as conn:
                return (await conn.execute(sa.select(tournaments))).one()
        finally:
            await store.close()

    return asyncio.run(read())


def assert_seats_hold_every_chip(url: str) -> None:
    """The chip-conservation check over the seats table (``Store.tournament_chips``)."""

    async def count() -> tuple[int, int] | None:
        store = Store(url)
        try:
            return await store.tournament_chips("sng")
        finally:
            await store.close()

    counted = asyncio.run(count())
    assert counted is not None and counted[0] == counted[1] == 3 * STACK, counted


def stuck(url: str) -> str:
    """What a tournament that does not finish looks like: its row, the newest hand."""
    all_hands, steps = stored(url)
    if not all_hands:
        return f"tournament {tournament_row(url)}, no hand"
    newest = max(all_hands, key=lambda h: h.number)
    state = (newest.number, newest.seq, newest.to_act, newest.deadline, newest.over)
    last = [(s.seq, s.source, s.seat, s.action, s.at) for s in steps
            if s.hand_id == newest.hand_id][-3:]  # fmt: skip
    return f"tournament {tournament_row(url)}\nnewest hand {state}: {last}; now {time.time()}"


def test_two_replicas_run_a_sit_and_go_with_no_double_move_and_no_lost_chip(
    live_server: Callable[..., Any],
) -> None:
    engine = live_server()
    pg = start_postgres()
    args = ["--table", "sng", "--sit-and-go", "--seats", "3", "--stack", str(STACK),
            "--levels", LEVELS, "--level-every", str(EVERY), "--payouts", "7000,3000",
            "--bots", "station,random", "--clock", "0.6", "--time-bank", "0", "--pause", "0.2",
            "--bot-delay", "0.05", "--deal-wait", "0.2"]  # fmt: skip
    # (verifiable deals, the default: Ann, played over the API, sends no entropy)
    replicas: list[TableServer] = []
    try:
        replicas = [TableServer(engine.target, pg.url, args) for _ in range(2)]
        bases = [r.url for r in replicas]
        token = join(bases[1], "Ann", table="sng")[1]
        clicks = DoubleClicks(bases, table="sng")
        done = threading.Event()
        player = threading.Thread(target=clicks.play, args=(token, random.Random(7), done.is_set))
        player.start()
        try:
            poll_until(lambda: tournament_row(pg.url).status == "running", "the start", 30)
            poll_until(lambda: len(stored(pg.url)[0]) >= 3, "three hands", 60)
            assert_seats_hold_every_chip(pg.url)  # mid-tournament, replicas running
            replicas[0].restart()  # SIGKILL mid-tournament, then the same database again
            bases[0] = replicas[0].url
            try:
                poll_until(lambda: tournament_row(pg.url).status == "finished", "a winner", 240)
            except pytest.fail.Exception:
                print(stuck(pg.url), *(r.output()[-3000:] for r in replicas), sep="\n----\n")
                raise
        finally:
            done.set()
            player.join()
        for replica in replicas:
            replica.stop()
        all_hands, steps = stored(pg.url)
        event = tournament_row(pg.url)
        assert_seats_hold_every_chip(pg.url)
    finally:
        for replica in replicas:
            replica.stop()
        pg.stop()

    assert_replays(engine.target, all_hands, steps)
    clicks.assert_each_once(steps)
    assert all(hand.over for hand in all_hands)
    # chips: every hand begins with what the one before ended with, and nothing else
    hands = sorted(all_hands, key=lambda h: h.number)
    final: dict[int, int] = dict.fromkeys(range(3), STACK)
    plan = Schedule.from_dict({"levels": parse_levels(LEVELS), "every": EVERY,
                               "payouts": [7000, 3000]}, 3)  # fmt: skip
    by_hand: dict[str, list[Any]] = {}
    for step in steps:
        by_hand.setdefault(step.hand_id, []).append(step)
    for number, hand in enumerate(hands):
        assert hand.number == number + 1
        alive = {s: c for s, c in final.items() if c > 0}
        assert dict(zip(hand.seat_map, hand.start_stacks, strict=True)) == alive
        level = plan.levels[plan.level_index(number, 0.0)]
        dealt = pb.HandUpdate.FromString(by_hand[hand.hand_id][0].update)
        antes = {e.ante_posted.seat: e.ante_posted.amount for e in dealt.spectator.events
                 if e.WhichOneof("kind") == "ante_posted"}  # fmt: skip
        expected = {i: min(level.ante, c) for i, c in enumerate(hand.start_stacks)}
        assert antes == expected, (number, level, antes, hand.start_stacks)
        last = pb.HandUpdate.FromString(by_hand[hand.hand_id][-1].update)
        final.update(zip(hand.seat_map, last.result.stacks, strict=True))
    assert sorted(final.values()) == [0, 0, 3 * STACK]
    winner = next(s for s, c in final.items() if c)
    places = {int(s): p for s, p in event.places.items()}
    assert places[winner] == 1 and sorted(places.values()) in ([1, 2, 3], [1, 2, 2])
    sources = [s.source for s in steps]
    print(
        f"hands {len(hands)}, steps {len(steps)}, bot {sources.count('bot')}, clock "
        f"{sources.count('clock')}, player {sources.count('player')}, places {places}"
    )
    assert time.time() >= event.finished_at >= event.started_at
