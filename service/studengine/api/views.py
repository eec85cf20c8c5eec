"""The views as bytes: the spectator view and each seat's view of a hand, with the events,
encoded as ``visibility`` (the policy, R-MUCK, R-ALL-IN-FACE-UP) decides; nothing here
decides what a viewer may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api._gen.stud.v1 import stud_engine_keys as keys
from studengine.api._gen.stud.v1.stud_engine_writers import (
    write_action_taken,
    write_ante_posted,
    write_hand_ended,
    write_hand_mucked,
    write_pot_awarded,
    write_rake_taken,
    write_street_started,
    write_uncalled_returned,
)
from studengine.api.conversions import (
    ACTION_CODES,
    VARIANT_TO_PB,
    card_fields,
    shown_fields,
    table_to_pb,
)
from studengine.api.seat_cards import HELD_CARDS, card_pattern
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
    Table,
    UncalledReturned,
    Variant,
    action_index,
)
from studengine.rules.variants import VARIANTS
from studengine.rules.visibility import (
    NONE_TABLED,
    revealed_seats,
    sees_dealt_card,
    sees_down_cards,
    tabled_after,
)
from studengine.state.bounded import GameFields
from studengine.state.wire import (
    BytesWriter,
    append_int_field,
    append_record,
    append_text,
    append_varint,
    close_record,
    int_field,
    open_record,
)


def build_view(
    hand: Hand, player_ids: list[str], events: Sequence[Event], viewer: int | None
) -> pb.View:
    """The table as ``viewer`` (a seat, or None for a spectator) sees it, with the events
    filtered for them."""
    public = PublicParts(hand, player_ids, events)
    return pb.View.FromString(public.view(viewer))


def serialized_views(hand: Hand, player_ids: list[str], events: Sequence[Event]) -> bytes:
    """HandUpdate's ``spectator`` and ``seats`` fields, serialized (``write_views``)."""
    out = BytesWriter()
    write_views(out, hand, player_ids, events)
    return out.getvalue()


def write_views(
    out: BytesWriter, hand: Hand, player_ids: list[str], events: Sequence[Event]
) -> None:
    """Write HandUpdate's ``spectator`` and ``seats`` fields: the public parts built once,
    each seat's view those with its own private parts swapped in."""
    public = PublicParts(hand, player_ids, events)
    public.write_view(out, None, keys.HAND_UPDATE_SPECTATOR)
    for seat in range(hand.players):
        public.write_view(out, seat, keys.HAND_UPDATE_SEATS)


# ---- views as serialized parts --------------------------------------------------------
# Every view is the spectator's but for the viewer's own seat and the events that dealt
# the viewer a down card. So the public parts are built and serialized once per call, and
# a seat's view is those parts with its own few swapped in. Each part is encoded in field
# order, so that a view's bytes are exactly protobuf's serialization of the same message
# (tests/unit/test_api_serialized_parts.py holds them to a message-built reference).


