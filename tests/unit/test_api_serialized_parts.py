"""The Act path assembles views and the sealed state from serialized parts (for speed).
These tests hold that output to plain protobuf-built references: every view equals one
built field by field with the message API, and the state's bytes equal the whole
message's deterministic serialization."""

from __future__ import annotations

import random

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.conversions import VARIANT_TO_PB, table_to_pb
from studengine.api.views import build_view, build_views, event_to_pb
from studengine.cards import format_card
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import CardDealt, Event, Variant
from studengine.rules.visibility import revealed_seats, tabled_after
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.codec import FORMAT_VERSION, HandRecord, decode, encode, encode_hand
from support.stud_helpers import table_for


def reference_view(
    hand: Hand, player_ids: list[str], events: list[Event], viewer: int | None
) -> pb.View:
    """The view built the plain way: every field set through the message API."""
    face_up = hand.spec.face_up
    revealed = revealed_seats(hand)
    view = pb.View(
        variant=VARIANT_TO_PB[hand.variant],
        table=table_to_pb(hand.table),
        button=hand.button,
        street=hand.street,
        street_name=hand.street_name,
        pot=hand.pot,
    )
    if viewer is not None:
        view.viewer_seat = viewer
    for seat in range(hand.players):
        texts = [format_card(c) for c in hand.cards[seat]]
        ups = [t for t, up in zip(texts, face_up, strict=False) if up]
        downs = [t for t, up in zip(texts, face_up, strict=False) if not up]
        visible = seat in revealed or seat == viewer
        view.seats.add(
            seat=seat,
            player_id=player_ids[seat],
            stack=hand.stacks[seat],
            committed=hand.committed[seat],
            round_bet=hand.round.bets[seat],
            folded=hand.folded[seat],
            all_in=not hand.folded[seat] and hand.stacks[seat] == 0,
            cards=[t if up or visible else "" for t, up in zip(texts, face_up, strict=False)],
            up_cards=ups,
            down_cards=downs if visible else [],
            down_card_count=len(downs),
            revealed=seat in revealed,
            tabled=seat in hand.tabled,
        )
    if hand.community is not None:
        view.community_card = format_card(hand.community)
    if hand.to_act is not None:
        view.to_act = hand.to_act
    cut, tabled = tabled_after(hand, events)  # R-ALL-IN-FACE-UP
    for index, event in enumerate(events):
        msg = view.events.add()
        msg.CopyFrom(event_to_pb(event, viewer, tabled if index >= cut else frozenset()))
    return view


def played_hands(seed: int, count: int) -> list[tuple[Hand, list[Event]]]:
    """Hands at random points of random play (some over), each with its last events."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        variant = rng.choice(list(Variant))
        players = rng.randint(2, 10 if variant is Variant.FIVE_CARD_STUD else 8)
        stacks = [rng.choice([rng.randint(1, 40), 1000]) for _ in range(players)]
        deck = list(range(52))
        rng.shuffle(deck)
        table = table_for(
            variant,
            rake_percent_bp=rng.choice([0, 500]),
            rake_cap=rng.choice([0, 7]),
            all_in_face_up=rng.random() < 0.5,  # R-ALL-IN-FACE-UP
        )
        hand, events = start_hand(variant, table, stacks, 0, deck)
        for _ in range(rng.randint(0, 60)):
            if hand.over:
                break
            assert hand.to_act is not None
            action = rng.choice(hand.legal_actions())
            events = hand.act(hand.to_act, action.type, action.to)
        out.append((hand, events))
    return out


def test_views_equal_the_plain_message_built_ones() -> None:
    showdowns = private = tabled = 0
    for hand, events in played_hands(5, 250):
        ids = [f"player-{i}" for i in range(hand.players)]
        spectator, seats = build_views(hand, ids, events)
        assert spectator == reference_view(hand, ids, events, None)
        assert build_view(hand, ids, events, None) == spectator
        assert len(seats) == hand.players
        for seat, view in enumerate(seats):
            assert view == reference_view(hand, ids, events, seat)
            assert build_view(hand, ids, events, seat) == view
        showdowns += bool(revealed_seats(hand))
        private += any(isinstance(e, CardDealt) and not e.face_up for e in events)
        tabled += bool(hand.tabled)
    assert showdowns > 10 and private > 10  # revealed seats and hidden deals were covered
    assert tabled > 10  # and hands tabled, with the deals after it (R-ALL-IN-FACE-UP)


def test_state_bytes_equal_the_whole_message_serialized() -> None:
    rng = random.Random(9)
    for hand, _ in played_hands(6, 250):
        record = HandRecord(
            hand_id=rng.randbytes(16),
            seq=rng.randrange(10**6),
            test_deck=rng.random() < 0.5,
            salt=rng.randbytes(32),
            player_ids=[f"p{i}" for i in range(hand.players)],
            hand=hand,
        )
        whole = state_pb2.HandState(
            format_version=FORMAT_VERSION,
            hand_id=record.hand_id,
            seq=record.seq,
            test_deck=record.test_deck,
            salt=record.salt,
            player_ids=record.player_ids,
            hand=encode_hand(hand),
        )
        data = encode(record)
        assert data == whole.SerializeToString(deterministic=True)
        assert decode(data) == record
