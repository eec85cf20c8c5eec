"""The internal state's bytes (``stud.internal.v1.HandState``) read as protobuf's parser
reads them, into a plain record of each message's fields under the names of
``state.proto``; ``codec.decode`` checks them and makes the Hand. No message is built.

What protobuf's parser accepts is accepted, the same way: fields in any order; a known field
of another wire type skipped as unknown; repeated numbers packed or one by one; a later
value of a singular field over an earlier one; a message field given twice merged; unknown
fields of every wire type skipped, groups nested up to ``MAX_DEPTH`` (with the messages
around them); varints of up to ten bytes, cut to 64 bits (an int64 as two's complement, a
uint32 to its low 32 bits); strings valid UTF-8. What it refuses is malformed here:
``StateInvalid(MALFORMED)``. ``state.message_reader`` makes the same records by protobuf's
parser (the pure build's way); the tests hold both to it (``state_decode_reference``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from studengine.state._gen.stud.internal.v1 import state_keys as keys
from studengine.state.bounded import BoundedCache
from studengine.state.checks import StateInvalid, well_formed_message

if TYPE_CHECKING:  # a native (unboxed) integer in the compiled build, an int when run pure
    from mypy_extensions import i64

MALFORMED: Final = "not a state proto"
MAX_DEPTH: Final = 100  # protobuf's default recursion limit: messages and groups nested

# the wire types
VARINT: Final = 0
FIXED64: Final = 1
LEN: Final = 2  # length-delimited: a message, bytes, a string or packed numbers
START_GROUP: Final = 3
END_GROUP: Final = 4
FIXED32: Final = 5

_SHORT: Final = 0x3FFFFFFFFFFFFFFF  # 2**62 - 1: the compiled build compares up to it inline
_INT64_SIGN: Final = 1 << 63
_UINT64: Final = 1 << 64
_UINT32_MASK: Final = 0xFFFFFFFF


class Cursor:
    """Reads the fields of one message, ``data[at:end]``, ``depth`` messages and groups
    deep; every read past ``end`` or of a malformed value raises ``StateInvalid``."""

    def __init__(self, data: bytes, at: i64, end: i64, depth: i64) -> None:
        self.data = data
        self.at = at
        self.end = end
        self.depth = depth

    def more(self) -> bool:
        return self.at < self.end

    def key(self) -> i64:
        """The next field's key, number << 3 | wire type (at most five bytes, 32 bits)."""
        start = self.at
        if start < self.end:
            first: i64 = self.data[start]
            if first < 0x80:  # fields 1 to 15: one byte
                self.at = start + 1
                return first
        key = self.varint()
        if key > _UINT32_MASK or self.at - start > 5:
            raise StateInvalid(MALFORMED)
        return key

    def varint(self) -> int:
        """A varint of up to ten bytes, cut to 64 bits (a uint64)."""
        data, at, end = self.data, self.at, self.end
        if at < end:  # most are one or two bytes: a key, a seat, a stack
            first = data[at]
            if first < 0x80:
                self.at = at + 1
                return first
            if at + 1 < end and data[at + 1] < 0x80:
                self.at = at + 2
                return first - 0x80 + (data[at + 1] << 7)
        value = shift = 0
        while True:
            if at >= end or shift > 63:
                raise StateInvalid(MALFORMED)
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        self.at = at
        return value % _UINT64 if shift == 63 else value

    def int64(self) -> int:
        """An int64: a uint64 from 2**63 on is negative (two's complement)."""
        value = self.varint()
        if value <= _SHORT:
            return value
        return value - _UINT64 if value >= _INT64_SIGN else value

    def uint32(self) -> int:
        return self.varint() & _UINT32_MASK

    def boolean(self) -> bool:
        return self.varint() != 0

    def length(self) -> i64:
        """A length-delimited field's length (at most five bytes), within the message:
        where the field ends."""
        start = self.at
        size = self.varint()
        if self.at - start > 5 or size > self.end - self.at:
            raise StateInvalid(MALFORMED)
        return self.at + size

    def chunk(self) -> bytes:
        """A bytes field."""
        end = self.length()
        value = self.data[self.at : end]
        self.at = end
        return value

    def text(self) -> str:
        """A string field: valid UTF-8."""
        try:
            return self.chunk().decode()
        except UnicodeDecodeError:
            raise StateInvalid(MALFORMED) from None

    def message(self) -> Cursor:
        """A message field: a cursor over its fields (this one goes on after them)."""
        end = self.length()
        if self.depth >= MAX_DEPTH:
            raise StateInvalid(MALFORMED)
        inner = Cursor(self.data, self.at, end, self.depth + 1)
        self.at = end
        return inner

    def int64s(self, key: i64, out: list[int]) -> None:
        """A repeated int64 field's values, packed (LEN) or one (VARINT)."""
        if key & 7 == VARINT:
            out.append(self.int64())
            return
        end, outer = self.length(), self.end
        self.end = end
        data = self.data
        while self.at < end:
            # a value of one or two bytes (most are: a seat's chips) read here, as varint()
            # reads it; a longer one by int64() (compiled, the calls cost more than the read)
            at = self.at
            first: i64 = data[at]
            if first < 0x80:
                out.append(first)
                self.at = at + 1
            elif at + 1 < end and data[at + 1] < 0x80:
                second: i64 = data[at + 1]
                out.append(first - 0x80 + (second << 7))
                self.at = at + 2
            else:
                out.append(self.int64())
        self.end = outer

    def uint32s(self, key: i64, out: list[int]) -> None:
        """A repeated uint32 field's values, packed (LEN) or one (VARINT)."""
        if key & 7 == VARINT:
            out.append(self.uint32())
            return
        end, outer = self.length(), self.end
        self.end = end
        while self.at < end:
            out.append(self.uint32())
        self.end = outer

    def booleans(self, key: i64, out: list[bool]) -> None:
        """A repeated bool field's values, packed (LEN) or one (VARINT)."""
        if key & 7 == VARINT:
            out.append(self.boolean())
            return
        end, outer = self.length(), self.end
        self.end = end
        data = self.data
        while self.at < end:
            at = self.at
            first: i64 = data[at]
            if first < 0x80:  # a flag of one byte (every flag written) read here
                out.append(first != 0)
                self.at = at + 1
            else:
                out.append(self.boolean())
        self.end = outer

    def skip(self, key: i64) -> None:
        """An unknown field (or a known one of another wire type), skipped as protobuf
        skips it: field number 0 and a stray group end are malformed."""
        if key >> 3 == 0:
            raise StateInvalid(MALFORMED)
        self._skip_value(key >> 3, key & 7)

    def _skip_value(self, number: i64, wire: i64) -> None:
        if wire == VARINT:
            self.varint()
        elif wire == FIXED64:
            self._skip_bytes(8)
        elif wire == LEN:
            self.at = self.length()
        elif wire == START_GROUP:
            self._skip_group(number)
        elif wire == FIXED32:
            self._skip_bytes(4)
        else:  # a group's end outside its group, or no wire type (6, 7)
            raise StateInvalid(MALFORMED)

    def _skip_bytes(self, size: i64) -> None:
        if size > self.end - self.at:
            raise StateInvalid(MALFORMED)
        self.at += size

    def _skip_group(self, number: i64) -> None:
        """A group's fields (any number, 0 too) up to the end of group ``number``."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise StateInvalid(MALFORMED)
        while True:
            if self.at >= self.end:
                raise StateInvalid(MALFORMED)
            key = self.key()
            if key & 7 == END_GROUP:
                if key >> 3 != number:
                    raise StateInvalid(MALFORMED)
                break
            self._skip_value(key >> 3, key & 7)
        self.depth -= 1


# ---- the messages' fields: as protobuf holds them when not given (``None``: not given) --


class StateFields:
    """HandState."""

    def __init__(self) -> None:
        self.format_version = 0
        self.hand_id = b""
        self.seq = 0
        self.test_deck = False
        self.salt = b""
        self.player_ids: list[str] = []
        self.hand: HandFields | None = None
        self.deck_commitment = b""
        self.deal = b""  # DealEntropy's bytes (codec.decode_deal reads them)


class HandFields:
    """EngineHand."""

    def __init__(self) -> None:
        self.variant = 0
        self.table: TableFields | None = None
        self.button = 0
        self.starting_stacks: list[int] = []
        self.deck = b""
        self.dealt = 0
        self.stacks: list[int] = []
        self.committed: list[int] = []
        self.round_bets: list[int] = []
        self.cards: list[bytes] = []
        self.community: int | None = None
        self.folded: list[bool] = []
        self.acted: list[bool] = []
        self.street = 0
        self.to_act: int | None = None
        self.level = 0
        self.full_level = 0
        self.bets = 0
        self.uncapped = False
        self.open_pair = False
        self.big_made = False
        self.bring_in_due = False
        self.opener_may_fold = False
        self.first_actor: int | None = None
        self.last_aggressor: int | None = None
        self.round_held = False
        self.over = False
        self.result: ResultFields | None = None
        self.moves = b""
        self.tabled: list[int] = []


class TableFields:
    """EngineTable; ``wire`` is the bytes they were read from (each occurrence's, in
    order), by which ``codec`` finds a table it made before."""

    def __init__(self) -> None:
        self.wire = b""
        self.ante = 0
        self.bring_in = 0
        self.small_bet = 0
        self.big_bet = 0
        self.max_bets = 0
        self.uncapped_heads_up = False
        self.open_pair_big_bet = False
        self.odd_chip = 0
        self.rake_percent_bp = 0
        self.rake_cap = 0
        self.all_in_face_up = False


class ResultFields:
    """EngineResult."""

    def __init__(self) -> None:
        self.pots: list[PotFields] = []
        self.stacks: list[int] = []
        self.shown: list[ShownFields] = []
        self.uncalled: list[UncalledFields] = []
        self.rake = 0


class PotFields:
    """EnginePot."""

    def __init__(self) -> None:
        self.amount = 0
        self.eligible: list[int] = []
        self.winners: list[int] = []
        self.shares: list[int] = []
        self.low_winners: list[int] = []
        self.low_shares: list[int] = []
        self.rake = 0


class ShownFields:
    """EngineShownHand."""

    def __init__(self) -> None:
        self.seat = 0
        self.cards = b""
        self.best_five = b""
        self.rank = 0
        self.description = ""
        self.low = 0
        self.low_best_five = b""
        self.low_description = ""


class UncalledFields:
    """EngineUncalled."""

    def __init__(self) -> None:
        self.seat = 0
        self.amount = 0


# ---- one reader per message: each field by its key (generated from state.proto) -------


def read_state(data: bytes) -> StateFields:
    """HandState's fields; ``StateInvalid(MALFORMED)`` when ``data`` is not one."""
    state = StateFields()
    c = Cursor(data, 0, len(data), 0)
    while c.more():
        key = c.key()
        if key == keys.HAND_STATE_FORMAT_VERSION:
            state.format_version = c.uint32()
        elif key == keys.HAND_STATE_HAND_ID:
            state.hand_id = c.chunk()
        elif key == keys.HAND_STATE_SEQ:
            state.seq = c.varint()
        elif key == keys.HAND_STATE_TEST_DECK:
            state.test_deck = c.boolean()
        elif key == keys.HAND_STATE_SALT:
            state.salt = c.chunk()
        elif key == keys.HAND_STATE_PLAYER_IDS:
            state.player_ids.append(c.text())
        elif key == keys.HAND_STATE_HAND:
            if state.hand is None:
                state.hand = HandFields()
            read_hand(c.message(), state.hand)
        elif key == keys.HAND_STATE_DECK_COMMITMENT:
            state.deck_commitment = c.chunk()
        elif key == keys.HAND_STATE_DEAL:
            state.deal += well_formed_message(c)  # given twice: merged, as protobuf does
        else:
            c.skip(key)
    return state


