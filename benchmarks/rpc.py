"""``make bench-rpc``: the cost of an Act call next to a bare gRPC echo of the same size.

In one run it starts the real ``stud-server`` (one worker) and an echo service built with
the same server settings (grpc.aio, options, the metrics/logging interceptor), each in
its own process with its JSON logs going to a file. It replays a fixed mix of real Act
requests (recorded from random hands) at a fixed concurrency for a fixed count, then the
echo with request/response sizes equal to the median Act request/response; and prints calls
per second, p50/p99 latency, the server process's CPU time per call (from
/proc/<pid>/stat) and the ratios: the headline round by round (the median over the
rounds of each Act round over the echo's taken right after it), then the best and the
median rounds'. The servers share one core and the client keeps the other(s)
(``--no-pin``: any core); the time the host gave other guests on that core during the
rounds (steal) is printed, with a warning when it is large enough to skew the figures.
The echo also runs without the interceptor, and on the sync gRPC server, to show what
the interceptor costs and what grpc.aio costs.
Then the same Act mix over the HTTP port (Connect, binary) on each candidate ASGI server
(``benchmarks/rpc_connect.py``). Finally it prints the sealed state's size for 2 and 8
players in both games. ``--handler``: the in-process cost of the Act handler alone,
compiled and pure-Python builds side by side (``benchmarks/rpc_handler.py``);
``--interceptor``: the interceptor's instructions per call by part, under callgrind;
``--instructions``: Act and the echo in server instructions per call under callgrind
(``benchmarks/rpc_instructions.py``); both: the handler's instructions per Act. ``--deal``:
StartHand with and without a deal ticket under callgrind (``benchmarks/rpc_deal.py``).

``python -m benchmarks.rpc --serve-echo ...`` is the echo server process itself.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.wrappers_pb2 import BytesValue
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.server.config import ServerConfig

from benchmarks import rpc_connect, rpc_deal, rpc_handler, rpc_instructions, rpc_interceptor
from benchmarks.rpc_load import CoreSteal, ServerProcess, Summary, measure

ECHO_METHOD = "/bench.v1.EchoService/Echo"
ACT_METHOD = "/stud.v1.StudEngineService/Act"
START_METHOD = "/stud.v1.StudEngineService/StartHand"
#: above this share of the servers' core taken by other guests, a run is to be taken again
STEAL_WARNING = 0.05


# ---- the echo server process ------------------------------------------------------------


def _add_echo(server: Any, response: BytesValue, asynchronous: bool) -> None:
    """Register the echo the way the servicer registers its methods (a generic handler
    only: ``servicer.add_servicer`` says why)."""

    def echo(_request: BytesValue, _context: Any) -> BytesValue:
        return response

    async def echo_async(_request: BytesValue, _context: Any) -> BytesValue:
        return response

    handler = grpc.unary_unary_rpc_method_handler(
        echo_async if asynchronous else echo,
        request_deserializer=BytesValue.FromString,
        response_serializer=BytesValue.SerializeToString,
    )
    service, method = ECHO_METHOD.strip("/").split("/")
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service, {method: handler}),)
    )


def serve_echo(kind: str, response_bytes: int, config: ServerConfig) -> None:
    """Serve the echo on 127.0.0.1 (free port, printed as ``PORT n``) until killed.

    ``kind``: ``aio`` (the stud-server's own settings: grpc.aio, its options and
    interceptor), ``aio-bare`` (grpc.aio, no interceptor), ``sync-bare`` (the sync server
    with a thread pool, no interceptor: what stud-server used before it moved to aio);
    ``aio-nolog``, ``aio-notimer``: ``aio`` without the log line, without the receive
    timer (``benchmarks/rpc_interceptor.py``)."""
    from studengine.server.grpc_listener import server_options
    from studengine.server.interceptors import ObservingInterceptor
    from studengine.server.logging import configure_logging

    configure_logging("warning" if kind == "aio-nolog" else config.log_level)
    response = BytesValue.FromString(bytes_value_of_size(response_bytes))
    address = f"127.0.0.1:{config.port}"
    if kind.startswith("aio"):

        async def main() -> None:
            interceptors = []
            if kind in ("aio", "aio-nolog", "aio-notimer"):
                timer = None if kind == "aio-notimer" else config.receive_timeout_seconds
                interceptors.append(ObservingInterceptor(config.max_concurrent_rpcs, timer))
            server = grpc.aio.server(
                interceptors=interceptors, options=server_options(config, False)
            )
            _add_echo(server, response, True)
            port = server.add_insecure_port(address)
            await server.start()
            print(f"PORT {port}", flush=True)
            await server.wait_for_termination()

        asyncio.run(main())
        return
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8),
        options=server_options(config, False),
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
    )
    _add_echo(server, response, False)
    port = server.add_insecure_port(address)
    server.start()
    print(f"PORT {port}", flush=True)
    server.wait_for_termination()


# ---- a realistic mix of Act requests -------------------------------------------------------


def _table(variant: pb.Variant.ValueType) -> pb.Table:
    if variant == pb.VARIANT_FIVE_CARD_STUD:
        return pb.Table(ante=10, bring_in=10, small_bet=20, big_bet=40)
    return pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)


def start_request(
    variant: pb.Variant.ValueType, players: int, rng: random.Random
) -> pb.StartHandRequest:
    return pb.StartHandRequest(
        variant=variant,
        table=_table(variant),
        players=[pb.Player(id=f"player-{i}", stack=1000) for i in range(players)],
        button=rng.randrange(players),
    )


def play(
    call: Callable[[str, bytes], bytes],
    variant: pb.Variant.ValueType,
    players: int,
    rng: random.Random,
) -> tuple[list[pb.ActRequest], list[int], list[int]]:
    """One hand played at random (calls weighted up, folds down) through the server:
    the Act requests sent, the sizes of the responses, and the sealed state sizes."""
    start = call(START_METHOD, start_request(variant, players, rng).SerializeToString())
    update = pb.StartHandResponse.FromString(start).hand
    requests, response_sizes, state_sizes = [], [], [len(update.state)]
    while not update.over:
        weights = [
            {pb.ACTION_TYPE_FOLD: 1, pb.ACTION_TYPE_CALL: 6, pb.ACTION_TYPE_CHECK: 6}.get(a.type, 2)
            for a in update.legal_actions
        ]
        choice = rng.choices(list(update.legal_actions), weights=weights)[0]
        request = pb.ActRequest(
            state=update.state, seat=update.to_act, action=choice.type, expected_seq=update.seq
        )
        if choice.HasField("to"):
            request.to = choice.to
        raw = call(ACT_METHOD, request.SerializeToString())
        requests.append(request)
        response_sizes.append(len(raw))
        update = pb.ActResponse.FromString(raw).hand
        state_sizes.append(len(update.state))
    return requests, response_sizes, state_sizes


def record(target: str, hands: int, rng: random.Random) -> tuple[list[bytes], int, int]:
    """Act requests from ``hands`` random hands (both games, 2 to 8 players), with the
    median request and response sizes."""
    with grpc.insecure_channel(target) as channel:

        def call(method: str, body: bytes) -> bytes:
            return bytes(channel.unary_unary(method, None, None)(body, timeout=30))

        requests: list[bytes] = []
        responses: list[int] = []
        for i in range(hands):
            variant = pb.VARIANT_SEVEN_CARD_STUD if i % 2 else pb.VARIANT_FIVE_CARD_STUD
            acts, sizes, _ = play(call, variant, rng.randint(2, 8), rng)
            requests += [a.SerializeToString() for a in acts]
            responses += sizes
    median_request = int(statistics.median(len(r) for r in requests))
    return requests, median_request, int(statistics.median(responses))


def state_sizes(target: str, rng: random.Random, hands: int = 5) -> list[tuple[str, int, int, int]]:
    """(game, players, size after StartHand, largest size during the hand) per table."""
    rows = []
    with grpc.insecure_channel(target) as channel:

        def call(method: str, body: bytes) -> bytes:
            return bytes(channel.unary_unary(method, None, None)(body, timeout=30))

        for variant, game in (
            (pb.VARIANT_FIVE_CARD_STUD, "Five"),
            (pb.VARIANT_SEVEN_CARD_STUD, "Seven"),
        ):
            for players in (2, 8):
                sizes = [play(call, variant, players, rng)[2] for _ in range(hands)]
                rows.append((game, players, sizes[0][0], max(max(s) for s in sizes)))
    return rows


# ---- the run ------------------------------------------------------------------------------


def bytes_value_of_size(size: int) -> bytes:
    """A serialized BytesValue of exactly ``size`` bytes (or the nearest above)."""
    payload = max(0, size - 3)
    while payload and BytesValue(value=b"\x5a" * payload).ByteSize() > size:
        payload -= 1
    return BytesValue(value=b"\x5a" * payload).SerializeToString()


ECHO_KINDS = (
    ("aio", "echo, same server settings"),
    ("aio-bare", "echo, no interceptor"),
    ("sync-bare", "echo, sync gRPC, no interceptor"),
)


def _bench_env() -> dict[str, str]:
    """The servers' environment: no STUD_ settings but a fresh sealing key, one process."""
    from studengine.state.keys import new_key_spec

    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env["STUD_SEALING_KEYS"] = new_key_spec("bench")  # in the environment, not argv
    root = str(Path(__file__).resolve().parents[1])  # the echo servers run -m benchmarks.rpc
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return env


