"""A hand's action log (``rules.types.MoveLog``, issue 22): read like the list of Moves it
holds, whether its first moves came as Moves or in a stored form read only when asked
for (once), and copied independently."""

from __future__ import annotations

import pytest
from studengine.rules.types import ActionType, Move, MoveLog

STORED = [Move(0, ActionType.BRING_IN, 5), Move(1, ActionType.CALL, 5, True)]
LATER = Move(2, ActionType.FOLD)


class Reader:
    """A stored form's reader that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, stored: bytes) -> list[Move]:
        assert stored == b"the stored form"
        self.calls += 1
        return list(STORED)


def stored_log(reader: Reader) -> MoveLog:
    return MoveLog.of_stored(b"the stored form", reader)


def test_adding_a_move_reads_none_of_the_stored_ones() -> None:
    reader = Reader()
    log = stored_log(reader)
    log.append(LATER)
    assert reader.calls == 0
    assert log.stored == b"the stored form" and log.after == [LATER]


def test_the_stored_moves_are_read_once_when_asked_for() -> None:
    reader = Reader()
    log = stored_log(reader)
    log.append(LATER)
    assert list(log) == [*STORED, LATER]
    assert len(log) == 3 and log[0] == STORED[0] and log[-1] == LATER
    assert log.moves() == [*STORED, LATER]
    assert reader.calls == 1
    assert log.stored == b"" and log.after == [*STORED, LATER]  # now all as Moves


def test_equal_when_the_moves_are_however_they_are_held() -> None:
    stored = stored_log(Reader())
    listed = MoveLog(list(STORED))
    assert stored == listed and listed == stored
    assert stored == STORED and STORED == stored  # noqa: SIM300  # a list, both ways
    listed.append(LATER)
    assert stored != listed and stored != [*STORED, LATER]
    assert MoveLog() == [] and MoveLog() != [LATER] and MoveLog() != (LATER,)
    assert repr(MoveLog([LATER])) == f"MoveLog([{LATER!r}])"


@pytest.mark.parametrize("read_first", [False, True])
def test_a_copy_is_independent(read_first: bool) -> None:
    reader = Reader()
    log = stored_log(reader)
    if read_first:
        log.moves()
    copy = log.copy()
    copy.append(LATER)
    assert log == STORED and copy == [*STORED, LATER]
    assert reader.calls == (1 if read_first else 2)  # each unread log read for itself


def test_unhashable_as_any_mutable_sequence() -> None:
    with pytest.raises(TypeError):
        hash(MoveLog())
