"""R-ALL-IN-FACE-UP over random hands of the four games, short stacks (all-ins are
common): each hand played twice on the same deck with the same decisions, the option
on and off. Checked at every call: the chips are identical; until the hands are
tabled every view (the spectator's and each seat's, with its events) is exactly the
view with the option off, so none shows a hidden card early; from the tabling on every
view shows every card of every tabled hand (in its seat and in the deals after it); and
the players' history shows the cards the final views show, tabled hands with an ``sm``
line where they were tabled, and reads back to the same stacks."""

from __future__ import annotations

import dataclasses
import random
import tomllib

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.cards import format_card
from studengine.history.phh import Audience, dealing_order, render
from studengine.history.reader import parse, replay
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import CardDealt, Event, HandsTabled, Variant
from studengine.rules.variants import VARIANTS
from support.history_helpers import meta_for
from support.stud_helpers import random_table
from support.view_reference import build_views

HANDS = 250  # per game


def views_of(hand: Hand, events: list[Event]) -> list[pb.View]:
    """The spectator's view, then each seat's, of one call's ``events``."""
    spectator, seats = build_views(hand, [f"p{s}" for s in range(hand.players)], events)
    return [spectator, *seats]


def without_table(view: pb.View) -> bytes:
    """A view's bytes but for its table (which says whether the option is on)."""
    copy = pb.View()
    copy.CopyFrom(view)
    copy.ClearField("table")
    return copy.SerializeToString(deterministic=True)


def check_tabled_view(view: pb.View, hand: Hand, events: list[Event], at: int) -> None:
    """Every card of every tabled hand is shown: in its seat, in the HandsTabled event,
    and in every deal to it after the tabling (``at``: the event's index)."""
    for seat in hand.tabled:
        info = view.seats[seat]
        assert list(info.cards) == [format_card(c) for c in hand.cards[seat]]
        assert info.tabled and info.revealed
    tabled = view.events[at].hands_tabled
    assert [h.seat for h in tabled.hands] == hand.tabled
    for shown, event in zip(view.events[at + 1 :], events[at + 1 :], strict=True):
        if isinstance(event, CardDealt) and event.seat in hand.tabled:
            assert not shown.card_dealt.hidden
            assert shown.card_dealt.card == format_card(event.card)


def history_agrees(hand: Hand, final: pb.View, index: int, tabling: HandsTabled | None) -> None:
    """The players' history shows exactly the cards the spectator's final view shows
    ('??' where it shows ''); each tabled hand is shown by ``sm`` lines naming the cards
    it had been dealt by then, the first where it was tabled (before the deals after it),
    then after each later down card; and the history plays back to the hand's stacks."""
    text = render(hand, meta_for(hand, index), Audience.PLAYERS)
    order = dealing_order(hand)
    dealt: dict[int, list[str]] = {seat: [] for seat in order}
    shows: dict[int, list[tuple[list[str], int]]] = {seat: [] for seat in order}
    for line in tomllib.loads(text)["actions"]:
        words = line.split("#")[0].split()
        if words[:2] == ["d", "dh"]:
            seat = order[int(words[2][1:]) - 1]
            dealt[seat] += [words[3][i : i + 2] for i in range(0, len(words[3]), 2)]
        elif words[1:2] == ["sm"] and len(words) == 3:
            seat = order[int(words[0][1:]) - 1]
            cards = [words[2][i : i + 2] for i in range(0, len(words[2]), 2)]
            shows[seat].append((cards, len(dealt[seat])))
    for seat, cards in dealt.items():
        assert cards == [c or "??" for c in final.seats[seat].cards], text
    if tabling is not None:
        for seat, at_tabling in zip(tabling.seats, tabling.cards, strict=True):
            assert shows[seat][0][1] == len(at_tabling), text
            for cards, dealt_by_then in shows[seat]:
                assert cards == [format_card(c) for c in hand.cards[seat][:dealt_by_then]], text
            downs = hand.spec.down_positions_of[len(hand.cards[seat])]
            assert shows[seat][-1][1] > downs[-1], text  # its last down card shown too
    assert replay(parse(text)).stacks_agree, text


@pytest.mark.parametrize("variant", list(Variant), ids=lambda v: v.value)
def test_tabled_hands_seen_by_all_from_then_on_and_chips_unchanged_r_all_in_face_up(
    variant: Variant,
) -> None:
    rng = random.Random(f"face up {variant.value}")
    tabled_hands = tabled_early = 0
    for index in range(HANDS):
        tabling: HandsTabled | None = None
        spec = VARIANTS[variant]
        players = rng.randint(spec.min_players, spec.max_players)
        off_table = random_table(rng, variant)
        on_table = dataclasses.replace(off_table, all_in_face_up=True)
        stacks = [rng.randint(1, 12 * off_table.small_bet) for _ in range(players)]
        deck = list(range(52))
        rng.shuffle(deck)
        button = rng.randrange(players)
        on, on_events = start_hand(variant, on_table, stacks, button, deck)
        off, off_events = start_hand(variant, off_table, stacks, button, deck)
        while True:
            assert (on.stacks, on.committed, on.to_act) == (off.stacks, off.committed, off.to_act)
            on_views, off_views = views_of(on, on_events), views_of(off, off_events)
            if not on.tabled:  # nothing more seen than with the option off
                assert list(map(without_table, on_views)) == list(map(without_table, off_views))
            else:
                at = next(i for i, e in enumerate(on_events) if isinstance(e, HandsTabled))
                tabled_hands += 1
                event = on_events[at]
                assert isinstance(event, HandsTabled)
                tabling = event
                tabled_early += any(len(c) < spec.cards_per_player for c in tabling.cards)
                for on_view, off_view in zip(on_views, off_views, strict=True):
                    assert list(on_view.events[:at]) == list(off_view.events[:at])
                    check_tabled_view(on_view, on, on_events, at)
            if on.over:
                break
            assert on.legal_actions() == off.legal_actions()
            choice = rng.choice(on.legal_actions())
            seat = on.to_act
            assert seat is not None
            on_events = on.act(seat, choice.type, choice.to)
            off_events = off.act(seat, choice.type, choice.to)
        assert on.result is not None and off.result is not None
        assert (on.stacks, on.result.pots, on.result.rake) == (
            off.stacks,
            off.result.pots,
            off.result.rake,
        )
        assert set(on.tabled) <= set(on.result.revealed)
        history_agrees(on, views_of(on, [])[0], index, tabling)
    assert tabled_hands > HANDS // 3 and tabled_early > HANDS // 4
