"""The verifiable deal's deck function (issue 32, R-DECK): NIST's known answer for the
DRBG, the documented test vector, a permutation for any contributions, and a uniform first
card over many fixed seeds."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from studengine import deal

# NIST CAVP HMAC_DRBG (drbgvectors_no_reseed, HMAC_DRBG.rsp): [SHA-256]
# [PredictionResistance = False] [EntropyInputLen = 256] [NonceLen = 128]
# [PersonalizationStringLen = 0] [AdditionalInputLen = 0] [ReturnedBitsLen = 1024] COUNT = 0
CAVP_ENTROPY = "ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488"
CAVP_NONCE = "659ba96c601dc69fc902940805ec0ca8"
CAVP_RETURNED = (
    "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89"
    "d54fbb978a15b5c443c9ec21036d2460b6f73ebad0dc2aba6e624abf07745bc1"
    "07694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668"
    "961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8"
)

# the test vector of docs/security.md (the TypeScript client checks the same)
VECTOR_SEED = bytes(range(32))
VECTOR_HAND_ID = bytes(range(0xA0, 0xB0))
VECTOR_CONTRIBUTIONS = [b"alice's browser entropy 0001", b"bob's browser entropy 00000002"]
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
VECTOR_DECK = [
    51, 12, 22, 47, 40, 50, 21, 5, 28, 27, 19, 9, 31, 26, 18, 0, 45, 23, 46, 43, 29, 33, 36,
    15, 49, 42, 6, 20, 4, 34, 25, 32, 30, 35, 44, 38, 41, 37, 14, 3, 17, 10, 24, 11, 2, 48,
    7, 16, 39, 8, 13, 1,
]  # fmt: skip


def test_hmac_drbg_matches_nist_cavp_count_0() -> None:
    drbg = deal.HmacDrbg(bytes.fromhex(CAVP_ENTROPY), bytes.fromhex(CAVP_NONCE), b"")
    drbg.generate(128)  # the CAVP test generates twice and checks the second output
    assert drbg.generate(128).hex() == CAVP_RETURNED


def test_documented_vector_r_deck() -> None:
    assert deal.commitment(VECTOR_SEED).hex() == VECTOR_COMMITMENT
    assert deal.deal_deck(VECTOR_SEED, VECTOR_HAND_ID, VECTOR_CONTRIBUTIONS) == VECTOR_DECK


def test_every_input_changes_the_deck() -> None:
    base = deal.deal_deck(VECTOR_SEED, VECTOR_HAND_ID, VECTOR_CONTRIBUTIONS)
    other_seed = bytes([1]) + VECTOR_SEED[1:]
    other_hand = bytes([0]) + VECTOR_HAND_ID[1:]
    swapped = list(reversed(VECTOR_CONTRIBUTIONS))
    one_more_byte = [VECTOR_CONTRIBUTIONS[0] + b"!", VECTOR_CONTRIBUTIONS[1]]
    assert deal.deal_deck(other_seed, VECTOR_HAND_ID, VECTOR_CONTRIBUTIONS) != base
    assert deal.deal_deck(VECTOR_SEED, other_hand, VECTOR_CONTRIBUTIONS) != base
    assert deal.deal_deck(VECTOR_SEED, VECTOR_HAND_ID, swapped) != base
    assert deal.deal_deck(VECTOR_SEED, VECTOR_HAND_ID, one_more_byte) != base


def test_framing_keeps_contributions_apart() -> None:
    # the same bytes cut differently frame differently (length prefixes)
    whole = deal.framed([b"a" * 16 + b"b" * 16, b"c" * 16])
    cut = deal.framed([b"a" * 16, b"b" * 16 + b"c" * 16])
    assert whole != cut


@pytest.mark.parametrize(
    ("seed", "hand_id", "contributions", "named"),
    [
        (bytes(31), bytes(16), [bytes(16)], "server_seed"),
        (bytes(32), bytes(15), [bytes(16)], "hand_id"),
        (bytes(32), bytes(16), [bytes(16), bytes(15)], "contributions[1]"),
        (bytes(32), bytes(16), [bytes(65)], "contributions[0]"),
    ],
)
def test_inputs_out_of_bounds_are_refused(
    seed: bytes, hand_id: bytes, contributions: list[bytes], named: str
) -> None:
    with pytest.raises(ValueError, match=named.replace("[", r"\[")):
        deal.deal_deck(seed, hand_id, contributions)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    hand_id=st.binary(min_size=16, max_size=16),
    contributions=st.lists(st.binary(min_size=16, max_size=64), min_size=2, max_size=8),
)
def test_any_contributions_give_a_permutation_of_52_r_deck(
    seed: bytes, hand_id: bytes, contributions: list[bytes]
) -> None:
    deck = deal.deal_deck(seed, hand_id, contributions)
    assert sorted(deck) == list(range(52))


# chi-square critical value, 51 degrees of freedom, upper tail 0.001 (tables: 87.968)
CHI_SQUARE_51_P001 = 87.968


def test_first_card_is_uniform_over_fixed_seeds_r_deck() -> None:
    """5,200 deals from fixed seeds (100 expected per card): deterministic, bounded."""
    deals = 5200
    counts = [0] * 52
    for n in range(deals):
        seed = hashlib.sha256(b"chi-square seed %d" % n).digest()
        hand_id = seed[:16]
        contributions = [seed[16:] + b"seat0", seed[:16] + b"seat1"]
        counts[deal.deal_deck(seed, hand_id, contributions)[0]] += 1
    expected = deals / 52
    chi_square = sum((count - expected) ** 2 / expected for count in counts)
    assert chi_square < CHI_SQUARE_51_P001, (chi_square, counts)
    assert min(counts) > 0
