"""The game back-end: tables and seats, dealing hands (the button moves, stacks carry
over), players' moves, the action clock and the bots. Every change goes through the
database with compare-and-set, so several replicas can run this against one database and
a restarted one simply carries on from it: nothing lives only in memory. What a player
sends is checked in validation.py; the page a seat is sent is built in page.py."""

from __future__ import annotations

import dataclasses
import logging
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.bots import BOT_KINDS, make_bot, think
from studclients.client import MAX_PLAYERS as CLIENT_MAX_PLAYERS
from studclients.engine import (
    Engine,
    EngineError,
    act_request,
    checked_commitment,
    ticket_request,
)
from studclients.table import (
    deals,
    metrics,
    receipts,
    recovery,
    schedule,
    tokens,
    validation,
    views,
)
from studclients.table.away import Away, AwayPolicy
from studclients.table.errors import ApiError
from studclients.table.mixed import Rotation
from studclients.table.page import seat_page
from studclients.table.store import Step, Store, directed
from studclients.table.tournament import Level, Schedule

log = logging.getLogger("stud-table")

#: The most players each game seats (rulebook R-SEATS): the clients' one table of them.
MAX_PLAYERS: dict[int, int] = CLIENT_MAX_PLAYERS


@dataclass(frozen=True)
class TableSettings:
    table_id: str
    name: str
    variant: int
    ante: int = 5
    bring_in: int = 10
    small_bet: int = 20
    start_stack: int = 1000
    max_seats: int = 6
    clock_seconds: float = 30.0
    bots: tuple[str, ...] = ()
    #: each player's time bank (seconds), refilled every ``bank_every`` hands they play
    bank_seconds: float = 30.0
    bank_every: int = 10
    #: a mixed table: these games in turn, ``rotate_every`` hands each (mixed.py)
    games: tuple[int, ...] = ()
    rotate_every: int = 0
    #: a sit-and-go: its schedule (tournament.Schedule.from_dict's form); it starts when
    #: all ``max_seats`` seats are taken
    tournament: dict[str, Any] | None = None
    all_in_face_up: bool = False  # R-ALL-IN-FACE-UP (a sit-and-go: always)
    #: every hand dealt with a deal ticket and the players' entropy (deals.py); the
    #: command line and the operator API turn it on unless told not to
    verifiable: bool = False


@dataclass(frozen=True)
class Timing:
    """Pause after a hand (to see the showdown), a bot's thinking time, and how long a
    verifiable deal waits for the players' entropy (deals.py), in seconds."""

    pause: float = 4.0
    bot_delay: float = 0.8
    deal_wait: float = 2.0


def _stored(update: pb.HandUpdate) -> bytes:
    """The update as the database keeps it: without the sealed state (its own column) and
    without the reveal (its own column, never sent to a browser)."""
    copy = pb.HandUpdate()
    copy.CopyFrom(update)
    copy.ClearField("state")
    copy.ClearField("reveal")
    return copy.SerializeToString()


