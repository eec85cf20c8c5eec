"""A finished hand's history in PHH (TOML), played again from its deck and action log.

Two renderings (``Audience``): ``AUDIT`` has every card dealt, the salt and the deck
(the deck commitment's reveal): the back-end's record for disputes and regulators.
``PLAYERS`` is what every player may see once the hand is over: a down card appears only
when the same rule as the API's views lets a spectator see it (``rules.visibility``,
R-MUCK: the hands the showdown revealed; R-ALL-IN-FACE-UP: the hands tabled), else as
``??``; no salt, no deck. A hand dealt with a deal ticket (issue 32) carries its proof in
both: ``_deal_commitment``, ``_server_seed``, ``_contributions`` (seat order), ``_salt``
and ``_deck`` (the seed and contributions give the deck anyway), for ``stud-verify``.

PHH players ``p1``, ``p2``, ... are the seats in dealing order (``p1`` on the dealer's
left, the dealer last); ``seats`` gives each one's seat number (1-based) and ``_button``
the dealer's. Each street's cards are one ``d dh pN CARDS`` line per player (the
community card of R-COMMUNITY-CARD a ``d db`` line), actions are ``pN f`` (fold), ``pN
cc`` (check or call), ``pN pb`` (bring-in), ``pN cbr TO`` (complete, bet or raise to TO,
the round total), a timeout marked ``# timeout``; at the showdown ``pN sm CARDS`` shows a
hand and ``pN sm`` mucks it. Hands tabled (R-ALL-IN-FACE-UP) are shown where they were
turned face up, before the cards dealt after it, each by a ``pN sm CARDS`` line of its
cards so far, and again after each later down card dealt to it (all its cards): PHH's
all-in showdown and the showdowns of its run-out, as PokerKit plays them.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import tomli_w

from studengine.cards import format_card
from studengine.history.codes import EXTENSION_CODES, PHH_CODES
from studengine.rules.board import clockwise_from
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import (
    ActionTaken,
    ActionType,
    CardDealt,
    Event,
    HandMucked,
    HandShown,
    HandsTabled,
    IllegalAction,
    InvalidHand,
)
from studengine.rules.visibility import revealed_seats, sees_down_cards

# the PHH verb of each action type
PHH_VERBS = {
    ActionType.FOLD: "f",
    ActionType.CHECK: "cc",
    ActionType.CALL: "cc",
    ActionType.BRING_IN: "pb",
    ActionType.COMPLETE: "cbr",
    ActionType.BET: "cbr",
    ActionType.RAISE: "cbr",
}
STAKES = ("ante", "bring_in", "small_bet", "big_bet")  # PHH's own fields; the rest `_...`
HIDDEN = "??"


class Audience(enum.Enum):
    """Who a history is for: the audit (every card) or the players (R-MUCK)."""

    AUDIT = "audit"
    PLAYERS = "players"


@dataclass(frozen=True)
class HandMeta:
    """What the service keeps beside the engine's hand: its id, the players' ids (by
    seat), the deck commitment, and the salt of its reveal (all hex but the ids); for a
    hand dealt with a deal ticket, its commitment, server seed and the contributions (in
    seat order)."""

    hand_id: str
    player_ids: Sequence[str]
    deck_commitment: str
    salt: str
    deal_commitment: str = ""
    server_seed: str = ""
    contributions: Sequence[str] = ()


class HistoryError(RuntimeError):
    """A hand's action log does not play again to the same hand (a broken state)."""


def replay_log(hand: Hand) -> list[Event]:
    """Every event of ``hand`` from its deal to its end: the hand played again from its
    deck and its action log (``Hand.moves``), checked to end exactly as it did."""
    try:
        again, events = start_hand(
            hand.variant, hand.table, hand.starting_stacks, hand.button, hand.deck
        )
        for move in hand.moves:
            if move.timeout:
                events += again.timeout(move.seat)
            else:
                events += again.act(move.seat, move.type, move.to)
    except (IllegalAction, InvalidHand) as error:
        raise HistoryError(f"the action log does not replay: {error}") from error
    if again.stacks != hand.stacks or again.over != hand.over or again.moves != hand.moves:
        raise HistoryError("the action log does not replay to the same hand")
    return events


def dealing_order(hand: Hand) -> list[int]:
    """The seats as PHH numbers them: ``p1`` is the dealer's left, the dealer is last."""
    return clockwise_from(hand.button + 1, hand.players)


