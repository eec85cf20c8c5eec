"""The internal state proto (``stud.internal.v1.HandState``) -> the engine's Hand, and what
both directions share (the record, the codes); ``state.encoding`` writes the bytes and
the generated ``state_fields`` reads their fields back.

Every field of ``studengine.rules.hand.Hand`` is mapped, exactly; ``decode`` checks the
invariants an engine state keeps, one named check each (seat lists, chips and their
conservation, the deck and the cards dealt, the round, who acts; the table by the rules
engine's own ``validate_table``), and raises ``StateInvalid`` naming the broken one, so a
decoded hand is always safe to play.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from google.protobuf.message import DecodeError

from studengine import compiled
from studengine.cards import DECK_SIZE
from studengine.deal import check_inputs
from studengine.rules.betting import BettingRound
from studengine.rules.hand import Hand
from studengine.rules.types import (
    ACTION_TYPES,
    ActionType,
    HandResult,
    InvalidHand,
    Move,
    MoveLog,
    OddChip,
    Pot,
    ShownHand,
    Table,
    Variant,
)
from studengine.rules.validation import validate_table
from studengine.rules.variants import VARIANTS
from studengine.state._gen.stud.internal.v1 import state_fields as fields
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state._gen.stud.internal.v1.state_fields import (
    EngineHandFields,
    EngineResultFields,
    EngineTableFields,
    HandStateFields,
)
from studengine.state.bounded import BoundedCache
from studengine.state.checks import (
    StateInvalid as StateInvalid,  # re-exported: where callers have always found it
)
from studengine.state.checks import (
    _check,
    check_cards_dealt,
    check_chip_amounts,
    check_chips_conserved,
    check_deck,
    check_game_options,
    check_rake,
    check_round,
    check_seat_count,
    check_seat_lists,
    check_tabled,
    check_to_act,
)
from studengine.state.messages import TABLE_FIELDS
from studengine.state.wire import byte_string

if TYPE_CHECKING:  # a native (unboxed) integer in the compiled build, an int when run pure
    from mypy_extensions import i64

FORMAT_VERSION: Final = 1  # Final: read directly by the compiled build
HAND_ID_BYTES: Final = 16
SALT_BYTES: Final = 32
COMMITMENT_BYTES: Final = 32  # a SHA-256 digest
MAX_PLAYER_ID: Final = 64

VARIANT_CODES = {
    Variant.FIVE_CARD_STUD: 1,
    Variant.SEVEN_CARD_STUD: 2,
    Variant.RAZZ: 3,
    Variant.SEVEN_CARD_STUD_HI_LO: 4,
}
ODD_CHIP_CODES = {OddChip.LEFT_OF_DEALER: 1, OddChip.HIGH_CARD_BY_SUIT: 2}
_SPEC_BY_CODE: Final = {code: VARIANTS[v] for v, code in VARIANT_CODES.items()}  # no enum hash
ODD_CHIP_BY_CODE = {code: o for o, code in ODD_CHIP_CODES.items()}
# the action log's kinds (a 3-bit code each) and which of them carry a round total
ACTION_KINDS: Final = ACTION_TYPES  # a kind's code is its place (``action_index``)
_SIZED: Final = tuple(kind not in (ActionType.FOLD, ActionType.CHECK) for kind in ACTION_KINDS)


def commit_deck(hand_id: bytes, salt: bytes, deck: bytes) -> bytes:
    """The public commitment to the deal: SHA-256 of hand_id || salt || the deck's bytes."""
    return hashlib.sha256(hand_id + salt + deck).digest()


@dataclass(frozen=True)
class DealEntropy:
    """What a verifiable deal's deck follows from, beside the hand id (``studengine.deal``):
    the deal ticket's server seed and the players' contributions in seat order."""

    server_seed: bytes
    contributions: tuple[bytes, ...]


