"""The engine client's verifiable-deal parts that need no server (issue 32): the ticket
request binds StartHand's settings, every player gets a contribution (their own, or 32
bytes from the CSPRNG), a hand not showing its ticket's commitment is refused, and
stud-load's history audience follows --verifiable."""

from __future__ import annotations

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients import load
from studclients.client import Histories
from studclients.engine import (
    CONTRIBUTION_BYTES,
    CommitmentMismatch,
    checked_commitment,
    ticket_request,
    with_ticket,
)

START = pb.StartHandRequest(
    variant=pb.VARIANT_SEVEN_CARD_STUD,
    table=pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40),
    players=[pb.Player(id=f"p{i}", stack=1000) for i in range(3)],
    button=2,
)
TICKET = pb.DealTicket(sealed=b"sealed", hand_id="ab" * 16, commitment="cd" * 32)


def test_ticket_request_binds_the_start_settings() -> None:
    request = ticket_request(START)
    assert request.variant == START.variant and request.button == 2
    assert request.table == START.table
    assert list(request.players) == list(START.players)


def test_every_player_gets_a_contribution_their_own_or_a_fresh_one() -> None:
    own = b"x" * 16
    request = with_ticket(START, TICKET, [own, None])
    assert request.deal_ticket == b"sealed"
    assert len(request.contributions) == 3
    assert request.contributions[0] == own
    assert len(request.contributions[1]) == len(request.contributions[2]) == CONTRIBUTION_BYTES
    assert request.contributions[1] != request.contributions[2]
    assert not START.deal_ticket and not START.contributions  # the original is unchanged
    assert request.players == START.players


def test_a_hand_without_its_tickets_commitment_is_refused() -> None:
    shown = pb.HandUpdate(hand_id=TICKET.hand_id, deal_commitment=TICKET.commitment)
    assert checked_commitment(TICKET, shown) is shown
    with pytest.raises(CommitmentMismatch, match="commitment"):
        checked_commitment(TICKET, pb.HandUpdate(hand_id=TICKET.hand_id, deal_commitment=""))
    with pytest.raises(CommitmentMismatch):
        checked_commitment(TICKET, pb.HandUpdate(hand_id="00" * 16, deal_commitment="cd" * 32))


@pytest.mark.parametrize(
    ("argv", "audience"),
    [
        ([], "audit"),
        (["--verifiable"], "players"),
        (["--verifiable", "--history-audience", "audit"], "audit"),
        (["--history-audience", "players"], "players"),
    ],
)
def test_stud_load_writes_the_players_history_when_verifiable(
    argv: list[str], audience: str
) -> None:
    args = load.build_parser().parse_args(["--history-dir", "d", *argv])
    Histories.resolve_audience(args)
    assert args.history_audience == audience