class Tables:
    """The back-end's operations; ``on_change(table_id)`` is told after every write."""

    def __init__(
        self,
        store: Store,
        engine: Engine,
        timing: Timing | None = None,
        on_change: Callable[[str], None] | None = None,
        away: AwayPolicy | None = None,
    ) -> None:
        self.store = store
        self.away = Away(store, away)
        self.engine = engine
        self.timing = timing or Timing()
        self.on_change = on_change or (lambda table_id: None)
        self.rng = random.Random()
        self.health = recovery.EngineHealth()
        #: decks for the next hands this replica deals, in order (``--test-decks``: for
        #: tests, with an engine that allows test decks); then the engine shuffles
        self.test_decks: list[list[str]] = []
        #: open hands whose state this replica has opened since the engine was last down
        self.checked: set[str] = set()

    # ---- tables and seats ---------------------------------------------------------------
    async def create_table(self, settings: TableSettings) -> bool:
        """Creates the table unless it exists. Settings that cannot be played raise
        ValueError (the rotation's and the schedule's errors name the ``field``)."""
        limit = MAX_PLAYERS.get(settings.variant, 8)
        variant, games, every = settings.variant, None, None
        if settings.games:
            rotation = Rotation.make(settings.games, settings.rotate_every)
            limit, variant = rotation.max_seats, rotation.games[0]
            games, every = list(rotation.games), rotation.every
        if not 2 <= settings.max_seats <= limit:
            raise ValueError(f"max_seats must be 2 to {limit} for this game")
        if settings.bank_seconds < 0 or settings.bank_every < 1:
            raise ValueError("the time bank must be 0 seconds or more, refilled every 1+ hands")
        stakes = Level(settings.ante, settings.bring_in, settings.small_bet, 2 * settings.small_bet)
        event = None
        if settings.tournament is not None:
            plan = Schedule.from_dict(settings.tournament, settings.max_seats)
            event = {"schedule": plan.as_dict(), "entrants": settings.max_seats}
            stakes = plan.levels[0]
        created = await self.store.create_table(
            tournament=event,
            id=settings.table_id,
            name=settings.name,
            variant=variant,
            start_stack=settings.start_stack,
            max_seats=settings.max_seats,
            clock_seconds=settings.clock_seconds,
            bank_seconds=settings.bank_seconds,
            bank_every=settings.bank_every,
            games=games,
            rotate_every=every,
            **stakes.as_dict(),
            # the tournament rule: on at every sit-and-go
            all_in_face_up=settings.all_in_face_up or event is not None,
            verifiable=settings.verifiable,
        )
        if created:
            for kind in settings.bots:
                await self.seat_bot(settings.table_id, kind)
        return created

    async def _table(self, table_id: str) -> sa.Row[Any]:
        table = await self.store.table(table_id)
        if table is None:
            raise ApiError(404, "no_table", f"there is no table {table_id!r}")
        return table

    async def seat_bot(self, table_id: str, kind: str) -> int:
        """Seats a bot of ``kind`` (its name one of its own); the seat it took."""
        if kind not in BOT_KINDS:
            raise ApiError(400, "bad_bot", f"bot must be one of {', '.join(BOT_KINDS)}")
        table = await self._table(table_id)
        await self._registering(table)
        taken = {s.name.casefold() for s in await self.store.seats_of(table_id)}
        name = next(
            label
            for n in range(1, table.max_seats + 2)
            if (label := f"{kind.title()} bot" + (f" {n}" if n > 1 else "")).casefold() not in taken
        )  # each bot a name of its own: "Station bot", "Station bot 2", ...
        seat = await self.store.take_seat(table_id, name, None, kind, table.start_stack)
        if seat is None:
            raise ApiError(409, "table_full", "every seat is taken")
        self.on_change(table_id)
        return seat

    async def join(self, table_id: str, name: Any) -> dict[str, Any]:
        """Sits a new player; the answer holds the seat token, given out only here, and
        the sitting's history token (receipts.py), which outlasts the seat."""
        name = validation.player_name(name)
        table = await self._table(table_id)
        await self._registering(table)
        if any(s.name.casefold() == name.casefold() for s in await self.store.seats_of(table_id)):
            raise ApiError(409, "name_taken", "someone at this table has that name already")
        token, resume, player = tokens.new_token(), tokens.new_token(), secrets.token_hex(16)
        seat = await self.store.take_seat(
            table_id,
            name,
            tokens.token_hash(token),
            None,
            table.start_stack,
            time_bank=table.bank_seconds,
            resume_hash=tokens.token_hash(resume),
            player=player,
        )
        if seat is None:
            raise ApiError(409, "table_full", "every seat is taken")
        history = await receipts.issue(self.store, table_id, player)
        self.on_change(table_id)
        # "resume" goes into an HttpOnly cookie (web.py), never into the JSON answer
        return {
            "table": table_id,
            "seat": seat,
            "token": token,
            "resume": resume,
            "history_token": history,
        }

    async def back(self, table_id: str, token: str | None) -> dict[str, Any]:
        """The player is back from being away: dealt in again from the next hand."""
        seat = await self.authenticate(table_id, token)
        was_away = await self.away.back(table_id, seat)
        if was_away:
            self.on_change(table_id)
        return {"back": True, "was_away": was_away}

    async def _registering(self, table: sa.Row[Any]) -> None:
        """409 ``tournament_started`` once a sit-and-go has begun: nobody sits down then;
        409 ``tournament_table`` at a multi-table tournament's table (its director seats)."""
        if directed(table):
            raise ApiError(409, "tournament_table", "a tournament's table: register for it")
        event = await self.store.tournament(table.id)
        if event is not None and event.status != "registering":
            raise ApiError(409, "tournament_started", "the tournament has begun: no new seats")

    async def authenticate(self, table_id: str, token: str | None) -> int:
        """The seat that ``token`` holds at the table (401 when none does)."""
        await self._table(table_id)
        if not token:
            raise ApiError(401, "no_token", "a seat token is required (Authorization: Bearer)")
        seats = await self.store.seats_of(table_id)
        seat = tokens.find_seat(token, [(s.seat_no, s.token_hash) for s in seats])
        if seat is None:
            raise ApiError(401, "bad_token", "the seat token is not valid at this table")
        return seat

    async def _open_hand(self, table: sa.Row[Any]) -> sa.Row[Any] | None:
        if table.current_hand is None:
            return None
        hand = await self.store.hand(table.current_hand)
        return None if hand is None or hand.over else hand

    async def leave(self, table_id: str, token: str | None) -> dict[str, Any]:
        """Leaves now, or when the hand in progress ends if the seat is dealt in; 409
        ``in_tournament`` once a sit-and-go has begun (the store decides, atomically, so a
        leave racing the deal that starts one either unregisters or is refused)."""
        seat = await self.authenticate(table_id, token)
        outcome = await self.store.leave(table_id, seat)
        if outcome == "in_tournament":
            raise ApiError(409, "in_tournament", "a tournament's players stay until they bust")
        if outcome == "no_seat":
            raise ApiError(401, "bad_token", "the seat token is not valid at this table")
        hand = await self._open_hand(await self._table(table_id))
        if hand is not None and hand.to_act is not None and hand.seat_map[hand.to_act] == seat:
            await self.away.act_now(hand)  # the clock folds (or checks) for them at once
        self.on_change(table_id)
        return {"left": outcome == "left", "after_hand": outcome == "after_hand"}

    async def _stand_up(self, seat: sa.Row[Any]) -> None:
        """A player away for longer than the away limit gives up the seat (at the end of
        the hand in progress if dealt in; never at a tournament that is running)."""
        if seat.leaving:
            return
        if await self.store.leave(seat.table_id, seat.seat_no) in ("left", "after_hand"):
            log.info("table %s: seat %d stood up after being away", seat.table_id, seat.seat_no)
            self.on_change(seat.table_id)

    async def add_bot(self, table_id: str, token: str | None, kind: Any) -> dict[str, Any]:
        """A seated player adds a bot (the token first: 401 before any 400)."""
        await self.authenticate(table_id, token)
        return {"seat": await self.seat_bot(table_id, str(kind))}

    # ---- a player's move ----------------------------------------------------------------
    async def act(self, table_id: str, token: str | None, body: Any) -> dict[str, Any]:
        """Applies the move of the token's seat; refused moves change nothing. The token
        is checked first: a request without a seat learns nothing of the body's shape."""
        return await self.act_as(table_id, await self.authenticate(table_id, token), body)

    async def act_as(self, table_id: str, seat: int, body: Any) -> dict[str, Any]:
        """Applies the move of ``seat``, whose token was checked (``authenticate``)."""
        move = validation.move(body)
        if move.seat is not None and move.seat != seat:
            raise ApiError(403, "wrong_seat", f"this token holds seat {seat}, not seat {move.seat}")
        hand = await self._open_hand(await self._table(table_id))
        if hand is None:
            raise ApiError(409, "no_hand", "no hand is in progress")
        # a seq alone could match the next hand's (the clock acted, a new hand was dealt)
        if hand.hand_id != move.hand_id:
            raise ApiError(409, "stale", "that hand is over, another is in progress: reload")
        if seat not in hand.seat_map:
            raise ApiError(409, "not_in_hand", "this seat is not dealt in this hand")
        if hand.seq != move.seq:
            raise ApiError(409, "stale", f"the hand is at move {hand.seq}, not {move.seq}: reload")
        engine_seat = hand.seat_map.index(seat)
        if hand.to_act != engine_seat:
            raise ApiError(409, "not_your_turn", "it is not this seat's turn")
        applied = await self._apply(hand, "player", move.action, move.to)
        if not applied:
            raise ApiError(409, "stale", "the hand moved on before this move (clock or retry)")
        await self.away.moved(hand, seat)
        return {"ok": True, "seq": move.seq + 1}

    async def _apply(self, hand: sa.Row[Any], source: str, action: int, to: int | None) -> bool:
        """Act for the seat to act, from the stored state, and compare-and-set the result.
        False when another writer moved the hand first (the engine's answer is dropped)."""
        request = act_request(
            hand.state, hand.seq, hand.to_act, pb.ActionType.ValueType(action), to
        )
        try:
            update = await self.health.call(lambda: self.engine.act(request))
        except EngineError as error:
            raise await self._refusal(hand, error) from None
        table = await self._table(hand.table_id)
        away = await self.away.away_seats(hand.table_id)
        step = self._step(update, hand.bots, table.clock_seconds, source, hand.to_act, action, to)
        if step.to_act is not None and hand.seat_map[step.to_act] in away:
            step = dataclasses.replace(step, deadline=time.time())  # away: the clock acts now
        final = list(update.result.stacks) if update.over else None
        won = await self.store.advance(hand, step, final, self.timing.pause)
        if won:
            metrics.MOVES.labels(source).inc()
            self.on_change(hand.table_id)
        else:
            metrics.CAS_CONFLICTS.labels("move").inc()
        return won

    async def _refusal(self, hand: sa.Row[Any], error: EngineError) -> ApiError:
        """The answer to a move the engine refused or could not take. A state no engine
        can open calls the hand off; a down engine is told in plain words (its own text,
        which may name internal addresses, goes to the log only)."""
        if error.reason == recovery.STATE_INVALID:
            await self.void(hand)
            return ApiError(409, "hand_void", recovery.VOID_MESSAGE)
        if error.code == "FAILED_PRECONDITION":
            return ApiError(409, "illegal_action", error.message)
        if error.code == "ABORTED":
            return ApiError(409, "stale", error.message)
        if error.code == "INVALID_ARGUMENT":
            return ApiError(400, "bad_action", error.message)
        log.warning("hand %s: engine call failed: %s", hand.hand_id, error)
        return ApiError(503, "engine_unavailable", recovery.DOWN_MESSAGE)

    def _step(
        self,
        update: pb.HandUpdate,
        bots: Sequence[str | None],
        clock: float,
        source: str,
        seat: int | None,
        action: int | None,
        to: int | None,
    ) -> Step:
        over = bool(update.over)
        to_act = update.to_act if update.HasField("to_act") and not over else None
        deadline = None
        if to_act is not None:
            wait = self.timing.bot_delay if bots[to_act] else clock
            deadline = time.time() + wait
        return Step(
            source=source,
            seat=seat,
            action=action,
            to=to,
            state=update.state,
            update=_stored(update),
            to_act=to_act,
            deadline=deadline,
            over=over,
            reveal=update.reveal.SerializeToString() if over else None,
        )

    # ---- when the engine fails it (recovery.py) ------------------------------------------
    async def void(self, hand: sa.Row[Any]) -> bool:
        """Calls off ``hand`` (compare-and-set like any step): stacks back to its start, which
        are the stacks the last settled hand left; False if another writer won."""
        won = await self.store.advance(
            hand, recovery.void_step(hand), list(hand.start_stacks), self.timing.pause
        )
        if won:
            log.warning(
                "hand %s at table %s called off: no engine could open its state",
                hand.hand_id,
                hand.table_id,
            )
            metrics.HANDS_VOIDED.inc()
            self.on_change(hand.table_id)
        return won

    async def _check_open_hands(self) -> None:
        """Opens each hand in progress once (GetView) after start and after the engine was
        down (it may have come back with other keys); one that does not open is called off
        at once rather than when its clock runs out."""
        if self.health.down:
            self.checked.clear()
            return
        open_hands = await self.store.open_hands()
        self.checked &= {hand.hand_id for hand in open_hands}  # a finished hand is forgotten
        for hand in open_hands:
            if hand.hand_id in self.checked:
                continue
            request = pb.GetViewRequest(state=hand.state)
            try:
                await self.health.call(lambda: self.engine.get_view(request))  # noqa: B023
            except EngineError as error:
                if error.reason == recovery.STATE_INVALID:
                    await self.void(hand)
                continue
            self.checked.add(hand.hand_id)

    # ---- the driver: deals, clocks, bots ------------------------------------------------
    async def tick(self) -> bool:
        """One round of the background work; any replica may run it at any time. True
        when it dealt or acted (more may be due at once: bots with no thinking time)."""
        await self.health.probe(self.engine)
        await self._check_open_hands()
        now = time.time()
        await self.away.hurry(await self.store.open_hands(), now)
        for seat in await self.away.idle_too_long(now):
            await self._stand_up(seat)
        worked = False
        for table in await self.store.tables_ready(now):
            try:
                worked = await self.deal(table) or worked
            except EngineError as error:
                log.warning("deal failed at table %s: %s", table.id, error)
        due = await self.store.due_hands(now)
        worked = worked or bool(due)
        async for hand in self._still_due(due):
            try:
                await self._due(hand)
            except (EngineError, ApiError) as error:
                log.warning("hand %s: %s", hand.hand_id, error)
        return worked

    async def _still_due(self, due: Sequence[sa.Row[Any]]) -> AsyncIterator[sa.Row[Any]]:
        """The hands of ``due`` in a random order, each read again just before its turn:
        another replica works through the same hands meanwhile, and a hand it has moved
        is acted on from its new step (if that is due too), not from the old one, which
        would cost an engine call and a write only to lose the compare-and-set."""
        order = list(due)
        self.rng.shuffle(order)
        for stale in order:
            hand = await self.store.hand(stale.hand_id)
            if hand is None or hand.over or hand.deadline is None:
                continue
            if hand.deadline <= time.time():
                yield hand

    async def _due(self, hand: sa.Row[Any]) -> None:
        kind = hand.bots[hand.to_act]
        if kind is None:
            banked = await self.away.start_bank(hand)
            if banked == "bank":
                self.on_change(hand.table_id)
            if banked != "timeout":
                return
            seat_no = hand.seat_map[hand.to_act]
            if await self._apply(hand, "clock", pb.ACTION_TYPE_TIMEOUT, None):
                await self.away.timed_out(hand, seat_no)
            return
        update = views.parse_update(hand.update)
        bot = make_bot(kind, self.rng)
        view = update.seats[hand.to_act]
        decision = await think(bot, view, hand.to_act, update.legal_actions, self.engine)
        await self._apply(hand, "bot", decision.action, decision.to)

    async def deal(self, table: sa.Row[Any]) -> bool:
        """Deals the next hand if two or more seated players have chips; the button moves
        to the next of them after the last button. False when there is nothing to deal or
        another replica dealt first."""
        seated = [s for s in await self.store.seats_of(table.id) if s.stack > 0 and not s.leaving]
        event = await self.store.tournament(table.id)
        if event is None:  # away players sit out (a tournament deals them in: away.py)
            seated = [s for s in seated if s.away_since is None]
        plan = schedule.plan_hand(table, event, seated, time.time())
        if plan is None:
            return False
        after = [i for i, s in enumerate(seated) if s.seat_no > table.button]
        button = after[0] if after else 0
        ticketed = table.verifiable and not self.test_decks  # a test deck takes no ticket
        request = pb.StartHandRequest(
            variant=pb.Variant.ValueType(plan.variant),
            table=pb.Table(
                ante=plan.stakes.ante,
                bring_in=plan.stakes.bring_in,
                small_bet=plan.stakes.small_bet,
                big_bet=plan.stakes.big_bet,
                all_in_face_up=table.all_in_face_up,
            ),
            players=[pb.Player(id=f"seat{s.seat_no}", stack=s.stack) for s in seated],
            button=button,
            test_deck=self.test_decks.pop(0) if self.test_decks else [],
        )
        try:
            ready = await self._ticketed(table, request, seated) if ticketed else None
        except EngineError as error:
            if error.code != "UNIMPLEMENTED":
                raise
            log.warning("the engine deals no tickets (%s): dealing without", error.message)
            ticketed, ready = False, None
        if ticketed and ready is None:
            return False  # the ticket is shown and the players' entropy awaited
        if ready is not None:
            request = ready.request
        try:
            update = await self.health.call(lambda: self.engine.start_hand(request))
        except EngineError as error:
            if ready is not None and error.reason in deals.TICKET_REFUSALS:
                await deals.drop_ticket(self.store, table.id, ready.ticket.hand_id)
            raise
        if ready is not None:
            checked_commitment(ready.ticket, update)  # the hand shows the ticket's
        bots = [s.bot for s in seated]
        row = {
            "hand_id": update.hand_id,
            "seat_map": [s.seat_no for s in seated],
            "names": [s.name for s in seated],
            "start_stacks": [s.stack for s in seated],
            "bots": bots,
            "players": [s.player for s in seated],
            "deal": ready.deal if ready is not None else None,
        }
        step = self._step(update, bots, table.clock_seconds, "start", None, None, None)
        dealt = await self.store.begin_hand(
            table.id,
            table.hand_no,
            seated[button].seat_no,
            row,
            step,
            plan.table_values,
            plan.tournament_values,
            list(update.result.stacks) if update.over else None,
            self.timing.pause,
        )
        if dealt:
            await self.away.dealt(table, [s.seat_no for s in seated])
            metrics.HANDS_DEALT.labels(views.game_name(plan.variant)).inc()
            self.on_change(table.id)
        else:
            metrics.CAS_CONFLICTS.labels("deal").inc()
            if ready is not None:  # a ticket is not dealt with twice (docs/security.md)
                await deals.drop_ticket(self.store, table.id, ready.ticket.hand_id)
        return dealt

    async def _ticketed(
        self, table: sa.Row[Any], request: pb.StartHandRequest, seated: Sequence[sa.Row[Any]]
    ) -> deals.Ready | None:
        """The deal with the table's ticket (deals.py), or None while it waits: a new ticket
        was just stored (and so shown), or players' entropy is still awaited."""
        now = time.time()
        ticket = await deals.pending(self.store, table.id)
        if ticket is not None and deals.usable(ticket, table.hand_no, request):
            return await deals.ready(self.store, ticket, request, seated, now)
        fresh = await self.health.call(
            lambda: self.engine.create_deal_ticket(ticket_request(request))
        )
        replacing = ticket.hand_id if ticket is not None else None
        seat_map = [s.seat_no for s in seated]
        wait_until = now + self.timing.deal_wait
        if await deals.store_ticket(
            self.store, table.id, table.hand_no, fresh, request, seat_map, wait_until, replacing
        ):
            self.on_change(table.id)
        return None

    async def contribute(self, table_id: str, seat: int, body: Any) -> dict[str, Any]:
        """The entropy of ``seat`` (its token checked: ``authenticate``) for the next deal."""
        answer = await deals.contribute(self.store, table_id, seat, body)
        self.on_change(table_id)
        return answer

    # ---- what a seat sees ---------------------------------------------------------------
    async def page(self, table_id: str, seat: int | None) -> dict[str, Any]:
        """The whole page state for one seat (or a spectator): only that seat's view."""
        table = await self._table(table_id)
        return await seat_page(self.store, table, seat, engine_down=self.health.down)
