"""The engine's dataclasses whose ``__init__`` is written out (issue 22: the compiled
build runs it natively, a generated one in the interpreter) take exactly their fields, in
order, by name or position, with the defaults the fields declare. On both builds, so the
written-out forms cannot drift from the field lists that the codec, the histories and
``dataclasses.replace`` read."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from studengine.rules.betting import BettingRound
from studengine.rules.hand import Hand
from studengine.rules.types import ActionType, Move, MoveLog, OddChip, Table, Variant

TABLE = Table(5, 10, 20, 40)
ROUND = BettingRound(TABLE, False, [0, 0], [False, False], held=True)


# a value for every init field, each unlike its default (if any) and the others
SAMPLES: dict[type, dict[str, Any]] = {
    Table: {
        "ante": 1, "bring_in": 2, "small_bet": 3, "big_bet": 4, "max_bets": 5,
        "uncapped_heads_up": True, "open_pair_big_bet": False,
        "odd_chip": OddChip.HIGH_CARD_BY_SUIT, "rake_percent_bp": 6, "rake_cap": 7,
        "all_in_face_up": True,
    },
    BettingRound: {
        "table": TABLE, "big_street": True, "bets": [1, 2], "acted": [True, False],
        "held": True, "level": 3, "full_level": 4, "full_bets": 5, "uncapped": True,
        "open_pair": True, "big_made": True, "bring_in_due": True, "opener_may_fold": True,
        "first_actor": 1, "last_aggressor": 0,
    },
    Hand: {
        "variant": Variant.RAZZ, "table": TABLE, "button": 1, "starting_stacks": [10, 20],
        "deck": list(range(52)), "dealt": 6, "stacks": [8, 19], "committed": [2, 1],
        "cards": [[1, 2, 3], [4, 5, 6]], "community": 9, "folded": [False, True],
        "street": 0, "to_act": 0, "round": ROUND, "over": True, "result": None,
        "moves": MoveLog([Move(1, ActionType.FOLD)]), "tabled": [0],
    },
}  # fmt: skip


def init_fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [field for field in dataclasses.fields(cls) if field.init]


@pytest.mark.parametrize("cls", [Table, BettingRound, Hand])
def test_the_samples_name_every_field(cls: type) -> None:
    assert list(SAMPLES[cls]) == [field.name for field in init_fields(cls)]


@pytest.mark.parametrize("cls", [Table, BettingRound, Hand])
def test_every_field_is_taken_by_name_and_kept(cls: type) -> None:
    values = SAMPLES[cls]
    made = cls(**values)
    for name, value in values.items():
        assert getattr(made, name) is value or getattr(made, name) == value, name
    assert dataclasses.replace(made) == made
    assert cls(*values.values()) == made  # positionally, in the fields' order


@pytest.mark.parametrize("cls", [Table, BettingRound])
def test_the_defaults_are_the_fields_defaults(cls: type) -> None:
    fields = init_fields(cls)
    required = {f.name: SAMPLES[cls][f.name] for f in fields if f.default is dataclasses.MISSING}
    made = cls(**required)
    for field in fields:
        if field.default is not dataclasses.MISSING:
            assert getattr(made, field.name) == field.default, field.name


def test_a_hand_works_out_its_spec_and_the_table_stays_frozen() -> None:
    hand = Hand(**SAMPLES[Hand])
    assert hand.spec.variant is Variant.RAZZ
    with pytest.raises(dataclasses.FrozenInstanceError):
        TABLE.ante = 1  # type: ignore[misc]
