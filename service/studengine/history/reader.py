"""Read a PHH history and play it through the engine.

``parse(text)`` reads the fields (``tomllib``) into a ``History``: the variant, the table,
the starting stacks, the action lines each with its line number in the file.
``replay(history)`` plays it: the deck is rebuilt from the ``d dh`` lines (PHH players in
dealing order, ``p1`` on the dealer's left), every action must be legal for the engine at
that point, and the engine's finishing stacks are compared with ``finishing_stacks``
(and the rake it took, R-RAKE, with ``_rake`` when the history has one: the table's rake
options are read back from ``_rake_percent_bp`` and ``_rake_cap``).

Down cards a history hides (``??``) never change what is legal; the engine needs some
card there, so they are filled from the cards the history does not use, choosing a fill
with which no hidden hand is shown at the showdown (a hand the history kept hidden lost).
Any problem raises ``PhhError`` naming the line: a malformed file, an unknown variant, an
action the engine refuses (with the engine's reason and the legal moves).
"""

from __future__ import annotations

import dataclasses
import enum
import random
import re
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from studengine.cards import DECK_SIZE, format_card, parse_card
from studengine.history.codes import VARIANTS_BY_CODE
from studengine.history.phh import HIDDEN, STAKES
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import (
    ActionType,
    CardDealt,
    Event,
    HandShown,
    IllegalAction,
    InvalidHand,
    Table,
    Variant,
)
from studengine.rules.variants import VARIANTS

FILL_TRIES = 64  # fills of hidden cards tried before the showdown is called a difference


class PhhError(ValueError):
    """A history that cannot be read or played: the message names the line."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class Line:
    number: int  # in the file, 1-based
    text: str  # the action without its comment
    words: tuple[str, ...]


@dataclass(frozen=True)
class History:
    variant: Variant
    table: Table
    starting_stacks: list[int]
    actions: list[Line]
    finishing_stacks: list[int] | None
    rake: int | None  # `_rake`: the chips the table took (R-RAKE)
    hand: str | None
    players: list[str] | None
    text: str  # the file, to name the line of a field


@dataclass(frozen=True)
class Replayed:
    """What playing a history gave: the engine's finishing stacks (PHH order) and rake,
    and whether they are the history's (None: it records no finishing stacks; a history
    with no ``_rake`` is not checked on its rake)."""

    stacks: list[int]
    stacks_agree: bool | None
    actions: int  # betting actions played (not deals or showdown lines)
    rake: int = 0  # the chips the engine's table took (R-RAKE)


# ---- reading the fields -------------------------------------------------------------


def _key_line(text: str, key: str) -> int | None:
    found = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.MULTILINE)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def _field(
    text: str, data: dict[str, Any], key: str, kind: type, required: bool = True, item: type = int
) -> Any:
    if key not in data:
        if required:
            raise PhhError(None, f"missing field {key!r}")
        return None
    value = data[key]
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if ok and kind is list:
        ok = all(isinstance(v, item) and not isinstance(v, bool) for v in value)
    if not ok:
        items = "whole numbers" if item is int else "strings"
        what = f"a list of {items}" if kind is list else kind.__name__
        raise PhhError(_key_line(text, key), f"{key} must be {what}, got {value!r}")
    return value


def _table(text: str, data: dict[str, Any], players: int) -> Table:
    antes = _field(text, data, "antes", list)
    if len(antes) not in (1, players) or len(set(antes)) != 1:
        raise PhhError(_key_line(text, "antes"), "antes: one ante, the same for every player")
    values: dict[str, Any] = {"ante": antes[0]}
    for name in STAKES[1:]:
        values[name] = _field(text, data, name, int)
    values["open_pair_big_bet"] = False  # PHH's games have no open-pair big bet (R-OPEN-PAIR)
    for option in dataclasses.fields(Table):
        key = f"_{option.name}"
        if option.name in STAKES or key not in data:
            continue
        default = option.default
        value = data[key]
        try:
            if isinstance(default, enum.Enum):
                value = type(default)[value]
            elif not isinstance(value, type(default)) or isinstance(value, bool) != isinstance(
                default, bool
            ):
                raise TypeError
        except (KeyError, TypeError):
            raise PhhError(_key_line(text, key), f"{key}: not a valid value: {value!r}") from None
        values[option.name] = value
    return Table(**values)


def _action_lines(text: str, actions: list[Any]) -> list[Line]:
    """Each action with the line it is on (found in order after the ``actions`` key)."""
    start = _key_line(text, "actions") or 1
    cursor = sum(len(line) + 1 for line in text.split("\n")[: start - 1])
    lines = []
    for index, action in enumerate(actions):
        if not isinstance(action, str):
            raise PhhError(start, f"actions[{index}] is not a string: {action!r}")
        at = text.find(action, cursor)
        number = start if at < 0 else text.count("\n", 0, at) + 1
        if at >= 0:
            cursor = at + len(action)
        body = action.split("#", 1)[0].strip()
        lines.append(Line(number, body, tuple(body.split())))
    return lines


def parse(text: str) -> History:
    """The fields of a PHH history; PhhError names the line of what is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"line (\d+)", str(error))
        raise PhhError(int(found[1]) if found else None, f"not TOML: {error}") from None
    code = _field(text, data, "variant", str)
    variant = VARIANTS_BY_CODE.get(code)
    if variant is None:
        known = ", ".join(sorted(VARIANTS_BY_CODE))
        raise PhhError(_key_line(text, "variant"), f"variant {code!r} is not played here ({known})")
    stacks = _field(text, data, "starting_stacks", list)
    finishing = _field(text, data, "finishing_stacks", list, required=False)
    players = data.get("players")
    if finishing is not None and len(finishing) != len(stacks):
        raise PhhError(_key_line(text, "finishing_stacks"), "one finishing stack per player")
    return History(
        variant=variant,
        table=_table(text, data, len(stacks)),
        starting_stacks=stacks,
        actions=_action_lines(text, _field(text, data, "actions", list, item=str)),
        finishing_stacks=finishing,
        rake=_field(text, data, "_rake", int, required=False),
        hand=None if data.get("hand") is None else str(data["hand"]),
        players=[str(p) for p in players] if isinstance(players, list) else None,
        text=text,
    )


