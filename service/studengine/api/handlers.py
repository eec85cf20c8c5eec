"""The API's handlers as plain functions of request messages (no gRPC here but status
codes): open the sealed state, let the rules engine act, build the views, seal the next
state. Tests call them directly; ``servicer.py`` is a thin gRPC layer over them.

Refusals raise ``ApiError`` (see ``errors.py``). Log context (``hand_id``, ``seq``,
``seat``, ``action``) is bound with structlog's contextvars for the call interceptor; no
hidden card, deck, salt or key is ever bound or logged.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence

import grpc
import structlog
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine import cards as cardlib
from studengine.api.conversions import (
    ACTION_FROM_PB,
    ODD_CHIP_FROM_PB,
    VARIANT_FROM_PB,
    add_legal,
    cards_text,
    legal_to_pb,
    result_to_pb,
)
from studengine.api.errors import (
    ApiError,
    bad_request,
    bad_state,
    illegal_action,
    invalid_hand,
    limit,
    stale_seq,
)
from studengine.api.observer import Observer, Unobserved
from studengine.api.views import build_view, fill_views
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import Event, IllegalAction, InvalidHand, Table, Variant
from studengine.state.codec import HAND_ID_BYTES, MAX_PLAYER_ID, SALT_BYTES, HandRecord
from studengine.state.sealing import KeyRing, SealedStateInvalid, Sealer

MAX_CHIPS = 10**15  # any single amount (stack, stake); keeps every total inside int64
MAX_BETS_LIMIT = 1000
MAX_PLAYERS_ANY = 10
MAX_EVALUATE_BATCH = 10_000
MAX_TEST_DECK = cardlib.DECK_SIZE
DEFAULT_EQUITY_CPU_SECONDS = 2.0  # CPU time one Equity call may use (about 4x the largest)
_log = structlog.get_logger("studengine.api")
VARIANT_REQUIRED = "must be VARIANT_FIVE_CARD_STUD or VARIANT_SEVEN_CARD_STUD"


def deck_commitment(hand_id: bytes, salt: bytes, deck: Sequence[int]) -> str:
    """Hex SHA-256 of hand_id || salt || deck bytes (the public commitment to the deal)."""
    return hashlib.sha256(hand_id + salt + bytes(deck)).hexdigest()


def _bind(**values: object) -> None:
    structlog.contextvars.bind_contextvars(**values)


def _parse_cards(texts: Sequence[str], field: str) -> list[int]:
    parsed = []
    for index, text in enumerate(texts):
        try:
            parsed.append(cardlib.parse_card(text))
        except ValueError:
            raise bad_request(f"{field}[{index}]", f"not a card: {text[:8]!r}") from None
    return parsed


def _amount(value: int, field: str) -> int:
    if value > MAX_CHIPS:
        raise limit(field, f"must be at most {MAX_CHIPS}, got {value}")
    return value


class Handlers:
    """The API's operations for one server: its key ring and its test-deck flag."""

    def __init__(
        self,
        keyring: KeyRing,
        allow_test_decks: bool,
        shuffle: Callable[[], list[int]] = cardlib.shuffled_deck,
        observer: Observer | None = None,
        equity_cpu_seconds: float = DEFAULT_EQUITY_CPU_SECONDS,
    ) -> None:
        self.sealer = Sealer(keyring, allow_test_decks)
        self.equity_cpu_seconds = equity_cpu_seconds
        self.observer: Observer = observer or Unobserved()
        self.allow_test_decks = allow_test_decks
        self._shuffle = shuffle

    # ---- StartHand ----------------------------------------------------------------

    def _table(self, msg: pb.Table) -> Table:
        for name in ("ante", "bring_in", "small_bet", "big_bet"):
            _amount(getattr(msg, name), f"table.{name}")
        max_bets = msg.max_bets if msg.HasField("max_bets") else 4
        if max_bets > MAX_BETS_LIMIT:
            raise limit("table.max_bets", f"must be at most {MAX_BETS_LIMIT}, got {max_bets}")
        odd_chip = ODD_CHIP_FROM_PB.get(msg.odd_chip)
        if odd_chip is None:
            raise bad_request("table.odd_chip", f"unknown value {msg.odd_chip}")
        return Table(
            ante=msg.ante,
            bring_in=msg.bring_in,
            small_bet=msg.small_bet,
            big_bet=msg.big_bet,
            max_bets=max_bets,
            uncapped_heads_up=msg.uncapped_heads_up if msg.HasField("uncapped_heads_up") else False,
            open_pair_big_bet=msg.open_pair_big_bet if msg.HasField("open_pair_big_bet") else True,
            odd_chip=odd_chip,
        )

    def start_hand(self, request: pb.StartHandRequest) -> pb.StartHandResponse:
        variant = VARIANT_FROM_PB.get(request.variant)
        if variant is None:
            raise bad_request("variant", VARIANT_REQUIRED)
        table = self._table(request.table)
        if len(request.players) > MAX_PLAYERS_ANY:
            raise bad_request("players", f"at most {MAX_PLAYERS_ANY} players")
        ids = []
        for seat, player in enumerate(request.players):
            if not 0 < len(player.id) <= MAX_PLAYER_ID:
                raise bad_request(f"players[{seat}].id", f"must be 1 to {MAX_PLAYER_ID} characters")
            if not player.id.isprintable():
                raise bad_request(
                    f"players[{seat}].id",
                    "must be printable text (no control, format or separator characters)",
                )
            if player.id in ids:
                raise bad_request(f"players[{seat}].id", "appears twice")
            ids.append(player.id)
            _amount(player.stack, f"players[{seat}].stack")
        test_deck = bool(request.test_deck)
        if test_deck:
            if not self.allow_test_decks:
                raise bad_request(
                    "test_deck",
                    "test decks are not allowed on this server",
                    reason="test_deck_refused",
                )
            if len(request.test_deck) > MAX_TEST_DECK:
                raise bad_request("test_deck", f"at most {MAX_TEST_DECK} cards")
            deck = _parse_cards(request.test_deck, "test_deck")
        else:
            deck = self._shuffle()
        try:
            hand, events = start_hand(
                variant, table, [p.stack for p in request.players], request.button, deck
            )
        except InvalidHand as error:
            if error.field.startswith("deck"):
                raise bad_request("test_" + error.field, error.reason) from None
            raise invalid_hand(error) from None
        record = HandRecord(
            hand_id=os.urandom(HAND_ID_BYTES),
            seq=0,
            test_deck=test_deck,
            salt=os.urandom(SALT_BYTES),
            player_ids=ids,
            hand=hand,
        )
        _bind(hand_id=record.hand_id.hex(), seq=0)
        self.observer.hand_started(variant.value)
        response = pb.StartHandResponse()
        self._update(record, events, response.hand)
        return response

    # ---- Act ----------------------------------------------------------------------

    def _open(self, state: bytes, **context: object) -> HandRecord:
        """The opened state; binds its hand id and seq (and ``context``) for the log line."""
        try:
            record = self.sealer.open(state)
        except SealedStateInvalid:
            raise bad_state() from None
        _bind(hand_id=record.hand_id.hex(), seq=record.seq, **context)
        return record

    def act(self, request: pb.ActRequest) -> pb.ActResponse:
        timeout = request.action == pb.ACTION_TYPE_TIMEOUT
        action = ACTION_FROM_PB.get(request.action)
        if action is None and not timeout:
            raise bad_request("action", f"unknown action {request.action}")
        seat = request.seat
        label = "TIMEOUT" if timeout else str(action and action.value)
        record = self._open(request.state, seat=seat, action=label)
        hand = record.hand
        if request.HasField("expected_seq") and request.expected_seq != record.seq:
            raise stale_seq(request.expected_seq, record.seq)
        if not 0 <= seat < hand.players:
            raise bad_request("seat", f"must be a seat from 0 to {hand.players - 1}")
        try:
            if timeout:
                events = hand.timeout(seat)
                done = events[0]
                kind = getattr(done, "type", None)
                label = kind.value if kind is not None else "TIMEOUT"
            else:
                assert action is not None
                to = request.to if request.HasField("to") else self._smallest(hand, action)
                events = hand.act(seat, action, to)
        except IllegalAction as error:
            raise illegal_action(error) from None
        self.observer.action_taken(hand.variant.value, label)
        record.seq += 1
        _bind(seq=record.seq)
        if hand.over:
            self.observer.hand_finished(hand.variant.value)
        response = pb.ActResponse()
        self._update(record, events, response.hand)
        return response

    @staticmethod
    def _smallest(hand: Hand, action: object) -> int | None:
        """With no ``to``, the smaller of two legal sizes (the open-pair round)."""
        sizes = [a.to for a in hand.legal_actions() if a.type is action and a.to is not None]
        return min(sizes) if len(sizes) > 1 else None

    # ---- GetView ------------------------------------------------------------------

    def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        record = self._open(request.state)
        hand = record.hand
        viewer: int | None = None
        if request.HasField("seat"):
            if not 0 <= request.seat < hand.players:
                raise bad_request("seat", f"must be a seat from 0 to {hand.players - 1}")
            viewer = request.seat
        _bind(seat=viewer)
        response = pb.GetViewResponse(
            hand_id=record.hand_id.hex(),
            seq=record.seq,
            view=build_view(hand, record.player_ids, (), viewer),
            legal_actions=legal_to_pb(hand.legal_actions()),
            deck_commitment=deck_commitment(record.hand_id, record.salt, hand.deck),
            over=hand.over,
        )
        if hand.to_act is not None:
            response.to_act = hand.to_act
        if hand.result is not None:  # never the reveal: it implies the mucked hands
            response.result.CopyFrom(result_to_pb(hand.result))
        return response

    # ---- the shared response ------------------------------------------------------

    def _update(self, record: HandRecord, events: Sequence[Event], update: pb.HandUpdate) -> None:
        """Fill ``update`` in place (a message passed to a parent's constructor or
        ``CopyFrom`` would be copied, which costs a parse)."""
        hand = record.hand
        sealed = self.sealer.seal(record)
        self.observer.state_size(len(sealed))
        update.hand_id = record.hand_id.hex()
        update.seq = record.seq
        update.state = sealed
        add_legal(update.legal_actions, hand.legal_actions())
        update.deck_commitment = deck_commitment(record.hand_id, record.salt, hand.deck)
        update.over = hand.over
        fill_views(update, hand, record.player_ids, events)
        if hand.to_act is not None:
            update.to_act = hand.to_act
        if hand.result is not None:
            update.result.CopyFrom(result_to_pb(hand.result))
            update.reveal.CopyFrom(pb.Reveal(salt=record.salt.hex(), deck=cards_text(hand.deck)))

    # ---- Evaluate and Equity ------------------------------------------------------

    def evaluate(self, request: pb.EvaluateRequest) -> pb.EvaluateResponse:
        from studengine import evaluator

        if len(request.hands) > MAX_EVALUATE_BATCH:
            raise limit("hands", f"at most {MAX_EVALUATE_BATCH} hands a call")
        by_size: dict[int, list[int]] = {5: [], 6: [], 7: []}
        buffers: dict[int, bytearray] = {5: bytearray(), 6: bytearray(), 7: bytearray()}
        for index, hand_msg in enumerate(request.hands):
            field = f"hands[{index}].cards"
            size = len(hand_msg.cards)
            if size not in by_size:
                raise bad_request(field, f"a hand has 5 to 7 cards, got {size}")
            hand_cards = _parse_cards(hand_msg.cards, field)
            if len(set(hand_cards)) != size:
                raise bad_request(field, "a card appears twice")
            by_size[size].append(index)
            buffers[size].extend(hand_cards)
        ranks = [0] * len(request.hands)
        for size, indexes in by_size.items():
            if indexes:
                for index, rank in zip(
                    indexes, evaluator.evaluate_many(buffers[size], size), strict=True
                ):
                    ranks[index] = rank
        values = []
        for rank in ranks:
            description = evaluator.describe(rank)
            values.append(
                pb.HandValue(rank=rank, category=description.split(",")[0], description=description)
            )
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
        from studengine import equity as eq

        variant = VARIANT_FROM_PB.get(request.variant)
        if variant is None:
            raise bad_request("variant", VARIANT_REQUIRED)
        if not 2 <= len(request.players) <= eq.MAX_PLAYERS:
            raise bad_request("players", f"equity takes 2 to {eq.MAX_PLAYERS} players")
        known = []
        for index, player in enumerate(request.players):
            up = _parse_cards(player.up_cards, f"players[{index}].up_cards")
            down = _parse_cards(player.down_cards, f"players[{index}].down_cards")
            known.append(down + up)
        if len(request.dead_cards) > cardlib.DECK_SIZE:
            raise limit("dead_cards", f"at most {cardlib.DECK_SIZE} cards")
        dead = _parse_cards(request.dead_cards, "dead_cards")
        community = None
        if request.HasField("community_card"):
            community = _parse_cards([request.community_card], "community_card")[0]
        if request.HasField("street"):
            street = request.street
        else:  # the cards each player holds: the most known of anyone, or by up cards
            first_street = 2 if variant is Variant.FIVE_CARD_STUD else 3
            by_up = max(len(p.up_cards) + first_street - 1 for p in request.players)
            most = max(len(k) for k in known)
            street = max(most, by_up, first_street)
            if community is not None:
                street = 7
        samples = request.samples or eq.DEFAULT_SAMPLES
        if samples > eq.MAX_SAMPLES:
            raise limit("samples", f"at most {eq.MAX_SAMPLES}")
        method = EQUITY_METHODS.get(request.method)
        if method is None:
            raise bad_request("method", f"unknown method {request.method}")
        budget = MAX_EQUITY_SECONDS
        if time_remaining is not None:
            budget = min(budget, time_remaining - EQUITY_MARGIN_SECONDS)
            if budget <= 0:
                raise ApiError(
                    grpc.StatusCode.DEADLINE_EXCEEDED, "no time left for Equity", "limit"
                )
        try:
            result = eq.stud_equity(
                known,
                variant=variant,
                street=street,
                dead=dead,
                community_card=community,
                method=method,
                samples=samples,
                seed=request.seed if request.HasField("seed") else None,
                deadline=budget,
                cpu_seconds=self.equity_cpu_seconds,
                cancelled=cancelled,
            )
        except eq.Cancelled as stopped:
            self.observer.work_cancelled("Equity")
            _log.info("work cancelled", work="Equity", deals=stopped.deals, planned=stopped.planned)
            raise ApiError(grpc.StatusCode.CANCELLED, str(stopped), "cancelled") from None
        except ValueError as error:
            raise bad_request("equity", str(error)) from None
        except TimeoutError as error:
            raise ApiError(grpc.StatusCode.DEADLINE_EXCEEDED, str(error), "limit") from None
        return pb.EquityResponse(
            players=[
                pb.PlayerEquity(win=w, tie=t, equity=e, stderr=s)
                for w, t, e, s in zip(
                    result.win, result.tie, result.equity, result.stderr, strict=True
                )
            ],
            method=result.method,
            samples=result.samples,
            stderr=max(result.stderr, default=0.0),
            complete=result.complete,
            seed=result.seed or 0,
        )


EQUITY_METHODS = {
    pb.EQUITY_METHOD_UNSPECIFIED: "auto",
    pb.EQUITY_METHOD_EXACT: "exact",
    pb.EQUITY_METHOD_MONTE_CARLO: "monte_carlo",
}
MAX_EQUITY_SECONDS = 10.0  # the most one Equity call may work, whatever its deadline
EQUITY_MARGIN_SECONDS = 0.05  # left of the caller's deadline to send the answer


__all__ = ["ApiError", "Handlers", "deck_commitment"]