@dataclass
class HandRecord:
    """A hand's full state: the engine's Hand plus what the service keeps beside it, the
    deck's bytes and commitment among it (``commit_deck``), each made once, when not given:
    the deck never changes within a hand (R-DECK); ``deal`` when the hand was dealt with a
    ticket."""

    hand_id: bytes
    seq: int
    test_deck: bool
    salt: bytes
    player_ids: list[str]
    hand: Hand
    deck_bytes: bytes
    deck_commitment: bytes
    deal: DealEntropy | None

    # Written out, not generated: the compiled build runs a class's own __init__ natively,
    # a dataclass-generated one in the interpreter (every decode makes a record).
    def __init__(
        self,
        hand_id: bytes,
        seq: int,
        test_deck: bool,
        salt: bytes,
        player_ids: list[str],
        hand: Hand,
        deck_commitment: bytes | None = None,
        deal: DealEntropy | None = None,
        deck_bytes: bytes | None = None,
    ) -> None:
        self.hand_id = hand_id
        self.seq = seq
        self.test_deck = test_deck
        self.salt = salt
        self.player_ids = player_ids
        self.hand = hand
        if deck_bytes is None:
            deck_bytes = byte_string(hand.deck)
        self.deck_bytes = deck_bytes
        if deck_commitment is None:
            deck_commitment = commit_deck(hand_id, salt, deck_bytes)
        self.deck_commitment = deck_commitment
        self.deal = deal