# ---- the deal ------------------------------------------------------------------------


def _player(line: Line, word: str, players: int) -> int:
    if re.fullmatch(r"p[1-9][0-9]*", word) and int(word[1:]) <= players:
        return int(word[1:]) - 1
    raise PhhError(line.number, f"{word!r} is not a player (p1 to p{players})")


def _cards(line: Line, text: str) -> list[int | None]:
    if len(text) % 2:
        raise PhhError(line.number, f"{text!r} is not a run of two-character cards")
    out: list[int | None] = []
    for i in range(0, len(text), 2):
        pair = text[i : i + 2]
        try:
            out.append(None if pair == HIDDEN else parse_card(pair))
        except ValueError as error:
            raise PhhError(line.number, str(error)) from None
    return out


Dealt = tuple[Line, int | None, list[int | None]]  # a ``d`` line: player (None: board), cards


@dataclass
class _Deal:
    """The deal as the history shows it: per street, its ``d`` lines and the players
    still in when it was dealt; each player's cards as the showdown showed them."""

    streets: list[tuple[list[Dealt], list[int]]]
    shown: dict[int, list[int | None]]


def _read_deal(history: History) -> _Deal:
    players = len(history.starting_stacks)
    deal = _Deal([], {})
    live = list(range(players))
    previous = ""
    for line in history.actions:
        words = line.words
        if words[:1] == ("d",):
            if words[1:2] == ("dh",) and len(words) == 4:
                dealt: Dealt = (line, _player(line, words[2], players), _cards(line, words[3]))
            elif words[1:2] == ("db",) and len(words) == 3:
                dealt = (line, None, _cards(line, words[2]))
            else:
                raise PhhError(line.number, f"{line.text!r} is not a stud deal (d dh / d db)")
            # a street's deal is a run of ``d dh`` lines, one per player, or the community
            # card alone; a player dealt again with no action between starts the next one
            if previous != "d" or any(
                d[1] == dealt[1] or None in (d[1], dealt[1]) for d in deal.streets[-1][0]
            ):
                deal.streets.append(([], list(live)))
            deal.streets[-1][0].append(dealt)
        elif len(words) == 2 and words[1] == "f":
            live = [p for p in live if p != _player(line, words[0], players)]
        elif len(words) == 3 and words[1] == "sm" and words[2] != "-":
            shown = _cards(line, words[2])  # "????" keeps a card down: what is known stays
            known = deal.shown.setdefault(_player(line, words[0], players), [])
            known.extend([None] * (len(shown) - len(known)))
            for at, card in enumerate(shown):
                known[at] = known[at] if card is None else card
        previous = words[0] if words else previous
    return deal