class PublicParts:
    """The serialized parts of a hand's views: what every viewer sees, built once, and
    each seat's private parts beside it (``visibility`` decides which is which)."""

    def __init__(self, hand: Hand, player_ids: list[str], events: Sequence[Event]) -> None:
        revealed, pattern = revealed_seats(hand), card_pattern(hand.spec)
        out, own = BytesWriter(), BytesWriter()  # the spectator's view; the seats' own records
        _write_head(out, hand)
        self.bounds = [len(out)]  # where each seat's record starts (the last: the seats end)
        self.own_bounds = [0]  # and its own record in ``own`` (none: the same as the public)
        for seat in range(hand.players):
            _write_seat(out, own, hand, seat, player_ids[seat], revealed, pattern)
            self.bounds.append(len(out))
            self.own_bounds.append(len(own))
        _write_tail(out, hand)
        cut, tabled = tabled_after(hand, events)  # R-ALL-IN-FACE-UP: deals after it public
        # seat: the deals it alone sees, each with where its record starts and ends
        self.private: dict[int, list[tuple[int, int, CardDealt]]] = {}
        for index, event in enumerate(events):
            seen = tabled if index >= cut else NONE_TABLED
            at = len(out)
            _write_event_record(out, event, None, seen)
            deal = event if isinstance(event, CardDealt) else None
            if deal is not None and deal.seat is not None and not sees_dealt_card(deal, None, seen):
                self.private.setdefault(deal.seat, []).append((at, len(out), deal))
        self.public, self.own = out.getvalue(), own.getvalue()

    def view(self, viewer: int | None) -> bytes:
        """The View of ``viewer`` (None: the spectator), serialized."""
        if viewer is None:
            return self.public
        out = BytesWriter()
        self.write_view(out, viewer, None)
        return out.getvalue()

    def write_view(self, out: BytesWriter, viewer: int | None, key: int | None) -> None:
        """Write the View of ``viewer`` (None: the spectator), as the length-delimited field
        ``key`` (None: the View alone): the spectator's with the viewer's own seat and the
        deals of its own down cards swapped in."""
        public = self.public
        if viewer is None:
            if key is not None:
                append_record(out, key, public)
            else:
                out.write(public)
            return
        start, end = self.bounds[viewer], self.bounds[viewer + 1]
        own_start, own_end = self.own_bounds[viewer], self.own_bounds[viewer + 1]
        own = self.own[own_start:own_end] if own_end > own_start else public[start:end]
        mine: list[tuple[int, int, bytes]] = []  # where each of its deals is, as it sees it
        deals = self.private.get(viewer)  # mostly none
        if deals is not None:
            mine = [(at, stop, _event_record(d, viewer, NONE_TABLED)) for at, stop, d in deals]
        seat = _VIEWER_SEAT[viewer]
        if key is not None:
            size = len(seat) + len(public) + len(own) - (end - start)
            for at, stop, swapped in mine:
                size += len(swapped) - (stop - at)
            append_varint(out, key)
            append_varint(out, size)
        out.write(seat)
        out.write(public[:start])
        out.write(own)
        for at, stop, swapped in mine:  # the public parts up to each deal, then its own
            out.write(public[end:at])
            out.write(swapped)
            end = stop
        out.write(public[end:])


def _write_seat(
    out: BytesWriter,
    own: BytesWriter,
    hand: Hand,
    seat: int,
    player_id: str,
    revealed: frozenset[int],
    pattern: int,
) -> None:
    """Write ``seat``'s SeatInfo record as every other viewer sees it to ``out``, and as
    the seat itself does to ``own`` unless it is the same (``visibility`` shows its down
    cards to every viewer, or to none)."""
    everyone = sees_down_cards(revealed, seat, None)
    front, back = _seat_front(hand, seat, player_id), _seat_back(hand, seat, everyone)
    hidden, shown = HELD_CARDS.get(hand.spec, pattern, hand.cards[seat])
    _write_seat_record(out, front, shown if everyone else hidden, back)
    if not everyone and sees_down_cards(revealed, seat, seat):
        _write_seat_record(own, front, shown, back)


def _write_seat_record(out: BytesWriter, front: bytes, held: bytes, back: bytes) -> None:
    """View's field 3: one SeatInfo record, its cards (fields 8 to 10) between the fields
    before and after them."""
    append_varint(out, keys.VIEW_SEATS)
    append_varint(out, len(front) + len(held) + len(back))
    out.write(front)
    out.write(held)
    out.write(back)


def _seat_front(hand: Hand, seat: int, player_id: str) -> bytes:
    """SeatInfo's fields 1 to 7: the seat, its player and chips, folded or all-in."""
    stack, folded = hand.stacks[seat], hand.folded[seat]
    out = BytesWriter()
    out.write(_SEAT_NUMBERS[seat])
    append_text(out, keys.SEAT_INFO_PLAYER_ID, player_id)
    append_int_field(out, keys.SEAT_INFO_STACK, stack)
    append_int_field(out, keys.SEAT_INFO_COMMITTED, hand.committed[seat])
    append_int_field(out, keys.SEAT_INFO_ROUND_BET, hand.round.bets[seat])
    if folded:
        out.write(_FOLDED)
    elif stack == 0:
        out.write(_ALL_IN)
    return out.getvalue()


