"""Helpers shared by the sample clients: variants and default stakes, action names, the
chip check and hand histories (``engine`` dials the server, ``narration`` tells a hand,
``devserver`` starts a server for a session)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stud_api.stud.v1 import stud_engine_pb2 as pb

VARIANTS: dict[str, pb.Variant.ValueType] = {
    "five": pb.VARIANT_FIVE_CARD_STUD,
    "seven": pb.VARIANT_SEVEN_CARD_STUD,
    "razz": pb.VARIANT_RAZZ,
    "hilo": pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
}
VARIANT_NAMES: dict[int, str] = {
    pb.VARIANT_FIVE_CARD_STUD: "Five Card Stud",
    pb.VARIANT_SEVEN_CARD_STUD: "Seven Card Stud",
    pb.VARIANT_RAZZ: "Razz",
    pb.VARIANT_SEVEN_CARD_STUD_HI_LO: "Seven Card Stud Hi-Lo",
}
#: The most players each game seats (rulebook R-SEATS).
MAX_PLAYERS: dict[int, int] = {
    pb.VARIANT_FIVE_CARD_STUD: 10,
    pb.VARIANT_SEVEN_CARD_STUD: 8,
    pb.VARIANT_RAZZ: 8,
    pb.VARIANT_SEVEN_CARD_STUD_HI_LO: 8,
}

ACTION_WORDS: dict[int, str] = {
    pb.ACTION_TYPE_FOLD: "fold",
    pb.ACTION_TYPE_CHECK: "check",
    pb.ACTION_TYPE_CALL: "call",
    pb.ACTION_TYPE_BRING_IN: "bring-in",
    pb.ACTION_TYPE_COMPLETE: "complete",
    pb.ACTION_TYPE_BET: "bet",
    pb.ACTION_TYPE_RAISE: "raise",
    pb.ACTION_TYPE_TIMEOUT: "timeout",
}


def default_table(ante: int = 5, bring_in: int = 10, small_bet: int = 20) -> pb.Table:
    """Fixed-limit stakes: the big bet is twice the small bet."""
    return pb.Table(ante=ante, bring_in=bring_in, small_bet=small_bet, big_bet=2 * small_bet)


def chips_conserved(start_stacks: Sequence[int], update: pb.HandUpdate) -> bool:
    """True when a finished hand's final stacks plus the rake (R-RAKE) add up to the
    stacks it started with."""
    total = sum(update.result.stacks) + update.result.rake
    return bool(update.over) and total == sum(start_stacks)


HISTORY_AUDIENCES = {
    "players": pb.HISTORY_AUDIENCE_PLAYERS,
    "audit": pb.HISTORY_AUDIENCE_AUDIT,
}


@dataclass(frozen=True)
class Histories:
    """Where finished hands' PHH histories go (``--history-dir``) and whose
    (``--history-audience``), as stud-play and stud-load take them."""

    directory: Path
    audience: str

    @staticmethod
    def add_options(
        parser: argparse.ArgumentParser, default_audience: str, verifiable_audience: str = ""
    ) -> None:
        """``--history-dir`` and ``--history-audience``; with ``verifiable_audience``, the
        audience's default is that one under ``--verifiable`` (``resolve_audience``)."""
        parser.add_argument(
            "--history-dir",
            type=Path,
            default=None,
            help="write each finished hand's history there as HAND_ID.phh (PHH)",
        )
        default_help = f"default {default_audience}"
        if verifiable_audience:
            default_help += f", {verifiable_audience} with --verifiable"
        parser.add_argument(
            "--history-audience",
            choices=sorted(HISTORY_AUDIENCES),
            default=None if verifiable_audience else default_audience,
            help="the players' history (mucked down cards hidden) or the audit one (every "
            f"card); {default_help}",
        )
        parser.set_defaults(
            history_default=default_audience, history_verifiable=verifiable_audience
        )

    @staticmethod
    def resolve_audience(args: argparse.Namespace) -> None:
        """Fill in ``--history-audience`` when it was left to depend on ``--verifiable``."""
        if args.history_audience is None:
            verifiable = getattr(args, "verifiable", False) and args.history_verifiable
            args.history_audience = verifiable or args.history_default

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Histories | None:
        """The options given; None without ``--history-dir`` (no histories written)."""
        return None if args.history_dir is None else cls(args.history_dir, args.history_audience)

    def request(self, update: pb.HandUpdate) -> pb.GetHandHistoryRequest:
        """The GetHandHistory request for a finished hand's last update."""
        audience = HISTORY_AUDIENCES[self.audience]
        return pb.GetHandHistoryRequest(state=update.state, audience=audience)

    def save(self, history: pb.GetHandHistoryResponse) -> Path:
        """Write one hand's history as ``<directory>/<hand_id>.phh``; returns the path."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{history.hand_id}.phh"
        path.write_text(history.phh, encoding="utf-8")
        return path


__all__ = [
    "ACTION_WORDS",
    "HISTORY_AUDIENCES",
    "MAX_PLAYERS",
    "VARIANTS",
    "VARIANT_NAMES",
    "Histories",
    "chips_conserved",
    "default_table",
]
