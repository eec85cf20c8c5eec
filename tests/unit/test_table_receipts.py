"""Players' history tokens (receipts.py) through stud-table's back-end, with a scripted
stand-in engine on a SQLite file: the token that comes with a seat downloads that
sitting's hands after the player has left (and no one else's, the seat's next occupant's
included), only the players' rendering; it is stored as its hash only, bound to its table,
expires, opens nothing but the download, and a refusal changes nothing."""

from __future__ import annotations

import asyncio
import io
import zipfile
from pathlib import Path

import pytest
import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.client import VARIANTS
from studclients.table import histories, receipts
from studclients.table.errors import ApiError
from studclients.table.game import Tables, TableSettings
from studclients.table.store import history_tokens
from test_table_sitandgo import BustingEngine, tables_on, take


class HistoryEngine(BustingEngine):
    """The stand-in engine, writing each hand's "PHH" as its state and audience."""

    def __init__(self) -> None:
        super().__init__([take(0, 1, amount=10)] * 8)
        self.audiences: list[int] = []

    async def get_hand_history(
        self, request: pb.GetHandHistoryRequest
    ) -> pb.GetHandHistoryResponse:
        self.audiences.append(request.audience)
        return pb.GetHandHistoryResponse(phh=f"state = {request.state.decode()!r}\n")


def hands_in(archive: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(archive)) as files:
        return sorted(files.namelist())


async def refusal(tables: Tables, table_id: str, token: str | None) -> tuple[int, str]:
    with pytest.raises(ApiError) as refused:
        await histories.for_player(tables, table_id, token)
    return refused.value.status, refused.value.reason


async def deal_and_check(tables: Tables, token: str) -> None:
    """Deals a hand at table "t" and ends it with the token's check (the stand-in engine's
    seat to act is always the first dealt in: the lowest seat)."""
    await tables.tick()
    table = await tables.store.table("t")
    hand = await tables.store.hand(table.current_hand) if table else None
    assert hand is not None
    await tables.act("t", token, {"action": "check", "hand": hand.hand_id, "seq": hand.seq})


async def cash_table(tmp_path: Path) -> tuple[Tables, HistoryEngine]:
    engine = HistoryEngine()
    tables = tables_on(tmp_path / "t.db", engine)
    await tables.store.create_schema()
    for table_id in ("t", "u"):
        settings = TableSettings(table_id, table_id.upper(), VARIANTS["seven"], max_seats=2)
        assert await tables.create_table(settings)
    return tables, engine


def test_a_player_who_left_downloads_their_own_hands_with_the_history_token(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        tables, engine = await cash_table(tmp_path)
        ann = await tables.join("t", "Ann")
        await tables.join("t", "Bob")
        for _ in range(2):  # two hands: dealt, then Ann's check ends each (engine seat 0)
            await deal_and_check(tables, ann["token"])
        seated = hands_in(await histories.for_player(tables, "t", ann["token"]))
        assert len(seated) == 2
        assert await tables.leave("t", ann["token"]) == {"left": True, "after_hand": False}
        assert await refusal(tables, "t", ann["token"]) == (401, "bad_token")
        after = await histories.for_player(tables, "t", ann["history_token"])
        assert hands_in(after) == seated
        assert set(engine.audiences) == {pb.HISTORY_AUDIENCE_PLAYERS}
        # Cy takes her seat and plays a hand: not in Ann's download, nor hers in Cy's
        cy = await tables.join("t", "Cy")
        assert cy["seat"] == ann["seat"]
        await deal_and_check(tables, cy["token"])
        assert hands_in(await histories.for_player(tables, "t", ann["history_token"])) == seated
        cys = hands_in(await histories.for_player(tables, "t", cy["history_token"]))
        assert len(cys) == 1 and not set(cys) & set(seated)
        await tables.store.close()

    asyncio.run(run())


def test_a_history_token_opens_only_its_own_tables_download_until_it_expires(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        tables, _ = await cash_table(tmp_path)
        ann = await tables.join("t", "Ann")
        token = ann["history_token"]
        assert await refusal(tables, "u", token) == (401, "bad_token")
        assert await refusal(tables, "t", None) == (401, "no_token")
        assert await refusal(tables, "t", "x" * 43) == (401, "bad_token")
        assert await refusal(tables, "none", token) == (404, "no_table")
        for call in (tables.authenticate, tables.leave, tables.back):
            with pytest.raises(ApiError) as refused:
                await call("t", token)
            assert refused.value.reason == "bad_token", call
        # stored as its SHA-256 only
        async with tables.store.engine.connect() as conn:
            rows = (await conn.execute(sa.select(history_tokens))).all()
        assert len(rows) == 1 and token.encode() not in (tmp_path / "t.db").read_bytes()
        # past its lifetime: 401 expired_token, and the next token issued clears it away
        player = next(s.player for s in await tables.store.seats_of("t") if s.name == "Ann")
        later = receipts.LIFETIME + 1
        assert await receipts.player_of(tables.store, "t", token) == (player, False)
        async with tables.store.engine.begin() as conn:
            await conn.execute(
                sa.update(history_tokens).values(expires_at=history_tokens.c.expires_at - later)
            )
        assert await refusal(tables, "t", token) == (401, "expired_token")
        await tables.join("t", "Bob")
        assert await receipts.player_of(tables.store, "t", token) is None
        await tables.store.close()

    asyncio.run(run())
