"""The shared protobuf wire pieces (``state.wire``) against protobuf's own encoder."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from google.protobuf import wrappers_pb2
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine import compiled
from studengine.api._gen.stud.v1 import stud_engine_keys as api_keys
from studengine.state import bounded, bytewriter, codec, wire
from studengine.state._gen.stud.internal.v1 import state_keys as keys
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.bounded import DEFAULT_LIMIT, BoundedCache
from support.state_reference import varint

VALUES = [0, 1, 0x7F, 0x80, 300, 2**14 - 1, 2**14, 2**21 - 1, 2**21, 2**31, 2**63 - 1, 2**64 - 1]


@pytest.mark.parametrize("value", VALUES)
def test_varint_is_protobufs(value: int) -> None:
    serialized = wrappers_pb2.UInt64Value(value=value).SerializeToString()
    expected = serialized[1:] if value else b"\x00"  # past the key; 0 is not written
    assert varint(value) == expected  # the tests' own writer, held to protobuf's
    out = wire.BytesWriter()
    out.write(b"x")
    wire.append_varint(out, value)
    assert out.getvalue() == b"x" + expected
    assert codec.read_varint(b"y" + expected + b"z", 1) == (value, 1 + len(expected))


@pytest.mark.parametrize("value", [-1, -0x80, -(2**63)])
def test_a_negative_varint_is_refused(value: int) -> None:
    with pytest.raises(ValueError, match="negative"):
        wire.int_field(1, value)  # a negative index once read a one-byte varint off a table
    with pytest.raises(ValueError, match="negative"):
        wire.append_varint(wire.BytesWriter(), value)


@pytest.mark.parametrize("raw", [b"", b"\x80", b"\xff\xff", b"\xff" * 10 + b"\x01"])
def test_read_varint_refuses_truncated_or_too_long(raw: bytes) -> None:
    with pytest.raises(ValueError, match="truncated"):
        codec.read_varint(raw, 0)


def test_record_is_a_length_delimited_field() -> None:
    spectator = pb.View(street_name="x" * 200, pot=7)  # a length past one byte
    payload = spectator.SerializeToString()
    assert (
        wire.record(api_keys.HAND_UPDATE_SPECTATOR, payload)
        == pb.HandUpdate(spectator=spectator).SerializeToString()
    )


# The writers the state's encoding writes into: librt's BytesWriter (wire's, where librt is
# installed) and, where the sources run (a compiled function takes librt's only), the
# bytearray one they fall back on without librt.
WRITERS = [wire.BytesWriter]
if compiled.BUILD == "python" and wire.BytesWriter is not bytewriter.BytesWriter:
    WRITERS.append(bytewriter.BytesWriter)


@pytest.fixture(params=WRITERS, ids=lambda writer: writer.__module__)
def writer(request: pytest.FixtureRequest) -> Callable[[], wire.BytesWriter]:
    return request.param  # type: ignore[no-any-return]


Appended = Callable[[Callable[[wire.BytesWriter], None]], bytes]


@pytest.fixture
def appended(writer: Callable[[], wire.BytesWriter]) -> Appended:
    """What ``write`` appends to a writer that holds a byte already."""

    def run(write: Callable[[wire.BytesWriter], None]) -> bytes:
        out = writer()
        out.append(7)  # something before: the helpers append
        write(out)
        assert out[0] == 7
        return out.getvalue()[1:]

    return run


@pytest.mark.parametrize("value", VALUES)
def test_append_varint_is_varint(appended: Appended, value: int) -> None:
    assert appended(lambda out: wire.append_varint(out, value)) == varint(value)


def test_append_varint_refuses_a_negative_value(writer: Callable[[], wire.BytesWriter]) -> None:
    with pytest.raises(ValueError, match="negative"):
        wire.append_varint(writer(), -1)


# values that fit field 30 (uint32) too; the last list's length takes two bytes
PACKED = [[], [0], [1, 0x7F, 0x80, 300], [2**14 - 1, 2**14, 2**21 - 1, 2**21, 2**32 - 1]]
PACKED.append([2**31] * 30)


@pytest.mark.parametrize("values", PACKED)
def test_append_packed_and_tags_are_protobufs(appended: Appended, values: list[int]) -> None:
    """Packed repeated fields of numbers below 16 and past them (two-byte keys), lengths
    of one byte and more, and nothing at all for no values."""
    for name, key in (("stacks", keys.ENGINE_HAND_STACKS), ("tabled", keys.ENGINE_HAND_TABLED)):
        ours = appended(lambda out, k=key: wire.append_packed(out, k, values))
        assert ours == state_pb2.EngineHand(**{name: values}).SerializeToString()
    largest = [2**63 - 1, *values]  # int64's largest
    ours = appended(lambda out: wire.append_packed(out, keys.ENGINE_HAND_STACKS, largest))
    assert ours == state_pb2.EngineHand(stacks=largest).SerializeToString()


@pytest.mark.parametrize("size", [1, 0x7F, 0x80, 300, 2**14])
def test_open_and_close_record_write_the_length_after(appended: Appended, size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))

    def write(out: wire.BytesWriter) -> None:
        start = wire.open_record(out, keys.ENGINE_HAND_MOVES)  # field 29
        out.write(payload)
        wire.close_record(out, start)
        out.append(9)  # and what comes after it

    assert appended(write) == state_pb2.EngineHand(moves=payload).SerializeToString() + b"\x09"


def test_two_byte_keys_are_protobufs(appended: Appended) -> None:
    """A varint field's key, for field numbers below 16 and past them."""
    for name, key in (("button", keys.ENGINE_HAND_BUTTON), ("level", keys.ENGINE_HAND_LEVEL)):
        ours = appended(lambda out, k=key: wire.append_int_field(out, k, 5))
        assert ours == state_pb2.EngineHand(**{name: 5}).SerializeToString()