def read_hand(c: Cursor, h: HandFields) -> None:
    """EngineHand's fields into ``h`` (a second occurrence merges into the first's)."""
    while c.more():
        key = c.key()
        if keys.ENGINE_HAND_LEVEL <= key <= keys.ENGINE_HAND_ROUND_HELD:  # fields 16 to 26
            _read_round_field(c, h, key)
        else:
            _read_hand_field(c, h, key)


def _read_hand_field(c: Cursor, h: HandFields, key: i64) -> None:
    """EngineHand's fields of the hand (1 to 15, 27 to 30)."""
    if key == keys.ENGINE_HAND_VARIANT:
        h.variant = c.uint32()
    elif key == keys.ENGINE_HAND_TABLE:
        table = c.message()
        earlier = b"" if h.table is None else h.table.wire
        h.table = read_table_once(earlier + table.data[table.at : table.end], table.depth)
    elif key == keys.ENGINE_HAND_BUTTON:
        h.button = c.uint32()
    elif key in (keys.ENGINE_HAND_STARTING_STACKS, keys.ENGINE_HAND_STARTING_STACKS_UNPACKED):
        c.int64s(key, h.starting_stacks)
    elif key == keys.ENGINE_HAND_DECK:
        h.deck = c.chunk()
    elif key == keys.ENGINE_HAND_DEALT:
        h.dealt = c.uint32()
    elif key in (keys.ENGINE_HAND_STACKS, keys.ENGINE_HAND_STACKS_UNPACKED):
        c.int64s(key, h.stacks)
    elif key in (keys.ENGINE_HAND_COMMITTED, keys.ENGINE_HAND_COMMITTED_UNPACKED):
        c.int64s(key, h.committed)
    elif key in (keys.ENGINE_HAND_ROUND_BETS, keys.ENGINE_HAND_ROUND_BETS_UNPACKED):
        c.int64s(key, h.round_bets)
    elif key == keys.ENGINE_HAND_CARDS:
        h.cards.append(c.chunk())
    elif key == keys.ENGINE_HAND_COMMUNITY:
        h.community = c.uint32()
    elif key in (keys.ENGINE_HAND_FOLDED, keys.ENGINE_HAND_FOLDED_UNPACKED):
        c.booleans(key, h.folded)
    elif key in (keys.ENGINE_HAND_ACTED, keys.ENGINE_HAND_ACTED_UNPACKED):
        c.booleans(key, h.acted)
    elif key == keys.ENGINE_HAND_STREET:
        h.street = c.uint32()
    elif key == keys.ENGINE_HAND_TO_ACT:
        h.to_act = c.uint32()
    elif key == keys.ENGINE_HAND_OVER:
        h.over = c.boolean()
    elif key == keys.ENGINE_HAND_RESULT:
        if h.result is None:
            h.result = ResultFields()
        read_result(c.message(), h.result)
    elif key == keys.ENGINE_HAND_MOVES:
        h.moves = c.chunk()
    elif key in (keys.ENGINE_HAND_TABLED, keys.ENGINE_HAND_TABLED_UNPACKED):
        c.uint32s(key, h.tabled)
    else:
        c.skip(key)


