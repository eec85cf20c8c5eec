"""Two stud-table replicas on one real PostgreSQL (Debian's, a throw-away cluster on a
loopback port), racing: a short action clock fires on both replicas, and every click is
sent to both replicas at once. Each stored step must be the engine's answer to the step
before it (replayed here), the steps of a hand run 0, 1, 2, ... without a gap, each move
answered OK is in the history exactly once, and no move is applied twice."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

from support.table_harness import (
    DoubleClicks,
    TableServer,
    assert_replays,
    join,
    start_postgres,
    stored,
)

RUN_SECONDS = 20.0


def test_replicas_racing_clocks_and_clicks_apply_each_move_once(
    live_server: Callable[..., Any],
) -> None:
    engine = live_server()
    pg = start_postgres()
    # a short clock and a short time bank: both replicas race the bank and the TIMEOUT;
    # the deals are verifiable (both replicas race to store the ticket) but these players
    # send no entropy, so a short wait for it keeps the hands coming
    args = ["--clock", "0.6", "--time-bank", "0.3", "--away-after", "1000", "--pause", "0.3",
            "--seats", "2", "--deal-wait", "0.2"]  # fmt: skip
    replicas: list[TableServer] = []
    try:
        replicas = [TableServer(engine.target, pg.url, args) for _ in range(2)]
        bases = [r.url for r in replicas]
        players = [join(bases[0], "Ann")[1], join(bases[1], "Bob")[1]]
        clicks = DoubleClicks(bases)
        stop = time.monotonic() + RUN_SECONDS
        threads = [
            threading.Thread(
                target=clicks.play,
                # some thoughts outlast the clock and the bank (0.9 s): the clock races the
                # clicks on every run, however quick the engine is
                args=(token, random.Random(n), lambda: time.monotonic() > stop, (0.3, 1.3)),
            )
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

    assert_replays(engine.target, all_hands, steps)

    # every click sent to both replicas: at most one OK, and each OK is in the history once
    oks, refused = clicks.assert_each_once(steps)
    print(
        f"hands {len(by_hand)}, steps {len(steps)}, clock {sources.count('clock')}, "
        f"player {sources.count('player')}, clicks {len(clicks.answers) // 2}, OK {oks}, "
        f"409 {refused}"
    )
    assert refused >= 1 and oks >= 1