def _dealing_order(deal: _Deal) -> list[tuple[Line, int | None, int | None]]:
    """Each card in the order the engine deals it (R-DEAL-ORDER: one card at a time to the
    players still in, the community card when the deck cannot go round): its line, its
    player (None: board) and the card (None: hidden)."""
    order: list[tuple[Line, int | None, int | None]] = []
    got: dict[int, int] = {}  # cards dealt to each player so far
    for lines, live in deal.streets:
        cards = {player: list(c) for _, player, c in lines}
        where = {player: line for line, player, _ in lines}
        for line, player, _ in lines:
            if player is not None and player not in live:
                raise PhhError(line.number, f"{line.text!r}: p{player + 1} has folded")
        rounds = max(len(c) for c in cards.values())
        for _ in range(rounds):
            if DECK_SIZE - len(order) < len(live) and None in cards:  # R-COMMUNITY-CARD
                order.append((where[None], None, cards[None].pop(0)))
                continue
            for player in live:
                if not cards.get(player):
                    line = lines[0][0]
                    raise PhhError(line.number, f"this street deals p{player + 1} too few cards")
                card = cards[player].pop(0)
                if card is None:  # the showdown may tell it
                    shown = deal.shown.get(player, [])
                    at = got.get(player, 0)
                    card = shown[at] if at < len(shown) else None
                got[player] = got.get(player, 0) + 1
                order.append((where[player], player, card))
        for player, rest in cards.items():
            if rest:
                line = where[player]
                raise PhhError(line.number, f"{line.text!r}: more cards than this street deals")
    return order


def _weakest_fill(
    variant: Variant,
    order: list[tuple[Line, int | None, int | None]],
    unused: list[int],
    first: int = 0,
) -> list[int]:
    """Fillers for the hidden cards, player by player the ones that make each hand the
    weakest it can be under the variant's rankings (a hidden hand lost, if it showed down;
    in Stud Hi-Lo it won no half of any pot, R-HILO-MUCK: the weakest low first, no
    qualifying low at all when it can, then the weakest high). Greedy: the hidden hands
    take their cards in turn from the ``first``-th on, so the last ones may get the
    leftovers; the caller tries each starting player."""
    spec = VARIANTS[variant]
    rankings = [r.rank for r in (spec.low_ranking, spec.ranking) if r is not None]

    def strength(cards: list[int]) -> tuple[int, ...]:
        return tuple(rank(cards) for rank in rankings)

    board = [card for _, player, card in order if player is None and card is not None]
    pool = list(unused)
    chosen: dict[int, list[int]] = {}
    players = {player for _, player, card in order if player is not None and card is None}
    turns = sorted(players)
    for player in turns[first:] + turns[:first]:
        known = [c for _, p, c in order if p == player and c is not None] + board
        need = sum(1 for _, p, c in order if p == player and c is None)
        if len(known) + need >= 5 and need <= 3:
            pick = min(combinations(pool, need), key=lambda combo: strength([*known, *combo]))
        else:
            pick = tuple(pool[:need])
        chosen[player] = list(pick)
        pool = [c for c in pool if c not in pick]
    fill: list[int] = []
    for _, holder, card in order:
        if card is None:
            fill.append(chosen[holder].pop(0) if holder is not None else pool.pop(0))
    return fill + pool


def _decks(deal: _Deal, variant: Variant, seed: str) -> Iterator[tuple[list[int], set[int]]]:
    """Decks in the engine's dealing order: the cards the history shows, each hidden one
    filled (first so that each hidden hand is at its weakest, the hidden hands choosing
    in turn from each one on, then at random); with each, the positions filled."""
    order = _dealing_order(deal)
    seen: set[int] = set()
    for line, _, card in order:
        if card is not None:
            if card in seen:
                raise PhhError(line.number, f"{format_card(card)} is dealt twice")
            seen.add(card)
    if len(order) > DECK_SIZE:
        raise PhhError(order[-1][0].number, f"more than {DECK_SIZE} cards dealt")
    unused = [c for c in range(DECK_SIZE) if c not in seen]
    holes = {i for i, (_, _, card) in enumerate(order) if card is None}
    rng = random.Random(seed)
    hidden_hands = len({player for _, player, card in order if card is None})
    weakest = hidden_hands if holes else 1
    for attempt in range(weakest + FILL_TRIES if holes else 1):
        fill = (
            _weakest_fill(variant, order, unused, attempt)
            if attempt < weakest
            else rng.sample(unused, len(unused))
        )
        spare = iter(fill)
        deck = [next(spare) if card is None else card for _, _, card in order]
        yield deck + list(spare), holes


# ---- playing it ----------------------------------------------------------------------


