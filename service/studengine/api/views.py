"""Who may see what: the spectator view and each seat's view of a hand, and the events
filtered for each viewer.

A face-up card is public. A face-down card is seen by its owner only, until a showdown
reveals the owner's hand to everyone (R-MUCK: the first hand shown and every hand that
wins or ties a pot); a mucked hand is never revealed. The community card is public.
"""

from __future__ import annotations

from collections.abc import Sequence

from studengine.cards import format_card
from studengine.gen.stud.v1 import stud_engine_pb2 as pb
from studengine.rules.hand import Hand
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
    LegalAction,
    OddChip,
    PotAwarded,
    StreetStarted,
    Table,
    UncalledReturned,
    Variant,
)

VARIANT_TO_PB = {
    Variant.FIVE_CARD_STUD: pb.VARIANT_FIVE_CARD_STUD,
    Variant.SEVEN_CARD_STUD: pb.VARIANT_SEVEN_CARD_STUD,
}
VARIANT_FROM_PB = {code: v for v, code in VARIANT_TO_PB.items()}
ODD_CHIP_TO_PB = {
    OddChip.LEFT_OF_DEALER: pb.ODD_CHIP_LEFT_OF_DEALER,
    OddChip.HIGH_CARD_BY_SUIT: pb.ODD_CHIP_HIGH_CARD_BY_SUIT,
}
ODD_CHIP_FROM_PB = {code: o for o, code in ODD_CHIP_TO_PB.items()}
ODD_CHIP_FROM_PB[pb.ODD_CHIP_UNSPECIFIED] = OddChip.LEFT_OF_DEALER
ACTION_TO_PB = {
    ActionType.FOLD: pb.ACTION_TYPE_FOLD,
    ActionType.CHECK: pb.ACTION_TYPE_CHECK,
    ActionType.CALL: pb.ACTION_TYPE_CALL,
    ActionType.BRING_IN: pb.ACTION_TYPE_BRING_IN,
    ActionType.COMPLETE: pb.ACTION_TYPE_COMPLETE,
    ActionType.BET: pb.ACTION_TYPE_BET,
    ActionType.RAISE: pb.ACTION_TYPE_RAISE,
}
ACTION_FROM_PB = {code: a for a, code in ACTION_TO_PB.items()}


def cards_text(cards: Sequence[int]) -> list[str]:
    return [format_card(c) for c in cards]


def revealed_seats(hand: Hand) -> frozenset[int]:
    """Seats whose hands the showdown revealed to everyone (R-MUCK)."""
    if hand.result is None:
        return frozenset()
    return frozenset(s.seat for s in hand.result.shown)


def table_to_pb(table: Table) -> pb.Table:
    return pb.Table(
        ante=table.ante,
        bring_in=table.bring_in,
        small_bet=table.small_bet,
        big_bet=table.big_bet,
        max_bets=table.max_bets,
        uncapped_heads_up=table.uncapped_heads_up,
        open_pair_big_bet=table.open_pair_big_bet,
        odd_chip=ODD_CHIP_TO_PB[table.odd_chip],
    )


def legal_to_pb(actions: Sequence[LegalAction]) -> list[pb.LegalAction]:
    out = []
    for action in actions:
        msg = pb.LegalAction(type=ACTION_TO_PB[action.type])
        if action.to is not None:
            msg.to = action.to
        out.append(msg)
    return out


