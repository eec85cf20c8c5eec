"""The views as bytes: the spectator view and each seat's view of a hand, with the events,
encoded as ``visibility`` (the policy, R-MUCK, R-ALL-IN-FACE-UP) decides; nothing here
decides what a viewer may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from google.protobuf.descriptor import FieldDescriptor
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api.conversions import (
    ACTION_TO_PB,
    CARD_TEXT,
    VARIANT_TO_PB,
    cards_text,
    table_to_pb,
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
    LENGTH_DELIMITED,
    VARINT,
    BytesWriter,
    GameFields,
    append_int_field,
    append_record,
    append_text,
    append_varint,
    int_field,
    length_key,
    record,
    tag,
    varint,
    varint_key,
)


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


def build_view(
    hand: Hand, player_ids: list[str], events: Sequence[Event], viewer: int | None
) -> pb.View:
    """The table as ``viewer`` (a seat, or None for a spectator) sees it, with the events
    filtered for them."""
    public = PublicParts(hand, player_ids, events)
    return pb.View.FromString(public.view(viewer))


def build_views(
    hand: Hand, player_ids: list[str], events: Sequence[Event]
) -> tuple[pb.View, list[pb.View]]:
    """The spectator view and every seat's view (each seat's is the spectator's plus that
    seat's own down cards, in its seat and in its events)."""
    update = pb.HandUpdate()
    fill_views(update, hand, player_ids, events)
    return update.spectator, list(update.seats)


def fill_views(
    update: pb.HandUpdate, hand: Hand, player_ids: list[str], events: Sequence[Event]
) -> None:
    """Set ``update.spectator`` and ``update.seats`` (one view per seat, in seat order)."""
    update.MergeFromString(serialized_views(hand, player_ids, events))


def serialized_views(hand: Hand, player_ids: list[str], events: Sequence[Event]) -> bytes:
    """HandUpdate's ``spectator`` and ``seats`` fields, serialized: the public parts built
    once, each seat's view those with its own private parts swapped in."""
    public = PublicParts(hand, player_ids, events)
    out = BytesWriter()
    public.write_view(out, None, _SPECTATOR_KEY)
    for seat in range(hand.players):
        public.write_view(out, seat, _SEAT_VIEWS_KEY)
    return out.getvalue()


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
        out = BytesWriter()  # the spectator's view
        _write_head(out, hand)
        self.bounds = [len(out)]  # where each seat's record starts (the last: the seats end)
        self.own: list[bytes] = []  # each seat's record as it sees itself (b"": as all do)
        for seat in range(hand.players):
            self.own.append(_write_seat(out, hand, seat, player_ids[seat], revealed, pattern))
            self.bounds.append(len(out))
        _write_tail(out, hand)
        cut, tabled = tabled_after(hand, events)  # R-ALL-IN-FACE-UP: deals after it public
        # seat: the deals it alone sees, each with where its record starts and ends
        self.private: dict[int, list[tuple[int, int, CardDealt]]] = {}
        for index, event in enumerate(events):
            seen = tabled if index >= cut else NONE_TABLED
            at = len(out)
            append_record(out, _EVENTS_KEY, event_bytes(event, None, seen))
            deal = event if isinstance(event, CardDealt) else None
            if deal is not None and deal.seat is not None and not sees_dealt_card(deal, None, seen):
                self.private.setdefault(deal.seat, []).append((at, len(out), deal))
        self.public = out.getvalue()

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
        own = self.own[viewer] or public[start:end]
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
    out: BytesWriter, hand: Hand, seat: int, player_id: str, revealed: frozenset[int], pattern: int
) -> bytes:
    """Write ``seat``'s SeatInfo record as every other viewer sees it; the record as the
    seat itself does, or b"" when it is the same (``visibility`` shows its down cards to
    every viewer, or to none)."""
    front, back = _seat_front(hand, seat, player_id), _seat_back(hand, seat, revealed)
    hidden, shown = HELD_CARDS.get(hand.spec, pattern, hand.cards[seat])
    everyone = sees_down_cards(revealed, seat, None)
    public = shown if everyone else hidden
    append_varint(out, _SEATS_KEY)
    append_varint(out, len(front) + len(public) + len(back))
    out.write(front)
    out.write(public)
    out.write(back)
    if everyone or not sees_down_cards(revealed, seat, seat):
        return b""
    return _seat_record(front, shown, back)


def _seat_record(front: bytes, held: bytes, back: bytes) -> bytes:
    """View's field 3: one SeatInfo record, its cards (fields 8 to 10) between the fields
    before and after them."""
    size = len(front) + len(held) + len(back)
    return b"%b%b%b%b%b" % (_SEATS_TAG, varint(size), front, held, back)


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


