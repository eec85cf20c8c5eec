"""The views as bytes: the spectator view and each seat's view of a hand, with the events,
encoded as ``visibility`` (the policy, R-MUCK, R-ALL-IN-FACE-UP) decides; nothing here
decides what a viewer may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api.conversions import (
    ACTION_TO_PB,
    VARIANT_TO_PB,
    card_fields,
    shown_fields,
    table_to_pb,
    uncalled_fields,
)
from studengine.api.seat_cards import HELD_CARDS, card_pattern
from studengine.rules.hand import Hand
from studengine.rules.types import (
    ACTION_TYPES,
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
from studengine.state.wire import (
    BytesWriter,
    GameFields,
    append_int_field,
    append_packed,
    append_record,
    append_text,
    append_varint,
    close_record,
    field_key,
    int_field,
    open_record,
    varint,
    varint_key,
)


def build_view(
    hand: Hand, player_ids: list[str], events: Sequence[Event], viewer: int | None
) -> pb.View:
    """The table as ``viewer`` (a seat, or None for a spectator) sees it, with the events
    filtered for them."""
    public = PublicParts(hand, player_ids, events)
    return pb.View.FromString(public.view(viewer))


def fill_views(
    update: pb.HandUpdate, hand: Hand, player_ids: list[str], events: Sequence[Event]
) -> None:
    """Set ``update.spectator`` and ``update.seats`` (one view per seat, in seat order)."""
    update.MergeFromString(serialized_views(hand, player_ids, events))


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
    public.write_view(out, None, _SPECTATOR_KEY)
    for seat in range(hand.players):
        public.write_view(out, seat, _SEAT_VIEWS_KEY)


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
    append_varint(out, _SEATS_KEY)
    append_varint(out, len(front) + len(held) + len(back))
    out.write(front)
    out.write(held)
    out.write(back)


def _seat_front(hand: Hand, seat: int, player_id: str) -> bytes:
    """SeatInfo's fields 1 to 7: the seat, its player and chips, folded or all-in."""
    stack, folded = hand.stacks[seat], hand.folded[seat]
    out = BytesWriter()
    out.write(_SEAT_NUMBERS[seat])
    append_text(out, _PLAYER_ID, player_id)
    append_int_field(out, _STACK, stack)
    append_int_field(out, _COMMITTED, hand.committed[seat])
    append_int_field(out, _ROUND_BET, hand.round.bets[seat])
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
    append_int_field(out, _BUTTON, hand.button)
    append_int_field(out, _STREET, hand.street)
    append_text(out, _STREET_NAME, hand.street_name)
    append_int_field(out, _POT, hand.pot)


def _write_tail(out: BytesWriter, hand: Hand) -> None:
    """View's fields 9 and 10 (after the seats): the community card and the seat to act,
    each present when set, even when 0."""
    if hand.community is not None:
        out.write(_COMMUNITY_CARDS[hand.community])
    if hand.to_act is not None:
        append_varint(out, _TO_ACT)
        append_varint(out, hand.to_act)


def _event_record(event: Event, viewer: int | None, tabled: frozenset[int]) -> bytes:
    """View's field 8: one event as ``viewer`` sees it."""
    out = BytesWriter()
    _write_event_record(out, event, viewer, tabled)
    return out.getvalue()


def _write_event_record(
    out: BytesWriter, event: Event, viewer: int | None, tabled: frozenset[int]
) -> None:
    start = open_record(out, _EVENTS_KEY)
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
        start = open_record(out, _CARD_DEALT)
        _optional(out, _DEALT_SEAT, event.seat)
        if visible:
            out.write(_DEALT_CARDS[event.card])
        append_int_field(out, _DEALT_FACE_UP, event.face_up)
        append_int_field(out, _DEALT_STREET, event.street)
        append_int_field(out, _DEALT_HIDDEN, not visible)
    elif isinstance(event, ActionTaken):
        start = open_record(out, _ACTION_TAKEN)
        append_int_field(out, _ACTION_SEAT, event.seat)
        out.write(_ACTION_TYPES[action_index(event.type)])  # by identity: no enum hashing
        append_int_field(out, _ACTION_TO, event.to)
        append_int_field(out, _ACTION_AMOUNT, event.amount)
        append_int_field(out, _ACTION_ALL_IN, event.all_in)
        append_int_field(out, _ACTION_TIMEOUT, event.timeout)
    elif isinstance(event, StreetStarted):
        start = open_record(out, _STREET_STARTED)
        append_int_field(out, _STARTED_STREET, event.street)
        append_text(out, _STARTED_NAME, event.name)
        append_int_field(out, _STARTED_BETTING, event.betting)
        _optional(out, _FIRST_TO_ACT, event.first_to_act)
    elif isinstance(event, AntePosted):
        start = open_record(out, _ANTE_POSTED)
        append_int_field(out, _ANTE_SEAT, event.seat)
        append_int_field(out, _ANTE_AMOUNT, event.amount)
        append_int_field(out, _ANTE_ALL_IN, event.all_in)
    else:
        start = _write_end_event(out, event)
    close_record(out, start)


