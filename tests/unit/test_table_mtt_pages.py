"""What a tournament player's pages are told, through the back-end on a SQLite file: where
they sit and what is on sale to them (a rebuy while at most the starting stack, the add-on
at its break, once each; nothing to a token a new tab traded), the push that sends a
moved player's page to their new table, and a tournament's tables kept from the cash
tables' doors (no join, no bot, no leave, not in the tables' lobby), their seats
numbered from 1 to the last as the draw seats them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any
from unittest.mock import AsyncMock

import pytest
from studclients.client import VARIANTS
from studclients.table import lobby, resume
from studclients.table.errors import ApiError
from studclients.table.game import Tables, TableSettings, Timing
from studclients.table.mtt import pages
from studclients.table.mtt.director import Director
from studclients.table.store import Store
from test_table_mtt_director import SETTINGS, ChipEngine

RAW: dict[str, Any] = {**SETTINGS, "unit": "minutes", "every": 1, "seats": 4,
                       "rebuy_levels": 2, "breaks": [1], "addon_break": 1,
                       "break_seconds": 600}  # fmt: skip


async def entered(tmp_path: Path) -> tuple[Store, Tables, Director, dict[str, Any]]:
    """A tournament of Ann and seven bots on two tables, started; Ann's registration (her
    token and resume token)."""
    store = Store(f"sqlite:///{tmp_path / 'pages.db'}")
    await store.create_schema()
    tables = Tables(store, ChipEngine(3), Timing(pause=0.0, bot_delay=0.0))
    director = Director(store)
    assert await director.create("m", "Pages", VARIANTS["seven"], RAW, seed="p")
    ann = await director.register("m", "Ann")
    for number in range(7):
        await director.register("m", f"Bot {number}", bot="station")
    await director.start("m")
    return store, tables, director, ann


async def started(tmp_path: Path) -> tuple[Store, Tables, Director, str]:
    """The same; Ann's token."""
    store, tables, director, ann = await entered(tmp_path)
    return store, tables, director, str(ann["token"])


def test_a_player_is_told_where_they_sit_and_what_they_may_buy(tmp_path: Path) -> None:
    async def run() -> None:
        store, _, director, token = await started(tmp_path)
        me = await pages.my_seat(director, "m", token)
        assert me["name"] == "Ann" and me["status"] == "running" and me["place"] is None
        assert me["table"] in ("m-1", "m-2") and 1 <= me["seat"] <= 4
        assert me["can_rebuy"] and not me["can_addon"]  # the starting stack: a rebuy is on sale
        await director.buy("m", token, "rebuy")
        me = await pages.my_seat(director, "m", token)
        assert not me["can_rebuy"] and me["rebuys"] == 1  # twice the starting stack now
        await director.decide("m", now=time.time() + 61)  # level 2: the break after level 1
        me = await pages.my_seat(director, "m", token)
        assert me["can_addon"] and not me["addon"]
        await director.buy("m", token, "addon")
        me = await pages.my_seat(director, "m", token)
        assert not me["can_addon"] and me["addon"]
        assert (await pages.page(director, "m"))["prize_pool"] == 8 * 100 + 200
        with pytest.raises(ApiError):
            await pages.my_seat(director, "m", "not-a-token")
        await store.close()

    asyncio.run(run())


def test_a_rebuy_checked_just_before_a_new_tab_traded_the_token_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old tab's rebuy racing the new tab's trade (resume.py): its token passed the
    first check, then was traded; the decision checks it again, refuses 401, sells nothing."""

    async def run() -> None:
        store, _, director, ann = await entered(tmp_path)
        old = str(ann["token"])
        checked = await director.where("m", old)  # the old tab's rebuy: its token is good
        traded = await resume.rotate_entry(store, "m", str(ann["resume"]))  # a new tab's
        assert traded is not None and checked is not None
        monkeypatch.setattr(director, "where", AsyncMock(return_value=checked))
        with pytest.raises(ApiError) as refused:
            await director.buy("m", old, "rebuy")
        assert (refused.value.status, refused.value.reason) == (401, "bad_token")
        me = await pages.my_seat(director, "m", traded["token"])
        assert me["rebuys"] == 0 and me["can_rebuy"], "nothing sold"
        await store.close()

    asyncio.run(run())


def test_a_moved_players_push_names_their_new_table(tmp_path: Path) -> None:
    async def run() -> None:
        store, _, director, token = await started(tmp_path)
        mine = str((await pages.my_seat(director, "m", token))["table"])
        other = "m-2" if mine == "m-1" else "m-1"
        # the push at a table where her token holds no seat: she sits at hers
        found = await pages.seat_elsewhere(store, other, token)
        assert found is not None and found["table"] == mine and found["tournament"] == "m"
        assert found["why"] is None  # the opening draw, not a move
        assert await pages.seat_elsewhere(store, mine, token) is None  # still there
        assert await pages.seat_elsewhere(store, other, "not-a-token") is None
        assert await pages.seat_elsewhere(store, "no-such-table", token) is None
        await store.close()

    asyncio.run(run())


def test_a_tournaments_tables_are_not_cash_tables(tmp_path: Path) -> None:
    async def run() -> None:
        store, tables, director, token = await started(tmp_path)
        cash = TableSettings(table_id="cash", name="Cash", variant=VARIANTS["seven"])
        await tables.create_table(cash)
        listed = [t["id"] for t in (await lobby.listing(tables))["tables"]]
        assert listed == ["cash"]
        table = str((await pages.my_seat(director, "m", token))["table"])
        for refused in (tables.join(table, "Eve"), tables.seat_bot(table, "station")):
            with pytest.raises(ApiError) as error:
                await refused
            assert error.value.reason == "tournament_table"
        with pytest.raises(ApiError) as error:
            await tables.leave(table, token)
        assert error.value.reason == "in_tournament"
        seat = await tables.authenticate(table, token)
        page = await tables.page(table, seat)
        numbers = [s["seat"] for s in page["seats"]]
        assert numbers == [1, 2, 3, 4] and page["table"]["first_seat"] == 1
        assert [s["seat"] for s in page["seats"] if s["you"]] == [seat]
        await store.close()

    asyncio.run(run())