def _read_round_field(c: Cursor, h: HandFields, key: i64) -> None:
    """EngineHand's fields of the betting round (16 to 26)."""
    if key == keys.ENGINE_HAND_LEVEL:
        h.level = c.int64()
    elif key == keys.ENGINE_HAND_FULL_LEVEL:
        h.full_level = c.int64()
    elif key == keys.ENGINE_HAND_BETS:
        h.bets = c.uint32()
    elif key == keys.ENGINE_HAND_UNCAPPED:
        h.uncapped = c.boolean()
    elif key == keys.ENGINE_HAND_OPEN_PAIR:
        h.open_pair = c.boolean()
    elif key == keys.ENGINE_HAND_BIG_MADE:
        h.big_made = c.boolean()
    elif key == keys.ENGINE_HAND_BRING_IN_DUE:
        h.bring_in_due = c.boolean()
    elif key == keys.ENGINE_HAND_OPENER_MAY_FOLD:
        h.opener_may_fold = c.boolean()
    elif key == keys.ENGINE_HAND_FIRST_ACTOR:
        h.first_actor = c.uint32()
    elif key == keys.ENGINE_HAND_LAST_AGGRESSOR:
        h.last_aggressor = c.uint32()
    elif key == keys.ENGINE_HAND_ROUND_HELD:
        h.round_held = c.boolean()
    else:  # one of them of another wire type
        c.skip(key)