def _seat_back(hand: Hand, seat: int, revealed: frozenset[int]) -> bytes:
    """SeatInfo's fields 11 to 13: how many down cards, and whether every viewer sees
    them (R-MUCK, R-ALL-IN-FACE-UP)."""
    downs = hand.spec.down_positions_of[len(hand.cards[seat])]
    if seat not in revealed:
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
    return record(_EVENTS_TAG, event_bytes(event, viewer, tabled))


# ---- the events as serialized parts ---------------------------------------------------
# Each is ``event_to_pb``'s message, serialized, assembled field by field in field order
# (tests/unit/test_api_serialized_parts.py holds every kind to the message's bytes).


def event_bytes(event: Event, viewer: int | None, tabled: frozenset[int] = NONE_TABLED) -> bytes:
    """``event_to_pb(event, viewer, tabled).SerializeToString()``, without the message
    (isinstance and attributes, not class patterns: mypyc compiles these to native reads)."""
    if isinstance(event, CardDealt):
        visible = sees_dealt_card(event, viewer, tabled)
        seat = event.seat
        dealt = b"%b%b%b%b%b" % (
            b"" if seat is None else _DEALT_SEATS[seat],  # present when set, even 0
            _DEALT_CARDS[event.card] if visible else b"",
            _DEALT_FACE_UP if event.face_up else b"",
            int_field(_DEALT_STREET, event.street),
            b"" if visible else _DEALT_HIDDEN,
        )
        return record(_CARD_DEALT, dealt)
    if isinstance(event, ActionTaken):
        action = b"%b%b%b%b%b%b" % (
            int_field(_ACTION_SEAT, event.seat),
            _ACTION_TYPES[action_index(event.type)],  # by identity: no enum hashing
            int_field(_ACTION_TO, event.to),
            int_field(_ACTION_AMOUNT, event.amount),
            _ACTION_ALL_IN if event.all_in else b"",
            _ACTION_TIMEOUT if event.timeout else b"",
        )
        return record(_ACTION_TAKEN, action)
    if isinstance(event, StreetStarted):
        first = event.first_to_act
        started = b"%b%b%b%b" % (
            int_field(_STARTED_STREET, event.street),
            _text(_STARTED_NAME, event.name),
            _STARTED_BETTING if event.betting else b"",
            b"" if first is None else _FIRST_TO_ACT[first],  # present when set, even 0
        )
        return record(_STREET_STARTED, started)
    if isinstance(event, AntePosted):
        ante = b"%b%b%b" % (
            int_field(_ANTE_SEAT, event.seat),
            int_field(_ANTE_AMOUNT, event.amount),
            _ANTE_ALL_IN if event.all_in else b"",
        )
        return record(_ANTE_POSTED, ante)
    return _end_event_bytes(event)


def _end_event_bytes(event: Event) -> bytes:
    """``event_bytes`` of an event of a hand's end (the same for every viewer)."""
    match event:
        case UncalledReturned(seat, amount):
            returned = int_field(_UNCALLED_SEAT, seat) + int_field(_UNCALLED_AMOUNT, amount)
            return record(_UNCALLED_RETURNED, returned)
        case HandShown():
            return record(_HAND_SHOWN, _shown_bytes(event))
        case HandsTabled(seats, cards):
            hands = [
                record(
                    _TABLED_HANDS, b"".join([int_field(_TABLED_SEAT, seat), *_tabled_cards(held)])
                )
                for seat, held in zip(seats, cards, strict=True)
            ]
            return record(_HANDS_TABLED, b"".join(hands))
        case RakeTaken(amount):
            return record(_RAKE_TAKEN, int_field(_RAKE_AMOUNT, amount))
        case HandMucked(seat):
            return record(_HAND_MUCKED, int_field(_MUCKED_SEAT, seat))
        case PotAwarded():
            return record(_POT_AWARDED, _pot_bytes(event))
        case HandEnded(stacks):
            return record(_HAND_ENDED, _packed(_ENDED_STACKS, stacks))
    raise TypeError(f"unknown event {event!r}")


def _tabled_cards(cards: Sequence[int]) -> list[bytes]:
    return [_TABLED_CARDS[c] for c in cards]


def _shown_bytes(shown: HandShown) -> bytes:
    """A HandShown message's fields."""
    parts = [int_field(_SHOWN_SEAT, shown.seat)]
    parts += [_SHOWN_CARDS[c] for c in shown.cards]
    parts += [_SHOWN_BEST_FIVE[c] for c in shown.best_five]
    parts.append(int_field(_SHOWN_RANK, shown.rank))
    parts.append(_text(_SHOWN_DESCRIPTION, shown.description))
    parts.append(int_field(_SHOWN_LOW, shown.low))
    parts += [_SHOWN_LOW_BEST_FIVE[c] for c in shown.low_best_five]
    parts.append(_text(_SHOWN_LOW_DESCRIPTION, shown.low_description))
    return b"".join(parts)


