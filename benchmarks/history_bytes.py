"""What the action log (``Hand.moves``) adds to a sealed state at the end of a hand, packed
as the state keeps it, next to the same log as a repeated protobuf message; and what it
adds to the codec's time (encode and decode of the same states with and without it).

``.venv/bin/python -m benchmarks.history_bytes``: 2,000 random hands each of Five Card
Stud heads-up and Seven Card Stud 8-handed (ante 5, bring-in 10, 20-40, stacks 1,000,
every action uniformly random among the legal ones, seeded decks).
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import timeit
from collections.abc import Sequence

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, MoveLog, Table, Variant
from studengine.state.codec import HandRecord, decode
from studengine.state.encoding import encode, pack_moves

HANDS = 2000
KINDS = list(ActionType)


def repeated_message_size(hand: Hand) -> int:
    """The log as ``repeated Action moves = 29`` with ``Action {seat, kind, to, timeout}``."""
    proto = descriptor_pb2.FileDescriptorProto(name="alt.proto", package="alt", syntax="proto3")
    action = proto.message_type.add(name="Action")
    for number, name in enumerate(("seat", "kind", "to", "timeout"), 1):
        kind = descriptor_pb2.FieldDescriptorProto.TYPE_BOOL if name == "timeout" else 13
        action.field.add(name=name, number=number, type=kind, label=1)
    log = proto.message_type.add(name="Log")
    log.field.add(name="moves", number=29, type=11, type_name=".alt.Action", label=3)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    message = message_factory.GetMessageClass(pool.FindMessageTypeByName("alt.Log"))()
    for move in hand.moves:
        message.moves.add(  # type: ignore[attr-defined]
            seat=move.seat, kind=KINDS.index(move.type), to=move.to or 0, timeout=move.timeout
        )
    return len(message.SerializeToString())


def summary(values: Sequence[float]) -> str:
    return (
        f"mean {statistics.mean(values):.1f}, median {statistics.median(values)}, max {max(values)}"
    )


def codec_times(records: list[HandRecord]) -> tuple[float, float]:
    """Microseconds to encode and to decode one state (best of 5 rounds over all)."""
    data = [encode(r) for r in records]
    rounds = 5 * len(records)
    encoding = min(timeit.repeat(lambda: [encode(r) for r in records], number=5, repeat=5))
    decoding = min(timeit.repeat(lambda: [decode(d) for d in data], number=5, repeat=5))
    return encoding / rounds * 1e6, decoding / rounds * 1e6


def main() -> None:
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
    for variant, players in ((Variant.FIVE_CARD_STUD, 2), (Variant.SEVEN_CARD_STUD, 8)):
        rng = random.Random(7)
        actions, packed, repeated, whole = [], [], [], []
        records = []
        for _ in range(HANDS):
            deck = list(range(52))
            rng.shuffle(deck)
            hand, _ = start_hand(variant, table, [1000] * players, 0, deck)
            while not hand.is_over:
                assert hand.to_act is not None
                choice = rng.choice(hand.legal_actions())
                hand.act(hand.to_act, choice.type, choice.to)
            log = pack_moves(hand.moves)
            actions.append(len(hand.moves))
            packed.append(len(log) + 2 if log else 0)  # with its field tag and length
            repeated.append(repeated_message_size(hand))
            ids = [f"player-{seat}" for seat in range(players)]
            records.append(HandRecord(b"h" * 16, 30, False, b"s" * 32, ids, hand))
            whole.append(len(encode(records[-1])))
        print(f"{variant.value}, {players} players, {HANDS} hands at their end")
        print(f"  actions                 {summary(actions)}")
        print(f"  log bytes, packed       {summary(packed)}")
        print(f"  log, repeated message   {summary(repeated)}")
        print(f"  whole state (unsealed)  {summary(whole)}")
        bare = [
            dataclasses.replace(r, hand=dataclasses.replace(r.hand, moves=MoveLog()))
            for r in records
        ]
        for name, group in (("with the log", records), ("without", bare)):
            encode_us, decode_us = codec_times(group)
            print(f"  codec {name:<13} encode {encode_us:.1f} us, decode {decode_us:.1f} us")


if __name__ == "__main__":
    main()