def _seat_back(hand: Hand, seat: int, revealed: bool) -> bytes:
    """SeatInfo's fields 11 to 13: how many down cards, and whether every viewer sees
    them (``revealed``: R-MUCK, R-ALL-IN-FACE-UP), tabled or by the showdown."""
    downs = hand.spec.down_positions_of[len(hand.cards[seat])]
    if not revealed:
        return _DOWN_CARD_COUNTS[len(downs)]
    tabled = _TABLED if seat in hand.tabled else b""
    return _DOWN_CARD_COUNTS[len(downs)] + _REVEALED + tabled


def _write_head(out: BytesWriter, hand: Hand) -> None:
    """View's fields 2 to 7: the game, its table, the button, the street and the pot."""
    out.write(_GAME_FIELDS.get(hand.variant, hand.table))
    append_int_field(out, keys.VIEW_BUTTON, hand.button)
    append_int_field(out, keys.VIEW_STREET, hand.street)
    append_text(out, keys.VIEW_STREET_NAME, hand.street_name)
    append_int_field(out, keys.VIEW_POT, hand.pot)


def _write_tail(out: BytesWriter, hand: Hand) -> None:
    """View's fields 9 and 10 (after the seats): the community card and the seat to act,
    each present when set, even when 0."""
    if hand.community is not None:
        out.write(_COMMUNITY_CARDS[hand.community])
    if hand.to_act is not None:
        append_varint(out, keys.VIEW_TO_ACT)
        append_varint(out, hand.to_act)


def _event_record(event: Event, viewer: int | None, tabled: frozenset[int]) -> bytes:
    """View's field 8: one event as ``viewer`` sees it."""
    out = BytesWriter()
    _write_event_record(out, event, viewer, tabled)
    return out.getvalue()


def _write_event_record(
    out: BytesWriter, event: Event, viewer: int | None, tabled: frozenset[int]
) -> None:
    start = open_record(out, keys.VIEW_EVENTS)
    write_event(out, event, viewer, tabled)
    close_record(out, start)


# ---- the events as serialized parts ---------------------------------------------------
# Each is the event's message (``pb.Event``) serialized, written field by field in field
# order (tests/unit/test_api_serialized_parts.py holds every kind to the bytes of the
# message built as tests/support/view_reference.py builds it).


def write_event(
    out: BytesWriter, event: Event, viewer: int | None, tabled: frozenset[int] = NONE_TABLED
) -> None:
    """Write ``event`` as ``viewer`` (a seat, or None for a spectator) may see it,
    ``tabled`` the seats tabled before it (isinstance and attributes, not class patterns:
    mypyc compiles these to native reads)."""
    if isinstance(event, CardDealt):
        visible = sees_dealt_card(event, viewer, tabled)
        start = open_record(out, keys.EVENT_CARD_DEALT)
        if event.seat is not None:  # optional: present whenever set, even 0
            append_varint(out, keys.CARD_DEALT_SEAT)
            append_varint(out, event.seat)
        if visible:
            out.write(_DEALT_CARDS[event.card])
        append_int_field(out, keys.CARD_DEALT_FACE_UP, event.face_up)
        append_int_field(out, keys.CARD_DEALT_STREET, event.street)
        append_int_field(out, keys.CARD_DEALT_HIDDEN, not visible)
    elif isinstance(event, ActionTaken):
        start = open_record(out, keys.EVENT_ACTION_TAKEN)
        kind = ACTION_CODES[action_index(event.type)]
        seat, to, amount, all_in = event.seat, event.to, event.amount, event.all_in
        write_action_taken(out, seat, kind, to, amount, all_in, event.timeout)
    elif isinstance(event, StreetStarted):
        start = open_record(out, keys.EVENT_STREET_STARTED)
        street, name, betting = event.street, event.name, event.betting
        write_street_started(out, street, name, betting, event.first_to_act)
    elif isinstance(event, AntePosted):
        start = open_record(out, keys.EVENT_ANTE_POSTED)
        write_ante_posted(out, event.seat, event.amount, event.all_in)
    else:
        start = _write_end_event(out, event)
    close_record(out, start)