def _write_end_event(out: BytesWriter, event: Event) -> int:
    """Write an event of a hand's end (the same for every viewer) but its length: where
    its contents start, for ``close_record``."""
    match event:
        case UncalledReturned(seat, amount):
            start = open_record(out, _UNCALLED_RETURNED)
            uncalled_fields(out, seat, amount)
        case HandShown():
            start = open_record(out, _HAND_SHOWN)
            shown_fields(out, event)
        case HandsTabled(seats, cards):
            start = open_record(out, _HANDS_TABLED)
            for seat, held in zip(seats, cards, strict=True):
                hand_start = open_record(out, _TABLED_HANDS)
                append_int_field(out, _TABLED_SEAT, seat)
                for card in held:
                    out.write(_TABLED_CARDS[card])
                close_record(out, hand_start)
        case RakeTaken(amount):
            start = open_record(out, _RAKE_TAKEN)
            append_int_field(out, _RAKE_AMOUNT, amount)
        case HandMucked(seat):
            start = open_record(out, _HAND_MUCKED)
            append_int_field(out, _MUCKED_SEAT, seat)
        case PotAwarded():
            start = open_record(out, _POT_AWARDED)
            _pot_fields(out, event)
        case HandEnded(stacks):
            start = open_record(out, _HAND_ENDED)
            append_packed(out, _ENDED_STACKS, list(stacks))
        case _:
            raise TypeError(f"unknown event {event!r}")
    return start


def _pot_fields(out: BytesWriter, pot: PotAwarded) -> None:
    """A PotAwarded message's fields."""
    append_int_field(out, _POT_INDEX, pot.pot)
    append_int_field(out, _POT_AMOUNT, pot.amount)
    append_packed(out, _POT_WINNERS, list(pot.winners))
    append_packed(out, _POT_SHARES, list(pot.shares))
    append_text(out, _POT_DESCRIPTION, pot.description)
    append_packed(out, _POT_LOW_WINNERS, list(pot.low_winners))
    append_packed(out, _POT_LOW_SHARES, list(pot.low_shares))
    append_text(out, _POT_LOW_DESCRIPTION, pot.low_description)
    append_int_field(out, _POT_RAKE, pot.rake)


def _optional(out: BytesWriter, key: int, value: int | None) -> None:
    """An optional integer field: present whenever it is set, even 0."""
    if value is not None:
        append_varint(out, key)
        append_varint(out, value)


_SEAT = pb.SeatInfo.DESCRIPTOR.fields_by_name
# the keys of the fields written into a BytesWriter (``wire.field_key``)
_BUTTON: Final = field_key(pb.View, "button")
_STREET: Final = field_key(pb.View, "street")
_STREET_NAME: Final = field_key(pb.View, "street_name")
_POT: Final = field_key(pb.View, "pot")
_SEATS_KEY: Final = field_key(pb.View, "seats")
_TO_ACT: Final = field_key(pb.View, "to_act")
_EVENTS_KEY: Final = field_key(pb.View, "events")
_PLAYER_ID: Final = field_key(pb.SeatInfo, "player_id")
_STACK: Final = field_key(pb.SeatInfo, "stack")
_COMMITTED: Final = field_key(pb.SeatInfo, "committed")
_ROUND_BET: Final = field_key(pb.SeatInfo, "round_bet")
_SPECTATOR_KEY: Final = field_key(pb.HandUpdate, "spectator")
_SEAT_VIEWS_KEY: Final = field_key(pb.HandUpdate, "seats")
# whole fields: each seat number, each count of down cards, the flags set (true)
_MOST_SEATS: Final = max(spec.max_players for spec in VARIANTS.values())
_MOST_CARDS: Final = max(len(spec.face_up) for spec in VARIANTS.values())
_SEAT_NUMBERS: Final = tuple(int_field(varint_key(_SEAT["seat"]), n) for n in range(_MOST_SEATS))
_DOWN_CARD_COUNTS: Final = tuple(
    int_field(varint_key(_SEAT["down_card_count"]), n) for n in range(_MOST_CARDS + 1)
)
_FOLDED: Final = varint_key(_SEAT["folded"]) + b"\x01"
_ALL_IN: Final = varint_key(_SEAT["all_in"]) + b"\x01"
_REVEALED: Final = varint_key(_SEAT["revealed"]) + b"\x01"
_TABLED: Final = varint_key(_SEAT["tabled"]) + b"\x01"
_COMMUNITY_CARDS: Final = card_fields(field_key(pb.View, "community_card"))
# View.viewer_seat for each seat
_VIEWER_SEAT: Final[tuple[bytes, ...]] = tuple(
    pb.View(viewer_seat=s).SerializeToString() for s in range(_MOST_SEATS)
)

