"""A small closed-loop game driver for `make cluster`, `make soak` and the failure tests.

Plays real hands against several replicas through one gRPC channel with client-side
round robin (as clients do against the headless Service), retries UNAVAILABLE on the
next replica, optionally paces hands at a fixed rate, and checks that every finished
hand conserves chips.
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

RETRIES = 8


@dataclass
class LoadReport:
    seconds: float = 0.0
    hands_started: int = 0
    hands_finished: int = 0
    calls: int = 0
    retries: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    retried_codes: collections.Counter[str] = field(default_factory=collections.Counter)
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
            "retries": self.retries,
            "retried_codes": dict(self.retried_codes),
            "errors": dict(self.errors),
            "chip_violations": self.chip_violations,
        }


class _Stop(Exception):
    pass


def _channel(targets: Sequence[str]) -> Any:
    import grpc

    addresses = ",".join(targets)
    return grpc.insecure_channel(
        f"ipv4:{addresses}",
        options=[
            ("grpc.lb_policy_name", "round_robin"),
            ("grpc.enable_retries", 1),
            # Own connections per channel (not the process-wide subchannel pool), so each
            # thread opens its own and SO_REUSEPORT spreads them over a replica's workers.
            ("grpc.use_local_subchannel_pool", 1),
        ],
    )


def run_load(
    targets: Sequence[str],
    *,
    seconds: float | None = None,
    hands: int | None = None,
    rate: float | None = None,
    threads: int = 4,
    seed: int = 7,
    retry_cancelled: bool = False,
    stop: threading.Event | None = None,
) -> LoadReport:
    """Play hands on ``threads`` threads until ``seconds`` pass or ``hands`` have started;
    with ``rate``, start at most that many hands per second (fixed-rate pacing).

    UNAVAILABLE is always retried (every call is idempotent: the server keeps nothing).
    With ``retry_cancelled``, so is CANCELLED: this client never cancels a call, and a
    gRPC Python server cancels calls it had received but not yet started when it shuts
    down (grpc/grpc#41785). Retried codes are counted in the report either way.
    Setting ``stop`` ends the run after the hands in play."""
    import grpc
    from stud_api.stud.v1 import stud_engine_pb2 as pb
    from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

    if seconds is None and hands is None:
        raise ValueError("give seconds or hands")
    retryable = {grpc.StatusCode.UNAVAILABLE}
    if retry_cancelled:
        retryable.add(grpc.StatusCode.CANCELLED)
    report = LoadReport()
    lock = threading.Lock()
    started_at = time.monotonic()
    end = started_at + seconds if seconds is not None else float("inf")
    schedule = [started_at]
    table = pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
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

    def call(method: Any, request: Any) -> Any:
        for attempt in range(RETRIES):
            t0 = time.monotonic()
            try:
                reply = method(request, timeout=10)
            except grpc.RpcError as exc:
                code = exc.code().name
                if exc.code() in retryable and attempt + 1 < RETRIES:
                    with lock:
                        report.retries += 1
                        report.retried_codes[code] += 1
                    time.sleep(0.05 * (attempt + 1))
                    continue
                with lock:
                    report.calls += 1
                    report.errors[code] += 1
                raise _Stop from exc
            with lock:
                report.calls += 1
                report.latencies.append(time.monotonic() - t0)
            return reply
        raise AssertionError("unreachable")

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        with _channel(targets) as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
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
                    update = call(stub.StartHand, request).hand
                    for _ in range(500):
                        if update.over:
                            break
                        legal = [a.type for a in update.legal_actions]
                        roll = rng.random()
                        pool = [a for a in legal if a in aggressive] if roll < 0.2 else []
                        if not pool and roll < 0.3 and pb.ACTION_TYPE_FOLD in legal:
                            pool = [pb.ACTION_TYPE_FOLD]
                        pool = pool or [a for a in legal if a in passive] or legal
                        act = pb.ActRequest(
                            state=update.state,
                            seat=update.to_act,
                            action=rng.choice(pool),
                            expected_seq=update.seq,
                        )
                        update = call(stub.Act, act).hand
                except _Stop:
                    continue
                with lock:
                    if update.over:
                        report.hands_finished += 1
                        if sum(update.result.stacks) != sum(stacks):
                            report.chip_violations += 1

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    report.seconds = time.monotonic() - started_at
    return report
