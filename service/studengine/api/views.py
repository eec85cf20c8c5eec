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
    CARD_TEXT,
    VARIANT_TO_PB,
    cards_text,
    table_to_pb,
)
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
)
from studengine.rules.variants import VARIANTS
from studengine.rules.visibility import (
    NONE_TABLED,
    revealed_seats,
    sees_dealt_card,
    sees_down_cards,
    tabled_after,
)
from studengine.state.wire import length_key, record, varint, varint_key


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
    hand: Hand, player_ids: Sequence[str], events: Sequence[Event], viewer: int | None
) -> pb.View:
    """The table as ``viewer`` (a seat, or None for a spectator) sees it, with the events
    filtered for them."""
    public = PublicParts(hand, player_ids, events)
    return pb.View.FromString(public.view(viewer))


def build_views(
    hand: Hand, player_ids: Sequence[str], events: Sequence[Event]
) -> tuple[pb.View, list[pb.View]]:
    """The spectator view and every seat's view (each seat's is the spectator's plus that
    seat's own down cards, in its seat and in its events)."""
    update = pb.HandUpdate()
    fill_views(update, hand, player_ids, events)
    return update.spectator, list(update.seats)


def fill_views(
    update: pb.HandUpdate, hand: Hand, player_ids: Sequence[str], events: Sequence[Event]
) -> None:
    """Set ``update.spectator`` and ``update.seats`` (one view per seat, in seat order)."""
    update.MergeFromString(serialized_views(hand, player_ids, events))


def serialized_views(hand: Hand, player_ids: Sequence[str], events: Sequence[Event]) -> bytes:
    """HandUpdate's ``spectator`` and ``seats`` fields, serialized: the public parts built
    once, each seat's view those with its own private parts swapped in."""
    public = PublicParts(hand, player_ids, events)
    views = [record(_SPECTATOR_TAG, public.view(None))]
    views += [record(_SEAT_VIEWS_TAG, public.view(seat)) for seat in range(hand.players)]
    return b"".join(views)


# ---- views as serialized parts --------------------------------------------------------
# Every view is the spectator's but for the viewer's own seat and the events that dealt
# the viewer a down card. So the public parts are built and serialized once per call, and
# a seat's view is those parts with its own few swapped in. Each part is encoded in field
# order, so that a view's bytes are exactly protobuf's serialization of the same message
# (tests/unit/test_api_serialized_parts.py holds them to a message-built reference).