def split_cores(pin: bool) -> tuple[frozenset[int] | None, str]:
    """The cores the servers run on (None: any) and a line saying so. Pinned, the servers
    share the last core and the client process keeps the others, so that neither moves
    between cores or waits behind the other: the rounds vary less."""
    cores = sorted(os.sched_getaffinity(0))
    if not pin or len(cores) < 2:
        return None, f"not pinned ({len(cores)} cores)"
    servers, client = frozenset(cores[-1:]), set(cores[:-1])
    os.sched_setaffinity(0, client)
    return servers, f"servers pinned to core {cores[-1]}, client to {sorted(client)}"


def run(options: argparse.Namespace) -> None:
    rng = random.Random(options.seed)
    server_cpus, pinning = split_cores(options.pin)
    env = _bench_env()
    per_round = max(1, options.calls // options.rounds)
    load = (per_round, options.concurrency, options.warmup)
    servers: list[ServerProcess] = []
    with tempfile.TemporaryDirectory(prefix="bench-rpc-") as tmp:
        logs = Path(tmp)
        try:
            cmd = [sys.executable, "-m", "studengine.server"]
            args = [*cmd, "--port", "0", "--metrics-port", "0"]
            stud = ServerProcess(args, env, logs, "stud", server_cpus)
            servers.append(stud)
            stud.wait_ready()
            target = f"127.0.0.1:{stud.port}"
            requests, request_bytes, response_bytes = record(target, options.hands, rng)
            sizes = state_sizes(target, rng)
            for kind, _ in ECHO_KINDS:
                cmd = [sys.executable, "-m", "benchmarks.rpc", "--serve-echo", kind]
                cmd += ["--response-bytes", str(response_bytes)]
                servers.append(ServerProcess(cmd, env, logs, f"echo-{kind}", server_cpus))
                servers[-1].wait_ready()
            connect_kinds = rpc_connect.installed_servers()
            missing = sorted(set(rpc_connect.SERVERS) - set(connect_kinds))
            if missing:
                print(f"(not installed, left out: {', '.join(missing)}; make bench-rpc has them)")
            for kind in connect_kinds:
                cmd = [sys.executable, "-m", "benchmarks.rpc_connect", "--serve", kind]
                servers.append(ServerProcess(cmd, env, logs, f"connect-{kind}", server_cpus))
                servers[-1].wait_ready()
            echo_request = [bytes_value_of_size(request_bytes)]
            plan = [("Act (stud-server, 1 worker)", stud, ACT_METHOD, requests)]
            plan += [
                (name, server, ECHO_METHOD, echo_request)
                for (_, name), server in zip(ECHO_KINDS, servers[1:4], strict=True)
            ]
            plan += [
                (f"Act over Connect ({kind})", server, "connect", requests)
                for kind, server in zip(connect_kinds, servers[4:], strict=True)
            ]
            summaries = [Summary(name, []) for name, *_ in plan]
            steal = CoreSteal(server_cpus)
            steal.start()
            for _ in range(options.rounds):  # interleaved, so drifts in load hit all alike
                for summary, (name, server, method, bodies) in zip(summaries, plan, strict=True):
                    summary.rounds.append(measure(name, server, method, bodies, *load))
            stolen = steal.share()
        finally:
            for server in servers:
                server.stop()

    act, echo_same, echo_bare, echo_sync, *connects = summaries
    print(
        f"bench-rpc: {options.rounds} rounds x {per_round} calls per server (interleaved), "
        f"{options.concurrency} in flight; servers: 1 process (stud-server: grpc.aio, cheap "
        f"calls on the event loop), JSON call logs to a file; client: grpc.aio, one process; "
        f"{os.cpu_count()} cores ({pinning}), load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"Act mix: {len(requests)} recorded Act requests from {options.hands} random hands "
        f"(Five/Seven, 2-8 players); median request {request_bytes} B, response "
        f"{response_bytes} B (the echo's sizes)"
    )
    print(
        f"{'':<32}{'calls/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'CPU us/call':>20}\n"
        f"{'':<32}{'best':>9}{'':>16}{'best':>10}{'median':>10}"
    )
    for summary in summaries:
        print(summary.row())
    paired = act.paired_ratios(echo_same)
    print(
        f"Act / echo (same settings), server CPU per call: {statistics.median(paired):.2f}x "
        f"round by round (the median of {len(paired)} Act rounds each over the echo's round "
        f"taken right after it: {min(paired):.2f}x to {max(paired):.2f}x; aim <= 1.4x); "
        f"{act.best_cpu_us / echo_same.best_cpu_us:.2f}x best, "
        f"{act.median_cpu_us / echo_same.median_cpu_us:.2f}x median; "
        f"calls/s {act.best_rate / echo_same.best_rate:.2f}x; "
        f"p50 latency {act.percentile(0.5) / echo_same.percentile(0.5):.2f}x"
    )
    cores = "the servers' core" if server_cpus else "the cores"
    print(
        f"steal (time the host gave other guests) on {cores} during the rounds: "
        f"{stolen:.1%}"
        + (
            f" (over {STEAL_WARNING:.0%}: CPU per call is inflated; run again)"
            if stolen > STEAL_WARNING
            else ""
        )
    )
    print(
        f"interceptor (metrics + JSON log line): "
        f"{echo_same.best_cpu_us - echo_bare.best_cpu_us:+.0f} us CPU per call (best rounds); "
        f"grpc.aio / sync gRPC CPU per call (bare echo): "
        f"{echo_bare.best_cpu_us / echo_sync.best_cpu_us:.2f}x"
    )
    for connect in connects:
        print(
            f"{connect.name}: server CPU per call {connect.best_cpu_us / act.best_cpu_us:.2f}x "
            f"the gRPC port's, calls/s {connect.best_rate / act.best_rate:.2f}x"
        )
    print("sealed state size (bytes): game, players, after StartHand, largest in the hand")
    for game, players, first, largest in sizes:
        print(f"  {game:<6}{players:>3} players {first:>6} {largest:>6}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10500, help="timed calls per server")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per server")
    parser.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="let the servers and the client run on any core (default: servers on the last)",
    )
    parser.add_argument("--concurrency", type=int, default=8, help="calls in flight")
    parser.add_argument("--warmup", type=int, default=300, help="untimed calls first")
    parser.add_argument("--hands", type=int, default=30, help="hands recorded for the Act mix")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--serve-echo",
        choices=[kind for kind, _ in ECHO_KINDS + rpc_interceptor.KINDS],
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--response-bytes", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--handler",
        action="store_true",
        help="instead: the in-process handler cost per eight-handed Seven Card Stud Act, "
        "compiled vs pure-Python build (benchmarks/rpc_handler.py)",
    )
    parser.add_argument(
        "--interceptor",
        action="store_true",
        help="instead: the interceptor's instructions per call under callgrind, by part "
        "(benchmarks/rpc_interceptor.py)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instead: Act and the echo in server instructions per call under callgrind, "
        "side by side (benchmarks/rpc_instructions.py)",
    )
    parser.add_argument(
        "--deal",
        action="store_true",
        help="instead: StartHand with and without a deal ticket, and CreateDealTicket, in "
        "server instructions per call under callgrind (benchmarks/rpc_deal.py)",
    )
    parser.add_argument("--handler-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--handler-count", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.handler_child:
        rpc_handler.serve(options.hands, options.seed)
        return
    if options.handler_count:
        rpc_handler.count(options.hands, options.seed, options.handler_count)
        return
    if options.handler and options.instructions:
        rpc_handler.run_instructions(options.hands, options.seed)
        return
    if options.interceptor:
        rpc_interceptor.run(_bench_env())
        return
    if options.deal:
        rpc_deal.run(_bench_env(), options.seed)
        return
    if options.instructions:
        rpc_instructions.run(_bench_env(), options.hands, options.seed)
        return
    if options.handler:
        rpc_handler.run(options.hands, options.seed, options.rounds * 2, passes=3)
        return
    if options.serve_echo:
        serve_echo(options.serve_echo, options.response_bytes, ServerConfig(port=0))
        return
    run(options)


if __name__ == "__main__":
    main()