def read_varint(raw: bytes, at: int) -> tuple[int, int]:
    """The varint at ``raw[at]`` and the index after it, not cut to 64 bits (an action's
    total is an int of up to 70 bits, checked after); ValueError when it is truncated or
    longer than ten bytes."""
    value = shift = 0
    end = len(raw)
    while True:
        if at >= end or shift > 63:
            raise ValueError("a truncated varint")
        byte = raw[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _packed_move(raw: bytes, at: i64, players: i64, index: i64) -> tuple[i64, int, i64]:
    """The packed action at ``raw[at]`` (the log's ``index``-th): its head byte, its
    round total (-1 for an unsized kind) and where the next starts; StateInvalid when it
    is malformed."""
    head: i64 = raw[at]
    at += 1
    seat, code = head >> 4, head >> 1 & 7
    if seat >= players:
        raise StateInvalid(f"moves[{index}]: seat {seat} is not a seat (0 to {players - 1})")
    if code >= len(ACTION_KINDS):
        raise StateInvalid(f"moves[{index}]: unknown action kind {code}")
    if not _SIZED[code]:
        return head, -1, at
    if at < len(raw) and raw[at] < 0x80:  # a one-byte total: no call for it
        return head, raw[at], at + 1
    try:
        to, after = read_varint(raw, at)  # up to 70 bits: an int, not an i64
    except ValueError:
        raise StateInvalid(f"moves[{index}]: a truncated amount") from None
    return head, to, after


def check_moves(raw: bytes, players: int) -> None:
    """StateInvalid naming the first malformed action of a packed log, as ``unpack_moves``
    would, without making its Moves."""
    at: i64 = 0
    index: i64 = 0
    while at < len(raw):
        at = _packed_move(raw, at, players, index)[2]
        index += 1


def unpack_moves(raw: bytes, players: int) -> list[Move]:
    """``pack_moves`` undone; StateInvalid names the first malformed action."""
    moves: list[Move] = []  # moves.append: a native append when compiled (a bound one is not)
    at: i64 = 0
    while at < len(raw):
        head, to, at = _packed_move(raw, at, players, len(moves))
        kind = ACTION_KINDS[head >> 1 & 7]
        moves.append(Move(head >> 4, kind, None if to < 0 else to, bool(head & 1)))
    return moves


def _read_checked_moves(raw: bytes) -> list[Move]:
    """A decoded hand's packed log, read when its moves are asked for (``check_moves``
    checked it when the state was decoded: any seat of the head's four bits passes)."""
    return unpack_moves(raw, 16)


def move_log(raw: bytes, players: int) -> MoveLog:
    """A state's action log, checked now and read only when its moves are asked for: an
    Act adds one move to it and writes the packed ones back as they came."""
    check_moves(raw, players)
    return MoveLog.of_stored(raw, _read_checked_moves)


# ---- decoding ----------------------------------------------------------------------
# The named checks, one per invariant an engine state keeps, are in state.checks.


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


def _decode_result(msg: EngineResultFields, players: int) -> HandResult:
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


_TABLES: BoundedCache[bytes, Table] = BoundedCache()  # a few distinct tables serve many calls


def _decode_table(msg: EngineTableFields | None) -> Table:
    """The table, checked by the rules engine's own validation (R-STAKES); tables are
    immutable, so each distinct one (by the bytes it was read from) is made and checked
    once."""
    if msg is None:
        msg = EngineTableFields()
    table = _TABLES.found.get(msg.wire)
    if table is not None:
        return table
    # every field by its name (once per distinct table: no cost to the calls)
    values = {field.name: getattr(msg, field.name) for field in TABLE_FIELDS}
    values["odd_chip"] = ODD_CHIP_BY_CODE.get(msg.odd_chip)
    if values["odd_chip"] is None:
        raise StateInvalid(f"table.odd_chip: unknown code {msg.odd_chip}")
    table = Table(**values)
    try:
        validate_table(table)
    except InvalidHand as error:
        raise StateInvalid(f"{error.field}: {error.reason}") from None
    return _TABLES.put(msg.wire, table)


def _optional_seat(value: int | None, players: int, name: str) -> int | None:
    if value is None:
        return None
    return _seat(value, players, name)


#: the per-seat lists' fields, by name (check_seat_lists)
_SEAT_LISTS: Final = ("stacks", "committed", "round_bets", "cards", "folded", "acted")


def decode_hand(msg: EngineHandFields) -> Hand:
    """The engine's Hand, every invariant checked (``StateInvalid`` names the broken one);
    its lists are ``msg``'s own."""
    spec = _SPEC_BY_CODE.get(msg.variant)
    if spec is None:
        raise StateInvalid(f"variant: unknown code {msg.variant}")
    variant = spec.variant
    table = _decode_table(msg.table)
    starting_stacks, stacks, committed = msg.starting_stacks, msg.stacks, msg.committed
    round_bets, raw_cards, folded, acted = msg.round_bets, msg.cards, msg.folded, msg.acted
    players = len(starting_stacks)
    raw_deck = msg.deck
    dealt = msg.dealt
    community = msg.community
    street, level, full_level, over = msg.street, msg.level, msg.full_level, msg.over
    check_seat_count(spec, players)
    check_seat_lists(
        _SEAT_LISTS, (stacks, committed, round_bets, raw_cards, folded, acted), players
    )
    check_chip_amounts(starting_stacks, stacks, committed, round_bets)
    check_game_options(spec, table)
    check_deck(raw_deck, dealt)
    check_cards_dealt(spec, raw_cards, community, raw_deck, dealt)
    check_round(spec, street, level, full_level, over, msg.result is not None)
    result = _decode_result(msg.result, players) if msg.result is not None and over else None
    check_chips_conserved(starting_stacks, stacks, committed, 0 if result is None else result.rake)
    to_act = _optional_seat(msg.to_act, players, "to_act")
    check_to_act(to_act, over, folded, stacks)
    tabled = msg.tabled
    for seat in tabled:
        _seat(seat, players, "tabled seat")
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
        street=street,
        to_act=to_act,
        round=BettingRound(
            table=table,
            big_street=spec.streets[street].big_bet,
            bets=round_bets,
            acted=acted,
            held=msg.round_held,
            level=level,
            full_level=full_level,
            full_bets=msg.bets,
            uncapped=msg.uncapped,
            open_pair=msg.open_pair,
            big_made=msg.big_made,
            bring_in_due=msg.bring_in_due,
            opener_may_fold=msg.opener_may_fold,
            first_actor=_optional_seat(msg.first_actor, players, "first_actor"),
            last_aggressor=_optional_seat(msg.last_aggressor, players, "last_aggressor"),
        ),
        over=over,
        result=result,
        moves=move_log(msg.moves, players),
        tabled=tabled,
    )


