"""The verifiable deal (issue 32): the deck as a documented function of the server's seed,
the hand id and the players' contributions, so that anyone can recompute it.

HMAC_DRBG with SHA-256 (NIST SP 800-90A Rev. 1, section 10.1.2; no reseed, no additional
input, no prediction resistance) is instantiated with entropy_input = the server's seed,
nonce = the hand id, personalization_string = ``PERSONALIZATION`` followed by each
contribution in seat order as uint16 big-endian length || bytes. Its output, taken by
Generate calls of ``GENERATE_BYTES``, read as 32-bit big-endian words, drives a
Fisher-Yates (Durstenfeld) shuffle of the card indexes with rejection sampling (no modulo
bias). docs/security.md gives the scheme and a test vector. Pure: no I/O, no clock, no
randomness but what it is handed.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from typing import Final

PERSONALIZATION: Final = b"stud-engine/deal/v1"
GENERATE_BYTES: Final = 256  # bytes per DRBG Generate call
SEED_BYTES: Final = 32
HAND_ID_BYTES: Final = 16
MIN_CONTRIBUTION_BYTES: Final = 16
MAX_CONTRIBUTION_BYTES: Final = 64
DECK_CARDS: Final = 52  # as studengine.cards.DECK_SIZE (a sibling layer: not imported)
_WORD: Final = 1 << 32


class HmacDrbg:
    """HMAC_DRBG with SHA-256 (NIST SP 800-90A Rev. 1, 10.1.2), without reseeding."""

    def __init__(self, entropy: bytes, nonce: bytes, personalization: bytes) -> None:
        self._key = b"\x00" * 32
        self._value = b"\x01" * 32
        self._update(entropy + nonce + personalization)

    def _hmac(self, data: bytes) -> bytes:
        return hmac.digest(self._key, data, "sha256")

    def _update(self, provided: bytes) -> None:
        """HMAC_DRBG_Update (10.1.2.2)."""
        self._key = self._hmac(self._value + b"\x00" + provided)
        self._value = self._hmac(self._value)
        if provided:
            self._key = self._hmac(self._value + b"\x01" + provided)
            self._value = self._hmac(self._value)

    def generate(self, count: int) -> bytes:
        """HMAC_DRBG_Generate (10.1.2.5) of ``count`` bytes, no additional input. The key
        is the same for every block: keyed once, copied per block."""
        keyed = hmac.new(self._key, digestmod=hashlib.sha256)
        blocks = []
        produced = 0
        while produced < count:
            mac = keyed.copy()
            mac.update(self._value)
            self._value = mac.digest()
            blocks.append(self._value)
            produced += len(self._value)
        self._update(b"")
        return b"".join(blocks)[:count]


def commitment(server_seed: bytes) -> bytes:
    """The public commitment to a server seed: its SHA-256."""
    return hashlib.sha256(server_seed).digest()


def framed(contributions: Sequence[bytes]) -> bytes:
    """The contributions in seat order, each as uint16 big-endian length || bytes."""
    return b"".join(len(c).to_bytes(2, "big") + c for c in contributions)


def check_inputs(server_seed: bytes, hand_id: bytes, contributions: Sequence[bytes]) -> None:
    """Raises ValueError naming what is out of the scheme's bounds."""
    if len(server_seed) != SEED_BYTES:
        raise ValueError(f"server_seed: {len(server_seed)} bytes, expected {SEED_BYTES}")
    if len(hand_id) != HAND_ID_BYTES:
        raise ValueError(f"hand_id: {len(hand_id)} bytes, expected {HAND_ID_BYTES}")
    for seat, contribution in enumerate(contributions):
        if not MIN_CONTRIBUTION_BYTES <= len(contribution) <= MAX_CONTRIBUTION_BYTES:
            raise ValueError(
                f"contributions[{seat}]: {len(contribution)} bytes, expected "
                f"{MIN_CONTRIBUTION_BYTES} to {MAX_CONTRIBUTION_BYTES}"
            )


def deal_deck(server_seed: bytes, hand_id: bytes, contributions: Sequence[bytes]) -> list[int]:
    """The deck in dealing order (card indexes, deck[0] dealt first) that the seed, the
    hand id and the contributions give. Raises ValueError on inputs out of bounds."""
    check_inputs(server_seed, hand_id, contributions)
    drbg = HmacDrbg(server_seed, hand_id, PERSONALIZATION + framed(contributions))
    words: tuple[int, ...] = ()
    position = 0
    deck = list(range(DECK_CARDS))
    for i, n, limit in _DRAWS:
        while True:
            if position == len(words):  # a new Generate call: its words, in order
                words, position = _WORDS.unpack(drbg.generate(GENERATE_BYTES)), 0
            word = words[position]
            position += 1
            if word < limit:  # else rejected: the next word
                break
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# each step of the shuffle: i, n = i + 1, and the first word rejected for n
_DRAWS: Final = tuple((i, i + 1, _WORD - _WORD % (i + 1)) for i in range(DECK_CARDS - 1, 0, -1))
_WORDS: Final = struct.Struct(f">{GENERATE_BYTES // 4}I")  # a Generate call's 32-bit words
