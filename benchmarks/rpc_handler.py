"""``python -m benchmarks.rpc --handler``: the in-process handler cost of one Act on an
eight-handed Seven Card Stud hand, compiled build and pure-Python build side by side.

Each build runs in a child process of its own (``STUDENGINE_PURE=1`` for the pure one)
that records the same hands (seeded deck and choices) through ``Handlers`` and then, when
asked, replays every recorded Act through ``ApiCalls.run_serialized`` (what the gRPC port
calls once a request is parsed: open and check the state, the rules, the views, seal, the
answer's bytes) and answers the CPU microseconds per Act. Rounds alternate between the
two children, so drifts in the shared machine's load hit both alike; the median round is
the figure, the ratio is pure/compiled.

Each round also times ``views.serialized_views`` alone (the spectator's and the seats'
views the handler builds) on the hand and events of every recorded Act (the state opened
and the move applied once, outside the timing): the views' share of the handler is
printed beside it; and the protobuf parse of the views' bytes into a message, which the
message API (``ApiCalls.run``: the HTTP port) still pays and the gRPC port does not.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.calls import ApiCalls
from studengine.api.requests import parse_act
from studengine.api.views import serialized_views
from studengine.state.codec import HandRecord

ACT_METHOD = "/stud.v1.StudEngineService/Act"
START_METHOD = "/stud.v1.StudEngineService/StartHand"


def recorded_acts(hands: int, seed: int) -> tuple[ApiCalls, list[pb.ActRequest]]:
    """The ``ApiCalls`` of a fresh worker and the Act requests of ``hands`` eight-handed
    Seven Card Stud hands played at random through it."""
    from studengine.api.expensive import ExpensiveCalls
    from studengine.api.handlers import Handlers
    from studengine.state.keys import keyring_from_specs, new_key_spec

    from benchmarks.rpc import play

    deck_rng = random.Random(seed)

    def shuffle() -> list[int]:
        deck = list(range(52))
        deck_rng.shuffle(deck)
        return deck

    keys = keyring_from_specs([new_key_spec("bench")])
    handlers = Handlers(keys, allow_test_decks=False, shuffle=shuffle)
    run: dict[str, tuple[Any, Any]] = {
        START_METHOD: (handlers.start_hand, pb.StartHandRequest),
        ACT_METHOD: (handlers.act, pb.ActRequest),
    }

    def call(method: str, body: bytes) -> bytes:
        handler, request_type = run[method]
        return bytes(handler(request_type.FromString(body)).SerializeToString())

    rng = random.Random(seed)
    acts: list[pb.ActRequest] = []
    for _ in range(hands):
        acts += play(call, pb.VARIANT_SEVEN_CARD_STUD, 8, rng)[0]
    return ApiCalls(handlers, ExpensiveCalls(threads=1, limit=1)), acts


def views_inputs(calls: ApiCalls, acts: list[pb.ActRequest]) -> list[tuple[Any, ...]]:
    """For each Act, what the handler hands ``write_views``: the hand after the move, its
    player ids and the move's events."""
    sealer = calls.handlers.sealer

    def open_state(state: bytes, _context: dict[str, object]) -> HandRecord:
        return sealer.open(state)

    out = []
    for request in acts:
        move = parse_act(request, open_state)
        hand = move.record.hand
        if move.action is None:
            events = hand.timeout(move.seat)
        else:
            events = hand.act(move.seat, move.action, move.to)
        out.append((hand, move.record.player_ids, events))
    return out


def serve(hands: int, seed: int) -> None:
    """The child's loop: ``PASSES`` in, microseconds per Act (and the build) out: the
    handler, the views, and the views' parse."""
    from studengine import compiled

    calls, acts = recorded_acts(hands, seed)
    inputs = views_inputs(calls, acts)
    blobs = []  # each Act's views alone, serialized
    for hand, ids, events in inputs:
        update = pb.HandUpdate()
        update.MergeFromString(serialized_views(hand, ids, events))
        blobs.append(update.SerializeToString())

    async def replay() -> None:
        for request in acts:
            await calls.run_serialized("Act", request, None)

    def views() -> None:
        for hand, ids, events in inputs:
            serialized_views(hand, ids, events)

    def parse() -> None:
        for blob in blobs:
            pb.HandUpdate().MergeFromString(blob)

    def per_act(work: Any, passes: int) -> float:
        t0 = time.process_time()  # CPU time: a shared machine's waits left out
        for _ in range(passes):
            work()
        return (time.process_time() - t0) / (passes * len(acts)) * 1e6

    print(compiled.BUILD, len(acts), flush=True)
    for line in sys.stdin:
        passes = int(line)
        handler = per_act(lambda: asyncio.run(replay()), passes)
        print(
            f"{handler:.2f} {per_act(views, passes):.2f} {per_act(parse, passes):.2f}", flush=True
        )


