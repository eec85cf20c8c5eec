"""``python -m benchmarks.rpc --deal``: what a verifiable deal (issue 32) costs the server,
in instructions per call under callgrind, side by side in one run: StartHand without a
ticket (the server shuffles), StartHand with a ticket and the players' contributions (the
ticket opened, the deck drawn from HMAC_DRBG), and CreateDealTicket (the ticket's own
call).

The same ``stud-server`` command and sealing key serve each in turn
(``rpc_instructions.per_call``: warm-up, counts zeroed, ``CALLS`` calls, 8 in flight). The
tickets are made first by a server of the same key running normally (with a day's
lifetime, so that none expires during the counts); each is used for many StartHands, which
the service allows (the players would see the same commitment twice). The requests: Seven
Card Stud, 2 to 8 players, the same settings with and without a ticket.
"""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import grpc
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

from benchmarks.rpc_instructions import CALLS, STUD_CMD, WARMUP, have_callgrind, per_call
from benchmarks.rpc_load import ServerProcess

START_METHOD = "/stud.v1.StudEngineService/StartHand"
TICKET_METHOD = "/stud.v1.StudEngineService/CreateDealTicket"
SETTINGS = 14  # distinct tables (2 to 8 players, two buttons each)
CONTRIBUTION_BYTES = 32  # what a browser client sends (16 to 64 allowed)


def settings(rng: random.Random) -> list[pb.CreateDealTicketRequest]:
    """Seven Card Stud tables of 2 to 8 players."""
    table = pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
    requests = []
    for index in range(SETTINGS):
        players = 2 + index % 7
        requests.append(
            pb.CreateDealTicketRequest(
                variant=pb.VARIANT_SEVEN_CARD_STUD,
                table=table,
                players=[pb.Player(id=f"player-{s}", stack=1000) for s in range(players)],
                button=rng.randrange(players),
            )
        )
    return requests


def start_requests(
    target: str, asks: list[pb.CreateDealTicketRequest], rng: random.Random
) -> tuple[list[bytes], list[bytes]]:
    """The StartHand requests without and with a ticket (made by the server at ``target``)."""
    plain, ticketed = [], []
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for ask in asks:
            start = pb.StartHandRequest(
                variant=ask.variant, table=ask.table, players=ask.players, button=ask.button
            )
            plain.append(start.SerializeToString())
            ticket = stub.CreateDealTicket(ask, timeout=60).ticket
            start.deal_ticket = ticket.sealed
            start.contributions.extend(rng.randbytes(CONTRIBUTION_BYTES) for _ in ask.players)
            ticketed.append(start.SerializeToString())
    return plain, ticketed


def run(env: dict[str, str], seed: int) -> None:
    if not have_callgrind():
        return
    rng = random.Random(seed)
    asks = settings(rng)
    with tempfile.TemporaryDirectory(prefix="bench-deal-") as tmp:
        logs = Path(tmp)
        issuer = ServerProcess([*STUD_CMD, "--deal-ticket-seconds", "86400"], env, logs, "issuer")
        try:
            issuer.wait_ready()
            plain, ticketed = start_requests(f"127.0.0.1:{issuer.port}", asks, rng)
        finally:
            issuer.stop()
        ask_bytes = [ask.SerializeToString() for ask in asks]
        without = per_call(STUD_CMD, env, logs, "start-plain", START_METHOD, plain)
        with_ticket = per_call(STUD_CMD, env, logs, "start-ticket", START_METHOD, ticketed)
        ticket_call = per_call(STUD_CMD, env, logs, "ticket", TICKET_METHOD, ask_bytes)
    print(
        f"bench-rpc --deal: server instructions per call under callgrind ({CALLS} calls after "
        f"{WARMUP}, 8 in flight), stud-server 1 worker, {SETTINGS} Seven Card Stud tables of "
        f"2 to 8 players, {CONTRIBUTION_BYTES}-byte contributions, seed {seed}; load average "
        f"{os.getloadavg()[0]:.1f} (does not move the counts)"
    )
    for name, count in (
        ("StartHand without a ticket", without),
        ("StartHand with a ticket", with_ticket),
        ("CreateDealTicket", ticket_call),
    ):
        print(f"  {name:<40}{count / 1e3:>10.1f} k")
    print(
        f"StartHand with a ticket / without: {with_ticket / without:.3f}x "
        f"({(with_ticket - without) / 1e3:+.1f} k); the whole verifiable deal (CreateDealTicket "
        f"+ StartHand with it) / StartHand without: {(ticket_call + with_ticket) / without:.3f}x"
    )
