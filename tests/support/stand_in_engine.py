"""What the stand-in engines of stud-table's unit tests answer: a hand update whose every
seat sees every seat, that asks seat 0 to CHECK, or that is over with the given stacks."""

from __future__ import annotations

from stud_api.stud.v1 import stud_engine_pb2 as pb


def one_check_update(
    hand_id: str, seq: int, state: bytes, players: int, stacks: list[int] | None
) -> pb.HandUpdate:
    """The hand after ``seq`` moves: over with ``stacks``, or (``stacks`` None) seat 0 to CHECK."""
    views = [pb.View(viewer_seat=i, seats=[pb.SeatInfo(seat=j) for j in range(players)])
             for i in range(players)]  # fmt: skip
    update = pb.HandUpdate(
        hand_id=hand_id, seq=seq, state=state, seats=views, spectator=views[0],
        over=stacks is not None,
    )  # fmt: skip
    if stacks is not None:
        update.result.stacks.extend(stacks)
    else:
        update.to_act = 0
        update.legal_actions.append(pb.LegalAction(type=pb.ACTION_TYPE_CHECK))
    return update
