"""The Table mappings derived from the dataclass (``state.messages``): every field of
the dataclass goes out to the public ``stud.v1.Table`` and the state's ``EngineTable``
and comes back, so no table option can be left out of one message."""

from __future__ import annotations

import dataclasses
import random

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.conversions import ODD_CHIP_FROM_PB, ODD_CHIP_TO_PB, table_to_pb
from studengine.rules.types import OddChip, Table, Variant
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.codec import ODD_CHIP_BY_CODE, ODD_CHIP_CODES
from studengine.state.messages import TABLE_FIELDS, field_values, table_to_message, table_values
from support.stud_helpers import random_table

MESSAGES = {
    "public": (pb.Table, ODD_CHIP_TO_PB, ODD_CHIP_FROM_PB),
    "state": (state_pb2.EngineTable, ODD_CHIP_CODES, ODD_CHIP_BY_CODE),
}


def test_every_table_field_has_a_field_of_its_name_in_both_messages() -> None:
    for message, _, _ in MESSAGES.values():
        names = set(message.DESCRIPTOR.fields_by_name)
        assert {f.name for f in TABLE_FIELDS} <= names, message.DESCRIPTOR.full_name


@pytest.mark.parametrize("kind", MESSAGES)
def test_a_table_goes_out_and_comes_back(kind: str) -> None:
    message, codes, by_code = MESSAGES[kind]
    rng = random.Random(kind)
    for variant in Variant:
        for _ in range(50):
            table = random_table(rng, variant)
            out = table_to_message(table, message(), codes)
            again = message.FromString(out.SerializeToString())
            assert Table(**table_values(again, {OddChip: by_code})) == table


def test_the_public_table_keeps_optional_fields_set_even_at_their_default() -> None:
    """An optional field (presence) is written at its default too: a view's table says
    ``open_pair_big_bet: false`` rather than leaving it out."""
    table = Table.for_game(Variant.RAZZ, 5, 10, 20, 40)
    out = table_to_pb(table)
    assert out.HasField("open_pair_big_bet") and not out.open_pair_big_bet
    assert out.HasField("uncapped_heads_up") and out.HasField("max_bets")


def test_values_leave_out_unset_optional_fields_and_mark_unknown_codes() -> None:
    values = table_values(pb.Table(ante=1, odd_chip=99), {OddChip: ODD_CHIP_FROM_PB})
    optional = {f.name for f in pb.Table.DESCRIPTOR.fields if f.has_presence}
    assert optional and not optional & set(values)
    assert values["odd_chip"] is None and values["ante"] == 1
    everything = {f.name for f in dataclasses.fields(Table)}
    assert set(values) == everything - optional


def test_a_result_goes_out_with_every_field_of_its_pots_and_shown_hands() -> None:
    """``field_values``: each Pot and ShownHand field goes to the API's and the state's
    message of the same name (cards as text, or as bytes)."""
    from studengine.api.conversions import result_to_pb
    from studengine.rules.types import HandResult, Pot, ShownHand

    pot = Pot(90, (0, 1), (1,), (45,), (0,), (45,), rake=10)
    shown = ShownHand(1, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), 7, "x", 9, (0, 1, 2, 3, 4), "y")
    result = HandResult((pot,), (10, 190), (shown,), ((0, 5),), rake=10)
    public = result_to_pb(result)
    out = public.pots[0]
    assert (out.amount, out.rake, list(out.eligible), list(out.winners)) == (90, 10, [0, 1], [1])
    assert (list(out.shares), list(out.low_winners), list(out.low_shares)) == ([45], [0], [45])
    assert list(public.shown[0].low_best_five) == ["2c", "2d", "2h", "2s", "3c"]
    assert public.shown[0].low_description == "y" and public.shown[0].low == 9
    state = state_pb2.EngineResult()
    state.shown.add(**field_values(shown, bytes))
    assert state.shown[0].best_five == bytes(range(5)) and state.shown[0].description == "x"
