"""What one browser is sent: the table from its seat, built here from that seat's engine
view only (never the spectator-plus-everything HandUpdate, never the deck reveal), plus the
clients' one narration (``studclients.narration``) of that seat's own filtered events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.client import VARIANT_NAMES
from studclients.narration import narrate

__all__ = [
    "ACTIONS",
    "GAMES",
    "action_label",
    "game_name",
    "hand_view",
    "legal_moves",
    "narrate",
    "parse_update",
]

GAMES: dict[int, str] = VARIANT_NAMES  # the four games, Razz and Hi-Lo included
#: Action names on the wire (JSON) and their engine values.
ACTIONS: dict[str, int] = {
    "fold": pb.ACTION_TYPE_FOLD,
    "check": pb.ACTION_TYPE_CHECK,
    "call": pb.ACTION_TYPE_CALL,
    "bring_in": pb.ACTION_TYPE_BRING_IN,
    "complete": pb.ACTION_TYPE_COMPLETE,
    "bet": pb.ACTION_TYPE_BET,
    "raise": pb.ACTION_TYPE_RAISE,
}
ACTION_NAMES: dict[int, str] = {value: key for key, value in ACTIONS.items()}


def parse_update(data: bytes) -> pb.HandUpdate:
    """A stored update (the database's ``update`` column) read back."""
    update = pb.HandUpdate()
    update.ParseFromString(data)
    return update


def game_name(variant: int) -> str:
    return GAMES.get(variant, pb.Variant.Name(variant).removeprefix("VARIANT_").title())  # type: ignore[arg-type]


def action_label(legal: pb.LegalAction, round_bet: int) -> str:
    """The button's words: ``Call 10``, ``Raise to 40``, ``Bring in 10``."""
    kind = legal.type
    if kind == pb.ACTION_TYPE_FOLD:
        return "Fold"
    if kind == pb.ACTION_TYPE_CHECK:
        return "Check"
    if kind == pb.ACTION_TYPE_CALL:
        return f"Call {legal.to - round_bet}"
    if kind == pb.ACTION_TYPE_BRING_IN:
        return f"Bring in {legal.to}"
    if kind == pb.ACTION_TYPE_COMPLETE:
        return f"Complete to {legal.to}"
    if kind == pb.ACTION_TYPE_BET:
        return f"Bet {legal.to}"
    return f"Raise to {legal.to}"


def seat_cards(info: pb.SeatInfo) -> list[dict[str, Any]]:
    """Each card in dealing order: ``{"card": "As" or None, "up": bool}``; None is a card the
    viewer may not see (the engine already blanked it)."""
    ups = set(info.up_cards)
    return [{"card": card or None, "up": bool(card) and card in ups} for card in info.cards]


def hand_view(
    update: pb.HandUpdate,
    hand: Any,
    engine_seat: int | None,
    names: Sequence[str],
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The hand part of a seat's page, and per table seat what the seat shows of the hand
    (cards, bets), both from ``update.seats[engine_seat]`` (or the spectator view)."""
    view = update.seats[engine_seat] if engine_seat is not None else update.spectator
    seat_map: list[int] = list(hand.seat_map)
    per_seat: dict[int, dict[str, Any]] = {}
    for info in view.seats:
        per_seat[seat_map[info.seat]] = {
            "stack": info.stack,
            "committed": info.committed,
            "round_bet": info.round_bet,
            "folded": info.folded,
            "all_in": info.all_in,
            "cards": seat_cards(info),
            "revealed": info.revealed,
            "tabled": info.tabled,  # R-ALL-IN-FACE-UP: every card of it face up to everyone
            "in_hand": True,
        }
    part: dict[str, Any] = {
        "id": hand.hand_id,
        "number": hand.number,
        "seq": hand.seq,
        "street": view.street_name,
        "pot": view.pot,
        "community_card": view.community_card if view.HasField("community_card") else None,
        "button": seat_map[view.button],
        "to_act": None if hand.to_act is None else seat_map[hand.to_act],
        "deadline": None if hand.deadline is None else int(hand.deadline * 1000),
        "over": bool(hand.over),
        "shown": [],
        "pots": [],
    }
    if hand.over:
        # the result as this seat's events tell it (shown hands only: mucked ones never)
        for event in view.events:
            kind = event.WhichOneof("kind")
            if kind == "hand_shown":
                shown = event.hand_shown
                part["shown"].append(
                    {
                        "seat": seat_map[shown.seat],
                        "name": names[shown.seat],
                        "cards": list(shown.cards),
                        "best_five": list(shown.best_five),
                        "description": shown.description,
                        "low_best_five": list(shown.low_best_five),
                        "low_description": shown.low_description,
                    }
                )
            elif kind == "pot_awarded":
                pot = event.pot_awarded
                part["pots"].append(
                    {
                        "amount": pot.amount,
                        "winners": [names[w] for w in pot.winners],
                        "shares": list(pot.shares),
                        "description": pot.description,
                        "low_winners": [names[w] for w in pot.low_winners],
                        "low_shares": list(pot.low_shares),
                        "low_description": pot.low_description,
                    }
                )
    return part, per_seat


def legal_moves(update: pb.HandUpdate, engine_seat: int) -> list[dict[str, Any]]:
    """The moves open to ``engine_seat`` now (empty unless it is the seat to act)."""
    if update.over or not update.HasField("to_act") or update.to_act != engine_seat:
        return []
    round_bet = update.seats[engine_seat].seats[engine_seat].round_bet
    moves = []
    for legal in update.legal_actions:
        move: dict[str, Any] = {"action": ACTION_NAMES[legal.type]}
        if legal.HasField("to"):
            move["to"] = legal.to
        move["label"] = action_label(legal, round_bet)
        moves.append(move)
    return moves
