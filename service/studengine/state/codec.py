"""The internal state proto (``stud.internal.v1.HandState``) -> the engine's Hand, and what
both directions share (the record, the codes); ``state.encoding`` writes the bytes.

Every field of ``studengine.rules.hand.Hand`` is mapped, exactly; ``decode`` checks the
invariants an engine state keeps, one named check each (seat lists, chips and their
conservation, the deck and the cards dealt, the round, who acts; the table by the rules
engine's own ``validate_table``), and raises ``StateInvalid`` naming the broken one, so a
decoded hand is always safe to play.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass
from operator import le
from typing import Final, Literal

from google.protobuf.message import DecodeError

from studengine.cards import DECK_SIZE
from studengine.rules.betting import BettingRound
from studengine.rules.hand import Hand
from studengine.rules.types import (
    ActionType,
    HandResult,
    InvalidHand,
    Move,
    OddChip,
    Pot,
    ShownHand,
    Table,
    Variant,
)
from studengine.rules.validation import validate_game, validate_table
from studengine.rules.variants import VARIANTS, VariantSpec
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.messages import table_values
from studengine.state.wire import read_varint

FORMAT_VERSION = 1
HAND_ID_BYTES = 16
SALT_BYTES = 32
MAX_PLAYER_ID = 64

FULL_DECK = frozenset(range(DECK_SIZE))
_MAX_TABLES = 256  # bound on the caches of distinct tables
VARIANT_CODES = {
    Variant.FIVE_CARD_STUD: 1,
    Variant.SEVEN_CARD_STUD: 2,
    Variant.RAZZ: 3,
    Variant.SEVEN_CARD_STUD_HI_LO: 4,
}
ODD_CHIP_CODES = {OddChip.LEFT_OF_DEALER: 1, OddChip.HIGH_CARD_BY_SUIT: 2}
VARIANT_BY_CODE = {code: v for v, code in VARIANT_CODES.items()}
ODD_CHIP_BY_CODE = {code: o for o, code in ODD_CHIP_CODES.items()}
# the action log's kinds (a 3-bit code each) and which of them carry a round total
ACTION_KINDS: Final[tuple[ActionType, ...]] = tuple(ActionType)
_UNSIZED_CODES = frozenset(
    {ACTION_KINDS.index(ActionType.FOLD), ACTION_KINDS.index(ActionType.CHECK)}
)


class StateInvalid(ValueError):
    """The bytes are not a state this server made (the reason is for tests and logs only)."""


@dataclass
class HandRecord:
    """A hand's full state: the engine's Hand plus what the service keeps beside it."""

    hand_id: bytes
    seq: int
    test_deck: bool
    salt: bytes
    player_ids: list[str]
    hand: Hand


def unpack_moves(raw: bytes, players: int) -> list[Move]:
    """``pack_moves`` undone; StateInvalid names the first malformed action."""
    moves: list[Move] = []
    append, kinds, unsized = moves.append, ACTION_KINDS, _UNSIZED_CODES
    at, end = 0, len(raw)
    while at < end:
        head = raw[at]
        at += 1
        seat, code = head >> 4, head >> 1 & 7
        if seat >= players:
            raise StateInvalid(
                f"moves[{len(moves)}]: seat {seat} is not a seat (0 to {players - 1})"
            )
        if code >= len(kinds):
            raise StateInvalid(f"moves[{len(moves)}]: unknown action kind {code}")
        if code in unsized:
            append(Move(seat, kinds[code], None, bool(head & 1)))
            continue
        if at < end and raw[at] < 0x80:  # a one-byte total: no call for it
            to = raw[at]
            at += 1
        else:
            try:
                to, at = read_varint(raw, at)
            except ValueError:
                raise StateInvalid(f"moves[{len(moves)}]: a truncated amount") from None
        append(Move(seat, kinds[code], to, bool(head & 1)))
    return moves


# ---- decoding ----------------------------------------------------------------------
# One named check per invariant an engine state keeps; each refusal says precisely what
# is wrong (for tests and logs: callers only ever get the one uniform answer).


def _check(ok: bool, why: str) -> None:
    """Refuse unless ``ok`` (a refusal whose reason has values in it raises in place
    instead: an f-string would be formatted on every call, refused or not)."""
    if not ok:
        raise StateInvalid(why)


def _seat(value: int, players: int, what: str) -> int:
    if not 0 <= value < players:
        raise StateInvalid(f"{what} {value} is not a seat (0 to {players - 1})")
    return value


def _seats(values: Sequence[int], players: int, what: str) -> tuple[int, ...]:
    return tuple(_seat(v, players, what) for v in values)


def _chips(values: Sequence[int], what: str) -> list[int]:
    if min(values, default=0) < 0:
        raise StateInvalid(f"{what}: a negative amount")
    return list(values)


def _cards(raw: bytes, what: str) -> list[int]:
    if max(raw, default=0) >= DECK_SIZE:
        raise StateInvalid(f"{what}: a card out of range")
    return list(raw)


def _decode_result(msg: state_pb2.EngineResult, players: int) -> HandResult:
    pots = []
    for index, p in enumerate(msg.pots):
        if len(p.winners) != len(p.shares):
            raise StateInvalid(f"pot {index}: winners and shares differ")
        if len(p.low_winners) != len(p.low_shares):
            raise StateInvalid(f"pot {index}: low winners and low shares differ")
        if p.rake < 0:
            raise StateInvalid(f"pot {index}: a negative rake")
        pots.append(
            Pot(
                amount=p.amount,
                eligible=_seats(p.eligible, players, f"pot {index} eligible"),
                winners=_seats(p.winners, players, f"pot {index} winner"),
                shares=tuple(_chips(p.shares, f"pot {index} shares")),
                low_winners=_seats(p.low_winners, players, f"pot {index} low winner"),
                low_shares=tuple(_chips(p.low_shares, f"pot {index} low shares")),
                rake=p.rake,
            )
        )
    check_rake(msg.rake, pots)
    _check(len(msg.stacks) == players, "result: one final stack per player")
    shown = [
        ShownHand(
            seat=_seat(s.seat, players, "shown seat"),
            cards=tuple(_cards(s.cards, "shown cards")),
            best_five=tuple(_cards(s.best_five, "shown best five")),
            rank=s.rank,
            description=s.description,
            low=s.low,
            low_best_five=tuple(_cards(s.low_best_five, "shown low best five")),
            low_description=s.low_description,
        )
        for s in msg.shown
    ]
    uncalled = tuple((_seat(u.seat, players, "uncalled seat"), u.amount) for u in msg.uncalled)
    return HandResult(
        pots=tuple(pots),
        stacks=tuple(_chips(msg.stacks, "result stacks")),
        shown=tuple(shown),
        uncalled=uncalled,
        rake=msg.rake,
    )


_TABLES: dict[bytes, Table] = {}  # a few distinct tables serve many calls


def _decode_table(msg: state_pb2.EngineTable) -> Table:
    """The table, checked by the rules engine's own validation (R-STAKES); tables are
    immutable, so each distinct one is made and checked once."""
    key = msg.SerializeToString(deterministic=True)
    table = _TABLES.get(key)
    if table is not None:
        return table
    values = table_values(msg, {OddChip: ODD_CHIP_BY_CODE})
    for name, value in values.items():
        if value is None:
            raise StateInvalid(f"table.{name}: unknown code {getattr(msg, name)}")
    table = Table(**values)
    try:
        validate_table(table)
    except InvalidHand as error:
        raise StateInvalid(f"{error.field}: {error.reason}") from None
    if len(_TABLES) >= _MAX_TABLES:
        _TABLES.clear()
    _TABLES[key] = table
    return table


OptionalSeat = Literal["to_act", "first_actor", "last_aggressor"]


def _optional_seat(msg: state_pb2.EngineHand, name: OptionalSeat, players: int) -> int | None:
    if not msg.HasField(name):
        return None
    return _seat(getattr(msg, name), players, name)


def check_seat_count(spec: VariantSpec, players: int) -> None:
    if not spec.min_players <= players <= spec.max_players:
        raise StateInvalid(
            f"{players} players: {spec.variant.value} takes"
            f" {spec.min_players} to {spec.max_players}"
        )


def check_seat_lists(lists: dict[str, Sized], players: int) -> None:
    """Every per-seat list (by its field's name) has one entry per player."""
    for name, values in lists.items():
        size = len(values)
        if size != players:
            raise StateInvalid(f"{name} has {size} entries for {players} players")


def check_chip_amounts(
    starting: list[int], stacks: list[int], committed: list[int], round_bets: list[int]
) -> None:
    _check(min(starting) > 0, "a starting stack is not positive")
    _check(min(stacks) >= 0, "a stack is negative")
    _check(min(committed) >= 0, "a committed amount is negative")
    _check(min(round_bets) >= 0, "a round bet is negative")
    _check(all(map(le, round_bets, committed)), "a round bet is above the seat's committed chips")


def check_chips_conserved(
    starting: list[int], stacks: list[int], committed: list[int], rake: int
) -> None:
    """R-CONSERVATION: stacks plus chips committed to the pot (plus the rake taken, once
    the hand is over, R-RAKE) are the starting stacks."""
    have, had = sum(stacks) + sum(committed) + rake, sum(starting)
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


def check_deck(raw_deck: bytes, dealt: int) -> None:
    """The deck is the 52 cards once each (52 entries that make up the full set: a set,
    not a sort, is the cheaper proof), and no more than the deck is dealt."""
    _check(
        len(raw_deck) == DECK_SIZE and set(raw_deck) == FULL_DECK,
        "the deck is not the 52 cards once each",
    )
    if dealt > DECK_SIZE:
        raise StateInvalid(f"{dealt} cards dealt from a deck of {DECK_SIZE}")


def check_cards_dealt(
    spec: VariantSpec, raw_cards: list[bytes], community: int | None, raw_deck: bytes, dealt: int
) -> None:
    """The seats' cards (and the community card) are exactly the deck's first ``dealt``.

    The deck is checked first (``check_deck``), so its first ``dealt`` cards are distinct:
    ``dealt`` cards in play that make up their set are those cards, once each."""
    most = max(map(len, raw_cards))
    if most > spec.cards_per_player:
        raise StateInvalid(f"a seat holds {most} cards, at most {spec.cards_per_player}")
    held = b"".join(raw_cards)
    in_play = set(held)
    count = len(held)
    if community is not None:
        in_play.add(community)
        count += 1
    _check(
        count == dealt and in_play == set(raw_deck[:dealt]),
        "the cards in play are not the ones dealt",
    )


def check_round(spec: VariantSpec, msg: state_pb2.EngineHand) -> None:
    if msg.street >= len(spec.streets):
        raise StateInvalid(f"street {msg.street} is not one of the variant's")
    _check(msg.level >= 0 and msg.full_level >= 0, "a negative betting level")
    _check(msg.over == msg.HasField("result"), "over and result disagree")


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


def decode_hand(msg: state_pb2.EngineHand) -> Hand:
    """The engine's Hand, every invariant checked (``StateInvalid`` names the broken one)."""
    variant = VARIANT_BY_CODE.get(msg.variant)
    if variant is None:
        raise StateInvalid(f"variant: unknown code {msg.variant}")
    spec = VARIANTS[variant]
    table = _decode_table(msg.table)
    # each repeated field copied once, as a list (a slice: cheaper than list())
    starting_stacks = msg.starting_stacks[:]
    stacks = msg.stacks[:]
    committed = msg.committed[:]
    round_bets = msg.round_bets[:]
    raw_cards = msg.cards[:]
    folded = msg.folded[:]
    acted = msg.acted[:]
    players = len(starting_stacks)
    raw_deck = msg.deck
    dealt = msg.dealt
    community = msg.community if msg.HasField("community") else None
    check_seat_count(spec, players)
    check_seat_lists(
        {
            "stacks": stacks,
            "committed": committed,
            "round_bets": round_bets,
            "cards": raw_cards,
            "folded": folded,
            "acted": acted,
        },
        players,
    )
    check_chip_amounts(starting_stacks, stacks, committed, round_bets)
    check_game_options(spec, table)
    check_deck(raw_deck, dealt)
    check_cards_dealt(spec, raw_cards, community, raw_deck, dealt)
    check_round(spec, msg)
    result = _decode_result(msg.result, players) if msg.over else None
    check_chips_conserved(starting_stacks, stacks, committed, 0 if result is None else result.rake)
    over = msg.over
    to_act = _optional_seat(msg, "to_act", players)
    check_to_act(to_act, over, folded, stacks)
    tabled = list(_seats(msg.tabled, players, "tabled seat"))
    check_tabled(tabled, table, folded, to_act)
    return Hand(
        variant=variant,
        table=table,
        button=_seat(msg.button, players, "button"),
        starting_stacks=starting_stacks,
        deck=list(raw_deck),
        dealt=dealt,
        stacks=stacks,
        committed=committed,
        cards=[list(c) for c in raw_cards],
        community=community,
        folded=folded,
        street=msg.street,
        to_act=to_act,
        round=BettingRound(
            table=table,
            big_street=spec.streets[msg.street].big_bet,
            bets=round_bets,
            acted=acted,
            held=msg.round_held,
            level=msg.level,
            full_level=msg.full_level,
            full_bets=msg.bets,
            uncapped=msg.uncapped,
            open_pair=msg.open_pair,
            big_made=msg.big_made,
            bring_in_due=msg.bring_in_due,
            opener_may_fold=msg.opener_may_fold,
            first_actor=_optional_seat(msg, "first_actor", players),
            last_aggressor=_optional_seat(msg, "last_aggressor", players),
        ),
        over=over,
        result=result,
        moves=unpack_moves(msg.moves, players),
        tabled=tabled,
    )


def decode(data: bytes) -> HandRecord:
    """Parse and check a state; any problem raises StateInvalid naming it."""
    msg = state_pb2.HandState()
    try:
        msg.ParseFromString(data)
    except (DecodeError, RuntimeWarning, ValueError) as error:
        raise StateInvalid("not a state proto") from error
    if msg.format_version != FORMAT_VERSION:
        raise StateInvalid(f"format version {msg.format_version}")
    if len(msg.hand_id) != HAND_ID_BYTES:
        raise StateInvalid(f"hand id of {len(msg.hand_id)} bytes")
    if len(msg.salt) != SALT_BYTES:
        raise StateInvalid(f"salt of {len(msg.salt)} bytes")
    _check(msg.HasField("hand"), "no hand")
    hand = decode_hand(msg.hand)
    player_ids = msg.player_ids[:]
    if len(player_ids) != hand.players:
        raise StateInvalid(f"{len(player_ids)} player ids, {hand.players} seats")
    if not all(0 < len(p) <= MAX_PLAYER_ID for p in player_ids):
        raise StateInvalid(f"a player id is empty or longer than {MAX_PLAYER_ID}")
    return HandRecord(
        hand_id=msg.hand_id,
        seq=msg.seq,
        test_deck=msg.test_deck,
        salt=msg.salt,
        player_ids=player_ids,
        hand=hand,
    )