def event_to_pb(event: Event, viewer: int | None) -> pb.Event:
    """One event as ``viewer`` (a seat, or None for a spectator) may see it."""
    match event:
        case AntePosted(seat, amount, all_in):
            return pb.Event(ante_posted=pb.AntePosted(seat=seat, amount=amount, all_in=all_in))
        case CardDealt(seat, card, face_up, street):
            visible = face_up or seat is None or seat == viewer
            dealt = pb.CardDealt(
                card=format_card(card) if visible else "",
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
        case UncalledReturned(seat, amount):
            return pb.Event(uncalled_returned=pb.UncalledReturned(seat=seat, amount=amount))
        case HandShown(seat, cards, best_five, rank, description):
            return pb.Event(
                hand_shown=pb.HandShown(
                    seat=seat,
                    cards=cards_text(cards),
                    best_five=cards_text(best_five),
                    rank=rank,
                    description=description,
                )
            )
        case HandMucked(seat):
            return pb.Event(hand_mucked=pb.HandMucked(seat=seat))
        case PotAwarded(index, amount, winners, shares, description):
            return pb.Event(
                pot_awarded=pb.PotAwarded(
                    pot=index,
                    amount=amount,
                    winners=winners,
                    shares=shares,
                    description=description,
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
    spectator = _spectator_view(hand, player_ids, events)
    return spectator if viewer is None else _seat_view(hand, spectator, events, viewer)


def build_views(
    hand: Hand, player_ids: Sequence[str], events: Sequence[Event]
) -> tuple[pb.View, list[pb.View]]:
    """The spectator view and every seat's view (each seat's is the spectator's plus that
    seat's own down cards, in its seat and in its events)."""
    spectator = _spectator_view(hand, player_ids, events)
    seats = [_seat_view(hand, spectator, events, seat) for seat in range(hand.players)]
    return spectator, seats


def _spectator_view(hand: Hand, player_ids: Sequence[str], events: Sequence[Event]) -> pb.View:
    face_up = hand.spec.face_up
    revealed = revealed_seats(hand)
    seats = []
    for seat in range(hand.players):
        shown = seat in revealed
        texts = [format_card(card) for card in hand.cards[seat]]
        up = [t for t, is_up in zip(texts, face_up, strict=False) if is_up]
        down = [t for t, is_up in zip(texts, face_up, strict=False) if not is_up]
        seats.append(
            pb.SeatInfo(
                seat=seat,
                player_id=player_ids[seat],
                stack=hand.stacks[seat],
                committed=hand.committed[seat],
                round_bet=hand.round_bets[seat],
                folded=hand.folded[seat],
                all_in=not hand.folded[seat] and hand.stacks[seat] == 0,
                cards=[
                    t if is_up or shown else "" for t, is_up in zip(texts, face_up, strict=False)
                ],
                up_cards=up,
                down_cards=down if shown else (),
                down_card_count=len(down),
                revealed=shown,
            )
        )
    view = pb.View(
        variant=VARIANT_TO_PB[hand.variant],
        table=table_to_pb(hand.table),
        button=hand.button,
        street=hand.street,
        street_name=hand.street_name,
        pot=hand.pot,
        seats=seats,
        events=[event_to_pb(e, None) for e in events],
    )
    if hand.community is not None:
        view.community_card = format_card(hand.community)
    if hand.to_act is not None:
        view.to_act = hand.to_act
    return view


def _seat_view(hand: Hand, spectator: pb.View, events: Sequence[Event], viewer: int) -> pb.View:
    """The spectator view with ``viewer``'s own down cards shown."""
    view = pb.View()
    view.CopyFrom(spectator)
    view.viewer_seat = viewer
    if viewer not in revealed_seats(hand):
        face_up = hand.spec.face_up
        mine = view.seats[viewer]
        texts = [format_card(card) for card in hand.cards[viewer]]
        mine.ClearField("cards")
        mine.cards.extend(texts)
        mine.down_cards.extend(t for t, up in zip(texts, face_up, strict=False) if not up)
    for index, event in enumerate(events):
        if isinstance(event, CardDealt) and event.seat == viewer and not event.face_up:
            dealt = view.events[index].card_dealt
            dealt.card = format_card(event.card)
            dealt.hidden = False
    return view


def result_to_pb(result: HandResult) -> pb.HandResult:
    return pb.HandResult(
        pots=[
            pb.Pot(amount=p.amount, eligible=p.eligible, winners=p.winners, shares=p.shares)
            for p in result.pots
        ],
        stacks=result.stacks,
        shown=[
            pb.ShownHand(
                seat=s.seat,
                cards=cards_text(s.cards),
                best_five=cards_text(s.best_five),
                rank=s.rank,
                description=s.description,
            )
            for s in result.shown
        ],
        revealed=result.revealed,
        uncalled=[pb.UncalledReturned(seat=s, amount=a) for s, a in result.uncalled],
    )