class PublicParts:
    """The serialized parts of a hand's views: what every viewer sees, built once, and
    each seat's private parts beside it (``visibility`` decides which is which)."""

    def __init__(self, hand: Hand, player_ids: Sequence[str], events: Sequence[Event]) -> None:
        self.hand = hand
        self.revealed = revealed_seats(hand)
        self.head = _head(hand)
        seats = range(hand.players)
        # each seat's fields before its cards, its up cards, and its fields after them
        self.fronts = [_seat_front(hand, seat, player_ids[seat]) for seat in seats]
        self.ups = [_up_cards(hand, seat) for seat in seats]
        self.backs = [_seat_back(hand, seat, self.revealed) for seat in seats]
        self.seats = [self._seat(seat, None) for seat in seats]  # as the spectator sees them
        self.tail = _tail(hand)
        cut, tabled = tabled_after(hand, events)  # R-ALL-IN-FACE-UP: deals after it public
        self.events: list[bytes] = []
        self.private: dict[int, list[tuple[int, CardDealt]]] = {}  # seat: deals it alone sees
        for index, event in enumerate(events):
            seen = tabled if index >= cut else NONE_TABLED
            self.events.append(_event_record(event, None, seen))
            deal = event if isinstance(event, CardDealt) else None
            if deal is not None and deal.seat is not None and not sees_dealt_card(deal, None, seen):
                self.private.setdefault(deal.seat, []).append((index, deal))

    def view(self, viewer: int | None) -> bytes:
        """The View of ``viewer`` (None: the spectator), serialized: the public parts with
        the viewer's own seat and the deals of its own down cards swapped in."""
        if viewer is None:
            return b"".join((self.head, *self.seats, self.tail, *self.events))
        seats = self.seats
        if not sees_down_cards(self.revealed, viewer, None):  # else the spectator sees them
            seats = seats.copy()
            seats[viewer] = self._seat(viewer, viewer)
        events = self.events
        mine = self.private.get(viewer)
        if mine:
            events = events.copy()
            for index, deal in mine:
                events[index] = _event_record(deal, viewer, NONE_TABLED)
        return b"".join((_VIEWER_SEAT[viewer], self.head, *seats, self.tail, *events))

    def _seat(self, seat: int, viewer: int | None) -> bytes:
        """``seat``'s SeatInfo record as ``viewer`` sees it: its cards (fields 8 to 10)
        between the fields before and after them, the down cards only if ``visibility``
        shows them to the viewer."""
        cards, spec = self.hand.cards[seat], self.hand.spec
        info = [self.fronts[seat]]
        if sees_down_cards(self.revealed, seat, viewer):
            info += [_CARDS[c] for c in cards]
            info.append(self.ups[seat])
            info += [_DOWN_CARDS[cards[i]] for i in spec.down_positions_of[len(cards)]]
        else:
            up = spec.face_up
            info += [_CARDS[cards[i]] if up[i] else _HIDDEN_CARD for i in range(len(cards))]
            info.append(self.ups[seat])
        info.append(self.backs[seat])
        return record(_SEATS_TAG, b"".join(info))


def _up_cards(hand: Hand, seat: int) -> bytes:
    """SeatInfo's field 9: the seat's face-up cards."""
    cards = hand.cards[seat]
    return b"".join([_UP_CARDS[cards[i]] for i in hand.spec.up_positions_of[len(cards)]])


def _seat_front(hand: Hand, seat: int, player_id: str) -> bytes:
    """SeatInfo's fields 1 to 7: the seat, its player and chips, folded or all-in."""
    stack, folded = hand.stacks[seat], hand.folded[seat]
    return b"".join(
        (
            _SEAT_NUMBERS[seat],
            _text(_PLAYER_ID, player_id),
            _int(_STACK, stack),
            _int(_COMMITTED, hand.committed[seat]),
            _int(_ROUND_BET, hand.round.bets[seat]),
            _FOLDED if folded else b"",
            _ALL_IN if not folded and stack == 0 else b"",
        )
    )


def _seat_back(hand: Hand, seat: int, revealed: frozenset[int]) -> bytes:
    """SeatInfo's fields 11 to 13: how many down cards, and whether every viewer sees
    them (R-MUCK, R-ALL-IN-FACE-UP)."""
    downs = hand.spec.down_positions_of[len(hand.cards[seat])]
    if seat not in revealed:
        return _DOWN_CARD_COUNTS[len(downs)]
    tabled = _TABLED if seat in hand.tabled else b""
    return _DOWN_CARD_COUNTS[len(downs)] + _REVEALED + tabled


def _head(hand: Hand) -> bytes:
    """View's fields 2 to 7: the game, its table, the button, the street and the pot."""
    return b"".join(
        (
            _game_fields(hand.variant, hand.table),
            _int(_BUTTON, hand.button),
            _int(_STREET, hand.street),
            _text(_STREET_NAME, hand.street_name),
            _int(_POT, hand.pot),
        )
    )


def _tail(hand: Hand) -> bytes:
    """View's fields 9 and 10 (after the seats): the community card and the seat to act,
    each present when set, even when 0."""
    tail = b""
    if hand.community is not None:
        tail += record(_COMMUNITY_CARD, CARD_TEXT[hand.community].encode())
    if hand.to_act is not None:
        tail += _TO_ACT + varint(hand.to_act)
    return tail


