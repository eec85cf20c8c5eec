"""proto/generate.py's field keys (``<name>_keys.py``): a field added to a copy of
state.proto gets its key with no hand-written change, the key protobuf writes the field
with; and ``--check`` (``make lint``) finds generated code stale against its protos."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from stud_api.stud.v1 import stud_engine_pb2
from studengine.api._gen.stud.v1 import stud_engine_keys
from studengine.state._gen.stud.internal.v1 import state_keys, state_pb2
from support.api_helpers import is_repeated
from support.state_reference import varint

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "proto"))
import generate  # noqa: E402  (proto/generate.py, a script)

STATE_PROTO = Path("stud/internal/v1/state.proto")
#: fields added to the copy: a plain number, packed numbers, a string, in two messages
ADDED = {
    "EngineHand": "  uint64 side_pot_cap = 31;\n  repeated int64 side_bets = 32;\n",
    "EngineUncalled": "  string reason = 3;\n",
}


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_fields(root: Path, added: dict[str, str] = ADDED, messages: str = "") -> None:
    """A copy of the protos under ``root`` with ``added`` (fields by message) in
    state.proto, and ``messages`` after them."""
    shutil.copytree(REPO / "proto" / "stud", root / "stud")
    text = (root / STATE_PROTO).read_text()
    for message, fields in added.items():
        start = text.index(f"message {message} {{")
        end = text.index("\n}", start)
        text = text[: end + 1] + fields + text[end + 1 :]
    (root / STATE_PROTO).write_text(text + messages)


def message_class(root: Path, out: Path, name: str) -> Any:
    """The copy's message ``name``, made by protobuf from its descriptors in a pool of
    its own (the real state.proto is already in the default one)."""
    descriptors = out / "set.pb"
    from grpc_tools import protoc

    assert (
        protoc.main(
            ["protoc", f"-I{root}", f"--descriptor_set_out={descriptors}", str(STATE_PROTO)]
        )
        == 0
    )
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptors.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for proto in files.file:
        pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"stud.internal.v1.{name}"))


def _first_key(data: bytes) -> int:
    """The key a one-field message starts with (a varint)."""
    value = shift = 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value
        shift += 7
    raise AssertionError("no key")


def _one_value(message: Any, field: Any) -> None:
    """Set ``field`` of ``message`` to a value protobuf writes (not its default)."""
    name = field.name
    repeated = is_repeated(field)
    if field.message_type is not None:
        if repeated:
            getattr(message, name).add()
        else:
            getattr(message, name).SetInParent()
        return
    if field.enum_type is not None:
        value: Any = max(v.number for v in field.enum_type.values)
    else:
        by_type = {field.TYPE_STRING: "x", field.TYPE_BYTES: b"x", field.TYPE_BOOL: True}
        value = by_type.get(field.type, 1.5 if field.cpp_type == field.CPPTYPE_DOUBLE else 1)
        if field.cpp_type == field.CPPTYPE_FLOAT:
            value = 1.5
    if repeated:
        getattr(message, name).append(value)
    else:
        setattr(message, name, value)


def _messages(module: ModuleType) -> list[Any]:
    """Every message class of a ``_pb2`` module, nested ones too (not map entries)."""
    found: list[Any] = []

    def visit(descriptor: Any) -> None:
        if descriptor.GetOptions().map_entry:
            return
        found.append(descriptor)
        for nested in descriptor.nested_types:
            visit(nested)

    for descriptor in module.DESCRIPTOR.message_types_by_name.values():
        visit(descriptor)
    return found


@pytest.mark.parametrize(
    ("pb2", "keys"),
    [(state_pb2, state_keys), (stud_engine_pb2, stud_engine_keys)],
    ids=["state", "api"],
)
def test_every_field_has_the_key_protobuf_writes_it_with(pb2: ModuleType, keys: ModuleType) -> None:
    """Each field of each message, set alone, serializes starting with its generated key;
    packed numbers written one by one (``_UNPACKED``) parse as protobuf's own."""
    from google.protobuf import message_factory as factory

    checked = 0
    for descriptor in _messages(pb2):
        name = descriptor.full_name.removeprefix(descriptor.file.package + ".")
        prefix = generate._upper_snake(name.replace(".", "_"))
        for field in descriptor.fields:
            message = factory.GetMessageClass(descriptor)()
            _one_value(message, field)
            key = getattr(keys, f"{prefix}_{field.name.upper()}")
            assert key == _first_key(message.SerializeToString()), field.full_name
            unpacked = getattr(keys, f"{prefix}_{field.name.upper()}_UNPACKED", None)
            if unpacked is not None:
                parsed = factory.GetMessageClass(descriptor).FromString(varint(unpacked) + b"\x01")
                assert list(getattr(parsed, field.name)) == [1], field.full_name
            checked += 1
    assert checked > 50


def test_a_field_added_to_state_proto_gets_its_key(tmp_path: Path) -> None:
    root, out = tmp_path / "proto", tmp_path / "gen"
    with_fields(root)
    generate._generate(generate.INTERNAL, out, root)
    keys = _load(out / "stud/internal/v1/state_keys.py", "copy_state_keys")
    hand = message_class(root, tmp_path, "EngineHand")
    uncalled = message_class(root, tmp_path, "EngineUncalled")
    cases = [
        (keys.ENGINE_HAND_SIDE_POT_CAP, hand(side_pot_cap=300)),
        (keys.ENGINE_HAND_SIDE_BETS, hand(side_bets=[1, 2])),
        (keys.ENGINE_UNCALLED_REASON, uncalled(reason="timeout")),
    ]
    for key, message in cases:
        assert key == _first_key(message.SerializeToString())
    # the fields the real schema has keep their keys
    assert keys.ENGINE_HAND_TABLED == state_keys.ENGINE_HAND_TABLED


def test_check_finds_generated_code_stale_against_its_protos(tmp_path: Path) -> None:
    root = tmp_path / "proto"
    shutil.copytree(REPO / "proto" / "stud", root / "stud")
    api, internal, api_keys = tmp_path / "api", tmp_path / "internal", tmp_path / "api_keys"
    generate._generate(generate.API, api, root)
    generate._generate(generate.INTERNAL, internal, root)
    generate._generate(generate.API_KEYS, api_keys, root)
    assert generate.stale(api, internal, root, api_keys) == []
    (root / STATE_PROTO).write_text(
        (root / STATE_PROTO)
        .read_text()
        .replace("uint64 seq = 3;", "uint64 seq = 3;\n  bool x = 99;")
    )
    found = generate.stale(api, internal, root, api_keys)
    assert any(name.endswith("state_keys.py") for name in found)
    assert any(name.endswith("state_fields.py") for name in found)  # its records too
    assert any(name.endswith("state_pb2.py") for name in found)
    assert not any(name.endswith("stud_engine_keys.py") for name in found)
    api_proto = root / "stud/v1/stud_engine.proto"
    api_proto.write_text(
        api_proto.read_text().replace("message Pot {", "message Pot {\n  bool x = 99;")
    )
    found = generate.stale(api, internal, root, api_keys)
    assert any(name.endswith("stud_engine_keys.py") for name in found)
    assert any(name.endswith("stud_engine_writers.py") for name in found)  # Pot's writer


def test_a_group_is_refused() -> None:
    field = descriptor_pb2.FieldDescriptorProto(
        name="g", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_GROUP
    )
    with pytest.raises(SystemExit, match="groups"):
        generate._wire_type(field)
