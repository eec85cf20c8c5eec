"""One hand of stud as a state machine: start it, ask who acts and what is legal, apply
an action (or say why not), and read the events it produced.

Modelled on PokerKit's ``State``: for each action a check that says why not
(``why_not``), a query that says whether (``can``), and the step itself (``act``), which
returns a record of what happened. The state is plain data (the dataclass fields), so
the service can write it out and read it back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final, final

from studengine.rules.betting import BettingRound
from studengine.rules.board import best_board, clockwise_from, has_open_pair
from studengine.rules.showdown import Finished, Settlement, settle
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
    HandsTabled,
    IllegalAction,
    LegalAction,
    Move,
    MoveLog,
    PotAwarded,
    RakeTaken,
    Refusal,
    StreetStarted,
    Table,
    UncalledReturned,
    Variant,
)
from studengine.rules.validation import (
    validate_deck,
    validate_game,
    validate_players,
    validate_table,
)
from studengine.rules.variants import VARIANTS, VariantSpec, deals_community_card, spec_of

FOLD: Final = ActionType.FOLD  # Final: read directly by the compiled build
CHECK: Final = ActionType.CHECK
BRING_IN: Final = ActionType.BRING_IN


@final
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
    cards: list[list[int]]  # each seat's cards in the order dealt
    community: int | None  # R-COMMUNITY-CARD
    folded: list[bool]
    street: int  # index into the variant's streets
    to_act: int | None
    round: BettingRound  # this street's betting round (the last one once the hand is over)
    over: bool
    result: HandResult | None
    moves: MoveLog  # every action taken, in order (the deal is the deck)
    tabled: list[int]  # the seats whose hands were turned face up (R-ALL-IN-FACE-UP)
    spec: VariantSpec = field(init=False, repr=False, compare=False)  # the variant's rules

    # Written out, not generated: the compiled build runs a class's own __init__ natively,
    # a dataclass-generated one in the interpreter.
    def __init__(
        self,
        variant: Variant,
        table: Table,
        button: int,
        starting_stacks: list[int],
        deck: list[int],
        dealt: int,
        stacks: list[int],
        committed: list[int],
        cards: list[list[int]],
        community: int | None,
        folded: list[bool],
        street: int,
        to_act: int | None,
        round: BettingRound,
        over: bool,
        result: HandResult | None,
        moves: MoveLog,
        tabled: list[int],
    ) -> None:
        self.variant = variant
        self.table = table
        self.button = button
        self.starting_stacks = starting_stacks
        self.deck = deck
        self.dealt = dealt
        self.stacks = stacks
        self.committed = committed
        self.cards = cards
        self.community = community
        self.folded = folded
        self.street = street
        self.to_act = to_act
        self.round = round
        self.over = over
        self.result = result
        self.moves = moves
        self.tabled = tabled
        self.spec = spec_of(variant)  # looked up once, not at every step

    # ---- what the hand looks like --------------------------------------------------

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
        return self.spec.up_cards(self.cards[seat])

    def down_cards(self, seat: int) -> list[int]:
        cards = self.cards[seat]
        return [cards[i] for i in self.spec.down_positions_of[len(cards)]]

    def copy(self) -> Hand:
        """An independent copy: every list copied, the frozen parts (table, result) shared."""
        return replace(
            self,
            starting_stacks=list(self.starting_stacks),
            deck=list(self.deck),
            stacks=list(self.stacks),
            committed=list(self.committed),
            cards=[list(cards) for cards in self.cards],
            folded=list(self.folded),
            round=self.round.copy(),
            moves=self.moves.copy(),
            tabled=list(self.tabled),
        )

    # ---- the three questions of every action ---------------------------------------

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """The exact choices of the player to act, with their ``to`` amounts (none when
        nobody is to act)."""
        if self.to_act is None:
            return ()
        return self.round.legal_actions(self.to_act, self.stacks, self.folded)

    def why_not(self, seat: int, action: ActionType, to: int | None = None) -> str | None:
        """Why ``seat`` may not take ``action`` now, or None when it may."""
        chosen = self._choose(seat, action, to)
        return chosen.reason if isinstance(chosen, IllegalAction) else None

    def can(self, seat: int, action: ActionType, to: int | None = None) -> bool:
        return self.why_not(seat, action, to) is None

    def act(self, seat: int, action: ActionType, to: int | None = None) -> list[Event]:
        """Apply an action; raise IllegalAction (the hand unchanged) if the rules forbid it.

        ``to`` is the round total after a CALL, BRING_IN, COMPLETE, BET or RAISE; it may
        be left out when only one amount is legal. FOLD and CHECK take none."""
        chosen = self._choose(seat, action, to)
        if isinstance(chosen, IllegalAction):
            raise chosen
        return self._apply(seat, chosen, timeout=False)

    def timeout(self, seat: int) -> list[Event]:
        """The clock ran out: check if a check is legal, bring in if owed, else fold."""
        if seat != self.to_act:
            raise self._not_your_turn(seat)
        legal = {a.type: a for a in self.legal_actions()}
        if CHECK in legal:
            chosen = legal[CHECK]
        elif BRING_IN in legal and not self.round.opener_may_fold:
            chosen = legal[BRING_IN]
        else:
            chosen = legal[FOLD]
        return self._apply(seat, chosen, timeout=True)

    # ---- checking an action --------------------------------------------------------

    def _refuse(self, refusal: Refusal, reason: str) -> IllegalAction:
        return IllegalAction(refusal, reason, self.legal_actions(), self.to_act)

    def _not_your_turn(self, seat: int) -> IllegalAction:
        """The refusal of a seat that is not ``to_act`` (nobody is, once the hand is over)."""
        if self.over:
            return self._refuse(Refusal.HAND_OVER, "the hand is over")
        exists = 0 <= seat < self.players
        why = f"seat {seat} is not to act" if exists else f"there is no seat {seat}"
        return self._refuse(Refusal.OUT_OF_TURN, why)

    def _choose(self, seat: int, action: ActionType, to: int | None) -> LegalAction | IllegalAction:
        """The legal action asked for, or the refusal saying why not (R-ACTIONS)."""
        if seat != self.to_act:
            return self._not_your_turn(seat)
        options = self.round.choices(action, seat, self.stacks, self.folded)
        if not options:
            return self._refuse(Refusal.NOT_LEGAL_NOW, f"{action.value} is not allowed now")
        if action is FOLD or action is CHECK:
            if to is None:
                return options[0]
            return self._refuse(Refusal.BAD_AMOUNT, f"{action.value} takes no amount, got {to}")
        for option in options:
            if to is None or option.to == to:
                return option  # with no ``to``, the first (smallest) of its type
        amounts = " or ".join(str(option.to) for option in options)
        return self._refuse(
            Refusal.BAD_AMOUNT,
            f"{action.value} to {to} is not allowed; {action.value} is to {amounts}",
        )

    # ---- applying an action --------------------------------------------------------

    def _apply(self, seat: int, action: LegalAction, *, timeout: bool) -> list[Event]:
        """Put a legal action into effect, then pass the turn on or end the round."""
        betting = self.round
        moved = betting.take(seat, action)
        self.stacks[seat] -= moved
        self.committed[seat] += moved
        self.moves.append(Move(seat, action.type, action.to, timeout))
        if action.type is FOLD:
            self.folded[seat] = True
        all_in = self.stacks[seat] == 0
        events: list[Event] = [
            ActionTaken(seat, action.type, betting.bets[seat], moved, all_in, timeout)
        ]
        if self.table.uncapped_heads_up:  # R-CAP option
            betting.note_heads_up(self.stacks, self.folded)
        if self.folded.count(False) == 1:  # R-ROUND-END: one player left wins it all
            return events + self._settle()
        nxt = betting.next_to_act(seat, self.stacks, self.folded)
        if nxt is None:
            return events + self._end_round()
        self.to_act = nxt
        return events

    # ---- streets ------------------------------------------------------------------

    def _post_antes(self) -> list[Event]:
        """R-ANTE: everyone antes, from the dealer's left; a short stack antes all it has."""
        events: list[Event] = []
        ante = self.table.ante
        if ante == 0:
            return events
        for seat in clockwise_from(self.button + 1, self.players):
            stack = self.stacks[seat]
            amount = min(ante, stack)
            self.stacks[seat] = stack - amount
            self.committed[seat] += amount
            events.append(AntePosted(seat, amount, amount == stack))
        return events

    def _deal_street(self) -> list[Event]:
        """R-DEAL-ORDER: one card at a time from the dealer's left, to players still in."""
        events: list[Event] = []
        order = [s for s in clockwise_from(self.button + 1, self.players) if not self.folded[s]]
        for face_up in self.spec.streets[self.street].cards:
            if deals_community_card(len(self.deck) - self.dealt, len(order)):
                self.community = self.deck[self.dealt]
                self.dealt += 1
                events.append(CardDealt(None, self.community, True, self.street))
                continue
            for seat in order:
                card = self.deck[self.dealt]
                self.dealt += 1
                self.cards[seat].append(card)
                events.append(CardDealt(seat, card, face_up, self.street))
        return events

    def _begin_round(self) -> list[Event]:
        """A fresh betting round; who opens it (R-BRING-IN-WHO, R-FIRST-TO-ACT)."""
        players, spec = self.players, self.spec
        live = [s for s in range(players) if not self.folded[s]]
        able = [s for s in live if self.stacks[s] > 0]
        self.round = BettingRound(
            table=self.table,
            big_street=spec.streets[self.street].big_bet,
            bets=[0] * players,
            acted=[False] * players,
            held=len(able) >= 2,  # R-ROUND-END: nobody owes at a round's start
            open_pair=(  # R-OPEN-PAIR: decided now, among the players in the hand
                self.table.open_pair_big_bet
                and self.street == spec.open_pair_street
                and any(has_open_pair(spec.up_cards(self.cards[s])) for s in live)
            ),
        )
        if not self.round.held:
            self.to_act = None
            started = StreetStarted(self.street, self.street_name, False, None)
            return [started, *self._end_round()]
        if self.table.uncapped_heads_up:  # R-CAP option
            self.round.note_heads_up(self.stacks, self.folded)
        if self.street == 0:  # R-BRING-IN-WHO, R-ANTE-ALL-IN-LOW
            first_up = spec.up_positions[0]
            first = spec.brings_in({s: self.cards[s][first_up] for s in live})
            self.round.bring_in_due = True
            self.round.opener_may_fold = self.stacks[first] == 0
        else:  # R-FIRST-TO-ACT
            from_left = [s for s in clockwise_from(self.button + 1, players) if not self.folded[s]]
            first = best_board(from_left, self.up_cards, spec.board_strength)
        if self.stacks[first] == 0:  # all-in players are skipped
            first = next(s for s in clockwise_from(first, players) if s in able)
        self.to_act = first
        return [StreetStarted(self.street, self.street_name, True, first)]

    def _end_round(self) -> list[Event]:
        self.to_act = None
        self.round.bring_in_due = False
        last = self.street == len(self.spec.streets) - 1
        if self.table.all_in_face_up and not self.tabled:  # R-ALL-IN-FACE-UP
            tabling = self._table_hands(last)
            if tabling:  # then the round ends as any other, with the hands face up
                return tabling + self._end_round()
        if last:
            return self._settle()
        self.street += 1
        return self._deal_street() + self._begin_round()

    def _table_hands(self, last: bool) -> list[Event]:
        """R-ALL-IN-FACE-UP: the betting is over with a player in the hand all-in (no
        further round: at most one player still able to bet, or this was the last
        round), so every hand still in is turned face up, before any further card."""
        live = [seat for seat in range(self.players) if not self.folded[seat]]
        able = sum(1 for seat in live if self.stacks[seat] > 0)
        if able == len(live) or (able > 1 and not last):
            return []
        self.tabled = live
        return [HandsTabled(tuple(live), tuple(tuple(self.cards[seat]) for seat in live))]

    # ---- the end ------------------------------------------------------------------

    def _settle(self) -> list[Event]:
        """Apply the showdown's settlement: chips back and paid out, hands shown."""
        settlement: Settlement = settle(
            Finished(
                spec=self.spec,
                table=self.table,
                button=self.button,
                cards=self.cards,
                community=self.community,
                committed=self.committed,
                folded=self.folded,
                last_round=self.round,
                rake_due=self.street >= 1,  # R-RAKE: the second round was started
                tabled=bool(self.tabled),
            )
        )
        events: list[Event] = []
        if settlement.uncalled is not None:
            seat, amount = settlement.uncalled
            self.committed[seat] -= amount
            self.stacks[seat] += amount
            events.append(UncalledReturned(seat, amount))
        events += _showings(settlement)
        if settlement.rake:  # R-RAKE: taken from the pots before they are awarded
            events.append(RakeTaken(settlement.rake))
        events += self._award(settlement)
        self.committed = [0] * self.players
        self.round.bets = [0] * self.players
        self.to_act = None
        self.over = True
        self.result = HandResult(
            pots=settlement.pots,
            stacks=tuple(self.stacks),
            shown=tuple(s.shown for s in settlement.showings if s.shown is not None),
            uncalled=() if settlement.uncalled is None else (settlement.uncalled,),
            rake=settlement.rake,
        )
        events.append(HandEnded(tuple(self.stacks)))
        return events

    def _award(self, settlement: Settlement) -> list[Event]:
        """Pay each pot to its winners (and its low half's)."""
        events: list[Event] = []
        pots = settlement.pots
        for index in range(len(pots) - 1, -1, -1):  # R-SPLIT: the last side pot first
            pot = pots[index]
            for seat, share in zip(pot.winners, pot.shares, strict=True):
                self.stacks[seat] += share
            for seat, share in zip(pot.low_winners, pot.low_shares, strict=True):
                self.stacks[seat] += share
            events.append(
                PotAwarded(
                    index,
                    pot.amount,
                    pot.winners,
                    pot.shares,
                    settlement.descriptions[index],
                    pot.low_winners,
                    pot.low_shares,
                    settlement.low_descriptions[index],
                    pot.rake,
                )
            )
        return events


def _showings(settlement: Settlement) -> list[Event]:
    """The hands shown and mucked at showdown, in showing order (R-SHOWDOWN-ORDER)."""
    events: list[Event] = []
    for showing in settlement.showings:
        shown = showing.shown
        if shown is None:
            events.append(HandMucked(showing.seat))
            continue
        events.append(  # the event of the same shown hand
            HandShown(
                shown.seat,
                shown.cards,
                shown.best_five,
                shown.rank,
                shown.description,
                shown.low,
                shown.low_best_five,
                shown.low_description,
            )
        )
    return events


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
    validate_game(spec, table)
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
        cards=[[] for _ in range(players)],
        community=None,
        folded=[False] * players,
        street=0,
        to_act=None,
        round=BettingRound(table, False, [0] * players, [False] * players, held=False),
        over=False,
        result=None,
        moves=MoveLog(),
        tabled=[],
    )
    events = hand._post_antes()
    events += hand._deal_street()
    events += hand._begin_round()
    return hand, events
