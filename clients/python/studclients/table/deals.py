"""Verifiable deals at the table (issue 32, docs/security.md). Before a hand is dealt the
table asks the engine for a deal ticket and stores it (one per table, compare-and-set on
its hand id, so of several replicas one ticket wins and is shown). Every page shows its
commitment; each seated player's page sends entropy from the browser
(``POST /api/tables/{id}/contribute``). The table waits for them a bounded time
(``Timing.deal_wait``, from the moment the ticket was stored) or until every player dealt
in has sent theirs, then deals with the ticket and what arrived: a seat that sent nothing
(a bot, a closed tab, a slow network) gets entropy drawn here, and the hand row says whose
entropy was whose (``hands.deal``). A ticket is used for the one deal of its hand number
only, and a hand's id is its ticket's, so the table never deals two hands with one."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.engine import ticket_request, with_ticket
from studclients.table.errors import ApiError
from studclients.table.schema import deal_contributions, deal_tickets, seats, tables
from studclients.table.store import Store

#: A contribution: 16 to 64 bytes (the engine's bounds), sent as lowercase hex.
ENTROPY = re.compile(r"^(?:[0-9a-f]{2}){16,64}$")
#: A ticket this close to its expiry (seconds) is replaced rather than dealt with.
RENEW_BEFORE = 30.0
#: The engine's refusals of a ticket: the table drops it and asks for a new one.
TICKET_REFUSALS = frozenset({"DEAL_TICKET_EXPIRED", "DEAL_TICKET_MISMATCH", "DEAL_TICKET_INVALID"})


@dataclass(frozen=True)
class Ready:
    """A deal that may go ahead: the request with the ticket and one contribution per
    player, the ticket (to check the hand shows it) and the hand row's ``deal`` column."""

    request: pb.StartHandRequest
    ticket: pb.DealTicket
    deal: dict[str, Any]


def fingerprint(request: pb.StartHandRequest) -> bytes:
    """What a ticket binds (settings, players, button) as deterministic bytes."""
    return ticket_request(request).SerializeToString(deterministic=True)


async def pending(store: Store, table_id: str) -> sa.Row[Any] | None:
    """The table's stored ticket (possibly one for an earlier hand number: stale)."""
    query = sa.select(deal_tickets).where(deal_tickets.c.table_id == table_id)
    async with store.engine.connect() as conn:
        return (await conn.execute(query)).first()


async def contributions_for(store: Store, hand_id: str) -> Sequence[sa.Row[Any]]:
    query = sa.select(deal_contributions).where(deal_contributions.c.hand_id == hand_id)
    async with store.engine.connect() as conn:
        return (await conn.execute(query)).all()


async def store_ticket(
    store: Store,
    table_id: str,
    hand_no: int,
    ticket: pb.DealTicket,
    request: pb.StartHandRequest,
    seat_map: list[int],
    wait_until: float,
    replacing: str | None,
) -> bool:
    """Stores ``ticket`` as the table's, in place of the ticket ``replacing`` (None: the
    table had none); False when another replica stored one first. The replaced ticket's
    contributions go with it."""
    values = {
        "hand_id": ticket.hand_id,
        "hand_no": hand_no,
        "sealed": ticket.sealed,
        "commitment": ticket.commitment,
        "request": fingerprint(request),
        "seat_map": seat_map,
        "expires_at": ticket.expires_at_ms / 1000,
        "wait_until": wait_until,
    }
    try:
        async with store.engine.begin() as conn:
            if replacing is None:
                await conn.execute(sa.insert(deal_tickets).values(table_id=table_id, **values))
            else:
                where = (deal_tickets.c.table_id == table_id) & (
                    deal_tickets.c.hand_id == replacing
                )
                moved = await conn.execute(sa.update(deal_tickets).where(where).values(**values))
                if moved.rowcount != 1:
                    await conn.rollback()
                    return False
            await conn.execute(
                sa.delete(deal_contributions).where(deal_contributions.c.table_id == table_id)
            )
            bump = sa.update(tables).where(tables.c.id == table_id)
            await conn.execute(bump.values(version=tables.c.version + 1))  # pages show it
    except sa.exc.IntegrityError:
        return False
    return True


async def drop_ticket(store: Store, table_id: str, hand_id: str) -> None:
    """Forgets a ticket the engine refused (expired, say): the next deal asks anew."""
    async with store.engine.begin() as conn:
        where = (deal_tickets.c.table_id == table_id) & (deal_tickets.c.hand_id == hand_id)
        await conn.execute(sa.delete(deal_tickets).where(where))


def usable(ticket: sa.Row[Any] | None, hand_no: int, request: pb.StartHandRequest) -> bool:
    """Whether the stored ticket is this deal's: the same hand number and settings and
    players, and not about to expire."""
    return (
        ticket is not None
        and ticket.hand_no == hand_no
        and ticket.request == fingerprint(request)
        and ticket.expires_at - RENEW_BEFORE > time.time()
    )


