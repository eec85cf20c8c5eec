"""Each request parsed once into a typed input: every field checked against the limits
and the rules' own checks, the defaults filled in (a table's options as its game has
them, ``Table.for_game``). A request with bad fields is refused once, naming every one
(``Violations``); a handler gets only values it can use.

A sealed state is opened by the handlers' ``Opener`` (it binds the hand's id and seq for
the log line); one that does not open is refused with the violations found before it.
"""

from __future__ import annotations

import array
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeAlias, final

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine import cards as cardlib
from studengine import equity as eq
from studengine.api.conversions import (
    ACTION_FROM_PB,
    AUDIENCE_FROM_PB,
    ODD_CHIP_FROM_PB,
    RANKING_FROM_PB,
    VARIANT_FROM_PB,
)
from studengine.api.errors import ApiError, Reason, Violation, Violations, invalid, limit
from studengine.deal import MAX_CONTRIBUTION_BYTES, MIN_CONTRIBUTION_BYTES
from studengine.history.phh import Audience
from studengine.rules.hand import Hand
from studengine.rules.types import ActionType, InvalidHand, OddChip, Record, Table, Variant
from studengine.rules.validation import (
    game_problems,
    players_problems,
    table_problems,
    validate_deck,
)
from studengine.rules.variants import HIGH, VARIANTS, Ranking
from studengine.state.codec import MAX_PLAYER_ID, HandRecord
from studengine.state.messages import table_values
from studengine.state.sealing import SealedStateInvalid
from studengine.state.tickets import Settings

MAX_CHIPS = 10**15  # any single amount (stack, stake); keeps every total inside int64
MAX_BETS_LIMIT = 1000
MAX_PLAYERS_ANY = 10
MAX_EVALUATE_BATCH = 10_000
MAX_TEST_DECK = cardlib.DECK_SIZE
HAND_SIZES = (5, 6, 7)  # cards in a hand Evaluate ranks
VARIANT_REQUIRED = (
    "must be VARIANT_FIVE_CARD_STUD, VARIANT_SEVEN_CARD_STUD, VARIANT_RAZZ "
    "or VARIANT_SEVEN_CARD_STUD_HI_LO"
)
EQUITY_METHODS = {
    pb.EQUITY_METHOD_UNSPECIFIED: "auto",
    pb.EQUITY_METHOD_EXACT: "exact",
    pb.EQUITY_METHOD_MONTE_CARLO: "monte_carlo",
}
_STAKES = ("ante", "bring_in", "small_bet", "big_bet", "rake_cap")  # amounts, at most MAX_CHIPS


class Opener(Protocol):
    """Opens a sealed state (SealedStateInvalid when it does not), binding ``context``
    (log fields, the opener's to keep) with the hand's id and seq for the call's log line."""

    def __call__(self, state: bytes, context: dict[str, object], /) -> HandRecord: ...


def parse_cards(texts: Sequence[str], field: str, found: Violations) -> list[int]:
    """The cards that parse; each one that does not is a violation."""
    parsed = []
    for index, text in enumerate(texts):
        try:
            parsed.append(cardlib.parse_card(text))
        except ValueError:
            found.add(f"{field}[{index}]", f"not a card: {text[:8]!r}")
    return parsed


def _amount(value: int, field: str, found: Violations) -> None:
    if value > MAX_CHIPS:
        found.limit(field, f"must be at most {MAX_CHIPS}, got {value}")


def _variant(code: pb.Variant.ValueType, found: Violations) -> Variant | None:
    variant = VARIANT_FROM_PB.get(code)
    if variant is None:
        found.add("variant", VARIANT_REQUIRED)
    return variant


def _open(
    open_state: Opener, state: bytes, found: Violations, context: dict[str, object] | None = None
) -> HandRecord:
    """The opened state; one that does not open is refused now, with what ``found`` has."""
    try:
        return open_state(state, {} if context is None else context)
    except SealedStateInvalid:
        found.bad_state()
        found.refuse()


def _seat(seat: int, hand: Hand, found: Violations) -> None:
    if not 0 <= seat < hand.players:
        found.add("seat", f"must be a seat from 0 to {hand.players - 1}")


# ---- StartHand ----------------------------------------------------------------------


@dataclass(frozen=True)
class NewHand:
    """A StartHand request, checked: the game, its table, the players and the deck
    (``test_deck`` the caller's order, None to shuffle; ``deal_ticket`` and
    ``contributions`` a verifiable deal's, the ticket not yet opened)."""

    variant: Variant
    table: Table
    player_ids: list[str]
    stacks: list[int]
    button: int
    test_deck: list[int] | None
    deal_ticket: bytes = b""
    contributions: tuple[bytes, ...] = ()


