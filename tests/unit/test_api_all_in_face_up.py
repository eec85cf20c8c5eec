"""The ``all_in_face_up`` table option through the API handlers (R-ALL-IN-FACE-UP): the
Table field and its JSON name, the HandsTabled event and the later deals in every view,
each seat's and the spectator's ``tabled`` seats, GetView, and the players' history."""

from __future__ import annotations

import json
import tomllib

import pytest
from google.protobuf import json_format
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.handlers import Handlers
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key, table_7s
from support.paths import CONFORMANCE_DIR

VECTOR = json.loads((CONFORMANCE_DIR / "7s-all-in-face-up-tabled-before-the-deal.json").read_text())


@pytest.fixture
def handlers() -> Handlers:
    return Handlers(KeyRing([new_key("k1")]), allow_test_decks=True)


def face_up_table() -> pb.Table:
    table = table_7s()
    table.all_in_face_up = True
    return table


def play_vector(handlers: Handlers, table: pb.Table) -> list[pb.HandUpdate]:
    """The vector's hand (seat 0 calls all-in, seat 1 alone can bet): every update."""
    request = pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=table,
        players=[pb.Player(id=f"player-{i}", stack=s) for i, s in enumerate(VECTOR["stacks"])],
        button=VECTOR["button"],
        test_deck=VECTOR["deck"],
    )
    updates = [handlers.start_hand(request).hand]
    for step in VECTOR["steps"]:
        if "act" in step:
            seat, name = step["act"]
            act = pb.ActRequest(
                state=updates[-1].state,
                seat=seat,
                action=pb.ActionType.Value(f"ACTION_TYPE_{name}"),
                expected_seq=updates[-1].seq,
            )
            updates.append(handlers.act(act).hand)
    return updates


def all_views(update: pb.HandUpdate) -> list[pb.View]:
    return [update.spectator, *update.seats]


def test_the_table_option_and_its_json_name() -> None:
    """Off by default; ``allInFaceUp`` in JSON (Connect, the stud-table back-end)."""
    assert not pb.Table().all_in_face_up
    assert json_format.MessageToDict(face_up_table())["allInFaceUp"] is True
    parsed = json_format.ParseDict({"ante": 5, "allInFaceUp": True}, pb.Table())
    assert parsed.all_in_face_up


def test_tabled_hands_seen_by_every_viewer_from_then_on_r_all_in_face_up(
    handlers: Handlers,
) -> None:
    updates = play_vector(handlers, face_up_table())
    *before, last = updates
    for update in before:  # nothing tabled while someone is to act
        assert update.HasField("to_act")
        assert not any(s.tabled for view in all_views(update) for s in view.seats)
        for view in all_views(update):  # no other seat's down card is shown
            for info in view.seats:
                if view.HasField("viewer_seat") and info.seat == view.viewer_seat:
                    continue
                assert list(info.down_cards) == []
    assert last.over and not last.HasField("to_act")
    for view in all_views(last):
        assert view.table.all_in_face_up
        assert [s.seat for s in view.seats if s.tabled] == [0, 1]
        assert all(s.revealed and "" not in s.cards for s in view.seats if s.tabled)
        kinds = [e.WhichOneof("kind") for e in view.events]
        at = kinds.index("hands_tabled")
        tabled = view.events[at].hands_tabled
        assert [h.seat for h in tabled.hands] == [0, 1]
        assert [len(h.cards) for h in tabled.hands] == [4, 4]  # third and fourth street
        later = [e.card_dealt for e in view.events[at:] if e.HasField("card_dealt")]
        assert later and all(not d.hidden and d.card for d in later)  # seventh street too
        assert {d.seat for d in later} == {0, 1}
        assert "hand_mucked" not in kinds
    assert sorted(last.result.revealed) == [0, 1]
    for seat in (None, 0, 1, 2):  # GetView after the hand: the same for every viewer
        request = pb.GetViewRequest(state=last.state)
        if seat is not None:
            request.seat = seat
        view = handlers.get_view(request).view
        assert [s.seat for s in view.seats if s.tabled] == [0, 1]
        assert all(len(s.down_cards) == 3 for s in view.seats if s.tabled)


def test_the_same_hand_with_the_option_off_tables_nothing(handlers: Handlers) -> None:
    """Off (the default), the same deck and moves move the same chips and table nothing."""
    on, off = play_vector(handlers, face_up_table())[-1], play_vector(handlers, table_7s())[-1]
    assert [s.stack for s in on.spectator.seats] == [s.stack for s in off.spectator.seats]
    assert not any(s.tabled for s in off.spectator.seats)
    kinds = {e.WhichOneof("kind") for e in off.spectator.events}
    assert "hands_tabled" not in kinds


def test_the_players_history_shows_the_tabled_hands_where_they_were_tabled(
    handlers: Handlers,
) -> None:
    last = play_vector(handlers, face_up_table())[-1]
    response = handlers.get_hand_history(
        pb.GetHandHistoryRequest(state=last.state, audience=pb.HISTORY_AUDIENCE_PLAYERS)
    )
    fields = tomllib.loads(response.phh)
    assert fields["_all_in_face_up"] is True
    actions = fields["actions"]
    shows = [(i, line) for i, line in enumerate(actions) if " sm " in line]
    deals = [i for i, line in enumerate(actions) if line.startswith("d dh")]
    # p1 and p2 (seats 0 and 1) shown with four cards where they were tabled, before the
    # fifth street's deals, then with all seven once the seventh street's down card is dealt
    (at, first), (_, second), (_, third), (_, fourth) = shows
    assert first.startswith("p1 sm ") and second.startswith("p2 sm ")
    assert len(first.split()[2]) == len(second.split()[2]) == 8
    assert deals[-7] < at < deals[-6]  # after fourth street, before the six deals after it
    assert [line.split()[:2] for line in (third, fourth)] == [["p1", "sm"], ["p2", "sm"]]
    assert len(third.split()[2]) == len(fourth.split()[2]) == 14
    assert "??" not in "".join(line for line in actions if line.startswith(("d dh p1", "d dh p2")))
