"""The shared protobuf wire pieces (``state.wire``) against protobuf's own encoder."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from google.protobuf import wrappers_pb2
from google.protobuf.descriptor import FieldDescriptor
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine import compiled
from studengine.state import bytewriter, wire
from studengine.state._gen.stud.internal.v1 import state_pb2

VALUES = [0, 1, 0x7F, 0x80, 300, 2**14 - 1, 2**14, 2**21 - 1, 2**21, 2**31, 2**63 - 1, 2**64 - 1]


@pytest.mark.parametrize("value", VALUES)
def test_varint_is_protobufs(value: int) -> None:
    serialized = wrappers_pb2.UInt64Value(value=value).SerializeToString()
    expected = serialized[1:] if value else b"\x00"  # past the key; 0 is not written
    assert wire.varint(value) == expected
    out = bytearray(b"x")
    wire.put_varint(out, value)
    assert bytes(out) == b"x" + expected
    assert wire.read_varint(b"y" + expected + b"z", 1) == (value, 1 + len(expected))


@pytest.mark.parametrize("value", [-1, -0x80, -(2**63)])
def test_a_negative_varint_is_refused(value: int) -> None:
    with pytest.raises(ValueError, match="negative"):
        wire.varint(value)  # a negative index once read a one-byte varint off the table
    with pytest.raises(ValueError, match="negative"):
        wire.put_varint(bytearray(), value)


@pytest.mark.parametrize("raw", [b"", b"\x80", b"\xff\xff", b"\xff" * 10 + b"\x01"])
def test_read_varint_refuses_truncated_or_too_long(raw: bytes) -> None:
    with pytest.raises(ValueError, match="truncated"):
        wire.read_varint(raw, 0)


def test_record_is_a_length_delimited_field() -> None:
    spectator = pb.View(street_name="x" * 200, pot=7)  # a length past one byte
    payload = spectator.SerializeToString()
    key = wire.length_key(pb.HandUpdate.DESCRIPTOR.fields_by_name["spectator"])
    assert wire.record(key, payload) == pb.HandUpdate(spectator=spectator).SerializeToString()


def test_varint_key_is_protobufs() -> None:
    field = pb.View.DESCRIPTOR.fields_by_name["pot"]
    assert wire.varint_key(field) + wire.varint(7) == pb.View(pot=7).SerializeToString()


def test_length_key_refuses_a_field_number_past_15() -> None:
    far = max(state_pb2.EngineHand.DESCRIPTOR.fields, key=lambda f: f.number)
    assert far.number >= 16
    with pytest.raises(ValueError, match="longer key"):
        wire.length_key(far)
    with pytest.raises(ValueError, match="longer key"):
        wire.varint_key(far)


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
    assert appended(lambda out: wire.append_varint(out, value)) == wire.varint(value)


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
    for name in ("stacks", "tabled"):  # fields 7 and 30
        field = state_pb2.EngineHand.DESCRIPTOR.fields_by_name[name]
        key = wire.tag(field, wire.LENGTH_DELIMITED)
        ours = appended(lambda out, k=key: wire.append_packed(out, k, values))
        assert ours == state_pb2.EngineHand(**{name: values}).SerializeToString()
    stacks = state_pb2.EngineHand.DESCRIPTOR.fields_by_name["stacks"]
    largest = [2**63 - 1, *values]  # int64's largest
    ours = appended(lambda out: wire.append_packed(out, wire.tag(stacks, 2), largest))
    assert ours == state_pb2.EngineHand(stacks=largest).SerializeToString()


@pytest.mark.parametrize("size", [1, 0x7F, 0x80, 300, 2**14])
def test_open_and_close_record_write_the_length_after(appended: Appended, size: int) -> None:
    field = state_pb2.EngineHand.DESCRIPTOR.fields_by_name["moves"]  # field 29
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))

    def write(out: wire.BytesWriter) -> None:
        start = wire.open_record(out, wire.tag(field, wire.LENGTH_DELIMITED))
        out.write(payload)
        wire.close_record(out, start)
        out.append(9)  # and what comes after it

    assert appended(write) == state_pb2.EngineHand(moves=payload).SerializeToString() + b"\x09"


def test_tags_are_protobufs_keys(appended: Appended) -> None:
    """A varint field's key, for field numbers below 16 and past them."""
    for name in ("button", "level", "over"):  # 3, 16, 27
        field = state_pb2.EngineHand.DESCRIPTOR.fields_by_name[name]
        value = True if name == "over" else 5
        key = appended(lambda out, f=field: wire.append_varint(out, wire.tag(f, wire.VARINT)))
        assert (
            key + wire.varint(int(value))
            == state_pb2.EngineHand(**{name: value}).SerializeToString()
        )