#: The requests that name a hand's settings: StartHand, and CreateDealTicket for it.
SettingsRequest: TypeAlias = "pb.StartHandRequest | pb.CreateDealTicketRequest"


def parse_table(msg: pb.Table, variant: Variant | None, found: Violations) -> Table:
    """The table asked for, each option left out at the game's default; every problem
    with it goes to ``found``, an option the game does not have included (section 7: no
    open pair in Razz, Hi-Lo)."""
    for name in _STAKES:
        _amount(getattr(msg, name), f"table.{name}", found)
    values = table_values(msg, {OddChip: ODD_CHIP_FROM_PB})
    max_bets = values.get("max_bets", 4)
    if max_bets > MAX_BETS_LIMIT:
        found.limit("table.max_bets", f"must be at most {MAX_BETS_LIMIT}, got {max_bets}")
    for name in [name for name, value in values.items() if value is None]:
        found.add(f"table.{name}", f"unknown value {getattr(msg, name)}")  # an unknown code
        del values[name]  # the option's default stands in for it
    table = Table(**values) if variant is None else Table.for_game(variant, **values)
    for problem in table_problems(table):
        found.invalid_hand(problem)
    if variant is not None:
        for problem in game_problems(VARIANTS[variant], table):
            found.invalid_hand(problem)
    return table


def _player_ids(request: SettingsRequest, found: Violations) -> list[str]:
    ids: list[str] = []
    for seat, player in enumerate(request.players):
        if not 0 < len(player.id) <= MAX_PLAYER_ID:
            found.add(f"players[{seat}].id", f"must be 1 to {MAX_PLAYER_ID} characters")
        elif not player.id.isprintable():
            found.add(
                f"players[{seat}].id",
                "must be printable text (no control, format or separator characters)",
            )
        elif player.id in ids:
            found.add(f"players[{seat}].id", "appears twice")
        ids.append(player.id)
        _amount(player.stack, f"players[{seat}].stack", found)
    return ids


def _players(request: SettingsRequest, variant: Variant | None, found: Violations) -> list[str]:
    """The player ids; every problem with the players or the button goes to ``found``."""
    if len(request.players) > MAX_PLAYERS_ANY:
        found.add("players", f"at most {MAX_PLAYERS_ANY} players")
        return []
    ids = _player_ids(request, found)
    stacks = [p.stack for p in request.players]
    spec = VARIANTS[variant or Variant.SEVEN_CARD_STUD]
    for problem in players_problems(spec, stacks, request.button):
        if variant is not None or problem.field != "players":  # the count is the variant's
            found.invalid_hand(problem)
    return ids


def _test_deck(request: pb.StartHandRequest, allowed: bool, found: Violations) -> list[int]:
    if not allowed:
        found.add(
            "test_deck", "test decks are not allowed on this server", Reason.TEST_DECK_REFUSED
        )
        return []
    if len(request.test_deck) > MAX_TEST_DECK:
        found.add("test_deck", f"at most {MAX_TEST_DECK} cards")
        return []
    before = len(found)
    deck = parse_cards(request.test_deck, "test_deck", found)
    if len(found) == before:  # every card parsed: is it a deck's order?
        try:
            validate_deck(deck)
        except InvalidHand as error:
            found.invalid_hand(error, prefix="test_")
    return deck


def _contributions(request: pb.StartHandRequest, found: Violations) -> tuple[bytes, ...]:
    """A verifiable deal's contributions: one per player, each of the scheme's size, and
    only with a ticket (CONTRIBUTIONS_INVALID naming the field otherwise)."""
    given = tuple(request.contributions)
    reason = Reason.CONTRIBUTIONS_INVALID
    if not request.deal_ticket:
        if given:
            found.add("contributions", "contributions need a deal_ticket", reason)
        return ()
    if request.test_deck:
        found.add("test_deck", "a test deck cannot be dealt with a deal_ticket")
    if len(given) != len(request.players):
        found.add(
            "contributions",
            f"one per player: {len(request.players)} expected, got {len(given)}",
            reason,
        )
    low, high = MIN_CONTRIBUTION_BYTES, MAX_CONTRIBUTION_BYTES
    for seat, contribution in enumerate(given):
        if not low <= len(contribution) <= high:
            found.add(
                f"contributions[{seat}]",
                f"must be {low} to {high} bytes, got {len(contribution)}",
                reason,
            )
    return given


