"""The engine's vocabulary: variants (defined with the game facts, ``variants``), tables,
actions, events, results and errors.

Plain frozen data. Nothing here knows of gRPC, protobuf or crypto.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from studengine.rules.variants import VARIANTS
from studengine.rules.variants import Variant as Variant  # the vocabulary's, re-exported


class OddChip(enum.Enum):
    """Who gets the odd chips of a split pot (R-ODD-CHIP)."""

    LEFT_OF_DEALER = "LEFT_OF_DEALER"
    HIGH_CARD_BY_SUIT = "HIGH_CARD_BY_SUIT"


class ActionType(enum.Enum):
    FOLD = "FOLD"
    CHECK = "CHECK"
    CALL = "CALL"
    BRING_IN = "BRING_IN"
    COMPLETE = "COMPLETE"
    BET = "BET"
    RAISE = "RAISE"


@dataclass(frozen=True)
class Table:
    """Stakes and table options (R-STAKES, R-CAP, R-OPEN-PAIR, R-ODD-CHIP, R-RAKE,
    R-ALL-IN-FACE-UP).

    ``open_pair_big_bet`` must be off in Razz and Stud Hi-Lo (the option does not exist
    there); ``rake_percent_bp`` is basis points of the pots, ``rake_cap`` the most taken
    from one hand (0: no cap); ``all_in_face_up`` tables every hand still in once the
    betting is over with a player all-in (the tournament rule; off: cash games)."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    max_bets: int = 4
    uncapped_heads_up: bool = False
    open_pair_big_bet: bool = True
    odd_chip: OddChip = OddChip.LEFT_OF_DEALER
    rake_percent_bp: int = 0
    rake_cap: int = 0
    all_in_face_up: bool = False

    @classmethod
    def for_game(
        cls,
        variant: Variant,
        ante: int,
        bring_in: int,
        small_bet: int,
        big_bet: int,
        **options: Any,
    ) -> Table:
        """The table of ``variant`` at these stakes, each option left out at the game's own
        default: ``open_pair_big_bet`` on only in the games that have the option (Five and
        Seven Card Stud; R-OPEN-PAIR, section 7). Options given are kept as they are."""
        options.setdefault("open_pair_big_bet", VARIANTS[variant].has_open_pair)
        return cls(ante, bring_in, small_bet, big_bet, **options)


class LegalAction(NamedTuple):
    """One choice open to the player to act.

    ``to`` is the player's total put in on this betting round once the action is done
    (a "raise to" amount); None for FOLD and CHECK.
    """

    type: ActionType
    to: int | None = None

    def __str__(self) -> str:
        return self.type.value if self.to is None else f"{self.type.value} {self.to}"


class Move(NamedTuple):
    """One action as the hand keeps it in its log (``Hand.moves``), all a history needs:
    who acted, how, the round total for a sized action (None for FOLD and CHECK), and
    whether the clock chose it."""

    seat: int
    type: ActionType
    to: int | None = None
    timeout: bool = False


# ---- events: what happened, in order, for clients to animate ----------------------
# Named tuples (a shown hand: its frozen dataclass): immutable and typed (mypy sees
# every field).


class AntePosted(NamedTuple):
    seat: int
    amount: int
    all_in: bool


class CardDealt(NamedTuple):
    """A card dealt to ``seat`` (None: the community card, R-COMMUNITY-CARD).

    A face-down card is visible only to its owner until a showdown reveals it.
    """

    seat: int | None
    card: int
    face_up: bool
    street: int


class StreetStarted(NamedTuple):
    """A betting round begins (``betting`` False: dealt out, no round is held)."""

    street: int
    name: str
    betting: bool
    first_to_act: int | None


class ActionTaken(NamedTuple):
    seat: int
    type: ActionType
    to: int
    amount: int  # chips this action moved from the stack
    all_in: bool
    timeout: bool = False


class UncalledReturned(NamedTuple):
    seat: int
    amount: int


@dataclass(frozen=True)
class ShownHand:
    """A hand revealed at showdown: ``rank``, ``best_five`` and ``description`` as the
    game ranks it (Razz: the ace-to-five low); in Stud Hi-Lo also its eight-or-better
    low (``low`` is ``evaluator.NO_LOW``, 0, when it has none). The result keeps it, and
    the ``HandShown`` event is one."""

    seat: int
    cards: tuple[int, ...]
    best_five: tuple[int, ...]
    rank: int
    description: str
    low: int = 0
    low_best_five: tuple[int, ...] = ()
    low_description: str = ""


