"""A conformance driver that plays vectors against a live server through the public API
(``stud-conformance --target HOST:PORT``; the server must allow test decks), dialled by the
clients' one engine client (``studclients.engine``: TLS, the service config's retries).

Every call is a real gRPC call; the driver keeps only the newest sealed state and its
seq (sent back as ``expected_seq``). A refused action leaves the old state in place.
"""

from __future__ import annotations

from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.engine import Dial, EngineError, SyncEngine, act_request

from studengine.api.conversions import ACTION_FROM_PB, ACTION_TO_PB, VARIANT_TO_PB, table_to_pb
from studengine.conformance.local import table_from_vector
from studengine.conformance.runner import ActionRefused, Snapshot
from studengine.rules.types import ActionType, Variant

REFUSALS = ("FAILED_PRECONDITION", "INVALID_ARGUMENT")


def start_request(vector: dict[str, Any]) -> pb.StartHandRequest:
    return pb.StartHandRequest(
        variant=VARIANT_TO_PB[Variant(vector["variant"])],
        table=table_to_pb(table_from_vector(vector)),
        players=[pb.Player(id=f"player-{i}", stack=s) for i, s in enumerate(vector["stacks"])],
        button=vector["button"],
        test_deck=vector.get("deck", []),
    )


def snapshot_of(update: pb.HandUpdate) -> Snapshot:
    return Snapshot(
        to_act=update.to_act if update.HasField("to_act") else None,
        legal=[
            (ACTION_FROM_PB[a.type].value, a.to if a.HasField("to") else None)
            for a in update.legal_actions
        ],
        pot=update.spectator.pot,
        stacks=[s.stack for s in update.spectator.seats],
        over=update.over,
        pots=[(p.amount, sorted(p.winners), sorted(p.low_winners)) for p in update.result.pots],
        revealed=sorted(update.result.revealed),
        rake=update.result.rake,
        tabled=[s.seat for s in update.spectator.seats if s.tabled],
    )


class RemoteDriver:
    """Plays one vector at a time against the one server ``dial`` names."""

    def __init__(self, dial: Dial, timeout: float = 10.0) -> None:
        self.engine = SyncEngine(dial, timeout=timeout)
        self.state = b""
        self.seq = 0
        self.last: pb.HandUpdate | None = None

    def _take(self, update: pb.HandUpdate) -> Snapshot:
        self.state = update.state
        self.seq = update.seq
        self.last = update
        return snapshot_of(update)

    def start(self, vector: dict[str, Any]) -> Snapshot:
        return self._take(self.engine.start_hand(start_request(vector)))

    def act(self, seat: int, action: str, to: int | None) -> Snapshot:
        request = act_request(self.state, self.seq, seat, ACTION_TO_PB[ActionType(action)], to)
        try:
            update = self.engine.act(request)
        except EngineError as error:
            if error.code in REFUSALS:
                raise ActionRefused(f"{error.code}: {error.message}") from None
            raise
        return self._take(update)

    def close(self) -> None:
        self.engine.close()
