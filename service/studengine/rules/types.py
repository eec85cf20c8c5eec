"""The engine's vocabulary: variants (defined with the game facts, ``variants``), tables,
actions, events, results and errors.

Plain data set once: the table a frozen dataclass, the many small records plain final
classes (``Record``), which the compiled build makes native. Nothing here knows of gRPC,
protobuf or crypto.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Final, final

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


#: Every action kind, in declaration order (a kind's place in it is its index).
ACTION_TYPES: Final = tuple(ActionType)


def action_index(kind: ActionType) -> int:
    """``kind``'s place in ``ACTION_TYPES``, found by identity (hashing an enum member runs
    Python code; compiled, this loop is the cheapest way)."""
    for index, each in enumerate(ACTION_TYPES):
        if each is kind:
            return index
    raise ValueError(f"not an action kind: {kind!r}")


@final
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

    # Written out, not generated: the compiled build runs a class's own __init__ natively,
    # a dataclass-generated one in the interpreter (every request makes a table).
    def __init__(
        self,
        ante: int,
        bring_in: int,
        small_bet: int,
        big_bet: int,
        max_bets: int = 4,
        uncapped_heads_up: bool = False,
        open_pair_big_bet: bool = True,
        odd_chip: OddChip = OddChip.LEFT_OF_DEALER,
        rake_percent_bp: int = 0,
        rake_cap: int = 0,
        all_in_face_up: bool = False,
    ) -> None:
        set_once = object.__setattr__  # frozen: the fields are set here only
        set_once(self, "ante", ante)
        set_once(self, "bring_in", bring_in)
        set_once(self, "small_bet", small_bet)
        set_once(self, "big_bet", big_bet)
        set_once(self, "max_bets", max_bets)
        set_once(self, "uncapped_heads_up", uncapped_heads_up)
        set_once(self, "open_pair_big_bet", open_pair_big_bet)
        set_once(self, "odd_chip", odd_chip)
        set_once(self, "rake_percent_bp", rake_percent_bp)
        set_once(self, "rake_cap", rake_cap)
        set_once(self, "all_in_face_up", all_in_face_up)

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


class Record:
    """Plain data of a few named fields, set once: equal when of one class with equal
    fields, hashable, shown with them. The engine's many small records (legal actions,
    moves, events) are plain classes rather than named tuples or dataclasses: the
    compiled build makes them native classes, their construction compiled too."""

    __match_args__: ClassVar[tuple[str, ...]] = ()  # the fields, in order

    def values(self) -> tuple[object, ...]:
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Record)
            and type(other) is type(self)
            and (self.values() == other.values())
        )

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        pairs = zip(self.__match_args__, self.values(), strict=True)
        shown = ", ".join(f"{name}={value!r}" for name, value in pairs)
        return f"{type(self).__name__}({shown})"


@final
class LegalAction(Record):
    """One choice open to the player to act.

    ``to`` is the player's total put in on this betting round once the action is done
    (a "raise to" amount); None for FOLD and CHECK.
    """

    __match_args__ = ("type", "to")

    def __init__(self, type: ActionType, to: int | None = None) -> None:
        self.type: Final = type
        self.to: Final = to

    def __str__(self) -> str:
        return self.type.value if self.to is None else f"{self.type.value} {self.to}"


@final
class Move(Record):
    """One action as the hand keeps it in its log (``Hand.moves``), all a history needs:
    who acted, how, the round total for a sized action (None for FOLD and CHECK), and
    whether the clock chose it."""

    __match_args__ = ("seat", "type", "to", "timeout")

    def __init__(
        self, seat: int, type: ActionType, to: int | None = None, timeout: bool = False
    ) -> None:
        self.seat: Final = seat
        self.type: Final = type
        self.to: Final = to
        self.timeout: Final = timeout


@final
class MoveLog:
    """A hand's action log (``Hand.moves``): every action taken, in order; with the deck,
    all a history needs. Read like a list of Moves: iterated, indexed, counted, compared
    (with a list too).

    A hand read back from storage gets the moves it was stored with in their stored form
    (``of_stored``), read by the function given only when the log is read: a step that
    only adds a move builds none of them, and the store writes them back as they came
    (``stored``) before the moves added since (``after``)."""

    def __init__(self, moves: list[Move] | None = None) -> None:
        self.stored = b""  # the first moves, still in their stored form
        self.after: list[Move] = [] if moves is None else moves  # the moves after those
        self._read: Callable[[bytes], list[Move]] | None = None

    @staticmethod
    def of_stored(stored: bytes, read: Callable[[bytes], list[Move]]) -> MoveLog:
        """A log of the moves ``stored``, read by ``read`` when they are asked for."""
        log = MoveLog()
        log.stored, log._read = stored, read
        return log

    def append(self, move: Move) -> None:
        self.after.append(move)

    def moves(self) -> list[Move]:
        """Every move, in order (the stored ones read now: once)."""
        if self.stored and self._read is not None:
            self.after = self._read(self.stored) + self.after
            self.stored, self._read = b"", None
        return self.after

    def copy(self) -> MoveLog:
        """An independent log of the same moves (the stored ones still unread)."""
        log = MoveLog(list(self.after))
        log.stored, log._read = self.stored, self._read
        return log

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves())

    def __len__(self) -> int:
        return len(self.moves())

    def __getitem__(self, index: int) -> Move:
        return self.moves()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MoveLog):
            return self.moves() == other.moves()
        return isinstance(other, list) and self.moves() == other

    def __repr__(self) -> str:
        return f"MoveLog({self.moves()!r})"


# ---- events: what happened, in order, for clients to animate ----------------------
# Records (above): typed, set once (Final), equal when their fields are.


@final
class AntePosted(Record):
    __match_args__ = ("seat", "amount", "all_in")

    def __init__(self, seat: int, amount: int, all_in: bool) -> None:
        self.seat: Final = seat
        self.amount: Final = amount
        self.all_in: Final = all_in


@final
class CardDealt(Record):
    """A card dealt to ``seat`` (None: the community card, R-COMMUNITY-CARD).

    A face-down card is visible only to its owner until a showdown reveals it.
    """

    __match_args__ = ("seat", "card", "face_up", "street")

    def __init__(self, seat: int | None, card: int, face_up: bool, street: int) -> None:
        self.seat: Final = seat
        self.card: Final = card
        self.face_up: Final = face_up
        self.street: Final = street


@final
class StreetStarted(Record):
    """A betting round begins (``betting`` False: dealt out, no round is held)."""

    __match_args__ = ("street", "name", "betting", "first_to_act")

    def __init__(self, street: int, name: str, betting: bool, first_to_act: int | None) -> None:
        self.street: Final = street
        self.name: Final = name
        self.betting: Final = betting
        self.first_to_act: Final = first_to_act


@final
class ActionTaken(Record):
    __match_args__ = ("seat", "type", "to", "amount", "all_in", "timeout")

    def __init__(
        self, seat: int, type: ActionType, to: int, amount: int, all_in: bool, timeout: bool = False
    ) -> None:
        self.seat: Final = seat
        self.type: Final = type
        self.to: Final = to
        self.amount: Final = amount  # chips this action moved from the stack
        self.all_in: Final = all_in
        self.timeout: Final = timeout


@final
class UncalledReturned(Record):
    __match_args__ = ("seat", "amount")

    def __init__(self, seat: int, amount: int) -> None:
        self.seat: Final = seat
        self.amount: Final = amount


class ShownHand(Record):
    """A hand revealed at showdown: ``rank``, ``best_five`` and ``description`` as the
    game ranks it (Razz: the ace-to-five low); in Stud Hi-Lo also its eight-or-better
    low (``low`` is ``evaluator.NO_LOW``, 0, when it has none). The result keeps it, and
    the ``HandShown`` event is one."""

    __match_args__ = (
        "seat",
        "cards",
        "best_five",
        "rank",
        "description",
        "low",
        "low_best_five",
        "low_description",
    )

    def __init__(
        self,
        seat: int,
        cards: tuple[int, ...],
        best_five: tuple[int, ...],
        rank: int,
        description: str,
        low: int = 0,
        low_best_five: tuple[int, ...] = (),
        low_description: str = "",
    ) -> None:
        self.seat: Final = seat
        self.cards: Final = cards
        self.best_five: Final = best_five
        self.rank: Final = rank
        self.description: Final = description
        self.low: Final = low
        self.low_best_five: Final = low_best_five
        self.low_description: Final = low_description


@final
class HandShown(ShownHand):
    """The event of a hand shown at showdown: the ``ShownHand`` the result keeps, as it
    happened (``rank``/``description`` as the game ranks it, Razz: its ace-to-five low;
    the ``low_*`` fields its eight-or-better low in Stud Hi-Lo, ``low`` 0: none)."""

    __match_args__ = ShownHand.__match_args__  # its own: mypyc's class patterns read only those


@final
class HandsTabled(Record):
    """Every hand still in turned face up at once, before any further card is dealt
    (R-ALL-IN-FACE-UP): the ``seats`` in seat order and each one's ``cards`` so far, in
    the order dealt. From here on all their cards, later ones too, are seen by everyone."""

    __match_args__ = ("seats", "cards")

    def __init__(self, seats: tuple[int, ...], cards: tuple[tuple[int, ...], ...]) -> None:
        self.seats: Final = seats
        self.cards: Final = cards


@final
class HandMucked(Record):
    __match_args__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat: Final = seat


@final
class RakeTaken(Record):
    """The house's rake, taken from the pots before they are awarded (R-RAKE)."""

    __match_args__ = ("amount",)

    def __init__(self, amount: int) -> None:
        self.amount: Final = amount


