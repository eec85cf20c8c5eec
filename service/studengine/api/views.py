"""The views as bytes: the spectator view and each seat's view of a hand, with the events,
encoded as ``visibility`` (the policy, R-MUCK, R-ALL-IN-FACE-UP) decides; nothing here
decides what a viewer may see.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from studengine.rules.visibility import (
    NONE_TABLED,
    revealed_seats,
    sees_dealt_card,
    sees_down_cards,
    tabled_after,
)
from studengine.state.wire import length_key, record


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
    pieces = _Pieces(hand, player_ids, events)
    data = pieces.spectator() if viewer is None else pieces.seat_view(viewer)
    return pb.View.FromString(data)


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
    """HandUpdate's ``spectator`` and ``seats`` fields, serialized."""
    pieces = _Pieces(hand, player_ids, events)
    views = [record(_SPECTATOR_TAG, pieces.spectator())]
    views += [record(_SEAT_VIEWS_TAG, pieces.seat_view(seat)) for seat in range(hand.players)]
    return b"".join(views)


# ---- views as serialized pieces -------------------------------------------------------
# Every view shares the spectator's fields but for the viewer's own seat and the events
# that dealt the viewer a down card. So each shared part is built and serialized once,
# and a seat's view is the spectator's pieces with its own few swapped in, parsed by
# protobuf's C code: far fewer Python-level message operations than copying and editing.

_VIEW_FIELDS = pb.View.DESCRIPTOR.fields_by_name
_SEAT_FIELDS = pb.SeatInfo.DESCRIPTOR.fields_by_name


def _card_strings(field: str) -> tuple[bytes, ...]:
    """Each card's text as one element of SeatInfo's repeated string ``field``."""
    key = length_key(_SEAT_FIELDS[field])
    return tuple(record(key, text.encode()) for text in CARD_TEXT)


_SPECTATOR_TAG = length_key(pb.HandUpdate.DESCRIPTOR.fields_by_name["spectator"])
_SEAT_VIEWS_TAG = length_key(pb.HandUpdate.DESCRIPTOR.fields_by_name["seats"])
_SEATS_TAG = length_key(_VIEW_FIELDS["seats"])
_EVENTS_TAG = length_key(_VIEW_FIELDS["events"])
_CARDS = _card_strings("cards")
_UP_CARDS = _card_strings("up_cards")
_DOWN_CARDS = _card_strings("down_cards")
_HIDDEN_CARD = length_key(_SEAT_FIELDS["cards"]) + b"\x00"  # ""