def phh_fields(hand: Hand, meta: HandMeta, audience: Audience) -> dict[str, Any]:
    """The PHH fields of a finished hand, in the order they are written."""
    if not hand.over:
        raise ValueError("the hand is not over: it has no history yet")
    order = dealing_order(hand)
    table = hand.table
    code = PHH_CODES[hand.variant]
    fields: dict[str, Any] = {
        "variant": code,
        "antes": [table.ante] * hand.players,
        "bring_in": table.bring_in,
        "small_bet": table.small_bet,
        "big_bet": table.big_bet,
        "starting_stacks": [hand.starting_stacks[s] for s in order],
        "actions": list(phh_actions(hand, order, audience)),
        "hand": meta.hand_id,
        "players": [meta.player_ids[s] for s in order],
        "seats": [s + 1 for s in order],
        "finishing_stacks": [hand.stacks[s] for s in order],
    }
    if code in EXTENSION_CODES:
        fields["_streets"] = [
            {
                "name": street.name,
                "cards": "".join("u" if up else "d" for up in street.cards),
                "bet": "big" if street.big_bet else "small",
            }
            for street in hand.spec.streets
        ]
    fields["_audience"] = audience.value
    fields["_button"] = hand.button + 1
    fields["_rake"] = getattr(hand.result, "rake", 0)  # chips the table took (R-RAKE)
    fields.update(table_options(hand))
    fields["_deck_commitment"] = meta.deck_commitment
    if meta.server_seed:  # the deal's proof: the deck follows from it, for every audience
        fields["_deal_commitment"] = meta.deal_commitment
        fields["_server_seed"] = meta.server_seed
        fields["_contributions"] = list(meta.contributions)
    if audience is Audience.AUDIT or meta.server_seed:  # the reveal: every hand, mucked too
        fields["_salt"] = meta.salt
        fields["_deck"] = "".join(map(format_card, hand.deck))
    return fields


def table_options(hand: Hand) -> dict[str, Any]:
    """The table's options beyond PHH's stakes, as ``_name`` fields (enums by name)."""
    options: dict[str, Any] = {}
    for field in dataclasses.fields(hand.table):
        if field.name in STAKES:
            continue
        value = getattr(hand.table, field.name)
        options[f"_{field.name}"] = value.value if isinstance(value, enum.Enum) else value
    return options


def phh_actions(hand: Hand, order: Sequence[int], audience: Audience) -> Iterator[str]:
    """The ``actions`` lines: deals, actions and the showdown, in the order they happened."""
    player = {seat: f"p{position + 1}" for position, seat in enumerate(order)}
    revealed = revealed_seats(hand)
    dealt: dict[int | None, list[str]] = {}  # this street's cards so far, by seat
    held: dict[int, list[int]] = {seat: [] for seat in order}  # each seat's cards so far
    tabled: set[int] = set()  # R-ALL-IN-FACE-UP: the hands face up, from their tabling on
    turned: list[int] = []  # tabled hands dealt a down card since the last deal lines

    def card_text(event: CardDealt) -> str:
        seen = audience is Audience.AUDIT or event.face_up
        if seen or event.seat is None or sees_down_cards(revealed, event.seat, None):
            return format_card(event.card)
        return HIDDEN

    def show(seat: int) -> str:
        return f"{player[seat]} sm {''.join(map(format_card, held[seat]))}"

    def deals() -> Iterator[str]:
        for seat, cards in dealt.items():
            who = "d db" if seat is None else f"d dh {player[seat]}"
            yield f"{who} {''.join(cards)}"
        dealt.clear()
        yield from map(show, turned)  # a tabled hand's new down card is face up too
        turned.clear()

    for event in replay_log(hand):
        if isinstance(event, CardDealt):
            dealt.setdefault(event.seat, []).append(card_text(event))
            if event.seat is not None:
                held[event.seat].append(event.card)
                if event.seat in tabled and not event.face_up and event.seat not in turned:
                    turned.append(event.seat)
            continue
        yield from deals()
        if isinstance(event, ActionTaken):
            verb = PHH_VERBS[event.type]
            line = f"{player[event.seat]} {verb}"
            if verb == "cbr":
                line += f" {event.to}"
            yield line + (" # timeout" if event.timeout else "")
        elif isinstance(event, HandsTabled):  # shown now, and again only with a new down card
            tabled.update(event.seats)
            yield from map(show, event.seats)
        elif isinstance(event, HandShown) and event.seat not in tabled:
            yield show(event.seat)
        elif isinstance(event, HandMucked):
            yield f"{player[event.seat]} sm"
    yield from deals()


def render(hand: Hand, meta: HandMeta, audience: Audience) -> str:
    """The hand's history as PHH text (TOML; each action on its own line)."""
    return tomli_w.dumps(phh_fields(hand, meta, audience))