def parse_settings(
    request: SettingsRequest, found: Violations
) -> tuple[Variant | None, Table, list[str]]:
    """The game, its table and the player ids of a request that names them; every
    problem with them goes to ``found``."""
    variant = _variant(request.variant, found)
    table = parse_table(request.table, variant, found)
    return variant, table, _players(request, variant, found)


def parse_start_hand(request: pb.StartHandRequest, allow_test_decks: bool) -> NewHand:
    found = Violations()
    variant, table, ids = parse_settings(request, found)
    deck = _test_deck(request, allow_test_decks, found) if request.test_deck else None
    contributions = _contributions(request, found)
    if variant is None or found:  # a variant of None is one of the violations
        found.refuse()
    stacks = [p.stack for p in request.players]
    return NewHand(
        variant, table, ids, stacks, request.button, deck, request.deal_ticket, contributions
    )


def parse_deal_ticket_request(request: pb.CreateDealTicketRequest) -> Settings:
    """What a deal ticket is asked for: the settings StartHand would take, checked as
    StartHand checks them."""
    found = Violations()
    variant, table, ids = parse_settings(request, found)
    if variant is None or found:
        found.refuse()
    stacks = [p.stack for p in request.players]
    return Settings(variant, table, ids, stacks, request.button)


def refused_hand(error: InvalidHand) -> ApiError:
    """The engine's own refusal of a new hand the checks above let through (a test
    deck's field is named as the request names it)."""
    prefix = "test_" if error.field.startswith("deck") else ""
    return invalid([Violation(prefix + error.field, error.reason)])


# ---- Act, GetView, GetHandHistory ---------------------------------------------------


@final
class Move(Record):
    """An Act request, checked: the hand, the seat, the action (None: TIMEOUT), its
    ``to`` if given (None: FOLD and CHECK, or the smallest size, which ``Hand.act``
    takes when given none) and the ``expected_seq`` if given.
    A plain record, as the engine's are (``rules.types.Record``): a native class in the
    compiled build, where a frozen dataclass sets each field through ``object.__setattr__``."""

    __match_args__ = ("record", "seat", "action", "to", "expected_seq")

    def __init__(
        self,
        record: HandRecord,
        seat: int,
        action: ActionType | None,
        to: int | None,
        expected_seq: int | None,
    ) -> None:
        self.record: Final = record
        self.seat: Final = seat
        self.action: Final = action
        self.to: Final = to
        self.expected_seq: Final = expected_seq


def parse_act(request: pb.ActRequest, open_state: Opener) -> Move:
    found = Violations()
    code, seat = request.action, request.seat
    timeout = code == pb.ACTION_TYPE_TIMEOUT
    action = ACTION_FROM_PB.get(code)
    if action is None and not timeout:
        found.add("action", f"unknown action {code}")
    label = "TIMEOUT" if timeout else str(action and action._value_)  # (handlers: not .value)
    record = _open(open_state, request.state, found, {"seat": seat, "action": label})
    _seat(seat, record.hand, found)
    found.check()
    # no ``to``: the engine takes the only size, or the smaller of two (the open-pair round)
    to = request.to if action is not None and request.HasField("to") else None
    expected = request.expected_seq if request.HasField("expected_seq") else None
    return Move(record, seat, action, to, expected)


def parse_get_view(request: pb.GetViewRequest, open_state: Opener) -> tuple[HandRecord, int | None]:
    """The hand and its viewer (a seat, or None for a spectator)."""
    found = Violations()
    record = _open(open_state, request.state, found)
    if not request.HasField("seat"):
        return record, None
    _seat(request.seat, record.hand, found)
    found.check()
    return record, request.seat


def parse_history(
    request: pb.GetHandHistoryRequest, open_state: Opener
) -> tuple[HandRecord, Audience]:
    found = Violations()
    audience = AUDIENCE_FROM_PB.get(request.audience)
    if audience is None:
        found.add("audience", f"unknown value {request.audience}")
    record = _open(open_state, request.state, found)
    if audience is None or found:  # an audience of None is one of the violations
        found.refuse()
    return record, audience


# ---- Evaluate -----------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    """An Evaluate request, checked: how to rank, and the hands by size (the request's
    indexes of each size's hands, their cards one byte each, for ``rank_many``)."""

    ranking: Ranking
    count: int
    indexes: dict[int, list[int]]
    buffers: dict[int, bytearray]

    def ranks(self) -> list[int]:
        """Each hand's rank, in the request's order."""
        ranks = [0] * self.count
        for size, indexes in self.indexes.items():
            if indexes:
                found: array.array[int] = self.ranking.rank_many(self.buffers[size], size)
                for index, rank in zip(indexes, found, strict=True):
                    ranks[index] = rank
        return ranks


