"""Hand histories as downloads: a player gets the finished hands of their own sitting in
the players' rendering (what every player may see once a hand is over: R-MUCK), an
operator every finished hand of a table in either rendering, the audit one included. The
engine writes the PHH (``GetHandHistory`` on the hand's sealed final state); here they
are packed one hand per file (``NNNN-HANDID.phh``, what ``stud-replay`` reads) in a zip."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.engine import EngineError
from studclients.table import receipts
from studclients.table.errors import ApiError
from studclients.table.game import Tables

#: The newest hands a download holds at most (the older ones stay in the database).
MAX_HANDS = 1000
AUDIENCES = {"players": pb.HISTORY_AUDIENCE_PLAYERS, "audit": pb.HISTORY_AUDIENCE_AUDIT}


async def pack(
    tables: Tables, hands: Sequence[Any], audience: pb.HistoryAudience.ValueType
) -> bytes:
    """A zip of one PHH file per hand; a hand the engine cannot write (its sealing key is
    gone, say) is listed in ``skipped.txt`` instead. 503 when the engine is unreachable."""
    buffer = io.BytesIO()
    skipped = []
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for hand in hands[-MAX_HANDS:]:
            request = pb.GetHandHistoryRequest(state=hand.state, audience=audience)
            try:
                answer = await tables.engine.get_hand_history(request)
            except EngineError as error:
                if error.code in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED"):
                    raise ApiError(
                        503, "engine_unavailable", "the engine is not reachable"
                    ) from None
                skipped.append(f"hand {hand.number} ({hand.hand_id}): {error.code}\n")
                continue
            archive.writestr(f"{hand.number:04d}-{hand.hand_id}.phh", answer.phh)
        if skipped:
            archive.writestr("skipped.txt", "".join(skipped))
    return buffer.getvalue()


async def sitting_of(tables: Tables, table_id: str, token: str | None) -> str | None:
    """The sitting (``seats.player``) ``token`` stands for: the seat token of a player
    still seated or the history token (receipts.py) that came with it, which still works
    once the seat is gone: 401 ``bad_token`` when it is neither, 401 ``expired_token``
    when the history token's time is over."""
    try:
        seat = await tables.authenticate(table_id, token)
    except ApiError as refused:
        if refused.reason != "bad_token" or token is None:
            raise
        receipt = await receipts.player_of(tables.store, table_id, token)
        if receipt is None:
            raise ApiError(401, "bad_token", "not a seat or history token here") from None
        player, expired = receipt
        if expired:
            raise ApiError(401, "expired_token", "this history token has expired") from None
    else:
        rows = await tables.store.seats_of(table_id)
        player = next(s.player for s in rows if s.seat_no == seat)
    return str(player) if player else None


async def for_player(tables: Tables, table_id: str, token: str | None) -> bytes:
    """The history of a sitting (``sitting_of``): the finished hands it was dealt into."""
    player = await sitting_of(tables, table_id, token)
    hands = await tables.store.hands_played(player) if player else []
    return await pack(tables, hands, pb.HISTORY_AUDIENCE_PLAYERS)


async def proof(tables: Tables, table_id: str, hand_id: str, token: str | None) -> tuple[str, str]:
    """A finished hand's proof, for a player dealt into it (the seat or history token):
    its players' history, which for a hand dealt with a deal ticket carries the
    commitment, the server's seed, the contributions and the deck (``stud-verify``
    checks it). (file name, PHH text); 404 ``no_proof`` for a hand of another table,
    one in progress or one dealt without a ticket, 403 ``not_your_hand``."""
    player = await sitting_of(tables, table_id, token)
    hand = await tables.store.hand(hand_id)
    if hand is None or hand.table_id != table_id or not hand.over or not hand.deal:
        raise ApiError(404, "no_proof", "no finished hand dealt with a deal ticket by that id")
    if player is None or not await tables.store.played(player, hand_id):
        raise ApiError(403, "not_your_hand", "only the players dealt into a hand get its proof")
    request = pb.GetHandHistoryRequest(state=hand.state, audience=pb.HISTORY_AUDIENCE_PLAYERS)
    try:
        answer = await tables.engine.get_hand_history(request)
    except EngineError as error:
        raise ApiError(503, "engine_unavailable", "the engine is not reachable") from error
    return f"{hand.number:04d}-{hand.hand_id}.phh", answer.phh


async def for_operator(tables: Tables, table_id: str, audience: str) -> bytes:
    """Every finished hand of the table, in the rendering named (``players``, ``audit``)."""
    if audience not in AUDIENCES:
        raise ApiError(400, "bad_field", f"audience must be one of {', '.join(AUDIENCES)}")
    if await tables.store.table(table_id) is None:
        raise ApiError(404, "no_table", f"there is no table {table_id!r}")
    hands = await tables.store.finished_hands(table_id)
    return await pack(tables, hands, AUDIENCES[audience])
