"""``stud-load``: many concurrent tables of bots over ``grpc.aio`` against one or several
Stud Engine servers, with a report of throughput, latency per method, errors and a chip
check of every finished hand.

Calls go through the one engine client (``studclients.engine``): round-robin over every
target (and over several connections per target, so a multi-worker server spreads them
over its workers); each channel's service config retries UNAVAILABLE, and a call still
UNAVAILABLE moves on to another target (counted as a retry) while the failed target is
passed over for a second. That is safe because the server is stateless and Act is a pure
function of (sealed state, action): sending the same request again yields the same next
hand (same ``hand_id``, ``seq`` + 1, same cards; only the ciphertext differs), whether or
not the first attempt landed on a replica whose reply was lost. ``expected_seq`` is always
sent; with a stateless server a retry of the same request cannot make it fail, so an
ABORTED answer means this client's own bookkeeping went wrong: it is counted (under
errors) and the table re-reads the state it holds with GetView and goes on from what the
server says. A retried StartHand deals a second hand and the first is simply never used
(nothing is kept anywhere). CANCELLED is never retried.

``--verifiable`` deals every hand with a deal ticket (CreateDealTicket) and a
contribution of 32 random bytes per player (issue 32); with ``--history-dir`` it then
writes the players' histories, which ``stud-verify`` checks (the deck follows from the
committed seed and the contributions), unless ``--history-audience`` says otherwise.

Without ``--target`` it starts ``stud-server --dev --workers 2`` on a free loopback port
and stops it at the end. It always stops by itself: after ``--duration`` seconds (default
10), after ``--hands`` hands, and in any case after a hard cap (``MAX_SECONDS``)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import sys
import time
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.bots import BOT_KINDS, make_bot, think
from studclients.client import (
    MAX_PLAYERS,
    VARIANTS,
    Histories,
    chips_conserved,
    default_table,
)
from studclients.devserver import ServerProcess, start_dev_server
from studclients.engine import (
    METHODS,
    Dial,
    Engine,
    EngineError,
    act_request,
    add_dial_options,
    dial_from_args,
)

MAX_SECONDS = 3600.0  # the hard cap on any run
GRACE_SECONDS = 15.0  # after the deadline, hands in flight may take this long to finish


@dataclass
class Stats:
    """What a run counted, for the progress line and the report."""

    latency: dict[str, array[float]] = field(default_factory=dict)  # ms, by method
    calls: int = 0  # answered
    errors: Counter[str] = field(default_factory=Counter)  # by status code
    retries: int = 0  # calls moved on to another target
    resyncs: int = 0  # ABORTED answers, the hand re-read with GetView
    started: int = 0  # hands dealt
    hands: int = 0  # hands finished, the chips of each one checked
    conserved: int = 0  # finished hands whose stacks and rake add up (R-RAKE)
    equity_fallbacks: int = 0  # Equity failures answered from Evaluate instead
    histories: int = 0  # PHH histories written (--history-dir)
    client_cpu_s: float = 0.0  # this process's CPU time

    def answered(self, method: str, seconds: float) -> None:
        """A call's answer (the engine client's CallObserver)."""
        self.calls += 1
        self.latency.setdefault(method, array("d")).append(seconds * 1000.0)

    def failed_over(self, method: str, code: str) -> None:
        """A call moved on to another target."""
        self.retries += 1

    def equity_fell_back(self, code: str) -> None:
        self.equity_fallbacks += 1


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of ``values`` (sorted or not); 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return float(ordered[rank - 1])


@dataclass
class Position:
    """Where a hand stands: enough to ask the seat to act for its move."""

    state: bytes
    seq: int
    to_act: int
    legal: Sequence[pb.LegalAction]
    view: pb.View

    @classmethod
    def of(cls, update: pb.HandUpdate) -> Position:
        return cls(update.state, update.seq, update.to_act, update.legal_actions,
                   update.seats[update.to_act])  # fmt: skip


@dataclass
class Config:
    variant: str
    players: int
    stack: int
    kinds: list[str]
    seed: int
    deadline: float
    hands: int  # 0: no limit but the deadline
    histories: Histories | None = None  # where to write each finished hand's PHH history
    verifiable: bool = False  # deal every hand with a deal ticket and players' entropy


async def play_hand(rng: random.Random, cfg: Config, engine: Engine, stats: Stats) -> None:
    variant = (
        VARIANTS[rng.choice(list(VARIANTS))]  # the four games, Razz and Hi-Lo included
        if cfg.variant == "mixed"
        else (VARIANTS[cfg.variant])
    )
    players = min(cfg.players, MAX_PLAYERS[variant])
    # mostly deep stacks, some short ones so all-ins and side pots happen
    stacks = [cfg.stack if rng.random() < 0.75 else rng.randint(1, cfg.stack // 5 + 1)
              for _ in range(players)]  # fmt: skip
    bots = [make_bot(rng.choice(cfg.kinds), random.Random(rng.getrandbits(64)))
            for _ in range(players)]  # fmt: skip
    request = pb.StartHandRequest(
        variant=variant,
        table=default_table(),
        players=[pb.Player(id=f"bot-{i}", stack=s) for i, s in enumerate(stacks)],
        button=rng.randrange(players),
    )
    stats.started += 1
    if cfg.verifiable:  # each bot's client contributes its own entropy
        update = await engine.start_verifiable_hand(request)
    else:
        update = await engine.start_hand(request)
    position = None if update.over else Position.of(update)
    while position is not None:
        seat = position.to_act
        decision = await think(
            bots[seat], position.view, seat, position.legal, engine, stats.equity_fell_back
        )
        act = act_request(position.state, position.seq, seat, decision.action, decision.to)
        try:
            update = await engine.act(act)
        except EngineError as error:
            if error.code != "ABORTED":
                raise
            stats.errors[error.code] += 1
            stats.resyncs += 1
            position = await resync(position, engine)
            continue
        position = None if update.over else Position.of(update)
    stats.hands += 1
    if chips_conserved(stacks, update):  # final stacks + the rake (R-RAKE)
        stats.conserved += 1
    if cfg.histories is not None:
        cfg.histories.save(await engine.get_hand_history(cfg.histories.request(update)))
        stats.histories += 1


async def resync(position: Position, engine: Engine) -> Position:
    """Re-read the state we hold and go on from what the server says it is."""
    view = await engine.get_view(pb.GetViewRequest(state=position.state, seat=position.to_act))
    if view.over:
        raise RuntimeError("GetView says a hand we were playing is over")
    seat = view.to_act
    if seat != position.to_act:
        view = await engine.get_view(pb.GetViewRequest(state=position.state, seat=seat))
    return Position(position.state, view.seq, seat, view.legal_actions, view.view)


async def table_loop(index: int, cfg: Config, engine: Engine, stats: Stats) -> None:
    rng = random.Random(cfg.seed * 1_000_003 + index)
    while time.monotonic() < cfg.deadline and (cfg.hands == 0 or stats.started < cfg.hands):
        try:
            await play_hand(rng, cfg, engine, stats)
        except EngineError as error:
            stats.errors[error.code] += 1
            await asyncio.sleep(0.05)  # a dead target: do not spin


async def progress(stats: Stats, began: float, quiet: bool) -> None:
    while not quiet:
        await asyncio.sleep(0.5)
        elapsed = max(time.monotonic() - began, 1e-9)
        errors = sum(stats.errors.values())
        sys.stderr.write(
            f"\r{elapsed:6.1f}s  hands {stats.hands} ({stats.hands / elapsed:.0f}/s)  "
            f"calls {stats.calls} ({stats.calls / elapsed:.0f}/s)  "
            f"errors {errors}  retries {stats.retries}   "
        )
        sys.stderr.flush()


async def run_load(args: argparse.Namespace, dial: Dial) -> dict[str, Any]:
    stats = Stats()
    duration = min(args.duration if args.duration is not None else 10.0, MAX_SECONDS)
    if args.duration is None and args.hands:
        duration = MAX_SECONDS
    began = time.monotonic()
    cpu_began = time.process_time()
    cfg = Config(
        variant=args.variant,
        players=args.players,
        stack=args.stack,
        kinds=[k.strip() for k in args.bots.split(",") if k.strip()],
        seed=args.seed,
        deadline=began + duration,
        hands=args.hands,
        histories=Histories.from_args(args),
        verifiable=args.verifiable,
    )
    engine = Engine(dial, connections=args.connections, observer=stats)
    ticker = asyncio.create_task(progress(stats, began, args.quiet))
    tables = [asyncio.create_task(table_loop(i, cfg, engine, stats)) for i in range(args.tables)]

    def interrupt() -> None:
        """First Ctrl-C: finish the hands in flight and report; second: stop at once."""
        if cfg.deadline > time.monotonic():
            cfg.deadline = time.monotonic()
            sys.stderr.write("\nstud-load: interrupted, finishing the hands in flight\n")
        else:
            for task in tables:
                task.cancel()

    # loops without signal handlers (not the main thread, Windows) raise these: Ctrl-C
    # then ends the run as Python's default KeyboardInterrupt does
    with contextlib.suppress(NotImplementedError, RuntimeError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, interrupt)
    _done, pending = await asyncio.wait(tables, timeout=duration + GRACE_SECONDS)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tables, return_exceptions=True)
    elapsed = time.monotonic() - began
    stats.client_cpu_s = time.process_time() - cpu_began
    ticker.cancel()
    await asyncio.gather(ticker, return_exceptions=True)
    if not args.quiet:
        sys.stderr.write("\n")
    await engine.close()
    for task in tables:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    return report(stats, elapsed, args, dial.targets)


def report(
    stats: Stats, elapsed: float, args: argparse.Namespace, targets: Sequence[str]
) -> dict[str, Any]:
    latency = {
        method: {
            "p50": round(percentile(values, 50), 3),
            "p95": round(percentile(values, 95), 3),
            "p99": round(percentile(values, 99), 3),
            "count": len(values),
        }
        for method in METHODS
        if (values := stats.latency.get(method))
    }
    return {
        "targets": list(targets),
        "tables": args.tables,
        "variant": args.variant,
        "players": args.players,
        "verifiable": args.verifiable,
        "hands": stats.hands,
        "calls": stats.calls,
        "duration_s": round(elapsed, 3),
        "hands_per_s": round(stats.hands / elapsed, 2),
        "calls_per_s": round(stats.calls / elapsed, 2),
        "latency_ms": latency,
        "errors": dict(sorted(stats.errors.items())),
        "retries": stats.retries,
        "resyncs": stats.resyncs,
        "equity_fallbacks": stats.equity_fallbacks,
        "hands_checked": stats.hands,  # the chips of every finished hand are checked
        "hands_conserved": stats.conserved,
        "histories_written": stats.histories,
        "unfinished": stats.started - stats.hands,
        # this process's CPU time: near duration_s means the client, not the server, limits
        "client_cpu_s": round(stats.client_cpu_s, 3),
    }


def format_report(data: dict[str, Any]) -> str:
    lines = [
        f"stud-load: {data['duration_s']:.1f} s, {data['tables']} tables, "
        f"{data['variant']} games, {data['players']} players, targets {','.join(data['targets'])}",
        f"hands   {data['hands']:>9}  {data['hands_per_s']:>9.1f}/s   checked "
        f"{data['hands_checked']}, chips conserved {data['hands_conserved']}, "
        f"unfinished {data['unfinished']}"
        + (f", histories {data['histories_written']}" if data["histories_written"] else ""),
        f"calls   {data['calls']:>9}  {data['calls_per_s']:>9.1f}/s   retries "
        f"{data['retries']}, resyncs {data['resyncs']}, equity fallbacks "
        f"{data['equity_fallbacks']}",
        f"{'latency ms':<12}{'p50':>9}{'p95':>9}{'p99':>9}{'calls':>10}",
    ]
    for method, row in data["latency_ms"].items():
        lines.append(
            f"  {method:<10}{row['p50']:>9.2f}{row['p95']:>9.2f}{row['p99']:>9.2f}"
            f"{row['count']:>10}"
        )
    errors = ", ".join(f"{code} {n}" for code, n in data["errors"].items()) or "none"
    lines.append(f"errors: {errors}")
    cpu = f"client CPU: {data['client_cpu_s']:.1f} s in {data['duration_s']:.1f} s"
    if "server_cpu_s" in data:
        cpu += (
            f"; server CPU (the server it started): {data['server_cpu_s']:.1f} s, "
            f"{data['server_cpu_ms_per_call']:.2f} ms a call"
        )
    lines.append(cpu)
    return "\n".join(lines)


def verdict(data: dict[str, Any]) -> list[str]:
    """Why the run failed (empty: it passed)."""
    problems = []
    if data["hands_conserved"] != data["hands_checked"]:
        bad = data["hands_checked"] - data["hands_conserved"]
        problems.append(f"{bad} hand(s) failed the chip check")
    if data["errors"]:
        problems.append(f"errors: {data['errors']}")
    if data["hands"] == 0:
        problems.append("no hand finished")
    return problems


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stud-load",
        description="Concurrent tables of bots against Stud Engine servers; reports "
        "throughput, latency and errors, and checks every hand's chips.",
    )
    add_dial_options(
        p,
        aliases=("--targets",),
        many=True,
        default="start a 2-worker stud-server --dev on loopback for the run",
    )
    p.add_argument("--tables", type=int, default=16, help="concurrent tables (default 16)")
    p.add_argument(
        "--duration",
        type=float,
        default=None,
        help=f"seconds to run (default 10; capped at {MAX_SECONDS:.0f})",
    )
    p.add_argument("--hands", type=int, default=0, help="stop after N hands (0: no limit)")
    p.add_argument(
        "--variant",
        choices=[*VARIANTS, "mixed"],
        default="mixed",
        help="five, seven, razz, hilo or mixed (all four, hand by hand; the default)",
    )
    p.add_argument("--players", type=int, default=4, help="players per table (default 4)")
    p.add_argument("--stack", type=int, default=1000)
    p.add_argument(
        "--bots",
        default="random,station",
        help=f"bot kinds to draw from ({', '.join(BOT_KINDS)}; default %(default)s)",
    )
    p.add_argument("--connections", type=int, default=4, help="connections per target")
    p.add_argument("--server-workers", type=int, default=2, help="workers of a server it starts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--verifiable",
        action="store_true",
        help="deal every hand with a deal ticket and each player's entropy (issue 32)",
    )
    Histories.add_options(p, default_audience="audit", verifiable_audience="players")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    return p


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.tables < 1 or args.connections < 1 or args.hands < 0:
        parser.error("--tables and --connections must be at least 1, --hands not negative")
    if args.duration is not None and args.duration <= 0:
        parser.error("--duration must be positive")
    if not 2 <= args.players <= 10:
        parser.error("--players must be 2 to 10 (seven card stud uses at most 8)")
    for kind in args.bots.split(","):
        if kind.strip() not in BOT_KINDS:
            parser.error(f"--bots: unknown bot {kind!r} (choose from {', '.join(BOT_KINDS)})")
    Histories.resolve_audience(args)
    dial = dial_from_args(parser, args, many=True)
    server: ServerProcess | None = None
    try:
        if dial is None:
            server = start_dev_server(workers=args.server_workers)
            dial = Dial((server.target,))
            print(f"stud-load: started stud-server --dev on {server.target}", file=sys.stderr)
        server_cpu = server.cpu_seconds() if server is not None else None
        data = asyncio.run(run_load(args, dial))
        if server is not None and server_cpu is not None:
            # only known for a server this run started: its workers' CPU over the run
            used = (server.cpu_seconds() or 0.0) - server_cpu
            data["server_cpu_s"] = round(used, 3)
            data["server_cpu_ms_per_call"] = round(1000 * used / max(1, data["calls"]), 3)
    except KeyboardInterrupt:
        print("\nstud-load: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        if server is not None:
            server.stop()
    print(json.dumps(data, indent=2) if args.json else format_report(data))
    problems = verdict(data)
    for problem in problems:
        print(f"stud-load: FAILED: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
