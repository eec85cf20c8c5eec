"""The Act path assembles views and the sealed state from serialized parts (for speed).
These tests hold that output to plain protobuf-built references: every view (the
spectator's and each seat's, at every step of random hands of the four games, the
all_in_face_up option on and off) is byte for byte the serialization of one built from
scratch, field by field, with the message API, and shows no card the viewer may not see;
the state's bytes equal the whole message's deterministic serialization."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.conversions import (
    VARIANT_TO_PB,
    cards_text,
    result_bytes,
    result_to_pb,
    reveal_bytes,
    table_to_pb,
)
from studengine.api.seat_cards import HeldCards, card_pattern, held_key
from studengine.api.views import (
    build_view,
    serialized_views,
)
from studengine.cards import format_card
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import (
    ActionTaken,
    ActionType,
    AntePosted,
    CardDealt,
    Event,
    HandEnded,
    HandMucked,
    HandResult,
    HandShown,
    HandsTabled,
    Pot,
    PotAwarded,
    RakeTaken,
    ShownHand,
    StreetStarted,
    UncalledReturned,
    Variant,
)
from studengine.rules.variants import VARIANTS
from studengine.rules.visibility import revealed_seats, tabled_after
from studengine.state.codec import HandRecord, decode
from studengine.state.encoding import encode
from support.state_reference import reference_state
from support.stud_helpers import random_table, table_for
from support.view_reference import build_views, event_bytes, event_to_pb


def reference_view(
    hand: Hand, player_ids: list[str], events: list[Event], viewer: int | None
) -> pb.View:
    """The view built the plain way, from scratch for each viewer: every field set
    through the message API."""
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


def every_step(rng: random.Random, variant: Variant) -> Iterator[tuple[Hand, list[Event]]]:
    """One random hand of ``variant`` after its start and after every action (now and
    then the clock's choice), with that step's events: short stacks (all-ins, side pots)
    or deep ones, all_in_face_up (R-ALL-IN-FACE-UP) half the time."""
    spec = VARIANTS[variant]
    players = rng.randint(spec.min_players, spec.max_players)
    table = random_table(rng, variant, face_up=0.5)
    stacks = [rng.choice([rng.randint(1, 60), 1000, 20_000]) for _ in range(players)]
    deck = list(range(52))
    rng.shuffle(deck)
    hand, events = start_hand(variant, table, stacks, rng.randrange(players), deck)
    yield hand, events
    while not hand.over:
        seat = hand.to_act
        assert seat is not None
        if rng.random() < 0.05:
            events = hand.timeout(seat)
        else:
            action = rng.choice(hand.legal_actions())
            events = hand.act(seat, action.type, action.to)
        yield hand, events


def hidden_from(hand: Hand, viewer: int | None) -> set[str]:
    """The down cards ``viewer`` may not see: every other seat's, unless its hand was
    tabled or shown at the showdown (R-MUCK, R-ALL-IN-FACE-UP)."""
    shown = set(hand.tabled)
    if hand.result is not None:
        shown |= {s.seat for s in hand.result.shown}
    return {
        format_card(card)
        for seat in range(hand.players)
        if seat != viewer and seat not in shown
        for card in hand.down_cards(seat)
    }


def cards_in(view: pb.View) -> set[str]:
    """Every card a view shows, in its seats and in its events."""
    seen = {c for info in view.seats for c in [*info.cards, *info.up_cards, *info.down_cards]}
    for event in view.events:
        seen.add(event.card_dealt.card)
        seen.update(c for h in event.hands_tabled.hands for c in h.cards)
        seen.update(event.hand_shown.cards)
    return seen - {""}


@pytest.mark.parametrize("variant", list(Variant), ids=lambda v: v.value)
def test_views_are_the_from_scratch_views_byte_for_byte(variant: Variant) -> None:
    rng = random.Random(f"views {variant.value}")
    steps = private = tabled = revealed = 0
    for _ in range(60):
        for hand, events in every_step(rng, variant):
            ids = [f"player-{seat}" if rng.random() < 0.9 else "" for seat in range(hand.players)]
            references = [reference_view(hand, ids, events, None)]
            references += [reference_view(hand, ids, events, s) for s in range(hand.players)]
            expected = pb.HandUpdate(spectator=references[0], seats=references[1:])
            assert serialized_views(hand, ids, events) == expected.SerializeToString()
            spectator, seats = build_views(hand, ids, events)
            viewers = [None, *range(hand.players)]
            for viewer, view, reference in zip(
                viewers, [spectator, *seats], references, strict=True
            ):
                assert view.SerializeToString() == reference.SerializeToString()
                assert not cards_in(view) & hidden_from(hand, viewer)  # none leaks (R-MUCK)
            steps += 1
            private += sum(isinstance(e, CardDealt) and not e.face_up for e in events)
            tabled += any(isinstance(e, HandsTabled) for e in events)
            revealed += any(isinstance(e, HandShown) for e in events)
    # deals hidden from the spectator, hands tabled, hands shown at the showdown: covered
    assert steps > 600 and private > 150 and tabled > 5 and revealed > 15


BIG = 2**40 + 3  # an amount of six varint bytes
# events the random hands rarely or never make: seat 0 and street 0 (present or absent
# by presence), big and zero amounts, empty strings, the community card, the clock
EDGE_EVENTS: list[Event] = [
    AntePosted(0, 0, False),
    AntePosted(7, BIG, True),
    CardDealt(0, 0, False, 0),
    CardDealt(0, 51, True, 0),
    CardDealt(None, 12, False, 4),  # the community card (R-COMMUNITY-CARD)
    StreetStarted(0, "", False, None),
    StreetStarted(4, "Seventh Street", True, 0),
    *(ActionTaken(0, kind, 0, 0, False) for kind in ActionType),
    ActionTaken(3, ActionType.RAISE, BIG, BIG - 1, True, True),
    UncalledReturned(0, 0),
    UncalledReturned(2, BIG),
    HandShown(0, (), (), 0, ""),
    HandShown(1, (0, 1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2), BIG, "x" * 200, 9, (0, 1), "low"),
    HandsTabled((), ()),
    HandsTabled((0, 3), ((), (51, 0, 7))),
    RakeTaken(0),
    RakeTaken(BIG),
    HandMucked(0),
    PotAwarded(0, 0, (), (), ""),
    PotAwarded(2, BIG, (0, 4), (BIG, 1), "a pair", (0,), (300,), "8-low", BIG),
    HandEnded(()),
    HandEnded((0, 1, 0x80, BIG)),
]


def test_each_event_is_its_message_byte_for_byte() -> None:
    """Every kind, as every viewer sees it (the spectator, the seat dealt to, another
    seat), before and after a tabling (R-ALL-IN-FACE-UP): hidden and shown deals."""
    events = list(EDGE_EVENTS)
    for _hand, step in played_hands(11, 200):
        events += step
    kinds: set[type] = set()
    hidden = shown = 0
    for event in events:
        for viewer in (None, 0, 1, 3, 7):
            for tabled in (frozenset(), frozenset({0}), frozenset({1, 3})):
                expected = event_to_pb(event, viewer, tabled).SerializeToString()
                assert event_bytes(event, viewer, tabled) == expected, (event, viewer, tabled)
                if isinstance(event, CardDealt) and not event.face_up:
                    hidden += event_to_pb(event, viewer, tabled).card_dealt.hidden
                    shown += not event_to_pb(event, viewer, tabled).card_dealt.hidden
        kinds.add(type(event))
    assert len(kinds) == 11 and hidden > 100 and shown > 100


def test_held_cards_found_again_are_the_ones_made() -> None:
    """The views' cache of a seat's card fields (8 to 10): one number per pattern of up
    and down cards and hand, never one for two; what it gives, found or made, is the
    message's bytes (the down cards hidden, and shown); a full cache starts over."""
    rng = random.Random(13)
    owners: dict[int, tuple[tuple[bool, ...], tuple[int, ...]]] = {}
    held = HeldCards(limit=40)
    for _ in range(4000):
        spec = VARIANTS[rng.choice(list(Variant))]
        cards = rng.sample(range(52), rng.randint(0, len(spec.face_up)))
        owner = (spec.face_up, tuple(cards))
        pattern = card_pattern(spec)
        assert owners.setdefault(held_key(pattern, cards), owner) == owner
        texts = [format_card(c) for c in cards]
        up = spec.face_up
        ups = [t for t, is_up in zip(texts, up, strict=False) if is_up]
        downs = [t for t, is_up in zip(texts, up, strict=False) if not is_up]
        hidden = [t if is_up else "" for t, is_up in zip(texts, up, strict=False)]
        expected = (
            pb.SeatInfo(cards=hidden, up_cards=ups).SerializeToString(),
            pb.SeatInfo(cards=texts, up_cards=ups, down_cards=downs).SerializeToString(),
        )
        assert held.get(spec, pattern, cards) == expected
        assert held.get(spec, pattern, cards) == expected  # found again
        assert len(held.cache) <= 40
    assert len(owners) > 2500


def test_one_view_is_the_same_as_in_all_views() -> None:
    for hand, events in played_hands(5, 120):
        ids = [f"player-{i}" for i in range(hand.players)]
        spectator, seats = build_views(hand, ids, events)
        assert build_view(hand, ids, events, None) == spectator
        for seat, view in enumerate(seats):
            assert build_view(hand, ids, events, seat) == view


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
        data = encode(record)
        assert data == reference_state(record).SerializeToString(deterministic=True)
        assert decode(data) == record


def test_results_and_reveals_are_their_messages_byte_for_byte() -> None:
    """Every finished hand of many random hands of the four games (short stacks: side
    pots and uncalled chips; split pots, Hi-Lo's halves, the rake, tabled hands) and
    results the random hands never make (the largest amounts, all but no field): the
    hand-written result is the message's bytes, and so is the reveal."""
    rng = random.Random("results")
    results: list[HandResult] = [
        HandResult((), (), ()),
        HandResult(
            (Pot(BIG, (0, 1, 2), (0, 2), (BIG, 1), (1,), (0x80,), BIG), Pot(0, (), (), ())),
            (0, BIG, 1),
            (
                ShownHand(0, (), (), 0, ""),
                ShownHand(2, tuple(range(7)), (6, 5, 4, 3, 2), BIG, "x" * 200, 9, (0, 1), "lo"),
            ),
            ((0, 0), (2, BIG)),
            BIG,
        ),
    ]
    finished = [hand for variant in Variant for hand in tied_hands(rng, variant, 10)]
    for variant in Variant:
        for _ in range(80):
            finished += [hand for hand, _events in every_step(rng, variant) if hand.over]
    side = split = low = raked = tabled = 0
    for hand in finished:
        assert hand.result is not None
        results.append(hand.result)
        side += len(hand.result.pots) > 1
        split += any(len(p.winners) > 1 for p in hand.result.pots)
        low += any(p.low_winners for p in hand.result.pots)
        raked += hand.result.rake > 0
        tabled += bool(hand.tabled)
        salt = rng.randbytes(32)
        expected = pb.Reveal(salt=salt.hex(), deck=cards_text(hand.deck))
        assert reveal_bytes(salt, hand.deck) == expected.SerializeToString()
    for result in results:
        assert result_bytes(result) == result_to_pb(result).SerializeToString(), result
    assert side > 20 and split > 30 and low > 20 and raked > 50 and tabled > 5


def tied_hands(rng: random.Random, variant: Variant, count: int) -> list[Hand]:
    """Heads-up hands of ``variant`` checked and called down to a split pot: the deck
    deals both seats the same ranks, in suits that make no flush (R-SPLIT)."""
    text = {format_card(card): card for card in range(52)}
    deck = []
    for suits in ("hs", "cd"):
        for index, rank in enumerate("A2468TQ3579JK"):
            first, second = suits if index % 2 else suits[::-1]
            deck += [text[rank + first], text[rank + second]]
    hands = []
    for _ in range(count):
        hand, _events = start_hand(variant, random_table(rng, variant), [1000, 1000], 0, deck)
        while hand.to_act is not None:
            passive = (ActionType.CHECK, ActionType.CALL, ActionType.BRING_IN)
            action = next(a for a in hand.legal_actions() if a.type in passive)
            hand.act(hand.to_act, action.type, action.to)
        hands.append(hand)
    return hands