def _pot_bytes(pot: PotAwarded) -> bytes:
    """A PotAwarded message's fields."""
    return b"".join(
        [
            int_field(_POT_INDEX, pot.pot),
            int_field(_POT_AMOUNT, pot.amount),
            _packed(_POT_WINNERS, pot.winners),
            _packed(_POT_SHARES, pot.shares),
            _text(_POT_DESCRIPTION, pot.description),
            _packed(_POT_LOW_WINNERS, pot.low_winners),
            _packed(_POT_LOW_SHARES, pot.low_shares),
            _text(_POT_LOW_DESCRIPTION, pot.low_description),
            int_field(_POT_RAKE, pot.rake),
        ]
    )


# ---- the wire format of the fields above (proto3: a field at its default is absent) ----


def _text(key: bytes, text: str) -> bytes:
    """A string field: absent when empty (proto3)."""
    return record(key, text.encode()) if text else b""


def _packed(key: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated integer field (proto3: absent when empty); none is negative."""
    return record(key, b"".join([varint(v) for v in values])) if values else b""


def _key(message: Any, name: str, packed: bool = False) -> bytes:
    """The key of a field of ``message`` (below 16): length-delimited for a string, a
    message or a ``packed`` repeated integer field, else an integer's."""
    field = message.DESCRIPTOR.fields_by_name[name]
    if packed or field.type in _LENGTH_DELIMITED:
        return length_key(field)
    return varint_key(field)


def _cards_field(key: bytes) -> tuple[bytes, ...]:
    """Each card's text as one string field (or one element of a repeated one)."""
    return tuple(record(key, text.encode()) for text in CARD_TEXT)


_LENGTH_DELIMITED: Final = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_MESSAGE)


_VIEW = pb.View.DESCRIPTOR.fields_by_name
_SEAT = pb.SeatInfo.DESCRIPTOR.fields_by_name
# the keys of the fields written into a BytesWriter (``wire.tag``)
_BUTTON: Final = tag(_VIEW["button"], VARINT)
_STREET: Final = tag(_VIEW["street"], VARINT)
_STREET_NAME: Final = tag(_VIEW["street_name"], LENGTH_DELIMITED)
_POT: Final = tag(_VIEW["pot"], VARINT)
_SEATS_KEY: Final = tag(_VIEW["seats"], LENGTH_DELIMITED)
_TO_ACT: Final = tag(_VIEW["to_act"], VARINT)
_EVENTS_KEY: Final = tag(_VIEW["events"], LENGTH_DELIMITED)
_PLAYER_ID: Final = tag(_SEAT["player_id"], LENGTH_DELIMITED)
_STACK: Final = tag(_SEAT["stack"], VARINT)
_COMMITTED: Final = tag(_SEAT["committed"], VARINT)
_ROUND_BET: Final = tag(_SEAT["round_bet"], VARINT)
_SPECTATOR_KEY: Final = tag(pb.HandUpdate.DESCRIPTOR.fields_by_name["spectator"], LENGTH_DELIMITED)
_SEAT_VIEWS_KEY: Final = tag(pb.HandUpdate.DESCRIPTOR.fields_by_name["seats"], LENGTH_DELIMITED)
# and of those assembled as bytes
_SEATS_TAG: Final = length_key(_VIEW["seats"])
_EVENTS_TAG: Final = length_key(_VIEW["events"])
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
_COMMUNITY_CARDS: Final = _cards_field(length_key(_VIEW["community_card"]))
# View.viewer_seat for each seat
_VIEWER_SEAT: Final[tuple[bytes, ...]] = tuple(
    pb.View(viewer_seat=s).SerializeToString() for s in range(_MOST_SEATS)
)

