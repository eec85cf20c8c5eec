"""The fast path's code for one message tree, written from its descriptors (``generate.py``
runs this): each message as a record of its fields, read from the bytes, copied from
protobuf's parse and written back, so that no field is spelled out by hand.

For every message reachable from ``root`` (``stud.internal.v1.HandState``), into
``<name>_fields.py`` beside the protobuf module:

- ``<Message>Fields``: a plain class (mypyc compiles it to a native one) holding each
  field as protobuf holds it when not given (0, False, "", b"", []; a message or a proto3
  ``optional`` field not given: None);
- ``read_<message>(cursor, record)``: the fields read off ``state.reader.Cursor`` as
  protobuf's parser reads them (any order, packed or not, a later singular value over an
  earlier one, a message given twice merged, anything else skipped), dispatched on the
  whole key by a balanced tree of comparisons (a few compares a field, however many);
- ``parse_<message>(message)``: the same record copied from protobuf's own parse (the
  pure build's way: its C parser is quicker there than Python's loops over the bytes);
- ``write_<message>(out, record)``: the fields in field-number order into a
  ``BytesWriter``, exactly as ``SerializeToString(deterministic=True)`` writes them;
- ``read(data)``, ``parse(data)`` and ``write(record)`` for the root.

Two kinds of field are the schema's choice, named in ``Records``: a message field kept as
its bytes (``kept``, None when not given: read whole, merged as the parser merges it,
written as it is; a message of scalar and bytes fields only) and a message read once per
distinct bytes (``cached``: its record keeps ``wire``, the bytes it was read from, and is
written as those bytes).

What it cannot write right it refuses, naming the field: proto2, a oneof, a map, a nested
or imported message, a type the Cursor does not read, ``[packed = false]``, a name the
generated code uses itself.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor_pb2 import FieldDescriptorProto as F

#: the largest run of keys dispatched by a chain of ``==``; longer ones split in halves
CHAIN = 6


@dataclass(frozen=True)
class Records:
    """Which records to write for one ``.proto``, and how."""

    proto: str  # the .proto, relative to the root the descriptors were made from
    root: str  # the message the tree starts at
    kept: frozenset[str] = frozenset()  # "Message.field": a message field kept as its bytes
    cached: frozenset[str] = frozenset()  # messages read once per distinct bytes


# a scalar type: (Python type, default, Cursor method reading one, method reading a repeated)
_SCALARS: dict[int, tuple[str, str, str, str | None]] = {
    F.TYPE_UINT32: ("int", "0", "uint32", "uint32s"),
    F.TYPE_UINT64: ("int", "0", "varint", None),
    F.TYPE_INT64: ("int", "0", "int64", "int64s"),
    F.TYPE_BOOL: ("bool", "False", "boolean", "booleans"),
    F.TYPE_STRING: ("str", '""', "text", None),
    F.TYPE_BYTES: ("bytes", 'b""', "chunk", None),
}


#: the hand-written primitives (``state/wire.py``) the generated writers call
_WIRE = ("append_flags", "append_int64", "append_packed", "append_packed_int64")
_WIRE += ("append_record", "append_text", "append_varint", "close_record", "open_record")
#: where a module's import of them goes, once its code is written (``_with_wire_import``)
_WIRE_IMPORT = "<the import of state/wire.py>"


def _with_wire_import(lines: list[str]) -> str:
    """The module of ``lines`` with ``_WIRE_IMPORT`` replaced by an import of the
    primitives its code calls, and only those."""
    code = "\n".join(lines)
    used = [name for name in _WIRE if re.search(rf"\b{name}\(", code)]
    wire = ["from studengine.state.wire import (", "    BytesWriter,"]
    wire += [*(f"    {name}," for name in used), ")"]
    at = lines.index(_WIRE_IMPORT)
    return "\n".join([*lines[:at], *wire, *lines[at + 1 :]]) + "\n"


#: names the generated code uses itself, which a field may not take
_RESERVED = frozenset({"c", "m", "key", "keys", "out", "pb", "msg", "start", "inner", "wire"})


def _check_field(message: Any, field: Any) -> None:
    """Refuse, naming it, a field the generated code would get wrong."""
    where = f"{message.name}.{field.name}"
    if field.HasField("oneof_index") and not field.proto3_optional:
        raise SystemExit(f"{where}: a oneof member: the fast path writes no oneof yet")
    if keyword.iskeyword(field.name) or field.name in _RESERVED:
        raise SystemExit(f"{where}: a name the generated code uses itself")


#: the types of packed repeated fields (read one value alone too, by the ``_UNPACKED`` key)
_PACKED = frozenset(kind for kind, (*_, many) in _SCALARS.items() if many is not None)


def snake(name: str) -> str:
    """``EngineShownHand`` -> ``engine_shown_hand``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class _Tree:
    """The messages of one file reachable from the root, and how to name their parts."""

    def __init__(self, proto: Any, records: Records) -> None:
        self.records = records
        self.package = proto.package
        self.by_name = {m.name: m for m in proto.message_type}
        self.order: list[Any] = []
        self.repeated: set[str] = set()  # messages held in a repeated field
        if proto.syntax != "proto3":
            raise SystemExit(f"{proto.name}: not proto3 (presence and packing differ)")
        self._walk(records.root)
        walked = {m.name for m in self.order}
        for name in records.cached - walked:
            raise SystemExit(f"{records.proto}: cached {name} is no message of {records.root}")
        for name in records.kept:
            owner, _, field_name = name.partition(".")
            found = [f for f in self.by_name.get(owner, ()).field if f.name == field_name]
            if owner not in walked or not found:
                raise SystemExit(f"{records.proto}: kept {name} is no field of {records.root}")
            self._check_kept(name, found[0])

    def _check_kept(self, name: str, field: Any) -> None:
        """A field kept as its bytes: one message of scalar and bytes fields only (its bytes
        are checked by skipping each field, which checks no string nor inner message)."""
        if field.type != F.TYPE_MESSAGE or field.label == F.LABEL_REPEATED:
            raise SystemExit(f"{name}: only a singular message field is kept as its bytes")
        inner = self.by_name.get(self.message_of(field, name.partition(".")[0]))
        if any(f.type in (F.TYPE_STRING, F.TYPE_MESSAGE) for f in inner.field):
            raise SystemExit(f"{name}: a kept message holds no string nor message field")

    def _walk(self, name: str) -> None:
        if name not in self.by_name:
            raise SystemExit(f"{self.records.proto}: no top-level message {name}")
        message = self.by_name[name]
        if message in self.order:
            return
        self.order.append(message)
        for field in message.field:
            _check_field(message, field)
            if field.type == F.TYPE_MESSAGE and not self.kept(message, field):
                inner = self.message_of(field, name)
                if field.label == F.LABEL_REPEATED:
                    if inner in self.records.cached:
                        raise SystemExit(f"{name}.{field.name}: a cached message repeated")
                    self.repeated.add(inner)
                self._walk(inner)
            elif field.type not in _SCALARS and field.type != F.TYPE_MESSAGE:
                raise SystemExit(
                    f"{name}.{field.name}: a {F.Type.Name(field.type)} field: the fast "
                    "path reads none yet (add it to state.reader.Cursor and proto/fastpath.py)"
                )
            elif field.type in _SCALARS and field.label == F.LABEL_REPEATED:
                if field.options.HasField("packed") and not field.options.packed:
                    raise SystemExit(f"{name}.{field.name}: [packed = false] is not written yet")
                packed = _SCALARS[field.type][3]
                if packed is None and field.type not in (F.TYPE_STRING, F.TYPE_BYTES):
                    raise SystemExit(f"{name}.{field.name}: repeated of a type not read yet")

    def kept(self, message: Any, field: Any) -> bool:
        return f"{message.name}.{field.name}" in self.records.kept

    def message_of(self, field: Any, owner: str = "") -> str:
        prefix = f".{self.package}."
        if not field.type_name.startswith(prefix) or "." in field.type_name[len(prefix) :]:
            raise SystemExit(
                f"{owner}.{field.name}: {field.type_name} is not a top-level message of "
                "this file (the fast path reads no map, nested or imported message yet)"
            )
        return str(field.type_name[len(prefix) :])

    @staticmethod
    def key(message: Any, field: Any, unpacked: bool = False) -> str:
        suffix = "_UNPACKED" if unpacked else ""
        return f"keys.{snake(message.name).upper()}_{field.name.upper()}{suffix}"


