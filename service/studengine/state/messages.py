"""The engine's dataclasses to and from protobuf messages whose fields carry their fields'
names: a ``Table`` (the public ``stud.v1.Table``, the sealed state's ``EngineTable``), a
result's ``Pot`` and ``ShownHand``. The mappings are derived from the dataclasses, as
``history.phh`` writes a table's options, so a field is carried by every message once the
message has a field of its name; only enums need their codes (each message numbers its
enums its own way) and cards their form (text in the API, bytes in the state)."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from google.protobuf.message import Message

from studengine.rules.types import Record, Table

M = TypeVar("M", bound=Message)
TABLE_FIELDS = tuple(dataclasses.fields(Table))
#: the enum types of the table's enum fields, by field name (``odd_chip``: ``OddChip``)
ENUM_FIELDS: dict[str, type[enum.Enum]] = {
    f.name: type(f.default) for f in TABLE_FIELDS if isinstance(f.default, enum.Enum)
}


def table_to_message(table: Table, message: M, codes: Mapping[Any, int]) -> M:
    """``message`` with every field of ``table`` set (an enum member by its code in
    ``codes``); an optional field is set even at its default."""
    for field in TABLE_FIELDS:
        value = getattr(table, field.name)
        setattr(message, field.name, codes[value] if field.name in ENUM_FIELDS else value)
    return message


def table_values(
    message: Message, by_code: Mapping[type[enum.Enum], Mapping[Any, Any]]
) -> dict[str, Any]:
    """The table's fields that ``message`` carries, by name: each field without presence,
    an optional one only when set (left out, the table's default applies). An enum field
    is its member by ``by_code[its type]``, or None for a code that names none."""
    present = message.DESCRIPTOR.fields_by_name
    values: dict[str, Any] = {}
    for field in TABLE_FIELDS:
        name = field.name
        if present[name].has_presence and not message.HasField(name):
            continue
        value = getattr(message, name)
        kind = ENUM_FIELDS.get(name)
        values[name] = value if kind is None else by_code[kind].get(value)
    return values


#: the fields of a shown hand that hold cards
CARD_FIELDS = frozenset({"cards", "best_five", "low_best_five"})


def field_values(
    value: Record, cards: Callable[[Sequence[int]], Any] | None = None
) -> dict[str, Any]:
    """A record's fields by name (a pot, a shown hand), for a message's constructor;
    ``cards`` writes the fields that hold cards (``CARD_FIELDS``)."""
    out: dict[str, Any] = dict(zip(value.__match_args__, value.values(), strict=True))
    if cards is not None:
        for name in CARD_FIELDS.intersection(out):
            out[name] = cards(out[name])
    return out
