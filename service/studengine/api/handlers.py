"""The API's handlers as plain functions of request messages (no gRPC here but status
codes): open the sealed state, let the rules engine act, build the views, seal the next
state. Tests call them directly; ``servicer.py`` is a thin gRPC layer over them.

Refusals raise ``ApiError`` (see ``errors.py``): a malformed request is refused once, with
every bad field found (``Violations``). Log context (``hand_id``, ``seq``,
``seat``, ``action``) is bound with structlog's contextvars for the call interceptor; no
hidden card, deck, salt or key is ever bound or logged.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence

import structlog
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine import cards as cardlib
from studengine.api.conversions import (
    ACTION_FROM_PB,
    AUDIENCE_FROM_PB,
    AUDIENCE_TO_PB,
    ODD_CHIP_FROM_PB,
    RANKING_FROM_PB,
    VARIANT_FROM_PB,
    add_legal,
    cards_text,
    legal_to_pb,
    result_to_pb,
)
from studengine.api.errors import (
    ApiError,
    Reason,
    Violations,
    hand_not_over,
    illegal_action,
    limit,
    no_time_left,
    stale_seq,
    state_violation,
    work_cancelled,
)
from studengine.api.observer import Observer, Unobserved
from studengine.api.views import build_view, fill_views
from studengine.history.phh import HandMeta, HistoryError, render
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import Event, IllegalAction, InvalidHand, OddChip, Table, Variant
from studengine.rules.validation import (
    game_problems,
    players_problems,
    table_problems,
    validate_deck,
)
from studengine.rules.variants import VARIANTS
from studengine.state.codec import HAND_ID_BYTES, MAX_PLAYER_ID, SALT_BYTES, HandRecord
from studengine.state.sealing import KeyRing, SealedStateInvalid, Sealer

MAX_CHIPS = 10**15  # any single amount (stack, stake); keeps every total inside int64
MAX_BETS_LIMIT = 1000
MAX_PLAYERS_ANY = 10
MAX_EVALUATE_BATCH = 10_000
MAX_TEST_DECK = cardlib.DECK_SIZE
DEFAULT_EQUITY_CPU_SECONDS = 2.0  # CPU time one Equity call may use (about 4x the largest)
_log = structlog.get_logger("studengine.api")
VARIANT_REQUIRED = (
    "must be VARIANT_FIVE_CARD_STUD, VARIANT_SEVEN_CARD_STUD, VARIANT_RAZZ "
    "or VARIANT_SEVEN_CARD_STUD_HI_LO"
)


def deck_commitment(hand_id: bytes, salt: bytes, deck: Sequence[int]) -> str:
    """Hex SHA-256 of hand_id || salt || deck bytes (the public commitment to the deal)."""
    return hashlib.sha256(hand_id + salt + bytes(deck)).hexdigest()


def _bind(**values: object) -> None:
    structlog.contextvars.bind_contextvars(**values)


def _parse_cards(texts: Sequence[str], field: str, found: Violations) -> list[int]:
    """The cards that parse; each one that does not is a violation."""
    parsed = []
    for index, text in enumerate(texts):
        try:
            parsed.append(cardlib.parse_card(text))
        except ValueError:
            found.add(f"{field}[{index}]", f"not a card: {text[:8]!r}")
    return parsed


def _amount(value: int, field: str, found: Violations) -> None:
    if value > MAX_CHIPS:
        found.limit(field, f"must be at most {MAX_CHIPS}, got {value}")


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

    def _table(self, msg: pb.Table, variant: Variant | None, found: Violations) -> Table:
        """The table asked for, its options' defaults filled in (the open-pair option on
        only in the games that have it); every problem with it goes to ``found``, an
        option the game does not have included (section 7: no open pair in Razz, Hi-Lo)."""
        for name in ("ante", "bring_in", "small_bet", "big_bet", "rake_cap"):
            _amount(getattr(msg, name), f"table.{name}", found)
        max_bets = msg.max_bets if msg.HasField("max_bets") else 4
        if max_bets > MAX_BETS_LIMIT:
            found.limit("table.max_bets", f"must be at most {MAX_BETS_LIMIT}, got {max_bets}")
        odd_chip = ODD_CHIP_FROM_PB.get(msg.odd_chip)
        if odd_chip is None:
            found.add("table.odd_chip", f"unknown value {msg.odd_chip}")
            odd_chip = OddChip.LEFT_OF_DEALER
        table = Table(
            ante=msg.ante,
            bring_in=msg.bring_in,
            small_bet=msg.small_bet,
            big_bet=msg.big_bet,
            max_bets=max_bets,
            uncapped_heads_up=msg.uncapped_heads_up if msg.HasField("uncapped_heads_up") else False,
            open_pair_big_bet=(
                msg.open_pair_big_bet
                if msg.HasField("open_pair_big_bet")
                else variant is None or VARIANTS[variant].open_pair_street is not None
            ),
            odd_chip=odd_chip,
            rake_percent_bp=msg.rake_percent_bp,
            rake_cap=msg.rake_cap,
        )
        for problem in table_problems(table):
            found.invalid_hand(problem)
        if variant is not None:
            for problem in game_problems(VARIANTS[variant], table):
                found.invalid_hand(problem)
        return table

    def _players(
        self, request: pb.StartHandRequest, variant: Variant | None, found: Violations
    ) -> list[str]:
        """The player ids; every problem with the players or the button goes to ``found``."""
        if len(request.players) > MAX_PLAYERS_ANY:
            found.add("players", f"at most {MAX_PLAYERS_ANY} players")
            return []
        ids: list[str] = []
        for seat, player in enumerate(request.players):
            if not 0 < len(player.id) <= MAX_PLAYER_ID:
                found.add(f"players[{seat}].id", f"must be 1 to {MAX_PLAYER_ID} characters")
            elif not player.id.isprintable():
                found.add(
                    f"players[{seat}].id",
                    "must be printable text (no control, format or separator characters)",
                )
            elif player.id in ids:
                found.add(f"players[{seat}].id", "appears twice")
            ids.append(player.id)
            _amount(player.stack, f"players[{seat}].stack", found)
        stacks = [p.stack for p in request.players]
        spec = VARIANTS[variant or Variant.SEVEN_CARD_STUD]
        for problem in players_problems(spec, stacks, request.button):
            if variant is not None or problem.field != "players":  # the count is the variant's
                found.invalid_hand(problem)
        return ids

    def _test_deck(self, request: pb.StartHandRequest, found: Violations) -> list[int]:
        if not self.allow_test_decks:
            found.add(
                "test_deck", "test decks are not allowed on this server", Reason.TEST_DECK_REFUSED
            )
            return []
        if len(request.test_deck) > MAX_TEST_DECK:
            found.add("test_deck", f"at most {MAX_TEST_DECK} cards")
            return []
        before = len(found.found)
        deck = _parse_cards(request.test_deck, "test_deck", found)
        if len(found.found) == before:  # every card parsed: is it a deck's order?
            try:
                validate_deck(deck)
            except InvalidHand as error:
                found.invalid_hand(error, prefix="test_")
        return deck

    def start_hand(self, request: pb.StartHandRequest) -> pb.StartHandResponse:
        found = Violations()
        variant = VARIANT_FROM_PB.get(request.variant)
        if variant is None:
            found.add("variant", VARIANT_REQUIRED)
        table = self._table(request.table, variant, found)
        ids = self._players(request, variant, found)
        test_deck = bool(request.test_deck)
        deck = self._test_deck(request, found) if test_deck else self._shuffle()
        found.check()
        assert variant is not None  # else found had a violation
        try:
            hand, events = start_hand(
                variant, table, [p.stack for p in request.players], request.button, deck
            )
        except InvalidHand as error:  # the checks above found none: the engine has its say
            found.invalid_hand(error, prefix="test_" if error.field.startswith("deck") else "")
            found.refuse()
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

    def _open(self, state: bytes, found: Violations, **context: object) -> HandRecord:
        """The opened state; binds its hand id and seq (and ``context``) for the log line.
        A state that does not open is refused, with the violations ``found`` so far."""
        try:
            record = self.sealer.open(state)
        except SealedStateInvalid:
            found.found.append(state_violation())
            found.refuse()
        _bind(hand_id=record.hand_id.hex(), seq=record.seq, **context)
        return record

    def act(self, request: pb.ActRequest) -> pb.ActResponse:
        found = Violations()
        timeout = request.action == pb.ACTION_TYPE_TIMEOUT
        action = ACTION_FROM_PB.get(request.action)
        if action is None and not timeout:
            found.add("action", f"unknown action {request.action}")
        seat = request.seat
        label = "TIMEOUT" if timeout else str(action and action.value)
        record = self._open(request.state, found, seat=seat, action=label)
        hand = record.hand
        if not 0 <= seat < hand.players:
            found.add("seat", f"must be a seat from 0 to {hand.players - 1}")
        found.check()
        if request.HasField("expected_seq") and request.expected_seq != record.seq:
            raise stale_seq(request.expected_seq, record.seq)
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
            raise illegal_action(error, record.seq) from None
        self.observer.action_taken(hand.variant.value, label)
        record.seq += 1
        _bind(seq=record.seq)
        if hand.over:
            self.observer.hand_finished(hand.variant.value)
            if hand.result is not None and hand.result.rake:
                self.observer.rake_taken(hand.variant.value, hand.result.rake)
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
        found = Violations()
        record = self._open(request.state, found)
        hand = record.hand
        viewer: int | None = None
        if request.HasField("seat"):
            if not 0 <= request.seat < hand.players:
                found.add("seat", f"must be a seat from 0 to {hand.players - 1}")
            found.check()
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

    # ---- GetHandHistory -----------------------------------------------------------

    def get_hand_history(self, request: pb.GetHandHistoryRequest) -> pb.GetHandHistoryResponse:
        """A finished hand's history in PHH, for the players or for the audit."""
        found = Violations()
        audience = AUDIENCE_FROM_PB.get(request.audience)
        if audience is None:
            found.add("audience", f"unknown value {request.audience}")
        record = self._open(request.state, found)
        found.check()
        assert audience is not None
        hand = record.hand
        if not hand.over:
            raise hand_not_over(record.seq)
        meta = HandMeta(
            hand_id=record.hand_id.hex(),
            player_ids=record.player_ids,
            deck_commitment=deck_commitment(record.hand_id, record.salt, hand.deck),
            salt=record.salt.hex(),
        )
        try:
            text = render(hand, meta, audience)
        except HistoryError:  # a state whose action log does not play again: not ours
            found.found.append(state_violation())
            found.refuse()
        return pb.GetHandHistoryResponse(
            hand_id=record.hand_id.hex(), audience=AUDIENCE_TO_PB[audience], phh=text
        )

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
        found = Violations()
        ranking = RANKING_FROM_PB.get(request.ranking)
        if ranking is None:
            found.add("ranking", f"unknown ranking {request.ranking}")
            ranking = "high"
        evaluate_many, describe = {
            "high": (evaluator.evaluate_many, evaluator.describe),
            "low": (evaluator.evaluate_low_many, evaluator.describe_low),
            "low8": (evaluator.evaluate_low8_many, evaluator.describe_low),
        }[ranking]
        by_size: dict[int, list[int]] = {5: [], 6: [], 7: []}
        buffers: dict[int, bytearray] = {5: bytearray(), 6: bytearray(), 7: bytearray()}
        for index, hand_msg in enumerate(request.hands):
            field = f"hands[{index}].cards"
            size = len(hand_msg.cards)
            if size not in by_size:
                found.add(field, f"a hand has 5 to 7 cards, got {size}")
                continue
            hand_cards = _parse_cards(hand_msg.cards, field, found)
            if len(hand_cards) != size:  # a card did not parse
                continue
            if len(set(hand_cards)) != size:
                found.add(field, "a card appears twice")
                continue
            by_size[size].append(index)
            buffers[size].extend(hand_cards)
        found.check()
        ranks = [0] * len(request.hands)
        for size, indexes in by_size.items():
            if indexes:
                for index, rank in zip(indexes, evaluate_many(buffers[size], size), strict=True):
                    ranks[index] = rank
        values = []
        for rank in ranks:
            description = describe(rank)
            values.append(
                pb.HandValue(
                    rank=rank,
                    category=_category(description, low=ranking != "high", rank=rank),
                    description=description,
                )
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

        found = Violations()
        variant = VARIANT_FROM_PB.get(request.variant)
        if variant is None:
            found.add("variant", VARIANT_REQUIRED)
        if not 2 <= len(request.players) <= eq.MAX_PLAYERS:
            found.add("players", f"equity takes 2 to {eq.MAX_PLAYERS} players")
        known = []
        for index, player in enumerate(request.players[: eq.MAX_PLAYERS]):
            up = _parse_cards(player.up_cards, f"players[{index}].up_cards", found)
            down = _parse_cards(player.down_cards, f"players[{index}].down_cards", found)
            known.append(down + up)
        dead: list[int] = []
        if len(request.dead_cards) > cardlib.DECK_SIZE:
            found.limit("dead_cards", f"at most {cardlib.DECK_SIZE} cards")
        else:
            dead = _parse_cards(request.dead_cards, "dead_cards", found)
        community = None
        if request.HasField("community_card"):
            parsed = _parse_cards([request.community_card], "community_card", found)
            community = parsed[0] if parsed else None
        samples = request.samples or eq.DEFAULT_SAMPLES
        if samples > eq.MAX_SAMPLES:
            found.limit("samples", f"at most {eq.MAX_SAMPLES}")
        method = EQUITY_METHODS.get(request.method)
        if method is None:
            found.add("method", f"unknown method {request.method}")
        found.check()
        assert variant is not None and method is not None  # else found had a violation
        if request.HasField("street"):
            street = request.street
        else:  # the cards each player holds: the most known of anyone, or by up cards
            first_street = 2 if variant is Variant.FIVE_CARD_STUD else 3
            by_up = max(len(p.up_cards) + first_street - 1 for p in request.players)
            most = max(len(k) for k in known)
            street = max(most, by_up, first_street)
            if community is not None:
                street = 7
        budget = MAX_EQUITY_SECONDS
        if time_remaining is not None:
            budget = min(budget, time_remaining - EQUITY_MARGIN_SECONDS)
            if budget <= 0:
                raise no_time_left("no time left for Equity", "Equity")
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
            raise work_cancelled(str(stopped), "Equity") from None
        except ValueError as error:
            found.add("equity", str(error))
            found.refuse()
        except TimeoutError as error:
            raise no_time_left(str(error), "Equity") from None
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


def _category(description: str, *, low: bool, rank: int) -> str:
    """HandValue.category: the description's head ("Two Pair"); for a low, its pairing
    ("One Pair", ...), "Low" when unpaired, "No Low" when it does not qualify."""
    if not low:
        return description.split(",")[0]
    if rank == 0:
        return "No Low"
    head, comma, _ = description.partition(",")
    return head if comma else "Low"


EQUITY_METHODS = {
    pb.EQUITY_METHOD_UNSPECIFIED: "auto",
    pb.EQUITY_METHOD_EXACT: "exact",
    pb.EQUITY_METHOD_MONTE_CARLO: "monte_carlo",
}
MAX_EQUITY_SECONDS = 10.0  # the most one Equity call may work, whatever its deadline
EQUITY_MARGIN_SECONDS = 0.05  # left of the caller's deadline to send the answer


__all__ = ["ApiError", "Handlers", "deck_commitment"]