def fields_module(proto: Any, records: Records, keys_module: str, pb_module: str) -> str:
    """The ``<name>_fields.py`` of ``proto`` (a ``FileDescriptorProto``)."""
    tree = _Tree(proto, records)
    out = [
        f'"""Generated by proto/generate.py (proto/fastpath.py) from {proto.name}: do not',
        f"edit. The records of {records.root} and the messages in it, read from the bytes",
        "(``read``), copied from protobuf's parse (``parse``) and written (``write``) as",
        'proto/fastpath.py describes."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import TYPE_CHECKING",
        "",
        "from google.protobuf.message import DecodeError",
        "",
        f"from {keys_module} import {proto.name.rsplit('/', 1)[-1][:-6]}_keys as keys",
        f"from {pb_module} import {proto.name.rsplit('/', 1)[-1][:-6]}_pb2 as pb",
        "from studengine.state.bounded import BoundedCache",
        "from studengine.state.checks import StateInvalid",
        "from studengine.state.reader import MALFORMED, Cursor",
        _WIRE_IMPORT,
        "",
        "if TYPE_CHECKING:  # a native (unboxed) integer compiled, an int when run pure",
        "    from mypy_extensions import i64",
    ]
    for message in tree.order:
        out += _record(tree, message)
    for message in tree.order:
        out += _reader(tree, message) + _parser(tree, message)
        if message.name not in records.cached:  # written as its ``wire``, by its holder
            out += _writer(tree, message)
    root = f"{records.root}Fields"
    name = snake(records.root)
    out += [
        "",
        "",
        f"def read(data: bytes) -> {root}:",
        f'    """{records.root}\'s fields read from ``data``; ``StateInvalid(MALFORMED)`` when',
        '    it is not one."""',
        f"    record = {root}()",
        f"    read_{name}(Cursor(data, 0, len(data), 0), record)",
        "    return record",
        "",
        "",
        f"def parse(data: bytes) -> {root}:",
        '    """``read``\'s record, by protobuf\'s parser."""',
        f"    message = pb.{records.root}()",
        "    try:",
        "        message.ParseFromString(data)",
        "    except (DecodeError, RuntimeWarning, ValueError) as error:",
        "        raise StateInvalid(MALFORMED) from error",
        f"    return parse_{name}(message)",
        "",
        "",
        f"def write(record: {root}) -> bytes:",
        f'    """``record`` as ``{records.root}.SerializeToString(deterministic=True)`` of the',
        '    same fields."""',
        "    out = BytesWriter()",
        f"    write_{name}(out, record)",
        "    return out.getvalue()",
    ]
    return _with_wire_import(out)


