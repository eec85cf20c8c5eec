"""One betting round: its state, what the player to act may do, and each action's step
(R-ACTIONS, R-LEGAL-ONCE, R-BRING-IN-*, R-CAP, R-OPEN-PAIR, R-HALF-BET, R-TABLE-STAKES,
R-ROUND-END).

``Hand`` makes a fresh ``BettingRound`` when a street's round begins and keeps the
stacks and folds; the round keeps everything else that lasts only for the round.
Each rule the legal moves depend on is one named predicate below.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, final

from studengine.rules.types import ActionType, LegalAction, Table

# Final: constants the compiled build reads directly (no lookup of a global or an enum member)
FOLD: Final = ActionType.FOLD
CHECK: Final = ActionType.CHECK
CALL: Final = ActionType.CALL
BRING_IN: Final = ActionType.BRING_IN
COMPLETE: Final = ActionType.COMPLETE
BET: Final = ActionType.BET
RAISE: Final = ActionType.RAISE
FOLD_ACTION: Final = LegalAction(FOLD)
CHECK_ACTION: Final = LegalAction(CHECK)


@final
@dataclass
class BettingRound:
    """The state of one betting round, made when the round begins."""

    table: Table
    big_street: bool  # the street bets the big bet (R-LIMITS-5S, R-LIMITS-7S)
    bets: list[int]  # chips each seat put in on this round
    acted: list[bool]  # acted since the last full bet or raise (R-HALF-BET)
    held: bool  # a round is held on this street (R-ROUND-END)
    level: int = 0  # the round total to match
    full_level: int = 0  # the round total of the last full bet or raise (R-HALF-BET)
    full_bets: int = 0  # bets, completions and full raises, for the cap (R-CAP)
    uncapped: bool = False  # R-CAP option: the round went heads-up before its cap
    open_pair: bool = False  # R-OPEN-PAIR: small or big bets on this round
    big_made: bool = False  # a big bet or raise was made on the open-pair round
    bring_in_due: bool = False  # first round: nobody has brought in or completed yet
    opener_may_fold: bool = False  # R-ANTE-ALL-IN-LOW: the opener is not the low card
    first_actor: int | None = None  # who acted first (R-SHOWDOWN-ORDER)
    last_aggressor: int | None = None  # who last bet, completed or raised

    # Written out, not generated: the compiled build runs a class's own __init__ natively,
    # a dataclass-generated one in the interpreter (a new round is made every street).
    def __init__(
        self,
        table: Table,
        big_street: bool,
        bets: list[int],
        acted: list[bool],
        held: bool,
        level: int = 0,
        full_level: int = 0,
        full_bets: int = 0,
        uncapped: bool = False,
        open_pair: bool = False,
        big_made: bool = False,
        bring_in_due: bool = False,
        opener_may_fold: bool = False,
        first_actor: int | None = None,
        last_aggressor: int | None = None,
    ) -> None:
        self.table = table
        self.big_street = big_street
        self.bets = bets
        self.acted = acted
        self.held = held
        self.level = level
        self.full_level = full_level
        self.full_bets = full_bets
        self.uncapped = uncapped
        self.open_pair = open_pair
        self.big_made = big_made
        self.bring_in_due = bring_in_due
        self.opener_may_fold = opener_may_fold
        self.first_actor = first_actor
        self.last_aggressor = last_aggressor

    def copy(self) -> BettingRound:
        """An independent copy (its lists copied)."""
        return replace(self, bets=list(self.bets), acted=list(self.acted))

    # ---- the rulebook's predicates -------------------------------------------------

    def full_bet(self) -> int:
        """R-HALF-BET's yardstick: the round's bet size; on the open-pair round the small
        bet until a big bet or raise has been made (R-OPEN-PAIR)."""
        if self.big_street or (self.open_pair and self.big_made):
            return self.table.big_bet
        return self.table.small_bet

    def bet_sizes(self) -> tuple[int, ...]:
        """What a bet or raise may add to the last full level: on the open-pair round the
        small or the big bet until a big one is made (R-OPEN-PAIR), else a full bet."""
        if self.open_pair and not self.big_made:
            return (self.table.small_bet, self.table.big_bet)
        return (self.full_bet(),)

    def is_capped(self) -> bool:
        """R-CAP: at most ``max_bets`` bets a round, unless it went uncapped heads-up."""
        return not self.uncapped and self.full_bets >= self.table.max_bets

    def owes(self, seat: int) -> bool:
        """``seat`` has put in less than the level to match."""
        return self.bets[seat] < self.level

    def can_answer(self, seat: int, stacks: list[int], folded: list[bool]) -> bool:
        """R-ACTIONS: another player still in the hand could put in more than the
        current bet (not all-in, and holding more than a call)."""
        bets, level = self.bets, self.level
        for other, stack in enumerate(stacks):
            if other != seat and not folded[other] and bets[other] + stack > level:
                return True
        return False

    def may_raise(self, seat: int, stacks: list[int], folded: list[bool]) -> bool:
        """Whether ``seat`` may bet, complete or raise now: it has chips beyond a call
        (R-TABLE-STAKES), no short all-in is all that came since it acted (R-HALF-BET),
        the round is not capped (R-CAP) and someone could answer (R-ACTIONS)."""
        return (
            self.bets[seat] + stacks[seat] > self.level
            and not self.acted[seat]
            and not self.is_capped()
            and self.can_answer(seat, stacks, folded)
        )

    # ---- the queries ----------------------------------------------------------------

    def legal_actions(
        self, seat: int, stacks: list[int], folded: list[bool]
    ) -> tuple[LegalAction, ...]:
        """The exact choices of ``seat``, the player to act, each once (R-LEGAL-ONCE):
        the opener's (first round, until someone brings in), else an answer to the
        current bet and the bets or raises the player may make."""
        if self.bring_in_due:
            return self.opener_choices(seat, stacks, folded)
        return self.answers(seat, stacks) + self.raises(seat, stacks, folded)

    def choices(
        self, kind: ActionType, seat: int, stacks: list[int], folded: list[bool]
    ) -> tuple[LegalAction, ...]:
        """The legal moves of type ``kind`` only: ``legal_actions`` asking just the part
        that can hold that type (what ``Hand.act`` checks an action against)."""
        if self.bring_in_due:
            moves = self.opener_choices(seat, stacks, folded)
        elif kind is FOLD or kind is CHECK or kind is CALL:
            moves = self.answers(seat, stacks)
        else:
            moves = self.raises(seat, stacks, folded)
        return tuple([move for move in moves if move.type is kind])

    def opener_choices(
        self, seat: int, stacks: list[int], folded: list[bool]
    ) -> tuple[LegalAction, ...]:
        """R-BRING-IN-CHOICE, R-SHORT-BRING-IN, R-ANTE-ALL-IN-LOW: bring in (all of a
        short stack) or complete; the opener who is not the low card may also fold."""
        table = self.table
        all_in_to = self.bets[seat] + stacks[seat]
        actions = [FOLD_ACTION] if self.opener_may_fold else []
        actions.append(LegalAction(BRING_IN, min(table.bring_in, all_in_to)))
        if all_in_to > table.bring_in and self.can_answer(seat, stacks, folded):
            actions.append(LegalAction(COMPLETE, min(table.small_bet, all_in_to)))
        return tuple(actions)

    def answers(self, seat: int, stacks: list[int]) -> tuple[LegalAction, ...]:
        """R-ACTIONS: facing a bet, fold or call it (all-in for less, R-TABLE-STAKES);
        facing none, check."""
        if self.owes(seat):
            return (FOLD_ACTION, LegalAction(CALL, min(self.level, self.bets[seat] + stacks[seat])))
        return (CHECK_ACTION,)

    def raises(self, seat: int, stacks: list[int], folded: list[bool]) -> tuple[LegalAction, ...]:
        """The bet, completion or raises ``seat`` may make: BET into nothing, COMPLETE a
        bring-in or a short all-in bet, RAISE a full bet (R-HALF-BET); one per total."""
        if not self.may_raise(seat, stacks, folded):
            return ()
        kind = RAISE if self.full_bets else (BET if self.level == 0 else COMPLETE)
        return self.one_per_total(kind, self.bets[seat] + stacks[seat])

    def one_per_total(self, kind: ActionType, all_in_to: int) -> tuple[LegalAction, ...]:
        """A ``kind`` move to each total a bet or raise may reach, once (R-LEGAL-ONCE):
        the last full level plus each size, or the all-in total when that is less."""
        moves: list[LegalAction] = []
        for size in self.bet_sizes():  # ascending, so the totals are too
            to = min(self.full_level + size, all_in_to)
            if not moves or moves[-1].to != to:
                moves.append(LegalAction(kind, to))
        return tuple(moves)

    def next_to_act(self, after: int, stacks: list[int], folded: list[bool]) -> int | None:
        """The next player clockwise after ``after`` who must act, or None: the round is
        over (R-ROUND-END). A player must act who is still in, not all-in, and has not
        acted or owes chips; but nobody acts who owes nothing and has nobody left to bet
        against (R-ANTE-ALL-IN-LOW)."""
        players = len(stacks)
        for step in range(1, players + 1):
            seat = (after + step) % players
            if folded[seat] or stacks[seat] == 0:
                continue
            owes = self.owes(seat)
            if owes or not self.acted[seat]:
                return seat if owes or self.others_can_bet(seat, stacks, folded) else None
        return None

    @staticmethod
    def others_can_bet(seat: int, stacks: list[int], folded: list[bool]) -> bool:
        """Another player still in the hand is not all-in."""
        for other, stack in enumerate(stacks):
            if other != seat and stack > 0 and not folded[other]:
                return True
        return False

    # ---- the step -----------------------------------------------------------------

    def take(self, seat: int, action: LegalAction) -> int:
        """Record a legal action of ``seat``; returns the chips it moves from the stack."""
        kind, to = action.type, action.to
        moved = 0
        if to is not None:  # everything but FOLD and CHECK sets the seat's round total
            moved = to - self.bets[seat]
            self.bets[seat] = to
        self.acted[seat] = True
        if self.first_actor is None:
            self.first_actor = seat
        if kind is BRING_IN:
            self.bring_in_due = False
            self.level = self.table.bring_in  # a short bring-in is still called in full
        elif to is not None and to > self.level:  # COMPLETE, BET or RAISE
            self._raise_to(seat, to)
        return moved

    def _raise_to(self, seat: int, to: int) -> None:
        """A bet, completion or raise to ``to``; a full one if it adds at least half a
        full bet (R-HALF-BET), and then everyone else must answer it."""
        self.bring_in_due = False
        self.last_aggressor = seat
        increment = to - self.full_level
        if 2 * increment >= self.full_bet():
            if self.open_pair and increment >= self.table.big_bet:
                self.big_made = True
            self.full_level = to
            self.full_bets += 1
            self.acted = [other == seat for other in range(len(self.acted))]
        self.level = to

    def note_heads_up(self, stacks: list[int], folded: list[bool]) -> None:
        """R-CAP option: a round that becomes heads-up before its cap has no cap."""
        if self.table.uncapped_heads_up and not self.uncapped and not self.is_capped():
            able = sum(1 for s in range(len(stacks)) if not folded[s] and stacks[s] > 0)
            self.uncapped = able == 2