@pytest.mark.parametrize("value", [v for v in VALUES if v < 2**63])
def test_int_field_is_protobufs(value: int) -> None:
    key = wire.varint_key(pb.View.DESCRIPTOR.fields_by_name["pot"])  # an int64
    assert wire.int_field(key, value) == pb.View(pot=value).SerializeToString()  # 0: b""


def test_int_field_refuses_a_negative_value() -> None:
    key = wire.varint_key(pb.View.DESCRIPTOR.fields_by_name["pot"])
    with pytest.raises(ValueError, match="negative"):
        wire.int_field(key, -1)


@pytest.mark.parametrize("value", [v for v in VALUES if v < 2**63])
def test_append_int_field_is_protobufs(appended: Appended, value: int) -> None:
    key = wire.tag(pb.View.DESCRIPTOR.fields_by_name["pot"], wire.VARINT)  # an int64
    ours = appended(lambda out: wire.append_int_field(out, key, value))
    assert ours == pb.View(pot=value).SerializeToString()  # 0: nothing
    with pytest.raises(ValueError, match="negative"):
        appended(lambda out: wire.append_int_field(out, key, -value - 1))


@pytest.mark.parametrize("text", ["", "a", "player-7", "é" * 70, "x" * 300])
def test_append_text_is_protobufs(appended: Appended, text: str) -> None:
    """Empty (nothing written), short, non-ASCII, lengths of one byte and of two."""
    key = wire.tag(pb.View.DESCRIPTOR.fields_by_name["street_name"], wire.LENGTH_DELIMITED)
    ours = appended(lambda out: wire.append_text(out, key, text))
    assert ours == pb.View(street_name=text).SerializeToString()


def test_game_fields_are_serialized_once_per_game_and_found_by_identity() -> None:
    from studengine.rules.types import Table, Variant

    made: list[tuple[Variant, Table]] = []

    def serialize(variant: Variant, table: Table) -> bytes:
        made.append((variant, table))
        return f"{variant.value}/{table.ante}".encode()

    cache = wire.GameFields(serialize, limit=2)
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
    assert len(cache.found) <= 2  # bounded: cleared when full


def test_one_table_under_two_games_is_made_once_for_each() -> None:
    """A card room may run two games with the same stakes: the decoded table is then one
    object (``read_table_once``), and the two games alternating find their fields again."""
    from studengine.rules.types import Table, Variant

    made: list[Variant] = []

    def serialize(variant: Variant, table: Table) -> bytes:
        made.append(variant)
        return f"{variant.value}/{table.ante}".encode()

    cache = wire.GameFields(serialize)
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


def test_field_key_is_protobufs_key() -> None:
    """Integers, enums and bools (wire type 0); strings, messages and packed repeated
    integers (2), as the fields' own serialization starts."""
    for message, name, value in [
        (pb.View, "pot", 5),
        (pb.View, "variant", pb.VARIANT_RAZZ),
        (pb.SeatInfo, "folded", True),
        (pb.View, "street_name", "x"),
        (pb.View, "table", pb.Table(ante=1)),
        (pb.HandEnded, "stacks", [1]),
        (pb.SeatInfo, "cards", ["As"]),
    ]:
        first = message(**{name: value}).SerializeToString()[0]
        assert wire.field_key(message, name) == first, name


def test_is_repeated_on_either_protobuf_descriptor() -> None:
    """``is_repeated`` from protobuf 6 on; ``label`` alone on 4.25 (the declared floor)."""
    fields = pb.PotAwarded.DESCRIPTOR.fields_by_name
    assert wire.is_repeated(fields["winners"]) and not wire.is_repeated(fields["amount"])

    class OldDescriptor:  # a 4.25 descriptor: no is_repeated
        def __init__(self, label: int) -> None:
            self.label = label

    assert wire.is_repeated(OldDescriptor(FieldDescriptor.LABEL_REPEATED))
    assert not wire.is_repeated(OldDescriptor(FieldDescriptor.LABEL_OPTIONAL))
