"""The named checks of a decoded state (``studengine.state.codec.decode``): one per
invariant an engine state keeps, each refusal a ``StateInvalid`` that says precisely what
is wrong (for tests and logs: callers only ever get the one uniform answer)."""

from __future__ import annotations

from collections.abc import Sequence, Sized
from typing import Final

from studengine.cards import DECK_SIZE
from studengine.rules.types import InvalidHand, Pot, Table
from studengine.rules.validation import validate_game
from studengine.rules.variants import VariantSpec

_DECK_SIZE: Final = DECK_SIZE  # Final: read directly by the compiled build


class StateInvalid(ValueError):
    """The bytes are not a state this server made (the reason is for tests and logs only)."""


def _check(ok: bool, why: str) -> None:
    """Refuse unless ``ok`` (a refusal whose reason has values in it raises in place
    instead: an f-string would be formatted on every call, refused or not)."""
    if not ok:
        raise StateInvalid(why)


def check_seat_count(spec: VariantSpec, players: int) -> None:
    if not spec.min_players <= players <= spec.max_players:
        raise StateInvalid(
            f"{players} players: {spec.variant.value} takes"
            f" {spec.min_players} to {spec.max_players}"
        )


def check_seat_lists(names: tuple[str, ...], lists: tuple[Sized, ...], players: int) -> None:
    """Every per-seat list (``lists``, of the fields ``names``) has one entry per player."""
    for at in range(len(lists)):
        size = len(lists[at])
        if size != players:
            raise StateInvalid(f"{names[at]} has {size} entries for {players} players")


def check_chip_amounts(
    starting: list[int], stacks: list[int], committed: list[int], round_bets: list[int]
) -> None:
    """Starting stacks are positive, stacks, committed chips and round bets not negative,
    no round bet above the seat's committed chips (one entry per seat each, from
    ``check_seat_lists``): one pass over the seats, the reasons given in that order."""
    starting_ok = stacks_ok = committed_ok = bets_ok = bets_within = True
    for seat in range(len(starting)):
        put, bet = committed[seat], round_bets[seat]
        if starting[seat] <= 0:
            starting_ok = False
        if stacks[seat] < 0:
            stacks_ok = False
        if put < 0:
            committed_ok = False
        if bet < 0:
            bets_ok = False
        if bet > put:
            bets_within = False
    _check(starting_ok, "a starting stack is not positive")
    _check(stacks_ok, "a stack is negative")
    _check(committed_ok, "a committed amount is negative")
    _check(bets_ok, "a round bet is negative")
    _check(bets_within, "a round bet is above the seat's committed chips")


def check_chips_conserved(
    starting: list[int], stacks: list[int], committed: list[int], rake: int
) -> None:
    """R-CONSERVATION: stacks plus chips committed to the pot (plus the rake taken, once
    the hand is over, R-RAKE) are the starting stacks."""
    have, had = rake, 0
    for seat in range(len(starting)):  # one entry per seat each (check_seat_lists)
        have += stacks[seat] + committed[seat]
        had += starting[seat]
    if have != had:
        raise StateInvalid(f"chips not conserved: {have} in play and raked, {had} at the start")


def check_rake(rake: int, pots: Sequence[Pot]) -> None:
    """R-RAKE: the result's rake is what its pots gave up, never negative."""
    _check(rake >= 0, "result: a negative rake")
    from_pots = sum(p.rake for p in pots)
    if rake != from_pots:
        raise StateInvalid(f"result: rake {rake}, the pots gave up {from_pots}")


def check_game_options(spec: VariantSpec, table: Table) -> None:
    """The table's options exist in the game (no open-pair option in Razz or Hi-Lo)."""
    try:
        validate_game(spec, table)
    except InvalidHand as error:
        raise StateInvalid(f"{error.field}: {error.reason}") from None


_WHOLE_DECK: Final = bytes(range(DECK_SIZE))
_CARD: Final = tuple(bytes([card]) for card in range(DECK_SIZE))


def _covers(cards: bytes, wanted: bytes) -> bool:
    """Every byte of ``wanted`` is among ``cards`` (one C pass each: ``translate``
    deletes them from ``wanted``)."""
    return not wanted.translate(None, cards)


def check_deck(raw_deck: bytes, dealt: int) -> None:
    """The deck is the 52 cards once each, and no more than the deck is dealt: 52 entries
    among which each of the 52 cards is found are the 52 cards once each (none is left
    for a card seen twice or one out of range)."""
    _check(
        len(raw_deck) == _DECK_SIZE and _covers(raw_deck, _WHOLE_DECK),
        "the deck is not the 52 cards once each",
    )
    if dealt > _DECK_SIZE:
        raise StateInvalid(f"{dealt} cards dealt from a deck of {_DECK_SIZE}")


_NOT_DEALT: Final = "the cards in play are not the ones dealt"


def check_cards_dealt(
    spec: VariantSpec, raw_cards: list[bytes], community: int | None, raw_deck: bytes, dealt: int
) -> None:
    """The seats' cards (and the community card) are exactly the deck's first ``dealt``
    (a deck that ``check_deck`` passed: those are ``dealt`` different cards). ``dealt``
    cards in play among which each dealt card is found are those cards once each."""
    most = spec.cards_per_player
    for held in raw_cards:
        if len(held) > most:
            raise StateInvalid(f"a seat holds {max(map(len, raw_cards))} cards, at most {most}")
    in_play = b"".join(raw_cards)
    if community is not None:
        _check(community < _DECK_SIZE, _NOT_DEALT)
        in_play += _CARD[community]
    _check(len(in_play) == dealt and _covers(in_play, raw_deck[:dealt]), _NOT_DEALT)


def check_round(
    spec: VariantSpec, street: int, level: int, full_level: int, over: bool, has_result: bool
) -> None:
    if street >= len(spec.streets):
        raise StateInvalid(f"street {street} is not one of the variant's")
    _check(level >= 0 and full_level >= 0, "a negative betting level")
    _check(over == has_result, "over and result disagree")


def check_to_act(to_act: int | None, over: bool, folded: list[bool], stacks: list[int]) -> None:
    """A seat to act is in a hand not over, has not folded and has chips."""
    if to_act is None:
        return
    _check(not over, "a seat to act in a hand that is over")
    if folded[to_act]:
        raise StateInvalid(f"seat {to_act} to act has folded")
    if stacks[to_act] <= 0:
        raise StateInvalid(f"seat {to_act} to act has no chips")


def check_tabled(tabled: list[int], table: Table, folded: list[bool], to_act: int | None) -> None:
    """R-ALL-IN-FACE-UP: hands are tabled only on a table with the option, once nobody is
    to act; the tabled seats are in seat order, once each, and none has folded."""
    if not tabled:
        return
    _check(table.all_in_face_up, "hands tabled on a table without all_in_face_up")
    _check(to_act is None, "a seat to act after the hands were tabled")
    _check(tabled == sorted(set(tabled)), "tabled seats are not in seat order, once each")
    _check(not any(folded[seat] for seat in tabled), "a tabled seat has folded")