def _python_type(tree: _Tree, message: Any, field: Any) -> tuple[str, str]:
    """A field's annotation and its value when not given."""
    if field.type == F.TYPE_MESSAGE:
        if tree.kept(message, field):
            return "bytes | None", "None"
        record = f"{tree.message_of(field)}Fields"
        if field.label == F.LABEL_REPEATED:
            return f"list[{record}]", "[]"
        return f"{record} | None", "None"
    python, default = _SCALARS[field.type][:2]
    if field.label == F.LABEL_REPEATED:
        return f"list[{python}]", "[]"
    if field.proto3_optional:
        return f"{python} | None", "None"
    return python, default


def _record(tree: _Tree, message: Any) -> list[str]:
    lines = ["", "", f"class {message.name}Fields:", f'    """{message.name}."""', ""]
    lines.append("    def __init__(self) -> None:")
    if message.name in tree.records.cached:
        lines.append('        self.wire = b""  # the bytes its fields were read from')
    for field in message.field:
        annotation, default = _python_type(tree, message, field)
        plain = annotation in ("int", "bool", "str", "bytes")
        typed = "" if plain else f": {annotation}"
        lines.append(f"        self.{field.name}{typed} = {default}")
    return lines


def _read_statements(tree: _Tree, message: Any, field: Any) -> list[str]:
    """How ``read_<message>`` reads one of the field's values (``c``: the cursor, ``m``: the
    record)."""
    target = f"m.{field.name}"
    repeated = field.label == F.LABEL_REPEATED
    if field.type == F.TYPE_MESSAGE:
        if tree.kept(message, field):  # given twice: merged, as protobuf merges it
            return [f'{target} = (b"" if {target} is None else {target}) + c.message_bytes()']
        inner = tree.message_of(field)
        record, name = f"{inner}Fields", snake(inner)
        if repeated:
            return [f"{target}.append(read_new_{name}(c.message()))"]
        if inner in tree.records.cached:
            return [
                "inner = c.message()",
                f'earlier = b"" if {target} is None else {target}.wire',
                "wire = earlier + inner.data[inner.at : inner.end]",
                f"{target} = read_{name}_once(wire, inner.depth)",
            ]
        new = [f"if {target} is None:", f"    {target} = {record}()"]
        return [*new, f"read_{name}(c.message(), {target})"]
    _, _, one, many = _SCALARS[field.type]
    if not repeated:
        return [f"{target} = c.{one}()"]
    if many is None:  # strings and bytes: one value a field
        return [f"{target}.append(c.{one}())"]
    return [f"c.{many}(key, {target})"]