@dataclass(frozen=True)
class HandShown(ShownHand):
    """The event of a hand shown at showdown: the ``ShownHand`` the result keeps, as it
    happened (``rank``/``description`` as the game ranks it, Razz: its ace-to-five low;
    the ``low_*`` fields its eight-or-better low in Stud Hi-Lo, ``low`` 0: none)."""


class HandsTabled(NamedTuple):
    """Every hand still in turned face up at once, before any further card is dealt
    (R-ALL-IN-FACE-UP): the ``seats`` in seat order and each one's ``cards`` so far, in
    the order dealt. From here on all their cards, later ones too, are seen by everyone."""

    seats: tuple[int, ...]
    cards: tuple[tuple[int, ...], ...]


class HandMucked(NamedTuple):
    seat: int


class RakeTaken(NamedTuple):
    """The house's rake, taken from the pots before they are awarded (R-RAKE)."""

    amount: int


class PotAwarded(NamedTuple):
    """A pot paid out; in Stud Hi-Lo ``winners``/``shares`` are the high half and the
    ``low_*`` fields the low half (empty when no eligible low qualifies, R-HILO-SPLIT)."""

    pot: int  # index: 0 is the main pot
    amount: int  # after the rake
    winners: tuple[int, ...]
    shares: tuple[int, ...]  # chips to each winner, same order
    description: str  # the winning hand, or "" when everyone else folded
    low_winners: tuple[int, ...] = ()
    low_shares: tuple[int, ...] = ()
    low_description: str = ""
    rake: int = 0  # chips the rake took from this pot (R-RAKE)


class HandEnded(NamedTuple):
    stacks: tuple[int, ...]


Event = (
    AntePosted
    | CardDealt
    | StreetStarted
    | ActionTaken
    | UncalledReturned
    | HandsTabled
    | HandShown
    | HandMucked
    | RakeTaken
    | PotAwarded
    | HandEnded
)


# ---- the end of a hand ------------------------------------------------------------


@dataclass(frozen=True)
class Pot:
    """A pot and its winners. ``amount`` is what is left after the rake (``rake`` of it
    went to the house, R-RAKE). In Stud Hi-Lo ``winners``/``shares`` take the high half
    and ``low_winners``/``low_shares`` the low half (R-HILO-SPLIT); elsewhere the low
    ones are empty."""

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[int, ...]
    low_winners: tuple[int, ...] = ()
    low_shares: tuple[int, ...] = ()
    rake: int = 0


@dataclass(frozen=True)
class HandResult:
    pots: tuple[Pot, ...]  # main pot first, then side pots
    stacks: tuple[int, ...]  # final stacks
    shown: tuple[ShownHand, ...]  # revealed at showdown, in showing order (R-MUCK)
    uncalled: tuple[tuple[int, int], ...] = field(default=())  # (seat, amount) returned
    rake: int = 0  # chips the house took (R-RAKE): stacks + rake = starting stacks

    @property
    def revealed(self) -> tuple[int, ...]:
        return tuple(sorted(s.seat for s in self.shown))


# ---- errors -----------------------------------------------------------------------


class RulesError(ValueError):
    """Base of the engine's refusals."""


class InvalidHand(RulesError):
    """A new hand's settings break the rules (R-SEATS, R-STAKES, a bad test deck)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.reason = message


class Refusal(enum.Enum):
    """Why an action is refused, for callers to act on (the message is for people)."""

    HAND_OVER = "hand_over"  # the hand has ended: nobody acts
    OUT_OF_TURN = "out_of_turn"  # not this seat's turn (or no such seat)
    NOT_LEGAL_NOW = "not_legal_now"  # the action type is not among the legal moves
    BAD_AMOUNT = "bad_amount"  # a legal type at the wrong amount, or FOLD/CHECK with one


class IllegalAction(RulesError):
    """An action the rules do not allow now. The hand is unchanged."""

    def __init__(
        self,
        refusal: Refusal,
        reason: str,
        legal: tuple[LegalAction, ...],
        to_act: int | None,
    ) -> None:
        legal_text = ", ".join(str(a) for a in legal) or "none"
        who = "nobody" if to_act is None else f"seat {to_act}"
        super().__init__(f"{reason} (to act: {who}; legal: {legal_text})")
        self.refusal = refusal
        self.reason = reason
        self.legal = legal
        self.to_act = to_act