_TABLES_READ: BoundedCache[bytes, TableFields] = BoundedCache()  # a few serve many calls


def read_table_once(wire: bytes, depth: i64) -> TableFields:
    """EngineTable's fields read from ``wire``: every occurrence's bytes so far, joined (a
    message given twice merges as its bytes joined parse). Each distinct table is read
    once (its fields never changed after; ``depth`` is always the hand's table's)."""
    found = _TABLES_READ.found.get(wire)
    if found is None:
        found = TableFields()
        read_table(Cursor(wire, 0, len(wire), depth), found)
        _TABLES_READ.put(wire, found)
    return found


def read_table(c: Cursor, t: TableFields) -> None:
    """EngineTable's fields into ``t`` (a second occurrence merges into the first's)."""
    t.wire += c.data[c.at : c.end]
    while c.more():
        key = c.key()
        if key == keys.ENGINE_TABLE_ANTE:
            t.ante = c.int64()
        elif key == keys.ENGINE_TABLE_BRING_IN:
            t.bring_in = c.int64()
        elif key == keys.ENGINE_TABLE_SMALL_BET:
            t.small_bet = c.int64()
        elif key == keys.ENGINE_TABLE_BIG_BET:
            t.big_bet = c.int64()
        elif key == keys.ENGINE_TABLE_MAX_BETS:
            t.max_bets = c.uint32()
        elif key == keys.ENGINE_TABLE_UNCAPPED_HEADS_UP:
            t.uncapped_heads_up = c.boolean()
        elif key == keys.ENGINE_TABLE_OPEN_PAIR_BIG_BET:
            t.open_pair_big_bet = c.boolean()
        elif key == keys.ENGINE_TABLE_ODD_CHIP:
            t.odd_chip = c.uint32()
        elif key == keys.ENGINE_TABLE_RAKE_PERCENT_BP:
            t.rake_percent_bp = c.uint32()
        elif key == keys.ENGINE_TABLE_RAKE_CAP:
            t.rake_cap = c.int64()
        elif key == keys.ENGINE_TABLE_ALL_IN_FACE_UP:
            t.all_in_face_up = c.boolean()
        else:
            c.skip(key)


