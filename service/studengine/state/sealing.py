"""Sealing hand states: AES-256-GCM under a key ring (the first key seals, all open).

Envelope: ``format (1 byte) || kid length (1 byte) || kid (ASCII) || nonce (12) ||
ciphertext+tag``. The associated data binds the format byte, the key id and the purpose
(``stud.v1.state``; a deal ticket's is ``state.tickets.TICKET_PURPOSE``), so a sealed blob
cannot be moved between formats, keys or uses.
Opening authenticates first, then decrypts, then parses protobuf (nothing else); every
failure is the one ``SealedStateInvalid`` with the one message, whatever went wrong.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Final, final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from studengine.state.codec import HandRecord, StateInvalid, decode
from studengine.state.encoding import encode

ENVELOPE_FORMAT: Final = 1
PURPOSE: Final = b"stud.v1.state"
NONCE_BYTES: Final = 12
KEY_BYTES: Final = 32
TAG_BYTES: Final = 16
KID_RE: Final = re.compile(r"^[A-Za-z0-9._-]{1,32}$")
INVALID_MESSAGE: Final = "sealed state is invalid"
MAX_SEALED_BYTES: Final = 64 * 1024


class SealedStateInvalid(ValueError):
    """A sealed state that does not open. One message for every cause."""

    def __init__(self) -> None:
        super().__init__(INVALID_MESSAGE)


def envelope_header(kid: bytes) -> bytes:
    """The envelope's first bytes for key id ``kid``: format, kid length, kid."""
    return bytes([ENVELOPE_FORMAT, len(kid)]) + kid


@final
class _Key:
    """One key of a ring, with its envelope header and associated data worked out once."""

    def __init__(self, kid: bytes, key: bytes) -> None:
        self.aead: Final = AESGCM(key)
        self.header: Final = envelope_header(kid)
        self.associated_data: Final = self.header + PURPOSE

    def associated(self, purpose: bytes) -> bytes:
        """The associated data for ``purpose``: the header, then the purpose."""
        return self.associated_data if purpose is PURPOSE else self.header + purpose


@final
class KeyRing:
    """Sealing keys by id: ``keys[0]`` seals, every key opens (rotation)."""

    def __init__(self, keys: Sequence[tuple[str, bytes]]) -> None:
        if not keys:
            raise ValueError("a key ring needs at least one key")
        self._keys: dict[bytes, _Key] = {}
        for kid, key in keys:
            if not KID_RE.match(kid):
                raise ValueError(f"key id {kid!r}: 1 to 32 of A-Z a-z 0-9 . _ -")
            if len(key) != KEY_BYTES:
                raise ValueError(f"key {kid!r}: must be {KEY_BYTES} bytes, got {len(key)}")
            raw = kid.encode("ascii")
            if raw in self._keys:
                raise ValueError(f"key id {kid!r} appears twice")
            self._keys[raw] = _Key(raw, key)
        self.primary = keys[0][0]
        self._sealing = self._keys[self.primary.encode("ascii")]

    @property
    def key_ids(self) -> list[str]:
        return [k.decode("ascii") for k in self._keys]

    def seal_bytes(self, plaintext: bytes, purpose: bytes = PURPOSE) -> bytes:
        """``plaintext`` sealed under the first key for ``purpose`` (a hand state's by
        default): only ``open_bytes`` with the same purpose opens it."""
        key = self._sealing
        nonce = os.urandom(NONCE_BYTES)
        sealed = key.aead.encrypt(nonce, plaintext, key.associated(purpose))
        return b"".join((key.header, nonce, sealed))

    def open_bytes(self, blob: bytes, purpose: bytes = PURPOSE) -> bytes:
        """The plaintext of a blob sealed for ``purpose``; SealedStateInvalid on any
        failure."""
        if len(blob) < 2 + NONCE_BYTES + TAG_BYTES or len(blob) > MAX_SEALED_BYTES:
            raise SealedStateInvalid()
        if blob[0] != ENVELOPE_FORMAT:
            raise SealedStateInvalid()
        nonce_at = 2 + blob[1]  # the kid's length, then the kid
        key = self._keys.get(blob[2:nonce_at])
        body_at = nonce_at + NONCE_BYTES
        if key is None or len(blob) < body_at + TAG_BYTES:  # no such key, or cut short
            raise SealedStateInvalid()
        try:
            associated_data = key.associated(purpose)
            return key.aead.decrypt(blob[nonce_at:body_at], blob[body_at:], associated_data)
        except InvalidTag:
            raise SealedStateInvalid() from None


class Sealer:
    """Seals and opens hand records for one server (its key ring and test-deck flag)."""

    def __init__(self, keyring: KeyRing, allow_test_decks: bool) -> None:
        self.keyring = keyring
        self.allow_test_decks = allow_test_decks

    def seal(self, record: HandRecord) -> bytes:
        return self.keyring.seal_bytes(encode(record))

    def open(self, blob: bytes) -> HandRecord:
        plaintext = self.keyring.open_bytes(blob)
        try:
            record = decode(plaintext)
        except StateInvalid:
            raise SealedStateInvalid() from None
        if record.test_deck and not self.allow_test_decks:
            raise SealedStateInvalid()
        return record