def parse_evaluate(request: pb.EvaluateRequest) -> Batch:
    if len(request.hands) > MAX_EVALUATE_BATCH:
        raise limit("hands", f"at most {MAX_EVALUATE_BATCH} hands a call")
    found = Violations()
    ranking = RANKING_FROM_PB.get(request.ranking)
    if ranking is None:
        found.add("ranking", f"unknown ranking {request.ranking}")
        ranking = HIGH
    indexes: dict[int, list[int]] = {size: [] for size in HAND_SIZES}
    buffers = {size: bytearray() for size in HAND_SIZES}
    for index, hand_msg in enumerate(request.hands):
        field = f"hands[{index}].cards"
        size = len(hand_msg.cards)
        if size not in indexes:
            found.add(field, f"a hand has 5 to 7 cards, got {size}")
            continue
        hand_cards = parse_cards(hand_msg.cards, field, found)
        if len(hand_cards) != size:  # a card did not parse
            continue
        if len(set(hand_cards)) != size:
            found.add(field, "a card appears twice")
            continue
        indexes[size].append(index)
        buffers[size].extend(hand_cards)
    found.check()
    return Batch(ranking, len(request.hands), indexes, buffers)


# ---- Equity -------------------------------------------------------------------------


@dataclass(frozen=True)
class EquityQuestion:
    """An Equity request, checked, for ``equity.stud_equity``: each player's known cards
    (down then up), the dead cards, the community card, the street (cards per player)."""

    known: list[list[int]]
    variant: Variant
    street: int
    dead: list[int]
    community_card: int | None
    method: str
    samples: int
    seed: int | None

    def options(self) -> dict[str, Any]:
        """The keyword arguments of ``equity.stud_equity``: every field but ``known``."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)[1:]}


def _known_cards(request: pb.EquityRequest, found: Violations) -> list[list[int]]:
    if not 2 <= len(request.players) <= eq.MAX_PLAYERS:
        found.add("players", f"equity takes 2 to {eq.MAX_PLAYERS} players")
    known = []
    for index, player in enumerate(request.players[: eq.MAX_PLAYERS]):
        up = parse_cards(player.up_cards, f"players[{index}].up_cards", found)
        down = parse_cards(player.down_cards, f"players[{index}].down_cards", found)
        known.append(down + up)
    return known


def _dead_and_community(
    request: pb.EquityRequest, found: Violations
) -> tuple[list[int], int | None]:
    dead: list[int] = []
    if len(request.dead_cards) > cardlib.DECK_SIZE:
        found.limit("dead_cards", f"at most {cardlib.DECK_SIZE} cards")
    else:
        dead = parse_cards(request.dead_cards, "dead_cards", found)
    community = None
    if request.HasField("community_card"):
        parsed = parse_cards([request.community_card], "community_card", found)
        community = parsed[0] if parsed else None
    return dead, community


def _street(
    request: pb.EquityRequest, variant: Variant, known: list[list[int]], community: int | None
) -> int:
    """The street asked for, or the cards each player holds: the most known of anyone,
    or as many as the up cards imply (seventh street with a community card)."""
    if request.HasField("street"):
        return request.street
    if community is not None:
        return 7
    first = VARIANTS[variant].first_street_cards
    by_up = max(len(p.up_cards) + first - 1 for p in request.players)
    return max(max(len(k) for k in known), by_up, first)


def parse_equity(request: pb.EquityRequest) -> EquityQuestion:
    found = Violations()
    variant = _variant(request.variant, found)
    known = _known_cards(request, found)
    dead, community = _dead_and_community(request, found)
    samples = request.samples or eq.DEFAULT_SAMPLES
    if samples > eq.MAX_SAMPLES:
        found.limit("samples", f"at most {eq.MAX_SAMPLES}")
    method = EQUITY_METHODS.get(request.method)
    if method is None:
        found.add("method", f"unknown method {request.method}")
    if variant is None or method is None or found:  # a None is one of the violations
        found.refuse()
    street = _street(request, variant, known, community)
    seed = request.seed if request.HasField("seed") else None
    return EquityQuestion(known, variant, street, dead, community, method, samples, seed)


__all__ = [
    "MAX_EVALUATE_BATCH",
    "Batch",
    "EquityQuestion",
    "Move",
    "NewHand",
    "Opener",
    "parse_act",
    "parse_equity",
    "parse_evaluate",
    "parse_get_view",
    "parse_history",
    "parse_start_hand",
    "refused_hand",
]
