"""One hand of stud as a state machine: start it, ask who acts and what is legal, apply
an action (or say why not), and read the events it produced.

Modelled on PokerKit's ``State``: for each action a check that says why not
(``why_not``), a query that says whether (``can``), and the step itself (``act``), which
returns a record of what happened. The state is plain data (the dataclass fields), so
the service can write it out and read it back exactly.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from studengine.rules import betting
from studengine.rules.board import best_board, clockwise_from, has_open_pair, lowest_up_card
from studengine.rules.showdown import settle
from studengine.rules.types import (
    ActionTaken,
    ActionType,
    AntePosted,
    CardDealt,
    Event,
    HandResult,
    IllegalAction,
    LegalAction,
    StreetStarted,
    Table,
    Variant,
)
from studengine.rules.validation import validate_deck, validate_players, validate_table
from studengine.rules.variants import VARIANTS, VariantSpec

FOLD, CHECK, BRING_IN = ActionType.FOLD, ActionType.CHECK, ActionType.BRING_IN
_new = tuple.__new__  # makes an event without its named tuple's Python-level __new__


@dataclass
class Hand:
    variant: Variant
    table: Table
    button: int
    starting_stacks: list[int]
    deck: list[int]  # the whole dealing order, fixed when the hand starts (R-DECK)
    dealt: int  # cards taken from the deck so far
    stacks: list[int]
    committed: list[int]  # chips put in this hand, not yet paid out
    round_bets: list[int]  # chips put in on this betting round
    cards: list[list[int]]  # each seat's cards in the order dealt
    community: int | None  # R-COMMUNITY-CARD
    folded: list[bool]
    acted: list[bool]  # acted since the last full bet or raise
    street: int  # index into the variant's streets
    to_act: int | None
    level: int  # the round total to match
    full_level: int  # the round total of the last full bet or raise (R-HALF-BET)
    bets: int  # bets and full raises this round (R-CAP)
    uncapped: bool  # R-CAP option: the round went heads-up before its cap
    open_pair: bool  # R-OPEN-PAIR in force this round
    big_made: bool  # a big bet or raise was made on the open-pair round
    bring_in_due: bool  # first round: nobody has brought in or completed yet
    opener_may_fold: bool  # R-ANTE-ALL-IN-LOW: the opener is not the low card
    first_actor: int | None  # who acted first this round (R-SHOWDOWN-ORDER)
    last_aggressor: int | None  # who last bet or raised this round
    round_held: bool  # a betting round is held on this street (R-ROUND-END)
    over: bool
    result: HandResult | None

    # ---- what the hand looks like --------------------------------------------------

    @cached_property
    def spec(self) -> VariantSpec:
        # Memoised in the instance dict, outside the dataclass fields (which alone are
        # the state); later reads are plain attribute loads.
        return VARIANTS[self.variant]

    @property
    def players(self) -> int:
        return len(self.stacks)

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def pot(self) -> int:
        """All chips put in this hand and not yet paid out."""
        return sum(self.committed)

    @property
    def street_name(self) -> str:
        return self.spec.streets[self.street].name

    def up_cards(self, seat: int) -> list[int]:
        cards = self.cards[seat]
        return [cards[i] for i in self.spec.up_positions_of[len(cards)]]

    def down_cards(self, seat: int) -> list[int]:
        cards = self.cards[seat]
        return [cards[i] for i in self.spec.down_positions_of[len(cards)]]

    def copy(self) -> Hand:
        return copy.deepcopy(self)

    # ---- the three questions of every action ---------------------------------------

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """The exact choices of the player to act, with their ``to`` amounts."""
        # Memoised until the next step; not a field, so never part of the state.
        cached: tuple[LegalAction, ...] | None = self.__dict__.get("_legal")
        if cached is None:
            cached = self.__dict__["_legal"] = betting.legal_actions(self)
        return cached

    def why_not(self, seat: int, action: ActionType, to: int | None = None) -> str | None:
        """Why ``seat`` may not take ``action`` now, or None when it may."""
        return self._choose(seat, action, to)[1]

    def can(self, seat: int, action: ActionType, to: int | None = None) -> bool:
        return self.why_not(seat, action, to) is None

    def act(self, seat: int, action: ActionType, to: int | None = None) -> list[Event]:
        """Apply an action; raise IllegalAction (the hand unchanged) if the rules forbid it."""
        chosen, reason = self._choose(seat, action, to)
        if chosen is None:
            raise IllegalAction(reason or "not allowed", self.legal_actions(), self.to_act)
        return self._apply(seat, chosen, timeout=False)

    def timeout(self, seat: int) -> list[Event]:
        """The clock ran out: check if a check is legal, bring in if owed, else fold."""
        if self.over or seat != self.to_act:
            reason = self._turn_problem(seat) or "not allowed"
            raise IllegalAction(reason, self.legal_actions(), self.to_act)
        legal = {a.type: a for a in self.legal_actions()}
        if ActionType.CHECK in legal:
            chosen = legal[ActionType.CHECK]
        elif ActionType.BRING_IN in legal and not self.opener_may_fold:
            chosen = legal[ActionType.BRING_IN]
        else:
            chosen = legal[ActionType.FOLD]
        return self._apply(seat, chosen, timeout=True)

    # ---- checking an action --------------------------------------------------------

    def _turn_problem(self, seat: int) -> str | None:
        if self.over:
            return "the hand is over"
        if not 0 <= seat < self.players:
            return f"there is no seat {seat}"
        if seat != self.to_act:
            return f"seat {seat} is not to act"
        return None

    def _choose(
        self, seat: int, action: ActionType, to: int | None
    ) -> tuple[LegalAction | None, str | None]:
        """The legal action asked for, or None and why not (R-ACTIONS)."""
        if seat != self.to_act or self.over:
            return None, self._turn_problem(seat) or "not allowed"
        legal = self.__dict__.get("_legal") or self.legal_actions()
        for option in legal:  # the first of its type, or the one at ``to``
            if option.type is action and (
                to is None or option.to == to or (option.to is None and to == self.round_bets[seat])
            ):
                return option, None
        return None, self._refusal(seat, action, to, legal)

    def _refusal(
        self, seat: int, action: ActionType, to: int | None, legal: tuple[LegalAction, ...]
    ) -> str:
        """Why ``action`` (at ``to``) is not among the ``legal`` choices."""
        options = [a for a in legal if a.type is action]
        if not options:
            return f"{action.value} is not allowed now"
        amounts = " or ".join(str(o.to) for o in options)
        return f"{action.value} to {to} is not allowed; {action.value} is to {amounts}"

    # ---- applying an action --------------------------------------------------------

    def _apply(self, seat: int, action: LegalAction, *, timeout: bool) -> list[Event]:
        """Put a legal action into effect, then pass the turn on or end the round."""
        self.__dict__.pop("_legal", None)
        kind, to = action
        stacks, round_bets = self.stacks, self.round_bets
        moved = 0
        if kind is FOLD:
            self.folded[seat] = True
        elif kind is not CHECK:
            assert to is not None
            moved = to - round_bets[seat]
            stacks[seat] -= moved
            self.committed[seat] += moved
            round_bets[seat] = to
        self.acted[seat] = True
        if self.first_actor is None:
            self.first_actor = seat

        if kind is BRING_IN:
            self.bring_in_due = False
            self.level = self.table.bring_in  # a short bring-in is still called in full
        elif to is not None and to > self.level:  # COMPLETE, BET or RAISE
            self._raise_to(seat, to)
        events: list[Event] = [
            _new(ActionTaken, (seat, kind, round_bets[seat], moved, stacks[seat] == 0, timeout))
        ]
        if self.table.uncapped_heads_up:
            self._check_heads_up()
        if kind is FOLD and self.folded.count(False) == 1:  # R-ROUND-END: one player left
            self.to_act = None
            events.extend(settle(self))
            return events
        nxt = betting.next_to_act(self, seat)
        if nxt is None:
            events.extend(self._end_round())
        else:
            self.to_act = nxt
        return events

    def _raise_to(self, seat: int, to: int) -> None:
        """A bet, completion or raise to ``to``; full if it adds half a full bet (R-HALF-BET)."""
        self.bring_in_due = False
        self.last_aggressor = seat
        increment = to - self.full_level
        if 2 * increment >= betting.full_bet(self):
            if self.open_pair and increment >= self.table.big_bet:
                self.big_made = True
            self.full_level = to
            self.bets += 1
            acted = self.acted
            mine = acted[seat]
            acted[:] = [False] * len(acted)  # everyone else must answer it
            acted[seat] = mine
        if to > self.level:
            self.level = to

    def _check_heads_up(self) -> None:
        """R-CAP option: a round that becomes heads-up before its cap has no cap."""
        if self.table.uncapped_heads_up and not self.uncapped and not betting.is_capped(self):
            able = sum(1 for s in range(self.players) if not self.folded[s] and self.stacks[s])
            self.uncapped = able == 2

    # ---- streets ------------------------------------------------------------------

    def _post_antes(self) -> list[Event]:
        """R-ANTE: everyone antes, from the dealer's left; a short stack antes all it has."""
        events: list[Event] = []
        ante = self.table.ante
        if ante == 0:
            return events
        stacks, committed = self.stacks, self.committed
        for seat in clockwise_from(self.button + 1, len(stacks)):
            stack = stacks[seat]
            amount = ante if ante < stack else stack
            stacks[seat] = stack - amount
            committed[seat] += amount
            events.append(_new(AntePosted, (seat, amount, amount == stack)))
        return events

    def _deal_street(self) -> list[Event]:
        """R-DEAL-ORDER: one card at a time from the dealer's left, to players still in."""
        events: list[Event] = []
        street, deck, cards, folded = self.street, self.deck, self.cards, self.folded
        order = [s for s in clockwise_from(self.button + 1, len(folded)) if not folded[s]]
        count = len(order)
        for face_up in self.spec.streets[street].cards:
            dealt = self.dealt
            if len(deck) - dealt < count:  # R-COMMUNITY-CARD
                self.community = deck[dealt]
                self.dealt = dealt + 1
                events.append(CardDealt(None, deck[dealt], True, street))
                continue
            for seat, card in zip(order, deck[dealt : dealt + count], strict=True):
                cards[seat].append(card)
                events.append(_new(CardDealt, (seat, card, face_up, street)))
            self.dealt = dealt + count
        return events

    def _begin_round(self) -> list[Event]:
        players = self.players
        self.round_bets = [0] * players
        self.acted = [False] * players
        self.level = self.full_level = self.bets = 0
        self.big_made = False
        self.first_actor = self.last_aggressor = None
        folded, stacks = self.folded, self.stacks
        live = [s for s in range(players) if not folded[s]]
        able = [s for s in live if stacks[s] > 0]
        self.open_pair = (
            self.table.open_pair_big_bet
            and self.street == self.spec.open_pair_street
            and any(has_open_pair(self.up_cards(s)) for s in live)
        )
        self.uncapped = False
        self.round_held = len(able) >= 2  # R-ROUND-END: nobody owes at a round's start
        if not self.round_held:
            self.to_act = None
            started = StreetStarted(self.street, self.street_name, False, None)
            return [started, *self._end_round()]
        self._check_heads_up()
        if self.street == 0:  # R-BRING-IN-WHO, R-ANTE-ALL-IN-LOW
            first_up = self.spec.up_positions[0]
            low = lowest_up_card({s: self.cards[s][first_up] for s in live})
            self.bring_in_due = True
            self.opener_may_fold = self.stacks[low] == 0
            first = low
        else:  # R-FIRST-TO-ACT
            from_left = [s for s in clockwise_from(self.button + 1, players) if not folded[s]]
            first = best_board(from_left, self.up_cards)
        if stacks[first] == 0:
            first = next(s for s in clockwise_from(first, players) if stacks[s] and not folded[s])
        self.to_act = first
        return [StreetStarted(self.street, self.street_name, True, first)]

    def _end_round(self) -> list[Event]:
        self.to_act = None
        self.bring_in_due = False
        if self.street == len(self.spec.streets) - 1:
            return settle(self)
        self.street += 1
        return self._deal_street() + self._begin_round()


