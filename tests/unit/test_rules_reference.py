"""A slow, plain reference of the legal moves, written from the rulebook's text and fed
only the hand's events (what a spectator saw), compared with the engine's
``legal_actions`` at every decision of thousands of random hands: every table option,
``small_bet == big_bet`` tables, short stacks (R-ACTIONS, R-LEGAL-ONCE, R-BRING-IN-*,
R-SHORT-BRING-IN, R-ANTE-ALL-IN-LOW, R-CAP, R-OPEN-PAIR, R-HALF-BET, R-TABLE-STAKES), in
all four games (Razz brings in by the highest card, R-RAZZ-BRING-IN) and on raked tables;
and, on tables with ``all_in_face_up``, where the hands are tabled (R-ALL-IN-FACE-UP).

Nothing here uses the engine's betting code or its round state: the reference replays
the events of the current round from scratch for each decision.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from studengine.cards import format_card
from studengine.rules.hand import start_hand
from studengine.rules.types import (
    ActionTaken,
    ActionType,
    AntePosted,
    CardDealt,
    Event,
    HandMucked,
    HandShown,
    HandsTabled,
    OddChip,
    PotAwarded,
    RakeTaken,
    StreetStarted,
    Table,
    UncalledReturned,
    Variant,
)

FOLD, CHECK, CALL = "FOLD", "CHECK", "CALL"
BRING_IN, COMPLETE, BET, RAISE = "BRING_IN", "COMPLETE", "BET", "RAISE"
AGGRESSIVE = {COMPLETE, BET, RAISE}
# R-LIMITS-5S / R-LIMITS-7S: which betting rounds use the big bet, written out here
SEVEN_ROUNDS = [False, False, True, True, True]  # Razz and Hi-Lo bet as Seven Card Stud
BIG_ROUNDS = {
    Variant.FIVE_CARD_STUD: [False, False, True, True],
    Variant.SEVEN_CARD_STUD: SEVEN_ROUNDS,
    Variant.RAZZ: SEVEN_ROUNDS,
    Variant.SEVEN_CARD_STUD_HI_LO: SEVEN_ROUNDS,
}
OPEN_PAIR_ROUND = 1  # R-OPEN-PAIR: the second betting round
OPEN_PAIR_GAMES = {Variant.FIVE_CARD_STUD, Variant.SEVEN_CARD_STUD}  # section 7: not the others
PLAYERS = {Variant.FIVE_CARD_STUD: (2, 10)}  # R-SEATS: the seven-card games seat 2 to 8

Move = tuple[str, int | None]


def card_order(card: int) -> tuple[int, int]:
    """(rank, suit) from the card's text: 2 lowest, ace highest; clubs < diamonds <
    hearts < spades (R-BRING-IN-WHO, R-SUITS)."""
    text = format_card(card)
    return "23456789TJQKA".index(text[0]), "cdhs".index(text[1])


def razz_card_order(card: int) -> tuple[int, int]:
    """(rank, suit) with the ace lowest and the king highest (R-RAZZ-BRING-IN)."""
    text = format_card(card)
    return "A23456789TJQK".index(text[0]), "cdhs".index(text[1])


@dataclass
class Seen:
    """What the events say about the hand at the current decision."""

    stacks: list[int]
    folded: list[bool]
    up_cards: list[list[int]]  # up cards each player held when the current round began
    in_at_start: list[bool]  # in the hand when the current round began
    stacks_at_start: list[int]
    round_index: int
    actions: list[ActionTaken]  # this round's actions, in order


def replay(starting: list[int], events: list[Event]) -> Seen:
    players = len(starting)
    stacks = list(starting)
    folded = [False] * players
    up: list[list[int]] = [[] for _ in range(players)]
    seen = Seen(stacks, folded, [], [], [], -1, [])
    for event in events:
        if isinstance(event, AntePosted):
            stacks[event.seat] -= event.amount
        elif isinstance(event, CardDealt) and event.face_up and event.seat is not None:
            up[event.seat].append(event.card)
        elif isinstance(event, StreetStarted) and event.betting:
            seen.round_index = event.street
            seen.actions = []
            seen.up_cards = [list(cards) for cards in up]
            seen.in_at_start = [not f for f in folded]
            seen.stacks_at_start = list(stacks)
        elif isinstance(event, ActionTaken):
            stacks[event.seat] -= event.amount
            if event.type is ActionType.FOLD:
                folded[event.seat] = True
            seen.actions.append(event)
    return seen


def reference_legal(variant: Variant, table: Table, seen: Seen, me: int) -> list[Move]:
    """The legal moves of ``me``, straight from the rulebook."""
    players = len(seen.stacks)
    bets = [0] * players
    for action in seen.actions:
        bets[action.seat] = action.to  # an action's ``to`` is the seat's round total after it
    everything = bets[me] + seen.stacks[me]  # R-TABLE-STAKES: all I could have in

    def others_can_answer(current: int) -> bool:
        """R-ACTIONS: another player in the hand could put in more than the current bet."""
        return any(
            p != me and not seen.folded[p] and bets[p] + seen.stacks[p] > current
            for p in range(players)
        )

    # ---- the first round until someone brings in or completes (R-BRING-IN-*)
    if seen.round_index == 0 and all(a.type is ActionType.FOLD for a in seen.actions):
        starters = [p for p in range(players) if seen.in_at_start[p]]
        first_up = {p: seen.up_cards[p][0] for p in starters}
        if variant is Variant.RAZZ:  # R-RAZZ-BRING-IN: the highest card, ace low
            low = max(starters, key=lambda p: razz_card_order(first_up[p]))
        else:
            low = min(starters, key=lambda p: card_order(first_up[p]))
        moves: list[Move] = []
        if seen.stacks_at_start[low] == 0:  # R-ANTE-ALL-IN-LOW: an opener who may fold
            moves.append((FOLD, None))
        moves.append((BRING_IN, min(table.bring_in, everything)))
        if everything > table.bring_in and others_can_answer(0):
            moves.append((COMPLETE, min(table.small_bet, everything)))
        return moves

    # ---- replay the round: the level, full bets, who may still raise
    big_round = BIG_ROUNDS[variant][seen.round_index]
    open_pair = (
        table.open_pair_big_bet
        and seen.round_index == OPEN_PAIR_ROUND
        and any(
            len({card_order(c)[0] for c in seen.up_cards[p]}) < len(seen.up_cards[p])
            for p in range(players)
            if seen.in_at_start[p]
        )
    )
    level = full_level = full_bets = 0
    big_made = uncapped = False
    acted_since_full: set[int] = set()
    live = list(seen.in_at_start)
    stacks = list(seen.stacks_at_start)
    round_bets = [0] * players

    def full_bet() -> int:  # R-HALF-BET: the round's bet size
        return table.big_bet if big_round or (open_pair and big_made) else table.small_bet

    def heads_up_check() -> bool:  # R-CAP option
        able = [p for p in range(players) if live[p] and stacks[p] > 0]
        capped = full_bets >= table.max_bets
        return table.uncapped_heads_up and not capped and len(able) == 2

    uncapped = heads_up_check()
    for action in seen.actions:
        seat, kind = action.seat, action.type.value
        if kind == FOLD:
            live[seat] = False
        stacks[seat] -= action.to - round_bets[seat]
        round_bets[seat] = action.to
        if kind == BRING_IN:
            level = table.bring_in  # a short bring-in is still called in full
        elif kind not in (FOLD, CHECK) and action.to > level:
            added = action.to - full_level
            if 2 * added >= full_bet():  # R-HALF-BET: a full bet or raise
                if open_pair and added >= table.big_bet:
                    big_made = True
                full_level = action.to
                full_bets += 1
                acted_since_full = set()
            level = action.to
        acted_since_full.add(seat)
        uncapped = uncapped or heads_up_check()

    moves = []
    if bets[me] < level:
        moves += [(FOLD, None), (CALL, min(level, everything))]
    else:
        moves.append((CHECK, None))
    may_raise = (
        everything > level  # more than a call
        and me not in acted_since_full  # R-HALF-BET: a short all-in reopens nothing
        and (uncapped or full_bets < table.max_bets)  # R-CAP
        and others_can_answer(level)  # R-ACTIONS
    )
    if may_raise:
        kind = RAISE if full_bets else (BET if level == 0 else COMPLETE)
        # R-OPEN-PAIR: small or big until a big bet or raise is made
        sizes = [table.small_bet, table.big_bet] if open_pair and not big_made else [full_bet()]
        for to in sorted({min(full_level + size, everything) for size in sizes}):
            moves.append((kind, to))  # R-LEGAL-ONCE: each total once
    return moves


def random_table(rng: random.Random, variant: Variant) -> Table:
    small = rng.choice([2, 4, 10, 20, 40])
    return Table(
        ante=rng.choice([0, 1, small // 4, small // 2, small]),
        bring_in=rng.randint(1, small - 1),
        small_bet=small,
        big_bet=small * rng.choice([1, 1, 2, 3]),  # equal sizes often (R-LEGAL-ONCE)
        max_bets=rng.choice([1, 2, 3, 4, 5]),
        uncapped_heads_up=rng.random() < 0.5,
        open_pair_big_bet=variant in OPEN_PAIR_GAMES and rng.random() < 0.8,
        odd_chip=rng.choice(list(OddChip)),
        rake_percent_bp=rng.choice([0, 0, 500, 10_000]),
        rake_cap=rng.choice([0, small]),
        all_in_face_up=rng.random() < 0.5,
    )


SETTLING = (UncalledReturned, HandShown, HandMucked, RakeTaken, PotAwarded)


def reference_tabling(
    starting: list[int], events: list[Event]
) -> tuple[int, tuple[int, ...], list[list[int]]] | None:
    """Where R-ALL-IN-FACE-UP tables the hands, read from the events alone (a table with
    the option; ``events`` without the HandsTabled): when a round's betting is over (the
    next street's first card is dealt, or the hand is settled) with a player in the hand
    all-in and at most one able to bet, or at the showdown with a player all-in. Returns
    the index of the event the tabling comes before, the seats still in, and their
    cards so far; None when no hand is tabled."""
    players = len(starting)
    stacks, folded = list(starting), [False] * players
    cards: list[list[int]] = [[] for _ in range(players)]
    street = -1  # the betting round under way (none before the first StreetStarted)
    for index, event in enumerate(events):
        settling = isinstance(event, SETTLING)
        new_street = isinstance(event, CardDealt) and event.street > street >= 0
        if settling or new_street:
            live = [seat for seat in range(players) if not folded[seat]]
            able = [seat for seat in live if stacks[seat] > 0]
            all_in = len(able) < len(live)
            if len(live) > 1 and all_in and (len(able) <= 1 or settling):
                return index, tuple(live), [cards[seat] for seat in live]
            if settling:
                return None
        if isinstance(event, AntePosted | ActionTaken):
            stacks[event.seat] -= event.amount
        if isinstance(event, ActionTaken) and event.type is ActionType.FOLD:
            folded[event.seat] = True
        elif isinstance(event, CardDealt) and event.seat is not None:
            cards[event.seat].append(event.card)
        elif isinstance(event, StreetStarted):
            street = event.street
    return None


def check_tabling(table: Table, starting: list[int], events: list[Event]) -> bool:
    """The engine's HandsTabled is where the reference puts it, with its seats and cards
    (none without the option); whether hands were tabled."""
    tablings = [(i, e) for i, e in enumerate(events) if isinstance(e, HandsTabled)]
    if not table.all_in_face_up:
        assert not tablings
        return False
    want = reference_tabling(starting, [e for e in events if not isinstance(e, HandsTabled)])
    got = [(i, e.seats, [list(c) for c in e.cards]) for i, e in tablings]
    assert got == ([] if want is None else [want]), events
    return bool(got)


def test_engine_legal_actions_equal_the_rulebook_reference() -> None:
    """R-ACTIONS, R-LEGAL-ONCE, R-HALF-BET, R-CAP, R-OPEN-PAIR, R-BRING-IN-CHOICE,
    R-SHORT-BRING-IN, R-ANTE-ALL-IN-LOW: the engine offers exactly the reference's moves
    at every decision of 4,000 random hands of the four games (R-RAZZ-BRING-IN); and
    R-ALL-IN-FACE-UP: it tables the hands exactly where the reference does."""
    rng = random.Random("legal-reference")
    seen_cases: Counter[str] = Counter()
    decisions = 0
    for _ in range(4000):
        variant = rng.choice(list(Variant))
        low, high = PLAYERS.get(variant, (2, 8))
        players = rng.randint(low, high)
        table = random_table(rng, variant)
        stacks = [rng.randint(1, rng.choice([3, 8, 30]) * table.small_bet) for _ in range(players)]
        deck = list(range(52))
        rng.shuffle(deck)
        hand, events = start_hand(variant, table, stacks, rng.randrange(players), deck)
        while hand.to_act is not None:
            me = hand.to_act
            got = [(a.type.value, a.to) for a in hand.legal_actions()]
            want = reference_legal(variant, table, replay(stacks, events), me)
            assert sorted(got, key=str) == sorted(want, key=str), (variant, table, stacks, events)
            assert len(set(got)) == len(got)
            decisions += 1
            kinds = Counter(kind for kind, _ in got)
            if max(kinds.values()) > 1:
                seen_cases["two sizes"] += 1
            if table.small_bet == table.big_bet and hand.round.open_pair:
                seen_cases["equal sizes on an open-pair round"] += 1
            calls = [to for kind, to in got if kind == CALL]
            spare = calls and calls[0] < hand.round.bets[me] + hand.stacks[me]
            if spare and not kinds.keys() & AGGRESSIVE:
                seen_cases["call only, chips to spare"] += 1  # R-CAP, R-HALF-BET, R-ACTIONS
            if FOLD in kinds and BRING_IN in kinds:
                seen_cases["opener may fold"] += 1
            choice = rng.choice(hand.legal_actions())
            events += hand.act(me, choice.type, choice.to)
        if check_tabling(table, stacks, events):
            seen_cases["hands tabled"] += 1
    assert decisions > 20_000
    assert min(seen_cases.values()) > 20 and len(seen_cases) == 5, seen_cases
