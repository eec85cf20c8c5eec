"""Verifiable deals at the table (deals.py) without a network: a stand-in engine that
issues deal tickets the way the engine does (a hand id, a commitment, the settings bound),
a SQLite file. The table shows the commitment before the deal, waits for the players'
entropy (bounded), deals with it, refuses bad contributions with a reason, replaces a
ticket the seats no longer match, and never deals two hands with one ticket."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.engine import EngineError, ticket_request
from studclients.table import deals
from studclients.table.errors import ApiError
from studclients.table.game import Tables, TableSettings, Timing
from studclients.table.store import Step, Store, hands
from test_table_game import ScriptedEngine


class TicketEngine(ScriptedEngine):
    """ScriptedEngine with deal tickets: ``sealed`` is the hand id, the seed and the
    settings it binds; StartHand with one deals that hand id, shows its commitment, and
    refuses other settings, contributions not one per player of 16 to 64 bytes, and (with
    ``expire``) an expired ticket. With ``race``, each StartHand waits (10 s at most) for
    a second one, so two replicas dealing at once both reach it."""

    def __init__(self, race: bool = False) -> None:
        super().__init__(moves=2)
        self.tickets: list[pb.DealTicket] = []
        self.race, self.expire = race, False
        self.two_deals = asyncio.Event()
        self.arrived = 0

    async def create_deal_ticket(self, request: pb.CreateDealTicketRequest) -> pb.DealTicket:
        seed = hashlib.sha256(f"seed {len(self.tickets)}".encode()).digest()
        hand_id = f"{0xD0 + len(self.tickets):032x}"
        bound = request.SerializeToString(deterministic=True)
        ticket = pb.DealTicket(
            sealed=hand_id.encode() + seed + bound,
            hand_id=hand_id,
            commitment=hashlib.sha256(seed).hexdigest(),
            expires_at_ms=int((time.time() + 300) * 1000),
        )
        self.tickets.append(ticket)
        return ticket

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        if not request.deal_ticket:
            return await super().start_hand(request)
        hand_id, seed = request.deal_ticket[:32].decode(), request.deal_ticket[32:64]
        if request.deal_ticket[64:] != ticket_request(request).SerializeToString(
            deterministic=True
        ):
            raise EngineError(
                "StartHand", "INVALID_ARGUMENT", "other settings", "DEAL_TICKET_MISMATCH"
            )
        if self.expire:
            raise EngineError("StartHand", "FAILED_PRECONDITION", "expired", "DEAL_TICKET_EXPIRED")
        sizes = [len(c) for c in request.contributions]
        assert len(sizes) == len(request.players) and all(16 <= n <= 64 for n in sizes), sizes
        if self.race:
            self.arrived += 1
            if self.arrived >= 2:
                self.two_deals.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.two_deals.wait(), 10)
        update = await super().start_hand(request)
        update.hand_id = hand_id
        update.deal_commitment = hashlib.sha256(seed).hexdigest()
        return update


async def verifiable_table(
    db: Path, engine: TicketEngine, wait: float = 60.0, bots: tuple[str, ...] = ()
) -> Tables:
    tables = Tables(Store(f"sqlite:///{db}"), engine, Timing(0.0, 0.0, deal_wait=wait))  # type: ignore[arg-type]
    await tables.store.create_schema()
    await tables.create_table(
        TableSettings("main", "Main", pb.VARIANT_SEVEN_CARD_STUD, bots=bots, verifiable=True)
    )
    return tables


def starts(engine: TicketEngine) -> list[pb.StartHandRequest]:
    return [r for r in engine.requests if isinstance(r, pb.StartHandRequest)]


async def all_hands(store: Store) -> list[Any]:
    async with store.engine.connect() as conn:
        return list((await conn.execute(sa.select(hands).order_by(hands.c.number))).all())


ENTROPY = "ab" * 32


def test_the_commitment_shows_before_the_deal_which_waits_for_each_player_s_entropy(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        engine = TicketEngine()
        tables = await verifiable_table(tmp_path / "t.db", engine, bots=("station",))
        ann = await tables.join("main", "Ann")
        bob = await tables.join("main", "Bob")
        await tables.tick()
        assert starts(engine) == [] and len(engine.tickets) == 1
        page = await tables.page("main", ann["seat"])
        assert page["hand"] is None
        commitment = engine.tickets[0].commitment
        assert page["deal"] == {
            "hand": engine.tickets[0].hand_id,
            "commitment": commitment,
            "until": page["deal"]["until"],
            "needed": True,
            "contributed": False,
        }
        body = {"hand": engine.tickets[0].hand_id, "entropy": ENTROPY}
        assert (await contribute(tables, ann["token"], body))["ok"]
        assert (await tables.page("main", ann["seat"]))["deal"]["contributed"]
        await tables.tick()
        assert starts(engine) == []  # Bob's entropy is still awaited
        await contribute(tables, bob["token"], {**body, "entropy": "cd" * 16})
        await tables.tick()
        [start] = starts(engine)
        assert start.deal_ticket == engine.tickets[0].sealed
        assert start.contributions[1] == bytes.fromhex(ENTROPY)  # seats: bot, Ann, Bob
        assert start.contributions[2] == bytes.fromhex("cd" * 16)
        assert len(start.contributions[0]) == 32  # the bot's: drawn by the table
        page = await tables.page("main", ann["seat"])
        assert page["deal"] is None
        assert page["hand"]["deal"]["commitment"] == commitment
        assert [(c["seat"], c["from"]) for c in page["hand"]["deal"]["contributions"]] == [
            (0, "table"), (1, "player"), (2, "player"),
        ]  # fmt: skip
        assert not page["hand"]["deal"]["proof"]  # the hand is not over
        [hand] = await all_hands(tables.store)
        assert hand.hand_id == engine.tickets[0].hand_id
        await tables.store.close()

    asyncio.run(run())


def test_the_wait_is_bounded_then_the_table_draws_the_missing_entropy(tmp_path: Path) -> None:
    async def run() -> None:
        engine = TicketEngine()
        tables = await verifiable_table(tmp_path / "t.db", engine, wait=0.0)
        ann = await tables.join("main", "Ann")
        await tables.join("main", "Bob")
        await tables.tick()  # the ticket, shown
        await tables.tick()  # nobody sent entropy, the wait is over: dealt
        [start] = starts(engine)
        assert len(set(start.contributions)) == 2
        page = await tables.page("main", ann["seat"])
        assert {c["from"] for c in page["hand"]["deal"]["contributions"]} == {"table"}
        await tables.store.close()

    asyncio.run(run())


async def contribute(tables: Tables, token: str | None, body: Any) -> dict[str, Any]:
    """As the route does: the token checked first (401 before any 400), then the body."""
    return await tables.contribute("main", await tables.authenticate("main", token), body)


async def refusal(tables: Tables, token: str | None, body: Any) -> tuple[int, str]:
    with pytest.raises(ApiError) as refused:
        await contribute(tables, token, body)
    return refused.value.status, refused.value.reason


def test_contributions_are_refused_with_a_reason_and_change_nothing(tmp_path: Path) -> None:
    async def run() -> None:
        engine = TicketEngine()
        tables = await verifiable_table(tmp_path / "t.db", engine)
        ann = await tables.join("main", "Ann")
        await tables.join("main", "Bob")
        token = ann["token"]
        hand = "0" * 32
        assert await refusal(tables, token, {"hand": hand, "entropy": ENTROPY}) == (409, "stale")
        await tables.tick()
        hand = engine.tickets[0].hand_id
        cases: list[tuple[str | None, Any, tuple[int, str]]] = [
            (None, {"hand": hand, "entropy": ENTROPY}, (401, "no_token")),
            ("x" * 43, {"hand": hand, "entropy": ENTROPY}, (401, "bad_token")),
            (token, [hand, ENTROPY], (400, "bad_request")),
            (token, {"hand": 7, "entropy": ENTROPY}, (400, "bad_field")),
            (token, {"hand": hand}, (400, "bad_entropy")),
            (token, {"hand": hand, "entropy": "ab" * 15}, (400, "bad_entropy")),  # 15 bytes
            (token, {"hand": hand, "entropy": "ab" * 65}, (400, "bad_entropy")),  # 65 bytes
            (token, {"hand": hand, "entropy": "AB" * 32}, (400, "bad_entropy")),
            (token, {"hand": hand, "entropy": "abc" * 11}, (400, "bad_entropy")),  # odd
            (token, {"hand": hand, "entropy": "zz" * 32}, (400, "bad_entropy")),
            (token, {"hand": "f" * 32, "entropy": ENTROPY}, (409, "stale")),
        ]
        for token_sent, body, expected in cases:
            assert await refusal(tables, token_sent, body) == expected, body
        page = await tables.page("main", ann["seat"])
        assert not page["deal"]["contributed"]
        carl = await tables.join("main", "Carl")  # seated after the ticket: not dealt in
        body = {"hand": hand, "entropy": ENTROPY}
        assert await refusal(tables, carl["token"], body) == (409, "not_in_hand")
        await contribute(tables, token, body)
        assert await refusal(tables, token, body) == (409, "already_contributed")
        # Carl's seat changes the deal: a new ticket (a new commitment), Ann's entropy gone
        await tables.tick()
        assert len(engine.tickets) == 2 and starts(engine) == []
        assert engine.tickets[1].commitment != engine.tickets[0].commitment
        assert await refusal(tables, token, body) == (409, "stale")  # the old ticket
        page = await tables.page("main", ann["seat"])
        assert page["deal"]["hand"] == engine.tickets[1].hand_id
        assert not page["deal"]["contributed"]
        await tables.store.close()

    asyncio.run(run())


def test_one_ticket_deals_one_hand_even_with_two_replicas_racing(tmp_path: Path) -> None:
    """Both replicas take the stored ticket to the engine at once, which deals the same
    hand id and commitment twice: the table stores one (the hand's id is the ticket's, its
    row the primary key), and every later hand shows a commitment of its own."""

    async def run() -> None:
        engine = TicketEngine(race=True)
        bots = ("station", "station")  # their moves take no clock
        one = await verifiable_table(tmp_path / "t.db", engine, wait=60.0, bots=bots)
        two = Tables(Store(f"sqlite:///{tmp_path / 't.db'}"), engine, Timing(0.0, 0.0, 60.0))  # type: ignore[arg-type]
        await one.tick()  # the ticket (no player to wait for)
        await asyncio.gather(one.tick(), two.tick())
        first, second = starts(engine)
        assert first.deal_ticket == second.deal_ticket  # the same ticket went twice ...
        assert len(await all_hands(one.store)) == 1  # ... one hand was dealt
        assert await deals.pending(one.store, "main") is None  # the loser dropped the ticket
        engine.race = False
        for _ in range(12):
            await one.tick()
        dealt = await all_hands(one.store)
        assert len(dealt) >= 3
        commitments = [h.deal["commitment"] for h in dealt]
        assert len(set(commitments)) == len(commitments)
        assert [h.hand_id for h in dealt] == [t.hand_id for t in engine.tickets[: len(dealt)]]
        # and the store itself refuses a second hand by a dealt hand's id
        table = await one.store.table("main")
        step = (await one.store.history_of(dealt[0].hand_id))[0]
        seated = await one.store.seats_of("main")
        row = {"hand_id": dealt[0].hand_id, "seat_map": [s.seat_no for s in seated],
               "names": [s.name for s in seated], "start_stacks": [s.stack for s in seated],
               "bots": [s.bot for s in seated], "players": [s.player for s in seated],
               "deal": dealt[0].deal}  # fmt: skip
        replay = Step("start", None, None, None, step.state, step.update, 0, None, False, None)
        with pytest.raises(sa.exc.IntegrityError):
            await one.store.begin_hand("main", table.hand_no, 0, row, replay)
        assert len(await all_hands(one.store)) == len(dealt)
        await one.store.close()
        await two.store.close()

    asyncio.run(run())


def test_a_ticket_the_engine_refuses_is_dropped_and_a_new_one_shown(tmp_path: Path) -> None:
    async def run() -> None:
        engine = TicketEngine()
        tables = await verifiable_table(tmp_path / "t.db", engine, wait=0.0)
        ann = await tables.join("main", "Ann")
        await tables.join("main", "Bob")
        await tables.tick()
        engine.expire = True
        await tables.tick()  # StartHand: DEAL_TICKET_EXPIRED (logged), the ticket dropped
        assert (await tables.page("main", ann["seat"]))["deal"] is None
        engine.expire = False
        await tables.tick()
        assert len(engine.tickets) == 2
        await tables.tick()
        [hand] = await all_hands(tables.store)
        assert hand.hand_id == engine.tickets[1].hand_id
        await tables.store.close()

    asyncio.run(run())


def test_a_new_sitting_in_a_seat_sends_its_own_entropy_not_the_leaver_s(tmp_path: Path) -> None:
    """Ann sends entropy and leaves before the deal; Carl takes her seat with the same
    stack (the same deal to the engine: the ticket stays). Ann's entropy is not Carl's:
    his page asks for his own, and the deal uses it."""

    async def run() -> None:
        engine = TicketEngine()
        tables = await verifiable_table(tmp_path / "t.db", engine)
        ann = await tables.join("main", "Ann")
        bob = await tables.join("main", "Bob")
        await tables.tick()
        body = {"hand": engine.tickets[0].hand_id, "entropy": ENTROPY}
        await contribute(tables, ann["token"], body)
        await tables.leave("main", ann["token"])
        carl = await tables.join("main", "Carl")
        assert carl["seat"] == ann["seat"]
        await tables.tick()
        assert len(engine.tickets) == 1 and starts(engine) == []
        assert not (await tables.page("main", carl["seat"]))["deal"]["contributed"]
        await contribute(tables, carl["token"], {**body, "entropy": "ef" * 20})
        await contribute(tables, bob["token"], {**body, "entropy": "cd" * 16})
        await tables.tick()
        [start] = starts(engine)
        assert start.contributions[carl["seat"]] == bytes.fromhex("ef" * 20)
        await tables.store.close()

    asyncio.run(run())


def test_an_engine_without_deal_tickets_deals_as_before(tmp_path: Path) -> None:
    """An engine older than CreateDealTicket (UNIMPLEMENTED) does not stop the table."""

    class OldEngine(TicketEngine):
        async def create_deal_ticket(self, request: pb.CreateDealTicketRequest) -> pb.DealTicket:
            raise EngineError("CreateDealTicket", "UNIMPLEMENTED", "unknown method")

    async def run() -> None:
        engine = OldEngine()
        tables = await verifiable_table(tmp_path / "t.db", engine)
        ann = await tables.join("main", "Ann")
        await tables.join("main", "Bob")
        await tables.tick()
        [start] = starts(engine)
        assert not start.deal_ticket and not start.contributions
        assert (await tables.page("main", ann["seat"]))["hand"]["deal"] is None
        await tables.store.close()

    asyncio.run(run())