def _dispatch(entries: list[tuple[int, list[str], list[str]]], indent: str) -> list[str]:
    """Statements choosing among ``entries`` (a field's number, its keys, what reads it) by
    ``key``: a chain of ``==`` for a few, else halves split by ``<`` (a balanced tree of
    compares; a field's keys, packed or not, lie between its number's and the next's)."""
    if len(entries) > CHAIN:
        half = len(entries) // 2
        lines = [f"{indent}if key < {entries[half][1][0]}:"]
        lines += _dispatch(entries[:half], indent + "    ")
        lines.append(f"{indent}else:")
        return lines + _dispatch(entries[half:], indent + "    ")
    lines = []
    for index, (_, names, statements) in enumerate(entries):
        test = f"key == {names[0]}" if len(names) == 1 else f"key in ({', '.join(names)})"
        lines.append(f"{indent}{'if' if index == 0 else 'elif'} {test}:")
        lines += [f"{indent}    {statement}" for statement in statements]
    lines += [f"{indent}else:", f"{indent}    c.skip(key)"]
    return lines


def _reader(tree: _Tree, message: Any) -> list[str]:
    name, record = snake(message.name), f"{message.name}Fields"
    entries: list[tuple[int, list[str], list[str]]] = []
    for field in message.field:
        names = [tree.key(message, field)]  # its key; packed numbers: one value's key first
        if field.label == F.LABEL_REPEATED and field.type in _PACKED:
            names.insert(0, tree.key(message, field, unpacked=True))
        entries.append((field.number, names, _read_statements(tree, message, field)))
    entries.sort(key=lambda entry: entry[0])
    lines = ["", ""]
    if message.name in tree.records.cached:
        table = f"_{name.upper()}_READ"
        lines += [
            f"{table}: BoundedCache[bytes, {record}] = BoundedCache()  # a few serve many calls",
            "",
            "",
            f"def read_{name}_once(wire: bytes, depth: i64) -> {record}:",
            f'    """{message.name}\'s fields read from ``wire`` (every occurrence\'s bytes',
            "    so far, joined: a message given twice merges as its bytes joined parse), each",
            '    distinct one once (its record is never changed after)."""',
            f"    found = {table}.found.get(wire)",
            "    if found is None:",
            f"        found = {record}()",
            f"        read_{name}(Cursor(wire, 0, len(wire), depth), found)",
            f"        {table}.put(wire, found)",
            "    return found",
            "",
            "",
        ]
    if message.name in tree.repeated:
        lines += [
            f"def read_new_{name}(c: Cursor) -> {record}:",
            f"    m = {record}()",
            f"    read_{name}(c, m)",
            "    return m",
            "",
            "",
        ]
    lines += [
        f"def read_{name}(c: Cursor, m: {record}) -> None:",
        f'    """{message.name}\'s fields into ``m`` (a second occurrence merges into the',
        '    first\'s)."""',
    ]
    if message.name in tree.records.cached:
        lines.append("    m.wire += c.data[c.at : c.end]")
    lines += ["    while c.more():", "        key = c.key()"]
    return lines + _dispatch(entries, "        ")


