"""GetHandHistory through the handlers: the PHH history of a finished hand (the players'
rendering by default, the audit one on request, with timeouts marked), the same text the
history package writes and the reader plays back; refused for a hand not over."""

from __future__ import annotations

import random
import tomllib

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.errors import ApiError
from studengine.api.handlers import Handlers
from studengine.history.phh import Audience, HandMeta, render
from studengine.history.reader import parse, replay
from studengine.state.sealing import INVALID_MESSAGE, KeyRing, Sealer
from support.api_helpers import new_key, random_act, random_start, reference_commitment

KEYS = KeyRing([new_key("k1")])


@pytest.fixture
def handlers() -> Handlers:
    return Handlers(KEYS, allow_test_decks=False)


def history(handlers: Handlers, state: bytes, audience: int = 0) -> pb.GetHandHistoryResponse:
    request = pb.GetHandHistoryRequest(state=state, audience=audience)  # type: ignore[arg-type]
    return handlers.get_hand_history(request)


def test_a_hand_in_play_has_no_history_yet(handlers: Handlers) -> None:
    update = handlers.start_hand(random_start(random.Random(1))).hand
    assert not update.over
    with pytest.raises(ApiError) as refused:
        history(handlers, update.state)
    error = refused.value
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "HAND_NOT_OVER"
    assert error.metric_label == "hand_not_over"
    assert error.metadata == {"seq": "0"}
    assert "not over" in error.message and "seq 0" in error.message


def test_bad_state_and_audience_are_refused(handlers: Handlers) -> None:
    with pytest.raises(ApiError) as refused:
        history(handlers, b"not a state")
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason == "STATE_INVALID"
    with pytest.raises(ApiError) as refused:
        history(handlers, b"", audience=7)
    fields = [(v.field, v.description) for v in refused.value.violations]
    assert fields == [("audience", "unknown value 7"), ("state", INVALID_MESSAGE)]


def test_finished_hands_histories_in_both_renderings(handlers: Handlers) -> None:
    rng = random.Random(8)
    sealer = Sealer(KEYS, allow_test_decks=False)
    timeouts = 0
    for _ in range(40):
        update = handlers.start_hand(random_start(rng)).hand
        while not update.over:
            update = handlers.act(random_act(rng, update)).hand
        players = history(handlers, update.state)
        audit = history(handlers, update.state, pb.HISTORY_AUDIENCE_AUDIT)
        assert players.audience == pb.HISTORY_AUDIENCE_PLAYERS
        assert audit.audience == pb.HISTORY_AUDIENCE_AUDIT
        assert players.hand_id == audit.hand_id == update.hand_id
        record = sealer.open(update.state)
        meta = HandMeta(
            update.hand_id,
            record.player_ids,
            reference_commitment(record.hand_id, record.salt, record.hand.deck),
            record.salt.hex(),
        )
        assert players.phh == render(record.hand, meta, Audience.PLAYERS)
        assert audit.phh == render(record.hand, meta, Audience.AUDIT)
        fields = tomllib.loads(audit.phh)
        assert fields["hand"] == update.hand_id
        assert fields["_deck_commitment"] == update.deck_commitment
        assert fields["_salt"] == update.reveal.salt
        assert fields["_deck"] == "".join(update.reveal.deck)
        assert "_salt" not in tomllib.loads(players.phh)
        timeouts += sum("# timeout" in line for line in fields["actions"])
        for text in (players.phh, audit.phh):
            assert replay(parse(text)).stacks_agree
    assert timeouts > 0