@final
class PotAwarded(Record):
    """A pot paid out; in Stud Hi-Lo ``winners``/``shares`` are the high half and the
    ``low_*`` fields the low half (empty when no eligible low qualifies, R-HILO-SPLIT)."""

    __match_args__ = (
        "pot",
        "amount",
        "winners",
        "shares",
        "description",
        "low_winners",
        "low_shares",
        "low_description",
        "rake",
    )

    def __init__(
        self,
        pot: int,
        amount: int,
        winners: tuple[int, ...],
        shares: tuple[int, ...],
        description: str,
        low_winners: tuple[int, ...] = (),
        low_shares: tuple[int, ...] = (),
        low_description: str = "",
        rake: int = 0,
    ) -> None:
        self.pot: Final = pot  # index: 0 is the main pot
        self.amount: Final = amount  # after the rake
        self.winners: Final = winners
        self.shares: Final = shares  # chips to each winner, same order
        self.description: Final = description  # the winning hand, or "" when everyone else folded
        self.low_winners: Final = low_winners
        self.low_shares: Final = low_shares
        self.low_description: Final = low_description
        self.rake: Final = rake  # chips the rake took from this pot (R-RAKE)


@final
class HandEnded(Record):
    __match_args__ = ("stacks",)

    def __init__(self, stacks: tuple[int, ...]) -> None:
        self.stacks: Final = stacks


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