# the events' keys (``wire.field_key``): each kind's in Event (a oneof), then each
# kind's own fields
_ANTE_POSTED: Final = field_key(pb.Event, "ante_posted")
_CARD_DEALT: Final = field_key(pb.Event, "card_dealt")
_STREET_STARTED: Final = field_key(pb.Event, "street_started")
_ACTION_TAKEN: Final = field_key(pb.Event, "action_taken")
_UNCALLED_RETURNED: Final = field_key(pb.Event, "uncalled_returned")
_HAND_SHOWN: Final = field_key(pb.Event, "hand_shown")
_HAND_MUCKED: Final = field_key(pb.Event, "hand_mucked")
_POT_AWARDED: Final = field_key(pb.Event, "pot_awarded")
_HAND_ENDED: Final = field_key(pb.Event, "hand_ended")
_RAKE_TAKEN: Final = field_key(pb.Event, "rake_taken")
_HANDS_TABLED: Final = field_key(pb.Event, "hands_tabled")
_ANTE_SEAT: Final = field_key(pb.AntePosted, "seat")
_ANTE_AMOUNT: Final = field_key(pb.AntePosted, "amount")
_ANTE_ALL_IN: Final = field_key(pb.AntePosted, "all_in")
_DEALT_SEAT: Final = field_key(pb.CardDealt, "seat")
_DEALT_CARDS: Final = card_fields(field_key(pb.CardDealt, "card"))
_DEALT_FACE_UP: Final = field_key(pb.CardDealt, "face_up")
_DEALT_STREET: Final = field_key(pb.CardDealt, "street")
_DEALT_HIDDEN: Final = field_key(pb.CardDealt, "hidden")
_STARTED_STREET: Final = field_key(pb.StreetStarted, "street")
_STARTED_NAME: Final = field_key(pb.StreetStarted, "name")
_STARTED_BETTING: Final = field_key(pb.StreetStarted, "betting")
_FIRST_TO_ACT: Final = field_key(pb.StreetStarted, "first_to_act")
_ACTION_SEAT: Final = field_key(pb.ActionTaken, "seat")
_ACTION_TYPES: Final = tuple(  # each kind's whole field, in ACTION_TYPES' order
    int_field(varint(field_key(pb.ActionTaken, "type")), ACTION_TO_PB[kind])
    for kind in ACTION_TYPES
)
_ACTION_TO: Final = field_key(pb.ActionTaken, "to")
_ACTION_AMOUNT: Final = field_key(pb.ActionTaken, "amount")
_ACTION_ALL_IN: Final = field_key(pb.ActionTaken, "all_in")
_ACTION_TIMEOUT: Final = field_key(pb.ActionTaken, "timeout")
_TABLED_HANDS: Final = field_key(pb.HandsTabled, "hands")
_TABLED_SEAT: Final = field_key(pb.TabledHand, "seat")
_TABLED_CARDS: Final = card_fields(field_key(pb.TabledHand, "cards"))
_RAKE_AMOUNT: Final = field_key(pb.RakeTaken, "amount")
_MUCKED_SEAT: Final = field_key(pb.HandMucked, "seat")
_POT_INDEX: Final = field_key(pb.PotAwarded, "pot")
_POT_AMOUNT: Final = field_key(pb.PotAwarded, "amount")
_POT_WINNERS: Final = field_key(pb.PotAwarded, "winners")
_POT_SHARES: Final = field_key(pb.PotAwarded, "shares")
_POT_DESCRIPTION: Final = field_key(pb.PotAwarded, "description")
_POT_LOW_WINNERS: Final = field_key(pb.PotAwarded, "low_winners")
_POT_LOW_SHARES: Final = field_key(pb.PotAwarded, "low_shares")
_POT_LOW_DESCRIPTION: Final = field_key(pb.PotAwarded, "low_description")
_POT_RAKE: Final = field_key(pb.PotAwarded, "rake")
_ENDED_STACKS: Final = field_key(pb.HandEnded, "stacks")


def _serialized_game(variant: Variant, table: Table) -> bytes:
    """View's variant and table, serialized."""
    return pb.View(variant=VARIANT_TO_PB[variant], table=table_to_pb(table)).SerializeToString()


_GAME_FIELDS: Final = GameFields(_serialized_game)
