"""Every ``Record`` names each of its fields in ``__match_args__``.

``Record``'s ``__eq__``, ``__hash__`` and ``repr`` see only the fields that
``__match_args__`` names: a field set in ``__init__`` but left out of it would silently
drop out of all three. Read from the sources (the compiled build's native classes have no
``__dict__`` to look in), and checked against the classes the package defines at run time,
so that a record the scan misses fails too.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import studengine
from studengine.rules.types import Record

PACKAGE = Path(studengine.__file__).resolve().parent


def _self_fields(cls: ast.ClassDef) -> set[str]:
    """The attributes assigned on ``self`` in the class's methods."""
    fields: set[str] = set()
    for node in ast.walk(cls):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                fields.add(target.attr)
    return fields


def _match_args(cls: ast.ClassDef) -> tuple[str, ...] | str | None:
    """The class's ``__match_args__``: a tuple of names, or the name of the class whose
    ``__match_args__`` it repeats (``Base.__match_args__``); None when it sets none."""
    for node in cls.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "__match_args__":
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
                return value.value.id
            return tuple(ast.literal_eval(value))
    return None


def _record_classes() -> dict[str, tuple[tuple[str, ...] | None, set[str]]]:
    """Each source class whose base is ``Record`` or another record, by qualified name:
    its ``__match_args__`` and the fields its methods set."""
    classes: dict[str, tuple[str, ast.ClassDef]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_gen" in path.parts:
            continue
        module = ".".join(("studengine", *path.relative_to(PACKAGE).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                classes[f"{module}.{node.name}"] = (node.name, node)
    records: dict[str, tuple[tuple[str, ...] | None, set[str]]] = {}
    by_name: dict[str, tuple[tuple[str, ...] | None, set[str]]] = {"Record": ((), set())}
    grew = True
    while grew:  # records of records: a subclass has its base's fields too
        grew = False
        for qualified, (name, node) in classes.items():
            bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in by_name]
            if qualified in records or not bases or name == "Record":
                continue
            _, base_fields = by_name[bases[0]]
            own = _match_args(node)
            match_args = by_name[own][0] if isinstance(own, str) else own
            records[qualified] = by_name[name] = (
                match_args if own is not None else None,
                base_fields | _self_fields(node),
            )
            grew = True
    return records


def _runtime_records() -> set[str]:
    for info in pkgutil.walk_packages([str(PACKAGE)], "studengine."):
        if "._gen" not in info.name and not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    found: set[str] = set()
    pending = [Record]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub.__module__.startswith("studengine."):
                found.add(f"{sub.__module__}.{sub.__qualname__}")
            pending.append(sub)
    return found


def test_every_record_field_is_in_match_args() -> None:
    records = _record_classes()
    assert len(records) >= 16
    for name, (match_args, fields) in records.items():
        assert match_args is not None, f"{name} declares no __match_args__"
        assert set(match_args) == fields, (
            f"{name}: fields set {sorted(fields)} but __match_args__ is {match_args}"
        )
        assert len(set(match_args)) == len(match_args), f"{name}: a field named twice"


def test_the_scan_sees_every_record_class() -> None:
    assert set(_record_classes()) == _runtime_records()


def test_the_guard_catches_a_dropped_field() -> None:
    source = (
        "class Pair(Record):\n"
        "    __match_args__ = ('a',)\n"
        "    def __init__(self, a: int, b: int) -> None:\n"
        "        self.a: Final = a\n"
        "        self.b: Final = b\n"
    )
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ClassDef)
    assert _match_args(node) == ("a",)
    assert _self_fields(node) == {"a", "b"}