class _Pieces:
    """The serialized parts of a hand's views: the fields before and after the seats,
    each seat as the spectator sees it, and the events; ``private``, the events that dealt
    a seat a card only it sees: (index, seat, card, street)."""

    def __init__(self, hand: Hand, player_ids: Sequence[str], events: Sequence[Event]) -> None:
        self.hand = hand
        self.revealed = revealed = revealed_seats(hand)
        middle = pb.View()
        middle.button = hand.button
        middle.street = hand.street
        middle.street_name = hand.street_name
        middle.pot = hand.pot
        self.head = _game_fields(hand.variant, hand.table) + middle.SerializeToString()
        tail = pb.View()  # fields 9 and 10, after the seats
        if hand.community is not None:
            tail.community_card = CARD_TEXT[hand.community]
        if hand.to_act is not None:
            tail.to_act = hand.to_act
        self.tail = tail.SerializeToString()
        spec = hand.spec
        face_up = spec.face_up
        self.bases: list[bytes] = []  # each seat's fields but its cards and down cards
        self.seats: list[bytes] = []  # each seat's record as the spectator sees it
        for seat, cards in enumerate(hand.cards):
            ups, downs = spec.up_positions_of[len(cards)], spec.down_positions_of[len(cards)]
            stack = hand.stacks[seat]
            shown = sees_down_cards(revealed, seat, None)  # seen by every viewer
            # set field by field, the defaults (False) skipped: cheaper than keywords
            info = pb.SeatInfo()
            info.seat = seat
            info.player_id = player_ids[seat]
            info.stack = stack
            info.committed = hand.committed[seat]
            info.round_bet = hand.round.bets[seat]
            if hand.folded[seat]:
                info.folded = True
            elif stack == 0:
                info.all_in = True
            info.down_card_count = len(downs)
            if shown:
                info.revealed = True
                info.tabled = seat in hand.tabled  # R-ALL-IN-FACE-UP (tabled: shown too)
            base = info.SerializeToString() + b"".join([_UP_CARDS[cards[i]] for i in ups])
            self.bases.append(base)
            if shown:
                base += _all_cards(cards, downs)
            else:
                base += b"".join(
                    [
                        _CARDS[c] if up else _HIDDEN_CARD
                        for c, up in zip(cards, face_up, strict=False)
                    ]
                )
            self.seats.append(record(_SEATS_TAG, base))
        self.events = [
            record(_EVENTS_TAG, event_to_pb(e, None).SerializeToString()) for e in events
        ]
        self.private = [
            (index, e.seat, e.card, e.street)
            for index, e in enumerate(events)
            if isinstance(e, CardDealt) and e.seat is not None and not sees_dealt_card(e, None)
        ]
        if hand.tabled:  # R-ALL-IN-FACE-UP: the deals after the tabling are seen by all
            self._show_tabled(events)

    def _show_tabled(self, events: Sequence[Event]) -> None:
        """The events after the hands were tabled as every viewer sees them: the deals
        to those hands in the open, no longer private (R-ALL-IN-FACE-UP)."""
        cut, tabled = tabled_after(self.hand, events)
        public = set()
        for index in range(cut, len(events)):
            e = events[index]
            self.events[index] = record(
                _EVENTS_TAG, event_to_pb(e, None, tabled).SerializeToString()
            )
            if isinstance(e, CardDealt) and sees_dealt_card(e, None, tabled):
                public.add(index)
        self.private = [deal for deal in self.private if deal[0] not in public]

    def spectator(self) -> bytes:
        return self.head + b"".join(self.seats) + self.tail + b"".join(self.events)

    def seat_view(self, viewer: int) -> bytes:
        """The view of ``viewer``: the spectator's with its own down cards shown."""
        seats = self.seats
        if not sees_down_cards(self.revealed, viewer, None):  # else the spectator sees them
            cards = self.hand.cards[viewer]
            downs = self.hand.spec.down_positions_of[len(cards)]
            seats = seats.copy()
            seats[viewer] = record(_SEATS_TAG, self.bases[viewer] + _all_cards(cards, downs))
        events = self.events
        if self.private:
            mine = [p for p in self.private if p[1] == viewer]
            if mine:
                events = events.copy()
                for index, seat, card, street in mine:
                    events[index] = _own_card_dealt(seat, card, street)
        return b"".join((_VIEWER_SEAT[viewer], self.head, *seats, self.tail, *events))


def _all_cards(cards: Sequence[int], downs: Sequence[int]) -> bytes:
    """SeatInfo's cards and down_cards with every card shown."""
    return b"".join([_CARDS[c] for c in cards] + [_DOWN_CARDS[cards[i]] for i in downs])


def _own_card_dealt(seat: int, card: int, street: int) -> bytes:
    """The event record of a down card dealt, as its owner sees it."""
    dealt = pb.CardDealt(seat=seat, card=CARD_TEXT[card], face_up=False, street=street)
    return record(_EVENTS_TAG, pb.Event(card_dealt=dealt).SerializeToString())


# View.viewer_seat for each seat (at most MAX_SEATS of them)
_VIEWER_SEAT = tuple(pb.View(viewer_seat=seat).SerializeToString() for seat in range(16))
_GAME_FIELDS: dict[tuple[Variant, Table], bytes] = {}


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