def _event_record(event: Event, viewer: int | None, tabled: frozenset[int]) -> bytes:
    return record(_EVENTS_TAG, event_to_pb(event, viewer, tabled).SerializeToString())


# ---- the wire format of the fields above (proto3: a field at its default is absent) ----


def _int(key: bytes, value: int) -> bytes:
    """An integer field: absent when 0 (proto3)."""
    return key + varint(value) if value else b""


def _text(key: bytes, text: str) -> bytes:
    return record(key, text.encode()) if text else b""


_VIEW = pb.View.DESCRIPTOR.fields_by_name
_SEAT = pb.SeatInfo.DESCRIPTOR.fields_by_name
_BUTTON: Final = varint_key(_VIEW["button"])
_STREET: Final = varint_key(_VIEW["street"])
_STREET_NAME: Final = length_key(_VIEW["street_name"])
_POT: Final = varint_key(_VIEW["pot"])
_SEATS_TAG: Final = length_key(_VIEW["seats"])
_COMMUNITY_CARD: Final = length_key(_VIEW["community_card"])
_TO_ACT: Final = varint_key(_VIEW["to_act"])
_EVENTS_TAG: Final = length_key(_VIEW["events"])
_PLAYER_ID: Final = length_key(_SEAT["player_id"])
_STACK: Final = varint_key(_SEAT["stack"])
_COMMITTED: Final = varint_key(_SEAT["committed"])
_ROUND_BET: Final = varint_key(_SEAT["round_bet"])
# whole fields: each seat number, each count of down cards, the flags set (true)
_MOST_SEATS: Final = max(spec.max_players for spec in VARIANTS.values())
_MOST_CARDS: Final = max(len(spec.face_up) for spec in VARIANTS.values())
_SEAT_NUMBERS: Final = tuple(_int(varint_key(_SEAT["seat"]), n) for n in range(_MOST_SEATS))
_DOWN_CARD_COUNTS: Final = tuple(
    _int(varint_key(_SEAT["down_card_count"]), n) for n in range(_MOST_CARDS + 1)
)
_FOLDED: Final = varint_key(_SEAT["folded"]) + b"\x01"
_ALL_IN: Final = varint_key(_SEAT["all_in"]) + b"\x01"
_REVEALED: Final = varint_key(_SEAT["revealed"]) + b"\x01"
_TABLED: Final = varint_key(_SEAT["tabled"]) + b"\x01"
_SPECTATOR_TAG: Final = length_key(pb.HandUpdate.DESCRIPTOR.fields_by_name["spectator"])
_SEAT_VIEWS_TAG: Final = length_key(pb.HandUpdate.DESCRIPTOR.fields_by_name["seats"])
# each card's text as one element of SeatInfo's repeated strings; a hidden card is ""
_CARDS: Final = tuple(record(length_key(_SEAT["cards"]), t.encode()) for t in CARD_TEXT)
_UP_CARDS: Final = tuple(record(length_key(_SEAT["up_cards"]), t.encode()) for t in CARD_TEXT)
_DOWN_CARDS: Final = tuple(record(length_key(_SEAT["down_cards"]), t.encode()) for t in CARD_TEXT)
_HIDDEN_CARD: Final = record(length_key(_SEAT["cards"]), b"")
# View.viewer_seat for each seat
_VIEWER_SEAT: Final = tuple(pb.View(viewer_seat=s).SerializeToString() for s in range(_MOST_SEATS))
_GAME_FIELDS: Final[dict[tuple[Variant, Table], bytes]] = {}


def _game_fields(variant: Variant, table: Table) -> bytes:
    """View's variant and table, serialized (a few distinct ones serve many calls)."""
    key = (variant, table)
    found = _GAME_FIELDS.get(key)
    if found is None:
        if len(_GAME_FIELDS) >= 256:
            _GAME_FIELDS.clear()
        view = pb.View(variant=VARIANT_TO_PB[variant], table=table_to_pb(table))
        found = _GAME_FIELDS[key] = view.SerializeToString()
    return found
