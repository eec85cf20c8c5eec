"""The game back-end: tables and seats, dealing hands (the button moves, stacks carry
over), players' moves, the action clock and the bots. Every change goes through the
database with compare-and-set, so several replicas can run this against one database and
a restarted one simply carries on from it: nothing lives only in memory."""

from __future__ import annotations

import dataclasses
import logging
import random
import re
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.bots import BOT_KINDS, make_bot, think
from studclients.client import MAX_PLAYERS as CLIENT_MAX_PLAYERS
from studclients.engine import Engine, EngineError, act_request
from studclients.table import metrics, receipts, recovery, schedule, tokens, views
from studclients.table.away import Away, AwayPolicy
from studclients.table.mixed import Rotation
from studclients.table.store import Step, Store
from studclients.table.tournament import Level, Schedule

log = logging.getLogger("stud-table")

#: The most players each game seats (rulebook R-SEATS): the clients' one table of them.
MAX_PLAYERS: dict[int, int] = CLIENT_MAX_PLAYERS
NAME = re.compile(r"^[\w][\w .'-]{0,31}$")
#: The range of a move's ``to`` (the engine's ``int64``, never negative): JSON numbers past
#: it are refused here, never passed on (``seq`` is only compared, never sent).
INT_FIELD_MAX = 2**63 - 1


class ApiError(Exception):
    """A refused request: HTTP ``status``, a machine-readable ``reason`` and a message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"error": {"reason": self.reason, "message": self.message}}


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


@dataclass(frozen=True)
class Timing:
    """Pause after a hand (to see the showdown) and a bot's thinking time, in seconds."""

    pause: float = 4.0
    bot_delay: float = 0.8


def _stored(update: pb.HandUpdate) -> bytes:
    """The update as the database keeps it: without the sealed state (its own column) and
    without the reveal (its own column, never sent to a browser)."""
    copy = pb.HandUpdate()
    copy.CopyFrom(update)
    copy.ClearField("state")
    copy.ClearField("reveal")
    return copy.SerializeToString()