async def ready(
    store: Store,
    ticket: sa.Row[Any],
    request: pb.StartHandRequest,
    seated: Sequence[sa.Row[Any]],
    now: float,
) -> Ready | None:
    """The deal with ``ticket`` once every player dealt in has sent entropy or the wait
    is over; None while it is not. Only a contribution of the sitting that holds the seat
    now counts."""
    sent = {row.seat_no: row for row in await contributions_for(store, ticket.hand_id)}
    mine: dict[int, bytes] = {
        s.seat_no: bytes(sent[s.seat_no].entropy)
        for s in seated
        if s.seat_no in sent and sent[s.seat_no].player == s.player
    }
    waiting = [s for s in seated if s.bot is None and s.seat_no not in mine]
    if waiting and now < ticket.wait_until:
        return None
    dealt = pb.DealTicket(
        sealed=ticket.sealed, hand_id=ticket.hand_id, commitment=ticket.commitment
    )
    contributions = [mine.get(s.seat_no) for s in seated]
    deal = {
        "commitment": ticket.commitment,
        "sources": ["table" if c is None else "player" for c in contributions],
    }
    return Ready(with_ticket(request, dealt, contributions), dealt, deal)


# ---- a player's contribution ---------------------------------------------------------------
async def contribute(store: Store, table_id: str, seat: int, body: Any) -> dict[str, Any]:
    """Takes the entropy of ``seat`` (whose token was checked) for the pending ticket:
    ``{"hand": the ticket's hand id, "entropy": 32 to 128 lowercase hex digits}``."""
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", 'expected {"hand", "entropy"}')
    hand_id, entropy = body.get("hand"), body.get("entropy")
    if not isinstance(hand_id, str) or not re.fullmatch(r"[0-9a-f]{32}", hand_id):
        raise ApiError(400, "bad_field", "hand: the pending deal's id, 32 hex digits")
    if not isinstance(entropy, str) or not ENTROPY.match(entropy):
        raise ApiError(400, "bad_entropy", "entropy: 16 to 64 bytes as lowercase hex")
    async with store.engine.begin() as conn:
        query = sa.select(deal_tickets).where(deal_tickets.c.table_id == table_id)
        ticket = (await conn.execute(query)).first()
        table = (await conn.execute(sa.select(tables).where(tables.c.id == table_id))).one()
        if ticket is None or ticket.hand_id != hand_id or ticket.hand_no != table.hand_no:
            raise ApiError(409, "stale", "that deal is not waiting for entropy: reload")
        if seat not in ticket.seat_map:
            raise ApiError(409, "not_in_hand", "this seat is not dealt in the next hand")
        where = (seats.c.table_id == table_id) & (seats.c.seat_no == seat)
        player = (await conn.execute(sa.select(seats.c.player).where(where))).scalar()
        mine = (deal_contributions.c.hand_id == hand_id) & (deal_contributions.c.seat_no == seat)
        sent = (await conn.execute(sa.select(deal_contributions.c.player).where(mine))).first()
        if sent is not None and sent.player == player:
            raise ApiError(409, "already_contributed", "this seat sent its entropy already")
        if sent is not None:  # the seat's sitting before this one (who left) sent it
            await conn.execute(sa.delete(deal_contributions).where(mine))
        await conn.execute(
            sa.insert(deal_contributions).values(
                hand_id=hand_id,
                seat_no=seat,
                table_id=table_id,
                player=player,
                entropy=bytes.fromhex(entropy),
                at=time.time(),
            )
        )
    return {"ok": True, "hand": hand_id}


# ---- what a page shows -----------------------------------------------------------------------
async def waiting_part(
    store: Store, table: sa.Row[Any], seat: int | None, sitting: str | None
) -> dict[str, Any] | None:
    """The next hand's commitment while its deal waits for entropy (None otherwise):
    whether this seat is dealt in (``needed``) and its ``sitting`` has sent entropy."""
    if not table.verifiable:
        return None
    ticket = await pending(store, table.id)
    if ticket is None or ticket.hand_no != table.hand_no:
        return None
    sent = {row.seat_no: row.player for row in await contributions_for(store, ticket.hand_id)}
    return {
        "hand": ticket.hand_id,
        "commitment": ticket.commitment,
        "until": int(ticket.wait_until * 1000),
        "needed": seat is not None and seat in ticket.seat_map,
        "contributed": seat in sent and sent[seat] == sitting,
    }


def hand_part(hand: sa.Row[Any], update: pb.HandUpdate, viewer_played: bool) -> dict[str, Any]:
    """A dealt hand's proof on the page: its commitment, whose entropy went into the deck
    (by table seat, in seat order), and once it is over whether this viewer may download
    the proof (a player dealt into it)."""
    deal = hand.deal or {}
    sources = deal.get("sources") or []
    return {
        "commitment": update.deal_commitment or deal.get("commitment"),
        "contributions": [
            {"seat": seat_no, "name": name, "from": source}
            for seat_no, name, source in zip(hand.seat_map, hand.names, sources, strict=False)
        ],
        "proof": bool(hand.over and sources and viewer_played),
    }