def _head(signature: str, doc: str) -> list[str]:
    """A generated function's first lines, after two blank ones."""
    return ["", "", f"def {signature}:", f'    """{doc}"""']


def _parser(tree: _Tree, message: Any) -> list[str]:
    name, record = snake(message.name), f"{message.name}Fields"
    lines = _head(
        f"parse_{name}(msg: pb.{message.name}) -> {record}",
        f"{message.name}'s record from protobuf's message.",
    )
    lines.append(f"    m = {record}()")
    if message.name in tree.records.cached:
        lines.append("    m.wire = msg.SerializeToString(deterministic=True)")
    for field in message.field:
        value, has = f"msg.{field.name}", f'msg.HasField("{field.name}")'
        repeated = field.label == F.LABEL_REPEATED
        if field.type == F.TYPE_MESSAGE and tree.kept(message, field):
            value = f"{value}.SerializeToString(deterministic=True) if {has} else None"
        elif field.type == F.TYPE_MESSAGE and repeated:
            value = f"[parse_{snake(tree.message_of(field))}(item) for item in {value}]"
        elif field.type == F.TYPE_MESSAGE:
            value = f"parse_{snake(tree.message_of(field))}({value}) if {has} else None"
        elif repeated:
            value = f"{value}[:]"
        elif field.proto3_optional:
            value = f"{value} if {has} else None"
        lines.append(f"    m.{field.name} = {value}")
    return [*lines, "    return m"]


def _writer(tree: _Tree, message: Any) -> list[str]:
    name, record = snake(message.name), f"{message.name}Fields"
    lines = _head(
        f"write_{name}(out: BytesWriter, m: {record}) -> None",
        f"{message.name}'s fields in field-number order, as protobuf writes them.",
    )
    for field in sorted(message.field, key=lambda f: f.number):
        key, value = tree.key(message, field), f"m.{field.name}"
        if field.type != F.TYPE_MESSAGE:
            body = _scalar_writes(field, key, value)
        elif tree.kept(message, field):
            body = [f"if {value} is not None:", f"    append_record(out, {key}, {value})"]
        elif (inner := tree.message_of(field)) in tree.records.cached:
            body = [f"if {value} is not None:", f"    append_record(out, {key}, {value}.wire)"]
        else:
            repeated = field.label == F.LABEL_REPEATED
            item = f"{field.name}_item" if repeated else value
            head = [f"for {item} in {value}:"] if repeated else [f"if {value} is not None:"]
            body = [
                *head,
                f"    start = open_record(out, {key})",
                f"    write_{snake(inner)}(out, {item})",
                "    close_record(out, start)",
            ]
        lines += [f"    {line}" for line in body]
    return lines


