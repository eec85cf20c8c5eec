"""proto/fastpath.py's records, readers and writers (``state_fields.py``): fields and a
message added to a copy of state.proto are read, parsed and written back, byte for byte as
protobuf writes them, with no hand-written change; a type the fast path cannot read is
refused by name when generating."""

from __future__ import annotations

import ast
import dataclasses
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_generated_keys import REPO, STATE_PROTO, generate, with_fields

#: added to the copy: every kind of field the generator writes, in two messages, and a
#: new message held singly and repeated
ADDED = {
    "EngineHand": (
        "  uint64 side_pot_cap = 31;\n  repeated int64 side_bets = 32;\n"
        "  optional uint32 side_seat = 33;\n  string note = 34;\n  EngineSide side = 35;\n"
        "  repeated bool side_flags = 36;\n  optional string opt_note = 37;\n"
        "  optional bytes opt_tag = 38;\n"
    ),
    "EngineResult": "  repeated EngineSide sides = 6;\n",
}
NEW_MESSAGE = "message EngineSide {\n  repeated uint32 seats = 1;\n  bytes tag = 2;\n}\n"

#: run in a process of its own: the copy's state.proto has the real one's name, which the
#: default descriptor pool holds already in this one
ROUND_TRIP = textwrap.dedent(
    """
    from copy_gen.stud.internal.v1 import state_fields as fields
    from copy_gen.stud.internal.v1 import state_pb2 as pb

    message = pb.HandState(format_version=1, hand_id=b"h" * 16, player_ids=["a", "b"])
    hand = message.hand
    hand.variant, hand.starting_stacks[:] = 2, [100, 200]
    hand.table.ante = 5
    hand.side_pot_cap, hand.side_bets[:], hand.side_seat = 2**40, [1, -2, 300], 0
    hand.note, hand.side_flags[:] = "é", [True, False]
    hand.side.seats[:], hand.side.tag = [1, 7], b"\\x00\\xff"
    hand.result.sides.add(seats=[3], tag=b"t")
    hand.opt_note = ""  # present, empty: written
    data = message.SerializeToString(deterministic=True)

    for read in (fields.read, fields.parse):
        record = read(data)
        h = record.hand
        assert (h.side_pot_cap, h.side_bets, h.side_seat) == (2**40, [1, -2, 300], 0)
        assert (h.note, h.side_flags, h.side.seats, h.side.tag) == (
            "é", [True, False], [1, 7], b"\\x00\\xff"
        )
        assert [(s.seats, s.tag) for s in h.result.sides] == [([3], b"t")]
        assert h.table.ante == 5 and record.player_ids == ["a", "b"]
        assert (h.opt_note, h.opt_tag) == ("", None)
        assert fields.write(record) == data, read.__name__

    # given again, out of canonical form: singular values replaced, lists and the inner
    # message merged, a value of 200 bytes, as protobuf's parser reads it
    again = pb.HandState(hand=pb.EngineHand(side_bets=[5], note="x" * 200, opt_tag=b""))
    again.hand.side.seats[:] = [9]
    twice = data + again.SerializeToString()
    canonical = pb.HandState.FromString(twice).SerializeToString(deterministic=True)
    for read in (fields.read, fields.parse):
        h = read(twice).hand
        assert (h.side_bets, h.note, h.side.seats, h.opt_tag) == (
            [1, -2, 300, 5], "x" * 200, [1, 7, 9], b""
        )
        assert fields.write(read(twice)) == canonical, read.__name__

    hand.ClearField("side_seat")
    assert fields.read(message.SerializeToString()).hand.side_seat is None
    print("round trip: ok")
    """
)


def test_fields_added_to_state_proto_round_trip_with_no_hand_written_change(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proto"
    with_fields(root, ADDED, NEW_MESSAGE)
    target = dataclasses.replace(generate.INTERNAL, package="copy_gen")
    generate._generate(target, tmp_path / "copy_gen", root)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    proc = subprocess.run(
        [sys.executable, "-c", ROUND_TRIP], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "round trip: ok" in proc.stdout


@pytest.mark.parametrize(
    ("added", "named"),
    [
        ("  double odds = 31;\n", "EngineHand.odds: a TYPE_DOUBLE field"),
        ("  repeated int64 legacy = 31 [packed = false];\n", "EngineHand.legacy"),
        ("  map<string, int64> bounties = 31;\n", "EngineHand.bounties"),
        ("  oneof pick { uint32 pick_a = 31; string pick_b = 32; }\n", "EngineHand.pick_a"),
        ("  uint32 keys = 31;\n", "EngineHand.keys: a name the generated code uses"),
    ],
)
def test_a_field_the_fast_path_cannot_read_is_refused_by_name(
    tmp_path: Path, added: str, named: str
) -> None:
    root = tmp_path / "proto"
    shutil.copytree(REPO / "proto" / "stud", root / "stud")
    proto = root / STATE_PROTO
    text = proto.read_text()
    end = text.index("\n}", text.index("message EngineHand {"))
    proto.write_text(text[: end + 1] + added + text[end + 1 :])
    with pytest.raises(SystemExit, match=named.replace(".", r"\.")):
        generate._generate(generate.INTERNAL, tmp_path / "gen", root)


@pytest.mark.parametrize(
    ("records", "named"),
    [
        ({"kept": frozenset({"HandState.deals"})}, "kept HandState.deals is no field"),
        ({"cached": frozenset({"EngineTabel"})}, "cached EngineTabel is no message"),
        ({"kept": frozenset({"EngineResult.pots"})}, "only a singular message field"),
        ({"kept": frozenset({"EngineHand.result"})}, "holds no string nor message"),
    ],
)
def test_a_wrong_choice_of_kept_or_cached_is_refused(
    tmp_path: Path, records: dict[str, frozenset[str]], named: str
) -> None:
    """``Records.kept`` and ``cached`` name fields and messages of the tree, and a kept
    message is one whose bytes the reader checks by skipping its fields."""
    assert generate.INTERNAL.records is not None
    choices = dataclasses.replace(generate.INTERNAL.records, **records)
    target = dataclasses.replace(generate.INTERNAL, records=choices)
    with pytest.raises(SystemExit, match=named):
        generate._generate(target, tmp_path / "gen", generate.PROTO_ROOT)


def test_a_kept_message_given_empty_is_written_back() -> None:
    """``HandState.deal`` given with no field in it is present (b""), not left out."""
    from studengine.state._gen.stud.internal.v1 import state_fields as fields

    for read in (fields.read, fields.parse):
        assert read(b"J\x00").deal == b""
        assert read(b"").deal is None
        assert fields.write(read(b"J\x00")) == b"J\x00"


@pytest.mark.parametrize(
    "module",
    [
        "service/studengine/state/_gen/stud/internal/v1/state_fields.py",
        "service/studengine/api/_gen/stud/v1/stud_engine_writers.py",
    ],
)
def test_the_generated_modules_import_only_the_primitives_they_call(module: str) -> None:
    """The generated code is not linted: each name it imports from ``state/wire.py`` is
    one it uses (the writers module imported all nine, whether it called them or not)."""
    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "studengine.state.wire"
        for alias in node.names
    }
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert imported and imported <= used, sorted(imported - used)