def start_hand(
    variant: Variant,
    table: Table,
    stacks: Sequence[int],
    button: int,
    deck: Sequence[int],
) -> tuple[Hand, list[Event]]:
    """Start a hand: antes, the first street dealt, the bring-in to act.

    ``deck`` is the dealing order (the caller shuffles; a prefix is completed for tests).
    Raises InvalidHand naming the field at fault.
    """
    spec = VARIANTS[variant]
    validate_table(table)
    validate_players(spec, stacks, button)
    full_deck = validate_deck(deck)
    players = len(stacks)
    hand = Hand(
        variant=variant,
        table=table,
        button=button,
        starting_stacks=list(stacks),
        deck=full_deck,
        dealt=0,
        stacks=list(stacks),
        committed=[0] * players,
        round_bets=[0] * players,
        cards=[[] for _ in range(players)],
        community=None,
        folded=[False] * players,
        acted=[False] * players,
        street=0,
        to_act=None,
        level=0,
        full_level=0,
        bets=0,
        uncapped=False,
        open_pair=False,
        big_made=False,
        bring_in_due=False,
        opener_may_fold=False,
        first_actor=None,
        last_aggressor=None,
        round_held=False,
        over=False,
        result=None,
    )
    events = hand._post_antes()
    events += hand._deal_street()
    events += hand._begin_round()
    return hand, events
