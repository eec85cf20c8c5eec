"""The API's handlers as plain functions of request messages (no gRPC here but status
codes): each request parsed into a typed input (``requests``), the rules engine's move,
the views built, the next state sealed. Tests call them directly; ``calls.ApiCalls`` runs
them for both ports.

Given a tracer (``server.tracing``: tracing is on), each costly step of a call whose span
is recording (sampled) is a child span of it: ``open state``, ``rules``, ``seal``,
``views``; without a tracer, no step pays for it.

Refusals raise ``ApiError`` (see ``errors.py``): a malformed request is refused once, with
every bad field found. Log context (``hand_id``, ``seq``, ``seat``, ``action``) is bound
for the call's log line (``logfields``); no hidden card, deck, salt or key is ever bound
or logged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import structlog
from opentelemetry.trace import Tracer, get_current_span
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine import cards as cardlib
from studengine import equity as eq
from studengine.api import logfields, updates
from studengine.api._gen.stud.v1 import stud_engine_keys as keys
from studengine.api.conversions import AUDIENCE_TO_PB, legal_to_pb, result_to_pb
from studengine.api.errors import (
    ApiError,
    bad_request,
    bad_state,
    deal_ticket_expired,
    deal_ticket_invalid,
    deal_ticket_mismatch,
    hand_not_over,
    illegal_action,
    no_time_left,
    stale_seq,
    work_cancelled,
)
from studengine.api.observer import Observer, Unobserved
from studengine.api.requests import (
    EquityQuestion,
    Move,
    NewHand,
    parse_act,
    parse_deal_ticket_request,
    parse_equity,
    parse_evaluate,
    parse_get_view,
    parse_history,
    parse_start_hand,
    refused_hand,
)
from studengine.api.updates import deal_commitment, deck_commitment
from studengine.api.views import build_view
from studengine.deal import deal_deck
from studengine.history.phh import HandMeta, HistoryError, render
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import Event, IllegalAction, InvalidHand
from studengine.state import wire
from studengine.state.codec import HAND_ID_BYTES, SALT_BYTES, DealEntropy, HandRecord
from studengine.state.sealing import KeyRing, Sealer
from studengine.state.tickets import (
    DEFAULT_TICKET_SECONDS,
    DealTicketInvalid,
    new_ticket,
    open_ticket,
    seal_ticket,
    settings_digest,
)

DEFAULT_EQUITY_CPU_SECONDS = 2.0  # CPU time one Equity call may use (about 4x the largest)
MAX_EQUITY_SECONDS = 10.0  # the most one Equity call may work, whatever its deadline
EQUITY_MARGIN_SECONDS = 0.05  # left of the caller's deadline to send the answer
_log = structlog.get_logger("studengine.api")


def unix_ms() -> int:
    """The wall clock in Unix milliseconds (deal tickets' expiry)."""
    return time.time_ns() // 1_000_000


class Handlers:
    """The API's operations for one server: its key ring and its test-deck flag."""

    def __init__(
        self,
        keyring: KeyRing,
        allow_test_decks: bool,
        shuffle: Callable[[], list[int]] = cardlib.shuffled_deck,
        observer: Observer | None = None,
        equity_cpu_seconds: float = DEFAULT_EQUITY_CPU_SECONDS,
        deal_ticket_seconds: float = DEFAULT_TICKET_SECONDS,
        clock_ms: Callable[[], int] = unix_ms,
        tracer: Tracer | None = None,
    ) -> None:
        self.sealer = Sealer(keyring, allow_test_decks)
        self.ticket_lifetime_ms = round(deal_ticket_seconds * 1000)
        self._clock_ms = clock_ms
        self.equity_cpu_seconds = equity_cpu_seconds
        self.observer: Observer = observer or Unobserved()
        self.allow_test_decks = allow_test_decks
        self._shuffle = shuffle
        self._tracer = tracer

    def _open(self, state: bytes, context: dict[str, object]) -> HandRecord:
        """The opened state (SealedStateInvalid if it does not open); binds its hand id
        and seq (and ``context``) for the log line."""
        if self._tracer is None or not get_current_span().is_recording():
            record = self.sealer.open(state)
        else:
            with self._tracer.start_as_current_span("open state"):
                record = self.sealer.open(state)
        logfields.bind_fields({"hand_id": record.hand_id.hex(), "seq": record.seq, **context})
        return record

    def start_hand(self, request: pb.StartHandRequest) -> pb.StartHandResponse:
        return pb.StartHandResponse.FromString(self.start_hand_serialized(request))

    def start_hand_serialized(self, request: pb.StartHandRequest) -> bytes:
        """The StartHandResponse, serialized (what the gRPC port sends as it is)."""
        new = parse_start_hand(request, self.allow_test_decks)
        deal: DealEntropy | None = None
        if new.deal_ticket:
            hand_id, deck, deal = self._ticket_deal(new)
        else:
            hand_id = os.urandom(HAND_ID_BYTES)
            deck = self._shuffle() if new.test_deck is None else new.test_deck
        hand, events = self._deal(new, deck)
        record = HandRecord(
            hand_id=hand_id,
            seq=0,
            test_deck=new.test_deck is not None,
            salt=os.urandom(SALT_BYTES),
            player_ids=new.player_ids,
            hand=hand,
            deal=deal,
        )
        logfields.bind(hand_id=record.hand_id.hex(), seq=0)
        self.observer.hand_started(new.variant.value)
        return wire.record(keys.START_HAND_RESPONSE_HAND, self._update(record, events))

    def _ticket_deal(self, new: NewHand) -> tuple[bytes, list[int], DealEntropy]:
        """A verifiable deal's hand id, deck and entropy, from its ticket (opened, not
        expired, made for these settings) and the players' contributions."""
        try:
            ticket = open_ticket(self.sealer.keyring, new.deal_ticket)
        except DealTicketInvalid:
            raise deal_ticket_invalid() from None
        bound = settings_digest(new.variant, new.table, new.player_ids, new.stacks, new.button)
        if ticket.settings_digest != bound:
            raise deal_ticket_mismatch()
        if self._clock_ms() >= ticket.expires_at_ms:
            raise deal_ticket_expired(ticket.expires_at_ms)
        deck = deal_deck(ticket.server_seed, ticket.hand_id, new.contributions)
        return ticket.hand_id, deck, DealEntropy(ticket.server_seed, new.contributions)

    def create_deal_ticket(
        self, request: pb.CreateDealTicketRequest
    ) -> pb.CreateDealTicketResponse:
        """A deal ticket for one hand of the request's settings: a fresh seed's commitment
        in the clear, the seed sealed (``state.tickets``)."""
        settings = parse_deal_ticket_request(request)
        ticket = new_ticket(settings, self._clock_ms(), self.ticket_lifetime_ms)
        logfields.bind(hand_id=ticket.hand_id.hex())
        sealed = seal_ticket(self.sealer.keyring, ticket)
        return pb.CreateDealTicketResponse(
            ticket=pb.DealTicket(
                sealed=sealed,
                hand_id=ticket.hand_id.hex(),
                commitment=ticket.commitment.hex(),
                expires_at_ms=ticket.expires_at_ms,
            )
        )

    def act(self, request: pb.ActRequest) -> pb.ActResponse:
        return pb.ActResponse.FromString(self.act_serialized(request))

    def act_serialized(self, request: pb.ActRequest) -> bytes:
        """The ActResponse, serialized (what the gRPC port sends as it is)."""
        move = parse_act(request, self._open)
        record = move.record
        hand = record.hand
        if move.expected_seq is not None and move.expected_seq != record.seq:
            raise stale_seq(move.expected_seq, record.seq)
        events, label = self._play(move)
        variant: str = hand.variant._value_
        self.observer.action_taken(variant, label)
        record.seq += 1
        logfields.bind(seq=record.seq)
        if hand.over:
            self.observer.hand_finished(variant)
            if hand.result is not None and hand.result.rake:
                self.observer.rake_taken(variant, hand.result.rake)
        return wire.record(keys.ACT_RESPONSE_HAND, self._update(record, events))

    def _deal(self, new: NewHand, deck: list[int]) -> tuple[Hand, Sequence[Event]]:
        """The rules engine's new hand and its first events (the step ``rules``)."""
        if self._tracer is not None and get_current_span().is_recording():
            with self._tracer.start_as_current_span("rules"):
                return self._start(new, deck)
        return self._start(new, deck)

    def _start(self, new: NewHand, deck: list[int]) -> tuple[Hand, Sequence[Event]]:
        try:
            return start_hand(new.variant, new.table, new.stacks, new.button, deck)
        except InvalidHand as error:  # the checks found none: the engine has its say
            raise refused_hand(error) from None

    def _play(self, move: Move) -> tuple[Sequence[Event], str]:
        """The rules engine's move (the step ``rules``): its events and the action's label."""
        if self._tracer is not None and get_current_span().is_recording():
            with self._tracer.start_as_current_span("rules"):
                return self._move(move)
        return self._move(move)

    def _move(self, move: Move) -> tuple[Sequence[Event], str]:
        hand = move.record.hand
        try:
            # the labels are the members' ``_value_``: ``.value`` is a Python-level
            # property in enum, some 1.4k instructions a read
            if move.action is None:
                events = hand.timeout(move.seat)
                kind = getattr(events[0], "type", None)  # what the clock chose
                label: str = kind._value_ if kind is not None else "TIMEOUT"
            else:
                events = hand.act(move.seat, move.action, move.to)
                label = move.action._value_
        except IllegalAction as error:
            raise illegal_action(error, move.record.seq) from None
        return events, label

    def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        record, viewer = parse_get_view(request, self._open)
        hand = record.hand
        logfields.bind(seat=viewer)
        response = pb.GetViewResponse(
            hand_id=record.hand_id.hex(),
            seq=record.seq,
            view=build_view(hand, record.player_ids, (), viewer),
            legal_actions=legal_to_pb(hand.legal_actions()),
            deck_commitment=deck_commitment(record),
            over=hand.over,
            deal_commitment=deal_commitment(record),
        )
        if hand.to_act is not None:
            response.to_act = hand.to_act
        if hand.result is not None:  # never the reveal: it implies the mucked hands
            response.result.CopyFrom(result_to_pb(hand.result))
        return response

    def get_hand_history(self, request: pb.GetHandHistoryRequest) -> pb.GetHandHistoryResponse:
        """A finished hand's history in PHH, for the players or for the audit."""
        record, audience = parse_history(request, self._open)
        hand = record.hand
        if not hand.over:
            raise hand_not_over(record.seq)
        deal = record.deal
        meta = HandMeta(
            hand_id=record.hand_id.hex(),
            player_ids=record.player_ids,
            deck_commitment=deck_commitment(record),
            salt=record.salt.hex(),
            deal_commitment=deal_commitment(record),
            server_seed="" if deal is None else deal.server_seed.hex(),
            contributions=() if deal is None else [c.hex() for c in deal.contributions],
        )
        try:
            text = render(hand, meta, audience)
        except HistoryError:  # a state whose action log does not play again: not ours
            raise bad_state() from None
        return pb.GetHandHistoryResponse(
            hand_id=record.hand_id.hex(), audience=AUDIENCE_TO_PB[audience], phh=text
        )

    def _update(self, record: HandRecord, events: Sequence[Event]) -> bytes:
        """The HandUpdate after ``events``, serialized: exactly the whole message's
        ``SerializeToString``, assembled in field order from the fields before the views,
        the views (serialized as they are built) and the fields after them
        (``updates.update_bytes``), so that no part is built as a message only to be
        serialized."""
        sealed = self._seal(record)
        self.observer.state_size(len(sealed))
        return self._views(record, sealed, events)

    def _seal(self, record: HandRecord) -> bytes:
        """The next state, sealed (the step ``seal``)."""
        if self._tracer is not None and get_current_span().is_recording():
            with self._tracer.start_as_current_span("seal"):
                return self.sealer.seal(record)
        return self.sealer.seal(record)

    def _views(self, record: HandRecord, sealed: bytes, events: Sequence[Event]) -> bytes:
        """The HandUpdate's bytes around ``sealed``: every view (the step ``views``)."""
        if self._tracer is not None and get_current_span().is_recording():
            with self._tracer.start_as_current_span("views"):
                return updates.update_bytes(record, sealed, events)
        return updates.update_bytes(record, sealed, events)

    def evaluate(self, request: pb.EvaluateRequest) -> pb.EvaluateResponse:
        batch = parse_evaluate(request)
        ranking = batch.ranking
        values = [
            pb.HandValue(
                rank=rank, category=ranking.category(rank), description=ranking.describe(rank)
            )
            for rank in batch.ranks()
        ]
        return pb.EvaluateResponse(values=values)

    def equity(
        self,
        request: pb.EquityRequest,
        time_remaining: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> pb.EquityResponse:
        """Equity of each player. The call's deadline (less a margin) bounds the work, and
        so do ``MAX_EQUITY_SECONDS`` of wall clock and ``equity_cpu_seconds`` of CPU time
        whatever the deadline; ``cancelled`` (asked between chunks) stops it early."""
        question = parse_equity(request)
        budget = MAX_EQUITY_SECONDS
        if time_remaining is not None:
            budget = min(budget, time_remaining - EQUITY_MARGIN_SECONDS)
            if budget <= 0:
                raise no_time_left("no time left for Equity", "Equity")
        result = self._stud_equity(question, budget, cancelled)
        halves = zip(result.high, result.low, strict=True) if result.high else None
        shares: list[pb.PlayerEquity] = []
        for w, t, e, s in zip(result.win, result.tie, result.equity, result.stderr, strict=True):
            share = pb.PlayerEquity(win=w, tie=t, equity=e, stderr=s)
            if halves is not None:  # Hi-Lo: each half's chances (R-HILO-SPLIT)
                share.high, share.low = next(halves)
            shares.append(share)
        return pb.EquityResponse(
            players=shares,
            method=result.method,
            samples=result.samples,
            stderr=max(result.stderr, default=0.0),
            complete=result.complete,
            seed=result.seed or 0,
        )

    def _stud_equity(
        self, question: EquityQuestion, budget: float, cancelled: Callable[[], bool] | None
    ) -> eq.EquityResult:
        """``equity.stud_equity`` within the budgets; its refusals as the API's."""
        try:
            cpu = self.equity_cpu_seconds
            options = question.options()
            return eq.stud_equity(
                question.known, **options, deadline=budget, cpu_seconds=cpu, cancelled=cancelled
            )
        except eq.Cancelled as stopped:
            self.observer.work_cancelled("Equity")
            _log.info("work cancelled", work="Equity", deals=stopped.deals, planned=stopped.planned)
            raise work_cancelled(str(stopped), "Equity") from None
        except ValueError as error:
            raise bad_request("equity", str(error)) from None
        except TimeoutError as error:
            raise no_time_left(str(error), "Equity") from None


__all__ = ["ApiError", "Handlers", "deck_commitment"]