def _write_end_event(out: BytesWriter, event: Event) -> int:
    """Write an event of a hand's end (the same for every viewer) but its length: where
    its contents start, for ``close_record``."""
    match event:
        case UncalledReturned(seat, amount):
            start = open_record(out, keys.EVENT_UNCALLED_RETURNED)
            write_uncalled_returned(out, seat, amount)
        case HandShown():
            start = open_record(out, keys.EVENT_HAND_SHOWN)
            shown_fields(out, event)
        case HandsTabled(seats, cards):
            start = open_record(out, keys.EVENT_HANDS_TABLED)
            for seat, held in zip(seats, cards, strict=True):
                hand_start = open_record(out, keys.HANDS_TABLED_HANDS)
                append_int_field(out, keys.TABLED_HAND_SEAT, seat)
                for card in held:
                    out.write(_TABLED_CARDS[card])
                close_record(out, hand_start)
        case RakeTaken(amount):
            start = open_record(out, keys.EVENT_RAKE_TAKEN)
            write_rake_taken(out, amount)
        case HandMucked(seat):
            start = open_record(out, keys.EVENT_HAND_MUCKED)
            write_hand_mucked(out, seat)
        case PotAwarded():
            start = open_record(out, keys.EVENT_POT_AWARDED)
            winners, shares = list(event.winners), list(event.shares)
            low_winners, low_shares = list(event.low_winners), list(event.low_shares)
            pot, amount, rake = event.pot, event.amount, event.rake
            description, low = event.description, event.low_description
            write_pot_awarded(
                out, pot, amount, winners, shares, description, low_winners, low_shares, low, rake
            )
        case HandEnded(stacks):
            start = open_record(out, keys.EVENT_HAND_ENDED)
            write_hand_ended(out, list(stacks))
        case _:
            raise TypeError(f"unknown event {event!r}")
    return start


# whole fields made once (the keys: ``keys``, generated): each seat number, each count of
# down cards, the flags set (true), each card, each action's type
_MOST_SEATS: Final = max(spec.max_players for spec in VARIANTS.values())
_MOST_CARDS: Final = max(len(spec.face_up) for spec in VARIANTS.values())
_SEAT_NUMBERS: Final = tuple(int_field(keys.SEAT_INFO_SEAT, n) for n in range(_MOST_SEATS))
_DOWN_CARD_COUNTS: Final = tuple(
    int_field(keys.SEAT_INFO_DOWN_CARD_COUNT, n) for n in range(_MOST_CARDS + 1)
)
_FOLDED: Final = int_field(keys.SEAT_INFO_FOLDED, True)
_ALL_IN: Final = int_field(keys.SEAT_INFO_ALL_IN, True)
_REVEALED: Final = int_field(keys.SEAT_INFO_REVEALED, True)
_TABLED: Final = int_field(keys.SEAT_INFO_TABLED, True)
_COMMUNITY_CARDS: Final = card_fields(keys.VIEW_COMMUNITY_CARD)
_DEALT_CARDS: Final = card_fields(keys.CARD_DEALT_CARD)
_TABLED_CARDS: Final = card_fields(keys.TABLED_HAND_CARDS)
# View.viewer_seat for each seat
_VIEWER_SEAT: Final[tuple[bytes, ...]] = tuple(
    pb.View(viewer_seat=s).SerializeToString() for s in range(_MOST_SEATS)
)


def _serialized_game(variant: Variant, table: Table) -> bytes:
    """View's variant and table, serialized."""
    return pb.View(variant=VARIANT_TO_PB[variant], table=table_to_pb(table)).SerializeToString()


_GAME_FIELDS: Final = GameFields(_serialized_game)