def _act(hand: Hand, line: Line, players: int) -> list[Event]:
    """One action line applied to the engine (PhhError with the engine's reason)."""
    words = line.words
    seat = _player(line, words[0], players)
    verb, rest = words[1], words[2:]
    try:
        if verb == "f" and not rest:
            return hand.act(seat, ActionType.FOLD)
        if verb == "cc" and not rest:
            check = hand.can(seat, ActionType.CHECK)
            return hand.act(seat, ActionType.CHECK if check else ActionType.CALL)
        if verb == "pb" and not rest:
            return hand.act(seat, ActionType.BRING_IN)
        if verb == "cbr" and len(rest) == 1 and rest[0].isdigit():
            to = int(rest[0])
            for kind in (ActionType.COMPLETE, ActionType.BET, ActionType.RAISE):
                if hand.can(seat, kind, to):
                    return hand.act(seat, kind, to)
            legal = ", ".join(map(str, hand.legal_actions())) or "none"
            raise PhhError(line.number, f"{line.text!r}: no bet or raise to {to} (legal: {legal})")
    except IllegalAction as refused:
        raise PhhError(line.number, f"{line.text!r} is not legal: {refused}") from None
    raise PhhError(line.number, f"{line.text!r} is not a PHH action")


def _play(history: History, deck: list[int]) -> tuple[Hand, set[int]]:
    """The history played on ``deck``: the hand, and the seats the engine showed."""
    players = len(history.starting_stacks)
    try:
        hand, events = start_hand(
            history.variant, history.table, history.starting_stacks, players - 1, deck
        )
    except InvalidHand as error:  # named by the PHH field it comes from
        field = error.field.split("[")[0].removeprefix("table.")
        key = {"players": "starting_stacks", "ante": "antes", "button": "starting_stacks"}
        where = _key_line(history.text, key.get(field, field))
        raise PhhError(where, f"not a hand the engine can start: {error}") from None
    pending = [e for e in events if isinstance(e, CardDealt)]
    shown = {e.seat for e in events if isinstance(e, HandShown)}
    for line in history.actions:
        words = line.words
        if not words:
            continue
        if words[0] == "d":
            _check_deal(line, pending, players)
            continue
        if len(words) >= 2 and words[1] == "sm":  # the engine shows and mucks by R-MUCK;
            _player(line, words[0], players)  # an all-in showdown may come before the deals
            continue
        if pending:
            who = "the board" if pending[0].seat is None else f"p{pending[0].seat + 1}"
            raise PhhError(line.number, f"{line.text!r} comes before the deal to {who}")
        if hand.over:
            raise PhhError(line.number, f"{line.text!r}: the hand is already over")
        events = _act(hand, line, players)
        pending = [e for e in events if isinstance(e, CardDealt)]
        shown |= {e.seat for e in events if isinstance(e, HandShown)}
    if not hand.over:
        last = history.actions[-1].number if history.actions else None
        raise PhhError(
            last, f"the history ends before the hand does (p{(hand.to_act or 0) + 1} to act)"
        )
    return hand, shown


def _check_deal(line: Line, pending: list[CardDealt], players: int) -> None:
    """A ``d`` line must be the engine's next deal: same player, same cards."""
    words = line.words
    board = words[1] == "db"
    target = None if board else _player(line, words[2], players)
    count = len(words[-1]) // 2
    mine = [e for e in pending if e.seat == target][:count]
    if len(mine) < count or (pending and pending[0].seat != target):
        who = "the board" if target is None else words[2]
        raise PhhError(line.number, f"{line.text!r}: the engine deals no such cards to {who} now")
    for event in mine:
        pending.remove(event)


def replay(history: History) -> Replayed:
    """Play ``history`` through the engine; PhhError names the first line it refuses."""
    deal = _read_deal(history)
    for deck, holes in _decks(deal, history.variant, history.hand or "phh"):
        hand, shown = _play(history, deck)
        if not any(
            position in holes for seat in shown for position in _positions(hand, deck, seat)
        ):
            break  # no hand the history hides was shown: this fill is as good as any
    stacks = list(hand.stacks)
    rake = 0 if hand.result is None else hand.result.rake
    agree = None if history.finishing_stacks is None else stacks == history.finishing_stacks
    if agree is not None and history.rake is not None:
        agree = agree and rake == history.rake
    moves = [line for line in history.actions if line.words[:1] not in (("d",), ())]
    played = sum(1 for line in moves if line.words[1:2] != ("sm",))
    return Replayed(stacks, agree, played, rake)


def _positions(hand: Hand, deck: Sequence[int], seat: int) -> list[int]:
    where = {card: i for i, card in enumerate(deck)}
    return [where[card] for card in hand.cards[seat]]


def dealt_cards(history: History) -> list[tuple[int, int | None]]:
    """Each card the history deals, in the order the engine deals it (R-DEAL-ORDER): its
    line number and the card (None: hidden, ``??``, and not shown at the showdown), so
    that the n-th is the deck's n-th card. PhhError names a line that cannot be read."""
    return [(line.number, card) for line, _, card in _dealing_order(_read_deal(history))]
