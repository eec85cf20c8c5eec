"""Who may see which card: the policy alone, pure functions of the hand and the viewer (a
seat, or None for a spectator), with no protobuf in sight. ``views`` encodes what these
say and decides nothing itself.

A face-up card is public, and so is the community card. A face-down card is seen by its
owner only, until a showdown reveals the owner's hand to everyone (R-MUCK: the first hand
shown and every hand that wins or ties a pot; R-HILO-MUCK: in Stud Hi-Lo any half of any
pot), or the hand is tabled (R-ALL-IN-FACE-UP: from then on all its cards, later ones
too, are public). A mucked hand is never revealed, to anyone.
"""

from __future__ import annotations

from collections.abc import Sequence

from studengine.rules.hand import Hand
from studengine.rules.types import CardDealt, Event, HandsTabled

NONE_TABLED: frozenset[int] = frozenset()


def revealed_seats(hand: Hand) -> frozenset[int]:
    """Seats whose hands everyone sees: tabled (R-ALL-IN-FACE-UP) or revealed by the
    showdown (R-MUCK)."""
    if hand.result is None:
        return frozenset(hand.tabled) if hand.tabled else NONE_TABLED
    return frozenset([*hand.tabled, *(s.seat for s in hand.result.shown)])


def sees_down_cards(revealed: frozenset[int], seat: int, viewer: int | None) -> bool:
    """Whether ``viewer`` sees ``seat``'s down cards: its own, or a hand tabled or
    revealed by the showdown (``revealed_seats``). A mucked hand stays hidden from every
    other viewer."""
    return seat in revealed or (viewer is not None and seat == viewer)


def sees_dealt_card(
    event: CardDealt, viewer: int | None, tabled: frozenset[int] = NONE_TABLED
) -> bool:
    """Whether ``viewer`` sees the card of a deal: face up, the community card, its own,
    or dealt to a hand already tabled (``tabled``: the seats ``tabled_after`` gives for a
    deal after the tabling, none before it)."""
    return event.face_up or event.seat is None or event.seat == viewer or event.seat in tabled


def tabled_after(hand: Hand, events: Sequence[Event]) -> tuple[int, frozenset[int]]:
    """Where ``events`` (the last step of ``hand``) tabled its hands (R-ALL-IN-FACE-UP):
    the index just after the ``HandsTabled``, from which every card dealt to those seats
    is public, and the seats; ``(len(events), no seats)`` when these events table none."""
    if hand.tabled:
        for index, event in enumerate(events):
            if isinstance(event, HandsTabled):
                return index + 1, frozenset(event.seats)
    return len(events), NONE_TABLED


def visible_cards(hand: Hand, viewer: int | None) -> list[list[int | None]]:
    """Every seat's cards in deal order as ``viewer`` sees them (None: face down, hidden)."""
    revealed = revealed_seats(hand)
    face_up = hand.spec.face_up
    return [
        list(cards)
        if sees_down_cards(revealed, seat, viewer)
        else [card if up else None for card, up in zip(cards, face_up, strict=False)]
        for seat, cards in enumerate(hand.cards)
    ]