#: the integer types written as int64 (a negative one as ten bytes, as protobuf does)
_SIGNED = (F.TYPE_INT64, F.TYPE_INT32, F.TYPE_ENUM)
#: the types a field given as an argument may have: their Python types
_ARGUMENTS = {
    **{kind: "int" for kind in (*_SIGNED, F.TYPE_UINT32, F.TYPE_UINT64)},
    F.TYPE_BOOL: "bool",
    F.TYPE_STRING: "str",
    F.TYPE_BYTES: "bytes",
}


def _scalar_writes(field: Any, key: str, value: str) -> list[str]:
    """How a field that is not a message is written, ``value`` its value."""
    if field.label == F.LABEL_REPEATED:
        if field.type in (F.TYPE_STRING, F.TYPE_BYTES):
            item = f"{field.name}_item"
            encoded = f"{item}.encode()" if field.type == F.TYPE_STRING else item
            return [f"for {item} in {value}:", f"    append_record(out, {key}, {encoded})"]
        if field.type == F.TYPE_BOOL:
            return [f"append_flags(out, {key}, {value})"]
        packed = "append_packed_int64" if field.type in _SIGNED else "append_packed"
        return [f"{packed}(out, {key}, {value})"]
    if field.type in (F.TYPE_STRING, F.TYPE_BYTES):
        encoded = f"{value}.encode()" if field.type == F.TYPE_STRING else value
        if field.proto3_optional:  # present when set, empty too
            return [f"if {value} is not None:", f"    append_record(out, {key}, {encoded})"]
        if field.type == F.TYPE_STRING:
            return [f"append_text(out, {key}, {value})"]
        return [f"if {value}:", f"    append_record(out, {key}, {value})"]
    test = f"{value} is not None" if field.proto3_optional else value
    write = "append_int64" if field.type in _SIGNED else "append_varint"
    return [f"if {test}:", f"    append_varint(out, {key})", f"    {write}(out, {value})"]


def writers_module(proto: Any, names: tuple[str, ...], keys_module: str) -> str:
    """The ``<name>_writers.py`` of ``proto``: for each message of ``names`` (none of whose
    fields is a message), ``write_<message>(out, <each field>)``, its fields given as
    arguments of their names and written in field-number order as
    ``SerializeToString(deterministic=True)`` writes them; for messages written as parts
    of a larger one, never read back (the API's views and results)."""
    stem = proto.name.rsplit("/", 1)[-1][:-6]
    out = [
        f'"""Generated by proto/generate.py (proto/fastpath.py) from {proto.name}: do not',
        "edit. Writers of messages whose fields are given as arguments, as",
        'proto/fastpath.py describes."""',
        "",
        "from __future__ import annotations",
        "",
        f"from {keys_module} import {stem}_keys as keys",
        _WIRE_IMPORT,
    ]
    by_name = {m.name: m for m in proto.message_type}
    for name in names:
        if name not in by_name:
            raise SystemExit(f"{proto.name}: no top-level message {name}")
        message = by_name[name]
        arguments = []
        for field in message.field:
            _check_field(message, field)
            python = _ARGUMENTS.get(field.type)
            if python is None:
                raise SystemExit(f"{name}.{field.name}: not a field a writer takes as an argument")
            if field.label == F.LABEL_REPEATED:
                python = f"list[{python}]"
            elif field.proto3_optional:
                python = f"{python} | None"
            arguments.append(f"{field.name}: {python}")
        out += ["", "", f"def write_{snake(name)}(", "    out: BytesWriter,"]
        out += [f"    {argument}," for argument in arguments]
        out += [") -> None:", f'    """{name}\'s fields in field-number order."""']
        for field in sorted(message.field, key=lambda f: f.number):
            key = _Tree.key(message, field)
            out += [f"    {line}" for line in _scalar_writes(field, key, field.name)]
    return _with_wire_import(out)