@pytest.mark.parametrize("value", [v for v in VALUES if v < 2**63])
def test_int_field_is_protobufs(value: int) -> None:
    assert (
        wire.int_field(api_keys.VIEW_POT, value) == pb.View(pot=value).SerializeToString()
    )  # 0: b""


def test_int_field_refuses_a_negative_value() -> None:
    with pytest.raises(ValueError, match="negative"):
        wire.int_field(api_keys.VIEW_POT, -1)


@pytest.mark.parametrize("value", [v for v in VALUES if v < 2**63])
def test_append_int_field_is_protobufs(appended: Appended, value: int) -> None:
    key = api_keys.VIEW_POT  # an int64
    ours = appended(lambda out: wire.append_int_field(out, key, value))
    assert ours == pb.View(pot=value).SerializeToString()  # 0: nothing
    with pytest.raises(ValueError, match="negative"):
        appended(lambda out: wire.append_int_field(out, key, -value - 1))


@pytest.mark.parametrize("text", ["", "a", "player-7", "é" * 70, "x" * 300])
def test_append_text_is_protobufs(appended: Appended, text: str) -> None:
    """Empty (nothing written), short, non-ASCII, lengths of one byte and of two."""
    key = api_keys.VIEW_STREET_NAME
    ours = appended(lambda out: wire.append_text(out, key, text))
    assert ours == pb.View(street_name=text).SerializeToString()


def test_game_fields_are_serialized_once_per_game_and_found_by_identity() -> None:
    from studengine.rules.types import Table, Variant

    made: list[tuple[Variant, Table]] = []

    def serialize(variant: Variant, table: Table) -> bytes:
        made.append((variant, table))
        return f"{variant.value}/{table.ante}".encode()

    cache = bounded.GameFields(serialize, limit=2)
    seven, razz = Variant.SEVEN_CARD_STUD, Variant.RAZZ
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
    equal = Table(ante=5, bring_in=10, small_bet=20, big_bet=40)  # equal, not the same one
    assert cache.get(seven, table) == f"{seven.value}/5".encode()
    assert cache.get(seven, table) == cache.get(seven, table)
    assert len(made) == 1  # found again, not made again
    cache.get(seven, equal)
    cache.get(razz, table)
    assert len(made) == 3  # by identity: an equal table, another game, each made once
    other = Table(ante=7, bring_in=10, small_bet=20, big_bet=40)
    assert cache.get(seven, other) == f"{seven.value}/7".encode()
    assert len(cache.cache) <= 2  # bounded: cleared when full


def test_one_table_under_two_games_is_made_once_for_each() -> None:
    """A card room may run two games with the same stakes: the decoded table is then one
    object (``read_table_once``), and the two games alternating find their fields again."""
    from studengine.rules.types import Table, Variant

    made: list[Variant] = []

    def serialize(variant: Variant, table: Table) -> bytes:
        made.append(variant)
        return f"{variant.value}/{table.ante}".encode()

    cache = bounded.GameFields(serialize)
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
    for _ in range(4):
        for variant in (Variant.SEVEN_CARD_STUD, Variant.RAZZ):
            assert cache.get(variant, table) == f"{variant.value}/5".encode()
    assert made == [Variant.SEVEN_CARD_STUD, Variant.RAZZ]


def test_the_bytearray_writer_writes_what_librts_does() -> None:
    """The pure-Python fallback's writer (no librt installed) against librt's, for every
    method ``state.wire`` calls: the same bytes, lengths and items."""
    librt_strings = pytest.importorskip("librt.strings", reason="librt is not installed")
    ours, theirs = bytewriter.BytesWriter(), librt_strings.BytesWriter()
    for out in (ours, theirs):
        out.append(0x80)
        out.write(b"stud" * 200)  # past librt's first buffer
        out.write(bytearray(b"\x00\xff"))
        out[1] = 0x7F
        out.truncate(len(out) - 1)
        out.append(0)
    assert ours.getvalue() == theirs.getvalue()
    assert len(ours) == len(theirs) == 803
    assert [ours[i] for i in (0, 1, 802)] == [theirs[i] for i in (0, 1, 802)] == [0x80, 0x7F, 0]
    assert isinstance(ours.getvalue(), bytes)


@pytest.mark.parametrize("values", [[], [0], [255, 0, 0x7F, 0x80], list(range(52)), [7] * 600])
def test_byte_string_is_bytes_of_the_values(values: list[int]) -> None:
    """What the deck commitment hashes (its form is public: docs/api.md): ``bytes()``."""
    assert wire.byte_string(values) == bytes(values)
    assert type(wire.byte_string(values)) is bytes


def test_a_bounded_cache_holds_at_most_its_limit_then_starts_over() -> None:
    """The one cache of the hot path (``state.bounded``): what was put is found until the
    cache is full; the entry past the limit empties it first."""
    cache: BoundedCache[int, str] = BoundedCache(3)
    for n in range(3):
        assert cache.put(n, f"v{n}") == f"v{n}"
    assert [cache.found.get(n) for n in range(4)] == ["v0", "v1", "v2", None]
    cache.put(1, "again")  # full: emptied, then this one held
    assert len(cache) == 1 and cache.found == {1: "again"}
    assert len(BoundedCache()) == 0 and BoundedCache().limit == DEFAULT_LIMIT
    with pytest.raises(ValueError, match="0 entries"):
        BoundedCache(0)
