"""The visibility policy (R-MUCK, R-ALL-IN-FACE-UP) on its own, and the view encoder
showing exactly what it decides: own down cards, up cards, and the down cards of hands a
showdown revealed or that were tabled; never a mucked hand's."""

from __future__ import annotations

import dataclasses
import random

from studengine.api.views import build_view
from studengine.cards import format_card
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import CardDealt, HandsTabled, Variant
from studengine.rules.visibility import (
    revealed_seats,
    sees_dealt_card,
    tabled_after,
    visible_cards,
)
from support.stud_helpers import TABLE_7S, new_hand, play, table_for


def finished_hands(seed: int, count: int) -> list[Hand]:
    """Hands played to the end by passive random play (many reach a showdown)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        variant = rng.choice(list(Variant))
        players = rng.randint(2, 6)
        deck = list(range(52))
        rng.shuffle(deck)
        hand, _ = start_hand(variant, table_for(variant), [1000] * players, 0, deck)
        while not hand.over:
            assert hand.to_act is not None
            legal = hand.legal_actions()
            passive = [a for a in legal if a.type.value in ("CHECK", "CALL", "BRING_IN")]
            action = rng.choice(passive or legal)
            hand.act(hand.to_act, action.type, action.to)
        out.append(hand)
    return out


def test_r_muck_policy_own_up_revealed_but_never_mucked() -> None:
    mucked_seen = 0
    for hand in finished_hands(3, 120):
        revealed = revealed_seats(hand)
        assert hand.result is not None
        assert revealed == {s.seat for s in hand.result.shown}
        face_up = hand.spec.face_up
        for viewer in [None, *range(hand.players)]:
            sight = visible_cards(hand, viewer)
            for seat, cards in enumerate(hand.cards):
                if seat == viewer or seat in revealed:
                    assert sight[seat] == cards
                    continue
                mucked_seen += not hand.folded[seat]
                for card, up, seen in zip(cards, face_up, sight[seat], strict=False):
                    assert seen == (card if up else None)
    assert mucked_seen > 20  # showdowns with a mucked hand were covered


def test_dealt_cards_are_seen_face_up_or_by_their_owner() -> None:
    down = CardDealt(seat=2, card=7, face_up=False, street=3)
    up = CardDealt(seat=2, card=7, face_up=True, street=3)
    community = CardDealt(seat=None, card=7, face_up=True, street=7)
    assert sees_dealt_card(down, 2) and not sees_dealt_card(down, 1)
    assert not sees_dealt_card(down, None)
    assert sees_dealt_card(up, None) and sees_dealt_card(up, 0) and sees_dealt_card(community, 1)


def test_the_encoder_shows_exactly_what_the_policy_decides() -> None:
    for hand in finished_hands(4, 60):
        ids = [f"p{i}" for i in range(hand.players)]
        for viewer in [None, *range(hand.players)]:
            view = build_view(hand, ids, (), viewer)
            sight = visible_cards(hand, viewer)
            for seat, info in enumerate(view.seats):
                want = ["" if c is None else format_card(c) for c in sight[seat]]
                assert list(info.cards) == want
                downs = [c for c, up in zip(sight[seat], hand.spec.face_up, strict=False) if not up]
                shown = [format_card(c) for c in downs if c is not None]
                assert list(info.down_cards) == (shown if None not in downs else [])


def test_a_deal_to_a_tabled_hand_is_seen_by_every_viewer_r_all_in_face_up() -> None:
    """R-ALL-IN-FACE-UP: seat 0 calls all-in on third street; in that call's events the
    deals after the HandsTabled (``tabled_after``) are seen by every viewer, down cards
    included; with the option off the same deals stay their owners'."""
    moves = ["0 COMPLETE", "1 RAISE 40", "0 CALL"]
    hands = ["Ah Kh 2c 3d 4s 7c Jd", "9s 9h 5d 9d 5s Qc 8h"]
    for option in (True, False):
        table = dataclasses.replace(TABLE_7S, all_in_face_up=option)
        hand, _ = new_hand(Variant.SEVEN_CARD_STUD, hands, stacks=[30, 1000], table=table)
        events = play(hand, moves)
        cut, tabled = tabled_after(hand, events)
        at = next((i for i, e in enumerate(events) if isinstance(e, HandsTabled)), None)
        if option:
            assert at is not None and (cut, tabled) == (at + 1, {0, 1})
        else:
            assert at is None and (cut, tabled) == (len(events), set())
        downs = [
            (deal, tabled if index >= cut else frozenset())
            for index, deal in enumerate(events)
            if isinstance(deal, CardDealt) and not deal.face_up
        ]
        assert len(downs) == 2  # seventh street's down cards
        for deal, seen_by_all in downs:
            for viewer in (None, 0, 1):
                visible = sees_dealt_card(deal, viewer, seen_by_all)
                assert visible == (option or viewer == deal.seat)
