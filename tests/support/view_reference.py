"""The views built as messages, the reference the serialized views are held to: each
event as ``pb.Event`` built field by field (``event_to_pb``), and the views parsed back
from ``views.serialized_views``. Tests only: the service writes the bytes
(``studengine.api.views``) and never builds these messages."""

from __future__ import annotations

from collections.abc import Sequence

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.conversions import ACTION_TO_PB, CARD_TEXT, cards_text
from studengine.api.views import serialized_views, write_event
from studengine.rules.hand import Hand
from studengine.rules.types import (
    ActionTaken,
    AntePosted,
    CardDealt,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandsTabled,
    PotAwarded,
    RakeTaken,
    StreetStarted,
    UncalledReturned,
)
from studengine.rules.visibility import NONE_TABLED, sees_dealt_card
from studengine.state.wire import BytesWriter


def event_to_pb(event: Event, viewer: int | None, tabled: frozenset[int] = NONE_TABLED) -> pb.Event:
    """One event as ``viewer`` (a seat, or None for a spectator) may see it, ``tabled``
    the seats tabled before it (``visibility.tabled_after``)."""
    match event:
        case AntePosted(seat, amount, all_in):
            return pb.Event(ante_posted=pb.AntePosted(seat=seat, amount=amount, all_in=all_in))
        case CardDealt(seat, card, face_up, street):
            visible = sees_dealt_card(event, viewer, tabled)
            dealt = pb.CardDealt(
                card=CARD_TEXT[card] if visible else "",
                face_up=face_up,
                street=street,
                hidden=not visible,
            )
            if seat is not None:
                dealt.seat = seat
            return pb.Event(card_dealt=dealt)
        case StreetStarted(street, name, betting, first):
            started = pb.StreetStarted(street=street, name=name, betting=betting)
            if first is not None:
                started.first_to_act = first
            return pb.Event(street_started=started)
        case ActionTaken(seat, kind, to, amount, all_in, timeout):
            return pb.Event(
                action_taken=pb.ActionTaken(
                    seat=seat,
                    type=ACTION_TO_PB[kind],
                    to=to,
                    amount=amount,
                    all_in=all_in,
                    timeout=timeout,
                )
            )
    return _end_event_to_pb(event)


def _end_event_to_pb(event: Event) -> pb.Event:
    """One event of a hand's end (the same for every viewer: its cards are shown)."""
    match event:
        case UncalledReturned(seat, amount):
            return pb.Event(uncalled_returned=pb.UncalledReturned(seat=seat, amount=amount))
        case HandShown(seat, cards, best_five, rank, description, low, low_five, low_words):
            return pb.Event(
                hand_shown=pb.HandShown(
                    seat=seat,
                    cards=cards_text(cards),
                    best_five=cards_text(best_five),
                    rank=rank,
                    description=description,
                    low=low,
                    low_best_five=cards_text(low_five),
                    low_description=low_words,
                )
            )
        case HandsTabled(seats, cards):
            held = zip(seats, map(cards_text, cards), strict=True)
            hands = [pb.TabledHand(seat=seat, cards=shown) for seat, shown in held]
            return pb.Event(hands_tabled=pb.HandsTabled(hands=hands))
        case RakeTaken(amount):
            return pb.Event(rake_taken=pb.RakeTaken(amount=amount))
        case HandMucked(seat):
            return pb.Event(hand_mucked=pb.HandMucked(seat=seat))
        case PotAwarded(
            index, amount, winners, shares, description, low_winners, low_shares, low_words, rake
        ):
            return pb.Event(
                pot_awarded=pb.PotAwarded(
                    pot=index,
                    amount=amount,
                    winners=winners,
                    shares=shares,
                    description=description,
                    low_winners=low_winners,
                    low_shares=low_shares,
                    low_description=low_words,
                    rake=rake,
                )
            )
        case HandEnded(stacks):
            return pb.Event(hand_ended=pb.HandEnded(stacks=stacks))
    raise TypeError(f"unknown event {event!r}")


def build_views(
    hand: Hand, player_ids: list[str], events: Sequence[Event]
) -> tuple[pb.View, list[pb.View]]:
    """The spectator view and every seat's view (each seat's is the spectator's plus that
    seat's own down cards, in its seat and in its events)."""
    update = pb.HandUpdate()
    update.MergeFromString(serialized_views(hand, player_ids, events))
    return update.spectator, list(update.seats)


def event_bytes(event: Event, viewer: int | None, tabled: frozenset[int] = NONE_TABLED) -> bytes:
    """``event_to_pb(event, viewer, tabled).SerializeToString()``, without the message."""
    out = BytesWriter()
    write_event(out, event, viewer, tabled)
    return out.getvalue()
