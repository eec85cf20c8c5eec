"""``stud-verify`` (issue 32): a hand dealt with a ticket -> its histories (players' and
audit) -> accepted; one contribution changed, the seed changed, two cards swapped ->
refused naming the field; a hand without a ticket -> its deck commitment checked."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.handlers import Handlers
from studengine.history import verify
from studengine.history.verify import ProofFailed, verify_text
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key
from support.refusals import start_request, ticket_request, ticketed_start


@pytest.fixture(scope="module")
def handlers() -> Handlers:
    return Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)


def to_showdown(handlers: Handlers, update: pb.HandUpdate) -> pb.HandUpdate:
    """Seat 0 folds when it may, the others check or call (the bring-in posted): a
    showdown, with seat 0's down cards hidden in the players' history (R-MUCK)."""
    while not update.over:
        legal = [a.type for a in update.legal_actions]
        wanted = pb.ACTION_TYPE_FOLD
        preferred = (pb.ACTION_TYPE_BRING_IN, pb.ACTION_TYPE_CHECK, pb.ACTION_TYPE_CALL)
        if update.to_act != 0 or wanted not in legal:
            wanted = next(a for a in preferred if a in legal)
        request = pb.ActRequest(state=update.state, seat=update.to_act, action=wanted)
        update = handlers.act(request).hand
    return update


def histories(handlers: Handlers, state: bytes) -> dict[str, str]:
    audiences = {"players": pb.HISTORY_AUDIENCE_PLAYERS, "audit": pb.HISTORY_AUDIENCE_AUDIT}
    return {
        name: handlers.get_hand_history(pb.GetHandHistoryRequest(state=state, audience=a)).phh
        for name, a in audiences.items()
    }


@pytest.fixture(scope="module")
def ticket_histories(handlers: Handlers) -> dict[str, str]:
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    update = to_showdown(handlers, handlers.start_hand(ticketed_start(ticket)).hand)
    return histories(handlers, update.state)


@pytest.fixture(scope="module")
def plain_histories(handlers: Handlers) -> dict[str, str]:
    update = to_showdown(handlers, handlers.start_hand(start_request(test_deck=[])).hand)
    return histories(handlers, update.state)


def refused_field(text: str) -> str:
    with pytest.raises(ProofFailed) as failed:
        verify_text(text)
    return failed.value.field


@pytest.mark.parametrize("audience", ["players", "audit"])
def test_a_ticket_hands_histories_carry_their_proof_and_pass(
    ticket_histories: dict[str, str], audience: str
) -> None:
    text = ticket_histories[audience]
    fields = tomllib.loads(text)
    for name in ("_deal_commitment", "_server_seed", "_contributions", "_deck", "_salt"):
        assert name in fields, name
    assert len(fields["_contributions"]) == 3
    assert "deal commitment" in verify_text(text)
    if audience == "players":  # the folded hand's down cards stay hidden (R-MUCK)
        assert any("??" in line for line in fields["actions"])


def _field_line(text: str, name: str) -> str:
    found = re.search(rf"^{re.escape(name)} = .*$", text, re.MULTILINE)
    assert found is not None, name
    return found[0]


def test_one_contribution_changed_is_refused(ticket_histories: dict[str, str]) -> None:
    text = ticket_histories["players"]
    first = tomllib.loads(text)["_contributions"][0]
    changed = ("00" if first[:2] != "00" else "01") + first[2:]
    assert refused_field(text.replace(first, changed, 1)) == "_contributions"


def test_the_seed_changed_is_refused(ticket_histories: dict[str, str]) -> None:
    text = ticket_histories["audit"]
    seed = tomllib.loads(text)["_server_seed"]
    changed = seed[:-2] + ("00" if seed[-2:] != "00" else "01")
    assert refused_field(text.replace(seed, changed)) == "_server_seed"


def swapped_deck(text: str) -> str:
    deck = tomllib.loads(text)["_deck"]
    return text.replace(deck, deck[2:4] + deck[0:2] + deck[4:])


def test_two_cards_swapped_in_the_deck_are_refused(ticket_histories: dict[str, str]) -> None:
    assert refused_field(swapped_deck(ticket_histories["audit"])) == "_deck"


def test_two_cards_swapped_in_the_deal_are_refused(ticket_histories: dict[str, str]) -> None:
    text = ticket_histories["audit"]
    first = re.search(r'"d dh p1 (\w\w)(\w\w)', text)
    assert first is not None
    a, b = first[1], first[2]
    swapped = text.replace(first[0], f'"d dh p1 {b}{a}', 1)
    assert refused_field(swapped) == "actions"


def test_a_hand_without_a_ticket_has_its_deck_commitment_checked(
    plain_histories: dict[str, str],
) -> None:
    audit = plain_histories["audit"]
    assert "_server_seed" not in tomllib.loads(audit)
    assert verify_text(audit).startswith("hand ")
    assert refused_field(swapped_deck(audit)) == "_deck"
    assert refused_field(plain_histories["players"]) == "_deck"  # no deck: nothing to check


def test_the_command_names_the_file_and_the_field(
    tmp_path: Path, ticket_histories: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.phh"
    good.write_text(ticket_histories["players"])
    assert verify.main([str(good)]) == 0
    assert f"{good}: ok" in capsys.readouterr().out
    bad = tmp_path / "bad.phh"
    bad.write_text(swapped_deck(ticket_histories["players"]))
    assert verify.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{good}: ok" in out and f"{bad}: FAILED _deck:" in out