def read_result(c: Cursor, r: ResultFields) -> None:
    """EngineResult's fields into ``r`` (a second occurrence merges into the first's)."""
    while c.more():
        key = c.key()
        if key == keys.ENGINE_RESULT_POTS:
            r.pots.append(read_pot(c.message()))
        elif key in (keys.ENGINE_RESULT_STACKS, keys.ENGINE_RESULT_STACKS_UNPACKED):
            c.int64s(key, r.stacks)
        elif key == keys.ENGINE_RESULT_SHOWN:
            r.shown.append(read_shown(c.message()))
        elif key == keys.ENGINE_RESULT_UNCALLED:
            r.uncalled.append(read_uncalled(c.message()))
        elif key == keys.ENGINE_RESULT_RAKE:
            r.rake = c.int64()
        else:
            c.skip(key)


def read_pot(c: Cursor) -> PotFields:
    """EnginePot."""
    p = PotFields()
    while c.more():
        key = c.key()
        if key == keys.ENGINE_POT_AMOUNT:
            p.amount = c.int64()
        elif key in (keys.ENGINE_POT_ELIGIBLE, keys.ENGINE_POT_ELIGIBLE_UNPACKED):
            c.uint32s(key, p.eligible)
        elif key in (keys.ENGINE_POT_WINNERS, keys.ENGINE_POT_WINNERS_UNPACKED):
            c.uint32s(key, p.winners)
        elif key in (keys.ENGINE_POT_SHARES, keys.ENGINE_POT_SHARES_UNPACKED):
            c.int64s(key, p.shares)
        elif key in (keys.ENGINE_POT_LOW_WINNERS, keys.ENGINE_POT_LOW_WINNERS_UNPACKED):
            c.uint32s(key, p.low_winners)
        elif key in (keys.ENGINE_POT_LOW_SHARES, keys.ENGINE_POT_LOW_SHARES_UNPACKED):
            c.int64s(key, p.low_shares)
        elif key == keys.ENGINE_POT_RAKE:
            p.rake = c.int64()
        else:
            c.skip(key)
    return p


def read_shown(c: Cursor) -> ShownFields:
    """EngineShownHand."""
    s = ShownFields()
    while c.more():
        key = c.key()
        if key == keys.ENGINE_SHOWN_HAND_SEAT:
            s.seat = c.uint32()
        elif key == keys.ENGINE_SHOWN_HAND_CARDS:
            s.cards = c.chunk()
        elif key == keys.ENGINE_SHOWN_HAND_BEST_FIVE:
            s.best_five = c.chunk()
        elif key == keys.ENGINE_SHOWN_HAND_RANK:
            s.rank = c.int64()
        elif key == keys.ENGINE_SHOWN_HAND_DESCRIPTION:
            s.description = c.text()
        elif key == keys.ENGINE_SHOWN_HAND_LOW:
            s.low = c.int64()
        elif key == keys.ENGINE_SHOWN_HAND_LOW_BEST_FIVE:
            s.low_best_five = c.chunk()
        elif key == keys.ENGINE_SHOWN_HAND_LOW_DESCRIPTION:
            s.low_description = c.text()
        else:
            c.skip(key)
    return s


def read_uncalled(c: Cursor) -> UncalledFields:
    """EngineUncalled."""
    u = UncalledFields()
    while c.more():
        key = c.key()
        if key == keys.ENGINE_UNCALLED_SEAT:
            u.seat = c.uint32()
        elif key == keys.ENGINE_UNCALLED_AMOUNT:
            u.amount = c.int64()
        else:
            c.skip(key)
    return u
