"""A 40-bot multi-table tournament run by two stud-table replicas on one real PostgreSQL
(a throw-away cluster on a loopback port), one replica killed (SIGKILL) and restarted in
the middle. It must end with a winner; every stored step must be the engine's answer to
the step before it (replayed); every player's chips carry from each hand to their next,
whichever table they were moved to, and the seats hold the chips the field bought; every
player has one place; the prizes add up to the prize pool."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.table.store import Store, history, plays
from support.polling import poll_until
from support.table_harness import TableServer, assert_replays, call, start_postgres, stored

PLAYERS = 40
STACK = 300
SETTINGS = {
    "levels": [{"ante": a, "bring_in": b, "small_bet": s}
               for a, b, s in ((0, 5, 10), (5, 10, 20), (10, 25, 50), (25, 50, 100),
                               (50, 100, 200), (100, 200, 400), (200, 400, 800),
                               (500, 1000, 2000), (1000, 2000, 4000), (2000, 4000, 8000))],
    "every": 3, "unit": "hands", "payouts": [5000, 3000, 2000], "buy_in": 100,
    "seats": 8, "starting_stack": STACK, "min_entrants": 4,
}  # fmt: skip
# The stakes rise until an ante and a bring-in are most of the chips in play: the field's
# last two may both be calling stations, whose heads-up at a fixed stake is a random walk
# that can outlast any timeout (one ran over 1,000 hands at the old last level, 100/200/400).


def sittings(url: str) -> tuple[list[Any], dict[str, float]]:
    """Who was dealt into each hand (plays) and when each hand was dealt."""

    async def read() -> tuple[list[Any], dict[str, float]]:
        store = Store(url)
        try:
            async with store.engine.connect() as conn:
                dealt = await conn.execute(
                    sa.select(history.c.hand_id, history.c.at).where(history.c.seq == 0)
                )
                return list(await conn.execute(sa.select(plays))), dict(dealt.all())
        finally:
            await store.close()

    return asyncio.run(read())


def test_two_replicas_run_a_forty_bot_tournament_through_a_kill(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    engine = live_server()
    pg = start_postgres()
    (tmp_path / "operator").write_text("operator-token-for-the-test\n")
    args = ["--operator-token-file", str(tmp_path / "operator"), "--pause", "0",
            "--bot-delay", "0", "--clock", "5"]  # fmt: skip
    op = "operator-token-for-the-test"
    replicas: list[TableServer] = []
    try:
        replicas = [TableServer(engine.target, pg.url, args) for _ in range(2)]
        base = replicas[1].url
        made = call(base, "POST", "/api/tournaments",
                    {"id": "sun", "name": "Sunday", "game": "seven", "settings": SETTINGS,
                     "seed": "seed-40"}, token=op)  # fmt: skip
        assert made[0] == 201, made
        for number in range(PLAYERS):
            kind = "station" if number % 2 else "random"
            status, answer = call(base, "POST", "/api/tournaments/sun/bots",
                                  {"name": f"Bot {number}", "bot": kind}, token=op)  # fmt: skip
            assert status == 201, answer
        assert call(base, "POST", "/api/tournaments/sun/start", {}, token=op)[0] == 200

        def page() -> dict[str, Any]:
            return dict(call(base, "GET", "/api/tournaments/sun")[1])

        assert len(page()["tables"]) == 5
        poll_until(lambda: len(stored(pg.url)[0]) >= 15, "fifteen hands", 120)
        replicas[0].restart()  # SIGKILL in the middle, then the same database again
        try:
            poll_until(lambda: page()["status"] == "finished", "a winner", 300)
        except pytest.fail.Exception:
            print(page(), *(r.output()[-3000:] for r in replicas), sep="\n----\n")
            raise
        final_page = page()
        for replica in replicas:
            replica.stop()
        all_hands, steps = stored(pg.url)
        dealt_in, dealt_at = sittings(pg.url)
    finally:
        for replica in replicas:
            replica.stop()
        pg.stop()

    assert_replays(engine.target, all_hands, steps)
    assert all(hand.over for hand in all_hands)
    # each player's chips carry from hand to hand, across the tables they moved between
    by_hand = {h.hand_id: h for h in all_hands}
    last_update = {s.hand_id: s.update for s in steps}
    chips: dict[str, int] = {}
    for play in sorted(dealt_in, key=lambda p: dealt_at[p.hand_id]):
        hand = by_hand[play.hand_id]
        index = hand.seat_map.index(play.seat_no)
        assert hand.start_stacks[index] == chips.get(play.player, STACK), play
        result = pb.HandUpdate.FromString(last_update[play.hand_id]).result
        chips[play.player] = result.stacks[index]
    assert len(chips) == PLAYERS
    assert sum(chips.values()) == PLAYERS * STACK == final_page["chips_in_play"]
    assert sorted(chips.values())[-1] == PLAYERS * STACK  # the winner holds every chip
    ranks = sorted(r["place"] for r in final_page["standings"])
    assert len(ranks) == PLAYERS and ranks.count(1) == 1
    assert all(rank == ranks.index(rank) + 1 for rank in ranks)  # ties span places
    prizes = [r["prize"] for r in final_page["standings"]]
    assert sum(prizes) == final_page["prize_pool"] == PLAYERS * 100
    assert final_page["moves_logged"] > PLAYERS  # the draw, then balancing and breaking
    print(f"hands {len(all_hands)}, steps {len(steps)}, moves {final_page['moves_logged']}")