class Child:
    def __init__(self, pure: bool, hands: int, seed: int) -> None:
        from studengine import compiled

        env = {**os.environ, compiled.PURE_SWITCH: "1" if pure else ""}
        cmd = [sys.executable, "-m", "benchmarks.rpc", "--handler-child"]
        cmd += ["--hands", str(hands), "--seed", str(seed)]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        assert self.proc.stdout is not None
        self.build, acts = self.proc.stdout.readline().split()
        self.acts = int(acts)
        self.rounds: list[float] = []  # the handler's CPU us per Act
        self.views: list[float] = []  # the views' alone
        self.parses: list[float] = []  # of it, the views' parse

    def measure(self, passes: int) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{passes}\n")
        self.proc.stdin.flush()
        handler, views, parse = map(float, self.proc.stdout.readline().split())
        self.rounds.append(handler)
        self.views.append(views)
        self.parses.append(parse)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def run(hands: int, seed: int, rounds: int, passes: int) -> None:
    children = [Child(False, hands, seed), Child(True, hands, seed)]
    try:
        for child in children:
            child.measure(1)  # warm-up
            child.rounds.clear()
            child.views.clear()
            child.parses.clear()
        for _ in range(rounds):
            for child in children:
                child.measure(passes)
    finally:
        for child in children:
            child.close()
    print(
        f"bench-rpc --handler: ApiCalls.run_serialized('Act') in-process on "
        f"{children[0].acts} recorded Acts of {hands} eight-handed Seven Card Stud hands "
        f"(seed {seed}), {rounds} rounds x "
        f"{passes} passes per build, interleaved; {os.cpu_count()} cores, load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(f"{'build':<10}{'us/Act median':>15}{'best':>9}{'views':>9}{'share':>7}{'parse':>7}")
    for child in children:
        handler, views = statistics.median(child.rounds), statistics.median(child.views)
        print(
            f"{child.build:<10}{handler:>15.1f}{min(child.rounds):>9.1f}{views:>9.1f}"
            f"{views / handler:>7.0%}{statistics.median(child.parses):>7.1f}"
        )
    compiled_build, pure = (statistics.median(c.rounds) for c in children)
    if children[0].build == children[1].build:
        print("(no compiled build here: both children ran the pure-Python sources)")
    print(f"pure / {children[0].build}: {pure / compiled_build:.2f}x (medians)")


# ---- instructions per Act under callgrind: ``python -m benchmarks.rpc --handler --instructions``


def count(hands: int, seed: int, passes: int) -> None:
    """The child under callgrind: the recorded Acts replayed ``passes`` times, each parsed
    from its bytes as the gRPC port parses it, inside ``sys.call_tracing``, the one call
    callgrind counts (``--toggle-collect``)."""
    calls, acts = recorded_acts(hands, seed)
    bodies = [a.SerializeToString() for a in acts]

    async def replay() -> None:
        run, parse = calls.run_serialized, pb.ActRequest.FromString
        for _ in range(passes):
            for body in bodies:
                await run("Act", parse(body), None)

    sys.call_tracing(asyncio.run, (replay(),))
    print(len(acts), flush=True)


def _counted(pure: bool, hands: int, seed: int, passes: int, out: str) -> tuple[int, int]:
    """(instructions counted, Acts a pass) of one child under callgrind."""
    from studengine import compiled

    from benchmarks.rpc_instructions import _instructions

    env = {**os.environ, compiled.PURE_SWITCH: "1" if pure else "", "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no"]
    cmd += ["--toggle-collect=sys_call_tracing", f"--callgrind-out-file={out}"]
    cmd += [sys.executable, "-m", "benchmarks.rpc", "--handler-count", str(passes)]
    cmd += ["--hands", str(hands), "--seed", str(seed)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return _instructions(out), int(done.stdout.split()[-1])


def run_instructions(hands: int, seed: int) -> None:
    """Instructions per Act, compiled and pure builds: the count of three passes less
    that of one (the first pass's one-time costs cancel), over two passes' Acts."""
    import tempfile

    from benchmarks.rpc_instructions import have_callgrind

    if not have_callgrind():
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-handler-") as tmp:
        for pure in (False, True):
            one, acts = _counted(pure, hands, seed, 1, f"{tmp}/one.{pure}")
            three, _ = _counted(pure, hands, seed, 3, f"{tmp}/three.{pure}")
            rows.append(("python" if pure else "compiled", (three - one) / (2 * acts)))
    print(
        f"bench-rpc --handler --instructions: ActRequest parsed + ApiCalls.run_serialized"
        f"('Act') in-process under callgrind, {acts} recorded Acts of {hands} eight-handed "
        f"Seven Card Stud hands (seed {seed}); instructions per Act"
    )
    for build, per_act in rows:
        print(f"  {build:<10}{per_act / 1e3:>10.1f} k")
    print(f"pure / compiled: {rows[1][1] / rows[0][1]:.2f}x")
