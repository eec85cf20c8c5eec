"""``stud-verify FILE.phh...``: check the proof of each hand's deal in its history (issue
32), with no server and no key.

A hand dealt with a deal ticket: ``_deal_commitment`` is SHA-256 of ``_server_seed``; the
deck is ``studengine.deal``'s function of the seed, the hand id (``hand``) and
``_contributions`` and is the history's ``_deck`` (whose ``_deck_commitment`` holds with
``_salt``); every card the history deals (``actions``, a hidden ``??`` skipped) is that
deck's, in dealing order. A hand dealt without one (an audit history): the deck commitment,
SHA-256 of hand id || salt || deck, and the cards dealt. A players' history of a hand
dealt without a ticket carries no deck, so nothing to check it by: refused.

One line per file: ``ok`` with what was checked, or ``FAILED`` naming the field that does
not hold (``_server_seed``, ``_contributions``, ``_deck``, ``actions`` with its line...),
then a total. Exit status 0 when every file passes, 1 otherwise (2 for bad usage).
"""

from __future__ import annotations

import hashlib
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studengine.cards import DECK_SIZE, format_card, parse_cards
from studengine.deal import commitment, deal_deck
from studengine.history.cli import check_files
from studengine.history.reader import PhhError, dealt_cards, parse

HAND_ID_BYTES = 16
SALT_BYTES = 32


class ProofFailed(ValueError):
    """A history whose proof does not hold: the field, and why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field


def _hex(data: dict[str, Any], field: str, size: int | None = None) -> bytes:
    value = data.get(field)
    if not isinstance(value, str):
        raise ProofFailed(field, "absent" if value is None else "not a hex string")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise ProofFailed(field, "not hex") from None
    if size is not None and len(raw) != size:
        raise ProofFailed(field, f"{len(raw)} bytes, expected {size}")
    return raw


def _deck(data: dict[str, Any]) -> list[int]:
    text = data.get("_deck")
    if not isinstance(text, str):
        raise ProofFailed("_deck", "absent (a players' history of a hand dealt without a "
                          "deal ticket carries no proof; its audit history does)")  # fmt: skip
    try:
        deck = parse_cards([text[i : i + 2] for i in range(0, len(text), 2)])
    except ValueError as error:
        raise ProofFailed("_deck", str(error)) from None
    if sorted(deck) != list(range(DECK_SIZE)):
        raise ProofFailed("_deck", "not the 52 cards, each once")
    return deck


def _check_deck_commitment(data: dict[str, Any], hand_id: bytes, deck: list[int]) -> None:
    """The deck commitment of every hand: SHA-256 of hand id || salt || deck."""
    salt = _hex(data, "_salt", SALT_BYTES)
    expected = hashlib.sha256(hand_id + salt + bytes(deck)).hexdigest()
    if data.get("_deck_commitment") != expected:
        raise ProofFailed("_deck", "does not match _deck_commitment with _salt and the hand id")


def _check_ticket_deal(data: dict[str, Any], hand_id: bytes, deck: list[int]) -> str:
    """A ticket's proof: the seed behind the commitment, the deck its function."""
    seed = _hex(data, "_server_seed")
    if data.get("_deal_commitment") != commitment(seed).hex():
        raise ProofFailed("_server_seed", "its SHA-256 is not _deal_commitment")
    given = data.get("_contributions")
    if not isinstance(given, list) or not given:
        raise ProofFailed("_contributions", "absent or empty")
    try:
        contributions = [bytes.fromhex(c) for c in given]
    except (TypeError, ValueError):
        raise ProofFailed("_contributions", "not a list of hex strings") from None
    if len(contributions) != len(data.get("starting_stacks", ())):
        raise ProofFailed("_contributions", "not one per player")
    try:
        expected = deal_deck(seed, hand_id, contributions)
    except ValueError as error:
        field = "_server_seed" if str(error).startswith("server_seed") else "_contributions"
        raise ProofFailed(field, str(error)) from None
    if expected != deck:
        first = next(i for i, (a, b) in enumerate(zip(expected, deck, strict=True)) if a != b)
        raise ProofFailed(
            "_contributions",
            f"seed, hand id and contributions give another deck (card {first + 1}: "
            f"{format_card(expected[first])}, the history's _deck {format_card(deck[first])})",
        )
    return f"deal commitment {data['_deal_commitment'][:16]}..., {len(contributions)} contributions"


def verify_text(text: str) -> str:
    """What was checked in one history; ProofFailed (or PhhError) when a check fails."""
    history = parse(text)
    data = tomllib.loads(text)
    hand_id = _hex(data, "hand", HAND_ID_BYTES)
    deck = _deck(data)
    _check_deck_commitment(data, hand_id, deck)
    what = "deck commitment"
    if "_server_seed" in data or "_deal_commitment" in data:
        what = _check_ticket_deal(data, hand_id, deck)
    checked = 0
    for position, (line, card) in enumerate(dealt_cards(history)):
        if card is None:
            continue
        if card != deck[position]:
            raise ProofFailed(
                "actions",
                f"line {line}: card {position + 1} dealt is {format_card(card)}, the deck's "
                f"is {format_card(deck[position])}",
            )
        checked += 1
    return f"hand {data['hand']}: {what}, {checked} cards dealt from the deck"


def check_file(path: Path) -> tuple[bool, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return False, f"{path}: FAILED cannot read: {error}"
    try:
        return True, f"{path}: ok ({verify_text(text)})"
    except ProofFailed as failed:
        return False, f"{path}: FAILED {failed}"
    except PhhError as error:
        return False, f"{path}: FAILED not a readable history: {error}"


def main(argv: Sequence[str] | None = None) -> int:
    description = "Check the proof of each hand's deal in its PHH history (no server, no key)."
    return check_files("stud-verify", description, check_file, argv)


if __name__ == "__main__":
    sys.exit(main())