@final
class Pot(Record):
    """A pot and its winners. ``amount`` is what is left after the rake (``rake`` of it
    went to the house, R-RAKE). In Stud Hi-Lo ``winners``/``shares`` take the high half
    and ``low_winners``/``low_shares`` the low half (R-HILO-SPLIT); elsewhere the low
    ones are empty."""

    __match_args__ = (
        "amount",
        "eligible",
        "winners",
        "shares",
        "low_winners",
        "low_shares",
        "rake",
    )

    def __init__(
        self,
        amount: int,
        eligible: tuple[int, ...],
        winners: tuple[int, ...],
        shares: tuple[int, ...],
        low_winners: tuple[int, ...] = (),
        low_shares: tuple[int, ...] = (),
        rake: int = 0,
    ) -> None:
        self.amount: Final = amount
        self.eligible: Final = eligible
        self.winners: Final = winners
        self.shares: Final = shares
        self.low_winners: Final = low_winners
        self.low_shares: Final = low_shares
        self.rake: Final = rake


@final
class HandResult(Record):
    __match_args__ = ("pots", "stacks", "shown", "uncalled", "rake")

    def __init__(
        self,
        pots: tuple[Pot, ...],
        stacks: tuple[int, ...],
        shown: tuple[ShownHand, ...],
        uncalled: tuple[tuple[int, int], ...] = (),
        rake: int = 0,
    ) -> None:
        self.pots: Final = pots  # main pot first, then side pots
        self.stacks: Final = stacks  # final stacks
        self.shown: Final = shown  # revealed at showdown, in showing order (R-MUCK)
        self.uncalled: Final = uncalled  # (seat, amount) returned
        self.rake: Final = rake  # chips the house took (R-RAKE): stacks + rake = starting stacks

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
