"""Deal tickets (issue 32): a server seed and the hand id it is for, bound to one table's
settings and players and to an expiry, sealed under the state key ring with their own
purpose (``TICKET_PURPOSE``), so that a ticket never opens as a hand state, nor a state as
a ticket. The content is ``stud.internal.v1.DealTicketContent``; every failure to open is
the one ``DealTicketInvalid``, whatever went wrong."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from google.protobuf.message import DecodeError

from studengine.deal import HAND_ID_BYTES, SEED_BYTES, commitment
from studengine.rules.types import Table, Variant
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.encoding import game_bytes
from studengine.state.sealing import KeyRing, SealedStateInvalid

TICKET_PURPOSE: Final = b"stud.v1.deal-ticket"
TICKET_FORMAT_VERSION: Final = 1
DEFAULT_TICKET_SECONDS: Final = 300  # five minutes (stud-server --deal-ticket-seconds)
_SETTINGS_DOMAIN: Final = b"stud-engine/deal-ticket/settings/v1\x00"
_DIGEST_BYTES: Final = 32


class DealTicketInvalid(ValueError):
    """A deal ticket that does not open. One message for every cause."""

    def __init__(self) -> None:
        super().__init__("deal ticket is invalid")


@dataclass(frozen=True)
class TicketContent:
    """What a sealed ticket holds."""

    server_seed: bytes
    hand_id: bytes
    settings_digest: bytes
    expires_at_ms: int

    @property
    def commitment(self) -> bytes:
        """SHA-256 of the server seed: the public deal commitment."""
        return commitment(self.server_seed)


@dataclass(frozen=True)
class Settings:
    """What a ticket binds: the game, its table (defaults filled in), the players and
    the button, as StartHand and CreateDealTicket both parse them."""

    variant: Variant
    table: Table
    player_ids: Sequence[str]
    stacks: Sequence[int]
    button: int

    def digest(self) -> bytes:
        return settings_digest(self.variant, self.table, self.player_ids, self.stacks, self.button)


def settings_digest(
    variant: Variant, table: Table, player_ids: Sequence[str], stacks: Sequence[int], button: int
) -> bytes:
    """SHA-256, domain-separated, of the game and table as the sealed state writes them,
    each player's id (UTF-8, uint16 length first) and stack (int64), and the button."""
    players = b"".join(
        len(raw).to_bytes(2, "big") + raw + stack.to_bytes(8, "big", signed=True)
        for raw, stack in zip((pid.encode() for pid in player_ids), stacks, strict=True)
    )
    game = game_bytes(variant, table)
    canonical = b"".join((_SETTINGS_DOMAIN, len(game).to_bytes(2, "big"), game, players))
    return hashlib.sha256(canonical + button.to_bytes(1, "big")).digest()


def new_ticket(settings: Settings, now_ms: int, lifetime_ms: int) -> TicketContent:
    """A fresh ticket: a seed and a hand id from the OS CSPRNG."""
    return TicketContent(
        server_seed=secrets.token_bytes(SEED_BYTES),
        hand_id=secrets.token_bytes(HAND_ID_BYTES),
        settings_digest=settings.digest(),
        expires_at_ms=now_ms + lifetime_ms,
    )


def seal_ticket(keyring: KeyRing, ticket: TicketContent) -> bytes:
    content = state_pb2.DealTicketContent(
        format_version=TICKET_FORMAT_VERSION,
        server_seed=ticket.server_seed,
        hand_id=ticket.hand_id,
        settings_digest=ticket.settings_digest,
        expires_at_ms=ticket.expires_at_ms,
    )
    return keyring.seal_bytes(content.SerializeToString(deterministic=True), TICKET_PURPOSE)


def open_ticket(keyring: KeyRing, blob: bytes) -> TicketContent:
    """The ticket sealed in ``blob``; DealTicketInvalid on any failure (a hand state
    does not open: its purpose is another)."""
    try:
        plaintext = keyring.open_bytes(blob, TICKET_PURPOSE)
        content = state_pb2.DealTicketContent.FromString(plaintext)
    except (SealedStateInvalid, DecodeError):
        raise DealTicketInvalid() from None
    if (
        content.format_version != TICKET_FORMAT_VERSION
        or len(content.server_seed) != SEED_BYTES
        or len(content.hand_id) != HAND_ID_BYTES
        or len(content.settings_digest) != _DIGEST_BYTES
    ):
        raise DealTicketInvalid()
    return TicketContent(
        server_seed=content.server_seed,
        hand_id=content.hand_id,
        settings_digest=content.settings_digest,
        expires_at_ms=content.expires_at_ms,
    )