# the events' keys: each kind's in Event (a oneof), then each kind's own fields
_ANTE_POSTED: Final = _key(pb.Event, "ante_posted")
_CARD_DEALT: Final = _key(pb.Event, "card_dealt")
_STREET_STARTED: Final = _key(pb.Event, "street_started")
_ACTION_TAKEN: Final = _key(pb.Event, "action_taken")
_UNCALLED_RETURNED: Final = _key(pb.Event, "uncalled_returned")
_HAND_SHOWN: Final = _key(pb.Event, "hand_shown")
_HAND_MUCKED: Final = _key(pb.Event, "hand_mucked")
_POT_AWARDED: Final = _key(pb.Event, "pot_awarded")
_HAND_ENDED: Final = _key(pb.Event, "hand_ended")
_RAKE_TAKEN: Final = _key(pb.Event, "rake_taken")
_HANDS_TABLED: Final = _key(pb.Event, "hands_tabled")
_ANTE_SEAT: Final = _key(pb.AntePosted, "seat")
_ANTE_AMOUNT: Final = _key(pb.AntePosted, "amount")
_ANTE_ALL_IN: Final = _key(pb.AntePosted, "all_in") + b"\x01"
_DEALT_SEATS: Final = tuple(_key(pb.CardDealt, "seat") + varint(n) for n in range(_MOST_SEATS))
_DEALT_CARDS: Final = _cards_field(_key(pb.CardDealt, "card"))
_DEALT_FACE_UP: Final = _key(pb.CardDealt, "face_up") + b"\x01"
_DEALT_STREET: Final = _key(pb.CardDealt, "street")
_DEALT_HIDDEN: Final = _key(pb.CardDealt, "hidden") + b"\x01"
_STARTED_STREET: Final = _key(pb.StreetStarted, "street")
_STARTED_NAME: Final = _key(pb.StreetStarted, "name")
_STARTED_BETTING: Final = _key(pb.StreetStarted, "betting") + b"\x01"
_FIRST_TO_ACT: Final = tuple(
    _key(pb.StreetStarted, "first_to_act") + varint(n) for n in range(_MOST_SEATS)
)
_ACTION_SEAT: Final = _key(pb.ActionTaken, "seat")
_ACTION_TYPES: Final = tuple(
    int_field(_key(pb.ActionTaken, "type"), ACTION_TO_PB[kind]) for kind in ACTION_TYPES
)
_ACTION_TO: Final = _key(pb.ActionTaken, "to")
_ACTION_AMOUNT: Final = _key(pb.ActionTaken, "amount")
_ACTION_ALL_IN: Final = _key(pb.ActionTaken, "all_in") + b"\x01"
_ACTION_TIMEOUT: Final = _key(pb.ActionTaken, "timeout") + b"\x01"
_UNCALLED_SEAT: Final = _key(pb.UncalledReturned, "seat")
_UNCALLED_AMOUNT: Final = _key(pb.UncalledReturned, "amount")
_SHOWN_SEAT: Final = _key(pb.HandShown, "seat")
_SHOWN_CARDS: Final = _cards_field(_key(pb.HandShown, "cards"))
_SHOWN_BEST_FIVE: Final = _cards_field(_key(pb.HandShown, "best_five"))
_SHOWN_RANK: Final = _key(pb.HandShown, "rank")
_SHOWN_DESCRIPTION: Final = _key(pb.HandShown, "description")
_SHOWN_LOW: Final = _key(pb.HandShown, "low")
_SHOWN_LOW_BEST_FIVE: Final = _cards_field(_key(pb.HandShown, "low_best_five"))
_SHOWN_LOW_DESCRIPTION: Final = _key(pb.HandShown, "low_description")
_TABLED_HANDS: Final = _key(pb.HandsTabled, "hands")
_TABLED_SEAT: Final = _key(pb.TabledHand, "seat")
_TABLED_CARDS: Final = _cards_field(_key(pb.TabledHand, "cards"))
_RAKE_AMOUNT: Final = _key(pb.RakeTaken, "amount")
_MUCKED_SEAT: Final = _key(pb.HandMucked, "seat")
_POT_INDEX: Final = _key(pb.PotAwarded, "pot")
_POT_AMOUNT: Final = _key(pb.PotAwarded, "amount")
_POT_WINNERS: Final = _key(pb.PotAwarded, "winners", packed=True)
_POT_SHARES: Final = _key(pb.PotAwarded, "shares", packed=True)
_POT_DESCRIPTION: Final = _key(pb.PotAwarded, "description")
_POT_LOW_WINNERS: Final = _key(pb.PotAwarded, "low_winners", packed=True)
_POT_LOW_SHARES: Final = _key(pb.PotAwarded, "low_shares", packed=True)
_POT_LOW_DESCRIPTION: Final = _key(pb.PotAwarded, "low_description")
_POT_RAKE: Final = _key(pb.PotAwarded, "rake")
_ENDED_STACKS: Final = _key(pb.HandEnded, "stacks", packed=True)


def _serialized_game(variant: Variant, table: Table) -> bytes:
    """View's variant and table, serialized."""
    return pb.View(variant=VARIANT_TO_PB[variant], table=table_to_pb(table)).SerializeToString()


_GAME_FIELDS: Final = GameFields(_serialized_game)