def parse_update(data: bytes) -> pb.HandUpdate:
    update = pb.HandUpdate()
    update.ParseFromString(data)
    return update


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
        )
        if created:
            for kind in settings.bots:
                await self._seat_bot(settings.table_id, kind)
        return created

    async def _table(self, table_id: str) -> sa.Row[Any]:
        table = await self.store.table(table_id)
        if table is None:
            raise ApiError(404, "no_table", f"there is no table {table_id!r}")
        return table

    async def _seat_bot(self, table_id: str, kind: str) -> int:
        if kind not in BOT_KINDS:
            raise ApiError(400, "bad_bot", f"bot must be one of {', '.join(BOT_KINDS)}")
        table = await self._table(table_id)
        await self._registering(table_id)
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
        if not isinstance(name, str) or not NAME.match(name.strip()):
            raise ApiError(400, "bad_name", "name: 1 to 32 letters, digits, spaces or .'-")
        table = await self._table(table_id)
        await self._registering(table_id)
        if any(
            s.name.casefold() == name.strip().casefold()
            for s in await self.store.seats_of(table_id)
        ):
            raise ApiError(409, "name_taken", "someone at this table has that name already")
        token, resume, player = tokens.new_token(), tokens.new_token(), secrets.token_hex(16)
        seat = await self.store.take_seat(
            table_id,
            name.strip(),
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

    async def _registering(self, table_id: str) -> None:
        """409 ``tournament_started`` once a sit-and-go has begun: nobody sits down then."""
        event = await self.store.tournament(table_id)
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
        await self.authenticate(table_id, token)
        return {"seat": await self._seat_bot(table_id, str(kind))}

    # ---- a player's move ----------------------------------------------------------------
    async def act(self, table_id: str, token: str | None, body: Any) -> dict[str, Any]:
        """Applies the move of the token's seat; refused moves change nothing."""
        if not isinstance(body, dict):
            raise ApiError(400, "bad_request", "the body must be a JSON object")
        action = views.ACTIONS.get(body.get("action"))  # type: ignore[arg-type]
        if action is None:
            names = ", ".join(views.ACTIONS)
            raise ApiError(400, "bad_action", f"action must be one of {names}")
        seq, to, claimed = body.get("seq"), body.get("to"), body.get("seat")
        for field, value, required in (
            ("seq", seq, True),
            ("to", to, False),
            ("seat", claimed, False),
        ):
            if (value is None and required) or (value is not None and type(value) is not int):
                raise ApiError(400, "bad_field", f"{field} must be an integer")
            if field == "to" and value is not None and not 0 <= value <= INT_FIELD_MAX:
                raise ApiError(400, "bad_field", f"{field} must be 0 to {INT_FIELD_MAX}")
        hand_id = body.get("hand")
        if not isinstance(hand_id, str):
            raise ApiError(400, "bad_field", "hand must be the id of the hand (a string)")
        seat = await self.authenticate(table_id, token)
        if claimed is not None and claimed != seat:
            raise ApiError(403, "wrong_seat", f"this token holds seat {seat}, not seat {claimed}")
        hand = await self._open_hand(await self._table(table_id))
        if hand is None:
            raise ApiError(409, "no_hand", "no hand is in progress")
        # a seq alone could match the next hand's (the clock acted, a new hand was dealt)
        if hand.hand_id != hand_id:
            raise ApiError(409, "stale", "that hand is over, another is in progress: reload")
        if seat not in hand.seat_map:
            raise ApiError(409, "not_in_hand", "this seat is not dealt in this hand")
        if hand.seq != seq:
            raise ApiError(409, "stale", f"the hand is at move {hand.seq}, not {seq}: reload")
        engine_seat = hand.seat_map.index(seat)
        if hand.to_act != engine_seat:
            raise ApiError(409, "not_your_turn", "it is not this seat's turn")
        applied = await self._apply(hand, "player", action, to)
        if not applied:
            raise ApiError(409, "stale", "the hand moved on before this move (clock or retry)")
        await self.away.moved(hand, seat)
        return {"ok": True, "seq": seq + 1}

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
            await recovery.void(self, hand)
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

    # ---- the driver: deals, clocks, bots ------------------------------------------------
    async def tick(self) -> None:
        """One round of the background work; any replica may run it at any time."""
        await self.health.probe(self.engine)
        await recovery.check_open_hands(self)
        now = time.time()
        await self.away.hurry(await self.store.open_hands(), now)
        for seat in await self.away.idle_too_long(now):
            await self._stand_up(seat)
        for table in await self.store.tables_ready(now):
            try:
                await self.deal(table)
            except EngineError as error:
                log.warning("deal failed at table %s: %s", table.id, error)
        for hand in await self.store.due_hands(now):
            try:
                await self._due(hand)
            except (EngineError, ApiError) as error:
                log.warning("hand %s: %s", hand.hand_id, error)

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
        update = parse_update(hand.update)
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
        update = await self.health.call(lambda: self.engine.start_hand(request))
        bots = [s.bot for s in seated]
        row = {
            "hand_id": update.hand_id,
            "seat_map": [s.seat_no for s in seated],
            "names": [s.name for s in seated],
            "start_stacks": [s.stack for s in seated],
            "bots": bots,
            "players": [s.player for s in seated],
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
        return dealt

    # ---- what a seat sees ---------------------------------------------------------------
    async def page(self, table_id: str, seat: int | None) -> dict[str, Any]:
        """The whole page state for one seat (or a spectator): only that seat's view."""
        table = await self._table(table_id)
        seated = {s.seat_no: s for s in await self.store.seats_of(table_id)}
        hand = await self.store.hand(table.current_hand) if table.current_hand else None
        hand_part: dict[str, Any] | None = None
        per_seat: dict[int, dict[str, Any]] = {}
        legal: list[dict[str, Any]] = []
        narration: list[str] = []
        if hand is not None:
            engine_seat = hand.seat_map.index(seat) if seat in hand.seat_map else None
            viewer = seated.get(seat) if seat is not None else None
            # the seat's new occupant sees the last hand of the one before as a spectator
            if (
                engine_seat is not None
                and viewer is not None
                and viewer.player is not None
                and not await self.store.played(viewer.player, hand.hand_id)
            ):
                engine_seat = None
            update = parse_update(hand.update)
            hand_part, per_seat = views.hand_view(update, hand, engine_seat, hand.names)
            hand_part["voided"] = False
            hand_part["on_time_bank"] = hand.bank_from is not None and not hand.over
            if engine_seat is not None:
                legal = views.legal_moves(update, engine_seat)
            for step in await self.store.history_of(hand.hand_id):
                if step.source == "void":
                    hand_part["voided"] = True
                    narration.append(recovery.VOID_MESSAGE)
                    continue
                past = parse_update(step.update)
                seen = past.seats[engine_seat] if engine_seat is not None else past.spectator
                narration += views.narrate(seen.events, hand.names, engine_seat)
        seats = []
        for number in range(table.max_seats):
            row = seated.get(number)
            name = row.name if row else None
            if row is None and hand is not None and number in hand.seat_map:
                name = hand.names[hand.seat_map.index(number)]  # left, still in this hand
            entry: dict[str, Any] = {
                "seat": number,
                "name": name,
                "empty": row is None and number not in per_seat,
                "bot": row.bot if row else None,
                "stack": row.stack if row else 0,
                "leaving": bool(row.leaving) if row else False,
                "away": row is not None and row.away_since is not None,
                "time_bank": round(row.time_bank) if row and row.bot is None else None,
                "you": number == seat,
                "in_hand": False,
            }
            if hand is not None and number in per_seat:
                entry.update(per_seat[number])
                if hand.over and row is not None:
                    entry["stack"] = row.stack
            seats.append(entry)
        you = seated.get(seat) if seat is not None else None
        event = await self.store.tournament(table_id)
        return {
            "type": "table",
            "now": int(time.time() * 1000),
            "table": {
                "id": table.id,
                "name": table.name,
                "game": views.game_name(table.variant),
                "stakes": {
                    "ante": table.ante,
                    "bring_in": table.bring_in,
                    "small_bet": table.small_bet,
                    "big_bet": table.big_bet,
                },
                "clock_seconds": table.clock_seconds,
                "version": table.version,
                "rotation": schedule.game_part(table, hand.number if hand else None),
            },
            "tournament": None
            if event is None
            else schedule.tournament_part(table, event, seated, time.time()),
            "you": None
            if you is None
            else {
                "seat": you.seat_no,
                "name": you.name,
                "away": you.away_since is not None,
                "time_bank": round(you.time_bank),
            },
            "engine": {
                "up": not self.health.down,
                "message": recovery.DOWN_MESSAGE if self.health.down else None,
            },
            "seats": seats,
            "hand": hand_part,
            "legal": legal,
            "narration": narration,
            "next_hand_at": int(table.next_hand_at * 1000)
            if hand_part and hand_part["over"]
            else None,
        }