# The compiled build reads the bytes itself; the pure build, by protobuf's C parser
# (``state_fields.parse``: quicker there than Python's loops over the bytes).
READS_BYTES: Final = compiled.BUILD == "mypyc"


def decode(data: bytes) -> HandRecord:
    """Read and check a state; any problem raises StateInvalid naming it (bytes that are
    not a HandState: ``reader.MALFORMED``)."""
    if READS_BYTES:
        return decode_state(fields.read(data))
    return decode_state(fields.parse(data))


def decode_state(msg: HandStateFields) -> HandRecord:
    """The record of a state's fields, every invariant checked."""
    version, hand_id, salt = msg.format_version, msg.hand_id, msg.salt
    if version != FORMAT_VERSION:
        raise StateInvalid(f"format version {version}")
    if len(hand_id) != HAND_ID_BYTES:
        raise StateInvalid(f"hand id of {len(hand_id)} bytes")
    if len(salt) != SALT_BYTES:
        raise StateInvalid(f"salt of {len(salt)} bytes")
    if msg.hand is None:
        raise StateInvalid("no hand")
    hand = decode_hand(msg.hand)
    player_ids = msg.player_ids
    if len(player_ids) != hand.players:
        raise StateInvalid(f"{len(player_ids)} player ids, {hand.players} seats")
    if not all(0 < len(p) <= MAX_PLAYER_ID for p in player_ids):
        raise StateInvalid(f"a player id is empty or longer than {MAX_PLAYER_ID}")
    return HandRecord(
        hand_id=hand_id,
        seq=msg.seq,
        test_deck=msg.test_deck,
        salt=salt,
        player_ids=player_ids,
        hand=hand,
        deck_commitment=_deck_commitment(msg.deck_commitment),
        deal=decode_deal(msg.deal, hand.players) if msg.deal else None,
        deck_bytes=msg.hand.deck,
    )


def _deck_commitment(kept: bytes) -> bytes | None:
    """The state's deck commitment, or None (the record computes it) in a state made
    before it was kept. Only its length is checked: the state is authenticated, so a
    commitment of the right length is the one its server made at StartHand (checking it
    again would cost what keeping it saves); one of another length is a broken state,
    refused rather than shown as a commitment."""
    if not kept:
        return None
    if len(kept) != COMMITMENT_BYTES:
        raise StateInvalid(f"deck commitment of {len(kept)} bytes")
    return kept


def decode_deal(raw: bytes, players: int) -> DealEntropy:
    """A state's ``DealEntropy`` (its bytes), checked against the scheme's bounds."""
    try:
        msg = state_pb2.DealEntropy.FromString(raw)
    except DecodeError:
        raise StateInvalid("deal: malformed") from None
    entropy = DealEntropy(msg.server_seed, tuple(msg.contributions))
    if len(entropy.contributions) != players:
        raise StateInvalid(f"deal: {len(entropy.contributions)} contributions, {players} seats")
    try:
        check_inputs(entropy.server_seed, bytes(HAND_ID_BYTES), entropy.contributions)
    except ValueError as error:
        raise StateInvalid(f"deal: {error}") from None
    return entropy


def deal_bytes(deal: DealEntropy) -> bytes:
    """``DealEntropy``'s bytes, as ``SerializeToString(deterministic=True)`` writes them."""
    msg = state_pb2.DealEntropy(server_seed=deal.server_seed, contributions=deal.contributions)
    return msg.SerializeToString(deterministic=True)
