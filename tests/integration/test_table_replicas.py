"""Two stud-table replicas on one real PostgreSQL (Debian's, a throw-away cluster on a
loopback port), racing: a short action clock fires on both replicas, and every click is
sent to both replicas at once. Each stored step must be the engine's answer to the step
before it (replayed here), the steps of a hand run 0, 1, 2, ... without a gap, each move
answered OK is in the history exactly once, and no move is applied twice."""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.table.store import Store, hands, history
from support.paths import require_tool
from support.table_harness import Postgres, TableServer, call, join, view

RUN_SECONDS = 20.0
ACTIONS = {"fold": 1, "check": 2, "call": 3, "bring_in": 4, "complete": 5, "bet": 6, "raise": 7}


def stored(url: str) -> tuple[list[Any], list[Any]]:
    async def read() -> tuple[list[Any], list[Any]]:
        store = Store(url)
        try:
            async with store.engine.connect() as conn:
                all_hands = (await conn.execute(hands.select())).all()
                steps = (
                    await conn.execute(history.select().order_by(history.c.hand_id, history.c.seq))
                ).all()
            return list(all_hands), list(steps)
        finally:
            await store.close()

    return asyncio.run(read())


def test_replicas_racing_clocks_and_clicks_apply_each_move_once(
    live_server: Callable[..., Any],
) -> None:
    require_tool("pg_ctlcluster", "make table-deps (apt-get install postgresql)")
    engine = live_server()
    try:
        pg = Postgres()
    except FileNotFoundError:
        pytest.fail("postgresql is installed but initdb was not found")
    args = ["--clock", "0.6", "--pause", "0.3", "--seats", "2"]
    replicas: list[TableServer] = []
    try:
        replicas = [TableServer(engine.target, pg.url, args) for _ in range(2)]
        bases = [r.url for r in replicas]
        players = [join(bases[0], "Ann")[1], join(bases[1], "Bob")[1]]
        answers: list[tuple[str, int, str, int, int]] = []  # hand, seq, action, replica, status
        lock = threading.Lock()
        stop = time.monotonic() + RUN_SECONDS

        def play(token: str, rng: random.Random) -> None:
            while time.monotonic() < stop:
                page = view(rng.choice(bases), token)
                if not page["legal"]:
                    time.sleep(0.05)
                    continue
                move = rng.choice(page["legal"])
                body = {"action": move["action"], "seq": page["hand"]["seq"]}
                if "to" in move:
                    body["to"] = move["to"]
                time.sleep(rng.uniform(0.3, 0.8))  # around the 0.6 s clock
                results: list[tuple[int, int]] = []

                def send(
                    index: int, body: dict[str, Any] = body, into: list[Any] = results
                ) -> None:
                    status, _ = call(bases[index], "POST", "/api/tables/main/act", body, token)
                    into.append((index, status))

                senders = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
                for sender in senders:
                    sender.start()
                for sender in senders:
                    sender.join()
                with lock:
                    for index, status in results:
                        answers.append(
                            (page["hand"]["id"], body["seq"], move["action"], index, status)
                        )

        threads = [
            threading.Thread(target=play, args=(token, random.Random(n)))
            for n, token in enumerate(players)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for replica in replicas:
            replica.stop()
        all_hands, steps = stored(pg.url)
    finally:
        for replica in replicas:
            replica.stop()
        pg.stop()

    by_hand: dict[str, list[Any]] = {}
    for step in steps:
        by_hand.setdefault(step.hand_id, []).append(step)
    assert len(by_hand) >= 2, "fewer than two hands were played"
    sources = [s.source for s in steps]
    assert "clock" in sources and "player" in sources, sources

    with grpc.insecure_channel(engine.target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for hand in all_hands:
            chain = by_hand[hand.hand_id]
            assert [s.seq for s in chain] == list(range(len(chain))), "a step is missing"
            assert chain[-1].seq == hand.seq and chain[-1].state == hand.state
            for before, after in itertools.pairwise(chain):
                # replay: the stored step is exactly the engine's answer to the step before
                request = pb.ActRequest(state=before.state, seat=after.seat,
                                        action=after.action, expected_seq=before.seq)  # fmt: skip
                if after.to is not None:
                    request.to = after.to
                replayed = stub.Act(request, timeout=10).hand
                mine = pb.HandUpdate.FromString(after.update)
                assert replayed.seq == after.seq
                assert list(replayed.spectator.events) == list(mine.spectator.events)
            if hand.over:
                final = pb.HandUpdate.FromString(chain[-1].update)
                assert sum(final.result.stacks) == sum(hand.start_stacks)

    # every click sent to both replicas: at most one OK, and each OK is in the history once
    clicks: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for hand_id, seq, action, _, status in answers:
        clicks.setdefault((hand_id, seq), []).append((action, status))
    applied = {(s.hand_id, s.seq - 1): s for s in steps if s.source == "player"}
    oks = 0
    for key, pair in clicks.items():
        ok = [action for action, status in pair if status == 200]
        assert len(ok) <= 1, f"one move applied twice at {key}"
        assert all(status in (200, 409) for _, status in pair), pair
        if ok:
            oks += 1
            assert key in applied, f"a move answered OK is not in the history: {key}"
            assert applied[key].action == ACTIONS[ok[0]]
    assert len(applied) == oks, "the history holds a player's move that nobody was told of"
    statuses = [a[4] for a in answers]
    print(
        f"hands {len(by_hand)}, steps {len(steps)}, clock {sources.count('clock')}, "
        f"player {sources.count('player')}, clicks {len(clicks)}, OK {oks}, "
        f"409 {statuses.count(409)}"
    )
    assert statuses.count(409) >= 1 and oks >= 1, statuses
