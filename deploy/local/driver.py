"""A small closed-loop game driver for `make cluster`, `make soak` and the failure tests.

Plays real hands against several replicas through the clients' one engine client
(``studclients.engine``) on one gRPC channel with client-side round robin (as clients do
against the headless Service): the channel's service config retries UNAVAILABLE, each
attempt on the next replica; nothing retries CANCELLED. Optionally paces hands at a fixed
rate, and checks that every finished hand conserves chips (final stacks + rake).
"""

from __future__ import annotations

import collections
import random
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LoadReport:
    seconds: float = 0.0
    hands_started: int = 0
    hands_finished: int = 0
    calls: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    chip_violations: int = 0
    latencies: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        lat = sorted(self.latencies)

        def pct(q: float) -> float:
            return round(lat[min(len(lat) - 1, int(q * len(lat)))] * 1000, 3) if lat else 0.0

        return {
            "seconds": round(self.seconds, 2),
            "hands_started": self.hands_started,
            "hands_finished": self.hands_finished,
            "hands_per_second": round(self.hands_finished / self.seconds, 1) if self.seconds else 0,
            "calls": self.calls,
            "calls_per_second": round(self.calls / self.seconds, 1) if self.seconds else 0,
            "latency_ms": {
                "p50": pct(0.5),
                "p99": pct(0.99),
                "mean": round(statistics.fmean(lat) * 1000, 3) if lat else 0.0,
            },
            "errors": dict(self.errors),
            "chip_violations": self.chip_violations,
        }


class _Observer:
    """Counts each answered call and its latency into the report (the engine's observer)."""

    def __init__(self, report: LoadReport, lock: threading.Lock) -> None:
        self.report, self.lock = report, lock

    def answered(self, method: str, seconds: float) -> None:
        with self.lock:
            self.report.calls += 1
            self.report.latencies.append(seconds)

    def failed_over(self, method: str, code: str) -> None:  # one channel: never
        return None


def run_load(
    targets: Sequence[str],
    *,
    seconds: float | None = None,
    hands: int | None = None,
    rate: float | None = None,
    threads: int = 4,
    seed: int = 7,
    stop: threading.Event | None = None,
) -> LoadReport:
    """Play hands on ``threads`` threads until ``seconds`` pass or ``hands`` have started;
    with ``rate``, start at most that many hands per second (fixed-rate pacing).

    UNAVAILABLE is retried by the channel (every call is safe to repeat: the server keeps
    nothing); any call that still fails is counted under ``errors`` by code, and its hand
    is dropped. Setting ``stop`` ends the run after the hands in play."""
    from stud_api.stud.v1 import stud_engine_pb2 as pb
    from studclients.client import chips_conserved, default_table
    from studclients.engine import Dial, EngineError, SyncEngine, act_request

    if seconds is None and hands is None:
        raise ValueError("give seconds or hands")
    report = LoadReport()
    lock = threading.Lock()
    started_at = time.monotonic()
    end = started_at + seconds if seconds is not None else float("inf")
    schedule = [started_at]
    table = default_table()
    # one channel over every replica, round robin (as against a headless Service)
    dial = Dial((f"ipv4:{','.join(targets)}",))
    balanced = [("grpc.lb_policy_name", "round_robin")]
    aggressive = {pb.ACTION_TYPE_BET, pb.ACTION_TYPE_RAISE, pb.ACTION_TYPE_COMPLETE}
    passive = {pb.ACTION_TYPE_CHECK, pb.ACTION_TYPE_CALL, pb.ACTION_TYPE_BRING_IN}

    def next_hand() -> bool:
        with lock:
            if time.monotonic() >= end or (hands is not None and report.hands_started >= hands):
                return False
            if stop is not None and stop.is_set():
                return False
            report.hands_started += 1
            if rate is None:
                return True
            slot = schedule[0] = max(schedule[0] + 1.0 / rate, time.monotonic() - 1.0)
        pause = slot - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        return True

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        observer = _Observer(report, lock)
        with SyncEngine(dial, observer=observer, extra_options=balanced) as engine:
            while next_hand():
                seats = rng.randint(2, 7)
                stacks = [rng.choice((200, 500, 1000)) for _ in range(seats)]
                variant = rng.choice((pb.VARIANT_FIVE_CARD_STUD, pb.VARIANT_SEVEN_CARD_STUD))
                request = pb.StartHandRequest(
                    variant=variant,
                    table=table,
                    players=[pb.Player(id=f"t{index}s{i}", stack=s) for i, s in enumerate(stacks)],
                    button=rng.randrange(seats),
                )
                try:
                    update = engine.start_hand(request)
                    for _ in range(500):
                        if update.over:
                            break
                        legal = [a.type for a in update.legal_actions]
                        roll = rng.random()
                        pool = [a for a in legal if a in aggressive] if roll < 0.2 else []
                        if not pool and roll < 0.3 and pb.ACTION_TYPE_FOLD in legal:
                            pool = [pb.ACTION_TYPE_FOLD]
                        pool = pool or [a for a in legal if a in passive] or legal
                        act = act_request(update.state, update.seq, update.to_act, rng.choice(pool))
                        update = engine.act(act)
                except EngineError as error:
                    with lock:
                        report.errors[error.code] += 1
                    continue
                with lock:
                    if update.over:
                        report.hands_finished += 1
                        if not chips_conserved(stacks, update):
                            report.chip_violations += 1

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    report.seconds = time.monotonic() - started_at
    return report
